/* trainer: one rank's training process: data, forward, backward with bucketed gradients, optimizer. */
#include "trainer.h"

#include "cluster.h"
#include "coll.h"
#include "host.h"
#include "loader.h"
#include "probe.h"
#include "ps.h"
#include "simtrace.h"
#include "straggler.h"

#include <math.h>
#include <stdio.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>

/* Time accounting of one iteration: every blocking step ends with mark(), which books the time
 * since the previous mark to a category, so the parts add up to the iteration exactly. */
typedef struct clockmark {
  ss_timeline* tl;
  int rank;
  int iter;
  double t;
  /* Compute time since the previous mark lost to collectives on the GPU (interference), and the part
   * of it while they crossed instances: booked as interconnect and network stall, not compute. */
  double intf_s;
  double intf_net_s;
} clockmark;

static void mark(clockmark* m, ss_cat cat)
{
  double now = simgrid_get_clock(), dt = now - m->t;
  if (cat == SS_CAT_COMPUTE && m->intf_s > 0) {
    double lost = fmin(m->intf_s, dt), net = fmin(m->intf_net_s, lost);
    ss_timeline_add(m->tl, m->rank, m->iter, SS_CAT_NETWORK, net);
    ss_timeline_add(m->tl, m->rank, m->iter, SS_CAT_INTERCONNECT, lost - net);
    ss_timeline_detail(m->tl, m->rank, m->iter, SS_DETAIL_INTERFERENCE, lost);
    dt -= lost;
    m->intf_s = m->intf_net_s = 0;
  }
  ss_timeline_add(m->tl, m->rank, m->iter, cat, dt);
  m->t = now;
}

/* The same, and a span named name on the rank's trace track. */
static void mark_span(ss_sim* s, clockmark* m, ss_cat cat, const char* name)
{
  double t = m->t;
  mark(m, cat);
  if (m->rank == 0)
    ss_trace_links(s);
  ss_simtrace_rank(s, m->rank, SS_TRACK_TRAINER(s->ranks[m->rank].local), name, ss_cat_name(cat), t, m->t - t, NULL);
}

/* Trace the layers from first down to last (forward indices; backward when bwd) that one execution
 * ran from start_s to end_s, each for its share of the work: at the GPU's speed, or slower when
 * the execution shared the CPU's cores (compute_on="cpu"). */
static void trace_layers(ss_sim* s, int rank, int first, int last, int bwd, double start_s, double end_s)
{
  if (!s->trace)
    return;
  const ss_job* j = s->job;
  int step = first <= last ? 1 : -1;
  double work = 0;
  for (int l = first;; l += step) {
    work += bwd ? j->bwd_flops[l] : j->fwd_flops[l];
    if (l == last)
      break;
  }
  if (!(work > 0))
    return;
  double per_flop = (end_s - start_s) / work;
  for (int l = first;; l += step) {
    /* The last one ends at end_s exactly: spans around the execution (trace_slowed) hold them all. */
    double w = bwd ? j->bwd_flops[l] : j->fwd_flops[l];
    double d = l == last && w > 0 ? end_s - start_s : w * per_flop;
    if (d > 0) {
      char name[160];
      ss_trace_name(name, sizeof(name), "%s %s", bwd ? "bwd" : "fwd", j->workload->layers[l].name);
      ss_simtrace_rank(s, rank, SS_TRACK_TRAINER(s->ranks[rank].local), name, "compute", start_s, d, NULL);
      start_s += d;
    }
    if (l == last)
      break;
  }
}

/* Run flops of the rank's kernels: on its GPU, or, for a CPU training process (compute_on="cpu"),
 * on its instance's CPU cores, where it competes with the loaders and anything else running there
 * (the same work takes the same time on an idle core: one "GPU" is one core). On a GPU, while its
 * collectives ran the kernels got 1 / (1 + f) of it (coll.c): of that time, f / (1 + f) is lost to
 * them, added to m for the next compute mark. */
static void execute(ss_sim* s, const ss_rank* me, double flops, clockmark* m)
{
  if (!(flops > 0))
    return;
  if (!s->job->platform->compute_on_cpu) {
    double f = s->job->interference;
    double busy0 = f > 0 ? ss_coll_busy_time(s, me->rank) : 0, net0 = f > 0 ? ss_coll_net_time(s, me->rank) : 0;
    sg_actor_execute(flops);
    if (f > 0) {
      m->intf_s += (ss_coll_busy_time(s, me->rank) - busy0) * f / (1 + f);
      m->intf_net_s += (ss_coll_net_time(s, me->rank) - net0) * f / (1 + f);
    }
    return;
  }
  sg_exec_t e = sg_actor_exec_init(flops * sg_host_get_speed(me->cpu) / sg_host_get_speed(me->host));
  sg_exec_set_host(e, me->cpu);
  sg_exec_start(e);
  sg_exec_wait(e);
}

