/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fd-util.h"

int safe_close(int fd)
{
        if (fd >= 0) {
                int saved = errno;
                (void) close(fd);
                errno = saved;
        }
        return -EBADF;
}
