/* stash: Stash's differential stall breakdown, one simulated process per run. */
#include "stash.h"

#include "derive.h"
#include "runs.h"
#include "transport.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* const run_keys[SS_RUN_COUNT] = {"run0", "run1", "run2", "run3", "single_instance"};
/* The category each part of the differential breakdown measures. */
static const ss_cat diff_cat[SS_DIFF_COUNT] = {SS_CAT_COMPUTE, SS_CAT_INTERCONNECT, SS_CAT_NETWORK, SS_CAT_PREP,
                                               SS_CAT_FETCH};

const char* ss_stash_run_key(ss_run r)
{
  ss_assert(r >= 0 && r < SS_RUN_COUNT);
  return run_keys[r];
}

ss_cat ss_stash_diff_cat(ss_diff d)
{
  ss_assert(d >= 0 && d < SS_DIFF_COUNT);
  return diff_cat[d];
}

const char* ss_stash_diff_key(ss_diff d)
{
  return ss_cat_name(ss_stash_diff_cat(d));
}

static int xml_name(const struct dirent* e)
{
  size_t n = strlen(e->d_name);
  return n > 4 && strcmp(e->d_name + n - 4, ".xml") == 0;
}

/* How well an instance of g GPUs stands in for one with want: the same number first, then the
 * fewest above it (using want of them), then the most below it. Lower is better. */
static long fit_rank(int g, int want)
{
  if (g == want)
    return 0;
  if (g > want)
    return g;
  return 2L * SS_MAX_GPUS - g;
}

/* The instance file in p's directory with p's GPU model that best holds want GPUs (ties: the
 * cheapest, then the first by name). Files that do not load are not candidates. */
static int find_single(const ss_platform* p, int want, ss_platform** out, ss_err* err)
{
  char dir[PATH_MAX];
  const char* slash = strrchr(p->path, '/');
  if (slash)
    snprintf(dir, sizeof(dir), "%.*s", (int)(slash - p->path), p->path);
  else
    snprintf(dir, sizeof(dir), ".");
  struct dirent** names = NULL;
  int n = scandir(dir, &names, xml_name, alphasort);
  if (n < 0)
    return ss_err_set(err, p->path, 0,
                      "cannot list the directory '%s' to find a single instance with %d GPUs (give "
                      "one with --stash-single)",
                      dir, want);
  ss_platform* best = NULL;
  for (int i = 0; i < n; i++) {
    char path[PATH_MAX + 256];
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
    ss_platform* c = NULL;
    ss_err ignored;
    ss_err_clear(&ignored);
    if (ss_platform_load(path, &c, &ignored) == SS_OK && strcmp(c->gpus[0].model, p->gpus[0].model) == 0 &&
        (!best || fit_rank(c->ngpus, want) < fit_rank(best->ngpus, want) ||
         (fit_rank(c->ngpus, want) == fit_rank(best->ngpus, want) && c->price_usd_per_h < best->price_usd_per_h))) {
      ss_platform_free(best);
      best = c;
      c = NULL;
    }
    ss_platform_free(c);
    free(names[i]);
  }
  free(names);
  if (!best)
    return ss_err_set(err, p->path, 0,
                      "no instance file in '%s' has GPU model '%s' and loads (give one with "
                      "--stash-single)",
                      dir, p->gpus[0].model);
  *out = best;
  return SS_OK;
}

/* Mixed precision: every CNN run of Stash trains with apex AMP O1 in NCHW (DS-Analyzer @ 5fb06a1,
 * pytorch-imagenet-dali-mp.py: --amp sets opt_level O1; its --channels-last is parsed but never used,
 * DALI and the synthetic batches give NCHW): --precision amp without --channels-last, where the GPU
 * has FP16 tensor cores (an FP16 rate above its FP32 one) and the workload gives its layers' work
 * (the roofline times the precision). A K80 has no FP16 arithmetic faster than FP32 (its kernels
 * stay FP32: an ESTIMATE, apex O1 stores FP16 there but computes at the FP32 rate). --ideal keeps
 * the model before precisions existed (tests/ideal): AMP as V100 kernels x SS_STASH_AMP_IDEAL, ResNet-50's
 * measured FP32 / AMP throughput on a V100, 367 / 1200 img/s (../shared/data/single_gpu_throughput.md). */
#define SS_STASH_AMP_IDEAL 0.306

static int stash_amp(const ss_platform* p, const ss_workload* w)
{
  return p->gpus[0].fp16_flops > p->gpus[0].speed_flops && w->has_work && w->ref_bytes_per_s > 0;
}

/* Stash's synthetic sample (tool/synthetic_data.py): 3 x 224 x 224 fp32, 602,112 bytes. */
#define SS_STASH_SYNTH_SAMPLE_BYTES (3.0 * 224 * 224 * 4)

