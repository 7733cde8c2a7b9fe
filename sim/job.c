/* job: what to simulate, validated and derived. */
#include "job.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* PyTorch DDP's bucket assignment: gradients in backward order fill a bucket until it reaches its
 * cap (first bucket 1 MiB, then bucket_mib MiB); a layer is never split. A cap of 0 gives one
 * bucket per layer (no fusion), as ASTRA-sim's per-layer data-parallel workloads do. */
static int make_buckets(ss_job* j)
{
  const ss_workload* w = j->workload;
  j->buckets = calloc((size_t)w->nlayers, sizeof(ss_bucket));
  if (!j->buckets)
    return SS_ENOMEM;
  double cap = j->opt.bucket_mib > 0 ? SS_DDP_FIRST_BUCKET_BYTES : 0;
  ss_bucket* cur = NULL;
  for (int l = w->nlayers - 1; l >= 0; l--) {
    double bytes = w->layers[l].params * w->grad_bytes_per_param;
    if (bytes <= 0)
      continue;
    if (!cur) {
      cur = &j->buckets[j->nbuckets++];
      cur->first_layer = l;
    }
    cur->bytes += bytes;
    cur->last_layer = l;
    if (cur->bytes >= cap) {
      cur = NULL;
      cap = j->opt.bucket_mib * 1024.0 * 1024.0;
    }
  }
  return SS_OK;
}

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
    for (int p = 0; p < np; p++)
      if (pieces[p].layer <= j->buckets[b].first_layer && pieces[p].layer >= j->buckets[b].last_layer)
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

/* The rings among all ranks: per instance, each intra ring cut into a chain, chains joined. */
static int global_rings(ss_job* j)
{
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

/* The options as the job uses them: every value derived from the inputs filled in (the network's
 * figures come with the plan: plan.c). */
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
}

int ss_job_new(const ss_platform* p, const ss_workload* w, const ss_options* o, ss_job** out, ss_err* err)
{
  if (check_cluster(p, o, err))
    return SS_EINPUT;
  int per_instance = o->gpus > 0 ? o->gpus : p->ngpus;
  int ngpus = per_instance * o->instances;
  int workers = o->workers >= 0 ? o->workers : p->vcpus / per_instance;
  long actors = (long)ngpus * (2 + (o->synthetic ? 0 : workers)) + (o->arch == SS_ARCH_PS ? o->servers : 0);
  if (2L * ngpus > SS_MAX_ACTORS)
    return ss_err_set(err, NULL, 0,
                      "%d GPUs make %ld simulated processes (2 per GPU); at most %d fit (each has its own stack "
                      "mapping): use fewer --instances or --gpus",
                      ngpus, 2L * ngpus, SS_MAX_ACTORS);
  if (actors > SS_MAX_ACTORS)
    return ss_err_set(err, NULL, 0,
                      "%d GPUs with %d loader worker%s each make %ld simulated processes; at most %d fit (each has "
                      "its own stack mapping): use fewer --workers, or --synthetic",
                      ngpus, workers, workers == 1 ? "" : "s", actors, SS_MAX_ACTORS);
  ss_job* j = calloc(1, sizeof(*j));
  if (!j)
    return ss_err_nomem(err);
  j->platform = p;
  j->workload = w;
  j->opt = *o;
  j->ngpus = ngpus;
  j->instances = o->instances;
  j->gpus_per_instance = per_instance;
  j->batch = o->batch > 0 ? o->batch : w->batch_per_gpu;
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
  j->workers = workers;
  double dataset_bytes = w->dataset.samples * w->dataset.bytes_per_sample;
  j->cache = o->cache >= 0 ? o->cache : fmin(1.0, 0.8 * p->memory_gib * 1073741824.0 / dataset_bytes);
  /* Work is given to SimGrid in flops of the platform's GPU: a reference time becomes time x
   * (device time / reference time) x device speed. That ratio is measured when the workload has
   * an entry for the platform's GPU, else the ratio of peak speeds (the same then). */
  double speed = p->gpus[0].speed_flops;
  j->device = ss_workload_device(w, p->gpus[0].model);
  double ratio_peak = w->ref_gpu_flops / speed;
  double fwd_ratio = j->device ? j->device->fwd_ratio : ratio_peak;
  double bwd_ratio = j->device ? j->device->bwd_ratio : ratio_peak;
  double opt_ratio = j->device ? j->device->total_ratio : ratio_peak;
  double per_batch = (double)j->batch / w->ref_batch * speed * o->compute_scale;
  j->fwd_flops = calloc((size_t)w->nlayers, sizeof(double));
  j->bwd_flops = calloc((size_t)w->nlayers, sizeof(double));
  int rc = j->fwd_flops && j->bwd_flops ? SS_OK : SS_ENOMEM;
  for (int l = 0; !rc && l < w->nlayers; l++) {
    j->fwd_flops[l] = w->layers[l].fwd_s * fwd_ratio * per_batch;
    j->bwd_flops[l] = w->layers[l].bwd_s * bwd_ratio * per_batch;
    j->fwd_total_flops += j->fwd_flops[l];
  }
  j->opt_flops = w->optimizer_s * opt_ratio * speed * o->compute_scale;
  j->h2d_bytes = j->batch * w->dataset.decoded_bytes_per_sample;
  if (o->init_io != SS_INIT_NONE) {
    double params = 0;
    for (int l = 0; l < w->nlayers; l++)
      params += w->layers[l].params;
    j->init_bytes = params * w->grad_bytes_per_param + o->init_shard_mib * 1048576.0;
  }
  j->prep_flops_per_sample = w->dataset.prep_cpu_s_per_sample * 1e9;
  if (!rc && (j->ngpus > 1 || o->arch == SS_ARCH_PS))
    rc = make_buckets(j);
  if (!rc && o->arch == SS_ARCH_PS) {
    j->ps_hosts = o->placement == SS_PS_COLOCATED ? j->instances : o->server_hosts > 0 ? o->server_hosts : o->servers;
    rc = make_ps_parts(j);
  }
  int* gpus = malloc(sizeof(int) * (size_t)per_instance);
  if (!gpus)
    rc = SS_ENOMEM;
  for (int i = 0; !rc && i < per_instance; i++)
    gpus[i] = i;
  if (!rc)
    rc = ss_topo_rings(p, gpus, per_instance, &j->intra);
  free(gpus);
  if (!rc)
    rc = global_rings(j);
  if (!rc && !(j->bucket_alg = calloc((size_t)j->nbuckets + 1, sizeof(ss_allreduce))))
    rc = SS_ENOMEM;
  for (int b = 0; !rc && b < j->nbuckets; b++)
    j->bucket_alg[b] = o->allreduce;
  resolve_options(j);
  if (rc) {
    ss_job_free(j);
    return ss_err_nomem(err);
  }
  *out = j;
  return SS_OK;
}

void ss_job_free(ss_job* j)
{
  if (!j)
    return;
  ss_topo_rings_free(&j->intra);
  ss_topo_rings_free(&j->rings);
  free(j->fwd_flops);
  free(j->bwd_flops);
  free(j->buckets);
  free(j->bucket_alg);
  free(j->ps_bucket_part0);
  free(j->ps_part_shard);
  free(j->ps_part_bytes);
  free(j->ps_shard_bytes);
  free(j);
}
