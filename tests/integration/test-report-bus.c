/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Nsight Compute reports through the real daemon on a private bus: LoadReport with a corpus report's
 * descriptor and the Report object's methods; nvprofilectl report going through the daemon; a worker
 * that crashes leaves the daemon serving and the caller with an error; the per-user limits and the
 * reports freed when their owner leaves the bus; the CSV exports over the bus as sealed memfds, byte
 * for byte ncu's; and (root) an unprivileged caller can neither see nor
 * call another caller's report, and has no way to make the daemon open a path. */

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-address.h"
#include "bus-names.h"
#include "itest-report.h"
#include "json-util.h"
#include "itest.h"
#include "test-bus.h"
#include "test-util.h"

#define SOBEL "reports/nvidia_example_sobelFloat_ncu2023.3.0.ncu-rep"
#define ARMLETH "reports/armleth_report_ncu2024.2.1.ncu-rep"
#define NOBODY 65534

static json_object *json_get(json_object *o, const char *key)
{
        json_object *v = NULL;

        return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(json_object, json_object_put)

static void test_load(void)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        g_autofree char *path = NULL, *out_daemon = NULL, *out_local = NULL;
        const char *version, *kind, *name;
        uint32_t format, ranges, index;
        uint64_t size;
        double d;
        int fd, has_value, n = 0;
        ITest t;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_start_daemon(&t, NULL);

        fd = itest_open_corpus(SOBEL);
        path = itest_load_report(t.bus, fd, &error);
        close(fd);
        if (!path)
                g_error("LoadReport: %s: %s", error.name, error.message);

        g_assert_cmpint(sd_bus_call_method(
                                        t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetInfo", &error, &reply, NULL),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "suut", &version, &format, &ranges, &size), >, 0);
        g_assert_cmpstr(version, ==, "2023.3.0.0 (build 33266684) (public-release)");
        g_assert_cmpuint(format, ==, 7);
        g_assert_cmpuint(ranges, ==, 1);
        g_assert_cmpuint(size, ==, 371507);
        reply = sd_bus_message_unref(reply);

        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "ListActions", &error, &reply,
                                        "u", 0),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(ussss(ttt)(ttt)d)"), >, 0);
        while (sd_bus_message_enter_container(reply, 'r', "ussss(ttt)(ttt)d") > 0) {
                const char *type, *demangled, *mangled;
                uint64_t g[3], b[3];
                g_assert_cmpint(sd_bus_message_read(reply, "ussss(ttt)(ttt)d", &index, &type, &name, &demangled,
                                                &mangled, &g[0], &g[1], &g[2], &b[0], &b[1], &b[2], &d),
                                >, 0);
                g_assert_cmpstr(type, ==, "kernel");
                g_assert_cmpstr(name, ==, "Sobel");
                g_assert_cmpstr(demangled, ==, "void Sobel<float>(uchar4 *, uchar4 *, int, int)");
                g_assert_cmpuint(g[0], ==, 64);
                g_assert_cmpuint(b[0], ==, 16);
                g_assert_cmpfloat(d, ==, 31872.0);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >, 0);
                n++;
        }
        g_assert_cmpint(n, ==, 1);
        reply = sd_bus_message_unref(reply);

        /* A double exactly as stored (NVIDIA's PDF: 57.65%). */
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetMetric", &error, &reply,
                                        "uus", 0, 0, "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "sbv", &kind, &has_value, "d", &d), >, 0);
        g_assert_cmpstr(kind, ==, "double");
        g_assert_true(has_value);
        g_assert_cmpfloat(d, ==, 57.65061216029215);
        reply = sd_bus_message_unref(reply);

        /* Instances with string correlation ids. */
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetMetric", &error, &reply,
                                        "uus", 0, 0, "sass__inst_executed_per_opcode"),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "sbv", &kind, &has_value, "d", &d), >, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(vv)"), >, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'r', "vv"), >, 0);
        /* The id is the opcode; the value is in its own kind (doubles here, some instances are stored
         * as integers). */
        g_assert_cmpint(sd_bus_message_read(reply, "v", "s", &name), >, 0);
        g_assert_cmpint(sd_bus_message_skip(reply, "v"), >=, 0);
        g_assert_cmpuint(strlen(name), >, 0);
        reply = sd_bus_message_unref(reply);

        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetMetric", &error, &reply,
                                        "uus", 0, 0, "no__such_metric"),
                        <, 0);
        g_assert_cmpstr(error.name, ==, BUS_ERROR_NO_SUCH_METRIC);
        sd_bus_error_free(&error);

        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetRuleResults", &error,
                                        &reply, "uu", 0, 0),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(sssa(sss)a(sd))"), >, 0);
        n = 0;
        while (sd_bus_message_enter_container(reply, 'r', "sssa(sss)a(sd)") > 0) {
                const char *id, *rname, *section;
                g_assert_cmpint(sd_bus_message_read(reply, "sss", &id, &rname, &section), >, 0);
                g_assert_cmpint(sd_bus_message_skip(reply, "a(sss)a(sd)"), >=, 0);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >, 0);
                n++;
        }
        g_assert_cmpint(n, ==, 20);
        reply = sd_bus_message_unref(reply);

        /* GetRuleResultsFull: the same 20 rules with message ids, focus metrics and source markers. */
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetRuleResultsFull", &error,
                                        &reply, "uu", 0, 0),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(sssa(isss)a(sd)a(isdts)a(ssttss))"), >, 0);
        n = 0;
        while (sd_bus_message_enter_container(reply, 'r', "sssa(isss)a(sd)a(isdts)a(ssttss)") > 0) {
                const char *id, *rname, *section, *mtype, *mtitle, *mtext, *metric, *info, *mkind, *mfile;
                int32_t msg_id;
                uint64_t severity, address, line;
                double value;
                int n_markers = 0;

                g_assert_cmpint(sd_bus_message_read(reply, "sss", &id, &rname, &section), >, 0);
                if (!streq(id, "UncoalescedGlobalAccess")) {
                        g_assert_cmpint(sd_bus_message_skip(reply, "a(isss)a(sd)a(isdts)a(ssttss)"), >=, 0);
                        g_assert_cmpint(sd_bus_message_exit_container(reply), >, 0);
                        n++;
                        continue;
                }
                g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(isss)"), >, 0);
                g_assert_cmpint(sd_bus_message_read(reply, "(isss)", &msg_id, &mtype, &mtitle, &mtext), >, 0);
                g_assert_cmpint(msg_id, ==, 1);
                g_assert_cmpstr(mtype, ==, "OPTIMIZATION");
                g_assert_cmpint(sd_bus_message_exit_container(reply), >, 0);
                g_assert_cmpint(sd_bus_message_skip(reply, "a(sd)"), >=, 0);
                g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(isdts)"), >, 0);
                g_assert_cmpint(sd_bus_message_read(reply, "(isdts)", &msg_id, &metric, &value, &severity, &info), >,
                                0);
                g_assert_cmpint(msg_id, ==, 1);
                g_assert_cmpstr(metric, ==, "derived__memory_l2_theoretical_sectors_global_excessive");
                g_assert_cmpfloat(value, ==, 1274368.0);
                g_assert_cmpuint(severity, ==, 0);
                g_assert_cmpstr(info, ==, "Reduce the number of excessive wavefronts in L2");
                g_assert_cmpint(sd_bus_message_exit_container(reply), >, 0);
                g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(ssttss)"), >, 0);
                while (sd_bus_message_read(reply, "(ssttss)", &mkind, &mfile, &address, &line, &mtype, &mtext) > 0) {
                        if (n_markers == 0) {
                                g_assert_cmpstr(mkind, ==, "sass");
                                g_assert_cmpuint(address, ==, 140675029259120);
                        }
                        if (n_markers == 11) {
                                g_assert_cmpstr(mkind, ==, "source");
                                g_assert_cmpuint(line, ==, 121);
                                g_assert_true(g_str_has_suffix(mfile, "/instructionMix.cu"));
                        }
                        g_assert_cmpstr(mtype, ==, "WARNING");
                        n_markers++;
                }
                g_assert_cmpint(n_markers, ==, 12);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >, 0);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >, 0);
                n++;
        }
        g_assert_cmpint(n, ==, 20);
        reply = sd_bus_message_unref(reply);

        /* GetSourceFiles: the CUDA source stored with the report (--import-source). */
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetSourceFiles", &error,
                                        &reply, "uu", 0, 0),
                        >=, 0);
        {
                const char *fname, *content;
                g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(ss)"), >, 0);
                g_assert_cmpint(sd_bus_message_read(reply, "(ss)", &fname, &content), >, 0);
                g_assert_cmpstr(fname, ==,
                                "/usr/local/nsight-compute-2023.3.1/extras/samples/instructionMix/instructionMix.cu");
                g_assert_cmpuint(strlen(content), ==, 7948);
                g_assert_nonnull(strstr(content, "Sobel"));
                g_assert_cmpint(sd_bus_message_read(reply, "(ss)", &fname, &content), ==, 0);
        }
        reply = sd_bus_message_unref(reply);

        /* GetSourceView: the stored file, inst_executed by its section label, and the function's first
         * instruction on line 86, as NVIDIA's source_info answers (the probe file); a missing action is the
         * caller's error. */
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetSourceView", &error, &reply,
                                        "uu", 0, 0),
                        >=, 0);
        {
                gsize view_size;
                g_autofree char *text = itest_read_sealed_memfd(reply, &view_size);
                g_autoptr(json_object) view = json_tokener_parse(text);
                json_object *files, *first, *metrics;
                size_t inst = SIZE_MAX;

                g_assert_nonnull(view);
                files = json_get(view, "files");
                g_assert_cmpuint(json_object_array_length(files), ==, 1);
                g_assert_cmpstr(json_object_get_string(json_get(json_object_array_get_idx(files, 0), "name")), ==,
                                "/usr/local/nsight-compute-2023.3.1/extras/samples/instructionMix/instructionMix.cu");
                g_assert_cmpuint(json_object_array_length(json_get(json_object_array_get_idx(files, 0), "lines")), >,
                                86);
                metrics = json_get(view, "metrics");
                for (size_t i = 0; i < json_object_array_length(metrics); i++)
                        if (streq(json_object_get_string(json_get(json_object_array_get_idx(metrics, i), "name")),
                                            "inst_executed")) {
                                inst = i;
                                g_assert_cmpstr(json_object_get_string(json_get(
                                                                json_object_array_get_idx(metrics, i), "label")),
                                                ==, "Instructions Executed");
                        }
                g_assert_cmpuint(inst, !=, SIZE_MAX);
                first = json_object_array_get_idx(json_get(view, "sass"), 0);
                g_assert_cmpuint(json_object_get_uint64(json_get(first, "address")), ==, 0x7ff17525d200);
                g_assert_cmpint(json_object_get_int(json_get(first, "file")), ==, 0);
                g_assert_cmpint(json_object_get_int(json_get(first, "line")), ==, 86);
        }
        reply = sd_bus_message_unref(reply);
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetSourceView", &error, &reply,
                                        "uu", 0, 7),
                        <, 0);
        g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_INVALID_ARGS);
        sd_bus_error_free(&error);

        /* Close: the object is gone. */
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "Close", &error, NULL, NULL),
                        >=, 0);
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetInfo", &error, NULL, NULL),
                        <, 0);
        g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_UNKNOWN_OBJECT);
        sd_bus_error_free(&error);

        /* nvprofilectl through the daemon gives what it reads itself. */
        {
                g_autofree char *file = test_corpus_path(SOBEL);

                g_assert_cmpint(itest_ctl(&t, &out_daemon, "report", "json", file, NULL), ==, 0);
                g_assert_cmpint(itest_ctl(&t, &out_local, "report", "json", "--local", file, NULL), ==, 0);
                itest_assert_same_json(out_daemon, out_local);
        }
        itest_teardown(&t);
}

