/* estimate: a command's work estimated before it starts, and its bound (estimate.h). */
#include "estimate.h"

#include <math.h>

/* The weights of a simulation's CPU time, fitted to runs on SS_ESTIMATE_MACHINE by bench/work-fit
 * (its grid, the fit and the estimate's error on each run: docs/testing.md, "The work of a
 * command"). A run costs START_S, per_kernel_s for each of its kernel events (a layer's kernel
 * forward or backward on a GPU), per_step_s (instances simulated)^alpha (GPUs simulated)^beta for
 * each step of a collective (a step costs more as more flows share SimGrid's links: the network's
 * flows grow with the instances, the reference fidelity's and a parameter server's with the GPUs),
 * and per_rank_iter_s for each GPU of the job and iteration, simulated or not (the symmetric
 * instances' timelines and breakdown). */
typedef struct weights {
  double per_kernel_s;
  double per_step_s;
  double per_rank_iter_s;
  double alpha; /* instances simulated */
  double beta;  /* GPUs simulated */
} weights;

/* Tensor and pipeline parallelism (stage.c): each actor's pass with its transfer, and the cluster's
 * platform per instance; fitted by hand to bench/pipeline.sh's runs and the same runs with fewer
 * micro-batches (GPT-3 175B on 128 p4d.24xlarge and 1T on 384: docs/performance.md). */
#define STAGE_PASS_S 12e-6
#define STAGE_INSTANCE_S 1.1e-3

static const weights fitted[SS_ESTIMATE_CLASSES] = {
    [SS_ESTIMATE_FAST] = {2.73e-06, 4.55e-08, 3.1e-06, 0, 0.75},
    [SS_ESTIMATE_REFERENCE] = {1.04e-05, 2.29e-05, 0, 0.5, -0.5},
    [SS_ESTIMATE_PS] = {4.1e-06, 2.93e-09, 0, 0.25, 2.25},
    /* Tensor and pipeline parallelism (stage.c): a kernel event is one pass of a stage's actor (its
     * compute and tensor-parallel waits), a step its transfer to the next stage. */
    [SS_ESTIMATE_STAGES] = {STAGE_PASS_S, 0, 0, 0, 0},
};

/* A process started, its platform built and its inputs read: the least run on the machine. */
#define START_S 0.03

double ss_estimate_floor_s(void)
{
  return START_S;
}

/* One simulation of job j: ncoll collectives per iteration over iters iterations. */
static ss_estimate_sim describe(const ss_job* j, double ncoll, double iters)
{
  ss_estimate_sim r;
  if (j->mp.on) {
    /* One replica's stages, per stage its GPUs that share a NIC (about the instance's GPUs per NIC),
     * each running 2 m v passes an iteration and sending all but the edges'. */
    const ss_mp* mp = &j->mp;
    int nics = j->platform->nnics > 0 ? j->platform->nnics : 1, w = j->gpus_per_instance / nics;
    w = w < 1 ? 1 : w > mp->t * mp->d ? mp->t * mp->d : w;
    double passes = iters * mp->p * w * 2.0 * mp->m * mp->v;
    r = (ss_estimate_sim){.instances = j->instances, .gpus = mp->p * w, .cls = SS_ESTIMATE_STAGES};
    r.kernel_events = passes;
    r.step_events = mp->p * mp->v > 1 ? passes : 0;
    r.rank_iters = iters * r.gpus;
    r.seconds = START_S + j->instances * STAGE_INSTANCE_S + passes * STAGE_PASS_S;
    return r;
  }
  r.instances = ss_job_sim_instances(j);
  r.gpus = r.instances * j->gpus_per_instance;
  r.cls = j->opt.arch == SS_ARCH_PS                  ? SS_ESTIMATE_PS
          : j->opt.fidelity == SS_FIDELITY_REFERENCE ? SS_ESTIMATE_REFERENCE
                                                     : SS_ESTIMATE_FAST;
  /* A collective's steps on each GPU: a flow per hop and phase at fast fidelity, SimGrid's sharing
   * of them growing about as log2 of the GPUs; a part sent to a parameter server and back; at
   * reference a flow per step of each ring: 2(n - 1) steps of a ring of n (the GPUs, or a ring inside
   * the instance and one across them for hierarchical), a pipelined tree's chunks up and down its
   * log2 n levels. The algorithm chosen by size (auto, fastest) is counted as a ring, the dearest. */
  int rings = j->rings.nrings > 0 ? j->rings.nrings : 1;
  double per_coll = 8 * log2(2.0 * r.gpus);
  if (r.cls == SS_ESTIMATE_PS)
    per_coll = 2.0 * j->ps_nparts / (j->nbuckets > 0 ? j->nbuckets : 1);
  else if (r.cls == SS_ESTIMATE_REFERENCE && j->opt.allreduce == SS_ALLREDUCE_TREE)
    per_coll = 4.0 * log2(2.0 * r.gpus) * rings;
  else if (r.cls == SS_ESTIMATE_REFERENCE && j->opt.allreduce == SS_ALLREDUCE_HIERARCHICAL)
    per_coll = 2.0 * (j->gpus_per_instance + r.instances) * rings;
  else if (r.cls == SS_ESTIMATE_REFERENCE)
    per_coll = 2.0 * r.gpus * rings;
  r.kernel_events = iters * r.gpus * 2.0 * j->workload->nlayers * j->accum;
  r.rank_iters = iters * j->ngpus;
  r.step_events = iters * r.gpus * ncoll * per_coll;
  const weights* w = &fitted[r.cls];
  r.seconds = START_S + r.kernel_events * w->per_kernel_s +
              r.step_events * w->per_step_s * pow(r.instances, w->alpha) * pow(r.gpus, w->beta) +
              r.rank_iters * w->per_rank_iter_s;
  return r;
}

