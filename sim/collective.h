/* collective: the collective operations (allreduce, reduce-scatter, all-gather), the algorithms that
 * run an allreduce, and the two fidelities of their simulation, with their names. */
#ifndef SS_COLLECTIVE_H
#define SS_COLLECTIVE_H

/* Allreduce algorithms (coll.c); AUTO is NCCL's choice per collective by its tuning model (tuner.h),
 * FASTEST the simulator's fastest predicted algorithm (cost.h, a what-if). Both are resolved before
 * a collective runs. */
typedef enum ss_allreduce {
  SS_ALLREDUCE_AUTO,
  SS_ALLREDUCE_RING,
  SS_ALLREDUCE_TREE,
  SS_ALLREDUCE_HIERARCHICAL,
  SS_ALLREDUCE_FASTEST,
  SS_ALLREDUCE_COUNT
} ss_allreduce;

/* The last algorithm that runs (the choices come after it). */
#define SS_ALLREDUCE_LAST SS_ALLREDUCE_HIERARCHICAL

/* The collectives (coll.c): allreduce; reduce-scatter and all-gather, the halves sharded data
 * parallelism issues apart (NCCL runs them on rings only: no tree); all-to-all, a mixture of
 * experts' token exchange (NCCL's grouped sends and receives to every peer at once: no ring). */
typedef enum ss_coll_op {
  SS_OP_ALLREDUCE,
  SS_OP_REDUCE_SCATTER,
  SS_OP_ALL_GATHER,
  SS_OP_ALL_TO_ALL,
  SS_OP_COUNT
} ss_coll_op;

/* How collectives are simulated: FAST, one flow per ring edge and phase (cost linear in GPUs);
 * REFERENCE, one SimGrid communication per chunk and step, as the algorithm is written. */
typedef enum ss_fidelity { SS_FIDELITY_FAST, SS_FIDELITY_REFERENCE } ss_fidelity;

/* How a mixture of experts' tokens are exchanged (--moe-dispatcher): NCCL's all-to-all (Megatron-Core's
 * alltoall dispatcher), or DeepEP's kernels (its flex dispatcher) at their measured share of the links
 * and with FP8 dispatch in FP8 runs (a2a.h). */
typedef enum ss_dispatcher { SS_DISPATCH_ALLTOALL, SS_DISPATCH_DEEPEP, SS_DISPATCH_COUNT } ss_dispatcher;

extern const char* const ss_dispatcher_names[]; /* "alltoall", "deepep" */

/* Names by value, NULL-terminated (the options' values; ss_coll_op's are bench's words). */
extern const char* const ss_allreduce_names[];
extern const char* const ss_coll_op_names[];
extern const char* const ss_fidelity_names[];

const char* ss_allreduce_name(ss_allreduce a);
const char* ss_coll_op_name(ss_coll_op op); /* "allreduce", "reduce-scatter", "all-gather", "all-to-all" */
const char* ss_fidelity_name(ss_fidelity f);

/* The op a bench subcommand word names, or -1. */
int ss_coll_op_parse(const char* word);

#endif
