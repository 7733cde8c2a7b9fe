/* planner: stash-sim plan (planner.h). */
#include "planner.h"

#include "array.h"
#include "csv.h"
#include "outfile.h"
#include "derive.h"
#include "proc.h"
#include "platform.h"
#include "report.h"
#include "runs.h"
#include "simcfg.h"
#include "transport.h"
#include "workload.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One configuration to simulate: its job and its place in the enumeration. */
typedef struct config {
  ss_job* job;
  int platform;
  char name[160];
} config;

/* Whether row a is at least as good as b in time and cost, and better in one. */
static int dominates(const ss_planner_row* a, const ss_planner_row* b)
{
  return a->time_to_train_s <= b->time_to_train_s && a->cost_usd <= b->cost_usd &&
         (a->time_to_train_s < b->time_to_train_s || a->cost_usd < b->cost_usd);
}

void ss_planner_pareto(ss_planner_row* rows, int n)
{
  for (int i = 0; i < n; i++) {
    rows[i].pareto = 1;
    for (int k = 0; k < n && rows[i].pareto; k++)
      if (k != i && dominates(&rows[k], &rows[i]))
        rows[i].pareto = 0;
  }
}

/* The ranking: by the objective, then the other figure, then what the configuration is (a total
 * order: the same inputs rank the same). */
static ss_objective sort_objective;

static int cmp_double(double a, double b)
{
  return a < b ? -1 : a > b;
}

static int by_rank(const void* pa, const void* pb)
{
  const ss_planner_row *a = pa, *b = pb;
  int time = cmp_double(a->time_to_train_s, b->time_to_train_s), cost = cmp_double(a->cost_usd, b->cost_usd);
  int c = sort_objective == SS_OBJECTIVE_TIME ? (time ? time : cost) : (cost ? cost : time);
  if (c)
    return c;
  if (a->platform != b->platform)
    return a->platform < b->platform ? -1 : 1;
  if (a->instances != b->instances)
    return a->instances < b->instances ? -1 : 1;
  if (a->shard != b->shard)
    return a->shard < b->shard ? -1 : 1;
  if (a->tp != b->tp)
    return a->tp < b->tp ? -1 : 1;
  if (a->pp != b->pp)
    return a->pp < b->pp ? -1 : 1;
  if (a->micro_batch != b->micro_batch)
    return a->micro_batch < b->micro_batch ? -1 : 1;
  if (a->schedule != b->schedule)
    return a->schedule < b->schedule ? -1 : 1;
  if (a->allreduce != b->allreduce)
    return a->allreduce < b->allreduce ? -1 : 1;
  return (a->batch > b->batch) - (a->batch < b->batch);
}

/* The row of a simulated configuration, from its result as its own report gives it. */
static void fill_row(ss_planner_row* r, const config* c, const ss_result* res)
{
  const ss_job* j = c->job;
  r->platform = c->platform;
  r->instance_type = strdup(j->platform->instance_type);
  r->gpu_model = strdup(j->platform->gpus[0].model);
  r->price_source = strdup(j->price_source);
  r->instances = j->instances;
  r->gpus = j->ngpus;
  r->batch = j->batch;
  r->allreduce = j->opt.allreduce;
  r->shard = j->opt.shard;
  r->tp = j->mp.on ? j->mp.t : 1;
  r->cp = j->mp.on ? j->mp.cp : 1;
  r->ep = j->mp.on ? j->mp.ep : 1;
  r->pp = j->mp.on ? j->mp.p : 1;
  r->dp = j->mp.on ? j->mp.d : j->ngpus;
  r->micro_batch = j->batch;
  r->micro_batches = j->mp.on ? j->mp.m : 1;
  r->virtual_stages = j->mp.on ? j->mp.v : 1;
  r->schedule = j->mp.on ? j->mp.schedule : SS_SCHEDULE_1F1B;
  r->recompute = j->mp.on ? j->opt.recompute : SS_RECOMPUTE_NONE;
  r->tokens_per_s = res->tokens_per_s;
  r->mfu = res->mfu;
  r->iteration_s = res->bd.iteration_s;
  r->throughput_samples_per_s = res->throughput_samples_per_s;
  r->epoch_s = res->epoch_s;
  r->cost_usd_per_epoch = res->cost_usd_per_epoch;
  r->price_usd_per_h = j->price_usd_per_h;
  r->time_to_train_s = res->time_to_train_s;
  r->cost_usd = res->cost_to_train_usd;
  r->limit = res->bd.limit;
  r->limit_util = res->bd.util[res->bd.limit];
  r->compute_scaling = ss_job_compute_scaling(j);
  r->stall = SS_CAT_COUNT;
  for (int k = 0; k < SS_CAT_COUNT; k++) {
    r->part_s[k] = res->bd.part_s[k];
    if (k != SS_CAT_COMPUTE && res->bd.part_s[k] > 0 &&
        (r->stall == SS_CAT_COUNT || res->bd.part_s[k] > res->bd.part_s[r->stall]))
      r->stall = (ss_cat)k;
  }
}

/* The job of one configuration; 1 when the job's checks refused it (counted), 0, or an error. */
static int build(const ss_platform* p, int platform, const ss_workload* w, const ss_options* o, ss_planner* out,
                 ss_job** job, ss_err* err)
{
  ss_err why;
  ss_err_clear(&why);
  int rc = ss_derive_job(p, w, o, job, &why);
  if (rc == SS_ENOMEM)
    return ss_err_nomem(err);
  if (rc) {
    out->refused++;
    if (!out->refused_by[platform]++)
      out->refused_by_first[platform] = why;
    return 1;
  }
  return 0;
}

/* The options of a configuration sharded as mode: each mode's own options kept for the modes that
 * take them, the others' defaults (the registry's) elsewhere: --ddp's only without sharding. */
static void shard_options(ss_options* c, ss_shard mode)
{
  ss_options d;
  ss_options_default(&d);
  c->shard = mode;
  for (const ss_optdef* r = ss_option_table; r->name; r++)
    if (!ss_option_shard_takes(r, mode))
      ss_option_copy(r, c, &d);
}

/* What makes a plan's work smaller. */
static const char plan_hint[] =
    "fewer instance types (--platforms), --max-instances, --shards, --algorithms or --batches";
static const char plan_hint_layouts[] =
    "fewer instance types (--platforms), --max-instances, --tps, --cps, --eps, --pps, --micro-batches or --schedules";

static const char* hint_of(const ss_planner* out)
{
  return out->model_parallel ? plan_hint_layouts : plan_hint;
}

/* The dimensions of the enumeration, outermost first: the last varies fastest. The rows' order and
 * the ranking's ties follow this order. */
enum {
  DIM_PLATFORM,
  DIM_INSTANCES,
  DIM_TP,
  DIM_CP,
  DIM_EP,
  DIM_PP,
  DIM_MICRO,
  DIM_SCHEDULE,
  DIM_SHARD,
  DIM_ALG,
  DIM_BATCH,
  NDIMS
};

