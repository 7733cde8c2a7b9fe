/* e2e_host: the host side (docs/model.md, "The host side"): launch-bound steps, the frameworks'
 * collectives, pageable copies, the loader handoff, --ideal. Closed forms on the tiny workloads:
 * tests/workloads/tiny_host.json issues each layer's forward in 3 ms and backward in 4 ms of host
 * time and the optimizer in 1 ms (22 ms per iteration), where its GPU needs 1 + 2 ms per layer and
 * 0.5 ms (9.5 ms): launch-bound. */
#include "e2e.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int near(double a, double b, double rel)
{
  return fabs(a - b) <= rel * fabs(b);
}

/* Closed forms: every GPU at its mean speed (--jitter 0: no stragglers; --ideal switches it off too). */
#define TINY_HOST_IDEAL "tests/platforms/star2.xml tests/workloads/tiny_host.json --synthetic --gpus 1"
#define TINY_HOST TINY_HOST_IDEAL " --jitter 0"

/* A host slower than its GPU sets the step: the host's 22 ms, however fast the GPU (--compute-scale
 * 0.1), and the GPU's 9.5 ms without it (--no-launch). The difference is host stall. */
void test_launch_bound(void)
{
  double t = iteration(TINY_HOST, "--no-item-sync");
  CHECK(near(t, 0.022, 1e-9), "launch-bound step %.12g s, expected the host's 0.022 s", t);
  double fast = iteration(TINY_HOST, "--no-item-sync --compute-scale 0.1");
  CHECK(near(fast, 0.022, 1e-9), "a 10x faster GPU: %.12g s, expected 0.022 s", fast);
  /* A device entry's host_ratio: the same work on a CPU twice as fast, 11 ms, still above the GPU's. */
  double fast_cpu = iteration(
      "tests/platforms/star2.xml tests/workloads/tiny_host_fast_cpu.json --synthetic --gpus 1 --jitter 0",
      "--no-item-sync");
  CHECK(near(fast_cpu, 0.011, 1e-9), "host_ratio 0.5: %.12g s, expected 0.011 s", fast_cpu);
  double gpu = iteration(TINY_HOST, "--no-item-sync --no-launch");
  CHECK(near(gpu, 0.0095, 1e-9), "--no-launch: %.12g s, expected the GPU's 0.0095 s", gpu);
  cJSON* j = sim_json("%s --no-item-sync", TINY_HOST);
  const cJSON* b = j ? cJSON_GetObjectItemCaseSensitive(j, "breakdown") : NULL;
  CHECK(b && near(num(b, "host_stall_s"), 0.0125, 1e-9) && near(num(b, "compute_s"), 0.0095, 1e-9),
        "host stall %.12g s, compute %.12g s: expected 0.0125 and 0.0095", b ? num(b, "host_stall_s") : NAN,
        b ? num(b, "compute_s") : NAN);
  cJSON_Delete(j);
  /* loss.item() every step (the default): the host waits for each step's end, then issues the next
   * one; the GPU's start lags the host by what the first operators take. Forward: the GPU ends 10
   * ms after the host starts (3 + 3 + 3 + 1); backward starts at 9 and ends at 9 + 12 + 2 = 23
   * (its last 2 ms kernel after the last 4 ms issue); the optimizer (3 kernels of 1/6 ms, issued
   * from 21 to 22) runs from 23 to 23.5. */
  double synced = iteration(TINY_HOST, "");
  CHECK(near(synced, 0.0235, 1e-9), "with loss.item(): %.12g s, expected 0.0235 s", synced);
  /* The GPU's waits, booked by what the host did (loading, issuing), add up in the trace too. */
  check_trace("tests/platforms/star2.xml tests/workloads/tiny_host.json --gpus 2 --workers 1 --cache 1 --format json",
              3);
}

/* apex with --message-size 1: one allreduce per parameter tensor, 161 for ResNet-50, counted in
 * the trace; the default message size (10 M elements) makes 3 buckets of its 25.6 M parameters. */
