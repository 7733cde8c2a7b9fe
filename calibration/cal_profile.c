/* cal_profile: the operators and kernels of a Kineto trace, their nesting, and each profiler
 * step's per-layer forward, backward, optimizer and DataLoader times, with the median over steps. */
#include "cal_profile.h"

#include "array.h"
#include "cal_kineto.h"
#include "names.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  long seq; /* -1: none */
  op_kind kind;
  int step;          /* ProfilerStep number (OP_STEP) */
  double params;     /* OP_LAYER, OP_NORM: parameters (weights and biases) */
  double tensors[2]; /* OP_LAYER, OP_NORM: elements of its weight and bias, those it has */
  int ntensors;
  double batch; /* OP_LAYER: the first dimension of its input */
  double input; /* OP_LAYER: elements of its input */
  char layer_name[64];
  int special;  /* its outermost enclosing (or own) DataLoader, optimizer or autograd-node operator, -1 */
  int layer_op; /* its outermost enclosing (or own) operator with weights, -1 */
  int parent;   /* the operator it runs inside, -1 */
  double self;  /* its time without that of the operators inside it */
  int stack;    /* it recorded its Python call stack (with_stack) */
  int name;     /* its name, interned in cal_profile.names */
  int leaf;     /* no operator runs inside it */
  int nmem;     /* [memory] events inside it and none of its children (profile_memory) */
  int nrt;      /* CUDA runtime calls inside it and none of its children */
} op;

/* An event the profiler records inside an operator: an allocation or free, a CUDA runtime call. */
typedef enum mark_kind { MARK_MEMORY, MARK_RUNTIME } mark_kind;
typedef struct mark {
  double ts;
  int tid;
  mark_kind kind;
} mark;

typedef struct kernel {
  double ts, dur;
  long ext;
  int htod; /* a host-to-device copy */
  double bytes;
} kernel;

struct cal_profile {
  const char* path;
  op* ops;
  size_t nops, capops;
  kernel* kernels;
  size_t nkernels, capkernels;
  mark* marks;
  size_t nmarks, capmarks;
  ss_names threads; /* their names: a trace may name many */
  ss_names names;   /* the operators' */
  char gpu_model[128];
  long events;
  cal_profiler_cost cost; /* removed from the host times (cal_profile_set_cost) */
  int stack_pairs;        /* operator kinds the stack's cost was measured on (stack_cost) */
};

/* A key (an operator's External id, a Sequence number) and what has it (an operator, a layer). */
typedef struct key_entry {
  long key;
  int value;
} key_entry;

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

/* A layer's or norm's parameters: its weight's and bias's elements (w > 0; b >= 0: 0 for none). */
static void set_params(op* o, op_kind kind, double w, double b)
{
  o->kind = kind;
  o->params = w + b;
  o->ntensors = 0;
  if (w > 0)
    o->tensors[o->ntensors++] = w;
  if (b > 0)
    o->tensors[o->ntensors++] = b;
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
              !strstr(name, "backward")) ||
             strcmp(name, "aten::linear") == 0) {
    double w = dims_product(dims, 1, &r1);
    double b = dims_product(dims, 2, &r2);
    double in = dims_product(dims, 0, &r0);
    const cJSON* d0 = cJSON_GetArrayItem(dims, 0);
    if (w > 0 && r1 >= 2) {
      set_params(o, OP_LAYER, w, b);
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
      set_params(o, OP_LAYER, w, b);
      o->batch = cJSON_IsNumber(cJSON_GetArrayItem(d1, 0)) ? cJSON_GetArrayItem(d1, 0)->valuedouble : 0;
      snprintf(o->layer_name, sizeof(o->layer_name), "addmm_%.0f", w);
    }
  } else if (strcmp(name, "aten::embedding") == 0) {
    double w = dims_product(dims, 0, &r0);
    if (w > 0) {
      set_params(o, OP_LAYER, w, 0);
      snprintf(o->layer_name, sizeof(o->layer_name), "embedding_%.0f", w);
    }
  } else if (strcmp(name, "aten::batch_norm") == 0 || strcmp(name, "aten::layer_norm") == 0) {
    int wk = strcmp(name, "aten::batch_norm") == 0 ? 1 : 2;
    set_params(o, OP_NORM, dims_product(dims, wk, &r1), dims_product(dims, wk + 1, &r2));
  }
}

/* An event's thread, its name interned (a number or a string in traces). */
static int thread_of(cal_profile* t, const cJSON* e)
{
  const cJSON* tid = cJSON_GetObjectItemCaseSensitive(e, "tid");
  char tname[64];
  if (cJSON_IsString(tid))
    snprintf(tname, sizeof(tname), "%s", tid->valuestring);
  else
    snprintf(tname, sizeof(tname), "%.0f", cJSON_IsNumber(tid) ? tid->valuedouble : -1);
  return ss_names_add(&t->threads, tname, NULL);
}

