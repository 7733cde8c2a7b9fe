/* coll: collectives on SimGrid communications: allreduce (ring, hierarchical, double binary tree),
 * reduce-scatter and all-gather (ring, hierarchical), each at two fidelities (one communication per
 * chunk and step, or one flow per hop and phase). */
#include "coll.h"

#include "cost.h"
#include "ddp.h"
#include "nccl.h"
#include "simtrace.h"
#include "sockcpu.h"
#include "straggler.h"

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Payload of every message: SimGrid rejects NULL payloads, and only sizes matter here. */
static char token;

/* Which rings a ring phase runs on. */
typedef enum ring_kind { RING_GLOBAL, RING_INTRA, RING_CROSS } ring_kind;

typedef struct ring_phase {
  ring_kind kind;
  int steps;       /* communication steps */
  double bytes;    /* bytes each rank sends per step, over all of its rings together */
  sg_bar_t bar;    /* the ranks of the phase (fast fidelity) */
  double alpha;    /* the largest hop latency of the phase (fast fidelity) */
  int net;         /* the phase crosses instances */
  double tail;     /* the stream's time after the phase (the framework's copies after a collective's last
                  * phase), folded into the phase's last sleep: one simulated event less */
  double lat;      /* the protocol's latency of each step (proto.c) */
  double lat_out;  /* ... of a step on the hop out of an instance's chain (RING_GLOBAL across instances,
                    * pipelined: the network's, where lat is the instance's links'); lat elsewhere */
  double call;     /* the collective's per-call latency, paid in this phase (its first) */
  ss_chain* chain; /* fast fidelity, rings pipelined (ss_job_ring_pipelined): the group's state (actors.h) */
  double hidden;   /* of those remaining steps' latencies, what this rank's ring across instances
                  * hides behind the other rings' chunks on its NIC (ss_cost_nic_hidden) */
  double floor;    /* the phase's shortest time at the protocol's cap, call included (phase_floor;
                  * 0: no cap): the phase lasts at least that long from the rank's start */
} ring_phase;

/* A ring phase's floor (ring_phase.floor): `steps` steps of payload_bytes over phase k at pc's cap,
 * after the call's latency; 0 where the protocol has no cap on the phase. */
static double phase_floor(const ss_proto_cost* pc, ss_proto_phase k, int steps, double payload_bytes, double call)
{
  double f = ss_proto_floor_s(pc, k, steps, payload_bytes);
  return f > 0 ? call + f : 0;
}

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

static void watch_start(ss_stopwatch* w)
{
  w->on = 1;
  w->since = simgrid_get_clock();
}

static void watch_stop(ss_stopwatch* w)
{
  w->acc_s += simgrid_get_clock() - w->since;
  w->on = 0;
}

static double watch_time(const ss_stopwatch* w)
{
  return w->acc_s + (w->on ? simgrid_get_clock() - w->since : 0);
}

double ss_coll_net_time(const ss_sim* s, int r)
{
  return watch_time(&s->ranks[r].net);
}

double ss_coll_busy_time(const ss_sim* s, int r)
{
  return watch_time(&s->ranks[r].busy);
}

/* A collective starts on rank r's GPU: with interference f, executions bounded to f / (1 + f) of the
 * GPU's speed in all start on it, so that under SimGrid's max-min sharing the training process's
 * kernels get 1 / (1 + f) of it while they run: k = ceil(f) of them, each bounded below its fair
 * share (k + 1 actions: speed / (k + 1)), which holds for f <= k. Their work lasts far longer
 * than any collective (SS_INTF_HORIZON_S); busy_end cancels them. */
#define SS_INTF_HORIZON_S 1e9
static void busy_begin(ss_sim* s, ss_rank* me)
{
  watch_start(&me->busy);
  double f = s->job->interference;
  if (!(f > 0))
    return;
  int k = (int)ceil(f);
  ss_assert(k >= 1 && k <= SS_MAX_INTERFERENCE);
  double bound = sg_host_get_speed(me->host) * f / (1 + f) / k;
  for (me->nintf = 0; me->nintf < k; me->nintf++) {
    sg_exec_t e = sg_actor_exec_init(bound * SS_INTF_HORIZON_S);
    sg_exec_set_host(e, me->host);
    sg_exec_set_bound(e, bound);
    sg_exec_start(e);
    me->intf[me->nintf] = e;
  }
}

static void busy_end(ss_rank* me)
{
  watch_stop(&me->busy);
  for (int i = 0; i < me->nintf; i++)
    sg_exec_cancel(me->intf[i]);
  me->nintf = 0;
}

double ss_coll_wait_reduced(ss_sim* s, int r, long want)
{
  ss_rank* me = &s->ranks[r];
  double t0 = simgrid_get_clock(), net0 = ss_coll_net_time(s, r);
  sg_mutex_lock(me->mu);
  while (me->reduced < want)
    sg_cond_wait(me->cv, me->mu);
  sg_mutex_unlock(me->mu);
  /* Without rounding either part below 0 (t0 + net can pass the clock). */
  double wait = simgrid_get_clock() - t0;
  return fmax(0, fmin(ss_coll_net_time(s, r) - net0, wait));
}

/* The bytes ring c of the phase sends of `bytes` (its share, in whole bytes): 0 for a ring that has no
 * share; every other ring moves something, however small the collective, since its latency is paid
 * anyway. */
static long ring_bytes(const ss_sim* s, const ring_phase* ph, double bytes, int c)
{
  double part = bytes * share(s, ph->kind, c);
  return part <= 0 ? 0 : part < 1 ? 1 : (long)llround(part);
}

/* Send `bytes` to the next rank of each ring of the phase (in proportion to its share) and receive
 * as much from the previous one; returns when all of it has arrived. With sent (not NULL), sent[c]
 * is the date ring c's send completed (-1 for a ring that moves nothing). */
