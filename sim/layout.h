/* layout: the 3D-parallel layout of a job's GPUs: tensor-parallel groups of t, pipeline stages p,
 * data-parallel replicas d = GPUs / (t p), and the rank order that places them (which dimension
 * varies fastest across consecutive ranks). Megatron-Core's default order is tensor, data, pipeline
 * ("tp-dp-pp": tensor groups of consecutive ranks, so inside an instance when t divides its GPUs;
 * pipeline stages the slowest, so across instances); megatron/core/parallel_state.py. */
#ifndef SS_LAYOUT_H
#define SS_LAYOUT_H

#include <stddef.h>

/* The dimensions. */
typedef enum ss_dim { SS_DIM_TP, SS_DIM_DP, SS_DIM_PP, SS_DIM_COUNT } ss_dim;

extern const char* const ss_dim_names[]; /* "tp", "dp", "pp" */

/* A layout: the sizes of the dimensions and their order, fastest first. */
typedef struct ss_layout {
  int size[SS_DIM_COUNT];
  ss_dim order[SS_DIM_COUNT];
} ss_layout;

/* The rank order of text ("tp-dp-pp": each dimension once, separated by '-', the fastest first)
 * into order: 0, or -1. */
int ss_layout_parse_order(const char* text, ss_dim order[SS_DIM_COUNT]);

/* The layout of gpus GPUs with tensor size t and p stages in order: 0, or -1 with why[size] naming
 * the rule (t and p at least 1, t p dividing the GPUs). */
int ss_layout_make(int gpus, int t, int p, const ss_dim order[SS_DIM_COUNT], ss_layout* out, char* why, size_t size);

/* The GPUs of the layout. */
int ss_layout_gpus(const ss_layout* l);

/* Rank's coordinate along each dimension (0 .. size - 1). */
void ss_layout_coords(const ss_layout* l, int rank, int coord[SS_DIM_COUNT]);

/* The rank at coord. */
int ss_layout_rank(const ss_layout* l, const int coord[SS_DIM_COUNT]);

/* The ranks of rank's group along dim (the ranks that differ from it in that coordinate only), in
 * the coordinate's order, into out[0 .. size[dim]). Returns the group's size. */
int ss_layout_group(const ss_layout* l, int rank, ss_dim dim, int* out);

/* How many of the tensor groups span more than one instance of per_instance GPUs (a group that
 * crosses instances pays the network on every layer's collectives). */
int ss_layout_groups_across(const ss_layout* l, ss_dim dim, int per_instance);

#endif