/* What the enumeration walks: the plan's inputs and the values of each dimension. */
typedef struct space {
  ss_platform* const* plats;
  const ss_workload* w;
  const ss_options* o;
  ss_planner* out; /* counts what it refuses and skips */
  ss_allreduce algs[SS_OPTION_LIST_MAX];
  ss_shard shards[SS_OPTION_LIST_MAX];
  int batches[SS_OPTION_LIST_MAX];
  int tps[SS_OPTION_LIST_MAX], pps[SS_OPTION_LIST_MAX], cps[SS_OPTION_LIST_MAX], eps[SS_OPTION_LIST_MAX];
  int micro[SS_OPTION_LIST_MAX];
  ss_schedule schedules[SS_OPTION_LIST_MAX];
  int size[NDIMS]; /* how many values each dimension takes (instances: index i is i + 1 of them) */
} space;

/* The space of o's lists; 0, or an error when a list does not parse. */
static int space_init(space* s, ss_platform* const* plats, const ss_workload* w, const ss_options* o, ss_planner* out,
                      ss_err* err)
{
  /* The lists were checked with the options (ss_options_check): they parse. */
  s->plats = plats;
  s->w = w;
  s->o = o;
  s->out = out;
  s->batches[0] = w->batch_per_gpu;
  s->shards[0] = o->shard;
  s->size[DIM_PLATFORM] = out->nplatforms;
  s->size[DIM_INSTANCES] = o->plan_max_instances;
  s->size[DIM_ALG] = ss_option_list_algorithms(o->plan_algorithms ? o->plan_algorithms : "ring,tree,hierarchical",
                                               s->algs, SS_OPTION_LIST_MAX);
  s->size[DIM_BATCH] = o->plan_batches ? ss_option_list_batches(o->plan_batches, s->batches, SS_OPTION_LIST_MAX) : 1;
  s->size[DIM_SHARD] = o->plan_shards ? ss_option_list_shards(o->plan_shards, s->shards, SS_OPTION_LIST_MAX) : 1;
  if (s->size[DIM_ALG] < 0 || s->size[DIM_BATCH] < 0 || s->size[DIM_SHARD] < 0)
    return ss_err_set(err, NULL, 0, "--algorithms, --batches or --shards: not a list the options' checks accept");
  /* Tensor and pipeline parallelism: the lists, or the run options' one value each. */
  s->tps[0] = o->tp;
  s->pps[0] = o->pp;
  s->cps[0] = o->cp;
  s->eps[0] = o->ep;
  s->micro[0] = o->micro_batch > 0 ? o->micro_batch : w->batch_per_gpu;
  s->schedules[0] = o->schedule;
  s->size[DIM_TP] = o->plan_tps ? ss_option_list_sizes(o->plan_tps, s->tps, SS_OPTION_LIST_MAX) : 1;
  s->size[DIM_PP] = o->plan_pps ? ss_option_list_sizes(o->plan_pps, s->pps, SS_OPTION_LIST_MAX) : 1;
  s->size[DIM_CP] = o->plan_cps ? ss_option_list_sizes(o->plan_cps, s->cps, SS_OPTION_LIST_MAX) : 1;
  s->size[DIM_EP] = o->plan_eps ? ss_option_list_sizes(o->plan_eps, s->eps, SS_OPTION_LIST_MAX) : 1;
  s->size[DIM_MICRO] = o->plan_micro ? ss_option_list_sizes(o->plan_micro, s->micro, SS_OPTION_LIST_MAX) : 1;
  s->size[DIM_SCHEDULE] = o->plan_schedules
                              ? ss_option_list_schedules(o->plan_schedules, s->schedules, SS_OPTION_LIST_MAX)
                              : 1;
  for (int k = 0; k < s->size[DIM_TP]; k++)
    out->model_parallel |= s->tps[k] > 1;
  for (int k = 0; k < s->size[DIM_PP]; k++)
    out->model_parallel |= s->pps[k] > 1;
  for (int k = 0; k < s->size[DIM_CP]; k++)
    out->model_parallel |= s->cps[k] > 1;
  for (int k = 0; k < s->size[DIM_EP]; k++)
    out->model_parallel |= s->eps[k] > 1;
  /* A plan of layouts tries one algorithm unless --algorithms says (the layouts' own reductions
   * take the run's --allreduce). */
  if (out->model_parallel && !o->plan_algorithms) {
    s->algs[0] = o->allreduce;
    s->size[DIM_ALG] = 1;
  }
  for (int k = 0; k < s->size[DIM_EP]; k++)
    if (s->eps[k] > 1 && (!w->has_transformer || w->tf.moe.experts <= 0))
      return ss_err_set(err, w->path, 0,
                        "--eps splits the experts of a mixture of experts, and %s is a dense model (no \"moe\" in its "
                        "transformer architecture: docs/formats.md)",
                        w->model);
  if (out->model_parallel && !w->has_transformer)
    return ss_err_set(err, w->path, 0,
                      "--tps and --pps split a transformer, and this workload gives no \"transformer\" architecture "
                      "(docs/formats.md)");
  return SS_OK;
}

/* The points of the space: the product of the dimensions' sizes (0 when one is empty). */
static size_t space_count(const space* s)
{
  size_t count = 1;
  for (int d = 0; d < NDIMS; d++)
    count = s->size[d] > 0 ? count * (size_t)s->size[d] : 0;
  return count;
}

/* The point of index i, one value index per dimension: i in mixed radix, the last dimension its
 * lowest digit, so that increasing i walks the nested loops' order. */
static void space_decode(const space* s, size_t i, int at[NDIMS])
{
  for (int d = NDIMS - 1; d >= 0; d--) {
    at[d] = (int)(i % (size_t)s->size[d]);
    i /= (size_t)s->size[d];
  }
}

/* A tensor- and pipeline-parallel configuration's job (c's layout set): the least recomputation from
 * --recompute's that fits the memory; 1 when every one is refused (counted once), 0, or an error. */
static int build_layout(const space* s, int p, ss_options* c, config* cf, ss_err* err)
{
  ss_planner* out = s->out;
  int refused = out->refused, first = out->refused_by[p];
  for (int r = s->o->recompute; r < SS_RECOMPUTE_COUNT; r++) {
    c->recompute = (ss_recompute)r;
    int rc = build(s->plats[p], p, s->w, c, out, &cf->job, err);
    if (rc != 1)
      return rc;
    /* Only the last refusal counts, and it is the one the plan names. */
    if (r + 1 < SS_RECOMPUTE_COUNT) {
      out->refused = refused;
      out->refused_by[p] = first;
    }
  }
  return 1;
}

/* Why layout t x pp is no configuration of k instances of per GPUs (of the instance type name), into
 * buf[size]. */
