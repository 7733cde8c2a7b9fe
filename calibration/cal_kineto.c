/* cal_kineto: a Kineto Chrome trace read as a stream: the top-level object key by key, its
 * traceEvents array one element at a time, each value bounded in bytes and elements. */
#include "cal_kineto.h"

#include "array.h"
#include "infile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* Bounds of one JSON value (an event is a few hundred bytes): cJSON takes about 80 bytes per
 * element, and the text is held whole. */
#define RD_MAX_BYTES ((size_t)16 << 20)
#define RD_MAX_ELEMENTS 1000000L
/* Bound of a whole trace once decompressed (a gzip stream can expand a thousandfold): the time of a
 * read is linear in it. */
#define RD_MAX_TOTAL (SS_INFILE_MAX_TRACE * 4)

/* A growable byte buffer for one JSON value. */
typedef struct text {
  char* s;
  size_t n, cap;
} text;

typedef struct reader {
  gzFile f;
  const char* path;
  unsigned char buf[1 << 16];
  int len, pos;
  long line;
  int eof;
  int nul;         /* stopped at a NUL byte (JSON text has none) */
  int zerr;        /* stopped at a gzip error (zlib's code) */
  int big;         /* stopped past RD_MAX_TOTAL bytes */
  long long total; /* bytes read so far */
  text v;          /* the last value read */
} reader;

/* The next byte, or -1 at the end, a gzip error or a NUL byte (the reader stops there). */
static int rd_peek(reader* r)
{
  if (r->pos == r->len) {
    if (r->eof)
      return -1;
    r->len = gzread(r->f, r->buf, sizeof(r->buf));
    r->pos = 0;
    if (r->len > 0 && (r->total += r->len) > RD_MAX_TOTAL) {
      r->big = 1;
      r->eof = 1;
      r->len = 0;
      return -1;
    }
    if (r->len <= 0) {
      int zerr = Z_OK;
      gzerror(r->f, &zerr);
      if (r->len < 0 || (zerr != Z_OK && zerr != Z_STREAM_END))
        r->zerr = zerr != Z_OK ? zerr : Z_DATA_ERROR;
      r->eof = 1;
      r->len = 0;
      return -1;
    }
  }
  if (r->buf[r->pos] == 0) {
    r->nul = 1;
    return -1;
  }
  return r->buf[r->pos];
}

static int rd_get(reader* r)
{
  int c = rd_peek(r);
  if (c >= 0) {
    r->pos++;
    if (c == '\n')
      r->line++;
  }
  return c;
}

static int rd_skip_ws(reader* r)
{
  int c;
  while ((c = rd_peek(r)) == ' ' || c == '\n' || c == '\r' || c == '\t')
    rd_get(r);
  return c;
}

static int text_put(text* t, char c)
{
  char* grown = ss_array_grow(t->s, &t->cap, t->n + 2, 1, 4096);
  if (!grown)
    return -1;
  t->s = grown;
  t->s[t->n++] = c;
  t->s[t->n] = '\0';
  return 0;
}

/* Copy one JSON value (object, array, string, number, literal) into r->v, tracking nesting and
 * strings. Returns 0, -1 at a premature end (or NUL byte, or gzip error), -2 beyond RD_MAX_BYTES
 * or RD_MAX_ELEMENTS. */
static int rd_value(reader* r)
{
  text* out = &r->v;
  out->n = 0;
  int depth = 0, in_string = 0, escape = 0, c;
  long elements = 1;
  do {
    if ((c = rd_get(r)) < 0)
      return -1;
    if (out->n >= RD_MAX_BYTES || text_put(out, (char)c))
      return -2;
    if (in_string) {
      if (escape)
        escape = 0;
      else if (c == '\\')
        escape = 1;
      else if (c == '"')
        in_string = 0;
    } else if (c == '"') {
      in_string = 1;
    } else if (c == '{' || c == '[' || c == ',') {
      depth += c != ',';
      if (++elements > RD_MAX_ELEMENTS)
        return -2;
    } else if (c == '}' || c == ']') {
      depth--;
    }
    if (depth == 0 && !in_string) {
      /* A scalar ends before a comma, bracket or space. */
      int n = rd_peek(r);
      if (c == '}' || c == ']' || c == '"' || n < 0 || n == ',' || n == '}' || n == ']' || n == ' ' || n == '\n' ||
          n == '\r' || n == '\t')
        break;
    }
  } while (1);
  return depth == 0 && !in_string ? 0 : -1;
}

/* The error where the reader stopped: a NUL byte, a gzip error, a value too large, or what the
 * caller expected there. */
static int syntax_at(reader* r, ss_err* err, long line, int value_rc, const char* what)
{
  if (r->nul)
    return ss_err_set(err, r->path, (int)r->line, "NUL byte (a trace is JSON text)");
  if (r->big)
    return ss_err_set(err, r->path, 0, "the trace is larger than %lld GiB once decompressed", RD_MAX_TOTAL >> 30);
  if (r->zerr == Z_BUF_ERROR)
    return ss_err_set(err, r->path, 0, "truncated gzip data (the file ends inside the compressed stream)");
  if (r->zerr == Z_MEM_ERROR)
    return ss_err_nomem(err);
  if (r->zerr)
    return ss_err_set(err, r->path, 0, "corrupt gzip data");
  if (value_rc == -2)
    return ss_err_set(err, r->path, (int)line, "a JSON value larger than %zu MiB or with more than %ld elements",
                      RD_MAX_BYTES >> 20, RD_MAX_ELEMENTS);
  return ss_err_set(err, r->path, (int)line, "not a Kineto trace: %s", what);
}

