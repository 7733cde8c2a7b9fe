/* failures: a job's figures for the failures' closed form (failures.h). */
#include "failures.h"

#include "memory.h"

#include <math.h>
#include <string.h>

/* ESTIMATE: 15 min, the low end of the recoveries AWS reports before its checkpointless training ("from 15-30
 * minutes or more to under 2 minutes", SageMaker HyperPod, 2025) and MegaScale's catch-up "within 15 minutes"
 * (ByteDance, NSDI 2024): calibration/failures_2026.md. */
const double ss_failures_restart_min = 15;

/* ESTIMATE: 10% a month, between the bands third-party copies of AWS's Spot Instance Advisor give for
 * p4d.24xlarge (5-10%) and p5.48xlarge (10-15% and 15-20%, by region): calibration/failures_2026.md. */
const double ss_failures_spot_reclaim_pct = 10;

/* Hours in a month (the Spot Instance Advisor's "trailing month"): 8760 / 12. */
#define MONTH_H 730.0

int ss_failures_derive(const ss_platform* p, const ss_workload* w, const ss_options* o, int instances,
                       ss_purchase purchase, ss_failures* out, ss_err* err)
{
  memset(out, 0, sizeof(*out));
  if (ss_goodput_parse_interval(o->checkpoint_every, &out->interval_s))
    return ss_err_set(err, NULL, 0, "--checkpoint-every expects auto or a number of minutes above 0, got '%s'",
                      o->checkpoint_every);
  int per = o->gpus > 0 ? o->gpus : p->ngpus;
  out->on = o->failures && !o->ideal;
  out->instance_mtbf_h = o->mtbf_hours > 0 ? o->mtbf_hours : SS_GOODPUT_GPU_MTBF_H / per;
  /* A spot instance also ends when AWS reclaims it: the two rates add. */
  if (purchase == SS_PURCHASE_SPOT) {
    double pct = o->spot_reclaim_pct > 0 ? o->spot_reclaim_pct : ss_failures_spot_reclaim_pct;
    out->spot_mtbf_h = MONTH_H / (pct / 100);
  }
  double rate = 1 / out->instance_mtbf_h + (out->spot_mtbf_h > 0 ? 1 / out->spot_mtbf_h : 0);
  out->mtbf_s = out->on ? 3600 / rate / instances : INFINITY;
  double params = 0;
  for (int l = 0; l < w->nlayers; l++)
    params += w->layers[l].params;
  out->ckpt_bytes = params * ss_goodput_ckpt_bytes_per_param(ss_memory_optimizer_bytes_per_param(w->optimizer));
  const ss_ckpt_target_facts* t = ss_ckpt_target_of((ss_ckpt_target)o->checkpoint_to);
  double one = t->per_instance_bytes_per_s > 0 ? t->per_instance_bytes_per_s : p->disk_write_bytes_per_s;
  out->write_bytes_per_s = one * instances;
  if (t->aggregate_bytes_per_s > 0)
    out->write_bytes_per_s = fmin(out->write_bytes_per_s, t->aggregate_bytes_per_s);
  if (o->checkpoint_gbps > 0)
    out->write_bytes_per_s = o->checkpoint_gbps * 1e9;
  out->write_s = out->write_bytes_per_s > 0 ? out->ckpt_bytes / out->write_bytes_per_s : 0;
  out->restart_s = (o->restart_min >= 0 ? o->restart_min : ss_failures_restart_min) * 60;
  /* Without failures an interval asked for still costs its writes; auto writes none. */
  ss_goodput g;
  ss_goodput_in in = {1, out->mtbf_s, out->write_s, out->restart_s, out->interval_s};
  char why[512];
  if (ss_goodput_compute(&in, &g, why, sizeof(why)))
    return ss_err_set(err, NULL, 0, "%s", why);
  return SS_OK;
}

void ss_failures_goodput(const ss_failures* f, double work_s, ss_goodput* out)
{
  ss_goodput_in in = {work_s, f->mtbf_s, f->write_s, f->restart_s, f->interval_s};
  char why[512];
  if (ss_goodput_compute(&in, out, why, sizeof(why)))
    *out = (ss_goodput){.wall_s = NAN, .goodput = NAN};
}
