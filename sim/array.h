/* array: heap arrays: grown by doubling as a reader appends to them, freed in a list at once. */
#ifndef SS_ARRAY_H
#define SS_ARRAY_H

#include <stddef.h>

/* Room for n >= 1 elements of size bytes in items, an array of *cap elements (NULL when *cap is
 * 0): items itself when they fit, else items reallocated to twice *cap (first when *cap is 0),
 * doubled again until n fit, with *cap updated. NULL when out of memory, items then unchanged and
 * still the caller's to free. */
void* ss_array_grow(void* items, size_t* cap, size_t n, size_t size, size_t first);

/* Free each of the n blocks of ptrs (NULL ones too, as free does). */
void ss_array_free_all(void* const* ptrs, size_t n);

/* Free every argument, a destructor's list of blocks: SS_FREE_ALL(j->a, j->b, ...). The arguments
 * are all read before the first is freed. */
#define SS_FREE_ALL(...)                                                                                               \
  ss_array_free_all((void* const[]){__VA_ARGS__}, sizeof((void* const[]){__VA_ARGS__}) / sizeof(void*))

#endif