static void skipped_layout(char* buf, size_t size, int t, int pp, int per, int k, const char* name)
{
  if (t > per)
    snprintf(buf, size, "t %d is more than the %d GPU%s of a %s (a tensor group stays inside an instance)", t, per,
             per == 1 ? "" : "s", name);
  else
    snprintf(buf, size, "t %d x p %d = %d GPUs do not divide the %d GPU%s of %d %s", t, pp, t * pp, per * k,
             per * k == 1 ? "" : "s", k, name);
}

/* Configuration at's job, in cf: 0, 1 when it is no configuration or refused (counted), or an error. */
static int configure(const space* s, const int at[NDIMS], config* cf, ss_err* err)
{
  const ss_options* o = s->o;
  int p = at[DIM_PLATFORM], k = at[DIM_INSTANCES] + 1;
  ss_shard shard = s->shards[at[DIM_SHARD]];
  ss_allreduce alg = s->algs[at[DIM_ALG]];
  int t = s->tps[at[DIM_TP]], pp = s->pps[at[DIM_PP]], cp = s->cps[at[DIM_CP]], ep = s->eps[at[DIM_EP]];
  int per = o->gpus > 0 ? o->gpus : s->plats[p]->ngpus;
  if (t * cp * pp * ep > 1) {
    /* A layout's own points: no sharding, the data-parallel reduction's algorithm and the batch are
     * not its dimensions (their first values stand for them). */
    if (at[DIM_SHARD] > 0 || at[DIM_ALG] > 0 || at[DIM_BATCH] > 0)
      return 1;
    /* Tensor groups inside an instance, layouts that divide the GPUs: the others are no configuration. */
    if (t > per || (per * k) % (t * cp * pp)) {
      if (!s->out->not_dividing++)
        skipped_layout(s->out->not_dividing_first, sizeof(s->out->not_dividing_first), t * cp, pp, per, k,
                       s->out->platforms[p].name);
      return 1;
    }
    /* The expert groups (ep x etp GPUs) divide a stage's GPUs: the others are no configuration. */
    int etp = o->etp > 0 ? o->etp : t, stage = per * k / pp;
    if (stage % (ep * etp)) {
      if (!s->out->not_dividing++)
        snprintf(s->out->not_dividing_first, sizeof(s->out->not_dividing_first),
                 "e %d x etp %d = %d GPUs do not divide the %d GPUs of a stage of %d %s", ep, etp, ep * etp, stage, k,
                 s->out->platforms[p].name);
      return 1;
    }
    ss_schedule sched = s->schedules[at[DIM_SCHEDULE]];
    if (pp == 1 && at[DIM_SCHEDULE] > 0)
      return 1;
    ss_options c = *o;
    c.instances = k;
    c.tp = t;
    c.cp = cp;
    c.ep = ep;
    c.pp = pp;
    c.sequence_parallel = o->sequence_parallel && t > 1; /* a plan's --sequence-parallel: where t > 1 */
    c.micro_batch = s->micro[at[DIM_MICRO]];
    c.schedule = pp > 1 ? sched : SS_SCHEDULE_1F1B;
    c.virtual_stages = ss_schedule_of(c.schedule)->chunks ? (o->virtual_stages > 1 ? o->virtual_stages : 2) : 1;
    c.batch = -1;
    s->out->configurations++;
    if (o->global_batch > 0 && o->global_batch % (c.micro_batch * (per * k / (t * cp * pp)))) {
      s->out->not_whole++;
      return 1;
    }
    int rc = build_layout(s, p, &c, cf, err);
    if (rc)
      return rc;
    cf->platform = p;
    char context[32] = "";
    if (cp > 1 || ep > 1)
      snprintf(context, sizeof(context), "%s%.0d%s%.0d", cp > 1 ? " cp" : "", cp > 1 ? cp : 0, ep > 1 ? " e" : "",
               ep > 1 ? ep : 0);
    snprintf(cf->name, sizeof(cf->name), "%s x %d, t%d%s p%d d%d, micro-batch %d%s%s, recompute %s",
             s->out->platforms[p].name, k, t, context, pp, cf->job->mp.d, c.micro_batch, pp > 1 ? ", " : "",
             pp > 1 ? ss_schedule_names[c.schedule] : "", ss_recompute_names[c.recompute]);
    return SS_OK;
  }
  /* Data parallelism alone: one point for the micro-batches and schedules of the layouts. */
  if (at[DIM_MICRO] > 0 || at[DIM_SCHEDULE] > 0)
    return 1;
  /* Sharding's all-gathers and reduce-scatters have no tree in NCCL: not counted as a configuration. */
  if (ss_shard_sharded(shard) && alg == SS_ALLREDUCE_TREE)
    return 1;
  /* Nor is a sharding mode on one GPU: it shards nothing, and would rank beside the same run unsharded. */
  int gpus = per * k;
  if (ss_shard_sharded(shard) && gpus == 1) {
    s->out->sharded_one_gpu++;
    return 1;
  }
  ss_options c = *o;
  shard_options(&c, shard);
  c.tp = c.pp = 1;
  c.virtual_stages = 1;
  c.instances = k;
  c.allreduce = alg;
  c.batch = s->batches[at[DIM_BATCH]];
  s->out->configurations++;
  if (o->global_batch > 0) {
    if (o->global_batch % gpus) {
      s->out->not_whole++;
      return 1;
    }
    c.batch = o->global_batch / gpus;
  }
  int rc = build(s->plats[p], p, s->w, &c, s->out, &cf->job, err);
  if (rc)
    return rc;
  cf->platform = p;
  snprintf(cf->name, sizeof(cf->name), "%s x %d, %s, batch %d%s%s", s->out->platforms[p].name, k,
           ss_allreduce_name(alg), c.batch, ss_shard_sharded(c.shard) ? ", " : "",
           ss_shard_sharded(c.shard) ? ss_shard_name(c.shard) : "");
  return SS_OK;
}

/* Every configuration's job: platforms x instances x sharding modes x algorithms x batches, in
 * *configs[0..*n) (the refused and the skipped left out). */
