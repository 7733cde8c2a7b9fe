/* cal_astra: stash-calibrate astra: import an ASTRA-sim 1.0 text workload (data parallel) as a
 * stash-sim workload JSON. */
#include "cal.h"
#include "names.h"
#include "cal_cli.h"
#include "cal_text.h"
#include "cal_workload.h"
#include "units.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ASTRA_FIELDS 12
#define MAX_LAYER_S 3600.0 /* the workload loader's limit on a layer's time */

/* One layer of the file, converted. */
typedef struct astra_layer {
  char* name; /* points into the file's lines */
  int line;
  double fwd_s, bwd_s, params, update_s;
} astra_layer;

typedef struct astra_args {
  const char* output;
  const char* model;
  const char* precision;
  const char* gpu_model;
  const char* dataset_from;
  double clock_ghz;
  double gpu_flops;
  double grad_bytes;
  long long batch;
} astra_args;

/* Field names, for errors (1-based as in the format's description). */
static const char* const field_names[ASTRA_FIELDS + 1] = {
    NULL,
    "layer name",
    "reserved",
    "forward compute cycles",
    "forward communication type",
    "forward communication bytes",
    "input-gradient compute cycles",
    "input-gradient communication type",
    "input-gradient communication bytes",
    "weight-gradient compute cycles",
    "weight-gradient communication type",
    "weight-gradient communication bytes",
    "update delay cycles",
};

static const char* const comm_types[] = {"NONE", "ALLREDUCE", "ALLGATHER", "ALLTOALL", "REDUCESCATTER", NULL};

static int known_comm(const char* s)
{
  for (const char* const* t = comm_types; *t; t++)
    if (strcmp(s, *t) == 0)
      return 1;
  return 0;
}

/* Field i (1-based) as a non-negative number; whole when whole is set. */
static int count_field(const char* path, int line, char** f, int i, int whole, double* out, ss_err* err)
{
  long long v = 0;
  int bad = whole ? cal_integer(f[i - 1], &v) || v < 0 : cal_number(f[i - 1], out) || *out < 0;
  if (bad)
    return ss_err_set(err, path, line, "field %d (%s): expected a %s, got '%s'", i, field_names[i],
                      whole ? "whole number of bytes" : "non-negative number", f[i - 1]);
  if (whole)
    *out = (double)v;
  return SS_OK;
}

/* Communication of the forward or input-gradient pass (field i): stash-sim's data-parallel model
 * has none. */
static int no_comm(const char* path, int line, char** f, int i, ss_err* err)
{
  double bytes = 0;
  if (!known_comm(f[i - 1]))
    return ss_err_set(err, path, line,
                      "field %d (%s): expected NONE, ALLREDUCE, ALLGATHER, ALLTOALL or "
                      "REDUCESCATTER, got '%s'",
                      i, field_names[i], f[i - 1]);
  if (count_field(path, line, f, i + 1, 1, &bytes, err))
    return SS_EINPUT;
  if (strcmp(f[i - 1], "NONE") != 0 && bytes > 0)
    return ss_err_set(err, path, line,
                      "field %d (%s) is %s of %.0f bytes: a data-parallel import communicates "
                      "weight gradients only",
                      i, field_names[i], f[i - 1], bytes);
  return SS_OK;
}

