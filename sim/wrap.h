/* wrap: the wrapping units of the sharded modes that gather parameters (ZeRO-3's layers, FSDP's
 * units), and the collectives each forward and backward pass over them issues, from the job's
 * complete earlier phases (the workload, the options, the buckets). */
#ifndef SS_WRAP_H
#define SS_WRAP_H

#include "bucket.h"
#include "option.h"
#include "sched.h"
#include "workload.h"

/* What the walk reads. */
typedef struct ss_wrap_in {
  const ss_workload* w;
  const ss_options* o;      /* the mode (ss_shard_has_units) and its options */
  int instances;            /* hybrid modes: the shard group is each instance's GPUs when more than 1 */
  const ss_bucket* buckets; /* ZeRO-3's gradient buckets, reduced as backward fills them */
  int nbuckets;
  double bytes_per_param; /* of the all-gathers and reduce-scatters */
  int nmetric;            /* collectives the caller appends after the walk's (metrics): room is left */
} ss_wrap_in;

/* What it makes; free with ss_wrap_free. */
typedef struct ss_wrap {
  ss_unit* units; /* in forward order; FSDP's root last */
  int nunits;
  ss_chunk* chunks; /* the layers cut at the units, with each pass's collectives */
  int nchunks;
  ss_coll_spec* colls; /* the passes' collectives in issue order, room for colls_cap */
  int ncolls;
  int colls_cap;
  double* post_bytes; /* ZeRO-3: the persistent parameters' all-gather after the step (npost 0 or 1) */
  int npost;
  double gathered_peak; /* the parameters' bytes gathered at once at most */
} ss_wrap;

/* Walk one iteration's passes over the units of in. SS_OK, or SS_ENOMEM with out freed. */
int ss_wrap_plan(const ss_wrap_in* in, ss_wrap* out);
void ss_wrap_free(ss_wrap* w);

#endif
