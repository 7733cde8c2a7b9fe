/* workload: read and validate a workload JSON file (optionally gzipped). */
#include "workload.h"

#include "array.h"
#include "hfconfig.h"
#include "infile.h"
#include "names.h"
#include "tfkernels.h"
#include "units.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define SS_WORKLOAD_MAX_BYTES (256L << 20)
#define SS_WORKLOAD_MAX_VALUES 2000000L
#define SS_SCHEMA "stash-sim-workload/1"

typedef struct wctx {
  const char* file;
  ss_err* err;
} wctx;

/* Line and column (1-based) of offset in text. */
static void line_col(const char* text, size_t offset, int* line, int* col)
{
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < offset && text[i]; i++) {
    if (text[i] == '\n') {
      (*line)++;
      *col = 1;
    } else {
      (*col)++;
    }
  }
}

/* zlib's reason a gzip read failed, in words (gzerror's text repeats the path and speaks zlib). */
static int gz_fail(gzFile f, const char* path, ss_err* err)
{
  int zerr = Z_OK;
  gzerror(f, &zerr);
  if (zerr == Z_ERRNO)
    return ss_err_set(err, path, 0, "cannot read workload file: %s", strerror(errno));
  if (zerr == Z_BUF_ERROR)
    return ss_err_set(err, path, 0, "truncated gzip data (the file ends inside the compressed stream)");
  if (zerr == Z_MEM_ERROR)
    return SS_ENOMEM;
  return ss_err_set(err, path, 0, "corrupt gzip data");
}

/* Length of the UTF-8 sequence at s (at most n bytes), or 0 if it is not one (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char* s, size_t n)
{
  size_t len = s[0] < 0x80                    ? 1
               : s[0] >= 0xc2 && s[0] <= 0xdf ? 2
               : s[0] >= 0xe0 && s[0] <= 0xef ? 3
               : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
                                              : 0;
  if (len == 0 || len > n)
    return 0;
  for (size_t i = 1; i < len; i++)
    if ((s[i] & 0xc0) != 0x80)
      return 0;
  if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) || (s[0] == 0xf0 && s[1] < 0x90) ||
      (s[0] == 0xf4 && s[1] > 0x8f))
    return 0;
  return len;
}

/* Check what cJSON lets through: JSON text is UTF-8 without control characters (bar whitespace
 * between tokens), and a value costs cJSON about 40 times its bytes, so their number is bounded. */
static int check_text(const char* text, size_t n, const char* path, ss_err* err)
{
  const unsigned char* s = (const unsigned char*)text;
  int in_string = 0;
  long values = 1;
  for (size_t i = 0; i < n;) {
    const char* why = NULL;
    size_t len = utf8_len(s + i, n - i);
    if (s[i] == 0)
      why = "NUL byte (a workload is JSON text)";
    else if (len == 0)
      why = "not UTF-8 (a workload is JSON text in UTF-8)";
    else if (s[i] < 0x20 && (in_string || (s[i] != '\n' && s[i] != '\r' && s[i] != '\t')))
      why = in_string ? "control character in a string (write it as an escape, e.g. \\n)"
                      : "control character (JSON allows spaces, tabs and line breaks between values)";
    else if (in_string && s[i] == '\\' && i + 1 < n && s[i + 1] >= 0x20 && s[i + 1] < 0x80)
      len = 2;
    else if (s[i] == '"')
      in_string = !in_string;
    else if (!in_string && (s[i] == ',' || s[i] == '[' || s[i] == '{') && ++values > SS_WORKLOAD_MAX_VALUES)
      why = "JSON values (a workload has a few per layer)";
    if (why) {
      int line, col;
      line_col(text, i, &line, &col);
      if (values > SS_WORKLOAD_MAX_VALUES)
        return ss_err_set_col(err, path, line, col, "more than %ld %s", SS_WORKLOAD_MAX_VALUES, why);
      return ss_err_set_col(err, path, line, col, "%s", why);
    }
    i += len;
  }
  return SS_OK;
}

/* Read a whole file, gunzipping if it is gzip (zlib reads plain files as they are). */
static int read_all(const char* path, char** out, size_t* len, ss_err* err)
{
  int fd = ss_infile_open(path, "workload file", SS_INFILE_MAX_TEXT, err);
  if (fd < 0)
    return fd;
  gzFile f = gzdopen(fd, "rb");
  if (!f) {
    close(fd);
    return ss_err_nomem(err);
  }
  size_t plen = strlen(path);
  int gz_name = plen > 3 && strcmp(path + plen - 3, ".gz") == 0;
  size_t cap = 1 << 16, n = 0;
  char* buf = malloc(cap + 1);
  int rc = buf ? SS_OK : SS_ENOMEM;
  while (!rc) {
    if (n == cap) {
      if (cap >= (size_t)SS_WORKLOAD_MAX_BYTES) {
        rc = ss_err_set(err, path, 0, "workload file larger than %ld MiB", SS_WORKLOAD_MAX_BYTES >> 20);
        break;
      }
      cap *= 2;
      char* bigger = realloc(buf, cap + 1);
      if (!bigger) {
        rc = SS_ENOMEM;
        break;
      }
      buf = bigger;
    }
    int got = gzread(f, buf + n, (unsigned)(cap - n));
    if (got <= 0) {
      /* 0 is the end of the file, or of a truncated stream: zlib tells which. */
      int zerr = Z_OK;
      gzerror(f, &zerr);
      if (got < 0 || (zerr != Z_OK && zerr != Z_STREAM_END))
        rc = gz_fail(f, path, err);
      break;
    }
    n += (size_t)got;
    if (gz_name && gzdirect(f)) {
      rc = ss_err_set(err, path, 0, "not gzip data, though the name ends in .gz");
      break;
    }
  }
  gzclose(f);
  if (rc) {
    free(buf);
    return rc;
  }
  buf[n] = '\0';
  if (check_text(buf, n, path, err)) {
    free(buf);
    return SS_EINPUT;
  }
  *out = buf;
  *len = n;
  return SS_OK;
}

/* parent + ".key" or parent + "[index]", truncated to size. */
static void join_path(char* dst, size_t size, const char* parent, const char* key, int index)
{
  char tail[SS_ERR_PATH_MAX];
  if (key)
    snprintf(tail, sizeof(tail), ".%.*s", (int)sizeof(tail) - 2, key);
  else
    snprintf(tail, sizeof(tail), "[%d]", index);
  size_t n = strlen(parent), m = strlen(tail);
  if (n > size - 1)
    n = size - 1;
  memmove(dst, parent, n);
  if (m > size - 1 - n)
    m = size - 1 - n;
  memcpy(dst + n, tail, m);
  dst[n + m] = '\0';
}

static const char* json_kind(const cJSON* v)
{
  if (cJSON_IsNumber(v))
    return "a number";
  if (cJSON_IsString(v))
    return "a string";
  if (cJSON_IsBool(v))
    return "a boolean";
  if (cJSON_IsNull(v))
    return "null";
  if (cJSON_IsArray(v))
    return "an array";
  return "an object";
}

/* Check that obj is an object whose keys are all in allowed, each at most once. */
static int check_keys(wctx* c, const cJSON* obj, const char* path, const char* const* allowed)
{
  if (!cJSON_IsObject(obj))
    return ss_err_set_path(c->err, c->file, path, "expected an object, got %s", json_kind(obj));
  for (const cJSON* k = obj->child; k; k = k->next) {
    int ok = 0;
    for (const char* const* a = allowed; *a; a++)
      ok |= strcmp(k->string, *a) == 0;
    char p[SS_ERR_PATH_MAX];
    join_path(p, sizeof(p), path, k->string, 0);
    if (!ok)
      return ss_err_set_path(c->err, c->file, p, "unknown key");
    for (const cJSON* d = obj->child; d != k; d = d->next)
      if (strcmp(d->string, k->string) == 0)
        return ss_err_set_path(c->err, c->file, p, "duplicate key");
  }
  return SS_OK;
}

