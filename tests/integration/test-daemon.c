/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofiled end to end: the real daemon on a private system-like bus with a --root configuration tree,
 * and either the real /proc and proc connector with processes started by the test (root), or a fixture
 * /proc tree that the daemon polls (no privileges needed). */

#include <gio/gio.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-names.h"
#include "itest.h"
#include "json-schema-check.h"

#define RCD "etc/nvidia/nvidia-application-profiles-rc.d"
#define WAIT_MS 15000

static struct json_object *explain_json(ITest *t, pid_t pid, int *ret_status)
{
        g_autofree char *out = NULL, *spid = g_strdup_printf("%i", (int) pid);
        int r = itest_ctl(t, &out, "explain", spid, NULL);

        if (ret_status)
                *ret_status = r;
        return r == 0 ? json_tokener_parse(out) : NULL;
}

static const char *jstr(struct json_object *o, const char *key)
{
        struct json_object *v;
        return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

/* A copied binary with a chosen name matches by procname; seen through the tracked state, explain
 * with file:line, and a plain bus call. */
static void test_copied_binary(void)
{
        ITest t;
        g_autoptr(GError) error = NULL;
        struct json_object *res, *settings, *s, *rule;
        sd_bus_message *reply = NULL;
        const char *state;
        GPid pid;

        ITEST_REQUIRE_ROOT("needs root: the real proc connector and a process started by the test");

        itest_setup(&t);
        itest_write(&t, RCD "/50-app",
                        "{\n"
                        "  \"profiles\": [{\"name\": \"AppProfile\", \"settings\": [\"GLSharpenEnable\", true]}],\n"
                        "  \"rules\": [{\"pattern\": \"nvptest-app\", \"profile\": \"AppProfile\"}]\n"
                        "}\n");
        itest_start_daemon(&t, NULL);
        pid = itest_spawn_helper(&t, "nvptest-app", NULL, NULL);

        ITEST_WAIT_FOR(itest_profiles_are(&t, pid, "AppProfile"), WAIT_MS);
        g_assert_true(itest_profiles_are(&t, pid, "AppProfile"));

        res = explain_json(&t, pid, NULL);
        g_assert_nonnull(res);
        g_assert_cmpstr(jstr(res, "state"), ==, "enabled");
        g_assert_true(json_object_object_get_ex(res, "settings", &settings));
        g_assert_cmpuint(json_object_array_length(settings), ==, 1);
        s = json_object_array_get_idx(settings, 0);
        g_assert_cmpstr(jstr(s, "key"), ==, "GLSharpenEnable");
        g_assert_cmpstr(itest_setting(res, "GLSharpenEnable"), ==, "true");
        g_assert_true(json_object_object_get_ex(s, "rule", &rule));
        g_assert_cmpstr(jstr(rule, "file"), ==, "/" RCD "/50-app");
        g_assert_cmpint(json_object_get_int(json_object_object_get(rule, "line")), ==, 3);
        json_object_put(res);

        /* The same through a plain method call. */
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ExplainProcess",
                                        NULL, &reply, "ut", (uint32_t) pid, UINT64_C(0)),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'r', "sa{sv}a(suussb)a(svssuussa(vssuu))as"), >=, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "s", &state), >=, 0);
        g_assert_cmpstr(state, ==, "enabled");
        sd_bus_message_unref(reply);

        /* And with busctl itself. */
        {
                g_autofree char *out = NULL, *spid = g_strdup_printf("%i", (int) pid),
                                *addr = g_strdup_printf("--address=%s", t.bus_address);
                const char *argv[] = { "busctl", addr, "call", BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                        "ExplainProcess", "ut", spid, "0", NULL };
                int status;
                g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, NULL, &status, &error);
                g_assert_no_error(error);
                g_assert_cmpint(status, ==, 0);
                g_assert_nonnull(strstr(out, "\"GLSharpenEnable\" b true \"AppProfile\""));
        }

        /* Race-free: by pidfd. */
        {
                int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
                const char *pstate;

                g_assert_cmpint(pidfd, >=, 0);
                g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                                "ExplainProcessByPidfd", NULL, &reply, "h", pidfd),
                                >=, 0);
                g_assert_cmpint(sd_bus_message_enter_container(reply, 'r', "sa{sv}a(suussb)a(svssuussa(vssuu))as"), >=,
                                0);
                g_assert_cmpint(sd_bus_message_read(reply, "s", &pstate), >=, 0);
                g_assert_cmpstr(pstate, ==, "enabled");
                reply = sd_bus_message_unref(reply);
                /* Not a pidfd: InvalidArgs. */
                {
                        sd_bus_error e = SD_BUS_ERROR_NULL;
                        int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
                        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                                        "ExplainProcessByPidfd", &e, NULL, "h", devnull),
                                        <, 0);
                        g_assert_cmpstr(e.name, ==, SD_BUS_ERROR_INVALID_ARGS);
                        sd_bus_error_free(&e);
                        close(devnull);
                }
                close(pidfd);
        }

        /* The rule and profile listings say where each one is written. */
        {
                g_autofree char *out = NULL, *out2 = NULL;
                struct json_object *rules, *profiles, *r0, *p0, *s0;

                g_assert_cmpint(itest_ctl(&t, &out, "rules", NULL), ==, 0);
                rules = itest_parse_list(out, "rules");
                g_assert_cmpuint(json_object_array_length(rules), ==, 1);
                r0 = json_object_array_get_idx(rules, 0);
                g_assert_cmpstr(jstr(r0, "pattern"), ==, "procname \"nvptest-app\"");
                g_assert_cmpstr(jstr(r0, "profile"), ==, "AppProfile");
                g_assert_cmpstr(jstr(r0, "profile_location"), ==, "/" RCD "/50-app:2:16");
                json_object_put(rules);

                g_assert_cmpint(itest_ctl(&t, &out2, "profiles", NULL), ==, 0);
                profiles = itest_parse_list(out2, "profiles");
                g_assert_cmpuint(json_object_array_length(profiles), ==, 1);
                p0 = json_object_array_get_idx(profiles, 0);
                g_assert_cmpstr(jstr(p0, "name"), ==, "AppProfile");
                s0 = json_object_array_get_idx(json_object_object_get(p0, "settings"), 0);
                g_assert_cmpstr(jstr(s0, "key"), ==, "GLSharpenEnable");
                g_assert_true(json_object_get_boolean(json_object_object_get(s0, "value")));
                json_object_put(profiles);
        }

        itest_kill(pid);
        /* Gone from the tracked state once it exits (EXIT event). */
        ITEST_WAIT_FOR(!itest_is_tracked(&t, pid), WAIT_MS);
        g_assert_false(itest_is_tracked(&t, pid));
        itest_teardown(&t);
}

/* A process that renames itself (PR_SET_NAME) is re-evaluated on the COMM event. */
static void test_comm_rename(void)
{
        ITest t;
        const char *args[] = { "--rename", "nvp-renamed", "--delay-ms", "500", NULL };
        GPid pid;

        ITEST_REQUIRE_ROOT("needs root: the proc connector's COMM event");

        itest_setup(&t);
        itest_write(&t, RCD "/50-comm",
                        "{\"rules\": [{\"pattern\": {\"feature\": \"commname\", \"matches\": \"nvp-renamed\"},"
                        " \"profile\": {\"name\": \"Renamed\", \"settings\": [\"GLLogMaxAniso\", 4]}}]}\n");
        /* No settle re-reads: only the COMM event can find the new name. */
        itest_start_daemon(&t, "[ProcessWatch]\nSettleSec=0\n");
        pid = itest_spawn_helper(&t, "nvptest-rename", NULL, args);

        ITEST_WAIT_FOR(itest_profiles_are(&t, pid, "Renamed"), WAIT_MS);
        g_assert_true(itest_profiles_are(&t, pid, "Renamed"));
        itest_kill(pid);
        itest_teardown(&t);
}

