/* platform: read and validate one instance's SimGrid platform file before SimGrid sees it. */
#include "platform.h"

#include "array.h"
#include "infile.h"
#include "units.h"
#include "xml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char* const link_class_names[SS_LINK_CLASS_COUNT] = {"nvlink", "nvswitch", "pcie", "socket", "nic", "shm"};

/* sharing_policy values, by ss_sharing. */
static const char* const sharing_names[] = {"SHARED", "SPLITDUPLEX", "FATPIPE"};

const char* ss_link_class_name(ss_link_class cls)
{
  ss_assert(cls >= 0 && cls < SS_LINK_CLASS_COUNT);
  return link_class_names[cls];
}

/* The index of s among the n names, or -1. */
static int name_index(const char* s, const char* const* names, int n)
{
  for (int i = 0; i < n; i++)
    if (strcmp(s, names[i]) == 0)
      return i;
  return -1;
}

/* Parsing state: the file and the error record, the platform under construction. */
typedef struct pctx {
  ss_xml x;
  ss_platform* p;
  int cpu_line;             /* line of the cpu host, 0 if none yet */
  int* route_lines;         /* line of the <route> that defined [src][dst], 0 if none */
  const xmlNode* tray_line; /* the zone's tray_gpus <prop>, NULL if none */
} pctx;

/* Parse a whole positive number no larger than max. */
static int parse_count(const char* s, long max, long* out)
{
  char* end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v <= 0 || v > max)
    return SS_EINPUT;
  *out = v;
  return SS_OK;
}

/* Anything inside n that SimGrid would reject: text, CDATA, and child elements other than those
 * allowed (prop in host and link, disk in host, link_ctn in route; nothing in disk, prop, link_ctn). */
static int leaf_content(pctx* c, const xmlNode* n)
{
  for (const xmlNode* k = n->children; k; k = k->next) {
    if ((k->type == XML_TEXT_NODE && !xmlIsBlankNode(k)) || k->type == XML_CDATA_SECTION_NODE)
      return ss_xml_error(&c->x, k, "<%s>: unexpected text", (const char*)n->name);
    if (k->type != XML_ELEMENT_NODE)
      continue;
    int ok = (ss_xml_is(n, "host") && (ss_xml_is(k, "prop") || ss_xml_is(k, "disk"))) ||
             (ss_xml_is(n, "link") && ss_xml_is(k, "prop")) || (ss_xml_is(n, "route") && ss_xml_is(k, "link_ctn"));
    if (!ok)
      return ss_xml_error(&c->x, k, "<%s>: unsupported element <%s>", (const char*)n->name, (const char*)k->name);
    if (leaf_content(c, k))
      return SS_EINPUT;
  }
  return SS_OK;
}

static int gpu_index(const ss_platform* p, const char* name)
{
  for (int i = 0; i < p->ngpus; i++)
    if (strcmp(p->gpus[i].name, name) == 0)
      return i;
  return -1;
}

static int node_index(const ss_platform* p, const char* name)
{
  if (strcmp(name, "cpu") == 0)
    return p->ngpus;
  for (int k = 0; k < p->nnics; k++)
    if (strcmp(p->nics[k].name, name) == 0)
      return p->ngpus + 1 + k;
  return gpu_index(p, name);
}

static int link_index(const ss_platform* p, const char* name)
{
  for (int i = 0; i < p->nlinks; i++)
    if (strcmp(p->links[i].name, name) == 0)
      return i;
  return -1;
}

/* "gpu<i>" with i a decimal index without leading zeros; returns i or -1. */
static int gpu_name_index(const char* name)
{
  if (strncmp(name, "gpu", 3) != 0 || !name[3] || (name[3] == '0' && name[4]))
    return -1;
  long v = 0;
  for (const char* s = name + 3; *s; s++) {
    if (*s < '0' || *s > '9' || v > 100000)
      return -1;
    v = v * 10 + (*s - '0');
  }
  return (int)v;
}

/* The GB/s property of a host by role (0: the cpu host, 1: a GPU host), and who has it, for errors. */
static const char* const rate_props[2] = {"memcpy_gbytes_per_s", "memory_gbytes_per_s"};
/* The bounds (units.h) in the units of the properties: GB/s, microseconds. */
#define GB_LO (SS_BOUND_BANDWIDTH_LO / 1e9)
#define US_LO (SS_BOUND_LATENCY_LO * 1e6)

static const char* const rate_owners[2] = {"the cpu host", "GPU hosts"};

/* Host n's optional GB/s property of its role as bytes/s in *bytes_per_s: a number in
 * (0, SS_PLATFORM_MAX_GBYTES_PER_S], or 0 when n has none (what names n in errors). The other
 * role's property is an error: it would be ignored. */
static int opt_gbytes_prop(pctx* c, const xmlNode* n, const char* what, int gpu, double* bytes_per_s)
{
  const xmlNode* misplaced = ss_xml_prop(n, rate_props[!gpu]);
  if (misplaced)
    return ss_xml_error(&c->x, misplaced, "%s: property '%s' belongs to %s (this host's is '%s')", what,
                        rate_props[!gpu], rate_owners[!gpu], rate_props[gpu]);
  double gbytes_per_s = 0;
  if (ss_xml_prop(n, rate_props[gpu]) &&
      ss_xml_num_prop(&c->x, n, what, rate_props[gpu], 0, GB_LO, SS_PLATFORM_MAX_GBYTES_PER_S, &gbytes_per_s))
    return SS_EINPUT;
  *bytes_per_s = gbytes_per_s * 1e9;
  return SS_OK;
}

/* The device figures of a GPU host (ss_gpu's tf32_flops .. memory_bytes): property, its unit in SI, the
 * bounds in SI (units.h), whether it counts things. */
typedef struct dev_prop {
  const char* name;
  double unit;
  double lo, hi;
  int whole;
} dev_prop;
enum { DEV_TF32, DEV_FP16, DEV_BF16, DEV_FP8, DEV_FP4, DEV_SMS, DEV_CLOCK, DEV_MEMORY, DEV_COUNT };
static const dev_prop dev_props[DEV_COUNT] = {
    [DEV_TF32] = {"tf32_tflops", 1e12, SS_BOUND_SPEED_LO, SS_BOUND_SPEED_HI, 0},
    [DEV_FP16] = {"fp16_tflops", 1e12, SS_BOUND_SPEED_LO, SS_BOUND_SPEED_HI, 0},
    [DEV_BF16] = {"bf16_tflops", 1e12, SS_BOUND_SPEED_LO, SS_BOUND_SPEED_HI, 0},
    [DEV_FP8] = {"fp8_tflops", 1e12, SS_BOUND_SPEED_LO, SS_BOUND_SPEED_HI, 0},
    [DEV_FP4] = {"fp4_tflops", 1e12, SS_BOUND_SPEED_LO, SS_BOUND_SPEED_HI, 0},
    [DEV_SMS] = {"sm_count", 1, 1, SS_BOUND_COUNT_HI, 1},
    [DEV_CLOCK] = {"boost_mhz", 1e6, SS_BOUND_CLOCK_LO, SS_BOUND_CLOCK_HI, 0},
    [DEV_MEMORY] = {"memory_gib", 1073741824.0, SS_BOUND_SIZE_LO, SS_BOUND_SIZE_HI, 0},
};

