/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A report's queries for the app's pages through the real daemon on a private bus: Report.GetDetails,
 * for every action of a corpus report the same document as ncu_details_json() made in-process (the app's
 * two paths), InvalidArgs for a range or action the report lacks; Report.ActionsByNvtx on the NVTX
 * fixture. */

#include <fcntl.h>
#include <unistd.h>

#include "bus-names.h"
#include "itest-report.h"
#include "json-util.h"
#include "report-details-json.h"
#include "itest.h"
#include "test-bus.h"
#include "test-util.h"

#define SOBEL "reports/nvidia_example_sobelFloat_ncu2023.3.0.ncu-rep"

static void test_details(void)
{
        _cleanup_(ncu_report_freep) NcuReport *report = NULL;
        g_autofree char *path = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        NcuReportLimits limits;
        NcuReportError load_error;
        ITest t;
        int fd;

        ncu_report_limits_default(&limits);
        fd = itest_open_corpus(SOBEL);
        g_assert_cmpint(ncu_report_load_fd(fd, &limits, &report, &load_error), >=, 0);
        g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_start_daemon(&t, NULL);
        path = itest_load_report(t.bus, fd, &error);
        close(fd);
        if (!path)
                g_error("LoadReport: %s: %s", error.name, error.message);
        for (size_t r = 0; r < report->n_ranges; r++)
                for (size_t a = 0; a < report->ranges[r].n_actions; a++) {
                        _cleanup_(json_object_putp) struct json_object *local = NULL;
                        g_autofree char *got = NULL;
                        sd_bus_message *reply = NULL;
                        gsize n;

                        if (sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetDetails", &error,
                                            &reply, "uu", (uint32_t) r, (uint32_t) a) < 0)
                                g_error("GetDetails: %s: %s", error.name, error.message);
                        got = itest_read_sealed_memfd(reply, &n);
                        sd_bus_message_unref(reply);
                        g_assert_cmpint(ncu_details_json(report, r, a, &local), ==, 0);
                        g_assert_nonnull(strstr(got, "\"sections\":[{\"identifier\":"));
                        itest_assert_same_json(got, json_object_to_json_string(local));
                }
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetDetails", &error, NULL,
                                        "uu", (uint32_t) 0, (uint32_t) report->ranges[0].n_actions),
                        <, 0);
        g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_INVALID_ARGS);
        sd_bus_error_free(&error);
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetDetails", &error, NULL,
                                        "uu", (uint32_t) report->n_ranges, (uint32_t) 0),
                        <, 0);
        g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_INVALID_ARGS);
        sd_bus_error_free(&error);
        itest_teardown(&t);
}

static void test_nvtx(void)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        g_autofree char *path = NULL;
        const uint32_t *idx;
        size_t n;
        ITest t;
        int fd;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_start_daemon(&t, NULL);
        fd = open(test_env_or_fail("NVPROFILED_NVTX_FIXTURE"), O_RDONLY | O_CLOEXEC);
        g_assert_cmpint(fd, >=, 0);
        path = itest_load_report(t.bus, fd, &error);
        close(fd);
        g_assert_nonnull(path);
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "ActionsByNvtx", &error, &reply,
                                        "uasas", 0, 1, "outer/", 1, "inner]"),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_read_array(reply, 'u', (const void **) &idx, &n), >=, 0);
        g_assert_cmpuint(n, ==, sizeof(uint32_t));
        g_assert_cmpuint(idx[0], ==, 1);
        reply = sd_bus_message_unref(reply);
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "ActionsByNvtx", &error, &reply,
                                        "uasas", 0, 1, "D@phase", 0),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_read_array(reply, 'u', (const void **) &idx, &n), >=, 0);
        g_assert_cmpuint(n, ==, sizeof(uint32_t));
        g_assert_cmpuint(idx[0], ==, 0);
        reply = sd_bus_message_unref(reply);
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "ActionsByNvtx", &error, &reply,
                                        "uasas", 0, 1, "a//b", 0),
                        <, 0);
        g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_INVALID_ARGS);
        sd_bus_error_free(&error);
        itest_teardown(&t);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();
        g_setenv("NVPROFILED_REPORT_WORKER_REAL", test_env_or_fail("NVPROFILED_REPORT_WORKER"), true);
        g_test_add_func("/report-bus/details", test_details);
        g_test_add_func("/report-bus/nvtx", test_nvtx);
        return g_test_run();
}