static void assert_same_as_expected(const char *got, gsize n, const char *expected_rel)
{
        g_autofree char *file = test_corpus_path(expected_rel), *want = NULL;
        gsize m;

        g_assert_true(g_file_get_contents(file, &want, &m, NULL));
        if (n != m || memcmp(got, want, n) != 0)
                g_error("%s: the export differs (%zu bytes, expected %zu)", expected_rel, (size_t) n, (size_t) m);
}

/* ExportRaw and ExportDetails: ncu's CSV bytes, from the worker over the descriptor the report was loaded
 * from, as a sealed memfd; and nvprofilectl report raw|details through the daemon and with --local. */
static void test_exports(void)
{
        static const char *const names[] = {
                "armleth_report_ncu2024.2.1",
                "nvidia_example_sobelFloat_ncu2023.3.0",
                "extrap_ex-gpu.s10_ncu2020.3.1",
        };
        sd_bus_error error = SD_BUS_ERROR_NULL;
        ITest t;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_start_daemon(&t, NULL);
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
                g_autofree char *rel = g_strdup_printf("reports/%s.ncu-rep", names[i]);
                g_autofree char *file = test_corpus_path(rel), *path = NULL;
                static const char *const pages[] = { "raw", "raw-instances", "details" };
                int fd = itest_open_corpus(rel);

                path = itest_load_report(t.bus, fd, &error);
                /* The daemon keeps its own duplicate: the caller's may go, and its offset does not matter. */
                g_assert_cmpint(lseek(fd, 17, SEEK_SET), ==, 17);
                close(fd);
                if (!path)
                        g_error("LoadReport: %s: %s", error.name, error.message);
                for (size_t j = 0; j < G_N_ELEMENTS(pages); j++) {
                        g_autofree char *expected = g_strdup_printf("reports/expected/%s.%s.csv", names[i], pages[j]);
                        g_autofree char *got = NULL, *out_daemon = NULL, *out_local = NULL;
                        sd_bus_message *reply = NULL;
                        gsize n;

                        if (j == 2)
                                g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE,
                                                                "ExportDetails", &error, &reply, NULL),
                                                >=, 0);
                        else
                                g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE,
                                                                "ExportRaw", &error, &reply, "b", j == 1),
                                                >=, 0);
                        got = itest_read_sealed_memfd(reply, &n);
                        sd_bus_message_unref(reply);
                        assert_same_as_expected(got, n, expected);

                        /* The CLI, through the daemon by default and in-process with --local. */
                        g_assert_cmpint(itest_ctl(&t, &out_daemon, "report", j == 2 ? "details" : "raw", file, "--csv",
                                                        "--print-units=base",
                                                        j == 1                   ? "--print-metric-instances=values"
                                                                        : j == 2 ? "--print-details=all"
                                                                                 : NULL,
                                                        NULL),
                                        ==, 0);
                        assert_same_as_expected(out_daemon, strlen(out_daemon), expected);
                        g_assert_cmpint(itest_ctl(&t, &out_local, "report", j == 2 ? "details" : "raw", "--local", file,
                                                        "--csv", "--print-units=base",
                                                        j == 1                   ? "--print-metric-instances=values"
                                                                        : j == 2 ? "--print-details=all"
                                                                                 : NULL,
                                                        NULL),
                                        ==, 0);
                        assert_same_as_expected(out_local, strlen(out_local), expected);
                }
                g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "Close", &error, NULL,
                                                NULL),
                                >=, 0);
                /* Closed: no export of it. */
                g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "ExportRaw", &error,
                                                NULL, "b", 0),
                                <, 0);
                g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_UNKNOWN_OBJECT);
                sd_bus_error_free(&error);
        }
        itest_teardown(&t);
}

