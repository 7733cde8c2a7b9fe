/* arch: the names of the gradient exchanges, server placements, aggregations and start-up reads. */
#include "arch.h"

#include <stddef.h>

const char* const ss_arch_names[] = {"allreduce", "ps", NULL};
const char* const ss_placement_names[] = {"dedicated", "colocated", NULL};
const char* const ss_ps_aggregate_names[] = {"gpu", "instance", NULL};
const char* const ss_init_io_names[] = {"none", "sequential", "parallel", NULL};
