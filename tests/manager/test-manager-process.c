/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager's process table driven through its handlers over a fixture /proc: exec, comm change,
 * exit, the rescan that follows lost events, MaxProcesses=, the post-exec settle re-reads, the polling
 * timer that stands in for the proc connector when --proc is not the live /proc, Explain, and the
 * re-evaluation of a process that opens a GPU device node; and what other jobs are told through the process
 * observers. */

#include <fcntl.h>
#include <unistd.h>

#include "fd-util.h"
#include "manager-harness.h"
#include "process-observers.h"
#include "process-watch.h"
#include "strv.h"
#include "test-util.h"

#define TIMEOUT_USEC (5 * 1000 * 1000)

static const char rules[] = "{\n"
                            "    \"rules\": [\n"
                            "        { \"pattern\": \"glxgears\", \"profile\": [ \"GLSharpenValue\", 50 ] },\n"
                            "        { \"pattern\": { \"feature\": \"commname\", \"matches\": \"renamed\" },\n"
                            "          \"profile\": [ \"GLLogMaxAniso\", 4 ] },\n"
                            "        { \"pattern\": { \"feature\": \"dso\", \"matches\": \"libwlroots\" },\n"
                            "          \"profile\": [ \"GLVidHeapReuseRatio\", 0 ] }\n"
                            "    ]\n"
                            "}\n";

static void harness_start_with_rules(ManagerHarness *h)
{
        manager_harness_write(h, SYSTEM_RC, rules);
        manager_harness_start(h);
}

static void add_process(ManagerHarness *h, pid_t pid, uint64_t start_time, const char *exe)
{
        proc_fixture_add(h->proc,
                        &(ProcFixtureProcess){
                                        .pid = pid,
                                        .start_time = start_time,
                                        .uid = getuid(),
                                        .exe = exe,
                        });
}

static void assert_event(const HarnessEvent *e, HarnessEventType type, pid_t pid, const char *settings)
{
        g_assert_nonnull(e);
        g_assert_cmpint(e->type, ==, type);
        g_assert_cmpint(e->pid, ==, pid);
        g_assert_cmpstr(e->settings, ==, settings);
}

static void assert_settings(ManagerHarness *h, pid_t pid, const char *expected)
{
        g_autofree char *s = manager_harness_process_settings(h, pid);

        g_assert_cmpstr(s, ==, expected);
}

/* The fixture itself, read the way the manager reads /proc: what later tests build on. */
static void test_fixture(void)
{
        g_autoptr(ProcFixture) fixture = proc_fixture_new();
        _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
        _cleanup_close_ int proc_fd = -EBADF;
        const char *const argv[] = { "C:\\Games\\game.exe", "--fullscreen", NULL };
        const char *const env[] = { "PATH=/bin", "HOME=/home/gamer", "__GL_SYNC_TO_VBLANK=0", NULL };
        const char *const maps[] = { "/usr/bin/wine64-preloader",
                "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 [heap]", "/usr/lib/libGL.so.1.7.0", NULL };
        ProcIdentity id;

        proc_fixture_add(fixture,
                        &(ProcFixtureProcess){
                                        .pid = 321,
                                        .start_time = 5555,
                                        .ppid = 17,
                                        .uid = 1000,
                                        .exe = "/usr/bin/wine64-preloader",
                                        .comm = "a very long program name",
                                        .argv = argv,
                                        .environ = env,
                                        .maps = maps,
                        });
        proc_fd = test_open_dir(proc_fixture_path(fixture));
        g_assert_true(proc_fixture_has(fixture, 321));

        g_assert_cmpint(proc_facts_read(proc_fd, 321, NULL, PROC_FACTS_MAPS | PROC_FACTS_ENVIRON | PROC_FACTS_ROOT,
                                        NULL, &f),
                        ==, 0);
        g_assert_cmpint(f.id.pid, ==, 321);
        g_assert_cmpuint(f.id.start_time, ==, 5555);
        g_assert_cmpint(f.ppid, ==, 17);
        g_assert_cmpuint(f.uid, ==, 1000);
        g_assert_cmpstr(f.exe, ==, "/usr/bin/wine64-preloader");
        g_assert_cmpstr(f.comm, ==, "a very long pro"); /* 15 bytes, as the kernel keeps */
        g_assert_cmpuint(strv_length(f.argv), ==, 2);
        g_assert_cmpstr(f.argv[0], ==, argv[0]);
        g_assert_cmpstr(strv_env_get(f.env, "HOME"), ==, "/home/gamer");
        g_assert_cmpstr(strv_env_get(f.env, "__GL_SYNC_TO_VBLANK"), ==, "0");
        g_assert_cmpuint(strv_length(f.dsos), ==, 2);
        g_assert_cmpstr(f.dsos[1], ==, "/usr/lib/libGL.so.1.7.0");
        g_assert_cmpint(f.root_fd, >=, 0);
        proc_facts_done(&f);

        /* A comm change shows in comm, and the identity stays. */
        proc_fixture_set_comm(fixture, 321, "renamed");
        g_assert_cmpint(proc_facts_read(proc_fd, 321, &(ProcIdentity){ 321, 5555 }, 0, NULL, &f), ==, 0);
        g_assert_cmpstr(f.comm, ==, "renamed");
        proc_facts_done(&f);

        /* Defaults: start time from the pid, comm from exe, argv { exe }. */
        proc_fixture_add(fixture, &(ProcFixtureProcess){ .pid = 322, .exe = "/usr/bin/true" });
        g_assert_cmpint(proc_facts_read(proc_fd, 322, NULL, 0, NULL, &f), ==, 0);
        g_assert_cmpuint(f.id.start_time, ==, 322000);
        g_assert_cmpstr(f.comm, ==, "true");
        g_assert_cmpstr(f.argv[0], ==, "/usr/bin/true");
        g_assert_null(f.argv[1]);
        proc_facts_done(&f);

        /* Gone is gone. */
        proc_fixture_remove(fixture, 321);
        g_assert_false(proc_fixture_has(fixture, 321));
        g_assert_cmpint(proc_identity_read(proc_fd, 321, &id), ==, -ESRCH);
}

