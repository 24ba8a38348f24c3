/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager's configuration over a fixture root: reload when an rc file changes (through the rc watch
 * on the event loop), the last good version of a file that breaks, one view per $HOME, the system view
 * for a process without HOME, and the shipped file of the driver version found in --proc. */

#include <unistd.h>

#include "manager-harness.h"
#include "test-util.h"

#define TIMEOUT_USEC (5 * 1000 * 1000)

#define RULE_FILE(settings) "{ \"rules\": [ { \"pattern\": \"glxgears\", \"profile\": [ " settings " ] } ] }\n"

typedef struct ExpectedSettings {
        pid_t pid;
        const char *settings;
} ExpectedSettings;

static bool process_has_settings(ManagerHarness *h, void *userdata)
{
        const ExpectedSettings *e = userdata;
        const Process *p = manager_get_process(h->manager, e->pid);
        g_autofree char *s = NULL;

        if (!p)
                return false;
        s = manager_harness_settings(p);
        return g_str_equal(s, e->settings);
}

/* Runs the loop until the rc watch has reloaded and pid's result is settings. */
static void run_until_settings(ManagerHarness *h, pid_t pid, const char *settings)
{
        ExpectedSettings e = { pid, settings };
        unsigned reloaded_before = h->n_reloaded;

        if (!manager_harness_run_until(h, process_has_settings, &e, TIMEOUT_USEC)) {
                g_autofree char *now = manager_harness_process_settings(h, pid);
                g_error("process %i still has \"%s\", expected \"%s\"", (int) pid, now, settings);
        }
        g_assert_cmpuint(h->n_reloaded, >, reloaded_before);
}

static void assert_settings(ManagerHarness *h, pid_t pid, const char *expected)
{
        g_autofree char *s = manager_harness_process_settings(h, pid);

        g_assert_cmpstr(s, ==, expected);
}

static void add_process(ManagerHarness *h, pid_t pid, const char *home)
{
        g_autofree char *home_env = home ? g_strdup_printf("HOME=%s", home) : NULL;
        const char *const env[] = { "PATH=/usr/bin", home_env, NULL };

        proc_fixture_add(h->proc,
                        &(ProcFixtureProcess){
                                        .pid = pid,
                                        .uid = getuid(),
                                        .exe = "/usr/bin/glxgears",
                                        .environ = env,
                        });
        g_assert_cmpint(manager_process_exec(h->manager, pid), ==, 0);
}

/* The file cache's entry for an in-root path under the manager's root, or NULL. */
static const RcCacheEntry *cache_entry(ManagerHarness *h, const char *path)
{
        const RcFileCache *c = &h->manager->profiles->file_cache;

        for (size_t i = 0; i < c->n_entries; i++)
                if (g_str_equal(c->entries[i].path, path) && c->entries[i].root_dev == h->manager->root_dev &&
                                c->entries[i].root_ino == h->manager->root_ino)
                        return &c->entries[i];
        return NULL;
}

/* The file record the system view holds for path, or NULL. */
static const RcFile *system_file(ManagerHarness *h, const char *path)
{
        const RcConfig *c = h->manager->profiles->system_config;

        for (size_t i = 0; i < c->n_files; i++)
                if (g_str_equal(c->files[i]->path, path))
                        return c->files[i];
        return NULL;
}

static void test_reload_on_change(void)
{
        ManagerHarness h;
        uint64_t generation;

        manager_harness_init(&h);
        manager_harness_write(&h, SYSTEM_RC, RULE_FILE("\"GLSharpenValue\", 50"));
        manager_harness_start(&h);
        add_process(&h, 100, NULL);
        assert_settings(&h, 100, "GLSharpenValue=50");
        generation = h.manager->profiles->generation;
        manager_harness_clear_events(&h);

        /* An editor saves the system file: the watch fires, the manager reloads and re-resolves. */
        manager_harness_write(&h, SYSTEM_RC, RULE_FILE("\"GLSharpenValue\", 60"));
        run_until_settings(&h, 100, "GLSharpenValue=60");
        g_assert_cmpuint(h.manager->profiles->generation, >, generation);
        g_assert_nonnull(manager_harness_last_event(&h, 100));
        g_assert_cmpstr(manager_harness_last_event(&h, 100)->settings, ==, "GLSharpenValue=60");

        /* A new file in an rc.d directory that did not exist when the daemon started. */
        manager_harness_write(&h, SYSTEM_RC_D "/50-extra", RULE_FILE("\"GLLogMaxAniso\", 2"));
        run_until_settings(&h, 100, "GLSharpenValue=60, GLLogMaxAniso=2");

        /* Its removal. */
        {
                g_autofree char *path = g_build_filename(h.root, SYSTEM_RC_D "/50-extra", NULL);
                g_assert_cmpint(unlink(path), ==, 0);
        }
        run_until_settings(&h, 100, "GLSharpenValue=60");

        /* A reload that changes nothing for a process does not report it again. */
        manager_harness_clear_events(&h);
        g_assert_cmpint(manager_reload(h.manager), ==, 0);
        g_assert_null(manager_harness_last_event(&h, 100));

        manager_harness_done(&h);
}

