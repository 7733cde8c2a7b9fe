/* option: every option of stash-sim in one table, and what comes from it: parsing with bounds, range
 * errors, help, whatif keys, the options echoed in reports, the listing of --list-options. */
#ifndef SS_OPTION_H
#define SS_OPTION_H

#include "arch.h"
#include "collective.h"
#include "compute.h"
#include "ddp.h"
#include "layout.h"
#include "nccl.h"
#include "net.h"
#include "pipeline.h"
#include "proto.h"
#include "rng.h"
#include "shard.h"
#include "transformer.h"
#include "units.h"

#include <stddef.h>
#include <stdio.h>

typedef enum ss_format { SS_FORMAT_TABLE, SS_FORMAT_JSON, SS_FORMAT_CSV } ss_format;

/* The stack of Stash's runs under --stash: Stash's own scripts, or the job's options; AUTO is Stash's,
 * or the job's with --ideal. */
typedef enum ss_stash_stack { SS_STACK_AUTO, SS_STACK_STASH, SS_STACK_OURS } ss_stash_stack;

/* The options of a run; every field is a row of the registry (option.c). A value of -1 means "not
 * given: derived" (the job resolves it: ss_job.resolved). Units follow docs/formats.md: gbps is
 * gigabits per second, gbytes_per_s gigabytes per second, mib 2^20 bytes. */
/* What stash-sim plan ranks by. */
typedef enum ss_objective { SS_OBJECTIVE_TIME, SS_OBJECTIVE_COST } ss_objective;

