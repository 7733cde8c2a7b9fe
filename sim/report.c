/* report: the results of a run as a table, JSON or CSV. */
#include "report.h"

#include "cluster.h"

#include "err.h"

#include <math.h>
#include <string.h>

void ss_result_compute(const ss_job* job, const ss_timeline* tl, double simulated_s, ss_result* out)
{
  ss_breakdown bd;
  ss_stall_timeline(tl, job->warmup, job->iterations, &bd);
  ss_result_from_breakdown(job, &bd, simulated_s, out);
  out->tl = tl;
}

/* Worker r's throughput over the measured iterations (samples/s) and the staleness of its pushes. */
static double worker_throughput(const ss_result* r, int rank)
{
  const ss_job* j = r->job;
  const ss_timeline* t = r->tl;
  size_t base = (size_t)rank * (size_t)t->niters;
  double window = t->end_s[base + (size_t)(j->warmup + j->iterations) - 1] - t->start_s[base + (size_t)j->warmup];
  return j->batch / (window / j->iterations); /* as the spread in ss_stall_timeline */
}

static double worker_staleness(const ss_result* r, int rank)
{
  const ss_timeline* t = r->tl;
  return t->rank_updates[rank] ? t->rank_staleness_sum[rank] / (double)t->rank_updates[rank] : 0;
}

/* Asynchronous parameter servers run workers at their own pace: their figures one by one (in the
 * table for at most this many workers, in JSON for all). */
#define SS_REPORT_MAX_WORKER_LINES 64

static int per_worker(const ss_result* r)
{
  return r->tl && r->job->opt.arch == SS_ARCH_PS && r->job->opt.async;
}

void ss_result_from_breakdown(const ss_job* job, const ss_breakdown* bd, double simulated_s, ss_result* out)
{
  memset(out, 0, sizeof(*out));
  out->job = job;
  out->bd = *bd;
  double samples_per_iter = (double)job->batch * job->ngpus;
  out->throughput_samples_per_s = samples_per_iter / out->bd.iteration_s;
  out->epoch_s = job->workload->dataset.samples / out->throughput_samples_per_s;
  out->cost_usd_per_epoch = job->platform->price_usd_per_h * job->instances * out->epoch_s / 3600.0;
  out->simulated_s = simulated_s;
  out->samples = job->opt.samples > 0 ? job->opt.samples : job->workload->dataset.samples;
  out->time_to_train_s = out->bd.init_s + out->samples / out->throughput_samples_per_s;
  /* Workloads have compute (workload.c) and GPUs a speed (platform.c): the iteration takes time. */
  ss_assert(out->bd.iteration_s > 0 && isfinite(out->throughput_samples_per_s) && isfinite(out->cost_usd_per_epoch));
}

static const char* const part_keys[SS_CAT_COUNT] = {"compute_s", "prep_stall_s", "fetch_stall_s",
                                                    "interconnect_stall_s", "network_stall_s"};
static const char* const part_labels[SS_CAT_COUNT] = {"compute", "prep (CPU) stall", "fetch (disk) stall",
                                                      "interconnect stall", "network stall"};

/* Write s as a JSON string. */
static void json_string(FILE* f, const char* s)
{
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(f, "\\u%04x", ch);
    else
      fputc(ch, f);
  }
  fputc('"', f);
}

/* Network of each instance as simulated: Gb/s over all its NICs, latency of a NIC link (us). */
static double nic_gbps(const ss_job* j)
{
  return ss_cluster_nic_bandwidth(j) * 8 / 1e9;
}

static double nic_latency_us(const ss_job* j)
{
  return j->platform->nnics ? ss_cluster_link_latency(j, j->platform->nics[0].link) * 1e6 : 0;
}

/* The "stash" object: run times, differential parts (per iteration), Stash's percentages, shares
 * of RUN2, epoch times and costs of each run, notes. */
