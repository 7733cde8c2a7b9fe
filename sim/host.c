/* host: the CPU thread of a training process. It takes each batch, copies it to the GPU, and
 * issues the GPU's work segment by segment (ss_segment); the GPU (trainer.c) runs a segment once
 * its operators are issued, and books its waits for the host by what the host did meanwhile. */
#include "host.h"

#include "coll.h"
#include "loader.h"
#include "probe.h"
#include "simtrace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>

/* Append [start, end) of category cat to the log, merged with the last span when they touch. */
static void log_add(ss_hostlog* g, double start, double end, ss_cat cat)
{
  if (!(end > start))
    return;
  if (g->n > g->head && g->spans[g->n - 1].cat == cat && g->spans[g->n - 1].end_s == start) {
    g->spans[g->n - 1].end_s = end;
    return;
  }
  if (g->n == g->cap && g->head > 0) { /* drop the spans the GPU has consumed */
    memmove(g->spans, g->spans + g->head, (g->n - g->head) * sizeof(ss_hostspan));
    g->n -= g->head;
    g->head = 0;
  }
  if (g->n == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 16;
    ss_hostspan* more = realloc(g->spans, cap * sizeof(ss_hostspan));
    if (!more)
      ss_nomem_exit("the host thread's queue of launches");
    g->spans = more;
    g->cap = cap;
  }
  g->spans[g->n++] = (ss_hostspan){start, end, cat};
}

void ss_host_book(ss_sim* s, int r, int iter, double from, double to)
{
  ss_hostlog* g = &s->ranks[r].log;
  double covered = 0;
  for (size_t i = g->head; i < g->n && g->spans[i].start_s < to; i++) {
    double lo = fmax(from, g->spans[i].start_s), hi = fmin(to, g->spans[i].end_s);
    if (hi > lo) {
      ss_timeline_add(s->tl, r, iter, g->spans[i].cat, hi - lo);
      ss_simtrace_rank(s, r, SS_TRACK_TRAINER(s->ranks[r].local), ss_category_of(g->spans[i].cat)->host_wait,
                       ss_cat_name(g->spans[i].cat), lo, hi - lo, NULL);
      covered += hi - lo;
    }
  }
  while (g->head < g->n && g->spans[g->head].end_s <= to)
    g->head++;
  /* What the log does not hold yet is the segment the host is issuing now: the last part. */
  if (to - from > covered) {
    ss_timeline_add(s->tl, r, iter, SS_CAT_HOST, to - from - covered);
    ss_simtrace_rank(s, r, SS_TRACK_TRAINER(s->ranks[r].local), ss_category_of(SS_CAT_HOST)->host_wait,
                     ss_cat_name(SS_CAT_HOST), to - (to - from - covered), to - from - covered, NULL);
  }
}

/* The host thread spends host_s of one reference core (on its instance's CPU, shared with the loaders). */
static void host_work(ss_sim* s, const ss_rank* me, double host_s)
{
  if (host_s <= 0)
    return;
  double t = simgrid_get_clock();
  sg_actor_execute(host_s * SS_REF_CORE_FLOPS);
  ss_limit_work(s, SS_RES_CPU, me->inst, host_s * SS_REF_CORE_FLOPS / sg_host_get_speed(me->cpu), t);
}

/* A span on the rank's host track of the trace, and in its log. */
static void host_span(ss_sim* s, ss_rank* me, const char* name, ss_cat cat, double start_s)
{
  double now = simgrid_get_clock();
  log_add(&me->log, start_s, now, cat);
  /* The link counters are sampled at rank 0's steps: its host's too, or a copy made while the GPU
   * waits would be averaged over the whole wait and the GPU's next segment. */
  if (me->rank == 0)
    ss_trace_links(s);
  if (now > start_s)
    ss_simtrace_rank(s, me->rank, SS_TRACK_HOST(me->local), name, ss_cat_name(cat), start_s, now - start_s, NULL);
}

void ss_host_notify(ss_rank* me)
{
  if (me->seg_waiters > 0)
    sg_cond_notify_all(me->seg_cv);
}

void ss_host_wait_past(ss_rank* me, const long* counter, long k)
{
  if (*counter > k)
    return;
  sg_mutex_lock(me->mu);
  me->seg_waiters++;
  while (*counter <= k)
    sg_cond_wait(me->seg_cv, me->mu);
  me->seg_waiters--;
  sg_mutex_unlock(me->mu);
}

/* Wait until the GPU has run every segment issued so far (a synchronisation: a copy from pageable
 * memory, torch.cuda.synchronize()). */
static void wait_gpu(ss_rank* me)
{
  ss_host_wait_past(me, &me->seg_done, me->seg_issued - 1);
}

/* Whether the host must wait before issuing g as segment k: the GPU is a ring behind, or the
 * launch queue would overflow (a segment larger than the queue goes once the queue is empty). */
