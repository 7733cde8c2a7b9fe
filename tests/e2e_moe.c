/* e2e: mixtures of experts: the all-to-all of "stash-sim bench all-to-all" against its closed form,
 * and the same flows against the closed form the training runs time their token exchange with
 * (sim/a2a.h). */
#include "e2e.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* On m stars of g GPUs (every link 10 GB/s each way, 5 us; a GPU to a GPU 10 us, to another star's
 * 20 us) each GPU sends 1/n of S to each of the n - 1 others at once: its own link carries
 * (n-1) S/n each way, its star's NIC g (n-g) S/n each way; the time is the call and the protocol's
 * step (Simple: 8.4 us and 5.7 us inside a star, 9.6 us across), the longest route's latency, and
 * the busier of the two. */
void test_alltoall_closed_form(void)
{
  const double bw = 10e9, sizes[] = {1e6, 6.4e7};
  const struct {
    const char* file;
    int g, m;
  } cases[] = {{"star4", 4, 1}, {"star4", 4, 2}, {"star2", 2, 4}, {"star4", 4, 3}};
  const struct {
    const char* opt;
    double call, step_in, step_net, eff;
  } protos[] = {{"", 8.4e-6, 5.7e-6, 9.6e-6, 1}, {"--no-call-cost", 0, 0, 0, 1}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    for (size_t q = 0; q < sizeof(protos) / sizeof(protos[0]); q++)
      for (int k = 0; k < 2; k++) {
        int g = cases[i].g, m = cases[i].m, n = g * m;
        double s = sizes[k], x = s / n / protos[q].eff;
        double link = (n - 1) * x / bw, nic = g * (n - g) * x / bw;
        double expect = protos[q].call + (m > 1 ? protos[q].step_net + 20e-6 : protos[q].step_in + 10e-6) +
                        fmax(link, m > 1 ? nic : 0);
        char args[200], ran[32];
        snprintf(args, sizeof(args), "tests/platforms/%s.xml --instances %d %s", cases[i].file, m, protos[q].opt);
        double t = bench_op_time("all-to-all", args, s, ran, sizeof(ran));
        /* The flows move whole bytes: S/n rounded. */
        CHECK(fabs(t - expect) <= 1e-5 * expect && strcmp(ran, "p2p") == 0,
              "bench all-to-all %s, S=%g: %.12g s (%s), closed form %.12g s", args, s, t, ran, expect);
      }
}

/* The closed form the training runs use (bench's closed_form_time_s) against the flows SimGrid
 * shares, on the catalogue's instances inside one and across two and four: within 2% where one link
 * bounds every transfer (each GPU's NVSwitch port, the NIC); p3.16xlarge's hybrid cube mesh sends
 * some pairs over PCIe, whose flows end after the busiest link's bound says (within 2% there too). */
void test_alltoall_flows(void)
{
  const char* const files[] = {"p5.48xl", "p4d.24xl", "p3.16xl", "g5.48xl"};
  const int instances[] = {1, 2, 4};
  for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++)
    for (size_t i = 0; i < sizeof(instances) / sizeof(instances[0]); i++) {
      char args[256];
      snprintf(args, sizeof(args),
               "bench all-to-all platforms/%s.xml --instances %d --min-bytes 1048576 --max-bytes 268435456 "
               "--format json",
               files[f], instances[i]);
      run_result r = runs(SS_SIM_BIN, args);
      cJSON* j = r.status == 0 ? cJSON_Parse(r.out) : NULL;
      const cJSON* rows = cJSON_GetObjectItemCaseSensitive(j, "results");
      CHECK(cJSON_GetArraySize(rows) == 9, "stash-sim %s: %s%s", args, r.out, r.err);
      const cJSON* row;
      cJSON_ArrayForEach(row, rows)
      {
        double t = num(row, "time_s"), closed = num(row, "closed_form_time_s");
        double busbw = num(row, "busbw_gbytes_per_s"), algbw = num(row, "algbw_gbytes_per_s");
        int n = 8 * instances[i];
        CHECK(fabs(closed - t) <= 0.02 * t, "%s, %g bytes: flows %.9g s, closed form %.9g s", args,
              num(row, "size_bytes"), t, closed);
        CHECK(fabs(busbw - algbw * (n - 1) / n) <= 1e-6 * busbw + 1e-6, "%s: busbw %g is not algbw %g x (n-1)/n", args,
              busbw, algbw);
      }
      cJSON_Delete(j);
      run_free(&r);
    }
}
