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
#include "bus-world.h"
#include "macro.h"
#include "test-bus.h"

static void write_file(const char *path, const char *content)
{
        g_autoptr(GError) error = NULL;
        g_autofree char *dir = g_path_get_dirname(path);

        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_file_set_contents(path, content, -1, &error);
        g_assert_no_error(error);
}

static void start_bus(BusWorld *w)
{
        /* Root may stand in for polkit. */
        test_private_bus_start(w->dir,
                        "  <policy user=\"root\">\n"
                        "    <allow own=\"org.freedesktop.PolicyKit1\"/>\n"
                        "    <allow send_destination=\"org.freedesktop.PolicyKit1\"/>\n"
                        "  </policy>\n",
                        &w->bus_pid, &w->bus_address, &w->bus);
}

static BusWorld *current;

/* The users world_test_user made: world_remove_user removes them, on_abort when the test ends first. */
static char users_made[4][33];
static size_t n_users_made;

static void userdel_now(const char *name)
{
        /* -f: even when a process of the user is still around. */
        g_autofree char *cmd = g_strdup_printf("userdel -f '%s' >/dev/null 2>&1", name);
        (void) system(cmd);
}

/* A failed assertion aborts before teardown: show the daemon's side of the story first. */
static void on_abort(int sig)
{
        for (size_t i = 0; i < n_users_made; i++)
                userdel_now(users_made[i]);
        n_users_made = 0;
        if (current && current->daemon_log >= 0) {
                g_autofree char *log = world_daemon_log(current);
                g_printerr("---- nvprofiled log ----\n%s------------------------\n", log);
        }
        signal(sig, SIG_DFL);
        raise(sig);
}

void world_setup(BusWorld *w)
{
        g_autoptr(GError) error = NULL;

        *w = (BusWorld){ .daemon_log = -1 };
        current = w;
        signal(SIGABRT, on_abort);

        w->dir = g_dir_make_tmp("nvprofiled-bustest-XXXXXX", &error);
        g_assert_no_error(error);
        g_assert_cmpint(chmod(w->dir, 0755), ==, 0);
        w->root = g_build_filename(w->dir, "root", NULL);
        g_assert_cmpint(g_mkdir_with_parents(w->root, 0755), ==, 0);
        start_bus(w);
}

static void stop(GPid *pid)
{
        if (*pid <= 0)
                return;
        kill(*pid, SIGTERM);
        waitpid(*pid, NULL, 0);
        *pid = 0;
}

void world_teardown(BusWorld *w)
{
        if (g_test_failed() && w->daemon_log >= 0) {
                g_autofree char *log = world_daemon_log(w);
                g_printerr("---- nvprofiled log ----\n%s------------------------\n", log);
        }
        current = NULL;
        world_stop_daemon(w);
        /* A sanitizer build of the daemon reports what it found when it exits: a finding fails the test. */
        if (w->daemon_log >= 0) {
                g_autofree char *log = world_daemon_log(w);
                if (strstr(log, "Sanitizer") || strstr(log, "runtime error:"))
                        g_printerr("---- nvprofiled log ----\n%s------------------------\n", log);
                g_assert_null(strstr(log, "Sanitizer"));
                g_assert_null(strstr(log, "runtime error:"));
        }
        stop(&w->polkit_pid);
        if (w->daemon_log >= 0)
                close(w->daemon_log);
        sd_bus_flush_close_unref(w->bus);
        stop(&w->bus_pid);
        if (w->dir) {
                g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", w->dir);
                if (system(cmd) != 0)
                        g_printerr("could not remove %s\n", w->dir);
        }
        g_free(w->dir);
        g_free(w->root);
        g_free(w->bus_address);
}

static bool name_has_owner(BusWorld *w, const char *name)
{
        sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(w->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                        "GetNameOwner", NULL, &reply, "s", name);
        sd_bus_message_unref(reply);
        return r >= 0;
}

static GPtrArray *daemon_argv(BusWorld *w, const char *config)
{
        g_autofree char *conf = g_build_filename(w->dir, "nvprofiled.conf", NULL);
        GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);

        write_file(conf, config ? config : "");
        g_ptr_array_add(argv, g_strdup(test_env_or_fail("NVPROFILED_BIN")));
        g_ptr_array_add(argv, g_strdup_printf("--bus=%s", w->bus_address));
        g_ptr_array_add(argv, g_strdup_printf("--root=%s", w->root));
        g_ptr_array_add(argv, g_strdup_printf("--config=%s", conf));
        g_ptr_array_add(argv, g_strdup("--log-level=debug"));
        return argv;
}

