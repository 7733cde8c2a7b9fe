/* a2a: the all-to-all of expert-parallel groups (a mixture of experts' token dispatch and combine)
 * in closed form, from the loads its transfers put on the links of their routes (no SimGrid): every
 * GPU of a group sends each member (itself included) 1/n of its buffer at once, as NCCL's grouped
 * sends and receives do; every GPU of every instance is in such a group at the same time. The time
 * is the busiest link's (its bytes over its bandwidth), at least each transfer's over its route
 * alone, after the call's and the routes' latency: what SimGrid's sharing of the same flows gives
 * where one link bounds them all (docs/model.md, "Mixtures of experts"). */
#ifndef SS_A2A_H
#define SS_A2A_H

#include "job.h"
#include "proto.h"

/* A group's shape: per members in each of m instances, at local GPUs base + k stride (k < per), base
 * the GPU's index modulo stride within its block of per x stride GPUs (Megatron's expert groups, the
 * tensor ranks between them). */
typedef struct ss_a2a_shape {
  int per;
  int stride;
  int m;
} ss_a2a_shape;

/* The parts of an all-to-all's time. */
typedef struct ss_a2a_time {
  double total_s;   /* latency_s + the busiest link's time */
  double latency_s; /* the call's, the protocol's step and the longest route's */
  double intra_s;   /* the busiest link inside the instance (NVLink, NVSwitch, PCIe), its bytes over its rate */
  double cross_s;   /* the busiest link of the way between instances (the NIC, its PCIe switch, the core) */
  int cross;        /* the group spans instances */
} ss_a2a_time;

/* The protocol of an all-to-all of bytes per GPU and its cost: --protocol, else Simple (NCCL's
 * point-to-point operations run it on large buffers; LL only below its P2P LL threshold, 16 KiB a
 * peer: not modelled); no cost without the per-call cost (--no-call-cost, --ideal) or with DeepEP's
 * kernels (--moe-dispatcher deepep: no NCCL call, step or protocol). */
void ss_a2a_protocol(const ss_job* j, double bytes, ss_proto_cost* pc);

/* DeepEP's share of an NVLink or NVSwitch link's one-way rate in its normal (throughput) kernels:
 * 153 GB/s dispatch and 158 GB/s combine of H800's 160 GB/s measured one-way NVLink (DeepEP's README
 * at deepseek-ai/DeepEP@0297fc80, intranode EP8; DeepSeek-V3's report, section 3.2.2): 155 / 160.
 * Across instances it is taken at the NIC's line rate (its README's 43 to 58 GB/s "RDMA bottleneck
 * bandwidth" on 50 GB/s CX7 InfiniBand, a convention that can exceed the line: ESTIMATE, capped at
 * the line). Calibration only: no training run is predicted from these (calibration/
 * validation_moe_sources.md). */
#define SS_DEEPEP_NVLINK_FRACTION (155.0 / 160.0)

/* The all-to-all of bytes per GPU (its whole send buffer) among groups of shape sh on j's instances
 * (j->gpus_per_instance GPUs each, every one in a group), by j's --moe-dispatcher: NCCL's (its
 * protocol's latency and efficiency, the links at the transport's rate) or DeepEP's (the routes'
 * latency only, NVLink at SS_DEEPEP_NVLINK_FRACTION, the NIC at its line rate). */
void ss_a2a_time_of(const ss_job* j, const ss_a2a_shape* sh, double bytes, ss_a2a_time* out);

#endif
