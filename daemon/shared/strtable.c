/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "strtable.h"

/* FNV-1a: good enough distribution for keys we also bound in length and count. The table never
 * sees caller-chosen keys on a hot path, so we do not need a keyed hash here. */
static uint64_t hash_string(const char *s)
{
        uint64_t h = UINT64_C(0xcbf29ce484222325);

        for (; *s; s++) {
                h ^= (unsigned char) *s;
                h *= UINT64_C(0x100000001b3);
        }
        return h;
}

void strtable_done(StrTable *t)
{
        if (!t)
                return;
        free(t->keys);
        free(t->slots);
        *t = (StrTable){ 0 };
}

static size_t slot_find(const StrTable *t, const char *s)
{
        size_t mask = t->n_slots - 1, i = (size_t) hash_string(s) & mask;

        for (;;) {
                uint32_t v = t->slots[i];
                if (v == 0 || streq(t->keys[v - 1], s))
                        return i;
                i = (i + 1) & mask;
        }
}

static int rehash(StrTable *t, size_t n_slots)
{
        uint32_t *slots = calloc(n_slots, sizeof(uint32_t));
        if (!slots)
                return -ENOMEM;

        free(t->slots);
        t->slots = slots;
        t->n_slots = n_slots;
        for (size_t id = 0; id < t->n_keys; id++)
                t->slots[slot_find(t, t->keys[id])] = (uint32_t) id + 1;
        return 0;
}

int strtable_put(StrTable *t, const char *s, bool *ret_new)
{
        size_t i;
        int r;

        assert(t);
        assert(s);

        if (t->n_keys >= UINT32_MAX / 2)
                return -E2BIG;

        /* Keep the load factor at or below 1/2. */
        if ((t->n_keys + 1) * 2 > t->n_slots) {
                r = rehash(t, t->n_slots ? t->n_slots * 2 : 16);
                if (r < 0)
                        return r;
        }

        i = slot_find(t, s);
        if (t->slots[i] != 0) {
                if (ret_new)
                        *ret_new = false;
                return (int) t->slots[i] - 1;
        }

        if (GREEDY_REALLOC(t->keys, t->allocated_keys, t->n_keys + 1) < 0)
                return -ENOMEM;
        t->keys[t->n_keys] = s;
        t->slots[i] = (uint32_t) ++t->n_keys;
        if (ret_new)
                *ret_new = true;
        return (int) t->n_keys - 1;
}

int strtable_get(const StrTable *t, const char *s)
{
        size_t i;

        assert(t);
        assert(s);

        if (t->n_slots == 0)
                return -ENOENT;
        i = slot_find(t, s);
        return t->slots[i] == 0 ? -ENOENT : (int) t->slots[i] - 1;
}
