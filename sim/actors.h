/* actors: the simulation state shared by the engine and its actors (loader, trainer, coll). */
#ifndef SS_ACTORS_H
#define SS_ACTORS_H

#include "job.h"
#include "timeline.h"

#include <simgrid/actor.h>
#include <simgrid/cond.h>
#include <simgrid/disk.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/mutex.h>
#include <simgrid/semaphore.h>

/* One rank: its GPU, its data queue (filled by loader workers) and its collective stream. */
typedef struct ss_rank {
  int rank;
  sg_host_t host;
  sg_mutex_t mu;         /* guards the fields below */
  sg_cond_t cv;          /* signalled when a batch is ready, consumed, or a bucket is reduced */
  char* ready;           /* [iter]: the batch of that iteration is in the queue */
  double* batch_fetch_s; /* [iter]: storage time spent producing the batch */
  double* batch_prep_s;  /* [iter]: CPU time spent producing the batch */
  int consumed;          /* batches taken by the trainer */
  int reduced;           /* buckets whose collective has finished, over all iterations */
  sg_sem_t pending;      /* buckets submitted to the collective stream and not yet started */
  sg_mailbox_t* inbox;   /* [ring]: where the previous rank of each ring sends */
  int* next;             /* [ring]: the next rank in each ring */
} ss_rank;

typedef struct ss_sim {
  const ss_job* job;
  ss_timeline* tl;
  sg_host_t cpu;
  sg_disk_t disk;
  ss_rank* ranks;
  int actors_started;
  int actors_finished;
  double coll_bytes; /* collective benchmark: bytes of each allreduce; 0 in training runs */
  int coll_reps;     /* collective benchmark: repetitions */
  double* coll_end_s; /* collective benchmark: end date of each repetition on rank 0 */
} ss_sim;

/* Argument of every actor. */
typedef struct ss_actor_arg {
  ss_sim* sim;
  int rank;
  int worker;
} ss_actor_arg;

/* The training process of one rank (runs on its GPU host). */
void ss_trainer_actor(int argc, char** argv);

/* One DataLoader worker process of one rank (runs on the CPU host). */
void ss_loader_actor(int argc, char** argv);

/* Load the batch of iteration iter of rank: for each sample a storage read unless it is cached,
 * then CPU preparation on the CPU host; adds the time spent to *fetch_s and *prep_s. */
void ss_loader_batch(ss_sim* s, int rank, int iter, double* fetch_s, double* prep_s);

/* A batch is loaded in at most this many read-then-prepare steps (one per sample up to this size). */
#define SS_LOADER_STEPS 64

/* The collective stream of one rank (runs on its GPU host): reduces buckets in order. */
void ss_coll_actor(int argc, char** argv);

/* Ring allreduce of bytes among all ranks, run by rank r's collective stream. */
void ss_coll_allreduce(ss_sim* s, int r, double bytes);

#endif
