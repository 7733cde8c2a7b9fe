/* failures: a job's figures for goodput.h's closed form, from its platform, workload and options: the
 * job's mean time between failures, a checkpoint's size and write, the restart and the interval
 * (docs/model.md, "Failures and checkpoints"). */
#ifndef SS_FAILURES_H
#define SS_FAILURES_H

#include "err.h"
#include "goodput.h"
#include "option.h"
#include "platform.h"
#include "workload.h"

/* A job's failures: on (off with --no-failures or --ideal), the figures goodput.h takes (mtbf_s
 * INFINITY when off), and what they come from. */
typedef struct ss_failures {
  int on;
  double spot_mtbf_h;       /* a spot instance's mean time to its reclaim (--spot-reclaim-pct); 0: not spot */
  double instance_mtbf_h;   /* --mtbf-hours, or Llama 3's rate per GPU over the instance's GPUs */
  double mtbf_s;            /* the job's: the instance's over the instances */
  double ckpt_bytes;        /* the model's parameters x ss_goodput_ckpt_bytes_per_param */
  double write_bytes_per_s; /* all instances together to --checkpoint-to */
  double write_s;
  double restart_s;
  double interval_s; /* --checkpoint-every's minutes, or 0: Young's optimum */
} ss_failures;

/* The restart's default (--restart-min), minutes; the spot instances reclaimed a month (--spot-reclaim-pct), %. */
extern const double ss_failures_restart_min;
extern const double ss_failures_spot_reclaim_pct;

/* Fill out for a job of instances instances of p training w with o, bought as purchase (spot: its
 * reclaims counted as failures too). SS_OK, or SS_EINPUT (err naming
 * the option) when --checkpoint-every is neither auto nor a positive number of minutes, when its
 * interval is shorter than a checkpoint's write, or when no training would progress (a failure's
 * loss at least the time between failures). */
int ss_failures_derive(const ss_platform* p, const ss_workload* w, const ss_options* o, int instances,
                       ss_purchase purchase, ss_failures* out, ss_err* err);

/* The goodput of f over work_s seconds of failure-free training into *out (goodput.h); f derived. */
void ss_failures_goodput(const ss_failures* f, double work_s, ss_goodput* out);

#endif
