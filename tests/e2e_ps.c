/* e2e_ps: parameter servers: closed forms, shards, asynchronous SGD. */
#include "e2e.h"
#include "net.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Parameter servers on star4 instances (every link 10 GB/s, 5 us), one layer of S = 100 MB, no
 * overlap: N workers push S each through the server's NIC, then pull it back: 2NS/B, plus the
 * compute (3.5 ms) and 15 us of path latency each way; the server's CPU adds (N + 1) S / agg (N
 * sums and one update on one core). */
static const char* const ps_base = "tests/platforms/star4.xml tests/workloads/one_layer.json --arch ps --synthetic "
                                   "--no-overlap --jitter 0";

static double ps_iteration(const char* extra, cJSON** keep)
{
  cJSON* j = sim_json("%s %s", ps_base, extra);
  double t = j ? num(j, "iteration_s") : NAN;
  if (keep)
    *keep = j;
  else
    cJSON_Delete(j);
  return t;
}

void test_ps_closed_form(void)
{
  static const int cases[][2] = {{1, 1}, {4, 1}, {4, 2}}; /* GPUs per instance, instances */
  for (int c = 0; c < 3; c++) {
    char extra[128];
    snprintf(extra, sizeof(extra), "--gpus %d --instances %d --server-agg-gbps 1e6", cases[c][0], cases[c][1]);
    cJSON* j = NULL;
    double t = ps_iteration(extra, &j);
    int n = cases[c][0] * cases[c][1];
    double expect = 0.0035 + 2.0 * n * 1e8 / 1e10 + 2 * 15e-6 + (n + 1) * 1e8 / 1e15;
    CHECK(fabs(t - expect) <= 1e-6 * expect, "%s: iteration %.9g s, expected 2NS/B: %.9g", extra, t, expect);
    const cJSON* b = j ? cJSON_GetObjectItemCaseSensitive(j, "breakdown") : NULL;
    CHECK(b && fabs(num(b, "network_stall_s") - (t - 0.0035)) <= 1e-9, "%s: dedicated servers: the wait is network",
          extra);
    cJSON_Delete(j);
  }
  /* Over a network transport (sim/net.c) the server's NIC carries f B and each push and pull pays the
   * transport's cost per message m once: 2NS/(f B) + 2 (15 us + m). */
  ss_net_figures net = ss_net_default(SS_NET_SOCKET);
  double t = ps_iteration("--gpus 4 --instances 2 --server-agg-gbps 1e6 --net-transport socket", NULL);
  double expect = 0.0035 + 2.0 * 8 * 1e8 / (net.line_fraction * 1e10) + 2 * (15e-6 + net.message_us * 1e-6) +
                  9 * 1e8 / 1e15;
  CHECK(fabs(t - expect) <= 1e-6 * expect, "socket transport: iteration %.9g s, expected %.9g", t, expect);
  /* The server's CPU: 8 sums and an update of 100 MB at 2 GB/s on one core. */
  t = ps_iteration("--instances 2", NULL);
  expect = 0.0035 + 2.0 * 8 * 1e8 / 1e10 + 2 * 15e-6 + 9 * 1e8 / 2e9;
  CHECK(fabs(t - expect) <= 1e-6 * expect, "server CPU: iteration %.9g s, expected %.9g", t, expect);
  /* Colocated on the only instance: the 4 workers reach the server over its 10 GB/s PCIe link to
   * the CPU, 10 us each way, and that wait is interconnect, not network. */
  cJSON* j = NULL;
  t = ps_iteration("--ps-placement colocated --server-agg-gbps 1e6", &j);
  expect = 0.0035 + 2.0 * 4 * 1e8 / 1e10 + 2 * 10e-6 + 5 * 1e8 / 1e15;
  CHECK(fabs(t - expect) <= 1e-6 * expect, "colocated: iteration %.9g s, expected %.9g", t, expect);
  const cJSON* b = j ? cJSON_GetObjectItemCaseSensitive(j, "breakdown") : NULL;
  CHECK(b && num(b, "network_stall_s") == 0 && num(b, "interconnect_stall_s") > 0.08, "colocated: interconnect");
  cJSON_Delete(j);
}

