/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "macro.h"

/* The part after the last '/' (the whole string if there is none). Never allocates. */
const char *path_basename(const char *path);

static inline bool startswith(const char *s, const char *prefix)
{
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline bool isempty(const char *s)
{
        return !s || s[0] == '\0';
}

static inline bool endswith(const char *s, const char *suffix)
{
        size_t ls = strlen(s), lx = strlen(suffix);
        return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

/* The value of a hexadecimal digit, -1 for another character. */
int unhexchar(char c) _const_;

/* Checks UTF-8 validity (rejecting overlongs and surrogates), so whatever we pass to D-Bus is valid. */
bool utf8_is_valid_n(const char *s, size_t len);

/* The length of the valid UTF-8 sequence at s (at most len bytes available), or 0 if it is invalid. */
size_t utf8_sequence_length(const char *s, size_t len) _pure_;

/* Levenshtein distance of a and b, letters compared in any ASCII case when ignore_case; SIZE_MAX when either
 * is longer than 64 bytes (no caller compares longer names). */
size_t string_distance(const char *a, const char *b, bool ignore_case) _pure_;

/* Joins two path components with one '/'; returns NULL on OOM. */
char *path_join(const char *a, const char *b);
