/* transport: NCCL's P2P or SHM transport per GPU pair, and the routes of SHM pairs. */
#include "transport.h"

#include <stdlib.h>
#include <string.h>

const char* ss_path_name(ss_path t)
{
  static const char* const names[SS_PATH_COUNT] = {"LOC", "NVL", "PIX", "PXB", "PHB", "SYS"};
  ss_assert(t >= 0 && t < SS_PATH_COUNT);
  return names[t];
}

static int route_has(const ss_platform* p, const ss_route* r, ss_link_class cls)
{
  for (int h = 0; h < r->nhops; h++)
    if (p->links[r->hops[h].link].cls == cls)
      return 1;
  return 0;
}

static int nvlink_only(const ss_platform* p, const ss_route* r)
{
  for (int h = 0; h < r->nhops; h++) {
    ss_link_class c = p->links[r->hops[h].link].cls;
    if (c != SS_LINK_NVLINK && c != SS_LINK_NVSWITCH)
      return 0;
  }
  return r->nhops > 0;
}

/* The link at the top of GPU g's PCIe tree (the first hop of the route from the CPU), or -1. */
static int top_link(const ss_platform* p, int g)
{
  const ss_route* r = ss_platform_route(p, ss_platform_cpu(p), g);
  return r->nhops ? r->hops[0].link : -1;
}

/* Up to this many socket-link hops between two root complexes (a route crosses each link once). */
#define MAX_SOCKET_HOPS 8

/* The socket-link hops between the root complexes of every two GPUs, found once per pair of PCIe
 * trees (GPUs under the same top link) on the routes before any is rerouted: those of the first
 * GPU pair of the two trees, in index order, whose route crosses a socket link (an NVLinked pair
 * takes its sockets from a PCIe pair of the same trees), else none. */
typedef struct sockets {
  const ss_platform* p;
  int ngroups;
  int* group; /* [gpu]: its tree, -1 for a GPU the CPU has no route to */
  int* nhops; /* [ga * ngroups + gb] */
  ss_hop (*hops)[MAX_SOCKET_HOPS];
} sockets;

/* The socket-link hops of route r into out; their number. */
static int route_sockets(const ss_platform* p, const ss_route* r, ss_hop* out)
{
  int k = 0;
  for (int h = 0; h < r->nhops && k < MAX_SOCKET_HOPS; h++)
    if (p->links[r->hops[h].link].cls == SS_LINK_SOCKET)
      out[k++] = r->hops[h];
  return k;
}

static void sockets_free(sockets* sk)
{
  free(sk->group);
  free(sk->nhops);
  free(sk->hops);
}

/* Group p's GPUs by tree and find the hops between every two trees: each GPU pair's route is read
 * at most once. Returns 0 or SS_ENOMEM. */
static int sockets_init(sockets* sk, const ss_platform* p)
{
  int n = p->ngpus;
  memset(sk, 0, sizeof(*sk));
  sk->p = p;
  int* top = malloc(sizeof(int) * (size_t)n);
  sk->group = malloc(sizeof(int) * (size_t)n);
  if (!top || !sk->group) {
    free(top);
    return SS_ENOMEM;
  }
  for (int g = 0; g < n; g++) {
    top[g] = top_link(p, g);
    sk->group[g] = -1;
    for (int h = 0; top[g] >= 0 && h < g && sk->group[g] < 0; h++)
      if (top[h] == top[g])
        sk->group[g] = sk->group[h];
    if (top[g] >= 0 && sk->group[g] < 0)
      sk->group[g] = sk->ngroups++;
  }
  free(top);
  size_t m = (size_t)sk->ngroups * (size_t)sk->ngroups;
  sk->nhops = calloc(m + 1, sizeof(int));
  sk->hops = calloc(m + 1, sizeof(*sk->hops));
  if (!sk->nhops || !sk->hops)
    return SS_ENOMEM;
  char* seen = calloc(m + 1, 1);
  if (!seen)
    return SS_ENOMEM;
  for (int x = 0; x < n; x++)
    for (int y = 0; y < n; y++) {
      size_t k = (size_t)sk->group[x] * (size_t)sk->ngroups + (size_t)sk->group[y];
      if (x == y || sk->group[x] < 0 || sk->group[y] < 0 || seen[k])
        continue;
      sk->nhops[k] = route_sockets(p, ss_platform_route(p, x, y), sk->hops[k]);
      seen[k] = sk->nhops[k] > 0;
    }
  free(seen);
  return SS_OK;
}

