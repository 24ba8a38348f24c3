/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* A user's own rc files (~/.nv), read and written by the user's own client (nvprofilectl, the desktop
 * app), as the user: the daemon only previews what an edit of them changes. dir is the file's directory
 * (~/.nv or ~/.nv/nvidia-application-profiles-rc.d), name its name there. */

/* The file an edit goes into in an rc.d directory when none is named. */
#define USER_RC_DEFAULT_FILE_NAME "50-nvprofilectl"

/* Opens dir, creating ~/.nv and its rc.d directory when create (never over a file of that name:
 * nvidia-settings turns such a file into a directory, we refuse). Returns the fd or a negative errno. */
int user_rc_dir_open(const char *dir, bool create);

/* Reads the file into *ret (NUL-terminated); *ret is NULL and *ret_size 0 when it does not exist. */
int user_rc_file_read(const char *dir, const char *name, char **ret, size_t *ret_size);

/* Replaces the file's text old (NULL: it does not exist yet) with new_text, atomically, mode 0644 for a
 * new file; -ESTALE when the file changed since old was read (nothing written). */
int user_rc_file_replace(const char *dir, const char *name, const char *old, size_t old_size, const char *new_text,
                size_t new_size);
