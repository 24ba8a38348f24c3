/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/stat.h>

#include "macro.h"

/* Opens path below root_fd as if root_fd were "/": absolute symlinks and ".." stay inside it
 * (openat2 RESOLVE_IN_ROOT). This is how configuration and /proc/<pid>/root paths are resolved, so a
 * container's or a fixture tree's symlinks can never point us at the host's files. */
int open_in_root(int root_fd, const char *path, int flags);

/* The same, but a symbolic link anywhere on the path is -ELOOP (RESOLVE_NO_SYMLINKS): for a path the
 * kernel wrote, which names none (/proc/<pid>/exe), so that one lookup costs one walk of its components
 * and never a chain of links someone made since. */
int open_in_root_no_symlinks(int root_fd, const char *path, int flags);

/* Whether fd is on a pseudo file system (procfs, sysfs, debugfs, ...: the list and why are in fileio.c),
 * whose files hold nothing anyone stored: 1 if it is, 0 if not, -errno if fstatfs() fails. Files the
 * daemon reads for a user are regular files on a regular file system, checked on the descriptor read. */
int fd_is_on_pseudo_file_system(int fd);

/* Reads a whole regular file from an open fd, at most max_size bytes; a larger file is -EFBIG. The
 * buffer is NUL-terminated (not counted in *ret_size). Refuses non-regular files with -EBADFD so a fifo
 * or device can never block or flood us. */
int read_full_fd(int fd, size_t max_size, char **ret, size_t *ret_size);

/* Like read_full_fd() on open_in_root(root_fd, path). Opens with O_NONBLOCK|O_NOCTTY and checks the
 * type before reading. ret_st, if given, receives the fstat of what was read. */
int read_full_file_in_root(
                int root_fd, const char *path, size_t max_size, char **ret, size_t *ret_size, struct stat *ret_st);

/* Reads a small virtual file (procfs, sysfs) whose st_size is 0: reads until EOF, bounded by max_size. */
int read_virtual_file_at(int dir_fd, const char *path, size_t max_size, char **ret, size_t *ret_size);

/* The same for a file the kernel hands over whole in one read(2) when the buffer is large enough (/proc's
 * per-process stat, status, cmdline and environ: a single seq_file record, or a loop over the process's
 * memory): a read shorter than the buffer is the end, so no second read(2) looks for EOF. Not for files
 * made of many records, such as maps, which come a page at a time. */
int read_virtual_file_whole_at(int dir_fd, const char *path, size_t max_size, char **ret, size_t *ret_size);

/* Writes all size bytes of data to fd, going on after short writes and EINTR. */
int loop_write(int fd, const void *data, size_t size);

/* Reads exactly size bytes from fd into data; -EPROTO when fd ends before. */
int loop_read_exact(int fd, void *data, size_t size);
