/* purchase: the ways of buying an instance (purchase.h). */
#include "purchase.h"

#include <string.h>

const char* const ss_purchase_names[] = {"auto", "on-demand", "capacity-block", "savings-plan-1y", "savings-plan-3y",
                                         "spot", NULL};

int ss_purchase_kind(const char* name)
{
  for (int k = SS_PURCHASE_ON_DEMAND; k < SS_PURCHASE_COUNT; k++)
    if (strcmp(name, ss_purchase_names[k]) == 0)
      return k;
  return -1;
}