typedef struct ss_options {
  const char* platform_path;
  const char* workload_path;
  int gpus;                       /* GPUs of each instance to use; -1: all */
  int instances;                  /* copies of the instance joined by a network */
  double nic_gbps;                /* network bandwidth of each instance in Gb/s, split over its NICs; -1: the file's */
  double nic_latency_us;          /* latency of each NIC link; -1: the file's */
  double oversub;                 /* switch oversubscription: the core carries instances x NIC bandwidth / oversub */
  ss_net_transport net_transport; /* NCCL's transport over the NIC; AUTO: the instance file's */
  int placement_group;            /* 0 on: the instances in one cluster placement group; 1 off (net.h) */
  int flow_cap;                   /* AWS's cap on each TCP flow between instances (net.h, nccl.h) */
  int multi_nic;                  /* rings across instances as NCCL's channels through every NIC (job.c) */
  int ring_pipeline;              /* rings pipelined as NCCL runs them (coll.c, cost.c); 0: lock-step */
  int nvls;                       /* NVLink SHARP where NCCL runs it (cost.h); 0: --no-nvls */
  int ofi_tuner;                  /* aws-ofi-nccl's region tuner where NCCL loads it (ofitune.h); 0: --no-ofi-tuner */
  ss_nccl nccl_version;           /* the NCCL release the job runs (nccl.h) */
  int nccl_sockets;               /* TCP sockets per connection of NCCL's socket transport; -1: the release's */
  int socket_cpu;                 /* the socket transport's threads on the hosts' CPUs (sockcpu.h) */
  double socket_cpu_s_per_gb;     /* their kernel work per GB received (half of it per GB sent), in
                                   * reference-core seconds; -1: net.h's estimate */
  ss_allreduce allreduce;
  ss_fidelity fidelity;
  int symmetry;      /* fast fidelity: identical instances simulated by SS_SYMMETRY_INSTANCES of them (job.c) */
  ss_proto protocol; /* NCCL's protocol of every collective; AUTO: the tuner's choice by size */
  int call_cost;     /* collectives pay NCCL's per-call and per-step latency and their protocol's
                        * efficiency (proto.c); 0: alpha-beta at the links' rates */
  ss_arch arch;
  int servers; /* parameter-server shards */
  ss_placement placement;
  ss_ps_aggregate ps_aggregate;   /* each GPU pushes, or each instance reduces first (arch.h) */
  int server_hosts;               /* dedicated placement: server hosts; -1: one per shard */
  int async;                      /* ASGD: every worker pushes and pulls on its own */
  double server_agg_gbytes_per_s; /* GB/s of gradient one server core sums (and applies) */
  ss_init_io init_io;             /* start-up: each worker reads the model and its input shard from shared storage */
  double init_shard_mib;          /* MiB of input each worker reads at start-up */
  const char* region;             /* --region: the region whose price the cost uses; NULL: us-east-1 */
  const char* price_file;         /* --price-file: the user's price CSV; NULL: none */
  int purchase;                   /* --purchase: an ss_purchase (purchase.h); AUTO by default */
  const char* price_date;         /* --price-date: the day whose prices the cost uses; NULL: the latest */
  double samples;                 /* samples to train for the time-to-train figure; -1: one epoch */
  double max_minutes;             /* refuse a command whose estimated CPU minutes exceed it (sim/estimate.h) */
  int estimate;                   /* print the command's estimated work and exit (sim/estimate.h) */
  int ignore_memory;              /* run a job even when its GPU memory exceeds the GPU's (memory.h) */
  int channels_last;              /* NHWC activations: no layout transposes around tensor-core convolutions */
  int cudnn_tf32;         /* FP32 convolutions on TF32 tensor cores where the GPU has them (PyTorch's default) */
  int batch;              /* per-GPU batch; -1: the workload's */
  int iterations;         /* measured iterations after warm-up; -1: 10, or with data loading whole
                      * cycles of the loader processes per GPU (job.c) */
  int warmup;             /* iterations run before measuring; -1: 2 */
  double bucket_mib;      /* DDP bucket cap in MiB */
  double compute_scale;   /* what-if factor on every GPU kernel time (0.5: kernels twice as fast) */
  double jitter;          /* coefficient of variation of each GPU's compute time per iteration (0: none) */
  int seed;               /* of the random generator (sim/rng.h) that draws it */
  int overlap;            /* start each bucket's collective as soon as it is full */
  ss_synthetic synthetic; /* no data loading (SS_SYNTH_DEVICE, SS_SYNTH_HOST) */
  int workers;            /* loader processes per GPU; -1: vCPUs / GPUs */
  int prefetch;           /* batches each loader process keeps ahead (PyTorch prefetch_factor) */
  int nvlink;             /* 0, what-if: GPU-to-GPU traffic over PCIe (ss_platform_drop_nvlink) */
  int p2p_level;          /* NCCL_P2P_LEVEL what-if: 0 auto, else 1 + the deepest ss_path (transport.h) of P2P */
  int shm;                /* NCCL's transports: pairs without P2P stage through host memory (transport.c) */
  int async_copy;         /* the loader copies each batch to the GPU ahead of use (DALI); else the training
                      * process copies it when it takes the batch (PyTorch's default) */
  double cache;           /* fraction of the dataset in the page cache; -1: what fits in 80% of memory */
  ss_format format;
  const char* output;       /* NULL: stdout; "-": stdout */
  const char* trace;        /* --trace: a Chrome trace of the run to this file ("-": stdout); NULL: none */
  int stash;                /* --stash: Stash's differential breakdown (several runs) */
  const char* stash_single; /* --stash-single: the instance file of the single-instance run */
  double min_bytes;         /* bench: smallest and largest size, doubling in between */
  double max_bytes;
  int bench_iters;     /* bench: collectives per size */
  ss_coll_op bench_op; /* bench: the collective (the subcommand's word) */
  int verbose;         /* bench: print the rings and each hop's transport */
  /* The host side (docs/model.md, "The host side"): each mechanism can be switched off. */
  ss_ddp ddp;
  ss_shard shard;               /* --shard: which states are divided among the GPUs */
  double wrap_params;           /* --shard fsdp-*: a layer of at least this many parameters is a unit of its own */
  int param_prefetch;           /* --shard zero3, fsdp-*: parameters gathered ahead of their use */
  int accum_no_sync;            /* --shard fsdp-*: the accumulated micro-batches but the last under no_sync() */
  ss_overlap_comm overlap_comm; /* --shard zero2, zero3: DeepSpeed's collectives on side streams */
  double prefetch_bucket;       /* --shard zero3: elements each prefetch gathers (stage3_prefetch_bucket_size) */
  double reuse_distance;        /* --shard zero3: parameters used again within this many elements stay gathered */
  double message_size;          /* apex: elements a bucket holds before it ships */
  double fusion_mib;            /* Horovod: fusion buffer (HOROVOD_FUSION_THRESHOLD) in MiB */
  double cycle_ms;              /* Horovod: background cycle (HOROVOD_CYCLE_TIME) in ms */
  int ideal;                    /* every mechanism of the host side off: links and kernels only */
  int launch;                   /* the training process's CPU thread issues the operators (host times) */
  int framework;                /* per-collective and per-tensor costs of the data-parallel framework */
  int staging;                  /* pageable host-to-device copies stage through host memory */
  int handoff;                  /* the training process takes each batch from a loader worker */
  int interference;             /* compute on a GPU slows down while a collective runs on it (docs/model.md) */
  double comm_interference;     /* its factor f (compute 1 + f times as long); -1: the instance file's */
  double collective_host_us;    /* host cost per collective call; -1: the framework's (ddp.c) */
  double tensor_host_us;        /* host cost per gradient tensor (hook); -1: the framework's */
  double handoff_us;            /* host cost of taking one batch from a worker; -1: the default */
  int launch_queue;             /* operators the host may issue ahead of the GPU */
  int metric_allreduces;        /* one-element allreduces per iteration, then .item() */
  int cuda_sync;                /* torch.cuda.synchronize() after the data and after the step */
  int item_sync;                /* loss.item() after each step: the host waits for the GPU */
  ss_stash_stack stash_stack;
  double synthetic_sample_bytes; /* --synthetic host: bytes of a sample in host memory; -1: the dataset's */
  ss_compute_model compute_model;
  ss_precision precision;         /* SS_PRECISION_WORKLOAD: the workload's own */
  int seq;                        /* a transformer's tokens per sequence; -1: the workload's */
  ss_attention_mode attention;    /* a transformer's attention core */
  int attention_kernel;           /* index of ss_attention_kernel_names: 0 the generation's default */
  ss_ckpt checkpoint_activations; /* SS_CKPT_WORKLOAD: the workload's activation_checkpointing */
  /* Tensor, sequence and pipeline parallelism (docs/model.md, "Tensor and pipeline parallelism"; par.h). */
  int tp; /* tensor-parallel size t */
  int cp; /* context-parallel size: each sequence split over cp GPUs (ring attention) */
  int pp; /* pipeline stages p */
  /* Mixtures of experts (docs/model.md, "Mixtures of experts"). */
  int ep;                       /* expert-parallel size: the experts over ep GPUs */
  int etp;                      /* expert-tensor-parallel size: each expert over etp GPUs; -1: --tp's */
  double moe_imbalance;         /* the busiest expert's tokens over the mean; -1: drawn (routing uniform at random) */
  double moe_capacity;          /* capacity factor: an expert takes at most that times the mean tokens; -1: dropless */
  int moe_pad;                  /* every expert padded to its capacity (Megatron's moe_pad_expert_input_to_capacity) */
  ss_dispatcher moe_dispatcher; /* how the tokens are exchanged */
  int overlap_moe_comm;         /* Megatron-Core's combined 1F1B: all-to-alls behind another micro-batch's compute */
  ss_schedule schedule;         /* the pipeline's schedule */
  int virtual_stages;           /* model chunks per stage (interleaved) */
  int micro_batch;              /* sequences per micro-batch; -1: the workload's batch_per_gpu */
  int global_batch;             /* sequences per optimizer step over all GPUs; -1: none (plan: kept constant) */
  int grad_accum;               /* micro-batches per step (the global batch sets it when given) */
  int sequence_parallel;        /* Korthikanti et al.'s sequence parallelism on */
  ss_recompute recompute;       /* activation recomputation */
  int distributed_optimizer;    /* optimizer state sharded over the data-parallel group (ZeRO-1 style) */
  int rank_order;               /* index of ss_rank_order_names: which dimension varies fastest */
  const char* partition;        /* layers per virtual stage, comma-separated; NULL: even */
  double tokens;                /* tokens to train (language models); -1: --samples or one epoch */
  /* stash-sim plan (planner.h): what it enumerates, and what it keeps. */
  const char* plan_platforms;  /* instance types: a comma-separated list or a folder; NULL: the catalogue */
  int plan_max_instances;      /* 1 to K instances of each type */
  const char* plan_algorithms; /* allreduce algorithms, comma-separated; NULL: ring, tree, hierarchical */
  const char* plan_batches;    /* per-GPU batches, comma-separated; NULL: the workload's */
  const char* plan_shards;     /* sharding modes, comma-separated; NULL: --shard's */
  const char* plan_tps;        /* tensor-parallel sizes, comma-separated; NULL: --tp's */
  const char* plan_pps;        /* pipeline stages, comma-separated; NULL: --pp's */
  const char* plan_cps;        /* context-parallel sizes, comma-separated; NULL: --cp's */
  const char* plan_eps;        /* expert-parallel sizes, comma-separated; NULL: --ep's */
  const char* plan_micro;      /* micro-batches, comma-separated; NULL: --micro-batch's */
  const char* plan_schedules;  /* pipeline schedules, comma-separated; NULL: --schedule's */
  const char* plan_vpps; /* chunks per stage of the interleaved schedule, comma-separated; NULL: --virtual-stages's */
  const char* plan_recomputes; /* recomputations, comma-separated; NULL: the least that fits */
  const char* plan_sps;        /* sequence parallelism off, on; NULL: on (with t > 1: Megatron-Core's recipes) */
  const char* plan_dos;        /* the distributed optimizer off, on; NULL: on (Megatron-Core's recipes) */
  const char* plan_precisions; /* precisions, comma-separated; NULL: --precision's */
  double plan_epochs;          /* epochs to train (when --samples is not given) */
  double plan_budget_usd;      /* the most a training may cost; -1: no limit */
  double plan_deadline_h;      /* the longest a training may take; -1: no limit */
  ss_objective plan_objective;
  int plan_verify; /* simulate the best N of the screen (0: none) */
  /* Failures and checkpoints (goodput.h): an instance's mean time between failures (hours; -1: Llama 3's
   * rate per GPU over the instance's GPUs), where checkpoints go (an ss_ckpt_target), their interval
   * ("auto": Young's optimum, else minutes), the restart after a failure (minutes; -1: the default), and
   * failures counted at all (0: --no-failures). */
  double mtbf_hours;
  int checkpoint_to;
  const char* checkpoint_every;
  double checkpoint_gbps; /* what the instances write together, GB/s; -1: the target's figures */
  double restart_min;
  double spot_reclaim_pct; /* with --purchase spot: the instances AWS reclaims a month, %; -1: the default */
  int failures;
  const char* plan_plot; /* the time-cost scatter drawn there, or NULL */
} ss_options;

