/* cal_text: numbered lines of a text file, strict numbers, fields, outputs (stash-calibrate). */
#include "cal_text.h"

#include "cal_cli.h"
#include "infile.h"
#include "outfile.h"
#include "workload.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cal_lines_read(const char* path, const char* what, cal_lines* out, ss_err* err)
{
  memset(out, 0, sizeof(*out));
  int fd = ss_infile_open(path, what, SS_INFILE_MAX_TEXT, err);
  if (fd < 0)
    return fd;
  FILE* f = fdopen(fd, "rb");
  if (!f) {
    close(fd);
    return ss_err_nomem(err);
  }
  size_t cap = 1 << 16, n = 0;
  char* buf = malloc(cap + 1);
  int rc = buf ? SS_OK : ss_err_nomem(err);
  while (!rc) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) {
      if (ferror(f))
        rc = ss_err_set(err, path, 0, "cannot read %s: %s", what, strerror(errno));
      break;
    }
    char* bigger = realloc(buf, 2 * cap + 1);
    if (!bigger)
      rc = ss_err_nomem(err);
    else
      buf = bigger, cap *= 2;
  }
  fclose(f);
  int nlines = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    if (buf[i] == '\0') {
      int line = 1;
      for (size_t k = 0; k < i; k++)
        line += buf[k] == '\n';
      rc = ss_err_set(err, path, line, "a NUL byte: this is not a text file");
    }
    nlines += buf[i] == '\n';
  }
  char** line = rc ? NULL : malloc(sizeof(char*) * ((size_t)nlines + 1));
  if (!rc && !line)
    rc = ss_err_nomem(err);
  if (rc) {
    free(buf);
    return rc;
  }
  buf[n] = '\0';
  int k = 0;
  char* start = buf;
  for (size_t i = 0; i <= n; i++) {
    if (i < n && buf[i] != '\n')
      continue;
    if (i == n && start == buf + n)
      break; /* the file ends with a newline (or is empty) */
    buf[i] = '\0';
    if (buf + i > start && buf[i - 1] == '\r')
      buf[i - 1] = '\0';
    line[k++] = start;
    start = buf + i + 1;
  }
  out->buf = buf;
  out->line = line;
  out->n = k;
  return SS_OK;
}

void cal_lines_free(cal_lines* l)
{
  if (!l)
    return;
  free(l->line);
  free(l->buf);
  memset(l, 0, sizeof(*l));
}

int cal_fields(char* s, char** tok, int max)
{
  int n = 0;
  while (*s) {
    while (*s == ' ' || *s == '\t')
      *s++ = '\0';
    if (!*s)
      break;
    if (n < max)
      tok[n] = s;
    n++;
    while (*s && *s != ' ' && *s != '\t')
      s++;
  }
  return n;
}

int cal_words(char* s, char** tok, int max)
{
  int n = 0;
  char* out = s; /* words are written back over the text, each ended by a NUL */
  while (*s) {
    if (*s == ' ' || *s == '\t') {
      s++;
      continue;
    }
    char* word = out;
    while (*s && *s != ' ' && *s != '\t') {
      if (*s == '\'') {
        for (s++; *s && *s != '\'';)
          *out++ = *s++;
        if (!*s)
          return -1;
        s++;
      } else if (*s == '"') {
        for (s++; *s && *s != '"';) {
          if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
            s++;
          *out++ = *s++;
        }
        if (!*s)
          return -1;
        s++;
      } else if (*s == '\\') {
        if (!s[1])
          return -1;
        s++;
        *out++ = *s++;
      } else {
        *out++ = *s++;
      }
    }
    /* The word's end: s has moved past at least as many characters as out, so this NUL is
     * written at or before the character s points at, which is a blank or the end. */
    char* next = s;
    if (*s)
      next++;
    *out++ = '\0';
    if (n < max)
      tok[n] = word;
    n++;
    s = next;
  }
  return n;
}

