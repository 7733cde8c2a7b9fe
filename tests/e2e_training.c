/* e2e_training: training runs: compute scaling, single-GPU closed forms, the breakdown's parts
 * summing to the iteration, network stalls, monotonicity in bandwidth and overlap, the ResNet-50/V100
 * calibration. */
#include "e2e.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* const breakdown_keys[] = {"compute_s",       "prep_stall_s", "fetch_stall_s", "interconnect_stall_s",
                                             "network_stall_s", "host_stall_s"};
#define NPARTS 6

/* Compute on another device: a measured ratio in the workload wins over the peak-FLOPS ratio
 * (tiny_devices.json: forward x2, backward x3, optimizer x8/3 on test-gpu-10Tf); and an instance
 * file without a NIC runs on its own. */
void test_compute_scaling(void)
{
  double t = iteration("tests/platforms/star2.xml tests/workloads/tiny_devices.json --gpus 1 --synthetic --jitter 0",
                       "");
  double expect = 3 * 0.001 * 2 + 3 * 0.002 * 3 + 0.0005 * 8 / 3;
  CHECK(fabs(t - expect) <= 1e-9 * expect, "iteration %.12g s, expected %.12g", t, expect);
  t = iteration("tests/bad/cluster_no_nic.xml tests/workloads/tiny.json --gpus 1 --synthetic --jitter 0", "");
  CHECK(fabs(t - 0.0095) <= 1e-9 * 0.0095, "no NIC, one instance: iteration %.12g s, expected 0.0095", t);
  /* --compute-scale multiplies every kernel, the optimizer's too. */
  t = iteration("tests/bad/cluster_no_nic.xml tests/workloads/tiny.json --gpus 1 --synthetic --compute-scale 0.25 "
                "--jitter 0",
                "");
  CHECK(fabs(t - 0.0095 * 0.25) <= 1e-9 * 0.0095, "--compute-scale 0.25: iteration %.12g s, expected %.12g", t,
        0.0095 * 0.25);
}

/* One GPU, synthetic data: the iteration is forward + backward + optimizer of the workload. */
void test_single_gpu_synthetic(void)
{
  /* tiny.json: 3 layers of 1 + 2 ms at batch 8 on a 10 TF reference; optimizer 0.5 ms; star GPUs 10 TF. */
  double t = iteration("tests/platforms/star2.xml tests/workloads/tiny.json --gpus 1 --synthetic --jitter 0", "");
  CHECK(fabs(t - 0.0095) <= 1e-9 * 0.0095, "iteration %.12g s, expected 0.0095", t);
  /* Batch 16 doubles the layer times, not the optimizer. */
  t = iteration("tests/platforms/star2.xml tests/workloads/tiny.json --gpus 1 --synthetic --batch 16 --jitter 0", "");
  CHECK(fabs(t - 0.0185) <= 1e-9 * 0.0185, "iteration %.12g s at batch 16, expected 0.0185", t);
}

