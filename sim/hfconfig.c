/* hfconfig: a Hugging Face config.json read as an architecture (hfconfig.h). */
#include "hfconfig.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The config keys of a family's sizes (kv_heads NULL: = heads; ffn_null: the FFN key may be null,
 * 4 x hidden, as GPT-2's n_inner). */
typedef struct keyset {
  const char *hidden, *layers, *heads, *kv_heads, *ffn, *vocab, *positions;
  int ffn_null;
} keyset;

static const keyset hf_keys = {
    "hidden_size",       "num_hidden_layers", "num_attention_heads",     "num_key_value_heads",
    "intermediate_size", "vocab_size",        "max_position_embeddings", 0};
static const keyset neox_keys = {"hidden_size",       "num_hidden_layers", "num_attention_heads",     NULL,
                                 "intermediate_size", "vocab_size",        "max_position_embeddings", 0};
static const keyset gpt2_keys = {"n_embd", "n_layer", "n_head", NULL, "n_inner", "vocab_size", "n_positions", 1};

/* The mixtures of experts read: Mixtral's (every layer, num_local_experts of intermediate_size),
 * Qwen's (num_experts of moe_intermediate_size where decoder_sparse_step and mlp_only_layers say,
 * Qwen2-MoE's shared expert of shared_expert_intermediate_size with its gate), OLMoE's (every layer,
 * num_experts of intermediate_size), DeepSeek's (n_routed_experts and n_shared_experts of
 * moe_intermediate_size after the first first_k_dense_replace layers, every moe_layer_freq-th; the
 * router's score correction bias with topk_method noaux_tc). */
enum { MOE_NONE, MOE_MIXTRAL, MOE_QWEN, MOE_OLMOE, MOE_DEEPSEEK };

/* A family of transformers' decoder-only modeling files: the config keys of its sizes and how its
 * layers register their parameters. Biases: 1 always, 0 never, -1 as the config's "attention_bias"
 * (queries, keys, values and output) or "mlp_bias" say (false when absent). */
typedef struct family {
  const char* arch;
  const char* model_type;
  const keyset* keys;
  int gated;          /* SwiGLU or GeGLU: gate, up and down matrices */
  int qkv_bias;       /* biases of the queries', keys' and values' projections */
  int out_bias;       /* of the attention's output projection */
  int mlp_bias;       /* of the FFN's matrices */
  int layer_norm;     /* LayerNorm (weight and bias), else RMSNorm (weight) */
  int norms;          /* norms per decoder layer */
  int qk_norm;        /* an RMSNorm on the queries and one on the keys: 1 per head (head_dim, Qwen3), 2 over
                       * the whole projection (OLMoE) */
  int moe;            /* a mixture of experts (MOE_*) */
  int mla;            /* DeepSeek's multi-head latent attention: low-rank queries and keys-values */
  int learned;        /* a table of learned positions (GPT-2's wpe) */
  int tied;           /* tie_word_embeddings' default; 2: always tied (the key not read) */
  int reads_head_dim; /* the config may give head_dim */
} family;

