/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <sys/stat.h>

#include "rc-cache.h"

static void entry_done(RcCacheEntry *e)
{
        free(e->key);
        free(e->path);
        rc_file_unref(e->current);
        rc_file_unref(e->good);
}

void rc_file_cache_done(RcFileCache *c)
{
        if (!c)
                return;
        for (size_t i = 0; i < c->n_entries; i++)
                entry_done(&c->entries[i]);
        free(c->entries);
        strtable_done(&c->index);
        *c = (RcFileCache){ 0 };
}

static char *entry_key(const struct stat *root, const char *path)
{
        char *key;

        if (asprintf(&key, "%llx:%llx:%s", (unsigned long long) root->st_dev, (unsigned long long) root->st_ino, path) <
                        0)
                return NULL;
        return key;
}

/* The index maps keys to positions in entries; after entries were removed, it is rebuilt (once per
 * reload at most, so lookups stay O(1) and removal O(n) in total). */
static int reindex(RcFileCache *c)
{
        strtable_done(&c->index);
        for (size_t i = 0; i < c->n_entries; i++) {
                int r = strtable_put(&c->index, c->entries[i].key, NULL);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void remove_entries(RcFileCache *c, bool (*drop)(const RcFileCache *c, const RcCacheEntry *e))
{
        size_t j = 0;

        for (size_t i = 0; i < c->n_entries; i++) {
                RcCacheEntry *e = &c->entries[i];

                if (!drop(c, e)) {
                        c->entries[j++] = *e;
                        continue;
                }
                entry_done(e);
        }
        if (j == c->n_entries)
                return;
        c->n_entries = j;
        if (reindex(c) < 0) {
                /* Without an index the cache is useless: start afresh rather than serve wrong entries. */
                for (size_t i = 0; i < c->n_entries; i++)
                        entry_done(&c->entries[i]);
                c->n_entries = 0;
                strtable_done(&c->index);
        }
}

/* The entry serves the current generation: the first load that uses it in a generation is whose it is. */
static void entry_use(RcFileCache *c, RcCacheEntry *e)
{
        if (e->generation != c->generation)
                e->uid = c->loading_uid;
        e->generation = c->generation;
}

int rc_file_cache_load(int root_fd, int fd, const struct stat *st, const char *path, const RcSyntaxOptions *syntax,
                void *userdata, RcFile **ret)
{
        RcFileCache *c = userdata;
        _cleanup_free_ char *key = NULL;
        struct stat root;
        RcCacheEntry *e = NULL;
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        bool is_new;
        int r, id;

        assert(c);
        assert(st);
        assert(path);
        assert(ret);

        if (fstat(root_fd, &root) < 0)
                return rc_file_load_fd(root_fd, fd, st, path, syntax, NULL, ret);
        key = entry_key(&root, path);
        if (!key)
                return -ENOMEM;

        id = strtable_get(&c->index, key);
        if (id >= 0)
                e = &c->entries[id];

        if (e && rc_file_same_identity(e->current, st)) {
                entry_use(c, e);
                /* The last good version only for those who may read the file as it is now, with the
                 * same owner and mode it had then; anyone else gets what the file holds now. */
                *ret = rc_file_ref(
                                rc_cache_entry_is_stale(e) && rc_file_same_access(e->good, st) ? e->good : e->current);
                return 0;
        }

        r = rc_file_load_fd(root_fd, fd, st, path, syntax, NULL, &f);
        if (r < 0)
                return r;
        if (f->state == RC_FILE_SKIPPED) {
                /* Unreadable now: nothing to cache, and no reason to keep serving an old version. */
                *ret = TAKE_PTR(f);
                return 0;
        }

        if (!e) {
                if (c->n_entries >= (c->max_entries ? c->max_entries : RC_CACHE_ENTRIES_MAX)) {
                        *ret = TAKE_PTR(f); /* full: work uncached */
                        return 0;
                }
                if (GREEDY_REALLOC(c->entries, c->allocated, c->n_entries + 1) < 0)
                        return -ENOMEM;
                e = &c->entries[c->n_entries];
                *e = (RcCacheEntry){ .key = TAKE_PTR(key),
                        .path = strdup(path),
                        .root_dev = root.st_dev,
                        .root_ino = root.st_ino,
                        .generation = c->generation,
                        .uid = c->loading_uid };
                r = e->path ? strtable_put(&c->index, e->key, &is_new) : -ENOMEM;
                if (r < 0) {
                        entry_done(e);
                        return r;
                }
                assert(is_new && (size_t) r == c->n_entries);
                c->n_entries++;
        }

        entry_use(c, e);
        rc_file_unref(e->current);
        e->current = rc_file_ref(f);
        if (f->state == RC_FILE_LOADED) {
                rc_file_unref(e->good);
                e->good = rc_file_ref(f);
        }

        if (rc_cache_entry_is_stale(e) && rc_file_same_access(e->good, st))
                *ret = rc_file_ref(e->good);
        else
                *ret = TAKE_PTR(f);
        return 0;
}

void rc_file_cache_begin(RcFileCache *c)
{
        assert(c);
        c->generation++;
}

static bool entry_unused_this_generation(const RcFileCache *c, const RcCacheEntry *e)
{
        return e->generation != c->generation;
}

void rc_file_cache_prune(RcFileCache *c)
{
        assert(c);
        remove_entries(c, entry_unused_this_generation);
}

/* Nobody but the cache holds the entry's files. */
static bool entry_unreferenced(const RcFileCache *c, const RcCacheEntry *e)
{
        unsigned held = (e->current ? 1 : 0) + (e->good ? 1 : 0);
        unsigned refs = e->current == e->good ? (e->current ? e->current->n_ref : 0)
                                              : (e->current ? e->current->n_ref : 0) + (e->good ? e->good->n_ref : 0);
        return refs <= held;
}

void rc_file_cache_drop_unused(RcFileCache *c)
{
        assert(c);
        remove_entries(c, entry_unreferenced);
}

uint64_t rc_file_cache_cost(const RcFileCache *c)
{
        uint64_t total = 0;

        for (size_t i = 0; i < c->n_entries; i++) {
                const RcCacheEntry *e = &c->entries[i];
                if (e->current)
                        total += rc_file_cost(e->current);
                if (e->good && e->good != e->current)
                        total += rc_file_cost(e->good);
        }
        return total;
}
