/* e2e_collectives: allreduce times of "stash-sim bench allreduce" against closed forms (ring,
 * hierarchical, tree, each without and with NCCL's protocols), reduce-scatter's and all-gather's,
 * the protocol the tuner picks and --protocol, the algorithm AUTO picks, the fast fidelity against
 * the reference, --no-nvlink, the network transports. */
#include "e2e.h"
#include "nccl.h"
#include "net.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char* const fidelities[] = {"fast", "reference"};

/* NCCL 2.10.3-1's tuning.cc figures the closed forms use, typed here from that file (not taken from
 * sim/proto.c): with each protocol option, the per-call latency of the ring (hierarchical too) and
 * of the tree, the latency of a ring step over PCIe (the stars' links) and over the network, of a
 * tree level over the network, LL's factor on intra-instance steps of several instances, and the
 * efficiency (LL: 1/4 of the stars' 10 GB/s, under every llMaxBw cap). */
typedef struct proto_case {
  const char* opt;
  double call_ring, call_tree, step_pci, step_net, step_tree, intra_multi, eff;
} proto_case;
static const proto_case protos[] = {
    {"--no-call-cost", 0, 0, 0, 0, 0, 1, 1},
    {"--protocol simple", 8.4e-6, 0, 5.7e-6, 9.6e-6, 28e-6, 1, 1},
    {"--protocol ll", 3.6e-6, 4.4e-6, 1.0e-6, 2.7e-6, 5.0e-6, 1.8, 0.25},
};
#define NPROTOS (sizeof(protos) / sizeof(protos[0]))

/* Run "bench allreduce BASE" at S bytes with each protocol option and fidelity against expect[q],
 * the closed form with protos[q]; alg (if not NULL): the algorithm it must have run. */
static void check_closed_forms_tol(const char* base, double s, const double* expect, const char* alg, double tol)
{
  for (size_t q = 0; q < NPROTOS; q++)
    for (int f = 0; f < 2; f++) {
      char args[320], ran[64];
      snprintf(args, sizeof(args), "%s --fidelity %s %s", base, fidelities[f], protos[q].opt);
      double t = bench_time(args, s, ran, sizeof(ran));
      CHECK(fabs(t - expect[q]) <= tol * expect[q], "%s, S=%g: %.12g s, closed form %.12g s", args, s, t, expect[q]);
      CHECK(!alg || strcmp(ran, alg) == 0, "%s: ran '%s'", args, ran);
    }
}

static void check_closed_forms(const char* base, double s, const double* expect, const char* alg)
{
  check_closed_forms_tol(base, s, expect, alg, 1e-6);
}

/* Closed forms of rings whose chunks fill a connection's buffer (ss_nccl_window 1) on stars: the
 * longest path may trade a move for a stay at the hop across where that costs more (a few tenths of
 * a microsecond per period of the ring, more where the hop across also has the network's longer step
 * latency: 4.3 us in 17.8 ms on 4 x star2), which the bound of ring_latency leaves out. */
#define RING_BOUND_TOL 3e-4

/* The latencies a chunk meets on `steps` consecutive hops of a ring over m stars of g GPUs (every
 * link 5 us): 10 us inside a star, 20 us for the hop to the next star (GPU link, NIC, NIC, GPU
 * link); the chunk that starts at a star's last GPU crosses ceil(steps / g) times. NCCL pipelines
 * the ring, so a step waits at no hop but its own (docs/model.md, "Allreduce algorithms"). */
static double chain_latency(int steps, int g, int m)
{
  int cross = m > 1 ? (steps + g - 1) / g : 0;
  return cross * 20e-6 + (steps - cross) * 10e-6;
}

/* The latency part of a ring phase of `steps` steps of `wire` bytes each (per chunk on the wire) on
 * m stars of g GPUs, with the protocol's latency per step `step_in` on a hop inside a star and
 * `step_net` on the hop to the next star (NCCL's model: a step pays the latency of the hardware it
 * crosses): the chain's, each step after its chunk arrived and its step's latency; when a connection's
 * buffer holds one chunk (ss_nccl_window: chunks over 2 MiB) a rank also sends a step only once its
 * previous one has landed, so the ring takes at least the slowest hop's latency per step after the
 * first step's. */
static double ring_latency(int steps, int g, int m, double wire, double step_in, double step_net)
{
  int cross = m > 1 ? (steps + g - 1) / g : 0;
  double chain = chain_latency(steps, g, m) + cross * step_net + (steps - cross) * step_in;
  return ss_nccl_window(wire) > 1 ? chain : fmax(chain, (m > 1 ? step_net : step_in) + steps * (m > 1 ? 20e-6 : 10e-6));
}

/* A ring allreduce of S bytes on m stars of g GPUs (N = g m) takes call + 2(N-1)(step + S/(N B eff))
 * plus the latencies of its 2(N-1) steps (ring_latency) (alpha-beta without the per-call cost: call =
 * step = 0, eff = 1); on one star 2(N-1) x 10 us, the lock-step ring's; across stars every step a
 * network step. */
