/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* An unprivileged user that a case creates for itself (useradd), unique to the test process, and removes
 * at the end, also when an assertion aborts the case: the attacker of HACKING.md's security rules. */

#include <stdbool.h>
#include <sys/types.h>

typedef struct ITestUser {
        char name[64];
        uid_t uid;
        gid_t gid;
} ITestUser;

/* Root only. name: prefix-<our pid>; an earlier run's users of that prefix whose test is gone go first. */
void itest_user_create(ITestUser *u, const char *prefix);
void itest_user_remove(ITestUser *u);

/* Runs fn(userdata) in a child that dropped to u (no groups, no capabilities, no way back) and returns its
 * exit status (128 + signal when killed). The child inherits our descriptors. */
int itest_user_run(const ITestUser *u, int (*fn)(void *userdata), void *userdata);
