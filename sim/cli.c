/* cli: parse stash-sim's command line. */
#include "cli.h"

#include "report.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
  OPT_BUCKET = 256, OPT_NO_OVERLAP, OPT_SYNTHETIC, OPT_CACHE, OPT_FORMAT, OPT_VERSION, OPT_WARMUP, OPT_PREFETCH,
  OPT_INSTANCES, OPT_NIC_GBPS, OPT_NIC_LATENCY, OPT_OVERSUB, OPT_ALLREDUCE, OPT_FIDELITY, OPT_MIN_BYTES,
  OPT_MAX_BYTES, OPT_ITERS, OPT_STASH, OPT_STASH_SINGLE, OPT_COMPUTE_SCALE, OPT_ASYNC_COPY, OPT_ARCH, OPT_SERVERS, OPT_PLACEMENT, OPT_SERVER_HOSTS, OPT_SYNC, OPT_ASYNC,
  OPT_SERVER_AGG, OPT_INIT_IO, OPT_INIT_SHARD, OPT_SAMPLES, OPT_NO_NVLINK, OPT_CHANGE, OPT_TRACE
};

static const struct option long_options[] = {
    {"gpus", required_argument, NULL, 'g'},      {"batch", required_argument, NULL, 'b'},
    {"iterations", required_argument, NULL, 'n'}, {"warmup", required_argument, NULL, OPT_WARMUP},
    {"bucket-mb", required_argument, NULL, OPT_BUCKET}, {"no-overlap", no_argument, NULL, OPT_NO_OVERLAP},
    {"synthetic", no_argument, NULL, OPT_SYNTHETIC}, {"workers", required_argument, NULL, 'w'},
    {"prefetch", required_argument, NULL, OPT_PREFETCH}, {"cache", required_argument, NULL, OPT_CACHE},
    {"format", required_argument, NULL, OPT_FORMAT}, {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},             {"version", no_argument, NULL, OPT_VERSION},
    {"instances", required_argument, NULL, OPT_INSTANCES}, {"nic-gbps", required_argument, NULL, OPT_NIC_GBPS},
    {"nic-latency-us", required_argument, NULL, OPT_NIC_LATENCY}, {"oversub", required_argument, NULL, OPT_OVERSUB},
    {"allreduce", required_argument, NULL, OPT_ALLREDUCE}, {"fidelity", required_argument, NULL, OPT_FIDELITY},
    {"min-bytes", required_argument, NULL, OPT_MIN_BYTES}, {"max-bytes", required_argument, NULL, OPT_MAX_BYTES},
    {"iters", required_argument, NULL, OPT_ITERS}, {"stash", no_argument, NULL, OPT_STASH},
    {"stash-single", required_argument, NULL, OPT_STASH_SINGLE},
    {"compute-scale", required_argument, NULL, OPT_COMPUTE_SCALE}, {"async-copy", no_argument, NULL, OPT_ASYNC_COPY},
    {"arch", required_argument, NULL, OPT_ARCH}, {"servers", required_argument, NULL, OPT_SERVERS},
    {"ps-placement", required_argument, NULL, OPT_PLACEMENT}, {"server-hosts", required_argument, NULL, OPT_SERVER_HOSTS},
    {"sync", no_argument, NULL, OPT_SYNC}, {"async", no_argument, NULL, OPT_ASYNC},
    {"server-agg-gbps", required_argument, NULL, OPT_SERVER_AGG}, {"init-io", required_argument, NULL, OPT_INIT_IO},
    {"init-shard-mb", required_argument, NULL, OPT_INIT_SHARD}, {"samples", required_argument, NULL, OPT_SAMPLES},
    {"no-nvlink", no_argument, NULL, OPT_NO_NVLINK}, {"change", required_argument, NULL, OPT_CHANGE},
    {"trace", required_argument, NULL, OPT_TRACE},
    {NULL, 0, NULL, 0}};

