/* cost: alpha-beta figures of the collectives of a job, from its platform alone (no SimGrid): hop
 * latencies for the fast fidelity, predicted times for choosing an algorithm as NCCL's tuner does. */
#ifndef SS_COST_H
#define SS_COST_H

#include "job.h"
#include "proto.h"

/* Latency (s) of the hop from rank a to rank b (inside an instance, or across to another). */
double ss_cost_hop_latency(const ss_job* j, int a, int b);

/* Largest latency (s) of a hop of: the global rings, the rings inside an instance, the rings of
 * same-index GPUs across instances (0 when there is no such hop). */
double ss_cost_alpha_global(const ss_job* j);
double ss_cost_alpha_intra(const ss_job* j);
double ss_cost_alpha_cross(const ss_job* j);

/* Tree allreduce: chunks each tree's half of a GPU's shard is pipelined in (NCCL-like chunks of
 * at most SS_TREE_CHUNK_BYTES, at most SS_TREE_MAX_CHUNKS of them), and the bandwidth (bytes/s)
 * of one tree transfer between instances when all GPUs use both trees at once (two transfers
 * each way per GPU share the NIC). */
#define SS_TREE_CHUNK_BYTES (512.0 * 1024)
#define SS_TREE_MAX_CHUNKS 64
int ss_cost_tree_chunks(double half_shard_bytes);
double ss_cost_tree_bandwidth(const ss_job* j);

/* Chunks of `chunk` bytes a tree's connection has in flight: its slots' (ss_nccl_window, at least 2, a
 * chunk larger than the slots being itself streamed through them: the next one's latency passes while
 * it moves); 1 in lock-step (--no-ring-pipeline, --ideal: each chunk after the previous one has
 * landed, as before issue 42). */
int ss_cost_tree_window(const ss_job* j, double chunk);

/* A chunk's time (s) on one GPU's share of its NIC when every GPU of the instance sends (the tree's
 * bandwidth per GPU and direction): the reference's chunks leave one after the other at that pace. */
double ss_cost_tree_pace_s(const ss_job* j, double chunk);

/* How a tree allreduce of bytes is cut: each GPU's half shard in *k chunks of *chunk bytes (at
 * least one byte each). */
void ss_cost_tree_split(const ss_job* j, double bytes, int* k, double* chunk);

/* The shortest time (s) of one pipelined phase of the tree across instances at the protocol's cap
 * (ss_proto_floor_s) for k chunks of `chunk` bytes of payload: its levels' step latencies, then
 * depth + k - 1 steps in which a GPU's NIC carries two chunks each way, the instance's GPUs
 * together at most the cap; 0 where the protocol has no cap. */
double ss_cost_tree_floor(const ss_job* j, int k, double chunk, const ss_proto_cost* pc);

/* Whether the tree's work inside an instance runs on NVLink SHARP (NCCL's NVLS and NVLS tree: Simple
 * only, on an NVSwitch of Hopper or later, ss_job.nvls_share). */
int ss_cost_tree_nvls(const ss_job* j, const ss_proto_cost* pc);

/* One half of the tree allreduce's work inside an instance (the reduce before the trees, or the
 * broadcast after) as a ring phase on the intra rings: *steps steps of *payload bytes each (before the
 * protocol's efficiency). A reduce-scatter or all-gather (g-1 steps of S/g), or with NVLS
 * (ss_cost_tree_nvls) the switch's reduction or multicast: one step of S (1 + 1/g) / 2 each way, over
 * NVLS's share of the switch's rate. */
void ss_cost_tree_intra(const ss_job* j, double bytes, const ss_proto_cost* pc, int* steps, double* payload);

/* The protocol's latency of each of those steps: the intra phase's, or NVLS's (NCCL's model: 23 us up to
 * 2.20, 25 us from 2.21, for the whole allreduce inside an instance: half of it a half). */
double ss_cost_tree_step_s(const ss_job* j, const ss_proto_cost* pc);

/* The time (s) of one such half alone, and of its share of one chunk of the trees across instances
 * (the pipelined tree's fill: the half over the chunks ss_cost_tree_split cuts). */
