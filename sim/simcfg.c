/* simcfg: SimGrid's pass-through options checked: the allow-list, then a trial start-up. */
#include "simcfg.h"

#include "engine.h"
#include "proc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The message of SimGrid's first error line, without its "[date] file:line: [category/LEVEL] "
 * prefix and C++ exception names. */
static void simgrid_message(char* text, char* msg, size_t size)
{
  char* end = strchr(text, '\n');
  if (end)
    *end = '\0';
  char* m = text;
  char* level = strstr(m, "/CRITICAL] ");
  if (!level)
    level = strstr(m, "/ERROR] ");
  if (level)
    m = strstr(level, "] ") + 2;
  if (strncmp(m, "Uncaught exception ", 19) == 0) {
    m += 19;
    char* colon = strstr(m, ": ");
    if (colon)
      m = colon + 2;
  }
  snprintf(msg, size, "%s", *m ? m : "SimGrid stopped");
}

/* What the trial start-up's child starts SimGrid with. */
typedef struct trial {
  const ss_job* job;
  int ncfg;
  char** cfg;
} trial;

/* A trial start-up: SimGrid aborts on a bad option, and the parent reads why on our stderr (fd). */
static int check_child(void* arg, int fd)
{
  (void)fd;
  const trial* c = arg;
  /* One instance is enough to see SimGrid accept or refuse the options. */
  ss_job one = *c->job;
  one.instances = 1;
  one.ngpus = c->job->gpus_per_instance;
  return ss_engine_start(&one, c->ncfg, c->cfg, NULL) ? 1 : 0;
}

/* The SimGrid options that make sense for stash-sim (README, "SimGrid options"): each other one is
 * refused before SimGrid sees it. Some pass SimGrid's own start-up and crash later
 * (contexts/stack-size:1 overflows the actors' stacks, network/bandwidth-factor:0 deadlocks,
 * network/model:ns-3 needs a build with ns-3, debug/breakpoint stops the run), others write files
 * (tracing/..., a --log appender) or break the determinism of a run (contexts/nthreads). values
 * lists the accepted names (NULL: a number in [lo, hi]). */
typedef struct cfg_allowed {
  const char* key;
  const char* const* values;
  double lo, hi;
} cfg_allowed;

static const char* const cfg_models[] = {"CM02", "LV08", NULL};
static const char* const cfg_bools[] = {"0", "1", "yes", "no", "on", "off", "true", "false", NULL};
static const char* const cfg_optims[] = {"Lazy", "Full", NULL};
static const char* const cfg_factories[] = {"raw", "ucontext", "boost", "thread", NULL};

static const cfg_allowed cfg_allow[] = {{"network/model", cfg_models, 0, 0},
                                        {"network/TCP-gamma", NULL, 0, 1e12},
                                        {"network/crosstraffic", cfg_bools, 0, 0},
                                        {"network/latency-factor", NULL, 0.01, 100},
                                        {"network/bandwidth-factor", NULL, 0.01, 100},
                                        {"network/weight-S", NULL, 0, 1e9},
                                        {"network/maxmin-selective-update", cfg_bools, 0, 0},
                                        {"network/optim", cfg_optims, 0, 0},
                                        {"cpu/optim", cfg_optims, 0, 0},
                                        {"cpu/maxmin-selective-update", cfg_bools, 0, 0},
                                        {"maxmin/precision", NULL, 1e-9, 1e-3},
                                        {"surf/precision", NULL, 1e-12, 1e-6},
                                        {"contexts/factory", cfg_factories, 0, 0},
                                        {"contexts/stack-size", NULL, 64, 65536},
                                        {"contexts/guard-size", NULL, 0, 64},
                                        {NULL, NULL, 0, 0}};

/* Log thresholds: --log=CATEGORY.thres:LEVEL (also .thresh, .threshold) and --log=no_loc. */
static const char* const log_levels[] = {"trace", "debug", "verbose", "info", "warning", "error", "critical", NULL};

static int in_names(const char* const* names, const char* v)
{
  for (int i = 0; names[i]; i++)
    if (strcmp(names[i], v) == 0)
      return 1;
  return 0;
}

static void join_names(const char* const* names, char* buf, size_t size)
{
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 0; names[i] && n < size; i++)
    n += (size_t)snprintf(buf + n, size - n, "%s%s", i == 0 ? "" : names[i + 1] ? ", " : " or ", names[i]);
}

