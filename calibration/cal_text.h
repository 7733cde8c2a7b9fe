/* cal_text: what stash-calibrate's readers share: a text file as numbered lines, strict numbers,
 * whitespace fields, and the output file of a subcommand. */
#ifndef SS_CAL_TEXT_H
#define SS_CAL_TEXT_H

#include "err.h"
#include "outfile.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/* A whole text file split into lines: line[i] is line i + 1 of the file, without its "\n" or
 * "\r\n". The lines point into buf, which the reader may modify in place. */
typedef struct cal_lines {
  char* buf;
  char** line;
  int n;
} cal_lines;

/* Read the text file at path (what names it in errors, e.g. "nccl-tests log"). Errors (exit 1):
 * the file cannot be opened or read, is a directory, or holds a NUL byte (not text). On success
 * *out owns the lines (free with cal_lines_free). */
int cal_lines_read(const char* path, const char* what, cal_lines* out, ss_err* err);

void cal_lines_free(cal_lines* l);

/* Split s in place at runs of spaces and tabs; stores at most max fields in tok and returns how
 * many fields there are (possibly more than max). */
int cal_fields(char* s, char** tok, int max);

/* Split s in place into words as a POSIX shell does, without expansions: blanks separate words;
 * '...' keeps its text as is; "..." keeps it but for \" and \\; a backslash outside quotes keeps
 * the next character. Stores the first max words in tok and returns how many there are, or -1
 * when a quote is not closed or a backslash ends the text. */
int cal_words(char* s, char** tok, int max);

/* Parse the whole of s as a finite number (strtod syntax); 0 on success, -1 otherwise. */
int cal_number(const char* s, double* out);

/* Parse the whole of s as a decimal integer (optionally signed); 0 on success, -1 otherwise. */
int cal_integer(const char* s, long long* out);

/* An input of a subcommand and what it is in messages ("the log", "--platform"). */
typedef struct cal_named {
  const char* what;
  const char* path;
} cal_named;

/* Refuse an output path (given as option opt, "-o") that is the same file as one of the n inputs
 * (entries with a NULL path are skipped; links and hard links count): prints the usage error
 * "stash-calibrate CMD: error: -o 'OUT' would overwrite the log 'IN'" and returns 2; else 0. */
int cal_check_output(const char* cmd, const char* opt, const char* path, const cal_named* inputs, int n);

/* Open the output of a subcommand (outfile.h: standard output when path is NULL or "-", else a
 * temporary file renamed into place by cal_close_output). Prints why and sets *status on failure,
 * returning NULL. */
ss_outfile* cal_open_output(const char* path, int* status);

/* Put f in place when status is 0 (returning 0, or the exit status of a failed write with why
 * printed), else remove what was written and return status. NULL f returns status. */
int cal_close_output(ss_outfile* f, int status);

/* Reads back a file just written: 0, or SS_EINPUT with err set. */
typedef int (*cal_check_fn)(const char* written, ss_err* err);

/* Print j as JSON text and a newline to the output path (stdout when NULL), checked by check (when
 * not NULL) before it replaces the old one: a file read back from its temporary file, standard
 * output through a scratch file before anything is printed. Returns the exit status: 0,
 * or nonzero with why printed; or a negative code with err set (check failed, out of memory). */
int cal_write_json(const cJSON* j, const char* path, cal_check_fn check, ss_err* err);

/* A cal_check_fn: the file loads as a stash-sim workload. */
int cal_check_workload(const char* written, ss_err* err);

/* cal_write_json of workload j checked by cal_check_workload; a refusal is an error on in, the
 * file it was made from: "it gives a workload that stash-sim would reject (not written): ...". */
int cal_write_workload(const cJSON* j, const char* path, const char* in, ss_err* err);

#endif