/* clang-format off */
static const family families[] = {
    {"LlamaForCausalLM",   "llama",    &hf_keys,   .gated = 1, .qkv_bias = -1, .out_bias = -1, .mlp_bias = -1, .norms = 2, .reads_head_dim = 1},
    {"MistralForCausalLM", "mistral",  &hf_keys,   .gated = 1, .norms = 2, .reads_head_dim = 1},
    {"Qwen2ForCausalLM",   "qwen2",    &hf_keys,   .gated = 1, .qkv_bias = 1, .norms = 2},
    {"Qwen3ForCausalLM",   "qwen3",    &hf_keys,   .gated = 1, .qkv_bias = -1, .out_bias = -1, .norms = 2, .qk_norm = 1, .reads_head_dim = 1},
    {"GemmaForCausalLM",   "gemma",    &hf_keys,   .gated = 1, .qkv_bias = -1, .out_bias = -1, .norms = 2, .tied = 1, .reads_head_dim = 1},
    {"Gemma2ForCausalLM",  "gemma2",   &hf_keys,   .gated = 1, .qkv_bias = -1, .out_bias = -1, .norms = 4, .tied = 1, .reads_head_dim = 1},
    {"GPT2LMHeadModel",    "gpt2",     &gpt2_keys, .qkv_bias = 1, .out_bias = 1, .mlp_bias = 1, .layer_norm = 1, .norms = 2, .learned = 1, .tied = 2},
    {"GPTNeoXForCausalLM", "gpt_neox", &neox_keys, .qkv_bias = 1, .out_bias = 1, .mlp_bias = 1, .layer_norm = 1, .norms = 2},
    {"MixtralForCausalLM", "mixtral",  &hf_keys,   .gated = 1, .norms = 2, .reads_head_dim = 1, .moe = MOE_MIXTRAL},
    {"Qwen2MoeForCausalLM", "qwen2_moe", &hf_keys, .gated = 1, .qkv_bias = 1, .norms = 2, .moe = MOE_QWEN},
    {"Qwen3MoeForCausalLM", "qwen3_moe", &hf_keys, .gated = 1, .qkv_bias = -1, .out_bias = -1, .norms = 2, .qk_norm = 1, .reads_head_dim = 1, .moe = MOE_QWEN},
    {"OlmoeForCausalLM",   "olmoe",    &hf_keys,   .gated = 1, .qkv_bias = -1, .out_bias = -1, .norms = 2, .qk_norm = 2, .moe = MOE_OLMOE},
    {"DeepseekV2ForCausalLM", "deepseek_v2", &hf_keys, .gated = 1, .norms = 2, .moe = MOE_DEEPSEEK, .mla = 1},
    {"DeepseekV3ForCausalLM", "deepseek_v3", &hf_keys, .gated = 1, .norms = 2, .moe = MOE_DEEPSEEK, .mla = 1},
};
/* clang-format on */

/* Architectures of mixture-of-experts models not read yet (their attention or experts differ from the
 * families above): refused by name, they come with issue 41. */
static const char* const moe_unread[] = {"DbrxForCausalLM", "JambaForCausalLM", "GptOssForCausalLM",
                                         "Llama4ForConditionalGeneration", NULL};

int ss_hf_is_config(const cJSON* root)
{
  return cJSON_IsObject(root) && !cJSON_GetObjectItemCaseSensitive(root, "schema") &&
         (cJSON_GetObjectItemCaseSensitive(root, "architectures") ||
          cJSON_GetObjectItemCaseSensitive(root, "model_type"));
}

/* The known architectures, "A, B or C", into buf. */
static void known(char* buf, size_t size)
{
  size_t n = 0, count = sizeof(families) / sizeof(families[0]);
  buf[0] = '\0';
  for (size_t i = 0; i < count && n < size; i++)
    n += (size_t)snprintf(buf + n, size - n, "%s%s", i == 0 ? "" : i + 1 == count ? " or " : ", ", families[i].arch);
}

static const family* find_family(const cJSON* root, const char* path, ss_err* err)
{
  const cJSON* archs = cJSON_GetObjectItemCaseSensitive(root, "architectures");
  const cJSON* type = cJSON_GetObjectItemCaseSensitive(root, "model_type");
  char list[512];
  known(list, sizeof(list));
  if (archs) {
    const cJSON* a0 = cJSON_IsArray(archs) ? cJSON_GetArrayItem(archs, 0) : NULL;
    if (!cJSON_IsString(a0))
      return ss_err_set_path(err, path, "$.architectures", "expected a list of architecture names, as [\"%s\"]",
                             families[0].arch),
             NULL;
    for (const char* const* m = moe_unread; *m; m++)
      if (strcmp(a0->valuestring, *m) == 0)
        return ss_err_set_path(err, path, "$.architectures[0]",
                               "'%s' is a mixture-of-experts model whose attention or experts are not read yet "
                               "(issue 41; read: %s)",
                               a0->valuestring, list),
               NULL;
    for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
      if (strcmp(a0->valuestring, families[i].arch) == 0)
        return &families[i];
    return ss_err_set_path(err, path, "$.architectures[0]", "unknown architecture '%.64s' (known: %s)", a0->valuestring,
                           list),
           NULL;
  }
  if (!cJSON_IsString(type))
    return ss_err_set_path(err, path, "$.model_type", "expected a string"), NULL;
  for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
    if (strcmp(type->valuestring, families[i].model_type) == 0)
      return &families[i];
  return ss_err_set_path(err, path, "$.model_type", "unknown model_type '%.64s' (known architectures: %s)",
                         type->valuestring, list),
         NULL;
}

