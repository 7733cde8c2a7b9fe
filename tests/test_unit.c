/* test_unit: CUnit suites for the modules that need no SimGrid run; `test_unit SUITE` runs one. */
#include "cli.h"
#include "option.h"
#include "outfile.h"
#include "cluster.h"
#include "cost.h"
#include "err.h"
#include "job.h"
#include "memory.h"
#include "nccl.h"
#include "ofitune.h"
#include "goodput.h"
#include "memo.h"
#include "derive.h"
#include "platform.h"
#include "layout.h"
#include "pipeline.h"
#include "kernelfit.h"
#include "hfconfig.h"
#include "tfkernels.h"
#include "tfmodel.h"
#include "transformer.h"
#include "price.h"
#include "proto.h"
#include "report.h"
#include "rng.h"
#include "roofline.h"
#include "stall.h"
#include "timeline.h"
#include "topo.h"
#include "tuner.h"
#include "trace.h"
#include "units.h"
#include "workload.h"
#include "testrun.h"

#include <CUnit/Basic.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define NEAR(a, b, rel) CU_ASSERT(fabs((double)(a) - (double)(b)) <= (rel)*fabs((double)(b)))

/* The error record of the load under way (load_platform, load_workload). */
static ss_err load_err;

static ss_err* load_begin(void)
{
  ss_err_clear(&load_err);
  return &load_err;
}

/* A load that must succeed: print its error and stop the test otherwise. */
static void load_end(int rc)
{
  if (rc) {
    char line[1024];
    ss_err_format(&load_err, line, sizeof(line));
    fprintf(stderr, "%s\n", line);
  }
  CU_ASSERT_FATAL(rc == 0);
}

static ss_platform* load_platform(const char* path)
{
  ss_platform* p = NULL;
  load_end(ss_platform_load(path, &p, load_begin()));
  return p;
}

static ss_workload* load_workload(const char* path)
{
  ss_workload* w = NULL;
  load_end(ss_workload_load(path, &w, load_begin()));
  return w;
}

/* ---- trace names: cut on a UTF-8 boundary, marked ---- */
static void test_trace_name(void)
{
  char b[10];
  ss_trace_name(b, sizeof(b), "%s", "abc");
  CU_ASSERT_STRING_EQUAL(b, "abc");
  /* "ab" then four 2-byte characters: 10 bytes do not fit in 9 plus the NUL; the cut at 6 would
   * split the third character, so it falls back to 5. */
  ss_trace_name(b, sizeof(b), "ab%s", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
  CU_ASSERT_STRING_EQUAL(b, "ab\xc3\xa9\xc3\xa9...");
  ss_trace_name(b, sizeof(b), "%s", "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac");
  CU_ASSERT_STRING_EQUAL(b, "\xe2\x82\xac\xe2\x82\xac...");
}

/* An error's file and message longer than their fields end in "...", on a character boundary. */
static void test_err_cut(void)
{
  char name[SS_ERR_FILE_MAX + 100];
  memset(name, 'x', sizeof(name) - 1);
  name[sizeof(name) - 1] = '\0';
  name[SS_ERR_FILE_MAX - 5] = '\xc3'; /* an e-acute across the cut */
  name[SS_ERR_FILE_MAX - 4] = '\xa9';
  ss_err err;
  ss_err_clear(&err);
  ss_err_set(&err, name, 0, "%s %s", name, name);
  size_t n = strlen(err.file);
  CU_ASSERT_EQUAL(n, SS_ERR_FILE_MAX - 5 + 3);
  CU_ASSERT_STRING_EQUAL(err.file + n - 3, "...");
  CU_ASSERT_EQUAL(strlen(err.msg), SS_ERR_MSG_MAX - 1);
  CU_ASSERT_STRING_EQUAL(err.msg + strlen(err.msg) - 3, "...");
}

/* ---- units ---- */
static void test_units(void)
{
  double v = 0;
  char why[256];
  CU_ASSERT(ss_units_parse("48.34GBps", SS_UNIT_BANDWIDTH, &v, why, sizeof(why)) == 0);
  NEAR(v, 48.34e9, 1e-15);
  CU_ASSERT(ss_units_parse("25Gbps", SS_UNIT_BANDWIDTH, &v, why, sizeof(why)) == 0);
  NEAR(v, 3.125e9, 1e-15);
  CU_ASSERT(ss_units_parse("1MiBps", SS_UNIT_BANDWIDTH, &v, why, sizeof(why)) == 0);
  NEAR(v, 1048576, 1e-15);
  CU_ASSERT(ss_units_parse("2us", SS_UNIT_LATENCY, &v, why, sizeof(why)) == 0);
  NEAR(v, 2e-6, 1e-15);
  CU_ASSERT(ss_units_parse("0s", SS_UNIT_LATENCY, &v, why, sizeof(why)) == 0 && v == 0);
  CU_ASSERT(ss_units_parse("15.7Tf", SS_UNIT_SPEED, &v, why, sizeof(why)) == 0);
  NEAR(v, 15.7e12, 1e-15);
  CU_ASSERT(ss_units_parse("10", SS_UNIT_BANDWIDTH, &v, why, sizeof(why)) != 0);
  CU_ASSERT(strstr(why, "unit") != NULL);
  CU_ASSERT(ss_units_parse("10GHz", SS_UNIT_BANDWIDTH, &v, why, sizeof(why)) != 0);
  CU_ASSERT(ss_units_parse("0GBps", SS_UNIT_BANDWIDTH, &v, why, sizeof(why)) != 0);
  CU_ASSERT(ss_units_parse("-1us", SS_UNIT_LATENCY, &v, why, sizeof(why)) != 0);
  CU_ASSERT(ss_units_parse("2us", SS_UNIT_SPEED, &v, why, sizeof(why)) != 0);
  CU_ASSERT(ss_units_parse("", SS_UNIT_SPEED, &v, why, sizeof(why)) != 0);
  CU_ASSERT(ss_units_parse("nanGBps", SS_UNIT_BANDWIDTH, &v, why, sizeof(why)) != 0);
}

/* The bounds of every kind of quantity: each edge in, just beyond it out, zero only where allowed,
 * and the range as the messages write it. */
static void test_units_bounds(void)
{
  static const struct {
    ss_qty q;
    double lo, hi;
    const char* text;
  } b[] = {{SS_QTY_BANDWIDTH, 1e3, 1e14, "a bandwidth in [1 kB/s, 100 TB/s]"},
           {SS_QTY_LATENCY, 1e-9, 10, "a latency in [1 ns, 10 s]"},
           {SS_QTY_SPEED, 1e6, 1e18, "a speed in [1 Mflop/s, 1 Eflop/s]"},
           {SS_QTY_TIME, 1e-9, 3600, "a time in [1 ns, 3600 s]"},
           {SS_QTY_RATIO, 1e-3, 1e3, "a ratio in [0.001, 1000]"},
           {SS_QTY_PRICE, 1e-6, 1e6, "a price in [1e-06 $/h, 1e+06 $/h]"},
           {SS_QTY_SIZE, 1, 1e13, "a size in [1 B, 10 TB]"},
           {SS_QTY_FLOPS, 1, 1e16, "a FLOP count in [1 flop, 10 Pflop]"}};
  char text[128];
  for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
    CU_ASSERT(ss_qty_ok(b[i].q, b[i].lo, 0) && ss_qty_ok(b[i].q, b[i].hi, 0));
    CU_ASSERT(!ss_qty_ok(b[i].q, b[i].lo * 0.999, 0) && !ss_qty_ok(b[i].q, b[i].hi * 1.001, 0));
    CU_ASSERT(!ss_qty_ok(b[i].q, 0, 0) && ss_qty_ok(b[i].q, 0, 1) && !ss_qty_ok(b[i].q, 1e-310, 1));
    CU_ASSERT(!ss_qty_ok(b[i].q, NAN, 1) && !ss_qty_ok(b[i].q, INFINITY, 1) && !ss_qty_ok(b[i].q, -b[i].lo, 1));
    ss_qty_expects(b[i].q, 0, text, sizeof(text));
    CU_ASSERT_STRING_EQUAL(text, b[i].text);
  }
  ss_qty_expects(SS_QTY_LATENCY, 1, text, sizeof(text));
  CU_ASSERT_STRING_EQUAL(text, "0 or a latency in [1 ns, 10 s]");
  /* What the platform reader sees: 1e-310 B/s (a subnormal SimGrid deadlocked on) is refused. */
  double v = 0;
  char why[256];
  CU_ASSERT(ss_units_parse("1e-310Bps", SS_UNIT_BANDWIDTH, &v, why, sizeof(why)) != 0);
  CU_ASSERT_STRING_EQUAL(why, "expected a bandwidth in [1 kB/s, 100 TB/s], got '1e-310Bps'");
  CU_ASSERT(ss_units_parse("1kBps", SS_UNIT_BANDWIDTH, &v, why, sizeof(why)) == 0 && v == 1e3);
}

/* ---- platform ---- */
static void test_platform_p3_16xl(void)
{
  ss_platform* p = load_platform("platforms/p3.16xl.xml");
  CU_ASSERT_EQUAL(p->ngpus, 8);
  CU_ASSERT_STRING_EQUAL(p->instance_type, "p3.16xlarge");
  NEAR(p->price_usd_per_h, 24.48, 1e-12);
  CU_ASSERT_EQUAL(p->vcpus, 64);
  CU_ASSERT_EQUAL(p->cpu_cores, 64);
  NEAR(p->disk_read_bytes_per_s, 1.75e9, 1e-12);
  NEAR(p->memcpy_bytes_per_s, 6e9, 1e-12); /* GB/s in the file, bytes/s here */
  for (int g = 0; g < 8; g++)
    NEAR(p->gpus[g].memory_bytes_per_s, 900e9, 1e-12);
  int nvlinks = 0;
  for (int i = 0; i < p->nlinks; i++)
    nvlinks += p->links[i].cls == SS_LINK_NVLINK;
  CU_ASSERT_EQUAL(nvlinks, 16);
  /* DGX-1 cube-mesh: 0-3 has two NVLinks, 0-1 one, 0-5 none (PCIe and the inter-socket link). */
  NEAR(ss_platform_route_bandwidth(p, 0, 3), 48.34e9, 1e-12);
  NEAR(ss_platform_route_bandwidth(p, 0, 1), 24.22e9, 1e-12);
  CU_ASSERT(ss_platform_route_all(p, 0, 3, SS_LINK_NVLINK));
  CU_ASSERT(!ss_platform_route_all(p, 0, 5, SS_LINK_NVLINK));
  CU_ASSERT(ss_platform_route_bandwidth(p, 0, 5) < 10e9);
  /* The reverse of a symmetric route crosses the same links in the other direction. */
  const ss_route* a = ss_platform_route(p, 0, 5);
  const ss_route* b = ss_platform_route(p, 5, 0);
  CU_ASSERT_FATAL(a->nhops == b->nhops && a->nhops > 1);
  for (int i = 0; i < a->nhops; i++) {
    CU_ASSERT_EQUAL(a->hops[i].link, b->hops[a->nhops - 1 - i].link);
    CU_ASSERT_EQUAL(a->hops[i].dir, 1 - b->hops[a->nhops - 1 - i].dir);
  }
  /* Every GPU reaches the CPU host. */
  for (int g = 0; g < 8; g++)
    CU_ASSERT(ss_platform_route(p, ss_platform_cpu(p), g)->nhops > 0);
  ss_platform_free(p);
}

static void test_platform_all_files(void)
{
  const char* files[] = {
      "platforms/p3.2xl.xml",           "platforms/p3.8xl.xml",           "platforms/p2.xl.xml",
      "platforms/p2.8xl.xml",           "platforms/p2.16xl.xml",          "platforms/p3dn.24xl.xml",
      "platforms/g4dn.xl.xml",          "platforms/g4dn.12xl.xml",        "platforms/g5.48xl.xml",
      "platforms/p4d.24xl.xml",         "platforms/p5.48xl.xml",          "platforms/p4de.24xl.xml",
      "tests/platforms/star2.xml",      "tests/platforms/star4.xml",      "tests/platforms/star8.xml",
      "tests/platforms/star4_fast.xml", "tests/platforms/star4_slow.xml", "tests/platforms/star2_cpu.xml"};
  const int gpus[] = {1, 4, 1, 8, 16, 8, 1, 4, 8, 8, 8, 8, 2, 4, 8, 4, 4, 2};
  for (int i = 0; i < 18; i++) {
    ss_platform* p = load_platform(files[i]);
    CU_ASSERT_EQUAL(p->ngpus, gpus[i]);
    /* Only star2_cpu's "GPUs" compute on the cpu host's cores (2 of them). */
    CU_ASSERT_EQUAL(p->compute_on_cpu, i == 17);
    if (i == 17)
      CU_ASSERT_EQUAL(p->cpu_cores, 2);
    /* The instance files give a memcpy and a memory bandwidth, the test stars neither (0: optional). */
    CU_ASSERT(i < 12 ? p->memcpy_bytes_per_s > 0 : p->memcpy_bytes_per_s == 0);
    for (int g = 0; g < p->ngpus; g++)
      CU_ASSERT(i < 12 ? p->gpus[g].memory_bytes_per_s > 0 : p->gpus[g].memory_bytes_per_s == 0);
    /* Every GPU reaches a NIC, and the NICs add up to the instance's network bandwidth. */
    double nic_bytes_per_s = 0;
    for (int k = 0; k < p->nnics; k++)
      nic_bytes_per_s += p->links[p->nics[k].link].bandwidth_bytes_per_s;
    NEAR(nic_bytes_per_s, p->network_gbps * 1e9 / 8, 1e-12);
    for (int g = 0; g < p->ngpus; g++)
      CU_ASSERT(ss_platform_gpu_nic(p, g) >= 0);
    ss_platform_free(p);
  }
}

/* The device figures of the catalogue's GPUs (gen_platforms.py GPU_DEVICE) read back in SI units, the same
 * on every GPU; a figure the GPU has no unit for (the V100's TF32, BF16) is 0; the test stars give none. */
static void test_platform_device_figures(void)
{
  static const struct {
    const char* file;
    double tf32, fp16, bf16;
    int sms;
    double mhz, gib;
  } cases[] = {
      {"platforms/p3.16xl.xml", 0, 125, 0, 80, 1530, 16},
      {"platforms/p4d.24xl.xml", 156, 312, 312, 108, 1410, 40},
      {"platforms/p4de.24xl.xml", 156, 312, 312, 108, 1410, 80},
      {"platforms/g5.48xl.xml", 35, 70, 70, 80, 1710, 24},
      {"platforms/p2.xl.xml", 0, 4.37, 0, 13, 875, 12},
      {"tests/platforms/star2.xml", 0, 0, 0, 0, 0, 0},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    ss_platform* p = load_platform(cases[i].file);
    for (int g = 0; g < p->ngpus; g++) {
      const ss_gpu* d = &p->gpus[g];
      NEAR(d->tf32_flops, cases[i].tf32 * 1e12, 1e-12);
      NEAR(d->fp16_flops, cases[i].fp16 * 1e12, 1e-12);
      NEAR(d->bf16_flops, cases[i].bf16 * 1e12, 1e-12);
      CU_ASSERT_EQUAL(d->sm_count, cases[i].sms);
      NEAR(d->boost_hz, cases[i].mhz * 1e6, 1e-12);
      NEAR(d->memory_bytes, cases[i].gib * 1073741824.0, 1e-12);
    }
    ss_platform_free(p);
  }
}

static void test_platform_nics(void)
{
  ss_platform* p = load_platform("platforms/p4d.24xl.xml");
  /* p4d: four 100 Gb/s EFA NICs, one per PCIe switch of two GPUs, reached without the CPU. */
  CU_ASSERT_EQUAL(p->nnics, 4);
  for (int g = 0; g < 8; g++) {
    int k = ss_platform_gpu_nic(p, g);
    CU_ASSERT_EQUAL(k, g / 2);
    CU_ASSERT_STRING_EQUAL(ss_platform_node_name(p, ss_platform_nic_node(p, k)), p->nics[k].name);
    const ss_route* r = ss_platform_route(p, g, ss_platform_nic_node(p, k));
    CU_ASSERT_EQUAL(p->links[r->hops[r->nhops - 1].link].cls, SS_LINK_NIC);
  }
  ss_platform_free(p);
}

static void test_platform_errors(void)
{
  ss_platform* p = NULL;
  ss_err err;
  ss_err_clear(&err);
  CU_ASSERT(ss_platform_load("tests/no/such.xml", &p, &err) == SS_EINPUT);
  CU_ASSERT(p == NULL);
  char line[1024];
  ss_err_format(&err, line, sizeof(line));
  CU_ASSERT_STRING_EQUAL(line, "tests/no/such.xml: error: cannot open platform file: No such file or directory");
  /* A workload is not a platform: libxml2's first error, with its line. */
  ss_err_clear(&err);
  CU_ASSERT(ss_platform_load("tests/workloads/tiny.json", &p, &err) == SS_EINPUT);
  CU_ASSERT(err.line == 1);
}

/* ---- workload ---- */
static void test_workload_resnet50(void)
{
  ss_workload* w = load_workload("workloads/resnet50.json");
  CU_ASSERT_EQUAL(w->nlayers, 54);
  CU_ASSERT_EQUAL(w->batch_per_gpu, 80);
  double params = 0, fwd = 0, bwd = 0;
  for (int i = 0; i < w->nlayers; i++) {
    params += w->layers[i].params;
    fwd += w->layers[i].fwd_s;
    bwd += w->layers[i].bwd_s;
  }
  CU_ASSERT_EQUAL((long)params, 25557032L); /* torchvision ResNet-50 */
  NEAR(ss_workload_grad_bytes(w), 4.0 * 25557032, 1e-15);
  NEAR(fwd, 0.032963, 1e-9);
  NEAR(fwd + bwd + w->optimizer_s, 0.0987, 0.01);
  CU_ASSERT_STRING_EQUAL(w->layers[0].name, "conv1");
  CU_ASSERT_STRING_EQUAL(w->layers[53].name, "fc");
  /* Work per sample: conv1 = 2 x 9408 weights x 112 x 112 output pixels, no data gradient; fc
   * 2 x 2048 x 1000 forward, twice that backward. */
  CU_ASSERT(w->has_work && w->optimizer == SS_OPT_SGD_MOMENTUM);
  CU_ASSERT(w->layers[0].fwd_flops == 2.0 * 9408 * 112 * 112 && w->layers[0].bwd_flops == w->layers[0].fwd_flops);
  CU_ASSERT(w->layers[53].fwd_flops == 2.0 * 2048 * 1000 && w->layers[53].bwd_flops == 4.0 * 2048 * 1000);
  ss_workload_free(w);
}

/* The per-layer work and the optimizer read back (tests/workloads/tiny_work.json); without them
 * every figure is 0 and the optimizer SGD with momentum. */
static void test_workload_work(void)
{
  ss_workload* w = load_workload("tests/workloads/tiny_work.json");
  CU_ASSERT(w->has_work);
  CU_ASSERT_EQUAL(w->optimizer, SS_OPT_ADAMW);
  CU_ASSERT_STRING_EQUAL(ss_optimizer_name(w->optimizer), "adamw");
  const ss_layer* y = &w->layers[0];
  CU_ASSERT(y->fwd_flops == 2e6 && y->bwd_flops == 2e6 && y->fwd_bytes == 48000 && y->bwd_bytes == 96000);
  CU_ASSERT(y->act_bytes == 16000 && y->act_bytes_half == -1 && y->fwd_kernels == 3 && y->bwd_kernels == 3);
  y = &w->layers[2];
  CU_ASSERT(y->bwd_flops == 4e6 && y->bwd_kernels == 4);
  ss_workload_free(w);
  w = load_workload("tests/workloads/tiny.json");
  CU_ASSERT(!w->has_work && w->layers[1].fwd_flops == 0 && w->layers[1].bwd_kernels == 0);
  CU_ASSERT_STRING_EQUAL(ss_optimizer_name(w->optimizer), "sgd_momentum");
  ss_workload_free(w);
}

static void test_workload_gzip(void)
{
  const char* tmp = "build-test-tiny.json.gz";
  FILE* in = fopen("tests/workloads/tiny.json", "rb");
  CU_ASSERT_FATAL(in != NULL);
  gzFile out = gzopen(tmp, "wb");
  CU_ASSERT_FATAL(out != NULL);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
    gzwrite(out, buf, (unsigned)n);
  fclose(in);
  gzclose(out);
  ss_workload* w = load_workload(tmp);
  CU_ASSERT_EQUAL(w->nlayers, 3);
  NEAR(w->layers[1].bwd_s, 0.002, 1e-15);
  ss_workload_free(w);
  remove(tmp);
}

static void test_workload_error_position(void)
{
  const char* tmp = "build-test-bad.json";
  FILE* f = fopen(tmp, "w");
  CU_ASSERT_FATAL(f != NULL);
  fputs("{\n  \"schema\": \"stash-sim-workload/1\",\n  \"model\": x\n}\n", f);
  fclose(f);
  ss_workload* w = NULL;
  ss_err err;
  ss_err_clear(&err);
  CU_ASSERT(ss_workload_load(tmp, &w, &err) == SS_EINPUT);
  CU_ASSERT_EQUAL(err.line, 3);
  CU_ASSERT_EQUAL(err.col, 12);
  remove(tmp);
}

/* ---- topo ---- */
/* NCCL's pipelined ring (ss_cost_ring_chain): alike hops give the lock-step ring's call + steps x
 * (lat + a + x); a chunk's latencies add up along the ring's chain (two 10 us hops and a 20 us one:
 * 6 steps meet the 20 us hop twice, as they meet the hop out of an instance and its step latency); at large chunks the slowest hop sets the pace, its latency once;
 * a window of one chunk makes every step wait for the previous one to land. */