static int parse_layer(const char* path, int line, char* text, const astra_args* a, astra_layer* l, ss_err* err)
{
  char* f[ASTRA_FIELDS + 1];
  int nf = cal_fields(text, f, ASTRA_FIELDS + 1);
  if (nf != ASTRA_FIELDS)
    return ss_err_set(err, path, line,
                      "%d field%s, expected %d (name, reserved, then forward, input-gradient and "
                      "weight-gradient compute cycles, communication type and bytes, update delay)",
                      nf, nf == 1 ? "" : "s", ASTRA_FIELDS);
  double fwd = 0, ig = 0, wg = 0, upd = 0, bytes = 0, hz = a->clock_ghz * 1e9;
  long long reserved;
  l->name = f[0];
  l->line = line;
  if (cal_integer(f[1], &reserved))
    return ss_err_set(err, path, line, "field 2 (reserved): expected an integer (-1), got '%s'", f[1]);
  if (count_field(path, line, f, 3, 0, &fwd, err) || no_comm(path, line, f, 4, err) ||
      count_field(path, line, f, 6, 0, &ig, err) || no_comm(path, line, f, 7, err) ||
      count_field(path, line, f, 9, 0, &wg, err))
    return SS_EINPUT;
  if (strcmp(f[9], "ALLREDUCE") != 0 && strcmp(f[9], "NONE") != 0)
    return ss_err_set(err, path, line,
                      "field 10 (%s): expected ALLREDUCE or NONE in a data-parallel workload, got "
                      "'%s'",
                      field_names[10], f[9]);
  if (count_field(path, line, f, 11, 1, &bytes, err) || count_field(path, line, f, 12, 0, &upd, err))
    return SS_EINPUT;
  l->params = strcmp(f[9], "NONE") == 0 ? 0 : bytes / a->grad_bytes;
  if (l->params != floor(l->params))
    return ss_err_set(err, path, line,
                      "weight-gradient bytes %.0f are not a whole number of %g-byte gradients (see "
                      "--grad-bytes)",
                      bytes, a->grad_bytes);
  l->fwd_s = fwd / hz;
  l->bwd_s = (ig + wg) / hz;
  l->update_s = upd / hz;
  /* Under a nanosecond (a wrong clock, most likely) stash-sim's reader refuses: said here, on the
   * ASTRA-sim file's line, not later on a JSON path of the workload written (issue 30). */
  const char* tiny = l->fwd_s > 0 && l->fwd_s < SS_BOUND_TIME_LO   ? "forward"
                     : l->bwd_s > 0 && l->bwd_s < SS_BOUND_TIME_LO ? "backward"
                                                                   : NULL;
  if (tiny)
    return ss_err_set(err, path, line,
                      "%.3g s of %s at %g GHz: under stash-sim's 1 ns, the least a layer's time may be (a wrong "
                      "--clock-ghz?)",
                      strcmp(tiny, "forward") == 0 ? l->fwd_s : l->bwd_s, tiny, a->clock_ghz);
  if (l->fwd_s > MAX_LAYER_S || l->bwd_s > MAX_LAYER_S)
    return ss_err_set(err, path, line,
                      "%.6g s of %s at %g GHz: more than stash-sim's %g s per layer (a wrong "
                      "--clock-ghz?)",
                      fmax(l->fwd_s, l->bwd_s), l->fwd_s > l->bwd_s ? "forward" : "backward", a->clock_ghz,
                      MAX_LAYER_S);
  return SS_OK;
}

/* Line 1: the parallelism. ASTRA-sim 1.0 names: DATA, MODEL, HYBRID_* , MICRO. */
static int parallelism(const char* path, char* text, ss_err* err)
{
  char* f[4];
  int nf = cal_fields(text, f, 4);
  if (nf == 0)
    return ss_err_set(err, path, 1, "expected the parallelism (DATA) on line 1, got an empty line");
  if (strcmp(f[0], "DATA") == 0)
    return SS_OK;
  if (strncmp(f[0], "HYBRID", 6) == 0 || strcmp(f[0], "MODEL") == 0 || strcmp(f[0], "MICRO") == 0)
    return ss_err_set(err, path, 1,
                      "parallelism %s is not supported: stash-sim simulates data parallelism (DATA) "
                      "only",
                      f[0]);
  return ss_err_set(err, path, 1, "expected the parallelism (DATA, MODEL or HYBRID_...) on line 1, got '%s'", f[0]);
}

/* Read the file: line 1 the parallelism, line 2 the layer count, then exactly that many layers
 * (blank lines are skipped). *layers points into *lines. */
