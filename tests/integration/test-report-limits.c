/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reports through the real daemon, what their workers and callers may cost (issue 17 items 2, 3 and 7,
 * issue 20): each report is served by its own worker, which ends on Close, when its owner leaves the bus
 * and after the idle timeout, leaving no process behind; a report answers a bounded number of calls at a
 * time; a worker that lies about its answers costs only that answer; every export a caller holds is
 * charged to it until it closes it (and emptied when it leaves the bus); a user's worst case (hundreds of
 * exports held, a zstd string-table bomb, more reports than allowed) in a memory cgroup like the unit's
 * is refused with LimitsExceeded and never reaches the cgroup's limit; and a match that takes seconds
 * runs in the caller's own worker, bounded by the timeout, while the daemon answers everyone else. */

#include <dirent.h>
#include <json-c/json.h>
#include <pwd.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-address.h"
#include "bus-names.h"
#include "itest-report.h"
#include "itest.h"
#include "manager-reports.h"
#include "report-builder.h"
#include "test-bus.h"
#include "test-util.h"

#define ARMLETH "reports/armleth_report_ncu2024.2.1.ncu-rep"
#define SOBEL "reports/nvidia_example_sobelFloat_ncu2023.3.0.ncu-rep"
#define WAIT_USEC (60 * G_USEC_PER_SEC)

/* A report answers NCU_REPORT_CALLS_MAX calls at a time (its worker here never answers): the next two
 * are LimitsExceeded; Close answers the waiting ones and ends the worker. */
static void test_calls_bounded(void)
{
        enum {
                N = NCU_REPORT_CALLS_MAX + 2
        };
        sd_bus_error error = SD_BUS_ERROR_NULL;
        AsyncReply replies[N] = { { 0 } };
        sd_bus_slot *slots[N] = { NULL };
        g_autofree char *path = NULL;
        ITest t;
        int fd;

        itest_report_start_daemon(&t, "NVPROFILED_FAKE_WORKER_SILENT", NULL);
        fd = itest_open_corpus(ARMLETH);
        path = itest_load_report(t.bus, fd, &error);
        close(fd);
        g_assert_nonnull(path);
        g_assert_cmpuint(itest_report_count_children(t.daemon_pid), ==, 1);
        for (size_t i = 0; i < N; i++)
                g_assert_cmpint(sd_bus_call_method_async(t.bus, &slots[i], BUS_NAME, path, BUS_REPORT_INTERFACE,
                                                "GetMetricNames", itest_report_on_async_reply, &replies[i], "uu", 0, 0),
                                >=, 0);
        itest_report_process_until(t.bus, &replies[N - 1].done);
        for (size_t i = 0; i < N; i++)
                if (i < NCU_REPORT_CALLS_MAX)
                        g_assert_false(replies[i].done);
                else
                        g_assert_cmpstr(replies[i].error_name, ==, BUS_ERROR_LIMITS_EXCEEDED);
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "Close", &error, NULL, NULL),
                        >=, 0);
        for (size_t i = 0; i < NCU_REPORT_CALLS_MAX; i++) {
                itest_report_process_until(t.bus, &replies[i].done);
                g_assert_cmpstr(replies[i].error_name, ==, SD_BUS_ERROR_FAILED);
        }
        itest_report_wait_children(t.daemon_pid, 0);
        for (size_t i = 0; i < N; i++) {
                g_free(replies[i].error_name);
                g_free(replies[i].error_message);
                sd_bus_slot_unref(slots[i]);
        }
        itest_teardown(&t);
}

/* Workers that lie: a reply that holds no values of its method's signature, an export larger than its
 * memfd, an export the worker keeps mapped to change it later. Each is that call's error; the daemon
 * serves on. */
