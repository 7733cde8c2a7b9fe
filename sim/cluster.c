/* cluster: compose the SimGrid platform of a job from its instance file. */
#include "cluster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Link l at its line rate: the file's, or --nic-gbps split over the NICs for a NIC link. */
static double line_bandwidth(const ss_job* j, int l)
{
  const ss_platform* p = j->platform;
  const ss_link* k = &p->links[l];
  if (k->cls == SS_LINK_NIC && j->opt.nic_gbps > 0 && p->nnics > 0)
    return j->opt.nic_gbps * 1e9 / 8 / p->nnics;
  return k->bandwidth_bytes_per_s;
}

/* Link l's own latency: the file's, or --nic-latency-us for a NIC link. */
static double wire_latency(const ss_job* j, int l)
{
  const ss_link* k = &j->platform->links[l];
  if (k->cls == SS_LINK_NIC && j->opt.nic_latency_us >= 0)
    return j->opt.nic_latency_us * 1e-6;
  return k->latency_s;
}

double ss_cluster_link_bandwidth(const ss_job* j, int l)
{
  double bw = line_bandwidth(j, l);
  return j->platform->links[l].cls == SS_LINK_NIC ? bw * j->net.line_fraction : bw;
}

double ss_cluster_link_latency(const ss_job* j, int l)
{
  /* A message between instances leaves by one NIC link and enters by another: half of the
   * transport's cost per message on each, so that every message pays it once. */
  double lat = wire_latency(j, l);
  return j->platform->links[l].cls == SS_LINK_NIC ? lat + j->net.message_us * 1e-6 / 2 : lat;
}

double ss_cluster_nic_line_bandwidth(const ss_job* j)
{
  double bw = 0;
  for (int k = 0; k < j->platform->nnics; k++)
    bw += line_bandwidth(j, j->platform->nics[k].link);
  return bw;
}

double ss_cluster_nic_wire_latency(const ss_job* j)
{
  return j->platform->nnics ? wire_latency(j, j->platform->nics[0].link) : 0;
}

/* The route from node a to node b of the instance file (both directions are resolved there). */
static const ss_route* route(const ss_job* j, int a, int b)
{
  return ss_platform_route(j->platform, a, b);
}

static int gpu_nic_node(const ss_job* j, int g)
{
  int k = ss_platform_gpu_nic(j->platform, g);
  ss_assert(k >= 0);
  return ss_platform_nic_node(j->platform, k);
}

static double path_latency(const ss_job* j, const ss_route* r)
{
  double lat = 0;
  for (int i = 0; i < r->nhops; i++)
    lat += ss_cluster_link_latency(j, r->hops[i].link);
  return lat;
}

static double path_bandwidth(const ss_job* j, const ss_route* r, double bw)
{
  for (int i = 0; i < r->nhops; i++) {
    double b = ss_cluster_link_bandwidth(j, r->hops[i].link);
    if (b < bw)
      bw = b;
  }
  return bw;
}

double ss_cluster_route_latency(const ss_job* j, int a, int b)
{
  return path_latency(j, route(j, a, b));
}

double ss_cluster_nic_bandwidth(const ss_job* j)
{
  double bw = 0;
  for (int k = 0; k < j->platform->nnics; k++)
    bw += ss_cluster_link_bandwidth(j, j->platform->nics[k].link);
  return bw;
}

double ss_cluster_cross_latency(const ss_job* j, int a, int b)
{
  return path_latency(j, route(j, a, gpu_nic_node(j, a))) + path_latency(j, route(j, gpu_nic_node(j, b), b));
}

