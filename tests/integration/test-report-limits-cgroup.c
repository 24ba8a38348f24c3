/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reports through the real daemon, what their workers and callers may cost in cgroups like the unit's
 * (issue 17 item 7, issue 20): a user's worst case (hundreds of exports held, a zstd string-table bomb,
 * more reports than allowed) in a memory cgroup is refused with LimitsExceeded and never reaches the
 * cgroup's limit; a match that takes seconds (NVTX-heavy) runs in the caller's own worker while the daemon
 * answers everyone else; a tasks limit refuses more workers cleanly. */

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
                int fd = itest_report_export_json(bus, path, &error);
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
        itest_report_start_daemon(&t, NULL, "[Reports]\nMemoryMax=64M\nMemoryPerUserMax=48M\nWorkerMemoryMax=40M");
        memory_cgroup_enter(&cg, t.daemon_pid);
        itest_create_user("nvptest-rl-", &user);

        report_build_string_bomb(&bomb, 4096, 256 * 1024);
        a = (Attack){ .bus_address = t.bus_address,
                .report_fd = itest_open_corpus(SOBEL),
                .bomb_fd = itest_report_memfd_with(bomb.data, bomb.size),
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
        itest_report_wait_children(t.daemon_pid, 0);

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
                                sd_bus_call_async(bus, &slots[i], m, itest_report_on_async_reply, &replies[i], 0) < 0)
                        return 12;
                sd_bus_message_unref(m);
        }
        if (sd_bus_flush(bus) < 0 || write(a->sent_fd, "s", 1) != 1)
                return 13;
        for (int i = 0; i < 6; i++) {
                itest_report_process_until(bus, &replies[i].done);
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
        itest_report_start_daemon(&t, NULL, "[Reports]\nTimeoutSec=3s");
        itest_create_user("nvptest-rl-", &user);
        report_build_nvtx_heavy(&heavy, 100, 4500);
        g_test_message("report: %zu bytes", heavy.size);
        g_assert_cmpint(pipe2(sent, O_CLOEXEC), ==, 0);
        g_assert_cmpint(pipe2(done, O_CLOEXEC | O_NONBLOCK), ==, 0);
        a = (NvtxAttack){ .bus_address = t.bus_address,
                .report_fd = itest_report_memfd_with(heavy.data, heavy.size),
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
        itest_report_wait_children(t.daemon_pid, 0);
        close(a.report_fd);
        close(sent[0]);
        close(done[0]);
        report_buffer_done(&heavy);
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
        itest_report_wait_children(t.daemon_pid, held + 2);

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
        g_test_add_func("/report-limits/memory-cgroup", test_memory_cgroup);
        g_test_add_func("/report-limits/nvtx-heavy", test_nvtx_heavy);
        g_test_add_func("/report-limits/tasks-cgroup", test_tasks_cgroup);
        return g_test_run();
}
