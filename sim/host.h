/* host: the CPU thread of a training process (when the host side is simulated): it issues the
 * GPU's work segment by segment, and the GPU books its waits for the host by what it did. */
#ifndef SS_HOST_H
#define SS_HOST_H

#include "actors.h"

/* The host thread of one rank's training process (runs on its instance's CPU host): takes each
 * batch, copies it, issues every segment's operators, waits where the framework synchronises. */
void ss_host_actor(ss_sim* s, const ss_actor_arg* a);

/* Actors run one at a time (SimGrid's contexts are cooperative): the host and the GPU read each
 * other's counters without the lock, which they take only to block; a change notifies only when
 * one of them is blocked (the simulation's cost per segment stays a few simcalls). */
void ss_host_notify(ss_rank* me);

/* Block until *counter (one of me's segment counters) is past k. */
void ss_host_wait_past(ss_rank* me, const long* counter, long k);

/* Book rank r's GPU wait [from, to) of iteration iter on the timeline by what its host thread did
 * meanwhile (waiting for data, issuing work, waiting for collectives). */
void ss_host_book(ss_sim* s, int r, int iter, double from, double to);

#endif
