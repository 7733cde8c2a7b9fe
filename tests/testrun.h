/* testrun: what the end-to-end test programs (test_e2e.c, test_cal.c) share: a failure counter with
 * CHECK, and running a binary as a child process with its exit status, stdout and stderr. Each
 * test program includes it once. */
#ifndef SS_TESTRUN_H
#define SS_TESTRUN_H

#include "proc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64

typedef struct run_result {
  int status; /* exit code, or 128 + signal */
  char* out;
  char* err;
} run_result;

static int failures;

#define CHECK(cond, ...)                                                                                               \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                                         \
      fprintf(stderr, __VA_ARGS__);                                                                                    \
      fputc('\n', stderr);                                                                                             \
      failures++;                                                                                                      \
    }                                                                                                                  \
  } while (0)

static char* slurp(FILE* f)
{
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char* s = malloc((size_t)n + 1);
  if (!s)
    abort();
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = '\0';
  return s;
}

/* Run argv (NULL-terminated) and capture its exit status, stdout and stderr. */
static run_result run(char* const* argv)
{
  ss_proc_output o;
  ss_err err;
  ss_err_clear(&err);
  if (ss_proc_exec(argv, &o, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    abort();
  }
  run_result r = {o.how.code >= 0 ? o.how.code : 128 + o.how.signal, o.out, o.err};
  return r;
}

/* Run a binary with printf-style arguments split at spaces and tabs. */
static run_result runf(const char* bin, const char* fmt, ...) __attribute__((format(printf, 2, 3), unused));

static run_result runf(const char* bin, const char* fmt, ...)
{
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  char* argv[MAX_ARGS];
  int n = 0;
  argv[n++] = (char*)bin;
  for (char* t = strtok(buf, " \t"); t && n < MAX_ARGS - 1; t = strtok(NULL, " \t"))
    argv[n++] = t;
  argv[n] = NULL;
  return run(argv);
}

static void run_free(run_result* r)
{
  free(r->out);
  free(r->err);
}

/* Run the bad-input case name of the cases file (lines "name | args | exit | exact first stderr
 * line", '#' comments) with bin: exactly that one line on stderr, that exit status, nothing on
 * stdout. */
static void run_bad_case(const char* cases, const char* bin, const char* name)
{
  FILE* f = fopen(cases, "r");
  CHECK(f != NULL, "cannot open %s", cases);
  if (!f)
    return;
  char line[4096];
  int found = 0;
  while (fgets(line, sizeof(line), f)) {
    if (line[0] == '#')
      continue;
    char* field[4];
    int n = 0;
    for (char* t = strtok(line, "|\n"); t && n < 4; t = strtok(NULL, "|\n")) {
      while (*t == ' ')
        t++;
      char* e = t + strlen(t);
      while (e > t && e[-1] == ' ')
        *--e = '\0';
      field[n++] = t;
    }
    if (n != 4 || strcmp(field[0], name) != 0)
      continue;
    found = 1;
    run_result r = runf(bin, "%s", field[1]);
    char* nl = strchr(r.err, '\n');
    CHECK(nl && nl[1] == '\0', "%s: stderr must be exactly one line, got: %s", name, r.err);
    if (nl)
      *nl = '\0';
    CHECK(r.status == atoi(field[2]), "%s: exit %d, expected %s", name, r.status, field[2]);
    CHECK(strcmp(r.err, field[3]) == 0, "%s:\n  got      '%s'\n  expected '%s'", name, r.err, field[3]);
    CHECK(r.out[0] == '\0', "%s: printed on stdout: %s", name, r.out);
    run_free(&r);
  }
  fclose(f);
  CHECK(found, "no case '%s' in %s", name, cases);
}

#endif
