/* simcfg: SimGrid's pass-through options (--cfg=, --log=): the allow-list of those that make sense
 * for stash-sim, with their ranges (README, "SimGrid options"), and a trial start-up of SimGrid
 * with them. */
#ifndef SS_SIMCFG_H
#define SS_SIMCFG_H

#include "err.h"
#include "job.h"

/* Check the ncfg pass-through SimGrid options of cfg against the allow-list (values in range),
 * then by starting SimGrid once with them on one instance of the job in a child process (SimGrid
 * aborts on a bad option): returns 0, or SS_EINPUT with the reason in err (SS_ESYS when the child
 * cannot start). Costs nothing when ncfg is 0. */
int ss_simcfg_check(const ss_job* job, int ncfg, char** cfg, ss_err* err);

#endif
