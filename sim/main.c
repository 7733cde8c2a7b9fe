/* main: the stash-sim command: simulate one training job and report where the time goes. */
#define _DEFAULT_SOURCE /* strndup */
#include "catalog.h"
#include "category.h"
#include "cleanup.h"
#include "cli.h"
#include "engine.h"
#include "inputs.h"
#include "names.h"
#include "outfile.h"
#include "derive.h"
#include "planout.h"
#include "platform.h"
#include "report.h"
#include "runs.h"
#include "shard.h"
#include "simcfg.h"
#include "stash.h"
#include "estimate.h"
#include "transport.h"
#include "tuner.h"
#include "workload.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The platform as the options make it: --no-nvlink, NCCL's transports (transport.h). */
static int prepare(ss_platform* p, const ss_options* o, ss_err* err)
{
  return ss_transport_prepare(p, o) ? ss_err_nomem(err) : SS_OK;
}

/* Print err's line; returns the exit status of its kind. */
static int fail(const ss_err* err)
{
  char line[2048];
  ss_err_format(err, line, sizeof(line));
  fprintf(stderr, "%s\n", line);
  return ss_err_exit_code(err);
}

/* The registry's rule again, on the job: an option given whose effect the instance file takes away
 * (its network's transport, its NIC) is refused, naming the file; 0 when each has an effect. Of
 * the needs, only those in asked are checked (the others are had). */
static int effect_gate(const ss_job* j, const ss_optset* given, unsigned asked)
{
  char net[128], why[768];
  unsigned had = ss_job_needs_had(j, net, sizeof(net)) | ~asked;
  int rc = ss_options_effect(given, had, net, why, sizeof(why));
  if (!rc && ss_optset_has(given, "no-nvls") && (asked & SS_NEEDS_MECH) && ss_job_nvls_lacks(j, net, sizeof(net))) {
    snprintf(why, sizeof(why), "--no-nvls has no effect: %s (NCCL runs no NVLS here)", net);
    rc = -1;
  }
  /* --nccl-version on one instance (no dedicated parameter servers): NCCL's release decides there only
   * whether and how it runs NVLS, on an NVSwitch of Hopper or later. */
  if (!rc && ss_optset_has(given, "nccl-version") && !(had & SS_NEEDS_NET)) {
    ss_job latest = *j;
    latest.opt.nccl_version = SS_NCCL_LATEST;
    if (ss_job_nvls_lacks(&latest, net, sizeof(net))) {
      snprintf(why, sizeof(why),
               "--nccl-version has no effect on one instance here: %s (the release decides only NVLS there); give "
               "--instances N",
               net);
      rc = -1;
    }
  }
  char ofi[256];
  if (!rc && ss_optset_has(given, "no-ofi-tuner") && (asked & SS_NEEDS_MECH) &&
      ss_tuner_ofi_lacks(j, ofi, sizeof(ofi))) {
    snprintf(why, sizeof(why), "--no-ofi-tuner has no effect: %s (aws-ofi-nccl's tuner does not choose here)", ofi);
    rc = -1;
  }
  if (!rc)
    return 0;
  ss_err err;
  ss_err_clear(&err);
  ss_err_set(&err, j->platform->path, 0, "%s", why);
  return fail(&err);
}

/* SimGrid refused the pass-through options: a usage error (or the check itself could not run). */
static int cfg_failed(const ss_err* err)
{
  int status = fail(err);
  return err->code == SS_EINPUT ? SS_EXIT_USAGE : status;
}

/* Whether an output path means standard output. */
static int is_stdout(const char* path)
{
  return !path || strcmp(path, "-") == 0;
}

/* A report that could not be written: a resource failure, not bad input. */
static int write_failed(const ss_cli* cli)
{
  fprintf(stderr, "%s: error: cannot write the report: %s\n", is_stdout(cli->opt.output) ? "stdout" : cli->opt.output,
          strerror(errno));
  return SS_EXIT_RESOURCE;
}

