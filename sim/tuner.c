/* tuner: NCCL's choice of algorithm and protocol by its tuning model, per release. */
#include "tuner.h"

#include "a2a.h"
#include "cluster.h"
#include "cost.h"
#include "ofitune.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Sources: NCCL's src/graph/tuning.cc, src/graph/search.cc and src/enqueue.cc read at the release
 * tags of github.com/NVIDIA/nccl (v2.5.6-1, v2.7.8-1, v2.10.3-1, v2.12.12-1, v2.18.3-1, v2.21.5-1)
 * and src/init.cc of v2.4.8-1 for the 2.4 rule; the tables with their tags are in
 * calibration/nccl_release_sources.md, section 2. Figures in us (latencies) and GB/s (bandwidths).
 *
 * The model's eras: a release uses the row of the latest era it is at or after. */
typedef enum era {
  ERA_2_2,  /* no tree, no tuning.cc: the ring; its protocol by the 2.5 tables (an ESTIMATE: 2.2's LL
            * threshold was not read) */
  ERA_2_4,  /* the tree by a computed threshold (init.cc ncclTreeThreshold); protocols as ERA_2_2 */
  ERA_2_5,  /* tuning.cc: every ring step at the class of the phase's hops */
  ERA_2_7,  /* 2(nNodes-1) network steps of a ring, LL x 1.8 inside several nodes, plateau, tree factors */
  ERA_2_8,  /* llMaxBw and per-channel tree caps (Volta 26.5/18.5/10, Ampere 24/22.5/16), tree net
            * Simple 28 */
  ERA_2_10, /* Ampere tree caps 24/23.6/17.8, LL128 20 per channel */
  ERA_2_12, /* 2 nNodes network steps; ring net Simple 28 */
  ERA_2_14, /* ring net Simple 9.6 again */
  ERA_2_18, /* baseLat 6.6/14/8.4 (ring), 6.8/14/0 (tree); hwLat NVLink .6, tree Simple 4/6/14, net
             * ring Simple 14; the plugin's latency added; Hopper caps; plateau 1.9 / 1.4 */
  ERA_2_19, /* tree Simple 28 again */
  ERA_COUNT
} era;

/* The first release of each era, in order: a release is in the last era whose first it is at or after. */
static const ss_nccl era_first[ERA_COUNT] = {
    [ERA_2_2] = SS_NCCL_2_2,   [ERA_2_4] = SS_NCCL_2_4,   [ERA_2_5] = SS_NCCL_2_5,   [ERA_2_7] = SS_NCCL_2_7,
    [ERA_2_8] = SS_NCCL_2_8,   [ERA_2_10] = SS_NCCL_2_10, [ERA_2_12] = SS_NCCL_2_12, [ERA_2_14] = SS_NCCL_2_14,
    [ERA_2_18] = SS_NCCL_2_18, [ERA_2_19] = SS_NCCL_2_19,
};

static era era_of(ss_nccl r)
{
  era e = ERA_2_2;
  for (int k = 1; k < ERA_COUNT; k++)
    if (r >= era_first[k])
      e = (era)k;
  return e;
}

enum { A_TREE, A_RING };
enum { H_NVL, H_PCI, H_NET };

/* baseLat [tree, ring][LL, LL128, Simple]. */
static const double base_2_5[2][3] = {{4.4, 4.4, 0}, {3.6, 3.6, 8.4}};
static const double base_2_7[2][3] = {{4.4, 4.4, 0}, {3.6, 10.0, 8.4}};
static const double base_2_18[2][3] = {{6.8, 14.0, 0}, {6.6, 14.0, 8.4}};

/* hwLat [NVLink, PCIe, network][tree, ring][LL, LL128, Simple], by era. */
static const double hw_2_5[3][2][3] = {
    {{.5, 1.9, 28}, {.4, 2.5, 5.7}}, {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}}, {{5.0, 7.5, 50}, {.9, 2.5, 6.6}}};
