/* fuzz_input: in-memory input files and the one-line error check of the fuzz targets. */
#define _GNU_SOURCE /* memfd_create */
#include "fuzz_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void fuzz_file_set(fuzz_file* f, const uint8_t* data, size_t size)
{
  if (f->path[0] == '\0') {
    f->fd = memfd_create("stash-fuzz", 0);
    if (f->fd < 0) {
      perror("memfd_create");
      abort();
    }
    snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", f->fd);
  }
  if (ftruncate(f->fd, 0) != 0 || (size && pwrite(f->fd, data, size, 0) != (ssize_t)size)) {
    perror("fuzz input file");
    abort();
  }
}

const char* fuzz_input(const uint8_t* data, size_t size, ss_err* err)
{
  static fuzz_file in;
  fuzz_file_set(&in, data, size);
  ss_err_clear(err);
  return in.path;
}

int fuzz_loaded(int rc, const ss_err* err)
{
  if (rc == SS_OK)
    return 1;
  fuzz_check_error(err);
  return 0;
}

void fuzz_check_error(const ss_err* err)
{
  if (!ss_err_isset(err)) {
    fprintf(stderr, "fuzz: the reader failed without an error message\n");
    abort();
  }
  char line[2048];
  ss_err_format(err, line, sizeof(line));
  for (const unsigned char* s = (const unsigned char*)line; *s; s++)
    if (*s < 0x20 || *s == 0x7f) {
      fprintf(stderr, "fuzz: the error has control character 0x%02x at %zu: %s\n", *s,
              (size_t)(s - (const unsigned char*)line), line);
      abort();
    }
}

/* In every target, a failed ss_assert (the target's or the library's) aborts: libFuzzer then keeps
 * the input, where ss_assert's _Exit would end the run without it. Before LLVMFuzzerTestOneInput
 * is first called, in the fuzzers and in their replays alike. */
__attribute__((constructor)) static void fuzz_abort_on_assert(void)
{
  ss_err_on_exit("stash-sim", abort);
}