/* --ps-aggregate instance on 2 x star4 (one server on a host of its own): the 4 GPUs of an instance
 * reduce-scatter the 100 MB in a lock-step ring, 3 steps of S/4 over two 5 us links at 10 GB/s;
 * each of the 8 pushes S/4 and pulls it back, 2S through the server's NIC each way; then the
 * all-gather, 3 more steps: 3.5 ms + 2 x 3 (10 us + S/(4B)) + 2 (2S/B + 15 us), where every GPU
 * pushing all of S takes 2 x 8S/B (test_ps_closed_form). The all-gather is interconnect stall. One
 * GPU per instance: the same as gpu. */
void test_ps_aggregate(void)
{
  cJSON* j = NULL;
  double t = ps_iteration("--instances 2 --server-agg-gbps 1e6 --ps-aggregate instance", &j);
  double expect = 0.0035 + 2 * 3 * (10e-6 + 1e8 / 4 / 1e10) + 2 * (2 * 1e8 / 1e10 + 15e-6) + (8 * 25e6 + 1e8) / 1e15;
  CHECK(fabs(t - expect) <= 1e-6 * expect, "aggregated: iteration %.9g s, expected %.9g", t, expect);
  const cJSON* b = j ? cJSON_GetObjectItemCaseSensitive(j, "breakdown") : NULL;
  CHECK(b && fabs(num(b, "interconnect_stall_s") - 3 * (10e-6 + 1e8 / 4 / 1e10)) <= 1e-9,
        "the all-gather is interconnect stall: %g s", b ? num(b, "interconnect_stall_s") : NAN);
  const cJSON* o = j ? cJSON_GetObjectItemCaseSensitive(j, "options") : NULL;
  const cJSON* v = o ? cJSON_GetObjectItemCaseSensitive(o, "ps_aggregate") : NULL;
  CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "instance") == 0, "options.ps_aggregate");
  cJSON_Delete(j);
  double one = ps_iteration("--gpus 1 --instances 2 --server-agg-gbps 1e6 --ps-aggregate instance", NULL);
  double gpu = ps_iteration("--gpus 1 --instances 2 --server-agg-gbps 1e6", NULL);
  CHECK(one == gpu, "one GPU per instance: %.9g s aggregated, %.9g s not", one, gpu);
}

void test_ps_shards(void)
{
  /* 8 workers on 2 instances: K shards on K hosts divide the servers' load by K until the
   * workers' own NICs (4 GPUs each, 10 GB/s) bind at 2 x 4S/B. */
  double t[4];
  for (int k = 0; k < 4; k++) {
    char extra[96];
    snprintf(extra, sizeof(extra), "--instances 2 --servers %d --server-agg-gbps 1e6", 1 << k);
    t[k] = ps_iteration(extra, NULL) - 0.0035;
  }
  CHECK(fabs(t[0] / t[1] - 2) <= 0.01, "2 shards: %.6g s against %.6g s with one", t[1], t[0]);
  double nic = 2.0 * 4 * 1e8 / 1e10;
  for (int k = 1; k < 4; k++)
    CHECK(fabs(t[k] - nic) <= 1e-3 * nic, "%d shards: %.6g s, the workers' NICs bind at %.6g s", 1 << k, t[k], nic);
  /* With the server's CPU binding (2 GB/s), shards on hosts of their own help about K times. */
  double cpu1 = ps_iteration("--instances 2 --servers 1", NULL), cpu4 = ps_iteration("--instances 2 --servers 4", NULL);
  CHECK(cpu1 / cpu4 > 3.5 && cpu1 / cpu4 < 4.5, "server CPU bound: 4 shards %.6g s against %.6g s", cpu4, cpu1);
  /* Sharding balances bytes: with 3 layers of 4 MB and 3 shards, each holds one layer. */
  cJSON* j = sim_json("tests/platforms/star4.xml tests/workloads/tiny.json --arch ps --servers 3 --synthetic");
  CHECK(j && num(j, "servers") == 3 && num(j, "server_hosts") == 3, "3 shards on 3 hosts");
  cJSON_Delete(j);
}

