/* tfmodel: a transformer workload as the kernel model runs it (tfmodel.h). */
#include "tfmodel.h"

#include "kernelfit.h"
#include "proto.h"
#include "roofline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char* ss_tf_generation(const char* gpu_model)
{
  int arch = ss_proto_arch(gpu_model);
  return arch == 70                 ? "volta"
         : arch == 80 || arch == 86 ? "ampere"
         : arch == 90               ? "hopper"
         : arch == 100              ? "blackwell"
                                    : NULL;
}

const char* ss_tf_precision_class(ss_precision p)
{
  return p == SS_PRECISION_AMP || p == SS_PRECISION_BF16 ? "fp16" : p == SS_PRECISION_FP8 ? "fp8" : NULL;
}

int ss_tf_device_of(const ss_gpu* g, ss_precision p, double peak_flops, ss_tf_device* d, char* why, size_t size)
{
  const char* gen = ss_tf_generation(g->model);
  const char* cls = ss_tf_precision_class(p);
  if (!cls)
    return snprintf(why, size, "the kernel model times 16-bit and FP8 runs (--precision amp, bf16 or fp8), not %s",
                    ss_precision_name(p)),
           -1;
  if (!gen)
    return snprintf(why, size,
                    "GPU '%s' is of no generation the kernel model has fits for (Volta, Ampere, Hopper, Blackwell)",
                    g->model),
           -1;
  if (!ss_gemm_fit_of(gen, cls))
    return snprintf(why, size, "the kernel model has no %s GEMM fit for GPU '%s' (%s)", ss_precision_name(p), g->model,
                    gen),
           -1;
  if (!(peak_flops > 0) || !(g->memory_bytes_per_s > 0) || g->sm_count < 1)
    return snprintf(why, size, "GPU '%s' gives no %s rate, memory_gbytes_per_s or sm_count", g->model,
                    ss_precision_name(p)),
           -1;
  double flops16 = p == SS_PRECISION_FP8 ? g->bf16_flops : peak_flops;
  if (!(flops16 > 0))
    return snprintf(why, size, "GPU '%s' gives no bf16 rate (bf16_tflops) for the attention core of an FP8 run",
                    g->model),
           -1;
  *d = (ss_tf_device){gen, cls, peak_flops, g->memory_bytes_per_s, g->sm_count, ss_fit_default.memory, flops16, NULL};
  return 0;
}

int ss_tf_has_flash(const ss_tf_device* d, int head_dim)
{
  /* The attention core stays 16-bit at FP8 (Transformer Engine's and torchao's recipes): the
   * 16-bit fits decide. */
  return ss_attention_fit_of(d->generation, "fp16", head_dim, 1, d->attention_kernel) != NULL;
}

/* The time of a pass's n kernels on d, each at least the floor; -1 when one has no fit. The
 * attention core's own time into *attn when not NULL. */
static double pass_time(const ss_tf_kernel* k, int n, const ss_tf_device* d, double* attn)
{
  double total = 0;
  for (int i = 0; i < n; i++) {
    double t = ss_tf_kernel_time(&k[i], d);
    if (t < 0)
      return -1;
    t = fmax(t, SS_KERNEL_FLOOR_S);
    if (attn && k[i].kind == SS_TFK_ATTENTION)
      *attn = t;
    total += t;
  }
  return total;
}

/* Layer l's share of its transformer layer's entries (by the workload's FLOPs when it gives them). */
static double entry_share(const ss_workload* w, int l, int bwd)
{
  int lpb = w->layers_per_block, first = 1 + (l - 1) / lpb * lpb;
  if (lpb == 1)
    return 1;
  double own = 0, all = 0;
  for (int e = first; e < first + lpb; e++) {
    double f = bwd ? w->layers[e].bwd_flops : w->layers[e].fwd_flops;
    all += f;
    own += e == l ? f : 0;
  }
  return w->has_work && all > 0 ? own / all : 1.0 / lpb;
}

