/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "user-creds.h"

/* Who reads and writes the files of an rc edit (rc-edit-transaction.h), and how a file's directory is
 * reached: every access opens the directory with the writer's own access and works below that
 * descriptor only.
 *
 * The system's files (home NULL: the daemon) are reached below root_fd (RESOLVE_IN_ROOT) with the file
 * access of creds (NULL: the process's own; user_creds_run()); a write creates the system's rc.d
 * directory (mode 0755 whatever the umask, only where nothing is) and no other.
 *
 * A user's files (home set: that user's own client, nvprofilectl or the app) are reached below the
 * home. The client never writes with more rights than the home's owner. In the caller's own home, paths
 * are resolved as the caller's own programs resolve them (a ~/.nv linked into a dotfiles repository
 * works). In another user's home (root's nvprofilectl --home, or sudo keeping $HOME), every directory
 * below the home is opened without following links (-ELOOP when one is a link), and, when we are root,
 * every access runs in a child that became the home's owner for good (uid, gid and groups): whatever the
 * owner links or mounts there, nothing is read or written that the owner could not read or write, and
 * what is created is the owner's. A write creates the missing directories below the home (never over a
 * file of that name: nvidia-settings turns such a file into a directory, we refuse). */

typedef struct RcEditWriter {
        const char *home; /* a user's files, below this home; NULL: the system's */
        int root_fd; /* the system's: paths resolve below it */
        const UserCreds *creds; /* the system's: whose file access (NULL: our own) */
} RcEditWriter;

/* What runs in a file's directory, as the writer: dir_fd is the directory; a text it reads (NULL: none)
 * goes to *ret. */
typedef int (*RcEditDirFunc)(int dir_fd, void *userdata, char **ret, size_t *ret_size);

/* The most bytes fn may hand back through *ret. */
#define RC_EDIT_WRITER_REPLY_MAX (4u * 1024u * 1024u)

/* Opens dir (absolute; for a user's files below home) as w, creating what a write may create when
 * create, and runs fn there: in a child that became the home's owner where w says so, which hands back
 * fn's result and text. -ENOENT when dir (or the home) does not exist and create is false; -EINVAL when
 * dir is not below the home. */
int rc_edit_writer_run(const RcEditWriter *w, const char *dir, bool create, RcEditDirFunc fn, void *userdata,
                char **ret, size_t *ret_size);

/* The names in dir, a directory of a user's files, that do not start with '.' (a strv, empty when it
 * does not exist). */
int rc_edit_writer_list(const RcEditWriter *w, const char *dir, char ***ret);