double ss_cluster_cross_bandwidth(const ss_job* j, int a, int b)
{
  double bw = j->conn_cap_bytes_per_s > 0 ? j->conn_cap_bytes_per_s : 1e300;
  /* The socket transport's threads at the receiving end, each a core at most (sockcpu.h). */
  if (j->sock_threads > 0 && j->sock_recv_flops_per_byte > 0)
    bw = fmin(bw, j->sock_threads * j->platform->cpu_speed_flops / j->sock_recv_flops_per_byte);
  bw = path_bandwidth(j, route(j, a, gpu_nic_node(j, a)), bw);
  return path_bandwidth(j, route(j, gpu_nic_node(j, b), b), bw);
}

double ss_cluster_port_bandwidth(const ss_job* j, int server)
{
  if (!(j->flow_cap_bytes_per_s > 0))
    return SS_CLUSTER_PORT_UNLIMITED;
  return server ? j->flow_cap_bytes_per_s * SS_NET_PS_SOCKETS : j->conn_cap_bytes_per_s;
}

double ss_cluster_ring_cross_bandwidth(const ss_job* j)
{
  const ss_platform* p = j->platform;
  const ss_rings* in = &j->rings;
  int g = j->gpus_per_instance, n = p->nnics;
  if (n == 0 || in->nrings == 0 || in->nranks < 2 * g)
    return 0;
  /* The shares that leave by each NIC and GPU, and enter by each. */
  double* out = calloc(2 * (size_t)(n + g), sizeof(double));
  if (!out)
    return 0;
  double *into = out + n, *gout = out + 2 * n, *gin = gout + g, eff = 1e300;
  /* Each ring leaves an instance from the last GPU of its chain there and enters the next at the
   * first of the next chain (the global order's positions g - 1 and g). */
  for (int c = 0; c < in->nrings; c++) {
    int last = in->rings[c].order[g - 1] % g, first = in->rings[c].order[g] % g;
    double s = in->rings[c].share;
    out[ss_platform_gpu_nic(p, last)] += s;
    into[ss_platform_gpu_nic(p, first)] += s;
    gout[last] += s;
    gin[first] += s;
  }
  for (int c = 0; c < in->nrings; c++) {
    int last = in->rings[c].order[g - 1] % g, first = in->rings[c].order[g] % g;
    int ko = ss_platform_gpu_nic(p, last), ki = ss_platform_gpu_nic(p, first);
    double s = in->rings[c].share;
    /* The path's bottleneck, shared by the rings that leave by its GPU (or enter by it). */
    double bw = ss_cluster_cross_bandwidth(j, last, first) * s / fmax(gout[last], gin[first]);
    bw = fmin(bw, ss_cluster_link_bandwidth(j, p->nics[ko].link) * s / out[ko]);
    bw = fmin(bw, ss_cluster_link_bandwidth(j, p->nics[ki].link) * s / into[ki]);
    if (s > 0)
      eff = fmin(eff, bw / s);
  }
  free(out);
  return eff < 1e300 ? eff : 0;
}

/* Names in the instance file passed libxml2, so they may hold characters that need escaping. */
static void put_escaped(FILE* f, const char* s)
{
  for (; *s; s++)
    switch (*s) {
      case '&': fputs("&amp;", f); break;
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '"': fputs("&quot;", f); break;
      case '\'': fputs("&apos;", f); break;
      default: fputc(*s, f);
    }
}

/* Dedicated parameter-server hosts: zones of their own. */
static int server_hosts(const ss_job* j)
{
  return j->opt.arch == SS_ARCH_PS && j->opt.placement == SS_PS_DEDICATED ? j->ps_hosts : 0;
}

void ss_cluster_host_name(const ss_job* j, int slot, char* buf, size_t size)
{
  int g = j->gpus_per_instance, inst = slot / (g + 1), k = slot % (g + 1);
  ss_assert(slot >= 0 && slot < ss_cluster_host_slots(j));
  if (inst >= j->instances)
    snprintf(buf, size, "s%d/cpu", slot - j->instances * (g + 1));
  else
    snprintf(buf, size, "i%d/%s", inst, k == g ? "cpu" : j->platform->gpus[k].name);
}

