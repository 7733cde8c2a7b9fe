/* report: the results of a run as a table, JSON or CSV. */
#include "report.h"

#include "price.h"

#include "a2a.h"
#include "kernelfit.h"

#include "cluster.h"
#include "cost.h"
#include "derive.h"

#include "csv.h"
#include "transport.h"
#include "err.h"
#include "names.h"
#include "par.h"
#include "proto.h"
#include "tuner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ss_result_compute(const ss_job* job, const ss_timeline* tl, double simulated_s, ss_result* out, ss_err* err)
{
  ss_breakdown bd;
  ss_stall_timeline(tl, job->warmup, job->iterations, &bd);
  int rc = ss_result_from_breakdown(job, &bd, simulated_s, out, err);
  out->tl = tl;
  return rc;
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

int ss_result_from_breakdown(const ss_job* job, const ss_breakdown* bd, double simulated_s, ss_result* out, ss_err* err)
{
  memset(out, 0, sizeof(*out));
  if (ss_job_check_iteration(job, "the iteration", bd->iteration_s, err))
    return SS_EINPUT;
  out->job = job;
  out->bd = *bd;
  const ss_workload* w = job->workload;
  double samples_per_iter = ss_job_samples_per_iter(job);
  out->throughput_samples_per_s = samples_per_iter / out->bd.iteration_s;
  out->epoch_s = w->dataset.samples / out->throughput_samples_per_s;
  out->cost_usd_per_epoch = job->price_usd_per_h * job->instances * out->epoch_s / 3600.0;
  out->simulated_s = simulated_s;
  out->samples = job->opt.samples > 0  ? job->opt.samples
                 : job->opt.tokens > 0 ? job->opt.tokens / w->tf.seq
                                       : w->dataset.samples;
  if (w->has_transformer) {
    double peak = ss_job_peak_flops_scaled(job);
    out->tokens_per_s = out->throughput_samples_per_s * w->tf.seq;
    out->model_flops_per_gpu_s = ss_job_model_flops(job, samples_per_iter) / out->bd.iteration_s / job->ngpus;
    out->mfu = peak > 0 ? out->model_flops_per_gpu_s / peak : 0;
  }
  out->time_to_train_s = out->bd.init_s + out->samples / out->throughput_samples_per_s;
  out->cost_to_train_usd = job->price_usd_per_h * job->instances * out->time_to_train_s / 3600.0;
  ss_failures_goodput(&job->failures, out->time_to_train_s, &out->goodput);
  out->expected_time_to_train_s = out->goodput.wall_s;
  out->expected_cost_usd = job->price_usd_per_h * job->instances * out->expected_time_to_train_s / 3600.0;
  /* ss_job_check_iteration bounds the iteration: the figures are finite. */
  ss_assert(isfinite(out->throughput_samples_per_s) && isfinite(out->cost_usd_per_epoch));
  return SS_OK;
}

/* Whether a table shows category c: the host stall only when the host side was simulated (with
 * --ideal and on jobs without host costs the table is as it was before the host side existed). */
static int shown(ss_cat c, const ss_job* j)
{
  return c == SS_CAT_HOST ? j->host && !j->mp.on : c == SS_CAT_BUBBLE ? j->mp.on : 1;
}

/* The failures' line of a language model's table: the goodput of its time to train, the expected
 * interruptions, the checkpoints and the restart, and the time and cost with them. */
static void write_table_failures(FILE* f, const ss_result* r)
{
  const ss_failures* x = &r->job->failures;
  const ss_goodput* g = &r->goodput;
  if (!x->on) {
    fprintf(f, "  failures     none counted (%s)\n", r->job->opt.ideal ? "--ideal" : "--no-failures");
    return;
  }
  fprintf(f,
          "  failures     goodput %.1f %%: %.3g interruptions expected (the job's MTBF %.3g h), a %.3g TB checkpoint "
          "to %s in %.3g s every %.3g min%s, restart %.3g min: %.2f days, %.2f $\n",
          100 * g->goodput, g->interruptions, x->mtbf_s / 3600, x->ckpt_bytes / 1e12,
          ss_ckpt_target_of((ss_ckpt_target)r->job->opt.checkpoint_to)->label, x->write_s, g->interval_s / 60,
          g->young ? " (Young)" : "", x->restart_s / 60, r->expected_time_to_train_s / 86400, r->expected_cost_usd);
}

/* The failures' object of the JSON report. */
static void write_json_failures(FILE* f, const ss_result* r)
{
  const ss_failures* x = &r->job->failures;
  const ss_goodput* g = &r->goodput;
  fprintf(f, "  \"failures\": {\"on\": %s, \"instance_mtbf_h\": %.17g, \"spot_mtbf_h\": %.17g, \"job_mtbf_h\": %.17g,",
          x->on ? "true" : "false", x->instance_mtbf_h, x->spot_mtbf_h, x->on ? x->mtbf_s / 3600 : 0);
  fprintf(f, " \"checkpoint_to\": \"%s\", \"checkpoint_bytes\": %.17g, \"checkpoint_write_s\": %.17g,",
          ss_ckpt_target_names[r->job->opt.checkpoint_to], x->ckpt_bytes, x->write_s);
  fprintf(f, " \"checkpoint_interval_s\": %.17g, \"checkpoint_interval_young\": %s, \"checkpoints\": %.17g,",
          g->interval_s, g->young ? "true" : "false", g->checkpoints);
  fprintf(f, " \"restart_s\": %.17g, \"goodput\": %.17g, \"expected_interruptions\": %.17g,", x->restart_s, g->goodput,
          g->interruptions);
  fprintf(f, " \"expected_time_to_train_s\": %.17g, \"expected_cost_usd\": %.17g},\n", r->expected_time_to_train_s,
          r->expected_cost_usd);
}

/* Network of each instance as the hardware has it: Gb/s over all its NICs, latency of a NIC link (us);
 * the transport's share of it and cost per message are reported beside them. */
static double nic_gbps(const ss_job* j)
{
  return ss_cluster_nic_line_bandwidth(j) * 8 / 1e9;
}

static double nic_latency_us(const ss_job* j)
{
  return ss_cluster_nic_wire_latency(j) * 1e6;
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
    ss_json_string(f, single->platform->instance_type);
    fprintf(f, ",\n    \"single_instance_file\": ");
    ss_json_string(f, single->platform->path);
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
    ss_json_string(f, s->notes[i]);
  }
  fprintf(f, "%s]\n  }", s->nnotes ? "\n    " : "");
}

/* The "options" object: every option of a run with a report key, as the job used it. */
static void write_json_options(FILE* f, const ss_job* j)
{
  fprintf(f, "  \"options\": {");
  int n = 0;
  for (const ss_optdef* d = ss_option_table; d->name; d++) {
    if (!d->report_key || !(d->commands & SS_CMD_RUN))
      continue;
    char value[1024];
    ss_option_value_text(d, &j->resolved, 1, value, sizeof(value));
    fprintf(f, "%s\n    \"%s\": %s", n++ ? "," : "", d->report_key, value);
  }
  fprintf(f, "\n  },\n");
}

/* "gpu_memory_bytes": one GPU's memory part by part (memory.h), or null when it is unknown. */
static void write_json_memory(FILE* f, const ss_job* j)
{
  const ss_memory* m = &j->memory;
  if (!j->memory_known) {
    fprintf(f, "  \"gpu_memory_bytes\": null,\n");
    return;
  }
  fprintf(f, "  \"gpu_memory_bytes\": {\"parameters\": %.17g, \"gradients\": %.17g, \"optimizer\": %.17g, ",
          m->parameters, m->gradients, m->optimizer);
  fprintf(f,
          "\"activations\": %.17g, \"buffers\": %.17g, \"reserve\": %.17g, \"total\": %.17g, \"capacity\": %.17g},\n",
          m->activations, m->buffers, m->reserve, m->total, m->capacity);
}

