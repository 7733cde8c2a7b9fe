/* testrun: child runs, files, JSON reports, bad-input cases and the main of the end-to-end tests. */
#include "testrun.h"

#include "proc.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64

int test_failures;

run_result run(char* const* argv)
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

run_result runf(const char* bin, const char* fmt, ...)
{
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  char* argv[MAX_ARGS];
  int n = 0;
  argv[n++] = (char*)bin;
  /* Words split at blanks; a word '' is an empty argument. */
  for (char* t = strtok(buf, " \t"); t && n < MAX_ARGS - 1; t = strtok(NULL, " \t"))
    argv[n++] = strcmp(t, "''") == 0 ? t + 2 : t;
  argv[n] = NULL;
  return run(argv);
}

void run_free(run_result* r)
{
  free(r->out);
  free(r->err);
}

char* read_text(const char* path)
{
  FILE* f = fopen(path, "rb");
  CHECK(f != NULL, "cannot open %s", path);
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char* s = malloc((size_t)n + 1);
  if (!s)
    abort();
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = '\0';
  fclose(f);
  return s;
}

cJSON* read_json(const char* path)
{
  char* s = read_text(path);
  cJSON* j = s ? cJSON_Parse(s) : NULL;
  CHECK(j != NULL, "%s is not JSON", path);
  free(s);
  return j;
}

double num(const cJSON* j, const char* key)
{
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(j, key);
  CHECK(cJSON_IsNumber(v), "key '%s' is missing or not a number", key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Split a case line in place into its 4 fields, blanks around them trimmed; returns how many. */
static int case_fields(char* line, char** field)
{
  int n = 0;
  for (char* t = strtok(line, "|\n"); t && n < 4; t = strtok(NULL, "|\n")) {
    while (*t == ' ')
      t++;
    char* e = t + strlen(t);
    while (e > t && e[-1] == ' ')
      *--e = '\0';
    field[n++] = t;
  }
  return n;
}

/* Under AddressSanitizer (-DSS_SANITIZE=ON) every process that switches SimGrid's actor stacks
 * prints "==PID==WARNING: ASan is ignoring requested __asan_handle_no_return: ..." and two lines of
 * explanation once (ASan does not know the actors' stacks): lines of the sanitizer, not of
 * stash-sim, dropped from err so that the cases that fail after simulating (an iteration below
 * 1 ns) hold in both builds. */
static void drop_asan_fiber_warning(char* err)
{
  static const char warning[] = "WARNING: ASan is ignoring requested __asan_handle_no_return";
  char* line = err;
  while (*line) {
    char* nl = strchr(line, '\n');
    char* w = strstr(line, warning);
    if (strncmp(line, "==", 2) == 0 && nl && w && w < nl) {
      /* The warning and its two lines of explanation. */
      for (int k = 0; k < 2 && nl; k++)
        if (strncmp(nl + 1, "False positive", 14) == 0 || strncmp(nl + 1, "For details see", 15) == 0)
          nl = strchr(nl + 1, '\n');
      if (!nl)
        nl = line + strlen(line) - 1;
      memmove(line, nl + 1, strlen(nl + 1) + 1);
    } else if (nl) {
      line = nl + 1;
    } else {
      break;
    }
  }
}

/* Run one bad-input case (its fields: name, arguments, exit status, the line on stderr) with bin
 * and check what it says. */
static void check_bad_case(const char* bin, char* const* field)
{
  const char* name = field[0];
  run_result r = runf(bin, "%s", field[1]);
  drop_asan_fiber_warning(r.err);
  char* nl = strchr(r.err, '\n');
  CHECK(nl && nl[1] == '\0', "%s: stderr must be exactly one line, got: %s", name, r.err);
  if (nl)
    *nl = '\0';
  CHECK(r.status == atoi(field[2]), "%s: exit %d, expected %s", name, r.status, field[2]);
  CHECK(strcmp(r.err, field[3]) == 0, "%s:\n  got      '%s'\n  expected '%s'", name, r.err, field[3]);
  CHECK(r.out[0] == '\0', "%s: printed on stdout: %s", name, r.out);
  run_free(&r);
}

/* Run the bad-input case name of the cases file with bin; or, name NULL, every case whose index
 * among the file's cases is shard modulo shards (the sanitizer build runs them so, a process for
 * many cases: tests/CMakeLists.txt). */
static void run_bad_cases(const char* cases, const char* bin, const char* name, int shard, int shards)
{
  FILE* f = fopen(cases, "r");
  CHECK(f != NULL, "cannot open %s", cases);
  if (!f)
    return;
  char line[4096];
  int found = 0, index = 0;
  while (fgets(line, sizeof(line), f)) {
    char* field[4];
    if (line[0] == '#' || case_fields(line, field) != 4)
      continue;
    if (name ? strcmp(field[0], name) != 0 : index++ % shards != shard)
      continue;
    found = 1;
    check_bad_case(bin, field);
  }
  fclose(f);
  CHECK(found, "no case '%s' in %s", name ? name : "of the shard", cases);
}

int test_main(int argc, char** argv, const test_program* p)
{
  int shard = 0, shards = 0;
  if (argc == 4 && strcmp(argv[1], "bad") == 0 && strcmp(argv[2], "--shard") == 0 &&
      sscanf(argv[3], "%d/%d", &shard, &shards) == 2 && shards > 0 && shard >= 0 && shard < shards) {
    run_bad_cases(p->bad_cases, p->bad_bin, NULL, shard, shards);
  } else if (argc == 3 && strcmp(argv[1], "bad") == 0) {
    run_bad_cases(p->bad_cases, p->bad_bin, argv[2], 0, 1);
  } else if (argc == 2) {
    const test_entry* t = NULL;
    for (size_t i = 0; i < p->ntests; i++)
      if (strcmp(p->tests[i].name, argv[1]) == 0)
        t = &p->tests[i];
    if (!t) {
      fprintf(stderr, "%s: unknown test '%s'\n", p->name, argv[1]);
      return 2;
    }
    int status = p->setup ? p->setup() : 0;
    if (status)
      return status;
    t->fn();
    if (p->cleanup)
      p->cleanup();
  } else {
    fprintf(stderr, "usage: %s TEST | %s bad CASE | %s bad --shard K/N\n", p->name, p->name, p->name);
    return 2;
  }
  printf("%s\n", test_failures ? "FAILED" : "passed");
  return test_failures ? 1 : 0;
}

void lognormal_max(int n, double cv, double* mean, double* var)
{
  double s2 = log(1 + cv * cv), sigma = sqrt(s2), mu = -s2 / 2;
  const int steps = 24000; /* even */
  const double lo = -12, h = 24.0 / steps;
  double m1 = 0, m2 = 0;
  for (int i = 0; i <= steps; i++) {
    double z = lo + i * h;
    double w = i == 0 || i == steps ? 1 : i % 2 ? 4 : 2;
    double cdf = 0.5 * erfc(-z / sqrt(2.0));
    double density = n * pow(cdf, n - 1) * exp(-z * z / 2) / sqrt(2 * acos(-1.0));
    double x = exp(mu + sigma * z);
    m1 += w * x * density;
    m2 += w * x * x * density;
  }
  m1 *= h / 3;
  m2 *= h / 3;
  *mean = m1;
  *var = m2 - m1 * m1;
}

int thinned(void)
{
  static long calls = 0, every = -1;
  if (every < 0) {
    const char* v = getenv("SS_TEST_THIN");
    every = v ? strtol(v, NULL, 10) : 0;
  }
  return every > 1 && calls++ % every != 0;
}
