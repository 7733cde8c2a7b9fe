/* catalog: platforms and workloads by short name along a search path, and the list command. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "catalog.h"

#include "csv.h"

#include "platform.h"
#include "workload.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Compiled in by CMake: the installed data folder (absolute), the same relative to the installed
 * binary's folder, and the source and build trees (the repository's folders are searched only by a
 * binary that runs from its build tree, so that an installed one never depends on the sources). */
#ifndef SS_DATADIR
#define SS_DATADIR "/usr/local/share/stash-sim"
#endif
#ifndef SS_DATADIR_FROM_BIN
#define SS_DATADIR_FROM_BIN "../share/stash-sim"
#endif

/* A growable array of owned strings. */
typedef struct str_list {
  int n;
  int cap;
  char** v;
} str_list;

struct ss_catalog {
  str_list dirs[SS_CATALOG_KIND_COUNT];
  str_list resolved; /* the paths ss_catalog_resolve handed out */
};

static const char* const kind_dir[SS_CATALOG_KIND_COUNT] = {"platforms", "workloads"};
static const char* const kind_word[SS_CATALOG_KIND_COUNT] = {"platform", "workload"};
static const char* const list_key[SS_CATALOG_KIND_COUNT] = {"platforms", "workloads"}; /* of the listing's JSON */
/* Workloads named by their model: each name the generated file of the model at its native sequence
 * (calibration/gen_models.py names the files by model and sequence; --seq runs any other with the
 * kernel model). list workloads shows them. */
static const char* const workload_aliases[][2] = {{"llama2-7b", "llama2-7b-seq4096"},
                                                  {"llama2-13b", "llama2-13b-seq4096"},
                                                  {"llama2-70b", "llama2-70b-seq4096"},
                                                  {"llama3-8b", "llama3-8b-seq8192"},
                                                  {"llama3-70b", "llama3-70b-seq8192"}};
#define NALIASES (sizeof(workload_aliases) / sizeof(workload_aliases[0]))

/* File name endings of each kind, in lookup order. */
static const char* const kind_ext[SS_CATALOG_KIND_COUNT][3] = {{".xml", NULL}, {".json", ".json.gz", NULL}};

/* Append s (owned; freed on failure). Returns 0 or -1 when out of memory. */
static int list_push(str_list* l, char* s)
{
  if (!s)
    return -1;
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 8;
    char** v = realloc(l->v, (size_t)cap * sizeof(*v));
    if (!v) {
      free(s);
      return -1;
    }
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = s;
  return 0;
}

static void list_free(str_list* l)
{
  for (int i = 0; i < l->n; i++)
    free(l->v[i]);
  free(l->v);
  memset(l, 0, sizeof(*l));
}

/* "a/b" in a new string (a may be given with its length), or NULL when out of memory. */
static char* join(const char* a, size_t alen, const char* b)
{
  size_t blen = strlen(b);
  char* s = malloc(alen + blen + 2);
  if (s) {
    memcpy(s, a, alen);
    s[alen] = '/';
    memcpy(s + alen + 1, b, blen + 1);
  }
  return s;
}

/* Whether path names an existing file that is not a folder. */
static int is_file(const char* path)
{
  struct stat st;
  return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

/* Whether a short name's candidate path is there to be taken: a file, or a name that exists but
 * cannot be followed (a link in a loop, a dangling link, a folder without search permission), which
 * the reader then refuses naming the path and why, not "no platform of that name". */
static int is_there(const char* path)
{
  struct stat st;
  if (stat(path, &st) == 0)
    return !S_ISDIR(st.st_mode);
  return errno != ENOENT && errno != ENOTDIR ? 1 : lstat(path, &st) == 0;
}

/* Append the real path of the folder path (owned; freed here) to l unless it does not exist or is
 * there already. Returns 0 or -1 when out of memory. */
static int add_dir(str_list* l, char* path)
{
  if (!path)
    return -1;
  char* real = realpath(path, NULL);
  int enomem = !real && errno == ENOMEM;
  free(path);
  struct stat st;
  if (!real || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
    free(real);
    return enomem ? -1 : 0;
  }
  for (int i = 0; i < l->n; i++)
    if (strcmp(l->v[i], real) == 0) {
      free(real);
      return 0;
    }
  return list_push(l, real);
}

/* The folder of the running binary (a new string), or NULL when /proc/self/exe cannot be read. */
static char* exe_dir(void)
{
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0 || n >= (ssize_t)sizeof(buf) - 1)
    return NULL;
  buf[n] = '\0';
  char* slash = strrchr(buf, '/');
  if (!slash)
    return NULL;
  *slash = '\0';
  return strdup(buf[0] ? buf : "/");
}

