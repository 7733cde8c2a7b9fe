/* ps: parameter servers: workers push each bucket's gradient to the server shards as backward
 * produces it, servers sum (synchronous) or apply (asynchronous) it on their CPU, and send the
 * parameters back. Messages go to mailboxes with a permanent receiver, so a transfer starts when
 * it is sent, whatever its receiver is doing, as over TCP. With --ps-aggregate instance the GPUs
 * of an instance first reduce-scatter each bucket among themselves, each pushes and pulls its
 * 1/g share of every part, and they all-gather the parameters before the next step. */
#include "ps.h"

#include "array.h"
#include "simtrace.h"
#include "straggler.h"

#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <stdio.h>
#include <stdlib.h>

/* The mailbox ps.KIND.R.P: one per (rank, part) each way. */
static void mailbox_name(char* buf, size_t size, const char* kind, int r, int p)
{
  snprintf(buf, size, "ps.%s.%d.%d", kind, r, p);
}

void ss_ps_setup(ss_sim* s)
{
  const ss_job* j = s->job;
  size_t nm = (size_t)j->ngpus * (size_t)j->ps_nparts, ns = (size_t)j->opt.servers;
  char name[64];
  s->ps_push_mb = calloc(nm + 1, sizeof(sg_mailbox_t));
  s->ps_pull_mb = calloc(nm + 1, sizeof(sg_mailbox_t));
  if (!s->ps_push_mb || !s->ps_pull_mb)
    ss_nomem_exit("the parameter servers' mailboxes");
  for (size_t q = 0; q < nm; q++) {
    mailbox_name(name, sizeof(name), "push", s->ps_msgs[q].rank, s->ps_msgs[q].part);
    s->ps_push_mb[q] = sg_mailbox_by_name(name);
    mailbox_name(name, sizeof(name), "pull", s->ps_msgs[q].rank, s->ps_msgs[q].part);
    s->ps_pull_mb[q] = sg_mailbox_by_name(name);
  }
  /* A shard has at most one push per (rank, part) not taken yet: a rank pushes a part again only
   * after it pulled it back, which the shard sends after taking the push. */
  s->ps_fifo_cap = (long)nm + 1;
  s->ps_fifo = calloc(ns * (size_t)s->ps_fifo_cap, sizeof(*s->ps_fifo));
  s->ps_fifo_head = calloc(ns, sizeof(long));
  s->ps_fifo_len = calloc(ns, sizeof(long));
  s->ps_fifo_sem = calloc(ns, sizeof(sg_sem_t));
  if (!s->ps_fifo || !s->ps_fifo_head || !s->ps_fifo_len || !s->ps_fifo_sem)
    ss_nomem_exit("the parameter servers' queues");
  for (size_t k = 0; k < ns; k++)
    s->ps_fifo_sem[k] = sg_sem_init(0);
  if (j->ps_local > 1) {
    size_t n = (size_t)j->ngpus;
    s->ps_local_mb = calloc(2 * n + 1, sizeof(sg_mailbox_t));
    if (!s->ps_local_mb)
      ss_nomem_exit("the local rings' mailboxes");
    for (size_t r = 0; r < 2 * n; r++) {
      snprintf(name, sizeof(name), "ps.%s.%zu", r < n ? "rs" : "ag", r % n);
      s->ps_local_mb[r] = sg_mailbox_by_name(name);
    }
  }
}

void ss_ps_free(ss_sim* s)
{
  if (s->ps_fifo_sem)
    for (int k = 0; k < s->job->opt.servers; k++)
      sg_sem_destroy(s->ps_fifo_sem[k]);
  SS_FREE_ALL(s->ps_fifo_sem, s->ps_fifo, s->ps_fifo_head, s->ps_fifo_len, s->ps_push_mb, s->ps_pull_mb,
              s->ps_local_mb);
}

void ss_ps_receive_pulls(ss_sim* s, int r)
{
  char name[64];
  for (int p = 0; p < s->job->ps_nparts; p++) {
    mailbox_name(name, sizeof(name), "pull", r, p);
    sg_mailbox_set_receiver(name);
  }
}

