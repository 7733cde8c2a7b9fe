/* cost: alpha-beta figures of a job's collectives, from its platform alone. */
#include "cost.h"

#include "cluster.h"

#include <math.h>

/* Latency of the hop from rank a to rank b (local GPU indices and instances from the rank). */
static double hop_latency(const ss_job* j, int a, int b)
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
      alpha = fmax(alpha, hop_latency(j, o[i], o[(i + 1) % j->ngpus]));
    }
  return alpha;
}

double ss_cost_alpha_intra(const ss_job* j)
{
  int g = j->gpus_per_instance;
  double alpha = 0;
  for (int c = 0; c < j->intra.nrings && g > 1; c++)
    for (int i = 0; i < g; i++)
      alpha = fmax(alpha, ss_cluster_route_latency(j, j->intra.rings[c].order[i], j->intra.rings[c].order[(i + 1) % g]));
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
    bw += j->intra.rings[c].bandwidth_bps;
  return bw;
}

/* Bandwidth of one GPU's flow to the same GPU of another instance when all g GPUs send at once. */
static double cross_bandwidth(const ss_job* j)
{
  double bw = ss_cluster_nic_bandwidth(j) / j->gpus_per_instance;
  for (int k = 0; k < j->gpus_per_instance; k++)
    bw = fmin(bw, ss_cluster_cross_bandwidth(j, k, k));
  return bw;
}

int ss_cost_tree_chunks(double half_shard_bytes)
{
  double k = ceil(half_shard_bytes / SS_TREE_CHUNK_BYTES);
  return k < 1 ? 1 : k > SS_TREE_MAX_CHUNKS ? SS_TREE_MAX_CHUNKS : (int)k;
}

double ss_cost_tree_bandwidth(const ss_job* j)
{
  double bw = ss_cluster_nic_bandwidth(j) / (2.0 * j->gpus_per_instance);
  for (int k = 0; k < j->gpus_per_instance; k++)
    bw = fmin(bw, ss_cluster_cross_bandwidth(j, k, k) / 2);
  return bw;
}

/* Reduce-scatter inside the instance, a pipelined reduce then broadcast of each half of the shard
 * over the two trees across instances, allgather inside. */
static double cost_tree(const ss_job* j, double bytes)
{
  int g = j->gpus_per_instance, m = j->instances;
  double t = 0;
  if (g > 1)
    t += 2.0 * (g - 1) * (ss_cost_alpha_intra(j) + bytes / g / intra_bandwidth(j));
  if (m > 1) {
    double half = bytes / g / 2;
    int k = ss_cost_tree_chunks(half);
    t += 2.0 * (ss_topo_btree_depth(m) + k - 1) * (ss_cost_alpha_cross(j) + half / k / ss_cost_tree_bandwidth(j));
  }
  return t;
}

static double cost_ring(const ss_job* j, double bytes)
{
  int n = j->ngpus;
  double bw = j->gpus_per_instance > 1 ? intra_bandwidth(j) : 1e300;
  if (j->instances > 1)
    bw = fmin(bw, ss_cluster_nic_bandwidth(j));
  return 2.0 * (n - 1) * (ss_cost_alpha_global(j) + bytes / n / bw);
}

static double cost_hierarchical(const ss_job* j, double bytes)
{
  int g = j->gpus_per_instance, m = j->instances;
  double t = 0;
  if (g > 1)
    t += 2.0 * (g - 1) * (ss_cost_alpha_intra(j) + bytes / g / intra_bandwidth(j));
  if (m > 1)
    t += 2.0 * (m - 1) * (ss_cost_alpha_cross(j) + bytes / g / m / cross_bandwidth(j));
  return t;
}

double ss_cost_allreduce(const ss_job* j, ss_allreduce alg, double bytes)
{
  if (j->ngpus < 2)
    return 0;
  switch (alg) {
    case SS_ALLREDUCE_RING: return cost_ring(j, bytes);
    case SS_ALLREDUCE_HIERARCHICAL: return cost_hierarchical(j, bytes);
    case SS_ALLREDUCE_TREE: return cost_tree(j, bytes);
    default: break;
  }
  ss_assert(!"an allreduce algorithm without a cost model");
  return 0;
}

ss_allreduce ss_cost_choose(const ss_job* j, double bytes)
{
  if (j->instances == 1)
    return SS_ALLREDUCE_RING;
  ss_allreduce best = SS_ALLREDUCE_RING;
  for (int a = SS_ALLREDUCE_RING; a < SS_ALLREDUCE_COUNT; a++)
    if (ss_cost_allreduce(j, (ss_allreduce)a, bytes) < ss_cost_allreduce(j, best, bytes))
      best = (ss_allreduce)a;
  return best;
}
