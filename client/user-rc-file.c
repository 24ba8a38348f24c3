/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "file-replace.h"
#include "fileio.h"
#include "macro.h"
#include "rc-reader.h"
#include "user-rc-file.h"

int user_rc_dir_open(const char *dir, bool create)
{
        int fd;

        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0 || errno != ENOENT || !create)
                return fd >= 0 ? fd : -errno;

        {
                const char *slash = strrchr(dir, '/');
                _cleanup_free_ char *parent = NULL;

                if (!slash)
                        return -EINVAL;
                parent = strndup(dir, slash - dir);
                if (!parent)
                        return -ENOMEM;
                if (mkdir(parent, 0755) < 0 && errno != EEXIST)
                        return -errno;
        }
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        return fd >= 0 ? fd : -errno;
}

int user_rc_file_read(const char *dir, const char *name, char **ret, size_t *ret_size)
{
        _cleanup_close_ int dir_fd = -EBADF;
        int r;

        *ret = NULL;
        *ret_size = 0;
        dir_fd = user_rc_dir_open(dir, false);
        if (dir_fd == -ENOENT)
                return 0;
        if (dir_fd < 0)
                return dir_fd;
        r = file_read_regular(dir_fd, name, RC_FILE_SIZE_MAX, ret, ret_size);
        return r == -ENOENT ? 0 : r;
}

int user_rc_file_replace(const char *dir, const char *name, const char *old, size_t old_size, const char *new_text,
                size_t new_size)
{
        _cleanup_close_ int dir_fd = -EBADF;

        dir_fd = user_rc_dir_open(dir, true);
        if (dir_fd < 0)
                return dir_fd;
        return file_replace(dir_fd, name, old, old_size, new_text, new_size, 0644, NULL);
}