/* The socket-link hops between GPUs a and b: those of their own route, else of their trees. */
static int socket_hops(const sockets* sk, int a, int b, ss_hop* out)
{
  int k = route_sockets(sk->p, ss_platform_route(sk->p, a, b), out);
  if (k > 0 || sk->group[a] < 0 || sk->group[b] < 0)
    return k;
  size_t g = (size_t)sk->group[a] * (size_t)sk->ngroups + (size_t)sk->group[b];
  memcpy(out, sk->hops[g], sizeof(ss_hop) * (size_t)sk->nhops[g]);
  return sk->nhops[g];
}

ss_path ss_transport_path(const ss_platform* p, int a, int b)
{
  if (a == b)
    return SS_PATH_LOC;
  if (p->nccl_paths)
    return (ss_path)p->nccl_paths[a * p->ngpus + b];
  const ss_route* r = ss_platform_route(p, a, b);
  if (nvlink_only(p, r))
    return SS_PATH_NVL;
  if (p->pci_flat)
    return SS_PATH_PHB;
  if (route_has(p, r, SS_LINK_SOCKET))
    return SS_PATH_SYS;
  int ta = top_link(p, a), tb = top_link(p, b), pcie = 0;
  for (int h = 0; h < r->nhops; h++) {
    if (r->hops[h].link == ta || r->hops[h].link == tb)
      return SS_PATH_PHB;
    pcie += p->links[r->hops[h].link].cls == SS_LINK_PCIE;
  }
  return pcie <= 2 ? SS_PATH_PIX : SS_PATH_PXB;
}

ss_path ss_transport_p2p_level(const ss_platform* p, int opt_level)
{
  if (opt_level > 0)
    return (ss_path)(SS_PATH_LOC + opt_level - 1);
  return p->cpu_vendor == SS_CPU_INTEL || p->cpu_vendor == SS_CPU_ARM ? SS_PATH_PXB : SS_PATH_SYS;
}

/* Whether GPUs a and b may use P2P by path type: path within level, and never across the socket
 * link of an Intel host (PCIe peer-to-peer DMA cannot cross QPI). The peer limit aside. */
static int p2p_allowed(const sockets* sk, int a, int b, ss_path level)
{
  const ss_platform* p = sk->p;
  ss_path t = ss_transport_path(p, a, b);
  if (t > level)
    return 0;
  ss_hop hops[MAX_SOCKET_HOPS];
  return t == SS_PATH_NVL || p->cpu_vendor != SS_CPU_INTEL || socket_hops(sk, a, b, hops) == 0;
}

/* The route from a to b through host memory, into r (its hops replaced): up a's PCIe tree, the
 * stage link `stage`, the socket link(s), down b's tree. Returns 0 or SS_ENOMEM. */
static int shm_route(const sockets* sk, int a, int b, int stage, ss_route* r)
{
  const ss_platform* p = sk->p;
  const ss_route* up = ss_platform_route(p, ss_platform_cpu(p), a);
  const ss_route* down = ss_platform_route(p, ss_platform_cpu(p), b);
  ss_hop across[MAX_SOCKET_HOPS];
  int nacross = socket_hops(sk, a, b, across);
  int n = up->nhops + 1 + nacross + down->nhops, m = 0;
  ss_hop* hops = malloc(sizeof(ss_hop) * (size_t)n);
  if (!hops)
    return SS_ENOMEM;
  for (int h = up->nhops - 1; h >= 0; h--)
    hops[m++] = (ss_hop){up->hops[h].link, up->hops[h].dir >= 0 ? 1 - up->hops[h].dir : -1};
  hops[m++] = (ss_hop){stage, -1};
  for (int h = 0; h < nacross; h++)
    hops[m++] = across[h];
  for (int h = 0; h < down->nhops; h++)
    hops[m++] = down->hops[h];
  free(r->hops);
  r->hops = hops;
  r->nhops = n;
  return SS_OK;
}