/* An operator of the trace, its thread's name interned. */
static int keep_op(cal_profile* t, const cJSON* e, const char* name, const cJSON* args, double ts, double dur)
{
  op* grown = ss_array_grow(t->ops, &t->capops, t->nops + 1, sizeof(op), 4096);
  if (!grown)
    return SS_ENOMEM;
  t->ops = grown;
  op* o = &t->ops[t->nops];
  memset(o, 0, sizeof(*o));
  o->ts = ts;
  o->end = ts + dur;
  if ((o->tid = thread_of(t, e)) < 0)
    return SS_ENOMEM;
  o->ext = id_arg(args, "External id", -1);
  o->seq = id_arg(args, "Sequence number", -1);
  const cJSON* stack = cJSON_GetObjectItemCaseSensitive(args, "Call stack");
  o->stack = cJSON_IsString(stack) && stack->valuestring[0];
  if ((o->name = ss_names_add(&t->names, name, NULL)) < 0)
    return SS_ENOMEM;
  classify(o, name, args);
  t->nops++;
  return SS_OK;
}

/* A GPU kernel, memset or copy of the trace. */
static int keep_kernel(cal_profile* t, const char* name, const cJSON* args, double ts, double dur)
{
  kernel* grown = ss_array_grow(t->kernels, &t->capkernels, t->nkernels + 1, sizeof(kernel), 4096);
  if (!grown)
    return SS_ENOMEM;
  t->kernels = grown;
  kernel* k = &t->kernels[t->nkernels++];
  k->ts = ts;
  k->dur = dur;
  k->ext = id_arg(args, "external id", id_arg(args, "External id", -1));
  k->htod = strstr(name, "HtoD") != NULL;
  k->bytes = num_arg(args, "bytes", 0);
  return SS_OK;
}

/* An allocation, free or CUDA runtime call at ts, on its thread. */
static int keep_mark(cal_profile* t, const cJSON* e, double ts, mark_kind kind)
{
  mark* grown = ss_array_grow(t->marks, &t->capmarks, t->nmarks + 1, sizeof(mark), 4096);
  if (!grown)
    return SS_ENOMEM;
  t->marks = grown;
  mark* m = &t->marks[t->nmarks];
  m->ts = ts;
  m->kind = kind;
  if ((m->tid = thread_of(t, e)) < 0)
    return SS_ENOMEM;
  t->nmarks++;
  return SS_OK;
}

/* A cal_kineto_event_fn: keeps an operator, a kernel, or a mark (keep_mark) of the trace in t (ctx). */
static int keep_event(void* ctx, const cJSON* e, ss_err* err)
{
  cal_profile* t = ctx;
  const cJSON* ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
  const cJSON* cat = cJSON_GetObjectItemCaseSensitive(e, "cat");
  const cJSON* name = cJSON_GetObjectItemCaseSensitive(e, "name");
  const cJSON* args = cJSON_GetObjectItemCaseSensitive(e, "args");
  t->events++;
  /* profile_memory's instant events; a time that is not a number is no mark. */
  if (cJSON_IsString(ph) && strcmp(ph->valuestring, "i") == 0 && cJSON_IsString(name) &&
      strcmp(name->valuestring, "[memory]") == 0) {
    double ts = num_arg(e, "ts", NAN);
    return isfinite(ts) && keep_mark(t, e, ts, MARK_MEMORY) ? ss_err_nomem(err) : SS_OK;
  }
  if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "X") != 0 || !cJSON_IsString(cat) || !cJSON_IsString(name))
    return SS_OK;
  double ts = num_arg(e, "ts", NAN), dur = num_arg(e, "dur", NAN);
  if (!isfinite(ts) || !isfinite(dur) || dur < 0)
    return ss_err_set(err, t->path, 0, "event %ld ('%s'): expected numbers 'ts' and 'dur' >= 0", t->events,
                      name->valuestring);
  const char* c = cat->valuestring;
  int rc = SS_OK;
  if (strcmp(c, "Operator") == 0 || strcmp(c, "cpu_op") == 0 || strcmp(c, "user_annotation") == 0)
    rc = keep_op(t, e, name->valuestring, args, ts, dur);
  else if (strcmp(c, "Kernel") == 0 || strcmp(c, "kernel") == 0 || strcmp(c, "Memset") == 0 ||
           strcmp(c, "gpu_memset") == 0 || strcmp(c, "Memcpy") == 0 || strcmp(c, "gpu_memcpy") == 0)
    rc = keep_kernel(t, name->valuestring, args, ts, dur);
  else if (strcmp(c, "Runtime") == 0 || strcmp(c, "cuda_runtime") == 0 || strcmp(c, "cuda_driver") == 0)
    rc = keep_mark(t, e, ts, MARK_RUNTIME);
  return rc ? ss_err_nomem(err) : SS_OK;
}

