/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's file cache: unchanged files are not re-read; a file that breaks keeps its last good
 * version in force; deleted files are pruned. */

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "rc-cache.h"
#include "test-util.h"

static RcFile *load(RcFileCache *c, int root, const char *path)
{
        RcSyntaxOptions syntax = { 0 };
        _cleanup_close_ int fd = -EBADF;
        RcFile *f = NULL;
        struct stat st;

        fd = open_for_reading_as(NULL, root, path, &st);
        g_assert_cmpint(fd, >=, 0);
        g_assert_cmpint(rc_file_cache_load(root, fd, &st, path, &syntax, c, &f), ==, 0);
        return f;
}

static void bump_mtime(const char *root, const char *rel, int seconds)
{
        g_autofree char *p = g_build_filename(root, rel, NULL);
        struct timespec ts[2] = { { .tv_sec = 1000000 + seconds }, { .tv_sec = 1000000 + seconds } };
        g_assert_cmpint(utimensat(AT_FDCWD, p, ts, 0), ==, 0);
}

static void test_last_good(void)
{
        g_autofree char *root = test_mkdtemp();
        _cleanup_close_ int fd = -EBADF;
        RcFileCache cache = { 0 };
        RcFile *a, *b, *c, *d, *e;

        test_write_file(root, "x.rc", "{\"rules\": [{\"pattern\": \"a\", \"profile\": [\"k\", 1]}]}");
        bump_mtime(root, "x.rc", 1);
        fd = test_open_dir(root);

        rc_file_cache_begin(&cache);
        a = load(&cache, fd, "/x.rc");
        g_assert_cmpint(a->state, ==, RC_FILE_LOADED);
        /* Unchanged: the very same parsed file. */
        b = load(&cache, fd, "/x.rc");
        g_assert_true(a == b);

        /* Broken now: the last good version is served, the entry says stale. */
        test_write_file(root, "x.rc", "{\"rules\": [{\"pattern\": \"a\" \"profile\": [\"k\", 2]}]}");
        bump_mtime(root, "x.rc", 2);
        c = load(&cache, fd, "/x.rc");
        g_assert_true(c == a);
        g_assert_cmpuint(cache.n_entries, ==, 1);
        g_assert_true(rc_cache_entry_is_stale(&cache.entries[0]));
        g_assert_cmpint(cache.entries[0].current->state, ==, RC_FILE_BROKEN);

        /* Fixed: the new version. */
        test_write_file(root, "x.rc", "{\"rules\": [{\"pattern\": \"a\", \"profile\": [\"k\", 3]}]}");
        bump_mtime(root, "x.rc", 3);
        d = load(&cache, fd, "/x.rc");
        g_assert_true(d != a);
        g_assert_cmpint(d->state, ==, RC_FILE_LOADED);
        g_assert_false(rc_cache_entry_is_stale(&cache.entries[0]));
        g_assert_cmpint(d->rules[0].inline_profile->settings[0].value.integer, ==, 3);

        /* A file broken from the start has nothing to fall back to. */
        test_write_file(root, "y.rc", "nope");
        e = load(&cache, fd, "/y.rc");
        g_assert_cmpint(e->state, ==, RC_FILE_BROKEN);

        /* A generation that no longer uses x.rc drops it. */
        rc_file_cache_begin(&cache);
        rc_file_unref(load(&cache, fd, "/y.rc"));
        rc_file_cache_prune(&cache);
        g_assert_cmpuint(cache.n_entries, ==, 1);
        g_assert_cmpstr(cache.entries[0].path, ==, "/y.rc");

        rc_file_unref(a);
        rc_file_unref(b);
        rc_file_unref(c);
        rc_file_unref(d);
        rc_file_unref(e);
        rc_file_cache_done(&cache);
}

/* The cache never opens by path: what it returns comes from the descriptor the caller opened. A changed
 * file is read from that descriptor; the index finds entries after others were pruned. */
static void test_index_after_prune(void)
{
        g_autofree char *root = test_mkdtemp();
        _cleanup_close_ int fd = -EBADF;
        RcFileCache cache = { 0 };
        char name[32];

        for (int i = 0; i < 50; i++) {
                snprintf(name, sizeof(name), "f%02d.rc", i);
                test_write_file(root, name, "{\"rules\": []}");
        }
        fd = test_open_dir(root);

        rc_file_cache_begin(&cache);
        for (int i = 0; i < 50; i++) {
                snprintf(name, sizeof(name), "f%02d.rc", i);
                rc_file_unref(load(&cache, fd, name));
        }
        g_assert_cmpuint(cache.n_entries, ==, 50);

        /* Only the odd ones are used this generation: the even ones go, the odd ones are found again
         * (the same record, not re-read). */
        rc_file_cache_begin(&cache);
        for (int i = 1; i < 50; i += 2) {
                snprintf(name, sizeof(name), "f%02d.rc", i);
                rc_file_unref(load(&cache, fd, name));
        }
        rc_file_cache_prune(&cache);
        g_assert_cmpuint(cache.n_entries, ==, 25);
        for (int i = 1; i < 50; i += 2) {
                RcFile *f;
                snprintf(name, sizeof(name), "f%02d.rc", i);
                f = load(&cache, fd, name);
                g_assert_true(f == cache.entries[strtable_get(&cache.index, cache.entries[i / 2].key)].current);
                rc_file_unref(f);
        }
        g_assert_cmpuint(cache.n_entries, ==, 25);
        g_assert_cmpuint(rc_file_cache_cost(&cache), >, 0);

        /* Nothing outside the cache holds them: all can go. */
        rc_file_cache_drop_unused(&cache);
        g_assert_cmpuint(cache.n_entries, ==, 0);
        rc_file_cache_done(&cache);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/rc-cache/last-good", test_last_good);
        g_test_add_func("/rc-cache/index-after-prune", test_index_after_prune);
        return g_test_run();
}
