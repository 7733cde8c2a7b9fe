/* derive: build a job, then derive what needs it complete. */
#include "derive.h"
#include "a2a.h"

#include "cluster.h"
#include "cost.h"
#include "tuner.h"

/* The time of op on bytes among g GPUs in each of m instances (par.h's cost_s): the cost model on
 * the job as it sees that group. */
static double group_a2a(const void* ctx, int per, int stride, int m, double bytes, int* cross)
{
  ss_a2a_time t;
  ss_a2a_time_of((const ss_job*)ctx, &(ss_a2a_shape){per, stride, m}, bytes, &t);
  *cross = t.cross && t.cross_s >= t.intra_s;
  return t.total_s;
}

static double group_cost(const void* ctx, int g, int m, ss_coll_op op, ss_coll_scope scope, double bytes)
{
  ss_job v = *(const ss_job*)ctx;
  v.gpus_per_instance = g;
  v.instances = m;
  v.ngpus = g * m;
  return ss_cost_scoped(&v, op, scope, bytes);
}

void ss_derive_par_in(const ss_job* j, ss_par_in* in)
{
  const ss_gpu* g = &j->platform->gpus[0];
  *in = (ss_par_in){.workload = j->workload,
                    .o = &j->opt,
                    .precision = j->precision,
                    .kernels = j->kernels,
                    .attention = j->attention,
                    .attn_share = j->attn_share,
                    .fwd_flops = j->fwd_flops,
                    .bwd_flops = j->bwd_flops,
                    .opt_flops = j->opt_flops,
                    .speed_flops = g->speed_flops,
                    .memory_bytes = g->memory_bytes,
                    .interference = j->interference,
                    .gpu_model = g->model,
                    .gpus_per_instance = j->gpus_per_instance,
                    .instances = j->instances,
                    .cost_s = group_cost,
                    .a2a_s = group_a2a,
                    .ctx = j};
}

int ss_derive_job(const ss_platform* p, const ss_workload* w, const ss_options* o, ss_job** out, ss_err* err)
{
  ss_job* j = NULL;
  int rc = ss_job_new(p, w, o, &j, err);
  if (rc)
    return rc;
  /* The switch core is hardware: it carries the NICs' line rate, whatever the transport gets out of them. */
  j->core_bandwidth_bytes_per_s = j->instances * ss_cluster_nic_line_bandwidth(j) / o->oversub;
  /* The tuner's choice depends on the bytes alone: a bucket of a size already seen (a model's layers
   * repeat) takes its algorithm. */
  int tuned = o->allreduce == SS_ALLREDUCE_AUTO || o->allreduce == SS_ALLREDUCE_FASTEST;
  for (int b = 0; tuned && b < j->nbuckets; b++) {
    int seen = b - 1;
    while (seen >= 0 && j->buckets[seen].bytes != j->buckets[b].bytes)
      seen--;
    j->bucket_alg[b] = seen >= 0
                           ? j->bucket_alg[seen]
                           : ss_tuner_algorithm(j, ss_shard_mode_of(j->opt.shard)->bucket_op, j->buckets[b].bytes);
  }
  if (p->nnics > 0) {
    j->resolved.nic_gbps = ss_cluster_nic_line_bandwidth(j) * 8 / 1e9;
    j->resolved.nic_latency_us = ss_cluster_nic_wire_latency(j) * 1e6;
  }
  ss_par_in in;
  ss_derive_par_in(j, &in);
  if (j->mp.on && (rc = ss_par_derive(&in, &j->mp, err)) != SS_OK) {
    ss_job_free(j);
    return rc;
  }
  *out = j;
  return SS_OK;
}
