/* actors: the simulation state shared by the engine and its actors (loader, trainer, coll). */
#ifndef SS_ACTORS_H
#define SS_ACTORS_H

#include "job.h"
#include "proto.h"
#include "rng.h"
#include "timeline.h"
#include "trace.h"

#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/cond.h>
#include <simgrid/disk.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/mutex.h>
#include <simgrid/semaphore.h>

/* What a host thread did from when to when: intervals in time order, adjacent ones of one
 * category merged; the GPU books its waits for the host by them (host.c). */
typedef struct ss_hostspan {
  double start_s, end_s;
  ss_cat cat;
} ss_hostspan;
typedef struct ss_hostlog {
  ss_hostspan* spans;
  size_t head, n, cap; /* spans[head..n) not yet consumed */
} ss_hostlog;

/* SimGrid's numerical precision for dates (its default surf/precision): shorter sleeps are noise. */
#define SS_SIM_PRECISION_S 1e-9

/* Segments the host may have begun issuing beyond those the GPU finished. */
#define SS_HOST_RING 512

/* Time spent in some state, read at any moment: acc_s so far, plus now - since while on. */
typedef struct ss_stopwatch {
  int on;
  double since;
  double acc_s;
} ss_stopwatch;

/* One rank: its GPU, its data queue (filled by loader workers) and its collective stream. */
typedef struct ss_rank {
  int rank;
  int inst;     /* instance */
  int local;    /* GPU index inside the instance */
  sg_host_t host;
  sg_host_t cpu;   /* the CPU host of its instance */
  sg_disk_t disk;
  sg_mutex_t mu;         /* guards the fields below */
  sg_cond_t cv;          /* signalled when a batch is ready, consumed, or a bucket is reduced */
  char* ready;           /* [iter]: the batch of that iteration is in the queue */
  double* batch_fetch_s; /* [iter]: storage time spent producing the batch */
  double* batch_prep_s;  /* [iter]: CPU time spent producing the batch */
  int consumed;          /* batches taken by the trainer */
  int reduced;           /* buckets whose collective has finished, over all iterations */
  sg_sem_t pending;      /* buckets submitted to the collective stream and not yet started */
  sg_mailbox_t* inbox;   /* [ring]: where the previous rank of each global ring sends */
  int* next;             /* [ring]: the next rank in each global ring */
  sg_mailbox_t* intra_inbox; /* [ring]: the same for the rings inside the instance */
  int* intra_next;
  sg_mailbox_t cross_inbox;  /* where the same GPU of the previous instance sends */
  int cross_next;
  /* Double binary tree over the same GPU of every instance (tree allreduce): for each tree, the
   * parent and children ranks (-1: none), this rank's slot (0 or 1) among its parent's children,
   * and its inboxes: [tree][0..1] from each child, [tree][2] from the parent. */
  int tree_parent[2];
  int tree_child[2][2];
  int tree_slot[2];
  sg_mailbox_t tree_inbox[2][3];
  /* Time its collectives spent in phases that cross instances, for splitting the trainer's wait
   * between network and interconnect. */
  ss_stopwatch net;
  /* Fast rings whose hops differ (coll.c): the latency of this rank's hop out, per ring kind
   * (global, inside the instance, across instances), and the parity of its next phase of each. */
  double hop_alpha[3];
  int phase_parity[3];
  /* The time a collective runs on its GPU, and the executions that take the collective's share of
   * the GPU meanwhile (job.interference > 0). */
  ss_stopwatch busy;
  sg_exec_t intf[SS_MAX_INTERFERENCE];
  int nintf;
  /* The host thread (host.c) and the GPU stream (trainer.c), when the host side is simulated
   * (ss_job.host). Segments (ss_segment) are counted over all iterations; guarded by mu, signalled
   * on seg_cv (not cv, which every reduced bucket signals). */
  long seg_started;     /* segments the host has begun issuing */
  long seg_issued;      /* ... has finished issuing */
  long seg_done;        /* segments the GPU has finished */
  double launches_issued; /* kernel launches issued and finished (the launch queue) */
  double launches_done;
  double* seg_start_s;  /* [SS_HOST_RING]: when the host began / finished issuing segment k % ring */
  double* seg_end_s;
  ss_hostlog log;       /* what the host thread did when (for the GPU's waits on it) */
  sg_cond_t seg_cv;     /* signalled when one of the counters above changes and someone waits */
  int seg_waiters;      /* host or GPU blocked on seg_cv (else no notify) */
  double bwd_start_s;   /* when the GPU began this iteration's backward (Horovod's cycles) */
  /* Stragglers (straggler.c, docs/model.md): this rank's random stream, the factor on its compute
   * this iteration, when its trainer began waiting for the gradients (INFINITY when it is not
   * waiting), the waits of its collectives for the last rank to arrive, summed inside such waits,
   * and (parameter servers) when it began pushing its last bucket. */
  ss_rng rng;
  double jitter;
  double grad_wait_since;
  double strag_acc_s;
  double last_push_s;
} ss_rank;

