/* units: parse SimGrid-style quantities ("48.34GBps", "2us", "15.7Tf") into SI doubles. */
#ifndef SS_UNITS_H
#define SS_UNITS_H

typedef enum ss_unit_kind {
  SS_UNIT_BANDWIDTH, /* to bytes per second: Bps kBps MBps GBps TBps, KiBps..TiBps, bps kbps Mbps Gbps Tbps */
  SS_UNIT_LATENCY,   /* to seconds: s ms us ns ps */
  SS_UNIT_SPEED,     /* to flop/s: f kf Mf Gf Tf Pf */
} ss_unit_kind;

/* Parse text as a finite, positive number followed by a unit of the given kind (the unit is
 * required; a latency may be zero). Returns 0 and sets *out, or a negative code with a message in
 * why (at most why_size bytes) saying what was expected. */
int ss_units_parse(const char* text, ss_unit_kind kind, double* out, char* why, unsigned long why_size);

#endif