/* A process that dlopen()s a library named in a dso rule matches once it is mapped (settle re-read). */
static void test_dlopen(void)
{
        ITest t;
        const char *args[] = { "--dlopen", g_getenv("NVPROFILED_DSO_LIB"), "--delay-ms", "50", NULL };
        GPid pid;

        ITEST_REQUIRE_ROOT("needs root: a real process's /proc/<pid>/maps");

        itest_setup(&t);
        itest_write(&t, RCD "/50-dso",
                        "{\"rules\": [{\"pattern\": {\"feature\": \"dso\", \"matches\": \"libnvptest-dso\"},"
                        " \"profile\": {\"name\": \"DsoProfile\", \"settings\": [\"GLVidHeapReuseRatio\", 0]}}]}\n");
        itest_start_daemon(&t, NULL);
        pid = itest_spawn_helper(&t, "nvptest-dlopen", NULL, args);

        ITEST_WAIT_FOR(itest_profiles_are(&t, pid, "DsoProfile"), WAIT_MS);
        g_assert_true(itest_profiles_are(&t, pid, "DsoProfile"));
        itest_kill(pid);
        itest_teardown(&t);
}

/* pid's first setting, GLThreadedOptimizations, is overridden by __GL_THREADED_OPTIMIZATIONS=0 in its
 * environment (explain says so); its second, GLSharpenValue, is not. */
static void assert_threaded_overridden(ITest *t, pid_t pid)
{
        struct json_object *res = explain_json(t, pid, NULL), *settings, *s;

        g_assert_nonnull(res);
        g_assert_true(json_object_object_get_ex(res, "settings", &settings));
        s = json_object_array_get_idx(settings, 0);
        g_assert_cmpstr(jstr(s, "key"), ==, "GLThreadedOptimizations");
        g_assert_true(json_object_get_boolean(json_object_object_get(s, "overridden")));
        g_assert_cmpstr(jstr(s, "env_variable"), ==, "__GL_THREADED_OPTIMIZATIONS");
        g_assert_cmpstr(jstr(s, "env_value"), ==, "0");
        s = json_object_array_get_idx(settings, 1);
        g_assert_cmpstr(jstr(s, "key"), ==, "GLSharpenValue");
        g_assert_false(json_object_get_boolean(json_object_object_get(s, "overridden")));
        json_object_put(res);
}

/* __GL_* in the environment overrides a key; __GL_APPLICATION_PROFILE=0 disables profiles. */
static void test_gl_environment(void)
{
        ITest t;
        const char *env_override[] = { "__GL_THREADED_OPTIMIZATIONS=0", NULL };
        const char *env_off[] = { "__GL_APPLICATION_PROFILE=0", NULL };
        struct json_object *res;
        GPid a, b;

        ITEST_REQUIRE_ROOT("needs root: real processes' environments");

        itest_setup(&t);
        itest_write(&t, RCD "/50-env",
                        "{\"rules\": [{\"pattern\": \"nvptest-env\","
                        " \"profile\": [\"GLThreadedOptimizations\", true, \"GLSharpenValue\", 10]}]}\n");
        itest_start_daemon(&t, NULL);
        a = itest_spawn_helper(&t, "nvptest-env", env_override, NULL);

        assert_threaded_overridden(&t, a);
        itest_kill(a);

        b = itest_spawn_helper(&t, "nvptest-env", env_off, NULL);
        res = explain_json(&t, b, NULL);
        g_assert_cmpstr(jstr(res, "state"), ==, "disabled-by-environment");
        json_object_put(res);
        /* Tracked too, with no effective settings. */
        ITEST_WAIT_FOR(itest_is_tracked(&t, b), WAIT_MS);
        g_assert_true(itest_is_tracked(&t, b));
        itest_kill(b);
        itest_teardown(&t);
}

/* Issue 28: the daemon as the unit runs it (a system user with the unit's ambient capabilities). After
 * it read a root process (its credentials switched to fsuid 0 and back) and another user's private rc
 * file (switched to that user and back), it still reads a third user's process environment: that user's
 * own rc file applies to the process, and the __GL_* variable in the environment is shown overriding
 * it. Before the fix, the way back from fsuid 0 lost CAP_DAC_READ_SEARCH for good: no process of
 * another user had a HOME any more. */
static void test_deployed_own_rc_file(void)
{
        ITest t;
        ITestUser alice, bob;
        g_autofree char *root_home = NULL, *bob_home = NULL, *alice_home = NULL;
        const char *gl_override = "__GL_THREADED_OPTIMIZATIONS=0";
        GPid root_pid, bob_pid, alice_pid;

        ITEST_REQUIRE_ROOT("needs root: users to create, and the daemon started as one of them");

        itest_setup_deployed(&t);
        itest_create_user("nvpa", &alice);
        itest_create_user("nvpb", &bob);
        root_home = itest_write_home(&t, "rootish", NULL,
                        "{\"rules\": [{\"pattern\": \"nvptest-dr\", \"profile\": {\"name\": \"RootOwn\","
                        " \"settings\": [\"GLSharpenValue\", 3]}}]}\n");
        bob_home = itest_write_home(&t, bob.name, &bob,
                        "{\"rules\": [{\"pattern\": \"nvptest-db\", \"profile\": {\"name\": \"BobOwn\","
                        " \"settings\": [\"GLSharpenValue\", 5]}}]}\n");
        alice_home = itest_write_home(&t, alice.name, &alice,
                        "{\"rules\": [{\"pattern\": \"nvptest-da\", \"profile\": {\"name\": \"AliceOwn\","
                        " \"settings\": [\"GLThreadedOptimizations\", true, \"GLSharpenValue\", 10]}}]}\n");
        itest_start_daemon(&t, NULL);

        /* Root's process first: read as fsuid 0, and its own rc file applies. */
        root_pid = itest_spawn_helper(&t, "nvptest-dr", (const char *const[]){ root_home, NULL }, NULL);
        ITEST_WAIT_FOR(itest_profiles_are(&t, root_pid, "RootOwn"), WAIT_MS);
        g_assert_true(itest_profiles_are(&t, root_pid, "RootOwn"));

        /* Another user's process, its private file read as that user. */
        t.helper_user = &bob;
        bob_pid = itest_spawn_helper(&t, "nvptest-db", (const char *const[]){ bob_home, NULL }, NULL);
        ITEST_WAIT_FOR(itest_profiles_are(&t, bob_pid, "BobOwn"), WAIT_MS);
        g_assert_true(itest_profiles_are(&t, bob_pid, "BobOwn"));

        /* The user's own file for the user's own process, and the environment's override seen. */
        t.helper_user = &alice;
        alice_pid = itest_spawn_helper(&t, "nvptest-da", (const char *const[]){ alice_home, gl_override, NULL }, NULL);
        t.helper_user = NULL;
        ITEST_WAIT_FOR(itest_profiles_are(&t, alice_pid, "AliceOwn"), WAIT_MS);
        g_assert_true(itest_profiles_are(&t, alice_pid, "AliceOwn"));
        assert_threaded_overridden(&t, alice_pid);

        itest_kill(alice_pid);
        itest_kill(bob_pid);
        itest_kill(root_pid);
        itest_teardown(&t);
}

/* Whether the JSON changes of an edit (nvprofilectl --json) name pid changing key. */
static bool changes_name(struct json_object *out, pid_t pid, const char *key)
{
        struct json_object *changes;

        if (!out || !json_object_object_get_ex(out, "changes", &changes))
                return false;
        for (size_t i = 0; i < json_object_array_length(changes); i++) {
                struct json_object *c = json_object_array_get_idx(changes, i);

                if (json_object_get_int(json_object_object_get(c, "pid")) == pid && g_strcmp0(jstr(c, "key"), key) == 0)
                        return true;
        }
        return false;
}

/* Issue 28: root's --system edit under the unit's daemon (not uid 0 itself) is root's: its preview and its
 * result list the running processes of every user that change, and the journal names uid 0 (before,
 * both were the daemon's own user's: no process changed, "uid 996: add-rule"). */