/* Host n's device figures into v (SI units; 0 for those it has none of). */
static int device_props(pctx* c, const xmlNode* n, const char* what, double v[DEV_COUNT])
{
  for (int k = 0; k < DEV_COUNT; k++) {
    const dev_prop* d = &dev_props[k];
    double x = 0;
    if (ss_xml_prop(n, d->name) && ss_xml_num_prop(&c->x, n, what, d->name, 0, d->lo / d->unit, d->hi / d->unit, &x))
      return SS_EINPUT;
    if (d->whole && x != (double)(long)x)
      return ss_xml_error(&c->x, ss_xml_prop(n, d->name), "%s property '%s' must be a whole number, got %g", what,
                          d->name, x);
    v[k] = x * d->unit;
  }
  return SS_OK;
}

/* One figure per instance: GPU host n (id) has value v of property name (in the property's unit) where
 * the instance's first GPU has first. */
static int same_on_every_gpu(pctx* c, const xmlNode* n, const char* id, const char* name, double v, double first)
{
  if (c->p->ngpus == 0 || v == first)
    return SS_OK;
  return ss_xml_error(&c->x, n,
                      "host '%s': property '%s' is %g, on %s %g: all GPUs of an instance must have the "
                      "same (0 when absent)",
                      id, name, v, c->p->gpus[0].name, first);
}

static int parse_cpu_host(pctx* c, const xmlNode* n)
{
  static const char* const disk_attrs[] = {"id", "read_bw", "write_bw", NULL};
  ss_platform* p = c->p;
  if (c->cpu_line)
    return ss_xml_error(&c->x, n, "a second cpu host (the first is on line %d)", c->cpu_line);
  c->cpu_line = ss_xml_line(n);
  char* core = ss_xml_attr(n, "core");
  long cores = 1;
  int rc = core ? parse_count(core, 1 << 20, &cores) : SS_OK;
  if (rc)
    ss_xml_error(&c->x, n, "host 'cpu': attribute 'core': expected a positive whole number, got '%s'", core);
  free(core);
  if (rc)
    return rc;
  p->cpu_cores = (int)cores;
  const xmlNode* intf = ss_xml_prop(n, "comm_interference");
  if (intf)
    return ss_xml_error(&c->x, intf,
                        "host 'cpu': property 'comm_interference' belongs to GPU hosts (the "
                        "collectives' share of a GPU)");
  for (int k = 0; k < DEV_COUNT; k++)
    if (ss_xml_prop(n, dev_props[k].name))
      return ss_xml_error(&c->x, ss_xml_prop(n, dev_props[k].name),
                          "host 'cpu': property '%s' belongs to GPU hosts "
                          "(a figure of the device)",
                          dev_props[k].name);
  double shm_gbytes_per_s = 0, shm_latency_us = 0;
  if (ss_xml_quantity(&c->x, n, "speed", SS_UNIT_SPEED, &p->cpu_speed_flops) ||
      opt_gbytes_prop(c, n, "host 'cpu'", 0, &p->memcpy_bytes_per_s) ||
      (ss_xml_prop(n, "shm_gbytes_per_s") && ss_xml_num_prop(&c->x, n, "host 'cpu'", "shm_gbytes_per_s", 0, GB_LO,
                                                             SS_PLATFORM_MAX_GBYTES_PER_S, &shm_gbytes_per_s)) ||
      (ss_xml_prop(n, "shm_latency_us") && ss_xml_num_prop(&c->x, n, "host 'cpu'", "shm_latency_us", 1, US_LO,
                                                           SS_PLATFORM_MAX_SHM_LATENCY_US, &shm_latency_us)))
    return SS_EINPUT;
  p->shm_bytes_per_s = shm_gbytes_per_s * 1e9;
  p->shm_latency_s = shm_latency_us * 1e-6;
  const xmlNode* disk = NULL;
  for (const xmlNode* k = n->children; k; k = k->next)
    if (ss_xml_is(k, "disk")) {
      if (disk)
        return ss_xml_error(&c->x, k, "host 'cpu' has a second <disk> (one is supported)");
      disk = k;
    }
  if (!disk)
    return ss_xml_error(&c->x, n, "host 'cpu' has no <disk>");
  if (ss_xml_check_attrs(&c->x, disk, disk_attrs) || ss_xml_req_attr(&c->x, disk, "id", &p->disk_name) ||
      ss_xml_quantity(&c->x, disk, "read_bw", SS_UNIT_BANDWIDTH, &p->disk_read_bytes_per_s) ||
      ss_xml_quantity(&c->x, disk, "write_bw", SS_UNIT_BANDWIDTH, &p->disk_write_bytes_per_s))
    return SS_EINPUT;
  return SS_OK;
}

/* GPU host n's optional comm_interference into g: a number in [0, SS_MAX_INTERFERENCE], the
 * same on every GPU of the instance (0 when absent), and none on a GPU that computes on the cpu host
 * (no NCCL kernel shares its cores). */
static int interference_prop(pctx* c, const xmlNode* n, const char* id, int on_cpu, ss_gpu* g)
{
  const ss_platform* p = c->p;
  const xmlNode* prop = ss_xml_prop(n, "comm_interference");
  if (prop && on_cpu)
    return ss_xml_error(&c->x, prop,
                        "host '%s': property 'comm_interference' has no effect with compute_on 'cpu' "
                        "(no collective runs on the cores it computes on)",
                        id);
  char what[128];
  snprintf(what, sizeof(what), "host '%s'", id);
  if (prop && ss_xml_num_prop(&c->x, n, what, "comm_interference", 1, SS_BOUND_TINY, SS_MAX_INTERFERENCE,
                              &g->comm_interference))
    return SS_EINPUT;
  return same_on_every_gpu(c, n, id, "comm_interference", g->comm_interference,
                           p->ngpus > 0 ? p->gpus[0].comm_interference : 0);
}

