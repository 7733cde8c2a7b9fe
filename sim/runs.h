/* runs: several simulations at once, each in a process of its own (SimGrid runs once per
 * process), as many at a time as there are cores, each sending back its steady-state breakdown
 * and simulated end date. */
#ifndef SS_RUNS_H
#define SS_RUNS_H

#include "err.h"
#include "job.h"
#include "stall.h"

/* Simulate each of n jobs in a process of its own and receive each one's steady-state breakdown
 * (bd[i]) and simulated end date (simulated_s[i]). cfg holds the ncfg pass-through SimGrid
 * arguments; names[] say which run failed in an error. The first failure is returned. */
int ss_runs_all(const ss_job* const* jobs, const char* const* names, int n, int ncfg, char** cfg, ss_breakdown* bd,
                double* simulated_s, ss_err* err);

/* ss_runs_all, but a run that fails leaves its code in rcs[i] (0 when it ran) and its error in
 * errs[i], and the other runs go on; only a run that cannot start or dies ends them all (returned,
 * with err). progress writes "stash-sim: run K of N" on standard error as each run is reaped. */
int ss_runs_each(const ss_job* const* jobs, const char* const* names, int n, int ncfg, char** cfg, ss_breakdown* bd,
                 double* simulated_s, int* rcs, ss_err* errs, int progress, ss_err* err);

#endif