static void exchange(ss_sim* s, int r, const ring_phase* ph, double bytes, sg_comm_t* comms, void** data, double* sent)
{
  ss_rank* me = &s->ranks[r];
  int k = 0, ring[2 * SS_TOPO_MAX_CHANNELS], socks = 0;
  double moved[SS_TOPO_MAX_CHANNELS];
  /* Between instances over the socket transport, a send has landed once both ends' threads have done
   * their work for it (sockcpu.h): the sender accounts for both, the receiver's on its instance. */
  ss_sock_end ends[SS_TOPO_MAX_CHANNELS][2];
  for (int c = 0; c < nrings(s, ph->kind); c++) {
    if (sent)
      sent[c] = -1;
    long size = ring_bytes(s, ph, bytes, c);
    moved[c] = (double)size;
    ends[c][0].n = ends[c][1].n = 0;
    if (size == 0)
      continue;
    int to = next(me, ph->kind, c);
    ss_sock_open(s, r, to, 0, &ends[c][0]);
    ss_sock_open(s, to, r, 1, &ends[c][1]);
    socks += ends[c][0].n + ends[c][1].n;
    ring[k] = c;
    comms[k++] = sg_mailbox_put_async(inbox(&s->ranks[to], ph->kind, c), &token, size);
    ss_sock_post(&ends[c][0], moved[c]);
    ss_sock_post(&ends[c][1], moved[c]);
    ring[k] = -1;
    comms[k++] = sg_mailbox_get_async(inbox(me, ph->kind, c), &data[c]);
  }
  if (!sent && !socks) {
    sg_comm_wait_all(comms, (size_t)k);
    return;
  }
  /* wait_any swaps the last pending one into the place of the finished. */
  while (k > 0) {
    ssize_t done = sg_comm_wait_any(comms, (size_t)k);
    ss_assert(done >= 0 && done < k);
    int c = ring[done];
    if (c >= 0) {
      ss_sock_land(&ends[c][0], moved[c]);
      ss_sock_land(&ends[c][1], moved[c]);
      if (sent)
        sent[c] = simgrid_get_clock();
    }
    comms[done] = comms[k - 1];
    ring[done] = ring[k - 1];
    k--;
  }
}

/* A fast ring phase as NCCL pipelines it (not --ideal or --no-ring-pipeline): one flow per hop carries all the steps'
 * chunks and gives each hop's per-step time under the phase's contention; the group's ranks record
 * them and their arrival (the largest at each position of the rings' pattern: identical instances
 * repeat it); past the barrier the first rank computes the phase's end (ss_cost_ring_chain, each
 * ring apart, the slowest ending the phase) and every rank waits until then, less what the rank's
 * ring across instances hides on its NIC (hidden). Returns the time left to wait. */
static double ring_chain(ss_sim* s, int r, const ring_phase* ph, sg_comm_t* comms, void** data)
{
  ss_rank* me = &s->ranks[r];
  ss_chain* ch = ph->chain;
  int *parity = &me->phase_parity[ph->kind], par = *parity, nr = nrings(s, ph->kind), per = ch->period;
  const int* pos = ph->kind == RING_GLOBAL  ? me->ring_pos
                   : ph->kind == RING_INTRA ? me->ring_pos + s->job->rings.nrings
                                            : NULL;
  double t0 = simgrid_get_clock(), sent[SS_TOPO_MAX_CHANNELS];
  exchange(s, r, ph, ph->bytes * ph->steps, comms, data, sent);
  ss_assert(nr == ch->nrings);
  for (int c = 0; c < nr; c++) {
    size_t at = (size_t)c * (size_t)per + (size_t)(pos ? pos[c] : 0);
    ch->x[par][at] = fmax(ch->x[par][at], sent[c]); /* the per-step time once every arrival is known */
    ch->t0[par][at] = fmax(ch->t0[par][at], t0);
  }
  sg_barrier_wait(ph->bar);
  if (ch->end[par] < 0) {
    size_t n = (size_t)nr * (size_t)per;
    double first = INFINITY, *rel = ch->scratch;
    for (size_t i = 0; i < n; i++)
      if (ch->t0[par][i] >= 0)
        first = fmin(first, ch->t0[par][i]);
    for (size_t i = 0; i < n; i++)
      rel[i] = ch->t0[par][i] >= 0 ? ch->t0[par][i] - first : 0;
    /* A hop's flow started when both its ends were there: its per-step time is what it took from
     * then, less the hop's latency, over the steps. */
    for (int c = 0; c < nr; c++)
      for (int q = 0; q < per; q++) {
        size_t at = (size_t)c * (size_t)per + (size_t)q, to = (size_t)c * (size_t)per + (size_t)((q + 1) % per);
        double done = ch->x[par][at], from = first + fmax(rel[at], rel[to]);
        ch->x[par][at] = fmax(0, done - from - ch->a[at]) / ph->steps;
      }
    if (ph->steps != ch->last_steps || ph->lat != ch->last_lat || ph->lat_out != ch->last_lat_out ||
        ph->call != ch->last_call || memcmp(ch->x[par], ch->last_x, n * sizeof(double)) != 0 ||
        memcmp(rel, ch->last_x + n, n * sizeof(double)) != 0) {
      double len = 0;
      for (int c = 0; c < nr; c++) {
        size_t o = (size_t)c * (size_t)per;
        len = fmax(len, ss_cost_ring_chain(ph->steps, ss_nccl_window(ph->bytes * share(s, ph->kind, c)), per, rel + o,
                                           ch->x[par] + o, ch->a + o, ph->lat, ph->lat_out, ph->call, ch->scratch + n));
      }
      memcpy(ch->last_x, ch->x[par], n * sizeof(double));
      memcpy(ch->last_x + n, rel, n * sizeof(double));
      ch->last_steps = ph->steps;
      ch->last_lat = ph->lat;
      ch->last_lat_out = ph->lat_out;
      ch->last_call = ph->call;
      ch->last_len = len;
    }
    ch->end[par] = first + ch->last_len;
    /* The other parity's phase has ended for every rank of the group: clear it for the next one. */
    memset(ch->x[1 - par], 0, n * sizeof(double));
    for (size_t i = 0; i < n; i++)
      ch->t0[1 - par][i] = -1;
    ch->end[1 - par] = -1;
  }
  *parity = 1 - par;
  double rest = ch->end[par] - ph->hidden - simgrid_get_clock();
  return rest > SS_SIM_PRECISION_S ? rest : 0;
}

/* The reference ring as NCCL runs it: each ring (channel) goes on by itself, in two actors of its own
 * on the rank's GPU, one receiving and one sending; on a ring, a rank sends step k's chunk once step
 * k-1's has arrived and the step's latency has passed since (NCCL's latency of a step is the chunk's
 * way from one GPU's kernel to the next one's: a step that crosses instances takes the network's
 * while the rank's other steps go on), without waiting for its earlier sends to land, while its peer
 * has a free buffer slot (at most ss_nccl_window sends in flight; receives posted that many steps
 * ahead). A chunk's latency therefore adds up along the ring's chain of hops, not step by step at the
 * slowest hop or the slowest ring (docs/model.md, "Allreduce algorithms"). */