static int read_astra(const char* path, const astra_args* a, cal_lines* lines, astra_layer** layers, int* nlayers,
                      ss_err* err)
{
  if (cal_lines_read(path, "ASTRA-sim workload", lines, err))
    return SS_EINPUT;
  if (lines->n == 0)
    return ss_err_set(err, path, 0, "empty file: expected an ASTRA-sim 1.0 workload (DATA, a layer count, layers)");
  if (parallelism(path, lines->line[0], err))
    return SS_EINPUT;
  char* f[2];
  long long n;
  if (lines->n < 2 || cal_fields(lines->line[1], f, 2) != 1 || cal_integer(f[0], &n) || n < 1 || n > 1000000)
    return ss_err_set(err, path, lines->n < 2 ? 1 : 2,
                      "expected the number of layers (a whole number from 1) on line "
                      "2%s",
                      lines->n < 2 ? ", the file ends" : "");
  int have = 0;
  for (int i = 2; i < lines->n; i++)
    if (lines->line[i][strspn(lines->line[i], " \t")] && ++have == n + 1)
      return ss_err_set(err, path, i + 1, "a layer beyond the %lld that line 2 announces", n);
  if (have != n)
    return ss_err_set(err, path, 2, "line 2 announces %lld layers, the file has %d", n, have);
  astra_layer* l = calloc((size_t)n, sizeof(astra_layer));
  if (!l)
    return ss_err_nomem(err);
  *layers = l;
  *nlayers = 0;
  /* Unique names through a hash set: a file of a million layers reads in linear time. */
  ss_names seen = {0};
  int rc = SS_OK;
  for (int i = 2; !rc && i < lines->n; i++) {
    if (!lines->line[i][strspn(lines->line[i], " \t")])
      continue;
    if (parse_layer(path, i + 1, lines->line[i], a, &l[*nlayers], err)) {
      rc = SS_EINPUT;
      break;
    }
    int added = 0, k = ss_names_add(&seen, l[*nlayers].name, &added);
    if (k < 0)
      rc = ss_err_nomem(err);
    else if (!added)
      rc = ss_err_set(err, path, i + 1, "layer name '%s' repeats line %d's (stash-sim needs unique names)", l[k].name,
                      l[k].line);
    else
      (*nlayers)++;
  }
  ss_names_free(&seen);
  return rc;
}

static void provenance(cJSON* j, const char* path, const astra_args* a, int nlayers, const char* dataset_note)
{
  char s[2048];
  cJSON* p = cJSON_AddObjectToObject(j, "provenance");
  snprintf(s, sizeof(s),
           "IMPORTED by stash-calibrate astra from %s (ASTRA-sim 1.0 text workload, DATA parallel, %d "
           "layers) at a clock of %g GHz",
           path, nlayers, a->clock_ghz);
  cJSON_AddStringToObject(p, "imported", s);
  snprintf(s, sizeof(s),
           "fwd_s = forward compute cycles / %g GHz; bwd_s = (input-gradient + weight-gradient compute "
           "cycles) / %g GHz. Cycles of ASTRA-sim's simulated device, not a measurement",
           a->clock_ghz, a->clock_ghz);
  cJSON_AddStringToObject(p, "per_layer_times", s);
  snprintf(s, sizeof(s),
           "weight-gradient ALLREDUCE bytes / %g bytes per gradient (--grad-bytes); a layer whose "
           "weight gradient is not communicated (NONE) has 0",
           a->grad_bytes);
  cJSON_AddStringToObject(p, "params", s);
  snprintf(s, sizeof(s),
           "sum of the layers' update delays (field 12) / %g GHz: ASTRA-sim waits that long after each "
           "layer's weight-gradient collective, stash-sim runs one optimizer step after the last",
           a->clock_ghz);
  cJSON_AddStringToObject(p, "optimizer_s", s);
  snprintf(s, sizeof(s),
           "%s: the device ASTRA-sim's cycles stand for is not in the file; gpu_flops %g (--gpu-flops, "
           "default a V100's FP32 peak, so that a V100 platform runs the cycles at the clock unscaled) "
           "scales the times to other GPUs by peak FLOPS",
           a->gpu_flops == 15.7e12 ? "ESTIMATE" : "GIVEN", a->gpu_flops);
  cJSON_AddStringToObject(p, "reference", s);
  snprintf(s, sizeof(s),
           "%s: the file does not record the batch its cycles are for; %lld (--batch) is the reference "
           "and default batch",
           a->batch == 1 ? "ESTIMATE" : "GIVEN", a->batch);
  cJSON_AddStringToObject(p, "batch", s);
  cJSON_AddStringToObject(p, "dataset", dataset_note);
}

