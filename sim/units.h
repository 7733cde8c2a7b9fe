/* units: parse SimGrid-style quantities ("48.34GBps", "2us", "15.7Tf") into SI doubles. */
#ifndef SS_UNITS_H
#define SS_UNITS_H

typedef enum ss_unit_kind {
  SS_UNIT_BANDWIDTH, /* to bytes per second: Bps kBps MBps GBps TBps, KiBps..TiBps, bps kbps Mbps Gbps Tbps */
  SS_UNIT_LATENCY,   /* to seconds: s ms us ns ps */
  SS_UNIT_SPEED,     /* to flop/s: f kf Mf Gf Tf Pf */
} ss_unit_kind;

/* Parse text as a number followed by a unit of the given kind (the unit is required) whose value in
 * SI units lies in the kind's bounds (ss_qty below; a latency may also be zero). Returns 0 and sets
 * *out, or a negative code with a message in why (at most why_size bytes) saying what was expected,
 * the bounds included. */
int ss_units_parse(const char* text, ss_unit_kind kind, double* out, char* why, unsigned long why_size);

/* strtod restricted to decimal notation, as every reader and option takes numbers: an optional sign,
 * digits with an optional point, an optional exponent. Hexadecimal ("0x10", "0x1p1"), "inf", "nan"
 * and leading spaces read nothing (*end = s, returns 0). */
double ss_strtod(const char* s, char** end);

/* The plausible bounds of every kind of physical quantity, the one table that the platform reader,
 * the workload reader and the option registry check against (docs/formats.md, "Bounds"). Values
 * outside are a wrong unit or a typo, not a machine: beyond them SimGrid's arithmetic or the
 * report's divisions underflow or overflow (a bandwidth of 1e-310 B/s deadlocks the engine, times
 * of 1e-300 s give an iteration of zero). Zero, where a quantity may be zero (a latency, a time),
 * is accepted besides the range. */
typedef enum ss_qty {
  SS_QTY_BANDWIDTH, /* bytes per second */
  SS_QTY_LATENCY,   /* seconds, of a link or a message */
  SS_QTY_SPEED,     /* flop/s */
  SS_QTY_TIME,      /* seconds, a measured duration */
  SS_QTY_RATIO,     /* a dimensionless factor: device speed ratios, --compute-scale */
  SS_QTY_PRICE,     /* US dollars per hour */
  SS_QTY_SIZE,      /* bytes */
  SS_QTY_FLOPS,     /* a count of floating-point operations (a workload layer's, per sample) */
  SS_QTY_COUNT
} ss_qty;

/* The bounds as macros too, for the option registry's static rows (option.c). */
#define SS_BOUND_BANDWIDTH_LO 1e3  /* 1 kB/s */
#define SS_BOUND_BANDWIDTH_HI 1e14 /* 100 TB/s: a GPU's HBM is 3 TB/s, an NVSwitch 900 GB/s */
#define SS_BOUND_LATENCY_LO 1e-9   /* 1 ns */
#define SS_BOUND_LATENCY_HI 10.0
#define SS_BOUND_SPEED_LO 1e6 /* 1 Mflop/s */
#define SS_BOUND_SPEED_HI 1e18
#define SS_BOUND_TIME_LO 1e-9 /* 1 ns: shorter than any kernel launch */
#define SS_BOUND_TIME_HI 3600.0
#define SS_BOUND_RATIO_LO 1e-3
#define SS_BOUND_RATIO_HI 1e3
#define SS_BOUND_PRICE_LO 1e-6 /* US$ per hour */
#define SS_BOUND_PRICE_HI 1e6
#define SS_BOUND_SIZE_LO 1.0
#define SS_BOUND_SIZE_HI 1e13
/* One layer's FLOPs per sample: GPT-2 1.5B's whole forward at sequence 1024 is 3.2e12, a layer of it
 * 7e10; 1e16 (ten thousand times that model) catches a wrong unit (FLOPs per batch of a huge batch,
 * or flop/s), not a real layer. At least one operation where not 0. */
#define SS_BOUND_FLOPS_LO 1.0
#define SS_BOUND_FLOPS_HI 1e16

/* Counts and clocks of a device (GPU host props sm_count, boost_mhz): beyond them a figure is a typo or
 * a wrong unit (an H100 has 132 SMs at 1.98 GHz; boost_mhz given in Hz would be 1e9). */
#define SS_BOUND_COUNT_HI 1e6  /* units of a device: SMs */
#define SS_BOUND_CLOCK_LO 1e6  /* 1 MHz */
#define SS_BOUND_CLOCK_HI 1e11 /* 100 GHz */

/* Smallest magnitude of a nonzero dimensionless option value (--jitter, --cache, ...): below it a
 * value is an underflow or a typo, not a setting. */
#define SS_BOUND_TINY 1e-9

/* Whether v (in SI units) lies in the bounds of q; zero_ok also accepts 0. */
int ss_qty_ok(ss_qty q, double v, int zero_ok);

/* The accepted values of q in words, with units: "a bandwidth in [1 kB/s, 100 TB/s]", "0 or a time
 * in [1 ns, 3600 s]". */
void ss_qty_expects(ss_qty q, int zero_ok, char* buf, unsigned long size);

/* Largest interference factor (--comm-interference, an instance file's comm_interference): compute
 * 11 times as long while a collective runs. */
#define SS_MAX_INTERFERENCE 10

/* Limits: GPUs of a job, instances of a cluster. */
#define SS_MAX_GPUS 65536
/* The default of --max-minutes: a command estimated (sim/estimate.h) to take more CPU minutes than
 * this to simulate is refused with its estimate. Minutes, as a person waits for a command before
 * they think it hangs; a longer one is asked for with --max-minutes. The largest accepted: the
 * estimates stay finite. */
#define SS_MAX_MINUTES 10
#define SS_MAX_MINUTES_LIMIT 1e9
#define SS_MAX_INSTANCES 65536

#endif
