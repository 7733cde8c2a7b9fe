/* proto: NCCL's protocols (LL, LL128, Simple), one row of facts each, and the per-call cost of an
 * allreduce, as NCCL's tuner models them (src/graph/tuning.cc of NCCL v2.10.3-1): a latency per
 * call, a latency per step by the hardware the step crosses, the fraction of the bytes on the wire
 * that is payload, and when NCCL enables each protocol. Pure: no SimGrid, no job, no platform;
 * cost.c describes an allreduce to it and applies what it returns. */
#ifndef SS_PROTO_H
#define SS_PROTO_H

/* NCCL's protocols; AUTO picks one per collective as NCCL's tuner does (NCCL_PROTO unset). A new
 * protocol is a value here, a name in ss_proto_names and a row of the table in proto.c. */
typedef enum ss_proto { SS_PROTO_AUTO, SS_PROTO_LL, SS_PROTO_LL128, SS_PROTO_SIMPLE, SS_PROTO_COUNT } ss_proto;

/* The hardware class of a path, as tuning.cc's hwLat rows: NVLink, PCIe, network (cost.c maps the
 * platform's link classes to them). */
typedef enum ss_hw { SS_HW_NVLINK, SS_HW_PCI, SS_HW_NET, SS_HW_COUNT } ss_hw;

/* One protocol's facts (tuning.cc's, with their sources in proto.c). Latencies are by algorithm:
 * [0] NCCL's ring (the simulator's ring and hierarchical), [1] its tree. */
typedef struct ss_protocol {
  const char* name;               /* NCCL's name, as reports print it: "LL", "LL128", "Simple" */
  double call_us[2];              /* baseLat: the latency of a call (us) */
  double step_us[SS_HW_COUNT][2]; /* hwLat: the latency of a step (us) by the class it crosses */
  double multinode_step;          /* factor on the steps within an instance when there are several
                                   * (LL 1.8; 1: none) */
  double fraction;                /* the payload's share of the bus bandwidth (LL 1/4, LL128 0.92, Simple 1) */
  double fraction_one_gpu;        /* the same with fewer than 2 GPUs per instance (LL128 0.7) */
  double max_gbytes_per_s[2][3];  /* llMaxBw: the payload's cap (GB/s) [one instance of A100s or not]
                                   * [1, 2, more instances]; 0: none */
  int one_nvlink_node;            /* NCCL enables it by default only on one instance whose rings are
                                   * all NVLink (LL128) ... */
  int archs[2];                   /* ... and on GPUs all of one of these architectures (ss_proto_arch;
                                   * {0}: any) */
} ss_protocol;

/* The row of protocol p (asserted a protocol: not AUTO). */
const ss_protocol* ss_proto_of(ss_proto p);

/* --protocol's values by value ("auto", "ll", "ll128", "simple"), NULL-terminated. */
extern const char* const ss_proto_names[];

/* NCCL's name of p (its row's: "LL128"), "auto" for AUTO, "?" for a value out of range. */
const char* ss_proto_name(ss_proto p);

/* The slower of two classes (network over PCIe over NVLink): a path's class is its slowest link's. */
ss_hw ss_proto_hw_max(ss_hw a, ss_hw b);

/* The GPU architecture of a gpu_model name, as CUDA's compute capability x 10 (70: V100, 80: A100,
 * 75: T4 and RTX 2080 Ti), 0 for a name the table does not know. */
int ss_proto_arch(const char* gpu_model);

/* The share of its NVSwitch links' rate NVLink SHARP (NCCL's NVLS) reaches on GPUs of architecture
 * arch, 0 where there is no NVLS (before Hopper). */
double ss_proto_nvls_share(int arch);

/* The phases of the simulator's allreduces: a ring over all GPUs, the rings inside an instance
 * (hierarchical and tree), the ring of same-index GPUs across instances (hierarchical), the levels
 * of the trees across instances (tree: a step is one level up or down). */
typedef enum ss_proto_phase {
  SS_PHASE_GLOBAL,
  SS_PHASE_INTRA,
  SS_PHASE_CROSS,
  SS_PHASE_TREE,
  SS_PHASE_COUNT
} ss_proto_phase;

/* One allreduce as the tuner sees it. */
typedef struct ss_proto_shape {
  int tree;                               /* NCCL's tree algorithm latencies (the simulator's tree), else ring's */
  int nodes;                              /* instances */
  int ranks_per_node;                     /* GPUs of each instance */
  int arch;                               /* ss_proto_arch of the GPUs, 0 when unknown or not all alike */
  int steps[SS_PHASE_COUNT];              /* steps of each phase (0: the phase does not run) */
  ss_hw hw[SS_PHASE_COUNT];               /* the class of each phase's hops */
  double bus_bytes_per_s[SS_PHASE_COUNT]; /* each phase's bus bandwidth, all its rings together (NCCL's
                                     * nChannels x speed), as the tuner sees it (tuner.c); the
                                     * protocols' costs do not depend on it */
} ss_proto_shape;

/* What one protocol costs an allreduce of that shape. */
typedef struct ss_proto_cost {
  ss_proto proto;
  double call_s;                          /* once per call (tuning.cc's baseLat) */
  double step_s[SS_PHASE_COUNT];          /* on each step of each phase (hwLat of its class) */
  double eff[SS_PHASE_COUNT];             /* payload over bytes moved, whatever the bandwidth: a
                                           * phase moves bytes / eff */
  double cap_bytes_per_s[SS_PHASE_COUNT]; /* the payload's rate at most on each phase, its rings
                                           * together (bus bandwidth: llMaxBw, the A100's 235 GB/s x
                                           * eff); 0: none. A rate, never a share of the bytes: a
                                           * phase takes at least ss_proto_floor_s */
} ss_proto_cost;

/* The cost of no protocol: Simple at the links' rates and no latency (--no-call-cost, --ideal). */
void ss_proto_cost_none(ss_proto_cost* c);

/* Whether NCCL enables protocol p by default for the shape, by its row (LL128 only on one instance
 * whose rings are all NVLink, GPUs all of architecture 70 or all 80, as v2.10.3-1); 0 for AUTO. */
int ss_proto_enabled(ss_proto p, const ss_proto_shape* s);

/* The cost of protocol p (asserted not AUTO) for the shape, from its row. */
void ss_proto_cost_of(ss_proto p, const ss_proto_shape* s, ss_proto_cost* c);

/* The latency part of c on the shape: call_s plus every step's step_s (s). */
double ss_proto_latency_s(const ss_proto_shape* s, const ss_proto_cost* c);

/* The shortest time (s) that `steps` steps of phase k take at c's cap on it, each step moving
 * payload_bytes of data over the phase's rings together: steps x (step_s[k] + payload_bytes / cap),
 * the link-independent time of a protocol that moves no faster than its cap; 0 where the phase has
 * no cap. A phase lasts the longer of this and its links' time, so that faster links never make it
 * longer (issue 39). */
double ss_proto_floor_s(const ss_proto_cost* c, ss_proto_phase k, int steps, double payload_bytes);

#endif
