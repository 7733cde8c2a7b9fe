/* proto: NCCL's protocols and per-call cost, from NCCL v2.10.3-1's src/graph/tuning.cc. */
#include "proto.h"

#include <math.h>
#include <string.h>

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
 *   every 128 less NCCL's margin (no measurement in shared/data covers LL128).
 * - LL128 is on by default only within one node, over NVLink, on GPUs all of compute capability 7.0
 *   or all 8.0; NCCL_PROTO (--protocol) forces any protocol.
 * Not modelled: LL128's cap of 20 GB/s per channel (channels are not modelled), the tree's own
 * bandwidth factors (the tree uses the ring's efficiencies), the ring's Simple latency x 1.9 on
 * several nodes above nRanks/16 x 64 KiB ("plateau"), and the tree's size correction factors. */
enum { LL, LL128, SIMPLE, NPROTO };
static const double base_us[2][NPROTO] = {{3.6, 10.0, 8.4}, {4.4, 4.4, 0}}; /* [ring, tree][proto] */
static const double hw_us[SS_HW_COUNT][2][NPROTO] = {
    {{.47, 1.9, 3.4}, {.52, 1.25, 28}},
    {{1.0, 2.5, 5.7}, {1.0, 1.9, 28}},
    {{2.7, 4.0, 9.6}, {5.0, 8.5, 28}},
};
static const double ll_max_gbytes_per_s[2][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}};
#define LL_FRACTION 0.25
#define LL128_FRACTION 0.92
#define LL128_FRACTION_PPN1 0.7
#define LL_INTRA_MULTINODE 1.8
#define A100_MAX_GBYTES_PER_S 235.0

/* Compute capabilities by a substring of the gpu_model name (NVIDIA's CUDA GPUs list). */
static const struct {
  const char* name;
  int arch;
} arch_table[] = {{"K80", 37}, {"M60", 52}, {"P100", 60}, {"V100", 70}, {"T4", 75}, {"2080", 75},
                  {"A100", 80}, {"A10G", 86}, {"H100", 90}, {"H200", 90}};

ss_hw ss_proto_hw_of(ss_link_class cls)
{
  switch (cls) {
    case SS_LINK_NVLINK:
    case SS_LINK_NVSWITCH: return SS_HW_NVLINK;
    case SS_LINK_NIC: return SS_HW_NET;
    default: return SS_HW_PCI;
  }
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

const char* ss_proto_name(ss_proto p)
{
  static const char* const names[SS_PROTO_COUNT] = {"auto", "LL", "LL128", "Simple"};
  return p >= 0 && p < SS_PROTO_COUNT ? names[p] : "?";
}

void ss_proto_cost_none(ss_proto_cost* c)
{
  memset(c, 0, sizeof(*c));
  c->proto = SS_PROTO_SIMPLE;
  for (int k = 0; k < SS_PHASE_COUNT; k++)
    c->eff[k] = 1;
}

int ss_proto_enabled(ss_proto p, const ss_proto_shape* s)
{
  if (p != SS_PROTO_LL128)
    return p == SS_PROTO_LL || p == SS_PROTO_SIMPLE;
  if (s->nodes != 1 || (s->arch != 70 && s->arch != 80))
    return 0;
  for (int k = 0; k < SS_PHASE_COUNT; k++)
    if (s->steps[k] > 0 && s->hw[k] != SS_HW_NVLINK)
      return 0;
  return 1;
}

/* Payload fraction of protocol index q on a phase of bus bandwidth bw (bytes/s). */
static double efficiency(int q, const ss_proto_shape* s, double bw)
{
  if (bw <= 0)
    return 1; /* a phase that does not run */
  double gb = bw / 1e9, bus = s->arch == 80 ? fmin(gb, A100_MAX_GBYTES_PER_S) : gb;
  if (q == LL) {
    int row = s->nodes == 1 && s->arch == 80, col = s->nodes <= 2 ? s->nodes - 1 : 2;
    bus = fmin(bus * LL_FRACTION, ll_max_gbytes_per_s[row][col]);
  } else if (q == LL128) {
    bus *= s->ranks_per_node < 2 ? LL128_FRACTION_PPN1 : LL128_FRACTION;
  }
  return bus / gb;
}

void ss_proto_cost_of(ss_proto p, const ss_proto_shape* s, ss_proto_cost* c)
{
  int q = p == SS_PROTO_LL ? LL : p == SS_PROTO_LL128 ? LL128 : SIMPLE;
  memset(c, 0, sizeof(*c));
  c->proto = p;
  c->call_s = base_us[s->tree ? 1 : 0][q] * 1e-6;
  for (int k = 0; k < SS_PHASE_COUNT; k++) {
    double us = hw_us[s->hw[k]][k == SS_PHASE_TREE][q];
    if (q == LL && s->nodes > 1 && s->hw[k] != SS_HW_NET)
      us *= LL_INTRA_MULTINODE;
    c->step_s[k] = us * 1e-6;
    c->eff[k] = efficiency(q, s, s->bus_bytes_per_s[k]);
  }
}

double ss_proto_latency_s(const ss_proto_shape* s, const ss_proto_cost* c)
{
  double t = c->call_s;
  for (int k = 0; k < SS_PHASE_COUNT; k++)
    t += s->steps[k] * c->step_s[k];
  return t;
}
