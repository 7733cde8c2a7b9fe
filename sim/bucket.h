/* bucket: how the gradients become collectives: the data-parallel framework's buckets (ddp.h) or
 * DeepSpeed ZeRO's (shard.h), made from the workload and the options alone. */
#ifndef SS_BUCKET_H
#define SS_BUCKET_H

#include "option.h"
#include "workload.h"

#include <stddef.h>

/* A gradient bucket: filled by the backward of layers from first_layer down to last_layer
 * (forward indices, first_layer > last_layer or equal); its collective starts after last_layer. */
typedef struct ss_bucket {
  double bytes;
  int first_layer;
  int last_layer;
  int ntensors;   /* parameter tensors whose gradients it holds */
  double start_s; /* Horovod: the earliest start, after the start of backward (its fusion cycle) */
} ss_bucket;

/* The buckets of workload w under options o, in the order their collectives start, into *out (n of
 * them; free with free()): the framework's (--ddp) unsharded, DeepSpeed's of SS_ZERO_BUCKET_ELEMENTS
 * elements of bytes_per_param each for ZeRO, none for FSDP (its units' reduce-scatters). bwd_s[l] is
 * layer l's backward on the job's GPU in seconds (when Horovod's fusions are ready). SS_OK or
 * SS_ENOMEM. */
int ss_bucket_make(const ss_workload* w, const ss_options* o, const double* bwd_s, double bytes_per_param,
                   ss_bucket** out, int* n);

/* The buckets' rule as the report says it ("of up to 25 MiB", "(apex DDP, message size 1 element: ...)"). */
void ss_bucket_describe(const ss_options* o, char* buf, size_t size);

#endif
