/* par: what tensor, context and pipeline parallelism give one GPU of each stage, from the job's
 * complete earlier phases, as memory.h, bucket.h and wrap.h take theirs: its inputs (ss_par_in,
 * borrowed) in, the stages' figures (ss_mp) out. Each virtual stage's forward and backward per
 * micro-batch, the tensor-parallel collectives and the context ring's exchange they wait for, the
 * bytes sent between stages, the data-parallel reduction of each stage's gradients, the optimizer
 * step, the tied embeddings' allreduce and the memory of each stage (docs/model.md, "Tensor and
 * pipeline parallelism"; the mechanics: ../shared/data/model_parallelism.md). The collectives' times
 * come from the caller's cost model (derive.c), through ss_par_in.cost_s. */
#ifndef SS_PAR_H
#define SS_PAR_H

#include "err.h"
#include "layout.h"
#include "option.h"
#include "pipeline.h"
#include "sched.h"
#include "tfkernels.h"
#include "workload.h"

#include <stddef.h>

/* Where the busiest GPU's load of a mixture of experts comes from: every expert padded to its capacity
 * (--moe-pad), the busiest expert given (--moe-imbalance), balanced routing (--ideal), or counts drawn
 * from a uniform router (the default). */
typedef enum ss_moe_load_source {
  SS_MOE_LOAD_PADDED,
  SS_MOE_LOAD_GIVEN,
  SS_MOE_LOAD_BALANCED,
  SS_MOE_LOAD_DRAWN
} ss_moe_load_source;

/* Tensor, context and pipeline parallelism (--tp, --cp, --pp; docs/model.md, "Tensor and pipeline
 * parallelism"): the layout and the pipeline's sizes (ss_job_new), then what ss_par_derive computes
 * for one GPU of each virtual stage. A virtual stage is chunk c of stage r at index c p + r
 * (pipeline.h). */
typedef struct ss_mp {
  int on;
  ss_layout layout;
  int t, p, d, v, m, b; /* tensor size, stages, replicas, chunks per stage, micro-batches, micro-batch */
  int cp;               /* context size: the GPUs each sequence is split over */
  /* Mixtures of experts: the routed experts over ep GPUs, each over etp, edp expert-data-parallel
   * replicas of them (t cp d / (ep etp)); moe_load the busiest GPU's expert tokens over the mean
   * (ss_par_moe_load), moe_dropped the share of routed tokens the capacity drops. */
  int ep, etp, edp;
  double moe_load;
  double moe_dropped;
  ss_moe_load_source moe_load_source; /* where moe_load comes from */
  ss_schedule schedule;
  int* counts; /* [p v]: the transformer layers of each virtual stage */
  /* Derived (ss_derive_job): one GPU's seconds per micro-batch of each virtual stage ([p v]). */
  double* fwd_s;    /* forward compute (the layers' kernels split by t) */
  double* bwd_s;    /* backward compute, recomputation included */
  double* tp_fwd_s; /* the tensor-parallel collectives the forward waits for */
  double* tp_bwd_s; /* ... the backward waits for (those not hidden under weight gradients) */
  int tp_cross;     /* a tensor or context group spans instances: its collectives wait on the network */
  double cp_fwd_s;  /* of tp_fwd_s per layer: the context ring's exchange the attention does not hide */
  double cp_bwd_s;  /* ... of tp_bwd_s */
  double cp_bytes;  /* the keys and values one GPU passes on per layer and micro-batch, forward */
  /* Per MoE layer and micro-batch: what one GPU dispatches (its tokens' copies, the busiest's load
   * of them), and the all-to-alls (dispatch and combine; with etp the tokens' gather and scatter over
   * the expert's tensor ranks) the forward and the backward wait for, booked with the tensor-parallel
   * waits; whether the expert group spans instances. */
  double a2a_bytes;
  double a2a_fwd_s;
  double a2a_bwd_s; /* with full recomputation, the forward's again */
  int a2a_cross;
  double* moe_fwd_s; /* [p v]: of tp_fwd_s, the MoE layers' all-to-alls a forward waits for (each layer's
                      * a2a_fwd_s, less what --overlap-moe-comm hides) */
  double* moe_bwd_s; /* ... of tp_bwd_s, a backward */
  double p2p_bytes;  /* what each GPU sends to the next (or previous) stage per micro-batch */
  /* Per stage ([p]), one GPU: the data-parallel reduction of its gradients (all its chunks), the part
   * of it hidden under the last micro-batch's backward, the optimizer step, and the distributed
   * optimizer's all-gather of the updated parameters after it. */
  double* dp_s;
  double* dp_hidden_s;
  int dp_cross; /* the data-parallel groups span instances */
  double* opt_s;
  double* gather_s;
  double embed_s;        /* the tied embeddings' gradient allreduce between the first and last stage */
  int embed_cross;       /* ... which are on different instances */
  double* params;        /* [p]: parameters one GPU of the stage holds */
  double* expert_params; /* [p]: of which routed experts' (their states divided over the edp replicas) */
  double* mem_bytes;     /* [p]: the memory one GPU of the stage needs at its peak */
  double* act_bytes;     /* [p]: of which activations */
} ss_mp;

