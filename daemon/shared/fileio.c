/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd-util.h"
#include "fileio.h"

int open_in_root(int root_fd, const char *path, int flags)
{
        struct open_how how = {
                .flags = (uint64_t) (flags | O_CLOEXEC),
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
        };
        int fd;

        assert(path);

        /* Relative paths are taken relative to root too. */
        while (*path == '/')
                path++;
        if (!*path)
                path = ".";

        fd = (int) syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
        if (fd >= 0)
                return fd;
        if (errno != ENOSYS)
                return -errno;

        /* Kernels before 5.6 (and valgrind before 3.20) lack openat2. Without it we cannot confine lookups,
         * so only a root that is the real "/" may go on with plain openat(). */
        {
                struct stat a, b;

                if (fstat(root_fd, &a) < 0 || stat("/", &b) < 0)
                        return -errno;
                if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
                        return -ENOSYS;
        }
        fd = openat(root_fd, path, flags | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

/* short_is_end: a read shorter than asked for is the end of the file (see read_virtual_file_whole_at()). */
static int read_loop(int fd, size_t max_size, size_t hint, bool short_is_end, char **ret, size_t *ret_size)
{
        _cleanup_free_ char *buf = NULL;
        size_t allocated = 0, size = 0;

        for (;;) {
                size_t want;
                ssize_t n;

                if (size >= max_size + 1)
                        return -EFBIG;
                if (GREEDY_REALLOC(buf, allocated, MIN(MAX(size + hint, size + 4096), max_size + 2)) < 0)
                        return -ENOMEM;

                want = MIN(allocated - 1, max_size + 1) - size;
                n = read(fd, buf + size, want);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                size += (size_t) n;
                if (short_is_end && (size_t) n < want)
                        break;
        }

        if (size > max_size)
                return -EFBIG;

        buf[size] = '\0';
        *ret = TAKE_PTR(buf);
        if (ret_size)
                *ret_size = size;
        return 0;
}

int read_full_fd(int fd, size_t max_size, char **ret, size_t *ret_size)
{
        struct stat st;

        assert(fd >= 0);
        assert(ret);

        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        if ((uint64_t) st.st_size > max_size)
                return -EFBIG;

        return read_loop(fd, max_size, (size_t) st.st_size + 1, false, ret, ret_size);
}

int read_full_file_in_root(
                int root_fd, const char *path, size_t max_size, char **ret, size_t *ret_size, struct stat *ret_st)
{
        _cleanup_close_ int fd = -EBADF;
        int r;

        fd = open_in_root(root_fd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return fd;

        r = read_full_fd(fd, max_size, ret, ret_size);
        if (r < 0)
                return r;

        if (ret_st && fstat(fd, ret_st) < 0)
                return -errno;
        return 0;
}

static int read_virtual(int dir_fd, const char *path, size_t max_size, bool short_is_end, char **ret, size_t *ret_size)
{
        _cleanup_close_ int fd = -EBADF;

        assert(path);
        assert(ret);

        fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;

        return read_loop(fd, max_size, 4096, short_is_end, ret, ret_size);
}

int read_virtual_file_at(int dir_fd, const char *path, size_t max_size, char **ret, size_t *ret_size)
{
        return read_virtual(dir_fd, path, max_size, false, ret, ret_size);
}

int read_virtual_file_whole_at(int dir_fd, const char *path, size_t max_size, char **ret, size_t *ret_size)
{
        return read_virtual(dir_fd, path, max_size, true, ret, ret_size);
}
