/* test_cal: end-to-end tests of stash-calibrate (nccl, astra, compare), each running the binaries
 * as child processes, and its bad-input cases (tests/bad/cal_cases.txt). */
#include "testrun.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/stash-cal-test-XXXXXX";

/* Whether a and b agree within a relative tolerance. */
static int near(double a, double b, double rel)
{
  return fabs(a - b) <= rel * fabs(b);
}

static const char* str(const cJSON* j, const char* key)
{
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(j, key);
  CHECK(cJSON_IsString(v), "key '%s' is missing or not a string", key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

/* Run stash-calibrate; the run must succeed. */
static void cal_ok(const char* fmt, const char* a, const char* b)
{
  run_result r = runf(SS_CAL_BIN, fmt, a, b);
  CHECK(r.status == 0 && !*r.err, "stash-calibrate %s %s exited %d: %s", a, b, r.status, r.err);
  run_free(&r);
}

/* stash-sim's iteration time for args (NAN and a failure if the run fails). */
static double sim_iteration(const char* args)
{
  run_result r = runf(SS_SIM_BIN, "%s --format json", args);
  cJSON* j = r.status == 0 ? cJSON_Parse(r.out) : NULL;
  CHECK(j != NULL, "stash-sim %s exited %d: %s", args, r.status, r.err);
  double t = j ? num(j, "iteration_s") : NAN;
  cJSON_Delete(j);
  run_free(&r);
  return t;
}

/* Time (s) and busbw (B/s) of one allreduce of bytes by "stash-sim bench allreduce PLATFORM". */
static double bench(const char* platform, double bytes, double* busbw_bytes_per_s)
{
  /* stash-calibrate nccl fits the alpha-beta model: the simulator without NCCL's per-call cost. */
  run_result r = runf(SS_SIM_BIN, "bench allreduce %s --min-bytes %.17g --max-bytes %.17g --no-call-cost --format json",
                      platform, bytes, bytes);
  cJSON* j = r.status == 0 ? cJSON_Parse(r.out) : NULL;
  const cJSON* row = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "results"), 0);
  CHECK(row != NULL, "bench allreduce %s: %s%s", platform, r.out, r.err);
  double t = row ? num(row, "time_s") : NAN, bus = row ? num(row, "busbw_gbytes_per_s") : NAN;
  cJSON_Delete(j);
  run_free(&r);
  *busbw_bytes_per_s = bus * 1e9;
  return t;
}

/* The 2 x RTX 2080 Ti table of ../shared/data/nccl_single_node.md: the fit agrees with an
 * independent computation of the same weighted least squares (python3, docs/calibration.md). */
static void test_nccl_2080ti(void)
{
  char out[256];
  snprintf(out, sizeof(out), "%s/p.json", tmpdir);
  cal_ok("nccl tests/calibration/nccl_2080ti_busbw.txt --ranks 2 -o %s%s", out, "");
  cJSON* j = read_json(out);
  if (!j)
    return;
  CHECK(num(j, "ranks") == 2 && num(j, "points") == 13, "ranks %g, points %g", num(j, "ranks"), num(j, "points"));
  CHECK(near(num(j, "alpha_s"), 32.20377512619718e-6, 1e-9), "alpha %.12g s", num(j, "alpha_s"));
  CHECK(near(num(j, "algbw_bytes_per_s"), 20.16405577783004e9, 1e-9), "algbw %.12g B/s", num(j, "algbw_bytes_per_s"));
  CHECK(num(j, "busbw_bytes_per_s") == num(j, "algbw_bytes_per_s"), "2 ranks: busbw %.12g must equal algbw",
        num(j, "busbw_bytes_per_s"));
  CHECK(near(num(j, "residual_rms_rel"), 0.13514948434158952, 1e-9), "rms %.12g", num(j, "residual_rms_rel"));
  CHECK(near(num(j, "residual_max_rel"), 0.2791972453806677, 1e-9), "max %.12g", num(j, "residual_max_rel"));
  /* Each point: the time is the size over the busbw (2 ranks), the error that of the fit. */
  const cJSON* data = cJSON_GetObjectItemCaseSensitive(j, "data");
  const double busbw_GBps[13] = {1.22, 1.98, 2.84, 4.18, 7.28, 11.06, 14.89, 17.46, 19.73, 20.05, 20.51, 21.40, 20.34};
  double sq = 0;
  CHECK(cJSON_GetArraySize(data) == 13, "%d data points", cJSON_GetArraySize(data));
  for (int i = 0; i < 13 && cJSON_GetArraySize(data) == 13; i++) {
    const cJSON* p = cJSON_GetArrayItem(data, i);
    double bytes = 32768.0 * (1 << i), t = num(p, "time_s");
    CHECK(num(p, "bytes") == bytes && near(t, bytes / (busbw_GBps[i] * 1e9), 1e-12), "point %d: %g B in %g s", i,
          num(p, "bytes"), t);
    double e = (num(j, "alpha_s") + bytes / num(j, "algbw_bytes_per_s")) / t - 1;
    CHECK(near(num(p, "rel_error"), e, 1e-9), "point %d: error %g, expected %g", i, num(p, "rel_error"), e);
    sq += e * e;
  }
  CHECK(near(sqrt(sq / 13), num(j, "residual_rms_rel"), 1e-9), "rms of the points %g", sqrt(sq / 13));
  cJSON_Delete(j);
}

/* Synthetic all_reduce_perf logs (tests/calibration/nccl_synthetic_run*.log: 5 us + size / 10 GB/s,
 * 4 ranks, in-place times doubled): both layouts, several files, out-of-place times, the ranks. */
