/* testrun: what the end-to-end test programs (test_e2e.c, test_cal.c) share: a failure counter with
 * CHECK, and running a binary as a child process with its exit status, stdout and stderr. Each
 * test program includes it once. */
#ifndef SS_TESTRUN_H
#define SS_TESTRUN_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
  FILE* out = tmpfile();
  FILE* err = tmpfile();
  if (!out || !err)
    abort();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fileno(out), 1);
    dup2(fileno(err), 2);
    execv(argv[0], argv);
    _exit(127);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  run_result r = {WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), slurp(out), slurp(err)};
  fclose(out);
  fclose(err);
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

#endif