/* A parameter-server message: whose gradient (rank) and which part of the parameters. */
typedef struct ss_ps_msg {
  int rank;
  int part;
} ss_ps_msg;

typedef struct ss_sim {
  /* The job simulated: the cluster's, or with identical instances (ss_job_sim_instances)
   * a copy with fewer of them; full is the cluster's, whose GPU and instance counts give the
   * collectives' steps and sizes. */
  const ss_job* job;
  const ss_job* full;
  int progress; /* rank 0 writes each iteration's (bench: size's) end on standard error (a terminal, a long run) */
  ss_timeline* tl;
  ss_rank* ranks;
  sg_bar_t bar_all;     /* all ranks */
  sg_bar_t* bar_inst;   /* [instance]: its GPUs */
  sg_bar_t* bar_cross;  /* [local GPU]: that GPU of every instance */
  double alpha_global;  /* largest latency of a hop of the global rings (s) */
  double alpha_intra;   /* ... of the rings inside an instance */
  double* alpha_cross;  /* [local GPU]: latency of the hop from that GPU to the same GPU of the next instance */
  /* Fast rings whose hops differ, unless --ideal (coll.c): for each group of ranks that runs phases
   * together ([0] all, [1 + instance] one instance's, [1 + instances + local] one GPU index's
   * across instances), two dates by parity; NULL: every phase costs steps x the largest latency. */
  double (*phase_end)[2];
  /* The collectives of the run, [bucket] in training, [size] in the benchmark: their bytes, their
   * algorithm (AUTO resolved), and for the tree, the sleep that completes each fast phase (reduce,
   * broadcast) to the step-by-step pipeline (ss_cost_tree_phase). */
  int ncoll;
  double* coll_bytes;
  ss_allreduce* coll_alg;
  double* coll_after_s; /* the stream's time after it: the framework's copies back (scale, unflatten) */
  /* With compute jitter (straggler.c): for collective c of iteration i, at [(i % 2) * ncoll + c],
   * the latest date a rank arrived at it and i (two iterations in flight at most); NULL without. */
  double* arrive_last_s;
  int* arrive_iter;
  double* jitter_of; /* identical instances simulated by fewer: [iter * ranks + rank], its factor (straggler.c) */
  ss_coll_op* coll_op; /* each collective's operation: allreduce, reduce-scatter or all-gather */
  ss_coll_scope* coll_scope; /* the GPUs it runs among: all, each instance's, or same-index across */
  double* tree_rest; /* [(coll * 2 + reduce) * gpus per instance + GPU]: a fast tree phase's time after its flows */
  double* cross_hidden; /* [coll * gpus per instance + GPU]: latency its transfers across instances hide (cost.c) */
  ss_proto_cost* coll_pc; /* its protocol: per-call and per-step latencies, efficiency (cost.c) */
  /* Parameter servers: the hosts of the shards' hosts ([ps_hosts]), one message per (rank, part),
   * and for ASGD the updates applied to each part and the version each rank last pulled. */
  sg_host_t* ps_host;
  ss_ps_msg* ps_msgs;
  /* One mailbox per (rank, part) each way, [rank * ps_nparts + part], so that no mailbox holds more
   * than a message or two: SimGrid's receive erases from the front of a mailbox's queue, a copy of
   * the whole queue, which made one mailbox per rank quadratic in the number of parts. Each shard
   * takes the pushes in the order they were sent (its queue ps_fifo, ps_fifo_cap entries from
   * ps_fifo_head, ps_fifo_len of them, posted to ps_fifo_sem), as from one mailbox. */
  sg_mailbox_t* ps_push_mb;
  sg_mailbox_t* ps_pull_mb;
  const ss_ps_msg** ps_fifo;
  long* ps_fifo_head;
  long* ps_fifo_len;
  long ps_fifo_cap;
  sg_sem_t* ps_fifo_sem;
  long* ps_version;
  long* ps_seen;
  /* Start-up reads (--init-io sequential): whose turn it is. */
  sg_mutex_t init_mu;
  sg_cond_t init_cv;
  int init_turn;
  ss_trace* trace; /* --trace, else NULL */
  void* probe;     /* the links' counters, for the trace and the run's limit (engine.c) */
  /* The measured window of rank 0 (ss_limit_begin, ss_limit_end), its dates, and the work each
   * instance's CPU ([instance]: core-seconds) and disk (bytes read) did within it. */
  int window; /* 0 before it, 1 in it, 2 after it */
  double window_begin_s;
  double window_end_s;
  double* cpu_work_s;
  double* disk_bytes;
  double* loader_busy_s; /* [instance]: the loaders' time preparing (their executions' durations) */
  int actors_started;
  int actors_finished;
  /* Collective benchmark (bench_nsizes > 0; no training): for each size, bench_reps back-to-back
   * allreduces between two barriers; bench_time_s[k] receives the mean time of one. */
  int bench_nsizes;
  const double* bench_bytes;
  int bench_reps;
  double* bench_time_s;
} ss_sim;

