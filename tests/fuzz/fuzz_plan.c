/* fuzz_plan: libFuzzer target of stash-sim plan's inputs as the command line gives them: the bytes,
 * split into words at each NUL or newline, are the options of `stash-sim plan WORKLOAD WORDS...`
 * through ss_cli_parse (sim/cli.c, the registry's checks of sim/option.c). A refusal is one line
 * (exit status 2, or 3 out of memory); an accepted plan keeps what the planner relies on without
 * checking again (sim/planner.c, space_init: "the lists were checked with the options"): its
 * --algorithms, --batches and --shards lists parse into the values it enumerates, and --platforms
 * has no empty item. Then main's preparation that reads no instance file: the inputs of the
 * same-file check (ss_cli_inputs) and each output looked up among them. Nothing is simulated and
 * nothing is written: the parse only keeps -o's path (main.c opens it after the plan). */
#include "cli.h"
#include "fuzz_input.h"
#include "inputs.h"
#include "option.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_WORKLOAD
#error "FUZZ_WORKLOAD: the workload of the command (tests/fuzz/CMakeLists.txt)"
#endif

/* Words after the prefix: more than any option needs, and the getopt tables stay small. */
#define MAX_WORDS 64

/* The command line: stash-sim plan WORKLOAD, then the words of the input (each ended by a NUL or a
 * newline, the last one also by the end of the input; none when the input is empty), each in a
 * block of its own (so that a read past a word's end is AddressSanitizer's). */
typedef struct words {
  char* v[3 + MAX_WORDS + 1];
  int n;
} words;

static void split(const uint8_t* data, size_t size, words* w)
{
  static char prog[] = "stash-sim", plan[] = "plan", workload[] = FUZZ_WORKLOAD;
  w->n = 0;
  w->v[w->n++] = prog;
  w->v[w->n++] = plan;
  w->v[w->n++] = workload;
  size_t start = 0;
  for (size_t i = 0; i <= size && w->n < 3 + MAX_WORDS; i++) {
    if (i < size ? data[i] != '\0' && data[i] != '\n' : i == start)
      continue;
    char* word = malloc(i - start + 1);
    ss_assert(word);
    memcpy(word, data + start, i - start);
    word[i - start] = '\0';
    w->v[w->n++] = word;
    start = i + 1;
  }
  w->v[w->n] = NULL;
}

/* getopt_long keeps its place inside a word of short options between calls (glibc: optind = 1
 * does not reset it, optind = 0 does), and ss_cli_parse sets optind = 1: after a refusal inside
 * "-Xh" the next parse would go on in the previous input's freed words. Each input is parsed as
 * by a fresh stash-sim, which parses once. */
static void reset_getopt(void)
{
  static char prog[] = "reset";
  char* argv[] = {prog, NULL};
  optind = 0;
  opterr = 0;
  static const struct option none[] = {{NULL, 0, NULL, 0}};
  ss_assert(getopt_long(1, argv, "", none, NULL) == -1);
}

/* A refusal: exit status 2 (usage) or 3 (memory), and one line naming the program. */
static void check_refusal(int rc, const char* msg)
{
  ss_assert(rc == SS_EXIT_USAGE || rc == SS_EXIT_RESOURCE);
  ss_assert(strncmp(msg, "stash-sim: error: ", 18) == 0 && !strchr(msg, '\n'));
}

