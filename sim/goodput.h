/* goodput: what failures cost a training run at scale: checkpoints written every interval, a failure
 * losing the work since the last one and the restart, in closed form (docs/model.md, "Failures and
 * checkpoints"); the checkpoints' targets and their figures. */
#ifndef SS_GOODPUT_H
#define SS_GOODPUT_H

#include <stddef.h>

/* Where checkpoints are written (--checkpoint-to): the instances' local NVMe, an FSx for Lustre file
 * system, or S3. A new target is a value here and a row of goodput.c's table. */
typedef enum ss_ckpt_target { SS_CKPT_TO_LOCAL, SS_CKPT_TO_FSX, SS_CKPT_TO_S3, SS_CKPT_TO_COUNT } ss_ckpt_target;

extern const char* const ss_ckpt_target_names[]; /* by value, NULL-terminated */

/* A target's figures: what one instance writes to it per second (0: the instance file's disk's write
 * rate, for local NVMe), what all of them write at most together (0: no cap), and where the figures
 * come from. */
typedef struct ss_ckpt_target_facts {
  const char* label;
  double per_instance_bytes_per_s;
  double aggregate_bytes_per_s;
  const char* source;
} ss_ckpt_target_facts;

const ss_ckpt_target_facts* ss_ckpt_target_of(ss_ckpt_target t);

/* The mean time between failures of one GPU (hours) that --mtbf-hours defaults to per instance (this
 * over its GPUs): Llama 3's 419 unexpected interruptions in a 54-day snapshot on 16,384 H100 GPUs
 * (Dubey et al. 2024, section 3.3.4): 16384 x 54 x 24 / 419 GPU-hours. */
#define SS_GOODPUT_GPU_MTBF_H (16384.0 * 54.0 * 24.0 / 419.0)

/* --checkpoint-every's text: "auto" (or NULL) as 0 (Young's optimum), else a number of minutes above 0
 * and at most 1e9, in seconds into *s. Returns 0, or -1 when it is neither. */
int ss_goodput_parse_interval(const char* text, double* s);

/* The bytes of a checkpoint per parameter: the FP32 master weights (4) and the optimizer's state (its
 * bytes per parameter), as Megatron's distributed checkpoint and DeepSpeed's save them (the 16-bit
 * weights derived from the masters are not written). */
double ss_goodput_ckpt_bytes_per_param(double optimizer_bytes_per_param);

/* What the closed form takes: the failure-free training time, the mean time between failures of the
 * whole job (an instance's over the instances), one checkpoint's write, the restart after a failure
 * (detection, rescheduling and reload) and the interval of work between checkpoints (0: Young's
 * optimum, sqrt(2 write mtbf)). Seconds. */
typedef struct ss_goodput_in {
  double work_s;
  double mtbf_s;
  double write_s;
  double restart_s;
  double interval_s;
} ss_goodput_in;

/* What it gives: the interval used, the share of the wall time that trains (goodput), the expected
 * wall time and failures, and the checkpoints written. */
typedef struct ss_goodput {
  double interval_s;
  int young; /* the interval is Young's optimum */
  double goodput;
  double wall_s;
  double interruptions;
  double checkpoints;
} ss_goodput;

/* The expected wall time of in (Poisson failures at rate 1 / mtbf; each checkpoint blocks training for
 * write_s; a failure loses on average half an interval of work and its write, then restart_s):
 *   wall = work (1 + write / interval) / (1 - (restart + (interval + write) / 2) / mtbf),
 * goodput = work / wall, interruptions = wall / mtbf, checkpoints = work / interval. Returns 0, or -1
 * with why[size] when no work gets done (a failure's loss at least the time between failures) or the
 * interval is shorter than a checkpoint's write. */
int ss_goodput_compute(const ss_goodput_in* in, ss_goodput* out, char* why, size_t size);

#endif
