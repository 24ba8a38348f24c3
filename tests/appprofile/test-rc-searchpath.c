/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The search path: ../shared/docs/appprofiles.md §1.2 and §8 cases 21-23, 27; entry types; globals; versions. */

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "rc-searchpath.h"
#include "test-util.h"

#define ETC_RC "etc/nvidia/nvidia-application-profiles-rc"
#define ETC_RCD "etc/nvidia/nvidia-application-profiles-rc.d"
#define HOME_RC "home/u/.nv/nvidia-application-profiles-rc"
#define HOME_RCD "home/u/.nv/nvidia-application-profiles-rc.d"
#define SHIPPED "usr/share/nvidia/nvidia-application-profiles-570.153.02-rc"

/* A rule for "foo" setting key k to v. */
static char *rule(const char *k, int v)
{
        return g_strdup_printf("{\"rules\": [{\"pattern\": \"foo\", \"profile\": [\"%s\", %d]}]}", k, v);
}

static void write_rule(const char *root, const char *rel, const char *k, int v)
{
        g_autofree char *t = rule(k, v);
        test_write_file(root, rel, t);
}

static RcConfig *load(const char *root, const char *home, const char *version)
{
        _cleanup_close_ int fd = test_open_dir(root);
        RcLoadOptions o = { .root_fd = fd, .home = home, .driver_version = version };
        RcConfig *c = NULL;

        g_assert_cmpint(rc_config_load(&o, &c), ==, 0);
        for (size_t i = 0; i < c->n_files; i++)
                test_dump_diags(c->files[i]->path, &c->files[i]->diagnostics);
        test_dump_diags("(config)", &c->diagnostics);
        return c;
}

static const RcFile *file(const RcConfig *c, const char *path)
{
        for (size_t i = 0; i < c->n_files; i++)
                if (streq(c->files[i]->path, path))
                        return c->files[i];
        return NULL;
}

static int64_t resolve_k(RcConfig *c, const char *key)
{
        g_autoptr(RcResolution) r = test_resolve(c, "/usr/bin/foo", "foo", "foo", NULL, NULL);
        return test_setting_int(r, key);
}

static void test_entry_paths(void)
{
        g_autofree char *a = NULL, *b = NULL, *s = NULL, *e = NULL;

        g_assert_cmpint(rc_entry_path(RC_ENTRY_USER_FILE, "/home/u", NULL, &a), ==, 0);
        g_assert_cmpstr(a, ==, "/home/u/.nv/nvidia-application-profiles-rc");
        g_assert_cmpint(rc_entry_path(RC_ENTRY_USER_DIR, "/home/u/", NULL, &b), ==, 0);
        g_assert_cmpstr(b, ==, "/home/u/.nv/nvidia-application-profiles-rc.d");
        g_assert_cmpint(rc_entry_path(RC_ENTRY_SHIPPED, NULL, "570.153.02", &s), ==, 0);
        g_assert_cmpstr(s, ==, "/usr/share/nvidia/nvidia-application-profiles-570.153.02-rc");
        g_assert_cmpint(rc_entry_path(RC_ENTRY_SYSTEM_DIR, NULL, NULL, &e), ==, 0);
        g_assert_cmpstr(e, ==, "/etc/nvidia/nvidia-application-profiles-rc.d");
        g_assert_cmpint(rc_entry_path(RC_ENTRY_USER_FILE, NULL, NULL, &a), ==, -ENOENT);
        g_assert_cmpint(rc_entry_path(RC_ENTRY_USER_FILE, "relative", NULL, &a), ==, -EINVAL);
        g_assert_cmpint(rc_entry_path(RC_ENTRY_SHIPPED, NULL, NULL, &a), ==, -ENOENT);
        g_assert_cmpint(rc_entry_path(RC_ENTRY_SHIPPED, NULL, "../../etc/x", &a), ==, -EINVAL);
        g_assert_true(rc_driver_version_is_valid("440.82"));
        g_assert_false(rc_driver_version_is_valid("570"));
        g_assert_false(rc_driver_version_is_valid("570.1/2"));
}

