/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "macro.h"

/* Strict number parsers: the whole string must be a number in range, no leading whitespace or sign
 * surprises (strtoul accepts "-1" and " 1"; these do not). Return 0, -EINVAL or -ERANGE. */
int safe_atou64(const char *s, uint64_t *ret);
int safe_atoi64(const char *s, int64_t *ret);
int safe_atou32(const char *s, uint32_t *ret);
int safe_atou(const char *s, unsigned *ret);
int safe_atozu(const char *s, size_t *ret);
int safe_atob(const char *s, bool *ret);

/* Parses a time span such as "250ms", "2s", "1min", "500us" or a bare number of microseconds. */
int parse_usec(const char *s, uint64_t *ret_usec);

/* Parses a size such as "16M", "4K", "1G" or a bare number of bytes (powers of 1024). */
int parse_size(const char *s, uint64_t *ret);
