/* fuzz_input: what the fuzz targets share: the input bytes as a file the readers open by path (an
 * in-memory file, /proc/self/fd/N), and the check that an input error is one printable line. */
#ifndef SS_FUZZ_INPUT_H
#define SS_FUZZ_INPUT_H

#include "err.h"

#include <stddef.h>
#include <stdint.h>

/* A reusable in-memory file and the path that opens it. */
typedef struct fuzz_file {
  int fd;
  char path[64];
} fuzz_file;

/* Make f hold exactly the size bytes of data (creating it on first use). Aborts if the kernel
 * refuses: that is the harness's failure, not the reader's. */
void fuzz_file_set(fuzz_file* f, const uint8_t* data, size_t size);

/* The input of a reader target as a file: data's size bytes in the target's one in-memory file
 * (fuzz_file_set); returns its path, and clears err for the reader. */
const char* fuzz_input(const uint8_t* data, size_t size, ss_err* err);

/* Whether the reader's return code rc says it loaded the input; if not, err must hold one
 * printable line (fuzz_check_error aborts otherwise). */
int fuzz_loaded(int rc, const ss_err* err);

/* Abort unless err holds an error that formats as one line of printable text (the bad-input
 * contract: exactly one line on stderr). */
void fuzz_check_error(const ss_err* err);

/* The fuzz entry point of each target (fuzz_NAME.c); replay.c calls it on files. */
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif
