/* test_e2e: end-to-end tests that run the stash-sim binaries (one simulation per process). */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testrun.h"

/* Run a binary with arguments given as one space-separated string. */
static run_result runs(const char* bin, const char* args)
{
  return runf(bin, "%s", args);
}

/* Run stash-sim with --format json and return the parsed report (NULL and a failure otherwise). */
static cJSON* sim_json(const char* fmt, ...)
{
  char args[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof(args) - 16, fmt, ap);
  va_end(ap);
  strcat(args, " --format json");
  run_result r = runs(SS_SIM_BIN, args);
  CHECK(r.status == 0, "stash-sim %s exited %d: %s", args, r.status, r.err);
  cJSON* j = r.status == 0 ? cJSON_Parse(r.out) : NULL;
  CHECK(r.status != 0 || j, "stash-sim %s: output is not JSON", args);
  run_free(&r);
  return j;
}

static double num(const cJSON* j, const char* key)
{
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(j, key);
  CHECK(cJSON_IsNumber(v), "key '%s' is missing or not a number", key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static double iteration(const char* fmt, const char* extra)
{
  cJSON* j = sim_json("%s %s", fmt, extra);
  double t = j ? num(j, "iteration_s") : NAN;
  cJSON_Delete(j);
  return t;
}

static const char* const breakdown_keys[] = {"compute_s", "prep_stall_s", "fetch_stall_s", "interconnect_stall_s",
                                              "network_stall_s"};

/* Time (s) of one allreduce of `bytes` simulated by "stash-sim bench allreduce ARGS"; the
 * algorithm it ran goes to alg (if not NULL). NAN on failure. */
static double bench_time(const char* args, double bytes, char* alg, size_t alg_size)
{
  char all[1024];
  snprintf(all, sizeof(all), "bench allreduce %s --min-bytes %.17g --max-bytes %.17g --iters 2 --format csv", args,
           bytes, bytes);
  run_result r = runs(SS_SIM_BIN, all);
  double t = NAN;
  char name[64] = "";
  const char* row = strchr(r.out, '\n');
  int ok = r.status == 0 && row && sscanf(row + 1, "%*[^,],%*d,%*d,%*[^,],%*f,%*f,%63[^,],%lf", name, &t) == 2;
  CHECK(ok, "stash-sim %s: %s%s", all, r.out, r.err);
  if (alg)
    snprintf(alg, alg_size, "%s", name);
  run_free(&r);
  return ok ? t : NAN;
}

static const char* const fidelities[] = {"fast", "reference"};

/* A ring allreduce of S bytes on a homogeneous star of N GPUs takes 2(N-1)(alpha + S/(N B)); on
 * m stars joined by their NICs the hop between stars is the slowest (alpha 20 us: GPU link, NIC,
 * NIC, GPU link, each 5 us), so 2(N-1)(20 us + S/(N B)) with N = 4m. */
static void test_ring_closed_form(void)
{
  const double bw = 10e9; /* tests/platforms/star*.xml: links of 5 us, 10 GB/s */
  const double sizes[] = {1e6, 1e8, 4e9};
  const struct { const char* file; int n, instances; double alpha; } cases[] = {
      {"star2", 2, 1, 10e-6}, {"star4", 4, 1, 10e-6}, {"star8", 8, 1, 10e-6}, {"star4", 8, 2, 20e-6},
      {"star4", 16, 4, 20e-6}, {"star2", 8, 4, 20e-6}};
  for (int f = 0; f < 2; f++)
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
      for (int k = 0; k < 3; k++) {
        int n = cases[i].n;
        char args[256], alg[64];
        snprintf(args, sizeof(args), "tests/platforms/%s.xml --instances %d --allreduce ring --fidelity %s",
                 cases[i].file, cases[i].instances, fidelities[f]);
        double t = bench_time(args, sizes[k], alg, sizeof(alg));
        double expect = 2.0 * (n - 1) * (cases[i].alpha + sizes[k] / (n * bw));
        CHECK(fabs(t - expect) <= 1e-6 * expect, "%s, S=%g: %.12g s, closed form %.12g s", args, sizes[k], t, expect);
        CHECK(strcmp(alg, "ring") == 0, "%s: ran '%s'", args, alg);
      }
}

/* Hierarchical allreduce on m stars of g GPUs: reduce-scatter and allgather inside each star,
 * 2(g-1) hops of alpha 10 us and S/g bytes at 10 GB/s; across stars 2(m-1) steps of S/(g m)
 * bytes with alpha 20 us, the g GPUs of a star sharing its 10 GB/s NIC, or all g m flows sharing
 * the switch core of m x 10 GB/s / oversub when that is less. */
static void test_hierarchical_closed_form(void)
{
  const double bw = 10e9;
  const double sizes[] = {1e6, 1e8, 4e9};
  const struct { const char* file; int g, m; double oversub; } cases[] = {
      {"star4", 4, 2, 1}, {"star4", 4, 4, 1}, {"star2", 2, 8, 1}, {"star8", 8, 1, 1}, {"star2", 2, 4, 4},
      {"star4", 4, 2, 1.5}};
  for (int f = 0; f < 2; f++)
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
      for (int k = 0; k < 3; k++) {
        int g = cases[i].g, m = cases[i].m;
        char args[256];
        snprintf(args, sizeof(args),
                 "tests/platforms/%s.xml --instances %d --allreduce hierarchical --fidelity %s --oversub %g",
                 cases[i].file, m, fidelities[f], cases[i].oversub);
        double t = bench_time(args, sizes[k], NULL, 0);
        double s = sizes[k];
        double cross = fmin(bw / g, m * bw / cases[i].oversub / (g * m));
        double expect = 2.0 * (g - 1) * (10e-6 + s / g / bw) + 2.0 * (m - 1) * (20e-6 + s / g / m / cross);
        CHECK(fabs(t - expect) <= 1e-6 * expect, "%s, S=%g: %.12g s, closed form %.12g s", args, s, t, expect);
      }
}

/* Compute on another device: a measured ratio in the workload wins over the peak-FLOPS ratio
 * (tiny_devices.json: forward x2, backward x3, optimizer x8/3 on test-gpu-10Tf); and an instance
 * file without a NIC runs on its own. */
static void test_compute_scaling(void)
{
  double t = iteration("tests/platforms/star2.xml tests/workloads/tiny_devices.json --gpus 1 --synthetic", "");
  double expect = 3 * 0.001 * 2 + 3 * 0.002 * 3 + 0.0005 * 8 / 3;
  CHECK(fabs(t - expect) <= 1e-9 * expect, "iteration %.12g s, expected %.12g", t, expect);
  t = iteration("tests/bad/cluster_no_nic.xml tests/workloads/tiny.json --gpus 1 --synthetic", "");
  CHECK(fabs(t - 0.0095) <= 1e-9 * 0.0095, "no NIC, one instance: iteration %.12g s, expected 0.0095", t);
  /* --compute-scale multiplies every kernel, the optimizer's too. */
  t = iteration("tests/bad/cluster_no_nic.xml tests/workloads/tiny.json --gpus 1 --synthetic --compute-scale 0.25", "");
  CHECK(fabs(t - 0.0095 * 0.25) <= 1e-9 * 0.0095, "--compute-scale 0.25: iteration %.12g s, expected %.12g", t,
        0.0095 * 0.25);
}

/* Tree allreduce on m stars of g GPUs (m = 2^k - 1, so that every node of the double binary tree
 * is inner in at most one tree): reduce-scatter and allgather inside each star as hierarchical;
 * across stars each half of the S/g shard goes up then down its tree in K chunks of C bytes,
 * (depth + K - 1) steps each way, every NIC direction carrying two transfers per GPU. */
static void test_tree_closed_form(void)
{
  const double bw = 10e9;
  const double sizes[] = {1e4, 1e6, 1e8, 4e9};
  const struct { const char* file; int g, m; } cases[] = {{"star2", 1, 3}, {"star2", 1, 7}, {"star2", 2, 7},
                                                          {"star4", 4, 3}};
  for (int f = 0; f < 2; f++)
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
      for (int k = 0; k < 4; k++) {
        int g = cases[i].g, m = cases[i].m;
        char args[256];
        snprintf(args, sizeof(args), "tests/platforms/%s.xml --gpus %d --instances %d --allreduce tree --fidelity %s",
                 cases[i].file, g, m, fidelities[f]);
        double t = bench_time(args, sizes[k], NULL, 0);
        double s = sizes[k], half = s / g / 2;
        double chunks = fmin(64, fmax(1, ceil(half / (512.0 * 1024))));
        int depth = m == 3 ? 1 : 2;
        double expect = 2.0 * (g - 1) * (10e-6 + s / g / bw) +
                        2.0 * (depth + chunks - 1) * (20e-6 + half / chunks / (bw / (2.0 * g)));
        CHECK(fabs(t - expect) <= 1e-6 * expect, "%s, S=%g: %.12g s, closed form %.12g s", args, s, t, expect);
      }
}

/* AUTO takes the ring on one instance, and across instances the algorithm with the shortest
 * predicted time: the tree's log-depth latency for small sizes, hierarchical's bandwidth for
 * large ones (p3.16xl x 16: 8 B tree, 1 GiB hierarchical). */
static void test_auto_choice(void)
{
  const struct { const char* args; double bytes; const char* alg; } cases[] = {
      {"platforms/p3.16xl.xml", 8, "ring"},
      {"platforms/p3.16xl.xml", 1073741824, "ring"},
      {"platforms/p3.16xl.xml --instances 16", 8, "tree"},
      {"platforms/p3.16xl.xml --instances 16", 1073741824, "hierarchical"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char alg[64];
    bench_time(cases[i].args, cases[i].bytes, alg, sizeof(alg));
    CHECK(strcmp(alg, cases[i].alg) == 0, "%s, %g B: auto chose '%s', expected '%s'", cases[i].args, cases[i].bytes,
          alg, cases[i].alg);
  }
}

/* The fast fidelity (one flow per hop and phase) against the reference (one communication per
 * chunk and step) where flows contend: PCIe switches and the inter-socket link of p2.16xl, a NIC
 * shared by 4 GPUs (g4dn.12xl) or by 4 rings (p3.16xl), 4 NICs shared by 8 GPUs (p4d), an
 * oversubscribed switch core. Within 1%. Where rings with different hop latencies share a
 * bottleneck (p3.16xl: GPUs of socket 1 reach the NIC over one more link) the reference's rings
 * drift apart and fill each other's latency gaps, so latency-bound sizes differ by more (p3.16xl x 2
 * at 64 KiB: 1.5%; see docs/performance.md): there only bandwidth-bound sizes are held to 1%. */
static void test_fast_vs_reference(void)
{
  const struct { const char* args; int first_size; } cases[] = {
      {"platforms/p2.16xl.xml --allreduce ring", 0},
      {"platforms/g4dn.12xl.xml --instances 4 --allreduce ring", 0},
      {"platforms/g4dn.12xl.xml --instances 4 --allreduce hierarchical", 0},
      {"platforms/p4d.24xl.xml --instances 2 --allreduce ring", 0},
      {"platforms/p4d.24xl.xml --instances 2 --allreduce hierarchical", 0},
      {"platforms/p3.16xl.xml --instances 2 --allreduce ring", 1},
      {"tests/platforms/star4.xml --instances 4 --allreduce ring --oversub 2", 0},
      {"platforms/g4dn.12xl.xml --instances 7 --allreduce tree", 0},
      {"platforms/p4d.24xl.xml --instances 3 --allreduce tree", 0},
      {"tests/platforms/star4.xml --instances 8 --allreduce tree", 0},
      {"tests/platforms/star4.xml --instances 16 --allreduce tree", 0},
  };
  const double sizes[] = {65536, 8388608, 67108864};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    for (int k = cases[i].first_size; k < 3; k++) {
      char args[512];
      snprintf(args, sizeof(args), "%s --fidelity fast", cases[i].args);
      double fast = bench_time(args, sizes[k], NULL, 0);
      snprintf(args, sizeof(args), "%s --fidelity reference", cases[i].args);
      double ref = bench_time(args, sizes[k], NULL, 0);
      CHECK(fabs(fast - ref) <= 0.01 * ref, "%s, S=%g: fast %.9g s, reference %.9g s (%.2f%%)", cases[i].args, sizes[k],
            fast, ref, 100 * (fast - ref) / ref);
    }
}

/* One GPU, synthetic data: the iteration is forward + backward + optimizer of the workload. */
static void test_single_gpu_synthetic(void)
{
  /* tiny.json: 3 layers of 1 + 2 ms at batch 8 on a 10 TF reference; optimizer 0.5 ms; star GPUs 10 TF. */
  double t = iteration("tests/platforms/star2.xml tests/workloads/tiny.json --gpus 1 --synthetic", "");
  CHECK(fabs(t - 0.0095) <= 1e-9 * 0.0095, "iteration %.12g s, expected 0.0095", t);
  /* Batch 16 doubles the layer times, not the optimizer. */
  t = iteration("tests/platforms/star2.xml tests/workloads/tiny.json --gpus 1 --synthetic --batch 16", "");
  CHECK(fabs(t - 0.0185) <= 1e-9 * 0.0185, "iteration %.12g s at batch 16, expected 0.0185", t);
}

static void check_sum(const char* args)
{
  cJSON* j = sim_json("%s", args);
  if (!j)
    return;
  const cJSON* b = cJSON_GetObjectItemCaseSensitive(j, "breakdown");
  double sum = 0;
  for (int i = 0; i < 5; i++) {
    double v = num(b, breakdown_keys[i]);
    CHECK(v >= 0, "%s: %s = %g is negative", args, breakdown_keys[i], v);
    sum += v;
  }
  double it = num(j, "iteration_s");
  CHECK(fabs(sum - it) <= 1e-9 * it, "%s: parts sum to %.17g, iteration %.17g", args, sum, it);
  CHECK(num(j, "instances") > 1 || num(b, "network_stall_s") == 0, "%s: network stall on one instance", args);
  double thr = num(j, "throughput_samples_per_s");
  CHECK(fabs(thr - num(j, "gpus") * num(j, "batch_per_gpu") / it) <= 1e-9 * thr, "%s: throughput", args);
  cJSON_Delete(j);
}

static void test_breakdown_sums(void)
{
  check_sum("platforms/p3.16xl.xml workloads/resnet50.json");
  check_sum("platforms/p3.8xl.xml workloads/resnet50.json --workers 0");
  check_sum("platforms/p3.2xl.xml workloads/resnet50.json --cache 0 --workers 2");
  check_sum("platforms/p3.16xl.xml workloads/resnet50.json --no-overlap --bucket-mb 5 --cache 0.3");
  /* A wait that is all network stall: its two parts once rounded below 0 (an abort). */
  check_sum("platforms/p2.xl.xml workloads/vgg11.json --instances 2 --bucket-mb 0 --async-copy --compute-scale 0.306 "
            "--cache 1");
  check_sum("tests/platforms/star4.xml tests/workloads/tiny.json --workers 1");
}

static void test_more_bandwidth_never_slower(void)
{
  const char* extras[] = {"--synthetic", "", "--cache 0 --workers 1", "--no-overlap", "--workers 0"};
  for (int i = 0; i < 5; i++) {
    double slow = iteration("tests/platforms/star4.xml tests/workloads/tiny.json", extras[i]);
    double fast = iteration("tests/platforms/star4_fast.xml tests/workloads/tiny.json", extras[i]);
    CHECK(fast <= slow * (1 + 1e-12), "%s: 20 GB/s took %.12g s, 10 GB/s %.12g s", extras[i], fast, slow);
  }
  /* The same 4 GPUs over NVLink (p3.8xl) beat them over one 10 GB/s link each (star4). */
  double nv = iteration("platforms/p3.8xl.xml workloads/resnet50.json --synthetic", "");
  double pcie = iteration("tests/platforms/star4.xml workloads/resnet50.json --synthetic", "");
  CHECK(nv < pcie, "4 V100 over NVLink %.6g s should beat 4 over 10 GB/s PCIe %.6g s", nv, pcie);
}

/* Network stall is the wait for collectives while they cross instances: none on one instance;
 * all of it for a ring spanning instances; for hierarchical, the middle phase only. A faster NIC
 * never makes a cluster slower, a more oversubscribed switch never faster. */
static void test_network_stall(void)
{
  const char* base = "tests/platforms/star4.xml workloads/resnet50.json --synthetic";
  const struct { const char* extra; int net, inter; } cases[] = {
      {"", 0, 1}, {"--instances 2 --allreduce ring", 1, 0}, {"--instances 2 --allreduce hierarchical", 1, 1},
      {"--instances 3 --allreduce tree", 1, 1}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    cJSON* j = sim_json("%s %s", base, cases[i].extra);
    if (!j)
      continue;
    const cJSON* b = cJSON_GetObjectItemCaseSensitive(j, "breakdown");
    double net = num(b, "network_stall_s"), inter = num(b, "interconnect_stall_s");
    CHECK((net > 0) == cases[i].net, "%s: network stall %.9g s", cases[i].extra, net);
    CHECK((inter > 0) == cases[i].inter, "%s: interconnect stall %.9g s", cases[i].extra, inter);
    cJSON_Delete(j);
  }
  const char* algs[] = {"ring", "hierarchical", "tree"};
  for (int a = 0; a < 3; a++) {
    char extra[256];
    double prev = INFINITY;
    const double gbps[] = {10, 40, 160};
    for (int k = 0; k < 3; k++) {
      snprintf(extra, sizeof(extra), "--instances 4 --allreduce %s --nic-gbps %g", algs[a], gbps[k]);
      double t = iteration(base, extra);
      CHECK(t <= prev * (1 + 1e-12), "%s: %.9g s, slower than with a slower NIC (%.9g s)", extra, t, prev);
      prev = t;
    }
    prev = 0;
    const double oversub[] = {1, 2, 8};
    for (int k = 0; k < 3; k++) {
      snprintf(extra, sizeof(extra), "--instances 4 --allreduce %s --oversub %g", algs[a], oversub[k]);
      double t = iteration(base, extra);
      CHECK(t >= prev * (1 - 1e-12), "%s: %.9g s, faster than with less oversubscription (%.9g s)", extra, t, prev);
      prev = t;
    }
  }
}

static void test_no_overlap_never_faster(void)
{
  const char* cases[] = {"platforms/p3.16xl.xml workloads/resnet50.json", "platforms/p3.8xl.xml workloads/resnet50.json",
                         "tests/platforms/star4.xml tests/workloads/tiny.json",
                         "tests/platforms/star8.xml workloads/resnet50.json --synthetic"};
  for (int i = 0; i < 4; i++) {
    double on = iteration(cases[i], "");
    double off = iteration(cases[i], "--no-overlap");
    CHECK(off >= on * (1 - 1e-12), "%s: --no-overlap %.12g s < overlap %.12g s", cases[i], off, on);
  }
  /* And on a slow interconnect, overlap must matter. */
  double on = iteration("tests/platforms/star8.xml workloads/resnet50.json --synthetic", "");
  double off = iteration("tests/platforms/star8.xml workloads/resnet50.json --synthetic", "--no-overlap");
  CHECK(off > on * 1.01, "star8 resnet50: overlap should save time (%.6g vs %.6g)", on, off);
}

static void test_deterministic(void)
{
  const char* cases[] = {"platforms/p3.16xl.xml workloads/resnet50.json",
                         "platforms/p3.16xl.xml workloads/resnet50.json --format json --cache 0.5 --workers 3",
                         "platforms/p3.8xl.xml workloads/resnet50.json --format csv --no-overlap",
                         "platforms/p3.16xl.xml workloads/resnet50.json --instances 3 --cache 0.3 --format json",
                         ("platforms/p4d.24xl.xml workloads/resnet50.json --instances 3 --allreduce tree "
                          "--fidelity reference --synthetic"),
                         "bench allreduce platforms/g4dn.12xl.xml --instances 2 --format csv",
                         "platforms/p3.8xl.xml workloads/resnet50.json --instances 2 --stash --workers 1"};
  for (int i = 0; i < 7; i++) {
    run_result a = runs(SS_SIM_BIN, cases[i]);
    run_result b = runs(SS_SIM_BIN, cases[i]);
    CHECK(a.status == 0 && b.status == 0, "%s: exit %d %d", cases[i], a.status, b.status);
    CHECK(strcmp(a.out, b.out) == 0, "%s: two runs differ", cases[i]);
    CHECK(strlen(a.out) > 100, "%s: output too short", cases[i]);
    run_free(&a);
    run_free(&b);
  }
}

/* Calibration check: the trace's V100 step was 98.7 ms of GPU time (fwd 33.0, bwd 64.4, SGD 1.3). */
static void test_resnet50_v100_calibration(void)
{
  double t = iteration("platforms/p3.2xl.xml workloads/resnet50.json --synthetic --batch 32", "");
  CHECK(fabs(t - 0.0987) <= 0.03 * 0.0987, "resnet50 on 1 V100: %.4f ms, trace 98.7 ms", t * 1e3);
}

/* Data stalls appear where the data pipeline is slower than the GPU, and only there. */
static void test_loader_stalls(void)
{
  cJSON* j = sim_json("platforms/p3.2xl.xml workloads/resnet50.json --workers 0 --cache 0 --batch 32");
  if (!j)
    return;
  const cJSON* b = cJSON_GetObjectItemCaseSensitive(j, "breakdown");
  /* workers 0: 32 samples x (4 ms CPU + 113959 B at 187.5 MB/s) block the training process. */
  double prep = num(b, "prep_stall_s"), fetch = num(b, "fetch_stall_s");
  double h2d = 2e-6 + 32 * 150528 / 9.6e9; /* p3.2xl: two PCIe hops of 1 us at 9.6 GB/s, uint8 crops */
  CHECK(fabs(prep - (32 * 0.004 + h2d)) <= 1e-6, "prep stall %.9g s", prep);
  CHECK(fabs(fetch - 32 * 113959 / 187.5e6) <= 1e-6, "fetch stall %.9g s", fetch);
  cJSON_Delete(j);
  /* Synthetic data: no data stall at all. */
  j = sim_json("platforms/p3.16xl.xml workloads/resnet50.json --synthetic");
  b = j ? cJSON_GetObjectItemCaseSensitive(j, "breakdown") : NULL;
  CHECK(b && num(b, "prep_stall_s") == 0 && num(b, "fetch_stall_s") == 0, "synthetic run has data stalls");
  cJSON_Delete(j);
  /* Enough workers and a warm cache hide loading behind compute (only the copy remains). */
  j = sim_json("platforms/p3.2xl.xml workloads/resnet50.json --workers 8 --cache 1 --batch 32");
  b = j ? cJSON_GetObjectItemCaseSensitive(j, "breakdown") : NULL;
  CHECK(b && num(b, "fetch_stall_s") == 0 && fabs(num(b, "prep_stall_s") - h2d) <= 1e-6,
        "p3.2xl with 8 workers: stalls beyond the copy");
  cJSON_Delete(j);
  /* --async-copy: the loaders copy ahead, and nothing is left on the training process's path... */
  j = sim_json("platforms/p3.2xl.xml workloads/resnet50.json --workers 8 --cache 1 --batch 32 --async-copy");
  b = j ? cJSON_GetObjectItemCaseSensitive(j, "breakdown") : NULL;
  CHECK(b && num(b, "fetch_stall_s") == 0 && num(b, "prep_stall_s") == 0, "async copy: a data stall is left");
  cJSON_Delete(j);
  /* The W loader processes of a GPU deliver their batches in bursts of W: by default whole cycles
   * of W are measured and the loaders' last cycle is simulated but not measured, so the steady
   * state does not depend on how long it is measured; 10 iterations (a cycle and a quarter) do not
   * measure it. */
  j = sim_json("platforms/p3.16xl.xml workloads/alexnet.json --cache 0 --async-copy");
  double steady = j ? num(j, "iteration_s") : NAN;
  CHECK(j && num(j, "warmup") == 2 && num(j, "iterations") == 16, "default measurement with 8 loaders");
  cJSON_Delete(j);
  double longer = iteration("platforms/p3.16xl.xml workloads/alexnet.json --cache 0 --async-copy", "--iterations 40");
  double partial = iteration("platforms/p3.16xl.xml workloads/alexnet.json --cache 0 --async-copy", "--iterations 10");
  CHECK(fabs(steady - longer) <= 1e-9 * steady && partial < 0.97 * steady,
        "steady state %.9g s over 16 iterations, %.9g s over 40; %.9g s over 10", steady, longer, partial);
  /* ...unless the training process loads itself (workers 0): then it also copies. */
  j = sim_json("platforms/p3.2xl.xml workloads/resnet50.json --workers 0 --cache 0 --batch 32 --async-copy");
  b = j ? cJSON_GetObjectItemCaseSensitive(j, "breakdown") : NULL;
  CHECK(b && fabs(num(b, "prep_stall_s") - (32 * 0.004 + h2d)) <= 1e-6, "async copy, workers 0: prep stall %.9g s",
        b ? num(b, "prep_stall_s") : NAN);
  cJSON_Delete(j);
}

/* The runs of --stash, each checked against the plain run it stands for. */
static void stash_check_runs(const char* job, const char* single)
{
  cJSON* j = sim_json("%s --stash", job);
  const cJSON* s = j ? cJSON_GetObjectItemCaseSensitive(j, "stash") : NULL;
  CHECK(s, "%s --stash: no stash object", job);
  if (!s) {
    cJSON_Delete(j);
    return;
  }
  static const char* const runs_extra[4] = {"--synthetic --gpus 1 --instances 1", "--synthetic", "--cache 0",
                                            "--cache 1"};
  static const char* const keys[4] = {"run0_s", "run1_s", "run2_s", "run3_s"};
  double t[5];
  for (int k = 0; k < 4; k++) {
    t[k] = num(s, keys[k]);
    double plain = iteration(job, runs_extra[k]);
    CHECK(t[k] == plain, "%s: %s %.17g, the plain run %.17g", job, keys[k], t[k], plain);
  }
  CHECK(t[2] == num(j, "iteration_s"), "%s: the report is not RUN2's", job);
  const cJSON* si = cJSON_GetObjectItemCaseSensitive(s, "single_instance_file");
  t[4] = t[1];
  if (single) {
    CHECK(cJSON_IsString(si) && strcmp(si->valuestring, single) == 0, "%s: single instance %s, expected %s", job,
          cJSON_IsString(si) ? si->valuestring : "none", single);
    t[4] = num(s, "single_instance_s");
    char one[512];
    snprintf(one, sizeof(one), "%s workloads/resnet50.json --iterations 3 --warmup 1 --synthetic --gpus %d", single,
             (int)num(s, "single_instance_gpus"));
    double plain = iteration(one, "");
    CHECK(t[4] == plain, "%s: single instance %.17g, the plain run %.17g", job, t[4], plain);
  } else {
    CHECK(!si && !cJSON_GetObjectItemCaseSensitive(s, "single_instance_s"), "%s: a single-instance run", job);
  }
  /* Stash's differences (tool/analyze.py), and they sum to RUN2. */
  double part[5] = {t[0], t[4] - t[0], t[1] - t[4], t[3] - t[1], t[2] - t[3]};
  double pct[5] = {100 * t[0] / t[2], 100 * (t[4] - t[0]) / t[4], 100 * (t[1] - t[4]) / t[4],
                   fmax(0, 100 * (t[3] - t[1]) / t[3]), 100 * (t[2] - t[3]) / t[2]};
  static const char* const parts[5] = {"compute", "interconnect_stall", "network_stall", "prep_stall", "fetch_stall"};
  double sum = 0;
  for (int d = 0; d < 5; d++) {
    char key[64];
    snprintf(key, sizeof(key), "%s_s", parts[d]);
    double v = num(s, key);
    sum += v;
    CHECK(fabs(v - part[d]) <= 1e-12, "%s: %s %.17g, expected %.17g", job, key, v, part[d]);
    snprintf(key, sizeof(key), "%s_pct", parts[d]);
    CHECK(fabs(num(s, key) - pct[d]) <= 1e-9, "%s: %s %.17g, expected %.17g", job, key, num(s, key), pct[d]);
  }
  CHECK(fabs(sum - t[2]) <= 1e-12, "%s: parts sum to %.17g, RUN2 %.17g", job, sum, t[2]);
  /* An epoch of RUN2 is the report's; RUN0 does it on one GPU of one instance. */
  double gpus = num(j, "gpus"), batch = num(j, "batch_per_gpu"), price = num(j, "price_usd_per_h");
  CHECK(fabs(num(s, "run2_epoch_s") - num(j, "epoch_s")) <= 1e-9 * num(j, "epoch_s"), "%s: RUN2 epoch", job);
  CHECK(fabs(num(s, "run2_cost_usd_per_epoch") - num(j, "cost_usd_per_epoch")) <= 1e-9, "%s: RUN2 cost", job);
  CHECK(fabs(num(s, "iterations_per_epoch") - 1281167 / (batch * gpus)) <= 1e-9, "%s: iterations per epoch", job);
  CHECK(fabs(num(s, "run0_epoch_s") - 1281167 / batch * t[0]) <= 1e-6, "%s: RUN0 epoch", job);
  CHECK(fabs(num(s, "run0_cost_usd_per_epoch") - 1281167 / batch * t[0] * price / 3600) <= 1e-9, "%s: RUN0 cost",
        job);
  cJSON_Delete(j);
}

static void test_stash_differential(void)
{
  const char* loaded = "platforms/p3.16xl.xml workloads/resnet50.json --iterations 3 --warmup 1";
  stash_check_runs(loaded, NULL);
  /* One loader worker per GPU: the loader is the bottleneck, reads and preparation both stall. */
  const char* starved = "platforms/p3.16xl.xml workloads/resnet50.json --iterations 3 --warmup 1 --workers 1";
  stash_check_runs(starved, NULL);
  cJSON* j = sim_json("%s --stash", starved);
  const cJSON* s = j ? cJSON_GetObjectItemCaseSensitive(j, "stash") : NULL;
  CHECK(s && num(s, "prep_stall_s") > 0.01 && num(s, "fetch_stall_s") > 0.005, "no data stalls with 1 worker");
  const cJSON* notes = s ? cJSON_GetObjectItemCaseSensitive(s, "notes") : NULL;
  CHECK(cJSON_GetArraySize(notes) >= 1 && strstr(cJSON_GetArrayItem(notes, 0)->valuestring, "prep vs fetch"),
        "the prep/fetch disagreement is not explained");
  cJSON_Delete(j);
  /* The table shows both views. */
  run_result r = runs(SS_SIM_BIN, "platforms/p3.16xl.xml workloads/resnet50.json --iterations 3 --warmup 1 "
                                  "--workers 1 --stash");
  CHECK(r.status == 0 && strstr(r.out, "Stash differential breakdown") && strstr(r.out, "RUN2 timeline") &&
            strstr(r.out, "note: prep vs fetch"),
        "table: %s", r.out);
  run_free(&r);
}

static void test_stash_network(void)
{
  /* Stash's pairs: 2 x p3.8xlarge against 1 x p3.16xlarge, 2 x p2.8xlarge against 1 x p2.16xlarge. */
  stash_check_runs("platforms/p3.8xl.xml workloads/resnet50.json --iterations 3 --warmup 1 --instances 2",
                   "platforms/p3.16xl.xml");
  stash_check_runs("platforms/p2.8xl.xml workloads/resnet50.json --iterations 3 --warmup 1 --instances 2",
                   "platforms/p2.16xl.xml");
  /* 2 x 1 V100: 2 of p3.8xlarge's 4 GPUs. */
  stash_check_runs("platforms/p3.2xl.xml workloads/resnet50.json --iterations 3 --warmup 1 --instances 2",
                   "platforms/p3.8xl.xml");
  /* No V100 instance has 32 GPUs: the largest stands in, and the report says so. */
  const char* big = "platforms/p3.16xl.xml workloads/resnet50.json --iterations 3 --warmup 1 --instances 4";
  stash_check_runs(big, "platforms/p3.16xl.xml");
  cJSON* j = sim_json("%s --stash", big);
  const cJSON* s = j ? cJSON_GetObjectItemCaseSensitive(j, "stash") : NULL;
  CHECK(s && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(s, "single_instance_same_gpus")), "same GPUs?");
  const cJSON* notes = s ? cJSON_GetObjectItemCaseSensitive(s, "notes") : NULL;
  CHECK(cJSON_GetArraySize(notes) >= 1 && strstr(cJSON_GetArrayItem(notes, 0)->valuestring, "has 32 GPUs"),
        "the stand-in is not said");
  /* 25 Gb/s between instances: the network stall is there and bigger than with 100 Gb/s. */
  double slow = s ? num(s, "network_stall_s") : NAN;
  cJSON_Delete(j);
  j = sim_json("%s --stash --nic-gbps 100", big);
  s = j ? cJSON_GetObjectItemCaseSensitive(j, "stash") : NULL;
  double fast = s ? num(s, "network_stall_s") : NAN;
  CHECK(slow > 0.001 && fast < slow, "network stall %.6g s at 25 Gb/s, %.6g s at 100 Gb/s", slow, fast);
  cJSON_Delete(j);
  /* The stand-in comes from the platform file's directory: the same GPU model and as many GPUs
   * (tests/platforms: star2, star4, star4_fast, star8, one GPU model), else the largest. */
  static const char* const finds[][2] = {{"star4", "tests/platforms/star8.xml"},
                                         {"star2", "tests/platforms/star4.xml"},
                                         {"star8", "tests/platforms/star8.xml"}};
  for (int i = 0; i < 3; i++) {
    j = sim_json("tests/platforms/%s.xml workloads/resnet50.json --iterations 2 --warmup 1 --instances 2 --stash",
                 finds[i][0]);
    s = j ? cJSON_GetObjectItemCaseSensitive(j, "stash") : NULL;
    const cJSON* f = s ? cJSON_GetObjectItemCaseSensitive(s, "single_instance_file") : NULL;
    CHECK(cJSON_IsString(f) && strcmp(f->valuestring, finds[i][1]) == 0, "2 x %s: stand-in %s, expected %s",
          finds[i][0], cJSON_IsString(f) ? f->valuestring : "none", finds[i][1]);
    cJSON_Delete(j);
  }
  /* --stash-single chooses the instance. */
  j = sim_json("platforms/p3.8xl.xml workloads/resnet50.json --iterations 3 --warmup 1 --instances 2 --stash "
               "--stash-single platforms/p3.8xl.xml");
  s = j ? cJSON_GetObjectItemCaseSensitive(j, "stash") : NULL;
  CHECK(s && num(s, "single_instance_gpus") == 4, "--stash-single p3.8xl: %g GPUs",
        s ? num(s, "single_instance_gpus") : NAN);
  cJSON_Delete(j);
}

/* Parameter servers on star4 instances (every link 10 GB/s, 5 us), one layer of S = 100 MB, no
 * overlap: N workers push S each through the server's NIC, then pull it back: 2NS/B, plus the
 * compute (3.5 ms) and 15 us of path latency each way; the server's CPU adds (N + 1) S / agg (N
 * sums and one update on one core). */
static const char* const ps_base = "tests/platforms/star4.xml tests/workloads/one_layer.json --arch ps --synthetic "
                                   "--no-overlap";

static double ps_iteration(const char* extra, cJSON** keep)
{
  cJSON* j = sim_json("%s %s", ps_base, extra);
  double t = j ? num(j, "iteration_s") : NAN;
  if (keep)
    *keep = j;
  else
    cJSON_Delete(j);
  return t;
}

static void test_ps_closed_form(void)
{
  static const int cases[][2] = {{1, 1}, {4, 1}, {4, 2}}; /* GPUs per instance, instances */
  for (int c = 0; c < 3; c++) {
    char extra[128];
    snprintf(extra, sizeof(extra), "--gpus %d --instances %d --server-agg-gbps 1e6", cases[c][0], cases[c][1]);
    cJSON* j = NULL;
    double t = ps_iteration(extra, &j);
    int n = cases[c][0] * cases[c][1];
    double expect = 0.0035 + 2.0 * n * 1e8 / 1e10 + 2 * 15e-6 + (n + 1) * 1e8 / 1e15;
    CHECK(fabs(t - expect) <= 1e-6 * expect, "%s: iteration %.9g s, expected 2NS/B: %.9g", extra, t, expect);
    const cJSON* b = j ? cJSON_GetObjectItemCaseSensitive(j, "breakdown") : NULL;
    CHECK(b && fabs(num(b, "network_stall_s") - (t - 0.0035)) <= 1e-9, "%s: dedicated servers: the wait is network",
          extra);
    cJSON_Delete(j);
  }
  /* The server's CPU: 8 sums and an update of 100 MB at 2 GB/s on one core. */
  double t = ps_iteration("--instances 2", NULL);
  double expect = 0.0035 + 2.0 * 8 * 1e8 / 1e10 + 2 * 15e-6 + 9 * 1e8 / 2e9;
  CHECK(fabs(t - expect) <= 1e-6 * expect, "server CPU: iteration %.9g s, expected %.9g", t, expect);
  /* Colocated on the only instance: the 4 workers reach the server over its 10 GB/s PCIe link to
   * the CPU, 10 us each way, and that wait is interconnect, not network. */
  cJSON* j = NULL;
  t = ps_iteration("--ps-placement colocated --server-agg-gbps 1e6", &j);
  expect = 0.0035 + 2.0 * 4 * 1e8 / 1e10 + 2 * 10e-6 + 5 * 1e8 / 1e15;
  CHECK(fabs(t - expect) <= 1e-6 * expect, "colocated: iteration %.9g s, expected %.9g", t, expect);
  const cJSON* b = j ? cJSON_GetObjectItemCaseSensitive(j, "breakdown") : NULL;
  CHECK(b && num(b, "network_stall_s") == 0 && num(b, "interconnect_stall_s") > 0.08, "colocated: interconnect");
  cJSON_Delete(j);
}

static void test_ps_shards(void)
{
  /* 8 workers on 2 instances: K shards on K hosts divide the servers' load by K until the
   * workers' own NICs (4 GPUs each, 10 GB/s) bind at 2 x 4S/B. */
  double t[4];
  for (int k = 0; k < 4; k++) {
    char extra[96];
    snprintf(extra, sizeof(extra), "--instances 2 --servers %d --server-agg-gbps 1e6", 1 << k);
    t[k] = ps_iteration(extra, NULL) - 0.0035;
  }
  CHECK(fabs(t[0] / t[1] - 2) <= 0.01, "2 shards: %.6g s against %.6g s with one", t[1], t[0]);
  double nic = 2.0 * 4 * 1e8 / 1e10;
  for (int k = 1; k < 4; k++)
    CHECK(fabs(t[k] - nic) <= 1e-3 * nic, "%d shards: %.6g s, the workers' NICs bind at %.6g s", 1 << k, t[k], nic);
  /* With the server's CPU binding (2 GB/s), shards on hosts of their own help about K times. */
  double cpu1 = ps_iteration("--instances 2 --servers 1", NULL), cpu4 = ps_iteration("--instances 2 --servers 4", NULL);
  CHECK(cpu1 / cpu4 > 3.5 && cpu1 / cpu4 < 4.5, "server CPU bound: 4 shards %.6g s against %.6g s", cpu4, cpu1);
  /* Sharding balances bytes: with 3 layers of 4 MB and 3 shards, each holds one layer. */
  cJSON* j = sim_json("tests/platforms/star4.xml tests/workloads/tiny.json --arch ps --servers 3 --synthetic");
  CHECK(j && num(j, "servers") == 3 && num(j, "server_hosts") == 3, "3 shards on 3 hosts");
  cJSON_Delete(j);
}

static void test_ps_async(void)
{
  cJSON* sync = NULL;
  cJSON* async = NULL;
  double ts = ps_iteration("--instances 2", &sync);
  double ta = ps_iteration("--instances 2 --async", &async);
  CHECK(sync && num(sync, "staleness_mean") == 0 && num(sync, "staleness_max") == 0, "synchronous: no staleness");
  /* 8 workers each apply their push at once: while a worker computes and waits, the 7 others
   * update the parameters it pulled. */
  CHECK(async && num(async, "staleness_max") == 7 && num(async, "staleness_mean") > 5 &&
            num(async, "staleness_mean") <= 7,
        "asynchronous staleness %.3g (max %.3g)", async ? num(async, "staleness_mean") : NAN,
        async ? num(async, "staleness_max") : NAN);
  CHECK(ta < ts, "ASGD %.6g s per step, synchronous %.6g s", ta, ts);
  CHECK(async && num(async, "worker_throughput_min_samples_per_s") <= num(async, "worker_throughput_max_samples_per_s") &&
            num(async, "worker_throughput_min_samples_per_s") > 0,
        "per-worker throughput");
  cJSON_Delete(sync);
  cJSON_Delete(async);

  /* Workers that differ (star4_slow: GPU 3 at half speed; 4 shards and fast summation, so the
   * servers do not pace everyone): ASGD lets each run at its own pace, and the report gives each
   * worker's throughput and staleness; the synchronous step waits for the slowest. */
  const char* mixed = "tests/platforms/star4_slow.xml tests/workloads/tiny.json --synthetic --arch ps --servers 4 "
                      "--server-agg-gbps 1e6";
  sync = sim_json("%s --sync", mixed);
  async = sim_json("%s --async", mixed);
  CHECK(sync && !cJSON_GetObjectItemCaseSensitive(sync, "workers"), "synchronous: no per-worker figures");
  const cJSON* w = async ? cJSON_GetObjectItemCaseSensitive(async, "workers") : NULL;
  CHECK(cJSON_GetArraySize(w) == 4, "asynchronous: a figure per worker");
  if (sync && async && cJSON_GetArraySize(w) == 4) {
    double tp[4], st[4], lo = INFINITY, hi = 0, mean = 0;
    for (int r = 0; r < 4; r++) {
      const cJSON* e = cJSON_GetArrayItem(w, r);
      CHECK(num(e, "rank") == r, "worker %d in rank order", r);
      tp[r] = num(e, "throughput_samples_per_s");
      st[r] = num(e, "staleness_mean");
      lo = fmin(lo, tp[r]);
      hi = fmax(hi, tp[r]);
      mean += st[r] / 4;
    }
    CHECK(lo == num(async, "worker_throughput_min_samples_per_s") &&
              hi == num(async, "worker_throughput_max_samples_per_s"),
          "the spread is the workers' own: %.6g..%.6g", lo, hi);
    /* Every worker pushes as many parts, so the mean staleness is the mean of the workers'. */
    CHECK(fabs(mean - num(async, "staleness_mean")) <= 1e-9 * mean, "staleness %.9g against the workers' %.9g",
          num(async, "staleness_mean"), mean);
    for (int r = 0; r < 3; r++)
      CHECK(tp[3] < 0.75 * tp[r] && st[3] > st[r], "the slow GPU's worker: %.6g samples/s (staleness %.3g) against "
            "worker %d's %.6g (%.3g)", tp[3], st[3], r, tp[r], st[r]);
    /* Synchronous: every worker runs at the slowest one's pace, which ASGD's fast workers beat. */
    double pace = num(sync, "batch_per_gpu") / num(sync, "iteration_s");
    CHECK(tp[0] > 1.3 * pace && tp[3] > 0.9 * pace,
          "asynchronous workers %.6g and %.6g samples/s against %.6g synchronous", tp[0], tp[3], pace);
  }
  cJSON_Delete(sync);
  cJSON_Delete(async);
}

/* CNTK's start-up on one star4 (its volume and every link 10 GB/s): 4 workers read B = 12 MB (the
 * tiny model, no input shard) and get it over the CPU's 10 us path. Sequential: 4 x (B/disk +
 * B/link + latency); parallel: the 4 reads share the volume, then the 4 copies the CPU's link. */
static void test_init_io(void)
{
  const char* base = "tests/platforms/star4.xml tests/workloads/tiny.json --init-shard-mb 0 --synthetic "
                     "--samples 1e6";
  cJSON* seq = sim_json("%s --init-io sequential", base);
  cJSON* par = sim_json("%s --init-io parallel", base);
  cJSON* none = sim_json("%s", base);
  double b = 12e6, one = b / 1e10 + b / 1e10 + 10e-6;
  CHECK(seq && fabs(num(seq, "init_s") - 4 * one) <= 1e-9, "sequential start-up %.9g s, expected %.9g",
        seq ? num(seq, "init_s") : NAN, 4 * one);
  CHECK(par && fabs(num(par, "init_s") - (2 * 4 * b / 1e10 + 10e-6)) <= 1e-9, "parallel start-up %.9g s",
        par ? num(par, "init_s") : NAN);
  CHECK(none && num(none, "init_s") == 0, "no start-up reads by default");
  /* The time to train the samples adds the start-up to the steady state; the iteration is unchanged. */
  if (seq && none) {
    CHECK(fabs(num(seq, "iteration_s") - num(none, "iteration_s")) <= 1e-12, "start-up changes the iteration");
    double t = num(seq, "init_s") + 1e6 / num(seq, "throughput_samples_per_s");
    CHECK(fabs(num(seq, "time_to_train_s") - t) <= 1e-9 * t, "time to train %.9g s, expected %.9g",
          num(seq, "time_to_train_s"), t);
  }
  cJSON_Delete(seq);
  cJSON_Delete(par);
  cJSON_Delete(none);
  /* Sequential start-up grows with the workers: 4 instances take 4 times as long as one. */
  cJSON* four = sim_json("%s --init-io sequential --instances 4", base);
  cJSON* single = sim_json("%s --init-io sequential --instances 1", base);
  CHECK(four && single && num(four, "init_s") > 3.9 * num(single, "init_s"), "sequential start-up: %.6g s on 4 "
        "instances, %.6g s on one", four ? num(four, "init_s") : NAN, single ? num(single, "init_s") : NAN);
  cJSON_Delete(four);
  cJSON_Delete(single);
}

/* --no-nvlink: a p3.16xlarge's GPUs talk over PCIe (a 256 MiB allreduce falls from NVLink's busbw
 * to PCIe's, under a fifth); a p2.16xlarge has no NVLink, so nothing changes. */
static void test_no_nvlink(void)
{
  char alg[32];
  double nv = bench_time("platforms/p3.16xl.xml", 268435456, alg, sizeof(alg));
  double pcie = bench_time("platforms/p3.16xl.xml --no-nvlink", 268435456, alg, sizeof(alg));
  CHECK(pcie > 5 * nv, "p3.16xlarge allreduce %.6g s with NVLink, %.6g s without", nv, pcie);
  run_result a = runs(SS_SIM_BIN, "platforms/p2.16xl.xml workloads/resnet50.json --synthetic --format csv");
  run_result b = runs(SS_SIM_BIN, "platforms/p2.16xl.xml workloads/resnet50.json --synthetic --format csv --no-nvlink");
  CHECK(a.status == 0 && b.status == 0 && strcmp(a.out, b.out) == 0, "p2.16xlarge changed without NVLink");
  run_free(&a);
  run_free(&b);
  cJSON* j = sim_json("platforms/p3.8xl.xml workloads/resnet50.json --synthetic --no-nvlink");
  CHECK(j && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "nvlink")), "JSON says nvlink false");
  cJSON_Delete(j);
}

