/* cal_trace: stash-calibrate trace: a PyTorch profiler (Kineto) Chrome trace in, a stash-sim
 * workload out. The trace is read as a stream (cal_kineto), what is kept of its events measured
 * per layer and step (cal_profile); this is the subcommand and the workload it writes. */
#include "cal.h"
#include "cal_cli.h"
#include "cal_profile.h"
#include "cal_text.h"
#include "cal_workload.h"

#include "workload.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Peak FP32 speed of GPUs a trace may name (datasheet figures, not measurements): the workload's
 * reference speed, which stash-sim only uses as a ratio to a platform's GPU. */
static const struct {
  const char* prefix;
  double flops;
} peak_fp32[] = {{"Tesla V100", 15.7e12}, {"NVIDIA A100", 19.5e12}, {"A100", 19.5e12},        {"Tesla T4", 8.1e12},
                 {"NVIDIA H100", 67e12},  {"Tesla K80", 4.37e12},   {"NVIDIA A10G", 31.2e12}, {NULL, 0}};

static const char trace_usage[] =
    "usage: stash-calibrate trace TRACE.json[.gz] -o WORKLOAD.json --samples N [options]\n"
    "\n"
    "Reads a PyTorch profiler (Kineto) Chrome trace of training steps, plain or gzipped, as a\n"
    "stream, and writes a stash-sim workload: for each layer (an operator with weights: conv,\n"
    "linear, addmm, embedding; with the norms, activations and pooling after it) its forward and\n"
    "backward GPU time, the host (CPU) time of issuing them, its parameters and parameter tensors\n"
    "from the weight shapes; the optimizer's GPU and host time, the batch, the bytes copied to the\n"
    "GPU per sample and the DataLoader's time per sample. Only the profiler's steps\n"
    "(ProfilerStep#N) count; each figure is the median over them. A trace with no GPU kernels (a\n"
    "CPU run) gives each operator's own CPU time instead, and no host times. Prints the\n"
    "step-to-step variation of the GPU compute per step (its coefficient of variation, stash-sim's\n"
    "--jitter, over the steps), also in the workload's provenance.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE        the workload to write (required)\n"
    "      --samples N          samples in an epoch of the dataset (required: not in a trace)\n"
    "      --bytes-per-sample B bytes of a sample on storage (default: the bytes copied to the GPU)\n"
    "      --dataset NAME       the dataset's name (default: unknown)\n"
    "      --model NAME         the model's name (default: the trace file's name)\n"
    "      --gpu-flops F        peak FP32 flop/s of the traced GPU (default: from its name, for\n"
    "                           V100, A100, T4, H100, K80, A10G)\n"
    "      --grad-bytes B       bytes of one gradient element (default 4, FP32)\n"
    "      --gpu-model NAME     the device's name in the workload (default: the trace's GPU; a CPU\n"
    "                           trace has none: name it as the platform's gpu_model to match)\n"
    "\n"
    "The profiler's own cost is taken out of the times it inflates (the host times, the optimizer's\n"
    "and the DataLoader's spans, a CPU run's operators), per event the trace records\n"
    "(docs/calibration.md, \"The profiler's own cost\"); each figure in us, 0 or more:\n"
    "      --profiler-op-us X       per operator event (default " CAL_STR(
        CAL_PROFILER_OP_US) ", measured)\n"
                            "      --profiler-stack-us X    more per operator event with a Python call stack (with_stack;\n"
                            "                               default: measured in the trace, operators of a kind with and\n"
                            "                               without a stack; else " CAL_STR(
                                CAL_PROFILER_STACK_US) ", measured here)\n"
                                                       "      --profiler-memory-us X   per [memory] event (profile_memory; default " CAL_STR(
                                                           CAL_PROFILER_MEMORY_US) ", measured)\n"
                                                                                   "      --profiler-runtime-us X  per CUDA runtime call (CUPTI; default 0: not measured)\n"
                                                                                   "      --no-profiler-correction the host times as recorded, the profiler's cost in them\n"
                                                                                   "  -h, --help               print this help\n";

enum { T_SAMPLES = 256, T_BYTES, T_DATASET, T_MODEL, T_FLOPS, T_GRAD, T_GPU, T_POP, T_PSTACK, T_PMEM, T_PRT, T_NOP };

