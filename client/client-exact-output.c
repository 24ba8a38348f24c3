/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a verb's exact bytes (ncu's CSV exports) go: a file, a pipe, or a terminal, which gets them
 * escaped since the bytes come from a report, that is from whoever made it. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "client.h"
#include "fd-util.h"
#include "string-util.h"

#define TEMP_NAME_ATTEMPTS 16

/* A new file beside path, named ".NAME.RANDOM", created with the mode the file will keep (0666 less the
 * umask, as a shell's "> FILE" gives), so that nobody ever opens it under a laxer one. */
static int open_temporary_beside(const char *path, ExactOutput *o)
{
        _cleanup_free_ char *dir = NULL;
        const char *name = path_basename(path);
        int fd;

        if (name[0] == '\0' || streq(name, ".") || streq(name, ".."))
                return -EISDIR;
        dir = name == path ? strdup(".") : strndup(path, (size_t) (name - path));
        o->name = strdup(name);
        if (!dir || !o->name)
                return -ENOMEM;
        o->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (o->dir_fd < 0)
                return -errno;

        for (unsigned attempt = 0;; attempt++) {
                uint64_t random_bits;

                if (getrandom(&random_bits, sizeof(random_bits), 0) != (ssize_t) sizeof(random_bits))
                        return -errno;
                o->temp_name = mfree(o->temp_name);
                if (asprintf(&o->temp_name, ".%s.%016" PRIx64, name, random_bits) < 0) {
                        o->temp_name = NULL;
                        return -ENOMEM;
                }
                fd = openat(o->dir_fd, o->temp_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
                if (fd >= 0)
                        break;
                if (errno != EEXIST || attempt + 1 >= TEMP_NAME_ATTEMPTS) {
                        o->temp_name = mfree(o->temp_name);
                        return -errno;
                }
        }
        o->f = fdopen(fd, "w");
        if (!o->f) {
                safe_close(fd);
                return -errno;
        }
        return 0;
}

int exact_output_open(const char *path, ExactOutput *ret)
{
        int r;

        assert(ret);

        *ret = (ExactOutput){ .dir_fd = -EBADF };
        if (path) {
                r = open_temporary_beside(path, ret);
                if (r < 0)
                        exact_output_done(ret);
                return r;
        }
        if (!isatty(STDOUT_FILENO)) {
                ret->f = stdout;
                return 0;
        }
        ret->f = open_memstream(&ret->buffer, &ret->size);
        return ret->f ? 0 : -ENOMEM;
}

static int close_file(FILE **f)
{
        int r = 0;

        if (fflush(*f) != 0 || ferror(*f))
                r = errno > 0 ? -errno : -EIO;
        if (r == 0 && fsync(fileno(*f)) < 0)
                r = -errno;
        if (fclose(*f) != 0 && r == 0)
                r = errno > 0 ? -errno : -EIO;
        *f = NULL;
        return r;
}

int exact_output_commit(ExactOutput *o)
{
        int r;

        assert(o);
        assert(o->f);

        if (o->temp_name) {
                r = close_file(&o->f);
                if (r < 0)
                        return r;
                if (renameat(o->dir_fd, o->temp_name, o->dir_fd, o->name) < 0)
                        return -errno;
                o->temp_name = mfree(o->temp_name);
                return 0;
        }
        if (o->f == stdout) {
                o->f = NULL;
                return fflush(stdout) != 0 ? (errno > 0 ? -errno : -EIO) : 0;
        }
        /* A terminal: the buffered bytes, escaped. */
        if (fclose(o->f) != 0) {
                o->f = NULL;
                return -ENOMEM;
        }
        o->f = NULL;
        r = terminal_write_escaped_lines(stdout, o->buffer, o->size);
        if (r < 0)
                return r;
        return fflush(stdout) != 0 ? (errno > 0 ? -errno : -EIO) : 0;
}

void exact_output_done(ExactOutput *o)
{
        assert(o);

        /* Not committed: a file half written (or an export that failed) never takes FILE's place. */
        if (o->f && o->f != stdout)
                (void) fclose(o->f);
        o->f = NULL;
        if (o->temp_name)
                (void) unlinkat(o->dir_fd, o->temp_name, 0);
        o->temp_name = mfree(o->temp_name);
        o->name = mfree(o->name);
        o->buffer = mfree(o->buffer);
        o->dir_fd = safe_close(o->dir_fd);
}
