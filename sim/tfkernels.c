/* tfkernels: the kernels of one transformer layer on one GPU (tfkernels.h). */
#include "tfkernels.h"

#include "kernelfit.h"

#include <math.h>
#include <stdio.h>

const char* const ss_attention_names[] = {"flash", "eager", NULL};

/* Eager attention's passes over the scores per element, forward: written by QK^T (1), scaled (2),
 * masked (2), softmaxed (2), read by PV (1) (calibration/gen_models.py's count for Llama's eager
 * attention: no dropout); backward about as many (dP written, the softmax's gradient reading P and
 * dP and writing dS, dS read by both products). */
#define EAGER_SCORE_PASSES 8.0

int ss_tf_split_check(const ss_transformer* tf, const ss_tf_split* sp, char* why, size_t size)
{
  if (ss_transformer_check(tf, sp->t, 1, why, size))
    return -1;
  if (sp->b < 1 || sp->seq < 1 || sp->cp < 1)
    return snprintf(why, size, "the micro-batch, the sequence and --cp must be 1 or more (got %d, %d and %d)", sp->b,
                    sp->seq, sp->cp),
           -1;
  if (sp->cp > 1 && sp->seq % (2 * sp->cp))
    return snprintf(why, size,
                    "--cp %d does not divide the sequence of %d tokens into %d chunks (two per rank, for the causal "
                    "mask's balance)",
                    sp->cp, sp->seq, 2 * sp->cp),
           -1;
  if (sp->cp > 1 && tf->window > 0)
    return snprintf(why, size,
                    "--cp %d splits the sequence for ring attention, and this model's layers attend locally (a "
                    "window of %d tokens): not simulated together",
                    sp->cp, tf->window),
           -1;
  if (sp->cp > 1 && sp->attention == SS_ATTENTION_EAGER)
    return snprintf(why, size,
                    "--cp %d runs flash attention (ring attention over blocks of keys and values): not with "
                    "--attention eager",
                    sp->cp),
           -1;
  return 0;
}

/* The keys a query attends to on average, as the attention core computes them (its q x keys x half
 * pairs): the whole sequence; with flash attention on a layer of local attention the window's (sliding:
 * the last w of s tokens, s w - w^2 / 2 pairs a sequence) or the chunk's (chunked: s w / 2 pairs), as
 * many pairs as those at half the causal triangle. Eager attention computes every score and masks. */
static double attention_keys(const ss_transformer* tf, const ss_tf_split* sp)
{
  double s = sp->seq, w = tf->window;
  if (!sp->windowed || w <= 0 || w >= s || sp->attention != SS_ATTENTION_FLASH)
    return s;
  double pairs = tf->window_chunked ? s * w / 2 : s * w - w * w / 2;
  return 2 * pairs / s;
}

double ss_tf_attention_flops(const ss_transformer* tf, const ss_tf_split* sp, int bwd)
{
  double heads = (double)tf->heads / sp->t, d = ss_transformer_attn_dim(tf);
  double q = (double)sp->seq / sp->cp, kv = attention_keys(tf, sp);
  /* Flash skips the masked blocks; with context parallelism each rank's two chunks (one early, one
   * late) balance the triangle, so every rank does half its q x kv. Eager computes them all. */
  double half = sp->causal && sp->attention == SS_ATTENTION_FLASH ? 0.5 : 1;
  double fwd = 4.0 * sp->b * heads * d * q * kv * half;
  return bwd ? fwd * (sp->attention == SS_ATTENTION_FLASH ? 2.5 : 2.0) : fwd;
}

static void gemm(ss_tf_kernel* k, const char* name, double m, double n, double kk)
{
  *k = (ss_tf_kernel){.name = name, .kind = SS_TFK_GEMM, .m = m, .n = n, .k = kk, .flops = 2 * m * n * kk};
}

static void memory(ss_tf_kernel* k, const char* name, double bytes)
{
  *k = (ss_tf_kernel){.name = name, .kind = SS_TFK_MEMORY, .bytes = bytes};
}

/* The GEMMs of a layer: each one's forward (m x k by k x n, `groups` of them in one grouped kernel,
 * as many FLOPs each), the names of its two backward GEMMs and of its two FP8 casts, and the bytes of the FP8 casts of its
 * forward input that no norm fuses (fwd_cast) and of its backward output gradient (bwd_cast). */
typedef struct tf_gemm {
  const char *name, *dgrad, *wgrad, *cast, *grad_cast;
  double m, n, k, groups, fwd_cast, bwd_cast;
} tf_gemm;

