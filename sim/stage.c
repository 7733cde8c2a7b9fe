/* stage: one data-parallel replica's GPUs under tensor and pipeline parallelism, on SimGrid. */
#include "stage.h"

#include "array.h"
#include "probe.h"
#include "trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>

/* What the stage actors share: each actor's mailboxes ([(k * 2 + dir) * v + chunk]: dir 0 the
 * activations of its chunk's forward, 1 the gradients of its backward), the barrier of the
 * optimizer step, and each actor's send dates ([k * 2 m v + op]: the payload of its sends, read by
 * the receiver to tell the bubble from the transfer). */
struct ss_stage_state {
  int n, ops;
  int w;     /* actors per stage */
  int* rank; /* [k]: the global rank actor k runs */
  sg_mailbox_t* inbox;
  sg_bar_t step;
  double* sent;
};

/* The most GPUs of an instance that share a NIC. */
#define SS_STAGE_MAX_MATES 64

/* Actors per stage: the GPUs that share a NIC (the fewest over the stages), so that the flows
 * between stages load each NIC as all the GPUs' flows would; the others of a stage run the same
 * passes at the same moments and are not simulated. */
static int per_stage(const ss_job* j)
{
  int w = j->gpus_per_instance, mates[SS_STAGE_MAX_MATES];
  for (int k = 0; k < j->mp.p; k++) {
    int n = ss_job_stage_nic_mates(j, k, mates, SS_STAGE_MAX_MATES);
    w = n < w ? n : w;
  }
  return w > 0 ? w : 1;
}

int ss_stage_actors(const ss_job* j)
{
  return j->mp.p * per_stage(j);
}

int ss_stage_gpu(const ss_sim* s, int k)
{
  return s->stage->rank[k];
}

int ss_stage_setup(ss_sim* s)
{
  const ss_mp* mp = &s->job->mp;
  struct ss_stage_state* st = calloc(1, sizeof(*st));
  if (!st)
    return SS_ENOMEM;
  s->stage = st;
  st->w = per_stage(s->job);
  st->n = mp->p * st->w;
  st->ops = 2 * mp->m * mp->v;
  st->inbox = calloc((size_t)st->n * 2 * (size_t)mp->v, sizeof(sg_mailbox_t));
  st->sent = calloc((size_t)st->n * (size_t)st->ops, sizeof(double));
  st->rank = calloc((size_t)st->n, sizeof(int));
  if (!st->inbox || !st->sent || !st->rank)
    return SS_ENOMEM;
  /* Actor k: of stage k / w, the (k % w)-th GPU behind the NIC of its tensor rank 0, replica 0. */
  for (int stage = 0; stage < mp->p; stage++) {
    int mates[SS_STAGE_MAX_MATES];
    ss_assert(ss_job_stage_nic_mates(s->job, stage, mates, SS_STAGE_MAX_MATES) >= st->w);
    for (int i = 0; i < st->w; i++)
      st->rank[stage * st->w + i] = mates[i];
  }
  for (int k = 0; k < st->n; k++)
    for (int dir = 0; dir < 2; dir++)
      for (int c = 0; c < mp->v; c++) {
        char name[64];
        snprintf(name, sizeof(name), "stage%d.%s.%d", k, dir ? "grad" : "act", c);
        st->inbox[((size_t)k * 2 + (size_t)dir) * (size_t)mp->v + (size_t)c] = sg_mailbox_by_name(name);
      }
  st->step = sg_barrier_init((unsigned)st->n);
  return SS_OK;
}

void ss_stage_free(ss_sim* s)
{
  struct ss_stage_state* st = s->stage;
  if (!st)
    return;
  if (st->step)
    sg_barrier_destroy(st->step);
  SS_FREE_ALL(st->inbox, st->sent, st->rank, st);
  s->stage = NULL;
}

/* The trace (--trace): the pipeline of replica 0, a track of passes and one of waits and collectives
 * per actor, in the stages' order. */
#define TRACE_PID 1
#define TRACK_PASSES(k) (1 + 2 * (k))
#define TRACK_COMM(k) (2 + 2 * (k))
#define TRACK_A2A(k) (1000000 + (k)) /* a mixture of experts' all-to-alls (their own track) */

