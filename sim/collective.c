/* collective: the names of the collective operations, allreduce algorithms and fidelities. */
#include "collective.h"

#include "names.h"

const char* const ss_allreduce_names[] = {"auto", "ring", "tree", "hierarchical", "fastest", NULL};
const char* const ss_coll_op_names[] = {"allreduce", "reduce-scatter", "all-gather", "all-to-all", NULL};
const char* const ss_fidelity_names[] = {"fast", "reference", NULL};
const char* const ss_dispatcher_names[] = {"alltoall", "deepep", NULL};

const char* ss_allreduce_name(ss_allreduce a)
{
  return ss_names_at(ss_allreduce_names, (int)a);
}

const char* ss_coll_op_name(ss_coll_op op)
{
  return ss_names_at(ss_coll_op_names, (int)op);
}

const char* ss_fidelity_name(ss_fidelity f)
{
  return ss_names_at(ss_fidelity_names, (int)f);
}

int ss_coll_op_parse(const char* word)
{
  return ss_names_find(ss_coll_op_names, word);
}
