/* e2e: identical instances simulated by fewer of them (docs/model.md, "Identical instances"). */
#include "e2e.h"

#include "job.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char* const parts[] = {"compute_s",       "prep_stall_s", "fetch_stall_s", "interconnect_stall_s",
                                    "network_stall_s", "host_stall_s"};

/* A report's figure, NAN when it has none. */
static double part(const cJSON* j, const char* key)
{
  const cJSON* b = cJSON_GetObjectItemCaseSensitive(j, "breakdown");
  return b ? num(b, key) : NAN;
}

static double rel(double a, double b)
{
  return fabs(a - b) / fmax(fabs(b), 1e-12);
}

/* args with and without --no-symmetry: the simulated instances each reports, the iteration within
 * tol and every part of the breakdown within part_tol of the iteration (a part may be near 0). */
static void compare(const char* args, int sim, int all, double tol, double part_tol)
{
  cJSON* a = sim_json("%s", args);
  cJSON* b = sim_json("%s --no-symmetry", args);
  CHECK(a && b, "%s: no report", args);
  if (!a || !b) {
    cJSON_Delete(a);
    cJSON_Delete(b);
    return;
  }
  CHECK(num(a, "simulated_instances") == sim && num(b, "simulated_instances") == all,
        "%s: simulated %g and %g instances (--no-symmetry), expected %d and %d", args, num(a, "simulated_instances"),
        num(b, "simulated_instances"), sim, all);
  double it = num(b, "iteration_s");
  CHECK(rel(num(a, "iteration_s"), it) <= tol, "%s: iteration %.12g s, all instances %.12g s (%.3g%%)", args,
        num(a, "iteration_s"), it, 100 * rel(num(a, "iteration_s"), it));
  for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++)
    CHECK(fabs(part(a, parts[k]) - part(b, parts[k])) <= part_tol * it, "%s: %s %.12g s, all instances %.12g s", args,
          parts[k], part(a, parts[k]), part(b, parts[k]));
  cJSON_Delete(a);
  cJSON_Delete(b);
}

/* Without jitter every instance runs the same: 8 of 12 instances give the figures of all 12 to
 * rounding, for every algorithm, on NVLink with one NIC (p3.16xl), PCIe (g4dn.12xl) and four NICs
 * (p4d), with loaders, with an oversubscribed core (ring: the core's capacity per instance kept),
 * and in the collective benchmark. */
void test_symmetry_exact(void)
{
  const char* const algs[] = {"ring", "hierarchical", "tree", "auto"};
  const char* const plats[] = {"platforms/p3.16xl.xml", "platforms/g4dn.12xl.xml", "platforms/p4d.24xl.xml"};
  for (size_t p = 0; p < sizeof(plats) / sizeof(plats[0]); p++)
    for (size_t a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
      char args[512];
      snprintf(args, sizeof(args),
               "%s workloads/resnet50.json --instances 12 --synthetic --jitter 0 --iterations 2 --warmup 1 "
               "--allreduce %s",
               plats[p], algs[a]);
      compare(args, SS_SYMMETRY_INSTANCES, 12, 1e-9, 1e-9);
    }
  compare("platforms/p3.16xl.xml workloads/resnet50.json --instances 10 --jitter 0 --iterations 2 --warmup 1 "
          "--workers 2",
          SS_SYMMETRY_INSTANCES, 10, 1e-9, 1e-9);
  compare("platforms/p3.16xl.xml workloads/resnet50.json --instances 12 --synthetic --jitter 0 --iterations 2 "
          "--warmup 1 --allreduce ring --oversub 3",
          SS_SYMMETRY_INSTANCES, 12, 1e-9, 1e-9);
  const double sizes[] = {65536, 67108864};
  for (size_t a = 0; a < 3; a++)
    for (int k = 0; k < 2; k++) {
      char args[256];
      snprintf(args, sizeof(args), "platforms/p3.16xl.xml --instances 128 --allreduce %s", algs[a]);
      double t = bench_time(args, sizes[k], NULL, 0);
      strcat(args, " --no-symmetry");
      double full = bench_time(args, sizes[k], NULL, 0);
      CHECK(rel(t, full) <= 1e-9, "bench %s, S=%g: %.12g s, all instances %.12g s", args, sizes[k], t, full);
    }
}

/* With compute jitter each rank of the cluster draws its own factors; the simulated ranks stand
 * for their classes, and the slowest of each GPU index for itself (sim/straggler.c): the iteration
 * within 0.05% of all instances' at 100 times the default jitter, the stalls within 3% of the
 * iteration (which wait is booked to the network and which to the interconnect follows each
 * rank's own dates), and the default jitter to 0.01%. */
void test_symmetry_jitter(void)
{
  const char* const algs[] = {"ring", "hierarchical", "tree"};
  for (size_t a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
    char args[512];
    snprintf(args, sizeof(args),
             "platforms/p3.16xl.xml workloads/resnet50.json --instances 16 --synthetic --iterations 6 --warmup 1 "
             "--allreduce %s --jitter 0.05",
             algs[a]);
    compare(args, SS_SYMMETRY_INSTANCES, 16, 5e-4, 0.03);
    snprintf(args, sizeof(args),
             "platforms/p3.16xl.xml workloads/resnet50.json --instances 16 --synthetic --iterations 4 --warmup 1 "
             "--allreduce %s",
             algs[a]);
    compare(args, SS_SYMMETRY_INSTANCES, 16, 1e-4, 1e-4);
  }
}

/* Where instances are not interchangeable, or a run asks for every one, all are simulated: the
 * reference fidelity, parameter servers (their hosts serve every instance), start-up reads from
 * shared storage, a trace, a tree over an oversubscribed core, --no-symmetry; and clusters of at
 * most 8 instances. */
void test_symmetry_fallback(void)
{
  const struct {
    const char* extra;
    int sim;
  } cases[] = {
      {"", SS_SYMMETRY_INSTANCES},
      {"--fidelity reference --bucket-mb 100", 9},
      {"--arch ps", 9},
      {"--init-io parallel", 9},
      {"--trace /dev/null", 9},
      {"--oversub 2", 9},
      {"--oversub 2 --allreduce tree", 9},
      {"--oversub 2 --allreduce hierarchical", SS_SYMMETRY_INSTANCES},
      {"--no-symmetry", 9},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    double got = sim_num("simulated_instances",
                         "platforms/p3.2xl.xml tests/workloads/tiny.json --instances 9 "
                         "--synthetic --iterations 1 --warmup 0 %s",
                         cases[i].extra);
    CHECK(got == cases[i].sim, "--instances 9 %s: %g instances simulated, expected %d", cases[i].extra, got,
          cases[i].sim);
  }
  double got = sim_num("simulated_instances",
                       "platforms/p3.2xl.xml tests/workloads/tiny.json --instances 8 --synthetic");
  CHECK(got == 8, "--instances 8: %g instances simulated", got);
  /* 32,000 GPUs: more simulated processes than fit when all are simulated (bad.cli_instances_*),
   * 64 GPUs' worth simulated. */
  cJSON* j = sim_json("tests/platforms/star8.xml workloads/resnet50.json --instances 4000 --synthetic --batch 16 "
                      "--iterations 1 --warmup 0");
  CHECK(j && num(j, "gpus") == 32000 && num(j, "simulated_instances") == SS_SYMMETRY_INSTANCES &&
            num(j, "iteration_s") > 0,
        "star8 x 4000: %g GPUs, %g instances simulated", j ? num(j, "gpus") : NAN,
        j ? num(j, "simulated_instances") : NAN);
  cJSON_Delete(j);
}