static int enumerate(ss_platform* const* plats, const ss_workload* w, const ss_options* o, ss_planner* out,
                     config** configs, int* n, ss_err* err)
{
  space s;
  int rc = space_init(&s, plats, w, o, out, err);
  if (rc)
    return rc;
  size_t count = space_count(&s);
  /* Each configuration is a process of its own: the least it costs bounds the plan before its
   * jobs are built, so that a plan of millions of points is refused at once. */
  double floor_s = (double)count * ss_estimate_floor_s();
  if (count > SS_PLAN_MAX_CONFIGS || floor_s > o->max_minutes * 60) {
    char est[32], beyond[96];
    ss_estimate_duration(est, sizeof(est), floor_s);
    int most = count > SS_PLAN_MAX_CONFIGS;
    if (most)
      snprintf(beyond, sizeof(beyond), "more than a plan enumerates (%g configurations)", (double)SS_PLAN_MAX_CONFIGS);
    else
      snprintf(beyond, sizeof(beyond), "more than --max-minutes %g", o->max_minutes);
    char dims[160];
    if (out->model_parallel)
      snprintf(dims, sizeof(dims),
               "tensor sizes %d, context sizes %d, expert sizes %d, stage counts %d, "
               "micro-batches %d, schedules %d",
               s.size[DIM_TP], s.size[DIM_CP], s.size[DIM_EP], s.size[DIM_PP], s.size[DIM_MICRO], s.size[DIM_SCHEDULE]);
    else
      snprintf(dims, sizeof(dims), "sharding modes %d, algorithms %d, batches %d", s.size[DIM_SHARD], s.size[DIM_ALG],
               s.size[DIM_BATCH]);
    return ss_err_set(err, NULL, 0,
                      "this plan has %zu configurations (instance types %d, instance counts %d, %s): at least %s of "
                      "CPU to simulate (%g s each at the least, estimated for %s), %s: give %s%s",
                      count, s.size[DIM_PLATFORM], s.size[DIM_INSTANCES], dims, est, ss_estimate_floor_s(),
                      SS_ESTIMATE_MACHINE, beyond, hint_of(out), most ? "" : ", or a larger --max-minutes");
  }
  *configs = calloc(count + 1, sizeof(config));
  if (!*configs)
    return ss_err_nomem(err);
  *n = 0;
  for (size_t i = 0; i < count; i++) {
    int at[NDIMS];
    space_decode(&s, i, at);
    rc = configure(&s, at, &(*configs)[*n], err);
    if (rc < 0)
      return rc;
    if (rc == 0)
      (*n)++;
  }
  return SS_OK;
}

/* The workload in *w and each platform in plats[] (its transport prepared): 0, or an error. */
static int load_inputs(const ss_planner_platform* platforms, int nplatforms, const ss_options* o, ss_workload** w,
                       ss_platform** plats, ss_err* err)
{
  int rc = ss_workload_load(o->workload_path, w, err);
  for (int p = 0; !rc && p < nplatforms; p++)
    if (ss_platform_load(platforms[p].path, &plats[p], err) || (ss_transport_prepare(plats[p], o) && ss_err_nomem(err)))
      rc = SS_EINPUT;
  return rc;
}

/* The GPUs of an instance of each platform of plats ("8 on p4d.24xl, 4 on p3.8xl"; --gpus's when
 * given), into buf[size]. */
static void instance_gpus(char* buf, size_t size, ss_platform* const* plats, const ss_options* o, const ss_planner* out)
{
  size_t n = 0;
  buf[0] = '\0';
  if (o->gpus > 0) {
    snprintf(buf, size, "%d, --gpus", o->gpus);
    return;
  }
  for (int p = 0; p < out->nplatforms && n < size; p++) {
    if (p == 4) {
      snprintf(buf + n, size - n, ", ...");
      return;
    }
    n += (size_t)snprintf(buf + n, size - n, "%s%d on %s", p ? ", " : "", plats[p]->ngpus, out->platforms[p].name);
  }
}

/* The error when the lists leave no configuration at all: each layout skipped for not fitting the
 * GPUs, or each sharding mode tried on one GPU (none counted as a configuration). */
static int nothing_enumerated(ss_platform* const* plats, const ss_options* o, const ss_planner* out, ss_err* err)
{
  char tps[80], pps[80], per[160];
  snprintf(tps, sizeof(tps), "%.64s", o->plan_tps ? o->plan_tps : "");
  if (!o->plan_tps)
    snprintf(tps, sizeof(tps), "%d", o->tp);
  snprintf(pps, sizeof(pps), "%.64s", o->plan_pps ? o->plan_pps : "");
  if (!o->plan_pps)
    snprintf(pps, sizeof(pps), "%d", o->pp);
  instance_gpus(per, sizeof(per), plats, o, out);
  if (out->not_dividing > 0)
    return ss_err_set(err, NULL, 0,
                      "no configuration to simulate: the %d layout%s tried %s skipped as not fitting the GPUs (the "
                      "first: %s): a layout's t x p must divide the GPUs of the configuration, with t at most an "
                      "instance's GPUs: give --tps and --pps (got %s and %s) whose products divide the GPUs of an "
                      "instance (%s), or a larger --max-instances (got %d)",
                      out->not_dividing, out->not_dividing == 1 ? "" : "s", out->not_dividing == 1 ? "was" : "were",
                      out->not_dividing_first, tps, pps, per, o->plan_max_instances);
  if (out->sharded_one_gpu > 0)
    return ss_err_set(err, NULL, 0,
                      "no configuration to simulate: each of the %d has 1 GPU (GPUs of an instance: %s; "
                      "--max-instances %d), and --shards %s shards nothing on 1 GPU: add none to --shards, or give "
                      "more GPUs (--max-instances)",
                      out->sharded_one_gpu, per, o->plan_max_instances,
                      o->plan_shards ? o->plan_shards : ss_shard_name(o->shard));
  return ss_err_set(err, NULL, 0,
                    "no configuration to simulate: the lists leave none (--tps %s, --pps %s, --max-instances %d): "
                    "give other values",
                    tps, pps, o->plan_max_instances);
}

