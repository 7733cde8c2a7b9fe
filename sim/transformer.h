/* transformer: a transformer's architecture (layers, hidden size, heads, FFN size, sequence,
 * vocabulary) and what follows from it for a tensor- and pipeline-parallel split: the parameters,
 * the bytes of the tensor-parallel collectives per layer, the activation memory per layer and
 * micro-batch (Korthikanti et al. 2022, Table 2) and the model FLOPs of an iteration (their appendix's
 * convention, the one MFU is reported in). Sources: ../shared/data/model_parallelism.md. */
#ifndef SS_TRANSFORMER_H
#define SS_TRANSFORMER_H

#include <stddef.h>

/* A mixture of experts (docs/model.md, "Mixtures of experts"): the layers l >= first with
 * l % every == phase replace the FFN by a router (hidden x experts), experts routed experts of
 * expert_ffn each (gated as the FFN), top_k of them a token, and shared experts of shared_ffn
 * together that every token runs (0: none). experts 0: a dense model. */
typedef struct ss_moe {
  int experts;
  int top_k;
  int expert_ffn;
  int shared_ffn;
  int first;
  int every;
  int phase;
} ss_moe;

/* Multi-head latent attention (DeepSeek-V2/V3; kv_lora 0: none): queries through a q_lora
 * down-projection (0: projected directly), keys and values from one kv_lora latent plus rope_dim
 * shared rotary dimensions, each head's query-key width head_dim (rope_dim of it rotary) and value
 * width v_dim; the down-projections are whole on every tensor rank, the up-projections and the output
 * split. */
typedef struct ss_mla {
  int q_lora;
  int kv_lora;
  int rope_dim;
  int v_dim;
} ss_mla;

typedef struct ss_transformer {
  int layers;    /* L */
  int hidden;    /* h */
  int heads;     /* a, the query heads */
  int kv_heads;  /* the key and value heads (grouped-query attention: Llama-2 70B's 8); = heads without */
  int ffn;       /* the FFN's inner size (4 h for GPT) */
  int gated_ffn; /* SwiGLU (Llama): three FFN matrices, not two */
  int seq;       /* s, tokens per sequence */
  int vocab;     /* V */
  int tied;      /* the output layer shares the input embedding's weights */
  int head_dim;  /* each head's width; 0: hidden / heads (Gemma's and Qwen3's small models differ) */
  ss_moe moe;    /* experts 0: dense */
  ss_mla mla;    /* kv_lora 0: none */
  /* Local attention (window 0: none): the layers but those l with l % full_every == full_phase (all of
   * them when full_every is 0) attend to the last `window` tokens (sliding: GPT-OSS) or within chunks of
   * `window` tokens (chunked: Llama 4). */
  int window;
  int window_chunked;
  int full_every;
  int full_phase;
} ss_transformer;

/* Whether layer l attends locally (tf->window). */
int ss_transformer_is_windowed(const ss_transformer* tf, int l);

/* Whether layer l (0 .. layers - 1) is a mixture of experts. */
int ss_transformer_is_moe(const ss_transformer* tf, int l);

/* The layers that are. */
int ss_transformer_moe_layers(const ss_transformer* tf);

/* The width of the attention core's two products per head, for their FLOPs: head_dim, or with latent
 * attention the mean of the query-key and the value widths (QK^T over head_dim, PV over v_dim). */
double ss_transformer_attn_dim(const ss_transformer* tf);

/* The attention's parameters of one layer (projections; latent attention's norms), without biases. */
double ss_transformer_attention_params(const ss_transformer* tf);

/* The routed experts of one MoE layer: experts x (3 or 2) x hidden x expert_ffn. */
double ss_transformer_expert_params(const ss_transformer* tf);

/* The parameters of layer l: its attention, its FFN (or router, routed and shared experts), two norms. */
double ss_transformer_layer_params_at(const ss_transformer* tf, int l);

/* The parameters of layer l a token reads: ss_transformer_layer_params_at less, in a MoE layer, the
 * experts - top_k routed experts it does not use. */
double ss_transformer_layer_active_at(const ss_transformer* tf, int l);

/* The parameters a token reads: ss_transformer_params less, in each MoE layer, the experts - top_k
 * routed experts it does not use. */
double ss_transformer_active_params(const ss_transformer* tf);

/* Each attention head's width: head_dim, or hidden / heads when 0. */
int ss_transformer_head_dim(const ss_transformer* tf);

/* Activation recomputation (--recompute): none, selective (the attention's softmax, dropout and
 * its inputs, Korthikanti et al. section 5), full (each layer's input only, the forward run again in
 * backward). */
typedef enum ss_recompute {
  SS_RECOMPUTE_NONE,
  SS_RECOMPUTE_SELECTIVE,
  SS_RECOMPUTE_FULL,
  SS_RECOMPUTE_COUNT
} ss_recompute;

extern const char* const ss_recompute_names[];

/* Whether the split of t tensor-parallel ranks and p stages fits the architecture: 0, or -1 with
 * why[size] naming the rule (t divides the heads, the key-value heads and the hidden and FFN sizes;
 * p at most the layers). */
int ss_transformer_check(const ss_transformer* tf, int t, int p, char* why, size_t size);

/* The parameters: per layer the attention's projections (queries and output h x (heads x head_dim)
 * each, keys and values h x (kv_heads x head_dim) each), the FFN's matrices (2 or 3 of h x ffn) and two norms' 2 h;
 * the input embedding V h, and the output layer V h unless tied. Biases are left out. */
double ss_transformer_params(const ss_transformer* tf);

/* The parameters of a dense layer (ss_transformer_params's per-layer terms where no layer is a
 * mixture of experts). */
double ss_transformer_layer_params(const ss_transformer* tf);

/* The bytes of one of a layer's tensor-parallel collectives for a micro-batch of b sequences: the
 * b s h activation tensor at elem bytes per element (an allreduce, or with sequence parallelism a
 * reduce-scatter or all-gather of the same bytes). */
double ss_transformer_tp_bytes(const ss_transformer* tf, int b, double elem);

/* The tensor-parallel collectives of one layer and micro-batch: 2 forward and 2 backward, 2 more
 * with full recomputation (the forward again). */
int ss_transformer_tp_collectives(ss_recompute r);

/* The activation bytes one layer keeps for a micro-batch of b sequences on one GPU of a tensor
 * group of t, 16-bit activations (Korthikanti et al. 2022, Table 2): s b h (34 + 5 a s / h) without
 * parallelism; s b h (10 + 24 / t + 5 a s / (h t)) with tensor parallelism; that over t with sequence
 * parallelism; with selective recomputation s b h (10 + 24 / t), 34 s b h / t with sequence
 * parallelism; 2 s b h (over t with sequence parallelism) with full recomputation. */
double ss_transformer_activation_bytes(const ss_transformer* tf, int b, int t, int sp, ss_recompute r);

/* The model FLOPs of an iteration of B sequences: 3 B s (L (2 W + 4 s h) + 2 V h), W a layer's
 * matrix weights; for GPT's layer (W = 12 h^2) Korthikanti et al.'s 72 B s L h^2 (1 + s / (6 h) +
 * V / (12 L h)) (2022, appendix); recomputation not counted (the MFU convention). In a mixture of
 * experts W counts the weights a token reads: its top_k routed experts, the shared ones and the
 * router (6 x active parameters per token, plus the attention). */
double ss_transformer_model_flops(const ss_transformer* tf, double sequences);

#endif