/* No output may be an input or another output (links and hard links included): a usage error
 * naming both, before anything is written. The outputs are the registry's SS_FILE_WRITES rows.
 * Returns 0 or the exit status. */
static int check_same_files(const ss_cli* cli, const ss_planner_platform* plats, int nplats)
{
  ss_inputs in = {0};
  if (ss_cli_inputs(cli, plats, nplats, &in)) {
    ss_inputs_free(&in);
    fprintf(stderr, "stash-sim: error: out of memory\n");
    return SS_EXIT_RESOURCE;
  }
  const ss_optdef* out[16];
  const char* path[16];
  int nout = 0, status = 0;
  for (const ss_optdef* d = ss_option_table; d->name; d++) {
    if (d->file != SS_FILE_WRITES || !(d->commands & (unsigned)cli->cmd))
      continue; /* only a path option's field holds a pointer */
    const char* p = *(const char* const*)(const void*)((const char*)&cli->opt + d->offset);
    if (p && nout < 16) {
      out[nout] = d;
      path[nout++] = p;
    }
  }
  for (int k = 0; !status && k < nout; k++) {
    const ss_input* hit = ss_inputs_find(&in, path[k]);
    if (hit) {
      fprintf(stderr, "stash-sim: error: --%s '%s' would overwrite %s '%s' (see --help)\n", out[k]->name, path[k],
              hit->what, hit->path);
      status = SS_EXIT_USAGE;
    }
    for (int l = k + 1; !status && l < nout; l++)
      if (ss_outfile_same(path[l], path[k])) {
        fprintf(stderr, "stash-sim: error: --%s '%s' and --%s '%s' are the same file (see --help)\n", out[l]->name,
                path[l], out[k]->name, path[k]);
        status = SS_EXIT_USAGE;
      }
  }
  ss_inputs_free(&in);
  return status;
}

/* The command's work (sim/estimate.h): with --estimate printed (nothing is simulated, exit 0), else
 * refused beyond --max-minutes. Returns -1 to go on, or the exit status. */
static int work_gate(const ss_cli* cli, const ss_estimate* w, const char* what, const char* hint)
{
  ss_err err;
  ss_err_clear(&err);
  if (cli->opt.estimate)
    return ss_estimate_write(stdout, w, what, cli->opt.max_minutes, cli->opt.format == SS_FORMAT_JSON) || fflush(stdout)
               ? write_failed(cli)
               : SS_EXIT_OK;
  return ss_estimate_check(w, what, hint, cli->opt.max_minutes, &err) ? fail(&err) : -1;
}

/* Whether j shards over one GPU, which shards nothing: said (a usage error), not run as if it did. */
static int shard_alone(const ss_job* j)
{
  if (j->ngpus > 1 || !ss_shard_sharded(j->opt.shard))
    return 0;
  fprintf(stderr,
          "stash-sim: error: --shard %s has no effect on 1 GPU (sharding splits the model's states among the "
          "GPUs): give more GPUs (--gpus, --instances) or drop --shard\n",
          ss_shard_name(j->opt.shard));
  return 1;
}

/* What makes a run's work smaller. */
static const char* run_hint(const ss_job* j)
{
  /* A pipeline's passes grow with its micro-batches: a smaller global batch or larger micro-batches. */
  if (j->mp.on)
    return "fewer micro-batches (a smaller --global-batch or --grad-accum, a larger --micro-batch), fewer "
           "--iterations";
  return j->opt.fidelity == SS_FIDELITY_REFERENCE ? "fewer --iterations, --instances or --gpus, --fidelity fast"
                                                  : "fewer --iterations, --instances or --gpus";
}

/* Open the output of the run (stdout unless --output) as a temporary file that replaces the old
 * one only at close_output: a run that fails or is interrupted leaves it as it was. */