/* On the trace, the time an execution from start_s to end_s lost to collectives on its GPU (lost, of
 * which net while they crossed instances), at its end, as the stall the breakdown books it to. */
static void trace_lost(ss_sim* s, int rank, double start_s, double end_s, double lost, double net)
{
  static const char* const names[2] = {"slowed by collectives (interconnect)", "slowed by collectives (network)"};
  static const ss_cat cats[2] = {SS_CAT_INTERCONNECT, SS_CAT_NETWORK};
  double part[2] = {lost - net, net}, at = end_s - lost;
  for (int k = 1; k >= 0; k--) {
    if (!(part[k] > 0))
      continue;
    char detail[192];
    snprintf(detail, sizeof(detail),
             "the compute before ran %g times slower while collectives ran: %.3f ms of its "
             "%.3f ms lost, drawn at its end",
             1 + s->job->interference, lost * 1e3, (end_s - start_s) * 1e3);
    ss_simtrace_rank(s, rank, SS_TRACK_TRAINER(s->ranks[rank].local), names[k], ss_cat_name(cats[k]), at, part[k],
                     detail);
    at += part[k];
  }
}

/* execute(), and on the trace the layers first..last it ran (or, when first < 0, a span named
 * name if not NULL), then the time collectives took from it. */
static void execute_traced(ss_sim* s, const ss_rank* me, double flops, int first, int last, int bwd, clockmark* m,
                           const char* name)
{
  double t0 = simgrid_get_clock(), lost0 = m->intf_s, net0 = m->intf_net_s;
  execute(s, me, flops, m);
  if (!s->trace)
    return;
  double t1 = simgrid_get_clock(), lost = m->intf_s - lost0;
  if (first >= 0)
    trace_layers(s, me->rank, first, last, bwd, t0, t1 - lost);
  else if (name)
    ss_simtrace_rank(s, me->rank, SS_TRACK_TRAINER(me->local), name, ss_cat_name(SS_CAT_COMPUTE), t0, t1 - lost - t0,
                     NULL);
  trace_lost(s, me->rank, t0, t1, lost, m->intf_net_s - net0);
}

/* Get this iteration's batch into GPU memory; the wait is split between storage and CPU in the
 * proportion in which the loader spent its time on that batch. */
static void get_batch(ss_sim* s, ss_rank* me, clockmark* m)
{
  const ss_job* j = s->job;
  double to_fetch = ss_loader_take(s, me->rank, m->iter, m->t);
  double now = simgrid_get_clock();
  double wait = now - m->t;
  ss_timeline_add(m->tl, m->rank, m->iter, SS_CAT_FETCH, to_fetch);
  ss_timeline_add(m->tl, m->rank, m->iter, SS_CAT_PREP, wait - to_fetch);
  if (to_fetch > 0)
    ss_simtrace_rank(s, me->rank, SS_TRACK_TRAINER(me->local), "wait for data (storage)", "fetch_stall", m->t, to_fetch,
                     NULL);
  if (wait - to_fetch > 0)
    ss_simtrace_rank(s, me->rank, SS_TRACK_TRAINER(me->local), "wait for data (CPU)", "prep_stall", m->t + to_fetch,
                     wait - to_fetch, NULL);
  m->t = now;
  /* With workers = 0 the training process loads, and copies, itself. */
  if (!j->opt.async_copy || j->workers == 0) {
    sg_host_sendto(me->cpu, me->host, j->h2d_bytes);
    mark_span(s, m, SS_CAT_PREP, "H2D copy");
  }
}

/* CNTK's start-up: the worker reads the model and its input shard from shared storage, either
 * after the previous worker from one volume (sequential: instance 0's, over the network for the
 * other instances) or all at once from the storage nearest each (parallel: its instance's volume,
 * as from a parallel file system whose bandwidth grows with its clients). Training starts when
 * every worker is done. */
static void init_io(ss_sim* s, ss_rank* me)
{
  const ss_job* j = s->job;
  if (j->opt.init_io == SS_INIT_SEQUENTIAL) {
    sg_mutex_lock(s->init_mu);
    while (s->init_turn != me->rank)
      sg_cond_wait(s->init_cv, s->init_mu);
    sg_mutex_unlock(s->init_mu);
  }
  const ss_rank* from = j->opt.init_io == SS_INIT_SEQUENTIAL ? &s->ranks[0] : me;
  sg_disk_read(from->disk, (sg_size_t)llround(j->init_bytes));
  sg_host_sendto(from->cpu, me->host, j->init_bytes);
  if (j->opt.init_io == SS_INIT_SEQUENTIAL) {
    sg_mutex_lock(s->init_mu);
    s->init_turn++;
    sg_cond_notify_all(s->init_cv);
    sg_mutex_unlock(s->init_mu);
  }
  sg_barrier_wait(s->bar_all);
  if (me->rank == 0)
    s->tl->init_s = simgrid_get_clock();
}