static const double hw_2_7[3][2][3] = {
    {{.52, 1.2, 28}, {.47, 1.9, 3.4}}, {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}}, {{5.0, 8.5, 50}, {2.7, 4.0, 9.6}}};
static const double hw_2_8[3][2][3] = {
    {{.52, 1.25, 28}, {.47, 1.9, 3.4}}, {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}}, {{5.0, 8.5, 28}, {2.7, 4.0, 9.6}}};
static const double hw_2_12[3][2][3] = {
    {{.52, 1.25, 28}, {.47, 1.9, 3.4}}, {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}}, {{5.0, 8.5, 28}, {2.7, 4.0, 28}}};
static const double hw_2_18[3][2][3] = {
    {{.6, 1.25, 4}, {.6, 1.9, 3.4}}, {{1.0, 1.9, 6}, {1.0, 2.5, 5.7}}, {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}}};
static const double hw_2_19[3][2][3] = {
    {{.6, 1.25, 28}, {.6, 1.9, 3.4}}, {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}}, {{5.0, 8.5, 28}, {2.7, 4.0, 14.0}}};

/* The tree's correction factor on its bandwidth by protocol and log2(bytes / 64), 64 B to 256 MiB
 * (tuning.cc treeCorrectionFactor, 2.10.3 and 2.18.3; 2.7.8's rows differ a little and are taken as
 * these). */
