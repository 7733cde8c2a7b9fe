/* array: arrays that grow by doubling, freed in a list. */
#include "array.h"

#include <stdint.h>
#include <stdlib.h>

/* Double *c, unless c elements of size bytes would then not fit a size_t. */
static int twice(size_t* c, size_t size)
{
  if (*c > SIZE_MAX / 2 / size)
    return -1;
  *c *= 2;
  return 0;
}

void* ss_array_grow(void* items, size_t* cap, size_t n, size_t size, size_t first)
{
  if (n <= *cap)
    return items;
  size_t c = *cap ? *cap : first;
  if (*cap && twice(&c, size))
    return NULL;
  while (c < n)
    if (twice(&c, size))
      return NULL;
  if (c > SIZE_MAX / size)
    return NULL;
  void* grown = realloc(items, c * size);
  if (grown)
    *cap = c;
  return grown;
}

void ss_array_free_all(void* const* ptrs, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free(ptrs[i]);
}