static void test_lying_workers(void)
{
        static const struct {
                const char *env, *method, *message;
        } cases[] = {
                { "NVPROFILED_FAKE_WORKER_MALFORMED", "GetInfo", "malformed answer" },
                { "NVPROFILED_FAKE_WORKER_LIE_EXPORT", "ExportJson", "claimed more output" },
                { "NVPROFILED_FAKE_WORKER_MAPPED", "ExportJson", "could not be sealed" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                g_autofree char *path = NULL;
                ITest t;
                int fd;

                itest_report_start_daemon(&t, cases[i].env, NULL);
                fd = itest_open_corpus(ARMLETH);
                path = itest_load_report(t.bus, fd, &error);
                close(fd);
                g_assert_nonnull(path);
                g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, cases[i].method, &error,
                                                NULL, NULL),
                                <, 0);
                g_test_message("%s: %s: %s", cases[i].env, error.name, error.message);
                g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_FAILED);
                g_assert_nonnull(strstr(error.message, cases[i].message));
                sd_bus_error_free(&error);
                /* The daemon answers, and the report can be closed, its worker gone. */
                g_assert_cmpint(sd_bus_get_property_trivial(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                                "TrackedProcesses", &error, 'u', &(uint32_t){ 0 }),
                                >=, 0);
                g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "Close", &error, NULL,
                                                NULL),
                                >=, 0);
                itest_report_wait_children(t.daemon_pid, 0);
                itest_teardown(&t);
        }
}

/* The owner leaves the bus: its workers end; an export it still holds stays whole (a client may leave
 * before it read what it got) and charged to its user until closed: with OutputsPerUserMax=1, the same
 * user's next export is refused until then. */
static void test_owner_leaves(void)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *bus = NULL;
        g_autofree char *path1 = NULL, *path2 = NULL, *path3 = NULL;
        struct stat st;
        int fd, out;
        ITest t;

        itest_report_start_daemon(&t, NULL, "[Reports]\nOutputsPerUserMax=1\n");
        g_assert_cmpint(bus_open_address(t.bus_address, &bus), >=, 0);
        fd = itest_open_corpus(ARMLETH);
        path1 = itest_load_report(bus, fd, &error);
        g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
        path2 = itest_load_report(bus, fd, &error);
        g_assert_nonnull(path1);
        g_assert_nonnull(path2);
        g_assert_cmpuint(itest_report_count_children(t.daemon_pid), ==, 2);
        out = itest_report_export_json(bus, path1, &error);
        g_assert_cmpint(out, >=, 0);
        g_assert_cmpint(fstat(out, &st), ==, 0);
        g_assert_cmpint(st.st_size, >, 0);
        /* Root cannot see them. */
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path1, BUS_REPORT_INTERFACE, "GetInfo", &error, NULL, NULL),
                        <, 0);
        g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_UNKNOWN_OBJECT);
        sd_bus_error_free(&error);

        sd_bus_flush_close_unref(bus);
        itest_report_wait_children(t.daemon_pid, 0);
        {
                g_autofree char *text = g_malloc(st.st_size + 1);
                struct json_object *doc;

                g_assert_cmpint(pread(out, text, st.st_size, 0), ==, st.st_size);
                text[st.st_size] = '\0';
                doc = json_tokener_parse(text);
                g_assert_nonnull(doc);
                json_object_put(doc);
        }
        /* Still charged: the same user (root here) gets no other export while it is held. */
        g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
        path3 = itest_load_report(t.bus, fd, &error);
        g_assert_nonnull(path3);
        g_assert_cmpint(itest_report_export_json(t.bus, path3, &error), <, 0);
        g_assert_cmpstr(error.name, ==, BUS_ERROR_LIMITS_EXCEEDED);
        sd_bus_error_free(&error);
        close(out);
        out = itest_report_export_json(t.bus, path3, &error);
        g_assert_cmpint(out, >=, 0);
        close(out);
        close(fd);
        itest_teardown(&t);
}

/* A report nobody calls for IdleSec= is closed, its worker gone. */
static void test_idle(void)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        g_autofree char *path = NULL;
        gint64 deadline;
        ITest t;
        int fd;

        itest_report_start_daemon(&t, NULL, "[Reports]\nIdleSec=1s");
        fd = itest_open_corpus(ARMLETH);
        path = itest_load_report(t.bus, fd, &error);
        close(fd);
        g_assert_nonnull(path);
        deadline = g_get_monotonic_time() + WAIT_USEC;
        for (;;) {
                /* A call counts as use: look without calling the report. */
                sd_bus_message *reply = NULL;
                const char *xml;
                bool gone;

                g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_REPORT_PREFIX,
                                                "org.freedesktop.DBus.Introspectable", "Introspect", &error, &reply,
                                                NULL),
                                >=, 0);
                g_assert_cmpint(sd_bus_message_read(reply, "s", &xml), >, 0);
                gone = !strstr(xml, "<node name=\"1\"");
                sd_bus_message_unref(reply);
                if (gone)
                        break;
                g_assert_cmpint(g_get_monotonic_time(), <, deadline);
                g_usleep(100 * 1000);
        }
        itest_report_wait_children(t.daemon_pid, 0);
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "GetInfo", &error, NULL, NULL),
                        <, 0);
        g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_UNKNOWN_OBJECT);
        sd_bus_error_free(&error);
        itest_teardown(&t);
}

