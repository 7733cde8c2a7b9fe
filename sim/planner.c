/* planner: stash-sim plan (planner.h). */
#include "planner.h"

#include "array.h"
#include "derive.h"
#include "platform.h"
#include "report.h"
#include "runs.h"
#include "screen.h"
#include "simcfg.h"
#include "transport.h"
#include "workload.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One configuration: its options (its job is built again to simulate it), its place in the
 * enumeration, its job while it is screened, and the row of its screen (then of its simulation). */
typedef struct config {
  ss_options opt;
  int platform;
  char name[160];
  ss_job* job;
  ss_planner_row row;
} config;

/* Whether row a is at least as good as b in time and cost, and better in one. */
static int dominates(const ss_planner_row* a, const ss_planner_row* b)
{
  double at = a->expected_time_to_train_s, bt = b->expected_time_to_train_s;
  double ac = a->expected_cost_usd, bc = b->expected_cost_usd;
  return at <= bt && ac <= bc && (at < bt || ac < bc);
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
  if (a->verified != b->verified)
    return a->verified ? -1 : 1;
  int time = cmp_double(a->expected_time_to_train_s, b->expected_time_to_train_s);
  int cost = cmp_double(a->expected_cost_usd, b->expected_cost_usd);
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
  if (a->virtual_stages != b->virtual_stages)
    return a->virtual_stages < b->virtual_stages ? -1 : 1;
  if (a->recompute != b->recompute)
    return a->recompute < b->recompute ? -1 : 1;
  if (a->sequence_parallel != b->sequence_parallel)
    return a->sequence_parallel < b->sequence_parallel ? -1 : 1;
  if (a->distributed_optimizer != b->distributed_optimizer)
    return a->distributed_optimizer < b->distributed_optimizer ? -1 : 1;
  if (a->precision != b->precision)
    return a->precision < b->precision ? -1 : 1;
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
  r->sequence_parallel = j->mp.on && j->opt.sequence_parallel;
  r->distributed_optimizer = j->mp.on && j->opt.distributed_optimizer;
  r->precision = j->precision;
  r->tokens_per_s = res->tokens_per_s;
  r->mfu = res->mfu;
  r->iteration_s = res->bd.iteration_s;
  r->throughput_samples_per_s = res->throughput_samples_per_s;
  r->epoch_s = res->epoch_s;
  r->cost_usd_per_epoch = res->cost_usd_per_epoch;
  r->price_usd_per_h = j->price_usd_per_h;
  r->time_to_train_s = res->time_to_train_s;
  r->cost_usd = res->cost_to_train_usd;
  r->goodput = res->goodput.goodput;
  r->expected_time_to_train_s = res->expected_time_to_train_s;
  r->expected_cost_usd = res->expected_cost_usd;
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
  DIM_VPP,
  DIM_RECOMPUTE,
  DIM_SP,
  DIM_DO,
  DIM_PRECISION,
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
  int vpps[SS_OPTION_LIST_MAX];
  int recomputes[SS_OPTION_LIST_MAX]; /* -1 alone: the least that fits (no --recomputes) */
  int sps[SS_OPTION_LIST_MAX], dos[SS_OPTION_LIST_MAX], precisions[SS_OPTION_LIST_MAX];
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
  /* The layouts' own dimensions: each a list, or one value, Megatron-Core's recipes' where the run's
   * option does not say (sequence parallelism with tensor parallelism, the distributed optimizer). */
  s->vpps[0] = o->virtual_stages > 1 ? o->virtual_stages : 2;
  s->recomputes[0] = -1;
  s->sps[0] = 1;
  s->dos[0] = 1;
  s->precisions[0] = o->precision;
  s->size[DIM_VPP] = o->plan_vpps ? ss_option_list_sizes(o->plan_vpps, s->vpps, SS_OPTION_LIST_MAX) : 1;
  s->size[DIM_RECOMPUTE] = o->plan_recomputes ? ss_option_list_named(o->plan_recomputes, ss_recompute_names,
                                                                     s->recomputes, SS_OPTION_LIST_MAX)
                                              : 1;
  s->size[DIM_SP] = o->plan_sps ? ss_option_list_named(o->plan_sps, ss_option_switch_names, s->sps, SS_OPTION_LIST_MAX)
                                : 1;
  s->size[DIM_DO] = o->plan_dos ? ss_option_list_named(o->plan_dos, ss_option_switch_names, s->dos, SS_OPTION_LIST_MAX)
                                : 1;
  s->size[DIM_PRECISION] = o->plan_precisions ? ss_option_list_named(o->plan_precisions, ss_precision_names,
                                                                     s->precisions, SS_OPTION_LIST_MAX)
                                              : 1;
  for (int d = DIM_VPP; d <= DIM_PRECISION; d++)
    if (s->size[d] < 0)
      return ss_err_set(err, NULL, 0, "a plan's list: not one the options' checks accept");
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

/* A tensor- and pipeline-parallel configuration's job (c's layout set): with recompute (an
 * ss_recompute) that recomputation, else (-1) the least from --recompute's that fits the memory; 1
 * when it is refused (every one: counted once), 0, or an error. */
static int build_layout(const space* s, int p, int recompute, ss_options* c, config* cf, ss_err* err)
{
  ss_planner* out = s->out;
  if (recompute >= 0) {
    c->recompute = (ss_recompute)recompute;
    return build(s->plats[p], p, s->w, c, out, &cf->job, err);
  }
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
    /* Chunks per stage with the interleaved schedule alone; sequence parallelism with tensor
     * parallelism alone (without it, the list's first value stands for the others). */
    if ((pp == 1 || !ss_schedule_of(sched)->chunks) && at[DIM_VPP] > 0)
      return 1;
    if (t == 1 && at[DIM_SP] > 0)
      return 1;
    ss_options c = *o;
    c.instances = k;
    c.tp = t;
    c.cp = cp;
    c.ep = ep;
    c.pp = pp;
    c.sequence_parallel = s->sps[at[DIM_SP]] && t > 1;
    c.distributed_optimizer = s->dos[at[DIM_DO]];
    c.precision = (ss_precision)s->precisions[at[DIM_PRECISION]];
    c.micro_batch = s->micro[at[DIM_MICRO]];
    c.schedule = pp > 1 ? sched : SS_SCHEDULE_1F1B;
    c.virtual_stages = ss_schedule_of(c.schedule)->chunks ? s->vpps[at[DIM_VPP]] : 1;
    c.batch = -1;
    s->out->configurations++;
    if (o->global_batch > 0 && o->global_batch % (c.micro_batch * (per * k / (t * cp * pp)))) {
      s->out->not_whole++;
      return 1;
    }
    int rc = build_layout(s, p, s->recomputes[at[DIM_RECOMPUTE]], &c, cf, err);
    if (rc)
      return rc;
    cf->platform = p;
    cf->opt = c;
    char context[32] = "";
    if (cp > 1 || ep > 1)
      snprintf(context, sizeof(context), "%s%.0d%s%.0d", cp > 1 ? " cp" : "", cp > 1 ? cp : 0, ep > 1 ? " e" : "",
               ep > 1 ? ep : 0);
    snprintf(cf->name, sizeof(cf->name), "%s x %d, t%d%s p%d d%d, micro-batch %d%s%s, recompute %s%s%s",
             s->out->platforms[p].name, k, t, context, pp, cf->job->mp.d, c.micro_batch, pp > 1 ? ", " : "",
             pp > 1 ? ss_schedule_names[c.schedule] : "", ss_recompute_names[c.recompute],
             c.sequence_parallel ? ", sp" : "", c.distributed_optimizer ? ", do" : "");
    return SS_OK;
  }
  /* Data parallelism alone: one point for the micro-batches, schedules, chunks, recomputations,
   * sequence parallelism and distributed optimizers of the layouts. */
  for (int d = DIM_MICRO; d < DIM_PRECISION; d++)
    if (at[d] > 0)
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
  c.precision = (ss_precision)s->precisions[at[DIM_PRECISION]];
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
  cf->opt = c;
  snprintf(cf->name, sizeof(cf->name), "%s x %d, %s, batch %d%s%s", s->out->platforms[p].name, k,
           ss_allreduce_name(alg), c.batch, ss_shard_sharded(c.shard) ? ", " : "",
           ss_shard_sharded(c.shard) ? ss_shard_name(c.shard) : "");
  return SS_OK;
}