/* A layer's kernels as they are emitted: the forward's in order, the backward's memory-bound ones in
 * that order, then each GEMM's cast and two gradients. */
typedef struct tf_pass {
  ss_tf_kernel* out;
  int n, bwd, fp8;
  tf_gemm g[16];
  int ng;
} tf_pass;

/* A memory-bound kernel of the forward (its bytes) or of the backward (twice: the gradient and the
 * saved input read, the input's gradient written), with fused FP8 casts in the forward. */
static void pass_memory(tf_pass* p, const char* name, const char* bname, double bytes, double fwd_cast)
{
  memory(&p->out[p->n++], p->bwd ? bname : name, p->bwd ? 2 * bytes : bytes + (p->fp8 ? fwd_cast : 0));
}

/* A GEMM: its forward now, its backward GEMMs at the end (pass_end). */
static void pass_gemm(tf_pass* p, tf_gemm g)
{
  if (!p->fp8)
    g.fwd_cast = g.bwd_cast = 0;
  p->g[p->ng++] = g;
  if (p->bwd)
    return;
  if (g.fwd_cast > 0)
    memory(&p->out[p->n++], g.cast, g.fwd_cast);
  gemm(&p->out[p->n], g.name, g.m, g.n, g.k);
  p->out[p->n++].flops *= g.groups;
}

static int pass_end(tf_pass* p)
{
  for (int i = 0; p->bwd && i < p->ng; i++) {
    const tf_gemm* g = &p->g[i];
    if (p->fp8)
      memory(&p->out[p->n++], g->grad_cast, g->bwd_cast);
    /* The input's gradient (tokens x n by n x k) and the weight's (k x tokens by tokens x n). */
    gemm(&p->out[p->n], g->dgrad, g->m, g->k, g->n);
    p->out[p->n++].flops *= g->groups;
    gemm(&p->out[p->n], g->wgrad, g->k, g->n, g->m);
    p->out[p->n++].flops *= g->groups;
  }
  return p->n;
}

/* Latent attention's projections before the attention core (ss_mla): the down-projections whole on
 * every tensor rank, their norms, the up-projections split. */
static void mla_projections(tf_pass* p, const ss_transformer* tf, const ss_tf_split* sp, double tokens)
{
  const ss_mla* m = &tf->mla;
  double h = tf->hidden, d = ss_transformer_head_dim(tf), a = tf->heads / (double)sp->t, e = sp->elem;
  double in = (e + 2) * tokens; /* a cast input with its transpose, its gradient cast and transposed */
  if (m->q_lora > 0) {
    pass_gemm(p, (tf_gemm){"q down", "q down dgrad", "q down wgrad", "q down cast", "q down grad cast", tokens,
                           m->q_lora, h, 1, 0, in * m->q_lora});
    pass_memory(p, "q norm", "q norm backward", 2 * tokens * m->q_lora * e, 2 * tokens * m->q_lora);
    pass_gemm(p, (tf_gemm){"q up", "q up dgrad", "q up wgrad", "q up cast", "q up grad cast", tokens, a * d, m->q_lora,
                           1, 0, in * a * d});
  } else {
    pass_gemm(p, (tf_gemm){"q", "q dgrad", "q wgrad", "q cast", "q grad cast", tokens, a * d, h, 1, 0, in * a * d});
  }
  double kv_down = m->kv_lora + m->rope_dim, kv_up = a * (d - m->rope_dim + m->v_dim);
  pass_gemm(p, (tf_gemm){"kv down", "kv down dgrad", "kv down wgrad", "kv down cast", "kv down grad cast", tokens,
                         kv_down, h, 1, 0, in * kv_down});
  pass_memory(p, "kv norm", "kv norm backward", 2 * tokens * m->kv_lora * e, 2 * tokens * m->kv_lora);
  pass_gemm(p, (tf_gemm){"kv up", "kv up dgrad", "kv up wgrad", "kv up cast", "kv up grad cast", tokens, kv_up,
                         m->kv_lora, 1, 0, in * kv_up});
}

/* A mixture of experts' FFN (ss_moe) on the tokens of this GPU (tokens: the layer's rows, norm_tokens
 * its sequence-parallel share). */
