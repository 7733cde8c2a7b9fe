/* par: one GPU's share of each stage under tensor and pipeline parallelism. */
#include "par.h"

#include "array.h"
#include "memory.h"
#include "rng.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The share of a column-parallel linear's weight-gradient GEMM under which Megatron hides the
 * allreduce of its input gradient (its async_grad_allreduce): of a layer's forward time, each of
 * the 2 backward allreduces waits behind the weight gradient of the QKV projection (3 of the 12 h^2
 * of a GPT layer's matrices) or of the FFN's first matrix (4 of 12): about 0.29 of the layer's
 * forward on average. ESTIMATE from the shapes, not a measurement (docs/model.md). */
#define PAR_TP_HIDE_SHARE 0.29

/* The groups of group_time: a tensor group; the ranks that reduce a stage's gradients, its data and
 * context ranks (Megatron-Core's data-parallel group with context parallelism); a context group. */
#define TP (1u << SS_DIM_TP)
#define GRADS (1u << SS_DIM_DP | 1u << SS_DIM_CP)
#define CP (1u << SS_DIM_CP)

/* Megatron-Core's gradient buckets (DistributedDataParallelConfig.bucket_size): max(40,000,000,
 * 1,000,000 x data-parallel size) parameters; the last bucket's reduction cannot overlap. */
#define PAR_BUCKET_PARAMS 4e7
#define PAR_BUCKET_PARAMS_PER_DP 1e6

/* The time of op on bytes per GPU among the group along the dimensions dims (a mask of 1 << ss_dim)
 * of the rank at tensor rank 0, context rank 0, replica 0 and stage: inside each instance among its
 * members, then across the instances they span, where every GPU of the instance reduces in a group of
 * its own at the same time (they share its NICs). *cross: whether the group spans instances. */
static double ranks_time(const ss_par_in* in, const int* ranks, int n, ss_coll_op op, double bytes, int* cross);

static double group_time(const ss_par_in* in, const ss_mp* mp, unsigned dims, int stage, ss_coll_op op, double bytes,
                         int* cross)
{
  const ss_layout* l = &mp->layout;
  int coord[SS_DIM_COUNT] = {0};
  coord[SS_DIM_PP] = stage;
  int n = 1;
  for (int d = 0; d < SS_DIM_COUNT; d++)
    n *= dims & (1u << d) ? l->size[d] : 1;
  int* ranks = malloc(sizeof(int) * (size_t)n);
  if (!ranks)
    ss_nomem_exit("a parallel group");
  ss_layout_group_dims(l, ss_layout_rank(l, coord), dims, ranks);
  double t = ranks_time(in, ranks, n, op, bytes, cross);
  free(ranks);
  return t;
}

/* The same for the group of the n ranks given (in ranks[]). */
static double ranks_time(const ss_par_in* in, const int* ranks, int n, ss_coll_op op, double bytes, int* cross)
{
  int g = in->gpus_per_instance;
  char* seen = calloc((size_t)in->instances, 1);
  if (!seen)
    ss_nomem_exit("a parallel group");
  int spanned = 0;
  for (int k = 0; k < n; k++) {
    int inst = ranks[k] / g;
    spanned += !seen[inst];
    seen[inst] = 1;
  }
  free(seen);
  int per = (n + spanned - 1) / spanned;
  double t = 0;
  if (per > 1)
    t += in->cost_s(in->ctx, per, 1, op, SS_SCOPE_INSTANCE, bytes);
  if (spanned > 1)
    t += in->cost_s(in->ctx, g, spanned, op, SS_SCOPE_CROSS, bytes * g / per);
  *cross = spanned > 1;
  return t;
}

double ss_par_moe_load(const ss_transformer* tf, int ep, double tokens, double imbalance, double capacity, int pad,
                       unsigned seed, int draws, double* dropped)
{
  const ss_moe* m = &tf->moe;
  int E = m->experts, local = E / ep;
  double mean = tokens * m->top_k * ep / E; /* each expert's tokens on average */
  double cap = capacity > 0 ? capacity : INFINITY;
  *dropped = 0;
  if (pad && capacity > 0)
    return capacity; /* every expert computes its capacity, dropped or padded */
  if (imbalance > 0) {
    /* The busiest expert at imbalance times the mean, the others at the mean, on one GPU. */
    double busiest = fmin(imbalance, cap);
    *dropped = (imbalance - busiest) / E;
    return (busiest + fmin(1, cap) * (local - 1)) / local;
  }
  /* Uniform routing: each token's k experts among E; an expert's count is binomial (n = tokens k ep
   * picks, p = 1 / E), drawn as a normal of its mean and variance, each GPU's experts summed. */
  double sd = sqrt(mean * (1 - 1.0 / E)), sum = 0, cut = 0;
  ss_rng r;
  ss_rng_seed(&r, seed, 0x6d6f65); /* a stream of its own ("moe") */
  for (int k = 0; k < draws; k++) {
    double most = 0;
    for (int gpu = 0; gpu < ep; gpu++) {
      double got = 0;
      for (int x = 0; x < local; x++) {
        double c = fmax(0, mean + sd * ss_rng_normal(&r));
        cut += fmax(0, c - cap * mean);
        got += fmin(c, cap * mean);
      }
      most = fmax(most, got);
    }
    sum += most / (mean * local);
  }
  *dropped = cut / (mean * E * draws);
  return sum / draws;
}

double ss_par_selective_share(const ss_workload* w)
{
  const ss_transformer* tf = &w->tf;
  double s = tf->seq, h = tf->hidden, scores = 4 * s * s * h, layer = 0;
  for (int e = 1; w->has_work && e <= w->layers_per_block; e++)
    layer += w->layers[e].fwd_flops;
  if (layer > scores)
    return scores / layer;
  return s / (6 * h) / (1 + s / (6 * h)); /* GPT's layer: 24 s h^2 + 4 s^2 h */
}

/* Bytes per parameter of the weights one GPU keeps: 16-bit under mixed precision, FP32 else; at fp8
 * also their FP8 copies with transposes (SS_MEMORY_FP8_BYTES). */
static double weight_bytes(const ss_par_in* in)
{
  return (ss_precision_half(in->precision) ? 2 : 4) + (in->precision == SS_PRECISION_FP8 ? SS_MEMORY_FP8_BYTES : 0);
}

/* Bytes per parameter of the states one GPU keeps: the weights at the training precision, their
 * gradients (FP32 under BF16, as Megatron accumulates and reduces them; FP16 under AMP), the FP32
 * master copy under mixed precision and the optimizer's moments (Adam's two, SGD with momentum's
 * one); the master copy and the moments divided over the replicas with the distributed optimizer
 * (Megatron-LM's theoretical_memory_usage.py: 18, or 6 + 12 / d, for Adam in mixed precision). */
static double state_bytes_over(const ss_par_in* in, int replicas, double* grad_bytes)
{
  int mixed = ss_precision_half(in->precision);
  ss_optimizer opt = in->workload->optimizer;
  double moments = opt == SS_OPT_ADAM || opt == SS_OPT_ADAMW ? 2 : opt == SS_OPT_SGD_MOMENTUM ? 1 : 0;
  *grad_bytes = in->precision == SS_PRECISION_AMP ? 2 : 4;
  double sharded = (mixed ? 4 : 0) + 4 * moments;
  return weight_bytes(in) + *grad_bytes + sharded / (in->o->distributed_optimizer ? replicas : 1);
}

/* Those of the parameters but the routed experts' (replicated over d cp), and of the experts' (over
 * the edp expert-data replicas: Megatron-Core's distributed optimizer shards each over its own
 * data-parallel group). */
static double state_bytes(const ss_par_in* in, const ss_mp* mp, double* grad_bytes)
{
  return state_bytes_over(in, mp->d * mp->cp, grad_bytes);
}

static double expert_state_bytes(const ss_par_in* in, const ss_mp* mp, double* grad_bytes)
{
  return state_bytes_over(in, mp->edp > 0 ? mp->edp : mp->d * mp->cp, grad_bytes);
}

/* The bytes of stage s's parameters' states on one GPU. */
static double stage_state_bytes(const ss_par_in* in, const ss_mp* mp, int s)
{
  double grad_bytes = 0;
  return (mp->params[s] - mp->expert_params[s]) * state_bytes(in, mp, &grad_bytes) +
         mp->expert_params[s] * expert_state_bytes(in, mp, &grad_bytes);
}

/* The n ranks of rank base + k stride (k < n): a group of Megatron-Core's expert ranks (its expert rank
 * generator's order, etp-ep-edp-pp, pipeline stages the slowest: within a stage's block of t cp d ranks,
 * rank r's expert-tensor rank r % etp, expert rank (r / etp) % ep, expert-data rank r / (etp ep)). */
static double strided_time(const ss_par_in* in, int base, int stride, int n, ss_coll_op op, double bytes, int* cross)
{
  int* ranks = malloc(sizeof(int) * (size_t)n);
  if (!ranks)
    ss_nomem_exit("an expert group");
  for (int k = 0; k < n; k++)
    ranks[k] = base + k * stride;
  double t = ranks_time(in, ranks, n, op, bytes, cross);
  free(ranks);
  return t;
}

/* A MoE layer's exchanges per micro-batch (ss_mp.a2a_*): each GPU dispatches its tokens' top_k copies
 * (b s / (cp t) tokens: sequence parallelism splits them over the tensor ranks) of h 16-bit elements
 * to its expert group, the busiest GPU receiving moe_load times the mean, and combines them back; with
 * etp the experts' tensor ranks gather the tokens after the dispatch and reduce-scatter them before the
 * combine. Backward the same exchanges carry the gradients. */
static void moe_comm(const ss_par_in* in, ss_mp* mp)
{
  const ss_transformer* tf = &in->workload->tf;
  if (tf->moe.experts <= 0)
    return;
  int g = in->gpus_per_instance, span = mp->ep * mp->etp, cross = 0;
  double tokens = (double)mp->b * tf->seq / mp->cp / mp->t;
  mp->a2a_bytes = tokens * tf->moe.top_k * tf->hidden * 2 * mp->moe_load;
  /* DeepEP dispatches FP8 runs' tokens in FP8 with a 4-byte scale per 128 elements; the combine and
   * the backward's exchanges stay 16-bit. */
  double dispatch = mp->a2a_bytes;
  if (in->o->moe_dispatcher == SS_DISPATCH_DEEPEP && in->precision == SS_PRECISION_FP8)
    dispatch *= (1 + 4.0 / 128) / 2;
  double one = 0, first = 0;
  if (mp->ep > 1) {
    int per = span <= g ? mp->ep : g / mp->etp, m = span <= g ? 1 : span / g;
    one = in->a2a_s(in->ctx, per, mp->etp, m, mp->a2a_bytes, &cross);
    first = dispatch == mp->a2a_bytes ? one : in->a2a_s(in->ctx, per, mp->etp, m, dispatch, &cross);
    mp->a2a_cross = cross;
  }
  double gather = 0;
  if (mp->etp > 1) {
    gather = strided_time(in, 0, 1, mp->etp, SS_OP_ALL_GATHER, mp->a2a_bytes * mp->etp, &cross) +
             strided_time(in, 0, 1, mp->etp, SS_OP_REDUCE_SCATTER, mp->a2a_bytes * mp->etp, &cross);
    mp->a2a_cross |= cross;
  }
  mp->a2a_fwd_s = first + one + gather;
  mp->a2a_bwd_s = 2 * one + gather + (in->o->recompute == SS_RECOMPUTE_FULL ? mp->a2a_fwd_s : 0);
}

/* Each virtual stage's compute and tensor-parallel waits per micro-batch. */
static void stage_times(const ss_par_in* in, ss_mp* mp)
{
  const ss_workload* w = in->workload;
  int nv = mp->p * mp->v, nl = w->nlayers, lpb = w->layers_per_block, cross = 0;
  double speed = in->speed_flops;
  double elem = ss_precision_half(in->precision) ? 2 : 4;
  /* With context parallelism a GPU holds 1/cp of each sequence's tokens. */
  double tp_bytes = ss_transformer_tp_bytes(&w->tf, mp->b, elem) / mp->cp;
  double one = 0; /* one of a layer's collectives: an allreduce, or a reduce-scatter and an all-gather */
  if (mp->t > 1)
    one = in->o->sequence_parallel ? group_time(in, mp, TP, 0, SS_OP_REDUCE_SCATTER, tp_bytes, &cross) +
                                         group_time(in, mp, TP, 0, SS_OP_ALL_GATHER, tp_bytes, &cross)
                                   : group_time(in, mp, TP, 0, SS_OP_ALLREDUCE, tp_bytes, &cross);
  mp->tp_cross = cross;
  /* Context parallelism (Megatron-Core's ring attention, cp_comm_type p2p): per layer and micro-batch
   * each GPU passes its chunk's keys and values (its 1/t of the key-value heads) around the context
   * group in cp - 1 steps, an all-gather's traffic, each step's transfer beside the attention of the
   * chunk it has (all but the last step's attention hides it); backward the keys and values again and
   * their gradients back, twice the bytes beside the attention's backward. What is not hidden waits,
   * booked with the tensor-parallel waits. */
  double ring = 0, layer_f = 0, layer_b = 0;
  if (mp->cp > 1) {
    mp->cp_bytes = 2.0 * mp->b * w->tf.seq / mp->cp * w->tf.kv_heads * ss_transformer_head_dim(&w->tf) / mp->t * elem;
    ring = group_time(in, mp, CP, 0, SS_OP_ALL_GATHER, mp->cp_bytes * mp->cp, &cross);
    mp->tp_cross |= cross;
    for (int l = 1; l <= lpb; l++) {
      layer_f += in->fwd_flops[l] / speed;
      layer_b += in->bwd_flops[l] / speed;
    }
    double hidden = (mp->cp - 1.0) / mp->cp;
    mp->cp_fwd_s = fmax(0, ring - in->attn_share[0] * layer_f * hidden);
    mp->cp_bwd_s = fmax(0, 2 * ring - in->attn_share[1] * layer_b * hidden);
  }
  moe_comm(in, mp);
  /* Between stages each GPU sends 1/t of its micro-batch's activations (b s h): its part of the
   * sequence with sequence parallelism, else Megatron's scatter/gather (Narayanan et al. SC'21
   * section 4.1), whose receiver all-gathers the tensor inside its tensor group. */
  mp->p2p_bytes = mp->p > 1 ? tp_bytes / mp->t : 0;
  double regather = mp->t > 1 && mp->p > 1 && !in->o->sequence_parallel
                        ? group_time(in, mp, TP, 0, SS_OP_ALL_GATHER, tp_bytes, &cross)
                        : 0;
  double sel = in->o->recompute != SS_RECOMPUTE_SELECTIVE ? 0
               : in->kernels                              ? in->attn_share[0]
                                                          : ss_par_selective_share(w);
  int full = in->o->recompute == SS_RECOMPUTE_FULL;
  int start = 0;
  for (int vs = 0; vs < nv; vs++) {
    int n = mp->counts[vs];
    double f = 0, b = 0;
    for (int l = 1 + start * lpb; l < 1 + (start + n) * lpb; l++) {
      f += in->fwd_flops[l];
      b += in->bwd_flops[l];
    }
    double blocks_s = f / speed;
    b += (full ? 1 : sel) * f;
    if (vs == 0) {
      f += in->fwd_flops[0];
      b += in->bwd_flops[0];
    }
    if (vs == nv - 1) {
      f += in->fwd_flops[nl - 1];
      b += in->bwd_flops[nl - 1];
    }
    mp->fwd_s[vs] = f / speed;
    mp->bwd_s[vs] = b / speed;
    /* Forward: 2 allreduces per layer on the critical path, and the vocabulary-parallel embedding's.
     * Backward: 2 per layer, each behind a weight gradient (Megatron's asynchronous allreduce), the
     * output layer's input gradient, and with full recomputation the forward's 2 again. */
    double hide = n > 0 ? PAR_TP_HIDE_SHARE * blocks_s / n : 0;
    mp->tp_fwd_s[vs] = (2.0 * n + (vs == 0)) * one + (vs > 0) * regather;
    mp->tp_bwd_s[vs] = 2.0 * n * fmax(0, one - hide) + (vs == nv - 1) * one + (full ? 2.0 * n * one : 0) +
                       (vs < nv - 1) * regather;
    mp->tp_fwd_s[vs] += n * mp->cp_fwd_s;
    mp->tp_bwd_s[vs] += n * (mp->cp_bwd_s + (full ? mp->cp_fwd_s : 0));
    /* Each MoE layer's all-to-alls (full recomputation runs the forward's again). */
    int moe = 0;
    for (int k = start; k < start + n; k++)
      moe += ss_transformer_is_moe(&w->tf, k);
    /* Combined 1F1B (--overlap-moe-comm): a forward and a backward of two micro-batches run together,
     * layer by layer, each exchange (the forward's dispatch and combine, the backward's) beside one
     * sub-block of the other's compute (its attention or its experts): a quarter of the pair's compute
     * per MoE layer hides each exchange, what it cannot cover waits; meanwhile the exchange holds SMs,
     * and the compute it hides runs 1 + f times as long (job.interference, measured). */
    double fa = moe * mp->a2a_fwd_s, ba = moe * mp->a2a_bwd_s;
    if (in->o->overlap_moe_comm && moe > 0 && fa + ba > 0) {
      double window = (mp->fwd_s[vs] + mp->bwd_s[vs]) / moe / 4;
      double ef = 2 * fmax(0, mp->a2a_fwd_s / 2 - window), eb = 2 * fmax(0, mp->a2a_bwd_s / 2 - window);
      double hidden = moe * (mp->a2a_fwd_s + mp->a2a_bwd_s - ef - eb), pair = mp->fwd_s[vs] + mp->bwd_s[vs];
      double slowed = in->interference * hidden;
      mp->fwd_s[vs] += slowed * mp->fwd_s[vs] / pair;
      mp->bwd_s[vs] += slowed * mp->bwd_s[vs] / pair;
      fa = moe * ef;
      ba = moe * eb;
    }
    mp->moe_fwd_s[vs] = fa;
    mp->moe_bwd_s[vs] = ba;
    mp->tp_fwd_s[vs] += fa;
    mp->tp_bwd_s[vs] += ba;
    start += n;
  }
}

/* Each stage's parameters on one GPU, its data-parallel reduction, optimizer step and gathers. */
static void stage_states(const ss_par_in* in, ss_mp* mp)
{
  const ss_workload* w = in->workload;
  int p = mp->p, nl = w->nlayers, lpb = w->layers_per_block, cross = 0;
  double total = 0;
  for (int l = 0; l < nl; l++)
    total += w->layers[l].params;
  double vh = (double)w->tf.vocab * w->tf.hidden;
  int start = 0;
  for (int vs = 0; vs < p * mp->v; vs++) {
    for (int l = 1 + start * lpb; l < 1 + (start + mp->counts[vs]) * lpb; l++)
      mp->params[vs % p] += w->layers[l].params;
    /* The routed experts of its MoE layers, divided over ep etp GPUs, not t. */
    for (int b = start; b < start + mp->counts[vs]; b++)
      mp->expert_params[vs % p] += ss_transformer_is_moe(&w->tf, b) ? ss_transformer_expert_params(&w->tf) : 0;
    start += mp->counts[vs];
  }
  mp->params[0] += w->layers[0].params;
  /* The last stage holds the output layer, and with tied embeddings on another stage a copy of the
   * word embeddings for it (Megatron), whose gradients the two stages allreduce. */
  mp->params[p - 1] += w->layers[nl - 1].params + (w->tf.tied && p > 1 ? vh : 0);
  double grad_bytes = 0;
  state_bytes(in, mp, &grad_bytes);
  double param_bytes = ss_precision_half(in->precision) ? 2 : 4;
  int dist = in->o->distributed_optimizer;
  double opt_s = in->opt_flops / in->speed_flops;
  int edp = mp->edp > 0 ? mp->edp : 1, block = mp->t * mp->cp * mp->d;
  for (int s = 0; s < p; s++) {
    double experts = mp->expert_params[s] / (mp->ep * mp->etp > 0 ? mp->ep * mp->etp : 1);
    mp->params[s] = (mp->params[s] - mp->expert_params[s]) / mp->t + experts;
    mp->expert_params[s] = experts;
    double grads = (mp->params[s] - experts) * grad_bytes;
    mp->dp_s[s] = mp->d * mp->cp > 1
                      ? group_time(in, mp, GRADS, s, dist ? SS_OP_REDUCE_SCATTER : SS_OP_ALLREDUCE, grads, &cross)
                      : 0;
    mp->dp_cross |= cross;
    mp->gather_s[s] = dist && mp->d * mp->cp > 1 ? group_time(in, mp, GRADS, s, SS_OP_ALL_GATHER,
                                                              (mp->params[s] - experts) * param_bytes, &cross)
                                                 : 0;
    /* The experts' gradients over their expert-data group (after the others: Megatron-Core's expert
     * buckets are reduced apart). */
    if (experts > 0 && edp > 1) {
      int stride = mp->ep * mp->etp;
      mp->dp_s[s] += strided_time(in, s * block, stride, edp, dist ? SS_OP_REDUCE_SCATTER : SS_OP_ALLREDUCE,
                                  experts * grad_bytes, &cross);
      mp->dp_cross |= cross;
      if (dist)
        mp->gather_s[s] += strided_time(in, s * block, stride, edp, SS_OP_ALL_GATHER, experts * param_bytes, &cross);
    }
    /* The buckets but the last reduce while the last micro-batch's backward runs (--no-overlap: none). */
    double buckets = ceil(mp->params[s] / fmax(PAR_BUCKET_PARAMS, PAR_BUCKET_PARAMS_PER_DP * mp->d * mp->cp));
    double last_bwd = mp->bwd_s[s] + mp->tp_bwd_s[s]; /* chunk 0's: the stage's last backward */
    mp->dp_hidden_s[s] = in->o->overlap && buckets > 1 ? fmin(mp->dp_s[s] * (1 - 1 / buckets), last_bwd) : 0;
    mp->opt_s[s] = opt_s * ((mp->params[s] - experts) / (dist ? mp->d * mp->cp : 1) + experts / (dist ? edp : 1)) /
                   total;
  }
  if (w->tf.tied && p > 1) {
    int first[SS_DIM_COUNT] = {0}, last[SS_DIM_COUNT] = {0};
    last[SS_DIM_PP] = p - 1;
    int g = in->gpus_per_instance;
    int apart = ss_layout_rank(&mp->layout, first) / g != ss_layout_rank(&mp->layout, last) / g;
    double bytes = vh / mp->t * grad_bytes;
    mp->embed_cross = apart;
    mp->embed_s = apart ? in->cost_s(in->ctx, g, 2, SS_OP_ALLREDUCE, SS_SCOPE_CROSS, bytes * g)
                        : in->cost_s(in->ctx, 2, 1, SS_OP_ALLREDUCE, SS_SCOPE_INSTANCE, bytes);
  }
}

/* Each stage's memory on one GPU; the first that does not fit is refused (unless --ignore-memory). */
static int stage_memory(const ss_par_in* in, ss_mp* mp, ss_err* err)
{
  const ss_workload* w = in->workload;
  /* Korthikanti et al.'s bytes assume 16-bit activations: twice them at FP32. The kernel model's
   * (tfkernels.h): with grouped-query keys and values, a gated FFN's intermediates, and flash
   * attention's softmax statistics in place of eager attention's scores. */
  ss_tf_split sp = {.b = mp->b,
                    .seq = w->tf.seq,
                    .t = mp->t,
                    .sp = in->o->sequence_parallel,
                    .cp = mp->cp,
                    .elem = 2,
                    .attention = in->attention,
                    .causal = 1,
                    .fp8 = in->precision == SS_PRECISION_FP8,
                    .ep = mp->ep,
                    .etp = mp->etp,
                    .load = mp->moe_load};
  double layer = in->kernels ? ss_tf_activation_bytes(&w->tf, &sp, in->o->recompute)
                             : ss_transformer_activation_bytes(&w->tf, mp->b, mp->t, in->o->sequence_parallel,
                                                               in->o->recompute) *
                                   (ss_precision_half(in->precision) ? 1 : 2);
  /* A mixture of experts' layers keep their routed experts' tokens: the mean over all the layers
   * (ESTIMATE: a stage holds about as many MoE layers as the model's share of them). */
  int nmoe = ss_transformer_moe_layers(&w->tf);
  if (in->kernels && nmoe > 0 && in->o->recompute != SS_RECOMPUTE_FULL) {
    sp.moe = 1;
    double moe = ss_tf_activation_bytes(&w->tf, &sp, in->o->recompute);
    layer = (layer * (w->tf.layers - nmoe) + moe * nmoe) / w->tf.layers;
  }
  /* The last stage's logits in FP32 for the vocabulary-parallel cross-entropy: b s V / t. */
  double logits = (double)mp->b * w->tf.seq * w->tf.vocab / mp->t * 4;
  double cap = in->memory_bytes;
  for (int s = 0; s < mp->p; s++) {
    double held = ss_pipe_stage_layers_held(mp->schedule, mp->p, mp->v, mp->m, s, mp->counts);
    mp->act_bytes[s] = held * layer + (s == mp->p - 1 ? logits : 0);
    mp->mem_bytes[s] = stage_state_bytes(in, mp, s) + mp->act_bytes[s] + SS_MEMORY_RESERVE_BYTES;
  }
  for (int s = 0; cap > 0 && !in->o->ignore_memory && s < mp->p; s++)
    if (mp->mem_bytes[s] > cap) {
      char parts[256];
      ss_par_memory_text(in, mp, s, parts, sizeof(parts));
      return ss_err_set(err, w->path, 0,
                        "stage %d of %d needs %.1f GiB on each GPU, more than the %.1f GiB of the %s (%s): give more "
                        "--tp or --pp, --recompute full or selective, --distributed-optimizer, a smaller "
                        "--micro-batch, or --ignore-memory",
                        s, mp->p, mp->mem_bytes[s] / 1073741824.0, cap / 1073741824.0, in->gpu_model, parts);
    }
  return SS_OK;
}

void ss_par_memory_text(const ss_par_in* in, const ss_mp* mp, int s, char* buf, size_t size)
{
  double grad_bytes = 0, gib = 1073741824.0, weights = weight_bytes(in);
  state_bytes(in, mp, &grad_bytes);
  double pg = mp->params[s] * (weights + grad_bytes);
  snprintf(buf, size, "parameters and gradients %.1f, optimizer state %.1f, activations %.1f, reserve %.1f", pg / gib,
           (stage_state_bytes(in, mp, s) - pg) / gib, mp->act_bytes[s] / gib, SS_MEMORY_RESERVE_BYTES / gib);
}

int ss_par_derive(const ss_par_in* in, ss_mp* mp, ss_err* err)
{
  size_t nv = (size_t)mp->p * (size_t)mp->v, p = (size_t)mp->p;
  mp->fwd_s = calloc(nv, sizeof(double));
  mp->bwd_s = calloc(nv, sizeof(double));
  mp->tp_fwd_s = calloc(nv, sizeof(double));
  mp->tp_bwd_s = calloc(nv, sizeof(double));
  mp->dp_s = calloc(p, sizeof(double));
  mp->dp_hidden_s = calloc(p, sizeof(double));
  mp->opt_s = calloc(p, sizeof(double));
  mp->gather_s = calloc(p, sizeof(double));
  mp->params = calloc(p, sizeof(double));
  mp->expert_params = calloc(p, sizeof(double));
  mp->moe_fwd_s = calloc(nv, sizeof(double));
  mp->moe_bwd_s = calloc(nv, sizeof(double));
  mp->mem_bytes = calloc(p, sizeof(double));
  mp->act_bytes = calloc(p, sizeof(double));
  if (!mp->fwd_s || !mp->bwd_s || !mp->tp_fwd_s || !mp->tp_bwd_s || !mp->dp_s || !mp->dp_hidden_s || !mp->opt_s ||
      !mp->gather_s || !mp->params || !mp->expert_params || !mp->moe_fwd_s || !mp->moe_bwd_s || !mp->mem_bytes ||
      !mp->act_bytes)
    return ss_err_nomem(err);
  stage_times(in, mp);
  stage_states(in, mp);
  return stage_memory(in, mp, err);
}