/* clang-format off */
static const struct option trace_options[] = {
    {"output", required_argument, NULL, 'o'},  {"samples", required_argument, NULL, T_SAMPLES},
    {"bytes-per-sample", required_argument, NULL, T_BYTES}, {"dataset", required_argument, NULL, T_DATASET},
    {"model", required_argument, NULL, T_MODEL}, {"gpu-flops", required_argument, NULL, T_FLOPS},
    {"grad-bytes", required_argument, NULL, T_GRAD}, {"gpu-model", required_argument, NULL, T_GPU},
    {"profiler-op-us", required_argument, NULL, T_POP}, {"profiler-stack-us", required_argument, NULL, T_PSTACK},
    {"profiler-memory-us", required_argument, NULL, T_PMEM}, {"profiler-runtime-us", required_argument, NULL, T_PRT},
    {"no-profiler-correction", no_argument, NULL, T_NOP},
    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
/* clang-format on */

typedef struct trace_opts {
  const char* in;
  const char* out;
  double samples, bytes_per_sample, gpu_flops, grad_bytes;
  const char* dataset;
  const char* model;
  const char* gpu_model;
  cal_profiler_cost cost; /* the profiler's, per event (us) */
  int given[4];           /* which of cost's figures an option gave */
  int no_correction;
} trace_opts;

static int positive(const char* arg, double* out)
{
  char* end = NULL;
  double v = strtod(arg, &end);
  if (end == arg || *end || !isfinite(v) || v <= 0)
    return -1;
  *out = v;
  return 0;
}

/* A cal_cli option function. */
static int trace_option(int ch, const char* value, void* args)
{
  trace_opts* o = args;
  double v = 0;
  switch (ch) {
    case 'o': o->out = value; return 0;
    case T_DATASET: o->dataset = value; return 0;
    case T_MODEL: o->model = value; return 0;
    case T_GPU: o->gpu_model = value; return 0;
    case T_NOP: o->no_correction = 1; return 0;
    default: break;
  }
  if (ch >= T_POP && ch <= T_PRT) {
    char* end = NULL;
    v = strtod(value, &end);
    if (end == value || *end || !isfinite(v) || v < 0 || v > CAL_PROFILER_MAX_US)
      return cal_usage_error("trace", "--%s expects microseconds from 0 to %g, got '%s'",
                             trace_options[8 + (ch - T_POP)].name, (double)CAL_PROFILER_MAX_US, value);
    double* f[] = {&o->cost.op_us, &o->cost.stack_us, &o->cost.memory_us, &o->cost.runtime_us};
    *f[ch - T_POP] = v;
    o->given[ch - T_POP] = 1;
    return 0;
  }
  if (positive(value, &v))
    return cal_usage_error("trace", "--%s expects a number > 0, got '%s'",
                           trace_options[ch == T_SAMPLES ? 1
                                         : ch == T_BYTES ? 2
                                         : ch == T_FLOPS ? 5
                                                         : 6]
                               .name,
                           value);
  *(ch == T_SAMPLES ? &o->samples
    : ch == T_BYTES ? &o->bytes_per_sample
    : ch == T_FLOPS ? &o->gpu_flops
                    : &o->grad_bytes) = v;
  return 0;
}

/* The model's name: the trace file's, without directories and extensions. */
static void default_model(const char* path, char* out, size_t size)
{
  const char* base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(out, size, "%s", base);
  char* dot = strchr(out, '.');
  if (dot && dot != out)
    *dot = '\0';
}

/* The reference speed: --gpu-flops, or the datasheet's for the traced device; 0 when unknown. */
static double reference_flops(const trace_opts* o, const char* device)
{
  double flops = o->gpu_flops;
  for (int i = 0; flops <= 0 && peak_fp32[i].prefix; i++)
    if (strncmp(device, peak_fp32[i].prefix, strlen(peak_fp32[i].prefix)) == 0)
      flops = peak_fp32[i].flops;
  return flops;
}

/* Whether every layer of med lists its parameter tensors (none holds more than CAL_MAX_TENSORS). */
static int tensors_known(const cal_step* med)
{
  for (int l = 0; l < med->nlayers; l++)
    if (med->layers[l].ntensors < 1)
      return 0;
  return 1;
}

/* The optional keys of a layer: its parameter tensors (when every layer's are known) and its host
 * times (but for a CPU run). */
static void layer_extras(cJSON* o, const cal_layer* l, int tensors, int host)
{
  if (tensors)
    cJSON_AddItemToObject(o, "tensors", cJSON_CreateDoubleArray(l->tensors, l->ntensors));
  if (!host)
    return;
  cJSON_AddNumberToObject(o, "host_fwd_s", l->host_fwd_us * 1e-6);
  cJSON_AddNumberToObject(o, "host_bwd_s", l->host_bwd_us * 1e-6);
}

/* The step-to-step variation of var in one sentence (for stdout and the provenance): the
 * coefficient of variation's relative standard error is about 1 / sqrt(2 (n - 1)) for normal step
 * times (a small cv), so a figure from fewer than CAL_VARIATION_STEPS steps is flagged. */
#define CAL_VARIATION_STEPS 14 /* 1 / sqrt(2 x 13) < 0.2 */
static void variation_text(const cal_variation* v, char* buf, size_t size)
{
  if (v->nsteps < 2) {
    snprintf(buf, size, "one profiler step: no step-to-step variation measurable");
    return;
  }
  snprintf(buf, size,
           "step-to-step variation of the GPU compute per step (layers' forward and backward and the optimizer): "
           "cv %.3g over %d steps (mean %.3f ms, sd %.4f ms, %.3f to %.3f ms); relative standard error of the cv "
           "about %.0f%%%s",
           v->cv, v->nsteps, v->mean_us * 1e-3, v->sd_us * 1e-3, v->min_us * 1e-3, v->max_us * 1e-3,
           100 / sqrt(2.0 * (v->nsteps - 1)), v->nsteps < CAL_VARIATION_STEPS ? ": few steps, an estimate" : "");
}

/* The profiler's cost taken out (cal_profiler_cost), in one sentence: what a step recorded, each
 * figure and where it comes from, the time removed. */
static void profiler_text(const trace_opts* o, const cal_profile* p, const cal_step* med, char* buf, size_t size)
{
  int pairs = 0;
  cal_profiler_cost c = cal_profile_cost(p, &pairs);
  if (o->no_correction) {
    snprintf(buf, size,
             "not removed (--no-profiler-correction): %.0f operator events a step (%.0f with a call "
             "stack), %.0f [memory] events, %.0f CUDA runtime calls",
             med->events[0], med->events[1], med->events[2], med->events[3]);
    return;
  }
  char stack[256];
  if (o->given[1])
    snprintf(stack, sizeof(stack), "GIVEN (--profiler-stack-us)");
  else if (pairs > 0)
    snprintf(stack, sizeof(stack),
             "MEASURED in this trace: the median over %d kinds of leaf operator recorded at least %d times with a "
             "call stack (training thread) and without (autograd threads) of the difference of their median times",
             pairs, CAL_STACK_PAIR_MIN);
  else
    snprintf(stack, sizeof(stack),
             "MEASURED on the project's machine (profiler_cost.py): no kind of operator in "
             "this trace to measure it on");
  snprintf(buf, size,
           "REMOVED: the profiler's own cost, %.3f ms a step (median): %.0f operator events x %g us (%s), %.0f of "
           "them with a call stack x %g us more (%s), %.0f [memory] events x %g us (%s), %.0f CUDA runtime calls x "
           "%g us (%s)",
           med->profiler_us * 1e-3, med->events[0], c.op_us,
           o->given[0] ? "GIVEN (--profiler-op-us)" : "MEASURED on the project's machine, profiler_cost.py",
           med->events[1], c.stack_us, stack, med->events[2], c.memory_us,
           o->given[2] ? "GIVEN (--profiler-memory-us)" : "MEASURED on the project's machine, profiler_cost.py",
           med->events[3], c.runtime_us,
           o->given[3] ? "GIVEN (--profiler-runtime-us)" : "NOT MEASURED: no GPU where it could be; 0");
}

/* Where each figure of the workload comes from. */
static void provenance(cJSON* w, const trace_opts* o, const cal_profile* p, const char* device, const cal_step* med,
                       int nsteps, const cal_variation* var)
{
  cJSON* pv = cJSON_AddObjectToObject(w, "provenance");
  char line[1024];
  variation_text(var, line, sizeof(line));
  cJSON_AddStringToObject(pv, "compute_variation", line);
  snprintf(line, sizeof(line),
           "MEASURED: stash-calibrate trace %s, the median over %d profiler steps of each layer's GPU kernel time "
           "(a layer: an operator with weights, and the operators after it until the next; backward: the autograd "
           "nodes of its operators, by sequence number, and AccumulateGrad after them)",
           o->in, nsteps);
  cJSON_AddStringToObject(pv, "per_layer_times", line);
  cJSON_AddStringToObject(pv, "params",
                          "DERIVED: the weight and bias shapes of each layer's operator, plus the "
                          "affine parameters of the norms that follow it");
  cJSON_AddStringToObject(pv, "optimizer_s", "MEASURED: GPU kernels under Optimizer.step and Optimizer.zero_grad");
  cJSON_AddStringToObject(pv, "dataset.prep_cpu_s_per_sample",
                          "MEASURED: the DataLoader's __next__ span per step over the batch; with num_workers = 0 "
                          "that is the training process loading; with workers, the wait, a lower bound");
  cJSON_AddStringToObject(pv, "dataset.decoded_bytes_per_sample",
                          med->htod_bytes > 0 ? "MEASURED: the largest host-to-device copy of a step over the batch"
                                              : "DERIVED: no device copy in the trace (a CPU run): the first layer's "
                                                "input shape, FP32, over the batch");
  snprintf(line, sizeof(line), "%s: %g from --samples; bytes_per_sample %s",
           o->bytes_per_sample > 0 ? "GIVEN" : "GIVEN", o->samples,
           o->bytes_per_sample > 0 ? "from --bytes-per-sample" : "ASSUMED equal to the decoded bytes (none given)");
  cJSON_AddStringToObject(pv, "dataset", line);
  snprintf(line, sizeof(line), "%s peak FP32 flop/s of %s (%s)",
           o->gpu_flops > 0 ? "GIVEN:" : "NOT MEASURED: datasheet", device,
           o->gpu_flops > 0 ? "--gpu-flops" : "stash-calibrate's table");
  cJSON_AddStringToObject(pv, "reference.gpu_flops", line);
  cJSON_AddStringToObject(pv, "precision", "ASSUMED: fp32 (a trace does not say)");
  cJSON_AddStringToObject(pv, "tensors",
                          tensors_known(med) ? "DERIVED: the weight and bias shapes (Input Dims) of each layer's "
                                               "operator, then those of the norms that follow it, in the order they run"
                                             : "not written: a layer holds more than 16 parameter tensors");
  profiler_text(o, p, med, line, sizeof(line));
  cJSON_AddStringToObject(pv, "profiler_cost", line);
  if (med->cpu) {
    cJSON_AddStringToObject(pv, "host_times",
                            "not written: in a CPU run the operators' time (less the profiler's own cost, "
                            "profiler_cost) is the compute itself (fwd_s, bwd_s), on the same thread");
    return;
  }
  snprintf(line, sizeof(line),
           "MEASURED: the median over %d profiler steps of the training process's CPU time: host_fwd_s, the training "
           "thread's operators of the layer (their spans, which hold their launch calls, plus the Python time "
           "between two top-level operators) until the step's first autograd node; host_bwd_s, the autograd "
           "threads' operators of the layer, with the engine's time between them; host_optimizer_s, the spans of "
           "Optimizer.step and Optimizer.zero_grad; less the profiler's own cost (profiler_cost)",
           nsteps);
  cJSON_AddStringToObject(pv, "host_times", line);
}

/* The workload (stash-sim-workload/1) of the medians med over nsteps steps. */
static cJSON* workload_json(const trace_opts* o, const cal_profile* p, const char* device, double flops,
                            const cal_step* med, int nsteps, const cal_variation* var)
{
  char model[128];
  if (o->model)
    snprintf(model, sizeof(model), "%s", o->model);
  else
    default_model(o->in, model, sizeof(model));
  /* On a CPU nothing is copied to a device: the batch tensor's FP32 bytes stand for it. */
  double decoded = med->htod_bytes > 0 ? med->htod_bytes / med->batch : med->input * 4 / med->batch;
  cal_workload head = {.model = model,
                       .precision = "fp32",
                       .batch = med->batch,
                       .grad_bytes = o->grad_bytes,
                       .gpu_model = o->gpu_model ? o->gpu_model
                                    : device[0]  ? device
                                                 : "unknown",
                       .gpu_flops = flops,
                       .optimizer_s = med->opt_us * 1e-6,
                       .has_host = !med->cpu,
                       .host_optimizer_s = med->host_opt_us * 1e-6};
  cJSON* layers = NULL;
  cJSON* w = cal_workload_json(&head, &layers);
  int tensors = tensors_known(med);
  for (int l = 0; l < med->nlayers; l++) {
    const cal_layer* y = &med->layers[l];
    char name[96];
    snprintf(name, sizeof(name), "%d_%s", l, y->name);
    layer_extras(cal_workload_layer(layers, name, y->fwd_us * 1e-6, y->bwd_us * 1e-6, y->params), y, tensors,
                 !med->cpu);
  }
  ss_dataset ds = {(char*)o->dataset, o->samples, o->bytes_per_sample > 0 ? o->bytes_per_sample : decoded,
                   med->data_us * 1e-6 / med->batch, decoded};
  cal_workload_dataset(w, &ds);
  provenance(w, o, p, device, med, nsteps, var);
  return w;
}

static int write_workload(const trace_opts* o, const cal_profile* p, const cal_step* med, int nsteps,
                          const cal_variation* var, ss_err* err)
{
  const char* device = cal_profile_device(p);
  double flops = reference_flops(o, device);
  if (flops <= 0)
    return ss_err_set(err, o->in, 0, "the traced device '%s' has no known peak speed: give --gpu-flops",
                      device[0] ? device : "(none in deviceProperties)");
  cJSON* w = workload_json(o, p, device, flops, med, nsteps, var);
  /* Read back before it replaces anything: a trace (or options) that gives figures out of the
   * simulator's ranges (a weight shape of 1e300, a layer of hours, --samples 1e20) is an error
   * here, not a file the simulator rejects later. Not checked when written directly (-o
   * /dev/null). */
  int rc = cal_write_workload(w, o->out, o->in, err);
  cJSON_Delete(w);
  return rc;
}

/* A cal_cli run function. */
static int trace_run(void* args, int n, char** operands, ss_err* err)
{
  trace_opts* o = args;
  if (n != 1)
    return cal_usage_error("trace", "expected one TRACE.json[.gz], got %d", n);
  o->in = operands[0];
  if (!o->out)
    return cal_usage_error("trace", "missing -o WORKLOAD.json");
  if (o->samples <= 0)
    return cal_usage_error("trace", "missing --samples N (the samples of an epoch are not in a trace)");
  const cal_named input = {"the trace", o->in};
  if (cal_check_output("trace", "-o", o->out, &input, 1))
    return 2;
  cal_profile* p = NULL;
  cal_step med;
  memset(&med, 0, sizeof(med));
  int nsteps = 0;
  cal_variation var;
  for (int k = 0; o->no_correction && k < 4; k++)
    if (o->given[k])
      return cal_usage_error("trace", "--%s has no effect with --no-profiler-correction (no cost is removed)",
                             trace_options[8 + k].name);
  if (o->no_correction)
    memset(&o->cost, 0, sizeof(o->cost));
  int rc = cal_profile_load(o->in, &p, err);
  if (!rc) {
    cal_profile_set_cost(p, &o->cost);
    rc = cal_profile_measure(p, &med, &nsteps, &var, err);
  }
  if (!rc)
    rc = write_workload(o, p, &med, nsteps, &var, err);
  if (!rc) {
    /* stash-sim's --jitter is this cv (docs/model.md, "Stragglers"). */
    char line[1024];
    profiler_text(o, p, &med, line, sizeof(line));
    printf("%s: %s\n", o->out, line);
    variation_text(&var, line, sizeof(line));
    printf("%s: %s\n", o->out, line);
  }
  cal_step_free(&med);
  cal_profile_free(p);
  return rc;
}

static const cal_cli trace_cli = {"trace", trace_usage, trace_options, trace_option, trace_run};

int cal_trace_main(int argc, char** argv)
{
  trace_opts o = {.grad_bytes = 4, .dataset = "unknown", .cost = {CAL_PROFILER_OP_US, -1, CAL_PROFILER_MEMORY_US, 0}};
  return cal_cli_main(&trace_cli, argc, argv, &o);
}
