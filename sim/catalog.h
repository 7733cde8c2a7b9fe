/* catalog: find platforms and workloads by short name along a search path, and list them. */
#ifndef SS_CATALOG_H
#define SS_CATALOG_H

#include "err.h"
#include "option.h"

#include <stddef.h>
#include <stdio.h>

/* What an argument names: an instance file (NAME.xml) or a workload (NAME.json or NAME.json.gz). */
typedef enum ss_catalog_kind { SS_CATALOG_PLATFORM, SS_CATALOG_WORKLOAD, SS_CATALOG_KIND_COUNT } ss_catalog_kind;

/* The search path of each kind and the paths it resolved (opaque). */
typedef struct ss_catalog ss_catalog;

/* One file of the catalogue: its short name (the file name without .xml, .json or .json.gz) and
 * its path (absolute when found along the search path). */
typedef struct ss_catalog_entry {
  char* name;
  char* path;
} ss_catalog_entry;

/* Build the search path, in this order, keeping only folders that exist (each once, by its real
 * path): for each folder DIR of $STASH_SIM_PATH (colon-separated), DIR/platforms (or DIR/workloads)
 * then DIR; the source tree's platforms/ (workloads/) when the running binary lies in the build
 * tree it was built in; the installed data folder found from the binary's own location
 * (BINDIR/../share/stash-sim/platforms); the data folder compiled in (CMAKE_INSTALL_FULL_DATADIR).
 * On success *out owns a new catalog (free with ss_catalog_free); returns SS_ENOMEM with err set
 * when out of memory. */
int ss_catalog_new(ss_catalog** out, ss_err* err);

void ss_catalog_free(ss_catalog* c);

/* The folders searched for kind, in order (borrowed, absolute). */
int ss_catalog_ndirs(const ss_catalog* c, ss_catalog_kind kind);
const char* ss_catalog_dir(const ss_catalog* c, ss_catalog_kind kind, int i);

/* Resolve the command-line argument *arg of kind in place. An argument that is NULL, empty, holds a
 * '/' or "..", or names an existing file that is not a folder is a path and stays. An argument that
 * ends in the kind's extension (.xml; .json or .json.gz) is looked for as that file name along the
 * search path and stays as given when not found (so that the reader says it cannot open it). Any
 * other is a short name NAME, looked for as NAME.xml (NAME.json, then NAME.json.gz) in each folder
 * in order; not found, returns SS_EINPUT with an error naming NAME and the folders searched. A
 * replaced *arg points to a path owned by c (valid until ss_catalog_free). */
int ss_catalog_resolve(ss_catalog* c, ss_catalog_kind kind, const char** arg, ss_err* err);

/* Every file of kind along the search path, sorted by short name, one per name: the first in search
 * order wins (NAME.json before NAME.json.gz in one folder). On success *out owns an array of *n
 * entries (free with ss_catalog_entries_free); returns SS_ENOMEM with err set when out of memory.
 * Folders that cannot be read are skipped. */
int ss_catalog_entries(const ss_catalog* c, ss_catalog_kind kind, ss_catalog_entry** out, int* n, ss_err* err);

/* The files of kind in the one folder dir, as ss_catalog_entries lists them (stash-sim plan
 * --platforms DIR); a folder that cannot be read gives none. */
int ss_catalog_folder(const char* dir, ss_catalog_kind kind, ss_catalog_entry** out, int* n, ss_err* err);

void ss_catalog_entries_free(ss_catalog_entry* e, int n);

/* "stash-sim list platforms|workloads": load each file of the catalogue of kind with its reader
 * and write one line (row, object) per file to out in format fmt: a platform's short name,
 * instance type, GPU count x model, price per hour and path; a workload's short name, model,
 * batch per GPU and path; a file that does not load, its first error. Returns 0, SS_ENOMEM (err
 * set) or SS_EIO when out could not be written. */
int ss_catalog_list(const ss_catalog* c, ss_catalog_kind kind, ss_format fmt, FILE* out, ss_err* err);

/* The folders searched, by kind, for --help. */
void ss_catalog_write_dirs(const ss_catalog* c, FILE* f);

#endif
