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

static int memfd_with(const void *data, size_t size)
{
        int fd = memfd_create("report", MFD_CLOEXEC);

        g_assert_cmpint(fd, >=, 0);
        g_assert_cmpint(write(fd, data, size), ==, (ssize_t) size);
        g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
        return fd;
}

/* The daemon's children: its workers. */
static unsigned count_children(pid_t parent)
{
        g_autoptr(GDir) dir = g_dir_open("/proc", 0, NULL);
        const char *name;
        unsigned n = 0;

        g_assert_nonnull(dir);
        while ((name = g_dir_read_name(dir))) {
                g_autofree char *path = NULL, *stat = NULL;
                const char *p;
                int ppid;

                if (!g_ascii_isdigit(name[0]))
                        continue;
                path = g_strdup_printf("/proc/%s/stat", name);
                if (!g_file_get_contents(path, &stat, NULL, NULL))
                        continue;
                p = strrchr(stat, ')');
                if (p && sscanf(p + 1, " %*c %d", &ppid) == 1 && ppid == parent)
                        n++;
        }
        return n;
}

static void wait_children(pid_t parent, unsigned n)
{
        gint64 deadline = g_get_monotonic_time() + WAIT_USEC;

        while (count_children(parent) != n) {
                if (g_get_monotonic_time() > deadline)
                        g_error("the daemon has %u children, not %u", count_children(parent), n);
                g_usleep(20 * 1000);
        }
}

typedef struct AsyncReply {
        bool done;
        char *error_name;
        char *error_message;
} AsyncReply;

static int on_async_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        AsyncReply *a = userdata;

        a->done = true;
        if (sd_bus_message_is_method_error(m, NULL)) {
                a->error_name = g_strdup(sd_bus_message_get_error(m)->name);
                a->error_message = g_strdup(sd_bus_message_get_error(m)->message);
        }
        return 0;
}

static void process_until(sd_bus *bus, const bool *done)
{
        while (!*done) {
                int k = sd_bus_process(bus, NULL);
                g_assert_cmpint(k, >=, 0);
                if (k == 0)
                        g_assert_cmpint(sd_bus_wait(bus, 10 * G_USEC_PER_SEC), >=, 0);
        }
}

/* Runs fn(userdata) in a child that became u; its exit status (128 + signal when killed). */
static int run_as(const ITestUser *u, int (*fn)(void *userdata), void *userdata)
{
        int status;
        pid_t pid;

        fflush(NULL);
        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                signal(SIGABRT, SIG_DFL);
                signal(SIGTRAP, SIG_DFL);
                signal(SIGTERM, SIG_DFL);
                itest_become_user(u);
                _exit(fn(userdata));
        }
        g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* These tests count the daemon's children as its reports' workers: without a spare worker (tested on its
 * own, spare-worker). */
static void start_with_worker(ITest *t, const char *fake_env, const char *config)
{
        g_autofree char *text = NULL;

        if (fake_env)
                g_assert_true(g_setenv("NVPROFILED_REPORT_WORKER", test_env_or_fail(fake_env), TRUE));
        if (config && g_str_has_prefix(config, "[Reports]\n"))
                config += strlen("[Reports]\n");
        text = g_strconcat("[Reports]\nSpareWorker=no\n", strempty(config), NULL);
        itest_setup(t);
        itest_use_fixture_proc(t);
        itest_start_daemon(t, text);
}

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

        start_with_worker(&t, "NVPROFILED_FAKE_WORKER_SILENT", NULL);
        fd = itest_open_corpus(ARMLETH);
        path = itest_load_report(t.bus, fd, &error);
        close(fd);
        g_assert_nonnull(path);
        g_assert_cmpuint(count_children(t.daemon_pid), ==, 1);
        for (size_t i = 0; i < N; i++)
                g_assert_cmpint(sd_bus_call_method_async(t.bus, &slots[i], BUS_NAME, path, BUS_REPORT_INTERFACE,
                                                "GetMetricNames", on_async_reply, &replies[i], "uu", 0, 0),
                                >=, 0);
        process_until(t.bus, &replies[N - 1].done);
        for (size_t i = 0; i < N; i++)
                if (i < NCU_REPORT_CALLS_MAX)
                        g_assert_false(replies[i].done);
                else
                        g_assert_cmpstr(replies[i].error_name, ==, BUS_ERROR_LIMITS_EXCEEDED);
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "Close", &error, NULL, NULL),
                        >=, 0);
        for (size_t i = 0; i < NCU_REPORT_CALLS_MAX; i++) {
                process_until(t.bus, &replies[i].done);
                g_assert_cmpstr(replies[i].error_name, ==, SD_BUS_ERROR_FAILED);
        }
        wait_children(t.daemon_pid, 0);
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

                start_with_worker(&t, cases[i].env, NULL);
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
                wait_children(t.daemon_pid, 0);
                itest_teardown(&t);
        }
}