/* Argument of every actor: its simulation, rank (or shard) and worker, and its body, which the
 * engine's one actor entry runs and then counts as finished (a run is complete when all are). */
typedef struct ss_actor_arg ss_actor_arg;
typedef void (*ss_actor_body)(ss_sim* s, const ss_actor_arg* a);
struct ss_actor_arg {
  ss_sim* sim;
  int rank;
  int worker;
  ss_actor_body body;
};

/* The training process of one rank (runs on its GPU host). */
void ss_trainer_actor(ss_sim* s, const ss_actor_arg* a);

/* One DataLoader worker process of one rank (runs on the CPU host). */
void ss_loader_actor(ss_sim* s, const ss_actor_arg* a);

/* Load the batch of iteration iter of rank: for each sample a storage read unless it is cached,
 * then CPU preparation on the CPU host; adds the time spent to *fetch_s and *prep_s. worker is the
 * loader worker doing it, -1 for the training process (its trace track). */
void ss_loader_batch(ss_sim* s, int rank, int iter, int worker, double* fetch_s, double* prep_s);

/* Trace tracks: process 1 + instance; in it, per GPU k, its training process, its collective (or
 * push) stream and its loader workers; parameter servers in the process after the instances. */
#define SS_TRACK_TRAINER(k) (1 + 4 * (k))
#define SS_TRACK_COLL(k) (2 + 4 * (k))
#define SS_TRACK_HOST(k) (3 + 4 * (k))
#define SS_TRACK_LOADER(k, w) (100000 + 1000 * (k) + (w))
#define SS_TRACK_INPROCESS 999 /* the loader "worker" of a training process that loads itself */

/* The trace's link-use counters since the previous call (rank 0's training process calls it at
 * each step of its iteration: sampling adds no event to the simulation). */
void ss_trace_links(ss_sim* s);

/* The measured window (docs/model.md, "What limits a run"): rank 0 opens it as its first measured
 * iteration starts and closes it as its last one ends, which writes each resource's utilisation
 * into the timeline. */
void ss_limit_track(ss_sim* s); /* the links' load counted from now on: rank 0, as it starts */
void ss_limit_begin(ss_sim* s);
void ss_limit_end(ss_sim* s);

/* Work that the CPU (core-seconds) or the disk (bytes) of instance inst did from start_s to now: the
 * share of it inside the measured window counts towards that resource's utilisation. */
void ss_limit_work(ss_sim* s, ss_res r, int inst, double amount, double start_s);
/* A loader of instance inst prepared data from start_s to now (its busy fraction, docs/model.md). */
void ss_limit_loader_busy(ss_sim* s, int inst, double start_s);

/* A span of rank r's track (tid) in the trace, if there is one; no effect on the simulation. */
void ss_trace_rank(ss_sim* s, int r, int tid, const char* name, const char* cat, double start_s, double dur_s,
                   const char* detail);

