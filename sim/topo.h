/* topo: build collective rings over a platform's links (pure graph work, no SimGrid). */
#ifndef SS_TOPO_H
#define SS_TOPO_H

#include "platform.h"

#define SS_TOPO_MAX_CHANNELS 16
#define SS_TOPO_MAX_SEARCH 9 /* exhaustive ring search up to this many GPUs; identity order beyond */

/* One ring: order[i] is the GPU (host index) at position i; share is this ring's fraction of the
 * bytes of every collective; bandwidth_bytes_per_s its bottleneck when the rings run together. */
typedef struct ss_ring {
  int* order;
  double share;
  double bandwidth_bytes_per_s;
} ss_ring;

typedef struct ss_rings {
  int nranks;
  int nrings;
  ss_ring rings[SS_TOPO_MAX_CHANNELS];
} ss_rings;

/* Build the rings among the GPUs gpus[0..n-1] of p, as NCCL does: repeatedly pick the cyclic order
 * with the largest bottleneck bandwidth left on the links it uses (each direction of a SPLITDUPLEX
 * link counted apart), keep only rings whose hops use the same link classes as the first one, and
 * split the bytes in proportion to the bandwidth of each ring. Returns 0, or SS_ENOMEM. */
int ss_topo_rings(const ss_platform* p, const int* gpus, int n, ss_rings* out);

void ss_topo_rings_free(ss_rings* r);

/* ss_topo_rings over GPUs 0..n-1 of p (an instance's first n), found once per p and n and kept in
 * p's memo, a copy of them into out (freed with ss_topo_rings_free). Returns 0, or SS_ENOMEM. */
int ss_topo_instance_rings(const ss_platform* p, int n, ss_rings* out);

/* Double binary tree over nodes 0..n-1, as NCCL's tree allreduce: tree 0 is the binary heap
 * (parent (i-1)/2, children 2i+1 and 2i+2), tree 1 the same heap over the mirrored numbering
 * n-1-i, so that for n = 2^k - 1 the inner nodes of one tree are the leaves of the other and no
 * node has more than two transfers each way. Sets node i's parent (-1 for the root), children
 * (-1 when absent) and its slot (0 or 1) among its parent's children. */
void ss_topo_btree(int n, int tree, int i, int* parent, int child[2], int* slot);

/* Hops from the deepest leaf to the root of those trees: floor(log2 n). */
int ss_topo_btree_depth(int n);

#endif