static const double tree_correction[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

/* The speeds the search tries for a channel through a NIC (GB/s, highest first): 2.7.8's single
 * list (taken for 2.5 to 2.11), speedArrayInter of 2.12 and 2.18.3, and 2.18.3's for compute
 * capability 9.0. */
static const double speeds_2_7[] = {42, 24, 21, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12, 0};
static const double speeds_2_12[] = {48, 30, 24, 22, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12, 0};
static const double speeds_2_18[] = {48, 30, 28, 24, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12, 0};
static const double speeds_sm90[] = {48, 45, 42, 40, 30, 24, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12, 0};

/* The latency the aws-ofi-nccl plugin reports to NCCL for its net devices (us), by instance type
 * (aws-ofi-nccl's platform-aws.c, since v1.7.0-aws: 75 on p4d, p4de and p5, 150 on p3dn; v1.16.3's
 * src/platform-aws.cpp:76-163: 75 on p5e too, 35 on p5en and the later P types, its "p-series" rows);
 * none elsewhere. NCCL adds it from 2.18 (2.12 to 2.17 let it replace the network's hwLat): plugins that
 * report it came with NCCL 2.18 and later, so it is taken from 2.18 on (an ASSUMPTION). */
static double plugin_latency_us(const ss_job* j)
{
  static const struct {
    const char* type;
    double us;
  } plugin[] = {{"p4d.24xlarge", 75},  {"p4de.24xlarge", 75},    {"p5.48xlarge", 75},        {"p5e.48xlarge", 75},
                {"p5en.48xlarge", 35}, {"p6-b200.48xlarge", 35}, {"p6e-gb200.36xlarge", 35}, {"p3dn.24xlarge", 150}};
  if (j->net_transport != SS_NET_EFA || era_of(j->opt.nccl_version) < ERA_2_18)
    return 0;
  for (size_t i = 0; i < sizeof(plugin) / sizeof(plugin[0]); i++)
    if (j->platform->instance_type && strcmp(j->platform->instance_type, plugin[i].type) == 0)
      return plugin[i].us;
  return 0;
}

/* Whether GPU g reaches its NIC within its PCIe switch (NCCL's PXB or closer: GPUDirect RDMA), not
 * up to the CPU's root complex: its route has one PCIe link, the GPU's own. */
static int gpu_near_nic(const ss_job* j, int g)
{
  const ss_platform* p = j->platform;
  int k = ss_platform_gpu_nic(p, g);
  if (k < 0)
    return 0;
  const ss_route* r = ss_platform_route(p, g, ss_platform_nic_node(p, k));
  int pcie = 0;
  for (int i = 0; i < r->nhops; i++)
    pcie += p->links[r->hops[i].link].cls == SS_LINK_PCIE || p->links[r->hops[i].link].cls == SS_LINK_SOCKET ||
            p->links[r->hops[i].link].cls == SS_LINK_SHM;
  return pcie <= 1;
}

/* The speeds NCCL's search tries through a NIC, for j's GPUs and release era e. */
static const double* speed_list(const ss_job* j, era e)
{
  return e >= ERA_2_18   ? (ss_proto_arch(j->platform->gpus[0].model) >= 90 ? speeds_sm90 : speeds_2_18)
         : e >= ERA_2_12 ? speeds_2_12
                         : speeds_2_7;
}

/* The tree's speed per channel inside an instance at 2 instances or fewer (2.7 on): NCCL's search
 * raises it from the network's speed (its channels' bwInter) through the higher speeds of its list
 * while it is below twice that and the instance's links carry nch channels at it (search.cc, "increase
 * bwIntra for trees (2 nodes or collnet)", 2.7.8 to 2.27.7), and its tuner takes it as the tree's
 * speed there (tuning.cc: bw = nNodes <= 2 ? bwIntra : bwInter). Each instance then sends and receives
 * the payload once, where a ring sends it 2(n-1)/n times: busbw up to 1.875 x the NICs' at 16 ranks. */
static double tree_speed_two_nodes(const ss_job* j, era e, int nch, double speed, double intra_gbs)
{
  const double* list = speed_list(j, e);
  int i = 0;
  while (list[i] > 0 && list[i] > speed)
    i++;
  double bw = speed;
  while (i > 0 && bw < 2 * speed && list[i - 1] * nch <= intra_gbs + 1e-9)
    bw = list[--i];
  return bw;
}

void ss_tuner_channels(const ss_job* j, int* channels, double* speed)
{
  const ss_platform* p = j->platform;
  era e = era_of(j->opt.nccl_version);
  *channels = 0;
  *speed = 0;
  if (p->nnics == 0)
    return;
  /* Each NIC's width as NCCL sees it: 12 GB/s whatever it is in 2.5 (NET_WIDTH), its speed after. */
  double nic = ss_cluster_nic_line_bandwidth(j) / p->nnics / 1e9;
  if (e <= ERA_2_5)
    nic = 12;
  double widest = 0;
  for (int g = 0; g < j->gpus_per_instance; g++) {
    int k = ss_platform_gpu_nic(p, g);
    if (k >= 0)
      widest = fmax(widest, ss_platform_route_bandwidth(p, g, ss_platform_nic_node(p, k)) / 1e9);
  }
  const double* list = speed_list(j, e);
  double top = fmin(widest, nic);
  int i = 0;
  while (list[i] > 0 && list[i] > top)
    i++;
  if (!(list[i] > 0))
    return;
  *speed = list[i];
  /* A channel per speed's worth of each NIC, as many as the rings inside the instance carry at that
   * speed, at most half of MAXCHANNELS (32): the tuner counts the search's channels, which NCCL then
   * doubles. */
  int per_nic = (int)floor(nic / *speed + 1e-9);
  int n = per_nic * p->nnics;
  double intra = 0;
  ss_proto_shape s;
  ss_cost_shape(j, SS_OP_ALLREDUCE, SS_ALLREDUCE_HIERARCHICAL, &s);
  intra = s.bus_bytes_per_s[SS_PHASE_INTRA] / 1e9;
  if (j->gpus_per_instance > 1 && intra > 0)
    n = (int)fmin(n, floor(intra / *speed + 1e-9));
  *channels = n < 1 ? 1 : n > 16 ? 16 : n;
}

/* llMaxBw (2.8+): [one instance: A100 or not / several: AMD CPUs or not][1, 2, more instances]. */
static double ll_max(const ss_job* j, int arch, int nodes)
{
  static const double table[2][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}};
  int row = nodes > 1 ? j->platform->cpu_vendor == SS_CPU_AMD : arch >= 80;
  return table[row][nodes <= 2 ? nodes - 1 : 2];
}