int cal_profile_load(const char* path, cal_profile** out, ss_err* err)
{
  cal_profile* t = calloc(1, sizeof(*t));
  if (!t)
    return ss_err_nomem(err);
  t->path = path;
  int rc = cal_kineto_read(path, keep_event, t, t->gpu_model, sizeof(t->gpu_model), err);
  if (!rc)
    *out = t;
  else
    cal_profile_free(t);
  return rc;
}

void cal_profile_set_cost(cal_profile* t, const cal_profiler_cost* cost)
{
  t->cost = *cost;
}

cal_profiler_cost cal_profile_cost(const cal_profile* t, int* stack_pairs)
{
  *stack_pairs = t->stack_pairs;
  return t->cost;
}

const char* cal_profile_device(const cal_profile* t)
{
  return t->gpu_model;
}

void cal_profile_free(cal_profile* t)
{
  if (!t)
    return;
  free(t->ops);
  free(t->kernels);
  free(t->marks);
  ss_names_free(&t->threads);
  ss_names_free(&t->names);
  free(t);
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

/* A leaf operator's kind (its name, the CUDA runtime calls and [memory] events in it), whether it
 * recorded its call stack, and its time. */
typedef struct leaf_time {
  int name, nrt, nmem, stack;
  double us;
} leaf_time;

static int by_leaf(const void* a, const void* b)
{
  const leaf_time* x = a;
  const leaf_time* y = b;
  int kx[4] = {x->name, x->nrt, x->nmem, x->stack}, ky[4] = {y->name, y->nrt, y->nmem, y->stack};
  for (int k = 0; k < 4; k++)
    if (kx[k] != ky[k])
      return kx[k] < ky[k] ? -1 : 1;
  return x->us < y->us ? -1 : x->us > y->us;
}

/* The median of v[0..n), sorted. */
static double sorted_median(const leaf_time* v, size_t n)
{
  return n % 2 ? v[n / 2].us : (v[n / 2 - 1].us + v[n / 2].us) / 2;
}

/* What recording its Python call stack (with_stack) adds to an operator, measured in the trace
 * itself: the same kind of leaf operator (no operator inside it; the same name, CUDA runtime calls
 * and [memory] events) runs on the training thread, called from Python, with a stack, and on the
 * autograd engine's threads, from C++, without one. For each kind recorded at least
 * CAL_STACK_PAIR_MIN times each way, the difference of the median times; the cost is the median of
 * those differences to *cost (*pairs: their number); *cost -1 when no kind is (a trace without
 * stacks, or with too few operators). SS_OK or SS_ENOMEM. */
static double median(double* v, int n);
static int stack_cost(const cal_profile* t, double* cost, int* pairs)
{
  *pairs = 0;
  leaf_time* v = malloc(sizeof(leaf_time) * (t->nops + 1));
  double* diff = malloc(sizeof(double) * (t->nops + 1));
  if (!v || !diff) {
    free(v);
    free(diff);
    return SS_ENOMEM;
  }
  size_t n = 0;
  for (size_t i = 0; i < t->nops; i++) {
    const op* o = &t->ops[i];
    if (o->leaf && o->kind == OP_OTHER)
      v[n++] = (leaf_time){o->name, o->nrt, o->nmem, o->stack, o->end - o->ts};
  }
  qsort(v, n, sizeof(leaf_time), by_leaf);
  for (size_t a = 0, e; a < n; a = e) {
    size_t m = a; /* the kind is [a, e): [a, m) without a stack, [m, e) with one */
    for (e = a; e < n && v[e].name == v[a].name && v[e].nrt == v[a].nrt && v[e].nmem == v[a].nmem; e++)
      m += !v[e].stack;
    if (m - a >= CAL_STACK_PAIR_MIN && e - m >= CAL_STACK_PAIR_MIN)
      diff[(*pairs)++] = sorted_median(v + m, e - m) - sorted_median(v + a, m - a);
  }
  *cost = *pairs > 0 ? median(diff, *pairs) : -1;
  free(v);
  free(diff);
  return SS_OK;
}

/* Each mark to the innermost operator of its thread that holds it: the last operator to start at or
 * before it (ops sorted by thread and start, the enclosing one first), or the first of its
 * ancestors still running then (operators nest, so those that hold the mark are its ancestors). */
static void attach_marks(cal_profile* t)
{
  for (size_t k = 0; k < t->nmarks; k++) {
    const mark* m = &t->marks[k];
    size_t lo = 0, hi = t->nops; /* the first operator after (tid, ts) */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      const op* o = &t->ops[mid];
      if (o->tid < m->tid || (o->tid == m->tid && o->ts <= m->ts))
        lo = mid + 1;
      else
        hi = mid;
    }
    int i = lo > 0 && t->ops[lo - 1].tid == m->tid ? (int)lo - 1 : -1;
    while (i >= 0 && t->ops[i].end < m->ts)
      i = t->ops[i].parent;
    if (i >= 0 && m->kind == MARK_MEMORY)
      t->ops[i].nmem++;
    else if (i >= 0)
      t->ops[i].nrt++;
  }
}

