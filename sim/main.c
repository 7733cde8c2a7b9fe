/* main: the stash-sim command: simulate one training job and report where the time goes. */
#include "cli.h"
#include "engine.h"
#include "job.h"
#include "platform.h"
#include "report.h"
#include "workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Whether paths a and b name the same existing file. */
static int same_file(const char* a, const char* b)
{
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int fail(const ss_err* err)
{
  char line[2048];
  ss_err_format(err, line, sizeof(line));
  fprintf(stderr, "%s\n", line);
  return 1;
}

int main(int argc, char** argv)
{
  ss_cli cli;
  char msg[1024];
  if (ss_cli_parse(argc, argv, &cli, msg, sizeof(msg))) {
    fprintf(stderr, "%s\n", msg);
    ss_cli_free(&cli);
    return 2;
  }
  if (cli.help || cli.version) {
    if (cli.help)
      ss_cli_usage(stdout);
    else
      printf("stash-sim %s\n", SS_VERSION);
    ss_cli_free(&cli);
    return 0;
  }
  ss_err err;
  ss_err_clear(&err);
  ss_platform* p = NULL;
  ss_workload* w = NULL;
  ss_job* job = NULL;
  ss_timeline* tl = NULL;
  FILE* out = stdout;
  int status = 1;
  double simulated_s = 0;
  if (ss_platform_load(cli.opt.platform_path, &p, &err) || ss_workload_load(cli.opt.workload_path, &w, &err) ||
      ss_job_new(p, w, &cli.opt, &job, &err)) {
    status = fail(&err);
    goto done;
  }
  if (ss_engine_check_cfg(job, cli.ncfg, cli.cfg, &err)) {
    fail(&err);
    status = 2;
    goto done;
  }
  if (cli.opt.output &&
      (same_file(cli.opt.output, cli.opt.platform_path) || same_file(cli.opt.output, cli.opt.workload_path))) {
    fprintf(stderr, "%s: error: the report would overwrite an input file\n", cli.opt.output);
    goto done;
  }
  if (cli.opt.output && !(out = fopen(cli.opt.output, "w"))) {
    fprintf(stderr, "%s: error: cannot write the report: %s\n", cli.opt.output, strerror(errno));
    out = stdout;
    goto done;
  }
  if (ss_engine_run(job, cli.ncfg, cli.cfg, &tl, &simulated_s, &err)) {
    status = fail(&err);
    goto done;
  }
  ss_result res;
  ss_result_compute(job, tl, simulated_s, &res);
  if (ss_report_write(out, &res, cli.opt.format) || fflush(out)) {
    fprintf(stderr, "%s: error: cannot write the report: %s\n", cli.opt.output ? cli.opt.output : "stdout",
            strerror(errno));
    goto done;
  }
  status = 0;
done:
  if (out != stdout && fclose(out) && status == 0) {
    fprintf(stderr, "%s: error: cannot write the report: %s\n", cli.opt.output, strerror(errno));
    status = 1;
  }
  ss_timeline_free(tl);
  ss_job_free(job);
  ss_workload_free(w);
  ss_platform_free(p);
  ss_cli_free(&cli);
  return status;
}
