/* estimate: what a command will cost, estimated before it starts, and its bound (--max-minutes).
 *
 * Every command adds the simulations it will run to one ss_estimate (a training run one, the Stash
 * study and whatif several, a plan one per configuration, a benchmark its sizes times its
 * repetitions) and checks the total before the first starts: beyond --max-minutes it is refused
 * with the estimate, what makes it large and the option that raises the bound (docs/testing.md,
 * "The work of a command"). The estimate is CPU time on the machine its weights were fitted on
 * (SS_ESTIMATE_MACHINE): a person's machine may be faster or slower, but the same inputs give the
 * same estimate. */
#ifndef SS_ESTIMATE_H
#define SS_ESTIMATE_H

#include "err.h"
#include "job.h"

#include <stdio.h>

/* Where the weights were measured: a run's CPU seconds on it, fitted (estimate.c). */
#define SS_ESTIMATE_MACHINE "a 2-core x86-64 virtual machine"

/* The kinds of simulation, each with its weights. */
enum { SS_ESTIMATE_FAST, SS_ESTIMATE_REFERENCE, SS_ESTIMATE_PS, SS_ESTIMATE_STAGES, SS_ESTIMATE_CLASSES };

/* One simulation: what it simulates and its estimated CPU seconds (estimate.c prices each part). */
typedef struct ss_estimate_sim {
  double seconds;
  double layers;          /* the workload's layers, read and derived */
  double executions;      /* a GPU's segment of an iteration (the layers between two collective
                        * launches run as one), a pipeline stage's pass */
  double messages;        /* SimGrid communications: a collective's flows (fast) or steps and chunks
                        * (reference), a parameter server's pushes and pulls, a pipeline's sends */
  double in_flight;       /* flows in flight at once when a message starts or ends, their geometric
                        * mean over the messages */
  double across;          /* of the messages, those between instances (the network's links) */
  double socket_messages; /* of those, over NCCL's socket transport with its CPU modelled (sockcpu.c:
                           * its threads' executions) */
  int instances, gpus;    /* simulated (symmetry: ss_job_sim_instances) */
  double rank_iters;      /* the job's GPUs (all of them, simulated or not) times its iterations */
  int cls;                /* SS_ESTIMATE_* */
} ss_estimate_sim;

/* A command's work: its simulations, their estimated CPU seconds, executions and messages, and the
 * largest of them (the one the hint is about). Zero-initialised: no work. */
typedef struct ss_estimate {
  double seconds;
  long runs;
  double executions, messages;
  ss_estimate_sim largest;
} ss_estimate;

/* The CPU seconds one training run of j takes, its start-up included: its iterations, the instances
 * simulated (symmetry), the fidelity, the algorithm of each collective; computed from the job's sizes
 * in O(the collectives of an iteration), whatever its iterations and micro-batches. */
double ss_estimate_run_s(const ss_job* j);

/* The same for a benchmark of j: nsizes sizes (bytes[0 .. nsizes)) of reps collectives each. */
double ss_estimate_bench_s(const ss_job* j, int nsizes, const double* bytes, int reps);

/* Add a training run of j (its iterations, warm-up and loader cycles included) to w. */
void ss_estimate_add_run(ss_estimate* w, const ss_job* j);

/* Add a benchmark of j: nsizes sizes (bytes) of reps collectives each. */
void ss_estimate_add_bench(ss_estimate* w, const ss_job* j, int nsizes, const double* bytes, int reps);

/* The CPU seconds of the least simulation: a process started, its inputs read, one iteration. */
double ss_estimate_floor_s(void);

/* Refuse w beyond max_minutes, naming what ("this run", "this plan of 96 configurations") and
 * what would make it smaller (hint: "fewer iterations or GPUs"), with --max-minutes. */
int ss_estimate_check(const ss_estimate* w, const char* what, const char* hint, double max_minutes, ss_err* err);

/* The estimate as --estimate prints it: a line of text, or a JSON object with the events and the
 * largest simulation's (json). Returns 0 or SS_EIO. */
int ss_estimate_write(FILE* f, const ss_estimate* w, const char* what, double max_minutes, int json);

/* seconds as a person reads it: "40 s", "12 min", "3.1 h", "2.5 days". */
void ss_estimate_duration(char* buf, size_t size, double seconds);

#endif