/* The commands an option belongs to (a bit each). */
enum { SS_CMD_RUN = 1, SS_CMD_BENCH = 2, SS_CMD_WHATIF = 4, SS_CMD_LIST = 8, SS_CMD_PLAN = 16 };

/* Kinds of option values: a whole number, a real number, a size in bytes (suffixes k, M, G, Ki, Mi,
 * Gi), one name of a list (stored as its index), a flag without a value, a file path. */
typedef enum ss_opt_kind {
  SS_KIND_COUNT,
  SS_KIND_REAL,
  SS_KIND_SIZE,
  SS_KIND_ENUM,
  SS_KIND_SWITCH,
  SS_KIND_PATH
} ss_opt_kind;

/* One row of the registry. */
/* What an option's value is as a file: none, a file written (never an input; "-" is stdout), an
 * input file (a path or a short name), or a list of instance files (commas, or a folder). Every
 * input a command reads is on the same-file check's list through this field (sim/main.c). */
enum { SS_FILE_NONE, SS_FILE_WRITES, SS_FILE_READS, SS_FILE_READS_LIST };

typedef struct ss_optdef {
  const char* name; /* long name: --name; for a positional argument, its key */
  char short_name;  /* -x, or 0 */
  ss_opt_kind kind;
  size_t offset;             /* of the field in ss_options (int, double, or const char*) */
  double min, max;           /* accepted range (COUNT, REAL, SIZE) */
  int min_open;              /* min itself excluded */
  const char* const* values; /* ENUM: the names, NULL-terminated, by index */
  int set;                   /* SWITCH: the value a given switch stores */
  unsigned commands;         /* SS_CMD_* it is accepted by */
  const char* group;         /* help group (ss_option_groups) */
  const char* metavar;       /* the value's name in help ("K"), NULL for a switch */
  const char* what;          /* in range errors: "a bandwidth in Gb/s"; NULL: from the kind */
  double dflt;               /* default value of a number, enum index or switch (paths: NULL) */
  const char* dflt_text;     /* the default as help says it */
  int file;                  /* SS_FILE_*: what the value is as a file, for the same-file check */
  const char* whatif_key;    /* whatif --change KEY=..., or NULL */
  const char* report_key;    /* key of the "options" echo in reports, or NULL */
  int positional;            /* an argument, not an option (whatif may still change it) */
  const char* alias;         /* an older spelling still accepted, or NULL */
  const char* help;          /* one sentence, wrapped by the help writer */
  unsigned shard_opt;        /* the sharding modes' options it is one of (SS_SOPT_*, shard.h), or 0: every mode's */
  unsigned needs;            /* SS_NEEDS_*: what a run must have for the option to have an effect (0: always) */
} ss_optdef;

