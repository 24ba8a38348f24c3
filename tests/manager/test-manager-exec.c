/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What an exec costs the manager: a batch of process events handled as one (a process that exec'd and
 * exited within the coalescing window is never read), only the facts the loaded rules can test read from
 * /proc (watched with inotify on the fixture), and the same resolution as a full read for every rule of
 * every corpus file. */

#include <dirent.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "fd-util.h"
#include "manager-harness.h"
#include "process-watch.h"
#include "process.h"
#include "strv.h"
#include "test-util.h"

static const char procname_rules[] =
                "{ \"rules\": [ { \"pattern\": \"glxgears\", \"profile\": [ \"GLSharpenValue\", 50 ] },\n"
                "  { \"pattern\": { \"feature\": \"commname\", \"matches\": \"renamed\" },\n"
                "    \"profile\": [ \"GLLogMaxAniso\", 4 ] } ] }\n";

static const char cmdline_dso_rules[] = "{ \"rules\": [\n"
                                        "  { \"pattern\": { \"feature\": \"cmdline\", \"matches\": \"game.exe\" },\n"
                                        "    \"profile\": [ \"GLSharpenValue\", 50 ] },\n"
                                        "  { \"pattern\": { \"feature\": \"dso\", \"matches\": \"libwlroots\" },\n"
                                        "    \"profile\": [ \"GLVidHeapReuseRatio\", 0 ] } ] }\n";

/* An inotify watch on the fixture directory of pid: every file the manager opens there is seen. */
static int watch_pid_dir(ManagerHarness *h, pid_t pid)
{
        g_autofree char *path = g_strdup_printf("%s/%i", proc_fixture_path(h->proc), (int) pid);
        int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

        g_assert_cmpint(fd, >=, 0);
        g_assert_cmpint(inotify_add_watch(fd, path, IN_OPEN), >=, 0);
        return fd;
}

/* The names opened since the last call, as " name name ..." ("." for the directory itself). */
static char *opened(int fd)
{
        _Alignas(struct inotify_event) uint8_t buf[8192];
        GString *s = g_string_new(NULL);
        ssize_t n;

        while ((n = read(fd, buf, sizeof(buf))) > 0)
                for (uint8_t *p = buf; p < buf + n;) {
                        const struct inotify_event *e = (const struct inotify_event *) p;

                        g_string_append_printf(s, " %s", e->len > 0 ? e->name : ".");
                        p += sizeof(*e) + e->len;
                }
        return g_string_free(s, false);
}

/* How many times name was opened. */
static unsigned count_opened(const char *list, const char *name)
{
        g_auto(GStrv) parts = g_strsplit(list, " ", -1);
        unsigned n = 0;

        for (char **p = parts; *p; p++)
                n += streq(*p, name);
        return n;
}

static bool opened_file(const char *list, const char *name)
{
        g_autofree char *needle = g_strdup_printf(" %s", name);
        const char *p = list;

        while ((p = strstr(p, needle))) {
                p += strlen(needle);
                if (*p == ' ' || *p == '\0')
                        return true;
        }
        return false;
}

static void add_process(ManagerHarness *h, pid_t pid, const char *exe, const char *const *argv)
{
        proc_fixture_add(h->proc, &(ProcFixtureProcess){ .pid = pid, .uid = getuid(), .exe = exe, .argv = argv });
}

/* A started manager with procname_rules and process 100 (glxgears, which they match); returns an inotify
 * watch on its fixture directory. */
static int start_with_glxgears(ManagerHarness *h)
{
        manager_harness_init(h);
        manager_harness_write(h, SYSTEM_RC, procname_rules);
        manager_harness_start(h);
        add_process(h, 100, "/usr/bin/glxgears", NULL);
        return watch_pid_dir(h, 100);
}

