/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Issue 18: SIGHUP and Reload re-read nvprofiled.conf (manager_reload_configuration()). What can change at
 * runtime is applied (privacy, budgets, log limits, timers, the export), what takes effect at start-up only
 * keeps its running value and a warning names it, and a file with errors changes nothing while its errors
 * are logged with their line. The rc files are read again either way. The journal entries are the ones the
 * daemon would hand journald (journal-capture.h). */
#include <errno.h>
#include <unistd.h>

#include "journal-capture.h"
#include "log.h"
#include "manager-harness.h"
#include "prometheus-textfile.h"
#include "test-util.h"

#define TIMEOUT_USEC (20 * G_USEC_PER_SEC)

typedef struct ReloadTest {
        ManagerHarness h;
        char *dir; /* the configuration file and the export */
        char *conf;
        char *export;
} ReloadTest;

static void reload_test_start(ReloadTest *t)
{
        manager_harness_init(&t->h);
        manager_harness_write(&t->h, SYSTEM_RC, "{ \"rules\": [] }\n");
        manager_harness_start(&t->h);
        t->dir = test_mkdtemp();
        t->conf = g_build_filename(t->dir, "nvprofiled.conf", NULL);
        t->export = g_build_filename(t->dir, "nvprofiled.prom", NULL);
        g_assert_cmpint(manager_set_config_file(t->h.manager, t->conf, false), ==, 0);
        log_set_target(LOG_TARGET_JOURNAL);
        log_set_max_level(LOG_INFO);
        journal_capture_clear();
}

static void reload_test_done(ReloadTest *t)
{
        log_set_target(LOG_TARGET_CONSOLE);
        manager_harness_done(&t->h);
        g_free(t->dir);
        g_free(t->conf);
        g_free(t->export);
}

/* The file, starting with what the harness runs with (so that only what a test names changes). */
static void write_conf(ReloadTest *t, const char *text)
{
        g_autofree char *full =
                        g_strdup_printf("[ProcessWatch]\nDeviceDirectory=%s\nSettleSec=0\nPollIntervalSec=3600s\n"
                                        "[Profiles]\nReloadCoalesceSec=20ms\nReloadMaxDelaySec=200ms\n"
                                        "LogApplied=no\n%s",
                                        t->h.dev, text);

        test_write_file(t->dir, "nvprofiled.conf", full);
}

/* The first entry at priority whose message contains needle, or NULL. */
static const char *const *entry_saying(const char *priority, const char *needle)
{
        for (guint i = 0; i < journal_capture_entries->len; i++) {
                const char *const *e = journal_capture_entries->pdata[i];

                if (g_strcmp0(journal_field(e, "PRIORITY"), priority) == 0 &&
                                strstr(strempty(journal_field(e, "MESSAGE")), needle))
                        return e;
        }
        return NULL;
}

static bool rescanned_twice(ManagerHarness *h, void *before)
{
        return h->manager->profiles->n_rescans >= GPOINTER_TO_UINT(before) + 2;
}

