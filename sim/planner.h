/* planner: stash-sim plan: the configurations of one workload over instance types, instance
 * counts, allreduce algorithms and per-GPU batches, each simulated in a process of its own (as many
 * at a time as there are cores), ranked by time to train or by cost, with the time-cost Pareto
 * front and what the budget and the deadline drop (docs/plan.md). */
#ifndef SS_PLANNER_H
#define SS_PLANNER_H

#include "err.h"
#include "option.h"
#include "timeline.h"
#include "estimate.h"

#include <stdio.h>

/* One instance type to try: its short name and its file. */
typedef struct ss_planner_platform {
  const char* name;
  const char* path;
} ss_planner_platform;

/* One simulated configuration: what it is, and the figures of its run, as the run's own report
 * gives them (stash-sim PLATFORM WORKLOAD --instances N --allreduce A --batch B --samples S). */
typedef struct ss_planner_row {
  int platform; /* index into the platforms given */
  char* instance_type;
  char* gpu_model;
  int instances, gpus, batch;
  ss_allreduce allreduce;
  ss_shard shard;
  /* Tensor and pipeline parallelism: the layout (1, 1, GPUs without), micro-batch and micro-batches
   * (the batch and 1 without), schedule, chunks per stage and recomputation. */
  int tp, cp, ep, pp, dp, micro_batch, micro_batches, virtual_stages;
  ss_schedule schedule;
  ss_recompute recompute;
  int sequence_parallel, distributed_optimizer; /* a layout's (0 without one) */
  ss_precision precision;                       /* as run (never WORKLOAD) */
  double tokens_per_s, mfu;                     /* a language model's (0 otherwise) */
  double iteration_s, throughput_samples_per_s, epoch_s, cost_usd_per_epoch, price_usd_per_h;
  double time_to_train_s; /* start-up and the samples to train at the steady-state throughput */
  double cost_usd;        /* price x instances x time to train */
  /* With failures (failures.h): the goodput, the expected time to train and cost, which the plan ranks
   * by, filters by (--budget, --deadline) and draws its front with. */
  double goodput, expected_time_to_train_s, expected_cost_usd;
  double part_s[SS_CAT_COUNT];
  ss_res limit;                /* the resource that limits the run (ss_stall_limit) */
  double limit_util;           /* its utilisation in the measured window, 0..1 */
  ss_cat stall;                /* the largest stall (SS_CAT_COUNT when there is none) */
  const char* compute_scaling; /* how its GPU's times were obtained (ss_job_compute_scaling) */
  char* price_source;          /* where its price per hour comes from, as a run's report says it */
  int pareto;                  /* no other kept row is as fast and as cheap, and better in one */
  int verified;                /* simulated: the figures above are the simulation's, else the screen's */
  /* The screen's figures (screen.h; its time to train and cost with failures, as expected_*: the same as
   * those above for a row not verified). */
  double screen_iteration_s, screen_time_to_train_s, screen_cost_usd;
} ss_planner_row;

/* What a plan found. */
/* The most configurations a plan enumerates (each a job in memory before the first runs). */
#define SS_PLAN_MAX_CONFIGS 1000000

typedef struct ss_planner {
  const ss_planner_platform* platforms;
  int nplatforms;
  char* workload; /* the model's name */
  double samples; /* trained by each configuration */
  double epochs;  /* samples in epochs of the dataset */
  ss_objective objective;
  int configurations;           /* enumerated */
  int refused;                  /* the job's checks refused (an epoch shorter than an iteration, ...) */
  int* refused_by;              /* [nplatforms]: refused on each platform */
  ss_err* refused_by_first;     /* [nplatforms]: the first on each (GPU memory: what the platform's GPU lacks) */
  int not_whole;                /* --global-batch not a whole number of samples per GPU (or of micro-batches) */
  int not_dividing;             /* a layout t x p that does not divide the configuration's GPUs, or t above an
                             * instance's GPUs (not counted as configurations) */
  char not_dividing_first[192]; /* the first of them, and why ("t 3 x p 1 = 3 does not divide ...") */
  int sharded_one_gpu;          /* a sharding mode on a configuration of one GPU (not counted either) */
  int model_parallel;           /* the plan tries tensor or pipeline parallelism (--tps, --pps) */
  int failed;                   /* simulated and failed */
  ss_err failed_first;
  int over_budget, over_deadline;
  ss_planner_row* rows; /* kept, ranked */
  int nrows;
  int screened;       /* configurations screened (screen.h): the rows, simulated or not */
  int verify_asked;   /* --verify: the screen's best to simulate */
  int verified;       /* simulated (the rows marked verified) */
  int verify_cut;     /* of those asked, not simulated: beyond --max-minutes */
  double max_minutes; /* --max-minutes */
  ss_estimate work;   /* the simulations of the verification, estimated before the first (sim/estimate.h) */
  int estimated_only; /* --estimate: the configurations were built and estimated, none simulated */
  int cfg_refused;    /* the error is SimGrid's --cfg= refused (a usage error, as for a run) */
} ss_planner;

/* Plan workload over the platforms with the options o (the plan_* fields and every run option), SimGrid's
 * ncfg arguments cfg passed to each run. progress: "run K of N" on standard error. Returns 0 with
 * *out filled (free with ss_planner_free), or an error: a platform or the workload that does not
 * load, a list option that does not parse, no configuration left to simulate, more work than
 * --max-minutes (checked on the number of configurations before they are built, then on their
 * estimates before the first runs), or a run that could not start. With o->estimate nothing is
 * simulated: out->work holds the estimate and out->estimated_only is set. */
int ss_planner_run(const ss_planner_platform* platforms, int nplatforms, const ss_options* o, int ncfg, char** cfg,
                   int progress, ss_planner* out, ss_err* err);

void ss_planner_free(ss_planner* p);

/* Mark the Pareto front of rows[0..n) in time to train and total cost (brute force, n^2: n is the
 * configurations of one plan, hundreds). */
void ss_planner_pareto(ss_planner_row* rows, int n);

#endif
