/* cost: alpha-beta figures of a job's collectives, from its platform alone. */
#include "cost.h"

#include "array.h"
#include "cluster.h"
#include "nccl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double ss_cost_hop_latency(const ss_job* j, int a, int b)
{
  int g = j->gpus_per_instance;
  if (a / g == b / g)
    return ss_cluster_route_latency(j, a % g, b % g);
  return ss_cluster_cross_latency(j, a % g, b % g);
}

double ss_cost_alpha_global(const ss_job* j)
{
  /* Every instance holds the same chains: its hops and the hop out of it cover all of them. */
  int g = j->gpus_per_instance, span = j->instances > 1 ? g + 1 : g;
  double alpha = 0;
  for (int c = 0; c < j->rings.nrings && j->ngpus > 1; c++)
    for (int i = 0; i < span && i < j->ngpus; i++) {
      const int* o = j->rings.rings[c].order;
      alpha = fmax(alpha, ss_cost_hop_latency(j, o[i], o[(i + 1) % j->ngpus]));
    }
  return alpha;
}

double ss_cost_alpha_intra(const ss_job* j)
{
  int g = j->gpus_per_instance;
  double alpha = 0;
  for (int c = 0; c < j->intra.nrings && g > 1; c++)
    for (int i = 0; i < g; i++)
      alpha = fmax(alpha,
                   ss_cluster_route_latency(j, j->intra.rings[c].order[i], j->intra.rings[c].order[(i + 1) % g]));
  return alpha;
}

double ss_cost_alpha_cross(const ss_job* j)
{
  double alpha = 0;
  for (int k = 0; k < j->gpus_per_instance && j->instances > 1; k++)
    alpha = fmax(alpha, ss_cluster_cross_latency(j, k, k));
  return alpha;
}

/* Bandwidth of the rings inside an instance together: each ring's bottleneck, summed. */
static double intra_bandwidth(const ss_job* j)
{
  double bw = 0;
  for (int c = 0; c < j->intra.nrings; c++)
    bw += j->intra.rings[c].bandwidth_bytes_per_s;
  return bw;
}

/* The transfers of an instance's GPUs across instances (cross_bandwidth, ss_cost_nic_hidden): flow l
 * is GPU l's transfer to its peer in another instance together with its peer's to it (identical
 * instances: the same links the other way), over the resources of its routes to and from its NIC,
 * at most its path's rate alone; and scratch. */
typedef struct cross_net {
  int nf, nr;
  int* first;       /* [nf + 1]: flow f takes res[first[f]] .. res[first[f + 1] - 1], a resource twice
                     * where both ways share it */
  int* res;         /* resources: a direction of a full-duplex link (2 link + dir), a shared link
                     * (2 link); FATPIPE links limit each flow on its own (alone) */
  double* capacity; /* [nr] */
  double* alone;    /* [nf] ss_cluster_cross_bandwidth */
  double* alpha;    /* [nf] ss_cluster_cross_latency */
  double *left, *wsum;
  int* frozen;
} cross_net;

static void cross_net_free(cross_net* c)
{
  SS_FREE_ALL(c->first, c->res, c->capacity, c->alone, c->alpha, c->left, c->wsum, c->frozen);
}

static void cross_net_init(cross_net* c, const ss_job* j)
{
  const ss_platform* p = j->platform;
  int g = j->gpus_per_instance, nres = 0;
  memset(c, 0, sizeof(*c));
  c->nf = g;
  c->nr = 2 * p->nlinks;
  for (int l = 0; l < g; l++) {
    int nic = ss_platform_nic_node(p, ss_platform_gpu_nic(p, l));
    nres += ss_platform_route(p, l, nic)->nhops + ss_platform_route(p, nic, l)->nhops;
  }
  c->first = calloc((size_t)g + 1, sizeof(int));
  c->res = calloc((size_t)nres + 1, sizeof(int));
  c->capacity = calloc((size_t)c->nr + 1, sizeof(double));
  c->left = calloc((size_t)c->nr + 1, sizeof(double));
  c->wsum = calloc((size_t)c->nr + 1, sizeof(double));
  c->alone = calloc((size_t)g, sizeof(double));
  c->alpha = calloc((size_t)g, sizeof(double));
  c->frozen = calloc((size_t)g, sizeof(int));
  if (!c->first || !c->res || !c->capacity || !c->left || !c->wsum || !c->alone || !c->alpha || !c->frozen)
    ss_nomem_exit("the transfers across instances");
  int n = 0;
  for (int l = 0; l < g; l++) {
    int nic = ss_platform_nic_node(p, ss_platform_gpu_nic(p, l));
    const ss_route* way[2] = {ss_platform_route(p, l, nic), ss_platform_route(p, nic, l)};
    c->first[l] = n;
    for (int w = 0; w < 2; w++)
      for (int h = 0; h < way[w]->nhops; h++) {
        const ss_hop* hop = &way[w]->hops[h];
        ss_sharing sh = p->links[hop->link].sharing;
        if (sh == SS_SHARING_FATPIPE)
          continue;
        int k = 2 * hop->link + (sh == SS_SHARING_SPLITDUPLEX && hop->dir == 1);
        c->res[n++] = k;
        c->capacity[k] = ss_cluster_link_bandwidth(j, hop->link);
      }
    c->alone[l] = ss_cluster_cross_bandwidth(j, l, l);
    c->alpha[l] = ss_cluster_cross_latency(j, l, l);
  }
  c->first[g] = n;
}