/* A file that changes settings of every kind: the runtime ones apply at once, Mode= waits for a restart. */
static void test_reload_applies(void)
{
        const char *const *e;
        unsigned reloaded;
        uint64_t exports;
        ReloadTest t;

        reload_test_start(&t);
        g_assert_cmpint(t.h.manager->config.watch_mode, ==, PROC_WATCH_AUTO);
        g_assert_null(t.h.manager->profiles->rescan_timer);
        {
                g_autofree char *text = g_strdup_printf("[ProcessWatch]\nMode=poll\nRescanIntervalSec=100ms\n"
                                                        "[Privacy]\nOtherUsersProcesses=hide\n"
                                                        "[Reports]\nReportsMax=3\n"
                                                        "[Limits]\nUserLogBurst=7\nMapsMax=64K\n"
                                                        "[Export]\nExportTextfile=%s\n",
                                t.export);
                write_conf(&t, text);
        }
        reloaded = t.h.n_reloaded;

        g_assert_cmpint(manager_reload_configuration(t.h.manager), ==, 0);
        g_assert_true(t.h.manager->config.hide_other_users);
        g_assert_cmpuint(t.h.manager->config.reports_max, ==, 3);
        g_assert_cmpuint(t.h.manager->config.user_log_burst, ==, 7);
        g_assert_cmpuint(t.h.manager->config.proc_limits.maps_max, ==, 64 * 1024);
        /* The export starts, and writes its file at once. */
        g_assert_cmpuint(manager_prometheus_n_writes(t.h.manager), ==, 1);
        g_assert_true(g_file_test(t.export, G_FILE_TEST_IS_REGULAR));
        /* The rescan timer starts, and keeps firing. */
        g_assert_nonnull(t.h.manager->profiles->rescan_timer);
        g_assert_true(manager_harness_run_until(&t.h, rescanned_twice,
                        GUINT_TO_POINTER((unsigned) t.h.manager->profiles->n_rescans), TIMEOUT_USEC));
        /* Mode= takes effect at the next start: the running value stays, and a warning says so. */
        g_assert_cmpint(t.h.manager->config.watch_mode, ==, PROC_WATCH_AUTO);
        g_assert_nonnull(entry_saying("4", "[ProcessWatch] Mode= changed in"));
        g_assert_nonnull(entry_saying("4", "takes effect at the next start"));
        /* The rc files were read again too. */
        g_assert_cmpuint(t.h.n_reloaded, ==, reloaded + 1);

        e = journal_entry_with(LOG_MESSAGE_CONFIG_RELOADED);
        g_assert_nonnull(e);
        g_assert_cmpstr(journal_field(e, "NVPROFILED_CONFIG_FILE"), ==, t.conf);
        g_assert_nonnull(strstr(journal_field(e, "MESSAGE"), "[Privacy] OtherUsersProcesses="));
        g_assert_nonnull(strstr(journal_field(e, "MESSAGE"), "[Export] ExportTextfile="));
        g_assert_null(strstr(journal_field(e, "MESSAGE"), "Mode="));

        /* The same file again: nothing changes, the export is not started again. */
        journal_capture_clear();
        exports = manager_prometheus_n_writes(t.h.manager);
        g_assert_cmpint(manager_reload_configuration(t.h.manager), ==, 0);
        e = journal_entry_with(LOG_MESSAGE_CONFIG_RELOADED);
        g_assert_nonnull(e);
        g_assert_nonnull(strstr(journal_field(e, "MESSAGE"), "nothing changed"));
        g_assert_cmpuint(manager_prometheus_n_writes(t.h.manager), ==, exports);
        reload_test_done(&t);
}

/* A file with an error changes nothing, not even its good lines; the error is logged with its line. A
 * missing file is an error too, unless the file is optional (the default path): then the defaults apply. */
static void test_reload_errors_keep(void)
{
        g_autofree char *expected = NULL;
        unsigned reloaded;
        ReloadTest t;

        reload_test_start(&t);
        write_conf(&t, "[Limits]\nUserLogBurst=9\n[Reports]\nReportsMax=many\n");
        reloaded = t.h.n_reloaded;

        g_assert_cmpint(manager_reload_configuration(t.h.manager), ==, -EBADMSG);
        g_assert_cmpuint(t.h.manager->config.user_log_burst, ==, 100);
        g_assert_cmpuint(t.h.manager->config.reports_max, ==, 64);
        /* The file's line 12 (after the 8 lines write_conf() starts with). */
        expected = g_strdup_printf("%s:12: error: invalid value 'many' for ReportsMax", t.conf);
        g_assert_nonnull(entry_saying("4", expected));
        g_assert_nonnull(entry_saying("3", "has 1 errors; the configuration in force stays"));
        g_assert_null(journal_entry_with(LOG_MESSAGE_CONFIG_RELOADED));
        /* The rc files were read again all the same. */
        g_assert_cmpuint(t.h.n_reloaded, ==, reloaded + 1);

        /* Gone: an error for a file that must be there... */
        journal_capture_clear();
        g_assert_cmpint(unlink(t.conf), ==, 0);
        g_assert_cmpint(manager_reload_configuration(t.h.manager), ==, -ENOENT);
        g_assert_nonnull(entry_saying("3", "the configuration in force stays"));
        /* ...the defaults for the optional one (SettleSec= is 0 in the harness, 3 s by default). */
        g_assert_cmpuint(t.h.manager->config.settle_usec, ==, 0);
        g_assert_cmpint(manager_set_config_file(t.h.manager, t.conf, true), ==, 0);
        g_assert_cmpint(manager_reload_configuration(t.h.manager), ==, 0);
        g_assert_cmpuint(t.h.manager->config.settle_usec, ==, 3 * G_USEC_PER_SEC);
        reload_test_done(&t);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/manager-reload/applies", test_reload_applies);
        g_test_add_func("/manager-reload/errors-keep", test_reload_errors_keep);
        return g_test_run();
}