void ss_stage_tracks(ss_sim* s)
{
  const ss_job* j = s->job;
  struct ss_stage_state* st = s->stage;
  char name[160];
  ss_trace_name(name, sizeof(name), "pipeline of data-parallel replica 0 (%d stages, tensor %d)", j->mp.p, j->mp.t);
  ss_trace_process(s->trace, TRACE_PID, name);
  for (int k = 0; k < st->n; k++) {
    int r = st->rank[k], g = j->gpus_per_instance;
    ss_trace_name(name, sizeof(name), "stage %d: GPU %d of instance %d", k / st->w, r % g, r / g);
    ss_trace_thread(s->trace, TRACE_PID, TRACK_PASSES(k), name, 2 * k);
    ss_trace_name(name, sizeof(name), "stage %d: GPU %d of instance %d, waits and collectives", k / st->w, r % g,
                  r / g);
    ss_trace_thread(s->trace, TRACE_PID, TRACK_COMM(k), name, 2 * k + 1);
    if (j->mp.moe_fwd_s && (j->mp.ep > 1 || j->mp.etp > 1)) {
      ss_trace_name(name, sizeof(name), "stage %d: GPU %d of instance %d, the experts' all-to-alls", k / st->w, r % g,
                    r / g);
      ss_trace_thread(s->trace, TRACE_PID, TRACK_A2A(k), name, 2 * k + 1);
    }
  }
}

/* A span on actor k's passes (comm 0) or waits track (comm 1), when there is a trace. */
static void span(ss_sim* s, int k, int comm, const char* name, ss_cat cat, double start_s, double dur_s)
{
  if (s->trace && dur_s > 0)
    ss_trace_span(s->trace, TRACE_PID, comm ? TRACK_COMM(k) : TRACK_PASSES(k), name, ss_cat_name(cat), start_s, dur_s,
                  NULL);
}

/* One actor's run: who it is, where its transfers go, and the time booked so far. */
typedef struct actor {
  ss_sim* s;
  const ss_mp* mp;
  struct ss_stage_state* st;
  int k, stage, inst, iter;
  double t; /* the last booking's date */
  /* The send in flight (at most one: each pass waits for the one before it), when it was posted,
   * whether it leaves the instance, and its name on the trace ("F3 to stage 2"). */
  sg_comm_t send;
  double send_posted;
  int send_cross;
  char send_name[48];
  double jitter;
  ss_rng rng;
} actor;

/* Sleep dt seconds, unless dt is within the clock's accuracy, where SimGrid would say so on the
 * standard error; the callers book the time the clock moved. */
static void sleep_for(double dt)
{
  if (dt > SS_SIM_PRECISION_S)
    sg_actor_sleep_for(dt);
}

/* Book the time since the last booking to cat (and detail d, when not SS_DETAIL_COUNT). */
static void book(actor* a, ss_cat cat, ss_detail d)
{
  double now = simgrid_get_clock(), dt = now - a->t;
  ss_timeline_add(a->s->tl, a->k, a->iter, cat, dt);
  if (d != SS_DETAIL_COUNT)
    ss_timeline_detail(a->s->tl, a->k, a->iter, d, dt);
  a->t = now;
}

/* Sleep dt seconds booked to cat, a span named name on the trace's waits track (passes: the compute). */
static void spend(actor* a, double dt, ss_cat cat, ss_detail d, const char* name)
{
  double t = a->t;
  sleep_for(dt);
  book(a, cat, d);
  span(a->s, a->k, cat != SS_CAT_COMPUTE, name, cat, t, a->t - t);
}

/* The actor of the same place among its stage's on virtual stage vs's device, and whether the
 * transfer to it leaves the instance. */
static int peer(const actor* a, int vs, int* cross)
{
  int k = (vs % a->mp->p) * a->st->w + a->k % a->st->w;
  *cross = a->st->rank[k] / a->s->job->gpus_per_instance != a->inst;
  return k;
}

static sg_mailbox_t inbox(const actor* a, int k, int dir, int chunk)
{
  return a->st->inbox[((size_t)k * 2 + (size_t)dir) * (size_t)a->mp->v + (size_t)chunk];
}

/* The send in flight has ended (its wait returned): its span on the trace's waits track, one per
 * transfer (the tests count them). */
static void sent(actor* a)
{
  if (!a->send)
    return;
  span(a->s, a->k, 1, a->send_name, a->send_cross ? SS_CAT_NETWORK : SS_CAT_INTERCONNECT, a->send_posted,
       simgrid_get_clock() - a->send_posted);
  a->send = NULL;
}

/* Run pass op (index o of the actor's order): receive its input from the neighbouring virtual stage
 * (waiting with it for the send still in flight), compute, and send its output on. */