/* Rates of the flows f with on[f] (on NULL: all; the others 0) as SimGrid's max-min sharing gives
 * them: each at most alone[f]; on a full resource, shares in proportion to 1 / alpha[f] with
 * weighted (its model of TCP's RTT unfairness), alike without. */
static void cross_rates(cross_net* c, const int* on, int weighted, double* rate)
{
  int nf = c->nf;
  for (int f = 0; f < nf; f++) {
    rate[f] = 0;
    c->frozen[f] = (on && !on[f]) || !(c->alone[f] > 0);
  }
  memcpy(c->left, c->capacity, sizeof(double) * (size_t)c->nr);
  /* Progressive filling: the unfrozen flows grow together until a resource they take or their own
   * rate alone is full; each round freezes at least one. */
  for (int round = 0; round <= nf; round++) {
    memset(c->wsum, 0, sizeof(double) * (size_t)c->nr);
    double step = INFINITY;
    for (int f = 0; f < nf; f++) {
      if (c->frozen[f])
        continue;
      double w = weighted ? 1 / c->alpha[f] : 1;
      for (int i = c->first[f]; i < c->first[f + 1]; i++)
        c->wsum[c->res[i]] += w;
      step = fmin(step, (c->alone[f] - rate[f]) / w);
    }
    for (int k = 0; k < c->nr; k++)
      if (c->wsum[k] > 0)
        step = fmin(step, c->left[k] / c->wsum[k]);
    if (step == INFINITY)
      return;
    for (int f = 0; f < nf; f++) {
      if (c->frozen[f])
        continue;
      double w = weighted ? 1 / c->alpha[f] : 1;
      rate[f] += step * w;
      for (int i = c->first[f]; i < c->first[f + 1]; i++)
        c->left[c->res[i]] -= step * w;
    }
    for (int f = 0; f < nf; f++) {
      int full = c->alone[f] - rate[f] <= 1e-12 * c->alone[f];
      for (int i = c->first[f]; i < c->first[f + 1] && !full; i++)
        full = c->left[c->res[i]] <= 1e-12 * c->capacity[c->res[i]];
      c->frozen[f] = c->frozen[f] || full;
    }
  }
}

/* Bandwidth of one GPU's flow to the same GPU of another instance when all g GPUs send to their peers
 * at once (hierarchical's middle phase, the trees): the slowest of the flows' max-min fair shares
 * (alike, as SimGrid's without latencies) of the links of their routes to and from their NICs (the
 * NIC, and the PCIe switch or socket link that several GPUs cross to reach it), each flow at most its
 * path's rate alone. An even share of the NIC alone would not see those links, and the protocol
 * chosen for the time predicted would then take a fast NIC for a fast path (issue 39). */
static double cross_bandwidth(const ss_job* j)
{
  cross_net c;
  cross_net_init(&c, j);
  double *rate = calloc((size_t)c.nf, sizeof(double)), bw = 1e300;
  if (!rate)
    ss_nomem_exit("the transfers across instances");
  cross_rates(&c, NULL, 0, rate);
  for (int f = 0; f < c.nf; f++)
    bw = fmin(bw, rate[f]);
  free(rate);
  cross_net_free(&c);
  return bw;
}

/* ss_cost_nic_hidden's transfers over c and their state: per transfer its time or bytes left, rate,
 * end, phase (0: waiting lat, 1: its latency, 2: moving), steps done; on[] marks the moving ones. */
typedef struct nic_work {
  cross_net* c;
  int weighted;
  double *left, *rate, *end;
  int *phase, *done, *on;
} nic_work;

/* Run `steps` steps of every transfer of w from time 0: each waits lat, then its route's latency
 * (no bandwidth taken meanwhile), then moves `bytes` at its share (cross_rates) of the resources
 * with the others moving then; w->end[i] receives when transfer i ended its last step. */
static void nic_steps(nic_work* w, double lat, double bytes, int steps)
{
  int k = w->c->nf;
  double t = 0;
  for (int i = 0; i < k; i++) {
    w->phase[i] = 0;
    w->left[i] = lat;
    w->done[i] = 0;
  }
  for (int finished = 0; finished < k;) {
    for (int i = 0; i < k; i++)
      w->on[i] = w->done[i] < steps && w->phase[i] == 2;
    cross_rates(w->c, w->on, w->weighted, w->rate);
    double dt = INFINITY;
    for (int i = 0; i < k; i++)
      if (w->done[i] < steps)
        dt = fmin(dt, w->phase[i] == 2 ? w->left[i] / w->rate[i] : w->left[i]);
    t += dt;
    for (int i = 0; i < k; i++) {
      if (w->done[i] >= steps)
        continue;
      w->left[i] -= w->phase[i] == 2 ? w->rate[i] * dt : dt;
      /* A wait or a transfer that ends now (to rounding) moves the transfer on. */
      if (w->left[i] > 1e-12 * (w->phase[i] == 2 ? bytes : fmax(lat, w->c->alpha[i])))
        continue;
      if (w->phase[i] == 0) {
        w->phase[i] = 1;
        w->left[i] = w->c->alpha[i];
      } else if (w->phase[i] == 1) {
        w->phase[i] = 2;
        w->left[i] = bytes;
      } else if (++w->done[i] == steps) {
        finished++;
        w->end[i] = t;
      } else {
        w->phase[i] = 0;
        w->left[i] = lat;
      }
    }
  }
}

