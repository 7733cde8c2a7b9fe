/* ofitune: the aws-ofi-nccl plugin's region tuner (its tables of v1.16.3, 8 GPUs per instance). */
#include "ofitune.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* Sources: github.com/aws/aws-ofi-nccl at tag v1.16.3, src/tuner/nccl_ofi_regions.cpp (the region
 * tables: region_init_internal_p5en :277-434, _p5_p5e :608-707, _p6 :909-1024; the lookup:
 * region_get_coll_info_internal_v3 :1328-1407), src/tuner/nccl_ofi_tuner.cpp :100-107 (the platforms by
 * instance type) and include/tuner/nccl_ofi_tuner_region.h :49-54 (the corner of the plane). The tuner
 * is in the net plugin and NCCL loads it by default from aws-ofi-nccl v1.16.0 with NCCL 2.21 or later
 * (calibration/efa_mechanisms_2026.md, section 4, has the derivation and the choices it gives).
 *
 * A region is a polygon in the plane of (bytes, ranks); a point on its edge is in it. The plugin has
 * tables for 8, 2 and 1 GPUs per instance; the instances the simulator knows have 8, and jobs of fewer
 * GPUs per instance leave the choice to NCCL here (an approximation for p5 at 2 or 1 per instance).
 * p5's tables are the same in v1.21.1; p5en's and p6's changed there (the choices of both releases are
 * in the calibration file): the simulator keeps v1.16.3's. On p6 the plugin also sets 16, 24 or 32
 * channels for Tree/LL128 between 4 and 32 MiB; the simulator keeps NCCL's channels. */

/* The corner of the plane the plugin extends its regions to: 100 GiB and 2^20 ranks. */
#define MAX_BYTES (100.0 * 1024 * 1024 * 1024)
#define MAX_RANKS (1024.0 * 1024)

/* A vertex: a point, or (ext) the farthest point towards the corner on the line from (x, y) through
 * (bx, by): where it meets the plane's right edge or its top, whichever comes first (the plugin's
 * extend_region). */
typedef struct vtx {
  double x, y;
  double bx, by;
  int ext;
} vtx;

#define P(x, y)                                                                                                        \
  {                                                                                                                    \
    (x), (y), 0, 0, 0                                                                                                  \
  }
#define EXT(ax, ay, bx, by)                                                                                            \
  {                                                                                                                    \
    (ax), (ay), (bx), (by), 1                                                                                          \
  }

enum { MAX_VTX = 17 };

typedef struct region {
  ss_ofi_algo algo;
  ss_proto proto;
  int n;
  vtx v[MAX_VTX];
} region;

typedef struct table {
  ss_ofi_platform plat;
  ss_coll_op op;
  int nregions;
  const region* regions;
} table;

/* p5 and p5e, allreduce (:617-706). */
static const region p5_allreduce[] = {
    {SS_OFI_TREE,
     SS_PROTO_LL128,
     12,
     {P(0, 16), P(31457280, 16), P(37748736, 32), P(117440512, 64), P(301989888, 128), P(301989888, 256),
      P(335544320, 512), P(536870912, 1024), P(402653184, 2048), P(402653184, 4096),
      EXT(402653184, 2048, 402653184, 4096), P(0, MAX_RANKS)}},
    {SS_OFI_NVLS_TREE, SS_PROTO_SIMPLE, 3, {P(31457281, 16), P(MAX_BYTES, 16), P(31457281, 16)}},
    {SS_OFI_RING,
     SS_PROTO_LL128,
     11,
     {P(31457280, 17), P(1073741824, 17), P(2147483648, 64), P(2147483648, 128), P(1342177280, 160), P(2147483648, 256),
      P(1074790400, 256), P(444596224, 160), P(301989888, 128), P(117440512, 64), P(37748736, 32)}},
    {SS_OFI_NVLS_TREE,
     SS_PROTO_SIMPLE,
     17,
     {P(2147483648, 128), P(6442450944, 128), P(8053063680, 160), P(9663676416, 192),
      EXT(8053063680, 160, 9663676416, 192), EXT(402653184, 2048, 402653184, 4096), P(402653184, 4096),
      P(402653184, 2048), P(536870912, 1024), P(335544320, 512), P(301989888, 256), P(310378496, 160),
      P(444596224, 160), P(1074790400, 256), P(2684354560, 256), P(2147483648, 224), P(1342177280, 160)}},
    {SS_OFI_RING,
     SS_PROTO_SIMPLE,
     7,
     {P(1073741824, 17), P(MAX_BYTES, 17) /* the extension's x at 17 ranks: the plane's right edge */,
      EXT(8053063680, 160, 9663676416, 192), P(9663676416, 192), P(8053063680, 160), P(2684354560, 64),
      P(1610612736, 32)}},
};

