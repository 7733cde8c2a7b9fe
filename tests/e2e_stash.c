/* e2e_stash: --stash's differential runs against the plain runs they stand for, and its
 * single-instance stand-ins. */
#include "e2e.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Whether note i of the stash object s says text. */
static int note_says(const cJSON* s, int i, const char* text)
{
  const cJSON* notes = s ? cJSON_GetObjectItemCaseSensitive(s, "notes") : NULL;
  const cJSON* n = cJSON_GetArrayItem(notes, i);
  return cJSON_IsString(n) && strstr(n->valuestring, text) != NULL;
}

/* Part key of the stash object of "JOB --stash EXTRA"; when note0 is not NULL, the first note must
 * say it. */
static double stash_part(const char* job, const char* extra, const char* key, const char* note0)
{
  cJSON* j = sim_json("%s --stash %s", job, extra);
  const cJSON* s = j ? cJSON_GetObjectItemCaseSensitive(j, "stash") : NULL;
  double v = s ? num(s, key) : NAN;
  CHECK(!note0 || note_says(s, 0, note0), "%s --stash %s: the first note does not say '%s'", job, extra, note0);
  cJSON_Delete(j);
  return v;
}

/* The runs of --stash with the job's own stack, each checked against the plain run it stands for
 * (test_stash_stack checks Stash's stack). */
static void stash_check_runs(const char* job, const char* single)
{
  cJSON* j = sim_json("%s --stash --stash-stack ours", job);
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
  /* The synthetic runs load no data: the job's loader options are left out of them. */
  char synthetic_job[512];
  snprintf(synthetic_job, sizeof(synthetic_job), "%s", job);
  char* w = strstr(synthetic_job, " --workers ");
  if (w) {
    char* rest = strchr(w + strlen(" --workers "), ' ');
    memmove(w, rest ? rest : "", rest ? strlen(rest) + 1 : 1);
  }
  for (int k = 0; k < 4; k++) {
    t[k] = num(s, keys[k]);
    double plain = iteration(k < 2 ? synthetic_job : job, runs_extra[k]);
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
  CHECK(fabs(num(s, "run0_cost_usd_per_epoch") - 1281167 / batch * t[0] * price / 3600) <= 1e-9, "%s: RUN0 cost", job);
  cJSON_Delete(j);
}

void test_stash_differential(void)
{
  const char* loaded = "platforms/p3.16xl.xml workloads/resnet50.json --iterations 3 --warmup 1";
  stash_check_runs(loaded, NULL);
  /* One loader worker per GPU: the loader is the bottleneck, reads and preparation both stall. */
  const char* starved = "platforms/p3.16xl.xml workloads/resnet50.json --iterations 3 --warmup 1 --workers 1";
  stash_check_runs(starved, NULL);
  cJSON* j = sim_json("%s --stash --stash-stack ours", starved);
  const cJSON* s = j ? cJSON_GetObjectItemCaseSensitive(j, "stash") : NULL;
  CHECK(s && num(s, "prep_stall_s") > 0.01 && num(s, "fetch_stall_s") > 0.005, "no data stalls with 1 worker");
  /* notes[0] names the stack */
  CHECK(note_says(s, 1, "prep vs fetch"), "the prep/fetch disagreement is not explained");
  cJSON_Delete(j);
  /* The table shows both views. */
  run_result r = runs(SS_SIM_BIN, "platforms/p3.16xl.xml workloads/resnet50.json --iterations 3 --warmup 1 "
                                  "--workers 1 --stash --stash-stack ours");
  CHECK(r.status == 0 && strstr(r.out, "Stash differential breakdown") && strstr(r.out, "RUN2 timeline") &&
            strstr(r.out, "note: prep vs fetch"),
        "table: %s", r.out);
  run_free(&r);
}

void test_stash_network(void)
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
  cJSON* j = sim_json("%s --stash --stash-stack ours", big);
  const cJSON* s = j ? cJSON_GetObjectItemCaseSensitive(j, "stash") : NULL;
  CHECK(s && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(s, "single_instance_same_gpus")), "same GPUs?");
  CHECK(note_says(s, 1, "has 32 GPUs"), "the stand-in is not said");
  /* 25 Gb/s between instances: the network stall is there and bigger than with 100 Gb/s. */
  double slow = s ? num(s, "network_stall_s") : NAN;
  cJSON_Delete(j);
  double fast = stash_part(big, "--stash-stack ours --nic-gbps 100", "network_stall_s", NULL);
  CHECK(slow > 0.001 && fast < slow, "network stall %.6g s at 25 Gb/s, %.6g s at 100 Gb/s", slow, fast);
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

