/* job: what to simulate: a validated platform, workload and options, with everything derived from them. */
#ifndef SS_JOB_H
#define SS_JOB_H

#include "bucket.h"
#include "sched.h"
#include "err.h"
#include "failures.h"
#include "memory.h"
#include "option.h"
#include "par.h"
#include "platform.h"
#include "tfmodel.h"
#include "topo.h"
#include "workload.h"

/* A stretch of one iteration's GPU work between two points where other actors look at it: the
 * forward pass, the backward layers up to a collective's launch, the optimizer. The host thread
 * issues it operator by operator; the GPU runs each operator once issued (docs/model.md). */
typedef enum ss_seg_kind { SS_SEG_FORWARD, SS_SEG_BACKWARD, SS_SEG_OPTIMIZER } ss_seg_kind;
typedef struct ss_segment {
  ss_seg_kind kind;
  int first_layer; /* forward: first..last; backward: first down to last; -1 when none */
  int last_layer;
  int before0; /* the collectives issued at its start (prefetches): before0 .. before0 + nbefore - 1 */
  int nbefore;
  int gate;    /* the collective it waits for before it starts (a unit's parameters), or -1 */
  int unit;    /* the wrapping unit whose layers it runs (-1: none, or no units) */
  int bucket0; /* the collectives launched at its end: bucket0 .. bucket0 + nlaunch - 1 (indices
                     * into ss_job.colls; the buckets come first) */
  int nlaunch;
  int wait_after;  /* the next segment waits for those (ZeRO-2: reduced on the default stream) */
  double flops;    /* GPU work: the layers' kernels and the launched buckets' flatten copies */
  double host_s;   /* host work: the layers' host times, the hooks, the collective calls */
  double lag_s;    /* the GPU starts it no earlier than this after the host starts issuing it */
  double tail_s;   /* GPU time of its last operator: it ends no earlier than the host's end + tail */
  double launches; /* kernel launches it takes (for the launch queue) */
} ss_segment;

