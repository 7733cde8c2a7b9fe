/* probe: the counters of a run's resources (docs/model.md, "What limits a run"): the links' load
 * through SimGrid's plugin, for the trace's link-use counters and the measured window's utilisation,
 * and the work the actors report of the CPUs, disks and loaders. */
#include "probe.h"

#include "array.h"
#include "cluster.h"
#include "err.h"
#include "names.h"
#include "platform.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <simgrid/disk.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/plugins/load.h>

_Static_assert((int)SS_RES_CPU == (int)SS_LINK_CLASS_COUNT, "the link classes come first among the resources");

/* The links' counters: the links of each class and their capacity, found once; tracked from the
 * first of the trace's samples or the measured window's start. */
typedef struct link_probe {
  size_t n;
  sg_link_t* links;
  int* cls;
  double* last;  /* the trace's previous sample */
  double* begin; /* the load at the measured window's start */
  double last_date;
  int tracking;
  int sampling; /* the trace's samples have started */
  double cap[SS_LINK_CLASS_COUNT];
} link_probe;

/* A SimGrid link and its index in SimGrid's list, sorted by name to find each slot's links. */
typedef struct named_link {
  sg_link_t link; /* first: link_name reads it */
  size_t index;
} named_link;

static const char* link_name(const void* l)
{
  return sg_link_get_name(*(const sg_link_t*)l);
}

void ss_probe_setup(ss_sim* s)
{
  link_probe* p = calloc(1, sizeof(link_probe));
  if (!p)
    ss_nomem_exit("the trace's link counters");
  p->n = sg_link_count();
  p->links = sg_link_list();
  p->cls = calloc(p->n + 1, sizeof(int));
  p->last = calloc(p->n + 1, sizeof(double));
  p->begin = calloc(p->n + 1, sizeof(double));
  s->cpu_work_s = calloc((size_t)s->job->instances, sizeof(double));
  s->disk_bytes = calloc((size_t)s->job->instances, sizeof(double));
  s->loader_busy_s = calloc((size_t)s->job->instances, sizeof(double));
  if (!p->links || !p->cls || !p->last || !p->begin || !s->cpu_work_s || !s->disk_bytes || !s->loader_busy_s)
    ss_nomem_exit("the trace's link counters");
  /* Each link slot's SimGrid links (one, or its two directions) get its class; the switch's own
   * links have none (-1). The names are searched in a sorted copy; the counters keep SimGrid's order. */
  named_link* sorted = calloc(p->n + 1, sizeof(named_link));
  if (!sorted)
    ss_nomem_exit("the trace's link counters");
  for (size_t i = 0; i < p->n; i++) {
    sorted[i] = (named_link){p->links[i], i};
    p->cls[i] = -1;
  }
  ss_names_sort(sorted, p->n, sizeof(named_link), link_name);
  static const char* const suffix[] = {"", "_UP", "_DOWN"};
  for (int slot = 0; slot < ss_cluster_link_slots(s->job); slot++)
    for (int k = 0; k < 3; k++) {
      char name[SS_CLUSTER_NAME_MAX + 8];
      ss_cluster_link_name(s->job, slot, name, SS_CLUSTER_NAME_MAX);
      strcat(name, suffix[k]);
      size_t i = ss_names_search(sorted, p->n, sizeof(named_link), link_name, name);
      if (i < p->n)
        p->cls[sorted[i].index] = (int)ss_cluster_link_class(s->job, slot);
    }
  free(sorted);
  for (size_t i = 0; i < p->n; i++)
    if (p->cls[i] >= 0)
      p->cap[p->cls[i]] += sg_link_get_bandwidth(p->links[i]);
  s->probe = p;
}

void ss_probe_free(ss_sim* s)
{
  link_probe* p = s->probe;
  if (!p)
    return;
  SS_FREE_ALL(p->links, p->cls, p->last, p->begin);
  free(p);
  s->probe = NULL;
  SS_FREE_ALL(s->cpu_work_s, s->disk_bytes, s->loader_busy_s);
}

/* Track the links' load from now on (once, from inside an actor as the plugin requires). */
static void probe_track(link_probe* p)
{
  if (p->tracking)
    return;
  for (size_t i = 0; i < p->n; i++)
    if (p->cls[i] >= 0)
      sg_link_load_track(p->links[i]);
  p->tracking = 1;
}

void ss_limit_track(ss_sim* s)
{
  probe_track(s->probe);
}