static void test_deployed_system_edit(void)
{
        ITest t;
        ITestUser alice;
        g_autofree char *out = NULL, *log = NULL, *log_path = NULL, *file = NULL;
        struct json_object *res;
        struct stat st;
        GPid root_pid, alice_pid;

        ITEST_REQUIRE_ROOT("needs root: users to create, and the daemon started as one of them");

        itest_setup_deployed(&t);
        itest_create_user("nvpa", &alice);
        itest_write(&t, RCD "/10-other", "{\"rules\": []}\n");
        itest_start_daemon(&t, NULL);
        root_pid = itest_spawn_helper(&t, "nvptest-se", NULL, NULL);
        t.helper_user = &alice;
        alice_pid = itest_spawn_helper(&t, "nvptest-se", NULL, NULL);
        t.helper_user = NULL;
        ITEST_WAIT_FOR(itest_is_tracked(&t, root_pid) && itest_is_tracked(&t, alice_pid), WAIT_MS);

        g_assert_cmpint(itest_ctl(&t, &out, "rules", "add", "--system", "--file", "50-sys", "--procname", "nvptest-se",
                                        "--setting", "GLSharpenValue=9", "--dry-run", NULL),
                        ==, 0);
        res = json_tokener_parse(out);
        g_assert_true(changes_name(res, root_pid, "GLSharpenValue"));
        g_assert_true(changes_name(res, alice_pid, "GLSharpenValue"));
        json_object_put(res);
        g_clear_pointer(&out, g_free);

        g_assert_cmpint(itest_ctl(&t, &out, "rules", "add", "--system", "--file", "50-sys", "--procname", "nvptest-se",
                                        "--setting", "GLSharpenValue=9", NULL),
                        ==, 0);
        res = json_tokener_parse(out);
        g_assert_true(changes_name(res, root_pid, "GLSharpenValue"));
        g_assert_true(changes_name(res, alice_pid, "GLSharpenValue"));
        json_object_put(res);
        /* Written as root's file. */
        file = g_build_filename(t.root, RCD, "50-sys", NULL);
        g_assert_cmpint(stat(file, &st), ==, 0);
        g_assert_cmpuint(st.st_uid, ==, 0);
        log_path = g_build_filename(t.dir, "daemon.log", NULL);
        g_assert_true(g_file_get_contents(log_path, &log, NULL, NULL));
        g_assert_nonnull(strstr(log, "uid 0: add-rule"));

        itest_kill(alice_pid);
        itest_kill(root_pid);
        itest_teardown(&t);
}

/* status --json's process_access, and status's text in *ret_text. */
static char *process_access(ITest *t, char **ret_text)
{
        g_autofree char *out = NULL;
        struct json_object *o;
        char *access;

        g_assert_cmpint(itest_ctl(t, &out, "status", NULL), ==, 0);
        o = json_tokener_parse(out);
        g_assert_nonnull(o);
        access = g_strdup(jstr(o, "process_access"));
        json_object_put(o);
        g_assert_cmpint(itest_ctl(t, ret_text, "--json=off", "status", NULL), ==, 0);
        return access;
}

/* Issue 28: the start-up self-test. As deployed it reads what only CAP_DAC_READ_SEARCH may after a round
 * trip of credential switches: "ok", and status is silent about it (before the fix of user-creds.c the
 * way back from fsuid 0 lost the capability: "denied"). Without CAP_DAC_READ_SEARCH: "denied", said by
 * status and by the log. */
static void test_deployed_self_test(void)
{
        ITest t;
        g_autofree char *access = NULL, *text = NULL, *log = NULL, *log_path = NULL;

        ITEST_REQUIRE_ROOT("needs root: the daemon started as a user the case creates");

        itest_setup_deployed(&t);
        itest_start_daemon(&t, NULL);
        access = process_access(&t, &text);
        g_assert_cmpstr(access, ==, "ok");
        itest_assert_absent("status", text, "Process access");
        itest_stop_daemon(&t, NULL);
        g_clear_pointer(&access, g_free);
        g_clear_pointer(&text, g_free);

        t.without_dac_override = true;
        itest_start_daemon(&t, NULL);
        access = process_access(&t, &text);
        g_assert_cmpstr(access, ==, "denied");
        g_assert_nonnull(strstr(text, "Process access: DENIED"));
        log_path = g_build_filename(t.dir, "daemon.log", NULL);
        g_assert_true(g_file_get_contents(log_path, &log, NULL, NULL));
        g_assert_nonnull(strstr(log, "Start-up self-test failed"));
        itest_teardown(&t);
}

static char *object_of(ITest *t, pid_t pid, bool *ret_gpu)
{
        g_autofree char *out = NULL;
        struct json_object *list;
        char *path = NULL;

        g_assert_cmpint(itest_ctl(t, &out, "processes", "--all", NULL), ==, 0);
        list = itest_parse_list(out, "processes");
        for (size_t i = 0; list && i < json_object_array_length(list); i++) {
                struct json_object *o = json_object_array_get_idx(list, i);
                if (json_object_get_int(json_object_object_get(o, "pid")) == pid && jstr(o, "object"))
                        path = g_strdup(jstr(o, "object"));
        }
        json_object_put(list);
        if (path && ret_gpu) {
                int gpu = 0;
                sd_bus_get_property_trivial(t->bus, BUS_NAME, path, BUS_PROCESS_INTERFACE, "GpuUser", NULL, 'b', &gpu);
                *ret_gpu = gpu;
        }
        return path;
}

static bool gpu_object_present(ITest *t, pid_t pid)
{
        bool gpu = false;
        g_autofree char *o = object_of(t, pid, &gpu);
        return o && gpu;
}

/* Opening a GPU device node makes the process a GPU user with an object, even with no rule. */
static void test_gpu_open(void)
{
        ITest t;
        g_autofree char *card = NULL;
        const char *args[3];
        bool gpu = false;
        GPid pid;

        ITEST_REQUIRE_ROOT("needs root: the GPU-open sweep over real processes' fds");

        itest_setup(&t);
        card = g_build_filename(t.devdir, "dri", "card0", NULL);
        args[0] = "--open";
        args[1] = card;
        args[2] = NULL;
        itest_start_daemon(&t, NULL);
        pid = itest_spawn_helper(&t, "nvptest-gpu", NULL, args);

        ITEST_WAIT_FOR(gpu_object_present(&t, pid), WAIT_MS);
        {
                g_autofree char *o = object_of(&t, pid, &gpu);
                g_autofree char *prefix = g_strdup_printf(BUS_PROCESS_PREFIX "/%i_", (int) pid);
                g_assert_nonnull(o);
                g_assert_true(gpu);
                g_assert_true(g_str_has_prefix(o, prefix));
        }
        itest_kill(pid);
        itest_teardown(&t);
}

static bool resolves_to(ITest *t, const char *exe, const char *home, const char *key, const char *expected)
{
        struct json_object *res = itest_resolve_json(t, exe, home);
        const char *v = itest_setting(res, key);
        bool ok = expected ? (v && g_str_equal(v, expected)) : v == NULL;

        json_object_put(res);
        return ok;
}

static void rewrite(ITest *t, const char *rel, int value)
{
        g_autofree char *text = g_strdup_printf(
                        "{\"rules\": [{\"pattern\": \"edit-target\", \"profile\": [\"K\", %d]}]}\n", value);
        itest_write(t, rel, text);
}

/* Whether `nvprofilectl errors` lists an error in file with that state. Its exit status must agree
 * with the listing as a whole: 1 exactly when some error is listed (of any file), else 0. */
static bool error_listed(ITest *t, const char *file, const char *state)
{
        g_autofree char *out = NULL;
        struct json_object *list;
        bool found = false, any_error = false;
        int status;

        status = itest_ctl(t, &out, "errors", NULL);
        g_assert_cmpint(status, >=, 0);
        g_assert_cmpint(status, <=, 1);
        list = itest_parse_list(out, "errors");
        g_assert_nonnull(list);
        for (size_t i = 0; i < json_object_array_length(list); i++) {
                struct json_object *o = json_object_array_get_idx(list, i);
                bool is_error = g_strcmp0(jstr(o, "severity"), "error") == 0;

                any_error = any_error || is_error;
                if (is_error && g_strcmp0(jstr(o, "file"), file) == 0 && g_strcmp0(jstr(o, "state"), state) == 0)
                        found = true;
        }
        json_object_put(list);
        g_assert_cmpint(status, ==, any_error ? 1 : 0);
        return found;
}

/* Every kind of rc edit is picked up by inotify within the coalescing window, and the loaded state
 * follows the disk; a broken save keeps the last good version. */
