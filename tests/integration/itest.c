/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-names.h"
#include "bus-signatures.h"
#include "itest.h"
#include "test-bus.h"
#include "test-other-user.h"

#define NOBODY 65534

void itest_setup(ITest *t)
{
        bool deployed = g_strcmp0(g_getenv("NVPROFILED_ITEST_DEPLOYED"), "1") == 0;

        /* The <case>-deployed variants create the daemon's user: without root they SKIP, as the cases that
         * need root do (ITEST_REQUIRE_ROOT()); the case cannot go on, so the TAP lines are ours (one case
         * runs per meson test: -p). */
        if (deployed && geteuid() != 0) {
                printf("ok 1 # SKIP needs root: the deployed mode creates the daemon's user\n1..1\n");
                fflush(stdout);
                exit(EXIT_SUCCESS);
        }
        test_world_setup(t, "nvprofiled-itest", deployed);
}

void itest_setup_deployed(ITest *t)
{
        test_world_setup(t, "nvprofiled-itest", true);
}

bool itest_have_root(const char *why)
{
        if (geteuid() == 0)
                return true;
        g_test_skip(why);
        return false;
}

uid_t itest_caller_uid(void)
{
        return geteuid() == 0 ? NOBODY : geteuid();
}

void itest_use_fixture_proc(ITest *t)
{
        g_free(t->proc);
        t->proc = g_build_filename(t->dir, "proc", NULL);
        g_assert_cmpint(g_mkdir_with_parents(t->proc, 0755), ==, 0);
}

static void write_in(const char *dir, const char *name, const char *content, size_t len)
{
        g_autofree char *path = g_build_filename(dir, name, NULL);
        g_autoptr(GError) error = NULL;

        g_file_set_contents(path, content, (gssize) len, &error);
        g_assert_no_error(error);
}

static void symlink_in(const char *dir, const char *name, const char *target)
{
        g_autofree char *path = g_build_filename(dir, name, NULL);
        g_assert_cmpint(symlink(target, path), ==, 0);
}

void itest_fixture_process(ITest *t, pid_t pid, uint64_t start_time, uid_t uid, const char *comm, const char *exe,
                const char *maps)
{
        itest_fixture_process_env(t, pid, start_time, uid, comm, exe, maps, NULL);
}

void itest_fixture_process_env(ITest *t, pid_t pid, uint64_t start_time, uid_t uid, const char *comm, const char *exe,
                const char *maps, const char *const *env)
{
        g_autofree char *dir = NULL, *stage = NULL, *stat = NULL, *status = NULL, *comm_line = NULL, *fd = NULL;
        g_autoptr(GString) environ_text = g_string_new("PATH=/usr/bin");

        g_assert_nonnull(t->proc);
        g_assert_cmpint(pid, >, 0);
        dir = g_strdup_printf("%s/%i", t->proc, (int) pid);
        /* Built aside and renamed into place, so a poll never sees half a process. */
        stage = g_strdup_printf("%s/.stage-%i", t->dir, (int) pid);
        fd = g_build_filename(stage, "fd", NULL);
        g_assert_cmpint(g_mkdir_with_parents(fd, 0755), ==, 0);

        stat = g_strdup_printf("%i (%s) S 1 %i %i 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %" G_GUINT64_FORMAT
                               " 1000 100 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
                        (int) pid, comm, (int) pid, (int) pid, start_time);
        status = g_strdup_printf("Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%i\nPid:\t%i\nPPid:\t1\n"
                                 "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nGroups:\t\n",
                        comm, (int) pid, (int) pid, uid, uid, uid, uid, uid, uid, uid, uid);
        comm_line = g_strdup_printf("%s\n", comm);
        write_in(stage, "stat", stat, strlen(stat));
        write_in(stage, "status", status, strlen(status));
        write_in(stage, "comm", comm_line, strlen(comm_line));
        /* argv[0] is the executable's path, NUL-terminated as the kernel writes it. */
        write_in(stage, "cmdline", exe, strlen(exe) + 1);
        /* Each entry NUL-terminated, as the kernel shows them. */
        for (const char *const *e = env; e && *e; e++)
                g_string_append_printf(environ_text, "%c%s", '\0', *e);
        write_in(stage, "environ", environ_text->str, environ_text->len + 1);
        write_in(stage, "maps", maps ? maps : "", maps ? strlen(maps) : 0);
        symlink_in(stage, "exe", exe);
        symlink_in(stage, "root", t->root);

        itest_fixture_exit(t, pid);
        g_assert_cmpint(rename(stage, dir), ==, 0);
}