/* The error when every configuration was refused: the first refusal, and what may make it fit. */
static int nothing_to_simulate(ss_platform* const* plats, const ss_options* o, const ss_workload* w,
                               const ss_planner* out, ss_err* err)
{
  if (out->configurations == 0)
    return nothing_enumerated(plats, o, out, err);
  /* Every configuration skipped for --global-batch: none divides it. */
  if (out->refused == 0 && out->not_whole > 0 && out->model_parallel)
    return ss_err_set(err, NULL, 0,
                      "--global-batch %d is a whole number of micro-batches for none of the %d configurations: give "
                      "a multiple of their micro-batch (--micro-batches) x data-parallel replicas (the GPUs / (t x "
                      "p))",
                      o->global_batch, out->configurations);
  if (out->refused == 0 && out->not_whole > 0)
    return ss_err_set(
        err, NULL, 0,
        "--global-batch %d is a whole number of samples per GPU for none of the %d configurations: give a "
        "multiple of their GPU counts",
        o->global_batch, out->configurations);
  /* The platforms are enumerated in turn: the first refusal is the first platform's that has one. */
  const char* first = NULL;
  const ss_err* why = NULL;
  for (int p = 0; !first && out->refused && p < out->nplatforms; p++)
    if (out->refused_by[p]) {
      why = &out->refused_by_first[p];
      first = why->msg;
    }
  /* Refused for memory without sharding: say what would make it fit. */
  int memory = first && strstr(first, " GiB of ") != NULL;
  int shard = memory && !o->plan_shards && !ss_shard_sharded(o->shard) && !out->model_parallel;
  int ckpt = memory && w->has_ckpt && o->checkpoint_activations != SS_CKPT_ON && !w->activation_checkpointing &&
             !out->model_parallel;
  const char* hint = memory && out->model_parallel
                         ? "; larger tensor groups or more stages (--tps, --pps), more instances (--max-instances) "
                           "or the distributed optimizer (--distributed-optimizer) may make it fit"
                     : shard && ckpt ? "; sharding or activation checkpointing may make it fit: --shards "
                                       "none,zero2,zero3,fsdp-full, --checkpoint-activations on"
                     : shard         ? "; sharding may make it fit: --shards none,zero2,zero3,fsdp-full"
                     : ckpt          ? "; activation checkpointing may make it fit: --checkpoint-activations on"
                                     : "";
  /* A layout's refusal names the run's options (--tp, --micro-batch, --grad-accum): which of the
   * plan's they come from. */
  if (first && out->model_parallel && !memory)
    hint = strstr(first, "--grad-accum")
               ? "; a plan sets the micro-batches per iteration with --global-batch alone (1 without it), and "
                 "its --micro-batches are their sizes"
               : "; a configuration's --tp, --pp, --micro-batch and --schedule are values of the plan's --tps, "
                 "--pps, --micro-batches and --schedules";
  /* The refusal's own file and line (the workload, an instance file, a price file), or none for an
   * option. */
  /* The layouts skipped for not fitting the GPUs were no configuration: said, as they may be the
   * ones that would have fitted. */
  char skipped[256] = "";
  if (out->not_dividing)
    snprintf(skipped, sizeof(skipped), "; %d layout%s skipped as not fitting the GPUs (the first: %s)",
             out->not_dividing, out->not_dividing == 1 ? " was" : "s were", out->not_dividing_first);
  return ss_err_set(err, why && why->file[0] ? why->file : NULL, why ? why->line : 0,
                    "no configuration to simulate: all %d were refused%s%s%s%s%s", out->configurations,
                    first ? " (the first: " : "", first ? first : "", first ? ")" : "", hint, skipped);
}

/* Configuration c's run (its status rc, its breakdown bd, run_err when it failed) into out: a
 * ranked row, or counted over the budget, past the deadline or failed. */
static void keep(const config* c, int rc, const ss_breakdown* bd, double sim_s, const ss_err* run_err,
                 const ss_options* o, ss_planner* out)
{
  ss_result res;
  ss_err why;
  ss_err_clear(&why);
  if (rc != SS_OK || ss_result_from_breakdown(c->job, bd, sim_s, &res, &why) != SS_OK) {
    if (!out->failed++)
      out->failed_first = rc == SS_OK ? why : *run_err;
    return;
  }
  ss_planner_row* r = &out->rows[out->nrows];
  fill_row(r, c, &res);
  if (o->plan_budget_usd >= 0 && r->cost_usd > o->plan_budget_usd)
    out->over_budget++;
  else if (o->plan_deadline_h >= 0 && r->time_to_train_s > o->plan_deadline_h * 3600.0)
    out->over_deadline++;
  else {
    out->nrows++;
    return;
  }
  /* Dropped: the slot is the next row's. */
  free(r->instance_type);
  free(r->gpu_model);
  free(r->price_source);
  memset(r, 0, sizeof(*r));
}

/* Simulate the n configurations (ss_runs_each: a process each) and keep their rows in
 * out->rows, unranked. Returns 0 or an error (a run that could not start, memory). */
static int simulate(const config* configs, int n, const ss_options* o, int ncfg, char** cfg, int progress,
                    ss_planner* out, ss_err* err)
{
  const ss_job** jobs = calloc((size_t)n, sizeof(*jobs));
  const char** names = calloc((size_t)n, sizeof(*names));
  ss_breakdown* bd = calloc((size_t)n, sizeof(*bd));
  double* sim_s = calloc((size_t)n, sizeof(*sim_s));
  int* rcs = calloc((size_t)n, sizeof(*rcs));
  ss_err* errs = calloc((size_t)n, sizeof(*errs));
  out->rows = calloc((size_t)n, sizeof(ss_planner_row));
  int rc = jobs && names && bd && sim_s && rcs && errs && out->rows ? SS_OK : ss_err_nomem(err);
  for (int i = 0; !rc && i < n; i++) {
    jobs[i] = configs[i].job;
    names[i] = configs[i].name;
  }
  if (!rc)
    rc = ss_runs_each(jobs, names, n, ncfg, cfg, bd, sim_s, rcs, errs, progress, err);
  for (int i = 0; !rc && i < n; i++)
    keep(&configs[i], rcs[i], &bd[i], sim_s[i], &errs[i], o, out);
  free(jobs);
  free(names);
  free(bd);
  free(sim_s);
  free(rcs);
  free(errs);
  return rc;
}

int ss_planner_run(const ss_planner_platform* platforms, int nplatforms, const ss_options* o, int ncfg, char** cfg,
                   int progress, ss_planner* out, ss_err* err)
{
  memset(out, 0, sizeof(*out));
  out->platforms = platforms;
  out->nplatforms = nplatforms;
  out->objective = o->plan_objective;
  ss_workload* w = NULL;
  ss_platform** plats = calloc((size_t)nplatforms + 1, sizeof(ss_platform*));
  out->refused_by = calloc((size_t)nplatforms + 1, sizeof(int));
  out->refused_by_first = calloc((size_t)nplatforms + 1, sizeof(ss_err));
  config* configs = NULL;
  int n = 0, rc = plats && out->refused_by && out->refused_by_first
                      ? load_inputs(platforms, nplatforms, o, &w, plats, err)
                      : ss_err_nomem(err);
  ss_options base = *o;
  if (!rc) {
    out->workload = strdup(w->model);
    /* What to train: --samples, --tokens (a language model's sequences), or --epochs. */
    double samples = o->samples > 0                        ? o->samples
                     : o->tokens > 0 && w->has_transformer ? o->tokens / w->tf.seq
                                                           : o->plan_epochs * w->dataset.samples;
    out->epochs = samples / w->dataset.samples;
    out->samples = samples;
    base.samples = out->samples;
    rc = enumerate(plats, w, &base, out, &configs, &n, err);
  }
  if (!rc && n == 0)
    rc = nothing_to_simulate(plats, o, w, out, err);
  if (!rc && n > 0 && ss_simcfg_check(configs[0].job, ncfg, cfg, err)) {
    rc = SS_EINPUT;
    out->cfg_refused = err->code == SS_EINPUT;
  }
  for (int i = 0; !rc && i < n; i++)
    ss_estimate_add_run(&out->work, configs[i].job);
  if (!rc && !o->estimate) {
    char what[96];
    snprintf(what, sizeof(what), "this plan of %d configurations", n);
    rc = ss_estimate_check(&out->work, what, hint_of(out), o->max_minutes, err);
  }
  out->estimated_only = !rc && o->estimate;
  if (!rc && !o->estimate)
    rc = simulate(configs, n, o, ncfg, cfg, progress, out, err);
  if (!rc && !o->estimate) {
    ss_planner_pareto(out->rows, out->nrows);
    sort_objective = out->objective;
    qsort(out->rows, (size_t)out->nrows, sizeof(ss_planner_row), by_rank);
  }
  for (int i = 0; configs && i < n; i++)
    ss_job_free(configs[i].job);
  free(configs);
  for (int p = 0; plats && p < nplatforms; p++)
    ss_platform_free(plats[p]);
  free(plats);
  ss_workload_free(w);
  if (rc)
    ss_planner_free(out);
  return rc;
}

