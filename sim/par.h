/* par: what tensor and pipeline parallelism give one GPU of each stage, from a job whose layout
 * and compute are built (ss_job.mp, job.c) and the cost model of the collectives (cost.h): each
 * virtual stage's forward and backward per micro-batch, the tensor-parallel collectives they wait
 * for, the bytes sent between stages, the data-parallel reduction of each stage's gradients, the
 * optimizer step, the tied embeddings' allreduce and the memory of each stage (docs/model.md,
 * "Tensor and pipeline parallelism"; the mechanics: ../shared/data/model_parallelism.md). */
#ifndef SS_PAR_H
#define SS_PAR_H

#include "err.h"
#include "job.h"

#include <stddef.h>

/* Fill j->mp's derived figures (j->mp.on). SS_OK, SS_ENOMEM, or SS_EINPUT when a stage does not fit
 * its GPU's memory (the parts named, unless --ignore-memory). */
int ss_par_derive(ss_job* j, ss_err* err);

/* The parts of stage s's memory in GiB, "parameters and gradients 12.3, optimizer state 24.6,
 * activations 30.1 (p micro-batches' worth), reserve 0.8", into buf. */
void ss_par_memory_text(const ss_job* j, int s, char* buf, size_t size);

/* The share of a layer's forward FLOPs that selective recomputation runs again (the attention's
 * scores: 4 s^2 h of the layer's forward per sequence), from the workload's work when it gives it. */
double ss_par_selective_share(const ss_workload* w);

#endif