/* Nesting on each thread (an operator inside another starts and ends within it): each operator's
 * outermost special and weighted ancestors, and its own time without its children's. */
static int nest(cal_profile* t)
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
    o->parent = depth > 0 ? (int)stack[depth - 1] : -1;
    o->leaf = 1;
    if (depth > 0) {
      op* parent = &t->ops[stack[depth - 1]];
      parent->self -= o->end - o->ts;
      parent->leaf = 0;
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
  attach_marks(t);
  return SS_OK;
}

static int by_key(const void* a, const void* b)
{
  const key_entry* x = a;
  const key_entry* y = b;
  return x->key < y->key ? -1 : x->key > y->key;
}

/* By key, then by value: of the forward operators with a sequence number, that of the first
 * layer comes first. */
static int by_key_value(const void* a, const void* b)
{
  const key_entry* x = a;
  const key_entry* y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->value < y->value ? -1 : x->value > y->value;
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

static int by_start(const void* a, const void* b)
{
  const cal_step* x = a;
  const cal_step* y = b;
  return x->t0_us < y->t0_us ? -1 : x->t0_us > y->t0_us;
}

/* Append a layer to s, started by the operator o: its name, parameters and tensors. */
static int add_layer(cal_step* s, const op* o, size_t* cap)
{
  cal_layer* grown = ss_array_grow(s->layers, cap, (size_t)s->nlayers + 1, sizeof(cal_layer), 16);
  if (!grown)
    return SS_ENOMEM;
  s->layers = grown;
  cal_layer* l = &s->layers[s->nlayers++];
  memset(l, 0, sizeof(*l));
  snprintf(l->name, sizeof(l->name), "%s", o->layer_name);
  l->params = o->params;
  l->ntensors = o->ntensors;
  memcpy(l->tensors, o->tensors, sizeof(double) * (size_t)o->ntensors);
  return SS_OK;
}

/* A norm's parameters, folded into the layer before it. */
static void add_norm(cal_layer* l, const op* o)
{
  l->params += o->params;
  for (int k = 0; k < o->ntensors && l->ntensors >= 0; k++)
    if (l->ntensors < CAL_MAX_TENSORS)
      l->tensors[l->ntensors++] = o->tensors[k];
    else
      l->ntensors = -1; /* too many to list */
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
static int step_at(const cal_step* steps, int nsteps, double ts)
{
  int lo = 0, hi = nsteps; /* the first step that starts after ts */
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (steps[mid].t0_us <= ts)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 && ts < steps[lo - 1].t1_us ? lo - 1 : -1;
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

/* map: the operators by External id, sorted by it. */
static int index_steps(const cal_profile* t, const key_entry* map, size_t nmap, const cal_step* steps, int nsteps,
                       step_index* x)
{
  int* op_step = malloc(sizeof(int) * (t->nops + 1));
  int* kernel_step = malloc(sizeof(int) * (t->nkernels + 1));
  x->kernel_op = malloc(sizeof(int) * (t->nkernels + 1));
  int rc = op_step && kernel_step && x->kernel_op ? SS_OK : SS_ENOMEM;
  for (size_t i = 0; !rc && i < t->nops; i++)
    op_step[i] = step_at(steps, nsteps, t->ops[i].ts);
  for (size_t q = 0; !rc && q < t->nkernels; q++) {
    key_entry key = {t->kernels[q].ext, 0};
    const key_entry* hit = key.key >= 0 ? bsearch(&key, map, nmap, sizeof(key_entry), by_key) : NULL;
    x->kernel_op[q] = hit ? hit->value : -1;
    kernel_step[q] = hit ? op_step[hit->value] : -1;
  }
  if (!rc)
    rc = bucket(op_step, t->nops, nsteps, &x->op, &x->op_start);
  if (!rc)
    rc = bucket(kernel_step, t->nkernels, nsteps, &x->kernel, &x->kernel_start);
  free(op_step);
  free(kernel_step);
  return rc;
}

/* One step under analysis: its operators (m indices into ops, in order), whether the trace is of
 * a CPU run, the forward thread, the start of its first autograd operator (the end of the forward
 * pass), the layers found, and each operator's part: layer_of[i] is L for the forward of layer L,
 * nl + L for its backward, -1 for none. */
typedef struct step_scan {
  const cal_profile* t;
  const size_t* idx;
  size_t m;
  int cpu;
  int ftid;
  double bwd_start;
  int nl;
  int* layer_of;
  cal_step* s;
} step_scan;

/* What the profiler added to operator o's own time: its event, its call stack, the marks in it. */
static double op_cost(const cal_profile* t, const op* o)
{
  const cal_profiler_cost* c = &t->cost;
  return c->op_us + (o->stack ? c->stack_us : 0) + c->memory_us * o->nmem + c->runtime_us * o->nrt;
}

/* Operator o's own time less the profiler's cost in it, which step s counts. */
static double own_time(const cal_profile* t, const op* o, cal_step* s)
{
  s->events[0]++;
  s->events[1] += o->stack;
  s->events[2] += o->nmem;
  s->events[3] += o->nrt;
  s->profiler_us += op_cost(t, o);
  return o->self - op_cost(t, o);
}

/* Host time of operator i, in the part of the operators whose layer_of is lo or more: its own
 * time (less the profiler's, own_time) to *us, and when it is a top-level operator of the part
 * (its parent is not in it: the step, a wrapper, nothing), the time since the end of the previous
 * one, *prev (-1: none), which it becomes: the Python or autograd engine's time between two
 * operators. */
static void host_time(const step_scan* c, size_t i, int lo, double* us, int* prev)
{
  const op* ops = c->t->ops;
  const op* o = &ops[i];
  *us += own_time(c->t, o, c->s);
  if (o->parent >= 0 && c->layer_of[o->parent] >= lo)
    return;
  if (*prev >= 0 && o->ts > ops[*prev].end)
    *us += o->ts - ops[*prev].end;
  *prev = (int)i;
}

/* Forward: a layer starts at each outermost operator with weights on the training thread; the
 * operators after it (norms, activations, pooling, additions, the loss) belong to it until the
 * next. DataLoader, optimizer and autograd work are not forward; neither is, on the host, what
 * the training thread does once the backward pass has begun. */
static int scan_forward(step_scan* c, ss_err* err)
{
  const cal_profile* t = c->t;
  cal_step* s = c->s;
  size_t cap = 0;
  int prev = -1;
  for (size_t j = 0; j < c->m; j++) {
    size_t i = c->idx[j];
    const op* o = &t->ops[i];
    if (o->tid != c->ftid || o->kind == OP_STEP)
      continue;
    if (o->special >= 0) {
      if (o->special == (int)i)
        prev = -1; /* the time around a DataLoader or optimizer call is not a layer's */
      continue;
    }
    if (o->layer_op == (int)i) {
      if (add_layer(s, o, &cap))
        return ss_err_nomem(err);
      if (s->batch == 0) {
        s->batch = o->batch;
        s->input = o->input;
      }
    }
    if (s->nlayers == 0)
      continue; /* before the first layer (the input's copy): no layer's */
    cal_layer* l = &s->layers[s->nlayers - 1];
    c->layer_of[i] = s->nlayers - 1;
    if (o->kind == OP_NORM)
      add_norm(l, o);
    if (c->cpu)
      l->fwd_us += o->self - op_cost(t, o);
    if (o->ts < c->bwd_start)
      host_time(c, i, 0, &l->host_fwd_us, &prev);
  }
  c->nl = s->nlayers;
  if (c->nl == 0) /* its operators with weights are all inside one that began before the step */
    return ss_err_set(err, t->path, 0, "no layer (conv, linear, addmm, embedding) starts inside a profiler step");
  return SS_OK;
}

/* Backward: an autograd node belongs to the layer of the forward operator with its sequence
 * number (seqs: those of the forward operators, sorted by_key_value); AccumulateGrad to the node
 * before it on its thread; what runs inside a node to it. */
static void scan_backward(step_scan* c, const key_entry* seqs, size_t nseq)
{
  const cal_profile* t = c->t;
  int nl = c->nl, last = nl - 1, last_tid = -1, prev = -1;
  for (size_t j = 0; j < c->m; j++) {
    size_t i = c->idx[j];
    const op* o = &t->ops[i];
    if (o->kind == OP_STEP)
      continue;
    /* Autograd work, and whatever the backward threads run between nodes (summing the gradients
     * a tensor receives from two uses): to the node before it. */
    int autograd = o->special >= 0 &&
                   (t->ops[o->special].kind == OP_BACKWARD || t->ops[o->special].kind == OP_ACCUMULATE);
    if (!autograd && (o->special >= 0 || o->tid == c->ftid)) {
      if (prev >= 0 && o->tid == t->ops[prev].tid && o->ts >= t->ops[prev].end)
        prev = -1; /* other work between two autograd operators of the thread */
      continue;
    }
    if (o->tid != last_tid) {
      last = nl - 1;
      last_tid = o->tid;
      prev = -1;
    }
    /* A node's sequence number is on it, or on the node inside its evaluate_function wrapper. */
    for (size_t q = i; o->special == (int)i && o->kind == OP_BACKWARD && q < t->nops && t->ops[q].tid == o->tid &&
                       t->ops[q].ts < o->end;
         q++)
      if (t->ops[q].kind == OP_BACKWARD && t->ops[q].seq >= 0) {
        key_entry key = {t->ops[q].seq, 0};
        const key_entry* hit = bsearch(&key, seqs, nseq, sizeof(key_entry), by_key);
        if (hit)
          last = hit->value;
        break;
      }
    c->layer_of[i] = nl + last;
    cal_layer* l = &c->s->layers[last];
    if (c->cpu)
      l->bwd_us += o->self - op_cost(t, o);
    host_time(c, i, nl, &l->host_bwd_us, &prev);
  }
}

/* GPU time of each kernel of step k, to the layer of the operator that launched it; the
 * DataLoader's spans, the optimizer operators' host spans, and on a CPU the optimizer's time. */
static void scan_devices(step_scan* c, const step_index* x, int k)
{
  const cal_profile* t = c->t;
  cal_step* s = c->s;
  for (size_t j = x->kernel_start[k]; j < x->kernel_start[k + 1]; j++) {
    const kernel* kk = &t->kernels[x->kernel[j]];
    int oi = x->kernel_op[x->kernel[j]];
    const op* o = &t->ops[oi];
    if (kk->htod) {
      if (kk->bytes > s->htod_bytes)
        s->htod_bytes = kk->bytes;
      continue;
    }
    int l = c->layer_of[oi];
    if (o->special >= 0 && t->ops[o->special].kind == OP_OPTIMIZER)
      s->opt_us += kk->dur;
    else if (l >= c->nl)
      s->layers[l - c->nl].bwd_us += kk->dur;
    else if (l >= 0)
      s->layers[l].fwd_us += kk->dur;
  }
  for (size_t j = 0; j < c->m; j++) {
    size_t i = c->idx[j];
    const op* o = &t->ops[i];
    if (o->special < 0)
      continue;
    op_kind sk = t->ops[o->special].kind;
    if (o->special == (int)i && o->kind == OP_OPTIMIZER)
      s->host_opt_us += o->end - o->ts;
    if (o->special == (int)i && o->kind == OP_DATA)
      s->data_us += o->end - o->ts;
    else if (c->cpu && sk == OP_OPTIMIZER)
      s->opt_us += o->self - op_cost(t, o);
    /* The spans hold the profiler's cost of every operator inside them (own_time counts it). */
    if (sk == OP_OPTIMIZER || sk == OP_DATA)
      *(sk == OP_OPTIMIZER ? &s->host_opt_us : &s->data_us) -= o->self - own_time(t, o, s);
  }
}

/* A time the profiler's cost was taken from (cal_profiler_cost) is never below 0: a cost given
 * larger than what the trace's operators took removes all of it, no more. */
static void clamp_times(cal_step* s)
{
  for (int l = 0; l < s->nlayers; l++) {
    cal_layer* y = &s->layers[l];
    y->fwd_us = fmax(y->fwd_us, 0);
    y->bwd_us = fmax(y->bwd_us, 0);
    y->host_fwd_us = fmax(y->host_fwd_us, 0);
    y->host_bwd_us = fmax(y->host_bwd_us, 0);
  }
  s->opt_us = fmax(s->opt_us, 0);
  s->host_opt_us = fmax(s->host_opt_us, 0);
  s->data_us = fmax(s->data_us, 0);
}

/* Analyse step k; layer_of (by operator) is -1 throughout, and so again on return. */
static int analyse_step(const cal_profile* t, const step_index* x, int k, int* layer_of, cal_step* s, ss_err* err)
{
  step_scan c = {.t = t,
                 .idx = x->op + x->op_start[k],
                 .m = x->op_start[k + 1] - x->op_start[k],
                 .cpu = t->nkernels == 0,
                 .ftid = -1,
                 .bwd_start = INFINITY,
                 .layer_of = layer_of,
                 .s = s};
  /* The forward thread: the thread of the first operator with weights in the step. */
  for (size_t j = 0; j < c.m; j++) {
    const op* o = &t->ops[c.idx[j]];
    if (c.ftid < 0 && o->kind == OP_LAYER && o->special < 0)
      c.ftid = o->tid;
    if (o->special >= 0 && (t->ops[o->special].kind == OP_BACKWARD || t->ops[o->special].kind == OP_ACCUMULATE) &&
        o->ts < c.bwd_start)
      c.bwd_start = o->ts;
  }
  if (c.ftid < 0)
    return ss_err_set(err, t->path, 0, "no layer (conv, linear, addmm, embedding) runs inside a profiler step");
  key_entry* seqs = malloc(sizeof(key_entry) * (c.m + 1));
  if (!seqs)
    return ss_err_nomem(err);
  int rc = scan_forward(&c, err);
  if (!rc) {
    size_t nseq = 0;
    for (size_t j = 0; j < c.m; j++)
      if (layer_of[c.idx[j]] >= 0 && t->ops[c.idx[j]].seq >= 0)
        seqs[nseq++] = (key_entry){t->ops[c.idx[j]].seq, layer_of[c.idx[j]]};
    qsort(seqs, nseq, sizeof(key_entry), by_key_value);
    scan_backward(&c, seqs, nseq);
    scan_devices(&c, x, k);
    clamp_times(s);
  }
  for (size_t j = 0; j < c.m; j++)
    layer_of[c.idx[j]] = -1;
  free(seqs);
  return rc;
}

/* The profiler steps of t, sorted by start, and map: the operators by External id, sorted by it. */
static int find_steps(const cal_profile* t, key_entry** map, size_t* nmap, cal_step** steps, int* nsteps, ss_err* err)
{
  *map = malloc(sizeof(key_entry) * (t->nops + 1));
  *steps = calloc(t->nops + 1, sizeof(cal_step));
  if (!*map || !*steps)
    return ss_err_nomem(err);
  for (size_t i = 0; i < t->nops; i++) {
    if (t->ops[i].ext >= 0)
      (*map)[(*nmap)++] = (key_entry){t->ops[i].ext, (int)i};
    if (t->ops[i].kind == OP_STEP)
      (*steps)[(*nsteps)++] = (cal_step){.t0_us = t->ops[i].ts, .t1_us = t->ops[i].end};
  }
  qsort(*map, *nmap, sizeof(key_entry), by_key);
  if (*nsteps == 0)
    return ss_err_set(err, t->path, 0,
                      "no profiler step (ProfilerStep#N) in the trace: profile with a schedule and "
                      "call prof.step() every iteration");
  qsort(*steps, (size_t)*nsteps, sizeof(cal_step), by_start);
  for (int k = 1; k < *nsteps; k++)
    if ((*steps)[k].t0_us < (*steps)[k - 1].t1_us)
      return ss_err_set(err, t->path, 0,
                        "two profiler steps overlap (one starts at %.17g us, before the other ends): "
                        "expected the steps of one training process, one after another",
                        (*steps)[k].t0_us);
  return SS_OK;
}

/* What the workload needs of the steps analysed: the same layers in each, a batch, a copy. */
static int check_steps(const cal_profile* t, const cal_step* steps, int nsteps, ss_err* err)
{
  for (int k = 1; k < nsteps; k++)
    if (steps[k].nlayers != steps[0].nlayers)
      return ss_err_set(err, t->path, 0, "profiler steps differ: %d layers in one, %d in another", steps[0].nlayers,
                        steps[k].nlayers);
  if (steps[0].batch <= 0)
    return ss_err_set(err, t->path, 0,
                      "no batch size in the first layer's input shape (profile with "
                      "record_shapes=True)");
  if (steps[0].htod_bytes <= 0 && t->nkernels > 0)
    return ss_err_set(err, t->path, 0, "no host-to-device copy of the batch in a step");
  return SS_OK;
}

/* The median over the n steps of the double at offset off in their layer l, or in them when l < 0
 * (v: room for n values). */
static double median_at(const cal_step* steps, int n, int l, size_t off, double* v)
{
  for (int k = 0; k < n; k++)
    memcpy(&v[k], (l >= 0 ? (const char*)&steps[k].layers[l] : (const char*)&steps[k]) + off, sizeof(double));
  return median(v, n);
}

/* *med: the figures of the first step with the median over the steps of each time; it takes the
 * first step's layers (their names, parameters and tensors). */
static int medians(cal_step* steps, int nsteps, cal_step* med)
{
  static const size_t layer_times[] = {offsetof(cal_layer, fwd_us), offsetof(cal_layer, bwd_us),
                                       offsetof(cal_layer, host_fwd_us), offsetof(cal_layer, host_bwd_us)};
  static const size_t step_times[] = {offsetof(cal_step, opt_us),    offsetof(cal_step, host_opt_us),
                                      offsetof(cal_step, data_us),   offsetof(cal_step, events[0]),
                                      offsetof(cal_step, events[1]), offsetof(cal_step, events[2]),
                                      offsetof(cal_step, events[3]), offsetof(cal_step, profiler_us)};
  double* v = calloc((size_t)nsteps, sizeof(double));
  if (!v)
    return SS_ENOMEM;
  /* Each time is read in every step before the first step's copy of it is overwritten. */
  for (int l = 0; l < steps[0].nlayers; l++)
    for (size_t f = 0; f < sizeof(layer_times) / sizeof(layer_times[0]); f++) {
      double m = median_at(steps, nsteps, l, layer_times[f], v);
      memcpy((char*)&steps[0].layers[l] + layer_times[f], &m, sizeof(m));
    }
  for (size_t f = 0; f < sizeof(step_times) / sizeof(step_times[0]); f++) {
    double m = median_at(steps, nsteps, -1, step_times[f], v);
    memcpy((char*)&steps[0] + step_times[f], &m, sizeof(m));
  }
  *med = steps[0];
  steps[0].layers = NULL;
  free(v);
  return SS_OK;
}

/* A step's GPU compute (us): its layers' forward and backward, and the optimizer. */
static double step_compute_us(const cal_step* st)
{
  double c = st->opt_us;
  for (int l = 0; l < st->nlayers; l++)
    c += st->layers[l].fwd_us + st->layers[l].bwd_us;
  return c;
}

/* The variation over steps[0..n) of their GPU compute (cal_variation), in two passes (no
 * cancellation in the variance). */
static void variation(const cal_step* steps, int n, cal_variation* var)
{
  memset(var, 0, sizeof(*var));
  var->nsteps = n;
  double sum = 0, sq = 0;
  for (int k = 0; k < n; k++) {
    double c = step_compute_us(&steps[k]);
    var->min_us = k == 0 ? c : fmin(var->min_us, c);
    var->max_us = k == 0 ? c : fmax(var->max_us, c);
    sum += c;
  }
  var->mean_us = n > 0 ? sum / n : 0;
  for (int k = 0; k < n; k++)
    sq += (step_compute_us(&steps[k]) - var->mean_us) * (step_compute_us(&steps[k]) - var->mean_us);
  var->sd_us = n > 1 ? sqrt(sq / (n - 1)) : 0;
  var->cv = var->mean_us > 0 ? var->sd_us / var->mean_us : 0;
}

int cal_profile_measure(cal_profile* t, cal_step* med, int* nsteps, cal_variation* var, ss_err* err)
{
  key_entry* map = NULL;
  size_t nmap = 0;
  cal_step* steps = NULL;
  int n = 0;
  step_index x = {0};
  int* layer_of = NULL;
  int rc = nest(t) ? ss_err_nomem(err) : find_steps(t, &map, &nmap, &steps, &n, err);
  /* A stack's cost not given (< 0): measured in the trace, else the default (CAL_PROFILER_STACK_US). */
  if (!rc && t->cost.stack_us < 0) {
    double c = -1;
    if (stack_cost(t, &c, &t->stack_pairs))
      rc = ss_err_nomem(err);
    t->cost.stack_us = c >= 0 ? c : CAL_PROFILER_STACK_US;
  }
  if (!rc) {
    layer_of = malloc(sizeof(int) * (t->nops + 1));
    if (!layer_of || index_steps(t, map, nmap, steps, n, &x))
      rc = ss_err_nomem(err);
  }
  for (size_t i = 0; !rc && i < t->nops; i++)
    layer_of[i] = -1;
  for (int k = 0; !rc && k < n; k++)
    rc = analyse_step(t, &x, k, layer_of, &steps[k], err);
  if (!rc)
    rc = check_steps(t, steps, n, err);
  if (!rc && var) /* before medians(), which overwrites the first step */
    variation(steps, n, var);
  if (!rc && medians(steps, n, med))
    rc = ss_err_nomem(err);
  if (!rc) {
    med->cpu = t->nkernels == 0;
    *nsteps = n;
  }
  for (int k = 0; steps && k < n; k++)
    cal_step_free(&steps[k]);
  free(steps);
  free(map);
  free(layer_of);
  step_index_free(&x);
  return rc;
}

void cal_step_free(cal_step* s)
{
  free(s->layers);
}