/* --shard zero3, fsdp-*: the units, and the collectives of an iteration by kind. */
static void write_table_units(FILE* f, const ss_job* j)
{
  const ss_shard_mode* mode = ss_shard_mode_of(j->opt.shard);
  int layers = mode->units == SS_UNITS_LAYERS;
  int gathers = 0, prefetches = 0, reduces = 0, replicas = 0, root = j->nunits > 0 && j->units[j->nunits - 1].root;
  for (int c = 0; c < ss_job_seg_colls(j); c++) {
    const ss_coll_spec* s = &j->colls[c];
    gathers += s->kind == SS_CK_GATHER;
    prefetches += s->kind == SS_CK_GATHER && s->prefetch;
    reduces += s->kind == SS_CK_REDUCE || s->kind == SS_CK_BUCKET;
    replicas += s->kind == SS_CK_REPLICA;
  }
  fprintf(f, "  sharding: %s, states divided among %d GPUs%s; %d unit%s", mode->label, j->shard_group,
          j->shard_group < j->ngpus ? " (each instance's), replicated across instances" : "", j->nunits,
          j->nunits == 1 ? "" : "s");
  if (layers)
    fprintf(f, " (each layer's parameters; prefetch %.4g million elements, reuse distance %.4g million; %s)",
            j->opt.param_prefetch ? j->opt.prefetch_bucket / 1e6 : 0, j->opt.reuse_distance / 1e6,
            ss_shard_overlap_comm(j->opt.shard, j->opt.overlap_comm) ? "on side streams (overlap_comm)"
                                                                     : "on the default stream, --overlap-comm off");
  else if (j->opt.wrap_params > 0)
    fprintf(f, " (layers of at least %.4g parameters%s)", j->opt.wrap_params, root ? ", the others in the root" : "");
  else
    fprintf(f, " (one per layer with parameters)");
  if (!layers)
    fprintf(f, "; %s", j->opt.param_prefetch ? "the next unit prefetched" : "no prefetch (--no-param-prefetch)");
  fprintf(f, "\n  collectives per iteration: %d all-gather%s (%d prefetched), %d reduce-scatter%s", gathers,
          gathers == 1 ? "" : "s", prefetches, reduces, reduces == 1 ? "" : "s");
  if (mode->grads == SS_GRADS_ZERO_BUCKETS)
    fprintf(f, " (buckets of up to %.0f million elements)", SS_ZERO_BUCKET_ELEMENTS / 1e6);
  if (replicas > 0)
    fprintf(f, ", %d allreduce%s across instances", replicas, replicas == 1 ? "" : "s");
  if (j->npost > 0)
    fprintf(f, ", %d all-gather of the persistent parameters after the step", j->npost);
  fprintf(f, "; %d ring%s per instance (%s fidelity)", j->intra.nrings, j->intra.nrings == 1 ? "" : "s",
          ss_fidelity_name(j->opt.fidelity));
  if (j->interference > 0)
    fprintf(f, "; compute %g times as long while they run (interference)", 1 + j->interference);
  fprintf(f, "\n  parameters: the step on 1/%d of them; at most %.0f MB gathered at once\n", j->shard_group,
          j->gathered_peak / 1e6);
}

/* The GPU memory line of the table: the total, the capacity and the parts, or why it is unknown. */
static void write_table_memory(FILE* f, const ss_job* j)
{
  const ss_memory* m = &j->memory;
  if (!j->memory_known) {
    fprintf(f, "  GPU memory not checked: %s\n",
            j->platform->gpus[0].memory_bytes > 0 ? "the workload gives no per-layer work (act_bytes)"
                                                  : "the instance file gives no memory_gib");
    return;
  }
  char parts[256];
  ss_memory_parts_text(m, parts, sizeof(parts));
  fprintf(f, "  GPU memory %.1f of %.4g GiB (%s)%s\n", m->total / 1073741824.0, m->capacity / 1073741824.0, parts,
          m->total > m->capacity ? ": does not fit, run anyway (--ignore-memory)" : "");
}

/* The table's line for activation checkpointing (when on): the blocks and layers that recompute. */
static void write_table_ckpt(FILE* f, const ss_job* j)
{
  int blocks = 0, layers = 0;
  for (int l = 0; l < j->workload->nlayers; l++) {
    layers += j->workload->layers[l].ckpt_bytes >= 0;
    blocks += j->workload->layers[l].ckpt_bytes > 0;
  }
  fprintf(f,
          "  compute: activation checkpointing on: %d of %d layers (%d block%s) keep their block's input and "
          "re-run their forward in backward\n",
          layers, j->workload->nlayers, blocks, blocks == 1 ? "" : "s");
}

/* The all-to-alls of a mixture of experts' layers per iteration on one GPU: each stage's MoE layers'
 * exchanges for its micro-batches (ss_mp.moe_s), the mean over the stages. */
static double moe_a2a_s(const ss_job* j)
{
  const ss_mp* mp = &j->mp;
  if (!mp->on || !mp->moe_fwd_s)
    return 0;
  double s = 0;
  for (int vs = 0; vs < mp->p * mp->v; vs++)
    s += (mp->moe_fwd_s[vs] + mp->moe_bwd_s[vs]) * mp->m;
  return s / mp->p;
}

/* Where the busiest GPU's load comes from (ss_moe_load_source): the JSON's word, the table's. */
static const char* const load_sources[][2] = {[SS_MOE_LOAD_PADDED] = {"padded", "padded to capacity"},
                                              [SS_MOE_LOAD_GIVEN] = {"given", "--moe-imbalance"},
                                              [SS_MOE_LOAD_BALANCED] = {"balanced", "balanced: --ideal"},
                                              [SS_MOE_LOAD_DRAWN] = {"drawn", "drawn: uniform routing"}};

/* The "moe" object of a mixture of experts' run. */
static void write_json_moe(FILE* f, const ss_job* j)
{
  const ss_transformer* tf = &j->workload->tf;
  const ss_mp* mp = &j->mp;
  fprintf(f,
          "  \"moe\": {\"experts\": %d, \"top_k\": %d, \"moe_layers\": %d, \"params\": %.17g, \"active_params\": "
          "%.17g, \"ep\": %d, \"etp\": %d, \"edp\": %d,\n    \"load\": %.17g, \"load_source\": \"%s\", "
          "\"dropped\": %.17g, \"a2a_bytes\": %.17g, \"a2a_fwd_s\": %.17g, \"a2a_bwd_s\": %.17g, "
          "\"a2a_s_per_iteration\": %.17g, \"a2a_across_instances\": %s},\n",
          tf->moe.experts, tf->moe.top_k, ss_transformer_moe_layers(tf), ss_transformer_params(tf),
          ss_transformer_active_params(tf), mp->ep, mp->etp, mp->on ? mp->edp : j->ngpus, mp->moe_load,
          load_sources[mp->moe_load_source][0], mp->moe_dropped, mp->a2a_bytes, mp->a2a_fwd_s, mp->a2a_bwd_s,
          moe_a2a_s(j), mp->a2a_cross ? "true" : "false");
}

