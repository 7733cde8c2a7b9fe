/* cal_workload: a stash-sim workload as JSON, written by stash-calibrate trace and astra. */
#include "cal_workload.h"

cJSON* cal_workload_json(const cal_workload* w, cJSON** layers)
{
  cJSON* j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "schema", "stash-sim-workload/1");
  cJSON_AddStringToObject(j, "model", w->model);
  cJSON_AddStringToObject(j, "precision", w->precision);
  cJSON_AddNumberToObject(j, "batch_per_gpu", w->batch);
  cJSON_AddNumberToObject(j, "grad_bytes_per_param", w->grad_bytes);
  cJSON* ref = cJSON_AddObjectToObject(j, "reference");
  cJSON_AddStringToObject(ref, "gpu_model", w->gpu_model);
  cJSON_AddNumberToObject(ref, "gpu_flops", w->gpu_flops);
  cJSON_AddNumberToObject(ref, "batch", w->batch);
  cJSON_AddNumberToObject(j, "optimizer_s", w->optimizer_s);
  if (w->has_host)
    cJSON_AddNumberToObject(j, "host_optimizer_s", w->host_optimizer_s);
  *layers = cJSON_AddArrayToObject(j, "layers");
  return j;
}

cJSON* cal_workload_layer(cJSON* layers, const char* name, double fwd_s, double bwd_s, double params)
{
  cJSON* o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", name);
  cJSON_AddNumberToObject(o, "fwd_s", fwd_s);
  cJSON_AddNumberToObject(o, "bwd_s", bwd_s);
  cJSON_AddNumberToObject(o, "params", params);
  cJSON_AddItemToArray(layers, o);
  return o;
}

void cal_workload_dataset(cJSON* j, const ss_dataset* ds)
{
  cJSON* d = cJSON_AddObjectToObject(j, "dataset");
  cJSON_AddStringToObject(d, "name", ds->name);
  cJSON_AddNumberToObject(d, "samples", ds->samples);
  cJSON_AddNumberToObject(d, "bytes_per_sample", ds->bytes_per_sample);
  cJSON_AddNumberToObject(d, "prep_cpu_s_per_sample", ds->prep_cpu_s_per_sample);
  cJSON_AddNumberToObject(d, "decoded_bytes_per_sample", ds->decoded_bytes_per_sample);
}
