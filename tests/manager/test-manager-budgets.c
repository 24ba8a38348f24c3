/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What one user can make the daemon hold and do (issue 6 items 5, 6 and 8): configurations keyed by the
 * home directory's identity, per-user and total memory budgets, per-user slot counts, idle eviction,
 * watch groups that a user's paths cannot starve, the caller's access for homes named over D-Bus, and
 * recovery when the proc connector fails. Cases with a second user need root (to act as it). */

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rc-config-slots.h"
#include "manager-harness.h"
#include "process-watch.h"
#include "rc-watch.h"
#include "report-budget.h"
#include "test-util.h"

#define NOBODY 65534
#define RULE_FOO "{\"rules\": [{\"pattern\": \"foo\", \"profile\": [\"GLSharpenValue\", 1]}]}\n"

static const UserCreds nobody = { .uid = NOBODY, .gid = NOBODY };

#define REQUIRE_ROOT()                                                    \
        do {                                                              \
                if (geteuid() != 0 || !user_creds_can_switch()) {         \
                        g_test_skip("acting as another user needs root"); \
                        return;                                           \
                }                                                         \
        } while (0)

static size_t slots_of(const Manager *m, uid_t uid)
{
        size_t n = 0;

        for (size_t i = 0; i < m->profiles->n_configs; i++)
                n += m->profiles->configs[i].uid == uid && m->profiles->configs[i].home;
        return n;
}

static void exec_with_home(ManagerHarness *h, pid_t pid, uid_t uid, const char *home)
{
        g_autofree char *env = g_strdup_printf("HOME=%s", home);
        const char *env_list[] = { env, NULL };

        proc_fixture_add(h->proc,
                        &(ProcFixtureProcess){ .pid = pid, .uid = uid, .exe = "/usr/bin/foo", .environ = env_list });
        g_assert_cmpint(manager_process_exec(h->manager, pid), >=, 0);
}

/* A tree below the harness root that nobody can walk (the harness makes private temporary dirs). */
static void open_up(ManagerHarness *h, const char *rel)
{
        g_autofree char *p = g_build_filename(h->root, rel, NULL);
        g_assert_cmpint(chmod(p, 0755), ==, 0);
}

/* "/home/u", "//home/u/" and "/home/../home/u" are one directory: one configuration. */
static void test_home_identity(void)
{
        ManagerHarness h;

        manager_harness_init(&h);
        manager_harness_write(&h, "home/u/" USER_RC, RULE_FOO);
        manager_harness_start(&h);

        exec_with_home(&h, 100, getuid(), "/home/u");
        exec_with_home(&h, 101, getuid(), "//home/u/");
        exec_with_home(&h, 102, getuid(), "/home/../home/u");
        g_assert_cmpuint(slots_of(h.manager, getuid()), ==, 1);
        for (pid_t pid = 100; pid <= 102; pid++) {
                g_autofree char *s = manager_harness_process_settings(&h, pid);
                g_assert_cmpstr(s, ==, "GLSharpenValue=1");
        }
        /* Another directory is another configuration. */
        manager_harness_write(&h, "home/v/" USER_RC, RULE_FOO);
        exec_with_home(&h, 103, getuid(), "/home/v");
        g_assert_cmpuint(slots_of(h.manager, getuid()), ==, 2);
        manager_harness_done(&h);
}

/* A user's rc files are read until its share is spent; the rest are listed as skipped, unread. */
static void test_user_share(void)
{
        ManagerHarness h;
        RcConfig *c = NULL;
        char rel[128];
        size_t skipped = 0;

        manager_harness_init(&h);
        for (int i = 0; i < 20; i++) {
                g_autofree char *big = g_strnfill(4000, ' ');
                g_autofree char *text = g_strdup_printf("%s%s", big, RULE_FOO);
                snprintf(rel, sizeof(rel), "home/u/" USER_RC_D "/%02d", i);
                manager_harness_write(&h, rel, text);
        }
        h.config.user_rc_bytes_max = 20000;
        manager_harness_start(&h);

        exec_with_home(&h, 100, getuid(), "/home/u");
        g_assert_cmpint(manager_get_config(h.manager, h.manager->root_fd, "/home/u", NULL, &c), ==, 0);
        for (size_t i = 0; i < c->n_files; i++)
                skipped += c->files[i]->state == RC_FILE_SKIPPED &&
                                test_has_diag(&c->files[i]->diagnostics, RC_SEVERITY_WARNING, 0, 0, "memory budget");
        g_assert_cmpuint(skipped, >, 0);
        g_assert_cmpuint(skipped, <, 20);
        rc_config_unref(c);
        /* Held: within the share plus at most the one file that crossed it. */
        g_assert_cmpuint(manager_rc_bytes(h.manager, getuid()), >, 0);
        g_assert_cmpuint(manager_rc_bytes(h.manager, getuid()), <=, 20000 + 32 * 1024);
        manager_harness_done(&h);
}

