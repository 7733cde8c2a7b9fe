/* sched: one iteration's collectives in the order every rank issues them, and the wrapping units and
 * chunks of layers of the sharded modes that gather parameters: the types the job's phases hand on. */
#ifndef SS_SCHED_H
#define SS_SCHED_H

#include "collective.h"

/* What a collective of an iteration does for the training (ss_coll_spec). */
typedef enum ss_coll_kind {
  SS_CK_BUCKET,  /* a gradient bucket (index: the bucket) */
  SS_CK_GATHER,  /* sharded parameters gathered for a forward or backward (index .. last: the units) */
  SS_CK_REDUCE,  /* a unit's gradients reduced to their owners (index: the unit) */
  SS_CK_REPLICA, /* hybrid sharding: a unit's reduced gradient shard across the replicas (index: the unit) */
  SS_CK_PARAMS,  /* the parameters gathered after the optimizer step (index: the chunk) */
  SS_CK_METRIC   /* a one-element allreduce after the step (index) */
} ss_coll_kind;

/* Which GPUs a collective runs among: all of the job's, those of each instance (hybrid sharding's
 * shard group), or the same-index GPUs of every instance (its replica group). */
typedef enum ss_coll_scope { SS_SCOPE_ALL, SS_SCOPE_INSTANCE, SS_SCOPE_CROSS } ss_coll_scope;

/* One collective of an iteration, in the order every rank issues them (one in-order queue per GPU:
 * NCCL runs one communicator's collectives one after another, whatever streams issue them). */
typedef struct ss_coll_spec {
  ss_coll_kind kind;
  ss_coll_op op;
  ss_coll_scope scope;
  int index;    /* the bucket, unit, chunk or metric */
  int last;     /* SS_CK_GATHER: the last unit it gathers parameters of (a prefetch may span several) */
  int bwd;      /* SS_CK_GATHER: for backward */
  int prefetch; /* SS_CK_GATHER: issued ahead of the unit's use */
  double bytes; /* the whole buffer, as nccl-tests counts it: n times each GPU's shard */
} ss_coll_spec;

/* A wrapping unit of --shard zero3 and fsdp-*: layers first..last (forward order), whose parameters
 * are gathered and whose gradients are reduced together. */
typedef struct ss_unit {
  int first_layer;
  int last_layer;
  double params; /* the parameters gathered (ZeRO-3: without the persistent ones) */
  int root;      /* FSDP's outermost unit: the layers no smaller unit wraps */
} ss_unit;

/* What one pass (forward or backward) over a chunk issues and waits for: the collectives
 * before0 .. before0 + nbefore - 1 at its start, gate (or -1) before it runs, after0 .. after0 +
 * nafter - 1 at its end (indices into ss_job.colls). */
typedef struct ss_chunk_use {
  int before0, nbefore;
  int gate;
  int after0, nafter;
} ss_chunk_use;

/* Layers first..last (forward order) cut where a wrapping unit begins: its unit's (-1: layers
 * before the first unit, which only the root's parameters need). */
typedef struct ss_chunk {
  int first_layer;
  int last_layer;
  int unit;
  ss_chunk_use fwd, bwd;
} ss_chunk;

/* Append a collective to colls[*n] (allocated large enough by the caller: asserted against cap);
 * returns it, index and last set to index. */
ss_coll_spec* ss_sched_add(ss_coll_spec* colls, int* n, int cap, ss_coll_kind kind, ss_coll_op op, ss_coll_scope scope,
                           int index, double bytes);

#endif
