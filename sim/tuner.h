/* tuner: NCCL's own choice of an algorithm and a protocol for a collective (NCCL_ALGO and NCCL_PROTO
 * unset), by the tuning model of the job's NCCL release (--nccl-version): its latencies, its view of
 * the bandwidths (channels found by its search over the instance's NICs and links, times a speed
 * from its list), its protocol factors and caps, its enabling rules (docs/model.md, "NCCL chooses";
 * the figures and their sources are in tuner.c). NCCL chooses between its ring and its tree; it may
 * choose what is not the fastest: --allreduce fastest is the what-if that takes the simulator's
 * fastest algorithm instead. */
#ifndef SS_TUNER_H
#define SS_TUNER_H

#include "job.h"

/* What NCCL's model says of one algorithm and protocol: its predicted time (s; < 0 when NCCL does
 * not enable it), and the figures that make it. */
typedef struct ss_tuner_entry {
  double time_s;
  double latency_us;       /* the model's latency of a call */
  double bus_gbytes_per_s; /* its bus bandwidth (after the protocol's factor and caps) */
} ss_tuner_entry;

/* NCCL's choice for op on bytes among all the job's GPUs: the algorithm (ring or tree; ring on one
 * instance, for reduce-scatter and all-gather, and before NCCL had the tree) and the protocol, and
 * the model's whole table (may be NULL): [0] ring, [1] tree by [protocol - SS_PROTO_LL]. Where the
 * aws-ofi-nccl plugin's tuner chooses (ss_tuner_ofi_lacks, --no-ofi-tuner) and a region of its holds
 * the collective, its pair is the choice; the table stays NCCL's model's. */
void ss_tuner_choose(const ss_job* j, ss_coll_op op, double bytes, ss_allreduce* alg, ss_proto* proto,
                     ss_tuner_entry table[2][3]);

/* The algorithm of a collective of bytes under the job's --allreduce: AUTO, NCCL's choice (on one
 * instance, and with --ideal, the simulator's fastest, as before NCCL's model); FASTEST, the
 * simulator's fastest predicted (ss_cost_choose); another, itself where op runs it. */
ss_allreduce ss_tuner_algorithm(const ss_job* j, ss_coll_op op, double bytes);

/* The cost of a collective that runs alg with NCCL's choice of protocol where NCCL chose (--allreduce
 * auto, --protocol auto, NCCL's per-call cost on): the protocol NCCL's model picks for alg; else as
 * ss_cost_protocol. */
void ss_tuner_cost(const ss_job* j, ss_coll_op op, ss_allreduce alg, double bytes, ss_proto_cost* pc);

/* What NCCL's model predicts for a collective of bytes as the job runs it (s; < 0 where the model
 * has no entry, e.g. a tree for reduce-scatter): the algorithm NCCL chooses, or the one --allreduce
 * forces (ring or tree: NCCL_ALGO), with the protocol NCCL's model picks for it, or the one
 * --protocol forces (NCCL_PROTO); *alg and *proto receive them. */
double ss_tuner_predict(const ss_job* j, ss_coll_op op, double bytes, ss_allreduce* alg, ss_proto* proto);

/* Whether the aws-ofi-nccl plugin's region tuner (ofitune.h) does not choose for j, --no-ofi-tuner
 * aside: 0 when it does (EFA between 3 instances or more of a type it has tables for, 8 GPUs each,
 * NCCL 2.21 or later, which loads it from the net plugin, neither the algorithm nor the protocol
 * forced, not --ideal), else 1 and why (when why is not NULL). */
int ss_tuner_ofi_lacks(const ss_job* j, char* why, size_t size);

/* NCCL's view of the network between instances: the channels its ring search finds and their speed
 * (GB/s each), as the tuning model uses them (the search's count, before NCCL doubles it). */
void ss_tuner_channels(const ss_job* j, int* channels, double* speed);

#endif