static int export_json(sd_bus *bus, const char *path, sd_bus_error *error)
{
        sd_bus_message *reply = NULL;
        int fd, k;

        k = sd_bus_call_method(bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "ExportJson", error, &reply, NULL);
        if (k < 0)
                return k;
        g_assert_cmpint(sd_bus_message_read(reply, "h", &fd), >, 0);
        fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        sd_bus_message_unref(reply);
        return fd;
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

        start_with_worker(&t, NULL, "[Reports]\nOutputsPerUserMax=1\n");
        g_assert_cmpint(bus_open_address(t.bus_address, &bus), >=, 0);
        fd = itest_open_corpus(ARMLETH);
        path1 = itest_load_report(bus, fd, &error);
        g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
        path2 = itest_load_report(bus, fd, &error);
        g_assert_nonnull(path1);
        g_assert_nonnull(path2);
        g_assert_cmpuint(count_children(t.daemon_pid), ==, 2);
        out = export_json(bus, path1, &error);
        g_assert_cmpint(out, >=, 0);
        g_assert_cmpint(fstat(out, &st), ==, 0);
        g_assert_cmpint(st.st_size, >, 0);
        /* Root cannot see them. */
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, path1, BUS_REPORT_INTERFACE, "GetInfo", &error, NULL, NULL),
                        <, 0);
        g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_UNKNOWN_OBJECT);
        sd_bus_error_free(&error);

        sd_bus_flush_close_unref(bus);
        wait_children(t.daemon_pid, 0);
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
        g_assert_cmpint(export_json(t.bus, path3, &error), <, 0);
        g_assert_cmpstr(error.name, ==, BUS_ERROR_LIMITS_EXCEEDED);
        sd_bus_error_free(&error);
        close(out);
        out = export_json(t.bus, path3, &error);
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

        start_with_worker(&t, NULL, "[Reports]\nIdleSec=1s");
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
        wait_children(t.daemon_pid, 0);
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

        start_with_worker(&t, NULL, "[Reports]\nOutputsPerUserMax=2");
        fd = itest_open_corpus(ARMLETH);
        path = itest_load_report(t.bus, fd, &error);
        close(fd);
        g_assert_nonnull(path);
        a = export_json(t.bus, path, &error);
        b = export_json(t.bus, path, &error);
        g_assert_cmpint(a, >=, 0);
        g_assert_cmpint(b, >=, 0);
        g_assert_cmpint(export_json(t.bus, path, &error), <, 0);
        g_assert_cmpstr(error.name, ==, BUS_ERROR_LIMITS_EXCEEDED);
        sd_bus_error_free(&error);
        /* A duplicate of a descriptor is the same: still held. */
        c = fcntl(a, F_DUPFD_CLOEXEC, 3);
        close(a);
        g_assert_cmpint(export_json(t.bus, path, &error), <, 0);
        sd_bus_error_free(&error);
        /* Closed: the daemon sees it before our next call (its inotify comes first). */
        close(c);
        c = export_json(t.bus, path, &error);
        g_assert_cmpint(c, >=, 0);
        close(b);
        close(c);
        itest_teardown(&t);
}