/* Whether the folder dir lies in the build tree that this binary was built in. */
static int in_build_tree(const char* dir)
{
#ifdef SS_BUILD_DIR
  char* build = realpath(SS_BUILD_DIR, NULL);
  size_t n = build ? strlen(build) : 0;
  int in = build && dir && strncmp(dir, build, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
  free(build);
  return in;
#else
  (void)dir;
  return 0;
#endif
}

/* The folders of kind, in search order (ss_catalog_new). Returns 0 or -1 when out of memory. */
static int build_dirs(str_list* l, ss_catalog_kind kind, const char* bin_dir)
{
  const char* sub = kind_dir[kind];
  const char* env = getenv("STASH_SIM_PATH");
  for (const char* p = env; p && *p;) {
    const char* colon = strchr(p, ':');
    size_t len = colon ? (size_t)(colon - p) : strlen(p);
    if (len > 0 && (add_dir(l, join(p, len, sub)) || add_dir(l, strndup(p, len))))
      return -1;
    p = colon ? colon + 1 : p + len;
  }
#ifdef SS_SOURCE_DIR
  if (in_build_tree(bin_dir) && add_dir(l, join(SS_SOURCE_DIR, strlen(SS_SOURCE_DIR), sub)))
    return -1;
#endif
  if (bin_dir) {
    char* data = join(bin_dir, strlen(bin_dir), SS_DATADIR_FROM_BIN);
    int rc = data ? add_dir(l, join(data, strlen(data), sub)) : -1;
    free(data);
    if (rc)
      return -1;
  }
  return add_dir(l, join(SS_DATADIR, strlen(SS_DATADIR), sub));
}

int ss_catalog_new(ss_catalog** out, ss_err* err)
{
  ss_catalog* c = calloc(1, sizeof(*c));
  char* bin_dir = exe_dir();
  int rc = c ? SS_OK : SS_ENOMEM;
  for (int k = 0; k < SS_CATALOG_KIND_COUNT && rc == SS_OK; k++)
    if (build_dirs(&c->dirs[k], (ss_catalog_kind)k, bin_dir))
      rc = SS_ENOMEM;
  free(bin_dir);
  if (rc) {
    ss_catalog_free(c);
    return ss_err_nomem(err);
  }
  *out = c;
  return SS_OK;
}

void ss_catalog_free(ss_catalog* c)
{
  if (!c)
    return;
  for (int k = 0; k < SS_CATALOG_KIND_COUNT; k++)
    list_free(&c->dirs[k]);
  list_free(&c->resolved);
  free(c);
}

int ss_catalog_ndirs(const ss_catalog* c, ss_catalog_kind kind)
{
  return c->dirs[kind].n;
}

const char* ss_catalog_dir(const ss_catalog* c, ss_catalog_kind kind, int i)
{
  ss_assert(i >= 0 && i < c->dirs[kind].n);
  return c->dirs[kind].v[i];
}

/* The index in kind_ext[kind] of the ending of file name s, or -1 (a bare ending is no name). */
static int ext_index(ss_catalog_kind kind, const char* s)
{
  size_t n = strlen(s);
  for (int e = 0; kind_ext[kind][e]; e++) {
    size_t m = strlen(kind_ext[kind][e]);
    if (n > m && strcmp(s + n - m, kind_ext[kind][e]) == 0)
      return e;
  }
  return -1;
}

/* Look for the file name (with_ext) or for name plus each ending of kind in each folder in order.
 * Sets *path to a new string, or NULL when not found. Returns 0 or -1 when out of memory. */
static int search(const ss_catalog* c, ss_catalog_kind kind, const char* name, int with_ext, char** path)
{
  *path = NULL;
  const str_list* dirs = &c->dirs[kind];
  for (int i = 0; i < dirs->n; i++)
    for (int e = 0; with_ext ? e < 1 : kind_ext[kind][e] != NULL; e++) {
      const char* ext = with_ext ? "" : kind_ext[kind][e];
      size_t size = strlen(dirs->v[i]) + strlen(name) + strlen(ext) + 2;
      char* p = malloc(size);
      if (!p)
        return -1;
      snprintf(p, size, "%s/%s%s", dirs->v[i], name, ext);
      if (is_there(p)) {
        *path = p;
        return 0;
      }
      free(p);
    }
  return 0;
}

/* The folders of kind's search path, in order, separated by commas, into where[size]. */
static void dirs_text(const ss_catalog* c, ss_catalog_kind kind, char* where, size_t size)
{
  const str_list* dirs = &c->dirs[kind];
  size_t used = 0;
  where[0] = '\0';
  for (int i = 0; i < dirs->n && used < size; i++) {
    int w = snprintf(where + used, size - used, "%s%s", i ? ", " : "", dirs->v[i]);
    used += w > 0 ? (size_t)w : 0;
  }
}

/* The error of a short name found nowhere: what was looked for, and where. */
static int not_found(const ss_catalog* c, ss_catalog_kind kind, const char* name, ss_err* err)
{
  char files[512];
  size_t used = 0;
  files[0] = '\0';
  for (int e = 0; kind_ext[kind][e] && used < sizeof(files); e++) {
    int w = snprintf(files + used, sizeof(files) - used, "%s%s%s", e ? " or " : "", name, kind_ext[kind][e]);
    used += w > 0 ? (size_t)w : 0;
  }
  if (c->dirs[kind].n == 0)
    return ss_err_set(err, name, 0,
                      "no %s of that name (looked for %s, but no folder of $STASH_SIM_PATH or "
                      "installed data folder exists)",
                      kind_word[kind], files);
  char where[SS_ERR_MSG_MAX];
  dirs_text(c, kind, where, sizeof(where));
  return ss_err_set(err, name, 0, "no %s of that name (looked for %s in %s)", kind_word[kind], files, where);
}

int ss_catalog_resolve(ss_catalog* c, ss_catalog_kind kind, const char** arg, ss_err* err)
{
  const char* a = *arg;
  if (!a || !*a || strchr(a, '/') || strstr(a, "..") || is_file(a))
    return SS_OK;
  int with_ext = ext_index(kind, a) >= 0;
  char* path = NULL;
  if (search(c, kind, a, with_ext, &path))
    return ss_err_nomem(err);
  for (size_t k = 0; !path && !with_ext && kind == SS_CATALOG_WORKLOAD && k < NALIASES; k++)
    if (strcmp(a, workload_aliases[k][0]) == 0 && search(c, kind, workload_aliases[k][1], 0, &path))
      return ss_err_nomem(err);
  if (!path)
    return with_ext ? SS_OK : not_found(c, kind, a, err);
  if (list_push(&c->resolved, path))
    return ss_err_nomem(err);
  *arg = path;
  return SS_OK;
}

/* One file met while listing: its place in search order breaks ties between equal names. */
typedef struct found {
  ss_catalog_entry e;
  int dir;
  int ext;
} found;

static int found_cmp(const void* a, const void* b)
{
  const found* x = a;
  const found* y = b;
  int c = strcmp(x->e.name, y->e.name);
  if (c)
    return c;
  if (x->dir != y->dir)
    return x->dir < y->dir ? -1 : 1;
  return (x->ext > y->ext) - (x->ext < y->ext);
}

/* Append the files of kind in folder dir (the d-th searched) to *all. Returns 0 or -1 when out of memory. */
static int scan_dir(const char* dir, ss_catalog_kind kind, int d, found** all, int* n, int* cap)
{
  DIR* h = opendir(dir);
  if (!h)
    return 0;
  int rc = 0;
  struct dirent* de;
  while (rc == 0 && (de = readdir(h)) != NULL) {
    int e = ext_index(kind, de->d_name);
    if (e < 0 || de->d_name[0] == '.')
      continue;
    char* path = join(dir, strlen(dir), de->d_name);
    if (path && !is_file(path)) {
      free(path);
      continue;
    }
    char* name = path ? strndup(de->d_name, strlen(de->d_name) - strlen(kind_ext[kind][e])) : NULL;
    if (*n == *cap) {
      int ncap = *cap ? 2 * *cap : 32;
      found* v = name ? realloc(*all, (size_t)ncap * sizeof(*v)) : NULL;
      if (v) {
        *all = v;
        *cap = ncap;
      }
    }
    if (!name || *n == *cap) {
      free(name);
      free(path);
      rc = -1;
      break;
    }
    (*all)[(*n)++] = (found){{name, path}, d, e};
  }
  closedir(h);
  return rc;
}

void ss_catalog_entries_free(ss_catalog_entry* e, int n)
{
  for (int i = 0; e && i < n; i++) {
    free(e[i].name);
    free(e[i].path);
  }
  free(e);
}

/* The files of kind in folders dirs[0..ndirs), sorted by short name, the first in folder order
 * winning (ss_catalog_entries). */
static int entries_of(const char* const* dirs, int ndirs, ss_catalog_kind kind, ss_catalog_entry** out, int* n,
                      ss_err* err)
{
  found* all = NULL;
  int nall = 0, cap = 0;
  for (int d = 0; d < ndirs; d++)
    if (scan_dir(dirs[d], kind, d, &all, &nall, &cap)) {
      for (int i = 0; i < nall; i++) {
        free(all[i].e.name);
        free(all[i].e.path);
      }
      free(all);
      return ss_err_nomem(err);
    }
  if (nall > 1)
    qsort(all, (size_t)nall, sizeof(*all), found_cmp);
  ss_catalog_entry* e = calloc(nall > 0 ? (size_t)nall : 1, sizeof(*e));
  int kept = 0;
  for (int i = 0; i < nall; i++) {
    if (e && (kept == 0 || strcmp(e[kept - 1].name, all[i].e.name) != 0)) {
      e[kept++] = all[i].e;
    } else {
      free(all[i].e.name);
      free(all[i].e.path);
    }
  }
  free(all);
  if (!e)
    return ss_err_nomem(err);
  *out = e;
  *n = kept;
  return SS_OK;
}

int ss_catalog_entries(const ss_catalog* c, ss_catalog_kind kind, ss_catalog_entry** out, int* n, ss_err* err)
{
  return entries_of((const char* const*)c->dirs[kind].v, c->dirs[kind].n, kind, out, n, err);
}

int ss_catalog_folder(const char* dir, ss_catalog_kind kind, ss_catalog_entry** out, int* n, ss_err* err)
{
  return entries_of(&dir, 1, kind, out, n, err);
}

/* What the list shows of one file, read by its reader. */
typedef struct row {
  const ss_catalog_entry* e;
  int ok;
  char what[256];      /* platform: the instance type; workload: the model */
  char gpus[384];      /* platform: "8 x MODEL" */
  char gpu_model[256]; /* platform: GPU 0's model */
  int count;           /* platform: GPUs; workload: batch per GPU */
  double price_usd_per_h;
  char error[1024]; /* the reader's first error when !ok */
} row;

static void row_load(ss_catalog_kind kind, const ss_catalog_entry* e, row* r)
{
  memset(r, 0, sizeof(*r));
  r->e = e;
  ss_err err;
  ss_err_clear(&err);
  if (kind == SS_CATALOG_PLATFORM) {
    ss_platform* p = NULL;
    if (ss_platform_load(e->path, &p, &err) == SS_OK && p->ngpus > 0) {
      int mixed = 0;
      for (int g = 1; g < p->ngpus; g++)
        mixed |= strcmp(p->gpus[g].model, p->gpus[0].model) != 0;
      r->ok = 1;
      snprintf(r->what, sizeof(r->what), "%s", p->instance_type);
      snprintf(r->gpu_model, sizeof(r->gpu_model), "%s", p->gpus[0].model);
      snprintf(r->gpus, sizeof(r->gpus), mixed ? "%d GPUs of mixed models (GPU 0: %s)" : "%d x %s", p->ngpus,
               p->gpus[0].model);
      r->count = p->ngpus;
      r->price_usd_per_h = p->price_usd_per_h;
    }
    ss_platform_free(p);
  } else {
    ss_workload* w = NULL;
    if (ss_workload_load(e->path, &w, &err) == SS_OK) {
      r->ok = 1;
      snprintf(r->what, sizeof(r->what), "%s", w->model);
      r->count = w->batch_per_gpu;
    }
    ss_workload_free(w);
  }
  if (!r->ok)
    ss_err_format(&err, r->error, sizeof(r->error));
}

static int max_int(int a, int b)
{
  return a > b ? a : b;
}

/* Aligned columns: name, instance type, GPUs, price, path (name, model, batch, path). */
static void write_table(FILE* f, ss_catalog_kind kind, const row* rows, int n)
{
  int wn = 0, ww = 0, wg = 0, wc = 0;
  for (int i = 0; i < n; i++) {
    char count[16];
    wn = max_int(wn, (int)strlen(rows[i].e->name));
    if (!rows[i].ok)
      continue;
    ww = max_int(ww, (int)strlen(rows[i].what));
    wg = max_int(wg, (int)strlen(rows[i].gpus));
    wc = max_int(wc, snprintf(count, sizeof(count), "%d", rows[i].count));
  }
  for (int i = 0; i < n; i++) {
    const row* r = &rows[i];
    if (!r->ok)
      fprintf(f, "%-*s  (unreadable: %s)\n", wn, r->e->name, r->error);
    else if (kind == SS_CATALOG_PLATFORM)
      fprintf(f, "%-*s  %-*s  %-*s  %7.2f $/h  %s\n", wn, r->e->name, ww, r->what, wg, r->gpus, r->price_usd_per_h,
              r->e->path);
    else
      fprintf(f, "%-*s  %-*s  batch %*d  %s\n", wn, r->e->name, ww, r->what, wc, r->count, r->e->path);
  }
  for (size_t k = 0; kind == SS_CATALOG_WORKLOAD && k < NALIASES; k++)
    for (int i = 0; i < n; i++)
      if (rows[i].ok && strcmp(rows[i].e->name, workload_aliases[k][1]) == 0)
        fprintf(f, "%-*s  = %s, the model at its own sequence (--seq runs another)\n", wn, workload_aliases[k][0],
                workload_aliases[k][1]);
}

/* {"platforms": [{"name": ..., ...}, ...]}; every row has every key, null where an unreadable file
 * has no value, so that the CSV made from it has one header. */
static void write_json(FILE* f, ss_catalog_kind kind, const row* rows, int n)
{
  fprintf(f, "{\"%s\": [", list_key[kind]);
  for (int i = 0; i < n; i++) {
    const row* r = &rows[i];
    fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
    ss_json_string(f, r->e->name);
    fprintf(f, kind == SS_CATALOG_PLATFORM ? ", \"instance_type\": " : ", \"model\": ");
    r->ok ? ss_json_string(f, r->what) : (void)fputs("null", f);
    if (kind == SS_CATALOG_PLATFORM) {
      fprintf(f, r->ok ? ", \"gpus\": %d, \"gpu_model\": " : ", \"gpus\": null, \"gpu_model\": ", r->count);
      r->ok ? ss_json_string(f, r->gpu_model) : (void)fputs("null", f);
      fprintf(f, r->ok ? ", \"price_usd_per_h\": %.10g" : ", \"price_usd_per_h\": null", r->price_usd_per_h);
    } else {
      fprintf(f, r->ok ? ", \"batch_per_gpu\": %d" : ", \"batch_per_gpu\": null", r->count);
    }
    fprintf(f, ", \"path\": ");
    ss_json_string(f, r->e->path);
    fprintf(f, ", \"error\": ");
    r->ok ? (void)fputs("null", f) : ss_json_string(f, r->error);
    if (kind == SS_CATALOG_WORKLOAD) {
      fprintf(f, ", \"aliases\": [");
      for (size_t k = 0, first = 1; k < NALIASES; k++)
        if (strcmp(r->e->name, workload_aliases[k][1]) == 0) {
          fprintf(f, "%s\"%s\"", first ? "" : ", ", workload_aliases[k][0]);
          first = 0;
        }
      fputc(']', f);
    }
    fputc('}', f);
  }
  fprintf(f, "%s]}\n", n ? "\n" : "");
}

/* The listing for a writer of csv.c's: its kind and rows. */
typedef struct listing {
  ss_catalog_kind kind;
  const row* rows;
  int n;
} listing;

static void json_listing(FILE* f, const void* arg)
{
  const listing* l = arg;
  write_json(f, l->kind, l->rows, l->n);
}

void ss_catalog_write_dirs(const ss_catalog* c, FILE* f)
{
  for (int k = 0; k < SS_CATALOG_KIND_COUNT; k++) {
    fprintf(f, "\n%s folders searched, in order:\n", kind_word[k]);
    if (ss_catalog_ndirs(c, (ss_catalog_kind)k) == 0)
      fprintf(f, "  (none)\n");
    for (int i = 0; i < ss_catalog_ndirs(c, (ss_catalog_kind)k); i++)
      fprintf(f, "  %s\n", ss_catalog_dir(c, (ss_catalog_kind)k, i));
  }
}

int ss_catalog_list(const ss_catalog* c, ss_catalog_kind kind, ss_format fmt, FILE* out, ss_err* err)
{
  ss_catalog_entry* e = NULL;
  int n = 0;
  row* rows = NULL;
  int rc = ss_catalog_entries(c, kind, &e, &n, err);
  /* Nothing to list is said, not an empty table: the search path misses the folders. */
  if (!rc && n == 0) {
    char where[SS_ERR_MSG_MAX];
    dirs_text(c, kind, where, sizeof(where));
    rc = ss_err_set(err, NULL, 0, "no %s to list: %s%s (set $STASH_SIM_PATH to the folders that hold them)",
                    kind == SS_CATALOG_PLATFORM ? "instance file" : "workload",
                    c->dirs[kind].n ? "none in " : "no folder of $STASH_SIM_PATH or installed data folder exists",
                    where);
  }
  if (!rc && !(rows = calloc(n > 0 ? (size_t)n : 1, sizeof(*rows))))
    rc = ss_err_nomem(err);
  for (int i = 0; !rc && i < n; i++)
    row_load(kind, &e[i], &rows[i]);
  if (!rc && fmt == SS_FORMAT_TABLE)
    write_table(out, kind, rows, n);
  else if (!rc && fmt == SS_FORMAT_JSON)
    write_json(out, kind, rows, n);
  else if (!rc && (rc = ss_csv_write_from(out, json_listing, &(listing){kind, rows, n}, list_key[kind])) == SS_ENOMEM)
    ss_err_nomem(err);
  free(rows);
  ss_catalog_entries_free(e, n);
  if (!rc && ferror(out))
    rc = SS_EIO;
  return rc;
}