/* What a run must have for an option to change its results (the rows' needs): given where one of them
 * is missing, the option is refused with why (ss_options_effect), from the options alone before the
 * inputs are read, and again from the job once the instance file says what its network runs. */
enum {
  SS_NEEDS_DP = 1 << 0,     /* the data-parallel engine: no --tp or --pp above 1 */
  SS_NEEDS_MP = 1 << 1,     /* tensor or pipeline parallelism (--tp or --pp above 1) */
  SS_NEEDS_DATA = 1 << 2,   /* data loading: no --synthetic */
  SS_NEEDS_NET = 1 << 3,    /* a network: several instances, or dedicated parameter servers */
  SS_NEEDS_MECH = 1 << 4,   /* the modelled mechanisms: no --ideal */
  SS_NEEDS_SOCKET = 1 << 5, /* NCCL's socket transport between the instances */
  SS_NEEDS_TCP = 1 << 6,    /* TCP flows between instances through AWS's ENA (NCCL's sockets or parameter servers) */
  SS_NEEDS_PS = 1 << 7,     /* parameter servers (--arch ps) */
  SS_NEEDS_ALL = (1 << 8) - 1
};

/* The registry, terminated by a row with a NULL name, and its help groups {name, title}. */
extern const ss_optdef ss_option_table[];
typedef struct ss_optgroup {
  const char* name;
  const char* title;
} ss_optgroup;
extern const ss_optgroup ss_option_groups[];

