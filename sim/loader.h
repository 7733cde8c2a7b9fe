/* loader: the data pipeline of a rank: storage reads through a page cache, CPU preparation on
 * its instance's CPU host, the prefetch queue its training process takes batches from. */
#ifndef SS_LOADER_H
#define SS_LOADER_H

#include "actors.h"

/* One DataLoader worker process of one rank (runs on the CPU host). */
void ss_loader_actor(ss_sim* s, const ss_actor_arg* a);

/* Load the batch of iteration iter of rank: for each sample a storage read unless it is cached,
 * then CPU preparation on the CPU host; adds the time spent to *fetch_s and *prep_s. worker is the
 * loader worker doing it, -1 for the training process (its trace track). */
void ss_loader_batch(ss_sim* s, int rank, int iter, int worker, double* fetch_s, double* prep_s);

/* Take iteration iter's batch for rank r's training process, which has waited for it since date
 * since: load it itself (no workers) or wait for its worker's. Returns the part of the wait booked
 * to storage (the rest is CPU), in the proportion of the loader's time on the batch. */
double ss_loader_take(ss_sim* s, int r, int iter, double since);

/* A batch is loaded in at most SS_LOADER_STEPS read-then-prepare steps (job.h). */

#endif
