/* category: the names of the categories of an iteration's time, one row each. */
#include "category.h"

#include "csv.h"
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
    [SS_CAT_BUBBLE] = {"bubble", "pipeline bubble", "bubble", "wait for host (pipeline bubble)"},
};

static const char* const detail_names[SS_DETAIL_COUNT] = {"interference", "straggler",     "tensor_parallel",
                                                          "pipeline_p2p", "data_parallel", "all_to_all"};

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

/* The table as JSON: an array of {name, key, label, word, host_wait}. */
static void write_json(FILE* f)
{
  fputc('[', f);
  for (int c = 0; c < SS_CAT_COUNT; c++) {
    const ss_category* k = &categories[c];
    char key[64];
    snprintf(key, sizeof(key), "%s_s", k->name);
    fprintf(f, "%s\n  {\"name\": ", c ? "," : "");
    ss_json_string(f, k->name);
    fputs(", \"key\": ", f);
    ss_json_string(f, key);
    fputs(", \"label\": ", f);
    ss_json_string(f, k->label);
    fputs(", \"word\": ", f);
    ss_json_string(f, k->word);
    fputs(", \"host_wait\": ", f);
    ss_json_string(f, k->host_wait);
    fputc('}', f);
  }
  fputs("\n]\n", f);
}

/* {"categories": [...]}: the object csv.c makes a line per element of. */
static void write_json_object(FILE* f, const void* arg)
{
  (void)arg;
  fputs("{\"categories\": ", f);
  write_json(f);
  fputs("}\n", f);
}

static int max_int(int a, int b)
{
  return a > b ? a : b;
}

/* Aligned columns: name, key, label, word, host wait. */
static void write_table(FILE* f)
{
  int wn = 0, wl = 0, ww = 0;
  for (int c = 0; c < SS_CAT_COUNT; c++) {
    wn = max_int(wn, (int)strlen(categories[c].name));
    wl = max_int(wl, (int)strlen(categories[c].label));
    ww = max_int(ww, (int)strlen(categories[c].word));
  }
  for (int c = 0; c < SS_CAT_COUNT; c++) {
    const ss_category* k = &categories[c];
    fprintf(f, "%-*s  %s_s%*s  %-*s  %-*s  %s\n", wn, k->name, k->name, wn - (int)strlen(k->name), "", wl, k->label, ww,
            k->word, k->host_wait);
  }
}

int ss_category_list(FILE* f, ss_format fmt)
{
  int rc = SS_OK;
  if (fmt == SS_FORMAT_JSON)
    write_json(f);
  else if (fmt == SS_FORMAT_CSV)
    rc = ss_csv_write_from(f, write_json_object, NULL, "categories");
  else
    write_table(f);
  return rc ? rc : ferror(f) ? SS_EIO : SS_OK;
}