/* Options of training runs only, and of the benchmark only. */
static const int train_only[] = {'b', 'n', OPT_WARMUP, OPT_BUCKET, OPT_NO_OVERLAP, OPT_SYNTHETIC, 'w', OPT_PREFETCH,
                                 OPT_CACHE, OPT_STASH, OPT_STASH_SINGLE, OPT_COMPUTE_SCALE, OPT_ASYNC_COPY, OPT_ARCH, OPT_SERVERS, OPT_PLACEMENT,
                                 OPT_SERVER_HOSTS, OPT_SYNC, OPT_ASYNC, OPT_SERVER_AGG, OPT_INIT_IO, OPT_INIT_SHARD,
                                 OPT_SAMPLES, OPT_TRACE, 0};
static const int bench_only[] = {OPT_MIN_BYTES, OPT_MAX_BYTES, OPT_ITERS, 0};
static const int not_whatif[] = {OPT_STASH, OPT_STASH_SINGLE, OPT_TRACE, 0};

static const char* option_name(int ch)
{
  for (const struct option* o = long_options; o->name; o++)
    if (o->val == ch)
      return o->name;
  return "?";
}

static int listed(const int* list, int ch)
{
  for (; *list; list++)
    if (*list == ch)
      return 1;
  return 0;
}

static const char ps_help[] =
    "      --arch A         allreduce (default) or ps: workers push gradients to parameter servers\n"
    "                       and pull the parameters back\n"
    "      --servers K      parameter-server shards, parameters split by bytes (default 1)\n"
    "      --ps-placement P dedicated (servers on hosts of their own, default) or colocated (on the\n"
    "                       CPU hosts of the worker instances)\n"
    "      --server-hosts M dedicated server hosts (default: one per server)\n"
    "      --sync, --async  a step waits for every worker (default), or ASGD: each on its own\n"
    "      --server-agg-gbps X  GB/s of gradient one server core sums and applies (default 2)\n"
    "      --init-io M      start-up, as CNTK: every worker reads the model and its input shard,\n"
    "                       sequential (one after another from instance 0's volume) or parallel\n"
    "                       (all at once, each from its instance's volume); default none\n"
    "      --init-shard-mb X  MiB of input each worker reads at start-up (default 32)\n"
    "      --samples N      samples to train for the time-to-train figure (default: one epoch)\n";

static const char cluster_help[] =
    "      --instances N    N copies of the instance joined by a network switch (default 1)\n"
    "      --nic-gbps X     network bandwidth of each instance in Gb/s, split over its NICs\n"
    "                       (default: the instance file's NIC links)\n"
    "      --nic-latency-us X  latency of each NIC link (default: the instance file's)\n"
    "      --oversub X      switch oversubscription >= 1: the core carries N x NIC / X (default 1)\n"
    "      --allreduce ALG  ring, tree, hierarchical or auto (default auto: ring on one instance,\n"
    "                       else the algorithm with the shortest predicted time for each size)\n"
    "      --no-nvlink      what-if: traffic between GPUs over PCIe, as if NVLink were off\n"
    "      --fidelity F     fast (one flow per hop and phase, default) or reference (one\n"
    "                       communication per chunk and step: a ring costs O(GPUs^2))\n";

