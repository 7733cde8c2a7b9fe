/* option: the registry of stash-sim's options and everything derived from it. */
#include "option.h"

#include "goodput.h"
#include "purchase.h"

#include "err.h"
#include "units.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char* const format_names[] = {"table", "json", "csv", NULL};
static const char* const objective_names[] = {"time", "cost", NULL};
static const char* const stack_names[] = {"auto", "stash", "ours", NULL};
/* --p2p-level: auto, then NCCL_P2P_LEVEL's names by ss_path (transport.h) from LOC on. */
const char* const ss_rank_order_names[] = {"tp-dp-pp", "tp-pp-dp", "dp-tp-pp", "dp-pp-tp",
                                           "pp-tp-dp", "pp-dp-tp", NULL};
static const char* const p2p_level_names[] = {"auto", "loc", "nvl", "pix", "pxb", "phb", "sys", NULL};

/* The fields an enum row stores through an int. */
_Static_assert(sizeof(ss_allreduce) == sizeof(int) && sizeof(ss_fidelity) == sizeof(int) &&
                   sizeof(ss_arch) == sizeof(int) && sizeof(ss_placement) == sizeof(int) &&
                   sizeof(ss_init_io) == sizeof(int) && sizeof(ss_format) == sizeof(int) &&
                   sizeof(ss_net_transport) == sizeof(int) && sizeof(ss_proto) == sizeof(int) &&
                   sizeof(ss_nccl) == sizeof(int),
               "enum fields are stored as int");

const ss_command ss_commands[] = {
    {"run", SS_CMD_RUN, "stash-sim PLATFORM WORKLOAD [options]",
     "simulate synchronous data-parallel training of WORKLOAD on the GPU instance PLATFORM and report the "
     "steady-state iteration, throughput, $ per epoch and where the time goes"},
    {"bench", SS_CMD_BENCH, "stash-sim bench allreduce|reduce-scatter|all-gather|all-to-all PLATFORM [options]",
     "simulate one collective among the GPUs of PLATFORM and print, as nccl-tests' all_reduce_perf, "
     "reduce_scatter_perf, all_gather_perf and alltoall_perf, each size's time, algbw and busbw = algbw x "
     "2(n-1)/n for allreduce, algbw x (n-1)/n for the others (size: the whole buffer, n times each GPU's "
     "shard; for all-to-all each GPU's buffer, 1/n of it to each GPU)"},
    {"whatif", SS_CMD_WHATIF, "stash-sim whatif PLATFORM WORKLOAD [options] --change KEY=VALUE ...",
     "simulate the job and the job with every change applied, each in a process of its own, and report both, "
     "the speedup and how each part of the iteration moved"},
    {"list", SS_CMD_LIST, "stash-sim list platforms|workloads|categories [--format FMT]",
     "print the instance files or workloads that stash-sim finds by short name, one line each, sorted by name; "
     "or the categories of an iteration's time (compute and the stalls), one line each in the report's order: "
     "name, the breakdown's key, the report's label, the planner's word and the trace's name of the host wait "
     "(--format json: what scripts read). "
     "PLATFORM and WORKLOAD arguments may be short names (stash-sim p3.16xl resnet50): NAME is looked for as "
     "NAME.xml (NAME.json, then NAME.json.gz) in each folder of $STASH_SIM_PATH (colon-separated: DIR/platforms "
     "or DIR/workloads, then DIR), then the source tree's folders (a binary run from its build tree), then the "
     "installed data folder (PREFIX/share/stash-sim), the first found winning; an argument holding a '/' or "
     "naming an existing file is a path"},
    {"plan", SS_CMD_PLAN, "stash-sim plan WORKLOAD [options]",
     "simulate WORKLOAD on every instance type of --platforms, 1 to --max-instances instances, each allreduce "
     "algorithm of --algorithms and each per-GPU batch, every configuration in a process of its own on all "
     "cores, and rank them by time to train or cost: total cost, cost per epoch, throughput, the dominant "
     "stall, and the time-cost Pareto front; --budget and --deadline drop configurations, with counts"},
    {NULL, 0, NULL, NULL}};

const ss_optgroup ss_option_groups[] = {{"input", "Inputs"},
                                        {"run", "Training run"},
                                        {"data", "Data loading"},
                                        {"cluster", "Cluster and network"},
                                        {"ps", "Parameter servers and start-up"},
                                        {"bench", "Collective benchmark"},
                                        {"host", "Host side and data-parallel framework"},
                                        {"output", "Output"},
                                        {"parallel", "Tensor and pipeline parallelism (language models)"},
                                        {"failures", "Failures and checkpoints"},
                                        {"plan", "Planner (stash-sim plan)"},
                                        {NULL, NULL}};

#define OFF(field) offsetof(ss_options, field)
#define RUNS (SS_CMD_RUN | SS_CMD_WHATIF | SS_CMD_PLAN)
#define ALL (SS_CMD_RUN | SS_CMD_BENCH | SS_CMD_WHATIF | SS_CMD_PLAN)
/* What the planner enumerates itself: not given to it. */
#define NOT_PLAN(cmds) ((cmds) & ~SS_CMD_PLAN)
#define BIG 1e15

/* name, short, kind, field, min, max, min_open, values, set, commands, group, metavar, what, default,
 * default text, file (SS_FILE_*), whatif key, report key, positional, alias, help. */