/* ExportPage(page, options) with options as key and value pairs (a string value, or "b:1" / "b:0" for a
 * boolean); NULL with *error set when it fails. */
static char *export_page(sd_bus *bus, const char *path, const char *page, const char *const *options, gsize *ret_size,
                sd_bus_error *error)
{
        sd_bus_message *m = NULL, *reply = NULL;
        char *text = NULL;
        size_t n = 0;

        while (options && options[n])
                n += 2;
        g_assert_cmpint(sd_bus_message_new_method_call(bus, &m, BUS_NAME, path, BUS_REPORT_INTERFACE, "ExportPage"), >=,
                        0);
        g_assert_cmpint(sd_bus_message_append(m, "s", page), >=, 0);
        g_assert_cmpint(sd_bus_message_open_container(m, 'a', "{sv}"), >=, 0);
        for (size_t i = 0; i < n; i += 2) {
                const char *v = options[i + 1];
                if (g_str_has_prefix(v, "b:"))
                        g_assert_cmpint(sd_bus_message_append(m, "{sv}", options[i], "b", v[2] == '1'), >=, 0);
                else
                        g_assert_cmpint(sd_bus_message_append(m, "{sv}", options[i], "s", v), >=, 0);
        }
        g_assert_cmpint(sd_bus_message_close_container(m), >=, 0);
        if (sd_bus_call(bus, m, 0, error, &reply) >= 0) {
                text = itest_read_sealed_memfd(reply, ret_size);
                sd_bus_message_unref(reply);
        }
        sd_bus_message_unref(m);
        return text;
}