int ss_cluster_host_slots(const ss_job* j)
{
  return j->instances * (j->gpus_per_instance + 1) + server_hosts(j);
}

int ss_cluster_link_slots(const ss_job* j)
{
  return j->instances * j->platform->nlinks + server_hosts(j);
}

void ss_cluster_link_name(const ss_job* j, int slot, char* buf, size_t size)
{
  int nl = j->platform->nlinks;
  ss_assert(slot >= 0 && slot < ss_cluster_link_slots(j));
  if (slot >= j->instances * nl)
    snprintf(buf, size, "s%d/nic", slot - j->instances * nl);
  else
    snprintf(buf, size, "i%d/%s", slot / nl, j->platform->links[slot % nl].name);
}

ss_link_class ss_cluster_link_class(const ss_job* j, int slot)
{
  int nl = j->platform->nlinks;
  return slot >= j->instances * nl ? SS_LINK_NIC : j->platform->links[slot % nl].cls;
}

/* A host of slot s, escaped, as an attribute value. */
static void put_host_name(FILE* f, const ss_job* j, int slot)
{
  char name[SS_CLUSTER_NAME_MAX];
  ss_cluster_host_name(j, slot, name, sizeof(name));
  put_escaped(f, name);
}

/* A prefixed name "iK/name", escaped, as an attribute value. */
static void put_name(FILE* f, int inst, const char* name)
{
  fprintf(f, "i%d/", inst);
  put_escaped(f, name);
}

static void put_hops(FILE* f, int inst, const ss_platform* p, const ss_route* r)
{
  for (int i = 0; i < r->nhops; i++) {
    fputs("<link_ctn id=\"", f);
    put_name(f, inst, p->links[r->hops[i].link].name);
    if (r->hops[i].dir >= 0)
      fprintf(f, "\" direction=\"%s", r->hops[i].dir == 0 ? "UP" : "DOWN");
    fputs("\"/>", f);
  }
}

static void put_route(FILE* f, int inst, const ss_platform* p, const char* src, const char* dst, const ss_route* r)
{
  fputs("   <route src=\"", f);
  put_name(f, inst, src);
  fputs("\" dst=\"", f);
  put_name(f, inst, dst);
  fputs("\" symmetrical=\"NO\">", f);
  put_hops(f, inst, p, r);
  fputs("</route>\n", f);
}

static const char* const sharing_names[] = {"SHARED", "SPLITDUPLEX", "FATPIPE"};

/* The links of instance inst. With several instances they are declared in the cluster zone, not
 * the instance's: SimGrid finds the link of a route by searching the zone tree from the top, zone
 * after zone, so links inside N instance zones would make reading the platform cost O(N^2). */
static void put_links(FILE* f, const ss_job* j, int inst, const char* indent)
{
  const ss_platform* p = j->platform;
  for (int l = 0; l < p->nlinks; l++) {
    char name[SS_CLUSTER_NAME_MAX];
    ss_cluster_link_name(j, inst * p->nlinks + l, name, sizeof(name));
    fprintf(f, "%s<link id=\"", indent);
    put_escaped(f, name);
    fprintf(f, "\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" sharing_policy=\"%s\"/>\n",
            ss_cluster_link_bandwidth(j, l), ss_cluster_link_latency(j, l), sharing_names[p->links[l].sharing]);
  }
}

int ss_cluster_networked(const ss_job* j)
{
  return j->instances > 1 || (j->opt.arch == SS_ARCH_PS && j->opt.placement == SS_PS_DEDICATED);
}

/* Parameter servers and shared storage reach the network from a CPU host: over the instance's
 * first NIC, as a NIC's DMA reads host memory (no PCIe path is modelled for it). */
static int ps_via_cpu(const ss_job* j)
{
  return ((j->opt.arch == SS_ARCH_PS && j->opt.placement == SS_PS_COLOCATED) || j->opt.init_io != SS_INIT_NONE) &&
         ss_cluster_networked(j);
}

