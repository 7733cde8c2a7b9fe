/* cleanup: what SIGINT, SIGTERM and SIGHUP undo: the temporary files this process registered are
 * removed and the children it registered are ended and reaped, then it leaves with one line (the
 * temporary files also go at exit). outfile registers its temporary files, proc its children. */
#ifndef SS_CLEANUP_H
#define SS_CLEANUP_H

#include <signal.h>
#include <sys/types.h>

/* Install the handlers of SIGINT, SIGTERM and SIGHUP for program prog (a static string): they
 * remove the temporary files of this process, end and reap its registered children, print
 * "PROG: interrupted by SIGINT" (in the process that called this only; its children leave
 * quietly) and exit 128 + the signal (130, 143). Also removes the temporary files at exit. Call
 * once, first thing in main. */
void ss_cleanup_signals(const char* prog);

/* Install the handlers again after a library replaced them (SimGrid's simgrid_init installs a
 * SIGINT handler that prints every actor's status); no-op before ss_cleanup_signals. */
void ss_cleanup_rearm(void);

/* Block the signals above (the old mask goes to *old), around a window where a handler must not
 * run: a library that installs its own, a fork and the registration of its child. */
void ss_cleanup_block(sigset_t* old);
void ss_cleanup_unblock(const sigset_t* old);

/* Register a temporary path that a signal or the exit must remove (this process's); returns a
 * slot for ss_cleanup_forget, or -1 when the registry is full (the path is then unguarded). */
int ss_cleanup_guard(const char* path);
void ss_cleanup_forget(int slot);

/* Register a child process that a signal must end (SIGTERM, then SIGKILL after 2 s) and reap;
 * forget it once reaped. A slot, or -1 when the registry is full. */
int ss_cleanup_child(pid_t pid);
void ss_cleanup_child_done(int slot);

#endif