void test_ring_closed_form(void)
{
  const double bw = 10e9; /* tests/platforms/star*.xml: links of 5 us, 10 GB/s */
  const double sizes[] = {1e6, 1e8, 4e9};
  const struct {
    const char* file;
    int n, instances;
    double alpha;
  } cases[] = {{"star2", 2, 1, 10e-6}, {"star4", 4, 1, 10e-6},  {"star8", 8, 1, 10e-6},
               {"star4", 8, 2, 20e-6}, {"star4", 16, 4, 20e-6}, {"star2", 8, 4, 20e-6}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    for (int k = 0; k < 3; k++) {
      if (thinned())
        continue;
      int n = cases[i].n;
      char base[256];
      snprintf(base, sizeof(base), "tests/platforms/%s.xml --instances %d --allreduce ring", cases[i].file,
               cases[i].instances);
      double expect[NPROTOS];
      for (size_t q = 0; q < NPROTOS; q++) {
        int m = cases[i].instances, g = n / m, steps = 2 * (n - 1);
        double in = protos[q].step_pci * (m > 1 ? protos[q].intra_multi : 1);
        expect[q] = protos[q].call_ring +
                    ring_latency(steps, g, m, sizes[k] / n / protos[q].eff, in, m > 1 ? protos[q].step_net : in) +
                    steps * sizes[k] / (n * bw * protos[q].eff);
      }
      check_closed_forms_tol(base, sizes[k], expect, "ring",
                             cases[i].instances > 1 && ss_nccl_window(sizes[k] / cases[i].n) == 1 ? RING_BOUND_TOL
                                                                                                  : 1e-6);
      /* --no-ring-pipeline: the lock-step ring, every step after the previous one has ended everywhere,
       * so each step pays the largest hop latency (20 us across stars): call + 2(N-1)(alpha + step +
       * S/(N B eff)), at both fidelities. */
      snprintf(base, sizeof(base), "tests/platforms/%s.xml --instances %d --allreduce ring --no-ring-pipeline",
               cases[i].file, cases[i].instances);
      for (size_t q = 0; q < NPROTOS; q++) {
        double step = cases[i].instances > 1 ? protos[q].step_net : protos[q].step_pci;
        expect[q] = protos[q].call_ring + 2.0 * (n - 1) * (cases[i].alpha + step + sizes[k] / (n * bw * protos[q].eff));
      }
      check_closed_forms(base, sizes[k], expect, "ring");
    }
  /* What the run reports: the switch as used (--ideal turns the pipelined ring off too). */
  const char* lockstep[] = {"", "--no-ring-pipeline", "--ideal"};
  for (int k = 0; k < 3; k++) {
    cJSON* j = sim_json("tests/platforms/star4.xml tests/workloads/tiny.json --instances 2 --synthetic %s",
                        lockstep[k]);
    cJSON* o = j ? cJSON_GetObjectItemCaseSensitive(j, "options") : NULL;
    cJSON* v = o ? cJSON_GetObjectItemCaseSensitive(o, "ring_pipeline") : NULL;
    CHECK(v && (k == 0 ? cJSON_IsTrue(v) : cJSON_IsFalse(v)), "%s: options.ring_pipeline", lockstep[k]);
    cJSON_Delete(j);
  }
}

/* Hierarchical allreduce on m stars of g GPUs: the call, then reduce-scatter and allgather inside
 * each star, 2(g-1) hops of alpha 10 us (and a PCIe step) and S/g bytes at 10 GB/s x eff; across
 * stars 2(m-1) network steps of S/(g m) bytes with alpha 20 us, the g GPUs of a star sharing its
 * 10 GB/s NIC, or all g m flows sharing the switch core of m x 10 GB/s / oversub when that is less. */
void test_hierarchical_closed_form(void)
{
  const double bw = 10e9;
  const double sizes[] = {1e6, 1e8, 4e9};
  const struct {
    const char* file;
    int g, m;
    double oversub;
  } cases[] = {{"star4", 4, 2, 1}, {"star4", 4, 4, 1}, {"star2", 2, 8, 1},
               {"star8", 8, 1, 1}, {"star2", 2, 4, 4}, {"star4", 4, 2, 1.5}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    for (int k = 0; k < 3; k++) {
      if (thinned())
        continue;
      int g = cases[i].g, m = cases[i].m;
      char base[256];
      int n = snprintf(base, sizeof(base), "tests/platforms/%s.xml --instances %d --allreduce hierarchical",
                       cases[i].file, m);
      /* --oversub only where there is a switch to oversubscribe. */
      if (m > 1)
        snprintf(base + n, sizeof(base) - (size_t)n, " --oversub %g", cases[i].oversub);
      double s = sizes[k], cross = fmin(bw / g, m * bw / cases[i].oversub / (g * m)), expect[NPROTOS];
      for (size_t q = 0; q < NPROTOS; q++) {
        const proto_case* pc = &protos[q];
        double in_step = pc->step_pci * (m > 1 ? pc->intra_multi : 1);
        expect[q] = pc->call_ring + 2.0 * (g - 1) * (10e-6 + in_step + s / g / (bw * pc->eff)) +
                    2.0 * (m - 1) * (20e-6 + pc->step_net + s / g / m / (cross * pc->eff));
      }
      check_closed_forms(base, s, expect, NULL);
    }
}

/* Tree allreduce on m stars of g GPUs (m = 2^k - 1, so that every node of the double binary tree
 * is inner in at most one tree): the call, reduce-scatter and allgather inside each star as
 * hierarchical; across stars each half of the S/g shard goes up then down its tree in K chunks of C
 * bytes (C / eff on the wire), (depth + K - 1) steps each way, every NIC direction carrying two
 * transfers per GPU, and each way the protocol's latency of the depth levels. */
void test_tree_closed_form(void)
{
  const double bw = 10e9;
  const double sizes[] = {1e4, 1e6, 1e8, 4e9};
  const struct {
    const char* file;
    int g, m;
  } cases[] = {{"star2", 1, 3}, {"star2", 1, 7}, {"star2", 2, 7}, {"star4", 4, 3}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    for (int k = 0; k < 4; k++) {
      if (thinned())
        continue;
      int g = cases[i].g, m = cases[i].m, depth = m == 3 ? 1 : 2;
      char base[256];
      /* Several GPUs per star: in lock-step, the halves inside before and after the trees (the
       * pipelined form shares the stars' GPU links between them: below). */
      snprintf(base, sizeof(base), "tests/platforms/%s.xml --gpus %d --instances %d --allreduce tree%s", cases[i].file,
               g, m, g > 1 ? " --no-ring-pipeline" : "");
      double s = sizes[k], half = s / g / 2, chunks = fmin(64, fmax(1, ceil(half / (512.0 * 1024)))), expect[NPROTOS];
      for (size_t q = 0; q < NPROTOS; q++) {
        const proto_case* pc = &protos[q];
        /* Each phase: the chunks leave one after the other at the pace of a NIC direction carrying
         * two transfers (complementary trees), their latencies overlapping: depth + K - 1 chunk times
         * and depth latencies. */
        double x = half / chunks / pc->eff / (bw / (2.0 * g));
        double across = g > 1 ? (depth + chunks - 1) * (20e-6 + x) /* lock-step: each chunk after the last landed */
                              : (depth + chunks - 1) * x + depth * 20e-6;
        expect[q] = pc->call_tree + 2.0 * (g - 1) * (10e-6 + pc->step_pci * pc->intra_multi + s / g / (bw * pc->eff)) +
                    2.0 * across + 2.0 * depth * pc->step_tree;
      }
      /* The reference over 7 stars: each chunk leaves at the pace of the busiest NIC direction it
       * crosses, but a link's chunks in flight share it (SimGrid) where the fast fidelity's go in
       * order: 0.7% above at 1e8 B. */
      check_closed_forms_tol(base, s, expect, NULL, g == 1 && m == 7 ? 1e-2 : 1e-6);
    }
  /* Pipelined (NCCL's chunks through the halves inside and the trees at once): no longer than in
   * lock-step, no shorter than the longer of the work inside and across. */
  for (int k = 2; k < 4; k++)
    for (int f = 0; f < 2; f++) {
      if (thinned())
        continue;
      char args[320];
      snprintf(args, sizeof(args),
               "tests/platforms/star4.xml --instances 3 --allreduce tree --fidelity %s --no-call-cost", fidelities[f]);
      double piped = bench_time(args, sizes[k], NULL, 0);
      snprintf(
          args, sizeof(args),
          "tests/platforms/star4.xml --instances 3 --allreduce tree --fidelity %s --no-call-cost --no-ring-pipeline",
          fidelities[f]);
      double lock = bench_time(args, sizes[k], NULL, 0);
      double s = sizes[k], inside = 2.0 * 3 * (10e-6 + s / 4 / bw), half = s / 8, chunks = 64;
      double across = 2.0 * ((chunks)*half / chunks / (bw / 8.0) + 20e-6);
      CHECK(piped <= lock * (1 + 1e-9) && piped >= fmax(inside, across) * (1 - 1e-9),
            "%s, S=%g: pipelined %.9g s, lock-step %.9g s, inside %.9g s, across %.9g s", args, s, piped, lock, inside,
            across);
    }
}

/* Reduce-scatter and all-gather: each half of the allreduce's steps. On a star of N GPUs (or m stars
 * joined by their NICs, N = 4m, every step a network step of alpha 20 us) the ring takes call + (N-1)
 * (alpha + step + S/(N B eff)), S the whole buffer; hierarchical on m stars of g GPUs takes call +
 * (g-1)(10 us + in_step + S/g/(B eff)) + (m-1)(20 us + net step + S/(g m)/(cross eff)), inside
 * then across for reduce-scatter, across then inside for all-gather. NCCL runs neither on a tree. */
void test_rs_ag_closed_form(void)
{
  const double bw = 10e9, sizes[] = {1e6, 1e8};
  const char* const ops[] = {"reduce-scatter", "all-gather"};
  const struct {
    const char* file;
    const char* alg;
    int g, m;
    double oversub;
  } cases[] = {{"star4", "ring", 4, 1, 1},         {"star4", "ring", 4, 2, 1},
               {"star2", "ring", 2, 4, 1},         {"star4", "hierarchical", 4, 2, 1},
               {"star2", "hierarchical", 2, 8, 1}, {"star4", "hierarchical", 4, 2, 1.5}};
  for (int o = 0; o < 2; o++)
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
      for (int k = 0; k < 2; k++) {
        if (thinned())
          continue;
        int g = cases[i].g, m = cases[i].m, n = g * m, ring = strcmp(cases[i].alg, "ring") == 0;
        double s = sizes[k], cross = fmin(bw / g, m * bw / cases[i].oversub / (g * m));
        for (size_t q = 0; q < NPROTOS; q++) {
          const proto_case* pc = &protos[q];
          double expect = ring ? pc->call_ring +
                                     ring_latency(n - 1, g, m, s / n / pc->eff,
                                                  pc->step_pci * (m > 1 ? pc->intra_multi : 1),
                                                  m > 1 ? pc->step_net : pc->step_pci) +
                                     (n - 1) * s / (n * bw * pc->eff)
                               : pc->call_ring +
                                     (g - 1) * (10e-6 + pc->step_pci * pc->intra_multi + s / g / (bw * pc->eff)) +
                                     (m - 1) * (20e-6 + pc->step_net + s / g / m / (cross * pc->eff));
          for (int f = 0; f < 2; f++) {
            char args[320], ran[64];
            int len = snprintf(args, sizeof(args),
                               "tests/platforms/%s.xml --instances %d --allreduce %s --fidelity %s %s", cases[i].file,
                               m, cases[i].alg, fidelities[f], pc->opt);
            if (m > 1)
              snprintf(args + len, sizeof(args) - (size_t)len, " --oversub %g", cases[i].oversub);
            double t = bench_op_time(ops[o], args, s, ran, sizeof(ran));
            double tol = ring && m > 1 && ss_nccl_window(s / n) == 1 ? RING_BOUND_TOL : 1e-6;
            CHECK(fabs(t - expect) <= tol * expect && strcmp(ran, cases[i].alg) == 0,
                  "bench %s %s, S=%g: %.12g s (%s), closed form %.12g s", ops[o], args, s, t, ran, expect);
          }
        }
      }
}

/* The protocol NCCL's tuner picks switches where the predicted times cross: a protocol's time is
 * call + steps x step + 2(n-1)/n x S / (B eff) (the hop latency is the same for all), so between
 * protocols a (smaller latency, lower efficiency) and b the switch is at
 * S* = (lat_b - lat_a) / (2(n-1)/n / B x (1/eff_a - 1/eff_b)), computed here from tuning.cc's figures.
 * star4 (PCIe, a GPU NCCL has no LL128 for): LL then Simple; p4d (8 A100, NVSwitch, bus bandwidth
 * 231.57 GB/s): LL, LL128, Simple (test_auto_choice: LL128 never across instances nor on PCIe). */
void test_protocol_switch(void)
{
  const struct {
    const char* args;
    int n;
    double bus, lat_a, eff_a, lat_b, eff_b;
    const char* a;
    const char* b;
  } cases[] = {
      {"tests/platforms/star4.xml", 4, 10e9, 3.6e-6 + 6 * 1.0e-6, 0.25, 8.4e-6 + 6 * 5.7e-6, 1, "LL", "Simple"},
      {"platforms/p4d.24xl.xml", 8, 231.57e9, 3.6e-6 + 14 * 0.47e-6, 0.25, 10e-6 + 14 * 1.9e-6, 0.92, "LL", "LL128"},
      {"platforms/p4d.24xl.xml", 8, 231.57e9, 10e-6 + 14 * 1.9e-6, 0.92, 8.4e-6 + 14 * 3.4e-6, 1, "LL128", "Simple"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    int n = cases[i].n;
    double per_byte = 2.0 * (n - 1) / n / cases[i].bus;
    double at = (cases[i].lat_b - cases[i].lat_a) / (per_byte * (1 / cases[i].eff_a - 1 / cases[i].eff_b));
    for (int f = 0; f < 2; f++) {
      char args[256], below[16], above[16];
      snprintf(args, sizeof(args), "%s --fidelity %s", cases[i].args, fidelities[f]);
      bench_proto(args, floor(at * 0.99), below, sizeof(below));
      bench_proto(args, ceil(at * 1.01), above, sizeof(above));
      CHECK(strcmp(below, cases[i].a) == 0 && strcmp(above, cases[i].b) == 0,
            "%s: switch %s -> %s at %.0f B; below it '%s', above '%s'", args, cases[i].a, cases[i].b, at, below, above);
    }
  }
}

/* --protocol forces the protocol whatever NCCL would enable: LL128 on the PCIe star costs its call
 * and step latencies (10 us, 2.5 us) and moves S / 0.92; forced LL on p4d at 1 GiB is LL. */
void test_protocol_forced(void)
{
  const double s = 1e6;
  for (int f = 0; f < 2; f++) {
    char args[256], proto[16];
    snprintf(args, sizeof(args), "tests/platforms/star4.xml --protocol ll128 --fidelity %s", fidelities[f]);
    double t = bench_proto(args, s, proto, sizeof(proto));
    double expect = 10e-6 + 6 * (10e-6 + 2.5e-6 + s / 4 / (10e9 * 0.92));
    CHECK(strcmp(proto, "LL128") == 0 && fabs(t - expect) <= 1e-6 * expect, "%s: %s, %.12g s, closed form %.12g s",
          args, proto, t, expect);
  }
  char proto[16];
  bench_proto("platforms/p4d.24xl.xml --protocol ll", 1073741824, proto, sizeof(proto));
  CHECK(strcmp(proto, "LL") == 0, "p4d --protocol ll: '%s'", proto);
}

/* AUTO takes the ring on one instance, and across instances the algorithm with the shortest
 * predicted time: the tree's log-depth latency for small sizes, hierarchical's bandwidth for
 * large ones (p3.16xl x 16: 8 B tree, 1 GiB hierarchical). The protocol: LL128 on one instance of
 * V100s over NVLink at 4 MiB, Simple there across instances or over PCIe (T4), none with --ideal. */
void test_auto_choice(void)
{
  const struct {
    const char* args;
    double bytes;
    const char* want;
    int proto;
  } cases[] = {
      {"platforms/p3.16xl.xml", 8, "ring", 0},
      {"platforms/p3.16xl.xml", 1073741824, "ring", 0},
      {"platforms/p3.16xl.xml --instances 16", 8, "tree", 0},
      /* NCCL's choice (its model, 2.21): the flat ring at 1 GiB, where the simulator's fastest is
       * hierarchical (test_auto_fastest). */
      {"platforms/p3.16xl.xml --instances 16", 1073741824, "ring", 0},
      {"platforms/p3.16xl.xml --instances 16 --allreduce fastest", 1073741824, "hierarchical", 0},
      {"platforms/p3.16xl.xml", 4194304, "LL128", 1},
      {"platforms/p3.16xl.xml --instances 2 --allreduce ring", 4194304, "Simple", 1},
      {"platforms/p3.16xl.xml --instances 2 --allreduce hierarchical", 4194304, "Simple", 1},
      {"platforms/g4dn.12xl.xml", 4194304, "Simple", 1},
      {"platforms/p4d.24xl.xml --ideal", 4194304, "none", 1},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char got[64];
    (cases[i].proto ? bench_proto : bench_time)(cases[i].args, cases[i].bytes, got, sizeof(got));
    CHECK(strcmp(got, cases[i].want) == 0, "%s, %g B: ran '%s', expected '%s'", cases[i].args, cases[i].bytes, got,
          cases[i].want);
  }
}

/* Across instances --allreduce fastest (the what-if; auto is NCCL's own choice, test_auto_choice)
 * runs an algorithm as fast as the fastest of those the simulator has for the collective, as
 * simulated: its prediction (cost.c) prices each ring's way between instances as the simulation
 * runs it (the flat rings cross by the NICs their chains end at: two channels through each NIC on
 * p4d.24xlarge and p5.48xlarge). 2 instances, 100 MB and 4 GB, allreduce and all-gather. */
void test_auto_fastest(void)
{
  const char* const plats[] = {"p4d.24xl.xml", "p4d.24xl.xml --nic-gbps 1600 --net-transport ib", "p5.48xl.xml",
                               "g5.48xl.xml"};
  const char* const ops[] = {"allreduce", "all-gather"};
  const char* const algs[] = {"fastest", "ring", "hierarchical", "tree"};
  const double sizes[] = {1e8, 4e9};
  for (size_t p = 0; p < sizeof(plats) / sizeof(plats[0]); p++)
    for (int o = 0; o < 4; o++) {
      double t[4] = {0}, best = 1e300, s = sizes[o / 2];
      for (int a = 0; a < (o % 2 == 0 ? 4 : 3); a++) {
        cJSON* j = sim_json("bench %s platforms/%s --instances 2 --allreduce %s --min-bytes %g --max-bytes %g "
                            "--iters 1",
                            ops[o % 2], plats[p], algs[a], s, s);
        t[a] = num(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "results"), 0), "time_s");
        if (a > 0)
          best = fmin(best, t[a]);
        cJSON_Delete(j);
      }
      /* The prediction of the flat ring through p5's 8 NICs (16 channels, each GPU's PCIe link
       * shared by two) is within 12% of its simulation, not exact: there, within 12%. */
      double tol = strstr(plats[p], "p5") ? 0.12 : 1e-9;
      CHECK(t[0] > 0 && t[0] <= best * (1 + tol),
            "%s %g B %s x 2: auto %.6g s, the fastest %.6g s (ring %.6g, "
            "hierarchical %.6g, tree %.6g)",
            ops[o % 2], s, plats[p], t[0], best, t[1], t[2], t[3]);
    }
}

/* The fast fidelity (one flow per hop and phase) against the reference (one communication per
 * chunk and step) where flows contend: PCIe switches and the inter-socket link of p2.16xl, a NIC
 * shared by 4 GPUs (g4dn.12xl) or by 8 rings or trees whose routes differ (p3.16xl: GPUs of socket 1
 * reach the NIC over one more link, so SimGrid gives their flows a smaller share and the
 * reference's rings drift apart and fill each other's latency gaps, which the fast phases take
 * from ss_cost_nic_hidden), 4 NICs shared by 8 GPUs (p4d), an oversubscribed switch core. Within
 * 1%. The global ring on p3.16xl is held to 1% on bandwidth-bound sizes only (x 2 at 64 KiB: 1.5%;
 * see docs/performance.md). */
void test_fast_vs_reference(void)
{
  const struct {
    const char* args;
    int first_size;
  } cases[] = {
      {"platforms/p2.16xl.xml --allreduce ring", 0},
      {"platforms/g4dn.12xl.xml --instances 4 --allreduce ring", 0},
      {"platforms/g4dn.12xl.xml --instances 4 --allreduce hierarchical", 0},
      {"platforms/p4d.24xl.xml --instances 2 --allreduce ring", 0},
      {"platforms/p4d.24xl.xml --instances 2 --allreduce hierarchical", 0},
      {"platforms/p3.16xl.xml --instances 2 --allreduce ring", 1},
      {"platforms/p3.16xl.xml --instances 2 --allreduce hierarchical", 0},
      {"platforms/p3.16xl.xml --instances 16 --allreduce hierarchical", 0},
      {"platforms/p3.16xl.xml --instances 2 --allreduce tree", 0},
      {"tests/platforms/star4.xml --instances 4 --allreduce ring --oversub 2", 0},
      {"platforms/g4dn.12xl.xml --instances 7 --allreduce tree", 0},
      {"platforms/p4d.24xl.xml --instances 3 --allreduce tree", 0},
      {"tests/platforms/star4.xml --instances 8 --allreduce tree", 0},
      {"tests/platforms/star4.xml --instances 16 --allreduce tree", 0},
      {"platforms/p5.48xl.xml --instances 2 --allreduce tree", 0},
  };
  const double sizes[] = {65536, 8388608, 67108864};
  /* A ring whose chunks contend with other rings' on a shared link (the oversubscribed core) while a
   * connection has several in flight: the reference shares the link among each connection's chunks
   * (SimGrid shares a link per communication), which delays each chunk where NCCL's in-order chunks
   * (the fast fidelity's) are not: the fast fidelity is up to 3.4% below it there (8 MiB). */
  const double shared_core_tol = 0.06;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    for (int k = cases[i].first_size; k < 3; k++) {
      if (thinned())
        continue;
      char args[512];
      snprintf(args, sizeof(args), "%s --fidelity fast", cases[i].args);
      double fast = bench_time(args, sizes[k], NULL, 0);
      snprintf(args, sizeof(args), "%s --fidelity reference", cases[i].args);
      double ref = bench_time(args, sizes[k], NULL, 0);
      /* p4d's flat ring across 2 instances, 8 channels through its 4 NICs with several chunks in
       * flight each (8 MiB: 64 KiB chunks), was 5.4% apart until the reference's channels left their
       * chunks at the rings' rate (issue 42): within 1% then, 3.8% since its NIC links' latency (below). */
      int shared = strstr(cases[i].args, "ring") && strstr(cases[i].args, "--oversub");
      /* The tree's chunks, several in flight on each connection (issue 42), and its halves inside
       * beside the trees: where its flows share a NIC direction or a GPU's link with others', the
       * reference's share each link among the chunks in flight, the fast fidelity's leave in order, as
       * the ring's above: up to 5.1% apart (star4 x 16 at 64 MiB). */
      shared = shared || (strstr(cases[i].args, "tree") && !strstr(cases[i].args, "p5.48xl"));
      double tol = shared ? shared_core_tol : 0.01;
      /* Steps larger than NCCL's chunk have two chunks in flight since issue 42 (one before): on p3.16xl's
       * hierarchical phases at 64 MiB the reference's two share the PCIe and inter-socket links, the fast
       * fidelity's leave in order: 1.03% apart. */
      if (strstr(cases[i].args, "p3.16xl.xml --instances 2 --allreduce hierarchical") && k == 2)
        tol = 0.015;
      /* p4d's NIC links at EFA v1's 35.32 us (issue 42; 10 us before): at 8 MiB the flat ring's 64 KiB
       * chunks take about as long on the wire as their latency, where the two fidelities part most
       * (docs/model.md: up to 11% at 2 MiB): 3.8% apart. */
      if (strstr(cases[i].args, "p4d.24xl.xml --instances 2 --allreduce ring") && k == 1)
        tol = 0.04;
      CHECK(fabs(fast - ref) <= tol * ref, "%s, S=%g: fast %.9g s, reference %.9g s (%.2f%%)", cases[i].args, sizes[k],
            fast, ref, 100 * (fast - ref) / ref);
    }
  /* Reduce-scatter and all-gather, where the phases contend as the allreduce's do. */
  const struct {
    const char* op;
    const char* args;
  } halves[] = {
      {"reduce-scatter", "platforms/g4dn.12xl.xml --instances 4 --allreduce ring"},
      {"all-gather", "platforms/g4dn.12xl.xml --instances 4 --allreduce hierarchical"},
      {"reduce-scatter", "platforms/p3.16xl.xml --instances 4 --allreduce hierarchical"},
      {"all-gather", "platforms/p3.16xl.xml --instances 16 --allreduce hierarchical"},
      {"all-gather", "platforms/p4d.24xl.xml --instances 2 --allreduce hierarchical"},
      {"reduce-scatter", "tests/platforms/star4.xml --instances 4 --allreduce ring --oversub 2"},
  };
  for (size_t i = 0; i < sizeof(halves) / sizeof(halves[0]); i++)
    for (int k = 0; k < 3; k++) {
      if (thinned())
        continue;
      char args[512];
      snprintf(args, sizeof(args), "%s --fidelity fast", halves[i].args);
      double fast = bench_op_time(halves[i].op, args, sizes[k], NULL, 0);
      snprintf(args, sizeof(args), "%s --fidelity reference", halves[i].args);
      double ref = bench_op_time(halves[i].op, args, sizes[k], NULL, 0);
      double tol = strstr(halves[i].args, "--oversub") && strstr(halves[i].args, "ring") ? shared_core_tol : 0.01;
      CHECK(fabs(fast - ref) <= tol * ref, "%s %s, S=%g: fast %.9g s, reference %.9g s (%.2f%%)", halves[i].op,
            halves[i].args, sizes[k], fast, ref, 100 * (fast - ref) / ref);
    }
}

/* The same at cluster scale, 1024 GPUs: 256 x g4dn.12xlarge (4 GPUs and their 4 trees share each NIC),
 * the tree (its hierarchical at 8 MiB, within 1%, left out since issue 42 for CI's 20 minutes: 41 s
 * of its reference run); 128 x p3.16xlarge (8 per NIC, routes that differ),
 * hierarchical at 8 MiB (at 64 MiB, 4.1% apart before issue 42's two chunks in flight and 0.5% since,
 * docs/model.md, "Allreduce algorithms", left out since issue 42 to keep CI within its 20 minutes: 33 s
 * of its reference run). The fast runs simulate 8 instances, the references all of them. Within 1% (the
 * tree at 64 MiB: 9%, below). Not the
 * tree on p3.16xlarge: there the reference's 8 trees per NIC drift apart and spread each other's
 * busy steps, which the fast tree's lock-step phase does not see (3-8% at 1024 GPUs,
 * docs/performance.md, "Cluster scale with the defaults"). */
void test_fast_vs_reference_scale(void)
{
  const struct {
    const char* platform;
    int instances;
    const char* alg;
    double bytes;
  } cases[] = {{"g4dn.12xl", 256, "tree", 65536},
               {"g4dn.12xl", 256, "tree", 67108864},
               {"p3.16xl", 128, "hierarchical", 8388608}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char args[256];
    snprintf(args, sizeof(args), "platforms/%s.xml --instances %d --allreduce %s --fidelity fast", cases[i].platform,
             cases[i].instances, cases[i].alg);
    double fast = bench_time(args, cases[i].bytes, NULL, 0);
    snprintf(args, sizeof(args), "platforms/%s.xml --instances %d --allreduce %s --fidelity reference",
             cases[i].platform, cases[i].instances, cases[i].alg);
    double ref = bench_time(args, cases[i].bytes, NULL, 0);
    double tol = 0.01;
    /* The tree at 64 MiB: several chunks in flight on each connection (issue 42), which the reference
     * shares each link among where the fast fidelity's leave in order, over 8 levels and 4 GPUs per
     * NIC: the fast fidelity 8.2% below (as the rings over a shared link, test_fast_vs_reference). */
    if (strcmp(cases[i].alg, "tree") == 0 && cases[i].bytes > 6e7)
      tol = 0.09;
    CHECK(fabs(fast - ref) <= tol * ref, "%s, S=%g: fast %.9g s, reference %.9g s (%.2f%%)", args, cases[i].bytes, fast,
          ref, 100 * (fast - ref) / ref);
  }
}

/* --no-nvlink: a p3.16xlarge's GPUs talk over PCIe (a 256 MiB allreduce falls from NVLink's busbw
 * to PCIe's, under a fifth); a p2.16xlarge has no NVLink, so nothing changes. */
void test_no_nvlink(void)
{
  char alg[32];
  double nv = bench_time("platforms/p3.16xl.xml", 268435456, alg, sizeof(alg));
  double pcie = bench_time("platforms/p3.16xl.xml --no-nvlink", 268435456, alg, sizeof(alg));
  CHECK(pcie > 5 * nv, "p3.16xlarge allreduce %.6g s with NVLink, %.6g s without", nv, pcie);
  /* The table: the JSON and CSV echo the option itself. */
  run_result a = runs(SS_SIM_BIN, "platforms/p2.16xl.xml workloads/resnet50.json --synthetic");
  run_result b = runs(SS_SIM_BIN, "platforms/p2.16xl.xml workloads/resnet50.json --synthetic --no-nvlink");
  CHECK(a.status == 0 && b.status == 0 && strcmp(a.out, b.out) == 0, "p2.16xlarge changed without NVLink");
  run_free(&a);
  run_free(&b);
  cJSON* j = sim_json("platforms/p3.8xl.xml workloads/resnet50.json --synthetic --no-nvlink");
  CHECK(j && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "nvlink")), "JSON says nvlink false");
  cJSON_Delete(j);
}