/* clang-format off */
const ss_optdef ss_option_table[] = {
    {"platform", 0, SS_KIND_PATH, OFF(platform_path), 0, 0, 0, NULL, 0, NOT_PLAN(ALL), "input", "PLATFORM", NULL, 0, NULL,
     SS_FILE_READS,
     "platform", "platform", 1, NULL,
     "the instance file (platforms/NAME.xml) or its short name; whatif's platform=FILE runs the change on another "
     "instance", 0, 0},
    {"workload", 0, SS_KIND_PATH, OFF(workload_path), 0, 0, 0, NULL, 0, RUNS, "input", "WORKLOAD", NULL, 0, NULL,
     SS_FILE_READS,
     NULL, "workload", 1, NULL, "the workload file (workloads/NAME.json[.gz]) or its short name", 0, 0},
    {"gpus", 'g', SS_KIND_COUNT, OFF(gpus), 1, SS_MAX_GPUS, 0, NULL, 0, ALL, "run", "K", NULL, -1, "all", 0, "gpus",
     "gpus", 0, NULL, "use the first K GPUs of each instance", 0, 0},
    {"batch", 'b', SS_KIND_COUNT, OFF(batch), 1, SS_OPTION_MAX_BATCH, 0, NULL, 0, NOT_PLAN(RUNS), "run", "B", NULL, -1,
     "the workload's batch_per_gpu", 0, "batch", "batch", 0, NULL, "per-GPU batch", 0, 0},
    {"iterations", 'n', SS_KIND_COUNT, OFF(iterations), 1, 1000000, 0, NULL, 0, RUNS, "run", "N", NULL, -1,
     "10, rounded up to whole cycles of the loader processes per GPU", 0, NULL, "iterations", 0, NULL,
     "measured iterations after warm-up", 0, 0},
    {"warmup", 0, SS_KIND_COUNT, OFF(warmup), 0, 1000000, 0, NULL, 0, RUNS, "run", "N", NULL, -1, "2", 0, NULL,
     "warmup", 0, NULL,
     "iterations run before measuring; with data loading, one loader cycle more is simulated after the measured "
     "iterations and not measured (docs/model.md)", 0, 0},
    {"bucket-mib", 0, SS_KIND_REAL, OFF(bucket_mib), 0, 1e6, 0, NULL, 0, RUNS, "run", "X", "a number of MiB", 25,
     "25", 0, "bucket_mib", "bucket_mib", 0, "bucket-mb",
     "gradient bucket cap in MiB, as PyTorch DDP (the first bucket is 1 MiB); 0: one collective per layer", SS_SOPT_FRAMEWORK, SS_NEEDS_DP},
    {"no-overlap", 0, SS_KIND_SWITCH, OFF(overlap), 0, 0, 0, NULL, 0, RUNS, "run", NULL, NULL, 1, "overlapped", 0,
     "overlap", "overlap", 0, NULL, "start the gradient collectives only after the whole backward pass", SS_SOPT_FRAMEWORK, 0},
    {"compute-model", 0, SS_KIND_ENUM, OFF(compute_model), 0, 0, 0, ss_compute_model_names, 0, RUNS, "run", "M", NULL,
     SS_COMPUTE_AUTO, "auto", 0, "compute_model", "compute_model", 0, NULL,
     "a layer's time at the run's GPU and batch: peak (the reference or measured time x the ratio of peak FP32 "
     "FLOPS, linear in the batch), roofline (compute and memory roofs fitted per layer on the reference device or "
     "measured entry, waves of thread blocks, a floor per kernel: needs the layers' work and both devices' "
     "figures), kernels (a transformer's layers from their kernels, GEMMs at their shapes' efficiency fitted per "
     "GPU generation: amp, bf16 or fp8 on Volta to Blackwell) or auto (kernels where they can, else roofline where "
     "it can, else peak; peak with --ideal where kernels cannot)", 0, 0},
    {"precision", 0, SS_KIND_ENUM, OFF(precision), 0, 0, 0, ss_precision_names, 0, RUNS, "run", "P", NULL,
     SS_PRECISION_WORKLOAD, "the workload's", 0, "precision", "precision", 0, NULL,
     "the precision the layers run at: fp32, tf32 (tensor cores), amp (FP16 tensor cores with FP32 master "
     "weights and gradients, as torch.cuda.amp), bf16, fp8 (a transformer's matrix products in FP8 with their "
     "casts, as Transformer Engine, the rest BF16: the kernel model, on GPUs with FP8 tensor cores); another "
     "than the workload's is timed by the kernel model or the roofline at the GPU's rate for it", 0, 0},
    {"seq", 0, SS_KIND_COUNT, OFF(seq), 1, 16777216, 0, NULL, 0, RUNS, "run", "N", NULL, -1, "the workload's", 0, "seq",
     "seq", 0, NULL,
     "tokens per sequence of a transformer workload: its layers' FLOPs, bytes and activations derived from the "
     "architecture at N tokens, a sample being a sequence (an epoch the same tokens); another than the workload's "
     "needs the kernel model (--compute-model kernels or auto at 16-bit on a Volta, Ampere, Hopper or Blackwell GPU)",
     0, 0},
    {"attention", 0, SS_KIND_ENUM, OFF(attention), 0, 0, 0, ss_attention_mode_names, 0, RUNS, "run", "A", NULL,
     SS_ATTN_AUTO, "auto", 0, "attention", "attention", 0, NULL,
     "a transformer's attention core: flash (one fused kernel, FlashAttention or cuDNN's: causal masking skips the "
     "upper half of the scores, no S x S scores kept), eager (the scores written, softmaxed and read back, and kept "
     "for backward) or auto (flash where the kernel model times the run and the GPU has a fused kernel, Ampere and "
     "later; eager elsewhere, as the workload's own times); flash needs the kernel model",
     0, 0},
    {"attention-kernel", 0, SS_KIND_ENUM, OFF(attention_kernel), 0, 0, 0, ss_attention_kernel_names, 0, RUNS, "run",
     "K", NULL, 0, "auto", 0, "attention_kernel", "attention_kernel", 0, NULL,
     "the fused attention kernel flash attention runs, each at its own measured efficiency: fa2 "
     "(FlashAttention-2, PyTorch SDPA's flash backend), fa3 (FlashAttention-3, Hopper), fa4 (Blackwell), cudnn "
     "(cuDNN's fused attention: Transformer Engine's FusedAttention, SDPA's cuDNN backend; Hopper), triton "
     "(Triton's FlashAttention-2, llm-foundry's); auto, the generation's fastest: fa2 on Ampere, fa3 on Hopper, "
     "fa4 on Blackwell",
     0, 0},
    {"checkpoint-activations", 0, SS_KIND_ENUM, OFF(checkpoint_activations), 0, 0, 0, ss_ckpt_names, 0, RUNS, "run",
     "C", NULL, SS_CKPT_WORKLOAD, "the workload's activation_checkpointing, off where it gives none", 0,
     "checkpoint_activations", "checkpoint_activations", 0, NULL,
     "the older name of --recompute in a data-parallel run: on is --recompute full (the layers the workload "
     "marks, ckpt_bytes, keep only their block's input and re-run their forward in backward), off is --recompute "
     "none; a workload choice, not a mechanism: --ideal keeps it", 0, SS_NEEDS_DP},
    {"no-cudnn-tf32", 0, SS_KIND_SWITCH, OFF(cudnn_tf32), 0, 0, 0, NULL, 0, RUNS, "run", NULL, NULL, 1,
     "on: PyTorch's default", 0, "cudnn_tf32", "cudnn_tf32", 0, NULL,
     "at fp32, run the convolutions at the GPU's FP32 rate where it has TF32 tensor cores (Ampere and newer), "
     "as torch.backends.cudnn.allow_tf32 = False; by default they run at its TF32 rate, as PyTorch does "
     "(matrix products stay FP32: torch.backends.cuda.matmul.allow_tf32 is False by default)", 0, SS_NEEDS_DP},
    {"channels-last", 0, SS_KIND_SWITCH, OFF(channels_last), 0, 0, 0, NULL, 1, RUNS, "run", NULL, NULL, 0,
     "off: NCHW, PyTorch's default", 0, "channels_last", "channels_last", 0, NULL,
     "the convolutions' activations in NHWC (PyTorch's channels_last memory format): no layout transposes around "
     "their tensor-core kernels at amp or bf16 (in NCHW cuDNN transposes each convolution's input and output and "
     "back)", 0, SS_NEEDS_DP},
    {"compute-scale", 0, SS_KIND_REAL, OFF(compute_scale), SS_BOUND_RATIO_LO, SS_BOUND_RATIO_HI, 0, NULL, 0, RUNS, "run", "X", "a factor", 1,
     "1", 0, "compute_scale", "compute_scale", 0, NULL,
     "what-if: multiply every GPU kernel time (forward, backward, optimizer) by X, e.g. 0.5 for kernels twice as "
     "fast (mixed precision is --precision amp); MFU is then of that GPU's peak, the peak over X", 0, 0},
    {"jitter", 0, SS_KIND_REAL, OFF(jitter), 0, SS_JITTER_MAX, 0, NULL, 0, RUNS, "run", "CV",
     "a coefficient of variation", SS_JITTER_CV, SS_JITTER_TEXT, 0, "jitter", "jitter", 0, NULL,
     "stragglers: every GPU's compute time (forward, backward, optimizer) of each iteration is multiplied by a "
     "factor drawn for it, log-normal with mean 1 and this coefficient of variation; synchronous collectives wait "
     "for the slowest GPU (docs/model.md); 0: every GPU always takes the same time", 0, SS_NEEDS_MECH},
    {"seed", 0, SS_KIND_COUNT, OFF(seed), 0, SS_SEED_MAX, 0, NULL, 0, RUNS, "run", "N", NULL, SS_SEED, "1", 0, "seed",
     "seed", 0, NULL,
     "seed of the random generator of --jitter (one stream per GPU): the same seed gives the same run", 0, SS_NEEDS_MECH},
    {"synthetic", 0, SS_KIND_ENUM, OFF(synthetic), 0, 0, 0, ss_synthetic_names, SS_SYNTH_DEVICE, RUNS, "data",
     "[=MODE]", NULL, SS_SYNTH_OFF, "off: real data", 0, "synthetic", "synthetic", 0, NULL,
     "no data loading (synthetic data, as benchmarks do); alone or =device: the batch stays on the GPU (no copy); "
     "=host: a batch in pageable host memory copied to the GPU every iteration, as Stash's runs and most "
     "benchmark scripts do", 0, SS_NEEDS_DP},
    {"workers", 'w', SS_KIND_COUNT, OFF(workers), 0, 4096, 0, NULL, 0, RUNS, "data", "W", NULL, -1, "vCPUs / GPUs",
     0, "workers", "workers", 0, NULL,
     "loader processes per GPU, as PyTorch num_workers; 0 loads in the training process and blocks it", 0, SS_NEEDS_DP|SS_NEEDS_DATA},
    {"prefetch", 0, SS_KIND_COUNT, OFF(prefetch), 1, 1024, 0, NULL, 0, RUNS, "data", "P", NULL, 2, "2", 0,
     "prefetch", "prefetch", 0, NULL, "batches each loader process keeps ready, as PyTorch prefetch_factor", 0, SS_NEEDS_DP|SS_NEEDS_DATA},
    {"async-copy", 0, SS_KIND_SWITCH, OFF(async_copy), 0, 0, 0, NULL, 1, RUNS, "data", NULL, NULL, 0,
     "the training process copies", 0, "async_copy", "async_copy", 0, NULL,
     "loader processes copy batches to the GPU ahead of use, as DALI does", 0, SS_NEEDS_DP|SS_NEEDS_DATA},
    {"cache", 0, SS_KIND_REAL, OFF(cache), 0, 1, 0, NULL, 0, RUNS, "data", "F", "a fraction", -1,
     "what fits in 80% of the instance's memory", 0, "cache", "cache", 0, NULL,
     "fraction of the dataset in the page cache", 0, SS_NEEDS_DP|SS_NEEDS_DATA},
    {"synthetic-sample-bytes", 0, SS_KIND_SIZE, OFF(synthetic_sample_bytes), 1, 1e10, 0, NULL, 0, RUNS, "data", "B",
     NULL, -1, "the dataset's decoded_bytes_per_sample", 0, "synthetic_sample_bytes", "synthetic_sample_bytes", 0,
     NULL, "--synthetic host: bytes of one sample in host memory (Stash's fp32 224x224 images: 602112)", 0, SS_NEEDS_DP},
    {"handoff-us", 0, SS_KIND_REAL, OFF(handoff_us), 0, 1e7, 0, NULL, 0, RUNS, "data", "X", "a time in us", -1,
     "2100, measured on one machine (docs/model.md)", 0, "handoff_us", "handoff_us", 0, NULL,
     "host time of the training process to take one batch from a PyTorch DataLoader worker (receive it, rebuild "
     "its tensors from shared memory); none with --async-copy (DALI)", 0, SS_NEEDS_DP|SS_NEEDS_MECH},
    {"instances", 0, SS_KIND_COUNT, OFF(instances), 1, SS_MAX_INSTANCES, 0, NULL, 0, NOT_PLAN(ALL), "cluster", "N", NULL, 1,
     "1", 0, "instances", "instances", 0, NULL, "N copies of the instance joined by a network switch", 0, 0},
    {"nic-gbps", 0, SS_KIND_REAL, OFF(nic_gbps), SS_BOUND_BANDWIDTH_LO * 8 / 1e9, SS_BOUND_BANDWIDTH_HI * 8 / 1e9, 0,
     NULL, 0, ALL, "cluster", "X", "a bandwidth in Gb/s", -1,
     "the instance file's NIC links", 0, "nic_gbps", "nic_gbps", 0, NULL,
     "network bandwidth of each instance in Gb/s, split over its NICs", 0, SS_NEEDS_NET},
    {"nic-latency-us", 0, SS_KIND_REAL, OFF(nic_latency_us), 0, SS_BOUND_LATENCY_HI * 1e6, 0, NULL, 0, ALL, "cluster", "X",
     "a latency in us", -1, "the instance file's", 0, "nic_latency_us", "nic_latency_us", 0, NULL,
     "latency of each NIC link in microseconds", 0, SS_NEEDS_NET},
    {"oversub", 0, SS_KIND_REAL, OFF(oversub), 1, SS_BOUND_RATIO_HI, 0, NULL, 0, ALL, "cluster", "X", "a ratio", 1, "1", 0,
     "oversub", "oversub", 0, NULL, "switch oversubscription: the switch core carries N x NIC bandwidth / X", 0, SS_NEEDS_NET},
    {"net-transport", 0, SS_KIND_ENUM, OFF(net_transport), 0, 0, 0, ss_net_names, 0, ALL, "cluster", "T", NULL,
     SS_NET_AUTO, "auto: the instance file's net_transport", 0, "net_transport", "net_transport", 0, NULL,
     "what-if: the transport NCCL uses over the NIC between instances, with its fraction of the line rate and "
     "its cost per message (docs/model.md, Network transports): socket (TCP), ib (InfiniBand verbs), efa (AWS "
     "EFA); off: the NIC links at line rate and their latency, as --ideal", 0, SS_NEEDS_NET|SS_NEEDS_MECH},
    {"placement-group", 0, SS_KIND_ENUM, OFF(placement_group), 0, 0, 0, ss_net_group_names, 0, ALL, "cluster", "G", NULL,
     0, "on", 0, "placement_group", "placement_group", 0, NULL,
     "whether the instances are in one cluster placement group: AWS caps each TCP flow between instances at 10 "
     "Gb/s inside one, 5 Gb/s outside (docs/model.md, Flows between instances); EFA is not capped", 0, SS_NEEDS_NET|SS_NEEDS_MECH|SS_NEEDS_TCP},
    {"no-flow-cap", 0, SS_KIND_SWITCH, OFF(flow_cap), 0, 0, 0, NULL, 0, ALL, "cluster", NULL, NULL, 1,
     "capped where the NIC is AWS's ENA and NCCL runs its socket transport", 0, "flow_cap", "flow_cap", 0, NULL,
     "switch off the cap on each TCP flow between instances (--placement-group): every connection as fast as "
     "its NIC lets it", 0, SS_NEEDS_NET|SS_NEEDS_MECH|SS_NEEDS_TCP},
    {"no-multi-nic", 0, SS_KIND_SWITCH, OFF(multi_nic), 0, 0, 0, NULL, 0, ALL, "cluster", NULL, NULL, 1,
     "NCCL's channels through every NIC", 0, "multi_nic", "multi_nic", 0, NULL,
     "the rings across instances as the rings inside one, each crossing by its last GPU's NIC (as before "
     "issue 29), where NCCL runs two channels through each NIC of an instance that has several (p4d, p5)", 0, SS_NEEDS_DP|SS_NEEDS_NET},
    {"no-ring-pipeline", 0, SS_KIND_SWITCH, OFF(ring_pipeline), 0, 0, 0, NULL, 0, ALL, "cluster", NULL, NULL, 1,
     "NCCL's pipelined ring", 0, "ring_pipeline", "ring_pipeline", 0, NULL,
     "the rings in lock-step (every GPU sends its step's chunk when the previous step has ended everywhere, as "
     "before issue 29, and as --ideal), where NCCL pipelines each channel's chunks through 8 slots of its 4 MiB "
     "buffer (docs/model.md, Allreduce algorithms)", 0, SS_NEEDS_DP},
    {"no-nvls", 0, SS_KIND_SWITCH, OFF(nvls), 0, 0, 0, NULL, 0, ALL, "cluster", NULL, NULL, 1,
     "NVLink SHARP where NCCL runs it", 0, "nvls", "nvls", 0, NULL,
     "the tree's reduce and broadcast inside an instance on its rings (a reduce-scatter and an all-gather), "
     "where NCCL runs NVLink SHARP through the NVSwitch (NCCL_NVLS_ENABLE=0): its NVLS allreduce on one "
     "instance, its NVLS tree across several (Hopper and later, NCCL 2.17 on; docs/model.md, Allreduce "
     "algorithms)", 0, SS_NEEDS_MECH},
    {"no-ofi-tuner", 0, SS_KIND_SWITCH, OFF(ofi_tuner), 0, 0, 0, NULL, 0, ALL, "cluster", NULL, NULL, 1,
     "aws-ofi-nccl's region tuner where NCCL loads it", 0, "ofi_tuner", "ofi_tuner", 0, NULL,
     "NCCL's own model's algorithm and protocol, where the aws-ofi-nccl plugin's tuner chooses them (p5, p5e, p5en "
     "and p6-b200 over EFA at 3 instances or more, 8 GPUs each, NCCL 2.21 on: its tables of v1.16.3; docs/model.md, "
     "NCCL chooses)", 0, SS_NEEDS_NET|SS_NEEDS_MECH},
    {"nccl-version", 0, SS_KIND_ENUM, OFF(nccl_version), 0, 0, 0, ss_nccl_names, 0, ALL, "cluster", "V", NULL,
     SS_NCCL_LATEST, "2.21", 0, "nccl_version", "nccl_version", 0, NULL,
     "the NCCL release the job runs (a row holds from its release to the next one's): how many TCP sockets "
     "its socket transport opens per connection (one up to 2.4.7; from 2.4.8, 2 threads x 8 on AWS's ENA), its "
     "tuning model and, on one instance too, whether it runs NVLS (2.17 on)", 0, 0},
    {"nccl-sockets", 0, SS_KIND_COUNT, OFF(nccl_sockets), 1, SS_NCCL_MAX_SOCKETS, 0, NULL, 0, ALL, "cluster", "K",
     NULL, -1, "the release's for the instance's NIC", 0, "nccl_sockets", "nccl_sockets", 0, NULL,
     "what-if NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD: TCP sockets (flows) per connection of NCCL's "
     "socket transport, each capped by --placement-group", 0, SS_NEEDS_NET|SS_NEEDS_MECH|SS_NEEDS_SOCKET},
    {"no-socket-cpu", 0, SS_KIND_SWITCH, OFF(socket_cpu), 0, 0, 0, NULL, 0, ALL, "cluster", NULL, NULL, 1,
     "the socket transport's threads on the CPUs", 0, "socket_cpu", "socket_cpu", 0, NULL,
     "switch off the CPU that NCCL's socket transport takes between instances (its threads polling while a "
     "transfer is in flight, the kernel's work for every byte, sharing the cores with the loaders: docs/model.md, "
     "The socket transport's CPU)", 0, SS_NEEDS_DP|SS_NEEDS_NET|SS_NEEDS_MECH|SS_NEEDS_SOCKET},
    {"socket-cpu-s-per-gb", 0, SS_KIND_REAL, OFF(socket_cpu_s_per_gb), 0, SS_NET_SOCKET_MAX_CPU_S_PER_GB, 0, NULL, 0, ALL,
     "cluster", "X", "CPU seconds per GB", -1, "0.3 (an estimate)", 0, "socket_cpu_s_per_gb", "socket_cpu_s_per_gb", 0,
     NULL,
     "what-if: the kernel's work for the socket transport, in seconds of a reference core per GB received (half of "
     "it per GB sent), split over the connection's threads; 0 switches it off", 0, SS_NEEDS_DP|SS_NEEDS_NET|SS_NEEDS_MECH|SS_NEEDS_SOCKET},
    {"allreduce", 0, SS_KIND_ENUM, OFF(allreduce), 0, 0, 0, ss_allreduce_names, 0, NOT_PLAN(ALL), "cluster", "ALG", NULL,
     SS_ALLREDUCE_AUTO, "auto", 0, "allreduce", "allreduce", 0, NULL,
     "allreduce algorithm; auto: NCCL's own choice per collective, ring or tree and the protocol, by its tuning "
     "model for --nccl-version (ring on one instance; the fastest with --ideal); fastest (what-if): the "
     "algorithm of shortest predicted time, hierarchical included", 0, SS_NEEDS_DP},
    {"no-nvlink", 0, SS_KIND_SWITCH, OFF(nvlink), 0, 0, 0, NULL, 0, ALL, "cluster", NULL, NULL, 1, "NVLink used", 0,
     "nvlink", "nvlink", 0, NULL, "what-if: traffic between GPUs over PCIe, as if NVLink were off", 0, 0},
    {"p2p-level", 0, SS_KIND_ENUM, OFF(p2p_level), 0, 0, 0, p2p_level_names, 0, ALL, "cluster", "L", NULL, 0,
     "auto: NCCL's rule for the instance's CPU", 0, "p2p_level", "p2p_level", 0, NULL,
     "what-if NCCL_P2P_LEVEL: the farthest path type over which GPU pairs use peer-to-peer (loc: none; nvl, pix, "
     "pxb, phb, sys); the other pairs stage through host memory (SHM); auto: pxb on Intel hosts, sys elsewhere", 0, 0},
    {"no-shm", 0, SS_KIND_SWITCH, OFF(shm), 0, 0, 0, NULL, 0, ALL, "cluster", NULL, NULL, 1, "on", 0, "shm", "shm", 0,
     NULL, "mechanism off: every GPU pair peer-to-peer over its route, none staged through host memory", 0, 0},
    {"fidelity", 0, SS_KIND_ENUM, OFF(fidelity), 0, 0, 0, ss_fidelity_names, 0, ALL, "cluster", "F", NULL,
     SS_FIDELITY_FAST, "fast", 0, "fidelity", "fidelity", 0, NULL,
     "fast: one flow per hop and phase; reference: one communication per chunk and step (a ring costs O(GPUs^2))", 0, SS_NEEDS_DP},
    {"no-symmetry", 0, SS_KIND_SWITCH, OFF(symmetry), 0, 0, 0, NULL, 0, ALL, "cluster", NULL, NULL, 1,
     "on: 8 instances simulated", 0, "symmetry", "symmetry", 0, NULL,
     "simulate every instance of the cluster: by default a fast-fidelity run of more than 8 identical instances "
     "simulates 8 of them, whose links carry the same flows as in the whole cluster, with the whole cluster's "
     "collective steps and sizes (docs/model.md, \"Identical instances\"); --fidelity reference simulates them all", 0, SS_NEEDS_DP|SS_NEEDS_NET},
    {"protocol", 0, SS_KIND_ENUM, OFF(protocol), 0, 0, 0, ss_proto_names, 0, ALL, "cluster", "P", NULL, SS_PROTO_AUTO,
     "auto", 0, "protocol", "protocol", 0, NULL,
     "NCCL's protocol of every collective, as NCCL_PROTO; auto: per collective the shortest predicted time of "
     "LL, LL128 (one instance, NVLink, V100 or A100) and Simple, as NCCL 2.10's tuner", 0, 0},
    {"no-call-cost", 0, SS_KIND_SWITCH, OFF(call_cost), 0, 0, 0, NULL, 0, ALL, "cluster", NULL, NULL, 1, "on", 0,
     "call_cost", "call_cost", 0, NULL,
     "mechanism off: collectives pay no NCCL per-call and per-step latency and move their bytes at the links' "
     "rates (no protocol)", 0, 0},
    {"ddp", 0, SS_KIND_ENUM, OFF(ddp), 0, 0, 0, ss_ddp_names, 0, RUNS, "host", "D", NULL, SS_DDP_PYTORCH, "pytorch", 0,
     "ddp", "ddp", 0, NULL,
     "how gradients become collectives: pytorch (DDP buckets of --bucket-mib, first 1 MiB), apex (a bucket ships "
     "once it holds --message-size elements), horovod (tensor fusion of --fusion-mib every --cycle-ms)", SS_SOPT_FRAMEWORK, SS_NEEDS_DP},
    {"shard", 0, SS_KIND_ENUM, OFF(shard), 0, 0, 0, ss_shard_names, 0, RUNS, "host", "S", NULL, SS_SHARD_NONE, "none", 0,
     "shard", "shard", 0, NULL,
     "which training states the GPUs divide among them: none (--ddp's framework); as DeepSpeed ZeRO v0.12.3, zero1 "
     "(optimizer state: gradients allreduced after backward, parameters all-gathered after the step), zero2 (and "
     "gradients: reduced per bucket as backward fills it, blocking it), zero3 (and parameters: each layer's "
     "gathered before its forward and backward, prefetched); as PyTorch FSDP 2.1, fsdp-full (FULL_SHARD), "
     "fsdp-grad-op (SHARD_GRAD_OP: parameters kept from forward to backward), fsdp-hybrid (HYBRID_SHARD: full "
     "shard inside each instance, gradients allreduced across), fsdp-hybrid-zero2 (_HYBRID_SHARD_ZERO2: "
     "fsdp-grad-op inside each instance, gradients allreduced across)", 0, 0},
    {"wrap-params", 0, SS_KIND_REAL, OFF(wrap_params), 0, 1e13, 0, NULL, 0, RUNS, "host", "N", "a number of parameters",
     0, "0 (every layer with parameters)", 0, "wrap_params", "wrap_params", 0, NULL,
     "--shard fsdp-*: a layer of at least N parameters is an FSDP unit of its own; the smaller ones stay in the "
     "outermost (root) unit, as size_based_auto_wrap_policy's min_num_params over the workload's layers", SS_SOPT_WRAP_PARAMS, 0},
    {"no-param-prefetch", 0, SS_KIND_SWITCH, OFF(param_prefetch), 0, 0, 0, NULL, 0, RUNS, "host", NULL, NULL, 1, "on",
     0, "param_prefetch", "param_prefetch", 0, NULL,
     "mechanism off (--shard zero3, fsdp-*): no parameters gathered ahead of their use (FSDP's backward_prefetch=None "
     "and no implicit forward prefetch; ZeRO-3's stage3_prefetch_bucket_size 0): each unit waits for its own", SS_SOPT_PARAM_PREFETCH, 0},
    {"accum-no-sync", 0, SS_KIND_SWITCH, OFF(accum_no_sync), 0, 0, 0, NULL, 1, RUNS, "host", NULL, NULL, 0, "off", 0,
     "accum_no_sync", "accum_no_sync", 0, NULL,
     "with --grad-accum and --shard fsdp-*: the micro-batches before the last run under FSDP's no_sync(), their "
     "gradients kept unsharded (the whole model's, in memory) and reduce-scattered once after the last; by "
     "default every micro-batch's backward reduce-scatters as it goes, as without accumulation",
     SS_SOPT_NO_SYNC, 0},
    {"overlap-comm", 0, SS_KIND_ENUM, OFF(overlap_comm), 0, 0, 0, ss_overlap_comm_names, 0, RUNS, "host", "O", NULL,
     SS_OVERLAP_COMM_AUTO, "auto", 0, "overlap_comm", "overlap_comm", 0, NULL,
     "--shard zero2, zero3: DeepSpeed's overlap_comm; auto: its default for the stage (off for stage 2: each "
     "bucket's reduction blocks backward; on for stage 3: reductions and all-gathers on side streams), off: stage 3's "
     "all-gathers and reductions on the default stream too, on: stage 2's reductions overlap backward", SS_SOPT_OVERLAP_COMM, 0},
    {"prefetch-bucket", 0, SS_KIND_REAL, OFF(prefetch_bucket), 0, 1e13, 0, NULL, 0, RUNS, "host", "N",
     "a number of elements", SS_ZERO3_PREFETCH_ELEMENTS, "5e7 (DeepSpeed v0.12.3's)", 0, "prefetch_bucket",
     "prefetch_bucket", 0, NULL, "--shard zero3: the elements of upcoming parameters each prefetch gathers "
     "(stage3_prefetch_bucket_size)", SS_SOPT_ZERO3, 0},
    {"reuse-distance", 0, SS_KIND_REAL, OFF(reuse_distance), 0, 1e13, 0, NULL, 0, RUNS, "host", "N",
     "a number of elements", SS_ZERO3_REUSE_ELEMENTS, "1e9 (DeepSpeed v0.12.3's)", 0, "reuse_distance",
     "reuse_distance", 0, NULL, "--shard zero3: a layer's parameters used again within this many elements of other "
     "layers' stay gathered (stage3_max_reuse_distance)", SS_SOPT_ZERO3, 0},
    {"message-size", 0, SS_KIND_REAL, OFF(message_size), 1, 1e13, 0, NULL, 0, RUNS, "host", "N",
     "a number of elements", 1e7, "10000000 (apex's)", 0, "message_size", "message_size", 0, NULL,
     "--ddp apex: gradient elements a bucket holds before its allreduce starts; 1: one allreduce per parameter "
     "tensor, as Stash ran", SS_SOPT_FRAMEWORK, SS_NEEDS_DP},
    {"fusion-mib", 0, SS_KIND_REAL, OFF(fusion_mib), 0, 1e6, 0, NULL, 0, RUNS, "host", "X", "a number of MiB",
     SS_HOROVOD_FUSION_MIB, SS_HOROVOD_FUSION_TEXT, 0, "fusion_mib", "fusion_mib", 0, NULL,
     "--ddp horovod: fusion buffer in MiB (HOROVOD_FUSION_THRESHOLD); 0: no fusion", SS_SOPT_FRAMEWORK, SS_NEEDS_DP},
    {"cycle-ms", 0, SS_KIND_REAL, OFF(cycle_ms), 0, 1e4, 0, NULL, 0, RUNS, "host", "X", "a time in ms",
     SS_HOROVOD_CYCLE_MS, SS_HOROVOD_CYCLE_TEXT, 0, "cycle_ms", "cycle_ms", 0, NULL,
     "--ddp horovod: the background thread's cycle in ms (HOROVOD_CYCLE_TIME)", SS_SOPT_FRAMEWORK, SS_NEEDS_DP},
    {"collective-host-us", 0, SS_KIND_REAL, OFF(collective_host_us), 0, 1e7, 0, NULL, 0, RUNS, "host", "X",
     "a time in us", -1, "the framework's estimate (docs/model.md)", 0, "collective_host_us",
     "collective_host_us", 0, NULL,
     "host time of one collective call of the framework (flatten, enqueue the NCCL call, scale, unflatten)", 0, SS_NEEDS_DP|SS_NEEDS_MECH},
    {"tensor-host-us", 0, SS_KIND_REAL, OFF(tensor_host_us), 0, 1e7, 0, NULL, 0, RUNS, "host", "X", "a time in us",
     -1, "the framework's estimate (docs/model.md)", 0, "tensor_host_us", "tensor_host_us", 0, NULL,
     "host time of the framework's hook per gradient tensor", 0, SS_NEEDS_DP|SS_NEEDS_MECH},
    {"launch-queue", 0, SS_KIND_COUNT, OFF(launch_queue), 1, 1000000, 0, NULL, 0, RUNS, "host", "N", NULL,
     SS_LAUNCH_QUEUE, "1024", 0, "launch_queue", "launch_queue", 0, NULL,
     "kernel launches the host may issue ahead of its GPU before it blocks", 0, SS_NEEDS_DP|SS_NEEDS_MECH},
    {"metric-allreduces", 0, SS_KIND_COUNT, OFF(metric_allreduces), 0, 1000, 0, NULL, 0, RUNS, "host", "N", NULL, 0,
     "0", 0, "metric_allreduces", "metric_allreduces", 0, NULL,
     "one-element allreduces per iteration (loss, accuracy) followed by .item(), which waits for them", 0, SS_NEEDS_DP|SS_NEEDS_MECH},
    {"cuda-sync", 0, SS_KIND_SWITCH, OFF(cuda_sync), 0, 0, 0, NULL, 1, RUNS, "host", NULL, NULL, 0, "off", 0,
     "cuda_sync", "cuda_sync", 0, NULL, "torch.cuda.synchronize() after the data and after the step, as Stash's script", 0, SS_NEEDS_DP|SS_NEEDS_MECH},
    {"no-item-sync", 0, SS_KIND_SWITCH, OFF(item_sync), 0, 0, 0, NULL, 0, RUNS, "host", NULL, NULL, 1,
     "loss.item() every step", 0, "item_sync", "item_sync", 0, NULL,
     "the training loop never waits for its GPU (no loss.item() after each step, which PyTorch's reference "
     "training scripts call): the host may run ahead up to --launch-queue", 0, SS_NEEDS_DP|SS_NEEDS_MECH},
    {"ideal", 0, SS_KIND_SWITCH, OFF(ideal), 0, 0, 0, NULL, 1, ALL, "host", NULL, NULL, 0, "off", 0, "ideal", "ideal",
     0, NULL,
     "the idealised model: every mechanism below and NCCL's per-call cost (--no-call-cost) off (links and kernels "
     "only), and --stash with the job's own stack", 0, 0},
    {"no-launch", 0, SS_KIND_SWITCH, OFF(launch), 0, 0, 0, NULL, 0, RUNS, "host", NULL, NULL, 1, "on", 0, "launch",
     "launch", 0, NULL, "mechanism off: the host issues every operator at once (no host times, no launch-bound steps)", 0, SS_NEEDS_DP|SS_NEEDS_MECH},
    {"no-framework", 0, SS_KIND_SWITCH, OFF(framework), 0, 0, 0, NULL, 0, RUNS, "host", NULL, NULL, 1, "on", 0,
     "framework", "framework", 0, NULL,
     "mechanism off: collectives cost no host time and no GPU copies (flatten, scale, unflatten)", 0, SS_NEEDS_DP|SS_NEEDS_MECH},
    {"no-staging", 0, SS_KIND_SWITCH, OFF(staging), 0, 0, 0, NULL, 0, RUNS, "host", NULL, NULL, 1, "on", 0, "staging",
     "staging", 0, NULL, "mechanism off: pageable host-to-device copies cost what pinned ones do", 0, SS_NEEDS_DP|SS_NEEDS_MECH},
    {"no-handoff", 0, SS_KIND_SWITCH, OFF(handoff), 0, 0, 0, NULL, 0, RUNS, "host", NULL, NULL, 1, "on", 0, "handoff",
     "handoff", 0, NULL, "mechanism off: taking a batch from a loader worker costs the training process nothing", 0, SS_NEEDS_DP|SS_NEEDS_MECH},
    {"no-interference", 0, SS_KIND_SWITCH, OFF(interference), 0, 0, 0, NULL, 0, RUNS, "host", NULL, NULL, 1, "on", 0,
     "interference", "interference", 0, NULL,
     "mechanism off: compute runs at full speed while collectives run on its GPU", 0, SS_NEEDS_DP|SS_NEEDS_MECH},
    {"comm-interference", 0, SS_KIND_REAL, OFF(comm_interference), 0, SS_MAX_INTERFERENCE, 0, NULL, 0, RUNS,
     "host", "F", "a factor", -1, "the instance file's comm_interference", 0, "comm_interference",
     "comm_interference", 0, NULL,
     "what-if: while a collective runs on a GPU, its compute takes 1 + F times as long (NCCL holds SMs and memory "
     "bandwidth); 0: none", 0, SS_NEEDS_DP|SS_NEEDS_MECH},
    {"arch", 0, SS_KIND_ENUM, OFF(arch), 0, 0, 0, ss_arch_names, 0, RUNS, "ps", "A", NULL, SS_ARCH_ALLREDUCE,
     "allreduce", 0, "arch", "arch", 0, NULL,
     "allreduce, or ps: workers push gradients to parameter servers and pull the parameters back", 0, 0},
    {"servers", 0, SS_KIND_COUNT, OFF(servers), 1, SS_MAX_SERVERS, 0, NULL, 0, RUNS, "ps", "K", NULL, 1, "1", 0,
     "servers", "servers", 0, NULL, "parameter-server shards, parameters split by bytes", 0, SS_NEEDS_PS},
    {"ps-placement", 0, SS_KIND_ENUM, OFF(placement), 0, 0, 0, ss_placement_names, 0, RUNS, "ps", "P", NULL,
     SS_PS_DEDICATED, "dedicated", 0, "ps_placement", "ps_placement", 0, NULL,
     "dedicated: servers on hosts of their own; colocated: on the CPU hosts of the worker instances", 0, SS_NEEDS_PS},
    {"ps-aggregate", 0, SS_KIND_ENUM, OFF(ps_aggregate), 0, 0, 0, ss_ps_aggregate_names, 0, RUNS, "ps", "A", NULL,
     SS_PS_AGG_GPU, "gpu", 0, "ps_aggregate", "ps_aggregate", 0, NULL,
     "gpu: every GPU pushes its gradients to the servers and pulls the parameters (CNTK, MXNet's kvstore); "
     "instance: each instance's GPUs first reduce-scatter their gradients among themselves, each pushes its "
     "share and pulls it back, then they all-gather the parameters (TensorFlow's distributed_replicated, "
     "BytePS; docs/model.md, Parameter servers)", 0, SS_NEEDS_PS},
    {"server-hosts", 0, SS_KIND_COUNT, OFF(server_hosts), 1, SS_MAX_SERVERS, 0, NULL, 0, RUNS, "ps", "M", NULL, -1,
     "one per server", 0, "server_hosts", "server_hosts", 0, NULL, "dedicated parameter-server hosts", 0, SS_NEEDS_PS},
    {"sync", 0, SS_KIND_SWITCH, OFF(async), 0, 0, 0, NULL, 0, RUNS, "ps", NULL, NULL, 0, "synchronous", 0, NULL, NULL,
     0, NULL, "a step waits for every worker (the default)", 0, 0},
    {"async", 0, SS_KIND_SWITCH, OFF(async), 0, 0, 0, NULL, 1, RUNS, "ps", NULL, NULL, 0, "synchronous", 0, "async",
     "async", 0, NULL, "asynchronous SGD: each worker pushes and pulls on its own (per-worker throughput and "
     "staleness reported)", 0, 0},
    {"server-agg-gbytes-per-s", 0, SS_KIND_REAL, OFF(server_agg_gbytes_per_s), SS_BOUND_BANDWIDTH_LO / 1e9,
     1e9, 0, NULL, 0, RUNS, "ps", "X",
     "a rate in GB/s", SS_PS_AGG_GBYTES_PER_S, "2, an estimate", 0, "server_agg_gbytes_per_s",
     "server_agg_gbytes_per_s", 0, "server-agg-gbps", "GB/s of gradient one server core sums and applies", 0, SS_NEEDS_PS},
    {"init-io", 0, SS_KIND_ENUM, OFF(init_io), 0, 0, 0, ss_init_io_names, 0, RUNS, "ps", "M", NULL, SS_INIT_NONE,
     "none", 0, "init_io", "init_io", 0, NULL,
     "start-up, as CNTK: every worker reads the model and its input shard, sequential (one after another from "
     "instance 0's volume) or parallel (all at once, each from its instance's volume)", 0, SS_NEEDS_DP},
    {"init-shard-mib", 0, SS_KIND_REAL, OFF(init_shard_mib), 0, 1e9, 0, NULL, 0, RUNS, "ps", "X", "a number of MiB",
     SS_INIT_SHARD_MIB, "32", 0, "init_shard_mib", "init_shard_mib", 0, "init-shard-mb",
     "MiB of input each worker reads at start-up", 0, SS_NEEDS_DP},
    {"samples", 0, SS_KIND_REAL, OFF(samples), 1, BIG, 0, NULL, 0, RUNS, "ps", "N", "a number of samples", -1,
     "one epoch", 0, "samples", "samples", 0, NULL, "samples to train for the time-to-train figure", 0, 0},
    {"verbose", 0, SS_KIND_SWITCH, OFF(verbose), 0, 0, 0, NULL, 1, SS_CMD_BENCH, "bench", NULL, NULL, 0, "off", 0,
     NULL, NULL, 0, NULL, "also print the rings, each hop with its transport (P2P over NVLink or PCIe, or SHM)", 0, 0},
    {"min-bytes", 0, SS_KIND_SIZE, OFF(min_bytes), 1, 1e13, 0, NULL, 0, SS_CMD_BENCH, "bench", "B", NULL, 8, "8", 0,
     NULL, "min_bytes", 0, NULL, "smallest size", 0, 0},
    {"max-bytes", 0, SS_KIND_SIZE, OFF(max_bytes), 1, 1e13, 0, NULL, 0, SS_CMD_BENCH, "bench", "B", NULL,
     1073741824.0, "1Gi", 0, NULL, "max_bytes", 0, NULL, "largest size, sizes doubling in between", 0, 0},
    {"region", 0, SS_KIND_PATH, OFF(region), 0, 0, 0, NULL, 0, RUNS, "run", "R", "a region name", 0,
     "us-east-1: the instance file's price", 0, "region", NULL, 0, NULL,
     "the region whose price the cost uses: the row of the instance type and R in --price-file, else in "
     "prices.csv next to the instance file (platforms/prices.csv: us-east-1, us-west-2, eu-west-1), else for "
     "us-east-1 the instance file's price_usd_per_h; the report's price_source says which (docs/formats.md, Prices)", 0, 0},
    {"purchase", 0, SS_KIND_ENUM, OFF(purchase), 0, 0, 0, ss_purchase_names, 0, RUNS, "run", "P", NULL,
     SS_PURCHASE_AUTO, "auto", 0, "purchase", "purchase", 0, NULL,
     "how the instances are bought, the price table's row the cost uses: on-demand, capacity-block (EC2 Capacity "
     "Blocks for ML), savings-plan-1y, savings-plan-3y or spot (the middle of its recent range); auto: on-demand "
     "where the type is sold so, else its first other option (p5e and p6e-gb200 are sold by capacity block only); "
     "a type without the option asked in the region is refused, naming those it has",
     0, 0},
    {"price-date", 0, SS_KIND_PATH, OFF(price_date), 0, 0, 0, NULL, 0, RUNS, "run", "YYYY-MM-DD", "a day", 0,
     "the latest row", 0, "price_date", "price_date", 0, NULL,
     "the prices of that day: of each type's rows in the price tables, the latest dated on or before it "
     "(platforms/prices.csv keeps each change, as AWS's cut of June 2025)",
     0, 0},
    {"price-file", 0, SS_KIND_PATH, OFF(price_file), 0, 0, 0, NULL, 0, RUNS, "run", "FILE", NULL, 0, "none",
     SS_FILE_READS,
     "price_file", NULL, 0, NULL,
     "a CSV of your own prices per hour (spot, reserved, negotiated): columns instance_type and usd_per_h, "
     "optionally region, kind, date, source and status, as platforms/prices.csv; its row for the instance type (and "
     "--region) wins over the table's", 0, 0},
    {"ignore-memory", 0, SS_KIND_SWITCH, OFF(ignore_memory), 0, 0, 0, NULL, 1, RUNS, "run", NULL, NULL, 0, "off", 0,
     NULL, NULL, 0, NULL,
     "run a job whose GPU memory (parameters, gradients, optimizer state, activations, buffers, the CUDA "
     "context: docs/model.md) exceeds the GPU's instead of refusing it; --ideal keeps the check (memory is not a "
     "mechanism of the time model)", 0, 0},
    {"max-minutes", 0, SS_KIND_REAL, OFF(max_minutes), 0, SS_MAX_MINUTES_LIMIT, 1, NULL, 0, ALL, "run", "M",
     "a number of minutes", SS_MAX_MINUTES, "10", 0, NULL, NULL, 0, NULL,
     "refuse a command estimated to take more than M minutes of CPU to simulate (all its simulations: a plan's "
     "configurations, a benchmark's sizes and repetitions, whatif's two runs, the Stash study's runs), with the "
     "estimate; docs/testing.md says how it is estimated", 0, 0},
    {"estimate", 0, SS_KIND_SWITCH, OFF(estimate), 0, 0, 0, NULL, 1, ALL, "run", NULL, NULL, 0, "off", 0, NULL, NULL,
     0, NULL,
     "print the command's estimated CPU time to simulate (--format json: an object) and whether --max-minutes "
     "allows it, and exit without simulating", 0, 0},
    {"iters", 0, SS_KIND_COUNT, OFF(bench_iters), 1, 1000000, 0, NULL, 0, SS_CMD_BENCH, "bench", "R", NULL, 5, "5",
     0, NULL, "iters", 0, NULL, "collectives per size; the time is their mean", 0, 0},
    {"stash", 0, SS_KIND_SWITCH, OFF(stash), 0, 0, 0, NULL, 1, SS_CMD_RUN, "output", NULL, NULL, 0, "off", 0, NULL,
     "stash", 0, NULL,
     "Stash's differential breakdown: simulate RUN0 (synthetic, 1 GPU), RUN1 (synthetic), RUN2 (cold cache), "
     "RUN3 (all cached) and, over several instances, the same GPUs on one instance; report their differences "
     "beside RUN2's timeline breakdown", 0, 0},
    {"stash-stack", 0, SS_KIND_ENUM, OFF(stash_stack), 0, 0, 0, stack_names, 0, SS_CMD_RUN, "output", "S", NULL,
     SS_STACK_AUTO, "auto: stash, or ours with --ideal", 0, NULL, "stash_stack", 0, NULL,
     "with --stash: stash simulates Stash's scripts (apex DDP with one allreduce per parameter tensor, synthetic "
     "data copied from host memory, RUN1's three metric allreduces and synchronisations); ours keeps the job's "
     "options", 0, 0},
    {"stash-single", 0, SS_KIND_PATH, OFF(stash_single), 0, 0, 0, NULL, 0, SS_CMD_RUN, "output", "FILE", NULL, 0,
     "the file beside PLATFORM with the same GPU model and as many GPUs", SS_FILE_READS, NULL, "stash_single", 0, NULL,
     "with --stash over several instances: the instance file of the single-instance run", 0, 0},
    {"format", 0, SS_KIND_ENUM, OFF(format), 0, 0, 0, format_names, 0, ALL | SS_CMD_LIST, "output", "FMT", NULL,
     SS_FORMAT_TABLE, "table", 0, NULL, NULL, 0, NULL, "report format", 0, 0},
    {"output", 'o', SS_KIND_PATH, OFF(output), 0, 0, 0, NULL, 0, ALL, "output", "FILE", NULL, 0, "standard output",
     1, NULL, NULL, 0, NULL, "write the report to FILE (- : standard output)", 0, 0},
    {"trace", 0, SS_KIND_PATH, OFF(trace), 0, 0, 0, NULL, 0, SS_CMD_RUN, "output", "FILE", NULL, 0, "none", 1, NULL,
     NULL, 0, NULL,
     "write the simulated run as a Chrome trace (.json, or gzipped .json.gz; - : standard output) for Perfetto "
     "or chrome://tracing", 0, 0},
    {"tp", 0, SS_KIND_COUNT, OFF(tp), 1, SS_MAX_GPUS, 0, NULL, 0, RUNS, "parallel", "T", NULL, 1, "1", 0, "tp", "tp", 0,
     NULL,
     "tensor-parallel size: each transformer layer's matrices split over T GPUs (Megatron-LM), 2 allreduces of "
     "the layer's activations forward and 2 backward per micro-batch; T must divide the heads, key-value heads, "
     "hidden and FFN sizes of the workload's transformer", 0, 0},
    {"cp", 0, SS_KIND_COUNT, OFF(cp), 1, SS_MAX_GPUS, 0, NULL, 0, RUNS, "parallel", "N", NULL, 1, "1", 0, "cp", "cp", 0,
     NULL,
     "context-parallel size (Megatron-Core's --context-parallel-size): each sequence split over N GPUs in 2N "
     "chunks (two a rank, for the causal mask's balance), the keys and values passed around the group in a ring "
     "while the attention runs, their gradients the same way back, the weights' gradients reduced over the "
     "context and data ranks; the kernel model with flash attention; N must divide the sequence into 2N chunks",
     0, 0},
    {"ep", 0, SS_KIND_COUNT, OFF(ep), 1, SS_MAX_GPUS, 0, NULL, 0, RUNS, "parallel", "N", NULL, 1, "1", 0, "ep", "ep", 0,
     NULL,
     "expert-parallel size (Megatron-Core's --expert-model-parallel-size): a mixture of experts' routed experts "
     "split over N GPUs, each token sent to the GPUs of its experts and back by an all-to-all in every MoE layer, "
     "forward and backward; the expert groups as Megatron-Core builds them (expert tensor ranks fastest, then "
     "expert ranks, then expert data ranks); N must divide the experts",
     0, 0},
    {"etp", 0, SS_KIND_COUNT, OFF(etp), 1, SS_MAX_GPUS, 0, NULL, 0, RUNS, "parallel", "N", NULL, -1, "--tp's", 0, "etp",
     "etp", 0, NULL,
     "expert-tensor-parallel size: each routed expert's matrices split over N GPUs, the tokens gathered over them "
     "after the dispatch and reduce-scattered before the combine; N must divide the expert FFN size",
     0, 0},
    {"moe-imbalance", 0, SS_KIND_REAL, OFF(moe_imbalance), 1, 1e6, 0, NULL, 0, RUNS, "parallel", "X",
     "a ratio", -1, "drawn: routing uniform at random", 0, "moe_imbalance", "moe_imbalance", 0, NULL,
     "the busiest expert's tokens over the mean in every MoE layer (1: balanced, as a forced balanced routing "
     "gives); by default each layer's and iteration's counts are drawn as a router that picks experts uniformly "
     "at random would give them; the expert group waits for its busiest GPU",
     0, 0},
    {"moe-capacity", 0, SS_KIND_REAL, OFF(moe_capacity), 0, 1e6, 1, NULL, 0, RUNS, "parallel", "C",
     "a capacity factor", -1, "dropless", 0, "moe_capacity", "moe_capacity", 0, NULL,
     "capacity factor: an expert takes at most C times the mean tokens and drops the rest (the report counts "
     "them); without it every token is kept (dropless)",
     0, 0},
    {"moe-pad", 0, SS_KIND_SWITCH, OFF(moe_pad), 0, 0, 0, NULL, 1, RUNS, "parallel", NULL, NULL, 0, "off", 0,
     "moe_pad", "moe_pad", 0, NULL,
     "with --moe-capacity: every expert's tokens padded to its capacity (Megatron-Core's "
     "moe_pad_expert_input_to_capacity), so each computes C times the mean",
     0, 0},
    {"moe-dispatcher", 0, SS_KIND_ENUM, OFF(moe_dispatcher), 0, 0, 0, ss_dispatcher_names, 0, RUNS, "parallel", "D",
     NULL, SS_DISPATCH_ALLTOALL, "alltoall", 0, "moe_dispatcher", "moe_dispatcher", 0, NULL,
     "how the experts' tokens are exchanged: alltoall (NCCL's all-to-all, Megatron-Core's alltoall dispatcher) "
     "or deepep (DeepEP's kernels, Megatron-Core's flex dispatcher: NVLink at DeepEP's measured share of it, the "
     "network at the NIC's line rate, the dispatch in FP8 at --precision fp8)",
     0, 0},
    {"overlap-moe-comm", 0, SS_KIND_SWITCH, OFF(overlap_moe_comm), 0, 0, 0, NULL, 1, RUNS, "parallel", NULL, NULL, 0,
     "off", 0, "overlap_moe_comm", "overlap_moe_comm", 0, NULL,
     "Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm): each micro-batch's dispatch and combine "
     "run behind the compute of the micro-batch paired with it (a forward with a backward), only what the pair's "
     "compute cannot cover waiting; needs 2 micro-batches or more and no full recomputation",
     0, 0},
    {"pp", 0, SS_KIND_COUNT, OFF(pp), 1, SS_MAX_GPUS, 0, NULL, 0, RUNS, "parallel", "P", NULL, 1, "1", 0, "pp", "pp", 0,
     NULL,
     "pipeline stages: the layers split over P stages (the embedding with the first, the output layer and loss "
     "with the last), activations sent between stages per micro-batch; data parallelism over the GPUs / (T P) "
     "replicas left", 0, 0},
    {"schedule", 0, SS_KIND_ENUM, OFF(schedule), 0, 0, 0, ss_schedule_names, 0, RUNS, "parallel", "S", NULL,
     SS_SCHEDULE_1F1B, "1f1b", 0, "schedule", "schedule", 0, NULL,
     "the pipeline's schedule: gpipe (all forwards, then all backwards), 1f1b (PipeDream-Flush, Megatron's "
     "default) or interleaved (Megatron's interleaved 1F1B with --virtual-stages chunks per stage)", 0, SS_NEEDS_MP},
    {"virtual-stages", 0, SS_KIND_COUNT, OFF(virtual_stages), 1, 1024, 0, NULL, 0, RUNS, "parallel", "V", NULL, 1, "1",
     0, "virtual_stages", "virtual_stages", 0, NULL,
     "model chunks per stage of the interleaved schedule (Megatron's --num-layers-per-virtual-pipeline-stage "
     "as a count): the bubble shrinks by V, the point-to-point transfers grow by V", 0, SS_NEEDS_MP},
    {"micro-batch", 0, SS_KIND_COUNT, OFF(micro_batch), 1, SS_OPTION_MAX_BATCH, 0, NULL, 0, RUNS, "parallel", "B",
     NULL, -1, "the workload's batch_per_gpu", 0, "micro_batch", "micro_batch", 0, NULL,
     "sequences per micro-batch of a tensor- or pipeline-parallel run", 0, SS_NEEDS_MP},
    {"global-batch", 0, SS_KIND_COUNT, OFF(global_batch), 1, 1e9, 0, NULL, 0, RUNS, "parallel", "G", NULL, -1, "none",
     0, "global_batch", "global_batch", 0, NULL,
     "sequences per optimizer step over all GPUs: with --tp or --pp the micro-batches per iteration are G / "
     "(micro-batch x data-parallel size); plan keeps it constant (each data-parallel configuration's per-GPU "
     "batch is G / its GPUs, those where that is not whole skipped)", 0, 0},
    {"grad-accum", 0, SS_KIND_COUNT, OFF(grad_accum), 1, 1000000, 0, NULL, 0, NOT_PLAN(RUNS), "parallel", "K", NULL, 1,
     "1", 0, "grad_accum", "grad_accum", 0, NULL,
     "micro-batches per optimizer step: with --tp or --pp the pipeline's (when --global-batch does not set "
     "them); in a data-parallel run each GPU runs K batches forward and backward and reduces the gradients "
     "after the last one only (PyTorch DDP's no_sync(), DeepSpeed's and Horovod's accumulation)", 0, 0},
    {"sequence-parallel", 0, SS_KIND_SWITCH, OFF(sequence_parallel), 0, 0, 0, NULL, 1, RUNS, "parallel", NULL, NULL, 0,
     "off", 0, "sequence_parallel", "sequence_parallel", 0, NULL,
     "sequence parallelism (Korthikanti et al. 2022): each tensor-parallel allreduce becomes a reduce-scatter and "
     "an all-gather of the same bytes, and the layer norms' and dropouts' activations divide by T", 0, SS_NEEDS_MP},
    {"recompute", 0, SS_KIND_ENUM, OFF(recompute), 0, 0, 0, ss_recompute_names, 0, RUNS, "parallel", "R", NULL,
     SS_RECOMPUTE_NONE, "none", 0, "recompute", "recompute", 0, NULL,
     "activation recomputation, in every kind of run: none; selective (the attention core recomputed in "
     "backward, Megatron's --recompute-granularity selective: its softmax and dropout, or flash attention's "
     "forward; in a data-parallel run the kernel model's); full (each layer keeps its input and runs its "
     "forward again in backward: Megatron's full, torch.utils.checkpoint per block, Hugging Face's gradient "
     "checkpointing; with its tensor-parallel allreduces); docs/model.md says what each framework means by them",
     0, 0},
    {"distributed-optimizer", 0, SS_KIND_SWITCH, OFF(distributed_optimizer), 0, 0, 0, NULL, 1, RUNS, "parallel", NULL,
     NULL, 0, "off", 0, "distributed_optimizer", "distributed_optimizer", 0, NULL,
     "Megatron's distributed optimizer: the FP32 master weights and Adam's moments sharded over the data-parallel "
     "group (ZeRO-1); gradients reduce-scattered, parameters all-gathered after the step", 0, SS_NEEDS_MP},
    {"rank-order", 0, SS_KIND_ENUM, OFF(rank_order), 0, 0, 0, ss_rank_order_names, 0, RUNS, "parallel", "O", NULL, 0,
     "tp-dp-pp (Megatron-Core's)", 0, "rank_order", "rank_order", 0, NULL,
     "which parallel dimension varies fastest over consecutive GPUs (instance by instance): tp-dp-pp keeps the "
     "tensor groups inside an instance and the stages across instances", 0, SS_NEEDS_MP},
    {"partition", 0, SS_KIND_PATH, OFF(partition), 0, 0, 0, NULL, 0, RUNS, "parallel", "LIST",
     "transformer layers per virtual stage separated by commas", 0, "even, as Megatron splits them", 0, NULL,
     "partition", 0, NULL,
     "the transformer layers of each virtual stage, in the model's order (P x V counts adding up to the layers)",
     0, SS_NEEDS_MP},
    {"tokens", 0, SS_KIND_REAL, OFF(tokens), 1, BIG, 0, NULL, 0, RUNS, "parallel", "N", "a number of tokens", -1,
     "--samples, or one epoch", 0, "tokens", "tokens", 0, NULL,
     "tokens to train a language model (the workload's transformer sequence length per sample): the time and "
     "cost to train them", 0, 0},
    {"platforms", 0, SS_KIND_PATH, OFF(plan_platforms), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "LIST",
     "instance types separated by commas, or a folder", 0,
     "every instance file of the catalogue", SS_FILE_READS_LIST, NULL, NULL, 0, NULL,
     "instance types to try: short names or paths separated by commas, or a folder of instance files", 0, 0},
    {"max-instances", 0, SS_KIND_COUNT, OFF(plan_max_instances), 1, SS_MAX_INSTANCES, 0, NULL, 0, SS_CMD_PLAN, "plan",
     "K", NULL, 8, "8", 0, NULL, NULL, 0, NULL, "try 1 to K instances of each type", 0, 0},
    {"algorithms", 0, SS_KIND_PATH, OFF(plan_algorithms), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "LIST",
     "allreduce algorithms separated by commas", 0,
     "ring,tree,hierarchical", 0, NULL, NULL, 0, NULL,
     "allreduce algorithms to try, separated by commas (ring, tree, hierarchical, auto)", 0, 0},
    {"batches", 0, SS_KIND_PATH, OFF(plan_batches), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "LIST",
     "per-GPU batches separated by commas", 0,
     "the workload's batch_per_gpu", 0, NULL, NULL, 0, NULL, "per-GPU batches to try, separated by commas (at most 64, each once)", 0, 0},
    {"shards", 0, SS_KIND_PATH, OFF(plan_shards), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "LIST",
     "sharding modes separated by commas", 0,
     "--shard's mode", 0, NULL, NULL, 0, NULL,
     "sharding modes to try, separated by commas (--shard's: none, zero1, zero2, zero3, fsdp-full, fsdp-grad-op, "
     "fsdp-hybrid, fsdp-hybrid-zero2); tree only without sharding; a mode's own options go to that mode's "
     "configurations", 0, 0},
    {"tps", 0, SS_KIND_PATH, OFF(plan_tps), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "LIST",
     "tensor-parallel sizes separated by commas", 0, "--tp's", 0, NULL, NULL, 0, NULL,
     "tensor-parallel sizes to try, separated by commas (a language model's; each at most an instance's GPUs)", 0, 0},
    {"cps", 0, SS_KIND_PATH, OFF(plan_cps), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "LIST",
     "context-parallel sizes separated by commas", 0, "--cp's", 0, NULL, NULL, 0, NULL,
     "context-parallel sizes to try, separated by commas (--cp: the sequence split over each size's GPUs); the "
     "layouts t x cp x p that divide a configuration's GPUs run with data parallelism over the rest", 0, 0},
    {"eps", 0, SS_KIND_PATH, OFF(plan_eps), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "LIST",
     "expert-parallel sizes separated by commas", 0, "--ep's", 0, NULL, NULL, 0, NULL,
     "expert-parallel sizes to try, separated by commas (--ep: a mixture of experts' experts over each size's "
     "GPUs); each must divide the experts and, with --etp (by default the tensor size), a stage's GPUs", 0, 0},
    {"pps", 0, SS_KIND_PATH, OFF(plan_pps), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "LIST",
     "pipeline stage counts separated by commas", 0, "--pp's", 0, NULL, NULL, 0, NULL,
     "pipeline stage counts to try, separated by commas; the layouts t x p that divide a configuration's GPUs "
     "run with data parallelism over the rest, the recomputation the least of none, selective, full (from "
     "--recompute's) that fits the GPUs' memory", 0, 0},
    {"micro-batches", 0, SS_KIND_PATH, OFF(plan_micro), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "LIST",
     "micro-batches separated by commas", 0, "--micro-batch's", 0, NULL, NULL, 0, NULL,
     "micro-batches to try with tensor or pipeline parallelism, separated by commas", 0, 0},
    {"schedules", 0, SS_KIND_PATH, OFF(plan_schedules), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "LIST",
     "pipeline schedules separated by commas", 0, "--schedule's", 0, NULL, NULL, 0, NULL,
     "pipeline schedules to try with pipeline parallelism, separated by commas (gpipe, 1f1b, interleaved: with 2 "
     "chunks per stage unless --virtual-stages says)", 0, 0},
    {"mtbf-hours", 0, SS_KIND_REAL, OFF(mtbf_hours), 0, 1e9, 1, NULL, 0, RUNS, "failures", "H",
     "a time in hours", -1, "Llama 3's rate: 50,677 GPU-hours over the instance's GPUs", 0, "mtbf_hours",
     "mtbf_hours", 0, NULL,
     "an instance's mean time between failures: the job fails at the instances' rate together, and each failure "
     "costs the work since the last checkpoint and the restart (docs/model.md, \"Failures and checkpoints\")", 0,
     SS_NEEDS_MECH},
    {"checkpoint-to", 0, SS_KIND_ENUM, OFF(checkpoint_to), 0, 0, 0, ss_ckpt_target_names, 0, RUNS, "failures", "T",
     NULL, SS_CKPT_TO_FSX, "fsx", 0, "checkpoint_to", "checkpoint_to", 0, NULL,
     "where checkpoints are written: local (the instances' NVMe, the instance file's disk), fsx (FSx for "
     "Lustre) or s3, each at its documented rate (docs/model.md)", 0, SS_NEEDS_MECH},
    {"checkpoint-every", 0, SS_KIND_PATH, OFF(checkpoint_every), 0, 0, 0, NULL, 0, RUNS, "failures", "MIN",
     "auto or minutes", 0, "auto", 0, "checkpoint_every", "checkpoint_every", 0, NULL,
     "the work between two checkpoints: auto (Young's optimum, sqrt(2 x the write x the job's mean time between "
     "failures)) or minutes", 0, SS_NEEDS_MECH},
    {"checkpoint-gbps", 0, SS_KIND_REAL, OFF(checkpoint_gbps), 0, 1e7, 1, NULL, 0, RUNS, "failures", "G",
     "a rate in GB/s", -1, "--checkpoint-to's figures", 0, "checkpoint_gbps", "checkpoint_gbps", 0, NULL,
     "what all the instances write to the checkpoints' target together, in GB/s (your own file system's)", 0,
     SS_NEEDS_MECH},
    {"restart-min", 0, SS_KIND_REAL, OFF(restart_min), 0, 1e6, 0, NULL, 0, RUNS, "failures", "MIN",
     "a time in minutes", -1, "15 (ESTIMATE: calibration/failures_2026.md)", 0, "restart_min", "restart_min", 0, NULL,
     "a failure's restart: detection, rescheduling and reloading the last checkpoint", 0, SS_NEEDS_MECH},
    {"spot-reclaim-pct", 0, SS_KIND_REAL, OFF(spot_reclaim_pct), 0, 100, 1, NULL, 0, RUNS, "failures", "P",
     "a percentage", -1, "10 (ESTIMATE: calibration/failures_2026.md)", 0, "spot_reclaim_pct", "spot_reclaim_pct",
     0, NULL,
     "with --purchase spot, the share of instances AWS reclaims in a month (the Spot Instance Advisor's "
     "frequency of interruption): each reclaim interrupts the job as a failure does", 0, SS_NEEDS_MECH},
    {"no-failures", 0, SS_KIND_SWITCH, OFF(failures), 0, 0, 0, NULL, 0, RUNS, "failures", NULL, NULL, 1,
     "failures counted", 0, "failures", "failures", 0, NULL,
     "no failures: the time to train is the failure-free one and no checkpoint is written (as --ideal)", 0,
     SS_NEEDS_MECH},
    {"vpps", 0, SS_KIND_PATH, OFF(plan_vpps), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "LIST",
     "chunks per stage separated by commas", 0, "--virtual-stages's, or 2", 0, NULL, NULL, 0, NULL,
     "model chunks per stage to try with the interleaved schedule, separated by commas (2 or more)", 0, 0},
    {"recomputes", 0, SS_KIND_PATH, OFF(plan_recomputes), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "LIST",
     "recomputations separated by commas", 0, "the least that fits", 0, NULL, NULL, 0, NULL,
     "activation recomputations to try with tensor or pipeline parallelism, separated by commas (none, selective, "
     "full); without it each layout runs with the least of none, selective, full (from --recompute's) that fits",
     0, 0},
    {"sequence-parallels", 0, SS_KIND_PATH, OFF(plan_sps), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "LIST",
     "off, on or both separated by commas", 0, "on (Megatron-Core's recipes)", 0, NULL, NULL, 0, NULL,
     "sequence parallelism to try on the layouts with tensor parallelism: off, on or off,on", 0, 0},
    {"distributed-optimizers", 0, SS_KIND_PATH, OFF(plan_dos), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "LIST",
     "off, on or both separated by commas", 0, "on (Megatron-Core's recipes)", 0, NULL, NULL, 0, NULL,
     "Megatron's distributed optimizer to try on the layouts: off, on or off,on", 0, 0},
    {"precisions", 0, SS_KIND_PATH, OFF(plan_precisions), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "LIST",
     "precisions separated by commas", 0, "--precision's", 0, NULL, NULL, 0, NULL,
     "precisions to try, separated by commas (--precision's: fp32, tf32, amp, bf16, fp8)", 0, 0},
    {"epochs", 0, SS_KIND_REAL, OFF(plan_epochs), 0, 1e6, 1, NULL, 0, SS_CMD_PLAN, "plan", "N", "a number of epochs",
     1, "1", 0, NULL, NULL, 0, NULL, "epochs to train, for the time to train and its cost (or --samples)", 0, 0},
    {"budget", 0, SS_KIND_REAL, OFF(plan_budget_usd), 0, 1e12, 1, NULL, 0, SS_CMD_PLAN, "plan", "USD",
     "an amount in US dollars", -1, "none", 0, NULL, NULL, 0, NULL,
     "drop the configurations whose training costs more than USD", 0, 0},
    {"deadline", 0, SS_KIND_REAL, OFF(plan_deadline_h), 0, 1e6, 1, NULL, 0, SS_CMD_PLAN, "plan", "HOURS",
     "a time in hours", -1, "none", 0, NULL, NULL, 0, NULL,
     "drop the configurations whose training takes longer than HOURS", 0, 0},
    {"objective", 0, SS_KIND_ENUM, OFF(plan_objective), 0, 0, 0, objective_names, 0, SS_CMD_PLAN, "plan", "O", NULL,
     SS_OBJECTIVE_TIME, "time", 0, NULL, NULL, 0, NULL, "rank by time to train or by total cost", 0, 0},
    {"verify", 0, SS_KIND_COUNT, OFF(plan_verify), 0, 1000000, 0, NULL, 0, SS_CMD_PLAN, "plan", "N", NULL, 20, "20",
     0, NULL, NULL, 0, NULL,
     "simulate the N best configurations of the closed-form screen (0: the screen alone); --max-minutes bounds "
     "their simulation, not the screen", 0, 0},
    {"plot", 0, SS_KIND_PATH, OFF(plan_plot), 0, 0, 0, NULL, 0, SS_CMD_PLAN, "plan", "FILE", NULL, 0, "none", 1,
     NULL, NULL, 0, NULL,
     "draw the time-cost scatter and its Pareto front to FILE (.png or .svg) with gnuplot", 0, 0},
    {NULL, 0, 0, 0, 0, 0, 0, NULL, 0, 0, NULL, NULL, NULL, 0, NULL, 0, NULL, NULL, 0, NULL, NULL, 0, 0}};
