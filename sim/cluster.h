/* cluster: compose the SimGrid platform of a job: copies of one instance joined by a network switch. */
#ifndef SS_CLUSTER_H
#define SS_CLUSTER_H

#include "job.h"

#include <stdio.h>

/* Write the SimGrid platform (XML, DTD 4.1) of the job's cluster to f: one zone "iK" per instance
 * holding a copy of the instance file's hosts, links and routes under names "iK/<name>", a router
 * "iK/gw" reached from each GPU over the route to its NIC, and, for several instances, a zone "net"
 * with the switch, optionally behind a shared core link when the network is oversubscribed. The
 * output grows linearly with the number of instances. Returns 0, or SS_EIO if writing failed. */
int ss_cluster_write(const ss_job* j, FILE* f);

/* Whether the job's platform is composed of zones joined by a switch: several instances, or
 * dedicated parameter-server hosts (zones sK with host sK/cpu). */
int ss_cluster_networked(const ss_job* j);

/* Hosts of the composed platform by slot: [inst * (g + 1) + k] is GPU k < g of instance inst and
 * k == g its cpu; the dedicated parameter-server hosts follow, from instances * (g + 1) on. The
 * name SimGrid knows a slot's host by (unescaped, at most SS_CLUSTER_NAME_MAX bytes), and the
 * number of slots. The writer above names hosts this way; the engine finds them by it. */
#define SS_CLUSTER_NAME_MAX 320
void ss_cluster_host_name(const ss_job* j, int slot, char* buf, size_t size);
int ss_cluster_host_slots(const ss_job* j);

/* Links of the composed platform by slot: [inst * nlinks + l] is link l of the instance file in
 * instance inst; the dedicated server hosts' NICs follow. The name SimGrid knows a slot's link by
 * (a SPLITDUPLEX link's directions are that name with _UP and _DOWN), its class, and the number
 * of slots. The writer names links this way; the trace's counters find them by it. */
int ss_cluster_link_slots(const ss_job* j);
void ss_cluster_link_name(const ss_job* j, int slot, char* buf, size_t size);
ss_link_class ss_cluster_link_class(const ss_job* j, int slot);

/* Bandwidth (bytes/s) and latency (s) of link l of the instance file once the job's NIC options
 * (--nic-gbps, --nic-latency-us) and network transport are applied: a NIC link carries its line rate
 * times the transport's fraction, and its latency plus half the transport's cost per message (a
 * message between instances crosses two NIC links). */
double ss_cluster_link_bandwidth(const ss_job* j, int l);
double ss_cluster_link_latency(const ss_job* j, int l);

/* The NICs of one instance as the hardware has them, without the transport: their line rate
 * summed (bytes/s) and the latency of one NIC link (s; 0 without NICs). */
double ss_cluster_nic_line_bandwidth(const ss_job* j);
double ss_cluster_nic_wire_latency(const ss_job* j);

/* Latency (s) of the route between nodes a and b of one instance, NIC options applied. */
double ss_cluster_route_latency(const ss_job* j, int a, int b);

/* Total bandwidth (bytes/s) of the NICs of one instance, as the transport uses them. */
double ss_cluster_nic_bandwidth(const ss_job* j);

/* Latency (s) and bottleneck bandwidth (bytes/s) of the path from GPU a of one instance to GPU b of
 * another one: a's route to its NIC, the switch (a connection's cap), then b's NIC's route to b; no
 * faster than the socket transport's threads at b's end move bytes with an idle CPU. */
double ss_cluster_cross_latency(const ss_job* j, int a, int b);
double ss_cluster_cross_bandwidth(const ss_job* j, int a, int b);

/* What a switch port lets one flow carry (bytes/s): an instance's port (server 0) one connection
 * between instances, its TCP flows x AWS's cap per flow (ss_job.conn_cap_bytes_per_s); a dedicated
 * parameter server's (server 1) one flow's cap; SS_CLUSTER_PORT_UNLIMITED without a cap. Each flow
 * between instances crosses two ports (FATPIPE links: each flow capped on its own). */
#define SS_CLUSTER_PORT_UNLIMITED 1e15
double ss_cluster_port_bandwidth(const ss_job* j, int server);

/* The bandwidth (bytes/s) the flat rings among all GPUs (ss_job.rings) get between two instances,
 * all rings together (0 on one instance): each ring crosses from the last GPU of its chain in one
 * instance to the first in the next, by those GPUs' NICs, which the rings crossing there share in proportion to their
 * shares; the phase ends with the ring slowest for its share. 0 without NICs. */
double ss_cluster_ring_cross_bandwidth(const ss_job* j);

#endif