static void write_json_stash(FILE* f, const ss_stash* s)
{
  fprintf(f, ",\n  \"stash\": {\n");
  for (int k = 0; k < SS_RUN_COUNT; k++)
    if (s->job[k])
      fprintf(f, "    \"%s_s\": %.17g,\n", ss_stash_run_key((ss_run)k), s->bd[k].iteration_s);
  const ss_job* single = s->job[SS_RUN_SINGLE];
  if (single) {
    fprintf(f, "    \"single_instance\": ");
    json_string(f, single->platform->instance_type);
    fprintf(f, ",\n    \"single_instance_file\": ");
    json_string(f, single->platform->path);
    fprintf(f, ",\n    \"single_instance_gpus\": %d,\n    \"single_instance_same_gpus\": %s,\n", single->ngpus,
            s->single_exact ? "true" : "false");
  }
  for (int d = 0; d < SS_DIFF_COUNT; d++)
    fprintf(f, "    \"%s_s\": %.17g,\n", ss_stash_diff_key((ss_diff)d), s->part_s[d]);
  for (int d = 0; d < SS_DIFF_COUNT; d++)
    fprintf(f, "    \"%s_pct\": %.17g,\n", ss_stash_diff_key((ss_diff)d), s->pct[d]);
  for (int d = 0; d < SS_DIFF_COUNT; d++)
    fprintf(f, "    \"%s_share_pct\": %.17g,\n", ss_stash_diff_key((ss_diff)d),
            100 * s->part_s[d] / s->bd[SS_RUN2].iteration_s);
  fprintf(f, "    \"iterations_per_epoch\": %.17g,\n", s->iterations_per_epoch);
  for (int k = 0; k < SS_RUN_COUNT; k++)
    if (s->job[k])
      fprintf(f, "    \"%s_epoch_s\": %.17g,\n    \"%s_cost_usd_per_epoch\": %.17g,\n", ss_stash_run_key((ss_run)k),
              s->epoch_s[k], ss_stash_run_key((ss_run)k), s->cost_usd_per_epoch[k]);
  fprintf(f, "    \"notes\": [");
  for (int i = 0; i < s->nnotes; i++) {
    fprintf(f, "%s\n      ", i ? "," : "");
    json_string(f, s->notes[i]);
  }
  fprintf(f, "%s]\n  }", s->nnotes ? "\n    " : "");
}

