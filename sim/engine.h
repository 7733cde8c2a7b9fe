/* engine: run one simulation of a job on SimGrid (one per process: SimGrid cannot be reset). */
#ifndef SS_ENGINE_H
#define SS_ENGINE_H

#include "err.h"
#include "job.h"
#include "timeline.h"

/* SimGrid options stash-sim always sets first (user --cfg= options come after and win): CM02
 * without cross-traffic or TCP window, so that link figures in platform files are taken as given;
 * small actor stacks. */
extern const char* const ss_engine_default_cfg[];

/* Start SimGrid with the default options, then the ncfg pass-through ones of cfg, and load the
 * job's platform, without running anything: a trial start-up, in a process of its own (SimGrid
 * starts once per process and aborts it on a bad option). Returns 0, or an error in err (which
 * may be NULL). */
int ss_engine_start(const ss_job* job, int ncfg, char** cfg, ss_err* err);

/* Simulate the job's training run. cfg holds ncfg pass-through "--cfg=..."/"--log=..." arguments.
 * On success *out owns the timeline (free with ss_timeline_free) and *simulated_s is the simulated
 * date at the end. Returns SS_ESIM (with a message in err) if an actor did not finish. */
int ss_engine_run(const ss_job* job, int ncfg, char** cfg, ss_timeline** out, double* simulated_s, ss_err* err);

/* Collective benchmark: for each of the nsizes sizes bytes[k], reps back-to-back allreduces among
 * the job's GPUs between two barriers; time_s[k] receives the mean time of one, and algs[k] (if not
 * NULL) the algorithm used (the job's, or the one AUTO chose), protos[k] (if not NULL) its protocol. */
int ss_engine_allreduce(const ss_job* job, int ncfg, char** cfg, int nsizes, const double* bytes, int reps,
                        double* time_s, ss_allreduce* algs, ss_proto* protos, ss_err* err);

#endif
