/* cli: parse stash-sim's command line through the option registry, setting SimGrid's --cfg=/--log= aside. */
#ifndef SS_CLI_H
#define SS_CLI_H

#include "inputs.h"
#include "option.h"
#include "planner.h"

#include <stdio.h>

typedef struct ss_cli {
  unsigned cmd; /* SS_CMD_RUN, SS_CMD_BENCH, SS_CMD_WHATIF or SS_CMD_LIST */
  ss_options opt;
  ss_optset given; /* the options on the command line */
  int nchanges;
  char** changes;          /* whatif: borrowed strings of argv, array owned */
  ss_options changed;      /* whatif: the options with every change applied */
  ss_optset changes_given; /* whatif: the options its changes set */
  const char* list_what;   /* list: "platforms", "workloads" or "categories" */
  int help;
  int version;
  int list_options; /* --list-options: print the registry */
  int ncfg;
  char** cfg; /* borrowed strings of argv, array owned */
} ss_cli;

/* Parse argv. Returns 0, or the exit status (2 for a usage error, 3 out of memory) with one line of
 * explanation in msg. Free with
 * ss_cli_free even after an error. */
int ss_cli_parse(int argc, char** argv, ss_cli* out, char* msg, size_t msg_size);
void ss_cli_free(ss_cli* c);

/* Every input of the command, whatever brings it, into in (the same-file check's list): each
 * registry row that reads a file (SS_FILE_READS) as the options give it, and whatif's changed value
 * of it; the price table a run reads beside the instance file whose price it pays; plan's instance
 * files (plats, nplats; NULL, 0 for the other commands) and the tables beside them. Short names must
 * be resolved already. Returns 0 or SS_ENOMEM. */
int ss_cli_inputs(const ss_cli* cli, const ss_planner_platform* plats, int nplats, ss_inputs* in);

#endif