static void test_cost_ring_chain(void)
{
  double scratch[(SS_NCCL_STEPS + 3) * 3];
  const double a1[] = {5e-6}, x1[] = {1e-6};
  CU_ASSERT_DOUBLE_EQUAL(ss_cost_ring_chain(10, SS_NCCL_STEPS, 1, NULL, x1, a1, 2e-6, 2e-6, 3e-6, scratch),
                         3e-6 + 10 * (2e-6 + 5e-6 + 1e-6), 1e-15);
  const double a[] = {10e-6, 10e-6, 20e-6}, small[] = {0, 0, 0}, big[] = {1e-3, 1e-3, 2e-3};
  CU_ASSERT_DOUBLE_EQUAL(ss_cost_ring_chain(6, SS_NCCL_STEPS, 3, NULL, small, a, 0, 0, 0, scratch), 80e-6, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(ss_cost_ring_chain(6, SS_NCCL_STEPS, 3, NULL, big, a, 0, 0, 0, scratch), 20e-6 + 6 * 2e-3,
                         1e-12);
  /* Window 1: the 20 us hop pays its latency at every step. */
  CU_ASSERT_DOUBLE_EQUAL(ss_cost_ring_chain(6, 1, 3, NULL, small, a, 0, 0, 0, scratch), 6 * 20e-6, 1e-15);
  /* The hop out of the pattern's last position (to the next instance) at a step latency of its own:
   * 6 steps meet it twice, the others' 1 us four times. */
  const double zero[] = {0, 0, 0};
  CU_ASSERT_DOUBLE_EQUAL(ss_cost_ring_chain(6, SS_NCCL_STEPS, 3, NULL, small, zero, 1e-6, 10e-6, 0, scratch), 24e-6,
                         1e-15);
  /* A rank that arrives late: its own chunk starts then, and goes around all the steps. */
  const double t0[] = {0, 0, 1e-3}, same[] = {10e-6, 10e-6, 10e-6};
  CU_ASSERT_DOUBLE_EQUAL(ss_cost_ring_chain(6, SS_NCCL_STEPS, 3, t0, small, same, 0, 0, 0, scratch), 1e-3 + 60e-6,
                         1e-15);
  /* The buffer's slots: chunks of 512 KiB fill 8, of 2 MiB two; larger steps go in chunks of half
   * the buffer, two in flight (4 and 8 MiB, 1 GiB). */
  CU_ASSERT_EQUAL(ss_nccl_window(524288), 8);
  CU_ASSERT_EQUAL(ss_nccl_window(1048576), 4);
  CU_ASSERT_EQUAL(ss_nccl_window(2097152), 2);
  CU_ASSERT_EQUAL(ss_nccl_window(4194304), 2);
  CU_ASSERT_EQUAL(ss_nccl_window(8388608), 2);
  CU_ASSERT_EQUAL(ss_nccl_window(1073741824), 2);
  CU_ASSERT_EQUAL(ss_nccl_window(0), SS_NCCL_STEPS);
}

/* NCCL's releases: sockets per connection by NIC vendor (sim/nccl.c's sources). */
static void test_nccl_releases(void)
{
  CU_ASSERT_EQUAL(ss_nccl_sockets(SS_NCCL_2_3, SS_NIC_ENA), 1);
  CU_ASSERT_EQUAL(ss_nccl_sockets(SS_NCCL_2_4, SS_NIC_ENA), 1);
  CU_ASSERT_EQUAL(ss_nccl_sockets(SS_NCCL_2_4_8, SS_NIC_ENA), 16);
  CU_ASSERT_EQUAL(ss_nccl_sockets(SS_NCCL_2_4_8, SS_NIC_GVNIC), 1);
  CU_ASSERT_EQUAL(ss_nccl_sockets(SS_NCCL_2_4_8, SS_NIC_OTHER), 1);
  CU_ASSERT_EQUAL(ss_nccl_sockets(SS_NCCL_2_5, SS_NIC_GVNIC), 4);
  CU_ASSERT_EQUAL(ss_nccl_sockets(SS_NCCL_LATEST, SS_NIC_ENA), 16);
  CU_ASSERT_EQUAL(ss_nccl_sockets(SS_NCCL_LATEST, SS_NIC_OTHER), 1);
  for (int r = 0; r < SS_NCCL_COUNT; r++)
    for (int v = 0; v < SS_NIC_VENDOR_COUNT; v++) {
      const ss_nccl_release* k = ss_nccl_of((ss_nccl)r);
      CU_ASSERT(ss_nccl_sockets((ss_nccl)r, (ss_nic_vendor)v) <= SS_NCCL_MAX_SOCKETS);
      CU_ASSERT(k->threads[v] <= SS_NCCL_MAX_THREADS);
    }
  CU_ASSERT_STRING_EQUAL(ss_nccl_name(SS_NCCL_2_4_8), "2.4.8");
  CU_ASSERT_PTR_NULL(ss_nccl_names[SS_NCCL_COUNT]);
}

static void test_topo_star(void)
{
  ss_platform* p = load_platform("tests/platforms/star4.xml");
  int gpus[] = {0, 1, 2, 3};
  ss_rings r;
  CU_ASSERT_FATAL(ss_topo_rings(p, gpus, 4, &r) == 0);
  /* Every GPU has one up and one down link: one ring fills them, no second ring has bandwidth. */
  CU_ASSERT_EQUAL(r.nrings, 1);
  NEAR(r.rings[0].share, 1.0, 1e-15);
  NEAR(r.rings[0].bandwidth_bytes_per_s, 10e9, 1e-12);
  ss_topo_rings_free(&r);
  ss_platform_free(p);
}

static void test_topo_dgx1(void)
{
  ss_platform* p = load_platform("platforms/p3.16xl.xml");
  int gpus[] = {0, 1, 2, 3, 4, 5, 6, 7};
  ss_rings r;
  CU_ASSERT_FATAL(ss_topo_rings(p, gpus, 8, &r) == 0);
  /* NCCL on a DGX-1 V100: rings over the double links both ways, then the single links both ways. */
  CU_ASSERT_EQUAL(r.nrings, 4);
  NEAR(r.rings[0].bandwidth_bytes_per_s, 48.34e9, 1e-12);
  NEAR(r.rings[1].bandwidth_bytes_per_s, 48.34e9, 1e-12);
  NEAR(r.rings[2].bandwidth_bytes_per_s, 24.22e9, 1e-12);
  NEAR(r.rings[3].bandwidth_bytes_per_s, 24.22e9, 1e-12);
  double share = 0;
  for (int c = 0; c < r.nrings; c++) {
    share += r.rings[c].share;
    int seen = 0;
    for (int i = 0; i < 8; i++) {
      seen |= 1 << r.rings[c].order[i];
      CU_ASSERT(ss_platform_route_all(p, r.rings[c].order[i], r.rings[c].order[(i + 1) % 8], SS_LINK_NVLINK));
    }
    CU_ASSERT_EQUAL(seen, 0xff);
  }
  NEAR(share, 1.0, 1e-12);
  ss_topo_rings_free(&r);
  ss_platform_free(p);
}

static void test_topo_btree(void)
{
  for (int n = 1; n <= 40; n++) {
    int depth = ss_topo_btree_depth(n);
    CU_ASSERT((1 << depth) <= n && n < (2 << depth));
    for (int t = 0; t < 2; t++) {
      int roots = 0;
      for (int i = 0; i < n; i++) {
        int parent, child[2], slot;
        ss_topo_btree(n, t, i, &parent, child, &slot);
        roots += parent < 0;
        /* Parent and children agree, and walking up reaches the root within depth hops. */
        for (int c = 0; c < 2; c++)
          if (child[c] >= 0) {
            int cp, cc[2], cs;
            ss_topo_btree(n, t, child[c], &cp, cc, &cs);
            CU_ASSERT_EQUAL(cp, i);
            CU_ASSERT_EQUAL(cs, c);
          }
        int hops = 0;
        for (int k = i; k >= 0 && hops <= n; hops++) {
          int pc[2], ps;
          ss_topo_btree(n, t, k, &k, pc, &ps);
        }
        CU_ASSERT(hops - 1 <= depth);
      }
      CU_ASSERT_EQUAL(roots, 1);
    }
    /* n = 2^k - 1: a node inner in one tree is a leaf in the other (NCCL's double binary tree). */
    if ((n & (n + 1)) == 0 && n > 1)
      for (int i = 0; i < n; i++) {
        int inner = 0;
        for (int t = 0; t < 2; t++) {
          int parent, child[2], slot;
          ss_topo_btree(n, t, i, &parent, child, &slot);
          inner += child[0] >= 0;
        }
        CU_ASSERT(inner <= 1);
      }
  }
}

/* ---- cluster and cost ---- */
static ss_job* cluster_job(const ss_platform* p, const ss_workload* w, int instances, double oversub)
{
  ss_options o;
  ss_options_default(&o);
  o.instances = instances;
  o.oversub = oversub;
  o.synthetic = 1;
  o.call_cost = 0; /* the alpha-beta model: the protocols' costs have tests of their own */
  o.batch = 1;     /* an iteration of 200 x 2 GPUs within tiny's 1000 samples (an epoch is whole iterations) */
  ss_job* j = NULL;
  ss_err err;
  ss_err_clear(&err);
  CU_ASSERT_FATAL(ss_derive_job(p, w, &o, &j, &err) == 0);
  return j;
}

/* NCCL's choice (tuner.c) on 2 x p3dn.24xlarge, 8 bytes, NCCL 2.21: the ring's latency is its base
 * 6.6, 26 steps inside at NVLink's .6 x 1.8 (LL on several nodes; above the 1 us network overhead)
 * and 2 nNodes = 4 network steps at 2.7 + the plugin's 150 us: 645.48 us; the tree's 6.8 + 2 (7 x 1.08
 * + log2(2) x (5 + 150)) = 331.92 us: NCCL takes the tree. With NCCL 2.3 it has no tree; with 2.4, on
 * two NVLink instances, the tree at every size. */
static void test_tuner_choice(void)
{
  ss_workload* w = load_workload("tests/workloads/tiny.json");
  ss_platform* p = load_platform("platforms/p3dn.24xl.xml");
  const ss_nccl versions[] = {SS_NCCL_LATEST, SS_NCCL_2_3, SS_NCCL_2_4};
  for (int v = 0; v < 3; v++) {
    ss_options o;
    ss_options_default(&o);
    o.instances = 2;
    o.synthetic = 1;
    o.batch = 1;
    o.nccl_version = versions[v];
    ss_job* j = NULL;
    ss_err err;
    ss_err_clear(&err);
    CU_ASSERT_FATAL(ss_derive_job(p, w, &o, &j, &err) == 0);
    ss_tuner_entry table[2][3];
    ss_allreduce alg;
    ss_proto proto;
    ss_tuner_choose(j, SS_OP_ALLREDUCE, 8, &alg, &proto, table);
    if (v == 0) {
      NEAR(table[0][0].latency_us, 645.48, 1e-9);
      NEAR(table[1][0].latency_us, 331.92, 1e-9);
      CU_ASSERT_EQUAL(alg, SS_ALLREDUCE_TREE);
      CU_ASSERT_EQUAL(proto, SS_PROTO_LL);
      /* p3dn reaches its NIC through the CPU (no GPUDirect RDMA): no LL128. */
      CU_ASSERT(table[0][1].time_s < 0 && table[1][1].time_s < 0);
    } else if (v == 1) {
      CU_ASSERT_EQUAL(alg, SS_ALLREDUCE_RING);
      CU_ASSERT(table[1][0].time_s < 0 && table[1][2].time_s < 0);
    } else {
      CU_ASSERT_EQUAL(alg, SS_ALLREDUCE_TREE);
      ss_tuner_choose(j, SS_OP_ALLREDUCE, 1e9, &alg, &proto, NULL);
      CU_ASSERT_EQUAL(alg, SS_ALLREDUCE_TREE);
    }
    /* Reduce-scatter: rings only. */
    ss_tuner_choose(j, SS_OP_REDUCE_SCATTER, 8, &alg, &proto, NULL);
    CU_ASSERT_EQUAL(alg, SS_ALLREDUCE_RING);
    ss_job_free(j);
  }
  ss_platform_free(p);
  ss_workload_free(w);
}

/* goodput.c's closed form: against a hand computation of its formula, Young's optimum (the interval of
 * least loss among its neighbours), no failures (no checkpoint unless asked, then only its writes), the
 * refusals, and Llama 3's 54-day snapshot (Dubey et al. 2024, section 3.3.4: 419 unexpected interruptions
 * on 16,384 H100s, "higher than 90% effective training time"): 405e9 parameters x 12 bytes to Tectonic at its
 * sustained 2 TB/s, the job's MTBF 54 x 24 / 419 h, the default restart of 15 min: 89.9%. */
static void test_goodput_closed_form(void)
{
  ss_goodput g;
  char why[512];
  ss_goodput_in in = {1e6, 3600 * 10.0, 60, 600, 1800};
  CU_ASSERT_EQUAL(ss_goodput_compute(&in, &g, why, sizeof(why)), 0);
  double loss = 600 + (1800 + 60) / 2.0, wall = 1e6 * (1 + 60 / 1800.0) / (1 - loss / 36000);
  CU_ASSERT_DOUBLE_EQUAL(g.wall_s, wall, 1e-6 * wall);
  CU_ASSERT_DOUBLE_EQUAL(g.goodput, 1e6 / wall, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(g.interruptions, wall / 36000, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(g.checkpoints, 1e6 / 1800, 1e-9);
  CU_ASSERT(!g.young);
  /* Young: sqrt(2 write mtbf), and no neighbour of it loses less. */
  in.interval_s = 0;
  CU_ASSERT_EQUAL(ss_goodput_compute(&in, &g, why, sizeof(why)), 0);
  CU_ASSERT(g.young);
  CU_ASSERT_DOUBLE_EQUAL(g.interval_s, sqrt(2 * 60 * 36000.0), 1e-9);
  for (int k = -1; k <= 1; k += 2) {
    ss_goodput other;
    ss_goodput_in near = in;
    near.interval_s = g.interval_s * (1 + 0.2 * k);
    CU_ASSERT_EQUAL(ss_goodput_compute(&near, &other, why, sizeof(why)), 0);
    CU_ASSERT(other.goodput < g.goodput);
  }
  /* More failures never help; a faster write never hurts. */
  ss_goodput worse, faster;
  ss_goodput_in more = in, quick = in;
  more.mtbf_s /= 2;
  quick.write_s /= 2;
  CU_ASSERT_EQUAL(ss_goodput_compute(&more, &worse, why, sizeof(why)), 0);
  CU_ASSERT_EQUAL(ss_goodput_compute(&quick, &faster, why, sizeof(why)), 0);
  CU_ASSERT(worse.goodput < g.goodput && faster.goodput > g.goodput);
  /* No failures: nothing lost, no checkpoint unless asked for, then only its writes. */
  ss_goodput_in none = {1e6, INFINITY, 60, 600, 0};
  CU_ASSERT_EQUAL(ss_goodput_compute(&none, &g, why, sizeof(why)), 0);
  CU_ASSERT_DOUBLE_EQUAL(g.goodput, 1, 1e-15);
  CU_ASSERT_EQUAL(g.interruptions, 0);
  none.interval_s = 600;
  CU_ASSERT_EQUAL(ss_goodput_compute(&none, &g, why, sizeof(why)), 0);
  CU_ASSERT_DOUBLE_EQUAL(g.goodput, 1 / 1.1, 1e-12);
  /* Refused: an interval shorter than a write; a loss per failure beyond the time between them. */
  ss_goodput_in shorter = {1e6, 36000, 60, 600, 30};
  CU_ASSERT_EQUAL(ss_goodput_compute(&shorter, &g, why, sizeof(why)), -1);
  CU_ASSERT(strstr(why, "--checkpoint-every") != NULL);
  ss_goodput_in hopeless = {1e6, 600, 60, 600, 0};
  CU_ASSERT_EQUAL(ss_goodput_compute(&hopeless, &g, why, sizeof(why)), -1);
  CU_ASSERT(strstr(why, "no training progresses") != NULL);
  /* Llama 3's snapshot. */
  double mtbf = 54 * 24 * 3600.0 / 419, write = 405e9 * ss_goodput_ckpt_bytes_per_param(8) / 2e12;
  ss_goodput_in llama = {54 * 24 * 3600.0, mtbf, write, 15 * 60, 0};
  CU_ASSERT_EQUAL(ss_goodput_compute(&llama, &g, why, sizeof(why)), 0);
  CU_ASSERT_DOUBLE_EQUAL(g.goodput, 0.899, 0.001);
  CU_ASSERT_DOUBLE_EQUAL(SS_GOODPUT_GPU_MTBF_H * 8 / 8, 16384 * 54 * 24 / 419.0, 1e-9);
}

/* memo.c: what is kept is handed back under its kind and key, nothing else; a NULL memo keeps
 * nothing and frees what it is given; clearing forgets (ASan: nothing leaks). */
static void test_memo(void)
{
  ss_memo* m = ss_memo_new();
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  int* a = malloc(sizeof(int));
  *a = 7;
  ss_memo_put(m, "k", "1", a, free);
  CU_ASSERT_PTR_EQUAL(ss_memo_get(m, "k", "1"), a);
  CU_ASSERT_PTR_NULL(ss_memo_get(m, "k", "2"));
  CU_ASSERT_PTR_NULL(ss_memo_get(m, "other", "1"));
  ss_memo_put(NULL, "k", "1", malloc(4), free);
  CU_ASSERT_PTR_NULL(ss_memo_get(NULL, "k", "1"));
  ss_memo_clear(m);
  CU_ASSERT_PTR_NULL(ss_memo_get(m, "k", "1"));
  ss_memo_put(m, "k", "1", malloc(4), free);
  ss_memo_free(m);
}

/* aws-ofi-nccl's region tuner (ofitune.c, its tables of v1.16.3): the first size of each choice at 8
 * GPUs per instance, as calibration/efa_mechanisms_2026.md's section 4 derived them with a separate
 * re-implementation of the plugin's lookup; a point on an edge is in the region (p5en at 512 MiB on 4
 * instances: the vertex of its Ring/LL128); 2 instances, other GPU counts and other types are left to
 * NCCL; a region whose pair NCCL does not enable is passed over. */
static void test_ofitune_regions(void)
{
  static const struct {
    ss_ofi_platform plat;
    ss_coll_op op;
    int nodes, log2_bytes;
    ss_ofi_algo algo;
    ss_proto proto;
  } want[] = {
      {SS_OFI_P5, SS_OP_ALLREDUCE, 4, 25, SS_OFI_TREE, SS_PROTO_LL128},
      {SS_OFI_P5, SS_OP_ALLREDUCE, 4, 26, SS_OFI_RING, SS_PROTO_LL128},
      {SS_OFI_P5, SS_OP_ALLREDUCE, 4, 30, SS_OFI_RING, SS_PROTO_LL128},
      {SS_OFI_P5, SS_OP_ALLREDUCE, 4, 31, SS_OFI_RING, SS_PROTO_SIMPLE},
      {SS_OFI_P5, SS_OP_ALLREDUCE, 8, 26, SS_OFI_TREE, SS_PROTO_LL128},
      {SS_OFI_P5, SS_OP_ALLREDUCE, 8, 32, SS_OFI_RING, SS_PROTO_SIMPLE},
      {SS_OFI_P5, SS_OP_ALLREDUCE, 16, 32, SS_OFI_NVLS_TREE, SS_PROTO_SIMPLE},
      {SS_OFI_P5, SS_OP_ALLREDUCE, 32, 29, SS_OFI_NVLS_TREE, SS_PROTO_SIMPLE},
      {SS_OFI_P5, SS_OP_ALLREDUCE, 32, 31, SS_OFI_RING, SS_PROTO_LL128},
      {SS_OFI_P5, SS_OP_ALLREDUCE, 32, 34, SS_OFI_RING, SS_PROTO_SIMPLE},
      {SS_OFI_P5EN, SS_OP_ALLREDUCE, 4, 18, SS_OFI_TREE, SS_PROTO_LL},
      {SS_OFI_P5EN, SS_OP_ALLREDUCE, 4, 19, SS_OFI_TREE, SS_PROTO_LL128},
      {SS_OFI_P5EN, SS_OP_ALLREDUCE, 4, 29, SS_OFI_RING, SS_PROTO_LL128},
      {SS_OFI_P5EN, SS_OP_ALLREDUCE, 4, 30, SS_OFI_RING, SS_PROTO_SIMPLE},
      {SS_OFI_P5EN, SS_OP_ALLREDUCE, 8, 30, SS_OFI_NVLS_TREE, SS_PROTO_SIMPLE},
      {SS_OFI_P5EN, SS_OP_ALLREDUCE, 32, 28, SS_OFI_NVLS_TREE, SS_PROTO_SIMPLE},
      {SS_OFI_P5EN, SS_OP_ALL_GATHER, 4, 18, SS_OFI_RING, SS_PROTO_LL},
      {SS_OFI_P5EN, SS_OP_REDUCE_SCATTER, 4, 19, SS_OFI_RING, SS_PROTO_LL128},
      {SS_OFI_P5EN, SS_OP_ALL_GATHER, 32, 23, SS_OFI_RING, SS_PROTO_LL},
      {SS_OFI_P5EN, SS_OP_ALL_GATHER, 32, 33, SS_OFI_RING, SS_PROTO_SIMPLE},
      {SS_OFI_P6, SS_OP_ALLREDUCE, 4, 26, SS_OFI_TREE, SS_PROTO_LL128},
      {SS_OFI_P6, SS_OP_ALLREDUCE, 4, 27, SS_OFI_RING, SS_PROTO_LL128},
      {SS_OFI_P6, SS_OP_ALLREDUCE, 4, 30, SS_OFI_RING, SS_PROTO_SIMPLE},
      {SS_OFI_P6, SS_OP_ALLREDUCE, 32, 30, SS_OFI_RING, SS_PROTO_LL128},
      {SS_OFI_P6, SS_OP_ALL_GATHER, 4, 21, SS_OFI_RING, SS_PROTO_LL},
      {SS_OFI_P6, SS_OP_ALL_GATHER, 4, 22, SS_OFI_RING, SS_PROTO_LL128},
  };
  for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
    ss_ofi_algo a = SS_OFI_ALGO_COUNT;
    ss_proto p = SS_PROTO_AUTO;
    int got = ss_ofitune_choose(want[i].plat, want[i].op, ldexp(1, want[i].log2_bytes), 8 * want[i].nodes,
                                want[i].nodes, ~0u, &a, &p);
    CU_ASSERT(got == 1 && a == want[i].algo && p == want[i].proto);
    if (!(got == 1 && a == want[i].algo && p == want[i].proto))
      fprintf(stderr, "ofitune row %zu: got %d, %d, %d\n", i, got, (int)a, (int)p);
  }
  ss_ofi_algo a;
  ss_proto p;
  CU_ASSERT(ss_ofitune_choose(SS_OFI_P5EN, SS_OP_ALLREDUCE, 536870912, 32, 4, ~0u, &a, &p) == 1 && a == SS_OFI_RING &&
            p == SS_PROTO_LL128);
  CU_ASSERT(ss_ofitune_choose(SS_OFI_P5, SS_OP_ALLREDUCE, 1 << 20, 16, 2, ~0u, &a, &p) == 0);
  CU_ASSERT(ss_ofitune_choose(SS_OFI_P5, SS_OP_ALLREDUCE, 1 << 20, 16, 4, ~0u, &a, &p) == 0);
  CU_ASSERT(ss_ofitune_choose(SS_OFI_P5, SS_OP_ALL_GATHER, 1 << 20, 32, 4, ~0u, &a, &p) == 0);
  CU_ASSERT(ss_ofitune_choose(SS_OFI_NONE, SS_OP_ALLREDUCE, 1 << 20, 32, 4, ~0u, &a, &p) == 0);
  /* Without NVLS, p5's 16 instances at 4 GiB and 32 at 512 MiB are in no other region: NCCL's model
   * decides. Without the tree's LL128, p6-b200's 4 at 64 MiB fall to the next region that holds them
   * (on its edge), Ring/LL128. */
  unsigned no_nvls = ~0u & ~SS_OFI_ALLOW(SS_OFI_NVLS_TREE, SS_PROTO_SIMPLE);
  CU_ASSERT(ss_ofitune_choose(SS_OFI_P5, SS_OP_ALLREDUCE, ldexp(1, 32), 128, 16, no_nvls, &a, &p) == 0);
  CU_ASSERT(ss_ofitune_choose(SS_OFI_P5, SS_OP_ALLREDUCE, ldexp(1, 29), 256, 32, no_nvls, &a, &p) == 0);
  unsigned no_tree_ll128 = ~0u & ~SS_OFI_ALLOW(SS_OFI_TREE, SS_PROTO_LL128);
  CU_ASSERT(ss_ofitune_choose(SS_OFI_P6, SS_OP_ALLREDUCE, ldexp(1, 26), 32, 4, no_tree_ll128, &a, &p) == 1 &&
            a == SS_OFI_RING && p == SS_PROTO_LL128);
  /* Without LL128 a point of Tree/LL128 alone is NCCL's. */
  unsigned no_ll128 = ~0u & ~SS_OFI_ALLOW(SS_OFI_TREE, SS_PROTO_LL128) & ~SS_OFI_ALLOW(SS_OFI_RING, SS_PROTO_LL128);
  CU_ASSERT(ss_ofitune_choose(SS_OFI_P5, SS_OP_ALLREDUCE, 1 << 20, 32, 4, no_ll128, &a, &p) == 0);
  CU_ASSERT_EQUAL(ss_ofitune_platform("p5.48xlarge"), SS_OFI_P5);
  CU_ASSERT_EQUAL(ss_ofitune_platform("p5e.48xlarge"), SS_OFI_P5);
  CU_ASSERT_EQUAL(ss_ofitune_platform("p5en.48xlarge"), SS_OFI_P5EN);
  CU_ASSERT_EQUAL(ss_ofitune_platform("p6-b200.48xlarge"), SS_OFI_P6);
  CU_ASSERT_EQUAL(ss_ofitune_platform("p4d.24xlarge"), SS_OFI_NONE);
  CU_ASSERT_EQUAL(ss_ofitune_platform(NULL), SS_OFI_NONE);
}

/* The plugin's choice in a job (ss_tuner_choose): 4 x p5 at 256 MiB, where NCCL's own model runs the
 * tree, runs the plugin's Ring/LL128; --no-ofi-tuner, NCCL 2.20, 2 instances and a forced protocol
 * give NCCL's model's choice back, each with its reason. */
static void test_tuner_ofi(void)
{
  ss_workload* w = load_workload("tests/workloads/tiny.json");
  ss_platform* p = load_platform("platforms/p5.48xl.xml");
  for (int v = 0; v < 5; v++) {
    ss_options o;
    ss_options_default(&o);
    o.instances = v == 3 ? 2 : 4;
    o.synthetic = 1;
    o.batch = 1;
    o.ofi_tuner = v != 1;
    if (v == 2)
      o.nccl_version = SS_NCCL_2_20;
    if (v == 4)
      o.protocol = SS_PROTO_SIMPLE;
    ss_job* j = NULL;
    ss_err err;
    ss_err_clear(&err);
    CU_ASSERT_FATAL(ss_derive_job(p, w, &o, &j, &err) == 0);
    ss_allreduce alg;
    ss_proto proto;
    ss_tuner_choose(j, SS_OP_ALLREDUCE, 268435456, &alg, &proto, NULL);
    char why[256] = "";
    int lacks = ss_tuner_ofi_lacks(j, why, sizeof(why));
    if (v == 0) {
      CU_ASSERT(!lacks && alg == SS_ALLREDUCE_RING && proto == SS_PROTO_LL128);
    } else {
      CU_ASSERT(alg == SS_ALLREDUCE_TREE);
      CU_ASSERT(v == 1 || (lacks && why[0]));
    }
    ss_job_free(j);
  }
  ss_platform_free(p);
  ss_workload_free(w);
}

static size_t count(const char* text, const char* needle)
{
  size_t n = 0;
  for (const char* s = strstr(text, needle); s; s = strstr(s + 1, needle))
    n++;
  return n;
}

/* The composed platform as text in *text (the caller frees it); returns its length. The stream
 * writes through text until fclose: it is the caller's variable, not one of ours that dies here. */
static size_t compose(const ss_job* j, char** text)
{
  size_t size = 0;
  FILE* f = open_memstream(text, &size);
  CU_ASSERT_FATAL(f != NULL);
  CU_ASSERT(ss_cluster_write(j, f) == 0);
  fclose(f);
  return size;
}

static void test_cluster_compose(void)
{
  ss_platform* p = load_platform("tests/platforms/star2.xml");
  ss_workload* w = load_workload("tests/workloads/tiny.json");
  ss_job* j = cluster_job(p, w, 3, 1);
  char* text = NULL;
  compose(j, &text);
  /* Three instance zones, the switch zone, hosts named iK/..., each link once, zone routes both ways. */
  CU_ASSERT_EQUAL(count(text, "<zone id=\"i"), 3);
  CU_ASSERT_EQUAL(count(text, "<zone id=\"net\""), 1);
  CU_ASSERT_EQUAL(count(text, "<host id=\"i2/gpu1\""), 1);
  CU_ASSERT_EQUAL(count(text, "<link id=\"i1/nic\""), 1);
  CU_ASSERT_EQUAL(count(text, "<zoneRoute"), 6);
  CU_ASSERT_EQUAL(count(text, "net/core"), 0);
  CU_ASSERT_EQUAL(count(text, "<route src=\"i0/gpu0\" dst=\"i0/gw\""), 1);
  free(text);
  ss_job_free(j);
  /* Oversubscribed: a shared core of 3 x 10 GB/s / 2, on the way up only. */
  j = cluster_job(p, w, 3, 2);
  compose(j, &text);
  CU_ASSERT_EQUAL(count(text, "<link id=\"net/core\" bandwidth=\"15000000000Bps\""), 1);
  CU_ASSERT_EQUAL(count(text, "<link_ctn id=\"net/core\"/>"), 3);
  free(text);
  ss_job_free(j);
  /* The text grows linearly with the instances. */
  j = cluster_job(p, w, 100, 1);
  size_t s100 = compose(j, &text);
  free(text);
  ss_job_free(j);
  j = cluster_job(p, w, 200, 1);
  size_t s200 = compose(j, &text);
  free(text);
  ss_job_free(j);
  CU_ASSERT(s200 < 2.1 * s100);
  ss_workload_free(w);
  ss_platform_free(p);
}

static void test_cost_star(void)
{
  ss_platform* p = load_platform("tests/platforms/star4.xml");
  ss_workload* w = load_workload("tests/workloads/tiny.json");
  ss_job* j = cluster_job(p, w, 2, 1);
  /* star: 5 us per link; inside, GPU link up and down; across, GPU link, NIC, NIC, GPU link. */
  NEAR(ss_cost_alpha_intra(j), 10e-6, 1e-12);
  NEAR(ss_cost_alpha_cross(j), 20e-6, 1e-12);
  NEAR(ss_cost_alpha_global(j), 20e-6, 1e-12);
  /* The pipelined ring: 14 steps whose chunk meets the hop across 4 times (ceil(14 / 4)), the hop
   * inside 10 times. */
  NEAR(ss_cost_collective(j, SS_OP_ALLREDUCE, SS_ALLREDUCE_RING, 8e6), 4 * 20e-6 + 10 * 10e-6 + 14 * 8e6 / 8 / 10e9,
       1e-12);
  NEAR(ss_cost_collective(j, SS_OP_ALLREDUCE, SS_ALLREDUCE_HIERARCHICAL, 8e6),
       2 * 3 * (10e-6 + 2e6 / 10e9) + 2 * 1 * (20e-6 + 1e6 / 2.5e9), 1e-12);
  CU_ASSERT_EQUAL(ss_cost_tree_chunks(1), 1);
  CU_ASSERT_EQUAL(ss_cost_tree_chunks(1e12), SS_TREE_MAX_CHUNKS);
  NEAR(ss_cost_tree_bandwidth(j), 10e9 / 8, 1e-12);
  ss_job_free(j);
  j = cluster_job(p, w, 1, 1);
  CU_ASSERT_EQUAL(ss_cost_choose(j, SS_OP_ALLREDUCE, 8), SS_ALLREDUCE_RING);
  NEAR(ss_cost_alpha_cross(j), 0, 1e-12);
  ss_job_free(j);
  ss_workload_free(w);
  ss_platform_free(p);
}

/* A job of `instances` x instance file p with the NIC at gbps (Gb/s; 0: the file's) and NCCL's
 * per-call cost on (cost.c picks the protocol). */
static ss_job* nic_job(const ss_platform* p, const ss_workload* w, int instances, double gbps)
{
  ss_options o;
  ss_options_default(&o);
  o.instances = instances;
  o.synthetic = 1;
  o.batch = 1;
  if (gbps > 0)
    o.nic_gbps = gbps;
  ss_job* j = NULL;
  ss_err err;
  ss_err_clear(&err);
  CU_ASSERT_FATAL(ss_derive_job(p, w, &o, &j, &err) == 0);
  return j;
}

/* Issue 39: a faster NIC never makes the predicted collective slower. On 4 x p4d.24xlarge the
 * protocols' caps are rates (the A100's 235 GB/s), not a share of the bytes over the NIC's nominal
 * rate, so a 128 MiB tree with LL128 stops at what the GPUs' PCIe links carry; on 2 x
 * p3dn.24xlarge at 800 Gb/s the socket-1 GPUs' inter-socket link (20.8 GB/s for 4 of them), not the
 * NIC, bounds hierarchical's phase across instances, and LL's four times the bytes lose to Simple
 * (they won when only the NIC was shared). */
static void test_cost_faster_nic(void)
{
  ss_workload* w = load_workload("tests/workloads/tiny.json");
  ss_platform* p = load_platform("platforms/p4d.24xl.xml");
  const double gbps[] = {400, 3200, 6400, 800000};
  const ss_allreduce algs[] = {SS_ALLREDUCE_RING, SS_ALLREDUCE_TREE, SS_ALLREDUCE_HIERARCHICAL};
  for (int a = 0; a < 3; a++) {
    double prev = INFINITY;
    for (int k = 0; k < 4; k++) {
      ss_job* j = nic_job(p, w, 4, gbps[k]);
      ss_proto_cost pc;
      ss_cost_protocol_as(j, SS_OP_ALLREDUCE, algs[a], 134217728, SS_PROTO_LL128, &pc);
      CU_ASSERT(pc.eff[SS_PHASE_TREE] > 0.9 * j->tree_wire * j->net.ll128_share && j->tree_wire < 1 &&
                j->net.ll128_share > 0.5 && j->net.ll128_share < 1 && pc.cap_bytes_per_s[SS_PHASE_TREE] > 0);
      double t = ss_cost_collective(j, SS_OP_ALLREDUCE, algs[a], 134217728);
      CU_ASSERT(t > 0 && t <= prev * (1 + 1e-12));
      prev = t;
      ss_job_free(j);
    }
  }
  ss_platform_free(p);
  p = load_platform("platforms/p3dn.24xl.xml");
  for (int k = 0; k < 3; k++) {
    ss_job* j = nic_job(p, w, 2, 400.0 * (1 << k));
    ss_proto_cost pc;
    CU_ASSERT_EQUAL(ss_cost_protocol(j, SS_OP_ALLREDUCE, SS_ALLREDUCE_HIERARCHICAL, 524288, &pc), SS_PROTO_SIMPLE);
    ss_job_free(j);
  }
  ss_platform_free(p);
  ss_workload_free(w);
}

/* What transfers sharing a NIC hide of their latency (ss_cost_nic_hidden): nothing where the
 * routes are alike (g4dn.12xlarge); on p3.16xlarge, whose socket-1 GPUs (4-7) reach the NIC over
 * one more link, at most what going at their route's own rate would save, never below the NIC's
 * time for all the bytes; latency-bound steps hide almost nothing, bandwidth-bound ones most of
 * the latency, and a tree phase at least as much as its steps' bytes allow. */
static void test_cost_nic_hidden(void)
{
  ss_workload* w = load_workload("tests/workloads/tiny.json");
  ss_platform* p = load_platform("platforms/g4dn.12xl.xml");
  ss_job* j = cluster_job(p, w, 4, 1);
  double hidden[8];
  ss_cost_nic_hidden(j, 10e-6, 65536, 6, hidden);
  for (int l = 0; l < 4; l++)
    CU_ASSERT_EQUAL(hidden[l], 0);
  ss_job_free(j);
  ss_platform_free(p);
  p = load_platform("platforms/p3.16xl.xml");
  j = cluster_job(p, w, 16, 1);
  const int steps = 30;
  const double lat = 9.6e-6, nic = ss_cluster_nic_bandwidth(j), share = nic / 8;
  const double sizes[] = {64, 32768};
  for (int k = 0; k < 2; k++) {
    double bytes = sizes[k], last = 0;
    ss_cost_nic_hidden(j, lat, bytes, steps, hidden);
    for (int l = 0; l < 8; l++) {
      double alpha = ss_cluster_cross_latency(j, l, l), fast = steps * (lat + alpha + bytes / share);
      NEAR(alpha, l < 4 ? 44e-6 : 46e-6, 1e-12);
      CU_ASSERT(hidden[l] >= 0 && hidden[l] <= steps * bytes * (1 / share - 1 / ss_cluster_cross_bandwidth(j, l, l)));
      last = fmax(last, fast - hidden[l]);
      /* 64 B: under 1% of the latencies; 32 KiB: over half of them, under all. */
      CU_ASSERT(k == 0 ? hidden[l] < 0.01 * steps * alpha
                       : hidden[l] > 0.5 * steps * alpha && hidden[l] < steps * alpha);
    }
    CU_ASSERT(last >= steps * 8 * bytes / nic * (1 - 1e-12));
  }
  ss_job_free(j);
  ss_platform_free(p);
  ss_workload_free(w);
}

/* ---- proto ---- */

/* A one-instance ring of n GPUs over hardware hw at bus bandwidth bw (bytes/s), GPUs of arch. */
static ss_proto_shape ring_shape(int n, ss_hw hw, double bw, int arch)
{
  ss_proto_shape s = {.nodes = 1, .ranks_per_node = n, .arch = arch};
  s.steps[SS_PHASE_GLOBAL] = 2 * (n - 1);
  s.hw[SS_PHASE_GLOBAL] = hw;
  s.bus_bytes_per_s[SS_PHASE_GLOBAL] = bw;
  return s;
}

/* The figures of NCCL 2.10.3-1's tuning.cc, typed here: classes, LL128's rule, latencies, caps. */
static void test_proto_tuning(void)
{
  CU_ASSERT_EQUAL(ss_cost_link_hw(SS_LINK_NVSWITCH), SS_HW_NVLINK);
  CU_ASSERT_EQUAL(ss_cost_link_hw(SS_LINK_SOCKET), SS_HW_PCI);
  CU_ASSERT_EQUAL(ss_cost_link_hw(SS_LINK_NIC), SS_HW_NET);
  CU_ASSERT_EQUAL(ss_cost_link_hw(SS_LINK_CLASS_COUNT), SS_HW_PCI); /* a class it does not know */
  CU_ASSERT_EQUAL(ss_proto_hw_max(SS_HW_NVLINK, SS_HW_PCI), SS_HW_PCI);
  CU_ASSERT_EQUAL(ss_proto_arch("Tesla V100-SXM2-16GB"), 70);
  CU_ASSERT_EQUAL(ss_proto_arch("NVIDIA A100-SXM4-40GB"), 80);
  CU_ASSERT_EQUAL(ss_proto_arch("test-gpu-10Tf"), 0);
  ss_proto_shape s = ring_shape(8, SS_HW_NVLINK, 150e9, 70);
  CU_ASSERT(ss_proto_enabled(SS_PROTO_LL128, &s));
  s.arch = 75;
  CU_ASSERT(!ss_proto_enabled(SS_PROTO_LL128, &s));
  s = ring_shape(8, SS_HW_PCI, 150e9, 80);
  CU_ASSERT(!ss_proto_enabled(SS_PROTO_LL128, &s) && ss_proto_enabled(SS_PROTO_LL, &s));
  s = ring_shape(8, SS_HW_NVLINK, 150e9, 80);
  s.nodes = 2;
  CU_ASSERT(!ss_proto_enabled(SS_PROTO_LL128, &s));
  /* Ring on one node of V100s over NVLink: the call, 14 steps, efficiencies (LL 150/4 < 39). */
  s = ring_shape(8, SS_HW_NVLINK, 150e9, 70);
  ss_proto_cost c;
  ss_proto_cost_of(SS_PROTO_LL, &s, &c);
  NEAR(c.call_s, 3.6e-6, 1e-12);
  NEAR(c.step_s[SS_PHASE_GLOBAL], 0.47e-6, 1e-12);
  NEAR(c.eff[SS_PHASE_GLOBAL], 0.25, 1e-12);
  NEAR(ss_proto_latency_s(&s, &c), 3.6e-6 + 14 * 0.47e-6, 1e-12);
  ss_proto_cost_of(SS_PROTO_LL128, &s, &c);
  NEAR(ss_proto_latency_s(&s, &c), 10e-6 + 14 * 1.9e-6, 1e-12);
  NEAR(c.eff[SS_PHASE_GLOBAL], 0.92, 1e-12);
  ss_proto_cost_of(SS_PROTO_SIMPLE, &s, &c);
  NEAR(ss_proto_latency_s(&s, &c), 8.4e-6 + 14 * 3.4e-6, 1e-12);
  NEAR(c.eff[SS_PHASE_GLOBAL], 1, 1e-12);
  CU_ASSERT(c.cap_bytes_per_s[SS_PHASE_GLOBAL] == 0); /* Simple on V100s: no cap */
  NEAR(ss_proto_floor_s(&c, SS_PHASE_GLOBAL, 14, 1e6), 0, 1e-12);
  /* Caps, rates whatever the bus bandwidth (issue 39): LL at most 39 GB/s (H100, one node); A100 buses
   * at most 235 GB/s of wire (Simple's payload 235, LL's 58.75 < 87.7). The fractions stay. */
  for (double bw = 100e9; bw < 2e12; bw *= 4) {
    s = ring_shape(8, SS_HW_NVLINK, bw, 90);
    ss_proto_cost_of(SS_PROTO_LL, &s, &c);
    NEAR(c.eff[SS_PHASE_GLOBAL], 0.25, 1e-12);
    NEAR(c.cap_bytes_per_s[SS_PHASE_GLOBAL], 39e9, 1e-3);
    s = ring_shape(8, SS_HW_NVLINK, bw, 80);
    ss_proto_cost_of(SS_PROTO_SIMPLE, &s, &c);
    NEAR(c.eff[SS_PHASE_GLOBAL], 1, 1e-12);
    NEAR(c.cap_bytes_per_s[SS_PHASE_GLOBAL], 235e9, 1e-3);
    ss_proto_cost_of(SS_PROTO_LL, &s, &c);
    NEAR(c.eff[SS_PHASE_GLOBAL], 0.25, 1e-12);
    NEAR(c.cap_bytes_per_s[SS_PHASE_GLOBAL], 58.75e9, 1e-3);
  }
  /* The floor: 14 steps of 1 MB at 58.75 GB/s after each step's NVLink latency 0.47 us. */
  NEAR(ss_proto_floor_s(&c, SS_PHASE_GLOBAL, 14, 1e6), 14 * (0.47e-6 + 1e6 / 58.75e9), 1e-15);
  /* Hierarchical on 4 nodes: LL's intra-node steps x 1.8, network steps 2.7 us; LL128 with one GPU per
   * node 0.7; the tree's call and level latency. */
  ss_proto_shape h = {.nodes = 4, .ranks_per_node = 1, .arch = 70};
  h.steps[SS_PHASE_INTRA] = 6;
  h.hw[SS_PHASE_INTRA] = SS_HW_PCI;
  h.steps[SS_PHASE_CROSS] = 6;
  h.hw[SS_PHASE_CROSS] = SS_HW_NET;
  h.bus_bytes_per_s[SS_PHASE_CROSS] = 10e9;
  ss_proto_cost_of(SS_PROTO_LL, &h, &c);
  NEAR(ss_proto_latency_s(&h, &c), 3.6e-6 + 6 * 1.8e-6 + 6 * 2.7e-6, 1e-12);
  ss_proto_cost_of(SS_PROTO_LL128, &h, &c);
  NEAR(c.eff[SS_PHASE_CROSS], 0.7, 1e-12);
  CU_ASSERT(c.cap_bytes_per_s[SS_PHASE_CROSS] == 0);
  ss_proto_cost_of(SS_PROTO_LL, &h, &c); /* LL across 4 instances: llMaxBw 20.4 GB/s */
  NEAR(c.cap_bytes_per_s[SS_PHASE_CROSS], 20.4e9, 1e-3);
  h.tree = 1;
  h.steps[SS_PHASE_CROSS] = 0;
  h.steps[SS_PHASE_TREE] = 4;
  h.hw[SS_PHASE_TREE] = SS_HW_NET;
  ss_proto_cost_of(SS_PROTO_SIMPLE, &h, &c);
  NEAR(ss_proto_latency_s(&h, &c), 6 * 5.7e-6 + 4 * 28e-6, 1e-12);
  ss_proto_cost_none(&c);
  CU_ASSERT(c.proto == SS_PROTO_SIMPLE && c.call_s == 0 && c.eff[SS_PHASE_TREE] == 1);
  CU_ASSERT_STRING_EQUAL(ss_proto_name(SS_PROTO_LL128), "LL128");
  CU_ASSERT_STRING_EQUAL(ss_proto_name(SS_PROTO_AUTO), "auto");
  CU_ASSERT(!ss_proto_enabled(SS_PROTO_AUTO, &h));
}

/* ---- job ---- */
static ss_job* make_job(const ss_platform* p, const ss_workload* w, double bucket_mib)
{
  ss_options o;
  ss_options_default(&o);
  o.bucket_mib = bucket_mib;
  ss_job* j = NULL;
  ss_err err;
  ss_err_clear(&err);
  CU_ASSERT_FATAL(ss_derive_job(p, w, &o, &j, &err) == 0);
  return j;
}

static void test_job_buckets(void)
{
  ss_platform* p = load_platform("platforms/p3.16xl.xml");
  ss_workload* w = load_workload("workloads/resnet50.json");
  ss_job* j = make_job(p, w, 25);
  double total = 0;
  for (int b = 0; b < j->nbuckets; b++) {
    total += j->buckets[b].bytes;
    CU_ASSERT(j->buckets[b].first_layer >= j->buckets[b].last_layer);
    if (b > 0)
      CU_ASSERT_EQUAL(j->buckets[b].first_layer, j->buckets[b - 1].last_layer - 1);
  }
  NEAR(total, ss_workload_grad_bytes(w), 1e-15);
  /* DDP: the first bucket closes once it reaches 1 MiB: the fc layer's 8.2 MB alone. */
  CU_ASSERT_EQUAL(j->buckets[0].first_layer, 53);
  CU_ASSERT_EQUAL(j->buckets[0].last_layer, 53);
  CU_ASSERT_EQUAL(j->buckets[j->nbuckets - 1].last_layer, 0);
  CU_ASSERT_EQUAL(j->nbuckets, 5);
  int nb25 = j->nbuckets;
  ss_job_free(j);
  j = make_job(p, w, 5);
  CU_ASSERT(j->nbuckets > nb25);
  ss_job_free(j);
  /* Defaults derived from the instance: vCPUs / GPUs workers, the dataset fits in 80% of 488 GiB. */
  j = make_job(p, w, 25);
  CU_ASSERT_EQUAL(j->workers, 8);
  CU_ASSERT(j->roofline); /* auto: the workload gives its work, the V100 its figures */
  CU_ASSERT_EQUAL(j->cache, 1.0);
  /* Measured: whole loader cycles of 8 (at least 10 iterations), then one cycle not measured. */
  CU_ASSERT_EQUAL(j->warmup, 2);
  CU_ASSERT_EQUAL(j->iterations, 16);
  CU_ASSERT_EQUAL(j->cooldown, 8);
  CU_ASSERT_EQUAL(j->niters, 26);
  /* The default batch (80) is 2.5 times the reference batch (32) the times were measured at: linear with
   * --compute-model peak. */
  ss_job_free(j);
  ss_options o;
  ss_options_default(&o);
  o.compute_model = SS_COMPUTE_PEAK;
  ss_err err;
  ss_err_clear(&err);
  CU_ASSERT_FATAL(ss_derive_job(p, w, &o, &j, &err) == 0);
  NEAR(j->fwd_flops[0], 0.001545 * 80 / 32 * 15.7e12, 1e-12);
  ss_job_free(j);
  ss_workload_free(w);
  ss_platform_free(p);
}

static void test_job_gpus_beyond_instance(void)
{
  ss_platform* p = load_platform("platforms/p3.8xl.xml");
  ss_workload* w = load_workload("tests/workloads/tiny.json");
  ss_options o;
  ss_options_default(&o);
  o.gpus = 8;
  ss_job* j = NULL;
  ss_err err;
  ss_err_clear(&err);
  CU_ASSERT(ss_derive_job(p, w, &o, &j, &err) == SS_EINPUT);
  CU_ASSERT(j == NULL);
  CU_ASSERT_STRING_EQUAL(err.file, "platforms/p3.8xl.xml");
  CU_ASSERT_STRING_EQUAL(err.msg, "--gpus expects a whole number from 1 to 4 for p3.8xlarge, got 8");
  ss_workload_free(w);
  ss_platform_free(p);
}

/* Activation checkpointing (tests/workloads/tiny_ckpt.json: 'embed' in no block, then the blocks
 * {block0.attn, block0.mlp} and {block1}; on by default): each checkpointed layer's backward adds its
 * forward's GPU work, host time (0.3 ms) and launches (block0.attn's two tensors launch twice); a
 * workload that marks no layer is refused with checkpointing on. */
static void test_job_checkpoint(void)
{
  ss_platform* p = load_platform("tests/platforms/star2.xml");
  ss_workload* w = load_workload("tests/workloads/tiny_ckpt.json");
  ss_workload* plain = load_workload("tests/workloads/tiny_work.json");
  ss_options o;
  ss_options_default(&o);
  o.gpus = 1;
  ss_job *on = NULL, *off = NULL;
  ss_err err;
  ss_err_clear(&err);
  CU_ASSERT_FATAL(ss_derive_job(p, w, &o, &on, &err) == 0);
  o.checkpoint_activations = SS_CKPT_OFF;
  CU_ASSERT_FATAL(ss_derive_job(p, w, &o, &off, &err) == 0);
  CU_ASSERT(on->ckpt && !off->ckpt && on->resolved.checkpoint_activations == SS_CKPT_ON &&
            off->resolved.checkpoint_activations == SS_CKPT_OFF);
  double launches[2] = {0, 0};
  for (int l = 0; l < 4; l++) {
    NEAR(on->bwd_flops[l], off->bwd_flops[l] + (l > 0 ? off->fwd_flops[l] : 0), 1e-15);
    NEAR(on->host_bwd_s[l], 0.0004 + (l > 0 ? 0.0003 : 0), 1e-15);
    NEAR(off->host_bwd_s[l], 0.0004, 1e-15);
  }
  for (int s = 0; s < on->nsegs; s++)
    launches[0] += on->segs[s].kind == SS_SEG_BACKWARD ? on->segs[s].launches : 0;
  for (int s = 0; s < off->nsegs; s++)
    launches[1] += off->segs[s].kind == SS_SEG_BACKWARD ? off->segs[s].launches : 0;
  CU_ASSERT_DOUBLE_EQUAL(launches[1], 2 * (1 + 2 + 1 + 1), 0);
  CU_ASSERT_DOUBLE_EQUAL(launches[0], launches[1] + 2 + 1 + 1, 0);
  ss_job_free(on);
  ss_job_free(off);
  o.checkpoint_activations = SS_CKPT_ON;
  CU_ASSERT(ss_derive_job(p, plain, &o, &on, &err) == SS_EINPUT);
  CU_ASSERT_STRING_EQUAL(err.file, "tests/workloads/tiny_work.json");
  CU_ASSERT(strncmp(err.msg, "--checkpoint-activations on: no layer gives ckpt_bytes", 53) == 0);
  ss_workload_free(plain);
  ss_workload_free(w);
  ss_platform_free(p);
}

/* ---- timeline and stall ---- */
static void test_timeline_breakdown(void)
{
  ss_timeline* t = ss_timeline_new(2, 3);
  CU_ASSERT_FATAL(t != NULL);
  /* Rank r, iteration i: 1 s compute + (r + 1) * 0.5 s interconnect, back to back. */
  for (int r = 0; r < 2; r++) {
    double now = 0;
    for (int i = 0; i < 3; i++) {
      double d = 1 + (r + 1) * 0.5 + (i == 0 ? 2 : 0);
      ss_timeline_add(t, r, i, SS_CAT_COMPUTE, 1 + (i == 0 ? 2 : 0));
      ss_timeline_add(t, r, i, SS_CAT_INTERCONNECT, (r + 1) * 0.5);
      ss_timeline_span(t, r, i, now, now + d);
      now += d;
    }
  }
  ss_breakdown b;
  ss_stall_timeline(t, 1, 2, &b);
  NEAR(b.iteration_s, 1.75, 1e-15);
  NEAR(b.part_s[SS_CAT_COMPUTE], 1.0, 1e-15);
  NEAR(b.part_s[SS_CAT_INTERCONNECT], 0.75, 1e-15);
  CU_ASSERT_EQUAL(b.part_s[SS_CAT_NETWORK], 0);
  NEAR(b.first_iteration_s, 3.5, 1e-15);
  CU_ASSERT_STRING_EQUAL(ss_cat_name(SS_CAT_FETCH), "fetch_stall");
  ss_timeline_free(t);
}

/* ---- cli ---- */
static int parse(const char* line, ss_cli* c, char* msg)
{
  char buf[1024];
  snprintf(buf, sizeof(buf), "%s", line);
  char* argv[32];
  int argc = 0;
  for (char* t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " "))
    argv[argc++] = t;
  argv[argc] = NULL;
  int rc = ss_cli_parse(argc, argv, c, msg, 512);
  /* argv points into buf: keep only what the tests read. */
  c->opt.platform_path = c->opt.platform_path ? "set" : NULL;
  c->opt.output = c->opt.output ? "set" : NULL;
  return rc;
}

static void test_cli(void)
{
  ss_cli c;
  char msg[512];
  CU_ASSERT(parse("stash-sim p.xml w.json --gpus 4 -b 64 --no-overlap --cache 0.5 --format csv "
                  "--cfg=network/model:LV08 --bucket-mb 12.5 -w 3 --warmup 0 -n 7 --log=root.thres:critical",
                  &c, msg) == 0);
  CU_ASSERT_EQUAL(c.opt.gpus, 4);
  CU_ASSERT_EQUAL(c.opt.batch, 64);
  CU_ASSERT_EQUAL(c.opt.overlap, 0);
  CU_ASSERT_EQUAL(c.opt.synthetic, 0);
  CU_ASSERT_EQUAL(c.opt.cache, 0.5);
  CU_ASSERT_EQUAL(c.opt.format, SS_FORMAT_CSV);
  CU_ASSERT_EQUAL(c.opt.bucket_mib, 12.5);
  CU_ASSERT_EQUAL(c.opt.workers, 3);
  CU_ASSERT_EQUAL(c.opt.warmup, 0);
  CU_ASSERT_EQUAL(c.opt.iterations, 7);
  CU_ASSERT_EQUAL(c.ncfg, 2);
  ss_cli_free(&c);
  CU_ASSERT(parse("stash-sim p.xml w.json --frobnicate", &c, msg) == 2);
  CU_ASSERT_STRING_EQUAL(msg, "stash-sim: error: unknown option '--frobnicate' (see --help)");
  ss_cli_free(&c);
  CU_ASSERT(parse("stash-sim p.xml", &c, msg) == 2);
  ss_cli_free(&c);
  CU_ASSERT(parse("stash-sim p.xml w.json --cache 1.5", &c, msg) == 2);
  ss_cli_free(&c);
  CU_ASSERT(parse("stash-sim p.xml w.json --gpus 0", &c, msg) == 2);
  ss_cli_free(&c);
  CU_ASSERT(parse("stash-sim --help", &c, msg) == 0 && c.help);
  ss_cli_free(&c);
  /* An option with no effect in the chosen mode names both. */
  CU_ASSERT(parse("stash-sim p.xml w.json --synthetic -w 3", &c, msg) == 2);
  CU_ASSERT_STRING_EQUAL(msg,
                         "stash-sim: error: --workers has no effect with --synthetic (no data loading) (see --help)");
  ss_cli_free(&c);
  /* Old spellings stay aliases; whatif keys go through the option of the same name. */
  CU_ASSERT(parse("stash-sim whatif p.xml w.json --bucket-mb 5 --instances 2 --change bucket_mb=7 --change nvlink=off "
                  "--change nic_gbps=100",
                  &c, msg) == 0);
  CU_ASSERT(c.opt.bucket_mib == 5 && c.changed.bucket_mib == 7 && c.opt.nvlink == 1 && c.changed.nvlink == 0);
  CU_ASSERT(c.changed.nic_gbps == 100 && c.opt.nic_gbps == -1);
  ss_cli_free(&c);
  CU_ASSERT(parse("stash-sim bench allreduce p.xml --max-bytes 64Mi --min-bytes 1k", &c, msg) == 0);
  CU_ASSERT(c.opt.max_bytes == 67108864.0 && c.opt.min_bytes == 1000);
  ss_cli_free(&c);
}

/* ---- option: the registry's rows follow the conventions of docs/formats.md ---- */
static void test_option_registry(void)
{
  ss_options o;
  ss_options_default(&o);
  char msg[512], key[64];
  int n = ss_option_count();
  CU_ASSERT(n > 30);
  for (int i = 0; i < n; i++) {
    const ss_optdef* d = &ss_option_table[i];
    CU_ASSERT(d->help && d->help[0] && d->group && d->commands);
    /* A key is the option's name with underscores, without a leading "no-". */
    const char* base = strncmp(d->name, "no-", 3) == 0 ? d->name + 3 : d->name;
    size_t k = 0;
    for (; base[k] && k + 1 < sizeof(key); k++)
      key[k] = base[k] == '-' ? '_' : base[k];
    key[k] = '\0';
    if (d->whatif_key)
      CU_ASSERT_STRING_EQUAL(d->whatif_key, key);
    if (d->report_key)
      CU_ASSERT_STRING_EQUAL(d->report_key, key);
    if (!d->positional)
      CU_ASSERT(ss_option_by_name(d->name) == d);
    for (int j = 0; j < i; j++)
      CU_ASSERT(strcmp(ss_option_table[j].name, d->name) != 0 || d->positional != ss_option_table[j].positional);
    /* Defaults lie in the range, or are -1: derived from the inputs. */
    if (d->kind == SS_KIND_COUNT || d->kind == SS_KIND_REAL || d->kind == SS_KIND_SIZE)
      CU_ASSERT(d->dflt == -1 || (d->dflt >= d->min && d->dflt <= d->max));
    if (d->kind == SS_KIND_ENUM)
      CU_ASSERT(d->values && d->values[0] && d->values[1]);
    /* A value below the range is refused with the range in the message. */
    if (d->kind == SS_KIND_COUNT && d->min > -1e9) {
      char below[32];
      snprintf(below, sizeof(below), "%.0f", d->min - 1);
      CU_ASSERT(ss_option_parse(d, below, &o, "--x", msg, sizeof(msg)) == -1 && strstr(msg, "from"));
    }
  }
  const ss_optdef* g = ss_option_by_name("gpus");
  CU_ASSERT(ss_option_parse(g, "9x", &o, "--gpus", msg, sizeof(msg)) == -1);
  CU_ASSERT_STRING_EQUAL(msg, "--gpus expects a whole number from 1 to 65536, got '9x'");
  CU_ASSERT(ss_option_by_key("bucket_mb") == ss_option_by_name("bucket-mib"));
  CU_ASSERT(ss_option_by_short('g') == g);
  /* The echo of an option: JSON values and CSV text. */
  char buf[64];
  ss_option_value_text(ss_option_by_name("allreduce"), &o, 1, buf, sizeof(buf));
  CU_ASSERT_STRING_EQUAL(buf, "\"auto\"");
  ss_option_value_text(g, &o, 1, buf, sizeof(buf));
  CU_ASSERT_STRING_EQUAL(buf, "null");
  ss_option_value_text(ss_option_by_name("no-nvlink"), &o, 0, buf, sizeof(buf));
  CU_ASSERT_STRING_EQUAL(buf, "true");
}

/* ---- report ---- */
static void test_report_json(void)
{
  ss_platform* p = load_platform("tests/platforms/star2.xml");
  ss_workload* w = load_workload("tests/workloads/tiny.json");
  ss_job* j = make_job(p, w, 25);
  ss_timeline* t = ss_timeline_new(2, j->niters);
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < j->niters; i++) {
      ss_timeline_add(t, r, i, SS_CAT_COMPUTE, 0.0095);
      ss_timeline_add(t, r, i, SS_CAT_PREP, 0.0005);
      ss_timeline_span(t, r, i, i * 0.01, (i + 1) * 0.01);
    }
  ss_result res;
  CU_ASSERT_FATAL(ss_result_compute(j, t, 0.12, &res, NULL) == SS_OK);
  NEAR(res.throughput_samples_per_s, 16 / 0.01, 1e-12);
  NEAR(res.cost_usd_per_epoch, p->price_usd_per_h * (1000 / 1600.0) / 3600, 1e-12);
  char* buf = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  CU_ASSERT_FATAL(f != NULL);
  CU_ASSERT(ss_report_write(f, &res, SS_FORMAT_JSON) == 0);
  fclose(f);
  cJSON* json = cJSON_Parse(buf);
  CU_ASSERT_FATAL(json != NULL);
  const char* keys[] = {
      "platform",           "workload", "instances", "gpus", "batch_per_gpu", "iteration_s", "throughput_samples_per_s",
      "cost_usd_per_epoch", "breakdown"};
  for (int k = 0; k < 9; k++)
    CU_ASSERT(cJSON_GetObjectItemCaseSensitive(json, keys[k]) != NULL);
  const cJSON* b = cJSON_GetObjectItemCaseSensitive(json, "breakdown");
  NEAR(cJSON_GetObjectItemCaseSensitive(b, "prep_stall_s")->valuedouble, 0.0005, 1e-15);
  const cJSON* pct = cJSON_GetObjectItemCaseSensitive(json, "breakdown_pct");
  CU_ASSERT_FATAL(cJSON_IsObject(pct));
  NEAR(cJSON_GetObjectItemCaseSensitive(pct, "prep_stall_pct")->valuedouble, 5.0, 1e-12);
  NEAR(cJSON_GetObjectItemCaseSensitive(pct, "compute_pct")->valuedouble, 95.0, 1e-12);
  cJSON_Delete(json);
  free(buf);
  ss_options o;
  ss_options_default(&o);
  char msg[256];
  CU_ASSERT(ss_option_parse(ss_option_by_name("format"), "csv", &o, "--format", msg, sizeof(msg)) == 0 &&
            o.format == SS_FORMAT_CSV);
  CU_ASSERT(ss_option_parse(ss_option_by_name("format"), "xml", &o, "--format", msg, sizeof(msg)) != 0);
  ss_timeline_free(t);
  ss_job_free(j);
  ss_workload_free(w);
  ss_platform_free(p);
}

