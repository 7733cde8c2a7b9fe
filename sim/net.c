/* net: the default figures of NCCL's network transports, each with its source. */
#include "net.h"

#include <string.h>

#define EFA_V1 0.9166
#define EFA_V2 0.8934
#define EFA_V3 0.9230
#define EFA_V4 0.9548
#define LL128_EFA 0.8572
#define NVLS_TREE_EFA 0.8182

const char* const ss_net_names[] = {"auto", "off", "socket", "ib", "efa", NULL};
const char* const ss_net_group_names[] = {"on", "off", NULL};

/* line_fraction: busbw of a network-bound ring allreduce (nccl-tests all_reduce_perf at large sizes,
 * where busbw is what each NIC carries) over the NIC's line rate. message_us: the host time of one
 * message (a ring or tree step) that crosses instances, on top of the links' latency. The sources
 * are nccl-tests microbenchmarks; none of them is a validation row (calibration/validation_sources.md).
 *
 * socket: 0.54 MEASURED, the median of three NCCL-over-TCP busbw figures with several GPUs per node on
 *   25-32 Gb/s cloud networks: 14.5-14.9 Gbit/s of 32 (0.46; GCP, 2 nodes x 8 GPUs, NCCL 2.4.7ms0,
 *   NVIDIA/nccl#209, cswinter 2019-06-04), 1.7 GB/s of 25 Gb/s (0.54; Azure, 2 x 4 GPUs, NCCL 2.9.6,
 *   NVIDIA/nccl-tests#83), 22.2-22.9 of 32 (0.70; GCP, 4 x 8). One GPU per node reaches 0.96 (same
 *   table) and 100 Gb/s TCP stays at 0.32-0.48 (4-6 GB/s, 4 x 8 V100, NVIDIA/nccl#450); the AWS
 *   instances that run sockets have 25 Gb/s or less. message_us 20 is an ESTIMATE: an 8-byte ring
 *   broadcast between two nodes over TCP with the Simple protocol took 38-46 us (NCCL 2.9.6, Azure,
 *   NVIDIA/nccl-tests#82), where NCCL's latency model, tuned on InfiniBand, gives the same call 18 us
 *   (src/graph/tuning.cc: ring Simple base 8.4 + network step 9.6 us); the kernel's TCP stack and the
 *   socket threads' wake-ups cost the other 20-28 us (the lower end is kept: part of it is the cloud
 *   network's longer wire, which the instance file's NIC latency already holds).
 * ib: 0.96 MEASURED and stated by NCCL's maintainers: "24GB/s is the peak performance per 200G NIC
 *   (12 GB/s for 100G NICs)" (NVIDIA/nccl-tests#119), 192 GB/s busbw with 8 x 200 Gb/s IB on a
 *   DGX-A100 (NVIDIA/nccl#812), 48-49 GB/s per 400 Gb/s NDR NIC (NVIDIA/nccl-tests#267). message_us 0:
 *   NCCL's latency model is tuned on InfiniBand (src/graph/tuning.cc, NCCL 2.8-2.10: a ring step with
 *   the Simple protocol costs 9.6 us over the network where it costs 5.7 us over PCIe), and proto.c
 *   already charges that model's network step latency on every step that crosses instances.
 * efa: 0.60 MEASURED: ring busbw 60 Gb/s on 100 Gb/s EFA between two p3dn.24xlarge with the
 *   aws-ofi-nccl plugin (NCCL_TREE_THRESHOLD=0; NVIDIA/nccl-tests#22, 2019); no later EFA ring figure
 *   that is not a validation row was found, so GPUDirect RDMA instances (p4d, p5) get the same
 *   fraction (an ESTIMATE for them). message_us 3.9 is an ESTIMATE: EFA's reliable datagrams (SRD) go
 *   through libfabric's provider and the aws-ofi-nccl plugin on the host, so a message costs more host
 *   time than over IB verbs, which NCCL's model (proto.c) covers; the extra is taken as much again as
 *   the model's network step costs over a PCIe one (9.6 - 5.7 us). */
static const ss_net_figures defaults[SS_NET_COUNT] = {
    [SS_NET_AUTO] = {1, 0, 0},  [SS_NET_OFF] = {1, 0, 0},      [SS_NET_SOCKET] = {0.54, 20, 0},
    [SS_NET_IB] = {0.96, 0, 0}, [SS_NET_EFA] = {0.60, 3.9, 0},
};

ss_net_figures ss_net_default(ss_net_transport t)
{
  return t >= 0 && t < SS_NET_COUNT ? defaults[t] : defaults[SS_NET_OFF];
}