/* A batch in which a process exec'd and exited: never read, never reported; one that only exec'd is. */
static void test_exec_exit_in_window(void)
{
        ManagerHarness h;
        _cleanup_close_ int ino = -EBADF;
        g_autofree char *files = NULL;
        const ProcEvent gone[] = {
                { PROC_EVENT_TYPE_EXEC, 100 },
                { PROC_EVENT_TYPE_COMM, 100 },
                { PROC_EVENT_TYPE_EXIT, 100 },
        };
        const ProcEvent stays[] = {
                { PROC_EVENT_TYPE_EXEC, 100 },
                { PROC_EVENT_TYPE_COMM, 100 },
                { PROC_EVENT_TYPE_EXEC, 100 },
        };

        /* Its directory is still there (the exit was not reaped yet): reading it would succeed. */
        ino = start_with_glxgears(&h);

        g_assert_cmpint(manager_process_events(h.manager, gone, ELEMENTSOF(gone)), ==, 0);
        files = opened(ino);
        g_assert_cmpstr(files, ==, "");
        g_assert_null(manager_get_process(h.manager, 100));
        g_assert_null(manager_harness_last_event(&h, 100));
        g_assert_cmpuint(h.manager->profiles->n_execs, ==, 1);

        /* Exec, rename, exec again, no exit: read once, and tracked with its result. */
        g_assert_cmpint(manager_process_events(h.manager, stays, ELEMENTSOF(stays)), ==, 0);
        free(files);
        files = opened(ino);
        g_assert_cmpuint(count_opened(files, "stat"), ==, 1);
        g_assert_nonnull(manager_get_process(h.manager, 100));
        g_assert_cmpuint(manager_harness_count_events(&h, HARNESS_EVENT_CHANGED, 100), ==, 1);
        g_assert_cmpuint(h.manager->profiles->n_execs, ==, 3);

        /* An exit, then the pid reused by a new exec within the same batch: the old one goes, the new
         * one is read. */
        {
                const ProcEvent reuse[] = {
                        { PROC_EVENT_TYPE_EXIT, 100 },
                        { PROC_EVENT_TYPE_EXEC, 100 },
                };
                manager_harness_clear_events(&h);
                g_assert_cmpint(manager_process_events(h.manager, reuse, ELEMENTSOF(reuse)), ==, 0);
                g_assert_cmpuint(manager_harness_count_events(&h, HARNESS_EVENT_REMOVED, 100), ==, 1);
                g_assert_cmpuint(manager_harness_count_events(&h, HARNESS_EVENT_CHANGED, 100), ==, 1);
                g_assert_nonnull(manager_get_process(h.manager, 100));
        }

        manager_harness_done(&h);
}

/* The connector's way: an exec is read once it is delay old (by the event's timestamp), so a process that
 * exits before that is never read, even when its exit comes in a later batch than its exec. */
