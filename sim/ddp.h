/* ddp: the data-parallel frameworks that turn gradients into collectives (PyTorch DDP's buckets, apex
 * DDP's message size, Horovod's tensor fusion), one row of facts each: what each collective and each
 * gradient tensor costs the host, where the calls run, when a fusion starts, what memory its buffers
 * take. The buckets themselves are bucket.h's. */
#ifndef SS_DDP_H
#define SS_DDP_H

/* A new framework is a value here, a name and a row in ddp.c, and its bucket filler in bucket.c. */
typedef enum ss_ddp { SS_DDP_PYTORCH, SS_DDP_APEX, SS_DDP_HOROVOD, SS_DDP_COUNT } ss_ddp;

/* One framework's facts. */
typedef struct ss_ddp_framework {
  double collective_s; /* host seconds per collective call: an ESTIMATE (docs/model.md, "The data-parallel
                        * framework") */
  double tensor_s;     /* host seconds per gradient tensor (its hook): an ESTIMATE */
  int background;      /* its collective calls run on a thread of their own (Horovod's background
                        * thread), not on the training process's */
  int cycles;          /* a fusion starts no earlier than its cycle after backward began (ss_bucket.start_s) */
  int one_buffer;      /* its buffers are one fusion buffer of --fusion-mib (Horovod), not a copy of every
                        * bucket (PyTorch DDP's reducer, apex's flattened buckets) */
} ss_ddp_framework;

/* The row of framework d (asserted valid), and its name. */
const ss_ddp_framework* ss_ddp_of(ss_ddp d);
const char* ss_ddp_name(ss_ddp d);

/* Names by value, NULL-terminated: --ddp's values. */
extern const char* const ss_ddp_names[];

/* Bytes a collective of S bytes moves through GPU memory in copy kernels: before it, on the compute
 * stream (gradients into the flat buffer), and after it, on the collective's stream (scale by
 * 1/world and back into the gradients): 2S and 4S, a read and a write each. */
#define SS_DDP_COPY_BEFORE 2.0
#define SS_DDP_COPY_AFTER 4.0

/* DDP's first bucket cap (bytes): the last layers' gradients go out early in a small bucket. */
#define SS_DDP_FIRST_BUCKET_BYTES (1024.0 * 1024.0)

/* Horovod's tensor fusion defaults (HOROVOD_FUSION_THRESHOLD, HOROVOD_CYCLE_TIME) from v0.21.0
 * (2020-11-23) on; 64 MiB and 5 ms before (calibration/host_costs.md, section 1). */
#define SS_HOROVOD_FUSION_MIB 128.0
#define SS_HOROVOD_FUSION_TEXT "128, Horovod's since 0.21 (64 before)"
#define SS_HOROVOD_CYCLE_MS 1.0
#define SS_HOROVOD_CYCLE_TEXT "1, Horovod's since 0.21 (5 before)"

#endif
