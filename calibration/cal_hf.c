/* cal_hf: stash-calibrate hf: a Hugging Face config.json of a decoder-only language model written as a
 * stash-sim workload JSON, the workload stash-sim makes of the config itself (sim/hfconfig.h), at a
 * sequence length of the user's, for editing or for a record of what was simulated. */
#include "cal.h"
#include "cal_cli.h"
#include "cal_text.h"
#include "cal_workload.h"
#include "tfmodel.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct hf_args {
  const char* output;
  const char* model;
  long long seq; /* 0: the config's default */
} hf_args;

static const char hf_help[] =
    "usage: stash-calibrate hf CONFIG.json [-o WORKLOAD.json] [options]\n"
    "\n"
    "Write the workload stash-sim makes of a Hugging Face config.json (LlamaForCausalLM, MistralForCausalLM,\n"
    "Qwen2ForCausalLM, Qwen3ForCausalLM, GemmaForCausalLM, Gemma2ForCausalLM, GPT2LMHeadModel,\n"
    "GPTNeoXForCausalLM): the embedding, one entry per decoder layer, the final norm and output layer, with\n"
    "their parameter tensors as the family registers them, their FLOPs and activations per sequence, and\n"
    "the \"transformer\" block. Its layers have no measured times (\"measured_times\": false): stash-sim's\n"
    "kernel model times them (docs/formats.md, \"A Hugging Face config.json as the workload\").\n"
    "\n"
    "options:\n"
    "  -o, --output FILE      write the workload there (default: stdout)\n"
    "      --seq N            tokens per sequence (default: the config's positions, at most 4096)\n"
    "      --model NAME       model name (default: the config's _name_or_path, else the file's)\n"
    "  -h, --help             this help\n";

enum { OPT_SEQ = 256, OPT_MODEL };

static const struct option options[] = {
    {"output", required_argument, NULL, 'o'},
    {"seq", required_argument, NULL, OPT_SEQ},
    {"model", required_argument, NULL, OPT_MODEL},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* A cal_cli option function. */
static int hf_option(int ch, const char* arg, void* args)
{
  hf_args* a = args;
  switch (ch) {
    case 'o': a->output = arg; return 0;
    case OPT_MODEL: a->model = arg; return 0;
    case OPT_SEQ:
      if (cal_integer(arg, &a->seq) || a->seq < 1 || a->seq > 16777216)
        return cal_usage_error("hf", "--seq expects a whole number from 1 to 16777216, got '%s'", arg);
      return 0;
    default: return cal_usage_error("hf", "internal: option %d", ch);
  }
}

/* One layer's keys, in the order of stash-sim's files. */
static void layer_json(cJSON* layers, const ss_layer* y)
{
  cJSON* o = cal_workload_layer(layers, y->name, y->fwd_s, y->bwd_s, y->params);
  cJSON* t = cJSON_AddArrayToObject(o, "tensors");
  for (int k = 0; k < y->ntensors; k++)
    cJSON_AddItemToArray(t, cJSON_CreateNumber(y->tensors[k]));
  const struct {
    const char* key;
    double v;
  } work[] = {{"fwd_flops", y->fwd_flops},     {"bwd_flops", y->bwd_flops},
              {"fwd_bytes", y->fwd_bytes},     {"bwd_bytes", y->bwd_bytes},
              {"act_bytes", y->act_bytes},     {"act_bytes_half", y->act_bytes_half},
              {"ckpt_bytes", y->ckpt_bytes},   {"ckpt_bytes_half", y->ckpt_bytes_half},
              {"fwd_kernels", y->fwd_kernels}, {"bwd_kernels", y->bwd_kernels},
              {"fwd_outputs", y->fwd_outputs}, {"bwd_outputs", y->bwd_outputs},
              {"fwd_nchw_elements", 0},        {"bwd_nchw_elements", 0}};
  for (size_t k = 0; k < sizeof(work) / sizeof(work[0]); k++)
    if (strncmp(work[k].key, "ckpt", 4) != 0 || work[k].v >= 0)
      cJSON_AddNumberToObject(o, work[k].key, round(work[k].v));
}

static cJSON* workload_json(const char* path, const ss_workload* w, const hf_args* a)
{
  cal_workload cw = {.model = a->model ? a->model : w->model,
                     .precision = w->precision,
                     .batch = w->batch_per_gpu,
                     .grad_bytes = w->grad_bytes_per_param,
                     .gpu_model = w->ref_gpu_model,
                     .gpu_flops = w->ref_gpu_flops,
                     .optimizer_s = w->optimizer_s};
  cJSON* layers = NULL;
  cJSON* j = cal_workload_json(&cw, &layers);
  cJSON* ref = cJSON_GetObjectItemCaseSensitive(j, "reference");
  cJSON_AddNumberToObject(ref, "memory_gbytes_per_s", w->ref_bytes_per_s / 1e9);
  cJSON_AddNumberToObject(ref, "sm_count", w->ref_sm_count);
  for (int l = 0; l < w->nlayers; l++)
    layer_json(layers, &w->layers[l]);
  cal_workload_dataset(j, &w->dataset);
  cJSON_AddStringToObject(j, "optimizer", "adamw");
  cJSON_AddBoolToObject(j, "activation_checkpointing", 0);
  cJSON_AddBoolToObject(j, "measured_times", 0);
  const ss_transformer* tf = &w->tf;
  cJSON* t = cJSON_AddObjectToObject(j, "transformer");
  const struct {
    const char* key;
    double v;
  } ints[] = {{"layers", tf->layers}, {"hidden", tf->hidden}, {"heads", tf->heads}, {"kv_heads", tf->kv_heads},
              {"ffn", tf->ffn},       {"seq", tf->seq},       {"vocab", tf->vocab}};
  for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); k++)
    cJSON_AddNumberToObject(t, ints[k].key, ints[k].v);
  cJSON_AddBoolToObject(t, "gated_ffn", tf->gated_ffn);
  cJSON_AddBoolToObject(t, "tied_embeddings", tf->tied);
  if (tf->head_dim > 0)
    cJSON_AddNumberToObject(t, "head_dim", tf->head_dim);
  if (w->max_positions > 0)
    cJSON_AddNumberToObject(t, "max_positions", w->max_positions);
  cJSON_AddBoolToObject(t, "learned_positions", w->learned_positions);
  if (tf->moe.experts > 0) {
    cJSON* m = cJSON_AddObjectToObject(t, "moe");
    const ss_moe* e = &tf->moe;
    const struct {
      const char* key;
      double v;
    } moe[] = {{"experts", e->experts},       {"top_k", e->top_k},           {"expert_ffn", e->expert_ffn},
               {"shared_ffn", e->shared_ffn}, {"first_moe_layer", e->first}, {"moe_every", e->every},
               {"moe_phase", e->phase}};
    for (size_t k = 0; k < sizeof(moe) / sizeof(moe[0]); k++)
      cJSON_AddNumberToObject(m, moe[k].key, moe[k].v);
  }
  if (tf->mla.kv_lora > 0) {
    cJSON* m = cJSON_AddObjectToObject(t, "mla");
    cJSON_AddNumberToObject(m, "q_lora", tf->mla.q_lora);
    cJSON_AddNumberToObject(m, "kv_lora", tf->mla.kv_lora);
    cJSON_AddNumberToObject(m, "rope_dim", tf->mla.rope_dim);
    cJSON_AddNumberToObject(m, "v_dim", tf->mla.v_dim);
  }
  if (tf->window > 0) {
    cJSON* m = cJSON_AddObjectToObject(t, "local_attention");
    cJSON_AddNumberToObject(m, "window", tf->window);
    cJSON_AddBoolToObject(m, "chunked", tf->window_chunked);
    cJSON_AddNumberToObject(m, "full_every", tf->full_every);
    cJSON_AddNumberToObject(m, "full_phase", tf->full_phase);
  }
  cJSON* p = cJSON_AddObjectToObject(j, "provenance");
  char s[1024];
  snprintf(s, sizeof(s),
           "WRITTEN by stash-calibrate hf from %s: the workload stash-sim makes of the config (sim/hfconfig.c, "
           "sim/workload.c build_from_config), at sequence %d",
           path, tf->seq);
  cJSON_AddStringToObject(p, "written", s);
  cJSON_AddStringToObject(p, "layers",
                          "DERIVED from the config: parameters and tensors as the family's modeling file registers "
                          "them; FLOPs per sequence of the matrix products and of the whole S x S attention, "
                          "backward twice; activations kept as tfkernels.h counts them at eager attention; no "
                          "measured times (measured_times false): the kernel model times the layers");
  cJSON_AddStringToObject(p, "optimizer_s",
                          "ESTIMATE: ResNet-50's measured SGD step per parameter on the V100 reference, twice for "
                          "AdamW (calibration/gen_models.py)");
  cJSON_AddStringToObject(p, "dataset",
                          "CHOICE: a token stream of RedPajama-Data-1T's 1.21e12 tokens, a sample a sequence "
                          "(workloads/llama2-7b-seq4096.json's provenance gives the source)");
  return j;
}