/* Sleep until date t unless it is within SimGrid's precision of now (it warns of shorter sleeps). */
static void sleep_until(double t)
{
  if (t - simgrid_get_clock() > SS_SIM_PRECISION_S)
    sg_actor_sleep_until(t);
}

/* With the host side simulated: wait until the host has begun issuing segment k, then as long as
 * its operators take to reach the GPU (lag_s); the wait is booked by what the host did. */
static void wait_issue(ss_sim* s, ss_rank* me, clockmark* m, const ss_segment* g, long k)
{
  mark(m, SS_CAT_COMPUTE);
  ss_host_wait_past(me, &me->seg_started, k);
  sleep_until(me->seg_start_s[k % SS_HOST_RING] + g->lag_s);
  double now = simgrid_get_clock();
  ss_host_book(s, me->rank, m->iter, m->t, now);
  m->t = now;
}

/* ... and after running it: its last operator cannot end before the host issued it (a host
 * slowed down by the loaders sharing its cores); then it is done. */
static void end_segment(ss_sim* s, ss_rank* me, clockmark* m, const ss_segment* g, long k)
{
  ss_host_wait_past(me, &me->seg_issued, k);
  double earliest = me->seg_end_s[k % SS_HOST_RING] + g->tail_s;
  if (earliest - simgrid_get_clock() > SS_SIM_PRECISION_S) {
    mark(m, SS_CAT_COMPUTE);
    sg_actor_sleep_until(earliest);
    ss_host_book(s, me->rank, m->iter, m->t, simgrid_get_clock());
    m->t = simgrid_get_clock();
  }
  me->seg_done = k + 1;
  me->launches_done += g->launches;
  ss_host_notify(me);
}

/* Book a wait for collectives that began at m->t and ended at now, net of it while they crossed
 * instances: network stall, the rest interconnect stall, on the trace as "wait for WHAT (...)". */
static void book_wait(ss_sim* s, const ss_rank* me, clockmark* m, double net, double now, const char* what)
{
  double wait = now - m->t;
  ss_timeline_add(m->tl, m->rank, m->iter, SS_CAT_NETWORK, net);
  ss_timeline_add(m->tl, m->rank, m->iter, SS_CAT_INTERCONNECT, wait - net);
  char name[128];
  if (net > 0) {
    snprintf(name, sizeof(name), "wait for %s (network)", what);
    ss_simtrace_rank(s, me->rank, SS_TRACK_TRAINER(me->local), name, "network_stall", m->t, net, NULL);
  }
  if (wait - net > 0) {
    snprintf(name, sizeof(name), "wait for %s (interconnect)", what);
    ss_simtrace_rank(s, me->rank, SS_TRACK_TRAINER(me->local), name, "interconnect_stall", m->t + net, wait - net,
                     NULL);
  }
  m->t = now;
}

/* Wait until the rank's collectives up to number want (over all iterations) have completed. */
static void wait_colls(ss_sim* s, ss_rank* me, clockmark* m, long want, const char* what)
{
  mark(m, SS_CAT_COMPUTE);
  double net = ss_coll_wait_reduced(s, me->rank, want);
  book_wait(s, me, m, net, simgrid_get_clock(), what);
}

