/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "macro.h"
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
        g_autofree char *conf = g_build_filename(dir, "bus.conf", NULL);
        g_autofree char *socket = g_build_filename(dir, "bus", NULL);
        g_autofree char *config_arg = g_strdup_printf("--config-file=%s", conf);
        g_autofree char *text = NULL;
        g_autoptr(GError) error = NULL;
        const char *argv[] = { "dbus-daemon", "--nofork", "--nopidfile", config_arg, NULL };
        gint64 deadline;

        text = g_strdup_printf(
                        "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
                        " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
                        "<busconfig>\n"
                        "  <type>system</type>\n"
                        "  <listen>unix:path=%s</listen>\n"
                        "  <auth>EXTERNAL</auth>\n"
                        "  <policy context=\"default\">\n"
                        "    <allow user=\"*\"/>\n"
                        "    <deny own=\"*\"/>\n"
                        "    <deny send_type=\"method_call\"/>\n"
                        "    <allow send_type=\"signal\"/>\n"
                        "    <allow send_requested_reply=\"true\" send_type=\"method_return\"/>\n"
                        "    <allow send_requested_reply=\"true\" send_type=\"error\"/>\n"
                        "    <allow receive_type=\"method_call\"/>\n"
                        "    <allow receive_type=\"method_return\"/>\n"
                        "    <allow receive_type=\"error\"/>\n"
                        "    <allow receive_type=\"signal\"/>\n"
                        "    <allow send_destination=\"org.freedesktop.DBus\" send_interface=\"org.freedesktop.DBus\"/>\n"
                        "    <allow send_destination=\"org.freedesktop.DBus\" "
                        "send_interface=\"org.freedesktop.DBus.Introspectable\"/>\n"
                        "  </policy>\n"
                        "  <include>%s</include>\n"
                        "%s"
                        "</busconfig>\n",
                        socket, test_env_or_fail("NVPROFILED_DBUS_POLICY"), extra_policy);
        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_file_set_contents(conf, text, -1, &error);
        g_assert_no_error(error);

        g_spawn_async(NULL, (char **) argv, NULL,
                        G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL,
                        test_child_dies_with_parent, NULL, ret_pid, &error);
        g_assert_no_error(error);

        deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
        while (!g_file_test(socket, G_FILE_TEST_EXISTS) && g_get_monotonic_time() < deadline)
                g_usleep(10 * 1000);
        g_assert_true(g_file_test(socket, G_FILE_TEST_EXISTS));
        g_assert_cmpint(chmod(socket, 0777), ==, 0);

        *ret_address = g_strdup_printf("unix:path=%s", socket);
        *ret_bus = test_bus_connect(*ret_address, deadline);
}
