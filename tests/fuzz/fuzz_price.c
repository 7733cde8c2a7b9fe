/* fuzz_price: libFuzzer target of the price file reader (sim/price.c): any bytes, read both as a
 * user's --price-file (full 0: instance_type and usd_per_h required) and as the catalogue's table
 * (full 1: all seven columns), must give rows that keep the contract of price.h, or one input error;
 * never a crash, a leak or unbounded memory. The table is a user's file too: what full 1 accepts,
 * full 0 accepts with the same rows. An accepted file is then looked up as a run does
 * (ss_prices_find, ss_prices_has_region, and ss_price_resolve with the input as its --price-file):
 * each row is found by its own key (type, region, kind, date), and a resolve gives the price of a row
 * of the type or one error line. */
#include "fuzz_input.h"
#include "price.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows whose lookups are checked: the first ones and the last (a lookup is linear in the rows). */
#define CHECKED_ROWS 64

/* What price.h promises of an accepted file. */
static void check_prices(const ss_prices* p, int full)
{
  ss_assert(p->path && p->nrows >= 1 && p->rows);
  for (int i = 0; i < p->nrows; i++) {
    const ss_price_row* r = &p->rows[i];
    ss_assert(r->instance_type && r->instance_type[0]);
    ss_assert(isfinite(r->usd_per_h) && ss_qty_ok(SS_QTY_PRICE, r->usd_per_h, 1));
    ss_assert(!r->region == !p->has_region && (!r->region || r->region[0]));
    ss_assert(!r->kind || r->kind[0]);
    ss_assert(!r->date || r->date[0]);
    ss_assert(!r->source || r->source[0]);
    ss_assert(!r->status || r->status[0]);
    ss_assert(!r->kind == !p->has_kind && (r->kind ? r->purchase > SS_PURCHASE_AUTO : r->purchase == SS_PURCHASE_AUTO));
    ss_assert(!r->date || ss_price_date_ok(r->date));
    ss_assert(!full || (r->region && r->kind && r->date && r->source && r->status));
    ss_assert(r->line >= 2 && (i == 0 || r->line > r[-1].line));
  }
}

/* Each checked row is the one of its (type, region, kind, date); its region is known; nothing has an
 * empty type. */
static void check_lookups(const ss_prices* p)
{
  for (int i = 0; i < p->nrows; i++) {
    if (i >= CHECKED_ROWS && i != p->nrows - 1)
      continue;
    const ss_price_row* r = &p->rows[i];
    const char* region = r->region ? r->region : SS_PRICE_DEFAULT_REGION;
    ss_assert(ss_prices_find(p, r->instance_type, region, r->purchase, r->date) == r);
    ss_assert(ss_prices_has_region(p, region));
  }
  ss_assert(!ss_prices_find(p, "", SS_PRICE_DEFAULT_REGION, SS_PURCHASE_AUTO, NULL));
  ss_assert(ss_prices_has_region(p, "") == !p->has_region);
}

/* ss_price_resolve with the input as --price-file and no table beside an instance file: the price
 * of a row of (type, region) if there is one, else one error line. */
static void check_resolve(const ss_prices* p, const char* path, const char* type, const char* region)
{
  ss_err err;
  ss_err_clear(&err);
  const ss_price_query q = {NULL, type, 1.0, SS_PURCHASE_ON_DEMAND, region, path, SS_PURCHASE_AUTO, NULL};
  ss_price out;
  int rc = ss_price_resolve(&q, &out, &err);
  const char* reg = region ? region : SS_PRICE_DEFAULT_REGION;
  const ss_price_row* r = ss_prices_find(p, type, reg, SS_PURCHASE_AUTO, NULL);
  if (rc != SS_OK) {
    ss_assert(rc == SS_EINPUT && !r);
    fuzz_check_error(&err);
    return;
  }
  int found = 0;
  for (int i = 0; i < p->nrows && !found; i++)
    found = strcmp(p->rows[i].instance_type, type) == 0 && p->rows[i].usd_per_h == out.usd_per_h;
  ss_assert(r && found && out.purchase > SS_PURCHASE_AUTO && strncmp(out.source, "--price-file ", 13) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  ss_err err;
  ss_prices user, table;
  const char* path = fuzz_input(data, size, &err);
  int user_ok = fuzz_loaded(ss_prices_read(path, 0, &user, &err), &err);
  ss_err_clear(&err);
  int table_ok = fuzz_loaded(ss_prices_read(path, 1, &table, &err), &err);
  if (table_ok) {
    check_prices(&table, 1);
    check_lookups(&table);
    ss_assert(user_ok && user.nrows == table.nrows && user.has_region == table.has_region);
    for (int i = 0; i < table.nrows; i++)
      ss_assert(strcmp(user.rows[i].instance_type, table.rows[i].instance_type) == 0 &&
                user.rows[i].usd_per_h == table.rows[i].usd_per_h);
  }
  if (user_ok) {
    check_prices(&user, 0);
    check_lookups(&user);
    const ss_price_row* first = &user.rows[0];
    check_resolve(&user, path, first->instance_type, first->region);
    check_resolve(&user, path, first->instance_type, "fuzz-region-nowhere");
    check_resolve(&user, path, "fuzz-type-nowhere", NULL);
  }
  ss_prices_free(&table);
  ss_prices_free(&user);
  return 0;
}
