/* cal_text: what stash-calibrate's readers share: a text file as numbered lines, strict numbers,
 * whitespace fields, and the output file of a subcommand. */
#ifndef SS_CAL_TEXT_H
#define SS_CAL_TEXT_H

#include "err.h"

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

/* Whether paths a and b name the same existing file. */
int cal_same_file(const char* a, const char* b);

/* Open the output of a subcommand: stdout when path is NULL, else the file, refused when it is one
 * of the n inputs. Prints why on failure and returns NULL. */
FILE* cal_open_output(const char* path, const char* const* inputs, int n);

/* Close (or flush stdout) and return status, or 1 with a message when writing failed. */
int cal_close_output(FILE* f, const char* path, int status);

/* Print j as JSON text and a newline to the output path (stdout when NULL; cal_open_output's
 * inputs). Returns the exit status: 0, or 1 with why printed; or SS_EINPUT with err set when out
 * of memory. */
int cal_write_json(const cJSON* j, const char* path, const char* const* inputs, int n, ss_err* err);

#endif
