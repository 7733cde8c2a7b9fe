/* straggler: each rank's compute jitter per iteration, and the waits it causes where ranks
 * synchronise: the straggler detail of the interconnect and network stalls (docs/model.md,
 * "Stragglers"). */
#include "straggler.h"

#include "array.h"

#include <math.h>
#include <stdlib.h>

/* Whether arrivals are tracked: jitter on, and ranks that wait for each other (not ASGD). */
static int tracked(const ss_sim* s)
{
  const ss_job* j = s->job;
  return j->resolved.jitter > 0 && j->ngpus > 1 && s->bench_nsizes == 0 && s->ncoll > 0 &&
         !(j->opt.arch == SS_ARCH_PS && j->opt.async);
}

/* The simulated rank that stands for the cluster's rank r: GPU r % g of instance (r / g) % R. */
static int stand_in(int r, int g, int R)
{
  return r / g % R * g + r % g;
}

/* Identical instances simulated by fewer (engine.c): every rank of the cluster draws its factors
 * from its own stream, as in a run of all of them. Simulated rank (k, l) (instance k, GPU l) stands
 * for the cluster's ranks (i, l) with i % R == k, at their mean factor; but each iteration, for
 * each GPU index l, the slowest rank of index l in the whole cluster is simulated as itself on its
 * class's simulated rank, and the rest of its class joins the next instance's class. A late rank
 * delays the hops it takes part in, and which those are depends on its place in its instance (a
 * GPU whose hops are NVLink delays its ring less than one whose hop crosses the network): the
 * slowest of each place sets when the collectives end. A rank's waits are linear in its own
 * compute time, so a class's mean factor gives its ranks' mean breakdown (to first order in the
 * spread of the class). */
static void stand_ins(ss_sim* s)
{
  const ss_job* j = s->job;
  int n = s->full->ngpus, p = j->ngpus, g = j->gpus_per_instance, R = j->instances;
  ss_assert(p >= 2 && n > p);
  s->jitter_of = malloc((size_t)j->niters * (size_t)p * sizeof(double));
  ss_rng* rng = malloc((size_t)n * sizeof(ss_rng));
  double* sum = malloc((size_t)p * sizeof(double));
  int* count = malloc((size_t)p * sizeof(int));
  double* top = malloc((size_t)g * sizeof(double));
  int* slowest = malloc((size_t)g * sizeof(int));
  if (!s->jitter_of || !rng || !sum || !count || !top || !slowest)
    ss_nomem_exit("the stragglers' draws");
  for (int r = 0; r < n; r++)
    ss_rng_seed(&rng[r], (uint64_t)j->opt.seed, (uint64_t)r);
  for (int i = 0; i < j->niters; i++) {
    for (int q = 0; q < p; q++) {
      sum[q] = 0;
      count[q] = 0;
    }
    /* Each rank's draw goes to its class (rank r is GPU r % g of instance r / g). */
    for (int r = 0; r < n; r++) {
      double f = ss_jitter_draw(&rng[r], j->resolved.jitter);
      int q = stand_in(r, g, R), l = r % g;
      sum[q] += f;
      count[q]++;
      if (r < g || f > top[l]) {
        top[l] = f;
        slowest[l] = r;
      }
    }
    for (int l = 0; l < g; l++) {
      int q = stand_in(slowest[l], g, R), next = stand_in(q + g, g, R); /* the next instance's */
      sum[next] += sum[q] - top[l];
      count[next] += count[q] - 1;
      sum[q] = top[l];
      count[q] = 1;
    }
    double* out = s->jitter_of + (size_t)i * (size_t)p;
    for (int k = 0; k < p; k++) {
      ss_assert(count[k] > 0);
      out[k] = sum[k] / count[k];
      s->tl->weight[(size_t)k * (size_t)j->niters + (size_t)i] = count[k];
    }
  }
  free(rng);
  free(sum);
  free(count);
  free(top);
  free(slowest);
}

