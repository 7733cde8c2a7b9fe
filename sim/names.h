/* names: a set of names that numbers each distinct name in the order it was first added (a hash
 * table: adding n names takes time in n, not n squared). */
#ifndef SS_NAMES_H
#define SS_NAMES_H

#include <stddef.h>

/* Zero-initialised it is empty; free with ss_names_free. */
typedef struct ss_names {
  char** name; /* [index]: copies, owned */
  int n;
  size_t cap;   /* of name */
  int* slot;    /* hash table: index + 1, 0 when free */
  size_t nslot; /* a power of 2, at least twice n */
} ss_names;

/* The index of name in s, name (copied) added when new; -1 when out of memory. *added (if not
 * NULL) says whether it was new. */
int ss_names_add(ss_names* s, const char* name, int* added);

/* Free what s holds (not s itself), leaving it empty. */
void ss_names_free(ss_names* s);

/* A family's NULL-terminated table of names by value (ss_shard_names, ...): name v (asserted in
 * range), and the value of a name (-1 when it is none of them). */
const char* ss_names_at(const char* const* names, int v);
int ss_names_find(const char* const* names, const char* name);

/* Sort n items of size bytes by the name name_of reads of each (SimGrid's hosts, links), and find
 * the index of the item named name in items so sorted (n when none is): a slot's name searched in
 * O(log n), where SimGrid's own lookups walk its zones. */
void ss_names_sort(void* items, size_t n, size_t size, const char* (*name_of)(const void*));
size_t ss_names_search(const void* items, size_t n, size_t size, const char* (*name_of)(const void*), const char* name);

#endif
