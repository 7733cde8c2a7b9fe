/* stash: the differential stall breakdown of the Stash study (ICDCS'23): the runs Stash makes on a
 * real machine, each simulated in a process of its own, and the stalls as their differences. */
#ifndef SS_STASH_H
#define SS_STASH_H

#include "err.h"
#include "job.h"
#include "platform.h"
#include "stall.h"
#include "workload.h"

/* The runs (data/stash_methodology.md, DESIGN.md section 3). SINGLE is the synthetic run of the
 * same GPUs on one instance, made for a job that spans instances. */
typedef enum ss_run { SS_RUN0, SS_RUN1, SS_RUN2, SS_RUN3, SS_RUN_SINGLE, SS_RUN_COUNT } ss_run;

/* Parts of the differential breakdown, in report order. */
typedef enum ss_diff {
  SS_DIFF_COMPUTE,      /* RUN0 */
  SS_DIFF_INTERCONNECT, /* SINGLE - RUN0 (RUN1 - RUN0 on one instance) */
  SS_DIFF_NETWORK,      /* RUN1 - SINGLE */
  SS_DIFF_PREP,         /* RUN3 - RUN1 */
  SS_DIFF_FETCH,        /* RUN2 - RUN3 */
  SS_DIFF_COUNT
} ss_diff;

#define SS_STASH_MAX_NOTES 6

typedef struct ss_stash {
  ss_job* job[SS_RUN_COUNT];     /* owned; job[SS_RUN_SINGLE] is NULL unless the job spans instances */
  ss_platform* single;           /* owned: the instance of the SINGLE run */
  int single_exact;              /* it has the job's number of GPUs (else the nearest of that GPU model) */
  ss_breakdown bd[SS_RUN_COUNT]; /* each run's timeline breakdown; bd[].iteration_s is its time T */
  double simulated_s[SS_RUN_COUNT];
  double part_s[SS_DIFF_COUNT];            /* seconds per iteration; they sum to T(RUN2) */
  double pct[SS_DIFF_COUNT];               /* Stash's percentages (tool/analyze.py denominators) */
  double iterations_per_epoch;             /* of the job: samples / (batch x GPUs) */
  double epoch_s[SS_RUN_COUNT];            /* an epoch at each run's speed (RUN0: one GPU does all of it) */
  double cost_usd_per_epoch[SS_RUN_COUNT]; /* the instances each run rents x their price x epoch_s */
  char stack[512];                         /* the stack the runs used, in words */
  int nnotes;
  char notes[SS_STASH_MAX_NOTES][512]; /* where the differential and timeline views disagree, and why */
} ss_stash;

/* Plan the runs of a --stash job (options o, already valid for p and w; given: the options the
 * user set, which Stash's stack leaves as they are): RUN2 is the job with a
 * cold cache, RUN3 with all of the dataset cached, RUN1 synthetic, RUN0 synthetic on one GPU of
 * one instance. A job over several instances adds SINGLE on the instance file single_path, or when
 * NULL the instance of the same GPU model in p's directory with that many GPUs (else the one with
 * the most). Borrows p and w; free with ss_stash_free. */
int ss_stash_plan(const ss_platform* p, const ss_workload* w, const ss_options* o, const ss_optset* given,
                  const char* single_path, ss_stash** out, ss_err* err);

/* Simulate every planned run, each in a forked process (SimGrid runs once per process), as many at
 * a time as there are cores, then derive the breakdown. A run that fails gives its error. */
int ss_stash_run(ss_stash* s, int ncfg, char** cfg, ss_err* err);

/* Derive the differential breakdown, epoch times, costs and notes from bd[] (no simulation).
 * Returns 0, or SS_EINPUT with err set when a run's iteration cannot give them
 * (ss_job_check_iteration). */
int ss_stash_derive(ss_stash* s, ss_err* err);

void ss_stash_free(ss_stash* s);

/* Short description of a run ("synthetic data, 1 GPU"), and the JSON key prefix of a run ("run0",
 * "single_instance") and of a part ("interconnect_stall"). */
const char* ss_stash_run_key(ss_run r);
const char* ss_stash_diff_key(ss_diff d);

/* The category part d of the differential breakdown measures (its key is that category's name). */
ss_cat ss_stash_diff_cat(ss_diff d);

#endif
