/* sockcpu: the host CPU that NCCL's socket transport takes between instances (sockcpu.h). */
#include "sockcpu.h"

#include <math.h>

/* How long one polling execution could last (simulated seconds): far beyond any transfer, small
 * enough that the flops it leaves keep their precision (a 1 Gf core: 1e16 flops, ulp 2). */
#define POLL_S 1e7

void ss_sock_open(const ss_sim* s, int at, int peer, int recv, ss_sock_end* e)
{
  const ss_job* j = s->job;
  *e = (ss_sock_end){0};
  if (j->sock_threads <= 0 || s->ranks[at].inst == s->ranks[peer].inst)
    return;
  ss_assert(j->sock_threads <= SS_SOCK_MAX_THREADS);
  e->n = j->sock_threads;
  e->host = s->ranks[at].cpu;
  e->flops_per_byte = (recv ? j->sock_recv_flops_per_byte : j->sock_send_flops_per_byte) / e->n;
}

/* What each thread has done so far (the least of them: they run alike). */
static double done_flops(const ss_sock_end* e)
{
  if (e->amount <= 0)
    return e->base;
  double left = 0;
  for (int i = 0; i < e->n; i++)
    left = fmax(left, sg_exec_get_remaining(e->e[i]));
  return e->base + e->amount - left;
}

/* Start every thread on `amount` flops. */
static void run(ss_sock_end* e, double amount)
{
  e->amount = amount;
  for (int i = 0; i < e->n; i++) {
    e->e[i] = sg_actor_exec_init(amount);
    sg_exec_set_host(e->e[i], e->host);
    sg_exec_start(e->e[i]);
  }
}

/* Stop the threads' executions, their work so far counted. */
static void stop(ss_sock_end* e)
{
  if (e->amount <= 0)
    return;
  double done = done_flops(e);
  for (int i = 0; i < e->n; i++)
    sg_exec_cancel(e->e[i]);
  e->base = done;
  e->amount = 0;
}

void ss_sock_post(ss_sock_end* e, double bytes)
{
  if (e->n == 0)
    return;
  ss_assert(bytes >= 0);
  if (e->inflight++ == 0)
    run(e, POLL_S * sg_host_get_speed(e->host));
}

void ss_sock_land(ss_sock_end* e, double bytes)
{
  if (e->n == 0)
    return;
  ss_assert(e->inflight > 0);
  e->landed += bytes;
  double target = e->landed * e->flops_per_byte, owed = target - done_flops(e);
  /* The bytes are there; the kernel's work for them is not done yet: the threads go on with just
   * that, then poll again if more is in flight. */
  if (owed > SS_SIM_PRECISION_S * sg_host_get_speed(e->host)) {
    stop(e);
    run(e, owed);
    for (int i = 0; i < e->n; i++)
      sg_exec_wait(e->e[i]);
    e->base = target;
    e->amount = 0;
  }
  if (--e->inflight == 0)
    stop(e);
  else if (e->amount <= 0)
    run(e, POLL_S * sg_host_get_speed(e->host));
}
