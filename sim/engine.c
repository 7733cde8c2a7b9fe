/* engine: run one simulation of a job on SimGrid. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "engine.h"

#include "actors.h"
#include "array.h"
#include "cleanup.h"
#include "cluster.h"
#include "coll.h"
#include "cost.h"
#include "nccl.h"
#include "tuner.h"
#include "estimate.h"
#include "host.h"
#include "loader.h"
#include "names.h"
#include "outfile.h"
#include "probe.h"
#include "ps.h"
#include "simtrace.h"
#include "stage.h"
#include "straggler.h"
#include "trainer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <math.h>
#include <simgrid/engine.h>
#include <simgrid/link.h>
#include <simgrid/plugins/load.h>
#include <xbt/config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

const char* const ss_engine_default_cfg[] = {
    "--log=xbt_cfg.thresh:warning", "--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
    "--cfg=network/TCP-gamma:0",
    /* Our actors need little stack; 128 KiB instead of 8 MiB keeps thousands of them in cache. */
    "--cfg=contexts/stack-size:128", NULL};

/* Write the job's cluster platform to a temporary file and load it; the file goes at once. */
static int load_cluster(const ss_job* job, ss_err* err)
{
  char path[4096];
  FILE* f = NULL;
  int slot = -1;
  if (ss_outfile_scratch("platform", path, sizeof(path), &f, &slot, err))
    return SS_EIO;
  int rc = ss_cluster_write(job, f);
  if (fclose(f) || rc) {
    int e = errno;
    ss_outfile_scratch_done(path, slot);
    return ss_err_set(err, NULL, 0, "cannot write the temporary platform file %s: %s", path, strerror(e));
  }
  /* The instance file passed our own validation (platform.c) and the composition writes only
   * names and figures from it, so SimGrid will not abort on this. */
  simgrid_load_platform(path);
  ss_outfile_scratch_done(path, slot);
  return SS_OK;
}

/* Address space SimGrid's start-up and platform take (C++ allocations, which abort when they fail):
 * an estimate with a margin, checked before it starts (ulimit -v). */
#define SS_ENGINE_HEADROOM ((size_t)48 << 20)

/* Whether size bytes of address space can still be mapped (reserved and released at once). */
static int room_for(size_t size)
{
  void* room = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (room == MAP_FAILED)
    return 0;
  munmap(room, size);
  return 1;
}

/* probe: the run will count the links' load (the trace's counters, the run's limit). */
static int engine_init(const ss_job* job, int ncfg, char** cfg, int probe, ss_err* err)
{
  if (!room_for(SS_ENGINE_HEADROOM))
    return ss_err_nomem(err);
  int nd = 0;
  while (ss_engine_default_cfg[nd])
    nd++;
  int argc = 1 + nd + ncfg;
  char** argv = calloc((size_t)argc + 1, sizeof(char*));
  if (!argv)
    return ss_err_nomem(err);
  argv[0] = (char*)"stash-sim";
  for (int i = 0; i < nd; i++)
    argv[1 + i] = (char*)ss_engine_default_cfg[i];
  for (int i = 0; i < ncfg; i++)
    argv[1 + nd + i] = cfg[i];
  /* simgrid_init installs a SIGINT handler that prints every actor's status: ours again, and no
   * signal handled in between. */
  sigset_t old;
  ss_cleanup_block(&old);
  simgrid_init(&argc, argv);
  ss_cleanup_rearm();
  ss_cleanup_unblock(&old);
  free(argv);
  /* The links' counters: an observer of their load, which changes no flow. */
  if (probe)
    sg_link_load_plugin_init();
  return load_cluster(job, err);
}

/* Every actor's entry: its body, then it counts as finished. */
static void actor_main(int argc, char** argv)
{
  (void)argc;
  (void)argv;
  const ss_actor_arg* arg = sg_actor_self_get_data();
  arg->body(arg->sim, arg);
  arg->sim->actors_finished++;
}

/* Whether the stacks of nactors actors fit in the address space this process may still map. SimGrid
 * aborts when it cannot allocate an actor's stack (under `ulimit -v`, say): the same room is
 * reserved here once, and released, before the first actor starts, with a margin for the engine's
 * own allocations during the run. Without a limit the reservation costs nothing (MAP_NORESERVE). */