/* Throughput of a plain run. */
static double throughput(const char* args)
{
  cJSON* j = sim_json("%s", args);
  double t = j ? num(j, "throughput_samples_per_s") : NAN;
  cJSON_Delete(j);
  return t;
}

/* whatif: its speedup is the ratio of the two plain runs' throughputs, whatever the change. */
static void test_whatif(void)
{
  static const char* const cases[][3] = {
      {"platforms/p3.16xl.xml workloads/vgg11.json --instances 2 --synthetic", "--change nic_gbps=100", "--nic-gbps 100"},
      {"platforms/p3.16xl.xml workloads/vgg11.json --synthetic --bucket-mb 0", "--change nvlink=off", "--no-nvlink"},
      {"platforms/p3.8xl.xml workloads/resnet50.json --instances 2 --arch ps --async --synthetic", "--change arch=allreduce",
       "--arch allreduce"},
      {"platforms/p3.8xl.xml workloads/resnet50.json --synthetic", "--change platform=platforms/p2.8xl.xml --change gpus=4",
       "--gpus 4"},
      {"platforms/p3.8xl.xml workloads/alexnet.json --cache 1", "--change workers=1", "--workers 1"}};
  for (int c = 0; c < 5; c++) {
    cJSON* j = NULL;
    char args[1024];
    snprintf(args, sizeof(args), "whatif %s %s", cases[c][0], cases[c][1]);
    j = sim_json("%s", args);
    double base = throughput(cases[c][0]);
    char changed[1024];
    snprintf(changed, sizeof(changed), "%s %s", cases[c][0], cases[c][2]);
    if (c == 2) /* ASGD does not go with allreduce: the change drops it */
      snprintf(changed, sizeof(changed), "platforms/p3.8xl.xml workloads/resnet50.json --instances 2 --synthetic");
    if (c == 3)
      snprintf(changed, sizeof(changed), "platforms/p2.8xl.xml workloads/resnet50.json --synthetic --gpus 4");
    double after = throughput(changed);
    double speedup = j ? num(j, "speedup") : NAN;
    CHECK(fabs(speedup - after / base) <= 1e-12 * speedup, "%s: speedup %.12g, plain runs %.12g", args, speedup,
          after / base);
    cJSON_Delete(j);
  }
  /* The table says what moved. */
  run_result r = runs(SS_SIM_BIN, "whatif platforms/p3.16xl.xml workloads/vgg11.json --instances 2 --synthetic "
                                  "--change nic_gbps=100");
  CHECK(r.status == 0 && strstr(r.out, "network stall") && strstr(r.out, "speedup: x"), "whatif table: %s", r.out);
  run_free(&r);
}

