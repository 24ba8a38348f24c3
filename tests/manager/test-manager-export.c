/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager's fleet export: the configuration keys, the file written at start and then on its timer,
 * GPU clients labelled with their process's systemd unit (from the fixture's /proc/<pid>/cgroup) and the
 * profile the manager applied to it, mode 0640, and a failed write that recovers. */

#include <sys/stat.h>
#include <unistd.h>

#include "prometheus-textfile.h"
#include "manager-harness.h"
#include "test-util.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(DrmUsage, drm_usage_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(DrmFdinfo, drm_fdinfo_free)

#define TIMEOUT_USEC (5 * 1000 * 1000)

static const char rules[] =
                "{\n"
                "  \"profiles\": [ { \"name\": \"Game \\\"Quoted\\\" Profile\",\n"
                "                  \"settings\": [ { \"key\": \"GLSharpenValue\", \"value\": 50 } ] } ],\n"
                "  \"rules\": [ { \"pattern\": \"glxgears\", \"profile\": \"Game \\\"Quoted\\\" Profile\" } ]\n"
                "}\n";

static void test_config_keys(void)
{
        static const struct {
                const char *text;
                int errors;
        } cases[] = {
                { "[Export]\nExportTextfile=/var/lib/prometheus/node-exporter/nvprofiled.prom\n", 0 },
                { "[Export]\nExportTextfile=\n", 0 },
                { "[Export]\nExportTextfile=relative.prom\n", 1 },
                { "[Export]\nExportTextfile=/x/nvprofiled.txt\n", 1 },
                { "[Export]\nExportTextfile=/x/.prom\n", 1 },
                { "[Export]\nExportIntervalSec=30s\n", 0 },
                { "[Export]\nExportIntervalSec=500ms\n", 1 },
                { "[Export]\nExportIntervalSec=soon\n", 1 },
                { "[Export]\nExportGroup=prometheus\nExportProcessLabels=yes\n", 0 },
                { "[Export]\nExportProcessLabels=maybe\n", 1 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                ManagerConfig c;
                char **messages = NULL;

                manager_config_init(&c);
                g_assert_cmpint(manager_config_parse(&c, cases[i].text, strlen(cases[i].text), &messages), ==,
                                cases[i].errors);
                if (i == 0)
                        g_assert_cmpstr(c.export_textfile, ==, "/var/lib/prometheus/node-exporter/nvprofiled.prom");
                if (i == 1)
                        g_assert_null(c.export_textfile);
                if (i == 5)
                        g_assert_cmpuint(c.export_interval_usec, ==, 30 * G_USEC_PER_SEC);
                if (i == 6)
                        g_assert_cmpuint(c.export_interval_usec, ==, 15 * G_USEC_PER_SEC); /* default kept */
                if (i == 8) {
                        g_assert_cmpstr(c.export_group, ==, "prometheus");
                        g_assert_true(c.export_process_labels);
                }
                g_strfreev(messages);
                manager_config_done(&c);
        }
}

static bool exported_twice(ManagerHarness *h, void *userdata)
{
        return manager_prometheus_n_writes(h->manager) >= GPOINTER_TO_UINT(userdata);
}

static void test_export(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *path = g_build_filename(dir, "nvprofiled.prom", NULL);
        g_autoptr(DrmUsage) u = drm_usage_new();
        g_autofree char *text = NULL;
        static const char fdinfo[] = "drm-driver: i915\ndrm-pdev: 0000:00:02.0\ndrm-client-id: 7\n"
                                     "drm-engine-render: 2500000000 ns\ndrm-total-system0: 8 KiB\n";
        g_autoptr(DrmFdinfo) f = NULL;
        ManagerHarness h;
        struct stat st;

        manager_harness_init(&h);
        h.config.export_textfile = g_strdup(path);
        h.config.export_interval_usec = G_USEC_PER_SEC;
        manager_harness_write(&h, SYSTEM_RC, rules);
        manager_harness_start(&h);

        /* Written at start, before any usage source exists: the build info alone. */
        g_assert_cmpuint(manager_prometheus_n_writes(h.manager), ==, 1);
        g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
        g_assert_nonnull(strstr(text, "nvprofiled_build_info{version=\""));
        g_assert_null(strstr(text, "nvprofiled_engine_busy_seconds_total"));
        g_assert_cmpint(stat(path, &st), ==, 0);
        g_assert_cmpint(st.st_mode & 07777, ==, 0640);

        /* A game with the profile applied, in a service, holding a GPU client. */
        proc_fixture_add(h.proc, &(ProcFixtureProcess){ .pid = 100, .uid = getuid(), .exe = "/usr/bin/glxgears" });
        test_write_file(proc_fixture_path(h.proc), "100/cgroup", "0::/system.slice/games.slice/glxgears.service\n");
        g_assert_cmpint(manager_process_exec(h.manager, 100), ==, 0);
        g_assert_nonnull(manager_get_process(h.manager, 100)->profiles);

        g_assert_cmpint(drm_fdinfo_parse(fdinfo, strlen(fdinfo), 0, &f), ==, 0);
        g_assert_cmpint(drm_usage_update(
                                        u, &(DrmUsageRead){ .fdinfo = f, .pid = 100, .fd = 5, .timestamp_usec = 1 }, 1),
                        ==, 0);
        manager_prometheus_set_sources(h.manager, u, NULL);

        /* The timer writes again. */
        g_assert_true(manager_harness_run_until(&h, exported_twice, GUINT_TO_POINTER(2), TIMEOUT_USEC));
        g_clear_pointer(&text, g_free);
        g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
        g_test_message("%s", text);
        g_assert_nonnull(strstr(text,
                        "\nnvprofiled_engine_busy_seconds_total{device=\"0000:00:02.0\",driver=\"i915\","
                        "engine=\"render\",unit=\"glxgears.service\",profile="
                        "\"Game \\\"Quoted\\\" Profile\"} 2.500000000\n"));
        g_assert_null(strstr(text, "pid="));

        /* A process that is gone from /proc and from the manager: empty labels, still counted. */
        {
                g_autoptr(DrmUsage) u2 = drm_usage_new();

                g_assert_cmpint(drm_usage_update(u2,
                                                &(DrmUsageRead){ .fdinfo = f,
                                                                .pid = 4242,
                                                                .fd = 5,
                                                                .timestamp_usec = 1 },
                                                1),
                                ==, 0);
                manager_prometheus_set_sources(h.manager, u2, NULL);
                g_assert_cmpint(manager_prometheus_write(h.manager), ==, 0);
                manager_prometheus_set_sources(h.manager, u, NULL);
                g_clear_pointer(&text, g_free);
                g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
                g_assert_nonnull(strstr(text, "engine=\"render\",unit=\"\",profile=\"\"} 2.500000000\n"));
        }

        /* The directory goes: writes fail (and are counted) until it is back. */
        {
                uint64_t failures = manager_prometheus_n_failures(h.manager);

                g_assert_cmpint(unlink(path), ==, 0);
                g_assert_cmpint(rmdir(dir), ==, 0);
                g_assert_true(manager_harness_run_until(&h, exported_twice,
                                              GUINT_TO_POINTER((unsigned) manager_prometheus_n_writes(h.manager) + 1),
                                              2500 * 1000) == false);
                g_assert_cmpuint(manager_prometheus_n_failures(h.manager), >, failures);
                g_assert_cmpint(mkdir(dir, 0755), ==, 0);
                g_assert_true(manager_harness_run_until(&h, exported_twice,
                                GUINT_TO_POINTER((unsigned) manager_prometheus_n_writes(h.manager) + 1), TIMEOUT_USEC));
                g_assert_true(g_file_test(path, G_FILE_TEST_EXISTS));
        }

        manager_harness_done(&h);
}

/* Without ExportTextfile=, nothing is written and no timer runs. */
static void test_no_export(void)
{
        ManagerHarness h;

        manager_harness_init(&h);
        manager_harness_start(&h);
        g_assert_false(manager_prometheus_running(h.manager));
        g_assert_cmpuint(manager_prometheus_n_writes(h.manager), ==, 0);
        g_assert_cmpint(manager_prometheus_write(h.manager), ==, 0);
        g_assert_cmpuint(manager_prometheus_n_writes(h.manager), ==, 0);
        manager_harness_done(&h);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/manager-export/config-keys", test_config_keys);
        g_test_add_func("/manager-export/export", test_export);
        g_test_add_func("/manager-export/no-export", test_no_export);
        return g_test_run();
}
