/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Issue 18: SIGHUP ("systemctl reload") and the Reload method re-read nvprofiled.conf, not only the rc
 * files. The real daemon over a fixture /proc: an export that the new file names is written at once; a
 * file with an error changes nothing (the path it names is never written), the daemon goes on, and
 * "nvprofilectl reload" fails saying so. Root: Reload is root's (or polkit's) to call. */

#include <signal.h>
#include <unistd.h>

#include "bus-names.h"
#include "itest.h"
#include "test-bus.h"

#define WAIT_MS 15000

/* Appends text to the configuration file the daemon was started with. */
static void append_conf(ITest *t, const char *text)
{
        g_autofree char *path = g_build_filename(t->dir, "nvprofiled.conf", NULL);
        g_autofree char *old = NULL, *new = NULL;
        g_autoptr(GError) error = NULL;

        g_assert_true(g_file_get_contents(path, &old, NULL, &error));
        new = g_strconcat(old, text, NULL);
        g_assert_true(g_file_set_contents(path, new, -1, &error));
        g_assert_no_error(error);
}

static bool daemon_answers(ITest *t)
{
        g_autofree char *out = NULL;
        return itest_ctl(t, &out, "status", NULL) == 0;
}

static void test_sighup_config(void)
{
        ITest t;
        g_autofree char *prom = NULL, *other = NULL, *text = NULL, *bad = NULL;
        g_autofree char *out = NULL;

        ITEST_REQUIRE_ROOT("Reload is root's to call");
        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_start_daemon(&t, NULL);
        prom = g_build_filename(t.dir, "nvprofiled.prom", NULL);
        other = g_build_filename(t.dir, "other.prom", NULL);
        g_assert_false(g_file_test(prom, G_FILE_TEST_EXISTS));

        /* The export named by the new file: written as soon as the file is read again. */
        text = g_strdup_printf("[Export]\nExportTextfile=%s\n", prom);
        append_conf(&t, text);
        g_assert_cmpint(kill(t.daemon_pid, SIGHUP), ==, 0);
        ITEST_WAIT_FOR(g_file_test(prom, G_FILE_TEST_IS_REGULAR), WAIT_MS);
        g_assert_true(g_file_test(prom, G_FILE_TEST_IS_REGULAR));

        /* A file with an error: nothing of it applies, not even its good lines. */
        bad = g_strdup_printf("[Reports]\nReportsMax=many\n[Export]\nExportTextfile=%s\n", other);
        append_conf(&t, bad);
        g_assert_cmpint(itest_ctl(&t, &out, "reload", NULL), !=, 0);
        g_assert_cmpint(kill(t.daemon_pid, SIGHUP), ==, 0);
        g_assert_true(daemon_answers(&t));
        g_assert_false(g_file_test(other, G_FILE_TEST_EXISTS));
        itest_teardown(&t);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/reload/sighup-config", test_sighup_config);
        return g_test_run();
}