static void test_exec(void)
{
        ManagerHarness h;
        const Process *p;

        manager_harness_init(&h);
        harness_start_with_rules(&h);
        g_assert_cmpuint(manager_harness_n_tracked(&h), ==, 0);

        /* A matching program: tracked with its identity, resolved, and reported with the result. */
        add_process(&h, 100, 4242, "/usr/bin/glxgears");
        g_assert_cmpint(manager_process_exec(h.manager, 100), ==, 0);
        p = manager_get_process(h.manager, 100);
        g_assert_nonnull(p);
        g_assert_cmpuint(p->id.start_time, ==, 4242);
        g_assert_cmpuint(p->uid, ==, getuid());
        g_assert_cmpstr(p->exe, ==, "/usr/bin/glxgears");
        g_assert_cmpstr(p->comm, ==, "glxgears");
        g_assert_null(p->home);
        g_assert_cmpuint(p->n_settings, ==, 1);
        g_assert_nonnull(p->profiles);
        g_assert_null(p->profiles[1]);
        g_assert_cmpuint(h.manager->profiles->n_matched, ==, 1);
        g_assert_cmpuint(h.events->len, ==, 1);
        assert_event(g_ptr_array_index(h.events, 0), HARNESS_EVENT_CHANGED, 100, "GLSharpenValue=50");
        g_assert_cmpuint(((const HarnessEvent *) g_ptr_array_index(h.events, 0))->start_time, ==, 4242);

        /* A program no rule names is tracked too, with an empty result; it is not counted as matched. */
        add_process(&h, 101, 0, "/usr/bin/true");
        g_assert_cmpint(manager_process_exec(h.manager, 101), ==, 0);
        g_assert_nonnull(manager_get_process(h.manager, 101));
        assert_event(manager_harness_last_event(&h, 101), HARNESS_EVENT_CHANGED, 101, "");
        g_assert_null(manager_get_process(h.manager, 101)->profiles);
        g_assert_cmpuint(h.manager->profiles->n_matched, ==, 1);

        /* Gone before we looked: nothing to track, nothing to say. */
        g_assert_cmpint(manager_process_exec(h.manager, 102), ==, 0);
        g_assert_null(manager_get_process(h.manager, 102));
        g_assert_null(manager_harness_last_event(&h, 102));

        /* A kernel thread (no executable, no command line) is not tracked. */
        proc_fixture_add(h.proc, &(ProcFixtureProcess){ .pid = 103, .uid = 0, .comm = "kworker/0:1" });
        g_assert_cmpint(manager_process_exec(h.manager, 103), ==, 0);
        g_assert_null(manager_get_process(h.manager, 103));

        /* The same process executing another program: the old one is reported gone, the new one
         * resolved afresh. */
        manager_harness_clear_events(&h);
        add_process(&h, 101, 0, "/usr/bin/glxgears");
        g_assert_cmpint(manager_process_exec(h.manager, 101), ==, 0);
        g_assert_cmpuint(h.events->len, ==, 2);
        assert_event(g_ptr_array_index(h.events, 0), HARNESS_EVENT_REMOVED, 101, "");
        assert_event(g_ptr_array_index(h.events, 1), HARNESS_EVENT_CHANGED, 101, "GLSharpenValue=50");
        g_assert_cmpstr(manager_get_process(h.manager, 101)->exe, ==, "/usr/bin/glxgears");
        g_assert_cmpuint(h.manager->profiles->n_matched, ==, 2);
        g_assert_cmpuint(h.manager->profiles->n_execs, ==, 5);

        manager_harness_done(&h);
}