typedef struct ring_channel {
  ss_sim* s;
  int r, c;
  const ring_phase* ph;
  long size;       /* bytes per step */
  void** data;     /* where its receives put their payload */
  double* arrived; /* [step]: when that step's chunk arrived (the receiving actor writes it) */
  sg_sem_t got;    /* released by the receiving actor at each arrival */
  sg_sem_t done;   /* released when the channel has sent and received every step (twice: both actors) */
} ring_channel;

/* Wait for a send of `bytes` between the connection's ends until it has landed at both. */
static void land(sg_comm_t send, ss_sock_end* ends, double bytes)
{
  sg_comm_wait(send);
  ss_sock_land(&ends[0], bytes);
  ss_sock_land(&ends[1], bytes);
}

/* A channel's receiving actor: its receives posted the window ahead, each arrival's date recorded. */
static void channel_recv_main(int argc, char** argv)
{
  (void)argc;
  (void)argv;
  ring_channel* ch = sg_actor_self_get_data();
  const ring_phase* ph = ch->ph;
  sg_mailbox_t in = inbox(&ch->s->ranks[ch->r], ph->kind, ch->c);
  sg_comm_t recvs[SS_NCCL_STEPS] = {NULL};
  int w = ss_nccl_window((double)ch->size);
  for (int k = 0; k < ph->steps && k < w; k++)
    recvs[k] = sg_mailbox_get_async(in, ch->data);
  for (int k = 0; k < ph->steps; k++) {
    int slot = k % w;
    sg_comm_wait(recvs[slot]);
    recvs[slot] = k + w < ph->steps ? sg_mailbox_get_async(in, ch->data) : NULL;
    ch->arrived[k] = simgrid_get_clock();
    sg_sem_release(ch->got);
  }
  sg_sem_release(ch->done);
}

static void channel_main(int argc, char** argv)
{
  (void)argc;
  (void)argv;
  ring_channel* ch = sg_actor_self_get_data();
  const ring_phase* ph = ch->ph;
  ss_rank* me = &ch->s->ranks[ch->r];
  int to = next(me, ph->kind, ch->c);
  sg_mailbox_t out = inbox(&ch->s->ranks[to], ph->kind, ch->c);
  sg_comm_t sends[SS_NCCL_STEPS] = {NULL};
  int w = ss_nccl_window((double)ch->size), g = ch->s->job->gpus_per_instance;
  /* The step's latency: of the hop out of the instance for the ring's hop that leaves it. */
  double bytes = (double)ch->size, lat = ch->r / g == to / g ? ph->lat : ph->lat_out;
  /* A connection's chunks go out one after the other (NCCL's FIFO of steps), each taking its ring's share
   * of the rings' rate (over all GPUs: the rings inside an instance and across instances keep the
   * step's latency apart): without that pace SimGrid would share the links among the chunks in flight and
   * end them together, each later than in order. */
  double rate = ph->kind == RING_GLOBAL ? ch->s->ring_rate : 0, pace = fmax(ph->lat, rate > 0 ? ph->bytes / rate : 0);
  /* The connection's two ends on the sockets' threads (exchange's comment). */
  ss_sock_end ends[2];
  ss_sock_open(ch->s, ch->r, to, 0, &ends[0]);
  ss_sock_open(ch->s, to, ch->r, 1, &ends[1]);
  double sent = simgrid_get_clock() + ph->call + lat;
  for (int k = 0; k < ph->steps; k++) {
    int slot = k % w;
    /* Step k's chunk is what step k-1 brought: it leaves the step's latency after that arrived, and
     * the GPU's latency of a step (ph->lat, its kernel's) or the chunk's time at the phase's rate,
     * whichever is longer, after the previous step left. */
    if (k > 0) {
      sg_sem_acquire(ch->got);
      sent = fmax(ch->arrived[k - 1] + lat, sent + pace);
    }
    if (sent > simgrid_get_clock())
      sg_actor_sleep_until(sent);
    /* The peer's slot of step k - w is free once that step's chunk has landed there. */
    if (sends[slot])
      land(sends[slot], ends, bytes);
    sends[slot] = sg_mailbox_put_async(out, &token, ch->size);
    ss_sock_post(&ends[0], bytes);
    ss_sock_post(&ends[1], bytes);
  }
  /* The last arrival, then the sends still in flight land oldest first: step steps - w + i is in slot
   * (steps - w + i) % w. */
  sg_sem_acquire(ch->got);
  for (int i = 0; i < w; i++) {
    int slot = (ph->steps + i) % w;
    if (sends[slot])
      land(sends[slot], ends, bytes);
  }
  sg_sem_release(ch->done);
}

static void ring_reference(ss_sim* s, int r, const ring_phase* ph, void** data)
{
  ring_channel ch[SS_TOPO_MAX_CHANNELS];
  int n = 0;
  sg_sem_t done = sg_sem_init(0);
  double* arrived = malloc(sizeof(double) * (size_t)nrings(s, ph->kind) * (size_t)ph->steps);
  if (!arrived)
    ss_nomem_exit("a ring's arrivals");
  for (int c = 0; c < nrings(s, ph->kind); c++) {
    long size = ring_bytes(s, ph, ph->bytes, c);
    if (size == 0)
      continue;
    ch[n] = (ring_channel){s, r, c, ph, size, &data[c], arrived + (size_t)c * (size_t)ph->steps, sg_sem_init(0), done};
    char name[48];
    snprintf(name, sizeof(name), "ring%d.%d", r, c);
    sg_actor_t a = sg_actor_init(name, s->ranks[r].host);
    sg_actor_set_data(a, &ch[n]);
    sg_actor_start(a, channel_main, 0, NULL);
    snprintf(name, sizeof(name), "ringin%d.%d", r, c);
    a = sg_actor_init(name, s->ranks[r].host);
    sg_actor_set_data(a, &ch[n++]);
    sg_actor_start(a, channel_recv_main, 0, NULL);
  }
  for (int i = 0; i < 2 * n; i++)
    sg_sem_acquire(done);
  for (int i = 0; i < n; i++)
    sg_sem_destroy(ch[i].got);
  sg_sem_destroy(done);
  free(arrived);
}

/* Run one ring phase on rank r. Reference: NCCL's pipelined ring, a channel actor per ring
 * (ring_reference). Fast: one exchange of all the steps' bytes per hop, then the phase's end by the
 * pipelined ring's longest path (ring_chain). With --ideal or --no-ring-pipeline, the lock-step ring
 * at both fidelities: the reference's `steps` exchanges of one chunk, each after the step's latency
 * and the previous exchange; the fast one exchange per hop, a barrier, then the call's latency,
 * every step's and the largest hop latency of the other steps-1 steps. All give call + steps x (alpha + lat + chunk /
 * bandwidth) on a homogeneous ring. */