/* clang-format on */

_Static_assert(sizeof(ss_option_table) / sizeof(ss_option_table[0]) <= 64 * SS_OPTSET_WORDS + 1,
               "an optset has a bit per row");

int ss_option_count(void)
{
  int n = 0;
  while (ss_option_table[n].name)
    n++;
  return n;
}

int ss_option_index(const ss_optdef* d)
{
  return (int)(d - ss_option_table);
}

const ss_optdef* ss_option_by_name(const char* name)
{
  for (const ss_optdef* d = ss_option_table; d->name; d++)
    if (!d->positional && (strcmp(d->name, name) == 0 || (d->alias && strcmp(d->alias, name) == 0)))
      return d;
  return NULL;
}

/* key as an option name: underscores become dashes. */
static void key_to_name(const char* key, char* out, size_t size)
{
  size_t n = 0;
  for (; key[n] && n + 1 < size; n++)
    out[n] = key[n] == '_' ? '-' : key[n];
  out[n] = '\0';
}

const ss_optdef* ss_option_by_key(const char* key)
{
  char alias[64];
  key_to_name(key, alias, sizeof(alias));
  for (const ss_optdef* d = ss_option_table; d->name; d++)
    if (d->whatif_key && (strcmp(d->whatif_key, key) == 0 || (d->alias && strcmp(d->alias, alias) == 0)))
      return d;
  return NULL;
}