/* p5en, allreduce (:285-348). */
static const region p5en_allreduce[] = {
    {SS_OFI_TREE, SS_PROTO_LL, 4, {P(0, 16), P(262144, 16), P(262144, 1024), EXT(262144, 192, 262144, 1024)}},
    {SS_OFI_TREE,
     SS_PROTO_LL128,
     7,
     {EXT(262144, 192, 262144, 1024), P(262144, 1024), P(262144, 16), P(14680064, 16), P(150994944, 128),
      P(251658240, 1024), EXT(150994944, 128, 251658240, 1024)}},
    {SS_OFI_RING,
     SS_PROTO_LL128,
     5,
     {P(150994944, 128), P(14680064, 16), P(33554432, 16), P(536870912, 32), P(536870912, 128)}},
    {SS_OFI_NVLS_TREE,
     SS_PROTO_SIMPLE,
     8,
     {EXT(150994944, 128, 251658240, 1024), P(251658240, 1024), P(150994944, 128), P(536870912, 128), P(536870912, 32),
      P(6442450944, 256), P(17179869184, 768), EXT(6442450944, 256, 17179869184, 768)}},
    {SS_OFI_RING,
     SS_PROTO_SIMPLE,
     7,
     {EXT(6442450944, 256, 17179869184, 768), P(17179869184, 768), P(6442450944, 256), P(536870912, 32),
      P(33554432, 16), P(1073741824, 16), P(MAX_BYTES, 16)}},
};

/* p5en, all-gather and reduce-scatter alike (:349-433). */
static const region p5en_gather[] = {
    {SS_OFI_RING,
     SS_PROTO_LL,
     7,
     {P(0, 16), P(131072, 16), P(262144, 32), P(8388608, 256), P(33554432, 1024), EXT(8388608, 256, 33554432, 1024),
      P(0, MAX_RANKS)}},
    {SS_OFI_RING,
     SS_PROTO_LL128,
     10,
     {EXT(8388608, 256, 33554432, 1024), P(33554432, 1024), P(8388608, 256), P(262144, 32), P(131072, 16),
      P(268435456, 16), P(2147483648, 128), P(8589934592, 512), P(17179869184, 1024),
      EXT(8589934592, 512, 17179869184, 1024)}},
    {SS_OFI_RING,
     SS_PROTO_SIMPLE,
     6,
     {EXT(8589934592, 512, 17179869184, 1024), P(17179869184, 1024), P(8589934592, 512), P(268435456, 16),
      P(17179869184, 16), P(MAX_BYTES, 16)}},
};

/* p6-b200, allreduce (:943-1010). */
static const region p6_allreduce[] = {
    {SS_OFI_TREE, SS_PROTO_LL, 4, {P(0, 16), P(262144, 16), P(262144, 1024), P(262144, MAX_RANKS)}},
    {SS_OFI_TREE,
     SS_PROTO_LL128,
     11,
     {P(262144, MAX_RANKS), P(262144, 1024), P(262144, 16), P(55574528, 16), P(67108864, 32), P(465567744, 128),
      P(962592768, 256), P(1610612736, 512), P(2684354560, 1024), P(MAX_BYTES, 50944), P(MAX_BYTES, MAX_RANKS)}},
    {SS_OFI_RING,
     SS_PROTO_LL128,
     12,
     {P(55574528, 16), P(87031808, 16), P(562036736, 32), P(17179869184, 1024), P(MAX_BYTES, 6408.141),
      P(MAX_BYTES, 33962.667), P(3758096384, 1024), P(2147483648, 512), P(1610612736, 512), P(962592768, 256),
      P(465567744, 128), P(67108864, 32)}},
    {SS_OFI_NVLS_TREE,
     SS_PROTO_SIMPLE,
     6,
     {P(1610612736, 512), P(2147483648, 512), P(3758096384, 1024), P(MAX_BYTES, 33962.667), P(MAX_BYTES, 50944),
      P(2684354560, 1024)}},
    {SS_OFI_NVLS_TREE, SS_PROTO_SIMPLE, 4, {P(87031808, 16), P(MAX_BYTES, 16), P(MAX_BYTES, 16), P(87031808, 16)}},
    {SS_OFI_RING,
     SS_PROTO_SIMPLE,
     5,
     {P(562036736, 32), P(87031808, 16), P(MAX_BYTES, 16), P(MAX_BYTES, 6408.141), P(17179869184, 1024)}},
};

