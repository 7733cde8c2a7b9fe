/* inputs: every file a command reads, for the same-file check (inputs.h). */
#include "inputs.h"

#include "err.h"
#include "outfile.h"

#include <stdlib.h>
#include <string.h>

int ss_inputs_add(ss_inputs* in, const char* what, const char* path)
{
  if (!path || !*path || strcmp(path, "-") == 0)
    return SS_OK;
  if (in->n == in->cap) {
    int cap = in->cap ? 2 * in->cap : 8;
    ss_input* v = realloc(in->v, sizeof(*v) * (size_t)cap);
    if (!v)
      return SS_ENOMEM;
    in->v = v;
    in->cap = cap;
  }
  ss_input* e = &in->v[in->n];
  e->what = strdup(what);
  e->path = strdup(path);
  if (!e->what || !e->path) {
    free(e->what);
    free(e->path);
    return SS_ENOMEM;
  }
  in->n++;
  return SS_OK;
}

const ss_input* ss_inputs_find(const ss_inputs* in, const char* path)
{
  for (int i = 0; path && i < in->n; i++)
    if (ss_outfile_same(path, in->v[i].path))
      return &in->v[i];
  return NULL;
}

void ss_inputs_free(ss_inputs* in)
{
  for (int i = 0; i < in->n; i++) {
    free(in->v[i].what);
    free(in->v[i].path);
  }
  free(in->v);
  *in = (ss_inputs){0};
}