/* Network transports (docs/model.md, "Network transports"): a NIC link carries its line rate times
 * the transport's fraction f and adds half its cost per message m to its latency, so a ring over two
 * star2 instances (N = 4) takes the latencies of its chain (3 hops inside, 10 us; 3 across, 20 us +
 * m) at small sizes, the hop across's latency and 2(N-1) S/(N f B) at large ones, at both
 * fidelities.
 * star2 names no transport (the NIC links as they are); star2_net names socket with f = 0.5 and
 * m = 30 us of its own, which hold for socket (auto or given) and give way to the defaults of another
 * transport. */
void test_net_transport(void)
{
  const double bw = 10e9, sizes[] = {1e3, 1e8};
  const struct {
    const char* file;
    const char* transport;
    double f, m_us;
  } cases[] = {
      {"star2", "auto", 1, 0},
      {"star2", "off", 1, 0},
      {"star2", "socket", ss_net_default(SS_NET_SOCKET).line_fraction, ss_net_default(SS_NET_SOCKET).message_us},
      {"star2", "ib", ss_net_default(SS_NET_IB).line_fraction, ss_net_default(SS_NET_IB).message_us},
      {"star2", "efa", ss_net_default(SS_NET_EFA).line_fraction, ss_net_default(SS_NET_EFA).message_us},
      {"star2_net", "auto", 0.5, 30},
      {"star2_net", "socket", 0.5, 30},
      {"star2_net", "efa", ss_net_default(SS_NET_EFA).line_fraction, ss_net_default(SS_NET_EFA).message_us}};
  /* The table's figures (sim/net.c), as docs/model.md gives them. */
  CHECK(ss_net_default(SS_NET_SOCKET).line_fraction == 0.54 && ss_net_default(SS_NET_SOCKET).message_us == 20 &&
            ss_net_default(SS_NET_IB).line_fraction == 0.96 && ss_net_default(SS_NET_IB).message_us == 0 &&
            ss_net_default(SS_NET_EFA).line_fraction == 0.60 && ss_net_default(SS_NET_EFA).message_us == 3.9,
        "the transport table differs from docs/model.md");
  for (int fi = 0; fi < 2; fi++)
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
      for (int k = 0; k < 2; k++) {
        char args[256];
        /* --no-socket-cpu where NCCL runs its socket transport (elsewhere it has no effect: refused). */
        int socket = strcmp(cases[i].transport, "socket") == 0 ||
                     (strcmp(cases[i].file, "star2_net") == 0 && strcmp(cases[i].transport, "auto") == 0);
        snprintf(args, sizeof(args),
                 "tests/platforms/%s.xml --instances 2 --allreduce ring --fidelity %s --no-call-cost --net-transport "
                 "%s%s",
                 cases[i].file, fidelities[fi], cases[i].transport, socket ? " --no-socket-cpu" : "");
        double t = bench_time(args, sizes[k], NULL, 0);
        /* (Without the socket transport's threads, e2e.socket_cpu's: star2's NIC is no ENA, and one
         * thread an end would bind at 1e8.) 6 steps of a pipelined ring over 2 stars of 2: a chunk meets 3 hops inside (10 us, S/4 at
         * B) and 3 across (20 us + m, S/4 at f B); at large sizes the hop across, whose chunks leave
         * one after the other, sets the pace: its latency once, then 6 chunks at f B. */
        double in = 10e-6 + sizes[k] / (4 * bw), across = 20e-6 + cases[i].m_us * 1e-6,
               x = sizes[k] / (4 * cases[i].f * bw);
        double expect = ss_nccl_window(sizes[k] / 4) > 1 ? fmax(3 * in + 3 * (across + x), across + 6 * x)
                                                         : 6 * (across + x);
        CHECK(fabs(t - expect) <= 1e-6 * expect, "%s, S=%g: %.12g s, closed form %.12g s", args, sizes[k], t, expect);
      }
  /* A run reports the transport it simulated, and its NICs at line rate. */
  cJSON* j = sim_json("tests/platforms/star2_net.xml tests/workloads/tiny.json --instances 2 --synthetic");
  const cJSON* tr = j ? cJSON_GetObjectItemCaseSensitive(j, "net_transport") : NULL;
  CHECK(cJSON_IsString(tr) && strcmp(tr->valuestring, "socket") == 0, "star2_net: transport not reported");
  CHECK(j && num(j, "net_line_fraction") == 0.5 && num(j, "net_message_us") == 30 && num(j, "nic_gbps") == 80,
        "star2_net: figures reported %g, %g, %g Gb/s", j ? num(j, "net_line_fraction") : NAN,
        j ? num(j, "net_message_us") : NAN, j ? num(j, "nic_gbps") : NAN);
  cJSON_Delete(j);
  /* EFA by generation (efa_version, sim/net.c ss_net_efa): today's stack from NCCL 2.18, the older
   * stacks' 0.60 before, and on an instance that names no generation. */
  static const struct {
    const char* args;
    double f;
  } efa[] = {
      {"platforms/p4d.24xl.xml", 0.9166},
      {"platforms/p5.48xl.xml", 0.8934},
      {"platforms/p5e.48xl.xml", 0.8934},
      {"platforms/p5en.48xl.xml", 0.9230},
      {"platforms/p6-b200.48xl.xml", 0.9548},
      {"platforms/p5.48xl.xml --nccl-version 2.17", 0.60},
      {"platforms/p5.48xl.xml --nccl-version 2.18", 0.8934},
      {"platforms/p3dn.24xl.xml", 0.60},
      {"platforms/g6e.48xl.xml", 0.60},
  };
  for (size_t i = 0; i < sizeof(efa) / sizeof(efa[0]); i++) {
    j = sim_json("%s tests/workloads/tiny.json --instances 2 --synthetic --iterations 2 --warmup 1", efa[i].args);
    CHECK(j && num(j, "net_line_fraction") == efa[i].f, "%s: EFA at %g of line, expected %g", efa[i].args,
          j ? num(j, "net_line_fraction") : NAN, efa[i].f);
    cJSON_Delete(j);
  }
}

