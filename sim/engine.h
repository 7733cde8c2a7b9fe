/* engine: run one simulation of a job on SimGrid (one per process: SimGrid cannot be reset). */
#ifndef SS_ENGINE_H
#define SS_ENGINE_H

#include "err.h"
#include "job.h"
#include "stall.h"
#include "timeline.h"

/* SimGrid options stash-sim always sets first (user --cfg= options come after and win): CM02
 * without cross-traffic or TCP window, so that link figures in platform files are taken as given;
 * small actor stacks. */
extern const char* const ss_engine_default_cfg[];

/* Check the pass-through SimGrid options against the allow-list of those that make sense here
 * (README, "SimGrid options"; values in range), then by starting SimGrid once in a child process
 * (SimGrid aborts on a bad option): returns 0, or SS_EINPUT with the reason in err. Costs nothing
 * when ncfg is 0. */
int ss_engine_check_cfg(const ss_job* job, int ncfg, char** cfg, ss_err* err);

/* Simulate the job's training run. cfg holds ncfg pass-through "--cfg=..."/"--log=..." arguments.
 * On success *out owns the timeline (free with ss_timeline_free) and *simulated_s is the simulated
 * date at the end. Returns SS_ESIM (with a message in err) if an actor did not finish. */
int ss_engine_run(const ss_job* job, int ncfg, char** cfg, ss_timeline** out, double* simulated_s, ss_err* err);

/* Simulate each of n jobs in a process of its own (SimGrid runs once per process), as many at a
 * time as there are cores, and receive each one's steady-state breakdown and simulated end date.
 * names[] say which run failed in an error. The first failure is returned. */
int ss_engine_run_forked(const ss_job* const* jobs, const char* const* names, int n, int ncfg, char** cfg,
                         ss_breakdown* bd, double* simulated_s, ss_err* err);

/* ss_engine_run_forked, but a run that fails leaves its code in rcs[i] (0 when it ran) and its error
 * in errs[i], and the other runs go on; only a run that cannot start or dies ends them all (returned,
 * with err). progress writes "stash-sim: run K of N" on standard error as each run is reaped. */
int ss_engine_run_each(const ss_job* const* jobs, const char* const* names, int n, int ncfg, char** cfg,
                       ss_breakdown* bd, double* simulated_s, int* rcs, ss_err* errs, int progress, ss_err* err);

/* Collective benchmark: for each of the nsizes sizes bytes[k], reps back-to-back allreduces among
 * the job's GPUs between two barriers; time_s[k] receives the mean time of one, and algs[k] (if not
 * NULL) the algorithm used (the job's, or the one AUTO chose), protos[k] (if not NULL) its protocol. */
int ss_engine_allreduce(const ss_job* job, int ncfg, char** cfg, int nsizes, const double* bytes, int reps,
                        double* time_s, ss_allreduce* algs, ss_proto* protos, ss_err* err);

#endif