static void test_exec_read_when_due(void)
{
        const uint64_t ms = 1000, delay = 5 * ms;
        ManagerHarness h;
        ExecQueue q = { 0 };
        _cleanup_close_ int ino = -EBADF;
        g_autofree char *files = NULL;

        ino = start_with_glxgears(&h);

        /* Exec at 1 ms, seen at 2 ms: due at 6 ms, not read before. */
        {
                const ProcEvent exec[] = { { PROC_EVENT_TYPE_EXEC, 100, 1 * ms * 1000 } };
                g_assert_cmpint(manager_process_events_delayed(h.manager, &q, exec, 1, 2 * ms, delay), ==, 0);
        }
        g_assert_cmpuint(manager_read_due_execs(h.manager, &q, 2 * ms), ==, 6 * ms);
        g_assert_cmpuint(manager_read_due_execs(h.manager, &q, 6 * ms - 1), ==, 6 * ms);
        files = opened(ino);
        g_assert_cmpstr(files, ==, "");
        g_assert_null(manager_get_process(h.manager, 100));

        /* Its exit, in the next batch: it is never read. */
        {
                const ProcEvent exit[] = { { PROC_EVENT_TYPE_EXIT, 100, 4 * ms * 1000 } };
                g_assert_cmpint(manager_process_events_delayed(h.manager, &q, exit, 1, 5 * ms, delay), ==, 0);
        }
        g_assert_cmpuint(manager_read_due_execs(h.manager, &q, 100 * ms), ==, UINT64_MAX);
        free(files);
        files = opened(ino);
        g_assert_cmpstr(files, ==, "");
        g_assert_null(manager_get_process(h.manager, 100));
        g_assert_null(manager_harness_last_event(&h, 100));
        g_assert_cmpuint(h.manager->profiles->n_execs, ==, 1);

        /* Exec at 10 ms, a rename in a later batch (left to the exec's read), then an exec again at 12 ms:
         * read once, when the last exec is due (17 ms). */
        {
                const ProcEvent exec[] = { { PROC_EVENT_TYPE_EXEC, 100, 10 * ms * 1000 } };
                const ProcEvent comm_exec[] = {
                        { PROC_EVENT_TYPE_COMM, 100, 11 * ms * 1000 },
                        { PROC_EVENT_TYPE_EXEC, 100, 12 * ms * 1000 },
                };
                g_assert_cmpint(manager_process_events_delayed(h.manager, &q, exec, 1, 10 * ms, delay), ==, 0);
                g_assert_cmpint(manager_process_events_delayed(h.manager, &q, comm_exec, 1, 11 * ms, delay), ==, 0);
                free(files);
                files = opened(ino);
                g_assert_cmpstr(files, ==, "");
                g_assert_cmpint(manager_process_events_delayed(h.manager, &q, comm_exec + 1, 1, 13 * ms, delay), ==, 0);
        }
        g_assert_cmpuint(manager_read_due_execs(h.manager, &q, 16 * ms), ==, 17 * ms);
        free(files);
        files = opened(ino);
        g_assert_cmpstr(files, ==, "");
        g_assert_cmpuint(manager_read_due_execs(h.manager, &q, 17 * ms), ==, UINT64_MAX);
        free(files);
        files = opened(ino);
        g_assert_cmpuint(count_opened(files, "stat"), ==, 1);
        g_assert_nonnull(manager_get_process(h.manager, 100));
        g_assert_cmpuint(manager_harness_count_events(&h, HARNESS_EVENT_CHANGED, 100), ==, 1);
        g_assert_cmpuint(manager_get_process(h.manager, 100)->n_settings, ==, 1);

        /* An exec already older than the delay when it arrives is read at once. */
        {
                const ProcEvent exec[] = { { PROC_EVENT_TYPE_EXEC, 100, 20 * ms * 1000 } };
                manager_harness_clear_events(&h);
                g_assert_cmpint(manager_process_events_delayed(h.manager, &q, exec, 1, 30 * ms, delay), ==, 0);
                free(files);
                files = opened(ino);
                g_assert_cmpuint(count_opened(files, "stat"), ==, 1);
                g_assert_cmpuint(manager_harness_count_events(&h, HARNESS_EVENT_CHANGED, 100), ==, 1);
        }
        g_assert_cmpuint(manager_read_due_execs(h.manager, &q, 100 * ms), ==, UINT64_MAX);

        exec_queue_done(&q);
        manager_harness_done(&h);
}

/* The rule that ties an event to a process (manager_event_may_describe()): an exec, a rename or an exit is
 * never applied to a process that started after it (the pid was reused since), and is applied from the
 * tick the process started on. */