void ss_cost_nic_hidden(const ss_job* j, double lat, double bytes, int steps, double* hidden)
{
  int g = j->gpus_per_instance;
  for (int l = 0; l < g; l++)
    hidden[l] = 0;
  if (steps < 1 || bytes <= 0 || j->instances < 2 || g < 2 || g > SS_NIC_HIDDEN_MAX_GPUS)
    return;
  cross_net c;
  cross_net_init(&c, j);
  int same = 1, weighted = 1;
  for (int i = 0; i < g; i++) {
    same = same && c.alpha[i] == c.alpha[0] && c.alone[i] == c.alone[0];
    weighted = weighted && c.alpha[i] > 0;
  }
  for (int i = 0; i < g; i++)
    same = same || !(c.alone[i] > 0);
  /* Alike transfers move together at both fidelities: nothing to hide. Beyond
   * SS_NIC_HIDDEN_MAX_GPUS GPUs (no instance in the catalogue has more than 16) the model is not run:
   * its cost grows as the cube of their number. */
  if (same) {
    cross_net_free(&c);
    return;
  }
  double* d = calloc(4 * (size_t)g, sizeof(double));
  int* n = calloc(3 * (size_t)g, sizeof(int));
  if (!d || !n)
    ss_nomem_exit("the transfers sharing a NIC");
  nic_work w = {&c, weighted, d, d + g, d + 2 * g, n, n + g, n + 2 * g};
  double* flows = d + 3 * g;
  /* The fast ring's one flow per GPU of every step's bytes, each after its own latency: those whose
   * route is shorter start ahead there too, and the ring (ring_chain) prices each step at the latency
   * and the flow's time after it over the steps. */
  nic_steps(&w, 0, bytes * steps, 1);
  for (int i = 0; i < g; i++)
    flows[i] = steps * (lat + c.alpha[i]) + w.end[i] - c.alpha[i];
  nic_steps(&w, lat, bytes, steps);
  for (int i = 0; i < g; i++)
    hidden[i] = flows[i] > w.end[i] ? flows[i] - w.end[i] : 0;
  free(d);
  free(n);
  cross_net_free(&c);
}

int ss_cost_tree_chunks(double half_shard_bytes)
{
  double k = ceil(half_shard_bytes / SS_TREE_CHUNK_BYTES);
  return k < 1 ? 1 : k > SS_TREE_MAX_CHUNKS ? SS_TREE_MAX_CHUNKS : (int)k;
}

double ss_cost_tree_bandwidth(const ss_job* j)
{
  /* A GPU's flow across instances, shared by its two trees. */
  return cross_bandwidth(j) / 2;
}

double ss_cost_tree_pace_s(const ss_job* j, double chunk)
{
  return chunk / cross_bandwidth(j);
}

int ss_cost_tree_window(const ss_job* j, double chunk)
{
  return ss_job_ring_pipelined(j) ? ss_nccl_window(chunk) : 1;
}

void ss_cost_tree_split(const ss_job* j, double bytes, int* k, double* chunk)
{
  double half = bytes / j->gpus_per_instance / 2;
  *k = ss_cost_tree_chunks(half);
  *chunk = half / *k < 1 ? 1 : half / *k;
}

/* Heights (hops to the deepest leaf below) and depths of the nodes of tree t over m nodes. */
static void tree_levels(int m, int t, int* height, int* depth)
{
  /* Children come after their parent in heap order: walk it backwards. */
  for (int h = m - 1; h >= 0; h--) {
    int i = t ? m - 1 - h : h, parent, child[2], slot;
    ss_topo_btree(m, t, i, &parent, child, &slot);
    height[i] = 0;
    for (int c = 0; c < 2; c++)
      if (child[c] >= 0)
        height[i] = height[i] > height[child[c]] + 1 ? height[i] : height[child[c]] + 1;
  }
  for (int i = 0; i < m; i++) {
    int h = t ? m - 1 - i : i, d = 0;
    while (h > 0) {
      h = (h - 1) / 2;
      d++;
    }
    depth[i] = d;
  }
}

/* Whether node i of tree t passes a chunk on at step s: a reduce sends chunk s - height up, a
 * broadcast chunk s - depth down. */
static int tree_sends(int s, int k, int reduce, const int* height, const int* depth, int i)
{
  int c = s - (reduce ? height[i] : depth[i]);
  return c >= 0 && c < k;
}

/* Transfers leaving (out) and entering (in) each node at step s of the lock-step schedule, both
 * trees together; s < 0 counts every edge at once (the fast fidelity's flows). */
static void tree_counts(int m, int s, int k, int reduce, int* const height[2], int* const depth[2], int* out, int* in)
{
  memset(out, 0, sizeof(int) * (size_t)m);
  memset(in, 0, sizeof(int) * (size_t)m);
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < m; i++) {
      int parent, child[2], slot;
      ss_topo_btree(m, t, i, &parent, child, &slot);
      for (int c = 0; c < 2; c++) {
        if (child[c] < 0)
          continue;
        int from = reduce ? child[c] : i, to = reduce ? i : child[c];
        if (s < 0 || tree_sends(s, k, reduce, height[t], depth[t], from)) {
          out[from]++;
          in[to]++;
        }
      }
    }
}