void ss_straggler_setup(ss_sim* s)
{
  const ss_job* j = s->job;
  for (int r = 0; r < j->ngpus; r++) {
    ss_rank* me = &s->ranks[r];
    ss_rng_seed(&me->rng, (uint64_t)j->opt.seed, (uint64_t)r);
    me->jitter = 1;
    me->grad_wait_since = INFINITY;
  }
  if (!tracked(s))
    return;
  if (j->ngpus < s->full->ngpus)
    stand_ins(s);
  s->arrive_last_s = calloc(2 * (size_t)s->ncoll, sizeof(double));
  s->arrive_iter = malloc(2 * (size_t)s->ncoll * sizeof(int));
  if (!s->arrive_last_s || !s->arrive_iter)
    ss_nomem_exit("the stragglers' arrival records");
  for (int k = 0; k < 2 * s->ncoll; k++)
    s->arrive_iter[k] = -1;
}

void ss_straggler_free(ss_sim* s)
{
  SS_FREE_ALL(s->arrive_last_s, s->arrive_iter, s->jitter_of);
  s->arrive_last_s = NULL;
  s->arrive_iter = NULL;
  s->jitter_of = NULL;
}

void ss_straggler_draw(ss_sim* s, int r, int iter)
{
  ss_rank* me = &s->ranks[r];
  if (s->jitter_of)
    me->jitter = s->jitter_of[(size_t)iter * (size_t)s->job->ngpus + (size_t)r];
  else
    me->jitter = ss_jitter_draw(&me->rng, s->job->resolved.jitter);
}

/* The slot of collective c of iteration iter. A rank reaches iteration iter + 2's collective c
 * only after every rank has finished iteration iter + 1's collectives, hence iteration iter's:
 * two slots per collective suffice. */
static size_t slot(const ss_sim* s, int iter, int c)
{
  return (size_t)(iter & 1) * (size_t)s->ncoll + (size_t)c;
}

void ss_straggler_arrive(ss_sim* s, int r, int iter, int c, double now)
{
  if (!s->arrive_last_s)
    return;
  size_t k = slot(s, iter, c);
  /* Actors run one at a time: no lock needed. */
  if (s->arrive_iter[k] != iter) {
    s->arrive_iter[k] = iter;
    s->arrive_last_s[k] = now;
  } else if (now > s->arrive_last_s[k]) {
    s->arrive_last_s[k] = now;
  }
  if (s->job->opt.arch == SS_ARCH_PS && c == s->job->nbuckets - 1)
    s->ranks[r].last_push_s = now;
}

void ss_straggler_reduced(ss_sim* s, int r, int iter, int c, double arrived)
{
  if (!s->arrive_last_s || c >= s->job->nbuckets)
    return;
  /* A synchronous collective ends on no rank before every rank has arrived: the slot holds the last
   * arrival. The stream waited for it from its own arrival; its trainer, from when it began waiting
   * for the gradients (INFINITY: not waiting, no straggler wait). A stream runs its collectives one
   * after the other, so these intervals do not overlap. */
  ss_rank* me = &s->ranks[r];
  size_t k = slot(s, iter, c);
  ss_assert(s->arrive_iter[k] == iter);
  double from = fmax(arrived, me->grad_wait_since);
  if (s->arrive_last_s[k] > from)
    me->strag_acc_s += s->arrive_last_s[k] - from;
}

void ss_straggler_wait_begin(ss_sim* s, int r, double now)
{
  ss_rank* me = &s->ranks[r];
  me->grad_wait_since = now;
  me->strag_acc_s = 0;
}

void ss_straggler_wait_end(ss_sim* s, int r, int iter, double wait)
{
  ss_rank* me = &s->ranks[r];
  double since = me->grad_wait_since;
  me->grad_wait_since = INFINITY;
  if (!s->arrive_last_s)
    return;
  double strag = me->strag_acc_s;
  /* Parameter servers (synchronous): a push does not wait for the others' pushes, the servers do:
   * the rank waits for the last one to begin pushing its last bucket, from its own push of it or
   * from when it began waiting, whichever is later. */
  if (s->job->opt.arch == SS_ARCH_PS) {
    size_t k = slot(s, iter, s->job->nbuckets - 1);
    ss_assert(s->arrive_iter[k] == iter);
    strag = fmax(0, s->arrive_last_s[k] - fmax(me->last_push_s, since));
  }
  strag = fmin(strag, wait);
  if (strag > 0)
    ss_timeline_detail(s->tl, r, iter, SS_DETAIL_STRAGGLER, strag);
}
