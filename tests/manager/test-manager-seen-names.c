/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the manager remembers of the names of processes it saw, for the profile doctor: the names a rule
 * tests, as the rules see them, each user's own, kept across a restart in the state directory, and
 * [Doctor] of nvprofiled.conf (its parsing, and a reload that turns remembering off). */

#include <sys/stat.h>
#include <unistd.h>

#include "manager-harness.h"
#include "remembered-names.h"
#include "test-util.h"

/* The test's own user reads the fixture's rc files (so its rules apply, and argv is read); another
 * user's cannot, which is as good for names. */
static uid_t ME, OTHER;

/* A cmdline rule makes the manager read argv, so that the cmdline name is known. */
#define CMDLINE_RULE \
        "{ \"rules\": [ { \"pattern\": { \"feature\": \"cmdline\", \"matches\": \"x\" }, \"profile\": [ \"GLSharpenValue\", 50 ] } ] }\n"

static int collect(const SeenName *n, void *userdata)
{
        GPtrArray *a = userdata;

        g_assert_nonnull(n->procname);
        g_ptr_array_add(a,
                        g_strdup_printf("%u:%s|%s|%s", (unsigned) n->uid, n->procname, n->comm ? n->comm : "-",
                                        n->cmdline ? n->cmdline : "-"));
        return 0;
}

