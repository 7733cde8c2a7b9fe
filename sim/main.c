/* main: the stash-sim command: simulate one training job and report where the time goes. */
#include "catalog.h"
#include "cli.h"
#include "engine.h"
#include "job.h"
#include "platform.h"
#include "report.h"
#include "stash.h"
#include "workload.h"

#include <errno.h>
#include <math.h>
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

/* --no-nvlink: reroute the platform's GPU pairs over PCIe. */
static int no_nvlink(ss_platform* p, ss_err* err)
{
  return ss_platform_drop_nvlink(p) ? ss_err_set(err, NULL, 0, "out of memory") : SS_OK;
}

static int fail(const ss_err* err)
{
  char line[2048];
  ss_err_format(err, line, sizeof(line));
  fprintf(stderr, "%s\n", line);
  return 1;
}

/* Open the output of the run (stdout unless --output); prints why on failure. */
static FILE* open_output(const ss_cli* cli)
{
  if (!cli->opt.output)
    return stdout;
  if (same_file(cli->opt.output, cli->opt.platform_path) ||
      (cli->opt.workload_path && same_file(cli->opt.output, cli->opt.workload_path))) {
    fprintf(stderr, "%s: error: the report would overwrite an input file\n", cli->opt.output);
    return NULL;
  }
  FILE* out = fopen(cli->opt.output, "w");
  if (!out)
    fprintf(stderr, "%s: error: cannot write the report: %s\n", cli->opt.output, strerror(errno));
  return out;
}

static int close_output(const ss_cli* cli, FILE* out, int status)
{
  int bad = out != stdout ? fclose(out) : fflush(out);
  if (bad && status == 0) {
    fprintf(stderr, "%s: error: cannot write the report: %s\n", cli->opt.output ? cli->opt.output : "stdout",
            strerror(errno));
    return 1;
  }
  return status;
}

static void bench_write(FILE* out, const ss_cli* cli, const ss_job* job, int nsizes, const double* bytes,
                        const double* time_s, const ss_allreduce* algs)
{
  int n = job->ngpus;
  ss_format fmt = cli->opt.format;
  const char* fid = ss_fidelity_name(job->opt.fidelity);
  if (fmt == SS_FORMAT_TABLE) {
    fprintf(out, "# stash-sim bench allreduce: %s x %d, %d GPUs (%d per instance), float sum, fidelity %s\n",
            job->platform->instance_type, job->instances, n, job->gpus_per_instance, fid);
    fprintf(out, "# busbw = algbw x 2(n-1)/n (nccl-tests)\n");
    fprintf(out, "#%14s %12s %13s %12s %11s %11s\n", "size(B)", "count", "algorithm", "time(us)", "algbw(GB/s)",
            "busbw(GB/s)");
  } else if (fmt == SS_FORMAT_CSV) {
    fprintf(out, "instance,instances,gpus,fidelity,size_bytes,count,algorithm,time_s,algbw_GBps,busbw_GBps\n");
  } else {
    fprintf(out, "{\n  \"instance\": \"%s\",\n  \"instances\": %d,\n  \"gpus\": %d,\n  \"fidelity\": \"%s\",\n"
                 "  \"results\": [",
            job->platform->instance_type, job->instances, n, fid);
  }
  for (int k = 0; k < nsizes; k++) {
    double t = time_s[k];
    double algbw = t > 0 ? bytes[k] / t / 1e9 : 0;
    double busbw = algbw * 2.0 * (n - 1) / n;
    const char* alg = n > 1 ? ss_allreduce_name(algs[k]) : "none";
    if (fmt == SS_FORMAT_TABLE)
      fprintf(out, " %14.0f %12.0f %13s %12.2f %11.2f %11.2f\n", bytes[k], floor(bytes[k] / 4), alg, t * 1e6, algbw,
              busbw);
    else if (fmt == SS_FORMAT_CSV)
      fprintf(out, "%s,%d,%d,%s,%.0f,%.0f,%s,%.9e,%.6f,%.6f\n", job->platform->instance_type, job->instances, n, fid,
              bytes[k], floor(bytes[k] / 4), alg, t, algbw, busbw);
    else
      fprintf(out, "%s\n    {\"size_bytes\": %.0f, \"algorithm\": \"%s\", \"time_s\": %.9e, \"algbw_GBps\": %.6f, "
                   "\"busbw_GBps\": %.6f}",
              k ? "," : "", bytes[k], alg, t, algbw, busbw);
  }
  if (fmt == SS_FORMAT_JSON)
    fprintf(out, "\n  ]\n}\n");
}