/* ExportPageEncoded(ay) with bytes nvprofilectl would never send: refused as InvalidArgs, and the report's
 * worker goes on serving. */
static void assert_encoded_refused(sd_bus *bus, const char *path, const void *bytes, size_t size)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *m = NULL, *reply = NULL;

        g_assert_cmpint(sd_bus_message_new_method_call(
                                        bus, &m, BUS_NAME, path, BUS_REPORT_INTERFACE, "ExportPageEncoded"),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_append_array(m, 'y', bytes, size), >=, 0);
        g_assert_cmpint(sd_bus_call(bus, m, 0, &error, &reply), <, 0);
        g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_INVALID_ARGS);
        sd_bus_error_free(&error);
        sd_bus_message_unref(m);
}

/* ExportPage: each of ncu's pages from the worker, the same bytes as nvprofilectl prints them in process
 * (test-report-pages holds those against ncu's own) and through the daemon; a page, option, type, value or
 * combination ncu would refuse is InvalidArgs. */
static void test_pages(void)
{
        static const char *const names[] = {
                "armleth_report_ncu2024.2.1",
                "NVIDIA_nsight-training_manual_nvtx_ncu2022.3.0",
                "2388612861_GPU-DEMO_occupancy_ncu2025.2.1",
                "evozone96_matrixMul_profile_ncu2019.x",
        };
        static const struct {
                const char *page;
                const char *options[9];
                const char *args[4];
        } kinds[] = {
                { "raw", { "csv", "b:1", "print-units", "base" }, { "raw", "--csv", "--print-units=base" } },
                { "raw", { "csv", "b:1", "print-units", "base", "print-metric-instances", "values" },
                                { "raw", "--csv", "--print-units=base", "--print-metric-instances=values" } },
                { "details", { "csv", "b:1", "print-units", "base", "print-details", "all" },
                                { "details", "--csv", "--print-units=base", "--print-details=all" } },
                { "raw", { "csv", "b:1" }, { "raw", "--csv" } },
                { "details", { "csv", "b:1" }, { "details", "--csv" } },
                { "details", { NULL }, { "details" } },
                { "details", { "print-details", "all", "csv", "b:0" }, { "details", "--print-details=all" } },
                { "raw", { "print-metric-instances", "details" }, { "raw", "--print-metric-instances=details" } },
                { "session", { NULL }, { "session" } },
                { "session", { "csv", "b:1" }, { "session", "--csv" } },
                { "details", { "print-summary", "per-kernel" }, { "details", "--print-summary=per-kernel" } },
        };
        static const struct {
                const char *page;
                const char *options[5];
        } refused[] = {
                { "source", { NULL } },
                { "raw", { "print-details", "all" } },
                { "raw", { "print-summary", "per-kernel" } },
                { "session", { "print-units", "base" } },
                { "details", { "print-units", "scaled" } },
                { "details", { "csv", "yes" } },
                { "details", { "print-units", "b:1" } },
                { "details", { "colour", "b:1" } },
                { "details", { "csv", "b:1", "csv", "b:0" } },
        };
        sd_bus_error error = SD_BUS_ERROR_NULL;
        ITest t;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_start_daemon(&t, NULL);
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
                g_autofree char *rel = g_strdup_printf("reports/%s.ncu-rep", names[i]);
                g_autofree char *file = test_corpus_path(rel), *path = NULL;
                int fd = itest_open_corpus(rel);

                path = itest_load_report(t.bus, fd, &error);
                close(fd);
                if (!path)
                        g_error("LoadReport: %s: %s", error.name, error.message);
                for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++) {
                        g_autofree char *got = NULL, *out_daemon = NULL, *out_local = NULL;
                        gsize n = 0;

                        got = export_page(t.bus, path, kinds[k].page, kinds[k].options, &n, &error);
                        if (!got)
                                g_error("ExportPage %s: %s: %s", kinds[k].page, error.name, error.message);
                        g_assert_cmpint(itest_ctl(&t, &out_local, "report", kinds[k].args[0], file, "--local",
                                                        kinds[k].args[1], kinds[k].args[2], kinds[k].args[3], NULL),
                                        ==, 0);
                        g_assert_cmpuint(strlen(out_local), ==, n);
                        g_assert_true(memcmp(got, out_local, n) == 0);
                        g_assert_cmpint(itest_ctl(&t, &out_daemon, "report", kinds[k].args[0], file, kinds[k].args[1],
                                                        kinds[k].args[2], kinds[k].args[3], NULL),
                                        ==, 0);
                        g_assert_cmpstr(out_daemon, ==, out_local);
                }
                for (size_t k = 0; k < G_N_ELEMENTS(refused); k++) {
                        gsize n = 0;
                        g_assert_null(export_page(t.bus, path, refused[k].page, refused[k].options, &n, &error));
                        g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_INVALID_ARGS);
                        sd_bus_error_free(&error);
                }
                {
                        static const uint8_t garbage[4096] = { 0xff, 0xff, 0xff, 0xff };
                        g_autofree char *again = NULL;
                        gsize n = 0;

                        /* Every size but the encoding's, and its size with an unknown encoding. */
                        assert_encoded_refused(t.bus, path, garbage, 0);
                        assert_encoded_refused(t.bus, path, garbage, 24);
                        assert_encoded_refused(t.bus, path, garbage, 26);
                        assert_encoded_refused(t.bus, path, garbage, sizeof(garbage));
                        assert_encoded_refused(t.bus, path, garbage, 25);
                        again = export_page(t.bus, path, "session", NULL, &n, &error);
                        if (!again)
                                g_error("ExportPage after refused bytes: %s: %s", error.name, error.message);
                }
                g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "Close", &error, NULL,
                                                NULL),
                                >=, 0);
        }
        itest_teardown(&t);
}

