/* units: parse SimGrid-style quantities into SI doubles. */
#include "units.h"

#include "err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct unit_entry {
  const char* suffix;
  double factor;
} unit_entry;

static const unit_entry bandwidth_units[] = {{"Bps", 1.0},         {"kBps", 1e3},           {"MBps", 1e6},
                                             {"GBps", 1e9},        {"TBps", 1e12},          {"KiBps", 1024.0},
                                             {"MiBps", 1048576.0}, {"GiBps", 1073741824.0}, {"TiBps", 1099511627776.0},
                                             {"bps", 0.125},       {"kbps", 125.0},         {"Mbps", 125e3},
                                             {"Gbps", 125e6},      {"Tbps", 125e9},         {NULL, 0}};
static const unit_entry latency_units[] = {{"s", 1.0},   {"ms", 1e-3},  {"us", 1e-6},
                                           {"ns", 1e-9}, {"ps", 1e-12}, {NULL, 0}};
static const unit_entry speed_units[] = {{"f", 1.0},   {"kf", 1e3},  {"Mf", 1e6}, {"Gf", 1e9},
                                         {"Tf", 1e12}, {"Pf", 1e15}, {NULL, 0}};

static const unit_entry* units_table(ss_unit_kind kind, const char** what)
{
  switch (kind) {
    case SS_UNIT_BANDWIDTH: *what = "a bandwidth with a unit (e.g. 10GBps, 25Gbps)"; return bandwidth_units;
    case SS_UNIT_LATENCY: *what = "a latency with a unit (e.g. 2us, 0.5ms)"; return latency_units;
    case SS_UNIT_SPEED: *what = "a speed with a unit (e.g. 15.7Tf, 1Gf)"; return speed_units;
  }
  ss_assert(0);
  return NULL;
}

int ss_units_parse(const char* text, ss_unit_kind kind, double* out, char* why, unsigned long why_size)
{
  const char* what = NULL;
  const unit_entry* table = units_table(kind, &what);
  if (!text || !*text) {
    snprintf(why, why_size, "expected %s, got an empty value", what);
    return SS_EINPUT;
  }
  char* end = NULL;
  double value = ss_strtod(text, &end);
  static const ss_qty qty[] = {SS_QTY_BANDWIDTH, SS_QTY_LATENCY, SS_QTY_SPEED};
  if (end == text) {
    /* inf, nan, hexadecimal: a number strtod reads, in no range of ours. */
    char* other = NULL;
    (void)strtod(text, &other);
    if (other != text) {
      char expects[128];
      ss_qty_expects(qty[kind], kind == SS_UNIT_LATENCY, expects, sizeof(expects));
      snprintf(why, why_size, "expected %s, got '%s'", expects, text);
    } else
      snprintf(why, why_size, "expected %s, got '%s'", what, text);
    return SS_EINPUT;
  }
  for (const unit_entry* u = table; u->suffix; u++) {
    if (strcmp(end, u->suffix) == 0) {
      /* Beyond the bounds a value is a wrong unit, not a machine (and may overflow SimGrid). */
      double v = value * u->factor;
      if (!ss_qty_ok(qty[kind], v, kind == SS_UNIT_LATENCY)) {
        char expects[128];
        ss_qty_expects(qty[kind], kind == SS_UNIT_LATENCY, expects, sizeof(expects));
        snprintf(why, why_size, "expected %s, got '%s'", expects, text);
        return SS_EINPUT;
      }
      *out = v;
      return SS_OK;
    }
  }
  snprintf(why, why_size, "expected %s, got '%s' (unknown or missing unit)", what, text);
  return SS_EINPUT;
}

typedef struct qty_entry {
  const char* what;
  const char* unit;
  int prefixed; /* written with SI prefixes (k, M, G...; m, u, n for seconds) */
  double lo, hi;
} qty_entry;

static const qty_entry qty_table[SS_QTY_COUNT] = {
    [SS_QTY_BANDWIDTH] = {"a bandwidth", "B/s", 1, SS_BOUND_BANDWIDTH_LO, SS_BOUND_BANDWIDTH_HI},
    [SS_QTY_LATENCY] = {"a latency", "s", 1, SS_BOUND_LATENCY_LO, SS_BOUND_LATENCY_HI},
    [SS_QTY_SPEED] = {"a speed", "flop/s", 1, SS_BOUND_SPEED_LO, SS_BOUND_SPEED_HI},
    [SS_QTY_TIME] = {"a time", "s", 1, SS_BOUND_TIME_LO, SS_BOUND_TIME_HI},
    [SS_QTY_RATIO] = {"a ratio", "", 0, SS_BOUND_RATIO_LO, SS_BOUND_RATIO_HI},
    [SS_QTY_PRICE] = {"a price", "$/h", 0, SS_BOUND_PRICE_LO, SS_BOUND_PRICE_HI},
    [SS_QTY_SIZE] = {"a size", "B", 1, SS_BOUND_SIZE_LO, SS_BOUND_SIZE_HI},
    [SS_QTY_FLOPS] = {"a FLOP count", "flop", 1, SS_BOUND_FLOPS_LO, SS_BOUND_FLOPS_HI},
};

int ss_qty_ok(ss_qty q, double v, int zero_ok)
{
  ss_assert(q < SS_QTY_COUNT);
  if (v == 0)
    return zero_ok;
  return isfinite(v) && v >= qty_table[q].lo && v <= qty_table[q].hi;
}

/* v with an SI prefix that leaves a mantissa in [1, 1000) where one exists ("1 kB/s", "3600 s"):
 * seconds above 1 stay seconds. */
static void qty_value_text(const qty_entry* e, double v, char* buf, unsigned long size)
{
  static const struct {
    const char* p;
    double f;
  } prefixes[] = {{"E", 1e18}, {"P", 1e15}, {"T", 1e12}, {"G", 1e9},  {"M", 1e6},  {"k", 1e3},
                  {"", 1},     {"m", 1e-3}, {"u", 1e-6}, {"n", 1e-9}, {"p", 1e-12}};
  const char* sep = e->unit[0] ? " " : "";
  if (e->prefixed)
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
      int seconds = strcmp(e->unit, "s") == 0;
      if ((seconds && prefixes[i].f > 1) || v < prefixes[i].f)
        continue;
      snprintf(buf, size, "%g %s%s", v / prefixes[i].f, prefixes[i].p, e->unit);
      return;
    }
  snprintf(buf, size, "%g%s%s", v, sep, e->unit);
}

void ss_qty_expects(ss_qty q, int zero_ok, char* buf, unsigned long size)
{
  ss_assert(q < SS_QTY_COUNT);
  const qty_entry* e = &qty_table[q];
  char lo[32], hi[32];
  qty_value_text(e, e->lo, lo, sizeof(lo));
  qty_value_text(e, e->hi, hi, sizeof(hi));
  snprintf(buf, size, "%s%s in [%s, %s]", zero_ok ? "0 or " : "", e->what, lo, hi);
}

double ss_strtod(const char* s, char** end)
{
  const char* p = s + (*s == '+' || *s == '-');
  int digit = *p >= '0' && *p <= '9', point = *p == '.' && p[1] >= '0' && p[1] <= '9';
  if (!(digit || point) || (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))) {
    if (end)
      *end = (char*)s;
    return 0;
  }
  return strtod(s, end);
}