/* Stash's own stack on run k's options r (../shared/data/stash_methodology.md, section 7), but for
 * the options the user gave (given: a what-if on one part of the stack, --stash --ddp pytorch): the CNN
 * script trains with apex DDP, one allreduce per parameter tensor, AMP, torch.cuda.synchronize()
 * after the data and after the step; synthetic runs copy a pageable fp32 batch every iteration;
 * RUN1 (and the real-data runs, the same script) adds three metric allreduces and .item(); RUN0
 * has no DDP at all (one GPU: no collective). The real-data runs load with DALI (the loaders copy
 * ahead). BERT ran Hugging Face's script with PyTorch DDP. Says in words what it did (in `what`). */
static void stash_stack(const ss_platform* p, const ss_workload* w, const ss_optset* given, ss_options* r, ss_run k,
                        char* what, size_t size)
{
  int bert = strncmp(w->model, "bert", 4) == 0;
  int amp = !bert && stash_amp(p, w);
  r->cuda_sync = 1;
  if (r->synthetic)
    r->synthetic = SS_SYNTH_HOST;
  /* torch.randn(batch, 3, 224, 224) for every CNN, whatever the workload's decoded sample (uint8
   * for the DALI CPU pipeline's models, already fp32 for the others) */
  if (r->synthetic && !bert && !ss_optset_has(given, "synthetic-sample-bytes"))
    r->synthetic_sample_bytes = SS_STASH_SYNTH_SAMPLE_BYTES;
  if (!r->synthetic && !bert)
    r->async_copy = 1;
  if (!bert && !ss_optset_has(given, "ddp")) {
    r->ddp = SS_DDP_APEX;
    r->message_size = 1;
  }
  if (!bert && !ss_optset_has(given, "metric-allreduces"))
    r->metric_allreduces = k == SS_RUN0 ? 0 : 3;
  int ideal_amp = r->ideal && !bert && strstr(p->gpus[0].model, "V100") != NULL;
  if (ideal_amp && !ss_optset_has(given, "compute-scale"))
    r->compute_scale = SS_STASH_AMP_IDEAL;
  else if (!r->ideal && amp && !ss_optset_has(given, "precision"))
    r->precision = SS_PRECISION_AMP;
  int kept = ss_optset_has(given, "ddp") || ss_optset_has(given, "metric-allreduces") ||
             ss_optset_has(given, "precision") || (ideal_amp && ss_optset_has(given, "compute-scale")) ||
             ss_optset_has(given, "synthetic-sample-bytes");
  const char* lead = kept ? "(the options given on the command line replace the script's) " : "";
  if (bert)
    snprintf(what, size,
             "%sStash's BERT script: PyTorch DDP, synthetic batches copied from host memory, "
             "torch.cuda.synchronize() after the data and the step",
             lead);
  else
    snprintf(what, size,
             "%sStash's CNN script: apex DDP with one allreduce per parameter tensor, %s, fp32 synthetic "
             "batches copied from pageable host memory, DALI for real data, torch.cuda.synchronize() after the "
             "data and the step, three metric allreduces and .item() per iteration in RUN1-3 (--stash-stack "
             "ours: the job's options)",
             lead,
             ideal_amp ? "AMP as V100 kernels x0.306 (an estimate)"
             : amp     ? "AMP (--precision amp, NCHW: apex O1)"
                       : "AMP (no FP16 tensor cores on this GPU, or no layer work in the workload: FP32 kernels)");
}