static ss_outfile* open_output(const ss_cli* cli, int* status)
{
  ss_err err;
  ss_err_clear(&err);
  ss_outfile* out = NULL;
  if (ss_outfile_open(cli->opt.output, "report", &out, &err))
    *status = fail(&err);
  return out;
}

/* Put the report in place when status is 0, else drop it; returns the exit status. */
static int close_output(ss_outfile* out, int status)
{
  if (status) {
    ss_outfile_abort(out);
    return status;
  }
  ss_err err;
  ss_err_clear(&err);
  return ss_outfile_commit(out, &err) ? fail(&err) : status;
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
  ss_proto protos[64];
  for (double b = cli->opt.min_bytes; b <= cli->opt.max_bytes && nsizes < 64; b *= 2)
    bytes[nsizes++] = b;
  /* The collective needs no workload beyond its sizes: a one-layer stand-in drives the job (its
   * dataset a sample for each of the most GPUs, so that an epoch is at least one iteration). */
  ss_layer layer = {.name = (char*)"allreduce"};
  ss_workload w = {.path = (char*)"-",
                   .model = (char*)"allreduce",
                   .precision = (char*)"fp32",
                   .batch_per_gpu = 1,
                   .grad_bytes_per_param = 1,
                   .ref_gpu_flops = 1e12,
                   .ref_batch = 1,
                   .nlayers = 1,
                   .layers = &layer,
                   .dataset = {.samples = SS_MAX_GPUS, .bytes_per_sample = 1, .decoded_bytes_per_sample = 1}};
  ss_options o = cli->opt;
  o.synthetic = 1;
  ss_outfile* out = NULL;
  if (ss_platform_load(o.platform_path, &p, &err) || prepare(p, &o, &err) || ss_derive_job(p, &w, &o, &job, &err)) {
    status = fail(&err);
    goto done;
  }
  if (job->ngpus < 2) {
    static const char* const a[] = {"an allreduce", "a reduce-scatter", "an all-gather", "an all-to-all"};
    ss_err_set(&err, p->path, 0, "%s needs 2 GPUs or more; this job has 1 (use --instances)", a[o.bench_op]);
    status = fail(&err);
    goto done;
  }
  if ((status = effect_gate(job, &cli->given, SS_NEEDS_ALL)) != 0)
    goto done;
  status = 1;
  if (ss_simcfg_check(job, cli->ncfg, cli->cfg, &err)) {
    status = cfg_failed(&err);
    goto done;
  }
  ss_estimate work = {0};
  ss_estimate_add_bench(&work, job, nsizes, bytes, cli->opt.bench_iters);
  int gate = work_gate(cli, &work, "this benchmark",
                       "fewer --iters, sizes (--min-bytes to --max-bytes) or GPUs (--instances, --gpus)");
  if (gate >= 0) {
    status = gate;
    goto done;
  }
  if (!(out = open_output(cli, &status)))
    goto done;
  if (ss_engine_allreduce(job, cli->ncfg, cli->cfg, nsizes, bytes, cli->opt.bench_iters, time_s, algs, protos, &err)) {
    status = fail(&err);
    goto done;
  }
  FILE* f = ss_outfile_stream(out);
  status = ss_report_bench(f, job, nsizes, bytes, time_s, algs, protos, cli->opt.format) ? write_failed(cli)
                                                                                         : SS_EXIT_OK;
done:
  if (out)
    status = close_output(out, status);
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
  ss_outfile* out = NULL;
  int status = 1;
  const ss_options* o[2] = {&cli->opt, &cli->changed};
  if (ss_workload_load(cli->opt.workload_path, &w, &err)) {
    status = fail(&err);
    goto done;
  }
  for (int k = 0; k < 2; k++)
    if (ss_platform_load(o[k]->platform_path, &p[k], &err) || prepare(p[k], o[k], &err) ||
        ss_derive_job(p[k], w, o[k], &job[k], &err)) {
      status = fail(&err);
      goto done;
    }
  if (shard_alone(job[0]) || shard_alone(job[1])) {
    status = SS_EXIT_USAGE;
    goto done;
  }
  /* The changed configuration: its changes in full; the base's options only against its instance
   * file (a base option the changes make moot is what the what-if asks about). */
  unsigned file_needs = SS_NEEDS_SOCKET | SS_NEEDS_TCP;
  if ((status = effect_gate(job[0], &cli->given, SS_NEEDS_ALL)) != 0 ||
      (status = effect_gate(job[1], &cli->changes_given, SS_NEEDS_ALL)) != 0 ||
      (status = effect_gate(job[1], &cli->given, file_needs)) != 0)
    goto done;
  status = 1;
  if (ss_simcfg_check(job[0], cli->ncfg, cli->cfg, &err)) {
    status = cfg_failed(&err);
    goto done;
  }
  ss_estimate work = {0};
  for (int k = 0; k < 2; k++)
    ss_estimate_add_run(&work, job[k]);
  int gate = work_gate(cli, &work, "this whatif", run_hint(job[0]));
  if (gate >= 0) {
    status = gate;
    goto done;
  }
  if (!(out = open_output(cli, &status)))
    goto done;
  ss_breakdown bd[2];
  double sim_s[2];
  static const char* const names[2] = {"the base configuration", "the changed configuration"};
  const ss_job* jobs[2] = {job[0], job[1]};
  if (ss_runs_all(jobs, names, 2, cli->ncfg, cli->cfg, bd, sim_s, &err)) {
    status = fail(&err);
    goto done;
  }
  ss_result res[2];
  for (int k = 0; k < 2; k++)
    if (ss_result_from_breakdown(job[k], &bd[k], sim_s[k], &res[k], &err)) {
      status = fail(&err);
      goto done;
    }
  FILE* f = ss_outfile_stream(out);
  status = ss_report_whatif(f, &res[0], &res[1], (const char* const*)cli->changes, cli->nchanges, cli->opt.format)
               ? write_failed(cli)
               : SS_EXIT_OK;
done:
  if (out)
    status = close_output(out, status);
  for (int k = 0; k < 2; k++) {
    ss_job_free(job[k]);
    ss_platform_free(p[k]);
  }
  ss_workload_free(w);
  return status;
}

