/* loader: the data pipeline: storage reads through a page cache, CPU preparation, prefetch queue. */
#include "loader.h"

#include "probe.h"
#include "simtrace.h"

#include <math.h>
#include <stdio.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>

/* How many of the samples g..g+count-1 are in the page cache: exactly a fraction c of any run of
 * samples is, spread evenly (sample g is cached when floor((g+1)c) > floor(gc)), so the result does
 * not depend on a random draw. */
static long long cached_count(long long g, long long count, double c)
{
  if (c >= 1)
    return count;
  return (long long)(floor((double)(g + count) * c) - floor((double)g * c));
}

/* CPU preparation of count samples on the CPU host of rank's instance; adds its time to *prep_s. */
static void prepare(ss_sim* s, int rank, int tid, long long count, double* prep_s)
{
  const ss_job* j = s->job;
  if (count <= 0 || j->prep_flops_per_sample <= 0)
    return;
  double t = simgrid_get_clock();
  /* The training process itself may load (workers = 0): run on the CPU host wherever we are. */
  sg_exec_t e = sg_actor_exec_init((double)count * j->prep_flops_per_sample);
  sg_exec_set_host(e, s->ranks[rank].cpu);
  sg_exec_start(e);
  sg_exec_wait(e);
  ss_limit_work(s, SS_RES_CPU, s->ranks[rank].inst,
                (double)count * j->prep_flops_per_sample / sg_host_get_speed(s->ranks[rank].cpu), t);
  ss_limit_loader_busy(s, s->ranks[rank].inst, t);
  *prep_s += simgrid_get_clock() - t;
  ss_simtrace_rank(s, rank, tid, "prepare", "loader", t, simgrid_get_clock() - t, NULL);
}

void ss_loader_batch(ss_sim* s, int rank, int iter, int worker, double* fetch_s, double* prep_s)
{
  const ss_job* j = s->job;
  int local = rank % j->gpus_per_instance;
  int tid = SS_TRACK_LOADER(local, worker < 0 ? SS_TRACK_INPROCESS : worker);
  /* A step's samples: its micro-batches' with gradient accumulation. */
  long long batch = (long long)j->batch * j->accum;
  long long first = ((long long)rank * j->niters + iter) * batch;
  /* Samples are read then prepared one after the other; a large batch goes in at most
   * SS_LOADER_STEPS steps of equal size, so that the cost of a simulation does not grow with it. */
  long long step = (batch + SS_LOADER_STEPS - 1) / SS_LOADER_STEPS;
  /* Preparation of samples that needed no read runs as one execution with the next ones: nothing
   * happens in between, and fewer executions keep large simulations cheap. */
  long long unprepared = 0;
  for (long long g = first; g < first + batch; g += step) {
    long long count = g + step <= first + batch ? step : first + batch - g;
    long long misses = count - cached_count(g, count, j->cache);
    if (misses > 0) {
      prepare(s, rank, tid, unprepared, prep_s);
      unprepared = 0;
      double t = simgrid_get_clock();
      double bytes = (double)llround((double)misses * j->workload->dataset.bytes_per_sample);
      sg_disk_read(s->ranks[rank].disk, (sg_size_t)bytes);
      ss_limit_work(s, SS_RES_DISK, s->ranks[rank].inst, bytes, t);
      *fetch_s += simgrid_get_clock() - t;
      ss_simtrace_rank(s, rank, tid, "read", "loader", t, simgrid_get_clock() - t, NULL);
    }
    unprepared += count;
  }
  prepare(s, rank, tid, unprepared, prep_s);
}

void ss_loader_actor(ss_sim* s, const ss_actor_arg* a)
{
  const ss_job* j = s->job;
  ss_rank* me = &s->ranks[a->rank];
  int ahead = j->opt.prefetch * j->workers;
  /* PyTorch hands batch b to worker b mod W, at most prefetch_factor x W batches ahead of use. */
  for (int b = a->worker; b < j->niters; b += j->workers) {
    sg_mutex_lock(me->mu);
    while (b >= me->consumed + ahead)
      sg_cond_wait(me->cv, me->mu);
    sg_mutex_unlock(me->mu);
    double fetch = 0, prep = 0, t0 = simgrid_get_clock();
    ss_loader_batch(s, a->rank, b, a->worker, &fetch, &prep);
    if (j->opt.async_copy) {
      /* The copy is part of the pipeline's work on this batch, as preparation is. */
      double t = simgrid_get_clock();
      sg_host_sendto(me->cpu, me->host, j->h2d_bytes);
      prep += simgrid_get_clock() - t;
      ss_simtrace_rank(s, a->rank, SS_TRACK_LOADER(me->local, a->worker), "H2D copy", "loader", t,
                       simgrid_get_clock() - t, NULL);
    }
    if (s->trace) {
      char name[32];
      snprintf(name, sizeof(name), "batch %d", b);
      ss_simtrace_rank(s, a->rank, SS_TRACK_LOADER(me->local, a->worker), name, "loader", t0, simgrid_get_clock() - t0,
                       NULL);
    }
    sg_mutex_lock(me->mu);
    me->ready[b] = 1;
    me->batch_fetch_s[b] = fetch;
    me->batch_prep_s[b] = prep;
    sg_cond_notify_all(me->cv);
    sg_mutex_unlock(me->mu);
  }
}

double ss_loader_take(ss_sim* s, int r, int iter, double since)
{
  ss_rank* me = &s->ranks[r];
  double fetch = 0, prep = 0;
  if (s->job->workers == 0) {
    ss_loader_batch(s, r, iter, -1, &fetch, &prep);
  } else {
    sg_mutex_lock(me->mu);
    while (!me->ready[iter])
      sg_cond_wait(me->cv, me->mu);
    me->consumed++;
    sg_cond_notify_all(me->cv);
    sg_mutex_unlock(me->mu);
    fetch = me->batch_fetch_s[iter];
    prep = me->batch_prep_s[iter];
  }
  double wait = simgrid_get_clock() - since;
  return fetch + prep > 0 ? wait * fetch / (fetch + prep) : 0;
}
