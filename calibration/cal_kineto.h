/* cal_kineto: read a PyTorch profiler (Kineto) Chrome trace, plain or gzipped JSON, as a stream:
 * its traceEvents one event at a time, so that memory grows with what the caller keeps of them,
 * not with the file. */
#ifndef SS_CAL_KINETO_H
#define SS_CAL_KINETO_H

#include "err.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/* Takes one element of traceEvents (a JSON object, borrowed for the call) into ctx. Returns 0, or
 * a negative code with err set, which stops the reading. */
typedef int (*cal_kineto_event_fn)(void* ctx, const cJSON* event, ss_err* err);

/* Read the trace at path: calls event(ctx, e, err) on each element of its traceEvents array in
 * order, and copies the name of the first device of its deviceProperties, when it has one, to
 * device (size bytes; left as it is otherwise). Returns 0, or SS_EINPUT with err naming the file
 * (and the line where there is one): it cannot be opened, is empty, is not gzip though its name
 * ends in .gz, is truncated or corrupt gzip, holds a NUL byte, is not a JSON object with a
 * traceEvents array of objects, goes on after that object, or has a JSON value of more than
 * 16 MiB or 1e6 elements; or the error that event returned. */
int cal_kineto_read(const char* path, cal_kineto_event_fn event, void* ctx, char* device, size_t size, ss_err* err);

#endif
