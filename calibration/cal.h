/* cal: stash-calibrate's subcommands, which turn measurements into stash-sim inputs (they use
 * the simulator's library for errors, units and JSON output, never SimGrid). */
#ifndef SS_CAL_H
#define SS_CAL_H

/* A subcommand: argv[0] is its name. Returns the exit status: 0, 1 on bad input (one error line
 * on stderr naming the file), 2 on a usage error. */
typedef int (*cal_main_fn)(int argc, char** argv);

typedef struct cal_command {
  const char* name;
  cal_main_fn main;
  const char* summary; /* one line for the overall help */
} cal_command;

/* The table of subcommands (calibrate.c). */
extern const cal_command cal_commands[];

/* The subcommands, one file each (calibration/cal_NAME.c). */
int cal_trace_main(int argc, char** argv);
int cal_nccl_main(int argc, char** argv);
int cal_astra_main(int argc, char** argv);
int cal_compare_main(int argc, char** argv);
int cal_hf_main(int argc, char** argv);

#endif
