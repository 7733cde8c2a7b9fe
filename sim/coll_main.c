/* coll_main: stash-sim-coll, an nccl-tests-like allreduce benchmark on a simulated instance. */
#include "engine.h"
#include "job.h"
#include "platform.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE* f)
{
  fputs("usage: stash-sim-coll PLATFORM.xml BYTES [GPUS [REPS]] [--cfg=...]\n"
        "Simulates REPS (default 5) back-to-back ring allreduces of BYTES among the first GPUS GPUs\n"
        "(default all) and prints: gpus bytes rings time_s algbw_GBps busbw_GBps (nccl-tests conventions:\n"
        "algbw = bytes / time, busbw = algbw x 2(n-1)/n), time being the mean over the repetitions.\n",
        f);
}

static int parse_pos(const char* s, double* out)
{
  char* end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !(v > 0) || v > 1e15)
    return -1;
  *out = v;
  return 0;
}

int main(int argc, char** argv)
{
  char* pos[4];
  char** cfg = calloc((size_t)argc + 1, sizeof(char*));
  int npos = 0, ncfg = 0;
  if (!cfg)
    return 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      free(cfg);
      return 0;
    }
    if (strncmp(argv[i], "--cfg=", 6) == 0 || strncmp(argv[i], "--log=", 6) == 0)
      cfg[ncfg++] = argv[i];
    else if (npos < 4 && argv[i][0] != '-')
      pos[npos++] = argv[i];
    else {
      fprintf(stderr, "stash-sim-coll: error: unexpected argument '%s' (see --help)\n", argv[i]);
      free(cfg);
      return 2;
    }
  }
  double bytes = 0, gpus = 0, reps = 5;
  if (npos < 2 || parse_pos(pos[1], &bytes) || (npos > 2 && (parse_pos(pos[2], &gpus) || gpus != (int)gpus)) ||
      (npos > 3 && (parse_pos(pos[3], &reps) || reps != (int)reps || reps > 1e6))) {
    fprintf(stderr, "stash-sim-coll: error: expected PLATFORM.xml BYTES [GPUS [REPS]] with positive numbers (see --help)\n");
    free(cfg);
    return 2;
  }
  ss_err err;
  ss_err_clear(&err);
  ss_platform* p = NULL;
  ss_job* job = NULL;
  int status = 1;
  double* end_s = calloc((size_t)reps, sizeof(double));
  /* The collective needs no workload beyond its size: a one-layer stand-in drives the job. */
  ss_layer layer = {(char*)"allreduce", 0, 0, 0};
  ss_workload w = {.path = (char*)"-", .model = (char*)"allreduce", .batch_per_gpu = 1, .grad_bytes_per_param = 1,
                   .ref_gpu_flops = 1e12, .ref_batch = 1, .nlayers = 1, .layers = &layer,
                   .dataset = {.samples = 1, .bytes_per_sample = 1, .decoded_bytes_per_sample = 1}};
  ss_options o;
  ss_options_default(&o);
  o.gpus = (int)gpus > 0 ? (int)gpus : -1;
  o.synthetic = 1;
  if (!end_s || ss_platform_load(pos[0], &p, &err) || ss_job_new(p, &w, &o, &job, &err) ||
      ss_engine_allreduce(job, ncfg, cfg, bytes, (int)reps, end_s, &err)) {
    char line[2048];
    ss_err_format(&err, line, sizeof(line));
    fprintf(stderr, "%s\n", line);
    goto done;
  }
  double t = end_s[(int)reps - 1] / reps;
  int n = job->ngpus;
  double algbw = bytes / t / 1e9;
  printf("gpus %d bytes %.0f rings %d time_s %.9e algbw_GBps %.4f busbw_GBps %.4f\n", n, bytes,
         n > 1 ? job->rings.nrings : 0, t, algbw, algbw * 2.0 * (n - 1) / n);
  status = 0;
done:
  ss_job_free(job);
  ss_platform_free(p);
  free(end_s);
  free(cfg);
  return status;
}
