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

static const unit_entry bandwidth_units[] = {
    {"Bps", 1.0},      {"kBps", 1e3},           {"MBps", 1e6},           {"GBps", 1e9},
    {"TBps", 1e12},    {"KiBps", 1024.0},       {"MiBps", 1048576.0},    {"GiBps", 1073741824.0},
    {"TiBps", 1099511627776.0}, {"bps", 0.125}, {"kbps", 125.0},         {"Mbps", 125e3},
    {"Gbps", 125e6},   {"Tbps", 125e9},         {NULL, 0}};
static const unit_entry latency_units[] = {
    {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12}, {NULL, 0}};
static const unit_entry speed_units[] = {
    {"f", 1.0}, {"kf", 1e3}, {"Mf", 1e6}, {"Gf", 1e9}, {"Tf", 1e12}, {"Pf", 1e15}, {NULL, 0}};

static const unit_entry* units_table(ss_unit_kind kind, const char** what)
{
  switch (kind) {
    case SS_UNIT_BANDWIDTH:
      *what = "a bandwidth with a unit (e.g. 10GBps, 25Gbps)";
      return bandwidth_units;
    case SS_UNIT_LATENCY:
      *what = "a latency with a unit (e.g. 2us, 0.5ms)";
      return latency_units;
    case SS_UNIT_SPEED:
      *what = "a speed with a unit (e.g. 15.7Tf, 1Gf)";
      return speed_units;
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
  double value = strtod(text, &end);
  if (end == text) {
    snprintf(why, why_size, "expected %s, got '%s'", what, text);
    return SS_EINPUT;
  }
  if (!isfinite(value)) {
    snprintf(why, why_size, "expected %s, got '%s' (not a finite number)", what, text);
    return SS_EINPUT;
  }
  for (const unit_entry* u = table; u->suffix; u++) {
    if (strcmp(end, u->suffix) == 0) {
      if (value < 0 || (value == 0 && kind != SS_UNIT_LATENCY)) {
        snprintf(why, why_size, "expected %s %s zero, got '%s'", what,
                 kind == SS_UNIT_LATENCY ? "at least" : "greater than", text);
        return SS_EINPUT;
      }
      /* Beyond these limits a value is a wrong unit, not a machine (and may overflow SimGrid). */
      static const double lo[] = {1.0, 0.0, 1.0}, hi[] = {1e15, 3600.0, 1e18};
      double v = value * u->factor;
      if (!isfinite(v) || (v < lo[kind] && v != 0) || v > hi[kind]) {
        snprintf(why, why_size, "expected %s between %g and %g in SI units, got '%s'", what, lo[kind], hi[kind], text);
        return SS_EINPUT;
      }
      *out = v;
      return SS_OK;
    }
  }
  snprintf(why, why_size, "expected %s, got '%s' (unknown or missing unit)", what, text);
  return SS_EINPUT;
}
