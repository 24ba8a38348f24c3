/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofiled end to end: the real daemon on a private system-like bus with a --root configuration tree,
 * and either the real /proc and proc connector with processes started by the test (root), or a fixture
 * /proc tree that the daemon polls (no privileges needed).
 *
 * Profiles applied: __GL_* environment overrides, rc edits picked up, a user's own rc file and system
 * edits with the daemon run as deployed, the self-test. */

#include <errno.h>
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

#define RCD "etc/nvidia/nvidia-application-profiles-rc.d"
#define WAIT_MS 15000

/* pid's first setting, GLThreadedOptimizations, is overridden by __GL_THREADED_OPTIMIZATIONS=0 in its
 * environment (explain says so); its second, GLSharpenValue, is not. */
static void assert_threaded_overridden(ITest *t, pid_t pid)
{
        struct json_object *res = itest_explain_json(t, pid, NULL), *settings, *s;

        g_assert_nonnull(res);
        g_assert_true(json_object_object_get_ex(res, "settings", &settings));
        s = json_object_array_get_idx(settings, 0);
        g_assert_cmpstr(itest_jstr(s, "key"), ==, "GLThreadedOptimizations");
        g_assert_true(json_object_get_boolean(json_object_object_get(s, "overridden")));
        g_assert_cmpstr(itest_jstr(s, "env_variable"), ==, "__GL_THREADED_OPTIMIZATIONS");
        g_assert_cmpstr(itest_jstr(s, "env_value"), ==, "0");
        s = json_object_array_get_idx(settings, 1);
        g_assert_cmpstr(itest_jstr(s, "key"), ==, "GLSharpenValue");
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
        res = itest_explain_json(&t, b, NULL);
        g_assert_cmpstr(itest_jstr(res, "state"), ==, "disabled-by-environment");
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

                if (json_object_get_int(json_object_object_get(c, "pid")) == pid &&
                                g_strcmp0(itest_jstr(c, "key"), key) == 0)
                        return true;
        }
        return false;
}

/* Issue 28: root's --system edit under the unit's daemon (not uid 0 itself) is root's: its preview and its
 * result list the running processes of every user that change, and the journal names uid 0 (before,
 * both were the daemon's own user's: no process changed, "uid 996: add-rule"). The app's Undo of it
 * (ReadSystemFile, RevertEdit) works under the unit too. */
static void test_deployed_system_edit(void)
{
        ITest t;
        ITestUser alice;
        g_autofree char *out = NULL, *log = NULL, *log_path = NULL, *file = NULL, *written = NULL;
        const char *path = "/" RCD "/50-sys", *text = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        struct json_object *res;
        struct stat st;
        GPid root_pid, alice_pid;
        int exists = 0;

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

        /* What the app's Undo does, with the daemon as the unit runs it: the file read back through the
         * daemon, then reverted; the file the edit created is gone again. */
        g_assert_true(g_file_get_contents(file, &written, NULL, NULL));
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_PROFILES_INTERFACE, "ReadSystemFile",
                                        &error, &reply, "s", path),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "bs", &exists, &text), >=, 0);
        g_assert_true(exists);
        g_assert_cmpstr(text, ==, written);
        reply = sd_bus_message_unref(reply);
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_PROFILES_INTERFACE, "RevertEdit", &error,
                                        &reply, "ssbst", path, written, 0, "", (uint64_t) 0),
                        >=, 0);
        reply = sd_bus_message_unref(reply);
        g_assert_cmpint(access(file, F_OK), <, 0);
        g_assert_cmpint(errno, ==, ENOENT);

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
        access = g_strdup(itest_jstr(o, "process_access"));
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
                bool is_error = g_strcmp0(itest_jstr(o, "severity"), "error") == 0;

                any_error = any_error || is_error;
                if (is_error && g_strcmp0(itest_jstr(o, "file"), file) == 0 &&
                                g_strcmp0(itest_jstr(o, "state"), state) == 0)
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

/* Each case is its own meson test (tests/integration/meson.build runs this binary with -p /daemon/NAME);
 * the cases that need root say so and report SKIP without it. */
int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);

        g_test_add_func("/daemon/gl-environment", test_gl_environment);
        g_test_add_func("/daemon/deployed-own-rc-file", test_deployed_own_rc_file);
        g_test_add_func("/daemon/deployed-system-edit", test_deployed_system_edit);
        g_test_add_func("/daemon/deployed-self-test", test_deployed_self_test);
        g_test_add_func("/daemon/rc-edits", test_rc_edits);
        return g_test_run();
}
