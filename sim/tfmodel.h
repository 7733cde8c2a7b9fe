/* tfmodel: a transformer workload as the kernel model runs it (--compute-model kernels): each of its
 * layers timed from the kernels of tfkernels.h on a GPU of a generation kernelfit.h has fits for,
 * at the per-GPU shapes of a tensor- and sequence-parallel split, and the workload carried to another
 * sequence length and attention (--seq, --attention): its layers' work and kept activations derived
 * from the architecture (docs/model.md, "Transformer kernels"). */
#ifndef SS_TFMODEL_H
#define SS_TFMODEL_H

#include "compute.h"
#include "platform.h"
#include "tfkernels.h"
#include "workload.h"

#include <stddef.h>

/* The kernel fits' generation of a GPU model ("volta", "ampere", "hopper", "blackwell"), or NULL.
 * Ampere includes the GA10x GPUs (A10G: sm_86), at the A100's fitted fractions (ESTIMATE). */
const char* ss_tf_generation(const char* gpu_model);

/* The kernel fits' precision class of a precision ("fp16" for amp and bf16, "fp8"), or NULL: the
 * kernel model times 16-bit and FP8 runs only. */
const char* ss_tf_precision_class(ss_precision p);

/* d for GPU g at precision p, its peak flops the given one (the GPU's rate at p): 0, or -1 with why
 * (no generation, no fitted GEMM at that precision, no memory bandwidth or SM count). */
int ss_tf_device_of(const ss_gpu* g, ss_precision p, double peak_flops, ss_tf_device* d, char* why, size_t size);

/* Whether d has its fused attention kernel (d->attention_kernel, or the generation's default) at head
 * dimension head_dim (FlashAttention needs Ampere or later). */
int ss_tf_has_flash(const ss_tf_device* d, int head_dim);

/* The forward and backward time of each of w's layers on d, w's architecture tf split as sp (sp->b
 * sequences), into fwd_s[] and bwd_s[] (w->nlayers each): the input embedding (a gather), each
 * transformer layer (ss_tf_kernels, its time shared among its layers_per_block entries by their
 * FLOPs), the output layer (the final norm, the vocabulary's GEMM and the cross-entropy); each kernel
 * at least SS_KERNEL_FLOOR_S (roofline.h). attn_share: the attention core's share of a transformer layer's
 * forward (what selective recomputation runs again, what hides context parallelism's exchange) and
 * of its backward. 0, or -1 when a kernel has no fit on d. */
int ss_tf_layer_times(const ss_workload* w, const ss_transformer* tf, const ss_tf_split* sp, const ss_tf_device* d,
                      double* fwd_s, double* bwd_s, double attn_share[2]);

/* w at tf's sequence length and with attention a: out a copy of w whose layers are layers[]
 * (w->nlayers of them; names and tensors borrowed from w) with the transformer layers' FLOPs (their
 * matrix products scaled by the sequence, the attention core's 4 s^2 h a sequence, half where a
 * causal flash kernel skips it) and kept activations (ss_tf_activation_bytes, one sequence; at
 * 16-bit their inputs in FP8 with fp8; what selective recomputation leaves) derived,
 * the other per-sample figures (the embedding's, the output layer's, bytes, checkpoints, reference
 * times by FLOPs) scaled by the sequence, and the dataset's samples carrying the same tokens. */
void ss_tf_workload(const ss_workload* w, const ss_transformer* tf, ss_attention a, int fp8, ss_recompute recompute,
                    ss_workload* out, ss_layer* layers);

#endif