static void test_comm(void)
{
        ManagerHarness h;
        size_t n_changed;

        manager_harness_init(&h);
        harness_start_with_rules(&h);

        add_process(&h, 200, 0, "/usr/bin/demo");
        g_assert_cmpint(manager_process_exec(h.manager, 200), ==, 0);
        assert_settings(&h, 200, "");
        g_assert_cmpuint(h.manager->profiles->n_matched, ==, 0);

        /* The program renames itself: the commname rule matches now. */
        proc_fixture_set_comm(h.proc, 200, "renamed");
        g_assert_cmpint(manager_process_comm(h.manager, 200), ==, 0);
        assert_event(manager_harness_last_event(&h, 200), HARNESS_EVENT_CHANGED, 200, "GLLogMaxAniso=4");
        g_assert_cmpstr(manager_harness_last_event(&h, 200)->comm, ==, "renamed");
        g_assert_cmpstr(manager_get_process(h.manager, 200)->comm, ==, "renamed");
        g_assert_cmpuint(h.manager->profiles->n_matched, ==, 1);

        /* A COMM event that changes nothing the result depends on is not reported. */
        n_changed = manager_harness_count_events(&h, HARNESS_EVENT_CHANGED, 200);
        g_assert_cmpint(manager_process_comm(h.manager, 200), ==, 0);
        g_assert_cmpuint(manager_harness_count_events(&h, HARNESS_EVENT_CHANGED, 200), ==, n_changed);

        /* Renamed back: the rule no longer matches. */
        proc_fixture_set_comm(h.proc, 200, "demo");
        g_assert_cmpint(manager_process_comm(h.manager, 200), ==, 0);
        assert_event(manager_harness_last_event(&h, 200), HARNESS_EVENT_CHANGED, 200, "");
        g_assert_cmpuint(h.manager->profiles->n_matched, ==, 0);

        /* A COMM event for a process whose EXEC we missed starts tracking it. */
        proc_fixture_add(h.proc,
                        &(ProcFixtureProcess){
                                        .pid = 201,
                                        .uid = getuid(),
                                        .exe = "/usr/bin/demo",
                                        .comm = "renamed",
                        });
        g_assert_cmpint(manager_process_comm(h.manager, 201), ==, 0);
        assert_settings(&h, 201, "GLLogMaxAniso=4");

        /* A COMM event for a process that is gone drops it. */
        proc_fixture_remove(h.proc, 201);
        g_assert_cmpint(manager_process_comm(h.manager, 201), ==, 0);
        g_assert_null(manager_get_process(h.manager, 201));
        assert_event(manager_harness_last_event(&h, 201), HARNESS_EVENT_REMOVED, 201, "GLLogMaxAniso=4");

        /* ...and so does one for a pid that now belongs to another process: the old identity is never
         * kept for it. */
        add_process(&h, 200, 999999, "/usr/bin/demo");
        g_assert_cmpint(manager_process_comm(h.manager, 200), ==, 0);
        g_assert_true(manager_get_process(h.manager, 200) == NULL ||
                        manager_get_process(h.manager, 200)->id.start_time == 999999);
        g_assert_cmpuint(manager_harness_count_events(&h, HARNESS_EVENT_REMOVED, 200), ==, 1);

        manager_harness_done(&h);
}