/* A memory cgroup of 128 MiB around the daemon (its unit's MemoryMax=), v2 or v1, whichever this machine
 * has; "" when neither can be made. */
typedef struct MemoryCgroup {
        char *dir;
        bool v2;
} MemoryCgroup;

/* Control files take one write() each (not a new file renamed over them). */
static bool write_cg(const char *dir, const char *file, const char *value)
{
        g_autofree char *path = g_build_filename(dir, file, NULL);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        bool ok;

        if (fd < 0)
                return false;
        ok = write(fd, value, strlen(value)) == (ssize_t) strlen(value);
        close(fd);
        return ok;
}

/* Cgroups an earlier run left behind when it was killed (its pid is in the name). */
static void remove_stale_cgroups(const char *parent)
{
        g_autoptr(GDir) dir = g_dir_open(parent, 0, NULL);
        const char *name;

        while (dir && (name = g_dir_read_name(dir))) {
                g_autofree char *path = NULL;
                long pid;

                if (!g_str_has_prefix(name, "nvptest-reports-"))
                        continue;
                pid = strtol(name + strlen("nvptest-reports-"), NULL, 10);
                if (pid > 0 && kill((pid_t) pid, 0) == 0)
                        continue;
                path = g_build_filename(parent, name, NULL);
                (void) rmdir(path);
        }
}

/* The control file's text into *ret (g_free() it). */
static void read_cg(const char *dir, const char *file, char **ret)
{
        g_autofree char *path = g_build_filename(dir, file, NULL);

        g_assert_true(g_file_get_contents(path, ret, NULL, NULL));
}

static void memory_cgroup_make(MemoryCgroup *cg)
{
        g_autofree char *name = g_strdup_printf("nvptest-reports-%d", (int) getpid());
        g_autofree char *controllers = NULL;

        *cg = (MemoryCgroup){ 0 };
        if (g_file_get_contents("/sys/fs/cgroup/cgroup.controllers", &controllers, NULL, NULL) &&
                        strstr(controllers, "memory")) {
                cg->v2 = true;
                (void) write_cg("/sys/fs/cgroup", "cgroup.subtree_control", "+memory");
                remove_stale_cgroups("/sys/fs/cgroup");
                cg->dir = g_build_filename("/sys/fs/cgroup", name, NULL);
        } else if (g_file_test("/sys/fs/cgroup/memory/memory.limit_in_bytes", G_FILE_TEST_EXISTS)) {
                remove_stale_cgroups("/sys/fs/cgroup/memory");
                cg->dir = g_build_filename("/sys/fs/cgroup/memory", name, NULL);
        } else
                g_error("this machine has no memory cgroup controller (v1 or v2) to test in");
        g_assert_cmpint(mkdir(cg->dir, 0755), ==, 0);
        if (cg->v2) {
                g_assert_true(write_cg(cg->dir, "memory.max", "134217728"));
                (void) write_cg(cg->dir, "memory.swap.max", "0");
        } else
                g_assert_true(write_cg(cg->dir, "memory.limit_in_bytes", "134217728"));
}

static void memory_cgroup_enter(MemoryCgroup *cg, pid_t pid)
{
        g_autofree char *s = g_strdup_printf("%d", (int) pid);
        g_assert_true(write_cg(cg->dir, "cgroup.procs", s));
}

/* The kernel's count of OOM kills in the cgroup. */
static unsigned memory_cgroup_oom_kills(MemoryCgroup *cg)
{
        char *text = NULL;
        const char *p;
        unsigned n;

        read_cg(cg->dir, cg->v2 ? "memory.events" : "memory.oom_control", &text);
        p = strstr(text, "oom_kill ");

        g_assert_nonnull(p);
        n = (unsigned) g_ascii_strtoull(p + strlen("oom_kill "), NULL, 10);
        g_free(text);
        return n;
}

static uint64_t memory_cgroup_peak(MemoryCgroup *cg)
{
        g_autofree char *text = NULL;
        uint64_t bytes;

        read_cg(cg->dir, cg->v2 ? "memory.current" : "memory.max_usage_in_bytes", &text);
        bytes = g_ascii_strtoull(text, NULL, 10);

        return bytes;
}

