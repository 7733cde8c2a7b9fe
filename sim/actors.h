/* actors: what the engine and every actor share: the simulation's state (ss_sim), each rank's
 * (ss_rank), an actor's argument and body. Each actor's own functions are in its header (trainer.h,
 * host.h, loader.h, coll.h, ps.h, straggler.h, stage.h), the trace's tracks in simtrace.h, the
 * counters of the measured window and of the trace's link use in probe.h. */
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
  int inst;  /* instance */
  int local; /* GPU index inside the instance */
  sg_host_t host;
  sg_host_t cpu; /* the CPU host of its instance */
  sg_disk_t disk;
  sg_mutex_t mu;             /* guards the fields below */
  sg_cond_t cv;              /* signalled when a batch is ready, consumed, or a bucket is reduced */
  char* ready;               /* [iter]: the batch of that iteration is in the queue */
  double* batch_fetch_s;     /* [iter]: storage time spent producing the batch */
  double* batch_prep_s;      /* [iter]: CPU time spent producing the batch */
  int consumed;              /* batches taken by the trainer */
  int reduced;               /* buckets whose collective has finished, over all iterations */
  sg_sem_t pending;          /* buckets submitted to the collective stream and not yet started */
  sg_mailbox_t* inbox;       /* [ring]: where the previous rank of each global ring sends */
  int* next;                 /* [ring]: the next rank in each global ring */
  sg_mailbox_t* intra_inbox; /* [ring]: the same for the rings inside the instance */
  int* intra_next;
  sg_mailbox_t cross_inbox; /* where the same GPU of the previous instance sends */
  int cross_next;
  /* Double binary tree over the same GPU of every instance (tree allreduce): for each tree, the
   * parent and children ranks (-1: none), this rank's slot (0 or 1) among its parent's children,
   * and its inboxes: [tree][0..1] from each child, [tree][2] from the parent. */
  int tree_parent[2];
  int tree_child[2][2];
  int tree_slot[2];
  double tree_t0[2]; /* when it entered its last fast tree broadcast [0] and reduce [1] (coll.c) */
  sg_mailbox_t tree_inbox[2][3];
  /* Time its collectives spent in phases that cross instances, for splitting the trainer's wait
   * between network and interconnect. */
  ss_stopwatch net;
  /* Fast rings (coll.c): this rank's position in each global ring's pattern ([ring]) and in each
   * ring inside its instance ([nrings + ring]), and the parity of its next phase of each kind
   * (global, inside the instance, across instances). */
  int* ring_pos;
  int phase_parity[3];
  /* The time a collective runs on its GPU, and the executions that take the collective's share of
   * the GPU meanwhile (job.interference > 0). */
  ss_stopwatch busy;
  sg_exec_t intf[SS_MAX_INTERFERENCE];
  int nintf;
  /* The host thread (host.c) and the GPU stream (trainer.c), when the host side is simulated
   * (ss_job.host). Segments (ss_segment) are counted over all iterations; guarded by mu, signalled
   * on seg_cv (not cv, which every reduced bucket signals). */
  long seg_started;       /* segments the host has begun issuing */
  long seg_issued;        /* ... has finished issuing */
  long seg_done;          /* segments the GPU has finished */
  double launches_issued; /* kernel launches issued and finished (the launch queue) */
  double launches_done;
  double* seg_start_s; /* [SS_HOST_RING]: when the host began / finished issuing segment k % ring */
  double* seg_end_s;
  ss_hostlog log;     /* what the host thread did when (for the GPU's waits on it) */
  sg_cond_t seg_cv;   /* signalled when one of the counters above changes and someone waits */
  int seg_waiters;    /* host or GPU blocked on seg_cv (else no notify) */
  double bwd_start_s; /* when the GPU began this iteration's backward (Horovod's cycles) */
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

/* A group of ranks that runs fast ring phases together, unless --ideal: its rings' hop latencies by
 * position in their pattern, and for the phase in progress (two by parity: a rank may enter the next
 * phase before another has left this one) the largest per-step time each hop's chunk took, the
 * latest arrival and the phase's end once computed (coll.c, ss_cost_ring_chain). */
typedef struct ss_chain {
  int period; /* positions of a ring's pattern: GPUs per instance, 1 across instances */
  int nrings;
  double* a;       /* [ring * period + q]: latency of the hop out of position q */
  double* x[2];    /* by parity: [ring * period + q], per-step time of that hop's chunk (largest) */
  double* t0[2];   /* by parity: [ring * period + q], when that position's rank arrived (latest) */
  double end[2];   /* by parity: the phase's end, or -1 until its first rank past the barrier sets it */
  double* scratch; /* ss_cost_ring_chain's */
  /* The last phase computed (its steps, latencies and per-step times) and its length: the same
   * phase again (every iteration's same bucket) is not computed again. */
  double* last_x; /* [2 * rings * period]: its per-step times, then its arrivals less its first */
  int last_steps;
  double last_lat, last_lat_out, last_call, last_len;
} ss_chain;

typedef struct ss_sim {
  /* The job simulated: the cluster's, or with identical instances (ss_job_sim_instances)
   * a copy with fewer of them; full is the cluster's, whose GPU and instance counts give the
   * collectives' steps and sizes. */
  const ss_job* job;
  const ss_job* full;
  int progress; /* rank 0 writes each iteration's (bench: size's) end on standard error (a terminal, a long run) */
  ss_timeline* tl;
  ss_rank* ranks;
  sg_bar_t bar_all;    /* all ranks */
  sg_bar_t* bar_inst;  /* [instance]: its GPUs */
  sg_bar_t* bar_cross; /* [local GPU]: that GPU of every instance */
  double alpha_global; /* largest latency of a hop of the global rings (s) */
  double alpha_intra;  /* ... of the rings inside an instance */
  double ring_rate;    /* bytes/s of the rings over all GPUs together (ss_cost_ring_rate): the reference's channels
                        * of those rings leave their chunks at that pace */
  double* alpha_cross; /* [local GPU]: latency of the hop from that GPU to the same GPU of the next instance */
  /* Fast rings, unless --ideal (coll.c): for each group of ranks that runs phases together ([0]
   * all, [1 + instance] one instance's, [1 + instances + local] one GPU index's across instances),
   * what its phases end by (ss_chain); NULL: every phase costs steps x the largest latency. */
  ss_chain* chain;
  int nchain;
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
  double* jitter_of;   /* identical instances simulated by fewer: [iter * ranks + rank], its factor (straggler.c) */
  ss_coll_op* coll_op; /* each collective's operation: allreduce, reduce-scatter or all-gather */
  ss_coll_scope* coll_scope; /* the GPUs it runs among: all, each instance's, or same-index across */
  double* tree_span;         /* [coll * 2 + reduce]: a fast tree phase's time from its start */
  double* cross_hidden;   /* [coll * gpus per instance + GPU]: latency its transfers across instances hide (cost.c) */
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
  sg_mailbox_t* ps_local_mb; /* [2 n] --ps-aggregate instance: each rank's inbox of the local reduce-scatter (n
                              * first), then of the local all-gather */
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
  ss_trace* trace;              /* --trace, else NULL */
  struct ss_stage_state* stage; /* tensor and pipeline parallelism (stage.c), else NULL */
  void* probe;                  /* the links' counters, for the trace and the run's limit (probe.c) */
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

#endif
