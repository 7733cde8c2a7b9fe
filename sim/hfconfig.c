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
/* Llama 4's text model: its dense layers' FFN is intermediate_size_mlp wide (intermediate_size is each
 * expert's, read with the experts). */
static const keyset llama4_keys = {
    "hidden_size",           "num_hidden_layers", "num_attention_heads",     "num_key_value_heads",
    "intermediate_size_mlp", "vocab_size",        "max_position_embeddings", 0};

/* The mixtures of experts read: Mixtral's (every layer, num_local_experts of intermediate_size),
 * Qwen's (num_experts of moe_intermediate_size where decoder_sparse_step and mlp_only_layers say,
 * Qwen2-MoE's shared expert of shared_expert_intermediate_size with its gate), OLMoE's (every layer,
 * num_experts of intermediate_size), DeepSeek's (n_routed_experts and n_shared_experts of
 * moe_intermediate_size after the first first_k_dense_replace layers, every moe_layer_freq-th; the
 * router's score correction bias with topk_method noaux_tc), GPT-OSS's (every layer, num_local_experts
 * of intermediate_size with their biases, a router with its bias) and Llama 4's (num_local_experts of
 * intermediate_size and a shared expert of that width every interleave_moe_layer_step-th layer). The
 * last two hold each expert's gate and up matrices as one tensor (gate_up_proj). */
enum { MOE_NONE, MOE_MIXTRAL, MOE_QWEN, MOE_OLMOE, MOE_DEEPSEEK, MOE_GPTOSS, MOE_LLAMA4 };

/* Local attention as a family's config gives it: none, GPT-OSS's sliding window (sliding_window and
 * layer_types) or Llama 4's chunks (attention_chunk_size, and its layers without rotary positions
 * attending to all tokens). */
enum { LOCAL_NONE, LOCAL_SLIDING, LOCAL_CHUNKED };

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
  int sinks;          /* one learned attention sink per query head (GPT-OSS) */
  int local;          /* local attention (LOCAL_*) */
  const char* text;   /* the object of the config that holds the text model's keys (NULL: the config) */
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
    /* GPT-OSS: its attention's biases whatever attention_bias says (GptOssConfig sets it true). */
    {"GptOssForCausalLM",  "gpt_oss",  &hf_keys,   .gated = 1, .qkv_bias = 1, .out_bias = 1, .norms = 2, .reads_head_dim = 1, .moe = MOE_GPTOSS, .sinks = 1, .local = LOCAL_SLIDING},
    /* Llama 4's text model only (text_config): the vision tower and its projector are not trained here. */
    {"Llama4ForConditionalGeneration", "llama4", &llama4_keys, .gated = 1, .qkv_bias = -1, .out_bias = -1, .norms = 2, .reads_head_dim = 1, .moe = MOE_LLAMA4, .local = LOCAL_CHUNKED, .text = "text_config"},
};
/* clang-format on */

/* Architectures of mixture-of-experts models not read (their attention or experts differ from the
 * families above: DBRX's fused expert matrices, Jamba's state-space layers): refused by name. */
static const char* const moe_unread[] = {"DbrxForCausalLM", "JambaForCausalLM", NULL};

/* Where a family's keys are read: the object (the config, or the part of it that holds the text
 * model's keys), the file's path, and the object's JSON path for messages ("$", "$.text_config"). */
typedef struct src {
  const cJSON* obj;
  const char* file;
  const char* at;
} src;

/* The JSON path of key in s (s's own with key NULL) into buf. */
static const char* key_at(const src* s, const char* key, char* buf, size_t size)
{
  snprintf(buf, size, "%s%s%s", s->at, key ? "." : "", key ? key : "");
  return buf;
}

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
                               "'%s' is a mixture-of-experts model whose attention or experts are not read (read: "
                               "%s)",
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

/* Key name of s as a whole number in [lo, hi] into *out; absent (or null where null_ok): dflt,
 * or an error naming it when dflt < 0. */
