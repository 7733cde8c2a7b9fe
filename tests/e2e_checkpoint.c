/* e2e_checkpoint: activation checkpointing (--checkpoint-activations, the workload's
 * activation_checkpointing): the recomputed forward in the iteration, the activations kept. */
#include "e2e.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* tests/workloads/tiny_ckpt.json on one GPU of a star (10 TF, the reference's speed), synthetic data,
 * --ideal: forward 4 x 1 ms, backward 4 x 2 ms, optimizer 0.5 ms = 12.5 ms without checkpointing; with
 * it the backward of the three checkpointed layers re-runs their forward: 3 ms more, 15.5 ms, all
 * compute. The workload checkpoints by default (activation_checkpointing true), --ideal keeps it (a
 * choice of the workload, not a mechanism), and the option overrides it either way. */
void test_checkpoint_closed_form(void)
{
  static const struct {
    const char* option;
    double iteration_s;
    int on;
  } runs_[] = {{"", 0.0155, 1},
               {"--checkpoint-activations on", 0.0155, 1},
               {"--checkpoint-activations off", 0.0125, 0},
               {"--checkpoint-activations workload", 0.0155, 1}};
  for (size_t k = 0; k < sizeof(runs_) / sizeof(runs_[0]); k++) {
    cJSON* j = sim_json("tests/platforms/star2.xml tests/workloads/tiny_ckpt.json --gpus 1 --synthetic --ideal %s",
                        runs_[k].option);
    const cJSON* b = cJSON_GetObjectItemCaseSensitive(j, "breakdown");
    const cJSON* echo = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "options"),
                                                         "checkpoint_activations");
    const cJSON* key = cJSON_GetObjectItemCaseSensitive(j, "activation_checkpointing");
    double t = j ? num(j, "iteration_s") : NAN, want = runs_[k].iteration_s;
    CHECK(j && fabs(t - want) <= 1e-9 * want && fabs(num(b, "compute_s") - want) <= 1e-9 * want && cJSON_IsBool(key) &&
              cJSON_IsTrue(key) == runs_[k].on && cJSON_IsString(echo) &&
              strcmp(echo->valuestring, runs_[k].on ? "on" : "off") == 0,
          "tiny_ckpt --ideal %s: iteration %.12g s (expected %.12g), activation_checkpointing %s, options echo %s",
          runs_[k].option, t, want, key ? (cJSON_IsTrue(key) ? "true" : "false") : "missing",
          cJSON_IsString(echo) ? echo->valuestring : "missing");
    cJSON_Delete(j);
  }
  /* The table says so in one line, only when it is on. */
  run_result r = runs(SS_SIM_BIN, "tests/platforms/star2.xml tests/workloads/tiny_ckpt.json --gpus 1 --synthetic -n 1");
  const char* line = "  compute: activation checkpointing on: 3 of 4 layers (2 blocks) keep their block's input and "
                     "re-run their forward in backward\n";
  CHECK(r.status == 0 && strstr(r.out, line), "the table's line for checkpointing: exit %d, %s", r.status, r.out);
  run_free(&r);
  r = runs(SS_SIM_BIN, "tests/platforms/star2.xml tests/workloads/tiny_ckpt.json --gpus 1 --synthetic -n 1 "
                       "--checkpoint-activations off");
  CHECK(r.status == 0 && !strstr(r.out, "checkpointing"), "checkpointing off, yet the table says: %s", r.out);
  run_free(&r);
}

/* The activations one V100 holds (p3.2xlarge: the GPU's memory is known) at batch 8, by hand (bytes a
 * sample, tests/workloads/tiny_ckpt.json): 16000 + 16000 + 24000 + 16000 = 72000 without
 * checkpointing; with it the embedding's 16000, the blocks' inputs (4000 and 4000) and the largest
 * block's activations, which its backward recomputes and holds (16000 + 24000): 64000. */
void test_checkpoint_memory(void)
{
  const char* const options[] = {"", "--checkpoint-activations off"};
  const double want[] = {64000.0 * 8, 72000.0 * 8};
  for (int k = 0; k < 2; k++) {
    cJSON* j = sim_json("platforms/p3.2xl.xml tests/workloads/tiny_ckpt.json --synthetic -n 1 --warmup 0 %s",
                        options[k]);
    const cJSON* m = cJSON_GetObjectItemCaseSensitive(j, "gpu_memory_bytes");
    double act = cJSON_IsObject(m) ? num(m, "activations") : NAN;
    CHECK(act == want[k], "tiny_ckpt %s: activations %.17g B, expected %.17g", options[k], act, want[k]);
    cJSON_Delete(j);
  }
}
