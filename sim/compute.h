/* compute: how a layer's GPU time is obtained (peak FLOPS or the roofline model), the precision the
 * layers run at, activation checkpointing, synthetic data, and CUDA's launch queue, with their names. */
#ifndef SS_COMPUTE_H
#define SS_COMPUTE_H

/* How a layer's time on the platform's GPU is obtained when the workload has no measured entry for it:
 * the reference time scaled by the ratio of peak FP32 FLOPS and linearly with the batch (peak), the
 * roofline model fitted on the reference device (roofline.h; needs the layers' work and both
 * devices' figures, else peak), or for a transformer at 16-bit on a GPU the kernel fits cover, its
 * kernels (kernels; auto takes it where it can). */
typedef enum ss_compute_model {
  SS_COMPUTE_PEAK,
  SS_COMPUTE_ROOFLINE,
  SS_COMPUTE_AUTO,
  SS_COMPUTE_KERNELS /* a transformer's layers from their kernels (tfmodel.h) */
} ss_compute_model;

/* How a transformer's attention core runs (--attention): auto (flash where the kernel model times the
 * run and the GPU has a fused kernel, else eager), flash (fused, no S x S scores kept), eager. */
typedef enum ss_attention_mode { SS_ATTN_AUTO, SS_ATTN_FLASH, SS_ATTN_EAGER } ss_attention_mode;

/* The precision the layers run at (--precision): FP32, TF32 tensor cores, mixed precision (FP16
 * tensor cores, FP32 master weights and gradients, as torch.cuda.amp and apex O1), BF16, FP8. */
typedef enum ss_precision {
  SS_PRECISION_WORKLOAD,
  SS_PRECISION_FP32,
  SS_PRECISION_TF32,
  SS_PRECISION_AMP,
  SS_PRECISION_BF16,
  SS_PRECISION_FP8 /* BF16 with the transformer's matrix products in FP8 (Transformer Engine, torchao) */
} ss_precision;

/* Activation checkpointing (--checkpoint-activations): the workload's default
 * (activation_checkpointing), off, or on (the checkpointed layers' forward re-run in backward). */
typedef enum ss_ckpt { SS_CKPT_WORKLOAD, SS_CKPT_OFF, SS_CKPT_ON } ss_ckpt;

/* Synthetic data: none (real data), kept on the GPU, or made in pageable host memory and copied to
 * the GPU every iteration. A true value means synthetic. */
typedef enum ss_synthetic { SS_SYNTH_OFF, SS_SYNTH_DEVICE, SS_SYNTH_HOST } ss_synthetic;

/* Names by value, NULL-terminated: the options' values. */
extern const char* const ss_compute_model_names[];
extern const char* const ss_precision_names[];
extern const char* const ss_ckpt_names[];
extern const char* const ss_synthetic_names[];
extern const char* const ss_attention_mode_names[];
extern const char* const ss_attention_kernel_names[]; /* --attention-kernel: "auto", then kernelfit.h's names */
const char* ss_compute_model_name(ss_compute_model m);
const char* ss_precision_name(ss_precision p);

/* Whether precision p keeps 16-bit activations (mixed precision, BF16, FP8: its other tensors BF16). */
int ss_precision_half(ss_precision p);

/* Kernel launches CUDA queues before a launch blocks the host: about 1,000 measured, not documented
 * by NVIDIA (calibration/host_costs.md, section 4). */
#define SS_LAUNCH_QUEUE 1024

#endif
