/* net: the transports NCCL uses over the NIC between instances (TCP sockets, InfiniBand verbs, AWS EFA
 * through aws-ofi-nccl) and the figures each one gets out of a NIC: a fraction of its line rate and a
 * cost per message (docs/model.md, "Network transports"). */
#ifndef SS_NET_H
#define SS_NET_H

/* AUTO: the instance file's transport (zone property net_transport); OFF: no transport model, the NIC
 * links at their line rate and latency (what --ideal uses). */
typedef enum ss_net_transport {
  SS_NET_AUTO,
  SS_NET_OFF,
  SS_NET_SOCKET,
  SS_NET_IB,
  SS_NET_EFA,
  SS_NET_COUNT
} ss_net_transport;

/* Names by value ("auto", "off", "socket", "ib", "efa"), NULL-terminated: the option's values. */
extern const char* const ss_net_names[];

/* Largest per-message cost accepted (us), from a file or anywhere: 10 ms, far above any transport. */
#define SS_NET_MAX_MESSAGE_US 10000.0

/* What a transport gets out of a NIC: the share of the line rate a long transfer reaches (0, 1], and
 * the host time each message that crosses instances costs, in microseconds. */
typedef struct ss_net_figures {
  double line_fraction;
  double message_us;
  double tree_fraction;      /* the share a tree's bytes reach (NCCL's tree and NVLS tree at two instances,
                              * where each instance sends and receives the payload once); 0: line_fraction */
  double ll128_share;        /* LL128's payload share between instances over its share inside one (the
                              * protocol's 0.92, proto.c): its bytes there reach this much less; 0: 1 */
  double nvls_tree_fraction; /* the share the NVLS tree's bytes reach across 3 instances or more (the
                              * tree on Simple with NVLS inside each instance); 0: tree_fraction */
} ss_net_figures;

/* The default figures of transport t (the table in net.c, with its sources); OFF and AUTO: {1, 0}. */
ss_net_figures ss_net_default(ss_net_transport t);

/* EFA's generations (zone prop efa_version of an instance file: 1 p4d, 2 p5, 3 p5en, 4 p6-b200). */
#define SS_NET_EFA_VERSIONS 4

/* The figures of EFA of version v (1 to SS_NET_EFA_VERSIONS) under today's stack (NCCL 2.18 and later
 * with aws-ofi-nccl 1.7 and later: GPUDirect RDMA, the RDMA protocol over several rails), calibrated
 * per version on public nccl-tests figures that no validation row holds (net.c). Older stacks, and an
 * instance that names no version, keep ss_net_default(SS_NET_EFA). */
ss_net_figures ss_net_efa(int v);

/* AWS's cap on one TCP flow (a 5-tuple) between two instances, in Gb/s (Amazon EC2 User Guide, "Amazon
 * EC2 instance network bandwidth"; ../shared/data/aws_network_limits.md): up to 10 inside one cluster
 * placement group, 5 otherwise (ENA Express, 25, is not modelled). EFA's SRD traffic is no TCP flow
 * and has no such cap. By --placement-group on (the default: AWS's advice for tightly coupled jobs)
 * or off. */
#define SS_NET_FLOW_GBPS_IN_GROUP 10.0
#define SS_NET_FLOW_GBPS_OUTSIDE 5.0

/* --placement-group's values ("on", "off"), NULL-terminated; on is 0, the default. */
extern const char* const ss_net_group_names[];

/* TCP flows of one parameter-server connection: gRPC runs a channel over one HTTP/2 connection,
 * ps-lite (ZeroMQ) one TCP connection per pair of nodes. */
#define SS_NET_PS_SOCKETS 1

/* The kernel's work for the socket transport's bytes, in reference-core seconds per GB: ESTIMATES
 * (calibration/socket_cpu.md has the reasoning). Receiving, the copy from kernel to user memory
 * dominates: one core receives about 40 Gb/s with every offload, jumbo frames and aRFS (Cai et al.,
 * "Understanding Host Network Stack Overheads", SIGCOMM 2021: 0.2 s/GB); on a virtual NIC without
 * aRFS 1.5 times that. Sending costs about half (the copy from user memory, with TSO). */
#define SS_NET_SOCKET_RECV_CPU_S_PER_GB 0.3
#define SS_NET_SOCKET_SEND_SHARE 0.5
/* Largest --socket-cpu-s-per-gb: 100 s/GB (80 Mb/s per core), far below any kernel stack. */
#define SS_NET_SOCKET_MAX_CPU_S_PER_GB 100.0

/* The transport an instance file may name (socket, ib or efa), or -1 for any other name. */
int ss_net_file_transport(const char* name);

#endif