static void ring_run(ss_sim* s, int r, const ring_phase* ph)
{
  if (ph->steps <= 0 || ph->bytes <= 0) {
    if (ph->tail + ph->call > 0)
      sg_actor_sleep_for(ph->tail + ph->call);
    return;
  }
  ss_rank* me = &s->ranks[r];
  sg_comm_t comms[2 * SS_TOPO_MAX_CHANNELS];
  void* data[SS_TOPO_MAX_CHANNELS];
  double t0 = simgrid_get_clock();
  ss_assert(nrings(s, ph->kind) <= SS_TOPO_MAX_CHANNELS);
  if (ph->net)
    watch_start(&me->net);
  double rest = 0; /* the latency of the steps after the first (fast fidelity) */
  if (s->job->opt.fidelity == SS_FIDELITY_REFERENCE && ss_job_ring_pipelined(s->job)) {
    ring_reference(s, r, ph, data);
  } else if (s->job->opt.fidelity == SS_FIDELITY_REFERENCE) {
    for (int step = 0; step < ph->steps; step++) {
      double wait = ph->lat + (step == 0 ? ph->call : 0);
      if (wait > 0)
        sg_actor_sleep_for(wait);
      exchange(s, r, ph, ph->bytes, comms, data, NULL);
    }
  } else if (!ph->chain) {
    exchange(s, r, ph, ph->bytes * ph->steps, comms, data, NULL);
    sg_barrier_wait(ph->bar);
    if (ph->steps > 1 && ph->alpha > 0)
      rest = (ph->steps - 1) * ph->alpha;
  } else {
    rest = ring_chain(s, r, ph, comms, data);
  }
  /* The protocol's step and call latencies (proto.c): the pipelined ring has them already. */
  if (s->job->opt.fidelity != SS_FIDELITY_REFERENCE && !ph->chain && (ph->lat > 0 || ph->call > 0))
    rest += ph->steps * ph->lat + ph->call;
  /* The protocol's cap: no faster than its floor, whatever the links (issue 39). */
  double short_of = t0 + ph->floor - simgrid_get_clock() - rest;
  if (short_of > SS_SIM_PRECISION_S)
    rest += short_of;
  /* Time in a phase that crosses instances is network time; the tail after it is not. */
  if (ph->net) {
    if (rest > 0)
      sg_actor_sleep_for(rest);
    watch_stop(&me->net);
    rest = 0;
  }
  if (rest + ph->tail > 0)
    sg_actor_sleep_for(rest + ph->tail);
}

/* Ring over all ranks: passes x (n-1) steps of S/n (S/n/eff on the wire): reduce-scatter, all-gather,
 * or both (allreduce). */
static void coll_ring(ss_sim* s, int r, int coll)
{
  const ss_proto_cost* pc = &s->coll_pc[coll];
  double bytes = s->coll_bytes[coll];
  int n = s->full->ngpus, steps = ss_cost_op_passes(s->coll_op[coll]) * (n - 1);
  ring_phase ph = {RING_GLOBAL,
                   steps,
                   bytes / n / pc->eff[SS_PHASE_GLOBAL],
                   s->bar_all,
                   s->alpha_global,
                   s->full->instances > 1,
                   s->coll_after_s[coll],
                   ss_job_ring_pipelined(s->job) ? ss_cost_ring_step_s(s->full, pc) : pc->step_s[SS_PHASE_GLOBAL],
                   pc->step_s[SS_PHASE_GLOBAL],
                   pc->call_s,
                   s->chain ? &s->chain[0] : NULL,
                   0,
                   phase_floor(pc, SS_PHASE_GLOBAL, steps, bytes / n, pc->call_s)};
  ring_run(s, r, &ph);
}

/* What runs across instances in a two-level collective: its per-call latency (call) when it
 * comes first, the framework's copies (tail) when it comes last. */
typedef void (*across_fn)(ss_sim* s, int r, int coll, double call, double tail);

/* The two-level algorithms: reduce-scatter inside the instance (g-1 steps of S/g), across(s, r,
 * coll) on the 1/g shard between instances, all-gather inside; a reduce-scatter ends across
 * instances, an all-gather starts there. */
static void two_level(ss_sim* s, int r, int coll, across_fn across)
{
  const ss_rank* me = &s->ranks[r];
  const ss_proto_cost* pc = &s->coll_pc[coll];
  ss_coll_op op = s->coll_op[coll];
  int g = s->job->gpus_per_instance, first_in = op != SS_OP_ALL_GATHER, last_in = op != SS_OP_REDUCE_SCATTER;
  ring_phase in = {RING_INTRA,
                   g - 1,
                   s->coll_bytes[coll] / g / pc->eff[SS_PHASE_INTRA],
                   s->bar_inst[me->inst],
                   s->alpha_intra,
                   0,
                   0,
                   pc->step_s[SS_PHASE_INTRA],
                   pc->step_s[SS_PHASE_INTRA],
                   pc->call_s,
                   s->chain ? &s->chain[1 + me->inst] : NULL,
                   0,
                   phase_floor(pc, SS_PHASE_INTRA, g - 1, s->coll_bytes[coll] / g, pc->call_s)};
  if (first_in)
    ring_run(s, r, &in);
  across(s, r, coll, first_in ? 0 : pc->call_s, last_in ? 0 : s->coll_after_s[coll]);
  if (last_in) {
    in.tail = s->coll_after_s[coll];
    in.call = 0;
    in.floor = phase_floor(pc, SS_PHASE_INTRA, g - 1, s->coll_bytes[coll] / g, 0);
    ring_run(s, r, &in);
  }
}

/* Across instances, hierarchical: the shard's collective on the ring of same-index GPUs (passes x
 * (m-1) steps of S/(g m)). */
static void ring_across(ss_sim* s, int r, int coll, double call, double tail)
{
  const ss_job* j = s->job;
  int g = j->gpus_per_instance, m = s->full->instances;
  const ss_rank* me = &s->ranks[r];
  const ss_proto_cost* pc = &s->coll_pc[coll];
  int steps = ss_cost_op_passes(s->coll_op[coll]) * (m - 1);
  /* A step moves S/(g m) on each of the g rings of an instance: S/m of the phase's bus. */
  ring_phase across = {RING_CROSS,
                       steps,
                       s->coll_bytes[coll] / g / m / pc->eff[SS_PHASE_CROSS],
                       s->bar_cross[me->local],
                       s->alpha_cross[me->local],
                       1,
                       tail,
                       pc->step_s[SS_PHASE_CROSS],
                       pc->step_s[SS_PHASE_CROSS],
                       call,
                       s->chain ? &s->chain[1 + j->instances + me->local] : NULL,
                       s->cross_hidden[(size_t)coll * (size_t)g + (size_t)me->local],
                       phase_floor(pc, SS_PHASE_CROSS, steps, s->coll_bytes[coll] / m, call)};
  ring_run(s, r, &across);
}

