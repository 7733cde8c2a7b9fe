/* a2a: the all-to-all of expert-parallel groups in closed form (a2a.h). */
#include "a2a.h"

#include "cluster.h"
#include "cost.h"

#include <math.h>
#include <stdlib.h>

/* A resource of a hop: a direction of a full-duplex link (2 link + 1 going down), a shared link
 * (2 link); -1 for a FATPIPE, which limits each flow alone, not their sum. */
static int resource(const ss_platform* p, const ss_hop* hop)
{
  ss_sharing sh = p->links[hop->link].sharing;
  if (sh == SS_SHARING_FATPIPE)
    return -1;
  return 2 * hop->link + (sh == SS_SHARING_SPLITDUPLEX && hop->dir == 1);
}

/* Link l's rate for the dispatcher: the transport's (ss_cluster_link_bandwidth), or DeepEP's. */
static double rate(const ss_job* j, int l)
{
  double bw = ss_cluster_link_bandwidth(j, l);
  if (j->opt.moe_dispatcher != SS_DISPATCH_DEEPEP)
    return bw;
  ss_link_class cls = j->platform->links[l].cls;
  if (cls == SS_LINK_NIC && j->net.line_fraction > 0)
    return bw / j->net.line_fraction;
  return cls == SS_LINK_NVLINK || cls == SS_LINK_NVSWITCH ? bw * SS_DEEPEP_NVLINK_FRACTION : bw;
}

/* Add bytes to the resources of route r; the route's rate alone into *alone (the smallest). */
static void load_route(const ss_job* j, const ss_route* r, double bytes, double* load, double* alone)
{
  const ss_platform* p = j->platform;
  for (int h = 0; h < r->nhops; h++) {
    int k = resource(p, &r->hops[h]);
    if (k >= 0)
      load[k] += bytes;
    *alone = fmin(*alone, rate(j, r->hops[h].link));
  }
}

/* The local GPU of member k of GPU a's group. */
static int member(const ss_a2a_shape* sh, int a, int k)
{
  int block = sh->per * sh->stride;
  return a / block * block + a % sh->stride + k * sh->stride;
}

void ss_a2a_protocol(const ss_job* j, double bytes, ss_proto_cost* pc)
{
  if (j->opt.moe_dispatcher == SS_DISPATCH_DEEPEP) {
    ss_proto_cost_none(pc); /* its own kernels: no NCCL call, step or protocol */
    return;
  }
  ss_proto p = j->resolved.protocol != SS_PROTO_AUTO ? j->resolved.protocol : SS_PROTO_SIMPLE;
  ss_cost_protocol_as(j, SS_OP_ALL_TO_ALL, SS_ALLREDUCE_RING, bytes, p, pc);
}

void ss_a2a_time_of(const ss_job* j, const ss_a2a_shape* sh, double bytes, ss_a2a_time* out)
{
  const ss_platform* p = j->platform;
  int g = j->gpus_per_instance, n = sh->per * sh->m;
  *out = (ss_a2a_time){0};
  out->cross = sh->m > 1;
  if (n < 2 || !(bytes > 0))
    return;
  ss_assert(sh->per >= 1 && sh->stride >= 1 && sh->per * sh->stride <= g && g % (sh->per * sh->stride) == 0);
  ss_proto_cost pc;
  ss_a2a_protocol(j, bytes, &pc);
  double eff = pc.eff[SS_PHASE_GLOBAL] > 0 ? pc.eff[SS_PHASE_GLOBAL] : 1;
  double x = bytes / n / eff; /* one transfer, as moved */
  double* intra = calloc(4 * (size_t)p->nlinks + 2, sizeof(double));
  if (!intra)
    ss_nomem_exit("an all-to-all's link loads");
  double *cross = intra + 2 * (size_t)p->nlinks, lat = 0, slowest = 0;
  for (int a = 0; a < g; a++) {
    for (int k = 0; k < sh->per; k++) {
      int b = member(sh, a, k);
      if (b == a)
        continue;
      double alone = INFINITY;
      load_route(j, ss_platform_route(p, a, b), x, intra, &alone);
      slowest = fmax(slowest, x / alone);
      lat = fmax(lat, ss_cluster_route_latency(j, a, b));
    }
    if (sh->m > 1) {
      /* What leaves the instance by the GPU's NIC, and as much comes in (identical instances). */
      int nic = ss_platform_nic_node(p, ss_platform_gpu_nic(p, a));
      double out_bytes = x * (n - sh->per), alone = INFINITY;
      load_route(j, ss_platform_route(p, a, nic), out_bytes, cross, &alone);
      load_route(j, ss_platform_route(p, nic, a), out_bytes, cross, &alone);
      double port = ss_cluster_port_bandwidth(j, 0);
      double path = j->opt.moe_dispatcher == SS_DISPATCH_DEEPEP ? alone : ss_cluster_cross_bandwidth(j, a, a);
      slowest = fmax(slowest, x / fmin(path, port));
      lat = fmax(lat, ss_cluster_cross_latency(j, a, a));
    }
  }
  for (int k = 0; k < 2 * p->nlinks; k++) {
    double cap = rate(j, k / 2);
    /* A hop both inside and on the way out (a PCIe switch the NIC hangs off) carries both. */
    double both = (intra[k] + cross[k]) / cap;
    if (cross[k] > 0)
      out->cross_s = fmax(out->cross_s, both);
    else
      out->intra_s = fmax(out->intra_s, both);
  }
  /* The core switch (--oversub above 1): every instance's bytes out cross it once. */
  if (sh->m > 1 && j->opt.oversub > 1 && j->core_bandwidth_bytes_per_s > 0)
    out->cross_s = fmax(out->cross_s, (double)j->instances * g * x * (n - sh->per) / j->core_bandwidth_bytes_per_s);
  free(intra);
  out->latency_s = pc.call_s + pc.step_s[SS_PHASE_GLOBAL] + lat;
  out->total_s = out->latency_s + fmax(slowest, fmax(out->intra_s, out->cross_s));
}
