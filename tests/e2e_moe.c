/* e2e: mixtures of experts: the all-to-all of "stash-sim bench all-to-all" against its closed form,
 * and the same flows against the closed form the training runs time their token exchange with
 * (sim/a2a.h). */
#include "e2e.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* A mixture of experts' figures against their closed forms, on OLMoE-1B-7B (64 experts, 8 a token,
 * hidden 2048, 16 layers, every one MoE) at sequence 1024 on p5.48xlarge:
 * - the bytes each GPU dispatches per MoE layer and micro-batch: b s / (cp t) tokens x top_k x hidden x
 *   2 bytes;
 * - the all-to-all the training waits for: dispatch and combine, each the closed form bench prints for
 *   that size on the same group (sim/a2a.h);
 * - the parameters a GPU holds: the dense ones over t, the routed experts over ep x etp (etp: t by
 *   default, as Megatron-Core's), within 1e-4 (the config's query and key norms are the layers', not the
 *   architecture's);
 * - MFU on the active parameters: per token 6 x (the active matrices) + 6 V h + 6 L s q (causal flash
 *   attention counted half);
 * - the busiest GPU's load: given, (X + L - 1) / L for L experts a GPU; capacity-cut, min(X, C) for the
 *   busiest expert; drawn, 1 + c_ep sd / mean of a GPU's tokens (c_ep: the expected largest of ep
 *   standard normals, 1.42360 for 8), within the sampling error of its draws. */
void test_moe_closed_forms(void)
{
  const char* w = "tests/hf-moe/olmoe-1b-7b/config.json --seq 1024";
  const double h = 2048, k = 8, E = 64, L = 16, V = 50304, s = 1024;
  const struct {
    const char* opt;
    int t, ep;
  } runs_[] = {{"--ep 8", 1, 8}, {"--ep 4 --tp 2 --sequence-parallel", 2, 4}, {"--ep 2 --micro-batch 2", 1, 2}};
  for (size_t i = 0; i < sizeof(runs_) / sizeof(runs_[0]); i++) {
    cJSON* j = sim_json("platforms/p5.48xl.xml %s %s --moe-imbalance 1", w, runs_[i].opt);
    const cJSON* moe = cJSON_GetObjectItemCaseSensitive(j, "moe");
    const cJSON* par = cJSON_GetObjectItemCaseSensitive(j, "parallel");
    const cJSON* stage = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(par, "stages"), 0);
    double b = num(par, "micro_batch"), t = runs_[i].t, ep = runs_[i].ep;
    double bytes = b * s / t * k * h * 2;
    CHECK(num(moe, "a2a_bytes") == bytes, "%s: %.17g bytes dispatched, closed form %.17g", runs_[i].opt,
          num(moe, "a2a_bytes"), bytes);
    /* The same all-to-all as bench runs it, dispatch and combine. */
    char args[256];
    snprintf(args, sizeof(args),
             "bench all-to-all platforms/p5.48xl.xml --gpus %d --min-bytes %.0f --max-bytes %.0f --iters 1 "
             "--format json",
             runs_[i].ep, bytes, bytes);
    if (t == 1) {
      run_result r = runs(SS_SIM_BIN, args);
      cJSON* bj = r.status == 0 ? cJSON_Parse(r.out) : NULL;
      const cJSON* row = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(bj, "results"), 0);
      double closed = row ? num(row, "closed_form_time_s") : NAN;
      CHECK(fabs(num(moe, "a2a_fwd_s") - 2 * closed) <= 1e-9 * closed, "%s: all-to-all %.12g s, bench's 2 x %.12g",
            runs_[i].opt, num(moe, "a2a_fwd_s"), closed);
      cJSON_Delete(bj);
      run_free(&r);
    }
    double experts = L * E * 3 * h * 1024, total = num(moe, "params");
    double held = (total - experts) / t + experts / (ep * t);
    CHECK(fabs(num(stage, "params_per_gpu") - held) <= 1e-4 * held, "%s: %.17g parameters a GPU, closed form %.17g",
          runs_[i].opt, num(stage, "params_per_gpu"), held);
    double active = num(moe, "active_params"), q = 16 * 128;
    double per_token = 6 * (active - 2 * V * h - 2 * h * L) + 6 * V * h + 6 * L * s * q;
    double flops = num(j, "model_flops_per_s_per_gpu") * 8 / num(j, "tokens_per_s");
    CHECK(fabs(flops / per_token - 1) <= 1e-9, "%s: %.17g model FLOPs a token, closed form %.17g", runs_[i].opt, flops,
          per_token);
    cJSON_Delete(j);
  }
  const struct {
    const char* opt;
    double load;
  } loads[] = {{"--ep 8 --moe-imbalance 3", (3 + 7) / 8.0},
               {"--ep 8 --moe-imbalance 3 --moe-capacity 1.5", (1.5 + 7) / 8.0},
               {"--ep 8 --moe-capacity 1.25 --moe-pad", 1.25},
               {"--ep 64 --instances 8 --moe-imbalance 2", 2}};
  for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]); i++) {
    cJSON* j = sim_json("platforms/p5.48xl.xml %s %s", w, loads[i].opt);
    double got = num(cJSON_GetObjectItemCaseSensitive(j, "moe"), "load");
    CHECK(fabs(got - loads[i].load) <= 1e-12, "%s: load %.17g, closed form %.17g", loads[i].opt, got, loads[i].load);
    cJSON_Delete(j);
  }
  /* Drawn: a GPU's L = 8 experts each take about mean = 1024 x 8 x 8 / 64 = 1024 tokens, sd
   * sqrt(mean (1 - 1/64)); their sum's sd over its mean 8 x 1024 times c_8. */
  cJSON* j = sim_json("platforms/p5.48xl.xml %s --ep 8 --iterations 60", w);
  double got = num(cJSON_GetObjectItemCaseSensitive(j, "moe"), "load");
  double mean = 1024, excess = 1.42360 * sqrt(8 * mean * (1 - 1 / E)) / (8 * mean);
  CHECK(fabs(got - 1 - excess) <= 0.1 * excess, "drawn load %.6g, closed form 1 + %.6g", got, excess);
  cJSON_Delete(j);
}

