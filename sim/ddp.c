/* ddp: the data-parallel framework's collectives and their costs. */
#include "ddp.h"

#include "job.h"

#include <math.h>
#include <stdlib.h>

/* Host seconds per collective call and per gradient tensor, by framework: ESTIMATES, as no public
 * measurement of either was found (calibration/host_costs.md, section 4), from a measured ~4 us per
 * eager CUDA operator and 4-5 us per raw kernel launch (9 us with the profiler on):
 * - PyTorch: the C++ reducer's hook launches one copy into the bucket and one back (2 launches,
 *   10 us per tensor); a bucket's allreduce call through ProcessGroupNCCL, about 5 operators (20 us);
 * - apex: a Python hook per tensor plus its unflatten copy (about 6 operators, 25 us); per bucket the
 *   Python flatten, allreduce, scale and unflatten calls (about 15 operators, 60 us);
 * - Horovod: a Python hook per tensor that enqueues it (15 us); the fusion's call (20 us) is made
 *   by the background thread, off the training process's thread. */
static const struct {
  double collective_s;
  double tensor_s;
  int background;
} costs[SS_DDP_COUNT] = {
    [SS_DDP_PYTORCH] = {20e-6, 10e-6, 0},
    [SS_DDP_APEX] = {60e-6, 25e-6, 0},
    [SS_DDP_HOROVOD] = {20e-6, 15e-6, 1},
};

double ss_ddp_collective_host_s(ss_ddp d)
{
  ss_assert(d >= 0 && d < SS_DDP_COUNT);
  return costs[d].collective_s;
}

double ss_ddp_tensor_host_s(ss_ddp d)
{
  ss_assert(d >= 0 && d < SS_DDP_COUNT);
  return costs[d].tensor_s;
}

int ss_ddp_background(ss_ddp d)
{
  ss_assert(d >= 0 && d < SS_DDP_COUNT);
  return costs[d].background;
}

/* The bucket being filled, opened at layer l if none is. */
static ss_bucket* open_bucket(ss_job* j, ss_bucket* cur, int l)
{
  if (cur)
    return cur;
  cur = &j->buckets[j->nbuckets++];
  cur->first_layer = l;
  return cur;
}

/* PyTorch DDP: gradients in backward order fill a bucket until it reaches its cap (first bucket
 * 1 MiB, then bucket_mib MiB); a layer is never split. A cap of 0 gives one bucket per layer (no
 * fusion), as ASTRA-sim's per-layer data-parallel workloads do. */
static void pytorch_buckets(ss_job* j)
{
  const ss_workload* w = j->workload;
  double cap = j->opt.bucket_mib > 0 ? SS_DDP_FIRST_BUCKET_BYTES : 0;
  ss_bucket* cur = NULL;
  for (int l = w->nlayers - 1; l >= 0; l--) {
    double bytes = w->layers[l].params * w->grad_bytes_per_param;
    if (bytes <= 0)
      continue;
    cur = open_bucket(j, cur, l);
    cur->bytes += bytes;
    cur->ntensors += w->layers[l].ntensors;
    cur->last_layer = l;
    if (cur->bytes >= cap) {
      cur = NULL;
      cap = j->opt.bucket_mib * 1024.0 * 1024.0;
    }
  }
}

/* apex DDP: the parameter tensors, in the order backward makes their gradients (the layers last to
 * first, a layer's tensors last to first), fill a bucket that ships once it holds message_size
 * elements; the last one ships at the end of backward. */
static void apex_buckets(ss_job* j)
{
  const ss_workload* w = j->workload;
  ss_bucket* cur = NULL;
  double elements = 0;
  for (int l = w->nlayers - 1; l >= 0; l--)
    for (int t = w->layers[l].ntensors - 1; t >= 0; t--) {
      cur = open_bucket(j, cur, l);
      cur->bytes += w->layers[l].tensors[t] * w->grad_bytes_per_param;
      cur->ntensors++;
      cur->last_layer = l;
      elements += w->layers[l].tensors[t];
      if (elements >= j->opt.message_size) {
        cur = NULL;
        elements = 0;
      }
    }
}

/* Horovod: the background thread wakes every cycle_ms and fuses the tensors whose gradients are
 * ready by then (in the order they became ready) into buffers of at most fusion_mib MiB (a larger
 * tensor alone). A gradient is ready when its layer's backward ends on the GPU (nominal times, from
 * the start of backward); a fusion starts no earlier than its cycle (ss_bucket.start_s). */
static void horovod_buckets(ss_job* j)
{
  const ss_workload* w = j->workload;
  double cycle = j->opt.cycle_ms * 1e-3, cap = j->opt.fusion_mib * 1048576.0;
  double speed = j->platform->gpus[0].speed_flops, ready = 0;
  ss_bucket* cur = NULL;
  for (int l = w->nlayers - 1; l >= 0; l--) {
    ready += j->bwd_flops[l] / speed;
    double tick = cycle > 0 ? ceil(ready / cycle) * cycle : ready;
    for (int t = w->layers[l].ntensors - 1; t >= 0; t--) {
      double bytes = w->layers[l].tensors[t] * w->grad_bytes_per_param;
      if (cur && (cur->start_s != tick || cur->bytes + bytes > cap))
        cur = NULL;
      cur = open_bucket(j, cur, l);
      cur->start_s = tick;
      cur->bytes += bytes;
      cur->ntensors++;
      cur->last_layer = l;
    }
  }
}

/* DeepSpeed ZeRO: gradients in backward order fill a bucket of reduce_bucket_size elements
 * (SS_ZERO_BUCKET_ELEMENTS; no small first bucket) of the model's dtype (shard_bytes_per_param), a
 * layer never split (DeepSpeed never splits a parameter: a bucket about to overflow is reduced first). */
static void zero_buckets(ss_job* j)
{
  const ss_workload* w = j->workload;
  double cap = SS_ZERO_BUCKET_ELEMENTS * j->shard_bytes_per_param;
  ss_bucket* cur = NULL;
  for (int l = w->nlayers - 1; l >= 0; l--) {
    double bytes = w->layers[l].params * j->shard_bytes_per_param;
    if (bytes <= 0)
      continue;
    if (cur && cur->bytes + bytes > cap)
      cur = NULL;
    cur = open_bucket(j, cur, l);
    cur->bytes += bytes;
    cur->ntensors += w->layers[l].ntensors;
    cur->last_layer = l;
  }
}

int ss_ddp_buckets(ss_job* j)
{
  const ss_workload* w = j->workload;
  /* At most one bucket per parameter tensor (and per layer). */
  j->buckets = calloc((size_t)w->ntensors + (size_t)w->nlayers, sizeof(ss_bucket));
  if (!j->buckets)
    return SS_ENOMEM;
  ss_shard_grads grads = ss_shard_mode_of(j->opt.shard)->grads;
  if (grads == SS_GRADS_UNITS)
    return SS_OK; /* FSDP reduces each unit's gradients (wrap.c) */
  if (grads == SS_GRADS_ZERO_BUCKETS)
    zero_buckets(j);
  else if (j->opt.ddp == SS_DDP_APEX)
    apex_buckets(j);
  else if (j->opt.ddp == SS_DDP_HOROVOD)
    horovod_buckets(j);
  else
    pytorch_buckets(j);
  return SS_OK;
}
