/* stall: the timeline breakdown of a run's steady state (every rank, iterations after warm-up). */
#ifndef SS_STALL_H
#define SS_STALL_H

#include "timeline.h"

typedef struct ss_breakdown {
  double iteration_s;               /* mean over ranks of the steady-state iteration time */
  double part_s[SS_CAT_COUNT];      /* mean per iteration over ranks; the parts sum to iteration_s */
  double detail_s[SS_DETAIL_COUNT]; /* the same for the stalls' details (each within its stall) */
  double first_iteration_s;         /* iteration 0 of rank 0, warm-up included (start-up cost) */
  double rank_iteration_min_s;      /* the fastest and slowest rank's mean iteration (asynchronous */
  double rank_iteration_max_s;      /* workers differ) */
  double staleness_mean;            /* asynchronous parameter servers: updates per push (ss_timeline) */
  double staleness_max;
  double init_s;             /* start-up reads, before iteration 0 (ss_timeline) */
  double util[SS_RES_COUNT]; /* each resource's utilisation in the measured window, 0..1 (ss_timeline; */
                             /* the GPU's: the compute share of the iteration) */
  ss_res limit;              /* the resource that limits the run (ss_stall_limit) */
} ss_breakdown;

/* A non-GPU resource limits only when the stalls it can cause are at least this share of the
 * iteration (docs/model.md, "What limits a run"). */
#define SS_LIMIT_STALL_SHARE 0.01

/* Breakdown over iterations first..first+count-1 of every rank. Requires count >= 1 and the
 * iterations within the timeline. */
void ss_stall_timeline(const ss_timeline* t, int first, int count, ss_breakdown* out);

/* The resource that limits a run of breakdown b (its util[] filled): the GPU, unless another
 * resource is more utilised and the stalls it can cause reach SS_LIMIT_STALL_SHARE of the iteration;
 * then the most utilised such resource (ties: the GPU, then the lower ss_res). */
ss_res ss_stall_limit(const ss_breakdown* b);

/* A resource's key ("nvlink", ..., "cpu", "disk", "gpu") and its words in a table ("NVLink",
 * "loader CPU", ...). */
const char* ss_res_name(ss_res r);
const char* ss_res_label(ss_res r);

#endif