/* A cal_cli run function. */
static int hf_run(void* args, int nfiles, char** files, ss_err* err)
{
  const hf_args* a = args;
  if (nfiles != 1)
    return cal_usage_error("hf", "expected one config.json, got %s", nfiles == 0 ? "none" : "more");
  const char* path = files[0];
  const cal_named inputs[1] = {{"the config", path}};
  if (cal_check_output("hf", "-o", a->output, inputs, 1))
    return 2;
  ss_workload* w = NULL;
  ss_layer* layers = NULL;
  cJSON* j = NULL;
  int status = SS_EINPUT;
  if (ss_workload_load(path, &w, err))
    goto done;
  if (!w->from_config) {
    status = ss_err_set(err, path, 0, "not a Hugging Face config.json (it has a \"schema\": a stash-sim workload)");
    goto done;
  }
  ss_workload at = *w;
  if (a->seq > 0 && a->seq != w->tf.seq) {
    if (w->learned_positions && a->seq > w->max_positions) {
      status = ss_err_set(err, path, 0, "--seq %lld is beyond the model's %d learned positions", a->seq,
                          w->max_positions);
      goto done;
    }
    ss_transformer tf = w->tf;
    tf.seq = (int)a->seq;
    if (!(layers = calloc((size_t)w->nlayers, sizeof(ss_layer)))) {
      status = ss_err_nomem(err);
      goto done;
    }
    ss_tf_workload(w, &tf, SS_ATTENTION_EAGER, 0, SS_RECOMPUTE_NONE, &at, layers);
  }
  j = workload_json(path, &at, a);
  /* What is written must be a workload the simulator takes: a refusal names the config. */
  status = cal_write_workload(j, a->output, path, err);
done:
  cJSON_Delete(j);
  free(layers);
  ss_workload_free(w);
  return status;
}

static const cal_cli hf_cli = {"hf", hf_help, options, hf_option, hf_run};

int cal_hf_main(int argc, char** argv)
{
  hf_args a = {0};
  return cal_cli_main(&hf_cli, argc, argv, &a);
}
