/* stall: the timeline breakdown of a run's steady state. */
#include "stall.h"

#include "err.h"
#include "platform.h"

#include <math.h>
#include <string.h>

void ss_stall_timeline(const ss_timeline* t, int first, int count, ss_breakdown* out)
{
  ss_assert(first >= 0 && count >= 1 && first + count <= t->niters);
  memset(out, 0, sizeof(*out));
  int measured = count, end = first + count;
  double n = 0; /* the rank-iterations the timeline's stand for */
  for (int r = 0; r < t->nranks; r++) {
    size_t base = (size_t)r * (size_t)t->niters;
    double window = t->end_s[base + (size_t)end - 1] - t->start_s[base + (size_t)first];
    double sum = 0, spans = 0;
    for (int i = first; i < end; i++) {
      double w = t->weight[base + (size_t)i];
      for (int c = 0; c < SS_CAT_COUNT; c++) {
        double v = t->acc_s[(base + (size_t)i) * SS_CAT_COUNT + (size_t)c];
        out->part_s[c] += w * v;
        sum += v;
      }
      for (int d = 0; d < SS_DETAIL_COUNT; d++)
        out->detail_s[d] += w * t->det_s[(base + (size_t)i) * SS_DETAIL_COUNT + (size_t)d];
      /* Iterations follow each other: their spans add up to the window. */
      spans += (w - 1) * (t->end_s[base + (size_t)i] - t->start_s[base + (size_t)i]);
      n += w;
    }
    out->iteration_s += window + spans; /* the window itself when every weight is 1 */
    /* Every instant of an iteration is classified, and iterations follow each other. */
    ss_assert(fabs(sum - window) <= 1e-9 * fmax(window, 1e-12) + 1e-15);
    double mean = window / measured;
    if (r == 0 || mean < out->rank_iteration_min_s)
      out->rank_iteration_min_s = mean;
    if (r == 0 || mean > out->rank_iteration_max_s)
      out->rank_iteration_max_s = mean;
  }
  out->staleness_mean = t->ps_updates ? t->ps_staleness_sum / (double)t->ps_updates : 0;
  out->staleness_max = (double)t->ps_staleness_max;
  out->init_s = t->init_s;
  out->iteration_s /= n;
  for (int c = 0; c < SS_CAT_COUNT; c++)
    out->part_s[c] /= n;
  for (int d = 0; d < SS_DETAIL_COUNT; d++)
    out->detail_s[d] /= n;
  out->first_iteration_s = t->end_s[0] - t->start_s[0];
  for (int k = 0; k < SS_RES_COUNT; k++)
    out->util[k] = t->util[k];
  out->util[SS_RES_GPU] = out->iteration_s > 0 ? out->part_s[SS_CAT_COMPUTE] / out->iteration_s : 0;
  out->limit = ss_stall_limit(out);
}

/* The share of the iteration that waits for what resource r can cause: communication (and the
 * host-to-device copy, booked as preparation) for the links, preparation and the host thread for
 * the CPUs, storage reads for the disks. */
static double stall_share(const ss_breakdown* b, ss_res r)
{
  const double* p = b->part_s;
  double s = r == SS_RES_CPU    ? p[SS_CAT_PREP] + p[SS_CAT_HOST]
             : r == SS_RES_DISK ? p[SS_CAT_FETCH]
                                : p[SS_CAT_INTERCONNECT] + p[SS_CAT_NETWORK] + p[SS_CAT_PREP];
  return b->iteration_s > 0 ? s / b->iteration_s : 0;
}

ss_res ss_stall_limit(const ss_breakdown* b)
{
  ss_res limit = SS_RES_GPU;
  for (int r = 0; r < SS_RES_GPU; r++)
    if (b->util[r] > b->util[limit] && stall_share(b, (ss_res)r) >= SS_LIMIT_STALL_SHARE)
      limit = (ss_res)r;
  return limit;
}

_Static_assert((int)SS_RES_CPU == (int)SS_LINK_CLASS_COUNT, "the link classes come first among the resources");

static const char* const res_labels[SS_RES_COUNT] = {
    "NVLink", "NVSwitch", "PCIe", "inter-socket link", "NIC", "host memory (SHM)", "loader CPU", "disk", "GPU"};

const char* ss_res_name(ss_res r)
{
  ss_assert(r >= 0 && r < SS_RES_COUNT);
  return r < SS_RES_CPU     ? ss_link_class_name((ss_link_class)r)
         : r == SS_RES_CPU  ? "cpu"
         : r == SS_RES_DISK ? "disk"
                            : "gpu";
}

const char* ss_res_label(ss_res r)
{
  ss_assert(r >= 0 && r < SS_RES_COUNT);
  return res_labels[r];
}