double ss_cost_tree_half_s(const ss_job* j, double bytes, const ss_proto_cost* pc);
double ss_cost_tree_fill_s(const ss_job* j, double bytes, const ss_proto_cost* pc);

/* Whether the tree's work inside and across instances overlaps, as NCCL pipelines it by chunks
 * (ss_job_ring_pipelined's switch, several instances of several GPUs joined by NVLink inside): the
 * tree's time is then the longer of the two plus the fill at each end, not their sum. Where the GPUs
 * of an instance reach each other over PCIe, the work inside shares its links with the way to the
 * NIC, the overlap buys little, and the simulator keeps the two in sequence (the fast fidelity's one
 * flow per hop would take those links for the whole phase). */
int ss_cost_tree_pipelined(const ss_job* j);

/* One pipelined phase of the tree allreduce across instances (reduce if reduce, else broadcast)
 * of k chunks of `chunk` bytes, step by step: at each step the transfers the data flow allows
 * run, and the step takes alpha + chunk x (transfers sharing the busiest NIC direction) / B1, B1
 * being one GPU's share of its NIC. *flows_s receives the time of the fast fidelity's flows alone
 * (every edge at once, all k chunks). Returns the phase's time. */
double ss_cost_tree_phase(const ss_job* j, int reduce, int k, double chunk, double* flows_s);

/* Transfers across instances, one per GPU of the instance (the rings of hierarchical, the trees), run
 * step by step as the reference fidelity runs them: each of `steps` steps waits lat, then its route's
 * latency (no bandwidth taken meanwhile), then moves `bytes` at its share of the links of its routes
 * to and from its NIC (SimGrid's CM02 sharing: the transfers moving data share a full link in
 * proportion to 1 / their route's latency, each at most its route's rate alone). Where the GPUs'
 * routes differ (p3.16xlarge: socket 1 reaches the NIC over one more link) they drift apart, and
 * one's latency passes while the others' data use the links. hidden[l] receives how much sooner GPU
 * l's transfer ends than the fast fidelity's phase prices it: the fast ring's one flow per GPU of
 * all the steps' bytes, started together (each after its own latency), its time after the latency
 * spread over the steps, each also paying lat and the latency. 0 where the routes are alike or the
 * instance has more than SS_NIC_HIDDEN_MAX_GPUS GPUs. */
#define SS_NIC_HIDDEN_MAX_GPUS 16
void ss_cost_nic_hidden(const ss_job* j, double lat, double bytes, int steps, double* hidden);

/* The protocol's latency of a step of the pipelined ring over all GPUs on a hop inside an instance:
 * NCCL's intra-node step latency (of the instance's links, on several instances with LL's factor),
 * where pc->step_s[SS_PHASE_GLOBAL] is the network's on several instances (the hop across them). */
double ss_cost_ring_step_s(const ss_job* j, const ss_proto_cost* pc);

/* The rate (bytes/s) at which the rings over all GPUs move their steps' bytes together, as the closed form
 * takes it (cost_ring: the instance's rings, at most what they carry across instances). The reference's
 * ring channels leave their chunks at that pace (coll.c). */
double ss_cost_ring_rate(const ss_job* j);

/* One ring of a ring phase as NCCL pipelines it: `steps` steps around a ring
 * whose hops repeat with `period` positions (a ring inside one instance: its GPUs; a ring across
 * identical instances: one instance's chain, whose last hop crosses to the next instance). Hop q
 * has latency a[q] and moves one step's chunk in x[q] seconds. The protocol's latency of a step is lat
 * on every hop but the last position's, lat_out on that one (NCCL's model: a step that crosses
 * instances costs the network's latency, one inside an instance the instance's links'; a ring that
 * crosses none has lat_out = lat). A rank sends its step-0 chunk after the call's and its step's
 * latency; step k's once step k-1's has arrived and its step's latency has passed, lat after it sent
 * step k-1 (its GPU's latency of a step: a network's longer one is the chunk's way, not the GPU's
 * work), and once its send of step k - window has landed (the peer's buffer slots: ss_nccl_window); its chunks leave one after
 * the other on its hop, each after the hop's latency. Returns when the last rank has sent and
 * received every step: the longest path through those dependencies, in O(steps x period). t0[q]: when
 * position q's rank enters the phase (NULL: all at 0). Equal hops give call + steps x (lat + a + x);
 * the lock-step ring's steps x (largest a) holds only when each step waits at the slowest hop.
 * scratch: (SS_NCCL_STEPS + 3) x period doubles. */
