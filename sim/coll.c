/* coll: allreduce algorithms on SimGrid communications: ring, hierarchical, double binary tree,
 * each at two fidelities (one communication per chunk and step, or one flow per hop and phase). */
#include "actors.h"

#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <math.h>
#include <stdlib.h>

/* Payload of every message: SimGrid rejects NULL payloads, and only sizes matter here. */
static char token;

/* Which rings a ring phase runs on. */
typedef enum ring_kind { RING_GLOBAL, RING_INTRA, RING_CROSS } ring_kind;

typedef struct ring_phase {
  ring_kind kind;
  int steps;     /* communication steps */
  double bytes;  /* bytes each rank sends per step, over all of its rings together */
  sg_bar_t bar;  /* the ranks of the phase (fast fidelity) */
  double alpha;  /* the largest hop latency of the phase (fast fidelity) */
  int net;       /* the phase crosses instances */
} ring_phase;

static int nrings(const ss_sim* s, ring_kind k)
{
  return k == RING_GLOBAL ? s->job->rings.nrings : k == RING_INTRA ? s->job->intra.nrings : 1;
}

static double share(const ss_sim* s, ring_kind k, int c)
{
  return k == RING_GLOBAL ? s->job->rings.rings[c].share : k == RING_INTRA ? s->job->intra.rings[c].share : 1.0;
}

static sg_mailbox_t inbox(const ss_rank* r, ring_kind k, int c)
{
  return k == RING_GLOBAL ? r->inbox[c] : k == RING_INTRA ? r->intra_inbox[c] : r->cross_inbox;
}

static int next(const ss_rank* r, ring_kind k, int c)
{
  return k == RING_GLOBAL ? r->next[c] : k == RING_INTRA ? r->intra_next[c] : r->cross_next;
}

static void net_begin(ss_rank* me)
{
  me->in_net = 1;
  me->net_since = simgrid_get_clock();
}

static void net_end(ss_rank* me)
{
  me->net_acc_s += simgrid_get_clock() - me->net_since;
  me->in_net = 0;
}

double ss_coll_net_time(const ss_sim* s, int r)
{
  const ss_rank* me = &s->ranks[r];
  return me->net_acc_s + (me->in_net ? simgrid_get_clock() - me->net_since : 0);
}

/* Send `bytes` to the next rank of each ring of the phase (in proportion to its share) and receive
 * as much from the previous one; returns when all of it has arrived. */
static void exchange(ss_sim* s, int r, const ring_phase* ph, double bytes, sg_comm_t* comms, void** data)
{
  ss_rank* me = &s->ranks[r];
  int k = 0;
  for (int c = 0; c < nrings(s, ph->kind); c++) {
    /* Every ring moves something, however small the collective: its latency is paid anyway. */
    double part = bytes * share(s, ph->kind, c);
    if (part <= 0)
      continue;
    long size = part < 1 ? 1 : (long)llround(part);
    comms[k++] = sg_mailbox_put_async(inbox(&s->ranks[next(me, ph->kind, c)], ph->kind, c), &token, size);
    comms[k++] = sg_mailbox_get_async(inbox(me, ph->kind, c), &data[c]);
  }
  sg_comm_wait_all(comms, (size_t)k);
}

/* Run one ring phase on rank r. Reference: `steps` exchanges of one chunk, each waiting for the
 * previous one, as NCCL's ring. Fast: one exchange of all the steps' bytes per hop, a barrier
 * (the phase ends with its slowest hop, as a lock-step ring does), then the latency of the other
 * steps-1 steps. Both give steps x (alpha + chunk / bandwidth) on a homogeneous ring. */