void ss_cli_usage(FILE* f, int bench)
{
  if (bench == 2) {
    fputs("usage: stash-sim whatif PLATFORM.xml WORKLOAD.json [options] --change KEY=VALUE ...\n"
          "\n"
          "Simulates the job of PLATFORM, WORKLOAD and the options (the base), and the same job with\n"
          "every change applied (the changed one), each in a process of its own, and reports both,\n"
          "the speedup (changed throughput over base throughput) and how each part of the iteration\n"
          "moved. Keys: nic_gbps, nic_latency_us, oversub, instances, gpus, batch, workers, prefetch,\n"
          "cache, allreduce, arch, servers, ps_placement, server_hosts, server_agg_gbps, bucket_mb,\n"
          "compute_scale, fidelity (the options of the same names), nvlink, async, overlap,\n"
          "synthetic, async_copy (on or off), platform (another instance file).\n"
          "Example: stash-sim whatif platforms/p3.16xl.xml workloads/vgg11.json --instances 4 \\\n"
          "           --change nic_gbps=100\n"
          "The options are stash-sim's (see stash-sim --help), but --stash.\n",
          f);
    return;
  }
  if (bench) {
    fputs("usage: stash-sim bench allreduce PLATFORM.xml [options] [--cfg=SIMGRID_OPTION ...]\n"
          "\n"
          "Simulates allreduces among the GPUs of PLATFORM (or of a cluster of it) and prints, as\n"
          "nccl-tests' all_reduce_perf does, for each size: time, algbw = size / time and\n"
          "busbw = algbw x 2(n-1)/n.\n"
          "\n"
          "options:\n"
          "  -g, --gpus K         use the first K GPUs of each instance (default: all)\n",
          f);
    fputs(cluster_help, f);
    fputs("      --min-bytes B    smallest size (default 8)\n"
          "      --max-bytes B    largest size, sizes doubling in between (default 1073741824)\n"
          "      --iters R        allreduces per size; the time is their mean (default 5)\n"
          "      --format FMT     table, json or csv (default table)\n"
          "  -o, --output FILE    write the results to FILE instead of standard output\n"
          "  -h, --help           print this help and exit\n",
          f);
    return;
  }
  fputs("usage: stash-sim PLATFORM.xml WORKLOAD.json[.gz] [options] [--cfg=SIMGRID_OPTION ...]\n"
        "\n"
        "Simulates synchronous data-parallel training of WORKLOAD on the GPU instance PLATFORM and\n"
        "prints the steady-state iteration time, throughput, $ per epoch and where the time goes:\n"
        "compute, prep (CPU) stall, fetch (disk) stall, interconnect stall, network stall.\n"
        "\n"
        "options:\n"
        "  -g, --gpus K         use the first K GPUs of the instance (default: all)\n"
        "  -b, --batch B        per-GPU batch (default: the workload's batch_per_gpu)\n"
        "  -n, --iterations N   measured iterations after warm-up (default 10; with data loading,\n"
        "                       rounded up to whole cycles of the loader processes per GPU)\n"
        "      --warmup N       iterations run before measuring (default 2)\n"
        "      --bucket-mb X    gradient bucket cap in MiB, as PyTorch DDP (default 25); 0: one\n"
        "                       allreduce per layer, unfused\n"
        "      --no-overlap     start gradient collectives only after the whole backward pass\n"
        "      --compute-scale X  what-if: multiply every GPU kernel time by X (0.5: twice as\n"
        "                       fast, e.g. mixed precision; default 1)\n"
        "      --synthetic      no data loading (synthetic data, as benchmarks do)\n"
        "  -w, --workers W      loader processes per GPU, as PyTorch num_workers; 0 loads in the\n"
        "                       training process and blocks it (default: vCPUs / GPUs)\n"
        "      --prefetch P     batches each loader process keeps ready (default 2)\n"
        "      --async-copy     loader processes copy batches to the GPU ahead of use, as DALI\n"
        "                       does (default: the training process copies each batch it takes)\n"
        "      --cache F        fraction of the dataset in the page cache, 0..1\n"
        "                       (default: what fits in 80% of the instance's memory)\n"
        "      --format FMT     table, json or csv (default table)\n"
        "  -o, --output FILE    write the report to FILE instead of standard output\n"
        "      --trace FILE     write the simulated run as a Chrome trace (.json, or .json.gz):\n"
        "                       open it in Perfetto or chrome://tracing\n"
        "      --stash          Stash's differential breakdown: simulate RUN0 (synthetic, 1 GPU), RUN1\n"
        "                       (synthetic), RUN2 (cold cache), RUN3 (all cached) and, for several\n"
        "                       instances, the same GPUs on one instance; report their differences\n"
        "                       beside RUN2's timeline breakdown\n"
        "      --stash-single FILE  the instance of that single-instance run (default: the instance\n"
        "                       file beside PLATFORM with the same GPU model and as many GPUs, else\n"
        "                       the nearest)\n",
        f);
  fputs(cluster_help, f);
  fputs(ps_help, f);
  fputs("  -h, --help           print this help and exit\n"
        "      --version        print the version and exit\n"
        "  --cfg=NAME:VALUE, --log=...  passed to SimGrid\n"
        "\n"
        "stash-sim bench allreduce PLATFORM.xml [options]: the collective benchmark (see its --help).\n"
        "PLATFORM and WORKLOAD may be short names (stash-sim p3.16xl resnet50): see stash-sim list --help.\n"
        "Exit status: 0 on success, 1 on bad input (files), 2 on a usage error.\n",
        f);
}