/* Shard k becomes the permanent receiver of the pushes of its parts. */
static void receive_pushes(const ss_sim* s, int k)
{
  const ss_job* j = s->job;
  char name[64];
  for (int r = 0; r < j->ngpus; r++)
    for (int p = 0; p < j->ps_nparts; p++)
      if (j->ps_part_shard[p] == k) {
        mailbox_name(name, sizeof(name), "push", r, p);
        sg_mailbox_set_receiver(name);
      }
}

/* Send msg's push to its shard k: queued in the order of sending, then the transfer starts. */
static sg_comm_t push(ss_sim* s, int k, const ss_ps_msg* msg)
{
  size_t q = (size_t)msg->rank * (size_t)s->job->ps_nparts + (size_t)msg->part;
  ss_assert(s->ps_fifo_len[k] < s->ps_fifo_cap);
  long at = (s->ps_fifo_head[k] + s->ps_fifo_len[k]++) % s->ps_fifo_cap;
  s->ps_fifo[(size_t)k * (size_t)s->ps_fifo_cap + (size_t)at] = msg;
  sg_comm_t c = sg_mailbox_put_async(s->ps_push_mb[q], (void*)msg,
                                     (long)(s->job->ps_part_bytes[msg->part] / s->job->ps_local));
  sg_sem_release(s->ps_fifo_sem[k]);
  return c;
}

/* The next push shard k was sent, once it has arrived. */
static const ss_ps_msg* take_push(ss_sim* s, int k)
{
  sg_sem_acquire(s->ps_fifo_sem[k]);
  const ss_ps_msg* msg = s->ps_fifo[(size_t)k * (size_t)s->ps_fifo_cap + (size_t)s->ps_fifo_head[k]];
  s->ps_fifo_head[k] = (s->ps_fifo_head[k] + 1) % s->ps_fifo_cap;
  s->ps_fifo_len[k]--;
  size_t q = (size_t)msg->rank * (size_t)s->job->ps_nparts + (size_t)msg->part;
  return sg_mailbox_get(s->ps_push_mb[q]);
}

/* CPU work of summing or applying bytes of gradient on the calling actor's host (one core). */
static void server_work(const ss_sim* s, double bytes)
{
  double seconds = bytes / (s->job->opt.server_agg_gbytes_per_s * 1e9);
  if (seconds > 0)
    sg_actor_execute(seconds * sg_host_get_speed(sg_host_self()));
}

/* Send part p of the parameters to rank r, without waiting: the transfer goes on by itself. */
static void send_pull(ss_sim* s, int r, int p)
{
  const ss_job* j = s->job;
  sg_comm_t c = sg_mailbox_put_init(s->ps_pull_mb[(size_t)r * (size_t)j->ps_nparts + (size_t)p],
                                    &s->ps_msgs[(size_t)r * (size_t)j->ps_nparts + (size_t)p],
                                    (long)(j->ps_part_bytes[p] / j->ps_local));
  sg_comm_detach(c, NULL);
}

void ss_ps_server_actor(ss_sim* s, const ss_actor_arg* a)
{
  const ss_job* j = s->job;
  int k = a->worker, n = j->ngpus;
  receive_pushes(s, k);
  long mine = 0;
  for (int p = 0; p < j->ps_nparts; p++)
    mine += j->ps_part_shard[p] == k;
  int* count = calloc((size_t)j->ps_nparts + 1, sizeof(int));
  if (!count)
    ss_nomem_exit("a parameter server's counts");
  for (long m = 0; m < mine * n * j->niters; m++) {
    const ss_ps_msg* msg = take_push(s, k);
    int p = msg->part;
    double bytes = j->ps_part_bytes[p];
    double t0 = simgrid_get_clock();
    server_work(s, bytes / j->ps_local);
    if (s->trace) {
      char name[64];
      snprintf(name, sizeof(name), "%s part %d of GPU %d", j->opt.async ? "apply" : "sum", p, msg->rank);
      ss_trace_span(s->trace, j->instances + 1, k + 1, name, "server", t0, simgrid_get_clock() - t0, NULL);
    }
    if (j->opt.async) {
      /* ASGD: the push is applied at once; its staleness is the updates others made to this part
       * since its worker last pulled it. */
      long* seen = &s->ps_seen[(size_t)msg->rank * (size_t)j->ps_nparts + (size_t)p];
      long stale = s->ps_version[p] - *seen;
      s->tl->ps_staleness_sum += (double)stale;
      s->tl->ps_updates++;
      s->tl->rank_staleness_sum[msg->rank] += (double)stale;
      s->tl->rank_updates[msg->rank]++;
      if (stale > s->tl->ps_staleness_max)
        s->tl->ps_staleness_max = stale;
      *seen = ++s->ps_version[p];
      send_pull(s, msg->rank, p);
    } else if (++count[p] == n) {
      /* Every worker's gradient is in: apply the sum, then everyone pulls the parameters. */
      count[p] = 0;
      server_work(s, bytes);
      for (int r = 0; r < n; r++)
        send_pull(s, r, p);
    }
  }
  free(count);
}