/* The instance types of a plan: --platforms (short names or paths separated by commas, or a folder:
 * its *.xml sorted by name), or every instance file of the catalogue. names and paths are owned by
 * *strings (free each, then the array). */
static int plan_platforms(const ss_options* o, ss_catalog* cat, ss_planner_platform** out, int* n, char*** strings,
                          int* nstrings, ss_err* err)
{
  ss_catalog_entry* e = NULL;
  int ne = 0;
  *n = *nstrings = 0;
  ss_names files = {0};
  struct stat st;
  int rc = SS_OK;
  if (!o->plan_platforms) {
    rc = ss_catalog_entries(cat, SS_CATALOG_PLATFORM, &e, &ne, err);
  } else if (stat(o->plan_platforms, &st) == 0 && S_ISDIR(st.st_mode)) {
    if (access(o->plan_platforms, R_OK | X_OK))
      return ss_err_set(err, o->plan_platforms, 0, "cannot read the folder of --platforms: %s", strerror(errno));
    rc = ss_catalog_folder(o->plan_platforms, SS_CATALOG_PLATFORM, &e, &ne, err);
    if (!rc && ne == 0)
      rc = ss_err_set(err, o->plan_platforms, 0, "--platforms: the folder holds no instance file (*.xml)");
  } else {
    const char* s = o->plan_platforms;
    for (;;) {
      size_t len = strcspn(s, ",");
      ss_catalog_entry* more = realloc(e, sizeof(*e) * (size_t)(ne + 1));
      if (!more) {
        rc = ss_err_nomem(err);
        break;
      }
      e = more;
      e[ne].name = strndup(s, len);
      e[ne].path = NULL;
      ne++;
      if (!e[ne - 1].name) {
        rc = ss_err_nomem(err);
        break;
      }
      if (len == 0) {
        rc = ss_err_set(err, NULL, 0, "--platforms expects instance types separated by commas, got '%s'",
                        o->plan_platforms);
        break;
      }
      const char* path = e[ne - 1].name;
      if (ss_catalog_resolve(cat, SS_CATALOG_PLATFORM, &path, err) || !(e[ne - 1].path = strdup(path))) {
        rc = ss_err_isset(err) ? SS_EINPUT : ss_err_nomem(err);
        break;
      }
      /* Each instance file once (a second would be simulated and ranked twice): a set of their
       * device and inode, linear in the list; the first name of a file named again is looked up
       * then, once. */
      struct stat f;
      if (stat(path, &f) == 0) {
        char key[64];
        snprintf(key, sizeof(key), "%ju:%ju", (uintmax_t)f.st_dev, (uintmax_t)f.st_ino);
        int added = 0;
        if (ss_names_add(&files, key, &added) < 0) {
          rc = ss_err_nomem(err);
          break;
        }
        for (int k = 0; !added && !rc && k < ne - 1; k++)
          if (ss_outfile_same(e[k].path, path))
            rc = ss_err_set(err, NULL, 0, "--platforms names the instance file %s twice ('%s' and '%s')", path,
                            e[k].name, e[ne - 1].name);
        if (rc)
          break;
      }
      if (!s[len])
        break;
      s += len + 1;
    }
  }
  ss_names_free(&files);
  *out = rc ? NULL : calloc((size_t)ne + 1, sizeof(ss_planner_platform));
  *strings = calloc(2 * (size_t)ne + 1, sizeof(char*));
  if (!rc && (!*out || !*strings))
    rc = ss_err_nomem(err);
  for (int i = 0; i < ne; i++) {
    if (*strings) {
      (*strings)[(*nstrings)++] = e[i].name;
      (*strings)[(*nstrings)++] = e[i].path;
    }
    if (!rc)
      (*out)[i] = (ss_planner_platform){e[i].name, e[i].path};
  }
  if (!*strings)
    ss_catalog_entries_free(e, ne);
  else
    free(e);
  *n = rc ? 0 : ne;
  return rc;
}

