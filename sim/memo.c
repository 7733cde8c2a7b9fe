/* memo: values derived from a loaded input, kept for the next caller (memo.h). */
#include "memo.h"

#include "array.h"

#include <stdlib.h>
#include <string.h>

typedef struct entry {
  char* kind;
  char* key;
  void* value;
  void (*free_value)(void*);
  struct entry* next;
} entry;

struct ss_memo {
  entry* head;
};

ss_memo* ss_memo_new(void)
{
  return calloc(1, sizeof(ss_memo));
}

const void* ss_memo_get(const ss_memo* m, const char* kind, const char* key)
{
  for (const entry* e = m ? m->head : NULL; e; e = e->next)
    if (strcmp(e->kind, kind) == 0 && strcmp(e->key, key) == 0)
      return e->value;
  return NULL;
}

void ss_memo_put(ss_memo* m, const char* kind, const char* key, void* value, void (*free_value)(void*))
{
  entry* e = m ? calloc(1, sizeof(*e)) : NULL;
  if (e) {
    e->kind = strdup(kind);
    e->key = strdup(key);
  }
  if (!e || !e->kind || !e->key) {
    if (e)
      SS_FREE_ALL(e->kind, e->key, e);
    free_value(value);
    return;
  }
  e->value = value;
  e->free_value = free_value;
  e->next = m->head;
  m->head = e;
}

void ss_memo_clear(ss_memo* m)
{
  for (entry* e = m ? m->head : NULL; e;) {
    entry* next = e->next;
    e->free_value(e->value);
    free(e->kind);
    free(e->key);
    free(e);
    e = next;
  }
  if (m)
    m->head = NULL;
}

void ss_memo_free(ss_memo* m)
{
  ss_memo_clear(m);
  free(m);
}