/* Key name of root as a whole number in [lo, hi] into *out; absent (or null where null_ok): dflt,
 * or an error naming it when dflt < 0. */
static int get_int(const cJSON* root, const char* path, const char* name, const char* arch, long lo, long hi, long dflt,
                   int null_ok, long* out, ss_err* err)
{
  char at[96];
  snprintf(at, sizeof(at), "$.%s", name);
  const cJSON* x = cJSON_GetObjectItemCaseSensitive(root, name);
  if (!x || (null_ok && cJSON_IsNull(x))) {
    if (dflt < 0)
      return ss_err_set_path(err, path, at, "missing (%s gives its %s there)", arch, name);
    *out = dflt;
    return SS_OK;
  }
  if (!cJSON_IsNumber(x) || x->valuedouble != floor(x->valuedouble) || x->valuedouble < (double)lo ||
      x->valuedouble > (double)hi)
    return ss_err_set_path(err, path, at, "expected a whole number from %ld to %ld", lo, hi);
  *out = (long)x->valuedouble;
  return SS_OK;
}

/* Key name as true or false into *out (dflt when absent). */
static int get_bool(const cJSON* root, const char* path, const char* name, int dflt, int* out, ss_err* err)
{
  const cJSON* x = cJSON_GetObjectItemCaseSensitive(root, name);
  if (!x) {
    *out = dflt;
    return SS_OK;
  }
  if (!cJSON_IsBool(x)) {
    char at[96];
    snprintf(at, sizeof(at), "$.%s", name);
    return ss_err_set_path(err, path, at, "expected true or false");
  }
  *out = cJSON_IsTrue(x);
  return SS_OK;
}

/* A bias flag of the family: always, never, or the config's key (false when absent). */
static int bias(const cJSON* root, const char* path, int rule, const char* key, int* out, ss_err* err)
{
  if (rule >= 0) {
    *out = rule;
    return SS_OK;
  }
  return get_bool(root, path, key, 0, out, err);
}

static void add(ss_hf_model* m, double elements)
{
  if (elements > 0 && m->nlayer_tensors < SS_HF_MAX_TENSORS)
    m->layer_tensors[m->nlayer_tensors++] = elements;
}

/* Whether layer i of a Qwen mixture is a MoE layer: not in mlp_only_layers, and (i + 1) a multiple of
 * decoder_sparse_step (modeling_qwen2_moe.py, modeling_qwen3_moe.py). */
static int qwen_moe_layer(const cJSON* only, long step, int i)
{
  for (const cJSON* x = only ? only->child : NULL; x; x = x->next)
    if (cJSON_IsNumber(x) && x->valuedouble == i)
      return 0;
  return (i + 1) % step == 0;
}

/* The mixture of experts of family f's config: its sizes, how many layers have it, and one MoE
 * layer's parameters. The dense FFN of the layer tensors stays the layers' without it (Qwen's
 * mlp_only_layers). SS_OK, or SS_EINPUT naming the key. */