/* Case 21: user file > user rc.d > /etc file > /etc rc.d > shipped. */
static void test_precedence_order(void)
{
        g_autofree char *root = test_mkdtemp();
        g_autoptr(RcConfig) c = NULL;

        write_rule(root, SHIPPED, "k5", 5);
        write_rule(root, ETC_RCD "/50-x", "k4", 4);
        write_rule(root, ETC_RC, "k3", 3);
        write_rule(root, HOME_RCD "/10-y", "k2", 2);
        write_rule(root, HOME_RC, "k1", 1);
        /* The same key in all five: the user file wins. */
        test_write_file(root, SHIPPED, "{\"rules\": [{\"pattern\": \"foo\", \"profile\": [\"k\", 5]}]}");
        test_write_file(root, ETC_RCD "/50-x", "{\"rules\": [{\"pattern\": \"foo\", \"profile\": [\"k\", 4]}]}");
        test_write_file(root, ETC_RC, "{\"rules\": [{\"pattern\": \"foo\", \"profile\": [\"k\", 3]}]}");
        test_write_file(root, HOME_RCD "/10-y", "{\"rules\": [{\"pattern\": \"foo\", \"profile\": [\"k\", 2]}]}");

        c = load(root, "/home/u", "570.153.02");
        g_assert_cmpuint(c->n_files, ==, 5);
        g_assert_cmpstr(c->files[0]->path, ==, "/" HOME_RC);
        g_assert_cmpstr(c->files[1]->path, ==, "/" HOME_RCD "/10-y");
        g_assert_cmpstr(c->files[2]->path, ==, "/" ETC_RC);
        g_assert_cmpstr(c->files[3]->path, ==, "/" ETC_RCD "/50-x");
        g_assert_cmpstr(c->files[4]->path, ==, "/" SHIPPED);
        g_assert_cmpint(c->entries[RC_ENTRY_USER_FILE].type, ==, RC_ENTRY_FILE);
        g_assert_cmpint(c->entries[RC_ENTRY_USER_DIR].type, ==, RC_ENTRY_DIRECTORY);
        g_assert_cmpint(c->entries[RC_ENTRY_SHIPPED].type, ==, RC_ENTRY_FILE);
        g_assert_cmpint(resolve_k(c, "k1"), ==, 1);
        g_assert_cmpint(resolve_k(c, "k"), ==, 2);

        /* NixOS: the shipped rules installed as /etc/...-rc outrank /etc/...-rc.d. */
        {
                g_autofree char *nix = test_mkdtemp();
                g_autoptr(RcConfig) n = NULL;

                test_write_file(nix, ETC_RC, "{\"rules\": [{\"pattern\": \"foo\", \"profile\": [\"k\", 0]}]}");
                test_write_file(nix, ETC_RCD "/50-user",
                                "{\"rules\": [{\"pattern\": \"foo\", \"profile\": [\"k\", 1]}]}");
                n = load(nix, NULL, NULL);
                g_assert_cmpint(resolve_k(n, "k"), ==, 0);
        }
}

/* Case 22: rc.d in strcoll order ("C": 10-x before 9-x); dotfiles and extension-less files load;
 * subdirectories, fifos and dangling symlinks are skipped, a symlink to a file is loaded. */
