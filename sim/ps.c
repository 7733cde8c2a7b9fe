/* ps: parameter servers: workers push each bucket's gradient to the server shards as backward
 * produces it, servers sum (synchronous) or apply (asynchronous) it on their CPU, and send the
 * parameters back. Messages go to mailboxes with a permanent receiver, so a transfer starts when
 * it is sent, whatever its receiver is doing, as over TCP. */
#include "actors.h"

#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <stdio.h>
#include <stdlib.h>

static void mailbox_name(char* buf, size_t size, const char* kind, int k)
{
  snprintf(buf, size, "ps.%s.%d", kind, k);
}

static sg_mailbox_t ps_mailbox(const char* kind, int k)
{
  char name[64];
  mailbox_name(name, sizeof(name), kind, k);
  return sg_mailbox_by_name(name);
}

void ss_ps_receive_here(const char* kind, int k)
{
  char name[64];
  mailbox_name(name, sizeof(name), kind, k);
  sg_mailbox_set_receiver(name);
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
  sg_comm_t c = sg_mailbox_put_init(s->ranks[r].ps_pull, &s->ps_msgs[(size_t)r * (size_t)j->ps_nparts + (size_t)p],
                                    (long)j->ps_part_bytes[p]);
  sg_comm_detach(c, NULL);
}

void ss_ps_server_actor(ss_sim* s, const ss_actor_arg* a)
{
  const ss_job* j = s->job;
  int k = a->worker, n = j->ngpus;
  ss_ps_receive_here("push", k);
  sg_mailbox_t inbox = ps_mailbox("push", k);
  long mine = 0;
  for (int p = 0; p < j->ps_nparts; p++)
    mine += j->ps_part_shard[p] == k;
  int* count = calloc((size_t)j->ps_nparts + 1, sizeof(int));
  ss_assert(count);
  for (long m = 0; m < mine * n * j->niters; m++) {
    const ss_ps_msg* msg = sg_mailbox_get(inbox);
    int p = msg->part;
    double bytes = j->ps_part_bytes[p];
    double t0 = simgrid_get_clock();
    server_work(s, bytes);
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

void ss_ps_push_actor(ss_sim* s, const ss_actor_arg* a)
{
  const ss_job* j = s->job;
  ss_rank* me = &s->ranks[a->rank];
  int most = 0;
  for (int b = 0; b < j->nbuckets; b++)
    if (j->ps_bucket_part0[b + 1] - j->ps_bucket_part0[b] > most)
      most = j->ps_bucket_part0[b + 1] - j->ps_bucket_part0[b];
  sg_comm_t* comms = calloc((size_t)most + 1, sizeof(sg_comm_t));
  ss_assert(comms);
  for (int i = 0; i < j->niters; i++)
    for (int b = 0; b < j->nbuckets; b++) {
      sg_sem_acquire(me->pending);
      double t0 = simgrid_get_clock();
      ss_straggler_arrive(s, a->rank, i, b, t0);
      /* A bucket goes to its shards at once, buckets one after the other, as from one stream. */
      int nc = 0;
      for (int p = j->ps_bucket_part0[b]; p < j->ps_bucket_part0[b + 1]; p++)
        comms[nc++] = sg_mailbox_put_async(ps_mailbox("push", j->ps_part_shard[p]),
                                           &s->ps_msgs[(size_t)a->rank * (size_t)j->ps_nparts + (size_t)p],
                                           (long)j->ps_part_bytes[p]);
      sg_comm_wait_all(comms, (size_t)nc);
      if (s->trace) {
        char name[64];
        snprintf(name, sizeof(name), "push bucket %d", b);
        ss_trace_rank(s, a->rank, SS_TRACK_COLL(me->local), name, "collective", t0, simgrid_get_clock() - t0, NULL);
      }
    }
  free(comms);
}

void ss_ps_pull_all(ss_sim* s, int r)
{
  for (int p = 0; p < s->job->ps_nparts; p++)
    sg_mailbox_get(s->ranks[r].ps_pull);
}

sg_mailbox_t ss_ps_pull_mailbox(int r)
{
  return ps_mailbox("pull", r);
}
