/* proto: NCCL's protocols and per-call cost, from NCCL v2.10.3-1's src/graph/tuning.cc. */
#include "proto.h"

#include "err.h"

#include <math.h>
#include <string.h>

/* ss_proto_nvls_share's calibrated figures. */
#define NVLS_HOPPER 0.8428
#define NVLS_BLACKWELL 0.7352

/* Sources (all NCCL v2.10.3-1, src/graph/tuning.cc, read at tag v2.10.3-1 of github.com/NVIDIA/nccl;
 * v2.9.9-1, the version of the p4d measurement, has the same ring figures):
 * - baseLat: the latency of a call, in us: ring LL 3.6, LL128 10.0, Simple 8.4; tree 4.4, 4.4, 0.
 * - hwLat: the latency of a step by hardware, in us: NVLink ring .47 / 1.9 / 3.4, tree .52 / 1.25 / 28;
 *   PCIe ring 1.0 / 2.5 / 5.7, tree 1.0 / 1.9 / 28; network ring 2.7 / 4.0 / 9.6, tree 5.0 / 8.5 / 28.
 *   NCCL multiplies LL's intra-node step latency by 1.8 on several nodes.
 * - Bandwidth: an allreduce over a ring moves LL at 1/4 of the bus bandwidth, at most llMaxBw (GB/s:
 *   39.0 / 39.0 / 20.4 on one / two / more nodes, except A100s on one node 87.7; several nodes with
 *   Intel CPUs assumed), LL128 at 0.92 of it ("120/128", 0.7 with fewer than 2 GPUs per node), Simple
 *   at all of it; A100s at most 235 GB/s. This module uses these fractions as the protocols'
 *   efficiency in the simulation too: Simple 1 relative to the links' calibrated rates (p4d's and
 *   p5's NVSwitch links were calibrated at 1 GiB, where NCCL uses Simple: docs/validation.md); LL 1/4
 *   rather than its wire format's 1/2 (8-byte lines carrying 4 bytes of data and a 4-byte flag),
 *   which the 2 x RTX 2080 Ti curve confirms: its LL sizes grow at 5.0-5.2 GB/s for a Simple rate of
 *   21.3 GB/s, 0.24 of it (docs/validation.md, "NCCL protocols"); LL128 0.92, its 120 payload bytes of
 *   every 128 less NCCL's margin (no measurement in shared/data covers LL128). The caps (llMaxBw,
 *   235 GB/s) are rates: a phase takes at least its payload over the cap (ss_proto_floor_s).
 * - LL128 is on by default only within one node, over NVLink, on GPUs all of compute capability 7.0
 *   or all 8.0; NCCL_PROTO (--protocol) forces any protocol.
 * Not modelled: LL128's cap of 20 GB/s per channel (channels are not modelled), the tree's own
 * bandwidth factors (the tree uses the ring's efficiencies), the ring's Simple latency x 1.9 on
 * several nodes above nRanks/16 x 64 KiB ("plateau"), and the tree's size correction factors. */
const char* const ss_proto_names[] = {"auto", "ll", "ll128", "simple", NULL};

/* The figures above, a row per protocol (ss_protocol's fields in order: name, baseLat [ring, tree],
 * hwLat [NVLink, PCIe, network][ring, tree], the multi-node factor, the payload fractions, llMaxBw,
 * LL128's rule); AUTO has a name and no facts: it is the tuner's choice among the others. */
static const ss_protocol protocols[SS_PROTO_COUNT] = {
    [SS_PROTO_AUTO] = {.name = "auto"},
    [SS_PROTO_LL] = {"LL",
                     {3.6, 4.4},
                     {{.47, .52}, {1.0, 1.0}, {2.7, 5.0}},
                     1.8,
                     0.25,
                     0.25,
                     {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}},
                     0,
                     {0}},
    [SS_PROTO_LL128] = {"LL128", {10.0, 4.4}, {{1.9, 1.25}, {2.5, 1.9}, {4.0, 8.5}}, 1, 0.92, 0.7, {{0}}, 1, {70, 80}},
    [SS_PROTO_SIMPLE] = {"Simple", {8.4, 0}, {{3.4, 28}, {5.7, 28}, {9.6, 28}}, 1, 1, 1, {{0}}, 0, {0}},
};
#define A100_MAX_GBYTES_PER_S 235.0

/* Compute capabilities by a substring of the gpu_model name (NVIDIA's CUDA GPUs list). */
static const struct {
  const char* name;
  int arch;
} arch_table[] = {{"K80", 37},  {"M60", 52},  {"P100", 60}, {"V100", 70}, {"T4", 75},   {"2080", 75},   {"A100", 80},
                  {"A10G", 86}, {"L40S", 89}, {"L4", 89},   {"H100", 90}, {"H200", 90}, {"GB200", 100}, {"B200", 100}};

const ss_protocol* ss_proto_of(ss_proto p)
{
  ss_assert(p > SS_PROTO_AUTO && p < SS_PROTO_COUNT);
  return &protocols[p];
}

const char* ss_proto_name(ss_proto p)
{
  return p >= 0 && p < SS_PROTO_COUNT ? protocols[p].name : "?";
}

ss_hw ss_proto_hw_max(ss_hw a, ss_hw b)
{
  return a > b ? a : b;
}