static int get_int(const src* s, const char* name, const char* arch, long lo, long hi, long dflt, int null_ok,
                   long* out, ss_err* err)
{
  char at[96];
  key_at(s, name, at, sizeof(at));
  const cJSON* x = cJSON_GetObjectItemCaseSensitive(s->obj, name);
  if (!x || (null_ok && cJSON_IsNull(x))) {
    if (dflt < 0)
      return ss_err_set_path(err, s->file, at, "missing (%s gives its %s there)", arch, name);
    *out = dflt;
    return SS_OK;
  }
  if (!cJSON_IsNumber(x) || x->valuedouble != floor(x->valuedouble) || x->valuedouble < (double)lo ||
      x->valuedouble > (double)hi)
    return ss_err_set_path(err, s->file, at, "expected a whole number from %ld to %ld", lo, hi);
  *out = (long)x->valuedouble;
  return SS_OK;
}

/* Key name of s as true or false into *out (dflt when absent). */
static int get_bool(const src* s, const char* name, int dflt, int* out, ss_err* err)
{
  const cJSON* x = cJSON_GetObjectItemCaseSensitive(s->obj, name);
  if (!x) {
    *out = dflt;
    return SS_OK;
  }
  if (!cJSON_IsBool(x)) {
    char at[96];
    return ss_err_set_path(err, s->file, key_at(s, name, at, sizeof(at)), "expected true or false");
  }
  *out = cJSON_IsTrue(x);
  return SS_OK;
}

/* A bias flag of the family: always, never, or the config's key (false when absent). */
static int bias(const src* s, int rule, const char* key, int* out, ss_err* err)
{
  if (rule >= 0) {
    *out = rule;
    return SS_OK;
  }
  return get_bool(s, key, 0, out, err);
}

static void add(ss_hf_model* m, double elements)
{
  if (elements > 0 && m->nlayer_tensors < SS_HF_MAX_TENSORS)
    m->layer_tensors[m->nlayer_tensors++] = elements;
}

/* A tensor of a MoE layer, after those it shares with the dense layer. */
static void put(ss_hf_model* m, double elements)
{
  if (elements > 0 && m->nmoe_tensors < SS_HF_MAX_TENSORS)
    m->moe_tensors[m->nmoe_tensors++] = elements;
}

/* A MoE layer's tensors start as the dense layer's before its FFN (the mats matrices before the
 * trailing norms: the MoE families have no FFN biases). */
