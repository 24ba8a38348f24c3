/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Issue 18: watching in a container is right or says that it is not. The real daemon runs in a PID
 * namespace with a /proc of its own (pidns-run, as a container runtime would start it) on the test's
 * private bus. With CAP_NET_ADMIN the proc connector opens there, but it reports the host's processes
 * under the host's pids: the daemon must find that out, poll instead and say so (ProcessWatchDegraded,
 * ProcessWatchMode), and never apply a host event to the container's process that has the same pid
 * number. Without CAP_NET_ADMIN it polls and says why. On the host, the connector passes the same proof.
 * Root only (namespaces, the connector). */

#include <signal.h>
#include <unistd.h>

#include "bus-names.h"
#include "fd-util.h"
#include "itest.h"
#include "proc-connector.h"
#include "test-bus.h"

#define RCD "etc/nvidia/nvidia-application-profiles-rc.d"
#define WAIT_MS 15000

static const char rules[] =
                "{\"rules\": [\n"
                "  {\"pattern\": \"nvptest-ns\", \"profile\": {\"name\": \"Ns\", \"settings\": [\"k\", 1]}},\n"
                "  {\"pattern\": \"nvptest-host\", \"profile\": {\"name\": \"Host\", \"settings\": [\"k\", 2]}}]}";

static char *watch_mode(ITest *t)
{
        char *mode = NULL;

        g_assert_cmpint(sd_bus_get_property_string(t->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                        "ProcessWatchMode", NULL, &mode),
                        >=, 0);
        return mode;
}

static bool watch_degraded(ITest *t)
{
        int degraded = -1;

        g_assert_cmpint(sd_bus_get_property_trivial(t->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                        "ProcessWatchDegraded", NULL, 'b', &degraded),
                        >=, 0);
        return degraded;
}

static uint64_t process_events(ITest *t)
{
        uint64_t n = UINT64_MAX;

        g_assert_cmpint(sd_bus_get_property_trivial(t->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                        "ProcessEvents", NULL, 't', &n),
                        >=, 0);
        return n;
}

/* Ends helper, and waits until polling sees its process (pid in the daemon's namespace) go. */
static void kill_until_untracked(ITest *t, GPid helper, pid_t pid)
{
        itest_kill(helper);
        ITEST_WAIT_FOR(!itest_is_tracked(t, pid), WAIT_MS);
        g_assert_false(itest_is_tracked(t, pid));
}

/* The daemon in a new PID namespace, with or without CAP_NET_ADMIN. */
static void start_in_pid_namespace(ITest *t, bool net_admin)
{
        const char *pidns_run = test_env_or_fail("NVPROFILED_PIDNS_RUN");
        const char *with[] = { pidns_run, "--", NULL };
        const char *without[] = { pidns_run, "--", "setpriv", "--bounding-set=-net_admin", "--inh-caps=-net_admin",
                "--", NULL };

        itest_write(t, RCD "/50-ns", rules);
        t->daemon_wrapper = net_admin ? with : without;
        itest_start_daemon(t, "[ProcessWatch]\nPollIntervalSec=200ms\n");
        t->daemon_wrapper = NULL;
}

/* A helper named name in the daemon's namespace, as pid want there (0: any); returns the pid of the
 * pidns-run that waits for it, which itest_kill() ends it with. */
static GPid spawn_in_pid_namespace(ITest *t, const char *name, pid_t want)
{
        g_autofree char *join = g_strdup_printf("%i", (int) t->daemon_pid);
        g_autofree char *pid = g_strdup_printf("%i", (int) want);
        const char *wrapper[] = { test_env_or_fail("NVPROFILED_PIDNS_RUN"), "--join", join, "--pid", pid, "--", NULL };
        GPid helper;

        t->helper_wrapper = wrapper;
        helper = itest_spawn_helper(t, name, NULL, NULL);
        t->helper_wrapper = NULL;
        return helper;
}

