/* outfile: every output file of stash-sim and stash-calibrate, written whole or not at all: a
 * temporary file in the output's folder, renamed over it only on success (a signal or the exit
 * removes it: cleanup.h); the same-file check between outputs and inputs; scratch files. */
#ifndef SS_OUTFILE_H
#define SS_OUTFILE_H

#include "err.h"

#include <stdio.h>

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

/* A scratch file $TMPDIR/stash-sim-XXXXXX (or in /tmp) for this process to write and read back,
 * removed by a signal or at exit until ss_outfile_scratch_done: 0 with *f open for writing and
 * its name in path (size bytes), or SS_EIO with "cannot create a temporary WHAT file in DIR:
 * REASON" in err and nothing left behind. */
int ss_outfile_scratch(const char* what, char* path, size_t size, FILE** f, int* slot, ss_err* err);

/* Remove the scratch file path (closed) and forget its slot. */
void ss_outfile_scratch_done(const char* path, int slot);

#endif
