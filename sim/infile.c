/* infile: input files opened safely. */
#include "infile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file of mode m that is neither a regular file nor a directory (strerror(EISDIR) says that
 * one) is, by its type bits. */
static const char* kind_of(mode_t m)
{
  switch (m & S_IFMT) {
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    default: return "not a regular file";
  }
}

int ss_infile_open(const char* path, const char* what, long long max_bytes, ss_err* err)
{
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return ss_err_set(err, path, 0, "cannot open %s: %s", what, strerror(errno));
  struct stat st;
  int rc = SS_OK;
  if (fstat(fd, &st) != 0)
    rc = ss_err_set(err, path, 0, "cannot open %s: %s", what, strerror(errno));
  else if (S_ISDIR(st.st_mode))
    rc = ss_err_set(err, path, 0, "cannot open %s: %s", what, strerror(EISDIR));
  else if (!S_ISREG(st.st_mode))
    rc = ss_err_set(err, path, 0, "cannot open %s: %s, not a regular file", what, kind_of(st.st_mode));
  else if ((long long)st.st_size > max_bytes)
    rc = ss_err_set(err, path, 0, "cannot open %s: larger than %lld MiB", what, max_bytes >> 20);
  else {
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
      rc = ss_err_set(err, path, 0, "cannot open %s: %s", what, strerror(errno));
  }
  if (rc) {
    close(fd);
    return rc;
  }
  return fd;
}
