/* derive: a job ready to simulate: built from its inputs (job.c), then the figures that need the
 * complete job derived from it: the network's (cluster.c), each bucket's algorithm (cost.c), and with
 * tensor, context or pipeline parallelism each stage's figures (par.c, its collectives timed here). */
#ifndef SS_DERIVE_H
#define SS_DERIVE_H

#include "job.h"

/* ss_job_new, then the switch core's bandwidth, the NIC figures of the resolved options and the
 * algorithm AUTO stands for at each bucket. Errors as ss_job_new's; free with ss_job_free. */
int ss_derive_job(const ss_platform* p, const ss_workload* w, const ss_options* o, ss_job** out, ss_err* err);

/* What par.h's derivation reads of job j (borrowed from it), its collectives timed by the cost
 * model (cost.h) on views of j's instances. */
void ss_derive_par_in(const ss_job* j, ss_par_in* in);

#endif