static int parse_gpu_host(pctx* c, const xmlNode* n, const char* id)
{
  ss_platform* p = c->p;
  if (gpu_name_index(id) < 0)
    return ss_xml_error(&c->x, n, "GPU host '%s': GPU hosts must be named gpu0, gpu1, ...", id);
  if (gpu_index(p, id) >= 0)
    return ss_xml_error(&c->x, n, "host '%s' is defined twice", id);
  for (const xmlNode* k = n->children; k; k = k->next)
    if (ss_xml_is(k, "disk"))
      return ss_xml_error(&c->x, k, "GPU host '%s' has a <disk> (disks belong to the cpu host)", id);
  ss_gpu* g = &p->gpus[p->ngpus];
  if (ss_xml_quantity(&c->x, n, "speed", SS_UNIT_SPEED, &g->speed_flops))
    return SS_EINPUT;
  char* core = ss_xml_attr(n, "core");
  int bad_core = core && strcmp(core, "1") != 0;
  free(core);
  if (bad_core)
    return ss_xml_error(&c->x, n, "GPU host '%s': attribute 'core' must be 1 or absent", id);
  char what[128];
  snprintf(what, sizeof(what), "host '%s'", id);
  /* compute_on="cpu": a CPU training process standing for a GPU; its kernels run on the cpu
   * host's cores. Every GPU of an instance computes in the same place. */
  int on_cpu = 0;
  if (ss_xml_prop(n, "compute_on")) {
    char* v = NULL;
    if (ss_xml_req_prop(&c->x, n, what, "compute_on", &v))
      return SS_EINPUT;
    on_cpu = strcmp(v, "cpu") == 0;
    int known = on_cpu || strcmp(v, "gpu") == 0;
    if (!known)
      ss_xml_error(&c->x, n, "host '%s': property 'compute_on' must be 'gpu' or 'cpu', not '%s'", id, v);
    free(v);
    if (!known)
      return SS_EINPUT;
  }
  if (p->ngpus > 0 && on_cpu != p->compute_on_cpu)
    return ss_xml_error(&c->x, n,
                        "host '%s' computes on the %s, %s on the %s: all GPUs of an "
                        "instance must compute in the same place (property 'compute_on')",
                        id, on_cpu ? "cpu" : "gpu", p->gpus[0].name, on_cpu ? "gpu" : "cpu");
  p->compute_on_cpu = on_cpu;
  if (opt_gbytes_prop(c, n, what, 1, &g->memory_bytes_per_s))
    return SS_EINPUT;
  static const char* const cpu_only[] = {"shm_gbytes_per_s", "shm_latency_us"};
  for (int k = 0; k < 2; k++)
    if (ss_xml_prop(n, cpu_only[k]))
      return ss_xml_error(&c->x, ss_xml_prop(n, cpu_only[k]), "%s: property '%s' belongs to the cpu host", what,
                          cpu_only[k]);
  /* One figure per instance, as for compute_on: the copy kernels of every rank take the same time. */
  const ss_gpu* g0 = p->ngpus > 0 ? &p->gpus[0] : g;
  if (same_on_every_gpu(c, n, id, "memory_gbytes_per_s", g->memory_bytes_per_s / 1e9, g0->memory_bytes_per_s / 1e9) ||
      interference_prop(c, n, id, on_cpu, g))
    return SS_EINPUT;
  double dev[DEV_COUNT];
  if (device_props(c, n, what, dev))
    return SS_EINPUT;
  const double dev0[DEV_COUNT] = {g0->tf32_flops, g0->fp16_flops, g0->bf16_flops, g0->fp8_flops,
                                  g0->fp4_flops,  g0->sm_count,   g0->boost_hz,   g0->memory_bytes};
  for (int k = 0; k < DEV_COUNT; k++)
    if (same_on_every_gpu(c, n, id, dev_props[k].name, dev[k] / dev_props[k].unit, dev0[k] / dev_props[k].unit))
      return SS_EINPUT;
  g->tf32_flops = dev[DEV_TF32];
  g->fp16_flops = dev[DEV_FP16];
  g->bf16_flops = dev[DEV_BF16];
  g->fp8_flops = dev[DEV_FP8];
  g->fp4_flops = dev[DEV_FP4];
  g->sm_count = (int)dev[DEV_SMS];
  g->boost_hz = dev[DEV_CLOCK];
  g->memory_bytes = dev[DEV_MEMORY];
  if (ss_xml_req_prop(&c->x, n, what, "gpu_model", &g->model))
    return SS_EINPUT;
  g->name = strdup(id);
  g->line = ss_xml_line(n);
  p->ngpus++;
  return SS_OK;
}

static int parse_host(pctx* c, const xmlNode* n)
{
  static const char* const host_attrs[] = {"id", "speed", "core", NULL};
  char* id = NULL;
  char* role = NULL;
  static const char* const host_props[] = {"role",
                                           "gpu_model",
                                           "compute_on",
                                           "memory_gbytes_per_s",
                                           "memcpy_gbytes_per_s",
                                           "shm_gbytes_per_s",
                                           "shm_latency_us",
                                           "comm_interference",
                                           "tf32_tflops",
                                           "fp16_tflops",
                                           "bf16_tflops",
                                           "fp8_tflops",
                                           "fp4_tflops",
                                           "sm_count",
                                           "boost_mhz",
                                           "memory_gib",
                                           NULL};
  if (ss_xml_check_attrs(&c->x, n, host_attrs) || ss_xml_check_props(&c->x, n, host_props) ||
      ss_xml_req_attr(&c->x, n, "id", &id))
    return SS_EINPUT;
  char what[128];
  snprintf(what, sizeof(what), "host '%s'", id);
  int rc = ss_xml_req_prop(&c->x, n, what, "role", &role);
  if (!rc && strcmp(role, "cpu") == 0) {
    rc = strcmp(id, "cpu") == 0 ? parse_cpu_host(c, n)
                                : ss_xml_error(&c->x, n, "the cpu host must be named 'cpu', not '%s'", id);
  } else if (!rc && strcmp(role, "gpu") == 0) {
    rc = parse_gpu_host(c, n, id);
  } else if (!rc) {
    rc = ss_xml_error(&c->x, n, "host '%s': property 'role' must be 'cpu' or 'gpu', not '%s'", id, role);
  }
  free(id);
  free(role);
  return rc;
}

/* SimGrid names the two directions of a SPLITDUPLEX link X "X_UP" and "X_DOWN": a link of that name
 * besides X makes SimGrid abort on the duplicate. l is the link just read, the others come before it. */
