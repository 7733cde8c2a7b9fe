/* e2e_straggler: compute jitter and stragglers: the slowest of N GPUs sets each synchronous step
 * (its mean against the distribution's expected maximum), the straggler detail, reruns, --jitter 0
 * and --ideal, parameter servers. */
#include "e2e.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* 8 GPUs of a star, one layer of C = 3 ms (1 forward, 2 backward), no optimizer, a 4 kB gradient,
 * no host side: each iteration every GPU computes f C (f its factor), then the allreduce of T
 * seconds starts when the last GPU arrives: the iteration is max f x C + T, the straggler wait of a
 * GPU (max f - f) C, and everything else as without jitter. */
#define STRAG_BASE "tests/platforms/star8.xml tests/workloads/straggler.json --synthetic --no-launch --no-framework"
#define STRAG_C 0.003
#define STRAG_N 8
#define STRAG_ITERS 2000

static const cJSON* part(const cJSON* j, const char* obj, const char* key, double* v)
{
  const cJSON* o = j ? cJSON_GetObjectItemCaseSensitive(j, obj) : NULL;
  *v = o ? num(o, key) : NAN;
  return o;
}

/* The mean of the slowest of 8 GPUs over 2000 iterations is the log-normal's expected maximum of 8
 * draws (tests/testrun.c: lognormal_max, by integration), within 5 standard errors; the stall it
 * adds is the straggler detail, to rounding. */
void test_straggler_slowest(void)
{
  const double cv = 0.2;
  cJSON* off = sim_json("%s --iterations %d --jitter 0", STRAG_BASE, STRAG_ITERS);
  cJSON* on = sim_json("%s --iterations %d --jitter %g", STRAG_BASE, STRAG_ITERS, cv);
  if (!off || !on) {
    cJSON_Delete(off);
    cJSON_Delete(on);
    return;
  }
  double t0 = num(off, "iteration_s"), t = num(on, "iteration_s"), strag0, strag, stall0, stall, compute;
  part(off, "breakdown_detail", "straggler_s", &strag0);
  part(on, "breakdown_detail", "straggler_s", &strag);
  part(off, "breakdown", "interconnect_stall_s", &stall0);
  part(on, "breakdown", "interconnect_stall_s", &stall);
  part(on, "breakdown", "compute_s", &compute);
  CHECK(strag0 == 0, "no jitter: straggler wait %.17g s", strag0);
  double collective = t0 - STRAG_C, mean, var;
  lognormal_max(STRAG_N, cv, &mean, &var);
  double expect = STRAG_C * mean + collective, se = STRAG_C * sqrt(var / STRAG_ITERS);
  CHECK(fabs(t - expect) <= 5 * se, "iteration %.9g s, expected max f x C + T = %.9g s (E[max of 8] %.6f) +- %.2g", t,
        expect, mean, 5 * se);
  /* The slowest GPU's factor less the mean one, times C: each GPU waits for the slowest. */
  CHECK(fabs(strag - (t - collective - compute)) <= 1e-9 * t, "straggler wait %.12g s, expected %.12g s", strag,
        t - collective - compute);
  CHECK(fabs((stall - stall0) - strag) <= 1e-9 * t, "the stall grew by %.12g s, the straggler wait is %.12g s",
        stall - stall0, strag);
  CHECK(fabs(compute / STRAG_C - 1) <= 5 * cv / sqrt((double)STRAG_N * STRAG_ITERS), "mean factor %.6f, expected 1",
        compute / STRAG_C);
  cJSON_Delete(off);
  cJSON_Delete(on);
}

/* Reruns are byte-identical, another seed differs; each GPU's factors come from its own stream, so
 * the compute (their mean) is the same whatever the order SimGrid runs the actors in (the
 * reference fidelity schedules them differently); one GPU waits for nobody. */
void test_straggler_seed(void)
{
  const char* args = STRAG_BASE " --jitter 0.1 --format json";
  run_result a = runs(SS_SIM_BIN, args), b = runs(SS_SIM_BIN, args);
  run_result c = runs(SS_SIM_BIN, STRAG_BASE " --jitter 0.1 --seed 2 --format json");
  CHECK(a.status == 0 && b.status == 0 && c.status == 0, "exit %d %d %d", a.status, b.status, c.status);
  CHECK(strcmp(a.out, b.out) == 0, "two runs with the same seed differ");
  CHECK(strcmp(a.out, c.out) != 0, "--seed 2 gives the same run as --seed 1");
  run_free(&a);
  run_free(&b);
  run_free(&c);
  cJSON* f = sim_json("%s --jitter 0.1", STRAG_BASE);
  cJSON* r = sim_json("%s --jitter 0.1 --fidelity reference", STRAG_BASE);
  double cf, cr;
  part(f, "breakdown", "compute_s", &cf);
  part(r, "breakdown", "compute_s", &cr);
  CHECK(fabs(cf - cr) <= 1e-12 * cf && cf != STRAG_C, "compute %.17g s (fast) and %.17g s (reference): the same draws",
        cf, cr);
  cJSON_Delete(f);
  cJSON_Delete(r);
  cJSON* j = sim_json("%s --jitter 0.1 --gpus 1", STRAG_BASE);
  double s1;
  part(j, "breakdown_detail", "straggler_s", &s1);
  CHECK(s1 == 0, "one GPU: straggler wait %.17g s", s1);
  cJSON_Delete(j);
}

