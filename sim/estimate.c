/* estimate: a command's work estimated before it starts, and its bound (estimate.h). */
#include "estimate.h"

#include "cost.h"
#include "nccl.h"
#include "tuner.h"

#include <math.h>

/* The weights of a simulation's CPU time, fitted to runs on SS_ESTIMATE_MACHINE by bench/work-fit
 * (its grid, the fit and the estimate's error on each run: docs/testing.md, "The work of a
 * command"). A run costs START_S, PER_LAYER_S for each layer of its workload (read, then derived
 * into the job), per_exec_s for each execution (a GPU's segment of an iteration, a loader's read or
 * preparation, a collective's call on a rank, a pipeline's pass), per_message_s for each message (a
 * SimGrid communication: a collective's flows or steps, a parameter server's pushes and pulls, a
 * pipeline's sends) and per_flight_s in_flight^gamma more (SimGrid shares the links among the flows
 * in flight, again at each message's start and end: the more there are, the dearer), per_across_s
 * more for each between instances (longer routes), per_socket_s more for each of those over NCCL's
 * socket transport with its CPU modelled (its ends' threads' executions), and per_rank_iter_s for
 * each GPU of the job and iteration, simulated or not (the symmetric instances' timelines and
 * breakdown). */
typedef struct weights {
  double per_exec_s;
  double per_message_s;
  double per_flight_s;
  double per_across_s;
  double per_socket_s;
  double per_rank_iter_s;
  double gamma; /* of the flows in flight */
} weights;

static const weights fitted[SS_ESTIMATE_CLASSES] = {
    [SS_ESTIMATE_FAST] = {5.67e-06, 1.19e-06, 2.32e-08, 1.21e-05, 0, 7.64e-06, 1},
    [SS_ESTIMATE_REFERENCE] = {0, 0, 6.51e-07, 4.54e-06, 1.14e-05, 0.00305, 0.375},
    [SS_ESTIMATE_PS] = {9.28e-07, 2.76e-07, 7.52e-09, 9.93e-06, 7.15e-06, 0, 2.125},
    [SS_ESTIMATE_STAGES] = {4.13e-06, 0, 2.33e-11, 0, 0, 0.000214, 1},
};

/* A process started, its platform built and its inputs read: the least run on the machine. */
#define START_S 0.03
/* Each layer of the workload read and derived (fitted on the grid's --estimate runs, which read and
 * derive but simulate nothing). */
#define PER_LAYER_S 6.36e-06

double ss_estimate_floor_s(void)
{
  return START_S;
}

/* What a simulation sends: its messages, of them those between instances (the network's links:
 * longer routes than inside an instance), and the logarithm of how many flows are in flight at
 * once summed over the messages (their geometric mean is what the estimate weighs them by: a
 * message's start or end makes SimGrid share the links again among the flows it meets, at worst
 * all of them). */
typedef struct traffic {
  double msgs, across, log_flight;
  double socket; /* of those across, over NCCL's socket transport with its CPU modelled */
  double calls;  /* the collectives' calls on each rank (counted as executions) */
} traffic;

static void traffic_add(traffic* t, double msgs, double across, double in_flight)
{
  if (!(msgs > 0))
    return;
  t->msgs += msgs;
  t->across += across;
  t->log_flight += msgs * log(fmax(1, in_flight));
}

static double traffic_flight(const traffic* t)
{
  return t->msgs > 0 ? exp(t->log_flight / t->msgs) : 0;
}

/* Add `times` times one to t. */
static void traffic_repeat(traffic* t, const traffic* one, double times)
{
  traffic_add(t, one->msgs * times, one->across * times, traffic_flight(one));
  t->socket += one->socket * times;
  t->calls += one->calls * times;
}

/* msgs messages, `across` of them between instances, with flight flows in flight at once: over NCCL's
 * socket transport with its CPU modelled (sockcpu.c), each end's threads also start, stop and
 * restart executions on the instance's CPU for every message between instances, counted apart. */
static void sends(traffic* t, const ss_job* j, double msgs, double across, double flight)
{
  traffic_add(t, msgs, across, flight);
  if (j->sock_threads > 0)
    t->socket += across;
}

