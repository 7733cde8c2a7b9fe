/* loader: the data pipeline: storage reads through a page cache, CPU preparation, prefetch queue. */
#include "actors.h"

#include <math.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>

/* Whether sample g is in the page cache: exactly a fraction c of any run of samples is, spread
 * evenly, so the result does not depend on a random draw. */
static int cached(long long g, double c)
{
  if (c >= 1)
    return 1;
  return floor((double)(g + 1) * c) > floor((double)g * c);
}

void ss_loader_sample(ss_sim* s, long long g, double* fetch_s, double* prep_s)
{
  const ss_job* j = s->job;
  double t = simgrid_get_clock();
  if (!cached(g, j->cache)) {
    sg_disk_read(s->disk, (sg_size_t)llround(j->workload->dataset.bytes_per_sample));
    double now = simgrid_get_clock();
    *fetch_s += now - t;
    t = now;
  }
  if (j->prep_flops_per_sample > 0) {
    /* The training process itself may load (workers = 0): run on the CPU host wherever we are. */
    sg_exec_t e = sg_actor_exec_init(j->prep_flops_per_sample);
    sg_exec_set_host(e, s->cpu);
    sg_exec_start(e);
    sg_exec_wait(e);
    *prep_s += simgrid_get_clock() - t;
  }
}

void ss_loader_actor(int argc, char** argv)
{
  (void)argc;
  (void)argv;
  ss_actor_arg* a = sg_actor_self_get_data();
  ss_sim* s = a->sim;
  const ss_job* j = s->job;
  ss_rank* me = &s->ranks[a->rank];
  int ahead = j->opt.prefetch * j->workers;
  /* PyTorch hands batch b to worker b mod W, at most prefetch_factor x W batches ahead of use. */
  for (int b = a->worker; b < j->niters; b += j->workers) {
    sg_mutex_lock(me->mu);
    while (b >= me->consumed + ahead)
      sg_cond_wait(me->cv, me->mu);
    sg_mutex_unlock(me->mu);
    double fetch = 0, prep = 0;
    long long first = ((long long)a->rank * j->niters + b) * j->batch;
    for (int k = 0; k < j->batch; k++)
      ss_loader_sample(s, first + k, &fetch, &prep);
    sg_mutex_lock(me->mu);
    me->ready[b] = 1;
    me->batch_fetch_s[b] = fetch;
    me->batch_prep_s[b] = prep;
    sg_cond_notify_all(me->cv);
    sg_mutex_unlock(me->mu);
  }
  s->actors_finished++;
}
