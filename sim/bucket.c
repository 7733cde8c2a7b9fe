/* bucket: how the gradients become collectives: the data-parallel framework's buckets (PyTorch DDP's
 * bucket cap, apex DDP's message size, Horovod's tensor fusion) or DeepSpeed ZeRO's. */
#include "bucket.h"

#include "err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The buckets being made. */
typedef struct fill {
  const ss_workload* w;
  const ss_options* o;
  const double* bwd_s;    /* [layer]: backward seconds on the job's GPU (Horovod's readiness) */
  double bytes_per_param; /* the sharded modes' buckets' */
  ss_bucket* buckets;
  int nbuckets;
} fill;

/* The bucket being filled, opened at layer l if none is. */
static ss_bucket* open_bucket(fill* j, ss_bucket* cur, int l)
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
static void pytorch_buckets(fill* j)
{
  const ss_workload* w = j->w;
  double cap = j->o->bucket_mib > 0 ? SS_DDP_FIRST_BUCKET_BYTES : 0;
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
      cap = j->o->bucket_mib * 1024.0 * 1024.0;
    }
  }
}

/* apex DDP: the parameter tensors, in the order backward makes their gradients (the layers last to
 * first, a layer's tensors last to first), fill a bucket that ships once it holds message_size
 * elements; the last one ships at the end of backward. */
static void apex_buckets(fill* j)
{
  const ss_workload* w = j->w;
  ss_bucket* cur = NULL;
  double elements = 0;
  for (int l = w->nlayers - 1; l >= 0; l--)
    for (int t = w->layers[l].ntensors - 1; t >= 0; t--) {
      cur = open_bucket(j, cur, l);
      cur->bytes += w->layers[l].tensors[t] * w->grad_bytes_per_param;
      cur->ntensors++;
      cur->last_layer = l;
      elements += w->layers[l].tensors[t];
      if (elements >= j->o->message_size) {
        cur = NULL;
        elements = 0;
      }
    }
}

/* Horovod: the background thread wakes every cycle_ms and fuses the tensors whose gradients are
 * ready by then (in the order they became ready) into buffers of at most fusion_mib MiB (a larger
 * tensor alone). A gradient is ready when its layer's backward ends on the GPU (nominal times, from
 * the start of backward); a fusion starts no earlier than its cycle (ss_bucket.start_s). */
static void horovod_buckets(fill* j)
{
  const ss_workload* w = j->w;
  double cycle = j->o->cycle_ms * 1e-3, cap = j->o->fusion_mib * 1048576.0;
  double ready = 0;
  ss_bucket* cur = NULL;
  for (int l = w->nlayers - 1; l >= 0; l--) {
    ready += j->bwd_s[l];
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
static void zero_buckets(fill* j)
{
  const ss_workload* w = j->w;
  double cap = SS_ZERO_BUCKET_ELEMENTS * j->bytes_per_param;
  ss_bucket* cur = NULL;
  for (int l = w->nlayers - 1; l >= 0; l--) {
    double bytes = w->layers[l].params * j->bytes_per_param;
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

/* The buckets' rule of each framework as the report says it. */
static void pytorch_describe(const ss_options* o, char* buf, size_t size)
{
  if (o->bucket_mib > 0)
    snprintf(buf, size, "of up to %g MiB", o->bucket_mib);
  else
    snprintf(buf, size, "(one per layer)");
}

static void apex_describe(const ss_options* o, char* buf, size_t size)
{
  snprintf(buf, size, "(apex DDP, message size %g element%s)", o->message_size,
           o->message_size <= 1 ? ": one per parameter tensor" : "s");
}

static void horovod_describe(const ss_options* o, char* buf, size_t size)
{
  snprintf(buf, size, "(Horovod fusions of up to %g MiB every %g ms)", o->fusion_mib, o->cycle_ms);
}

/* Each framework's variant: how it fills its buckets, and how the report says so. */
static const struct {
  void (*fill)(fill*);
  void (*describe)(const ss_options*, char*, size_t);
} frameworks[SS_DDP_COUNT] = {
    [SS_DDP_PYTORCH] = {pytorch_buckets, pytorch_describe},
    [SS_DDP_APEX] = {apex_buckets, apex_describe},
    [SS_DDP_HOROVOD] = {horovod_buckets, horovod_describe},
};

int ss_bucket_make(const ss_workload* w, const ss_options* o, const double* bwd_s, double bytes_per_param,
                   ss_bucket** out, int* n)
{
  /* At most one bucket per parameter tensor (and per layer). */
  fill f = {w, o, bwd_s, bytes_per_param, calloc((size_t)w->ntensors + (size_t)w->nlayers, sizeof(ss_bucket)), 0};
  if (!f.buckets)
    return SS_ENOMEM;
  ss_shard_grads grads = ss_shard_mode_of(o->shard)->grads;
  if (grads == SS_GRADS_ZERO_BUCKETS)
    zero_buckets(&f);
  else if (grads == SS_GRADS_FRAMEWORK)
    frameworks[o->ddp].fill(&f);
  /* else FSDP reduces each unit's gradients (wrap.c): no buckets. */
  *out = f.buckets;
  *n = f.nbuckets;
  return SS_OK;
}

void ss_bucket_describe(const ss_options* o, char* buf, size_t size)
{
  if (ss_shard_sharded(o->shard))
    snprintf(buf, size, "(%s, of up to %.0f million elements)", ss_shard_mode_of(o->shard)->label,
             SS_ZERO_BUCKET_ELEMENTS / 1e6);
  else
    frameworks[o->ddp].describe(o, buf, size);
}
