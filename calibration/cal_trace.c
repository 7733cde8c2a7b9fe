/* cal_trace: stash-calibrate trace: a PyTorch profiler (Kineto) Chrome trace in, a stash-sim
 * workload out. The trace is read as a stream, one event at a time, so memory grows with the
 * events kept (operators, kernels), not with the file. */
#include "cal.h"

#include "err.h"
#include "workload.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* ---- what is kept of an event ---- */

typedef enum op_kind {
  OP_OTHER,
  OP_STEP,       /* ProfilerStep#N */
  OP_DATA,       /* enumerate(DataLoader)#...__next__ */
  OP_OPTIMIZER,  /* Optimizer.step#... and Optimizer.zero_grad#... */
  OP_LAYER,      /* an operator with a weight: conv, linear, addmm, embedding */
  OP_NORM,       /* batch_norm, layer_norm: affine parameters, folded into the layer before */
  OP_BACKWARD,   /* an autograd node (XBackward, evaluate_function: XBackward) */
  OP_ACCUMULATE, /* torch::autograd::AccumulateGrad */
} op_kind;

typedef struct op {
  double ts, end;
  int tid;
  long ext;
  long seq;     /* -1: none */
  op_kind kind;
  int step;     /* ProfilerStep number (OP_STEP) */
  double params; /* OP_LAYER, OP_NORM: parameters (weights and biases) */
  double batch;  /* OP_LAYER: the first dimension of its input */
  double input;  /* OP_LAYER: elements of its input */
  char layer_name[64];
  int special;  /* its outermost enclosing (or own) DataLoader, optimizer or autograd-node operator, -1 */
  int layer_op; /* its outermost enclosing (or own) operator with weights, -1 */
  double self;  /* its time without that of the operators inside it */
} op;

typedef struct kernel {
  double ts, dur;
  long ext;
  int htod;      /* a host-to-device copy */
  double bytes;
} kernel;

typedef struct trace {
  const char* path;
  op* ops;
  size_t nops, capops;
  kernel* kernels;
  size_t nkernels, capkernels;
  char** tids; /* interned thread names */
  int ntids;
  int* tid_slots; /* hash table of tids: index + 1, 0 when free */
  size_t tid_cap; /* its size, a power of 2 above twice ntids */
  char gpu_model[128];
  long events;
} trace;

static size_t tid_hash(const char* name)
{
  size_t h = 14695981039346656037u;
  for (const unsigned char* c = (const unsigned char*)name; *c; c++)
    h = (h ^ *c) * 1099511628211u;
  return h;
}

/* The slot of name in the tid table: where it is, or the free slot where it goes. */
static size_t tid_slot(const trace* t, const char* name)
{
  size_t i = tid_hash(name) & (t->tid_cap - 1);
  while (t->tid_slots[i] && strcmp(t->tids[t->tid_slots[i] - 1], name) != 0)
    i = (i + 1) & (t->tid_cap - 1);
  return i;
}

/* The index of a thread's name, added if new; -1 when out of memory. A hash table: a trace may
 * name many threads. */
static int intern_tid(trace* t, const char* name)
{
  if (2 * (size_t)(t->ntids + 1) > t->tid_cap) {
    size_t cap = t->tid_cap ? 2 * t->tid_cap : 64;
    int* slots = calloc(cap, sizeof(int));
    if (!slots)
      return -1;
    free(t->tid_slots);
    t->tid_slots = slots;
    t->tid_cap = cap;
    for (int i = 0; i < t->ntids; i++)
      t->tid_slots[tid_slot(t, t->tids[i])] = i + 1;
  }
  size_t slot = tid_slot(t, name);
  if (t->tid_slots[slot])
    return t->tid_slots[slot] - 1;
  char** grown = realloc(t->tids, sizeof(char*) * (size_t)(t->ntids + 1));
  if (!grown)
    return -1;
  t->tids = grown;
  if (!(t->tids[t->ntids] = strdup(name)))
    return -1;
  t->tid_slots[slot] = t->ntids + 1;
  return t->ntids++;
}