void world_start_daemon(BusWorld *w, const char *config, const char *const *args)
{
        g_autoptr(GPtrArray) argv = daemon_argv(w, config);
        g_autofree char *log = g_build_filename(w->dir, "daemon.log", NULL);
        g_autoptr(GError) error = NULL;
        gint64 deadline;
        int status;

        for (const char *const *a = args; a && *a; a++)
                g_ptr_array_add(argv, g_strdup(*a));
        g_ptr_array_add(argv, NULL);

        if (w->daemon_log >= 0)
                close(w->daemon_log);
        w->daemon_log = open(log, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        g_assert_cmpint(w->daemon_log, >=, 0);
        g_spawn_async_with_fds(NULL, (char **) argv->pdata, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                        test_child_dies_with_parent, NULL, &w->daemon_pid, -1, w->daemon_log, w->daemon_log, &error);
        g_assert_no_error(error);

        /* Sanitizer builds start slowly, hence the generous bound. */
        deadline = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
        while (!name_has_owner(w, BUS_NAME) && g_get_monotonic_time() < deadline) {
                if (waitpid(w->daemon_pid, &status, WNOHANG) == w->daemon_pid) {
                        w->daemon_pid = 0;
                        g_error("nvprofiled exited during start-up (status %d)", status);
                }
                g_usleep(20 * 1000);
        }
        g_assert_true(name_has_owner(w, BUS_NAME));
        /* Owning the name comes before the first scan: a call answered means the daemon is running. */
        {
                sd_bus_error e = SD_BUS_ERROR_NULL;
                uint64_t generation = 0;
                g_assert_cmpint(sd_bus_get_property_trivial(w->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                                "ConfigGeneration", &e, 't', &generation),
                                >=, 0);
                sd_bus_error_free(&e);
        }
}

int world_run_daemon(BusWorld *w, const char *config, char **ret_log)
{
        g_autoptr(GPtrArray) argv = daemon_argv(w, config);
        g_autoptr(GError) error = NULL;
        g_autofree char *out = NULL;
        int status;

        g_ptr_array_add(argv, NULL);
        g_spawn_sync(NULL, (char **) argv->pdata, NULL, 0, test_child_dies_with_parent, NULL, &out, ret_log, &status,
                        &error);
        g_assert_no_error(error);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void world_stop_daemon(BusWorld *w)
{
        stop(&w->daemon_pid);
}

char *world_daemon_log(BusWorld *w)
{
        g_autofree char *path = g_build_filename(w->dir, "daemon.log", NULL);
        char *text = NULL;

        if (!g_file_get_contents(path, &text, NULL, NULL))
                return g_strdup("");
        return text;
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
        while (!name_has_owner(w, "org.freedesktop.PolicyKit1") && g_get_monotonic_time() < deadline)
                g_usleep(20 * 1000);
        g_assert_true(name_has_owner(w, "org.freedesktop.PolicyKit1"));
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
        g_autofree char *p = g_build_filename(w->root, rel, NULL);
        write_file(p, content);
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
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(outussasu)"), >=, 0);
        while ((r = sd_bus_message_enter_container(reply, 'r', "outussasu")) > 0) {
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
        struct passwd *pw = getpwnam(name);
        bool known = false;

        if (!pw) {
                g_autofree char *cmd = g_strdup_printf(
                                "useradd --system --no-create-home --shell /usr/sbin/nologin '%s' 2>/dev/null", name);
                /* Another test binary may create it at the same moment: look again either way. */
                (void) system(cmd);
                pw = getpwnam(name);
        }
        g_assert_nonnull(pw);
        g_assert_cmpuint(pw->pw_uid, !=, 0);
        for (size_t i = 0; i < n_users_made; i++)
                known = known || streq(users_made[i], name);
        if (!known) {
                g_assert_cmpuint(n_users_made, <, G_N_ELEMENTS(users_made));
                g_assert_cmpuint(strlen(name), <, sizeof(users_made[0]));
                strcpy(users_made[n_users_made++], name);
        }
        /* g_error() ends with SIGTRAP, g_assert() with SIGABRT, meson's timeout with SIGTERM. */
        signal(SIGABRT, on_abort);
        signal(SIGTRAP, on_abort);
        signal(SIGTERM, on_abort);
        return pw->pw_uid;
}

void world_remove_user(const char *name)
{
        size_t kept = 0;

        userdel_now(name);
        for (size_t i = 0; i < n_users_made; i++)
                if (!streq(users_made[i], name))
                        memmove(users_made[kept++], users_made[i], sizeof(users_made[0]));
        n_users_made = kept;
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
