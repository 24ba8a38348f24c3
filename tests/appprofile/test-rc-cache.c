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
        RcFile *f = NULL;

        g_assert_cmpint(rc_file_cache_load(root, path, &syntax, c, &f), ==, 0);
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

/* Per-user files are read only if the process's user could read them. */
static void test_user_owner(void)
{
        g_autofree char *root = test_mkdtemp();
        g_autofree char *priv = NULL;
        _cleanup_close_ int fd = -EBADF;
        g_autoptr(RcConfig) c = NULL;
        RcLoadOptions o;

        test_write_file(root, "home/u/.nv/nvidia-application-profiles-rc",
                        "{\"rules\": [{\"pattern\": \"foo\", \"profile\": [\"k\", 1]}]}");
        test_write_file(root, "home/u/.nv/nvidia-application-profiles-rc.d/secret", "{\"rules\": []}");
        priv = g_build_filename(root, "home/u/.nv/nvidia-application-profiles-rc", NULL);
        g_assert_cmpint(chmod(priv, 0600), ==, 0); /* owned by root (the test), unreadable to others */
        fd = test_open_dir(root);

        o = (RcLoadOptions){ .root_fd = fd, .home = "/home/u", .check_user_owner = true, .user_uid = 1000 };
        g_assert_cmpint(rc_config_load(&o, &c), ==, 0);
        g_assert_cmpint(c->entries[RC_ENTRY_USER_FILE].type, ==, RC_ENTRY_UNREADABLE);
        g_assert_cmpuint(c->n_rules, ==, 0);
        /* World-readable files are fine even when someone else owns them. */
        g_assert_cmpint(c->entries[RC_ENTRY_USER_DIR].type, ==, RC_ENTRY_DIRECTORY);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/rc-cache/last-good", test_last_good);
        g_test_add_func("/rc-cache/user-owner", test_user_owner);
        return g_test_run();
}
