/* infile: input files opened safely (regular files only, a size cap, checked on the open descriptor). */
#ifndef SS_INFILE_H
#define SS_INFILE_H

#include "err.h"

/* Size caps of the readers (bytes on disk; a gzip stream's decompressed size has its own cap in its
 * reader). Far above any real input: the largest instance file of platforms/ is 48 KB, the largest
 * workload of workloads/ 60 KB, an nccl-tests log a few KB; a Kineto trace of one step is tens of MB. */
#define SS_INFILE_MAX_PLATFORM (64LL << 20) /* an instance's XML */
#define SS_INFILE_MAX_TEXT (256LL << 20)    /* workloads, logs, ASTRA-sim files, CSV */
#define SS_INFILE_MAX_TRACE (8LL << 30)     /* a Kineto trace, read as a stream */

/* Open path for reading. Refuses, with one line "PATH: error: cannot open WHAT: ..." (the kind is
 * SS_EINPUT), what is not a regular file (a directory, a FIFO, a socket, a device: a FIFO would wait
 * for a writer, /dev/zero never ends) and a file larger than max_bytes. The checks are made with
 * fstat on the descriptor that is then read (no window between the check and the read), and the
 * open itself does not wait (O_NONBLOCK, cleared after the check). Returns the descriptor (>= 0,
 * the caller closes it) or SS_EINPUT. */
int ss_infile_open(const char* path, const char* what, long long max_bytes, ss_err* err);

#endif