static double num_arg(const cJSON* args, const char* key, double dflt)
{
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(args, key);
  return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* An id (External id, Sequence number): a whole number from 0 to 2^53, else dflt. */
static long id_arg(const cJSON* args, const char* key, long dflt)
{
  double v = num_arg(args, key, -1);
  return v >= 0 && v <= 9007199254740992.0 && v == floor(v) ? (long)v : dflt;
}

/* Product of the dimensions of Input Dims[k] (0 when absent or empty). */
static double dims_product(const cJSON* dims, int k, int* rank)
{
  const cJSON* d = cJSON_GetArrayItem(dims, k);
  *rank = cJSON_GetArraySize(d);
  if (!cJSON_IsArray(d) || *rank == 0)
    return 0;
  double p = 1;
  const cJSON* x;
  cJSON_ArrayForEach(x, d) p *= cJSON_IsNumber(x) ? x->valuedouble : 0;
  return p;
}

static int starts(const char* s, const char* prefix)
{
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Classify an operator and read the parameters of a layer from its input shapes:
 * conv(input, weight, bias), linear(input, weight, bias), addmm(bias, input, weight^T),
 * embedding(weight, indices), batch_norm/layer_norm(input, ..., weight, bias). */
static void classify(op* o, const char* name, const cJSON* args)
{
  const cJSON* dims = cJSON_GetObjectItemCaseSensitive(args, "Input Dims");
  int r0 = 0, r1 = 0, r2 = 0;
  o->kind = OP_OTHER;
  if (starts(name, "ProfilerStep#")) {
    o->kind = OP_STEP;
    o->step = atoi(name + strlen("ProfilerStep#"));
  } else if (starts(name, "enumerate(DataLoader)")) {
    o->kind = OP_DATA;
  } else if (starts(name, "Optimizer.")) {
    o->kind = OP_OPTIMIZER;
  } else if (strcmp(name, "torch::autograd::AccumulateGrad") == 0 ||
             (starts(name, "autograd::engine::evaluate_function:") && strstr(name, "AccumulateGrad"))) {
    o->kind = OP_ACCUMULATE;
  } else if (strstr(name, "Backward") && !starts(name, "aten::")) {
    o->kind = OP_BACKWARD;
  } else if ((starts(name, "aten::conv") && strcmp(name, "aten::convolution_backward") != 0 &&
              !strstr(name, "backward")) || strcmp(name, "aten::linear") == 0) {
    double w = dims_product(dims, 1, &r1);
    double b = dims_product(dims, 2, &r2);
    double in = dims_product(dims, 0, &r0);
    const cJSON* d0 = cJSON_GetArrayItem(dims, 0);
    if (w > 0 && r1 >= 2) {
      o->kind = OP_LAYER;
      o->params = w + b;
      o->input = in;
      o->batch = cJSON_IsNumber(cJSON_GetArrayItem(d0, 0)) ? cJSON_GetArrayItem(d0, 0)->valuedouble : 0;
      const cJSON* wd = cJSON_GetArrayItem(dims, 1);
      int len = snprintf(o->layer_name, sizeof(o->layer_name), "%s", starts(name, "aten::linear") ? "linear" : "conv");
      const cJSON* x;
      int first = 1;
      cJSON_ArrayForEach(x, wd)
      {
        len += snprintf(o->layer_name + len, sizeof(o->layer_name) - (size_t)len, "%s%.0f", first ? "_" : "x",
                        x->valuedouble);
        first = 0;
        if ((size_t)len >= sizeof(o->layer_name))
          break;
      }
    }
  } else if (strcmp(name, "aten::addmm") == 0) {
    double w = dims_product(dims, 2, &r2);
    double b = dims_product(dims, 0, &r0);
    const cJSON* d1 = cJSON_GetArrayItem(dims, 1);
    if (w > 0) {
      o->kind = OP_LAYER;
      o->params = w + b;
      o->batch = cJSON_IsNumber(cJSON_GetArrayItem(d1, 0)) ? cJSON_GetArrayItem(d1, 0)->valuedouble : 0;
      snprintf(o->layer_name, sizeof(o->layer_name), "addmm_%.0f", w);
    }
  } else if (strcmp(name, "aten::embedding") == 0) {
    double w = dims_product(dims, 0, &r0);
    if (w > 0) {
      o->kind = OP_LAYER;
      o->params = w;
      snprintf(o->layer_name, sizeof(o->layer_name), "embedding_%.0f", w);
    }
  } else if (strcmp(name, "aten::batch_norm") == 0 || strcmp(name, "aten::layer_norm") == 0) {
    int wk = strcmp(name, "aten::batch_norm") == 0 ? 1 : 2;
    o->kind = OP_NORM;
    o->params = dims_product(dims, wk, &r1) + dims_product(dims, wk + 1, &r2);
  }
}

static int keep_event(trace* t, const cJSON* e, ss_err* err)
{
  const cJSON* ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
  const cJSON* cat = cJSON_GetObjectItemCaseSensitive(e, "cat");
  const cJSON* name = cJSON_GetObjectItemCaseSensitive(e, "name");
  const cJSON* args = cJSON_GetObjectItemCaseSensitive(e, "args");
  t->events++;
  if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "X") != 0 || !cJSON_IsString(cat) || !cJSON_IsString(name))
    return SS_OK;
  double ts = num_arg(e, "ts", NAN), dur = num_arg(e, "dur", NAN);
  if (!isfinite(ts) || !isfinite(dur) || dur < 0)
    return ss_err_set(err, t->path, 0, "event %ld ('%s'): expected numbers 'ts' and 'dur' >= 0", t->events,
                      name->valuestring);
  const char* c = cat->valuestring;
  if (strcmp(c, "Operator") == 0 || strcmp(c, "cpu_op") == 0 || strcmp(c, "user_annotation") == 0) {
    if (t->nops == t->capops) {
      size_t cap = t->capops ? 2 * t->capops : 4096;
      op* grown = realloc(t->ops, cap * sizeof(op));
      if (!grown)
        return ss_err_set(err, NULL, 0, "out of memory");
      t->ops = grown;
      t->capops = cap;
    }
    op* o = &t->ops[t->nops];
    memset(o, 0, sizeof(*o));
    o->ts = ts;
    o->end = ts + dur;
    const cJSON* tid = cJSON_GetObjectItemCaseSensitive(e, "tid");
    char tname[64];
    if (cJSON_IsString(tid))
      snprintf(tname, sizeof(tname), "%s", tid->valuestring);
    else
      snprintf(tname, sizeof(tname), "%.0f", cJSON_IsNumber(tid) ? tid->valuedouble : -1);
    if ((o->tid = intern_tid(t, tname)) < 0)
      return ss_err_set(err, NULL, 0, "out of memory");
    o->ext = id_arg(args, "External id", -1);
    o->seq = id_arg(args, "Sequence number", -1);
    classify(o, name->valuestring, args);
    t->nops++;
  } else if (strcmp(c, "Kernel") == 0 || strcmp(c, "kernel") == 0 || strcmp(c, "Memset") == 0 ||
             strcmp(c, "gpu_memset") == 0 || strcmp(c, "Memcpy") == 0 || strcmp(c, "gpu_memcpy") == 0) {
    if (t->nkernels == t->capkernels) {
      size_t cap = t->capkernels ? 2 * t->capkernels : 4096;
      kernel* grown = realloc(t->kernels, cap * sizeof(kernel));
      if (!grown)
        return ss_err_set(err, NULL, 0, "out of memory");
      t->kernels = grown;
      t->capkernels = cap;
    }
    kernel* k = &t->kernels[t->nkernels++];
    k->ts = ts;
    k->dur = dur;
    k->ext = id_arg(args, "external id", id_arg(args, "External id", -1));
    k->htod = strstr(name->valuestring, "HtoD") != NULL;
    k->bytes = num_arg(args, "bytes", 0);
  }
  return SS_OK;
}

/* ---- streaming reader: the top-level object, its traceEvents array one element at a time ---- */