/* The breakdown with jitter: its parts still add up to the iteration and the straggler wait is a
 * part of the interconnect and network stalls, over instances and with data loading too; it is 0
 * with --jitter 0 and with --ideal. */
void test_straggler_breakdown(void)
{
  static const char* const keys[] = {"compute_s",       "prep_stall_s", "fetch_stall_s", "interconnect_stall_s",
                                     "network_stall_s", "host_stall_s"};
  static const char* const cases[] = {
      "platforms/p3.16xl.xml workloads/resnet50.json --synthetic --jitter 0.05",
      "platforms/p3.8xl.xml workloads/resnet50.json --instances 2 --synthetic --jitter 0.05 --allreduce hierarchical",
      "platforms/p3.8xl.xml workloads/resnet50.json --workers 2 --cache 1 --jitter 0.05 --no-overlap",
  };
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    cJSON* j = sim_json("%s", cases[c]);
    const cJSON* b = j ? cJSON_GetObjectItemCaseSensitive(j, "breakdown") : NULL;
    double sum = 0, strag;
    for (int k = 0; b && k < 6; k++)
      sum += num(b, keys[k]);
    part(j, "breakdown_detail", "straggler_s", &strag);
    double it = j ? num(j, "iteration_s") : NAN;
    CHECK(fabs(sum - it) <= 1e-9 * it, "%s: parts sum to %.17g s, iteration %.17g s", cases[c], sum, it);
    CHECK(b && strag > 0 && strag <= num(b, "interconnect_stall_s") + num(b, "network_stall_s") + 1e-12,
          "%s: straggler wait %.9g s, not within the collectives' stalls", cases[c], strag);
    cJSON_Delete(j);
  }
  cJSON* off = sim_json("platforms/p3.16xl.xml workloads/resnet50.json --synthetic --jitter 0");
  cJSON* ideal = sim_json("platforms/p3.16xl.xml workloads/resnet50.json --synthetic --ideal");
  double s_off, s_ideal;
  part(off, "breakdown_detail", "straggler_s", &s_off);
  part(ideal, "breakdown_detail", "straggler_s", &s_ideal);
  CHECK(s_off == 0 && s_ideal == 0, "straggler wait %.17g s with --jitter 0, %.17g s with --ideal", s_off, s_ideal);
  cJSON_Delete(off);
  cJSON_Delete(ideal);
}

/* Parameter servers: synchronous ones make every worker wait for the last push (straggler wait,
 * within the network stall of dedicated servers); asynchronous ones wait for nobody: the jitter
 * shows as a spread of the workers' throughputs, none without it (a compute-bound job: kernels x10). */
void test_straggler_ps(void)
{
  const char* base = "tests/platforms/star4.xml tests/workloads/tiny.json --arch ps --synthetic --iterations 20";
  cJSON* sync = sim_json("%s --jitter 0.2", base);
  double strag, net;
  part(sync, "breakdown_detail", "straggler_s", &strag);
  part(sync, "breakdown", "network_stall_s", &net);
  CHECK(strag > 0 && strag <= net, "synchronous servers: straggler wait %.9g s, network stall %.9g s", strag, net);
  cJSON_Delete(sync);
  for (int on = 0; on < 2; on++) {
    cJSON* j = sim_json("%s --async --compute-scale 10 --jitter %s", base, on ? "0.2" : "0");
    double lo = j ? num(j, "worker_throughput_min_samples_per_s") : NAN;
    double hi = j ? num(j, "worker_throughput_max_samples_per_s") : NAN;
    part(j, "breakdown_detail", "straggler_s", &strag);
    CHECK(strag == 0, "asynchronous servers: straggler wait %.17g s", strag);
    CHECK(on ? hi > lo * 1.01 : hi == lo, "--jitter %s: workers at %.9g to %.9g samples/s", on ? "0.2" : "0", lo, hi);
    cJSON_Delete(j);
  }
}
