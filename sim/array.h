/* array: arrays that grow by doubling as a reader appends to them. */
#ifndef SS_ARRAY_H
#define SS_ARRAY_H

#include <stddef.h>

/* Room for n >= 1 elements of size bytes in items, an array of *cap elements (NULL when *cap is
 * 0): items itself when they fit, else items reallocated to twice *cap (first when *cap is 0),
 * doubled again until n fit, with *cap updated. NULL when out of memory, items then unchanged and
 * still the caller's to free. */
void* ss_array_grow(void* items, size_t* cap, size_t n, size_t size, size_t first);

#endif