static void test_rc_edits(void)
{
        ITest t;
        g_autofree char *rcd = NULL, *tmp = NULL, *target = NULL, *other = NULL;
        uint64_t g0;

        itest_setup(&t);
        /* No processes involved: a fixture /proc, no root needed. */
        itest_use_fixture_proc(&t);
        itest_write(&t, "etc/nvidia/placeholder", "");
        itest_start_daemon(&t, NULL);
        rcd = g_build_filename(t.root, RCD, NULL);
        g0 = itest_generation(&t);
        g_assert_true(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", NULL));

        /* Create rc.d after start-up, with a file in it. */
        rewrite(&t, RCD "/10-a", 1);
        ITEST_WAIT_FOR(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", "1"), WAIT_MS);
        g_assert_true(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", "1"));
        g_assert_cmpuint(itest_generation(&t), >, g0);

        /* Modify in place. */
        rewrite(&t, RCD "/10-a", 2);
        ITEST_WAIT_FOR(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", "2"), WAIT_MS);
        g_assert_true(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", "2"));

        /* An editor's atomic save: write elsewhere, rename over. */
        rewrite(&t, RCD "/.10-a.swp", 3);
        tmp = g_build_filename(rcd, ".10-a.swp", NULL);
        target = g_build_filename(rcd, "10-a", NULL);
        g_assert_cmpint(rename(tmp, target), ==, 0);
        ITEST_WAIT_FOR(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", "3"), WAIT_MS);
        g_assert_true(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", "3"));

        /* A broken save: reported, and the last good version stays in force. */
        itest_write(&t, RCD "/10-a", "{\"rules\": [{\"pattern\": \"edit-target\" \"profile\": [\"K\", 9]}]}\n");
        ITEST_WAIT_FOR(error_listed(&t, "/" RCD "/10-a", "stale"), WAIT_MS);
        g_assert_true(error_listed(&t, "/" RCD "/10-a", "stale"));
        g_assert_true(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", "3"));

        /* Fixed again. */
        rewrite(&t, RCD "/10-a", 4);
        ITEST_WAIT_FOR(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", "4"), WAIT_MS);
        g_assert_true(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", "4"));
        g_assert_false(error_listed(&t, "/" RCD "/10-a", "stale"));

        /* Deleted. */
        g_assert_cmpint(unlink(target), ==, 0);
        ITEST_WAIT_FOR(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", NULL), WAIT_MS);
        g_assert_true(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", NULL));

        /* rc.d replaced by a symlink to another directory; then a change in the link's target. */
        other = g_build_filename(t.root, "srv", "profiles", NULL);
        rewrite(&t, "srv/profiles/20-b", 5);
        g_assert_cmpint(rmdir(rcd), ==, 0);
        g_assert_cmpint(symlink("/srv/profiles", rcd), ==, 0);
        ITEST_WAIT_FOR(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", "5"), WAIT_MS);
        g_assert_true(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", "5"));
        rewrite(&t, "srv/profiles/20-b", 6);
        ITEST_WAIT_FOR(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", "6"), WAIT_MS);
        g_assert_true(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", "6"));

        /* A user's rc.d created after the daemon first looked at that $HOME: it outranks /etc. The home
         * exists (and is ours: a caller may only name a home it could read). */
        itest_write(&t, "home/u/.profile", "");
        g_assert_true(resolves_to(&t, "/usr/bin/edit-target", "/home/u", "K", "6"));
        rewrite(&t, "home/u/.nv/nvidia-application-profiles-rc.d/10-user", 7);
        ITEST_WAIT_FOR(resolves_to(&t, "/usr/bin/edit-target", "/home/u", "K", "7"), WAIT_MS);
        g_assert_true(resolves_to(&t, "/usr/bin/edit-target", "/home/u", "K", "7"));
        g_assert_true(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", "6"));

        itest_teardown(&t);
}

/* The documented XML and the live introspection describe the same interfaces: the same methods,
 * properties and signals, each argument with the same name, type and direction in the same place, each
 * property with the same type and access, and the same annotations everywhere. */
static guint count_of(gpointer *array)
{
        guint n = 0;

        while (array && array[n])
                n++;
        return n;
}

static void assert_same_annotations(const char *what, GDBusAnnotationInfo **doc, GDBusAnnotationInfo **live)
{
        g_test_message("annotations of %s", what);
        g_assert_cmpuint(count_of((gpointer *) doc), ==, count_of((gpointer *) live));
        for (guint i = 0; doc && doc[i]; i++) {
                g_test_message("annotation %s=%s", doc[i]->key, doc[i]->value);
                g_assert_cmpstr(g_dbus_annotation_info_lookup(live, doc[i]->key), ==, doc[i]->value);
        }
}

static void assert_same_args(const char *what, GDBusArgInfo **doc, GDBusArgInfo **live)
{
        g_test_message("arguments of %s", what);
        g_assert_cmpuint(count_of((gpointer *) doc), ==, count_of((gpointer *) live));
        for (guint k = 0; doc && doc[k]; k++) {
                g_assert_cmpstr(doc[k]->name, ==, live[k]->name);
                g_assert_cmpstr(doc[k]->signature, ==, live[k]->signature);
                assert_same_annotations(doc[k]->name, doc[k]->annotations, live[k]->annotations);
        }
}

static void assert_same_interface(GDBusInterfaceInfo *doc, GDBusInterfaceInfo *live)
{
        g_assert_nonnull(doc);
        g_assert_nonnull(live);
        g_test_message("interface %s", doc->name);
        assert_same_annotations(doc->name, doc->annotations, live->annotations);

        g_assert_cmpuint(count_of((gpointer *) doc->methods), ==, count_of((gpointer *) live->methods));
        for (guint i = 0; doc->methods && doc->methods[i]; i++) {
                GDBusMethodInfo *dm = doc->methods[i], *lm = g_dbus_interface_info_lookup_method(live, dm->name);
                g_autofree char *in = g_strdup_printf("%s (in)", dm->name),
                                *out = g_strdup_printf("%s (out)", dm->name);

                g_test_message("method %s", dm->name);
                g_assert_nonnull(lm);
                /* Separate lists: an argument that changed direction changes both counts. */
                assert_same_args(in, dm->in_args, lm->in_args);
                assert_same_args(out, dm->out_args, lm->out_args);
                assert_same_annotations(dm->name, dm->annotations, lm->annotations);
        }

        g_assert_cmpuint(count_of((gpointer *) doc->properties), ==, count_of((gpointer *) live->properties));
        for (guint i = 0; doc->properties && doc->properties[i]; i++) {
                GDBusPropertyInfo *dp = doc->properties[i], *lp = g_dbus_interface_info_lookup_property(live, dp->name);

                g_test_message("property %s", dp->name);
                g_assert_nonnull(lp);
                g_assert_cmpstr(dp->signature, ==, lp->signature);
                g_assert_cmpint(dp->flags, ==, lp->flags);
                assert_same_annotations(dp->name, dp->annotations, lp->annotations);
        }

        g_assert_cmpuint(count_of((gpointer *) doc->signals), ==, count_of((gpointer *) live->signals));
        for (guint i = 0; doc->signals && doc->signals[i]; i++) {
                GDBusSignalInfo *ds = doc->signals[i], *ls = g_dbus_interface_info_lookup_signal(live, ds->name);

                g_test_message("signal %s", ds->name);
                g_assert_nonnull(ls);
                assert_same_args(ds->name, ds->args, ls->args);
                assert_same_annotations(ds->name, ds->annotations, ls->annotations);
        }
}

/* Every interface of ours that an object carries is documented. */
static void assert_only_documented(GDBusNodeInfo *doc, GDBusNodeInfo *live)
{
        for (guint i = 0; live->interfaces && live->interfaces[i]; i++) {
                const char *name = live->interfaces[i]->name;

                if (g_str_has_prefix(name, "org.freedesktop.DBus."))
                        continue;
                g_test_message("live interface %s", name);
                g_assert_nonnull(g_dbus_node_info_lookup_interface(doc, name));
        }
}

static GDBusNodeInfo *introspect(ITest *t, const char *path)
{
        sd_bus_message *reply = NULL;
        g_autoptr(GError) error = NULL;
        GDBusNodeInfo *node;
        const char *xml;

        g_assert_cmpint(sd_bus_call_method(t->bus, BUS_NAME, path, "org.freedesktop.DBus.Introspectable", "Introspect",
                                        NULL, &reply, NULL),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "s", &xml), >=, 0);
        node = g_dbus_node_info_new_for_xml(xml, &error);
        g_assert_no_error(error);
        sd_bus_message_unref(reply);
        return node;
}

/* Needs no root: a fixture /proc process that a rule matches gets the Process object. */
static void test_xml_matches_introspection(void)
{
        ITest t;
        g_autofree char *doc_text = NULL, *path = NULL;
        g_autoptr(GError) error = NULL;
        GDBusNodeInfo *doc, *root, *proc;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_write(&t, RCD "/50-x", "{\"rules\": [{\"pattern\": \"nvptest-xml\", \"profile\": [\"k\", 1]}]}");
        itest_fixture_process(&t, 4242, 5555, geteuid(), "nvptest-xml", "/usr/bin/nvptest-xml", NULL);
        itest_start_daemon(&t, NULL);
        ITEST_WAIT_FOR((path = object_of(&t, 4242, NULL)) != NULL, WAIT_MS);
        g_assert_nonnull(path);

        g_file_get_contents(g_getenv("NVPROFILED_DBUS_XML"), &doc_text, NULL, &error);
        g_assert_no_error(error);
        doc = g_dbus_node_info_new_for_xml(doc_text, &error);
        g_assert_no_error(error);

        root = introspect(&t, BUS_ROOT_PATH);
        proc = introspect(&t, path);
        assert_same_interface(g_dbus_node_info_lookup_interface(doc, BUS_MANAGER_INTERFACE),
                        g_dbus_node_info_lookup_interface(root, BUS_MANAGER_INTERFACE));
        assert_same_interface(g_dbus_node_info_lookup_interface(doc, BUS_PROCESS_INTERFACE),
                        g_dbus_node_info_lookup_interface(proc, BUS_PROCESS_INTERFACE));
        assert_same_interface(g_dbus_node_info_lookup_interface(doc, BUS_USAGE_INTERFACE),
                        g_dbus_node_info_lookup_interface(root, BUS_USAGE_INTERFACE));
        assert_same_interface(g_dbus_node_info_lookup_interface(doc, BUS_PROCESS_USAGE_INTERFACE),
                        g_dbus_node_info_lookup_interface(proc, BUS_PROCESS_USAGE_INTERFACE));
        assert_only_documented(doc, root);
        assert_only_documented(doc, proc);
        g_assert_nonnull(g_dbus_node_info_lookup_interface(root, "org.freedesktop.DBus.ObjectManager"));

        g_dbus_node_info_unref(doc);
        g_dbus_node_info_unref(root);
        g_dbus_node_info_unref(proc);
        itest_teardown(&t);
}

/* Unprivileged callers get what is theirs and nothing else. */
static void test_privacy(void)
{
        ITest t;
        g_autofree char *out = NULL, *spid = NULL;
        struct json_object *list;
        bool seen = false;
        GPid pid;

        ITEST_REQUIRE_ROOT("needs root: dropping to nobody, and a root process to hide");

        itest_setup(&t);
        itest_write(&t, RCD "/50-p",
                        "{\"rules\": [{\"pattern\": \"nvptest-priv\", \"profile\": {\"name\": \"Secret\", \"settings\": [\"k\", 1]}}]}");
        itest_start_daemon(&t, NULL);
        pid = itest_spawn_helper(&t, "nvptest-priv", NULL, NULL);
        spid = g_strdup_printf("%i", (int) pid);
        ITEST_WAIT_FOR(itest_profiles_are(&t, pid, "Secret"), WAIT_MS);

        /* Status and listing work; root's process is shown without executable or profiles. */
        g_assert_cmpint(itest_ctl_as_nobody(&t, NULL, "status", NULL), ==, 0);
        g_assert_cmpint(itest_ctl_as_nobody(&t, &out, "processes", "--all", NULL), ==, 0);
        list = itest_parse_list(out, "processes");
        g_assert_nonnull(list);
        for (size_t i = 0; i < json_object_array_length(list); i++) {
                struct json_object *o = json_object_array_get_idx(list, i);
                if (json_object_get_int(json_object_object_get(o, "pid")) != pid)
                        continue;
                seen = true;
                g_assert_null(jstr(o, "executable")); /* not known to the caller */
                g_assert_cmpuint(json_object_array_length(json_object_object_get(o, "profiles")), ==, 0);
                g_assert_cmpint(json_object_get_int(json_object_object_get(o, "settings")), ==, 0);
        }
        g_assert_true(seen);
        json_object_put(list);

        /* Explaining root's process: refused by the daemon. Reload: refused by the bus policy. */
        g_assert_cmpint(itest_ctl_as_nobody(&t, NULL, "explain", spid, NULL), ==, 1);
        g_assert_cmpint(itest_ctl_as_nobody(&t, NULL, "reload", NULL), ==, 1);
        /* Root may do both. */
        g_assert_cmpint(itest_ctl(&t, NULL, "explain", spid, NULL), ==, 0);
        g_assert_cmpint(itest_ctl(&t, NULL, "reload", NULL), ==, 0);
        /* Hypothetical resolution is open to all. */
        g_assert_cmpint(itest_ctl_as_nobody(&t, NULL, "resolve", "--exe", "/usr/bin/nvptest-priv", NULL), ==, 0);

        itest_kill(pid);
        itest_teardown(&t);
}

/* A second instance fails with a clear message; SIGHUP reloads; SIGTERM exits cleanly. */
static void test_lifecycle(void)
{
        ITest t;
        g_autofree char *err = NULL, *bus_arg = NULL, *root_arg = NULL;
        g_autoptr(GError) error = NULL;
        uint64_t g0;
        int status, exit_status;

        itest_setup(&t);
        /* No processes involved: a fixture /proc, no root needed. */
        itest_use_fixture_proc(&t);
        t.with_notify = true;
        itest_start_daemon(&t, NULL);

        bus_arg = g_strdup_printf("--bus=%s", t.bus_address);
        root_arg = g_strdup_printf("--root=%s", t.root);
        {
                const char *argv[] = { g_getenv("NVPROFILED_BIN"), bus_arg, root_arg, NULL };
                g_spawn_sync(NULL, (char **) argv, NULL, 0, NULL, NULL, NULL, &err, &status, &error);
                g_assert_no_error(error);
                g_assert_true(WIFEXITED(status));
                g_assert_cmpint(WEXITSTATUS(status), ==, 1);
                g_assert_nonnull(strstr(err, "Another nvprofiled already owns"));
        }

        /* What systemd is told: ready (with a status line), watchdog pings, reloading, stopping. */
        g_assert_true(itest_wait_notify(&t, "READY=1", WAIT_MS));
        g_assert_true(itest_wait_notify(&t, "WATCHDOG=1", WAIT_MS));

        g0 = itest_generation(&t);
        kill(t.daemon_pid, SIGHUP);
        g_assert_true(itest_wait_notify(&t, "RELOADING=1", WAIT_MS));
        ITEST_WAIT_FOR(itest_generation(&t) > g0, WAIT_MS);
        g_assert_cmpuint(itest_generation(&t), >, g0);

        itest_stop_daemon(&t, &exit_status);
        g_assert_cmpint(exit_status, ==, 0);
        g_assert_true(itest_wait_notify(&t, "STOPPING=1", WAIT_MS));

        /* The client says so when nobody answers. */
        {
                g_autofree char *out = NULL;
                g_assert_cmpint(itest_ctl(&t, &out, "status", NULL), ==, 1);
        }
        itest_teardown(&t);
}

static uint64_t manager_u64(ITest *t, const char *prop)
{
        uint64_t v = 0;
        g_assert_cmpint(sd_bus_get_property_trivial(
                                        t->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, prop, NULL, 't', &v),
                        >=, 0);
        return v;
}

/* A receive buffer too small for a burst of execs: the kernel drops events (ENOBUFS), the daemon
 * rescans /proc, and no long-lived process is missed, nor any exited one kept. */
static void test_overrun_rescan(void)
{
        ITest t;
        GPid longs[5];
        pid_t burst[400];
        unsigned stale = 0;

        ITEST_REQUIRE_ROOT("needs root: the proc connector and its overrun");

        itest_setup(&t);
        itest_write(&t, RCD "/50-long",
                        "{\"rules\": [{\"pattern\": \"nvptest-long\", \"profile\": {\"name\": \"Long\", \"settings\": [\"k\", 1]}}]}");
        itest_start_daemon(&t, "[ProcessWatch]\nReceiveBufferSize=1K\n");

        /* The daemon is stopped while the burst happens, so its socket fills for sure. */
        kill(t.daemon_pid, SIGSTOP);
        for (unsigned i = 0; i < G_N_ELEMENTS(burst); i++) {
                burst[i] = fork();
                g_assert_cmpint(burst[i], >=, 0);
                if (burst[i] == 0)
                        _exit(0);
        }
        for (unsigned i = 0; i < G_N_ELEMENTS(longs); i++) {
                /* Spawned while stopped: itest_spawn_helper only waits for the helper, not the daemon. */
                longs[i] = itest_spawn_helper(&t, "nvptest-long", NULL, NULL);
        }
        for (unsigned i = 0; i < G_N_ELEMENTS(burst); i++)
                waitpid(burst[i], NULL, 0);
        kill(t.daemon_pid, SIGCONT);

        ITEST_WAIT_FOR(manager_u64(&t, "EventOverruns") > 0, WAIT_MS);
        g_assert_cmpuint(manager_u64(&t, "EventOverruns"), >, 0);
        for (unsigned i = 0; i < G_N_ELEMENTS(longs); i++) {
                ITEST_WAIT_FOR(itest_profiles_are(&t, longs[i], "Long"), WAIT_MS);
                g_assert_true(itest_profiles_are(&t, longs[i], "Long"));
        }
        for (unsigned i = 0; i < G_N_ELEMENTS(burst); i++)
                stale += itest_is_tracked(&t, burst[i]);
        g_assert_cmpuint(stale, ==, 0);

        for (unsigned i = 0; i < G_N_ELEMENTS(longs); i++)
                itest_kill(longs[i]);
        itest_teardown(&t);
}

static const char *status_field(ITest *t, const char *key, char **buf)
{
        struct json_object *status;
        g_autofree char *out = NULL;

        g_assert_cmpint(itest_ctl(t, &out, "status", NULL), ==, 0);
        status = json_tokener_parse(out);
        g_assert_nonnull(status);
        g_free(*buf);
        *buf = g_strdup(jstr(status, key));
        json_object_put(status);
        return *buf;
}

/* Mode=poll on the live /proc (what an unprivileged daemon gets there): a real process is still found,
 * and status says how processes are watched. */
static void test_polling_live(void)
{
        ITest t;
        g_autofree char *mode = NULL;
        GPid pid;

        ITEST_REQUIRE_ROOT("reads the live /proc as the daemon's user would on a real system");
        itest_setup(&t);
        itest_write(&t, RCD "/50-poll",
                        "{\"rules\": [{\"pattern\": \"nvptest-poll\", \"profile\": {\"name\": \"Polled\", \"settings\": [\"k\", 1]}}]}");
        itest_start_daemon(&t, "[ProcessWatch]\nMode=poll\nPollIntervalSec=200ms\n");
        g_assert_cmpstr(status_field(&t, "process_watch_mode", &mode), ==, "polling");

        pid = itest_spawn_helper(&t, "nvptest-poll", NULL, NULL);
        ITEST_WAIT_FOR(itest_profiles_are(&t, pid, "Polled"), WAIT_MS);
        g_assert_true(itest_profiles_are(&t, pid, "Polled"));
        itest_kill(pid);
        ITEST_WAIT_FOR(!itest_is_tracked(&t, pid), WAIT_MS);
        g_assert_false(itest_is_tracked(&t, pid));
        itest_teardown(&t);
}

/* A fixture /proc is polled (process events carry live pids): processes that appear, exec (a new start
 * time under the same pid) and exit are followed. No root needed. */
static void test_polling(void)
{
        ITest t;
        g_autofree char *mode = NULL;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_write(&t, RCD "/50-poll",
                        "{\"rules\": [{\"pattern\": \"nvptest-poll\", \"profile\": {\"name\": \"Polled\", \"settings\": [\"k\", 1]}},\n"
                        "           {\"pattern\": \"nvptest-next\", \"profile\": {\"name\": \"Next\", \"settings\": [\"k\", 2]}}]}");
        itest_fixture_process(&t, 100, 1000, geteuid(), "nvptest-other", "/usr/bin/nvptest-other", NULL);
        itest_start_daemon(&t, "[ProcessWatch]\nPollIntervalSec=200ms\n");
        /* Polling that Mode= did not ask for says why. */
        g_assert_cmpstr(status_field(&t, "process_watch_mode", &mode), ==, "polling (--proc is not the live /proc)");
        /* There from the start: tracked, no rule for it. */
        g_assert_true(itest_profiles_are(&t, 100, ""));

        itest_fixture_process(&t, 200, 2000, geteuid(), "nvptest-poll", "/usr/bin/nvptest-poll", NULL);
        ITEST_WAIT_FOR(itest_profiles_are(&t, 200, "Polled"), WAIT_MS);
        g_assert_true(itest_profiles_are(&t, 200, "Polled"));

        /* The same pid with a new start time is another process. */
        itest_fixture_process(&t, 200, 2001, geteuid(), "nvptest-next", "/usr/bin/nvptest-next", NULL);
        ITEST_WAIT_FOR(itest_profiles_are(&t, 200, "Next"), WAIT_MS);
        g_assert_true(itest_profiles_are(&t, 200, "Next"));

        itest_fixture_exit(&t, 200);
        ITEST_WAIT_FOR(!itest_is_tracked(&t, 200), WAIT_MS);
        g_assert_false(itest_is_tracked(&t, 200));
        g_assert_true(itest_is_tracked(&t, 100));
        itest_teardown(&t);
}

static uint32_t tracked_count(ITest *t);

/* OtherUsersProcesses=hide: an unprivileged caller's listing holds its own processes and nobody
 * else's. No root needed: the fixture says who owns what (as root, the caller is nobody). */
static void test_privacy_hide(void)
{
        ITest t;
        uid_t me = itest_caller_uid(), other = me == 0 ? 1 : 0;
        g_autofree char *out = NULL;
        struct json_object *list;
        bool own_seen = false;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_write(&t, RCD "/50-h", "{\"rules\": [{\"pattern\": \"nvptest-hide\", \"profile\": [\"k\", 1]}]}");
        itest_fixture_process(&t, 300, 3000, me, "nvptest-hide", "/usr/bin/nvptest-hide", NULL);
        itest_fixture_process(&t, 301, 3001, other, "nvptest-hide", "/usr/bin/nvptest-hide", NULL);
        itest_start_daemon(&t, "[Privacy]\nOtherUsersProcesses=hide\n");
        /* Both are tracked: hiding is about what callers see (our own connection is not root's when we
         * are not root, so count rather than list). */
        g_assert_cmpuint(tracked_count(&t), ==, 2);

        g_assert_cmpint(itest_ctl_as_caller(&t, &out, "processes", "--all", NULL), ==, 0);
        list = itest_parse_list(out, "processes");
        g_assert_nonnull(list);
        for (size_t i = 0; i < json_object_array_length(list); i++) {
                struct json_object *o = json_object_array_get_idx(list, i);
                int pid = json_object_get_int(json_object_object_get(o, "pid"));

                g_test_message("listed: pid %i uid %i", pid, json_object_get_int(json_object_object_get(o, "uid")));
                g_assert_cmpint(pid, !=, 301);
                g_assert_cmpuint((uid_t) json_object_get_int(json_object_object_get(o, "uid")), ==, me);
                own_seen = own_seen || pid == 300;
        }
        /* Not an empty list: the caller's own process is there. */
        g_assert_true(own_seen);
        json_object_put(list);
        itest_teardown(&t);
}

static struct json_object *ctl_json(ITest *t, int expected_status, const char *first_arg, ...) G_GNUC_NULL_TERMINATED;

/* Runs nvprofilectl as root (or ourselves) with up to three arguments, asserts its status, parses stdout. */
static struct json_object *ctl_json(ITest *t, int expected_status, const char *first_arg, ...)
{
        const char *a[4] = { first_arg, NULL, NULL, NULL };
        g_autofree char *out = NULL;
        struct json_object *j;
        va_list ap;

        va_start(ap, first_arg);
        for (size_t i = 1; i < G_N_ELEMENTS(a) && a[i - 1]; i++)
                a[i] = va_arg(ap, const char *);
        va_end(ap);
        g_assert_null(a[G_N_ELEMENTS(a) - 1]);
        g_assert_cmpint(itest_ctl(t, &out, a[0], a[1], a[2], NULL), ==, expected_status);
        assert_json_valid(out);
        /* Each listing's list is the member its verb names. */
        j = itest_parse_list(out, a[0]);
        g_assert_nonnull(j);
        return j;
}

/* The listings say where each rule, profile and error is written, in precedence order. No root needed. */
static void test_listings(void)
{
        ITest t;
        struct json_object *rules, *profiles, *errors, *procs, *r0, *r1, *p0, *s0, *e;
        bool broken_seen = false, proc_seen = false;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_write(&t, RCD "/50-app",
                        "{\n"
                        "  \"profiles\": [{\"name\": \"AppProfile\", \"settings\": [\"GLSharpenEnable\", true]}],\n"
                        "  \"rules\": [{\"pattern\": \"nvptest-app\", \"profile\": \"AppProfile\"}]\n"
                        "}\n");
        itest_write(&t, RCD "/60-dangling",
                        "{\"rules\": [{\"pattern\": \"nvptest-none\", \"profile\": \"Nowhere\"}]}\n");
        itest_write(&t, RCD "/70-broken", "{\"rules\": [\n  {\"pattern\": \"x\" \"profile\": \"AppProfile\"}]}\n");
        itest_fixture_process(&t, 400, 4000, geteuid(), "nvptest-app", "/usr/bin/nvptest-app", NULL);
        itest_start_daemon(&t, NULL);

        rules = ctl_json(&t, 0, "rules", NULL);
        g_assert_cmpuint(json_object_array_length(rules), ==, 2);
        r0 = json_object_array_get_idx(rules, 0);
        g_assert_cmpstr(jstr(r0, "pattern"), ==, "procname \"nvptest-app\"");
        g_assert_cmpstr(jstr(r0, "profile"), ==, "AppProfile");
        g_assert_cmpstr(jstr(r0, "profile_location"), ==, "/" RCD "/50-app:2:16");
        r1 = json_object_array_get_idx(rules, 1);
        g_assert_cmpstr(jstr(r1, "pattern"), ==, "procname \"nvptest-none\"");
        /* A name defined nowhere resolves nowhere (null). */
        g_assert_null(jstr(r1, "profile_location"));
        json_object_put(rules);

        profiles = ctl_json(&t, 0, "profiles", NULL);
        g_assert_cmpuint(json_object_array_length(profiles), ==, 1);
        p0 = json_object_array_get_idx(profiles, 0);
        g_assert_cmpstr(jstr(p0, "name"), ==, "AppProfile");
        s0 = json_object_array_get_idx(json_object_object_get(p0, "settings"), 0);
        g_assert_cmpstr(jstr(s0, "key"), ==, "GLSharpenEnable");
        g_assert_true(json_object_get_boolean(json_object_object_get(s0, "value")));
        json_object_put(profiles);

        /* The broken file, with its position; errors exits 1 because there is one. */
        errors = ctl_json(&t, 1, "errors", NULL);
        for (size_t i = 0; i < json_object_array_length(errors); i++) {
                e = json_object_array_get_idx(errors, i);
                if (g_strcmp0(jstr(e, "file"), "/" RCD "/70-broken") != 0)
                        continue;
                broken_seen = true;
                g_assert_cmpstr(jstr(e, "severity"), ==, "error");
                g_assert_cmpstr(jstr(e, "state"), ==, "broken");
                g_assert_cmpint(json_object_get_int(json_object_object_get(e, "line")), ==, 2);
                g_assert_cmpint(json_object_get_int(json_object_object_get(e, "column")), >, 0);
        }
        g_assert_true(broken_seen);
        json_object_put(errors);

        procs = ctl_json(&t, 0, "processes", NULL);
        for (size_t i = 0; i < json_object_array_length(procs); i++) {
                struct json_object *o = json_object_array_get_idx(procs, i);
                if (json_object_get_int(json_object_object_get(o, "pid")) != 400)
                        continue;
                proc_seen = true;
                g_assert_cmpstr(jstr(o, "executable"), ==, "/usr/bin/nvptest-app");
                g_assert_cmpstr(json_object_get_string(
                                                json_object_array_get_idx(json_object_object_get(o, "profiles"), 0)),
                                ==, "AppProfile");
        }
        g_assert_true(proc_seen);
        json_object_put(procs);
        itest_teardown(&t);
}

/* Calls Resolve with one fact: key holding a string (n_items 0) or a list of n_items copies of item. */
static int resolve_fact(ITest *t, const char *key, const char *item, size_t n_items, sd_bus_error *error)
{
        sd_bus_message *m = NULL, *reply = NULL;
        int r;

        g_assert_cmpint(sd_bus_message_new_method_call(
                                        t->bus, &m, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Resolve"),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_open_container(m, 'a', "{sv}"), >=, 0);
        g_assert_cmpint(sd_bus_message_open_container(m, 'e', "sv"), >=, 0);
        g_assert_cmpint(sd_bus_message_append(m, "s", key), >=, 0);
        if (n_items == 0)
                g_assert_cmpint(sd_bus_message_append(m, "v", "s", item), >=, 0);
        else {
                g_assert_cmpint(sd_bus_message_open_container(m, 'v', "as"), >=, 0);
                g_assert_cmpint(sd_bus_message_open_container(m, 'a', "s"), >=, 0);
                for (size_t i = 0; i < n_items; i++)
                        g_assert_cmpint(sd_bus_message_append(m, "s", item), >=, 0);
                g_assert_cmpint(sd_bus_message_close_container(m), >=, 0);
                g_assert_cmpint(sd_bus_message_close_container(m), >=, 0);
        }
        g_assert_cmpint(sd_bus_message_close_container(m), >=, 0);
        g_assert_cmpint(sd_bus_message_close_container(m), >=, 0);
        r = sd_bus_call(t->bus, m, 0, error, &reply);
        if (r < 0)
                g_test_message("Resolve: %s: %s", error->name, error->message);
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        return r;
}

static void assert_limit_refused(ITest *t, const char *key, const char *item, size_t n_items)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;

        g_test_message("Resolve with %s: %zu items of %zu bytes", key, n_items, strlen(item));
        g_assert_cmpint(resolve_fact(t, key, item, n_items, &error), <, 0);
        g_assert_cmpstr(error.name, ==, BUS_ERROR_LIMITS_EXCEEDED);
        sd_bus_error_free(&error);
}

/* Everything from outside is bounded: strings and lists from callers (BusStringMax, BusListMax), and a
 * process's /proc/<pid>/maps (MapsMax): an oversized one is cut, and the process is still resolved. No
 * root needed. */
static void test_limits(void)
{
        ITest t;
        g_autofree char *long_string = g_strnfill(65, 'x'), *just_fits = g_strnfill(64, 'x');
        g_autoptr(GString) maps = g_string_new(NULL);
        sd_bus_error error = SD_BUS_ERROR_NULL;
        struct json_object *res;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_write(&t, RCD "/50-big",
                        "{\"rules\": [{\"pattern\": \"nvptest-bigmaps\", \"profile\": {\"name\": \"Big\", \"settings\": [\"k\", 1]}}]}");
        /* Far more than MapsMax below: 200 distinct libraries. */
        for (unsigned i = 0; i < 200; i++)
                g_string_append_printf(maps, "7f%08x000-7f%08x000 r--p 00000000 08:01 %u /usr/lib/libnvptest-%u.so\n",
                                i, i + 1, i + 1, i);
        itest_fixture_process(&t, 500, 5000, geteuid(), "nvptest-bigmaps", "/usr/bin/nvptest-bigmaps", maps->str);
        itest_start_daemon(&t, "[Limits]\nBusStringMax=64\nBusListMax=8\nMapsMax=1024\n");

        /* Within the limits: answered. */
        g_assert_cmpint(resolve_fact(&t, "exe", just_fits, 0, &error), >=, 0);
        g_assert_cmpint(resolve_fact(&t, "dsos", "libx.so", 8, &error), >=, 0);
        /* Beyond: refused with our own error, before any work. */
        assert_limit_refused(&t, "exe", long_string, 0);
        assert_limit_refused(&t, "comm", long_string, 0);
        assert_limit_refused(&t, "dsos", "libx.so", 9);
        assert_limit_refused(&t, "argv", long_string, 1);
        {
                g_autofree char *home = g_strdup_printf("/%s", long_string);
                g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListRules",
                                                &error, NULL, "s", home),
                                <, 0);
                g_assert_cmpstr(error.name, ==, BUS_ERROR_LIMITS_EXCEEDED);
                sd_bus_error_free(&error);
        }

        /* The oversized maps file: tracked, matched by name, and explained. */
        g_assert_true(itest_profiles_are(&t, 500, "Big"));
        res = explain_json(&t, 500, NULL);
        g_assert_nonnull(res);
        g_assert_cmpstr(itest_setting(res, "k"), ==, "1");
        json_object_put(res);
        /* Still answering. */
        g_assert_cmpint(itest_ctl(&t, NULL, "status", NULL), ==, 0);
        itest_teardown(&t);
}

/* Appends what fd has to say within timeout_ms. */
static void read_available(int fd, GString *into, int timeout_ms)
{
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        char buf[4096];
        ssize_t n;

        while (poll(&pfd, 1, timeout_ms) > 0) {
                n = read(fd, buf, sizeof(buf));
                if (n <= 0)
                        return;
                g_string_append_len(into, buf, n);
                timeout_ms = 0;
        }
}

/* monitor streams one JSON object per event: a process a rule matches shows up with its pid. */
static void test_monitor(void)
{
        ITest t;
        g_autoptr(GError) error = NULL;
        g_autofree char *bus_arg = NULL;
        GPid monitor, pid;
        int out = -1;
        g_autoptr(GString) seen = g_string_new(NULL);
        g_autofree char *needle = NULL;
        gint64 deadline;

        ITEST_REQUIRE_ROOT("needs root: the proc connector and a real process");

        itest_setup(&t);
        itest_write(&t, RCD "/50-m",
                        "{\"rules\": [{\"pattern\": \"nvptest-mon\", \"profile\": {\"name\": \"Mon\", \"settings\": [\"k\", 1]}}]}");
        itest_start_daemon(&t, NULL);

        bus_arg = g_strdup_printf("--bus=%s", t.bus_address);
        {
                const char *argv[] = { g_getenv("NVPROFILECTL_BIN"), bus_arg, "--json=short", "monitor", NULL };
                g_spawn_async_with_pipes(NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &monitor,
                                NULL, &out, NULL, &error);
                g_assert_no_error(error);
        }
        /* The monitor is subscribed once it reports a reload we cause; until then, cause another. */
        deadline = g_get_monotonic_time() + (gint64) WAIT_MS * 1000;
        while (!strstr(seen->str, "\"event\":\"reloaded\"") && g_get_monotonic_time() < deadline) {
                g_assert_cmpint(itest_ctl(&t, NULL, "reload", NULL), ==, 0);
                read_available(out, seen, 200);
        }

        pid = itest_spawn_helper(&t, "nvptest-mon", NULL, NULL);
        needle = g_strdup_printf("\"pid\":%i", (int) pid);
        while (!strstr(seen->str, needle) && g_get_monotonic_time() < deadline)
                read_available(out, seen, 100);
        g_test_message("monitor said: %s", seen->str);
        g_assert_nonnull(strstr(seen->str, "\"event\":\"reloaded\""));
        g_assert_nonnull(strstr(seen->str, needle));
        g_assert_nonnull(strstr(seen->str, "\"profile\":\"Mon\""));

        kill(monitor, SIGTERM);
        {
                int status;
                g_assert_cmpint(waitpid(monitor, &status, 0), ==, monitor);
                g_assert_true(WIFEXITED(status));
                g_assert_cmpint(WEXITSTATUS(status), ==, 0);
        }
        close(out);
        itest_kill(pid);
        itest_teardown(&t);
}

static uint32_t tracked_count(ITest *t)
{
        uint32_t n = 0;
        g_assert_cmpint(sd_bus_get_property_trivial(t->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                        "TrackedProcesses", NULL, 'u', &n),
                        >=, 0);
        return n;
}

/* ../shared/docs/appprofiles.md case 32: processes that exec and exit at once. Nothing crashes or leaks (under
 * the sanitizer build a leak makes the daemon's exit status non-zero), nothing stale stays tracked. */
static void test_short_lived(void)
{
        ITest t;
        uint32_t before, after;
        int exit_status;

        ITEST_REQUIRE_ROOT("needs root: the proc connector");

        itest_setup(&t);
        itest_write(&t, RCD "/50-true",
                        "{\"rules\": [{\"pattern\": \"true\", \"profile\": [\"k\", 1]}, {\"pattern\": [], \"profile\": [\"all\", 1]}]}");
        itest_start_daemon(&t, NULL);
        before = tracked_count(&t);

        for (int i = 0; i < 300; i++) {
                pid_t pid = fork();
                g_assert_cmpint(pid, >=, 0);
                if (pid == 0) {
                        execl("/bin/true", "true", NULL);
                        _exit(127);
                }
                waitpid(pid, NULL, 0);
        }

        /* All exited: the table returns to where it was (give or take the machine's own activity). */
        ITEST_WAIT_FOR(tracked_count(&t) <= before + 5, WAIT_MS);
        after = tracked_count(&t);
        g_assert_cmpuint(after, <=, before + 5);
        g_assert_cmpuint(manager_u64(&t, "ProcessEvents"), >=, 300);

        itest_stop_daemon(&t, &exit_status);
        g_assert_cmpint(exit_status, ==, 0);
        itest_teardown(&t);
}

/* Usage errors exit 2, failures 1. */
static void test_client_exit_codes(void)
{
        ITest t;

        itest_setup(&t);
        /* No processes involved: a fixture /proc, no root needed. */
        itest_use_fixture_proc(&t);
        itest_start_daemon(&t, NULL);
        g_assert_cmpint(itest_ctl(&t, NULL, "no-such-verb", NULL), ==, 2);
        g_assert_cmpint(itest_ctl(&t, NULL, "explain", NULL), ==, 2);
        g_assert_cmpint(itest_ctl(&t, NULL, "explain", "abc", NULL), ==, 2);
        g_assert_cmpint(itest_ctl(&t, NULL, "explain", "999999999", NULL), ==, 1);
        g_assert_cmpint(itest_ctl(&t, NULL, "version", NULL), ==, 0);
        itest_teardown(&t);
}

/* Each case is its own meson test (tests/integration/meson.build runs this binary with -p /daemon/NAME);
 * the cases that need root say so and report SKIP without it. */
int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);

        g_test_add_func("/daemon/copied-binary", test_copied_binary);
        g_test_add_func("/daemon/comm-rename", test_comm_rename);
        g_test_add_func("/daemon/dlopen", test_dlopen);
        g_test_add_func("/daemon/gl-environment", test_gl_environment);
        g_test_add_func("/daemon/deployed-own-rc-file", test_deployed_own_rc_file);
        g_test_add_func("/daemon/deployed-system-edit", test_deployed_system_edit);
        g_test_add_func("/daemon/deployed-self-test", test_deployed_self_test);
        g_test_add_func("/daemon/gpu-open", test_gpu_open);
        g_test_add_func("/daemon/rc-edits", test_rc_edits);
        g_test_add_func("/daemon/xml-matches-introspection", test_xml_matches_introspection);
        g_test_add_func("/daemon/privacy", test_privacy);
        g_test_add_func("/daemon/lifecycle", test_lifecycle);
        g_test_add_func("/daemon/client-exit-codes", test_client_exit_codes);
        g_test_add_func("/daemon/overrun-rescan", test_overrun_rescan);
        g_test_add_func("/daemon/polling", test_polling);
        g_test_add_func("/daemon/polling-live", test_polling_live);
        g_test_add_func("/daemon/privacy-hide", test_privacy_hide);
        g_test_add_func("/daemon/listings", test_listings);
        g_test_add_func("/daemon/limits", test_limits);
        g_test_add_func("/daemon/short-lived", test_short_lived);
        g_test_add_func("/daemon/monitor", test_monitor);
        return g_test_run();
}
