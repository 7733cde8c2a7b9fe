/* screen: a derived job's iteration in closed form (screen.h). */
#include "screen.h"

#include "array.h"
#include "cluster.h"
#include "cost.h"
#include "tuner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The GPU (global rank) of stage k's tensor rank 0 of replica 0. */
static int stage_rank(const ss_job* j, int k)
{
  int coord[SS_DIM_COUNT] = {0};
  coord[SS_DIM_PP] = k;
  return ss_layout_rank(&j->mp.layout, coord);
}

/* The seconds of one micro-batch's send from stage `from` to stage `to` (activations forward,
 * gradients back: p2p_bytes each), and whether it leaves the instance. Every GPU of the stage sends
 * at once: those behind one NIC share it (stage.c simulates them). */
static double send_s(const ss_job* j, int from, int to, int* cross)
{
  const ss_platform* p = j->platform;
  int g = j->gpus_per_instance, a = stage_rank(j, from), b = stage_rank(j, to);
  double bytes = fmax(j->mp.p2p_bytes, 1);
  *cross = a / g != b / g;
  if (!*cross) {
    double bw = ss_platform_route_bandwidth(p, a % g, b % g);
    return ss_cluster_route_latency(j, a % g, b % g) + (bw > 0 ? bytes / bw : 0);
  }
  int mates = ss_job_stage_nic_mates(j, from, NULL, g);
  double bw = ss_cluster_cross_bandwidth(j, a % g, b % g);
  double nic_bw = p->nnics > 0 ? ss_cluster_nic_bandwidth(j) / p->nnics / (mates > 0 ? mates : 1) : bw;
  bw = fmin(bw, nic_bw);
  return ss_cluster_cross_latency(j, a % g, b % g) + (bw > 0 ? bytes / bw : 0);
}

/* Book s seconds of category c (detail d, unless SS_DETAIL_COUNT) to the means over n. */
static void add(ss_breakdown* bd, ss_cat c, ss_detail d, double s, int n)
{
  bd->part_s[c] += s / n;
  if (d != SS_DETAIL_COUNT)
    bd->detail_s[d] += s / n;
}

static ss_cat link_cat(int cross)
{
  return cross ? SS_CAT_NETWORK : SS_CAT_INTERCONNECT;
}

/* A tensor- and pipeline-parallel job (screen.h). */
static void screen_stages(const ss_job* j, ss_breakdown* bd)
{
  const ss_mp* mp = &j->mp;
  int p = mp->p, v = mp->v, nv = p * v;
  double* cycle = calloc((size_t)p, sizeof(double)); /* a micro-batch's passes and sends on stage r */
  double *fwd_x = calloc((size_t)p, sizeof(double)), *bwd_x = calloc((size_t)p, sizeof(double));
  int *fwd_cross = calloc((size_t)p, sizeof(int)), *bwd_cross = calloc((size_t)p, sizeof(int));
  if (!cycle || !fwd_x || !bwd_x || !fwd_cross || !bwd_cross) {
    SS_FREE_ALL(cycle, fwd_x, bwd_x, fwd_cross, bwd_cross);
    bd->iteration_s = NAN;
    return;
  }
  for (int r = 0; r < p; r++) {
    fwd_x[r] = p > 1 ? send_s(j, r, (r + 1) % p, &fwd_cross[r]) : 0;
    bwd_x[r] = p > 1 ? send_s(j, r, (r + p - 1) % p, &bwd_cross[r]) : 0;
  }
  double slowest = 0, sum = 0;
  for (int r = 0; r < p; r++) {
    for (int c = 0; c < v; c++) {
      int vs = c * p + r;
      cycle[r] += mp->fwd_s[vs] + mp->tp_fwd_s[vs] + mp->bwd_s[vs] + mp->tp_bwd_s[vs];
      cycle[r] += (vs < nv - 1 ? fwd_x[r] : 0) + (vs > 0 ? bwd_x[r] : 0);
    }
    slowest = fmax(slowest, cycle[r]);
    sum += cycle[r];
  }
  /* The schedule on these stages: the slowest sets the pace of the m micro-batches, the others fill
   * and drain the pipeline (a v-th of a pass each with v chunks per stage: Narayanan et al.'s
   * (m + (p - 1) / v) (f + b) on uniform stages). */
  double pipe = mp->m * slowest + (sum - slowest) / v;
  double exposed = 0, step = 0;
  for (int r = 0; r < p; r++) {
    double tied = mp->embed_s > 0 && (r == 0 || r == p - 1) ? mp->embed_s : 0;
    exposed = fmax(exposed, fmax(0, mp->dp_s[r] - mp->dp_hidden_s[r]) + tied);
    step = fmax(step, mp->opt_s[r] + mp->gather_s[r]);
  }
  bd->iteration_s = pipe + exposed + step;
  /* Each stage's parts, the rest of its iteration its bubble; their means. */
  for (int r = 0; r < p; r++) {
    double compute = mp->opt_s[r], tp = 0, a2a = 0, p2p_fwd = 0, p2p_bwd = 0;
    for (int c = 0; c < v; c++) {
      int vs = c * p + r;
      double moe = mp->moe_fwd_s ? mp->moe_fwd_s[vs] + mp->moe_bwd_s[vs] : 0;
      compute += mp->m * (mp->fwd_s[vs] + mp->bwd_s[vs]);
      tp += mp->m * (mp->tp_fwd_s[vs] + mp->tp_bwd_s[vs] - moe);
      a2a += mp->m * moe;
      p2p_fwd += vs < nv - 1 ? mp->m * fwd_x[r] : 0;
      p2p_bwd += vs > 0 ? mp->m * bwd_x[r] : 0;
    }
    double dp = fmax(0, mp->dp_s[r] - mp->dp_hidden_s[r]) + mp->gather_s[r];
    double tied = mp->embed_s > 0 && (r == 0 || r == p - 1) ? mp->embed_s : 0;
    add(bd, SS_CAT_COMPUTE, SS_DETAIL_COUNT, compute, p);
    add(bd, link_cat(mp->tp_cross), SS_DETAIL_TENSOR, tp, p);
    add(bd, link_cat(mp->a2a_cross), SS_DETAIL_A2A, a2a, p);
    add(bd, link_cat(fwd_cross[r]), SS_DETAIL_P2P, p2p_fwd, p);
    add(bd, link_cat(bwd_cross[r]), SS_DETAIL_P2P, p2p_bwd, p);
    add(bd, link_cat(mp->dp_cross), SS_DETAIL_DATA, dp, p);
    add(bd, link_cat(mp->embed_cross), SS_DETAIL_DATA, tied, p);
    double busy = compute + tp + a2a + p2p_fwd + p2p_bwd + dp + tied;
    add(bd, SS_CAT_BUBBLE, SS_DETAIL_COUNT, fmax(0, bd->iteration_s - busy), p);
  }
  SS_FREE_ALL(cycle, fwd_x, bwd_x, fwd_cross, bwd_cross);
}

