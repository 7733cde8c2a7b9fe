/* stall: the timeline breakdown of a run's steady state (every rank, iterations after warm-up). */
#ifndef SS_STALL_H
#define SS_STALL_H

#include "timeline.h"

typedef struct ss_breakdown {
  double iteration_s;        /* mean over ranks of the steady-state iteration time */
  double part_s[SS_CAT_COUNT]; /* mean per iteration over ranks; the parts sum to iteration_s */
  double detail_s[SS_DETAIL_COUNT]; /* the same for the stalls' details (each within its stall) */
  double first_iteration_s;  /* iteration 0 of rank 0, warm-up included (start-up cost) */
  double rank_iteration_min_s; /* the fastest and slowest rank's mean iteration (asynchronous */
  double rank_iteration_max_s; /* workers differ) */
  double staleness_mean;     /* asynchronous parameter servers: updates per push (ss_timeline) */
  double staleness_max;
  double init_s;             /* start-up reads, before iteration 0 (ss_timeline) */
} ss_breakdown;

/* Breakdown over iterations first..first+count-1 of every rank. Requires count >= 1 and the
 * iterations within the timeline. */
void ss_stall_timeline(const ss_timeline* t, int first, int count, ss_breakdown* out);

#endif
