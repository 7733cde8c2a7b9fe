/* outfile: outputs through a temporary file renamed into place; same-file checks. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "outfile.h"

#include "cleanup.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ss_outfile {
  FILE* f;
  char* path;   /* the output as given, for errors */
  char* target; /* the file renamed over (links resolved), NULL when written directly */
  char* temp;   /* the temporary file, NULL when written directly */
  const char* what;
  int slot; /* its temporary file's place in cleanup.h's registry */
};

/* out = the first dirlen bytes of dir, a '/' when dirlen > 0, then name; 0, or -1 when too long
 * (out is then left as it was). */
static int join(char* out, size_t size, const char* dir, size_t dirlen, const char* name)
{
  size_t n = strlen(name);
  if (dirlen + 1 + n + 1 > size)
    return -1;
  char buf[PATH_MAX];
  memcpy(buf, dir, dirlen);
  size_t at = dirlen;
  if (dirlen > 0 && dir[dirlen - 1] != '/')
    buf[at++] = '/';
  memcpy(buf + at, name, n + 1);
  memcpy(out, buf, at + n + 1);
  return 0;
}

/* path with its last component's links followed (as far as they lead, 40 hops at most). */
static void follow_links(const char* path, char* out, size_t size)
{
  if (join(out, size, "", 0, path))
    out[0] = '\0';
  for (int hop = 0; hop < 40; hop++) {
    struct stat st;
    char link[PATH_MAX];
    if (lstat(out, &st) || !S_ISLNK(st.st_mode))
      return;
    ssize_t n = readlink(out, link, sizeof(link) - 1);
    if (n < 0)
      return;
    link[n] = '\0';
    const char* slash = strrchr(out, '/');
    size_t dirlen = link[0] == '/' || !slash ? 0 : (size_t)(slash - out) + 1;
    if (join(out, size, out, dirlen, link))
      return;
  }
}

/* The name a write to path lands on: the file a link points to, its folder resolved. */
static void canonical(const char* path, char* out, size_t size)
{
  char cur[PATH_MAX];
  follow_links(path, cur, sizeof(cur));
  char* real = realpath(cur, NULL);
  if (real && join(out, size, "", 0, real) == 0) {
    free(real);
    return;
  }
  free(real);
  const char* slash = strrchr(cur, '/');
  char dir[PATH_MAX];
  if (!slash)
    strcpy(dir, ".");
  else if (join(dir, sizeof(dir), "", 0, cur) == 0)
    dir[slash == cur ? 1 : slash - cur] = '\0';
  real = realpath(dir, NULL);
  if (!real || join(out, size, real, strlen(real), slash ? slash + 1 : cur))
    join(out, size, "", 0, cur);
  free(real);
}

static int is_stdout(const char* path)
{
  return !path || strcmp(path, "-") == 0;
}

int ss_outfile_same(const char* a, const char* b)
{
  if (is_stdout(a) || is_stdout(b))
    return 0;
  struct stat sa, sb;
  int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
  if (ea && eb)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea != eb)
    return 0;
  char ca[PATH_MAX], cb[PATH_MAX];
  canonical(a, ca, sizeof(ca));
  canonical(b, cb, sizeof(cb));
  return strcmp(ca, cb) == 0;
}

/* The permissions of a new file: 0666 less the umask (read without changing it for good). */
static mode_t new_file_mode(void)
{
  mode_t mask = umask(022);
  umask(mask);
  return 0666 & ~mask;
}

static void outfile_free(ss_outfile* f)
{
  if (f) {
    free(f->path);
    free(f->target);
    free(f->temp);
  }
  free(f);
}

static int io_error(ss_err* err, const char* path, const char* what, int e)
{
  ss_err_set(err, path, 0, "cannot write the %s: %s", what, strerror(e ? e : EIO));
  return ss_err_kind(err, SS_EIO);
}

/* The folder of path (its text up to the last '/', "/" for a file at the root, "." for none) into
 * dir[size]. */
