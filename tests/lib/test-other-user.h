/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/* For a child the test runs as another user (nobody, a user it creates): the build tree and the checkout
 * may sit in a directory only root can enter (a checkout in /root, mode 0700), so what the child execs
 * or reads is copied into dir (the test's own temporary directory, which that user can reach). */

/* Copies file into dir once (mode 0755) and returns the copy's path. */
char *test_copy_for_other_users(const char *dir, const char *file);

/* Our environment, with LSAN_OPTIONS' suppressions file (sanitizer builds) copied into dir and pointed at
 * there: a sanitized program that cannot read its suppressions file fails at start. */
char **test_environ_for_other_users(const char *dir);