/* stash-sim plan WORKLOAD: every configuration simulated over the instance types plats, ranked. */
static int plan_main(const ss_cli* cli, const ss_planner_platform* plats, int nplats)
{
  ss_err err;
  ss_err_clear(&err);
  int status;
  ss_planner plan;
  memset(&plan, 0, sizeof(plan));
  ss_outfile* out = NULL;
  /* gnuplot is checked first: a plan is not simulated for a plot that cannot be drawn. */
  if ((cli->opt.plan_plot && ss_planout_plot_ready(&err)) ||
      ss_planner_run(plats, nplats, &cli->opt, cli->ncfg, cli->cfg, isatty(STDERR_FILENO), &plan, &err)) {
    status = plan.cfg_refused ? cfg_failed(&err) : fail(&err);
  } else if (plan.estimated_only) {
    char what[96];
    snprintf(what, sizeof(what), "this plan's simulations (the screen's best %ld of %d configurations)", plan.work.runs,
             plan.screened);
    status = work_gate(cli, &plan.work, what, NULL);
  } else if (plan.nrows == 0 && plan.failed > 0 && plan.over_budget == 0 && plan.over_deadline == 0) {
    /* Nothing could be ranked, and not for a budget or a deadline: an error, not an empty ranking. */
    fprintf(stderr, "stash-sim: error: no configuration could be simulated: all %d failed (the first: %s)\n",
            plan.failed, plan.failed_first.msg);
    status = ss_err_exit_code(&plan.failed_first);
  } else if (!(out = open_output(cli, &status))) {
  } else {
    status = ss_planout_write(ss_outfile_stream(out), &plan, cli->opt.format) ? write_failed(cli) : SS_EXIT_OK;
    status = close_output(out, status);
    /* The plot after the report: a plot that fails leaves the report written (exit 3). */
    if (!status && cli->opt.plan_plot && ss_planout_plot(&plan, cli->opt.plan_plot, &err))
      status = fail(&err);
  }
  ss_planner_free(&plan);
  return status;
}

