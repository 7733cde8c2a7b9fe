/* coll: collective algorithms on SimGrid communications (ring allreduce over the job's rings). */
#include "actors.h"

#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <math.h>
#include <stdlib.h>

/* Payload of every message: SimGrid rejects NULL payloads, and only sizes matter here. */
static char token;

void ss_coll_allreduce(ss_sim* s, int r, double bytes)
{
  const ss_rings* rings = &s->job->rings;
  int n = s->job->ngpus;
  if (n < 2 || bytes <= 0)
    return;
  ss_rank* me = &s->ranks[r];
  int nr = rings->nrings;
  sg_comm_t* comms = malloc(sizeof(sg_comm_t) * 2 * (size_t)nr);
  void** data = malloc(sizeof(void*) * (size_t)nr);
  ss_assert(comms && data);
  /* Reduce-scatter then allgather: 2(n-1) steps, each moving one chunk of S/n per ring to the next
   * rank. The rings of a step run together; a step ends when every chunk of it has arrived. */
  for (int step = 0; step < 2 * (n - 1); step++) {
    int k = 0;
    for (int c = 0; c < nr; c++) {
      long chunk = (long)llround(bytes * rings->rings[c].share / n);
      if (chunk <= 0)
        continue;
      comms[k++] = sg_mailbox_put_async(s->ranks[me->next[c]].inbox[c], &token, chunk);
      comms[k++] = sg_mailbox_get_async(me->inbox[c], &data[c]);
    }
    sg_comm_wait_all(comms, (size_t)k);
  }
  free(comms);
  free(data);
}

void ss_coll_actor(int argc, char** argv)
{
  (void)argc;
  (void)argv;
  ss_actor_arg* a = sg_actor_self_get_data();
  ss_sim* s = a->sim;
  ss_rank* me = &s->ranks[a->rank];
  if (s->coll_bytes > 0) {
    /* Collective benchmark: back-to-back allreduces, as nccl-tests does. */
    for (int i = 0; i < s->coll_reps; i++) {
      ss_coll_allreduce(s, a->rank, s->coll_bytes);
      if (a->rank == 0)
        s->coll_end_s[i] = simgrid_get_clock();
    }
  } else {
    for (int i = 0; i < s->job->niters; i++)
      for (int b = 0; b < s->job->nbuckets; b++) {
        sg_sem_acquire(me->pending);
        ss_coll_allreduce(s, a->rank, s->job->buckets[b].bytes);
        sg_mutex_lock(me->mu);
        me->reduced++;
        sg_cond_notify_all(me->cv);
        sg_mutex_unlock(me->mu);
      }
  }
  s->actors_finished++;
}