static struct json_object *parse_json(const char *text)
{
        struct json_object *o = json_tokener_parse(text);

        if (!o)
                g_error("not JSON: %.200s", text);
        return o;
}

/* A metric of the first pair of a comparison's "pairs", whichever section lists it. */
static struct json_object *diff_metric(struct json_object *pairs, size_t pair, const char *name)
{
        struct json_object *sections = json_object_object_get(json_object_array_get_idx(pairs, pair), "sections");

        for (size_t s = 0; s < json_object_array_length(sections); s++) {
                struct json_object *metrics = json_object_object_get(json_object_array_get_idx(sections, s), "metrics");

                for (size_t i = 0; i < json_object_array_length(metrics); i++) {
                        struct json_object *m = json_object_array_get_idx(metrics, i);

                        if (streq(json_object_get_string(json_object_object_get(m, "name")), name))
                                return m;
                }
        }
        g_error("no metric %s in pair %zu", name, pair);
}

static double member_double(struct json_object *o, const char *key)
{
        struct json_object *v = json_object_object_get(o, key);

        g_assert_true(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int));
        return json_object_get_double(v);
}

/* nvprofilectl report diff with the case's files and spec, through the daemon or --local, and options. */
static int ctl_diff(ITest *t, char **ret_out, bool local, const char *spec, const char *bfile, const char *cfile,
                const char *option1, const char *option2)
{
        const char *argv[10] = { 0 }; /* the unused ones too: each is passed, NULL or not */
        size_t n = 0;

        argv[n++] = "diff";
        if (local)
                argv[n++] = "--local";
        if (spec) {
                argv[n++] = "--action";
                argv[n++] = spec;
        }
        if (option1)
                argv[n++] = option1;
        if (option2)
                argv[n++] = option2;
        argv[n++] = bfile;
        argv[n++] = cfile;
        argv[n] = NULL;
        return itest_ctl(t, ret_out, "report", argv[0], argv[1], argv[2], argv[3], argv[4], argv[5], argv[6], argv[7],
                        argv[8], argv[9], NULL);
}

/* Report.Diff: the worker's comparison of two of the caller's reports, with values known from the corpus, is the
 * one nvprofilectl report diff --local makes in its own process, value for value; the CLI goes through the daemon
 * for its JSON, its text and --fail-above, and prints the same as --local; a spec that pairs nothing is
 * InvalidArgs; another caller's report cannot be a baseline. */
