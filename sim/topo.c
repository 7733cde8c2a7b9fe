/* topo: build collective rings over a platform's links. */
#include "topo.h"

#include "transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Residual capacity of each link direction: [2 * link + dir]; SHARED links use dir 0 for both. */
typedef struct residual {
  const ss_platform* p;
  double* cap;
  int* uses; /* scratch: how often the candidate ring crosses each link direction */
} residual;

static int slot(const ss_platform* p, const ss_hop* h)
{
  const ss_link* l = &p->links[h->link];
  return 2 * h->link + (l->sharing == SS_SHARING_SPLITDUPLEX ? h->dir : 0);
}

/* Bottleneck of a ring given the residual capacities (FATPIPE links: their bandwidth per flow). */
static double ring_bottleneck(residual* r, const int* order, int n)
{
  const ss_platform* p = r->p;
  double best = 1e300;
  memset(r->uses, 0, sizeof(int) * 2 * (size_t)p->nlinks);
  for (int i = 0; i < n; i++) {
    const ss_route* rt = ss_platform_route(p, order[i], order[(i + 1) % n]);
    for (int h = 0; h < rt->nhops; h++)
      r->uses[slot(p, &rt->hops[h])]++;
  }
  for (int i = 0; i < n; i++) {
    const ss_route* rt = ss_platform_route(p, order[i], order[(i + 1) % n]);
    for (int h = 0; h < rt->nhops; h++) {
      const ss_link* l = &p->links[rt->hops[h].link];
      int s = slot(p, &rt->hops[h]);
      double bw = l->sharing == SS_SHARING_FATPIPE ? l->bandwidth_bytes_per_s : r->cap[s] / r->uses[s];
      if (bw < best)
        best = bw;
    }
  }
  return best;
}

/* Bit set of the link classes a ring crosses. */
static unsigned ring_classes(const ss_platform* p, const int* order, int n)
{
  unsigned set = 0;
  for (int i = 0; i < n; i++) {
    const ss_route* rt = ss_platform_route(p, order[i], order[(i + 1) % n]);
    for (int h = 0; h < rt->nhops; h++)
      set |= 1u << p->links[rt->hops[h].link].cls;
  }
  return set;
}

/* Next permutation of a[1..n-1] in lexicographic order (a[0] stays); 0 when done. */
static int next_perm(int* a, int n)
{
  int i = n - 2;
  while (i >= 1 && a[i] >= a[i + 1])
    i--;
  if (i < 1)
    return 0;
  int j = n - 1;
  while (a[j] <= a[i])
    j--;
  int t = a[i];
  a[i] = a[j];
  a[j] = t;
  for (int lo = i + 1, hi = n - 1; lo < hi; lo++, hi--) {
    t = a[lo];
    a[lo] = a[hi];
    a[hi] = t;
  }
  return 1;
}

/* Hops of a ring that go through host memory (NCCL's SHM transport). */
static int ring_shm_hops(const ss_platform* p, const int* order, int n)
{
  int k = 0;
  for (int i = 0; i < n; i++)
    k += ss_transport_is_shm(p, order[i], order[(i + 1) % n]);
  return k;
}

/* Best ring among positions of gpus: the largest bottleneck; on ties the fewest hops through host
 * memory (NCCL prefers NVLink, then P2P, then SHM), then the first in lexicographic order. */
static double best_ring(residual* r, const int* gpus, int n, unsigned classes, int* best)
{
  int perm[SS_TOPO_MAX_SEARCH];
  int order[SS_TOPO_MAX_SEARCH];
  double best_bw = -1;
  int best_shm = 0;
  for (int i = 0; i < n; i++)
    perm[i] = i;
  do {
    for (int i = 0; i < n; i++)
      order[i] = gpus[perm[i]];
    if (classes && ring_classes(r->p, order, n) != classes)
      continue;
    double bw = ring_bottleneck(r, order, n);
    int shm = bw >= best_bw * (1 - 1e-12) ? ring_shm_hops(r->p, order, n) : 0;
    if (bw > best_bw * (1 + 1e-12) || (bw >= best_bw * (1 - 1e-12) && shm < best_shm)) {
      best_bw = bw;
      best_shm = shm;
      memcpy(best, order, sizeof(int) * (size_t)n);
    }
  } while (next_perm(perm, n));
  return best_bw;
}