/* The tree's per-channel cap (2.8+) by architecture and instances. */
static double tree_cap(era e, int arch, int nodes)
{
  static const double volta[3] = {26.5, 18.5, 10.0}, ampere_2_8[3] = {24.0, 22.5, 16.0}, ampere[3] = {24.0, 23.6, 17.8},
                      hopper[3] = {38.7, 41.4, 36.0};
  const double* row = arch >= 90 && e >= ERA_2_14 ? hopper : arch >= 80 ? (e >= ERA_2_10 ? ampere : ampere_2_8) : volta;
  return row[nodes <= 2 ? nodes - 1 : 2];
}

/* NVLS's speed per channel inside an instance: its NVSwitch share (the intra ring's bus bandwidth over
 * the nch channels). */
static double speed_nvls(const ss_job* j, int nch)
{
  ss_proto_shape s;
  ss_cost_shape(j, SS_OP_ALLREDUCE, SS_ALLREDUCE_HIERARCHICAL, &s);
  return s.bus_bytes_per_s[SS_PHASE_INTRA] / 1e9 / (nch > 0 ? nch : 1);
}

/* Whether NCCL enables LL128 on this job by default. */
static int ll128_on(const ss_job* j, era e, int arch, int nvlink_inside)
{
  if (e < ERA_2_5 || !nvlink_inside)
    return 0;
  int near = 1;
  for (int g = 0; g < j->gpus_per_instance && j->instances > 1; g++)
    near = near && gpu_near_nic(j, g);
  if (e == ERA_2_5)
    return arch == 70 && near;
  /* 2.18 on: Hopper; Blackwell from its first release (2.23-2.27: minCompCap >= 90, tuning.cc). */
  return near && (arch == 70 || arch == 80 || (e >= ERA_2_18 && arch >= 90));
}