/* Read a whole file into a JSON tree. */
static cJSON* read_json_file(const char* path)
{
  FILE* f = fopen(path, "r");
  if (!f)
    return NULL;
  char* text = slurp(f);
  fclose(f);
  cJSON* j = cJSON_Parse(text);
  free(text);
  return j;
}

/* --trace: the run's report is byte for byte the same with and without it; the trace parses, its
 * per-GPU spans of each category over the measured iterations add up to the breakdown, nest in
 * their iterations without overlapping, and count one per layer, bucket and batch. */
/* Run base (a JSON report) with and without --trace: the same report, and on the trace, per GPU,
 * spans inside their iterations without overlap, layers forward spans (and as many allreduces and
 * batches as it implies), and per category spans that add up to the reported breakdown. */
static void check_trace(const char* base, int layers)
{
  const char* path = "build-test-trace.json";
  char args[512];
  snprintf(args, sizeof(args), "%s --trace %s", base, path);
  run_result with = runs(SS_SIM_BIN, args);
  run_result without = runs(SS_SIM_BIN, base);
  CHECK(with.status == 0 && without.status == 0 && strcmp(with.out, without.out) == 0,
        "the report changes with --trace: %s", with.err);
  cJSON* rep = cJSON_Parse(without.out);
  cJSON* tr = read_json_file(path);
  CHECK(rep && tr, "report or trace does not parse");
  if (rep && tr) {
    const cJSON* bd = cJSON_GetObjectItemCaseSensitive(rep, "breakdown");
    int gpus = (int)num(rep, "gpus"), iters = (int)num(rep, "iterations"), warm = (int)num(rep, "warmup");
    int buckets = (int)num(rep, "buckets");
    static const char* const cats[5] = {"compute", "prep_stall", "fetch_stall", "interconnect_stall",
                                        "network_stall"};
    double sum[5] = {0};
    int fwd = 0, allreduce = 0, batches = 0, outside = 0, overlaps = 0;
    const cJSON* events = cJSON_GetObjectItemCaseSensitive(tr, "traceEvents");
    for (int g = 0; g < gpus; g++) {
      int tid = 1 + 4 * g;
      /* The measured iterations' windows on this GPU's track, and its last span's end. */
      double lo[64], hi[64];
      int n = 0;
      const cJSON* e;
      cJSON_ArrayForEach(e, events)
      {
        const cJSON* name = cJSON_GetObjectItemCaseSensitive(e, "name");
        if ((int)num(e, "tid") == tid && cJSON_IsString(name) && strncmp(name->valuestring, "iteration ", 10) == 0 &&
            n < 64) {
          lo[n] = num(e, "ts");
          hi[n++] = num(e, "ts") + num(e, "dur");
        }
      }
      double last_end = -1;
      cJSON_ArrayForEach(e, events)
      {
        const cJSON* ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
        const cJSON* cat = cJSON_GetObjectItemCaseSensitive(e, "cat");
        const cJSON* name = cJSON_GetObjectItemCaseSensitive(e, "name");
        if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "X") != 0 || !cJSON_IsString(cat))
          continue;
        int etid = (int)num(e, "tid");
        if (etid == 2 + 4 * g && strncmp(name->valuestring, "allreduce", 9) == 0)
          allreduce++;
        if (etid / 1000 == 100 + g && strncmp(name->valuestring, "batch ", 6) == 0)
          batches++;
        if (etid != tid || strcmp(cat->valuestring, "iteration") == 0)
          continue;
        double ts = num(e, "ts"), end = ts + num(e, "dur");
        if (strncmp(name->valuestring, "fwd ", 4) == 0)
          fwd++;
        int in = -1;
        for (int i = 0; i < n; i++)
          if (ts >= lo[i] - 1e-3 && end <= hi[i] + 1e-3)
            in = i;
        outside += in < 0;
        overlaps += ts < last_end - 1e-3; /* spans of a track come out in time order */
        last_end = end;
        for (int c = 0; c < 5 && in >= warm && in < warm + iters; c++)
          if (strcmp(cat->valuestring, cats[c]) == 0)
            sum[c] += end - ts;
      }
      CHECK(n >= warm + iters, "GPU %d: %d iteration spans", g, n);
    }
    CHECK(outside == 0 && overlaps == 0, "%d spans outside their iteration, %d overlapping", outside, overlaps);
    int niters = (int)num(rep, "warmup") + iters; /* at least; the cool-down adds more */
    CHECK(fwd >= gpus * layers * niters && fwd % (gpus * layers) == 0,
          "%d forward spans: %d layers per GPU and iteration", fwd, layers);
    CHECK(allreduce == fwd / layers * buckets, "%d allreduce spans, %d buckets per iteration", allreduce, buckets);
    CHECK(batches == fwd / layers, "%d loaded batches for %d iterations", batches, fwd / layers);
    for (int c = 0; c < 5; c++) {
      char key[64];
      snprintf(key, sizeof(key), "%s_s", cats[c]);
      double part = num(bd, key), traced = sum[c] / 1e6 / (gpus * iters);
      CHECK(fabs(traced - part) <= 1e-6 * num(rep, "iteration_s"), "%s: traced %.9g s, reported %.9g s", cats[c],
            traced, part);
    }
  }
  cJSON_Delete(rep);
  cJSON_Delete(tr);
  run_free(&with);
  run_free(&without);
  remove(path);
}