static void write_json(FILE* f, const ss_result* r)
{
  const ss_job* j = r->job;
  fprintf(f, "{\n  \"platform\": ");
  json_string(f, j->platform->instance_type);
  fprintf(f, ",\n  \"platform_file\": ");
  json_string(f, j->platform->path);
  fprintf(f, ",\n  \"workload\": ");
  json_string(f, j->workload->model);
  fprintf(f, ",\n  \"workload_file\": ");
  json_string(f, j->workload->path);
  fprintf(f, ",\n  \"gpu_model\": ");
  json_string(f, j->platform->gpus[0].model);
  fprintf(f, ",\n  \"instances\": %d,\n  \"gpus\": %d,\n  \"batch_per_gpu\": %d,\n", j->instances, j->ngpus, j->batch);
  fprintf(f, "  \"iteration_s\": %.17g,\n  \"throughput_samples_per_s\": %.17g,\n", r->bd.iteration_s,
          r->throughput_samples_per_s);
  fprintf(f, "  \"epoch_s\": %.17g,\n  \"cost_usd_per_epoch\": %.17g,\n  \"price_usd_per_h\": %.17g,\n", r->epoch_s,
          r->cost_usd_per_epoch, j->platform->price_usd_per_h);
  fprintf(f, "  \"breakdown\": {\n");
  for (int c = 0; c < SS_CAT_COUNT; c++)
    fprintf(f, "    \"%s\": %.17g%s\n", part_keys[c], r->bd.part_s[c], c + 1 < SS_CAT_COUNT ? "," : "");
  fprintf(f, "  },\n  \"breakdown_pct\": {\n");
  for (int c = 0; c < SS_CAT_COUNT; c++)
    fprintf(f, "    \"%.*s_pct\": %.17g%s\n", (int)strlen(part_keys[c]) - 2, part_keys[c],
            100 * r->bd.part_s[c] / r->bd.iteration_s, c + 1 < SS_CAT_COUNT ? "," : "");
  fprintf(f, "  },\n  \"first_iteration_s\": %.17g,\n", r->bd.first_iteration_s);
  fprintf(f, "  \"warmup\": %d,\n  \"iterations\": %d,\n  \"synthetic\": %s,\n  \"overlap\": %s,\n", j->warmup,
          j->iterations, j->opt.synthetic ? "true" : "false", j->opt.overlap ? "true" : "false");
  fprintf(f, "  \"async_copy\": %s,\n", j->opt.async_copy ? "true" : "false");
  fprintf(f, "  \"workers_per_gpu\": %d,\n  \"prefetch\": %d,\n  \"cache\": %.17g,\n", j->workers, j->opt.prefetch,
          j->cache);
  fprintf(f, "  \"bucket_mb\": %.17g,\n  \"buckets\": %d,\n  \"rings\": %d,\n", j->opt.bucket_mb, j->nbuckets,
          j->ngpus > 1 ? j->rings.nrings : 0);
  fprintf(f, "  \"allreduce\": \"%s\",\n  \"bucket_algorithms\": [", ss_allreduce_name(j->opt.allreduce));
  for (int b = 0; b < j->nbuckets; b++)
    fprintf(f, "%s\"%s\"", b ? ", " : "", ss_allreduce_name(j->bucket_alg[b]));
  fprintf(f, "],\n  \"fidelity\": \"%s\",\n  \"nic_gbps\": %.17g,\n  \"nic_latency_us\": %.17g,\n  \"oversub\": %.17g,\n",
          ss_fidelity_name(j->opt.fidelity), nic_gbps(j), nic_latency_us(j), j->opt.oversub);
  fprintf(f, "  \"compute_scaling\": \"%s\",\n  \"compute_scale\": %.17g,\n", j->device ? "measured" : "peak_flops",
          j->opt.compute_scale);
  fprintf(f, "  \"arch\": \"%s\",\n  \"nvlink\": %s,\n", ss_arch_name(j->opt.arch), j->opt.no_nvlink ? "false" : "true");
  fprintf(f, "  \"init_io\": \"%s\",\n  \"init_s\": %.17g,\n  \"init_bytes_per_worker\": %.17g,\n",
          ss_init_io_name(j->opt.init_io), r->bd.init_s, j->init_bytes);
  fprintf(f, "  \"samples\": %.17g,\n  \"time_to_train_s\": %.17g,\n", r->samples, r->time_to_train_s);
  if (j->opt.arch == SS_ARCH_PS) {
    fprintf(f, "  \"servers\": %d,\n  \"ps_placement\": \"%s\",\n  \"server_hosts\": %d,\n  \"async\": %s,\n",
            j->opt.servers, ss_placement_name(j->opt.placement), j->ps_hosts, j->opt.async ? "true" : "false");
    fprintf(f, "  \"server_agg_gbps\": %.17g,\n  \"staleness_mean\": %.17g,\n  \"staleness_max\": %.17g,\n",
            j->opt.server_agg_gbps, r->bd.staleness_mean, r->bd.staleness_max);
    fprintf(f, "  \"worker_throughput_min_samples_per_s\": %.17g,\n  \"worker_throughput_max_samples_per_s\": %.17g,\n",
            j->batch / r->bd.rank_iteration_max_s, j->batch / r->bd.rank_iteration_min_s);
    if (per_worker(r)) {
      fprintf(f, "  \"workers\": [");
      for (int w = 0; w < j->ngpus; w++)
        fprintf(f, "%s\n    {\"rank\": %d, \"throughput_samples_per_s\": %.17g, \"staleness_mean\": %.17g}",
                w ? "," : "", w, worker_throughput(r, w), worker_staleness(r, w));
      fprintf(f, "\n  ],\n");
    }
  }
  fprintf(f, "  \"simulated_s\": %.17g", r->simulated_s);
  if (r->stash)
    write_json_stash(f, r->stash);
  fprintf(f, "\n}\n");
}