static int split_name_clash(pctx* c, const ss_link* l)
{
  static const char* const dirs[] = {"_UP", "_DOWN"};
  const ss_platform* p = c->p;
  size_t len = strlen(l->name);
  for (int i = 0; i < p->nlinks - 1; i++) {
    const ss_link* o = &p->links[i];
    size_t olen = strlen(o->name);
    for (int d = 0; d < 2; d++) {
      size_t dl = strlen(dirs[d]);
      /* l is o's direction, or o is l's. */
      const ss_link* split = NULL;
      const ss_link* other = NULL;
      if (o->sharing == SS_SHARING_SPLITDUPLEX && len == olen + dl && strncmp(l->name, o->name, olen) == 0 &&
          strcmp(l->name + olen, dirs[d]) == 0) {
        split = o;
        other = l;
      } else if (l->sharing == SS_SHARING_SPLITDUPLEX && olen == len + dl && strncmp(o->name, l->name, len) == 0 &&
                 strcmp(o->name + len, dirs[d]) == 0) {
        split = l;
        other = o;
      }
      if (split)
        return ss_err_set(c->x.err, c->x.file, other->line,
                          "link '%s' has the name of a direction of the SPLITDUPLEX link '%s' (line %d): rename it",
                          other->name, split->name, split->line);
    }
  }
  return SS_OK;
}

static int parse_link(pctx* c, const xmlNode* n)
{
  static const char* const link_attrs[] = {"id", "bandwidth", "latency", "sharing_policy", NULL};
  ss_platform* p = c->p;
  ss_link* l = &p->links[p->nlinks];
  char* policy = NULL;
  char* cls = NULL;
  static const char* const link_props[] = {"class", NULL};
  if (ss_xml_check_attrs(&c->x, n, link_attrs) || ss_xml_check_props(&c->x, n, link_props) ||
      ss_xml_req_attr(&c->x, n, "id", &l->name))
    return SS_EINPUT;
  l->line = ss_xml_line(n);
  p->nlinks++; /* owned from here on, freed with the platform */
  int dup = link_index(p, l->name);
  if (dup != p->nlinks - 1)
    return ss_err_set(c->x.err, c->x.file, l->line, "link '%s' is defined twice (first on line %d)", l->name,
                      p->links[dup].line);
  if (ss_xml_quantity(&c->x, n, "bandwidth", SS_UNIT_BANDWIDTH, &l->bandwidth_bytes_per_s) ||
      ss_xml_quantity(&c->x, n, "latency", SS_UNIT_LATENCY, &l->latency_s))
    return SS_EINPUT;
  policy = ss_xml_attr(n, "sharing_policy");
  int sharing = policy ? name_index(policy, sharing_names, 3) : SS_SHARING_SHARED;
  int rc = SS_OK;
  if (sharing < 0)
    rc = ss_err_set(c->x.err, c->x.file, l->line,
                    "link '%s': sharing_policy must be SHARED, SPLITDUPLEX or FATPIPE, not '%s'", l->name, policy);
  else
    l->sharing = (ss_sharing)sharing;
  if (!rc)
    rc = split_name_clash(c, l);
  char what[160];
  snprintf(what, sizeof(what), "link '%s'", l->name);
  if (!rc)
    rc = ss_xml_req_prop(&c->x, n, what, "class", &cls);
  /* Class shm is the simulator's own (transport.c), not a file's. */
  int found = rc ? -1 : name_index(cls, link_class_names, SS_LINK_SHM);
  if (!rc && found < 0)
    rc = ss_err_set(c->x.err, c->x.file, l->line,
                    "link '%s': property 'class' must be nvlink, nvswitch, pcie, socket or nic, not '%s'", l->name,
                    cls);
  else if (!rc)
    l->cls = (ss_link_class)found;
  free(policy);
  free(cls);
  return rc;
}

static ss_route* route_at(const ss_platform* p, int a, int b)
{
  return &p->routes[a * p->nnodes + b];
}

/* Store hops as the route a->b and, when symmetric, the reversed hops (opposite directions) as b->a. */
static int store_route(pctx* c, const xmlNode* n, int a, int b, const ss_hop* hops, int nhops, int symmetric)
{
  ss_platform* p = c->p;
  int hosts = p->nnodes;
  for (int pass = 0; pass < (symmetric ? 2 : 1); pass++) {
    int s = pass ? b : a, d = pass ? a : b;
    int* seen = &c->route_lines[s * hosts + d];
    if (*seen)
      return ss_xml_error(&c->x, n, "a second route from '%s' to '%s' (the first is on line %d)",
                          ss_platform_node_name(p, s), ss_platform_node_name(p, d), *seen);
    *seen = ss_xml_line(n);
    ss_route* r = route_at(p, s, d);
    r->hops = malloc(sizeof(ss_hop) * (size_t)nhops);
    if (!r->hops)
      return SS_ENOMEM;
    r->nhops = nhops;
    for (int i = 0; i < nhops; i++) {
      r->hops[i] = pass ? hops[nhops - 1 - i] : hops[i];
      if (pass && r->hops[i].dir >= 0)
        r->hops[i].dir = 1 - r->hops[i].dir;
    }
  }
  return SS_OK;
}