void ss_tuner_choose(const ss_job* j, ss_coll_op op, double bytes, ss_allreduce* alg, ss_proto* proto,
                     ss_tuner_entry table[2][3])
{
  era e = era_of(j->opt.nccl_version), te = e < ERA_2_5 ? ERA_2_5 : e;
  int nodes = j->instances, ppn = j->gpus_per_instance, ranks = j->ngpus;
  int steps = op == SS_OP_ALLREDUCE ? 2 * (ranks - 1) : ranks - 1;
  ss_proto_shape shape;
  ss_cost_shape(j, op, SS_ALLREDUCE_HIERARCHICAL, &shape);
  int arch = shape.arch, nvlink_inside = ppn < 2 || shape.hw[SS_PHASE_INTRA] == SS_HW_NVLINK;
  const double(*base)[3] = te >= ERA_2_18 ? base_2_18 : te >= ERA_2_7 ? base_2_7 : base_2_5;
  const double(*hw)[2][3] = te >= ERA_2_19   ? hw_2_19
                            : te >= ERA_2_18 ? hw_2_18
                            : te >= ERA_2_14 ? hw_2_8
                            : te >= ERA_2_12 ? hw_2_12
                            : te >= ERA_2_8  ? hw_2_8
                            : te >= ERA_2_7  ? hw_2_7
                                             : hw_2_5;
  int in_hw = nvlink_inside ? H_NVL : H_PCI;
  /* The bus bandwidth NCCL's graphs give: inside one instance its rings', across instances the
   * channels its search finds through the NICs. */
  int nch = 1;
  double bus = shape.bus_bytes_per_s[SS_PHASE_INTRA] / 1e9, tree_bus = bus, speed = 0;
  if (nodes > 1) {
    ss_tuner_channels(j, &nch, &speed);
    bus = tree_bus = nch * speed;
    if (nodes <= 2 && te >= ERA_2_7 && ppn > 1)
      tree_bus = nch * tree_speed_two_nodes(j, te, nch, speed, shape.bus_bytes_per_s[SS_PHASE_INTRA] / 1e9);
  } else {
    nch = j->intra.nrings > 0 ? j->intra.nrings : 1;
  }
  double plugin = plugin_latency_us(j);
  ss_tuner_entry local[2][3];
  ss_tuner_entry(*tab)[3] = table ? table : local;
  double best = -1;
  *alg = SS_ALLREDUCE_RING;
  *proto = SS_PROTO_SIMPLE;
  for (int a = 0; a < 2; a++)
    for (int p = 0; p < 3; p++) {
      ss_tuner_entry* out = &tab[a][p];
      *out = (ss_tuner_entry){-1, 0, 0};
      int algo = a == 0 ? A_RING : A_TREE;
      /* The tree: allreduce across instances, from 2.4 on (the simulator's tree spans instances). */
      if (algo == A_TREE && (op != SS_OP_ALLREDUCE || nodes < 2 || e < ERA_2_4))
        continue;
      if (p == 1 && !ll128_on(j, te, arch, nvlink_inside))
        continue;
      /* Bandwidth, by protocol and algorithm. */
      double bw = bus;
      if (algo == A_RING && p == 0)
        bw = te >= ERA_2_8 ? fmin(ll_max(j, arch, nodes), bw / 4) : bw / 4;
      else if (algo == A_RING && p == 1)
        bw = te >= ERA_2_18   ? fmin(bw * (ppn < 2 ? 0.7 : 0.92), nch * (arch >= 90 ? 36.7 : 20.0))
             : te >= ERA_2_10 ? fmin(bw * (ppn < 2 ? 0.7 : 0.92), 20.0 * nch)
             : te >= ERA_2_7  ? fmin(bw * (ppn < 2 ? 0.7 : 0.92), 16.7 * nch)
                              : fmin(bw * 120.0 / 128.0, 100.0);
      else if (algo == A_TREE) {
        bw = tree_bus;
        bw = te >= ERA_2_8   ? fmin(bw * .92, nch * tree_cap(te, arch, nodes))
             : te >= ERA_2_7 ? fmin(bw * .9, nodes > 2 ? 80.0 : 110.0)
                             : fmin(bw * .9, nodes > 1 ? 70.0 : 90.0);
        if (p == 0)
          bw = te >= ERA_2_8 ? fmin(bw / 3.8, ll_max(j, arch, nodes)) : te >= ERA_2_7 ? bw / 3.8 : bw / 3;
        else if (p == 1)
          bw = te >= ERA_2_10 ? fmin(bw * 120.0 / 128.0, 20.0 * nch) : bw * (te >= ERA_2_7 ? 0.915 : 7.0 / 9.0);
      }
      if (te >= ERA_2_7 && te < ERA_2_18 && arch == 80)
        bw = fmin(bw, 235.0);
      if (te >= ERA_2_18 && arch >= 90)
        bw = fmin(bw, 370.0);
      double alg_bw = algo == A_RING ? bw * ranks / steps : bw * 0.5;
      /* Latency. */
      double intra = hw[in_hw][algo == A_RING][p], inter = hw[H_NET][algo == A_RING][p];
      if (nodes > 1 && p == 0 && te >= ERA_2_7)
        intra *= 1.8;
      if (te >= ERA_2_18 && nodes > 1) {
        inter += plugin * (p == 2 ? 2 : 1);
        intra = fmax(intra, (j->platform->cpu_vendor == SS_CPU_AMD ? 2.0 : 1.0) * (p == 2 ? 3 : 1));
      }
      double lat = base[algo == A_RING][p];
      if (algo == A_RING) {
        int inter_steps = nodes < 2               ? 0
                          : op != SS_OP_ALLREDUCE ? nodes - 1
                          : te >= ERA_2_12        ? 2 * nodes
                                                  : 2 * (nodes - 1);
        if (te == ERA_2_5)
          lat += steps * (nodes > 1 ? hw[H_NET][1][p] : intra);
        else
          lat += (steps - inter_steps) * intra + inter_steps * inter;
        if (p == 2 && op == SS_OP_ALLREDUCE && nodes > 1 && te >= ERA_2_7) {
          if (te >= ERA_2_18 ? bytes / (2.0 * nch * ranks) >= 64 : bytes >= ranks / 16.0 * 65536)
            lat *= te >= ERA_2_18 && arch >= 80 ? 1.4 : 1.9;
        }
      } else {
        lat += 2 * ((ppn - 1) * intra + floor(log2(nodes)) * inter);
        if (te >= ERA_2_7) {
          int k = (int)floor(log2(fmax(bytes, 64) / 64));
          alg_bw *= tree_correction[p][k < 0 ? 0 : k > 22 ? 22 : k];
        }
      }
      if (!(alg_bw > 0))
        continue;
      double t = (lat + bytes / (1000 * alg_bw)) * 1e-6;
      *out = (ss_tuner_entry){t, lat, bw};
      if (best < 0 || t < best) {
        best = t;
        *alg = algo == A_RING ? SS_ALLREDUCE_RING : SS_ALLREDUCE_TREE;
        *proto = (ss_proto)(SS_PROTO_LL + p);
      }
    }
  /* What NCCL enables, for the plugin's tuner, which passes over a region whose pair NCCL does not. */
  unsigned allowed = 0;
  for (int a = 0; a < 2; a++)
    for (int p = 0; p < 3; p++)
      if (tab[a][p].time_s >= 0)
        allowed |= SS_OFI_ALLOW(a == 0 ? SS_OFI_RING : SS_OFI_TREE, SS_PROTO_LL + p);
  /* NVLS (one instance) and NVLS tree (several), Simple only (tuning.cc): NVLink SHARP reduces inside
   * each instance through the NVSwitch, and across instances a tree joins them. Each channel runs at
   * min(bwIntra, bwInter), the NVLS tree's bwInter halved beyond 2 instances (each then sends the
   * payload twice); algbw 5/6 of the bus. Latency: NVLS's NVLink step (23 us in 2.17-2.20, 25 from
   * 2.21), and for the NVLS tree 2 log2(nodes) network steps (14 us and the plugin's latency, twice for
   * Simple). Where NCCL runs it (ss_job_nvls_lacks: Hopper and later on an NVSwitch, 2.17 on one
   * instance, 2.19 over EFA, whose plugin disabled NVLS before 2.18.5: aws-ofi-nccl v1.8.1-aws
   * platform-aws.c) and --no-nvls does not switch it off (ss_job.nvls_share). The simulator runs it as
   * its tree on the Simple protocol (cost.h, ss_cost_tree_nvls), so it takes the tree's Simple row when
   * faster. */
  if (op == SS_OP_ALLREDUCE && j->nvls_share > 0 && ppn > 1) {
    double per = speed_nvls(j, nch);
    double bw = nch * (nodes > 1 ? fmin(per, nodes <= 2 ? speed : speed / 2) : per), alg_bw = bw * 5.0 / 6.0;
    double inter = 14.0 + 2 * plugin;
    double lat = (j->opt.nccl_version >= SS_NCCL_2_21 ? 25.0 : 23.0) + (nodes > 1 ? 2 * floor(log2(nodes)) * inter : 0);
    double t = alg_bw > 0 ? (lat + bytes / (1000 * alg_bw)) * 1e-6 : -1;
    if (t > 0 && nodes > 1)
      allowed |= SS_OFI_ALLOW(SS_OFI_NVLS_TREE, SS_PROTO_SIMPLE);
    if (t > 0 && (tab[1][2].time_s < 0 || t < tab[1][2].time_s)) {
      tab[1][2] = (ss_tuner_entry){t, lat, bw};
      if (best < 0 || t < best) {
        best = t;
        *alg = SS_ALLREDUCE_TREE;
        *proto = SS_PROTO_SIMPLE;
      }
    }
  }
  /* 2.4: the tree below a threshold computed at init (init.cc ncclTreeThreshold): per channel a ring
   * moves 5000 (x the channels over NVLink), a tree 2/3 of it (3/4 over NVLink, x 2 on exactly two
   * instances); a ring step costs 6 and a tree level 15 plus 4 per GPU of an instance. */
  if (e == ERA_2_4 && op == SS_OP_ALLREDUCE && nodes > 1) {
    double ring_bw = 5000.0 * (nvlink_inside ? nch : 1), tree_bw = ring_bw * (nvlink_inside ? 0.75 : 2.0 / 3.0);
    if (nvlink_inside && nodes == 2)
      tree_bw *= 2;
    double ring_lat = 6.0 * (ranks - 1), tree_lat = 15.0 * log2(nodes) + 4.0 * (ppn - 1);
    double ring_t = ring_lat + bytes / ring_bw, tree_t = tree_lat + bytes / tree_bw;
    *alg = tree_t < ring_t ? SS_ALLREDUCE_TREE : SS_ALLREDUCE_RING;
    /* The protocol: the 2.5 model's best for that algorithm. */
    int a = *alg == SS_ALLREDUCE_RING ? 0 : 1;
    double t = -1;
    for (int p = 0; p < 3; p++)
      if (tab[a][p].time_s >= 0 && (t < 0 || tab[a][p].time_s < t)) {
        t = tab[a][p].time_s;
        *proto = (ss_proto)(SS_PROTO_LL + p);
      }
  }
  /* The plugin's tuner sets its region's pair's cost to 0 in NCCL's table (its v3 interface): NCCL
   * then runs that pair. Its NVLS tree is the simulator's tree on Simple (NVLS inside each instance). */
  ss_ofi_algo region_alg;
  ss_proto region_proto;
  if (j->opt.ofi_tuner && !ss_tuner_ofi_lacks(j, NULL, 0) &&
      ss_ofitune_choose(ss_ofitune_platform(j->platform->instance_type), op, bytes, ranks, nodes, allowed, &region_alg,
                        &region_proto)) {
    *alg = region_alg == SS_OFI_RING ? SS_ALLREDUCE_RING : SS_ALLREDUCE_TREE;
    *proto = region_proto;
  }
}

