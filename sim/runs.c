/* runs: simulations of several jobs, each in a child process, their breakdowns sent back. */
#include "runs.h"

#include "engine.h"
#include "proc.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* What the children simulate, and where the parent puts what they report. */
typedef struct fork_ctx {
  const ss_job* const* jobs;
  const char* const* names;
  int ncfg;
  char** cfg;
  ss_breakdown* bd;
  double* simulated_s;
  ss_err* err;
  int* rcs;     /* ss_runs_each: each run's code, */
  ss_err* errs; /* and its error; NULL: the first failure ends them all */
  int progress; /* "run K of N" on standard error */
  int n;
} fork_ctx;

/* What a run's process sends back: one write, so it must fit in a pipe's atomic size. */
typedef struct run_msg {
  int rc;
  double simulated_s;
  ss_breakdown bd;
  ss_err err;
} run_msg;

_Static_assert(sizeof(run_msg) <= PIPE_BUF, "a run's message is written at once");

/* Child side: simulate run i, and fill its message with the breakdown or the error. */
static void run_child(void* arg, int i, void* msg)
{
  const fork_ctx* c = arg;
  run_msg* m = msg;
  ss_err_clear(&m->err);
  ss_timeline* tl = NULL;
  m->rc = ss_engine_run(c->jobs[i], c->ncfg, c->cfg, &tl, &m->simulated_s, &m->err);
  if (m->rc == SS_OK)
    ss_stall_timeline(tl, c->jobs[i]->warmup, c->jobs[i]->iterations, &m->bd);
  ss_timeline_free(tl);
}

/* Parent side: run i's message, or why there is none. */
static int run_done(void* arg, int i, const ss_proc_result* r)
{
  const fork_ctx* c = arg;
  const run_msg* m = r->msg;
  if (r->start) {
    ss_err_set(c->err, NULL, 0, "cannot start the simulation of %s: %s", c->names[i], ss_proc_strerror(r->start));
    return ss_err_kind(c->err, SS_ESYS);
  }
  /* A child that died without a result is a bug (or the machine killed it): internal. */
  if (!m && r->how.signal)
    ss_err_set(c->err, NULL, 0, "the simulation of %s died (signal %d, %s)", c->names[i], r->how.signal,
               strsignal(r->how.signal));
  else if (!m)
    ss_err_set(c->err, NULL, 0, "the simulation of %s ended without a result (exit status %d)", c->names[i],
               r->how.code);
  if (!m)
    return ss_err_kind(c->err, SS_ESIM);
  if (c->progress)
    fprintf(stderr, "\rstash-sim: run %d of %d%s", i + 1, c->n, i + 1 == c->n ? "\n" : "");
  if (c->rcs) {
    c->rcs[i] = m->rc;
    c->errs[i] = m->err;
  }
  if (m->rc != SS_OK && c->rcs)
    return SS_OK;
  if (m->rc != SS_OK) {
    if (!ss_err_isset(c->err))
      *c->err = m->err;
    return m->rc;
  }
  c->bd[i] = m->bd;
  c->simulated_s[i] = m->simulated_s;
  return SS_OK;
}

int ss_runs_all(const ss_job* const* jobs, const char* const* names, int n, int ncfg, char** cfg, ss_breakdown* bd,
                double* simulated_s, ss_err* err)
{
  fork_ctx c = {jobs, names, ncfg, cfg, bd, simulated_s, err, NULL, NULL, 0, n};
  return ss_proc_map(n, sizeof(run_msg), run_child, run_done, &c, err);
}

int ss_runs_each(const ss_job* const* jobs, const char* const* names, int n, int ncfg, char** cfg, ss_breakdown* bd,
                 double* simulated_s, int* rcs, ss_err* errs, int progress, ss_err* err)
{
  fork_ctx c = {jobs, names, ncfg, cfg, bd, simulated_s, err, rcs, errs, progress, n};
  return ss_proc_map(n, sizeof(run_msg), run_child, run_done, &c, err);
}
