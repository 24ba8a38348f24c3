/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "macro.h"
#include "user-counts.h"

unsigned user_counts_share_of(unsigned total)
{
        return MAX(total / 8u, 1u);
}

void user_counts_init(UserCounts *c, unsigned total_max)
{
        assert(c);

        *c = (UserCounts){ .total_max = total_max, .per_user_max = user_counts_share_of(total_max) };
}

void user_counts_done(UserCounts *c)
{
        assert(c);

        free(c->items);
        c->items = NULL;
        c->n_items = 0;
        c->total = 0;
}

static UserCount *find(const UserCounts *c, uid_t uid)
{
        for (size_t i = 0; i < c->n_items; i++)
                if (c->items[i].uid == uid)
                        return &c->items[i];
        return NULL;
}

unsigned user_counts_of(const UserCounts *c, uid_t uid)
{
        const UserCount *u;

        assert(c);

        u = find(c, uid);
        return u ? u->n : 0;
}

int user_counts_take(UserCounts *c, uid_t uid)
{
        UserCount *u;

        assert(c);

        u = find(c, uid);
        if (u && u->n >= c->per_user_max)
                return -EUSERS;
        if (c->total >= c->total_max)
                return -E2BIG;
        if (!u) {
                /* Every user listed holds one at least, so there are never more than total_max of them. */
                if (!c->items) {
                        c->items = calloc(c->total_max, sizeof(UserCount));
                        if (!c->items)
                                return -ENOMEM;
                }
                assert(c->n_items < c->total_max);
                u = &c->items[c->n_items++];
                *u = (UserCount){ .uid = uid };
        }
        u->n++;
        c->total++;
        return 0;
}

void user_counts_release(UserCounts *c, uid_t uid)
{
        UserCount *u;

        assert(c);

        u = find(c, uid);
        assert(u && u->n > 0);
        assert(c->total > 0);
        c->total--;
        if (--u->n == 0)
                *u = c->items[--c->n_items];
}
