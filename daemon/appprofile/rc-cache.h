/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-config.h"
#include "strtable.h"

/* A cache of parsed rc files for the daemon, used as RcLoadOptions.load_file:
 *   - a file whose identity (device, inode, size, mtime) did not change is not read again, so loading
 *     one configuration per $HOME costs an open and an fstat() per file;
 *   - a file that breaks keeps its last good version in force (the daemon's promise: one bad save in
 *     an editor does not drop a user's profiles), while the broken version is kept for reporting.
 * The cache never opens anything: rc-config opens each file with the reading user's access and hands
 * the descriptor in, so a cached version is only ever served to someone who could open the file. */

typedef struct RcCacheEntry {
        char *key; /* root device and inode, and path: what the index maps */
        char *path;
        dev_t root_dev;
        ino_t root_ino;
        RcFile *current; /* what the file holds now (may be broken) */
        RcFile *good; /* the last version that loaded, or NULL */
        uint64_t generation; /* last generation that used the entry */
        uid_t uid; /* whose configuration used it first in that generation (RC_CACHE_UID_SYSTEM: the
                    * system's), for attributing what is logged about the file */
} RcCacheEntry;

#define RC_CACHE_UID_SYSTEM ((uid_t) -1)

typedef struct RcFileCache {
        RcCacheEntry *entries;
        size_t n_entries, allocated;
        StrTable index; /* key -> entry, rebuilt when entries go */
        uint64_t generation;
        size_t max_entries;
        uid_t loading_uid; /* whose configuration the loads now are for: RcCacheEntry.uid */
} RcFileCache;

#define RC_CACHE_ENTRIES_MAX 16384u

void rc_file_cache_done(RcFileCache *c);

/* The RcLoadFileFunc; userdata is the RcFileCache. */
int rc_file_cache_load(int root_fd, int fd, const struct stat *st, const char *path, const RcSyntaxOptions *syntax,
                void *userdata, RcFile **ret);

/* Starts a new generation of loads; rc_file_cache_prune() then drops entries the generation did not use
 * (files that were deleted, roots that went away). */
void rc_file_cache_begin(RcFileCache *c);
void rc_file_cache_prune(RcFileCache *c);

/* Drops entries no configuration refers to any more (after configurations were evicted). */
void rc_file_cache_drop_unused(RcFileCache *c);

/* Memory the cached files take (text and model of every version held). */
uint64_t rc_file_cache_cost(const RcFileCache *c) _pure_;

/* Whether the entry's file is currently broken with an older good version in force. */
static inline bool rc_cache_entry_is_stale(const RcCacheEntry *e)
{
        return e->current && e->current->state == RC_FILE_BROKEN && e->good;
}