double ss_cost_tree_phase(const ss_job* j, int reduce, int k, double chunk, double* flows_s)
{
  int m = j->instances, d = ss_topo_btree_depth(m);
  double b1 = cross_bandwidth(j), alpha = ss_cost_alpha_cross(j);
  int* lv = malloc(sizeof(int) * 6 * (size_t)m);
  int* cnt = malloc(sizeof(int) * 2 * (size_t)m * (size_t)(d + k + 1)); /* [step][out m | in m] */
  int w = ss_cost_tree_window(j, chunk);
  /* [tree][node]: when its last chunk arrived, when its link is free again, and when each of its last w
   * chunks arrived (the connection's slots: a chunk leaves once the one w before it has landed). */
  double* done = calloc(2 * (size_t)m * (size_t)(w + 2), sizeof(double));
  double *free_at = done + 2 * m, *landed = done + 4 * m;
  if (!lv || !cnt || !done)
    ss_nomem_exit("the cost of a tree phase");
  int* height[2] = {lv, lv + m};
  int* depth[2] = {lv + 2 * m, lv + 3 * m};
  int* order[2] = {lv + 4 * m, lv + 5 * m}; /* nodes by level: data flows from level 0 up */
  for (int t = 0; t < 2; t++) {
    tree_levels(m, t, height[t], depth[t]);
    int n = 0;
    for (int level = 0; level <= d; level++)
      for (int i = 0; i < m; i++)
        if ((reduce ? height[t][i] : depth[t][i]) == level)
          order[t][n++] = i;
    ss_assert(n == m);
  }
  for (int s = 0; s <= d + k; s++)
    tree_counts(m, s, k, reduce, height, depth, cnt + 2 * m * s, cnt + 2 * m * s + m);
  /* Data flow, as the reference runs it: a node passes chunk c on once it has it (from every child
   * in a reduce, from its parent in a broadcast), its chunk c-1 has left its link and its chunk c-w has
   * landed (NCCL's slots: up to w chunks in flight, their latencies overlapping); a transfer shares its
   * endpoints' NIC directions with the transfers of the same lock-step step. */
  double end = 0;
  for (int c = 0; c < k; c++)
    for (int t = 0; t < 2; t++)
      for (int n = 0; n < m; n++) {
        int i = order[t][n], level = reduce ? height[t][i] : depth[t][i];
        int parent, child[2], slot;
        ss_topo_btree(m, t, i, &parent, child, &slot);
        double ready = fmax(free_at[t * m + i], landed[(size_t)(t * m + i) * w + (size_t)(c % w)]);
        int busy = 0, step = c + level;
        const int* out = cnt + 2 * m * step;
        const int* in = out + m;
        if (reduce) {
          if (parent < 0)
            continue;
          for (int q = 0; q < 2; q++)
            if (child[q] >= 0)
              ready = fmax(ready, done[t * m + child[q]]);
          busy = out[i] > in[parent] ? out[i] : in[parent];
        } else {
          if (child[0] < 0 && child[1] < 0)
            continue;
          if (parent >= 0)
            ready = fmax(ready, done[t * m + parent]);
          busy = out[i];
          for (int q = 0; q < 2; q++)
            if (child[q] >= 0 && in[child[q]] > busy)
              busy = in[child[q]];
        }
        free_at[t * m + i] = ready + chunk * busy / b1;
        done[t * m + i] = landed[(size_t)(t * m + i) * w + (size_t)(c % w)] = free_at[t * m + i] + alpha;
        end = fmax(end, done[t * m + i]);
      }
  int *out = cnt, *in = cnt + m;
  tree_counts(m, -1, k, reduce, height, depth, out, in);
  int all = 0;
  for (int i = 0; i < 2 * m; i++)
    all = cnt[i] > all ? cnt[i] : all;
  free(lv);
  free(cnt);
  free(done);
  *flows_s = alpha + k * chunk * all / b1;
  return end;
}

ss_hw ss_cost_link_hw(ss_link_class cls)
{
  switch (cls) {
    case SS_LINK_NVLINK:
    case SS_LINK_NVSWITCH: return SS_HW_NVLINK;
    case SS_LINK_NIC: return SS_HW_NET;
    default: return SS_HW_PCI;
  }
}

/* The class of the hops of a ring over GPUs order[0..n) of one instance (its slowest link's). */
static ss_hw ring_hw(const ss_platform* p, const int* order, int n)
{
  ss_hw hw = SS_HW_NVLINK;
  for (int i = 0; i < n && n > 1; i++) {
    const ss_route* r = ss_platform_route(p, order[i], order[(i + 1) % n]);
    for (int h = 0; h < r->nhops; h++)
      hw = ss_proto_hw_max(hw, ss_cost_link_hw(p->links[r->hops[h].link].cls));
  }
  return hw;
}

int ss_cost_op_passes(ss_coll_op op)
{
  return op == SS_OP_ALLREDUCE ? 2 : 1;
}

