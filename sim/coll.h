/* coll: a rank's collective stream on SimGrid communications: allreduce (ring, hierarchical,
 * double binary tree), reduce-scatter and all-gather (ring, hierarchical), at two fidelities, and
 * the time its collectives spend crossing instances and on the GPU. */
#ifndef SS_COLL_H
#define SS_COLL_H

#include "actors.h"

/* The collective stream of one rank (runs on its GPU host): reduces buckets in order. */
void ss_coll_actor(ss_sim* s, const ss_actor_arg* a);

/* Collective c of the run (an allreduce of coll_bytes[c] with coll_alg[c]) among all ranks, run by
 * rank r's stream at the job's fidelity. */
void ss_coll_allreduce(ss_sim* s, int r, int c);

/* Wait until rank r's collective stream has reduced want collectives (over all iterations). Returns
 * the part of the wait its collectives spent crossing instances, at most the wait. */
double ss_coll_wait_reduced(ss_sim* s, int r, long want);

/* Network time of rank r's collectives up to now (see ss_rank.net). */
double ss_coll_net_time(const ss_sim* s, int r);

/* Time collectives have run on rank r's GPU up to now (see ss_rank.busy): its compute ran
 * 1 + job.interference times slower meanwhile. */
double ss_coll_busy_time(const ss_sim* s, int r);

#endif
