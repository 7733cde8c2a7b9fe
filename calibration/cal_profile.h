/* cal_profile: what stash-calibrate trace keeps of a Kineto trace's events (operators with their
 * nesting and shapes, GPU kernels and copies), and the figures of each layer it measures from them
 * over the profiler steps. */
#ifndef SS_CAL_PROFILE_H
#define SS_CAL_PROFILE_H

#include "err.h"

typedef struct cal_profile cal_profile;

/* The most parameter tensors a layer lists (its operator's weight and bias, the norms' after it). */
#define CAL_MAX_TENSORS 16

/* One layer of a step: its name; the forward and backward time on the device; the host (CPU)
 * time of the training process issuing its forward operators and of the autograd engine running
 * its backward nodes (us, with the Python or engine time between two top-level operators); its
 * parameters and parameter tensors (weights, biases and the norms' affine parameters, in the order
 * of use; ntensors -1 when there are more than CAL_MAX_TENSORS). */
typedef struct cal_layer {
  char name[64];
  double fwd_us, bwd_us, host_fwd_us, host_bwd_us, params;
  int ntensors;
  double tensors[CAL_MAX_TENSORS];
} cal_layer;

/* What one profiler step measured, or the median over the steps: its layers; the optimizer's
 * device time and host time (its step and zero_grad operators), the DataLoader's span; the batch
 * and the elements of the first layer's input; the largest host-to-device copy. A layer is an
 * operator with weights (conv, linear, addmm, embedding) and the operators after it until the
 * next. */
typedef struct cal_step {
  double t0_us, t1_us; /* the step's span */
  int cpu;             /* a CPU run (no GPU kernels in the trace): the operators' time is the compute */
  int nlayers;
  cal_layer* layers;
  double opt_us, host_opt_us, data_us, htod_bytes, batch, input;
  /* The profiler's events in the host times (operators, those with a call stack, [memory] events,
   * CUDA runtime calls) and the time removed for them (cal_profiler_cost), us. */
  double events[4], profiler_us;
} cal_step;

/* What the profiler adds to the CPU time of each event it records (us; docs/calibration.md, "The
 * profiler's own cost"): every operator event (record_shapes), more for one that records its Python
 * call stack (with_stack), per allocation or free it records ("[memory]": profile_memory), per CUDA
 * runtime call (CUPTI's callback). cal_profile_measure removes them from the host times. */
typedef struct cal_profiler_cost {
  double op_us, stack_us, memory_us, runtime_us;
} cal_profiler_cost;

/* The defaults, MEASURED on the project's machine by calibration/realrun/profiler_cost.py (torch
 * 1.13 on the CPU; the medians of its runs in docs/calibration.md, "The profiler's own cost"); a
 * CUDA runtime call's cost is not measured (no GPU there): 0 unless given. */
#define CAL_PROFILER_OP_US 0.8
#define CAL_PROFILER_STACK_US 2.1
#define CAL_PROFILER_MEMORY_US 0.4
#define CAL_PROFILER_MAX_US 1000 /* a figure per event beyond it is not a profiler's */
#define CAL_STACK_PAIR_MIN 20    /* operators of a kind each way for its stack's cost (cal_profile.c) */
#define CAL_XSTR(x) #x
#define CAL_STR(x) CAL_XSTR(x)

/* Read the Kineto trace at path (plain or gzipped; path is borrowed and must outlive the profile)
 * and keep what the figures need of its events. On success *out owns the profile (free with
 * cal_profile_free); on bad input returns SS_EINPUT with err naming the file (cal_kineto_read's
 * errors, and an event without numbers 'ts' and 'dur' >= 0). */
int cal_profile_load(const char* path, cal_profile** out, ss_err* err);

void cal_profile_free(cal_profile* p);

/* The traced device's name from the trace's deviceProperties, "" when it has none (a CPU run). */
const char* cal_profile_device(const cal_profile* p);

/* Step-to-step variation of a step's GPU compute (its layers' forward and backward kernels and the
 * optimizer's: the work stash-sim runs): over nsteps steps, the mean, the sample standard deviation
 * (n - 1), their ratio cv (the coefficient of variation; 0 with one step), the fastest and slowest
 * step (us). */
typedef struct cal_variation {
  int nsteps;
  double mean_us, sd_us, cv, min_us, max_us;
} cal_variation;

/* Measure every profiler step (ProfilerStep#N) of p and fill *med with the median over them of
 * each figure, *nsteps with their number and *var (when not NULL) with the variation of their
 * compute; on a trace without GPU kernels (a CPU run), each
 * operator's own CPU time stands for the device's. Errors (SS_EINPUT, err set): no step, steps
 * that overlap or differ in layers, a step without a layer, no batch size in the first layer's
 * input shape, no host-to-device copy in a step of a GPU trace. On success *med owns its arrays
 * (free with cal_step_free). */
int cal_profile_measure(cal_profile* p, cal_step* med, int* nsteps, cal_variation* var, ss_err* err);

/* The profiler's cost per event that cal_profile_measure removes from p's host times (default: none).
 * The host times of a layer or the optimizer never go below 0. A stack_us below 0: measured in the
 * trace (operators of one kind recorded with and without a call stack), else CAL_PROFILER_STACK_US. */
void cal_profile_set_cost(cal_profile* p, const cal_profiler_cost* cost);

/* The cost cal_profile_measure removed, and in *stack_pairs the operator kinds the stack's cost was
 * measured on in the trace (0: given, or the default). */
cal_profiler_cost cal_profile_cost(const cal_profile* p, int* stack_pairs);

/* Free the layers of s (not s itself). */
void cal_step_free(cal_step* s);

#endif
