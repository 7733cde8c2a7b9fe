/* screen: a derived job's steady-state iteration in closed form, without SimGrid: the planner's first
 * tier, which screens every configuration in microseconds and simulates the best (docs/plan.md, "The
 * screen and the simulator"). The figures are those the simulation starts from (each stage's passes,
 * collectives, reduction and step from par.c; each collective's time from the cost model); what the
 * simulation adds and the screen leaves out (the links' sharing between flows, the loaders and the
 * host thread's queue, the stragglers' jitter) is what its error on the verified rows measures. */
#ifndef SS_SCREEN_H
#define SS_SCREEN_H

#include "job.h"
#include "stall.h"

/* The iteration of j (derived: ss_derive_job) in *out: its time, its parts by category (means over
 * the pipeline's stages, or over the ranks of a data-parallel job, adding up to the iteration), the
 * GPU's utilisation (the compute share) as the only resource's, and the GPU as the limit.
 *
 * A tensor- and pipeline-parallel job: each stage's passes per micro-batch (compute, the tensor-
 * parallel waits, the send to the next stage, which the next pass waits for), the schedule's closed
 * form on them ((m - 1) x the slowest stage's + the sum of every stage's, the fill and drain a v-th
 * of it with v chunks per stage), then the longest exposed data-parallel reduction and tied
 * embeddings' allreduce, and the slowest optimizer step and parameter all-gather.
 *
 * A data-parallel job: its segments in order on the GPU (their kernels, or the host's time to issue
 * them when longer), each collective on one stream from its launch (the cost model's time, the
 * algorithm the job runs), a segment that waits for one (a gate, ZeRO-2's reductions, the
 * optimizer for them all) starting no earlier than its end. The loaders are taken to keep up. */
void ss_screen_job(const ss_job* j, ss_breakdown* out);

#endif
