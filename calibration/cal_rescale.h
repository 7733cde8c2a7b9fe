/* cal_rescale: rewrite a platform's GPU-interconnect links so that stash-sim's ring allreduce over
 * all of its GPUs has a given bus bandwidth and hop latency (stash-calibrate nccl --platform). */
#ifndef SS_CAL_RESCALE_H
#define SS_CAL_RESCALE_H

#include "err.h"
#include "outfile.h"

/* One rescaled link: its name and figures before and after (bytes/s, seconds). */
typedef struct cal_link_change {
  char* name;
  const char* cls; /* "nvlink", ... (static) */
  double bandwidth_before_bytes_per_s, bandwidth_after_bytes_per_s;
  double latency_before_s, latency_after_s;
} cal_link_change;

/* The simulator's view of a ring allreduce over all the GPUs of a platform (the rings ss_topo_rings
 * gives): busbw is the sum of the rings' bottlenecks (the bus bandwidth of a large ring allreduce),
 * hop latency the largest route latency of a ring hop (the per-step latency of the fast fidelity). */
typedef struct cal_ring_figures {
  int nrings;
  unsigned classes; /* bit set of ss_link_class: the link classes the rings cross */
  double busbw_bytes_per_s;
  double hop_latency_s;
  int max_hops; /* most links on the route of a ring hop */
} cal_ring_figures;

/* What the rewrite did: the ring figures of the platform read and of the platform rewritten (the
 * same rings: the rewrite fails otherwise). */
typedef struct cal_rescale {
  int ngpus;
  cal_ring_figures before, after;
  double bandwidth_factor, latency_factor; /* latency_factor is 0 when the latencies were 0 */
  int nchanges;
  cal_link_change* changes;
} cal_rescale;

/* Read the platform at in, scale every link of the classes its rings cross that lies on a route
 * between two GPUs (bandwidth by busbw_bytes_per_s / current busbw, latency by hop_latency_s / current hop
 * latency), and write the result to the output out (outfile.h; named out_name in errors) with an
 * XML comment before each such link and one before the zone, saying what changed and why (note:
 * the provenance, e.g. the log and the fit). The written file is read back (when it is a file)
 * and its rings checked. The caller commits out, or aborts it on an error. On success fills *res
 * (free with cal_rescale_free); errors (exit 1): a bad platform, fewer than 2 GPUs, rings that
 * change under the rescaling, a write that failed. */
int cal_rescale_platform(const char* in, ss_outfile* out, const char* out_name, double busbw_bytes_per_s,
                         double hop_latency_s, const char* note, cal_rescale* res, ss_err* err);

void cal_rescale_free(cal_rescale* res);

/* A link class set as text ("nvlink", "pcie+socket"), into buf of size bytes. */
void cal_rescale_classes(unsigned classes, char* buf, unsigned long size);

#endif