/* ---- price ---- */
static void price_file(char* path, const char* text)
{
  strcpy(path, "/tmp/ss_price_XXXXXX");
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
  close(fd);
}

/* A price file with quoted fields, CRLF, a blank line and the optional source column (not the
 * table's kind column). */
#define PRICE_QUOTED                                                                                                   \
  "region,instance_type,usd_per_h,source\r\n\r\nus-east-1, p3.2xlarge ,3.06,\"AWS, \"\"list\"\"\"\r\n"                 \
  "eu-west-1,p3.2xlarge,0,own\n"

/* The reader: quoted fields, CRLF, blank lines, optional columns; one error per defect. */
static void test_price_reader(void)
{
  char path[64];
  ss_prices p;
  ss_err err;
  price_file(path, PRICE_QUOTED);
  ss_err_clear(&err);
  CU_ASSERT_FATAL(ss_prices_read(path, 0, &p, &err) == SS_OK);
  CU_ASSERT(p.nrows == 2 && p.has_region);
  const ss_price_row* r = ss_prices_find(&p, "p3.2xlarge", "us-east-1", SS_PURCHASE_AUTO, NULL);
  CU_ASSERT_FATAL(r != NULL);
  CU_ASSERT(r->usd_per_h == 3.06 && r->line == 3 && strcmp(r->source, "AWS, \"list\"") == 0 && r->kind == NULL);
  CU_ASSERT(ss_prices_find(&p, "p3.2xlarge", "eu-west-1", SS_PURCHASE_SPOT, NULL)->usd_per_h == 0);
  CU_ASSERT(ss_prices_find(&p, "p3.2xlarge", "us-west-2", SS_PURCHASE_AUTO, NULL) == NULL);
  CU_ASSERT(ss_prices_has_region(&p, "eu-west-1") && !ss_prices_has_region(&p, "us-west-2"));
  ss_prices_free(&p);
  unlink(path);
  /* Without a region column a row serves every region. */
  price_file(path, "instance_type,usd_per_h\nx,1.5\n");
  ss_err_clear(&err);
  CU_ASSERT_FATAL(ss_prices_read(path, 0, &p, &err) == SS_OK);
  CU_ASSERT(ss_prices_find(&p, "x", "ap-south-1", SS_PURCHASE_AUTO, NULL) != NULL &&
            ss_prices_has_region(&p, "anywhere"));
  ss_prices_free(&p);
  unlink(path);
  /* A spreadsheet's byte order mark before the header is not part of its first column. */
  price_file(path, "\xEF\xBB\xBFinstance_type,usd_per_h\nx,1.5\n");
  ss_err_clear(&err);
  CU_ASSERT_FATAL(ss_prices_read(path, 0, &p, &err) == SS_OK);
  CU_ASSERT(ss_prices_find(&p, "x", "us-east-1", SS_PURCHASE_AUTO, NULL) != NULL);
  ss_prices_free(&p);
  unlink(path);
  /* Kinds and dates: a row of each (type, region, kind, date); the latest on or before a day wins. */
  price_file(path, "instance_type,usd_per_h,kind,date\nx,9,on-demand,2025-01-01\nx,5,on-demand,2025-06-05\n"
                   "x,3,spot,2025-06-05\n");
  ss_err_clear(&err);
  CU_ASSERT_FATAL(ss_prices_read(path, 0, &p, &err) == SS_OK);
  CU_ASSERT(p.has_kind && p.rows[2].purchase == SS_PURCHASE_SPOT);
  CU_ASSERT(ss_prices_find(&p, "x", "r", SS_PURCHASE_ON_DEMAND, NULL)->usd_per_h == 5);
  CU_ASSERT(ss_prices_find(&p, "x", "r", SS_PURCHASE_ON_DEMAND, "2025-06-04")->usd_per_h == 9);
  CU_ASSERT(ss_prices_find(&p, "x", "r", SS_PURCHASE_ON_DEMAND, "2024-12-31") == NULL);
  CU_ASSERT(ss_prices_find(&p, "x", "r", SS_PURCHASE_SPOT, "2025-06-05")->usd_per_h == 3);
  CU_ASSERT(ss_prices_find(&p, "x", "r", SS_PURCHASE_CAPACITY_BLOCK, NULL) == NULL);
  ss_prices_free(&p);
  unlink(path);
  CU_ASSERT(ss_price_date_ok("2025-06-05") && !ss_price_date_ok("2025-13-01") && !ss_price_date_ok("2025-6-05") &&
            !ss_price_date_ok("2025-06-05x") && !ss_price_date_ok("June 2025"));
  /* The defects, in a user's file or in the table (table set: which needs every column). */
  static const struct {
    const char* text;
    int table;
    int line;
    const char* msg;
  } bad[] = {
      {PRICE_QUOTED, 1, 1, "no column 'kind'"},
      {"instance_type,region\nx,y\n", 0, 1, "no column 'usd_per_h'"},
      {"instance_type,usd_per_h\nx,1.5USD\n", 0, 2, "got '1.5USD'"},
      {"instance_type,usd_per_h\nx,-0.5\n", 0, 2, "got '-0.5'"},
      {"instance_type,usd_per_h\nx,1e7\n", 0, 2, "got '1e7'"},
      {"instance_type,usd_per_h\nx,nan\n", 0, 2, "got 'nan'"},
      {"instance_type,usd_per_h\nx,1\ny,2\nx,3\n", 0, 4, "a second row of x (the first is on line 2)"},
      {"instance_type,region,usd_per_h\nx,,1\n", 0, 2, "the cell 'region' is empty"},
      {"instance_type,usd_per_h,usd_per_h\n", 0, 1, "a second column 'usd_per_h'"},
      {"instance_type,usd_per_h\nx\n", 0, 2, "1 field, the header has 2"},
      {"instance_type,usd_per_h\n", 0, 0, "no price rows"},
      {"", 0, 0, "no header line"},
      {"instance_type,usd_per_h,kind\nx,1,reserved\n", 0, 2, "kind: expected on-demand, capacity-block"},
      {"instance_type,usd_per_h,date\nx,1,June 2025\n", 0, 2, "date: expected the day the price holds from"},
      {"instance_type,usd_per_h,date\nx,1,\n", 0, 2, "the cell 'date' is empty"},
      {"instance_type,usd_per_h,status\nx,1,guess\n", 0, 2, "status: expected PUBLISHED, DERIVED or ESTIMATE"},
      {"instance_type,usd_per_h,kind,date\nx,1,spot,2025-01-01\nx,2,spot,2025-01-01\n", 0, 3,
       "a second row of x, spot on 2025-01-01 (the first is on line 2)"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    price_file(path, bad[i].text);
    ss_err_clear(&err);
    CU_ASSERT(ss_prices_read(path, bad[i].table, &p, &err) == SS_EINPUT);
    CU_ASSERT(err.line == bad[i].line);
    CU_ASSERT(strstr(err.msg, bad[i].msg) != NULL);
    if (!strstr(err.msg, bad[i].msg))
      fprintf(stderr, "case %zu: '%s'\n", i, err.msg);
    unlink(path);
  }
}

/* Resolution: the price file, then the table next to the instance file, then the instance file
 * for us-east-1; else an error naming the type and the region. The purchase option and the day pick
 * among a type's rows; a type sold only elsewhere takes its first region. */
static void test_price_resolve(void)
{
  ss_price out;
  ss_err err;
  ss_err_clear(&err);
  ss_price_query q = {"platforms/p3.16xl.xml", "p3.16xlarge", 24.48, SS_PURCHASE_ON_DEMAND, NULL, NULL,
                      SS_PURCHASE_AUTO,        NULL};
  CU_ASSERT(ss_price_resolve(&q, &out, &err) == SS_OK);
  CU_ASSERT(out.usd_per_h == 24.48 && out.purchase == SS_PURCHASE_ON_DEMAND &&
            strcmp(out.source, "prices.csv us-east-1 2026-12-01 on-demand") == 0);
  q.region = "us-west-2";
  CU_ASSERT(ss_price_resolve(&q, &out, &err) == SS_OK && out.usd_per_h == 24.48);
  q = (ss_price_query){
      "tests/platforms/star2.xml", "test-star2", 1, SS_PURCHASE_ON_DEMAND, NULL, NULL, SS_PURCHASE_AUTO, NULL};
  CU_ASSERT(ss_price_resolve(&q, &out, &err) == SS_OK);
  CU_ASSERT(out.usd_per_h == 1 && strcmp(out.source, "instance file on-demand") == 0);
  q.purchase = SS_PURCHASE_SPOT;
  ss_err_clear(&err);
  CU_ASSERT(ss_price_resolve(&q, &out, &err) == SS_EINPUT && strstr(err.msg, "prices it as on-demand") != NULL);
  q = (ss_price_query){"platforms/p5.48xl.xml", "p5.48xlarge", 55.04, SS_PURCHASE_ON_DEMAND, "eu-west-1", NULL,
                       SS_PURCHASE_AUTO,        NULL};
  ss_err_clear(&err);
  CU_ASSERT(ss_price_resolve(&q, &out, &err) == SS_EINPUT);
  CU_ASSERT(strstr(err.msg, "p5.48xlarge in eu-west-1") != NULL);
  /* The cut of June 2025: the day before, and after. */
  q.region = NULL;
  q.date = "2025-06-04";
  CU_ASSERT(ss_price_resolve(&q, &out, &err) == SS_OK && out.usd_per_h == 98.32);
  q.date = NULL;
  CU_ASSERT(ss_price_resolve(&q, &out, &err) == SS_OK && out.usd_per_h == 55.04);
  q.purchase = SS_PURCHASE_CAPACITY_BLOCK;
  CU_ASSERT(ss_price_resolve(&q, &out, &err) == SS_OK && out.purchase == SS_PURCHASE_CAPACITY_BLOCK &&
            out.usd_per_h == 41.528);
  q.purchase = SS_PURCHASE_SAVINGS_3Y;
  CU_ASSERT(ss_price_resolve(&q, &out, &err) == SS_OK && strstr(out.source, "ESTIMATE") != NULL);
  /* p5e: capacity blocks only, none in us-east-1. */
  q = (ss_price_query){
      "platforms/p5e.48xl.xml", "p5e.48xlarge", 47.76, SS_PURCHASE_CAPACITY_BLOCK, NULL, NULL, SS_PURCHASE_AUTO, NULL};
  CU_ASSERT(ss_price_resolve(&q, &out, &err) == SS_OK && out.purchase == SS_PURCHASE_CAPACITY_BLOCK &&
            strncmp(out.source, "prices.csv us-east-2 ", 21) == 0);
  q.purchase = SS_PURCHASE_SPOT;
  ss_err_clear(&err);
  CU_ASSERT(ss_price_resolve(&q, &out, &err) == SS_EINPUT &&
            strstr(err.msg, "its purchase options there: capacity-block") != NULL);
  q.purchase = SS_PURCHASE_AUTO;
  q.date = "2025-12-31";
  ss_err_clear(&err);
  CU_ASSERT(ss_price_resolve(&q, &out, &err) == SS_EINPUT && strstr(err.msg, "on or before it") != NULL);
}

/* The generator: xoshiro256**'s published outputs from the state {1, 2, 3, 4} (the reference C
 * code of Blackman and Vigna, as the rand_xoshiro crate's test checks them); a stream depends on
 * its seed and its number only, not on what other streams drew; different streams and seeds differ. */
static void test_rng_streams(void)
{
  static const uint64_t want[] = {11520ULL, 0ULL, 1509978240ULL, 1215971899390074240ULL};
  ss_rng r = {{1, 2, 3, 4}};
  for (int i = 0; i < 4; i++)
    CU_ASSERT(ss_rng_u64(&r) == want[i]);
  ss_rng a, b, other;
  ss_rng_seed(&a, 7, 3);
  uint64_t first[100];
  for (int i = 0; i < 100; i++)
    first[i] = ss_rng_u64(&a);
  ss_rng_seed(&b, 7, 3);
  ss_rng_seed(&other, 7, 4);
  int same = 1, differ = 0;
  for (int i = 0; i < 100; i++) {
    ss_rng_u64(&other); /* another rank drawing in between changes nothing */
    uint64_t x = ss_rng_u64(&b);
    same = same && x == first[i];
  }
  CU_ASSERT(same);
  ss_rng_seed(&other, 7, 4);
  for (int i = 0; i < 100; i++)
    differ += ss_rng_u64(&other) != first[i];
  CU_ASSERT(differ == 100);
  ss_rng_seed(&other, 8, 3);
  differ = 0;
  for (int i = 0; i < 100; i++)
    differ += ss_rng_u64(&other) != first[i];
  CU_ASSERT(differ == 100);
}

/* Uniforms in (0, 1) and normals: mean and variance within 5 standard errors of n draws. */
static void test_rng_moments(void)
{
  const int n = 1000000;
  ss_rng r;
  ss_rng_seed(&r, 1, 0);
  double lo = 1, hi = 0, sum = 0, zs = 0, zsq = 0;
  for (int i = 0; i < n; i++) {
    double u = ss_rng_uniform(&r);
    lo = fmin(lo, u);
    hi = fmax(hi, u);
    sum += u;
    double z = ss_rng_normal(&r);
    zs += z;
    zsq += z * z;
  }
  CU_ASSERT(lo > 0 && hi < 1);
  CU_ASSERT(fabs(sum / n - 0.5) <= 5 * sqrt(1.0 / 12 / n));
  CU_ASSERT(fabs(zs / n) <= 5 / sqrt((double)n));
  CU_ASSERT(fabs(zsq / n - 1) <= 5 * sqrt(2.0 / n));
}

/* The jitter factor: cv 0 is exactly 1 and draws nothing; otherwise every factor is > 0 and the
 * sample's mean and coefficient of variation are 1 and cv within 5 standard errors: the mean's
 * cv / sqrt(n); the sample standard deviation's relative one sqrt((kurtosis - 1) / n) / 2, with the
 * log-normal's kurtosis e^(4s) + 2e^(3s) + 3e^(2s) - 3 (s = sigma^2). */
static void test_rng_jitter(void)
{
  ss_rng r, before;
  ss_rng_seed(&r, 1, 0);
  before = r;
  CU_ASSERT(ss_jitter_draw(&r, 0) == 1.0 && memcmp(&r, &before, sizeof(r)) == 0);
  static const double cvs[] = {0.0005, 0.05, 0.3, 1.0};
  const int n = 1000000;
  for (size_t c = 0; c < sizeof(cvs) / sizeof(cvs[0]); c++) {
    double cv = cvs[c], sum = 0, sq = 0, lo = INFINITY;
    ss_rng_seed(&r, 2, c);
    double* x = malloc(sizeof(double) * (size_t)n);
    CU_ASSERT_FATAL(x != NULL);
    for (int i = 0; i < n; i++) {
      x[i] = ss_jitter_draw(&r, cv);
      lo = fmin(lo, x[i]);
      sum += x[i];
    }
    double mean = sum / n;
    for (int i = 0; i < n; i++)
      sq += (x[i] - mean) * (x[i] - mean);
    free(x);
    double sd = sqrt(sq / (n - 1)), s = log(1 + cv * cv);
    double kurtosis = exp(4 * s) + 2 * exp(3 * s) + 3 * exp(2 * s) - 3;
    CU_ASSERT(lo > 0);
    CU_ASSERT(fabs(mean - 1) <= 5 * cv / sqrt((double)n));
    CU_ASSERT(fabs(sd / mean - cv) <= 5 * cv * sqrt((kurtosis - 1) / n) / 2 + 5 * cv / sqrt((double)n));
  }
}

/* The slowest of N ranks: over many iterations, the mean of the largest of N ranks' factors (one
 * stream per rank, as the simulation draws them) is the distribution's expected maximum of N draws,
 * computed by integration (lognormal_max), within 5 standard errors. N = 1: the mean, 1. */
static void test_rng_slowest(void)
{
  static const int ns[] = {1, 2, 8, 64};
  const double cv = 0.2;
  const int iters = 100000;
  for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
    int n = ns[k];
    ss_rng* rank = malloc(sizeof(ss_rng) * (size_t)n);
    CU_ASSERT_FATAL(rank != NULL);
    for (int r = 0; r < n; r++)
      ss_rng_seed(&rank[r], 1, (uint64_t)r);
    double sum = 0;
    for (int i = 0; i < iters; i++) {
      double most = 0;
      for (int r = 0; r < n; r++)
        most = fmax(most, ss_jitter_draw(&rank[r], cv));
      sum += most;
    }
    free(rank);
    double mean, var;
    lognormal_max(n, cv, &mean, &var);
    CU_ASSERT(fabs(sum / iters - mean) <= 5 * sqrt(var / iters));
    if (n == 1)
      NEAR(mean, 1.0, 1e-9);
  }
}

