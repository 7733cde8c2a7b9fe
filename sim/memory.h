/* memory: what one GPU of a job holds while it trains (parameters, gradients, optimizer state,
 * kept activations, communication buffers, the framework's reserve) and whether it fits. */
#ifndef SS_MEMORY_H
#define SS_MEMORY_H

#include "bucket.h"
#include "err.h"
#include "option.h"
#include "sched.h"
#include "workload.h"

#include <stddef.h>

/* One GPU's memory in bytes, part by part (docs/model.md, "GPU memory"). */
typedef struct ss_memory {
  double parameters;  /* FP32 weights: params x 4; at amp/bf16 also autocast's 16-bit copies (SS_MEMORY_CAST_BYTES) */
  double gradients;   /* params x grad_bytes_per_param */
  double optimizer;   /* params x ss_memory_optimizer_bytes_per_param */
  double activations; /* sum of the layers' act_bytes (at amp/bf16 act_bytes_half) x batch; with activation
                       * checkpointing, ckpt_bytes for the checkpointed layers and the largest block once */
  double buffers;     /* the data-parallel framework's communication buffers */
  double reserve;     /* the CUDA context and the libraries' workspaces (SS_MEMORY_RESERVE_BYTES) */
  double total;       /* the parts' sum */
  double capacity;    /* the GPU's memory (the instance file's memory_gib) */
} ss_memory;

/* Bytes of optimizer state per parameter, FP32 as PyTorch keeps it: SGD none, SGD with momentum
 * its momentum_buffer (4), Adam and AdamW exp_avg and exp_avg_sq (8). */
double ss_memory_optimizer_bytes_per_param(ss_optimizer o);

/* Activation bytes at amp/bf16 of a layer whose workload gives no act_bytes_half: act_bytes x 0.5
 * (FP32 and TF32 keep FP32 tensors; torch.cuda.amp, apex O1 and bf16 autocast keep the outputs of
 * the ops they cast as 16-bit). An ESTIMATE where ops stay FP32 under autocast (LayerNorm, softmax:
 * a transformer's act_bytes_half says what it keeps). */
#define SS_MEMORY_ACT_HALF 0.5

/* Bytes per parameter of the 16-bit weight copies autocast makes for the convolutions and matrix
 * products (layers with FLOPs) at amp/bf16: it caches the casts of FP32 leaf weights while its region
 * is active (torch.autocast, cache_enabled=True by default, "the weight cache inside autocast";
 * aten/src/ATen/autocast_mode.cpp: "cache lower_precision_fp casts of fp32 model weights"), and
 * autograd keeps them for the backward pass. Norm and bias parameters in those layers are counted too
 * (a small overcount). */
#define SS_MEMORY_CAST_BYTES 2.0

/* The half argument of ss_memory_compute for an FP8 run: 16-bit activations and autocast's copies as
 * at bf16, and each matrix weight's FP8 copy with its transpose (SS_MEMORY_FP8_BYTES more a parameter:
 * Transformer Engine caches both for the micro-batches of a step, torchao its casts for backward). */
#define SS_MEMORY_FP8 2
#define SS_MEMORY_FP8_BYTES 2.0

/* The CUDA context of a PyTorch process and the cuBLAS/cuDNN workspaces, per GPU: ESTIMATE, 768 MiB.
 * A PyTorch process's first CUDA call takes 723 MiB on the device (nvidia-smi, a user's measurement:
 * discuss.pytorch.org/t/73021, "What is the reason for pytorch's GPU memory floor"; "~700+MB" depending
 * on the CUDA version and device, a PyTorch maintainer: discuss.pytorch.org/t/81330), plus cuBLAS's
 * workspaces (PyTorch's default CUBLAS_WORKSPACE_CONFIG :4096:8, 8 x 4 MiB = 32 MiB): 755 MiB, rounded
 * up to 0.75 GiB for cuDNN's convolution workspaces. CUDA 11.7's lazy loading makes the context
 * smaller, cuDNN's autotuner may take more: an estimate either way. */
#define SS_MEMORY_RESERVE_BYTES (768.0 * 1048576.0)

/* The memory of one GPU of workload w at batch batch: parameters, gradients and optimizer state
 * from the layers' params, activations from their act_bytes x batch; half (amp, bf16; SS_MEMORY_FP8 at
 * fp8, its weights' FP8 copies too): activations
 * from act_bytes_half (act_bytes x SS_MEMORY_ACT_HALF where absent) and the autocast weight copies
 * (SS_MEMORY_CAST_BYTES); ckpt (activation checkpointing): the checkpointed layers' ckpt_bytes
 * (ckpt_bytes_half) instead, plus the largest checkpointed block's activations, recomputed in its
 * backward; the buffers and capacity as given, the reserve SS_MEMORY_RESERVE_BYTES. */
void ss_memory_compute(const ss_workload* w, int batch, int half, int ckpt, double buffers_bytes, double capacity_bytes,
                       ss_memory* out);

/* What one GPU's memory depends on besides the workload's layers: the job's complete earlier phases
 * (its batch, its buckets, the sharded modes' units and their peak), borrowed. */
typedef struct ss_memory_in {
  const ss_workload* workload;
  const ss_options* o; /* the framework, the sharding mode, --fusion-mib, --wrap-params, --ignore-memory */
  int batch;
  int half; /* as ss_memory_compute */
  int ckpt;
  double capacity_bytes; /* of the GPU; 0: unknown */
  const char* gpu_model;
  int ngpus;
  int shard_group;
  const ss_bucket* buckets;
  int nbuckets;
  const ss_unit* units;
  int nunits;
  double shard_bytes_per_param;
  double gathered_peak; /* bytes */
} ss_memory_in;

/* The communication buffers of the framework, per GPU: PyTorch DDP's bucket buffers (the gradients
 * once more: gradient_as_bucket_view is off by default), apex's flat copies of its buckets (the
 * same), Horovod's fusion buffer (--fusion-mib), DeepSpeed's flat bucket; none on one GPU (no
 * collectives) or with parameter servers (the gradients are pushed from where they are). */
double ss_memory_buffers_bytes(const ss_memory_in* in);

/* The memory of one GPU of in into *out. Returns 1, or 0 when it is unknown: the instance file
 * gives no memory_gib or the workload no per-layer work (act_bytes). */
int ss_memory_of(const ss_memory_in* in, ss_memory* out);

/* The parts in GiB with one decimal, "parameters 1.3, gradients 1.3, ..., reserve 0.8", into buf. */
void ss_memory_parts_text(const ss_memory* m, char* buf, size_t size);

/* Refuse memory m of in when it exceeds the GPU's, unless --ignore-memory: one line naming the
 * workload, the total, the capacity, the GPU and the parts (or the unit that cannot be gathered at
 * all). Returns SS_OK or SS_EINPUT. */
int ss_memory_check(const ss_memory_in* in, const ss_memory* m, ss_err* err);

#endif
