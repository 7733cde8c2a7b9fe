/* trace: Chrome trace-event output, streamed. */
#include "trace.h"

#include "outfile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

struct ss_trace {
  char* path;
  ss_outfile* out; /* the file, written whole or not at all */
  FILE* f;         /* plain, or */
  gzFile gz;       /* gzipped, on a duplicate of out's descriptor */
  long events;
  int failed; /* errno of the first failed write, or EIO */
};

static void put(ss_trace* t, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(ss_trace* t, const char* fmt, ...)
{
  char buf[2048];
  va_list ap;
  errno = 0;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (t->failed)
    return;
  size_t len = n < 0 ? 0 : (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
  if (n < 0 || (t->gz ? gzwrite(t->gz, buf, (unsigned)len) != (int)len : fwrite(buf, 1, len, t->f) != len))
    t->failed = errno ? errno : EIO;
}

/* s as a JSON string body (quotes and backslashes escaped, control characters dropped). What does
 * not fit in size is cut on a UTF-8 character boundary and marked "..." (size >= 8). */
static void escaped(const char* s, char* out, size_t size)
{
  size_t total = 0;
  for (const char* p = s; *p; p++)
    total += (unsigned char)*p < 0x20 ? 0 : *p == '"' || *p == '\\' ? 2 : 1;
  size_t limit = total < size ? total : size - 4, n = 0;
  for (; *s; s++) {
    if ((unsigned char)*s < 0x20)
      continue;
    if (n + (*s == '"' || *s == '\\' ? 2 : 1) > limit)
      break;
    if (*s == '"' || *s == '\\')
      out[n++] = '\\';
    out[n++] = *s;
  }
  if (total > limit) {
    n = ss_utf8_boundary(out, n);
    memcpy(out + n, "...", 3);
    n += 3;
  }
  out[n] = '\0';
}

void ss_trace_name(char* buf, size_t size, const char* fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n >= size)
    ss_text_mark_cut(buf, size);
}

static int ends_with(const char* s, const char* suffix)
{
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

int ss_trace_open(const char* path, ss_trace** out, ss_err* err)
{
  ss_trace* t = calloc(1, sizeof(*t));
  /* "-" is standard output, named so in errors. */
  if (!t || !(t->path = strdup(strcmp(path, "-") == 0 ? "stdout" : path))) {
    free(t);
    return ss_err_nomem(err);
  }
  if (ss_outfile_open(path, "trace", &t->out, err)) {
    free(t->path);
    free(t);
    return SS_EIO;
  }
  t->f = ss_outfile_stream(t->out);
  errno = 0;
  if (t->f != stdout && ends_with(path, ".gz")) {
    int fd = dup(fileno(t->f));
    if (fd < 0 || !(t->gz = gzdopen(fd, "wb6"))) {
      int e = errno ? errno : ENOMEM;
      if (fd >= 0)
        close(fd);
      ss_outfile_abort(t->out);
      free(t->path);
      free(t);
      ss_err_set(err, path, 0, "cannot write the trace: %s", strerror(e));
      return SS_EIO;
    }
  }
  /* No displayTimeUnit: ts and dur are the format's microseconds, and viewers differ in what they
   * make of that key (it rescaled the timeline). */
  put(t, "{\"traceEvents\": [\n");
  *out = t;
  return SS_OK;
}

int ss_trace_close(ss_trace* t, ss_err* err)
{
  if (!t)
    return SS_OK;
  put(t, "\n]}\n");
  errno = 0;
  if (t->gz && gzclose(t->gz) != Z_OK && !t->failed)
    t->failed = errno ? errno : EIO;
  int rc = SS_OK;
  if (t->failed) {
    ss_outfile_abort(t->out);
    ss_err_set(err, t->path, 0, "cannot write the trace: %s", strerror(t->failed));
    rc = SS_EIO;
  } else {
    /* stdout is flushed, not closed: the report may follow. */
    rc = ss_outfile_commit(t->out, err);
  }
  free(t->path);
  free(t);
  return rc;
}

void ss_trace_abort(ss_trace* t)
{
  if (!t)
    return;
  if (t->gz)
    gzclose(t->gz);
  ss_outfile_abort(t->out);
  free(t->path);
  free(t);
}

/* The separator before an event: none before the first. */
static const char* sep(ss_trace* t)
{
  return t->events++ ? ",\n" : "";
}

void ss_trace_process(ss_trace* t, int pid, const char* name)
{
  char e[256];
  escaped(name, e, sizeof(e));
  put(t, "%s{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"tid\": 0, \"args\": {\"name\": \"%s\"}}", sep(t),
      pid, e);
}

void ss_trace_thread(ss_trace* t, int pid, int tid, const char* name, int sort_index)
{
  char e[256];
  escaped(name, e, sizeof(e));
  put(t, "%s{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, \"tid\": %d, \"args\": {\"name\": \"%s\"}}", sep(t),
      pid, tid, e);
  put(t, "%s{\"ph\": \"M\", \"name\": \"thread_sort_index\", \"pid\": %d, \"tid\": %d, \"args\": {\"sort_index\": %d}}",
      sep(t), pid, tid, sort_index);
}

/* A date in whole nanoseconds, the resolution of the file. */
static long long ns(double s)
{
  ss_assert(isfinite(s) && fabs(s) < 9e9);
  return llround(s * 1e9);
}

/* ns as microseconds with three exact decimals ("1064183.191"), the trace-event unit. */
static const char* us(long long v, char buf[32])
{
  snprintf(buf, 32, "%s%lld.%03lld", v < 0 ? "-" : "", llabs(v) / 1000, llabs(v) % 1000);
  return buf;
}

void ss_trace_span(ss_trace* t, int pid, int tid, const char* name, const char* cat, double start_s, double dur_s,
                   const char* detail)
{
  char n[256], d[512], ts[32], dur[32];
  escaped(name, n, sizeof(n));
  /* The start and the end are rounded, not the duration: spans that follow each other or nest in
   * the simulation still do in the file (Perfetto drops a span that overlaps its track's by 1 ns). */
  long long a = ns(start_s), b = ns(start_s + dur_s);
  us(a, ts);
  us(b > a ? b - a : 0, dur);
  if (detail) {
    escaped(detail, d, sizeof(d));
    put(t,
        "%s{\"ph\": \"X\", \"name\": \"%s\", \"cat\": \"%s\", \"pid\": %d, \"tid\": %d, \"ts\": %s, \"dur\": %s, "
        "\"args\": {\"detail\": \"%s\"}}",
        sep(t), n, cat, pid, tid, ts, dur, d);
  } else {
    put(t, "%s{\"ph\": \"X\", \"name\": \"%s\", \"cat\": \"%s\", \"pid\": %d, \"tid\": %d, \"ts\": %s, \"dur\": %s}",
        sep(t), n, cat, pid, tid, ts, dur);
  }
}

void ss_trace_counter(ss_trace* t, int pid, const char* name, double date_s, double value)
{
  char n[256], ts[32];
  escaped(name, n, sizeof(n));
  put(t, "%s{\"ph\": \"C\", \"name\": \"%s\", \"pid\": %d, \"tid\": 0, \"ts\": %s, \"args\": {\"value\": %.6g}}",
      sep(t), n, pid, us(ns(date_s), ts), value);
}