static void test_nccl_table(void)
{
  char out[256];
  snprintf(out, sizeof(out), "%s/t.json", tmpdir);
  const char* inputs[] = {"tests/calibration/nccl_synthetic_run1.log tests/calibration/nccl_synthetic_run2.log",
                          "tests/calibration/nccl_synthetic_run1.log"};
  const int points[] = {25, 18};
  for (int k = 0; k < 2; k++) {
    cal_ok("nccl %s -o %s", inputs[k], out);
    cJSON* j = read_json(out);
    if (!j)
      return;
    CHECK(num(j, "ranks") == 4 && num(j, "points") == points[k], "%s: ranks %g, points %g", inputs[k], num(j, "ranks"),
          num(j, "points"));
    /* times are printed to 0.01 us: 5 us is known to 0.1% */
    CHECK(near(num(j, "alpha_s"), 5e-6, 2e-3), "%s: alpha %.9g s", inputs[k], num(j, "alpha_s"));
    CHECK(near(num(j, "algbw_bytes_per_s"), 10e9, 1e-4), "%s: algbw %.9g B/s", inputs[k], num(j, "algbw_bytes_per_s"));
    CHECK(near(num(j, "busbw_bytes_per_s"), 1.5 * num(j, "algbw_bytes_per_s"), 1e-12), "busbw = algbw x 2(4-1)/4: %.9g",
          num(j, "busbw_bytes_per_s"));
    CHECK(num(j, "residual_rms_rel") < 1e-3, "%s: residual %g", inputs[k], num(j, "residual_rms_rel"));
    CHECK(strcmp(str(j, "ranks_from"), "tests/calibration/nccl_synthetic_run1.log") == 0, "ranks from %s",
          str(j, "ranks_from"));
    cJSON_Delete(j);
  }
  /* No -o: the JSON goes to stdout. */
  run_result r = runf(SS_CAL_BIN, "nccl tests/calibration/nccl_synthetic_run2.log");
  cJSON* j = r.status == 0 ? cJSON_Parse(r.out) : NULL;
  CHECK(j && num(j, "points") == 7, "stdout: %s%s", r.out, r.err);
  cJSON_Delete(j);
  run_free(&r);
}

/* Rescale a platform to the 2080 Ti fit and check the simulator: on 2 GPUs an allreduce of S bytes
 * takes alpha + S / algbw exactly; on p3.8xlarge (4 GPUs, 4 NVLink rings) the fitted busbw and
 * hop latency, 2(n-1)(alpha/2 + S/(n busbw)) at most, within 0.3%. Large sizes: busbw within 0.5% of the fit. */
static void test_nccl_platform(void)
{
  const char* platforms[] = {"tests/calibration/rtx2080ti_x2.xml", "platforms/p3.8xl.xml"};
  const int ngpus[] = {2, 4};
  const int nlinks[] = {1, 6};
  for (int k = 0; k < 2; k++) {
    char out[256], q[256], args[1024];
    snprintf(out, sizeof(out), "%s/p%d.json", tmpdir, k);
    snprintf(q, sizeof(q), "%s/q%d.xml", tmpdir, k);
    snprintf(args, sizeof(args), "--platform %s --out-platform %s", platforms[k], q);
    cal_ok("nccl tests/calibration/nccl_2080ti_busbw.txt --ranks 2 -o %s %s", out, args);
    cJSON* j = read_json(out);
    const cJSON* p = cJSON_GetObjectItemCaseSensitive(j, "platform");
    CHECK(p != NULL, "%s: no platform block", platforms[k]);
    if (!p) {
      cJSON_Delete(j);
      continue;
    }
    double alpha = num(j, "alpha_s"), algbw = num(j, "algbw_bytes_per_s"), busbw = num(j, "busbw_bytes_per_s");
    const cJSON* links = cJSON_GetObjectItemCaseSensitive(p, "links");
    CHECK(num(p, "gpus") == ngpus[k] && cJSON_GetArraySize(links) == nlinks[k] &&
              strcmp(str(p, "link_classes"), "nvlink") == 0,
          "%s: %g GPUs, %d links of %s", platforms[k], num(p, "gpus"), cJSON_GetArraySize(links),
          str(p, "link_classes"));
    CHECK(near(num(p, "busbw_after_bytes_per_s"), busbw, 1e-9) && near(num(p, "hop_latency_after_s"), alpha / 2, 1e-9),
          "%s: after %g B/s, %g s", platforms[k], num(p, "busbw_after_bytes_per_s"), num(p, "hop_latency_after_s"));
    char* xml = read_text(q);
    CHECK(xml && strstr(xml, "stash-calibrate nccl rescaled this nvlink link") &&
              strstr(xml, "tests/calibration/nccl_2080ti_busbw.txt") && strstr(xml, "bandwidth=\"9.6GBps\""),
          "%s: the comments, the log's name and the untouched PCIe links", q);
    free(xml);
    int n = ngpus[k];
    const double sizes[] = {32768, 1048576, 1073741824};
    for (int s = 0; s < 3; s++) {
      double bus = 0, t = bench(q, sizes[s], &bus);
      double expect = 2.0 * (n - 1) * (alpha / 2 + sizes[s] / (n * busbw));
      if (n == 2)
        CHECK(near(expect, alpha + sizes[s] / algbw, 1e-12), "2 GPUs: %g", expect);
      /* On p3.8xlarge the 4 rings' hops are not all alike (the rings share NVLinks unevenly): NCCL's
       * pipelined ring meets each hop in turn, not the slowest at every step, so its time is at most
       * the lock-step form above, and within 0.3% of it (docs/model.md, "Allreduce algorithms"). */
      double tol = n == 2 ? 1e-6 : 3e-3;
      CHECK(near(t, expect, tol) && t <= expect * (1 + 1e-9), "%s, %g B: %.9g s, expected %.9g s", q, sizes[s], t,
            expect);
      if (sizes[s] > 1e9)
        CHECK(near(bus, busbw, 5e-3), "%s: busbw %.6g at 1 GiB, fit %.6g", q, bus, busbw);
    }
    cJSON_Delete(j);
  }
}

/* ASTRA-sim's ResNet-50 example: 54 layers, 25,502,912 weights, times = cycles / clock, and a
 * single V100 at the reference speed runs one iteration in the sum of all cycles. */