/* With CAP_NET_ADMIN in a PID namespace, while a listener of the host (this test) keeps the connector's
 * events coming: the daemon proves that they are not about its namespace, polls, and says so. The
 * container's process under the pid number of a live host process gets its own profile, and the host
 * process's exit (and a new host process) touch nothing of it: no event is applied at all. */
static void test_pidns_connector(void)
{
        _cleanup_close_ int listener = -EBADF;
        g_autofree char *mode = NULL;
        GPid host, contained, other;
        ITest t;

        ITEST_REQUIRE_ROOT("needs root: PID namespaces and the proc connector");
        g_assert_cmpint(proc_connector_open(64 * 1024, &listener), ==, 0);

        itest_setup(&t);
        start_in_pid_namespace(&t, true);
        mode = watch_mode(&t);
        g_assert_cmpstr(mode, ==, "polling (the proc connector reports another PID namespace)");
        g_assert_true(watch_degraded(&t));

        /* A host process, then the container's under the same pid number. */
        host = itest_spawn_helper(&t, "nvptest-host", NULL, NULL);
        contained = spawn_in_pid_namespace(&t, "nvptest-ns", host);
        ITEST_WAIT_FOR(itest_profiles_are(&t, host, "Ns"), WAIT_MS);
        g_assert_true(itest_profiles_are(&t, host, "Ns"));

        /* The host's process of that number exits, another one starts and exits: the container's stays. */
        itest_kill(host);
        other = itest_spawn_helper(&t, "nvptest-host", NULL, NULL);
        itest_kill(other);
        g_assert_cmpuint(process_events(&t), ==, 0);
        g_assert_true(itest_profiles_are(&t, host, "Ns"));

        kill_until_untracked(&t, contained, host);
        itest_teardown(&t);
}

/* Without CAP_NET_ADMIN in a PID namespace: polling, not degraded, and ProcessWatchMode says why; the
 * container's process is found. */
static void test_pidns_no_net_admin(void)
{
        g_autofree char *mode = NULL;
        GPid contained;
        pid_t pid;
        ITest t;

        ITEST_REQUIRE_ROOT("needs root: PID namespaces");
        itest_setup(&t);
        start_in_pid_namespace(&t, false);
        mode = watch_mode(&t);
        g_assert_cmpstr(mode, ==, "polling (no CAP_NET_ADMIN for the proc connector)");
        g_assert_false(watch_degraded(&t));

        /* A pid far from the daemon's own children's. */
        pid = 4000 + (getpid() % 1000);
        contained = spawn_in_pid_namespace(&t, "nvptest-ns", pid);
        ITEST_WAIT_FOR(itest_profiles_are(&t, pid, "Ns"), WAIT_MS);
        g_assert_true(itest_profiles_are(&t, pid, "Ns"));
        kill_until_untracked(&t, contained, pid);
        itest_teardown(&t);
}

/* On the host the connector passes the same proof: events, not polling, and a process is seen at once
 * (the poll interval is an hour). */
static void test_host_connector(void)
{
        g_autofree char *mode = NULL;
        GPid pid;
        ITest t;

        ITEST_REQUIRE_ROOT("needs root: the proc connector");
        itest_setup(&t);
        itest_write(&t, RCD "/50-ns", rules);
        itest_start_daemon(&t, "[ProcessWatch]\nPollIntervalSec=3600s\n");
        mode = watch_mode(&t);
        g_assert_cmpstr(mode, ==, "proc-connector");
        g_assert_false(watch_degraded(&t));

        pid = itest_spawn_helper(&t, "nvptest-host", NULL, NULL);
        ITEST_WAIT_FOR(itest_profiles_are(&t, pid, "Host"), WAIT_MS);
        g_assert_true(itest_profiles_are(&t, pid, "Host"));
        g_assert_cmpuint(process_events(&t), >, 0);
        itest_kill(pid);
        itest_teardown(&t);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/pidns/connector", test_pidns_connector);
        g_test_add_func("/pidns/no-net-admin", test_pidns_no_net_admin);
        g_test_add_func("/pidns/host-connector", test_host_connector);
        return g_test_run();
}