typedef struct reader {
  gzFile f;
  const char* path;
  unsigned char buf[1 << 16];
  int len, pos;
  long line;
  int eof;
  int nul;  /* stopped at a NUL byte (JSON text has none) */
  int zerr; /* stopped at a gzip error (zlib's code) */
} reader;

/* The next byte, or -1 at the end, a gzip error or a NUL byte (the reader stops there). */
static int rd_peek(reader* r)
{
  if (r->pos == r->len) {
    if (r->eof)
      return -1;
    r->len = gzread(r->f, r->buf, sizeof(r->buf));
    r->pos = 0;
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

/* A growable byte buffer for one JSON value. */
typedef struct text {
  char* s;
  size_t n, cap;
} text;

static int text_put(text* t, char c)
{
  if (t->n + 2 > t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 4096;
    char* grown = realloc(t->s, cap);
    if (!grown)
      return -1;
    t->s = grown;
    t->cap = cap;
  }
  t->s[t->n++] = c;
  t->s[t->n] = '\0';
  return 0;
}

/* Bounds of one JSON value (an event is a few hundred bytes): cJSON takes about 80 bytes per
 * element, and the text is held whole. */
#define RD_MAX_BYTES ((size_t)16 << 20)
#define RD_MAX_ELEMENTS 1000000L

/* Copy one JSON value (object, array, string, number, literal) into out, tracking nesting and
 * strings. Returns 0, -1 at a premature end (or NUL byte, or gzip error), -2 beyond RD_MAX_BYTES
 * or RD_MAX_ELEMENTS. */
static int rd_value(reader* r, text* out)
{
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
  if (r->zerr == Z_BUF_ERROR)
    return ss_err_set(err, r->path, 0, "truncated gzip data (the file ends inside the compressed stream)");
  if (r->zerr == Z_MEM_ERROR)
    return ss_err_set(err, NULL, 0, "out of memory");
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

static int read_trace(trace* t, ss_err* err)
{
  reader* r = calloc(1, sizeof(reader));
  text v = {0};
  if (!r)
    return ss_err_set(err, NULL, 0, "out of memory");
  r->path = t->path;
  r->line = 1;
  r->f = gzopen(t->path, "rb");
  int rc = SS_OK, saw_events = 0, vrc = 0;
  if (!r->f) {
    rc = ss_err_set(err, t->path, 0, "cannot open the trace: %s", strerror(errno ? errno : ENOENT));
    goto done;
  }
  size_t plen = strlen(t->path);
  if (rd_peek(r) >= 0 && gzdirect(r->f) && plen > 3 && strcmp(t->path + plen - 3, ".gz") == 0) {
    rc = ss_err_set(err, t->path, 0, "not gzip data, though the name ends in .gz");
    goto done;
  }
  if (r->len >= 3 && memcmp(r->buf, "\xef\xbb\xbf", 3) == 0)
    r->pos = 3; /* a UTF-8 byte order mark */
  if (rd_skip_ws(r) != '{') {
    rc = r->eof && !r->zerr && r->line == 1 ? ss_err_set(err, t->path, 0, "empty file (expected a Kineto trace)")
                                            : syntax(r, err, "expected a JSON object");
    goto done;
  }
  rd_get(r);
  for (;;) {
    int c = rd_skip_ws(r);
    if (c == '}')
      break;
    if (c == ',') {
      rd_get(r);
      continue;
    }
    if (c != '"' || (vrc = rd_value(r, &v))) {
      rc = syntax_at(r, err, r->line, vrc,
                     c < 0 ? "the file ends inside the top-level object (truncated?)"
                     : c == '"' ? "the file ends inside a key (truncated?)" : "expected a key");
      goto done;
    }
    int events = strcmp(v.s, "\"traceEvents\"") == 0;
    int devices = strcmp(v.s, "\"deviceProperties\"") == 0;
    if (rd_skip_ws(r) != ':') {
      rc = syntax(r, err, "expected ':' after a key");
      goto done;
    }
    rd_get(r);
    rd_skip_ws(r);
    if (events) {
      saw_events = 1;
      if (rd_get(r) != '[') {
        rc = syntax(r, err, "traceEvents is not an array");
        goto done;
      }
      for (;;) {
        c = rd_skip_ws(r);
        if (c == ']') {
          rd_get(r);
          break;
        }
        if (c == ',') {
          rd_get(r);
          continue;
        }
        long line = r->line;
        cJSON* e = NULL;
        if (c != '{' || (vrc = rd_value(r, &v)) || !(e = cJSON_ParseWithLength(v.s, v.n))) {
          rc = syntax_at(r, err, line, vrc,
                         c < 0 || r->eof ? "the file ends inside traceEvents (truncated?)"
                         : c != '{'      ? "an event is not a JSON object"
                                         : "an event is malformed JSON");
          goto done;
        }
        rc = keep_event(t, e, err);
        cJSON_Delete(e);
        if (rc)
          goto done;
      }
    } else {
      long line = r->line;
      if ((vrc = rd_value(r, &v))) {
        rc = syntax_at(r, err, line, vrc, "the file ends inside a value (truncated?)");
        goto done;
      }
      cJSON* d = devices ? cJSON_ParseWithLength(v.s, v.n) : NULL;
      const cJSON* name = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(d, 0), "name");
      if (cJSON_IsString(name))
        snprintf(t->gpu_model, sizeof(t->gpu_model), "%s", name->valuestring);
      cJSON_Delete(d);
    }
  }
  rd_get(r);
  if (!saw_events)
    rc = syntax(r, err, "no traceEvents array");
  else if (rd_skip_ws(r) >= 0 || r->nul || r->zerr)
    rc = syntax(r, err, "text after the top-level object");
done:
  if (r->f)
    gzclose(r->f);
  free(r);
  free(v.s);
  return rc;
}

/* ---- analysis ---- */

static int by_tid_ts(const void* a, const void* b)
{
  const op* x = a;
  const op* y = b;
  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->end > y->end ? -1 : x->end < y->end; /* the enclosing one first */
}

static int is_special(op_kind k)
{
  return k == OP_DATA || k == OP_OPTIMIZER || k == OP_BACKWARD || k == OP_ACCUMULATE;
}

/* Nesting on each thread (an operator inside another starts and ends within it): each operator's
 * outermost special and weighted ancestors, and its own time without its children's. */
static int nest(trace* t)
{
  if (t->nops) /* ops is NULL when there are none: qsort's argument must not be */
    qsort(t->ops, t->nops, sizeof(op), by_tid_ts);
  size_t* stack = malloc(sizeof(size_t) * (t->nops + 1));
  if (!stack)
    return SS_ENOMEM;
  size_t depth = 0;
  for (size_t i = 0; i < t->nops; i++) {
    op* o = &t->ops[i];
    while (depth > 0 && (t->ops[stack[depth - 1]].tid != o->tid || o->ts >= t->ops[stack[depth - 1]].end))
      depth--;
    o->self = o->end - o->ts;
    o->special = -1;
    o->layer_op = -1;
    if (depth > 0) {
      op* parent = &t->ops[stack[depth - 1]];
      parent->self -= o->end - o->ts;
      o->special = parent->special;
      o->layer_op = parent->layer_op;
    }
    if (o->special < 0 && is_special(o->kind))
      o->special = (int)i;
    if (o->layer_op < 0 && o->kind == OP_LAYER)
      o->layer_op = (int)i;
    stack[depth++] = i;
  }
  for (size_t i = 0; i < t->nops; i++)
    if (t->ops[i].self < 0)
      t->ops[i].self = 0;
  free(stack);
  return SS_OK;
}

typedef struct ext_entry {
  long ext;
  int op;
} ext_entry;

static int by_ext(const void* a, const void* b)
{
  const ext_entry* x = a;
  const ext_entry* y = b;
  return x->ext < y->ext ? -1 : x->ext > y->ext;
}

typedef struct seq_entry {
  long seq;
  int layer;
} seq_entry;

/* By sequence number, then by layer: the first forward operator of a number comes first. */
static int by_seq(const void* a, const void* b)
{
  const seq_entry* x = a;
  const seq_entry* y = b;
  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  return x->layer < y->layer ? -1 : x->layer > y->layer;
}

static int seq_only(const void* a, const void* b)
{
  const seq_entry* x = a;
  const seq_entry* y = b;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_value(const void* a, const void* b)
{
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* v, int n)
{
  qsort(v, (size_t)n, sizeof(double), by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Per step (index in steps[]): the forward and backward GPU time of each layer, optimizer GPU
 * time, the DataLoader's span, the largest host-to-device copy. */
typedef struct step_stats {
  double t0, t1;
  int nlayers;
  double* fwd;
  double* bwd;
  double* params;
  char (*names)[64];
  double opt, data, htod_bytes, batch, input;
} step_stats;

static int by_start(const void* a, const void* b)
{
  const step_stats* x = a;
  const step_stats* y = b;
  return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* Grow the per-layer arrays of s to hold n layers. */
static int grow_layers(step_stats* s, int n, int* cap)
{
  if (n <= *cap)
    return SS_OK;
  int c = *cap ? 2 * *cap : 16;
  double* f = realloc(s->fwd, sizeof(double) * (size_t)c);
  if (f)
    s->fwd = f;
  double* b = realloc(s->bwd, sizeof(double) * (size_t)c);
  if (b)
    s->bwd = b;
  double* p = realloc(s->params, sizeof(double) * (size_t)c);
  if (p)
    s->params = p;
  char(*nm)[64] = realloc(s->names, sizeof(*s->names) * (size_t)c);
  if (nm)
    s->names = nm;
  if (!f || !b || !p || !nm)
    return SS_ENOMEM;
  *cap = c;
  return SS_OK;
}

/* What falls in each profiler step: the operators that start in it (indices into ops, in order)
 * and the kernels whose operator does (with that operator). Step k's are op[op_start[k] ..
 * op_start[k + 1]) and kernel[kernel_start[k] .. kernel_start[k + 1]); steps are sorted by start
 * and do not overlap, so that each operator is looked at once, however many steps there are. */
typedef struct step_index {
  size_t* op;
  size_t* op_start;
  size_t* kernel;
  size_t* kernel_start;
  int* kernel_op; /* by kernel: the index of its operator, -1 if none */
} step_index;

static void step_index_free(step_index* x)
{
  free(x->op);
  free(x->op_start);
  free(x->kernel);
  free(x->kernel_start);
  free(x->kernel_op);
}

/* The step whose span holds ts, or -1. */
static int step_at(const step_stats* steps, int nsteps, double ts)
{
  int lo = 0, hi = nsteps; /* the first step that starts after ts */
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (steps[mid].t0 <= ts)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 && ts < steps[lo - 1].t1 ? lo - 1 : -1;
}

/* Put item i (of n) in bucket of[i] (or none when -1), keeping their order: a counting sort. */
static int bucket(const int* of, size_t n, int nbuckets, size_t** items, size_t** start)
{
  *items = malloc(sizeof(size_t) * (n + 1));
  *start = calloc((size_t)nbuckets + 2, sizeof(size_t));
  if (!*items || !*start)
    return SS_ENOMEM;
  for (size_t i = 0; i < n; i++)
    if (of[i] >= 0)
      (*start)[of[i] + 2]++;
  for (int k = 0; k < nbuckets; k++)
    (*start)[k + 2] += (*start)[k + 1];
  for (size_t i = 0; i < n; i++)
    if (of[i] >= 0)
      (*items)[(*start)[of[i] + 1]++] = i;
  return SS_OK;
}

static int index_steps(const trace* t, const ext_entry* map, size_t nmap, const step_stats* steps, int nsteps,
                       step_index* x)
{
  int* op_step = malloc(sizeof(int) * (t->nops + 1));
  int* kernel_step = malloc(sizeof(int) * (t->nkernels + 1));
  x->kernel_op = malloc(sizeof(int) * (t->nkernels + 1));
  int rc = op_step && kernel_step && x->kernel_op ? SS_OK : SS_ENOMEM;
  for (size_t i = 0; !rc && i < t->nops; i++)
    op_step[i] = step_at(steps, nsteps, t->ops[i].ts);
  for (size_t q = 0; !rc && q < t->nkernels; q++) {
    ext_entry key = {t->kernels[q].ext, 0};
    const ext_entry* hit = key.ext >= 0 ? bsearch(&key, map, nmap, sizeof(ext_entry), by_ext) : NULL;
    x->kernel_op[q] = hit ? hit->op : -1;
    kernel_step[q] = hit ? op_step[hit->op] : -1;
  }
  if (!rc)
    rc = bucket(op_step, t->nops, nsteps, &x->op, &x->op_start);
  if (!rc)
    rc = bucket(kernel_step, t->nkernels, nsteps, &x->kernel, &x->kernel_start);
  free(op_step);
  free(kernel_step);
  return rc;
}

/* Analyse step k; layer_of (by operator) is -1 throughout, and so again on return. */
static int analyse_step(const trace* t, const step_index* x, int k, int* layer_of, step_stats* s, ss_err* err)
{
  size_t n = t->nops;
  const size_t* idx = x->op + x->op_start[k];
  size_t m = x->op_start[k + 1] - x->op_start[k];
  int cpu = t->nkernels == 0; /* no GPU kernels: a CPU run, whose operators' own time is the device's */
  /* The forward thread: the thread of the first operator with weights in the step. */
  int ftid = -1;
  for (size_t j = 0; j < m && ftid < 0; j++)
    if (t->ops[idx[j]].kind == OP_LAYER && t->ops[idx[j]].special < 0)
      ftid = t->ops[idx[j]].tid;
  if (ftid < 0)
    return ss_err_set(err, t->path, 0, "no layer (conv, linear, addmm, embedding) runs inside a profiler step");
  seq_entry* seqs = malloc(sizeof(seq_entry) * (m + 1));
  if (!seqs)
    return ss_err_set(err, NULL, 0, "out of memory");
  /* Forward: a layer starts at each outermost operator with weights on the training thread; the
   * operators after it (norms, activations, pooling, additions, the loss) belong to it until the
   * next. DataLoader, optimizer and autograd work are not forward. */
  int nl = 0, cap = 0, rc = SS_OK;
  for (size_t j = 0; j < m; j++) {
    size_t i = idx[j];
    const op* o = &t->ops[i];
    if (o->tid != ftid || o->special >= 0 || o->kind == OP_STEP)
      continue;
    if (o->layer_op == (int)i) {
      if (grow_layers(s, nl + 1, &cap)) {
        rc = ss_err_set(err, NULL, 0, "out of memory");
        goto done;
      }
      s->fwd[nl] = s->bwd[nl] = 0;
      s->params[nl] = o->params;
      snprintf(s->names[nl], sizeof(s->names[0]), "%s", o->layer_name);
      if (s->batch == 0) {
        s->batch = o->batch;
        s->input = o->input;
      }
      nl++;
    }
    if (nl == 0)
      continue; /* before the first layer (the input's copy): no layer's */
    layer_of[i] = nl - 1;
    if (o->kind == OP_NORM)
      s->params[nl - 1] += o->params;
    if (cpu)
      s->fwd[nl - 1] += o->self;
  }
  if (nl == 0) {
    /* Its operators with weights are all inside one that began before the step. */
    rc = ss_err_set(err, t->path, 0, "no layer (conv, linear, addmm, embedding) starts inside a profiler step");
    goto done;
  }
  /* Backward: an autograd node belongs to the layer of the forward operator with its sequence
   * number; AccumulateGrad to the node before it on its thread; what runs inside a node to it. */
  size_t nseq = 0;
  for (size_t j = 0; j < m; j++)
    if (layer_of[idx[j]] >= 0 && t->ops[idx[j]].seq >= 0)
      seqs[nseq++] = (seq_entry){t->ops[idx[j]].seq, layer_of[idx[j]]};
  qsort(seqs, nseq, sizeof(seq_entry), by_seq);
  int last = nl - 1, last_tid = -1;
  for (size_t j = 0; j < m; j++) {
    size_t i = idx[j];
    const op* o = &t->ops[i];
    if (o->kind == OP_STEP)
      continue;
    /* Autograd work, and whatever the backward threads run between nodes (summing the gradients
     * a tensor receives from two uses): to the node before it. */
    int autograd = o->special >= 0 && (t->ops[o->special].kind == OP_BACKWARD ||
                                       t->ops[o->special].kind == OP_ACCUMULATE);
    if (!autograd && (o->special >= 0 || o->tid == ftid))
      continue;
    if (o->tid != last_tid) {
      last = nl - 1;
      last_tid = o->tid;
    }
    /* A node's sequence number is on it, or on the node inside its evaluate_function wrapper. */
    for (size_t q = i; o->special == (int)i && o->kind == OP_BACKWARD && q < n && t->ops[q].tid == o->tid &&
                       t->ops[q].ts < o->end;
         q++)
      if (t->ops[q].kind == OP_BACKWARD && t->ops[q].seq >= 0) {
        seq_entry key = {t->ops[q].seq, 0};
        const seq_entry* hit = bsearch(&key, seqs, nseq, sizeof(seq_entry), seq_only);
        if (hit)
          last = hit->layer;
        break;
      }
    layer_of[i] = nl + last; /* nl + L: backward of layer L */
    if (cpu)
      s->bwd[last] += o->self;
  }
  /* GPU time of each kernel, to the layer of the operator that launched it. */
  for (size_t j = x->kernel_start[k]; j < x->kernel_start[k + 1]; j++) {
    const kernel* kk = &t->kernels[x->kernel[j]];
    int oi = x->kernel_op[x->kernel[j]];
    const op* o = &t->ops[oi];
    if (kk->htod) {
      if (kk->bytes > s->htod_bytes)
        s->htod_bytes = kk->bytes;
      continue;
    }
    int l = layer_of[oi];
    if (o->special >= 0 && t->ops[o->special].kind == OP_OPTIMIZER)
      s->opt += kk->dur;
    else if (l >= nl)
      s->bwd[l - nl] += kk->dur;
    else if (l >= 0)
      s->fwd[l] += kk->dur;
  }
  /* The DataLoader's spans, and on a CPU the optimizer's time. */
  for (size_t j = 0; j < m; j++) {
    size_t i = idx[j];
    const op* o = &t->ops[i];
    if (o->special < 0)
      continue;
    if (o->special == (int)i && o->kind == OP_DATA)
      s->data += o->end - o->ts;
    else if (cpu && t->ops[o->special].kind == OP_OPTIMIZER)
      s->opt += o->self;
  }
  s->nlayers = nl;
done:
  for (size_t j = 0; j < m; j++)
    layer_of[idx[j]] = -1;
  free(seqs);
  return rc;
}

/* Peak FP32 speed of GPUs a trace may name (datasheet figures, not measurements): the workload's
 * reference speed, which stash-sim only uses as a ratio to a platform's GPU. */
static const struct {
  const char* prefix;
  double flops;
} peak_fp32[] = {{"Tesla V100", 15.7e12}, {"NVIDIA A100", 19.5e12}, {"A100", 19.5e12},  {"Tesla T4", 8.1e12},
                 {"NVIDIA H100", 67e12},  {"Tesla K80", 4.37e12}, {"NVIDIA A10G", 31.2e12}, {NULL, 0}};

static const char trace_usage[] =
    "usage: stash-calibrate trace TRACE.json[.gz] -o WORKLOAD.json --samples N [options]\n"
    "\n"
    "Reads a PyTorch profiler (Kineto) Chrome trace of training steps, plain or gzipped, as a\n"
    "stream, and writes a stash-sim workload: for each layer (an operator with weights: conv,\n"
    "linear, addmm, embedding; with the norms, activations and pooling after it) its forward and\n"
    "backward GPU time, its parameters from the weight shapes, the optimizer's GPU time, the batch,\n"
    "the bytes copied to the GPU per sample and the DataLoader's time per sample. Only the\n"
    "profiler's steps (ProfilerStep#N) count; each figure is the median over them. A trace with no\n"
    "GPU kernels (a CPU run) gives each operator's own CPU time instead.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE        the workload to write (required)\n"
    "      --samples N          samples in an epoch of the dataset (required: not in a trace)\n"
    "      --bytes-per-sample B bytes of a sample on storage (default: the bytes copied to the GPU)\n"
    "      --dataset NAME       the dataset's name (default: unknown)\n"
    "      --model NAME         the model's name (default: the trace file's name)\n"
    "      --gpu-flops F        peak FP32 flop/s of the traced GPU (default: from its name, for\n"
    "                           V100, A100, T4, H100, K80, A10G)\n"
    "      --grad-bytes B       bytes of one gradient element (default 4, FP32)\n"
    "      --gpu-model NAME     the device's name in the workload (default: the trace's GPU; a CPU\n"
    "                           trace has none: name it as the platform's gpu_model to match)\n"
    "  -h, --help               print this help\n";

enum { T_SAMPLES = 256, T_BYTES, T_DATASET, T_MODEL, T_FLOPS, T_GRAD, T_GPU };

static const struct option trace_options[] = {
    {"output", required_argument, NULL, 'o'},  {"samples", required_argument, NULL, T_SAMPLES},
    {"bytes-per-sample", required_argument, NULL, T_BYTES}, {"dataset", required_argument, NULL, T_DATASET},
    {"model", required_argument, NULL, T_MODEL}, {"gpu-flops", required_argument, NULL, T_FLOPS},
    {"grad-bytes", required_argument, NULL, T_GRAD}, {"gpu-model", required_argument, NULL, T_GPU},
    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};

typedef struct trace_opts {
  const char* in;
  const char* out;
  double samples, bytes_per_sample, gpu_flops, grad_bytes;
  const char* dataset;
  const char* model;
  const char* gpu_model;
} trace_opts;

static int positive(const char* arg, double* out)
{
  char* end = NULL;
  double v = strtod(arg, &end);
  if (end == arg || *end || !isfinite(v) || v <= 0)
    return -1;
  *out = v;
  return 0;
}

static int parse_trace_args(int argc, char** argv, trace_opts* o, int* help)
{
  memset(o, 0, sizeof(*o));
  o->grad_bytes = 4;
  o->dataset = "unknown";
  opterr = 0;
  optind = 1;
  int ch;
  while ((ch = getopt_long(argc, argv, ":o:h", trace_options, NULL)) != -1) {
    double v = 0;
    switch (ch) {
      case 'o': o->out = optarg; break;
      case 'h': *help = 1; return 0;
      case T_DATASET: o->dataset = optarg; break;
      case T_MODEL: o->model = optarg; break;
      case T_GPU: o->gpu_model = optarg; break;
      case T_SAMPLES:
      case T_BYTES:
      case T_FLOPS:
      case T_GRAD:
        if (positive(optarg, &v))
          return cal_usage_error("trace", "--%s expects a number > 0, got '%s'",
                                 trace_options[ch == T_SAMPLES ? 1 : ch == T_BYTES ? 2 : ch == T_FLOPS ? 5 : 6].name,
                                 optarg);
        *(ch == T_SAMPLES ? &o->samples : ch == T_BYTES ? &o->bytes_per_sample : ch == T_FLOPS ? &o->gpu_flops
                                                                                            : &o->grad_bytes) = v;
        break;
      case ':': return cal_usage_error("trace", "option '%s' needs a value", argv[optind - 1]);
      default: return cal_usage_error("trace", "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (argc - optind != 1)
    return cal_usage_error("trace", "expected one TRACE.json[.gz], got %d", argc - optind);
  o->in = argv[optind];
  if (!o->out)
    return cal_usage_error("trace", "missing -o WORKLOAD.json");
  if (o->samples <= 0)
    return cal_usage_error("trace", "missing --samples N (the samples of an epoch are not in a trace)");
  return 0;
}

static void trace_free(trace* t)
{
  free(t->ops);
  free(t->kernels);
  for (int i = 0; i < t->ntids; i++)
    free(t->tids[i]);
  free(t->tids);
  free(t->tid_slots);
}

/* The model's name: the trace file's, without directories and extensions. */
static void default_model(const char* path, char* out, size_t size)
{
  const char* base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(out, size, "%s", base);
  char* dot = strchr(out, '.');
  if (dot && dot != out)
    *dot = '\0';
}

static int write_workload(const trace_opts* o, const trace* t, const step_stats* med, int nsteps, ss_err* err)
{
  double flops = o->gpu_flops;
  for (int i = 0; flops <= 0 && peak_fp32[i].prefix; i++)
    if (strncmp(t->gpu_model, peak_fp32[i].prefix, strlen(peak_fp32[i].prefix)) == 0)
      flops = peak_fp32[i].flops;
  if (flops <= 0)
    return ss_err_set(err, t->path, 0, "the traced device '%s' has no known peak speed: give --gpu-flops",
                      t->gpu_model[0] ? t->gpu_model : "(none in deviceProperties)");
  char model[128];
  if (o->model)
    snprintf(model, sizeof(model), "%s", o->model);
  else
    default_model(o->in, model, sizeof(model));
  /* On a CPU nothing is copied to a device: the batch tensor's FP32 bytes stand for it. */
  double decoded = med->htod_bytes > 0 ? med->htod_bytes / med->batch : med->input * 4 / med->batch;
  cJSON* w = cJSON_CreateObject();
  cJSON_AddStringToObject(w, "schema", "stash-sim-workload/1");
  cJSON_AddStringToObject(w, "model", model);
  cJSON_AddStringToObject(w, "precision", "fp32");
  cJSON_AddNumberToObject(w, "batch_per_gpu", med->batch);
  cJSON_AddNumberToObject(w, "grad_bytes_per_param", o->grad_bytes);
  cJSON* ref = cJSON_AddObjectToObject(w, "reference");
  cJSON_AddStringToObject(ref, "gpu_model", o->gpu_model ? o->gpu_model : t->gpu_model[0] ? t->gpu_model : "unknown");
  cJSON_AddNumberToObject(ref, "gpu_flops", flops);
  cJSON_AddNumberToObject(ref, "batch", med->batch);
  cJSON_AddNumberToObject(w, "optimizer_s", med->opt * 1e-6);
  cJSON* layers = cJSON_AddArrayToObject(w, "layers");
  for (int l = 0; l < med->nlayers; l++) {
    cJSON* x = cJSON_CreateObject();
    char name[96];
    snprintf(name, sizeof(name), "%d_%s", l, med->names[l]);
    cJSON_AddStringToObject(x, "name", name);
    cJSON_AddNumberToObject(x, "fwd_s", med->fwd[l] * 1e-6);
    cJSON_AddNumberToObject(x, "bwd_s", med->bwd[l] * 1e-6);
    cJSON_AddNumberToObject(x, "params", med->params[l]);
    cJSON_AddItemToArray(layers, x);
  }
  cJSON* ds = cJSON_AddObjectToObject(w, "dataset");
  cJSON_AddStringToObject(ds, "name", o->dataset);
  cJSON_AddNumberToObject(ds, "samples", o->samples);
  cJSON_AddNumberToObject(ds, "bytes_per_sample", o->bytes_per_sample > 0 ? o->bytes_per_sample : decoded);
  cJSON_AddNumberToObject(ds, "prep_cpu_s_per_sample", med->data * 1e-6 / med->batch);
  cJSON_AddNumberToObject(ds, "decoded_bytes_per_sample", decoded);
  cJSON* pv = cJSON_AddObjectToObject(w, "provenance");
  char line[1024];
  snprintf(line, sizeof(line),
           "MEASURED: stash-calibrate trace %s, the median over %d profiler steps of each layer's GPU kernel time "
           "(a layer: an operator with weights, and the operators after it until the next; backward: the autograd "
           "nodes of its operators, by sequence number, and AccumulateGrad after them)",
           o->in, nsteps);
  cJSON_AddStringToObject(pv, "per_layer_times", line);
  cJSON_AddStringToObject(pv, "params", "DERIVED: the weight and bias shapes of each layer's operator, plus the "
                                        "affine parameters of the norms that follow it");
  cJSON_AddStringToObject(pv, "optimizer_s", "MEASURED: GPU kernels under Optimizer.step and Optimizer.zero_grad");
  cJSON_AddStringToObject(pv, "dataset.prep_cpu_s_per_sample",
                          "MEASURED: the DataLoader's __next__ span per step over the batch; with num_workers = 0 "
                          "that is the training process loading; with workers, the wait, a lower bound");
  cJSON_AddStringToObject(pv, "dataset.decoded_bytes_per_sample",
                          med->htod_bytes > 0 ? "MEASURED: the largest host-to-device copy of a step over the batch"
                                              : "DERIVED: no device copy in the trace (a CPU run): the first layer's "
                                                "input shape, FP32, over the batch");
  snprintf(line, sizeof(line), "%s: %g from --samples; bytes_per_sample %s", o->bytes_per_sample > 0 ? "GIVEN" : "GIVEN",
           o->samples,
           o->bytes_per_sample > 0 ? "from --bytes-per-sample" : "ASSUMED equal to the decoded bytes (none given)");
  cJSON_AddStringToObject(pv, "dataset", line);
  snprintf(line, sizeof(line), "%s peak FP32 flop/s of %s (%s)", o->gpu_flops > 0 ? "GIVEN:" : "NOT MEASURED: datasheet",
           t->gpu_model, o->gpu_flops > 0 ? "--gpu-flops" : "stash-calibrate's table");
  cJSON_AddStringToObject(pv, "reference.gpu_flops", line);
  cJSON_AddStringToObject(pv, "precision", "ASSUMED: fp32 (a trace does not say)");
  char* textout = cJSON_Print(w);
  cJSON_Delete(w);
  if (!textout)
    return ss_err_set(err, NULL, 0, "out of memory");
  FILE* f = fopen(o->out, "w");
  int bad = !f || fputs(textout, f) < 0 || fputc('\n', f) < 0;
  if (f && fclose(f))
    bad = 1;
  free(textout);
  if (bad)
    return ss_err_set(err, o->out, 0, "cannot write the workload: %s", strerror(errno));
  return SS_OK;
}

/* Read back the workload just written, as stash-sim will: a trace (or options) that gives figures
 * out of its ranges (a weight shape of 1e300, a layer of hours, --samples 1e20) is an error here,
 * not a file the simulator rejects later. The output is removed then. Not checked when it is not a
 * regular file (-o /dev/null). */
static int check_written(const trace_opts* o, const trace* t, ss_err* err)
{
  struct stat st;
  if (stat(o->out, &st) != 0 || !S_ISREG(st.st_mode))
    return SS_OK;
  ss_err why;
  ss_err_clear(&why);
  ss_workload* w = NULL;
  int rc = ss_workload_load(o->out, &w, &why);
  ss_workload_free(w);
  if (rc == SS_OK)
    return SS_OK;
  char line[1024];
  ss_err_format(&why, line, sizeof(line));
  remove(o->out);
  return ss_err_set(err, t->path, 0, "it gives a workload that stash-sim would reject (not written): %s", line);
}

int cal_trace_main(int argc, char** argv)
{
  trace_opts o;
  int help = 0;
  int rc = parse_trace_args(argc, argv, &o, &help);
  if (rc || help) {
    if (help)
      fputs(trace_usage, stdout);
    return rc;
  }
  ss_err err;
  ss_err_clear(&err);
  trace t;
  memset(&t, 0, sizeof(t));
  t.path = o.in;
  step_stats* steps = NULL;
  ext_entry* map = NULL;
  step_index x = {0};
  int* layer_of = NULL;
  int nsteps = 0, status = 1;
  step_stats med;
  memset(&med, 0, sizeof(med));
  if (read_trace(&t, &err))
    goto done;
  if (nest(&t)) {
    ss_err_set(&err, NULL, 0, "out of memory");
    goto done;
  }
  map = malloc(sizeof(ext_entry) * (t.nops + 1));
  steps = calloc(t.nops + 1, sizeof(step_stats));
  if (!map || !steps) {
    ss_err_set(&err, NULL, 0, "out of memory");
    goto done;
  }
  size_t nmap = 0;
  for (size_t i = 0; i < t.nops; i++) {
    if (t.ops[i].ext >= 0)
      map[nmap++] = (ext_entry){t.ops[i].ext, (int)i};
    if (t.ops[i].kind == OP_STEP)
      steps[nsteps++] = (step_stats){.t0 = t.ops[i].ts, .t1 = t.ops[i].end};
  }
  qsort(map, nmap, sizeof(ext_entry), by_ext);
  if (nsteps == 0) {
    ss_err_set(&err, t.path, 0, "no profiler step (ProfilerStep#N) in the trace: profile with a schedule and "
                                "call prof.step() every iteration");
    goto done;
  }
  qsort(steps, (size_t)nsteps, sizeof(step_stats), by_start);
  for (int k = 1; k < nsteps; k++)
    if (steps[k].t0 < steps[k - 1].t1) {
      ss_err_set(&err, t.path, 0, "two profiler steps overlap (one starts at %.17g us, before the other ends): "
                                  "expected the steps of one training process, one after another", steps[k].t0);
      goto done;
    }
  layer_of = malloc(sizeof(int) * (t.nops + 1));
  if (!layer_of || index_steps(&t, map, nmap, steps, nsteps, &x)) {
    ss_err_set(&err, NULL, 0, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < t.nops; i++)
    layer_of[i] = -1;
  for (int k = 0; k < nsteps; k++)
    if (analyse_step(&t, &x, k, layer_of, &steps[k], &err))
      goto done;
  for (int k = 1; k < nsteps; k++)
    if (steps[k].nlayers != steps[0].nlayers) {
      ss_err_set(&err, t.path, 0, "profiler steps differ: %d layers in one, %d in another", steps[0].nlayers,
                 steps[k].nlayers);
      goto done;
    }
  if (steps[0].batch <= 0) {
    ss_err_set(&err, t.path, 0, "no batch size in the first layer's input shape (profile with record_shapes=True)");
    goto done;
  }
  if (steps[0].htod_bytes <= 0 && t.nkernels > 0) {
    ss_err_set(&err, t.path, 0, "no host-to-device copy of the batch in a step");
    goto done;
  }
  med = steps[0];
  med.fwd = calloc((size_t)med.nlayers, sizeof(double));
  med.bwd = calloc((size_t)med.nlayers, sizeof(double));
  double* v = calloc((size_t)nsteps, sizeof(double));
  if (!med.fwd || !med.bwd || !v) {
    free(v);
    ss_err_set(&err, NULL, 0, "out of memory");
    goto done;
  }
  for (int l = 0; l < med.nlayers; l++) {
    for (int k = 0; k < nsteps; k++)
      v[k] = steps[k].fwd[l];
    med.fwd[l] = median(v, nsteps);
    for (int k = 0; k < nsteps; k++)
      v[k] = steps[k].bwd[l];
    med.bwd[l] = median(v, nsteps);
  }
  for (int k = 0; k < nsteps; k++)
    v[k] = steps[k].opt;
  med.opt = median(v, nsteps);
  for (int k = 0; k < nsteps; k++)
    v[k] = steps[k].data;
  med.data = median(v, nsteps);
  free(v);
  if (write_workload(&o, &t, &med, nsteps, &err) || check_written(&o, &t, &err))
    goto done;
  status = 0;
done:
  if (status) {
    char line[2048];
    ss_err_format(&err, line, sizeof(line));
    fprintf(stderr, "%s\n", line);
  }
  for (int k = 0; steps && k < nsteps; k++) {
    free(steps[k].fwd);
    free(steps[k].bwd);
    free(steps[k].params);
    free(steps[k].names);
  }
  free(med.fwd);
  free(med.bwd);
  free(steps);
  free(map);
  free(layer_of);
  step_index_free(&x);
  trace_free(&t);
  return status;
}