/* Add one host-memory stage link per GPU (shm_gpuJ); returns the index of GPU 0's, or -1. */
static int add_stages(ss_platform* p)
{
  ss_link* links = realloc(p->links, sizeof(ss_link) * (size_t)(p->nlinks + p->ngpus));
  if (!links)
    return -1;
  p->links = links;
  int first = p->nlinks;
  double bw = p->shm_bytes_per_s > 0 ? p->shm_bytes_per_s : SS_SHM_GBYTES_PER_S * 1e9;
  double lat = p->shm_bytes_per_s > 0 || p->shm_latency_s > 0 ? p->shm_latency_s : SS_SHM_LATENCY_US * 1e-6;
  for (int g = 0; g < p->ngpus; g++) {
    size_t len = strlen(p->gpus[g].name) + 5;
    char* name = malloc(len);
    if (!name)
      return -1;
    snprintf(name, len, "shm_%s", p->gpus[g].name);
    p->links[p->nlinks++] = (ss_link){name, bw, lat, SS_SHARING_SHARED, SS_LINK_SHM, 0};
  }
  return first;
}

int ss_transport_apply(ss_platform* p, int opt_level)
{
  int n = p->ngpus;
  ss_memo_clear(p->memo); /* the routes it reroutes are what the rings were found on */
  /* CPU training (compute_on="cpu") has no NCCL; a route from the CPU is needed to stage through it. */
  if (n < 2 || p->compute_on_cpu)
    return SS_OK;
  ss_path level = ss_transport_p2p_level(p, opt_level);
  char* p2p = calloc((size_t)n * (size_t)n, 1);
  int* peers = calloc((size_t)n, sizeof(int));
  unsigned char* paths = malloc((size_t)n * (size_t)n);
  sockets sk = {0};
  int rc = p2p && peers && paths && !sockets_init(&sk, p) ? SS_OK : SS_ENOMEM, shm = 0;
  /* The path types as derived from the routes before any is rerouted. */
  for (int a = 0; !rc && a < n; a++)
    for (int b = 0; b < n; b++)
      paths[a * n + b] = (unsigned char)ss_transport_path(p, a, b);
  if (!rc && !p->nccl_paths) {
    p->nccl_paths = paths;
    paths = NULL;
  }
  /* Peers by path type, closest first: a GPU that has used up CUDA's peers stages the rest. The GPUs of
   * different trays of a rack-scale NVLink domain (tray_gpus: an UltraServer's trays, each its own host)
   * reach each other through the fabric's memory handles (NVIDIA's multi-node NVLink with IMEX), not CUDA
   * peer access: they take no peer slot. */
  for (int t = SS_PATH_NVL; !rc && t < SS_PATH_COUNT; t++)
    for (int a = 0; a < n; a++)
      for (int b = a + 1; b < n; b++) {
        int fabric = p->tray_gpus > 0 && a / p->tray_gpus != b / p->tray_gpus && t == SS_PATH_NVL;
        if (ss_transport_path(p, a, b) == (ss_path)t && p2p_allowed(&sk, a, b, level) &&
            (fabric || (peers[a] < SS_TRANSPORT_MAX_PEERS && peers[b] < SS_TRANSPORT_MAX_PEERS))) {
          p2p[a * n + b] = p2p[b * n + a] = 1;
          peers[a] += !fabric;
          peers[b] += !fabric;
        }
      }
  for (int a = 0; !rc && a < n; a++)
    for (int b = 0; b < n; b++)
      shm += a != b && !p2p[a * n + b] && top_link(p, a) >= 0 && top_link(p, b) >= 0;
  int stage0 = !rc && shm ? add_stages(p) : 0;
  if (stage0 < 0)
    rc = SS_ENOMEM;
  for (int a = 0; !rc && shm && a < n; a++)
    for (int b = 0; !rc && b < n; b++)
      if (a != b && !p2p[a * n + b] && top_link(p, a) >= 0 && top_link(p, b) >= 0)
        rc = shm_route(&sk, a, b, stage0 + b, &p->routes[a * p->nnodes + b]);
  free(p2p);
  free(peers);
  free(paths);
  sockets_free(&sk);
  return rc;
}

int ss_transport_prepare(ss_platform* p, const ss_options* o)
{
  if (!o->nvlink && ss_platform_drop_nvlink(p))
    return SS_ENOMEM;
  return o->shm && !o->ideal ? ss_transport_apply(p, o->p2p_level) : SS_OK;
}

int ss_transport_is_shm(const ss_platform* p, int a, int b)
{
  return route_has(p, ss_platform_route(p, a, b), SS_LINK_SHM);
}

const char* ss_transport_hop_name(const ss_platform* p, int a, int b)
{
  const ss_route* r = ss_platform_route(p, a, b);
  return route_has(p, r, SS_LINK_SHM) ? "SHM" : nvlink_only(p, r) ? "P2P/NVLink" : "P2P/PCIe";
}