void ss_planner_free(ss_planner* p)
{
  for (int i = 0; p->rows && i < p->nrows; i++) {
    free(p->rows[i].instance_type);
    free(p->rows[i].gpu_model);
    free(p->rows[i].price_source);
  }
  SS_FREE_ALL(p->rows, p->workload, p->refused_by, p->refused_by_first);
  p->rows = NULL;
  p->workload = NULL;
  p->refused_by = NULL;
  p->refused_by_first = NULL;
  p->nrows = 0;
}

/* The plan as JSON: its counts, then a row per kept configuration, ranked. */
static void write_json(FILE* f, const void* arg)
{
  const ss_planner* p = arg;
  fprintf(f, "{\n  \"schema_version\": %d,\n  \"workload\": ", SS_REPORT_SCHEMA_VERSION);
  ss_json_string(f, p->workload);
  fprintf(f, ",\n  \"samples\": %.17g,\n  \"epochs\": %.17g,\n  \"objective\": \"%s\",\n", p->samples, p->epochs,
          ss_objective_name(p->objective));
  fprintf(f, "  \"configurations\": %d,\n  \"refused\": %d,\n  \"refused_by_platform\": [", p->configurations,
          p->refused);
  for (int i = 0, k = 0; i < p->nplatforms; i++)
    if (p->refused_by[i]) {
      fprintf(f, "%s{\"platform\": ", k++ ? ", " : "");
      ss_json_string(f, p->platforms[i].name);
      fprintf(f, ", \"refused\": %d, \"first\": ", p->refused_by[i]);
      ss_json_string(f, p->refused_by_first[i].msg);
      fprintf(f, "}");
    }
  fprintf(f, "],\n  \"not_whole_batch\": %d,\n  \"not_dividing_layouts\": %d,\n  \"failed\": %d,\n", p->not_whole,
          p->not_dividing, p->failed);
  fprintf(f, "  \"over_budget\": %d,\n  \"over_deadline\": %d,\n  \"ranked\": %d,\n  \"rows\": [", p->over_budget,
          p->over_deadline, p->nrows);
  for (int i = 0; i < p->nrows; i++) {
    const ss_planner_row* r = &p->rows[i];
    fprintf(f, "%s\n    {\"rank\": %d, \"platform\": ", i ? "," : "", i + 1);
    ss_json_string(f, r->instance_type);
    fprintf(f, ", \"platform_file\": ");
    ss_json_string(f, p->platforms[r->platform].path);
    fprintf(f, ", \"gpu_model\": ");
    ss_json_string(f, r->gpu_model);
    fprintf(f, ", \"instances\": %d, \"gpus\": %d, \"allreduce\": \"%s\", \"shard\": \"%s\", \"batch_per_gpu\": %d,",
            r->instances, r->gpus, ss_allreduce_name(r->allreduce), ss_shard_name(r->shard), r->batch);
    fprintf(
        f,
        " \"tp\": %d, \"cp\": %d, \"ep\": %d, \"pp\": %d, \"dp\": %d, \"micro_batch\": %d, \"micro_batches\": %d, "
        "\"schedule\": \"%s\", \"virtual_stages\": %d, \"recompute\": \"%s\", \"tokens_per_s\": %.17g, \"mfu\": %.17g,",
        r->tp, r->cp, r->ep, r->pp, r->dp, r->micro_batch, r->micro_batches, ss_schedule_names[r->schedule],
        r->virtual_stages, ss_recompute_names[r->recompute], r->tokens_per_s, r->mfu);
    fprintf(f, " \"iteration_s\": %.17g, \"throughput_samples_per_s\": %.17g, \"epoch_s\": %.17g,", r->iteration_s,
            r->throughput_samples_per_s, r->epoch_s);
    fprintf(f, " \"time_to_train_s\": %.17g, \"cost_usd\": %.17g, \"cost_usd_per_epoch\": %.17g,", r->time_to_train_s,
            r->cost_usd, r->cost_usd_per_epoch);
    fprintf(f, " \"price_usd_per_h\": %.17g, \"price_source\": ", r->price_usd_per_h);
    ss_json_string(f, r->price_source ? r->price_source : "");
    fprintf(f, ", \"limit\": \"%s\", \"limit_utilisation\": %.17g,", ss_res_name(r->limit), r->limit_util);
    fprintf(f, " \"dominant_stall\": \"%s\", \"compute_scaling\": \"%s\", \"pareto\": %s}",
            r->stall < SS_CAT_COUNT ? ss_cat_name(r->stall) : "none", r->compute_scaling, r->pareto ? "true" : "false");
  }
  fprintf(f, "\n  ]\n}\n");
}

/* A duration in the table: hours, or minutes below one. */
static void duration(char* buf, size_t size, double s)
{
  if (s >= 3600)
    snprintf(buf, size, "%.2f h", s / 3600);
  else if (s >= 60)
    snprintf(buf, size, "%.1f min", s / 60);
  else
    snprintf(buf, size, "%.3g s", s);
}

/* A row's time to train, largest stall and limit as the tables write them. */
static void row_cells(const ss_planner_row* r, char* t, size_t tsize, char* stall, size_t ssize, char* limit,
                      size_t lsize)
{
  duration(t, tsize, r->time_to_train_s);
  snprintf(stall, ssize, "none");
  if (r->stall < SS_CAT_COUNT)
    snprintf(stall, ssize, "%s %.1f%%", ss_category_of(r->stall)->word, 100 * r->part_s[r->stall] / r->iteration_s);
  snprintf(limit, lsize, "%s %.0f%%", ss_res_label(r->limit), 100 * r->limit_util);
}

/* The rows of a plan of layouts: the layout, micro-batches, schedule and recomputation instead of
 * the data-parallel columns, tokens per second and MFU instead of samples. */