static void test_astra_resnet50(void)
{
  const char* src = "tests/calibration/astrasim_Resnet50_DataParallel.txt";
  char out[256], out2[256], args[512];
  snprintf(out, sizeof(out), "%s/w.json", tmpdir);
  snprintf(out2, sizeof(out2), "%s/w2.json", tmpdir);
  cal_ok("astra %s --clock-ghz 1 -o %s", src, out);
  cal_ok("astra %s --clock-ghz 2 --batch 4 --model r50 -o %s", src, out2);
  cJSON* j = read_json(out);
  cJSON* j2 = read_json(out2);
  if (!j || !j2)
    return;
  const cJSON* layers = cJSON_GetObjectItemCaseSensitive(j, "layers");
  const cJSON* layers2 = cJSON_GetObjectItemCaseSensitive(j2, "layers");
  CHECK(cJSON_GetArraySize(layers) == 54 && cJSON_GetArraySize(layers2) == 54, "%d layers", cJSON_GetArraySize(layers));
  double params = 0, fwd = 0, bwd = 0;
  for (int i = 0; i < cJSON_GetArraySize(layers); i++) {
    const cJSON* l = cJSON_GetArrayItem(layers, i);
    const cJSON* l2 = cJSON_GetArrayItem(layers2, i);
    params += num(l, "params");
    fwd += num(l, "fwd_s");
    bwd += num(l, "bwd_s");
    CHECK(l2 && near(num(l2, "fwd_s"), num(l, "fwd_s") / 2, 1e-12) &&
              near(num(l2, "bwd_s"), num(l, "bwd_s") / 2, 1e-12),
          "layer %d: twice the clock, half the time", i);
  }
  CHECK(params == 25502912, "params %.0f", params);
  /* sums of fields 3, 6 + 9 and 12 of the file, at 1 GHz */
  CHECK(near(fwd, 380038e-9, 1e-12) && near(bwd, (377463 + 337813) * 1e-9, 1e-12), "fwd %.9g, bwd %.9g", fwd, bwd);
  CHECK(near(num(j, "optimizer_s"), 33789e-9, 1e-12), "optimizer %.9g", num(j, "optimizer_s"));
  const cJSON* first = cJSON_GetArrayItem(layers, 0);
  const cJSON* last = cJSON_GetArrayItem(layers, 53);
  CHECK(first && strcmp(str(first, "name"), "conv1") == 0 && num(first, "params") == 9408 &&
            near(num(first, "bwd_s"), (12864 + 32291) * 1e-9, 1e-12),
        "conv1");
  CHECK(last && strcmp(str(last, "name"), "fc1000") == 0 && num(last, "params") == 2048000, "fc1000");
  CHECK(strcmp(str(j, "model"), "astrasim_Resnet50_DataParallel") == 0 && strcmp(str(j2, "model"), "r50") == 0 &&
            num(j2, "batch_per_gpu") == 4,
        "model names and batch");
  const cJSON* prov = cJSON_GetObjectItemCaseSensitive(j, "provenance");
  CHECK(strstr(str(prov, "imported"), src) && strstr(str(prov, "imported"), "1 GHz"), "provenance: %s",
        str(prov, "imported"));
  /* p3.2xlarge: one V100 at the default reference speed, batch 1: no scaling, no communication */
  snprintf(args, sizeof(args), "platforms/p3.2xl.xml %s --synthetic --jitter 0", out);
  double t = sim_iteration(args);
  CHECK(near(t, (380038 + 377463 + 337813 + 33789) * 1e-9, 1e-9), "one V100: %.12g s", t);
  snprintf(args, sizeof(args), "platforms/p3.16xl.xml %s", out);
  t = sim_iteration(args);
  CHECK(t > 1129103e-9, "8 V100s with data loading and allreduce: %.9g s", t);
  cJSON_Delete(j);
  cJSON_Delete(j2);
}

/* Parse the CSV of compare -o: line, simulated and error of each row. */
static int compare_rows(const char* path, int* line, double* sim, double* err_pct, int max)
{
  FILE* f = fopen(path, "r");
  CHECK(f != NULL, "cannot open %s", path);
  if (!f)
    return 0;
  char buf[4096];
  int n = 0;
  CHECK(fgets(buf, sizeof(buf), f) && strncmp(buf, "line,args,source,measured_iteration_s,", 38) == 0, "header %s",
        buf);
  while (n < max && fgets(buf, sizeof(buf), f)) {
    /* line,"args","source",measured,simulated,error,ok,: skip the two quoted fields, whose
     * quotes inside are doubled (RFC 4180) */
    char* q = buf;
    for (int field = 0; field < 2; field++) {
      q = strchr(q, '"');
      if (!q)
        break;
      for (q++; *q && !(q[0] == '"' && q[1] != '"'); q += q[0] == '"' ? 2 : 1)
        ;
      if (*q)
        q++;
    }
    if (!q)
      q = buf;
    CHECK(sscanf(buf, "%d", &line[n]) == 1 && sscanf(q, ",%*f,%lf,%lf,ok,", &sim[n], &err_pct[n]) == 2, "row %s", buf);
    n++;
  }
  fclose(f);
  return n;
}

/* The measured single-GPU ResNet-50 times (tests/calibration/measured.csv): the simulated times are
 * what stash-sim says when run alone, the errors are (simulated - measured) / measured and, computed
 * with the simulator beforehand, +0.25%, -22.93%, -19.17%, +3.73%; the summary's median and max. */
static void test_compare(void)
{
  char out[256];
  snprintf(out, sizeof(out), "%s/c.csv", tmpdir);
  run_result r = runf(SS_CAL_BIN, "compare tests/calibration/measured.csv -o %s", out);
  CHECK(r.status == 0 && !*r.err, "exit %d: %s", r.status, r.err);
  /* Rows 1-3 are GPU times (no host time); row 4 a whole iteration, with the host's. */
  const char* args[] = {"platforms/p3.2xl.xml workloads/resnet50.json --synthetic --batch 32 --no-launch --jitter 0",
                        "platforms/p2.xl.xml workloads/resnet50.json --synthetic --batch 16 --no-launch --jitter 0",
                        "platforms/p3.2xl.xml workloads/resnet50.json --synthetic --batch 16 --no-launch --jitter 0",
                        "platforms/p3.2xl.xml workloads/resnet50.json --synthetic --batch 128 --jitter 0"};
  const double measured[] = {0.0987, 0.39881, 0.06609, 0.367161953};
  const double expect_pct[] = {0.245187, -22.927570, -19.166042, 3.729780};
  int line[8];
  double sim[8], err[8];
  int n = compare_rows(out, line, sim, err, 8);
  CHECK(n == 4, "%d rows", n);
  for (int i = 0; i < n && i < 4; i++) {
    double alone = sim_iteration(args[i]);
    CHECK(near(sim[i], alone, 1e-8), "row %d: %.9g s, stash-sim alone %.9g s", i, sim[i], alone);
    CHECK(fabs(err[i] - 100 * (alone - measured[i]) / measured[i]) < 1e-5, "row %d: error %.6f%%", i, err[i]);
    CHECK(fabs(err[i] - expect_pct[i]) < 0.01, "row %d: error %.6f%%, expected %.6f%%", i, err[i], expect_pct[i]);
    CHECK(line[i] == 11 + i, "row %d is line %d", i, line[i]);
  }
  /* |errors| sorted: 0.25, 3.73, 19.17, 22.93: median (3.73 + 19.17) / 2, max 22.93 on line 12 */
  CHECK(strstr(r.out, "# rows 4, failed 0; |error| median 11.45%, max 22.93% (line 12)") != NULL, "summary: %s", r.out);
  CHECK(strstr(r.out, "    12      0.398810      0.307373    -22.93  platforms/p2.xl.xml") != NULL, "table: %s", r.out);
  run_free(&r);
}