int ss_stash_plan(const ss_platform* p, const ss_workload* w, const ss_options* o, const ss_optset* given,
                  const char* single_path, ss_stash** out, ss_err* err)
{
  ss_stash* s = calloc(1, sizeof(*s));
  if (!s)
    return ss_err_nomem(err);
  ss_options r[SS_RUN_COUNT];
  r[SS_RUN2] = *o;
  r[SS_RUN2].synthetic = 0;
  r[SS_RUN2].cache = 0;
  r[SS_RUN3] = r[SS_RUN2];
  r[SS_RUN3].cache = 1;
  r[SS_RUN1] = *o;
  r[SS_RUN1].synthetic = 1;
  r[SS_RUN0] = r[SS_RUN1];
  r[SS_RUN0].instances = 1;
  r[SS_RUN0].gpus = 1;
  /* RUN0 exchanges no gradients: with parameter servers it would still push to them. */
  r[SS_RUN0].arch = SS_ARCH_ALLREDUCE;
  r[SS_RUN0].async = 0;
  int scripts = o->stash_stack == SS_STACK_STASH || (o->stash_stack == SS_STACK_AUTO && !o->ideal);
  /* With --ideal the runs are as they were before stacks existed, notes included. */
  if (o->stash_stack == SS_STACK_OURS)
    snprintf(s->stack, sizeof(s->stack), "the job's own options (--stash-stack ours)");
  for (int k = SS_RUN0; scripts && k <= SS_RUN3; k++)
    stash_stack(p, w, given, &r[k], (ss_run)k, s->stack, sizeof(s->stack));
  int rc = SS_OK;
  for (int k = SS_RUN0; !rc && k <= SS_RUN3; k++)
    rc = ss_derive_job(p, w, &r[k], &s->job[k], err);
  if (!rc && o->instances > 1) {
    int want = s->job[SS_RUN1]->ngpus;
    if (single_path)
      rc = ss_platform_load(single_path, &s->single, err);
    else
      rc = find_single(p, want, &s->single, err);
    if (!rc && ss_transport_prepare(s->single, o))
      rc = ss_err_nomem(err);
    if (!rc && strcmp(s->single->gpus[0].model, p->gpus[0].model) != 0)
      rc = ss_err_set(err, s->single->path, 0, "--stash-single has GPU model '%s', the job's instances have '%s'",
                      s->single->gpus[0].model, p->gpus[0].model);
    if (!rc) {
      ss_options single = r[SS_RUN1];
      single.instances = 1;
      single.gpus = want < s->single->ngpus ? want : -1;
      single.nic_gbps = -1;
      single.nic_latency_us = -1;
      single.oversub = 1;
      s->single_exact = s->single->ngpus >= want;
      rc = ss_derive_job(s->single, w, &single, &s->job[SS_RUN_SINGLE], err);
    }
  }
  return SS_HAND_OUT(rc, s, out, ss_stash_free);
}

void ss_stash_free(ss_stash* s)
{
  if (!s)
    return;
  for (int k = 0; k < SS_RUN_COUNT; k++)
    ss_job_free(s->job[k]);
  ss_platform_free(s->single);
  free(s);
}

static const char* const run_names[SS_RUN_COUNT] = {"RUN0 (synthetic, 1 GPU)", "RUN1 (synthetic, all GPUs)",
                                                    "RUN2 (real data, cold cache)", "RUN3 (real data, cached)",
                                                    "the single-instance run"};

int ss_stash_run(ss_stash* s, int ncfg, char** cfg, ss_err* err)
{
  const ss_job* jobs[SS_RUN_COUNT];
  const char* names[SS_RUN_COUNT];
  int runs[SS_RUN_COUNT], nruns = 0;
  for (int k = 0; k < SS_RUN_COUNT; k++)
    if (s->job[k]) {
      jobs[nruns] = s->job[k];
      names[nruns] = run_names[k];
      runs[nruns++] = k;
    }
  ss_breakdown bd[SS_RUN_COUNT];
  double sim_s[SS_RUN_COUNT];
  int rc = ss_runs_all(jobs, names, nruns, ncfg, cfg, bd, sim_s, err);
  if (rc)
    return rc;
  for (int i = 0; i < nruns; i++) {
    s->bd[runs[i]] = bd[i];
    s->simulated_s[runs[i]] = sim_s[i];
  }
  return ss_stash_derive(s, err);
}

/* A note when two views of the same time differ by more than 2% of the iteration. */
static int differ(double a, double b, double iteration_s)
{
  return fabs(a - b) > 0.02 * iteration_s;
}

static void note(ss_stash* s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(ss_stash* s, const char* fmt, ...)
{
  if (s->nnotes >= SS_STASH_MAX_NOTES)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->notes[s->nnotes++], sizeof(s->notes[0]), fmt, ap);
  va_end(ap);
}

