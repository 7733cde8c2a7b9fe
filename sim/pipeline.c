/* pipeline: the pipeline-parallel schedules, their orders and their bubble (pipeline.h). */
#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char* const ss_schedule_names[] = {"gpipe", "1f1b", "interleaved", NULL};

static const ss_schedule_facts facts[SS_SCHEDULE_COUNT] = {
    [SS_SCHEDULE_GPIPE] = {"gpipe", "GPipe (all forwards, then all backwards)", 0, 0},
    [SS_SCHEDULE_1F1B] = {"1f1b", "1F1B (PipeDream-Flush)", 0, 0},
    [SS_SCHEDULE_INTERLEAVED] = {"interleaved", "interleaved 1F1B", 1, 1},
};

const ss_schedule_facts* ss_schedule_of(ss_schedule s)
{
  return s >= 0 && s < SS_SCHEDULE_COUNT ? &facts[s] : NULL;
}

int ss_pipe_check(ss_schedule s, int p, int v, int m, char* why, size_t size)
{
  const ss_schedule_facts* f = ss_schedule_of(s);
  if (!f)
    return snprintf(why, size, "no such schedule"), -1;
  if (p < 1 || m < 1 || v < 1)
    return snprintf(why, size, "stages, micro-batches and chunks must be 1 or more (got %d, %d, %d)", p, m, v), -1;
  if (!f->chunks && v != 1)
    return snprintf(why, size, "--virtual-stages %d needs the interleaved schedule (%s holds one chunk per stage)", v,
                    f->name),
           -1;
  if (f->chunks && (v < 2 || p < 2))
    return snprintf(why, size,
                    "the interleaved schedule needs 2 stages or more and 2 chunks per stage or more (got %d stage%s, "
                    "--virtual-stages %d): give --pp and --virtual-stages of 2 or more, or another --schedule",
                    p, p == 1 ? "" : "s", v),
           -1;
  if ((long long)m * v > SS_PIPE_MAX_PASSES / 2)
    return snprintf(why, size,
                    "%d micro-batches x %d chunks per stage make %lld passes per stage and iteration, more than %d: "
                    "give a smaller --global-batch or fewer --virtual-stages",
                    m, v, 2LL * m * v, SS_PIPE_MAX_PASSES),
           -1;
  /* m is how many micro-batches an iteration runs, not their size (--micro-batch): said, as both
   * are "micro-batches". */
  if (f->micro_multiple_p && m % p)
    return snprintf(why, size,
                    "the interleaved schedule runs its micro-batches in groups of the stages: %d micro-batch%s per "
                    "iteration (their number, set by --global-batch or --grad-accum, not their size) %s not a "
                    "multiple of %d stages (Megatron-LM's rule)",
                    m, m == 1 ? "" : "es", m == 1 ? "is" : "are", p),
           -1;
  return 0;
}

/* Megatron's interleaved order: virtual micro-batch k of the m v a stage runs, forward or backward
 * (get_model_chunk_id, get_microbatch_id_in_model_chunk): groups of p micro-batches go through
 * chunk 0, then chunk 1, ...; backwards through the chunks in reverse. */
static ss_pipe_op interleaved_op(int p, int v, int k, int bwd)
{
  int in_group = k % (p * v), chunk = in_group / p;
  return (ss_pipe_op){.micro = k / (p * v) * p + k % p, .chunk = bwd ? v - 1 - chunk : chunk, .bwd = bwd};
}

/* The shape of stage's order: warmup forwards, then total - warmup forward and backward pairs, then
 * the cool-down backwards (1F1B, interleaved or not: forward_backward_pipelining_with[out]_interleaving;
 * GPipe: m forwards, then m backwards). Its passes are 2 total. */
static int order_warmup(ss_schedule s, int p, int v, int m, int stage)
{
  int total = m * v, warmup;
  if (s == SS_SCHEDULE_GPIPE)
    return m;
  if (s == SS_SCHEDULE_1F1B)
    warmup = p - stage - 1 < m ? p - stage - 1 : m;
  else if (m == p)
    warmup = total; /* Megatron: every micro-batch is a warm-up one */
  else {
    warmup = (p - stage - 1) * 2 + (v - 1) * p;
    warmup = warmup < total ? warmup : total;
  }
  return warmup;
}

/* Pass i of an order whose first warmup passes are forwards (order_warmup), computed alone: a
 * stage's order is never stored whole (it grows with the micro-batches). */
