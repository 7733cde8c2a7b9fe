/* timeline: per-rank, per-iteration time accounting of the simulated run (no SimGrid types). */
#ifndef SS_TIMELINE_H
#define SS_TIMELINE_H

#include "category.h"

/* The resources whose utilisation a run measures over its measured window (docs/model.md, "What
 * limits a run"): the link classes, in ss_link_class's order (sim/platform.h; the engine checks
 * it), the CPUs that prepare the data, the disks, and the GPUs (from the breakdown, sim/stall.c). */
typedef enum ss_res {
  SS_RES_NVLINK,
  SS_RES_NVSWITCH,
  SS_RES_PCIE,
  SS_RES_SOCKET,
  SS_RES_NIC,
  SS_RES_SHM,
  SS_RES_CPU,
  SS_RES_DISK,
  SS_RES_GPU,
  SS_RES_COUNT
} ss_res;

typedef struct ss_timeline {
  int nranks;
  int niters;
  double* start_s; /* [rank * niters + iter] */
  double* end_s;
  double* acc_s; /* [(rank * niters + iter) * SS_CAT_COUNT + cat] */
  double* det_s; /* [(rank * niters + iter) * SS_DETAIL_COUNT + detail] */
  /* Asynchronous parameter servers: updates applied, and the staleness of each (updates other
   * workers applied to its part since its worker last pulled it): sum and largest. */
  long ps_updates;
  double ps_staleness_sum;
  long ps_staleness_max;
  long* rank_updates; /* [rank]: the same, per worker */
  double* rank_staleness_sum;
  /* [rank * niters + iter]: how many of the cluster's ranks it stands for in that iteration's means
   * (1 each, unless identical instances are simulated by a few with compute jitter: straggler.c). */
  double* weight;
  double init_s; /* start-up reads (--init-io): when the last worker was done, 0 without */
  /* Each resource's utilisation over the measured window (the engine; the GPU's is left to
   * ss_stall_timeline): its most loaded link, CPU or disk, 0..1. */
  double util[SS_RES_COUNT];
} ss_timeline;

/* Allocate a zeroed timeline; NULL when out of memory or larger than the machine's memory. Free with ss_timeline_free (NULL is fine). */
ss_timeline* ss_timeline_new(int nranks, int niters);
void ss_timeline_free(ss_timeline* t);

/* Add dt seconds of category cat to (rank, iter). */
void ss_timeline_add(ss_timeline* t, int rank, int iter, ss_cat cat, double dt);

/* Add dt seconds of detail d to (rank, iter): a part of the stall it belongs to, added to that
 * category by the caller too. */
void ss_timeline_detail(ss_timeline* t, int rank, int iter, ss_detail d, double dt);

/* Record the simulated start and end date of (rank, iter). */
void ss_timeline_span(ss_timeline* t, int rank, int iter, double start_s, double end_s);

#endif
