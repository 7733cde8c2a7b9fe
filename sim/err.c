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

/* The length of the UTF-8 sequence that lead byte c starts (1 for ASCII and stray bytes). */
static unsigned long utf8_len(unsigned char c)
{
  return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

unsigned long ss_utf8_boundary(const char* s, unsigned long n)
{
  unsigned long m = n;
  while (m > 0 && ((unsigned char)s[m - 1] & 0xc0) == 0x80)
    m--;
  if (m > 0 && (unsigned char)s[m - 1] >= 0xc0 && n - (m - 1) < utf8_len((unsigned char)s[m - 1]))
    return m - 1;
  return n;
}

void ss_text_mark_cut(char* buf, unsigned long size)
{
  if (size < 8)
    return;
  memcpy(buf + ss_utf8_boundary(buf, size - 4), "...", 4);
}

static int err_vset(ss_err* err, const char* file, int line, int col, const char* path, const char* fmt, va_list ap)
{
  if (!err || ss_err_isset(err))
    return SS_EINPUT;
  if (snprintf(err->file, sizeof(err->file), "%s", file ? file : "") >= (int)sizeof(err->file))
    ss_text_mark_cut(err->file, sizeof(err->file));
  err->line = line;
  err->col = col;
  if (snprintf(err->path, sizeof(err->path), "%s", path ? path : "") >= (int)sizeof(err->path))
    ss_text_mark_cut(err->path, sizeof(err->path));
  if (vsnprintf(err->msg, sizeof(err->msg), fmt, ap) >= (int)sizeof(err->msg))
    ss_text_mark_cut(err->msg, sizeof(err->msg));
  if (err->msg[0] == '\0')
    snprintf(err->msg, sizeof(err->msg), "error");
  err->code = SS_EINPUT;
  return SS_EINPUT;
}

int ss_err_nomem(ss_err* err)
{
  if (err && !ss_err_isset(err)) {
    ss_err_set(err, NULL, 0, "out of memory");
    err->code = SS_ENOMEM;
  }
  return SS_ENOMEM;
}

int ss_err_nomem_if(ss_err* err, int rc)
{
  return rc == SS_ENOMEM ? ss_err_nomem(err) : rc;
}

int ss_err_kind(ss_err* err, int code)
{
  if (err)
    err->code = code;
  return code;
}

int ss_err_exit_code(const ss_err* err)
{
  switch (err ? err->code : SS_EINPUT) {
    case SS_OK: return SS_EXIT_OK;
    case SS_ENOMEM:
    case SS_EIO:
    case SS_ESYS: return SS_EXIT_RESOURCE;
    case SS_ESIM: return SS_EXIT_INTERNAL;
  }
  return SS_EXIT_INPUT;
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

/* Copy src to dst (size bytes at most, NUL included) with control characters written as escapes
 * (\n, \t, \r, \xHH): a message may quote the input, and an error must stay one line. */
void ss_text_escape(char* dst, unsigned long size, const char* src)
{
  unsigned long n = 0;
  for (const unsigned char* s = (const unsigned char*)src; *s; s++) {
    char esc[5];
    if (*s >= 0x20 && *s != 0x7f)
      snprintf(esc, sizeof(esc), "%c", *s);
    else if (*s == '\n' || *s == '\t' || *s == '\r')
      snprintf(esc, sizeof(esc), "\\%c", *s == '\n' ? 'n' : *s == '\t' ? 't' : 'r');
    else
      snprintf(esc, sizeof(esc), "\\x%02x", *s);
    size_t m = strlen(esc);
    if (n + m >= size)
      break;
    memcpy(dst + n, esc, m);
    n += m;
  }
  dst[n] = '\0';
}

/* The running program's name (ss_err_on_exit): an error without a file names it. */
static const char* exit_prog = "stash-sim";
static void (*exit_cleanup)(void);

void ss_err_format(const ss_err* err, char* buf, unsigned long size)
{
  if (!buf || size == 0)
    return;
  if (!ss_err_isset(err)) {
    snprintf(buf, size, "error: unknown error");
    return;
  }
  char line[SS_ERR_FILE_MAX + SS_ERR_PATH_MAX + SS_ERR_MSG_MAX + 64];
  const char* file = err->file[0] ? err->file : exit_prog;
  if (err->path[0])
    snprintf(line, sizeof(line), "%s: %s: %s", file, err->path, err->msg);
  else if (err->line > 0 && err->col > 0)
    snprintf(line, sizeof(line), "%s:%d:%d: error: %s", file, err->line, err->col, err->msg);
  else if (err->line > 0)
    snprintf(line, sizeof(line), "%s:%d: error: %s", file, err->line, err->msg);
  else
    snprintf(line, sizeof(line), "%s: error: %s", file, err->msg);
  ss_text_escape(buf, size, line);
}

void ss_err_on_exit(const char* prog, void (*cleanup)(void))
{
  exit_prog = prog;
  exit_cleanup = cleanup;
}

void ss_nomem_exit(const char* what)
{
  fprintf(stderr, "%s: error: out of memory for %s: give fewer --iterations, --instances or --gpus\n", exit_prog, what);
  fflush(stderr);
  if (exit_cleanup)
    exit_cleanup();
  _Exit(SS_EXIT_RESOURCE);
}

void ss_assert_fail(const char* expr, const char* file, int line)
{
  if (exit_cleanup)
    exit_cleanup();
  fprintf(stderr, "%s:%d: internal error: assertion '%s' failed (a bug: please report it)\n", file, line, expr);
  fflush(stderr);
  _Exit(SS_EXIT_INTERNAL);
}