static void test_directory_contents(void)
{
        g_autofree char *root = test_mkdtemp();
        g_autofree char *fifo = g_build_filename(root, ETC_RCD, "fifo", NULL);
        g_autoptr(RcConfig) c = NULL;

        write_rule(root, ETC_RCD "/9-x", "nine", 9);
        write_rule(root, ETC_RCD "/10-x", "ten", 10);
        write_rule(root, ETC_RCD "/.hidden", "hidden", 1);
        write_rule(root, ETC_RCD "/noext", "noext", 1);
        write_rule(root, ETC_RCD "/B-upper", "upper", 1);
        write_rule(root, ETC_RCD "/a-lower", "lower", 1);
        write_rule(root, ETC_RCD "/.backup/old", "old", 1);
        write_rule(root, "opt/target.json", "linked", 1);
        test_symlink("/opt/target.json", root, ETC_RCD "/link");
        test_symlink("/nonexistent", root, ETC_RCD "/dangling");
        g_assert_cmpint(mkfifo(fifo, 0644), ==, 0);

        c = load(root, NULL, NULL);
        g_assert_cmpint(c->entries[RC_ENTRY_SYSTEM_DIR].type, ==, RC_ENTRY_DIRECTORY);
        g_assert_cmpuint(c->entries[RC_ENTRY_SYSTEM_DIR].n_files, ==, 10);

        /* C collation: '.' < digits < upper case < lower case; "10-x" < "9-x". */
        {
                static const char *const order[] = { ".backup", ".hidden", "10-x", "9-x", "B-upper", "a-lower",
                        "dangling", "fifo", "link", "noext" };
                for (size_t i = 0; i < G_N_ELEMENTS(order); i++) {
                        g_autofree char *p = g_strdup_printf("/" ETC_RCD "/%s", order[i]);
                        g_assert_cmpstr(c->files[i]->path, ==, p);
                }
        }

        g_assert_cmpint(file(c, "/" ETC_RCD "/.backup")->state, ==, RC_FILE_SKIPPED);
        g_assert_true(test_has_diag(
                        &file(c, "/" ETC_RCD "/.backup")->diagnostics, RC_SEVERITY_NOTE, 0, 0, "directory"));
        g_assert_cmpint(file(c, "/" ETC_RCD "/fifo")->state, ==, RC_FILE_SKIPPED);
        g_assert_true(test_has_diag(
                        &file(c, "/" ETC_RCD "/fifo")->diagnostics, RC_SEVERITY_NOTE, 0, 0, "not a regular"));
        g_assert_cmpint(file(c, "/" ETC_RCD "/dangling")->state, ==, RC_FILE_SKIPPED);
        g_assert_true(test_has_diag(
                        &file(c, "/" ETC_RCD "/dangling")->diagnostics, RC_SEVERITY_NOTE, 0, 0, "dangling"));
        g_assert_cmpint(file(c, "/" ETC_RCD "/link")->state, ==, RC_FILE_LOADED);
        g_assert_cmpint(file(c, "/" ETC_RCD "/.hidden")->state, ==, RC_FILE_LOADED);
        g_assert_cmpint(file(c, "/" ETC_RCD "/noext")->state, ==, RC_FILE_LOADED);

        {
                g_autoptr(RcResolution) r = test_resolve(c, "/usr/bin/foo", NULL, NULL, NULL, NULL);
                g_assert_nonnull(test_find_setting(r, "linked"));
                g_assert_nonnull(test_find_setting(r, "hidden"));
                g_assert_null(test_find_setting(r, "old"));
                /* The order decides which rule comes first. */
                g_assert_cmpstr(r->settings[0].setting->key, ==, "hidden");
                g_assert_cmpstr(r->settings[1].setting->key, ==, "ten");
                g_assert_cmpstr(r->settings[2].setting->key, ==, "nine");
        }
}