/* CSV field: quoted when it holds a comma, quote or newline. */
static void csv_field(FILE* f, const char* s)
{
  if (!strpbrk(s, ",\"\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* The stash columns (header when header, else values): every run's time, epoch and cost (empty
 * for a run not made), the single instance, the parts with Stash's percentages. */
static void write_csv_stash(FILE* f, const ss_stash* s, int header)
{
  for (int k = 0; k < SS_RUN_COUNT; k++) {
    const char* key = ss_stash_run_key((ss_run)k);
    if (header)
      fprintf(f, ",stash_%s_s,stash_%s_epoch_s,stash_%s_cost_usd_per_epoch", key, key, key);
    else if (s->job[k])
      fprintf(f, ",%.17g,%.17g,%.17g", s->bd[k].iteration_s, s->epoch_s[k], s->cost_usd_per_epoch[k]);
    else
      fprintf(f, ",,,");
  }
  if (header)
    fprintf(f, ",stash_single_instance");
  else {
    fputc(',', f);
    if (s->job[SS_RUN_SINGLE])
      csv_field(f, s->job[SS_RUN_SINGLE]->platform->instance_type);
  }
  for (int d = 0; d < SS_DIFF_COUNT; d++) {
    const char* key = ss_stash_diff_key((ss_diff)d);
    if (header)
      fprintf(f, ",stash_%s_s,stash_%s_pct", key, key);
    else
      fprintf(f, ",%.17g,%.17g", s->part_s[d], s->pct[d]);
  }
}

static void write_csv(FILE* f, const ss_result* r)
{
  const ss_job* j = r->job;
  fprintf(f, "platform,workload,instances,gpus,batch_per_gpu,iteration_s,throughput_samples_per_s,"
             "epoch_s,cost_usd_per_epoch");
  for (int c = 0; c < SS_CAT_COUNT; c++)
    fprintf(f, ",%s", part_keys[c]);
  fprintf(f, ",synthetic,overlap,workers_per_gpu,cache,bucket_mb,allreduce,fidelity,nic_gbps,oversub");
  if (r->stash)
    write_csv_stash(f, r->stash, 1);
  fputc('\n', f);
  csv_field(f, j->platform->instance_type);
  fputc(',', f);
  csv_field(f, j->workload->model);
  fprintf(f, ",%d,%d,%d,%.17g,%.17g,%.17g,%.17g", j->instances, j->ngpus, j->batch, r->bd.iteration_s, r->throughput_samples_per_s,
          r->epoch_s, r->cost_usd_per_epoch);
  for (int c = 0; c < SS_CAT_COUNT; c++)
    fprintf(f, ",%.17g", r->bd.part_s[c]);
  fprintf(f, ",%d,%d,%d,%.17g,%.17g,%s,%s,%.17g,%.17g", j->opt.synthetic, j->opt.overlap, j->workers, j->cache,
          j->opt.bucket_mb, ss_allreduce_name(j->opt.allreduce), ss_fidelity_name(j->opt.fidelity), nic_gbps(j), j->opt.oversub);
  if (r->stash)
    write_csv_stash(f, r->stash, 0);
  fputc('\n', f);
}

/* Differences of equal times in the table: floating-point noise shows as 0, not -0.000. */
static double tidy(double v)
{
  return fabs(v) < 1e-12 ? 0 : v;
}

static const char* const diff_labels[SS_DIFF_COUNT] = {"compute", "interconnect stall", "network stall",
                                                      "prep (CPU) stall", "fetch (disk) stall"};
static const ss_cat diff_cat[SS_DIFF_COUNT] = {SS_CAT_COMPUTE, SS_CAT_INTERCONNECT, SS_CAT_NETWORK, SS_CAT_PREP,
                                               SS_CAT_FETCH};

/* The differential breakdown under the RUN2 report: the runs, then each part per iteration, per
 * epoch, in Stash's percent and in percent of RUN2, beside RUN2's timeline; then the notes. */
static void write_table_stash(FILE* f, const ss_stash* s)
{
  const ss_job* single = s->job[SS_RUN_SINGLE];
  fprintf(f, "Stash differential breakdown (the report above is RUN2; each run a simulation of its own):\n");
  fprintf(f, "  %-44s %12s %12s %10s\n", "run", "iteration", "epoch", "cost");
  for (int k = 0; k < SS_RUN_COUNT; k++) {
    const ss_job* j = s->job[k];
    if (!j)
      continue;
    char what[128];
    if (k == SS_RUN_SINGLE)
      snprintf(what, sizeof(what), "SINGLE synthetic, %d GPUs on one %s", j->ngpus, j->platform->instance_type);
    else
      snprintf(what, sizeof(what), "RUN%d %s, %d GPU%s", k,
               k <= SS_RUN1 ? "synthetic" : k == SS_RUN2 ? "real data, cold cache" : "real data, all cached",
               j->ngpus, j->ngpus == 1 ? "" : "s");
    fprintf(f, "  %-44s %9.3f ms %8.2f min %8.2f $\n", what, s->bd[k].iteration_s * 1e3, s->epoch_s[k] / 60,
            s->cost_usd_per_epoch[k]);
  }
  static const char* const formula[SS_DIFF_COUNT] = {"RUN0", "SINGLE-RUN0", "RUN1-SINGLE", "RUN3-RUN1", "RUN2-RUN3"};
  fprintf(f, "  %-32s %12s %10s %8s %8s %16s\n", "part", "per iteration", "per epoch", "Stash %", "of RUN2",
          "RUN2 timeline");
  const double* tl = s->bd[SS_RUN2].part_s;
  for (int d = 0; d < SS_DIFF_COUNT; d++) {
    char label[64];
    snprintf(label, sizeof(label), "%s (%s)", diff_labels[d],
             d == SS_DIFF_INTERCONNECT && !single ? "RUN1-RUN0" : formula[d]);
    if (d == SS_DIFF_NETWORK && !single) {
      fprintf(f, "  %-32s %12s %10s %8s %8s %13.3f ms\n", "network stall (one instance)", "-", "-", "-", "-",
              tl[SS_CAT_NETWORK] * 1e3);
      continue;
    }
    double v = tidy(s->part_s[d]);
    fprintf(f, "  %-32s %9.3f ms %8.1f s %7.1f%% %7.1f%% %13.3f ms\n", label, v * 1e3, v * s->iterations_per_epoch,
            tidy(s->pct[d]), 100 * v / s->bd[SS_RUN2].iteration_s, tl[diff_cat[d]] * 1e3);
  }
  fprintf(f, "  Stash %%: interconnect / %s, network / SINGLE, prep / RUN3 (at least 0), fetch / RUN2, as Stash's "
             "tool/analyze.py; compute / RUN2\n", single ? "SINGLE" : "RUN1");
  for (int i = 0; i < s->nnotes; i++)
    fprintf(f, "  note: %s\n", s->notes[i]);
}

/* The gradient line of a parameter-server job, and the workers' spread when asynchronous. */
static void write_table_ps(FILE* f, const ss_result* r)
{
  const ss_job* j = r->job;
  char cap[64], where[96];
  if (j->opt.bucket_mb > 0)
    snprintf(cap, sizeof(cap), "of up to %g MiB", j->opt.bucket_mb);
  else
    snprintf(cap, sizeof(cap), "(one per layer)");
  if (j->opt.placement == SS_PS_DEDICATED)
    snprintf(where, sizeof(where), "on %d dedicated host%s", j->ps_hosts, j->ps_hosts == 1 ? "" : "s");
  else
    snprintf(where, sizeof(where), "colocated with the workers");
  fprintf(f, "  gradients: %d bucket%s %s%s, pushed to %d parameter server%s %s, %s\n", j->nbuckets,
          j->nbuckets == 1 ? "" : "s", cap, j->opt.overlap ? " as backward fills them" : " after backward", j->opt.servers,
          j->opt.servers == 1 ? "" : "s", where, j->opt.async ? "asynchronous (ASGD)" : "synchronous");
  if (!j->opt.async)
    return;
  fprintf(f, "  workers: %.1f to %.1f samples/s each; staleness %.2f updates on average, %.0f at most\n",
          j->batch / r->bd.rank_iteration_max_s, j->batch / r->bd.rank_iteration_min_s, r->bd.staleness_mean,
          r->bd.staleness_max);
  if (!per_worker(r))
    return;
  if (j->ngpus > SS_REPORT_MAX_WORKER_LINES) {
    fprintf(f, "  (each worker's throughput and staleness: --format json, \"workers\")\n");
    return;
  }
  for (int w = 0; w < j->ngpus; w++)
    fprintf(f, "    worker %-3d (instance %d, GPU %d) %10.1f samples/s   staleness %5.2f\n", w,
            w / j->gpus_per_instance, w % j->gpus_per_instance, worker_throughput(r, w), worker_staleness(r, w));
}

static void write_table(FILE* f, const ss_result* r)
{
  const ss_job* j = r->job;
  const ss_breakdown* b = &r->bd;
  /* An instance whose GPUs differ: the times are GPU 0's, each GPU runs them at its speed (job.c). */
  char gpus[160];
  snprintf(gpus, sizeof(gpus), "%d x %s", j->ngpus, j->platform->gpus[0].model);
  for (int g = 1; g < j->gpus_per_instance; g++)
    if (strcmp(j->platform->gpus[g].model, j->platform->gpus[0].model) != 0)
      snprintf(gpus, sizeof(gpus), "%d GPUs of mixed models (GPU 0: %s)", j->ngpus, j->platform->gpus[0].model);
  if (j->instances > 1)
    fprintf(f, "stash-sim %s: %s on %d x %s, %s, batch %d per GPU\n", SS_VERSION, j->workload->model,
            j->instances, j->platform->instance_type, gpus, j->batch);
  else
    fprintf(f, "stash-sim %s: %s on %s, %s, batch %d per GPU\n", SS_VERSION, j->workload->model,
            j->platform->instance_type, gpus, j->batch);
  fprintf(f, "  iteration    %10.3f ms     throughput  %10.1f samples/s\n", b->iteration_s * 1e3,
          r->throughput_samples_per_s);
  fprintf(f, "  epoch        %10.2f min    cost        %10.2f $ per epoch (%.2f $/h x %d instance%s)\n",
          r->epoch_s / 60, r->cost_usd_per_epoch, j->platform->price_usd_per_h, j->instances,
          j->instances == 1 ? "" : "s");
  fprintf(f, "  breakdown of the steady-state iteration (iterations %d-%d, mean over %d GPU%s):\n", j->warmup + 1,
          j->warmup + j->iterations, j->ngpus, j->ngpus == 1 ? "" : "s");
  for (int c = 0; c < SS_CAT_COUNT; c++)
    fprintf(f, "    %-20s %10.3f ms %6.1f%%\n", part_labels[c], b->part_s[c] * 1e3, 100 * b->part_s[c] / b->iteration_s);
  if (j->device)
    fprintf(f, "  compute: %s times from the workload's measured ratio to %s (x%.3f forward, x%.3f backward)\n",
            j->device->gpu_model, j->workload->ref_gpu_model, j->device->fwd_ratio, j->device->bwd_ratio);
  else if (strcmp(j->platform->gpus[0].model, j->workload->ref_gpu_model) != 0)
    fprintf(f, "  compute: %s times scaled by peak FLOPS from %s (x%.3f)\n", j->platform->gpus[0].model,
            j->workload->ref_gpu_model, j->workload->ref_gpu_flops / j->platform->gpus[0].speed_flops);
  if (j->opt.compute_scale != 1)
    fprintf(f, "  compute: every GPU kernel time x%g (--compute-scale, a what-if)\n", j->opt.compute_scale);
  if (j->opt.synthetic)
    fprintf(f, "  data: synthetic (no loading)\n");
  else
    fprintf(f, "  data: %d loader worker%s per GPU, prefetch %d, %.0f%% of %s in page cache%s\n", j->workers,
            j->workers == 1 ? "" : "s", j->opt.prefetch, 100 * j->cache, j->workload->dataset.name,
            j->opt.async_copy && j->workers > 0 ? ", copied to the GPU by the loaders" : "");
  if (j->opt.arch == SS_ARCH_PS) {
    write_table_ps(f, r);
  } else if (j->ngpus > 1) {
    int count[SS_ALLREDUCE_COUNT] = {0};
    for (int k = 0; k < j->nbuckets; k++)
      count[j->bucket_alg[k]]++;
    char cap[64];
    if (j->opt.bucket_mb > 0)
      snprintf(cap, sizeof(cap), "of up to %g MiB", j->opt.bucket_mb);
    else
      snprintf(cap, sizeof(cap), "(one per layer)");
    fprintf(f, "  gradients: %d bucket%s %s%s; allreduce", j->nbuckets, j->nbuckets == 1 ? "" : "s", cap,
            j->opt.overlap ? ", overlapped with backward" : ", after backward (--no-overlap)");
    for (int a = 0, first = 1; a < SS_ALLREDUCE_COUNT; a++)
      if (count[a]) {
        fprintf(f, "%s %s", first ? "" : ",", ss_allreduce_name((ss_allreduce)a));
        if (count[a] != j->nbuckets)
          fprintf(f, " (%d)", count[a]);
        first = 0;
      }
    fprintf(f, ", %d ring%s per instance (%s fidelity)\n", j->intra.nrings, j->intra.nrings == 1 ? "" : "s",
            ss_fidelity_name(j->opt.fidelity));
  }
  if (j->opt.init_io != SS_INIT_NONE)
    fprintf(f, "  start-up: %.2f s of %s reads, %.1f MB per worker from %s; %.0f samples in %.2f min with it\n",
            r->bd.init_s, ss_init_io_name(j->opt.init_io), j->init_bytes / 1e6,
            j->opt.init_io == SS_INIT_SEQUENTIAL ? "instance 0's volume" : "each instance's volume", r->samples,
            r->time_to_train_s / 60);
  if (j->instances > 1) {
    fprintf(f, "  network: %g Gb/s and %g us per instance NIC", nic_gbps(j), nic_latency_us(j));
    if (j->opt.oversub > 1)
      fprintf(f, ", switch oversubscribed %g:1", j->opt.oversub);
    fputc('\n', f);
  }
  if (r->stash)
    write_table_stash(f, r->stash);
}

/* One side of a whatif in JSON. */
static void whatif_json_side(FILE* f, const char* name, const ss_result* r)
{
  const ss_job* j = r->job;
  fprintf(f, "  \"%s\": {\"platform\": ", name);
  json_string(f, j->platform->instance_type);
  fprintf(f, ", \"instances\": %d, \"gpus\": %d, \"batch_per_gpu\": %d, \"arch\": \"%s\",\n", j->instances,
          j->ngpus, j->batch, ss_arch_name(j->opt.arch));
  fprintf(f, "    \"iteration_s\": %.17g, \"throughput_samples_per_s\": %.17g, \"epoch_s\": %.17g, "
             "\"cost_usd_per_epoch\": %.17g",
          r->bd.iteration_s, r->throughput_samples_per_s, r->epoch_s, r->cost_usd_per_epoch);
  for (int c = 0; c < SS_CAT_COUNT; c++)
    fprintf(f, ",\n    \"%s\": %.17g", part_keys[c], r->bd.part_s[c]);
  fprintf(f, "}");
}

int ss_report_whatif(FILE* f, const ss_result* base, const ss_result* changed, const char* const* changes,
                     int nchanges, ss_format fmt)
{
  double speedup = changed->throughput_samples_per_s / base->throughput_samples_per_s;
  const ss_result* side[2] = {base, changed};
  if (fmt == SS_FORMAT_JSON) {
    fprintf(f, "{\n  \"changes\": [");
    for (int i = 0; i < nchanges; i++) {
      fputs(i ? ", " : "", f);
      json_string(f, changes[i]);
    }
    fprintf(f, "],\n  \"speedup\": %.17g,\n", speedup);
    whatif_json_side(f, "base", base);
    fprintf(f, ",\n");
    whatif_json_side(f, "changed", changed);
    fprintf(f, "\n}\n");
  } else if (fmt == SS_FORMAT_CSV) {
    fprintf(f, "changes,speedup");
    for (int k = 0; k < 2; k++) {
      const char* s = k ? "changed" : "base";
      fprintf(f, ",%s_platform,%s_instances,%s_gpus,%s_iteration_s,%s_throughput_samples_per_s,%s_epoch_s,"
                 "%s_cost_usd_per_epoch", s, s, s, s, s, s, s);
      for (int c = 0; c < SS_CAT_COUNT; c++)
        fprintf(f, ",%s_%s", s, part_keys[c]);
    }
    fputc('\n', f);
    char all[1024] = "";
    for (int i = 0; i < nchanges; i++) {
      size_t len = strlen(all);
      snprintf(all + len, sizeof(all) - len, "%s%s", i ? " " : "", changes[i]);
    }
    csv_field(f, all);
    fprintf(f, ",%.17g", speedup);
    for (int k = 0; k < 2; k++) {
      const ss_result* r = side[k];
      fputc(',', f);
      csv_field(f, r->job->platform->instance_type);
      fprintf(f, ",%d,%d,%.17g,%.17g,%.17g,%.17g", r->job->instances, r->job->ngpus, r->bd.iteration_s,
              r->throughput_samples_per_s, r->epoch_s, r->cost_usd_per_epoch);
      for (int c = 0; c < SS_CAT_COUNT; c++)
        fprintf(f, ",%.17g", r->bd.part_s[c]);
    }
    fputc('\n', f);
  } else {
    const ss_job* j = base->job;
    fprintf(f, "stash-sim %s whatif: %s, base %d x %s (%d GPUs), changed %d x %s (%d GPUs)\n  change:", SS_VERSION,
            j->workload->model, j->instances, j->platform->instance_type, j->ngpus, changed->job->instances,
            changed->job->platform->instance_type, changed->job->ngpus);
    for (int i = 0; i < nchanges; i++)
      fprintf(f, " %s", changes[i]);
    fprintf(f, "\n  %-22s %14s %14s %10s\n", "", "base", "changed", "change");
    fprintf(f, "  %-22s %11.3f ms %11.3f ms %+9.1f%%\n", "iteration", base->bd.iteration_s * 1e3,
            changed->bd.iteration_s * 1e3, 100 * (changed->bd.iteration_s / base->bd.iteration_s - 1));
    fprintf(f, "  %-22s %14.1f %14.1f %+9.1f%%\n", "throughput (samples/s)", base->throughput_samples_per_s,
            changed->throughput_samples_per_s, 100 * (speedup - 1));
    fprintf(f, "  %-22s %10.2f min %10.2f min %+9.1f%%\n", "epoch", base->epoch_s / 60, changed->epoch_s / 60,
            100 * (changed->epoch_s / base->epoch_s - 1));
    fprintf(f, "  %-22s %12.2f $ %12.2f $ %+9.1f%%\n", "cost per epoch", base->cost_usd_per_epoch,
            changed->cost_usd_per_epoch, 100 * (changed->cost_usd_per_epoch / base->cost_usd_per_epoch - 1));
    fprintf(f, "  per iteration:\n");
    for (int c = 0; c < SS_CAT_COUNT; c++)
      fprintf(f, "    %-20s %11.3f ms %11.3f ms %+9.3f ms\n", part_labels[c], base->bd.part_s[c] * 1e3,
              changed->bd.part_s[c] * 1e3, (changed->bd.part_s[c] - base->bd.part_s[c]) * 1e3);
    fprintf(f, "  speedup: x%.3f (throughput, changed over base)\n", speedup);
  }
  return ferror(f) ? SS_EINPUT : SS_OK;
}

typedef struct format_entry {
  const char* name;
  ss_format format;
  void (*write)(FILE*, const ss_result*);
} format_entry;

static const format_entry formats[] = {
    {"table", SS_FORMAT_TABLE, write_table}, {"json", SS_FORMAT_JSON, write_json}, {"csv", SS_FORMAT_CSV, write_csv}};

int ss_report_format_by_name(const char* name, ss_format* out)
{
  for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
    if (strcmp(formats[i].name, name) == 0) {
      *out = formats[i].format;
      return 0;
    }
  return -1;
}

int ss_report_write(FILE* f, const ss_result* r, ss_format fmt)
{
  for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
    if (formats[i].format == fmt) {
      formats[i].write(f, r);
      return ferror(f) ? SS_EINPUT : SS_OK;
    }
  ss_assert(0);
  return SS_EINPUT;
}
