/* inputs: every file a command reads, with what it is, for the same-file check (an output that is
 * one of them, links and hard links included, is refused before anything is written). */
#ifndef SS_INPUTS_H
#define SS_INPUTS_H

typedef struct ss_input {
  char* what; /* as an error names it: "the platform", "--price-file", "prices.csv beside the platform" */
  char* path;
} ss_input;

typedef struct ss_inputs {
  ss_input* v;
  int n, cap;
} ss_inputs;

/* Add path (not NULL, not "-") as what; both are copied. Returns 0 or SS_ENOMEM. */
int ss_inputs_add(ss_inputs* in, const char* what, const char* path);

/* The first input that path is (the same file: device and inode, links resolved), or NULL. */
const ss_input* ss_inputs_find(const ss_inputs* in, const char* path);

void ss_inputs_free(ss_inputs* in);

#endif