/* stash-sim bench allreduce: sizes from min to max, doubling, in one simulation. */
static int bench_main(const ss_cli* cli)
{
  ss_err err;
  ss_err_clear(&err);
  ss_platform* p = NULL;
  ss_job* job = NULL;
  int status = 1;
  int nsizes = 0;
  double bytes[64], time_s[64];
  ss_allreduce algs[64];
  for (double b = cli->min_bytes; b <= cli->max_bytes && nsizes < 64; b *= 2)
    bytes[nsizes++] = b;
  /* The collective needs no workload beyond its sizes: a one-layer stand-in drives the job. */
  ss_layer layer = {(char*)"allreduce", 0, 0, 0};
  ss_workload w = {.path = (char*)"-", .model = (char*)"allreduce", .batch_per_gpu = 1, .grad_bytes_per_param = 1,
                   .ref_gpu_flops = 1e12, .ref_batch = 1, .nlayers = 1, .layers = &layer,
                   .dataset = {.samples = 1, .bytes_per_sample = 1, .decoded_bytes_per_sample = 1}};
  ss_options o = cli->opt;
  o.synthetic = 1;
  FILE* out = NULL;
  if (ss_platform_load(o.platform_path, &p, &err) || (o.no_nvlink && no_nvlink(p, &err)) ||
      ss_job_new(p, &w, &o, &job, &err)) {
    status = fail(&err);
    goto done;
  }
  if (job->ngpus < 2) {
    ss_err_set(&err, p->path, 0, "an allreduce needs 2 GPUs or more; this job has 1 (use --instances)");
    status = fail(&err);
    goto done;
  }
  if (ss_engine_check_cfg(job, cli->ncfg, cli->cfg, &err)) {
    fail(&err);
    status = 2;
    goto done;
  }
  if (!(out = open_output(cli)))
    goto done;
  if (ss_engine_allreduce(job, cli->ncfg, cli->cfg, nsizes, bytes, cli->bench_iters, time_s, algs, &err)) {
    status = fail(&err);
    goto done;
  }
  bench_write(out, cli, job, nsizes, bytes, time_s, algs);
  status = 0;
done:
  if (out)
    status = close_output(cli, out, status);
  ss_job_free(job);
  ss_platform_free(p);
  return status;
}

/* stash-sim whatif: the base and the changed configuration, each simulated in a process of its
 * own, then how the iteration and each of its parts moved. */
static int whatif_main(const ss_cli* cli)
{
  ss_err err;
  ss_err_clear(&err);
  ss_platform* p[2] = {NULL, NULL};
  ss_workload* w = NULL;
  ss_job* job[2] = {NULL, NULL};
  FILE* out = NULL;
  int status = 1;
  const ss_options* o[2] = {&cli->opt, &cli->changed};
  if (ss_workload_load(cli->opt.workload_path, &w, &err)) {
    status = fail(&err);
    goto done;
  }
  for (int k = 0; k < 2; k++)
    if (ss_platform_load(o[k]->platform_path, &p[k], &err) || (o[k]->no_nvlink && no_nvlink(p[k], &err)) ||
        ss_job_new(p[k], w, o[k], &job[k], &err)) {
      status = fail(&err);
      goto done;
    }
  if (ss_engine_check_cfg(job[0], cli->ncfg, cli->cfg, &err)) {
    fail(&err);
    status = 2;
    goto done;
  }
  if (!(out = open_output(cli)))
    goto done;
  ss_breakdown bd[2];
  double sim_s[2];
  static const char* const names[2] = {"the base configuration", "the changed configuration"};
  const ss_job* jobs[2] = {job[0], job[1]};
  if (ss_engine_run_forked(jobs, names, 2, cli->ncfg, cli->cfg, bd, sim_s, &err)) {
    status = fail(&err);
    goto done;
  }
  ss_result res[2];
  for (int k = 0; k < 2; k++)
    ss_result_from_breakdown(job[k], &bd[k], sim_s[k], &res[k]);
  if (ss_report_whatif(out, &res[0], &res[1], (const char* const*)cli->changes, cli->nchanges, cli->opt.format)) {
    fprintf(stderr, "%s: error: cannot write the report: %s\n", cli->opt.output ? cli->opt.output : "stdout",
            strerror(errno));
    goto done;
  }
  status = 0;
done:
  if (out)
    status = close_output(cli, out, status);
  for (int k = 0; k < 2; k++) {
    ss_job_free(job[k]);
    ss_platform_free(p[k]);
  }
  ss_workload_free(w);
  return status;
}

