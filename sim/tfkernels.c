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
  if (sp->cp > 1 && sp->attention == SS_ATTENTION_EAGER)
    return snprintf(why, size,
                    "--cp %d runs flash attention (ring attention over blocks of keys and values): not with "
                    "--attention eager",
                    sp->cp),
           -1;
  return 0;
}

double ss_tf_attention_flops(const ss_transformer* tf, const ss_tf_split* sp, int bwd)
{
  double heads = (double)tf->heads / sp->t, d = ss_transformer_head_dim(tf);
  double q = (double)sp->seq / sp->cp, kv = sp->seq;
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

int ss_tf_kernels(const ss_transformer* tf, const ss_tf_split* sp, int bwd, ss_tf_kernel* out)
{
  double h = tf->hidden, d = ss_transformer_head_dim(tf), f = tf->ffn, t = sp->t, e = sp->elem;
  double q_h = tf->heads * d, kv_h = tf->kv_heads * d; /* the queries' and the keys' widths */
  double tokens = (double)sp->b * sp->seq / sp->cp;    /* the GEMMs' rows on this GPU */
  double norm_tokens = sp->sp ? tokens / t : tokens;   /* the norms' and residuals' (split by sequence parallelism) */
  double qkv = (q_h + 2 * kv_h) / t, up = (tf->gated_ffn ? 2 : 1) * f / t;
  /* Each GEMM of the forward: name, output columns, inner size. */
  const struct {
    const char* name;
    const char* dgrad;
    const char* wgrad;
    double n, k;
  } mm[4] = {{"qkv", "qkv dgrad", "qkv wgrad", qkv, h},
             {"proj", "proj dgrad", "proj wgrad", h, q_h / t},
             {"fc1", "fc1 dgrad", "fc1 wgrad", up, h},
             {"fc2", "fc2 dgrad", "fc2 wgrad", h, f / t}};
  /* The memory-bound kernels' bytes of the forward (read and written; the backward reads the
   * gradient and the saved input and writes the input's gradient: twice). */
  double norm = 2 * norm_tokens * h * e, residual = 3 * norm_tokens * h * e;
  double act = (tf->gated_ffn ? 3 : 2) * tokens * f / t * e;
  double scale = bwd ? 2 : 1;
  /* FP8 (Transformer Engine): forward, each GEMM's input cast with a transposed copy for the weight's
   * gradient (2 bytes an element written), fused into norm1, norm2 and the activation; the
   * projection's input (the attention's output) cast by a kernel of its own (read, both written);
   * backward, each GEMM's output gradient cast and transposed the same way. */
  double fwd_cast[4] = {2 * tokens * h, (e + 2) * tokens * q_h / t, 2 * tokens * h, 2 * tokens * f / t};
  double bwd_cast[4] = {(e + 2) * tokens * qkv, (e + 2) * tokens * h, (e + 2) * tokens * up, (e + 2) * tokens * h};
  if (!sp->fp8)
    for (int i = 0; i < 4; i++)
      fwd_cast[i] = bwd_cast[i] = 0;
  int n = 0;
  memory(&out[n++], bwd ? "norm1 backward" : "norm1", scale * norm + (bwd ? 0 : fwd_cast[0]));
  if (!bwd)
    gemm(&out[n++], mm[0].name, tokens, mm[0].n, mm[0].k);
  ss_tf_kernel* a = &out[n++];
  double heads = (double)tf->heads / t, kv_heads = (double)tf->kv_heads / t;
  double q = (double)sp->seq / sp->cp, kv = sp->seq;
  /* Q, K, V read and the output written (backward: also dO read, dQ, dK, dV written). */
  double io = e * sp->b * (2 * q * heads * d + 2 * kv * kv_heads * d) * (bwd ? 2 : 1);
  double scores = sp->attention == SS_ATTENTION_EAGER ? EAGER_SCORE_PASSES * e * sp->b * heads * q * kv : 0;
  *a = (ss_tf_kernel){.name = bwd ? "attention backward" : "attention",
                      .kind = SS_TFK_ATTENTION,
                      .b = sp->b,
                      .causal = sp->causal,
                      .bwd = bwd,
                      .attention = sp->attention,
                      .heads = tf->heads / sp->t,
                      .head_dim = (int)d,
                      .q = q,
                      .kv = kv,
                      .flops = ss_tf_attention_flops(tf, sp, bwd),
                      .bytes = io + scores};
  if (!bwd && sp->fp8)
    memory(&out[n++], "proj cast", fwd_cast[1]);
  if (!bwd)
    gemm(&out[n++], mm[1].name, tokens, mm[1].n, mm[1].k);
  memory(&out[n++], bwd ? "residual1 backward" : "residual1", scale * residual);
  memory(&out[n++], bwd ? "norm2 backward" : "norm2", scale * norm + (bwd ? 0 : fwd_cast[2]));
  if (!bwd)
    gemm(&out[n++], mm[2].name, tokens, mm[2].n, mm[2].k);
  memory(&out[n++], bwd ? "activation backward" : "activation", scale * act + (bwd ? 0 : fwd_cast[3]));
  if (!bwd)
    gemm(&out[n++], mm[3].name, tokens, mm[3].n, mm[3].k);
  memory(&out[n++], bwd ? "residual2 backward" : "residual2", scale * residual);
  static const char* const casts[4] = {"qkv grad cast", "proj grad cast", "fc1 grad cast", "fc2 grad cast"};
  if (bwd)
    for (int i = 0; i < 4; i++) {
      if (sp->fp8)
        memory(&out[n++], casts[i], bwd_cast[i]);
      /* The input's gradient (tokens x n by n x k) and the weight's (k x tokens by tokens x n). */
      gemm(&out[n++], mm[i].dgrad, tokens, mm[i].k, mm[i].n);
      gemm(&out[n++], mm[i].wgrad, mm[i].k, mm[i].n, tokens);
    }
  return n;
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
   * fp8). */
  double split = e * sb * (q_h + 2 * kv_h) + in * sb * q_h + sb * f * ((tf->gated_ffn ? 2 : 1) * e + in);
  /* The attention core's own: eager's scores (softmax output, dropout mask and output: 2 + 1 + 2
   * bytes per element at 16-bit, scaled by elem / 2), flash's fp32 softmax statistics. */
  double core = sp->attention == SS_ATTENTION_EAGER ? (2.5 * e) * b * a * s * sp->seq : 4 * sb * a;
  if (r == SS_RECOMPUTE_SELECTIVE)
    core = 0;
  return (sp->sp ? whole / t : whole) + split / t + core / t;
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