/* Case 23: an rc.d entry that is a file, an rc entry that is a directory; symlinked entries. */
static void test_entry_types(void)
{
        g_autofree char *root = test_mkdtemp();
        g_autofree char *fifo = g_build_filename(root, "home/u/.nv/nvidia-application-profiles-rc", NULL);
        g_autoptr(RcConfig) c = NULL;

        write_rule(root, ETC_RCD, "rcd_as_file", 1);
        write_rule(root, ETC_RC "/inner", "rc_as_dir", 1);
        test_mkdir_p(root, "home/u/.nv");
        g_assert_cmpint(mkfifo(fifo, 0644), ==, 0);
        write_rule(root, "srv/profiles/a", "via_dir_link", 1);
        test_symlink("/srv/profiles", root, HOME_RCD);

        c = load(root, "/home/u", NULL);
        g_assert_cmpint(c->entries[RC_ENTRY_SYSTEM_DIR].type, ==, RC_ENTRY_FILE);
        g_assert_cmpint(c->entries[RC_ENTRY_SYSTEM_FILE].type, ==, RC_ENTRY_DIRECTORY);
        g_assert_cmpint(c->entries[RC_ENTRY_USER_FILE].type, ==, RC_ENTRY_OTHER);
        g_assert_cmpint(c->entries[RC_ENTRY_USER_DIR].type, ==, RC_ENTRY_DIRECTORY);
        g_assert_cmpint(c->entries[RC_ENTRY_SHIPPED].type, ==, RC_ENTRY_NOT_APPLICABLE);
        g_assert_cmpint(resolve_k(c, "rcd_as_file"), ==, 1);
        g_assert_cmpint(resolve_k(c, "rc_as_dir"), ==, 1);
        g_assert_cmpint(resolve_k(c, "via_dir_link"), ==, 1);
        g_assert_true(test_has_diag(&c->diagnostics, RC_SEVERITY_NOTE, 0, 0, "driver version unknown"));
}

/* Case 27: no HOME: only /etc and /usr/share; a missing entry is just missing. */
static void test_no_home(void)
{
        g_autofree char *root = test_mkdtemp();
        g_autoptr(RcConfig) c = NULL;
        g_autoptr(RcResolution) r = NULL;

        write_rule(root, HOME_RC, "user", 1);
        write_rule(root, ETC_RC, "system", 1);
        c = load(root, NULL, "570.153.02");
        g_assert_cmpint(c->entries[RC_ENTRY_USER_FILE].type, ==, RC_ENTRY_NOT_APPLICABLE);
        g_assert_cmpint(c->entries[RC_ENTRY_USER_DIR].type, ==, RC_ENTRY_NOT_APPLICABLE);
        g_assert_cmpint(c->entries[RC_ENTRY_SYSTEM_DIR].type, ==, RC_ENTRY_MISSING);
        g_assert_cmpint(c->entries[RC_ENTRY_SHIPPED].type, ==, RC_ENTRY_MISSING);
        g_assert_null(c->globals);
        r = test_resolve(c, "/bin/foo", NULL, NULL, NULL, NULL);
        g_assert_null(test_find_setting(r, "user"));
        g_assert_nonnull(test_find_setting(r, "system"));
}

/* A broken file never stops the others; its errors name it. */
static void test_broken_file_isolated(void)
{
        g_autofree char *root = test_mkdtemp();
        g_autoptr(RcConfig) c = NULL;
        const RcFile *bad;

        write_rule(root, ETC_RCD "/10-good", "good", 1);
        test_write_file(root, ETC_RCD "/20-bad", "{\"rules\": [\n  {\"pattern\": \"foo\" \"profile\": \"x\"}\n]}");
        write_rule(root, ETC_RCD "/30-good", "good2", 1);
        c = load(root, NULL, NULL);

        bad = file(c, "/" ETC_RCD "/20-bad");
        g_assert_cmpint(bad->state, ==, RC_FILE_BROKEN);
        g_assert_true(test_has_diag(&bad->diagnostics, RC_SEVERITY_ERROR, 2, 21, "missing comma"));
        g_assert_cmpuint(rc_config_count_errors(c), ==, 1);
        g_assert_cmpint(resolve_k(c, "good"), ==, 1);
        g_assert_cmpint(resolve_k(c, "good2"), ==, 1);
}