static void coll_hierarchical(ss_sim* s, int r, int coll)
{
  two_level(s, r, coll, ring_across);
}

/* One tree's share of a pipelined phase on one rank: where chunks come from, where they go. */
typedef struct tree_flow {
  int nsrc, ndst;
  sg_mailbox_t src[2];    /* this rank's inboxes the sources send to */
  sg_mailbox_t dst[2];    /* the destinations' inboxes */
  ss_sock_end ends[2][2]; /* each connection to a destination: its ends on the sockets' threads */
  int received[2];        /* chunks received from each source */
  int asked[2];           /* receives posted to each source */
  int sent;               /* chunks sent to every destination */
  int sending;            /* sends still in flight, to every destination together */
  int window;             /* chunks each connection may have in flight (its slots: ss_nccl_window) */
  double pace;            /* a chunk's time on the GPU's share of its NIC (ss_cost_tree_pace_s) */
  double next;            /* when its next chunk may leave: the previous one's pace after it left */
} tree_flow;

typedef struct pending {
  sg_comm_t comm;
  int tree;
  int src; /* source index for a receive, -1 for a send */
  int dst; /* destination index for a send */
} pending;

/* Destination `to` (a rank), at inbox mb: the sender accounts for both ends (exchange's comment). */
static void open_dst(const ss_sim* s, const ss_rank* me, tree_flow* f, int to, sg_mailbox_t mb)
{
  ss_sock_open(s, me->rank, to, 0, &f->ends[f->ndst][0]);
  ss_sock_open(s, to, me->rank, 1, &f->ends[f->ndst][1]);
  f->dst[f->ndst++] = mb;
}

static void tree_flow_init(ss_sim* s, const ss_rank* me, int t, int reduce, tree_flow* f)
{
  memset(f, 0, sizeof(*f));
  if (reduce) {
    for (int c = 0; c < 2; c++)
      if (me->tree_child[t][c] >= 0)
        f->src[f->nsrc++] = me->tree_inbox[t][c];
    if (me->tree_parent[t] >= 0)
      open_dst(s, me, f, me->tree_parent[t], s->ranks[me->tree_parent[t]].tree_inbox[t][me->tree_slot[t]]);
  } else {
    if (me->tree_parent[t] >= 0)
      f->src[f->nsrc++] = me->tree_inbox[t][2];
    for (int c = 0; c < 2; c++)
      if (me->tree_child[t][c] >= 0)
        open_dst(s, me, f, me->tree_child[t][c], s->ranks[me->tree_child[t][c]].tree_inbox[t][2]);
  }
}

/* A send of `bytes` to destination i begins, or has arrived: both ends of the connection. */
static void post_dst(tree_flow* f, int i, double bytes)
{
  ss_sock_post(&f->ends[i][0], bytes);
  ss_sock_post(&f->ends[i][1], bytes);
}
static void land_dst(tree_flow* f, int i, double bytes)
{
  ss_sock_land(&f->ends[i][0], bytes);
  ss_sock_land(&f->ends[i][1], bytes);
}

/* Whether chunk f->sent may leave: every source has delivered it and fewer than the window's chunks
 * are in flight. */
static int tree_can_send(const tree_flow* f, int k)
{
  if (f->sent >= k || f->ndst == 0 || f->sending >= f->window * f->ndst)
    return 0;
  for (int i = 0; i < f->nsrc; i++)
    if (f->received[i] <= f->sent)
      return 0;
  return 1;
}

/* Send the chunks that may leave to every destination, each once the previous one's time on the
 * link has passed (the connection's chunks leave one after the other, as NCCL's do, so that their
 * latencies overlap rather than their transfers share); returns the number of sends posted into p. */
static int tree_try_send(tree_flow* f, int t, int k, double chunk, pending* p)
{
  int n = 0;
  while (tree_can_send(f, k) && simgrid_get_clock() >= f->next - SS_SIM_PRECISION_S) {
    for (int i = 0; i < f->ndst; i++) {
      p[n++] = (pending){sg_mailbox_put_async(f->dst[i], &token, (long)llround(chunk)), t, -1, i};
      post_dst(f, i, (double)llround(chunk));
    }
    f->sending += f->ndst;
    f->sent++;
    f->next = simgrid_get_clock() + f->pace;
  }
  return n;
}

/* Post the receives from each source up to the window ahead of those received; returns how many
 * were posted into p. */
static int tree_try_receive(tree_flow* f, int t, int k, void** data, pending* p)
{
  int n = 0;
  for (int i = 0; i < f->nsrc; i++)
    while (f->asked[i] < k && f->asked[i] - f->received[i] < f->window) {
      p[n++] = (pending){sg_mailbox_get_async(f->src[i], data), t, i, -1};
      f->asked[i]++;
    }
  return n;
}

/* A rank's communications in flight in a tree phase: per tree, up to the window's chunks from each of
 * two sources and to each of two destinations. */
#define TREE_PENDING (2 * 4 * SS_NCCL_STEPS)

/* The transfers a rank receives per chunk step of a tree phase, both trees together: its children's in
 * a reduce, its parents' in a broadcast. */
static int tree_in_count(const ss_rank* me, int reduce)
{
  int n = 0;
  for (int t = 0; t < 2; t++)
    n += reduce ? (me->tree_child[t][0] >= 0) + (me->tree_child[t][1] >= 0) : me->tree_parent[t] >= 0;
  return n;
}

static int imax(int a, int b)
{
  return a > b ? a : b;
}
/* Reference fidelity: every chunk of both trees is a communication; a rank passes chunk i on
 * as soon as all its sources delivered it, up to the window's chunks in flight on each connection
 * (data flow, no lock step: the chunks' latencies overlap, as in NCCL's slots). */
