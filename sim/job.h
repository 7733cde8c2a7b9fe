/* job: what to simulate: a validated platform, workload and options, with everything derived from them. */
#ifndef SS_JOB_H
#define SS_JOB_H

#include "err.h"
#include "platform.h"
#include "topo.h"
#include "workload.h"

typedef enum ss_format { SS_FORMAT_TABLE, SS_FORMAT_JSON, SS_FORMAT_CSV } ss_format;

/* Allreduce algorithms (coll.c); AUTO picks one per collective from its size and the cluster. */
typedef enum ss_allreduce {
  SS_ALLREDUCE_AUTO,
  SS_ALLREDUCE_RING,
  SS_ALLREDUCE_TREE,
  SS_ALLREDUCE_HIERARCHICAL,
  SS_ALLREDUCE_COUNT
} ss_allreduce;

/* How gradients are exchanged: allreduce among the GPUs, or push to parameter servers and pull. */
typedef enum ss_arch { SS_ARCH_ALLREDUCE, SS_ARCH_PS } ss_arch;

/* Where parameter servers run: hosts of their own, or the CPU hosts of the worker instances. */
typedef enum ss_placement { SS_PS_DEDICATED, SS_PS_COLOCATED } ss_placement;

/* Start-up reads (CNTK): none, every worker one after another, or all at once. */
typedef enum ss_init_io { SS_INIT_NONE, SS_INIT_SEQUENTIAL, SS_INIT_PARALLEL } ss_init_io;

/* How collectives are simulated: FAST, one flow per ring edge and phase (cost linear in GPUs);
 * REFERENCE, one SimGrid communication per chunk and step, as the algorithm is written. */
typedef enum ss_fidelity { SS_FIDELITY_FAST, SS_FIDELITY_REFERENCE } ss_fidelity;

/* Command-line options; a value of -1 (or NaN-free negative) means "not given: use the default". */
typedef struct ss_options {
  const char* platform_path;
  const char* workload_path;
  int gpus;          /* GPUs of each instance to use; -1: all */
  int instances;     /* copies of the instance joined by a network */
  double nic_gbps;   /* network bandwidth of each instance in Gb/s, split over its NICs; -1: the file's */
  double nic_latency_us; /* latency of each NIC link; -1: the file's */
  double oversub;    /* switch oversubscription: the core carries instances x NIC bandwidth / oversub */
  ss_allreduce allreduce;
  ss_fidelity fidelity;
  ss_arch arch;
  int servers;       /* parameter-server shards */
  ss_placement placement;
  int server_hosts;  /* dedicated placement: server hosts; -1: one per shard */
  int async;         /* ASGD: every worker pushes and pulls on its own */
  double server_agg_gbps; /* GB/s of gradient one server core sums (and applies) */
  ss_init_io init_io;  /* start-up: each worker reads the model and its input shard from shared storage */
  double init_shard_mb; /* MiB of input each worker reads at start-up */
  double samples;    /* samples to train for the time-to-train figure; -1: one epoch */
  int batch;         /* per-GPU batch; -1: the workload's */
  int iterations;    /* measured iterations after warm-up; -1: 10, or with data loading whole
                      * cycles of the loader processes per GPU (job.c) */
  int warmup;        /* iterations run before measuring; -1: 2 */
  double bucket_mb;  /* DDP bucket cap in MiB */
  double compute_scale; /* what-if factor on every GPU kernel time (0.5: kernels twice as fast) */
  int overlap;       /* start each bucket's collective as soon as it is full */
  int synthetic;     /* no data loading */
  int workers;       /* loader processes per GPU; -1: vCPUs / GPUs */
  int prefetch;      /* batches each loader process keeps ahead (PyTorch prefetch_factor) */
  int no_nvlink;     /* what-if: GPU-to-GPU traffic over PCIe (ss_platform_drop_nvlink) */
  int async_copy;    /* the loader copies each batch to the GPU ahead of use (DALI); else the training
                      * process copies it when it takes the batch (PyTorch's default) */
  double cache;      /* fraction of the dataset in the page cache; -1: what fits in 80% of memory */
  ss_format format;
  const char* output; /* NULL: stdout */
  const char* trace;  /* --trace: a Chrome trace of the run to this file; NULL: none */
} ss_options;

/* Defaults of every option. */
void ss_options_default(ss_options* o);

/* A gradient bucket: filled by the backward of layers from first_layer down to last_layer
 * (forward indices, first_layer > last_layer or equal); its collective starts after last_layer. */
typedef struct ss_bucket {
  double bytes;
  int first_layer;
  int last_layer;
} ss_bucket;

