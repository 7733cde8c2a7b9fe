/* shard: the sharded data-parallel modes (--shard), one row of facts each: which training states
 * the GPUs divide among them, how the gradients become collectives, whether parameters are gathered
 * in wrapping units and kept from forward to backward, the options each mode takes, and DeepSpeed's
 * and FSDP's defaults (docs/model.md, "Sharded data parallelism"; the sources are in
 * calibration/sharding_sources.md). The walk over the units is wrap.h's. */
#ifndef SS_SHARD_H
#define SS_SHARD_H

#include "collective.h"

#include <stddef.h>

/* None (each GPU holds every state, gradients allreduced by --ddp's framework), DeepSpeed ZeRO stage
 * 1 (optimizer state sharded), stage 2 (and gradients) and stage 3 (and parameters), as DeepSpeed
 * v0.12.3 runs them; PyTorch FSDP's FULL_SHARD, SHARD_GRAD_OP, HYBRID_SHARD and _HYBRID_SHARD_ZERO2
 * (PyTorch 2.1-2.2). A new mode is a value here and a row of the table in shard.c. */
typedef enum ss_shard {
  SS_SHARD_NONE,
  SS_SHARD_ZERO1,
  SS_SHARD_ZERO2,
  SS_SHARD_ZERO3,
  SS_SHARD_FSDP_FULL,
  SS_SHARD_FSDP_GRAD_OP,
  SS_SHARD_FSDP_HYBRID,
  SS_SHARD_FSDP_HYBRID_ZERO2,
  SS_SHARD_COUNT
} ss_shard;

/* DeepSpeed's overlap_comm (--overlap-comm): the mode's default, or as given. */
typedef enum ss_overlap_comm { SS_OVERLAP_COMM_AUTO, SS_OVERLAP_COMM_OFF, SS_OVERLAP_COMM_ON } ss_overlap_comm;

/* The training states a mode divides among its shard group (bits). */
enum { SS_STATE_OPTIMIZER = 1, SS_STATE_GRADIENTS = 2, SS_STATE_PARAMETERS = 4 };

/* How a mode's gradients become collectives: the framework's buckets (--ddp, allreduced), DeepSpeed's
 * buckets of SS_ZERO_BUCKET_ELEMENTS, or each wrapping unit's reduce-scatter (FSDP). */
typedef enum ss_shard_grads { SS_GRADS_FRAMEWORK, SS_GRADS_ZERO_BUCKETS, SS_GRADS_UNITS } ss_shard_grads;

/* How a mode gathers its parameters: not at all (they are whole on every GPU), each layer's own
 * partitioned tensors as its module runs (ZeRO-3: persistent small tensors, a prefetch bucket over
 * the recorded trace, a reuse distance), or FSDP's wrapping units (--wrap-params; the next unit
 * prefetched). */
typedef enum ss_shard_units { SS_UNITS_NONE, SS_UNITS_LAYERS, SS_UNITS_WRAP } ss_shard_units;

/* The options a mode may take besides the common ones (bits; an option's registry row says which
 * one it is: ss_optdef.shard_opt). */
enum {
  SS_SOPT_FRAMEWORK = 1,      /* --ddp and its framework's options: the unsharded mode's */
  SS_SOPT_WRAP_PARAMS = 2,    /* FSDP's wrapping policy */
  SS_SOPT_PARAM_PREFETCH = 4, /* --no-param-prefetch */
  SS_SOPT_ZERO3 = 8,          /* --prefetch-bucket, --reuse-distance: DeepSpeed's stage 3 settings */
  SS_SOPT_OVERLAP_COMM = 16,  /* --overlap-comm: DeepSpeed's */
  SS_SOPT_NO_SYNC = 32        /* --accum-no-sync: FSDP's no_sync() over the accumulated micro-batches */
};

/* One mode's facts. */
typedef struct ss_shard_mode {
  const char* label;  /* the report's words ("DeepSpeed ZeRO-3", "FSDP FULL_SHARD"); NULL for none */
  const char* engine; /* who decides how and when gradients are reduced ("DeepSpeed's engine", "FSDP") */
  unsigned divides;   /* SS_STATE_* divided among the shard group */
  int hybrid;         /* the shard group is each instance's GPUs, replicated across instances (each
                            * unit's reduced shard allreduced among the same-index GPUs) */
  ss_shard_grads grads;
  ss_coll_op bucket_op;   /* the collective of each gradient bucket */
  int bucket_in_backward; /* buckets go out as backward fills them (ZeRO-1: after backward) */
  int post_gather;        /* the updated parameters all-gathered after the step (ZeRO-1 and 2) */
  ss_shard_units units;
  int keep_after_forward; /* a unit gathered for forward stays gathered for backward (SHARD_GRAD_OP) */
  int overlap_comm;       /* DeepSpeed's overlap_comm default (its collectives on side streams) */
  int reduce_each_micro;  /* with gradient accumulation, gradients are reduced after every micro-batch's
                           * backward (ZeRO-2 and 3, FSDP), not once after the last (ZeRO-1, DDP) */
  unsigned takes;         /* SS_SOPT_* */
} ss_shard_mode;

/* The row of mode m (a valid ss_shard: asserted). */
const ss_shard_mode* ss_shard_mode_of(ss_shard m);

/* Names by value, NULL-terminated: --shard's values. */
extern const char* const ss_shard_names[];
extern const char* const ss_overlap_comm_names[];
const char* ss_shard_name(ss_shard m);

/* Whether m shards anything (every mode but none), and whether it gathers parameters in units. */
int ss_shard_sharded(ss_shard m);
int ss_shard_has_units(ss_shard m);

/* Whether mode m takes the options of kind sopt (an SS_SOPT_* bit; 0: an option of every mode). */
int ss_shard_takes(ss_shard m, unsigned sopt);

/* Whether m's collectives run on side streams beside compute (DeepSpeed's overlap_comm as given,
 * or the mode's default for AUTO); 1 for the modes that do not take --overlap-comm. */
int ss_shard_overlap_comm(ss_shard m, ss_overlap_comm given);

/* The modes that take sopt in words, for errors, into buf: "fsdp-full, fsdp-grad-op or fsdp-hybrid";
 * FSDP's modes are "fsdp-*" when all of them take it beside another family's ("zero3 or fsdp-*"). */
void ss_shard_takers_text(unsigned sopt, char* buf, size_t size);

/* DeepSpeed's reduce_bucket_size and allgather_bucket_size: 5e8 ELEMENTS each, the defaults of
 * zero_optimization (deepspeed/runtime/zero/config.py @v0.12.3, L104 and L116). */
#define SS_ZERO_BUCKET_ELEMENTS 5e8

/* DeepSpeed ZeRO-3's defaults, in ELEMENTS (deepspeed/runtime/zero/config.py @v0.12.3;
 * calibration/sharding_sources.md, section 1): stage3_prefetch_bucket_size (L186: 5e7; the docs say
 * 5e8), stage3_max_reuse_distance (L215). */
#define SS_ZERO3_PREFETCH_ELEMENTS 5e7
#define SS_ZERO3_REUSE_ELEMENTS 1e9

/* ZeRO-3's stage3_param_persistence_threshold (L192: 1e5 elements; the docs say 1e6): a smaller
 * parameter tensor stays gathered on every GPU; and its stage3_max_live_parameters (L209: 1e9
 * elements): prefetching stops while as many are gathered. */
#define SS_ZERO3_PERSIST_ELEMENTS 1e5
#define SS_ZERO3_MAX_LIVE_ELEMENTS 1e9

#endif