static void put_instance(FILE* f, const ss_job* j, int inst)
{
  const ss_platform* p = j->platform;
  int cpu = ss_platform_cpu(p);
  fprintf(f, "  <zone id=\"i%d\" routing=\"Full\">\n", inst);
  int g1 = j->gpus_per_instance + 1;
  fputs("   <host id=\"", f);
  put_host_name(f, j, inst * g1 + g1 - 1);
  fprintf(f, "\" speed=\"%.17gf\" core=\"%d\"><disk id=\"", p->cpu_speed_flops, p->cpu_cores);
  put_escaped(f, p->disk_name);
  fprintf(f, "\" read_bw=\"%.17gBps\" write_bw=\"%.17gBps\"/></host>\n", p->disk_read_bytes_per_s,
          p->disk_write_bytes_per_s);
  for (int g = 0; g < j->gpus_per_instance; g++) {
    fputs("   <host id=\"", f);
    put_host_name(f, j, inst * g1 + g);
    fprintf(f, "\" speed=\"%.17gf\"/>\n", p->gpus[g].speed_flops);
  }
  int multi = ss_cluster_networked(j);
  if (!multi)
    put_links(f, j, inst, "   ");
  if (multi) {
    fputs("   <router id=\"", f);
    put_name(f, inst, "gw");
    fputs("\"/>\n", f);
  }
  /* Routes among the GPUs in use and the cpu, then each GPU to and from the gateway over its NIC. */
  int nh = j->gpus_per_instance;
  for (int a = 0; a <= nh; a++)
    for (int b = 0; b <= nh; b++) {
      int na = a == nh ? cpu : a, nb = b == nh ? cpu : b;
      if (na != nb)
        put_route(f, inst, p, ss_platform_node_name(p, na), ss_platform_node_name(p, nb), route(j, na, nb));
    }
  for (int g = 0; multi && g < nh; g++) {
    int nic = gpu_nic_node(j, g);
    put_route(f, inst, p, p->gpus[g].name, "gw", route(j, g, nic));
    put_route(f, inst, p, "gw", p->gpus[g].name, route(j, nic, g));
  }
  if (ps_via_cpu(j)) {
    const char* nic = p->links[p->nics[0].link].name;
    for (int up = 1; up >= 0; up--) {
      fputs("   <route src=\"", f);
      put_name(f, inst, up ? "cpu" : "gw");
      fputs("\" dst=\"", f);
      put_name(f, inst, up ? "gw" : "cpu");
      fputs("\" symmetrical=\"NO\"><link_ctn id=\"", f);
      put_name(f, inst, nic);
      fprintf(f, "\" direction=\"%s\"/></route>\n", up ? "UP" : "DOWN");
    }
  }
  fputs("  </zone>\n", f);
}

/* Dedicated server host k: a zone with the instance type's CPU and one NIC of the instance's
 * network bandwidth (its link is declared with the others, at the top). */
static void put_server(FILE* f, const ss_job* j, int k)
{
  const ss_platform* p = j->platform;
  fprintf(
      f,
      "  <zone id=\"s%d\" routing=\"Full\">\n   <host id=\"s%d/cpu\" speed=\"%.17gf\" core=\"%d\"/>\n"
      "   <router id=\"s%d/gw\"/>\n"
      "   <route src=\"s%d/cpu\" dst=\"s%d/gw\" symmetrical=\"NO\"><link_ctn id=\"s%d/nic\" direction=\"UP\"/></route>\n"
      "   <route src=\"s%d/gw\" dst=\"s%d/cpu\" symmetrical=\"NO\"><link_ctn id=\"s%d/nic\" direction=\"DOWN\"/></route>\n"
      "  </zone>\n",
      k, k, p->cpu_speed_flops, p->cpu_cores, k, k, k, k, k, k, k);
}

