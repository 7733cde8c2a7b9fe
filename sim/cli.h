/* cli: parse stash-sim's command line (getopt_long), setting SimGrid's --cfg=/--log= aside. */
#ifndef SS_CLI_H
#define SS_CLI_H

#include "job.h"

#include <stdio.h>

typedef struct ss_cli {
  ss_options opt;
  int bench;         /* "stash-sim bench allreduce PLATFORM": the collective benchmark */
  int whatif;        /* "stash-sim whatif PLATFORM WORKLOAD --change K=V ...": base against changed */
  int nchanges;
  char** changes;    /* borrowed strings of argv, array owned */
  ss_options changed; /* whatif: the options with every change applied */
  double min_bytes;  /* bench: smallest and largest size, doubling in between */
  double max_bytes;
  int bench_iters;   /* bench: allreduces per size */
  int stash;         /* --stash: Stash's differential breakdown (several runs) */
  const char* ps_option; /* the first parameter-server option given (for "goes with --arch ps") */
  int sync_given;
  int async_given;
  const char* stash_single; /* --stash-single: the instance file of the single-instance run */
  int help;
  int version;
  int ncfg;
  char** cfg; /* borrowed strings of argv, array owned */
} ss_cli;

/* Parse argv. Returns 0, or 2 for a usage error with one line of explanation in msg. Free with
 * ss_cli_free even after an error. */
int ss_cli_parse(int argc, char** argv, ss_cli* out, char* msg, size_t msg_size);
void ss_cli_free(ss_cli* c);

/* Print the --help text (of the bench subcommand when bench). */
void ss_cli_usage(FILE* f, int bench);

#endif