const ss_optdef* ss_option_by_short(int ch)
{
  for (const ss_optdef* d = ss_option_table; d->name; d++)
    if (d->short_name && d->short_name == ch)
      return d;
  return NULL;
}

static int* int_field(const ss_optdef* d, ss_options* o)
{
  return (int*)((char*)o + d->offset);
}

static double* real_field(const ss_optdef* d, ss_options* o)
{
  return (double*)((char*)o + d->offset);
}

static const char** path_field(const ss_optdef* d, ss_options* o)
{
  return (const char**)((char*)o + d->offset);
}

void ss_option_copy(const ss_optdef* d, ss_options* to, const ss_options* from)
{
  if (d->kind == SS_KIND_REAL || d->kind == SS_KIND_SIZE)
    *real_field(d, to) = *(const double*)((const char*)from + d->offset);
  else if (d->kind == SS_KIND_PATH)
    *path_field(d, to) = *(const char* const*)((const char*)from + d->offset);
  else
    *int_field(d, to) = *(const int*)((const char*)from + d->offset);
}

/* The values of a row's field, read. */
static int int_value(const ss_optdef* d, const ss_options* o)
{
  return *(const int*)((const char*)o + d->offset);
}

static double real_value(const ss_optdef* d, const ss_options* o)
{
  return *(const double*)((const char*)o + d->offset);
}