int ss_proto_arch(const char* gpu_model)
{
  for (size_t i = 0; gpu_model && i < sizeof(arch_table) / sizeof(arch_table[0]); i++)
    if (strstr(gpu_model, arch_table[i].name))
      return arch_table[i].arch;
  return 0;
}

/* NVLS's share of the NVSwitch links' rate, CALIBRATED on one node's NVLS allreduce (NCCL's own choice
 * at 16 GiB, 8 GPUs; calibration/efa_microbenchmarks_2026.csv, rows that no validation row holds): set
 * so that stash-sim bench allreduce --allreduce tree on one instance prints the measured busbw, the
 * instance file's NVSwitch links being those that give the ring its measured rate.
 * Hopper (90): 482.26 GB/s on 8 x H200 (EFA26-ST-H200-1N-16GiB; platforms/p5en.48xl.xml).
 * Blackwell (100): 845.67 GB/s on 8 x B200 (EFA26-ST-B200-1N-16GiB; platforms/p6-b200.48xl.xml).
 * NVLS came with Hopper's NVSwitch: 0 before it and for a GPU the table does not know. */
double ss_proto_nvls_share(int arch)
{
  return arch >= 100 ? NVLS_BLACKWELL : arch >= 90 ? NVLS_HOPPER : 0;
}

void ss_proto_cost_none(ss_proto_cost* c)
{
  memset(c, 0, sizeof(*c));
  c->proto = SS_PROTO_SIMPLE;
  for (int k = 0; k < SS_PHASE_COUNT; k++)
    c->eff[k] = 1;
}

/* Whether arch is one of r's architectures (r has some). */
static int has_arch(const ss_protocol* r, int arch)
{
  for (size_t i = 0; i < sizeof(r->archs) / sizeof(r->archs[0]); i++)
    if (r->archs[i] != 0 && r->archs[i] == arch)
      return 1;
  return 0;
}

int ss_proto_enabled(ss_proto p, const ss_proto_shape* s)
{
  if (p <= SS_PROTO_AUTO || p >= SS_PROTO_COUNT)
    return 0;
  const ss_protocol* r = &protocols[p];
  if (r->archs[0] != 0 && !has_arch(r, s->arch))
    return 0;
  if (!r->one_nvlink_node)
    return 1;
  if (s->nodes != 1)
    return 0;
  for (int k = 0; k < SS_PHASE_COUNT; k++)
    if (s->steps[k] > 0 && s->hw[k] != SS_HW_NVLINK)
      return 0;
  return 1;
}

/* Payload fraction of protocol r on the shape: a share of the bytes, whatever the bandwidth. */
static double efficiency(const ss_protocol* r, const ss_proto_shape* s)
{
  return s->ranks_per_node < 2 ? r->fraction_one_gpu : r->fraction;
}

/* The payload's cap of protocol r on the shape (bytes/s of bus bandwidth), 0 for none: the A100's
 * bus at most 235 GB/s (times the protocol's fraction: payload) and llMaxBw. NCCL's tuner takes
 * min(fraction x bus, caps) as the protocol's bus bandwidth; here the caps stay rates (a floor on
 * the phase's time), not a share of the bytes computed from a bus bandwidth: that share would grow
 * the bytes, and so the time, on every hop of a phase as one of its links got faster (issue 39). */
static double cap(const ss_protocol* r, const ss_proto_shape* s)
{
  double gb = s->arch == 80 ? A100_MAX_GBYTES_PER_S * efficiency(r, s) : 0;
  int row = s->nodes == 1 && s->arch == 80, col = s->nodes <= 1 ? 0 : s->nodes == 2 ? 1 : 2;
  double ll = r->max_gbytes_per_s[row][col];
  if (ll > 0)
    gb = gb > 0 ? fmin(gb, ll) : ll;
  return gb * 1e9;
}

void ss_proto_cost_of(ss_proto p, const ss_proto_shape* s, ss_proto_cost* c)
{
  const ss_protocol* r = ss_proto_of(p);
  int alg = s->tree ? 1 : 0;
  memset(c, 0, sizeof(*c));
  c->proto = p;
  c->call_s = r->call_us[alg] * 1e-6;
  for (int k = 0; k < SS_PHASE_COUNT; k++) {
    double us = r->step_us[s->hw[k]][k == SS_PHASE_TREE];
    if (s->nodes > 1 && s->hw[k] != SS_HW_NET)
      us *= r->multinode_step;
    c->step_s[k] = us * 1e-6;
    c->eff[k] = efficiency(r, s);
    c->cap_bytes_per_s[k] = cap(r, s);
  }
}

double ss_proto_latency_s(const ss_proto_shape* s, const ss_proto_cost* c)
{
  double t = c->call_s;
  for (int k = 0; k < SS_PHASE_COUNT; k++)
    t += s->steps[k] * c->step_s[k];
  return t;
}

double ss_proto_floor_s(const ss_proto_cost* c, ss_proto_phase k, int steps, double payload_bytes)
{
  if (!(c->cap_bytes_per_s[k] > 0) || steps <= 0)
    return 0;
  return steps * (c->step_s[k] + payload_bytes / c->cap_bytes_per_s[k]);
}