void ss_trainer_actor(ss_sim* s, const ss_actor_arg* a)
{
  const ss_job* j = s->job;
  ss_rank* me = &s->ranks[a->rank];
  int ps = j->opt.arch == SS_ARCH_PS;
  int ps_net = ps && ss_cluster_networked(j);
  int per_iter = ss_job_colls_per_iter(j); /* collectives per iteration */
  long k = 0;                              /* segments run, over all iterations */
  if (ps)
    ss_ps_receive_pulls(s, a->rank);
  if (a->rank == 0)
    ss_limit_track(s);
  if (j->opt.init_io != SS_INIT_NONE)
    init_io(s, me);
  for (int i = 0; i < j->niters; i++) {
    clockmark m = {s->tl, a->rank, i, simgrid_get_clock(), 0, 0};
    double start = m.t;
    if (a->rank == 0 && i == j->warmup)
      ss_limit_begin(s);
    ss_straggler_draw(s, a->rank, i);
    if (!j->opt.synthetic && !j->host)
      get_batch(s, me, &m);
    /* Kernels between two collective launches run back to back on a GPU that nothing else
     * computes on: one execution of their summed work takes the same simulated time at a fraction
     * of the simulation's cost (job.c's segments: 2 + buckets executions per iteration instead of
     * 2 x layers). */
    for (int g = 0; g + 1 < j->nsegs; g++, k++) {
      const ss_segment* seg = &j->segs[g];
      if (a->rank == 0)
        ss_trace_links(s);
      if (j->host)
        wait_issue(s, me, &m, seg, k);
      /* Sharded parameters: the unit's all-gather, and the next one's (prefetch), are issued as its
       * pass begins; its kernels wait for its parameters. */
      for (int c = 0; c < seg->nbefore; c++)
        sg_sem_release(me->pending);
      if (seg->gate >= 0) {
        char what[48];
        snprintf(what, sizeof(what), "unit %d's parameters", seg->unit);
        wait_colls(s, me, &m, (long)i * per_iter + seg->gate + 1, what);
      }
      if (seg->kind == SS_SEG_BACKWARD && (g == 0 || j->segs[g - 1].kind != SS_SEG_BACKWARD))
        me->bwd_start_s = simgrid_get_clock();
      execute_traced(s, me, seg->flops * me->jitter, seg->first_layer, seg->last_layer, seg->kind == SS_SEG_BACKWARD,
                     &m, NULL);
      if (j->host)
        end_segment(s, me, &m, seg, k);
      for (int b = 0; b < seg->nlaunch; b++)
        sg_sem_release(me->pending);
      /* Collectives on the default stream (ZeRO-2's reductions): the next segment waits for them. */
      if (seg->wait_after && seg->nlaunch > 0 && g + 2 < j->nsegs)
        wait_colls(s, me, &m, (long)i * per_iter + seg->bucket0 + seg->nlaunch, "the gradients' reduction");
    }
    mark(&m, SS_CAT_COMPUTE);
    /* The wait for the gradients is network stall while the collectives cross instances; with
     * parameter servers, all of it when the servers are across the network. */
    double net = 0;
    ss_straggler_wait_begin(s, a->rank, m.t);
    if (ps)
      ss_ps_pull_all(s, a->rank);
    else
      net = ss_coll_wait_reduced(s, a->rank, (long)i * per_iter + ss_job_seg_colls(j));
    double now = simgrid_get_clock(), wait = now - m.t;
    if (ps && ps_net)
      net = wait;
    /* --ps-aggregate instance: the parameters pulled in shares are all-gathered inside the
     * instance, interconnect time. */
    if (ps && j->ps_local > 1) {
      ss_ps_gather_local(s, a->rank);
      now = simgrid_get_clock();
      wait = now - m.t;
    }
    ss_straggler_wait_end(s, a->rank, i, wait);
    book_wait(s, me, &m, net, now, "gradients");
    const ss_segment* opt = &j->segs[j->nsegs - 1];
    if (j->host)
      wait_issue(s, me, &m, opt, k);
    execute_traced(s, me, opt->flops * me->jitter, -1, -1, 0, &m, "optimizer");
    mark(&m, SS_CAT_COMPUTE);
    if (a->rank == 0)
      ss_trace_links(s);
    if (j->host)
      end_segment(s, me, &m, opt, k);
    k++;
    /* ZeRO: the updated parameters' all-gathers, on the default stream: the step waits for them. */
    for (int c = 0; c < j->npost; c++)
      sg_sem_release(me->pending);
    if (j->npost > 0)
      wait_colls(s, me, &m, (long)i * per_iter + ss_job_seg_colls(j) + j->npost, "the parameters' all-gather");
    for (int c = 0; c < j->nmetric; c++)
      sg_sem_release(me->pending);
    ss_timeline_span(s->tl, a->rank, i, start, m.t);
    if (a->rank == 0 && i == j->warmup + j->iterations - 1)
      ss_limit_end(s);
    if (s->progress && a->rank == 0)
      fprintf(stderr, "\rstash-sim: iteration %d of %d (simulated time %.3f s)%s", i + 1, j->niters,
              simgrid_get_clock(), i + 1 == j->niters ? "\n" : "");
    if (s->trace) {
      char name[32];
      snprintf(name, sizeof(name), "iteration %d", i);
      ss_simtrace_rank(s, a->rank, SS_TRACK_TRAINER(me->local), name, "iteration", start, m.t - start,
                       i < j->warmup                   ? "warm-up"
                       : i < j->warmup + j->iterations ? "measured"
                                                       : "cool-down");
    }
  }
}