static void moe_ffn(tf_pass* p, const ss_transformer* tf, const ss_tf_split* sp, double tokens, double norm_tokens)
{
  const ss_moe* m = &tf->moe;
  double h = tf->hidden, e = sp->elem, gates = tf->gated_ffn ? 2 : 1;
  int ep = sp->ep > 0 ? sp->ep : 1, etp = sp->etp > 0 ? sp->etp : 1;
  double load = sp->load > 0 ? sp->load : 1;
  /* The router on the sequence-parallel share: its GEMM (FP32 in Megatron-Core: ESTIMATE, at the GEMM's
   * 16-bit rate), its softmax and top-k over the experts' scores (written, read, and the top-k's
   * probabilities and indices: about 3 passes of 4 bytes). */
  double routed = norm_tokens * m->top_k; /* the copies of tokens this GPU sends */
  pass_gemm(p, (tf_gemm){"router", "router dgrad", "router wgrad", "router cast", "router grad cast", norm_tokens,
                         m->experts, h, 1, 0, 0});
  pass_memory(p, "router top-k", "router top-k backward", 3 * 4 * norm_tokens * m->experts, 0);
  /* The permutation gathers each token's copies in its experts' order (read, written), and after the
   * combine the inverse, weighted by the router's probabilities and summed. */
  pass_memory(p, "permute", "permute backward", 2 * routed * h * e, 0);
  /* The routed experts: the tokens this GPU receives for its experts / ep (the mean: what it sends,
   * gathered over the etp ranks of each expert), the busiest GPU's `load` times that, in one grouped
   * GEMM over its experts. */
  double local = (double)m->experts / ep, rows = routed * etp * load, f = m->expert_ffn / (double)etp;
  double in = (e + 2) * rows;
  pass_gemm(p, (tf_gemm){"experts fc1", "experts fc1 dgrad", "experts fc1 wgrad", "experts fc1 cast",
                         "experts fc1 grad cast", rows / local, gates * f, h, local, 2 * rows * h, in * gates * f});
  pass_memory(p, "experts activation", "experts activation backward", (gates + 1) * rows * f * e, 2 * rows * f);
  pass_gemm(p, (tf_gemm){"experts fc2", "experts fc2 dgrad", "experts fc2 wgrad", "experts fc2 cast",
                         "experts fc2 grad cast", rows / local, h, f, local, 0, in * h});
  pass_memory(p, "unpermute", "unpermute backward", 2 * routed * h * e + norm_tokens * h * e, 0);
  if (m->shared_ffn > 0) {
    double fs = m->shared_ffn / (double)sp->t, shared_in = (e + 2) * tokens;
    pass_gemm(p, (tf_gemm){"shared fc1", "shared fc1 dgrad", "shared fc1 wgrad", "shared fc1 cast",
                           "shared fc1 grad cast", tokens, gates * fs, h, 1, 2 * tokens * h, shared_in * gates * fs});
    pass_memory(p, "shared activation", "shared activation backward", (gates + 1) * tokens * fs * e, 2 * tokens * fs);
    pass_gemm(p, (tf_gemm){"shared fc2", "shared fc2 dgrad", "shared fc2 wgrad", "shared fc2 cast",
                           "shared fc2 grad cast", tokens, h, fs, 1, 0, shared_in * h});
  }
}

