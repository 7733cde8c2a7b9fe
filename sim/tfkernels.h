/* tfkernels: the kernels of one transformer layer on one GPU, as today's stacks run them
 * (Megatron-Core with Transformer Engine, PyTorch with SDPA): the matrix multiplications at their
 * per-GPU shapes after tensor, sequence and context splitting, the attention core as one fused
 * kernel (flash attention: causal masking skips the upper half of the scores, no S x S tensor in
 * memory) or as eager attention (the scores written, softmaxed and read back), and the
 * memory-bound kernels between them (norms, rotary embedding, the FFN's activation, residual adds).
 * Only the work (FLOPs, bytes, shapes); what it costs on a GPU is the efficiency model's.
 *
 * Conventions (docs/model.md, "Transformer kernels"): a GEMM of M x K by K x N does 2 M N K FLOPs; a
 * layer's backward is, per GEMM, the input's gradient (M x N by N x K) and the weight's (K x M by
 * M x N), each as many FLOPs as the forward; the attention core's forward does 4 b a_t d q kv FLOPs
 * (its two products, QK^T and PV), halved where causal masking lets a flash kernel skip the blocks
 * above the diagonal, and its backward 2.5 times that (flash attention recomputes QK^T: five
 * products) or 2 times (eager: four), FlashAttention's benchmark convention. */
#ifndef SS_TFKERNELS_H
#define SS_TFKERNELS_H

#include "transformer.h"

/* How the attention core runs: flash (fused: FlashAttention-2/3/4, cuDNN's fused attention) or
 * eager (the S x S scores materialised). */
typedef enum ss_attention { SS_ATTENTION_FLASH, SS_ATTENTION_EAGER, SS_ATTENTION_COUNT } ss_attention;

extern const char* const ss_attention_names[];

/* One GPU's share of a layer: b sequences of seq tokens, t tensor-parallel ranks (sp: with sequence
 * parallelism), cp context-parallel ranks, elem bytes per activation element; fp8: the matrix
 * products in FP8 (Transformer Engine's recipe: their inputs cast to FP8 with a transposed copy, the
 * casts fused into the norms and the activation where TE fuses them, the backward's output gradients
 * cast and transposed; the inputs kept for backward in FP8; the attention core, norms and the rest
 * at elem). */
typedef struct ss_tf_split {
  int b;
  int seq;
  int t;
  int sp;
  int cp;
  double elem;
  ss_attention attention;
  int causal;
  int fp8;
  /* A mixture-of-experts layer (moe 1; the architecture's moe): the experts over ep ranks, each split
   * over etp (0: 1), and load, the tokens of the busiest GPU's experts over the mean (0: 1; the
   * group waits for it). */
  int moe;
  int ep;
  int etp;
  double load;
  /* A layer of local attention (windowed 1; the architecture's window): with flash attention each
   * query's keys are its window's (sliding) or its chunk's (chunked) only. */
  int windowed;
} ss_tf_split;

typedef enum ss_tfk_kind { SS_TFK_GEMM, SS_TFK_ATTENTION, SS_TFK_MEMORY } ss_tfk_kind;

/* One kernel of a pass. GEMM: m x k by k x n. Attention: b sequences of heads query heads of head
 * dimension head_dim, q queries each against kv keys. Memory: bytes read and written. */
typedef struct ss_tf_kernel {
  const char* name;
  ss_tfk_kind kind;
  double m, n, k;
  int heads, head_dim;
  double q, kv;
  int b, causal, bwd;
  ss_attention attention;
  double flops;
  double bytes;
} ss_tf_kernel;

/* A GPU as the kernels' time sees it: its generation and the GEMMs' precision class (kernelfit.h's
 * names), its peak at that precision, memory bandwidth and SMs, the fraction of the bandwidth the
 * memory-bound kernels reach, and its 16-bit peak (the attention core runs at 16 bits). */
