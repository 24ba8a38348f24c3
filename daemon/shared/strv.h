/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "macro.h"

/* NULL-terminated string vectors. */

char **strv_free(char **l);
DEFINE_TRIVIAL_CLEANUP_FUNC(char **, strv_free);
#define _cleanup_strv_free_ _cleanup_(strv_freep)

size_t strv_length(char *const *l);
/* Appends a copy of s; returns 0 or -ENOMEM. */
int strv_extend(char ***l, const char *s);
/* Appends s itself, taking ownership (freed on failure too). */
int strv_consume(char ***l, char *s);
char **strv_copy(char *const *l);
/* The strings one after the other, separator between them ("" for none or NULL); NULL when out of memory. */
char *strv_join(char *const *l, const char *separator);

bool strv_contains(char *const *l, const char *s) _pure_;

/* Looks up "name=value" entries in an environment block; returns the value or NULL. */
const char *strv_env_get(char *const *env, const char *name);

/* Splits a NUL-separated buffer (as in /proc/<pid>/cmdline or environ) into a vector, at most max
 * entries. A final entry without its NUL is kept. */
int strv_from_nulstr(const char *buf, size_t size, size_t max, char ***ret);

#define STRV_FOREACH(s, l) for (char *const *s = (l); s && *s; s++)
