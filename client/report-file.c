/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fd-util.h"
#include "report-file.h"

int report_file_open(const char *path, int *ret_fd)
{
        _cleanup_close_ int path_fd = -EBADF;
        char proc[64];
        struct stat st;
        int fd;

        assert(path);
        assert(ret_fd);

        /* An O_PATH handle opens nothing: a fifo is not waited on and a device's open() never runs, whatever
         * the path turns out to name (the caller may be root, and the path another user's link). */
        path_fd = open(path, O_PATH | O_CLOEXEC);
        if (path_fd < 0)
                return -errno;
        if (fstat(path_fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        /* That very file, opened for reading through its handle (read permission is checked on it now),
         * never through the path again, which may name something else by now. */
        snprintf(proc, sizeof(proc), "/proc/self/fd/%i", path_fd);
        fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        *ret_fd = fd;
        return 0;
}

int report_file_load(const char *path, NcuReport **ret, NcuReportError *ret_error)
{
        _cleanup_close_ int fd = -EBADF;
        int r;

        assert(ret);
        assert(ret_error);

        *ret_error = (NcuReportError){ 0 };
        r = report_file_open(path, &fd);
        if (r < 0)
                return r;
        return ncu_report_load_fd(fd, NULL, ret, ret_error);
}