static void moe_attention(const family* f, ss_hf_model* m)
{
  int mats = f->gated ? 3 : 2, keep = m->nlayer_tensors - f->norms - mats;
  ss_assert(keep > 0 && !f->layer_norm);
  memcpy(m->moe_tensors, m->layer_tensors, sizeof(double) * (size_t)keep);
  m->nmoe_tensors = keep;
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

/* Llama 4's MoE layers are every step-th from step - 1 (interleave_moe_layer_step, the simulator's
 * rule); moe_layers, when the config lists them, must be those, in order. */
static int llama4_moe_layers(const src* s, long step, int layers, ss_err* err)
{
  const cJSON* list = cJSON_GetObjectItemCaseSensitive(s->obj, "moe_layers");
  if (!list || cJSON_IsNull(list))
    return SS_OK;
  char at[96];
  key_at(s, "moe_layers", at, sizeof(at));
  if (!cJSON_IsArray(list))
    return ss_err_set_path(err, s->file, at, "expected a list of layer indices");
  long want = layers / step, n = 0;
  for (const cJSON* x = list->child; x; x = x->next, n++)
    if (n >= want || !cJSON_IsNumber(x) || x->valuedouble != (double)(n * step + step - 1))
      break;
  if (n != want || cJSON_GetArraySize(list) != want)
    return ss_err_set_path(err, s->file, at,
                           "lists other layers than the %ld that interleave_moe_layer_step %ld makes mixtures of "
                           "experts (every %ld layers from layer %ld): the simulator takes mixtures of experts every "
                           "n-th layer from a first one only",
                           want, step, step, step - 1);
  return SS_OK;
}

/* GPT-OSS's and Llama 4's MoE layers (modeling_gpt_oss.py, modeling_llama4.py), e experts of width w
 * each on every step-th layer from step - 1: each expert's gate and up matrices one tensor over the
 * experts (gate_up_proj, hidden x 2 w an expert), its down matrix another (down_proj). GPT-OSS: the
 * router (hidden x e) and its bias, then the experts, each matrix with its bias (2 w and hidden an
 * expert). Llama 4: the experts, the router without bias, and one shared expert of width w (gate, up
 * and down), which every token runs. */
static int fused_moe(const src* s, const family* f, long step, ss_hf_model* m, ss_err* err)
{
  int oss = f->moe == MOE_GPTOSS;
  if (!oss && llama4_moe_layers(s, step, m->tf.layers, err))
    return SS_EINPUT;
  double h = m->tf.hidden, e = m->experts, w = m->expert_ffn;
  m->expert_params = 3 * h * w + (oss ? 2 * w + h : 0);
  m->router_params = e * h + (oss ? e : 0);
  m->shared_params = oss ? 0 : 3 * h * w;
  m->tf.moe = (ss_moe){m->experts, m->top_k, m->expert_ffn, oss ? 0 : m->expert_ffn, 0, (int)step, (int)step - 1};
  m->moe_layers = ss_transformer_moe_layers(&m->tf);
  moe_attention(f, m);
  if (oss) {
    put(m, e * h);
    put(m, e);
  }
  put(m, e * h * 2 * w);
  put(m, oss ? e * 2 * w : 0);
  put(m, e * w * h);
  put(m, oss ? e * h : 0);
  if (!oss) {
    put(m, e * h);
    for (int x = 0; x < 3; x++)
      put(m, h * w);
  }
  for (int x = 0; x < f->norms; x++)
    put(m, h);
  return SS_OK;
}

/* The mixture of experts of family f's config: its sizes, how many layers have it, and one MoE
 * layer's parameters. The dense FFN of the layer tensors stays the layers' without it (Qwen's
 * mlp_only_layers, Llama 4's dense layers). SS_OK, or SS_EINPUT naming the key. */
static int read_moe(const src* s, const family* f, ss_hf_model* m, ss_err* err)
{
  int ds = f->moe == MOE_DEEPSEEK, qwen = f->moe == MOE_QWEN;
  const char* nexp = qwen || f->moe == MOE_OLMOE ? "num_experts" : ds ? "n_routed_experts" : "num_local_experts";
  const char* width = qwen || ds ? "moe_intermediate_size" : "intermediate_size";
  long e = 0, k = 0, w = 0, shared = 0, step = 1, nshared = 0, first = 0;
  if (get_int(s, nexp, f->arch, 1, 1L << 20, -1, 0, &e, err) ||
      get_int(s, "num_experts_per_tok", f->arch, 1, 1L << 20, -1, 0, &k, err) ||
      get_int(s, width, f->arch, 1, 1L << 24, -1, 0, &w, err) ||
      (qwen && (get_int(s, "shared_expert_intermediate_size", f->arch, 1, 1L << 24, 0, 1, &shared, err) ||
                get_int(s, "decoder_sparse_step", f->arch, 1, 1L << 20, 1, 1, &step, err))) ||
      (ds && (get_int(s, "n_shared_experts", f->arch, 0, 1L << 20, 0, 1, &nshared, err) ||
              get_int(s, "first_k_dense_replace", f->arch, 0, 1L << 20, 0, 1, &first, err) ||
              get_int(s, "moe_layer_freq", f->arch, 1, 1L << 20, 1, 1, &step, err))) ||
      (f->moe == MOE_LLAMA4 && get_int(s, "interleave_moe_layer_step", f->arch, 1, 1L << 20, 1, 1, &step, err)))
    return SS_EINPUT;
  char at[96];
  if (k > e)
    return ss_err_set_path(err, s->file, key_at(s, "num_experts_per_tok", at, sizeof(at)),
                           "%ld experts per token, more than the %ld experts", k, e);
  m->experts = (int)e;
  m->top_k = (int)k;
  m->expert_ffn = (int)w;
  if (f->moe == MOE_GPTOSS || f->moe == MOE_LLAMA4)
    return fused_moe(s, f, step, m, err);
  const cJSON* only = cJSON_GetObjectItemCaseSensitive(s->obj, "mlp_only_layers");
  if (only && !cJSON_IsArray(only))
    return ss_err_set_path(err, s->file, key_at(s, "mlp_only_layers", at, sizeof(at)),
                           "expected a list of layer indices");
  double h = m->tf.hidden;
  m->expert_params = 3 * h * w;
  /* DeepSeek-V3's router keeps a score correction bias (e_score_correction_bias) with noaux_tc. */
  const cJSON* method = cJSON_GetObjectItemCaseSensitive(s->obj, "topk_method");
  int bias_e = ds && cJSON_IsString(method) && strcmp(method->valuestring, "noaux_tc") == 0;
  m->router_params = e * h + (bias_e ? e : 0);
  /* Qwen2-MoE's shared expert and its sigmoid gate (a Linear(h, 1)); DeepSeek's shared experts, one MLP
   * of n_shared x moe_intermediate_size. */
  m->shared_params = shared > 0 ? 3 * h * shared + h : ds ? 3 * h * w * nshared : 0;
  for (int i = 0; i < m->tf.layers; i++)
    m->moe_layers += qwen ? qwen_moe_layer(only, step, i) : ds ? i >= first && i % step == 0 : 1;
  /* The architecture's rule (ss_moe): Qwen's every step-th layer from step - 1, DeepSeek's every
   * step-th from first; a list of dense layers (Qwen's mlp_only_layers) it cannot say. */
  m->tf.moe = (ss_moe){(int)e,
                       (int)k,
                       (int)w,
                       shared > 0 ? (int)shared : (int)(nshared * w),
                       ds ? (int)first : 0,
                       (int)step,
                       qwen ? (int)step - 1 : 0};
  m->moe_irregular = ss_transformer_moe_layers(&m->tf) != m->moe_layers;
  /* A MoE layer's tensors: the attention's, the router, the routed experts' matrices each stacked over
   * the experts (one tensor a matrix, as grouped GEMMs hold them), the shared experts', the norms. */
  int mats = f->gated ? 3 : 2;
  moe_attention(f, m);
  put(m, m->router_params);
  for (int x = 0; x < mats; x++)
    put(m, m->experts * m->expert_params / mats);
  put(m, m->shared_params);
  for (int x = 0; x < f->norms; x++)
    put(m, h);
  return SS_OK;
}

/* DeepSeek's multi-head latent attention (modeling_deepseek.py): queries through a low rank q_lora_rank
 * (q_a_proj, its norm, q_b_proj to heads x (nope + rope)) or directly (q_proj, q_lora_rank null); keys
 * and values from one down-projection to kv_lora_rank plus the shared rotary part (kv_a_proj_with_mqa),
 * its norm, and kv_b_proj up to heads x (nope + v); o_proj from heads x v. No biases. */
static int mla_tensors(const src* s, const family* f, ss_hf_model* m, ss_err* err)
{
  long rq = 0, rkv = 0, nope = 0, rope = 0, v = 0;
  if (get_int(s, "q_lora_rank", f->arch, 1, 1L << 20, 0, 1, &rq, err) ||
      get_int(s, "kv_lora_rank", f->arch, 1, 1L << 20, -1, 0, &rkv, err) ||
      get_int(s, "qk_nope_head_dim", f->arch, 1, 1L << 16, -1, 0, &nope, err) ||
      get_int(s, "qk_rope_head_dim", f->arch, 1, 1L << 16, -1, 0, &rope, err) ||
      get_int(s, "v_head_dim", f->arch, 1, 1L << 16, -1, 0, &v, err))
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

/* Whether layer l attends to all tokens: as item x of the config's list of the layers says (layer_types'
 * "full_attention" against the family's local kind; with numeric, no_rope_layers' 0 for a layer without
 * rotary positions, which Llama 4 lets attend to all tokens, 1 for one with them), or without a list
 * when (l + 1) is a multiple of interval. -1: an item that is neither. */
static int full_layer(const cJSON* x, int numeric, const char* local, long interval, int l)
{
  if (!x)
    return (l + 1) % interval == 0;
  if (numeric)
    return cJSON_IsNumber(x) && (x->valuedouble == 0 || x->valuedouble == 1) ? x->valuedouble == 0 : -1;
  if (!cJSON_IsString(x))
    return -1;
  return strcmp(x->valuestring, "full_attention") == 0 ? 1 : strcmp(x->valuestring, local) == 0 ? 0 : -1;
}

/* The layers of full attention that key's list of s gives (full_layer; absent, null or empty: every
 * interval-th layer from interval - 1) as the architecture's rule: the layers l with l % every == phase
 * (every 0: none). SS_EINPUT naming the list when an item is neither kind, or when no such rule says
 * them. */
static int full_rule(const src* s, const char* key, int numeric, const char* local, long interval, int layers,
                     int* every, int* phase, ss_err* err)
{
  char at[96];
  key_at(s, key, at, sizeof(at));
  const cJSON* list = cJSON_GetObjectItemCaseSensitive(s->obj, key);
  if (list && !cJSON_IsNull(list) && !cJSON_IsArray(list))
    return ss_err_set_path(err, s->file, at, "expected a list with an item a layer");
  list = cJSON_IsArray(list) && list->child ? list : NULL;
  if (list && cJSON_GetArraySize(list) != layers)
    return ss_err_set_path(err, s->file, at, "%d items for the %d layers", cJSON_GetArraySize(list), layers);
  int first = -1, next = -1;
  const cJSON* x = list ? list->child : NULL;
  for (int l = 0; l < layers; l++, x = x ? x->next : NULL) {
    int full = full_layer(x, numeric, local, interval, l);
    char item[112];
    snprintf(item, sizeof(item), "%s[%d]", at, l);
    if (full < 0 && numeric)
      return ss_err_set_path(err, s->file, item,
                             "expected 1 (rotary positions: local attention) or 0 (none: attention to all tokens)");
    if (full < 0)
      return ss_err_set_path(err, s->file, item, "expected \"%s\" or \"full_attention\"", local);
    if (full && first >= 0 && next < 0)
      next = l;
    if (full && first < 0)
      first = l;
  }
  *every = first < 0 ? 0 : next < 0 ? layers : next - first;
  *phase = first < 0 ? 0 : first % *every;
  x = list ? list->child : NULL;
  for (int l = 0; l < layers; l++, x = x ? x->next : NULL)
    if (full_layer(x, numeric, local, interval, l) != (*every > 0 && l % *every == *phase))
      return ss_err_set_path(err, s->file, at,
                             "layers %d and %d attend to all tokens and layer %d breaks that pattern (every %d "
                             "layers from layer %d): the simulator takes local attention on every layer but every "
                             "n-th from a first one only",
                             first, next, l, *every, *phase);
  return SS_OK;
}

/* Family f's local attention into the architecture: the window (GPT-OSS's sliding_window, 128 when
 * absent; Llama 4's attention_chunk_size, 8192 when absent; null: none) and the layers that attend to
 * all tokens, from layer_types (GPT-OSS's default: every second layer from layer 1) or Llama 4's
 * no_rope_layers (when empty: every no_rope_layer_interval-th layer, 4 when absent, from interval - 1). */
static int read_local(const src* s, const family* f, ss_hf_model* m, ss_err* err)
{
  int chunked = f->local == LOCAL_CHUNKED, numeric = 0, every = 0, phase = 0;
  const char* wkey = chunked ? "attention_chunk_size" : "sliding_window";
  const char* key = "layer_types";
  long window = 0, interval = 2;
  const cJSON* wx = cJSON_GetObjectItemCaseSensitive(s->obj, wkey);
  if (!cJSON_IsNull(wx) && get_int(s, wkey, f->arch, 1, 1L << 30, chunked ? 8192 : 128, 0, &window, err))
    return SS_EINPUT;
  if (chunked && !cJSON_GetObjectItemCaseSensitive(s->obj, key)) {
    key = "no_rope_layers";
    numeric = 1;
    if (get_int(s, "no_rope_layer_interval", f->arch, 1, 1L << 20, 4, 1, &interval, err))
      return SS_EINPUT;
  }
  if (full_rule(s, key, numeric, chunked ? "chunked_attention" : "sliding_attention", interval, m->tf.layers, &every,
                &phase, err))
    return SS_EINPUT;
  /* Every layer attending to all tokens (every 1) is no local attention. */
  if (window > 0 && every != 1) {
    m->tf.window = (int)window;
    m->tf.window_chunked = chunked;
    m->tf.full_every = every;
    m->tf.full_phase = phase;
  }
  return SS_OK;
}

/* A decoder layer's tensors as family f registers them: the norms first in GPT-2's and GPT-NeoX's
 * (LayerNorm), after the attention and the FFN in the others'; GPT-OSS's attention sinks after the
 * output projection. */
static int layer_tensors(const src* s, const family* f, int qkv_b, int out_b, int mlp_b, ss_hf_model* m, ss_err* err)
{
  double h = m->tf.hidden, ffn = m->tf.ffn, d = ss_transformer_head_dim(&m->tf);
  double q = m->tf.heads * d, k = m->tf.kv_heads * d;
  int lead = f->layer_norm;
  for (int n = 0; lead && n < f->norms; n++) {
    add(m, h);
    add(m, h);
  }
  if (f->mla) {
    if (mla_tensors(s, f, m, err))
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
  add(m, f->sinks ? m->tf.heads : 0);
  if (f->qk_norm) {
    add(m, f->qk_norm == 1 ? d : q);
    add(m, f->qk_norm == 1 ? d : k);
  }
  for (int mat = 0; mat < (f->gated ? 2 : 1); mat++) {
    add(m, h * ffn);
    add(m, mlp_b ? ffn : 0);
  }
  add(m, ffn * h);
  add(m, mlp_b ? h : 0);
  for (int n = 0; !lead && n < f->norms; n++)
    add(m, h);
  return SS_OK;
}

/* The sizes of family f's config into m's architecture (head_dim 0: hidden / heads). */
static int read_sizes(const src* s, const family* f, ss_hf_model* m, ss_err* err)
{
  long h = 0, L = 0, a = 0, kv = 0, ffn = 0, V = 0, pos = 0, hd = 0;
  const long big = 1L << 24;
  char at[96];
  if (get_int(s, f->keys->hidden, f->arch, 1, big, -1, 0, &h, err) ||
      get_int(s, f->keys->layers, f->arch, 1, 100000, -1, 0, &L, err) ||
      get_int(s, f->keys->heads, f->arch, 1, 100000, -1, 0, &a, err))
    return SS_EINPUT;
  if (f->keys->kv_heads ? get_int(s, f->keys->kv_heads, f->arch, 1, 100000, a, 1, &kv, err) : (kv = a, 0))
    return SS_EINPUT;
  if (get_int(s, f->keys->ffn, f->arch, 1, big, f->keys->ffn_null ? 4 * h : -1, f->keys->ffn_null, &ffn, err) ||
      get_int(s, f->keys->vocab, f->arch, 1, big, -1, 0, &V, err) ||
      get_int(s, f->keys->positions, f->arch, 1, 1L << 30, 0, 1, &pos, err) ||
      (f->reads_head_dim && get_int(s, "head_dim", f->arch, 1, 100000, 0, 1, &hd, err)))
    return SS_EINPUT;
  if (a % kv)
    return ss_err_set_path(err, s->file, key_at(s, f->keys->kv_heads, at, sizeof(at)),
                           "%ld key-value heads do not divide the %ld attention heads (grouped-query attention)", kv,
                           a);
  if (!hd && h % a)
    return ss_err_set_path(err, s->file, s->at,
                           "%ld attention heads do not divide the hidden size %ld, and no head_dim is given", a, h);
  int seq = pos > 0 && pos < SS_HF_DEFAULT_SEQ ? (int)pos : SS_HF_DEFAULT_SEQ;
  m->tf = (ss_transformer){(int)L, (int)h,  (int)a, (int)kv, (int)ffn, f->gated, seq, (int)V,
                           0,      (int)hd, {0},    {0},     0,        0,        0,   0};
  m->max_positions = (int)pos;
  return SS_OK;
}

int ss_hf_read(const cJSON* root, const char* path, ss_hf_model* m, ss_err* err)
{
  memset(m, 0, sizeof(*m));
  const family* f = find_family(root, path, err);
  if (!f)
    return SS_EINPUT;
  char text_at[64];
  src s = {root, path, "$"};
  if (f->text) {
    snprintf(text_at, sizeof(text_at), "$.%s", f->text);
    s = (src){cJSON_GetObjectItemCaseSensitive(root, f->text), path, text_at};
    if (!cJSON_IsObject(s.obj))
      return ss_err_set_path(err, path, text_at, "expected an object (%s gives its text model's sizes there)", f->arch);
  }
  int tied = f->tied == 2, qkv_b = 0, out_b = 0, mlp_b = 0;
  if (read_sizes(&s, f, m, err) || (f->tied != 2 && get_bool(&s, "tie_word_embeddings", f->tied, &tied, err)) ||
      bias(&s, f->qkv_bias, "attention_bias", &qkv_b, err) || bias(&s, f->out_bias, "attention_bias", &out_b, err) ||
      bias(&s, f->mlp_bias, "mlp_bias", &mlp_b, err))
    return SS_EINPUT;
  const cJSON* name = cJSON_GetObjectItemCaseSensitive(root, "_name_or_path");
  snprintf(m->architecture, sizeof(m->architecture), "%s", f->arch);
  m->named = cJSON_IsString(name) && name->valuestring[0];
  snprintf(m->name, sizeof(m->name), "%.127s", m->named ? name->valuestring : f->arch);
  m->tf.tied = tied;
  m->learned_positions = f->learned;
  if (layer_tensors(&s, f, qkv_b, out_b, mlp_b, m, err))
    return SS_EINPUT;
  double h = m->tf.hidden, V = m->tf.vocab;
  m->embed_params[0] = V * h;
  m->embed_params[1] = f->learned ? (double)m->max_positions * h : 0;
  m->norm_params = f->layer_norm ? 2.0 * h : h;
  m->head_params = tied ? 0 : V * h;
  if (f->moe && read_moe(&s, f, m, err))
    return SS_EINPUT;
  return f->local ? read_local(&s, f, m, err) : SS_OK;
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
  /* A MoE layer's parameters are its tensors': the attention, the router, the experts, the shared
   * experts and the norms. */
  double moe = 0;
  for (int i = 0; i < m->nmoe_tensors; i++)
    moe += m->moe_tensors[i];
  return (m->tf.layers - m->moe_layers) * ss_hf_layer_params(m) + m->moe_layers * moe + m->embed_params[0] +
         m->embed_params[1] + m->norm_params + m->head_params;
}

double ss_hf_active_params(const ss_hf_model* m)
{
  return ss_hf_params(m) - (double)m->moe_layers * (m->experts - m->top_k) * m->expert_params;
}
