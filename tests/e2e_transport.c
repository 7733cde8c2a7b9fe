/* e2e_transport: NCCL's transports (transport.c): which GPU pairs of the instance files go P2P and
 * which through host memory (SHM), the SHM ring's closed form, CUDA's peer limit. */
#include "e2e.h"
#include "nccl.h"

#include "transport.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The instance file at path, prepared as a run with default options (and --p2p-level level, the
 * bare-metal PCIe view when physical, an AMD CPU when amd) prepares it. NULL and a failed check on
 * error. */
static ss_platform* prepared(const char* path, int level, int physical, int amd)
{
  ss_platform* p = NULL;
  ss_err err;
  ss_err_clear(&err);
  if (ss_platform_load(path, &p, &err)) {
    CHECK(0, "%s: %s", path, err.msg);
    return NULL;
  }
  if (physical)
    p->pci_flat = 0;
  if (amd)
    p->cpu_vendor = SS_CPU_AMD;
  ss_options o;
  ss_options_default(&o);
  o.p2p_level = level;
  CHECK(ss_transport_prepare(p, &o) == SS_OK, "%s: out of memory", path);
  return p;
}

/* Whether a route of the loaded file, before any transport, is NVLink or NVSwitch only. */
static int nvlinked(const char* path, int a, int b)
{
  ss_platform* p = NULL;
  ss_err err;
  ss_err_clear(&err);
  if (ss_platform_load(path, &p, &err))
    return -1;
  int nv = ss_platform_route_all(p, a, b, SS_LINK_NVLINK) || ss_platform_route_all(p, a, b, SS_LINK_NVSWITCH);
  ss_platform_free(p);
  return nv;
}

/* NCCL's rule on the instance files (Intel hosts: P2P up to PXB, never across sockets; the p2 and p3
 * virtual machines show their GPUs flat on the root bus, so every pair without NVLink is PHB):
 * p2.8xlarge, p2.16xlarge and g4dn.12xlarge (every T4 on its own root port) stage every pair through
 * host memory; p3.16xlarge uses P2P exactly on its NVLinked pairs; p4d.24xlarge P2P on all (NVSwitch).
 * On the bare-metal view of p2.8xlarge the two dies of a K80 board share its switch (PIX: P2P).
 * --p2p-level sys on p3.16xlarge: PHB pairs go P2P, but only those on one socket on this Intel host. */
void test_transport_rule(void)
{
  static const struct {
    const char* path;
    int level, physical;
    const char* rule; /* "shm": every pair SHM; "nvlink": P2P iff NVLinked; "board": P2P iff a/2 == b/2;
                       * "socket": P2P iff NVLinked or both on one socket (GPU/4) */
  } cases[] = {
      {"platforms/p2.8xl.xml", 0, 0, "shm"},    {"platforms/p2.16xl.xml", 0, 0, "shm"},
      {"platforms/g4dn.12xl.xml", 0, 0, "shm"}, {"platforms/p3.16xl.xml", 0, 0, "nvlink"},
      {"platforms/p3.8xl.xml", 0, 0, "nvlink"}, {"platforms/p4d.24xl.xml", 0, 0, "nvlink"},
      {"platforms/p2.8xl.xml", 0, 1, "board"},  {"platforms/p3.16xl.xml", 7, 0, "socket"},
      {"platforms/p3.16xl.xml", 1, 0, "shm"}, /* --p2p-level loc: P2P off */
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    ss_platform* p = prepared(cases[i].path, cases[i].level, cases[i].physical, 0);
    if (!p)
      continue;
    int n = p->ngpus, p2p = 0, shm = 0;
    for (int a = 0; a < n; a++)
      for (int b = 0; b < n; b++) {
        if (a == b)
          continue;
        const char* r = cases[i].rule;
        int nv = nvlinked(cases[i].path, a, b);
        int want = strcmp(r, "nvlink") == 0   ? nv
                   : strcmp(r, "board") == 0  ? a / 2 == b / 2
                   : strcmp(r, "socket") == 0 ? nv || a / 4 == b / 4
                                              : 0;
        int got = !ss_transport_is_shm(p, a, b);
        p2p += got;
        shm += !got;
        CHECK(got == want, "%s level %d%s: gpu%d -> gpu%d goes %s (path %s), the rule says %s", cases[i].path,
              cases[i].level, cases[i].physical ? " bare metal" : "", a, b, got ? "P2P" : "SHM",
              ss_path_name(ss_transport_path(p, a, b)), want ? "P2P" : "SHM");
      }
    CHECK(p2p + shm == n * (n - 1), "%s: %d pairs", cases[i].path, p2p + shm);
    ss_platform_free(p);
  }
}

