/* ofitune: the aws-ofi-nccl plugin's region tuner, which picks NCCL's algorithm and protocol for a
 * collective on p5, p5e, p5en and p6-b200 at 3 instances or more (docs/model.md, "NCCL chooses"; the
 * tables and their sources are in ofitune.c). Pure: no job, no platform. */
#ifndef SS_OFITUNE_H
#define SS_OFITUNE_H

#include "collective.h"
#include "proto.h"

/* The plugin's platforms: the instance types it has region tables for (by its own detection of the
 * instance type); NONE elsewhere (p4d, p4de, p3dn, ...), where NCCL's own model decides. */
typedef enum ss_ofi_platform { SS_OFI_NONE, SS_OFI_P5, SS_OFI_P5EN, SS_OFI_P6, SS_OFI_COUNT } ss_ofi_platform;

/* The platform of an instance type (EC2's name, e.g. "p5en.48xlarge"; NULL gives NONE). */
ss_ofi_platform ss_ofitune_platform(const char* instance_type);

/* The algorithms the regions name: NCCL's ring, its tree and its NVLS tree (NVLink SHARP inside each
 * instance, a tree across them). */
typedef enum ss_ofi_algo { SS_OFI_RING, SS_OFI_TREE, SS_OFI_NVLS_TREE, SS_OFI_ALGO_COUNT } ss_ofi_algo;

/* The bit of allowed (below) that stands for algorithm a on protocol p (LL, LL128 or Simple). */
#define SS_OFI_ALLOW(a, p) (1u << ((a)*3 + ((p)-SS_PROTO_LL)))

/* The region tuner's choice for op on bytes (NCCL's nBytes: the whole buffer of an all-gather or a
 * reduce-scatter) among ranks GPUs on nodes instances of platform plat: 1 with *algo and *proto where a
 * region holds the point (its edge included; the first region in the plugin's order wins) and its
 * pair is in allowed (what NCCL enables: a region whose pair it does not is passed over); 0 where the
 * plugin leaves the choice to NCCL: 2 instances or fewer, a platform or a number of GPUs per instance
 * it has no table for (it has them for 8), a point in no region. */
int ss_ofitune_choose(ss_ofi_platform plat, ss_coll_op op, double bytes, int ranks, int nodes, unsigned allowed,
                      ss_ofi_algo* algo, ss_proto* proto);

#endif