static void check_sum(const char* args)
{
  cJSON* j = sim_json("%s", args);
  if (!j)
    return;
  const cJSON* b = cJSON_GetObjectItemCaseSensitive(j, "breakdown");
  double sum = 0;
  for (int i = 0; i < NPARTS; i++) {
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

void test_breakdown_sums(void)
{
  check_sum("platforms/p3.16xl.xml workloads/resnet50.json");
  check_sum("platforms/p3.8xl.xml workloads/resnet50.json --workers 0");
  check_sum("platforms/p3.2xl.xml workloads/resnet50.json --cache 0 --workers 2");
  check_sum("platforms/p3.16xl.xml workloads/resnet50.json --no-overlap --bucket-mb 5 --cache 0.3");
  /* A wait that is all network stall: its two parts once rounded below 0 (an abort). The case that
   * found it, kept as it was: --compute-scale 0.306 here is a plain what-if on a K80, not AMP. */
  check_sum("platforms/p2.xl.xml workloads/vgg11.json --instances 2 --bucket-mb 0 --async-copy --compute-scale 0.306 "
            "--cache 1");
  check_sum("tests/platforms/star4.xml tests/workloads/tiny.json --workers 1");
}

void test_more_bandwidth_never_slower(void)
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
void test_network_stall(void)
{
  const char* base = "tests/platforms/star4.xml workloads/resnet50.json --synthetic";
  const struct {
    const char* extra;
    int net, inter;
  } cases[] = {{"", 0, 1},
               {"--instances 2 --allreduce ring", 1, 0},
               {"--instances 2 --allreduce hierarchical", 1, 1},
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

void test_no_overlap_never_faster(void)
{
  const char* cases[] = {"platforms/p3.16xl.xml workloads/resnet50.json",
                         "platforms/p3.8xl.xml workloads/resnet50.json",
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

/* Calibration check: the trace's V100 step was 98.7 ms of GPU time (fwd 33.0, bwd 64.4, SGD 1.3);
 * GPU time only, so without the host's (--no-launch: the workload's host times, measured with the
 * profiler on, made that profiled run host-bound in its forward pass). */
void test_resnet50_v100_calibration(void)
{
  double t = iteration("platforms/p3.2xl.xml workloads/resnet50.json --synthetic --batch 32 --no-launch", "");
  CHECK(fabs(t - 0.0987) <= 0.03 * 0.0987, "resnet50 on 1 V100: %.4f ms, trace 98.7 ms", t * 1e3);
}

/* DeepSpeed ZeRO-1 and ZeRO-2 on n GPUs of a star, --ideal (links and kernels only), synthetic data:
 * tiny's 12 MB of gradients fit one bucket (5e8 elements), reduced after backward (ZeRO-1: an
 * allreduce, 2(n-1) steps; ZeRO-2: a reduce-scatter, n-1 steps), then, after the step on 1/n of the
 * parameters (0.5 ms / n), the all-gather of the 12 MB of parameters (n-1 steps), each step alpha 10
 * us + S/(n B) at 10 GB/s. Nothing overlaps: the iteration is fwd 3 + bwd 6 + 0.5 / n ms of compute
 * and those collectives as interconnect stall. */
void test_zero_closed_form(void)
{
  const double s = 12e6, bw = 10e9, alpha = 10e-6;
  const struct {
    const char* file;
    int n;
  } stars[] = {{"star2", 2}, {"star4", 4}};
  const char* const modes[] = {"zero1", "zero2"};
  for (size_t i = 0; i < sizeof(stars) / sizeof(stars[0]); i++)
    for (int z = 0; z < 2; z++) {
      int n = stars[i].n;
      double step = alpha + s / (n * bw), stall = (z == 0 ? 2 : 1) * (n - 1) * step + (n - 1) * step;
      double compute = 9e-3 + 0.5e-3 / n;
      cJSON* j = sim_json("tests/platforms/%s.xml tests/workloads/tiny.json --synthetic --ideal --shard %s",
                          stars[i].file, modes[z]);
      const cJSON* b = cJSON_GetObjectItemCaseSensitive(j, "breakdown");
      const cJSON* o = cJSON_GetObjectItemCaseSensitive(j, "options");
      const cJSON* echo = cJSON_GetObjectItemCaseSensitive(o, "shard");
      CHECK(
          j && fabs(num(b, "interconnect_stall_s") - stall) <= 1e-9 && fabs(num(b, "compute_s") - compute) <= 1e-9 &&
              fabs(num(j, "iteration_s") - compute - stall) <= 1e-9 && num(j, "buckets") == 1 && cJSON_IsString(echo) &&
              strcmp(echo->valuestring, modes[z]) == 0,
          "%s x %d GPUs, --shard %s: iteration %.9g s, compute %.9g s, interconnect %.9g s; expected %.9g, %.9g, %.9g",
          stars[i].file, n, modes[z], num(j, "iteration_s"), num(b, "compute_s"), num(b, "interconnect_stall_s"),
          compute + stall, compute, stall);
      cJSON_Delete(j);
    }
}

/* DeepSpeed's overlap_comm on ZeRO-2 (--overlap-comm on): GPT-2 1.5B's three buckets are reduced
 * while backward goes on instead of blocking it, so the iteration is shorter than with the stage's
 * default (off), by no more than the reductions' wait. */
void test_zero_overlap_comm(void)
{
  const char* base = "platforms/p4d.24xl.xml workloads/gpt2-1.5b.json --synthetic --batch 1 --shard zero2";
  cJSON* off = sim_json("%s", base);
  cJSON* on = sim_json("%s --overlap-comm on", base);
  double t_off = num(off, "iteration_s"), t_on = num(on, "iteration_s");
  double ic = num(cJSON_GetObjectItemCaseSensitive(off, "breakdown"), "interconnect_stall_s");
  CHECK(off && on && t_on < t_off && t_off - t_on <= ic,
        "ZeRO-2 overlap_comm: %.6g s on, %.6g s off (interconnect stall %.6g s)", t_on, t_off, ic);
  cJSON_Delete(off);
  cJSON_Delete(on);
}

/* ZeRO's memory against hand-computed parts: GPT-2 1.5B (1,557,611,200 parameters, FP32 gradients,
 * AdamW's 8 bytes a parameter) on the 8 A100s of a p4d.24xlarge: ZeRO-1 keeps 1/8 of the optimizer
 * state, ZeRO-2 1/8 of the gradients too, and both one flat bucket (the largest, at most 5e8 elements
 * x 4 bytes) instead of DDP's copy of every gradient. Its trace shows, per GPU and iteration, one
 * reduce-scatter (ZeRO-2) or allreduce (ZeRO-1) per bucket and max(1, floor(P / 5e8)) = 3 parameter
 * all-gathers. */
void test_zero_memory_and_trace(void)
{
  const double p = 1557611200.0;
  const char* const modes[] = {"none", "zero1", "zero2"};
  for (int z = 0; z < 3; z++) {
    cJSON* j = sim_json(
        "platforms/p4d.24xl.xml workloads/gpt2-1.5b.json --synthetic --batch 1 --ignore-memory --shard %s", modes[z]);
    const cJSON* m = cJSON_GetObjectItemCaseSensitive(j, "gpu_memory_bytes");
    double opt = z == 0 ? p * 8 : p, grad = z == 2 ? p * 4 / 8 : p * 4, buffers = num(m, "buffers");
    CHECK(j && fabs(num(m, "optimizer") - opt) <= 1e-9 * opt && fabs(num(m, "gradients") - grad) <= 1e-9 * grad &&
              (z == 0 ? fabs(buffers - p * 4) <= 1e-9 * p : buffers > 0 && buffers <= 5e8 * 4),
          "--shard %s: optimizer %.0f B (expected %.0f), gradients %.0f B (expected %.0f), buffers %.0f B", modes[z],
          num(m, "optimizer"), opt, num(m, "gradients"), grad, buffers);
    int buckets = (int)num(j, "buckets");
    cJSON_Delete(j);
    if (z == 0)
      continue;
    char trace[64], args[512];
    snprintf(trace, sizeof(trace), "e2e_zero_%d.json", z);
    snprintf(args, sizeof(args),
             "platforms/p4d.24xl.xml workloads/gpt2-1.5b.json --synthetic --batch 1 --ignore-memory "
             "--shard %s --warmup 0 --iterations 1 --trace %s",
             modes[z], trace);
    run_result r = runs(SS_SIM_BIN, args);
    int grads = 0, gathers = 0, other = 0;
    const char* want = z == 1 ? "\"name\": \"allreduce bucket " : "\"name\": \"reduce-scatter bucket ";
    const char* not = z == 1 ? "\"name\": \"reduce-scatter bucket " : "\"name\": \"allreduce bucket ";
    const char* gather = "\"name\": \"all-gather parameters ";
    char* text = r.status == 0 ? read_text(trace) : NULL;
    for (const char* q = text; q && (q = strstr(q, "\"name\": \"")); q++) {
      grads += strncmp(q, want, strlen(want)) == 0;
      gathers += strncmp(q, gather, strlen(gather)) == 0;
      other += strncmp(q, not, strlen(not )) == 0;
    }
    /* Per GPU and simulated iteration (the trace holds them all): each bucket's collective, 3 all-gathers. */
    CHECK(text && buckets > 1 && grads > 0 && grads % (8 * buckets) == 0 && gathers * buckets == grads * 3 &&
              other == 0,
          "--shard %s trace: %d gradient collectives, %d all-gathers, %d of the other kind (%d buckets)", modes[z],
          grads, gathers, other, buckets);
    free(text);
    remove(trace);
    run_free(&r);
  }
}

/* FSDP and ZeRO-3 on n GPUs of a star, --ideal, synthetic data: tiny's 3 layers of 1e6 FP32
 * parameters (4 MB each, one unit each), fwd 1 ms and bwd 2 ms per layer, the step 0.5 / n ms. Every
 * collective of S bytes among n GPUs takes (n-1) steps of alpha 10 us + S / (n B), B 10 GB/s: c for
 * a unit. FULL_SHARD: unit 0's all-gather is waited for (c); unit 1's is issued with it and unit 2's
 * at the start of layer 1 (prefetch), both done in time; backward gathers unit 2 again (waited: c)
 * while prefetching unit 1; each unit's reduce-scatter follows its backward, the last waited for (c):
 * 3c of stall. SHARD_GRAD_OP keeps the units from forward to backward: 2c; so does
 * _HYBRID_SHARD_ZERO2 on one instance (its shard group is then every GPU). ZeRO-3: unit 0's
 * all-gather (c), then one prefetch of units 1-2 (5e7 elements cover them, done in time); every unit
 * is used again within 1e9 elements, so kept for backward; the gradients' one bucket of 12 MB is
 * reduced after backward, waited for: c + (n-1)(alpha + 12 MB / (n B)); in both fidelities. With
 * --no-param-prefetch every all-gather is waited for: FULL_SHARD 3c in forward, then c, 2c, 2c in
 * backward (each after the previous unit's reduce-scatter) and the last reduce-scatter: 9c; ZeRO-3
 * 3c and the bucket.
 * ZeRO-3 with --overlap-comm off gathers on the default stream: layer 0 waits for its prefetch of
 * layers 1-2 too, (n-1)(alpha + 8 MB / (n B)) more. */
void test_units_closed_form(void)
{
  const double bw = 10e9, alpha = 10e-6;
  const struct {
    const char* file;
    int n;
  } stars[] = {{"star2", 2}, {"star4", 4}};
  const char* const modes[] = {"fsdp-full",
                               "fsdp-grad-op",
                               "zero3",
                               "fsdp-full --no-param-prefetch",
                               "zero3 --no-param-prefetch",
                               "zero3 --overlap-comm off",
                               "fsdp-hybrid-zero2"};
  for (size_t i = 0; i < 2 * sizeof(stars) / sizeof(stars[0]); i++)
    for (int z = 0; z < 7; z++) {
      /* Both fidelities: the reference's chunk by chunk rings give the same on a star. */
      const char* fid = i % 2 ? " --fidelity reference" : "";
      int n = stars[i / 2].n;
      double c = (n - 1) * (alpha + 4e6 / (n * bw)), bucket = (n - 1) * (alpha + 12e6 / (n * bw));
      double pre = (n - 1) * (alpha + 8e6 / (n * bw));
      double stalls[] = {3 * c, 2 * c, c + bucket, 9 * c, 3 * c + bucket, c + pre + bucket, 2 * c};
      double stall = stalls[z], compute = 9e-3 + 0.5e-3 / n;
      cJSON* j = sim_json("tests/platforms/%s.xml tests/workloads/tiny.json --synthetic --ideal --shard %s%s",
                          stars[i / 2].file, modes[z], fid);
      const cJSON* b = cJSON_GetObjectItemCaseSensitive(j, "breakdown");
      CHECK(j && fabs(num(b, "interconnect_stall_s") - stall) <= 1e-9 && fabs(num(b, "compute_s") - compute) <= 1e-9 &&
                fabs(num(j, "iteration_s") - compute - stall) <= 1e-9,
            "%s x %d GPUs, --shard %s%s: iteration %.9g s, compute %.9g s, interconnect %.9g s; expected %.9g, %.9g, "
            "%.9g",
            stars[i / 2].file, n, modes[z], fid, num(j, "iteration_s"), num(b, "compute_s"),
            num(b, "interconnect_stall_s"), compute + stall, compute, stall);
      cJSON_Delete(j);
    }
}

/* The names of one GPU's collectives and waits in its first iteration on a trace: counts of each
 * name with digits dropped ("all-gather unit for forward (prefetch)"). */
typedef struct name_count {
  char name[96];
  int n;
} name_count;

static int count_names(const char* args, name_count* out, int most)
{
  char trace[] = "e2e_units_trace.json", cmd[1024];
  snprintf(cmd, sizeof(cmd), "%s --warmup 0 --iterations 1 --trace %s", args, trace);
  run_result r = runs(SS_SIM_BIN, cmd);
  char* text = r.status == 0 ? read_text(trace) : NULL;
  cJSON* t = text ? cJSON_Parse(text) : NULL;
  int kinds = 0;
  const cJSON* e;
  /* GPU 0 of instance 0 (pid 1): its trainer's track (tid 1) and its collectives' (tid 2). */
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(t, "traceEvents"))
  {
    const cJSON* ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
    const cJSON* n = cJSON_GetObjectItemCaseSensitive(e, "name");
    int tid = (int)num(e, "tid");
    if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "X") != 0 || !cJSON_IsString(n) || num(e, "pid") != 1 ||
        (tid != 1 && tid != 2))
      continue;
    char name[96];
    size_t k = 0;
    for (const char* c = n->valuestring; *c && k + 1 < sizeof(name); c++)
      if (*c < '0' || *c > '9')
        name[k++] = *c;
    name[k] = 0;
    int f = 0;
    while (f < kinds && strcmp(out[f].name, name) != 0)
      f++;
    if (f == kinds && kinds < most) {
      snprintf(out[kinds].name, sizeof(out[kinds].name), "%s", name);
      out[kinds++].n = 0;
    }
    if (f < most)
      out[f].n++;
  }
  cJSON_Delete(t);
  free(text);
  remove(trace);
  run_free(&r);
  return kinds;
}

static int named(const name_count* c, int kinds, const char* name)
{
  for (int i = 0; i < kinds; i++)
    if (strcmp(c[i].name, name) == 0)
      return c[i].n;
  return 0;
}

/* The collectives each mode issues per GPU and iteration, counted on the trace, against what the
 * documentation describes (calibration/sharding_sources.md) for Llama-2 7B's U = 34 units (the
 * embedding, 32 decoder layers, the norm and head; one per layer with parameters), no root:
 * - FULL_SHARD (section 4.3): an all-gather per unit before its forward and again before its
 *   backward (one fetched, U-1 prefetched in each pass), a reduce-scatter per unit: 2U + U;
 * - SHARD_GRAD_OP (4.4): no all-gather in backward: U + U;
 * - HYBRID_SHARD on 2 instances (4.4): FULL_SHARD's, plus an allreduce of each unit's shard across
 *   the instances: 2U + U + U;
 * - _HYBRID_SHARD_ZERO2 on 2 instances (4.4): SHARD_GRAD_OP's, plus the same allreduce: U + U + U;
 * - ZeRO-3 (section 3): each layer's fetch or a prefetch of up to 5e7 elements by tensor. Forward:
 *   33 fetches (the head's one tensor of 1.3e8 elements is prefetched whole) and 34 prefetches, the
 *   last for backward (named so); the last three units are used again within 1e9 elements (2 x
 *   1.3e8, 2 x 3.3e8) and kept; backward: 34 - 3 - 2 = 29 fetches (decoder layer 29 and the
 *   embedding come whole from prefetches) and 33 prefetches; one reduce-scatter per bucket of 5e8
 *   elements (17: a layer is never split); one all-gather of the persistent parameters (the norms'
 *   <= 1e5 elements) after the step. */
void test_units_trace_counts(void)
{
  const char* base =
      "platforms/p4d.24xl.xml workloads/llama2-7b-seq2048.json --synthetic --precision bf16 --ignore-memory";
  static const struct {
    const char* mode;
    const char* extra;
    int fwd_fetch, fwd_pre, bwd_fetch, bwd_pre, reduce, replica, bucket, post;
  } cases[] = {
      {"fsdp-full", "", 1, 33, 1, 33, 34, 0, 0, 0},
      {"fsdp-grad-op", "", 1, 33, 0, 0, 34, 0, 0, 0},
      {"fsdp-hybrid", "--instances 2", 1, 33, 1, 33, 34, 34, 0, 0},
      {"fsdp-hybrid-zero2", "--instances 2", 1, 33, 0, 0, 34, 34, 0, 0},
      {"zero3", "", 33, 33, 29, 34, 0, 0, 17, 1},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char args[512];
    snprintf(args, sizeof(args), "%s --shard %s %s", base, cases[i].mode, cases[i].extra);
    name_count c[32];
    int k = count_names(args, c, 32);
    int got[8] = {named(c, k, "all-gather unit  for forward"),
                  named(c, k, "all-gather unit  for forward (prefetch)") +
                      named(c, k, "all-gather units - for forward (prefetch)"),
                  named(c, k, "all-gather unit  for backward"),
                  named(c, k, "all-gather unit  for backward (prefetch)") +
                      named(c, k, "all-gather units - for backward (prefetch)"),
                  named(c, k, "reduce-scatter unit "),
                  named(c, k, "allreduce unit  across instances"),
                  named(c, k, "reduce-scatter bucket "),
                  named(c, k, "all-gather parameters ")};
    int want[8] = {cases[i].fwd_fetch, cases[i].fwd_pre, cases[i].bwd_fetch, cases[i].bwd_pre,
                   cases[i].reduce,    cases[i].replica, cases[i].bucket,    cases[i].post};
    CHECK(memcmp(got, want, sizeof(got)) == 0 && named(c, k, "wait for unit 's parameters (interconnect)") +
                                                         named(c, k, "wait for unit 's parameters (network)") >
                                                     0,
          "--shard %s: forward all-gathers %d + %d prefetched, backward %d + %d, reduce-scatters %d, allreduces "
          "across %d, buckets %d, after the step %d; expected %d + %d, %d + %d, %d, %d, %d, %d",
          cases[i].mode, got[0], got[1], got[2], got[3], got[4], got[5], got[6], got[7], want[0], want[1], want[2],
          want[3], want[4], want[5], want[6], want[7]);
  }
}

/* Memory per GPU of FSDP and ZeRO-3 against hand-computed parts: Llama-2 7B (P = 6,738,415,616
 * parameters, FP32 gradients as the workload gives them, AdamW's 8 bytes) at bf16 on the 8 A100s of
 * a p4d.24xlarge. FULL_SHARD: the FP32 parameters / 8 plus two decoder layers gathered at once (the
 * one running and the one prefetched: 2 x 202,383,360 x 2 bytes); the gradients / 8 plus one
 * layer's unsharded bf16 gradient; the optimizer / 8. SHARD_GRAD_OP keeps every unit gathered from
 * its forward to its backward: all P x 2 bytes at the end of forward. _HYBRID_SHARD_ZERO2 on two of
 * them keeps every unit too, and divides the states among each instance's 8 GPUs, where
 * SHARD_GRAD_OP on the same two divides them among all 16. */
void test_units_memory(void)
{
  const double p = 6738415616.0, layer = 202383360.0;
  static const struct {
    const char* mode;
    int group, kept; /* the shard group; every unit kept from forward to backward */
  } cases[] = {{"fsdp-full", 8, 0},
               {"fsdp-grad-op", 8, 1},
               {"fsdp-hybrid-zero2 --instances 2", 8, 1},
               {"fsdp-grad-op --instances 2", 16, 1}};
  for (size_t z = 0; z < sizeof(cases) / sizeof(cases[0]); z++) {
    cJSON* j = sim_json("platforms/p4d.24xl.xml workloads/llama2-7b-seq2048.json --synthetic --precision bf16 "
                        "--ignore-memory --shard %s",
                        cases[z].mode);
    const cJSON* m = cJSON_GetObjectItemCaseSensitive(j, "gpu_memory_bytes");
    double g = cases[z].group;
    double params = p * 4 / g + (cases[z].kept ? p * 2 : 2 * layer * 2), grads = p * 4 / g + layer * 2, opt = p * 8 / g;
    CHECK(j && num(j, "shard_group") == g && fabs(num(m, "parameters") - params) <= 1e-9 * params &&
              fabs(num(m, "gradients") - grads) <= 1e-9 * grads && fabs(num(m, "optimizer") - opt) <= 1e-9 * opt &&
              num(m, "buffers") == 0,
          "--shard %s: shard group %g (expected %g), parameters %.0f B (expected %.0f), gradients %.0f B (expected "
          "%.0f), optimizer %.0f B (expected %.0f), buffers %.0f",
          cases[z].mode, num(j, "shard_group"), g, num(m, "parameters"), params, num(m, "gradients"), grads,
          num(m, "optimizer"), opt, num(m, "buffers"));
    cJSON_Delete(j);
  }
}

/* Hybrid sharding's collectives on 2 instances of a star of 2 GPUs: a unit's reduce-scatter in the
 * instance, then the allreduce of its shard across, then its all-gather in the instance move what
 * the hierarchical allreduce of the unit moves, phase by phase, so under --ideal one FSDP unit's
 * three collectives take as long as that allreduce (the bench's figure); and the fast fidelity
 * agrees with the reference. */
void test_hybrid_scopes(void)
{
  cJSON* hier = sim_json("bench allreduce tests/platforms/star2.xml --instances 2 --allreduce hierarchical --ideal "
                         "--min-bytes 4000000 --max-bytes 4000000 --iters 1");
  const cJSON* res = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(hier, "results"), 0);
  double ar = num(res, "time_s");
  /* tiny's units on 2 x star2 with --wrap-params 1e7 (all three layers in the root: one unit of
   * 12 MB, gathered before forward, reduced after backward, nothing to prefetch): the stall is the
   * all-gather before forward, then the reduce-scatter and the allreduce across after backward. */
  cJSON* a = sim_json("tests/platforms/star2.xml tests/workloads/tiny.json --instances 2 --synthetic --ideal "
                      "--shard fsdp-hybrid --wrap-params 1e7");
  cJSON* f = sim_json("tests/platforms/star2.xml tests/workloads/tiny.json --instances 2 --synthetic --ideal "
                      "--shard fsdp-hybrid --wrap-params 1e7 --fidelity reference");
  cJSON* h12 = sim_json("bench allreduce tests/platforms/star2.xml --instances 2 --allreduce hierarchical --ideal "
                        "--min-bytes 12000000 --max-bytes 12000000 --iters 1");
  double ar12 = num(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(h12, "results"), 0), "time_s");
  const cJSON* b = cJSON_GetObjectItemCaseSensitive(a, "breakdown");
  double stall = num(b, "interconnect_stall_s") + num(b, "network_stall_s");
  CHECK(hier && a && f && h12 && ar > 0 && fabs(stall - ar12) <= 1e-9 &&
            fabs(num(a, "iteration_s") - num(f, "iteration_s")) <= 1e-9 * num(a, "iteration_s"),
        "fsdp-hybrid, one 12 MB unit on 2 x star2: stall %.9g s, the hierarchical allreduce of 12 MB %.9g s; fast "
        "%.9g s, reference %.9g s",
        stall, ar12, num(a, "iteration_s"), num(f, "iteration_s"));
  cJSON_Delete(hier);
  cJSON_Delete(a);
  cJSON_Delete(f);
  cJSON_Delete(h12);
}

/* _HYBRID_SHARD_ZERO2 on m instances of a star of g GPUs (--ideal, synthetic data, tiny's three
 * units of 4 MB as in units_closed_form): SHARD_GRAD_OP inside each instance, so unit 0's all-gather
 * before forward and the last unit's reduce-scatter after backward are waited for, c each, with
 * c = (g-1)(alpha 10 us + S / (g B)), B 10 GB/s: 2c of interconnect stall; and after each unit's
 * reduce-scatter the allreduce of its shard among the same-index GPUs of the m instances, the last
 * one waited for: x = 2(m-1)(alpha_x + S / (g m B_x)) of network stall, alpha_x 20 us (each end's
 * GPU-to-NIC route: 5 us + 5 us) and B_x the NIC's 10 GB/s shared by the g rings. The step runs on
 * 1/g of the parameters: 0.5 / g ms. HYBRID_SHARD gathers every unit again before its backward,
 * the first of them waited for: 3c + x. Both fidelities. */
void test_hybrid_zero2_closed_form(void)
{
  const double bw = 10e9, alpha = 10e-6, alpha_x = 20e-6, nic = 10e9, s = 4e6;
  const struct {
    const char* file;
    int g;
  } stars[] = {{"star2", 2}, {"star4", 4}};
  const char* const modes[] = {"fsdp-hybrid-zero2", "fsdp-hybrid"};
  for (int i = 0; i < 2; i++)
    for (int m = 2; m <= 3; m++)
      for (int z = 0; z < 2; z++)
        for (int f = 0; f < 2; f++) {
          int g = stars[i].g;
          double c = (g - 1) * (alpha + s / (g * bw)), x = 2 * (m - 1) * (alpha_x + s / (g * m) / (nic / g));
          double inter = (z == 0 ? 2 : 3) * c, compute = 9e-3 + 0.5e-3 / g;
          cJSON* j = sim_json("tests/platforms/%s.xml tests/workloads/tiny.json --instances %d --synthetic --ideal "
                              "--shard %s%s",
                              stars[i].file, m, modes[z], f ? " --fidelity reference" : "");
          const cJSON* b = cJSON_GetObjectItemCaseSensitive(j, "breakdown");
          CHECK(j && num(j, "shard_group") == g && fabs(num(b, "interconnect_stall_s") - inter) <= 1e-9 &&
                    fabs(num(b, "network_stall_s") - x) <= 1e-9 && fabs(num(b, "compute_s") - compute) <= 1e-9 &&
                    fabs(num(j, "iteration_s") - compute - inter - x) <= 1e-9,
                "%d x %s, --shard %s%s: iteration %.9g s, compute %.9g s, interconnect %.9g s, network %.9g s, "
                "shard group %g; expected %.9g, %.9g, %.9g, %.9g, %d",
                m, stars[i].file, modes[z], f ? " --fidelity reference" : "", num(j, "iteration_s"),
                num(b, "compute_s"), num(b, "interconnect_stall_s"), num(b, "network_stall_s"), num(j, "shard_group"),
                compute + inter + x, compute, inter, x, g);
          cJSON_Delete(j);
        }
}