static void test_diff(void)
{
        static const struct {
                const char *baseline, *current, *spec;
                size_t n_pairs;
                const char *metric; /* a metric of the first pair, with its values */
                double base, cur, change;
        } cases[] = {
                { "nvidia_example_addConstDouble3_ncu2023.3.0", "nvidia_example_sobelFloat_ncu2023.3.0", "0:0", 1,
                                "launch__registers_per_thread", 16, 22, 6 },
                { "extrap_ex-gpu.s10_ncu2020.3.1", "extrap_ex-gpu.s10_ncu2020.3.1", NULL, 6, "gpu__time_duration.sum",
                                4064, 4064, 0 },
                { "syswea_profile_report_ncu2025.1.1", "armleth_report_ncu2024.2.1", "0:0", 1, "gpu__time_duration.sum",
                                224256, 52576, -171680 },
        };
        sd_bus_error error = SD_BUS_ERROR_NULL;
        ITest t;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_start_daemon(&t, NULL);
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                g_autofree char *brel = g_strdup_printf("reports/%s.ncu-rep", cases[i].baseline);
                g_autofree char *crel = g_strdup_printf("reports/%s.ncu-rep", cases[i].current);
                g_autofree char *bfile = test_corpus_path(brel), *cfile = test_corpus_path(crel);
                g_autofree char *bpath = NULL, *cpath = NULL, *got = NULL, *out_local = NULL, *out_daemon = NULL;
                g_autofree char *text_local = NULL, *text_daemon = NULL, *check_local = NULL, *check_daemon = NULL;
                g_autofree char *metric_option = g_strdup_printf("--metric=%s", cases[i].metric);
                struct json_object *daemon_doc, *local_doc, *cli_doc, *pairs, *m;
                sd_bus_message *call = NULL, *reply = NULL;
                int fd;
                gsize n;

                fd = itest_open_corpus(brel);
                bpath = itest_load_report(t.bus, fd, &error);
                close(fd);
                fd = itest_open_corpus(crel);
                cpath = itest_load_report(t.bus, fd, &error);
                close(fd);
                g_assert_nonnull(bpath);
                g_assert_nonnull(cpath);
                g_assert_cmpint(sd_bus_message_new_method_call(
                                                t.bus, &call, BUS_NAME, cpath, BUS_REPORT_INTERFACE, "Diff"),
                                >=, 0);
                g_assert_cmpint(sd_bus_message_append(call, "o", bpath), >=, 0);
                g_assert_cmpint(sd_bus_message_append_strv(call,
                                                cases[i].spec ? (char **) (const char *[]){ cases[i].spec, NULL }
                                                              : (char **) (const char *[]){ NULL }),
                                >=, 0);
                if (sd_bus_call(t.bus, call, 0, &error, &reply) < 0)
                        g_error("Diff: %s: %s", error.name, error.message);
                got = itest_read_sealed_memfd(reply, &n);
                reply = sd_bus_message_unref(reply);
                call = sd_bus_message_unref(call);
                daemon_doc = parse_json(got);
                pairs = json_object_object_get(daemon_doc, "pairs");
                g_assert_cmpuint(json_object_array_length(pairs), ==, cases[i].n_pairs);
                m = diff_metric(pairs, 0, cases[i].metric);
                g_assert_cmpfloat(member_double(m, "baseline"), ==, cases[i].base);
                g_assert_cmpfloat(member_double(m, "current"), ==, cases[i].cur);
                g_assert_cmpfloat(member_double(m, "change"), ==, cases[i].change);
                if (cases[i].change == 0)
                        g_assert_cmpfloat(member_double(m, "relative_change"), ==, 0.0);
                else
                        g_assert_cmpfloat(member_double(m, "relative_change"), ==, cases[i].change / cases[i].base);

                /* The CLI's own process. */
                g_assert_cmpint(ctl_diff(&t, &out_local, true, cases[i].spec, bfile, cfile, NULL, NULL), ==, 0);
                local_doc = parse_json(out_local);
                if (!json_object_equal(json_object_object_get(local_doc, "pairs"), pairs))
                        g_error("%s vs %s: the daemon's diff differs from --local's", cases[i].baseline,
                                        cases[i].current);

                /* The CLI through the daemon: the same document, paths included; the same text. */
                g_assert_cmpint(ctl_diff(&t, &out_daemon, false, cases[i].spec, bfile, cfile, NULL, NULL), ==, 0);
                cli_doc = parse_json(out_daemon);
                g_assert_true(json_object_equal(cli_doc, local_doc));
                json_object_put(cli_doc);
                json_object_put(local_doc);
                json_object_put(daemon_doc);
                g_assert_cmpint(ctl_diff(&t, &text_local, true, cases[i].spec, bfile, cfile, "--json=off", NULL), ==,
                                0);
                g_assert_cmpint(ctl_diff(&t, &text_daemon, false, cases[i].spec, bfile, cfile, "--json=off", NULL), ==,
                                0);
                g_assert_cmpstr(text_daemon, ==, text_local);
                g_assert_true(g_str_has_suffix(text_daemon, "\n"));
                g_assert_null(strchr(text_daemon, '{'));

                /* --fail-above through the daemon: the same checks, and only the metric that rose fails at 0. */
                g_assert_cmpint(ctl_diff(&t, &check_daemon, false, cases[i].spec, bfile, cfile, "--fail-above=0",
                                                metric_option),
                                ==, cases[i].change > 0 ? 1 : 0);
                g_assert_cmpint(ctl_diff(&t, &check_local, true, cases[i].spec, bfile, cfile, "--fail-above=0",
                                                metric_option),
                                ==, cases[i].change > 0 ? 1 : 0);
                g_assert_cmpstr(check_daemon, ==, check_local);

                /* A spec that pairs nothing. */
                g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, cpath, BUS_REPORT_INTERFACE, "Diff", &error, NULL,
                                                "oas", bpath, 1, "no_such_kernel"),
                                <, 0);
                g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_INVALID_ARGS);
                g_assert_nonnull(strstr(error.message, "no kernel of that name"));
                sd_bus_error_free(&error);
                g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, cpath, BUS_REPORT_INTERFACE, "Diff", &error, NULL,
                                                "oas", bpath, 1, "0:999"),
                                <, 0);
                g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_INVALID_ARGS);
                sd_bus_error_free(&error);
                /* A baseline that is not a report of ours. */
                g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, cpath, BUS_REPORT_INTERFACE, "Diff", &error, NULL,
                                                "oas", BUS_REPORT_PREFIX "/999", 0),
                                <, 0);
                g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_UNKNOWN_OBJECT);
                sd_bus_error_free(&error);
        }
        itest_teardown(&t);
}

/* ActionsByNvtx over the NVTX fixture of tests/nsight (make-fixtures.py says what each kernel has). */
static void test_invalid(void)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        g_autofree char *dir = test_mkdtemp(), *file = NULL, *out = NULL;
        ITest t;
        int fd;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_start_daemon(&t, NULL);
        test_write_file(dir, "bad.ncu-rep", "NVR");
        file = g_build_filename(dir, "bad.ncu-rep", NULL);
        fd = open(file, O_RDONLY | O_CLOEXEC);
        g_assert_null(itest_load_report(t.bus, fd, &error));
        close(fd);
        g_assert_cmpstr(error.name, ==, BUS_ERROR_INVALID_REPORT);
        g_assert_nonnull(strstr(error.message, "byte 0: truncated magic"));
        sd_bus_error_free(&error);
        g_assert_cmpint(itest_ctl(&t, &out, "report", "summary", file, NULL), ==, 1);
        itest_teardown(&t);
}