static void memory_cgroup_remove(MemoryCgroup *cg)
{
        /* Empty by now: the daemon and its workers are gone. */
        g_assert_cmpint(rmdir(cg->dir), ==, 0);
        g_free(cg->dir);
}

typedef struct Attack {
        const char *bus_address;
        int report_fd, bomb_fd;
        int n_reports_fds;
        int report_fds[24];
} Attack;

/* Issue 17 items 2 and 3 as the attacker runs them: the string-table bomb, 300 ExportJson calls whose
 * memfds it keeps, and more reports than allowed. Exit status 0 when every one was refused with
 * LimitsExceeded once the budget was spent, and never otherwise. */
static int attack(void *userdata)
{
        Attack *a = userdata;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        g_autofree char *path = NULL;
        unsigned held = 0, refused = 0;
        sd_bus *bus = NULL;

        if (bus_open_address(a->bus_address, &bus) < 0)
                return 10;
        /* The bomb: refused, by the worker's limits or the budget. */
        if (itest_load_report(bus, a->bomb_fd, &error) || !sd_bus_error_has_name(&error, BUS_ERROR_LIMITS_EXCEEDED)) {
                g_test_message("bomb: %s: %s", error.name, error.message);
                return 14;
        }
        g_test_message("bomb: %s", error.message);
        sd_bus_error_free(&error);
        path = itest_load_report(bus, a->report_fd, &error);
        if (!path)
                return 11;
        for (int i = 0; i < 300; i++) {
                int fd = export_json(bus, path, &error);
                if (fd >= 0)
                        held++; /* kept open: the memfd stays charged */
                else if (sd_bus_error_has_name(&error, BUS_ERROR_LIMITS_EXCEEDED))
                        refused++;
                else
                        return 12;
                sd_bus_error_free(&error);
        }
        g_test_message("exports held %u, refused %u", held, refused);
        if (held == 0 || refused == 0 || held + refused != 300)
                return 13;
        /* More reports than the budget holds. */
        refused = 0;
        for (int i = 0; i < a->n_reports_fds; i++) {
                g_autofree char *p = itest_load_report(bus, a->report_fds[i], &error);
                if (!p && !sd_bus_error_has_name(&error, BUS_ERROR_LIMITS_EXCEEDED))
                        return 15;
                refused += !p;
                sd_bus_error_free(&error);
        }
        g_test_message("reports refused %u of %d", refused, a->n_reports_fds);
        return refused > 0 ? 0 : 16;
}

static void test_memory_cgroup(void)
{
        ReportBuffer bomb = { 0 };
        ITestUser user;
        MemoryCgroup cg;
        Attack a;
        ITest t;
        int status;

        ITEST_REQUIRE_ROOT("creates a user and a cgroup");
        memory_cgroup_make(&cg);
        /* The budgets within the cgroup, as the unit has them within its MemoryMax=. Sanitizer builds:
         * AddressSanitizer's own quarantine is kept small, or it alone would fill the cgroup. */
        if (g_getenv("ASAN_OPTIONS")) {
                g_autofree char *opts = g_strdup_printf("%s:quarantine_size_mb=8", g_getenv("ASAN_OPTIONS"));
                g_setenv("ASAN_OPTIONS", opts, TRUE);
        }
        start_with_worker(&t, NULL, "[Reports]\nMemoryMax=64M\nMemoryPerUserMax=48M\nWorkerMemoryMax=40M");
        memory_cgroup_enter(&cg, t.daemon_pid);
        itest_create_user("nvptest-rl-", &user);

        report_build_string_bomb(&bomb, 4096, 256 * 1024);
        a = (Attack){ .bus_address = t.bus_address,
                .report_fd = itest_open_corpus(SOBEL),
                .bomb_fd = memfd_with(bomb.data, bomb.size),
                .n_reports_fds = 24 };
        for (int i = 0; i < a.n_reports_fds; i++)
                a.report_fds[i] = itest_open_corpus(ARMLETH);
        status = run_as(&user, attack, &a);
        g_assert_cmpint(status, ==, 0);

        /* The daemon is alive, answers, and the cgroup never hit its limit hard enough to kill. */
        g_assert_cmpint(kill(t.daemon_pid, 0), ==, 0);
        g_assert_cmpint(sd_bus_get_property_trivial(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                        "TrackedProcesses", NULL, 'u', &(uint32_t){ 0 }),
                        >=, 0);
        g_test_message("cgroup peak %" G_GUINT64_FORMAT " bytes", memory_cgroup_peak(&cg));
        g_assert_cmpuint(memory_cgroup_oom_kills(&cg), ==, 0);
        /* The attacker left: its reports and exports went with it. */
        wait_children(t.daemon_pid, 0);

        close(a.report_fd);
        close(a.bomb_fd);
        for (int i = 0; i < a.n_reports_fds; i++)
                close(a.report_fds[i]);
        report_buffer_done(&bomb);
        itest_teardown(&t);
        memory_cgroup_remove(&cg);
}

