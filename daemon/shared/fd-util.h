/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

#include "macro.h"

/* Closes fd if valid, keeps errno, returns -EBADF so callers can write "fd = safe_close(fd);". */
int safe_close(int fd);

static inline void closep(int *fd)
{
        (void) safe_close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f)
{
        if (*f)
                (void) fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

static inline void closedirp(DIR **d)
{
        if (*d)
                (void) closedir(*d);
}
#define _cleanup_closedir_ _cleanup_(closedirp)