static void tree_reference(ss_sim* s, int r, int reduce, int k, double chunk)
{
  tree_flow f[2];
  pending p[TREE_PENDING];
  void* data[1];
  int np = 0;
  for (int t = 0; t < 2; t++)
    tree_flow_init(s, &s->ranks[r], t, reduce, &f[t]);
  /* A flow's chunks leave at the pace of the busiest NIC direction it crosses: its rank's transfers of
   * a chunk step out (both trees'), or its destinations' in (ss_cost_tree_phase's count of the
   * transfers sharing a NIC). */
  int busy = f[0].ndst + f[1].ndst;
  for (int t = 0; t < 2; t++) {
    const ss_rank* me = &s->ranks[r];
    int to[2] = {reduce ? me->tree_parent[t] : me->tree_child[t][0], reduce ? -1 : me->tree_child[t][1]};
    for (int i = 0; i < 2; i++)
      if (to[i] >= 0)
        busy = imax(busy, tree_in_count(&s->ranks[to[i]], reduce));
  }
  for (int t = 0; t < 2; t++) {
    f[t].window = ss_cost_tree_window(s->full, chunk);
    f[t].pace = ss_cost_tree_pace_s(s->full, chunk) * busy;
    f[t].next = 0;
    np += tree_try_receive(&f[t], t, k, &data[0], p + np);
    np += tree_try_send(&f[t], t, k, chunk, p + np);
  }
  for (;;) {
    sg_comm_t comms[TREE_PENDING];
    for (int i = 0; i < np; i++)
      comms[i] = p[i].comm;
    /* The next chunk held back only by its predecessor's time on the link: until then, what has
     * arrived by that time is taken in (sg_comm_test) rather than waited for (sg_comm_wait_any_for
     * drops its comms' references when it times out, in SimGrid 3.32). */
    double wake = INFINITY;
    for (int t = 0; t < 2; t++)
      if (tree_can_send(&f[t], k))
        wake = fmin(wake, f[t].next);
    ssize_t done = -1;
    for (int i = 0; i < np && done < 0 && isfinite(wake); i++)
      if (sg_comm_test(comms[i]))
        done = i;
    if (done < 0 && np == 0 && !isfinite(wake))
      break;
    if (done < 0 && isfinite(wake) && wake > simgrid_get_clock() + SS_SIM_PRECISION_S)
      sg_actor_sleep_until(wake);
    else if (done < 0 && !isfinite(wake))
      done = sg_comm_wait_any(comms, (size_t)np);
    if (done >= 0) {
      ss_assert(done < np);
      pending d = p[done];
      p[done] = p[--np];
      tree_flow* ft = &f[d.tree];
      if (d.src >= 0) {
        ft->received[d.src]++;
        np += tree_try_receive(ft, d.tree, k, &data[0], p + np);
      } else {
        land_dst(ft, d.dst, (double)llround(chunk));
        ft->sending--;
      }
    }
    for (int t = 0; t < 2; t++)
      np += tree_try_send(&f[t], t, k, chunk, p + np);
    ss_assert(np <= TREE_PENDING);
  }
}

/* One pipelined tree phase on rank r: reduce (children to parent) or broadcast (parent to
 * children) of k chunks of `chunk` bytes over both trees at once. Fast: one transfer of all k
 * chunks per tree edge, a barrier, then the rest of span, the phase's time as the pipeline takes it
 * (ss_cost_tree_phase), so that the phase takes what the reference's chunks do on a homogeneous
 * platform. Both then wait the protocol's latency of the tree's levels (lat), and the phase
 * lasts at least floor from the rank's start (ss_cost_tree_floor: the protocol's cap). */
static void tree_run(ss_sim* s, int r, int reduce, int k, double chunk, double span, double lat, double floor)
{
  ss_rank* me = &s->ranks[r];
  double t0 = simgrid_get_clock();
  watch_start(&me->net);
  if (s->job->opt.fidelity == SS_FIDELITY_REFERENCE) {
    tree_reference(s, r, reduce, k, chunk);
    double wait = fmax(lat, t0 + floor - simgrid_get_clock());
    if (wait > SS_SIM_PRECISION_S)
      sg_actor_sleep_for(wait);
  } else {
    sg_comm_t comms[8];
    void* data[8];
    int n = 0;
    long size = (long)llround(chunk * k);
    tree_flow f[2];
    for (int t = 0; t < 2; t++) {
      tree_flow_init(s, me, t, reduce, &f[t]);
      for (int i = 0; i < f[t].nsrc; i++) {
        comms[n] = sg_mailbox_get_async(f[t].src[i], &data[n]);
        n++;
      }
      for (int i = 0; i < f[t].ndst; i++) {
        comms[n++] = sg_mailbox_put_async(f[t].dst[i], &token, size);
        post_dst(&f[t], i, (double)size);
      }
    }
    sg_comm_wait_all(comms, (size_t)n);
    for (int t = 0; t < 2; t++)
      for (int i = 0; i < f[t].ndst; i++)
        land_dst(&f[t], i, (double)size);
    me->tree_t0[reduce] = t0;
    sg_barrier_wait(s->bar_cross[me->local]);
    /* The phase ends `span` after its last rank began (its flows have taken part of it already:
     * those of GPUs whose routes are shorter got ahead, which span counts once, in what they hide). */
    double start = t0;
    for (int i = 0; i < s->job->instances; i++)
      start = fmax(start, s->ranks[i * s->job->gpus_per_instance + me->local].tree_t0[reduce]);
    double now = simgrid_get_clock(), wait = fmax(fmax(0, start + span - now) + lat, t0 + floor - now);
    if (wait > SS_SIM_PRECISION_S)
      sg_actor_sleep_for(wait);
  }
  watch_stop(&me->net);
}

/* Across instances, tree (allreduce only, in the middle of its two levels: no call, no tail):
 * reduce then broadcast of the shard over a double binary tree of the same-index GPUs of all
 * instances (each tree carrying half, pipelined in chunks). */
static void tree_across(ss_sim* s, int r, int coll, double call, double tail)
{
  ss_assert(call == 0 && tail == 0);
  if (s->full->instances > 1) {
    const ss_proto_cost* pc = &s->coll_pc[coll];
    int k = 0;
    double chunk = 0;
    ss_cost_tree_split(s->full, s->coll_bytes[coll], &k, &chunk);
    double floor = ss_cost_tree_floor(s->full, k, chunk, pc);
    chunk /= pc->eff[SS_PHASE_TREE];
    double lat = ss_topo_btree_depth(s->full->instances) * pc->step_s[SS_PHASE_TREE];
    const double* span = s->tree_span + (size_t)coll * 2;
    tree_run(s, r, 1, k, chunk, span[1], lat, floor);
    tree_run(s, r, 0, k, chunk, span[0], lat, floor);
  }
}