int ss_tf_kernels(const ss_transformer* tf, const ss_tf_split* sp, int bwd, ss_tf_kernel* out)
{
  double h = tf->hidden, d = ss_transformer_head_dim(tf), f = tf->ffn, t = sp->t, e = sp->elem;
  double q_h = tf->heads * d, kv_h = tf->kv_heads * d; /* the queries' and the keys' widths */
  double tokens = (double)sp->b * sp->seq / sp->cp;    /* the GEMMs' rows on this GPU */
  double norm_tokens = sp->sp ? tokens / t : tokens;   /* the norms' and residuals' (split by sequence parallelism) */
  double qkv = (q_h + 2 * kv_h) / t, up = (tf->gated_ffn ? 2 : 1) * f / t;
  int mla = tf->mla.kv_lora > 0, moe = sp->moe && tf->moe.experts > 0;
  double v_h = mla ? tf->heads * (double)tf->mla.v_dim : q_h; /* the attention's output width */
  /* The memory-bound kernels' bytes of the forward (read and written; the backward reads the
   * gradient and the saved input and writes the input's gradient: twice). */
  double norm = 2 * norm_tokens * h * e, residual = 3 * norm_tokens * h * e;
  double act = (tf->gated_ffn ? 3 : 2) * tokens * f / t * e;
  /* FP8 (Transformer Engine): forward, each GEMM's input cast with a transposed copy for the weight's
   * gradient (2 bytes an element written), fused into norm1, norm2 and the activation; the
   * projection's input (the attention's output) cast by a kernel of its own (read, both written);
   * backward, each GEMM's output gradient cast and transposed the same way. */
  tf_pass p = {.out = out, .bwd = bwd, .fp8 = sp->fp8};
  pass_memory(&p, "norm1", "norm1 backward", norm, 2 * tokens * h);
  if (mla)
    mla_projections(&p, tf, sp, tokens);
  else
    pass_gemm(&p, (tf_gemm){"qkv", "qkv dgrad", "qkv wgrad", "qkv cast", "qkv grad cast", tokens, qkv, h, 1, 0,
                            (e + 2) * tokens * qkv});
  ss_tf_kernel* a = &out[p.n++];
  double heads = (double)tf->heads / t, kv_heads = mla ? heads : (double)tf->kv_heads / t;
  double q = (double)sp->seq / sp->cp, kv = attention_keys(tf, sp), ad = ss_transformer_attn_dim(tf);
  /* Q, K, V read and the output written (backward: also dO read, dQ, dK, dV written). */
  double io = e * sp->b * (2 * q * heads * ad + 2 * kv * kv_heads * ad) * (bwd ? 2 : 1);
  double scores = sp->attention == SS_ATTENTION_EAGER ? EAGER_SCORE_PASSES * e * sp->b * heads * q * kv : 0;
  *a = (ss_tf_kernel){.name = bwd ? "attention backward" : "attention",
                      .kind = SS_TFK_ATTENTION,
                      .b = sp->b,
                      .causal = sp->causal,
                      .bwd = bwd,
                      .attention = sp->attention,
                      .heads = tf->heads / sp->t,
                      .head_dim = (int)ad,
                      .q = q,
                      .kv = kv,
                      .flops = ss_tf_attention_flops(tf, sp, bwd),
                      .bytes = io + scores};
  pass_gemm(&p, (tf_gemm){"proj", "proj dgrad", "proj wgrad", "proj cast", "proj grad cast", tokens, h, v_h / t, 1,
                          (e + 2) * tokens * v_h / t, (e + 2) * tokens * h});
  pass_memory(&p, "residual1", "residual1 backward", residual, 0);
  pass_memory(&p, "norm2", "norm2 backward", norm, moe ? 0 : 2 * tokens * h);
  if (moe) {
    moe_ffn(&p, tf, sp, tokens, norm_tokens);
  } else {
    pass_gemm(&p, (tf_gemm){"fc1", "fc1 dgrad", "fc1 wgrad", "fc1 cast", "fc1 grad cast", tokens, up, h, 1, 0,
                            (e + 2) * tokens * up});
    pass_memory(&p, "activation", "activation backward", act, 2 * tokens * f / t);
    pass_gemm(&p, (tf_gemm){"fc2", "fc2 dgrad", "fc2 wgrad", "fc2 cast", "fc2 grad cast", tokens, h, f / t, 1, 0,
                            (e + 2) * tokens * h});
  }
  pass_memory(&p, "residual2", "residual2 backward", residual, 0);
  return pass_end(&p);
}

int ss_tf_head_kernels(const ss_transformer* tf, const ss_tf_split* sp, int bwd, ss_tf_kernel* k)
{
  double tokens = (double)sp->b * sp->seq / sp->cp, h = tf->hidden, v = (double)tf->vocab / sp->t, e = sp->elem;
  double norm = 2 * (sp->sp ? tokens / sp->t : tokens) * h * e;
  int n = 0;
  if (!bwd) {
    memory(&k[n++], "final norm", norm);
    gemm(&k[n++], "logits", tokens, v, h);
    memory(&k[n++], "cross-entropy", tokens * v * (e + 4));
    return n;
  }
  memory(&k[n++], "cross-entropy backward", tokens * v * (4 + e));
  gemm(&k[n++], "logits dgrad", tokens, h, v);
  gemm(&k[n++], "logits wgrad", h, v, tokens);
  memory(&k[n++], "final norm backward", 2 * norm);
  return n;
}

int ss_tf_embed_kernels(const ss_transformer* tf, const ss_tf_split* sp, int bwd, ss_tf_kernel* k)
{
  double tokens = (double)sp->b * sp->seq / sp->cp, h = tf->hidden, e = sp->elem;
  memory(&k[0], bwd ? "embedding backward" : "embedding", bwd ? tokens * h * (e + 8) : 2 * tokens * h * e);
  return 1;
}

