/* test_cal: end-to-end tests of stash-calibrate (one run per process), and its bad inputs
 * (tests/bad/cal_cases.txt: "name | args | exit | exact first stderr line"). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ARGS 64

static int failures;

#define CHECK(cond, ...)                                                                                               \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                                         \
      fprintf(stderr, __VA_ARGS__);                                                                                    \
      fputc('\n', stderr);                                                                                             \
      failures++;                                                                                                      \
    }                                                                                                                  \
  } while (0)

typedef struct run_result {
  int status;
  char* out;
  char* err;
} run_result;

static char* slurp(FILE* f)
{
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char* s = malloc((size_t)n + 1);
  if (!s)
    abort();
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = '\0';
  return s;
}

/* Run a binary with arguments given as one space-separated string. */
static run_result runs(const char* bin, const char* args)
{
  char buf[4096];
  snprintf(buf, sizeof(buf), "%s", args);
  char* argv[MAX_ARGS];
  int n = 0;
  argv[n++] = (char*)bin;
  for (char* t = strtok(buf, " \t"); t && n < MAX_ARGS - 1; t = strtok(NULL, " \t"))
    argv[n++] = t;
  argv[n] = NULL;
  FILE* out = tmpfile();
  FILE* err = tmpfile();
  if (!out || !err)
    abort();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fileno(out), 1);
    dup2(fileno(err), 2);
    execv(argv[0], argv);
    _exit(127);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  run_result r = {WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), slurp(out), slurp(err)};
  fclose(out);
  fclose(err);
  return r;
}

static void run_free(run_result* r)
{
  free(r->out);
  free(r->err);
}

static cJSON* read_json(const char* path)
{
  FILE* f = fopen(path, "r");
  if (!f)
    return NULL;
  char* s = slurp(f);
  fclose(f);
  cJSON* j = cJSON_Parse(s);
  free(s);
  return j;
}

