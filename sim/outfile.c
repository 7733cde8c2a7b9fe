/* outfile: outputs through a temporary file renamed into place; same-file checks; signal cleanup. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "outfile.h"

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The registry the signal handler reads: fixed slots (no allocation in a handler), each filled
 * before its flag is set. The owner is the process that registered it: a forked child inherits
 * its parent's slots but must neither remove its files nor wait for its children. */
#define SS_NTEMPS 32
#define SS_NCHILDREN 1024

typedef struct temp_slot {
  volatile sig_atomic_t used;
  pid_t owner;
  char path[PATH_MAX];
} temp_slot;

typedef struct child_slot {
  volatile sig_atomic_t used;
  pid_t owner;
  pid_t pid;
} child_slot;

static temp_slot temps[SS_NTEMPS];
static child_slot children[SS_NCHILDREN];
static const char* prog_name;
static pid_t main_pid;

struct ss_outfile {
  FILE* f;
  char* path;   /* the output as given, for errors */
  char* target; /* the file renamed over (links resolved), NULL when written directly */
  char* temp;   /* the temporary file, NULL when written directly */
  const char* what;
  int slot;
};

void ss_outfile_block(sigset_t* old)
{
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  sigprocmask(SIG_BLOCK, &set, old);
}

void ss_outfile_unblock(const sigset_t* old)
{
  sigprocmask(SIG_SETMASK, old, NULL);
}

/* Fill slot i of a registry with what (a path, a pid) for this process; its flag last. */
typedef int (*slot_free_fn)(int i);
typedef void (*slot_fill_fn)(int i, const void* what);

static int temp_free(int i)
{
  return !temps[i].used;
}

static void temp_fill(int i, const void* what)
{
  strcpy(temps[i].path, what);
  temps[i].owner = getpid();
  atomic_signal_fence(memory_order_seq_cst);
  temps[i].used = 1;
}

static int child_free(int i)
{
  return !children[i].used;
}

static void child_fill(int i, const void* what)
{
  children[i].pid = *(const pid_t*)what;
  children[i].owner = getpid();
  atomic_signal_fence(memory_order_seq_cst);
  children[i].used = 1;
}

/* The first free slot of n, filled with what, signals blocked meanwhile; -1 when all are taken. */
static int claim(int n, slot_free_fn is_free, slot_fill_fn fill, const void* what)
{
  sigset_t old;
  ss_outfile_block(&old);
  int slot = -1;
  for (int i = 0; i < n && slot < 0; i++)
    if (is_free(i)) {
      fill(i, what);
      slot = i;
    }
  ss_outfile_unblock(&old);
  return slot;
}

int ss_outfile_guard(const char* path)
{
  return strlen(path) < PATH_MAX ? claim(SS_NTEMPS, temp_free, temp_fill, path) : -1;
}

void ss_outfile_forget(int slot)
{
  if (slot >= 0 && slot < SS_NTEMPS)
    temps[slot].used = 0;
}

int ss_outfile_child(pid_t pid)
{
  return claim(SS_NCHILDREN, child_free, child_fill, &pid);
}

void ss_outfile_child_done(int slot)
{
  if (slot >= 0 && slot < SS_NCHILDREN)
    children[slot].used = 0;
}

/* Remove this process's temporary files (async-signal-safe). */
static void remove_temps(pid_t me)
{
  for (int i = 0; i < SS_NTEMPS; i++)
    if (temps[i].used && temps[i].owner == me) {
      unlink(temps[i].path);
      temps[i].used = 0;
    }
}

/* End this process's children: SIGTERM (they clean up after themselves), SIGKILL for the ones
 * still there after 2 s, and reap them all (async-signal-safe). */
