/* straggler: each rank's compute jitter per iteration and the waits it causes where ranks
 * synchronise: the straggler detail of the interconnect and network stalls (docs/model.md,
 * "Stragglers"). */
#ifndef SS_STRAGGLER_H
#define SS_STRAGGLER_H

#include "actors.h"

/* Set up every rank's stream and the collectives' arrival slots (after
 * the ranks and collectives, before the actors start; ss_straggler_free frees what it allocates). */
void ss_straggler_setup(ss_sim* s);
void ss_straggler_free(ss_sim* s);

/* Draw rank r's compute factor of iteration iter, its next (1 without jitter). */
void ss_straggler_draw(ss_sim* s, int r, int iter);

/* Rank r's stream arrives at collective c of iteration iter (or, parameter servers, begins pushing
 * bucket c) at date now. */
void ss_straggler_arrive(ss_sim* s, int r, int iter, int c, double now);

/* Rank r's stream has finished collective c of iteration iter, which it arrived at at date
 * arrived: the part of its wait for the last rank to arrive that its trainer spent waiting for the
 * gradients is straggler wait. */
void ss_straggler_reduced(ss_sim* s, int r, int iter, int c, double arrived);

/* Rank r's trainer begins waiting for the gradients of iteration iter (date now); then, done after
 * waiting wait seconds, books the part of it spent waiting for the slowest rank as the timeline's
 * straggler detail. */
void ss_straggler_wait_begin(ss_sim* s, int r, double now);
void ss_straggler_wait_end(ss_sim* s, int r, int iter, double wait);

#endif