static const cJSON* need(wctx* c, const cJSON* obj, const char* path, const char* key)
{
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v)
    ss_err_set_path(c->err, c->file, path, "missing key '%s'", key);
  return v;
}

static int get_string(wctx* c, const cJSON* obj, const char* path, const char* key, char** out)
{
  const cJSON* v = need(c, obj, path, key);
  if (!v)
    return SS_EINPUT;
  char p[SS_ERR_PATH_MAX];
  join_path(p, sizeof(p), path, key, 0);
  if (!cJSON_IsString(v) || !v->valuestring[0])
    return ss_err_set_path(c->err, c->file, p, "expected a non-empty string, got %s",
                           cJSON_IsString(v) ? "an empty string" : json_kind(v));
  *out = strdup(v->valuestring);
  return *out ? SS_OK : SS_ENOMEM;
}

/* obj's number at key, its path in p (SS_ERR_PATH_MAX bytes); NULL with the error set when it is
 * missing or not a number. */
static const cJSON* need_number(wctx* c, const cJSON* obj, const char* path, const char* key, char* p)
{
  const cJSON* v = need(c, obj, path, key);
  if (!v)
    return NULL;
  join_path(p, SS_ERR_PATH_MAX, path, key, 0);
  if (!cJSON_IsNumber(v)) {
    ss_err_set_path(c->err, c->file, p, "expected a number, got %s", json_kind(v));
    return NULL;
  }
  return v;
}

/* A number in [lo, hi] (lo excluded when lo_open), optionally whole. */
static int get_number(wctx* c, const cJSON* obj, const char* path, const char* key, double lo, int lo_open, double hi,
                      int whole, double* out)
{
  char p[SS_ERR_PATH_MAX];
  const cJSON* v = need_number(c, obj, path, key, p);
  if (!v)
    return SS_EINPUT;
  double x = v->valuedouble;
  const char* what = whole ? "whole number" : "number";
  if (!isfinite(x)) /* cJSON read 1e400 as infinity */
    return ss_err_set_path(c->err, c->file, p,
                           "expected a %s %s %g and at most %g, got a number beyond a double's range", what,
                           lo_open ? "greater than" : "at least", lo, hi);
  if (x < lo || (lo_open && x == lo) || x > hi)
    return ss_err_set_path(c->err, c->file, p, "expected a %s %s %g and at most %g, got %.17g", what,
                           lo_open ? "greater than" : "at least", lo, hi, x);
  if (whole && x != floor(x))
    return ss_err_set_path(c->err, c->file, p, "expected a whole number, got %.17g", x);
  *out = x;
  return SS_OK;
}

/* A number in [lo, hi], or 0 when zero_ok: lo is the smallest value that is not an underflow or a
 * wrong unit (the bounds of units.h), stated in the message with the range. */
static int get_bounded(wctx* c, const cJSON* obj, const char* path, const char* key, int zero_ok, double lo, double hi,
                       double* out)
{
  char p[SS_ERR_PATH_MAX];
  const cJSON* v = need_number(c, obj, path, key, p);
  if (!v)
    return SS_EINPUT;
  double x = v->valuedouble;
  if (isfinite(x) && ((x == 0 && zero_ok) || (x >= lo && x <= hi))) {
    *out = x;
    return SS_OK;
  }
  char got[64];
  if (isfinite(x))
    snprintf(got, sizeof(got), "%.17g", x);
  else
    snprintf(got, sizeof(got), "a number beyond a double's range");
  return ss_err_set_path(c->err, c->file, p, "expected %sa number in [%g, %g], got %s", zero_ok ? "0 or " : "", lo, hi,
                         got);
}

/* A time in seconds: 0 or at least SS_BOUND_TIME_LO. */
static int get_time(wctx* c, const cJSON* obj, const char* path, const char* key, int zero_ok, double hi, double* out)
{
  return get_bounded(c, obj, path, key, zero_ok, SS_BOUND_TIME_LO, hi, out);
}

/* Upper bounds that catch wrong units and absurd values rather than limit real models. */
#define MAX_TIME_S 3600.0
#define MAX_PARAMS 1e13
#define MAX_BATCH 1e7
#define MAX_SAMPLES 1e13
#define MAX_SAMPLE_BYTES 1e10
#define MAX_HOST_S 10.0 /* one layer's or the optimizer's host time per iteration */
#define MAX_TENSORS 100000
#define MAX_KERNELS 100000 /* one layer's CUDA kernels per pass (a transformer block launches ~30) */
#define MIN_RATE 1e-6      /* a device entry's samples per second */
#define MAX_RATE 1e9

/* An array of entries with names: where it is, how an entry is read, and the error when a name
 * repeats an earlier entry's: "<what> 'NAME' already <verb> by <path>[j]", at its name_key. */
typedef struct entries {
  const char* path;
  const char* name_key;
  const char* what;
  const char* verb;
  /* Read entry i (e, at JSON path p) into w; its name (borrowed) in *name. */
  int (*parse)(wctx* c, const cJSON* e, const char* p, ss_workload* w, int i, const char** name);
} entries;

/* Read each entry of the array arr as how says; names must not repeat. */
static int parse_entries(wctx* c, const cJSON* arr, const entries* how, ss_workload* w)
{
  ss_names names = {0};
  int rc = SS_OK, i = 0;
  for (const cJSON* e = arr->child; e && !rc; e = e->next, i++) {
    char p[SS_ERR_PATH_MAX];
    join_path(p, sizeof(p), how->path, NULL, i);
    const char* name = NULL;
    if (how->parse(c, e, p, w, i, &name)) {
      rc = SS_EINPUT;
      break;
    }
    int added, j = ss_names_add(&names, name, &added);
    if (j < 0) {
      rc = SS_ENOMEM;
    } else if (!added) {
      char q[SS_ERR_PATH_MAX];
      join_path(q, sizeof(q), p, how->name_key, 0);
      rc = ss_err_set_path(c->err, c->file, q, "%s '%s' already %s by %s[%d]", how->what, name, how->verb, how->path,
                           j);
    }
  }
  ss_names_free(&names);
  return rc;
}

/* The layer's parameter tensors: the list "tensors" (whole numbers > 0 summing to params), or
 * one tensor of params elements. */
static int parse_tensors(wctx* c, const cJSON* l, const char* p, ss_workload* w, ss_layer* y)
{
  const cJSON* arr = cJSON_GetObjectItemCaseSensitive(l, "tensors");
  char q[SS_ERR_PATH_MAX];
  join_path(q, sizeof(q), p, "tensors", 0);
  if (!arr) {
    y->ntensors = y->params > 0;
    y->tensors = malloc(sizeof(double));
    if (!y->tensors)
      return SS_ENOMEM;
    y->tensors[0] = y->params;
    return SS_OK;
  }
  if (!cJSON_IsArray(arr))
    return ss_err_set_path(c->err, c->file, q, "expected an array of whole numbers, got %s", json_kind(arr));
  w->has_tensors++; /* counts the layers with a list until parse_root turns it into a flag */
  int n = cJSON_GetArraySize(arr);
  if (n > MAX_TENSORS)
    return ss_err_set_path(c->err, c->file, q, "expected at most %d tensors, got %d", MAX_TENSORS, n);
  if ((n == 0) != (y->params == 0))
    return ss_err_set_path(c->err, c->file, q, "%s",
                           n == 0 ? "expected at least one tensor (params is not 0)"
                                  : "expected no tensor: params is 0");
  y->tensors = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (!y->tensors)
    return SS_ENOMEM;
  double sum = 0;
  int k = 0;
  for (const cJSON* e = arr->child; e; e = e->next, k++) {
    char r[SS_ERR_PATH_MAX];
    join_path(r, sizeof(r), q, NULL, k);
    if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 1 || e->valuedouble > MAX_PARAMS ||
        e->valuedouble != floor(e->valuedouble))
      return cJSON_IsNumber(e)
                 ? ss_err_set_path(c->err, c->file, r, "expected a whole number at least 1 and at most %g, got %.17g",
                                   MAX_PARAMS, e->valuedouble)
                 : ss_err_set_path(c->err, c->file, r, "expected a number, got %s", json_kind(e));
    y->tensors[k] = e->valuedouble;
    sum += e->valuedouble;
  }
  y->ntensors = n;
  if (sum != y->params)
    return ss_err_set_path(c->err, c->file, q, "the tensors hold %.17g parameters, the layer's params say %.17g", sum,
                           y->params);
  return SS_OK;
}

