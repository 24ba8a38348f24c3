/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* How many of a bounded kind of thing (requests waiting for an answer, say) each user holds: within a
 * total for all users and, so that one user cannot take them all, a share of it for each. */

typedef struct UserCount {
        uid_t uid;
        unsigned n;
} UserCount;

typedef struct UserCounts {
        unsigned total_max; /* all users together */
        unsigned per_user_max; /* each user's share */
        unsigned total;
        UserCount *items; /* users holding at least one; at most total_max of them */
        size_t n_items;
} UserCounts;

/* A user's share of total: an eighth of it, at least one. The one definition of "a share". */
unsigned user_counts_share_of(unsigned total);

/* Empty counts of total_max, each user's share user_counts_share_of(total_max). */
void user_counts_init(UserCounts *c, unsigned total_max);
void user_counts_done(UserCounts *c);

/* Counts one more for uid: -EUSERS when uid holds its share already, -E2BIG when all users together hold
 * total_max, -ENOMEM. */
int user_counts_take(UserCounts *c, uid_t uid);
/* Counts one less for uid (which must hold one). */
void user_counts_release(UserCounts *c, uid_t uid);
/* What uid holds. */
unsigned user_counts_of(const UserCounts *c, uid_t uid);
