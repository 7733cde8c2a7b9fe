/* proc: child processes: functions run in forked children, and programs run with their output captured. */
#include "proc.h"

#include "array.h"
#include "cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char* ss_proc_strerror(int start)
{
  return start == SS_PROC_EPIPE ? "pipe failed" : start == SS_PROC_EFORK ? "fork failed" : "no error";
}

static ss_proc_exit exit_of(int status)
{
  ss_proc_exit how = {WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0};
  return how;
}

int ss_proc_start(ss_proc* p, int flags, ss_proc_fn fn, void* arg)
{
  int fds[2];
  if (pipe(fds))
    return SS_PROC_EPIPE;
  fflush(stdout);
  fflush(stderr);
  /* No signal between the fork and the registration: a signal ends the registered children. */
  sigset_t old;
  ss_cleanup_block(&old);
  pid_t pid = fork();
  if (pid == 0) {
    ss_cleanup_unblock(&old);
    close(fds[0]);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, 1);
      if (null != 1)
        close(null);
    }
    if (flags & SS_PROC_STDERR)
      dup2(fds[1], 2);
    _exit(fn(arg, fds[1]));
  }
  close(fds[1]);
  p->slot = pid > 0 ? ss_cleanup_child(pid) : -1;
  ss_cleanup_unblock(&old);
  if (pid < 0) {
    close(fds[0]);
    return SS_PROC_EFORK;
  }
  p->pid = pid;
  p->fd = fds[0];
  return 0;
}

void ss_proc_finish(ss_proc* p, void* buf, size_t size, size_t* got, ss_proc_exit* how)
{
  /* Read to the end, so that a child that says more than size bytes does not block on the pipe. */
  char chunk[4096];
  size_t n = 0;
  ssize_t k;
  while ((k = read(p->fd, chunk, sizeof(chunk))) > 0) {
    size_t take = (size_t)k < size - n ? (size_t)k : size - n;
    memcpy((char*)buf + n, chunk, take);
    n += take;
  }
  close(p->fd);
  *got = n;
  int status = 0;
  waitpid(p->pid, &status, 0);
  ss_cleanup_child_done(p->slot);
  *how = exit_of(status);
}

/* One child of ss_proc_map: its work, and the buffer of its message (the child's own copy after
 * the fork). */
typedef struct map_call {
  ss_proc_work_fn work;
  void* ctx;
  int i;
  void* msg;
  size_t size;
} map_call;

static int map_child(void* arg, int fd)
{
  map_call* c = arg;
  memset(c->msg, 0, c->size);
  c->work(c->ctx, c->i, c->msg);
  ssize_t n = write(fd, c->msg, c->size);
  return n == (ssize_t)c->size ? 0 : 1;
}

/* The state of a map: the children running in their slots, the messages of the children that
 * ended (kept until done hears of them, in order). */
typedef struct map_state {
  int n, width, running, next_start, next_done, stop, rc;
  ss_proc* procs;          /* [width] */
  int* slot_of;            /* [width]: the child in the slot, -1 if free */
  char* msgs;              /* [n][size] */
  ss_proc_result* results; /* [n] */
  char* ended;             /* [n] */
} map_state;

/* Start the next child in a free slot; a child that cannot start ends the map's starting. */
static void map_start(map_state* m, map_call* c)
{
  int slot = 0;
  while (m->slot_of[slot] >= 0)
    slot++;
  c->i = m->next_start;
  int start = ss_proc_start(&m->procs[slot], 0, map_child, c);
  if (start) {
    m->results[m->next_start].start = start;
    m->ended[m->next_start] = 1;
    m->stop = 1;
  } else {
    m->slot_of[slot] = m->next_start;
    m->running++;
  }
  m->next_start++;
}

/* Wait until a running child has ended (its pipe closed), and keep its message. */
static void map_wait(map_state* m, size_t size)
{
  struct pollfd fds[m->width];
  int slots[m->width], nf = 0;
  for (int s = 0; s < m->width; s++)
    if (m->slot_of[s] >= 0) {
      fds[nf] = (struct pollfd){m->procs[s].fd, POLLIN, 0};
      slots[nf++] = s;
    }
  while (poll(fds, (nfds_t)nf, -1) < 0 && errno == EINTR)
    ;
  for (int k = 0; k < nf; k++) {
    if (!fds[k].revents)
      continue;
    int s = slots[k], i = m->slot_of[s];
    size_t got = 0;
    ss_proc_finish(&m->procs[s], m->msgs + (size_t)i * size, size, &got, &m->results[i].how);
    m->results[i].msg = got == size ? m->msgs + (size_t)i * size : NULL;
    m->ended[i] = 1;
    m->slot_of[s] = -1;
    m->running--;
  }
}

