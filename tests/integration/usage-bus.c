/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the usage cases (test-usage.c, test-usage-attribution.c) share: the daemon over fixture trees, and
 * the Usage interface's listings as text. */

#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-names.h"
#include "usage-bus.h"

int usage_bus_watch(sd_bus *bus, uint64_t interval_usec)
{
        sd_bus_message *reply = NULL;
        int fd;

        g_assert_cmpint(sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "WatchUsage", NULL,
                                        &reply, "t", interval_usec),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "h", &fd), >=, 0);
        fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        g_assert_cmpint(fd, >=, 0);
        sd_bus_message_unref(reply);
        return fd;
}

/* Calls a listing method of the Usage interface and enters its array. */
sd_bus_message *usage_bus_call_listing(sd_bus *bus, const char *method, const char *element)
{
        sd_bus_message *reply = NULL;

        g_assert_cmpint(sd_bus_call_method(
                                        bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, method, NULL, &reply, NULL),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', element), >=, 0);
        return reply;
}

/* The engines (device, source, engine, busy) and memory (device, source, region, bytes) of a process or a
 * group. */
void usage_bus_append_engines_memory(sd_bus_message *m, GString *out)
{
        const char *device, *source, *what;
        double busy;
        uint64_t v;

        g_assert_cmpint(sd_bus_message_enter_container(m, 'a', "(sssd)"), >=, 0);
        while (sd_bus_message_read(m, "(sssd)", &device, &source, &what, &busy) > 0)
                g_string_append_printf(out, " engine %s/%s=%.1f", device, what, busy);
        g_assert_cmpint(sd_bus_message_exit_container(m), >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(m, 'a', "(ssst)"), >=, 0);
        while (sd_bus_message_read(m, "(ssst)", &device, &source, &what, &v) > 0)
                g_string_append_printf(out, " mem %s/%s=%" G_GUINT64_FORMAT, device, what, v);
        g_assert_cmpint(sd_bus_message_exit_container(m), >=, 0);
}

/* What dump gives, as the user u (a child that became it and connected on its own). */
char *usage_bus_dump_as(ITest *t, const ITestUser *u, char *(*dump)(sd_bus *bus))
{
        int pipefd[2];
        pid_t pid;
        GString *out = g_string_new(NULL);
        char buf[4096];
        ssize_t k;
        int status;

        g_assert_cmpint(pipe(pipefd), ==, 0);
        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                sd_bus *bus = NULL;
                g_autofree char *text = NULL;

                close(pipefd[0]);
                itest_become_user(u);
                if (sd_bus_new(&bus) < 0 || sd_bus_set_address(bus, t->bus_address) < 0 ||
                                sd_bus_set_bus_client(bus, 1) < 0 || sd_bus_start(bus) < 0)
                        _exit(4);
                text = dump(bus);
                if (write(pipefd[1], text, strlen(text)) < 0)
                        _exit(5);
                _exit(0);
        }
        close(pipefd[1]);
        while ((k = read(pipefd[0], buf, sizeof(buf))) > 0)
                g_string_append_len(out, buf, k);
        close(pipefd[0]);
        g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 0);
        return g_string_free(out, FALSE);
}

bool usage_bus_has_line(const char *text, const char *prefix, const char *needle)
{
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

        for (guint i = 0; lines[i]; i++)
                if (g_str_has_prefix(lines[i], prefix) && (!needle || strstr(lines[i], needle)))
                        return true;
        return false;
}

/* A daemon's world over fixture /proc and /sys trees. */
void usage_bus_setup_trees(ITest *t)
{
        itest_setup(t);
        itest_use_fixture_proc(t);
        t->sys = g_build_filename(t->dir, "sys", NULL);
        g_assert_cmpint(g_mkdir_with_parents(t->sys, 0755), ==, 0);
}