/* Exports are charged to their caller until it closes them: with OutputsPerUserMax=2, a third is
 * LimitsExceeded while two are held, and allowed once one of them is closed. */
static void test_outputs_held(void)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        g_autofree char *path = NULL;
        int fd, a, b, c;
        ITest t;

        itest_report_start_daemon(&t, NULL, "[Reports]\nOutputsPerUserMax=2");
        fd = itest_open_corpus(ARMLETH);
        path = itest_load_report(t.bus, fd, &error);
        close(fd);
        g_assert_nonnull(path);
        a = itest_report_export_json(t.bus, path, &error);
        b = itest_report_export_json(t.bus, path, &error);
        g_assert_cmpint(a, >=, 0);
        g_assert_cmpint(b, >=, 0);
        g_assert_cmpint(itest_report_export_json(t.bus, path, &error), <, 0);
        g_assert_cmpstr(error.name, ==, BUS_ERROR_LIMITS_EXCEEDED);
        sd_bus_error_free(&error);
        /* A duplicate of a descriptor is the same: still held. */
        c = fcntl(a, F_DUPFD_CLOEXEC, 3);
        close(a);
        g_assert_cmpint(itest_report_export_json(t.bus, path, &error), <, 0);
        sd_bus_error_free(&error);
        /* Closed: the daemon sees it before our next call (its inotify comes first). */
        close(c);
        c = itest_report_export_json(t.bus, path, &error);
        g_assert_cmpint(c, >=, 0);
        close(b);
        close(c);
        itest_teardown(&t);
}

/* A report whose strings are not UTF-8 (D-Bus strings must be): its names are served with U+FFFD for each
 * invalid byte, rather than the call failing. */
static void test_invalid_utf8(void)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        g_autofree char *path = NULL;
        ReportBuffer b = { 0 };
        const char *type, *name, *demangled, *mangled;
        ITest t;
        int fd;

        itest_report_start_daemon(&t, NULL, NULL);
        report_build_named_kernel(&b, "bad\xff\xfename");
        fd = itest_report_memfd_with(b.data, b.size);
        path = itest_load_report(t.bus, fd, &error);
        close(fd);
        g_assert_nonnull(path);
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "ListActions", &error, &reply,
                                        "u", 0),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(ussss(ttt)(ttt)d)"), >, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'r', "ussss(ttt)(ttt)d"), >, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "ussss", NULL, &type, &name, &demangled, &mangled), >, 0);
        g_assert_cmpstr(name, ==, "bad\xef\xbf\xbd\xef\xbf\xbdname");
        g_assert_cmpstr(demangled, ==, name);
        sd_bus_message_unref(reply);
        report_buffer_done(&b);
        itest_teardown(&t);
}

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifndef TEST_ASAN
#define TEST_ASAN 0
#endif

