/* e2e_trace: --trace: the same report with and without it, spans that add up to the breakdown,
 * link counters, gzip. */
#include "e2e.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NCATS 6
static const char* const cats[NCATS] = {"compute",       "prep_stall", "fetch_stall", "interconnect_stall",
                                        "network_stall", "host_stall"};

/* What the trace's spans add up to over the GPUs. */
typedef struct trace_tally {
  double sum[NCATS]; /* per category, over the measured iterations (us) */
  int fwd, allreduce, batches, outside, overlaps;
} trace_tally;

/* The windows of the iteration spans on track tid (at most max); returns how many. */
static int iteration_windows(const cJSON* events, int tid, double* lo, double* hi, int max)
{
  int n = 0;
  const cJSON* e;
  cJSON_ArrayForEach(e, events)
  {
    const cJSON* name = cJSON_GetObjectItemCaseSensitive(e, "name");
    if ((int)num(e, "tid") == tid && cJSON_IsString(name) && strncmp(name->valuestring, "iteration ", 10) == 0 &&
        n < max) {
      lo[n] = num(e, "ts");
      hi[n++] = num(e, "ts") + num(e, "dur");
    }
  }
  return n;
}

/* Add GPU g's spans to t: its allreduces, its batches, and on its training track the forward
 * spans, the spans outside the iterations or overlapping, and the time per category. */
static void tally_gpu(const cJSON* events, int g, int warm, int iters, trace_tally* t)
{
  int tid = 1 + 4 * g;
  double lo[64], hi[64];
  int n = iteration_windows(events, tid, lo, hi, 64);
  double last_end = -1;
  const cJSON* e;
  cJSON_ArrayForEach(e, events)
  {
    const cJSON* ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
    const cJSON* cat = cJSON_GetObjectItemCaseSensitive(e, "cat");
    const cJSON* name = cJSON_GetObjectItemCaseSensitive(e, "name");
    if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "X") != 0 || !cJSON_IsString(cat))
      continue;
    int etid = (int)num(e, "tid");
    if (etid == 2 + 4 * g && strncmp(name->valuestring, "allreduce", 9) == 0)
      t->allreduce++;
    if (etid / 1000 == 100 + g && strncmp(name->valuestring, "batch ", 6) == 0)
      t->batches++;
    if (etid != tid || strcmp(cat->valuestring, "iteration") == 0)
      continue;
    double ts = num(e, "ts"), end = ts + num(e, "dur");
    if (strncmp(name->valuestring, "fwd ", 4) == 0)
      t->fwd++;
    int in = -1;
    for (int i = 0; i < n; i++)
      if (ts >= lo[i] - 1e-3 && end <= hi[i] + 1e-3)
        in = i;
    t->outside += in < 0;
    t->overlaps += ts < last_end - 1e-3; /* spans of a track come out in time order */
    last_end = end;
    for (int c = 0; c < NCATS && in >= warm && in < warm + iters; c++)
      if (strcmp(cat->valuestring, cats[c]) == 0)
        t->sum[c] += end - ts;
  }
  CHECK(n >= warm + iters, "GPU %d: %d iteration spans", g, n);
}