static void test_exit(void)
{
        ManagerHarness h;

        manager_harness_init(&h);
        harness_start_with_rules(&h);

        add_process(&h, 300, 0, "/usr/bin/glxgears");
        add_process(&h, 301, 0, "/usr/bin/true");
        g_assert_cmpint(manager_process_exec(h.manager, 300), ==, 0);
        g_assert_cmpint(manager_process_exec(h.manager, 301), ==, 0);
        g_assert_cmpuint(h.manager->profiles->n_matched, ==, 1);
        manager_harness_clear_events(&h);

        /* The removed callback sees the process as it was, then it is gone. */
        proc_fixture_remove(h.proc, 300);
        manager_process_exit(h.manager, 300);
        g_assert_null(manager_get_process(h.manager, 300));
        g_assert_cmpuint(h.events->len, ==, 1);
        assert_event(g_ptr_array_index(h.events, 0), HARNESS_EVENT_REMOVED, 300, "GLSharpenValue=50");
        g_assert_cmpuint(h.manager->profiles->n_matched, ==, 0);
        g_assert_cmpuint(manager_harness_n_tracked(&h), ==, 1);

        /* A second EXIT, or one for a pid never tracked, says nothing. */
        manager_process_exit(h.manager, 300);
        manager_process_exit(h.manager, 12345);
        g_assert_cmpuint(h.events->len, ==, 1);

        /* EXIT is taken as given, even if /proc still lists the pid (a zombie not yet reaped). */
        manager_process_exit(h.manager, 301);
        g_assert_null(manager_get_process(h.manager, 301));
        assert_event(manager_harness_last_event(&h, 301), HARNESS_EVENT_REMOVED, 301, "");
        g_assert_cmpuint(manager_harness_n_tracked(&h), ==, 0);

        manager_harness_done(&h);
}

/* What an observer of process tracking (another job) was told, in order: "exec:PID", "exit:PID", ... */
typedef struct ObserverLog {
        GPtrArray *calls;
        unsigned event_types;
} ObserverLog;

static void on_observed_exec(Manager *m, pid_t pid, void *userdata)
{
        ObserverLog *l = userdata;

        /* Told once the process is tracked. */
        g_assert_nonnull(manager_get_process(m, pid));
        g_ptr_array_add(l->calls, g_strdup_printf("exec:%i", (int) pid));
}

static void on_observed_exit(Manager *m, pid_t pid, uint64_t event_ns, void *userdata)
{
        ObserverLog *l = userdata;

        g_ptr_array_add(l->calls,
                        g_strdup_printf("exit:%i:%s", (int) pid,
                                        manager_get_process(m, pid) ? "tracked" : "untracked"));
}

static void on_observed_fork(Manager *m, pid_t parent, pid_t child, uint64_t event_ns, void *userdata)
{
        ObserverLog *l = userdata;

        g_ptr_array_add(l->calls, g_strdup_printf("fork:%i:%i", (int) parent, (int) child));
}

static unsigned on_observed_event_types(Manager *m, void *userdata)
{
        ObserverLog *l = userdata;

        return l->event_types;
}