void ss_limit_begin(ss_sim* s)
{
  link_probe* p = s->probe;
  probe_track(p);
  for (size_t i = 0; i < p->n; i++)
    if (p->cls[i] >= 0)
      p->begin[i] = sg_link_get_cum_load(p->links[i]);
  s->window_begin_s = simgrid_get_clock();
  s->window = 1;
}

/* amount x the share of [start_s, now] inside the window (so far). */
static double in_window(const ss_sim* s, double amount, double start_s)
{
  double now = simgrid_get_clock();
  if (s->window == 0 || now <= start_s)
    return 0;
  double lo = fmax(start_s, s->window_begin_s), hi = s->window == 2 ? fmin(now, s->window_end_s) : now;
  return hi > lo ? amount * (hi - lo) / (now - start_s) : 0;
}

void ss_limit_work(ss_sim* s, ss_res r, int inst, double amount, double start_s)
{
  (r == SS_RES_CPU ? s->cpu_work_s : s->disk_bytes)[inst] += in_window(s, amount, start_s);
}

void ss_limit_loader_busy(ss_sim* s, int inst, double start_s)
{
  s->loader_busy_s[inst] += in_window(s, simgrid_get_clock() - start_s, start_s);
}

void ss_limit_end(ss_sim* s)
{
  link_probe* p = s->probe;
  double now = simgrid_get_clock(), w = now - s->window_begin_s;
  s->window_end_s = now;
  s->window = 2;
  double* u = s->tl->util;
  if (w <= 0)
    return;
  for (size_t i = 0; i < p->n; i++)
    if (p->cls[i] >= 0)
      u[p->cls[i]] = fmax(u[p->cls[i]],
                          (sg_link_get_cum_load(p->links[i]) - p->begin[i]) / (sg_link_get_bandwidth(p->links[i]) * w));
}

/* After the run: the CPUs' and disks' work in the window, counted as each piece ended (the pieces
 * that straddle the window's end too). */
void ss_probe_finish(ss_sim* s)
{
  const ss_job* j = s->job;
  double *u = s->tl->util, w = s->window_end_s - s->window_begin_s;
  if (s->window != 2 || w <= 0)
    return;
  for (int i = 0; s->ranks && i < j->instances; i++) {
    const ss_rank* r = &s->ranks[i * j->gpus_per_instance];
    /* The CPU's cores, or the loader processes when there are fewer of them than cores. */
    double loaders = (double)j->gpus_per_instance * (j->workers > 0 ? j->workers : 1);
    u[SS_RES_CPU] = fmax(u[SS_RES_CPU], s->cpu_work_s[i] / (sg_host_core_count(r->cpu) * w));
    u[SS_RES_CPU] = fmax(u[SS_RES_CPU], s->loader_busy_s[i] / (loaders * w));
    u[SS_RES_DISK] = fmax(u[SS_RES_DISK], s->disk_bytes[i] / (sg_disk_read_bandwidth(r->disk) * w));
  }
}

void ss_trace_links(ss_sim* s)
{
  static const char* const names[SS_LINK_CLASS_COUNT] = {"NVLink use",       "NVSwitch use", "PCIe use",
                                                         "inter-socket use", "NIC use",      "host-memory (SHM) use"};
  link_probe* p = s->probe;
  if (!p)
    return;
  /* Sampled with or without a trace: the plugin integrates each link's load as it is at each
   * reading (and at each start and end of a flow), so the same readings keep the run's limit the
   * same with --trace. */
  double now = simgrid_get_clock();
  if (!p->sampling) {
    probe_track(p);
    for (size_t i = 0; i < p->n; i++)
      if (p->cls[i] >= 0)
        p->last[i] = sg_link_get_cum_load(p->links[i]);
    p->sampling = 1;
    p->last_date = now;
    return;
  }
  double dt = now - p->last_date;
  if (dt <= 0)
    return;
  double used[SS_LINK_CLASS_COUNT] = {0};
  for (size_t i = 0; i < p->n; i++)
    if (p->cls[i] >= 0) {
      double cum = sg_link_get_cum_load(p->links[i]);
      used[p->cls[i]] += cum - p->last[i];
      p->last[i] = cum;
    }
  for (int c = 0; s->trace && c < SS_LINK_CLASS_COUNT; c++)
    if (p->cap[c] > 0)
      ss_trace_counter(s->trace, 1, names[c], p->last_date, used[c] / (p->cap[c] * dt));
  p->last_date = now;
}
