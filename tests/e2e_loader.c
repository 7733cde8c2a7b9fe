/* e2e_loader: the data pipeline: loader stalls, CNTK's start-up reads, CPU training sharing the
 * cores with the loaders. */
#include "e2e.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The data stalls (s) of the run of args: preparation and fetch (NAN and a failed check when it fails). */
static void data_stalls(const char* args, double* prep, double* fetch)
{
  cJSON* j = sim_json("%s", args);
  const cJSON* b = j ? cJSON_GetObjectItemCaseSensitive(j, "breakdown") : NULL;
  *prep = b ? num(b, "prep_stall_s") : NAN;
  *fetch = b ? num(b, "fetch_stall_s") : NAN;
  cJSON_Delete(j);
}

/* Data stalls appear where the data pipeline is slower than the GPU, and only there. */
void test_loader_stalls(void)
{
  double prep, fetch;
  /* The data pipeline alone (--ideal: no host-side costs; test_host_copies checks those). */
  data_stalls("platforms/p3.2xl.xml workloads/resnet50.json --workers 0 --cache 0 --batch 32 --ideal", &prep, &fetch);
  /* workers 0: 32 samples x (4 ms CPU + 113959 B at 187.5 MB/s) block the training process. */
  double h2d = 2e-6 + 32 * 150528 / 9.6e9; /* p3.2xl: two PCIe hops of 1 us at 9.6 GB/s, uint8 crops */
  CHECK(fabs(prep - (32 * 0.004 + h2d)) <= 1e-6, "prep stall %.9g s", prep);
  CHECK(fabs(fetch - 32 * 113959 / 187.5e6) <= 1e-6, "fetch stall %.9g s", fetch);
  /* Synthetic data: no data stall at all. */
  data_stalls("platforms/p3.16xl.xml workloads/resnet50.json --synthetic", &prep, &fetch);
  CHECK(prep == 0 && fetch == 0, "synthetic run has data stalls");
  /* Enough workers and a warm cache hide loading behind compute (only the copy remains). */
  data_stalls("platforms/p3.2xl.xml workloads/resnet50.json --workers 8 --cache 1 --batch 32 --ideal", &prep, &fetch);
  CHECK(fetch == 0 && fabs(prep - h2d) <= 1e-6, "p3.2xl with 8 workers: stalls beyond the copy");
  /* --async-copy: the loaders copy ahead, and nothing is left on the training process's path... */
  data_stalls("platforms/p3.2xl.xml workloads/resnet50.json --workers 8 --cache 1 --batch 32 --async-copy", &prep,
              &fetch);
  CHECK(fetch == 0 && prep == 0, "async copy: a data stall is left");
  /* The W loader processes of a GPU deliver their batches in bursts of W: by default whole cycles
   * of W are measured and the loaders' last cycle is simulated but not measured, so the steady
   * state does not depend on how long it is measured; 10 iterations (a cycle and a quarter) do not
   * measure it. */
  cJSON* j = sim_json("platforms/p3.16xl.xml workloads/alexnet.json --cache 0 --async-copy --ideal");
  double steady = j ? num(j, "iteration_s") : NAN;
  CHECK(j && num(j, "warmup") == 2 && num(j, "iterations") == 16, "default measurement with 8 loaders");
  cJSON_Delete(j);
  double longer = iteration("platforms/p3.16xl.xml workloads/alexnet.json --cache 0 --async-copy --ideal",
                            "--iterations 40");
  double partial = iteration("platforms/p3.16xl.xml workloads/alexnet.json --cache 0 --async-copy --ideal",
                             "--iterations 10");
  CHECK(fabs(steady - longer) <= 1e-9 * steady && partial < 0.97 * steady,
        "steady state %.9g s over 16 iterations, %.9g s over 40; %.9g s over 10", steady, longer, partial);
  /* ...unless the training process loads itself (workers 0): then it also copies. */
  data_stalls("platforms/p3.2xl.xml workloads/resnet50.json --workers 0 --cache 0 --batch 32 --async-copy --ideal",
              &prep, &fetch);
  CHECK(fabs(prep - (32 * 0.004 + h2d)) <= 1e-6, "async copy, workers 0: prep stall %.9g s", prep);
}

/* CNTK's start-up on one star4 (its volume and every link 10 GB/s): 4 workers read B = 12 MB (the
 * tiny model, no input shard) and get it over the CPU's 10 us path. Sequential: 4 x (B/disk +
 * B/link + latency); parallel: the 4 reads share the volume, then the 4 copies the CPU's link. */
void test_init_io(void)
{
  const char* base = "tests/platforms/star4.xml tests/workloads/tiny.json --synthetic --samples 1e6";
  cJSON* seq = sim_json("%s --init-io sequential --init-shard-mb 0", base);
  cJSON* par = sim_json("%s --init-io parallel --init-shard-mib 0", base);
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
  CHECK(four && single && num(four, "init_s") > 3.9 * num(single, "init_s"),
        "sequential start-up: %.6g s on 4 "
        "instances, %.6g s on one",
        four ? num(four, "init_s") : NAN, single ? num(single, "init_s") : NAN);
  cJSON_Delete(four);
  cJSON_Delete(single);
}

