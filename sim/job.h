/* job: what to simulate: a validated platform, workload and options, with everything derived from them. */
#ifndef SS_JOB_H
#define SS_JOB_H

#include "err.h"
#include "platform.h"
#include "topo.h"
#include "workload.h"

typedef enum ss_format { SS_FORMAT_TABLE, SS_FORMAT_JSON, SS_FORMAT_CSV } ss_format;

/* Command-line options; a value of -1 (or NaN-free negative) means "not given: use the default". */
typedef struct ss_options {
  const char* platform_path;
  const char* workload_path;
  int gpus;          /* GPUs of the instance to use; -1: all */
  int batch;         /* per-GPU batch; -1: the workload's */
  int iterations;    /* measured iterations after warm-up */
  int warmup;        /* iterations run before measuring */
  double bucket_mb;  /* DDP bucket cap in MiB */
  int overlap;       /* start each bucket's collective as soon as it is full */
  int synthetic;     /* no data loading */
  int workers;       /* loader processes per GPU; -1: vCPUs / GPUs */
  int prefetch;      /* batches each loader process keeps ahead (PyTorch prefetch_factor) */
  double cache;      /* fraction of the dataset in the page cache; -1: what fits in 80% of memory */
  ss_format format;
  const char* output; /* NULL: stdout */
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
  int ngpus;          /* ranks; rank r runs on GPU host r */
  int batch;
  int workers;
  double cache;
  int niters;         /* warmup + iterations */
  double* fwd_flops;  /* per layer, on the platform's GPU */
  double* bwd_flops;
  double opt_flops;
  double h2d_bytes;   /* one batch */
  double prep_flops_per_sample;
  int nbuckets;
  ss_bucket* buckets; /* in the order their collectives start */
  ss_rings rings;
} ss_job;

/* Check the options against the platform and workload and derive the job. Errors name the file
 * whose limit an option exceeds (--gpus beyond the instance). Free with ss_job_free. */
int ss_job_new(const ss_platform* p, const ss_workload* w, const ss_options* o, ss_job** out, ss_err* err);
void ss_job_free(ss_job* j);

/* Loader processes of all GPUs together: each is a SimGrid actor with its own stack. */
#define SS_MAX_LOADERS 4096

/* DDP's first bucket cap (bytes): the last layers' gradients go out early in a small bucket. */
#define SS_DDP_FIRST_BUCKET_BYTES (1024.0 * 1024.0)

#endif