/* The globals file: "enabled": false disables; broken means enabled. */
static void test_globals(void)
{
        g_autofree char *root = test_mkdtemp();
        g_autoptr(RcConfig) off = NULL, on = NULL, broken = NULL;

        write_rule(root, ETC_RC, "k", 1);
        test_write_file(root, "home/a/.nv/nvidia-application-profile-globals-rc", "# off\n{\"enabled\": false}\n");
        test_write_file(root, "home/b/.nv/nvidia-application-profile-globals-rc", "{\"enabled\": true}");
        test_write_file(root, "home/c/.nv/nvidia-application-profile-globals-rc", "{\"enabled\": 0}");

        off = load(root, "/home/a", NULL);
        on = load(root, "/home/b", NULL);
        broken = load(root, "/home/c", NULL);
        g_assert_false(off->globals_enabled);
        g_assert_cmpint(off->globals->state, ==, RC_FILE_LOADED);
        g_assert_true(on->globals_enabled);
        g_assert_true(broken->globals_enabled);
        g_assert_cmpint(broken->globals->state, ==, RC_FILE_BROKEN);
        g_assert_true(test_has_diag(&broken->globals->diagnostics, RC_SEVERITY_ERROR, 1, 13, "must be true or false"));
        {
                g_autoptr(RcResolution) r = test_resolve(off, "/bin/foo", NULL, NULL, NULL, NULL);
                g_assert_cmpint(r->state, ==, RC_PROFILES_DISABLED_BY_GLOBALS);
        }
}

/* Only the versioned shipped name is read; the unversioned one is pointed out. */
static void test_shipped_names(void)
{
        g_autofree char *root = test_mkdtemp();
        g_autoptr(RcConfig) c = NULL;

        write_rule(root, "usr/share/nvidia/nvidia-application-profiles-rc", "unversioned", 1);
        write_rule(root, SHIPPED, "versioned", 1);
        c = load(root, NULL, "570.153.02");
        g_assert_cmpint(resolve_k(c, "versioned"), ==, 1);
        {
                g_autoptr(RcResolution) r = test_resolve(c, "/bin/foo", NULL, NULL, NULL, NULL);
                g_assert_null(test_find_setting(r, "unversioned"));
        }
        g_assert_true(test_has_diag(&c->diagnostics, RC_SEVERITY_NOTE, 0, 0, "only reads the versioned name"));
}

/* Paths resolve inside the root: an absolute symlink cannot escape to the host. */
static void test_root_confinement(void)
{
        g_autofree char *root = test_mkdtemp();
        g_autofree char *outside = test_mkdtemp();
        g_autofree char *target = g_build_filename(outside, "evil", NULL);
        g_autoptr(RcConfig) c = NULL;

        write_rule(outside, "evil", "escaped", 1);
        test_symlink(target, root, ETC_RC);
        test_symlink("../../../../../../..", root, ETC_RCD);
        c = load(root, NULL, NULL);
        /* The link's target is looked up inside root, where it does not exist. */
        g_assert_cmpint(c->entries[RC_ENTRY_SYSTEM_FILE].type, ==, RC_ENTRY_MISSING);
        {
                g_autoptr(RcResolution) r = test_resolve(c, "/bin/foo", NULL, NULL, NULL, NULL);
                g_assert_null(test_find_setting(r, "escaped"));
        }
}

