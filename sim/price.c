/* price: instance prices by type and region (price.h). */
#include "price.h"

#include "array.h"
#include "names.h"
#include "infile.h"
#include "units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The columns, by index: the table needs them all, a user's file the first two. */
enum { COL_TYPE, COL_USD, COL_REGION, COL_KIND, COL_DATE, COL_SOURCE, COL_STATUS, NCOLS };
static const char* const col_names[NCOLS] = {"instance_type", "usd_per_h", "region", "kind",
                                             "date",          "source",    "status"};
#define COL_LIST "instance_type, usd_per_h, region, kind, date, source, status"
#define KIND_LIST "on-demand, capacity-block, savings-plan-1y, savings-plan-3y or spot"

/* A row's status: what its figure is (calibration/instances_2026.md's words). */
static const char* const statuses[] = {"PUBLISHED", "DERIVED", "ESTIMATE", NULL};

/* Most fields a line may have: the six columns and a few more, so that a line with too many
 * fields is told as such. */
#define MAX_FIELDS 16

static char* read_text(const char* path, ss_err* err)
{
  int fd = ss_infile_open(path, "price file", SS_INFILE_MAX_TEXT, err);
  if (fd < 0)
    return NULL;
  size_t cap = 4096, n = 0;
  char* buf = malloc(cap + 1);
  while (buf) {
    if (n == cap) {
      char* bigger = realloc(buf, 2 * cap + 1);
      if (!bigger) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
    ssize_t got = read(fd, buf + n, cap - n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      ss_err_set(err, path, 0, "cannot read price file: %s", strerror(errno));
      free(buf);
      close(fd);
      return NULL;
    }
    if (got == 0)
      break;
    n += (size_t)got;
  }
  close(fd);
  if (!buf) {
    ss_err_nomem(err);
    return NULL;
  }
  buf[n] = '\0';
  if (strlen(buf) != n) {
    ss_err_set(err, path, 0, "not a text file (a NUL byte)");
    free(buf);
    return NULL;
  }
  return buf;
}

/* Split the line s (NUL-terminated, without its end of line) into fields in place: quoted fields
 * lose their quotes and doubled quotes, unquoted ones their surrounding blanks. Returns the count,
 * or -1 with why set. */
static int split(char* s, char** f, const char** why)
{
  int n = 0;
  char* p = s;
  for (;;) {
    if (n == MAX_FIELDS) {
      *why = "more than 16 fields";
      return -1;
    }
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p == '"') {
      char* w = ++p;
      f[n++] = w;
      for (;;) {
        if (*p == '\0') {
          *why = "a quoted field without its closing quote";
          return -1;
        }
        if (*p == '"' && p[1] == '"') {
          *w++ = '"';
          p += 2;
        } else if (*p == '"') {
          p++;
          break;
        } else
          *w++ = *p++;
      }
      char* end = w;
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p != ',' && *p != '\0') {
        *why = "text after a quoted field's closing quote";
        return -1;
      }
      int last = *p == '\0';
      *end = '\0';
      if (last)
        return n;
      p++;
    } else {
      f[n++] = p;
      char* c = strchr(p, ',');
      char* end = c ? c : p + strlen(p);
      char* t = end;
      while (t > p && (t[-1] == ' ' || t[-1] == '\t'))
        t--;
      if (memchr(p, '"', (size_t)(t - p))) {
        *why = "a quote inside an unquoted field";
        return -1;
      }
      *t = '\0';
      if (!c)
        return n;
      p = c + 1;
    }
  }
}

static int blank(const char* s)
{
  return s[strspn(s, " \t")] == '\0';
}

static int dup_field(char** dst, const char* s)
{
  *dst = strdup(s);
  return *dst ? 0 : -1;
}

void ss_prices_free(ss_prices* p)
{
  if (!p)
    return;
  for (int i = 0; i < p->nrows; i++) {
    ss_price_row* r = &p->rows[i];
    SS_FREE_ALL(r->instance_type, r->region, r->kind, r->date, r->source, r->status);
  }
  free(p->rows);
  free(p->path);
  memset(p, 0, sizeof(*p));
}

