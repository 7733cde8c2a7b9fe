/* arch: how gradients are exchanged (allreduce among the GPUs, or parameter servers), where the
 * servers run, and the start-up reads of CNTK's study, with their names and defaults. */
#ifndef SS_ARCH_H
#define SS_ARCH_H

/* How gradients are exchanged: allreduce among the GPUs, or push to parameter servers and pull. */
typedef enum ss_arch { SS_ARCH_ALLREDUCE, SS_ARCH_PS } ss_arch;

/* Where parameter servers run: hosts of their own, or the CPU hosts of the worker instances. */
typedef enum ss_placement { SS_PS_DEDICATED, SS_PS_COLOCATED } ss_placement;

/* Where parameter servers take the gradients from: every GPU pushes its own (CNTK, MXNet's kvstore
 * dist), or each instance's GPUs reduce theirs among themselves first and each pushes its share
 * (TensorFlow's distributed_replicated, BytePS): docs/model.md, "Parameter servers". */
typedef enum ss_ps_aggregate { SS_PS_AGG_GPU, SS_PS_AGG_INSTANCE } ss_ps_aggregate;

/* Start-up reads (CNTK): none, every worker one after another, or all at once. */
typedef enum ss_init_io { SS_INIT_NONE, SS_INIT_SEQUENTIAL, SS_INIT_PARALLEL } ss_init_io;

/* Names by value, NULL-terminated: the options' values (a value's name: ss_names_at, names.h). */
extern const char* const ss_arch_names[];
extern const char* const ss_placement_names[];
extern const char* const ss_ps_aggregate_names[];
extern const char* const ss_init_io_names[];

/* Limit: parameter-server shards. */
#define SS_MAX_SERVERS 4096

/* Default GB/s of gradient one server core adds into the aggregate and applies: an ESTIMATE
 * (docs/model.md, Parameter servers): summing FP32 arrays streams three times their size through
 * memory, about 6 GB/s of one core's bandwidth on a cloud Xeon. */
#define SS_PS_AGG_GBYTES_PER_S 2.0

/* Default MiB of input a worker reads at start-up besides the model: an ESTIMATE, one 32 MiB chunk
 * of a chunked reader (CNTK's reader deserializes its input in chunks; docs/model.md). */
#define SS_INIT_SHARD_MIB 32.0

#endif