/* A user with more homes than its slot share replaces its own least recently used configuration; the
 * system view and other users' configurations stay. */
static void test_user_slots(void)
{
        ManagerHarness h;
        char rel[64], home[64];

        REQUIRE_ROOT();
        manager_harness_init(&h);
        open_up(&h, "");
        for (int i = 0; i < 6; i++) {
                snprintf(rel, sizeof(rel), "home/h%d/" USER_RC, i);
                manager_harness_write(&h, rel, RULE_FOO);
                snprintf(rel, sizeof(rel), "home/h%d", i);
                open_up(&h, rel);
                snprintf(rel, sizeof(rel), "home/h%d/.nv", i);
                open_up(&h, rel);
                snprintf(rel, sizeof(rel), "home/h%d/" USER_RC, i);
                open_up(&h, rel);
        }
        open_up(&h, "home");
        h.config.user_configs_max = 2;
        manager_harness_start(&h);

        exec_with_home(&h, 50, getuid(), "/home/h0"); /* root's */
        for (int i = 1; i < 6; i++) {
                snprintf(home, sizeof(home), "/home/h%d", i);
                exec_with_home(&h, 100 + i, NOBODY, home);
                g_assert_cmpuint(slots_of(h.manager, NOBODY), <=, 2);
        }
        g_assert_cmpuint(slots_of(h.manager, NOBODY), ==, 2);
        g_assert_cmpuint(slots_of(h.manager, getuid()), ==, 1);
        g_assert_cmpuint(h.manager->profiles->n_config_evictions, ==, 3);
        /* The evicted homes still resolve (loaded again on demand). */
        {
                g_autofree char *s = manager_harness_process_settings(&h, 101);
                g_assert_cmpstr(s, ==, "GLSharpenValue=1");
        }
        manager_harness_done(&h);
}

/* One user with two configurations of the same home (its processes differ in supplementary groups, or a
 * caller's groups differ from its processes'): the files both hold are shared through the cache and
 * charged once, so the second configuration reads every file the first could. */
static void test_shared_files_charged_once(void)
{
        ManagerHarness h;
        g_autofree char *big = g_strnfill(900000, ' ');
        g_autofree char *text = g_strdup_printf("%s%s", big, RULE_FOO);
        const UserCreds plain = { .uid = NOBODY, .gid = NOBODY };
        const UserCreds grouped = { .uid = NOBODY, .gid = NOBODY, .n_groups = 1, .groups = { 100 } };
        RcConfig *a = NULL, *b = NULL;
        uint64_t held;

        REQUIRE_ROOT();
        manager_harness_init(&h);
        open_up(&h, "");
        manager_harness_write(&h, "home/n/" USER_RC_D "/00-big", text);
        manager_harness_write(&h, "home/n/" USER_RC_D "/01-small", RULE_FOO);
        open_up(&h, "home");
        open_up(&h, "home/n");
        open_up(&h, "home/n/.nv");
        open_up(&h, "home/n/" USER_RC_D);
        open_up(&h, "home/n/" USER_RC_D "/00-big");
        open_up(&h, "home/n/" USER_RC_D "/01-small");
        h.config.user_rc_bytes_max = 1200000;
        manager_harness_start(&h);

        g_assert_cmpint(manager_get_config(h.manager, h.manager->root_fd, "/home/n", &plain, &a), ==, 0);
        g_assert_cmpuint(a->n_rules, ==, 2);
        held = manager_rc_bytes(h.manager, NOBODY);
        g_assert_cmpuint(held, >, 900000);
        g_assert_cmpuint(held, <=, 1200000);

        g_assert_cmpint(manager_get_config(h.manager, h.manager->root_fd, "/home/n", &grouped, &b), ==, 0);
        g_assert_cmpuint(slots_of(h.manager, NOBODY), ==, 2);
        g_assert_cmpuint(b->n_rules, ==, 2);
        /* The same parsed files, held once. */
        g_assert_true(a->files[0] == b->files[0]);
        g_assert_cmpuint(manager_rc_bytes(h.manager, NOBODY), ==, held);
        rc_config_unref(a);
        rc_config_unref(b);
        manager_harness_done(&h);
}