double ss_tf_activation_bytes(const ss_transformer* tf, const ss_tf_split* sp, ss_recompute r)
{
  double h = tf->hidden, d = ss_transformer_head_dim(tf), f = tf->ffn, t = sp->t, e = sp->elem;
  double q_h = tf->heads * d, kv_h = tf->kv_heads * d;
  double s = (double)sp->seq / sp->cp, b = sp->b, a = tf->heads, sb = s * b;
  /* The layer's input, one byte per element of the two dropout masks: Korthikanti et al.'s kept
   * tensors, with grouped-query keys and values and a gated FFN's three inputs. */
  if (r == SS_RECOMPUTE_FULL)
    return e * sb * h / (sp->sp ? t : 1);
  /* Not split by tensor parallelism: the two norms' inputs, the QKV and FC1 inputs (FP8 with fp8), the
   * masks. */
  double in = sp->fp8 ? 1 : e;
  double whole = sb * h * (2 * e + 2 * in + 2);
  /* Split: Q, K, V, the projection's input, the FFN's intermediates (the last, FC2's input, FP8 with
   * fp8). A mixture of experts' layer keeps its shared experts' instead, and apart (below) its routed
   * experts'. */
  double gates = tf->gated_ffn ? 2 : 1, moe = 0;
  if (sp->moe && tf->moe.experts > 0) {
    /* The tokens this GPU's experts take (ss_tf_kernels' rows): the permuted inputs, their FC1
     * outputs and FC2 inputs (over etp), and the router's probabilities and indices (4 + 4 bytes per
     * token and expert: ESTIMATE, Megatron-Core keeps the scores for the backward). */
    const ss_moe* m = &tf->moe;
    double routed = (sp->sp ? sb / t : sb) * m->top_k, etp = sp->etp > 0 ? sp->etp : 1;
    double rows = routed * etp * (sp->load > 0 ? sp->load : 1), fe = m->expert_ffn / etp;
    moe = rows * (h * in + fe * (gates * e + in)) + (sp->sp ? sb / t : sb) * m->experts * 8;
    f = m->shared_ffn;
  }
  double split = e * sb * (q_h + 2 * kv_h) + in * sb * q_h + sb * f * (gates * e + in);
  /* The attention core's own: eager's scores (softmax output, dropout mask and output: 2 + 1 + 2
   * bytes per element at 16-bit, scaled by elem / 2), flash's fp32 softmax statistics. */
  double core = sp->attention == SS_ATTENTION_EAGER ? (2.5 * e) * b * a * s * sp->seq : 4 * sb * a;
  if (r == SS_RECOMPUTE_SELECTIVE)
    core = 0;
  return (sp->sp ? whole / t : whole) + split / t + core / t + moe;
}

double ss_tf_kernel_time(const ss_tf_kernel* k, const ss_tf_device* d)
{
  double memory = k->bytes / (d->bytes_per_s * d->memory_fraction);
  if (k->kind == SS_TFK_MEMORY)
    return memory;
  if (k->kind == SS_TFK_GEMM) {
    const ss_gemm_fit* g = ss_gemm_fit_of(d->generation, d->precision);
    return g ? k->flops / (d->flops * ss_gemm_efficiency(g, k->m, k->n, k->k, d->sms)) : -1;
  }
  /* The attention core runs at 16 bits, FP8 recipes or not. */
  double peak = d->flops16 > 0 ? d->flops16 : d->flops;
  if (k->attention == SS_ATTENTION_EAGER) {
    /* QK^T (q x kv, inner d) and PV (q x d, inner kv) of every head and sequence, stacked. */
    const ss_gemm_fit* g = ss_gemm_fit_of(d->generation, "fp16");
    if (!g)
      return -1;
    double rows = k->q * k->heads * k->b;
    double qk = 2 * rows * k->kv * k->head_dim, pv = 2 * rows * k->head_dim * k->kv;
    double t = qk / (peak * ss_gemm_efficiency(g, rows, k->kv, k->head_dim, d->sms)) +
               pv / (peak * ss_gemm_efficiency(g, rows, k->head_dim, k->kv, d->sms));
    return t * k->flops / (qk + pv) + memory;
  }
  const ss_attention_fit* f = ss_attention_fit_of(d->generation, "fp16", k->head_dim, k->causal, d->attention_kernel);
  if (!f)
    return -1;
  return fmax(k->flops / (peak * ss_attention_efficiency(f, sqrt(k->q * k->kv), k->bwd)), memory);
}