static const char* path_value(const ss_optdef* d, const ss_options* o)
{
  return *(const char* const*)((const char*)o + d->offset);
}

static int is_int_kind(ss_opt_kind k)
{
  return k == SS_KIND_COUNT || k == SS_KIND_ENUM || k == SS_KIND_SWITCH;
}

void ss_options_default(ss_options* o)
{
  memset(o, 0, sizeof(*o));
  for (const ss_optdef* d = ss_option_table; d->name; d++) {
    if (d->kind == SS_KIND_PATH)
      *path_field(d, o) = NULL;
    else if (is_int_kind(d->kind))
      *int_field(d, o) = (int)d->dflt;
    else
      *real_field(d, o) = d->dflt;
  }
}

void ss_optset_add(ss_optset* s, const ss_optdef* d)
{
  int i = ss_option_index(d);
  s->bits[i / 64] |= 1ULL << (i % 64);
}

int ss_optset_has_row(const ss_optset* s, const ss_optdef* d)
{
  int i = ss_option_index(d);
  return (s->bits[i / 64] >> (i % 64)) & 1;
}

int ss_optset_has(const ss_optset* s, const char* name)
{
  const ss_optdef* d = ss_option_by_name(name);
  ss_assert(d);
  return ss_optset_has_row(s, d);
}

/* A number in words: whole numbers without exponent below 1e7 or when %g would round them
 * (2147483647), else %g without its exponent's sign and leading zeros (1e7, not 1e+07). */
static void number_text(double v, char* buf, size_t size)
{
  char exact[32];
  snprintf(exact, sizeof(exact), "%g", v);
  if (v == floor(v) && (fabs(v) < 1e7 || (fabs(v) < 0x1p53 && strtod(exact, NULL) != v))) {
    snprintf(buf, size, "%.0f", v);
    return;
  }
  char g[32];
  snprintf(g, sizeof(g), "%g", v);
  char* e = strchr(g, 'e');
  if (e) {
    char* digits = e + 1 + (e[1] == '+' || e[1] == '-');
    int neg = e[1] == '-';
    while (*digits == '0' && digits[1])
      digits++;
    snprintf(buf, size, "%.*se%s%s", (int)(e - g), g, neg ? "-" : "", digits);
  } else {
    snprintf(buf, size, "%s", g);
  }
}

void ss_option_expects(const ss_optdef* d, char* buf, size_t size)
{
  char lo[32], hi[32];
  number_text(d->min, lo, sizeof(lo));
  number_text(d->max, hi, sizeof(hi));
  switch (d->kind) {
    case SS_KIND_COUNT: snprintf(buf, size, "a whole number from %s to %s", lo, hi); return;
    case SS_KIND_REAL:
      if (d->min_open)
        snprintf(buf, size, "%s greater than %s and at most %s", d->what, lo, hi);
      else
        snprintf(buf, size, "%s from %s to %s", d->what, lo, hi);
      return;
    case SS_KIND_SIZE:
      snprintf(buf, size, "a size in bytes from %s to %s (suffixes k, M, G, T, Ki, Mi, Gi, Ti)", lo, hi);
      return;
    case SS_KIND_ENUM: {
      size_t n = 0;
      buf[0] = '\0';
      for (int i = 0; d->values[i] && n < size; i++) {
        const char* sep = i == 0 ? "" : d->values[i + 1] ? ", " : " or ";
        n += (size_t)snprintf(buf + n, size - n, "%s%s", sep, d->values[i]);
      }
      return;
    }
    case SS_KIND_SWITCH: snprintf(buf, size, "no value"); return;
    case SS_KIND_PATH: snprintf(buf, size, "%s", d->what ? d->what : "a file"); return;
  }
}

/* A size: a number and an optional decimal (k, M, G, T) or binary (Ki, Mi, Gi, Ti) multiplier. */
static int parse_size(const char* s, double* out)
{
  static const struct {
    const char* suffix;
    double factor;
  } mult[] = {{"", 1},     {"k", 1e3},     {"K", 1e3},        {"M", 1e6},           {"G", 1e9},
              {"T", 1e12}, {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}};
  char* end = NULL;
  double v = ss_strtod(s, &end);
  if (end == s || !isfinite(v))
    return -1;
  for (size_t i = 0; i < sizeof(mult) / sizeof(mult[0]); i++)
    if (strcmp(end, mult[i].suffix) == 0) {
      *out = v * mult[i].factor;
      return *out == floor(*out) ? 0 : -2; /* bytes are whole: 1.5k is, 1.5 is not */
    }
  return -1;
}

/* The smallest value other than 0 of a real option whose range starts at 0: below it a value is an
 * underflow or a wrong unit (1e-310 us of latency is not a setting), from the bounds of units.h in
 * the option's unit; SS_BOUND_TINY for the dimensionless ones. */
static double real_floor(const ss_optdef* d)
{
  static const struct {
    const char* name;
    double floor;
  } floors[] = {{"nic-latency-us", SS_BOUND_LATENCY_LO * 1e6},  {"handoff-us", SS_BOUND_TIME_LO * 1e6},
                {"collective-host-us", SS_BOUND_TIME_LO * 1e6}, {"tensor-host-us", SS_BOUND_TIME_LO * 1e6},
                {"cycle-ms", SS_BOUND_TIME_LO / 1e-3},          {"bucket-mib", SS_BOUND_SIZE_LO / 1048576.0},
                {"fusion-mib", SS_BOUND_SIZE_LO / 1048576.0},   {"init-shard-mib", SS_BOUND_SIZE_LO / 1048576.0}};
  for (size_t i = 0; i < sizeof(floors) / sizeof(floors[0]); i++)
    if (strcmp(d->name, floors[i].name) == 0)
      return floors[i].floor;
  return SS_BOUND_TINY;
}

