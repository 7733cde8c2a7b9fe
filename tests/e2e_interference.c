/* e2e_interference: compute slowed by collectives on its GPU (--comm-interference, the instance
 * files' comm_interference): closed forms, its booking as stall, f = 0 as without it, the trace. */
#include "e2e.h"

#include <math.h>
#include <stdio.h>

/* The same job as a closed form: tiny.json's three layers (forward 1 ms, backward 2 ms, 4 MB of
 * gradients each, optimizer 0.5 ms) on two GPUs, one allreduce per layer, no host side. */
#define INTF_JOB                                                                                                       \
  "tests/workloads/tiny.json --synthetic --bucket-mib 0 --no-launch --no-framework --jitter 0 --no-call-cost"

static int close_to(double a, double b, double abs_tol)
{
  return fabs(a - b) <= abs_tol;
}

/* Layer 2's allreduce (T = 2 (alpha + 4 MB / (2 x 10 GB/s)), alpha 10 us inside the star, 20 us
 * between two) runs during layer 1's backward, layer 1's during layer 0's: each backward takes
 * 2 ms + T f / (1 + f) (T at 1 / (1 + f) of the GPU's speed); layer 0's allreduce is waited for.
 * The iteration is 9.5 ms + T + 2 T f / (1 + f); compute stays 9.5 ms, the 2 T f / (1 + f) lost
 * is interference, booked as interconnect stall inside the star, as network stall between two. */
void test_interference_closed_form(void)
{
  const double fs[] = {0.25, 1, 2.5, 10};
  const struct {
    const char* where;
    double alpha;
    int net;
  } cases[] = {{"tests/platforms/star2.xml", 10e-6, 0}, {"tests/platforms/star2.xml --gpus 1 --instances 2", 20e-6, 1}};
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
    for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
      double f = fs[i], t_coll = 2 * (cases[c].alpha + 4e6 / (2 * 10e9)), lost = 2 * t_coll * f / (1 + f);
      cJSON* j = sim_json("%s %s --comm-interference %g", cases[c].where, INTF_JOB, f);
      if (!j)
        continue;
      const cJSON* b = cJSON_GetObjectItemCaseSensitive(j, "breakdown");
      const cJSON* d = cJSON_GetObjectItemCaseSensitive(j, "breakdown_detail");
      double it = num(j, "iteration_s"), stall = t_coll + lost;
      CHECK(close_to(it, 9.5e-3 + stall, 1e-12), "%s, f = %g: iteration %.15g s, closed form %.15g s", cases[c].where,
            f, it, 9.5e-3 + stall);
      CHECK(close_to(num(b, "compute_s"), 9.5e-3, 1e-12), "f = %g: compute %.15g s, expected 9.5 ms", f,
            num(b, "compute_s"));
      CHECK(close_to(num(d, "interference_s"), lost, 1e-12),
            "%s, f = %g: interference %.15g s, elapsed x f/(1+f) %.15g s", cases[c].where, f, num(d, "interference_s"),
            lost);
      double net = num(b, "network_stall_s"), inter = num(b, "interconnect_stall_s");
      /* The other stall is 0 but for rounding: the collective's and its phases' times are two sums. */
      CHECK(close_to(cases[c].net ? net : inter, stall, 1e-12) && close_to(cases[c].net ? inter : net, 0, 1e-15),
            "%s, f = %g: network %.15g s, interconnect %.15g s; expected %.15g s of %s stall", cases[c].where, f, net,
            inter, stall, cases[c].net ? "network" : "interconnect");
      double sum = 0;
      const cJSON* part;
      cJSON_ArrayForEach(part, b) sum += part->valuedouble;
      CHECK(close_to(sum, it, 1e-12 * it), "f = %g: the parts add up to %.15g s, the iteration is %.15g s", f, sum, it);
      cJSON_Delete(j);
    }
}

/* f = 0 is the run without interference, value for value: --comm-interference 0, --no-interference
 * and the instance file's factor given again as the what-if agree; --ideal and parameter servers
 * have none; the shipped instance files have some. */
void test_interference_off(void)
{
  const char* base = "platforms/p3.16xl.xml workloads/resnet50.json --iterations 2 --warmup 1";
  double off = sim_num("iteration_s", "%s --no-interference", base);
  double zero = sim_num("iteration_s", "%s --comm-interference 0", base);
  double dflt = sim_num("iteration_s", "%s", base);
  double same = sim_num("iteration_s", "%s --comm-interference 0.19", base);
  CHECK(off == zero, "--comm-interference 0: %.17g s, --no-interference %.17g s", zero, off);
  CHECK(dflt == same && dflt > off, "the file's 0.19: %.17g s, given again %.17g s, off %.17g s", dflt, same, off);
  const char* none[] = {"--no-interference", "--ideal", "--arch ps", "--gpus 1"};
  for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
    cJSON* j = sim_json("%s %s", base, none[i]);
    if (!j)
      continue;
    const cJSON* d = cJSON_GetObjectItemCaseSensitive(j, "breakdown_detail");
    const cJSON* o = cJSON_GetObjectItemCaseSensitive(j, "options");
    CHECK(num(d, "interference_s") == 0 && num(o, "comm_interference") == 0, "%s: interference %g s, f %g", none[i],
          num(d, "interference_s"), num(o, "comm_interference"));
    cJSON_Delete(j);
  }
  /* CPU training processes share no GPU with NCCL. */
  cJSON* j = sim_json("tests/platforms/star2_cpu.xml tests/workloads/tiny.json --synthetic --comm-interference 1");
  double cpu = j ? num(cJSON_GetObjectItemCaseSensitive(j, "breakdown_detail"), "interference_s") : NAN;
  CHECK(cpu == 0, "compute_on cpu: interference %g s", cpu);
  cJSON_Delete(j);
}

/* The trace draws the time lost at the end of each slowed execution as the stall it is booked to:
 * its spans still add up to the breakdown and nest (over instances: tests/trace_nesting.py). */
void test_interference_trace(void)
{
  check_trace("tests/platforms/star4.xml tests/workloads/tiny.json --bucket-mib 0 --comm-interference 0.5 "
              "--iterations 3 --warmup 1 --workers 1 --format json",
              3);
}