/* What the derivation reads, borrowed from the job (derive.c's ss_derive_par_in). */
typedef struct ss_par_in {
  const ss_workload* workload; /* at the run's sequence and attention */
  const ss_options* o;         /* sequence_parallel, recompute, distributed_optimizer, overlap, ignore_memory */
  ss_precision precision;
  int kernels;              /* the kernel model times the layers (tfmodel.h) */
  ss_attention attention;   /* as run */
  const double* attn_share; /* [2]: the attention core's share of a layer's forward and backward */
  const double* fwd_flops;  /* per layer and micro-batch, in flops of the GPU host */
  const double* bwd_flops;
  double opt_flops;    /* the optimizer step of the whole model */
  double speed_flops;  /* the GPU host's speed: its flops to seconds */
  double memory_bytes; /* a GPU's memory; 0: unknown */
  double interference; /* f: compute takes 1 + f times as long while a collective runs on the GPU */
  const char* gpu_model;
  int gpus_per_instance;
  int instances;
  /* The time of op on bytes per GPU among g GPUs in each of m instances, inside each (scope
   * SS_SCOPE_INSTANCE, m 1) or across them (SS_SCOPE_CROSS), by the caller's cost model. */
  double (*cost_s)(const void* ctx, int g, int m, ss_coll_op op, ss_coll_scope scope, double bytes);
  /* The all-to-all of bytes per GPU among groups of per GPUs `stride` apart in each of m instances,
   * every GPU of every instance in one (a2a.h); *cross: the network bounds it. */
  double (*a2a_s)(const void* ctx, int per, int stride, int m, double bytes, int* cross);
  const void* ctx;
} ss_par_in;

/* Fill mp's derived figures from in (mp's layout and sizes set). SS_OK, SS_ENOMEM, or SS_EINPUT when
 * a stage does not fit its GPU's memory (the parts named, unless --ignore-memory). */
int ss_par_derive(const ss_par_in* in, ss_mp* mp, ss_err* err);

/* The parts of stage s's memory in GiB, "parameters and gradients 12.3, optimizer state 24.6,
 * activations 30.1 (p micro-batches' worth), reserve 0.8", into buf. */
void ss_par_memory_text(const ss_par_in* in, const ss_mp* mp, int s, char* buf, size_t size);

/* The busiest GPU's expert tokens over the mean in a MoE layer of tf split over ep GPUs, each GPU
 * sending `tokens` tokens (each to top_k experts): with imbalance 1 or more, the busiest expert at
 * imbalance times the mean and the others at the mean; below 1, drawn `draws` times (seeded by seed)
 * as a router that picks experts uniformly at random gives them (each expert's count normal about the
 * mean with the multinomial's variance) and averaged; each expert cut to capacity times the mean (0 or
 * less: no cut), or with pad every expert at capacity. *dropped: the share of the routed tokens cut.
 * At least 1 with no capacity (docs/model.md, "Mixtures of experts"). */
double ss_par_moe_load(const ss_transformer* tf, int ep, double tokens, double imbalance, double capacity, int pad,
                       unsigned seed, int draws, double* dropped);

/* The share of a layer's forward FLOPs that selective recomputation runs again (the attention's
 * scores: 4 s^2 h of the layer's forward per sequence), from the workload's work when it gives it. */
double ss_par_selective_share(const ss_workload* w);

#endif
