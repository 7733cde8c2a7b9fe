/* cal_compare: stash-calibrate compare: measured iteration times against stash-sim's predictions,
 * one simulation per row (the stash-sim binary, run as a child process). */
#include "cal.h"
#include "cal_cli.h"
#include "cal_text.h"
#include "catalog.h"
#include "cli.h"
#include "csv.h"
#include "option.h"
#include "proc.h"
#include "units.h"
#include "estimate.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_COLUMNS 16
/* The largest MEASURED.csv read: one row per measured configuration is a few hundred bytes, so
 * 16 MiB is tens of thousands of rows, each a simulation; a bigger file is a mistake. */
#define MAX_CSV_BYTES (16 << 20)
/* The default --timeout of one row's simulation, in seconds, and the largest one accepted. */
#define DEFAULT_TIMEOUT_S 600.0
#define MAX_TIMEOUT_S 1e6

typedef struct row {
  int line;
  char* args;  /* point into the file's lines */
  char* words; /* args split into words (owned) */
  char** argv; /* the simulator's argv (owned): [0] for the binary, the words, 4 free slots */
  int nwords;
  const char* source;
  double measured_s;
  double simulated_s; /* NAN when the run failed */
  char* error;        /* why the run failed (owned), NULL on success */
} row;

typedef struct compare_args {
  const char* output;
  const char* bin;
  double timeout_s;   /* per row; 0: none */
  double max_minutes; /* the rows' estimated work refused beyond it */
} compare_args;

static const char* const columns[] = {"args", "measured_iteration_s", "source", "note", NULL};

/* Split one CSV line in place (RFC 4180 quoting, no line breaks inside fields). Returns the number
 * of fields, or -1 for a quote that is not closed or text after a closing quote. */
static int csv_fields(char* s, char** f, int max)
{
  int n = 0;
  for (;;) {
    char* start = s;
    char* w = s;
    if (*s == '"') {
      for (s++;; s++) {
        if (*s == '\0')
          return -1;
        if (*s == '"' && s[1] == '"')
          *w++ = *s++;
        else if (*s == '"')
          break;
        else
          *w++ = *s;
      }
      s++;
      if (*s != ',' && *s != '\0')
        return -1;
    } else {
      while (*s && *s != ',')
        w = ++s;
    }
    char end = *s;
    *w = '\0';
    if (n < max)
      f[n] = start;
    n++;
    if (end == '\0')
      return n;
    s++;
  }
}

/* Header: which field holds which column (-1 when absent). */
static int header(const char* path, int line, char* text, int* col, int* ncols, ss_err* err)
{
  char* f[MAX_COLUMNS];
  int n = csv_fields(text, f, MAX_COLUMNS);
  if (n < 0 || n > MAX_COLUMNS)
    return ss_err_set(err, path, line, n < 0 ? "a quote is not closed" : "more than %d columns", MAX_COLUMNS);
  for (int c = 0; columns[c]; c++)
    col[c] = -1;
  for (int i = 0; i < n; i++) {
    int c = 0;
    while (columns[c] && strcmp(columns[c], f[i]) != 0)
      c++;
    if (!columns[c])
      return ss_err_set(err, path, line,
                        "unknown column '%s' (columns: args, measured_iteration_s, and optionally "
                        "source, note)",
                        f[i]);
    if (col[c] >= 0)
      return ss_err_set(err, path, line, "column '%s' appears twice", f[i]);
    col[c] = i;
  }
  for (int c = 0; c < 2; c++)
    if (col[c] < 0)
      return ss_err_set(err, path, line, "no column '%s' in the header", columns[c]);
  *ncols = n;
  return SS_OK;
}

/* Whether the word w of a row's arguments is an option that writes a file (the registry's
 * SS_FILE_WRITES rows: -o, --output, --trace...): a long option as getopt_long reads it (--name,
 * --name=VALUE, or a prefix of the name: --out), or a cluster of short options before the first
 * one that takes a value (-So). Its spelling goes to opt. A value that looks like such an option
 * is refused too: it would be one to any option that takes no value. */
