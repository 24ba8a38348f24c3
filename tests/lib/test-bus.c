/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "macro.h"
#include "test-bus-daemon.h"
#include "test-bus.h"

const char *test_env_or_fail(const char *name)
{
        const char *v = g_getenv(name);
        if (!v)
                g_error("%s is not set; run this test through meson", name);
        return v;
}

void test_child_dies_with_parent(gpointer userdata)
{
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
}

sd_bus *test_bus_connect(const char *address, gint64 deadline)
{
        /* The socket file exists from bind(), before dbus-daemon listens: retry a refused connection. */
        for (;;) {
                sd_bus *bus = NULL;
                int r;

                g_assert_cmpint(sd_bus_new(&bus), >=, 0);
                g_assert_cmpint(sd_bus_set_address(bus, address), >=, 0);
                g_assert_cmpint(sd_bus_set_bus_client(bus, true), >=, 0);
                r = sd_bus_start(bus);
                if (r >= 0)
                        return bus;
                sd_bus_unref(bus);
                g_assert_cmpint(r, ==, -ECONNREFUSED);
                g_assert_cmpint(g_get_monotonic_time(), <, deadline);
                g_usleep(10 * 1000);
        }
}

void test_private_bus_start(
                const char *dir, const char *extra_policy, GPid *ret_pid, char **ret_address, sd_bus **ret_bus)
{
        pid_t pid;
        char *address;
        int r;

        (void) test_env_or_fail("NVPROFILED_DBUS_POLICY");
        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        r = test_bus_daemon_start(dir, TEST_BUS_SYSTEM, extra_policy, &pid, &address);
        if (r < 0)
                g_error("dbus-daemon did not start in %s: %s", dir, g_strerror(-r));
        *ret_pid = pid;
        *ret_address = g_strdup(address);
        free(address);
        *ret_bus = test_bus_connect(*ret_address, g_get_monotonic_time() + 10 * G_USEC_PER_SEC);
}