/* Take iteration iter's batch for rank r's training process, which has waited for it since date
 * since: load it itself (no workers) or wait for its worker's. Returns the part of the wait booked
 * to storage (the rest is CPU), in the proportion of the loader's time on the batch. */
double ss_loader_take(ss_sim* s, int r, int iter, double since);

/* A batch is loaded in at most this many read-then-prepare steps (one per sample up to this size). */
#define SS_LOADER_STEPS 64

/* The host thread of one rank's training process (runs on its instance's CPU host): takes each
 * batch, copies it, issues every segment's operators, waits where the framework synchronises. */
void ss_host_actor(ss_sim* s, const ss_actor_arg* a);

/* Actors run one at a time (SimGrid's contexts are cooperative): the host and the GPU read each
 * other's counters without the lock, which they take only to block; a change notifies only when
 * one of them is blocked (the simulation's cost per segment stays a few simcalls). */
void ss_host_notify(ss_rank* me);

/* Block until *counter (one of me's segment counters) is past k. */
void ss_host_wait_past(ss_rank* me, const long* counter, long k);

/* Book rank r's GPU wait [from, to) of iteration iter on the timeline by what its host thread did
 * meanwhile (waiting for data, issuing work, waiting for collectives). */
void ss_host_book(ss_sim* s, int r, int iter, double from, double to);

/* The collective stream of one rank (runs on its GPU host): reduces buckets in order. */
void ss_coll_actor(ss_sim* s, const ss_actor_arg* a);

/* Collective c of the run (an allreduce of coll_bytes[c] with coll_alg[c]) among all ranks, run by
 * rank r's stream at the job's fidelity (coll.c). */
void ss_coll_allreduce(ss_sim* s, int r, int c);

/* A parameter-server shard (actor argument worker = shard index), on its host. */
void ss_ps_server_actor(ss_sim* s, const ss_actor_arg* a);

/* A rank's push stream to the parameter servers (replaces its collective stream). */
void ss_ps_push_actor(ss_sim* s, const ss_actor_arg* a);

/* Make the calling actor (rank r's trainer) the permanent receiver of its pull mailboxes, one per
 * part (transfers start at once, whatever the trainer is doing). */
void ss_ps_receive_pulls(ss_sim* s, int r);

/* The mailboxes and queues of the parameter servers (after ps_msgs), and their release. */
void ss_ps_setup(ss_sim* s);
void ss_ps_free(ss_sim* s);

/* Receive the parameters of every part of one iteration (called by rank r's trainer). */
void ss_ps_pull_all(ss_sim* s, int r);

/* Wait until rank r's collective stream has reduced want collectives (over all iterations). Returns
 * the part of the wait its collectives spent crossing instances, at most the wait. */
double ss_coll_wait_reduced(ss_sim* s, int r, long want);

/* Stragglers (straggler.c). Set up every rank's stream and the collectives' arrival slots (after
 * the ranks and collectives, before the actors start; ss_straggler_free frees what it allocates). */
void ss_straggler_setup(ss_sim* s);
void ss_straggler_free(ss_sim* s);

/* Draw rank r's compute factor of iteration iter, its next (1 without jitter). */
void ss_straggler_draw(ss_sim* s, int r, int iter);

/* Rank r's stream arrives at collective c of iteration iter (or, parameter servers, begins pushing
 * bucket c) at date now. */
void ss_straggler_arrive(ss_sim* s, int r, int iter, int c, double now);

/* Rank r's stream has finished collective c of iteration iter, which it arrived at at date
 * arrived: the part of its wait for the last rank to arrive that its trainer spent waiting for the
 * gradients is straggler wait. */
void ss_straggler_reduced(ss_sim* s, int r, int iter, int c, double arrived);

/* Rank r's trainer begins waiting for the gradients of iteration iter (date now); then, done after
 * waiting wait seconds, books the part of it spent waiting for the slowest rank as the timeline's
 * straggler detail. */
void ss_straggler_wait_begin(ss_sim* s, int r, double now);
void ss_straggler_wait_end(ss_sim* s, int r, int iter, double wait);

/* Network time of rank r's collectives up to now (see ss_rank.net). */
double ss_coll_net_time(const ss_sim* s, int r);

/* Time collectives have run on rank r's GPU up to now (see ss_rank.busy): its compute ran
 * 1 + job.interference times slower meanwhile. */
double ss_coll_busy_time(const ss_sim* s, int r);

#endif