/* Screen configuration cf, its job built: its row from the closed form (screen.h), then its job
 * freed. 0, or 1 when the screen gives no figure for it (counted as failed, as a run would be). */
static int screen(config* cf, ss_planner* out)
{
  ss_breakdown bd;
  ss_result res;
  ss_err why;
  ss_err_clear(&why);
  ss_screen_job(cf->job, &bd);
  int rc = ss_result_from_breakdown(cf->job, &bd, 0, &res, &why);
  if (!rc) {
    fill_row(&cf->row, cf, &res);
    cf->row.screen_iteration_s = res.bd.iteration_s;
    cf->row.screen_time_to_train_s = res.expected_time_to_train_s;
    cf->row.screen_cost_usd = res.expected_cost_usd;
  } else if (!out->failed++) {
    out->failed_first = why;
  }
  ss_job_free(cf->job);
  cf->job = NULL;
  return rc ? 1 : 0;
}

/* Every configuration of the space, screened: platforms x instances x layouts (or sharding modes x
 * algorithms x batches), in *configs[0..*n) (the refused, the skipped and those the screen gives no
 * figure left out); progress: "screening point K of N" on standard error. */
static int enumerate(ss_platform* const* plats, const ss_workload* w, const ss_options* o, int progress,
                     ss_planner* out, config** configs, int* n, ss_err* err)
{
  space s;
  int rc = space_init(&s, plats, w, o, out, err);
  if (rc)
    return rc;
  size_t count = space_count(&s), cap = 0;
  if (count > SS_PLAN_MAX_CONFIGS) {
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
                      "this plan has %zu configurations (instance types %d, instance counts %d, %s), more than a "
                      "plan enumerates (%g): give %s",
                      count, s.size[DIM_PLATFORM], s.size[DIM_INSTANCES], dims, (double)SS_PLAN_MAX_CONFIGS,
                      hint_of(out));
  }
  *configs = NULL;
  *n = 0;
  for (size_t i = 0; i < count; i++) {
    int at[NDIMS];
    if (progress && (i % 1000 == 0 || i + 1 == count))
      fprintf(stderr, "\rstash-sim: screening point %zu of %zu%s", i + 1, count, i + 1 == count ? "\n" : "");
    space_decode(&s, i, at);
    config* grown = ss_array_grow(*configs, &cap, (size_t)*n + 1, sizeof(config), 64);
    if (!grown)
      return ss_err_nomem(err);
    *configs = grown;
    config* cf = &(*configs)[*n];
    memset(cf, 0, sizeof(*cf));
    rc = configure(&s, at, cf, err);
    if (rc < 0)
      return rc;
    if (rc == 0 && screen(cf, out) == 0)
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
  /* The distributed optimizer is tried unless --distributed-optimizers leaves it out. */
  int dopt_tried = !o->plan_dos || strstr(o->plan_dos, "on") != NULL;
  const char* hint = memory && out->model_parallel && dopt_tried
                         ? "; larger tensor groups or more stages (--tps, --pps) or more instances (--max-instances) "
                           "may make it fit"
                     : memory && out->model_parallel
                         ? "; larger tensor groups or more stages (--tps, --pps), more instances (--max-instances) "
                           "or the distributed optimizer (--distributed-optimizers on) may make it fit"
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

/* A row's strings freed and the row cleared. */
static void row_free(ss_planner_row* r)
{
  SS_FREE_ALL(r->instance_type, r->gpu_model, r->price_source);
  memset(r, 0, sizeof(*r));
}

/* Configuration c's simulation (job, its status rc, its breakdown bd, run_err when it failed): its row
 * from the simulation, the screen's figures kept; 1 when it failed (counted). */
static int take_run(config* c, ss_job* job, int rc, const ss_breakdown* bd, double sim_s, const ss_err* run_err,
                    ss_planner* out)
{
  ss_result res;
  ss_err why;
  ss_err_clear(&why);
  if (rc != SS_OK || ss_result_from_breakdown(job, bd, sim_s, &res, &why) != SS_OK) {
    if (!out->failed++)
      out->failed_first = rc == SS_OK ? why : *run_err;
    return 1;
  }
  ss_planner_row screened = c->row;
  c->job = job;
  fill_row(&c->row, c, &res);
  c->job = NULL;
  c->row.verified = 1;
  c->row.screen_iteration_s = screened.screen_iteration_s;
  c->row.screen_time_to_train_s = screened.screen_time_to_train_s;
  c->row.screen_cost_usd = screened.screen_cost_usd;
  row_free(&screened);
  return 0;
}

/* Which limit a row's time and cost with failures go beyond: OVER_BUDGET (checked first), OVER_DEADLINE,
 * or 0 within both. */
enum { OVER_BUDGET = 1, OVER_DEADLINE };
static int beyond(const ss_options* o, const ss_planner_row* r)
{
  if (o->plan_budget_usd >= 0 && r->expected_cost_usd > o->plan_budget_usd)
    return OVER_BUDGET;
  if (o->plan_deadline_h >= 0 && r->expected_time_to_train_s > o->plan_deadline_h * 3600.0)
    return OVER_DEADLINE;
  return 0;
}

static int by_config_rank(const void* pa, const void* pb)
{
  return by_rank(&((const config*)pa)->row, &((const config*)pb)->row);
}

/* The inputs of the verification: the platforms and the workload, SimGrid's arguments, and how to say
 * its progress. */
typedef struct verify_in {
  ss_platform* const* plats;
  const ss_workload* w;
  const ss_options* o;
  int ncfg;
  char** cfg;
  int progress;
} verify_in;

/* The jobs of the configurations to simulate: the first --verify of the screen's order within the
 * budget and the deadline, built again, as many of them as --max-minutes allows (the rest counted as
 * cut); their indices into pick[0..*k). Returns 0 or an error. */
static int pick_jobs(const verify_in* in, config* configs, int n, ss_planner* out, ss_job** jobs, int* pick, int* k,
                     ss_err* err)
{
  *k = 0;
  /* SimGrid's arguments (--cfg=, --log=) are checked on the screen's first job, whether or not any
   * configuration is simulated. */
  if (in->ncfg > 0 && n > 0) {
    ss_job* first = NULL;
    int rc = ss_derive_job(in->plats[configs[0].platform], in->w, &configs[0].opt, &first, err);
    if (!rc && ss_simcfg_check(first, in->ncfg, in->cfg, err)) {
      out->cfg_refused = err->code == SS_EINPUT;
      rc = SS_EINPUT;
    }
    ss_job_free(first);
    if (rc)
      return rc;
  }
  for (int i = 0; i < n && *k < in->o->plan_verify; i++) {
    if (beyond(in->o, &configs[i].row))
      continue;
    int rc = ss_derive_job(in->plats[configs[i].platform], in->w, &configs[i].opt, &jobs[*k], err);
    if (rc)
      return rc;
    ss_estimate work = out->work;
    ss_estimate_add_run(&work, jobs[*k]);
    /* --max-minutes bounds the simulations: those beyond it are not run (--estimate counts them all). */
    if (!in->o->estimate && work.seconds > in->o->max_minutes * 60) {
      ss_job_free(jobs[*k]);
      out->verify_cut = in->o->plan_verify - *k;
      break;
    }
    out->work = work;
    pick[(*k)++] = i;
  }
  return SS_OK;
}

/* Simulate the best configurations of the screen (ss_runs_each: a process each) and take their rows;
 * those that failed marked in dropped[]. Returns 0 or an error (a run that could not start, memory). */
static int verify(const verify_in* in, config* configs, int n, int* dropped, ss_planner* out, ss_err* err)
{
  int cap = in->o->plan_verify < n ? in->o->plan_verify : n, k = 0;
  ss_job** jobs = calloc((size_t)cap + 1, sizeof(*jobs));
  int* pick = calloc((size_t)cap + 1, sizeof(*pick));
  const char** names = calloc((size_t)cap + 1, sizeof(*names));
  ss_breakdown* bd = calloc((size_t)cap + 1, sizeof(*bd));
  double* sim_s = calloc((size_t)cap + 1, sizeof(*sim_s));
  int* rcs = calloc((size_t)cap + 1, sizeof(*rcs));
  ss_err* errs = calloc((size_t)cap + 1, sizeof(*errs));
  int rc = jobs && pick && names && bd && sim_s && rcs && errs ? SS_OK : ss_err_nomem(err);
  if (!rc)
    rc = pick_jobs(in, configs, n, out, jobs, pick, &k, err);
  for (int i = 0; !rc && i < k; i++)
    names[i] = configs[pick[i]].name;
  out->estimated_only = !rc && in->o->estimate;
  if (!rc && !in->o->estimate && k > 0)
    rc = ss_runs_each((const ss_job**)jobs, names, k, in->ncfg, in->cfg, bd, sim_s, rcs, errs, in->progress, err);
  for (int i = 0; !rc && !in->o->estimate && i < k; i++) {
    dropped[pick[i]] = take_run(&configs[pick[i]], jobs[i], rcs[i], &bd[i], sim_s[i], &errs[i], out);
    out->verified += !dropped[pick[i]];
  }
  for (int i = 0; jobs && i < k; i++)
    ss_job_free(jobs[i]);
  SS_FREE_ALL(jobs, pick, names, bd, sim_s, rcs, errs);
  return rc;
}

/* The rows of the plan: every configuration's (the simulated ones' from their runs) within the budget and
 * the deadline (the others counted), their Pareto front, ranked: the simulated first. The rows' strings
 * move to out->rows. */
static int rank_rows(config* configs, int n, const int* dropped, const ss_options* o, ss_planner* out, ss_err* err)
{
  out->rows = calloc((size_t)n + 1, sizeof(ss_planner_row));
  if (!out->rows)
    return ss_err_nomem(err);
  for (int i = 0; i < n; i++) {
    ss_planner_row* r = &configs[i].row;
    int over = dropped[i] ? 0 : beyond(o, r);
    out->over_budget += over == OVER_BUDGET;
    out->over_deadline += over == OVER_DEADLINE;
    if (dropped[i] || over) {
      row_free(r);
    } else {
      out->rows[out->nrows++] = *r;
      memset(r, 0, sizeof(*r));
    }
  }
  ss_planner_pareto(out->rows, out->nrows);
  qsort(out->rows, (size_t)out->nrows, sizeof(ss_planner_row), by_rank);
  return SS_OK;
}

int ss_planner_run(const ss_planner_platform* platforms, int nplatforms, const ss_options* o, int ncfg, char** cfg,
                   int progress, ss_planner* out, ss_err* err)
{
  memset(out, 0, sizeof(*out));
  out->platforms = platforms;
  out->nplatforms = nplatforms;
  out->objective = o->plan_objective;
  out->verify_asked = o->plan_verify;
  out->max_minutes = o->max_minutes;
  sort_objective = out->objective;
  ss_workload* w = NULL;
  ss_platform** plats = calloc((size_t)nplatforms + 1, sizeof(ss_platform*));
  out->refused_by = calloc((size_t)nplatforms + 1, sizeof(int));
  out->refused_by_first = calloc((size_t)nplatforms + 1, sizeof(ss_err));
  config* configs = NULL;
  int* dropped = NULL;
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
    rc = enumerate(plats, w, &base, progress, out, &configs, &n, err);
  }
  out->screened = n;
  /* Every configuration built and none with a figure: the screen failed them all, as the runs would. */
  if (!rc && n == 0 && out->failed > 0 && out->refused == 0) {
    rc = ss_err_set(err, NULL, 0, "no configuration could be simulated: all %d failed (the first: %s)", out->failed,
                    out->failed_first.msg);
    rc = ss_err_kind(err, out->failed_first.code);
  } else if (!rc && n == 0) {
    rc = nothing_to_simulate(plats, o, w, out, err);
  }
  if (!rc && !(dropped = calloc((size_t)n + 1, sizeof(int))))
    rc = ss_err_nomem(err);
  /* The screen's order, then the best of it simulated. */
  if (!rc)
    qsort(configs, (size_t)n, sizeof(config), by_config_rank);
  verify_in in = {plats, w, o, ncfg, cfg, progress};
  if (!rc)
    rc = verify(&in, configs, n, dropped, out, err);
  if (!rc && !o->estimate)
    rc = rank_rows(configs, n, dropped, o, out, err);
  for (int i = 0; configs && i < n; i++)
    row_free(&configs[i].row);
  free(configs);
  free(dropped);
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
