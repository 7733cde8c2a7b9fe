/* category: the categories of an iteration's time (compute and the stalls of the Stash study, plus
 * the host stall) and the details of the stalls, one row of names each: the timeline books them, the
 * report, the Stash view, the planner and the trace name them from here, and the scripts read the
 * same table (`stash-sim list categories --format json`). */
#ifndef SS_CATEGORY_H
#define SS_CATEGORY_H

#include "option.h"

#include <stdio.h>

/* What a rank's training process is doing; every instant of an iteration falls in one category. */
typedef enum ss_cat {
  SS_CAT_COMPUTE,      /* forward, backward, optimizer kernels */
  SS_CAT_PREP,         /* waiting for CPU preparation of data, and the host-to-device copy */
  SS_CAT_FETCH,        /* waiting for storage reads */
  SS_CAT_INTERCONNECT, /* waiting for collectives inside one instance */
  SS_CAT_NETWORK,      /* waiting for collectives that cross instances */
  SS_CAT_HOST,         /* waiting for the training process's CPU thread to issue work (docs/model.md) */
  SS_CAT_BUBBLE,       /* pipeline bubble: the stage has no micro-batch to run (docs/model.md) */
  SS_CAT_COUNT
} ss_cat;

/* Parts of the interconnect and network stalls that a mechanism explains (docs/model.md): compute
 * slowed down by collectives running on the same GPU (interference), and waits for the slowest
 * rank at a synchronous step (straggler), and with tensor and pipeline parallelism which parallelism
 * the wait belongs to. Each is also counted in its category. */
typedef enum ss_detail {
  SS_DETAIL_INTERFERENCE,
  SS_DETAIL_STRAGGLER,
  SS_DETAIL_TENSOR, /* tensor- and pipeline-parallel runs: waits for the tensor-parallel collectives, */
  SS_DETAIL_P2P,    /* the activations and gradients sent between stages, */
  SS_DETAIL_DATA,   /* and the data-parallel reductions (and the tied embeddings'); */
  SS_DETAIL_A2A,    /* a mixture of experts' all-to-alls (not within SS_DETAIL_TENSOR) */
  SS_DETAIL_COUNT
} ss_detail;

/* A category's names. */
typedef struct ss_category {
  const char* name;      /* "prep_stall": the trace's category, Stash's key; the report's JSON key adds
                          * "_s" (seconds) or "_pct" */
  const char* label;     /* the report's table: "prep (CPU) stall" */
  const char* word;      /* the planner's table: "prep (CPU)" */
  const char* host_wait; /* the trace's name of the GPU waiting for the host thread while the host
                          * itself waits in this category: "wait for data (CPU, host)" */
} ss_category;

/* The row of category c (asserted valid). */
const ss_category* ss_category_of(ss_cat c);

/* Short name of a category ("compute", "prep_stall", ...), and of a detail ("interference", "straggler"). */
const char* ss_cat_name(ss_cat cat);
const char* ss_detail_name(ss_detail d);

/* Write the table (`stash-sim list categories`) in fmt: JSON, an array of objects {name, key, label,
 * word, host_wait} in the order of ss_cat ("key": the breakdown's JSON and CSV key, "prep_stall_s");
 * CSV, a header and a line per category; a table, one aligned line per category. Returns 0, SS_ENOMEM
 * or SS_EIO when writing failed. */
int ss_category_list(FILE* f, ss_format fmt);

#endif
