/* roofline: the time of a layer's kernels on a device from the work they do, for devices and
 * batches other than the one measured (docs/model.md, "Compute across devices").
 *
 * A pass (a layer's forward or backward) does flops and moves bytes per sample, reads fixed bytes
 * (its weights) whatever the batch, and launches kernels. On a device of peak P (flop/s at the
 * precision in use) and memory bandwidth B, at batch b, it takes
 *
 *     t = kernels x floor + max(flops b / (P fc), (bytes b + fixed) / (B fm)) / u(b)
 *
 * the larger of its compute and memory times at the achieved fractions fc and fm of the peaks, over
 * the utilisation u of the SMs by the waves of thread blocks (blocks b thread blocks spread over the
 * SMs in whole waves: u = blocks b / (waves x SMs), 1 when the blocks are not known), plus a floor
 * per kernel. The fractions are the pass's own, fitted on the reference device's measured time
 * (ss_roofline_fit); the one that does not bind there keeps a default. */
#ifndef SS_ROOFLINE_H
#define SS_ROOFLINE_H

#ifndef SS_ROOFLINE_TILE
#define SS_ROOFLINE_TILE 4096.0
#endif

/* The floor of one kernel, the roofline's and the kernel model's (tfmodel.h): calibrated on the
 * ResNet-50 V100 profiler trace (../shared/data/traces, single GPU): its shortest kernels
 * (elementwise ops on small tensors) last 0 to 1 us at the trace's 1 us resolution and consecutive
 * kernels on the stream start 1 us apart (the median of the 7,304 gaps under 20 us): 2 us a kernel. */
#define SS_KERNEL_FLOOR_S 2e-6

/* A device's figures at one precision. */
typedef struct ss_rates {
  double flops;       /* peak, flop/s */
  double bytes_per_s; /* memory bandwidth */
  int sms;            /* streaming multiprocessors; 0: not known (no wave model) */
  double kernel_s;    /* the floor of one kernel */
} ss_rates;

/* One pass of a layer. */
typedef struct ss_work {
  double flops;       /* per sample */
  double bytes;       /* activation bytes read and written per sample */
  double fixed_bytes; /* read once per pass whatever the batch: the weights */
  double kernels;     /* kernels launched */
  double blocks;      /* thread blocks per sample; 0: not known (no wave model) */
} ss_work;

/* Achieved fractions of a device's peaks. */
typedef struct ss_fit {
  double compute; /* of the peak flop/s, > 0 (above 1 where the kernels do less than the FLOPs counted) */
  double memory;  /* of the bandwidth, > 0 */
  int bound;      /* which one the reference measurement fixed: 'c' compute, 'm' memory, 'f' the floors */
} ss_fit;

/* The fractions assumed where a measurement does not fix them: ESTIMATES (roofline.c says why). */
extern const ss_fit ss_fit_default;

/* The utilisation of d's SMs by w's thread blocks at batch b: blocks / (whole waves x SMs). */
double ss_roofline_waves(const ss_work* w, double batch, const ss_rates* d);

/* The pass's time on d at batch b with the fractions f. */
double ss_roofline_time(const ss_work* w, double batch, const ss_rates* d, const ss_fit* f);

/* The fractions that make ss_roofline_time(w, batch, ref, out) equal measured_s on the reference
 * device: the bound of the pass there (compute or memory, by the default fractions) takes the
 * fraction that fits, the other keeps its default (or the one that fits too, when it would bind
 * harder). A measurement faster than the nominal work allows gives a fraction above 1 (Winograd
 * convolutions); one no longer than its kernels' floors leaves both defaults (bound 'f'). */
void ss_roofline_fit(const ss_work* w, double batch, const ss_rates* ref, double measured_s, ss_fit* out);

#endif