void itest_fixture_cgroup(ITest *t, pid_t pid, const char *path)
{
        g_autofree char *dir = NULL, *line = NULL;

        g_assert_nonnull(t->proc);
        dir = g_strdup_printf("%s/%i", t->proc, (int) pid);
        g_assert_true(g_file_test(dir, G_FILE_TEST_IS_DIR));
        /* As the kernel writes it on a unified hierarchy; g_file_set_contents() renames it into place. */
        line = g_strdup_printf("0::%s\n", path);
        write_in(dir, "cgroup", line, strlen(line));
}

void itest_fixture_root(ITest *t, pid_t pid, const char *dir)
{
        g_autofree char *pid_dir = NULL, *link = NULL, *staged = NULL;

        g_assert_nonnull(t->proc);
        g_assert_true(g_path_is_absolute(dir));
        pid_dir = g_strdup_printf("%s/%i", t->proc, (int) pid);
        link = g_build_filename(pid_dir, "root", NULL);
        staged = g_build_filename(pid_dir, ".root", NULL);
        /* Replaced in one step, as the other files are. */
        g_assert_cmpint(symlink(dir, staged), ==, 0);
        g_assert_cmpint(rename(staged, link), ==, 0);
}

void itest_fixture_exit(ITest *t, pid_t pid)
{
        g_autofree char *dir = NULL, *cmd = NULL;

        g_assert_nonnull(t->proc);
        dir = g_strdup_printf("%s/%i", t->proc, (int) pid);
        if (!g_file_test(dir, G_FILE_TEST_EXISTS))
                return;
        /* Renamed away first: the directory disappears in one step, as a process's does. */
        cmd = g_strdup_printf("%s/.gone-%i", t->dir, (int) pid);
        g_assert_cmpint(rename(dir, cmd), ==, 0);
        g_free(dir);
        dir = g_steal_pointer(&cmd);
        cmd = g_strdup_printf("rm -rf '%s'", dir);
        g_assert_cmpint(system(cmd), ==, 0);
}

bool itest_wait_notify(ITest *t, const char *needle, int timeout_ms)
{
        gint64 deadline = g_get_monotonic_time() + (gint64) timeout_ms * 1000;

        do {
                char buf[4096];
                struct pollfd pfd = { .fd = t->notify_fd, .events = POLLIN };
                ssize_t n;

                if (poll(&pfd, 1, 50) <= 0)
                        continue;
                n = recv(t->notify_fd, buf, sizeof(buf) - 1, 0);
                if (n <= 0)
                        continue;
                buf[n] = '\0';
                g_test_message("notify: %s", buf);
                if (strstr(buf, needle))
                        return true;
        } while (g_get_monotonic_time() < deadline);
        return false;
}

void itest_create_user(const char *prefix, ITestUser *ret)
{
        test_world_create_user(prefix, ret);
}

void itest_remove_users(void)
{
        test_world_remove_users();
}

void itest_become_user(const ITestUser *u)
{
        test_world_become_user(u);
}

void itest_teardown(ITest *t)
{
        test_world_teardown(t);
        test_world_remove_users();
}

void itest_start_daemon(ITest *t, const char *extra_config)
{
        g_autofree char *config = g_strdup_printf(
                        "[ProcessWatch]\nDeviceDirectory=%s\nSettleSec=2s\n[Profiles]\nReloadCoalesceSec=100ms\n%s",
                        t->devdir, extra_config ? extra_config : "");

        test_world_start_daemon(t, config, NULL);
}

void itest_stop_daemon(ITest *t, int *ret_exit_status)
{
        test_world_stop_daemon(t, ret_exit_status);
}

void itest_write(ITest *t, const char *rel, const char *content)
{
        test_world_write(t, rel, content);
}

static void become_helper_user(gpointer userdata)
{
        itest_become_user(userdata);
        /* Once more: the change of credentials cleared the parent-death signal. */
        test_child_dies_with_parent(NULL);
}

