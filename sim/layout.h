/* layout: the parallel layout of a job's GPUs: tensor-parallel groups of t, context-parallel groups
 * of cp, pipeline stages p, data-parallel replicas d = GPUs / (t cp p), and the rank order that places
 * them (which dimension varies fastest across consecutive ranks). Megatron-Core's default order is
 * tensor, context, data, pipeline ("tp-cp-dp-pp": tensor groups of consecutive ranks, so inside an
 * instance when t divides its GPUs; pipeline stages the slowest, so across instances);
 * megatron/core/parallel_state.py. The context ranks always follow the tensor ranks. */
#ifndef SS_LAYOUT_H
#define SS_LAYOUT_H

#include <stddef.h>

/* The dimensions. */
typedef enum ss_dim { SS_DIM_TP, SS_DIM_CP, SS_DIM_DP, SS_DIM_PP, SS_DIM_COUNT } ss_dim;

extern const char* const ss_dim_names[]; /* "tp", "cp", "dp", "pp" */

/* A layout: the sizes of the dimensions and their order, fastest first. */
typedef struct ss_layout {
  int size[SS_DIM_COUNT];
  ss_dim order[SS_DIM_COUNT];
} ss_layout;

/* The rank order of text ("tp-dp-pp": tp, dp and pp once each, separated by '-', the fastest first;
 * cp follows tp, or is named right after it, "tp-cp-dp-pp") into order: 0, or -1. */
int ss_layout_parse_order(const char* text, ss_dim order[SS_DIM_COUNT]);

/* The layout of gpus GPUs with tensor size t, context size cp and p stages in order: 0, or -1 with
 * why[size] naming the rule (each at least 1, t cp p dividing the GPUs). */
int ss_layout_make(int gpus, int t, int cp, int p, const ss_dim order[SS_DIM_COUNT], ss_layout* out, char* why,
                   size_t size);

/* The GPUs of the layout. */
int ss_layout_gpus(const ss_layout* l);

/* Rank's coordinate along each dimension (0 .. size - 1). */
void ss_layout_coords(const ss_layout* l, int rank, int coord[SS_DIM_COUNT]);

/* The rank at coord. */
int ss_layout_rank(const ss_layout* l, const int coord[SS_DIM_COUNT]);

/* The ranks of rank's group along dim (the ranks that differ from it in that coordinate only), in
 * the coordinate's order, into out[0 .. size[dim]). Returns the group's size. */
int ss_layout_group(const ss_layout* l, int rank, ss_dim dim, int* out);

/* The ranks of rank's group along the dimensions of the mask dims (bit 1 << dim each: the ranks that
 * differ from it in those coordinates only), the first dimension of the order fastest, into out.
 * Returns the group's size. */
int ss_layout_group_dims(const ss_layout* l, int rank, unsigned dims, int* out);

/* How many of the tensor groups span more than one instance of per_instance GPUs (a group that
 * crosses instances pays the network on every layer's collectives). */
int ss_layout_groups_across(const ss_layout* l, ss_dim dim, int per_instance);

#endif