/* One ring phase on n ranks, `rings` rings of `steps` steps each moving `bytes` a step (their
 * shares summed), of which `cross` hops a ring leave an instance, at the job's fidelity: the
 * reference sends each step of each ring (pipelined: at most ss_nccl_window in flight per ring),
 * the fast one flow per ring. */
static void ring_phase(traffic* t, const ss_job* j, int n, int rings, int steps, double bytes, int cross)
{
  if (steps <= 0)
    return;
  double per = 1, flight = 1;
  if (j->opt.fidelity == SS_FIDELITY_REFERENCE) {
    int w = ss_job_ring_pipelined(j) ? ss_nccl_window(bytes / rings) : 1;
    per = steps;
    flight = w < steps ? w : steps;
  }
  sends(t, j, (double)n * rings * per, (double)cross * rings * per, (double)n * rings * flight);
}

/* One collective of bytes (op, scope, algorithm alg) of a simulation of j on n ranks (fewer than
 * j's with symmetry: ss_job_sim_instances), as coll.c runs it with j's steps and sizes. */
static void collective(traffic* t, const ss_job* j, int n, ss_coll_op op, ss_coll_scope scope, ss_allreduce alg,
                       double bytes)
{
  int g = j->gpus_per_instance, full_m = j->instances, m = n / g, passes = ss_cost_op_passes(op);
  int group = scope == SS_SCOPE_INSTANCE ? g : scope == SS_SCOPE_CROSS ? full_m : j->ngpus;
  if (group < 2 || !(bytes > 0))
    return;
  if (op == SS_OP_ALL_TO_ALL) {
    /* Every rank sends to every other at once (coll.c's all-to-all). */
    t->calls += n;
    sends(t, j, (double)n * (n - 1), (double)n * (n - g), (double)n * (n - 1));
    return;
  }
  int ri = j->intra.nrings > 0 ? j->intra.nrings : 1, rg = j->rings.nrings > 0 ? j->rings.nrings : 1;
  t->calls += n; /* each rank's call: its stream's semaphore, the collective's start and end */
  if (scope == SS_SCOPE_INSTANCE) {
    ring_phase(t, j, n, ri, passes * (g - 1), bytes / g, 0);
  } else if (scope == SS_SCOPE_CROSS) {
    ring_phase(t, j, n, 1, passes * (full_m - 1), bytes / g / full_m, n);
  } else if (alg == SS_ALLREDUCE_RING) {
    ring_phase(t, j, n, rg, passes * (j->ngpus - 1), bytes / j->ngpus, m > 1 ? m : 0);
  } else {
    /* Two levels: the instance's rings, then across instances the ring of same-index GPUs
     * (hierarchical) or the double binary tree's chunks (each GPU's half shard cut in k, every
     * edge sending each chunk up, then down), then the instance's rings again. */
    int first_in = op != SS_OP_ALL_GATHER, last_in = op != SS_OP_REDUCE_SCATTER;
    ring_phase(t, j, n, ri, (first_in + last_in) * (g - 1), bytes / g, 0);
    if (alg == SS_ALLREDUCE_HIERARCHICAL)
      ring_phase(t, j, n, 1, passes * (full_m - 1), bytes / g / full_m, n);
    else if (full_m > 1) {
      double k = j->opt.fidelity == SS_FIDELITY_REFERENCE ? ss_cost_tree_chunks(bytes / g / 2) : 1;
      sends(t, j, 4.0 * (n - g) * k, 4.0 * (n - g) * k, 2.0 * n);
    }
  }
}