/* The table's line of a mixture of experts' run. */
static void write_table_moe(FILE* f, const ss_result* r)
{
  const ss_job* j = r->job;
  const ss_transformer* tf = &j->workload->tf;
  const ss_mp* mp = &j->mp;
  double a2a = moe_a2a_s(j), it = r->bd.iteration_s;
  fprintf(f,
          "  experts: %d routed, %d a token, in %d of %d layers; %.4g B parameters, %.4g B active (MFU counts the "
          "active); expert %d x expert tensor %d x expert data %d; busiest GPU %.3f x the mean tokens (%s)%s",
          tf->moe.experts, tf->moe.top_k, ss_transformer_moe_layers(tf), tf->layers, ss_transformer_params(tf) / 1e9,
          ss_transformer_active_params(tf) / 1e9, mp->ep, mp->etp, mp->on ? mp->edp : j->ngpus, mp->moe_load,
          load_sources[mp->moe_load_source][1], mp->moe_dropped > 0 ? "" : "\n");
  if (mp->moe_dropped > 0)
    fprintf(f, ", %.2f%% of the routed tokens dropped (--moe-capacity)\n", 100 * mp->moe_dropped);
  if (mp->ep > 1 || mp->etp > 1)
    fprintf(f,
            "  all-to-all: %.2f MB dispatched per GPU, MoE layer and micro-batch, %.3f ms forward and %.3f ms "
            "backward %s by %s; %.3f ms an iteration waited for (%.1f%% of it)%s\n",
            mp->a2a_bytes / 1e6, mp->a2a_fwd_s * 1e3, mp->a2a_bwd_s * 1e3,
            mp->a2a_cross ? "across instances" : "inside an instance",
            j->opt.moe_dispatcher == SS_DISPATCH_DEEPEP ? "DeepEP" : "NCCL", a2a * 1e3, it > 0 ? 100 * a2a / it : 0,
            j->opt.overlap_moe_comm ? ", the rest behind the paired micro-batch's compute (--overlap-moe-comm)" : "");
}

/* The "parallel" object of a tensor- or pipeline-parallel run: its layout and each stage's figures. */
static void write_json_parallel(FILE* f, const ss_job* j)
{
  const ss_mp* mp = &j->mp;
  fprintf(
      f,
      "  \"parallel\": {\"tp\": %d, \"cp\": %d, \"pp\": %d, \"dp\": %d, \"virtual_stages\": %d, \"micro_batch\": %d, "
      "\"micro_batches\": %d,\n    \"schedule\": \"%s\", \"rank_order\": \"%s\", \"sequence_parallel\": %s, "
      "\"recompute\": \"%s\", \"distributed_optimizer\": %s,\n    \"bubble_closed_form\": %.17g, "
      "\"p2p_bytes\": %.17g, \"cp_bytes\": %.17g, \"cp_exposed_fwd_s\": %.17g, \"cp_exposed_bwd_s\": %.17g,\n    "
      "\"tensor_across_instances\": %s, \"data_across_instances\": %s,\n",
      mp->t, mp->cp, mp->p, mp->d, mp->v, mp->b, mp->m, ss_schedule_names[mp->schedule],
      ss_rank_order_names[j->opt.rank_order], j->opt.sequence_parallel ? "true" : "false",
      ss_recompute_names[j->opt.recompute], j->opt.distributed_optimizer ? "true" : "false",
      ss_pipe_bubble_closed_form(mp->schedule, mp->p, mp->v, mp->m), mp->p2p_bytes, mp->cp_bytes, mp->cp_fwd_s,
      mp->cp_bwd_s, mp->tp_cross ? "true" : "false", mp->dp_cross ? "true" : "false");
  fprintf(f, "    \"stages\": [");
  for (int s = 0; s < mp->p; s++) {
    int layers = 0;
    for (int c = 0; c < mp->v; c++)
      layers += mp->counts[c * mp->p + s];
    fprintf(f,
            "%s\n      {\"layers\": %d, \"params_per_gpu\": %.17g, \"memory_bytes\": %.17g, "
            "\"activation_bytes\": %.17g, \"data_parallel_s\": %.17g, \"data_parallel_hidden_s\": %.17g, "
            "\"optimizer_s\": %.17g}",
            s ? "," : "", layers, mp->params[s], mp->mem_bytes[s], mp->act_bytes[s], mp->dp_s[s], mp->dp_hidden_s[s],
            mp->opt_s[s]);
  }
  fprintf(f, "\n    ]},\n");
}