static int parse_route(pctx* c, const xmlNode* n)
{
  static const char* const route_attrs[] = {"src", "dst", "symmetrical", NULL};
  static const char* const ctn_attrs[] = {"id", "direction", NULL};
  ss_platform* p = c->p;
  char *src = NULL, *dst = NULL, *sym = NULL;
  ss_hop* hops = NULL;
  int nhops = 0, rc = SS_EINPUT;
  if (ss_xml_check_attrs(&c->x, n, route_attrs) || ss_xml_req_attr(&c->x, n, "src", &src) ||
      ss_xml_req_attr(&c->x, n, "dst", &dst))
    goto out;
  int a = node_index(p, src), b = node_index(p, dst);
  if (a < 0 || b < 0) {
    ss_xml_error(&c->x, n, "route: unknown host '%s'", a < 0 ? src : dst);
    goto out;
  }
  if (a > p->ngpus && b > p->ngpus) {
    ss_xml_error(&c->x, n, "route between two NIC routers ('%s' and '%s')", src, dst);
    goto out;
  }
  if (a == b) {
    ss_xml_error(&c->x, n, "route from '%s' to itself", src);
    goto out;
  }
  sym = ss_xml_attr(n, "symmetrical");
  if (sym && strcmp(sym, "YES") != 0 && strcmp(sym, "NO") != 0) {
    ss_xml_error(&c->x, n, "route: symmetrical must be YES or NO, not '%s'", sym);
    goto out;
  }
  int count = 0;
  for (const xmlNode* k = n->children; k; k = k->next)
    count += k->type == XML_ELEMENT_NODE;
  hops = calloc((size_t)count + 1, sizeof(ss_hop));
  if (!hops) {
    rc = SS_ENOMEM;
    goto out;
  }
  for (const xmlNode* k = n->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE)
      continue;
    char *id = NULL, *dir = NULL;
    if (ss_xml_check_attrs(&c->x, k, ctn_attrs) || ss_xml_req_attr(&c->x, k, "id", &id))
      goto out;
    int li = link_index(p, id);
    dir = ss_xml_attr(k, "direction");
    if (li < 0)
      ss_xml_error(&c->x, k, "route from '%s' to '%s': unknown link '%s'", src, dst, id);
    else if (p->links[li].sharing == SS_SHARING_SPLITDUPLEX && (!dir || (strcmp(dir, "UP") && strcmp(dir, "DOWN"))))
      ss_xml_error(&c->x, k, "route: SPLITDUPLEX link '%s' needs direction=\"UP\" or \"DOWN\"", id);
    else if (p->links[li].sharing != SS_SHARING_SPLITDUPLEX && dir)
      ss_xml_error(&c->x, k, "route: link '%s' is not SPLITDUPLEX and takes no direction", id);
    else
      for (int h = 0; h < nhops; h++)
        if (hops[h].link == li) {
          ss_xml_error(&c->x, k, "route from '%s' to '%s' crosses link '%s' twice (a route is a path, without loops)",
                       src, dst, id);
          break;
        }
    if (!ss_err_isset(c->x.err))
      hops[nhops++] = (ss_hop){li, dir ? (strcmp(dir, "UP") == 0 ? 0 : 1) : -1};
    free(id);
    free(dir);
    if (ss_err_isset(c->x.err))
      goto out;
  }
  if (nhops == 0) {
    ss_xml_error(&c->x, n, "route from '%s' to '%s' has no link", src, dst);
    goto out;
  }
  /* A route to or from a NIC router goes through that NIC's link. */
  int nic = a > p->ngpus ? a : b > p->ngpus ? b : -1;
  if (nic >= 0) {
    int li = p->nics[nic - p->ngpus - 1].link, found = 0;
    for (int i = 0; i < nhops; i++)
      found |= hops[i].link == li;
    if (!found) {
      ss_xml_error(&c->x, n, "route from '%s' to '%s' does not use the NIC's link '%s'", src, dst, p->links[li].name);
      goto out;
    }
  }
  rc = store_route(c, n, a, b, hops, nhops, !sym || strcmp(sym, "YES") == 0);
out:
  free(src);
  free(dst);
  free(sym);
  free(hops);
  return rc;
}

/* The zone's optional property name, one of the n names: *index is 1 + its place, 0 when absent. */
static int zone_enum_prop(pctx* c, const xmlNode* z, const char* name, const char* const* names, int n, int* index)
{
  if (!ss_xml_prop(z, name))
    return SS_OK;
  char* v = NULL;
  if (ss_xml_req_prop(&c->x, z, "the zone", name, &v))
    return SS_EINPUT;
  int k = name_index(v, names, n);
  if (k < 0) {
    char list[128] = "";
    for (int i = 0; i < n; i++)
      snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s'%s'",
               i == 0      ? ""
               : i + 1 < n ? ", "
                           : " or ",
               names[i]);
    ss_xml_error(&c->x, ss_xml_prop(z, name), "the zone property '%s' must be %s, not '%s'", name, list, v);
  }
  free(v);
  *index = k + 1;
  return k < 0 ? SS_EINPUT : SS_OK;
}

/* The network transport of the zone and its optional figures (net.c has the defaults). */
static int parse_net_props(pctx* c, const xmlNode* z)
{
  ss_platform* p = c->p;
  const char* what = "the zone";
  char* name = NULL;
  p->net_transport = SS_NET_OFF;
  p->net_line_fraction = p->net_message_us = -1;
  if (ss_xml_prop(z, "net_transport")) {
    if (ss_xml_req_prop(&c->x, z, what, "net_transport", &name))
      return SS_EINPUT;
    int t = ss_net_file_transport(name);
    if (t < 0) {
      ss_xml_error(&c->x, ss_xml_prop(z, "net_transport"),
                   "the zone property 'net_transport' must be socket, ib or efa, not '%s'", name);
      free(name);
      return SS_EINPUT;
    }
    free(name);
    p->net_transport = (ss_net_transport)t;
  }
  static const char* const figures[] = {"net_line_fraction", "net_message_us", "efa_version"};
  for (int k = 0; k < 3; k++)
    if (ss_xml_prop(z, figures[k]) && p->net_transport == SS_NET_OFF)
      return ss_xml_error(&c->x, ss_xml_prop(z, figures[k]),
                          "the zone property '%s' needs 'net_transport' (it is a figure of that transport)",
                          figures[k]);
  if ((ss_xml_prop(z, "net_line_fraction") &&
       ss_xml_num_prop(&c->x, z, what, "net_line_fraction", 0, SS_BOUND_RATIO_LO, 1, &p->net_line_fraction)) ||
      (ss_xml_prop(z, "net_message_us") &&
       ss_xml_num_prop(&c->x, z, what, "net_message_us", 1, US_LO, SS_NET_MAX_MESSAGE_US, &p->net_message_us)))
    return SS_EINPUT;
  double v = 0;
  if (ss_xml_prop(z, "efa_version")) {
    if (p->net_transport != SS_NET_EFA)
      return ss_xml_error(&c->x, ss_xml_prop(z, "efa_version"),
                          "the zone property 'efa_version' is a figure of EFA: it needs net_transport efa");
    if (ss_xml_num_prop(&c->x, z, what, "efa_version", 0, 1, SS_NET_EFA_VERSIONS, &v))
      return SS_EINPUT;
    if (v != (int)v)
      return ss_xml_error(&c->x, ss_xml_prop(z, "efa_version"),
                          "the zone property 'efa_version' must be a whole number");
  }
  p->efa_version = (int)v;
  return SS_OK;
}