static int usage_error(char* msg, size_t size, const char* fmt, const char* a, const char* b)
{
  char inner[512];
  snprintf(inner, sizeof(inner), fmt, a, b);
  snprintf(msg, size, "stash-sim: error: %s (see --help)", inner);
  return 2;
}

/* Whole number in [lo, hi]. */
static int parse_int(const char* s, long lo, long hi, int* out)
{
  char* end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi)
    return -1;
  *out = (int)v;
  return 0;
}

/* Finite number in [lo, hi], lo excluded when lo_open. */
static int parse_real(const char* s, double lo, int lo_open, double hi, double* out)
{
  char* end = NULL;
  double v = strtod(s, &end);
  if (end == s || *end || !isfinite(v) || v < lo || (lo_open && v == lo) || v > hi)
    return -1;
  *out = v;
  return 0;
}

static int parse_option(int ch, const char* arg, ss_cli* cli, char* msg, size_t size)
{
  ss_options* o = &cli->opt;
  switch (ch) {
    case OPT_INSTANCES:
      return parse_int(arg, 1, SS_MAX_INSTANCES, &o->instances) ? usage_error(msg, size, "--instances expects a whole number from 1 to 65536, got '%s'%s", arg, "") : 0;
    case OPT_NIC_GBPS:
      return parse_real(arg, 0, 1, 1e6, &o->nic_gbps) ? usage_error(msg, size, "--nic-gbps expects a bandwidth in Gb/s, > 0 and at most 1e6, got '%s'%s", arg, "") : 0;
    case OPT_NIC_LATENCY:
      return parse_real(arg, 0, 0, 1e6, &o->nic_latency_us) ? usage_error(msg, size, "--nic-latency-us expects microseconds from 0 to 1e6, got '%s'%s", arg, "") : 0;
    case OPT_OVERSUB:
      return parse_real(arg, 1, 0, 1e6, &o->oversub) ? usage_error(msg, size, "--oversub expects a ratio from 1 to 1e6, got '%s'%s", arg, "") : 0;
    case OPT_ALLREDUCE:
      return ss_allreduce_by_name(arg, &o->allreduce) ? usage_error(msg, size, "--allreduce expects ring, tree, hierarchical or auto, got '%s'%s", arg, "") : 0;
    case OPT_FIDELITY:
      return ss_fidelity_by_name(arg, &o->fidelity) ? usage_error(msg, size, "--fidelity expects fast or reference, got '%s'%s", arg, "") : 0;
    case OPT_MIN_BYTES:
      return parse_real(arg, 1, 0, 1e13, &cli->min_bytes) ? usage_error(msg, size, "--min-bytes expects a size in bytes from 1 to 1e13, got '%s'%s", arg, "") : 0;
    case OPT_MAX_BYTES:
      return parse_real(arg, 1, 0, 1e13, &cli->max_bytes) ? usage_error(msg, size, "--max-bytes expects a size in bytes from 1 to 1e13, got '%s'%s", arg, "") : 0;
    case OPT_ITERS:
      return parse_int(arg, 1, 1000000, &cli->bench_iters) ? usage_error(msg, size, "--iters expects a whole number >= 1, got '%s'%s", arg, "") : 0;
    case 'g':
      return parse_int(arg, 1, 1000000, &o->gpus) ? usage_error(msg, size, "--gpus expects a whole number >= 1, got '%s'%s", arg, "") : 0;
    case 'b':
      return parse_int(arg, 1, 10000000, &o->batch) ? usage_error(msg, size, "--batch expects a whole number >= 1, got '%s'%s", arg, "") : 0;
    case 'n':
      return parse_int(arg, 1, 1000000, &o->iterations) ? usage_error(msg, size, "--iterations expects a whole number >= 1, got '%s'%s", arg, "") : 0;
    case OPT_WARMUP:
      return parse_int(arg, 0, 1000000, &o->warmup) ? usage_error(msg, size, "--warmup expects a whole number >= 0, got '%s'%s", arg, "") : 0;
    case OPT_BUCKET:
      return parse_real(arg, 0, 0, 1e6, &o->bucket_mb) ? usage_error(msg, size, "--bucket-mb expects a number of MiB >= 0, got '%s'%s", arg, "") : 0;
    case 'w':
      return parse_int(arg, 0, 4096, &o->workers) ? usage_error(msg, size, "--workers expects a whole number from 0 to 4096, got '%s'%s", arg, "") : 0;
    case OPT_PREFETCH:
      return parse_int(arg, 1, 1024, &o->prefetch) ? usage_error(msg, size, "--prefetch expects a whole number from 1 to 1024, got '%s'%s", arg, "") : 0;
    case OPT_CACHE:
      return parse_real(arg, 0, 0, 1, &o->cache) ? usage_error(msg, size, "--cache expects a fraction from 0 to 1, got '%s'%s", arg, "") : 0;
    case OPT_FORMAT:
      return ss_report_format_by_name(arg, &o->format) ? usage_error(msg, size, "--format expects table, json or csv, got '%s'%s", arg, "") : 0;
    case 'o':
      o->output = arg;
      return 0;
    case OPT_NO_OVERLAP:
      o->overlap = 0;
      return 0;
    case OPT_SYNTHETIC:
      o->synthetic = 1;
      return 0;
    case OPT_COMPUTE_SCALE:
      return parse_real(arg, 0, 1, 1000, &o->compute_scale) ? usage_error(msg, size, "--compute-scale expects a factor > 0 and at most 1000, got '%s'%s", arg, "") : 0;
    case OPT_ASYNC_COPY:
      o->async_copy = 1;
      return 0;
    case OPT_ARCH:
      return ss_arch_by_name(arg, &o->arch) ? usage_error(msg, size, "--arch expects allreduce or ps, got '%s'%s", arg, "") : 0;
    case OPT_SERVERS:
      cli->ps_option = cli->ps_option ? cli->ps_option : "--servers";
      return parse_int(arg, 1, SS_MAX_SERVERS, &o->servers) ? usage_error(msg, size, "--servers expects a whole number from 1 to 4096, got '%s'%s", arg, "") : 0;
    case OPT_PLACEMENT:
      cli->ps_option = cli->ps_option ? cli->ps_option : "--ps-placement";
      return ss_placement_by_name(arg, &o->placement) ? usage_error(msg, size, "--ps-placement expects dedicated or colocated, got '%s'%s", arg, "") : 0;
    case OPT_SERVER_HOSTS:
      cli->ps_option = cli->ps_option ? cli->ps_option : "--server-hosts";
      return parse_int(arg, 1, SS_MAX_SERVERS, &o->server_hosts) ? usage_error(msg, size, "--server-hosts expects a whole number from 1 to 4096, got '%s'%s", arg, "") : 0;
    case OPT_SERVER_AGG:
      cli->ps_option = cli->ps_option ? cli->ps_option : "--server-agg-gbps";
      return parse_real(arg, 0, 1, 1e9, &o->server_agg_gbps) ? usage_error(msg, size, "--server-agg-gbps expects GB/s > 0, got '%s'%s", arg, "") : 0;
    case OPT_INIT_IO:
      return ss_init_io_by_name(arg, &o->init_io) ? usage_error(msg, size, "--init-io expects none, sequential or parallel, got '%s'%s", arg, "") : 0;
    case OPT_INIT_SHARD:
      return parse_real(arg, 0, 0, 1e9, &o->init_shard_mb) ? usage_error(msg, size, "--init-shard-mb expects MiB from 0 to 1e9, got '%s'%s", arg, "") : 0;
    case OPT_SAMPLES:
      return parse_real(arg, 1, 0, 1e15, &o->samples) ? usage_error(msg, size, "--samples expects a number of samples from 1 to 1e15, got '%s'%s", arg, "") : 0;
    case OPT_NO_NVLINK:
      o->no_nvlink = 1;
      return 0;
    case OPT_TRACE:
      o->trace = arg;
      return 0;
    case OPT_SYNC:
      cli->sync_given = 1;
      o->async = 0;
      return 0;
    case OPT_ASYNC:
      cli->async_given = 1;
      o->async = 1;
      return 0;
    case OPT_STASH:
      cli->stash = 1;
      return 0;
    case OPT_STASH_SINGLE:
      cli->stash_single = arg;
      return 0;
  }
  return usage_error(msg, size, "internal: unhandled option%s%s", "", "");
}