typedef struct ss_job {
  const ss_platform* platform; /* borrowed */
  const ss_workload* workload; /* borrowed */
  ss_options opt;              /* as given */
  ss_options resolved;         /* as used: the values the options left to the job filled in (-1 no more) */
  int ngpus;                   /* ranks: instances x gpus_per_instance; rank r runs on GPU r % gpus_per_instance
                       * of instance r / gpus_per_instance */
  int instances;
  int gpus_per_instance;
  int gpu_arch;                      /* the GPUs' architecture for NCCL's rules (ss_job_gpu_arch) */
  ss_failures failures;              /* failures and checkpoints (failures.h) */
  double price_usd_per_h;            /* what one instance costs an hour (price.h: --price-file, the table, the file) */
  char price_source[320];            /* where that price comes from, as the report says it */
  ss_purchase purchase;              /* how the instances are bought (--purchase; never AUTO) */
  int price_other_region;            /* the price is of a region other than us-east-1 */
  double core_bandwidth_bytes_per_s; /* the switch core when oversubscribed (derive.c) */
  ss_net_transport net_transport;    /* NCCL's transport over the NIC as simulated (never AUTO; OFF with
                                   * --ideal or a file that names none) */
  ss_net_figures net;                /* its figures: the NIC links' share of line rate, host time per message */
  double tree_wire;                  /* the tree's share of the line rate between instances over the ring's
                                      * (net.h), 1 where they agree: the tree's protocol efficiency there */
  double nvls_tree_wire;             /* the same for the NVLS tree across 3 instances or more (net.h) */
  double nvls_share;                 /* NVLink SHARP's share of the NVSwitch links' rate where the tree's work
                                      * inside an instance runs on it (ss_job_nvls), else 0 */
  int net_sockets;                   /* TCP sockets (flows) per connection of NCCL's socket transport (nccl.h);
                                      * 0 when NCCL runs another transport */
  double flow_cap_bytes_per_s;       /* AWS's cap on each TCP flow between instances (net.h); 0: none */
  double conn_cap_bytes_per_s;       /* what one connection between instances may carry: its flows x the
                                      * cap (NCCL's sockets, or one for a parameter server's); 0: no cap */
  int sock_threads;                  /* threads at each end of a connection of NCCL's socket transport that
                                      * poll and do the kernel's work (sockcpu.h); 0: its CPU not modelled */
  double sock_send_flops_per_byte;   /* that work per byte on the sending and the receiving instance's CPU,
                                      * in reference-core flops (net.h's figures, --socket-cpu-s-per-gb) */
  double sock_recv_flops_per_byte;
  int batch;
  int accum; /* micro-batches of batch per optimizer step (--grad-accum, data parallelism); 1: none */
  int workers;
  double cache;
  int warmup;        /* the iterations run before measuring, resolved */
  int iterations;    /* the iterations measured, resolved */
  int cooldown;      /* iterations simulated after the measured ones, not measured */
  int niters;        /* warmup + iterations + cooldown */
  double* fwd_flops; /* per layer, on the platform's GPU */
  double* bwd_flops;
  double fwd_total_flops;  /* the whole forward pass */
  const ss_device* device; /* the workload's measured ratio for the platform's GPU, or NULL: peak FLOPS */
  int roofline;            /* the times come from the roofline model (roofline.h), from a measured entry or not */
  int conv_tf32;           /* at fp32 the convolutions ran at the GPU's TF32 rate (PyTorch's default) */
  /* The kernel model (--compute-model kernels, tfmodel.h): a transformer's layers timed from their
   * kernels; workload then points at tf_work, the workload at the run's sequence and attention. */
  int kernels;
  ss_tf_device tf_device;
  ss_attention attention; /* the attention core as run (eager outside the kernel model) */
  double attn_share[2];   /* the attention core's share of a transformer layer's forward and backward time */
  int dp_selective;       /* --recompute selective in a data-parallel run */
  ss_workload tf_work;
  ss_layer* tf_layers;
  ss_precision precision; /* the layers' precision: --precision, or the workload's */
  int ckpt;               /* activation checkpointing on: the layers with ckpt_bytes re-run their forward
                            * in backward (--checkpoint-activations, or the workload's default) */
  double opt_flops;
  double h2d_bytes; /* one batch */
  double prep_flops_per_sample;
  int nbuckets;
  ss_bucket* buckets;       /* in the order their collectives start */
  ss_allreduce* bucket_alg; /* [bucket]: the algorithm of its allreduce, AUTO resolved by the plan */
  ss_rings intra;           /* rings among the GPUs of one instance (local indices) */
  ss_rings rings;           /* rings among all ranks: each intra ring as a chain per instance, joined by
                        * one hop from the last GPU of instance i to the first of instance i+1 */
  /* Parameter servers (arch PS): the gradients of bucket b go to the servers as parts
   * ps_bucket_part0[b] .. ps_bucket_part0[b+1]-1, each part_bytes[] of it for shard part_shard[]. */
  int ps_nparts;
  int* ps_bucket_part0; /* [nbuckets + 1] */
  int* ps_part_shard;
  double* ps_part_bytes;
  double* ps_shard_bytes; /* [servers]: the parameters each shard holds */
  int ps_hosts;           /* server hosts: dedicated ones, or the worker instances they share */
  int ps_local;           /* GPUs that reduce together before pushing (--ps-aggregate instance), else 1: each
                           * pushes and pulls 1/ps_local of every part */
  double init_bytes;      /* start-up read of each worker: the model's parameters and its input shard */
  /* The host side (docs/model.md, "The host side"); every figure 0 when its mechanism is off. */
  int host; /* the training process's CPU thread is simulated (an actor of its own) */
  int nsegs;
  ss_segment* segs;   /* [nsegs]: one iteration's GPU work, in order */
  double* host_fwd_s; /* [layer]: host time issuing its forward / backward (0 with --no-launch) */
  double* host_bwd_s;
  double collective_host_s; /* the framework's host time per collective call, per gradient tensor */
  double tensor_host_s;
  double copy_s_per_byte; /* GPU copy kernels: seconds per byte moved (0: GPU memory bandwidth unknown) */
  double* bucket_post_s;  /* [bucket]: copies after its allreduce (scale, unflatten) on its stream */
  double copy_bytes;      /* bytes the training process copies to its GPU per iteration (0: none) */
  double staging_s;       /* host time staging that copy through pageable memory */
  double handoff_s;       /* host time taking a batch from a loader worker */
  int nmetric;            /* one-element allreduces per iteration after the gradients' */
  int ncolls;             /* one iteration's collectives, in issue order: those the segments issue, */
  ss_coll_spec* colls;    /* then the npost after the step, then the nmetric metric allreduces */
  int colls_cap;          /* room in colls */
  int nunits;             /* --shard zero3, fsdp-*: the wrapping units, in forward order */
  ss_unit* units;
  int nchunks; /* the layers cut at the units, with each pass's collectives */
  ss_chunk* chunks;
  ss_chunk* accum_chunks;       /* with gradient accumulation, [accum x nchunks]: each micro-batch's, their
                           * collectives its own (chunks: the first's); NULL without */
  int shard_group;              /* the GPUs each sharded state is divided among (1: none) */
  double shard_bytes_per_param; /* bytes per parameter of the sharded modes' all-gathers and reduce-scatters */
  double gathered_peak;         /* the parameters' bytes gathered at once at most (current, prefetched, kept) */
  /* --shard zero1/zero2: the all-gathers of the updated parameters after the optimizer step, in
   * chunks of SS_ZERO_BUCKET_ELEMENTS (DeepSpeed's allgather_bucket_size); the iteration waits for them. */
  int npost;
  double* post_bytes;  /* [npost] */
  double interference; /* f: while a collective runs on a GPU its compute takes 1 + f times as
                            * long (docs/model.md, "Compute slowed by communication"); 0: off */
  ss_mp mp;            /* tensor and pipeline parallelism, when mp.on */
  int memory_known;    /* the GPU's memory and the workload's activations are given */
  ss_memory memory;    /* one GPU's memory (memory.h) when memory_known */
} ss_job;