static int parse_zone_props(pctx* c, const xmlNode* z)
{
  ss_platform* p = c->p;
  const char* what = "the zone";
  double vcpus = 0;
  static const char* const zone_props[] = {
      "instance_type",  "price_usd_per_h", "price_kind", "vcpus",         "memory_gib",
      "network_gbps",   "cpu_vendor",      "pci_view",   "net_transport", "net_line_fraction",
      "net_message_us", "efa_version",     "nic_vendor", "tray_gpus",     NULL};
  if (ss_xml_check_props(&c->x, z, zone_props) || ss_xml_req_prop(&c->x, z, what, "instance_type", &p->instance_type) ||
      ss_xml_num_prop(&c->x, z, what, "price_usd_per_h", 1, SS_BOUND_PRICE_LO, SS_BOUND_PRICE_HI,
                      &p->price_usd_per_h) ||
      ss_xml_num_prop(&c->x, z, what, "vcpus", 0, 1, 1 << 20, &vcpus) ||
      ss_xml_num_prop(&c->x, z, what, "memory_gib", 0, 1e-6, 1e9, &p->memory_gib) ||
      ss_xml_num_prop(&c->x, z, what, "network_gbps", 0, SS_BOUND_BANDWIDTH_LO * 8 / 1e9,
                      SS_BOUND_BANDWIDTH_HI * 8 / 1e9, &p->network_gbps))
    return SS_EINPUT;
  if (vcpus != (int)vcpus)
    return ss_xml_error(&c->x, ss_xml_prop(z, "vcpus"), "the zone property 'vcpus' must be a whole number");
  p->vcpus = (int)vcpus;
  static const char* const vendors[] = {"intel", "amd", "arm"};
  static const char* const views[] = {"physical", "flat"};
  int vendor = 0, view = 0;
  if (zone_enum_prop(c, z, "cpu_vendor", vendors, 3, &vendor) || zone_enum_prop(c, z, "pci_view", views, 2, &view))
    return SS_EINPUT;
  p->cpu_vendor = (ss_cpu_vendor)vendor; /* 0 when absent: SS_CPU_UNKNOWN; intel is 1 */
  int nic = 0;
  if (zone_enum_prop(c, z, "nic_vendor", ss_nic_vendor_names, SS_NIC_VENDOR_COUNT, &nic))
    return SS_EINPUT;
  p->nic_vendor = nic > 0 ? (ss_nic_vendor)(nic - 1) : SS_NIC_OTHER;
  p->pci_flat = view == 2;
  /* price_kind: how price_usd_per_h is bought (purchase.h; on-demand when absent). */
  int kind = 0;
  if (zone_enum_prop(c, z, "price_kind", ss_purchase_names + 1, SS_PURCHASE_COUNT - 1, &kind))
    return SS_EINPUT;
  p->price_kind = kind > 0 ? (ss_purchase)kind : SS_PURCHASE_ON_DEMAND;
  /* tray_gpus: the GPUs of a tray of a rack-scale NVLink domain (an UltraServer); checked against the
   * GPUs once they are read. */
  double tray = 0;
  c->tray_line = ss_xml_prop(z, "tray_gpus");
  if (c->tray_line && ss_xml_num_prop(&c->x, z, what, "tray_gpus", 0, 1, SS_PLATFORM_MAX_GPUS, &tray))
    return SS_EINPUT;
  if (tray != (int)tray)
    return ss_xml_error(&c->x, c->tray_line, "the zone property 'tray_gpus' must be a whole number");
  p->tray_gpus = (int)tray;
  return parse_net_props(c, z);
}

/* <router id="X"/>: the NIC whose class-nic link is named X. */
static int parse_router(pctx* c, const xmlNode* n)
{
  static const char* const router_attrs[] = {"id", NULL};
  ss_platform* p = c->p;
  ss_nic* k = &p->nics[p->nnics];
  if (ss_xml_check_attrs(&c->x, n, router_attrs) || ss_xml_req_attr(&c->x, n, "id", &k->name))
    return SS_EINPUT;
  k->line = ss_xml_line(n);
  p->nnics++; /* owned from here on */
  for (int i = 0; i < p->nnics - 1; i++)
    if (strcmp(p->nics[i].name, k->name) == 0)
      return ss_err_set(c->x.err, c->x.file, k->line, "router '%s' is defined twice (first on line %d)", k->name,
                        p->nics[i].line);
  if (strcmp(k->name, "cpu") == 0 || gpu_index(p, k->name) >= 0)
    return ss_err_set(c->x.err, c->x.file, k->line, "router '%s' has the name of a host", k->name);
  k->link = link_index(p, k->name);
  if (k->link < 0 || p->links[k->link].cls != SS_LINK_NIC)
    return ss_err_set(c->x.err, c->x.file, k->line,
                      "router '%s': routers stand for NICs and need a link of class nic with the same name", k->name);
  return SS_OK;
}

static int same_route(const ss_route* x, const ss_route* y)
{
  if (x->nhops != y->nhops)
    return 0;
  for (int h = 0; h < x->nhops; h++)
    if (x->hops[h].link != y->hops[h].link || x->hops[h].dir != y->hops[h].dir)
      return 0;
  return 1;
}