/* The workload JSON (stash-sim-workload/1, docs/formats.md). */
static cJSON* workload_json(const char* path, const astra_args* a, const astra_layer* l, int n, const ss_dataset* ds,
                            const char* dataset_note)
{
  char model[256];
  const char* base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  snprintf(model, sizeof(model), "%s", a->model ? a->model : base);
  char* dot = a->model ? NULL : strrchr(model, '.');
  if (dot && dot != model)
    *dot = '\0';
  double opt_s = 0;
  for (int i = 0; i < n; i++)
    opt_s += l[i].update_s;
  char gpu[128];
  snprintf(gpu, sizeof(gpu), "ASTRA-sim device at %g GHz", a->clock_ghz);
  cal_workload w = {.model = model,
                    .precision = a->precision,
                    .batch = (double)a->batch,
                    .grad_bytes = a->grad_bytes,
                    .gpu_model = a->gpu_model ? a->gpu_model : gpu,
                    .gpu_flops = a->gpu_flops,
                    .optimizer_s = opt_s};
  cJSON* layers = NULL;
  cJSON* j = cal_workload_json(&w, &layers);
  for (int i = 0; i < n; i++)
    cal_workload_layer(layers, l[i].name, l[i].fwd_s, l[i].bwd_s, l[i].params);
  cal_workload_dataset(j, ds);
  provenance(j, path, a, n, dataset_note);
  return j;
}

static const char astra_help[] =
    "usage: stash-calibrate astra WORKLOAD.txt --clock-ghz F [-o WORKLOAD.json] [options]\n"
    "\n"
    "Import an ASTRA-sim 1.0 text workload (line 1 DATA, line 2 the layer count, then one line of 12 fields\n"
    "per layer) as a stash-sim workload: fwd_s = forward cycles / clock, bwd_s = (input-gradient +\n"
    "weight-gradient cycles) / clock, params = weight-gradient allreduce bytes / --grad-bytes, optimizer_s =\n"
    "the update delays / clock. Data parallelism only: MODEL and HYBRID_* files are refused.\n"
    "\n"
    "options:\n"
    "      --clock-ghz F      clock of ASTRA-sim's device, GHz (required)\n"
    "  -o, --output FILE      write the workload there (default: stdout)\n"
    "      --batch B          the batch the cycles are for: reference and default batch (default 1)\n"
    "      --model NAME       model name (default: the file name without its extension)\n"
    "      --precision P      fp32 tf32 fp16 bf16 amp fp64 (default fp32)\n"
    "      --grad-bytes N     bytes per gradient element (default 4)\n"
    "      --gpu-model NAME   reference device name (default 'ASTRA-sim device at F GHz')\n"
    "      --gpu-flops F      its peak flop/s, to scale to other GPUs (default 15.7e12, a V100's FP32 peak)\n"
    "      --dataset-from W.json  copy the dataset block of that stash-sim workload (default: ImageNet-1k,\n"
    "                         the figures of workloads/resnet50.json)\n"
    "  -h, --help             this help\n";

enum { OPT_CLOCK = 256, OPT_BATCH, OPT_MODEL, OPT_PRECISION, OPT_GRAD, OPT_GPU_MODEL, OPT_GPU_FLOPS, OPT_DATASET };