/* Past the total, other users' least recently used configurations go first. */
static void test_total_budget(void)
{
        ManagerHarness h;
        g_autofree char *big = g_strnfill(30000, ' ');
        g_autofree char *text = g_strdup_printf("%s%s", big, RULE_FOO);

        REQUIRE_ROOT();
        manager_harness_init(&h);
        open_up(&h, "");
        manager_harness_write(&h, "home/a/" USER_RC, text);
        manager_harness_write(&h, "home/b/" USER_RC, text);
        open_up(&h, "home");
        open_up(&h, "home/b");
        open_up(&h, "home/b/.nv");
        open_up(&h, "home/b/" USER_RC);
        h.config.rc_bytes_max = 120000;
        h.config.user_rc_bytes_max = 100000;
        manager_harness_start(&h);

        exec_with_home(&h, 100, getuid(), "/home/a");
        g_assert_cmpuint(slots_of(h.manager, getuid()), ==, 1);
        /* b's share (100000) does not fit next to a's (~30000 text + model): a's idle slot is dropped. */
        exec_with_home(&h, 200, NOBODY, "/home/b");
        g_assert_cmpuint(slots_of(h.manager, NOBODY), ==, 1);
        g_assert_cmpuint(manager_rc_bytes_total(h.manager), <=, 120000);
        g_assert_cmpuint(h.manager->profiles->n_config_evictions, >=, 1);
        g_assert_cmpuint(slots_of(h.manager, getuid()), ==, 0);
        manager_harness_done(&h);
}

/* A per-home configuration nobody used for ConfigurationIdleSec is dropped at the next reload. */
static void test_idle_eviction(void)
{
        ManagerHarness h;

        manager_harness_init(&h);
        manager_harness_write(&h, "home/u/" USER_RC, RULE_FOO);
        h.config.config_idle_usec = 1000;
        manager_harness_start(&h);

        exec_with_home(&h, 100, getuid(), "/home/u");
        g_assert_cmpuint(slots_of(h.manager, getuid()), ==, 1);
        manager_harness_run_for(&h, 20 * 1000);
        proc_fixture_remove(h.proc, 100);
        manager_process_exit(h.manager, 100);
        g_assert_cmpint(manager_reload(h.manager), ==, 0);
        g_assert_cmpuint(slots_of(h.manager, getuid()), ==, 0);
        g_assert_cmpuint(h.manager->profiles->n_config_evictions, ==, 1);
        manager_harness_done(&h);
}

/* An rc.d with more links to separate directories than a user's watch share costs only that user's
 * freshness: the system files are still watched and reloaded on change. */
static void test_watch_starvation(void)
{
        ManagerHarness h;
        unsigned before;
        char rel[128], target[128];

        manager_harness_init(&h);
        manager_harness_write(&h, SYSTEM_RC, RULE_FOO);
        for (int i = 0; i < 100; i++) {
                snprintf(rel, sizeof(rel), "elsewhere/d%03d/rc", i);
                manager_harness_write(&h, rel, "{}");
                snprintf(rel, sizeof(rel), "home/u/" USER_RC_D "/l%03d", i);
                snprintf(target, sizeof(target), "/elsewhere/d%03d/rc", i);
                {
                        g_autofree char *dir = g_build_filename(h.root, "home/u/" USER_RC_D, NULL);
                        g_mkdir_with_parents(dir, 0755);
                }
                test_symlink(target, h.root, rel);
        }
        h.config.user_watch_dirs_max = 64;
        manager_harness_start(&h);

        exec_with_home(&h, 100, getuid(), "/home/u");
        g_assert_cmpuint(h.manager->profiles->n_unwatched_uids, ==, 1);
        g_assert_cmpuint(h.manager->profiles->unwatched_uids[0], ==, getuid());

        before = h.n_reloaded;
        manager_harness_write(
                        &h, SYSTEM_RC, "{\"rules\": [{\"pattern\": \"foo\", \"profile\": [\"GLSharpenValue\", 2]}]}");
        g_assert_true(manager_harness_run_until(&h, harness_reloaded_since, GUINT_TO_POINTER(before), 5 * 1000000));
        {
                g_autofree char *s = manager_harness_process_settings(&h, 100);
                g_assert_cmpstr(s, ==, "GLSharpenValue=2");
        }
        manager_harness_done(&h);
}