/* --trace of a mixture of experts with expert parallelism: the report the same byte for byte; the
 * all-to-alls on a track of their own for each stage's GPU, one span a pass that has MoE layers
 * (forward and backward of every micro-batch: 2 m an iteration on one stage), adding up over the
 * iterations to the breakdown's all_to_all_s (within 1%: the first iteration's jitter and warm-up
 * are the trace's too). */
void test_moe_trace(void)
{
  char path[64], args[512];
  snprintf(path, sizeof(path), "build-test-moe-trace-%ld.json", (long)getpid());
  const char* base = "platforms/p5.48xl.xml tests/hf-moe/olmoe-1b-7b/config.json --seq 1024 --ep 8 --grad-accum 2 "
                     "--format json";
  snprintf(args, sizeof(args), "%s --trace %s", base, path);
  run_result with = runs(SS_SIM_BIN, args), without = runs(SS_SIM_BIN, base);
  CHECK(with.status == 0 && without.status == 0 && strcmp(with.out, without.out) == 0,
        "the report changes with --trace: %s", with.err);
  cJSON* rep = cJSON_Parse(without.out);
  cJSON* tr = read_json(path);
  CHECK(rep && tr, "report or trace does not parse");
  const cJSON* evs = cJSON_GetObjectItemCaseSensitive(tr, "traceEvents");
  const cJSON* e;
  int spans = 0, named = 0;
  double sum = 0;
  cJSON_ArrayForEach(e, evs)
  {
    const cJSON* name = cJSON_GetObjectItemCaseSensitive(e, "name");
    const cJSON* ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
    if (!cJSON_IsString(name) || !cJSON_IsString(ph))
      continue;
    if (strcmp(ph->valuestring, "X") == 0 && strcmp(name->valuestring, "all-to-all") == 0) {
      spans++;
      sum += num(e, "dur") / 1e6;
    }
    const cJSON* args_ = cJSON_GetObjectItemCaseSensitive(e, "args");
    const cJSON* tname = cJSON_GetObjectItemCaseSensitive(args_, "name");
    named += strcmp(ph->valuestring, "M") == 0 && cJSON_IsString(tname) && strstr(tname->valuestring, "all-to-alls");
  }
  const cJSON* par = cJSON_GetObjectItemCaseSensitive(rep, "parallel");
  int m = (int)num(par, "micro_batches"), iters = 4; /* 1 warm-up and 3 measured (ss_job_new's default) */
  double reported = num(cJSON_GetObjectItemCaseSensitive(rep, "breakdown_detail"), "all_to_all_s");
  CHECK(named == 1 && spans == 2 * m * iters, "%d all-to-all tracks, %d spans: 1 and 2 x %d micro-batches x %d", named,
        spans, m, iters);
  CHECK(reported > 0 && fabs(sum / iters - reported) <= 0.01 * reported, "traced %.9g s an iteration, reported %.9g s",
        sum / iters, reported);
  cJSON_Delete(rep);
  cJSON_Delete(tr);
  run_free(&with);
  run_free(&without);
  remove(path);
}