static void end_children(pid_t me)
{
  int left = 0;
  for (int i = 0; i < SS_NCHILDREN; i++)
    if (children[i].used && children[i].owner == me) {
      kill(children[i].pid, SIGTERM);
      left++;
    }
  struct timespec tick = {0, 10 * 1000 * 1000};
  for (int round = 0; left && round < 200; round++) {
    left = 0;
    for (int i = 0; i < SS_NCHILDREN; i++)
      if (children[i].used && children[i].owner == me) {
        pid_t r = waitpid(children[i].pid, NULL, WNOHANG);
        if (r == children[i].pid || (r < 0 && errno != EINTR))
          children[i].used = 0;
        else
          left++;
      }
    if (left)
      nanosleep(&tick, NULL);
  }
  for (int i = 0; i < SS_NCHILDREN; i++)
    if (children[i].used && children[i].owner == me) {
      kill(children[i].pid, SIGKILL);
      waitpid(children[i].pid, NULL, 0);
      children[i].used = 0;
    }
}

static void say(const char* s)
{
  ssize_t n = write(2, s, strlen(s));
  (void)n; /* nothing to do about a stderr that cannot be written */
}

/* Not instrumented by AddressSanitizer: the signal may land while an actor runs on a stack of
 * SimGrid's, and ASan warns of the call to _exit (noreturn) from a stack it does not know. */
#if defined(__SANITIZE_ADDRESS__)
__attribute__((no_sanitize_address))
#endif
static void on_signal(int sig)
{
  int saved = errno;
  pid_t me = getpid();
  remove_temps(me);
  end_children(me);
  if (me == main_pid && prog_name) {
    say(prog_name);
    say(sig == SIGINT ? ": interrupted by SIGINT\n" : sig == SIGTERM ? ": interrupted by SIGTERM\n"
                                                                     : ": interrupted by SIGHUP\n");
  }
  errno = saved;
  _exit(128 + sig);
}

static void at_exit(void)
{
  remove_temps(getpid());
}

void ss_outfile_rearm(void)
{
  if (!prog_name)
    return;
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaddset(&sa.sa_mask, SIGHUP);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

void ss_outfile_signals(const char* prog)
{
  prog_name = prog;
  main_pid = getpid();
  atexit(at_exit);
  ss_err_on_exit(prog, at_exit);
  ss_outfile_rearm();
}

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
  ss_outfile_block(&old);
  int fd = mkstemp(f->temp);
  int e = errno;
  if (fd >= 0)
    f->slot = ss_outfile_guard(f->temp);
  ss_outfile_unblock(&old);
  if (fd < 0)
    return e;
  if (fchmod(fd, mode) || !(f->f = fdopen(fd, "w"))) {
    e = errno;
    close(fd);
    unlink(f->temp);
    ss_outfile_forget(f->slot);
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
  if (nameless || (exists && !S_ISREG(st.st_mode))) {
    /* /dev/null, a FIFO, a terminal: nothing to replace, and renaming over it is wrong. */
    if (!(f->f = fopen(path, "w")))
      e = errno ? errno : EIO;
  } else if (!(f->target = strdup(target))) {
    e = ENOMEM;
  } else {
    e = open_temp(f, exists ? (st.st_mode & 0777) : new_file_mode());
    /* A folder we may not create in, holding a file we may write: that file, in place (as
     * before; not atomic, but not refused). */
    if ((e == EACCES || e == EPERM) && exists && access(target, W_OK) == 0) {
      free(f->temp);
      f->temp = NULL;
      e = (f->f = fopen(path, "w")) ? 0 : errno;
    }
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
  ss_outfile_block(&old);
  fd = mkstemp(path);
  *slot = fd >= 0 ? ss_outfile_guard(path) : -1; /* removed by a signal too */
  ss_outfile_unblock(&old);
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
  ss_outfile_forget(slot);
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
    if (!e && f->temp && rename(f->temp, f->target))
      e = errno;
    if (e && f->temp)
      unlink(f->temp);
    ss_outfile_forget(f->slot);
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
    ss_outfile_forget(f->slot);
  }
  outfile_free(f);
}
