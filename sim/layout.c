/* layout: the 3D-parallel layout of a job's GPUs (layout.h). */
#include "layout.h"

#include <stdio.h>
#include <string.h>

const char* const ss_dim_names[] = {"tp", "cp", "dp", "pp", NULL};

int ss_layout_parse_order(const char* text, ss_dim order[SS_DIM_COUNT])
{
  int seen = 0, n = 0;
  for (const char* s = text; s && *s && n < SS_DIM_COUNT;) {
    size_t len = strcspn(s, "-");
    int d = -1;
    for (int k = 0; k < SS_DIM_COUNT && d < 0; k++)
      if (strlen(ss_dim_names[k]) == len && strncmp(ss_dim_names[k], s, len) == 0)
        d = k;
    /* cp only right after tp, where it goes when not named. */
    if (d < 0 || (seen & (1 << d)) || (d == SS_DIM_CP && (n == 0 || order[n - 1] != SS_DIM_TP)))
      return -1;
    seen |= 1 << d;
    order[n++] = (ss_dim)d;
    if (d == SS_DIM_TP && n < SS_DIM_COUNT && strncmp(s + len, "-cp", 3) != 0) {
      seen |= 1 << SS_DIM_CP;
      order[n++] = SS_DIM_CP;
    }
    s += len;
    if (*s == '-' && !*++s)
      return -1;
  }
  return n == SS_DIM_COUNT && seen == (1 << SS_DIM_COUNT) - 1 ? 0 : -1;
}

int ss_layout_make(int gpus, int t, int cp, int p, const ss_dim order[SS_DIM_COUNT], ss_layout* out, char* why,
                   size_t size)
{
  if (t < 1 || cp < 1 || p < 1 || gpus < 1)
    return snprintf(why, size, "--tp, --cp and --pp must be 1 or more (got %d, %d and %d)", t, cp, p), -1;
  if (gpus % (t * cp * p))
    return snprintf(why, size,
                    "--tp %d x --cp %d x --pp %d = %d GPUs per replica does not divide the job's %d GPUs (the "
                    "data-parallel size is GPUs / (tp cp pp))",
                    t, cp, p, t * cp * p, gpus),
           -1;
  memset(out, 0, sizeof(*out));
  out->size[SS_DIM_TP] = t;
  out->size[SS_DIM_CP] = cp;
  out->size[SS_DIM_PP] = p;
  out->size[SS_DIM_DP] = gpus / (t * cp * p);
  memcpy(out->order, order, sizeof(out->order));
  return 0;
}

int ss_layout_gpus(const ss_layout* l)
{
  return l->size[SS_DIM_TP] * l->size[SS_DIM_CP] * l->size[SS_DIM_DP] * l->size[SS_DIM_PP];
}

void ss_layout_coords(const ss_layout* l, int rank, int coord[SS_DIM_COUNT])
{
  for (int k = 0; k < SS_DIM_COUNT; k++) {
    ss_dim d = l->order[k];
    coord[d] = rank % l->size[d];
    rank /= l->size[d];
  }
}

int ss_layout_rank(const ss_layout* l, const int coord[SS_DIM_COUNT])
{
  int rank = 0;
  for (int k = SS_DIM_COUNT - 1; k >= 0; k--) {
    ss_dim d = l->order[k];
    rank = rank * l->size[d] + coord[d];
  }
  return rank;
}

int ss_layout_group(const ss_layout* l, int rank, ss_dim dim, int* out)
{
  return ss_layout_group_dims(l, rank, 1u << dim, out);
}

int ss_layout_group_dims(const ss_layout* l, int rank, unsigned dims, int* out)
{
  int c[SS_DIM_COUNT], n = 1;
  ss_layout_coords(l, rank, c);
  for (int k = 0; k < SS_DIM_COUNT; k++)
    if (dims & (1u << l->order[k]))
      n *= l->size[l->order[k]];
  for (int i = 0; i < n; i++) {
    int rest = i;
    for (int k = 0; k < SS_DIM_COUNT; k++) {
      ss_dim d = l->order[k];
      if (dims & (1u << d)) {
        c[d] = rest % l->size[d];
        rest /= l->size[d];
      }
    }
    out[i] = ss_layout_rank(l, c);
  }
  return n;
}

int ss_layout_groups_across(const ss_layout* l, ss_dim dim, int per_instance)
{
  int n = ss_layout_gpus(l), across = 0;
  for (int r = 0; r < n; r++) {
    int c[SS_DIM_COUNT];
    ss_layout_coords(l, r, c);
    if (c[dim] != 0)
      continue; /* each group once, by its first member */
    int lo = r, hi = r;
    for (int i = 1; i < l->size[dim]; i++) {
      c[dim] = i;
      int q = ss_layout_rank(l, c);
      lo = q < lo ? q : lo;
      hi = q > hi ? q : hi;
    }
    across += lo / per_instance != hi / per_instance;
  }
  return across;
}
