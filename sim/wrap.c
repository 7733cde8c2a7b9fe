/* wrap: the wrapping units of the sharded modes that gather parameters (shard.h: ZeRO-3, FSDP), and
 * the collectives each forward and backward pass over them issues (docs/model.md, "Sharded data
 * parallelism"; the sources are in calibration/sharding_sources.md, sections 3 and 4). */
#include "wrap.h"

#include "array.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

/* What the walk reads (the complete earlier phases: ss_wrap_in) and makes (ss_wrap), under the
 * names the job gives them. */
typedef struct plan {
  const ss_workload* workload;
  ss_options opt;
  int instances;
  const ss_bucket* buckets;
  int nbuckets;
  double shard_bytes_per_param;
  int nmetric;
  int colls_cap;
  ss_unit* units;
  int nunits;
  ss_chunk* chunks;
  int nchunks;
  ss_coll_spec* colls;
  int ncolls;
  double* post_bytes;
  int npost;
  double gathered_peak;
} plan;

static ss_coll_spec* add(plan* j, ss_coll_kind kind, ss_coll_op op, ss_coll_scope scope, int index, double bytes)
{
  return ss_sched_add(j->colls, &j->ncolls, j->colls_cap, kind, op, scope, index, bytes);
}

/* The elements of layer l's tensors that ZeRO-3 partitions: all but the persistent ones (at most
 * SS_ZERO3_PERSIST_ELEMENTS each); a layer that lists no tensors is one tensor. */
static double partitioned(const ss_workload* w, int l, int zero3)
{
  const ss_layer* y = &w->layers[l];
  if (!zero3)
    return y->params;
  if (!y->tensors || y->ntensors < 1)
    return y->params > SS_ZERO3_PERSIST_ELEMENTS ? y->params : 0;
  double sum = 0;
  for (int t = 0; t < y->ntensors; t++)
    if (y->tensors[t] > SS_ZERO3_PERSIST_ELEMENTS)
      sum += y->tensors[t];
  return sum;
}

/* The units: ZeRO-3 fetches each module's own parameters (one unit per layer that has partitioned
 * ones); FSDP wraps each layer of at least --wrap-params parameters (all that have some by
 * default, as transformer_auto_wrap_policy on a workload of one layer per block) and leaves the
 * others to the outermost (root) unit, which comes last in j->units. */
static int make_units(plan* j, double* persistent)
{
  const ss_workload* w = j->workload;
  int zero3 = ss_shard_mode_of(j->opt.shard)->units == SS_UNITS_LAYERS;
  double min = fmax(j->opt.wrap_params, 1), root = 0;
  j->units = calloc((size_t)w->nlayers + 1, sizeof(ss_unit));
  if (!j->units)
    return SS_ENOMEM;
  *persistent = 0;
  for (int l = 0; l < w->nlayers; l++) {
    double p = partitioned(w, l, zero3);
    *persistent += w->layers[l].params - p;
    if (p <= 0)
      continue;
    if (!zero3 && p < min) {
      root += p;
      continue;
    }
    j->units[j->nunits++] = (ss_unit){l, l, p, 0};
  }
  if (root > 0)
    j->units[j->nunits++] = (ss_unit){-1, -1, root, 1};
  return SS_OK;
}

/* The chunks: the layers cut where each (non-root) unit's first layer is. */
static int make_chunks(plan* j)
{
  int nl = j->workload->nlayers;
  j->chunks = calloc((size_t)j->nunits + 1, sizeof(ss_chunk));
  if (!j->chunks)
    return SS_ENOMEM;
  for (int u = 0; u < j->nunits; u++) {
    const ss_unit* un = &j->units[u];
    if (un->root)
      continue;
    if (j->nchunks == 0 && un->first_layer > 0)
      j->chunks[j->nchunks++] = (ss_chunk){0, un->first_layer - 1, -1, {0}, {0}};
    j->chunks[j->nchunks++] = (ss_chunk){un->first_layer, un->first_layer, u, {0}, {0}};
  }
  if (j->nchunks == 0)
    j->chunks[j->nchunks++] = (ss_chunk){0, nl - 1, -1, {0}, {0}};
  for (int c = 0; c < j->nchunks; c++)
    j->chunks[c].last_layer = c + 1 < j->nchunks ? j->chunks[c + 1].first_layer - 1 : nl - 1;
  return SS_OK;
}

