/* pipeline: the pipeline-parallel schedules (--schedule), one row of facts each, the order in which
 * each stage runs its micro-batches' forward and backward passes, and that order timed on uniform
 * stages without communication (the schedule's own bubble). The mechanics and their sources:
 * ../shared/data/model_parallelism.md (GPipe, Huang et al. 2019; 1F1B, Narayanan et al. SC'21
 * section 2.2; the interleaved 1F1B of Megatron-LM's megatron/core/pipeline_parallel/schedules.py). */
#ifndef SS_PIPELINE_H
#define SS_PIPELINE_H

#include <stddef.h>

/* GPipe (all forwards, then all backwards), 1F1B (PipeDream-Flush, Megatron's default) and
 * Megatron's interleaved 1F1B (v model chunks per stage). A new schedule is a value here, a row of
 * the table in pipeline.c and its order in ss_pipe_order. */
typedef enum ss_schedule {
  SS_SCHEDULE_GPIPE,
  SS_SCHEDULE_1F1B,
  SS_SCHEDULE_INTERLEAVED,
  SS_SCHEDULE_COUNT
} ss_schedule;

/* One schedule's facts. */
typedef struct ss_schedule_facts {
  const char* name;     /* --schedule's value */
  const char* label;    /* the report's words */
  int chunks;           /* a stage may hold several model chunks (--virtual-stages) */
  int micro_multiple_p; /* the micro-batches must be a multiple of the stages (Megatron's rule) */
} ss_schedule_facts;

extern const char* const ss_schedule_names[]; /* by value, NULL-terminated */
const ss_schedule_facts* ss_schedule_of(ss_schedule s);

/* One pass a stage runs: micro-batch micro (0..m-1) of its model chunk chunk (0..v-1), forward or
 * backward. */
typedef struct ss_pipe_op {
  int micro;
  int chunk;
  int bwd;
} ss_pipe_op;

/* The most passes (2 m v) a stage's order may hold: its indices are ints. */
#define SS_PIPE_MAX_PASSES 2147483646

/* Whether schedule s can run p stages, v chunks per stage and m micro-batches: 0, or a message in
 * why[size] naming the rule (v > 1 only interleaved, m a multiple of p for it, 2 m v at most
 * SS_PIPE_MAX_PASSES, ...). */
int ss_pipe_check(ss_schedule s, int p, int v, int m, char* why, size_t size);

/* The passes stage (0..p-1) runs, in its order, into out[0..2 m v): Megatron's warm-up forwards,
 * then one forward and one backward in turn, then the cool-down backwards (1F1B and interleaved);
 * GPipe's forwards in order, then its backwards in reverse. Returns 2 m v, or -1 when the layout is
 * refused by ss_pipe_check. */
int ss_pipe_order(ss_schedule s, int p, int v, int m, int stage, ss_pipe_op* out);

/* Pass i (0 .. 2 m v - 1) of that order into *op, computed without the others (an order grows with
 * the micro-batches: a stage actor takes its passes one by one). Returns 0, or -1 when the layout
 * is refused or i is out of the order. */
int ss_pipe_op_at(ss_schedule s, int p, int v, int m, int stage, long i, ss_pipe_op* op);

/* The iteration of schedule s on uniform stages, each forward pass of a whole stage fwd_s and each
 * backward bwd_s (a chunk's a v-th of them), without communication: each stage runs its order, a
 * pass waits for the same micro-batch's pass on the virtual stage before it (forward) or after it
 * (backward; the last one's backward waits for its own forward). Returns the makespan in seconds;
 * *in_flight (when not NULL) the most micro-batches whose forward has run and backward not, on any
 * stage and chunk together (what the activation memory holds). -1 when the layout is refused. */
double ss_pipe_time(ss_schedule s, int p, int v, int m, double fwd_s, double bwd_s, int* in_flight);

/* --partition's bounds: the most counts it gives (one per virtual stage) and the most layers in one. */
#define SS_PIPE_PARTITION_MAX 4096
#define SS_PIPE_PARTITION_LAYERS_MAX 1000000

/* --partition's text: whole numbers of layers from 1 to SS_PIPE_PARTITION_LAYERS_MAX separated by
 * commas, at most SS_PIPE_PARTITION_MAX of them, into out[0 ..) (NULL: only checked). Returns how
 * many, or -1 with why[size] (320 bytes are enough) saying what was expected and what is wrong,
 * for "--partition expects WHY": the item that is not a count, a count too large, or too many
 * items. */
int ss_pipe_partition_parse(const char* text, int* out, char* why, size_t size);

/* The layers of each virtual stage, in the model's order (virtual stage c p + r is chunk c of stage
 * r), into counts[0 .. p v): given (ngiven = p v counts adding up to layers) or, with ngiven 0,
 * layers / (p v) each, as Megatron-LM splits them (it refuses layers that do not divide; the
 * embedding stays with the first virtual stage, the output layer and the loss with the last). 0, or
 * -1 with why[size] naming the rule. */
int ss_pipe_partition(int layers, int p, int v, const int* given, int ngiven, int* counts, char* why, size_t size);

/* The most layer-micro-batches whose activations stage keeps at once under schedule s: over its
 * order, the layers (counts, by virtual stage as ss_pipe_partition gives them) of each pass whose
 * forward has run and backward not, added up. Times a layer's activation bytes for a micro-batch,
 * the stage's activation memory: L layers' worth on stage 0 of 1F1B (p micro-batches of L / p
 * layers), m / p of that with fewer micro-batches than stages, L (1 + (p - 1) / (p v))
 * interleaved, m L / p under GPipe. O(p v) whatever m, nothing allocated. -1 when the layout is
 * refused. */
double ss_pipe_stage_layers_held(ss_schedule s, int p, int v, int m, int stage, const int* counts);

/* The bubble of the schedule as a fraction of the ideal m (fwd_s + bwd_s): (p - 1) / m, and
 * (p - 1) / (v m) interleaved (the closed forms ss_pipe_time gives on uniform stages). */
double ss_pipe_bubble_closed_form(ss_schedule s, int p, int v, int m);

#endif
