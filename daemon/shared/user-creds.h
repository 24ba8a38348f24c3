/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include "macro.h"

/* Acting as a user for file access.
 *
 * The daemon reads files for users: the rc files under a process's $HOME (which the process's environment
 * chooses), files a D-Bus caller names by its home, and the system rc files as the driver would read
 * them inside the user's own process. Checking owner and mode of the final file is not enough
 * (directory search bits, ACLs, /proc's ptrace rules and LSMs all decide too), so we do not check: we
 * open with the user's filesystem credentials (fsuid, fsgid, supplementary groups) and no effective
 * capabilities, let the kernel decide exactly as for the user's own process, and read from that same
 * descriptor.
 *
 * The daemon is single-threaded, so switching its filesystem credentials around one open is safe. */

#define USER_CREDS_GROUPS_MAX 256u /* supplementary groups considered; more are dropped (fewer rights) */

typedef struct UserCreds {
        uid_t uid;
        gid_t gid;
        size_t n_groups;
        gid_t groups[USER_CREDS_GROUPS_MAX];
} UserCreds;

/* The credentials of the calling process itself (normalized). */
void user_creds_self(UserCreds *ret);

/* Sorts the groups, so that equal sets compare equal. */
void user_creds_normalize(UserCreds *c);

/* Whether two sets of credentials grant exactly the same access (same uid, gid and group set). */
bool user_creds_equal(const UserCreds *a, const UserCreds *b) _pure_;

/* A stable hash of the credentials, for keying per-user state. */
uint64_t user_creds_hash(const UserCreds *c) _pure_;

/* Parses the Uid:, Gid: and Groups: lines of /proc/<pid>/status into the credentials the process uses
 * for file access (the filesystem uid and gid, the 4th value of each line). */
int user_creds_from_proc_status(const char *status, UserCreds *ret);

/* Whether we can act as any user (CAP_SETUID and CAP_SETGID in our permitted set). A daemon that
 * cannot only reads for its own uid: everything else is refused with -EPERM. */
bool user_creds_can_switch(void);

/* Opens path below root_fd (as open_in_root() does: RESOLVE_IN_ROOT) with the access of creds. NULL
 * creds: the daemon's own. Only regular files and directories on a regular file system are opened for
 * reading: the type is looked up on an O_PATH handle first, so a fifo or a device is never opened, and
 * the descriptor returned is checked with fstatfs(), so nothing on procfs, sysfs or another pseudo file
 * system (fd_is_on_pseudo_file_system()) is ever read for a user; either gives -EBADFD. ret_st receives
 * the fstat() of what was opened (also for -EBADFD). -EPERM when we cannot act as that user. */
int open_for_reading_as(const UserCreds *creds, int root_fd, const char *path, struct stat *ret_st);

/* Runs fn(userdata) with the file access of creds (NULL: the daemon's own) and returns what it returns,
 * or -EPERM when we cannot act as that user. For anything else that checks permissions on a path, such
 * as adding an inotify watch (which needs read permission on the inode). */
int user_creds_run(const UserCreds *creds, int (*fn)(void *userdata), void *userdata);

/* The primary group and groups of uid's account, as its sessions get them (the user database); an unknown
 * user gets nogroup and no other group. */
void user_creds_from_user_database(uid_t uid, UserCreds *ret);

/* Becomes c for good, in a process of our own that acts for that user (a child that forked for it):
 * real, effective and saved uid and gid, the groups, and no capability left; not dumpable, so that the
 * user's processes cannot trace it. Needs CAP_SETUID and CAP_SETGID; -EPERM or another negative errno
 * when any step fails (the caller then must not go on). */
int user_creds_become(const UserCreds *c);

/* The start-up self-test (nvprofiled(8)): after a round trip of switches (to root's file access and to
 * nobody's, when we can switch at all), can we still read what only its owner, root or
 * CAP_DAC_READ_SEARCH (with CAP_SYS_PTRACE) can read: the environment of our parent process (systemd,
 * under the unit), *ret_pid? Every other user's environment (their $HOME, their __GL_* variables) is
 * read the same way. proc_fd: the live /proc. 0: yes; 1: not tested, the parent runs as our own uid; a
 * negative errno: why not. */
int user_creds_self_test(int proc_fd, pid_t *ret_pid);