/* dir/name as a path in buf. */
static const char* at(char* buf, size_t size, const char* dir, const char* name)
{
  snprintf(buf, size, "%s/%s", dir, name);
  return buf;
}

/* The whole of a small file, or "" when it cannot be read. */
static const char* slurp_small(const char* path, char* buf, size_t size)
{
  FILE* f = fopen(path, "rb");
  size_t n = f ? fread(buf, 1, size - 1, f) : 0;
  buf[n] = '\0';
  if (f)
    fclose(f);
  return buf;
}

/* How many entries the folder holds besides . and .. */
static int entries(const char* dir)
{
  char cmd[600];
  snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
  FILE* p = popen(cmd, "r");
  int n = -1;
  if (p && fscanf(p, "%d", &n) != 1)
    n = -1;
  if (p)
    pclose(p);
  return n;
}

static void test_outfile_same(void)
{
  char dir[] = "/tmp/stash-outfile-XXXXXX";
  CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
  char a[512], b[512], c[512], d[512], e[512];
  FILE* f = fopen(at(a, sizeof(a), dir, "a.json"), "w");
  CU_ASSERT_FATAL(f != NULL);
  fclose(f);
  CU_ASSERT(link(a, at(b, sizeof(b), dir, "hard.json")) == 0);
  CU_ASSERT(symlink("a.json", at(c, sizeof(c), dir, "soft.json")) == 0);
  CU_ASSERT(symlink("new.json", at(d, sizeof(d), dir, "dangling.json")) == 0);
  CU_ASSERT(ss_outfile_same(a, b));                                           /* a hard link */
  CU_ASSERT(ss_outfile_same(c, a));                                           /* a symbolic link */
  CU_ASSERT(ss_outfile_same(d, at(e, sizeof(e), dir, "new.json")));           /* a link to no file yet */
  CU_ASSERT(ss_outfile_same(at(e, sizeof(e), dir, "x/../new.json"), d) == 0); /* x does not exist */
  CU_ASSERT(ss_outfile_same(a, at(e, sizeof(e), dir, "new.json")) == 0);
  CU_ASSERT(ss_outfile_same("-", "-") == 0);
  CU_ASSERT(ss_outfile_same(NULL, a) == 0);
  CU_ASSERT(ss_outfile_same(at(e, sizeof(e), dir, "."), dir));
  remove(a);
  remove(b);
  remove(c);
  remove(d);
  rmdir(dir);
}

