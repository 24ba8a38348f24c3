/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/* The unprivileged user a security case creates for itself (useradd) and removes at its end, or, when an
 * assertion aborts the case first, from the signal handler (itest_user_remove_now()). One at a time per
 * test process. Root only. */

typedef struct ITestUser {
        char *name; /* <prefix><our pid>: unique, so that concurrent runs never share it */
        uid_t uid;
        gid_t gid;
} ITestUser;

/* Removes the users an earlier run left behind when it was killed (whose pid in the name is gone), then
 * creates "<prefix><pid>": a system user with its own group, no home, no shell. */
void itest_user_create(ITestUser *u, const char *prefix);

/* Removes the user (retrying while /etc/passwd is locked) and frees u. */
void itest_user_remove(ITestUser *u);

/* Async-signal-safe (fork and exec only): removes the user being created or used, if any. */
void itest_user_remove_now(void);

/* A GSpawnChildSetupFunc (userdata: the ITestUser): the child becomes the user, with no supplementary
 * groups and no way back, and dies with the test. */
void itest_user_become(gpointer userdata);

/* The user owns path (a link itself, not what it names). */
void itest_user_chown(const ITestUser *u, const char *path);