double ss_cost_ring_chain(int steps, int window, int period, const double* t0, const double* x, const double* a,
                          double lat, double lat_out, double call, double* scratch);

/* Steps of collective op's ring phases per step of the allreduce's (reduce-scatter then
 * all-gather): 2 for allreduce, 1 for reduce-scatter or all-gather. */
int ss_cost_op_passes(ss_coll_op op);

/* Whether NCCL runs collective op with algorithm alg: every algorithm for allreduce; ring and
 * hierarchical (the simulator's two-level ring) for reduce-scatter and all-gather, no tree; all-to-all
 * has no algorithm of these, its sends going to every peer at once (a2a.h): ring stands for them. */
int ss_cost_op_has(ss_coll_op op, ss_allreduce alg);

/* The tuner's hardware class of a link class: nvlink and nvswitch are NVLink, nic the network, every
 * other class (pcie, socket, and any class this function does not know) PCIe. */
ss_hw ss_cost_link_hw(ss_link_class cls);

/* How NCCL's tuner sees collective op with algorithm alg (not AUTO) on the job: its phases' steps,
 * hardware classes (from the link classes of the rings' routes) and bus bandwidths (proto.h). */
void ss_cost_shape(const ss_job* j, ss_coll_op op, ss_allreduce alg, ss_proto_shape* s);

/* The protocol of collective op of bytes (the whole buffer: n times each GPU's shard for
 * reduce-scatter and all-gather) with algorithm alg (not AUTO) and its cost (*pc): --protocol,
 * else the enabled protocol of shortest predicted time, as NCCL's tuner; Simple at no cost when
 * the per-call cost is off (--no-call-cost, --ideal). */
ss_proto ss_cost_protocol(const ss_job* j, ss_coll_op op, ss_allreduce alg, double bytes, ss_proto_cost* pc);

/* Predicted time (s) of collective op of bytes with algorithm alg (not AUTO) and its protocol: the
 * per-call latency, then each phase's steps (hop latency, the protocol's step latency, the bytes
 * over the bottleneck bandwidth times the protocol's efficiency), with the flows that share a NIC
 * splitting it. Contention beyond that is what the simulation adds. */
double ss_cost_collective(const ss_job* j, ss_coll_op op, ss_allreduce alg, double bytes);

/* The protocol and its cost for a collective among the GPUs of a scope (hybrid sharding,
 * ss_coll_scope): a ring of each instance's GPUs (passes x (g-1) steps of bytes/g), or of the
 * same-index GPUs of every instance on their 1/g of bytes (passes x (m-1) steps of bytes/(g m), the
 * NIC shared by the g rings), chosen as NCCL's tuner would for that communicator's shape. */
ss_proto ss_cost_protocol_scoped(const ss_job* j, ss_coll_op op, ss_coll_scope scope, double bytes, ss_proto_cost* pc);

/* Predicted time (s) of collective op of bytes among the GPUs of a scope (SS_SCOPE_INSTANCE: the
 * ring of each instance's GPUs; SS_SCOPE_CROSS: the rings of the same-index GPUs across instances,
 * sharing the NIC; not SS_SCOPE_ALL), with the protocol NCCL's rules pick for that shape. */
double ss_cost_scoped(const ss_job* j, ss_coll_op op, ss_coll_scope scope, double bytes);

/* The algorithm AUTO stands for at this size: ring on one instance, else the fastest prediction
 * among those NCCL runs op with (each with its best protocol, as NCCL's tuner picks both at once). */
ss_allreduce ss_cost_choose(const ss_job* j, ss_coll_op op, double bytes);

/* The cost of a collective with protocol p (not AUTO) forced, as --protocol p would. */
void ss_cost_protocol_as(const ss_job* j, ss_coll_op op, ss_allreduce alg, double bytes, ss_proto p, ss_proto_cost* pc);

#endif