static void test_observers(void)
{
        ObserverLog log = { .calls = g_ptr_array_new_with_free_func(g_free) };
        ProcessObserver o = {
                .exec = on_observed_exec,
                .exit = on_observed_exit,
                .fork = on_observed_fork,
                .event_types = on_observed_event_types,
                .userdata = &log,
        };
        const ProcEvent fork_event = {
                .type = PROC_EVENT_TYPE_FORK,
                .pid = 311,
                .parent = 310,
                .timestamp_ns = 1,
        };
        ManagerHarness h;

        manager_harness_init(&h);
        harness_start_with_rules(&h);
        /* Usage is not started in the harness: this observer is the only one. */
        g_assert_cmpint(manager_observe_processes(h.manager, &o), ==, 0);

        /* The event types observers ask for reach the connector's filter. */
        g_assert_cmpuint(process_observers_event_types(h.manager), ==, 0);
        log.event_types = 1u << PROC_EVENT_TYPE_FORK;
        g_assert_cmpuint(process_observers_event_types(h.manager), ==, 1u << PROC_EVENT_TYPE_FORK);

        add_process(&h, 310, 0, "/usr/bin/glxgears");
        g_assert_cmpint(manager_process_exec(h.manager, 310), ==, 0);
        g_assert_cmpint(manager_process_events(h.manager, &fork_event, 1), ==, 0);
        /* Told of every exit, tracked or not, before the process goes. */
        manager_process_exit(h.manager, 310);
        manager_process_exit(h.manager, 12345);

        g_assert_cmpuint(log.calls->len, ==, 4);
        g_assert_cmpstr(g_ptr_array_index(log.calls, 0), ==, "exec:310");
        g_assert_cmpstr(g_ptr_array_index(log.calls, 1), ==, "fork:310:311");
        g_assert_cmpstr(g_ptr_array_index(log.calls, 2), ==, "exit:310:tracked");
        g_assert_cmpstr(g_ptr_array_index(log.calls, 3), ==, "exit:12345:untracked");

        /* Once it unsubscribed, nothing more. */
        manager_unobserve_processes(h.manager, &log);
        add_process(&h, 320, 0, "/usr/bin/true");
        g_assert_cmpint(manager_process_exec(h.manager, 320), ==, 0);
        manager_process_exit(h.manager, 320);
        g_assert_cmpuint(log.calls->len, ==, 4);
        g_assert_cmpuint(process_observers_event_types(h.manager), ==, 0);

        manager_harness_done(&h);
        g_ptr_array_unref(log.calls);
}

static void test_rescan(void)
{
        ManagerHarness h;
        const Process *kept;
        unsigned status_before;

        manager_harness_init(&h);
        manager_harness_write(&h, SYSTEM_RC, rules);

        /* Running before the daemon starts: found by the first scan. */
        add_process(&h, 400, 0, "/usr/bin/glxgears");
        add_process(&h, 401, 0, "/usr/bin/true");
        add_process(&h, 402, 0, "/usr/bin/demo");
        manager_harness_start(&h);
        g_assert_cmpuint(manager_harness_n_tracked(&h), ==, 3);
        g_assert_cmpuint(h.manager->profiles->n_rescans, ==, 1);
        assert_settings(&h, 400, "GLSharpenValue=50");
        assert_event(manager_harness_last_event(&h, 400), HARNESS_EVENT_CHANGED, 400, "GLSharpenValue=50");
        kept = manager_get_process(h.manager, 400);

        /* Events were lost (a connector overrun): 401 exited, 403 started, and 402's pid was reused by
         * another process, all without a word to the manager. */
        proc_fixture_remove(h.proc, 401);
        add_process(&h, 403, 0, "/usr/bin/glxgears");
        add_process(&h, 402, 777777, "/usr/bin/glxgears");
        manager_harness_clear_events(&h);
        status_before = h.n_status_changed;

        g_assert_cmpint(manager_rescan(h.manager), ==, 0);
        g_assert_cmpuint(h.manager->profiles->n_rescans, ==, 2);
        g_assert_cmpuint(h.n_status_changed, >, status_before);
        g_assert_cmpuint(manager_harness_n_tracked(&h), ==, 3);

        /* The exited one is dropped, and said so. */
        g_assert_null(manager_get_process(h.manager, 401));
        assert_event(manager_harness_last_event(&h, 401), HARNESS_EVENT_REMOVED, 401, "");

        /* The new one is found and resolved. */
        assert_settings(&h, 403, "GLSharpenValue=50");
        assert_event(manager_harness_last_event(&h, 403), HARNESS_EVENT_CHANGED, 403, "GLSharpenValue=50");

        /* The reused pid is a new process: the old is removed, the new one tracked with its own start
         * time and result. */
        g_assert_cmpuint(manager_get_process(h.manager, 402)->id.start_time, ==, 777777);
        g_assert_cmpuint(manager_harness_count_events(&h, HARNESS_EVENT_REMOVED, 402), ==, 1);
        assert_event(manager_harness_last_event(&h, 402), HARNESS_EVENT_CHANGED, 402, "GLSharpenValue=50");
        g_assert_cmpuint(h.manager->profiles->n_matched, ==, 3);

        /* The one that did not change is left alone: same object, not reported again. */
        g_assert_true(manager_get_process(h.manager, 400) == kept);
        g_assert_null(manager_harness_last_event(&h, 400));

        manager_harness_done(&h);
}