int ss_cost_op_has(ss_coll_op op, ss_allreduce alg)
{
  if (op == SS_OP_ALL_TO_ALL)
    return alg == SS_ALLREDUCE_RING;
  return op == SS_OP_ALLREDUCE || alg != SS_ALLREDUCE_TREE;
}

void ss_cost_shape(const ss_job* j, ss_coll_op op, ss_allreduce alg, ss_proto_shape* s)
{
  int g = j->gpus_per_instance, m = j->instances, passes = ss_cost_op_passes(op);
  memset(s, 0, sizeof(*s));
  s->tree = alg == SS_ALLREDUCE_TREE;
  s->nodes = m;
  s->ranks_per_node = g;
  s->arch = ss_job_gpu_arch(j);
  ss_hw intra = SS_HW_NVLINK;
  for (int c = 0; c < j->intra.nrings && g > 1; c++)
    intra = ss_proto_hw_max(intra, ring_hw(j->platform, j->intra.rings[c].order, g));
  double bw_in = g > 1 ? intra_bandwidth(j) : 0, nic = m > 1 ? ss_cluster_nic_bandwidth(j) : 0;
  for (int k = 0; k < SS_PHASE_COUNT; k++)
    s->hw[k] = SS_HW_NET;
  s->hw[SS_PHASE_INTRA] = intra;
  if (alg == SS_ALLREDUCE_RING) {
    s->steps[SS_PHASE_GLOBAL] = passes * (j->ngpus - 1);
    s->hw[SS_PHASE_GLOBAL] = m > 1 ? SS_HW_NET : intra;
    s->bus_bytes_per_s[SS_PHASE_GLOBAL] = m > 1 ? (g > 1 ? fmin(bw_in, nic) : nic) : bw_in;
    return;
  }
  s->steps[SS_PHASE_INTRA] = passes * (g - 1);
  s->bus_bytes_per_s[SS_PHASE_INTRA] = bw_in;
  if (m > 1 && alg == SS_ALLREDUCE_TREE) {
    s->steps[SS_PHASE_TREE] = 2 * ss_topo_btree_depth(m);
    s->bus_bytes_per_s[SS_PHASE_TREE] = nic;
  } else if (m > 1) {
    s->steps[SS_PHASE_CROSS] = passes * (m - 1);
    s->bus_bytes_per_s[SS_PHASE_CROSS] = nic;
  }
}

/* `steps` steps of `payload` bytes each over the links inside an instance, each step paying step_s of
 * latency besides the links' own. */
static double intra_steps(const ss_job* j, int steps, double payload, const ss_proto_cost* pc, double step_s)
{
  double links = (double)steps *
                 (ss_cost_alpha_intra(j) + step_s + payload / (intra_bandwidth(j) * pc->eff[SS_PHASE_INTRA]));
  return fmax(links, ss_proto_floor_s(pc, SS_PHASE_INTRA, steps, payload));
}

/* Inside an instance of g GPUs, (g-1) steps of S/g on its rings per pass: reduce-scatter, all-gather,
 * or both (allreduce: 2 passes). */
static double cost_intra(const ss_job* j, int passes, double bytes, const ss_proto_cost* pc)
{
  int g = j->gpus_per_instance;
  return intra_steps(j, passes * (g - 1), bytes / g, pc, pc->step_s[SS_PHASE_INTRA]);
}

double ss_cost_tree_floor(const ss_job* j, int k, double chunk, const ss_proto_cost* pc)
{
  double cap = pc->cap_bytes_per_s[SS_PHASE_TREE];
  int d = ss_topo_btree_depth(j->instances);
  if (!(cap > 0) || j->instances < 2)
    return 0;
  /* Each step, a GPU's NIC carries two transfers each way (one per tree), the g GPUs of an
   * instance together at most the cap. */
  return d * pc->step_s[SS_PHASE_TREE] + (d + k - 1) * 2.0 * j->gpus_per_instance * chunk / cap;
}

int ss_cost_tree_nvls(const ss_job* j, const ss_proto_cost* pc)
{
  return j->nvls_share > 0 && pc->proto == SS_PROTO_SIMPLE && j->gpus_per_instance > 1;
}

void ss_cost_tree_intra(const ss_job* j, double bytes, const ss_proto_cost* pc, int* steps, double* payload)
{
  int g = j->gpus_per_instance;
  *steps = g > 1 ? g - 1 : 0;
  *payload = 0;
  if (g < 2)
    return;
  /* NVLS: over both halves a GPU sends its whole buffer into the switch's reduction and its shard to
   * the multicast, and receives as much, S (1 + 1/g) each way, at NVLS's share of the switch's rate, in
   * one step each (the switch reduces and multicasts: no step per peer). */
  if (ss_cost_tree_nvls(j, pc)) {
    *steps = 1;
    *payload = bytes * (1 + 1.0 / g) / 2.0 / j->nvls_share;
  } else {
    *payload = bytes / g;
  }
}

double ss_cost_tree_step_s(const ss_job* j, const ss_proto_cost* pc)
{
  if (!ss_cost_tree_nvls(j, pc))
    return pc->step_s[SS_PHASE_INTRA];
  /* NCCL's latency of NVLS inside an instance (tuning.cc's hwLat for NVLS over NVLink, Simple: 23 us in
   * 2.17-2.20, 25 from 2.21), half for each half. */
  return (j->opt.nccl_version >= SS_NCCL_2_21 ? 25e-6 : 23e-6) / 2;
}