static void test_broken_file_stays_in_force(void)
{
        static const char good_path[] = "/" SYSTEM_RC_D "/10-good";
        static const char new_path[] = "/" SYSTEM_RC_D "/20-new";
        ManagerHarness h;
        const RcCacheEntry *e;
        const RcFile *f;
        unsigned reloaded;

        manager_harness_init(&h);
        manager_harness_write(&h, SYSTEM_RC, RULE_FILE("\"GLSharpenValue\", 50"));
        manager_harness_write(&h, good_path + 1, RULE_FILE("\"GLLogMaxAniso\", 2"));
        manager_harness_start(&h);
        add_process(&h, 100, NULL);
        assert_settings(&h, 100, "GLSharpenValue=50, GLLogMaxAniso=2");
        e = cache_entry(&h, good_path);
        g_assert_nonnull(e);
        g_assert_false(rc_cache_entry_is_stale(e));
        manager_harness_clear_events(&h);

        /* A bad save: the last good version stays in force, reported stale; the process's result does
         * not change, so it is not reported either. */
        manager_harness_write(&h, good_path + 1, "{ \"rules\": [ oops ] }\n");
        reloaded = h.n_reloaded;
        g_assert_cmpint(manager_reload(h.manager), ==, 0);
        g_assert_cmpuint(h.n_reloaded, ==, reloaded + 1);
        assert_settings(&h, 100, "GLSharpenValue=50, GLLogMaxAniso=2");
        g_assert_null(manager_harness_last_event(&h, 100));
        e = cache_entry(&h, good_path);
        g_assert_nonnull(e);
        g_assert_true(rc_cache_entry_is_stale(e));
        g_assert_cmpint(e->current->state, ==, RC_FILE_BROKEN);
        f = system_file(&h, good_path);
        g_assert_true(f == e->good);
        g_assert_cmpint(f->state, ==, RC_FILE_LOADED);

        /* A file that never loaded has no good version: it contributes nothing and is broken, not
         * stale, and the others still apply. */
        manager_harness_write(&h, new_path + 1,
                        "{ \"rules\": [ { \"pattern\": \"glxgears\", \"profile\": [ \"GLVidHeapReuseRatio\", 0 ] }, ] }\n");
        g_assert_cmpint(manager_reload(h.manager), ==, 0);
        e = cache_entry(&h, new_path);
        g_assert_nonnull(e);
        g_assert_false(rc_cache_entry_is_stale(e));
        g_assert_cmpint(system_file(&h, new_path)->state, ==, RC_FILE_BROKEN);
        g_assert_true(rc_cache_entry_is_stale(cache_entry(&h, good_path)));
        assert_settings(&h, 100, "GLSharpenValue=50, GLLogMaxAniso=2");

        /* Fixed: the new version applies and is no longer stale. This time through the rc watch. */
        manager_harness_write(&h, good_path + 1, RULE_FILE("\"GLLogMaxAniso\", 3"));
        run_until_settings(&h, 100, "GLSharpenValue=50, GLLogMaxAniso=3");
        g_assert_false(rc_cache_entry_is_stale(cache_entry(&h, good_path)));
        g_assert_cmpstr(manager_harness_last_event(&h, 100)->settings, ==, "GLSharpenValue=50, GLLogMaxAniso=3");

        manager_harness_done(&h);
}