/* The planner's state while it walks one iteration's passes. */
typedef struct walk {
  plan* j;
  const ss_shard_mode* mode;
  int zero3, hybrid_scope; /* zero3: ZeRO-3's per-layer units; hybrid_scope: the shard group's scope */
  double* avail;           /* [unit]: its elements gathered or being gathered */
  int* next_tensor;        /* [unit] ZeRO-3: its first tensor not yet gathered */
  int* last_gather;        /* [unit]: the latest collective that gathers some of it */
  double live;             /* elements gathered now */
  double persistent;       /* ZeRO-3: elements kept gathered */
} walk;

/* The unit of use t of the trace: the chunks' forward passes, then their backward passes. */
static int use_unit(const plan* j, int t)
{
  return j->chunks[t < j->nchunks ? t : 2 * j->nchunks - 1 - t].unit;
}

static ss_coll_spec* gather(walk* k, int index, int bwd, int prefetch, double elements)
{
  ss_coll_spec* c = add(k->j, SS_CK_GATHER, SS_OP_ALL_GATHER, k->hybrid_scope, index,
                        elements * k->j->shard_bytes_per_param);
  c->bwd = bwd;
  c->prefetch = prefetch;
  k->live += elements;
  return c;
}

/* All that is not yet gathered of unit u, for its use now or ahead of it (prefetch). */
static void fetch(walk* k, int u, int bwd, int prefetch)
{
  const ss_unit* un = &k->j->units[u];
  if (k->avail[u] >= un->params)
    return;
  gather(k, u, bwd, prefetch, un->params - k->avail[u]);
  k->avail[u] = un->params;
  k->next_tensor[u] = INT_MAX;
  k->last_gather[u] = k->j->ncolls - 1;
}

/* The tensors of unit u not yet gathered, in order, while fewer than cap elements are being
 * prefetched (DeepSpeed pops parameters while numel_prefetching < max_params_to_prefetch). */
static double pop_tensors(walk* k, int u, double taken, double cap)
{
  const ss_workload* w = k->j->workload;
  const ss_layer* y = &w->layers[k->j->units[u].first_layer];
  int n = y->tensors && y->ntensors > 0 ? y->ntensors : 1;
  double got = 0;
  for (int t = k->next_tensor[u]; t < n && taken + got < cap; t++) {
    double e = y->tensors && y->ntensors > 0 ? y->tensors[t] : y->params;
    if (n > 1 && e <= SS_ZERO3_PERSIST_ELEMENTS) {
      k->next_tensor[u] = t + 1;
      continue;
    }
    got += e;
    k->next_tensor[u] = t + 1;
  }
  k->avail[u] = fmin(k->j->units[u].params, k->avail[u] + got);
  return got;
}

/* Prefetch at use t. FSDP: the unit of the next use in the same pass (its implicit forward
 * prefetch, the CPU running ahead under limit_all_gathers; BACKWARD_PRE in backward), one unit.
 * ZeRO-3: the upcoming parameters of the recorded trace (forward then backward) not gathered, up
 * to stage3_prefetch_bucket_size elements (--prefetch-bucket) while fewer than
 * stage3_max_live_parameters are gathered, as one all-gather. */
