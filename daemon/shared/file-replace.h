/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

#include "macro.h"

/* Replacing a file's content so that no edit is ever lost or half-written.
 *
 * The new content goes to a temporary file in a subdirectory FILE_REPLACE_TEMP_DIR of the target's
 * directory (the same file system, so the final rename is atomic; a subdirectory because the driver
 * reads every name in an rc.d directory, dotfiles included, but skips subdirectories, so a writer killed
 * halfway never leaves a file the driver would load). It is written, given the old file's mode and owner
 * (or new_mode for a new file), fsync()ed; then the target is read again and compared byte for byte with
 * what the caller's edit was based on; only if it is unchanged is the temporary renamed over it (or, for
 * a new file, renamed with RENAME_NOREPLACE), and the directory fsync()ed. Each writer holds a shared
 * flock() on the temporary directory; the last one out removes it, and with it any temporary left by a
 * writer killed before its rename (its lock died with it). */

#define FILE_REPLACE_TEMP_DIR ".nvprofiled-tmp"

typedef struct FileReplaceHooks {
        /* Called after the temporary file is complete and before the rename: for tests that kill the
         * writer there. */
        void (*before_rename)(void *userdata);
        void *userdata;
} FileReplaceHooks;

/* Replaces name in dir_fd. expected/expected_size: the content the new one was computed from; expected
 * NULL: the file must not exist. Returns 0 on success; -ESTALE if the file changed since (or was created
 * or removed); -ELOOP if name is a symbolic link; -EISDIR/-EBADFD if it is a directory or not a regular
 * file; -EPERM if its owner cannot be kept, or if FILE_REPLACE_TEMP_DIR is not the writer's own directory
 * closed to others; -EBUSY if that stays locked (another writer cleaning up for more than a few
 * milliseconds: never waited for longer); -EINVAL if name is not a plain file name; -EROFS, -ENOSPC,
 * -EDQUOT, -EACCES as the file system says. On any error the target is untouched and the temporary is
 * removed. hooks may be NULL. */
int file_replace(int dir_fd, const char *name, const void *expected, size_t expected_size, const void *data,
                size_t size, mode_t new_mode, const FileReplaceHooks *hooks);

/* Reads the regular file name in dir_fd (not following a final symlink: -ELOOP) into *ret (NUL
 * terminated), at most max bytes (-EFBIG beyond). -ENOENT if it does not exist. */
int file_read_regular(int dir_fd, const char *name, size_t max, char **ret, size_t *ret_size);