/* Keys given for every layer or none: the first layer decides, later ones must follow (keys[0] is
 * the one named when a layer lacks them all; what says what they are). */
static int all_or_none(wctx* c, const cJSON* l, const char* p, int i, const char* const* keys, const char* what,
                       int* flag)
{
  int has = 0;
  for (const char* const* k = keys; *k; k++)
    has |= cJSON_GetObjectItemCaseSensitive(l, *k) != NULL;
  if (i == 0)
    *flag = has;
  if (has == *flag)
    return SS_OK;
  if (has)
    return ss_err_set_path(c->err, c->file, p, "%s here but not in $.layers[0]: give them for every layer or none",
                           what);
  return ss_err_set_path(c->err, c->file, p,
                         "missing key '%s' ($.layers[0] gives %s: give them for every layer or none)", keys[0], what);
}

/* The work keys of a layer, all or none of them in every layer. */
static const char* const work_keys[] = {"fwd_flops", "bwd_flops",   "fwd_bytes",   "bwd_bytes",
                                        "act_bytes", "fwd_kernels", "bwd_kernels", NULL};

/* A layer's work per sample: FLOPs and bytes 0 or within the bounds of a FLOP count and a size
 * (units.h), kernels whole numbers. */
static int parse_work(wctx* c, const cJSON* l, const char* p, ss_layer* y)
{
  double* const qty[] = {&y->fwd_flops, &y->bwd_flops, &y->fwd_bytes, &y->bwd_bytes, &y->act_bytes};
  double kernels[2] = {0, 0};
  for (int k = 0; k < 5; k++) {
    double lo = k < 2 ? SS_BOUND_FLOPS_LO : SS_BOUND_SIZE_LO, hi = k < 2 ? SS_BOUND_FLOPS_HI : SS_BOUND_SIZE_HI;
    if (get_bounded(c, l, p, work_keys[k], 1, lo, hi, qty[k]))
      return SS_EINPUT;
  }
  for (int k = 0; k < 2; k++)
    if (get_number(c, l, p, work_keys[5 + k], 0, 0, MAX_KERNELS, 1, &kernels[k]))
      return SS_EINPUT;
  y->fwd_kernels = (int)kernels[0];
  y->bwd_kernels = (int)kernels[1];
  y->act_bytes_half = -1;
  if (cJSON_GetObjectItemCaseSensitive(l, "act_bytes_half") &&
      get_bounded(c, l, p, "act_bytes_half", 1, SS_BOUND_SIZE_LO, SS_BOUND_SIZE_HI, &y->act_bytes_half))
    return SS_EINPUT;
  return SS_OK;
}

/* The elements a layer's main kernels write per sample, optional beside the work keys. */
static const char* const output_keys[] = {"fwd_outputs", "bwd_outputs", "fwd_nchw_elements", "bwd_nchw_elements", NULL};

static int parse_outputs(wctx* c, const cJSON* l, const char* p, ss_layer* y)
{
  double* const qty[] = {&y->fwd_outputs, &y->bwd_outputs, &y->fwd_nchw_elements, &y->bwd_nchw_elements};
  for (int k = 0; k < 4; k++)
    if (get_bounded(c, l, p, output_keys[k], 1, SS_BOUND_SIZE_LO, SS_BOUND_SIZE_HI, qty[k]))
      return SS_EINPUT;
  return SS_OK;
}

/* Layer i's activation checkpointing keys, optional, with the work keys: ckpt_bytes 0 or a size, 0 only
 * for a layer that continues the checkpointed block of the layer before; ckpt_bytes_half with it, 0
 * where it is 0. */
static int parse_ckpt(wctx* c, const cJSON* l, const char* p, ss_workload* w, int i, ss_layer* y)
{
  int half = cJSON_GetObjectItemCaseSensitive(l, "ckpt_bytes_half") != NULL;
  y->ckpt_bytes = y->ckpt_bytes_half = -1;
  if (!cJSON_GetObjectItemCaseSensitive(l, "ckpt_bytes"))
    return half ? ss_err_set_path(c->err, c->file, p, "ckpt_bytes_half needs ckpt_bytes") : SS_OK;
  if (!w->has_work)
    return ss_err_set_path(c->err, c->file, p, "ckpt_bytes needs the work keys (fwd_flops ...)");
  if (get_bounded(c, l, p, "ckpt_bytes", 1, SS_BOUND_SIZE_LO, SS_BOUND_SIZE_HI, &y->ckpt_bytes) ||
      (half && get_bounded(c, l, p, "ckpt_bytes_half", 1, SS_BOUND_SIZE_LO, SS_BOUND_SIZE_HI, &y->ckpt_bytes_half)))
    return SS_EINPUT;
  w->has_ckpt = 1;
  char q[SS_ERR_PATH_MAX];
  if (y->ckpt_bytes == 0 && (i == 0 || w->layers[i - 1].ckpt_bytes < 0)) {
    join_path(q, sizeof(q), p, "ckpt_bytes", 0);
    return ss_err_set_path(c->err, c->file, q,
                           "0 continues the checkpointed block of the layer before, and %s: the "
                           "first layer of a block keeps its input (give its bytes)",
                           i == 0 ? "there is none" : "that layer is in none");
  }
  join_path(q, sizeof(q), p, "ckpt_bytes_half", 0);
  if (half && (y->ckpt_bytes == 0) != (y->ckpt_bytes_half == 0))
    return ss_err_set_path(c->err, c->file, q,
                           "expected 0 exactly where ckpt_bytes is 0 (a layer that continues its "
                           "block), got %.17g with ckpt_bytes %.17g",
                           y->ckpt_bytes_half, y->ckpt_bytes);
  return SS_OK;
}

static int parse_layer(wctx* c, const cJSON* l, const char* p, ss_workload* w, int i, const char** name)
{
  static const char* const layer_keys[] = {"name",
                                           "fwd_s",
                                           "bwd_s",
                                           "params",
                                           "tensors",
                                           "host_fwd_s",
                                           "host_bwd_s",
                                           "fwd_flops",
                                           "bwd_flops",
                                           "fwd_bytes",
                                           "bwd_bytes",
                                           "act_bytes",
                                           "act_bytes_half",
                                           "fwd_kernels",
                                           "bwd_kernels",
                                           "fwd_outputs",
                                           "bwd_outputs",
                                           "fwd_nchw_elements",
                                           "bwd_nchw_elements",
                                           "ckpt_bytes",
                                           "ckpt_bytes_half",
                                           NULL};
  static const char* const host_keys[] = {"host_fwd_s", "host_bwd_s", NULL};
  ss_layer* y = &w->layers[i];
  w->nlayers = i + 1;
  if (check_keys(c, l, p, layer_keys) || get_string(c, l, p, "name", &y->name) ||
      get_time(c, l, p, "fwd_s", 1, MAX_TIME_S, &y->fwd_s) || get_time(c, l, p, "bwd_s", 1, MAX_TIME_S, &y->bwd_s) ||
      get_number(c, l, p, "params", 0, 0, MAX_PARAMS, 1, &y->params))
    return SS_EINPUT;
  *name = y->name;
  int rc = parse_tensors(c, l, p, w, y);
  if (rc)
    return rc;
  if (all_or_none(c, l, p, i, host_keys, "host times", &w->has_host_times) ||
      (w->has_host_times && (get_time(c, l, p, "host_fwd_s", 1, MAX_HOST_S, &y->host_fwd_s) ||
                             get_time(c, l, p, "host_bwd_s", 1, MAX_HOST_S, &y->host_bwd_s))) ||
      all_or_none(c, l, p, i, work_keys, "work figures", &w->has_work) || (w->has_work && parse_work(c, l, p, y)) ||
      all_or_none(c, l, p, i, output_keys, "output elements", &w->has_outputs))
    return SS_EINPUT;
  if (!w->has_work && cJSON_GetObjectItemCaseSensitive(l, "act_bytes_half"))
    return ss_err_set_path(c->err, c->file, p, "act_bytes_half needs the work keys (fwd_flops ...)");
  if (w->has_outputs && !w->has_work)
    return ss_err_set_path(c->err, c->file, p, "fwd_outputs ... bwd_nchw_elements need the work keys (fwd_flops ...)");
  if (w->has_outputs && parse_outputs(c, l, p, y))
    return SS_EINPUT;
  return parse_ckpt(c, l, p, w, i, y);
}

