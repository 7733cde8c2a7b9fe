/* fuzz_workload: libFuzzer target of the workload reader (sim/workload.c): any bytes, plain or
 * gzip, must give a workload that keeps the documented ranges, or one input error; never a crash,
 * a leak or unbounded memory. */
#include "fuzz_input.h"
#include "transformer.h"
#include "workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Whether a is within 5% of b (the loader's tolerance of the transformer block). */
static int near(double a, double b)
{
  return fabs(a / b - 1) <= 0.05;
}

/* A transformer block as docs/formats.md promises it: its sizes in range and dividing as they must,
 * the layers the embedding, layers_per_block entries per transformer layer and the output layer,
 * their params (all, and each transformer layer's, a mixture of experts' with its experts) and with
 * the work keys their forward FLOPs within 5% of the block's. */
static void check_transformer(const ss_workload* w)
{
  const ss_transformer* t = &w->tf;
  const int sizes[] = {t->layers, t->hidden, t->heads, t->kv_heads, t->ffn, t->seq};
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
    ss_assert(sizes[k] >= 1 && sizes[k] <= 1000000);
  ss_assert(t->vocab >= 1 && t->vocab <= 10000000);
  ss_assert(t->hidden % t->heads == 0 && t->heads % t->kv_heads == 0);
  ss_assert(w->layers_per_block >= 1 && w->nlayers == 2 + (long)t->layers * w->layers_per_block);
  double all = 0, fwd = 0;
  for (int i = 0; i < w->nlayers; i++)
    all += w->layers[i].params, fwd += w->layers[i].fwd_flops;
  ss_assert(near(all, ss_transformer_params(t)));
  for (int b = 0; b < t->layers; b++) {
    double got = 0;
    for (int e = 0; e < w->layers_per_block; e++)
      got += w->layers[1 + b * w->layers_per_block + e].params;
    ss_assert(near(got, ss_transformer_layer_params_at(t, b)));
  }
  /* A mixture of experts: a token's experts among them, some layer a mixture of them. */
  ss_assert(t->moe.experts == 0 ||
            (t->moe.top_k >= 1 && t->moe.top_k <= t->moe.experts && ss_transformer_moe_layers(t) > 0));
  ss_assert(!w->has_work || near(fwd, ss_transformer_model_flops(t, 1) / 3));
}

/* The ranges docs/formats.md promises to the simulator. */
static void check_workload(const ss_workload* w)
{
  ss_assert(w->nlayers >= 1 && w->layers);
  ss_assert(w->batch_per_gpu >= 1 && w->ref_batch >= 1);
  ss_assert(w->grad_bytes_per_param > 0 && w->grad_bytes_per_param <= 8);
  ss_assert(isfinite(w->ref_gpu_flops) && w->ref_gpu_flops > 0);
  double total = w->optimizer_s;
  for (int i = 0; i < w->nlayers; i++) {
    const ss_layer* l = &w->layers[i];
    ss_assert(l->name && l->name[0]);
    ss_assert(l->fwd_s >= 0 && l->fwd_s <= 3600 && l->bwd_s >= 0 && l->bwd_s <= 3600);
    ss_assert(l->params >= 0 && l->params == floor(l->params));
    /* Activation checkpointing: in no block (-1), or a block's input, or 0 inside the block before. */
    ss_assert(l->ckpt_bytes == -1 || (l->ckpt_bytes > 0 && l->ckpt_bytes <= 1e13) ||
              (l->ckpt_bytes == 0 && i > 0 && l[-1].ckpt_bytes >= 0));
    total += l->fwd_s + l->bwd_s;
  }
  ss_assert(total > 0);
  ss_assert(!w->activation_checkpointing || w->has_ckpt);
  ss_assert(w->dataset.samples >= 1 && w->dataset.bytes_per_sample > 0 && w->dataset.decoded_bytes_per_sample > 0);
  for (int i = 0; i < w->ndevices; i++) {
    const ss_device* d = &w->devices[i];
    ss_assert(isfinite(d->fwd_ratio) && d->fwd_ratio > 0 && isfinite(d->bwd_ratio) && d->bwd_ratio > 0);
    ss_assert(isfinite(d->total_ratio) && d->total_ratio > 0);
    ss_assert(ss_workload_device(w, d->gpu_model) == d);
  }
  ss_assert(isfinite(ss_workload_grad_bytes(w)));
  if (w->has_transformer)
    check_transformer(w);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  ss_err err;
  ss_workload* w = NULL;
  if (fuzz_loaded(ss_workload_load(fuzz_input(data, size, &err), &w, &err), &err))
    check_workload(w);
  ss_workload_free(w);
  return 0;
}