/* A row whose run fails is reported with the simulator's error and counted; exit status 1. */
static void test_compare_failure(void)
{
  run_result r = runf(SS_CAL_BIN, "compare tests/calibration/measured_failing.csv");
  CHECK(r.status == 1 && !*r.err, "exit %d: %s", r.status, r.err);
  CHECK(strstr(r.out, "FAILED: tests/calibration/no_such_platform.xml: error: cannot open platform file: No such file "
                      "or directory") != NULL,
        "table: %s", r.out);
  double t = sim_iteration("tests/platforms/star2.xml tests/workloads/tiny.json --synthetic --gpus 1");
  char summary[128];
  snprintf(summary, sizeof(summary), "# rows 2, failed 1; |error| median %.2f%%, max %.2f%% (line 4)",
           fabs(100 * (t - 0.01) / 0.01), fabs(100 * (t - 0.01) / 0.01));
  CHECK(strstr(r.out, summary) != NULL, "expected '%s' in: %s", summary, r.out);
  run_free(&r);
}

/* args are split as a shell splits words: a path with a blank, single and double quotes and
 * backslashes reach stash-sim as one argument each (here three spellings of star2.xml's copies). */
static void test_compare_quoting(void)
{
  char plain[256], quoted[256], csv[256], out[256];
  snprintf(plain, sizeof(plain), "%s/star 2.xml", tmpdir);
  snprintf(quoted, sizeof(quoted), "%s/it's \"2\".xml", tmpdir);
  snprintf(csv, sizeof(csv), "%s/q.csv", tmpdir);
  snprintf(out, sizeof(out), "%s/c.csv", tmpdir);
  char* xml = read_text("tests/platforms/star2.xml");
  FILE* f[2] = {fopen(plain, "w"), fopen(quoted, "w")};
  for (int i = 0; i < 2; i++)
    if (f[i]) {
      fputs(xml ? xml : "", f[i]);
      fclose(f[i]);
    }
  free(xml);
  FILE* c = fopen(csv, "w");
  CHECK(c != NULL, "cannot write %s", csv);
  if (!c)
    return;
  const char* rest = "tests/workloads/tiny.json --synthetic";
  fprintf(c, "args,measured_iteration_s\n");
  fprintf(c, "'%s' %s --gpus 1,0.01\n", plain, rest);                                     /* '...' */
  fprintf(c, "\"%s/star\\ 2.xml %s \"\"--gpus\"\" 1\",0.01\n", tmpdir, rest);             /* \ and "..." */
  fprintf(c, "\"\"\"%s/it's \\\"\"2\\\"\".xml\"\" %s --gpus '1'\",0.01\n", tmpdir, rest); /* \" in "..." */
  fclose(c);
  run_result r = runf(SS_CAL_BIN, "compare %s -o %s", csv, out);
  CHECK(r.status == 0 && !*r.err, "exit %d: %s%s", r.status, r.err, r.out);
  int line[4];
  double sim[4], err[4];
  int n = compare_rows(out, line, sim, err, 4);
  double alone = sim_iteration("tests/platforms/star2.xml tests/workloads/tiny.json --synthetic --gpus 1");
  CHECK(n == 3, "%d rows", n);
  for (int i = 0; i < n && i < 3; i++)
    CHECK(near(sim[i], alone, 1e-8), "row %d: %.9g s, star2.xml alone %.9g s", i + 1, sim[i], alone);
  run_free(&r);
  unlink(plain);
  unlink(quoted);
  unlink(csv);
}

/* Open TMPDIR/name for writing, its path to path (a failed check when it cannot be). */
static FILE* tmp_file(const char* name, char* path, size_t size)
{
  snprintf(path, size, "%s/%s", tmpdir, name);
  FILE* f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s", path);
  return f;
}

/* No fixed buffer cuts a row's arguments: 6000 bytes of a repeated option before the workload,
 * the last word, still run as star2.xml's row alone. */
static void test_compare_long_args(void)
{
  char csv[256], out[256];
  FILE* c = tmp_file("long.csv", csv, sizeof(csv));
  if (!c)
    return;
  snprintf(out, sizeof(out), "%s/c.csv", tmpdir);
  fprintf(c, "args,measured_iteration_s\ntests/platforms/star2.xml --synthetic");
  for (int i = 0; i < 600; i++)
    fprintf(c, " --gpus 1");
  fprintf(c, " tests/workloads/tiny.json,0.01\n");
  fclose(c);
  run_result r = runf(SS_CAL_BIN, "compare %s -o %s", csv, out);
  CHECK(r.status == 0 && !*r.err, "exit %d: %s%s", r.status, r.err, r.out);
  double alone = sim_iteration("tests/platforms/star2.xml tests/workloads/tiny.json --synthetic --gpus 1");
  char want[128];
  snprintf(want, sizeof(want), " tests/workloads/tiny.json\",\"\",0.01,%.9g,", alone);
  char* text = read_text(out);
  CHECK(text && strstr(text, want) != NULL, "expected '%s' in the 6000-byte row of %s", want, out);
  free(text);
  run_free(&r);
  unlink(csv);
}

/* --timeout: a simulator that runs too long is stopped and its row fails with one line; the
 * others are still reported (here a stand-in binary that sleeps). */
