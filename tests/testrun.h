/* testrun: what the end-to-end test programs (test_e2e, test_cal) share: a failure counter with
 * CHECK, running a binary as a child process with its exit status, stdout and stderr, reading
 * files and JSON reports, the bad-input cases, and a main that runs one test by name. */
#ifndef SS_TESTRUN_H
#define SS_TESTRUN_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>

/* The failed checks of this run of the test program. */
extern int test_failures;

/* Count and print a failed check (file:line, the condition, a printf-style explanation). */
#define CHECK(cond, ...)                                                                                               \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                                         \
      fprintf(stderr, __VA_ARGS__);                                                                                    \
      fputc('\n', stderr);                                                                                             \
      test_failures++;                                                                                                 \
    }                                                                                                                  \
  } while (0)

/* A binary's run: exit status (128 + signal when killed), stdout and stderr (owned). */
typedef struct run_result {
  int status;
  char* out;
  char* err;
} run_result;

/* Run argv (NULL-terminated, argv[0] a path) and capture its exit status, stdout and stderr; aborts
 * if it cannot be started. Free the result with run_free. */
run_result run(char* const* argv);

/* Run a binary with printf-style arguments split at spaces and tabs (at most 63 words). */
run_result runf(const char* bin, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

void run_free(run_result* r);

/* A whole file as a string (owned), NULL and a failed check when it cannot be opened. */
char* read_text(const char* path);

/* A file parsed as JSON (free with cJSON_Delete), NULL and a failed check otherwise. */
cJSON* read_json(const char* path);

/* The number j.key, NAN and a failed check when it is missing or not a number. */
double num(const cJSON* j, const char* key);

/* The mean and variance of the largest of n independent log-normal draws of mean 1 and coefficient
 * of variation cv (the compute jitter's distribution, docs/model.md), by numerical integration
 * (Simpson's rule over the normal variable z in [-12, 12]) of x(z)^k n Phi(z)^(n-1) phi(z), with
 * x(z) = exp(mu + sigma z), sigma^2 = ln(1 + cv^2), mu = -sigma^2 / 2: independent of the code
 * under test. */
void lognormal_max(int n, double cv, double* mean, double* var);

/* One test of a program, run by name. */
typedef struct test_entry {
  const char* name;
  void (*fn)(void);
} test_entry;

/* A test program: its tests, its bad-input cases (lines "name | args | exit | exact first stderr
 * line" of bad_cases, run with bad_bin), and what to do around a test (NULL for nothing; setup
 * returns 0, or the exit status to stop with). */
typedef struct test_program {
  const char* name;
  const test_entry* tests;
  size_t ntests;
  const char* bad_cases;
  const char* bad_bin;
  int (*setup)(void);
  void (*cleanup)(void);
} test_program;

/* main of a test program: "PROGRAM TEST" runs one test, "PROGRAM bad CASE" one bad-input case
 * (exactly that one line on stderr, that exit status, nothing on stdout). Prints "passed" or
 * "FAILED"; returns 0, 1 on a failed check, 2 on a usage error or an unknown test. */
int test_main(int argc, char** argv, const test_program* p);

/* Whether a sweep leaves out its next case: with SS_TEST_THIN=N in the environment (set for the
 * sanitizer build's longest sweeps, tests/CMakeLists.txt), every case but one in N, counted over the
 * process's calls; never without it. Each case left out is one the Release build runs. */
int thinned(void);

#endif
