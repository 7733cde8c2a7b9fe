/* hfconfig: a Hugging Face config.json of a decoder-only language model read as an architecture
 * (docs/formats.md, "A Hugging Face config.json as the workload"): the families of transformers'
 * modeling files that tensor, pipeline and context parallelism split the same way (Llama 2/3,
 * Mistral, Qwen2, Qwen3, GPT-2, GPT-NeoX, Gemma, Gemma 2), with each family's parameters as it
 * registers them (biases, norms, learned positions), so that the totals are the models' own; and
 * the mixture-of-experts families whose attention is one of those, DeepSeek's latent attention or
 * local attention (Mixtral, Qwen2-MoE, Qwen3-MoE, OLMoE, DeepSeek-V2 and V3, GPT-OSS with its sliding
 * window, Llama 4's text model with its chunks), their total and active parameters counted; the other
 * mixture-of-experts families are refused by name. */
#ifndef SS_HFCONFIG_H
#define SS_HFCONFIG_H

#include "err.h"
#include "transformer.h"

#include <cjson/cJSON.h>

/* The most parameter tensors a decoder layer registers. */
#define SS_HF_MAX_TENSORS 24

typedef struct ss_hf_model {
  char architecture[64]; /* architectures[0] */
  char name[128];        /* _name_or_path when given (named), else the architecture */
  int named;
  ss_transformer tf;     /* its seq: the config's positions, at most SS_HF_DEFAULT_SEQ; its ffn the dense
                          * layers' (Llama 4's intermediate_size_mlp) */
  int max_positions;     /* max_position_embeddings (n_positions); 0 when the config gives none */
  int learned_positions; /* a table of positions (GPT-2's wpe): no sequence beyond max_positions */
  int nlayer_tensors;    /* a decoder layer's parameter tensors, in registration order */
  double layer_tensors[SS_HF_MAX_TENSORS];
  double embed_params[2]; /* the token embedding and the learned positions (0 without) */
  double norm_params;     /* the final norm (weight, and bias for LayerNorm) */
  double head_params;     /* the output layer: 0 when tied to the token embedding */
  /* Mixture of experts: moe_layers of the layers replace the dense FFN (ffn) by a router of hidden x
   * experts, experts routed experts of expert_ffn each, top_k of them per token, and shared experts
   * (always used: shared_params); 0 moe_layers: a dense model. */
  int moe_layers;
  int experts;
  int top_k;
  int expert_ffn;
  double expert_params; /* one routed expert, with its biases (GPT-OSS's) */
  double router_params; /* one MoE layer's router, with its bias (GPT-OSS's, DeepSeek-V3's) */
  double shared_params; /* one MoE layer's shared experts and their gate */
  int moe_irregular;    /* the MoE layers follow no rule of tf.moe (a list of dense layers) */
  int nmoe_tensors;     /* a MoE layer's parameter tensors, in registration order */
  double moe_tensors[SS_HF_MAX_TENSORS];
} ss_hf_model;

/* The sequence a config's workload runs at unless --seq says: the model's positions, at most this
 * (CHOICE: the common pretraining context of 2023-2024's open models). */
#define SS_HF_DEFAULT_SEQ 4096

/* Whether root looks like a Hugging Face config (an object with "architectures" or "model_type" and no
 * "schema"). */
int ss_hf_is_config(const cJSON* root);

/* root read as the config of file path into m: SS_OK, or SS_EINPUT naming the JSON path (a missing or
 * malformed key, an unknown architecture, sizes that do not divide). */
int ss_hf_read(const cJSON* root, const char* path, ss_hf_model* m, ss_err* err);

/* One decoder layer's parameters (the sum of its tensors). */
double ss_hf_layer_params(const ss_hf_model* m);

/* The model's parameters: its layers (a MoE layer's the sum of its tensors, all its experts), embeddings,
 * final norm and output layer. */
double ss_hf_params(const ss_hf_model* m);

/* The parameters one token reads: ss_hf_params less, in each MoE layer, the routed experts it does
 * not use (experts - top_k of them); the embedding and output layer counted. */
double ss_hf_active_params(const ss_hf_model* m);

#endif
