/* sockcpu: the host CPU that NCCL's socket transport takes between instances (docs/model.md, "The
 * socket transport's CPU"). Each end of a connection has threads (NCCL's helper threads, or its
 * proxy thread where it runs none) on its instance's CPU host: while a transfer is in flight they
 * poll, each busy on a core, and the kernel's work for every byte (the copy between user and
 * kernel memory, TCP) runs in them; a transfer has landed at an end once its bytes have arrived and
 * that end's threads have done their work for them. The threads share the cores with the loaders
 * and the host threads, both ways: a CPU the loaders fill slows the network, and polling threads
 * slow the loaders. */
#ifndef SS_SOCKCPU_H
#define SS_SOCKCPU_H

#include "actors.h"

/* Threads of one end: NCCL's releases have at most 4 helper threads per connection by default
 * (gVNIC's), and --nccl-sockets never raises a release's count (job.c). */
#define SS_SOCK_MAX_THREADS 4

/* One end of a connection: its threads' executions and what they owe. All of an end's threads start
 * and stop together on one host, so they progress alike: one account serves them all. */
typedef struct ss_sock_end {
  int n;                 /* threads; 0: no work (another transport, inside an instance, switched off) */
  sg_host_t host;        /* the CPU host they run on */
  double flops_per_byte; /* each thread's share of the kernel's work per byte, in flops */
  double base;           /* flops each thread had done when its current executions started */
  double amount;         /* their amount (0: none running, the threads idle) */
  double landed;         /* bytes landed so far */
  int inflight;          /* transfers posted, not yet landed */
  sg_exec_t e[SS_SOCK_MAX_THREADS];
} ss_sock_end;

/* The end on rank `at`'s instance of a connection between ranks `at` and `peer` (sending: recv 0,
 * receiving: 1); no work when both are on one instance or the job models no socket CPU. */
void ss_sock_open(const ss_sim* s, int at, int peer, int recv, ss_sock_end* e);

/* A transfer of `bytes` begins at the end: its threads poll until it has landed. */
void ss_sock_post(ss_sock_end* e, double bytes);

/* The oldest transfer in flight at the end, of `bytes`, has arrived: wait until the threads have done
 * the kernel's work for it (and every earlier one); they stop polling when nothing is in flight. */
void ss_sock_land(ss_sock_end* e, double bytes);

#endif