typedef struct ss_job {
  const ss_platform* platform; /* borrowed */
  const ss_workload* workload; /* borrowed */
  ss_options opt;
  int ngpus;          /* ranks: instances x gpus_per_instance; rank r runs on GPU r % gpus_per_instance
                       * of instance r / gpus_per_instance */
  int instances;
  int gpus_per_instance;
  double core_bandwidth_bps; /* the switch core when oversubscribed */
  int batch;
  int workers;
  double cache;
  int warmup;         /* the iterations run before measuring, resolved */
  int iterations;     /* the iterations measured, resolved */
  int cooldown;       /* iterations simulated after the measured ones, not measured */
  int niters;         /* warmup + iterations + cooldown */
  double* fwd_flops;  /* per layer, on the platform's GPU */
  double* bwd_flops;
  double fwd_total_flops; /* the whole forward pass */
  const ss_device* device; /* the workload's measured ratio for the platform's GPU, or NULL: peak FLOPS */
  double opt_flops;
  double h2d_bytes;   /* one batch */
  double prep_flops_per_sample;
  int nbuckets;
  ss_bucket* buckets; /* in the order their collectives start */
  ss_allreduce* bucket_alg; /* [bucket]: the algorithm of its allreduce, AUTO resolved */
  ss_rings intra;      /* rings among the GPUs of one instance (local indices) */
  ss_rings rings;      /* rings among all ranks: each intra ring as a chain per instance, joined by
                        * one hop from the last GPU of instance i to the first of instance i+1 */
  /* Parameter servers (arch PS): the gradients of bucket b go to the servers as parts
   * ps_bucket_part0[b] .. ps_bucket_part0[b+1]-1, each part_bytes[] of it for shard part_shard[]. */
  int ps_nparts;
  int* ps_bucket_part0;  /* [nbuckets + 1] */
  int* ps_part_shard;
  double* ps_part_bytes;
  double* ps_shard_bytes; /* [servers]: the parameters each shard holds */
  int ps_hosts;           /* server hosts: dedicated ones, or the worker instances they share */
  double init_bytes;      /* start-up read of each worker: the model's parameters and its input shard */
} ss_job;

/* Check the options against the platform and workload and derive the job. Errors name the file
 * whose limit an option exceeds (--gpus beyond the instance). Free with ss_job_free. */
int ss_job_new(const ss_platform* p, const ss_workload* w, const ss_options* o, ss_job** out, ss_err* err);
void ss_job_free(ss_job* j);

/* Name of an allreduce algorithm, and the algorithm of a name (-1 if unknown). */
const char* ss_allreduce_name(ss_allreduce a);
int ss_allreduce_by_name(const char* name, ss_allreduce* out);

/* Names of the gradient architectures ("allreduce", "ps") and placements ("dedicated",
 * "colocated"), and the value of a name (-1 if unknown). */
const char* ss_arch_name(ss_arch a);
int ss_arch_by_name(const char* name, ss_arch* out);
const char* ss_placement_name(ss_placement p);
const char* ss_init_io_name(ss_init_io m);
int ss_init_io_by_name(const char* name, ss_init_io* out);
int ss_placement_by_name(const char* name, ss_placement* out);

/* Host of parameter-server shard k: a dedicated host index, or the worker instance it runs on. */
int ss_job_shard_host(const ss_job* j, int k);

/* Name of a fidelity ("fast", "reference"), and the fidelity of a name (-1 if unknown). */
const char* ss_fidelity_name(ss_fidelity f);
int ss_fidelity_by_name(const char* name, ss_fidelity* out);

/* Limits: GPUs of a job, and instances of a cluster. */
#define SS_MAX_GPUS 65536
#define SS_MAX_INSTANCES 65536

/* SimGrid actors of a job (2 per GPU, plus its loader workers): each has a stack and a guard page,
 * two memory mappings, and Linux allows 65530 mappings per process by default. */
#define SS_MAX_ACTORS 30000

/* DDP's first bucket cap (bytes): the last layers' gradients go out early in a small bucket. */
#define SS_DDP_FIRST_BUCKET_BYTES (1024.0 * 1024.0)

/* Default GB/s of gradient one server core adds into the aggregate and applies: an ESTIMATE
 * (docs/model.md, Parameter servers): summing FP32 arrays streams three times their size through
 * memory, about 6 GB/s of one core's bandwidth on a cloud Xeon. */
#define SS_PS_AGG_GBPS 2.0

/* Default MiB of input a worker reads at start-up besides the model: an ESTIMATE, one 32 MiB chunk
 * of a chunked reader (CNTK's reader deserializes its input in chunks; docs/model.md). */
#define SS_INIT_SHARD_MB 32.0

/* Parameter-server shards at most. */
#define SS_MAX_SERVERS 4096

#endif