double ss_cost_tree_half_s(const ss_job* j, double bytes, const ss_proto_cost* pc)
{
  int steps = 0;
  double payload = 0;
  ss_cost_tree_intra(j, bytes, pc, &steps, &payload);
  return steps < 1 ? 0 : intra_steps(j, steps, payload, pc, ss_cost_tree_step_s(j, pc));
}

double ss_cost_tree_fill_s(const ss_job* j, double bytes, const ss_proto_cost* pc)
{
  int k = 0;
  double chunk = 0;
  ss_cost_tree_split(j, bytes, &k, &chunk);
  return ss_cost_tree_half_s(j, bytes, pc) / k;
}

int ss_cost_tree_pipelined(const ss_job* j)
{
  if (!ss_job_ring_pipelined(j) || j->instances < 2 || j->gpus_per_instance < 2)
    return 0;
  ss_proto_shape s;
  ss_cost_shape(j, SS_OP_ALLREDUCE, SS_ALLREDUCE_TREE, &s);
  return s.hw[SS_PHASE_INTRA] == SS_HW_NVLINK;
}

/* The tree allreduce (docs/model.md, "tree"): inside each instance the reduce half (a reduce-scatter
 * on the intra rings, or NVLS's reduction), a pipelined reduce then broadcast of each half of the
 * shard over the two trees across instances (the chunks on the wire: chunk / eff), the broadcast half
 * inside. NCCL pipelines the three by chunks (ss_cost_tree_pipelined): the work inside and across
 * instances overlaps, the tree starting once the first chunk is reduced inside (fill) and the last
 * chunk's broadcast inside following it; in lock-step (--no-ring-pipeline, --ideal) one after the
 * other. */
static double cost_tree(const ss_job* j, double bytes, const ss_proto_cost* pc)
{
  int m = j->instances;
  double half = ss_cost_tree_half_s(j, bytes, pc), across = 0;
  if (m > 1) {
    double chunk = 0, flows = 0;
    int k = 0;
    ss_cost_tree_split(j, bytes, &k, &chunk);
    double floor = ss_cost_tree_floor(j, k, chunk, pc), lat = ss_topo_btree_depth(m) * pc->step_s[SS_PHASE_TREE];
    chunk /= pc->eff[SS_PHASE_TREE];
    across = fmax(ss_cost_tree_phase(j, 1, k, chunk, &flows) + lat, floor) +
             fmax(ss_cost_tree_phase(j, 0, k, chunk, &flows) + lat, floor);
  }
  if (!ss_cost_tree_pipelined(j))
    return pc->call_s + 2 * half + across;
  double fill = ss_cost_tree_fill_s(j, bytes, pc);
  return pc->call_s + fmax(2 * half, fill + across + fill);
}

double ss_cost_ring_rate(const ss_job* j)
{
  double bw = j->gpus_per_instance > 1 ? intra_bandwidth(j) : 1e300;
  if (j->instances > 1)
    bw = fmin(bw, ss_cluster_ring_cross_bandwidth(j));
  return bw < 1e300 ? bw : 0;
}

double ss_cost_ring_step_s(const ss_job* j, const ss_proto_cost* pc)
{
  return j->instances > 1 ? pc->step_s[SS_PHASE_INTRA] : pc->step_s[SS_PHASE_GLOBAL];
}

/* The pipelined ring's time (ss_job_ring_pipelined): each ring's chunks meet the hops of its pattern in turn
 * (ss_cost_ring_chain), at the rings' common rate. */
static double ring_chained(const ss_job* j, int steps, double chunk, double x, const ss_proto_cost* pc)
{
  int g = j->gpus_per_instance, n = j->ngpus;
  double* a = malloc(sizeof(double) * (size_t)g * (SS_NCCL_STEPS + 5));
  if (!a)
    ss_nomem_exit("a ring's chain");
  double *xs = a + g, *scratch = a + 2 * (size_t)g, t = 0;
  for (int c = 0; c < j->rings.nrings; c++) {
    const int* o = j->rings.rings[c].order;
    for (int q = 0; q < g; q++) {
      a[q] = ss_cost_hop_latency(j, o[q], o[(q + 1) % n]);
      xs[q] = x;
    }
    double share = j->rings.rings[c].share;
    t = fmax(t, ss_cost_ring_chain(steps, ss_nccl_window(chunk * share), g, NULL, xs, a, ss_cost_ring_step_s(j, pc),
                                   pc->step_s[SS_PHASE_GLOBAL], pc->call_s, scratch));
  }
  free(a);
  return t;
}

static double cost_ring(const ss_job* j, int passes, double bytes, const ss_proto_cost* pc)
{
  int n = j->ngpus;
  /* Between instances, the NICs the rings cross by (one per ring and instance boundary), not all. */
  double bw = ss_cost_ring_rate(j);
  double chunk = bytes / n / pc->eff[SS_PHASE_GLOBAL], x = chunk / bw, t;
  if (ss_job_ring_pipelined(j) && j->rings.nrings > 0)
    t = ring_chained(j, passes * (n - 1), chunk, x, pc);
  else
    t = pc->call_s + (double)passes * (n - 1) * (ss_cost_alpha_global(j) + pc->step_s[SS_PHASE_GLOBAL] + x);
  return fmax(t, pc->call_s + ss_proto_floor_s(pc, SS_PHASE_GLOBAL, passes * (n - 1), bytes / n));
}

