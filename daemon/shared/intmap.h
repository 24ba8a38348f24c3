/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "macro.h"

/* An open-addressing map from non-zero 64-bit keys to pointers (the daemon's pid -> process table).
 * Removal uses backward shifting, so there are no tombstones and lookups stay short under churn
 * (an exec storm adds and removes thousands of keys per second). */

typedef struct IntMapSlot {
        uint64_t key; /* 0 = empty */
        void *value;
} IntMapSlot;

typedef struct IntMap {
        IntMapSlot *slots;
        size_t n_slots, n_items;
} IntMap;

void intmap_done(IntMap *m);
int intmap_put(IntMap *m, uint64_t key, void *value); /* replaces; -ENOMEM */
void *intmap_get(const IntMap *m, uint64_t key);
void *intmap_remove(IntMap *m, uint64_t key);

/* Iteration: for (size_t i = 0; intmap_next(m, &i, &k, &v);) ... Do not modify while iterating. */
bool intmap_next(const IntMap *m, size_t *i, uint64_t *ret_key, void **ret_value);

static inline size_t intmap_size(const IntMap *m)
{
        return m->n_items;
}
