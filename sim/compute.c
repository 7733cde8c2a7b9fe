/* compute: the names of the compute models, precisions, checkpointing and synthetic data modes. */
#include "compute.h"

#include "names.h"

#include <stddef.h>

const char* const ss_compute_model_names[] = {"peak", "roofline", "auto", "kernels", NULL};
const char* const ss_precision_names[] = {"workload", "fp32", "tf32", "amp", "bf16", "fp8", NULL};
const char* const ss_ckpt_names[] = {"workload", "off", "on", NULL};
const char* const ss_synthetic_names[] = {"off", "device", "host", NULL};
const char* const ss_attention_mode_names[] = {"auto", "flash", "eager", NULL};
const char* const ss_attention_kernel_names[] = {"auto", "fa2", "fa3", "fa4", "cudnn", "triton", NULL};

const char* ss_compute_model_name(ss_compute_model m)
{
  return ss_names_at(ss_compute_model_names, (int)m);
}

int ss_precision_half(ss_precision p)
{
  return p == SS_PRECISION_AMP || p == SS_PRECISION_BF16 || p == SS_PRECISION_FP8;
}

const char* ss_precision_name(ss_precision p)
{
  return ss_names_at(ss_precision_names, (int)p);
}
