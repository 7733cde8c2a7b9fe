/* trace: the simulated run as a Chrome trace-event file (Perfetto, chrome://tracing), written as
 * the events happen (bounded memory), plain or gzipped. No SimGrid types: callers pass dates. */
#ifndef SS_TRACE_H
#define SS_TRACE_H

#include "err.h"

#include <stddef.h>

typedef struct ss_trace ss_trace;

/* Open path for writing (gzipped when it ends in ".gz"; "-" is standard output, plain, flushed but
 * not closed by ss_trace_close), through a temporary file (outfile.h): the file appears whole at
 * ss_trace_close, never in part. Returns 0, or SS_EIO with err naming the file. Close with
 * ss_trace_close or ss_trace_abort. */
int ss_trace_open(const char* path, ss_trace** out, ss_err* err);

/* Finish the file and put it in place. Returns 0, or SS_EIO when a write failed (err names the
 * file; the earlier file stays). Frees t (NULL is fine). */
int ss_trace_close(ss_trace* t, ss_err* err);

/* Give up the file (a failed run): the earlier file stays, nothing is left behind. Frees t. */
void ss_trace_abort(ss_trace* t);

/* Name a process (pid) or a thread (pid, tid) for the viewer; sort_index orders the tracks. */
/* A printf-style track or span name into buf: what does not fit in size is cut on a UTF-8 character
 * boundary and marked "..." (size >= 8), never in the middle of a character. */
void ss_trace_name(char* buf, size_t size, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

void ss_trace_process(ss_trace* t, int pid, const char* name);
void ss_trace_thread(ss_trace* t, int pid, int tid, const char* name, int sort_index);

/* A span [start_s, start_s + dur_s] of category cat on track (pid, tid). Its start and its end are
 * rounded to the file's nanoseconds (not its duration), so spans that nest or follow each other
 * still do in the file. detail, if not NULL, is shown as its "detail" argument. Names and details must not need JSON escaping beyond quotes and
 * backslashes, which are escaped. */
void ss_trace_span(ss_trace* t, int pid, int tid, const char* name, const char* cat, double start_s, double dur_s,
                   const char* detail);

/* A counter sample: series name of process pid takes value at date_s. */
void ss_trace_counter(ss_trace* t, int pid, const char* name, double date_s, double value);

#endif
