/* memory: one GPU's memory while training, part by part, and the check that it fits. */
#include "memory.h"

#include "shard.h"

#include <math.h>
#include <stdio.h>

#define GIB 1073741824.0

/* The parts' sum. */
static double memory_total(const ss_memory* m)
{
  return m->parameters + m->gradients + m->optimizer + m->activations + m->buffers + m->reserve;
}

double ss_memory_optimizer_bytes_per_param(ss_optimizer o)
{
  /* torch.optim.SGD keeps a momentum_buffer per parameter only with momentum; torch.optim.Adam and
   * AdamW keep exp_avg and exp_avg_sq (zeros_like the parameter: FP32), amsgrad off. */
  switch (o) {
    case SS_OPT_SGD: return 0;
    case SS_OPT_SGD_MOMENTUM: return 4;
    case SS_OPT_ADAM:
    case SS_OPT_ADAMW: return 8;
  }
  ss_assert(0);
  return 0;
}

/* Bytes a sample of layer y keeps for its backward pass: act_bytes (at amp/bf16 act_bytes_half, else
 * x SS_MEMORY_ACT_HALF); with its block checkpointed (ckpt), its ckpt_bytes instead. */
static double kept_bytes(const ss_layer* y, int half, int ckpt)
{
  double full = ckpt ? y->ckpt_bytes : y->act_bytes, own_half = ckpt ? y->ckpt_bytes_half : y->act_bytes_half;
  return !half ? full : own_half >= 0 ? own_half : full * SS_MEMORY_ACT_HALF;
}

/* Activation bytes per sample of workload w: every layer's kept bytes; with checkpointing (ckpt), the
 * checkpointed layers' ckpt_bytes, plus the whole activations of the largest checkpointed block (a
 * layer with ckpt_bytes > 0 and the layers with 0 after it), which its backward recomputes and holds. */
static double activation_bytes(const ss_workload* w, int half, int ckpt)
{
  double kept = 0, block = 0, largest = 0;
  for (int l = 0; l < w->nlayers; l++) {
    const ss_layer* y = &w->layers[l];
    int in_block = ckpt && y->ckpt_bytes >= 0;
    kept += kept_bytes(y, half, in_block);
    block = in_block ? (y->ckpt_bytes > 0 ? 0 : block) + kept_bytes(y, half, 0) : 0;
    largest = block > largest ? block : largest;
  }
  return kept + largest;
}

void ss_memory_compute(const ss_workload* w, int batch, int half, int ckpt, double buffers_bytes, double capacity_bytes,
                       ss_memory* out)
{
  double params = 0, cast = 0;
  for (int l = 0; l < w->nlayers; l++) {
    const ss_layer* y = &w->layers[l];
    params += y->params;
    if (y->fwd_flops > 0) /* a convolution or matrix product: autocast casts its weights */
      cast += y->params;
  }
  ss_memory m = {0};
  m.parameters = params * 4 + (half ? cast * SS_MEMORY_CAST_BYTES : 0) +
                 (half == SS_MEMORY_FP8 ? cast * SS_MEMORY_FP8_BYTES : 0);
  m.gradients = params * w->grad_bytes_per_param;
  m.optimizer = params * ss_memory_optimizer_bytes_per_param(w->optimizer);
  m.activations = activation_bytes(w, half, ckpt) * batch;
  m.buffers = buffers_bytes;
  m.reserve = SS_MEMORY_RESERVE_BYTES;
  m.total = memory_total(&m);
  m.capacity = capacity_bytes;
  *out = m;
}

/* Unit u's parameters gathered, in the sharded collectives' dtype (0: no unit). */
static double unit_bytes(const ss_memory_in* j, int u)
{
  return u >= 0 && u < j->nunits ? j->units[u].params * j->shard_bytes_per_param : 0;
}

/* The wrapping unit with the most parameters (the first of them), or -1 without units. */
static int largest_unit(const ss_memory_in* j)
{
  int big = -1;
  for (int u = 0; u < j->nunits; u++)
    if (big < 0 || j->units[u].params > j->units[big].params)
      big = u;
  return big;
}

double ss_memory_buffers_bytes(const ss_memory_in* j)
{
  if (j->nbuckets == 0 || j->o->arch != SS_ARCH_ALLREDUCE)
    return 0;
  /* DeepSpeed ZeRO-1/2: the gradients are reduced through one flat bucket of reduce_bucket_size
   * elements (stage_1_and_2.py @v0.12.3: torch.empty(reduce_bucket_size) for the contiguous
   * gradients), or the largest of the buckets when they are all smaller. */
  if (ss_shard_mode_of(j->o->shard)->grads == SS_GRADS_ZERO_BUCKETS) {
    double largest = 0;
    for (int b = 0; b < j->nbuckets; b++)
      largest = fmax(largest, j->buckets[b].bytes);
    return largest;
  }
  /* Horovod allocates one fusion buffer of HOROVOD_FUSION_THRESHOLD bytes the first time it fuses
   * (horovod docs/tensor-fusion.rst); 0 turns fusion off. */
  if (ss_ddp_of(j->o->ddp)->one_buffer)
    return j->o->fusion_mib * 1048576.0;
  /* PyTorch DDP: its reducer's bucket buffers hold a copy of every gradient unless
   * gradient_as_bucket_view=True (off by default; pytorch/pytorch#41954: views save the gradients'
   * size). apex: each bucket flattened into a new tensor, kept until backward's end: ASSUMED the same. */
  double bytes = 0;
  for (int b = 0; b < j->nbuckets; b++)
    bytes += j->buckets[b].bytes;
  return bytes;
}