int ss_topo_rings(const ss_platform* p, const int* gpus, int n, ss_rings* out)
{
  memset(out, 0, sizeof(*out));
  out->nranks = n;
  residual r = {.p = p};
  r.cap = malloc(sizeof(double) * 2 * (size_t)p->nlinks);
  r.uses = malloc(sizeof(int) * 2 * (size_t)p->nlinks);
  int* cand = malloc(sizeof(int) * (size_t)n);
  int rc = r.cap && r.uses && cand ? SS_OK : SS_ENOMEM;
  for (int i = 0; !rc && i < p->nlinks; i++)
    r.cap[2 * i] = r.cap[2 * i + 1] = p->links[i].bandwidth_bytes_per_s;
  if (!rc && (n == 1 || n > SS_TOPO_MAX_SEARCH)) {
    /* One GPU needs no ring; beyond the search limit keep the GPUs in the given order. */
    for (int i = 0; i < n; i++)
      cand[i] = gpus[i];
    out->rings[0] = (ss_ring){cand, 1.0, n > 1 ? ring_bottleneck(&r, cand, n) : 0};
    out->nrings = 1;
    cand = NULL;
  }
  unsigned classes = 0;
  double total = 0;
  int search = !rc && n > 1 && n <= SS_TOPO_MAX_SEARCH;
  while (search && !rc && out->nrings < SS_TOPO_MAX_CHANNELS) {
    double bw = best_ring(&r, gpus, n, classes, cand);
    if (bw <= 0 || (out->nrings > 0 && bw < 1e-3 * out->rings[0].bandwidth_bytes_per_s))
      break;
    if (out->nrings == 0)
      classes = ring_classes(p, cand, n);
    (void)ring_bottleneck(&r, cand, n); /* fills r.uses for cand */
    for (int s = 0; s < 2 * p->nlinks; s++)
      if (r.uses[s] && p->links[s / 2].sharing != SS_SHARING_FATPIPE)
        r.cap[s] -= bw * r.uses[s];
    out->rings[out->nrings++] = (ss_ring){cand, 0, bw};
    total += bw;
    cand = malloc(sizeof(int) * (size_t)n);
    if (!cand)
      rc = SS_ENOMEM;
  }
  if (total > 0)
    for (int i = 0; i < out->nrings; i++)
      out->rings[i].share = out->rings[i].bandwidth_bytes_per_s / total;
  free(cand);
  free(r.cap);
  free(r.uses);
  if (rc)
    ss_topo_rings_free(out);
  return rc;
}

void ss_topo_rings_free(ss_rings* r)
{
  for (int i = 0; i < r->nrings; i++)
    free(r->rings[i].order);
  r->nrings = 0;
}

/* A copy of r into out (out's own orders): 0, or SS_ENOMEM (out then empty). */
static int rings_copy(const ss_rings* r, ss_rings* out)
{
  *out = *r;
  for (int i = 0; i < r->nrings; i++) {
    out->rings[i].order = malloc(sizeof(int) * (size_t)r->nranks);
    if (!out->rings[i].order) {
      out->nrings = i;
      ss_topo_rings_free(out);
      return SS_ENOMEM;
    }
    memcpy(out->rings[i].order, r->rings[i].order, sizeof(int) * (size_t)r->nranks);
  }
  return SS_OK;
}

static void rings_delete(void* r)
{
  ss_topo_rings_free(r);
  free(r);
}

int ss_topo_instance_rings(const ss_platform* p, int n, ss_rings* out)
{
  char key[32];
  snprintf(key, sizeof(key), "%d", n);
  const ss_rings* kept = ss_memo_get(p->memo, "topo.instance_rings", key);
  if (kept)
    return rings_copy(kept, out);
  int* gpus = malloc(sizeof(int) * (size_t)n);
  if (!gpus)
    return SS_ENOMEM;
  for (int i = 0; i < n; i++)
    gpus[i] = i;
  int rc = ss_topo_rings(p, gpus, n, out);
  free(gpus);
  ss_rings* keep = rc ? NULL : malloc(sizeof(*keep));
  if (keep && rings_copy(out, keep) == SS_OK)
    ss_memo_put(p->memo, "topo.instance_rings", key, keep, rings_delete);
  else
    free(keep);
  return rc;
}

/* Node i of tree `tree` in heap numbering, and back. */
static int heap_index(int n, int tree, int i)
{
  return tree ? n - 1 - i : i;
}

void ss_topo_btree(int n, int tree, int i, int* parent, int child[2], int* slot)
{
  ss_assert(n >= 1 && i >= 0 && i < n && (tree == 0 || tree == 1));
  int h = heap_index(n, tree, i);
  *parent = h > 0 ? heap_index(n, tree, (h - 1) / 2) : -1;
  *slot = h > 0 ? (h - 1) % 2 : 0;
  for (int c = 0; c < 2; c++)
    child[c] = 2 * h + 1 + c < n ? heap_index(n, tree, 2 * h + 1 + c) : -1;
}

int ss_topo_btree_depth(int n)
{
  int d = 0;
  while ((2 << d) <= n)
    d++;
  return d;
}
