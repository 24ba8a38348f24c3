/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "drm-profiling.h"
#include "fd-util.h"
#include "fileio.h"
#include "string-util.h"

bool drm_driver_has_profiling(const char *driver)
{
        return streq_ptr(driver, "panfrost") || streq_ptr(driver, "panthor");
}

static void profiling_path(char *path, size_t size, dev_t rdev)
{
        snprintf(path, size, "dev/char/%u:%u/device/profiling", major(rdev), minor(rdev));
}

int drm_profiling_get(int sys_fd, dev_t rdev)
{
        _cleanup_free_ char *text = NULL;
        char path[96];
        size_t size;
        int r;

        profiling_path(path, sizeof(path), rdev);
        r = read_virtual_file_at(sys_fd, path, 64, &text, &size);
        if (r < 0)
                return r;
        if (streq(text, "0\n") || streq(text, "0"))
                return 0;
        if (streq(text, "1\n") || streq(text, "1"))
                return 1;
        return -EBADMSG;
}

int drm_profiling_set(int sys_fd, dev_t rdev, bool on)
{
        _cleanup_close_ int fd = -EBADF;
        char path[96];

        profiling_path(path, sizeof(path), rdev);
        /* O_TRUNC means nothing to sysfs; it makes a fixture's regular file hold just the value. */
        fd = openat(sys_fd, path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        if (write(fd, on ? "1\n" : "0\n", 2) != 2)
                return errno > 0 ? -errno : -EIO;
        return 0;
}