/* p6-b200, all-gather and reduce-scatter alike (:916-940). */
static const region p6_gather[] = {
    {SS_OFI_RING,
     SS_PROTO_LL,
     5,
     {P(0, 16), P(1048576, 16), P(106954752, 1024), P(MAX_BYTES, 1021978.297), P(0, 1048576)}},
    {SS_OFI_RING,
     SS_PROTO_LL128,
     6,
     {P(1048576, 16), P(268435456, 16), P(21474836480, 1024), P(MAX_BYTES, 5107.038), P(MAX_BYTES, 1021978.297),
      P(106954752, 1024)}},
    {SS_OFI_RING, SS_PROTO_SIMPLE, 3, {P(268435456, 16), P(MAX_BYTES, 16), P(MAX_BYTES, 5107.038)}},
};

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const table tables[] = {
    {SS_OFI_P5, SS_OP_ALLREDUCE, N(p5_allreduce), p5_allreduce},
    {SS_OFI_P5EN, SS_OP_ALLREDUCE, N(p5en_allreduce), p5en_allreduce},
    {SS_OFI_P5EN, SS_OP_ALL_GATHER, N(p5en_gather), p5en_gather},
    {SS_OFI_P5EN, SS_OP_REDUCE_SCATTER, N(p5en_gather), p5en_gather},
    {SS_OFI_P6, SS_OP_ALLREDUCE, N(p6_allreduce), p6_allreduce},
    {SS_OFI_P6, SS_OP_ALL_GATHER, N(p6_gather), p6_gather},
    {SS_OFI_P6, SS_OP_REDUCE_SCATTER, N(p6_gather), p6_gather},
};

ss_ofi_platform ss_ofitune_platform(const char* instance_type)
{
  static const struct {
    const char* type;
    ss_ofi_platform plat;
  } types[] = {{"p5.48xlarge", SS_OFI_P5},
               {"p5e.48xlarge", SS_OFI_P5},
               {"p5en.48xlarge", SS_OFI_P5EN},
               {"p6-b200.48xlarge", SS_OFI_P6}};
  for (size_t i = 0; instance_type && i < sizeof(types) / sizeof(types[0]); i++)
    if (strcmp(instance_type, types[i].type) == 0)
      return types[i].plat;
  return SS_OFI_NONE;
}

/* Vertex k of r as a point in the plane. */
static void vertex(const region* r, int k, double* x, double* y)
{
  const vtx* v = &r->v[k];
  *x = v->x;
  *y = v->y;
  if (!v->ext)
    return;
  if (v->x == v->bx) { /* upright: straight up to the top */
    *y = MAX_RANKS;
    return;
  }
  if (v->y == v->by) { /* level: straight right to the edge */
    *x = MAX_BYTES;
    return;
  }
  double m = (v->by - v->y) / (v->bx - v->x), c = v->by - m * v->bx, at_edge = m * MAX_BYTES + c;
  if (at_edge < MAX_RANKS) {
    *x = MAX_BYTES;
    *y = at_edge;
  } else {
    *x = (MAX_RANKS - c) / m;
    *y = MAX_RANKS;
  }
}

/* Whether (px, py) lies on the segment from (ax, ay) to (bx, by), to a relative 1e-12 of the segment's
 * length (the plugin's test is absolute, 1e-10, on coordinates that are exact for its sizes). */
static int on_segment(double px, double py, double ax, double ay, double bx, double by)
{
  double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
  if (len2 == 0)
    return px == ax && py == ay;
  double cross = dx * (py - ay) - dy * (px - ax), dot = dx * (px - ax) + dy * (py - ay);
  return fabs(cross) <= 1e-12 * len2 && dot >= -1e-12 * len2 && dot <= len2 * (1 + 1e-12);
}

/* Whether (px, py) is in region r or on its edge: even-odd crossings of a ray to the right. */
static int inside(const region* r, double px, double py)
{
  int in = 0;
  for (int i = 0, k = r->n - 1; i < r->n; k = i++) {
    double xi, yi, xk, yk;
    vertex(r, i, &xi, &yi);
    vertex(r, k, &xk, &yk);
    if (on_segment(px, py, xk, yk, xi, yi))
      return 1;
    if ((yi > py) != (yk > py) && px < (xk - xi) * (py - yi) / (yk - yi) + xi)
      in = !in;
  }
  return in;
}

int ss_ofitune_choose(ss_ofi_platform plat, ss_coll_op op, double bytes, int ranks, int nodes, unsigned allowed,
                      ss_ofi_algo* algo, ss_proto* proto)
{
  /* "Skip when two nodes or lesser because the regions are not well defined" (the plugin). */
  if (plat == SS_OFI_NONE || nodes <= 2 || ranks != 8 * nodes)
    return 0;
  for (int t = 0; t < N(tables); t++) {
    if (tables[t].plat != plat || tables[t].op != op)
      continue;
    for (int i = 0; i < tables[t].nregions; i++) {
      const region* r = &tables[t].regions[i];
      if (!(allowed & SS_OFI_ALLOW(r->algo, r->proto)) || !inside(r, bytes, ranks))
        continue;
      *algo = r->algo;
      *proto = r->proto;
      return 1;
    }
  }
  return 0;
}