/* getopt said '?': an unknown short option (optopt), a known flag given a value, or an unknown
 * long option (arg is the argument getopt stopped at). */
static int unknown_option(const char* arg, char* msg, size_t size)
{
  for (const struct option* o = long_options; optopt && o->name; o++)
    if (o->val == optopt && o->has_arg == no_argument && strncmp(arg, "--", 2) == 0)
      return usage_error(msg, size, "option '--%s' takes no value%s", o->name, "");
  if (optopt > 0 && optopt < 256) {
    char opt[3] = {'-', (char)optopt, '\0'};
    return usage_error(msg, size, "unknown option '%s'%s", opt, "");
  }
  return usage_error(msg, size, "unknown option '%s'%s", arg, "");
}

/* The parameter-server options hang together: they need --arch ps, --async needs it too, and a
 * dedicated server runs on a host of its own. */
static int check_ps(const ss_cli* c, char* msg, size_t size)
{
  const ss_options* o = &c->opt;
  if (c->help || c->version)
    return 0;
  if (c->sync_given && c->async_given)
    return usage_error(msg, size, "give --sync or --async, not both%s%s", "", "");
  if (o->arch != SS_ARCH_PS && c->async_given)
    return usage_error(msg, size, "--async is asynchronous SGD with parameter servers: it needs --arch ps (allreduce is "
                       "synchronous)%s%s", "", "");
  if (o->arch != SS_ARCH_PS && c->ps_option)
    return usage_error(msg, size, "%s goes with --arch ps%s", c->ps_option, "");
  if (o->arch == SS_ARCH_PS && o->placement == SS_PS_COLOCATED && o->server_hosts > 0)
    return usage_error(msg, size, "--server-hosts is for dedicated servers; colocated ones run on the worker "
                       "instances%s%s", "", "");
  if (o->arch == SS_ARCH_PS && o->placement == SS_PS_DEDICATED && o->server_hosts > 0 && o->servers > o->server_hosts) {
    char a[32], b[32];
    snprintf(a, sizeof(a), "%d", o->servers);
    snprintf(b, sizeof(b), "%d", o->server_hosts);
    return usage_error(msg, size, "--servers %s on %s dedicated server hosts: a dedicated server has a host of its own "
                       "(add hosts, or --ps-placement colocated)", a, b);
  }
  return 0;
}