/* A ring among the ps_local GPUs of rank r's instance, in lock-step: g - 1 steps, each GPU sending
 * bytes / g to the next and taking the previous one's from its inbox (mbs[r]): a reduce-scatter or
 * an all-gather of bytes, whose traffic is the same. */
static void local_ring(ss_sim* s, int r, double bytes, const sg_mailbox_t* mbs)
{
  int g = s->job->ps_local, me = s->ranks[r].local, first = r - me;
  if (g < 2 || bytes <= 0)
    return;
  for (int step = 0; step < g - 1; step++) {
    sg_comm_t c = sg_mailbox_put_async(mbs[first + (me + 1) % g], &s->ranks[r], (long)(bytes / g));
    sg_mailbox_get(mbs[r]);
    sg_comm_wait(c);
  }
}

void ss_ps_push_actor(ss_sim* s, const ss_actor_arg* a)
{
  const ss_job* j = s->job;
  ss_rank* me = &s->ranks[a->rank];
  int most = 0;
  for (int b = 0; b < j->nbuckets; b++)
    if (j->ps_bucket_part0[b + 1] - j->ps_bucket_part0[b] > most)
      most = j->ps_bucket_part0[b + 1] - j->ps_bucket_part0[b];
  sg_comm_t* comms = calloc((size_t)most + 1, sizeof(sg_comm_t));
  if (!comms)
    ss_nomem_exit("a worker's pushes");
  for (int i = 0; i < j->niters; i++)
    for (int b = 0; b < j->nbuckets; b++) {
      sg_sem_acquire(me->pending);
      double t0 = simgrid_get_clock();
      ss_straggler_arrive(s, a->rank, i, b, t0);
      if (j->ps_local > 1) { /* the instance's GPUs reduce-scatter the bucket first */
        double bucket = 0;
        for (int p = j->ps_bucket_part0[b]; p < j->ps_bucket_part0[b + 1]; p++)
          bucket += j->ps_part_bytes[p];
        local_ring(s, a->rank, bucket, s->ps_local_mb);
      }
      /* A bucket goes to its shards at once, buckets one after the other, as from one stream. */
      int nc = 0;
      for (int p = j->ps_bucket_part0[b]; p < j->ps_bucket_part0[b + 1]; p++)
        comms[nc++] = push(s, j->ps_part_shard[p], &s->ps_msgs[(size_t)a->rank * (size_t)j->ps_nparts + (size_t)p]);
      sg_comm_wait_all(comms, (size_t)nc);
      if (s->trace) {
        char name[64];
        snprintf(name, sizeof(name), "push bucket %d", b);
        ss_simtrace_rank(s, a->rank, SS_TRACK_COLL(me->local), name, "collective", t0, simgrid_get_clock() - t0, NULL);
      }
    }
  free(comms);
}

void ss_ps_pull_all(ss_sim* s, int r)
{
  for (int p = 0; p < s->job->ps_nparts; p++)
    sg_mailbox_get(s->ps_pull_mb[(size_t)r * (size_t)s->job->ps_nparts + (size_t)p]);
}

void ss_ps_gather_local(ss_sim* s, int r)
{
  const ss_job* j = s->job;
  if (j->ps_local < 2)
    return;
  double bytes = 0;
  for (int p = 0; p < j->ps_nparts; p++)
    bytes += j->ps_part_bytes[p];
  local_ring(s, r, bytes, s->ps_local_mb + j->ngpus);
}