static void write_table_layouts(FILE* f, const ss_planner* p, int shared)
{
  fprintf(f, "\n%4s  %-16s %3s %5s  %-16s %-24s %-9s %12s %11s %11s %6s  %-20s  %-22s %s\n", "rank", "instance", "n",
          "GPUs", "t x p x d", "micro-batch x m, sched", "recompute", "time", "total $", "tokens/s", "MFU",
          "largest stall", "limited by", "front");
  for (int i = 0; i < p->nrows; i++) {
    const ss_planner_row* r = &p->rows[i];
    char t[32], stall[48], limit[48], layout[96], micro[48];
    row_cells(r, t, sizeof(t), stall, sizeof(stall), limit, sizeof(limit));
    char experts[16] = "";
    if (r->ep > 1)
      snprintf(experts, sizeof(experts), " e%d", r->ep);
    if (r->cp > 1)
      snprintf(layout, sizeof(layout), "%d x cp%d x %d x %d%s", r->tp, r->cp, r->pp, r->dp, experts);
    else
      snprintf(layout, sizeof(layout), "%d x %d x %d%s", r->tp, r->pp, r->dp, experts);
    if (r->tp * r->cp * r->pp * r->ep > 1)
      snprintf(micro, sizeof(micro), "%d x %d, %s", r->micro_batch, r->micro_batches, ss_schedule_names[r->schedule]);
    else
      snprintf(micro, sizeof(micro), "batch %d per GPU", r->micro_batch);
    fprintf(f, "%4d  %-16s %3d %5d  %-16s %-24s %-9s %12s %11.4g %11.0f %5.1f%%  %-20s  %-22s %s\n", i + 1,
            shared ? p->platforms[r->platform].name : r->instance_type, r->instances, r->gpus, layout, micro,
            r->tp * r->cp * r->pp * r->ep > 1 ? ss_recompute_names[r->recompute] : "-", t, r->cost_usd, r->tokens_per_s,
            100 * r->mfu, stall, limit, r->pareto ? "*" : "");
  }
  if (p->nrows > 0) {
    const ss_planner_row* r = &p->rows[0];
    char stall[64] = "none";
    if (r->stall < SS_CAT_COUNT)
      snprintf(stall, sizeof(stall), "%s, %.1f%% of its iteration", ss_category_of(r->stall)->label,
               100 * r->part_s[r->stall] / r->iteration_s);
    char context[24] = "";
    if (r->cp > 1)
      snprintf(context, sizeof(context), "context %d x ", r->cp);
    fprintf(f,
            "\n  the first: tensor %d x %spipeline %d x data %d on %d %s; largest stall: %s; limited by %s (%.0f%% "
            "busy)\n",
            r->tp, context, r->pp, r->dp, r->instances, r->instance_type, stall, ss_res_label(r->limit),
            100 * r->limit_util);
  }
}

static void write_table(FILE* f, const ss_planner* p)
{
  fprintf(f, "stash-sim plan: %s, %.17g samples (%.3g epochs), ranked by %s\n", p->workload, p->samples, p->epochs,
          p->objective == SS_OBJECTIVE_TIME ? "time to train" : "total cost");
  fprintf(f, "  %d configurations: %d ranked", p->configurations, p->nrows);
  if (p->refused)
    fprintf(f, ", %d refused before simulation", p->refused);
  if (p->not_whole)
    fprintf(f, ", %d with a per-GPU batch%s that is not whole", p->not_whole,
            p->model_parallel ? " or micro-batches" : "");
  if (p->not_dividing)
    fprintf(f, " (%d layouts that do not divide the GPUs skipped)", p->not_dividing);
  if (p->failed)
    fprintf(f, ", %d failed", p->failed);
  if (p->over_budget)
    fprintf(f, ", %d over the budget", p->over_budget);
  if (p->over_deadline)
    fprintf(f, ", %d past the deadline", p->over_deadline);
  fprintf(f, "\n");
  for (int i = 0; i < p->nplatforms; i++)
    if (p->refused_by[i])
      fprintf(f, "  refused on %s: %d, the first: %s\n", p->platforms[i].name, p->refused_by[i],
              p->refused_by_first[i].msg);
  if (p->failed)
    fprintf(f, "  first failed: %s\n", p->failed_first.msg);
  /* The shard column as wide as its longest name (fsdp-hybrid-zero2), 12 at least. */
  int sw = 12;
  for (int i = 0; i < p->nrows; i++)
    if ((int)strlen(ss_shard_name(p->rows[i].shard)) > sw)
      sw = (int)strlen(ss_shard_name(p->rows[i].shard));
  /* Two instance files of one instance type (a copy with other figures): each row names its file
   * as given, not the type both share. */
  int shared = 0;
  for (int i = 0; i < p->nrows && !shared; i++)
    for (int k = 0; k < i && !shared; k++)
      shared = p->rows[i].platform != p->rows[k].platform &&
               strcmp(p->rows[i].instance_type, p->rows[k].instance_type) == 0;
  if (p->model_parallel) {
    write_table_layouts(f, p, shared);
    return;
  }
  fprintf(f, "\n%4s  %-16s %3s %5s  %-12s %-*s %6s %12s %11s %10s %12s  %-20s  %-22s %-18s %s\n", "rank", "instance",
          "n", "GPUs", "allreduce", sw, "shard", "batch", "time", "total $", "$/epoch", "samples/s", "largest stall",
          "limited by", "GPU times", "front");
  for (int i = 0; i < p->nrows; i++) {
    const ss_planner_row* r = &p->rows[i];
    char t[32], stall[48], limit[48];
    row_cells(r, t, sizeof(t), stall, sizeof(stall), limit, sizeof(limit));
    fprintf(f, "%4d  %-16s %3d %5d  %-12s %-*s %6d %12s %11.4g %10.4g %12.1f  %-20s  %-22s %-18s %s\n", i + 1,
            shared ? p->platforms[r->platform].name : r->instance_type, r->instances, r->gpus,
            ss_allreduce_name(r->allreduce), sw, ss_shard_name(r->shard), r->batch, t, r->cost_usd,
            r->cost_usd_per_epoch, r->throughput_samples_per_s, stall, limit, r->compute_scaling, r->pareto ? "*" : "");
  }
}

int ss_planner_write(FILE* f, const ss_planner* p, ss_format fmt)
{
  if (fmt == SS_FORMAT_TABLE)
    write_table(f, p);
  else if (fmt == SS_FORMAT_JSON)
    write_json(f, p);
  else
    return ss_csv_write_from(f, write_json, p, "rows");
  return ferror(f) ? SS_EIO : SS_OK;
}

/* gnuplot's name: on PATH (ss_proc_exec's execvp). */
static char gnuplot_name[] = "gnuplot";

int ss_planner_plot_ready(ss_err* err)
{
  char version[] = "--version";
  char* argv[] = {gnuplot_name, version, NULL};
  ss_proc_output r;
  if (ss_proc_exec(argv, &r, err))
    return ss_err_kind(err, SS_EIO);
  int ok = !r.exec_errno && r.how.code == 0;
  ss_proc_output_free(&r);
  if (ok)
    return SS_OK;
  ss_err_set(err, NULL, 0,
             "--plot needs gnuplot, which is not on PATH: install it (Debian, Ubuntu: "
             "apt-get install gnuplot-nox) or drop --plot");
  return ss_err_kind(err, SS_EIO);
}

/* s as a gnuplot single-quoted string ('' is a quote there); control characters, which would end
 * the command, become spaces. */
static void gp_string(FILE* f, const char* s)
{
  fputc('\'', f);
  for (; *s; s++)
    if (*s == '\'')
      fputs("''", f);
    else
      fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
  fputc('\'', f);
}

