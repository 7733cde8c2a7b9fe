/* proc: child processes: a function run in a forked child that sends its result back through a
 * pipe (one, or many, as many at a time as there are cores), and a program run with its exit
 * status, stdout and stderr captured. */
#ifndef SS_PROC_H
#define SS_PROC_H

#include "err.h"

#include <stddef.h>
#include <sys/types.h>

/* How a child process ended: its exit status, or the signal that killed it. */
typedef struct ss_proc_exit {
  int code;   /* the exit status (0..255), -1 if it did not exit */
  int signal; /* the signal that killed it, 0 if none did */
} ss_proc_exit;

/* Why a child could not be started (ss_proc_start, ss_proc_map). */
enum { SS_PROC_EPIPE = -1, SS_PROC_EFORK = -2 };

/* The reason of a start failure for a message: "pipe failed" or "fork failed". */
const char* ss_proc_strerror(int start);

/* A started child and the read end of its pipe. */
typedef struct ss_proc {
  pid_t pid;
  int fd;
  int slot; /* its place in cleanup.h's registry of children (a signal ends them) */
} ss_proc;

/* The function a child runs: it may write its result to fd (the pipe to the parent) and returns
 * the child's exit status. */
typedef int (*ss_proc_fn)(void* arg, int fd);

/* ss_proc_start's flags: the pipe is also the child's stderr (the parent reads what it says). */
enum { SS_PROC_STDERR = 1 };

/* Run fn(arg, fd) in a forked child whose stdout goes to /dev/null (stderr stays the parent's
 * unless flags has SS_PROC_STDERR). stdout and stderr are flushed before the fork, and the child
 * leaves with _exit: it neither flushes the stdio buffers nor runs the atexit handlers it
 * inherited. The child is registered (cleanup.h): SIGINT or SIGTERM to the parent ends it.
 * Returns 0, or SS_PROC_EPIPE or SS_PROC_EFORK with nothing started. */
int ss_proc_start(ss_proc* p, int flags, ss_proc_fn fn, void* arg);

/* Read what p's child sends until it closes the pipe, keeping the first size bytes in buf (*got
 * says how many), then reap the child; how it ended goes to *how. */
void ss_proc_finish(ss_proc* p, void* buf, size_t size, size_t* got, ss_proc_exit* how);

/* What became of one child of ss_proc_map. */
typedef struct ss_proc_result {
  int start;       /* 0, or why it could not be started (SS_PROC_EPIPE, SS_PROC_EFORK) */
  const void* msg; /* its message when it sent all of it, else NULL */
  ss_proc_exit how;
} ss_proc_result;

/* The work of child i: fill msg (msg_size bytes, zeroed beforehand). Runs in the child. */
typedef void (*ss_proc_work_fn)(void* ctx, int i, void* msg);

/* The parent's side of child i: returns 0, or an error code. */
typedef int (*ss_proc_done_fn)(void* ctx, int i, const ss_proc_result* r);

/* Run work(ctx, i, msg) for i = 0..n-1, each in a child of its own (as ss_proc_start does), as
 * many at a time as there are cores; each child sends its msg in one write (keep msg_size within
 * PIPE_BUF). The parent reaps the children in order and calls done for each. When child i cannot
 * be started, done hears of it at once, no more children start, and the ones started are reaped
 * all the same. Returns 0, the first nonzero value done returned, or SS_EINPUT with "out of
 * memory" in err. */
int ss_proc_map(int n, size_t msg_size, ss_proc_work_fn work, ss_proc_done_fn done, void* ctx, ss_err* err);

/* What a program run by ss_proc_exec did; ss_proc_output_free frees out and err. */
typedef struct ss_proc_output {
  ss_proc_exit how;
  int exec_errno; /* why it could not be executed (then it exited 127 and said nothing), or 0 */
  char* out;      /* its stdout, NUL-terminated */
  char* err;      /* its stderr, NUL-terminated */
  int timed_out;  /* ss_proc_exec_timeout: it ran past its time and was killed */
} ss_proc_output;

/* Run the program argv[0] with the NULL-terminated argv (execv when argv[0] holds a '/', else
 * execvp's search of PATH; never through a shell) and wait for it, capturing its stdout and stderr
 * (through temporary files: no size limit, no deadlock). Returns 0 with *r filled, or SS_EINPUT
 * with "cannot start ARGV0: REASON" (no temporary file, fork or wait failed) or "out of memory"
 * in err and nothing to free. */
int ss_proc_exec(char* const* argv, ss_proc_output* r, ss_err* err);

/* ss_proc_exec with a time limit: a program still running timeout_s seconds after it started
 * (0: no limit) is sent SIGTERM, then SIGKILL 2 s later if it is still there; r->timed_out is set
 * and r->how says how it ended. */
int ss_proc_exec_timeout(char* const* argv, double timeout_s, ss_proc_output* r, ss_err* err);

/* Free what ss_proc_exec captured (r may be zeroed; out and err become NULL). */
void ss_proc_output_free(ss_proc_output* r);

#endif