int ss_proc_map(int n, size_t msg_size, ss_proc_work_fn work, ss_proc_done_fn done, void* ctx, ss_err* err)
{
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  map_state m = {.n = n, .width = cores > 0 ? (int)cores : 1};
  m.procs = calloc((size_t)m.width, sizeof(ss_proc));
  m.slot_of = malloc(sizeof(int) * (size_t)m.width);
  m.msgs = malloc((size_t)n * msg_size + 1);
  m.results = calloc((size_t)n + 1, sizeof(ss_proc_result));
  m.ended = calloc((size_t)n + 1, 1);
  map_call c = {work, ctx, 0, malloc(msg_size + 1), msg_size};
  if (!m.procs || !m.slot_of || !m.msgs || !m.results || !m.ended || !c.msg) {
    m.rc = ss_err_nomem(err);
    goto done;
  }
  for (int s = 0; s < m.width; s++)
    m.slot_of[s] = -1;
  /* As many children at a time as there are cores, a new one as soon as one ends; done hears of
   * each in order (the results do not depend on which ended first). After a failure no child
   * starts, and the ones started are reaped all the same; the first error in order wins. */
  for (;;) {
    while (!m.stop && m.next_start < n && m.running < m.width)
      map_start(&m, &c);
    while (m.next_done < m.next_start && m.ended[m.next_done]) {
      int r = done(ctx, m.next_done, &m.results[m.next_done]);
      m.next_done++;
      if (r && !m.rc) {
        m.rc = r;
        m.stop = 1;
      }
    }
    if (m.running == 0 && (m.stop || m.next_start >= n) && m.next_done >= m.next_start)
      break;
    if (m.running > 0)
      map_wait(&m, msg_size);
  }
done:
  SS_FREE_ALL(m.procs, m.slot_of, m.msgs, m.results, m.ended, c.msg);
  return m.rc;
}

/* The child of ss_proc_exec: stdout and stderr to their files, then the program; if it cannot be
 * executed, errno goes back through report (closed on a successful exec). */
static void exec_child(char* const* argv, FILE* out, FILE* err, const int* report) __attribute__((noreturn));

static void exec_child(char* const* argv, FILE* out, FILE* err, const int* report)
{
  close(report[0]);
  fcntl(report[1], F_SETFD, FD_CLOEXEC);
  dup2(fileno(out), 1);
  dup2(fileno(err), 2);
  (strchr(argv[0], '/') ? execv : execvp)(argv[0], argv);
  int e = errno;
  ssize_t n = write(report[1], &e, sizeof(e));
  (void)n; /* the parent sees the exit status 127 all the same */
  _exit(127);
}

/* Seconds on the monotonic clock. */
static double now_s(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* waitpid for pid, which is sent SIGTERM once timeout_s (> 0) have passed since start, and
 * SIGKILL 2 s later; *timed_out says whether it was. Polls every 10 ms: a child's run time is not
 * measured by this, only bounded. */
static pid_t wait_bounded(pid_t pid, int* status, double timeout_s, int* timed_out)
{
  if (!(timeout_s > 0))
    return waitpid(pid, status, 0);
  double start = now_s();
  int sent = 0;
  for (;;) {
    pid_t w = waitpid(pid, status, WNOHANG);
    if (w != 0)
      return w;
    double t = now_s() - start;
    if (t > timeout_s + 2 && sent < 2) {
      kill(pid, SIGKILL);
      sent = 2;
    } else if (t > timeout_s && sent < 1) {
      kill(pid, SIGTERM);
      sent = 1;
      *timed_out = 1;
    }
    struct timespec tick = {0, 10 * 1000 * 1000};
    nanosleep(&tick, NULL);
  }
}

/* Run argv with its output to out and err and wait for it (at most timeout_s, 0: no limit): 0,
 * or -1 with errno. */
static int exec_wait(char* const* argv, FILE* out, FILE* err, double timeout_s, ss_proc_output* r)
{
  int report[2];
  if (pipe(report))
    return -1;
  sigset_t old;
  ss_cleanup_block(&old);
  pid_t pid = fork();
  if (pid == 0) {
    ss_cleanup_unblock(&old);
    exec_child(argv, out, err, report);
  }
  int fork_errno = errno, e = 0;
  int slot = pid > 0 ? ss_cleanup_child(pid) : -1;
  ss_cleanup_unblock(&old);
  close(report[1]);
  if (pid > 0 && read(report[0], &e, sizeof(e)) == (ssize_t)sizeof(e))
    r->exec_errno = e;
  close(report[0]);
  if (pid < 0) {
    errno = fork_errno;
    return -1;
  }
  int status = 0;
  pid_t got = wait_bounded(pid, &status, timeout_s, &r->timed_out);
  ss_cleanup_child_done(slot);
  if (got < 0)
    return -1;
  r->how = exit_of(status);
  return 0;
}

/* A whole temporary file as a string (owned), NULL when out of memory. */
static char* slurp(FILE* f)
{
  long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  char* s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!s)
    return NULL;
  rewind(f);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = '\0';
  return s;
}

int ss_proc_exec(char* const* argv, ss_proc_output* r, ss_err* err)
{
  return ss_proc_exec_timeout(argv, 0, r, err);
}

int ss_proc_exec_timeout(char* const* argv, double timeout_s, ss_proc_output* r, ss_err* err)
{
  memset(r, 0, sizeof(*r));
  FILE* out = tmpfile();
  FILE* errf = out ? tmpfile() : NULL;
  int rc = SS_OK;
  if (!errf || exec_wait(argv, out, errf, timeout_s, r)) {
    rc = ss_err_set(err, NULL, 0, "cannot start %s: %s", argv[0], strerror(errno));
  } else {
    r->out = slurp(out);
    r->err = slurp(errf);
    if (!r->out || !r->err) {
      ss_proc_output_free(r);
      rc = ss_err_nomem(err);
    }
  }
  if (out)
    fclose(out);
  if (errf)
    fclose(errf);
  return rc;
}

void ss_proc_output_free(ss_proc_output* r)
{
  free(r->out);
  free(r->err);
  r->out = r->err = NULL;
}
