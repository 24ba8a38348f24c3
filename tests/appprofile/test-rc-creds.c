/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading rc files for a user: every file is opened with that user's access and read from that same
 * descriptor, so the kernel (directory search bits, ACLs, /proc's ptrace rules) decides exactly as for
 * the user's own process, and nothing the user could not read reaches a configuration, a diagnostic or a
 * budget. The attacks of issue 6 item 1, against the configuration loader. Needs root (to act as another
 * user); the user is nobody (65534), which needs no account. */

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"
#include "rc-cache.h"
#include "rc-config.h"
#include "rc-resolve.h"
#include "test-util.h"

#define SECRET "hunter2"
#define NOBODY 65534

static const UserCreds nobody = { .uid = NOBODY, .gid = NOBODY };

/* A tree readable to everyone at its top (a fixture root made by root is 0700 otherwise). */
static char *open_tree(void)
{
        char *root = test_mkdtemp();
        g_assert_cmpint(chmod(root, 0755), ==, 0);
        return root;
}

static void chmod_rel(const char *root, const char *rel, mode_t mode)
{
        g_autofree char *p = g_build_filename(root, rel, NULL);
        g_assert_cmpint(chmod(p, mode), ==, 0);
}

static void chown_rel(const char *root, const char *rel, uid_t uid)
{
        g_autofree char *p = g_build_filename(root, rel, NULL);
        g_assert_cmpint(lchown(p, uid, uid), ==, 0);
}

/* Every diagnostic of every file and of the whole, as one string, to look for leaked bytes. */
static char *all_messages(const RcConfig *c)
{
        GString *s = g_string_new(NULL);

        for (size_t i = 0; i < c->n_files; i++) {
                g_string_append_printf(s, "%s\n", c->files[i]->path);
                for (size_t j = 0; j < c->files[i]->diagnostics.n_items; j++)
                        g_string_append_printf(s, "%s\n", c->files[i]->diagnostics.items[j].message);
        }
        for (size_t j = 0; j < c->diagnostics.n_items; j++)
                g_string_append_printf(s, "%s\n", c->diagnostics.items[j].message);
        if (c->globals)
                for (size_t j = 0; j < c->globals->diagnostics.n_items; j++)
                        g_string_append_printf(s, "%s\n", c->globals->diagnostics.items[j].message);
        return g_string_free(s, FALSE);
}

static RcConfig *load_as(int root_fd, const char *home, const UserCreds *creds)
{
        RcLoadOptions o = { .root_fd = root_fd, .home = home, .creds = creds };
        RcConfig *c = NULL;

        g_assert_cmpint(rc_config_load(&o, &c), ==, 0);
        return c;
}

/* Acting as another user needs root: without it each case is a reported skip (a failure in CI). */
#define REQUIRE_ROOT()                                                    \
        do {                                                              \
                if (geteuid() != 0 || !user_creds_can_switch()) {         \
                        g_test_skip("acting as another user needs root"); \
                        return;                                           \
                }                                                         \
        } while (0)

/* ~/.nv/nvidia-application-profiles-rc is a link to a 0644 file inside another user's 0700 directory. */
static void test_link_into_private_directory(void)
{
        g_autofree char *root = open_tree();
        g_autofree char *msgs = NULL;
        _cleanup_close_ int fd = -EBADF;
        g_autoptr(RcConfig) as_user = NULL, as_root = NULL;

        REQUIRE_ROOT();

        test_write_file(root, "home/victim/private/rc", "{\"rules\": [{\"pattern\": \"x\", \"profile\": [\"k\", 1]}]}");
        test_write_file(root, "home/victim/private/words", SECRET " is not JSON");
        chmod_rel(root, "home/victim/private/rc", 0644);
        chmod_rel(root, "home/victim/private/words", 0644);
        chmod_rel(root, "home/victim/private", 0700);
        test_mkdir_p(root, "home/attacker/.nv/nvidia-application-profiles-rc.d");
        test_symlink("/home/victim/private/rc", root, "home/attacker/.nv/nvidia-application-profiles-rc");
        test_symlink("/home/victim/private/words", root, "home/attacker/.nv/nvidia-application-profiles-rc.d/w");
        chown_rel(root, "home/attacker/.nv/nvidia-application-profiles-rc.d", NOBODY);
        fd = test_open_dir(root);

        as_user = load_as(fd, "/home/attacker", &nobody);
        g_assert_cmpuint(as_user->n_rules, ==, 0);
        g_assert_cmpint(as_user->entries[RC_ENTRY_USER_FILE].type, ==, RC_ENTRY_UNREADABLE);
        g_assert_cmpint(as_user->entries[RC_ENTRY_USER_FILE].error, ==, -EACCES);
        msgs = all_messages(as_user);
        g_assert_null(strstr(msgs, SECRET));
        g_assert_nonnull(strstr(msgs, "not readable by uid 65534"));

        /* Root's own view reads both (the link target is fine for root), so the test can fail. */
        as_root = load_as(fd, "/home/attacker", NULL);
        g_assert_cmpuint(as_root->n_rules, ==, 1);
        g_free(msgs);
        msgs = all_messages(as_root);
        g_assert_nonnull(strstr(msgs, SECRET));
}

static bool findfile_matches_as(int root_fd, const char *exe, const UserCreds *creds)
{
        const char *texts[] = { "{\"rules\": [{\"pattern\": {\"feature\": \"findfile\", \"matches\": "
                                "\"" SECRET "\"}, \"profile\": [\"k\", 1]}]}" };
        g_autoptr(RcConfig) c = test_config_from_texts(texts, 1);
        g_autoptr(RcResolution) r = NULL;
        RcProcessFacts facts = { .exe = exe, .root_fd = root_fd, .creds = creds };

        g_assert_cmpint(rc_resolve(c, &facts, &r), ==, 0);
        g_assert_cmpuint(r->n_rules, ==, 1);
        return r->rules[0].matched;
}

/* Issue 29 item 1: the user's process says its executable is in another user's 0700 directory (its exe
 * link's text, after a deleted binary and a swapped directory, or from a mount namespace of its own):
 * findfile looks as the user, so the file there is not found, and no guess tells that it exists. */
static void test_findfile_in_private_directory(void)
{
        g_autofree char *root = open_tree();
        _cleanup_close_ int fd = -EBADF;

        REQUIRE_ROOT();

        test_write_file(root, "home/victim/private/" SECRET, "");
        test_write_file(root, "home/attacker/bin/" SECRET, "");
        chmod_rel(root, "home/victim", 0700);
        fd = test_open_dir(root);

        g_assert_false(findfile_matches_as(fd, "/home/victim/private/game (deleted)", &nobody));
        /* The user's own directory, and root's view of the private one: the rule works, so the test can fail. */
        g_assert_true(findfile_matches_as(fd, "/home/attacker/bin/game", &nobody));
        g_assert_true(findfile_matches_as(fd, "/home/victim/private/game (deleted)", NULL));
}

/* The link points at /proc/<pid>/maps of a root process: /proc's ptrace rule refuses the user. */
static void test_link_to_root_process_maps(void)
{
        g_autofree char *root = open_tree();
        g_autofree char *msgs = NULL, *target = NULL;
        _cleanup_close_ int fd = -EBADF;
        g_autoptr(RcConfig) as_user = NULL;
        pid_t child;

        REQUIRE_ROOT();

        test_mkdir_p(root, "home/attacker/.nv");
        /* Another root process (our own maps are always ours to read: /proc lets a process read itself). */
        child = fork();
        g_assert_cmpint(child, >=, 0);
        if (child == 0) {
                pause();
                _exit(0);
        }
        target = g_strdup_printf("/proc/%i/maps", (int) child);
        test_symlink(target, root, "home/attacker/.nv/nvidia-application-profiles-rc");
        fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        g_assert_cmpint(fd, >=, 0);

        /* With the real "/" as root, so that the absolute link reaches the real /proc. */
        {
                g_autofree char *home = g_build_filename(root, "home/attacker", NULL);
                as_user = load_as(fd, home, &nobody);
        }
        g_assert_cmpuint(as_user->n_rules, ==, 0);
        msgs = all_messages(as_user);
        /* No load address, nor any other byte of the maps. */
        g_assert_null(strstr(msgs, "invalid number"));
        g_assert_false(g_regex_match_simple("[0-9a-f]{8}-[0-9a-f]{8}|r-xp|r--p", msgs, 0, 0));
        g_assert_nonnull(strstr(msgs, "not readable by uid 65534"));
        g_assert_cmpint(kill(child, SIGKILL), ==, 0);
        g_assert_cmpint(waitpid(child, NULL, 0), ==, child);
}

/* A system rc file the user cannot read does not count for the user's processes (the driver reads it
 * inside the process), and says so. */
static void test_unreadable_system_file(void)
{
        g_autofree char *root = open_tree();
        g_autofree char *msgs = NULL;
        _cleanup_close_ int fd = -EBADF;
        g_autoptr(RcConfig) as_user = NULL, as_root = NULL;

        REQUIRE_ROOT();

        test_write_file(root, "etc/nvidia/nvidia-application-profiles-rc",
                        "{\"rules\": [{\"pattern\": \"x\", \"profile\": [\"k\", 1]}]}");
        test_write_file(root, "etc/nvidia/nvidia-application-profiles-rc.d/secret",
                        "{\"rules\": [{\"pattern\": \"" SECRET "\", \"profile\": [\"k\", 2]}]}");
        chmod_rel(root, "etc", 0755);
        chmod_rel(root, "etc/nvidia", 0755);
        chmod_rel(root, "etc/nvidia/nvidia-application-profiles-rc", 0644);
        chmod_rel(root, "etc/nvidia/nvidia-application-profiles-rc.d", 0755);
        chmod_rel(root, "etc/nvidia/nvidia-application-profiles-rc.d/secret", 0600);
        fd = test_open_dir(root);

        as_user = load_as(fd, NULL, &nobody);
        g_assert_cmpuint(as_user->n_rules, ==, 1);
        msgs = all_messages(as_user);
        g_assert_null(strstr(msgs, SECRET));
        g_assert_nonnull(strstr(msgs, "not readable by uid 65534"));

        as_root = load_as(fd, NULL, NULL);
        g_assert_cmpuint(as_root->n_rules, ==, 2);

        /* Mode 000 on the main file too: nothing applies to the user at all. */
        chmod_rel(root, "etc/nvidia/nvidia-application-profiles-rc", 0000);
        rc_config_unref(as_user);
        as_user = load_as(fd, NULL, &nobody);
        g_assert_cmpuint(as_user->n_rules, ==, 0);
        g_assert_cmpint(as_user->entries[RC_ENTRY_SYSTEM_FILE].type, ==, RC_ENTRY_UNREADABLE);
}

/* The daemon's file cache shares parsed files between users, but only ever hands a user what it opened
 * with that user's access. The last good version of a broken file is served only while the file has the
 * owner and mode it had: a file made private after it broke is not served from memory. */
static void test_cache_serves_only_what_was_opened(void)
{
        g_autofree char *root = open_tree();
        _cleanup_close_ int fd = -EBADF;
        RcFileCache cache = { 0 };
        RcLoadOptions o = { .load_file = rc_file_cache_load, .load_file_userdata = &cache };
        RcConfig *c;

        REQUIRE_ROOT();

        test_write_file(root, "etc/nvidia/nvidia-application-profiles-rc",
                        "{\"rules\": [{\"pattern\": \"x\", \"profile\": [\"k\", 1]}]}");
        chmod_rel(root, "etc", 0755);
        chmod_rel(root, "etc/nvidia", 0755);
        chmod_rel(root, "etc/nvidia/nvidia-application-profiles-rc", 0644);
        fd = test_open_dir(root);
        o.root_fd = fd;

        rc_file_cache_begin(&cache);
        o.creds = NULL;
        g_assert_cmpint(rc_config_load(&o, &c), ==, 0);
        g_assert_cmpuint(c->n_rules, ==, 1);
        rc_config_unref(c);

        /* Made private: the user gets nothing, although the parsed file sits in the cache. */
        chmod_rel(root, "etc/nvidia/nvidia-application-profiles-rc", 0600);
        o.creds = &nobody;
        g_assert_cmpint(rc_config_load(&o, &c), ==, 0);
        g_assert_cmpuint(c->n_rules, ==, 0);
        rc_config_unref(c);

        /* Broken and world-readable again, but with another mode than the good version had: the user
         * gets the broken file, not the cached good version. */
        test_write_file(root, "etc/nvidia/nvidia-application-profiles-rc", "{ broken");
        chmod_rel(root, "etc/nvidia/nvidia-application-profiles-rc", 0604);
        g_assert_cmpint(rc_config_load(&o, &c), ==, 0);
        g_assert_cmpuint(c->n_rules, ==, 0);
        g_assert_cmpint(c->files[0]->state, ==, RC_FILE_BROKEN);
        rc_config_unref(c);

        /* Back to the good version's mode: the last good version is served, to root and the user. */
        chmod_rel(root, "etc/nvidia/nvidia-application-profiles-rc", 0644);
        g_assert_cmpint(rc_config_load(&o, &c), ==, 0);
        g_assert_cmpuint(c->n_rules, ==, 1);
        rc_config_unref(c);
        rc_file_cache_done(&cache);
}

typedef struct Swapper {
        char *dir;
        atomic_bool stop;
} Swapper;

static void *swap_link(void *userdata)
{
        Swapper *s = userdata;
        g_autofree char *link = g_build_filename(s->dir, "home/attacker/.nv/nvidia-application-profiles-rc", NULL);
        g_autofree char *tmp = g_build_filename(s->dir, "home/attacker/.nv/tmp-link", NULL);

        for (unsigned i = 0; !atomic_load(&s->stop); i++) {
                (void) unlink(tmp);
                g_assert_cmpint(symlink(i % 2 ? "/secret/rc" : "/home/attacker/mine", tmp), ==, 0);
                g_assert_cmpint(rename(tmp, link), ==, 0);
        }
        return NULL;
}

/* The race of issue 6 item 1: a link swapped between the user's own file and a root-only file while the
 * daemon reads. Checking one open and reading another leaked within ~60 polls (issue 6); 500 loads here. */
static void test_swap_race(void)
{
        g_autofree char *root = open_tree();
        _cleanup_close_ int fd = -EBADF;
        Swapper s = { .dir = root };
        pthread_t thread;
        unsigned mine = 0;

        REQUIRE_ROOT();

        test_write_file(root, "secret/rc", "{\"rules\": [{\"pattern\": \"" SECRET "\", \"profile\": [\"k\", 1]}]}");
        chmod_rel(root, "secret/rc", 0600);
        test_write_file(root, "home/attacker/mine", "{\"rules\": [{\"pattern\": \"mine\", \"profile\": [\"k\", 1]}]}");
        chmod_rel(root, "home/attacker/mine", 0644);
        test_mkdir_p(root, "home/attacker/.nv");
        test_symlink("/home/attacker/mine", root, "home/attacker/.nv/nvidia-application-profiles-rc");
        fd = test_open_dir(root);

        g_assert_cmpint(pthread_create(&thread, NULL, swap_link, &s), ==, 0);
        for (unsigned i = 0; i < 500; i++) {
                g_autoptr(RcConfig) c = load_as(fd, "/home/attacker", &nobody);
                g_autofree char *msgs = all_messages(c);

                g_assert_null(strstr(msgs, SECRET));
                for (size_t j = 0; j < c->n_rules; j++) {
                        g_assert_cmpstr(c->rules[j].rule->pattern.matches, !=, SECRET);
                        mine++;
                }
        }
        atomic_store(&s.stop, true);
        g_assert_cmpint(pthread_join(thread, NULL), ==, 0);
        /* The race was real: the user's own file was read some of the time. */
        g_assert_cmpuint(mine, >, 0);
}

/* Per-user entries are bounded by the budget; system files are not charged. */
static void test_user_budget(void)
{
        g_autofree char *root = open_tree();
        _cleanup_close_ int fd = -EBADF;
        g_autoptr(RcConfig) c = NULL;
        RcLoadOptions o;
        char name[64];

        test_write_file(root, "etc/nvidia/nvidia-application-profiles-rc",
                        "{\"rules\": [{\"pattern\": \"sys\", \"profile\": [\"k\", 1]}]}");
        for (int i = 0; i < 10; i++) {
                snprintf(name, sizeof(name), "home/u/.nv/nvidia-application-profiles-rc.d/%02d", i);
                test_write_file(root, name, "{\"rules\": [{\"pattern\": \"user\", \"profile\": [\"k\", 1]}]}");
        }
        fd = test_open_dir(root);

        o = (RcLoadOptions){ .root_fd = fd, .home = "/home/u", .user_bytes_max = 1 };
        g_assert_cmpint(rc_config_load(&o, &c), ==, 0);
        g_assert_cmpuint(c->n_rules, ==, 1);
        g_assert_cmpuint(c->user_bytes, ==, 0);
        g_assert_true(test_has_diag(&c->files[1]->diagnostics, RC_SEVERITY_WARNING, 0, 0, "memory budget"));
        rc_config_unref(TAKE_PTR(c));

        /* Room for some: they are read in order until the budget is spent, and charged. */
        o.user_bytes_max = 2000;
        g_assert_cmpint(rc_config_load(&o, &c), ==, 0);
        g_assert_cmpuint(c->n_rules, >, 1);
        g_assert_cmpuint(c->n_rules, <, 11);
        g_assert_cmpuint(c->user_bytes, >, 0);
        g_assert_cmpuint(c->user_bytes, <=, 2000 + 4096);
        rc_config_unref(TAKE_PTR(c));

        o.user_bytes_max = 0; /* no limit */
        g_assert_cmpint(rc_config_load(&o, &c), ==, 0);
        g_assert_cmpuint(c->n_rules, ==, 11);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/rc-creds/user-budget", test_user_budget);
        g_test_add_func("/rc-creds/link-into-private-directory", test_link_into_private_directory);
        g_test_add_func("/rc-creds/link-to-root-process-maps", test_link_to_root_process_maps);
        g_test_add_func("/rc-creds/unreadable-system-file", test_unreadable_system_file);
        g_test_add_func("/rc-creds/cache-serves-only-what-was-opened", test_cache_serves_only_what_was_opened);
        g_test_add_func("/rc-creds/swap-race", test_swap_race);
        g_test_add_func("/rc-creds/findfile-in-private-directory", test_findfile_in_private_directory);
        return g_test_run();
}
