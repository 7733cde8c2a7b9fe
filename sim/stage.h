/* stage: the stages of one data-parallel replica under tensor and pipeline parallelism, each running
 * its passes in the schedule's order (pipeline.h) on SimGrid, one actor for each of a stage's GPUs
 * that share a NIC (its other tensor ranks and replicas run the same passes at the same moments):
 * activations and gradients sent between stages as flows over the links they use, the
 * tensor-parallel collectives, the data-parallel reduction, the tied embeddings' allreduce and the optimizer step as the cost model
 * prices them (par.h), every instant booked to compute, the pipeline bubble, or the interconnect or
 * network stall of the parallelism that caused it (docs/model.md, "Tensor and pipeline parallelism"). */
#ifndef SS_STAGE_H
#define SS_STAGE_H

#include "actors.h"

/* The actors of a run of j: per stage, as many as its GPUs that share a NIC (the fewest over the
 * stages; 1 where each GPU has its own). */
int ss_stage_actors(const ss_job* j);

/* The global rank (ss_layout) whose GPU actor k runs on (after ss_stage_setup): of stage k / w (w
 * actors per stage), the (k % w)-th GPU on that stage behind the NIC of its tensor rank 0 of
 * replica 0. */
int ss_stage_gpu(const ss_sim* s, int k);

/* Build the state the stage actors share (their mailboxes, the barrier) into s: SS_OK or SS_ENOMEM. */
int ss_stage_setup(ss_sim* s);
void ss_stage_free(ss_sim* s);

/* Name the trace's tracks (s->trace open, after ss_stage_setup): the pipeline's process, a track of
 * passes (F3, B3; F3.1 for chunk 1 when interleaved; the bubbles) and one of waits and collectives
 * per actor. */
void ss_stage_tracks(ss_sim* s);

/* Actor k's body (a->rank = k), on the GPU host of ss_stage_gpu. */
void ss_stage_actor(ss_sim* s, const ss_actor_arg* a);

#endif