int ss_option_parse(const ss_optdef* d, const char* value, ss_options* o, const char* shown, char* msg, size_t size)
{
  char* end = NULL;
  double v = 0;
  int ok = 1;
  switch (d->kind) {
    case SS_KIND_SWITCH: *int_field(d, o) = d->set; return 0;
    case SS_KIND_PATH:
      if (!*value) {
        snprintf(msg, size, "%s expects %s, got nothing", shown, d->what ? d->what : "a file");
        return -1;
      }
      /* --partition's list is checked here, a usage error naming the item or the count at fault. */
      char why[320];
      if (d->offset == offsetof(ss_options, partition) && ss_pipe_partition_parse(value, NULL, why, sizeof(why)) < 0) {
        snprintf(msg, size, "%s expects %s", shown, why);
        return -1;
      }
      *path_field(d, o) = value;
      return 0;
    case SS_KIND_ENUM:
      if (!value && d->set) { /* given alone: an enum with an optional value */
        *int_field(d, o) = d->set;
        return 0;
      }
      for (int i = 0; d->values[i]; i++)
        if (strcmp(d->values[i], value) == 0) {
          *int_field(d, o) = i;
          return 0;
        }
      ok = 0;
      break;
    case SS_KIND_COUNT:
      errno = 0;
      v = (double)strtol(value, &end, 10);
      ok = !errno && end != value && !*end;
      break;
    case SS_KIND_REAL:
      v = ss_strtod(value, &end);
      ok = end != value && !*end && isfinite(v);
      break;
    case SS_KIND_SIZE:
      ok = parse_size(value, &v);
      if (ok == -2) {
        snprintf(msg, size, "%s expects a whole number of bytes, got '%s'", shown, value);
        return -1;
      }
      ok = ok == 0;
      break;
  }
  ok = ok && v >= d->min && v <= d->max && !(d->min_open && v == d->min);
  if (!ok) {
    char expects[256];
    ss_option_expects(d, expects, sizeof(expects));
    snprintf(msg, size, "%s expects %s, got '%s'", shown, expects, value);
    return -1;
  }
  /* A count too large for an int (parameters, elements, events, samples) is still whole. */
  static const char* const counts[] = {"a number of parameters", "a number of elements", "a number of events",
                                       "a number of samples", NULL};
  int whole = 0;
  for (int i = 0; d->kind == SS_KIND_REAL && d->what && counts[i]; i++)
    whole |= strcmp(d->what, counts[i]) == 0;
  if (whole && v != floor(v)) {
    snprintf(msg, size, "%s expects a whole number (%s), got '%s'", shown, d->what, value);
    return -1;
  }
  if (d->kind == SS_KIND_REAL && v != 0 && v < real_floor(d)) {
    char expects[256], floor[32];
    ss_option_expects(d, expects, sizeof(expects));
    number_text(real_floor(d), floor, sizeof(floor));
    snprintf(msg, size, "%s expects %s, got '%s' (other than 0, at least %s)", shown, expects, value, floor);
    return -1;
  }
  if (d->kind == SS_KIND_COUNT)
    *int_field(d, o) = (int)v;
  else if (d->kind != SS_KIND_ENUM)
    *real_field(d, o) = v;
  return 0;
}

/* Name of value v of a NULL-terminated name table. */
static const char* enum_name(const char* const* names, int v)
{
  int n = 0;
  while (names[n])
    n++;
  ss_assert(v >= 0 && v < n);
  return names[v];
}

const char* ss_objective_name(ss_objective v)
{
  return enum_name(objective_names, (int)v);
}

int ss_option_shard_takes(const ss_optdef* d, ss_shard m)
{
  return ss_shard_takes(m, d->shard_opt);
}

/* s as a JSON string into buf. */
static int json_text(const char* s, char* buf, size_t size)
{
  size_t n = 0;
  if (size < 3)
    return 0;
  buf[n++] = '"';
  for (; *s && n + 8 < size; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      n += (size_t)snprintf(buf + n, size - n, "\\%c", ch);
    else if (ch < 0x20)
      n += (size_t)snprintf(buf + n, size - n, "\\u%04x", ch);
    else
      buf[n++] = (char)ch;
  }
  buf[n++] = '"';
  buf[n] = '\0';
  return (int)n;
}

int ss_option_value_text(const ss_optdef* d, const ss_options* o, int json, char* buf, size_t size)
{
  int derived = d->dflt == -1;
  switch (d->kind) {
    case SS_KIND_PATH: {
      const char* s = path_value(d, o);
      if (!s)
        return snprintf(buf, size, "%s", json ? "null" : "");
      return json ? json_text(s, buf, size) : snprintf(buf, size, "%s", s);
    }
    case SS_KIND_ENUM: {
      const char* s = enum_name(d->values, int_value(d, o));
      return json ? json_text(s, buf, size) : snprintf(buf, size, "%s", s);
    }
    case SS_KIND_SWITCH: return snprintf(buf, size, "%s", int_value(d, o) ? "true" : "false");
    case SS_KIND_COUNT:
      if (derived && int_value(d, o) < 0)
        return snprintf(buf, size, "%s", json ? "null" : "");
      return snprintf(buf, size, "%d", int_value(d, o));
    case SS_KIND_REAL:
    case SS_KIND_SIZE:
      if (derived && real_value(d, o) < 0)
        return snprintf(buf, size, "%s", json ? "null" : "");
      return snprintf(buf, size, "%.17g", real_value(d, o));
  }
  return 0;
}

/* Whether a plan may try a configuration with t and p both 1 (dp) or one of them above 1 (mp). */
static void plan_layouts(const ss_options* o, int* dp, int* mp)
{
  int tps[SS_OPTION_LIST_MAX] = {o->tp}, pps[SS_OPTION_LIST_MAX] = {o->pp}, cps[SS_OPTION_LIST_MAX] = {o->cp};
  int nt = o->plan_tps ? ss_option_list_sizes(o->plan_tps, tps, SS_OPTION_LIST_MAX) : 1;
  int np = o->plan_pps ? ss_option_list_sizes(o->plan_pps, pps, SS_OPTION_LIST_MAX) : 1;
  int nc = o->plan_cps ? ss_option_list_sizes(o->plan_cps, cps, SS_OPTION_LIST_MAX) : 1;
  int eps[SS_OPTION_LIST_MAX] = {o->ep};
  int ne = o->plan_eps ? ss_option_list_sizes(o->plan_eps, eps, SS_OPTION_LIST_MAX) : 1;
  int t1 = 0, p1 = 0, c1 = 0, e1 = 0;
  *mp = 0;
  for (int i = 0; i < nt; i++) {
    t1 |= tps[i] == 1;
    *mp |= tps[i] > 1;
  }
  for (int i = 0; i < np; i++) {
    p1 |= pps[i] == 1;
    *mp |= pps[i] > 1;
  }
  for (int i = 0; i < nc; i++) {
    c1 |= cps[i] == 1;
    *mp |= cps[i] > 1;
  }
  for (int i = 0; i < ne; i++) {
    e1 |= eps[i] == 1;
    *mp |= eps[i] > 1;
  }
  *dp = t1 && p1 && c1 && e1;
}

unsigned ss_options_had(const ss_options* o, unsigned cmd)
{
  int dp = !ss_options_model_parallel(o), mp = !dp;
  if (cmd == SS_CMD_PLAN)
    plan_layouts(o, &dp, &mp);
  int ps = o->arch == SS_ARCH_PS;
  int net = o->instances > 1 || (ps && o->placement == SS_PS_DEDICATED) ||
            (cmd == SS_CMD_PLAN && o->plan_max_instances > 1);
  /* Known from the instance file only: had until the job says (ss_job_needs_had). */
  unsigned had = SS_NEEDS_SOCKET | SS_NEEDS_TCP;
  had |= (dp ? SS_NEEDS_DP : 0u) | (mp ? SS_NEEDS_MP : 0u) | (o->synthetic ? 0u : SS_NEEDS_DATA) |
         (net ? SS_NEEDS_NET : 0u) | (o->ideal ? 0u : SS_NEEDS_MECH) | (ps ? SS_NEEDS_PS : 0u);
  return had;
}

/* Why an option that needs what need names has no effect without it ("--NAME " comes first). */
static void lacking(unsigned need, const char* net, char* buf, size_t size)
{
  switch (need) {
    case SS_NEEDS_PS: snprintf(buf, size, "goes with --arch ps"); break;
    case SS_NEEDS_MP:
      snprintf(buf, size, "tunes tensor, context or pipeline parallelism: it needs --tp, --cp or --pp above 1");
      break;
    case SS_NEEDS_DP:
      snprintf(buf, size,
               "has no effect with --tp, --cp or --pp above 1 (a plan's --tps and --pps without 1): tensor-, "
               "context- and pipeline-parallel runs are simulated stage by stage at the fast fidelity, without data "
               "loading, the host's thread or the data-parallel framework (docs/model.md, \"Tensor and pipeline "
               "parallelism\")");
      break;
    case SS_NEEDS_NET:
      snprintf(buf, size, "has no effect on one instance: give --instances N (or dedicated parameter servers)");
      break;
    case SS_NEEDS_DATA: snprintf(buf, size, "has no effect with --synthetic (no data loading)"); break;
    case SS_NEEDS_MECH:
      snprintf(buf, size, "has no effect with --ideal (every modelled mechanism is off: links and kernels only)");
      break;
    case SS_NEEDS_SOCKET:
      snprintf(buf, size,
               "has no effect: %s between these instances, not its socket transport (give --net-transport socket)",
               net ? net : "NCCL does not run its socket transport");
      break;
    default:
      snprintf(buf, size,
               "has no effect: %s between these instances, and AWS caps only TCP flows through its ENA NIC (those of "
               "NCCL's socket transport and of parameter servers)",
               net ? net : "no TCP flow runs");
  }
}

int ss_options_effect(const ss_optset* given, unsigned had, const char* net, char* msg, size_t size)
{
  /* The first need missing, in the order a person would fix them. */
  static const unsigned order[] = {SS_NEEDS_PS,   SS_NEEDS_MP,   SS_NEEDS_DP,     SS_NEEDS_NET,
                                   SS_NEEDS_DATA, SS_NEEDS_MECH, SS_NEEDS_SOCKET, SS_NEEDS_TCP};
  _Static_assert(sizeof(order) / sizeof(order[0]) == 8 && SS_NEEDS_ALL == 255, "every need has its words");
  for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
    for (const ss_optdef* d = ss_option_table; d->name; d++)
      if ((d->needs & order[k]) && !(had & order[k]) && ss_optset_has_row(given, d)) {
        char why[512];
        lacking(order[k], net, why, sizeof(why));
        return snprintf(msg, size, "--%s %s", d->name, why), -1;
      }
  return 0;
}

/* Cross-option checks. Each fills msg and returns -1 on the first problem. */
#define FAIL(...) return (snprintf(msg, size, __VA_ARGS__), -1)

/* The parameter-server options need --arch ps; dedicated servers have hosts of their own. */
static int check_ps(const ss_options* o, const ss_optset* given, char* msg, size_t size)
{
  if (ss_optset_has(given, "sync") && ss_optset_has(given, "async"))
    FAIL("give --sync or --async, not both");
  if (o->arch != SS_ARCH_PS && o->async)
    FAIL("--async is asynchronous SGD with parameter servers: it needs --arch ps (allreduce is synchronous)");
  if (o->async && o->ps_aggregate == SS_PS_AGG_INSTANCE)
    FAIL("--ps-aggregate instance reduces each instance's gradients together before the servers: it needs "
         "synchronous workers, not --async");
  if (o->arch == SS_ARCH_PS && ss_optset_has(given, "allreduce"))
    FAIL("--allreduce has no effect with --arch ps: parameter servers do not allreduce");
  if (o->arch == SS_ARCH_PS && o->placement == SS_PS_COLOCATED && o->server_hosts > 0)
    FAIL("--server-hosts is for dedicated servers; colocated ones run on the worker instances");
  if (o->arch == SS_ARCH_PS && o->placement == SS_PS_DEDICATED && o->server_hosts > 0 && o->servers > o->server_hosts)
    FAIL("--servers %d on %d dedicated server hosts: a dedicated server has a host of its own (add hosts, or "
         "--ps-placement colocated)",
         o->servers, o->server_hosts);
  if (o->init_io == SS_INIT_NONE && ss_optset_has(given, "init-shard-mib"))
    FAIL("--init-shard-mib goes with --init-io sequential or parallel");
  return 0;
}

void ss_options_settle(ss_options* o, const ss_optset* given)
{
  if (ss_optset_has(given, "recompute") && !ss_options_model_parallel(o))
    o->checkpoint_activations = o->recompute == SS_RECOMPUTE_FULL ? SS_CKPT_ON : SS_CKPT_OFF;
}

int ss_options_model_parallel(const ss_options* o)
{
  return o->tp > 1 || o->pp > 1 || o->cp > 1 || o->ep > 1;
}

/* Tensor and pipeline parallelism: the options that tune it need it, and it runs alone (no
 * parameter servers, no ZeRO or FSDP sharding, which --distributed-optimizer stands for). */
static int check_parallel(const ss_options* o, const ss_optset* given, unsigned cmd, char* msg, size_t size)
{
  int mp = ss_options_model_parallel(o);
  if (ss_optset_has(given, "recompute") && ss_optset_has(given, "checkpoint-activations"))
    FAIL("give --recompute only: --checkpoint-activations is its older name (on: full, off: none)");
  if (!mp && cmd != SS_CMD_PLAN && ss_optset_has(given, "global-batch"))
    FAIL("--global-batch in a run sets a pipeline's micro-batches (with --tp or --pp); with data parallelism alone "
         "give --batch, and --grad-accum for several per step");
  if (o->accum_no_sync && o->grad_accum < 2 && cmd != SS_CMD_PLAN)
    FAIL("--accum-no-sync tunes gradient accumulation: it needs --grad-accum 2 or more");
  if (!mp && o->grad_accum > 1 && o->arch == SS_ARCH_PS)
    FAIL("--grad-accum with --arch ps is not simulated: a worker pushes after every batch");
  if (!mp && o->grad_accum > 1 && o->stash)
    FAIL("--grad-accum with --stash is not simulated: Stash's runs are one batch a step");
  if (!mp && o->grad_accum > SS_ACCUM_MAX)
    FAIL("--grad-accum %d: a data-parallel step of more than %d micro-batches is not simulated (each is a pass of "
         "its own)",
         o->grad_accum, SS_ACCUM_MAX);
  int tmax = o->tp, tps[SS_OPTION_LIST_MAX];
  int ntps = cmd == SS_CMD_PLAN && o->plan_tps ? ss_option_list_sizes(o->plan_tps, tps, SS_OPTION_LIST_MAX) : 0;
  for (int i = 0; i < ntps; i++)
    tmax = tps[i] > tmax ? tps[i] : tmax;
  if (o->sequence_parallel && tmax < 2)
    FAIL("--sequence-parallel splits the tensor-parallel collectives: it needs --tp above 1");
  if (o->virtual_stages > 1 && cmd == SS_CMD_PLAN && o->plan_schedules) {
    /* A plan's interleaved configurations take --virtual-stages: one of --schedules must be it. */
    ss_schedule tried[SS_OPTION_LIST_MAX];
    int n = ss_option_list_schedules(o->plan_schedules, tried, SS_OPTION_LIST_MAX), chunks = 0;
    for (int i = 0; i < n; i++)
      chunks |= ss_schedule_of(tried[i])->chunks;
    if (!chunks)
      FAIL("--virtual-stages %d needs interleaved among --schedules, got '%s' (each runs one model chunk per stage)",
           o->virtual_stages, o->plan_schedules);
  } else if (o->virtual_stages > 1 && !ss_schedule_of(o->schedule)->chunks)
    FAIL("--virtual-stages %d needs --schedule%s interleaved (the %s schedule runs one model chunk per stage)",
         o->virtual_stages, cmd == SS_CMD_PLAN ? "s" : "", ss_schedule_of(o->schedule)->name);
  if (ss_optset_has(given, "grad-accum") && ss_optset_has(given, "global-batch"))
    FAIL("give --grad-accum or --global-batch, not both: the global batch sets the micro-batches per step");
  if (ss_optset_has(given, "tokens") && ss_optset_has(given, "samples"))
    FAIL("give --tokens or --samples, not both (a sample of a language model is a sequence of tokens)");
  if (!mp)
    return 0;
  if (o->arch == SS_ARCH_PS)
    FAIL("--tp and --pp cannot be combined with --arch ps: the data-parallel replicas allreduce their gradients");
  if (ss_shard_sharded(o->shard))
    FAIL("--tp and --pp cannot be combined with --shard %s: shard the optimizer state over the data-parallel "
         "replicas with --distributed-optimizer (Megatron's ZeRO-1)",
         ss_shard_name(o->shard));
  if (o->stash)
    FAIL("--stash's runs (one GPU, one instance, the cluster) are data-parallel: run --tp and --pp without --stash "
         "(the report's breakdown has the bubble and the waits of each parallelism)");
  if (ss_optset_has(given, "batch"))
    FAIL("--batch is the per-GPU batch of data parallelism: with --tp or --pp give --micro-batch and "
         "--global-batch");
  return 0;
}

