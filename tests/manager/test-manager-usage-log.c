/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The journal entry of a runtime-suspended GPU: its MESSAGE_ID (daemon/nvprofiled.catalog) and
 * fields, as sent: the entry is the one the daemon would hand journald (journal-capture.h). */
#include "journal-capture.h"
#include "log.h"
#include "manager-harness.h"
#include "manager-usage.h"
#include "usage-fixture.h"

static const char script[] = "node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu\n"
                             "power renderD128 suspended\n"
                             "fdinfo 100 3 keys drm-driver=amdgpu drm-client-id=5 drm-engine-gfx=10_ns\n";

static void test_suspended(void)
{
        static const char *const fds[] = { "/etc/hostname", "/etc/hostname", "/etc/hostname", "/dev/full", NULL };
        g_autofree char *error = NULL;
        const char *const *e;
        ManagerHarness h;
        UsageWatch *w;

        manager_harness_init(&h);
        h.config.nvml = false;
        h.config.drm_major = 1;
        h.config.accel_major = 4095;
        h.config.usage_min_interval_usec = 10000;
        manager_harness_start(&h);
        proc_fixture_add(h.proc, &(ProcFixtureProcess){ .pid = 100, .uid = 1000, .exe = "/usr/bin/game", .fds = fds });
        g_assert_cmpint(usage_fixture_apply(script, proc_fixture_path(h.proc), h.sys, "/nonexistent", 0, &error), ==,
                        0);
        manager_process_exec(h.manager, 100);
        g_assert_cmpint(manager_usage_watch(h.manager, 0, 20000, -1, &w), ==, 0);

        log_set_target(LOG_TARGET_JOURNAL);
        log_set_max_level(LOG_INFO);
        g_assert_cmpint(manager_usage_sample(h.manager), ==, 0);
        log_set_target(LOG_TARGET_CONSOLE);

        e = journal_entry_with(LOG_MESSAGE_GPU_SUSPENDED);
        g_assert_nonnull(e);
        g_assert_true(g_strv_contains(e,
                        "MESSAGE=GPU 0000:03:00.0 (renderD128) is runtime-suspended: its clients "
                        "are not read, so as not to wake it."));
        g_assert_true(g_strv_contains(e, "PRIORITY=6"));
        g_assert_true(g_strv_contains(e, "NVPROFILED_GPU=0000:03:00.0"));
        g_assert_true(g_strv_contains(e, "NVPROFILED_GPU_NODE=renderD128"));
        /* Once, not at every sample while it sleeps. */
        journal_capture_clear();
        log_set_target(LOG_TARGET_JOURNAL);
        g_assert_cmpint(manager_usage_sample(h.manager), ==, 0);
        log_set_target(LOG_TARGET_CONSOLE);
        g_assert_null(journal_entry_with(LOG_MESSAGE_GPU_SUSPENDED));

        manager_usage_unwatch(w);
        manager_harness_done(&h);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/manager-usage-log/suspended", test_suspended);
        return g_test_run();
}
