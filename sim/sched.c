/* sched: appending to an iteration's collectives. */
#include "sched.h"

#include "err.h"

ss_coll_spec* ss_sched_add(ss_coll_spec* colls, int* n, int cap, ss_coll_kind kind, ss_coll_op op, ss_coll_scope scope,
                           int index, double bytes)
{
  ss_assert(*n < cap);
  ss_coll_spec* c = &colls[(*n)++];
  *c = (ss_coll_spec){kind, op, scope, index, index, 0, 0, bytes};
  return c;
}