static int syntax(reader* r, ss_err* err, const char* what)
{
  return syntax_at(r, err, r->line, 0, what);
}

/* Open the file and go to the start of its top-level object (after a byte order mark, blanks and
 * the '{'). */
static int rd_open(reader* r, ss_err* err)
{
  int fd = ss_infile_open(r->path, "the trace", SS_INFILE_MAX_TRACE, err);
  if (fd < 0)
    return fd;
  r->f = gzdopen(fd, "rb");
  if (!r->f) {
    close(fd);
    return ss_err_nomem(err);
  }
  size_t plen = strlen(r->path);
  if (rd_peek(r) >= 0 && gzdirect(r->f) && plen > 3 && strcmp(r->path + plen - 3, ".gz") == 0)
    return ss_err_set(err, r->path, 0, "not gzip data, though the name ends in .gz");
  if (r->len >= 3 && memcmp(r->buf, "\xef\xbb\xbf", 3) == 0)
    r->pos = 3; /* a UTF-8 byte order mark */
  if (rd_skip_ws(r) != '{')
    return r->eof && !r->zerr && !r->big && r->line == 1
               ? ss_err_set(err, r->path, 0, "empty file (expected a Kineto trace)")
               : syntax(r, err, "expected a JSON object");
  rd_get(r);
  return SS_OK;
}

/* The elements of traceEvents, from its '[' to its ']', each parsed and given to event. */
static int rd_events(reader* r, cal_kineto_event_fn event, void* ctx, ss_err* err)
{
  if (rd_get(r) != '[')
    return syntax(r, err, "traceEvents is not an array");
  for (;;) {
    int c = rd_skip_ws(r), vrc = 0;
    if (c == ']') {
      rd_get(r);
      return SS_OK;
    }
    if (c == ',') {
      rd_get(r);
      continue;
    }
    long line = r->line;
    cJSON* e = NULL;
    if (c != '{' || (vrc = rd_value(r)) || !(e = cJSON_ParseWithLength(r->v.s, r->v.n)))
      return syntax_at(r, err, line, vrc,
                       c < 0 || r->eof ? "the file ends inside traceEvents (truncated?)"
                       : c != '{'      ? "an event is not a JSON object"
                                       : "an event is malformed JSON");
    int rc = event(ctx, e, err);
    cJSON_Delete(e);
    if (rc)
      return rc;
  }
}

/* Another top-level value: skipped, but for the name of the first device of deviceProperties. */
static int rd_other(reader* r, int devices, char* device, size_t size, ss_err* err)
{
  long line = r->line;
  int vrc = rd_value(r);
  if (vrc)
    return syntax_at(r, err, line, vrc, "the file ends inside a value (truncated?)");
  cJSON* d = devices ? cJSON_ParseWithLength(r->v.s, r->v.n) : NULL;
  const cJSON* name = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(d, 0), "name");
  if (cJSON_IsString(name))
    snprintf(device, size, "%s", name->valuestring);
  cJSON_Delete(d);
  return SS_OK;
}

/* The members of the top-level object, up to its '}'; whether one was traceEvents in *saw_events. */
static int rd_members(reader* r, cal_kineto_event_fn event, void* ctx, char* device, size_t size, int* saw_events,
                      ss_err* err)
{
  for (;;) {
    int c = rd_skip_ws(r), vrc = 0;
    if (c == '}')
      return SS_OK;
    if (c == ',') {
      rd_get(r);
      continue;
    }
    if (c != '"' || (vrc = rd_value(r)))
      return syntax_at(r, err, r->line, vrc,
                       c < 0      ? "the file ends inside the top-level object (truncated?)"
                       : c == '"' ? "the file ends inside a key (truncated?)"
                                  : "expected a key");
    int events = strcmp(r->v.s, "\"traceEvents\"") == 0;
    int devices = strcmp(r->v.s, "\"deviceProperties\"") == 0;
    if (rd_skip_ws(r) != ':')
      return syntax(r, err, "expected ':' after a key");
    rd_get(r);
    rd_skip_ws(r);
    *saw_events |= events;
    int rc = events ? rd_events(r, event, ctx, err) : rd_other(r, devices, device, size, err);
    if (rc)
      return rc;
  }
}

int cal_kineto_read(const char* path, cal_kineto_event_fn event, void* ctx, char* device, size_t size, ss_err* err)
{
  reader* r = calloc(1, sizeof(reader));
  if (!r)
    return ss_err_nomem(err);
  r->path = path;
  r->line = 1;
  int saw_events = 0;
  int rc = rd_open(r, err);
  if (!rc)
    rc = rd_members(r, event, ctx, device, size, &saw_events, err);
  if (!rc) {
    rd_get(r);
    if (!saw_events)
      rc = syntax(r, err, "no traceEvents array");
    else if (rd_skip_ws(r) >= 0 || r->nul || r->zerr)
      rc = syntax(r, err, "text after the top-level object");
  }
  if (r->f)
    gzclose(r->f);
  free(r->v.s);
  free(r);
  return rc;
}