/* The seconds of collective c of j's iteration, with the algorithm the job runs it with. */
static double coll_s(const ss_job* j, int c)
{
  const ss_coll_spec* spec = &j->colls[c];
  if (spec->scope != SS_SCOPE_ALL)
    return ss_cost_scoped(j, spec->op, spec->scope, spec->bytes);
  ss_allreduce alg = spec->kind == SS_CK_BUCKET ? j->bucket_alg[spec->index]
                     : j->opt.allreduce == SS_ALLREDUCE_AUTO || j->opt.allreduce == SS_ALLREDUCE_FASTEST ||
                             !ss_cost_op_has(spec->op, j->opt.allreduce)
                         ? ss_tuner_algorithm(j, spec->op, spec->bytes)
                         : j->opt.allreduce;
  return ss_cost_collective(j, spec->op, alg, spec->bytes);
}

/* A data-parallel job (screen.h): the GPU's clock gpu, the collectives' stream's clock stream. */
static void screen_segments(const ss_job* j, ss_breakdown* bd)
{
  int n = ss_job_colls_per_iter(j), seg_colls = ss_job_seg_colls(j);
  double* end = calloc((size_t)n + 1, sizeof(double));
  if (!end) {
    bd->iteration_s = NAN;
    return;
  }
  double speed = j->platform->gpus[0].speed_flops, gpu = 0, stream = 0, compute = 0;
  for (int s = 0; s < j->nsegs; s++) {
    const ss_segment* g = &j->segs[s];
    for (int c = g->before0; c < g->before0 + g->nbefore; c++)
      end[c] = stream = fmax(stream, gpu) + coll_s(j, c);
    if (g->gate >= 0)
      gpu = fmax(gpu, end[g->gate]);
    if (g->kind == SS_SEG_OPTIMIZER)
      gpu = fmax(gpu, stream);
    double work = g->flops / speed;
    compute += work;
    gpu += fmax(work, j->host ? g->host_s : 0);
    for (int c = g->bucket0; c < g->bucket0 + g->nlaunch; c++)
      end[c] = stream = fmax(stream, gpu) + coll_s(j, c);
    if (g->wait_after)
      gpu = fmax(gpu, stream);
  }
  /* The collectives after the step (the parameters' all-gathers, the metrics'): in turn. */
  stream = fmax(stream, gpu);
  for (int c = seg_colls; c < n; c++)
    stream += coll_s(j, c);
  free(end);
  bd->iteration_s = fmax(gpu, stream);
  add(bd, SS_CAT_COMPUTE, SS_DETAIL_COUNT, compute, 1);
  add(bd, link_cat(j->instances > 1), SS_DETAIL_COUNT, fmax(0, bd->iteration_s - compute), 1);
}

void ss_screen_job(const ss_job* j, ss_breakdown* out)
{
  memset(out, 0, sizeof(*out));
  if (j->mp.on)
    screen_stages(j, out);
  else
    screen_segments(j, out);
  out->first_iteration_s = out->rank_iteration_min_s = out->rank_iteration_max_s = out->iteration_s;
  out->util[SS_RES_GPU] = out->iteration_s > 0 ? out->part_s[SS_CAT_COMPUTE] / out->iteration_s : 0;
  out->limit = SS_RES_GPU;
}