int ss_memory_of(const ss_memory_in* j, ss_memory* out)
{
  double capacity = j->capacity_bytes;
  if (!(capacity > 0) || !j->workload->has_work)
    return 0;
  ss_memory_compute(j->workload, j->batch, j->half, j->ckpt, ss_memory_buffers_bytes(j), capacity, out);
  /* ZeRO-1 divides the optimizer state among the GPUs, ZeRO-2 the gradients too (each GPU keeps
   * the reduced part it owns); the sums are then as computed above. */
  const ss_shard_mode* mode = ss_shard_mode_of(j->o->shard);
  if (mode->divides && mode->units == SS_UNITS_NONE && j->ngpus > 1) {
    if (mode->divides & SS_STATE_OPTIMIZER)
      out->optimizer /= j->ngpus;
    if (mode->divides & SS_STATE_GRADIENTS)
      out->gradients /= j->ngpus;
    out->total = memory_total(out);
  }
  /* ZeRO-3 and FSDP divide all three among the shard group; each GPU keeps its FP32 shard of the
   * parameters and holds the gathered ones (in the model's dtype: no autocast copies) while they
   * are used, prefetched or kept (wrap.c's peak); FSDP also a unit's unsharded gradient until its
   * reduce-scatter (the largest unit's; every unit's under --accum-no-sync), ZeRO-3 its bucket (the
   * buffers). */
  if (mode->units != SS_UNITS_NONE && j->ngpus > 1) {
    const ss_workload* w = j->workload;
    double params = 0, g = j->shard_group;
    for (int l = 0; l < w->nlayers; l++)
      params += w->layers[l].params;
    out->parameters = params * 4 / g + j->gathered_peak;
    /* FP8: the gathered weights' FP8 copies with their transposes while they are used. */
    if (j->half == SS_MEMORY_FP8 && j->shard_bytes_per_param > 0)
      out->parameters += j->gathered_peak * SS_MEMORY_FP8_BYTES / j->shard_bytes_per_param;
    /* Under no_sync() (--accum-no-sync) the accumulated micro-batches keep every unit's gradient
     * unsharded until the last one's reduce-scatters. */
    double unsharded = j->o->accum_no_sync ? params * j->shard_bytes_per_param : unit_bytes(j, largest_unit(j));
    out->gradients = params * w->grad_bytes_per_param / g + (mode->grads == SS_GRADS_UNITS ? unsharded : 0);
    out->optimizer /= g;
    out->total = memory_total(out);
  }
  return 1;
}

void ss_memory_parts_text(const ss_memory* m, char* buf, size_t size)
{
  snprintf(buf, size, "parameters %.1f, gradients %.1f, optimizer %.1f, activations %.1f, buffers %.1f, reserve %.1f",
           m->parameters / GIB, m->gradients / GIB, m->optimizer / GIB, m->activations / GIB, m->buffers / GIB,
           m->reserve / GIB);
}

int ss_memory_check(const ss_memory_in* j, const ss_memory* m, ss_err* err)
{
  if (m->total <= m->capacity || j->o->ignore_memory)
    return SS_OK;
  /* A unit that cannot be gathered at all, whatever the batch: named. */
  int u = largest_unit(j);
  double alone = 2 * unit_bytes(j, u) + m->reserve;
  if (u >= 0 && alone > m->capacity) {
    const ss_unit* un = &j->units[u];
    char what[192];
    if (un->root)
      snprintf(what, sizeof(what), "the root unit (%.4g parameters in layers under --wrap-params %.4g)", un->params,
               j->o->wrap_params);
    else
      snprintf(what, sizeof(what), "the unit of layer '%s' (%.4g parameters)",
               j->workload->layers[un->first_layer].name, un->params);
    return ss_err_set(
        err, j->workload->path, 0, "%s needs %.1f GiB gathered with its gradient, more than the %.4g GiB of a %s: %s",
        what, alone / GIB, m->capacity / GIB, j->gpu_model,
        ss_shard_mode_of(j->o->shard)->units == SS_UNITS_WRAP ? "wrap smaller units (--wrap-params)"
                                                              : "ZeRO-3 gathers a layer whole on every GPU");
  }
  char parts[256];
  ss_memory_parts_text(m, parts, sizeof(parts));
  return ss_err_set(err, j->workload->path, 0,
                    "needs %.1f GiB of %.4g GiB on a %s (%s): give a smaller --batch, or --ignore-memory",
                    m->total / GIB, m->capacity / GIB, j->gpu_model, parts);
}