static int read_moe(const cJSON* root, const char* path, const family* f, ss_hf_model* m, ss_err* err)
{
  int ds = f->moe == MOE_DEEPSEEK;
  const char* nexp = f->moe == MOE_MIXTRAL ? "num_local_experts" : ds ? "n_routed_experts" : "num_experts";
  const char* width = f->moe == MOE_QWEN || ds ? "moe_intermediate_size" : "intermediate_size";
  long e = 0, k = 0, w = 0, shared = 0, step = 1, nshared = 0, first = 0;
  if (get_int(root, path, nexp, f->arch, 1, 1L << 20, -1, 0, &e, err) ||
      get_int(root, path, "num_experts_per_tok", f->arch, 1, 1L << 20, -1, 0, &k, err) ||
      get_int(root, path, width, f->arch, 1, 1L << 24, -1, 0, &w, err) ||
      (f->moe == MOE_QWEN &&
       (get_int(root, path, "shared_expert_intermediate_size", f->arch, 1, 1L << 24, 0, 1, &shared, err) ||
        get_int(root, path, "decoder_sparse_step", f->arch, 1, 1L << 20, 1, 1, &step, err))) ||
      (ds && (get_int(root, path, "n_shared_experts", f->arch, 0, 1L << 20, 0, 1, &nshared, err) ||
              get_int(root, path, "first_k_dense_replace", f->arch, 0, 1L << 20, 0, 1, &first, err) ||
              get_int(root, path, "moe_layer_freq", f->arch, 1, 1L << 20, 1, 1, &step, err))))
    return SS_EINPUT;
  if (k > e)
    return ss_err_set_path(err, path, "$.num_experts_per_tok", "%ld experts per token, more than the %ld experts", k,
                           e);
  const cJSON* only = cJSON_GetObjectItemCaseSensitive(root, "mlp_only_layers");
  if (only && !cJSON_IsArray(only))
    return ss_err_set_path(err, path, "$.mlp_only_layers", "expected a list of layer indices");
  double h = m->tf.hidden;
  m->experts = (int)e;
  m->top_k = (int)k;
  m->expert_ffn = (int)w;
  m->expert_params = 3 * h * w;
  /* DeepSeek-V3's router keeps a score correction bias (e_score_correction_bias) with noaux_tc. */
  const cJSON* method = cJSON_GetObjectItemCaseSensitive(root, "topk_method");
  int bias_e = ds && cJSON_IsString(method) && strcmp(method->valuestring, "noaux_tc") == 0;
  m->router_params = e * h + (bias_e ? e : 0);
  /* Qwen2-MoE's shared expert and its sigmoid gate (a Linear(h, 1)); DeepSeek's shared experts, one MLP
   * of n_shared x moe_intermediate_size. */
  m->shared_params = shared > 0 ? 3 * h * shared + h : ds ? 3 * h * w * nshared : 0;
  for (int i = 0; i < m->tf.layers; i++)
    m->moe_layers += f->moe == MOE_QWEN ? qwen_moe_layer(only, step, i) : ds ? i >= first && i % step == 0 : 1;
  /* The architecture's rule (ss_moe): Qwen's every step-th layer from step - 1, DeepSeek's every
   * step-th from first; a list of dense layers (Qwen's mlp_only_layers) it cannot say. */
  int qwen = f->moe == MOE_QWEN;
  m->tf.moe = (ss_moe){(int)e,
                       (int)k,
                       (int)w,
                       shared > 0 ? (int)shared : (int)(nshared * w),
                       ds ? (int)first : 0,
                       (int)step,
                       qwen ? (int)step - 1 : 0};
  m->moe_irregular = ss_transformer_moe_layers(&m->tf) != m->moe_layers;
  /* A MoE layer's tensors: the dense layer's but its FFN (the mats matrices before the trailing norms;
   * the MoE families have no FFN biases), the router, the routed experts' matrices each stacked over
   * the experts (one tensor a matrix, as grouped GEMMs hold them), the shared experts', the norms. */
  int mats = f->gated ? 3 : 2, keep = m->nlayer_tensors - f->norms - mats;
  ss_assert(keep > 0 && !f->layer_norm);
  memcpy(m->moe_tensors, m->layer_tensors, sizeof(double) * (size_t)keep);
  m->nmoe_tensors = keep;
  m->moe_tensors[m->nmoe_tensors++] = m->router_params;
  for (int x = 0; x < mats; x++)
    m->moe_tensors[m->nmoe_tensors++] = m->experts * m->expert_params / mats;
  if (m->shared_params > 0)
    m->moe_tensors[m->nmoe_tensors++] = m->shared_params;
  for (int x = 0; x < f->norms; x++)
    m->moe_tensors[m->nmoe_tensors++] = h;
  return SS_OK;
}