static double num(const cJSON* j, const char* key)
{
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(j, key);
  CHECK(cJSON_IsNumber(v), "key '%s' is missing or not a number", key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Import a trace and return the workload (NULL and a failure otherwise). */
static cJSON* import(const char* trace, const char* out, const char* extra)
{
  char args[1024];
  snprintf(args, sizeof(args), "trace %s -o %s --samples 50000 %s", trace, out, extra);
  run_result r = runs(SS_CAL_BIN, args);
  CHECK(r.status == 0, "stash-calibrate %s exited %d: %s", args, r.status, r.err);
  run_free(&r);
  return r.status == 0 ? read_json(out) : NULL;
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

/* The ResNet-50 trace of shared/data (V100, batch 32, DataLoader in the training process): its
 * step breakdown says forward 33.0 ms, backward 64.4 ms; torchvision says 25,557,032 parameters;
 * its steps took 164-181 ms. */
static void test_trace_resnet50(void)
{
  const char* out = "build-test-trace-resnet50.json";
  cJSON* w = import("tests/calibration/resnet50_v100_bs32_workers0.pt.trace.json.gz", out, "--model resnet50");
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
  cJSON_Delete(w);
  /* The simulated step of the same job (DataLoader in the training process, one V100): within
   * 10% of the steps' median, 176.3 ms. */
  char args[512];
  snprintf(args, sizeof(args), "platforms/p3.2xl.xml %s --workers 0 --cache 1 --format json", out);
  run_result r = runs(SS_SIM_BIN, args);
  cJSON* rep = r.status == 0 ? cJSON_Parse(r.out) : NULL;
  double it = rep ? num(rep, "iteration_s") : NAN;
  CHECK(fabs(it - 0.1763) <= 0.10 * 0.1763, "simulated step %.4g s, measured median 176.3 ms (164-181): %s", it,
        r.err);
  cJSON_Delete(rep);
  run_free(&r);
  remove(out);
}

/* A hand-made trace (tests/calibration/synthetic.json, two steps): a conv with a batch norm after
 * it, a linear layer (its addmm inside) and the loss; backward on another thread. */
static void test_trace_synthetic(void)
{
  const char* out = "build-test-trace-synthetic.json";
  cJSON* w = import("tests/calibration/synthetic.json", out, "");
  if (!w)
    return;
  const cJSON* layers = cJSON_GetObjectItemCaseSensitive(w, "layers");
  CHECK(cJSON_GetArraySize(layers) == 2, "%d layers", cJSON_GetArraySize(layers));
  const cJSON* conv = cJSON_GetArrayItem(layers, 0);
  const cJSON* fc = cJSON_GetArrayItem(layers, 1);
  /* conv: 7 us + the norm's 2; backward 11 + the norm's 3 + AccumulateGrad's 2; 2x3x3x3 + 2x2. */
  CHECK(conv && fabs(num(conv, "fwd_s") - 9e-6) < 1e-12 && fabs(num(conv, "bwd_s") - 16e-6) < 1e-12 &&
            num(conv, "params") == 58,
        "conv layer");
  /* linear: addmm 5 + loss 1; backward: loss 1 + addmm 6 + AccumulateGrad 1; 4x18 + 4. */
  CHECK(fc && fabs(num(fc, "fwd_s") - 6e-6) < 1e-12 && fabs(num(fc, "bwd_s") - 8e-6) < 1e-12 &&
            num(fc, "params") == 76,
        "linear layer");
  CHECK(fabs(num(w, "optimizer_s") - 4e-6) < 1e-12 && num(w, "batch_per_gpu") == 4, "optimizer and batch");
  const cJSON* ds = cJSON_GetObjectItemCaseSensitive(w, "dataset");
  CHECK(ds && num(ds, "decoded_bytes_per_sample") == 768 && fabs(num(ds, "prep_cpu_s_per_sample") - 20e-6) < 1e-12,
        "dataset: 3072 B copied and 80 us of DataLoader for 4 samples");
  cJSON_Delete(w);
  /* The same trace twice gives the same file. */
  run_result a = runs("/bin/cat", out);
  cJSON* again = import("tests/calibration/synthetic.json", out, "");
  run_result b = runs("/bin/cat", out);
  CHECK(strcmp(a.out, b.out) == 0, "two imports differ");
  cJSON_Delete(again);
  run_free(&a);
  run_free(&b);
  remove(out);
}

/* A hand-made CPU trace (tests/calibration/cpu_ddp.json, three steps, no GPU kernels): the forward
 * inside DistributedDataParallel.forward, backward on the same thread inside evaluate_function
 * wrappers. Each operator's own time (its time less its children's) goes to its layer. */
static void test_trace_cpu(void)
{
  const char* out = "build-test-trace-cpu.json";
  cJSON* w = import("tests/calibration/cpu_ddp.json", out, "--gpu-flops 1e11 --gpu-model cpu-core");
  if (!w)
    return;
  const cJSON* layers = cJSON_GetObjectItemCaseSensitive(w, "layers");
  const cJSON* conv = cJSON_GetArrayItem(layers, 0);
  const cJSON* fc = cJSON_GetArrayItem(layers, 1);
  CHECK(cJSON_GetArraySize(layers) == 2, "%d layers", cJSON_GetArraySize(layers));
  /* conv: conv2d's own 10 us + convolution's 50 + relu's 15; backward: the wrapper's 10 + the node's 90. */
  CHECK(conv && fabs(num(conv, "fwd_s") - 75e-6) < 1e-12 && fabs(num(conv, "bwd_s") - 100e-6) < 1e-12 &&
            num(conv, "params") == 112,
        "conv layer");
  /* linear: its own 10 + addmm 30 + loss 10 + ones_like 5; backward: loss 10 + addmm 60 + AccumulateGrad 10. */
  CHECK(fc && fabs(num(fc, "fwd_s") - 55e-6) < 1e-12 && fabs(num(fc, "bwd_s") - 80e-6) < 1e-12 &&
            num(fc, "params") == 7850,
        "linear layer");
  CHECK(fabs(num(w, "optimizer_s") - 70e-6) < 1e-12, "optimizer %g s", num(w, "optimizer_s"));
  const cJSON* ref = cJSON_GetObjectItemCaseSensitive(w, "reference");
  const cJSON* model = cJSON_GetObjectItemCaseSensitive(ref, "gpu_model");
  CHECK(cJSON_IsString(model) && strcmp(model->valuestring, "cpu-core") == 0, "--gpu-model names the device");
  const cJSON* ds = cJSON_GetObjectItemCaseSensitive(w, "dataset");
  CHECK(ds && num(ds, "decoded_bytes_per_sample") == 3072 && fabs(num(ds, "prep_cpu_s_per_sample") - 5e-6) < 1e-12,
        "dataset: 3x16x16 FP32 per sample, 40 us of DataLoader for 8 samples");
  cJSON_Delete(w);
  remove(out);
}

/* One bad-input case of tests/bad/cal_cases.txt. */
static void test_bad(const char* name)
{
  FILE* f = fopen("tests/bad/cal_cases.txt", "r");
  CHECK(f, "cannot open tests/bad/cal_cases.txt");
  if (!f)
    return;
  char line[4096];
  int found = 0;
  while (fgets(line, sizeof(line), f)) {
    char* fields[4];
    char* p = line;
    int k = 0;
    for (; k < 4; k++) {
      fields[k] = p;
      char* bar = k < 3 ? strstr(p, " | ") : NULL;
      if (k < 3 && !bar)
        break;
      if (bar) {
        *bar = '\0';
        p = bar + 3;
      }
    }
    if (k < 4 || strcmp(fields[0], name) != 0)
      continue;
    found = 1;
    fields[3][strcspn(fields[3], "\n")] = '\0';
    run_result r = runs(SS_CAL_BIN, fields[1]);
    char first[4096];
    snprintf(first, sizeof(first), "%s", r.err);
    first[strcspn(first, "\n")] = '\0';
    CHECK(r.status == atoi(fields[2]), "%s: exit %d, expected %s (stderr: %s)", name, r.status, fields[2], r.err);
    CHECK(strcmp(first, fields[3]) == 0, "%s: first stderr line\n  got:      %s\n  expected: %s", name, first,
          fields[3]);
    run_free(&r);
  }
  fclose(f);
  CHECK(found, "no case '%s'", name);
}

static const struct {
  const char* name;
  void (*fn)(void);
} tests[] = {{"trace_resnet50", test_trace_resnet50}, {"trace_synthetic", test_trace_synthetic},
             {"trace_cpu", test_trace_cpu}};

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
      fprintf(stderr, "test_cal: unknown test '%s'\n", argv[1]);
      return 2;
    }
  } else {
    fprintf(stderr, "usage: test_cal TEST | test_cal bad CASE\n");
    return 2;
  }
  printf("%s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}