GPid itest_spawn_helper(ITest *t, const char *name, const char *const *env, const char *const *args)
{
        g_autoptr(GError) error = NULL;
        g_autofree char *path = NULL;
        g_autoptr(GPtrArray) argv = g_ptr_array_new();
        g_auto(GStrv) envp = g_get_environ();
        const char *helper = test_env_or_fail("NVPROFILED_HELPER");
        char buf[16] = { 0 };
        GPid pid;
        int out = -1;
        struct pollfd pfd;
        ssize_t n;

        if (name) {
                g_autofree char *contents = NULL;
                gsize len;

                path = g_build_filename(t->dir, "bin", name, NULL);
                g_file_get_contents(helper, &contents, &len, &error);
                g_assert_no_error(error);
                {
                        g_autofree char *dir = g_path_get_dirname(path);
                        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
                }
                g_file_set_contents(path, contents, (gssize) len, &error);
                g_assert_no_error(error);
                g_assert_cmpint(chmod(path, 0755), ==, 0);
        } else
                path = g_strdup(helper);

        for (const char *const *w = t->helper_wrapper; w && *w; w++)
                g_ptr_array_add(argv, (char *) *w);
        g_ptr_array_add(argv, path);
        for (const char *const *a = args; a && *a; a++)
                g_ptr_array_add(argv, (char *) *a);
        g_ptr_array_add(argv, NULL);
        for (const char *const *e = env; e && *e; e++) {
                g_auto(GStrv) kv = g_strsplit(*e, "=", 2);
                envp = g_environ_setenv(envp, kv[0], kv[1], TRUE);
        }

        g_spawn_async_with_pipes(NULL, (char **) argv->pdata, envp, G_SPAWN_DO_NOT_REAP_CHILD,
                        t->helper_user ? become_helper_user : test_child_dies_with_parent, (gpointer) t->helper_user,
                        &pid, NULL, &out, NULL, &error);
        g_assert_no_error(error);

        pfd = (struct pollfd){ .fd = out, .events = POLLIN };
        g_assert_cmpint(poll(&pfd, 1, 30000), ==, 1);
        n = read(out, buf, sizeof(buf) - 1);
        close(out);
        g_assert_cmpint(n, >, 0);
        g_assert_true(g_str_has_prefix(buf, "ready"));
        return pid;
}

void itest_kill(GPid pid)
{
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
}

static void drop_to_nobody(gpointer userdata)
{
        test_child_dies_with_parent(NULL);
        if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(NOBODY) < 0)
                _exit(127);
}

static int run_ctl(ITest *t, bool nobody, char **ret_out, const char *first_arg, va_list ap)
{
        g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GError) error = NULL;
        g_autofree char *err = NULL, *discard = NULL;
        g_auto(GStrv) envp = nobody ? test_environ_for_other_users(t->dir) : g_get_environ();
        int status;

        /* Never into our stdout: that is the TAP stream. */
        if (!ret_out)
                ret_out = &discard;
        g_ptr_array_add(argv,
                        nobody ? test_copy_for_other_users(t->dir, test_env_or_fail("NVPROFILECTL_BIN"))
                               : g_strdup(test_env_or_fail("NVPROFILECTL_BIN")));
        g_ptr_array_add(argv, g_strdup_printf("--bus=%s", t->bus_address));
        g_ptr_array_add(argv, g_strdup("--json=short"));
        for (const char *a = first_arg; a; a = va_arg(ap, const char *))
                g_ptr_array_add(argv, g_strdup(a));
        g_ptr_array_add(argv, NULL);

        g_spawn_sync("/", (char **) argv->pdata, envp, 0, nobody ? drop_to_nobody : NULL, NULL, ret_out, &err, &status,
                        &error);
        g_assert_no_error(error);
        if (err && *err)
                g_test_message("nvprofilectl stderr: %s", err);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int itest_ctl(ITest *t, char **ret_out, const char *first_arg, ...)
{
        va_list ap;
        int r;

        va_start(ap, first_arg);
        r = run_ctl(t, false, ret_out, first_arg, ap);
        va_end(ap);
        return r;
}

int itest_ctl_as_nobody(ITest *t, char **ret_out, const char *first_arg, ...)
{
        va_list ap;
        int r;

        va_start(ap, first_arg);
        r = run_ctl(t, true, ret_out, first_arg, ap);
        va_end(ap);
        return r;
}

int itest_ctl_as_caller(ITest *t, char **ret_out, const char *first_arg, ...)
{
        va_list ap;
        int r;

        va_start(ap, first_arg);
        r = run_ctl(t, geteuid() == 0, ret_out, first_arg, ap);
        va_end(ap);
        return r;
}

