/* simtrace: a simulation's ranks in the Chrome trace (trace.h): a process per instance, in it a
 * track per GPU's training process, collective (or push) stream, host thread and loader workers,
 * the parameter servers in the process after the instances; the tracks' names, and spans on a
 * rank's track, which the actors write (no effect on the simulation). */
#ifndef SS_SIMTRACE_H
#define SS_SIMTRACE_H

#include "actors.h"

/* The tracks of GPU k of an instance: its training process, its collective (or push) stream, its
 * host thread and its loader worker w. */
#define SS_TRACK_TRAINER(k) (1 + 4 * (k))
#define SS_TRACK_COLL(k) (2 + 4 * (k))
#define SS_TRACK_HOST(k) (3 + 4 * (k))
#define SS_TRACK_LOADER(k, w) (100000 + 1000 * (k) + (w))
#define SS_TRACK_INPROCESS 999 /* the loader "worker" of a training process that loads itself */

/* Name the trace's processes and tracks (s->trace open), before the run. */
void ss_simtrace_tracks(ss_sim* s);

/* A span of rank r's track (tid) in the trace, if there is one; no effect on the simulation. */
void ss_simtrace_rank(ss_sim* s, int r, int tid, const char* name, const char* cat, double start_s, double dur_s,
                      const char* detail);

/* The checkpoints' track (failures.h): a process of its own with one span, a checkpoint's write of
 * the job's checkpoint to its target, drawn after the simulated iterations at end_s (training waits for
 * it every interval of work, far longer than the iterations simulated); none when no checkpoint is
 * written (--no-failures without --checkpoint-every, --ideal). */
#define SS_TRACE_PID_CHECKPOINT 1000000
#define SS_TRACK_CHECKPOINT 2000000 /* its track: apart from every rank's (the trace's tools match tracks by id) */
void ss_simtrace_checkpoint(ss_sim* s, double end_s);

#endif