int main(int argc, char** argv)
{
  ss_cli cli;
  char msg[1024];
  if (argc > 1 && strcmp(argv[1], "list") == 0) {
    int rc = ss_catalog_command(argc, argv, stdout, msg, sizeof(msg));
    if (rc)
      fprintf(stderr, "%s\n", msg);
    return rc;
  }
  if (ss_cli_parse(argc, argv, &cli, msg, sizeof(msg))) {
    fprintf(stderr, "%s\n", msg);
    ss_cli_free(&cli);
    return 2;
  }
  if (cli.help || cli.version) {
    if (cli.help)
      ss_cli_usage(stdout, cli.whatif ? 2 : cli.bench);
    else
      printf("stash-sim %s\n", SS_VERSION);
    ss_cli_free(&cli);
    return 0;
  }
  /* Short names (p3.16xl, resnet50) to files; the catalog owns the paths it hands out. */
  ss_catalog* cat = NULL;
  ss_err cerr;
  ss_err_clear(&cerr);
  if (ss_catalog_new(&cat, &cerr) || ss_catalog_resolve(cat, SS_CATALOG_PLATFORM, &cli.opt.platform_path, &cerr) ||
      ss_catalog_resolve(cat, SS_CATALOG_WORKLOAD, &cli.opt.workload_path, &cerr) ||
      ss_catalog_resolve(cat, SS_CATALOG_PLATFORM, &cli.changed.platform_path, &cerr) ||
      ss_catalog_resolve(cat, SS_CATALOG_PLATFORM, &cli.stash_single, &cerr)) {
    ss_catalog_free(cat);
    ss_cli_free(&cli);
    return fail(&cerr);
  }
  if (cli.bench || cli.whatif) {
    int status = cli.bench ? bench_main(&cli) : whatif_main(&cli);
    ss_catalog_free(cat);
    ss_cli_free(&cli);
    return status;
  }
  ss_err err;
  ss_err_clear(&err);
  ss_platform* p = NULL;
  ss_workload* w = NULL;
  ss_job* job = NULL;
  ss_stash* stash = NULL;
  ss_timeline* tl = NULL;
  FILE* out = NULL;
  int status = 1;
  double simulated_s = 0;
  if (ss_platform_load(cli.opt.platform_path, &p, &err) || (cli.opt.no_nvlink && no_nvlink(p, &err)) ||
      ss_workload_load(cli.opt.workload_path, &w, &err) ||
      (cli.stash ? ss_stash_plan(p, w, &cli.opt, cli.stash_single, &stash, &err)
                 : ss_job_new(p, w, &cli.opt, &job, &err))) {
    status = fail(&err);
    goto done;
  }
  const ss_job* main_job = stash ? stash->job[SS_RUN2] : job;
  if (ss_engine_check_cfg(main_job, cli.ncfg, cli.cfg, &err)) {
    fail(&err);
    status = 2;
    goto done;
  }
  if (!(out = open_output(&cli)))
    goto done;
  ss_result res;
  if (stash) {
    if (ss_stash_run(stash, cli.ncfg, cli.cfg, &err)) {
      status = fail(&err);
      goto done;
    }
    ss_result_from_breakdown(main_job, &stash->bd[SS_RUN2], stash->simulated_s[SS_RUN2], &res);
    res.stash = stash;
  } else {
    if (ss_engine_run(job, cli.ncfg, cli.cfg, &tl, &simulated_s, &err)) {
      status = fail(&err);
      goto done;
    }
    ss_result_compute(job, tl, simulated_s, &res);
  }
  if (ss_report_write(out, &res, cli.opt.format)) {
    fprintf(stderr, "%s: error: cannot write the report: %s\n", cli.opt.output ? cli.opt.output : "stdout",
            strerror(errno));
    goto done;
  }
  status = 0;
done:
  if (out)
    status = close_output(&cli, out, status);
  ss_timeline_free(tl);
  ss_job_free(job);
  ss_stash_free(stash);
  ss_workload_free(w);
  ss_platform_free(p);
  ss_catalog_free(cat);
  ss_cli_free(&cli);
  return status;
}
