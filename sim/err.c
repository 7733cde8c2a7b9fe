/* err: input-error records and internal invariants. */
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ss_err_clear(ss_err* err)
{
  if (err)
    memset(err, 0, sizeof(*err));
}

int ss_err_isset(const ss_err* err)
{
  return err && err->msg[0] != '\0';
}

static int err_vset(ss_err* err, const char* file, int line, int col, const char* path, const char* fmt,
                    va_list ap)
{
  if (!err || ss_err_isset(err))
    return SS_EINPUT;
  snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
  err->line = line;
  err->col  = col;
  snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
  vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
  if (err->msg[0] == '\0')
    snprintf(err->msg, sizeof(err->msg), "error");
  return SS_EINPUT;
}

int ss_err_set(ss_err* err, const char* file, int line, const char* fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int rc = err_vset(err, file, line, 0, NULL, fmt, ap);
  va_end(ap);
  return rc;
}

int ss_err_set_col(ss_err* err, const char* file, int line, int col, const char* fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int rc = err_vset(err, file, line, col, NULL, fmt, ap);
  va_end(ap);
  return rc;
}

int ss_err_set_path(ss_err* err, const char* file, const char* path, const char* fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int rc = err_vset(err, file, 0, 0, path, fmt, ap);
  va_end(ap);
  return rc;
}

void ss_err_format(const ss_err* err, char* buf, unsigned long size)
{
  if (!buf || size == 0)
    return;
  if (!ss_err_isset(err)) {
    snprintf(buf, size, "error: unknown error");
    return;
  }
  const char* file = err->file[0] ? err->file : "stash-sim";
  if (err->path[0])
    snprintf(buf, size, "%s: %s: %s", file, err->path, err->msg);
  else if (err->line > 0 && err->col > 0)
    snprintf(buf, size, "%s:%d:%d: error: %s", file, err->line, err->col, err->msg);
  else if (err->line > 0)
    snprintf(buf, size, "%s:%d: error: %s", file, err->line, err->msg);
  else
    snprintf(buf, size, "%s: error: %s", file, err->msg);
}

void ss_assert_fail(const char* expr, const char* file, int line)
{
  fprintf(stderr, "%s:%d: internal error: assertion '%s' failed\n", file, line, expr);
  abort();
}