static void prefetch(walk* k, int t)
{
  plan* j = k->j;
  int n = 2 * j->nchunks, bwd = t >= j->nchunks;
  double cap = j->opt.param_prefetch ? j->opt.prefetch_bucket : 0;
  if (!j->opt.param_prefetch)
    return;
  if (!k->zero3) {
    for (int s = t + 1; s < n && (s >= j->nchunks) == bwd; s++) {
      int v = use_unit(j, s);
      if (v < 0)
        continue;
      fetch(k, v, bwd, 1);
      return;
    }
    return;
  }
  /* ... and no more than stage3_max_live_parameters gathered at once. */
  cap = fmin(cap, SS_ZERO3_MAX_LIVE_ELEMENTS - k->live);
  double taken = 0;
  int first = -1, last = -1, first_bwd = bwd;
  for (int s = t + 1; s < n && taken < cap; s++) {
    int v = use_unit(j, s);
    if (v < 0 || k->avail[v] >= j->units[v].params)
      continue;
    double got = pop_tensors(k, v, taken, cap);
    if (got > 0) {
      taken += got;
      k->last_gather[v] = j->ncolls; /* the all-gather about to be added */
      if (first < 0) {
        first = v;
        first_bwd = s >= j->nchunks;
      }
      last = v;
    }
  }
  if (taken > 0) {
    ss_coll_spec* c = gather(k, first, first_bwd, 1, taken);
    c->last = last;
  }
}

/* The elements of the uses strictly between t and the next use of unit u (ZeRO-3's reuse distance:
 * a parameter used again within stage3_max_reuse_distance elements is not released). */
static double reuse_distance(const plan* j, int t, int u)
{
  double d = 0;
  for (int s = t + 1; s < 2 * j->nchunks; s++) {
    int v = use_unit(j, s);
    if (v == u)
      return d;
    if (v >= 0)
      d += j->units[v].params;
  }
  return INFINITY;
}

static void release(walk* k, int u)
{
  k->live -= k->avail[u];
  k->avail[u] = 0;
  k->next_tensor[u] = 0;
}

/* The gradients of unit u reduced to their owners; hybrid: and that shard across the replicas. */
static void reduce(walk* k, int u)
{
  plan* j = k->j;
  double bytes = j->units[u].params * j->shard_bytes_per_param;
  add(j, SS_CK_REDUCE, SS_OP_REDUCE_SCATTER, k->hybrid_scope, u, bytes);
  if (k->hybrid_scope == SS_SCOPE_INSTANCE)
    add(j, SS_CK_REPLICA, SS_OP_ALLREDUCE, SS_SCOPE_CROSS, u, bytes);
}

/* One use: what its pass issues before it runs (the root's parameters first, then its unit's,
 * then a prefetch), what it waits for, and what it issues after (the gradients'). */
static void use(walk* k, int t, int* bucket, double* peak)
{
  plan* j = k->j;
  int bwd = t >= j->nchunks, c = bwd ? 2 * j->nchunks - 1 - t : t, u = j->chunks[c].unit;
  int root = j->nunits > 0 && j->units[j->nunits - 1].root ? j->nunits - 1 : -1;
  ss_chunk_use* cu = bwd ? &j->chunks[c].bwd : &j->chunks[c].fwd;
  cu->before0 = j->ncolls;
  if (t == 0 && root >= 0)
    fetch(k, root, 0, 0);
  if (u >= 0)
    fetch(k, u, bwd, 0); /* nothing when it is kept from its forward (SHARD_GRAD_OP, the root) */
  cu->gate = u >= 0 ? k->last_gather[u] : root >= 0 ? k->last_gather[root] : -1;
  prefetch(k, t);
  cu->nbefore = j->ncolls - cu->before0;
  /* Without overlap_comm DeepSpeed gathers on the default stream: the pass waits for its prefetch too. */
  if (!ss_shard_overlap_comm(j->opt.shard, j->opt.overlap_comm) && cu->nbefore > 0)
    cu->gate = j->ncolls - 1;
  *peak = fmax(*peak, k->live + k->persistent);
  cu->after0 = j->ncolls;
  if (!bwd) {
    /* A mode that keeps a unit from forward to backward (SHARD_GRAD_OP, _HYBRID_SHARD_ZERO2) does
     * not free it; FULL_SHARD and HYBRID_SHARD free a non-root unit after its forward; ZeRO-3 keeps
     * what is used again soon. */
    int keep = k->mode->keep_after_forward || (k->zero3 && reuse_distance(j, t, u) <= j->opt.reuse_distance);
    if (u >= 0 && !keep)
      release(k, u);
  } else if (k->mode->grads == SS_GRADS_ZERO_BUCKETS) {
    /* ZeRO-3 reduces its buckets of reduce_bucket_size elements as backward fills them. */
    for (; *bucket < j->nbuckets && j->buckets[*bucket].last_layer >= j->chunks[c].first_layer; (*bucket)++)
      add(j, SS_CK_BUCKET, SS_OP_REDUCE_SCATTER, SS_SCOPE_ALL, *bucket, j->buckets[*bucket].bytes);
    if (u >= 0)
      release(k, u);
  } else {
    if (u >= 0) {
      reduce(k, u);
      release(k, u);
    }
    if (c == 0 && root >= 0) {
      reduce(k, root);
      release(k, root);
    }
  }
  cu->nafter = j->ncolls - cu->after0;
}

