/* probe: the counters of a run's resources, which the engine sets up and the actors feed: the
 * links' load through SimGrid's plugin (the trace's link-use counters, the measured window's
 * utilisation of each link class), and the work of the CPUs, disks and loaders inside the window. */
#ifndef SS_PROBE_H
#define SS_PROBE_H

#include "actors.h"

/* Find the links of each class (before the actors start; exits on out of memory), free them, and
 * after the run write the CPUs', disks' and loaders' utilisation in the window into the timeline. */
void ss_probe_setup(ss_sim* s);
void ss_probe_free(ss_sim* s);
void ss_probe_finish(ss_sim* s);

/* The trace's link-use counters since the previous call (rank 0's training process calls it at
 * each step of its iteration: sampling adds no event to the simulation). */
void ss_trace_links(ss_sim* s);

/* The measured window (docs/model.md, "What limits a run"): rank 0 opens it as its first measured
 * iteration starts and closes it as its last one ends, which writes each resource's utilisation
 * into the timeline. */
void ss_limit_track(ss_sim* s); /* the links' load counted from now on: rank 0, as it starts */
void ss_limit_begin(ss_sim* s);
void ss_limit_end(ss_sim* s);

/* Work that the CPU (core-seconds) or the disk (bytes) of instance inst did from start_s to now: the
 * share of it inside the measured window counts towards that resource's utilisation. */
void ss_limit_work(ss_sim* s, ss_res r, int inst, double amount, double start_s);
/* A loader of instance inst prepared data from start_s to now (its busy fraction, docs/model.md). */
void ss_limit_loader_busy(ss_sim* s, int inst, double start_s);

#endif