static void test_outfile_commit(void)
{
  char dir[] = "/tmp/stash-outfile-XXXXXX";
  CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
  char path[512], buf[64];
  at(path, sizeof(path), dir, "r.json");
  FILE* f = fopen(path, "w");
  CU_ASSERT_FATAL(f != NULL);
  fputs("old\n", f);
  fclose(f);
  chmod(path, 0600);
  ss_err err;
  ss_err_clear(&err);
  ss_outfile* o = NULL;
  /* aborted: the old file, nothing else */
  CU_ASSERT_FATAL(ss_outfile_open(path, "report", &o, &err) == SS_OK);
  CU_ASSERT(ss_outfile_temp(o) != NULL && entries(dir) == 2);
  fputs("half", ss_outfile_stream(o));
  ss_outfile_abort(o);
  CU_ASSERT(strcmp(slurp_small(path, buf, sizeof(buf)), "old\n") == 0);
  CU_ASSERT(entries(dir) == 1);
  /* committed: the new file in place, its mode kept */
  CU_ASSERT_FATAL(ss_outfile_open(path, "report", &o, &err) == SS_OK);
  fputs("new\n", ss_outfile_stream(o));
  CU_ASSERT(strcmp(slurp_small(path, buf, sizeof(buf)), "old\n") == 0); /* not before the commit */
  CU_ASSERT(ss_outfile_commit(o, &err) == SS_OK);
  CU_ASSERT(strcmp(slurp_small(path, buf, sizeof(buf)), "new\n") == 0);
  struct stat st;
  CU_ASSERT(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
  CU_ASSERT(entries(dir) == 1);
  /* a folder that does not exist: an I/O error naming the output */
  char bad[600];
  snprintf(bad, sizeof(bad), "%s/nope/r.json", dir);
  CU_ASSERT(ss_outfile_open(bad, "report", &o, &err) == SS_EIO);
  CU_ASSERT(strstr(err.msg, "cannot write the report: the folder '") != NULL &&
            strstr(err.msg, "/nope' does not exist"));
  remove(path);
  rmdir(dir);
}

/* A link that names no path (/proc/self/fd/N of a deleted file): written in place, no file made. */
static void test_outfile_nameless(void)
{
  FILE* tmp = tmpfile();
  CU_ASSERT_FATAL(tmp != NULL);
  char path[64], buf[64];
  snprintf(path, sizeof(path), "/proc/self/fd/%d", fileno(tmp));
  ss_err err;
  ss_err_clear(&err);
  ss_outfile* o = NULL;
  CU_ASSERT_FATAL(ss_outfile_open(path, "output", &o, &err) == SS_OK);
  CU_ASSERT(ss_outfile_temp(o) == NULL);
  fputs("in place\n", ss_outfile_stream(o));
  CU_ASSERT(ss_outfile_commit(o, &err) == SS_OK);
  rewind(tmp);
  size_t n = fread(buf, 1, sizeof(buf) - 1, tmp);
  buf[n] = '\0';
  CU_ASSERT(strcmp(buf, "in place\n") == 0);
  fclose(tmp);
}

static void test_outfile_write_error(void)
{
  /* /dev/full is written directly (a device) and every write to it fails: the commit says so. */
  ss_err err;
  ss_err_clear(&err);
  ss_outfile* o = NULL;
  if (access("/dev/full", W_OK) != 0)
    return;
  CU_ASSERT_FATAL(ss_outfile_open("/dev/full", "trace", &o, &err) == SS_OK);
  CU_ASSERT(ss_outfile_temp(o) == NULL);
  fputs("{}\n", ss_outfile_stream(o));
  CU_ASSERT(ss_outfile_commit(o, &err) == SS_EIO);
  CU_ASSERT(strcmp(err.file, "/dev/full") == 0 && strstr(err.msg, "cannot write the trace: ") != NULL);
}

/* roofline: closed forms of a compute-bound and a memory-bound pass, the waves, and a fit that gives
 * back the measured time on the reference device and carries its fractions to another device. */
static void test_roofline_closed_forms(void)
{
  const ss_rates v100 = {15.7e12, 900e9, 80, 4e-6};
  const ss_fit f = {0.5, 0.8, 'c'};
  /* A convolution: 4 GFLOP and 2 MB of activations a sample, 10 MB of weights, 2 kernels. */
  ss_work conv = {4e9, 2e6, 10e6, 2, 0};
  double c = 4e9 * 32 / 15.7e12 / 0.5, m = (2e6 * 32 + 10e6) / 900e9 / 0.8;
  CU_ASSERT(c > m);
  CU_ASSERT_DOUBLE_EQUAL(ss_roofline_time(&conv, 32, &v100, &f), 2 * 4e-6 + c, 1e-15);
  /* A BatchNorm: few FLOPs, all bytes. */
  ss_work bn = {1e6, 8e6, 0, 1, 0};
  double m2 = 8e6 * 32 / 900e9 / 0.8;
  CU_ASSERT(m2 > 1e6 * 32 / 15.7e12 / 0.5);
  CU_ASSERT_DOUBLE_EQUAL(ss_roofline_time(&bn, 32, &v100, &f), 4e-6 + m2, 1e-15);
  /* Waves: 100 blocks a sample at batch 1 on 80 SMs fill 2 waves of 160 slots. */
  ss_work waves = {4e9, 2e6, 0, 1, 100};
  CU_ASSERT_DOUBLE_EQUAL(ss_roofline_waves(&waves, 1, &v100), 100.0 / 160.0, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(ss_roofline_waves(&waves, 4, &v100), 1.0, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(ss_roofline_waves(&conv, 1, &v100), 1.0, 1e-15); /* blocks not known */
  CU_ASSERT_DOUBLE_EQUAL(ss_roofline_time(&waves, 1, &v100, &f), 4e-6 + 4e9 / 15.7e12 / 0.5 * 1.6, 1e-15);
}

static void test_roofline_fit(void)
{
  const ss_rates v100 = {15.7e12, 900e9, 80, 4e-6}, a100 = {19.5e12, 1555e9, 108, 3e-6};
  ss_work conv = {4e9, 2e6, 10e6, 2, 0}, bn = {1e6, 8e6, 0, 1, 0};
  ss_fit fc, fm, ff;
  ss_roofline_fit(&conv, 32, &v100, 0.020, &fc);
  CU_ASSERT_EQUAL(fc.bound, 'c');
  CU_ASSERT_DOUBLE_EQUAL(fc.compute, 4e9 * 32 / 15.7e12 / (0.020 - 8e-6), 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(fc.memory, ss_fit_default.memory, 0);
  CU_ASSERT_DOUBLE_EQUAL(ss_roofline_time(&conv, 32, &v100, &fc), 0.020, 1e-15);
  /* On the A100 the compute time scales by the peaks, the floors by the A100's. */
  CU_ASSERT_DOUBLE_EQUAL(ss_roofline_time(&conv, 32, &a100, &fc), 6e-6 + (0.020 - 8e-6) * 15.7 / 19.5, 1e-12);
  ss_roofline_fit(&bn, 32, &v100, 0.0005, &fm);
  CU_ASSERT_EQUAL(fm.bound, 'm');
  CU_ASSERT_DOUBLE_EQUAL(ss_roofline_time(&bn, 32, &v100, &fm), 0.0005, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(ss_roofline_time(&bn, 32, &a100, &fm), 3e-6 + (0.0005 - 4e-6) * 900 / 1555, 1e-12);
  /* Faster than the nominal FLOPs allow (Winograd): a fraction above 1, the time given back. */
  ss_roofline_fit(&conv, 32, &v100, 0.007, &fc);
  CU_ASSERT(fc.compute > 1);
  CU_ASSERT_DOUBLE_EQUAL(ss_roofline_time(&conv, 32, &v100, &fc), 0.007, 1e-15);
  /* No longer than the floors: the defaults stay. */
  ss_roofline_fit(&bn, 32, &v100, 3e-6, &ff);
  CU_ASSERT_EQUAL(ff.bound, 'f');
  CU_ASSERT_DOUBLE_EQUAL(ff.compute, ss_fit_default.compute, 0);
  CU_ASSERT_DOUBLE_EQUAL(ff.memory, ss_fit_default.memory, 0);
}

/* ---- memory ---- */
/* tests/workloads/tiny_work.json by hand: 3 layers of 1e6 params and 16000 act_bytes a sample, 4 gradient
 * bytes a param; batch 8. Parameters 3e6 x 4 = 12e6 B, gradients the same, activations 3 x 16000 x 8. */
static void test_memory_parts(void)
{
  ss_workload* w = load_workload("tests/workloads/tiny_work.json");
  static const struct {
    ss_optimizer o;
    double state;
  } opt[] = {{SS_OPT_SGD, 0}, {SS_OPT_SGD_MOMENTUM, 12e6}, {SS_OPT_ADAM, 24e6}, {SS_OPT_ADAMW, 24e6}};
  CU_ASSERT_EQUAL(w->optimizer, SS_OPT_ADAMW);
  for (int k = 0; k < 4; k++) {
    w->optimizer = opt[k].o;
    ss_memory m;
    ss_memory_compute(w, 8, 0, 0, 5e6, 16.0 * 1073741824.0, &m);
    CU_ASSERT_DOUBLE_EQUAL(m.parameters, 12e6, 0);
    CU_ASSERT_DOUBLE_EQUAL(m.gradients, 12e6, 0);
    CU_ASSERT_DOUBLE_EQUAL(m.optimizer, opt[k].state, 0);
    CU_ASSERT_DOUBLE_EQUAL(m.activations, 384000, 0);
    CU_ASSERT_DOUBLE_EQUAL(m.buffers, 5e6, 0);
    CU_ASSERT_DOUBLE_EQUAL(m.reserve, 805306368, 0);
    CU_ASSERT_DOUBLE_EQUAL(m.total, 12e6 + 12e6 + opt[k].state + 384000 + 5e6 + 805306368, 0);
    CU_ASSERT_DOUBLE_EQUAL(m.capacity, 17179869184.0, 0);
  }
  /* Half precision (AMP, bf16): half the activation bytes where no act_bytes_half is given, and
   * autocast's 16-bit copies of the weights of the layers with FLOPs: 3e6 x 2 bytes more. */
  ss_memory h;
  ss_memory_compute(w, 8, 1, 0, 0, 1, &h);
  CU_ASSERT_DOUBLE_EQUAL(h.activations, 192000, 0);
  CU_ASSERT_DOUBLE_EQUAL(h.parameters, 12e6 + 6e6, 0);
  CU_ASSERT_DOUBLE_EQUAL(h.gradients, 12e6, 0);
  /* A layer's act_bytes_half replaces its half (layer 1 keeps 12000 bytes: FP32 outputs under
   * autocast); a layer without FLOPs (layer 2, a gather) has no cast copy: activations
   * (8000 + 12000 + 8000) x 8 = 224000, parameters 12e6 + 2e6 x 2 = 16e6. FP32 ignores both. */
  w->layers[1].act_bytes_half = 12000;
  w->layers[2].fwd_flops = 0;
  ss_memory_compute(w, 8, 1, 0, 0, 1, &h);
  CU_ASSERT_DOUBLE_EQUAL(h.activations, 224000, 0);
  CU_ASSERT_DOUBLE_EQUAL(h.parameters, 16e6, 0);
  ss_memory_compute(w, 8, 0, 0, 0, 1, &h);
  CU_ASSERT_DOUBLE_EQUAL(h.activations, 384000, 0);
  CU_ASSERT_DOUBLE_EQUAL(h.parameters, 12e6, 0);
  ss_workload_free(w);
}

/* Activations with checkpointing, tests/workloads/tiny_ckpt.json by hand (bytes a sample, batch 8):
 * FP32 16000 + 16000 + 24000 + 16000 = 72000 without it; with it the embedding's 16000, the blocks'
 * inputs 4000 + 0 + 4000 and the largest block's activations (16000 + 24000) recomputed in its backward:
 * 64000. At amp/bf16 (x 0.5 where no half figure is given; block1's ckpt_bytes_half 4000): 36000
 * without, 8000 + 2000 + 0 + 4000 + (8000 + 12000) = 34000 with. */
static void test_memory_checkpoint(void)
{
  ss_workload* w = load_workload("tests/workloads/tiny_ckpt.json");
  CU_ASSERT(w->has_ckpt && w->activation_checkpointing);
  CU_ASSERT(w->layers[0].ckpt_bytes == -1 && w->layers[1].ckpt_bytes == 4000 && w->layers[2].ckpt_bytes == 0 &&
            w->layers[1].ckpt_bytes_half == -1 && w->layers[3].ckpt_bytes_half == 4000);
  ss_memory m;
  const double want[2][2] = {{72000 * 8, 64000 * 8}, {36000 * 8, 34000 * 8}}; /* [half][ckpt] */
  for (int half = 0; half < 2; half++)
    for (int ckpt = 0; ckpt < 2; ckpt++) {
      ss_memory_compute(w, 8, half, ckpt, 0, 1, &m);
      CU_ASSERT_DOUBLE_EQUAL(m.activations, want[half][ckpt], 0);
    }
  ss_workload_free(w);
}

/* A job's buffers by framework, and its memory only when the GPU's and the activations are known. */
static void test_memory_job(void)
{
  ss_platform* p = load_platform("platforms/p3.16xl.xml");
  ss_workload* w = load_workload("tests/workloads/tiny_work.json");
  ss_workload* nowork = load_workload("tests/workloads/tiny.json");
  ss_options o;
  ss_options_default(&o);
  ss_err err;
  ss_err_clear(&err);
  ss_job* j = NULL;
  /* PyTorch DDP over 8 GPUs: its buckets hold every gradient once more. */
  CU_ASSERT_FATAL(ss_derive_job(p, w, &o, &j, &err) == 0);
  CU_ASSERT(j->memory_known);
  CU_ASSERT_DOUBLE_EQUAL(j->memory.buffers, 12e6, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(j->memory.total, 12e6 * 3 + 24e6 + 384000 + 805306368, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(j->memory.capacity, 17179869184.0, 0);
  /* Over the capacity: one line naming the workload, refused unless --ignore-memory. */
  ss_memory big = j->memory;
  big.activations = 18.0 * 1073741824.0;
  big.total = big.parameters + big.gradients + big.optimizer + big.activations + big.buffers + big.reserve;
  ss_memory_in in;
  ss_job_memory_in(j, &in);
  CU_ASSERT_EQUAL(ss_memory_check(&in, &big, &err), SS_EINPUT);
  CU_ASSERT_STRING_EQUAL(err.file, "tests/workloads/tiny_work.json");
  CU_ASSERT_STRING_EQUAL(err.msg, "needs 18.8 GiB of 16 GiB on a Tesla V100-SXM2-16GB (parameters 0.0, gradients 0.0, "
                                  "optimizer 0.0, activations 18.0, buffers 0.0, reserve 0.8): give a smaller --batch, "
                                  "or --ignore-memory");
  ss_err_clear(&err);
  j->opt.ignore_memory = 1;
  ss_job_memory_in(j, &in);
  CU_ASSERT_EQUAL(ss_memory_check(&in, &big, &err), SS_OK);
  ss_job_free(j);
  /* Horovod: its fusion buffer (64 MiB by default). */
  o.ddp = SS_DDP_HOROVOD;
  CU_ASSERT_FATAL(ss_derive_job(p, w, &o, &j, &err) == 0);
  CU_ASSERT_DOUBLE_EQUAL(j->memory.buffers, o.fusion_mib * 1048576.0, 0);
  ss_job_free(j);
  /* One GPU: no collectives, no buffers. */
  o.ddp = SS_DDP_PYTORCH;
  o.gpus = 1;
  CU_ASSERT_FATAL(ss_derive_job(p, w, &o, &j, &err) == 0);
  CU_ASSERT_DOUBLE_EQUAL(j->memory.buffers, 0, 0);
  ss_job_free(j);
  /* A workload without its activations: unknown, no check. */
  CU_ASSERT_FATAL(ss_derive_job(p, nowork, &o, &j, &err) == 0);
  CU_ASSERT_FALSE(j->memory_known);
  ss_job_free(j);
  ss_workload_free(nowork);
  ss_workload_free(w);
  ss_platform_free(p);
}

typedef struct suite_def {
  const char* name;
  struct {
    const char* name;
    void (*fn)(void);
  } tests[8];
} suite_def;

/* The schedules' orders for small p and m, as Megatron-LM's schedules.py runs them. */
static void test_pipeline_orders(void)
{
  ss_pipe_op op[64];
  /* 1F1B, 4 stages, 8 micro-batches: stage 0 warms up with 3 forwards, alternates, cools down. */
  CU_ASSERT_FATAL(ss_pipe_order(SS_SCHEDULE_1F1B, 4, 1, 8, 0, op) == 16);
  static const int want0[16][2] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}, {4, 0}, {1, 1}, {5, 0},
                                   {2, 1}, {6, 0}, {3, 1}, {7, 0}, {4, 1}, {5, 1}, {6, 1}, {7, 1}};
  for (int i = 0; i < 16; i++)
    CU_ASSERT(op[i].micro == want0[i][0] && op[i].bwd == want0[i][1] && op[i].chunk == 0);
  /* The last stage: a forward and its backward in turn from the start. */
  CU_ASSERT_FATAL(ss_pipe_order(SS_SCHEDULE_1F1B, 4, 1, 8, 3, op) == 16);
  for (int i = 0; i < 16; i++)
    CU_ASSERT(op[i].micro == i / 2 && op[i].bwd == i % 2);
  /* GPipe: the forwards in order, the backwards in reverse. */
  CU_ASSERT_FATAL(ss_pipe_order(SS_SCHEDULE_GPIPE, 2, 1, 3, 1, op) == 6);
  static const int gp[6][2] = {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {1, 1}, {0, 1}};
  for (int i = 0; i < 6; i++)
    CU_ASSERT(op[i].micro == gp[i][0] && op[i].bwd == gp[i][1]);
  /* Interleaved, 2 stages, 2 chunks, 4 micro-batches, stage 0: 2 (p - 1) + (v - 1) p = 4 warm-up
   * forwards (micro-batches 0 and 1 through chunk 0, then chunk 1), then in turn. */
  CU_ASSERT_FATAL(ss_pipe_order(SS_SCHEDULE_INTERLEAVED, 2, 2, 4, 0, op) == 16);
  static const int il[6][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {2, 0, 0}, {0, 1, 1}};
  for (int i = 0; i < 6; i++)
    CU_ASSERT(op[i].micro == il[i][0] && op[i].chunk == il[i][1] && op[i].bwd == il[i][2]);
  /* The layouts a schedule refuses, with the rule. */
  char why[256];
  CU_ASSERT(ss_pipe_check(SS_SCHEDULE_INTERLEAVED, 4, 2, 6, why, sizeof(why)) < 0 && strstr(why, "multiple of 4"));
  CU_ASSERT(ss_pipe_check(SS_SCHEDULE_1F1B, 4, 2, 8, why, sizeof(why)) < 0 && strstr(why, "--virtual-stages 2"));
  CU_ASSERT(ss_pipe_check(SS_SCHEDULE_INTERLEAVED, 4, 1, 8, why, sizeof(why)) < 0);
  CU_ASSERT(ss_pipe_order(SS_SCHEDULE_INTERLEAVED, 4, 2, 6, 0, op) == -1);
  CU_ASSERT(ss_pipe_time(SS_SCHEDULE_INTERLEAVED, 4, 2, 6, 1, 2, NULL) < 0);
}

/* Each schedule timed on uniform stages gives its closed-form bubble, (p - 1) / m and
 * (p - 1) / (v m), and holds the micro-batches it is known to hold: m for GPipe, min(p, m) for
 * 1F1B, on stage 0 of the interleaved one v p + p - 1 chunks' worth (L (1 + (p - 1) / (p v))
 * layers; all m v when m = p). */
static void test_pipeline_bubble(void)
{
  static const int ps[] = {1, 2, 4, 8}, ms[] = {1, 3, 8, 16, 32};
  for (size_t a = 0; a < sizeof(ps) / sizeof(ps[0]); a++)
    for (size_t b = 0; b < sizeof(ms) / sizeof(ms[0]); b++)
      for (int s = 0; s < SS_SCHEDULE_COUNT; s++)
        for (int v = 1; v <= 3; v++) {
          int p = ps[a], m = ms[b], held = 0;
          char why[256];
          if (ss_pipe_check((ss_schedule)s, p, v, m, why, sizeof(why)))
            continue;
          double fwd = 1.0, bwd = 2.0, ideal = m * (fwd + bwd);
          double t = ss_pipe_time((ss_schedule)s, p, v, m, fwd, bwd, &held);
          double bubble = (t - ideal) / ideal, want = ss_pipe_bubble_closed_form((ss_schedule)s, p, v, m);
          CU_ASSERT(fabs(bubble - want) <= 1e-12);
          if (fabs(bubble - want) > 1e-12)
            printf("\n%s p %d v %d m %d: bubble %.6f, closed form %.6f\n", ss_schedule_names[s], p, v, m, bubble, want);
          int expect = s == SS_SCHEDULE_GPIPE  ? m
                       : s == SS_SCHEDULE_1F1B ? (p < m ? p : m)
                       : m == p                ? m * v
                                               : v * p + p - 1;
          CU_ASSERT(held == expect);
          if (held != expect)
            printf("\n%s p %d v %d m %d: %d in flight, expected %d\n", ss_schedule_names[s], p, v, m, held, expect);
        }
}

/* The 3D layout in Megatron-Core's order (tensor fastest, then data, then pipeline) and another. */
static void test_pipeline_layout(void)
{
  ss_dim order[SS_DIM_COUNT];
  CU_ASSERT(ss_layout_parse_order("tp-dp-pp", order) == 0 && order[0] == SS_DIM_TP && order[1] == SS_DIM_CP &&
            order[3] == SS_DIM_PP);
  static const char* const bad[] = {"tp-dp",       "tp-tp-pp",    "tp-dp-pp-",     "", "tp-dp-xx", "tp--dp-pp",
                                    "cp-tp-dp-pp", "tp-dp-cp-pp", "tp-cp-cp-dp-pp"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    CU_ASSERT(ss_layout_parse_order(bad[i], order) == -1);
  ss_layout l;
  char why[256];
  CU_ASSERT(ss_layout_make(64, 3, 1, 2, order, &l, why, sizeof(why)) == -1 && strstr(why, "does not divide"));
  CU_ASSERT(ss_layout_parse_order("tp-dp-pp", order) == 0);
  CU_ASSERT_FATAL(ss_layout_make(64, 8, 1, 2, order, &l, why, sizeof(why)) == 0);
  CU_ASSERT(l.size[SS_DIM_DP] == 4 && ss_layout_gpus(&l) == 64);
  int c[SS_DIM_COUNT];
  ss_layout_coords(&l, 13, c);
  CU_ASSERT(c[SS_DIM_TP] == 5 && c[SS_DIM_DP] == 1 && c[SS_DIM_PP] == 0);
  ss_layout_coords(&l, 35, c);
  CU_ASSERT(c[SS_DIM_TP] == 3 && c[SS_DIM_DP] == 0 && c[SS_DIM_PP] == 1);
  for (int r = 0; r < 64; r++) {
    ss_layout_coords(&l, r, c);
    CU_ASSERT(ss_layout_rank(&l, c) == r);
  }
  int g[64];
  CU_ASSERT(ss_layout_group(&l, 13, SS_DIM_TP, g) == 8 && g[0] == 8 && g[7] == 15);
  CU_ASSERT(ss_layout_group(&l, 3, SS_DIM_DP, g) == 4 && g[0] == 3 && g[1] == 11 && g[3] == 27);
  CU_ASSERT(ss_layout_group(&l, 3, SS_DIM_PP, g) == 2 && g[0] == 3 && g[1] == 35);
  /* On 8 GPUs an instance: the tensor groups inside, the stages across. */
  CU_ASSERT(ss_layout_groups_across(&l, SS_DIM_TP, 8) == 0);
  CU_ASSERT(ss_layout_groups_across(&l, SS_DIM_PP, 8) == 32);
  CU_ASSERT(ss_layout_groups_across(&l, SS_DIM_DP, 8) == 16);
  /* A tensor group of 16 crosses instances of 8. */
  CU_ASSERT_FATAL(ss_layout_make(64, 16, 1, 2, order, &l, why, sizeof(why)) == 0);
  CU_ASSERT(ss_layout_groups_across(&l, SS_DIM_TP, 8) == 4);
  /* Pipeline before data: consecutive groups of 8 are the stages of one replica. */
  CU_ASSERT(ss_layout_parse_order("tp-pp-dp", order) == 0);
  CU_ASSERT_FATAL(ss_layout_make(64, 8, 1, 2, order, &l, why, sizeof(why)) == 0);
  ss_layout_coords(&l, 8, c);
  CU_ASSERT(c[SS_DIM_PP] == 1 && c[SS_DIM_DP] == 0);
  /* Context parallelism in Megatron-Core's tp-cp-dp-pp: tensor 2, context 4, data 2, pipeline 2 on 32
   * GPUs; rank 13 = tp 1 + 2 x cp 2 + 8 x dp 1; its context group 9, 11, 13, 15; the group its
   * gradients are reduced in, context and data, 1, 3, ..., 15. */
  CU_ASSERT(ss_layout_parse_order("tp-cp-dp-pp", order) == 0 && order[1] == SS_DIM_CP);
  CU_ASSERT_FATAL(ss_layout_make(32, 2, 4, 2, order, &l, why, sizeof(why)) == 0);
  CU_ASSERT(l.size[SS_DIM_DP] == 2 && ss_layout_gpus(&l) == 32);
  ss_layout_coords(&l, 13, c);
  CU_ASSERT(c[SS_DIM_TP] == 1 && c[SS_DIM_CP] == 2 && c[SS_DIM_DP] == 1 && c[SS_DIM_PP] == 0);
  CU_ASSERT(ss_layout_group(&l, 13, SS_DIM_CP, g) == 4 && g[0] == 9 && g[1] == 11 && g[3] == 15);
  CU_ASSERT(ss_layout_group_dims(&l, 13, 1u << SS_DIM_CP | 1u << SS_DIM_DP, g) == 8 && g[0] == 1 && g[4] == 9 &&
            g[7] == 15);
  CU_ASSERT(ss_layout_make(32, 2, 3, 2, order, &l, why, sizeof(why)) == -1 && strstr(why, "--cp 3"));
}

/* A transformer's figures against hand-computed ones: GPT-3 175B's parameters, Table 2's activation
 * bytes, the model FLOPs, and the splits refused. */
static void test_pipeline_transformer(void)
{
  /* GPT-3 175B (Brown et al. 2020): 96 layers, h 12288, 96 heads, FFN 4h, 2048 tokens, 50257 words. */
  ss_transformer g = {96, 12288, 96, 96, 4 * 12288, 0, 2048, 50257, 1, 0, {0}, {0}, 0, 0, 0, 0};
  double h = 12288, params = 96 * (12 * h * h + 2 * h) + 50257 * h;
  CU_ASSERT(fabs(ss_transformer_params(&g) - params) <= 1e-9 * params);
  CU_ASSERT(fabs(ss_transformer_params(&g) / 175e9 - 1) < 0.01);
  /* Llama-2 70B: 80 layers, h 8192, 64 heads, 8 key-value heads, SwiGLU FFN 28672, 32000 words, untied:
   * 68.98e9 parameters (Touvron et al. 2023 say 70B). */
  ss_transformer l70 = {80, 8192, 64, 8, 28672, 1, 4096, 32000, 0, 0, {0}, {0}, 0, 0, 0, 0};
  double lp = 80 * (2.0 * 8192 * 8192 + 2.0 * 8192 * 1024 + 3.0 * 8192 * 28672 + 2 * 8192) + 2.0 * 32000 * 8192;
  CU_ASSERT(fabs(ss_transformer_params(&l70) - lp) <= 1e-9 * lp && fabs(lp / 69e9 - 1) < 0.01);
  /* Table 2, with s 2048, b 1, h 12288, a 96, t 8. */
  double sbh = 2048.0 * 12288, as_h = 96.0 * 2048 / 12288;
  CU_ASSERT(fabs(ss_transformer_activation_bytes(&g, 1, 1, 0, SS_RECOMPUTE_NONE) - sbh * (34 + 5 * as_h)) < 1);
  CU_ASSERT(
      fabs(ss_transformer_activation_bytes(&g, 1, 8, 0, SS_RECOMPUTE_NONE) - sbh * (10 + 24.0 / 8 + 5 * as_h / 8)) < 1);
  CU_ASSERT(fabs(ss_transformer_activation_bytes(&g, 1, 8, 1, SS_RECOMPUTE_NONE) - sbh * (34 + 5 * as_h) / 8) < 1);
  CU_ASSERT(fabs(ss_transformer_activation_bytes(&g, 1, 8, 1, SS_RECOMPUTE_SELECTIVE) - 34 * sbh / 8) < 1);
  CU_ASSERT(fabs(ss_transformer_activation_bytes(&g, 1, 8, 0, SS_RECOMPUTE_SELECTIVE) - sbh * (10 + 3)) < 1);
  CU_ASSERT(fabs(ss_transformer_activation_bytes(&g, 2, 8, 1, SS_RECOMPUTE_FULL) - 2 * 2 * sbh / 8) < 1);
  /* Tensor-parallel traffic: b s h elements a collective, 4 a layer, 6 with full recomputation. */
  CU_ASSERT(ss_transformer_tp_bytes(&g, 1, 2) == 2 * sbh);
  CU_ASSERT(ss_transformer_tp_collectives(SS_RECOMPUTE_SELECTIVE) == 4 &&
            ss_transformer_tp_collectives(SS_RECOMPUTE_FULL) == 6);
  /* Model FLOPs of one sequence, Korthikanti et al.'s convention. */
  double f = 72.0 * 2048 * 96 * h * h * (1 + 2048 / (6 * h) + 50257 / (12 * 96 * h));
  CU_ASSERT(fabs(ss_transformer_model_flops(&g, 1) - f) <= 1e-9 * f);
  /* The splits refused, each with its rule. */
  char why[256];
  CU_ASSERT(ss_transformer_check(&g, 8, 16, why, sizeof(why)) == 0);
  CU_ASSERT(ss_transformer_check(&g, 5, 1, why, sizeof(why)) < 0 && strstr(why, "96 attention heads"));
  CU_ASSERT(ss_transformer_check(&l70, 16, 1, why, sizeof(why)) < 0 && strstr(why, "8 key-value heads"));
  CU_ASSERT(ss_transformer_check(&g, 8, 97, why, sizeof(why)) < 0 && strstr(why, "96 layers"));
}

/* A layer's kernels against hand-computed figures (docs/model.md, "Transformer kernels"). */
static double kernels_flops(const ss_tf_kernel* k, int n, ss_tfk_kind kind)
{
  double f = 0;
  for (int i = 0; i < n; i++)
    f += k[i].kind == kind ? k[i].flops : 0;
  return f;
}

static void test_tfkernels_flops(void)
{
  /* GPT-3 175B's layer: 24 h^2 FLOPs a token for the matrices, 4 s h for attention's products. */
  ss_transformer g = {96, 12288, 96, 96, 4 * 12288, 0, 2048, 50257, 1, 0, {0}, {0}, 0, 0, 0, 0};
  ss_tf_split sp = {.b = 1, .seq = 2048, .t = 1, .cp = 1, .elem = 2, .attention = SS_ATTENTION_EAGER, .causal = 1};
  ss_tf_kernel k[SS_TF_MAX_KERNELS];
  double h = 12288, s = 2048;
  int n = ss_tf_kernels(&g, &sp, 0, k);
  CU_ASSERT(n <= SS_TF_MAX_KERNELS);
  CU_ASSERT(fabs(kernels_flops(k, n, SS_TFK_GEMM) - 24 * s * h * h) <= 1e-9 * 24 * s * h * h);
  CU_ASSERT(fabs(kernels_flops(k, n, SS_TFK_ATTENTION) - 4 * s * s * h) <= 1e-9 * 4 * s * s * h);
  /* Backward: both gradients of every GEMM (2x), the eager core's four products (2x). */
  n = ss_tf_kernels(&g, &sp, 1, k);
  CU_ASSERT(n <= SS_TF_MAX_KERNELS);
  CU_ASSERT(fabs(kernels_flops(k, n, SS_TFK_GEMM) - 48 * s * h * h) <= 1e-9 * 48 * s * h * h);
  CU_ASSERT(fabs(kernels_flops(k, n, SS_TFK_ATTENTION) - 8 * s * s * h) <= 1e-9 * 8 * s * s * h);
  /* Layer FLOPs, forward and backward, as the model FLOPs count them (Korthikanti's 72 s h^2 (1 + s / 6h)
   * per layer at eager attention). */
  double fb = 0;
  for (int bwd = 0; bwd < 2; bwd++) {
    n = ss_tf_kernels(&g, &sp, bwd, k);
    fb += kernels_flops(k, n, SS_TFK_GEMM) + kernels_flops(k, n, SS_TFK_ATTENTION);
  }
  CU_ASSERT(fabs(fb - 72 * s * h * h * (1 + s / (6 * h))) <= 1e-9 * fb);
  /* Flash, causal: half the scores' products forward, and 2.5 times that backward (the recomputed QK^T). */
  sp.attention = SS_ATTENTION_FLASH;
  CU_ASSERT(fabs(ss_tf_attention_flops(&g, &sp, 0) - 2 * s * s * h) <= 1e-9 * 2 * s * s * h);
  CU_ASSERT(fabs(ss_tf_attention_flops(&g, &sp, 1) - 5 * s * s * h) <= 1e-9 * 5 * s * s * h);
  sp.causal = 0;
  CU_ASSERT(fabs(ss_tf_attention_flops(&g, &sp, 0) - 4 * s * s * h) <= 1e-9 * 4 * s * s * h);
  /* Tensor and context parallelism divide every GEMM's and the core's FLOPs by t and cp. */
  ss_tf_split tc = sp;
  tc.t = 8;
  tc.cp = 4;
  tc.causal = 1;
  sp.causal = 1;
  for (int bwd = 0; bwd < 2; bwd++) {
    double one = 0, split = 0;
    n = ss_tf_kernels(&g, &sp, bwd, k);
    one = kernels_flops(k, n, SS_TFK_GEMM) + kernels_flops(k, n, SS_TFK_ATTENTION);
    n = ss_tf_kernels(&g, &tc, bwd, k);
    split = kernels_flops(k, n, SS_TFK_GEMM) + kernels_flops(k, n, SS_TFK_ATTENTION);
    CU_ASSERT(fabs(split * 32 - one) <= 1e-9 * one);
  }
  /* Llama-2 70B's grouped-query QKV (h + 2 h / 8 columns) and SwiGLU (3 matrices of h x 28672). */
  ss_transformer l70 = {80, 8192, 64, 8, 28672, 1, 4096, 32000, 0, 0, {0}, {0}, 0, 0, 0, 0};
  ss_tf_split lp = {.b = 2, .seq = 4096, .t = 4, .cp = 1, .elem = 2, .attention = SS_ATTENTION_FLASH, .causal = 1};
  n = ss_tf_kernels(&l70, &lp, 0, k);
  double tokens = 2 * 4096.0, lh = 8192, gemms = 2 * tokens * (lh * (lh + 2 * lh / 8) + lh * lh + 3 * lh * 28672) / 4;
  CU_ASSERT(fabs(kernels_flops(k, n, SS_TFK_GEMM) - gemms) <= 1e-9 * gemms);
  CU_ASSERT(k[1].kind == SS_TFK_GEMM && k[1].m == tokens && k[1].n == (lh + 2 * lh / 8) / 4 && k[1].k == lh);
  /* The matrices' FLOPs are the layer's parameters' (2 per weight and token forward). */
  double w = ss_transformer_layer_params(&l70) - 2 * lh;
  CU_ASSERT(fabs(kernels_flops(k, n, SS_TFK_GEMM) * 4 - 2 * tokens * w) <= 1e-9 * gemms);
}

static void test_tfkernels_memory(void)
{
  /* Eager at 16-bit: Korthikanti et al.'s Table 2 (transformer.c's figures) at every split. */
  ss_transformer g = {96, 12288, 96, 96, 4 * 12288, 0, 2048, 50257, 1, 0, {0}, {0}, 0, 0, 0, 0};
  for (int t = 1; t <= 8; t *= 2)
    for (int sq = 0; sq < 2; sq++)
      for (int r = 0; r < SS_RECOMPUTE_COUNT; r++) {
        ss_tf_split sp = {.b = 2, .seq = 2048, .t = t, .sp = sq, .cp = 1, .elem = 2, .attention = SS_ATTENTION_EAGER};
        double want = ss_transformer_activation_bytes(&g, 2, t, sq, (ss_recompute)r);
        CU_ASSERT(fabs(ss_tf_activation_bytes(&g, &sp, (ss_recompute)r) - want) <= 1e-9 * want);
      }
  /* Flash keeps no scores: 34 s b h and 4 bytes per query and head; at Llama-3 8B, sequence 8192, a
   * fifth of eager's. Context parallelism divides it by cp. */
  ss_transformer l8 = {32, 4096, 32, 8, 14336, 1, 8192, 128256, 0, 0, {0}, {0}, 0, 0, 0, 0};
  ss_tf_split f = {.b = 1, .seq = 8192, .t = 1, .cp = 1, .elem = 2, .attention = SS_ATTENTION_FLASH, .causal = 1};
  double s = 8192, h = 4096, kv = 1024, ffn = 14336;
  double want = s * h * (4 * 2 + 2) + 2 * s * (h + 2 * kv + h + 3 * ffn) + 4 * s * 32;
  CU_ASSERT(fabs(ss_tf_activation_bytes(&l8, &f, SS_RECOMPUTE_NONE) - want) <= 1e-9 * want);
  ss_tf_split e = f;
  e.attention = SS_ATTENTION_EAGER;
  CU_ASSERT(ss_tf_activation_bytes(&l8, &e, SS_RECOMPUTE_NONE) > 5 * want);
  f.cp = 4;
  CU_ASSERT(fabs(ss_tf_activation_bytes(&l8, &f, SS_RECOMPUTE_NONE) * 4 - want) <= 1e-9 * want);
  /* The checks: cp's two chunks per rank, and eager refused with it. */
  char why[256];
  CU_ASSERT(ss_tf_split_check(&l8, &f, why, sizeof(why)) == 0);
  f.seq = 8196;
  CU_ASSERT(ss_tf_split_check(&l8, &f, why, sizeof(why)) < 0 && strstr(why, "8 chunks"));
  e.cp = 2;
  CU_ASSERT(ss_tf_split_check(&l8, &e, why, sizeof(why)) < 0 && strstr(why, "--attention eager"));
}

/* The fits' lookups: by generation and precision class; attention at the nearest head dimension. */
static void test_tfkernels_fits(void)
{
  const ss_gemm_fit* g = ss_gemm_fit_of("hopper", "fp16");
  CU_ASSERT(g && g->e_max > 0.3 && g->e_max <= 1 && g->small > 0 && g->small <= 1 && g->k0 >= 0);
  CU_ASSERT(ss_gemm_fit_of("hopper", "fp4") == NULL && ss_gemm_fit_of("kepler", "fp16") == NULL);
  const ss_attention_fit* a = ss_attention_fit_of("hopper", "fp16", 120, 1, NULL);
  CU_ASSERT(a && a->head_dim == 128 && a->causal == 1 && a->e_max > 0 && a->e_max <= 1 && a->bwd_e_max > 0);
  a = ss_attention_fit_of("ampere", "fp16", 80, 0, NULL);
  CU_ASSERT(a && a->head_dim == 64 && a->causal == 0);
  CU_ASSERT(ss_attention_fit_of("volta", "fp16", 128, 1, NULL) == NULL);
  /* H100 SXM5 (132 SMs), BF16, against calibration/gemm_efficiency.csv's rows GEMM-0145 and 0147
   * (1024^3: 0.18 of the peak, where the large tiles leave most SMs idle; 4096^3: 0.80), within the
   * fit's errors; and a tensor-parallel shard narrower than the SMs' tiles fills them worse. */
  CU_ASSERT(fabs(ss_gemm_efficiency(g, 1024, 1024, 1024, 132) / 0.18 - 1) < 0.15);
  CU_ASSERT(fabs(ss_gemm_efficiency(g, 4096, 4096, 4096, 132) / 0.80 - 1) < 0.10);
  CU_ASSERT(ss_gemm_efficiency(g, 2048, 512, 4096, 132) < 0.8 * ss_gemm_efficiency(g, 2048, 4096, 4096, 132));
  /* Attention ramps up with the sequence towards e_max; the backward at its own. */
  a = ss_attention_fit_of("hopper", "fp16", 128, 1, NULL);
  CU_ASSERT(ss_attention_efficiency(a, 1024, 0) < ss_attention_efficiency(a, 8192, 0) &&
            ss_attention_efficiency(a, 8192, 0) < a->e_max);
  CU_ASSERT(fabs(ss_attention_efficiency(a, 8192, 1) / ss_attention_efficiency(a, 8192, 0) - a->bwd_e_max / a->e_max) <
            1e-12);
  for (const ss_attention_fit* f = ss_attention_fits; f->generation; f++)
    CU_ASSERT(f->e_max > 0 && f->e_max <= 1 && f->bwd_e_max > 0 && f->bwd_e_max <= 1 && f->s0 >= 0);
}

/* A layer's kernels timed on an H100 (989 TFLOP/s BF16, 3.35 TB/s, 132 SMs): each GEMM at its
 * shape's efficiency; flash attention faster than eager at sequence 8192; the layer above its
 * FLOPs at the peak and below three times that; no flash attention on Volta. */
static void test_tfkernels_time(void)
{
  ss_transformer l8 = {32, 4096, 32, 8, 14336, 1, 8192, 128256, 0, 0, {0}, {0}, 0, 0, 0, 0};
  ss_tf_split sp = {.b = 1, .seq = 8192, .t = 1, .cp = 1, .elem = 2, .attention = SS_ATTENTION_FLASH, .causal = 1};
  ss_tf_device h100 = {"hopper", "fp16", 989e12, 3.35e12, 132, 0.8, 989e12, NULL};
  ss_tf_kernel k[SS_TF_MAX_KERNELS];
  double flash = 0, eager = 0, flops = 0;
  for (int bwd = 0; bwd < 2; bwd++) {
    int n = ss_tf_kernels(&l8, &sp, bwd, k);
    for (int i = 0; i < n; i++) {
      double t = ss_tf_kernel_time(&k[i], &h100);
      CU_ASSERT(t > 0);
      if (k[i].kind == SS_TFK_GEMM) {
        double e = ss_gemm_efficiency(ss_gemm_fit_of("hopper", "fp16"), k[i].m, k[i].n, k[i].k, 132);
        CU_ASSERT(fabs(t - k[i].flops / (989e12 * e)) <= 1e-12 * t);
      }
      flash += t;
      flops += k[i].flops;
    }
  }
  CU_ASSERT(flash > flops / 989e12 && flash < 3 * flops / 989e12);
  ss_tf_split ea = sp;
  ea.attention = SS_ATTENTION_EAGER;
  for (int bwd = 0; bwd < 2; bwd++) {
    int n = ss_tf_kernels(&l8, &ea, bwd, k);
    for (int i = 0; i < n; i++)
      eager += ss_tf_kernel_time(&k[i], &h100);
  }
  CU_ASSERT(eager > 1.2 * flash);
  ss_tf_device v100 = {"volta", "fp16", 125e12, 0.9e12, 80, 0.8, 125e12, NULL};
  ss_tf_kernels(&l8, &sp, 0, k);
  CU_ASSERT(k[2].kind == SS_TFK_ATTENTION && ss_tf_kernel_time(&k[2], &v100) == -1);
  CU_ASSERT(k[1].kind == SS_TFK_GEMM && ss_tf_kernel_time(&k[1], &v100) > 0);
}

/* FP8 (Transformer Engine's recipe): the GEMMs the same shapes at the FP8 peak; the casts' bytes in
 * closed form (forward 2 bytes an element of the QKV, FC1 and FC2 inputs, fused, and 4 of the
 * projection's, a kernel of its own; backward 4 an element of each output gradient); the attention
 * core at the 16-bit peak; the four GEMMs' inputs kept in one byte: 27 s b h + 4 s b a for GPT's layer
 * with flash attention, against 34 s b h + 4 s b a at bf16. */
static void test_tfkernels_fp8(void)
{
  ss_transformer g = {96, 12288, 96, 96, 4 * 12288, 0, 2048, 50257, 1, 0, {0}, {0}, 0, 0, 0, 0};
  ss_tf_split b16 = {.b = 1, .seq = 2048, .t = 2, .cp = 1, .elem = 2, .attention = SS_ATTENTION_FLASH, .causal = 1};
  ss_tf_split f8 = b16;
  f8.fp8 = 1;
  double tokens = 2048, h = 12288, f = 4 * h, t = 2;
  double want[2] = {tokens * (2 * h + 4 * h / t + 2 * h + 2 * f / t), 4 * tokens * (3 * h / t + h + f / t + h)};
  ss_tf_kernel k16[SS_TF_MAX_KERNELS], k8[SS_TF_MAX_KERNELS];
  ss_tf_device h100 = {"hopper", "fp16", 989e12, 3.35e12, 132, 0.8, 989e12, NULL};
  ss_tf_device h100_8 = {"hopper", "fp8", 1979e12, 3.35e12, 132, 0.8, 989e12, NULL};
  for (int bwd = 0; bwd < 2; bwd++) {
    int n16 = ss_tf_kernels(&g, &b16, bwd, k16), n8 = ss_tf_kernels(&g, &f8, bwd, k8);
    CU_ASSERT(n8 == n16 + (bwd ? 4 : 1) && n8 <= SS_TF_MAX_KERNELS);
    double bytes16 = 0, bytes8 = 0, gemm16 = 0, gemm8 = 0;
    for (int i = 0; i < n16; i++) {
      bytes16 += k16[i].kind == SS_TFK_MEMORY ? k16[i].bytes : 0;
      gemm16 += k16[i].kind == SS_TFK_GEMM ? k16[i].flops : 0;
    }
    for (int i = 0; i < n8; i++) {
      bytes8 += k8[i].kind == SS_TFK_MEMORY ? k8[i].bytes : 0;
      gemm8 += k8[i].kind == SS_TFK_GEMM ? k8[i].flops : 0;
      if (k8[i].kind == SS_TFK_GEMM) {
        double e = ss_gemm_efficiency(ss_gemm_fit_of("hopper", "fp8"), k8[i].m, k8[i].n, k8[i].k, 132);
        CU_ASSERT(fabs(ss_tf_kernel_time(&k8[i], &h100_8) - k8[i].flops / (1979e12 * e)) <=
                  1e-9 * k8[i].flops / 1979e12);
      }
      if (k8[i].kind == SS_TFK_ATTENTION)
        CU_ASSERT(ss_tf_kernel_time(&k8[i], &h100_8) == ss_tf_kernel_time(&k8[i], &h100));
    }
    CU_ASSERT(gemm8 == gemm16);
    CU_ASSERT(fabs(bytes8 - bytes16 - want[bwd]) <= 1e-9 * want[bwd]);
  }
  b16.t = f8.t = 1;
  double sbh = 2048 * h, sba = 2048 * 96.0;
  CU_ASSERT(fabs(ss_tf_activation_bytes(&g, &b16, SS_RECOMPUTE_NONE) - (34 * sbh + 4 * sba)) <= 1e-9 * 34 * sbh);
  CU_ASSERT(fabs(ss_tf_activation_bytes(&g, &f8, SS_RECOMPUTE_NONE) - (27 * sbh + 4 * sba)) <= 1e-9 * 27 * sbh);
}

/* The kernel model on a workload: the generations of the catalogue's GPUs; each transformer layer's
 * time the sum of its kernels' (each at least the floor); and the workload carried to another
 * sequence: at its own sequence with eager attention its FLOPs unchanged, at twice the sequence a
 * layer's matrix products doubled and its attention quadrupled, as many tokens in half the samples. */
static void test_tfmodel_workload(void)
{
  CU_ASSERT(strcmp(ss_tf_generation("NVIDIA H100 80GB HBM3"), "hopper") == 0);
  CU_ASSERT(strcmp(ss_tf_generation("NVIDIA A100-SXM4-40GB"), "ampere") == 0);
  CU_ASSERT(strcmp(ss_tf_generation("Tesla V100-SXM2-16GB"), "volta") == 0);
  CU_ASSERT(ss_tf_generation("Tesla K80") == NULL && ss_tf_generation("Tesla T4") == NULL);
  CU_ASSERT(ss_tf_precision_class(SS_PRECISION_FP32) == NULL && ss_tf_precision_class(SS_PRECISION_TF32) == NULL);
  ss_workload* w = NULL;
  ss_err err;
  CU_ASSERT_FATAL(ss_workload_load("workloads/gpt2-124m.json", &w, &err) == SS_OK);
  CU_ASSERT_FATAL(w->has_transformer && w->has_work);
  ss_tf_split sp = {.b = 2, .seq = w->tf.seq, .t = 1, .cp = 1, .elem = 2, .attention = SS_ATTENTION_FLASH, .causal = 1};
  ss_tf_device a100 = {"ampere", "fp16", 312e12, 1.555e12, 108, 0.8, 312e12, NULL};
  double* fwd = calloc((size_t)w->nlayers * 2, sizeof(double));
  double *bwd = fwd + w->nlayers, share[2] = {0, 0};
  CU_ASSERT_FATAL(ss_tf_layer_times(w, &w->tf, &sp, &a100, fwd, bwd, share) == 0);
  ss_tf_kernel k[SS_TF_MAX_KERNELS];
  double want = 0, block = 0;
  int n = ss_tf_kernels(&w->tf, &sp, 0, k);
  for (int i = 0; i < n; i++)
    want += fmax(ss_tf_kernel_time(&k[i], &a100), SS_KERNEL_FLOOR_S);
  for (int l = 1; l <= w->layers_per_block; l++)
    block += fwd[l];
  CU_ASSERT(fabs(block - want) <= 1e-12 * want);
  CU_ASSERT(share[0] > 0 && share[0] < 1 && share[1] > 0 && share[1] < 1 && fwd[0] > 0 && bwd[0] > 0 &&
            fwd[w->nlayers - 1] > 0 && bwd[w->nlayers - 1] > 0);
  sp.attention = SS_ATTENTION_EAGER;
  ss_tf_device v100 = {"volta", "fp16", 125e12, 0.9e12, 80, 0.8, 125e12, NULL};
  CU_ASSERT(ss_tf_layer_times(w, &w->tf, &sp, &v100, fwd, bwd, share) == 0);
  sp.attention = SS_ATTENTION_FLASH;
  CU_ASSERT(ss_tf_layer_times(w, &w->tf, &sp, &v100, fwd, bwd, share) == -1);
  free(fwd);
  ss_layer* layers = calloc((size_t)w->nlayers, sizeof(ss_layer));
  ss_workload same, twice;
  ss_tf_workload(w, &w->tf, SS_ATTENTION_EAGER, 0, SS_RECOMPUTE_NONE, &same, layers);
  for (int l = 0; l < w->nlayers; l++)
    CU_ASSERT(fabs(same.layers[l].fwd_flops - w->layers[l].fwd_flops) <= 1e-9 * w->layers[l].fwd_flops);
  ss_transformer tf2 = w->tf;
  tf2.seq *= 2;
  ss_tf_workload(w, &tf2, SS_ATTENTION_EAGER, 0, SS_RECOMPUTE_NONE, &twice, layers);
  double s = w->tf.seq, h = w->tf.hidden, old = 0, now = 0;
  for (int l = 1; l <= w->layers_per_block; l++) {
    old += w->layers[l].fwd_flops;
    now += twice.layers[l].fwd_flops;
  }
  double attn = 4 * s * s * h;
  CU_ASSERT(fabs(now - (2 * (old - attn) + 4 * attn)) <= 1e-9 * now);
  CU_ASSERT(twice.tf.seq == 2 * w->tf.seq && twice.dataset.samples == floor(w->dataset.samples / 2));
  CU_ASSERT(twice.dataset.bytes_per_sample == 2 * w->dataset.bytes_per_sample);
  free(layers);
  ss_workload_free(w);
}

/* Every config of tests/hf (Llama 2/3, Mistral, Qwen2, Qwen3, Gemma, Gemma 2, GPT-2, GPT-NeoX, Pythia)
 * read as a workload: its parameters the model's published total (tests/hf/README.md gives each
 * source), exactly. */
static void test_hfconfig_params(void)
{
  FILE* f = fopen("tests/hf/expected_params.tsv", "r");
  CU_ASSERT_FATAL(f != NULL);
  char line[512];
  int n = 0;
  while (fgets(line, sizeof(line), f)) {
    char folder[64];
    double want = 0;
    if (line[0] == '#' || sscanf(line, "%63s %*s %lf", folder, &want) != 2)
      continue;
    char path[128];
    snprintf(path, sizeof(path), "tests/hf/%s/config.json", folder);
    ss_workload* w = NULL;
    ss_err err;
    CU_ASSERT_FATAL(ss_workload_load(path, &w, &err) == SS_OK);
    double got = 0;
    for (int l = 0; l < w->nlayers; l++)
      got += w->layers[l].params;
    if (got != want)
      fprintf(stderr, "%s: %.0f parameters, published %.0f\n", folder, got, want);
    CU_ASSERT(got == want && w->from_config && w->untimed && w->has_transformer);
    CU_ASSERT(w->nlayers == w->tf.layers + 2 && strcmp(w->model, "") != 0);
    ss_workload_free(w);
    n++;
  }
  fclose(f);
  CU_ASSERT(n >= 14);
}

/* The mixture-of-experts configs of tests/hf-moe, all twelve read (Mixtral, Qwen2-MoE, Qwen3-MoE,
 * OLMoE, DeepSeek-V2 and V3 with their latent attention, GPT-OSS, Llama 4): their total and active
 * parameters those of tests/hf-moe/README.md, exactly (Llama 4 Scout's total its text model's, the
 * TSV's comment figure: the simulator does not train the vision tower the total column counts); their
 * workloads' layers hold the total, and the architecture they carry (ss_moe, ss_mla: what the kernels
 * and the memory read) gives the total and the active parameters within 0.1% (it leaves out biases,
 * the shared expert's gate, the routers' biases, GPT-OSS's sinks); GPT-OSS's sliding window on its even
 * layers and Llama 4's chunks on all but every fourth layer; the families not read refused by name. */
static void test_hfconfig_moe(void)
{
  FILE* f = fopen("tests/hf-moe/expected_params.tsv", "r");
  CU_ASSERT_FATAL(f != NULL);
  char line[1024];
  int read = 0;
  double scout_text = 0;
  while (fgets(line, sizeof(line), f)) {
    char folder[64];
    double total = 0, active = 0;
    const char* text = strstr(line, "llama-4-scout text model only (text_config):");
    if (line[0] == '#' && text)
      scout_text = atof(strchr(text, ':') + 1);
    if (line[0] == '#' || sscanf(line, "%63s %*s %lf %*s %lf", folder, &total, &active) != 3)
      continue;
    int oss = strncmp(folder, "gpt-oss", 7) == 0, scout = strcmp(folder, "llama-4-scout") == 0;
    if (scout) {
      CU_ASSERT_FATAL(scout_text > 0 && scout_text < total);
      total = scout_text;
    }
    char path[128];
    snprintf(path, sizeof(path), "tests/hf-moe/%s/config.json", folder);
    FILE* c = fopen(path, "r");
    CU_ASSERT_FATAL(c != NULL);
    char json[16384];
    size_t n = fread(json, 1, sizeof(json) - 1, c);
    fclose(c);
    json[n] = '\0';
    cJSON* root = cJSON_Parse(json);
    CU_ASSERT_FATAL(root != NULL);
    ss_hf_model m;
    ss_err err;
    ss_err_clear(&err);
    CU_ASSERT_FATAL(ss_hf_read(root, path, &m, &err) == SS_OK);
    if (ss_hf_params(&m) != total || ss_hf_active_params(&m) != active)
      fprintf(stderr, "%s: %.0f and %.0f active parameters, published %.0f and %.0f\n", folder, ss_hf_params(&m),
              ss_hf_active_params(&m), total, active);
    CU_ASSERT(ss_hf_params(&m) == total && ss_hf_active_params(&m) == active && m.moe_layers > 0);
    /* The layers that attend locally: GPT-OSS's even ones (a window of 128 tokens), Llama 4's but every
     * fourth (chunks of 8192); none in the others. */
    const ss_transformer* tf = &m.tf;
    if (oss)
      CU_ASSERT(tf->window == 128 && !tf->window_chunked && ss_transformer_is_windowed(tf, 0) &&
                !ss_transformer_is_windowed(tf, 1) && ss_transformer_is_windowed(tf, 22) &&
                !ss_transformer_is_windowed(tf, 23));
    if (scout)
      CU_ASSERT(tf->window == 8192 && tf->window_chunked && ss_transformer_is_windowed(tf, 0) &&
                ss_transformer_is_windowed(tf, 2) && !ss_transformer_is_windowed(tf, 3) &&
                !ss_transformer_is_windowed(tf, 47) && tf->ffn == 16384 && tf->moe.expert_ffn == 8192);
    if (!oss && !scout)
      CU_ASSERT(tf->window == 0);
    ss_workload* w = NULL;
    ss_err_clear(&err);
    CU_ASSERT_FATAL(ss_workload_load(path, &w, &err) == SS_OK);
    double held = 0;
    for (int l = 0; l < w->nlayers; l++)
      held += w->layers[l].params;
    double arch = ss_transformer_params(&w->tf), arch_active = ss_transformer_active_params(&w->tf);
    if (fabs(arch / total - 1) > 1e-3 || fabs(arch_active / active - 1) > 1e-3)
      fprintf(stderr, "%s: the architecture's %.0f and %.0f active parameters, published %.0f and %.0f\n", folder, arch,
              arch_active, total, active);
    CU_ASSERT(held == total && ss_transformer_moe_layers(&w->tf) == m.moe_layers);
    CU_ASSERT(fabs(arch / total - 1) <= 1e-3 && fabs(arch_active / active - 1) <= 1e-3);
    ss_workload_free(w);
    cJSON_Delete(root);
    read++;
  }
  fclose(f);
  CU_ASSERT(read >= 12);
  /* A family not read is refused by name. */
  cJSON* dbrx = cJSON_Parse("{\"architectures\": [\"DbrxForCausalLM\"], \"model_type\": \"dbrx\"}");
  ss_hf_model m;
  ss_err err;
  ss_err_clear(&err);
  CU_ASSERT(ss_hf_read(dbrx, "dbrx.json", &m, &err) == SS_EINPUT && strstr(err.msg, "mixture-of-experts") != NULL);
  cJSON_Delete(dbrx);
}

/* The layers split over the virtual stages: evenly as Megatron-LM does, or as given. */
static void test_pipeline_partition(void)
{
  int c[16];
  char why[256];
  CU_ASSERT(ss_pipe_partition(96, 8, 2, NULL, 0, c, why, sizeof(why)) == 0 && c[0] == 6 && c[15] == 6);
  CU_ASSERT(ss_pipe_partition(30, 4, 1, NULL, 0, c, why, sizeof(why)) == -1 && strstr(why, "--partition"));
  int given[4] = {7, 8, 8, 7};
  CU_ASSERT(ss_pipe_partition(30, 4, 1, given, 4, c, why, sizeof(why)) == 0 && c[0] == 7 && c[1] == 8);
  CU_ASSERT(ss_pipe_partition(31, 4, 1, given, 4, c, why, sizeof(why)) == -1 && strstr(why, "adds up to 30"));
  CU_ASSERT(ss_pipe_partition(30, 4, 1, given, 3, c, why, sizeof(why)) == -1 && strstr(why, "3 counts"));
  CU_ASSERT(ss_pipe_partition(4, 8, 1, NULL, 0, c, why, sizeof(why)) == -1 && strstr(why, "a layer at least"));
  given[1] = 0;
  CU_ASSERT(ss_pipe_partition(22, 4, 1, given, 4, c, why, sizeof(why)) == -1 && strstr(why, "fewer than 1"));
  /* --partition's text: each fault named as itself, never as a wrong layer count. */
  char wide[320];
  CU_ASSERT(ss_pipe_partition_parse("7,8,0008,7", c, wide, sizeof(wide)) == 4 && c[2] == 8 && c[3] == 7);
  CU_ASSERT(ss_pipe_partition_parse("7,x", NULL, wide, sizeof(wide)) == -1 &&
            strstr(wide, "item 2, 'x', is not a whole"));
  CU_ASSERT(ss_pipe_partition_parse("7,,7", NULL, wide, sizeof(wide)) == -1 && strstr(wide, "item 2 is empty"));
  CU_ASSERT(ss_pipe_partition_parse("7,0", NULL, wide, sizeof(wide)) == -1 && strstr(wide, "item 2 is 0"));
  CU_ASSERT(ss_pipe_partition_parse("7,-7", NULL, wide, sizeof(wide)) == -1 && strstr(wide, "not a whole number"));
  CU_ASSERT(ss_pipe_partition_parse("1000000", NULL, wide, sizeof(wide)) == 1);
  CU_ASSERT(ss_pipe_partition_parse("1000001", NULL, wide, sizeof(wide)) == -1 &&
            strstr(wide, "more than 1000000 layers"));
  CU_ASSERT(ss_pipe_partition_parse("3,99999999999999999999999999999999999999", NULL, wide, sizeof(wide)) == -1 &&
            strstr(wide, "item 2, '99999999999999999999999999999999...', is more than"));
  /* SS_PIPE_PARTITION_MAX items pass, one more is too many (and the message quotes 64 characters). */
  char* list = malloc(2 * (SS_PIPE_PARTITION_MAX + 1));
  CU_ASSERT_FATAL(list != NULL);
  for (int i = 0; i <= SS_PIPE_PARTITION_MAX; i++)
    memcpy(list + 2 * i, "1,", 2);
  list[2 * SS_PIPE_PARTITION_MAX - 1] = '\0';
  CU_ASSERT(ss_pipe_partition_parse(list, NULL, wide, sizeof(wide)) == SS_PIPE_PARTITION_MAX);
  list[2 * SS_PIPE_PARTITION_MAX - 1] = ',';
  list[2 * SS_PIPE_PARTITION_MAX + 1] = '\0';
  CU_ASSERT(ss_pipe_partition_parse(list, NULL, wide, sizeof(wide)) == -1 && strstr(wide, "more than 4096 items") &&
            strstr(wide, "1,1,...'") && strlen(wide) < 320);
  free(list);
}

/* The activations a stage holds under each schedule, against Korthikanti et al.'s statements. */
static void test_pipeline_memory(void)
{
  int c[16];
  char why[256];
  /* 1F1B, p 4, L 32: stage 0 holds p micro-batches of L / p layers, L layers' worth; the last
   * stage one micro-batch of its 8 layers; with m 2 < p, m / p of L. */
  CU_ASSERT_FATAL(ss_pipe_partition(32, 4, 1, NULL, 0, c, why, sizeof(why)) == 0);
  CU_ASSERT(ss_pipe_stage_layers_held(SS_SCHEDULE_1F1B, 4, 1, 8, 0, c) == 32);
  CU_ASSERT(ss_pipe_stage_layers_held(SS_SCHEDULE_1F1B, 4, 1, 8, 3, c) == 8);
  CU_ASSERT(ss_pipe_stage_layers_held(SS_SCHEDULE_1F1B, 4, 1, 2, 0, c) == 32 * 2 / 4);
  /* GPipe keeps every micro-batch: m L / p. */
  CU_ASSERT(ss_pipe_stage_layers_held(SS_SCHEDULE_GPIPE, 4, 1, 8, 0, c) == 8 * 32 / 4);
  /* Interleaved, p 4, v 2, L 32, m 8: L (1 + (p - 1) / (p v)) = 32 (1 + 3 / 8) = 44. */
  CU_ASSERT_FATAL(ss_pipe_partition(32, 4, 2, NULL, 0, c, why, sizeof(why)) == 0);
  CU_ASSERT(ss_pipe_stage_layers_held(SS_SCHEDULE_INTERLEAVED, 4, 2, 8, 0, c) == 44);
  CU_ASSERT(ss_pipe_stage_layers_held(SS_SCHEDULE_INTERLEAVED, 4, 2, 6, 0, c) == -1);
  /* The peak is found without the order stored (it scans the warm-up and p v pairs): the same as a
   * scan of the whole order, on uneven partitions, and each pass computed alone as the order has it. */
  static const int ms[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 40};
  ss_pipe_op order[2 * 40 * 3];
  for (int s = 0; s < SS_SCHEDULE_COUNT; s++)
    for (int p = 1; p <= 4; p++)
      for (int v = 1; v <= 3; v++)
        for (size_t k = 0; k < sizeof(ms) / sizeof(ms[0]); k++) {
          int m = ms[k];
          if (ss_pipe_check((ss_schedule)s, p, v, m, why, sizeof(why)))
            continue;
          for (int i = 0; i < p * v; i++)
            c[i] = 1 + (i * 7 + 3) % 5;
          for (int r = 0; r < p; r++) {
            int n = ss_pipe_order((ss_schedule)s, p, v, m, r, order);
            CU_ASSERT_FATAL(n == 2 * m * v);
            double held = 0, most = 0;
            for (int i = 0; i < n; i++) {
              ss_pipe_op one;
              CU_ASSERT(ss_pipe_op_at((ss_schedule)s, p, v, m, r, i, &one) == 0 && one.micro == order[i].micro &&
                        one.chunk == order[i].chunk && one.bwd == order[i].bwd);
              held += (order[i].bwd ? -1 : 1) * c[order[i].chunk * p + r];
              most = held > most ? held : most;
            }
            CU_ASSERT(ss_pipe_stage_layers_held((ss_schedule)s, p, v, m, r, c) == most);
          }
        }
  /* A billion micro-batches: 1F1B's stage 0 holds p of them, found at once; beyond the passes an
   * order's indices hold, refused. */
  CU_ASSERT_FATAL(ss_pipe_partition(32, 4, 1, NULL, 0, c, why, sizeof(why)) == 0);
  CU_ASSERT(ss_pipe_stage_layers_held(SS_SCHEDULE_1F1B, 4, 1, 1000000000, 0, c) == 32);
  CU_ASSERT(ss_pipe_stage_layers_held(SS_SCHEDULE_GPIPE, 4, 1, 1000000000, 0, c) == 8e9);
  CU_ASSERT(ss_pipe_check(SS_SCHEDULE_INTERLEAVED, 4, 2, 1000000000, why, sizeof(why)) < 0 && strstr(why, "passes"));
}

static const suite_def suites[] = {
    {"units",
     {{"parse", test_units},
      {"bounds", test_units_bounds},
      {"trace_name", test_trace_name},
      {"err_cut", test_err_cut}}},
    {"platform",
     {{"p3_16xl", test_platform_p3_16xl},
      {"all_files", test_platform_all_files},
      {"nics", test_platform_nics},
      {"device_figures", test_platform_device_figures},
      {"errors", test_platform_errors}}},
    {"workload",
     {{"resnet50", test_workload_resnet50},
      {"work", test_workload_work},
      {"gzip", test_workload_gzip},
      {"error_position", test_workload_error_position}}},
    {"topo", {{"star", test_topo_star}, {"dgx1", test_topo_dgx1}, {"btree", test_topo_btree}}},
    {"cluster",
     {{"compose", test_cluster_compose},
      {"cost", test_cost_star},
      {"nic_hidden", test_cost_nic_hidden},
      {"faster_nic", test_cost_faster_nic}}},
    {"proto", {{"tuning", test_proto_tuning}}},
    {"nccl",
     {{"releases", test_nccl_releases},
      {"ring_chain", test_cost_ring_chain},
      {"tuner", test_tuner_choice},
      {"ofitune", test_ofitune_regions},
      {"tuner_ofi", test_tuner_ofi}}},
    {"goodput", {{"closed_form", test_goodput_closed_form}, {"memo", test_memo}}},
    {"job",
     {{"buckets", test_job_buckets},
      {"gpus_beyond_instance", test_job_gpus_beyond_instance},
      {"checkpoint", test_job_checkpoint}}},
    {"timeline", {{"breakdown", test_timeline_breakdown}}},
    {"cli", {{"parse", test_cli}}},
    {"option", {{"registry", test_option_registry}}},
    {"report", {{"json", test_report_json}}},
    {"price", {{"reader", test_price_reader}, {"resolve", test_price_resolve}}},
    {"outfile",
     {{"same", test_outfile_same},
      {"commit", test_outfile_commit},
      {"write_error", test_outfile_write_error},
      {"nameless", test_outfile_nameless}}},
    {"memory", {{"parts", test_memory_parts}, {"job", test_memory_job}, {"checkpoint", test_memory_checkpoint}}},
    {"roofline", {{"closed_forms", test_roofline_closed_forms}, {"fit", test_roofline_fit}}},
    {"pipeline",
     {{"orders", test_pipeline_orders},
      {"bubble", test_pipeline_bubble},
      {"layout", test_pipeline_layout},
      {"transformer", test_pipeline_transformer},
      {"partition", test_pipeline_partition},
      {"memory", test_pipeline_memory}}},
    {"tfkernels",
     {{"flops", test_tfkernels_flops},
      {"memory", test_tfkernels_memory},
      {"fits", test_tfkernels_fits},
      {"time", test_tfkernels_time},
      {"fp8", test_tfkernels_fp8},
      {"tfmodel", test_tfmodel_workload},
      {"hfconfig", test_hfconfig_params},
      {"hfconfig_moe", test_hfconfig_moe}}},
    {"rng",
     {{"streams", test_rng_streams},
      {"moments", test_rng_moments},
      {"jitter", test_rng_jitter},
      {"slowest", test_rng_slowest}}},
};

int main(int argc, char** argv)
{
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  for (size_t s = 0; s < sizeof(suites) / sizeof(suites[0]); s++) {
    if (argc > 1 && strcmp(argv[1], suites[s].name) != 0)
      continue;
    CU_pSuite suite = CU_add_suite(suites[s].name, NULL, NULL);
    for (int t = 0; t < 8 && suites[s].tests[t].name; t++)
      CU_add_test(suite, suites[s].tests[t].name, suites[s].tests[t].fn);
  }
  if (CU_get_registry()->uiNumberOfSuites == 0) {
    fprintf(stderr, "test_unit: unknown suite '%s'\n", argv[1]);
    CU_cleanup_registry();
    return 2;
  }
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
  CU_cleanup_registry();
  return failed ? 1 : 0;
}