static void test_compare_timeout(void)
{
  char bin[256], csv[256];
  FILE* b = tmp_file("slow-sim", bin, sizeof(bin));
  FILE* c = tmp_file("slow.csv", csv, sizeof(csv));
  if (b) {
    fputs("#!/bin/sh\nexec sleep 60\n", b);
    fclose(b);
    chmod(bin, 0755);
  }
  if (c) {
    fputs("args,measured_iteration_s\ntests/platforms/star2.xml tests/workloads/tiny.json,0.01\n", c);
    fclose(c);
  }
  run_result r = runf(SS_CAL_BIN, "compare %s --bin %s --timeout 0.2", csv, bin);
  CHECK(r.status == 1 && !*r.err, "exit %d: %s", r.status, r.err);
  CHECK(strstr(r.out, "FAILED: the simulation ran longer than --timeout 0.2 s and was stopped\n") != NULL, "table: %s",
        r.out);
  CHECK(strstr(r.out, "# rows 1, failed 1; no row ran") != NULL, "table: %s", r.out);
  run_free(&r);
  unlink(bin);
  unlink(csv);
}

/* MEASURED.csv has a size cap: a 17 MiB file (sparse) is refused before it is read. */
static void test_compare_size_cap(void)
{
  char csv[256];
  FILE* c = tmp_file("big.csv", csv, sizeof(csv));
  CHECK(c != NULL && ftruncate(fileno(c), 17 << 20) == 0, "cannot make %s", csv);
  if (c)
    fclose(c);
  run_result r = runf(SS_CAL_BIN, "compare %s", csv);
  char want[512];
  snprintf(want, sizeof(want),
           "%s: error: 17825792 bytes: larger than compare reads (16 MiB; a row per measured configuration)\n", csv);
  CHECK(r.status == 1 && strcmp(r.err, want) == 0 && !*r.out, "exit %d: %s", r.status, r.err);
  run_free(&r);
  unlink(csv);
}

static void test_help(void)
{
  const char* cmds[] = {"nccl", "astra", "compare"};
  run_result r = runf(SS_CAL_BIN, "--help");
  CHECK(r.status == 0 && strstr(r.out, "usage: stash-calibrate") && !*r.err, "--help");
  for (int i = 0; i < 3; i++)
    CHECK(strstr(r.out, cmds[i]) != NULL, "--help lists %s", cmds[i]);
  run_free(&r);
  for (int i = 0; i < 3; i++) {
    r = runf(SS_CAL_BIN, "%s --help", cmds[i]);
    char want[64];
    snprintf(want, sizeof(want), "usage: stash-calibrate %s ", cmds[i]);
    CHECK(r.status == 0 && strncmp(r.out, want, strlen(want)) == 0 && !*r.err, "%s --help: %s", cmds[i], r.out);
    run_free(&r);
  }
  r = runf(SS_CAL_BIN, "%s", "");
  CHECK(r.status == 2 && strcmp(r.err, "stash-calibrate: error: expected a command (see --help)\n") == 0, "no command");
  run_free(&r);
}

/* Import a trace into TMPDIR/t.json (its path to out, size bytes) and return the workload (NULL and
 * a failure otherwise). */
static cJSON* import(const char* trace, const char* extra, char* out, size_t size)
{
  snprintf(out, size, "%s/t.json", tmpdir);
  char args[1024];
  snprintf(args, sizeof(args), "trace %s -o %s --samples 50000 %s", trace, out, extra);
  run_result r = runf(SS_CAL_BIN, "%s", args);
  CHECK(r.status == 0, "stash-calibrate %s exited %d: %s", args, r.status, r.err);
  run_free(&r);
  return r.status == 0 ? read_json(out) : NULL;
}

/* Import a hand-made trace of two layers, a conv and a linear one (as import does), and check each
 * one's forward and backward times (s) and parameters: layer[i] = {fwd_s, bwd_s, params}. */
static cJSON* import_two_layers(const char* trace, const char* extra, const double layer[2][3], char* out, size_t size)
{
  static const char* const what[2] = {"conv layer", "linear layer"};
  cJSON* w = import(trace, extra, out, size);
  const cJSON* layers = cJSON_GetObjectItemCaseSensitive(w, "layers");
  CHECK(!w || cJSON_GetArraySize(layers) == 2, "%d layers", cJSON_GetArraySize(layers));
  for (int i = 0; w && i < 2; i++) {
    const cJSON* l = cJSON_GetArrayItem(layers, i);
    CHECK(l && fabs(num(l, "fwd_s") - layer[i][0]) < 1e-12 && fabs(num(l, "bwd_s") - layer[i][1]) < 1e-12 &&
              num(l, "params") == layer[i][2],
          "%s", what[i]);
  }
  return w;
}

/* The workload w's dataset: decoded bytes and DataLoader CPU time (s) per sample. */
static void check_dataset(const cJSON* w, double decoded_bytes, double prep_s, const char* what)
{
  const cJSON* ds = cJSON_GetObjectItemCaseSensitive(w, "dataset");
  CHECK(ds && num(ds, "decoded_bytes_per_sample") == decoded_bytes &&
            fabs(num(ds, "prep_cpu_s_per_sample") - prep_s) < 1e-12,
        "%s", what);
}

static void sums(const cJSON* w, double* fwd, double* bwd, double* params, int* n)
{
  *fwd = *bwd = *params = 0;
  const cJSON* layers = cJSON_GetObjectItemCaseSensitive(w, "layers");
  *n = cJSON_GetArraySize(layers);
  const cJSON* l;
  cJSON_ArrayForEach(l, layers)
  {
    *fwd += num(l, "fwd_s");
    *bwd += num(l, "bwd_s");
    *params += num(l, "params");
  }
}

/* Sum over w's layers of the number key (host_fwd_s, ...), and the number of their tensors. */
static double layer_sum(const cJSON* w, const char* key, int* ntensors)
{
  double sum = 0;
  *ntensors = 0;
  const cJSON* l;
  cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(w, "layers"))
  {
    sum += num(l, key);
    *ntensors += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(l, "tensors"));
  }
  return sum;
}

/* Whether layer i of w lists the tensors want[0..n). */
static int has_tensors(const cJSON* w, int i, const double* want, int n)
{
  const cJSON* t = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(w, "layers"), i), "tensors");
  int ok = cJSON_GetArraySize(t) == n;
  for (int k = 0; ok && k < n; k++)
    ok = cJSON_IsNumber(cJSON_GetArrayItem(t, k)) && cJSON_GetArrayItem(t, k)->valuedouble == want[k];
  return ok;
}