static void test_event_predates_process(void)
{
        ManagerHarness h;
        ExecQueue q = { 0 };
        _cleanup_close_ int ino = -EBADF;
        g_autofree char *files = NULL;
        uint64_t tick;

        manager_harness_init(&h);
        manager_harness_write(&h, SYSTEM_RC, procname_rules);
        manager_harness_start(&h);
        /* Events and start times on one clock. */
        h.manager->profiles->event_clock_offset_ns = 0;
        tick = h.manager->profiles->nsec_per_tick;
        proc_fixture_add(h.proc,
                        &(ProcFixtureProcess){
                                        .pid = 100, .start_time = 5000, .uid = getuid(), .exe = "/usr/bin/glxgears" });
        ino = watch_pid_dir(&h, 100);

        /* An exec a nanosecond before it started: another process's. Nothing read beyond its start time,
         * nothing tracked; the same when the exec waited in the connector's queue first. */
        {
                const ProcEvent exec[] = { { PROC_EVENT_TYPE_EXEC, 100, 5000 * tick - 1 } };
                g_assert_cmpint(manager_process_events(h.manager, exec, 1), ==, 0);
                g_assert_cmpint(manager_process_events_delayed(h.manager, &q, exec, 1, 0, 1000), ==, 0);
                g_assert_cmpuint(manager_read_due_execs(h.manager, &q, UINT64_MAX - 1), ==, UINT64_MAX);
        }
        files = opened(ino);
        g_assert_cmpuint(count_opened(files, "stat"), >=, 1); /* inotify merges repeated opens */
        g_assert_false(opened_file(files, "status"));
        g_assert_false(opened_file(files, "cmdline"));
        g_assert_null(manager_get_process(h.manager, 100));
        g_assert_null(manager_harness_last_event(&h, 100));

        /* At the tick it started: its own. */
        {
                const ProcEvent exec[] = { { PROC_EVENT_TYPE_EXEC, 100, 5000 * tick } };
                g_assert_cmpint(manager_process_events(h.manager, exec, 1), ==, 0);
        }
        g_assert_nonnull(manager_get_process(h.manager, 100));
        g_assert_cmpuint(manager_get_process(h.manager, 100)->id.start_time, ==, 5000);
        g_assert_cmpuint(manager_harness_count_events(&h, HARNESS_EVENT_CHANGED, 100), ==, 1);

        /* Its pid reused by a process that started at 6000 ticks, which a scan finds. */
        proc_fixture_add(h.proc,
                        &(ProcFixtureProcess){
                                        .pid = 100, .start_time = 6000, .uid = getuid(), .exe = "/usr/bin/glxgears" });
        g_assert_cmpint(manager_rescan(h.manager), ==, 0);
        g_assert_cmpuint(manager_get_process(h.manager, 100)->id.start_time, ==, 6000);
        manager_harness_clear_events(&h);
        ino = safe_close(ino);
        ino = watch_pid_dir(&h, 100);

        /* The earlier holder's rename and exit (at 5500 ticks) neither re-read nor remove it. */
        {
                const ProcEvent earlier[] = {
                        { PROC_EVENT_TYPE_COMM, 100, 5500 * tick },
                        { PROC_EVENT_TYPE_EXIT, 100, 5500 * tick },
                };
                g_assert_cmpint(manager_process_events(h.manager, earlier, 1), ==, 0);
                free(files);
                files = opened(ino);
                g_assert_cmpstr(files, ==, "");
                g_assert_cmpint(manager_process_events(h.manager, earlier + 1, 1), ==, 0);
        }
        g_assert_nonnull(manager_get_process(h.manager, 100));
        g_assert_null(manager_harness_last_event(&h, 100));

        /* Its own rename is re-read, its own exit removes it. */
        proc_fixture_set_comm(h.proc, 100, "renamed");
        {
                const ProcEvent comm[] = { { PROC_EVENT_TYPE_COMM, 100, 6000 * tick } };
                g_assert_cmpint(manager_process_events(h.manager, comm, 1), ==, 0);
        }
        g_assert_cmpstr(manager_get_process(h.manager, 100)->comm, ==, "renamed");
        {
                const ProcEvent exit[] = { { PROC_EVENT_TYPE_EXIT, 100, 6001 * tick } };
                g_assert_cmpint(manager_process_events(h.manager, exit, 1), ==, 0);
        }
        g_assert_null(manager_get_process(h.manager, 100));
        g_assert_cmpuint(manager_harness_count_events(&h, HARNESS_EVENT_REMOVED, 100), ==, 1);

        exec_queue_done(&q);
        manager_harness_done(&h);
}

/* A process that has exited but is not reaped yet (a zombie) is not tracked, as before, and nothing of
 * it is read beyond its stat. */
static void test_zombie_not_read(void)
{
        ManagerHarness h;
        _cleanup_close_ int ino = -EBADF;
        g_autofree char *files = NULL, *stat = NULL;

        ino = start_with_glxgears(&h);
        stat = g_strdup_printf("100 (glxgears) Z 1 100 100 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 100000 0 0 "
                               "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n");
        test_write_file(proc_fixture_path(h.proc), "100/stat", stat);

        g_assert_cmpint(manager_process_exec(h.manager, 100), ==, 0);
        files = opened(ino);
        g_assert_cmpuint(count_opened(files, "stat"), ==, 1);
        g_assert_false(opened_file(files, "status"));
        g_assert_false(opened_file(files, "environ"));
        g_assert_false(opened_file(files, "cmdline"));
        g_assert_null(manager_get_process(h.manager, 100));
        g_assert_null(manager_harness_last_event(&h, 100));
        manager_harness_done(&h);
}

static bool settled(ManagerHarness *h, void *userdata)
{
        const pid_t *pids = userdata;

        for (const pid_t *pid = pids; *pid; pid++) {
                const Process *p = manager_get_process(h->manager, *pid);
                g_autofree char *s = p ? manager_harness_settings(p) : NULL;

                if (!s || !streq(s, "GLVidHeapReuseRatio=0") || p->settling)
                        return false;
        }
        return true;
}