/* Subcommands: name, usage line, one-line summary; terminated by a NULL name. */
typedef struct ss_command {
  const char* name;
  unsigned bit;
  const char* usage;
  const char* summary;
} ss_command;
extern const ss_command ss_commands[];

/* Number of rows, the row of a long name, key, alias or short letter (NULL if none), and a row's
 * field in o. */
int ss_option_count(void);
const ss_optdef* ss_option_by_name(const char* name);
const ss_optdef* ss_option_by_key(const char* whatif_key);
const ss_optdef* ss_option_by_short(int ch);
int ss_option_index(const ss_optdef* d);

/* --rank-order's values: the six orders of tp, dp and pp, the fastest first (layout.h). */
extern const char* const ss_rank_order_names[];

/* Whether the options ask for tensor or pipeline parallelism (--tp or --pp above 1): the run is then
 * simulated stage by stage (par.h, stage.c). */
int ss_options_model_parallel(const ss_options* o);

/* Defaults of every option. */
void ss_options_default(ss_options* o);

/* Which options were given: a bit per row. */
#define SS_OPTSET_WORDS 3
typedef struct ss_optset {
  unsigned long long bits[SS_OPTSET_WORDS];
} ss_optset;
void ss_optset_add(ss_optset* s, const ss_optdef* d);
int ss_optset_has(const ss_optset* s, const char* name);
int ss_optset_has_row(const ss_optset* s, const ss_optdef* d);