static int parse_layers(wctx* c, const cJSON* root, ss_workload* w)
{
  static const entries layers = {"$.layers", "name", "layer name", "used", parse_layer};
  const cJSON* arr = need(c, root, "$", "layers");
  if (!arr)
    return SS_EINPUT;
  if (!cJSON_IsArray(arr))
    return ss_err_set_path(c->err, c->file, "$.layers", "expected an array, got %s", json_kind(arr));
  int n = cJSON_GetArraySize(arr);
  if (n == 0)
    return ss_err_set_path(c->err, c->file, "$.layers", "expected at least one layer");
  w->layers = calloc((size_t)n, sizeof(ss_layer));
  return w->layers ? parse_entries(c, arr, &layers, w) : SS_ENOMEM;
}

static int parse_dataset(wctx* c, const cJSON* root, ss_workload* w)
{
  static const char* const keys[] = {
      "name", "samples", "bytes_per_sample", "prep_cpu_s_per_sample", "decoded_bytes_per_sample", NULL};
  const cJSON* d = need(c, root, "$", "dataset");
  ss_dataset* ds = &w->dataset;
  const char* p = "$.dataset";
  if (!d || check_keys(c, d, p, keys) || get_string(c, d, p, "name", &ds->name) ||
      get_number(c, d, p, "samples", 0, 1, MAX_SAMPLES, 1, &ds->samples) ||
      get_bounded(c, d, p, "bytes_per_sample", 0, SS_BOUND_SIZE_LO, MAX_SAMPLE_BYTES, &ds->bytes_per_sample) ||
      get_time(c, d, p, "prep_cpu_s_per_sample", 1, MAX_TIME_S, &ds->prep_cpu_s_per_sample) ||
      get_bounded(c, d, p, "decoded_bytes_per_sample", 0, SS_BOUND_SIZE_LO, MAX_SAMPLE_BYTES,
                  &ds->decoded_bytes_per_sample))
    return SS_EINPUT;
  return SS_OK;
}

/* A device's ratios to the reference device within the bounds of a ratio (units.h): beyond them the
 * layers' times underflow or overflow. */
static int device_ratio(wctx* c, const char* p, const char* from, const ss_device* dev)
{
  const double r[3] = {dev->fwd_ratio, dev->bwd_ratio, dev->total_ratio};
  for (int k = 0; k < 3; k++)
    if (!ss_qty_ok(SS_QTY_RATIO, r[k], 0)) {
      char expects[96];
      ss_qty_expects(SS_QTY_RATIO, 0, expects, sizeof(expects));
      return ss_err_set_path(c->err, c->file, p, "the %s give this device %g times the reference device's: expected %s",
                             from, r[k], expects);
    }
  return SS_OK;
}

/* One entry of "devices": either forward and backward times on both devices at one batch, or
 * throughputs on both. */
static int parse_device(wctx* c, const cJSON* d, const char* p, ss_workload* w, int i, const char** name)
{
  static const char* const keys[] = {"gpu_model",
                                     "fwd_s",
                                     "bwd_s",
                                     "reference_fwd_s",
                                     "reference_bwd_s",
                                     "samples_per_s",
                                     "reference_samples_per_s",
                                     "host_ratio",
                                     "batch",
                                     "source",
                                     NULL};
  ss_device* dev = &w->devices[i];
  w->ndevices = i + 1;
  if (!cJSON_IsObject(d))
    return ss_err_set_path(c->err, c->file, p, "expected an object, got %s", json_kind(d));
  if (check_keys(c, d, p, keys) || get_string(c, d, p, "gpu_model", &dev->gpu_model) ||
      get_string(c, d, p, "source", &dev->source))
    return SS_EINPUT;
  dev->host_ratio = 1;
  if (cJSON_GetObjectItemCaseSensitive(d, "host_ratio") &&
      get_bounded(c, d, p, "host_ratio", 0, SS_BOUND_RATIO_LO, SS_BOUND_RATIO_HI, &dev->host_ratio))
    return SS_EINPUT;
  *name = dev->gpu_model;
  double batch = 0;
  if (cJSON_GetObjectItemCaseSensitive(d, "batch") && get_number(c, d, p, "batch", 0, 1, MAX_BATCH, 1, &batch))
    return SS_EINPUT;
  dev->batch = (int)batch;
  if (cJSON_GetObjectItemCaseSensitive(d, "samples_per_s")) {
    double rate = 0, ref_rate = 0;
    if (cJSON_GetObjectItemCaseSensitive(d, "fwd_s"))
      return ss_err_set_path(c->err, c->file, p, "give times (fwd_s, bwd_s, ...) or throughputs, not both");
    if (get_bounded(c, d, p, "samples_per_s", 0, MIN_RATE, MAX_RATE, &rate) ||
        get_bounded(c, d, p, "reference_samples_per_s", 0, MIN_RATE, MAX_RATE, &ref_rate))
      return SS_EINPUT;
    dev->fwd_ratio = dev->bwd_ratio = dev->total_ratio = ref_rate / rate;
    return device_ratio(c, p, "throughputs", dev);
  }
  double f = 0, b = 0, rf = 0, rb = 0;
  if (get_time(c, d, p, "fwd_s", 0, MAX_TIME_S, &f) || get_time(c, d, p, "bwd_s", 0, MAX_TIME_S, &b) ||
      get_time(c, d, p, "reference_fwd_s", 0, MAX_TIME_S, &rf) ||
      get_time(c, d, p, "reference_bwd_s", 0, MAX_TIME_S, &rb))
    return SS_EINPUT;
  dev->fwd_ratio = f / rf;
  dev->bwd_ratio = b / rb;
  dev->total_ratio = (f + b) / (rf + rb);
  return device_ratio(c, p, "times", dev);
}

static int parse_devices(wctx* c, const cJSON* root, ss_workload* w)
{
  static const entries devices = {"$.devices", "gpu_model", "device", "given", parse_device};
  const cJSON* arr = cJSON_GetObjectItemCaseSensitive(root, "devices");
  if (!arr)
    return SS_OK;
  if (!cJSON_IsArray(arr))
    return ss_err_set_path(c->err, c->file, "$.devices", "expected an array, got %s", json_kind(arr));
  int n = cJSON_GetArraySize(arr);
  w->devices = calloc((size_t)n + 1, sizeof(ss_device));
  return w->devices ? parse_entries(c, arr, &devices, w) : SS_ENOMEM;
}

const ss_device* ss_workload_device(const ss_workload* w, const char* model)
{
  for (int i = 0; i < w->ndevices; i++)
    if (strcmp(w->devices[i].gpu_model, model) == 0)
      return &w->devices[i];
  return NULL;
}