int ss_tuner_ofi_lacks(const ss_job* j, char* why, size_t size)
{
  const char* r =
      j->net_transport != SS_NET_EFA ? "it is EFA's plugin, and NCCL runs over another transport here"
      : ss_ofitune_platform(j->platform->instance_type) == SS_OFI_NONE
          ? "the plugin has region tables for p5, p5e, p5en and p6-b200 only"
      : j->opt.nccl_version < SS_NCCL_2_21 ? "NCCL loads the plugin's tuner by default from 2.21"
      : j->instances < 3                   ? "the plugin leaves 2 instances or fewer to NCCL's model"
      : j->gpus_per_instance != 8          ? "the simulator has the plugin's tables for 8 GPUs per instance only"
      : j->opt.allreduce != SS_ALLREDUCE_AUTO || j->resolved.protocol != SS_PROTO_AUTO
          ? "the plugin's tuner does not load when the algorithm or the protocol is forced (NCCL_ALGO, NCCL_PROTO)"
      : j->opt.ideal ? "--ideal takes the simulator's fastest"
                     : NULL;
  if (r && why)
    snprintf(why, size, "%s", r);
  return r != NULL;
}

/* NCCL decides (not --ideal: the idealised model keeps the simulator's fastest, as before): across
 * instances, and on one instance an allreduce NCCL may run on NVLS (there the simulator's own choice is
 * the ring). */
