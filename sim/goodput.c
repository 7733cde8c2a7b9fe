/* goodput: failures, checkpoints and restarts in closed form (goodput.h). */
#include "goodput.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char* const ss_ckpt_target_names[] = {"local", "fsx", "s3", NULL};

/* The targets' figures (calibration/failures_2026.md has the sources and quotes). */
static const ss_ckpt_target_facts targets[SS_CKPT_TO_COUNT] = {
    /* The instance file's disk (<disk write_bw>): the catalogue's EBS volume; no write rate of the GPU
     * instances' NVMe instance store is published. */
    [SS_CKPT_TO_LOCAL] = {"the instance file's disk", 0, 0, "the instance file's disk write_bw"},
    /* FSx for Lustre: a client's 100 Gb/s over ENA (ESTIMATE: a secondary copy of AWS's table), at most a
     * PERSISTENT_2 file system of 100 TiB at 1000 MB/s per TiB of disk throughput, which bounds writes
     * (ESTIMATE of its size; the rate per TiB is AWS's). */
    [SS_CKPT_TO_FSX] = {"FSx for Lustre", 12.5e9, 100 * 1000e6, "ESTIMATE: 100 Gb/s a client, 100 TiB x 1000 MB/s/TiB"},
    /* S3: "up to 100 Gb/s on a single instance" (AWS's S3 performance guidelines); no aggregate cap. */
    [SS_CKPT_TO_S3] = {"S3", 12.5e9, 0, "AWS: up to 100 Gb/s a single instance"},
};

const ss_ckpt_target_facts* ss_ckpt_target_of(ss_ckpt_target t)
{
  return &targets[t];
}

int ss_goodput_parse_interval(const char* text, double* s)
{
  if (!text || strcmp(text, "auto") == 0) {
    *s = 0;
    return 0;
  }
  char* end = NULL;
  double min = strtod(text, &end);
  if (end == text || *end || !isfinite(min) || !(min > 0) || min > 1e9)
    return -1;
  *s = min * 60;
  return 0;
}

double ss_goodput_ckpt_bytes_per_param(double optimizer_bytes_per_param)
{
  return 4 + optimizer_bytes_per_param;
}

int ss_goodput_compute(const ss_goodput_in* in, ss_goodput* out, char* why, size_t size)
{
  *out = (ss_goodput){0};
  int fails = isfinite(in->mtbf_s);
  out->young = fails && !(in->interval_s > 0);
  /* Without failures no checkpoint is needed unless one is asked for; without a write, none costs. */
  out->interval_s = out->young ? sqrt(2 * in->write_s * in->mtbf_s) : in->interval_s > 0 ? in->interval_s : 0;
  if (in->interval_s > 0 && in->interval_s < in->write_s) {
    snprintf(why, size,
             "--checkpoint-every: a checkpoint every %.3g min is shorter than writing one (%.3g min): give a longer "
             "interval, or auto",
             in->interval_s / 60, in->write_s / 60);
    return -1;
  }
  double loss = fails ? in->restart_s + (out->interval_s + in->write_s) / 2 : 0;
  if (fails && !(loss < in->mtbf_s)) {
    snprintf(why, size,
             "no training progresses: a failure costs %.3g h on average (the restart and half an interval with its "
             "checkpoint), at least the %.3g h between failures of the job: give a larger --mtbf-hours, a shorter "
             "--restart-min or --checkpoint-every, or fewer instances",
             loss / 3600, in->mtbf_s / 3600);
    return -1;
  }
  double per_work = out->interval_s > 0 ? 1 + in->write_s / out->interval_s : 1;
  out->wall_s = in->work_s * per_work / (fails ? 1 - loss / in->mtbf_s : 1);
  out->goodput = out->wall_s > 0 ? in->work_s / out->wall_s : 1;
  out->interruptions = fails ? out->wall_s / in->mtbf_s : 0;
  out->checkpoints = out->interval_s > 0 ? in->work_s / out->interval_s : 0;
  return 0;
}