double ss_estimate_sim_s(const ss_job* j, double ncoll, double iters)
{
  return describe(j, ncoll, iters).seconds;
}

static void add(ss_estimate* w, const ss_estimate_sim* r)
{
  w->seconds += r->seconds;
  w->runs++;
  w->kernel_events += r->kernel_events;
  w->step_events += r->step_events;
  if (r->seconds > w->largest.seconds)
    w->largest = *r;
}

void ss_estimate_add_run(ss_estimate* w, const ss_job* j)
{
  ss_estimate_sim r = describe(j, j->ncolls, j->niters);
  add(w, &r);
}

void ss_estimate_add_bench(ss_estimate* w, const ss_job* j, int nsizes, int reps)
{
  ss_estimate_sim r = describe(j, 1, (double)nsizes * reps);
  add(w, &r);
}

void ss_estimate_duration(char* buf, size_t size, double s)
{
  if (s < 60)
    snprintf(buf, size, "%.2g s", s);
  else if (s < 3600)
    snprintf(buf, size, "%.2g min", s / 60);
  else if (s < 86400 * 2)
    snprintf(buf, size, "%.2g h", s / 3600);
  else
    snprintf(buf, size, "%.3g days", s / 86400);
}

int ss_estimate_check(const ss_estimate* w, const char* what, const char* hint, double max_minutes, ss_err* err)
{
  if (!(w->seconds > max_minutes * 60))
    return SS_OK;
  char est[32];
  ss_estimate_duration(est, sizeof(est), w->seconds);
  return ss_err_set(err, NULL, 0,
                    "%s would take about %s of CPU to simulate (%ld simulation%s, the largest of %d GPUs simulated%s; "
                    "estimated for %s), more than --max-minutes %g: give %s, or a larger --max-minutes",
                    what, est, w->runs, w->runs == 1 ? "" : "s", w->largest.gpus,
                    w->largest.cls == SS_ESTIMATE_REFERENCE ? " at reference fidelity" : "", SS_ESTIMATE_MACHINE,
                    max_minutes, hint);
}

int ss_estimate_write(FILE* f, const ss_estimate* w, const char* what, double max_minutes, int json)
{
  char est[32];
  ss_estimate_duration(est, sizeof(est), w->seconds);
  int over = w->seconds > max_minutes * 60;
  static const char* const cls[SS_ESTIMATE_CLASSES] = {"fast", "reference", "ps", "stages"};
  if (json)
    fprintf(
        f,
        "{\"estimated_cpu_s\": %.6g, \"simulations\": %ld, \"kernel_events\": %.6g, \"step_events\": %.6g, "
        "\"largest\": {\"cpu_s\": %.6g, \"instances\": %d, \"gpus\": %d, \"class\": \"%s\", "
        "\"kernel_events\": %.6g, \"step_events\": %.6g, \"rank_iterations\": %.6g}, \"max_minutes\": %.6g, \"within_bound\": %s, "
        "\"machine\": \"%s\"}\n",
        w->seconds, w->runs, w->kernel_events, w->step_events, w->largest.seconds, w->largest.instances,
        w->largest.gpus, cls[w->largest.cls], w->largest.kernel_events, w->largest.step_events, w->largest.rank_iters,
        max_minutes, over ? "false" : "true", SS_ESTIMATE_MACHINE);
  else
    fprintf(f, "%s: about %s of CPU (%ld simulation%s, estimated for %s); --max-minutes %g %s it\n", what, est, w->runs,
            w->runs == 1 ? "" : "s", SS_ESTIMATE_MACHINE, max_minutes, over ? "refuses" : "allows");
  return ferror(f) ? SS_EIO : SS_OK;
}
