/* stash-calibrate: turn measurements (profiler traces, nccl-tests logs, ASTRA-sim workloads,
 * measured iteration times) into stash-sim inputs and errors. One subcommand per module. */
#include "cal.h"
#include "cal_cli.h"
#include "cleanup.h"

#include <stdio.h>
#include <string.h>

const cal_command cal_commands[] = {
    {"trace", cal_trace_main, "a PyTorch profiler (Kineto) trace to a stash-sim workload"},
    {"nccl", cal_nccl_main,
     "fit latency and bandwidth to nccl-tests all_reduce_perf logs; rescale a platform's GPU links"},
    {"astra", cal_astra_main, "import an ASTRA-sim 1.0 text workload (data parallel) as a stash-sim workload"},
    {"compare", cal_compare_main,
     "measured iteration times against stash-sim's predictions: error per row, median, max"},
    {"hf", cal_hf_main, "a Hugging Face config.json (decoder-only language model) to a stash-sim workload"},
    {NULL, NULL, NULL},
};

static void usage(FILE* f)
{
  fputs("usage: stash-calibrate COMMAND [options] (stash-calibrate COMMAND --help for its own)\n"
        "       stash-calibrate [COMMAND] --version\n\ncommands:\n",
        f);
  for (const cal_command* c = cal_commands; c->name; c++)
    fprintf(f, "  %-9s %s\n", c->name, c->summary);
}

static int version(void)
{
  printf("stash-calibrate %s\n", SS_VERSION);
  return 0;
}

int main(int argc, char** argv)
{
  ss_cleanup_signals("stash-calibrate");
  if (argc < 2)
    return cal_usage_error(NULL, "expected a command");
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0)
    return version();
  for (const cal_command* c = cal_commands; c->name; c++)
    if (strcmp(argv[1], c->name) == 0) {
      /* Every command's --version, here rather than in each command's options. */
      if (argc == 3 && strcmp(argv[2], "--version") == 0)
        return version();
      return c->main(argc - 1, argv + 1);
    }
  return cal_usage_error(NULL, "unknown command '%s'", argv[1]);
}