typedef struct NvtxAttack {
        const char *bus_address;
        int report_fd;
        int sent_fd, done_fd; /* pipes to the test */
} NvtxAttack;

/* Issue 17 item 7 as the attacker runs it: six ActionsByNvtx calls of 64 patterns that each take many
 * seconds on its own 100-kernel report. Exit status 0 when all six end in Timeout. */
static int nvtx_attack(void *userdata)
{
        NvtxAttack *a = userdata;
        g_autofree char *path = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        AsyncReply replies[6] = { { 0 } };
        sd_bus_slot *slots[6] = { NULL };
        sd_bus *bus = NULL;
        char *patterns[65];
        g_autofree char *pattern = NULL;
        GString *p = g_string_new(NULL);

        for (int i = 0; i < 63; i++)
                g_string_append(p, "a/");
        g_string_append(p, "b");
        pattern = g_string_free(p, false);
        for (int i = 0; i < 64; i++)
                patterns[i] = pattern;
        patterns[64] = NULL;
        if (bus_open_address(a->bus_address, &bus) < 0)
                return 10;
        path = itest_load_report(bus, a->report_fd, &error);
        if (!path)
                return 11;
        for (int i = 0; i < 6; i++) {
                sd_bus_message *m = NULL;

                if (sd_bus_message_new_method_call(bus, &m, BUS_NAME, path, BUS_REPORT_INTERFACE, "ActionsByNvtx") <
                                                0 ||
                                sd_bus_message_append(m, "u", 0) < 0 || sd_bus_message_append_strv(m, patterns) < 0 ||
                                sd_bus_message_append_strv(m, NULL) < 0 ||
                                sd_bus_call_async(bus, &slots[i], m, on_async_reply, &replies[i], 0) < 0)
                        return 12;
                sd_bus_message_unref(m);
        }
        if (sd_bus_flush(bus) < 0 || write(a->sent_fd, "s", 1) != 1)
                return 13;
        for (int i = 0; i < 6; i++) {
                process_until(bus, &replies[i].done);
                g_test_message("call %d: %s: %s", i, replies[i].error_name, replies[i].error_message);
                if (!replies[i].error_name || strcmp(replies[i].error_name, SD_BUS_ERROR_TIMEOUT) != 0)
                        return 14;
        }
        return write(a->done_fd, "d", 1) == 1 ? 0 : 15;
}