/* What the planner's enumeration (space_init, configure) takes from the options as checked. */
static void check_space(const ss_options* o)
{
  ss_allreduce algs[SS_OPTION_LIST_MAX];
  int batches[SS_OPTION_LIST_MAX];
  ss_shard shards[SS_OPTION_LIST_MAX];
  shards[0] = o->shard;
  int nalgs = ss_option_list_algorithms(o->plan_algorithms ? o->plan_algorithms : "ring,tree,hierarchical", algs,
                                        SS_OPTION_LIST_MAX);
  int nbatches = o->plan_batches ? ss_option_list_batches(o->plan_batches, batches, SS_OPTION_LIST_MAX) : 1;
  int nshards = o->plan_shards ? ss_option_list_shards(o->plan_shards, shards, SS_OPTION_LIST_MAX) : 1;
  ss_assert(nalgs >= 1 && nalgs <= SS_OPTION_LIST_MAX);
  ss_assert(nbatches >= 1 && nbatches <= SS_OPTION_LIST_MAX);
  ss_assert(nshards >= 1 && nshards <= SS_OPTION_LIST_MAX);
  ss_assert(o->plan_max_instances >= 1);
  for (int i = 0; i < nalgs; i++)
    ss_assert(ss_allreduce_name(algs[i]) != NULL);
  for (int i = 0; o->plan_batches && i < nbatches; i++)
    ss_assert(batches[i] >= 1 && batches[i] <= SS_OPTION_MAX_BATCH);
  for (int i = 0; i < nshards; i++) {
    ss_assert(ss_shard_name(shards[i]) != NULL);
    /* Sharded states are exchanged by collectives: no parameter servers. */
    ss_assert(!ss_shard_sharded(shards[i]) || o->arch != SS_ARCH_PS);
  }
  /* --shard's mode with --algorithms: rings only (check_shard); the default list's tree, and tree
   * with --shards' sharded modes, the enumeration skips (configure). */
  for (int i = 0; o->plan_algorithms && !o->plan_shards && ss_shard_sharded(o->shard) && i < nalgs; i++)
    ss_assert(algs[i] != SS_ALLREDUCE_TREE);
  const char* p = o->plan_platforms;
  if (p)
    ss_assert(p[0] && p[0] != ',' && p[strlen(p) - 1] != ',' && !strstr(p, ",,"));
  /* The layouts' lists (issue 31): whole numbers from 1, schedules by name; with a layout list no
   * data-parallel list (check_plan). */
  const char* sizes[] = {o->plan_tps, o->plan_pps, o->plan_micro};
  for (int k = 0; k < 3; k++) {
    int v[SS_OPTION_LIST_MAX];
    int n = sizes[k] ? ss_option_list_sizes(sizes[k], v, SS_OPTION_LIST_MAX) : 1;
    ss_assert(n >= 1 && n <= SS_OPTION_LIST_MAX);
    for (int i = 0; sizes[k] && i < n; i++)
      ss_assert(v[i] >= 1 && v[i] <= SS_MAX_GPUS);
  }
  ss_schedule sched[SS_OPTION_LIST_MAX];
  int nsched = o->plan_schedules ? ss_option_list_schedules(o->plan_schedules, sched, SS_OPTION_LIST_MAX) : 1;
  ss_assert(nsched >= 1 && nsched <= SS_OPTION_LIST_MAX);
  for (int i = 0; o->plan_schedules && i < nsched; i++)
    ss_assert(sched[i] >= 0 && sched[i] < SS_SCHEDULE_COUNT);
  if (o->plan_tps || o->plan_pps)
    ss_assert(!o->plan_shards && !o->plan_batches);
}

/* main's same-file check without the instance files of --platforms (they need the catalogue): the
 * inputs as ss_cli_inputs lists them, and each output path of the command looked up among them. */
static void check_inputs(const ss_cli* cli)
{
  ss_inputs in = {0};
  ss_assert(ss_cli_inputs(cli, NULL, 0, &in) == SS_OK);
  for (int i = 0; i < in.n; i++)
    ss_assert(in.v[i].what && in.v[i].what[0] && in.v[i].path && in.v[i].path[0]);
  for (const ss_optdef* d = ss_option_table; d->name; d++) {
    if (d->file != SS_FILE_WRITES || !(d->commands & (unsigned)cli->cmd))
      continue;
    const char* path = *(const char* const*)(const void*)((const char*)&cli->opt + d->offset);
    if (path)
      ss_inputs_find(&in, path);
  }
  ss_inputs_free(&in);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  words w;
  split(data, size, &w);
  reset_getopt();
  ss_cli cli;
  char msg[1024] = "";
  int rc = ss_cli_parse(w.n, w.v, &cli, msg, sizeof(msg));
  if (rc) {
    check_refusal(rc, msg);
  } else {
    ss_assert(cli.cmd == SS_CMD_PLAN);
    if (!cli.help && !cli.version && !cli.list_options) {
      ss_assert(cli.opt.workload_path && strcmp(cli.opt.workload_path, FUZZ_WORKLOAD) == 0);
      ss_assert(!cli.opt.platform_path);
      check_space(&cli.opt);
      check_inputs(&cli);
    }
  }
  ss_cli_free(&cli);
  for (int i = 3; i < w.n; i++)
    free(w.v[i]);
  return 0;
}