static int nccl_decides(const ss_job* j, ss_coll_op op)
{
  return j->opt.allreduce == SS_ALLREDUCE_AUTO && !j->opt.ideal &&
         (j->instances > 1 || (op == SS_OP_ALLREDUCE && j->nvls_share > 0));
}

ss_allreduce ss_tuner_algorithm(const ss_job* j, ss_coll_op op, double bytes)
{
  if (op == SS_OP_ALL_TO_ALL)
    return SS_ALLREDUCE_RING; /* no algorithm to choose: sends to every peer (a2a.h) */
  if (j->opt.allreduce == SS_ALLREDUCE_FASTEST || (j->opt.allreduce == SS_ALLREDUCE_AUTO && !nccl_decides(j, op)))
    return ss_cost_choose(j, op, bytes);
  if (j->opt.allreduce != SS_ALLREDUCE_AUTO)
    return ss_cost_op_has(op, j->opt.allreduce) ? j->opt.allreduce : ss_cost_choose(j, op, bytes);
  ss_allreduce alg;
  ss_proto proto;
  ss_tuner_choose(j, op, bytes, &alg, &proto, NULL);
  return alg;
}

void ss_tuner_cost(const ss_job* j, ss_coll_op op, ss_allreduce alg, double bytes, ss_proto_cost* pc)
{
  if (op == SS_OP_ALL_TO_ALL) {
    ss_a2a_protocol(j, bytes, pc);
    return;
  }
  if (!nccl_decides(j, op) || !j->resolved.call_cost || j->resolved.protocol != SS_PROTO_AUTO) {
    ss_cost_protocol(j, op, alg, bytes, pc);
    return;
  }
  ss_tuner_entry table[2][3];
  ss_allreduce a;
  ss_proto p;
  ss_tuner_choose(j, op, bytes, &a, &p, table);
  /* The protocol chosen with the algorithm that runs, or NCCL's best for a twin it has none of. */
  if (alg != a) {
    int row = alg == SS_ALLREDUCE_TREE ? 1 : 0;
    double best = -1;
    for (int k = 0; k < 3; k++)
      if (table[row][k].time_s >= 0 && (best < 0 || table[row][k].time_s < best)) {
        best = table[row][k].time_s;
        p = (ss_proto)(SS_PROTO_LL + k);
      }
  }
  ss_cost_protocol_as(j, op, alg, bytes, p, pc);
}