static ss_pipe_op op_at(ss_schedule s, int p, int v, int m, int warmup, int i)
{
  int total = m * v, k;
  if (s == SS_SCHEDULE_GPIPE)
    return i < m ? (ss_pipe_op){i, 0, 0} : (ss_pipe_op){2 * m - 1 - i, 0, 1};
  if (i < warmup)
    k = i;
  else if (i < 2 * total - warmup) /* the steady state: a forward, then a backward */
    k = (i - warmup) % 2 ? (i - warmup) / 2 : warmup + (i - warmup) / 2;
  else
    k = i - total;
  int bwd = i >= warmup && (i >= 2 * total - warmup || (i - warmup) % 2);
  return s == SS_SCHEDULE_1F1B ? (ss_pipe_op){k, 0, bwd} : interleaved_op(p, v, k, bwd);
}

int ss_pipe_op_at(ss_schedule s, int p, int v, int m, int stage, long i, ss_pipe_op* op)
{
  char why[256];
  if (ss_pipe_check(s, p, v, m, why, sizeof(why)) || stage < 0 || stage >= p || i < 0 || i >= 2L * m * v)
    return -1;
  *op = op_at(s, p, v, m, order_warmup(s, p, v, m, stage), (int)i);
  return 0;
}

int ss_pipe_order(ss_schedule s, int p, int v, int m, int stage, ss_pipe_op* out)
{
  char why[256];
  if (ss_pipe_check(s, p, v, m, why, sizeof(why)) || stage < 0 || stage >= p)
    return -1;
  int n = 2 * m * v, warmup = order_warmup(s, p, v, m, stage);
  for (int i = 0; i < n; i++)
    out[i] = op_at(s, p, v, m, warmup, i);
  return n;
}

double ss_pipe_time(ss_schedule s, int p, int v, int m, double fwd_s, double bwd_s, int* in_flight)
{
  char why[256];
  if (ss_pipe_check(s, p, v, m, why, sizeof(why)))
    return -1;
  int vs = p * v, per = 2 * m * v;
  ss_pipe_op* order = malloc(sizeof(*order) * (size_t)p * (size_t)per);
  double* done = malloc(sizeof(*done) * 2 * (size_t)vs * (size_t)m); /* [bwd][virtual stage][micro], -1 not yet */
  double* free_at = calloc((size_t)p, sizeof(*free_at));
  int* next = calloc((size_t)p, sizeof(*next));
  int* held = calloc((size_t)p, sizeof(*held));
  double end = -1;
  if (order && done && free_at && next && held) {
    for (int r = 0; r < p; r++)
      ss_pipe_order(s, p, v, m, r, order + (size_t)r * per);
    for (size_t i = 0; i < 2 * (size_t)vs * (size_t)m; i++)
      done[i] = -1;
    int left = p * per, most = 0;
    /* Each stage runs its order; a pass starts when its stage is free and its dependency is done. */
    for (int progress = 1; left > 0 && progress;) {
      progress = 0;
      for (int r = 0; r < p; r++)
        while (next[r] < per) {
          ss_pipe_op op = order[(size_t)r * per + next[r]];
          int at = op.chunk * p + r; /* the pass's virtual stage */
          double dep = 0;
          if (!op.bwd && at > 0)
            dep = done[(size_t)(at - 1) * m + op.micro];
          else if (op.bwd)
            dep = at < vs - 1 ? done[(size_t)vs * m + (size_t)(at + 1) * m + op.micro]
                              : done[(size_t)at * m + op.micro];
          if (dep < 0)
            break;
          double start = free_at[r] > dep ? free_at[r] : dep;
          free_at[r] = start + (op.bwd ? bwd_s : fwd_s) / v;
          done[(size_t)op.bwd * vs * m + (size_t)at * m + op.micro] = free_at[r];
          held[r] += op.bwd ? -1 : 1;
          most = held[r] > most ? held[r] : most;
          next[r]++;
          left--;
          progress = 1;
        }
    }
    if (left == 0) {
      end = 0;
      for (int r = 0; r < p; r++)
        end = free_at[r] > end ? free_at[r] : end;
      if (in_flight)
        *in_flight = most;
    }
  }
  free(order);
  free(done);
  free(free_at);
  free(next);
  free(held);
  return end;
}

