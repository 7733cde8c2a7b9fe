/* category: the names of the categories of an iteration's time, one row each. */
#include "category.h"

#include "err.h"

#include <string.h>

static const ss_category categories[SS_CAT_COUNT] = {
    [SS_CAT_COMPUTE] = {"compute", "compute", "compute", "wait for host"},
    [SS_CAT_PREP] = {"prep_stall", "prep (CPU) stall", "prep (CPU)", "wait for data (CPU, host)"},
    [SS_CAT_FETCH] = {"fetch_stall", "fetch (disk) stall", "fetch (disk)", "wait for data (storage, host)"},
    [SS_CAT_INTERCONNECT] = {"interconnect_stall", "interconnect stall", "interconnect",
                             "wait for host (.item(), interconnect)"},
    [SS_CAT_NETWORK] = {"network_stall", "network stall", "network", "wait for host (.item(), network)"},
    [SS_CAT_HOST] = {"host_stall", "host stall", "host", "wait for host (issuing)"},
};

static const char* const detail_names[SS_DETAIL_COUNT] = {"interference", "straggler"};

const ss_category* ss_category_of(ss_cat c)
{
  ss_assert(c >= 0 && c < SS_CAT_COUNT);
  return &categories[c];
}

const char* ss_cat_name(ss_cat cat)
{
  return ss_category_of(cat)->name;
}

const char* ss_detail_name(ss_detail d)
{
  ss_assert(d >= 0 && d < SS_DETAIL_COUNT);
  return detail_names[d];
}

void ss_category_list(FILE* f, int json)
{
  if (json)
    fprintf(f, "[\n");
  for (int c = 0; c < SS_CAT_COUNT; c++) {
    const ss_category* k = &categories[c];
    if (json)
      fprintf(f, "  {\"name\": \"%s\", \"key\": \"%s_s\", \"label\": \"%s\", \"word\": \"%s\", \"host_wait\": \"%s\"}%s\n",
              k->name, k->name, k->label, k->word, k->host_wait, c + 1 < SS_CAT_COUNT ? "," : "");
    else
      fprintf(f, "%-20s %s_s%*s %s\n", k->name, k->name, (int)(20 - strlen(k->name)), "", k->label);
  }
  if (json)
    fprintf(f, "]\n");
}