int cal_number(const char* s, double* out)
{
  char* end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  /* strtod also skips leading spaces and reads "inf" and "nan": not numbers of a measurement */
  int starts = (*s >= '0' && *s <= '9') || *s == '-' || *s == '+' || *s == '.';
  if (!starts || end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
    return -1;
  *out = v;
  return 0;
}

int cal_integer(const char* s, long long* out)
{
  char* end = NULL;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  int starts = (*s >= '0' && *s <= '9') || *s == '-' || *s == '+';
  if (!starts || end == s || *end != '\0' || errno == ERANGE)
    return -1;
  *out = v;
  return 0;
}

int cal_check_output(const char* cmd, const char* opt, const char* path, const cal_named* inputs, int n)
{
  for (int i = 0; path && i < n; i++)
    if (inputs[i].path && ss_outfile_same(path, inputs[i].path))
      return cal_usage_error(cmd, "%s '%s' would overwrite %s '%s'", opt, path, inputs[i].what, inputs[i].path);
  return 0;
}

/* Print err's line; returns its exit status. */
static int print_err(const ss_err* err)
{
  char line[2048];
  ss_err_format(err, line, sizeof(line));
  fprintf(stderr, "%s\n", line);
  return ss_err_exit_code(err);
}

ss_outfile* cal_open_output(const char* path, int* status)
{
  ss_err err;
  ss_err_clear(&err);
  ss_outfile* f = NULL;
  if (ss_outfile_open(path, "output", &f, &err))
    *status = print_err(&err);
  return f;
}

int cal_close_output(ss_outfile* f, int status)
{
  if (!f)
    return status;
  if (status) {
    ss_outfile_abort(f);
    return status;
  }
  ss_err err;
  ss_err_clear(&err);
  return ss_outfile_commit(f, &err) ? print_err(&err) : 0;
}

/* Check text as stash-sim would read it before it goes to standard output (no file to read back):
 * through a scratch file of its own, removed after. 0, or the reader's error with the scratch file's
 * name left for the caller to replace. */
static int check_scratch(const char* text, cal_check_fn check, char* scratch, size_t size, ss_err* err)
{
  const char* dir = getenv("TMPDIR");
  snprintf(scratch, size, "%s/stash-calibrate.XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(scratch);
  if (fd < 0)
    return SS_OK; /* nowhere to check: written unchecked, as before */
  FILE* f = fdopen(fd, "w");
  int ok = f && fprintf(f, "%s\n", text) >= 0 && fflush(f) == 0;
  int rc = ok ? check(scratch, err) : SS_OK;
  if (f)
    fclose(f);
  else
    close(fd);
  unlink(scratch);
  return rc;
}

int cal_write_json(const cJSON* j, const char* path, cal_check_fn check, ss_err* err)
{
  char* text = cJSON_Print(j);
  if (!text)
    return ss_err_nomem(err);
  int status = 1;
  ss_outfile* out = cal_open_output(path, &status);
  if (out) {
    /* What is written must be what stash-sim takes: read the temporary file back (or the file
     * itself when it is written directly and is a file: a memfd's /proc/self/fd/N); what goes to
     * standard output is checked first, through a scratch file. */
    int to_stdout = ss_outfile_stream(out) == stdout;
    char scratch[4096];
    int refused = check && to_stdout && check_scratch(text, check, scratch, sizeof(scratch), err);
    status = refused ? SS_EINPUT : 0;
    if (!refused) {
      /* A failed write shows in the commit (the stream's error flag). */
      fprintf(ss_outfile_stream(out), "%s\n", text);
      struct stat st;
      const char* written = ss_outfile_temp(out)                                        ? ss_outfile_temp(out)
                            : !to_stdout && stat(path, &st) == 0 && S_ISREG(st.st_mode) ? path
                                                                                        : NULL;
      refused = check && written && fflush(ss_outfile_stream(out)) == 0 && check(written, err);
    }
    if (refused) {
      status = SS_EINPUT;
      /* name the output, not its temporary or scratch file */
      if (to_stdout && strcmp(err->file, scratch) == 0)
        snprintf(err->file, sizeof(err->file), "stdout");
      else if (ss_outfile_temp(out) && strcmp(err->file, ss_outfile_temp(out)) == 0)
        snprintf(err->file, sizeof(err->file), "%s", path);
    }
    if (status)
      ss_outfile_abort(out);
    else
      status = cal_close_output(out, 0);
  }
  free(text);
  return status;
}

int cal_write_workload(const cJSON* j, const char* path, const char* in, ss_err* err)
{
  ss_err why;
  ss_err_clear(&why);
  int rc = cal_write_json(j, path, cal_check_workload, &why);
  if (rc < 0 && why.code == SS_EINPUT) {
    char line[1024];
    ss_err_format(&why, line, sizeof(line));
    return ss_err_set(err, in, 0, "it gives a workload that stash-sim would reject (not written): %s", line);
  }
  if (rc < 0)
    *err = why;
  return rc;
}

int cal_check_workload(const char* written, ss_err* err)
{
  ss_workload* w = NULL;
  int rc = ss_workload_load(written, &w, err);
  ss_workload_free(w);
  return rc;
}