static void write_json(FILE* f, const ss_result* r)
{
  const ss_job* j = r->job;
  fprintf(f, "{\n  \"schema_version\": %d,\n  \"platform\": ", SS_REPORT_SCHEMA_VERSION);
  ss_json_string(f, j->platform->instance_type);
  fprintf(f, ",\n  \"platform_file\": ");
  ss_json_string(f, j->platform->path);
  fprintf(f, ",\n  \"workload\": ");
  ss_json_string(f, j->workload->model);
  fprintf(f, ",\n  \"workload_file\": ");
  ss_json_string(f, j->workload->path);
  fprintf(f, ",\n  \"gpu_model\": ");
  ss_json_string(f, j->platform->gpus[0].model);
  fprintf(f, ",\n  \"instances\": %d,\n  \"gpus\": %d,\n  \"batch_per_gpu\": %d,\n", j->instances, j->ngpus, j->batch);
  fprintf(f, "  \"iteration_s\": %.17g,\n  \"throughput_samples_per_s\": %.17g,\n", r->bd.iteration_s,
          r->throughput_samples_per_s);
  fprintf(f, "  \"epoch_s\": %.17g,\n  \"cost_usd_per_epoch\": %.17g,\n  \"price_usd_per_h\": %.17g,\n", r->epoch_s,
          r->cost_usd_per_epoch, j->price_usd_per_h);
  fprintf(f, "  \"price_source\": ");
  ss_json_string(f, j->price_source);
  fprintf(f, ",\n  \"purchase\": \"%s\"", ss_purchase_names[j->purchase]);
  fprintf(f, ",\n");
  fprintf(f, "  \"breakdown\": {\n");
  for (int c = 0; c < SS_CAT_COUNT; c++)
    fprintf(f, "    \"%s_s\": %.17g%s\n", ss_cat_name((ss_cat)c), r->bd.part_s[c], c + 1 < SS_CAT_COUNT ? "," : "");
  fprintf(f, "  },\n  \"breakdown_detail\": {\n");
  for (int d = 0; d < SS_DETAIL_COUNT; d++)
    fprintf(f, "    \"%s_s\": %.17g%s\n", ss_detail_name((ss_detail)d), r->bd.detail_s[d],
            d + 1 < SS_DETAIL_COUNT ? "," : "");
  fprintf(f, "  },\n  \"breakdown_pct\": {\n");
  for (int c = 0; c < SS_CAT_COUNT; c++)
    fprintf(f, "    \"%s_pct\": %.17g%s\n", ss_cat_name((ss_cat)c), 100 * r->bd.part_s[c] / r->bd.iteration_s,
            c + 1 < SS_CAT_COUNT ? "," : "");
  fprintf(f, "  },\n  \"limit\": {\"resource\": \"%s\", \"utilisation\": %.17g, \"per_class\": {",
          ss_res_name(r->bd.limit), r->bd.util[r->bd.limit]);
  for (int k = 0; k < SS_RES_COUNT; k++)
    fprintf(f, "%s\"%s\": %.17g", k ? ", " : "", ss_res_name((ss_res)k), r->bd.util[k]);
  fprintf(f, "}},\n  \"first_iteration_s\": %.17g,\n", r->bd.first_iteration_s);
  fprintf(f, "  \"warmup\": %d,\n  \"iterations\": %d,\n  \"synthetic\": %s,\n  \"overlap\": %s,\n", j->warmup,
          j->iterations, j->opt.synthetic ? "true" : "false", j->opt.overlap ? "true" : "false");
  fprintf(f, "  \"async_copy\": %s,\n", j->opt.async_copy ? "true" : "false");
  fprintf(f, "  \"workers_per_gpu\": %d,\n  \"prefetch\": %d,\n  \"cache\": %.17g,\n", j->workers, j->opt.prefetch,
          j->cache);
  fprintf(f, "  \"bucket_mib\": %.17g,\n  \"buckets\": %d,\n  \"rings\": %d,\n", j->opt.bucket_mib, j->nbuckets,
          j->ngpus > 1 ? j->rings.nrings : 0);
  fprintf(f,
          "  \"shard_group\": %d,\n  \"units\": %d,\n  \"collectives_per_iteration\": %d,\n  "
          "\"gathered_peak_bytes\": %.17g,\n",
          j->ngpus > 1 ? j->shard_group : 1, j->nunits, ss_job_colls_per_iter(j), j->gathered_peak);
  fprintf(f, "  \"allreduce\": \"%s\",\n  \"bucket_algorithms\": [", ss_allreduce_name(j->opt.allreduce));
  for (int b = 0; b < j->nbuckets; b++)
    fprintf(f, "%s\"%s\"", b ? ", " : "", ss_allreduce_name(j->bucket_alg[b]));
  fprintf(f, "],\n  \"fidelity\": \"%s\",\n  \"simulated_instances\": %d,\n", ss_fidelity_name(j->opt.fidelity),
          ss_job_sim_instances(j));
  fprintf(f, "  \"nic_gbps\": %.17g,\n  \"nic_latency_us\": %.17g,\n  \"oversub\": %.17g,\n", nic_gbps(j),
          nic_latency_us(j), j->opt.oversub);
  fprintf(f, "  \"net_transport\": \"%s\",\n  \"net_line_fraction\": %.17g,\n  \"net_message_us\": %.17g,\n",
          ss_net_names[j->net_transport], j->net.line_fraction, j->net.message_us);
  fprintf(f, "  \"nccl_version\": \"%s\",\n  \"socket_flows_per_connection\": %d,\n  \"flow_cap_gbps\": %.17g,\n",
          ss_nccl_name(j->opt.nccl_version), j->net_sockets, j->flow_cap_bytes_per_s * 8 / 1e9);
  fprintf(f, "  \"socket_cpu_threads\": %d,\n  \"socket_cpu_s_per_gb\": %.17g,\n", j->sock_threads,
          j->resolved.socket_cpu_s_per_gb);
  fprintf(f, "  \"compute_scaling\": \"%s\",\n  \"compute_reference\": {\"gpu_model\": ", ss_job_compute_scaling(j));
  /* Where the times come from: the measured entry's GPU and batch, or the workload's reference. */
  ss_json_string(f, j->device ? j->device->gpu_model : j->workload->ref_gpu_model);
  fprintf(f, ", \"batch\": %d},\n  \"compute_scale\": %.17g,\n", ss_job_reference_batch(j), j->opt.compute_scale);
  fprintf(f, "  \"precision\": \"%s\",\n  \"conv_tf32\": %s,\n", ss_precision_name(j->precision),
          j->conv_tf32 ? "true" : "false");
  fprintf(f, "  \"activation_checkpointing\": %s,\n", j->ckpt ? "true" : "false");
  fprintf(f, "  \"arch\": \"%s\",\n  \"nvlink\": %s,\n", ss_names_at(ss_arch_names, j->opt.arch),
          j->opt.nvlink ? "true" : "false");
  fprintf(f, "  \"init_io\": \"%s\",\n  \"init_s\": %.17g,\n  \"init_bytes_per_worker\": %.17g,\n",
          ss_names_at(ss_init_io_names, j->opt.init_io), r->bd.init_s, j->init_bytes);
  fprintf(f, "  \"samples\": %.17g,\n  \"time_to_train_s\": %.17g,\n", r->samples, r->time_to_train_s);
  write_json_failures(f, r);
  if (j->opt.arch == SS_ARCH_PS) {
    fprintf(f, "  \"servers\": %d,\n  \"ps_placement\": \"%s\",\n  \"server_hosts\": %d,\n  \"async\": %s,\n",
            j->opt.servers, ss_names_at(ss_placement_names, j->opt.placement), j->ps_hosts,
            j->opt.async ? "true" : "false");
    fprintf(f, "  \"server_agg_gbytes_per_s\": %.17g,\n  \"staleness_mean\": %.17g,\n  \"staleness_max\": %.17g,\n",
            j->opt.server_agg_gbytes_per_s, r->bd.staleness_mean, r->bd.staleness_max);
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
  if (j->workload->has_transformer)
    fprintf(f,
            "  \"tokens_per_s\": %.17g,\n  \"model_flops_per_s_per_gpu\": %.17g,\n  \"mfu\": %.17g,\n  "
            "\"flop_convention\": \"model FLOPs, recomputation not counted (Korthikanti et al. 2022)%s\",\n",
            r->tokens_per_s, r->model_flops_per_gpu_s, r->mfu,
            j->kernels && j->attention == SS_ATTENTION_FLASH
                ? "; causal attention counted half, as flash attention runs it"
                : "");
  if (j->mp.on)
    write_json_parallel(f, j);
  if (j->workload->has_transformer && j->workload->tf.moe.experts > 0)
    write_json_moe(f, j);
  write_json_memory(f, j);
  write_json_options(f, j);
  fprintf(f, "  \"simulated_s\": %.17g", r->simulated_s);
  if (r->stash)
    write_json_stash(f, r->stash);
  fprintf(f, "\n}\n");
}

/* Differences of equal times in the table: floating-point noise shows as 0, not -0.000. */
static double tidy(double v)
{
  return fabs(v) < 1e-12 ? 0 : v;
}

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
               k <= SS_RUN1   ? "synthetic"
               : k == SS_RUN2 ? "real data, cold cache"
                              : "real data, all cached",
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
    snprintf(label, sizeof(label), "%s (%s)", ss_category_of(ss_stash_diff_cat((ss_diff)d))->label,
             d == SS_DIFF_INTERCONNECT && !single ? "RUN1-RUN0" : formula[d]);
    if (d == SS_DIFF_NETWORK && !single) {
      fprintf(f, "  %-32s %12s %10s %8s %8s %13.3f ms\n", "network stall (one instance)", "-", "-", "-", "-",
              tl[SS_CAT_NETWORK] * 1e3);
      continue;
    }
    double v = tidy(s->part_s[d]);
    fprintf(f, "  %-32s %9.3f ms %8.1f s %7.1f%% %7.1f%% %13.3f ms\n", label, v * 1e3, v * s->iterations_per_epoch,
            tidy(s->pct[d]), 100 * v / s->bd[SS_RUN2].iteration_s, tl[ss_stash_diff_cat((ss_diff)d)] * 1e3);
  }
  fprintf(f,
          "  Stash %%: interconnect / %s, network / SINGLE, prep / RUN3 (at least 0), fetch / RUN2, as Stash's "
          "tool/analyze.py; compute / RUN2\n",
          single ? "SINGLE" : "RUN1");
  for (int i = 0; i < s->nnotes; i++)
    fprintf(f, "  note: %s\n", s->notes[i]);
}

