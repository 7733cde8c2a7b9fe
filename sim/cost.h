/* cost: alpha-beta figures of the collectives of a job, from its platform alone (no SimGrid): hop
 * latencies for the fast fidelity, predicted times for choosing an algorithm as NCCL's tuner does. */
#ifndef SS_COST_H
#define SS_COST_H

#include "job.h"

/* Largest latency (s) of a hop of: the global rings, the rings inside an instance, the rings of
 * same-index GPUs across instances (0 when there is no such hop). */
double ss_cost_alpha_global(const ss_job* j);
double ss_cost_alpha_intra(const ss_job* j);
double ss_cost_alpha_cross(const ss_job* j);

/* Predicted time (s) of an allreduce of bytes with algorithm alg (not AUTO): latency and bottleneck
 * bandwidth of each phase, with the flows that share a NIC splitting it. Contention beyond that
 * is what the simulation adds. */
double ss_cost_allreduce(const ss_job* j, ss_allreduce alg, double bytes);

/* The algorithm AUTO stands for at this size: ring on one instance, else the fastest prediction. */
ss_allreduce ss_cost_choose(const ss_job* j, double bytes);

#endif