static const char* const optimizer_names[] = {"sgd", "sgd_momentum", "adam", "adamw", NULL};

const char* ss_optimizer_name(ss_optimizer o)
{
  return optimizer_names[o];
}

/* "optimizer": one of optimizer_names; SGD with momentum when not given. */
static int parse_optimizer(wctx* c, const cJSON* root, ss_workload* w)
{
  w->optimizer = SS_OPT_SGD_MOMENTUM;
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(root, "optimizer");
  if (!v)
    return SS_OK;
  for (int k = 0; cJSON_IsString(v) && optimizer_names[k]; k++)
    if (strcmp(v->valuestring, optimizer_names[k]) == 0) {
      w->optimizer = (ss_optimizer)k;
      return SS_OK;
    }
  if (!cJSON_IsString(v))
    return ss_err_set_path(c->err, c->file, "$.optimizer", "expected one of sgd, sgd_momentum, adam, adamw, got %s",
                           json_kind(v));
  return ss_err_set_path(c->err, c->file, "$.optimizer", "expected one of sgd, sgd_momentum, adam, adamw, got '%s'",
                         v->valuestring);
}

/* "activation_checkpointing": whether the workload runs with it by default (false when not given);
 * true needs a layer with ckpt_bytes. */
static int parse_ckpt_default(wctx* c, const cJSON* root, ss_workload* w)
{
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(root, "activation_checkpointing");
  if (v && !cJSON_IsBool(v))
    return ss_err_set_path(c->err, c->file, "$.activation_checkpointing", "expected true or false, got %s",
                           json_kind(v));
  w->activation_checkpointing = cJSON_IsTrue(v);
  if (w->activation_checkpointing && !w->has_ckpt)
    return ss_err_set_path(c->err, c->file, "$.activation_checkpointing",
                           "true, but no layer gives ckpt_bytes (the bytes a checkpointed block keeps)");
  return SS_OK;
}

/* An optional whole number key of obj at path into *out (left as it is when absent), within [lo, hi]. */
static int opt_int(wctx* c, const cJSON* obj, const char* path, const char* key, double lo, double hi, int* out)
{
  double v = *out;
  if (cJSON_GetObjectItemCaseSensitive(obj, key) && get_number(c, obj, path, key, lo, 0, hi, 1, &v))
    return SS_EINPUT;
  *out = (int)v;
  return SS_OK;
}

/* "transformer.moe": a mixture of experts (ss_moe): experts, top_k and expert_ffn, optionally
 * shared_ffn (0), first_moe_layer (0), moe_every (1) and moe_phase (0, below moe_every). */
static int parse_moe(wctx* c, const cJSON* t, ss_transformer* tf)
{
  static const char* const keys[] = {"experts",         "top_k",     "expert_ffn", "shared_ffn",
                                     "first_moe_layer", "moe_every", "moe_phase",  NULL};
  const char* path = "$.transformer.moe";
  const cJSON* m = cJSON_GetObjectItemCaseSensitive(t, "moe");
  if (!m)
    return SS_OK;
  if (check_keys(c, m, path, keys))
    return SS_EINPUT;
  double e = 0, k = 0, f = 0;
  ss_moe* o = &tf->moe;
  o->every = 1;
  if (get_number(c, m, path, "experts", 1, 0, 1 << 20, 1, &e) ||
      get_number(c, m, path, "top_k", 1, 0, 1 << 20, 1, &k) ||
      get_number(c, m, path, "expert_ffn", 1, 0, 1 << 24, 1, &f) ||
      opt_int(c, m, path, "shared_ffn", 0, 1 << 24, &o->shared_ffn) ||
      opt_int(c, m, path, "first_moe_layer", 0, tf->layers - 1, &o->first) ||
      opt_int(c, m, path, "moe_every", 1, tf->layers, &o->every) ||
      opt_int(c, m, path, "moe_phase", 0, o->every - 1, &o->phase))
    return SS_EINPUT;
  if (k > e)
    return ss_err_set_path(c->err, c->file, "$.transformer.moe.top_k",
                           "%.0f experts a token, more than the %.0f experts", k, e);
  o->experts = (int)e;
  o->top_k = (int)k;
  o->expert_ffn = (int)f;
  if (ss_transformer_moe_layers(tf) == 0)
    return ss_err_set_path(
        c->err, c->file, path,
        "no layer is a mixture of experts (first_moe_layer %d, moe_every %d, moe_phase %d, %d layers)", o->first,
        o->every, o->phase, tf->layers);
  return SS_OK;
}

/* "transformer.mla": multi-head latent attention (ss_mla): kv_lora, rope_dim and v_dim, optionally
 * q_lora (0: queries projected directly); the query-key width is head_dim, which it needs. */
static int parse_mla(wctx* c, const cJSON* t, ss_transformer* tf)
{
  static const char* const keys[] = {"q_lora", "kv_lora", "rope_dim", "v_dim", NULL};
  const char* path = "$.transformer.mla";
  const cJSON* m = cJSON_GetObjectItemCaseSensitive(t, "mla");
  if (!m)
    return SS_OK;
  if (check_keys(c, m, path, keys))
    return SS_EINPUT;
  double kv = 0, rope = 0, v = 0;
  if (get_number(c, m, path, "kv_lora", 1, 0, 1 << 20, 1, &kv) ||
      get_number(c, m, path, "rope_dim", 1, 0, 1 << 16, 1, &rope) ||
      get_number(c, m, path, "v_dim", 1, 0, 1 << 16, 1, &v) ||
      opt_int(c, m, path, "q_lora", 0, 1 << 20, &tf->mla.q_lora))
    return SS_EINPUT;
  if (!tf->head_dim || rope >= tf->head_dim)
    return ss_err_set_path(c->err, c->file, "$.transformer.mla.rope_dim",
                           "latent attention needs head_dim (the query-key width) above rope_dim %.0f (head_dim %d)",
                           rope, tf->head_dim);
  tf->mla.kv_lora = (int)kv;
  tf->mla.rope_dim = (int)rope;
  tf->mla.v_dim = (int)v;
  return SS_OK;
}

/* "transformer.local_attention": local attention (ss_transformer.window): window, optionally chunked
 * (false: sliding), full_every (0: every layer local) and full_phase (below full_every). */
static int parse_local(wctx* c, const cJSON* t, ss_transformer* tf)
{
  static const char* const keys[] = {"window", "chunked", "full_every", "full_phase", NULL};
  const char* path = "$.transformer.local_attention";
  const cJSON* m = cJSON_GetObjectItemCaseSensitive(t, "local_attention");
  if (!m)
    return SS_OK;
  if (check_keys(c, m, path, keys))
    return SS_EINPUT;
  double window = 0;
  if (get_number(c, m, path, "window", 1, 0, 1 << 30, 1, &window) ||
      opt_int(c, m, path, "full_every", 0, tf->layers, &tf->full_every) ||
      opt_int(c, m, path, "full_phase", 0, tf->full_every > 0 ? tf->full_every - 1 : 0, &tf->full_phase))
    return SS_EINPUT;
  const cJSON* chunked = cJSON_GetObjectItemCaseSensitive(m, "chunked");
  if (chunked && !cJSON_IsBool(chunked))
    return ss_err_set_path(c->err, c->file, "$.transformer.local_attention.chunked", "expected true or false, got %s",
                           json_kind(chunked));
  tf->window = (int)window;
  tf->window_chunked = cJSON_IsTrue(chunked);
  return SS_OK;
}

/* "transformer": the architecture of a decoder-only language model, whose layers must be the input
 * embedding, an equal number of entries per transformer layer, and the output layer. */