/* DeepSeek's multi-head latent attention (modeling_deepseek.py): queries through a low rank q_lora_rank
 * (q_a_proj, its norm, q_b_proj to heads x (nope + rope)) or directly (q_proj, q_lora_rank null); keys
 * and values from one down-projection to kv_lora_rank plus the shared rotary part (kv_a_proj_with_mqa),
 * its norm, and kv_b_proj up to heads x (nope + v); o_proj from heads x v. No biases. */
static int mla_tensors(const cJSON* root, const char* path, const family* f, ss_hf_model* m, ss_err* err)
{
  long rq = 0, rkv = 0, nope = 0, rope = 0, v = 0;
  if (get_int(root, path, "q_lora_rank", f->arch, 1, 1L << 20, 0, 1, &rq, err) ||
      get_int(root, path, "kv_lora_rank", f->arch, 1, 1L << 20, -1, 0, &rkv, err) ||
      get_int(root, path, "qk_nope_head_dim", f->arch, 1, 1L << 16, -1, 0, &nope, err) ||
      get_int(root, path, "qk_rope_head_dim", f->arch, 1, 1L << 16, -1, 0, &rope, err) ||
      get_int(root, path, "v_head_dim", f->arch, 1, 1L << 16, -1, 0, &v, err))
    return SS_EINPUT;
  double h = m->tf.hidden, a = m->tf.heads;
  if (rq > 0) {
    add(m, h * rq);
    add(m, (double)rq);
    add(m, rq * a * (nope + rope));
  } else {
    add(m, h * a * (nope + rope));
  }
  add(m, h * (rkv + rope));
  add(m, (double)rkv);
  add(m, rkv * a * (nope + v));
  add(m, a * v * h);
  m->tf.head_dim = (int)(nope + rope);
  m->tf.mla = (ss_mla){(int)rq, (int)rkv, (int)rope, (int)v};
  return SS_OK;
}