/* What a whatif change may set: KEY=VALUE goes through the option of the same meaning, so it is
 * checked as that option is; "on"/"off" keys are flags. */
typedef struct change_key {
  const char* key;
  int option; /* 0: special (below) */
} change_key;

static const change_key change_keys[] = {
    {"nic_gbps", OPT_NIC_GBPS}, {"nic_latency_us", OPT_NIC_LATENCY}, {"oversub", OPT_OVERSUB},
    {"instances", OPT_INSTANCES}, {"gpus", 'g'}, {"batch", 'b'}, {"workers", 'w'}, {"prefetch", OPT_PREFETCH},
    {"cache", OPT_CACHE}, {"allreduce", OPT_ALLREDUCE}, {"arch", OPT_ARCH}, {"servers", OPT_SERVERS},
    {"ps_placement", OPT_PLACEMENT}, {"server_hosts", OPT_SERVER_HOSTS}, {"server_agg_gbps", OPT_SERVER_AGG},
    {"bucket_mb", OPT_BUCKET}, {"compute_scale", OPT_COMPUTE_SCALE}, {"fidelity", OPT_FIDELITY},
    {"nvlink", 0}, {"async", 0}, {"overlap", 0}, {"synthetic", 0}, {"async_copy", 0}, {"platform", 0},
    {NULL, 0}};

static int on_off(const char* change, const char* value, int* out, char* msg, size_t size)
{
  if (strcmp(value, "on") == 0 || strcmp(value, "off") == 0) {
    *out = strcmp(value, "on") == 0;
    return 0;
  }
  return usage_error(msg, size, "--change %s: expected on or off%s", change, "");
}