static void folder_of(const char* path, char* dir, size_t size)
{
  const char* slash = strrchr(path, '/');
  if (!slash)
    snprintf(dir, size, ".");
  else
    snprintf(dir, size, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/* No temporary file could be made next to f->target (mkstemp's errno e): why, from the folder
 * itself, as e alone misnames it (/proc gives ENOENT for a folder that exists); in_place is the
 * errno of writing the existing file in place instead, or 0 when that was not tried. */
static int temp_error(ss_err* err, const ss_outfile* f, int e, int in_place)
{
  /* The folder as the path names it, unless a link leads elsewhere: then the one written in. */
  char dir[PATH_MAX], cur[PATH_MAX];
  follow_links(f->path, cur, sizeof(cur));
  folder_of(strcmp(cur, f->path) == 0 ? f->path : f->target, dir, sizeof(dir));
  struct stat st;
  int gone = stat(dir, &st) ? errno : 0;
  if (gone == ENOENT)
    ss_err_set(err, f->path, 0,
               "cannot write the %s: the folder '%s' does not exist: create it, or give a path in "
               "a folder that does",
               f->what, dir);
  else if (gone == ENOTDIR || (!gone && !S_ISDIR(st.st_mode)))
    ss_err_set(err, f->path, 0,
               "cannot write the %s: '%s' is not a folder (a part of the path is a file): give a path in a "
               "folder",
               f->what, dir);
  else if (gone)
    ss_err_set(err, f->path, 0, "cannot write the %s: its folder '%s': %s", f->what, dir, strerror(gone));
  else
    ss_err_set(err, f->path, 0,
               "cannot write the %s: no file can be created in the folder '%s' (%s)%s%s%s: give a path in a "
               "folder you can write",
               f->what, dir,
               e == ENOENT  ? "it takes no new files"
               : e == EROFS ? "a read-only file system"
                            : strerror(e),
               in_place ? ", and the file cannot be written in place (" : "", in_place ? strerror(in_place) : "",
               in_place ? ")" : "");
  return ss_err_kind(err, SS_EIO);
}

/* Create the temporary file next to f->target, with the permissions mode. */
static int open_temp(ss_outfile* f, mode_t mode)
{
  const char* slash = strrchr(f->target, '/');
  int dirlen = slash ? (int)(slash - f->target) + 1 : 0;
  size_t size = strlen(f->target) + 16;
  if (!(f->temp = malloc(size)))
    return ENOMEM;
  snprintf(f->temp, size, "%.*s.%s.XXXXXX", dirlen, f->target, f->target + dirlen);
  sigset_t old;
  ss_cleanup_block(&old);
  int fd = mkstemp(f->temp);
  int e = errno;
  if (fd >= 0)
    f->slot = ss_cleanup_guard(f->temp);
  ss_cleanup_unblock(&old);
  if (fd < 0)
    return e;
  if (fchmod(fd, mode) || !(f->f = fdopen(fd, "w"))) {
    e = errno;
    close(fd);
    unlink(f->temp);
    ss_cleanup_forget(f->slot);
    return e;
  }
  return 0;
}

int ss_outfile_open(const char* path, const char* what, ss_outfile** out, ss_err* err)
{
  ss_outfile* f = calloc(1, sizeof(*f));
  if (!f || !(f->path = strdup(is_stdout(path) ? "stdout" : path))) {
    free(f);
    return ss_err_nomem(err);
  }
  f->what = what;
  f->slot = -1;
  if (is_stdout(path)) {
    f->f = stdout;
    *out = f;
    return SS_OK;
  }
  char target[PATH_MAX];
  canonical(path, target, sizeof(target));
  struct stat st, via;
  int exists = stat(target, &st) == 0;
  /* A link that leads to a file with no name of its own (/proc/self/fd/N of a memfd or of a
   * deleted file) cannot be replaced by a rename: written directly, as a device is. */
  int nameless = stat(path, &via) == 0 && (!exists || st.st_dev != via.st_dev || st.st_ino != via.st_ino);
  int e = 0;
  errno = 0;
  if (exists && S_ISDIR(st.st_mode)) {
    ss_err_set(err, path, 0, "cannot write the %s: '%s' is a folder: give the path of a file", what, path);
    outfile_free(f);
    return ss_err_kind(err, SS_EIO);
  }
  if (nameless || (exists && !S_ISREG(st.st_mode))) {
    /* /dev/null, a FIFO, a terminal: nothing to replace, and renaming over it is wrong. */
    if (!(f->f = fopen(path, "w")))
      e = errno ? errno : EIO;
  } else if (!(f->target = strdup(target))) {
    e = ENOMEM;
  } else {
    int in_place = 0, made = open_temp(f, exists ? (st.st_mode & 0777) : new_file_mode());
    /* A folder we may not create in, holding a file we may write: that file, in place (as
     * before; not atomic, but not refused). */
    if ((made == EACCES || made == EPERM) && exists && access(target, W_OK) == 0) {
      free(f->temp);
      f->temp = NULL;
      in_place = (f->f = fopen(path, "w")) ? 0 : errno;
      made = in_place ? made : 0;
    }
    if (made && made != ENOMEM) {
      temp_error(err, f, made, in_place);
      outfile_free(f);
      return SS_EIO;
    }
    e = made;
  }
  if (e) {
    outfile_free(f);
    return e == ENOMEM ? ss_err_nomem(err) : io_error(err, path, what, e);
  }
  *out = f;
  return SS_OK;
}

int ss_outfile_scratch(const char* what, char* path, size_t size, FILE** f, int* slot, ss_err* err)
{
  const char* dir = getenv("TMPDIR");
  dir = dir && *dir ? dir : "/tmp";
  *f = NULL;
  *slot = -1;
  int e = ENAMETOOLONG, fd = -1;
  if ((size_t)snprintf(path, size, "%s/stash-sim-XXXXXX", dir) >= size)
    goto fail;
  sigset_t old;
  ss_cleanup_block(&old);
  fd = mkstemp(path);
  *slot = fd >= 0 ? ss_cleanup_guard(path) : -1; /* removed by a signal too */
  ss_cleanup_unblock(&old);
  *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (*f)
    return SS_OK;
  e = errno;
fail:
  if (fd >= 0) {
    close(fd);
    ss_outfile_scratch_done(path, *slot);
  }
  ss_err_set(err, NULL, 0, "cannot create a temporary %s file in %s: %s", what, dir, strerror(e));
  return ss_err_kind(err, SS_EIO);
}

void ss_outfile_scratch_done(const char* path, int slot)
{
  unlink(path);
  ss_cleanup_forget(slot);
}

FILE* ss_outfile_stream(const ss_outfile* f)
{
  return f->f;
}

const char* ss_outfile_temp(const ss_outfile* f)
{
  return f->temp;
}

int ss_outfile_commit(ss_outfile* f, ss_err* err)
{
  if (!f)
    return SS_OK;
  errno = 0;
  int e = 0;
  if (f->f == stdout) {
    if (fflush(stdout) || ferror(stdout))
      e = errno ? errno : EIO;
  } else {
    if (fflush(f->f) || ferror(f->f))
      e = errno ? errno : EIO;
    /* fsync: a rename that lands before the data would leave an empty file after a crash. Not
     * every file supports it (EINVAL): then the rename is as good as it gets. */
    if (!e && f->temp && fsync(fileno(f->f)) && errno != EINVAL && errno != EROFS)
      e = errno;
    if (fclose(f->f) && !e)
      e = errno ? errno : EIO;
    if (!e && f->temp && rename(f->temp, f->target)) {
      /* Written whole, but not put in place: said so, as the write itself went well. */
      e = errno;
      ss_err_set(err, f->path, 0, "cannot write the %s: the file written cannot replace it: %s", f->what, strerror(e));
    }
    if (e && f->temp)
      unlink(f->temp);
    ss_cleanup_forget(f->slot);
  }
  int rc = e ? io_error(err, f->path, f->what, e) : SS_OK;
  outfile_free(f);
  return rc;
}

void ss_outfile_abort(ss_outfile* f)
{
  if (!f)
    return;
  if (f->f == stdout) {
    fflush(stdout);
  } else {
    fclose(f->f);
    if (f->temp)
      unlink(f->temp);
    ss_cleanup_forget(f->slot);
  }
  outfile_free(f);
}