/* The framework's and the host side's options: each goes with the mode it tunes. */
static int check_host(const ss_options* o, const ss_optset* given, char* msg, size_t size)
{
  if (o->ddp != SS_DDP_APEX && ss_optset_has(given, "message-size"))
    FAIL("--message-size goes with --ddp apex");
  if (o->ddp != SS_DDP_HOROVOD && (ss_optset_has(given, "fusion-mib") || ss_optset_has(given, "cycle-ms")))
    FAIL("--%s goes with --ddp horovod", ss_optset_has(given, "fusion-mib") ? "fusion-mib" : "cycle-ms");
  if (o->arch == SS_ARCH_PS && ss_optset_has(given, "ddp"))
    FAIL("--ddp has no effect with --arch ps: parameter servers take the gradients as pushes");
  if (!o->socket_cpu && ss_optset_has(given, "socket-cpu-s-per-gb"))
    FAIL("--socket-cpu-s-per-gb has no effect with --no-socket-cpu");
  if (!o->flow_cap && ss_optset_has(given, "placement-group"))
    FAIL("--placement-group has no effect with --no-flow-cap (its only effect is the cap on each TCP flow)");
  if (!o->framework && (ss_optset_has(given, "collective-host-us") || ss_optset_has(given, "tensor-host-us")))
    FAIL("--%s has no effect with --no-framework",
         ss_optset_has(given, "collective-host-us") ? "collective-host-us" : "tensor-host-us");
  if (ss_optset_has(given, "comm-interference") && (!o->interference || o->arch == SS_ARCH_PS))
    FAIL("--comm-interference has no effect %s", !o->interference ? "with --no-interference"
                                                                  : "with --arch ps: parameter servers run no "
                                                                    "NCCL collective on the GPUs");
  if (!o->handoff && ss_optset_has(given, "handoff-us"))
    FAIL("--handoff-us has no effect with --no-handoff");
  if (ss_optset_has(given, "handoff-us") && (o->synthetic || o->workers == 0 || o->async_copy))
    FAIL("--handoff-us has no effect %s: no batch comes from a DataLoader worker", o->synthetic ? "with --synthetic"
                                                                                   : o->workers == 0
                                                                                       ? "with --workers 0"
                                                                                       : "with --async-copy");
  if (o->stash && o->synthetic)
    FAIL("--stash makes its own synthetic and real-data runs: drop --synthetic");
  if (o->synthetic != SS_SYNTH_HOST && !o->stash && ss_optset_has(given, "synthetic-sample-bytes"))
    FAIL("--synthetic-sample-bytes goes with --synthetic host (or --stash, whose synthetic runs copy from the host)");
  if (!o->stash && ss_optset_has(given, "stash-stack"))
    FAIL("--stash-stack goes with --stash");
  if (ss_optset_has(given, "p2p-level") && (o->ideal || !o->shm))
    FAIL("--p2p-level has no effect with %s: every GPU pair is peer-to-peer", o->ideal ? "--ideal" : "--no-shm");
  return 0;
}

/* The jitter's options go with the jitter: --ideal and --jitter 0 switch it off. */
static int check_jitter(const ss_options* o, const ss_optset* given, char* msg, size_t size)
{
  if (o->jitter == 0 && ss_optset_has(given, "seed"))
    FAIL("--seed has no effect with --jitter 0 (nothing is drawn)");
  return 0;
}

/* The failures' options: --checkpoint-every auto or minutes; none of them with --no-failures but
 * --checkpoint-every and where they go (checkpoints may be asked for without failures). */
static int check_failures(const ss_options* o, const ss_optset* given, char* msg, size_t size)
{
  double interval_s;
  if (ss_goodput_parse_interval(o->checkpoint_every, &interval_s))
    FAIL("--checkpoint-every expects auto or a number of minutes above 0, got '%s'", o->checkpoint_every);
  if (ss_optset_has(given, "spot-reclaim-pct") && o->purchase != SS_PURCHASE_SPOT)
    FAIL("--spot-reclaim-pct has no effect without --purchase spot (only spot instances are reclaimed)");
  const char* counted = ss_optset_has(given, "mtbf-hours")         ? "mtbf-hours"
                        : ss_optset_has(given, "restart-min")      ? "restart-min"
                        : ss_optset_has(given, "spot-reclaim-pct") ? "spot-reclaim-pct"
                                                                   : NULL;
  if (!o->failures && counted)
    FAIL("--%s has no effect with --no-failures (no failure is counted)", counted);
  /* Without failures a checkpoint is written only every --checkpoint-every asked for. */
  const char* target = ss_optset_has(given, "checkpoint-to")     ? "checkpoint-to"
                       : ss_optset_has(given, "checkpoint-gbps") ? "checkpoint-gbps"
                                                                 : NULL;
  if (!o->failures && target && interval_s == 0)
    FAIL("--%s has no effect with --no-failures and --checkpoint-every auto (no checkpoint is written): give "
         "--checkpoint-every MIN",
         target);
  return 0;
}

/* Why a sharding mode that does not take an option of kind sopt has no use for it (after "--shard M"). */
static void shard_why(unsigned sopt, ss_shard m, char* buf, size_t size)
{
  const char* name = ss_shard_name(m);
  if (sopt == SS_SOPT_ZERO3)
    snprintf(buf, size, "DeepSpeed's stage 3 setting");
  else if (sopt == SS_SOPT_OVERLAP_COMM)
    snprintf(buf, size, "DeepSpeed's setting; stage 1 forces it off");
  else if (sopt == SS_SOPT_PARAM_PREFETCH)
    snprintf(buf, size, "%s gathers no parameters before their use", name);
  else
    snprintf(buf, size, "%s%s", name,
             ss_shard_mode_of(m)->units == SS_UNITS_LAYERS ? " gathers each layer's parameters" : " has no units");
}

/* The first given option that sharding mode m does not take (a mode's own option elsewhere), or NULL;
 * framework: only the options of --ddp's framework, else only the modes' own ones. */
static const ss_optdef* untaken(const ss_optset* given, const ss_shard* modes, int n, int framework)
{
  for (const ss_optdef* d = ss_option_table; d->name; d++) {
    if (!d->shard_opt || (d->shard_opt == SS_SOPT_FRAMEWORK) != framework || !ss_optset_has(given, d->name))
      continue;
    int taken = 0;
    for (int i = 0; i < n; i++)
      taken |= ss_option_shard_takes(d, modes[i]);
    if (!taken)
      return d;
  }
  return NULL;
}

static int list_parse_why(const char* text, const char* const* names, long lo, long hi, int* out, int max, char* why,
                          size_t size);

/* plan --shards: the list parses; parameter servers shard nothing; each mode's own option goes
 * with a mode of the list that takes it (the planner gives it to those modes only). */
static int check_shards(const ss_options* o, const ss_optset* given, char* msg, size_t size)
{
  ss_shard modes[SS_OPTION_LIST_MAX];
  int idx[SS_OPTION_LIST_MAX];
  char why[128];
  int n = list_parse_why(o->plan_shards, ss_shard_names, 0, 0, idx, SS_OPTION_LIST_MAX, why, sizeof(why));
  if (n < 0) {
    char all[256];
    ss_option_expects(ss_option_by_name("shard"), all, sizeof(all));
    FAIL("--shards expects %s separated by commas, each once, got '%s': %s", all, o->plan_shards, why);
  }
  for (int i = 0; i < n; i++)
    modes[i] = (ss_shard)idx[i];
  int sharded = 0;
  for (int i = 0; i < n; i++)
    sharded |= ss_shard_sharded(modes[i]);
  if (sharded && o->arch == SS_ARCH_PS)
    FAIL("--shards cannot be combined with --arch ps: sharded states are exchanged by collectives among the GPUs");
  /* Every mode sharded and every algorithm a tree: the planner skips each pair, nothing is left. */
  int all_sharded = n > 0, only_tree = o->plan_algorithms != NULL;
  for (int i = 0; i < n; i++)
    all_sharded &= ss_shard_sharded(modes[i]);
  ss_allreduce algs[SS_OPTION_LIST_MAX];
  int nalgs = o->plan_algorithms ? ss_option_list_algorithms(o->plan_algorithms, algs, SS_OPTION_LIST_MAX) : 0;
  for (int i = 0; i < nalgs; i++)
    only_tree &= algs[i] == SS_ALLREDUCE_TREE;
  if (all_sharded && only_tree && nalgs > 0)
    FAIL("--algorithms %s with --shards %s leaves nothing to simulate: the sharded modes' collectives run on rings "
         "only in NCCL (add ring or hierarchical, or none to --shards)",
         o->plan_algorithms, o->plan_shards);
  const ss_optdef* d = untaken(given, modes, n, 0);
  if (d) {
    char with[256];
    int takers = 0;
    for (int m = 0; m < SS_SHARD_COUNT; m++)
      takers += ss_option_shard_takes(d, (ss_shard)m);
    ss_shard_takers_text(d->shard_opt, with, sizeof(with));
    FAIL("--%s goes with %s, and --shards %s", d->name, with,
         takers == 1   ? "does not have it"
         : takers == 2 ? "has neither"
                       : "has none of them");
  }
  return 0;
}

/* Sharding is DeepSpeed's engine or FSDP over NCCL: no other framework, no parameter servers; each
 * mode takes its own options (shard.h), the unsharded mode the framework's. */
static int check_shard(const ss_options* o, const ss_optset* given, char* msg, size_t size)
{
  if (o->plan_shards)
    return check_shards(o, given, msg, size);
  const ss_optdef* d = untaken(given, &o->shard, 1, 0);
  char with[256], why[256];
  if (d)
    ss_shard_takers_text(d->shard_opt, with, sizeof(with));
  if (d && !ss_shard_sharded(o->shard))
    FAIL("--%s goes with --shard %s", d->name, with);
  if (!ss_shard_sharded(o->shard))
    return 0;
  if (o->arch == SS_ARCH_PS)
    FAIL("--shard %s cannot be combined with --arch ps: sharded states are exchanged by collectives among the GPUs",
         ss_shard_name(o->shard));
  ss_allreduce algs[SS_OPTION_LIST_MAX];
  int nalgs = o->plan_algorithms ? ss_option_list_algorithms(o->plan_algorithms, algs, SS_OPTION_LIST_MAX) : 0;
  int tree = o->allreduce == SS_ALLREDUCE_TREE;
  for (int i = 0; i < nalgs; i++)
    tree = tree || algs[i] == SS_ALLREDUCE_TREE;
  const ss_shard_mode* mode = ss_shard_mode_of(o->shard);
  if (tree)
    FAIL("%s tree cannot be combined with --shard %s: its all-gathers%s run on rings only in NCCL (ring, "
         "hierarchical or auto)",
         o->allreduce == SS_ALLREDUCE_TREE ? "--allreduce" : "--algorithms", ss_shard_name(o->shard),
         mode->bucket_op == SS_OP_REDUCE_SCATTER ? " and reduce-scatters" : "");
  const ss_optdef* f = untaken(given, &o->shard, 1, 1);
  if (f)
    FAIL("--%s has no effect with --shard %s (%s decides how and when the gradients are reduced)", f->name,
         ss_shard_name(o->shard), mode->engine);
  if (d) {
    shard_why(d->shard_opt, o->shard, why, sizeof(why));
    FAIL("--%s goes with --shard %s (%s)", d->name, with, why);
  }
  return 0;
}

/* NCCL runs reduce-scatter and all-gather on rings only: no tree; all-to-all on no ring. */
static int check_collective(const ss_options* o, unsigned cmd, char* msg, size_t size)
{
  if (cmd == SS_CMD_BENCH && o->bench_op == SS_OP_ALL_TO_ALL && o->allreduce != SS_ALLREDUCE_AUTO)
    FAIL("--allreduce %s is not for 'stash-sim bench all-to-all': its sends go to every peer at once, on no ring or "
         "tree",
         ss_allreduce_name(o->allreduce));
  if (cmd == SS_CMD_BENCH && o->bench_op != SS_OP_ALLREDUCE && o->allreduce == SS_ALLREDUCE_TREE)
    FAIL("--allreduce tree is not for 'stash-sim bench %s': NCCL runs it on rings only (ring, hierarchical or auto)",
         ss_coll_op_name(o->bench_op));
  /* bench's collectives move float32 elements, as nccl-tests' default: a size is at least one. */
  if (cmd == SS_CMD_BENCH && o->min_bytes < 4)
    FAIL("--min-bytes %g is less than one element (4 bytes: float32, as nccl-tests' default)", o->min_bytes);
  return 0;
}

/* Options without effect: the registry's rule (each row's needs), then the values that switch another
 * option off. */
static int check_effect(const ss_options* o, const ss_optset* given, unsigned cmd, char* msg, size_t size)
{
  if (ss_options_effect(given, ss_options_had(o, cmd), NULL, msg, size))
    return -1;
  if ((o->ideal || !o->call_cost) && o->protocol != SS_PROTO_AUTO)
    FAIL("--protocol has no effect with %s (collectives pay no per-call cost and use no protocol)",
         o->ideal ? "--ideal" : "--no-call-cost");
  return 0;
}

/* The items of the comma-separated list text into out[0..max): each one of names (its index), or with
 * names NULL a whole number from lo to hi, each at most once. Returns how many, or -1 for an empty,
 * bad or repeated item or more than max, and why in why[size] (when why is not NULL). */
static int list_parse_why(const char* text, const char* const* names, long lo, long hi, int* out, int max, char* why,
                          size_t size)
{
  int n = 0;
  for (const char* s = text;;) {
    size_t len = strcspn(s, ",");
    long v = -1;
    for (int i = 0; names && names[i] && v < 0; i++)
      if (strlen(names[i]) == len && strncmp(names[i], s, len) == 0)
        v = i;
    if (!names && len > 0 && len < 12) {
      char word[12], *end = NULL;
      snprintf(word, sizeof(word), "%.*s", (int)len, s);
      long x = strtol(word, &end, 10);
      v = !*end && x >= lo && x <= hi ? x : -1;
    }
    int again = 0;
    for (int i = 0; i < n && v >= 0; i++)
      again |= out[i] == v;
    if (v < 0 || again || n == max) {
      int shown = (int)(len < 64 ? len : 64);
      if (why && len == 0)
        snprintf(why, size, "an empty item");
      else if (why && v < 0)
        snprintf(why, size, "'%.*s' is not one", shown, s);
      else if (why && again)
        snprintf(why, size, "'%.*s' given twice", shown, s);
      else if (why)
        snprintf(why, size, "more than %d items", max);
      return -1;
    }
    out[n++] = (int)v;
    if (!s[len])
      return n;
    s += len + 1;
  }
}

static int list_parse(const char* text, const char* const* names, long lo, long hi, int* out, int max)
{
  return list_parse_why(text, names, lo, hi, out, max, NULL, 0);
}

int ss_option_list_algorithms(const char* text, ss_allreduce* out, int max)
{
  int idx[SS_OPTION_LIST_MAX];
  int n = list_parse(text, ss_allreduce_names, 0, 0, idx, max < SS_OPTION_LIST_MAX ? max : SS_OPTION_LIST_MAX);
  for (int i = 0; i < n; i++)
    out[i] = (ss_allreduce)idx[i];
  return n;
}

int ss_option_list_batches(const char* text, int* out, int max)
{
  return list_parse(text, NULL, 1, SS_OPTION_MAX_BATCH, out, max);
}

int ss_option_list_sizes(const char* text, int* out, int max)
{
  return list_parse(text, NULL, 1, SS_MAX_GPUS, out, max);
}

int ss_option_list_schedules(const char* text, ss_schedule* out, int max)
{
  int idx[SS_OPTION_LIST_MAX];
  int n = list_parse(text, ss_schedule_names, 0, 0, idx, max < SS_OPTION_LIST_MAX ? max : SS_OPTION_LIST_MAX);
  for (int i = 0; i < n; i++)
    out[i] = (ss_schedule)idx[i];
  return n;
}

const char* const ss_option_switch_names[] = {"off", "on", NULL};

int ss_option_list_named(const char* text, const char* const* names, int* out, int max)
{
  return list_parse(text, names, 0, 0, out, max < SS_OPTION_LIST_MAX ? max : SS_OPTION_LIST_MAX);
}

int ss_option_list_shards(const char* text, ss_shard* out, int max)
{
  int idx[SS_OPTION_LIST_MAX];
  int n = list_parse(text, ss_shard_names, 0, 0, idx, max < SS_OPTION_LIST_MAX ? max : SS_OPTION_LIST_MAX);
  for (int i = 0; i < n; i++)
    out[i] = (ss_shard)idx[i];
  return n;
}