/* The settle re-reads of many processes run off one timer: each is re-read at its steps (here the
 * library is mapped only after exec, so only a re-read finds it), one that exits while it waits leaves
 * the queue, and once every step has passed none waits. */
static void test_settle_shared_timer(void)
{
        static const char *const only_exe[] = { "/usr/bin/sway", NULL };
        static const char *const with_wlroots[] = { "/usr/bin/sway", "/usr/lib/libwlroots-0.18.so", NULL };
        const pid_t survivors[] = { 101, 103, 104, 0 };
        ManagerHarness h;

        manager_harness_init(&h);
        h.config.settle_usec = 300 * 1000; /* steps at 100 ms and at the window's end */
        manager_harness_write(&h, SYSTEM_RC, cmdline_dso_rules);
        manager_harness_start(&h);

        for (pid_t pid = 101; pid <= 104; pid++) {
                proc_fixture_add(h.proc,
                                &(ProcFixtureProcess){ .pid = pid,
                                                .uid = getuid(),
                                                .exe = "/usr/bin/sway",
                                                .maps = only_exe });
                g_assert_cmpint(manager_process_exec(h.manager, pid), ==, 0);
                g_assert_true(manager_get_process(h.manager, pid)->settling);
                g_assert_cmpuint(manager_get_process(h.manager, pid)->n_settings, ==, 0);
        }
        /* The first in the queue and one in its middle leave it. */
        manager_process_exit(h.manager, 102);
        g_assert_null(manager_get_process(h.manager, 102));

        for (pid_t pid = 101; pid <= 104; pid++)
                if (pid != 102)
                        proc_fixture_set_maps(h.proc, pid, with_wlroots);
        g_assert_true(manager_harness_run_until(&h, settled, (void *) survivors, 5 * 1000 * 1000));
        for (const pid_t *pid = survivors; *pid; pid++)
                g_assert_cmpuint(manager_get_process(h.manager, *pid)->settle_step, ==, 2);

        /* Freed while waiting: a new one, then the manager ends with it queued. */
        proc_fixture_add(h.proc,
                        &(ProcFixtureProcess){ .pid = 105, .uid = getuid(), .exe = "/usr/bin/sway", .maps = only_exe });
        g_assert_cmpint(manager_process_exec(h.manager, 105), ==, 0);
        g_assert_true(manager_get_process(h.manager, 105)->settling);
        manager_harness_done(&h);
}

/* The facts a configuration's rules can test. */
static void test_needed_facts(void)
{
        ManagerHarness h;

        manager_harness_init(&h);
        manager_harness_start(&h);
        /* No rule at all: nothing beyond what every process needs. */
        g_assert_cmpint(process_facts_needed(h.manager->profiles->system_config, true), ==, 0);
        manager_harness_done(&h);

        manager_harness_init(&h);
        manager_harness_write(&h, SYSTEM_RC, procname_rules);
        manager_harness_start(&h);
        /* procname needs exe, commname comm from stat: both read anyway. */
        g_assert_cmpint(process_facts_needed(h.manager->profiles->system_config, true), ==, 0);
        manager_harness_done(&h);

        manager_harness_init(&h);
        manager_harness_write(&h, SYSTEM_RC, cmdline_dso_rules);
        manager_harness_start(&h);
        g_assert_cmpint(process_facts_needed(h.manager->profiles->system_config, true), ==,
                        PROC_FACTS_CMDLINE | PROC_FACTS_MAPS);
        g_assert_cmpint(process_facts_needed(h.manager->profiles->system_config, false), ==, PROC_FACTS_CMDLINE);

        /* A reload that drops the rules drops the needs with them. */
        manager_harness_write(&h, SYSTEM_RC, "{ \"rules\": [] }");
        g_assert_cmpint(manager_reload(h.manager), ==, 0);
        g_assert_cmpint(process_facts_needed(h.manager->profiles->system_config, true), ==, 0);
        manager_harness_done(&h);
}