/* Parse the header line into where[] (the field index of each column, -1 if absent). */
static int header(char* s, const char* path, int full, int* where, int* nfields, ss_err* err)
{
  char* f[MAX_FIELDS];
  const char* why = NULL;
  int n = split(s, f, &why);
  if (n < 0)
    return ss_err_set(err, path, 1, "the header line: %s", why);
  for (int c = 0; c < NCOLS; c++)
    where[c] = -1;
  for (int i = 0; i < n; i++) {
    int c = 0;
    while (c < NCOLS && strcmp(f[i], col_names[c]) != 0)
      c++;
    if (c == NCOLS)
      return ss_err_set(err, path, 1, "unknown column '%s' (the columns are " COL_LIST ")", f[i]);
    if (where[c] >= 0)
      return ss_err_set(err, path, 1, "a second column '%s'", f[i]);
    where[c] = i;
  }
  for (int c = 0; c < (full ? NCOLS : 2); c++)
    if (where[c] < 0)
      return ss_err_set(err, path, 1, "the header has no column '%s'%s", col_names[c],
                        full ? " (the table needs " COL_LIST ")" : "");
  *nfields = n;
  return SS_OK;
}

int ss_price_date_ok(const char* s)
{
  for (int i = 0; i < 10; i++)
    if (i == 4 || i == 7 ? s[i] != '-' : !(s[i] >= '0' && s[i] <= '9'))
      return 0;
  int month = (s[5] - '0') * 10 + (s[6] - '0'), day = (s[8] - '0') * 10 + (s[9] - '0');
  return s[10] == '\0' && month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

static int add_row(ss_prices* p, char** f, const int* where, int line, ss_err* err)
{
  ss_price_row* r = &p->rows[p->nrows];
  memset(r, 0, sizeof(*r));
  r->line = line;
  p->nrows++; /* counted at once: what it holds is freed with the others, whatever fails below */
  char** dst[NCOLS] = {&r->instance_type, NULL, &r->region, &r->kind, &r->date, &r->source, &r->status};
  for (int c = 0; c < NCOLS; c++) {
    if (where[c] < 0)
      continue;
    const char* v = f[where[c]];
    if (v[0] == '\0')
      return ss_err_set(err, p->path, line, "the cell '%s' is empty", col_names[c]);
    if (dst[c] && dup_field(dst[c], v))
      return ss_err_nomem(err);
  }
  const char* usd = f[where[COL_USD]];
  char* end = NULL;
  errno = 0;
  double v = ss_strtod(usd, &end);
  if (end == usd || *end != '\0' || errno == ERANGE || !isfinite(v) || !ss_qty_ok(SS_QTY_PRICE, v, 1)) {
    char expects[128];
    ss_qty_expects(SS_QTY_PRICE, 1, expects, sizeof(expects));
    return ss_err_set(err, p->path, line, "usd_per_h: expected %s, got '%s'", expects, usd);
  }
  r->usd_per_h = v;
  if (r->kind) {
    int k = ss_purchase_kind(r->kind);
    if (k < 0)
      return ss_err_set(err, p->path, line, "kind: expected " KIND_LIST ", got '%s'", r->kind);
    r->purchase = (ss_purchase)k;
  }
  if (r->date && !ss_price_date_ok(r->date))
    return ss_err_set(err, p->path, line, "date: expected the day the price holds from as YYYY-MM-DD, got '%s'",
                      r->date);
  int known = !r->status;
  for (int i = 0; !known && statuses[i]; i++)
    known = strcmp(r->status, statuses[i]) == 0;
  if (!known)
    return ss_err_set(err, p->path, line, "status: expected PUBLISHED, DERIVED or ESTIMATE, got '%s'", r->status);
  return SS_OK;
}

/* A second row of one (type, region, kind, date): the earliest such row in the file is the error,
 * naming the first of its key. Through a hash set of the keys (ss_names): linear in the rows. */
static int check_duplicates(const ss_prices* p, ss_err* err)
{
  ss_names keys = {0};
  int* first = malloc(sizeof(*first) * (size_t)(p->nrows ? p->nrows : 1));
  int rc = first ? SS_OK : ss_err_nomem(err);
  for (int i = 0; !rc && i < p->nrows; i++) {
    const ss_price_row* r = &p->rows[i];
    /* No cell holds a newline (the file is split into lines first): type NL region NL kind NL date is
     * the key. */
    const char* region = r->region ? r->region : "";
    const char* kind = r->kind ? r->kind : "";
    const char* date = r->date ? r->date : "";
    size_t len = strlen(r->instance_type) + strlen(region) + strlen(kind) + strlen(date) + 4;
    char* key = malloc(len);
    if (!key) {
      rc = ss_err_nomem(err);
      break;
    }
    snprintf(key, len, "%s\n%s\n%s\n%s", r->instance_type, region, kind, date);
    int added = 0, k = ss_names_add(&keys, key, &added);
    free(key);
    if (k < 0)
      rc = ss_err_nomem(err);
    else if (added)
      first[k] = i;
    else
      rc = ss_err_set(err, p->path, r->line, "a second row of %s%s%s%s%s%s%s (the first is on line %d)",
                      r->instance_type, r->region ? " in " : "", region, r->kind ? ", " : "", kind,
                      r->date ? " on " : "", date, p->rows[first[k]].line);
  }
  free(first);
  ss_names_free(&keys);
  return rc;
}

int ss_prices_read(const char* path, int full, ss_prices* out, ss_err* err)
{
  memset(out, 0, sizeof(*out));
  char* text = read_text(path, err);
  if (!text)
    return ss_err_isset(err) && err->code ? err->code : SS_EINPUT;
  out->path = strdup(path);
  size_t lines = 1;
  for (const char* c = text; *c; c++)
    lines += *c == '\n';
  out->rows = calloc(lines, sizeof(*out->rows));
  if (!out->path || !out->rows) {
    free(text);
    ss_prices_free(out);
    return ss_err_nomem(err);
  }
  int where[NCOLS], nfields = 0, have_header = 0, rc = SS_OK;
  /* A spreadsheet's UTF-8 byte order mark before the header is not part of it. */
  char* s = strncmp(text, "\xEF\xBB\xBF", 3) == 0 ? text + 3 : text;
  for (int line = 1; s && !rc; line++) {
    char* nl = strchr(s, '\n');
    if (nl)
      *nl = '\0';
    size_t len = strlen(s);
    if (len > 0 && s[len - 1] == '\r')
      s[len - 1] = '\0';
    if (!blank(s)) {
      if (!have_header) {
        rc = header(s, path, full, where, &nfields, err);
        have_header = 1;
      } else {
        char* f[MAX_FIELDS];
        const char* why = NULL;
        int n = split(s, f, &why);
        if (n < 0)
          rc = ss_err_set(err, path, line, "%s", why);
        else if (n != nfields)
          rc = ss_err_set(err, path, line, "%d field%s, the header has %d", n, n == 1 ? "" : "s", nfields);
        else
          rc = add_row(out, f, where, line, err);
      }
    }
    s = nl ? nl + 1 : NULL;
  }
  free(text);
  if (!rc && have_header)
    rc = check_duplicates(out, err);
  if (!rc && !have_header)
    rc = ss_err_set(err, path, 0, "no header line (the columns are " COL_LIST ")");
  else if (!rc && out->nrows == 0)
    rc = ss_err_set(err, path, 0, "no price rows after the header");
  out->has_region = where[COL_REGION] >= 0;
  out->has_kind = where[COL_KIND] >= 0;
  if (rc)
    ss_prices_free(out);
  return rc;
}

/* Whether row r is of (type, region, purchase) and in effect on date (NULL: any). */
static int row_matches(const ss_prices* p, const ss_price_row* r, const char* type, const char* region,
                       ss_purchase purchase, const char* date)
{
  return strcmp(r->instance_type, type) == 0 && (!p->has_region || strcmp(r->region, region) == 0) &&
         (!p->has_kind || purchase == SS_PURCHASE_AUTO || r->purchase == purchase) &&
         (!date || !r->date || strcmp(r->date, date) <= 0);
}

const ss_price_row* ss_prices_find(const ss_prices* p, const char* type, const char* region, ss_purchase purchase,
                                   const char* date)
{
  const ss_price_row* best = NULL;
  for (int i = 0; i < p->nrows; i++) {
    const ss_price_row* r = &p->rows[i];
    /* ISO dates compare as strings; of two rows of one day (other kinds under AUTO), the first. */
    if (row_matches(p, r, type, region, purchase, date) && (!best || (r->date && strcmp(r->date, best->date) > 0)))
      best = r;
  }
  return best;
}

int ss_prices_has_region(const ss_prices* p, const char* region)
{
  if (!p->has_region)
    return 1;
  for (int i = 0; i < p->nrows; i++)
    if (strcmp(p->rows[i].region, region) == 0)
      return 1;
  return 0;
}

/* Append to buf (n bytes used of size) the regions of p not in it yet, comma-separated. */
static void add_regions(const ss_prices* p, char* buf, size_t size)
{
  for (int i = 0; p->has_region && i < p->nrows; i++) {
    const char* r = p->rows[i].region;
    size_t n = strlen(buf), len = strlen(r);
    int seen = 0;
    for (const char* c = strstr(buf, r); c && !seen; c = strstr(c + 1, r))
      seen = (c == buf || c[-1] == ' ') && (c[len] == ',' || c[len] == '\0');
    if (!seen && n + len + 3 < size)
      snprintf(buf + n, size - n, "%s%s", n ? ", " : "", r);
  }
}

int ss_price_table_path(const char* platform_path, char* buf, size_t size)
{
  buf[0] = '\0';
  if (!platform_path)
    return 0;
  const char* slash = strrchr(platform_path, '/');
  int dir = slash ? (int)(slash - platform_path) : 1;
  int w = snprintf(buf, size, "%.*s/%s", dir, slash ? platform_path : ".", SS_PRICE_TABLE);
  if (w < 0 || (size_t)w >= size) {
    buf[0] = '\0';
    return 0;
  }
  struct stat st;
  if (stat(buf, &st) != 0) {
    buf[0] = '\0';
    return 0;
  }
  return 1;
}

/* A --price-file with no row of (type, region), where the table or the instance file would set the
 * price, silently: an error naming the types it holds. */
static int no_row(const ss_prices* user, const char* price_file, const char* type, const char* reg, ss_err* err)
{
  /* Its regions of the type, if any; else its instance types. */
  char list[256] = "";
  int of_type = 0;
  for (int pass = 0; pass < 2 && !list[0]; pass++)
    for (int i = 0; i < user->nrows; i++) {
      const ss_price_row* r = &user->rows[i];
      if (pass == 0 && (!user->has_region || strcmp(r->instance_type, type) != 0))
        continue;
      const char* item = pass == 0 ? r->region : r->instance_type;
      size_t n = strlen(list);
      if (n + strlen(item) + 8 >= sizeof(list)) {
        snprintf(list + n, sizeof(list) - n, ", ...");
        break;
      }
      snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", item);
      of_type = pass == 0;
    }
  if (of_type)
    return ss_err_set(err, price_file, 0, "--price-file has no row for %s in %s (its rows of %s are for %s)", type, reg,
                      type, list);
  return ss_err_set(err, price_file, 0,
                    "--price-file has no row for %s (its instance types: %s; a row names the type as the instance "
                    "file does, as p3.8xlarge)",
                    type, list);
}

/* The row q asks of p in region reg: its purchase option, or under AUTO on demand, else the first
 * kind after it that p has (any row of a file without kinds). */
static const ss_price_row* pick(const ss_prices* p, const ss_price_query* q, const char* reg)
{
  if (q->purchase != SS_PURCHASE_AUTO || !p->has_kind)
    return ss_prices_find(p, q->type, reg, q->purchase, q->date);
  for (int k = SS_PURCHASE_ON_DEMAND; k < SS_PURCHASE_COUNT; k++) {
    const ss_price_row* r = ss_prices_find(p, q->type, reg, (ss_purchase)k, q->date);
    if (r)
      return r;
  }
  return NULL;
}

/* The purchase options p has for the type in reg on q's date, "a, b" into buf (size > 0). */
static void kinds_of(const ss_prices* p, const ss_price_query* q, const char* reg, char* buf, size_t size)
{
  buf[0] = '\0';
  for (int k = SS_PURCHASE_ON_DEMAND; k < SS_PURCHASE_COUNT; k++)
    if (ss_prices_find(p, q->type, reg, (ss_purchase)k, q->date)) {
      size_t n = strlen(buf);
      snprintf(buf + n, size - n, "%s%s", n ? ", " : "", ss_purchase_names[k]);
    }
}

/* The errors of a file (where) that prices the type in reg but not as q asks: another purchase
 * option only, or rows dated after q's date only. */
static int lacks(const ss_prices* p, const char* where, const ss_price_query* q, const char* reg, ss_err* err)
{
  char kinds[128];
  kinds_of(p, q, reg, kinds, sizeof(kinds));
  if (!kinds[0]) {
    const ss_price_row* first = NULL;
    for (int i = 0; i < p->nrows; i++)
      if (row_matches(p, &p->rows[i], q->type, reg, SS_PURCHASE_AUTO, NULL) &&
          (!first || strcmp(p->rows[i].date, first->date) < 0))
        first = &p->rows[i];
    return ss_err_set(err, NULL, 0, "--price-date %s: %s has no price in %s on or before it in %s (its first is of %s)",
                      q->date, q->type, reg, where, first && first->date ? first->date : "later");
  }
  return ss_err_set(err, NULL, 0, "--purchase %s: %s has no %s price in %s in %s%s%s (its purchase options there: %s)",
                    ss_purchase_names[q->purchase], q->type, ss_purchase_names[q->purchase], reg, where,
                    q->date ? " on or before " : "", q->date ? q->date : "", kinds);
}

/* out from row r of file p, read as source (a row of a file without kinds is of q's purchase,
 * on demand under AUTO). */
static void take(const ss_prices* p, const ss_price_row* r, const ss_price_query* q, const char* source, ss_price* out)
{
  out->usd_per_h = r->usd_per_h;
  out->purchase = p->has_kind ? r->purchase : q->purchase != SS_PURCHASE_AUTO ? q->purchase : SS_PURCHASE_ON_DEMAND;
  snprintf(out->source, sizeof(out->source), "%s%s%s%s%s%s%s%s%s", source, p->has_region ? " " : "",
           p->has_region ? r->region : "", r->date ? " " : "", r->date ? r->date : "", " ",
           ss_purchase_names[out->purchase], r->status && strcmp(r->status, "PUBLISHED") != 0 ? " " : "",
           r->status && strcmp(r->status, "PUBLISHED") != 0 ? r->status : "");
}

/* The region of the first row of type in p, or NULL (a file without regions has none). */
static const char* first_region(const ss_prices* p, const char* type)
{
  for (int i = 0; p->has_region && i < p->nrows; i++)
    if (strcmp(p->rows[i].instance_type, type) == 0)
      return p->rows[i].region;
  return NULL;
}

int ss_price_resolve(const ss_price_query* q, ss_price* out, ss_err* err)
{
  const char* price_file = q->price_file;
  ss_prices user = {0}, table = {0};
  char tpath[4096] = "";
  int rc = SS_OK;
  memset(out, 0, sizeof(*out));
  if (q->date && !ss_price_date_ok(q->date))
    return ss_err_set(err, NULL, 0, "--price-date expects a day as YYYY-MM-DD, got '%s'", q->date);
  if (price_file && (rc = ss_prices_read(price_file, 0, &user, err)))
    return rc;
  if (ss_price_table_path(q->platform_path, tpath, sizeof(tpath)) && (rc = ss_prices_read(tpath, 1, &table, err))) {
    ss_prices_free(&user);
    return rc;
  }
  /* No --region: us-east-1, unless the table has no row of the type there and has some elsewhere
   * (types sold only in other regions or zones, as p5e and p6e-gb200): its first such region. A
   * user's price file is taken at its word: its rows of other regions need --region. */
  const char* reg = q->region;
  if (!reg && !price_file && !ss_prices_find(&table, q->type, SS_PRICE_DEFAULT_REGION, SS_PURCHASE_AUTO, NULL))
    reg = first_region(&table, q->type);
  if (!reg)
    reg = SS_PRICE_DEFAULT_REGION;
  int known = strcmp(reg, SS_PRICE_DEFAULT_REGION) == 0;
  out->other_region = !known;
  if (price_file) {
    const ss_price_row* r = pick(&user, q, reg);
    if (r || ss_prices_find(&user, q->type, reg, SS_PURCHASE_AUTO, NULL)) {
      char src[300];
      snprintf(src, sizeof(src), "--price-file %s", price_file);
      if (r)
        take(&user, r, q, src, out);
      else
        rc = lacks(&user, price_file, q, reg, err);
      ss_prices_free(&user);
      ss_prices_free(&table);
      return rc;
    }
    known = known || ss_prices_has_region(&user, reg);
  }
  if (tpath[0]) {
    const ss_price_row* r = pick(&table, q, reg);
    int of_type = ss_prices_find(&table, q->type, reg, SS_PURCHASE_AUTO, NULL) != NULL;
    if (of_type && price_file) {
      rc = no_row(&user, price_file, q->type, reg, err);
    } else if (of_type) {
      if (r)
        take(&table, r, q, SS_PRICE_TABLE, out);
      else
        rc = lacks(&table, tpath, q, reg, err);
      ss_prices_free(&user);
      ss_prices_free(&table);
      return rc;
    }
    known = known || ss_prices_has_region(&table, reg);
  }
  char where[4200];
  snprintf(where, sizeof(where), "%s%s%s", price_file ? price_file : "", price_file && tpath[0] ? " and " : "",
           tpath[0] ? tpath : "");
  int east = strcmp(reg, SS_PRICE_DEFAULT_REGION) == 0;
  if (rc) {
    /* the table had the row, the price file did not: no_row's error */
  } else if (price_file && (east || known)) {
    rc = no_row(&user, price_file, q->type, reg, err);
  } else if (east && (q->purchase == SS_PURCHASE_AUTO || q->purchase == q->file_kind)) {
    out->usd_per_h = q->file_price;
    out->purchase = q->file_kind;
    snprintf(out->source, sizeof(out->source), "instance file %s", ss_purchase_names[q->file_kind]);
  } else if (east) {
    rc = ss_err_set(err, NULL, 0,
                    "--purchase %s: %s has no %s price: its instance file prices it as %s, and no price table has "
                    "a row of it (give one with --price-file FILE)",
                    ss_purchase_names[q->purchase], q->type, ss_purchase_names[q->purchase],
                    ss_purchase_names[q->file_kind]);
  } else if (!known) {
    char regions[1024] = SS_PRICE_DEFAULT_REGION;
    add_regions(&user, regions, sizeof(regions));
    add_regions(&table, regions, sizeof(regions));
    rc = ss_err_set(err, NULL, 0, "--region %s: unknown region: no price of it in %s (regions known: %s)", reg,
                    where[0] ? where : "the instance file (us-east-1 only; no prices.csv next to it)", regions);
  } else {
    rc = ss_err_set(err, NULL, 0, "no price for %s in %s: no row of it in %s (give one with --price-file FILE)",
                    q->type, reg, where);
  }
  ss_prices_free(&user);
  ss_prices_free(&table);
  return rc;
}
