/* cli: parse stash-sim's command line (getopt_long), setting SimGrid's --cfg=/--log= aside. */
#ifndef SS_CLI_H
#define SS_CLI_H

#include "job.h"

#include <stdio.h>

typedef struct ss_cli {
  ss_options opt;
  int help;
  int version;
  int ncfg;
  char** cfg; /* borrowed strings of argv, array owned */
} ss_cli;

/* Parse argv. Returns 0, or 2 for a usage error with one line of explanation in msg. Free with
 * ss_cli_free even after an error. */
int ss_cli_parse(int argc, char** argv, ss_cli* out, char* msg, size_t msg_size);
void ss_cli_free(ss_cli* c);

/* Print the --help text. */
void ss_cli_usage(FILE* f);

#endif