/* What an exec reads from /proc with procname rules only, and with cmdline and dso rules. */
static void test_reads_only_what_rules_use(void)
{
        static const char *const argv[] = { "C:\\Games\\game.exe", NULL };
        ManagerHarness h;
        _cleanup_close_ int ino = -EBADF;
        g_autofree char *files = NULL;

        ino = start_with_glxgears(&h);
        g_assert_cmpint(manager_process_exec(h.manager, 100), ==, 0);
        files = opened(ino);
        g_assert_true(opened_file(files, "stat"));
        g_assert_true(opened_file(files, "status"));
        g_assert_true(opened_file(files, "environ"));
        g_assert_false(opened_file(files, "cmdline"));
        g_assert_false(opened_file(files, "maps"));
        g_assert_false(opened_file(files, "comm"));
        /* stat once: the held directory proves the identity. */
        g_assert_cmpuint(count_opened(files, "stat"), ==, 1);
        g_assert_cmpstr(manager_get_process(h.manager, 100)->comm, ==, "glxgears");
        g_assert_cmpuint(manager_get_process(h.manager, 100)->n_settings, ==, 1);

        /* commname from stat's copy of comm. */
        proc_fixture_set_comm(h.proc, 100, "renamed");
        g_assert_cmpint(manager_process_comm(h.manager, 100), ==, 0);
        free(files);
        files = opened(ino);
        g_assert_false(opened_file(files, "comm"));
        g_assert_cmpuint(manager_get_process(h.manager, 100)->n_settings, ==, 2);
        manager_harness_done(&h);
        ino = safe_close(ino);

        /* cmdline and dso rules: cmdline read, maps too when no settle re-read will look at them. */
        manager_harness_init(&h);
        manager_harness_write(&h, SYSTEM_RC, cmdline_dso_rules);
        manager_harness_start(&h);
        add_process(&h, 100, "/usr/bin/wine", argv);
        ino = watch_pid_dir(&h, 100);
        g_assert_cmpint(manager_process_exec(h.manager, 100), ==, 0);
        free(files);
        files = opened(ino);
        g_assert_true(opened_file(files, "cmdline"));
        g_assert_true(opened_file(files, "maps"));
        g_assert_cmpuint(manager_get_process(h.manager, 100)->n_settings, ==, 1);
        manager_harness_done(&h);
        ino = safe_close(ino);

        /* With settle re-reads, maps wait for them. */
        manager_harness_init(&h);
        h.config.settle_usec = 60 * 1000 * 1000;
        manager_harness_write(&h, SYSTEM_RC, cmdline_dso_rules);
        manager_harness_start(&h);
        add_process(&h, 100, "/usr/bin/wine", argv);
        ino = watch_pid_dir(&h, 100);
        g_assert_cmpint(manager_process_exec(h.manager, 100), ==, 0);
        free(files);
        files = opened(ino);
        g_assert_true(opened_file(files, "cmdline"));
        g_assert_false(opened_file(files, "maps"));
        g_assert_cmpuint(manager_get_process(h.manager, 100)->n_settings, ==, 1);
        manager_harness_done(&h);
}

/* Every "matches" string of a feature, collected from a pattern tree. */
static void collect(const RcPattern *p, GPtrArray *out)
{
        if (p->kind == RC_PATTERN_MATCH) {
                if (p->matches && !strchr(p->matches, '/') && !strchr(p->matches, '\n') && *p->matches)
                        g_ptr_array_add(out, g_strdup_printf("%i:%s", (int) p->feature, p->matches));
                return;
        }
        for (size_t i = 0; i < p->n_sub; i++)
                collect(&p->sub[i], out);
}

/* Rule outcomes and settings of a resolution, as text. */
static char *describe(const RcResolution *r, const Process *p)
{
        GString *s = g_string_new(NULL);
        g_autofree char *settings = NULL;

        g_string_append_printf(s, "state %i matched %zu:", (int) r->state, r->n_matched);
        for (size_t i = 0; i < r->n_rules; i++)
                g_string_append_c(s, r->rules[i].matched ? '1' : '0');
        if (p) {
                settings = manager_harness_settings(p);
                g_string_append_printf(s, " [%s]", settings);
        }
        return g_string_free(s, false);
}

/* For every corpus file: one process per name its rules test (as executable, command line, mapped
 * library and command name), resolved on exec with the reading limited to what the rules need, and
 * with everything read as before: the same rules match, with the same settings. */