/* Parse value for option d into o: bounds, names and units from the row. Returns 0, or -1 with one
 * sentence in msg ("--gpus expects a whole number from 1 to 65536, got 'x'"). shown is how the
 * option is named in the message ("--gpus", or "--change gpus=x"). */
int ss_option_parse(const ss_optdef* d, const char* value, ss_options* o, const char* shown, char* msg, size_t size);

/* The accepted values of d in words ("a whole number from 1 to 65536", "ring, tree or auto"). */
void ss_option_expects(const ss_optdef* d, char* buf, size_t size);

/* Checks across options, shared by every caller: cmd is the command's SS_CMD_ bit, given the options
 * the user set (an option given with no effect in the chosen mode is an error naming both). Returns
 * 0, or -1 with one sentence in msg. */
int ss_options_check(const ss_options* o, const ss_optset* given, unsigned cmd, char* msg, size_t size);

/* After ss_options_check: --recompute given in a data-parallel run sets --checkpoint-activations, its
 * older name there (full: on; none and selective: off, selective being the job's). */
void ss_options_settle(ss_options* o, const ss_optset* given);

/* What the options alone say a run has (SS_NEEDS_* bits; cmd's SS_CMD_ bit): what depends on the
 * instance file (its transport, its NIC) is taken as had, until ss_job_needs_had says. */
unsigned ss_options_had(const ss_options* o, unsigned cmd);

/* The rule of the registry: the first option of given whose row needs what had lacks is refused,
 * -1 with one sentence in msg naming it and why; 0 when each has an effect. net: how the network
 * runs between the instances, for the SOCKET and TCP needs ("NCCL runs over efa"), or NULL. */
int ss_options_effect(const ss_optset* given, unsigned had, const char* net, char* msg, size_t size);

/* Copy the field of row d from one options struct to another. */
void ss_option_copy(const ss_optdef* d, ss_options* to, const ss_options* from);

/* Whether sharding mode m takes option d (its row's shard_opt: ss_shard_takes). */
int ss_option_shard_takes(const ss_optdef* d, ss_shard m);
const char* ss_objective_name(ss_objective v);

/* The list options of stash-sim plan (--algorithms, --batches): the items of text into out (at most
 * max, and at most SS_OPTION_LIST_MAX); how many, or -1 when an item is empty or bad or there are
 * too many. ss_options_check refuses a bad list, so the planner reads what it checked. */
#define SS_OPTION_LIST_MAX 64
#define SS_OPTION_MAX_BATCH 10000000

/* The most micro-batches of a data-parallel step (--grad-accum: each is a pass of the simulation). */
#define SS_ACCUM_MAX 1024
int ss_option_list_algorithms(const char* text, ss_allreduce* out, int max);
int ss_option_list_batches(const char* text, int* out, int max);
int ss_option_list_shards(const char* text, ss_shard* out, int max);
/* plan's --tps, --pps, --micro-batches (whole numbers) and --schedules (ss_schedule values). */
int ss_option_list_sizes(const char* text, int* out, int max);
int ss_option_list_schedules(const char* text, ss_schedule* out, int max);
/* plan's lists of named values (--recomputes, --sequence-parallels, --distributed-optimizers,
 * --precisions): each item's index in names. */
int ss_option_list_named(const char* text, const char* const* names, int* out, int max);

/* The values of plan's switches' lists (--sequence-parallels, --distributed-optimizers): off 0, on 1. */
extern const char* const ss_option_switch_names[];

/* Write an option's value in o as JSON (number, string, true/false or null) or as text (CSV cells,
 * help); returns the characters written, as snprintf. */
int ss_option_value_text(const ss_optdef* d, const ss_options* o, int json, char* buf, size_t size);

/* Write the help of a command (grouped options of that command) to f. */
void ss_option_help(FILE* f, unsigned cmd);

/* Write the registry as JSON (--list-options --format json) or one line per option (table). */
void ss_option_list(FILE* f, ss_format fmt);

#endif
