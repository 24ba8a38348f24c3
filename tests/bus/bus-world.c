/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-names.h"
#include "bus-signatures.h"
#include "bus-world.h"
#include "macro.h"
#include "test-bus.h"

void world_setup(BusWorld *w)
{
        test_world_setup(w, "nvprofiled-bustest", false);
        w->sanitizer_report_fails = true;
}

void world_teardown(BusWorld *w)
{
        test_world_teardown(w);
}

void world_start_daemon(BusWorld *w, const char *config, const char *const *args)
{
        test_world_start_daemon(w, config, args);
}

int world_run_daemon(BusWorld *w, const char *config, char **ret_log)
{
        return test_world_run_daemon(w, config, ret_log);
}

void world_stop_daemon(BusWorld *w)
{
        test_world_stop_daemon(w, NULL);
}

char *world_daemon_log(BusWorld *w)
{
        return test_world_daemon_log(w);
}

void world_start_polkit(BusWorld *w)
{
        g_autoptr(GError) error = NULL;
        g_auto(GStrv) envp = g_get_environ();
        const char *argv[] = { "/usr/bin/python3", "-m", "dbusmock", "--system", "--template", "polkitd", NULL };
        gint64 deadline;

        envp = g_environ_setenv(envp, "DBUS_SYSTEM_BUS_ADDRESS", w->bus_address, TRUE);
        g_spawn_async(NULL, (char **) argv, envp, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL,
                        test_child_dies_with_parent, NULL, &w->polkit_pid, &error);
        g_assert_no_error(error);

        deadline = g_get_monotonic_time() + 30 * G_USEC_PER_SEC;
        while (!test_world_name_has_owner(w, "org.freedesktop.PolicyKit1") && g_get_monotonic_time() < deadline)
                g_usleep(20 * 1000);
        g_assert_true(test_world_name_has_owner(w, "org.freedesktop.PolicyKit1"));
}

void world_polkit_set_allowed(BusWorld *w, const char *const *actions)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;

        g_assert_cmpint(sd_bus_message_new_method_call(w->bus, &m, "org.freedesktop.PolicyKit1",
                                        "/org/freedesktop/PolicyKit1/Authority", "org.freedesktop.DBus.Mock",
                                        "SetAllowed"),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_append_strv(m, (char **) actions), >=, 0);
        g_assert_cmpint(sd_bus_call(w->bus, m, 0, &e, NULL), >=, 0);
        sd_bus_error_free(&e);
}

void world_write(BusWorld *w, const char *rel, const char *content)
{
        test_world_write(w, rel, content);
}

static void become(uid_t uid)
{
        struct passwd *pw;

        if (uid == 0)
                return;
        pw = getpwuid(uid);
        if (!pw || setgroups(0, NULL) < 0 || setgid(pw->pw_gid) < 0 || setuid(uid) < 0)
                _exit(127);
}

GPid world_spawn(BusWorld *w, const char *name, uid_t uid, bool wait_object)
{
        g_autofree char *bin = g_build_filename(w->dir, "bin", name, NULL);
        g_autofree char *cmd = NULL;
        pid_t pid;

        if (!g_file_test(bin, G_FILE_TEST_EXISTS)) {
                cmd = g_strdup_printf("mkdir -p '%s/bin' && cp /bin/sleep '%s' && chmod 755 '%s'", w->dir, bin, bin);
                g_assert_cmpint(system(cmd), ==, 0);
        }
        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                become(uid);
                execl(bin, name, "300", (char *) NULL);
                _exit(127);
        }
        if (wait_object) {
                gint64 deadline = g_get_monotonic_time() + (gint64) WORLD_WAIT_MS * 1000;

                for (;;) {
                        g_autofree char *object = world_object_of(w, pid);

                        if (object && !g_str_equal(object, "/"))
                                break;
                        g_assert_cmpint(g_get_monotonic_time(), <, deadline);
                        g_usleep(20 * 1000);
                }
        }
        return pid;
}

void world_kill(GPid pid)
{
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
}

char *world_object_of(BusWorld *w, pid_t pid)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        char *found = NULL;
        int r;

        r = sd_bus_call_method(w->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListProcesses", &e, &reply, "");
        sd_bus_error_free(&e);
        if (r < 0)
                return NULL;
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(" BUS_PROCESS_ENTRY_FIELDS ")"), >=, 0);
        while ((r = sd_bus_message_enter_container(reply, 'r', BUS_PROCESS_ENTRY_FIELDS)) > 0) {
                const char *object, *comm, *exe;
                uint32_t p, uid;
                uint64_t start;

                g_assert_cmpint(sd_bus_message_read(reply, "outuss", &object, &p, &start, &uid, &comm, &exe), >=, 0);
                if ((pid_t) p == pid && !found)
                        found = g_strdup(object);
                g_assert_cmpint(sd_bus_message_skip(reply, "asu"), >=, 0);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
        }
        g_assert_cmpint(r, >=, 0);
        return found;
}

uid_t world_test_user(const char *name)
{
        return test_world_adopt_user(name);
}

void world_remove_user(const char *name)
{
        test_world_remove_user(name);
}

pid_t world_call_as_start(BusWorld *w, uid_t uid, WorldCallFunc fn, void *userdata)
{
        pid_t pid;

        /* Nothing buffered may be written twice. */
        fflush(stdout);
        fflush(stderr);
        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                sd_bus *bus = NULL;

                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                become(uid);
                if (sd_bus_new(&bus) < 0 || sd_bus_set_address(bus, w->bus_address) < 0 ||
                                sd_bus_set_bus_client(bus, true) < 0 || sd_bus_start(bus) < 0)
                        _exit(126);
                _exit(fn(bus, userdata));
        }
        return pid;
}

int world_call_as_wait(pid_t pid)
{
        int status;

        g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), <, 126);
        return WEXITSTATUS(status);
}

int world_call_as(BusWorld *w, uid_t uid, WorldCallFunc fn, void *userdata)
{
        return world_call_as_wait(world_call_as_start(w, uid, fn, userdata));
}

int world_outcome(int r, const sd_bus_error *error)
{
        if (r >= 0)
                return CALL_OK;
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED))
                return CALL_ACCESS_DENIED;
        if (sd_bus_error_has_name(error, BUS_ERROR_NO_SUCH_PROCESS))
                return CALL_NO_SUCH_PROCESS;
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_UNKNOWN_OBJECT))
                return CALL_UNKNOWN_OBJECT;
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_INVALID_ARGS))
                return CALL_INVALID_ARGS;
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED))
                return CALL_INTERACTIVE_REQUIRED;
        if (sd_bus_error_has_name(error, BUS_ERROR_LIMITS_EXCEEDED))
                return CALL_LIMITS_EXCEEDED;
        return CALL_OTHER_ERROR;
}