/* stash-sim list platforms|workloads: the catalogue on the search path; list categories: the
 * categories of an iteration's time (sim/category.h), which the scripts read. */
static int list_main(const ss_cli* cli, const ss_catalog* cat)
{
  ss_err err;
  ss_err_clear(&err);
  ss_catalog_kind kind = strcmp(cli->list_what, "platforms") == 0 ? SS_CATALOG_PLATFORM : SS_CATALOG_WORKLOAD;
  int rc = strcmp(cli->list_what, "categories") == 0 ? ss_category_list(stdout, cli->opt.format)
                                                     : ss_catalog_list(cat, kind, cli->opt.format, stdout, &err);
  if (rc == SS_ENOMEM)
    ss_err_nomem(&err);
  if (rc == SS_EIO || fflush(stdout))
    return write_failed(cli);
  return rc ? fail(&err) : SS_EXIT_OK;
}

int main(int argc, char** argv)
{
  ss_cleanup_signals("stash-sim");
  ss_cli cli;
  char msg[1024];
  int parsed = ss_cli_parse(argc, argv, &cli, msg, sizeof(msg));
  if (parsed) {
    fprintf(stderr, "%s\n", msg);
    ss_cli_free(&cli);
    return parsed;
  }
  if (cli.help || cli.version || cli.list_options) {
    ss_catalog* cat = NULL;
    if (cli.help)
      ss_option_help(stdout, cli.cmd);
    if (cli.help && cli.cmd == SS_CMD_LIST && ss_catalog_new(&cat, NULL) == SS_OK)
      ss_catalog_write_dirs(cat, stdout);
    ss_catalog_free(cat);
    if (cli.version && !cli.help)
      printf("stash-sim %s\n", SS_VERSION);
    else if (!cli.help)
      ss_option_list(stdout, cli.opt.format);
    int status = SS_EXIT_OK;
    if (fflush(stdout) || ferror(stdout)) {
      fprintf(stderr, "stdout: error: cannot write the %s: %s\n",
              cli.help      ? "help"
              : cli.version ? "version"
                            : "list of options",
              strerror(errno ? errno : EIO));
      status = SS_EXIT_RESOURCE;
    }
    ss_cli_free(&cli);
    return status;
  }
  /* Short names (p3.16xl, resnet50) to files; the catalog owns the paths it hands out. */
  ss_catalog* cat = NULL;
  ss_err cerr;
  ss_err_clear(&cerr);
  if (ss_catalog_new(&cat, &cerr) || ss_catalog_resolve(cat, SS_CATALOG_PLATFORM, &cli.opt.platform_path, &cerr) ||
      ss_catalog_resolve(cat, SS_CATALOG_WORKLOAD, &cli.opt.workload_path, &cerr) ||
      ss_catalog_resolve(cat, SS_CATALOG_PLATFORM, &cli.changed.platform_path, &cerr) ||
      ss_catalog_resolve(cat, SS_CATALOG_PLATFORM, &cli.opt.stash_single, &cerr)) {
    ss_catalog_free(cat);
    ss_cli_free(&cli);
    return fail(&cerr);
  }
  /* A plan's instance files are inputs too: resolved before the same-file check. */
  ss_planner_platform* plats = NULL;
  char** strings = NULL;
  int nplats = 0, nstrings = 0;
  int same = cli.cmd == SS_CMD_PLAN && plan_platforms(&cli.opt, cat, &plats, &nplats, &strings, &nstrings, &cerr)
                 ? fail(&cerr)
             : cli.cmd == SS_CMD_LIST ? 0
                                      : check_same_files(&cli, plats, nplats);
  if (!same && cli.cmd != SS_CMD_RUN)
    same = cli.cmd == SS_CMD_BENCH    ? bench_main(&cli)
           : cli.cmd == SS_CMD_WHATIF ? whatif_main(&cli)
           : cli.cmd == SS_CMD_PLAN   ? plan_main(&cli, plats, nplats)
                                      : list_main(&cli, cat);
  for (int i = 0; i < nstrings; i++)
    free(strings[i]);
  free(strings);
  free(plats);
  if (same || cli.cmd != SS_CMD_RUN) {
    ss_catalog_free(cat);
    ss_cli_free(&cli);
    return same;
  }
  ss_err err;
  ss_err_clear(&err);
  ss_platform* p = NULL;
  ss_workload* w = NULL;
  ss_job* job = NULL;
  ss_stash* stash = NULL;
  ss_timeline* tl = NULL;
  ss_outfile* out = NULL;
  int status = 1;
  double simulated_s = 0;
  if (ss_platform_load(cli.opt.platform_path, &p, &err) || prepare(p, &cli.opt, &err) ||
      ss_workload_load(cli.opt.workload_path, &w, &err) ||
      (cli.opt.stash ? ss_stash_plan(p, w, &cli.opt, &cli.given, cli.opt.stash_single, &stash, &err)
                     : ss_derive_job(p, w, &cli.opt, &job, &err))) {
    status = fail(&err);
    goto done;
  }
  const ss_job* main_job = stash ? stash->job[SS_RUN2] : job;
  if (shard_alone(main_job)) {
    status = SS_EXIT_USAGE;
    goto done;
  }
  if (!stash && (status = effect_gate(job, &cli.given, SS_NEEDS_ALL)) != 0)
    goto done;
  status = 1;
  if (ss_simcfg_check(main_job, cli.ncfg, cli.cfg, &err)) {
    status = cfg_failed(&err);
    goto done;
  }
  ss_estimate work = {0};
  if (!stash)
    ss_estimate_add_run(&work, job);
  for (int k = 0; stash && k < SS_RUN_COUNT; k++)
    if (stash->job[k])
      ss_estimate_add_run(&work, stash->job[k]);
  int gate = work_gate(&cli, &work, stash ? "this Stash study" : "this run", run_hint(main_job));
  if (gate >= 0) {
    status = gate;
    goto done;
  }
  if (!(out = open_output(&cli, &status)))
    goto done;
  ss_result res;
  if (stash) {
    if (ss_stash_run(stash, cli.ncfg, cli.cfg, &err)) {
      status = fail(&err);
      goto done;
    }
    if (ss_result_from_breakdown(main_job, &stash->bd[SS_RUN2], stash->simulated_s[SS_RUN2], &res, &err)) {
      status = fail(&err);
      goto done;
    }
    res.stash = stash;
  } else {
    if (ss_engine_run(job, cli.ncfg, cli.cfg, &tl, &simulated_s, &err)) {
      status = fail(&err);
      goto done;
    }
    if (ss_result_compute(job, tl, simulated_s, &res, &err)) {
      status = fail(&err);
      goto done;
    }
  }
  status = ss_report_write(ss_outfile_stream(out), &res, cli.opt.format) ? write_failed(&cli) : SS_EXIT_OK;
done:
  if (out)
    status = close_output(out, status);
  ss_timeline_free(tl);
  ss_job_free(job);
  ss_stash_free(stash);
  ss_workload_free(w);
  ss_platform_free(p);
  ss_catalog_free(cat);
  ss_cli_free(&cli);
  return status;
}