/* Flows between instances (docs/model.md, "Flows between instances"): star2_net's NIC is AWS's ENA
 * and NCCL runs its socket transport there, so each connection between instances carries at most
 * its sockets x AWS's cap per TCP flow (10 Gb/s in a placement group, 5 outside). A ring over two
 * stars at 1e8 bytes (steps of 25 MB: two of NCCL's chunks in flight per connection) takes the hop
 * across's latency once (20 us + 30 us per message) and 6 steps of S/4 at the smaller of 0.5 x 10 GB/s
 * and the connection's cap. */
void test_flow_cap(void)
{
  const double s = 1e8, nic = 0.5 * 10e9, gbps = 1e9 / 8;
  const struct {
    const char* opt;
    double conn; /* bytes/s one connection may carry; 0: the NIC's share only */
    int sockets;
    double cap_gbps;
  } cases[] = {
      {"", 16 * 10 * gbps, 16, 10},                                  /* NCCL 2.21 on ENA: 2 threads x 8 sockets */
      {"--nccl-version 2.4.8", 16 * 10 * gbps, 16, 10},              /* the first release with them */
      {"--nccl-version 2.4", 10 * gbps, 1, 10},                      /* one socket before */
      {"--nccl-version 2.3 --placement-group off", 5 * gbps, 1, 5},  /* outside a placement group */
      {"--nccl-sockets 3", 30 * gbps, 3, 10},                        /* NCCL_SOCKET_NTHREADS x NSOCKS_PERTHREAD */
      {"--nccl-version 2.3 --no-flow-cap --no-socket-cpu", 0, 1, 0}, /* one thread: its CPU would bind */
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    for (int f = 0; f < 2; f++) {
      char args[256];
      snprintf(args, sizeof(args),
               "tests/platforms/star2_net.xml --instances 2 --allreduce ring --no-call-cost --fidelity %s %s",
               fidelities[f], cases[i].opt);
      double t = bench_time(args, s, NULL, 0);
      double bw = cases[i].conn > 0 ? fmin(nic, cases[i].conn) : nic;
      double expect = 50e-6 + 6 * s / 4 / bw;
      CHECK(fabs(t - expect) <= 1e-4 * expect, "%s, S=%g: %.9g s, closed form %.9g s", args, s, t, expect);
    }
  /* What the run reports: the release, the flows per connection and the cap. */
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    cJSON* j = sim_json("tests/platforms/star2_net.xml tests/workloads/tiny.json --instances 2 --synthetic %s",
                        cases[i].opt);
    CHECK(j && num(j, "socket_flows_per_connection") == cases[i].sockets &&
              num(j, "flow_cap_gbps") == cases[i].cap_gbps,
          "%s: %g flows per connection, cap %g Gb/s", cases[i].opt, j ? num(j, "socket_flows_per_connection") : NAN,
          j ? num(j, "flow_cap_gbps") : NAN);
    cJSON_Delete(j);
  }
  /* EFA is no TCP flow: no cap, no sockets; --ideal neither. */
  const char* uncapped[] = {"--net-transport efa", "--ideal"};
  for (int k = 0; k < 2; k++) {
    cJSON* j = sim_json("tests/platforms/star2_net.xml tests/workloads/tiny.json --instances 2 --synthetic %s",
                        uncapped[k]);
    CHECK(j && num(j, "flow_cap_gbps") == 0, "%s: cap %g Gb/s", uncapped[k], j ? num(j, "flow_cap_gbps") : NAN);
    cJSON_Delete(j);
  }
}