static int parse_transformer(wctx* c, const cJSON* root, ss_workload* w)
{
  static const char* const keys[] = {
      "layers", "hidden", "heads",           "kv_heads", "ffn",           "gated_ffn",
      "seq",    "vocab",  "tied_embeddings", "head_dim", "max_positions", "learned_positions",
      "moe",    "mla",    "local_attention", NULL};
  static const char* const ints[] = {"layers", "hidden", "heads", "kv_heads", "ffn", "seq", "vocab", NULL};
  static const char* const bools[] = {"gated_ffn", "tied_embeddings", NULL};
  const char* path = "$.transformer";
  const cJSON* t = cJSON_GetObjectItemCaseSensitive(root, "transformer");
  if (!t)
    return SS_OK;
  if (!cJSON_IsObject(t))
    return ss_err_set_path(c->err, c->file, path, "expected an object, got %s", json_kind(t));
  if (check_keys(c, t, path, keys))
    return SS_EINPUT;
  double v[7];
  for (int k = 0; ints[k]; k++)
    if (get_number(c, t, path, ints[k], 1, 0, k == 6 ? 1e7 : 1e6, 1, &v[k]))
      return SS_EINPUT;
  int b[2];
  for (int k = 0; bools[k]; k++) {
    char p[SS_ERR_PATH_MAX];
    const cJSON* x = need(c, t, path, bools[k]);
    if (!x)
      return SS_EINPUT;
    snprintf(p, sizeof(p), "%s.%s", path, bools[k]);
    if (!cJSON_IsBool(x))
      return ss_err_set_path(c->err, c->file, p, "expected true or false, got %s", json_kind(x));
    b[k] = cJSON_IsTrue(x);
  }
  double head_dim = 0, max_positions = 0;
  if ((cJSON_GetObjectItemCaseSensitive(t, "head_dim") &&
       get_number(c, t, path, "head_dim", 1, 0, 1e5, 1, &head_dim)) ||
      (cJSON_GetObjectItemCaseSensitive(t, "max_positions") &&
       get_number(c, t, path, "max_positions", 1, 0, 1 << 30, 1, &max_positions)))
    return SS_EINPUT;
  const cJSON* learned = cJSON_GetObjectItemCaseSensitive(t, "learned_positions");
  if (learned && !cJSON_IsBool(learned))
    return ss_err_set_path(c->err, c->file, "$.transformer.learned_positions", "expected true or false, got %s",
                           json_kind(learned));
  w->max_positions = (int)max_positions;
  w->learned_positions = learned && cJSON_IsTrue(learned);
  w->tf = (ss_transformer){.layers = (int)v[0],
                           .hidden = (int)v[1],
                           .heads = (int)v[2],
                           .kv_heads = (int)v[3],
                           .ffn = (int)v[4],
                           .gated_ffn = b[0],
                           .seq = (int)v[5],
                           .vocab = (int)v[6],
                           .tied = b[1],
                           .head_dim = (int)head_dim};
  if (parse_moe(c, t, &w->tf) || parse_mla(c, t, &w->tf) || parse_local(c, t, &w->tf))
    return SS_EINPUT;
  char why[160];
  if (ss_transformer_check(&w->tf, 1, 1, why, sizeof(why)))
    return ss_err_set_path(c->err, c->file, path, "%s", why);
  if ((!w->tf.head_dim && w->tf.hidden % w->tf.heads) || w->tf.heads % w->tf.kv_heads)
    return ss_err_set_path(c->err, c->file, path,
                           "heads %d must divide hidden %d (or head_dim be given), and kv_heads %d must divide heads "
                           "(grouped-query attention)",
                           w->tf.heads, w->tf.hidden, w->tf.kv_heads);
  int body = w->nlayers - 2;
  if (body < w->tf.layers || body % w->tf.layers)
    return ss_err_set_path(c->err, c->file, path,
                           "%d transformer layers, but the %d layers between the first (the embedding) and the last "
                           "(the output layer) are not the same number of entries for each",
                           w->tf.layers, body);
  w->layers_per_block = body / w->tf.layers;
  w->has_transformer = 1;
  return SS_OK;
}

/* How far a workload's layers may be from its transformer block's count of parameters and FLOPs: the
 * block leaves out the biases, norms' and position embeddings' extras (GPT-2 124M's layers hold
 * 0.7% more than its block; the catalogue's at most that). */
#define SS_TF_TOLERANCE 0.05

/* The transformer block against the layers it describes: the parameters of the whole and of each
 * transformer layer's entries, and with the layers' work the forward FLOPs of a sequence (the
 * model FLOPs' third), each within SS_TF_TOLERANCE. A block that disagrees would drive the memory,
 * MFU and tokens while the layers drive the time. */
static int check_transformer(wctx* c, const ss_workload* w)
{
  const ss_transformer* tf = &w->tf;
  int per = w->layers_per_block;
  double total = 0, want = ss_transformer_params(tf), block = ss_transformer_layer_params(tf);
  for (int i = 0; i < w->nlayers; i++)
    total += w->layers[i].params;
  if (fabs(total / want - 1) > SS_TF_TOLERANCE)
    return ss_err_set_path(c->err, c->file, "$.transformer",
                           "the architecture has %.6g parameters (%d layers of %.6g, the embeddings %d x %d), but the "
                           "layers hold %.6g: they must agree within %.0f%% (give the block of the model the layers "
                           "describe)",
                           want, tf->layers, block, tf->vocab, tf->hidden, total, 100 * SS_TF_TOLERANCE);
  for (int b = 0; b < tf->layers; b++) {
    double got = 0;
    block = ss_transformer_layer_params_at(tf, b);
    for (int e = 0; e < per; e++)
      got += w->layers[1 + b * per + e].params;
    char span[64];
    if (per > 1)
      snprintf(span, sizeof(span), "layers[%d] to [%d]", 1 + b * per, per + b * per);
    else
      snprintf(span, sizeof(span), "layers[%d]", 1 + b * per);
    if (fabs(got / block - 1) > SS_TF_TOLERANCE)
      return ss_err_set_path(c->err, c->file, "$.layers",
                             "transformer layer %d (%s) holds %.6g parameters, the architecture's layer %.6g (hidden "
                             "%d, ffn %d, heads %d, kv_heads %d): they must agree within %.0f%%",
                             b, span, got, block, tf->hidden, tf->ffn, tf->heads, tf->kv_heads, 100 * SS_TF_TOLERANCE);
  }
  if (!w->has_work)
    return SS_OK;
  double fwd = 0, model = ss_transformer_model_flops(tf, 1) / 3;
  for (int i = 0; i < w->nlayers; i++)
    fwd += w->layers[i].fwd_flops;
  if (fabs(fwd / model - 1) > SS_TF_TOLERANCE)
    return ss_err_set_path(c->err, c->file, "$.layers",
                           "the layers' forward FLOPs per sequence, %.6g, are not the architecture's %.6g (seq %d: per "
                           "layer and token 2 W + 4 s h, the output layer 2 V h): they must agree within %.0f%%",
                           fwd, model, tf->seq, 100 * SS_TF_TOLERANCE);
  return SS_OK;
}

/* The reference device's optional figures for the roofline model (roofline.h): its memory bandwidth
 * and SMs; both or neither. */
static int parse_ref_device(wctx* c, const cJSON* ref, ss_workload* w)
{
  int has_bw = cJSON_GetObjectItemCaseSensitive(ref, "memory_gbytes_per_s") != NULL;
  int has_sm = cJSON_GetObjectItemCaseSensitive(ref, "sm_count") != NULL;
  if (has_bw != has_sm)
    return ss_err_set_path(c->err, c->file, "$.reference",
                           "give memory_gbytes_per_s and sm_count together (the "
                           "reference device's figures for the roofline model), or neither");
  double gbytes = 0, sms = 0;
  if (has_bw && (get_bounded(c, ref, "$.reference", "memory_gbytes_per_s", 0, SS_BOUND_BANDWIDTH_LO / 1e9,
                             SS_BOUND_BANDWIDTH_HI / 1e9, &gbytes) ||
                 get_number(c, ref, "$.reference", "sm_count", 0, 1, 1e6, 1, &sms)))
    return SS_EINPUT;
  w->ref_bytes_per_s = gbytes * 1e9;
  w->ref_sm_count = (int)sms;
  return SS_OK;
}