/* The messages of one iteration of j (its simulated ranks). */
static traffic iteration_traffic(const ss_job* j, int n)
{
  traffic t = {0, 0, 0, 0, 0};
  if (j->opt.arch == SS_ARCH_PS) {
    /* Each GPU pushes every part and pulls it back (with --ps-aggregate instance 1/g of it, after a
     * reduce-scatter of each bucket among the instance's GPUs and before an all-gather): the
     * pushes of a bucket go at once, the pulls as each part is summed. */
    double per_bucket = j->nbuckets > 0 ? (double)j->ps_nparts / j->nbuckets : 1;
    sends(&t, j, 2.0 * n * j->ps_nparts, 2.0 * n * j->ps_nparts, n * fmax(1, per_bucket));
    if (j->ps_local > 1)
      traffic_add(&t, 2.0 * n * (j->ps_local - 1) * (j->nbuckets + 1), 0, n);
    for (int c = ss_job_seg_colls(j); c < ss_job_colls_per_iter(j); c++)
      collective(&t, j, n, j->colls[c].op, j->colls[c].scope, ss_tuner_algorithm(j, j->colls[c].op, j->colls[c].bytes),
                 j->colls[c].bytes);
    return t;
  }
  for (int c = 0; c < ss_job_colls_per_iter(j); c++) {
    const ss_coll_spec* spec = &j->colls[c];
    ss_allreduce alg = spec->scope != SS_SCOPE_ALL  ? SS_ALLREDUCE_RING
                       : spec->kind == SS_CK_BUCKET ? j->bucket_alg[spec->index]
                                                    : ss_tuner_algorithm(j, spec->op, spec->bytes);
    collective(&t, j, n, spec->op, spec->scope, alg, spec->bytes);
  }
  return t;
}

/* The executions of a GPU's batch (loader.c): read from storage and prepared in at most
 * SS_LOADER_STEPS steps, a read for each step with a sample out of the page cache (a fraction
 * j->cache of them is in it, spread evenly), one preparation before each read and one at the end,
 * and the hand-over; none with synthetic data. */
static double loader_execs(const ss_job* j)
{
  if (j->opt.synthetic)
    return 0;
  double batch = (double)j->batch * j->accum, steps = fmin(batch, SS_LOADER_STEPS), size = ceil(batch / steps);
  double reads = steps * fmin(1, size * (1 - fmin(1, j->cache)));
  return 2 * reads + 2;
}

/* The kind of simulation j is. */
static int class_of(const ss_job* j)
{
  return j->mp.on                                   ? SS_ESTIMATE_STAGES
         : j->opt.arch == SS_ARCH_PS                ? SS_ESTIMATE_PS
         : j->opt.fidelity == SS_FIDELITY_REFERENCE ? SS_ESTIMATE_REFERENCE
                                                    : SS_ESTIMATE_FAST;
}

/* The seconds of r by its class's weights. */
static double priced(ss_estimate_sim* r)
{
  const weights* w = &fitted[r->cls];
  double flight = r->messages > 0 ? r->in_flight : 1;
  return START_S + PER_LAYER_S * r->layers + w->per_exec_s * r->executions +
         r->messages * (w->per_message_s + w->per_flight_s * pow(flight, w->gamma)) + w->per_across_s * r->across +
         w->per_socket_s * r->socket_messages + w->per_rank_iter_s * r->rank_iters;
}

/* A pipeline (stage.c): one replica's stages, per stage its GPUs that share a NIC (about the
 * instance's GPUs per NIC), each running 2 m v passes an iteration and sending all but the edges'. */
static ss_estimate_sim describe_stages(const ss_job* j)
{
  const ss_mp* mp = &j->mp;
  int nics = j->platform->nnics > 0 ? j->platform->nnics : 1, w = j->gpus_per_instance / nics;
  w = w < 1 ? 1 : w > mp->t * mp->d ? mp->t * mp->d : w;
  double passes = (double)j->niters * mp->p * w * 2.0 * mp->m * mp->v;
  ss_estimate_sim r = {.instances = j->instances, .gpus = mp->p * w, .cls = SS_ESTIMATE_STAGES};
  r.layers = j->workload->nlayers;
  r.executions = passes;
  r.messages = mp->p * mp->v > 1 ? passes * (mp->p * mp->v - 1.0) / (mp->p * mp->v) : 0;
  /* The micro-batches a stage holds at once (all of them under GPipe) weigh on its sends. */
  double held = mp->schedule == SS_SCHEDULE_GPIPE ? mp->m : fmin(mp->m, (double)mp->p * mp->v);
  r.in_flight = r.gpus * held;
  r.rank_iters = (double)j->niters * j->ngpus; /* the cluster's platform is built whole */
  r.seconds = priced(&r);
  return r;
}