/* A ring whose hops all stage through host memory, each GPU's stage carrying one flow: busbw is the
 * stage's bandwidth (3.9 GB/s on the Gen3 files), and without NCCL's per-call and per-step costs
 * (--no-call-cost: proto.c's closed forms are e2e.protocol_*) the allreduce takes 2(N-1)(alpha + S/(N B))
 * and the latencies its chunks meet beyond alpha, with alpha the SHM route's latency (p2.8xlarge: GPU link, board uplink, 2 us stage, uplink, GPU
 * link = 6 us). The same with 2 NVLinked V100s forced through SHM (--p2p-level loc). */
void test_shm_ring_closed_form(void)
{
  static const struct {
    const char* args;
    int n;
    double alpha;
  } cases[] = {
      {"platforms/p2.8xl.xml", 8, 6e-6},
      {"platforms/p2.16xl.xml", 16, 6e-6}, /* and its ring's two hops between sockets cross QPI (1 us): */
      {"platforms/p3.16xl.xml --gpus 2 --p2p-level loc", 2, 6e-6},
      {"platforms/g4dn.12xl.xml", 4, 4e-6}, /* no switch: GPU link, stage, GPU link */
  };
  const double bw = 3.9e9, sizes[] = {1e6, 268435456};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    for (int k = 0; k < 2; k++) {
      int n = cases[i].n;
      char args[160];
      snprintf(args, sizeof(args), "%s --no-call-cost", cases[i].args);
      double t = bench_time(args, sizes[k], NULL, 0);
      /* NCCL pipelines the ring: a chunk's 2(N-1) hops in a row cross QPI 4 times on p2.16xlarge (its
       * two QPI hops are less than 14 hops apart), not at every step, unless a connection's buffer
       * holds one chunk only (ss_nccl_window): then every step waits for the slowest hop. */
      double qpi = n == 16 ? (ss_nccl_window(sizes[k] / n) > 1 ? 4 : 2 * (n - 1)) * 1e-6 : 0;
      double expect = 2.0 * (n - 1) * (cases[i].alpha + sizes[k] / n / bw) + qpi;
      CHECK(fabs(t - expect) <= 1e-6 * expect, "%s, S=%g: %.12g s, closed form %.12g s", cases[i].args, sizes[k], t,
            expect);
    }
  /* --no-shm: the same p2.8xlarge ring at PCIe's 9.6 GB/s, as before transports existed. */
  double t = bench_time("platforms/p2.8xl.xml --no-shm --no-call-cost", 268435456, NULL, 0);
  double busbw = 268435456 / t * 2 * 7 / 8;
  CHECK(fabs(busbw - 9.6e9) <= 0.01 * 9.6e9, "p2.8xlarge --no-shm: busbw %.4g B/s, PCIe 9.6e9", busbw);
}

/* CUDA's 8 peers per GPU, where it binds: p2.16xlarge's 16 dies with P2P allowed across its sockets
 * (its bare-metal view, --p2p-level sys, and an AMD CPU: on its Intel one P2P never crosses QPI, which
 * leaves each die 7 peers). Each die gets 8 P2P peers, the closest first (its board's other die); the
 * other 7 pairs stage through host memory. */
void test_peer_limit(void)
{
  ss_platform* p = prepared("platforms/p2.16xl.xml", 7, 1, 1);
  if (!p)
    return;
  for (int a = 0; a < p->ngpus; a++) {
    int peers = 0;
    for (int b = 0; b < p->ngpus; b++)
      peers += a != b && !ss_transport_is_shm(p, a, b);
    CHECK(peers == SS_TRANSPORT_MAX_PEERS, "gpu%d: %d P2P peers, CUDA allows %d", a, peers, SS_TRANSPORT_MAX_PEERS);
    CHECK(!ss_transport_is_shm(p, a, a ^ 1), "gpu%d: its board's other die is not a P2P peer", a);
  }
  ss_platform_free(p);
  /* Its Intel CPU: 7 peers each (one socket's other dies), below the limit. */
  p = prepared("platforms/p2.16xl.xml", 7, 1, 0);
  for (int a = 0; p && a < p->ngpus; a++) {
    int peers = 0;
    for (int b = 0; b < p->ngpus; b++)
      peers += a != b && !ss_transport_is_shm(p, a, b);
    CHECK(peers == 7, "gpu%d on the Intel host: %d P2P peers, 7 expected", a, peers);
  }
  ss_platform_free(p);
}