static void test_nvtx_heavy(void)
{
        ReportBuffer heavy = { 0 };
        int sent[2], done[2], status;
        ITestUser user;
        NvtxAttack a;
        ITest t;
        pid_t pid;
        char c;

        ITEST_REQUIRE_ROOT("creates a user");
        start_with_worker(&t, NULL, "[Reports]\nTimeoutSec=3s");
        itest_create_user("nvptest-rl-", &user);
        report_build_nvtx_heavy(&heavy, 100, 4500);
        g_test_message("report: %zu bytes", heavy.size);
        g_assert_cmpint(pipe2(sent, O_CLOEXEC), ==, 0);
        g_assert_cmpint(pipe2(done, O_CLOEXEC | O_NONBLOCK), ==, 0);
        a = (NvtxAttack){ .bus_address = t.bus_address,
                .report_fd = memfd_with(heavy.data, heavy.size),
                .sent_fd = sent[1],
                .done_fd = done[1] };
        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0)
                _exit(run_as(&user, nvtx_attack, &a));
        close(sent[1]);
        close(done[1]);
        /* Once the attacker's calls are with the daemon, root is answered at once, while they run. */
        if (read(sent[0], &c, 1) != 1) {
                g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
                g_error("the attacker failed before its calls (status %d)", status);
        }
        g_assert_cmpint(sd_bus_get_property_trivial(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                        "TrackedProcesses", NULL, 'u', &(uint32_t){ 0 }),
                        >=, 0);
        g_assert_cmpint(read(done[0], &c, 1), <, 0); /* the attacker is still waiting */
        g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 0);
        /* The report ended with its worker. */
        wait_children(t.daemon_pid, 0);
        close(a.report_fd);
        close(sent[0]);
        close(done[0]);
        report_buffer_done(&heavy);
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

        start_with_worker(&t, NULL, NULL);
        report_build_named_kernel(&b, "bad\xff\xfename");
        fd = memfd_with(b.data, b.size);
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
        g_assert_cmpuint(count_children(t.daemon_pid), ==, 0);
        fd = itest_open_corpus(ARMLETH);
        a = itest_load_report(t.bus, fd, &error);
        close(fd);
        g_assert_nonnull(a);
        wait_children(t.daemon_pid, 2);
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
        wait_children(t.daemon_pid, 3);
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
        wait_children(t.daemon_pid, 0);
        itest_teardown(&t);
}

/* A pids cgroup of tasks tasks around the daemon (its unit's TasksMax=), v2 or v1: its directory. */
static char *tasks_cgroup_make(unsigned tasks)
{
        g_autofree char *name = g_strdup_printf("nvptest-reports-%d", (int) getpid());
        g_autofree char *controllers = NULL, *max = g_strdup_printf("%u", tasks);
        char *dir;

        if (g_file_get_contents("/sys/fs/cgroup/cgroup.controllers", &controllers, NULL, NULL) &&
                        strstr(controllers, "pids")) {
                (void) write_cg("/sys/fs/cgroup", "cgroup.subtree_control", "+pids");
                remove_stale_cgroups("/sys/fs/cgroup");
                dir = g_build_filename("/sys/fs/cgroup", name, NULL);
        } else if (g_file_test("/sys/fs/cgroup/pids/cgroup.procs", G_FILE_TEST_EXISTS)) {
                remove_stale_cgroups("/sys/fs/cgroup/pids");
                dir = g_build_filename("/sys/fs/cgroup/pids", name, NULL);
        } else
                g_error("this machine has no pids cgroup controller (v1 or v2) to test in");
        g_assert_cmpint(mkdir(dir, 0755), ==, 0);
        g_assert_true(write_cg(dir, "pids.max", max));
        return dir;
}

typedef struct Holder {
        const char *bus_address;
        int report_fd;
        int ready_fd; /* the child writes how many it holds, then waits... */
        int hold_fd; /* ...until this pipe is closed, holding them */
        int hold_write_fd; /* the test's end of it, which the child closes */
} Holder;

/* Loads reports until one is refused: exit status 0 when that was LimitsExceeded. */
static int hold_reports(void *userdata)
{
        Holder *h = userdata;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *bus = NULL;
        uint8_t held = 0;
        char c;

        close(h->hold_write_fd);
        if (bus_open_address(h->bus_address, &bus) < 0)
                return 10;
        for (;;) {
                g_autofree char *p = NULL;

                (void) lseek(h->report_fd, 0, SEEK_SET);
                p = itest_load_report(bus, h->report_fd, &error);
                if (!p)
                        break;
                if (++held > 32)
                        return 11;
        }
        g_test_message("user A holds %u reports, then: %s: %s", held, error.name, error.message);
        if (!sd_bus_error_has_name(&error, BUS_ERROR_LIMITS_EXCEEDED))
                return 12;
        if (write(h->ready_fd, &held, 1) != 1)
                return 13;
        (void) !read(h->hold_fd, &c, 1);
        return 0;
}

