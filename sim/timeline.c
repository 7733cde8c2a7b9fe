/* timeline: per-rank, per-iteration time accounting of the simulated run. */
#include "timeline.h"

#include "err.h"

#include <stdlib.h>

ss_timeline* ss_timeline_new(int nranks, int niters)
{
  ss_assert(nranks > 0 && niters > 0);
  ss_timeline* t = calloc(1, sizeof(*t));
  if (!t)
    return NULL;
  size_t n = (size_t)nranks * (size_t)niters;
  t->nranks = nranks;
  t->niters = niters;
  t->start_s = calloc(n, sizeof(double));
  t->end_s = calloc(n, sizeof(double));
  t->acc_s = calloc(n * SS_CAT_COUNT, sizeof(double));
  t->rank_updates = calloc((size_t)nranks, sizeof(long));
  t->rank_staleness_sum = calloc((size_t)nranks, sizeof(double));
  if (!t->start_s || !t->end_s || !t->acc_s || !t->rank_updates || !t->rank_staleness_sum) {
    ss_timeline_free(t);
    return NULL;
  }
  return t;
}

void ss_timeline_free(ss_timeline* t)
{
  if (!t)
    return;
  free(t->start_s);
  free(t->end_s);
  free(t->acc_s);
  free(t->rank_updates);
  free(t->rank_staleness_sum);
  free(t);
}

void ss_timeline_add(ss_timeline* t, int rank, int iter, ss_cat cat, double dt)
{
  ss_assert(rank >= 0 && rank < t->nranks && iter >= 0 && iter < t->niters && cat < SS_CAT_COUNT && dt >= 0);
  t->acc_s[((size_t)rank * (size_t)t->niters + (size_t)iter) * SS_CAT_COUNT + cat] += dt;
}

void ss_timeline_span(ss_timeline* t, int rank, int iter, double start_s, double end_s)
{
  ss_assert(rank >= 0 && rank < t->nranks && iter >= 0 && iter < t->niters && end_s >= start_s);
  t->start_s[(size_t)rank * (size_t)t->niters + (size_t)iter] = start_s;
  t->end_s[(size_t)rank * (size_t)t->niters + (size_t)iter] = end_s;
}

const char* ss_cat_name(ss_cat cat)
{
  static const char* const names[SS_CAT_COUNT] = {"compute", "prep_stall", "fetch_stall", "interconnect_stall",
                                                  "network_stall"};
  ss_assert(cat < SS_CAT_COUNT);
  return names[cat];
}