/* One half of the tree's work inside the instance of rank r (ss_cost_tree_intra), or both (halves 2:
 * the pipelined tree's, run at once), after the call's latency. */
static ring_phase tree_inside_phase(ss_sim* s, int r, int coll, int halves, double call)
{
  const ss_rank* me = &s->ranks[r];
  const ss_proto_cost* pc = &s->coll_pc[coll];
  int steps = 0;
  double payload = 0;
  ss_cost_tree_intra(s->full, s->coll_bytes[coll], pc, &steps, &payload);
  steps *= halves;
  ring_phase in = {RING_INTRA,
                   steps,
                   payload / pc->eff[SS_PHASE_INTRA],
                   s->bar_inst[me->inst],
                   s->alpha_intra,
                   0,
                   0,
                   ss_cost_tree_step_s(s->full, pc),
                   ss_cost_tree_step_s(s->full, pc),
                   call,
                   s->chain ? &s->chain[1 + me->inst] : NULL,
                   0,
                   phase_floor(pc, SS_PHASE_INTRA, steps, payload, call)};
  return in;
}

/* The pipelined tree's work inside an instance, on an actor of its own beside the rank's trees. */
typedef struct tree_inside {
  ss_sim* s;
  int r;
  ring_phase ph;
  sg_sem_t done;
} tree_inside;

static void tree_inside_main(int argc, char** argv)
{
  (void)argc;
  (void)argv;
  tree_inside* in = sg_actor_self_get_data();
  ring_run(in->s, in->r, &in->ph);
  sg_sem_release(in->done);
}

/* Tree allreduce (cost.c's cost_tree): the reduce half inside the instance, the two trees across
 * instances (tree_across), the broadcast half inside. In lock-step (--no-ring-pipeline, --ideal), on one
 * instance or with one GPU per instance, one after the other. Pipelined, as NCCL runs it by chunks: both
 * halves inside run on an actor of their own from the start, the trees once the first chunk is reduced
 * inside (the fill, ss_cost_tree_fill_s), and the collective ends when both have and the last chunk's
 * broadcast inside has followed the trees (the fill again), so that inside and across share the
 * time where their links do not. */
static void coll_tree(ss_sim* s, int r, int coll)
{
  const ss_proto_cost* pc = &s->coll_pc[coll];
  double tail = s->coll_after_s[coll];
  if (!ss_cost_tree_pipelined(s->full)) {
    ring_phase in = tree_inside_phase(s, r, coll, 1, pc->call_s);
    ring_run(s, r, &in);
    tree_across(s, r, coll, 0, 0);
    in = tree_inside_phase(s, r, coll, 1, 0);
    in.tail = tail;
    ring_run(s, r, &in);
    return;
  }
  if (pc->call_s > 0)
    sg_actor_sleep_for(pc->call_s);
  tree_inside in = {s, r, tree_inside_phase(s, r, coll, 2, 0), sg_sem_init(0)};
  char name[48];
  snprintf(name, sizeof(name), "tree_inside%d", r);
  sg_actor_t a = sg_actor_init(name, s->ranks[r].host);
  sg_actor_set_data(a, &in);
  sg_actor_start(a, tree_inside_main, 0, NULL);
  double fill = ss_cost_tree_fill_s(s->full, s->coll_bytes[coll], pc);
  if (fill > SS_SIM_PRECISION_S)
    sg_actor_sleep_for(fill);
  tree_across(s, r, coll, 0, 0);
  double end = simgrid_get_clock() + fill;
  sg_sem_acquire(in.done);
  sg_sem_destroy(in.done);
  /* The last chunk's broadcast inside after the trees, then the framework's copies (SimGrid takes no
   * sleep below its precision). */
  double wait = end - simgrid_get_clock();
  wait = (wait > SS_SIM_PRECISION_S ? wait : 0) + tail;
  if (wait > SS_SIM_PRECISION_S)
    sg_actor_sleep_for(wait);
}

typedef void (*coll_fn)(ss_sim* s, int r, int coll);

/* The algorithms, by ss_allreduce value (AUTO is resolved before a collective runs). */
static const coll_fn coll_fns[SS_ALLREDUCE_COUNT] = {
    [SS_ALLREDUCE_RING] = coll_ring,
    [SS_ALLREDUCE_HIERARCHICAL] = coll_hierarchical,
    [SS_ALLREDUCE_TREE] = coll_tree,
};

/* A shard group's collective (hybrid sharding): passes x (g-1) steps of S/g on the rings of the
 * rank's instance. */
static void coll_instance(ss_sim* s, int r, int coll)
{
  const ss_rank* me = &s->ranks[r];
  const ss_proto_cost* pc = &s->coll_pc[coll];
  int g = s->job->gpus_per_instance, steps = ss_cost_op_passes(s->coll_op[coll]) * (g - 1);
  ring_phase in = {RING_INTRA,
                   steps,
                   s->coll_bytes[coll] / g / pc->eff[SS_PHASE_INTRA],
                   s->bar_inst[me->inst],
                   s->alpha_intra,
                   0,
                   s->coll_after_s[coll],
                   pc->step_s[SS_PHASE_INTRA],
                   pc->step_s[SS_PHASE_INTRA],
                   pc->call_s,
                   s->chain ? &s->chain[1 + me->inst] : NULL,
                   0,
                   phase_floor(pc, SS_PHASE_INTRA, steps, s->coll_bytes[coll] / g, pc->call_s)};
  ring_run(s, r, &in);
}

/* All-to-all among all ranks (bench all-to-all): after the call's latency and the protocol's step,
 * this rank sends every other rank 1/n of its buffer and receives 1/n from each, all at once (NCCL's
 * grouped sends and receives), as flows on the routes between them (a2a.h gives their closed form). */