static int stacks_fit(size_t nactors)
{
  long page = sysconf(_SC_PAGESIZE);
  size_t pg = page > 0 ? (size_t)page : 4096;
  size_t stack = (size_t)sg_cfg_get_int("contexts/stack-size") * 1024;
  size_t guard = (size_t)sg_cfg_get_int("contexts/guard-size") * pg;
  size_t margin = (size_t)64 << 20; /* the engine's comms, activities and queues: an estimate */
  double total = (double)nactors * (double)(stack + guard + pg) * 1.25 + (double)margin;
  if (total > (double)SIZE_MAX / 2)
    return 0;
  void* room = mmap(NULL, (size_t)total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (room == MAP_FAILED)
    return 0;
  munmap(room, (size_t)total);
  return 1;
}

/* Start an actor that runs body on host with its argument in the slot arg (its rank, -1 for a
 * server; worker: the server's or the loader's index), named by the printf-style fmt. */
static void spawn(ss_sim* s, ss_actor_arg* arg, int rank, int worker, sg_host_t host, ss_actor_body body,
                  const char* fmt, ...) __attribute__((format(printf, 7, 8)));

static void spawn(ss_sim* s, ss_actor_arg* arg, int rank, int worker, sg_host_t host, ss_actor_body body,
                  const char* fmt, ...)
{
  char name[64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof(name), fmt, ap);
  va_end(ap);
  *arg = (ss_actor_arg){s, rank, worker, body};
  sg_actor_t a = sg_actor_init(name, host);
  sg_actor_set_data(a, arg);
  sg_actor_start(a, actor_main, 0, NULL);
  s->actors_started++;
}

static const char* host_name(const void* h)
{
  return sg_host_get_name(*(const sg_host_t*)h);
}

/* The hosts of the composed platform by slot (ss_cluster_host_name), [inst * (g + 1) + k]: GPU k < g,
 * then the cpu; the dedicated server hosts go to servers[]. SimGrid's host list is sorted by name
 * once and each slot's name searched in it: sg_host_by_name searches the zones one after the
 * other, which for every rank of a large cluster would cost O(ranks x instances). */
static sg_host_t* host_table(const ss_job* j, sg_host_t* servers)
{
  int slots = ss_cluster_host_slots(j), local = j->instances * (j->gpus_per_instance + 1);
  sg_host_t* table = calloc((size_t)local, sizeof(sg_host_t));
  sg_host_t* all = sg_host_list();
  size_t n = sg_host_count();
  if (!table || !all) {
    free(table);
    free(all);
    return NULL;
  }
  ss_names_sort(all, n, sizeof(sg_host_t), host_name);
  for (int slot = 0; slot < slots; slot++) {
    char name[SS_CLUSTER_NAME_MAX];
    ss_cluster_host_name(j, slot, name, sizeof(name));
    size_t i = ss_names_search(all, n, sizeof(sg_host_t), host_name, name);
    ss_assert(i < n);
    if (slot < local)
      table[slot] = all[i];
    else if (servers)
      servers[slot - local] = all[i];
  }
  free(all);
  return table;
}

static sg_mailbox_t mailbox(const char* kind, int c, int r)
{
  char name[64];
  snprintf(name, sizeof(name), "%s%d.rank%d", kind, c, r);
  return sg_mailbox_by_name(name);
}

/* One rank's state: hosts, queues, and its place in every ring. */
static int rank_setup(ss_sim* s, const ss_job* j, int r, sg_host_t* hosts, sg_disk_t* disks)
{
  ss_rank* me = &s->ranks[r];
  int g = j->gpus_per_instance, nr = j->rings.nrings > j->intra.nrings ? j->rings.nrings : j->intra.nrings;
  me->rank = r;
  me->inst = r / g;
  me->local = r % g;
  me->host = hosts[me->inst * (g + 1) + me->local];
  me->cpu = hosts[me->inst * (g + 1) + g];
  me->disk = disks[me->inst];
  me->mu = sg_mutex_init();
  me->cv = sg_cond_init();
  me->pending = sg_sem_init(0);
  me->ready = calloc((size_t)j->niters, 1);
  me->batch_fetch_s = calloc((size_t)j->niters, sizeof(double));
  me->batch_prep_s = calloc((size_t)j->niters, sizeof(double));
  if (j->host) {
    me->seg_cv = sg_cond_init();
    me->seg_start_s = calloc(SS_HOST_RING, sizeof(double));
    me->seg_end_s = calloc(SS_HOST_RING, sizeof(double));
    if (!me->seg_start_s || !me->seg_end_s)
      return SS_ENOMEM;
  }
  me->inbox = calloc((size_t)nr + 1, sizeof(sg_mailbox_t));
  me->next = calloc((size_t)nr + 1, sizeof(int));
  me->intra_inbox = calloc((size_t)nr + 1, sizeof(sg_mailbox_t));
  me->intra_next = calloc((size_t)nr + 1, sizeof(int));
  me->ring_pos = calloc((size_t)(j->rings.nrings + j->intra.nrings) + 1, sizeof(int));
  if (!me->ready || !me->batch_fetch_s || !me->batch_prep_s || !me->inbox || !me->next || !me->intra_inbox ||
      !me->intra_next || !me->ring_pos)
    return SS_ENOMEM;
  for (int c = 0; c < nr; c++) {
    me->inbox[c] = mailbox("ring", c, r);
    me->intra_inbox[c] = mailbox("intra", c, r);
  }
  me->cross_inbox = mailbox("cross", 0, r);
  me->cross_next = (r + g) % j->ngpus;
  for (int t = 0; t < 2; t++) {
    int parent, child[2];
    ss_topo_btree(j->instances, t, me->inst, &parent, child, &me->tree_slot[t]);
    me->tree_parent[t] = parent >= 0 ? parent * g + me->local : -1;
    for (int c = 0; c < 2; c++)
      me->tree_child[t][c] = child[c] >= 0 ? child[c] * g + me->local : -1;
    for (int c = 0; c < 3; c++)
      me->tree_inbox[t][c] = mailbox(c == 0 ? "tree_a" : c == 1 ? "tree_b" : "tree_p", t, r);
  }
  return SS_OK;
}

/* Where each rank sends in the rings: global rings, rings inside each instance. */
static void ring_setup(ss_sim* s, const ss_job* j)
{
  int n = j->ngpus, g = j->gpus_per_instance;
  for (int c = 0; c < j->rings.nrings; c++) {
    const int* o = j->rings.rings[c].order;
    for (int i = 0; i < n; i++)
      s->ranks[o[i]].next[c] = o[(i + 1) % n];
  }
  for (int c = 0; c < j->intra.nrings; c++) {
    const int* lo = j->intra.rings[c].order;
    for (int r = 0; r < n; r++) {
      int base = r / g * g;
      for (int i = 0; i < g; i++)
        if (lo[i] == r % g)
          s->ranks[r].intra_next[c] = base + lo[(i + 1) % g];
    }
  }
}

static int chain_init(ss_chain* ch, int period, int nrings)
{
  size_t n = (size_t)period * (size_t)nrings;
  ch->period = period;
  ch->nrings = nrings;
  /* a, x[2], t0[2], last_x (2n), then the scratch: the relative arrivals (n) and the chain's. */
  ch->a = calloc(8 * n + (SS_NCCL_STEPS + 3) * (size_t)period, sizeof(double));
  if (!ch->a)
    return SS_ENOMEM;
  ch->x[0] = ch->a + n;
  ch->x[1] = ch->a + 2 * n;
  ch->t0[0] = ch->a + 3 * n;
  ch->t0[1] = ch->a + 4 * n;
  ch->last_x = ch->a + 5 * n;  /* 2n */
  ch->scratch = ch->a + 7 * n; /* the arrivals relative to the first (n), then ss_cost_ring_chain's */
  for (size_t i = 0; i < 2 * n; i++)
    ch->t0[0][i] = -1; /* t0[1] follows t0[0] */
  ch->end[0] = ch->end[1] = -1;
  ch->last_steps = -1;
  return SS_OK;
}

/* The groups of fast ring phases and where each rank sits in its rings' patterns: a global ring is
 * one chain per instance in instance order (job.c), so position i of its order is position i mod g
 * of the pattern; the hop out of a chain's last GPU crosses to the next instance. */
static int chain_setup(ss_sim* s, const ss_job* j)
{
  int m = j->instances, g = j->gpus_per_instance, n = j->ngpus, nr = j->rings.nrings, ni = j->intra.nrings;
  s->nchain = 1 + m + g;
  s->chain = calloc((size_t)s->nchain, sizeof(ss_chain));
  if (!s->chain || chain_init(&s->chain[0], g, nr))
    return SS_ENOMEM;
  for (int i = 0; i < m; i++)
    if (chain_init(&s->chain[1 + i], g, ni))
      return SS_ENOMEM;
  for (int k = 0; k < g; k++) {
    if (chain_init(&s->chain[1 + m + k], 1, 1))
      return SS_ENOMEM;
    s->chain[1 + m + k].a[0] = s->alpha_cross[k];
  }
  for (int c = 0; c < nr; c++) {
    const int* o = j->rings.rings[c].order;
    for (int i = 0; i < n; i++) {
      ss_rank* me = &s->ranks[o[i]];
      ss_assert(o[i] / g == i / g);
      me->ring_pos[c] = i % g;
      s->chain[0].a[(size_t)c * (size_t)g + (size_t)(i % g)] = ss_cost_hop_latency(j, o[i], me->next[c]);
    }
  }
  for (int c = 0; c < ni; c++) {
    const int* lo = j->intra.rings[c].order;
    for (int i = 0; i < g; i++)
      for (int inst = 0; inst < m; inst++) {
        ss_rank* me = &s->ranks[inst * g + lo[i]];
        me->ring_pos[nr + c] = i;
        s->chain[1 + inst].a[(size_t)c * (size_t)g + (size_t)i] = ss_cluster_route_latency(j, lo[i],
                                                                                           me->intra_next[c] % g);
      }
  }
  return SS_OK;
}

/* Barriers of the fast collectives, their latencies, and each collective's algorithm. */
static int coll_setup(ss_sim* s, const ss_job* j)
{
  int m = j->instances, g = j->gpus_per_instance;
  s->bar_all = sg_barrier_init((unsigned)j->ngpus);
  s->bar_inst = calloc((size_t)m, sizeof(sg_bar_t));
  s->bar_cross = calloc((size_t)g, sizeof(sg_bar_t));
  if (!s->bar_inst || !s->bar_cross)
    return SS_ENOMEM;
  for (int i = 0; i < m; i++)
    s->bar_inst[i] = sg_barrier_init((unsigned)g);
  for (int k = 0; k < g; k++)
    s->bar_cross[k] = sg_barrier_init((unsigned)m);
  /* The collectives' latencies, algorithms, protocols and tree shapes are the whole cluster's. */
  const ss_job* f = s->full;
  s->alpha_global = ss_cost_alpha_global(f);
  s->alpha_intra = ss_cost_alpha_intra(j);
  if (j->opt.fidelity == SS_FIDELITY_REFERENCE && ss_job_ring_pipelined(j) && j->ngpus > 1)
    s->ring_rate = ss_cost_ring_rate(f);
  s->alpha_cross = calloc((size_t)g, sizeof(double));
  if (!s->alpha_cross)
    return SS_ENOMEM;
  for (int k = 0; k < g; k++)
    s->alpha_cross[k] = m > 1 ? ss_cluster_cross_latency(j, k, k) : 0;
  /* Fast rings end as NCCL's pipelined ring would (coll.c, ss_cost_ring_chain); --ideal and
   * --no-ring-pipeline keep the largest latency for every step, as before. */
  if (ss_job_ring_pipelined(j) && j->opt.fidelity == SS_FIDELITY_FAST && j->ngpus > 1 && chain_setup(s, j))
    return SS_ENOMEM;
  /* Training: an iteration's collectives, in the order the job lists them (ss_job.colls). */
  s->ncoll = s->bench_nsizes > 0 ? s->bench_nsizes : ss_job_colls_per_iter(j);
  s->coll_bytes = calloc((size_t)s->ncoll + 1, sizeof(double));
  s->coll_alg = calloc((size_t)s->ncoll + 1, sizeof(ss_allreduce));
  s->coll_op = calloc((size_t)s->ncoll + 1, sizeof(ss_coll_op));
  s->coll_scope = calloc((size_t)s->ncoll + 1, sizeof(ss_coll_scope));
  s->tree_span = calloc(2 * (size_t)s->ncoll + 1, sizeof(double));
  s->coll_after_s = calloc((size_t)s->ncoll + 1, sizeof(double));
  s->coll_pc = calloc((size_t)s->ncoll + 1, sizeof(ss_proto_cost));
  s->cross_hidden = calloc((size_t)s->ncoll * (size_t)g + 1, sizeof(double));
  if (!s->coll_bytes || !s->coll_alg || !s->coll_op || !s->coll_scope || !s->tree_span || !s->coll_after_s ||
      !s->coll_pc || !s->cross_hidden)
    return SS_ENOMEM;
  for (int c = 0; c < s->ncoll; c++) {
    const ss_coll_spec* spec = s->bench_nsizes > 0 ? NULL : &f->colls[c];
    int bucket = spec && spec->kind == SS_CK_BUCKET;
    double bytes = spec ? spec->bytes : s->bench_bytes[c];
    ss_coll_op op = spec ? spec->op : j->opt.bench_op;
    s->coll_bytes[c] = bytes;
    s->coll_op[c] = op;
    s->coll_scope[c] = spec ? spec->scope : SS_SCOPE_ALL;
    if (bucket)
      s->coll_after_s[c] = j->bucket_post_s[spec->index];
    if (s->coll_scope[c] != SS_SCOPE_ALL) {
      /* A shard group's or a replica group's ring (hybrid sharding). */
      s->coll_alg[c] = SS_ALLREDUCE_RING;
      ss_cost_protocol_scoped(f, op, s->coll_scope[c], bytes, &s->coll_pc[c]);
    } else {
      if (!bucket)
        s->coll_alg[c] = f->opt.allreduce == SS_ALLREDUCE_AUTO || f->opt.allreduce == SS_ALLREDUCE_FASTEST ||
                                 !ss_cost_op_has(op, f->opt.allreduce)
                             ? ss_tuner_algorithm(f, op, bytes)
                             : f->opt.allreduce;
      else
        s->coll_alg[c] = f->bucket_alg[spec->index];
      ss_tuner_cost(f, op, s->coll_alg[c], bytes, &s->coll_pc[c]);
    }
    /* Fast, not --ideal: what the transfers across instances of GPUs whose routes differ hide of
     * their latency behind each other's data on a shared NIC, as the reference runs them (the ring
     * of same-index GPUs: hierarchical's middle phase, or a replica group's). */
    int mf = f->instances;
    int across = s->coll_scope[c] == SS_SCOPE_CROSS ||
                 (s->coll_scope[c] == SS_SCOPE_ALL && s->coll_alg[c] == SS_ALLREDUCE_HIERARCHICAL);
    if (across && mf > 1 && s->chain)
      ss_cost_nic_hidden(f, s->coll_pc[c].step_s[SS_PHASE_CROSS], bytes / g / mf / s->coll_pc[c].eff[SS_PHASE_CROSS],
                         ss_cost_op_passes(op) * (mf - 1), s->cross_hidden + (size_t)c * (size_t)g);
    if (s->coll_alg[c] == SS_ALLREDUCE_TREE && m > 1)
      for (int reduce = 0; reduce < 2; reduce++) {
        double flows = 0, chunk = 0;
        int k = 0;
        ss_cost_tree_split(f, bytes, &k, &chunk);
        /* Every GPU's span is the phase's: with NCCL's pipeline (s->chain) a connection's chunks are in
         * flight together and their latencies overlap already (ss_cost_tree_window), so the GPUs' trees
         * hide nothing of each other's on the NIC (they did before issue 42); in lock-step nothing was
         * ever taken. */
        s->tree_span[(size_t)c * 2 + (size_t)reduce] = ss_cost_tree_phase(
            f, reduce, k, chunk / s->coll_pc[c].eff[SS_PHASE_TREE], &flows);
      }
  }
  return SS_OK;
}

/* Build per-rank state and start the actors; args receives the actor arguments to free later.
 * Returns 0, or SS_ENOMEM when an allocation failed (before any actor started; what was built is
 * left to the process's end: SimGrid cannot be reset and the run ends with the error). */
static int sim_setup(ss_sim* s, const ss_job* j, ss_actor_arg** args_out)
{
  int n = j->ngpus, m = j->instances;
  int bench = s->bench_nsizes > 0;
  int loaders = j->opt.synthetic || bench ? 0 : j->workers;
  int ps = j->opt.arch == SS_ARCH_PS && !bench;
  int dedicated = ps && j->opt.placement == SS_PS_DEDICATED;
  if (dedicated) {
    s->ps_host = calloc((size_t)j->ps_hosts, sizeof(sg_host_t));
    if (!s->ps_host)
      return SS_ENOMEM;
  }
  sg_host_t* hosts = host_table(j, s->ps_host);
  sg_disk_t* disks = calloc((size_t)m, sizeof(sg_disk_t));
  s->ranks = calloc((size_t)n, sizeof(ss_rank));
  int host_thread = j->host && !bench;
  ss_actor_arg* args = calloc((size_t)n * (size_t)(2 + host_thread + loaders) + (ps ? (size_t)j->opt.servers : 0),
                              sizeof(ss_actor_arg));
  *args_out = args;
  size_t nactors = (size_t)n * (size_t)(2 + host_thread + loaders) + (ps ? (size_t)j->opt.servers : 0);
  /* The reference fidelity's rings run a channel actor per ring and rank while a phase runs (coll.c). */
  if (j->opt.fidelity == SS_FIDELITY_REFERENCE && ss_job_ring_pipelined(j))
    nactors += (size_t)n * (size_t)(j->rings.nrings > j->intra.nrings ? j->rings.nrings : j->intra.nrings);
  if (!hosts || !disks || !s->ranks || !args || !stacks_fit(nactors)) {
    free(hosts);
    free(disks);
    return SS_ENOMEM;
  }
  for (int i = 0; i < m; i++) {
    unsigned ndisks = 0;
    sg_disk_t* d = NULL;
    sg_host_get_disks(hosts[i * (j->gpus_per_instance + 1) + j->gpus_per_instance], &ndisks, &d);
    ss_assert(ndisks == 1);
    disks[i] = d[0];
    free(d);
  }
  int rc = SS_OK;
  for (int r = 0; r < n && !rc; r++)
    rc = rank_setup(s, j, r, hosts, disks);
  if (rc) {
    free(hosts);
    free(disks);
    return rc;
  }
  s->init_mu = sg_mutex_init();
  s->init_cv = sg_cond_init();
  int na = 0;
  if (ps) {
    size_t nm = (size_t)n * (size_t)j->ps_nparts;
    s->ps_msgs = calloc(nm + 1, sizeof(ss_ps_msg));
    s->ps_seen = calloc(nm + 1, sizeof(long));
    s->ps_version = calloc((size_t)j->ps_nparts + 1, sizeof(long));
    if (!s->ps_msgs || !s->ps_seen || !s->ps_version) {
      free(hosts);
      free(disks);
      return SS_ENOMEM;
    }
    for (size_t q = 0; q < nm; q++)
      s->ps_msgs[q] = (ss_ps_msg){(int)(q / (size_t)j->ps_nparts), (int)(q % (size_t)j->ps_nparts)};
    ss_ps_setup(s);
    /* Servers first: they make themselves the receivers of their mailboxes before anyone sends. */
    for (int k = 0; k < j->opt.servers; k++) {
      int h = ss_job_shard_host(j, k);
      sg_host_t host = dedicated ? s->ps_host[h] : hosts[h * (j->gpus_per_instance + 1) + j->gpus_per_instance];
      spawn(s, &args[na++], -1, k, host, ss_ps_server_actor, "server%d", k);
    }
  }
  free(hosts);
  free(disks);
  ring_setup(s, j);
  if (coll_setup(s, j))
    return SS_ENOMEM;
  ss_straggler_setup(s);
  for (int r = 0; r < n; r++) {
    if (!bench)
      spawn(s, &args[na++], r, 0, s->ranks[r].host, ss_trainer_actor, "trainer%d", r);
    if (ps)
      spawn(s, &args[na++], r, 0, s->ranks[r].host, ss_ps_push_actor, "push%d", r);
    else if (n > 1)
      spawn(s, &args[na++], r, 0, s->ranks[r].host, ss_coll_actor, "coll%d", r);
    if (host_thread)
      spawn(s, &args[na++], r, 0, s->ranks[r].cpu, ss_host_actor, "host%d", r);
    for (int w = 0; w < loaders; w++)
      spawn(s, &args[na++], r, w, s->ranks[r].cpu, ss_loader_actor, "loader%d.%d", r, w);
  }
  return SS_OK;
}

/* Tensor and pipeline parallelism: the stage actors of one replica (stage.h) on their GPUs. */
static int stage_sim_setup(ss_sim* s, const ss_job* j, ss_actor_arg** args_out)
{
  int n = ss_stage_actors(j);
  sg_host_t* hosts = host_table(j, NULL);
  ss_actor_arg* args = calloc((size_t)n, sizeof(ss_actor_arg));
  *args_out = args;
  if (!hosts || !args || !stacks_fit((size_t)n) || ss_stage_setup(s)) {
    free(hosts);
    return SS_ENOMEM;
  }
  int g = j->gpus_per_instance;
  for (int k = 0; k < n; k++) {
    int r = ss_stage_gpu(s, k);
    spawn(s, &args[k], k, 0, hosts[(r / g) * (g + 1) + r % g], ss_stage_actor, "stage%d", k);
  }
  free(hosts);
  return SS_OK;
}

static void sim_teardown(ss_sim* s, const ss_job* j, ss_actor_arg* args)
{
  if (s->stage) {
    ss_stage_free(s);
    free(args);
    return;
  }
  for (int r = 0; s->ranks && r < j->ngpus; r++) {
    ss_rank* me = &s->ranks[r];
    sg_mutex_destroy(me->mu);
    sg_cond_destroy(me->cv);
    sg_sem_destroy(me->pending);
    if (me->seg_cv)
      sg_cond_destroy(me->seg_cv);
    SS_FREE_ALL(me->ready, me->batch_fetch_s, me->batch_prep_s, me->inbox, me->next, me->intra_inbox, me->intra_next,
                me->ring_pos, me->seg_start_s, me->seg_end_s, me->log.spans);
  }
  sg_barrier_destroy(s->bar_all);
  if (s->init_mu) {
    sg_mutex_destroy(s->init_mu);
    sg_cond_destroy(s->init_cv);
  }
  for (int i = 0; s->bar_inst && i < j->instances; i++)
    sg_barrier_destroy(s->bar_inst[i]);
  for (int k = 0; s->bar_cross && k < j->gpus_per_instance; k++)
    sg_barrier_destroy(s->bar_cross[k]);
  for (int k = 0; s->chain && k < s->nchain; k++)
    free(s->chain[k].a);
  SS_FREE_ALL(s->bar_inst, s->bar_cross, s->alpha_cross, s->chain, s->coll_bytes, s->coll_alg, s->coll_op,
              s->coll_scope, s->coll_pc, s->tree_span, s->cross_hidden, s->coll_after_s);
  ss_straggler_free(s);
  ss_ps_free(s);
  SS_FREE_ALL(s->ps_host, s->ps_msgs, s->ps_seen, s->ps_version, s->ranks, args);
}

static int sim_run(ss_sim* s, ss_err* err)
{
  simgrid_run();
  if (s->actors_finished == s->actors_started)
    return SS_OK;
  ss_err_set(err, NULL, 0, "the simulation stopped with %d of %d actors unfinished (deadlock)",
             s->actors_started - s->actors_finished, s->actors_started);
  return ss_err_kind(err, SS_ESIM);
}

/* Out of memory building a run or a benchmark (reps collectives of each of nsizes sizes; 0 for a
 * run): a resources error (exit 3) that says what needed the memory and what makes it smaller. */
static int nomem(const ss_job* job, int nsizes, int reps, ss_err* err)
{
  if (nsizes > 0)
    ss_err_set(err, NULL, 0,
               "out of memory for the benchmark of %d GPUs over %d sizes of %d collectives each: give fewer "
               "--iters, sizes (--min-bytes to --max-bytes), --instances or --gpus",
               job->ngpus, nsizes, reps);
  else
    ss_err_set(err, NULL, 0,
               "out of memory for the simulation of %d GPUs over %d iterations (warm-up and loader "
               "cycles included): give fewer --iterations, --instances or --gpus",
               job->ngpus, job->niters);
  return ss_err_kind(err, SS_ENOMEM);
}

/* The job to simulate: the cluster's, or the same with ss_job_sim_instances of its instances
 * (in *copy), whose switch core keeps its capacity per instance. */
static const ss_job* sim_job(const ss_job* job, ss_job* copy)
{
  int r = ss_job_sim_instances(job);
  if (r == job->instances)
    return job;
  *copy = *job;
  copy->instances = r;
  copy->ngpus = r * job->gpus_per_instance;
  copy->core_bandwidth_bytes_per_s = job->core_bandwidth_bytes_per_s * r / job->instances;
  return copy;
}

int ss_engine_run(const ss_job* full, int ncfg, char** cfg, ss_timeline** out, double* simulated_s, ss_err* err)
{
  ss_job copy;
  const ss_job* job = sim_job(full, &copy);
  /* The command checked its work before the first run (sim/estimate.h). */
  if (engine_init(job, ncfg, cfg, 1, err))
    return SS_EINPUT;
  /* Progress for a person waiting: runs estimated at more than a few seconds. */
  ss_sim s = {.job = job, .full = full, .progress = ss_estimate_run_s(full) > 3 && isatty(STDERR_FILENO)};
  if (job->opt.trace && ss_trace_open(job->opt.trace, &s.trace, err))
    return ss_err_kind(err, SS_EIO);
  s.tl = ss_timeline_new(job->mp.on ? ss_stage_actors(job) : job->ngpus, job->niters);
  ss_actor_arg* args = NULL;
  if (!s.tl || (job->mp.on ? stage_sim_setup(&s, job, &args) : sim_setup(&s, job, &args))) {
    ss_timeline_free(s.tl);
    ss_trace_abort(s.trace);
    return nomem(job, 0, 0, err);
  }
  if (s.trace && job->mp.on)
    ss_stage_tracks(&s);
  else if (s.trace)
    ss_simtrace_tracks(&s);
  ss_probe_setup(&s);
  int rc = sim_run(&s, err);
  *simulated_s = simgrid_get_clock();
  if (!rc)
    ss_probe_finish(&s);
  sim_teardown(&s, job, args);
  ss_probe_free(&s);
  if (!rc)
    ss_simtrace_checkpoint(&s, *simulated_s);
  if (rc)
    ss_trace_abort(s.trace);
  else if (ss_trace_close(s.trace, err))
    rc = ss_err_kind(err, SS_EIO);
  if (rc) {
    ss_timeline_free(s.tl);
    return rc;
  }
  *out = s.tl;
  return SS_OK;
}

int ss_engine_start(const ss_job* job, int ncfg, char** cfg, ss_err* err)
{
  return engine_init(job, ncfg, cfg, 0, err);
}

int ss_engine_allreduce(const ss_job* full, int ncfg, char** cfg, int nsizes, const double* bytes, int reps,
                        double* time_s, ss_allreduce* algs, ss_proto* protos, ss_err* err)
{
  ss_assert(nsizes > 0 && reps > 0);
  ss_job copy;
  const ss_job* job = sim_job(full, &copy);
  if (engine_init(job, ncfg, cfg, 0, err))
    return SS_EINPUT;
  ss_sim s = {.job = job,
              .full = full,
              .bench_nsizes = nsizes,
              .bench_bytes = bytes,
              .bench_reps = reps,
              .bench_time_s = time_s,
              .progress = ss_estimate_bench_s(full, nsizes, bytes, reps) > 3 && isatty(STDERR_FILENO)};
  ss_actor_arg* args = NULL;
  if (sim_setup(&s, job, &args))
    return nomem(job, nsizes, reps, err);
  for (int k = 0; algs && k < nsizes; k++)
    algs[k] = s.coll_alg[k];
  for (int k = 0; protos && k < nsizes; k++)
    protos[k] = s.coll_pc[k].proto;
  int rc = sim_run(&s, err);
  sim_teardown(&s, job, args);
  return rc;
}
