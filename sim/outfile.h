/* outfile: every output file of stash-sim and stash-calibrate, written whole or not at all: a
 * temporary file in the output's folder, renamed over it only on success; the same-file check
 * between outputs and inputs; and what SIGINT and SIGTERM undo (temporary files, child processes). */
#ifndef SS_OUTFILE_H
#define SS_OUTFILE_H

#include "err.h"

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct ss_outfile ss_outfile;

/* Open the output path ("-" or NULL is standard output; a device, a FIFO, or a file reached by a
 * link that names no path (/proc/self/fd/N of a memfd) is written directly).
 * A regular file (or a new one) is written to a temporary ".NAME.XXXXXX" in the folder of the
 * file a link points to, with the permissions of the file it replaces (or of a new file), and
 * registered for removal on a signal or at exit (an existing file in a folder where no file may
 * be created is written in place). what names the output in errors ("report").
 * Returns 0, or SS_EIO with err naming path ("cannot write the report: REASON"). */
int ss_outfile_open(const char* path, const char* what, ss_outfile** out, ss_err* err);

/* The stream to write to (stdout for "-"). */
FILE* ss_outfile_stream(const ss_outfile* f);

/* The temporary file being written, to read back before ss_outfile_commit, or NULL when the
 * output is written directly (standard output, a device). */
const char* ss_outfile_temp(const ss_outfile* f);

/* Finish: flush, check every write and the close, fsync, rename over the output. On failure the
 * temporary file is removed, the old output stays, and SS_EIO comes back with err naming the
 * output. Standard output is flushed, not closed. Frees f (NULL is fine: 0). */
int ss_outfile_commit(ss_outfile* f, ss_err* err);

/* Give up: close and remove the temporary file; the old output stays. Frees f (NULL is fine). */
void ss_outfile_abort(ss_outfile* f);

/* Whether paths a and b name the same file: the same device and inode when both exist (links
 * followed), else the same name once links and the folder are resolved. "-" and NULL never do. */
int ss_outfile_same(const char* a, const char* b);

/* Install the handlers of SIGINT, SIGTERM and SIGHUP for program prog (a static string): they
 * remove the temporary files of this process, end and reap its registered children, print
 * "PROG: interrupted by SIGINT" (in the process that called this only; its children leave
 * quietly) and exit 128 + the signal (130, 143). Also removes the temporary files at exit. Call
 * once, first thing in main. */
void ss_outfile_signals(const char* prog);

/* Install the handlers again after a library replaced them (SimGrid's simgrid_init installs a
 * SIGINT handler that prints every actor's status); no-op before ss_outfile_signals. */
void ss_outfile_rearm(void);

/* Block the signals above (the old mask goes to *old), around a window where a handler must not
 * run: a library that installs its own, a fork and the registration of its child. */
void ss_outfile_block(sigset_t* old);
void ss_outfile_unblock(const sigset_t* old);

/* Register a temporary path that a signal or the exit must remove (this process's); returns a
 * slot for ss_outfile_forget, or -1 when the registry is full (the path is then unguarded). */
int ss_outfile_guard(const char* path);
void ss_outfile_forget(int slot);

/* A scratch file $TMPDIR/stash-sim-XXXXXX (or in /tmp) for this process to write and read back,
 * removed by a signal or at exit until ss_outfile_scratch_done: 0 with *f open for writing and
 * its name in path (size bytes), or SS_EIO with "cannot create a temporary WHAT file in DIR:
 * REASON" in err and nothing left behind. */
int ss_outfile_scratch(const char* what, char* path, size_t size, FILE** f, int* slot, ss_err* err);

/* Remove the scratch file path (closed) and forget its slot. */
void ss_outfile_scratch_done(const char* path, int slot);

/* Register a child process that a signal must end (SIGTERM, then SIGKILL after 2 s) and reap;
 * forget it once reaped. A slot, or -1 when the registry is full. */
int ss_outfile_child(pid_t pid);
void ss_outfile_child_done(int slot);

#endif