static int writes_file(const char* w, char* opt, size_t size)
{
  if (w[0] != '-' || !w[1])
    return 0;
  if (w[1] == '-') {
    size_t n = strcspn(w + 2, "=");
    for (const ss_optdef* d = ss_option_table; n && d->name; d++) {
      int hit = !d->positional && d->file == SS_FILE_WRITES &&
                ((strlen(d->name) >= n && strncmp(d->name, w + 2, n) == 0) ||
                 (d->alias && strlen(d->alias) >= n && strncmp(d->alias, w + 2, n) == 0));
      if (hit) {
        snprintf(opt, size, "--%.*s", (int)(n < 40 ? n : 40), w + 2);
        return 1;
      }
    }
    return 0;
  }
  for (const char* c = w + 1; *c; c++) {
    const ss_optdef* d = ss_option_by_short((unsigned char)*c);
    if (!d)
      return 0;
    if (d->file == SS_FILE_WRITES) {
      snprintf(opt, size, "-%c", *c);
      return 1;
    }
    if (d->kind != SS_KIND_SWITCH)
      return 0; /* the rest of the word is its value */
  }
  return 0;
}

static int data_row(const char* path, int line, char* text, const int* col, int ncols, row* r, ss_err* err)
{
  char* f[MAX_COLUMNS];
  int n = csv_fields(text, f, MAX_COLUMNS);
  if (n < 0)
    return ss_err_set(err, path, line, "a quote is not closed, or text follows a closing quote");
  if (n != ncols)
    return ss_err_set(err, path, line, "%d field%s, the header has %d", n, n == 1 ? "" : "s", ncols);
  r->line = line;
  r->args = f[col[0]];
  r->source = col[2] >= 0 ? f[col[2]] : "";
  r->simulated_s = NAN;
  const char* m = f[col[1]];
  if (cal_number(m, &r->measured_s) || !(r->measured_s > 0))
    return ss_err_set(err, path, line, "measured_iteration_s '%s' is not a positive number of seconds", m);
  /* The words, as many as there are (at most one per two characters, and one more). */
  size_t len = strlen(r->args);
  r->words = strdup(r->args);
  r->argv = malloc(sizeof(char*) * (len / 2 + 6));
  if (!r->words || !r->argv)
    return ss_err_nomem(err);
  int na = cal_words(r->words, r->argv + 1, (int)(len / 2 + 1));
  if (na < 0)
    return ss_err_set(err, path, line,
                      "args: a quote is not closed or a backslash ends them (they are split "
                      "as a shell does)");
  if (na == 0)
    return ss_err_set(err, path, line, "empty args: expected stash-sim's arguments (PLATFORM.xml WORKLOAD.json ...)");
  r->nwords = na;
  char** a = r->argv + 1;
  for (const ss_command* c = ss_commands; c->name; c++)
    if (c->bit != SS_CMD_RUN && strcmp(a[0], c->name) == 0)
      return ss_err_set(err, path, line, "'stash-sim %s' does not report an iteration time: give a training run", a[0]);
  for (int i = 0; i < na && strcmp(a[i], "--") != 0; i++) {
    char opt[64];
    if (strncmp(a[i], "--format", 8) == 0)
      return ss_err_set(err, path, line, "args set %s: compare reads stash-sim's JSON report from its output", a[i]);
    if (writes_file(a[i], opt, sizeof(opt)))
      return ss_err_set(err, path, line,
                        "args set %s, which writes a file: a row may only use options that write "
                        "nothing (compare reads the report from standard output)",
                        opt);
    if (strncmp(a[i], "--cfg", 5) == 0 || strncmp(a[i], "--log", 5) == 0)
      return ss_err_set(err, path, line,
                        "args set %.5s: SimGrid's options can write files (tracing, log "
                        "appenders), which a row may not",
                        a[i]);
  }
  return SS_OK;
}

static int read_csv(const char* path, cal_lines* lines, row** rows, int* nrows, ss_err* err)
{
  struct stat st;
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > MAX_CSV_BYTES)
    return ss_err_set(err, path, 0,
                      "%lld bytes: larger than compare reads (%d MiB; a row per measured "
                      "configuration)",
                      (long long)st.st_size, MAX_CSV_BYTES >> 20);
  if (cal_lines_read(path, "measurements", lines, err))
    return SS_EINPUT;
  int col[MAX_COLUMNS], ncols = 0, have_header = 0;
  *rows = calloc((size_t)lines->n + 1, sizeof(row));
  if (!*rows)
    return ss_err_nomem(err);
  for (int i = 0; i < lines->n; i++) {
    char* t = lines->line[i];
    /* A spreadsheet's UTF-8 byte order mark before the first line is not part of it. */
    if (i == 0 && strncmp(t, "\xEF\xBB\xBF", 3) == 0)
      t += 3;
    if (!t[strspn(t, " \t")] || t[0] == '#') /* blank lines, and comments saying where rows come from */
      continue;
    if (!have_header && header(path, i + 1, t, col, &ncols, err))
      return SS_EINPUT;
    if (!have_header++)
      continue;
    if (data_row(path, i + 1, t, col, ncols, &(*rows)[*nrows], err))
      return SS_EINPUT;
    (*nrows)++;
  }
  if (*nrows == 0)
    return ss_err_set(err, path, 0,
                      "no rows: expected a header (args,measured_iteration_s[,source][,note]) and one "
                      "row per configuration");
  return SS_OK;
}

