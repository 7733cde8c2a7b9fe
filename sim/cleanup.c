/* cleanup: the temporary files and child processes that a signal must remove and end. */
#include "cleanup.h"

#include "err.h"

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
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

void ss_cleanup_block(sigset_t* old)
{
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  sigprocmask(SIG_BLOCK, &set, old);
}

void ss_cleanup_unblock(const sigset_t* old)
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
  ss_cleanup_block(&old);
  int slot = -1;
  for (int i = 0; i < n && slot < 0; i++)
    if (is_free(i)) {
      fill(i, what);
      slot = i;
    }
  ss_cleanup_unblock(&old);
  return slot;
}

int ss_cleanup_guard(const char* path)
{
  return strlen(path) < PATH_MAX ? claim(SS_NTEMPS, temp_free, temp_fill, path) : -1;
}

void ss_cleanup_forget(int slot)
{
  if (slot >= 0 && slot < SS_NTEMPS)
    temps[slot].used = 0;
}

int ss_cleanup_child(pid_t pid)
{
  return claim(SS_NCHILDREN, child_free, child_fill, &pid);
}

void ss_cleanup_child_done(int slot)
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
static void
on_signal(int sig)
{
  int saved = errno;
  pid_t me = getpid();
  remove_temps(me);
  end_children(me);
  if (me == main_pid && prog_name) {
    say(prog_name);
    say(sig == SIGINT    ? ": interrupted by SIGINT\n"
        : sig == SIGTERM ? ": interrupted by SIGTERM\n"
                         : ": interrupted by SIGHUP\n");
  }
  errno = saved;
  _exit(128 + sig);
}

static void at_exit(void)
{
  remove_temps(getpid());
}

void ss_cleanup_rearm(void)
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

void ss_cleanup_signals(const char* prog)
{
  prog_name = prog;
  main_pid = getpid();
  atexit(at_exit);
  ss_err_on_exit(prog, at_exit);
  ss_cleanup_rearm();
}