static void test_trace(void)
{
  check_trace("platforms/p3.8xl.xml workloads/resnet50.json --iterations 2 --warmup 1 --cache 0.5 --workers 2 "
              "--format json",
              54);
  const char* path = "build-test-trace.json";
  char args[512];
  /* Link counters per class, between 0 and 1, and the report still the same, over two instances. */
  const char* two = "platforms/p3.16xl.xml workloads/resnet50.json --instances 2 --synthetic --iterations 2 --format json";
  snprintf(args, sizeof(args), "%s --trace %s", two, path);
  run_result a = runs(SS_SIM_BIN, args);
  run_result b = runs(SS_SIM_BIN, two);
  CHECK(a.status == 0 && b.status == 0 && strcmp(a.out, b.out) == 0, "two instances: the report changes with --trace");
  run_free(&a);
  run_free(&b);
  cJSON* tr = read_json_file(path);
  int nic = 0, pcie = 0, out_of_range = 0;
  const cJSON* evs = tr ? cJSON_GetObjectItemCaseSensitive(tr, "traceEvents") : NULL;
  const cJSON* e;
  cJSON_ArrayForEach(e, evs)
  {
    const cJSON* ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
    if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "C") != 0)
      continue;
    const cJSON* name = cJSON_GetObjectItemCaseSensitive(e, "name");
    double v = num(cJSON_GetObjectItemCaseSensitive(e, "args"), "value");
    nic += strcmp(name->valuestring, "NIC use") == 0 && v > 0;
    pcie += strcmp(name->valuestring, "PCIe use") == 0;
    out_of_range += v < 0 || v > 1 + 1e-9;
  }
  CHECK(nic > 0 && pcie > 0 && out_of_range == 0, "link counters: %d NIC samples in use, %d PCIe, %d out of [0, 1]",
        nic, pcie, out_of_range);
  cJSON_Delete(tr);
  remove(path);
  /* Gzipped when the name ends in .gz. */
  run_result gz = runs(SS_SIM_BIN, "tests/platforms/star2.xml tests/workloads/tiny.json --synthetic --trace "
                                   "build-test-trace.json.gz");
  FILE* f = fopen("build-test-trace.json.gz", "rb");
  unsigned char magic[2] = {0, 0};
  CHECK(gz.status == 0 && f && fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b,
        "--trace x.json.gz is not gzip");
  if (f)
    fclose(f);
  CHECK(system("gzip -t build-test-trace.json.gz") == 0, "the gzipped trace does not decompress");
  run_free(&gz);
  remove("build-test-trace.json.gz");
}