static void test_max_processes(void)
{
        ManagerHarness h;

        manager_harness_init(&h);
        manager_harness_write(&h, SYSTEM_RC, rules);
        h.config.max_processes = 3;
        for (pid_t pid = 500; pid < 505; pid++)
                add_process(&h, pid, 0, "/usr/bin/glxgears");

        /* The first scan stops at the limit. */
        manager_harness_start(&h);
        g_assert_cmpuint(manager_harness_n_tracked(&h), ==, 3);
        g_assert_cmpuint(h.events->len, ==, 3);

        /* A new process beyond the limit is not tracked, by exec, by comm or by a rescan. */
        add_process(&h, 505, 0, "/usr/bin/glxgears");
        g_assert_cmpint(manager_process_exec(h.manager, 505), ==, 0);
        g_assert_cmpint(manager_process_comm(h.manager, 505), ==, 0);
        g_assert_cmpint(manager_rescan(h.manager), ==, 0);
        g_assert_null(manager_get_process(h.manager, 505));
        g_assert_cmpuint(manager_harness_n_tracked(&h), ==, 3);
        g_assert_cmpuint(manager_harness_count_events(&h, HARNESS_EVENT_CHANGED, 505), ==, 0);

        /* Room again after an exit: the next exec is tracked, and the limit still holds. */
        for (pid_t pid = 500; pid < 505; pid++)
                if (manager_get_process(h.manager, pid)) {
                        proc_fixture_remove(h.proc, pid);
                        manager_process_exit(h.manager, pid);
                        break;
                }
        g_assert_cmpuint(manager_harness_n_tracked(&h), ==, 2);
        g_assert_cmpint(manager_process_exec(h.manager, 505), ==, 0);
        assert_settings(&h, 505, "GLSharpenValue=50");
        g_assert_cmpuint(manager_harness_n_tracked(&h), ==, 3);
        g_assert_cmpint(manager_rescan(h.manager), ==, 0);
        g_assert_cmpuint(manager_harness_n_tracked(&h), ==, 3);

        manager_harness_done(&h);
}

static bool process_has_settings(ManagerHarness *h, void *userdata)
{
        const Process *p = manager_get_process(h->manager, 600);
        g_autofree char *s = NULL;

        if (!p)
                return false;
        s = manager_harness_settings(p);
        return g_str_equal(s, userdata);
}

static void test_settle(void)
{
        const char *const only_exe[] = { "/usr/bin/sway", NULL };
        const char *const with_wlroots[] = { "/usr/bin/sway", "/usr/lib/x86_64-linux-gnu/libwlroots-0.18.so", NULL };
        ManagerHarness h;

        manager_harness_init(&h);
        /* Steps at 100 ms and 500 ms, and the window's end. */
        h.config.settle_usec = 700 * 1000;
        harness_start_with_rules(&h);

        /* At exec, the libraries are not mapped yet. */
        proc_fixture_add(h.proc,
                        &(ProcFixtureProcess){
                                        .pid = 600,
                                        .uid = getuid(),
                                        .exe = "/usr/bin/sway",
                                        .maps = only_exe,
                        });
        g_assert_cmpint(manager_process_exec(h.manager, 600), ==, 0);
        assert_settings(&h, 600, "");
        g_assert_true(manager_get_process(h.manager, 600)->resolution->depends_on_dsos);
        g_assert_true(manager_get_process(h.manager, 600)->settling);

        /* The dynamic loader maps them a moment later: a settle re-read finds them. */
        proc_fixture_set_maps(h.proc, 600, with_wlroots);
        g_assert_true(manager_harness_run_until(
                        &h, process_has_settings, (void *) "GLVidHeapReuseRatio=0", TIMEOUT_USEC));
        assert_event(manager_harness_last_event(&h, 600), HARNESS_EVENT_CHANGED, 600, "GLVidHeapReuseRatio=0");

        manager_harness_done(&h);
}