/* The socket transport's CPU (docs/model.md, "The socket transport's CPU"). The same ring over two
 * star2_net instances as e2e.flow_cap, without the cap on flows: the hop across moves 6 steps of S/4
 * at the NIC's 5 GB/s, unless the receiving end's threads are slower: 0.3 s of a reference core per
 * GB (star2_net's cores are reference cores) over n threads moves n / 0.3e-9 bytes/s. The threads
 * work from when a step's chunk is posted, so each step's latency (50 us) hides behind their work,
 * at most all of it: the time lies between 6 S/4 / rate (50 us + 6 S/4 / rate at the NIC's rate: two
 * chunks in flight pay the latency once) and 6 (50 us + S/4 / rate). */
void test_socket_cpu(void)
{
  const double s = 1e8, nic = 0.5 * 10e9, chunk = s / 4, lat = 50e-6;
  const struct {
    const char* opt;
    double rate; /* bytes/s of the hop across */
  } cases[] = {
      {"", nic},                          /* 2.21 on ENA: 2 threads, 6.7 GB/s, above the NIC */
      {"--nccl-version 2.3", 1 / 0.3e-9}, /* the proxy thread alone */
      {"--nccl-sockets 1", 1 / 0.3e-9},   /* no more threads than sockets */
      {"--nccl-version 2.3 --socket-cpu-s-per-gb 0.5", 1 / 0.5e-9},
      {"--socket-cpu-s-per-gb 0.9", 2 / 0.9e-9}, /* 2 threads */
      {"--nccl-version 2.3 --no-socket-cpu", nic},
      {"--nccl-version 2.3 --socket-cpu-s-per-gb 0", nic},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    for (int f = 0; f < 2; f++) {
      char args[256];
      snprintf(args, sizeof(args),
               "tests/platforms/star2_net.xml --instances 2 --allreduce ring --no-call-cost --no-flow-cap --fidelity "
               "%s %s",
               fidelities[f], cases[i].opt);
      double t = bench_time(args, s, NULL, 0);
      double lo = cases[i].rate < nic ? 6 * chunk / cases[i].rate : lat + 6 * chunk / nic;
      double hi = 6 * (lat + chunk / cases[i].rate);
      CHECK(t >= lo * (1 - 1e-6) && t <= hi * (1 + 1e-6), "%s: %.9g s, expected %.9g to %.9g s", args, t, lo, hi);
    }
  /* What the run reports. */
  const struct {
    const char* opt;
    int threads;
    double per_gb;
  } rep[] = {{"", 2, 0.3},
             {"--nccl-version 2.3", 1, 0.3},
             {"--socket-cpu-s-per-gb 1.5", 2, 1.5},
             {"--no-socket-cpu", 0, 0},
             {"--ideal", 0, 0},
             {"--net-transport efa", 0, 0}};
  for (size_t i = 0; i < sizeof(rep) / sizeof(rep[0]); i++) {
    cJSON* j = sim_json("tests/platforms/star2_net.xml tests/workloads/tiny.json --instances 2 --synthetic %s",
                        rep[i].opt);
    CHECK(j && num(j, "socket_cpu_threads") == rep[i].threads && num(j, "socket_cpu_s_per_gb") == rep[i].per_gb,
          "%s: %g threads at %g s/GB", rep[i].opt, j ? num(j, "socket_cpu_threads") : NAN,
          j ? num(j, "socket_cpu_s_per_gb") : NAN);
    cJSON_Delete(j);
  }
  /* The threads share the cores with the loaders: tiny's input pipeline (2 ms of a core per sample,
   * batch 16, 3 workers a GPU: 6 on star2_net's 8 cores) bounds the iteration at 32 / 3 ms. While a
   * transfer is in flight, NCCL 2.21's 2 polling threads at each end (4 an instance) make 10
   * executions on 8 cores: the loaders' share falls (to no less than 8/10 of a core each), and the
   * iteration and the CPU stall grow. With one thread an end (2.3, no cap on flows) 8 executions fit
   * the 8 cores: the loaders keep their pace, and the receiving thread, slower than the NIC, turns
   * CPU stall into network stall. */
  const char* run = "tests/platforms/star2_net.xml tests/workloads/tiny.json --instances 2 --workers 3 --batch 16 "
                    "--compute-scale 0.1 --no-flow-cap";
  cJSON* off = sim_json("%s --no-socket-cpu", run);
  cJSON* on = sim_json("%s", run);
  cJSON* one = sim_json("%s --nccl-version 2.3", run);
  CHECK(off && on && one, "the three runs");
  if (off && on && one) {
    double t0 = num(off, "iteration_s"), t1 = num(on, "iteration_s"), t2 = num(one, "iteration_s");
    const cJSON* b0 = cJSON_GetObjectItemCaseSensitive(off, "breakdown");
    const cJSON* b1 = cJSON_GetObjectItemCaseSensitive(on, "breakdown");
    const cJSON* b2 = cJSON_GetObjectItemCaseSensitive(one, "breakdown");
    double prep0 = num(b0, "prep_stall_s"), prep1 = num(b1, "prep_stall_s"), prep2 = num(b2, "prep_stall_s");
    double net0 = num(b0, "network_stall_s"), net2 = num(b2, "network_stall_s");
    CHECK(fabs(t0 - 32e-3 / 3) <= 1e-3 * t0, "without the socket CPU: %.9g s, the loaders' bound %.9g s", t0,
          32e-3 / 3);
    CHECK(t1 > t0 + 1e-4 && t1 <= t0 / 0.8 && prep1 - prep0 >= 0.9 * (t1 - t0),
          "2 threads an end: %.9g s against %.9g s, CPU stall %.9g s against %.9g s", t1, t0, prep1, prep0);
    CHECK(fabs(t2 - t0) <= 1e-4 * t0 && net2 > net0 + 1e-4 && prep2 < prep0 - 1e-4,
          "one thread an end: %.9g s against %.9g s, network stall %.9g s against %.9g, CPU stall %.9g s against "
          "%.9g s",
          t2, t0, net2, net0, prep2, prep0);
  }
  cJSON_Delete(off);
  cJSON_Delete(on);
  cJSON_Delete(one);
}

/* bench's JSON gives NCCL's own prediction beside the simulated time: on 2 x p3dn.24xlarge at 8 B
 * with NCCL 2.21 its model takes the tree with LL, 331.92 us of latency (unit.nccl's figures:
 * 6.8 + 2 (7 x 1.08 + log2(2) x (5 + 150))); with --allreduce ring (NCCL_ALGO=ring) the ring with
 * LL, 645.48 us; the bandwidth term adds under 0.01% at 8 B. The tree on one instance, which NCCL
 * does not enable there, has no prediction (null). */
void test_bench_nccl_model(void)
{
  const struct {
    const char* args;
    const char* alg;
    double latency_s;
  } cases[] = {
      {"platforms/p3dn.24xl.xml --instances 2 --nccl-version 2.21", "tree", 331.92e-6},
      {"platforms/p3dn.24xl.xml --instances 2 --nccl-version 2.21 --allreduce ring", "ring", 645.48e-6},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    cJSON* j = sim_json("bench allreduce %s --min-bytes 8 --max-bytes 8 --iters 2 --format json", cases[i].args);
    const cJSON* row = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "results"), 0);
    const cJSON* alg = cJSON_GetObjectItemCaseSensitive(row, "nccl_model_algorithm");
    const cJSON* proto = cJSON_GetObjectItemCaseSensitive(row, "nccl_model_protocol");
    double t = row ? num(row, "nccl_model_time_s") : NAN;
    CHECK(cJSON_IsString(alg) && strcmp(alg->valuestring, cases[i].alg) == 0 && cJSON_IsString(proto) &&
              strcmp(proto->valuestring, "LL") == 0 && t >= cases[i].latency_s && t <= cases[i].latency_s * 1.0001,
          "%s: NCCL's model %.12g s (%s, %s), expected %s LL at %.12g s", cases[i].args, t,
          cJSON_IsString(alg) ? alg->valuestring : "?", cJSON_IsString(proto) ? proto->valuestring : "?", cases[i].alg,
          cases[i].latency_s);
    cJSON_Delete(j);
  }
  cJSON* j = sim_json("bench allreduce platforms/p3.16xl.xml --allreduce tree --min-bytes 8 --max-bytes 8 --iters 2 "
                      "--format json");
  const cJSON* row = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "results"), 0);
  CHECK(row && cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "nccl_model_time_s")),
        "one instance, --allreduce tree: NCCL's model has no tree there, its time should be null");
  cJSON_Delete(j);
}

