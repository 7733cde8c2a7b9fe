/* e2e_sim: running stash-sim for the end-to-end tests: reports as JSON, their numbers, allreduce
 * benchmarks. */
#include "e2e.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

run_result runs(const char* bin, const char* args)
{
  return runf(bin, "%s", args);
}

/* sim_json on a va_list. */
static cJSON* sim_vjson(const char* fmt, va_list ap)
{
  char args[2048];
  vsnprintf(args, sizeof(args) - 16, fmt, ap);
  strcat(args, " --format json");
  run_result r = runs(SS_SIM_BIN, args);
  CHECK(r.status == 0, "stash-sim %s exited %d: %s", args, r.status, r.err);
  cJSON* j = r.status == 0 ? cJSON_Parse(r.out) : NULL;
  CHECK(r.status != 0 || j, "stash-sim %s: output is not JSON", args);
  run_free(&r);
  return j;
}

cJSON* sim_json(const char* fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  cJSON* j = sim_vjson(fmt, ap);
  va_end(ap);
  return j;
}

double sim_num(const char* key, const char* fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  cJSON* j = sim_vjson(fmt, ap);
  va_end(ap);
  double v = j ? num(j, key) : NAN;
  cJSON_Delete(j);
  return v;
}

double iteration(const char* args, const char* extra)
{
  return sim_num("iteration_s", "%s %s", args, extra);
}

/* Time of one collective op of bytes by "stash-sim bench OP ARGS", and its row's string `key`. */
static double bench_field(const char* op, const char* args, double bytes, const char* key, char* out, size_t out_size)
{
  char all[1024];
  snprintf(all, sizeof(all), "bench %s %s --min-bytes %.17g --max-bytes %.17g --iters 2 --format json", op, args, bytes,
           bytes);
  run_result r = runs(SS_SIM_BIN, all);
  cJSON* j = r.status == 0 ? cJSON_Parse(r.out) : NULL;
  const cJSON* row = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "results"), 0);
  const cJSON* name = cJSON_GetObjectItemCaseSensitive(row, key);
  int ok = row && cJSON_IsString(name);
  CHECK(ok, "stash-sim %s: %s%s", all, r.out, r.err);
  double t = ok ? num(row, "time_s") : NAN;
  if (out)
    snprintf(out, out_size, "%s", ok ? name->valuestring : "");
  cJSON_Delete(j);
  run_free(&r);
  return t;
}

double bench_time(const char* args, double bytes, char* alg, size_t alg_size)
{
  return bench_field("allreduce", args, bytes, "algorithm", alg, alg_size);
}

double bench_op_time(const char* op, const char* args, double bytes, char* alg, size_t alg_size)
{
  return bench_field(op, args, bytes, "algorithm", alg, alg_size);
}

double bench_proto(const char* args, double bytes, char* proto, size_t proto_size)
{
  return bench_field("allreduce", args, bytes, "protocol", proto, proto_size);
}