/* What the memory of one of job j's GPUs depends on (memory.h), its phases complete; borrowed from j. */
void ss_job_memory_in(const ss_job* j, ss_memory_in* in);

/* Check the options against the platform and workload and build the job from them alone; the
 * figures that need the complete job (the network's, each bucket's algorithm) are derived by
 * ss_derive_job (derive.h), which callers use. Errors name the file whose limit an option exceeds
 * (--gpus beyond the instance). Free with ss_job_free. */
int ss_job_new(const ss_platform* p, const ss_workload* w, const ss_options* o, ss_job** out, ss_err* err);
void ss_job_free(ss_job* j);

/* Host of parameter-server shard k: a dedicated host index, or the worker instance it runs on. */
int ss_job_shard_host(const ss_job* j, int k);

/* The dense peak of the job's GPU at its precision (flop/s), the denominator of MFU. */
double ss_job_peak_flops(const ss_job* j);

/* The model FLOPs of the given sequences through the job's transformer (ss_transformer_model_flops at
 * the run's sequence), the attention core counted as run: half where a causal flash kernel skips the
 * masked blocks. */
double ss_job_model_flops(const ss_job* j, double sequences);

/* How many of a step's accumulated micro-batches reduce their gradients (shard.h's
 * reduce_each_micro): all of them (ZeRO-2 and 3, FSDP without --accum-no-sync), else the last. */
int ss_job_micro_reductions(const ss_job* j);

/* The samples (sequences) one iteration takes over all GPUs: the per-GPU batch x GPUs, or with
 * tensor and pipeline parallelism micro-batch x micro-batches x replicas. */
double ss_job_samples_per_iter(const ss_job* j);

/* What the job has of the options' needs (SS_NEEDS_*, option.h), now that its instance file says how
 * its network runs, for ss_options_effect; net: those words ("NCCL runs over efa"). */
unsigned ss_job_needs_had(const ss_job* j, char* net, size_t size);

/* The peak MFU is a fraction of: the GPU's at the job's precision (ss_job_peak_flops), over
 * --compute-scale (kernels X times as long: a GPU 1/X as fast). */
double ss_job_peak_flops_scaled(const ss_job* j);

/* Whether a simulated iteration of j, and the figures derived from it (throughput, epoch, cost),
 * can be reported: an iteration shorter than SS_BOUND_TIME_LO or not finite, or an epoch or cost
 * beyond a double's range (times that underflow:
 * a workload's times of 1e-300 s, --compute-scale on tiny times) is an input error naming the
 * workload (what: "the iteration", "Stash's RUN0"). Returns 0 or SS_EINPUT with err set. */