/* The daemon's child that started last (by its start time). */
static pid_t newest_child(pid_t parent)
{
        g_autoptr(GDir) dir = g_dir_open("/proc", 0, NULL);
        unsigned long long newest_start = 0;
        pid_t newest = 0;
        const char *name;

        g_assert_nonnull(dir);
        while ((name = g_dir_read_name(dir))) {
                g_autofree char *path = NULL, *stat = NULL;
                unsigned long long start;
                const char *p;
                int ppid;

                if (!g_ascii_isdigit(name[0]))
                        continue;
                path = g_strdup_printf("/proc/%s/stat", name);
                if (!g_file_get_contents(path, &stat, NULL, NULL))
                        continue;
                p = strrchr(stat, ')');
                /* state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime
                 * cstime priority nice num_threads itrealvalue starttime */
                if (p &&
                                sscanf(p + 1, " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                                                &ppid, &start) == 2 &&
                                ppid == parent && start >= newest_start) {
                        newest_start = start;
                        newest = (pid_t) atoi(name);
                }
        }
        g_assert_cmpint(newest, >, 0);
        return newest;
}

/* A line of /proc/PID/FILE that starts with prefix, without it. */
static char *proc_line(pid_t pid, const char *file, const char *prefix)
{
        g_autofree char *path = g_strdup_printf("/proc/%d/%s", (int) pid, file), *text = NULL;
        g_auto(GStrv) lines = NULL;

        g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
        lines = g_strsplit(text, "\n", -1);
        for (size_t i = 0; lines[i]; i++)
                if (g_str_has_prefix(lines[i], prefix))
                        return g_strstrip(g_strdup(lines[i] + strlen(prefix)));
        g_error("%s has no line %s", path, prefix);
}

/* The spare worker: started after a load and confined before it has any report; the next load takes it
 * (and only then does it hold itself to that report's reservation); it ends IdleSec= after the last load,
 * with the reports. */
static void test_spare_worker(void)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        g_autofree char *a = NULL, *b = NULL, *uid = NULL, *nnp = NULL, *seccomp = NULL, *limit_before = NULL,
                        *limit_after = NULL;
        pid_t spare;
        ITest t;
        int fd;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_start_daemon(&t, "[Reports]\nIdleSec=2s\n");
        /* No load yet, no spare. */
        g_assert_cmpuint(itest_report_count_children(t.daemon_pid), ==, 0);
        fd = itest_open_corpus(ARMLETH);
        a = itest_load_report(t.bus, fd, &error);
        close(fd);
        g_assert_nonnull(a);
        itest_report_wait_children(t.daemon_pid, 2);
        spare = newest_child(t.daemon_pid);
        /* Confined while it waits, before it has a report (it confines itself once started): nobody, no
         * privileges to gain, the seccomp filter. */
        {
                gint64 deadline = g_get_monotonic_time() + WAIT_USEC;

                for (;;) {
                        g_autofree char *mode = proc_line(spare, "status", "Seccomp:");

                        if (streq(mode, "2"))
                                break;
                        g_assert_cmpint(g_get_monotonic_time(), <, deadline);
                        g_usleep(10 * 1000);
                }
        }
        uid = proc_line(spare, "status", "Uid:");
        if (t.deployed) {
                /* The saved uid stays the unit's user's, so that the daemon may signal its worker and nobody
                 * else may (report-worker.c). */
                struct passwd *pw = getpwnam(t.daemon_user);
                g_autofree char *want = NULL;

                g_assert_nonnull(pw);
                want = g_strdup_printf("65534\t65534\t%u\t65534", (unsigned) pw->pw_uid);
                g_assert_cmpstr(uid, ==, want);
        } else
                g_assert_cmpstr(uid, ==, "65534\t65534\t65534\t65534");
        nnp = proc_line(spare, "status", "NoNewPrivs:");
        seccomp = proc_line(spare, "status", "Seccomp:");
        g_assert_cmpstr(nnp, ==, "1");
        g_assert_cmpstr(seccomp, ==, "2");
        limit_before = proc_line(spare, "limits", "Max address space");

        fd = itest_open_corpus(ARMLETH);
        b = itest_load_report(t.bus, fd, &error);
        close(fd);
        g_assert_nonnull(b);
        /* B's worker is the spare (still there), and a new spare follows. */
        itest_report_wait_children(t.daemon_pid, 3);
        g_assert_cmpint(kill(spare, 0), ==, 0);
        g_assert_cmpint(newest_child(t.daemon_pid), !=, spare);
        limit_after = proc_line(spare, "limits", "Max address space");
#if TEST_ASAN
        /* AddressSanitizer's shadow needs terabytes: no address-space limit there (the reader's hold). */
        g_assert_cmpstr(limit_after, ==, limit_before);
#else
        g_assert_true(g_str_has_prefix(limit_before, "unlimited"));
        g_assert_false(g_str_has_prefix(limit_after, "unlimited"));
#endif
        /* Both reports idle for 2 s are closed, and the spare with them. */
        itest_report_wait_children(t.daemon_pid, 0);
        itest_teardown(&t);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/report-limits/calls-bounded", test_calls_bounded);
        g_test_add_func("/report-limits/lying-workers", test_lying_workers);
        g_test_add_func("/report-limits/owner-leaves", test_owner_leaves);
        g_test_add_func("/report-limits/idle", test_idle);
        g_test_add_func("/report-limits/invalid-utf8", test_invalid_utf8);
        g_test_add_func("/report-limits/outputs-held", test_outputs_held);
        g_test_add_func("/report-limits/spare-worker", test_spare_worker);
        return g_test_run();
}