/* One training run of j, or with nsizes > 0 a benchmark of nsizes sizes (bytes) of reps collectives
 * each: its executions, messages and timelines. */
static ss_estimate_sim describe(const ss_job* j, int nsizes, const double* bytes, int reps)
{
  if (j->mp.on)
    return describe_stages(j);
  ss_estimate_sim r = {.cls = class_of(j)};
  r.instances = ss_job_sim_instances(j);
  r.gpus = r.instances * j->gpus_per_instance;
  traffic t = {0, 0, 0, 0, 0};
  if (nsizes > 0) {
    for (int k = 0; k < nsizes; k++) {
      traffic one = {0, 0, 0, 0, 0};
      collective(&one, j, r.gpus, j->opt.bench_op, SS_SCOPE_ALL, ss_tuner_algorithm(j, j->opt.bench_op, bytes[k]),
                 bytes[k]);
      traffic_repeat(&t, &one, reps);
    }
  } else {
    /* Per iteration and GPU: its segments (the layers between two collective launches run as one
     * execution: trainer.c), twice with the host thread simulated, the loaders' batch, and on a
     * trace a span per layer. */
    double per_gpu = j->nsegs * (j->host ? 2 : 1) + loader_execs(j) +
                     (j->opt.trace ? 2.0 * j->workload->nlayers * j->accum : 0);
    traffic one = iteration_traffic(j, r.gpus);
    traffic_repeat(&t, &one, j->niters);
    r.executions = (double)j->niters * r.gpus * per_gpu;
    r.rank_iters = (double)j->niters * j->ngpus;
    r.layers = j->workload->nlayers;
  }
  r.executions += t.calls;
  r.messages = t.msgs;
  r.across = t.across;
  r.in_flight = traffic_flight(&t);
  r.socket_messages = t.socket;
  r.seconds = priced(&r);
  return r;
}

double ss_estimate_run_s(const ss_job* j)
{
  return describe(j, 0, NULL, 0).seconds;
}

double ss_estimate_bench_s(const ss_job* j, int nsizes, const double* bytes, int reps)
{
  return describe(j, nsizes, bytes, reps).seconds;
}

static void add(ss_estimate* w, const ss_estimate_sim* r)
{
  w->seconds += r->seconds;
  w->runs++;
  w->executions += r->executions;
  w->messages += r->messages;
  if (r->seconds > w->largest.seconds)
    w->largest = *r;
}

void ss_estimate_add_run(ss_estimate* w, const ss_job* j)
{
  ss_estimate_sim r = describe(j, 0, NULL, 0);
  add(w, &r);
}

void ss_estimate_add_bench(ss_estimate* w, const ss_job* j, int nsizes, const double* bytes, int reps)
{
  ss_estimate_sim r = describe(j, nsizes, bytes, reps);
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
    fprintf(f,
            "{\"estimated_cpu_s\": %.6g, \"simulations\": %ld, \"executions\": %.6g, \"messages\": %.6g, "
            "\"largest\": {\"cpu_s\": %.6g, \"instances\": %d, \"gpus\": %d, \"class\": \"%s\", "
            "\"layers\": %.6g, \"executions\": %.6g, \"messages\": %.6g, \"in_flight\": %.6g, "
            "\"across\": %.6g, \"socket_messages\": %.6g, \"rank_iterations\": %.6g}, \"max_minutes\": %.6g, "
            "\"within_bound\": %s, \"machine\": \"%s\"}\n",
            w->seconds, w->runs, w->executions, w->messages, w->largest.seconds, w->largest.instances, w->largest.gpus,
            cls[w->largest.cls], w->largest.layers, w->largest.executions, w->largest.messages, w->largest.in_flight,
            w->largest.across, w->largest.socket_messages, w->largest.rank_iters, max_minutes, over ? "false" : "true",
            SS_ESTIMATE_MACHINE);
  else
    fprintf(f, "%s: about %s of CPU (%ld simulation%s, estimated for %s); --max-minutes %g %s it\n", what, est, w->runs,
            w->runs == 1 ? "" : "s", SS_ESTIMATE_MACHINE, max_minutes, over ? "refuses" : "allows");
  return ferror(f) ? SS_EIO : SS_OK;
}