/* The ResNet-50 trace of shared/data (V100, batch 32, DataLoader in the training process): its
 * step breakdown says forward 33.0 ms, backward 64.4 ms; torchvision says 25,557,032 parameters;
 * its steps took 164-181 ms. */
static void test_trace_resnet50(void)
{
  char out[512];
  /* The rules as recorded: the profiler's cost left in (test_trace_profiler_cost takes it out). */
  cJSON* w = import("tests/calibration/resnet50_v100_bs32_workers0.pt.trace.json.gz",
                    "--model resnet50 --no-profiler-correction", out, sizeof(out));
  if (!w)
    return;
  double fwd, bwd, params;
  int n;
  sums(w, &fwd, &bwd, &params, &n);
  CHECK(n == 54, "%d layers, ResNet-50 has 53 convolutions and a linear layer", n);
  CHECK(fabs(fwd - 0.0330) <= 0.03 * 0.0330, "forward %.4f ms, the trace's breakdown 33.0 ms", fwd * 1e3);
  CHECK(fabs(bwd - 0.0644) <= 0.03 * 0.0644, "backward %.4f ms, the trace's breakdown 64.4 ms", bwd * 1e3);
  CHECK(fabs(params - 25557032) <= 0.005 * 25557032, "%.0f parameters, torchvision 25,557,032", params);
  CHECK(num(w, "batch_per_gpu") == 32, "batch %g", num(w, "batch_per_gpu"));
  const cJSON* ds = cJSON_GetObjectItemCaseSensitive(w, "dataset");
  CHECK(ds && num(ds, "decoded_bytes_per_sample") == 602112, "decoded bytes %g (19,267,584 / 32)",
        ds ? num(ds, "decoded_bytes_per_sample") : NAN);
  CHECK(ds && num(ds, "prep_cpu_s_per_sample") > 0.0019 && num(ds, "prep_cpu_s_per_sample") < 0.0023,
        "DataLoader %.4g s per sample, the trace's 63-73 ms per 32", ds ? num(ds, "prep_cpu_s_per_sample") : NAN);
  /* Host times: what scripts/csv2workload.py, the same rules written in Python, measures in this
   * trace (workloads/resnet50.json); torchvision's 161 parameter tensors. */
  int nt = 0;
  double host_fwd = layer_sum(w, "host_fwd_s", &nt), host_bwd = layer_sum(w, "host_bwd_s", &nt);
  CHECK(near(host_fwd, 0.041482, 1e-9) && near(host_bwd, 0.034444, 1e-9) &&
            near(num(w, "host_optimizer_s"), 0.024451, 1e-9),
        "host %.6f / %.6f / %.6f s, csv2workload.py 0.041482 / 0.034444 / 0.024451", host_fwd, host_bwd,
        num(w, "host_optimizer_s"));
  static const double conv1[] = {9408, 64, 64}, fc[] = {2048000, 1000};
  CHECK(nt == 161 && has_tensors(w, 0, conv1, 3) && has_tensors(w, 53, fc, 2), "%d tensors, torchvision 161", nt);
  cJSON_Delete(w);
  /* The simulated step of the same job (DataLoader in the training process, one V100): within
   * 10% of the steps' median, 176.3 ms. */
  char args[1024];
  snprintf(args, sizeof(args), "platforms/p3.2xl.xml %s --workers 0 --cache 1", out);
  double it = sim_iteration(args);
  CHECK(fabs(it - 0.1763) <= 0.10 * 0.1763, "simulated step %.4g s, measured median 176.3 ms (164-181)", it);
}

/* A hand-made trace (tests/calibration/synthetic.json, two steps): a conv with a batch norm after
 * it, a linear layer (its addmm inside) and the loss; backward on another thread. */
static void test_trace_synthetic(void)
{
  char out[512];
  /* conv: 7 us + the norm's 2; backward 11 + the norm's 3 + AccumulateGrad's 2; 2x3x3x3 + 2x2.
   * linear: addmm 5 + loss 1; backward: loss 1 + addmm 6 + AccumulateGrad 1; 4x18 + 4. */
  static const double layers[2][3] = {{9e-6, 16e-6, 58}, {6e-6, 8e-6, 76}};
  cJSON* w = import_two_layers("tests/calibration/synthetic.json", "--no-profiler-correction", layers, out,
                               sizeof(out));
  if (!w)
    return;
  CHECK(fabs(num(w, "optimizer_s") - 4e-6) < 1e-12 && num(w, "batch_per_gpu") == 4, "optimizer and batch");
  check_dataset(w, 768, 20e-6, "dataset: 3072 B copied and 80 us of DataLoader for 4 samples");
  cJSON_Delete(w);
  /* The same trace twice gives the same file. */
  char* first = read_text(out);
  cJSON_Delete(import("tests/calibration/synthetic.json", "--no-profiler-correction", out, sizeof(out)));
  char* again = read_text(out);
  CHECK(first && again && strcmp(first, again) == 0, "two imports differ");
  free(first);
  free(again);
}

/* A hand-made trace of host times (tests/calibration/host.json, three steps that differ in the ReLU's
 * duration d = 10, 12, 30 us): each layer's host time is its operators' spans, the gaps between two
 * top-level operators, none across the DataLoader or optimizer calls, nothing after the backward
 * pass has begun; the optimizer's, the spans of zero_grad and step; tensors from the shapes. */