static int queue_full(const ss_rank* me, const ss_segment* g, long k, int queue)
{
  return k - me->seg_done >= SS_HOST_RING ||
         (me->launches_issued > me->launches_done && me->launches_issued + g->launches - me->launches_done > queue);
}

/* Take iteration iter's batch: load it (no workers) or wait for a worker's; the wait is split
 * between storage and CPU as the loader spent its time on the batch; then the handoff. */
static void take_batch(ss_sim* s, ss_rank* me, int iter)
{
  double t0 = simgrid_get_clock();
  double to_fetch = ss_loader_take(s, me->rank, iter, t0);
  log_add(&me->log, t0, t0 + to_fetch, SS_CAT_FETCH);
  host_span(s, me, "wait for data", SS_CAT_PREP, t0 + to_fetch);
  double t1 = simgrid_get_clock();
  host_work(s, me, s->job->handoff_s);
  host_span(s, me, "take batch", SS_CAT_HOST, t1);
}

/* Copy the batch to the GPU from pageable memory: the copy waits for the GPU's earlier work, and
 * one core stages the bytes through a pinned buffer while the DMA moves them over PCIe. */
static void copy_batch(ss_sim* s, ss_rank* me)
{
  const ss_job* j = s->job;
  wait_gpu(me);
  double t0 = simgrid_get_clock();
  sg_exec_t staging = NULL;
  if (j->staging_s > 0) {
    staging = sg_actor_exec_init(j->staging_s * SS_REF_CORE_FLOPS);
    sg_exec_start(staging);
  }
  sg_host_sendto(me->cpu, me->host, j->copy_bytes);
  if (staging) {
    sg_exec_wait(staging);
    ss_limit_work(s, SS_RES_CPU, me->inst, j->staging_s * SS_REF_CORE_FLOPS / sg_host_get_speed(me->cpu), t0);
  }
  host_span(s, me, "H2D copy (pageable)", SS_CAT_PREP, t0);
}

/* Issue the segments of one iteration from segment index k (over all iterations) on. The host
 * issues as many in a row as the launch queue takes, as one execution on its core (a few per
 * iteration, not one per segment: simulations stay cheap); each segment's start and end within it
 * are announced to the GPU in advance, at the host's speed in the previous run of segments (below
 * 1 when the loaders slowed its core down). Returns k past the iteration's segments. */
static long issue_iteration(ss_sim* s, ss_rank* me, long k, double* slowdown)
{
  const ss_job* j = s->job;
  int q = j->opt.launch_queue;
  for (int g = 0; g < j->nsegs;) {
    if (queue_full(me, &j->segs[g], k, q)) {
      sg_mutex_lock(me->mu);
      me->seg_waiters++;
      while (queue_full(me, &j->segs[g], k, q))
        sg_cond_wait(me->seg_cv, me->mu);
      me->seg_waiters--;
      sg_mutex_unlock(me->mu);
    }
    double t0 = simgrid_get_clock(), planned = 0;
    int first = g;
    do {
      me->seg_start_s[k % SS_HOST_RING] = t0 + *slowdown * planned;
      planned += j->segs[g].host_s;
      me->seg_end_s[k % SS_HOST_RING] = t0 + *slowdown * planned;
      me->launches_issued += j->segs[g].launches;
      k++;
      g++;
    } while (g < j->nsegs && !queue_full(me, &j->segs[g], k, q));
    me->seg_started = me->seg_issued = k;
    ss_host_notify(me);
    host_work(s, me, planned);
    if (planned > 0)
      *slowdown = fmax(1, (simgrid_get_clock() - t0) / planned);
    host_span(s, me, first == 0 && g == j->nsegs ? "issue iteration" : "issue segments", SS_CAT_HOST, t0);
  }
  return k;
}

/* .item() on the metrics: wait for iteration iter's collectives, the metric allreduces last. */
static void wait_metrics(ss_sim* s, ss_rank* me, int iter)
{
  const ss_job* j = s->job;
  double t0 = simgrid_get_clock();
  double net = ss_coll_wait_reduced(s, me->rank, (long)(iter + 1) * ss_job_colls_per_iter(j));
  log_add(&me->log, t0, t0 + net, SS_CAT_NETWORK);
  host_span(s, me, ".item() (metric allreduces)", SS_CAT_INTERCONNECT, t0 + net);
}

void ss_host_actor(ss_sim* s, const ss_actor_arg* a)
{
  const ss_job* j = s->job;
  ss_rank* me = &s->ranks[a->rank];
  long k = 0;
  double slowdown = 1;
  for (int i = 0; i < j->niters; i++) {
    if (!j->opt.synthetic)
      take_batch(s, me, i);
    if (j->copy_bytes > 0)
      copy_batch(s, me);
    if (j->opt.cuda_sync)
      wait_gpu(me);
    k = issue_iteration(s, me, k, &slowdown);
    if (j->nmetric > 0)
      wait_metrics(s, me, i);
    if (j->opt.cuda_sync || j->opt.item_sync)
      wait_gpu(me);
  }
}
