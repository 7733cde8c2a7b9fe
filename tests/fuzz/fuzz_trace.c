/* fuzz_trace: libFuzzer target of stash-calibrate trace (calibration/cal_trace.c, with its reader
 * cal_kineto.c and its analysis cal_profile.c), run as the command line runs it: any bytes as the
 * trace must give a workload that stash-sim reads, or exit status 1 with one error line; never a
 * crash, a leak or unbounded memory. */
#include "cal.h"
#include "fuzz_input.h"
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  static fuzz_file in, out;
  fuzz_file_set(&in, data, size);
  fuzz_file_set(&out, NULL, 0);
  static char cmd[] = "trace", opt_o[] = "-o", opt_samples[] = "--samples", samples[] = "1000";
  char* argv[] = {cmd, in.path, opt_o, out.path, opt_samples, samples, NULL};
  int status = cal_trace_main(6, argv);
  if (status != 0 && status != 1) {
    fprintf(stderr, "fuzz: stash-calibrate trace exited %d\n", status);
    abort();
  }
  if (status == 0) {
    /* What it wrote must be a workload the simulator accepts. */
    ss_err err;
    ss_err_clear(&err);
    ss_workload* w = NULL;
    if (ss_workload_load(out.path, &w, &err) != SS_OK) {
      char line[2048];
      ss_err_format(&err, line, sizeof(line));
      fprintf(stderr, "fuzz: stash-calibrate trace wrote a workload stash-sim rejects: %s\n", line);
      abort();
    }
    ss_workload_free(w);
  }
  return 0;
}
