/* err: input-error records (file, line, column or JSON path, message) and internal invariants. */
#ifndef SS_ERR_H
#define SS_ERR_H

#include <stdarg.h>

/* Return codes of fallible functions: 0 on success, a negative code on failure. */
enum {
  SS_OK = 0,
  SS_EINPUT = -1, /* the user's input is wrong: missing file, bad syntax, bad value */
  SS_ENOMEM = -2, /* an allocation failed */
  SS_ESIM = -3,   /* the simulation did not complete (an actor did not finish) */
  SS_EIO = -4,    /* writing an output or temporary file failed */
  SS_ESYS = -5,   /* the system refused a resource: a process, a pipe */
};

/* Exit status of the programs, by kind of error (README, Exit status): bad input names the file; a
 * usage error the option; resources are the machine's (memory, a write that failed), never the
 * input's; internal is a bug. */
enum {
  SS_EXIT_OK = 0,
  SS_EXIT_INPUT = 1,
  SS_EXIT_USAGE = 2,
  SS_EXIT_RESOURCE = 3,
  SS_EXIT_INTERNAL = 4,
};

#define SS_ERR_FILE_MAX 512
#define SS_ERR_PATH_MAX 256
#define SS_ERR_MSG_MAX 768

/* One input error, filled by the failing function, printed only by main. line/col are 0 when
 * unknown; path is a JSON path ("$.layers[3].fwd_s") or empty. */
typedef struct ss_err {
  char file[SS_ERR_FILE_MAX];
  int line;
  int col;
  char path[SS_ERR_PATH_MAX];
  char msg[SS_ERR_MSG_MAX];
  int code; /* its kind: SS_EINPUT (set by ss_err_set*), SS_ENOMEM, SS_EIO, SS_ESYS or SS_ESIM */
} ss_err;

/* Clear an error record. */
void ss_err_clear(ss_err* err);

/* Fill err (if not NULL and not already set) with file, line and a printf-style message; returns
 * SS_EINPUT so that callers can write `return ss_err_set(...)`. The first error wins. */
int ss_err_set(ss_err* err, const char* file, int line, const char* fmt, ...) __attribute__((format(printf, 4, 5)));

/* Same as ss_err_set with a column. */
int ss_err_set_col(ss_err* err, const char* file, int line, int col, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Same as ss_err_set with a JSON path instead of a line. */
int ss_err_set_path(ss_err* err, const char* file, const char* path, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Out of memory: fill err (first error wins) with that kind; returns SS_ENOMEM. */
int ss_err_nomem(ss_err* err);

/* rc, after ss_err_nomem(err) when rc is SS_ENOMEM: for a reader whose parts return SS_ENOMEM
 * without filling err. */
int ss_err_nomem_if(ss_err* err, int rc);

/* The end of a constructor that built obj (results come back through an out-parameter set only on
 * success): with rc 0, *out = obj and SS_OK; otherwise obj freed by free_fn (which accepts NULL)
 * and rc. rc and obj are evaluated more than once: pass variables. */
#define SS_HAND_OUT(rc, obj, out, free_fn) ((rc) ? (free_fn(obj), (rc)) : (*(out) = (obj), SS_OK))

/* Give the error in err the kind code (SS_EIO: an output could not be written; SS_ESIM: the
 * simulation broke, a bug); returns code, as in `return ss_err_kind(err, SS_EIO)` after a set. */
int ss_err_kind(ss_err* err, int code);

/* Copy src to dst (size bytes at most, NUL included) with control characters written as escapes
 * (\n, \t, \r, \xHH): a message may quote the input, and an error must stay one line. */
void ss_text_escape(char* dst, unsigned long size, const char* src);

/* The exit status of err's kind (SS_EXIT_*). */
int ss_err_exit_code(const ss_err* err);

/* Whether err holds an error. */
int ss_err_isset(const ss_err* err);

/* Format err as one line, the way editors jump to it:
 *   "file:line:col: error: msg", "file:line: error: msg", "file: $.path: msg" or "file: error: msg".
 * Control characters (which a message quoting the input may hold) come out as escapes: \n, \xHH.
 * Writes at most size bytes including the terminating NUL. */
void ss_err_format(const ss_err* err, char* buf, unsigned long size);

/* buf (size bytes, NUL-terminated, size >= 8) held a text cut short by snprintf: cut it back to a
 * UTF-8 character boundary and end it with "..." so that the cut shows and splits no character. */
void ss_text_mark_cut(char* buf, unsigned long size);

/* n cut back so that s[0..n) does not end inside a UTF-8 character. */
unsigned long ss_utf8_boundary(const char* s, unsigned long n);

/* Report a broken internal invariant and exit with SS_EXIT_INTERNAL; stays on under NDEBUG. */
void ss_assert_fail(const char* expr, const char* file, int line) __attribute__((noreturn));

/* Out of memory where no error can be passed back (inside a simulated process, in a step that has
 * no error path): print "PROG: error: out of memory for WHAT: give fewer --iterations, --instances
 * or --gpus" and exit with SS_EXIT_RESOURCE. */
void ss_nomem_exit(const char* what) __attribute__((noreturn));

/* The program name of ss_nomem_exit's line and a cleanup that it and ss_assert_fail run before
 * they exit (async-signal-safe: outfile's removal of temporary files). Set once by main. */
void ss_err_on_exit(const char* prog, void (*cleanup)(void));

#define ss_assert(expr) ((expr) ? (void)0 : ss_assert_fail(#expr, __FILE__, __LINE__))

#endif