static void pass(actor* a, const ss_pipe_op* op, int o)
{
  const ss_mp* mp = a->mp;
  int nv = mp->p * mp->v, vs = op->chunk * mp->p + a->stage;
  int from = op->bwd ? vs + 1 : vs - 1, to = op->bwd ? vs - 1 : vs + 1;
  int cross = a->send ? a->send_cross : 0;
  sg_comm_t comms[2];
  int n = 0;
  if (a->send)
    comms[n++] = a->send;
  void* data = NULL;
  if (from >= 0 && from < nv) {
    int c = 0;
    peer(a, from, &c);
    cross |= c;
    comms[n++] = sg_mailbox_get_async(inbox(a, a->k, op->bwd, op->chunk), &data);
  }
  if (n > 0) {
    sg_comm_wait_all(comms, (size_t)n);
    /* Until the input was sent, the stage had nothing to run: the bubble; then the transfer. */
    double now = simgrid_get_clock();
    double idle = data ? fmin(fmax(*(const double*)data - a->t, 0), now - a->t) : 0;
    double moving = now - a->t - idle;
    ss_cat link = cross ? SS_CAT_NETWORK : SS_CAT_INTERCONNECT;
    ss_timeline_add(a->s->tl, a->k, a->iter, SS_CAT_BUBBLE, idle);
    ss_timeline_add(a->s->tl, a->k, a->iter, link, moving);
    ss_timeline_detail(a->s->tl, a->k, a->iter, SS_DETAIL_P2P, moving);
    span(a->s, a->k, 0, "bubble", SS_CAT_BUBBLE, a->t, idle);
    span(a->s, a->k, 1, "between stages", link, a->t + idle, moving);
    a->t = now;
    sent(a);
  }
  /* The pass's kernels, the tensor-parallel collectives and the experts' all-to-alls it waits for:
   * one sleep, booked in three. */
  double work = (op->bwd ? mp->bwd_s[vs] : mp->fwd_s[vs]) * a->jitter;
  double wait = op->bwd ? mp->tp_bwd_s[vs] : mp->tp_fwd_s[vs];
  double a2a = mp->moe_fwd_s ? (op->bwd ? mp->moe_bwd_s[vs] : mp->moe_fwd_s[vs]) : 0;
  sleep_for(work + wait);
  /* Booked as the clock moved (a sleep below SimGrid's accuracy does not move it), in the
   * proportions asked for: the iteration's parts add up to its span. */
  double slept = simgrid_get_clock() - a->t;
  if (work + wait > 0) {
    a2a = slept * (a2a / (work + wait));
    work = slept * (work / (work + wait));
    wait = slept - work;
  }
  double tp = fmax(0, wait - a2a);
  ss_cat tp_cat = mp->tp_cross ? SS_CAT_NETWORK : SS_CAT_INTERCONNECT;
  ss_cat a2a_cat = mp->a2a_cross ? SS_CAT_NETWORK : SS_CAT_INTERCONNECT;
  ss_timeline_add(a->s->tl, a->k, a->iter, SS_CAT_COMPUTE, work);
  ss_timeline_add(a->s->tl, a->k, a->iter, tp_cat, tp);
  ss_timeline_detail(a->s->tl, a->k, a->iter, SS_DETAIL_TENSOR, tp);
  ss_timeline_add(a->s->tl, a->k, a->iter, a2a_cat, wait - tp);
  ss_timeline_detail(a->s->tl, a->k, a->iter, SS_DETAIL_A2A, wait - tp);
  if (a->s->trace) {
    char name[48];
    if (mp->v > 1)
      snprintf(name, sizeof(name), "%c%d.%d", op->bwd ? 'B' : 'F', op->micro, op->chunk);
    else
      snprintf(name, sizeof(name), "%c%d", op->bwd ? 'B' : 'F', op->micro);
    span(a->s, a->k, 0, name, SS_CAT_COMPUTE, a->t, work);
    span(a->s, a->k, 1, "tensor-parallel collectives", tp_cat, a->t + work, tp);
    if (wait - tp > 0)
      ss_trace_span(a->s->trace, TRACE_PID, TRACK_A2A(a->k), "all-to-all", ss_cat_name(a2a_cat), a->t + work + tp,
                    wait - tp, NULL);
  }
  a->t = simgrid_get_clock();
  if (to >= 0 && to < nv) {
    int k = peer(a, to, &a->send_cross);
    double* stamp = &a->st->sent[(size_t)a->k * (size_t)a->st->ops + (size_t)o];
    *stamp = a->t;
    a->send_posted = a->t;
    if (a->s->trace)
      snprintf(a->send_name, sizeof(a->send_name), "send %c%d to stage %d", op->bwd ? 'B' : 'F', op->micro, to % mp->p);
    a->send = sg_mailbox_put_async(inbox(a, k, op->bwd, to / mp->p), stamp, (long)llround(fmax(mp->p2p_bytes, 1)));
  }
}