/* The planner's options among themselves. */
static int check_plan(const ss_options* o, const ss_optset* given, unsigned cmd, char* msg, size_t size)
{
  if (cmd != SS_CMD_PLAN)
    return 0;
  int algs[SS_OPTION_LIST_MAX], batches[SS_OPTION_LIST_MAX];
  char why[128];
  if (o->plan_algorithms &&
      list_parse_why(o->plan_algorithms, ss_allreduce_names, 0, 0, algs, SS_OPTION_LIST_MAX, why, sizeof(why)) < 0)
    FAIL("--algorithms expects ring, tree, hierarchical or auto separated by commas, each once, got '%s': %s",
         o->plan_algorithms, why);
  if (o->plan_batches &&
      list_parse_why(o->plan_batches, NULL, 1, SS_OPTION_MAX_BATCH, batches, SS_OPTION_LIST_MAX, why, sizeof(why)) < 0)
    FAIL("--batches expects whole numbers from 1 to 1e7 separated by commas, each once and at most %d, got '%s': %s",
         SS_OPTION_LIST_MAX, o->plan_batches, why);
  if (o->plan_shards && ss_optset_has(given, "shard"))
    FAIL("--shards and --shard both say how to shard: give one");
  if (o->plan_platforms && (!o->plan_platforms[0] || strstr(o->plan_platforms, ",,") || o->plan_platforms[0] == ',' ||
                            o->plan_platforms[strlen(o->plan_platforms) - 1] == ','))
    FAIL("--platforms expects instance types (short names or paths) separated by commas, or a folder, got '%s'",
         o->plan_platforms);
  const char* dot = o->plan_plot ? strrchr(o->plan_plot, '.') : NULL;
  if (o->plan_plot && (!dot || (strcasecmp(dot, ".png") && strcasecmp(dot, ".svg"))))
    FAIL("--plot draws a .png or a .svg file (gnuplot's pngcairo or svg terminal), got '%s'", o->plan_plot);
  if (ss_optset_has(given, "epochs") && ss_optset_has(given, "samples"))
    FAIL("--epochs and --samples both say how much to train: give one");
  if (ss_optset_has(given, "global-batch") && ss_optset_has(given, "batches"))
    FAIL("--global-batch sets each configuration's per-GPU batch: drop --batches");
  static const struct {
    const char* name;
    const char* const* names;
    const char* what;
    long lo; /* a number's bounds (lists of numbers) */
  } lists[] = {{"tps", NULL, "whole numbers from 1", 1},
               {"pps", NULL, "whole numbers from 1", 1},
               {"cps", NULL, "whole numbers from 1", 1},
               {"eps", NULL, "whole numbers from 1", 1},
               {"micro-batches", NULL, "whole numbers from 1", 1},
               {"schedules", ss_schedule_names, "gpipe, 1f1b or interleaved", 0},
               {"vpps", NULL, "whole numbers from 2", 2},
               {"recomputes", ss_recompute_names, "none, selective or full", 0},
               {"sequence-parallels", ss_option_switch_names, "off or on", 0},
               {"distributed-optimizers", ss_option_switch_names, "off or on", 0},
               {"precisions", ss_precision_names, "workload, fp32, tf32, amp, bf16 or fp8", 0}};
  const char* texts[] = {o->plan_tps,   o->plan_pps,       o->plan_cps,       o->plan_eps,
                         o->plan_micro, o->plan_schedules, o->plan_vpps,      o->plan_recomputes,
                         o->plan_sps,   o->plan_dos,       o->plan_precisions};
  for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++) {
    int v[SS_OPTION_LIST_MAX];
    if (texts[k] &&
        list_parse_why(texts[k], lists[k].names, lists[k].lo, SS_MAX_GPUS, v, SS_OPTION_LIST_MAX, why, sizeof(why)) < 0)
      FAIL("--%s expects %s separated by commas, each once and at most %d, got '%s': %s", lists[k].name, lists[k].what,
           SS_OPTION_LIST_MAX, texts[k], why);
  }
  int mp = ss_options_model_parallel(o) || o->plan_tps || o->plan_pps || o->plan_cps || o->plan_eps;
  if (!mp && (o->plan_micro || o->plan_schedules))
    FAIL("--%s tries tensor- or pipeline-parallel configurations: give --tps or --pps",
         o->plan_micro ? "micro-batches" : "schedules");
  const char* layout_only = o->plan_vpps         ? "vpps"
                            : o->plan_recomputes ? "recomputes"
                            : o->plan_sps        ? "sequence-parallels"
                            : o->plan_dos        ? "distributed-optimizers"
                                                 : NULL;
  if (!mp && layout_only)
    FAIL("--%s tries tensor- or pipeline-parallel configurations: give --tps or --pps", layout_only);
  /* Chunks go with the interleaved schedule, sequence parallelism with tensor parallelism. */
  ss_schedule scheds[SS_OPTION_LIST_MAX];
  int nsched = o->plan_schedules ? ss_option_list_schedules(o->plan_schedules, scheds, SS_OPTION_LIST_MAX) : 1;
  if (!o->plan_schedules)
    scheds[0] = o->schedule;
  int chunked = 0;
  for (int i = 0; i < nsched; i++)
    chunked |= ss_schedule_of(scheds[i])->chunks;
  if (o->plan_vpps && !chunked)
    FAIL("--vpps has no effect without the interleaved schedule: add interleaved to --schedules");
  int tps[SS_OPTION_LIST_MAX];
  int ntp = o->plan_tps ? ss_option_list_sizes(o->plan_tps, tps, SS_OPTION_LIST_MAX) : 1, tensor = 0;
  if (!o->plan_tps)
    tps[0] = o->tp;
  for (int i = 0; i < ntp; i++)
    tensor |= tps[i] > 1;
  if (o->plan_sps && !tensor)
    FAIL("--sequence-parallels has no effect without tensor parallelism: give --tps with a size above 1");
  /* A run's option and the plan's list of it: one says what to try. */
  static const char* const pairs[][2] = {{"virtual-stages", "vpps"},
                                         {"recompute", "recomputes"},
                                         {"sequence-parallel", "sequence-parallels"},
                                         {"distributed-optimizer", "distributed-optimizers"},
                                         {"precision", "precisions"}};
  for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++)
    if (ss_optset_has(given, pairs[k][0]) && ss_optset_has(given, pairs[k][1]))
      FAIL("--%s and --%s both say what to try: give one (--%s's list may hold one value)", pairs[k][0], pairs[k][1],
           pairs[k][1]);
  if (mp && (o->plan_shards || o->plan_batches))
    FAIL("--%s goes with data parallelism alone: a plan of --tps and --pps sets the global batch (--global-batch) and "
         "the micro-batches (--micro-batches)",
         o->plan_shards ? "shards" : "batches");
  return 0;
}

/* --stash makes runs of its own; outputs go to distinct places. */
static int check_outputs(const ss_options* o, char* msg, size_t size)
{
  if (o->stash && o->cache >= 0)
    FAIL("--stash makes its own cold-cache and cached runs: drop --cache");
  if (o->stash && o->trace)
    FAIL("--trace records one run; --stash makes several");
  if (o->stash_single && !o->stash)
    FAIL("--stash-single goes with --stash");
  int out_stdout = !o->output || strcmp(o->output, "-") == 0;
  if (o->trace && strcmp(o->trace, "-") == 0 && out_stdout)
    FAIL("--trace - writes the trace to standard output, where the report goes: give --output FILE");
  if (o->trace && o->output && strcmp(o->trace, "-") != 0 && strcmp(o->trace, o->output) == 0)
    FAIL("--output and --trace name the same file '%s'", o->trace);
  if (o->min_bytes > o->max_bytes)
    FAIL("--min-bytes is larger than --max-bytes");
  return 0;
}

int ss_options_check(const ss_options* o, const ss_optset* given, unsigned cmd, char* msg, size_t size)
{
  if (cmd == SS_CMD_LIST)
    return 0;
  return check_ps(o, given, msg, size) || check_outputs(o, msg, size) || check_plan(o, given, cmd, msg, size) ||
                 check_effect(o, given, cmd, msg, size) || check_host(o, given, msg, size) ||
                 check_jitter(o, given, msg, size) || check_failures(o, given, msg, size) ||
                 check_collective(o, cmd, msg, size) || check_shard(o, given, msg, size) ||
                 check_parallel(o, given, cmd, msg, size)
             ? -1
             : 0;
}
#undef FAIL

/* Help: text wrapped at this width, option descriptions starting at this column. */
#define HELP_WIDTH 100
#define HELP_COLUMN 25

/* Write text from column col (the cursor is there) wrapped to HELP_WIDTH, continuation lines
 * indented to indent. */
static void wrap(FILE* f, const char* text, int col, int indent)
{
  const char* s = text;
  while (*s) {
    size_t word = strcspn(s, " ");
    if (col > indent && col + 1 + (int)word > HELP_WIDTH) {
      fprintf(f, "\n%*s", indent, "");
      col = indent;
    } else if (col > indent) {
      fputc(' ', f);
      col++;
    }
    fprintf(f, "%.*s", (int)word, s);
    col += (int)word;
    s += word;
    while (*s == ' ')
      s++;
  }
  fputc('\n', f);
}

/* The option as help names it: "-g, --gpus K", "--synthetic", "PLATFORM". */
static void option_label(const ss_optdef* d, char* buf, size_t size)
{
  if (d->positional)
    snprintf(buf, size, "%s", d->metavar);
  else if (d->short_name)
    snprintf(buf, size, "-%c, --%s%s%s", d->short_name, d->name, d->metavar ? " " : "", d->metavar ? d->metavar : "");
  else
    snprintf(buf, size, "    --%s%s%s", d->name, d->metavar ? " " : "", d->metavar ? d->metavar : "");
}

static void help_row(FILE* f, const ss_optdef* d)
{
  char label[96], text[1024], expects[256];
  option_label(d, label, sizeof(label));
  size_t n = (size_t)snprintf(text, sizeof(text), "%s", d->help);
  ss_assert(n + sizeof(expects) + 64 < sizeof(text)); /* the help, its values and its default fit */
  if (d->kind == SS_KIND_ENUM) {
    ss_option_expects(d, expects, sizeof(expects));
    n += (size_t)snprintf(text + n, sizeof(text) - n, ": %s", expects);
  }
  if (d->dflt_text && d->kind != SS_KIND_SWITCH)
    snprintf(text + n, sizeof(text) - n, " (default: %s)", d->dflt_text);
  if (d->alias)
    snprintf(text + strlen(text), sizeof(text) - strlen(text), "; also --%s", d->alias);
  int col = fprintf(f, "  %s", label);
  if (col >= HELP_COLUMN - 1) {
    fprintf(f, "\n%*s", HELP_COLUMN, "");
    col = HELP_COLUMN;
  } else {
    fprintf(f, "%*s", HELP_COLUMN - col, "");
    col = HELP_COLUMN;
  }
  wrap(f, text, col, HELP_COLUMN);
}

static const ss_command* command_of(unsigned cmd)
{
  const ss_command* c = ss_commands;
  while (c->name && c->bit != cmd)
    c++;
  ss_assert(c->name);
  return c;
}

void ss_option_help(FILE* f, unsigned cmd)
{
  const ss_command* c = command_of(cmd);
  fprintf(f, "usage: %s\n\n", c->usage);
  /* As large as the registry's JSON text of it (ss_option_list): list's was cut short at 512. */
  char summary[1024];
  int len = snprintf(summary, sizeof(summary), "%c%s.", c->summary[0] - 'a' + 'A', c->summary + 1);
  ss_assert(len > 0 && (size_t)len < sizeof(summary));
  wrap(f, summary, 0, 0);
  for (const ss_optgroup* g = ss_option_groups; g->name; g++) {
    int first = 1;
    for (const ss_optdef* d = ss_option_table; d->name; d++)
      if ((d->commands & cmd) && strcmp(d->group, g->name) == 0) {
        if (first)
          fprintf(f, "\n%s:\n", g->title);
        first = 0;
        help_row(f, d);
      }
  }
  if (cmd == SS_CMD_WHATIF) {
    fprintf(f, "\nChange keys (--change KEY=VALUE, on/off for switches):");
    /* Every key, however many: the line is as long as they are. */
    size_t size = 1, n = 0;
    for (const ss_optdef* d = ss_option_table; d->name; d++)
      size += d->whatif_key ? strlen(d->whatif_key) + 2 : 0;
    char* line = malloc(size);
    if (!line)
      ss_nomem_exit("the help's list of keys");
    line[0] = '\0';
    for (const ss_optdef* d = ss_option_table; d->name; d++)
      if (d->whatif_key)
        n += (size_t)snprintf(line + n, size - n, "%s%s", n ? ", " : "", d->whatif_key);
    fputs("\n  ", f);
    wrap(f, line, 2, 2);
    free(line);
  }
  fprintf(f, "\nGeneral:\n");
  help_row(f, &(ss_optdef){.name = "help", .short_name = 'h', .help = "print this help and exit"});
  help_row(f, &(ss_optdef){.name = "version", .help = "print the version and exit"});
  help_row(f, &(ss_optdef){.name = "list-options",
                           .help = "print every option (--format json: the registry, "
                                   "as scripts read it) and exit"});
  if (cmd != SS_CMD_LIST)
    help_row(f, &(ss_optdef){.name = "cfg=NAME:VALUE, --log=...",
                             .help = "passed to SimGrid after stash-sim's "
                                     "own defaults (checked first)"});
  fprintf(f, "\nCommands:\n");
  for (const ss_command* k = ss_commands; k->name; k++)
    fprintf(f, "  %s\n", k->usage);
  fprintf(f, "\nExit status: 0 on success, 1 on bad input (the error line names the file), 2 on a usage\n"
             "error, 3 when resources fail (out of memory, a failed write), 4 on an internal error.\n");
}

/* One registry row as JSON. */
static void list_row_json(FILE* f, const ss_optdef* d)
{
  static const char* const kinds[] = {"count", "real", "size", "enum", "switch", "path"};
  char buf[1024];
  json_text(d->name, buf, sizeof(buf));
  fprintf(f, "    {\"name\": %s, \"short\": \"%s%s\", \"kind\": \"%s\", ", buf,
          d->short_name ? (char[]){d->short_name, 0} : "", "", kinds[d->kind]);
  json_text(d->metavar ? d->metavar : "", buf, sizeof(buf));
  fprintf(f, "\"metavar\": %s, \"group\": \"%s\", \"positional\": %s,\n     \"commands\": [", buf, d->group,
          d->positional ? "true" : "false");
  int n = 0;
  for (const ss_command* c = ss_commands; c->name; c++)
    if (d->commands & c->bit)
      fprintf(f, "%s\"%s\"", n++ ? ", " : "", c->name);
  int ranged = d->kind == SS_KIND_COUNT || d->kind == SS_KIND_REAL || d->kind == SS_KIND_SIZE;
  if (ranged)
    fprintf(f, "], \"min\": %.17g, \"max\": %.17g, \"min_open\": %s", d->min, d->max, d->min_open ? "true" : "false");
  else
    fprintf(f, "], \"min\": null, \"max\": null, \"min_open\": false");
  json_text(d->dflt_text ? d->dflt_text : "", buf, sizeof(buf));
  fprintf(f, ", \"default\": %s, \"values\": [", buf);
  for (int i = 0; d->kind == SS_KIND_ENUM && d->values[i]; i++)
    fprintf(f, "%s\"%s\"", i ? ", " : "", d->values[i]);
  fprintf(f, "],\n     \"writes_file\": %s, \"reads_file\": %s, \"whatif_key\": ",
          d->file == SS_FILE_WRITES ? "true" : "false",
          d->file == SS_FILE_READS || d->file == SS_FILE_READS_LIST ? "true" : "false");
  fprintf(f, d->whatif_key ? "\"%s\"" : "null", d->whatif_key ? d->whatif_key : "");
  fprintf(f, ", \"report_key\": ");
  fprintf(f, d->report_key ? "\"%s\"" : "null", d->report_key ? d->report_key : "");
  fprintf(f, ", \"aliases\": [");
  if (d->alias)
    fprintf(f, "\"%s\"", d->alias);
  json_text(d->help, buf, sizeof(buf));
  fprintf(f, "],\n     \"help\": %s}", buf);
}

void ss_option_list(FILE* f, ss_format fmt)
{
  if (fmt != SS_FORMAT_JSON) {
    for (const ss_optdef* d = ss_option_table; d->name; d++) {
      char label[96];
      option_label(d, label, sizeof(label));
      fprintf(f, "%-34s %s\n", label, d->help);
    }
    return;
  }
  char buf[1024];
  fprintf(f, "{\"schema_version\": 1, \"program\": \"stash-sim\", \"version\": \"%s\",\n \"commands\": [", SS_VERSION);
  for (const ss_command* c = ss_commands; c->name; c++) {
    fprintf(f, "%s\n    {\"name\": \"%s\", ", c == ss_commands ? "" : ",", c->name);
    json_text(c->usage, buf, sizeof(buf));
    fprintf(f, "\"usage\": %s, ", buf);
    json_text(c->summary, buf, sizeof(buf));
    fprintf(f, "\"summary\": %s}", buf);
  }
  fprintf(f, "],\n \"groups\": [");
  for (const ss_optgroup* g = ss_option_groups; g->name; g++)
    fprintf(f, "%s\n    {\"name\": \"%s\", \"title\": \"%s\"}", g == ss_option_groups ? "" : ",", g->name, g->title);
  fprintf(f, "],\n \"options\": [");
  for (const ss_optdef* d = ss_option_table; d->name; d++) {
    fprintf(f, "%s\n", d == ss_option_table ? "" : ",");
    list_row_json(f, d);
  }
  fprintf(f, "]}\n");
}