static void test_driver_version(void)
{
        g_autofree char *proc = test_mkdtemp(), *sys = test_mkdtemp(), *open_ = test_mkdtemp();
        _cleanup_close_ int proc_fd = -EBADF, sys_fd = -EBADF, open_fd = -EBADF;
        g_autofree char *v1 = NULL, *v2 = NULL, *v3 = NULL, *v4 = NULL, *v5 = NULL;

        test_write_file(proc, "driver/nvidia/version",
                        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.153.02  Tue May 13 16:34:03 UTC 2025\n"
                        "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
        test_write_file(open_, "driver/nvidia/version",
                        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.105.08  Release Build  (dvs-builder@U16-I3-B03-4-3)\n");
        test_write_file(sys, "module/nvidia/version", "550.40.07\n");
        proc_fd = test_open_dir(proc);
        sys_fd = test_open_dir(sys);
        open_fd = test_open_dir(open_);

        g_assert_cmpint(rc_driver_version_detect(proc_fd, sys_fd, &v1), ==, 0);
        g_assert_cmpstr(v1, ==, "570.153.02");
        g_assert_cmpint(rc_driver_version_detect(open_fd, -EBADF, &v2), ==, 0);
        g_assert_cmpstr(v2, ==, "580.105.08");
        g_assert_cmpint(rc_driver_version_detect(-EBADF, sys_fd, &v3), ==, 0);
        g_assert_cmpstr(v3, ==, "550.40.07");
        /* A /proc without the driver falls back to sysfs; neither: -ENOENT. */
        g_assert_cmpint(rc_driver_version_detect(sys_fd, sys_fd, &v4), ==, 0);
        g_assert_cmpstr(v4, ==, "550.40.07");
        g_assert_cmpint(rc_driver_version_detect(open_fd, open_fd, &v5), ==, 0);
        g_assert_cmpstr(v5, ==, "580.105.08");
        {
                g_autofree char *none = NULL;
                g_assert_cmpint(rc_driver_version_detect(sys_fd, proc_fd, &none), ==, -ENOENT);
        }
}

/* Collation follows the given locale (the driver uses the target's; we default to "C"). A real
 * en_US.UTF-8 sorts "a-lower" before "B-upper", unlike "C". The locale is compiled into a temporary
 * LOCPATH with localedef, so the test needs no locale installed system-wide. */
static void test_collation_locale(void)
{
        g_autofree char *root = test_mkdtemp(), *locdir = test_mkdtemp();
        g_autofree char *out = g_build_filename(locdir, "en_US.UTF-8", NULL);
        const char *argv[] = { "localedef", "-i", "en_US", "-f", "UTF-8", out, NULL };
        _cleanup_close_ int fd = -EBADF;
        g_autoptr(RcConfig) c = NULL;
        g_autoptr(GError) error = NULL;
        int status;
        locale_t loc;

        if (!g_spawn_sync(NULL, (char **) argv, NULL,
                            G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                            NULL, NULL, &status, &error) ||
                        !g_spawn_check_wait_status(status, NULL)) {
                g_test_skip("localedef cannot build en_US.UTF-8 here (package 'locales' missing)");
                return;
        }
        g_setenv("LOCPATH", locdir, TRUE);
        loc = newlocale(LC_COLLATE_MASK, "en_US.UTF-8", (locale_t) 0);
        g_unsetenv("LOCPATH");
        g_assert_nonnull(loc);

        write_rule(root, ETC_RCD "/B-upper", "B", 1);
        write_rule(root, ETC_RCD "/a-lower", "a", 1);
        fd = test_open_dir(root);
        {
                RcLoadOptions o = { .root_fd = fd, .collation = loc };
                g_assert_cmpint(rc_config_load(&o, &c), ==, 0);
        }
        g_assert_cmpstr(c->files[0]->path, ==, "/" ETC_RCD "/a-lower");
        g_assert_cmpstr(c->files[1]->path, ==, "/" ETC_RCD "/B-upper");
        freelocale(loc);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/rc-searchpath/entry-paths", test_entry_paths);
        g_test_add_func("/rc-searchpath/precedence-order", test_precedence_order);
        g_test_add_func("/rc-searchpath/directory-contents", test_directory_contents);
        g_test_add_func("/rc-searchpath/entry-types", test_entry_types);
        g_test_add_func("/rc-searchpath/no-home", test_no_home);
        g_test_add_func("/rc-searchpath/broken-file-isolated", test_broken_file_isolated);
        g_test_add_func("/rc-searchpath/globals", test_globals);
        g_test_add_func("/rc-searchpath/shipped-names", test_shipped_names);
        g_test_add_func("/rc-searchpath/root-confinement", test_root_confinement);
        g_test_add_func("/rc-searchpath/driver-version", test_driver_version);
        g_test_add_func("/rc-searchpath/collation-locale", test_collation_locale);
        return g_test_run();
}