/* GetDetails: one kernel's details page as JSON in a sealed memfd, the document the app makes in its own
 * process for a report it reads itself (report-details-json.h); every action of a report; InvalidArgs for an
 * action it lacks. */
/* A parser bug in the worker: the caller gets an error, the daemon goes on serving. */
static void test_worker_crash(void)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        g_autofree char *out = NULL;
        ITest t;
        int fd;

        g_setenv("NVPROFILED_REPORT_WORKER", test_env_or_fail("NVPROFILED_FAKE_WORKER_CRASH"), true);
        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_start_daemon(&t, NULL);
        fd = itest_open_corpus(ARMLETH);
        g_assert_null(itest_load_report(t.bus, fd, &error));
        close(fd);
        g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_FAILED);
        g_assert_nonnull(strstr(error.message, "killed by signal 11"));
        sd_bus_error_free(&error);
        /* Still there, still answering. */
        g_assert_cmpint(kill(t.daemon_pid, 0), ==, 0);
        g_assert_cmpint(itest_ctl(&t, &out, "status", NULL), ==, 0);
        /* The CLI's exports go through the daemon (and its crashing worker) unless told --local. */
        {
                g_autofree char *file = test_corpus_path(ARMLETH), *local = NULL, *raw = NULL, *diff = NULL,
                                *diff_text = NULL;
                g_assert_cmpint(itest_ctl(&t, &raw, "report", "raw", file, "--csv", NULL), ==, 1);
                g_assert_cmpint(itest_ctl(&t, &local, "report", "raw", "--local", file, "--csv", NULL), ==, 0);
                g_assert_cmpuint(strlen(local), >, 0);
                /* So does report diff, whatever it prints. */
                g_assert_cmpint(itest_ctl(&t, &diff, "report", "diff", "--json", file, file, NULL), ==, 1);
                g_assert_cmpint(itest_ctl(&t, &diff_text, "report", "diff", "--json=off", file, file, NULL), ==, 1);
        }
        itest_teardown(&t);
        g_setenv("NVPROFILED_REPORT_WORKER", test_env_or_fail("NVPROFILED_REPORT_WORKER_REAL"), true);
}

/* A report of 204 results (the extrap report's blocks repeated: a container may have any number), whose
 * JSON takes 8 MB: the daemon keeps its text and parses one action at a time, where a tree of the whole
 * would take 130 MB (more than the daemon's unit may use). Served like any other, with the same document as
 * nvprofilectl --local. */
static void test_large(void)
{
        g_autofree char *src = test_corpus_path("reports/extrap_ex-gpu.s10_ncu2020.3.1.ncu-rep");
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *file = g_build_filename(dir, "large.ncu-rep", NULL);
        g_autofree char *data = NULL, *path = NULL, *out_daemon = NULL, *out_local = NULL;
        g_autoptr(GString) big = g_string_new(NULL);
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        gsize size;
        uint32_t header, i;
        size_t n = 0;
        ITest t;
        int fd;

        g_assert_true(g_file_get_contents(src, &data, &size, NULL));
        memcpy(&header, data + 4, 4); /* "NVR\0", then the FileHeader's size */
        g_string_append_len(big, data, (gssize) size);
        for (int k = 0; k < 33; k++)
                g_string_append_len(big, data + 8 + header, (gssize) (size - 8 - header));
        g_assert_true(g_file_set_contents(file, big->str, (gssize) big->len, NULL));

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_start_daemon(&t, NULL);
        fd = open(file, O_RDONLY | O_CLOEXEC);
        g_assert_cmpint(fd, >=, 0);
        path = itest_load_report(t.bus, fd, &error);
        close(fd);
        if (!path)
                g_error("LoadReport: %s: %s", error.name, error.message);
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "ListActions", &error, &reply,
                                        "u", 0),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(ussss(ttt)(ttt)d)"), >, 0);
        while (sd_bus_message_enter_container(reply, 'r', "ussss(ttt)(ttt)d") > 0) {
                const char *kind, *name, *demangled, *mangled;
                uint64_t g[6];
                double d;

                g_assert_cmpint(sd_bus_message_read(reply, "ussss(ttt)(ttt)d", &i, &kind, &name, &demangled, &mangled,
                                                &g[0], &g[1], &g[2], &g[3], &g[4], &g[5], &d),
                                >, 0);
                g_assert_cmpuint(i, ==, n);
                g_assert_cmpstr(kind, ==, "kernel");
                g_assert_cmpfloat(d, >, 0);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >, 0);
                n++;
        }
        g_assert_cmpuint(n, ==, 204);
        reply = sd_bus_message_unref(reply);

        g_assert_cmpint(itest_ctl(&t, &out_daemon, "report", "json", file, NULL), ==, 0);
        g_assert_cmpint(itest_ctl(&t, &out_local, "report", "json", "--local", file, NULL), ==, 0);
        g_assert_cmpuint(strlen(out_local), >, 6 * 1024 * 1024);
        itest_assert_same_json(out_daemon, out_local);
        itest_teardown(&t);
}