static int compare_strings(gconstpointer a, gconstpointer b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* uid's remembered names (UID_INVALID: all), sorted, joined by spaces. */
static char *names_of(ManagerHarness *h, uid_t uid)
{
        g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func(g_free);

        g_assert_nonnull(h->manager->profiles->seen_names);
        g_assert_cmpint(seen_names_foreach(h->manager->profiles->seen_names, uid, collect, a), ==, 0);
        g_ptr_array_sort(a, compare_strings);
        g_ptr_array_add(a, NULL);
        return g_strjoinv(" ", (char **) a->pdata);
}

static void run_programs(ManagerHarness *h)
{
        const char *const niri_argv[] = { "/nix/store/abc-niri/bin/niri", "--session", NULL };
        const char *const wine_argv[] = { "C:\\Games\\Game.exe", NULL };

        proc_fixture_add(h->proc,
                        &(ProcFixtureProcess){ .pid = 100,
                                        .uid = ME,
                                        .exe = "/nix/store/abc-niri/bin/.niri-wrapped",
                                        .argv = niri_argv });
        g_assert_cmpint(manager_process_exec(h->manager, 100), ==, 0);
        /* Upgraded under it: the driver saw "game". */
        proc_fixture_add(h->proc,
                        &(ProcFixtureProcess){ .pid = 101,
                                        .uid = ME,
                                        .exe = "/usr/bin/wine64-preloader (deleted)",
                                        .comm = "Game.exe",
                                        .argv = wine_argv });
        g_assert_cmpint(manager_process_exec(h->manager, 101), ==, 0);
        proc_fixture_add(h->proc,
                        &(ProcFixtureProcess){ .pid = 102, .uid = OTHER, .exe = "/opt/secret/secret-project" });
        g_assert_cmpint(manager_process_exec(h->manager, 102), ==, 0);
}

static char *mine_expected(void)
{
        return g_strdup_printf("%u:.niri-wrapped|.niri-wrapped|niri %u:wine64-preloader|Game.exe|Game.exe",
                        (unsigned) ME, (unsigned) ME);
}

static char *theirs_expected(void)
{
        return g_strdup_printf("%u:secret-project|secret-project|-", (unsigned) OTHER);
}

static void test_noted_and_kept(void)
{
        g_autofree char *state = test_mkdtemp(), *file = g_build_filename(state, REMEMBERED_NAMES_FILE, NULL);
        g_autofree char *want_mine = mine_expected(), *want_theirs = theirs_expected();
        ManagerHarness h;
        struct stat st;

        manager_harness_init(&h);
        h.state_dir = state;
        manager_harness_write(&h, SYSTEM_RC, CMDLINE_RULE);
        manager_harness_start(&h);
        run_programs(&h);

        /* Each user's names only, as the rules see them. */
        {
                g_autofree char *mine = names_of(&h, ME), *theirs = names_of(&h, OTHER), *nobody = names_of(&h, 1);

                g_assert_cmpstr(mine, ==, want_mine);
                g_assert_cmpstr(theirs, ==, want_theirs);
                g_assert_cmpstr(nobody, ==, "");
        }
        /* Written a minute after the first change, not at once. */
        g_assert_false(g_file_test(file, G_FILE_TEST_EXISTS));
        g_assert_nonnull(h.manager->profiles->names_save_timer);

        /* A restart: saved at stop, loaded at start, with nothing running any more. */
        proc_fixture_remove(h.proc, 100);
        proc_fixture_remove(h.proc, 101);
        proc_fixture_remove(h.proc, 102);
        h.manager = manager_free(h.manager);
        g_assert_cmpint(stat(file, &st), ==, 0);
        g_assert_cmpint(st.st_mode & 07777, ==, 0600);
        manager_harness_start(&h);
        g_assert_cmpuint(manager_harness_n_tracked(&h), ==, 0);
        {
                g_autofree char *mine = names_of(&h, ME), *theirs = names_of(&h, OTHER);

                g_assert_cmpstr(mine, ==, want_mine);
                g_assert_cmpstr(theirs, ==, want_theirs);
        }

        /* A reload that turns remembering off forgets everything, on disk too. */
        {
                _cleanup_(manager_config_done) ManagerConfig next = { 0 };
                g_autofree char *all = NULL;

                g_assert_cmpint(manager_config_copy(&next, &h.manager->config), ==, 0);
                next.remember_names_usec = 0;
                g_assert_cmpint(manager_apply_config(h.manager, &next), ==, 0);
                all = names_of(&h, UID_INVALID);
                g_assert_cmpstr(all, ==, "");
                g_assert_false(g_file_test(file, G_FILE_TEST_EXISTS));
                /* ... and nothing new is noted. */
                run_programs(&h);
                g_free(all);
                all = names_of(&h, UID_INVALID);
                g_assert_cmpstr(all, ==, "");
        }
        manager_harness_done(&h);
        g_assert_false(g_file_test(file, G_FILE_TEST_EXISTS));
}

/* New bounds on reload apply to what is remembered already. */
static void test_bounds_on_reload(void)
{
        _cleanup_(manager_config_done) ManagerConfig next = { 0 };
        g_autofree char *want_theirs = theirs_expected();
        ManagerHarness h;

        manager_harness_init(&h);
        manager_harness_write(&h, SYSTEM_RC, CMDLINE_RULE);
        manager_harness_start(&h);
        run_programs(&h);
        g_assert_cmpuint(seen_names_size(h.manager->profiles->seen_names), ==, 3);

        g_assert_cmpint(manager_config_copy(&next, &h.manager->config), ==, 0);
        next.names_per_user_max = 1;
        g_assert_cmpint(manager_apply_config(h.manager, &next), ==, 0);
        g_assert_cmpuint(seen_names_size(h.manager->profiles->seen_names), ==, 2);
        {
                g_autofree char *theirs = names_of(&h, OTHER);

                g_assert_cmpstr(theirs, ==, want_theirs);
        }
        manager_harness_done(&h);
}

static int collect_flatpak(const SeenName *n, void *userdata)
{
        GPtrArray *a = userdata;

        g_ptr_array_add(a, g_strdup_printf("%s|%s", n->procname, n->flatpak_id ? n->flatpak_id : "-"));
        return 0;
}

/* A process in a root of its own (a Flatpak sandbox) is remembered with its application id, which its
 * scope names and its /.flatpak-info confirms; a host process reads neither. */
static void test_flatpak_id(void)
{
        g_autofree char *sandbox = test_mkdtemp(), *info = g_build_filename(sandbox, ".flatpak-info", NULL);
        g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func(g_free);
        g_autofree char *joined = NULL;
        ManagerHarness h;

        g_assert_true(g_file_set_contents(info, "[Application]\nname=org.example.Game\n", -1, NULL));
        manager_harness_init(&h);
        manager_harness_start(&h);
        proc_fixture_add(h.proc,
                        &(ProcFixtureProcess){ .pid = 100,
                                        .uid = ME,
                                        .exe = "/app/bin/game-bin",
                                        .root = sandbox,
                                        .cgroup = "/user.slice/user-1000.slice/user@1000.service/app.slice/"
                                                  "app-flatpak-org.example.Game-77.scope" });
        g_assert_cmpint(manager_process_exec(h.manager, 100), ==, 0);
        /* The same scope on the host's root: the scope alone is not trusted, nothing is read. */
        proc_fixture_add(h.proc,
                        &(ProcFixtureProcess){ .pid = 101,
                                        .uid = ME,
                                        .exe = "/usr/bin/host-bin",
                                        .cgroup = "/user.slice/user-1000.slice/user@1000.service/app.slice/"
                                                  "app-flatpak-org.example.Other-78.scope" });
        g_assert_cmpint(manager_process_exec(h.manager, 101), ==, 0);
        g_assert_cmpint(seen_names_foreach(h.manager->profiles->seen_names, ME, collect_flatpak, a), ==, 0);
        g_ptr_array_sort(a, compare_strings);
        g_ptr_array_add(a, NULL);
        joined = g_strjoinv(" ", (char **) a->pdata);
        g_assert_cmpstr(joined, ==, "game-bin|org.example.Game host-bin|-");
        manager_harness_done(&h);
        g_assert_cmpint(unlink(info), ==, 0);
        g_assert_cmpint(rmdir(sandbox), ==, 0);
}

/* Without a state directory, names are remembered while the daemon runs only. */
static void test_no_state_directory(void)
{
        ManagerHarness h;

        manager_harness_init(&h);
        manager_harness_start(&h);
        g_assert_cmpint(h.manager->state_dir_fd, <, 0);
        run_programs(&h);
        g_assert_cmpuint(seen_names_size(h.manager->profiles->seen_names), ==, 3);
        g_assert_null(h.manager->profiles->names_save_timer);
        manager_harness_done(&h);
}

static void test_config_parse(void)
{
        _cleanup_(manager_config_done) ManagerConfig c = { 0 };
        g_auto(GStrv) messages = NULL;
        const char *text = "[Doctor]\nRememberNamesSec=7d\nNamesPerUserMax=10\nNameBytesPerUserMax=1K\nNamesMax=20\n";

        manager_config_init(&c);
        g_assert_cmpuint(c.remember_names_usec, ==, 30 * 86400 * 1000000ULL);
        g_assert_cmpuint(c.names_per_user_max, ==, 256);
        g_assert_cmpuint(c.name_bytes_per_user_max, ==, 64 * 1024);
        g_assert_cmpuint(c.names_max, ==, 8192);

        g_assert_cmpint(manager_config_parse(&c, text, strlen(text), &messages), ==, 0);
        g_assert_cmpuint(c.remember_names_usec, ==, 7 * 86400 * 1000000ULL);
        g_assert_cmpuint(c.names_per_user_max, ==, 10);
        g_assert_cmpuint(c.name_bytes_per_user_max, ==, 1024);
        g_assert_cmpuint(c.names_max, ==, 20);
        g_clear_pointer(&messages, g_strfreev);

        text = "[Doctor]\nRememberNamesSec=0\nNamesMax=many\n";
        g_assert_cmpint(manager_config_parse(&c, text, strlen(text), &messages), ==, 1);
        g_assert_cmpuint(c.remember_names_usec, ==, 0);
        g_assert_nonnull(messages);
        g_assert_nonnull(strstr(messages[0], "3:"));
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        ME = getuid();
        OTHER = ME + 4242;
        g_test_add_func("/manager/seen-names/noted-and-kept", test_noted_and_kept);
        g_test_add_func("/manager/seen-names/bounds-on-reload", test_bounds_on_reload);
        g_test_add_func("/manager/seen-names/no-state-directory", test_no_state_directory);
        g_test_add_func("/manager/seen-names/flatpak-id", test_flatpak_id);
        g_test_add_func("/manager/seen-names/config-parse", test_config_parse);
        return g_test_run();
}