/* EFA under today's stack, by version (calibration/efa_microbenchmarks_2026.csv; none of its rows is a
 * validation row; calibration/efa_mechanisms_2026.md, section 3). line_fraction is CALIBRATED: set so
 * that stash-sim bench allreduce with the ring prints the busbw of a network-bound ring allreduce
 * measured with nccl-tests (NCCL_ALGO ring, or aws-ofi-nccl's tuner choosing Ring/Simple), at the
 * fewest instances and the largest size measured, where the fewest steps add their latency
 * (scripts/efa-calibration reruns each; the figure over the NICs' line rate in parentheses):
 * v1 (p4d, p4de): 45.73 GB/s busbw on 2 x p4d at 1 GiB, NCCL 2.19.4 + aws-ofi-nccl 1.7.4, ring forced
 *   (EFA26-PC-P4D-2N-1G-NCCL2194; 0.915 of 50 GB/s).
 * v2 (p5, p5e): 356.99 GB/s on 4 x p5 at 8 GiB, NCCL 2.27.7, the plugin's Ring/Simple
 *   (EFA26-CG-AR-4N-8192M; 0.892 of 400; 8 and 16 instances measured 355.4 and 356.3).
 * v3 (p5en): 369.06 GB/s on 4 x p5en at 16 GiB (EFA26-ST-P5EN-4N-16G; 0.923; 16 instances 369.9).
 * v4 (p6-b200): 381.80 GB/s on 4 x p6-b200 at 16 GiB (EFA26-ST-B200-4N-16GiB; 0.955).
 * message_us as the default's (an ESTIMATE).
 * tree_fraction: the algbw of a 2-instance allreduce that NCCL runs as a tree or NVLS tree (its own
 * choice, no NCCL_ALGO) over the instance's NIC line rate, MEASURED: at two instances each sends and
 * receives the payload once, so algbw is the rate its bytes reach on the wire (calibration/
 * efa_mechanisms_2026.md, section 1): v2 254.78 / 400 = 0.637 (2 x p5, 8 GiB, NCCL 2.27.7,
 * EFA26-CG-AR-2N-8192M); v3 259.63 / 400 = 0.649 (2 x p5en, 16 GiB, EFA26-ST-P5EN-2N-16G); v4 336.62 /
 * 400 = 0.842 (2 x p6-b200, 1 GiB, EFA26-PC-P6B200-2N-1G). v1: no such figure outside the validation
 * rows; v2's, an ESTIMATE.
 * ll128_share: a network-bound ring on LL128 between instances over the same ring at LL128's share of
 * the bytes inside one (0.92: proto.c), CALIBRATED on the busbw aws-ofi-nccl's tuner gets from
 * Ring/LL128 on 4 x p5 at 1 GiB, 280.30 GB/s (NCCL 2.27.7, EFA26-CG-AR-4N-1024M; the ring on Simple
 * reaches 356.99 at 8 GiB: LL128 0.785 of it). Predicted with it, not fitted: the other Ring/LL128 rows
 * of 4 to 32 x p5 (512 MiB to 2 GiB, 269.23 to 280.30 measured; scripts/efa-calibration). v1, v3 and v4
 * take v2's (an ESTIMATE: the LL128 rows of p6-b200, EFA26-ST-B200-4N-128MiB to 512MiB, come from a
 * torch benchmark of an unstated plugin release, whose tuner may have run NVLS tree or Simple there).
 * nvls_tree_fraction: the NVLS tree's share of the line across 3 instances or more, where NCCL's NVLS
 * tree sends the payload twice from each instance (its model halves the bandwidth), CALIBRATED on the
 * busbw aws-ofi-nccl's tuner gets from NVLSTree on 16 x p5 at 4 GiB, 306.15 GB/s (NCCL 2.27.7,
 * EFA26-CG-AR-16N-4096M; 239.60 at tree_fraction). Predicted with it: 32 x p5 at 4 and 8 GiB (302.81
 * and 321.10 measured) and 4 x p5en at 4 GiB with NVLSTree forced (310.07, EFA26-ST-P5EN-4N-4G-NVLSTREE,
 * v3). At two instances its bytes reach tree_fraction only (the measured 2-node runs above). v1, v3 and
 * v4 take v2's (an ESTIMATE). */
static const ss_net_figures efa_today[SS_NET_EFA_VERSIONS + 1] = {
    [1] = {EFA_V1, 3.9, 0.637, LL128_EFA, NVLS_TREE_EFA},
    [2] = {EFA_V2, 3.9, 0.637, LL128_EFA, NVLS_TREE_EFA},
    [3] = {EFA_V3, 3.9, 0.649, LL128_EFA, NVLS_TREE_EFA},
    [4] = {EFA_V4, 3.9, 0.842, LL128_EFA, NVLS_TREE_EFA},
};

ss_net_figures ss_net_efa(int v)
{
  return v >= 1 && v <= SS_NET_EFA_VERSIONS ? efa_today[v] : defaults[SS_NET_EFA];
}

int ss_net_file_transport(const char* name)
{
  for (int t = SS_NET_SOCKET; t < SS_NET_COUNT; t++)
    if (strcmp(name, ss_net_names[t]) == 0)
      return t;
  return -1;
}