static void test_trace_host(void)
{
  char out[512];
  cJSON* w = import("tests/calibration/host.json", "--no-profiler-correction", out, sizeof(out));
  if (!w)
    return;
  const cJSON* layers = cJSON_GetObjectItemCaseSensitive(w, "layers");
  const cJSON* conv = cJSON_GetArrayItem(layers, 0);
  const cJSON* lin = cJSON_GetArrayItem(layers, 1);
  CHECK(cJSON_GetArraySize(layers) == 2 && conv && lin, "%d layers", cJSON_GetArraySize(layers));
  if (conv && lin) {
    /* conv2d 30 (its launch inside) + gap 5 + batch_norm 15 + gap 5 + ReLU d: median 55 + 12. */
    CHECK(fabs(num(conv, "host_fwd_s") - 67e-6) < 1e-12, "conv forward %g s", num(conv, "host_fwd_s"));
    /* gap 35 - d + linear 20 + gap 10 + loss 10 + ones_like 5 (after zero_grad: no gap; aten::zeros
     * once the backward has begun: not counted): median 80 - 12. */
    CHECK(fabs(num(lin, "host_fwd_s") - 68e-6) < 1e-12, "linear forward %g s", num(lin, "host_fwd_s"));
    /* ReLU's node 5 + 6, the gradient sum 2 + 4, the norm's 3 + 10, the conv's 5 + 20, four
     * AccumulateGrads 2 + 3, 1 + 3, 1 + 2, 1 + 2. */
    CHECK(fabs(num(conv, "host_bwd_s") - 70e-6) < 1e-12, "conv backward %g s", num(conv, "host_bwd_s"));
    /* The loss's node 10 (the first on its thread), addmm's 5 + 20, two AccumulateGrads 2 + 3 each. */
    CHECK(fabs(num(lin, "host_bwd_s") - 45e-6) < 1e-12, "linear backward %g s", num(lin, "host_bwd_s"));
    CHECK(fabs(num(conv, "fwd_s") - 7e-6) < 1e-12 && fabs(num(w, "optimizer_s") - 4e-6) < 1e-12, "device times");
  }
  CHECK(fabs(num(w, "host_optimizer_s") - 70e-6) < 1e-12, "zero_grad 20 + step 50 us: %g s",
        num(w, "host_optimizer_s"));
  /* conv weight 2x3x3x3 and bias 2, the norm's weight and bias; linear weight 4x18 and bias 4. */
  static const double conv_t[] = {54, 2, 2, 2}, lin_t[] = {72, 4};
  CHECK(has_tensors(w, 0, conv_t, 4) && has_tensors(w, 1, lin_t, 2), "tensors");
  cJSON_Delete(w);
}

/* A hand-made CPU trace (tests/calibration/cpu_ddp.json, three steps, no GPU kernels): the forward
 * inside DistributedDataParallel.forward, backward on the same thread inside evaluate_function
 * wrappers. Each operator's own time (its time less its children's) goes to its layer. */
static void test_trace_cpu(void)
{
  char out[512];
  /* conv: conv2d's own 10 us + convolution's 50 + relu's 15; backward: the wrapper's 10 + the node's 90.
   * linear: its own 10 + addmm 30 + loss 10 + ones_like 5; backward: loss 10 + addmm 60 + AccumulateGrad 10. */
  static const double layers[2][3] = {{75e-6, 100e-6, 112}, {55e-6, 80e-6, 7850}};
  cJSON* w = import_two_layers("tests/calibration/cpu_ddp.json",
                               "--gpu-flops 1e11 --gpu-model cpu-core --no-profiler-correction", layers, out,
                               sizeof(out));
  if (!w)
    return;
  CHECK(fabs(num(w, "optimizer_s") - 70e-6) < 1e-12, "optimizer %g s", num(w, "optimizer_s"));
  const cJSON* ref = cJSON_GetObjectItemCaseSensitive(w, "reference");
  const cJSON* model = cJSON_GetObjectItemCaseSensitive(ref, "gpu_model");
  CHECK(cJSON_IsString(model) && strcmp(model->valuestring, "cpu-core") == 0, "--gpu-model names the device");
  check_dataset(w, 3072, 5e-6, "dataset: 3x16x16 FP32 per sample, 40 us of DataLoader for 8 samples");
  /* A CPU run's operator time is the compute: no host times; the tensors from the shapes. */
  const cJSON* first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(w, "layers"), 0);
  CHECK(!cJSON_GetObjectItemCaseSensitive(w, "host_optimizer_s") && first &&
            !cJSON_GetObjectItemCaseSensitive(first, "host_fwd_s"),
        "a CPU run has no host times");
  static const double conv_t[] = {108, 4}, lin_t[] = {7840, 10};
  CHECK(has_tensors(w, 0, conv_t, 2) && has_tensors(w, 1, lin_t, 2), "CPU run tensors");
  cJSON_Delete(w);
}

/* The profiler's own cost, taken out per recorded event (docs/calibration.md, "The profiler's own
 * cost"). On host.json with 1 us an operator event and 3 us a CUDA runtime call (no stack, no
 * [memory] event there): the conv's forward holds 4 operator events and 1 runtime call (67 -> 60
 * us), the linear's 4 (68 -> 64), the conv's backward 9 (70 -> 61), the linear's 4 (45 -> 41), the
 * optimizer's spans 4 (70 -> 66), the DataLoader's 1 (50 us -> 49 for 4 samples). A cost larger
 * than the operators' times takes them to 0, no lower. On the shared ResNet-50 trace (with_stack,
 * profile_memory) the stack's cost is measured in the trace, 14 us over 7 kinds of operator, and
 * the workload then predicts the run's GPU-bound step (98.7 ms of kernels) within 3%. */