static int parse_root(wctx* c, const cJSON* root, ss_workload* w)
{
  static const char* const keys[] = {"schema",
                                     "model",
                                     "precision",
                                     "batch_per_gpu",
                                     "grad_bytes_per_param",
                                     "reference",
                                     "optimizer_s",
                                     "host_optimizer_s",
                                     "optimizer",
                                     "layers",
                                     "dataset",
                                     "devices",
                                     "provenance",
                                     "activation_checkpointing",
                                     "transformer",
                                     "measured_times",
                                     NULL};
  static const char* const ref_keys[] = {"gpu_model", "gpu_flops", "batch", "memory_gbytes_per_s", "sm_count", NULL};
  static const char* const precisions[] = {"fp32", "tf32", "fp16", "bf16", "amp", "fp64", NULL};
  char* schema = NULL;
  if (check_keys(c, root, "$", keys) || get_string(c, root, "$", "schema", &schema))
    return SS_EINPUT;
  int same = strcmp(schema, SS_SCHEMA) == 0;
  free(schema);
  if (!same)
    return ss_err_set_path(c->err, c->file, "$.schema", "expected \"%s\"", SS_SCHEMA);
  double batch = 0, ref_batch = 0;
  const cJSON* ref = NULL;
  if (get_string(c, root, "$", "model", &w->model) || get_string(c, root, "$", "precision", &w->precision))
    return SS_EINPUT;
  int known = 0;
  for (const char* const* s = precisions; *s; s++)
    known |= strcmp(w->precision, *s) == 0;
  if (!known)
    return ss_err_set_path(c->err, c->file, "$.precision",
                           "expected one of fp32, tf32, fp16, bf16, amp, fp64, got '%s'", w->precision);
  if (get_number(c, root, "$", "batch_per_gpu", 0, 1, MAX_BATCH, 1, &batch) ||
      get_bounded(c, root, "$", "grad_bytes_per_param", 0, 1.0 / 64, 8, &w->grad_bytes_per_param) ||
      !(ref = need(c, root, "$", "reference")) || check_keys(c, ref, "$.reference", ref_keys) ||
      get_string(c, ref, "$.reference", "gpu_model", &w->ref_gpu_model) ||
      get_number(c, ref, "$.reference", "gpu_flops", 1e6, 0, 1e18, 0, &w->ref_gpu_flops) ||
      get_number(c, ref, "$.reference", "batch", 0, 1, MAX_BATCH, 1, &ref_batch) || parse_ref_device(c, ref, w) ||
      get_time(c, root, "$", "optimizer_s", 1, MAX_TIME_S, &w->optimizer_s) || parse_layers(c, root, w) ||
      parse_dataset(c, root, w) || parse_devices(c, root, w))
    return SS_EINPUT;
  if (cJSON_GetObjectItemCaseSensitive(root, "host_optimizer_s")) {
    if (!w->has_host_times)
      return ss_err_set_path(c->err, c->file, "$.host_optimizer_s",
                             "the layers give no host times (host_fwd_s, host_bwd_s): give all of them or none");
    if (get_time(c, root, "$", "host_optimizer_s", 1, MAX_HOST_S, &w->host_optimizer_s))
      return SS_EINPUT;
  }
  if (parse_optimizer(c, root, w) || parse_ckpt_default(c, root, w) || parse_transformer(c, root, w))
    return SS_EINPUT;
  w->has_tensors = w->has_tensors == w->nlayers;
  for (int i = 0; i < w->nlayers; i++)
    w->ntensors += w->layers[i].ntensors;
  const cJSON* timed = cJSON_GetObjectItemCaseSensitive(root, "measured_times");
  if (timed && !cJSON_IsBool(timed))
    return ss_err_set_path(c->err, c->file, "$.measured_times", "expected true or false, got %s", json_kind(timed));
  w->untimed = timed && cJSON_IsFalse(timed);
  if (w->untimed && !w->has_transformer)
    return ss_err_set_path(c->err, c->file, "$.measured_times",
                           "false: only the kernel model times layers without times, and it times a "
                           "\"transformer\" (none given)");
  double compute_s = w->optimizer_s;
  for (int i = 0; i < w->nlayers; i++)
    compute_s += w->layers[i].fwd_s + w->layers[i].bwd_s;
  if (compute_s <= 0 && !w->untimed)
    return ss_err_set_path(c->err, c->file, "$.layers",
                           "every fwd_s, bwd_s and optimizer_s is 0: there is no compute to simulate");
  w->batch_per_gpu = (int)batch;
  w->ref_batch = (int)ref_batch;
  if (w->has_transformer && check_transformer(c, w))
    return SS_EINPUT;
  const cJSON* prov = need(c, root, "$", "provenance");
  if (!prov)
    return SS_EINPUT;
  if (!cJSON_IsObject(prov))
    return ss_err_set_path(c->err, c->file, "$.provenance", "expected an object, got %s", json_kind(prov));
  return SS_OK;
}

/* A Hugging Face config.json's workload (docs/formats.md, "A Hugging Face config.json as the
 * workload"): the embedding, one entry per decoder layer and the final norm with the output layer, each
 * with its parameters and tensors as the family registers them, its work and kept activations per
 * sequence derived from the architecture (FLOPs of the matrix products and of eager attention's whole
 * S x S, as the generated workloads count them; activations as tfkernels.h counts them, eager), at
 * bf16, AdamW, one sequence per GPU. Its layers have no times (untimed): only the kernel model times
 * it. Its optimizer step is the generated workloads' ESTIMATE (ResNet-50's measured SGD step per
 * parameter on the V100 reference, twice for AdamW: calibration/gen_models.py). The dataset: a token
 * stream of RedPajama's 1.21e12 tokens (the generated Llama workloads' CHOICE). The model's name: the
 * config's _name_or_path, else the file's (its folder's for a config.json). */
#define HF_REF_FLOPS 15.7e12 /* the reference V100's FP32 peak */
#define HF_OPT_S_PER_PARAM (2 * 1.3e-3 / 25557032.0)
#define HF_TOKENS 1.21e12

/* The model's name of a config at path: the parent folder's for ".../NAME/config.json", else the
 * file's without ".json". */
static void config_name(const char* path, char* buf, size_t size)
{
  const char* base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  if (strcmp(base, "config.json") == 0) {
    const char* end = base;
    while (end > path && end[-1] == '/')
      end--;
    const char* start = end;
    while (start > path && start[-1] != '/')
      start--;
    if (end > start) {
      snprintf(buf, size, "%.*s", (int)(end - start), start);
      return;
    }
  }
  snprintf(buf, size, "%s", base);
  size_t n = strlen(buf);
  if (n > 5 && strcmp(buf + n - 5, ".json") == 0)
    buf[n - 5] = '\0';
}

