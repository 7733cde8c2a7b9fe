/* derive: build a job, then derive what needs it complete. */
#include "derive.h"

#include "cluster.h"
#include "cost.h"
#include "par.h"
#include "tuner.h"

int ss_derive_job(const ss_platform* p, const ss_workload* w, const ss_options* o, ss_job** out, ss_err* err)
{
  ss_job* j = NULL;
  int rc = ss_job_new(p, w, o, &j, err);
  if (rc)
    return rc;
  /* The switch core is hardware: it carries the NICs' line rate, whatever the transport gets out of them. */
  j->core_bandwidth_bytes_per_s = j->instances * ss_cluster_nic_line_bandwidth(j) / o->oversub;
  for (int b = 0; b < j->nbuckets; b++)
    if (o->allreduce == SS_ALLREDUCE_AUTO || o->allreduce == SS_ALLREDUCE_FASTEST)
      j->bucket_alg[b] = ss_tuner_algorithm(j, ss_shard_mode_of(j->opt.shard)->bucket_op, j->buckets[b].bytes);
  if (p->nnics > 0) {
    j->resolved.nic_gbps = ss_cluster_nic_line_bandwidth(j) * 8 / 1e9;
    j->resolved.nic_latency_us = ss_cluster_nic_wire_latency(j) * 1e6;
  }
  if (j->mp.on && (rc = ss_par_derive(j, err)) != SS_OK) {
    ss_job_free(j);
    return rc;
  }
  *out = j;
  return SS_OK;
}