/* Writes home's rc file with value for GLSharpenValue, readable by the user whose home it is. */
static void write_home_rc(ManagerHarness *h, const char *home, int value)
{
        g_autofree char *rel = g_strdup_printf("home/%s/" USER_RC, home);
        g_autofree char *dir = g_strdup_printf("home/%s", home);
        g_autofree char *nv = g_strdup_printf("home/%s/.nv", home);
        g_autofree char *text = g_strdup_printf(
                        "{\"rules\": [{\"pattern\": \"foo\", \"profile\": [\"GLSharpenValue\", %d]}]}\n", value);

        manager_harness_write(h, rel, text);
        open_up(h, dir);
        open_up(h, nv);
        open_up(h, rel);
}

/* How many processes the reload that follows this change re-reads; waits for it. */
static uint64_t rereads_after(ManagerHarness *h, const char *home, int value)
{
        uint64_t before = h->manager->profiles->n_reload_rereads;
        unsigned reloaded = h->n_reloaded;

        if (home)
                write_home_rc(h, home, value);
        else
                manager_harness_write(h, SYSTEM_RC, "{ \"rules\": [] }\n");
        g_assert_true(manager_harness_run_until(h, harness_reloaded_since, GUINT_TO_POINTER(reloaded), 5 * 1000000));
        /* Anything that follows (a change seen while reading) is counted too. */
        manager_harness_run_for(h, 200 * 1000);
        return h->manager->profiles->n_reload_rereads - before;
}

static void assert_settings(ManagerHarness *h, pid_t pid, const char *expected)
{
        g_autofree char *s = manager_harness_process_settings(h, pid);
        g_assert_cmpstr(s, ==, expected);
}

/* One user saving its rc file re-reads that user's processes, not every user's (issue 29: 58 ms with 2,086
 * processes at each save of anyone's); the system's change still re-reads all. */
static void test_reload_rereads_user(void)
{
        ManagerHarness h;

        REQUIRE_ROOT();
        manager_harness_init(&h);
        open_up(&h, "");
        write_home_rc(&h, "h0", 1);
        write_home_rc(&h, "h1", 1);
        open_up(&h, "home");
        manager_harness_start(&h);

        exec_with_home(&h, 50, getuid(), "/home/h0"); /* root's */
        for (int i = 0; i < 10; i++)
                exec_with_home(&h, 100 + i, NOBODY, "/home/h1");
        assert_settings(&h, 50, "GLSharpenValue=1");
        assert_settings(&h, 105, "GLSharpenValue=1");

        g_assert_cmpuint(rereads_after(&h, "h0", 2), ==, 1);
        assert_settings(&h, 50, "GLSharpenValue=2");
        assert_settings(&h, 105, "GLSharpenValue=1");

        g_assert_cmpuint(rereads_after(&h, "h1", 3), ==, 10);
        assert_settings(&h, 105, "GLSharpenValue=3");
        assert_settings(&h, 50, "GLSharpenValue=2");

        g_assert_cmpuint(rereads_after(&h, NULL, 0), ==, 11);
        manager_harness_done(&h);
}

