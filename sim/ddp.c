/* ddp: the data-parallel frameworks, one row of facts each. */
#include "ddp.h"

#include "err.h"
#include "names.h"

const char* const ss_ddp_names[] = {"pytorch", "apex", "horovod", NULL};

/* Host seconds per collective call and per gradient tensor, by framework: ESTIMATES, as no public
 * measurement of either was found (calibration/host_costs.md, section 4), from a measured ~4 us per
 * eager CUDA operator and 4-5 us per raw kernel launch (9 us with the profiler on):
 * - PyTorch: the C++ reducer's hook launches one copy into the bucket and one back (2 launches,
 *   10 us per tensor); a bucket's allreduce call through ProcessGroupNCCL, about 5 operators (20 us);
 * - apex: a Python hook per tensor plus its unflatten copy (about 6 operators, 25 us); per bucket the
 *   Python flatten, allreduce, scale and unflatten calls (about 15 operators, 60 us);
 * - Horovod: a Python hook per tensor that enqueues it (15 us); the fusion's call (20 us) is made
 *   by the background thread, off the training process's thread. */
static const ss_ddp_framework frameworks[SS_DDP_COUNT] = {
    [SS_DDP_PYTORCH] = {.collective_s = 20e-6, .tensor_s = 10e-6},
    [SS_DDP_APEX] = {.collective_s = 60e-6, .tensor_s = 25e-6},
    [SS_DDP_HOROVOD] = {.collective_s = 20e-6, .tensor_s = 15e-6, .background = 1, .cycles = 1, .one_buffer = 1},
};

const ss_ddp_framework* ss_ddp_of(ss_ddp d)
{
  ss_assert(d >= 0 && d < SS_DDP_COUNT);
  return &frameworks[d];
}

const char* ss_ddp_name(ss_ddp d)
{
  return ss_names_at(ss_ddp_names, (int)d);
}