/* Apply one KEY=VALUE to c->changed (through parse_option on a scratch copy of c). */
static int apply_change(ss_cli* c, const char* change, char* msg, size_t size)
{
  const char* eq = strchr(change, '=');
  char key[64];
  if (!eq || eq == change || (size_t)(eq - change) >= sizeof(key))
    return usage_error(msg, size, "--change expects KEY=VALUE, got '%s'%s", change, "");
  snprintf(key, sizeof(key), "%.*s", (int)(eq - change), change);
  const char* value = eq + 1;
  const change_key* k = change_keys;
  while (k->key && strcmp(k->key, key) != 0)
    k++;
  if (!k->key)
    return usage_error(msg, size, "--change: unknown key '%s' (nic_gbps, nic_latency_us, oversub, instances, gpus, "
                       "batch, workers, prefetch, cache, allreduce, arch, servers, ps_placement, server_hosts, "
                       "server_agg_gbps, bucket_mb, compute_scale, fidelity, nvlink, async, overlap, synthetic, "
                       "async_copy, platform)%s", key, "");
  ss_options* o = &c->changed;
  int flag = 0;
  if (k->option) {
    ss_cli scratch = *c;
    scratch.opt = *o;
    int rc = parse_option(k->option, value, &scratch, msg, size);
    *o = scratch.opt;
    /* Moving to allreduce leaves ASGD behind: allreduce is synchronous. */
    if (!rc && k->option == OPT_ARCH && o->arch == SS_ARCH_ALLREDUCE)
      o->async = 0;
    return rc;
  }
  if (strcmp(key, "platform") == 0) {
    if (!*value)
      return usage_error(msg, size, "--change platform= expects a platform file%s%s", "", "");
    o->platform_path = value;
    return 0;
  }
  if (on_off(change, value, &flag, msg, size))
    return 2;
  if (strcmp(key, "nvlink") == 0)
    o->no_nvlink = !flag;
  else if (strcmp(key, "async") == 0)
    o->async = flag;
  else if (strcmp(key, "overlap") == 0)
    o->overlap = flag;
  else if (strcmp(key, "synthetic") == 0)
    o->synthetic = flag;
  else
    o->async_copy = flag;
  return 0;
}

/* whatif: at least one change, each valid, and a changed configuration that holds together. */
static int apply_changes(ss_cli* c, char* msg, size_t size)
{
  if (c->nchanges == 0)
    return usage_error(msg, size, "'stash-sim whatif' needs at least one --change KEY=VALUE%s%s", "", "");
  c->changed = c->opt;
  for (int i = 0; i < c->nchanges; i++) {
    int rc = apply_change(c, c->changes[i], msg, size);
    if (rc)
      return rc;
  }
  const ss_options* o = &c->changed;
  if (o->async && o->arch != SS_ARCH_PS)
    return usage_error(msg, size, "the changed configuration is asynchronous without parameter servers (add "
                       "arch=ps or async=off)%s%s", "", "");
  if (o->arch == SS_ARCH_PS && o->placement == SS_PS_DEDICATED && o->server_hosts > 0 && o->servers > o->server_hosts)
    return usage_error(msg, size, "the changed configuration has more servers than dedicated server hosts%s%s", "", "");
  return 0;
}

