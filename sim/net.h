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
} ss_net_figures;

/* The default figures of transport t (the table in net.c, with its sources); OFF and AUTO: {1, 0}. */
ss_net_figures ss_net_default(ss_net_transport t);

/* The transport an instance file may name (socket, ib or efa), or -1 for any other name. */
int ss_net_file_transport(const char* name);

#endif