/* The per-user limits; a caller that leaves the bus takes its reports with it. */
static void test_limits_and_owner_leaving(void)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *other = NULL;
        g_autofree char *path = NULL;
        ITest t;
        int fd;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_start_daemon(&t, NULL);
        g_assert_cmpint(bus_open_address(t.bus_address, &other), >=, 0);
        fd = itest_open_corpus(ARMLETH);
        /* Until a limit stops it: 16 reports, or the bytes of models first (a model counts its JSON text
         * and room for its largest action's tree). */
        for (int i = 0;; i++) {
                g_autofree char *p = NULL;
                g_assert_cmpint(i, <=, 16);
                g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
                p = itest_load_report(other, fd, &error);
                if (p)
                        continue;
                g_test_message("refused after %d reports: %s", i, error.message);
                g_assert_cmpstr(error.name, ==, BUS_ERROR_LIMITS_EXCEEDED);
                g_assert_cmpint(i, >=, 8);
                break;
        }
        sd_bus_error_free(&error);
        /* The limit is the user's: the same uid on another connection is refused too. */
        g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
        g_assert_null(itest_load_report(t.bus, fd, &error));
        g_assert_cmpstr(error.name, ==, BUS_ERROR_LIMITS_EXCEEDED);
        sd_bus_error_free(&error);

        /* The other caller's reports are not ours to see. */
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_REPORT_PREFIX "/1", BUS_REPORT_INTERFACE, "GetInfo",
                                        &error, NULL, NULL),
                        <, 0);
        g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_UNKNOWN_OBJECT);
        sd_bus_error_free(&error);

        other = sd_bus_flush_close_unref(other);
        /* The daemon sees the name go and frees the reports: loading works again. */
        for (int i = 0; i < 250 && !path; i++) {
                g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
                sd_bus_error_free(&error);
                path = itest_load_report(t.bus, fd, &error);
                if (!path)
                        g_usleep(20 * 1000);
        }
        g_assert_nonnull(path);
        close(fd);
        itest_teardown(&t);
}

/* Root only: as nobody, another caller's report is invisible, and LoadReport takes no path. */
static void test_privacy(void)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        g_autofree char *path = NULL, *out = NULL, *secret = NULL;
        int fd, status;
        pid_t pid;
        ITest t;

        ITEST_REQUIRE_ROOT("drops to nobody");
        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_start_daemon(&t, NULL);
        fd = itest_open_corpus(ARMLETH);
        path = itest_load_report(t.bus, fd, &error);
        close(fd);
        g_assert_nonnull(path);

        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                sd_bus *bus = NULL;
                sd_bus_error e = SD_BUS_ERROR_NULL;
                sd_bus_message *reply = NULL;
                char **children = NULL;

                if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(NOBODY) < 0)
                        _exit(10);
                if (bus_open_address(t.bus_address, &bus) < 0)
                        _exit(11);
                /* The object of root's report: unknown to us, method and introspection alike. */
                if (sd_bus_call_method(bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetInfo", &e, NULL, NULL) >= 0 ||
                                !sd_bus_error_has_name(&e, SD_BUS_ERROR_UNKNOWN_OBJECT))
                        _exit(12);
                sd_bus_error_free(&e);
                if (sd_bus_call_method(bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "ExportJson", &e, NULL, NULL) >= 0)
                        _exit(13);
                sd_bus_error_free(&e);
                if (sd_bus_call_method(bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "ExportRaw", &e, NULL, "b", 0) >= 0 ||
                                !sd_bus_error_has_name(&e, SD_BUS_ERROR_UNKNOWN_OBJECT))
                        _exit(16);
                sd_bus_error_free(&e);
                if (sd_bus_call_method(bus, BUS_NAME, BUS_REPORT_PREFIX, "org.freedesktop.DBus.Introspectable",
                                    "Introspect", &e, &reply, NULL) >= 0) {
                        const char *xml;
                        if (sd_bus_message_read(reply, "s", &xml) < 0 || strstr(xml, "<node name=\"1\""))
                                _exit(14);
                }
                sd_bus_error_free(&e);
                /* A path instead of a descriptor is not a LoadReport call. */
                if (sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "LoadReport", &e, NULL, "s",
                                    "/etc/shadow") >= 0 ||
                                !sd_bus_error_has_name(&e, SD_BUS_ERROR_INVALID_ARGS))
                        _exit(15);
                (void) children;
                _exit(0);
        }
        g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 0);

        /* nvprofilectl as nobody on a report only root can read: refused when opening, before any call. */
        secret = g_build_filename(t.dir, "secret.ncu-rep", NULL);
        {
                g_autofree char *src = test_corpus_path(ARMLETH), *data = NULL;
                gsize n;
                g_assert_true(g_file_get_contents(src, &data, &n, NULL));
                g_assert_true(g_file_set_contents(secret, data, (gssize) n, NULL));
                g_assert_cmpint(chmod(secret, 0600), ==, 0);
        }
        g_assert_cmpint(itest_ctl_as_nobody(&t, &out, "report", "json", secret, NULL), ==, 1);
        g_assert_null(strstr(out, "matrix_addition2D"));
        /* Root's report is still there, for root. */
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetInfo", &error, NULL, NULL),
                        >=, 0);
        itest_teardown(&t);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();
        g_setenv("NVPROFILED_REPORT_WORKER_REAL", test_env_or_fail("NVPROFILED_REPORT_WORKER"), true);
        g_test_add_func("/report-bus/load", test_load);
        g_test_add_func("/report-bus/invalid", test_invalid);
        g_test_add_func("/report-bus/exports", test_exports);
        g_test_add_func("/report-bus/pages", test_pages);
        g_test_add_func("/report-bus/diff", test_diff);
        g_test_add_func("/report-bus/worker-crash", test_worker_crash);
        g_test_add_func("/report-bus/limits-and-owner-leaving", test_limits_and_owner_leaving);
        g_test_add_func("/report-bus/large", test_large);
        g_test_add_func("/report-bus/privacy", test_privacy);
        return g_test_run();
}