int ss_cli_parse(int argc, char** argv, ss_cli* out, char* msg, size_t msg_size)
{
  memset(out, 0, sizeof(*out));
  ss_options_default(&out->opt);
  out->min_bytes = 8;
  out->max_bytes = 1073741824.0;
  out->bench_iters = 5;
  /* SimGrid's options go aside; getopt sees the rest. */
  out->cfg = calloc((size_t)argc + 1, sizeof(char*));
  char** rest = calloc((size_t)argc + 1, sizeof(char*));
  if (!out->cfg || !rest) {
    free(rest);
    snprintf(msg, msg_size, "stash-sim: error: out of memory");
    return 2;
  }
  int nrest = 0, first = 1;
  out->changes = calloc((size_t)argc + 1, sizeof(char*));
  if (!out->changes) {
    free(rest);
    snprintf(msg, msg_size, "stash-sim: error: out of memory");
    return 2;
  }
  if (argc > 1 && strcmp(argv[1], "whatif") == 0) {
    out->whatif = 1;
    first = 2;
  }
  /* "stash-sim bench allreduce ...": the subcommand words are not getopt's. */
  if (argc > 1 && strcmp(argv[1], "bench") == 0) {
    out->bench = 1;
    if (argc < 3 || strcmp(argv[2], "allreduce") != 0) {
      free(rest);
      return argc < 3 ? usage_error(msg, msg_size, "'stash-sim bench' expects 'allreduce', got nothing%s%s", "", "")
                      : usage_error(msg, msg_size, "'stash-sim bench' expects 'allreduce', got '%s'%s", argv[2], "");
    }
    first = 3;
  }
  rest[nrest++] = argv[0];
  for (int i = first; i < argc; i++) {
    if (strncmp(argv[i], "--cfg=", 6) == 0 || strncmp(argv[i], "--log=", 6) == 0)
      out->cfg[out->ncfg++] = argv[i];
    else
      rest[nrest++] = argv[i];
  }
  int rc = 0;
  opterr = 0;
  optind = 1;
  int ch;
  while (!rc && (ch = getopt_long(nrest, rest, ":g:b:n:w:o:h", long_options, NULL)) != -1) {
    if (ch == 'h')
      out->help = 1;
    else if (ch == OPT_VERSION)
      out->version = 1;
    else if (ch == '?')
      rc = unknown_option(rest[optind - 1], msg, msg_size);
    else if (ch == ':')
      rc = usage_error(msg, msg_size, "option '%s' needs a value%s", rest[optind - 1], "");
    else if (listed(out->bench ? train_only : bench_only, ch))
      rc = usage_error(msg, msg_size, out->bench ? "option '--%s' is for training runs, not 'bench allreduce'%s"
                                                 : "option '--%s' is for 'stash-sim bench allreduce'%s",
                       option_name(ch), "");
    else if (ch == OPT_CHANGE && !out->whatif)
      rc = usage_error(msg, msg_size, "option '--change' is for 'stash-sim whatif'%s%s", "", "");
    else if (ch == OPT_CHANGE)
      out->changes[out->nchanges++] = optarg;
    else if (out->whatif && listed(not_whatif, ch))
      rc = usage_error(msg, msg_size, "option '--%s' is not for 'stash-sim whatif'%s", option_name(ch), "");
    else
      rc = parse_option(ch, optarg, out, msg, msg_size);
  }
  if (!rc && out->bench && !out->help) {
    if (nrest - optind != 1)
      rc = usage_error(msg, msg_size, "'bench allreduce' expects one PLATFORM.xml, got %s%s",
                       nrest - optind == 0 ? "none" : "more", "");
    else if (out->min_bytes > out->max_bytes)
      rc = usage_error(msg, msg_size, "--min-bytes is larger than --max-bytes%s%s", "", "");
    else
      out->opt.platform_path = rest[optind];
    free(rest);
    return rc;
  }
  if (!rc && !out->help && !out->version && out->stash && out->opt.synthetic)
    rc = usage_error(msg, msg_size, "--stash makes its own synthetic and real-data runs: drop --synthetic%s%s", "", "");
  if (!rc && !out->help && !out->version && out->stash && out->opt.cache >= 0)
    rc = usage_error(msg, msg_size, "--stash makes its own cold-cache and cached runs: drop --cache%s%s", "", "");
  rc = rc ? rc : check_ps(out, msg, msg_size);
  if (!rc && !out->help && !out->version && out->stash && out->opt.trace)
    rc = usage_error(msg, msg_size, "--trace records one run; --stash makes several%s%s", "", "");
  if (!rc && !out->help && !out->version && out->stash_single && !out->stash)
    rc = usage_error(msg, msg_size, "--stash-single goes with --stash%s%s", "", "");
  if (!rc && !out->help && !out->version) {
    if (nrest - optind != 2)
      rc = usage_error(msg, msg_size, "expected PLATFORM.xml and WORKLOAD.json, got %s argument%s",
                       nrest - optind == 0 ? "no" : nrest - optind == 1 ? "one" : "more than two",
                       nrest - optind == 1 ? "" : "s");
    else {
      out->opt.platform_path = rest[optind];
      out->opt.workload_path = rest[optind + 1];
    }
  }
  if (!rc && out->whatif && !out->help)
    rc = apply_changes(out, msg, msg_size);
  free(rest);
  return rc;
}

void ss_cli_free(ss_cli* c)
{
  free(c->cfg);
  free(c->changes);
  c->cfg = NULL;
  c->changes = NULL;
}