static void coll_alltoall(ss_sim* s, int r, int coll)
{
  const ss_proto_cost* pc = &s->coll_pc[coll];
  int n = s->job->ngpus;
  double eff = pc->eff[SS_PHASE_GLOBAL] > 0 ? pc->eff[SS_PHASE_GLOBAL] : 1;
  long size = (long)llround(s->coll_bytes[coll] / n / eff);
  if (size < 1)
    size = 1;
  ss_rank* me = &s->ranks[r];
  if (s->job->instances > 1)
    watch_start(&me->net);
  double wait = pc->call_s + pc->step_s[SS_PHASE_GLOBAL];
  if (wait > 0)
    sg_actor_sleep_for(wait);
  sg_comm_t* comms = malloc(sizeof(sg_comm_t) * 2 * (size_t)n);
  void** data = malloc(sizeof(void*) * (size_t)n);
  if (!comms || !data)
    ss_nomem_exit("an all-to-all's transfers");
  char name[32];
  int k = 0;
  for (int q = 1; q < n; q++) {
    int to = (r + q) % n; /* each rank starts with its next peer, as NCCL's schedule does */
    snprintf(name, sizeof(name), "a2a%d", to);
    comms[k++] = sg_mailbox_put_async(sg_mailbox_by_name(name), &token, size);
  }
  snprintf(name, sizeof(name), "a2a%d", r);
  sg_mailbox_t in = sg_mailbox_by_name(name);
  for (int q = 1; q < n; q++)
    comms[k++] = sg_mailbox_get_async(in, &data[q]);
  sg_comm_wait_all(comms, (size_t)k);
  free(comms);
  free(data);
  if (s->job->instances > 1)
    watch_stop(&me->net);
}

/* Whether collective c moves anything (one GPU, nothing to reduce, a scope of one GPU: no). */
static int moves(const ss_sim* s, int c)
{
  const ss_job* j = s->job;
  ss_coll_scope scope = s->coll_scope[c];
  int group = scope == SS_SCOPE_INSTANCE ? j->gpus_per_instance
              : scope == SS_SCOPE_CROSS  ? s->full->instances
                                         : j->ngpus;
  return group > 1 && s->coll_bytes[c] > 0;
}

void ss_coll_allreduce(ss_sim* s, int r, int c)
{
  ss_allreduce alg = s->coll_alg[c];
  if (!moves(s, c))
    return;
  if (s->coll_op[c] == SS_OP_ALL_TO_ALL) {
    coll_alltoall(s, r, c);
    return;
  }
  if (s->coll_scope[c] == SS_SCOPE_INSTANCE) {
    coll_instance(s, r, c);
    return;
  }
  if (s->coll_scope[c] == SS_SCOPE_CROSS) {
    ring_across(s, r, c, s->coll_pc[c].call_s, s->coll_after_s[c]);
    return;
  }
  ss_assert(alg > SS_ALLREDUCE_AUTO && alg < SS_ALLREDUCE_COUNT && coll_fns[alg] && ss_cost_op_has(s->coll_op[c], alg));
  coll_fns[alg](s, r, c);
}

static void bench(ss_sim* s, int r)
{
  for (int k = 0; k < s->bench_nsizes; k++) {
    sg_barrier_wait(s->bar_all);
    double t0 = simgrid_get_clock();
    for (int i = 0; i < s->bench_reps; i++)
      ss_coll_allreduce(s, r, k);
    sg_barrier_wait(s->bar_all);
    if (r == 0)
      s->bench_time_s[k] = (simgrid_get_clock() - t0) / s->bench_reps;
    if (s->progress && r == 0)
      fprintf(stderr, "\rstash-sim: size %d of %d%s", k + 1, s->bench_nsizes, k + 1 == s->bench_nsizes ? "\n" : "");
  }
}

/* Whether collective b, queued on rank me's stream, waits before it starts (Horovod's cycle, the
 * framework's host time on a background thread): the GPU's share is given back meanwhile. */
static int starts_later(const ss_sim* s, const ss_rank* me, int b)
{
  const ss_job* j = s->job;
  if (j->colls[b].kind != SS_CK_BUCKET)
    return 0;
  b = j->colls[b].index;
  const ss_ddp_framework* fw = ss_ddp_of(j->opt.ddp);
  if (fw->cycles && me->bwd_start_s + j->buckets[b].start_s - simgrid_get_clock() > SS_SIM_PRECISION_S)
    return 1;
  return fw->background && j->collective_host_s > 0;
}

void ss_coll_actor(ss_sim* s, const ss_actor_arg* a)
{
  ss_rank* me = &s->ranks[a->rank];
  const ss_job* j = s->job;
  if (s->bench_nsizes > 0) {
    bench(s, a->rank);
    return;
  }
  for (int i = 0; i < j->niters; i++)
    for (int b = 0; b < s->ncoll; b++) {
      sg_sem_acquire(me->pending);
      if (me->busy.on && (!moves(s, b) || starts_later(s, me, b)))
        busy_end(me);
      /* Horovod: a fusion starts at its cycle after backward began (ss_bucket.start_s); a
       * framework whose calls run on a background thread makes them on this stream. */
      const ss_coll_spec* spec = &j->colls[b];
      if (spec->kind == SS_CK_BUCKET && ss_ddp_of(j->opt.ddp)->cycles) {
        double at = me->bwd_start_s + j->buckets[spec->index].start_s;
        if (at - simgrid_get_clock() > SS_SIM_PRECISION_S)
          sg_actor_sleep_until(at);
      }
      if (spec->kind == SS_CK_BUCKET && ss_ddp_of(j->opt.ddp)->background && j->collective_host_s > 0)
        sg_actor_sleep_for(j->collective_host_s);
      double t0 = simgrid_get_clock();
      ss_straggler_arrive(s, a->rank, i, b, t0);
      /* The collective holds SMs and memory bandwidth of the GPU from its start to the end of the
       * framework's copies after it (coll_after_s): kernels too. */
      if (moves(s, b) && !me->busy.on)
        busy_begin(s, me);
      ss_coll_allreduce(s, a->rank, b); /* with the framework's copies after it (coll_after_s) */
      ss_straggler_reduced(s, a->rank, i, b, t0);
      if (s->trace) {
        char name[96], detail[128];
        ss_coll_name(j, b, name, sizeof(name));
        static const char* const scopes[] = {"", " in the instance", " across instances"};
        snprintf(detail, sizeof(detail), "%s%s%s%s, %.0f bytes", ss_allreduce_name(s->coll_alg[b]),
                 scopes[s->coll_scope[b]], j->resolved.call_cost ? " " : "",
                 j->resolved.call_cost ? ss_proto_name(s->coll_pc[b].proto) : "", s->coll_bytes[b]);
        ss_simtrace_rank(s, a->rank, SS_TRACK_COLL(me->local), name, "collective", t0, simgrid_get_clock() - t0,
                         detail);
      }
      sg_mutex_lock(me->mu);
      me->reduced++;
      sg_cond_notify_all(me->cv);
      sg_mutex_unlock(me->mu);
      /* Back-to-back collectives keep the GPU's share taken: one execution for the whole run of
       * them, not one per collective (the cost of 1024 GPUs with one allreduce per layer). */
      if (me->busy.on && sg_sem_would_block(me->pending))
        busy_end(me);
    }
}
