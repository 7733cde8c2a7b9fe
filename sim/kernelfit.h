/* kernelfit: the efficiency of a transformer's kernels by GPU generation, fitted on public
 * microbenchmarks by calibration/fit_kernels.py (its docstring gives the models; the data and their
 * sources are calibration/gemm_efficiency.csv, calibration/attention_kernels.csv and
 * calibration/kernel_sources.md). The fits (kernelfit.inc) are generated: not set by hand, and no
 * training run is read (issue 40). The time of a kernel on a GPU uses them (tfkernels.h's work). */
#ifndef SS_KERNELFIT_H
#define SS_KERNELFIT_H

/* GEMMs of a generation ("volta", "ampere", "hopper", "blackwell") and precision class ("fp16":
 * FP16 or BF16; "fp8"): achieved / peak = e_max x u x k / (k + k0), u the SMs' use by the best of
 * the generation's large tile (tile_m x tile_n outputs) and three smaller ones (halved in n, then
 * in both, then n halved again), the i-th smaller at small^i of its rate (ss_gemm_efficiency). */
typedef struct ss_gemm_fit {
  const char* generation;
  const char* precision;
  double e_max;
  double small;
  int k0;
  int tile_m, tile_n;
} ss_gemm_fit;

/* A fused attention kernel's forward at head dimension head_dim, causal or not: achieved / peak =
 * e_max x s / (s + s0) at sequence s (FLOPs counted as tfkernels.h counts them); its backward at
 * bwd_e_max x s / (s + s0). The kernel by its short name (--attention-kernel): "fa2", "fa3", "fa4"
 * (FlashAttention-2, -3, -4), "cudnn" (cuDNN's fused attention: Transformer Engine's FusedAttention,
 * SDPA's cuDNN backend), "triton" (Triton's FlashAttention-2, as the Triton tutorial's and
 * llm-foundry's). */
typedef struct ss_attention_fit {
  const char* generation;
  const char* kernel;
  const char* precision;
  int head_dim;
  int causal;
  double e_max;
  int s0;
  double bwd_e_max;
} ss_attention_fit;

/* The fits, each list ended by a row of NULL generation. */
extern const ss_gemm_fit ss_gemm_fits[];
extern const ss_attention_fit ss_attention_fits[];

/* Pairs of a generation and its default attention kernel (the fastest its sources give), then NULL. */
extern const char* const ss_attention_defaults[];

/* The achieved fraction of the peak of an m x k by k x n GEMM on sms SMs under fit f. */
double ss_gemm_efficiency(const ss_gemm_fit* f, double m, double n, double k, int sms);

/* The achieved fraction of the peak of a fused attention kernel under fit f at effective sequence s
 * (the queries' and keys' geometric mean: s without context parallelism), forward or backward. */
double ss_attention_efficiency(const ss_attention_fit* f, double s, int bwd);

/* The GEMM fit of a generation and precision class, or NULL. */
const ss_gemm_fit* ss_gemm_fit_of(const char* generation, const char* precision);

/* The attention fit of kernel (NULL: the generation's default) on a generation, precision class and
 * causal mask at the head dimension nearest head_dim (the fits have 64, 128 and 256), or NULL when the
 * generation has none of that kernel. */
const ss_attention_fit* ss_attention_fit_of(const char* generation, const char* precision, int head_dim, int causal,
                                            const char* kernel);

/* The default attention kernel of a generation, or NULL. */
const char* ss_attention_default(const char* generation);

#endif
