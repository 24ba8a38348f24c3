/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sys/stat.h>

#include "fd-util.h"
#include "fileio.h"
#include "rc-cache.h"

void rc_file_cache_done(RcFileCache *c)
{
        if (!c)
                return;
        for (size_t i = 0; i < c->n_entries; i++) {
                free(c->entries[i].path);
                rc_file_unref(c->entries[i].current);
                rc_file_unref(c->entries[i].good);
        }
        free(c->entries);
        *c = (RcFileCache){ 0 };
}

static RcCacheEntry *find(RcFileCache *c, const struct stat *root, const char *path)
{
        for (size_t i = 0; i < c->n_entries; i++) {
                RcCacheEntry *e = &c->entries[i];
                if (e->root_dev == root->st_dev && e->root_ino == root->st_ino && streq(e->path, path))
                        return e;
        }
        return NULL;
}

int rc_file_cache_load(int root_fd, const char *path, const RcSyntaxOptions *syntax, void *userdata, RcFile **ret)
{
        RcFileCache *c = userdata;
        _cleanup_close_ int fd = -EBADF;
        struct stat root, st;
        RcCacheEntry *e;
        RcFile *f = NULL;
        int r;

        assert(c);
        assert(path);
        assert(ret);

        if (fstat(root_fd, &root) < 0)
                return rc_file_load(root_fd, path, syntax, NULL, ret);

        e = find(c, &root, path);

        fd = open_in_root(root_fd, path, O_PATH);
        if (fd >= 0 && fstat(fd, &st) >= 0 && e && rc_file_same_identity(e->current, &st)) {
                e->generation = c->generation;
                *ret = rc_file_ref(rc_cache_entry_is_stale(e) ? e->good : e->current);
                return 0;
        }

        r = rc_file_load(root_fd, path, syntax, NULL, &f);
        if (r < 0)
                return r;
        if (f->state == RC_FILE_SKIPPED) {
                /* Unreadable now: nothing to cache, and no reason to keep serving an old version. */
                *ret = f;
                return 0;
        }

        if (!e) {
                if (c->n_entries >= (c->max_entries ? c->max_entries : RC_CACHE_ENTRIES_MAX)) {
                        *ret = f; /* full: work uncached */
                        return 0;
                }
                if (GREEDY_REALLOC(c->entries, c->allocated, c->n_entries + 1) < 0) {
                        rc_file_unref(f);
                        return -ENOMEM;
                }
                e = &c->entries[c->n_entries];
                *e = (RcCacheEntry){ .path = strdup(path), .root_dev = root.st_dev, .root_ino = root.st_ino };
                if (!e->path) {
                        rc_file_unref(f);
                        return -ENOMEM;
                }
                c->n_entries++;
        }

        e->generation = c->generation;
        rc_file_unref(e->current);
        e->current = rc_file_ref(f);
        if (f->state == RC_FILE_LOADED) {
                rc_file_unref(e->good);
                e->good = rc_file_ref(f);
        }

        if (rc_cache_entry_is_stale(e)) {
                rc_file_unref(f);
                *ret = rc_file_ref(e->good);
        } else
                *ret = f;
        return 0;
}

void rc_file_cache_begin(RcFileCache *c)
{
        assert(c);
        c->generation++;
}

void rc_file_cache_prune(RcFileCache *c)
{
        size_t j = 0;

        assert(c);

        for (size_t i = 0; i < c->n_entries; i++) {
                RcCacheEntry *e = &c->entries[i];

                if (e->generation == c->generation) {
                        c->entries[j++] = *e;
                        continue;
                }
                free(e->path);
                rc_file_unref(e->current);
                rc_file_unref(e->good);
        }
        c->n_entries = j;
}