static void test_trace_profiler_cost(void)
{
  char out[512];
  cJSON* w = import("tests/calibration/host.json",
                    "--profiler-op-us 1 --profiler-runtime-us 3 --profiler-stack-us 4 --profiler-memory-us 5", out,
                    sizeof(out));
  if (!w)
    return;
  const cJSON* layers = cJSON_GetObjectItemCaseSensitive(w, "layers");
  const cJSON* conv = cJSON_GetArrayItem(layers, 0);
  const cJSON* lin = cJSON_GetArrayItem(layers, 1);
  CHECK(conv && lin && near(num(conv, "host_fwd_s"), 60e-6, 1e-12) && near(num(lin, "host_fwd_s"), 64e-6, 1e-12) &&
            near(num(conv, "host_bwd_s"), 61e-6, 1e-12) && near(num(lin, "host_bwd_s"), 41e-6, 1e-12),
        "host %g %g %g %g s", num(conv, "host_fwd_s"), num(lin, "host_fwd_s"), num(conv, "host_bwd_s"),
        num(lin, "host_bwd_s"));
  CHECK(near(num(w, "host_optimizer_s"), 66e-6, 1e-12), "optimizer host %g s", num(w, "host_optimizer_s"));
  check_dataset(w, 768, 49e-6 / 4, "the DataLoader's span less its operator's 1 us");
  const cJSON* pv = cJSON_GetObjectItemCaseSensitive(w, "provenance");
  const cJSON* pc = cJSON_GetObjectItemCaseSensitive(pv, "profiler_cost");
  CHECK(cJSON_IsString(pc) && strstr(pc->valuestring, "GIVEN (--profiler-runtime-us)") &&
            strstr(pc->valuestring, "1 CUDA runtime calls x 3 us"),
        "provenance: %s", cJSON_IsString(pc) ? pc->valuestring : "(none)");
  cJSON_Delete(w);
  w = import("tests/calibration/host.json", "--profiler-op-us 1000", out, sizeof(out));
  conv = w ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(w, "layers"), 0) : NULL;
  CHECK(conv && num(conv, "host_fwd_s") == 0 && num(conv, "host_bwd_s") == 0 && num(w, "host_optimizer_s") == 0,
        "a cost beyond the times: 0, no lower");
  cJSON_Delete(w);
  /* The shared trace: the stack's cost from the trace itself, and the step it predicts. */
  w = import("tests/calibration/resnet50_v100_bs32_workers0.pt.trace.json.gz", "--model resnet50", out, sizeof(out));
  if (!w)
    return;
  pc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(w, "provenance"), "profiler_cost");
  CHECK(cJSON_IsString(pc) && strstr(pc->valuestring, "with a call stack x 14 us more (MEASURED in this trace: the "
                                                      "median over 7 kinds"),
        "provenance: %s", cJSON_IsString(pc) ? pc->valuestring : "(none)");
  cJSON_Delete(w);
  char args[1024];
  snprintf(args, sizeof(args), "platforms/p3.2xl.xml %s --synthetic --batch 32", out);
  double it = sim_iteration(args);
  CHECK(fabs(it - 0.0987) <= 0.03 * 0.0987, "synthetic step %.4g s, the run's GPU-bound step 98.7 ms", it);
  /* As recorded, the profiler's cost makes the host the bottleneck: 10% over. */
  w = import("tests/calibration/resnet50_v100_bs32_workers0.pt.trace.json.gz", "--no-profiler-correction", out,
             sizeof(out));
  cJSON_Delete(w);
  it = sim_iteration(args);
  CHECK(it > 1.08 * 0.0987, "without the correction %.4g s", it);
}

/* The step-to-step variation of the GPU compute per step (stash-sim's --jitter), printed and in the
 * provenance: tests/calibration/variation.json is host.json with the conv kernel of its three steps
 * at 7, 9 and 14 us, the optimizer's at 4: steps of 11, 13 and 18 us, mean 14, sample standard
 * deviation sqrt((9 + 1 + 16) / 2) = sqrt(13) = 3.606 us, cv 0.2575. The shared ResNet-50 trace
 * (the default --jitter's source, sim/option.h): cv 0.000494 over its 6 steps. */
static void test_trace_variation(void)
{
  static const struct {
    const char* trace;
    const char* want;
  } cases[] = {
      {"tests/calibration/variation.json",
       "cv 0.258 over 3 steps (mean 0.014 ms, sd 0.0036 ms, 0.011 to 0.018 ms); relative standard error of the cv "
       "about 50%: few steps, an estimate\n"},
      {"tests/calibration/resnet50_v100_bs32_workers0.pt.trace.json.gz",
       "cv 0.000494 over 6 steps (mean 98.678 ms, sd 0.0487 ms, 98.591 to 98.729 ms); relative standard error of "
       "the cv about 32%: few steps, an estimate\n"},
  };
  char out[512];
  snprintf(out, sizeof(out), "%s/t.json", tmpdir);
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    run_result r = runf(SS_CAL_BIN, "trace %s -o %s --samples 100", cases[i].trace, out);
    const char* at = strstr(r.out, ": step-to-step variation of the GPU compute per step");
    CHECK(r.status == 0 && at && strstr(at, cases[i].want) && strcmp(strstr(at, cases[i].want), cases[i].want) == 0,
          "%s: %s", cases[i].trace, r.out);
    run_free(&r);
    cJSON* w = read_json(out);
    const cJSON* pv = w ? cJSON_GetObjectItemCaseSensitive(w, "provenance") : NULL;
    const char* text = pv ? str(pv, "compute_variation") : NULL;
    char want[512];
    snprintf(want, sizeof(want), "%.*s", (int)strlen(cases[i].want) - 1, cases[i].want);
    CHECK(text && strstr(text, want), "%s: provenance compute_variation: %s", cases[i].trace, text ? text : "(none)");
    cJSON_Delete(w);
  }
}

/* Every test: TEST(NAME) stands for the function test_NAME above; CMake makes a ctest cal.NAME of each. */
#define CAL_TESTS(TEST)                                                                                                \
  TEST(trace_resnet50)                                                                                                 \
  TEST(trace_synthetic)                                                                                                \
  TEST(trace_host)                                                                                                     \
  TEST(trace_cpu)                                                                                                      \
  TEST(trace_variation)                                                                                                \
  TEST(trace_profiler_cost)                                                                                            \
  TEST(nccl_2080ti)                                                                                                    \
  TEST(nccl_table)                                                                                                     \
  TEST(nccl_platform)                                                                                                  \
  TEST(astra_resnet50)                                                                                                 \
  TEST(compare)                                                                                                        \
  TEST(compare_failure)                                                                                                \
  TEST(compare_quoting)                                                                                                \
  TEST(compare_long_args)                                                                                              \
  TEST(compare_timeout)                                                                                                \
  TEST(compare_size_cap)                                                                                               \
  TEST(help)

#define CAL_ENTRY(name) {#name, test_##name},
static const test_entry tests[] = {CAL_TESTS(CAL_ENTRY)};

/* A directory of its own for each test's files. */
static int setup(void)
{
  if (!mkdtemp(tmpdir)) {
    perror("test_cal: mkdtemp");
    return 1;
  }
  return 0;
}

/* Remove the files a test wrote, then the directory. */
static void cleanup(void)
{
  const char* names[] = {"p.json", "t.json", "p0.json", "p1.json", "q0.xml", "q1.xml", "w.json", "w2.json", "c.csv"};
  char path[512];
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    snprintf(path, sizeof(path), "%s/%s", tmpdir, names[i]);
    unlink(path);
  }
  rmdir(tmpdir);
}

int main(int argc, char** argv)
{
  const test_program program = {
      "test_cal", tests, sizeof(tests) / sizeof(tests[0]), "tests/bad/cal_cases.txt", SS_CAL_BIN, setup, cleanup};
  return test_main(argc, argv, &program);
}
