/* transformer: a transformer's architecture and its tensor- and pipeline-parallel split (transformer.h). */
#include "transformer.h"

#include <stdio.h>

const char* const ss_recompute_names[] = {"none", "selective", "full", NULL};

int ss_transformer_check(const ss_transformer* tf, int t, int p, char* why, size_t size)
{
  if (t < 1 || p < 1)
    return snprintf(why, size, "--tp and --pp must be 1 or more (got %d and %d)", t, p), -1;
  if (tf->heads % t)
    return snprintf(why, size, "--tp %d does not divide the %d attention heads (each rank takes whole heads)", t,
                    tf->heads),
           -1;
  if (tf->kv_heads % t)
    return snprintf(why, size, "--tp %d does not divide the %d key-value heads (grouped-query attention)", t,
                    tf->kv_heads),
           -1;
  if (tf->hidden % t || tf->ffn % t)
    return snprintf(why, size, "--tp %d does not divide the hidden size %d and the FFN size %d", t, tf->hidden,
                    tf->ffn),
           -1;
  if (p > tf->layers)
    return snprintf(why, size, "--pp %d is more stages than the %d layers", p, tf->layers), -1;
  return 0;
}

int ss_transformer_head_dim(const ss_transformer* tf)
{
  return tf->head_dim > 0 ? tf->head_dim : tf->hidden / tf->heads;
}

double ss_transformer_layer_params(const ss_transformer* tf)
{
  double h = tf->hidden, d = ss_transformer_head_dim(tf), q = tf->heads * d, kv = tf->kv_heads * d;
  return 2 * h * q + 2 * h * kv + (tf->gated_ffn ? 3.0 : 2.0) * h * tf->ffn + 2 * h;
}

double ss_transformer_params(const ss_transformer* tf)
{
  double vh = (double)tf->vocab * tf->hidden;
  return tf->layers * ss_transformer_layer_params(tf) + vh * (tf->tied ? 1 : 2);
}

double ss_transformer_tp_bytes(const ss_transformer* tf, int b, double elem)
{
  return (double)b * tf->seq * tf->hidden * elem;
}

int ss_transformer_tp_collectives(ss_recompute r)
{
  return r == SS_RECOMPUTE_FULL ? 6 : 4;
}

double ss_transformer_activation_bytes(const ss_transformer* tf, int b, int t, int sp, ss_recompute r)
{
  double s = tf->seq, h = tf->hidden, a = tf->heads, sbh = s * b * h;
  if (r == SS_RECOMPUTE_FULL)
    return 2 * sbh / (sp ? t : 1);
  if (r == SS_RECOMPUTE_SELECTIVE) /* the attention's a s / h terms recomputed, not kept */
    return sp ? 34 * sbh / t : sbh * (10 + 24.0 / t);
  if (t == 1)
    return sbh * (34 + 5 * a * s / h);
  if (sp)
    return sbh * (34 + 5 * a * s / h) / t;
  return sbh * (10 + 24.0 / t + 5 * a * s / (h * t));
}

double ss_transformer_model_flops(const ss_transformer* tf, double sequences)
{
  /* Per token, forward: 2 flops per weight of a layer's matrices, 4 s h for the attention's scores
   * (4 s heads head_dim where heads x head_dim is not h)
   * and their product with the values, 2 V h for the output layer; backward twice that. For GPT's
   * layer (12 h^2 weights) this is Korthikanti et al.'s 72 B s L h^2 (1 + s / (6 h) + V / (12 L h)). */
  double s = tf->seq, h = tf->hidden, L = tf->layers, V = tf->vocab;
  double matrices = ss_transformer_layer_params(tf) - 2 * h, q = (double)tf->heads * ss_transformer_head_dim(tf);
  return 3 * sequences * s * (L * (2 * matrices + 4 * s * q) + 2 * V * h);
}