/* --stash simulates Stash's scripts by default (../shared/data/stash_methodology.md, section 7):
 * each run is the plain job with the options of Stash's CNN script, and the notes say so. The
 * script's apex AMP O1 in NCHW is --precision amp without --channels-last on a V100. */
void test_stash_stack(void)
{
  const char* job = "platforms/p3.8xl.xml workloads/resnet50.json --iterations 3 --warmup 1";
  const char* script = "--cuda-sync --precision amp --ddp apex --message-size 1";
  cJSON* j = sim_json("%s --stash", job);
  const cJSON* s = j ? cJSON_GetObjectItemCaseSensitive(j, "stash") : NULL;
  static const char* const keys[4] = {"run0_s", "run1_s", "run2_s", "run3_s"};
  static const char* const runs_extra[4] = {
      "--gpus 1 --synthetic host --synthetic-sample-bytes 602112", /* RUN0: one GPU, no collective */
      "--synthetic host --synthetic-sample-bytes 602112 --metric-allreduces 3",
      "--cache 0 --async-copy --metric-allreduces 3", "--cache 1 --async-copy --metric-allreduces 3"};
  for (int k = 0; s && k < 4; k++) {
    char extra[512];
    snprintf(extra, sizeof(extra), "%s %s", script, runs_extra[k]);
    double plain = iteration(job, extra);
    CHECK(num(s, keys[k]) == plain, "Stash's stack: %s %.17g, the plain run with %s %.17g", keys[k], num(s, keys[k]),
          extra, plain);
  }
  CHECK(note_says(s, 0, "stack: Stash's CNN script"), "the notes do not name Stash's stack");
  double stash_ic = s ? num(s, "interconnect_stall_s") : NAN;
  cJSON_Delete(j);
  /* Stash's synthetic batch is 3 x 224 x 224 fp32 for every model, also for one whose decoded sample
   * is already fp32 (ResNet-18's 602112 bytes: not 4x that). */
  const char* small = "platforms/p3.8xl.xml workloads/resnet18.json --iterations 3 --warmup 1";
  j = sim_json("%s --stash", small);
  s = j ? cJSON_GetObjectItemCaseSensitive(j, "stash") : NULL;
  double plain0 = iteration(small, "--cuda-sync --precision amp --gpus 1 --synthetic host "
                                   "--synthetic-sample-bytes 602112");
  CHECK(s && num(s, "run0_s") == plain0, "Stash's stack, resnet18: run0_s %.17g, the plain run %.17g",
        s ? num(s, "run0_s") : NAN, plain0);
  cJSON_Delete(j);
  /* A K80 has no FP16 arithmetic faster than FP32: the script's AMP leaves its kernels FP32. (--ideal
   * keeps the model before precisions, AMP as V100 kernels x0.306: tests/ideal's stash cases.) */
  const char* k80 = "platforms/p2.8xl.xml workloads/resnet18.json --iterations 3 --warmup 1";
  const char* run0 = "--cuda-sync --gpus 1 --synthetic host --synthetic-sample-bytes 602112";
  j = sim_json("%s --stash", k80);
  s = j ? cJSON_GetObjectItemCaseSensitive(j, "stash") : NULL;
  double fp32 = iteration(k80, run0);
  CHECK(s && num(s, "run0_s") == fp32, "Stash's stack on a K80: run0_s %.17g, the FP32 run %.17g",
        s ? num(s, "run0_s") : NAN, fp32);
  cJSON_Delete(j);
  /* Per-tensor allreduces, metric allreduces and synchronisations cost more than 5 overlapped buckets. */
  double ours_ic = stash_part(job, "--stash-stack ours", "interconnect_stall_s", "stack: the job's own");
  CHECK(stash_ic > ours_ic, "interconnect stall: Stash's stack %.6g s, ours %.6g s", stash_ic, ours_ic);
}