int ss_hf_read(const cJSON* root, const char* path, ss_hf_model* m, ss_err* err)
{
  memset(m, 0, sizeof(*m));
  const family* f = find_family(root, path, err);
  if (!f)
    return SS_EINPUT;
  long h = 0, L = 0, a = 0, kv = 0, ffn = 0, V = 0, pos = 0, hd = 0;
  const long big = 1L << 24;
  if (get_int(root, path, f->keys->hidden, f->arch, 1, big, -1, 0, &h, err) ||
      get_int(root, path, f->keys->layers, f->arch, 1, 100000, -1, 0, &L, err) ||
      get_int(root, path, f->keys->heads, f->arch, 1, 100000, -1, 0, &a, err))
    return SS_EINPUT;
  if (f->keys->kv_heads ? get_int(root, path, f->keys->kv_heads, f->arch, 1, 100000, a, 1, &kv, err) : (kv = a, 0))
    return SS_EINPUT;
  if (get_int(root, path, f->keys->ffn, f->arch, 1, big, f->keys->ffn_null ? 4 * h : -1, f->keys->ffn_null, &ffn,
              err) ||
      get_int(root, path, f->keys->vocab, f->arch, 1, big, -1, 0, &V, err) ||
      get_int(root, path, f->keys->positions, f->arch, 1, 1L << 30, 0, 1, &pos, err) ||
      (f->reads_head_dim && get_int(root, path, "head_dim", f->arch, 1, 100000, 0, 1, &hd, err)))
    return SS_EINPUT;
  if (a % kv)
    return ss_err_set_path(err, path, f->keys->kv_heads ? "$.num_key_value_heads" : "$",
                           "%ld key-value heads do not divide the %ld attention heads (grouped-query attention)", kv,
                           a);
  if (!hd && h % a)
    return ss_err_set_path(err, path, "$",
                           "%ld attention heads do not divide the hidden size %ld, and no head_dim is given", a, h);
  int tied = f->tied == 2, qkv_b = 0, out_b = 0, mlp_b = 0;
  if ((f->tied != 2 && get_bool(root, path, "tie_word_embeddings", f->tied, &tied, err)) ||
      bias(root, path, f->qkv_bias, "attention_bias", &qkv_b, err) ||
      bias(root, path, f->out_bias, "attention_bias", &out_b, err) ||
      bias(root, path, f->mlp_bias, "mlp_bias", &mlp_b, err))
    return SS_EINPUT;
  const cJSON* name = cJSON_GetObjectItemCaseSensitive(root, "_name_or_path");
  snprintf(m->architecture, sizeof(m->architecture), "%s", f->arch);
  m->named = cJSON_IsString(name) && name->valuestring[0];
  snprintf(m->name, sizeof(m->name), "%.127s", m->named ? name->valuestring : f->arch);
  int seq = pos > 0 && pos < SS_HF_DEFAULT_SEQ ? (int)pos : SS_HF_DEFAULT_SEQ;
  m->tf = (ss_transformer){(int)L, (int)h,  (int)a, (int)kv, (int)ffn, f->gated, seq, (int)V,
                           tied,   (int)hd, {0},    {0},     0,        0,        0,   0};
  m->max_positions = (int)pos;
  m->learned_positions = f->learned;
  /* A decoder layer's tensors as the family registers them: the norms first in GPT-2's and
   * GPT-NeoX's (LayerNorm), after the attention and the FFN in the others'. */
  double d = ss_transformer_head_dim(&m->tf), q = (double)a * d, k = (double)kv * d, norm = (double)h;
  int lead = f->layer_norm;
  for (int n = 0; lead && n < f->norms; n++) {
    add(m, norm);
    add(m, norm);
  }
  if (f->mla) {
    if (mla_tensors(root, path, f, m, err))
      return SS_EINPUT;
  } else {
    add(m, h * q);
    add(m, qkv_b ? q : 0);
    add(m, h * k);
    add(m, qkv_b ? k : 0);
    add(m, h * k);
    add(m, qkv_b ? k : 0);
    add(m, q * h);
    add(m, out_b ? h : 0);
  }
  if (f->qk_norm) {
    add(m, f->qk_norm == 1 ? d : q);
    add(m, f->qk_norm == 1 ? d : k);
  }
  for (int mat = 0; mat < (f->gated ? 2 : 1); mat++) {
    add(m, (double)h * ffn);
    add(m, mlp_b ? (double)ffn : 0);
  }
  add(m, (double)ffn * h);
  add(m, mlp_b ? (double)h : 0);
  for (int n = 0; !lead && n < f->norms; n++)
    add(m, norm);
  m->embed_params[0] = (double)V * h;
  m->embed_params[1] = f->learned ? (double)pos * h : 0;
  m->norm_params = f->layer_norm ? 2.0 * h : (double)h;
  m->head_params = tied ? 0 : (double)V * h;
  return f->moe ? read_moe(root, path, f, m, err) : SS_OK;
}

double ss_hf_layer_params(const ss_hf_model* m)
{
  double total = 0;
  for (int i = 0; i < m->nlayer_tensors; i++)
    total += m->layer_tensors[i];
  return total;
}

double ss_hf_params(const ss_hf_model* m)
{
  /* A MoE layer: the dense layer's tensors less its FFN (gate, up, down of ffn), plus the router, the
   * experts and the shared experts. */
  double dense = ss_hf_layer_params(m);
  double moe = dense - 3.0 * m->tf.hidden * m->tf.ffn + m->router_params + m->experts * m->expert_params +
               m->shared_params;
  return (m->tf.layers - m->moe_layers) * dense + m->moe_layers * moe + m->embed_params[0] + m->embed_params[1] +
         m->norm_params + m->head_params;
}

double ss_hf_active_params(const ss_hf_model* m)
{
  return ss_hf_params(m) - (double)m->moe_layers * (m->experts - m->top_k) * m->expert_params;
}