/* Compare the differential parts with RUN2's timeline and say where and why they differ. */
static void explain(ss_stash* s)
{
  const double* tl = s->bd[SS_RUN2].part_s;
  const double* d = s->part_s;
  double t2 = s->bd[SS_RUN2].iteration_s;
  double comm_d = d[SS_DIFF_INTERCONNECT] + d[SS_DIFF_NETWORK];
  double comm_t = tl[SS_CAT_INTERCONNECT] + tl[SS_CAT_NETWORK];
  double data_d = d[SS_DIFF_PREP] + d[SS_DIFF_FETCH];
  double data_t = tl[SS_CAT_PREP] + tl[SS_CAT_FETCH];
  if (s->job[SS_RUN_SINGLE] && !s->single_exact)
    note(s,
         "no %s instance file has %d GPUs: the network stall compares with %d GPUs on one %s, so it also holds "
         "the difference of scale",
         s->single->gpus[0].model, s->job[SS_RUN1]->ngpus, s->job[SS_RUN_SINGLE]->ngpus, s->single->instance_type);
  if (differ(comm_d, comm_t, t2))
    note(s,
         "communication: the differential view charges %.3f ms (RUN1 - RUN0), the timeline %.3f ms of waits on "
         "collectives in RUN2: %s",
         comm_d * 1e3, comm_t * 1e3,
         comm_t > comm_d ? "with real data the loaders' host-to-device copies share PCIe and host links with the "
                           "collectives, which then take longer than in the synthetic RUN1"
                         : "with real data the GPUs reach each collective out of step, and the time a GPU waits for a "
                           "late one is booked by the late one as data stall");
  if (differ(data_d, data_t, t2))
    note(s,
         "data: the differential view charges %.3f ms (RUN2 - RUN1), the timeline %.3f ms of waits for data in "
         "RUN2: RUN2 also changes how communication overlaps, see above",
         data_d * 1e3, data_t * 1e3);
  else if (differ(d[SS_DIFF_PREP], tl[SS_CAT_PREP], t2))
    note(s,
         "prep vs fetch: Stash charges prep with the wait left when every sample is cached (RUN3 - RUN1, "
         "%.3f ms) and fetch with all the wait that reading adds to it (RUN2 - RUN3, %.3f ms); the timeline "
         "splits each wait in proportion to the loader's disk and CPU time on that batch (%.3f and %.3f ms), %s",
         d[SS_DIFF_PREP] * 1e3, d[SS_DIFF_FETCH] * 1e3, tl[SS_CAT_PREP] * 1e3, tl[SS_CAT_FETCH] * 1e3,
         tl[SS_CAT_FETCH] < d[SS_DIFF_FETCH]
             ? "so reads get their share of the wait, not the whole increase they cause on a loader that is already "
               "the bottleneck"
             : "so reads get a share of waits that preparation alone would also have caused");
  if (differ(d[SS_DIFF_COMPUTE], tl[SS_CAT_COMPUTE], t2))
    note(s, "compute: RUN0 takes %.3f ms, the GPUs of RUN2 compute %.3f ms per iteration", d[SS_DIFF_COMPUTE] * 1e3,
         tl[SS_CAT_COMPUTE] * 1e3);
}

int ss_stash_derive(ss_stash* s, ss_err* err)
{
  double t[SS_RUN_COUNT];
  for (int k = 0; k < SS_RUN_COUNT; k++) {
    t[k] = s->bd[k].iteration_s;
    char what[64];
    snprintf(what, sizeof(what), "the iteration of Stash's %s", run_names[k]);
    if (s->job[k] && ss_job_check_iteration(s->job[k], what, t[k], err))
      return SS_EINPUT;
  }
  int multi = s->job[SS_RUN_SINGLE] != NULL;
  double single = multi ? t[SS_RUN_SINGLE] : t[SS_RUN1];
  ss_assert(t[SS_RUN0] > 0 && t[SS_RUN1] > 0 && t[SS_RUN2] > 0 && t[SS_RUN3] > 0 && single > 0);
  /* The parts telescope: they sum to T(RUN2) whatever their signs. */
  s->part_s[SS_DIFF_COMPUTE] = t[SS_RUN0];
  s->part_s[SS_DIFF_INTERCONNECT] = single - t[SS_RUN0];
  s->part_s[SS_DIFF_NETWORK] = t[SS_RUN1] - single;
  s->part_s[SS_DIFF_PREP] = t[SS_RUN3] - t[SS_RUN1];
  s->part_s[SS_DIFF_FETCH] = t[SS_RUN2] - t[SS_RUN3];
  /* tool/analyze.py: interconnect / RUN1, network / single instance, prep / RUN3 (not below 0),
   * fetch / RUN2; compute, which Stash does not report, / RUN2. */
  s->pct[SS_DIFF_COMPUTE] = 100 * t[SS_RUN0] / t[SS_RUN2];
  s->pct[SS_DIFF_INTERCONNECT] = 100 * s->part_s[SS_DIFF_INTERCONNECT] / single;
  s->pct[SS_DIFF_NETWORK] = 100 * s->part_s[SS_DIFF_NETWORK] / single;
  s->pct[SS_DIFF_PREP] = fmax(0, 100 * s->part_s[SS_DIFF_PREP] / t[SS_RUN3]);
  s->pct[SS_DIFF_FETCH] = 100 * s->part_s[SS_DIFF_FETCH] / t[SS_RUN2];
  const ss_job* j = s->job[SS_RUN2];
  double samples = j->workload->dataset.samples;
  s->iterations_per_epoch = samples / ((double)j->batch * j->ngpus);
  for (int k = 0; k < SS_RUN_COUNT; k++) {
    const ss_job* r = s->job[k];
    if (!r)
      continue;
    s->epoch_s[k] = samples / ((double)r->batch * r->ngpus) * t[k];
    s->cost_usd_per_epoch[k] = s->epoch_s[k] * r->price_usd_per_h * r->instances / 3600.0;
  }
  s->nnotes = 0;
  if (s->stack[0])
    note(s, "stack: %s", s->stack);
  explain(s);
  return SS_OK;
}
