/* price: instance prices per hour by instance type and region, from the catalogue's table
 * (platforms/prices.csv) or a user's file (--price-file), and the price a job pays (docs/formats.md,
 * "Prices"). */
#ifndef SS_PRICE_H
#define SS_PRICE_H

#include "err.h"
#include "purchase.h"

#include <stddef.h>

/* The region whose price an instance file carries (zone property price_usd_per_h). */
#define SS_PRICE_DEFAULT_REGION "us-east-1"

/* The table's file name, looked for in the folder of the instance file. */
#define SS_PRICE_TABLE "prices.csv"

/* One row: the columns of the table; region, kind, date, source and status are NULL (purchase AUTO) when
 * the file has no such column. line is the row's line in its file. */
typedef struct ss_price_row {
  char* instance_type;
  char* region;
  double usd_per_h;
  char* kind;
  ss_purchase purchase; /* the kind's value; AUTO when the file has no kind column */
  char* date;           /* YYYY-MM-DD: the day the price was in effect from (or seen) */
  char* source;
  char* status; /* PUBLISHED, DERIVED or ESTIMATE */
  int line;
} ss_price_row;

typedef struct ss_prices {
  char* path;
  ss_price_row* rows;
  int nrows;
  int has_region; /* the file has a region column */
  int has_kind;   /* ... a kind column */
} ss_prices;

/* Read the price CSV at path: a header line naming its columns (instance_type and usd_per_h
 * required; region, kind, date, source and status optional, any other column refused), then one row
 * per line; fields may be quoted as RFC 4180 says. full: every column required (the catalogue's
 * table). Refuses with one line naming the file and line: a missing or unknown column, an empty
 * cell, a price that is not a number or outside SS_QTY_PRICE's bounds (0 allowed), a kind that is no
 * purchase option, a date that is not YYYY-MM-DD, a status other than PUBLISHED, DERIVED or ESTIMATE,
 * a second row of one (type, region, kind, date), a row of another number of fields. Returns 0,
 * SS_EINPUT or SS_ENOMEM (err set); on success *out owns the rows (ss_prices_free). */
int ss_prices_read(const char* path, int full, ss_prices* out, ss_err* err);

void ss_prices_free(ss_prices* p);

/* The row of (type, region, purchase) in p in effect on date: of those rows dated on or before it
 * (every row when date is NULL or the file has no date column), the latest; or NULL. A file without
 * a region column matches any region, one without a kind column any purchase, and so does AUTO. */
const ss_price_row* ss_prices_find(const ss_prices* p, const char* type, const char* region, ss_purchase purchase,
                                   const char* date);

/* Whether p has a row of region (always for a file without a region column). */
int ss_prices_has_region(const ss_prices* p, const char* region);

/* The table a run reads beside its instance file: prices.csv in the folder of platform_path, into
 * buf; returns 1, or 0 with buf "" when there is no such file. */
int ss_price_table_path(const char* platform_path, char* buf, size_t size);

/* Whether s is a date as YYYY-MM-DD (a month 01-12 and a day 01-31). */
int ss_price_date_ok(const char* s);

/* What a job's price is asked of: the instance file (its path, type, price and that price's kind),
 * the region (NULL: us-east-1), the user's price file (or NULL), the purchase option and the date
 * the prices are those of (NULL: the latest row of each). */
typedef struct ss_price_query {
  const char* platform_path;
  const char* type;
  double file_price;
  ss_purchase file_kind;
  const char* region;
  const char* price_file;
  ss_purchase purchase;
  const char* date;
} ss_price_query;

/* A price found: per instance-hour, how it is bought (never AUTO), whether it is of a region other than
 * us-east-1, and where it comes from. */
typedef struct ss_price {
  double usd_per_h;
  ss_purchase purchase;
  int other_region;
  char source[320];
} ss_price;

/* The price an instance pays per hour: price_file's row for (type, region, purchase, date) if
 * price_file is given, else the table prices.csv in the folder of platform_path (if there is one),
 * else file_price when region is us-east-1 and the purchase is the file's kind (or AUTO); else an
 * error naming the type and the region. AUTO takes on demand where a file has it, else the first
 * kind of ss_purchase after it that the file has. A region that no file read has a row of is an
 * error of its own (an unknown region), and so is a purchase option the type lacks there, naming
 * those it has. Returns 0, SS_EINPUT or SS_ENOMEM (err set). */
int ss_price_resolve(const ss_price_query* q, ss_price* out, ss_err* err);

#endif