static void test_help_version(void)
{
  run_result r = runs(SS_SIM_BIN, "--help");
  CHECK(r.status == 0 && strstr(r.out, "usage: stash-sim") && !*r.err, "--help");
  run_free(&r);
  r = runs(SS_SIM_BIN, "--version");
  CHECK(r.status == 0 && strncmp(r.out, "stash-sim ", 10) == 0, "--version");
  run_free(&r);
}

/* Bad input: exit code and the exact first line of stderr, nothing on stdout. */
static void test_bad(const char* name)
{
  run_bad_case("tests/bad/cases.txt", SS_SIM_BIN, name);
}

typedef struct test_entry {
  const char* name;
  void (*fn)(void);
} test_entry;

/* CPU training (compute_on="cpu", tests/platforms/star2_cpu.xml: the "GPUs" compute on the cpu
 * host's 2 cores, beside the loaders). The tiny workload: C = 9.5 ms of compute, P = 8 x 2 ms of
 * preparation per batch. */
static double iteration_of(const char* args)
{
  cJSON* j = sim_json("%s", args);
  double t = j ? num(j, "iteration_s") : NAN;
  cJSON_Delete(j);
  return t;
}

static void test_cpu_compute(void)
{
  const char* cpu = "tests/platforms/star2_cpu.xml tests/workloads/tiny.json --cache 1";
  const char* gpu = "tests/platforms/star2.xml tests/workloads/tiny.json --cache 1";
  /* As many activities as cores: nothing competes, the same as on GPUs. */
  static const char* const alike[] = {"--gpus 1 --workers 1", "--gpus 2 --synthetic", "--gpus 2 --workers 0",
                                      "--gpus 1 --synthetic"};
  for (int i = 0; i < 4; i++) {
    char a[256], b[256];
    snprintf(a, sizeof(a), "%s %s", cpu, alike[i]);
    snprintf(b, sizeof(b), "%s %s", gpu, alike[i]);
    double tc = iteration_of(a), tg = iteration_of(b);
    CHECK(tc == tg, "%s: %.12g s on the cpu cores, %.12g s on GPUs", alike[i], tc, tg);
  }
  /* More activities than cores: the cores bind. Each iteration needs C + P of one rank's core
   * time, so 1 rank with 3 loaders on 2 cores takes (C + P) / 2 = 12.75 ms, where GPUs take
   * C plus the copy; 2 ranks with a loader each take C + P = 25.5 ms, where GPUs take P = 16 ms.
   * The loaders' head start (prefetch 2) shrinks over a long run: 200 iterations. */
  double c = iteration_of("tests/platforms/star2_cpu.xml tests/workloads/tiny.json --synthetic --gpus 1");
  CHECK(fabs(c - 9.5e-3) <= 1e-12, "compute %.12g s", c);
  double p = 8 * 2e-3;
  double one = iteration_of("tests/platforms/star2_cpu.xml tests/workloads/tiny.json --cache 1 --gpus 1 --workers 3 "
                            "--iterations 200");
  double two = iteration_of("tests/platforms/star2_cpu.xml tests/workloads/tiny.json --cache 1 --gpus 2 --workers 1 "
                            "--iterations 200");
  CHECK(fabs(one - (c + p) / 2) <= 0.005 * (c + p) / 2, "1 rank, 3 loaders: %.9g s, expected (C + P) / 2 = %.9g s", one,
        (c + p) / 2);
  CHECK(fabs(two - (c + p)) <= 0.005 * (c + p), "2 ranks, 1 loader each: %.9g s, expected C + P = %.9g s", two, c + p);
  double gone = iteration_of("tests/platforms/star2.xml tests/workloads/tiny.json --cache 1 --gpus 1 --workers 3 "
                             "--iterations 200");
  double gtwo = iteration_of("tests/platforms/star2.xml tests/workloads/tiny.json --cache 1 --gpus 2 --workers 1 "
                             "--iterations 200");
  CHECK(gone < 0.8 * one && fabs(gtwo - p) <= 0.005 * p, "on GPUs: %.9g s and %.9g s", gone, gtwo);
  /* The trace of a run whose compute is slowed by the loaders still adds up to the breakdown. */
  check_trace("tests/platforms/star2_cpu.xml tests/workloads/tiny.json --cache 1 --gpus 2 --workers 1 --iterations 4 "
              "--format json",
              3);
}