static void test_per_home(void)
{
        ManagerHarness h;

        manager_harness_init(&h);
        manager_harness_write(&h, SYSTEM_RC, RULE_FILE("\"GLSharpenValue\", 99"));
        manager_harness_write(&h, "home/alice/" USER_RC, RULE_FILE("\"GLSharpenValue\", 10"));
        manager_harness_write(
                        &h, "home/bob/" USER_RC_D "/10-bob", RULE_FILE("\"GLSharpenValue\", 20, \"GLLogMaxAniso\", 8"));
        test_mkdir_p(h.root, "home/carol");
        manager_harness_start(&h);

        /* Each process reads the user files of its own $HOME, which outrank the system's; without HOME,
         * or with a HOME that has none, the system view applies. */
        add_process(&h, 800, "/home/alice");
        add_process(&h, 801, "/home/bob");
        add_process(&h, 802, NULL);
        add_process(&h, 803, "/home/carol");
        assert_settings(&h, 800, "GLSharpenValue=10");
        assert_settings(&h, 801, "GLSharpenValue=20, GLLogMaxAniso=8");
        assert_settings(&h, 802, "GLSharpenValue=99");
        assert_settings(&h, 803, "GLSharpenValue=99");
        g_assert_cmpstr(manager_get_process(h.manager, 800)->home, ==, "/home/alice");
        g_assert_null(manager_get_process(h.manager, 802)->home);
        g_assert_cmpstr(manager_harness_last_event(&h, 801)->settings, ==, "GLSharpenValue=20, GLLogMaxAniso=8");

        /* The status view is the system's alone. */
        g_assert_null(h.manager->profiles->system_config->home);
        g_assert_null(system_file(&h, "/home/alice/" USER_RC));

        /* A change in one home concerns that user's processes only. */
        manager_harness_clear_events(&h);
        manager_harness_write(&h, "home/alice/" USER_RC, RULE_FILE("\"GLSharpenValue\", 11"));
        run_until_settings(&h, 800, "GLSharpenValue=11");
        assert_settings(&h, 801, "GLSharpenValue=20, GLLogMaxAniso=8");
        assert_settings(&h, 802, "GLSharpenValue=99");
        g_assert_null(manager_harness_last_event(&h, 801));
        g_assert_null(manager_harness_last_event(&h, 802));
        g_assert_null(manager_harness_last_event(&h, 803));

        /* A home's first rc file, created after its process was seen, is picked up too. */
        manager_harness_write(&h, "home/carol/" USER_RC_D "/mine", RULE_FILE("\"GLSharpenValue\", 30"));
        run_until_settings(&h, 803, "GLSharpenValue=30");
        assert_settings(&h, 802, "GLSharpenValue=99");

        manager_harness_done(&h);
}

static void test_shipped_file(void)
{
        ManagerHarness h;

        manager_harness_init(&h);
        /* The driver's version comes from --proc, and selects the shipped file, which ranks last. */
        proc_fixture_set_driver_version(h.proc, "570.153.02");
        manager_harness_write(&h, "usr/share/nvidia/nvidia-application-profiles-570.153.02-rc",
                        RULE_FILE("\"GLSharpenValue\", 1, \"GLThreadedOptimizations\", false"));
        manager_harness_write(&h, SYSTEM_RC, RULE_FILE("\"GLSharpenValue\", 50"));
        manager_harness_start(&h);
        g_assert_cmpstr(h.manager->driver_version, ==, "570.153.02");

        add_process(&h, 100, NULL);
        assert_settings(&h, 100, "GLSharpenValue=50, GLThreadedOptimizations=false");

        manager_harness_done(&h);
}

static void test_container_root(void)
{
        ManagerHarness h;
        g_autofree char *container = test_mkdtemp();
        g_autofree char *container_rc = g_build_filename(container, SYSTEM_RC, NULL);
        g_autoptr(GError) error = NULL;
        const char *const env[] = { "HOME=/home/alice", NULL };

        manager_harness_init(&h);
        manager_harness_write(&h, SYSTEM_RC, RULE_FILE("\"GLSharpenValue\", 50"));
        manager_harness_write(&h, "home/alice/" USER_RC, RULE_FILE("\"GLLogMaxAniso\", 1"));
        test_write_file(container, SYSTEM_RC, RULE_FILE("\"GLSharpenValue\", 70"));
        manager_harness_start(&h);

        /* A process whose root is not the host's reads the configuration inside its root, its $HOME
         * included: not the host's files. */
        proc_fixture_add(h.proc,
                        &(ProcFixtureProcess){
                                        .pid = 900,
                                        .uid = getuid(),
                                        .exe = "/usr/bin/glxgears",
                                        .environ = env,
                                        .root = container,
                        });
        g_assert_cmpint(manager_process_exec(h.manager, 900), ==, 0);
        assert_settings(&h, 900, "GLSharpenValue=70");
        add_process(&h, 901, "/home/alice");
        assert_settings(&h, 901, "GLLogMaxAniso=1, GLSharpenValue=50");

        /* Its files are not watched but checked again at each resolution: the next re-read sees a
         * change. (A different size, so the change shows however coarse the file system's clock.) */
        g_file_set_contents(container_rc, RULE_FILE("\"GLSharpenValue\", 700"), -1, &error);
        g_assert_no_error(error);
        proc_fixture_set_comm(h.proc, 900, "glxgears2");
        g_assert_cmpint(manager_process_comm(h.manager, 900), ==, 0);
        assert_settings(&h, 900, "GLSharpenValue=700");
        assert_settings(&h, 901, "GLLogMaxAniso=1, GLSharpenValue=50");

        manager_harness_done(&h);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/manager/config/reload-on-change", test_reload_on_change);
        g_test_add_func("/manager/config/broken-file-stays-in-force", test_broken_file_stays_in_force);
        g_test_add_func("/manager/config/per-home", test_per_home);
        g_test_add_func("/manager/config/shipped-file", test_shipped_file);
        g_test_add_func("/manager/config/container-root", test_container_root);
        return g_test_run();
}