/* The trace's spans against the report rep, with layers forward spans per GPU and iteration. */
static void check_spans(const cJSON* rep, const cJSON* tr, int layers)
{
  const cJSON* bd = cJSON_GetObjectItemCaseSensitive(rep, "breakdown");
  int gpus = (int)num(rep, "gpus"), iters = (int)num(rep, "iterations"), warm = (int)num(rep, "warmup");
  int buckets = (int)num(rep, "buckets");
  trace_tally t = {{0}, 0, 0, 0, 0, 0};
  const cJSON* events = cJSON_GetObjectItemCaseSensitive(tr, "traceEvents");
  for (int g = 0; g < gpus; g++)
    tally_gpu(events, g, warm, iters, &t);
  CHECK(t.outside == 0 && t.overlaps == 0, "%d spans outside their iteration, %d overlapping", t.outside, t.overlaps);
  int niters = warm + iters; /* at least; the cool-down adds more */
  CHECK(t.fwd >= gpus * layers * niters && t.fwd % (gpus * layers) == 0,
        "%d forward spans: %d layers per GPU and iteration", t.fwd, layers);
  CHECK(t.allreduce == t.fwd / layers * buckets, "%d allreduce spans, %d buckets per iteration", t.allreduce, buckets);
  CHECK(t.batches == t.fwd / layers, "%d loaded batches for %d iterations", t.batches, t.fwd / layers);
  for (int c = 0; c < NCATS; c++) {
    char key[64];
    snprintf(key, sizeof(key), "%s_s", cats[c]);
    double part = num(bd, key), traced = t.sum[c] / 1e6 / (gpus * iters);
    CHECK(fabs(traced - part) <= 1e-6 * num(rep, "iteration_s"), "%s: traced %.9g s, reported %.9g s", cats[c], traced,
          part);
  }
}

/* --trace: the run's report is byte for byte the same with and without it; the trace parses, its
 * per-GPU spans of each category over the measured iterations add up to the breakdown, nest in
 * their iterations without overlapping, and count one per layer, bucket and batch. */
/* A trace file of this test process's own (e2e.trace and e2e.cpu_compute run at once under ctest -j). */
static const char* trace_path(const char* suffix)
{
  static char path[64];
  snprintf(path, sizeof(path), "build-test-trace-%ld%s", (long)getpid(), suffix);
  return path;
}

void check_trace(const char* base, int layers)
{
  const char* path = trace_path(".json");
  char args[512];
  snprintf(args, sizeof(args), "%s --trace %s", base, path);
  run_result with = runs(SS_SIM_BIN, args);
  run_result without = runs(SS_SIM_BIN, base);
  CHECK(with.status == 0 && without.status == 0 && strcmp(with.out, without.out) == 0,
        "the report changes with --trace: %s", with.err);
  cJSON* rep = cJSON_Parse(without.out);
  cJSON* tr = read_json(path);
  CHECK(rep && tr, "report or trace does not parse");
  if (rep && tr)
    check_spans(rep, tr, layers);
  cJSON_Delete(rep);
  cJSON_Delete(tr);
  run_free(&with);
  run_free(&without);
  remove(path);
}

void test_trace(void)
{
  check_trace("platforms/p3.8xl.xml workloads/resnet50.json --iterations 2 --warmup 1 --cache 0.5 --workers 2 "
              "--format json",
              54);
  const char* path = trace_path(".json");
  char args[512];
  /* Link counters per class, between 0 and 1, and the report still the same, over two instances. */
  const char* two =
      "platforms/p3.16xl.xml workloads/resnet50.json --instances 2 --synthetic --iterations 2 --format json";
  snprintf(args, sizeof(args), "%s --trace %s", two, path);
  run_result a = runs(SS_SIM_BIN, args);
  run_result b = runs(SS_SIM_BIN, two);
  CHECK(a.status == 0 && b.status == 0 && strcmp(a.out, b.out) == 0, "two instances: the report changes with --trace");
  run_free(&a);
  run_free(&b);
  cJSON* tr = read_json(path);
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
  const char* gzpath = trace_path(".json.gz");
  snprintf(args, sizeof(args), "tests/platforms/star2.xml tests/workloads/tiny.json --synthetic --trace %s", gzpath);
  run_result gz = runs(SS_SIM_BIN, args);
  FILE* f = fopen(gzpath, "rb");
  unsigned char magic[2] = {0, 0};
  CHECK(gz.status == 0 && f && fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b,
        "--trace x.json.gz is not gzip");
  if (f)
    fclose(f);
  char test[128];
  snprintf(test, sizeof(test), "gzip -t %s", gzpath);
  CHECK(system(test) == 0, "the gzipped trace does not decompress");
  run_free(&gz);
  remove(gzpath);
}