int ss_tf_layer_times(const ss_workload* w, const ss_transformer* tf, const ss_tf_split* sp, const ss_tf_device* d,
                      double* fwd_s, double* bwd_s, double attn_share[2])
{
  ss_tf_kernel k[SS_TF_MAX_KERNELS];
  /* The kinds of transformer layer, 2 moe + windowed: dense or a mixture of experts (its FFN), full or
   * local attention; each one's forward and backward, and their attention cores'. */
  double pass[4][2] = {{0}}, core[4][2] = {{0}};
  int count[4] = {0};
  for (int l = 0; l < tf->layers; l++)
    count[2 * ss_transformer_is_moe(tf, l) + ss_transformer_is_windowed(tf, l)]++;
  count[0] += count[0] == 0 && count[1] + count[2] + count[3] == 0; /* no layers: the dense kind still timed */
  for (int v = 0; v < 4; v++) {
    ss_tf_split kind = *sp;
    kind.moe = v >= 2;
    kind.windowed = v % 2;
    for (int bwd = 0; count[v] > 0 && bwd < 2; bwd++)
      if ((pass[v][bwd] = pass_time(k, ss_tf_kernels(tf, &kind, bwd, k), d, &core[v][bwd])) < 0)
        return -1;
  }
  double embed_f = pass_time(k, ss_tf_embed_kernels(tf, sp, 0, k), d, NULL);
  double embed_b = pass_time(k, ss_tf_embed_kernels(tf, sp, 1, k), d, NULL);
  double head_f = pass_time(k, ss_tf_head_kernels(tf, sp, 0, k), d, NULL);
  double head_b = pass_time(k, ss_tf_head_kernels(tf, sp, 1, k), d, NULL);
  if (embed_f < 0 || embed_b < 0 || head_f < 0 || head_b < 0)
    return -1;
  int nl = w->nlayers, lpb = w->layers_per_block;
  fwd_s[0] = embed_f;
  bwd_s[0] = embed_b;
  for (int l = 1; l < nl - 1; l++) {
    int b = (l - 1) / lpb, v = 2 * ss_transformer_is_moe(tf, b) + ss_transformer_is_windowed(tf, b);
    fwd_s[l] = pass[v][0] * entry_share(w, l, 0);
    bwd_s[l] = pass[v][1] * entry_share(w, l, 1);
  }
  fwd_s[nl - 1] = head_f;
  bwd_s[nl - 1] = head_b;
  /* The attention core's share over all the transformer layers, of every kind. */
  for (int bwd = 0; bwd < 2; bwd++) {
    double all = 0, attn = 0;
    for (int v = 0; v < 4; v++) {
      all += count[v] * pass[v][bwd];
      attn += count[v] * core[v][bwd];
    }
    attn_share[bwd] = all > 0 ? attn / all : 0;
  }
  return 0;
}

/* The forward FLOPs of one sequence through a transformer layer as the workload counts them: its
 * matrix products and the attention core's 4 s^2 h (h: heads x head_dim; whole; half when a causal flash kernel skips the
 * masked blocks). */
static double attention_flops(const ss_transformer* tf, ss_attention a)
{
  return 4.0 * tf->seq * tf->seq * tf->heads * ss_transformer_attn_dim(tf) * (a == SS_ATTENTION_FLASH ? 0.5 : 1);
}

void ss_tf_workload(const ss_workload* w, const ss_transformer* tf, ss_attention a, int fp8, ss_recompute recompute,
                    ss_workload* out, ss_layer* layers)
{
  *out = *w;
  out->tf = *tf;
  out->layers = layers;
  memcpy(layers, w->layers, sizeof(ss_layer) * (size_t)w->nlayers);
  double r = (double)tf->seq / w->tf.seq;
  int nl = w->nlayers, lpb = w->layers_per_block;
  /* One sequence's kept activations per transformer layer, at FP32 and at 16-bit. */
  ss_tf_split one = {.b = 1, .seq = tf->seq, .t = 1, .cp = 1, .elem = 4, .attention = a, .causal = 1};
  /* Full recomputation is activation checkpointing's (the layers' ckpt_bytes); selective keeps
   * what the attention core's recomputation leaves. */
  ss_recompute kept = recompute == SS_RECOMPUTE_SELECTIVE ? recompute : SS_RECOMPUTE_NONE;
  double act = ss_tf_activation_bytes(tf, &one, kept);
  one.elem = 2;
  one.fp8 = fp8;
  double act_half = ss_tf_activation_bytes(tf, &one, kept);
  for (int l = 0; l < nl; l++) {
    ss_layer* y = &layers[l];
    int in_block = l > 0 && l < nl - 1;
    /* The matrix products of its transformer layer's forward as the workload counts them: the
     * layer's FLOPs less the whole attention core at its own sequence (the generated workloads'
     * count); a mixture of experts' layers have more than its dense ones. */
    double block = 0;
    for (int e = 1 + (l - 1) / lpb * lpb; in_block && e < 1 + ((l - 1) / lpb + 1) * lpb; e++)
      block += w->layers[e].fwd_flops;
    double matmuls = fmax(0, block - attention_flops(&w->tf, SS_ATTENTION_EAGER));
    double block_new = matmuls * r + attention_flops(tf, a);
    double share = in_block ? entry_share(w, l, 0) : 1;
    /* The work: linear in the tokens, but a transformer layer's FLOPs (its attention's grow as s^2). */
    double fr = in_block && y->fwd_flops > 0 ? block_new * share / y->fwd_flops : r;
    y->fwd_flops *= fr;
    y->bwd_flops *= fr;
    y->fwd_s *= fr;
    y->bwd_s *= fr;
    y->fwd_bytes *= r;
    y->bwd_bytes *= r;
    y->fwd_outputs *= r;
    y->bwd_outputs *= r;
    y->fwd_nchw_elements *= r;
    y->bwd_nchw_elements *= r;
    if (y->ckpt_bytes > 0)
      y->ckpt_bytes *= r;
    if (y->ckpt_bytes_half > 0)
      y->ckpt_bytes_half *= r;
    if (in_block) {
      y->act_bytes = act * share;
      y->act_bytes_half = act_half * share;
    } else {
      y->act_bytes *= r;
      if (y->act_bytes_half > 0)
        y->act_bytes_half *= r;
    }
  }
  /* A sample is a sequence: as many tokens in fewer, longer samples. */
  out->dataset.samples = fmax(1, floor(w->dataset.samples / r));
  out->dataset.bytes_per_sample *= r;
  out->dataset.decoded_bytes_per_sample *= r;
  out->dataset.prep_cpu_s_per_sample *= r;
}
