/* cal_profile: what stash-calibrate trace keeps of a Kineto trace's events (operators with their
 * nesting and shapes, GPU kernels and copies), and the figures of each layer it measures from them
 * over the profiler steps. */
#ifndef SS_CAL_PROFILE_H
#define SS_CAL_PROFILE_H

#include "err.h"

typedef struct cal_profile cal_profile;

/* What one profiler step measured, or the median over the steps: each layer's forward and
 * backward time on the device, its parameters (weights, biases and the norms' affine parameters)
 * and name; the optimizer's device time, the DataLoader's span; the batch and the elements of the
 * first layer's input; the largest host-to-device copy. A layer is an operator with weights (conv,
 * linear, addmm, embedding) and the operators after it until the next. */
typedef struct cal_step {
  double t0_us, t1_us; /* the step's span */
  int nlayers;
  double* fwd_us;
  double* bwd_us;
  double* params;
  char (*names)[64];
  double opt_us, data_us, htod_bytes, batch, input;
} cal_step;

/* Read the Kineto trace at path (plain or gzipped; path is borrowed and must outlive the profile)
 * and keep what the figures need of its events. On success *out owns the profile (free with
 * cal_profile_free); on bad input returns SS_EINPUT with err naming the file (cal_kineto_read's
 * errors, and an event without numbers 'ts' and 'dur' >= 0). */
int cal_profile_load(const char* path, cal_profile** out, ss_err* err);

void cal_profile_free(cal_profile* p);

/* The traced device's name from the trace's deviceProperties, "" when it has none (a CPU run). */
const char* cal_profile_device(const cal_profile* p);

/* Measure every profiler step (ProfilerStep#N) of p and fill *med with the median over them of
 * each figure and *nsteps with their number; on a trace without GPU kernels (a CPU run), each
 * operator's own CPU time stands for the device's. Errors (SS_EINPUT, err set): no step, steps
 * that overlap or differ in layers, a step without a layer, no batch size in the first layer's
 * input shape, no host-to-device copy in a step of a GPU trace. On success *med owns its arrays
 * (free with cal_step_free). */
int cal_profile_measure(cal_profile* p, cal_step* med, int* nsteps, ss_err* err);

/* Free the arrays of s (not s itself). */
void cal_step_free(cal_step* s);

#endif