/* The point styles and colours of the instance types, in turn (scripts/plot's series colours). */
static const int point_types[] = {7, 5, 9, 11, 13, 15, 1, 2, 3, 4, 6, 8};
static const char* const point_colours[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02",
                                            "#a6761d", "#666666", "#1f78b4", "#b15928", "#fb9a99", "#6a3d9a"};
#define NSTYLES (int)(sizeof(point_types) / sizeof(point_types[0]))

/* By time to train, then cost (the front's line). */
static int by_time(const void* pa, const void* pb)
{
  const ss_planner_row *a = *(const ss_planner_row* const*)pa, *b = *(const ss_planner_row* const*)pb;
  int c = cmp_double(a->time_to_train_s, b->time_to_train_s);
  return c ? c : cmp_double(a->cost_usd, b->cost_usd);
}

/* "set logscale AXIS" when the values span more than a decade. */
static void log_when_wide(FILE* f, const char* axis, double lo, double hi)
{
  if (lo > 0 && hi > 10 * lo)
    fprintf(f, "set logscale %s\n", axis);
}

/* The plot's data: a datablock per instance type ($Tk, its rows), then the front sorted by time
 * ($FRONT). Returns 0 or SS_ENOMEM. */
static int write_data(FILE* f, const ss_planner* p)
{
  const ss_planner_row** front = calloc((size_t)p->nrows + 1, sizeof(*front));
  if (!front)
    return SS_ENOMEM;
  int nfront = 0;
  for (int i = 0; i < p->nrows; i++)
    if (p->rows[i].pareto)
      front[nfront++] = &p->rows[i];
  qsort(front, (size_t)nfront, sizeof(*front), by_time);
  for (int k = 0; k < p->nplatforms; k++) {
    fprintf(f, "$T%d << EOD\n", k);
    for (int i = 0; i < p->nrows; i++)
      if (p->rows[i].platform == k)
        fprintf(f, "%.17g %.17g\n", p->rows[i].time_to_train_s / 3600, p->rows[i].cost_usd);
    fprintf(f, "EOD\n");
  }
  fprintf(f, "$FRONT << EOD\n");
  for (int i = 0; i < nfront; i++)
    fprintf(f, "%.17g %.17g\n", front[i]->time_to_train_s / 3600, front[i]->cost_usd);
  fprintf(f, "EOD\n");
  free(front);
  return SS_OK;
}

/* The instance type of platform k's rows, or NULL when it has none (no series in the plot). */
static const char* instance_type(const ss_planner* p, int k)
{
  for (int i = 0; i < p->nrows; i++)
    if (p->rows[i].platform == k)
      return p->rows[i].instance_type;
  return NULL;
}

/* The gnuplot script of the plot, writing to output. */
static int write_script(FILE* f, const ss_planner* p, const char* output, int svg)
{
  double tlo = INFINITY, thi = 0, clo = INFINITY, chi = 0;
  for (int i = 0; i < p->nrows; i++) {
    double t = p->rows[i].time_to_train_s / 3600, c = p->rows[i].cost_usd;
    tlo = fmin(tlo, t);
    thi = fmax(thi, t);
    clo = fmin(clo, c);
    chi = fmax(chi, c);
  }
  fprintf(f, "set terminal %s size 860,560 font 'sans,10' noenhanced background '#ffffff'\nset output ",
          svg ? "svg" : "pngcairo");
  gp_string(f, output);
  fprintf(f, "\nset title ");
  char title[512];
  snprintf(title, sizeof(title), "stash-sim plan: %s, %.4g epoch%s (%d configurations ranked)", p->workload, p->epochs,
           p->epochs == 1 ? "" : "s", p->nrows);
  gp_string(f, title);
  fprintf(f, "\nset xlabel 'time to train (hours)'\nset ylabel 'total cost (US$)'\n");
  log_when_wide(f, "x", tlo, thi);
  log_when_wide(f, "y", clo, chi);
  fprintf(f, "set grid\nset key outside right top box\nset offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n");
  if (write_data(f, p))
    return SS_ENOMEM;
  fprintf(f, "plot $FRONT using 1:2 with lines lw 1.5 dt 2 lc rgb '#000000' title 'Pareto front'");
  for (int k = 0, style = 0; k < p->nplatforms; k++) {
    const char* type = instance_type(p, k);
    if (!type)
      continue;
    fprintf(f, ", \\\n  $T%d using 1:2 with points pt %d ps 1.3 lc rgb '%s' title ", k, point_types[style % NSTYLES],
            point_colours[style % NSTYLES]);
    gp_string(f, type);
    style++;
  }
  fprintf(f, "\n");
  return SS_OK;
}

/* The first line of text (gnuplot's complaint), without its newline, at most size - 1 bytes. */
static void first_line(const char* text, char* buf, size_t size)
{
  while (*text == '\n' || *text == ' ')
    text++;
  snprintf(buf, size, "%.*s", (int)strcspn(text, "\n"), text);
}

int ss_planner_plot(const ss_planner* p, const char* path, ss_err* err)
{
  const char* dot = strrchr(path, '.');
  int svg = dot && strcasecmp(dot, ".svg") == 0;
  ss_outfile* out = NULL;
  char script[4096];
  FILE* f = NULL;
  int slot = -1;
  if (ss_outfile_open(path, "plot", &out, err))
    return SS_EIO;
  if (ss_outfile_scratch("gnuplot script", script, sizeof(script), &f, &slot, err)) {
    ss_outfile_abort(out);
    return SS_EIO;
  }
  /* gnuplot writes the outfile's temporary file (or path itself when it is a device or a FIFO). */
  const char* target = ss_outfile_temp(out) ? ss_outfile_temp(out) : path;
  int rc = write_script(f, p, target, svg);
  int bad = ferror(f);
  if ((fclose(f) || bad) && !rc)
    rc = ss_err_set(err, NULL, 0, "cannot write the temporary gnuplot script %s: %s", script, strerror(errno));
  else if (rc == SS_ENOMEM)
    rc = ss_err_nomem(err);
  ss_proc_output r;
  memset(&r, 0, sizeof(r));
  char* argv[] = {gnuplot_name, script, NULL};
  if (!rc && !(rc = ss_proc_exec(argv, &r, err)) && (r.exec_errno || r.how.code != 0)) {
    char why[512];
    first_line(r.exec_errno ? strerror(r.exec_errno) : r.err, why, sizeof(why));
    rc = ss_err_set(err, path, 0, "gnuplot could not draw the plot (exit %d): %s", r.how.code, why);
  }
  ss_proc_output_free(&r);
  ss_outfile_scratch_done(script, slot);
  if (rc) {
    ss_outfile_abort(out);
    return ss_err_kind(err, rc == SS_ENOMEM ? SS_ENOMEM : SS_EIO);
  }
  return ss_outfile_commit(out, err);
}
