/* arch: the names of the gradient exchanges, server placements and start-up reads. */
#include "arch.h"

#include "names.h"

#include <stddef.h>

const char* const ss_arch_names[] = {"allreduce", "ps", NULL};
const char* const ss_placement_names[] = {"dedicated", "colocated", NULL};
const char* const ss_init_io_names[] = {"none", "sequential", "parallel", NULL};

const char* ss_arch_name(ss_arch a)
{
  return ss_names_at(ss_arch_names, (int)a);
}

const char* ss_placement_name(ss_placement p)
{
  return ss_names_at(ss_placement_names, (int)p);
}

const char* ss_init_io_name(ss_init_io m)
{
  return ss_names_at(ss_init_io_names, (int)m);
}