static int build_from_config(const char* path, const ss_hf_model* m, ss_workload* w)
{
  const ss_transformer* tf = &m->tf;
  int nl = tf->layers + 2;
  double s = tf->seq, h = tf->hidden, V = tf->vocab;
  char name[160];
  if (m->named)
    snprintf(name, sizeof(name), "%s", m->name);
  else
    config_name(path, name, sizeof(name));
  if (!(w->model = strdup(name)) || !(w->precision = strdup("bf16")) ||
      !(w->ref_gpu_model = strdup("Tesla V100-SXM2-16GB")) || !(w->dataset.name = strdup("tokens")) ||
      !(w->layers = calloc((size_t)nl, sizeof(ss_layer))))
    return SS_ENOMEM;
  w->nlayers = nl;
  w->batch_per_gpu = 1;
  w->grad_bytes_per_param = 4;
  w->ref_gpu_flops = HF_REF_FLOPS;
  w->ref_bytes_per_s = 900e9;
  w->ref_sm_count = 80;
  w->ref_batch = 1;
  w->optimizer = SS_OPT_ADAMW;
  w->has_work = w->has_tensors = w->has_outputs = w->has_ckpt = 1;
  w->has_transformer = 1;
  w->tf = *tf;
  w->layers_per_block = 1;
  w->max_positions = m->max_positions;
  w->learned_positions = m->learned_positions;
  w->from_config = 1;
  w->untimed = 1;
  ss_tf_split one = {.b = 1, .seq = tf->seq, .t = 1, .cp = 1, .elem = 4, .attention = SS_ATTENTION_EAGER, .causal = 1};
  double act = ss_tf_activation_bytes(tf, &one, SS_RECOMPUTE_NONE);
  one.elem = 2;
  double act_half = ss_tf_activation_bytes(tf, &one, SS_RECOMPUTE_NONE);
  double q = (double)tf->heads * ss_transformer_attn_dim(tf);
  double params = 0;
  for (int l = 0; l < nl; l++) {
    ss_layer* y = &w->layers[l];
    int first = l == 0, last = l == nl - 1;
    char label[48];
    snprintf(label, sizeof(label), first ? "embedding" : last ? "final norm+output layer" : "layer %d", l - 1);
    double tensors[SS_HF_MAX_TENSORS];
    int nt = 0;
    if (first) {
      tensors[nt++] = m->embed_params[0];
      if (m->embed_params[1] > 0)
        tensors[nt++] = m->embed_params[1];
    } else if (last) {
      tensors[nt++] = m->norm_params;
      if (m->head_params > 0)
        tensors[nt++] = m->head_params;
    } else if (ss_transformer_is_moe(tf, l - 1)) {
      memcpy(tensors, m->moe_tensors, sizeof(double) * (size_t)m->nmoe_tensors);
      nt = m->nmoe_tensors;
    } else {
      memcpy(tensors, m->layer_tensors, sizeof(double) * (size_t)m->nlayer_tensors);
      nt = m->nlayer_tensors;
    }
    if (!(y->name = strdup(label)) || !(y->tensors = malloc(sizeof(double) * (size_t)nt)))
      return SS_ENOMEM;
    memcpy(y->tensors, tensors, sizeof(double) * (size_t)nt);
    y->ntensors = nt;
    for (int k = 0; k < nt; k++)
      y->params += tensors[k];
    params += y->params;
    /* A transformer layer: the matrices a token reads (a MoE layer's top_k routed experts, not the
     * others) and the attention core. */
    y->fwd_flops = first  ? 0
                   : last ? 2 * s * h * V
                          : 2 * (ss_transformer_layer_active_at(tf, l - 1) - 2 * h) * s + 4 * s * s * q;
    y->bwd_flops = 2 * y->fwd_flops;
    /* Kept for backward, and read and written by the kernels (ESTIMATE: each kept tensor written once
     * and read once, the logits' FP32 softmax at the output layer); the main GEMM's outputs. */
    y->act_bytes = first ? 4 * s * h : last ? 4 * s * V + 4 * s * h : act;
    y->act_bytes_half = first ? 2 * s * h : last ? 4 * s * V + 2 * s * h : act_half;
    y->fwd_bytes = 2 * y->act_bytes;
    y->bwd_bytes = 2 * y->fwd_bytes;
    y->ckpt_bytes = first || last ? -1 : 4 * s * h;
    y->ckpt_bytes_half = first || last ? -1 : 2 * s * h;
    y->fwd_kernels = first ? 1 : last ? 3 : 11;
    y->bwd_kernels = first ? 1 : last ? 4 : 14;
    y->fwd_outputs = first ? 0 : last ? s * V : s * h;
    y->bwd_outputs = y->fwd_outputs;
    w->ntensors += nt;
  }
  w->optimizer_s = params * HF_OPT_S_PER_PARAM;
  w->dataset.samples = floor(HF_TOKENS / s);
  w->dataset.bytes_per_sample = s * (V > 65536 ? 4 : 2);
  w->dataset.decoded_bytes_per_sample = 2 * 8 * s;
  w->dataset.prep_cpu_s_per_sample = 1e-5;
  return SS_OK;
}

/* Whether text nests arrays and objects deeper than cJSON accepts (strings are skipped). */
static int too_deep(const char* text)
{
  int depth = 0, in_string = 0;
  for (const char* s = text; *s; s++) {
    if (in_string) {
      if (*s == '\\' && s[1])
        s++;
      else if (*s == '"')
        in_string = 0;
    } else if (*s == '"') {
      in_string = 1;
    } else if (*s == '[' || *s == '{') {
      if (++depth > CJSON_NESTING_LIMIT)
        return 1;
    } else if (*s == ']' || *s == '}') {
      depth--;
    }
  }
  return 0;
}

int ss_workload_load(const char* path, ss_workload** out, ss_err* err)
{
  char* text = NULL;
  size_t len = 0;
  int rc = read_all(path, &text, &len, err);
  if (rc)
    return ss_err_nomem_if(err, rc);
  /* len + 1 includes the NUL, so that require_null_terminated rejects trailing garbage. */
  const char* end = NULL;
  cJSON* root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
  if (!root) {
    const char* at = cJSON_GetErrorPtr();
    size_t off = at && at >= text && at <= text + len ? (size_t)(at - text) : len;
    int line, col;
    line_col(text, off, &line, &col);
    int deep = too_deep(text);
    int blank = text[strspn(text, " \t\r\n")] == '\0';
    free(text);
    if (blank)
      return ss_err_set(err, path, 0, "empty file (expected a JSON object)");
    if (deep)
      return ss_err_set_col(err, path, line, col, "JSON nested deeper than %d levels", CJSON_NESTING_LIMIT);
    return ss_err_set_col(err, path, line, col, "malformed JSON");
  }
  free(text);
  ss_workload* w = calloc(1, sizeof(*w));
  if (!w) {
    cJSON_Delete(root);
    return ss_err_nomem(err);
  }
  w->path = strdup(path);
  wctx c = {.file = path, .err = err};
  ss_hf_model m;
  if (ss_hf_is_config(root)) {
    rc = ss_hf_read(root, path, &m, err) ? SS_EINPUT : SS_OK;
    if (!rc && m.moe_irregular)
      rc = ss_err_set_path(err, path, "$.mlp_only_layers",
                           "%s's dense layers are listed (%d of %d layers mixtures of experts): the simulator takes "
                           "mixtures of experts every n-th layer from a first one only",
                           m.architecture, m.moe_layers, m.tf.layers);
    if (!rc)
      rc = ss_err_nomem_if(err, build_from_config(path, &m, w));
  } else
    rc = ss_err_nomem_if(err, parse_root(&c, root, w));
  cJSON_Delete(root);
  return SS_HAND_OUT(rc, w, out, ss_workload_free);
}

void ss_workload_free(ss_workload* w)
{
  if (!w)
    return;
  SS_FREE_ALL(w->path, w->model, w->precision, w->ref_gpu_model, w->dataset.name);
  for (int i = 0; i < w->nlayers; i++)
    SS_FREE_ALL(w->layers[i].name, w->layers[i].tensors);
  for (int i = 0; i < w->ndevices; i++)
    SS_FREE_ALL(w->devices[i].gpu_model, w->devices[i].source);
  SS_FREE_ALL(w->layers, w->devices);
  free(w);
}

double ss_workload_grad_bytes(const ss_workload* w)
{
  double total = 0;
  for (int i = 0; i < w->nlayers; i++)
    total += w->layers[i].params * w->grad_bytes_per_param;
  return total;
}
