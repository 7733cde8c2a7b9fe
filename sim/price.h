/* price: instance prices per hour by instance type and region, from the catalogue's table
 * (platforms/prices.csv) or a user's file (--price-file), and the price a job pays (docs/formats.md,
 * "Prices"). */
#ifndef SS_PRICE_H
#define SS_PRICE_H

#include "err.h"

#include <stddef.h>

/* The region whose price an instance file carries (zone property price_usd_per_h). */
#define SS_PRICE_DEFAULT_REGION "us-east-1"

/* The table's file name, looked for in the folder of the instance file. */
#define SS_PRICE_TABLE "prices.csv"

/* One row: the columns of the table; region, kind, date and source are NULL when the file has no
 * such column. line is the row's line in its file. */
typedef struct ss_price_row {
  char* instance_type;
  char* region;
  double usd_per_h;
  char* kind;
  char* date;
  char* source;
  int line;
} ss_price_row;

typedef struct ss_prices {
  char* path;
  ss_price_row* rows;
  int nrows;
  int has_region; /* the file has a region column */
} ss_prices;

/* Read the price CSV at path: a header line naming its columns (instance_type and usd_per_h
 * required; region, kind, date and source optional, any other column refused), then one row per
 * line; fields may be quoted as RFC 4180 says. full: all six columns required (the catalogue's
 * table). Refuses with one line naming the file and line: a missing or unknown column, an empty
 * cell, a price that is not a number or outside SS_QTY_PRICE's bounds (0 allowed), a second row
 * of one (type, region), a row of another number of fields. Returns 0, SS_EINPUT or SS_ENOMEM
 * (err set); on success *out owns the rows (ss_prices_free). */
int ss_prices_read(const char* path, int full, ss_prices* out, ss_err* err);

void ss_prices_free(ss_prices* p);

/* The row of (type, region) in p, or NULL; a file without a region column matches any region. */
const ss_price_row* ss_prices_find(const ss_prices* p, const char* type, const char* region);

/* Whether p has a row of region (always for a file without a region column). */
int ss_prices_has_region(const ss_prices* p, const char* region);

/* The table a run reads beside its instance file: prices.csv in the folder of platform_path, into
 * buf; returns 1, or 0 with buf "" when there is no such file. */
int ss_price_table_path(const char* platform_path, char* buf, size_t size);

/* The price an instance pays per hour, and where it comes from (source, at most size bytes):
 * price_file's row for (type, region) if price_file is given, else the table prices.csv in the
 * folder of platform_path (if there is one), else file_price (the instance file's) when region is
 * us-east-1; else an error naming the type and the region. region NULL means us-east-1. A region
 * that no file read has a row of is an error of its own (an unknown region). Returns 0, SS_EINPUT
 * or SS_ENOMEM (err set). */
int ss_price_resolve(const char* platform_path, const char* type, double file_price, const char* region,
                     const char* price_file, double* usd_per_h, char* source, size_t size, ss_err* err);

#endif