/* The fastest protocol of a row of the model's table, or -1 where none is enabled. */
static int best_protocol(const ss_tuner_entry row[3])
{
  int best = -1;
  for (int k = 0; k < 3; k++)
    if (row[k].time_s >= 0 && (best < 0 || row[k].time_s < row[best].time_s))
      best = k;
  return best;
}

double ss_tuner_predict(const ss_job* j, ss_coll_op op, double bytes, ss_allreduce* alg, ss_proto* proto)
{
  if (op == SS_OP_ALL_TO_ALL)
    return -1; /* NCCL's tuning model has no all-to-all: its sends and receives are not tuned */
  ss_tuner_entry table[2][3];
  ss_tuner_choose(j, op, bytes, alg, proto, table);
  if (j->opt.allreduce == SS_ALLREDUCE_RING || j->opt.allreduce == SS_ALLREDUCE_TREE) {
    *alg = j->opt.allreduce;
    int k = best_protocol(table[*alg == SS_ALLREDUCE_TREE]);
    if (k < 0)
      return -1;
    *proto = (ss_proto)(SS_PROTO_LL + k);
  }
  if (j->resolved.protocol != SS_PROTO_AUTO)
    *proto = j->resolved.protocol;
  return table[*alg == SS_ALLREDUCE_TREE][*proto - SS_PROTO_LL].time_s;
}
