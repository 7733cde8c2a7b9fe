/* job: what to simulate, validated and derived. */
#include "job.h"

#include "array.h"
#include "ddp.h"
#include "price.h"
#include "proto.h"
#include "roofline.h"
#include "units.h"
#include "wrap.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ss_job_shard_host(const ss_job* j, int k)
{
  ss_assert(j->opt.arch == SS_ARCH_PS && k >= 0 && k < j->opt.servers);
  return k % j->ps_hosts;
}

/* One piece of a layer's gradient for the sharding below. */
typedef struct ps_piece {
  int layer;
  int shard;
  double bytes;
} ps_piece;

/* The first of the np pieces (in layer order) of layer or a later one: a bucket's pieces are found
 * by a search, not a scan of them all (a scan per bucket is quadratic with a bucket per layer). */
static int first_piece(const ps_piece* pieces, int np, int layer)
{
  int lo = 0, hi = np;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (pieces[mid].layer < layer)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Split the parameters over the shards as TensorFlow's greedy load balancing does: each layer, in
 * forward order, to the least-loaded shard (ties: the first); a layer larger than a shard's share
 * is cut into equal pieces first, as TensorFlow's partitioners and BytePS do. Then each bucket's
 * pieces become one part per shard. */
static int make_ps_parts(ss_job* j)
{
  const ss_workload* w = j->workload;
  int k = j->opt.servers;
  double total = 0;
  for (int l = 0; l < w->nlayers; l++)
    total += w->layers[l].params * w->grad_bytes_per_param;
  double share = total / k;
  int npieces = 0;
  for (int l = 0; l < w->nlayers; l++) {
    double bytes = w->layers[l].params * w->grad_bytes_per_param;
    npieces += bytes > share ? (int)ceil(bytes / share) : 1;
  }
  ps_piece* pieces = calloc((size_t)npieces + 1, sizeof(ps_piece));
  j->ps_shard_bytes = calloc((size_t)k, sizeof(double));
  j->ps_bucket_part0 = calloc((size_t)j->nbuckets + 1, sizeof(int));
  j->ps_part_shard = calloc((size_t)npieces + 1, sizeof(int));
  j->ps_part_bytes = calloc((size_t)npieces + 1, sizeof(double));
  double* acc = calloc((size_t)k, sizeof(double));
  if (!pieces || !j->ps_shard_bytes || !j->ps_bucket_part0 || !j->ps_part_shard || !j->ps_part_bytes || !acc) {
    free(pieces);
    free(acc);
    return SS_ENOMEM;
  }
  int np = 0;
  for (int l = 0; l < w->nlayers; l++) {
    double bytes = w->layers[l].params * w->grad_bytes_per_param;
    int cuts = bytes > share ? (int)ceil(bytes / share) : 1;
    for (int c = 0; c < cuts; c++) {
      int best = 0;
      for (int s = 1; s < k; s++)
        if (j->ps_shard_bytes[s] < j->ps_shard_bytes[best])
          best = s;
      pieces[np++] = (ps_piece){l, best, bytes / cuts};
      j->ps_shard_bytes[best] += bytes / cuts;
    }
  }
  /* A bucket holds layers first_layer down to last_layer; its part for a shard sums its pieces. */
  int nparts = 0;
  for (int b = 0; b < j->nbuckets; b++) {
    j->ps_bucket_part0[b] = nparts;
    for (int p = first_piece(pieces, np, j->buckets[b].last_layer);
         p < np && pieces[p].layer <= j->buckets[b].first_layer; p++)
      acc[pieces[p].shard] += pieces[p].bytes;
    for (int s = 0; s < k; s++)
      if (acc[s] > 0) {
        j->ps_part_shard[nparts] = s;
        j->ps_part_bytes[nparts++] = acc[s];
        acc[s] = 0;
      }
  }
  j->ps_bucket_part0[j->nbuckets] = nparts;
  j->ps_nparts = nparts;
  free(pieces);
  free(acc);
  return SS_OK;
}

/* The first GPU (in use) that reaches the network by NIC k, after `after` (-1: any), or -1. */
static int gpu_of_nic(const ss_job* j, int k, int after)
{
  for (int g = after + 1; g < j->gpus_per_instance; g++)
    if (ss_platform_gpu_nic(j->platform, g) == k)
      return g;
  return -1;
}

/* NCCL's channels between instances with several NICs (docs/model.md, "Several NICs"): two per NIC
 * (its search puts one channel on each NIC at a speed within the NIC's width, then doubles them),
 * channel c entering each instance at the first GPU of NIC c mod nics and leaving it from that NIC's
 * last GPU, or where a NIC has one GPU from the first GPU of the next NIC (PXN sends through the
 * NIC of another GPU: each NIC then carries one channel's way out and another's way in); the other
 * GPUs between them in the order of the first ring inside the instance; equal shares. */
static int nic_rings(ss_job* j)
{
  const ss_platform* p = j->platform;
  int g = j->gpus_per_instance, n = j->ngpus, nics = p->nnics, nr = 2 * nics;
  if (nr > SS_TOPO_MAX_CHANNELS)
    nr = SS_TOPO_MAX_CHANNELS;
  j->rings.nranks = n;
  j->rings.nrings = nr;
  for (int c = 0; c < nr; c++) {
    int k = c % nics, entry = gpu_of_nic(j, k, -1), exit = entry >= 0 ? gpu_of_nic(j, k, entry) : -1;
    if (exit < 0)
      exit = gpu_of_nic(j, (k + 1) % nics, -1);
    ss_ring* r = &j->rings.rings[c];
    r->share = 1.0 / nr;
    r->bandwidth_bytes_per_s = j->intra.rings[0].bandwidth_bytes_per_s / nr;
    r->order = malloc(sizeof(int) * (size_t)n);
    if (!r->order)
      return SS_ENOMEM;
    int* chain = malloc(sizeof(int) * (size_t)g);
    if (!chain)
      return SS_ENOMEM;
    int len = 0;
    chain[len++] = entry;
    for (int i = 0; i < g; i++) {
      int q = j->intra.rings[0].order[i];
      if (q != entry && q != exit)
        chain[len++] = q;
    }
    chain[len++] = exit;
    ss_assert(len == g);
    for (int i = 0; i < n; i++)
      r->order[i] = i / g * g + chain[i % g];
    free(chain);
  }
  return SS_OK;
}

/* Whether the rings across instances are NCCL's channels through every NIC (nic_rings): several
 * instances, several NICs each, every GPU in use with one, not --ideal or --no-multi-nic. */
int ss_job_nic_rings(const ss_job* j)
{
  const ss_platform* p = j->platform;
  if (j->instances < 2 || p->nnics < 2 || j->opt.ideal || !j->opt.multi_nic || j->gpus_per_instance < 2)
    return 0;
  for (int k = 0; k < p->nnics; k++)
    if (gpu_of_nic(j, k, -1) < 0)
      return 0;
  return 1;
}

int ss_job_ring_pipelined(const ss_job* j)
{
  return j->opt.ring_pipeline && !j->opt.ideal;
}

/* The rings among all ranks: per instance, each intra ring cut into a chain, chains joined; or
 * NCCL's channels through every NIC. */
static int global_rings(ss_job* j)
{
  if (ss_job_nic_rings(j))
    return nic_rings(j);
  int g = j->gpus_per_instance, n = j->ngpus;
  j->rings.nranks = n;
  j->rings.nrings = j->intra.nrings;
  for (int c = 0; c < j->intra.nrings; c++) {
    ss_ring* r = &j->rings.rings[c];
    r->share = j->intra.rings[c].share;
    r->bandwidth_bytes_per_s = j->intra.rings[c].bandwidth_bytes_per_s;
    r->order = malloc(sizeof(int) * (size_t)n);
    if (!r->order)
      return SS_ENOMEM;
    for (int i = 0; i < n; i++)
      r->order[i] = i / g * g + j->intra.rings[c].order[i % g];
  }
  return SS_OK;
}

/* Checks that need the platform: --gpus within the instance, a NIC for clusters. */
static int check_cluster(const ss_platform* p, const ss_options* o, ss_err* err)
{
  if (o->gpus > p->ngpus && p->tray_gpus > 0)
    return ss_err_set(err, p->path, 0,
                      "--gpus %d cannot be placed on %s: its NVLink domain holds %d GPUs (%d trays of %d); a larger "
                      "job takes several with --instances (EFA between them), or a larger UltraServer",
                      o->gpus, p->instance_type, p->ngpus, p->ngpus / p->tray_gpus, p->tray_gpus);
  if (o->gpus > p->ngpus)
    return ss_err_set(err, p->path, 0, "--gpus expects a whole number from 1 to %d for %s, got %d", p->ngpus,
                      p->instance_type, o->gpus);
  int g = o->gpus > 0 ? o->gpus : p->ngpus;
  if ((long)g * o->instances > SS_MAX_GPUS)
    return ss_err_set(err, NULL, 0, "--instances %d x %d GPUs = %ld GPUs; at most %d are supported", o->instances, g,
                      (long)g * o->instances, SS_MAX_GPUS);
  if (o->instances > 1 && p->nnics == 0)
    return ss_err_set(err, p->path, 0,
                      "--instances %d needs a NIC in the instance file (a class-nic link and a <router> of the "
                      "same name with a route from every GPU)",
                      o->instances);
  if (o->init_io != SS_INIT_NONE && o->instances > 1 && p->nnics == 0)
    return ss_err_set(err, p->path, 0, "--init-io over several instances needs a NIC in the instance file");
  if (o->arch == SS_ARCH_PS && o->placement == SS_PS_DEDICATED && p->nnics == 0)
    return ss_err_set(err, p->path, 0,
                      "dedicated parameter servers need a NIC in the instance file (a class-nic link and a "
                      "<router> of the same name with a route from every GPU)");
  return SS_OK;
}

/* The GPU's earliest end after the host starts issuing n operators of h_i host and g_i GPU seconds
 * (the GPU runs each once issued, in order): max over k of h_1 + ... + h_k + g_k + ... + g_n. */
typedef struct pipe {
  double host, gpu; /* sums so far */
  double end;       /* the earliest end so far */
  double last_gpu;  /* the last operator's GPU time */
} pipe;

static void pipe_add(pipe* p, double h, double g)
{
  p->host += h;
  p->end = fmax(p->end + g, p->host + g);
  p->gpu += g;
  p->last_gpu = g;
}

/* n operators sharing h and g equally (the optimizer's, one per parameter tensor). */
static void pipe_add_even(pipe* p, double h, double g, int n)
{
  if (n <= 1) {
    pipe_add(p, h, g);
    return;
  }
  /* Equal operators: the end is reached at the first or the last operator. */
  double host = p->host + h, first = fmax(p->end, p->host + h / n) + g;
  p->host = host;
  p->end = fmax(first, host + g / n);
  p->gpu += g;
  p->last_gpu = g / n;
}

static ss_segment* seg_open(ss_job* j, ss_seg_kind kind, pipe* p)
{
  ss_segment* g = &j->segs[j->nsegs++];
  g->kind = kind;
  g->first_layer = g->last_layer = -1;
  g->gate = g->unit = -1;
  *p = (pipe){0, 0, 0, 0};
  return g;
}

static void seg_close(ss_segment* g, const pipe* p)
{
  g->host_s = p->host;
  g->lag_s = p->end - p->gpu;
  g->tail_s = p->last_gpu;
}

/* Bucket b's collective launched at the end of segment g: the flatten copy on the GPU, the call on
 * the host (call_s: 0 when a background thread makes it). */
static void seg_launch(const ss_job* j, ss_segment* g, pipe* p, int b, double call_s, double speed)
{
  double copy_s = SS_DDP_COPY_BEFORE * j->buckets[b].bytes * j->copy_s_per_byte;
  g->flops += copy_s * speed;
  pipe_add(p, call_s, copy_s);
  g->launches += 3;
}

/* Launches of a layer's forward (its parameter tensors, at least one; twice that in backward), of
 * a collective (flatten, allreduce, scale) and of the optimizer (one per tensor): ESTIMATES that
 * only size the launch queue (docs/model.md). */
static double layer_launches(const ss_layer* y)
{
  return y->ntensors > 1 ? y->ntensors : 1;
}

/* Whether layer l's forward runs again in its backward: activation checkpointing is on and the layer
 * is in a checkpointed block (docs/model.md, "Activation checkpointing"). */
static int recomputed(const ss_job* j, int l)
{
  return j->ckpt && j->workload->layers[l].ckpt_bytes >= 0;
}

/* The recomputed forwards' launches, added to the backward segment that holds each layer once the
 * segments are made (the GPU and host work are in the layers' figures already: ss_job_new,
 * host_side). */
static void recompute_launches(ss_job* j)
{
  for (int s = 0; j->ckpt && s < j->nsegs; s++) {
    ss_segment* g = &j->segs[s];
    for (int l = g->last_layer; g->kind == SS_SEG_BACKWARD && l >= 0 && l <= g->first_layer; l++)
      g->launches += recomputed(j, l) ? layer_launches(&j->workload->layers[l]) : 0;
  }
}

int ss_job_colls_per_iter(const ss_job* j)
{
  return j->ncolls;
}

int ss_job_seg_colls(const ss_job* j)
{
  return j->ncolls - j->npost - j->nmetric;
}

/* Append a collective to j->colls. */
static ss_coll_spec* add_coll(ss_job* j, ss_coll_kind kind, ss_coll_op op, ss_coll_scope scope, int index, double bytes)
{
  return ss_sched_add(j->colls, &j->ncolls, j->colls_cap, kind, op, scope, index, bytes);
}

void ss_coll_name(const ss_job* j, int c, char* buf, size_t size)
{
  const ss_coll_spec* s = &j->colls[c];
  char units[48];
  if (s->last != s->index)
    snprintf(units, sizeof(units), "units %d-%d", s->index, s->last);
  else
    snprintf(units, sizeof(units), "unit %d%s", s->index,
             j->nunits > 0 && s->index < j->nunits && j->units[s->index].root ? " (root)" : "");
  switch (s->kind) {
    case SS_CK_BUCKET: snprintf(buf, size, "%s bucket %d", ss_coll_op_name(s->op), s->index); return;
    case SS_CK_GATHER:
      snprintf(buf, size, "all-gather %s for %s%s", units, s->bwd ? "backward" : "forward",
               s->prefetch ? " (prefetch)" : "");
      return;
    case SS_CK_REDUCE: snprintf(buf, size, "reduce-scatter %s", units); return;
    case SS_CK_REPLICA: snprintf(buf, size, "allreduce %s across instances", units); return;
    case SS_CK_PARAMS: snprintf(buf, size, "all-gather parameters %d", s->index); return;
    case SS_CK_METRIC: snprintf(buf, size, "allreduce metric %d", s->index); return;
  }
  ss_assert(0);
}

/* The collectives after the step: the parameters' all-gathers (npost), the metric allreduces. */
static void add_post_colls(ss_job* j)
{
  for (int k = 0; k < j->npost; k++)
    add_coll(j, SS_CK_PARAMS, SS_OP_ALL_GATHER, SS_SCOPE_ALL, k, j->post_bytes[k]);
  for (int k = 0; k < j->nmetric; k++)
    add_coll(j, SS_CK_METRIC, SS_OP_ALLREDUCE, SS_SCOPE_ALL, k, SS_METRIC_BYTES);
}

/* How many of a step's micro-batches reduce their gradients: all of them where the mode reduces after
 * every micro-batch (ZeRO-2 and 3, FSDP without --accum-no-sync: shard.h), else the last. */
int ss_job_micro_reductions(const ss_job* j)
{
  return ss_shard_mode_of(j->opt.shard)->reduce_each_micro && !j->opt.accum_no_sync ? j->accum : 1;
}

/* The collectives of an iteration without wrapping units: the buckets (the mode's collective: ZeRO-2
 * reduces each to the GPUs that own its parts, a reduce-scatter's traffic), each micro-batch's where
 * every one reduces, then those after the step. */
static int bucket_colls(ss_job* j)
{
  int passes = ss_job_micro_reductions(j);
  j->colls_cap = passes * j->nbuckets + j->npost + j->nmetric + 1;
  j->colls = calloc((size_t)j->colls_cap, sizeof(ss_coll_spec));
  if (!j->colls)
    return SS_ENOMEM;
  ss_coll_op op = ss_shard_mode_of(j->opt.shard)->bucket_op;
  for (int k = 0; k < passes; k++)
    for (int b = 0; b < j->nbuckets; b++)
      add_coll(j, SS_CK_BUCKET, op, SS_SCOPE_ALL, b, j->buckets[b].bytes);
  add_post_colls(j);
  return SS_OK;
}

/* ZeRO stages 1 and 2: after the step every GPU all-gathers the updated partitions of the
 * parameters, in the model's dtype, as max(1, floor(P / allgather_bucket_size)) equal all-gathers
 * (deepspeed/runtime/utils.py @v0.12.3, all_gather_dp_groups: num_shards = max(1, partition numel x
 * world size // allgather_bucket_size), dist.all_gather on the default stream: the next forward
 * waits for them). */
static int zero_post(ss_job* j)
{
  const ss_workload* w = j->workload;
  double params = 0;
  for (int l = 0; l < w->nlayers; l++)
    params += w->layers[l].params;
  if (!(params > 0))
    return SS_OK;
  int n = (int)fmax(1, floor(params / SS_ZERO_BUCKET_ELEMENTS));
  j->post_bytes = calloc((size_t)n, sizeof(double));
  if (!j->post_bytes)
    return SS_ENOMEM;
  j->npost = n;
  for (int k = 0; k < n; k++)
    j->post_bytes[k] = params / n * j->shard_bytes_per_param;
  return SS_OK;
}

/* The gradient buckets (bucket.h), from the layers' backward times on the job's GPU. */
static int make_buckets(ss_job* j)
{
  int nl = j->workload->nlayers;
  double speed = j->platform->gpus[0].speed_flops;
  double* bwd_s = calloc((size_t)nl + 1, sizeof(double));
  if (!bwd_s)
    return SS_ENOMEM;
  for (int l = 0; l < nl; l++)
    bwd_s[l] = j->bwd_flops[l] / speed;
  int rc = ss_bucket_make(j->workload, &j->opt, bwd_s, j->shard_bytes_per_param, &j->buckets, &j->nbuckets);
  free(bwd_s);
  return rc;
}

/* One iteration's segments (ss_segment) from the layers and buckets, with the GPU work summed in
 * the order the trainer always has (forward at once; backward from the last layer, cut where a
 * collective launches), then the host's figures for each (host_opt_s: the optimizer's). */
/* A forward pass of every layer as one segment. */
static void forward_segment(ss_job* j, double speed)
{
  const ss_workload* w = j->workload;
  pipe p;
  ss_segment* g = seg_open(j, SS_SEG_FORWARD, &p);
  g->first_layer = 0;
  g->last_layer = w->nlayers - 1;
  g->flops = j->fwd_total_flops;
  for (int l = 0; l < w->nlayers; l++) {
    pipe_add(&p, j->host_fwd_s[l], j->fwd_flops[l] / speed);
    g->launches += layer_launches(&w->layers[l]);
  }
  seg_close(g, &p);
}

/* One micro-batch's backward, its buckets launched as the mode launches them, their collectives from
 * off (the micro-batch's first in j->colls). */
static void backward_buckets(ss_job* j, int off, double speed, double hook)
{
  const ss_workload* w = j->workload;
  int nl = w->nlayers, b = 0, chunk = nl - 1;
  pipe p;
  /* The mode's buckets go out as backward fills them (unless --no-overlap), on side streams or not. */
  int in_backward = j->opt.overlap && ss_shard_mode_of(j->opt.shard)->bucket_in_backward;
  int side_streams = ss_shard_overlap_comm(j->opt.shard, j->opt.overlap_comm);
  double pending = 0;
  /* The collective calls on the training process's thread (Horovod's are on its background thread). */
  double call_s = ss_ddp_of(j->opt.ddp)->background ? 0 : j->collective_host_s;
  ss_segment* g = seg_open(j, SS_SEG_BACKWARD, &p);
  for (int l = nl - 1; l >= 0; l--) {
    pending += j->bwd_flops[l];
    pipe_add(&p, j->host_bwd_s[l] + hook * w->layers[l].ntensors, j->bwd_flops[l] / speed);
    g->launches += 2 * layer_launches(&w->layers[l]);
    /* ZeRO-1 reduces the gradients after backward (no hooks: stage_1_and_2.py @v0.12.3). */
    while (in_backward && b < j->nbuckets && j->buckets[b].last_layer == l) {
      if (chunk >= l) {
        g->first_layer = chunk;
        g->last_layer = l;
        chunk = l - 1;
      }
      g->flops = pending;
      seg_launch(j, g, &p, b, call_s, speed);
      g->bucket0 = off + b++;
      g->nlaunch = 1;
      /* ZeRO-2 reduces each bucket on the default stream (overlap_comm off): backward waits for it. */
      g->wait_after = !side_streams;
      seg_close(g, &p);
      pending = 0;
      g = seg_open(j, SS_SEG_BACKWARD, &p);
    }
  }
  if (chunk >= 0) {
    g->first_layer = chunk;
    g->last_layer = 0;
  }
  g->flops = pending;
  g->bucket0 = off + b;
  g->nlaunch = j->nbuckets - b;
  for (; b < j->nbuckets; b++)
    seg_launch(j, g, &p, b, call_s, speed);
  seg_close(g, &p);
}

static int make_segments(ss_job* j, double host_opt_s)
{
  const ss_workload* w = j->workload;
  int nl = w->nlayers, reduce_each = ss_job_micro_reductions(j) > 1;
  double speed = j->platform->gpus[0].speed_flops;
  j->segs = calloc(((size_t)j->nbuckets + 3) * (size_t)j->accum + 1, sizeof(ss_segment));
  if (!j->segs)
    return SS_ENOMEM;
  pipe p;
  ss_segment* g;
  double hook = j->nbuckets > 0 ? j->tensor_host_s : 0;
  /* Gradient accumulation: the micro-batches before the last run forward and backward without
   * reducing (PyTorch DDP's no_sync(): its hooks return at once; ZeRO-1 reduces at the boundary),
   * the last one as without it; or each as the last where the mode reduces every micro-batch
   * (ZeRO-2), its buckets' collectives its own. */
  for (int k = 0; k + 1 < j->accum; k++) {
    forward_segment(j, speed);
    if (reduce_each) {
      backward_buckets(j, k * j->nbuckets, speed, hook);
      continue;
    }
    g = seg_open(j, SS_SEG_BACKWARD, &p);
    g->first_layer = nl - 1;
    g->last_layer = 0;
    for (int l = nl - 1; l >= 0; l--) {
      g->flops += j->bwd_flops[l];
      pipe_add(&p, j->host_bwd_s[l] + hook * w->layers[l].ntensors, j->bwd_flops[l] / speed);
      g->launches += 2 * layer_launches(&w->layers[l]);
    }
    seg_close(g, &p);
  }
  forward_segment(j, speed);
  backward_buckets(j, reduce_each ? (j->accum - 1) * j->nbuckets : 0, speed, hook);
  g = seg_open(j, SS_SEG_OPTIMIZER, &p);
  g->flops = j->opt_flops;
  pipe_add_even(&p, host_opt_s, j->opt_flops / speed, w->ntensors);
  /* The metric allreduces are called after the step. */
  for (int k = 0; k < j->nmetric; k++)
    pipe_add(&p, j->collective_host_s, 0);
  g->launches = (w->ntensors > 1 ? w->ntensors : 1) + 3.0 * j->nmetric;
  seg_close(g, &p);
  return SS_OK;
}

/* One pass's collectives (ss_chunk_use) on segment g: issued at its start and at its end (the
 * framework's call on the host each), its gate. */
static void seg_uses(const ss_job* j, ss_segment* g, pipe* p, const ss_chunk_use* u, int before)
{
  if (before) {
    g->before0 = u->before0;
    g->nbefore = u->nbefore;
    g->gate = u->gate;
    pipe_add(p, j->collective_host_s * u->nbefore, 0);
    g->launches += u->nbefore;
    return;
  }
  g->bucket0 = u->after0;
  g->nlaunch = u->nafter;
  /* ZeRO-3 without overlap_comm reduces on the default stream: the next segment waits. */
  g->wait_after = !ss_shard_overlap_comm(j->opt.shard, j->opt.overlap_comm);
  pipe_add(p, j->collective_host_s * u->nafter, 0);
  g->launches += u->nafter;
}

/* With wrapping units (--shard zero3, fsdp-*): for each micro-batch a forward segment per chunk, then
 * a backward one per chunk in reverse, each issuing and waiting for its pass's collectives (wrap.c),
 * then the optimizer. */
static int unit_segments(ss_job* j, double host_opt_s)
{
  const ss_workload* w = j->workload;
  double speed = j->platform->gpus[0].speed_flops;
  j->segs = calloc(2 * (size_t)j->nchunks * (size_t)j->accum + 1, sizeof(ss_segment));
  if (!j->segs)
    return SS_ENOMEM;
  pipe p;
  for (int micro = 0; micro < j->accum; micro++) {
    const ss_chunk* chunks = j->accum_chunks ? j->accum_chunks + (size_t)micro * j->nchunks : j->chunks;
    for (int pass = 0; pass < 2; pass++)
      for (int k = 0; k < j->nchunks; k++) {
        const ss_chunk* c = &chunks[pass ? j->nchunks - 1 - k : k];
        ss_segment* g = seg_open(j, pass ? SS_SEG_BACKWARD : SS_SEG_FORWARD, &p);
        const ss_chunk_use* u = pass ? &c->bwd : &c->fwd;
        g->unit = c->unit;
        g->first_layer = pass ? c->last_layer : c->first_layer;
        g->last_layer = pass ? c->first_layer : c->last_layer;
        seg_uses(j, g, &p, u, 1);
        for (int l = c->first_layer; l <= c->last_layer; l++) {
          int y = pass ? c->last_layer - (l - c->first_layer) : l;
          double flops = pass ? j->bwd_flops[y] : j->fwd_flops[y];
          g->flops += flops;
          pipe_add(&p, pass ? j->host_bwd_s[y] : j->host_fwd_s[y], flops / speed);
          g->launches += (pass ? 2 : 1) * layer_launches(&w->layers[y]);
        }
        seg_uses(j, g, &p, u, 0);
        seg_close(g, &p);
      }
  }
  ss_segment* g = seg_open(j, SS_SEG_OPTIMIZER, &p);
  g->flops = j->opt_flops;
  pipe_add_even(&p, host_opt_s, j->opt_flops / speed, w->ntensors);
  for (int k = 0; k < j->npost + j->nmetric; k++)
    pipe_add(&p, j->collective_host_s, 0);
  g->launches = (w->ntensors > 1 ? w->ntensors : 1) + 3.0 * j->nmetric;
  seg_close(g, &p);
  return SS_OK;
}

/* A use's collectives of micro-batch k into the new list: each copied unless dropped (a reduction of a
 * micro-batch under no_sync), the use re-pointed at the copies. map: old index to new, -1 dropped. */
static void copy_use(const ss_coll_spec* old, ss_coll_spec* colls, int* n, int* map, ss_chunk_use* u, int drop)
{
  int b0 = -1, nb = 0, a0 = -1, na = 0;
  for (int c = u->before0; c < u->before0 + u->nbefore; c++) {
    map[c] = (*n)++;
    colls[map[c]] = old[c];
    b0 = b0 < 0 ? map[c] : b0;
    nb++;
  }
  for (int c = u->after0; c < u->after0 + u->nafter; c++) {
    int reduction = old[c].kind == SS_CK_REDUCE || old[c].kind == SS_CK_REPLICA || old[c].kind == SS_CK_BUCKET;
    if (drop && reduction) {
      map[c] = -1;
      continue;
    }
    map[c] = (*n)++;
    colls[map[c]] = old[c];
    a0 = a0 < 0 ? map[c] : a0;
    na++;
  }
  u->before0 = b0 < 0 ? 0 : b0;
  u->nbefore = nb;
  u->after0 = a0 < 0 ? 0 : a0;
  u->nafter = na;
}

/* Gradient accumulation over wrapping units: every micro-batch's passes issue the collectives of one
 * iteration's walk (wrap.c), each its own; under --accum-no-sync the micro-batches before the last
 * drop their reductions (FSDP's no_sync()). The collectives are laid out in issue order, micro-batch by
 * micro-batch; j->accum_chunks holds each one's chunks. SS_OK or SS_ENOMEM. */
static int accumulate_units(ss_job* j)
{
  int n1 = j->ncolls, nc = j->nchunks, cap = j->accum * n1 + j->npost + j->nmetric + 1, n = 0;
  ss_coll_spec* colls = calloc((size_t)cap, sizeof(ss_coll_spec));
  ss_chunk* chunks = calloc((size_t)j->accum * (size_t)nc, sizeof(ss_chunk));
  int* map = malloc(sizeof(int) * (size_t)(n1 + 1));
  if (!colls || !chunks || !map) {
    SS_FREE_ALL(colls, chunks, map);
    return SS_ENOMEM;
  }
  for (int k = 0; k < j->accum; k++) {
    for (int c = 0; c <= n1; c++)
      map[c] = -2; /* not met yet */
    int drop = j->opt.accum_no_sync && k + 1 < j->accum;
    ss_chunk* mine = chunks + (size_t)k * nc;
    memcpy(mine, j->chunks, sizeof(ss_chunk) * (size_t)nc);
    /* In issue order: each chunk's forward, then each chunk's backward in reverse. */
    for (int pass = 0; pass < 2; pass++)
      for (int i = 0; i < nc; i++) {
        ss_chunk* c = &mine[pass ? nc - 1 - i : i];
        ss_chunk_use* u = pass ? &c->bwd : &c->fwd;
        int gate = u->gate;
        copy_use(j->colls, colls, &n, map, u, drop);
        /* A gate is a gather issued before it, in this micro-batch: never dropped. */
        ss_assert(gate < 0 || map[gate] >= 0);
        u->gate = gate >= 0 ? map[gate] : -1;
      }
    /* Every collective of the walk is issued by one pass, once. */
    for (int c = 0; c < n1; c++)
      ss_assert(map[c] != -2);
  }
  free(map);
  free(j->colls);
  j->colls = colls;
  j->ncolls = n;
  j->colls_cap = cap;
  j->accum_chunks = chunks;
  return SS_OK;
}

/* The sharded modes' units and their collectives (wrap.h), from the buckets and the metrics made
 * before; then the collectives after the step. */
static int wrap_units(ss_job* j)
{
  ss_wrap_in in = {j->workload, &j->opt, j->instances, j->buckets, j->nbuckets, j->shard_bytes_per_param, j->nmetric};
  ss_wrap out;
  int rc = ss_wrap_plan(&in, &out);
  if (rc)
    return rc;
  j->units = out.units;
  j->nunits = out.nunits;
  j->chunks = out.chunks;
  j->nchunks = out.nchunks;
  j->colls = out.colls;
  j->ncolls = out.ncolls;
  j->colls_cap = out.colls_cap;
  j->post_bytes = out.post_bytes;
  j->npost = out.npost;
  j->gathered_peak = out.gathered_peak;
  rc = j->accum > 1 ? accumulate_units(j) : SS_OK;
  if (!rc)
    add_post_colls(j);
  return rc;
}

/* The host side's figures (docs/model.md, "The host side"), each 0 when its mechanism is off
 * (--ideal switches every one off). */
static int host_side(ss_job* j)
{
  const ss_workload* w = j->workload;
  const ss_platform* p = j->platform;
  ss_options* o = &j->resolved; /* the switches as used: --ideal turns them off */
  if (o->ideal)
    o->launch = o->framework = o->staging = o->handoff = o->call_cost = o->interference = 0;
  int nl = w->nlayers;
  j->host_fwd_s = calloc((size_t)nl, sizeof(double));
  j->host_bwd_s = calloc((size_t)nl, sizeof(double));
  j->bucket_post_s = calloc((size_t)j->nbuckets + 1, sizeof(double));
  if (!j->host_fwd_s || !j->host_bwd_s || !j->bucket_post_s)
    return SS_ENOMEM;
  /* Host times are the reference instance's CPU's, or a device entry's ratio of them. */
  double host_ratio = j->device ? j->device->host_ratio : 1;
  double host_opt_s = o->launch ? w->host_optimizer_s * host_ratio : 0;
  for (int l = 0; o->launch && l < nl; l++) {
    j->host_fwd_s[l] = w->layers[l].host_fwd_s * host_ratio;
    j->host_bwd_s[l] = w->layers[l].host_bwd_s * host_ratio + (recomputed(j, l) ? j->host_fwd_s[l] : 0);
  }
  if (o->framework && (j->nbuckets > 0 || (ss_shard_has_units(o->shard) && j->ngpus > 1)) &&
      o->arch == SS_ARCH_ALLREDUCE) {
    j->collective_host_s = o->collective_host_us >= 0 ? o->collective_host_us * 1e-6 : ss_ddp_of(o->ddp)->collective_s;
    j->tensor_host_s = o->tensor_host_us >= 0 ? o->tensor_host_us * 1e-6 : ss_ddp_of(o->ddp)->tensor_s;
    double bw = p->gpus[0].memory_bytes_per_s;
    j->copy_s_per_byte = bw > 0 ? 1 / bw : 0;
  }
  for (int b = 0; b < j->nbuckets; b++)
    j->bucket_post_s[b] = SS_DDP_COPY_AFTER * j->buckets[b].bytes * j->copy_s_per_byte;
  j->nmetric = j->ngpus > 1 && o->arch == SS_ARCH_ALLREDUCE ? o->metric_allreduces : 0;
  /* The training process copies the batch: synthetic data made in host memory, or a batch it loaded
   * or took from a worker without the loaders copying ahead. Pageable memory stages through a
   * pinned buffer: one core's memcpy of every byte, alongside the DMA. */
  if (o->synthetic == SS_SYNTH_HOST)
    j->copy_bytes = (double)j->batch * j->accum *
                    (o->synthetic_sample_bytes > 0 ? o->synthetic_sample_bytes : w->dataset.decoded_bytes_per_sample);
  else if (!o->synthetic && (!o->async_copy || j->workers == 0))
    j->copy_bytes = j->h2d_bytes;
  if (o->staging && j->copy_bytes > 0 && p->memcpy_bytes_per_s > 0)
    j->staging_s = j->copy_bytes / p->memcpy_bytes_per_s;
  /* PyTorch's DataLoader hands its batches over; DALI's pipeline (--async-copy) delivers them on the GPU. */
  if (o->handoff && !o->synthetic && j->workers > 0 && !o->async_copy)
    j->handoff_s = o->handoff_us >= 0 ? o->handoff_us * 1e-6 : SS_HANDOFF_S;
  o->collective_host_us = j->collective_host_s * 1e6;
  o->tensor_host_us = j->tensor_host_s * 1e6;
  o->handoff_us = j->handoff_s * 1e6;
  /* Compute slowed by collectives: NCCL's kernels share the GPU; none without NCCL (parameter
   * servers push through the CPU), without collectives (one GPU) or on CPU training processes. */
  if (o->interference && o->arch == SS_ARCH_ALLREDUCE && j->ngpus > 1 && !p->compute_on_cpu)
    j->interference = o->comm_interference >= 0 ? o->comm_interference : p->gpus[0].comm_interference;
  o->comm_interference = j->interference;
  double host_s = 0;
  for (int l = 0; l < nl; l++)
    host_s += j->host_fwd_s[l] + j->host_bwd_s[l];
  j->host = host_s > 0 || host_opt_s > 0 || j->collective_host_s > 0 || j->tensor_host_s > 0 ||
            j->copy_s_per_byte > 0 || j->staging_s > 0 || j->handoff_s > 0 || j->nmetric > 0 || o->cuda_sync ||
            o->synthetic == SS_SYNTH_HOST;
  if (ss_shard_has_units(o->shard) && j->ngpus > 1) {
    int rc = wrap_units(j);
    return rc ? rc : unit_segments(j, host_opt_s);
  }
  int rc = bucket_colls(j);
  return rc ? rc : make_segments(j, host_opt_s);
}

/* The options as the job uses them: every value derived from the inputs filled in (the network's
 * figures come with the derivation: derive.c). */
static void resolve_options(ss_job* j)
{
  ss_options* r = &j->resolved;
  *r = j->opt;
  r->gpus = j->gpus_per_instance;
  r->batch = j->batch;
  r->workers = j->workers;
  r->cache = j->cache;
  r->warmup = j->warmup;
  r->iterations = j->iterations;
  r->server_hosts = j->opt.arch == SS_ARCH_PS ? j->ps_hosts : j->opt.server_hosts;
  r->samples = j->opt.samples > 0 ? j->opt.samples : j->workload->dataset.samples;
  r->checkpoint_activations = j->ckpt ? SS_CKPT_ON : SS_CKPT_OFF;
  if (r->ideal)
    r->jitter = 0; /* stragglers are a mechanism of the realistic model */
  r->ring_pipeline = ss_job_ring_pipelined(j);
}

unsigned ss_job_needs_had(const ss_job* j, char* net, size_t size)
{
  const ss_options* o = &j->opt;
  ss_net_transport t = j->net_transport;
  int ena = j->platform->nic_vendor == SS_NIC_ENA;
  unsigned had = ss_options_had(o, SS_CMD_RUN) & ~(unsigned)(SS_NEEDS_SOCKET | SS_NEEDS_TCP);
  if (t == SS_NET_SOCKET)
    had |= SS_NEEDS_SOCKET;
  if (ena && (t == SS_NET_SOCKET || o->arch == SS_ARCH_PS))
    had |= SS_NEEDS_TCP;
  if (t == SS_NET_SOCKET && !ena)
    snprintf(net, size, "NCCL runs its socket transport through a NIC that is not AWS's ENA");
  else
    snprintf(net, size, "NCCL runs over %s", t == SS_NET_OFF ? "the NIC links as they are" : ss_net_names[t]);
  return had;
}

/* The network transport as simulated (docs/model.md, "Network transports"): the option's, or the
 * instance file's for auto; off with --ideal. The file's own figures hold for the file's transport. */
static void resolve_net(ss_job* j)
{
  const ss_platform* p = j->platform;
  ss_net_transport file = p->net_transport == SS_NET_AUTO ? SS_NET_OFF : p->net_transport;
  ss_net_transport t = j->opt.net_transport == SS_NET_AUTO ? file : j->opt.net_transport;
  if (j->opt.ideal)
    t = SS_NET_OFF;
  j->net_transport = t;
  j->net = ss_net_default(t);
  /* EFA of a known generation under today's stack (NCCL 2.18 on, aws-ofi-nccl 1.7 on: net.h). */
  if (t == SS_NET_EFA && t == file && p->efa_version > 0 && j->opt.nccl_version >= SS_NCCL_2_18)
    j->net = ss_net_efa(p->efa_version);
  if (t == file && t != SS_NET_OFF) {
    if (p->net_line_fraction > 0)
      j->net.line_fraction = p->net_line_fraction;
    if (p->net_message_us >= 0)
      j->net.message_us = p->net_message_us;
  }
  j->resolved.net_transport = t;
  /* The tree's share of the line rate, where the transport has one of its own (net.h). */
  j->tree_wire = 1;
  if (j->net.tree_fraction > 0 && j->net.line_fraction > 0)
    j->tree_wire = j->net.tree_fraction / j->net.line_fraction;
  j->nvls_tree_wire = j->tree_wire;
  if (j->net.nvls_tree_fraction > 0 && j->net.line_fraction > 0 && j->instances > 2)
    j->nvls_tree_wire = j->net.nvls_tree_fraction / j->net.line_fraction;
  j->nvls_share = j->opt.nvls && !j->opt.ideal && !ss_job_nvls_lacks(j, NULL, 0)
                      ? ss_proto_nvls_share(ss_job_gpu_arch(j))
                      : 0;
  /* Flows between instances (docs/model.md, "Flows between instances"): NCCL's socket transport opens
   * its sockets per connection; on AWS's ENA each TCP flow is capped. A parameter server's connection
   * is one TCP flow whatever NCCL's transport. */
  const ss_options* o = &j->opt;
  int ps = o->arch == SS_ARCH_PS;
  j->net_sockets = t == SS_NET_SOCKET
                       ? (o->nccl_sockets > 0 ? o->nccl_sockets : ss_nccl_sockets(o->nccl_version, p->nic_vendor))
                       : 0;
  j->flow_cap_bytes_per_s = 0;
  if (o->flow_cap && !o->ideal && p->nic_vendor == SS_NIC_ENA && (t == SS_NET_SOCKET || ps))
    j->flow_cap_bytes_per_s = (o->placement_group == 0 ? SS_NET_FLOW_GBPS_IN_GROUP : SS_NET_FLOW_GBPS_OUTSIDE) * 1e9 /
                              8;
  j->conn_cap_bytes_per_s = j->flow_cap_bytes_per_s * (ps ? SS_NET_PS_SOCKETS : j->net_sockets);
  j->resolved.nccl_sockets = j->net_sockets > 0 ? j->net_sockets : -1;
  /* The socket transport's threads on the CPUs (docs/model.md, "The socket transport's CPU"): the
   * release's, no more than its sockets (--nccl-sockets). */
  j->sock_threads = 0;
  j->sock_send_flops_per_byte = j->sock_recv_flops_per_byte = 0;
  double per_gb = o->socket_cpu_s_per_gb >= 0 ? o->socket_cpu_s_per_gb : SS_NET_SOCKET_RECV_CPU_S_PER_GB;
  if (j->net_sockets > 0 && o->socket_cpu && !o->ideal && per_gb > 0) {
    int threads = ss_nccl_socket_threads(o->nccl_version, p->nic_vendor);
    j->sock_threads = threads < j->net_sockets ? threads : j->net_sockets;
    j->sock_recv_flops_per_byte = per_gb * SS_REF_CORE_FLOPS / 1e9;
    j->sock_send_flops_per_byte = SS_NET_SOCKET_SEND_SHARE * j->sock_recv_flops_per_byte;
  }
  j->resolved.socket_cpu_s_per_gb = j->sock_threads > 0 ? per_gb : 0;
}

int ss_job_stage_nic_mates(const ss_job* j, int k, int* out, int max)
{
  int coord[SS_DIM_COUNT] = {0};
  coord[SS_DIM_PP] = k;
  int g = j->gpus_per_instance, r = ss_layout_rank(&j->mp.layout, coord), inst = r / g, n = 0;
  int nic = ss_platform_gpu_nic(j->platform, r % g);
  for (int l = 0; l < g && n < max; l++) {
    ss_layout_coords(&j->mp.layout, inst * g + l, coord);
    if (coord[SS_DIM_PP] == k && ss_platform_gpu_nic(j->platform, l) == nic) {
      if (out)
        out[n] = inst * g + l;
      n++;
    }
  }
  return n;
}

/* The GPUs' architecture (ss_job_gpu_arch) from the platform. */
static int gpu_arch(const ss_platform* p)
{
  int arch = ss_proto_arch(p->gpus[0].model);
  for (int g = 1; g < p->ngpus; g++)
    if (ss_proto_arch(p->gpus[g].model) != arch)
      return 0;
  return arch;
}

int ss_job_gpu_arch(const ss_job* j)
{
  return j->gpu_arch;
}

int ss_job_nvls_lacks(const ss_job* j, char* why, size_t size)
{
  const ss_platform* p = j->platform;
  int nvswitch = 0, arch = ss_job_gpu_arch(j);
  for (int l = 0; l < p->nlinks; l++)
    nvswitch |= p->links[l].cls == SS_LINK_NVSWITCH;
  ss_nccl need = j->instances < 2 ? SS_NCCL_2_17 : j->net_transport == SS_NET_EFA ? SS_NCCL_2_19 : SS_NCCL_2_18;
  const char* r = j->gpus_per_instance < 2           ? "one GPU per instance has no NVLink to reduce over"
                  : !nvswitch                        ? "the instance's GPUs share no NVSwitch"
                  : !(ss_proto_nvls_share(arch) > 0) ? "NVLS needs GPUs of Hopper or later, all alike"
                  : j->opt.nccl_version < need
                      ? (j->instances < 2                 ? "NVLS came with NCCL 2.17"
                         : j->net_transport == SS_NET_EFA ? "NCCL runs NVLS over EFA from 2.19 (aws-ofi-nccl)"
                                                          : "NCCL's NVLS tree across instances came with 2.18")
                      : NULL;
  if (r && why)
    snprintf(why, size, "%s", r);
  return r != NULL;
}

/* The instances simulated of a cluster of m under options o (ss_job_sim_instances). */
static int sim_instances(const ss_options* o, int m)
{
  if (!o->symmetry || o->fidelity == SS_FIDELITY_REFERENCE || m <= SS_SYMMETRY_INSTANCES)
    return m;
  /* Hosts that serve every instance (parameter servers, the start-up reads' storage) see the whole
   * cluster's load; a trace shows every instance. */
  if (o->arch == SS_ARCH_PS || o->init_io != SS_INIT_NONE || o->trace)
    return m;
  /* An all-to-all's GPUs send to every instance's. */
  if (o->bench_op == SS_OP_ALL_TO_ALL)
    return m;
  /* An oversubscribed core carries the flows of every instance: scaled to the instances simulated,
   * it gives each flow of a ring its share (m flows cross it, one per instance), not each flow of
   * a tree (m - 1 edges per tree). */
  if (o->oversub > 1 &&
      (o->allreduce == SS_ALLREDUCE_TREE || o->allreduce == SS_ALLREDUCE_AUTO || o->allreduce == SS_ALLREDUCE_FASTEST))
    return m;
  return SS_SYMMETRY_INSTANCES;
}

int ss_job_sim_instances(const ss_job* j)
{
  if (j->mp.on)
    return j->instances; /* the stages of one replica span the cluster */
  return sim_instances(&j->opt, j->instances);
}

/* The simulated processes fit (SS_MAX_ACTORS): per_gpu of them per GPU (its GPU stream and
 * collective stream, and its host thread when the host side is simulated), its loaders, the servers. */
static int check_actors(const ss_options* o, int ngpus, int per_gpu, int workers, ss_err* err)
{
  long actors = (long)ngpus * (per_gpu + (o->synthetic ? 0 : workers)) + (o->arch == SS_ARCH_PS ? o->servers : 0);
  if ((long)per_gpu * ngpus > SS_MAX_ACTORS)
    return ss_err_set(err, NULL, 0,
                      "%d GPUs make %ld simulated processes (%d per GPU%s); at most %d fit (each has its own stack "
                      "mapping): use fewer --instances or --gpus%s",
                      ngpus, (long)per_gpu * ngpus, per_gpu, per_gpu > 2 ? ", the host thread's included" : "",
                      SS_MAX_ACTORS, per_gpu > 2 ? ", or --ideal" : "");
  if (actors > SS_MAX_ACTORS)
    return ss_err_set(err, NULL, 0,
                      "%d GPUs with %d loader worker%s each%s make %ld simulated processes; at most %d fit (each "
                      "has its own stack mapping): use fewer --workers, or --synthetic",
                      ngpus, workers, workers == 1 ? "" : "s",
                      o->workers < 0 ? " (the instance file's vCPUs per GPU)" : "", actors, SS_MAX_ACTORS);
  return SS_OK;
}

/* The precision a job runs at: --precision, or the workload's (fp32 unless it says otherwise). */
static ss_precision job_precision(const ss_workload* w, const ss_options* o)
{
  if (o->precision != SS_PRECISION_WORKLOAD)
    return o->precision;
  if (!w->precision)
    return SS_PRECISION_FP32;
  return strcmp(w->precision, "tf32") == 0   ? SS_PRECISION_TF32
         : strcmp(w->precision, "amp") == 0  ? SS_PRECISION_AMP
         : strcmp(w->precision, "fp16") == 0 ? SS_PRECISION_AMP
         : strcmp(w->precision, "bf16") == 0 ? SS_PRECISION_BF16
                                             : SS_PRECISION_FP32;
}

/* The GPU's peak at precision prec (0: it has no such rate). */
static double peak_at(const ss_gpu* g, ss_precision prec)
{
  return prec == SS_PRECISION_TF32   ? g->tf32_flops
         : prec == SS_PRECISION_AMP  ? g->fp16_flops
         : prec == SS_PRECISION_BF16 ? g->bf16_flops
         : prec == SS_PRECISION_FP8  ? g->fp8_flops
                                     : g->speed_flops;
}

double ss_job_peak_flops(const ss_job* j)
{
  return peak_at(&j->platform->gpus[0], j->precision);
}

/* The workload's own precision: its times' (fp32 unless it says otherwise). */
static ss_precision workload_precision(const ss_workload* w)
{
  return job_precision(w, &(ss_options){.precision = SS_PRECISION_WORKLOAD});
}

/* The roofline (--compute-model roofline or auto, or a precision other than the workload's) needs the
 * layers' work and both devices' figures; the workload's times at FP32 (the reference peak is its FP32
 * one), and the GPU's rate at the precision. why says what asked for it. */
static int roofline_check(const ss_platform* p, const ss_workload* w, ss_precision prec, const char* why, ss_err* err)
{
  const char* missing = !w->has_work                ? "the workload's layers give no work (fwd_flops, ...)"
                        : !(w->ref_bytes_per_s > 0) ? "the workload's reference gives no memory_gbytes_per_s"
                        : workload_precision(w) != SS_PRECISION_FP32 ? "the workload's times are not FP32 ones"
                                                                     : NULL;
  if (missing)
    return ss_err_set(err, w->path, 0, "%s: %s (--compute-model peak scales by peak FLOPS)", why, missing);
  if (!(p->gpus[0].memory_bytes_per_s > 0))
    return ss_err_set(err, p->path, 0, "%s: GPU '%s' has no memory_gbytes_per_s", why, p->gpus[0].model);
  if (!(peak_at(&p->gpus[0], prec) > 0))
    return ss_err_set(err, p->path, 0, "--precision %s: GPU '%s' has no %s rate (%s_tflops)", ss_precision_name(prec),
                      p->gpus[0].model, ss_precision_name(prec),
                      prec == SS_PRECISION_AMP ? "fp16" : ss_precision_name(prec));
  return SS_OK;
}

/* The layout transposes of one pass of a convolution: elements of its calls (each call transposes
 * per_call: a forward's input and output), bytes_per an element's bytes for the whole batch; a
 * kernel floor each and the traffic (read and write) at the default memory fraction. */
static double transposes_s(double elements, double per_call, double bytes_per, const ss_rates* dev)
{
  if (!(elements > 0) || !(per_call > 0))
    return 0;
  return 2 * (elements / per_call) * dev->kernel_s +
         2 * elements * bytes_per / (dev->bytes_per_s * ss_fit_default.memory);
}

/* Each layer's forward and backward time on the platform's GPU at the job's batch from the
 * roofline model, its fractions fitted on the workload's measured times on the reference device
 * (roofline.h), or, where the workload has a measured entry for the GPU, on the GPU's own times
 * that the entry gives at its batch (the reference's at that batch times the entry's ratio): the
 * entry holds at its batch, the roofline carries it to the job's. As flops of the GPU host (times x
 * its speed x --compute-scale). The optimizer step streams the parameters and their state:
 * memory-bound, scaled by the two bandwidths (or by the entry's ratio of totals). */
static void roofline_times(ss_job* j, const ss_platform* p, const ss_workload* w, const ss_options* o)
{
  const ss_gpu* g = &p->gpus[0];
  const ss_device* d = j->device;
  const ss_rates ref = {w->ref_gpu_flops, w->ref_bytes_per_s, w->ref_sm_count, SS_KERNEL_FLOOR_S};
  const ss_rates dev = {peak_at(g, j->precision), g->memory_bytes_per_s, g->sm_count, SS_KERNEL_FLOOR_S};
  double entry_batch = ss_job_reference_batch(j);
  double to_flops = g->speed_flops * o->compute_scale;
  /* In NCHW (PyTorch's default) cuDNN transposes each convolution's 16-bit tensors to and from the
   * NHWC of its tensor-core kernels: two streaming kernels per call, each element (2 bytes) read and
   * written once, at the default memory fraction (ESTIMATE, roofline.c). Not at fp32 (CUDA cores run
   * NCHW) nor at tf32 (ASSUMED: cuDNN 8 has NCHW TF32 tensor-core convolutions on Ampere, the
   * "..._tf32f32_..._nchwkcrs_nchw" kernels of profiles; docs/model.md), nor on a GPU without tensor
   * cores (its 16-bit rate no faster than its FP32 one: the K80), nor with --channels-last or --ideal. */
  double elem = ss_precision_half(j->precision) ? 2 : 0;
  if (o->channels_last || o->ideal || !(dev.flops > g->speed_flops)) /* no tensor cores: a 16-bit rate no faster */
    elem = 0;
  /* At fp32 PyTorch runs the convolutions on TF32 tensor cores where the GPU has them
   * (torch.backends.cudnn.allow_tf32, True by default since PyTorch 1.7) and its matrix products at
   * FP32 (torch.backends.cuda.matmul.allow_tf32, False by default since 1.12): PyTorch's docs, "CUDA
   * semantics", "TensorFloat-32 (TF32) on Ampere (and later) devices". A dense convolution is a layer
   * with layout elements (fwd_nchw_elements). --no-cudnn-tf32 (and --ideal) keep them at FP32. */
  ss_rates conv = dev;
  j->conv_tf32 = j->precision == SS_PRECISION_FP32 && o->cudnn_tf32 && !o->ideal && g->tf32_flops > g->speed_flops;
  if (j->conv_tf32)
    conv.flops = g->tf32_flops;
  /* A measured entry of this GPU is fitted at the rates it ran at: the workload's FP32 (roofline_check),
   * its convolutions on TF32 tensor cores where the GPU has them (PyTorch's default), then carried to
   * the job's precision and options by the fitted efficiencies: a GPU without a faster 16-bit rate (the
   * K80) gains at amp only what halved activations save in memory traffic. */
  const ss_rates fit_dev = {g->speed_flops, g->memory_bytes_per_s, g->sm_count, SS_KERNEL_FLOOR_S};
  ss_rates fit_conv = fit_dev;
  if (g->tf32_flops > g->speed_flops)
    fit_conv.flops = g->tf32_flops;
  /* Activations in 16 bits with AMP and BF16 (FP32 in the workload's figures); the weights are
   * read in FP32 (the master copy) and their gradients written in FP32. */
  double act = ss_precision_half(j->precision) ? 0.5 : 1;
  /* Tensor parallelism splits each layer's matrices, its embedding and output layer by vocabulary,
   * t ways: a GPU does 1/t of the work and reads 1/t of the weights, in kernels as many as before and
   * 1/t as wide (fewer thread blocks: a lower share of the SMs at small micro-batches). The layer
   * norms and dropouts that tensor parallelism alone replicates are split too: an ESTIMATE that
   * leans fast without --sequence-parallel (docs/model.md, "Tensor and pipeline parallelism"). */
  double split = j->mp.on ? j->mp.t : 1;
  for (int l = 0; l < w->nlayers; l++) {
    const ss_layer* y = &w->layers[l];
    /* Forward reads the weights; backward reads them and writes their gradients. */
    const ss_work fwd = {y->fwd_flops, y->fwd_bytes, 4 * y->params, y->fwd_kernels, y->fwd_outputs / SS_ROOFLINE_TILE};
    const ss_work bwd = {y->bwd_flops, y->bwd_bytes, 8 * y->params, y->bwd_kernels, y->bwd_outputs / SS_ROOFLINE_TILE};
    ss_work fwd_at = fwd, bwd_at = bwd;
    fwd_at.bytes *= act / split;
    bwd_at.bytes *= act / split;
    fwd_at.flops /= split;
    bwd_at.flops /= split;
    fwd_at.fixed_bytes /= split;
    bwd_at.fixed_bytes /= split;
    fwd_at.blocks /= split;
    bwd_at.blocks /= split;
    ss_fit ff, fb;
    ss_roofline_fit(&fwd, w->ref_batch, &ref, y->fwd_s, &ff);
    ss_roofline_fit(&bwd, w->ref_batch, &ref, y->bwd_s, &fb);
    const ss_rates* on = y->fwd_nchw_elements > 0 ? &conv : &dev;
    const ss_rates* fit_on = y->fwd_nchw_elements > 0 ? &fit_conv : &fit_dev;
    if (d) {
      ss_roofline_fit(&fwd, entry_batch, fit_on, d->fwd_ratio * ss_roofline_time(&fwd, entry_batch, &ref, &ff), &ff);
      ss_roofline_fit(&bwd, entry_batch, fit_on, d->bwd_ratio * ss_roofline_time(&bwd, entry_batch, &ref, &fb), &fb);
    }
    double tf = elem > 0 ? transposes_s(y->fwd_nchw_elements, y->fwd_nchw_elements, j->batch * elem, &dev) : 0;
    double tb = elem > 0 ? transposes_s(y->bwd_nchw_elements, y->fwd_nchw_elements, j->batch * elem, &dev) : 0;
    j->fwd_flops[l] = y->fwd_s > 0 ? (ss_roofline_time(&fwd_at, j->batch, on, &ff) + tf) * to_flops : 0;
    j->bwd_flops[l] = y->bwd_s > 0 ? (ss_roofline_time(&bwd_at, j->batch, on, &fb) + tb) * to_flops : 0;
  }
  j->opt_flops = w->optimizer_s * (d ? d->total_ratio : w->ref_bytes_per_s / g->memory_bytes_per_s) * to_flops;
}

int ss_job_reference_batch(const ss_job* j)
{
  return j->device && j->device->batch > 0 ? j->device->batch : j->workload->ref_batch;
}

const char* ss_job_compute_scaling(const ss_job* j)
{
  return j->kernels                 ? "kernels"
         : j->device && j->roofline ? "measured_roofline"
         : j->device                ? "measured"
         : j->roofline              ? "roofline"
                                    : "peak_flops";
}

void ss_job_memory_in(const ss_job* j, ss_memory_in* in)
{
  *in = (ss_memory_in){j->workload,
                       &j->opt,
                       j->batch,
                       j->precision == SS_PRECISION_FP8 ? SS_MEMORY_FP8 : ss_precision_half(j->precision),
                       j->ckpt,
                       j->platform->gpus[0].memory_bytes,
                       j->platform->gpus[0].model,
                       j->ngpus,
                       j->shard_group,
                       j->buckets,
                       j->nbuckets,
                       j->units,
                       j->nunits,
                       j->shard_bytes_per_param,
                       j->gathered_peak};
}

/* The dataset, and the samples or tokens to train, against one step of step samples (how: how it is
 * made; give: what makes it smaller): neither may be less. SS_OK, or SS_EINPUT naming the option or
 * the workload file. */
static int check_step(const ss_workload* w, const ss_options* o, double step, const char* how, const char* give,
                      ss_err* err)
{
  if (step > w->dataset.samples)
    return ss_err_set(err, w->path, 0,
                      "the dataset has %.17g samples, fewer than one iteration takes (%s = %.17g): give %s",
                      w->dataset.samples, how, step, give);
  if (o->tokens > 0 && o->tokens < step * w->tf.seq)
    return ss_err_set(err, NULL, 0,
                      "--tokens %.17g is fewer than one iteration trains (%s = %.17g sequences of %d tokens = "
                      "%.17g): give more --tokens, or %s",
                      o->tokens, how, step, w->tf.seq, step * w->tf.seq, give);
  if (o->samples > 0 && o->samples < step)
    return ss_err_set(err, NULL, 0,
                      "--samples (or plan's --epochs) gives %.17g samples, fewer than one iteration takes (%s = "
                      "%.17g): give more, or %s",
                      o->samples, how, step, give);
  return SS_OK;
}

/* fmt's text in a new string, or NULL when out of memory. */
static char* key_printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static char* key_printf(const char* fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char* key = len >= 0 ? malloc((size_t)len + 1) : NULL;
  if (key) {
    va_start(ap, fmt);
    vsnprintf(key, (size_t)len + 1, fmt, ap);
    va_end(ap);
  }
  return key;
}

/* The price of q (ss_price_resolve), found once per query and kept in p's memo (the price files
 * are read once for the thousands of jobs of a plan); an error is not kept. */
static int job_price(const ss_platform* p, const ss_price_query* q, ss_price* out, ss_err* err)
{
  char* key = key_printf("%s|%s|%.17g|%d|%s|%s|%d|%s", q->platform_path ? q->platform_path : "", q->type, q->file_price,
                         (int)q->file_kind, q->region ? q->region : "", q->price_file ? q->price_file : "",
                         (int)q->purchase, q->date ? q->date : "");
  const ss_price* kept = key ? ss_memo_get(p->memo, "job.price", key) : NULL;
  int rc = SS_OK;
  if (kept)
    *out = *kept;
  else if (!(rc = ss_price_resolve(q, out, err)) && key) {
    ss_price* keep = malloc(sizeof(*keep));
    if (keep) {
      *keep = *out;
      ss_memo_put(p->memo, "job.price", key, keep, free);
    }
  }
  free(key);
  return rc;
}

/* Phase 1, the job's size from the inputs and options alone: the cluster, the GPUs and actors, the
 * price, the batch, the iterations, the loaders and the page cache. Input errors refuse it. */
static int phase_size(const ss_platform* p, const ss_workload* w, const ss_options* o, ss_job** out, ss_err* err)
{
  if (check_cluster(p, o, err))
    return SS_EINPUT;
  /* Activation checkpointing is the workload's choice unless the option makes it. */
  int ckpt = o->checkpoint_activations == SS_CKPT_WORKLOAD ? w->activation_checkpointing
                                                           : o->checkpoint_activations == SS_CKPT_ON;
  if (ckpt && !w->has_ckpt)
    return ss_err_set(err, w->path, 0,
                      "--checkpoint-activations on: no layer gives ckpt_bytes (the bytes a "
                      "checkpointed block keeps: its input), so the workload does not say which layers to checkpoint");
  int per_instance = o->gpus > 0 ? o->gpus : p->ngpus;
  int ngpus = per_instance * o->instances;
  int workers = o->workers >= 0 ? o->workers : p->vcpus / per_instance;
  if (check_actors(o, per_instance * sim_instances(o, o->instances), 2, workers, err))
    return SS_EINPUT;
  const ss_price_query pq = {p->path,   p->instance_type, p->price_usd_per_h,       p->price_kind,
                             o->region, o->price_file,    (ss_purchase)o->purchase, o->price_date};
  ss_price price;
  int prc = job_price(p, &pq, &price, err);
  if (prc)
    return prc;
  if (o->tokens > 0 && !w->has_transformer)
    return ss_err_set(err, w->path, 0,
                      "--tokens counts a language model's tokens: this workload gives no \"transformer\" (its sequence "
                      "length); give --samples");
  int batch = o->batch > 0 ? o->batch : w->batch_per_gpu;
  /* Gradient accumulation (data parallelism; a pipeline's micro-batches are its own): each GPU runs
   * accum micro-batches of batch per step. */
  int accum = ss_options_model_parallel(o) ? 1 : o->grad_accum;
  /* An epoch is whole iterations: one iteration takes batch x accum x GPUs samples of the dataset
   * (a pipeline's step, its global batch: phase_layout). */
  char how[96];
  snprintf(how, sizeof(how), "batch %d x %d GPUs%s", batch, ngpus, accum > 1 ? " x --grad-accum" : "");
  if (!ss_options_model_parallel(o) &&
      check_step(w, o, (double)batch * accum * ngpus, how, "a smaller --batch or fewer GPUs", err))
    return SS_EINPUT;
  ss_job* j = calloc(1, sizeof(*j));
  if (!j)
    return ss_err_nomem(err);
  *j = (ss_job){.platform = p,
                .gpu_arch = gpu_arch(p),
                .workload = w,
                .opt = *o,
                .ngpus = ngpus,
                .instances = o->instances,
                .gpus_per_instance = per_instance,
                .price_usd_per_h = price.usd_per_h,
                .purchase = price.purchase,
                .price_other_region = price.other_region,
                .batch = batch,
                .accum = accum,
                .workers = workers,
                .ckpt = ckpt};
  snprintf(j->price_source, sizeof(j->price_source), "%s", price.source);
  /* The W loader processes of a GPU deliver their batches in bursts, W at a time: a loader-bound
   * steady state repeats every W iterations, so by default the measurement is whole cycles of W
   * (at least 10 iterations). The loaders' last cycle is not steady (as workers run out of
   * batches, the others get the CPU and PCIe to themselves): W more iterations are simulated and
   * not measured. */
  int cycle = o->synthetic || workers < 2 ? 1 : workers;
  j->warmup = o->warmup >= 0 ? o->warmup : 2;
  j->iterations = o->iterations > 0 ? o->iterations : (10 + cycle - 1) / cycle * cycle;
  j->cooldown = cycle > 1 ? cycle : 0;
  j->niters = j->warmup + j->iterations + j->cooldown;
  double dataset_bytes = w->dataset.samples * w->dataset.bytes_per_sample;
  j->cache = o->cache >= 0 ? o->cache : fmin(1.0, 0.8 * p->memory_gib * 1073741824.0 / dataset_bytes);
  j->h2d_bytes = (double)j->batch * j->accum * w->dataset.decoded_bytes_per_sample; /* the step's micro-batches */
  j->prep_flops_per_sample = w->dataset.prep_cpu_s_per_sample * 1e9;
  *out = j;
  return SS_OK;
}

/* Phase 1b, tensor and pipeline parallelism (from phase 1's GPUs): the workload's transformer split
 * t ways and over p stages, the layout of the GPUs, the micro-batches, the schedule's rules and the
 * layers of each virtual stage. Each refusal names its rule. SS_OK, SS_ENOMEM or SS_EINPUT. */
static int phase_layout(ss_job* j, ss_err* err)
{
  const ss_options* o = &j->opt;
  const ss_workload* w = j->workload;
  ss_mp* mp = &j->mp;
  char why[256];
  if (!w->has_transformer)
    return ss_err_set(err, w->path, 0,
                      "--tp and --pp split a transformer, and this workload gives no \"transformer\" architecture "
                      "(layers, hidden, heads, ...: docs/formats.md)");
  if (ss_transformer_check(&w->tf, o->tp, o->pp, why, sizeof(why)))
    return ss_err_set_path(err, w->path, "$.transformer", "%s", why);
  if (o->cp > 1 && (o->seq > 0 ? o->seq : w->tf.seq) % (2 * o->cp))
    return ss_err_set(err, w->path, 0,
                      "--cp %d does not divide the sequence of %d tokens into %d chunks (two a rank, for the causal "
                      "mask's balance)",
                      o->cp, o->seq > 0 ? o->seq : w->tf.seq, 2 * o->cp);
  ss_dim order[SS_DIM_COUNT];
  ss_assert(ss_layout_parse_order(ss_rank_order_names[o->rank_order], order) == 0);
  if (ss_layout_make(j->ngpus, o->tp, o->cp, o->pp, order, &mp->layout, why, sizeof(why)))
    return ss_err_set(err, NULL, 0, "%s (%d instance%s of %d GPUs)", why, j->instances, j->instances == 1 ? "" : "s",
                      j->gpus_per_instance);
  mp->on = 1;
  mp->t = o->tp;
  mp->cp = o->cp;
  mp->p = o->pp;
  mp->d = mp->layout.size[SS_DIM_DP];
  mp->v = o->virtual_stages;
  mp->b = o->micro_batch > 0 ? o->micro_batch : w->batch_per_gpu;
  mp->schedule = o->schedule;
  if (o->global_batch > 0) {
    long per = (long)mp->b * mp->d;
    if (o->global_batch % per)
      return ss_err_set(err, NULL, 0,
                        "--global-batch %d is not a whole number of micro-batches: micro-batch %d x %d data-parallel "
                        "replicas = %ld sequences must divide it",
                        o->global_batch, mp->b, mp->d, per);
    mp->m = (int)(o->global_batch / per);
  } else
    mp->m = o->grad_accum;
  if (ss_pipe_check(mp->schedule, mp->p, mp->v, mp->m, why, sizeof(why)))
    return ss_err_set(err, NULL, 0, "%s", why);
  snprintf(why, sizeof(why), "micro-batch %d x %d micro-batches x %d replicas", mp->b, mp->m, mp->d);
  if (check_step(w, o, (double)mp->b * mp->m * mp->d, why, "a smaller --global-batch or --micro-batch", err))
    return SS_EINPUT;
  int nv = mp->p * mp->v, given[SS_PIPE_PARTITION_MAX], ngiven = 0;
  if (o->partition) {
    char pwhy[320];
    ngiven = ss_pipe_partition_parse(o->partition, given, pwhy, sizeof(pwhy));
    if (ngiven < 0)
      return ss_err_set(err, NULL, 0, "--partition expects %s", pwhy);
  }
  mp->counts = calloc((size_t)nv, sizeof(int));
  if (!mp->counts)
    return SS_ENOMEM;
  if (ss_pipe_partition(w->tf.layers, mp->p, mp->v, ngiven ? given : NULL, ngiven, mp->counts, why, sizeof(why)))
    return ss_err_set(err, NULL, 0, "%s", why);
  /* The compute of a micro-batch: the layers are timed at the micro-batch. No data loading is
   * simulated and every iteration after the first repeats the same schedule: fewer by default. */
  j->batch = mp->b;
  j->ckpt = 0;
  j->warmup = o->warmup >= 0 ? o->warmup : 1;
  j->iterations = o->iterations > 0 ? o->iterations : 3;
  j->cooldown = 0;
  j->niters = j->warmup + j->iterations;
  return SS_OK;
}

double ss_job_samples_per_iter(const ss_job* j)
{
  return j->mp.on ? (double)j->mp.b * j->mp.m * j->mp.d : (double)j->batch * j->accum * j->ngpus;
}

double ss_job_peak_flops_scaled(const ss_job* j)
{
  return ss_job_peak_flops(j) / j->opt.compute_scale;
}

/* A transformer's layers run no faster than the GPU's peak: the model FLOPs of the batch (1/t of
 * them on a GPU of a tensor group) over the layers' forward and backward times is at most the peak
 * at the precision, the what-if GPU's under --compute-scale; so MFU is a fraction of it. Times from
 * the peak model of a workload whose times are shorter than its FLOPs allow are refused. */
static int check_peak(const ss_job* j, ss_err* err)
{
  const ss_workload* w = j->workload;
  double peak = ss_job_peak_flops_scaled(j), speed = j->platform->gpus[0].speed_flops, busy_s = 0;
  if (!w->has_transformer || !(peak > 0))
    return SS_OK;
  for (int l = 0; l < w->nlayers; l++)
    busy_s += (j->fwd_flops[l] + j->bwd_flops[l]) / speed;
  double model = ss_job_model_flops(j, j->batch) / (j->mp.on ? j->mp.t * j->mp.cp : 1);
  if (model <= peak * busy_s * (1 + 1e-9))
    return SS_OK;
  return err ? ss_err_set_path(err, w->path, "$.layers",
                               "the layers' forward and backward take %.4g ms for %d sequences on the %s at %s, "
                               "faster than its peak of %.4g TFLOP/s allows for the architecture's %.4g TFLOP: the "
                               "times (fwd_s, bwd_s) are too short for the transformer block, or it too large",
                               busy_s * 1e3, j->batch, j->platform->gpus[0].model, ss_precision_name(j->precision),
                               peak / 1e12, model / 1e12)
             : SS_EINPUT;
}

double ss_job_model_flops(const ss_job* j, double sequences)
{
  const ss_transformer* tf = &j->workload->tf;
  double whole = ss_transformer_model_flops(tf, sequences);
  if (!j->kernels || j->attention != SS_ATTENTION_FLASH)
    return whole;
  /* A causal flash kernel skips half of the attention core's 4 s h a token (forward, x3 with backward). */
  return whole - 3 * sequences * tf->seq * tf->layers * 4.0 * tf->seq * tf->heads * ss_transformer_head_dim(tf) * 0.5;
}

/* Phase 1c, a transformer's kernel model (from phase 1's batch and 1b's split): whether it times the
 * run (--compute-model kernels insists, auto takes it where the GPU and precision have fits), the
 * sequence (--seq) and attention (--attention) it runs at, and the workload carried to them
 * (tfmodel.h), which j->workload then is. Refusals name the option. SS_OK, SS_ENOMEM or SS_EINPUT. */
static int phase_transformer(ss_job* j, ss_err* err)
{
  const ss_options* o = &j->opt;
  const ss_workload* w = j->workload;
  const ss_gpu* g = &j->platform->gpus[0];
  if (!w->has_transformer) {
    const char* opt = o->seq > 0                               ? "--seq"
                      : o->precision == SS_PRECISION_FP8       ? "--precision fp8"
                      : o->attention != SS_ATTN_AUTO           ? "--attention"
                      : o->attention_kernel > 0                ? "--attention-kernel"
                      : o->recompute == SS_RECOMPUTE_SELECTIVE ? "--recompute selective"
                      : o->compute_model == SS_COMPUTE_KERNELS ? "--compute-model kernels"
                                                               : NULL;
    return opt ? ss_err_set(err, w->path, 0,
                            "%s applies to a transformer, and this workload gives no \"transformer\" architecture "
                            "(layers, hidden, heads, ...: docs/formats.md)",
                            opt)
               : SS_OK;
  }
  ss_precision prec = job_precision(w, o);
  if (prec == SS_PRECISION_FP8 && !(g->fp8_flops > 0))
    return ss_err_set(err, j->platform->path, 0,
                      "--precision fp8: GPU '%s' has no FP8 tensor cores (no fp8_tflops in the instance file; Hopper, "
                      "Ada and Blackwell have them): --precision bf16",
                      g->model);
  char why[256];
  int can = ss_tf_device_of(g, prec, peak_at(g, prec), &j->tf_device, why, sizeof(why)) == 0;
  if ((o->compute_model == SS_COMPUTE_KERNELS || prec == SS_PRECISION_FP8) && !can)
    return ss_err_set(err, j->platform->path, 0, "%s: %s",
                      o->compute_model == SS_COMPUTE_KERNELS ? "--compute-model kernels" : "--precision fp8", why);
  if (prec == SS_PRECISION_FP8 && o->compute_model != SS_COMPUTE_KERNELS && o->compute_model != SS_COMPUTE_AUTO)
    return ss_err_set(err, NULL, 0,
                      "--precision fp8 is timed by the kernel model (FP8 GEMMs, their casts): --compute-model %s "
                      "cannot, give kernels or auto",
                      ss_compute_model_name(o->compute_model));
  j->kernels = can && (o->compute_model == SS_COMPUTE_KERNELS || o->compute_model == SS_COMPUTE_AUTO);
  /* Why the kernel model does not time the run (when it does not). */
  const char* off = o->compute_model == SS_COMPUTE_PEAK || o->compute_model == SS_COMPUTE_ROOFLINE
                        ? "--compute-model is not kernels or auto"
                        : why;
  if (w->untimed && !j->kernels)
    return ss_err_set(err, w->path, 0,
                      "the workload's layers have no measured times (%s): only the kernel model times them, and it "
                      "does not time this run (%s)",
                      w->from_config ? "a Hugging Face config" : "\"measured_times\": false", off);
  int seq = o->seq > 0 ? o->seq : w->tf.seq;
  if (w->learned_positions && w->max_positions > 0 && seq > w->max_positions)
    return ss_err_set(err, w->path, 0,
                      "--seq %d is beyond the model's %d learned positions (a table of positions: no longer "
                      "sequence fits it)",
                      seq, w->max_positions);
  if (seq != w->tf.seq && !j->kernels)
    return ss_err_set(err, w->path, 0,
                      "--seq %d: another sequence than the workload's (%d) is derived from the architecture by the "
                      "kernel model, which does not time this run (%s)",
                      seq, w->tf.seq, off);
  int head_dim = ss_transformer_head_dim(&w->tf);
  if (o->attention_kernel > 0) {
    const char* k = ss_attention_kernel_names[o->attention_kernel];
    if (!j->kernels || o->attention == SS_ATTN_EAGER)
      return ss_err_set(err, NULL, 0, "--attention-kernel %s picks flash attention's kernel: %s", k,
                        j->kernels ? "not with --attention eager" : off);
    j->tf_device.attention_kernel = k;
    if (!ss_tf_has_flash(&j->tf_device, head_dim))
      return ss_err_set(err, j->platform->path, 0,
                        "--attention-kernel %s: no measurements of it on GPU '%s' (%s) to time it by "
                        "(calibration/attention_kernels.csv)",
                        k, g->model, j->tf_device.generation);
  }
  if (o->attention == SS_ATTN_FLASH && !j->kernels)
    return ss_err_set(err, w->path, 0,
                      "--attention flash: flash attention is timed by the kernel model, which does not time this "
                      "run (%s); the workload's own times are eager attention's",
                      off);
  int flash = j->kernels && ss_tf_has_flash(&j->tf_device, head_dim);
  if (o->attention == SS_ATTN_FLASH && !flash)
    return ss_err_set(err, j->platform->path, 0,
                      "--attention flash: GPU '%s' (%s) has no fused attention kernel at head dimension %d "
                      "(FlashAttention needs Ampere or later): --attention eager",
                      g->model, j->tf_device.generation, head_dim);
  j->attention = o->attention == SS_ATTN_EAGER || !flash ? SS_ATTENTION_EAGER : SS_ATTENTION_FLASH;
  if (j->mp.cp > 1 && (!j->kernels || j->attention != SS_ATTENTION_FLASH))
    return ss_err_set(err, NULL, 0,
                      "--cp %d runs ring attention, flash attention over blocks of keys and values, which the kernel "
                      "model times: %s",
                      j->mp.cp,
                      !j->kernels                     ? off
                      : o->attention == SS_ATTN_EAGER ? "not with --attention eager"
                                                      : "this GPU has no fused attention kernel");
  /* Selective recomputation in a data-parallel run: the attention core's forward again in backward,
   * as the kernel model times it. */
  j->dp_selective = !j->mp.on && o->recompute == SS_RECOMPUTE_SELECTIVE;
  if (j->dp_selective && !j->kernels)
    return ss_err_set(err, NULL, 0,
                      "--recompute selective recomputes the attention core, as the kernel model times it, which does "
                      "not time this run (%s)",
                      off);
  if (!j->kernels)
    return SS_OK;
  ss_transformer tf = w->tf;
  tf.seq = seq;
  if (!(j->tf_layers = calloc((size_t)w->nlayers, sizeof(ss_layer))))
    return SS_ENOMEM;
  ss_tf_workload(w, &tf, j->attention, prec == SS_PRECISION_FP8,
                 j->dp_selective ? SS_RECOMPUTE_SELECTIVE : SS_RECOMPUTE_NONE, &j->tf_work, j->tf_layers);
  j->workload = &j->tf_work;
  return SS_OK;
}

/* Phase 1d, a mixture of experts (docs/model.md, "Mixtures of experts"; after phase_transformer: the
 * workload at the run's sequence): its options against the workload and the layout, the expert groups'
 * sizes (ss_mp.ep, etp, edp) and the busiest GPU's load. Each refusal names its rule. */
static int phase_moe(ss_job* j, ss_err* err)
{
  const ss_options* o = &j->opt;
  const ss_workload* w = j->workload;
  ss_mp* mp = &j->mp;
  const char* given = o->ep > 1              ? "--ep"
                      : o->etp > 0           ? "--etp"
                      : o->moe_imbalance > 0 ? "--moe-imbalance"
                      : o->moe_capacity > 0  ? "--moe-capacity"
                      : o->moe_pad           ? "--moe-pad"
                      : o->overlap_moe_comm  ? "--overlap-moe-comm"
                      : o->moe_dispatcher    ? "--moe-dispatcher"
                                             : NULL;
  mp->ep = 1;
  mp->etp = 1;
  mp->moe_load = 1;
  if (!w->has_transformer || w->tf.moe.experts <= 0)
    return given ? ss_err_set(err, w->path, 0,
                              "%s splits or routes the experts of a mixture of experts, and %s is a dense model (no "
                              "\"moe\" in its transformer architecture: docs/formats.md)",
                              given, w->model)
                 : SS_OK;
  const ss_moe* m = &w->tf.moe;
  if (o->moe_pad && !(o->moe_capacity > 0))
    return ss_err_set(err, NULL, 0, "--moe-pad pads every expert's tokens to its capacity: give --moe-capacity too");
  if (m->experts % o->ep)
    return ss_err_set(err, w->path, 0, "--ep %d does not divide the %d experts of %s (each GPU holds a whole number)",
                      o->ep, m->experts, w->model);
  mp->ep = o->ep;
  mp->etp = o->etp > 0 ? o->etp : mp->on ? mp->t : 1;
  if (m->expert_ffn % mp->etp)
    return ss_err_set(err, w->path, 0, "--etp %d does not divide the expert FFN size %d of %s", mp->etp, m->expert_ffn,
                      w->model);
  if (m->shared_ffn && mp->on && m->shared_ffn % mp->t)
    return ss_err_set(err, w->path, 0, "--tp %d does not divide the shared experts' FFN size %d of %s", mp->t,
                      m->shared_ffn, w->model);
  if ((mp->ep > 1 || mp->etp > 1) && !j->kernels)
    return ss_err_set(err, NULL, 0,
                      "%s: the experts' split is timed by the kernel model (its grouped GEMMs at their shapes), which "
                      "does not time this run (a transformer workload at amp, bf16 or fp8 on a GPU it has fits for)",
                      mp->ep > 1 ? "--ep" : "--etp");
  int block = j->ngpus / (mp->on ? mp->p : 1), span = mp->ep * mp->etp, g = j->gpus_per_instance;
  if (mp->on) {
    if (mp->t > 1 && !o->sequence_parallel)
      return ss_err_set(err, NULL, 0,
                        "--tp %d with a mixture of experts needs --sequence-parallel (Megatron-Core's rule: the tokens "
                        "are split over the tensor ranks before the router)",
                        mp->t);
    if (block % span)
      return ss_err_set(err, NULL, 0,
                        "--ep %d x --etp %d = %d GPUs must divide the %d GPUs of a pipeline stage (tensor x context x "
                        "data ranks)",
                        mp->ep, mp->etp, span, block);
    if (mp->layout.order[SS_DIM_COUNT - 1] != SS_DIM_PP)
      return ss_err_set(err, NULL, 0,
                        "--ep and --etp lay the expert groups out with the pipeline stages slowest (Megatron-Core's "
                        "expert rank order, etp-ep-edp-pp): not with --rank-order %s",
                        ss_rank_order_names[o->rank_order]);
    if (span <= g ? g % span : span % g || g % mp->etp)
      return ss_err_set(err, NULL, 0,
                        "--ep %d x --etp %d = %d GPUs in an expert group neither divide nor are a whole number of the "
                        "%d GPUs of an instance",
                        mp->ep, mp->etp, span, g);
    mp->edp = block / span;
  }
  if ((o->overlap_moe_comm || o->moe_dispatcher != SS_DISPATCH_ALLTOALL) && mp->ep < 2)
    return ss_err_set(err, NULL, 0, "%s changes the experts' all-to-alls, and this run has none: give --ep 2 or more",
                      o->overlap_moe_comm ? "--overlap-moe-comm" : "--moe-dispatcher");
  if (o->overlap_moe_comm && mp->m < 2)
    return ss_err_set(err, NULL, 0,
                      "--overlap-moe-comm pairs one micro-batch's forward with another's backward (Megatron-Core's "
                      "combined 1F1B): it needs 2 micro-batches or more, and this run has 1 (--grad-accum, "
                      "--global-batch)");
  if (o->overlap_moe_comm && o->recompute == SS_RECOMPUTE_FULL)
    return ss_err_set(err, NULL, 0,
                      "--overlap-moe-comm does not go with --recompute full (Megatron-Core refuses the combined 1F1B "
                      "with full recomputation)");
  double tokens = (double)j->batch * w->tf.seq / (mp->on ? mp->cp * mp->t : 1);
  int draws = ss_transformer_moe_layers(&w->tf) * j->niters;
  /* --ideal: routing balanced, unless --moe-imbalance says otherwise. */
  double imbalance = o->moe_imbalance > 0 ? o->moe_imbalance : o->ideal ? 1 : -1;
  mp->moe_load_source = o->moe_pad && o->moe_capacity > 0 ? SS_MOE_LOAD_PADDED
                        : o->moe_imbalance > 0            ? SS_MOE_LOAD_GIVEN
                        : o->ideal                        ? SS_MOE_LOAD_BALANCED
                                                          : SS_MOE_LOAD_DRAWN;
  mp->moe_load = ss_par_moe_load(&w->tf, mp->ep, tokens, imbalance, o->moe_capacity, o->moe_pad, (unsigned)o->seed,
                                 draws, &mp->moe_dropped);
  return SS_OK;
}

/* The layers' times from the kernel model (phase_transformer's), in flops of the GPU host, and the
 * optimizer step's as the roofline scales it (memory-bound: by the two bandwidths). */
static void kernel_times(ss_job* j)
{
  const ss_workload* w = j->workload;
  const ss_gpu* g = &j->platform->gpus[0];
  double to_flops = g->speed_flops * j->opt.compute_scale;
  int t = j->mp.on ? j->mp.t : 1;
  ss_tf_split sp = {.b = j->batch,
                    .seq = w->tf.seq,
                    .t = t,
                    .sp = j->mp.on && j->opt.sequence_parallel,
                    .cp = j->mp.on ? j->mp.cp : 1,
                    .elem = 2,
                    .attention = j->attention,
                    .causal = 1,
                    .fp8 = j->precision == SS_PRECISION_FP8,
                    .ep = j->mp.ep,
                    .etp = j->mp.etp,
                    .load = j->mp.moe_load};
  double* fwd = calloc((size_t)w->nlayers * 2, sizeof(double));
  if (!fwd)
    ss_nomem_exit("the layers' times");
  double* bwd = fwd + w->nlayers;
  /* Every kernel of a 16-bit run on a generation with a GEMM fit has a fit (phase_transformer). */
  ss_assert(ss_tf_layer_times(w, &w->tf, &sp, &j->tf_device, fwd, bwd, j->attn_share) == 0);
  for (int l = 0; l < w->nlayers; l++) {
    j->fwd_flops[l] = fwd[l] * to_flops;
    /* Selective recomputation (data-parallel runs; par.c adds a pipeline's): the transformer layers'
     * attention core forward again in backward. */
    j->bwd_flops[l] = (bwd[l] + (j->dp_selective && l > 0 && l < w->nlayers - 1 ? j->attn_share[0] * fwd[l] : 0)) *
                      to_flops;
  }
  free(fwd);
  double ratio = w->ref_bytes_per_s > 0 ? w->ref_bytes_per_s / g->memory_bytes_per_s
                                        : w->ref_gpu_flops / g->speed_flops;
  j->opt_flops = w->optimizer_s * ratio * to_flops;
  /* FP8: after the step each weight is cast once (read at 16 bits, written in FP8 with its transpose:
   * 4 bytes a parameter at the memory-bound rate), the micro-batches reusing the casts (Transformer
   * Engine's is_first_microbatch; torchao's precomputed scales). */
  if (j->precision == SS_PRECISION_FP8) {
    double params = 0, experts = ss_transformer_moe_layers(&w->tf) * ss_transformer_expert_params(&w->tf);
    for (int l = 0; l < w->nlayers; l++)
      params += w->layers[l].params;
    double held = (params - experts) / t + experts / (j->mp.ep * j->mp.etp); /* one GPU's */
    j->opt_flops += 4 * held / (g->memory_bytes_per_s * j->tf_device.memory_fraction) * to_flops;
  }
}

/* Phase 2, the GPU work of each layer and of the optimizer step, in flops of the platform's GPU (from
 * phase 1's batch): SS_OK, SS_ENOMEM, or SS_EINPUT with err set when the roofline is required and
 * cannot be had. */
static int phase_compute(ss_job* j, ss_err* err)
{
  const ss_platform* p = j->platform;
  const ss_workload* w = j->workload;
  const ss_options* o = &j->opt;
  /* Work is given to SimGrid in flops of the platform's GPU: a reference time becomes time x
   * (device time / reference time) x device speed. That ratio is measured when the workload has
   * an entry for the platform's GPU, else the ratio of peak speeds (the same then). */
  double speed = p->gpus[0].speed_flops;
  j->device = j->kernels ? NULL : ss_workload_device(w, p->gpus[0].model);
  double ratio_peak = w->ref_gpu_flops / speed;
  double fwd_ratio = j->device ? j->device->fwd_ratio : ratio_peak;
  double bwd_ratio = j->device ? j->device->bwd_ratio : ratio_peak;
  double opt_ratio = j->device ? j->device->total_ratio : ratio_peak;
  double per_batch = (double)j->batch / w->ref_batch * speed * o->compute_scale;
  j->fwd_flops = calloc((size_t)w->nlayers, sizeof(double));
  j->bwd_flops = calloc((size_t)w->nlayers, sizeof(double));
  if (!j->fwd_flops || !j->bwd_flops)
    return SS_ENOMEM;
  /* A measured entry holds at the workload's precision; another precision is the roofline's. auto
   * takes the roofline where it can (peak with --ideal, the idealised linear scaling), the others
   * insist. */
  j->precision = job_precision(w, o);
  int other = j->precision != workload_precision(w);
  /* The peak model scales the workload's times at the precision they were measured at: another
   * precision is the roofline's, and --compute-model peak with it would be overridden unsaid. */
  if (other && o->compute_model == SS_COMPUTE_PEAK && !o->ideal)
    return err ? ss_err_set(err, NULL, 0,
                            "--compute-model peak scales the workload's times at their own precision (%s); --precision "
                            "%s needs the roofline model: drop --compute-model peak",
                            ss_precision_name(workload_precision(w)), ss_precision_name(j->precision))
               : SS_EINPUT;
  int insist = !j->kernels && (o->compute_model == SS_COMPUTE_ROOFLINE || other);
  if (!j->kernels && (insist || (o->compute_model == SS_COMPUTE_AUTO && !o->ideal))) {
    ss_err why;
    ss_err_clear(&why);
    int can = roofline_check(p, w, j->precision, other ? "--precision" : "--compute-model roofline", &why) == SS_OK;
    if (insist && !can) {
      if (err)
        *err = why;
      return SS_EINPUT;
    }
    j->roofline = can;
  }
  if (j->kernels)
    kernel_times(j);
  else if (j->roofline)
    roofline_times(j, p, w, o);
  double split = j->mp.on ? j->mp.t : 1; /* tensor parallelism: each GPU 1/t of a layer's work */
  for (int l = 0; !j->roofline && !j->kernels && l < w->nlayers; l++) {
    j->fwd_flops[l] = w->layers[l].fwd_s * fwd_ratio * per_batch / split;
    j->bwd_flops[l] = w->layers[l].bwd_s * bwd_ratio * per_batch / split;
  }
  if (check_peak(j, err))
    return SS_EINPUT;
  /* Activation checkpointing: a checkpointed layer's backward first re-runs its forward. */
  for (int l = 0; l < w->nlayers; l++)
    j->bwd_flops[l] += recomputed(j, l) ? j->fwd_flops[l] : 0;
  for (int l = 0; l < w->nlayers; l++)
    j->fwd_total_flops += j->fwd_flops[l];
  if (!j->roofline && !j->kernels)
    j->opt_flops = w->optimizer_s * opt_ratio * speed * o->compute_scale;
  /* Sharded: each GPU steps the optimizer on its shard of the parameters, 1/N of them (hybrid
   * sharding: 1/g, the states divided among each instance's GPUs). */
  const ss_shard_mode* mode = ss_shard_mode_of(o->shard);
  j->shard_group = !mode->divides ? 1 : mode->hybrid && j->instances > 1 ? j->gpus_per_instance : j->ngpus;
  j->opt_flops /= j->shard_group;
  if (o->init_io != SS_INIT_NONE) {
    double params = 0;
    for (int l = 0; l < w->nlayers; l++)
      params += w->layers[l].params;
    j->init_bytes = params * w->grad_bytes_per_param + o->init_shard_mib * 1048576.0;
  }
  return SS_OK;
}

/* Phase 3, what carries the gradients (from phase 2's times and precision): the buckets, ZeRO's
 * gathers after the step, the parameter servers' parts, the rings, each bucket's algorithm as given
 * (AUTO is resolved by ss_derive_job). SS_OK or SS_ENOMEM. */
static int phase_collectives(ss_job* j)
{
  const ss_options* o = &j->opt;
  /* The sharded modes' buckets, all-gathers and reduce-scatters move the model's dtype: 16-bit at
   * amp or bf16 (DeepSpeed's bf16 and fp16 modes; FSDP's MixedPrecision param_dtype and reduce_dtype). */
  j->shard_bytes_per_param = ss_precision_half(j->precision) ? 2 : j->workload->grad_bytes_per_param;
  int rc = SS_OK;
  if (j->ngpus > 1 || o->arch == SS_ARCH_PS)
    rc = make_buckets(j);
  if (!rc && ss_shard_mode_of(o->shard)->post_gather && j->ngpus > 1)
    rc = zero_post(j);
  if (!rc && o->arch == SS_ARCH_PS) {
    j->ps_hosts = o->placement == SS_PS_COLOCATED ? j->instances : o->server_hosts > 0 ? o->server_hosts : o->servers;
    j->ps_local = o->ps_aggregate == SS_PS_AGG_INSTANCE ? j->gpus_per_instance : 1;
    rc = make_ps_parts(j);
  }
  if (!rc)
    rc = ss_topo_instance_rings(j->platform, j->gpus_per_instance, &j->intra);
  if (!rc)
    rc = global_rings(j);
  if (!rc && !(j->bucket_alg = calloc((size_t)j->nbuckets + 1, sizeof(ss_allreduce))))
    rc = SS_ENOMEM;
  for (int b = 0; !rc && b < j->nbuckets; b++)
    j->bucket_alg[b] = o->allreduce;
  return rc;
}

/* Phase 5, the checks that need the complete job: the host threads are actors too; the memory of a
 * GPU against its capacity (activations kept in FP32 until --precision says amp or bf16: autocast;
 * --ideal keeps the check). SS_OK or SS_EINPUT. */
static int phase_check(ss_job* j, ss_err* err)
{
  const ss_options* o = &j->opt;
  if (j->host && check_actors(o, j->gpus_per_instance * sim_instances(o, o->instances), 3, j->workers, err))
    return SS_EINPUT;
  if (ss_failures_derive(j->platform, j->workload, o, j->instances, j->purchase, &j->failures, err))
    return SS_EINPUT;
  if (j->mp.on)
    return SS_OK; /* each stage's memory: par.c, once the split is derived */
  ss_memory_in mem;
  ss_job_memory_in(j, &mem);
  j->memory_known = ss_memory_of(&mem, &j->memory);
  if (j->memory_known && ss_memory_check(&mem, &j->memory, err))
    return SS_EINPUT;
  return SS_OK;
}

int ss_job_new(const ss_platform* p, const ss_workload* w, const ss_options* o, ss_job** out, ss_err* err)
{
  ss_job* j = NULL;
  int rc = phase_size(p, w, o, &j, err);
  if (rc)
    return rc;
  if (ss_options_model_parallel(o))
    rc = phase_layout(j, err);
  if (!rc)
    rc = phase_transformer(j, err);
  if (!rc)
    rc = phase_moe(j, err);
  if (!rc)
    rc = phase_compute(j, err);
  if (!rc)
    rc = phase_collectives(j);
  /* Phase 4, the options as used and the host side (host_side's segments from phases 2 and 3). */
  if (!rc) {
    resolve_options(j);
    resolve_net(j);
    rc = host_side(j);
  }
  if (!rc)
    recompute_launches(j);
  if (rc == SS_ENOMEM)
    rc = ss_err_nomem(err);
  if (!rc)
    rc = phase_check(j, err);
  return SS_HAND_OUT(rc, j, out, ss_job_free);
}

void ss_job_free(ss_job* j)
{
  if (!j)
    return;
  ss_topo_rings_free(&j->intra);
  ss_topo_rings_free(&j->rings);
  SS_FREE_ALL(j->fwd_flops, j->bwd_flops, j->buckets, j->bucket_alg, j->segs, j->post_bytes, j->colls, j->units,
              j->chunks, j->accum_chunks, j->host_fwd_s, j->host_bwd_s, j->bucket_post_s, j->ps_bucket_part0,
              j->ps_part_shard, j->ps_part_bytes, j->ps_shard_bytes);
  free(j->tf_layers);
  SS_FREE_ALL(j->mp.counts, j->mp.fwd_s, j->mp.bwd_s, j->mp.tp_fwd_s, j->mp.tp_bwd_s, j->mp.dp_s, j->mp.dp_hidden_s,
              j->mp.opt_s, j->mp.gather_s, j->mp.params, j->mp.mem_bytes, j->mp.act_bytes, j->mp.expert_params,
              j->mp.moe_fwd_s, j->mp.moe_bwd_s);
  free(j);
}

int ss_job_check_iteration(const ss_job* j, const char* what, double iteration_s, ss_err* err)
{
  double samples = ss_job_samples_per_iter(j);
  double epoch_s = j->workload->dataset.samples / samples * iteration_s;
  double cost = j->price_usd_per_h * j->instances * epoch_s / 3600.0;
  if (!isfinite(iteration_s) || iteration_s < SS_BOUND_TIME_LO) {
    char scale[64] = "";
    if (j->opt.compute_scale != 1)
      snprintf(scale, sizeof(scale), " and by --compute-scale %g", j->opt.compute_scale);
    return ss_err_set(err, j->opt.workload_path, 0,
                      "%s takes %g s when simulated, less than 1 ns: the workload's times, scaled by the GPU's speed "
                      "over the reference GPU's%s, are too small to give a throughput",
                      what, iteration_s, scale);
  }
  if (!isfinite(epoch_s) || !isfinite(cost))
    return ss_err_set(err, j->opt.workload_path, 0,
                      "%s takes %g s when simulated: the epoch (the dataset's samples) or its cost (the instance's "
                      "price) is beyond a double's range",
                      what, iteration_s);
  return SS_OK;
}
