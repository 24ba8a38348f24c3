/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "intmap.h"

static size_t slot_of(const IntMap *m, uint64_t key)
{
        /* Fibonacci hashing spreads sequential pids over the table. */
        return (size_t) ((key * UINT64_C(11400714819323198485)) >> 20) & (m->n_slots - 1);
}

void intmap_done(IntMap *m)
{
        if (!m)
                return;
        free(m->slots);
        *m = (IntMap){ 0 };
}

static int resize(IntMap *m, size_t n_slots)
{
        IntMapSlot *old = m->slots;
        size_t old_n = m->n_slots;

        m->slots = calloc(n_slots, sizeof(IntMapSlot));
        if (!m->slots) {
                m->slots = old;
                return -ENOMEM;
        }
        m->n_slots = n_slots;
        m->n_items = 0;
        for (size_t i = 0; i < old_n; i++)
                if (old[i].key != 0)
                        (void) intmap_put(m, old[i].key, old[i].value);
        free(old);
        return 0;
}

int intmap_put(IntMap *m, uint64_t key, void *value)
{
        size_t i;
        int r;

        assert(m);
        assert(key != 0);

        /* Load factor at most 1/2. */
        if ((m->n_items + 1) * 2 > m->n_slots) {
                r = resize(m, m->n_slots ? m->n_slots * 2 : 64);
                if (r < 0)
                        return r;
        }

        for (i = slot_of(m, key);; i = (i + 1) & (m->n_slots - 1)) {
                if (m->slots[i].key == key) {
                        m->slots[i].value = value;
                        return 0;
                }
                if (m->slots[i].key == 0)
                        break;
        }
        m->slots[i] = (IntMapSlot){ key, value };
        m->n_items++;
        return 0;
}

void *intmap_get(const IntMap *m, uint64_t key)
{
        assert(m);

        if (m->n_slots == 0 || key == 0)
                return NULL;
        for (size_t i = slot_of(m, key);; i = (i + 1) & (m->n_slots - 1)) {
                if (m->slots[i].key == key)
                        return m->slots[i].value;
                if (m->slots[i].key == 0)
                        return NULL;
        }
}

void *intmap_remove(IntMap *m, uint64_t key)
{
        size_t i, j, mask;
        void *value;

        assert(m);

        if (m->n_slots == 0 || key == 0)
                return NULL;
        mask = m->n_slots - 1;
        for (i = slot_of(m, key);; i = (i + 1) & mask) {
                if (m->slots[i].key == key)
                        break;
                if (m->slots[i].key == 0)
                        return NULL;
        }
        value = m->slots[i].value;
        m->n_items--;

        /* Backward-shift deletion: move later members of the probe run into the hole. */
        for (j = (i + 1) & mask; m->slots[j].key != 0; j = (j + 1) & mask) {
                size_t home = slot_of(m, m->slots[j].key);
                /* Move j to i unless its home lies cyclically in (i, j]. */
                bool in_range = i <= j ? (home > i && home <= j) : (home > i || home <= j);
                if (!in_range) {
                        m->slots[i] = m->slots[j];
                        i = j;
                }
        }
        m->slots[i] = (IntMapSlot){ 0 };
        return value;
}

bool intmap_next(const IntMap *m, size_t *i, uint64_t *ret_key, void **ret_value)
{
        assert(m);
        assert(i);

        for (; *i < m->n_slots; (*i)++)
                if (m->slots[*i].key != 0) {
                        if (ret_key)
                                *ret_key = m->slots[*i].key;
                        if (ret_value)
                                *ret_value = m->slots[*i].value;
                        (*i)++;
                        return true;
                }
        return false;
}