static char* first_line(const char* s)
{
  size_t n = strcspn(s, "\n");
  char* l = malloc(n + 1);
  if (l) {
    memcpy(l, s, n);
    l[n] = '\0';
  }
  return l;
}

static char* failure(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/* A row's error message (owned), NULL when out of memory. */
static char* failure(const char* fmt, ...)
{
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return strdup(buf);
}

/* The row's simulated time from its run's report, or why there is none. */
static void read_report(const char* bin, double timeout_s, const ss_proc_output* o, row* r)
{
  cJSON* j = o->how.code == 0 && !o->timed_out ? cJSON_Parse(o->out) : NULL;
  const cJSON* it = cJSON_GetObjectItemCaseSensitive(j, "iteration_s");
  if (o->timed_out)
    r->error = failure("the simulation ran longer than --timeout %g s and was stopped", timeout_s);
  else if (cJSON_IsNumber(it) && it->valuedouble > 0)
    r->simulated_s = it->valuedouble;
  else if (o->how.code == 0)
    r->error = failure("no iteration_s in the simulator's report");
  else if (o->exec_errno)
    r->error = failure("%s: error: cannot run the simulator: %s", bin, strerror(o->exec_errno));
  else if (*o->err)
    r->error = first_line(o->err);
  else if (o->how.code >= 0)
    r->error = failure("stash-sim exited with status %d", o->how.code);
  else
    r->error = failure("stash-sim was killed by signal %d", o->how.signal);
  cJSON_Delete(j);
}

/* The simulator's argv for row r: bin, the row's words, [--estimate,] --format json (the row's 4 free
 * slots). */
static char** row_argv(const char* bin, row* r, int estimate)
{
  char** argv = r->argv;
  argv[0] = (char*)bin;
  int n = 1 + r->nwords;
  if (estimate)
    argv[n++] = (char*)"--estimate";
  argv[n++] = (char*)"--format";
  argv[n++] = (char*)"json";
  argv[n] = NULL;
  return argv;
}

/* The row's estimated CPU seconds to simulate: bin's --estimate of its args (sim/estimate.h). A row
 * whose estimate fails costs the least a run costs: its run fails at once and is reported. */
static double row_estimate(const char* bin, double timeout_s, row* r)
{
  char** argv = row_argv(bin, r, 1);
  ss_proc_output o;
  ss_err err;
  ss_err_clear(&err);
  double s = ss_estimate_floor_s();
  if (!ss_proc_exec_timeout(argv, timeout_s, &o, &err)) {
    cJSON* j = o.how.code == 0 && !o.timed_out ? cJSON_Parse(o.out) : NULL;
    const cJSON* e = cJSON_GetObjectItemCaseSensitive(j, "estimated_cpu_s");
    if (cJSON_IsNumber(e) && e->valuedouble > s)
      s = e->valuedouble;
    cJSON_Delete(j);
  }
  ss_proc_output_free(&o);
  return s;
}

/* Run bin with the row's args and --format json; sets simulated_s, or error. */
static void run_row(const char* bin, double timeout_s, row* r)
{
  char** argv = row_argv(bin, r, 0);
  ss_proc_output o;
  ss_err err;
  ss_err_clear(&err);
  if (ss_proc_exec_timeout(argv, timeout_s, &o, &err))
    r->error = failure("%s", err.msg);
  else
    read_report(bin, timeout_s, &o, r);
  ss_proc_output_free(&o);
  if (!isfinite(r->simulated_s) && !r->error)
    r->error = strdup("out of memory");
}

static double error_pct(const row* r)
{
  return 100 * (r->simulated_s - r->measured_s) / r->measured_s;
}

static int cmp_double(const void* a, const void* b)
{
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* Median and max of |error| over the rows that ran; *imax is the row of the max, -1 if none ran. */
static int summary(const row* rows, int n, double* median, double* max, int* imax)
{
  double* e = malloc(sizeof(double) * (size_t)n);
  int k = 0;
  *imax = -1;
  *median = *max = NAN;
  for (int i = 0; e && i < n; i++)
    if (!rows[i].error) {
      e[k++] = fabs(error_pct(&rows[i]));
      if (*imax < 0 || fabs(error_pct(&rows[i])) > *max)
        *max = fabs(error_pct(&rows[i])), *imax = i;
    }
  if (e && k > 0) {
    qsort(e, (size_t)k, sizeof(double), cmp_double);
    *median = k % 2 ? e[k / 2] : (e[k / 2 - 1] + e[k / 2]) / 2;
  }
  free(e);
  return k;
}

static void write_table(FILE* f, const char* path, const char* bin, const row* rows, int n)
{
  fprintf(f, "# stash-calibrate compare: %s, simulator %s\n", path, bin);
  fprintf(f, "#%5s %13s %13s %9s  %s\n", "line", "measured(s)", "simulated(s)", "error(%)", "args");
  for (int i = 0; i < n; i++) {
    const row* r = &rows[i];
    if (r->error)
      fprintf(f, " %5d %13.6f %13s %9s  %s\n       FAILED: %s\n", r->line, r->measured_s, "FAILED", "", r->args,
              r->error);
    else
      fprintf(f, " %5d %13.6f %13.6f %+9.2f  %s\n", r->line, r->measured_s, r->simulated_s, error_pct(r), r->args);
  }
  double median, max;
  int imax, ok = summary(rows, n, &median, &max, &imax);
  fprintf(f, "# rows %d, failed %d", n, n - ok);
  if (ok)
    fprintf(f, "; |error| median %.2f%%, max %.2f%% (line %d)\n", median, max, rows[imax].line);
  else
    fprintf(f, "; no row ran\n");
}

static void write_csv(FILE* f, const row* rows, int n)
{
  fputs("line,args,source,measured_iteration_s,simulated_iteration_s,error_pct,status,message\n", f);
  for (int i = 0; i < n; i++) {
    const row* r = &rows[i];
    fprintf(f, "%d,", r->line);
    ss_csv_quoted(f, r->args);
    fputc(',', f);
    ss_csv_quoted(f, r->source);
    if (r->error) {
      fprintf(f, ",%.9g,,,failed,", r->measured_s);
      ss_csv_quoted(f, r->error);
    } else {
      fprintf(f, ",%.9g,%.9g,%.6f,ok,", r->measured_s, r->simulated_s, error_pct(r));
    }
    fputc('\n', f);
  }
}

static const char compare_help[] =
    "usage: stash-calibrate compare MEASURED.csv [--bin STASH-SIM] [--timeout S] [--max-minutes M] [-o OUT.csv]\n"
    "\n"
    "For each row of MEASURED.csv run the simulator with its arguments and --format json, and print the\n"
    "measured and simulated iteration times and the error (simulated - measured) / measured, then the\n"
    "median and the max of the absolute errors. Exit status 1 if a row's run failed (it is reported).\n"
    "\n"
    "MEASURED.csv: a header, then one row per configuration; columns args (stash-sim's arguments, split at\n"
    "blanks with a shell's quoting, '...', \"...\" and \\, but no expansion; paths relative to the current\n"
    "directory), measured_iteration_s, and optionally source and note. Lines starting with '#' are comments.\n"
    "A row may not use an option that writes a file (-o, --output, --trace), --format, --cfg or --log; the\n"
    "file may hold at most 16 MiB.\n"
    "\n"
    "options:\n"
    "      --bin FILE     the stash-sim binary (default: the one next to stash-calibrate)\n"
    "      --timeout S    stop a row's simulation after S seconds: the row fails (default 600; 0: none)\n"
    "      --max-minutes M  refuse rows estimated (each row's stash-sim --estimate) to take more than M\n"
    "                     minutes of CPU in all, before the first runs (default 10)\n"
    "  -o, --output FILE  also write the rows as CSV there\n"
    "  -h, --help         this help\n";

static const struct option options[] = {
    {"output", required_argument, NULL, 'o'},  {"bin", required_argument, NULL, 'b'},
    {"timeout", required_argument, NULL, 't'}, {"max-minutes", required_argument, NULL, 'm'},
    {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
};

/* A cal_cli option function. */
static int compare_option(int ch, const char* value, void* args)
{
  compare_args* a = args;
  if (ch == 'o')
    a->output = value;
  else if (ch == 't') {
    if (cal_number(value, &a->timeout_s) || !(a->timeout_s >= 0 && a->timeout_s <= MAX_TIMEOUT_S))
      return cal_usage_error("compare", "--timeout expects seconds from 0 (no limit) to 1e6, got '%s'", value);
  } else if (ch == 'm') {
    if (cal_number(value, &a->max_minutes) || !(a->max_minutes > 0 && a->max_minutes <= SS_MAX_MINUTES_LIMIT))
      return cal_usage_error("compare", "--max-minutes expects minutes above 0 up to 1e9, got '%s'", value);
  } else
    a->bin = value;
  return 0;
}

/* The stash-sim next to this program (/proc/self/exe), or "stash-sim" from PATH. */
static void default_bin(char* buf, size_t size)
{
  ssize_t n = readlink("/proc/self/exe", buf, size - 16);
  while (n > 0 && buf[n - 1] != '/')
    n--;
  if (n > 0)
    strcpy(buf + n, "stash-sim");
  else
    snprintf(buf, size, "stash-sim");
}

/* A cal_cli run function: one simulation per row, the table, the CSV. */
/* Whether output is one of the files row r's run reads (its instance file and the price table beside
 * it, its workload, --price-file...: ss_cli_inputs, short names resolved as stash-sim resolves them);
 * if so, says which in what. A row whose args do not parse reads nothing here: its run fails. */
static int row_reads(const row* r, const char* output, ss_catalog* cat, char* what, size_t size)
{
  ss_cli cli;
  char msg[512];
  r->argv[0] = (char*)"stash-sim";
  int hit = 0;
  if (ss_cli_parse(r->nwords + 1, r->argv, &cli, msg, sizeof(msg)) == 0 && cli.cmd == SS_CMD_RUN) {
    ss_err err;
    ss_err_clear(&err);
    ss_inputs in = {0};
    if (!ss_catalog_resolve(cat, SS_CATALOG_PLATFORM, &cli.opt.platform_path, &err) &&
        !ss_catalog_resolve(cat, SS_CATALOG_WORKLOAD, &cli.opt.workload_path, &err) &&
        !ss_catalog_resolve(cat, SS_CATALOG_PLATFORM, &cli.opt.stash_single, &err) &&
        !ss_cli_inputs(&cli, NULL, 0, &in)) {
      const ss_input* e = ss_inputs_find(&in, output);
      if (e) {
        snprintf(what, size, "%s '%s' of the row of line %d", e->what, e->path, r->line);
        hit = 1;
      }
    }
    ss_inputs_free(&in);
  }
  ss_cli_free(&cli);
  r->argv[0] = NULL;
  return hit;
}

/* Why row r is not a training run whose report compare can read (a subcommand, --help,
 * --version, --list-options or --estimate, whatever their spelling), or NULL. A row whose args do
 * not parse is left to its run, which reports why. */
static const char* not_a_run(const row* r)
{
  ss_cli cli;
  char msg[512];
  r->argv[0] = (char*)"stash-sim";
  const char* why = NULL;
  if (ss_cli_parse(r->nwords + 1, r->argv, &cli, msg, sizeof(msg)) == 0)
    why = cli.cmd != SS_CMD_RUN ? "its command is not a training run"
          : cli.help            ? "it asks for --help"
          : cli.version         ? "it asks for --version"
          : cli.list_options    ? "it asks for --list-options"
          : cli.opt.estimate    ? "it asks for --estimate"
                                : NULL;
  ss_cli_free(&cli);
  r->argv[0] = NULL;
  return why;
}

/* The rows' work, estimated before the first runs: refused beyond max_minutes with the estimate.
 * Each row costs at least a run's start-up, which bounds a file of very many rows at once. */
static int check_work(const char* path, const char* bin, const compare_args* a, row* rows, int n, ss_err* err)
{
  double limit = a->max_minutes * 60, total = n * ss_estimate_floor_s();
  for (int i = 0; i < n && total <= limit; i++)
    total += row_estimate(bin, a->timeout_s > 0 ? fmin(a->timeout_s, 60) : 60, &rows[i]) - ss_estimate_floor_s();
  if (total <= limit)
    return SS_OK;
  char est[32];
  ss_estimate_duration(est, sizeof(est), total);
  return ss_err_set(err, path, 0,
                    "the %d rows would take %s %s of CPU to simulate (the simulator's --estimate of each, for %s), "
                    "more than --max-minutes %g: give fewer rows, or a larger --max-minutes",
                    n, n * ss_estimate_floor_s() > limit ? "at least" : "about", est, SS_ESTIMATE_MACHINE,
                    a->max_minutes);
}

static int compare_run(void* args, int nfiles, char** files, ss_err* err)
{
  const compare_args* a = args;
  if (nfiles != 1)
    return cal_usage_error("compare", "expected one MEASURED.csv, got %s", nfiles == 0 ? "none" : "more");
  const char* path = files[0];
  char bin[4096];
  if (a->bin)
    snprintf(bin, sizeof(bin), "%s", a->bin);
  else
    default_bin(bin, sizeof(bin));
  cal_lines lines = {0};
  row* rows = NULL;
  int n = 0;
  ss_outfile* out = NULL;
  int status = SS_EINPUT;
  /* A bare name is looked up in PATH, not a file here. */
  const cal_named inputs[2] = {{"the measurements", path},
                               {a->bin ? "--bin" : "the simulator", strchr(bin, '/') ? bin : NULL}};
  if (cal_check_output("compare", "-o", a->output, inputs, 2))
    return 2;
  if (read_csv(path, &lines, &rows, &n, err))
    goto done;
  for (int i = 0; i < n; i++) {
    const char* why = not_a_run(&rows[i]);
    if (why) {
      ss_err_set(err, path, rows[i].line,
                 "%s: a row is a training run (PLATFORM WORKLOAD [options]), whose report "
                 "gives an iteration time",
                 why);
      goto done;
    }
  }
  /* Nor may -o be a file a row's run reads. */
  if (a->output) {
    ss_catalog* cat = NULL;
    ss_err cerr;
    ss_err_clear(&cerr);
    if (ss_catalog_new(&cat, &cerr)) {
      status = ss_err_nomem(err);
      goto done;
    }
    char what[4400];
    for (int i = 0; i < n; i++)
      if (row_reads(&rows[i], a->output, cat, what, sizeof(what))) {
        ss_catalog_free(cat);
        cal_usage_error("compare", "-o '%s' would overwrite %s", a->output, what);
        status = 2;
        goto done;
      }
    ss_catalog_free(cat);
  }
  status = 1;
  struct stat st;
  const char* why = !strchr(bin, '/')        ? NULL
                    : access(bin, X_OK) != 0 ? strerror(errno)
                    : stat(bin, &st) != 0    ? strerror(errno)
                    : !S_ISREG(st.st_mode)   ? "not a regular file"
                                             : NULL;
  if (why) {
    fprintf(stderr, "%s: error: cannot run the simulator: %s\n", bin, why);
    goto done;
  }
  if (check_work(path, bin, a, rows, n, err)) {
    status = SS_EINPUT;
    goto done;
  }
  if (a->output && !(out = cal_open_output(a->output, &status)))
    goto done;
  int failed = 0;
  int progress = isatty(STDERR_FILENO) && n > 1;
  for (int i = 0; i < n; i++) {
    if (progress)
      fprintf(stderr, "\rcompare: row %d of %d", i + 1, n);
    run_row(bin, a->timeout_s, &rows[i]);
    failed += rows[i].error != NULL;
  }
  if (progress)
    fprintf(stderr, "\r%*s\r", 40, "");
  write_table(stdout, path, bin, rows, n);
  status = failed ? 1 : 0;
  if (out) {
    write_csv(ss_outfile_stream(out), rows, n);
    /* the rows are written even when one failed: they say which */
    int closed = cal_close_output(out, 0);
    status = status ? status : closed;
  }
  if (fflush(stdout) && !status) {
    fprintf(stderr, "stdout: error: cannot write the output: %s\n", strerror(errno));
    status = SS_EXIT_RESOURCE;
  }
done:
  for (int i = 0; rows && i <= n; i++) {
    free(rows[i].error);
    free(rows[i].words);
    free(rows[i].argv);
  }
  free(rows);
  cal_lines_free(&lines);
  return status;
}

static const cal_cli compare_cli = {"compare", compare_help, options, compare_option, compare_run};

int cal_compare_main(int argc, char** argv)
{
  compare_args a = {.timeout_s = DEFAULT_TIMEOUT_S, .max_minutes = SS_MAX_MINUTES};
  return cal_cli_main(&compare_cli, argc, argv, &a);
}