char *itest_tracked_profiles(ITest *t, pid_t pid)
{
        sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        char *result = NULL;
        int r;

        r = sd_bus_call_method(
                        t->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListProcesses", &error, &reply, NULL);
        if (r < 0) {
                g_test_message("ListProcesses: %s", error.message);
                sd_bus_error_free(&error);
                return NULL;
        }
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(" BUS_PROCESS_ENTRY_FIELDS ")"), >=, 0);
        while (sd_bus_message_enter_container(reply, 'r', BUS_PROCESS_ENTRY_FIELDS) > 0) {
                const char *object, *comm, *exe;
                uint32_t p, uid, settings;
                uint64_t start;
                char **profiles = NULL;

                g_assert_cmpint(sd_bus_message_read(reply, "outuss", &object, &p, &start, &uid, &comm, &exe), >=, 0);
                g_assert_cmpint(sd_bus_message_read_strv(reply, &profiles), >=, 0);
                g_assert_cmpint(sd_bus_message_read(reply, "u", &settings), >=, 0);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                if ((pid_t) p == pid && !result)
                        result = profiles ? g_strjoinv(",", profiles) : g_strdup("");
                g_strfreev(profiles);
        }
        sd_bus_message_unref(reply);
        return result;
}

bool itest_profiles_are(ITest *t, pid_t pid, const char *expected)
{
        g_autofree char *p = itest_tracked_profiles(t, pid);
        return p && g_str_equal(p, expected);
}

bool itest_is_tracked(ITest *t, pid_t pid)
{
        g_autofree char *p = itest_tracked_profiles(t, pid);
        return p != NULL;
}

uint64_t itest_generation(ITest *t)
{
        uint64_t g = 0;
        sd_bus_error error = SD_BUS_ERROR_NULL;

        if (sd_bus_get_property_trivial(t->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ConfigGeneration",
                            &error, 't', &g) < 0)
                g_test_message("ConfigGeneration: %s", error.message);
        sd_bus_error_free(&error);
        return g;
}

struct json_object *itest_parse_list(const char *out, const char *key)
{
        struct json_object *doc = json_tokener_parse(out), *list;

        if (!doc)
                return NULL;
        list = json_object_get(json_object_object_get(doc, key));
        json_object_put(doc);
        g_assert_true(json_object_is_type(list, json_type_array));
        return list;
}

struct json_object *itest_resolve_json(ITest *t, const char *exe, const char *home)
{
        g_autofree char *out = NULL;
        int r;

        if (home)
                r = itest_ctl(t, &out, "resolve", "--exe", exe, "--home", home, NULL);
        else
                r = itest_ctl(t, &out, "resolve", "--exe", exe, NULL);
        g_assert_cmpint(r, ==, 0);
        return json_tokener_parse(out);
}

const char *itest_setting(struct json_object *res, const char *key)
{
        struct json_object *settings;

        if (!res || !json_object_object_get_ex(res, "settings", &settings))
                return NULL;
        for (size_t i = 0; i < json_object_array_length(settings); i++) {
                struct json_object *s = json_object_array_get_idx(settings, i), *k, *v;
                if (json_object_object_get_ex(s, "key", &k) && g_str_equal(json_object_get_string(k), key) &&
                                json_object_object_get_ex(s, "value", &v))
                        return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
        }
        return NULL;
}

struct json_object *itest_explain_json(ITest *t, pid_t pid, int *ret_status)
{
        g_autofree char *out = NULL, *spid = g_strdup_printf("%i", (int) pid);
        int r = itest_ctl(t, &out, "explain", spid, NULL);

        if (ret_status)
                *ret_status = r;
        return r == 0 ? json_tokener_parse(out) : NULL;
}

const char *itest_jstr(struct json_object *o, const char *key)
{
        struct json_object *v;
        return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

uint32_t itest_tracked_count(ITest *t)
{
        uint32_t n = 0;
        g_assert_cmpint(sd_bus_get_property_trivial(t->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                        "TrackedProcesses", NULL, 'u', &n),
                        >=, 0);
        return n;
}

void itest_assert_absent(const char *where, const char *text, const char *needle)
{
        const char *hit = strstr(text, needle);

        if (hit) {
                size_t start = hit - text > 300 ? (size_t) (hit - text) - 300 : 0;
                g_autofree char *context = g_strndup(text + start, 600);
                g_test_message("LEAK: \"%s\" in %s: ...%s...", needle, where, context);
        }
        g_assert_null(hit);
}

void itest_user_chown(const ITestUser *u, const char *path)
{
        g_assert_cmpint(lchown(path, u->uid, u->gid), ==, 0);
}

char *itest_write_home(ITest *t, const char *name, const ITestUser *owner, const char *rc)
{
        g_autofree char *rel = g_build_filename("home", name, NULL);
        g_autofree char *home = g_build_filename(t->root, rel, NULL);
        g_autofree char *nv = g_build_filename(home, ".nv", NULL);
        g_autofree char *file = g_build_filename(nv, "nvidia-application-profiles-rc", NULL);
        g_autofree char *homes = g_build_filename(t->root, "home", NULL);
        g_autoptr(GError) error = NULL;

        g_assert_cmpint(g_mkdir_with_parents(homes, 0755), ==, 0);
        g_assert_cmpint(g_mkdir_with_parents(nv, 0700), ==, 0);
        g_assert_cmpint(chmod(home, 0700), ==, 0);
        g_file_set_contents(file, rc, -1, &error);
        g_assert_no_error(error);
        g_assert_cmpint(chmod(file, 0600), ==, 0);
        if (owner) {
                itest_user_chown(owner, home);
                itest_user_chown(owner, nv);
                itest_user_chown(owner, file);
        }
        return g_strdup_printf("HOME=/%s", rel);
}