/* Across m instances, on the ring of same-index GPUs, (m-1) steps of S/(g m) per pass, the g rings of
 * an instance sharing its NICs. */
static double cost_cross(const ss_job* j, int passes, double bytes, const ss_proto_cost* pc)
{
  int g = j->gpus_per_instance, m = j->instances;
  double links = (double)passes * (m - 1) *
                 (ss_cost_alpha_cross(j) + pc->step_s[SS_PHASE_CROSS] +
                  bytes / g / m / (cross_bandwidth(j) * pc->eff[SS_PHASE_CROSS]));
  /* A step moves S/(g m) on each of the g rings: S/m of the phase's bus. */
  return fmax(links, ss_proto_floor_s(pc, SS_PHASE_CROSS, passes * (m - 1), bytes / m));
}

static double cost_hierarchical(const ss_job* j, int passes, double bytes, const ss_proto_cost* pc)
{
  double t = pc->call_s;
  if (j->gpus_per_instance > 1)
    t += cost_intra(j, passes, bytes, pc);
  if (j->instances > 1)
    t += cost_cross(j, passes, bytes, pc);
  return t;
}

static double cost_with(const ss_job* j, ss_coll_op op, ss_allreduce alg, double bytes, const ss_proto_cost* pc)
{
  ss_assert(ss_cost_op_has(op, alg));
  switch (alg) {
    case SS_ALLREDUCE_RING: return cost_ring(j, ss_cost_op_passes(op), bytes, pc);
    case SS_ALLREDUCE_HIERARCHICAL: return cost_hierarchical(j, ss_cost_op_passes(op), bytes, pc);
    case SS_ALLREDUCE_TREE: return cost_tree(j, bytes, pc);
    default: break;
  }
  ss_assert(!"an allreduce algorithm without a cost model");
  return 0;
}

/* A collective of a shard group (scope SS_SCOPE_INSTANCE: the ring of each instance's GPUs) or of a
 * replica group (SS_SCOPE_CROSS: the ring of the same-index GPUs of all instances, on each GPU's
 * 1/g of bytes, all g rings sharing the NIC, as the hierarchical algorithm's middle phase). */
static double cost_scoped(const ss_job* j, ss_coll_op op, ss_coll_scope scope, double bytes, const ss_proto_cost* pc)
{
  int passes = ss_cost_op_passes(op);
  if (scope == SS_SCOPE_INSTANCE)
    return j->gpus_per_instance > 1 ? pc->call_s + cost_intra(j, passes, bytes, pc) : 0;
  return j->instances > 1 ? pc->call_s + cost_cross(j, passes, bytes, pc) : 0;
}

/* The time of op at bytes with alg among all GPUs, or among a scope's (cost_scoped). */
static double cost_any(const ss_job* j, ss_coll_op op, ss_allreduce alg, ss_coll_scope scope, double bytes,
                       const ss_proto_cost* pc)
{
  return scope == SS_SCOPE_ALL ? cost_with(j, op, alg, bytes, pc) : cost_scoped(j, op, scope, bytes, pc);
}

/* The tree's bytes between instances reach the transport's share of the line rate for trees, where it
 * has one (ss_net_figures.tree_fraction): the NICs run at the ring's share, so the tree's wire bytes
 * grow by that ratio (ss_job.tree_wire; the NVLS tree's across 3 instances or more, nvls_tree_wire).
 * LL128's bytes between instances reach the transport's share for LL128 (ss_net_figures.ll128_share):
 * the phases that cross instances (a ring over all GPUs, the hierarchical ring's middle, the tree's)
 * carry that many more. */
static void net_wire(const ss_job* j, ss_allreduce alg, ss_coll_scope scope, ss_proto_cost* pc)
{
  double wire = ss_cost_tree_nvls(j, pc) ? j->nvls_tree_wire : j->tree_wire;
  if (alg == SS_ALLREDUCE_TREE && scope == SS_SCOPE_ALL && wire > 0)
    pc->eff[SS_PHASE_TREE] *= wire;
  double ll128 = j->net.ll128_share;
  if (pc->proto == SS_PROTO_LL128 && ll128 > 0 && j->instances > 1 && scope != SS_SCOPE_INSTANCE) {
    pc->eff[SS_PHASE_GLOBAL] *= ll128;
    pc->eff[SS_PHASE_CROSS] *= ll128;
    pc->eff[SS_PHASE_TREE] *= ll128;
  }
}

/* The protocol of op with alg (among the GPUs of scope) at bytes and its predicted time (*time_s).
 * A scope's communicator has one instance (the shard group's) or one GPU per instance (the
 * replicas'): NCCL's rules see that shape. */