/* The zone routes between zone "prefix K" and the switch, over its port (and the core, going up). */
static void put_zone_routes(FILE* f, const char* prefix, int k, const char* port, int core)
{
  fprintf(f,
          "  <zoneRoute src=\"%s%d\" dst=\"net\" gw_src=\"%s%d/gw\" gw_dst=\"net/switch\" symmetrical=\"NO\">"
          "<link_ctn id=\"net/%s%d\"/>%s</zoneRoute>\n"
          "  <zoneRoute src=\"net\" dst=\"%s%d\" gw_src=\"net/switch\" gw_dst=\"%s%d/gw\" symmetrical=\"NO\">"
          "<link_ctn id=\"net/%s%d\"/></zoneRoute>\n",
          prefix, k, prefix, k, port, k, core ? "<link_ctn id=\"net/core\"/>" : "", prefix, k, prefix, k, port, k);
}

int ss_cluster_write(const ss_job* j, FILE* f)
{
  int n = j->instances;
  int multi = ss_cluster_networked(j);
  int nservers = server_hosts(j);
  fputs("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
        "<platform version=\"4.1\">\n",
        f);
  /* Instances reach each other through the "net" zone only: N zone routes, not N^2, and a
   * Dijkstra zone with a route cache finds the two-hop paths. */
  fprintf(f, " <zone id=\"cluster\" routing=\"%s\">\n", multi ? "DijkstraCache" : "Full");
  /* SimGrid's parser takes a zone whose first child is a link for a leaf zone (no sub-zones): the
   * switch's zone comes first. */
  if (multi)
    fputs("  <zone id=\"net\" routing=\"Full\">\n   <router id=\"net/switch\"/>\n  </zone>\n", f);
  for (int i = 0; i < n && multi; i++)
    put_links(f, j, i, "  ");
  const ss_platform* p = j->platform;
  for (int k = 0; k < nservers; k++)
    fprintf(f, "  <link id=\"s%d/nic\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" sharing_policy=\"SPLITDUPLEX\"/>\n", k,
            ss_cluster_nic_bandwidth(j), ss_cluster_link_latency(j, p->nics[0].link));
  for (int i = 0; i < n; i++)
    put_instance(f, j, i);
  for (int k = 0; k < nservers; k++)
    put_server(f, j, k);
  if (multi) {
    /* Without oversubscription the switch adds no constraint: a shared link there would put
     * every inter-instance flow into one sharing system and make each solve cost O(flows). SimGrid
     * wants a link on every zone route: each instance gets a switch port (a FATPIPE, no latency),
     * which ties together only flows its NIC already does. A FATPIPE limits each flow that crosses
     * it on its own, not their sum: the ports carry the cap of one connection between instances
     * (its TCP flows x AWS's cap per flow: ss_cluster_port_bandwidth), or never limit (1 PB/s). */
    int core = j->opt.oversub > 1;
    if (core)
      fprintf(f, "  <link id=\"net/core\" bandwidth=\"%.17gBps\" latency=\"0s\" sharing_policy=\"SHARED\"/>\n",
              j->core_bandwidth_bytes_per_s);
    for (int i = 0; i < n; i++)
      fprintf(f, "  <link id=\"net/port%d\" bandwidth=\"%.17gBps\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n", i,
              ss_cluster_port_bandwidth(j, 0));
    for (int k = 0; k < nservers; k++)
      fprintf(f, "  <link id=\"net/sport%d\" bandwidth=\"%.17gBps\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n", k,
              ss_cluster_port_bandwidth(j, 1));
    /* The core is on the way up only: a flow crosses it once, not on both of its zone routes. */
    for (int i = 0; i < n; i++)
      put_zone_routes(f, "i", i, "port", core);
    for (int k = 0; k < nservers; k++)
      put_zone_routes(f, "s", k, "sport", core);
  }
  fputs(" </zone>\n</platform>\n", f);
  return ferror(f) ? SS_EIO : SS_OK;
}
