/* cal_cli: the command line of stash-calibrate's subcommands: options read with getopt_long,
 * --help, usage errors (exit status 2), an input error printed as one line (exit status 1). */
#ifndef SS_CAL_CLI_H
#define SS_CAL_CLI_H

#include "err.h"

#include <getopt.h>

/* A subcommand's command line and what runs it. Its short options are -o FILE and -h; options is
 * its getopt_long table, where "help" gives 'h'. */
typedef struct cal_cli {
  const char* name; /* "astra": its usage errors start "stash-calibrate astra: error: " */
  const char* help; /* the text of --help */
  const struct option* options;
  /* Takes option ch of the table (not 'h') with its value (NULL for an option without one) into
   * args. Returns 0, or 2 after cal_usage_error. */
  int (*option)(int ch, const char* value, void* args);
  /* Runs the subcommand on its n operands (what is left of argv after the options). Returns its
   * exit status (0; 1 with its error printed; 2 after cal_usage_error), or a negative code with
   * err set, which is printed as one line on stderr (exit status 1). */
  int (*run)(void* args, int n, char** operands, ss_err* err);
} cal_cli;

/* A subcommand's main: reads the options of argv (argv[0] is the subcommand's name) into args,
 * which holds their defaults, then prints the help to stdout (-h, --help, once the other options
 * are read: exit status 0) or runs it. Returns the exit status. */
int cal_cli_main(const cal_cli* cli, int argc, char** argv, void* args);

/* Print "stash-calibrate: error: ..." (or "stash-calibrate CMD: error: ...") and " (see --help)"
 * on stderr, and return 2 (the exit status of a usage error). */
int cal_usage_error(const char* cmd, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