static void test_polling(void)
{
        ManagerHarness h;
        uint64_t rescans_before;

        manager_harness_init(&h);
        h.config.poll_interval_usec = 50 * 1000;
        harness_start_with_rules(&h);
        g_assert_nonnull(h.manager->profiles->poll_timer);
        g_assert_null(h.manager->profiles->connector_source);

        /* Nobody calls a handler: the poll timer finds the new process... */
        rescans_before = h.manager->profiles->n_rescans;
        add_process(&h, 700, 0, "/usr/bin/glxgears");
        g_assert_true(manager_harness_run_until(&h, harness_tracks, GINT_TO_POINTER(700), TIMEOUT_USEC));
        g_assert_cmpuint(h.manager->profiles->n_rescans, >, rescans_before);
        assert_event(manager_harness_last_event(&h, 700), HARNESS_EVENT_CHANGED, 700, "GLSharpenValue=50");

        /* ...and notices when it is gone. */
        proc_fixture_remove(h.proc, 700);
        g_assert_true(manager_harness_run_until(&h, harness_does_not_track, GINT_TO_POINTER(700), TIMEOUT_USEC));
        assert_event(manager_harness_last_event(&h, 700), HARNESS_EVENT_REMOVED, 700, "GLSharpenValue=50");

        manager_harness_done(&h);
}

static void test_explain(void)
{
        _cleanup_(proc_facts_done) ProcFacts facts = { .root_fd = -EBADF };
        _cleanup_(rc_resolution_freep) RcResolution *res = NULL;
        const char *const env[] = { "HOME=/home/u", "__GL_SHARPEN_VALUE=7", NULL };
        ManagerHarness h;

        manager_harness_init(&h);
        harness_start_with_rules(&h);
        proc_fixture_add(h.proc,
                        &(ProcFixtureProcess){
                                        .pid = 800,
                                        .start_time = 5555,
                                        .uid = getuid(),
                                        .exe = "/usr/bin/glxgears",
                                        .environ = env,
                        });

        /* A live process explained afresh, tracked or not, with the facts it was resolved from. */
        g_assert_cmpint(manager_explain_process(h.manager, 800, 5555, &res, &facts), ==, 0);
        g_assert_cmpuint(res->n_settings, ==, 1);
        g_assert_cmpstr(res->settings[0].setting->key, ==, "GLSharpenValue");
        g_assert_cmpstr(res->settings[0].env_value, ==, "7");
        g_assert_cmpuint(facts.id.start_time, ==, 5555);
        g_assert_cmpstr(facts.exe, ==, "/usr/bin/glxgears");
        g_assert_cmpstr(strv_env_get(facts.env, "HOME"), ==, "/home/u");
        res = rc_resolution_free(res);
        proc_facts_done(&facts);

        /* Start time 0: whatever has the pid. */
        g_assert_cmpint(manager_explain_process(h.manager, 800, 0, &res, NULL), ==, 0);
        res = rc_resolution_free(res);

        /* Another start time is another process, and a gone one is gone: -ESRCH, never the wrong one. */
        g_assert_cmpint(manager_explain_process(h.manager, 800, 5556, &res, NULL), ==, -ESRCH);
        g_assert_null(res);
        proc_fixture_remove(h.proc, 800);
        g_assert_cmpint(manager_explain_process(h.manager, 800, 5555, &res, NULL), ==, -ESRCH);
        g_assert_null(res);

        manager_harness_done(&h);
}

static bool is_gpu_user(ManagerHarness *h, void *pid)
{
        const Process *p = manager_get_process(h->manager, (pid_t) GPOINTER_TO_INT(pid));

        return p && p->gpu_user;
}

static void test_gpu_open(void)
{
        ManagerHarness h;
        g_autofree char *node = NULL;
        size_t n_changed;
        int fd;

        manager_harness_init(&h);
        /* A stand-in for /dev/nvidia0: opening it is what the manager watches for. */
        test_write_file(h.dev, "nvidia0", "");
        node = g_build_filename(h.dev, "nvidia0", NULL);
        harness_start_with_rules(&h);

        {
                const char *const fds[] = { "/dev/null", node, NULL };
                proc_fixture_add(h.proc,
                                &(ProcFixtureProcess){
                                                .pid = 900,
                                                .uid = getuid(),
                                                .exe = "/usr/bin/true",
                                                .fds = fds,
                                });
        }
        add_process(&h, 901, 0, "/usr/bin/glxgears");
        g_assert_cmpint(manager_process_exec(h.manager, 900), ==, 0);
        g_assert_cmpint(manager_process_exec(h.manager, 901), ==, 0);
        g_assert_false(manager_get_process(h.manager, 900)->gpu_user);
        n_changed = manager_harness_count_events(&h, HARNESS_EVENT_CHANGED, 900);

        /* Someone opens the node: the process that holds it open is a GPU user now, and reported
         * although its result did not change (it is worth a bus object). The other one is not. */
        fd = open(node, O_RDONLY | O_CLOEXEC);
        g_assert_cmpint(fd, >=, 0);
        close(fd);
        g_assert_true(manager_harness_run_until(&h, is_gpu_user, GINT_TO_POINTER(900), TIMEOUT_USEC));
        g_assert_cmpuint(manager_harness_count_events(&h, HARNESS_EVENT_CHANGED, 900), ==, n_changed + 1);
        g_assert_false(manager_get_process(h.manager, 901)->gpu_user);
        g_assert_cmpuint(manager_harness_count_events(&h, HARNESS_EVENT_CHANGED, 901), ==, 1);

        manager_harness_done(&h);
}