/* clang-format off */
static const struct option options[] = {
    {"output", required_argument, NULL, 'o'},           {"clock-ghz", required_argument, NULL, OPT_CLOCK},
    {"batch", required_argument, NULL, OPT_BATCH},       {"model", required_argument, NULL, OPT_MODEL},
    {"precision", required_argument, NULL, OPT_PRECISION}, {"grad-bytes", required_argument, NULL, OPT_GRAD},
    {"gpu-model", required_argument, NULL, OPT_GPU_MODEL}, {"gpu-flops", required_argument, NULL, OPT_GPU_FLOPS},
    {"dataset-from", required_argument, NULL, OPT_DATASET}, {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};
/* clang-format on */

static const char* const precisions[] = {"fp32", "tf32", "fp16", "bf16", "amp", "fp64", NULL};

/* A number option in (lo, hi]. */
static int num_option(const char* name, const char* s, double lo, double hi, double* out)
{
  if (cal_number(s, out) || !(*out > lo) || *out > hi)
    return cal_usage_error("astra", "--%s expects a number above %g and at most %g, got '%s'", name, lo, hi, s);
  return 0;
}

/* A cal_cli option function. */
static int astra_option(int ch, const char* arg, void* args)
{
  astra_args* a = args;
  double v;
  switch (ch) {
    case 'o': a->output = arg; return 0;
    case OPT_MODEL: a->model = arg; return 0;
    case OPT_GPU_MODEL: a->gpu_model = arg; return 0;
    case OPT_DATASET: a->dataset_from = arg; return 0;
    case OPT_CLOCK: return num_option("clock-ghz", arg, 0, 1e4, &a->clock_ghz);
    case OPT_GPU_FLOPS: return num_option("gpu-flops", arg, 1e6, 1e18, &a->gpu_flops);
    case OPT_GRAD: return num_option("grad-bytes", arg, 0, 8, &a->grad_bytes);
    case OPT_BATCH:
      if (num_option("batch", arg, 0, 1e7, &v))
        return 2;
      if (v != floor(v))
        return cal_usage_error("astra", "--batch expects a whole number, got '%s'", arg);
      a->batch = (long long)v;
      return 0;
    case OPT_PRECISION:
      for (const char* const* p = precisions; *p; p++)
        if (strcmp(arg, *p) == 0) {
          a->precision = arg;
          return 0;
        }
      return cal_usage_error("astra", "--precision expects fp32, tf32, fp16, bf16, amp or fp64, got '%s'", arg);
    default: return cal_usage_error("astra", "internal: option %d", ch);
  }
}

/* The dataset: copied from --dataset-from, or ImageNet-1k as workloads/resnet50.json has it. */
static int dataset(const astra_args* a, ss_workload** from, ss_dataset* ds, char* note, size_t size, ss_err* err)
{
  if (a->dataset_from) {
    if (ss_workload_load(a->dataset_from, from, err))
      return SS_EINPUT;
    *ds = (*from)->dataset;
    snprintf(note, size, "COPIED from the dataset block of %s (--dataset-from); see its provenance", a->dataset_from);
    return SS_OK;
  }
  *ds = (ss_dataset){(char*)"imagenet-1k", 1281167, 113959, 0.004, 150528};
  snprintf(note, size,
           "ESTIMATE: the ASTRA-sim file has no dataset; these are the ImageNet-1k figures of "
           "workloads/resnet50.json (1,281,167 samples of 113,959 bytes, 4 ms of CPU preparation each, a "
           "150,528-byte uint8 crop to the GPU), whose provenance gives their sources; --dataset-from "
           "copies another workload's");
  return SS_OK;
}

/* A cal_cli run function. */
static int astra_run(void* args, int nfiles, char** files, ss_err* err)
{
  const astra_args* a = args;
  if (nfiles != 1)
    return cal_usage_error("astra", "expected one ASTRA-sim workload file, got %s", nfiles == 0 ? "none" : "more");
  if (a->clock_ghz == 0)
    return cal_usage_error("astra", "--clock-ghz is required (ASTRA-sim's times are cycles)");
  const char* path = files[0];
  const cal_named inputs[2] = {{"the ASTRA-sim workload", path}, {"--dataset-from", a->dataset_from}};
  if (cal_check_output("astra", "-o", a->output, inputs, 2))
    return 2;
  cal_lines lines = {0};
  astra_layer* layers = NULL;
  int n = 0;
  ss_workload* from = NULL;
  ss_dataset ds;
  char note[1024];
  cJSON* j = NULL;
  int status = SS_EINPUT;
  if (read_astra(path, a, &lines, &layers, &n, err) || dataset(a, &from, &ds, note, sizeof(note), err))
    goto done;
  j = workload_json(path, a, layers, n, &ds, note);
  /* What is written must be a workload the simulator takes: a refusal names the ASTRA-sim file. */
  status = cal_write_workload(j, a->output, path, err);
done:
  ss_workload_free(from);
  cJSON_Delete(j);
  free(layers);
  cal_lines_free(&lines);
  return status;
}

static const cal_cli astra_cli = {"astra", astra_help, options, astra_option, astra_run};

int cal_astra_main(int argc, char** argv)
{
  astra_args a = {.precision = "fp32", .gpu_flops = 15.7e12, .grad_bytes = 4, .batch = 1};
  return cal_cli_main(&astra_cli, argc, argv, &a);
}
