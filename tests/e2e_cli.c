/* e2e_cli: the command line as a whole: determinism, whatif against plain runs, --help and
 * --version. */
#include "e2e.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void test_deterministic(void)
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

/* whatif: its speedup is the ratio of the two plain runs' throughputs, whatever the change. */
void test_whatif(void)
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
    double base = sim_num("throughput_samples_per_s", "%s", cases[c][0]);
    char changed[1024];
    snprintf(changed, sizeof(changed), "%s %s", cases[c][0], cases[c][2]);
    if (c == 2) /* ASGD does not go with allreduce: the change drops it */
      snprintf(changed, sizeof(changed), "platforms/p3.8xl.xml workloads/resnet50.json --instances 2 --synthetic");
    if (c == 3)
      snprintf(changed, sizeof(changed), "platforms/p2.8xl.xml workloads/resnet50.json --synthetic --gpus 4");
    double after = sim_num("throughput_samples_per_s", "%s", changed);
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

void test_help_version(void)
{
  run_result r = runs(SS_SIM_BIN, "--help");
  CHECK(r.status == 0 && strstr(r.out, "usage: stash-sim") && !*r.err, "--help");
  run_free(&r);
  r = runs(SS_SIM_BIN, "--version");
  CHECK(r.status == 0 && strncmp(r.out, "stash-sim ", 10) == 0, "--version");
  run_free(&r);
}