/* Walk the zone: count, then hosts, then links, then routes (routes refer to both). */
static int parse_zone(pctx* c, const xmlNode* z)
{
  static const char* const zone_attrs[] = {"id", "routing", NULL};
  ss_platform* p = c->p;
  char* routing = NULL;
  if (ss_xml_check_attrs(&c->x, z, zone_attrs) || ss_xml_req_attr(&c->x, z, "id", &p->zone_id) ||
      ss_xml_req_attr(&c->x, z, "routing", &routing))
    return SS_EINPUT;
  int full = strcmp(routing, "Full") == 0;
  free(routing);
  if (!full)
    return ss_xml_error(&c->x, z, "zone '%s': routing must be \"Full\" (explicit routes)", p->zone_id);
  if (parse_zone_props(c, z))
    return SS_EINPUT;
  int nhosts = 0, nlinks = 0, nrouters = 0, seen_host_or_link = 0, seen_route = 0;
  for (const xmlNode* k = z->children; k; k = k->next) {
    if (k->type == XML_TEXT_NODE && !xmlIsBlankNode(k))
      return ss_xml_error(&c->x, k, "zone '%s': unexpected text", p->zone_id);
    if (k->type == XML_CDATA_SECTION_NODE)
      return ss_xml_error(&c->x, k, "zone '%s': unexpected CDATA section", p->zone_id);
    if (k->type != XML_ELEMENT_NODE)
      continue;
    /* SimGrid reads in one pass: zone properties first, then hosts and links, then routes. */
    if (ss_xml_is(k, "prop") && (seen_host_or_link || seen_route))
      return ss_xml_error(&c->x, k, "zone '%s': <prop> must come before hosts, links and routes", p->zone_id);
    int node = ss_xml_is(k, "host") || ss_xml_is(k, "link") || ss_xml_is(k, "router");
    if (node && seen_route)
      return ss_xml_error(&c->x, k, "zone '%s': <%s> must come before the routes", p->zone_id, (const char*)k->name);
    seen_host_or_link |= node;
    seen_route |= ss_xml_is(k, "route");
    if (!node && !ss_xml_is(k, "route") && !ss_xml_is(k, "prop"))
      return ss_xml_error(&c->x, k, "zone '%s': unsupported element <%s>", p->zone_id, (const char*)k->name);
    if (leaf_content(c, k))
      return SS_EINPUT;
    nhosts += ss_xml_is(k, "host");
    nlinks += ss_xml_is(k, "link");
    nrouters += ss_xml_is(k, "router");
    /* The routes are a matrix over the hosts and routers, and names are looked up by scanning. */
    int most = nhosts > SS_PLATFORM_MAX_GPUS + 1 ? SS_PLATFORM_MAX_GPUS + 1
               : nlinks > SS_PLATFORM_MAX_LINKS  ? SS_PLATFORM_MAX_LINKS
               : nrouters > SS_PLATFORM_MAX_NICS ? SS_PLATFORM_MAX_NICS
                                                 : 0;
    if (most)
      return ss_xml_error(&c->x, k, "zone '%s': more than %d <%s> elements (the most an instance may have)", p->zone_id,
                          most, (const char*)k->name);
  }
  p->gpus = calloc((size_t)nhosts + 1, sizeof(ss_gpu));
  p->links = calloc((size_t)nlinks + 1, sizeof(ss_link));
  p->nics = calloc((size_t)nrouters + 1, sizeof(ss_nic));
  if (!p->gpus || !p->links || !p->nics)
    return SS_ENOMEM;
  for (const xmlNode* k = z->children; k; k = k->next)
    if (ss_xml_is(k, "host") && parse_host(c, k))
      return SS_EINPUT;
  if (!c->cpu_line)
    return ss_xml_error(&c->x, z, "zone '%s' has no cpu host (a host with property role=cpu)", p->zone_id);
  if (p->ngpus == 0)
    return ss_xml_error(&c->x, z, "zone '%s' has no GPU (a host with property role=gpu)", p->zone_id);
  if (p->tray_gpus > 0 && p->ngpus % p->tray_gpus != 0)
    return ss_xml_error(&c->x, c->tray_line,
                        "the zone property 'tray_gpus' (%d) must divide the instance's %d GPUs: trays are whole",
                        p->tray_gpus, p->ngpus);
  for (int i = 0; i < p->ngpus; i++)
    if (gpu_name_index(p->gpus[i].name) >= p->ngpus)
      return ss_err_set(c->x.err, c->x.file, p->gpus[i].line,
                        "zone '%s': GPU '%s' but only %d GPUs (name them gpu0..gpu%d)", p->zone_id, p->gpus[i].name,
                        p->ngpus, p->ngpus - 1);
  /* Names are unique and all below ngpus, so they are exactly gpu0..gpuN-1: put gpu<i> at index i. */
  for (int i = 0; i < p->ngpus; i++)
    while (gpu_name_index(p->gpus[i].name) != i) {
      int j = gpu_name_index(p->gpus[i].name);
      ss_gpu t = p->gpus[i];
      p->gpus[i] = p->gpus[j];
      p->gpus[j] = t;
    }
  for (const xmlNode* k = z->children; k; k = k->next)
    if (ss_xml_is(k, "link") && parse_link(c, k))
      return SS_EINPUT;
  for (const xmlNode* k = z->children; k; k = k->next)
    if (ss_xml_is(k, "router") && parse_router(c, k))
      return SS_EINPUT;
  int hosts = p->ngpus + 1;
  p->nnodes = hosts + p->nnics;
  p->routes = calloc((size_t)(p->nnodes * p->nnodes), sizeof(ss_route));
  c->route_lines = calloc((size_t)(p->nnodes * p->nnodes), sizeof(int));
  if (!p->routes || !c->route_lines)
    return SS_ENOMEM;
  for (const xmlNode* k = z->children; k; k = k->next)
    if (ss_xml_is(k, "route")) {
      int rc = parse_route(c, k);
      if (rc)
        return rc;
    }
  for (int a = 0; a < hosts; a++)
    for (int b = 0; b < hosts; b++)
      if (a != b && route_at(p, a, b)->nhops == 0)
        return ss_xml_error(&c->x, z, "zone '%s' has no route from '%s' to '%s'", p->zone_id,
                            ss_platform_node_name(p, a), ss_platform_node_name(p, b));
  /* Two GPUs that the cpu reaches the same way have no PCIe path between them (--no-nvlink). */
  for (int a = 0; a < p->ngpus; a++)
    for (int b = a + 1; b < p->ngpus; b++)
      if (same_route(route_at(p, hosts - 1, a), route_at(p, hosts - 1, b)))
        return ss_err_set(c->x.err, c->x.file, c->route_lines[(hosts - 1) * p->nnodes + b],
                          "zone '%s': the routes from 'cpu' to '%s' (line %d) and to '%s' are the same: each GPU "
                          "needs a link of its own",
                          p->zone_id, p->gpus[a].name, c->route_lines[(hosts - 1) * p->nnodes + a], p->gpus[b].name);
  for (int g = 0; g < p->ngpus && p->nnics; g++)
    if (ss_platform_gpu_nic(p, g) < 0 || route_at(p, ss_platform_nic_node(p, ss_platform_gpu_nic(p, g)), g)->nhops == 0)
      return ss_xml_error(&c->x, z, "zone '%s': '%s' has no route to and from a NIC router", p->zone_id,
                          p->gpus[g].name);
  return SS_OK;
}