/* CPU training (compute_on="cpu", tests/platforms/star2_cpu.xml: the "GPUs" compute on the cpu
 * host's 2 cores, beside the loaders). The tiny workload: C = 9.5 ms of compute, P = 8 x 2 ms of
 * preparation per batch. */
void test_cpu_compute(void)
{
  /* The cores alone (--ideal: no training-process thread competing for them). */
  const char* cpu = "tests/platforms/star2_cpu.xml tests/workloads/tiny.json --ideal";
  const char* gpu = "tests/platforms/star2.xml tests/workloads/tiny.json --ideal";
  /* As many activities as cores: nothing competes, the same as on GPUs. */
  static const char* const alike[] = {"--gpus 1 --workers 1 --cache 1", "--gpus 2 --synthetic",
                                      "--gpus 2 --workers 0 --cache 1", "--gpus 1 --synthetic"};
  for (int i = 0; i < 4; i++) {
    double tc = iteration(cpu, alike[i]), tg = iteration(gpu, alike[i]);
    CHECK(tc == tg, "%s: %.12g s on the cpu cores, %.12g s on GPUs", alike[i], tc, tg);
  }
  /* More activities than cores: the cores bind. Each iteration needs C + P of one rank's core
   * time, so 1 rank with 3 loaders on 2 cores takes (C + P) / 2 = 12.75 ms, where GPUs take
   * C plus the copy; 2 ranks with a loader each take C + P = 25.5 ms, where GPUs take P = 16 ms.
   * The loaders' head start (prefetch 2) shrinks over a long run: 200 iterations. */
  double c = iteration("tests/platforms/star2_cpu.xml tests/workloads/tiny.json --synthetic --gpus 1 --ideal", "");
  CHECK(fabs(c - 9.5e-3) <= 1e-12, "compute %.12g s", c);
  double p = 8 * 2e-3;
  double one = iteration(cpu, "--gpus 1 --workers 3 --iterations 200 --cache 1");
  double two = iteration(cpu, "--gpus 2 --workers 1 --iterations 200 --cache 1");
  CHECK(fabs(one - (c + p) / 2) <= 0.005 * (c + p) / 2, "1 rank, 3 loaders: %.9g s, expected (C + P) / 2 = %.9g s", one,
        (c + p) / 2);
  CHECK(fabs(two - (c + p)) <= 0.005 * (c + p), "2 ranks, 1 loader each: %.9g s, expected C + P = %.9g s", two, c + p);
  double gone = iteration(gpu, "--gpus 1 --workers 3 --iterations 200 --cache 1");
  double gtwo = iteration(gpu, "--gpus 2 --workers 1 --iterations 200 --cache 1");
  CHECK(gone < 0.8 * one && fabs(gtwo - p) <= 0.005 * p, "on GPUs: %.9g s and %.9g s", gone, gtwo);
  /* The trace of a run whose compute is slowed by the loaders still adds up to the breakdown. */
  check_trace("tests/platforms/star2_cpu.xml tests/workloads/tiny.json --cache 1 --gpus 2 --workers 1 --iterations 4 "
              "--format json",
              3);
}

/* The resource that limits a run (docs/model.md, "What limits a run"), in runs whose bottleneck is
 * known by construction: synthetic data and no host costs leave the GPU 100% busy; one loader
 * worker preparing 32 x 4 ms per batch against 99 ms of compute is busy all the time (but for the
 * loader's last prefetch at the window's end); one GPU's ResNet-50 gradient over p3.2xl's PCIe
 * with no other GPU carries nothing. */
void test_limit(void)
{
  cJSON* j = sim_json("platforms/p3.2xl.xml workloads/resnet50.json --batch 32 --synthetic --ideal");
  const cJSON* l = j ? cJSON_GetObjectItemCaseSensitive(j, "limit") : NULL;
  const cJSON* r = l ? cJSON_GetObjectItemCaseSensitive(l, "resource") : NULL;
  CHECK(cJSON_IsString(r) && strcmp(r->valuestring, "gpu") == 0 && fabs(num(l, "utilisation") - 1) <= 1e-9,
        "synthetic: not limited by a 100%% busy GPU");
  cJSON_Delete(j);
  j = sim_json("platforms/p3.2xl.xml workloads/resnet50.json --batch 32 --workers 1 --cache 1 --ideal");
  l = j ? cJSON_GetObjectItemCaseSensitive(j, "limit") : NULL;
  r = l ? cJSON_GetObjectItemCaseSensitive(l, "resource") : NULL;
  double u = l ? num(l, "utilisation") : NAN;
  CHECK(cJSON_IsString(r) && strcmp(r->valuestring, "cpu") == 0 && u >= 0.9 && u <= 1 + 1e-9,
        "one loader worker: not limited by the loader CPU (%g)", u);
  cJSON_Delete(j);
}
