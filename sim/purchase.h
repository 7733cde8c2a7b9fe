/* purchase: how an instance is bought (on demand, a capacity block, a savings plan, spot), the
 * kinds of the price tables' rows and --purchase's values (docs/formats.md, "Prices"). */
#ifndef SS_PURCHASE_H
#define SS_PURCHASE_H

/* AUTO is --purchase's default, never a row's kind: on demand where the type is sold so, else the
 * first kind after it that the price table has (a capacity block for types sold only by reservation). */
typedef enum ss_purchase {
  SS_PURCHASE_AUTO,
  SS_PURCHASE_ON_DEMAND,
  SS_PURCHASE_CAPACITY_BLOCK,
  SS_PURCHASE_SAVINGS_1Y,
  SS_PURCHASE_SAVINGS_3Y,
  SS_PURCHASE_SPOT,
  SS_PURCHASE_COUNT
} ss_purchase;

/* Names by value ("auto", "on-demand", "capacity-block", "savings-plan-1y", "savings-plan-3y", "spot"),
 * NULL-terminated: --purchase's values; a row's kind and an instance file's price_kind are one of them
 * but auto. */
extern const char* const ss_purchase_names[];

/* The kind named name (auto excluded), or -1. */
int ss_purchase_kind(const char* name);

#endif
