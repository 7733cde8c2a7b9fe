/* cal_workload: the workload JSON that stash-calibrate's subcommands write (stash-sim-workload/1,
 * docs/formats.md), its keys in the order of stash-sim's files; the provenance is each one's. */
#ifndef SS_CAL_WORKLOAD_H
#define SS_CAL_WORKLOAD_H

#include "workload.h"

#include <cjson/cJSON.h>

/* The figures of a workload before its layers. The batch is a double as computed: stash-sim checks
 * that it is whole when it reads the file. */
typedef struct cal_workload {
  const char* model;
  const char* precision;
  double batch;          /* batch_per_gpu, and the reference device's batch */
  double grad_bytes;     /* bytes of one gradient element */
  const char* gpu_model; /* the reference device */
  double gpu_flops;
  double optimizer_s;
  int has_host;            /* write host_optimizer_s (the layers then get host times too) */
  double host_optimizer_s; /* the optimizer's host (CPU) time */
} cal_workload;

/* A new workload JSON object (free with cJSON_Delete) with w's figures and an empty "layers" array,
 * borrowed in *layers: append them with cal_workload_layer, then add the dataset. */
cJSON* cal_workload_json(const cal_workload* w, cJSON** layers);

/* Append a layer to a workload's layers: its name, forward and backward time (s), parameters.
 * Returns the layer's object (borrowed), for the optional keys (tensors, host times) that follow. */
cJSON* cal_workload_layer(cJSON* layers, const char* name, double fwd_s, double bwd_s, double params);

/* Add the dataset block of ds to the workload j, after its layers. */
void cal_workload_dataset(cJSON* j, const ss_dataset* ds);

#endif
