/* names: distinct names numbered in order, with an open-addressing hash table (FNV-1a). */
#include "names.h"

#include "array.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

static size_t hash(const char* name)
{
  size_t h = 14695981039346656037u;
  for (const unsigned char* c = (const unsigned char*)name; *c; c++)
    h = (h ^ *c) * 1099511628211u;
  return h;
}

/* The slot of name: where it is, or the free slot where it goes. */
static size_t slot_of(const ss_names* s, const char* name)
{
  size_t i = hash(name) & (s->nslot - 1);
  while (s->slot[i] && strcmp(s->name[s->slot[i] - 1], name) != 0)
    i = (i + 1) & (s->nslot - 1);
  return i;
}

/* Keep the table at least twice as large as the names, for n names. */
static int reserve(ss_names* s, size_t n)
{
  if (2 * n <= s->nslot)
    return 0;
  size_t nslot = s->nslot ? 2 * s->nslot : 64;
  int* slot = calloc(nslot, sizeof(int));
  if (!slot)
    return -1;
  free(s->slot);
  s->slot = slot;
  s->nslot = nslot;
  for (int i = 0; i < s->n; i++)
    s->slot[slot_of(s, s->name[i])] = i + 1;
  return 0;
}

int ss_names_add(ss_names* s, const char* name, int* added)
{
  if (added)
    *added = 0;
  if (reserve(s, (size_t)s->n + 1))
    return -1;
  size_t i = slot_of(s, name);
  if (s->slot[i])
    return s->slot[i] - 1;
  char** grown = ss_array_grow(s->name, &s->cap, (size_t)s->n + 1, sizeof(char*), 64);
  if (!grown)
    return -1;
  s->name = grown;
  if (!(s->name[s->n] = strdup(name)))
    return -1;
  s->slot[i] = s->n + 1;
  if (added)
    *added = 1;
  return s->n++;
}

void ss_names_free(ss_names* s)
{
  for (int i = 0; i < s->n; i++)
    free(s->name[i]);
  free(s->name);
  free(s->slot);
  memset(s, 0, sizeof(*s));
}

const char* ss_names_at(const char* const* names, int v)
{
  int n = 0;
  while (names[n])
    n++;
  ss_assert(v >= 0 && v < n);
  return names[v];
}

int ss_names_find(const char* const* names, const char* name)
{
  for (int i = 0; names[i]; i++)
    if (strcmp(name, names[i]) == 0)
      return i;
  return -1;
}

/* qsort's comparator reads the names through the getter of the sort under way. */
static const char* (*sorted_name)(const void*);

static int name_cmp(const void* a, const void* b)
{
  return strcmp(sorted_name(a), sorted_name(b));
}

void ss_names_sort(void* items, size_t n, size_t size, const char* (*name_of)(const void*))
{
  sorted_name = name_of;
  qsort(items, n, size, name_cmp);
}

size_t ss_names_search(const void* items, size_t n, size_t size, const char* (*name_of)(const void*), const char* name)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(name_of((const char*)items + mid * size), name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && strcmp(name_of((const char*)items + lo * size), name) == 0 ? lo : n;
}