static void test_corpus_resolution_identical(void)
{
        g_autofree char *dir = test_corpus_path("appprofiles");
        g_autoptr(GDir) d = NULL;
        const char *name;
        unsigned n_files = 0, n_processes = 0;

        if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
                g_assert_cmpstr(g_getenv("NVPROFILED_CORPUS_REQUIRED"), !=, "1");
                g_test_skip("no corpus (NVPROFILED_CORPUS)");
                return;
        }
        d = g_dir_open(dir, 0, NULL);
        g_assert_nonnull(d);
        while ((name = g_dir_read_name(d))) {
                g_autofree char *path = g_build_filename(dir, name, NULL);
                g_autofree char *text = NULL;
                g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
                _cleanup_close_ int proc_fd = -EBADF;
                ManagerHarness h;
                pid_t pid = 1000;

                if (g_str_has_suffix(name, ".md"))
                        continue;
                g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
                manager_harness_init(&h);
                manager_harness_write(&h, SYSTEM_RC, text);
                manager_harness_start(&h);
                for (size_t i = 0; i < h.manager->profiles->system_config->n_rules; i++)
                        collect(&h.manager->profiles->system_config->rules[i].rule->pattern, names);
                g_ptr_array_add(names, g_strdup("1:nothing-matches-this"));
                proc_fd = test_open_dir(proc_fixture_path(h.proc));

                for (size_t i = 0; i < names->len; i++, pid++) {
                        const char *v = strchr(g_ptr_array_index(names, i), ':') + 1;
                        g_autofree char *exe = g_strdup_printf("/usr/bin/%s", v);
                        g_autofree char *arg0 = g_strdup_printf("/opt/x/%s", v);
                        g_autofree char *lib = g_strdup_printf("/usr/lib/%s.so.1", v);
                        g_autofree char *comm = g_strndup(v, 15);
                        const char *argv[] = { arg0, "--flag", NULL };
                        const char *maps[] = { exe, lib, NULL };
                        const char *env[] = { "__GL_SHARPEN_VALUE=3", NULL };
                        _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
                        g_autofree char *lazy = NULL, *full = NULL;
                        RcResolution *res = NULL;
                        const Process *p;

                        proc_fixture_add(h.proc,
                                        &(ProcFixtureProcess){ .pid = pid,
                                                        .uid = getuid(),
                                                        .exe = exe,
                                                        .comm = comm,
                                                        .argv = argv,
                                                        .maps = maps,
                                                        .environ = env });
                        g_assert_cmpint(manager_process_exec(h.manager, pid), ==, 0);
                        p = manager_get_process(h.manager, pid);
                        g_assert_nonnull(p);
                        lazy = describe(p->resolution, p);

                        /* Everything read, as before. */
                        g_assert_cmpint(proc_facts_read(proc_fd, pid, NULL,
                                                        PROC_FACTS_MAPS | PROC_FACTS_ENVIRON | PROC_FACTS_ROOT,
                                                        &h.manager->config.proc_limits, &f),
                                        ==, 0);
                        g_assert_cmpint(process_resolve(h.manager, &f, &res), ==, 0);
                        full = describe(res, NULL);
                        g_assert_true(g_str_has_prefix(lazy, full));
                        g_assert_cmpstr(p->comm, ==, f.comm);
                        g_assert_cmpstr(p->exe, ==, f.exe);
                        g_assert_cmpuint(p->uid, ==, f.uid);
                        g_assert_cmpuint(p->n_settings, ==, rc_resolution_is_effective(res) ? res->n_settings : 0);
                        rc_resolution_free(res);
                        n_processes++;
                }
                manager_harness_done(&h);
                n_files++;
        }
        g_assert_cmpuint(n_files, >=, 16);
        g_test_message("%u corpus files, %u processes resolved both ways", n_files, n_processes);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/manager/exec/exec-exit-in-window", test_exec_exit_in_window);
        g_test_add_func("/manager/exec/read-when-due", test_exec_read_when_due);
        g_test_add_func("/manager/exec/zombie-not-read", test_zombie_not_read);
        g_test_add_func("/manager/exec/event-predates-process", test_event_predates_process);
        g_test_add_func("/manager/exec/settle-shared-timer", test_settle_shared_timer);
        g_test_add_func("/manager/exec/needed-facts", test_needed_facts);
        g_test_add_func("/manager/exec/reads-only-what-rules-use", test_reads_only_what_rules_use);
        g_test_add_func("/manager/exec/corpus-resolution-identical", test_corpus_resolution_identical);
        return g_test_run();
}