static ss_proto protocol(const ss_job* j, ss_coll_op op, ss_allreduce alg, ss_coll_scope scope, double bytes,
                         ss_proto forced, ss_proto_cost* pc, double* time_s)
{
  if (!j->resolved.call_cost) {
    ss_proto_cost_none(pc);
    net_wire(j, alg, scope, pc);
    *time_s = cost_any(j, op, alg, scope, bytes, pc);
    return pc->proto;
  }
  ss_proto_shape s;
  ss_cost_shape(j, op, scope == SS_SCOPE_ALL ? alg : SS_ALLREDUCE_HIERARCHICAL, &s);
  if (scope == SS_SCOPE_INSTANCE) {
    s.nodes = 1;
    s.steps[SS_PHASE_CROSS] = 0;
  } else if (scope == SS_SCOPE_CROSS) {
    s.ranks_per_node = 1;
    s.steps[SS_PHASE_INTRA] = 0;
  }
  *time_s = -1;
  for (int p = SS_PROTO_LL; p < SS_PROTO_COUNT; p++) {
    if (forced != SS_PROTO_AUTO ? p != (int)forced : !ss_proto_enabled((ss_proto)p, &s))
      continue;
    ss_proto_cost c;
    ss_proto_cost_of((ss_proto)p, &s, &c);
    net_wire(j, alg, scope, &c);
    double t = cost_any(j, op, alg, scope, bytes, &c);
    if (*time_s < 0 || t < *time_s) {
      *time_s = t;
      *pc = c;
    }
  }
  return pc->proto;
}

ss_proto ss_cost_protocol(const ss_job* j, ss_coll_op op, ss_allreduce alg, double bytes, ss_proto_cost* pc)
{
  double t;
  return protocol(j, op, alg, SS_SCOPE_ALL, bytes, j->resolved.protocol, pc, &t);
}

void ss_cost_protocol_as(const ss_job* j, ss_coll_op op, ss_allreduce alg, double bytes, ss_proto p, ss_proto_cost* pc)
{
  double t;
  protocol(j, op, alg, SS_SCOPE_ALL, bytes, p, pc, &t);
}

ss_proto ss_cost_protocol_scoped(const ss_job* j, ss_coll_op op, ss_coll_scope scope, double bytes, ss_proto_cost* pc)
{
  double t;
  return protocol(j, op, SS_ALLREDUCE_RING, scope, bytes, j->resolved.protocol, pc, &t);
}

double ss_cost_scoped(const ss_job* j, ss_coll_op op, ss_coll_scope scope, double bytes)
{
  ss_assert(scope != SS_SCOPE_ALL);
  ss_proto_cost pc;
  double t;
  protocol(j, op, SS_ALLREDUCE_RING, scope, bytes, j->resolved.protocol, &pc, &t);
  return t;
}

double ss_cost_collective(const ss_job* j, ss_coll_op op, ss_allreduce alg, double bytes)
{
  if (j->ngpus < 2)
    return 0;
  ss_proto_cost pc;
  double t;
  protocol(j, op, alg, SS_SCOPE_ALL, bytes, j->resolved.protocol, &pc, &t);
  return t;
}

ss_allreduce ss_cost_choose(const ss_job* j, ss_coll_op op, double bytes)
{
  if (j->instances == 1)
    return SS_ALLREDUCE_RING;
  ss_allreduce best = SS_ALLREDUCE_RING;
  double best_s = ss_cost_collective(j, op, best, bytes);
  for (int a = SS_ALLREDUCE_RING + 1; a <= SS_ALLREDUCE_LAST; a++) {
    if (!ss_cost_op_has(op, (ss_allreduce)a))
      continue;
    double t = ss_cost_collective(j, op, (ss_allreduce)a, bytes);
    if (t < best_s) {
      best = (ss_allreduce)a;
      best_s = t;
    }
  }
  return best;
}

double ss_cost_ring_chain(int steps, int window, int period, const double* t0, const double* x, const double* a,
                          double lat, double lat_out, double call, double* scratch)
{
  const int w = window < 1 ? 1 : window > SS_NCCL_STEPS ? SS_NCCL_STEPS : window;
  double *prev = scratch, *cur = scratch + period, *began = scratch + 2 * (size_t)period,
         *landed = scratch + 3 * (size_t)period;
  if (steps <= 0 || period <= 0)
    return 0;
  for (int k = 0; k < steps; k++) {
    for (int q = 0; q < period; q++) {
      /* When rank q sends step k: its chunk of step k-1 arrived from q-1 (step 0: its own data),
       * the step's latency passed, and its send of step k-w landed (landed[k % w], read before the
       * same place takes step k). */
      double l = q == period - 1 ? lat_out : lat;
      double start = k == 0 ? (t0 ? t0[q] : 0) + call + l : fmax(prev[(q + period - 1) % period] + l, began[q] + lat);
      began[q] = start;
      double* slot = &landed[(size_t)(k % w) * (size_t)period + (size_t)q];
      if (k >= w && *slot > start)
        start = *slot;
      /* The chunk moves after the hop's latency, behind the chunks before it on the hop. */
      double go = start + a[q];
      if (k > 0 && prev[q] > go)
        go = prev[q];
      cur[q] = go + x[q];
      *slot = cur[q];
    }
    double* t = prev;
    prev = cur;
    cur = t;
  }
  /* Every rank has then sent its last chunk and received its last (its predecessor's). */
  double end = 0;
  for (int q = 0; q < period; q++)
    end = fmax(end, prev[q]);
  return end;
}