static int parse_document(pctx* c, const xmlDoc* doc)
{
  /* SimGrid's own parser requires <!DOCTYPE platform ...> and knows no internal subset. */
  const xmlDtd* dtd = doc->intSubset;
  if (!dtd || !dtd->name || strcmp((const char*)dtd->name, "platform") != 0)
    return ss_err_set(c->x.err, c->x.file, 1,
                      "expected <!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">");
  if (dtd->children)
    return ss_xml_error(&c->x, (const xmlNode*)dtd, "the DOCTYPE must not have an internal subset");
  const xmlNode* root = xmlDocGetRootElement(doc);
  if (root && ss_xml_check_namespaces(&c->x, root))
    return SS_EINPUT;
  if (!root || !ss_xml_is(root, "platform"))
    return ss_err_set(c->x.err, c->x.file, root ? ss_xml_line(root) : 1, "the root element must be <platform>");
  char* version = ss_xml_attr(root, "version");
  int ok_version = version && strcmp(version, "4.1") == 0;
  free(version);
  if (!ok_version)
    return ss_xml_error(&c->x, root, "<platform> must have version=\"4.1\"");
  static const char* const platform_attrs[] = {"version", NULL};
  if (ss_xml_check_attrs(&c->x, root, platform_attrs))
    return SS_EINPUT;
  const xmlNode* zone = NULL;
  for (const xmlNode* k = root->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE)
      continue;
    if (!ss_xml_is(k, "zone"))
      return ss_xml_error(&c->x, k, "<platform>: unsupported element <%s> (expected one <zone>)", (const char*)k->name);
    if (zone)
      return ss_xml_error(&c->x, k, "<platform> has a second <zone> (one instance per file)");
    zone = k;
  }
  if (!zone)
    return ss_xml_error(&c->x, root, "<platform> has no <zone>");
  return parse_zone(c, zone);
}

int ss_platform_load(const char* path, ss_platform** out, ss_err* err)
{
  int fd = ss_infile_open(path, "platform file", SS_INFILE_MAX_PLATFORM, err);
  if (fd < 0)
    return fd;
  unsigned char magic[2] = {0, 0};
  ssize_t got = read(fd, magic, sizeof(magic));
  close(fd);
  if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b)
    return ss_err_set(err, path, 0, "platform files cannot be compressed (SimGrid reads plain XML)");
  ss_platform* p = calloc(1, sizeof(*p));
  if (!p)
    return SS_ENOMEM;
  p->path = strdup(path);
  p->memo = ss_memo_new();
  pctx c = {.x = {path, err}, .p = p};
  xmlDoc* doc = NULL;
  int rc = ss_xml_read(&c.x, &doc);
  if (!rc)
    rc = parse_document(&c, doc);
  xmlFreeDoc(doc);
  free(c.route_lines);
  rc = ss_err_nomem_if(err, rc);
  return SS_HAND_OUT(rc, p, out, ss_platform_free);
}

void ss_platform_free(ss_platform* p)
{
  if (!p)
    return;
  for (int i = 0; i < p->ngpus; i++)
    SS_FREE_ALL(p->gpus[i].name, p->gpus[i].model);
  for (int i = 0; i < p->nlinks; i++)
    free(p->links[i].name);
  if (p->routes)
    for (int i = 0; i < p->nnodes * p->nnodes; i++)
      free(p->routes[i].hops);
  for (int k = 0; k < p->nnics; k++)
    free(p->nics[k].name);
  SS_FREE_ALL(p->nics, p->routes, p->nccl_paths, p->gpus, p->links, p->path, p->zone_id, p->instance_type,
              p->disk_name);
  ss_memo_free(p->memo);
  free(p);
}

/* Whether a route crosses an NVLink or NVSwitch link. */
static int crosses_nvlink(const ss_platform* p, const ss_route* r)
{
  for (int h = 0; h < r->nhops; h++) {
    ss_link_class c = p->links[r->hops[h].link].cls;
    if (c == SS_LINK_NVLINK || c == SS_LINK_NVSWITCH)
      return 1;
  }
  return 0;
}

int ss_platform_drop_nvlink(ss_platform* p)
{
  int cpu = ss_platform_cpu(p);
  ss_memo_clear(p->memo);
  for (int a = 0; a < p->ngpus; a++)
    for (int b = 0; b < p->ngpus; b++) {
      ss_route* r = &p->routes[a * p->nnodes + b];
      if (a == b || !crosses_nvlink(p, r))
        continue;
      /* Peer to peer over PCIe: up from a to the first switch it shares with b, down to b; that is
       * the routes from the CPU to both, without their common beginning. */
      const ss_route* ra = route_at(p, cpu, a);
      const ss_route* rb = route_at(p, cpu, b);
      int k = 0;
      while (k < ra->nhops && k < rb->nhops && ra->hops[k].link == rb->hops[k].link &&
             ra->hops[k].dir == rb->hops[k].dir)
        k++;
      int n = ra->nhops - k + rb->nhops - k;
      ss_hop* hops = malloc(sizeof(ss_hop) * (size_t)(n > 0 ? n : 1));
      if (!hops)
        return SS_ENOMEM;
      int m = 0;
      for (int h = ra->nhops - 1; h >= k; h--)
        hops[m++] = (ss_hop){ra->hops[h].link, ra->hops[h].dir >= 0 ? 1 - ra->hops[h].dir : -1};
      for (int h = k; h < rb->nhops; h++)
        hops[m++] = rb->hops[h];
      free(r->hops);
      r->hops = hops;
      r->nhops = n;
    }
  return SS_OK;
}

int ss_platform_cpu(const ss_platform* p)
{
  return p->ngpus;
}

const ss_route* ss_platform_route(const ss_platform* p, int a, int b)
{
  ss_assert(a >= 0 && a < p->nnodes && b >= 0 && b < p->nnodes);
  return route_at(p, a, b);
}

int ss_platform_nic_node(const ss_platform* p, int k)
{
  ss_assert(k >= 0 && k < p->nnics);
  return p->ngpus + 1 + k;
}

int ss_platform_gpu_nic(const ss_platform* p, int g)
{
  for (int k = 0; k < p->nnics; k++)
    if (route_at(p, g, ss_platform_nic_node(p, k))->nhops)
      return k;
  return -1;
}

const char* ss_platform_node_name(const ss_platform* p, int i)
{
  ss_assert(i >= 0 && i < p->nnodes);
  return i < p->ngpus ? p->gpus[i].name : i == p->ngpus ? "cpu" : p->nics[i - p->ngpus - 1].name;
}

double ss_platform_route_bandwidth(const ss_platform* p, int a, int b)
{
  const ss_route* r = ss_platform_route(p, a, b);
  double bw = r->nhops ? p->links[r->hops[0].link].bandwidth_bytes_per_s : 0;
  for (int i = 1; i < r->nhops; i++)
    if (p->links[r->hops[i].link].bandwidth_bytes_per_s < bw)
      bw = p->links[r->hops[i].link].bandwidth_bytes_per_s;
  return bw;
}

int ss_platform_route_all(const ss_platform* p, int a, int b, ss_link_class cls)
{
  const ss_route* r = ss_platform_route(p, a, b);
  for (int i = 0; i < r->nhops; i++)
    if (p->links[r->hops[i].link].cls != cls)
      return 0;
  return r->nhops > 0;
}