int ss_pipe_partition_parse(const char* text, int* out, char* why, size_t size)
{
  /* The text as the message quotes it: its first 64 characters (a list may be thousands long). */
  char head[320];
  snprintf(head, sizeof(head),
           "whole numbers of layers from 1 to %d separated by commas, one per virtual stage and at most %d, got "
           "'%.64s%s'",
           SS_PIPE_PARTITION_LAYERS_MAX, SS_PIPE_PARTITION_MAX, text, strlen(text) > 64 ? "..." : "");
  int n = 0;
  for (const char* s = text;;) {
    size_t len = strcspn(s, ",");
    int shown = (int)(len < 32 ? len : 32);
    const char* cut = len > 32 ? "..." : "";
    if (len == 0)
      return snprintf(why, size, "%s: item %d is empty", head, n + 1), -1;
    /* Digits only (no sign, no blank), the value read without overflow however long. */
    if (strspn(s, "0123456789") != len)
      return snprintf(why, size, "%s: item %d, '%.*s%s', is not a whole number", head, n + 1, shown, s, cut), -1;
    long v = 0;
    for (size_t i = 0; i < len && v <= SS_PIPE_PARTITION_LAYERS_MAX; i++)
      v = v * 10 + (s[i] - '0');
    if (v == 0)
      return snprintf(why, size, "%s: item %d is 0 (each virtual stage takes a layer at least)", head, n + 1), -1;
    if (v > SS_PIPE_PARTITION_LAYERS_MAX)
      return snprintf(why, size, "%s: item %d, '%.*s%s', is more than %d layers", head, n + 1, shown, s, cut,
                      SS_PIPE_PARTITION_LAYERS_MAX),
             -1;
    if (n == SS_PIPE_PARTITION_MAX)
      return snprintf(why, size, "%s: more than %d items", head, SS_PIPE_PARTITION_MAX), -1;
    if (out)
      out[n] = (int)v;
    n++;
    if (!s[len])
      return n;
    s += len + 1;
  }
}

int ss_pipe_partition(int layers, int p, int v, const int* given, int ngiven, int* counts, char* why, size_t size)
{
  int n = p * v;
  if (p < 1 || v < 1 || n > layers)
    return snprintf(why, size, "%d stages x %d chunks = %d pieces for %d layers: each needs a layer at least", p, v, n,
                    layers),
           -1;
  if (ngiven == 0) {
    if (layers % n)
      return snprintf(why, size,
                      "%d layers do not split evenly over %d stages x %d chunks (Megatron-LM's rule): give the "
                      "layers of each as --partition",
                      layers, p, v),
             -1;
    for (int i = 0; i < n; i++)
      counts[i] = layers / n;
    return 0;
  }
  if (ngiven != n)
    return snprintf(why, size, "--partition gives %d counts for %d stages x %d chunks = %d", ngiven, p, v, n), -1;
  int sum = 0;
  for (int i = 0; i < n; i++) {
    if (given[i] < 1)
      return snprintf(why, size, "--partition: piece %d has %d layers, fewer than 1", i + 1, given[i]), -1;
    sum += given[i];
    counts[i] = given[i];
  }
  if (sum != layers)
    return snprintf(why, size, "--partition adds up to %d layers, the model has %d", sum, layers), -1;
  return 0;
}

double ss_pipe_stage_layers_held(ss_schedule s, int p, int v, int m, int stage, const int* counts)
{
  char why[256];
  if (ss_pipe_check(s, p, v, m, why, sizeof(why)) || stage < 0 || stage >= p)
    return -1;
  /* GPipe holds every micro-batch after its forwards. */
  if (s == SS_SCHEDULE_GPIPE)
    return (double)m * counts[stage];
  /* The others: the warm-up forwards (at most 2 p + (v - 1) p of them, or the m v of interleaved
   * with m = p), then forward and backward in turn, whose chunks repeat every p v pairs with each
   * chunk p times forward and p times backward: what is held then repeats too, so the peak is
   * within the warm-up and the first p v pairs, never later (the cool-down only frees). The scan
   * costs O(p v), whatever the micro-batches. */
  int warmup = order_warmup(s, p, v, m, stage), total = m * v;
  long pairs = total - warmup < (long)p * v ? total - warmup : (long)p * v;
  long n = warmup + 2 * pairs;
  double held = 0, most = 0;
  for (long i = 0; i < n; i++) {
    ss_pipe_op op = op_at(s, p, v, m, warmup, (int)i);
    double layers = counts[op.chunk * p + stage];
    held += op.bwd ? -layers : layers;
    most = held > most ? held : most;
  }
  return most;
}

double ss_pipe_bubble_closed_form(ss_schedule s, int p, int v, int m)
{
  return s == SS_SCHEDULE_INTERLEAVED ? (p - 1.0) / ((double)v * m) : (p - 1.0) / m;
}