static void ring_run(ss_sim* s, int r, const ring_phase* ph)
{
  if (ph->steps <= 0 || ph->bytes <= 0)
    return;
  ss_rank* me = &s->ranks[r];
  sg_comm_t comms[2 * SS_TOPO_MAX_CHANNELS];
  void* data[SS_TOPO_MAX_CHANNELS];
  ss_assert(nrings(s, ph->kind) <= SS_TOPO_MAX_CHANNELS);
  if (ph->net)
    net_begin(me);
  if (s->job->opt.fidelity == SS_FIDELITY_REFERENCE) {
    for (int step = 0; step < ph->steps; step++)
      exchange(s, r, ph, ph->bytes, comms, data);
  } else {
    exchange(s, r, ph, ph->bytes * ph->steps, comms, data);
    sg_barrier_wait(ph->bar);
    if (ph->steps > 1 && ph->alpha > 0)
      sg_actor_sleep_for((ph->steps - 1) * ph->alpha);
  }
  if (ph->net)
    net_end(me);
}

/* Ring over all ranks: reduce-scatter then allgather, 2(n-1) steps of S/n. */
static void allreduce_ring(ss_sim* s, int r, double bytes)
{
  int n = s->job->ngpus;
  ring_phase ph = {RING_GLOBAL, 2 * (n - 1), bytes / n, s->bar_all, s->alpha_global, s->job->instances > 1};
  ring_run(s, r, &ph);
}

/* Reduce-scatter inside the instance (g-1 steps of S/g), allreduce of the 1/g shard across
 * instances on the ring of same-index GPUs (2(m-1) steps of S/(g m)), allgather inside. */
static void allreduce_hierarchical(ss_sim* s, int r, double bytes)
{
  const ss_job* j = s->job;
  int g = j->gpus_per_instance, m = j->instances;
  const ss_rank* me = &s->ranks[r];
  ring_phase in = {RING_INTRA, g - 1, bytes / g, s->bar_inst[me->inst], s->alpha_intra, 0};
  ring_phase across = {RING_CROSS, 2 * (m - 1), bytes / g / m, s->bar_cross[me->local],
                       s->alpha_cross[me->local], 1};
  ring_run(s, r, &in);
  ring_run(s, r, &across);
  ring_run(s, r, &in);
}

typedef void (*allreduce_fn)(ss_sim* s, int r, double bytes);

/* The algorithms, by ss_allreduce value (AUTO is resolved before a collective runs). */
static const allreduce_fn allreduce_fns[SS_ALLREDUCE_COUNT] = {
    [SS_ALLREDUCE_RING] = allreduce_ring,
    [SS_ALLREDUCE_HIERARCHICAL] = allreduce_hierarchical,
};

void ss_coll_allreduce(ss_sim* s, int r, ss_allreduce alg, double bytes)
{
  if (s->job->ngpus < 2 || bytes <= 0)
    return;
  ss_assert(alg > SS_ALLREDUCE_AUTO && alg < SS_ALLREDUCE_COUNT && allreduce_fns[alg]);
  allreduce_fns[alg](s, r, bytes);
}

static void bench(ss_sim* s, int r)
{
  for (int k = 0; k < s->bench_nsizes; k++) {
    sg_barrier_wait(s->bar_all);
    double t0 = simgrid_get_clock();
    for (int i = 0; i < s->bench_reps; i++)
      ss_coll_allreduce(s, r, s->bucket_alg[k], s->bench_bytes[k]);
    sg_barrier_wait(s->bar_all);
    if (r == 0)
      s->bench_time_s[k] = (simgrid_get_clock() - t0) / s->bench_reps;
  }
}

void ss_coll_actor(int argc, char** argv)
{
  (void)argc;
  (void)argv;
  ss_actor_arg* a = sg_actor_self_get_data();
  ss_sim* s = a->sim;
  ss_rank* me = &s->ranks[a->rank];
  if (s->bench_nsizes > 0) {
    bench(s, a->rank);
  } else {
    for (int i = 0; i < s->job->niters; i++)
      for (int b = 0; b < s->job->nbuckets; b++) {
        sg_sem_acquire(me->pending);
        ss_coll_allreduce(s, a->rank, s->bucket_alg[b], s->job->buckets[b].bytes);
        sg_mutex_lock(me->mu);
        me->reduced++;
        sg_cond_notify_all(me->cv);
        sg_mutex_unlock(me->mu);
      }
  }
  s->actors_finished++;
}
