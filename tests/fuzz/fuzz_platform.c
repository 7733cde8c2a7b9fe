/* fuzz_platform: libFuzzer target of the platform reader (sim/platform.c): any bytes must give a
 * platform that the rest of the simulator can use, or one input error; never a crash, a leak or
 * unbounded memory. An accepted platform then goes through what a run does before SimGrid: the
 * job (rings over its links), the what-if without NVLink, and the composed cluster platform,
 * which must be well-formed XML (SimGrid aborts on anything else). */
#include "cluster.h"
#include "fuzz_input.h"
#include "job.h"
#include "platform.h"
#include "workload.h"

#include <libxml/parser.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char tiny_workload[] =
    "{\"schema\": \"stash-sim-workload/1\", \"model\": \"fuzz\", \"precision\": \"fp32\", \"batch_per_gpu\": 8,"
    " \"grad_bytes_per_param\": 4, \"reference\": {\"gpu_model\": \"ref\", \"gpu_flops\": 1e13, \"batch\": 8},"
    " \"optimizer_s\": 0.0005, \"layers\": [{\"name\": \"a\", \"fwd_s\": 0.001, \"bwd_s\": 0.002, \"params\": 1000000},"
    " {\"name\": \"b\", \"fwd_s\": 0.001, \"bwd_s\": 0.002, \"params\": 30000000}], \"dataset\": {\"name\": \"d\","
    " \"samples\": 1000, \"bytes_per_sample\": 100000, \"prep_cpu_s_per_sample\": 0.002,"
    " \"decoded_bytes_per_sample\": 602112}, \"provenance\": {}}";

static const ss_workload* workload(void)
{
  static ss_workload* w;
  if (!w) {
    fuzz_file f = {0};
    fuzz_file_set(&f, (const uint8_t*)tiny_workload, sizeof(tiny_workload) - 1);
    ss_err err;
    ss_err_clear(&err);
    ss_assert(ss_workload_load(f.path, &w, &err) == SS_OK);
  }
  return w;
}

/* What the simulator relies on: indices in range, every host pair routed, finite positive figures. */
static void check_platform(const ss_platform* p)
{
  ss_assert(p->ngpus >= 1 && p->nnodes == p->ngpus + 1 + p->nnics);
  ss_assert(p->cpu_cores >= 1 && p->cpu_speed_flops > 0 && p->disk_read_bytes_per_s > 0 &&
            p->disk_write_bytes_per_s > 0);
  for (int g = 0; g < p->ngpus; g++)
    ss_assert(p->gpus[g].speed_flops > 0 && isfinite(p->gpus[g].speed_flops) && p->gpus[g].model);
  for (int l = 0; l < p->nlinks; l++)
    ss_assert(p->links[l].bandwidth_bytes_per_s > 0 && isfinite(p->links[l].bandwidth_bytes_per_s) &&
              p->links[l].latency_s >= 0);
  for (int a = 0; a < p->nnodes; a++)
    for (int b = 0; b < p->nnodes; b++) {
      const ss_route* r = ss_platform_route(p, a, b);
      for (int h = 0; h < r->nhops; h++)
        ss_assert(r->hops[h].link >= 0 && r->hops[h].link < p->nlinks && r->hops[h].dir >= -1 && r->hops[h].dir <= 1);
      if (a != b && a <= p->ngpus && b <= p->ngpus)
        ss_assert(r->nhops > 0 && ss_platform_route_bandwidth(p, a, b) > 0);
    }
}

/* The job of a run on p (two instances when it has a NIC), and its composed SimGrid platform. */
static void check_job(const ss_platform* p)
{
  ss_options o;
  ss_options_default(&o);
  o.instances = p->nnics ? 2 : 1;
  ss_err err;
  ss_err_clear(&err);
  ss_job* j = NULL;
  if (ss_job_new(p, workload(), &o, &j, &err) != SS_OK) {
    fuzz_check_error(&err); /* e.g. too many simulated processes for the GPUs */
    return;
  }
  char* xml = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&xml, &len);
  ss_assert(f && ss_cluster_write(j, f) == SS_OK);
  fclose(f);
  xmlDoc* doc = xmlReadMemory(xml, (int)len, "cluster.xml", NULL,
                              XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!doc) {
    fprintf(stderr, "fuzz: the composed cluster platform is not well-formed XML:\n%s\n", xml);
    abort();
  }
  xmlFreeDoc(doc);
  free(xml);
  ss_job_free(j);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  ss_err err;
  ss_platform* p = NULL;
  if (!fuzz_loaded(ss_platform_load(fuzz_input(data, size, &err), &p, &err), &err))
    return 0;
  check_platform(p);
  check_job(p);
  ss_assert(ss_platform_drop_nvlink(p) == SS_OK);
  check_platform(p);
  check_job(p);
  ss_platform_free(p);
  return 0;
}