void test_apex_per_tensor(void)
{
  const char* base = "platforms/p3.8xl.xml workloads/resnet50.json --synthetic --warmup 0 --iterations 1";
  cJSON* j = sim_json("%s --ddp apex --message-size 1", base);
  CHECK(j && num(j, "buckets") == 161, "apex, message size 1: %g collectives, expected 161",
        j ? num(j, "buckets") : NAN);
  cJSON_Delete(j);
  char path[64], args[512];
  snprintf(path, sizeof(path), "build-test-apex-%ld.json", (long)getpid());
  snprintf(args, sizeof(args), "%s --ddp apex --message-size 1 --trace %s -o /dev/null", base, path);
  run_result r = runs(SS_SIM_BIN, args);
  cJSON* t = read_json(path);
  int n = 0;
  const cJSON* e;
  const cJSON* events = t ? cJSON_GetObjectItemCaseSensitive(t, "traceEvents") : NULL;
  cJSON_ArrayForEach(e, events)
  {
    const cJSON* name = cJSON_GetObjectItemCaseSensitive(e, "name");
    /* GPU 0's collective stream (process 1, track 2) */
    if (cJSON_IsString(name) && strncmp(name->valuestring, "allreduce bucket ", 17) == 0 && num(e, "pid") == 1 &&
        num(e, "tid") == 2)
      n++;
  }
  int iters = 1 + 0 + 0; /* warm-up 0, 1 measured, synthetic: no cool-down */
  CHECK(r.status == 0 && n == 161 * iters, "%d allreduces of GPU 0 traced, expected 161", n);
  cJSON_Delete(t);
  remove(path);
  run_free(&r);
  j = sim_json("%s --ddp apex", base);
  CHECK(j && num(j, "buckets") == 3, "apex, message size 1e7: %g collectives, expected 3", j ? num(j, "buckets") : NAN);
  cJSON_Delete(j);
}

/* Horovod: a gradient is ready when its layer's backward ends (tiny: at 2, 4 and 6 ms after the
 * backward starts); each cycle fuses what is ready into buffers of at most the threshold. */