static int load_one(void *userdata)
{
        Holder *h = userdata;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        g_autofree char *p = NULL;
        sd_bus *bus = NULL;

        if (bus_open_address(h->bus_address, &bus) < 0)
                return 10;
        (void) lseek(h->report_fd, 0, SEEK_SET);
        p = itest_load_report(bus, h->report_fd, &error);
        if (!p)
                g_test_message("user B: %s: %s", error.name, error.message);
        return p ? 0 : 11;
}

/* Issue 29 item 3: in a cgroup of the unit's few tasks, one user's reports take their share of the
 * workers and no more: another user and root still load one, and the spare worker still starts. */
static void test_tasks_cgroup(void)
{
        enum {
                TASKS = 13
        };
        g_autofree char *dir = NULL, *procs = NULL, *first = NULL;
        const char *wrapper[5];
        sd_bus_error error = SD_BUS_ERROR_NULL;
        ITestUser a, b;
        int ready[2], hold[2];
        uint8_t held = 0;
        Holder h;
        pid_t holder;
        ITest t;
        int status;

        ITEST_REQUIRE_ROOT("creates users and a cgroup");
        dir = tasks_cgroup_make(TASKS);
        procs = g_build_filename(dir, "cgroup.procs", NULL);
        wrapper[0] = "/bin/sh";
        wrapper[1] = "-c";
        wrapper[2] = "echo $$ >\"$0\" && exec \"$@\"";
        wrapper[3] = procs;
        wrapper[4] = NULL;
        itest_setup(&t);
        itest_use_fixture_proc(&t);
        t.daemon_wrapper = wrapper;
        itest_start_daemon(&t, "[Reports]\nSpareWorker=yes\n");
        t.daemon_wrapper = NULL;
        itest_create_user("nvptest-rl-", &a);
        itest_create_user("nvptest-rl-", &b);

        h = (Holder){ .bus_address = t.bus_address, .report_fd = itest_open_corpus(ARMLETH) };
        g_assert_cmpint(pipe2(ready, O_CLOEXEC), ==, 0);
        g_assert_cmpint(pipe2(hold, O_CLOEXEC), ==, 0);
        h.ready_fd = ready[1];
        h.hold_fd = hold[0];
        h.hold_write_fd = hold[1];
        fflush(NULL);
        holder = fork();
        g_assert_cmpint(holder, >=, 0);
        if (holder == 0) {
                itest_become_user(&a);
                _exit(hold_reports(&h));
        }
        close(ready[1]);
        close(hold[0]);
        g_assert_cmpint(read(ready[0], &held, 1), ==, 1);
        g_assert_cmpuint(held, >=, 1);

        /* Another user, and root, still load a report: the tasks left them room. */
        g_assert_cmpint(run_as(&b, load_one, &h), ==, 0);
        g_assert_cmpint(lseek(h.report_fd, 0, SEEK_SET), ==, 0);
        first = itest_load_report(t.bus, h.report_fd, &error);
        g_assert_nonnull(first);
        /* And the spare worker starts beside A's and root's workers. */
        wait_children(t.daemon_pid, held + 2);

        close(hold[1]);
        g_assert_cmpint(waitpid(holder, &status, 0), ==, holder);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 0);
        close(ready[0]);
        close(h.report_fd);
        itest_teardown(&t);
        g_assert_cmpint(rmdir(dir), ==, 0);
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
        g_test_add_func("/report-limits/memory-cgroup", test_memory_cgroup);
        g_test_add_func("/report-limits/nvtx-heavy", test_nvtx_heavy);
        g_test_add_func("/report-limits/spare-worker", test_spare_worker);
        g_test_add_func("/report-limits/tasks-cgroup", test_tasks_cgroup);
        return g_test_run();
}
