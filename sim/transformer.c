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

int ss_transformer_is_moe(const ss_transformer* tf, int l)
{
  const ss_moe* m = &tf->moe;
  return m->experts > 0 && l >= m->first && l % (m->every > 0 ? m->every : 1) == m->phase;
}

int ss_transformer_is_windowed(const ss_transformer* tf, int l)
{
  return tf->window > 0 && !(tf->full_every > 0 && l % tf->full_every == tf->full_phase);
}

int ss_transformer_moe_layers(const ss_transformer* tf)
{
  int n = 0;
  for (int l = 0; l < tf->layers; l++)
    n += ss_transformer_is_moe(tf, l);
  return n;
}

double ss_transformer_attn_dim(const ss_transformer* tf)
{
  double d = ss_transformer_head_dim(tf);
  return tf->mla.kv_lora > 0 ? (d + tf->mla.v_dim) / 2 : d;
}

double ss_transformer_attention_params(const ss_transformer* tf)
{
  double h = tf->hidden, d = ss_transformer_head_dim(tf), a = tf->heads;
  const ss_mla* m = &tf->mla;
  if (m->kv_lora > 0) {
    double q = m->q_lora > 0 ? h * m->q_lora + m->q_lora + (double)m->q_lora * a * d : h * a * d;
    double kv = h * (m->kv_lora + m->rope_dim) + m->kv_lora + (double)m->kv_lora * a * (d - m->rope_dim + m->v_dim);
    return q + kv + a * m->v_dim * h;
  }
  double q = a * d, kv = tf->kv_heads * d;
  return 2 * h * q + 2 * h * kv;
}

/* A gated FFN's matrices: 3, else 2. */
static double ffn_mats(const ss_transformer* tf)
{
  return tf->gated_ffn ? 3.0 : 2.0;
}

double ss_transformer_expert_params(const ss_transformer* tf)
{
  return (double)tf->moe.experts * ffn_mats(tf) * tf->hidden * tf->moe.expert_ffn;
}

double ss_transformer_layer_params(const ss_transformer* tf)
{
  double h = tf->hidden;
  return ss_transformer_attention_params(tf) + ffn_mats(tf) * h * tf->ffn + 2 * h;
}

double ss_transformer_layer_params_at(const ss_transformer* tf, int l)
{
  if (!ss_transformer_is_moe(tf, l))
    return ss_transformer_layer_params(tf);
  double h = tf->hidden;
  return ss_transformer_attention_params(tf) + h * tf->moe.experts + ss_transformer_expert_params(tf) +
         ffn_mats(tf) * h * tf->moe.shared_ffn + 2 * h;
}

double ss_transformer_params(const ss_transformer* tf)
{
  double vh = (double)tf->vocab * tf->hidden, layers = 0;
  if (tf->moe.experts > 0)
    for (int l = 0; l < tf->layers; l++)
      layers += ss_transformer_layer_params_at(tf, l);
  else
    layers = tf->layers * ss_transformer_layer_params(tf);
  return layers + vh * (tf->tied ? 1 : 2);
}

/* The routed experts' parameters of one MoE layer that a token does not read (experts - top_k of them). */
static double unused_experts(const ss_transformer* tf)
{
  const ss_moe* m = &tf->moe;
  return m->experts > 0 ? ss_transformer_expert_params(tf) * (m->experts - m->top_k) / m->experts : 0;
}

double ss_transformer_layer_active_at(const ss_transformer* tf, int l)
{
  return ss_transformer_layer_params_at(tf, l) - (ss_transformer_is_moe(tf, l) ? unused_experts(tf) : 0);
}

double ss_transformer_active_params(const ss_transformer* tf)
{
  return ss_transformer_params(tf) - ss_transformer_moe_layers(tf) * unused_experts(tf);
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
  double vh = V * h * (tf->tied ? 1 : 2), norms = 2 * h * L;
  double matrices = (ss_transformer_active_params(tf) - vh - norms) / L;
  double q = (double)tf->heads * ss_transformer_attn_dim(tf);
  return 3 * sequences * s * (L * (2 * matrices + 4 * s * q) + 2 * V * h);
}
