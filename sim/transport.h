/* transport: how NCCL moves data between two GPUs of an instance (pure graph work, no SimGrid): the
 * path type it derives from the topology the machine shows it, whether it uses peer-to-peer (P2P)
 * for the pair or stages the data through host memory (SHM), and the routes of SHM pairs through
 * the host-memory stage (docs/model.md, "NCCL's transports"). */
#ifndef SS_TRANSPORT_H
#define SS_TRANSPORT_H

#include "option.h"
#include "platform.h"

/* NCCL's path types between two GPUs, closest first (NCCL src/graph/topo.h, PATH_LOC .. PATH_SYS):
 * the same GPU, NVLink, one PCIe switch, several PCIe switches, through a CPU's root complex,
 * across the inter-socket link. */
typedef enum ss_path {
  SS_PATH_LOC,
  SS_PATH_NVL,
  SS_PATH_PIX,
  SS_PATH_PXB,
  SS_PATH_PHB,
  SS_PATH_SYS,
  SS_PATH_COUNT
} ss_path;

/* CUDA lets a GPU open peer access to at most this many other GPUs (CUDA_ERROR_TOO_MANY_PEERS:
 * tensorflow/tensorflow#5789 on a p2.16xlarge, ../shared/data/nccl_transports.md). */
#define SS_TRANSPORT_MAX_PEERS 8

/* The host-memory stage of an SHM hop when the cpu host gives none (its properties
 * shm_gbytes_per_s, shm_latency_us): MEASURED allreduce busbw over SHM, 2 GPUs on PCIe Gen3 x16, one
 * channel, NCCL 2.4.8 (NVIDIA/nccl#384); the latency is an ESTIMATE (scripts/gen_platforms.py,
 * SHM_LAT_SRC). */
#define SS_SHM_GBYTES_PER_S 3.9
#define SS_SHM_LATENCY_US 2.0

/* "NVL", "PIX", ... as NCCL_P2P_LEVEL and NCCL's logs spell them. */
const char* ss_path_name(ss_path t);

/* The path type NCCL derives between GPUs a and b of p from what the machine shows it: NVL when the
 * route uses NVLink or NVSwitch links only; with the platform's pci_view "flat" (a virtual machine
 * that puts every GPU on its root bus) PHB for every other pair; else from the PCIe route: SYS when it
 * crosses a socket link, PHB when it goes up to a CPU's root complex, PIX through one switch, PXB
 * through several. */
ss_path ss_transport_path(const ss_platform* p, int a, int b);

/* The deepest path type NCCL uses P2P over: --p2p-level (opt_level > 0: SS_PATH_LOC + opt_level - 1,
 * NCCL_P2P_LEVEL), else NCCL's rule for the CPU: PXB on Intel and ARM hosts, SYS elsewhere. */
ss_path ss_transport_p2p_level(const ss_platform* p, int opt_level);

/* Apply NCCL's transports to p (after --no-nvlink): every GPU pair that does not use P2P (by the rule
 * above, or because one of them already has SS_TRANSPORT_MAX_PEERS peers: pairs are given peers
 * closest path type first, then by index) is rerouted through host memory: up the sender's PCIe
 * path to its CPU, the receiver's host-memory stage (a link "shm_gpuJ" of class shm per receiving
 * GPU J, SHARED, with the cpu host's SHM bandwidth and latency), the socket link if the two GPUs are
 * on different sockets, down the receiver's PCIe path. Returns 0, or SS_ENOMEM (p then unchanged in
 * its routes, possibly with the stage links added). */
int ss_transport_apply(ss_platform* p, int opt_level);

/* The instance as the job's options make it: --no-nvlink's routes, then NCCL's transports unless
 * --ideal or --no-shm. Returns 0 or SS_ENOMEM. */
int ss_transport_prepare(ss_platform* p, const ss_options* o);

/* Whether the route from GPU a to GPU b goes through host memory (crosses a class-shm link). */
int ss_transport_is_shm(const ss_platform* p, int a, int b);

/* What a hop of a ring uses, for --verbose: "P2P/NVLink", "P2P/PCIe", "SHM" (by its links). */
const char* ss_transport_hop_name(const ss_platform* p, int a, int b);

#endif
