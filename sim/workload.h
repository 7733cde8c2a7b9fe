/* workload: read and validate a workload JSON file (optionally gzipped) with cJSON and zlib. */
#ifndef SS_WORKLOAD_H
#define SS_WORKLOAD_H

#include "err.h"
#include "transformer.h"

/* One layer, times in seconds on the reference device at the reference batch. */
typedef struct ss_layer {
  char* name;
  double fwd_s;
  double bwd_s;
  double params;     /* parameters whose gradients this layer produces (a whole number) */
  int ntensors;      /* its parameter tensors (weight, bias, norm scale and shift...): 1 when the
                   * file gives no list, 0 when params is 0 */
  double* tensors;   /* [ntensors]: elements of each, in registration order; they sum to params */
  double host_fwd_s; /* the training process's CPU thread issuing its forward / backward operators */
  double host_bwd_s; /* (seconds of one reference core, not scaled with the batch); 0 when not given */
  /* The layer's work per SAMPLE at the reference precision (FP32 activations, 4 bytes); all 0 when
   * the file gives none (ss_workload.has_work). */
  double fwd_flops, bwd_flops; /* floating-point operations, multiply-add = 2 */
  double fwd_bytes, bwd_bytes; /* activation bytes its kernels read and write, weights excluded */
  double act_bytes;            /* activation bytes kept for the backward pass */
  double act_bytes_half;       /* the same at amp/bf16 (optional key; -1 when absent: act_bytes x 0.5) */
  /* Activation checkpointing (optional, with the work keys): the bytes per sample the layer keeps when
   * its block is checkpointed, the block's input for its first layer (> 0) and 0 for the layers that
   * follow it in the same block; -1 when the layer is in no checkpointed block. At amp/bf16
   * ckpt_bytes_half (-1 when absent: ckpt_bytes x 0.5). */
  double ckpt_bytes, ckpt_bytes_half;
  int fwd_kernels, bwd_kernels; /* CUDA kernels it launches */
  /* Elements its main kernel (the convolution or matrix product) writes per sample: the output
   * forward, the data gradient backward; what sets its thread blocks (the roofline's waves). 0 when
   * the file gives none (ss_workload.has_outputs). */
  double fwd_outputs, bwd_outputs;
  /* Elements per sample cuDNN transposes between NCHW and the NHWC of its tensor-core kernels around
   * a convolution (0 for other layers), given with the outputs. */
  double fwd_nchw_elements, bwd_nchw_elements;
} ss_layer;

/* The optimizer the training runs (its state and traffic per parameter). */
typedef enum ss_optimizer {
  SS_OPT_SGD,
  SS_OPT_SGD_MOMENTUM, /* the default when the file names none */
  SS_OPT_ADAM,
  SS_OPT_ADAMW,
} ss_optimizer;

/* The optimizer's name as the workload file spells it ("sgd_momentum"). */
const char* ss_optimizer_name(ss_optimizer o);

typedef struct ss_dataset {
  char* name;
  double samples;
  double bytes_per_sample;         /* average size on storage */
  double prep_cpu_s_per_sample;    /* decode + augment, seconds of one reference core */
  double decoded_bytes_per_sample; /* bytes copied to the GPU per sample */
} ss_dataset;

/* A measured comparison of another device with the reference device on this model: the same
 * benchmark run on both (times in seconds at one batch, or throughputs). It gives that device's
 * compute times in place of the peak-FLOPS ratio. */
typedef struct ss_device {
  char* gpu_model;  /* matched against the platform's gpu_model */
  double fwd_ratio; /* device time / reference time, forward */
  double bwd_ratio; /* ... backward (and the optimizer: the ratio of the totals) */
  double total_ratio;
  double host_ratio; /* host times on that device's instance / on the reference one (1 when not given) */
  int batch;         /* the batch of the comparison; 0: the reference batch */
  char* source;
} ss_device;

typedef struct ss_workload {
  char* path;
  char* model;
  char* precision;
  int batch_per_gpu;
  double grad_bytes_per_param;
  char* ref_gpu_model;
  double ref_gpu_flops;
  double ref_bytes_per_s; /* the reference device's memory bandwidth (reference.memory_gbytes_per_s); 0: not given */
  int ref_sm_count;       /* its SMs (reference.sm_count); 0: not given */
  int ref_batch;
  double optimizer_s;      /* on the reference device; not scaled with the batch */
  double host_optimizer_s; /* the CPU thread issuing the optimizer step; 0 when not given */
  int has_host_times;      /* the file gives host times (every layer has them) */
  int has_tensors;         /* the file lists every layer's parameter tensors */
  int has_work;            /* the file gives every layer's FLOPs, bytes and kernels */
  int has_outputs;         /* ... and every layer's fwd_outputs, bwd_outputs, fwd_nchw_elements and bwd_nchw_elements */
  int has_ckpt;            /* some layer gives ckpt_bytes: the workload can run with activation checkpointing */
  int activation_checkpointing; /* the file's default for it ("activation_checkpointing", false when absent) */
  ss_optimizer optimizer;
  int ntensors; /* parameter tensors of the model */
  int nlayers;
  ss_layer* layers; /* forward order */
  ss_dataset dataset;
  int ndevices;
  ss_device* devices; /* optional */
  /* A decoder-only language model's architecture ("transformer", optional): what tensor and pipeline
   * parallelism split (docs/formats.md). Its layers are then the input embedding, the same number of
   * entries for each of tf.layers transformer layers (layers_per_block), and the output layer. */
  int has_transformer;
  ss_transformer tf;
  int layers_per_block;
  int max_positions;     /* the positions the model has (a config's max_position_embeddings); 0: not said */
  int learned_positions; /* ... in a table (GPT-2's): no sequence can be longer */
  int from_config;       /* read from a Hugging Face config.json (hfconfig.h) */
  int untimed;           /* its layers have no times (a config's; "measured_times": false): only the kernel
                          * model can time them */
} ss_workload;

/* The device entry whose gpu_model is exactly model, or NULL. */
const ss_device* ss_workload_device(const ss_workload* w, const char* model);

/* Read and validate the workload at path (plain or gzip). On success *out owns a new workload
 * (free with ss_workload_free); on bad input returns SS_EINPUT with the file and line:column
 * (syntax) or JSON path (values) in err. */
int ss_workload_load(const char* path, ss_workload** out, ss_err* err);

void ss_workload_free(ss_workload* w);

/* Total gradient bytes of one iteration. */
double ss_workload_grad_bytes(const ss_workload* w);

#endif
