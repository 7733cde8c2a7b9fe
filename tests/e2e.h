/* e2e: the end-to-end tests of stash-sim (test_e2e, one file per area: e2e_*.c), listed once here
 * for the program's table (e2e_main.c) and for CMake (one ctest e2e.NAME each), and the helpers
 * that run stash-sim for them (e2e_sim.c). */
#ifndef SS_E2E_H
#define SS_E2E_H

#include "testrun.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/* Every test: TEST(NAME) stands for the function test_NAME of its area's file. */
#define E2E_TESTS(TEST)                                                                                                \
  /* e2e_collectives.c */                                                                                              \
  TEST(ring_closed_form)                                                                                               \
  TEST(hierarchical_closed_form)                                                                                       \
  TEST(tree_closed_form)                                                                                               \
  TEST(rs_ag_closed_form)                                                                                              \
  TEST(auto_choice)                                                                                                    \
  TEST(auto_fastest)                                                                                                   \
  TEST(fast_vs_reference)                                                                                              \
  TEST(fast_vs_reference_scale)                                                                                        \
  TEST(no_nvlink)                                                                                                      \
  TEST(net_transport)                                                                                                  \
  TEST(flow_cap)                                                                                                       \
  TEST(socket_cpu)                                                                                                     \
  TEST(protocol_switch)                                                                                                \
  TEST(protocol_forced)                                                                                                \
  TEST(bench_nccl_model)                                                                                               \
  TEST(faster_nic_p4d)                                                                                                 \
  TEST(ofi_tuner)                                                                                                      \
  TEST(ring_large_steps)                                                                                               \
  /* e2e_transport.c */                                                                                                \
  TEST(transport_rule)                                                                                                 \
  TEST(shm_ring_closed_form)                                                                                           \
  TEST(peer_limit)                                                                                                     \
  /* e2e_training.c */                                                                                                 \
  TEST(compute_scaling)                                                                                                \
  TEST(single_gpu_synthetic)                                                                                           \
  TEST(breakdown_sums)                                                                                                 \
  TEST(more_bandwidth_never_slower)                                                                                    \
  TEST(network_stall)                                                                                                  \
  TEST(no_overlap_never_faster)                                                                                        \
  TEST(resnet50_v100_calibration)                                                                                      \
  TEST(zero_closed_form)                                                                                               \
  TEST(zero_memory_and_trace)                                                                                          \
  TEST(zero_overlap_comm)                                                                                              \
  TEST(units_closed_form)                                                                                              \
  TEST(units_trace_counts)                                                                                             \
  TEST(units_memory)                                                                                                   \
  TEST(hybrid_scopes)                                                                                                  \
  TEST(hybrid_zero2_closed_form)                                                                                       \
  /* e2e_loader.c */                                                                                                   \
  TEST(loader_stalls)                                                                                                  \
  TEST(init_io)                                                                                                        \
  TEST(cpu_compute)                                                                                                    \
  TEST(limit)                                                                                                          \
  /* e2e_stash.c */                                                                                                    \
  TEST(stash_differential)                                                                                             \
  TEST(stash_network)                                                                                                  \
  TEST(stash_stack)                                                                                                    \
  /* e2e_ps.c */                                                                                                       \
  TEST(ps_closed_form)                                                                                                 \
  TEST(ps_aggregate)                                                                                                   \
  TEST(ps_shards)                                                                                                      \
  TEST(ps_async)                                                                                                       \
  /* e2e_host.c */                                                                                                     \
  TEST(launch_bound)                                                                                                   \
  TEST(apex_per_tensor)                                                                                                \
  TEST(horovod_fusion)                                                                                                 \
  TEST(host_copies)                                                                                                    \
  TEST(handoff)                                                                                                        \
  TEST(ideal)                                                                                                          \
  /* e2e_checkpoint.c */                                                                                               \
  TEST(checkpoint_closed_form)                                                                                         \
  TEST(checkpoint_memory)                                                                                              \
  /* e2e_straggler.c */                                                                                                \
  TEST(straggler_slowest)                                                                                              \
  TEST(straggler_seed)                                                                                                 \
  TEST(straggler_breakdown)                                                                                            \
  TEST(straggler_ps)                                                                                                   \
  /* e2e_symmetry.c */                                                                                                 \
  TEST(symmetry_exact)                                                                                                 \
  TEST(symmetry_jitter)                                                                                                \
  TEST(symmetry_fallback)                                                                                              \
  /* e2e_interference.c */                                                                                             \
  TEST(interference_closed_form)                                                                                       \
  TEST(interference_off)                                                                                               \
  TEST(interference_trace)                                                                                             \
  /* e2e_trace.c */                                                                                                    \
  TEST(trace)                                                                                                          \
  /* e2e_cli.c */                                                                                                      \
  TEST(deterministic)                                                                                                  \
  TEST(whatif)                                                                                                         \
  TEST(price_choice)                                                                                                   \
  TEST(help_version)                                                                                                   \
  TEST(estimate)                                                                                                       \
  TEST(registry)                                                                                                       \
  TEST(gpu_memory)                                                                                                     \
  TEST(list_categories)                                                                                                \
  /* e2e_moe.c */                                                                                                      \
  TEST(alltoall_closed_form)                                                                                           \
  TEST(alltoall_flows)                                                                                                 \
  TEST(moe_closed_forms)                                                                                               \
  TEST(moe_trace)                                                                                                      \
  TEST(moe_mechanisms)

#define E2E_DECLARE(name) void test_##name(void);
E2E_TESTS(E2E_DECLARE)
#undef E2E_DECLARE

/* Run stash-sim with arguments given as one space-separated string. */
run_result runs(const char* bin, const char* args);

/* Run stash-sim with printf-style arguments and --format json; the parsed report (free with
 * cJSON_Delete), NULL and a failed check if the run fails. */
cJSON* sim_json(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/* The number key of the report of stash-sim run with printf-style arguments (NAN on failure). */
double sim_num(const char* key, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/* The iteration time (s) of stash-sim run with args and then extra arguments. */
double iteration(const char* args, const char* extra);

/* Time (s) of one allreduce of bytes simulated by "stash-sim bench allreduce ARGS"; the algorithm
 * it ran goes to alg (if not NULL). NAN on failure. */
double bench_time(const char* args, double bytes, char* alg, size_t alg_size);
/* The same for collective op ("allreduce", "reduce-scatter", "all-gather", "all-to-all"). */
double bench_op_time(const char* op, const char* args, double bytes, char* alg, size_t alg_size);

/* The same, with the protocol it ran ("LL", "LL128", "Simple"; "none" without the per-call cost). */
double bench_proto(const char* args, double bytes, char* proto, size_t proto_size);

/* Run base (a JSON report) with and without --trace and check the trace against the report; each
 * iteration runs layers forward spans per GPU (e2e_trace.c). */
void check_trace(const char* base, int layers);

#endif