int ss_job_check_iteration(const ss_job* j, const char* what, double iteration_s, ss_err* err);

/* How the job's GPU times were obtained: "kernels", "roofline", "measured_roofline", "measured" or "peak_flops"
 * (docs/formats.md, compute_scaling). */
const char* ss_job_compute_scaling(const ss_job* j);

/* The batch the job's GPU times were measured at: its measured entry's, or the workload's reference. */
int ss_job_reference_batch(const ss_job* j);

/* SimGrid actors of a job (2 per GPU, plus its loader workers): each has a stack and a guard page,
 * two memory mappings, and Linux allows 65530 mappings per process by default. */
#define SS_MAX_ACTORS 30000

/* Host seconds of taking one batch from a loader worker (receive from its queue, rebuild the
 * tensors from shared memory): MEASURED on one machine, PyTorch 1.13, a batch of images and labels
 * (calibration/realrun --measure-handoff: median 2126 us; calibration/host_costs.md section 6), an
 * estimate on any other CPU or PyTorch. */
#define SS_HANDOFF_S 2.1e-3

/* A batch is loaded in at most this many read-then-prepare steps (one per sample up to this size):
 * loader.c, and the estimate of a run's work. */
#define SS_LOADER_STEPS 64

/* Bytes of a metric allreduce (one fp32 element: the loss, an accuracy). */
#define SS_METRIC_BYTES 4.0

/* One reference core runs this many flops per second: CPU times are given in its seconds. */
#define SS_REF_CORE_FLOPS 1e9

/* The name of collective c of an iteration of j on the trace ("all-gather unit 3 (backward)"). */
void ss_coll_name(const ss_job* j, int c, char* buf, size_t size);

/* The collectives of one iteration (ss_job.ncolls), in the order every rank issues them: those the
 * segments issue (the gradients' buckets; the units' all-gathers and reduce-scatters), the
 * parameter all-gathers after the step (--shard zero1/zero2, ZeRO-3's persistent parameters), the
 * metric allreduces. */
int ss_job_colls_per_iter(const struct ss_job* j);

/* Those the segments issue: the trainer waits for them all before the optimizer step. */
int ss_job_seg_colls(const struct ss_job* j);

/* Identical instances (docs/model.md): in the fast fidelity, each phase of a collective runs the
 * same flows over every instance's links, so a cluster of more instances is simulated by this many,
 * with the whole cluster's collective steps and sizes. */
#define SS_SYMMETRY_INSTANCES 8

/* Whether the rings across instances are NCCL's channels through every NIC (job.c, nic_rings). */
int ss_job_nic_rings(const ss_job* j);

/* Whether the rings run as NCCL pipelines them (not --ideal or --no-ring-pipeline): coll.c, cost.c. */
int ss_job_ring_pipelined(const ss_job* j);

/* Of a tensor- and pipeline-parallel job: the GPUs of stage k's first instance that are on stage k and
 * send through the NIC of its tensor rank 0 of replica 0 (every tensor rank and replica of a stage
 * sends its part at the same moment: they run the same passes), at most max of them into out (their
 * global ranks; out NULL: only counted); how many. The stage simulation (stage.c) runs them, the
 * screen (screen.c) shares their NIC among them. */
int ss_job_stage_nic_mates(const ss_job* j, int k, int* out, int max);

/* The GPUs' architecture for NCCL's rules (ss_proto_arch), 0 unless every GPU has the same. */
int ss_job_gpu_arch(const ss_job* j);

/* Whether NCCL cannot run NVLink SHARP (NVLS, and the NVLS tree across instances) on the job, whatever
 * --no-nvls says: 0 when it can, else 1 and why (when why is not NULL). */
int ss_job_nvls_lacks(const ss_job* j, char* why, size_t size);

/* The instances a run of job simulates: SS_SYMMETRY_INSTANCES when its instances are identical
 * and more (fast fidelity, no shared servers, no trace, --no-symmetry not given), else all. */
int ss_job_sim_instances(const ss_job* j);

#endif