typedef struct ss_tf_device {
  const char* generation;
  const char* precision;
  double flops;
  double bytes_per_s;
  int sms;
  double memory_fraction;
  double flops16;               /* the 16-bit peak, the attention core's (= flops unless precision is "fp8") */
  const char* attention_kernel; /* the fused attention kernel (kernelfit.h's short names); NULL: the
                                 * generation's default */
} ss_tf_device;

/* The most kernels a pass has (ss_tf_kernels' out must hold as many). */
#define SS_TF_MAX_KERNELS 64

/* Whether the split fits the architecture (ss_transformer_check's rules, then cp: 2 cp divides
 * the sequence, the chunks Megatron-Core's load balancing of causal attention takes): 0, or -1
 * with why. */
int ss_tf_split_check(const ss_transformer* tf, const ss_tf_split* sp, char* why, size_t size);

/* The kernels of one layer's forward (bwd 0) or backward (bwd 1) on one GPU, into out[]: their
 * count. The recomputed forward of activation recomputation is not among them. With latent attention
 * (tf->mla) the queries' and the keys' and values' down-projections (whole on every tensor rank), their
 * norms and up-projections; in a mixture-of-experts layer (sp->moe) the FFN is the router (its GEMM,
 * softmax and top-k), the tokens' permutation before the dispatch and after the combine, the routed
 * experts' grouped GEMMs on the tokens the GPU receives (b seq k / (cp t) of its tensor rank's
 * tokens x etp, times sp->load), and the shared experts as a dense FFN. */
int ss_tf_kernels(const ss_transformer* tf, const ss_tf_split* sp, int bwd, ss_tf_kernel* out);

/* The kernels of the output layer's forward (bwd 0) or backward (bwd 1) on one GPU into out[]: the
 * final norm, the logits' GEMM over the vocabulary's 1/t, the vocabulary-parallel cross-entropy (the
 * logits read, the FP32 softmax written and kept; backward it read and the logits' gradient written:
 * ESTIMATE, Megatron's fused kernel), and backward the logits' two gradients. Their count. */
int ss_tf_head_kernels(const ss_transformer* tf, const ss_tf_split* sp, int bwd, ss_tf_kernel* out);

/* The input embedding's kernel on one GPU into out[0]: a gather of the tokens' rows (read and
 * written), backward their gradients added into the FP32 gradient of the table (ESTIMATE: read, and
 * read and written in FP32). 1. */
int ss_tf_embed_kernels(const ss_transformer* tf, const ss_tf_split* sp, int bwd, ss_tf_kernel* out);

/* The time of kernel k on d (kernelfit.h's efficiencies): a GEMM at its shape's share of the peak;
 * the attention core at d's 16-bit peak and fits: flash attention at its kernel's share at the
 * effective sequence sqrt(q kv), or the time of its
 * bytes if longer; eager attention's two products as GEMMs (the heads and sequences stacked) plus its
 * passes over the scores at the memory-bound rate; a memory-bound kernel's bytes at d's bandwidth
 * times its fraction. -1 where d's generation has no fit for it (flash attention before Ampere). */
double ss_tf_kernel_time(const ss_tf_kernel* k, const ss_tf_device* d);

/* The attention core's FLOPs on one GPU for one layer (bwd 0: forward, 1: backward). */
double ss_tf_attention_flops(const ss_transformer* tf, const ss_tf_split* sp, int bwd);

/* The activation bytes one layer keeps on one GPU for its backward: Korthikanti et al.'s terms
 * (transformer.h) with the attention's: eager keeps the scores' 5 a s / h (softmax output 2 bytes,
 * dropout mask 1, dropout output 2 per element, at 16-bit), flash only its softmax statistics
 * (4 bytes per query and head, fp32), and context parallelism divides the tokens by cp. With fp8 the
 * four matrix products' inputs are kept in FP8 (one byte). */
double ss_tf_activation_bytes(const ss_transformer* tf, const ss_tf_split* sp, ss_recompute r);

#endif
