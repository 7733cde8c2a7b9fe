/* timeline: per-rank, per-iteration time accounting of the simulated run. */
#include "timeline.h"

#include "err.h"

#include <stdlib.h>
#include <unistd.h>

ss_timeline* ss_timeline_new(int nranks, int niters)
{
  ss_assert(nranks > 0 && niters > 0);
  size_t n = (size_t)nranks * (size_t)niters, ndoubles = n * (3 + SS_CAT_COUNT + SS_DETAIL_COUNT) + (size_t)nranks;
  /* One block: the timeline, then its arrays of doubles, then its array of longs (each aligned, as
   * what comes before is a whole number of doubles). */
  size_t bytes = sizeof(ss_timeline) + ndoubles * sizeof(double) + (size_t)nranks * sizeof(long);
  /* More than the machine's memory cannot succeed: refuse it at once rather than let the kernel's
   * overcommit accept it and the run die touching the pages (or a sanitizer abort on it). */
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && (double)bytes > (double)pages * (double)page)
    return NULL;
  ss_timeline* t = calloc(1, bytes);
  if (!t)
    return NULL;
  double* d = (double*)(t + 1);
  t->nranks = nranks;
  t->niters = niters;
  t->start_s = d;
  t->end_s = d + n;
  t->acc_s = d + 2 * n;
  t->det_s = d + (2 + SS_CAT_COUNT) * n;
  t->rank_staleness_sum = d + (2 + SS_CAT_COUNT + SS_DETAIL_COUNT) * n;
  t->weight = d + (2 + SS_CAT_COUNT + SS_DETAIL_COUNT) * n + (size_t)nranks;
  for (size_t k = 0; k < n; k++)
    t->weight[k] = 1;
  t->rank_updates = (long*)(d + ndoubles);
  return t;
}

void ss_timeline_free(ss_timeline* t)
{
  free(t); /* its arrays are in the same block */
}

void ss_timeline_add(ss_timeline* t, int rank, int iter, ss_cat cat, double dt)
{
  ss_assert(rank >= 0 && rank < t->nranks && iter >= 0 && iter < t->niters && cat < SS_CAT_COUNT && dt >= 0);
  t->acc_s[((size_t)rank * (size_t)t->niters + (size_t)iter) * SS_CAT_COUNT + cat] += dt;
}

void ss_timeline_detail(ss_timeline* t, int rank, int iter, ss_detail d, double dt)
{
  ss_assert(rank >= 0 && rank < t->nranks && iter >= 0 && iter < t->niters && d < SS_DETAIL_COUNT && dt >= 0);
  t->det_s[((size_t)rank * (size_t)t->niters + (size_t)iter) * SS_DETAIL_COUNT + d] += dt;
}

void ss_timeline_span(ss_timeline* t, int rank, int iter, double start_s, double end_s)
{
  ss_assert(rank >= 0 && rank < t->nranks && iter >= 0 && iter < t->niters && end_s >= start_s);
  t->start_s[(size_t)rank * (size_t)t->niters + (size_t)iter] = start_s;
  t->end_s[(size_t)rank * (size_t)t->niters + (size_t)iter] = end_s;
}