/* The gradient line of a parameter-server job, and the workers' spread when asynchronous. */
static void write_table_ps(FILE* f, const ss_result* r)
{
  const ss_job* j = r->job;
  char cap[64], where[96];
  if (j->opt.bucket_mib > 0)
    snprintf(cap, sizeof(cap), "of up to %g MiB", j->opt.bucket_mib);
  else
    snprintf(cap, sizeof(cap), "(one per layer)");
  if (j->opt.placement == SS_PS_DEDICATED)
    snprintf(where, sizeof(where), "on %d dedicated host%s", j->ps_hosts, j->ps_hosts == 1 ? "" : "s");
  else
    snprintf(where, sizeof(where), "colocated with the workers");
  fprintf(f, "  gradients: %d bucket%s %s%s, pushed to %d parameter server%s %s, %s%s\n", j->nbuckets,
          j->nbuckets == 1 ? "" : "s", cap, j->opt.overlap ? " as backward fills them" : " after backward",
          j->opt.servers, j->opt.servers == 1 ? "" : "s", where, j->opt.async ? "asynchronous (ASGD)" : "synchronous",
          j->ps_local > 1 ? "; each instance's GPUs reduce-scatter them first and push and pull their shares, then "
                            "all-gather the parameters (--ps-aggregate instance)"
                          : "");
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

/* What the host side simulated (docs/model.md, "The host side"): one line, the figures per iteration. */
static void write_table_host(FILE* f, const ss_job* j)
{
  double issue = 0, opt = j->segs[j->nsegs - 1].host_s;
  for (int g = 0; g < j->nsegs; g++)
    issue += j->segs[g].host_s;
  fprintf(f, "  host: %.3f ms issuing per iteration (%s%.3f ms optimizer and calls after the step)", issue * 1e3,
          j->resolved.launch && j->workload->has_host_times ? "the workload's host times, "
          : j->resolved.launch                              ? "no host times in the workload, "
                                                            : "--no-launch, ",
          opt * 1e3);
  if (j->nbuckets > 0 && j->resolved.framework)
    fprintf(f, "; %s: %.0f us per collective, %.0f us per tensor%s", ss_ddp_name(j->opt.ddp),
            j->collective_host_s * 1e6, j->tensor_host_s * 1e6, j->copy_s_per_byte > 0 ? ", GPU copies" : "");
  if (j->copy_bytes > 0)
    fprintf(f, "; pageable copy of %.1f MB%s", j->copy_bytes / 1e6, j->staging_s > 0 ? " staged" : "");
  if (j->handoff_s > 0)
    fprintf(f, "; %.0f us to take a batch", j->handoff_s * 1e6);
  if (j->nmetric > 0)
    fprintf(f, "; %d metric allreduce%s", j->nmetric, j->nmetric == 1 ? "" : "s");
  fprintf(f, "%s%s\n", j->opt.item_sync ? "; loss.item() every step" : "; never waits for the GPU",
          j->opt.cuda_sync ? ", cuda synchronize after data and step" : "");
}

/* The resource that limits the run, and the others' utilisation (those above 0.05%). */
static void write_table_limit(FILE* f, const ss_breakdown* b)
{
  fprintf(f, "  limited by: %s (%.0f%% busy)", ss_res_label(b->limit), 100 * b->util[b->limit]);
  int others = 0;
  for (int k = SS_RES_COUNT - 1; k >= 0; k--) /* the GPU first, then the CPU, the disk, the links */
    if (k != (int)b->limit && b->util[k] >= 5e-4)
      fprintf(f, "%s %s %.1f%%", others++ ? "," : "; also", ss_res_label((ss_res)k), 100 * b->util[k]);
  fputc('\n', f);
}

static void write_table_dp(FILE* f, const ss_result* r);
static void write_table_network(FILE* f, const ss_result* r);

/* The lines of a tensor- or pipeline-parallel run: the schedule and its bubble, what each
 * parallelism moves, each stage's memory. */
static void write_table_parallel(FILE* f, const ss_job* j)
{
  const ss_mp* mp = &j->mp;
  double gib = 1073741824.0;
  fprintf(f, "  pipeline: %s", ss_schedule_of(mp->schedule)->label);
  if (mp->v > 1)
    fprintf(f, ", %d chunks per stage", mp->v);
  fprintf(
      f, ", its own bubble (p-1)/%sm = %.1f%% of the ideal on uniform stages; %.2f MB per micro-batch between stages\n",
      mp->v > 1 ? "v " : "", 100 * ss_pipe_bubble_closed_form(mp->schedule, mp->p, mp->v, mp->m), mp->p2p_bytes / 1e6);
  fprintf(f, "  tensor: %s%s, %s; data: %d replica%s, gradients %s%s, %s%s\n",
          j->opt.sequence_parallel ? "reduce-scatters and all-gathers (sequence parallel)" : "allreduces",
          j->opt.recompute == SS_RECOMPUTE_NONE   ? ""
          : j->opt.recompute == SS_RECOMPUTE_FULL ? ", full recomputation"
                                                  : ", selective recomputation",
          mp->tp_cross ? "across instances" : "inside an instance", mp->d, mp->d == 1 ? "" : "s",
          j->opt.distributed_optimizer ? "reduce-scattered (distributed optimizer)" : "allreduced",
          j->opt.overlap ? " during the last backward" : " after it (--no-overlap)",
          mp->dp_cross ? "across instances" : "inside an instance",
          mp->embed_s > 0 ? "; tied embeddings allreduced" : "");
  if (mp->cp > 1)
    fprintf(f,
            "  context: %d ranks a sequence, keys and values around a ring (%.2f MB a layer per GPU), %.3f ms a layer "
            "forward and %.3f ms backward not hidden by the attention\n",
            mp->cp, mp->cp_bytes * (mp->cp - 1) / 1e6, mp->cp_fwd_s * 1e3, mp->cp_bwd_s * 1e3);
  int worst = 0;
  for (int s = 1; s < mp->p; s++)
    if (mp->mem_bytes[s] > mp->mem_bytes[worst])
      worst = s;
  char parts[256];
  ss_par_in in;
  ss_derive_par_in(j, &in);
  ss_par_memory_text(&in, mp, worst, parts, sizeof(parts));
  fprintf(f, "  GPU memory %.1f of %.0f GiB at most, on stage %d (%s)\n", mp->mem_bytes[worst] / gib,
          j->platform->gpus[0].memory_bytes / gib, worst, parts);
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
  char on[192], batch[160];
  if (j->instances > 1)
    snprintf(on, sizeof(on), "%d x %s", j->instances, j->platform->instance_type);
  else
    snprintf(on, sizeof(on), "%s", j->platform->instance_type);
  if (j->mp.on) {
    char context[32] = "";
    if (j->mp.cp > 1)
      snprintf(context, sizeof(context), "context %d x ", j->mp.cp);
    snprintf(batch, sizeof(batch), "tensor %d x %spipeline %d x data %d, %d micro-batch%s of %d", j->mp.t, context,
             j->mp.p, j->mp.d, j->mp.m, j->mp.m == 1 ? "" : "es", j->mp.b);
  } else
    snprintf(batch, sizeof(batch), "batch %d per GPU%s", j->batch, j->accum > 1 ? " x" : "");
  if (!j->mp.on && j->accum > 1)
    snprintf(batch + strlen(batch), sizeof(batch) - strlen(batch), " %d accumulated (reduced after %s)", j->accum,
             ss_job_micro_reductions(j) > 1 ? "each" : "the last");
  fprintf(f, "stash-sim %s: %s on %s, %s, %s\n", SS_VERSION, j->workload->model, on, gpus, batch);
  fprintf(f, "  iteration    %10.3f ms     throughput  %10.1f samples/s\n", b->iteration_s * 1e3,
          r->throughput_samples_per_s);
  if (j->workload->has_transformer)
    fprintf(f, "  tokens       %10.0f /s     MFU         %10.1f %% (%.1f model TFLOP/s per GPU of %.1f at %s%s)\n",
            r->tokens_per_s, 100 * r->mfu, r->model_flops_per_gpu_s / 1e12, ss_job_peak_flops_scaled(j) / 1e12,
            ss_precision_name(j->precision), j->opt.compute_scale != 1 ? ", over --compute-scale" : "");
  if (j->workload->has_transformer)
    fprintf(f, "  train        %10.2f days   cost        %10.2f $ for %.4g tokens%s (%.2f $/h x %d instance%s)\n",
            r->time_to_train_s / 86400, r->cost_to_train_usd, r->samples * j->workload->tf.seq,
            j->opt.tokens > 0    ? ""
            : j->opt.samples > 0 ? " (--samples)"
                                 : " (one epoch)",
            j->price_usd_per_h, j->instances, j->instances == 1 ? "" : "s");
  else
    fprintf(f, "  epoch        %10.2f min    cost        %10.2f $ per epoch (%.2f $/h x %d instance%s)\n",
            r->epoch_s / 60, r->cost_usd_per_epoch, j->price_usd_per_h, j->instances, j->instances == 1 ? "" : "s");
  if (j->workload->has_transformer)
    write_table_failures(f, r);
  /* Where the price comes from, unless it is the default (on demand in us-east-1). */
  if (j->opt.region || j->opt.price_file || j->opt.purchase != SS_PURCHASE_AUTO || j->opt.price_date ||
      j->purchase != SS_PURCHASE_ON_DEMAND || j->price_other_region)
    fprintf(f, "  price        %s\n", j->price_source);
  fprintf(f, "  breakdown of the steady-state iteration (iterations %d-%d, mean over %d GPU%s):\n", j->warmup + 1,
          j->warmup + j->iterations, j->ngpus, j->ngpus == 1 ? "" : "s");
  for (int c = 0; c < SS_CAT_COUNT; c++)
    if (shown((ss_cat)c, j))
      fprintf(f, "    %-20s %10.3f ms %6.1f%%\n", ss_category_of((ss_cat)c)->label, b->part_s[c] * 1e3,
              100 * b->part_s[c] / b->iteration_s);
  if (b->detail_s[SS_DETAIL_INTERFERENCE] > 0 || b->detail_s[SS_DETAIL_STRAGGLER] > 0)
    fprintf(f,
            "    of the stalls: %.3f ms compute slowed by collectives (interference), %.3f ms waiting for the "
            "slowest GPU (stragglers)\n",
            b->detail_s[SS_DETAIL_INTERFERENCE] * 1e3, b->detail_s[SS_DETAIL_STRAGGLER] * 1e3);
  if (j->mp.on)
    fprintf(f,
            "    of the stalls: %.3f ms tensor-parallel collectives, %.3f ms between stages, %.3f ms data-parallel "
            "reductions%s",
            b->detail_s[SS_DETAIL_TENSOR] * 1e3, b->detail_s[SS_DETAIL_P2P] * 1e3, b->detail_s[SS_DETAIL_DATA] * 1e3,
            j->mp.ep > 1 || j->mp.etp > 1 ? "" : "\n");
  if (j->mp.on && (j->mp.ep > 1 || j->mp.etp > 1))
    fprintf(f, ", %.3f ms the experts' all-to-alls\n", b->detail_s[SS_DETAIL_A2A] * 1e3);
  write_table_limit(f, b);
  if (j->workload->has_transformer && j->workload->tf.moe.experts > 0)
    write_table_moe(f, r);
  int tf32 = j->platform->gpus[0].tf32_flops > j->platform->gpus[0].speed_flops;
  if (j->kernels)
    fprintf(f, "  compute: %s times at %s from the kernel model (%s fits), sequence %d%s, attention %s\n",
            j->platform->gpus[0].model, ss_precision_name(j->precision), j->tf_device.generation, j->workload->tf.seq,
            j->workload->max_positions > 0 && j->workload->tf.seq > j->workload->max_positions
                ? " (beyond the model's rotary positions: as if extended, at the same cost)"
                : "",
            j->attention == SS_ATTENTION_EAGER ? "eager"
            : j->tf_device.attention_kernel    ? j->tf_device.attention_kernel
                                               : ss_attention_default(j->tf_device.generation));
  else if (j->device && j->roofline)
    fprintf(f,
            "  compute: %s times from the workload's measured ratio to %s (x%.3f forward, x%.3f backward) at "
            "batch %d, carried to batch %d at %s%s by the roofline model fitted on them (measured at fp32%s)\n",
            j->device->gpu_model, j->workload->ref_gpu_model, j->device->fwd_ratio, j->device->bwd_ratio,
            ss_job_reference_batch(j), j->batch, ss_precision_name(j->precision),
            j->conv_tf32 || j->precision != SS_PRECISION_FP32 || !tf32 ? "" : ", convolutions at FP32",
            tf32 ? ", convolutions at TF32" : "");
  else if (j->device)
    fprintf(f, "  compute: %s times from the workload's measured ratio to %s (x%.3f forward, x%.3f backward)\n",
            j->device->gpu_model, j->workload->ref_gpu_model, j->device->fwd_ratio, j->device->bwd_ratio);
  else if (j->roofline)
    fprintf(f, "  compute: %s times at %s%s from the roofline model fitted per layer on %s at batch %d\n",
            j->platform->gpus[0].model, ss_precision_name(j->precision),
            j->conv_tf32 ? " (convolutions at TF32, PyTorch's default)" : "", j->workload->ref_gpu_model,
            j->workload->ref_batch);
  else if (strcmp(j->platform->gpus[0].model, j->workload->ref_gpu_model) != 0)
    fprintf(f, "  compute: %s times scaled by peak FLOPS from %s (x%.3f)\n", j->platform->gpus[0].model,
            j->workload->ref_gpu_model, j->workload->ref_gpu_flops / j->platform->gpus[0].speed_flops);
  if (j->opt.compute_scale != 1)
    fprintf(f, "  compute: every GPU kernel time x%g (--compute-scale, a what-if)\n", j->opt.compute_scale);
  if (j->resolved.jitter > 0)
    fprintf(f, "  compute: each GPU's time per iteration x a log-normal factor of mean 1, cv %g (--jitter, seed %d)\n",
            j->resolved.jitter, j->opt.seed);
  if (j->mp.on) {
    write_table_parallel(f, j);
  } else {
    write_table_dp(f, r);
  }
  write_table_network(f, r);
}

/* The lines of a data-parallel run (or parameter servers): checkpointing, memory, data, gradients,
 * host side, start-up. */
static void write_table_dp(FILE* f, const ss_result* r)
{
  const ss_job* j = r->job;
  if (j->ckpt)
    write_table_ckpt(f, j);
  write_table_memory(f, j);
  if (j->opt.synthetic == SS_SYNTH_HOST)
    fprintf(f, "  data: synthetic, in pageable host memory, copied to the GPU every iteration\n");
  else if (j->opt.synthetic)
    fprintf(f, "  data: synthetic (no loading)\n");
  else
    fprintf(f, "  data: %d loader worker%s per GPU, prefetch %d, %.0f%% of %s in page cache%s\n", j->workers,
            j->workers == 1 ? "" : "s", j->opt.prefetch, 100 * j->cache, j->workload->dataset.name,
            j->opt.async_copy && j->workers > 0 ? ", copied to the GPU by the loaders" : "");
  if (j->opt.arch == SS_ARCH_PS) {
    write_table_ps(f, r);
  } else if (j->ngpus > 1 && ss_shard_has_units(j->opt.shard)) {
    write_table_units(f, j);
  } else if (j->ngpus > 1) {
    int count[SS_ALLREDUCE_COUNT] = {0};
    for (int k = 0; k < j->nbuckets; k++)
      count[j->bucket_alg[k]]++;
    char cap[128];
    const ss_shard_mode* mode = ss_shard_mode_of(j->opt.shard);
    int sharded = ss_shard_sharded(j->opt.shard);
    ss_bucket_describe(&j->opt, cap, sizeof(cap));
    const char* when = sharded && !mode->bucket_in_backward ? ", after backward"
                       : sharded && ss_shard_overlap_comm(j->opt.shard, j->opt.overlap_comm)
                           ? ", each as backward fills it, overlapped with backward (--overlap-comm on)"
                       : sharded        ? ", each as backward fills it, backward waiting"
                       : j->opt.overlap ? ", overlapped with backward"
                                        : ", after backward (--no-overlap)";
    fprintf(f, "  gradients: %d bucket%s %s%s; %s", j->nbuckets, j->nbuckets == 1 ? "" : "s", cap, when,
            ss_coll_op_name(mode->bucket_op));
    for (int a = 0, first = 1; a < SS_ALLREDUCE_COUNT; a++)
      if (count[a]) {
        fprintf(f, "%s %s", first ? "" : ",", ss_allreduce_name((ss_allreduce)a));
        if (count[a] != j->nbuckets)
          fprintf(f, " (%d)", count[a]);
        first = 0;
      }
    fprintf(f, ", %d ring%s per instance (%s fidelity)", j->intra.nrings, j->intra.nrings == 1 ? "" : "s",
            ss_fidelity_name(j->opt.fidelity));
    if (j->interference > 0)
      fprintf(f, "; compute %g times as long while they run (interference)", 1 + j->interference);
    fprintf(f, "\n");
    if (j->npost > 0)
      fprintf(f,
              "  parameters: the step on 1/%d of them, then %d all-gather%s of %.0f MB after it, which the next "
              "forward waits for\n",
              j->ngpus, j->npost, j->npost == 1 ? "" : "s", j->post_bytes[0] / 1e6);
  }
  if (j->host)
    write_table_host(f, j);
  if (j->opt.init_io != SS_INIT_NONE)
    fprintf(f, "  start-up: %.2f s of %s reads, %.1f MB per worker from %s; %.0f samples in %.2f min with it\n",
            r->bd.init_s, ss_names_at(ss_init_io_names, j->opt.init_io), j->init_bytes / 1e6,
            j->opt.init_io == SS_INIT_SEQUENTIAL ? "instance 0's volume" : "each instance's volume", r->samples,
            r->time_to_train_s / 60);
}

/* The network line of a run over several instances, and the symmetry's. */
static void write_table_network(FILE* f, const ss_result* r)
{
  const ss_job* j = r->job;
  if (j->instances > 1) {
    fprintf(f, "  network: %g Gb/s and %g us per instance NIC", nic_gbps(j), nic_latency_us(j));
    if (j->net_transport != SS_NET_OFF)
      fprintf(f, "; NCCL over %s: %g%% of line rate, %g us per message", ss_net_names[j->net_transport],
              100 * j->net.line_fraction, j->net.message_us);
    if (j->net_sockets > 0)
      fprintf(f, ", %d TCP flow%s per connection (NCCL %s)", j->net_sockets, j->net_sockets == 1 ? "" : "s",
              ss_nccl_name(j->opt.nccl_version));
    if (j->sock_threads > 0)
      fprintf(f, ", %d thread%s per end on the CPU at %g s per GB received", j->sock_threads,
              j->sock_threads == 1 ? "" : "s", j->resolved.socket_cpu_s_per_gb);
    if (j->flow_cap_bytes_per_s > 0)
      fprintf(f, ", each capped at %g Gb/s (%s a placement group)", j->flow_cap_bytes_per_s * 8 / 1e9,
              j->opt.placement_group == 0 ? "inside" : "outside");
    if (j->opt.oversub > 1)
      fprintf(f, ", switch oversubscribed %g:1", j->opt.oversub);
    fputc('\n', f);
    int sim = ss_job_sim_instances(j);
    if (sim < j->instances)
      fprintf(f,
              "  simulated: %d of the %d identical instances, the collectives with the whole cluster's steps "
              "and sizes (docs/model.md, \"Identical instances\"; --no-symmetry: all)\n",
              sim, j->instances);
  }
  if (r->stash)
    write_table_stash(f, r->stash);
}

/* One side of a whatif in JSON. */
static void whatif_json_side(FILE* f, const char* name, const ss_result* r)
{
  const ss_job* j = r->job;
  fprintf(f, "  \"%s\": {\"platform\": ", name);
  ss_json_string(f, j->platform->instance_type);
  fprintf(f, ", \"instances\": %d, \"gpus\": %d, \"batch_per_gpu\": %d, \"arch\": \"%s\",\n", j->instances, j->ngpus,
          j->batch, ss_names_at(ss_arch_names, j->opt.arch));
  fprintf(f,
          "    \"iteration_s\": %.17g, \"throughput_samples_per_s\": %.17g, \"epoch_s\": %.17g, "
          "\"cost_usd_per_epoch\": %.17g,\n    \"breakdown\": {",
          r->bd.iteration_s, r->throughput_samples_per_s, r->epoch_s, r->cost_usd_per_epoch);
  for (int c = 0; c < SS_CAT_COUNT; c++)
    fprintf(f, "%s\"%s_s\": %.17g", c ? ", " : "", ss_cat_name((ss_cat)c), r->bd.part_s[c]);
  fprintf(f, "}}");
}

/* Write a report in JSON by json(f, arg), or in CSV from that JSON (csv.c), whose columns are
 * then the JSON's paths; rows_key names the array whose elements are the CSV's lines, if any. */
static int write_json_or_csv(FILE* f, ss_format fmt, void (*json)(FILE*, const void*), const void* arg,
                             const char* rows_key)
{
  if (fmt != SS_FORMAT_JSON)
    return ss_csv_write_from(f, json, arg, rows_key);
  json(f, arg);
  return ferror(f) ? SS_EIO : SS_OK;
}

/* A whatif comparison: both sides and what was changed. */
typedef struct whatif_arg {
  const ss_result* base;
  const ss_result* changed;
  const char* const* changes;
  int nchanges;
} whatif_arg;

static void json_whatif(FILE* f, const void* arg)
{
  const whatif_arg* a = arg;
  const ss_result *base = a->base, *changed = a->changed;
  const char* const* changes = a->changes;
  int nchanges = a->nchanges;
  double speedup = changed->throughput_samples_per_s / base->throughput_samples_per_s;
  fprintf(f, "{\n  \"schema_version\": %d,\n  \"changes\": [", SS_REPORT_SCHEMA_VERSION);
  for (int i = 0; i < nchanges; i++) {
    fputs(i ? ", " : "", f);
    ss_json_string(f, changes[i]);
  }
  fprintf(f, "],\n  \"speedup\": %.17g,\n", speedup);
  whatif_json_side(f, "base", base);
  fprintf(f, ",\n");
  whatif_json_side(f, "changed", changed);
  fprintf(f, "\n}\n");
}

int ss_report_whatif(FILE* f, const ss_result* base, const ss_result* changed, const char* const* changes, int nchanges,
                     ss_format fmt)
{
  if (fmt != SS_FORMAT_TABLE) {
    whatif_arg a = {base, changed, changes, nchanges};
    return write_json_or_csv(f, fmt, json_whatif, &a, NULL);
  }
  double speedup = changed->throughput_samples_per_s / base->throughput_samples_per_s;
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
    if (shown((ss_cat)c, base->job) || shown((ss_cat)c, changed->job))
      fprintf(f, "    %-20s %11.3f ms %11.3f ms %+9.3f ms\n", ss_category_of((ss_cat)c)->label,
              base->bd.part_s[c] * 1e3, changed->bd.part_s[c] * 1e3,
              (changed->bd.part_s[c] - base->bd.part_s[c]) * 1e3);
  fprintf(f, "  speedup: x%.3f (throughput, changed over base)\n", speedup);
  return ferror(f) ? SS_EIO : SS_OK;
}

/* A collective benchmark: the sizes, their times and algorithms. */
typedef struct bench_arg {
  const ss_job* job;
  int nsizes;
  const double* bytes;
  const double* time_s;
  const ss_allreduce* algs;
  const ss_proto* protos;
} bench_arg;

/* One size of the benchmark: its algorithm's name, its protocol's (*proto; "none" without the
 * per-call cost), algbw and busbw (GB/s, as nccl-tests: busbw = algbw x 2(n-1)/n for allreduce,
 * algbw x (n-1)/n for reduce-scatter and all-gather, the size being the whole buffer). */
static const char* bench_figures(const bench_arg* a, int k, const char** proto, double* algbw, double* busbw)
{
  int n = a->job->ngpus;
  double t = a->time_s[k];
  *algbw = t > 0 ? a->bytes[k] / t / 1e9 : 0;
  *busbw = *algbw * ss_cost_op_passes(a->job->opt.bench_op) * (n - 1) / n;
  *proto = n > 1 && a->job->resolved.call_cost ? ss_proto_name(a->protos[k]) : "none";
  if (a->job->opt.bench_op == SS_OP_ALL_TO_ALL)
    return n > 1 ? "p2p" : "none"; /* sends to every peer: no algorithm */
  return n > 1 ? ss_allreduce_name(a->algs[k]) : "none";
}

/* --verbose: the rings inside an instance, each hop with NCCL's path type and transport. */
static void write_bench_rings(FILE* f, const ss_job* j)
{
  const ss_platform* p = j->platform;
  for (int c = 0; c < j->intra.nrings && j->gpus_per_instance > 1; c++) {
    const ss_ring* ring = &j->intra.rings[c];
    fprintf(f, "# ring %d (%.1f%% of the bytes, %.2f GB/s): %s", c, 100 * ring->share,
            ring->bandwidth_bytes_per_s / 1e9, p->gpus[ring->order[0]].name);
    for (int i = 0; i < j->gpus_per_instance; i++) {
      int a = ring->order[i], b = ring->order[(i + 1) % j->gpus_per_instance];
      fprintf(f, " -%s %s-> %s", ss_path_name(ss_transport_path(p, a, b)), ss_transport_hop_name(p, a, b),
              p->gpus[b].name);
    }
    fputc('\n', f);
  }
  if (j->instances > 1)
    fprintf(f, "# between instances: the same rings as one chain per instance, joined over the network\n");
}

static void json_bench(FILE* f, const void* arg)
{
  const bench_arg* a = arg;
  const ss_job* job = a->job;
  fprintf(f, "{\n  \"schema_version\": %d,\n  \"instance\": ", SS_REPORT_SCHEMA_VERSION);
  ss_json_string(f, job->platform->instance_type);
  fprintf(f, ",\n  \"instances\": %d,\n  \"gpus\": %d,\n  \"fidelity\": \"%s\",\n", job->instances, job->ngpus,
          ss_fidelity_name(job->opt.fidelity));
  fprintf(f, "  \"collective\": \"%s\",\n  \"results\": [", ss_coll_op_name(job->opt.bench_op));
  for (int k = 0; k < a->nsizes; k++) {
    double algbw, busbw;
    const char* proto;
    const char* alg = bench_figures(a, k, &proto, &algbw, &busbw);
    fprintf(f,
            "%s\n    {\"size_bytes\": %.0f, \"count\": %.0f, \"algorithm\": \"%s\", \"protocol\": \"%s\", "
            "\"time_s\": %.9e, \"algbw_gbytes_per_s\": %.6f, \"busbw_gbytes_per_s\": %.6f",
            k ? "," : "", a->bytes[k], floor(a->bytes[k] / 4), alg, proto, a->time_s[k], algbw, busbw);
    if (job->opt.bench_op == SS_OP_ALL_TO_ALL) {
      /* The closed form the training runs time their all-to-alls with, beside the flows' time. */
      ss_a2a_time at;
      ss_a2a_time_of(job, &(ss_a2a_shape){job->gpus_per_instance, 1, job->instances}, a->bytes[k], &at);
      fprintf(f, ", \"closed_form_time_s\": %.9e}", at.total_s);
      continue;
    }
    /* NCCL's own prediction (its tuning model) of the same call, beside the simulated time. */
    ss_allreduce model_alg;
    ss_proto model_proto;
    double model_s = ss_tuner_predict(job, job->opt.bench_op, a->bytes[k], &model_alg, &model_proto);
    if (model_s >= 0)
      fprintf(f, ", \"nccl_model_time_s\": %.9e, \"nccl_model_algorithm\": \"%s\", \"nccl_model_protocol\": \"%s\"}",
              model_s, ss_allreduce_name(model_alg), ss_proto_name(model_proto));
    else
      fprintf(f, ", \"nccl_model_time_s\": null, \"nccl_model_algorithm\": null, \"nccl_model_protocol\": null}");
  }
  fprintf(f, "\n  ]\n}\n");
}

int ss_report_bench(FILE* f, const ss_job* job, int nsizes, const double* bytes, const double* time_s,
                    const ss_allreduce* algs, const ss_proto* protos, ss_format fmt)
{
  bench_arg a = {job, nsizes, bytes, time_s, algs, protos};
  int proto_col = job->resolved.call_cost; /* without it, the table is as before protocols existed */
  if (fmt != SS_FORMAT_TABLE)
    return write_json_or_csv(f, fmt, json_bench, &a, "results");
  ss_coll_op op = job->opt.bench_op;
  fprintf(f, "# stash-sim bench %s: %s x %d, %d GPUs (%d per instance), float%s, fidelity %s\n", ss_coll_op_name(op),
          job->platform->instance_type, job->instances, job->ngpus, job->gpus_per_instance,
          op == SS_OP_ALL_GATHER || op == SS_OP_ALL_TO_ALL ? "" : " sum", ss_fidelity_name(job->opt.fidelity));
  fprintf(f, "# busbw = algbw x %s(n-1)/n (nccl-tests)%s\n", op == SS_OP_ALLREDUCE ? "2" : "",
          op == SS_OP_ALLREDUCE    ? ""
          : op == SS_OP_ALL_TO_ALL ? "; size: each GPU's whole buffer, 1/n to each peer"
                                   : "; size: the whole buffer, n shards");
  if (job->opt.verbose)
    write_bench_rings(f, job);
  fprintf(f, "#%14s %12s %13s%*s %12s %11s %11s\n", "size(B)", "count", "algorithm", proto_col ? 9 : 0,
          proto_col ? "protocol" : "", "time(us)", "algbw(GB/s)", "busbw(GB/s)");
  for (int k = 0; k < nsizes; k++) {
    double algbw, busbw;
    const char* proto;
    const char* alg = bench_figures(&a, k, &proto, &algbw, &busbw);
    fprintf(f, " %14.0f %12.0f %13s%*s %12.2f %11.2f %11.2f\n", bytes[k], floor(bytes[k] / 4), alg, proto_col ? 9 : 0,
            proto_col ? proto : "", time_s[k] * 1e6, algbw, busbw);
  }
  return ferror(f) ? SS_EIO : SS_OK;
}

static void json_result(FILE* f, const void* r)
{
  write_json(f, r);
}

int ss_report_write(FILE* f, const ss_result* r, ss_format fmt)
{
  if (fmt == SS_FORMAT_TABLE) {
    write_table(f, r);
    return ferror(f) ? SS_EIO : SS_OK;
  }
  return write_json_or_csv(f, fmt, json_result, r, NULL);
}
