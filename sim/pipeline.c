/* pipeline: the pipeline-parallel schedules, their orders and their bubble (pipeline.h). */
#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>

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
                    "the interleaved schedule needs 2 stages or more and 2 chunks per stage or more (got %d stages, "
                    "--virtual-stages %d)",
                    p, v),
           -1;
  if (f->micro_multiple_p && m % p)
    return snprintf(why, size,
                    "the interleaved schedule runs its micro-batches in groups of the stages: %d micro-batches are not "
                    "a multiple of %d stages (Megatron-LM's rule)",
                    m, p),
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

int ss_pipe_order(ss_schedule s, int p, int v, int m, int stage, ss_pipe_op* out)
{
  char why[256];
  if (ss_pipe_check(s, p, v, m, why, sizeof(why)) || stage < 0 || stage >= p)
    return -1;
  int n = 0;
  if (s == SS_SCHEDULE_GPIPE) {
    for (int i = 0; i < m; i++)
      out[n++] = (ss_pipe_op){i, 0, 0};
    for (int i = m - 1; i >= 0; i--)
      out[n++] = (ss_pipe_op){i, 0, 1};
    return n;
  }
  /* 1F1B, interleaved or not: the warm-up forwards, then a forward and a backward in turn, then the
   * cool-down backwards (forward_backward_pipelining_with[out]_interleaving). */
  int total = m * v, warmup;
  if (s == SS_SCHEDULE_1F1B)
    warmup = p - stage - 1 < m ? p - stage - 1 : m;
  else if (m == p)
    warmup = total; /* Megatron: every micro-batch is a warm-up one */
  else {
    warmup = (p - stage - 1) * 2 + (v - 1) * p;
    warmup = warmup < total ? warmup : total;
  }
  for (int k = 0; k < warmup; k++)
    out[n++] = s == SS_SCHEDULE_1F1B ? (ss_pipe_op){k, 0, 0} : interleaved_op(p, v, k, 0);
  for (int k = 0; k < total - warmup; k++) {
    out[n++] = s == SS_SCHEDULE_1F1B ? (ss_pipe_op){warmup + k, 0, 0} : interleaved_op(p, v, warmup + k, 0);
    out[n++] = s == SS_SCHEDULE_1F1B ? (ss_pipe_op){k, 0, 1} : interleaved_op(p, v, k, 1);
  }
  for (int k = total - warmup; k < total; k++)
    out[n++] = s == SS_SCHEDULE_1F1B ? (ss_pipe_op){k, 0, 1} : interleaved_op(p, v, k, 1);
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
  ss_pipe_op* order = malloc(sizeof(*order) * 2 * (size_t)m * (size_t)v);
  int n = order ? ss_pipe_order(s, p, v, m, stage, order) : -1;
  double held = 0, most = n < 0 ? -1 : 0;
  for (int i = 0; i < n; i++) {
    double layers = counts[order[i].chunk * p + stage];
    held += order[i].bwd ? -layers : layers;
    most = held > most ? held : most;
  }
  free(order);
  return most;
}

double ss_pipe_bubble_closed_form(ss_schedule s, int p, int v, int m)
{
  return s == SS_SCHEDULE_INTERLEAVED ? (p - 1.0) / ((double)v * m) : (p - 1.0) / m;
}