void test_ps_async(void)
{
  cJSON* sync = NULL;
  cJSON* async = NULL;
  double ts = ps_iteration("--instances 2", &sync);
  double ta = ps_iteration("--instances 2 --async", &async);
  CHECK(sync && num(sync, "staleness_mean") == 0 && num(sync, "staleness_max") == 0, "synchronous: no staleness");
  /* 8 workers each apply their push at once: while a worker computes and waits, the 7 others
   * update the parameters it pulled. */
  CHECK(async && num(async, "staleness_max") == 7 && num(async, "staleness_mean") > 5 &&
            num(async, "staleness_mean") <= 7,
        "asynchronous staleness %.3g (max %.3g)", async ? num(async, "staleness_mean") : NAN,
        async ? num(async, "staleness_max") : NAN);
  CHECK(ta < ts, "ASGD %.6g s per step, synchronous %.6g s", ta, ts);
  CHECK(async &&
            num(async, "worker_throughput_min_samples_per_s") <= num(async, "worker_throughput_max_samples_per_s") &&
            num(async, "worker_throughput_min_samples_per_s") > 0,
        "per-worker throughput");
  cJSON_Delete(sync);
  cJSON_Delete(async);

  /* Workers that differ (star4_slow: GPU 3 at half speed; 4 shards and fast summation, so the
   * servers do not pace everyone): ASGD lets each run at its own pace, and the report gives each
   * worker's throughput and staleness; the synchronous step waits for the slowest. */
  const char* mixed = "tests/platforms/star4_slow.xml tests/workloads/tiny.json --synthetic --arch ps --servers 4 "
                      "--server-agg-gbps 1e6";
  sync = sim_json("%s --sync", mixed);
  async = sim_json("%s --async", mixed);
  CHECK(sync && !cJSON_GetObjectItemCaseSensitive(sync, "workers"), "synchronous: no per-worker figures");
  const cJSON* w = async ? cJSON_GetObjectItemCaseSensitive(async, "workers") : NULL;
  CHECK(cJSON_GetArraySize(w) == 4, "asynchronous: a figure per worker");
  if (sync && async && cJSON_GetArraySize(w) == 4) {
    double tp[4], st[4], lo = INFINITY, hi = 0, mean = 0;
    for (int r = 0; r < 4; r++) {
      const cJSON* e = cJSON_GetArrayItem(w, r);
      CHECK(num(e, "rank") == r, "worker %d in rank order", r);
      tp[r] = num(e, "throughput_samples_per_s");
      st[r] = num(e, "staleness_mean");
      lo = fmin(lo, tp[r]);
      hi = fmax(hi, tp[r]);
      mean += st[r] / 4;
    }
    CHECK(lo == num(async, "worker_throughput_min_samples_per_s") &&
              hi == num(async, "worker_throughput_max_samples_per_s"),
          "the spread is the workers' own: %.6g..%.6g", lo, hi);
    /* Every worker pushes as many parts, so the mean staleness is the mean of the workers'. */
    CHECK(fabs(mean - num(async, "staleness_mean")) <= 1e-9 * mean, "staleness %.9g against the workers' %.9g",
          num(async, "staleness_mean"), mean);
    for (int r = 0; r < 3; r++)
      CHECK(tp[3] < 0.75 * tp[r] && st[3] > st[r],
            "the slow GPU's worker: %.6g samples/s (staleness %.3g) against "
            "worker %d's %.6g (%.3g)",
            tp[3], st[3], r, tp[r], st[r]);
    /* Synchronous: every worker runs at the slowest one's pace, which ASGD's fast workers beat. */
    double pace = num(sync, "batch_per_gpu") / num(sync, "iteration_s");
    CHECK(tp[0] > 1.3 * pace && tp[3] > 0.9 * pace,
          "asynchronous workers %.6g and %.6g samples/s against %.6g synchronous", tp[0], tp[3], pace);
  }
  cJSON_Delete(sync);
  cJSON_Delete(async);
}