static int walk_all(plan* j)
{
  const ss_shard_mode* mode = ss_shard_mode_of(j->opt.shard);
  int zero3 = mode->units == SS_UNITS_LAYERS;
  int hybrid = mode->hybrid && j->instances > 1;
  double persistent = 0;
  int rc = make_units(j, &persistent);
  if (!rc)
    rc = make_chunks(j);
  if (rc)
    return rc;
  /* ZeRO-3's persistent parameters are gathered again after every step (stage3.py _post_step). */
  if (zero3 && persistent > 0) {
    j->post_bytes = calloc(1, sizeof(double));
    if (!j->post_bytes)
      return SS_ENOMEM;
    j->npost = 1;
    j->post_bytes[0] = persistent * j->shard_bytes_per_param;
  }
  size_t most = 6 * (size_t)j->nchunks + 2 * (size_t)j->nunits + (size_t)j->nbuckets + (size_t)j->npost +
                (size_t)j->nmetric + 4;
  j->colls_cap = (int)most;
  j->colls = calloc(most, sizeof(ss_coll_spec));
  walk k = {j,
            mode,
            zero3,
            hybrid ? SS_SCOPE_INSTANCE : SS_SCOPE_ALL,
            calloc((size_t)j->nunits + 1, sizeof(double)),
            calloc((size_t)j->nunits + 1, sizeof(int)),
            calloc((size_t)j->nunits + 1, sizeof(int)),
            0,
            zero3 ? persistent : 0};
  if (!j->colls || !k.avail || !k.next_tensor || !k.last_gather) {
    free(k.avail);
    free(k.next_tensor);
    free(k.last_gather);
    return SS_ENOMEM;
  }
  double peak = 0;
  int bucket = 0;
  for (int t = 0; t < 2 * j->nchunks; t++)
    use(&k, t, &bucket, &peak);
  ss_assert(bucket == j->nbuckets);
  j->gathered_peak = peak * j->shard_bytes_per_param;
  free(k.avail);
  free(k.next_tensor);
  free(k.last_gather);
  return SS_OK;
}

int ss_wrap_plan(const ss_wrap_in* in, ss_wrap* out)
{
  plan j = {in->w,
            *in->o,
            in->instances,
            in->buckets,
            in->nbuckets,
            in->bytes_per_param,
            in->nmetric,
            0,
            NULL,
            0,
            NULL,
            0,
            NULL,
            0,
            NULL,
            0,
            0};
  int rc = walk_all(&j);
  *out = (ss_wrap){j.units,  j.nunits,    j.chunks,     j.nchunks, j.colls,
                   j.ncolls, j.colls_cap, j.post_bytes, j.npost,   j.gathered_peak};
  if (rc)
    ss_wrap_free(out);
  return rc;
}

void ss_wrap_free(ss_wrap* w)
{
  SS_FREE_ALL(w->units, w->chunks, w->colls, w->post_bytes);
  *w = (ss_wrap){0};
}