/* Issue 39: on 4 x p4d.24xlarge a faster NIC made a 128 MiB allreduce slower (3.5, 5.0 and 361 ms at
 * 3200, 6400 and 800000 Gb/s, NCCL's tree and LL128), the protocols' caps being taken as a share of
 * the bytes over the NIC's nominal rate, above what the GPUs' PCIe links to it carry. Every
 * algorithm at both fidelities: the time never grows with the NIC (1e-9 and SimGrid's 1 ns), and the
 * PCIe links bound it, so it stays within 5% from 3200 Gb/s on (26.3 GB/s for each GPU's way to its
 * NIC against 400 GB/s of EFA), and 3200 Gb/s is at least 1.5 times as fast as the file's 400 (network-bound
 * there: EFA v1 at 0.9166 of 50 GB/s under today's stack, issue 42; twice as fast at the 0.60 before). */
void test_faster_nic_p4d(void)
{
  const char* const algs[] = {"auto", "ring", "tree", "hierarchical"};
  const double gbps[] = {400, 3200, 6400, 800000};
  for (int f = 0; f < 2; f++)
    for (int a = 0; a < 4; a++) {
      double t[4];
      for (int k = 0; k < 4; k++) {
        char args[256];
        snprintf(args, sizeof(args), "platforms/p4d.24xl.xml --instances 4 --nic-gbps %g --allreduce %s --fidelity %s",
                 gbps[k], algs[a], fidelities[f]);
        t[k] = bench_time(args, 134217728, NULL, 0);
        CHECK(k == 0 || t[k] <= t[k - 1] * (1 + 1e-9) + 1e-9, "%s: %.9g s, slower than %.9g s at %g Gb/s", args, t[k],
              t[k - 1], gbps[k - 1]);
      }
      CHECK(t[1] > 0 && t[3] >= t[1] * 0.95 && t[0] >= 1.5 * t[1],
            "--allreduce %s --fidelity %s: %.9g, %.9g, %.9g, %.9g s at 400, 3200, 6400, 800000 Gb/s", algs[a],
            fidelities[f], t[0], t[1], t[2], t[3]);
    }
}