/* A D-Bus caller may name only a home it could read itself; root any. */
static void test_caller_home(void)
{
        ManagerHarness h;
        RcConfig *c = NULL;
        UserCreds root = { .uid = 0, .gid = 0 };

        REQUIRE_ROOT();
        manager_harness_init(&h);
        open_up(&h, "");
        manager_harness_write(&h, "root/" USER_RC, RULE_FOO);
        manager_harness_start(&h);

        /* The harness root dir is 0700 (root's), like /root. */
        {
                g_autofree char *p = g_build_filename(h.root, "root", NULL);
                g_assert_cmpint(chmod(p, 0700), ==, 0);
        }
        g_assert_cmpint(manager_get_config_for_caller(h.manager, "/root", &nobody, &c), ==, -EACCES);
        g_assert_null(c);
        g_assert_cmpint(manager_get_config_for_caller(h.manager, "/root", &root, &c), ==, 0);
        g_assert_cmpuint(c->n_rules, ==, 1);
        rc_config_unref(c);
        manager_harness_done(&h);
}

/* A failing proc connector never leaves the daemon silently blind: with no connector to reopen (a fixture
 * /proc), it polls, says so, and rescans what it may have missed. */
static void test_connector_failure(void)
{
        ManagerHarness h;
        uint64_t rescans;
        unsigned status;

        manager_harness_init(&h);
        manager_harness_write(&h, SYSTEM_RC, RULE_FOO);
        manager_harness_start(&h);
        g_assert_false(h.manager->profiles->watch_degraded);
        g_assert_cmpstr(manager_watch_mode(h.manager), ==, "polling (--proc is not the live /proc)");

        proc_fixture_add(h.proc, &(ProcFixtureProcess){ .pid = 300, .uid = getuid(), .exe = "/usr/bin/foo" });
        rescans = h.manager->profiles->n_rescans;
        status = h.n_status_changed;
        g_assert_cmpint(manager_procwatch_recover(h.manager, -EIO), ==, 0);
        g_assert_true(h.manager->profiles->watch_degraded);
        g_assert_cmpint(h.manager->profiles->watch_state, ==, MANAGER_WATCH_POLLING);
        g_assert_cmpstr(manager_watch_mode(h.manager), ==,
                        "polling (the proc connector failed and could not be reopened)");
        g_assert_cmpuint(h.manager->profiles->n_connector_failures, ==, 1);
        g_assert_cmpuint(h.manager->profiles->n_rescans, ==, rescans + 1);
        g_assert_cmpuint(h.n_status_changed, >, status);
        /* The process started while events were lost is found. */
        g_assert_nonnull(manager_get_process(h.manager, 300));
        manager_harness_done(&h);
}

/* Any user may open a render node as often as it likes: the sweeps over fd tables stay at most one per
 * GPU_SWEEP_INTERVAL_MIN_USEC, and a process whose open-file count did not change is not walked again. */
static void test_gpu_open_flood(void)
{
        ManagerHarness h;
        g_autofree char *node = NULL;
        uint64_t walked, elapsed_sec;
        gint64 start;
        int fd;

        manager_harness_init(&h);
        test_write_file(h.dev, "renderD128", "");
        node = g_build_filename(h.dev, "renderD128", NULL);
        manager_harness_write(&h, SYSTEM_RC, RULE_FOO);
        manager_harness_start(&h);
        for (pid_t pid = 1000; pid < 1050; pid++) {
                const char *const fds[] = { "/dev/null", NULL };
                proc_fixture_add(h.proc,
                                &(ProcFixtureProcess){
                                                .pid = pid, .uid = getuid(), .exe = "/usr/bin/foo", .fds = fds });
                g_assert_cmpint(manager_process_exec(h.manager, pid), >=, 0);
        }

        /* About 2 seconds of opens, 200 per second. */
        start = g_get_monotonic_time();
        for (unsigned i = 0; i < 400; i++) {
                fd = open(node, O_RDONLY | O_CLOEXEC);
                g_assert_cmpint(fd, >=, 0);
                close(fd);
                manager_harness_run_for(&h, 5000);
        }
        elapsed_sec = (uint64_t) (g_get_monotonic_time() - start) / G_USEC_PER_SEC;
        /* A first sweep 50 ms after the first open, then at most one a second: 400 opens, a few sweeps. */
        g_assert_cmpuint(h.manager->profiles->n_device_sweeps, >=, 1);
        g_assert_cmpuint(h.manager->profiles->n_device_sweeps, <=, elapsed_sec + 2);
        /* The first sweep walks the 50 tables; the later ones find the counts unchanged. */
        walked = h.manager->profiles->n_fd_tables_walked;
        g_assert_cmpuint(walked, >=, 50);
        g_assert_cmpuint(h.manager->profiles->n_device_sweeps, >=, 2);
        g_assert_cmpuint(walked, ==, 50);
        manager_harness_done(&h);
}