static int check_log(const char* arg, const char* v, ss_err* err)
{
  if (strcmp(v, "no_loc") == 0)
    return SS_OK;
  const char* dot = strchr(v, '.');
  const char* colon = dot ? strchr(dot, ':') : NULL;
  int cat_ok = dot && dot > v;
  for (const char* q = v; cat_ok && q < dot; q++)
    cat_ok = (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_';
  if (cat_ok && colon) {
    size_t len = (size_t)(colon - dot - 1);
    int thres = (len == 5 && strncmp(dot + 1, "thres", 5) == 0) || (len == 6 && strncmp(dot + 1, "thresh", 6) == 0) ||
                (len == 9 && strncmp(dot + 1, "threshold", 9) == 0);
    if (thres && in_names(log_levels, colon + 1))
      return SS_OK;
  }
  char levels[160];
  join_names(log_levels, levels, sizeof(levels));
  return ss_err_set(err, NULL, 0,
                    "%s: stash-sim accepts --log=CATEGORY.thres:LEVEL (LEVEL %s) and --log=no_loc "
                    "(README, SimGrid options)",
                    arg, levels);
}

/* Whether one pass-through argument is on the allow-list, with its value in range. */
static int check_allowed(const char* arg, ss_err* err)
{
  if (strncmp(arg, "--log=", 6) == 0)
    return check_log(arg, arg + 6, err);
  const char* kv = arg + 6; /* after --cfg= (cli.c passes only these two) */
  const char* colon = strchr(kv, ':');
  const cfg_allowed* a = cfg_allow;
  size_t klen = colon ? (size_t)(colon - kv) : strlen(kv);
  while (a->key && !(strlen(a->key) == klen && strncmp(a->key, kv, klen) == 0))
    a++;
  if (!a->key) {
    char keys[1024];
    size_t n = 0;
    keys[0] = '\0';
    for (const cfg_allowed* k = cfg_allow; k->key && n < sizeof(keys); k++)
      n += (size_t)snprintf(keys + n, sizeof(keys) - n, "%s%s", k == cfg_allow ? "" : ", ", k->key);
    return ss_err_set(err, NULL, 0, "%s: not a SimGrid option stash-sim accepts (README, SimGrid options: %s)", arg,
                      keys);
  }
  const char* v = colon ? colon + 1 : "";
  char expects[256];
  if (a->values) {
    if (in_names(a->values, v))
      return SS_OK;
    join_names(a->values, expects, sizeof(expects));
  } else {
    char* end = NULL;
    double x = strtod(v, &end);
    if (end != v && !*end && isfinite(x) && x >= a->lo && x <= a->hi)
      return SS_OK;
    snprintf(expects, sizeof(expects), "a number from %g to %g", a->lo, a->hi);
  }
  return ss_err_set(err, NULL, 0, "%s: %s expects %s, got '%s'", arg, a->key, expects, v);
}

int ss_simcfg_check(const ss_job* job, int ncfg, char** cfg, ss_err* err)
{
  if (ncfg == 0)
    return SS_OK;
  for (int i = 0; i < ncfg; i++)
    if (check_allowed(cfg[i], err))
      return SS_EINPUT;
  trial c = {job, ncfg, cfg};
  ss_proc p;
  int start = ss_proc_start(&p, SS_PROC_STDERR, check_child, &c);
  if (start) {
    ss_err_set(err, NULL, 0, "cannot check the SimGrid options: %s", ss_proc_strerror(start));
    return ss_err_kind(err, SS_ESYS);
  }
  /* Keep the start of what the child says (its first line is the reason). */
  char text[4096];
  size_t n = 0;
  ss_proc_exit how;
  ss_proc_finish(&p, text, sizeof(text) - 1, &n, &how);
  text[n] = '\0';
  if (how.code == 0)
    return SS_OK;
  char msg[sizeof(text)];
  simgrid_message(text, msg, sizeof(msg));
  char given[512] = "";
  for (int i = 0; i < ncfg; i++) {
    size_t len = strlen(given);
    snprintf(given + len, sizeof(given) - len, "%s%s", i ? " " : "", cfg[i]);
  }
  return ss_err_set(err, NULL, 0, "SimGrid rejected %s: %s", given, msg);
}