/* Issue 42: aws-ofi-nccl's tuner through the binary. On 4 x p5.48xlarge its tables run Tree/LL128 at
 * 32 MiB, Ring/LL128 at 256 MiB and Ring/Simple at 2 GiB (calibration/efa_mechanisms_2026.md, section
 * 4), p5en Ring/LL128 at 256 MiB; --no-ofi-tuner gives NCCL's model's tree back there; p4d (no tables)
 * and 2 x p5 (left to NCCL) run NCCL's model. */
void test_ofi_tuner(void)
{
  static const struct {
    const char* args;
    double bytes;
    const char *alg, *proto;
  } want[] = {
      {"platforms/p5.48xl.xml --instances 4", 33554432, "tree", "LL128"},
      {"platforms/p5.48xl.xml --instances 4", 268435456, "ring", "LL128"},
      {"platforms/p5.48xl.xml --instances 4", 2147483648.0, "ring", "Simple"},
      {"platforms/p5.48xl.xml --instances 4 --no-ofi-tuner", 268435456, "tree", "Simple"},
      {"platforms/p5en.48xl.xml --instances 4", 268435456, "ring", "LL128"},
      {"platforms/p5en.48xl.xml --instances 4 --no-ofi-tuner", 268435456, "tree", "Simple"},
      {"platforms/p4d.24xl.xml --instances 4", 268435456, "ring", "LL128"},
      {"platforms/p5.48xl.xml --instances 2", 268435456, "tree", "Simple"},
  };
  for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
    char alg[32], proto[32];
    bench_time(want[i].args, want[i].bytes, alg, sizeof(alg));
    bench_proto(want[i].args, want[i].bytes, proto, sizeof(proto));
    CHECK(strcmp(alg, want[i].alg) == 0 && strcmp(proto, want[i].proto) == 0, "%s at %.0f B: %s/%s, expected %s/%s",
          want[i].args, want[i].bytes, alg, proto, want[i].alg, want[i].proto);
  }
}

/* Issue 42: a ring's steps larger than NCCL's chunk (half its 4 MiB buffer) stream through its slots,
 * two chunks in flight, so a larger allreduce never moves its bytes slower: on 4 x p5.48xlarge the
 * ring on Simple lost 19% of its busbw from 1 GB to 1.28 GB when a step of 4 MiB and more had one in
 * flight. Each size's time per byte is within 1% of the size before or below it, at both fidelities. */
void test_ring_large_steps(void)
{
  const double sizes[] = {536870912, 1e9, 1.28e9, 2e9};
  for (int f = 0; f < 2; f++) {
    double prev = 0;
    for (int k = 0; k < 4; k++) {
      char args[256];
      snprintf(args, sizeof(args),
               "platforms/p5.48xl.xml --instances %d --allreduce ring --protocol simple --fidelity %s", f ? 2 : 4,
               fidelities[f]);
      double per = bench_time(args, sizes[k], NULL, 0) / sizes[k];
      CHECK(k == 0 || per <= prev * 1.01, "%s at %.0f B: %.6g s/GB, %.6g s/GB before", args, sizes[k], per * 1e9,
            prev * 1e9);
      prev = per;
    }
  }
}