/* The [Reports] budgets within the unit's TasksMax=16 and MemoryMax=128M: room for the main process, the
 * spare worker and other users; a user gets a share; without a cgroup limit the configuration stands. */
static void test_report_budget(void)
{
        ManagerConfig c;
        ReportBudget b;

        manager_config_init(&c);
        report_budget_fit(&c, &(CgroupLimits){ CGROUP_LIMIT_NONE, CGROUP_LIMIT_NONE }, &b);
        g_assert_cmpuint(b.workers_max, ==, 64);
        g_assert_cmpuint(b.workers_per_user_max, ==, 16);
        g_assert_cmpuint(b.memory_max, ==, (uint64_t) 4096 << 20);
        g_assert_cmpuint(b.memory_per_user_max, ==, (uint64_t) 2048 << 20);
        g_assert_cmpuint(b.worker_memory_max, ==, (uint64_t) 1024 << 20);

        report_budget_fit(&c, &(CgroupLimits){ 16, (uint64_t) 128 << 20 }, &b);
        g_assert_cmpuint(b.workers_max, ==, 16 - REPORT_BUDGET_TASKS_RESERVED);
        g_assert_cmpuint(b.workers_per_user_max, ==, (16 - REPORT_BUDGET_TASKS_RESERVED) / 4);
        g_assert_cmpuint(b.memory_max, ==, (uint64_t) 64 << 20);
        g_assert_cmpuint(b.memory_per_user_max, ==, (uint64_t) 48 << 20);
        g_assert_cmpuint(b.worker_memory_max, ==, (uint64_t) 40 << 20);

        /* Too few tasks for any report; one worker's share is at least one where there is any. */
        report_budget_fit(&c, &(CgroupLimits){ 3, CGROUP_LIMIT_NONE }, &b);
        g_assert_cmpuint(b.workers_max, ==, 0);
        g_assert_cmpuint(b.workers_per_user_max, ==, 0);
        report_budget_fit(&c, &(CgroupLimits){ REPORT_BUDGET_TASKS_RESERVED + 2, CGROUP_LIMIT_NONE }, &b);
        g_assert_cmpuint(b.workers_per_user_max, ==, 1);

        /* Set explicitly: kept, within all. */
        c.reports_per_user_max = 40;
        c.report_memory_per_user_max = (uint64_t) 100 << 20;
        report_budget_fit(&c, &(CgroupLimits){ 16, (uint64_t) 128 << 20 }, &b);
        g_assert_cmpuint(b.workers_per_user_max, ==, b.workers_max);
        g_assert_cmpuint(b.memory_per_user_max, ==, (uint64_t) 48 << 20);
        c.report_memory_per_user_max = (uint64_t) 20 << 20;
        report_budget_fit(&c, &(CgroupLimits){ 16, (uint64_t) 128 << 20 }, &b);
        g_assert_cmpuint(b.memory_per_user_max, ==, (uint64_t) 20 << 20);
        manager_config_done(&c);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/manager-budgets/home-identity", test_home_identity);
        g_test_add_func("/manager-budgets/report-budget", test_report_budget);
        g_test_add_func("/manager-budgets/user-share", test_user_share);
        g_test_add_func("/manager-budgets/user-slots", test_user_slots);
        g_test_add_func("/manager-budgets/shared-files-charged-once", test_shared_files_charged_once);
        g_test_add_func("/manager-budgets/total-budget", test_total_budget);
        g_test_add_func("/manager-budgets/idle-eviction", test_idle_eviction);
        g_test_add_func("/manager-budgets/watch-starvation", test_watch_starvation);
        g_test_add_func("/manager-budgets/caller-home", test_caller_home);
        g_test_add_func("/manager-budgets/reload-rereads-user", test_reload_rereads_user);
        g_test_add_func("/manager-budgets/connector-failure", test_connector_failure);
        g_test_add_func("/manager-budgets/gpu-open-flood", test_gpu_open_flood);
        return g_test_run();
}
