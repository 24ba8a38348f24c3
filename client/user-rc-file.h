/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* A user's own rc files (~/.nv), read and written by the user's own client (nvprofilectl, the desktop
 * app), as the user: the daemon only previews what an edit of them changes. home is whose files they are
 * (the home directory as named), dir the file's directory below it (~/.nv or
 * ~/.nv/nvidia-application-profiles-rc.d, as rc_entry_path() names them), name its name there.
 *
 * The client never writes with more rights than the home's owner. In the caller's own home, paths are
 * resolved as the caller's own programs resolve them (a ~/.nv linked into a dotfiles repository works).
 * In another user's home (root's nvprofilectl --home, or sudo keeping $HOME), every directory below the
 * home is opened without following links (-ELOOP when one is a link), and, when we are root, every access
 * runs in a child that became the home's owner for good (uid, gid and groups): whatever the owner links or
 * mounts there, nothing is read or written that the owner could not read or write, and what is created
 * is the owner's. */

/* The file an edit goes into in an rc.d directory when none is named. */
#define USER_RC_DEFAULT_FILE_NAME "50-nvprofilectl"

/* Reads the file into *ret (NUL-terminated); *ret is NULL and *ret_size 0 when it (or its directory, or the
 * home) does not exist. */
int user_rc_file_read(const char *home, const char *dir, const char *name, char **ret, size_t *ret_size);

/* Replaces the file's text old (NULL: it does not exist yet) with new_text, atomically, mode 0644 for a
 * new file, creating ~/.nv and its rc.d directory (never over a file of that name: nvidia-settings turns
 * such a file into a directory, we refuse); -ESTALE when the file changed since old was read (nothing
 * written). */
int user_rc_file_replace(const char *home, const char *dir, const char *name, const char *old, size_t old_size,
                const char *new_text, size_t new_size);

/* The names in dir that do not start with '.' (a strv, empty when it does not exist). */
int user_rc_dir_list(const char *home, const char *dir, char ***ret);