/* An exec waits EventCoalesceSec before it is read. A device sweep in that time cannot see the process
 * (it is not tracked yet), so a process that opened a GPU node then is checked when its exec is read; one
 * whose exec came after the last sweep is left to the next sweep. */
static void test_gpu_open_while_exec_queued(void)
{
        const uint64_t ms = 1000, delay = 5 * ms;
        ManagerHarness h;
        g_autofree char *node = NULL;
        ExecQueue q = { 0 };

        manager_harness_init(&h);
        test_write_file(h.dev, "nvidia0", "");
        node = g_build_filename(h.dev, "nvidia0", NULL);
        harness_start_with_rules(&h);
        {
                const char *const fds[] = { "/dev/null", node, NULL };
                proc_fixture_add(h.proc,
                                &(ProcFixtureProcess){
                                                .pid = 900, .uid = getuid(), .exe = "/usr/bin/true", .fds = fds });
                proc_fixture_add(h.proc,
                                &(ProcFixtureProcess){
                                                .pid = 901, .uid = getuid(), .exe = "/usr/bin/true", .fds = fds });
        }

        /* Exec at 1 ms, a sweep at 3 ms, the exec read at 6 ms: checked then. */
        {
                const ProcEvent exec[] = { { PROC_EVENT_TYPE_EXEC, 900, 1 * ms * 1000 } };
                g_assert_cmpint(manager_process_events_delayed(h.manager, &q, exec, 1, 2 * ms, delay), ==, 0);
        }
        h.manager->profiles->device_sweep_usec = 3 * ms;
        g_assert_cmpuint(manager_read_due_execs(h.manager, &q, 6 * ms), ==, UINT64_MAX);
        g_assert_nonnull(manager_get_process(h.manager, 900));
        g_assert_true(manager_get_process(h.manager, 900)->gpu_user);

        /* Exec at 10 ms, after the last sweep: not walked now. */
        {
                const ProcEvent exec[] = { { PROC_EVENT_TYPE_EXEC, 901, 10 * ms * 1000 } };
                g_assert_cmpint(manager_process_events_delayed(h.manager, &q, exec, 1, 11 * ms, delay), ==, 0);
        }
        g_assert_cmpuint(manager_read_due_execs(h.manager, &q, 15 * ms), ==, UINT64_MAX);
        g_assert_nonnull(manager_get_process(h.manager, 901));
        g_assert_false(manager_get_process(h.manager, 901)->gpu_user);

        exec_queue_done(&q);
        manager_harness_done(&h);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/manager/fixture/facts", test_fixture);
        g_test_add_func("/manager/process/exec", test_exec);
        g_test_add_func("/manager/process/gpu-open-while-exec-queued", test_gpu_open_while_exec_queued);
        g_test_add_func("/manager/process/comm", test_comm);
        g_test_add_func("/manager/process/exit", test_exit);
        g_test_add_func("/manager/process/observers", test_observers);
        g_test_add_func("/manager/process/rescan", test_rescan);
        g_test_add_func("/manager/process/max-processes", test_max_processes);
        g_test_add_func("/manager/process/settle", test_settle);
        g_test_add_func("/manager/process/polling", test_polling);
        g_test_add_func("/manager/process/explain", test_explain);
        g_test_add_func("/manager/process/gpu-open", test_gpu_open);
        return g_test_run();
}
