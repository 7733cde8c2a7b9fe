/* shard: the sharded data-parallel modes and their facts, one row each. */
#include "shard.h"

#include "err.h"
#include "names.h"

#include <stdio.h>
#include <string.h>

const char* const ss_shard_names[] = {
    "none", "zero1", "zero2", "zero3", "fsdp-full", "fsdp-grad-op", "fsdp-hybrid", "fsdp-hybrid-zero2", NULL};

const char* const ss_overlap_comm_names[] = {"auto", "off", "on", NULL};

#define ALL_STATES (SS_STATE_OPTIMIZER | SS_STATE_GRADIENTS | SS_STATE_PARAMETERS)

/* What every FSDP mode shares: all three states sharded, wrapping units (--wrap-params, the next unit
 * prefetched), a reduce-scatter per unit as backward reaches it; the rows add what sets them apart. */
#define FSDP_MODE                                                                                                      \
  .engine = "FSDP", .divides = ALL_STATES, .grads = SS_GRADS_UNITS, .bucket_op = SS_OP_REDUCE_SCATTER,                 \
  .bucket_in_backward = 1, .units = SS_UNITS_WRAP, .reduce_each_micro = 1,                                             \
  .takes = SS_SOPT_WRAP_PARAMS | SS_SOPT_PARAM_PREFETCH | SS_SOPT_NO_SYNC

/* DeepSpeed v0.12.3 (stage_1_and_2.py, stage3.py): ZeRO-1 reduces its buckets after backward and
 * forces overlap_comm off; ZeRO-2 reduce-scatters each bucket as backward fills it, on the default
 * stream unless overlap_comm; both all-gather the updated parameters after the step. ZeRO-3 fetches
 * each module's parameters, overlap_comm on by default. FSDP (PyTorch 2.1-2.2): a reduce-scatter per
 * unit; FULL_SHARD frees a unit after forward, SHARD_GRAD_OP keeps it to backward; HYBRID_SHARD is
 * FULL_SHARD within each instance, replicated across; _HYBRID_SHARD_ZERO2 is SHARD_GRAD_OP within
 * each instance (NO_RESHARD_AFTER_FORWARD_HANDLE_STRATEGIES), replicated across as HYBRID_SHARD.
 * Gradient accumulation (engine.py's allreduce_gradients: "ZeRO stage >= 2 communicates during non
 * gradient accumulation boundaries as well"): ZeRO-1 reduces once, at the boundary; ZeRO-2 and 3 after
 * every micro-batch; FSDP too, unless the micro-batches before the last run under no_sync(), which
 * keeps their gradients unsharded until the last one's reduce-scatter. */
static const ss_shard_mode modes[SS_SHARD_COUNT] = {
    [SS_SHARD_NONE] = {.grads = SS_GRADS_FRAMEWORK,
                       .bucket_op = SS_OP_ALLREDUCE,
                       .bucket_in_backward = 1,
                       .takes = SS_SOPT_FRAMEWORK},
    [SS_SHARD_ZERO1] = {.label = "DeepSpeed ZeRO-1",
                        .engine = "DeepSpeed's engine",
                        .divides = SS_STATE_OPTIMIZER,
                        .grads = SS_GRADS_ZERO_BUCKETS,
                        .bucket_op = SS_OP_ALLREDUCE,
                        .post_gather = 1},
    [SS_SHARD_ZERO2] = {.label = "DeepSpeed ZeRO-2",
                        .engine = "DeepSpeed's engine",
                        .divides = SS_STATE_OPTIMIZER | SS_STATE_GRADIENTS,
                        .grads = SS_GRADS_ZERO_BUCKETS,
                        .bucket_op = SS_OP_REDUCE_SCATTER,
                        .bucket_in_backward = 1,
                        .post_gather = 1,
                        .reduce_each_micro = 1,
                        .takes = SS_SOPT_OVERLAP_COMM},
    [SS_SHARD_ZERO3] = {.label = "DeepSpeed ZeRO-3",
                        .engine = "DeepSpeed's engine",
                        .divides = ALL_STATES,
                        .grads = SS_GRADS_ZERO_BUCKETS,
                        .bucket_op = SS_OP_REDUCE_SCATTER,
                        .bucket_in_backward = 1,
                        .units = SS_UNITS_LAYERS,
                        .overlap_comm = 1,
                        .reduce_each_micro = 1,
                        .takes = SS_SOPT_PARAM_PREFETCH | SS_SOPT_ZERO3 | SS_SOPT_OVERLAP_COMM},
    [SS_SHARD_FSDP_FULL] = {FSDP_MODE, .label = "FSDP FULL_SHARD"},
    [SS_SHARD_FSDP_GRAD_OP] = {FSDP_MODE, .label = "FSDP SHARD_GRAD_OP", .keep_after_forward = 1},
    [SS_SHARD_FSDP_HYBRID] = {FSDP_MODE, .label = "FSDP HYBRID_SHARD", .hybrid = 1},
    [SS_SHARD_FSDP_HYBRID_ZERO2] = {FSDP_MODE, .label = "FSDP _HYBRID_SHARD_ZERO2", .hybrid = 1,
                                    .keep_after_forward = 1},
};

const ss_shard_mode* ss_shard_mode_of(ss_shard m)
{
  ss_assert(m >= 0 && m < SS_SHARD_COUNT);
  return &modes[m];
}

const char* ss_shard_name(ss_shard m)
{
  return ss_names_at(ss_shard_names, (int)m);
}

int ss_shard_sharded(ss_shard m)
{
  return ss_shard_mode_of(m)->divides != 0;
}

int ss_shard_has_units(ss_shard m)
{
  return ss_shard_mode_of(m)->units != SS_UNITS_NONE;
}

int ss_shard_takes(ss_shard m, unsigned sopt)
{
  return sopt == 0 || (ss_shard_mode_of(m)->takes & sopt) != 0;
}

int ss_shard_overlap_comm(ss_shard m, ss_overlap_comm given)
{
  const ss_shard_mode* d = ss_shard_mode_of(m);
  if (!(d->takes & SS_SOPT_OVERLAP_COMM))
    return 1;
  return given == SS_OVERLAP_COMM_AUTO ? d->overlap_comm : given == SS_OVERLAP_COMM_ON;
}

/* The takers joined as "a, b or c"; FSDP's modes together are "fsdp-*" beside another family's. */
void ss_shard_takers_text(unsigned sopt, char* buf, size_t size)
{
  const char* items[SS_SHARD_COUNT + 1];
  int n = 0, fsdp = 0, fsdp_all = 1, other = 0;
  for (int m = 0; m < SS_SHARD_COUNT; m++) {
    int is_fsdp = strncmp(ss_shard_names[m], "fsdp-", 5) == 0, takes = (modes[m].takes & sopt) != 0;
    fsdp += is_fsdp && takes;
    fsdp_all &= !is_fsdp || takes;
    other += !is_fsdp && takes;
  }
  int star = fsdp > 0 && fsdp_all && other > 0;
  for (int m = 0; m < SS_SHARD_COUNT; m++) {
    int is_fsdp = strncmp(ss_shard_names[m], "fsdp-", 5) == 0;
    if (!(modes[m].takes & sopt) || (star && is_fsdp))
      continue;
    items[n++] = ss_shard_names[m];
  }
  if (star)
    items[n++] = "fsdp-*";
  buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", items[i]);
  }
}
