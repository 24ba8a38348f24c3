/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "macro.h"

/* An open-addressing map from borrowed NUL-terminated strings to small integer ids, in insertion order.
 * Used to intern setting keys and profile names once per configuration so that resolving a process
 * touches no hashing at all. The strings must outlive the table. */

typedef struct StrTable {
        const char **keys; /* by id */
        uint32_t *slots; /* id + 1, 0 = empty */
        size_t n_keys, n_slots, allocated_keys;
} StrTable;

void strtable_done(StrTable *t);

/* Returns the id of s, adding it if new: ret_new tells which. -ENOMEM on OOM, -E2BIG past UINT32_MAX/2. */
int strtable_put(StrTable *t, const char *s, bool *ret_new);

/* Returns the id of s or -ENOENT. */
int strtable_get(const StrTable *t, const char *s);