static const test_entry tests[] = {
    {"ring_closed_form", test_ring_closed_form},
    {"hierarchical_closed_form", test_hierarchical_closed_form},
    {"fast_vs_reference", test_fast_vs_reference},
    {"tree_closed_form", test_tree_closed_form},
    {"auto_choice", test_auto_choice},
    {"compute_scaling", test_compute_scaling},
    {"network_stall", test_network_stall},
    {"single_gpu_synthetic", test_single_gpu_synthetic},
    {"breakdown_sums", test_breakdown_sums},
    {"more_bandwidth_never_slower", test_more_bandwidth_never_slower},
    {"no_overlap_never_faster", test_no_overlap_never_faster},
    {"deterministic", test_deterministic},
    {"resnet50_v100_calibration", test_resnet50_v100_calibration},
    {"loader_stalls", test_loader_stalls},
    {"stash_differential", test_stash_differential},
    {"stash_network", test_stash_network},
    {"ps_closed_form", test_ps_closed_form},
    {"ps_shards", test_ps_shards},
    {"ps_async", test_ps_async},
    {"init_io", test_init_io},
    {"no_nvlink", test_no_nvlink},
    {"whatif", test_whatif},
    {"trace", test_trace},
    {"cpu_compute", test_cpu_compute},
    {"help_version", test_help_version},
};

int main(int argc, char** argv)
{
  if (argc == 3 && strcmp(argv[1], "bad") == 0) {
    test_bad(argv[2]);
  } else if (argc == 2) {
    int found = 0;
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
      if (strcmp(tests[i].name, argv[1]) == 0) {
        tests[i].fn();
        found = 1;
      }
    if (!found) {
      fprintf(stderr, "test_e2e: unknown test '%s'\n", argv[1]);
      return 2;
    }
  } else {
    fprintf(stderr, "usage: test_e2e TEST | test_e2e bad CASE\n");
    return 2;
  }
  printf("%s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}