void test_horovod_fusion(void)
{
  const char* base = "tests/platforms/star2.xml tests/workloads/tiny.json --synthetic --ddp horovod --jitter 0";
  static const struct {
    const char* extra;
    int buckets;
    const char* why;
  } cases[] = {
      {"--cycle-ms 3", 2, "cycles at 3 ms ({layer2}) and 6 ms ({layer1, layer0})"},
      {"--cycle-ms 3 --fusion-mib 5", 3, "at 6 ms two 3.8 MiB gradients, a 5 MiB buffer each"},
      {"--cycle-ms 10", 1, "all ready by the first cycle (10 ms)"},
      {"--cycle-ms 0", 3, "no cycle: each gradient when ready"},
      {"--cycle-ms 10 --fusion-mib 0", 3, "no fusion"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    double n = sim_num("buckets", "%s %s", base, cases[i].extra);
    CHECK(n == cases[i].buckets, "%s: %g fusions, expected %d (%s)", cases[i].extra, n, cases[i].buckets, cases[i].why);
  }
  /* A fusion starts at its cycle: one cycle of 10 ms after a backward of 6 ms holds the iteration
   * 4 ms longer than no cycle does (its collectives start at 10 ms, not when layer0's ends). */
  double late = iteration(base, "--cycle-ms 10 --no-framework");
  double now = iteration(base, "--cycle-ms 0 --fusion-mib 128 --no-framework");
  double fused_now = iteration(base, "--cycle-ms 6 --no-framework");
  CHECK(near(late - fused_now, 0.004, 1e-6), "a 10 ms cycle adds %.9g s to a 6 ms one, expected 0.004 s",
        late - fused_now);
  CHECK(late > now, "a late fusion (%.9g s) is not slower than none (%.9g s)", late, now);
}

/* --synthetic host copies a pageable batch every iteration: the copy blocks the host (after the
 * GPU's previous step) and shows as prep stall. On star2, 8 samples of 602112 B cross the CPU's
 * 10 GB/s link and the GPU's (5 us each): S/W + 10 us; two GPUs copy at once over the CPU's one
 * link: 2S/W + 10 us. With a memcpy rate (p3.2xl: 6 GB/s per core) the staging sets the pace. */
void test_host_copies(void)
{
  const char* star = "tests/platforms/star2.xml tests/workloads/tiny.json --synthetic host --no-framework --jitter 0";
  double s = 8 * 602112.0, w = 10e9;
  cJSON* one = sim_json("%s --gpus 1", star);
  cJSON* two = sim_json("%s --gpus 2", star);
  double p1 = one ? num(cJSON_GetObjectItemCaseSensitive(one, "breakdown"), "prep_stall_s") : NAN;
  double p2 = two ? num(cJSON_GetObjectItemCaseSensitive(two, "breakdown"), "prep_stall_s") : NAN;
  CHECK(near(p1, s / w + 10e-6, 1e-9), "one GPU copies in %.12g s, expected %.12g s", p1, s / w + 10e-6);
  CHECK(near(p2, 2 * s / w + 10e-6, 1e-9), "two GPUs sharing a link copy in %.12g s, expected %.12g s", p2,
        2 * s / w + 10e-6);
  cJSON_Delete(one);
  cJSON_Delete(two);
  double device = sim_num("iteration_s", "tests/platforms/star2.xml tests/workloads/tiny.json --synthetic --gpus 1 "
                                         "--no-framework --jitter 0");
  CHECK(near(device, 0.0095, 1e-9), "--synthetic (device): %.12g s, no copy", device);
  cJSON* p3 = sim_json("platforms/p3.2xl.xml workloads/resnet50.json --synthetic host --batch 32 --no-launch");
  double staged = p3 ? num(cJSON_GetObjectItemCaseSensitive(p3, "breakdown"), "prep_stall_s") : NAN;
  double expect = 32 * 150528 / 6e9; /* the dataset's decoded sample, one core's memcpy at 6 GB/s */
  CHECK(near(staged, expect, 1e-9), "p3.2xl: staged copy %.12g s, expected %.12g s", staged, expect);
  cJSON_Delete(p3);
  cJSON* pj = sim_json("platforms/p3.2xl.xml workloads/resnet50.json --synthetic host --batch 32 --no-launch "
                       "--no-staging");
  double pinned = pj ? num(cJSON_GetObjectItemCaseSensitive(pj, "breakdown"), "prep_stall_s") : NAN;
  cJSON_Delete(pj);
  CHECK(near(pinned, 2e-6 + 32 * 150528 / 9.6e9, 1e-9), "--no-staging: %.12g s, the DMA alone", pinned);
}

/* Taking a batch from a DataLoader worker costs the training process --handoff-us per batch. On
 * the launch-bound tiny_host (loaders of 2 x 8 x 2 ms per 2 batches keep ahead), without
 * loss.item() the host takes the next batch while its GPU finishes the step: the handoff hides in
 * that lag (1.5 ms here), and beyond it each microsecond adds one to the step: 5 ms and 6 ms differ
 * by 1 ms. */
void test_handoff(void)
{
  const char* base = "tests/platforms/star2.xml tests/workloads/tiny_host.json --gpus 1 --workers 2 --cache 1 "
                     "--no-item-sync --jitter 0";
  double none = iteration(base, "--no-handoff");
  double hidden = iteration(base, "--handoff-us 1000");
  double five = iteration(base, "--handoff-us 5000");
  double six = iteration(base, "--handoff-us 6000");
  CHECK(near(hidden, none, 1e-9), "a 1 ms handoff within the GPU's lag: %.12g s, without %.12g s", hidden, none);
  CHECK(near(six - five, 0.001, 1e-6), "6 ms of handoff against 5 ms: %.12g s more per step, expected 0.001 s",
        six - five);
  CHECK(near(five - none, 0.005 - 0.0015, 1e-6), "5 ms of handoff adds %.12g s, expected 5 ms less the 1.5 ms lag",
        five - none);
}

/* --ideal switches every host-side mechanism off: the launch-bound workload runs at its GPU's
 * speed, and the report has no host stall. */
void test_ideal(void)
{
  double t = iteration(TINY_HOST_IDEAL, "--ideal");
  CHECK(near(t, 0.0095, 1e-9), "--ideal: %.12g s, expected the GPU's 0.0095 s", t);
  cJSON* j = sim_json("%s --ideal", TINY_HOST_IDEAL);
  const cJSON* o = j ? cJSON_GetObjectItemCaseSensitive(j, "options") : NULL;
  CHECK(o && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "launch")) &&
            cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "framework")) &&
            cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "staging")) &&
            cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "handoff")) && num(o, "jitter") == 0,
        "--ideal: the options echo shows every mechanism off");
  cJSON_Delete(j);
}