void ss_stage_actor(ss_sim* s, const ss_actor_arg* arg)
{
  const ss_job* j = s->job;
  const ss_mp* mp = &j->mp;
  struct ss_stage_state* st = s->stage;
  actor a = {.s = s, .mp = mp, .st = st, .k = arg->rank, .stage = arg->rank / st->w, .jitter = 1};
  a.inst = st->rank[a.k] / j->gpus_per_instance;
  ss_rng_seed(&a.rng, (uint64_t)j->opt.seed, (uint64_t)st->rank[a.k]);
  /* Sends go as soon as posted: the receiver's mailboxes take them (NCCL's sends into the peer's
   * buffers; Megatron posts its receives with them). */
  for (int dir = 0; dir < 2; dir++)
    for (int c = 0; c < mp->v; c++)
      sg_mailbox_set_receiver(sg_mailbox_get_name(inbox(&a, a.k, dir, c)));
  double dp_exposed = fmax(0, mp->dp_s[a.stage] - mp->dp_hidden_s[a.stage]);
  ss_cat dp_cat = mp->dp_cross ? SS_CAT_NETWORK : SS_CAT_INTERCONNECT;
  int tied_end = mp->embed_s > 0 && (a.stage == 0 || a.stage == mp->p - 1);
  if (a.k == 0)
    ss_limit_track(s);
  for (int i = 0; i < j->niters; i++) {
    a.iter = i;
    a.t = simgrid_get_clock();
    double start = a.t;
    if (a.k == 0 && i == j->warmup)
      ss_limit_begin(s);
    a.jitter = j->opt.jitter > 0 ? ss_jitter_draw(&a.rng, j->opt.jitter) : 1;
    /* The passes one by one, not the order stored: it grows with the micro-batches. */
    for (int o = 0; o < a.st->ops; o++) {
      ss_pipe_op op;
      ss_assert(ss_pipe_op_at(mp->schedule, mp->p, mp->v, mp->m, a.stage, o, &op) == 0);
      pass(&a, &op, o);
    }
    if (a.send) {
      double t = a.t;
      ss_cat link = a.send_cross ? SS_CAT_NETWORK : SS_CAT_INTERCONNECT;
      sg_comm_wait(a.send);
      book(&a, link, SS_DETAIL_P2P);
      span(s, a.k, 1, "between stages", link, t, a.t - t);
      sent(&a);
    }
    /* The gradients: the data-parallel reduction's part not hidden under the last backward, and the
     * tied embeddings' allreduce between the first and last stage. */
    spend(&a, dp_exposed, dp_cat, SS_DETAIL_DATA, "data-parallel reduction (not hidden)");
    if (tied_end)
      spend(&a, mp->embed_s, mp->embed_cross ? SS_CAT_NETWORK : SS_CAT_INTERCONNECT, SS_DETAIL_DATA,
            "tied embeddings' allreduce");
    /* The step waits for every stage (the gradients' norm is reduced over the whole model): a stage
     * done early idles, the pipeline's drain. */
    double drain = a.t;
    sg_barrier_wait(a.st->step);
    book(&a, SS_CAT_BUBBLE, SS_DETAIL_COUNT);
    span(s, a.k, 0, "bubble (waiting for the step)", SS_CAT_BUBBLE, drain, a.t - drain);
    spend(&a, mp->opt_s[a.stage] * a.jitter, SS_CAT_COMPUTE, SS_DETAIL_COUNT, "optimizer step");
    spend(&a, mp->gather_s[a.stage], dp_cat, SS_DETAIL_DATA, "parameters' all-gather");
    ss_timeline_span(s->tl, a.k, i, start, a.t);
    if (a.k == 0 && i == j->warmup + j->iterations - 1)
      ss_limit_end(s);
    if (s->progress && a.k == 0)
      fprintf(stderr, "\rstash-sim: iteration %d of %d (simulated time %.3f s)%s", i + 1, j->niters,
              simgrid_get_clock(), i + 1 == j->niters ? "\n" : "");
  }
}