/* Each mechanism of a mixture of experts can be switched off or changed, and moves the run the way it
 * must, on Mixtral 8x7B over 4 p5.48xlarge (tensor 2, pipeline 2, expert 8: every expert group spans
 * two instances):
 * - a busier expert never makes the run faster, and the busiest GPU's load is what the closed form
 *   says (e2e.moe_closed_forms); --ideal routes in balance (load 1);
 * - --overlap-moe-comm never waits longer for the all-to-alls, and never makes the run slower;
 * - DeepEP takes the NIC at its line rate where NCCL over EFA takes 60% of it: never slower across
 *   instances. */
void test_moe_mechanisms(void)
{
  const char* base = "platforms/p5.48xl.xml tests/hf-moe/mixtral-8x7b/config.json --instances 4 --tp 2 "
                     "--sequence-parallel --ep 8 --pp 2 --global-batch 64 --micro-batch 1 --distributed-optimizer "
                     "--iterations 2 --ignore-memory";
  double balanced = sim_num("iteration_s", "%s --moe-imbalance 1", base);
  double busier = sim_num("iteration_s", "%s --moe-imbalance 4", base);
  double drawn = sim_num("iteration_s", "%s", base);
  CHECK(balanced <= drawn && drawn <= busier, "iterations: balanced %.9g, drawn %.9g, imbalance 4 %.9g", balanced,
        drawn, busier);
  cJSON* ideal = sim_json("%s --ideal", base);
  const cJSON* moe = cJSON_GetObjectItemCaseSensitive(ideal, "moe");
  CHECK(num(moe, "load") == 1, "--ideal: load %.17g, not 1", num(moe, "load"));
  cJSON_Delete(ideal);
  cJSON* plain = sim_json("%s", base);
  cJSON* over = sim_json("%s --overlap-moe-comm", base);
  cJSON* deep = sim_json("%s --moe-dispatcher deepep", base);
  double a = num(cJSON_GetObjectItemCaseSensitive(plain, "breakdown_detail"), "all_to_all_s");
  double o = num(cJSON_GetObjectItemCaseSensitive(over, "breakdown_detail"), "all_to_all_s");
  CHECK(a > 0 && o <= a && num(over, "iteration_s") <= num(plain, "iteration_s"),
        "--overlap-moe-comm: all-to-alls %.9g s (without %.9g), iteration %.9g s (without %.9g)", o, a,
        num(over, "iteration_s"), num(plain, "iteration_s"));
  double d = num(cJSON_GetObjectItemCaseSensitive(deep, "moe"), "a2a_fwd_s");
  double n = num(cJSON_GetObjectItemCaseSensitive(plain, "moe"), "a2a_fwd_s");
  CHECK(d > 0 && d < n && num(deep, "iteration_s") <= num(plain, "iteration_s"),
        "DeepEP: all-to-all %.9g s forward, NCCL's %.9g s", d, n);
  cJSON_Delete(plain);
  cJSON_Delete(over);
  cJSON_Delete(deep);
}
