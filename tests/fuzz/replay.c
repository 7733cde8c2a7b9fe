/* replay: run a fuzz target's entry point on files, without libFuzzer: the regression test of the
 * inputs the fuzzers found (tests/fuzz/crashers/TARGET/) in the normal and sanitizer builds.
 * Usage: replay_TARGET FILE|DIR...; a directory stands for the files in it. Exit 0 when every input
 * went through; a crash is the failure. */
#include "fuzz_input.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int replay_file(const char* path)
{
  FILE* f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 1;
  }
  size_t cap = 1 << 16, n = 0, got;
  unsigned char* buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      unsigned char* bigger = realloc(buf, cap *= 2);
      if (!bigger)
        free(buf);
      buf = bigger;
    }
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "%s: out of memory\n", path);
    return 1;
  }
  fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 0;
}

static int by_name(const void* a, const void* b)
{
  return strcmp(*(char* const*)a, *(char* const*)b);
}

/* The files of dir, in name order (so that runs compare). */
static int replay_dir(const char* dir, int* count)
{
  DIR* d = opendir(dir);
  if (!d) {
    perror(dir);
    return 1;
  }
  char** names = NULL;
  size_t n = 0;
  int bad = 0;
  for (struct dirent* e; (e = readdir(d));) {
    if (e->d_name[0] == '.')
      continue;
    char** grown = realloc(names, sizeof(char*) * (n + 1));
    if (!grown || !(grown[n] = malloc(strlen(dir) + strlen(e->d_name) + 2))) {
      bad = 1;
      names = grown ? grown : names;
      break;
    }
    names = grown;
    sprintf(names[n++], "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (n) /* an empty folder (crashers/TARGET/ with its .gitkeep only): names is NULL */
    qsort(names, n, sizeof(char*), by_name);
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
      bad |= replay_file(names[i]);
      ++*count;
    }
    free(names[i]);
  }
  free(names);
  return bad;
}

int main(int argc, char** argv)
{
  int bad = 0, count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      bad |= replay_dir(argv[i], &count);
    } else {
      bad |= replay_file(argv[i]);
      count++;
    }
  }
  fprintf(stderr, "replay: %d input%s\n", count, count == 1 ? "" : "s");
  return bad;
}
