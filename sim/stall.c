/* stall: the timeline breakdown of a run's steady state. */
#include "stall.h"

#include "err.h"

#include <math.h>
#include <string.h>

void ss_stall_timeline(const ss_timeline* t, int first, int count, ss_breakdown* out)
{
  ss_assert(first >= 0 && count >= 1 && first + count <= t->niters);
  memset(out, 0, sizeof(*out));
  int measured = count, end = first + count;
  for (int r = 0; r < t->nranks; r++) {
    size_t base = (size_t)r * (size_t)t->niters;
    double window = t->end_s[base + (size_t)end - 1] - t->start_s[base + (size_t)first];
    double sum = 0;
    for (int i = first; i < end; i++)
      for (int c = 0; c < SS_CAT_COUNT; c++) {
        double v = t->acc_s[(base + (size_t)i) * SS_CAT_COUNT + (size_t)c];
        out->part_s[c] += v;
        sum += v;
      }
    for (int i = first; i < end; i++)
      for (int d = 0; d < SS_DETAIL_COUNT; d++)
        out->detail_s[d] += t->det_s[(base + (size_t)i) * SS_DETAIL_COUNT + (size_t)d];
    /* Every instant of an iteration is classified, and iterations follow each other. */
    ss_assert(fabs(sum - window) <= 1e-9 * fmax(window, 1e-12) + 1e-15);
    out->iteration_s += window;
    double mean = window / measured;
    if (r == 0 || mean < out->rank_iteration_min_s)
      out->rank_iteration_min_s = mean;
    if (r == 0 || mean > out->rank_iteration_max_s)
      out->rank_iteration_max_s = mean;
  }
  out->staleness_mean = t->ps_updates ? t->ps_staleness_sum / (double)t->ps_updates : 0;
  out->staleness_max = (double)t->ps_staleness_max;
  out->init_s = t->init_s;
  double n = (double)t->nranks * measured;
  out->iteration_s /= n;
  for (int c = 0; c < SS_CAT_COUNT; c++)
    out->part_s[c] /= n;
  for (int d = 0; d < SS_DETAIL_COUNT; d++)
    out->detail_s[d] /= n;
  out->first_iteration_s = t->end_s[0] - t->start_s[0];
}
