/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The profile doctor end to end (issue 33): the real daemon, real processes of users the case creates,
 * and nvprofilectl run as those users, as a person runs it, its fixes run through a shell exactly as
 * printed.
 *
 *   fixes:   a user's own file with a procname "niri" rule while ".niri-wrapped" runs, a duplicate rule, a
 *            dead rule and GLSyncToVBlank: each found at its line with its fix, nothing for the healthy
 *            rules; every fix run as printed, after which the doctor finds nothing and the wrapped program
 *            gets the setting. The daemon's root is "/" so that the files the client edits are those the
 *            daemon reads.
 *   privacy: a system rule for "niri" while another user's ".niri-wrapped" runs: that user is told which
 *            process, a third user never (nor anything of the other's files), and only root may ask
 *            about every user. The names are remembered: the process ended and the daemon restarted,
 *            its owner is still told. */

#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"
#include "test-bus.h"
#include "test-other-user.h"

#define USER_RC ".nv/nvidia-application-profiles-rc"
#define RCD "etc/nvidia/nvidia-application-profiles-rc.d"
#define WAIT_MS 15000

/* The case's daemon remembers names in a state directory of its own (the unit's StateDirectory=), which
 * the daemon's user owns. */
static char *state_directory(ITest *t)
{
        char *dir = g_build_filename(t->dir, "state", NULL);

        g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
        if (t->deployed) {
                struct passwd *pw = getpwnam(t->daemon_user);

                g_assert_nonnull(pw);
                g_assert_cmpint(chown(dir, pw->pw_uid, pw->pw_gid), ==, 0);
        }
        return dir;
}

static void start_daemon(ITest *t, const char *state)
{
        g_autofree char *arg = g_strdup_printf("--state-directory=%s", state);
        g_autofree char *config = g_strdup_printf(
                        "[ProcessWatch]\nDeviceDirectory=%s\nSettleSec=2s\n[Profiles]\nReloadCoalesceSec=100ms\n",
                        t->devdir);

        test_world_start_daemon(t, config, (const char *const[]){ arg, NULL });
}

/* A directory on PATH whose "nvprofilectl" is ours on the case's bus, so that a fix runs as printed. */
static char *ctl_bin_dir(ITest *t)
{
        g_autofree char *ctl = test_copy_for_other_users(t->dir, test_env_or_fail("NVPROFILECTL_BIN"));
        g_autofree char *script = NULL, *path = NULL;
        char *dir = g_build_filename(t->dir, "bin", NULL);
        g_autoptr(GError) error = NULL;

        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        path = g_build_filename(dir, "nvprofilectl", NULL);
        script = g_strdup_printf("#!/bin/sh\nexec '%s' --bus='%s' \"$@\"\n", ctl, t->bus_address);
        g_file_set_contents(path, script, -1, &error);
        g_assert_no_error(error);
        g_assert_cmpint(chmod(path, 0755), ==, 0);
        return dir;
}

typedef struct Caller {
        const ITestUser *user; /* NULL: root */
        const char *home;
        const char *bin;
} Caller;

static void become_caller(gpointer userdata)
{
        const Caller *c = userdata;

        test_child_dies_with_parent(NULL);
        if (c->user) {
                itest_become_user(c->user);
                test_child_dies_with_parent(NULL);
        }
}

/* Runs command through /bin/sh as the caller, with its HOME; returns the exit status, stdout in ret_out. */
static int run_as(const Caller *c, const char *command, char **ret_out)
{
        g_autofree char *path = g_strdup_printf("PATH=%s:/usr/bin:/bin", c->bin);
        g_autofree char *home = g_strdup_printf("HOME=%s", c->home ? c->home : "/");
        g_autofree char *err = NULL, *discard = NULL;
        g_autoptr(GError) error = NULL;
        const char *argv[] = { "/bin/sh", "-c", command, NULL };
        const char *envp[] = { path, home, "LANG=C.UTF-8", NULL };
        int status;

        g_spawn_sync("/", (char **) argv, (char **) envp, 0, become_caller, (gpointer) c, ret_out ? ret_out : &discard,
                        &err, &status, &error);
        g_assert_no_error(error);
        if (err && *err)
                g_test_message("%s: stderr: %s", command, err);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* `nvprofilectl --json=short doctor ARGS` as the caller: the findings (a reference of its own). */
static struct json_object *doctor(const Caller *c, const char *args, int *ret_status)
{
        g_autofree char *command = g_strdup_printf("nvprofilectl --json=short doctor %s", args);
        g_autofree char *out = NULL;
        int status = run_as(c, command, &out);

        if (ret_status)
                *ret_status = status;
        return itest_parse_list(out, "findings");
}

/* The finding of kind at file:line, or NULL. */
static struct json_object *finding_at(struct json_object *findings, const char *kind, const char *file, int line)
{
        for (size_t i = 0; findings && i < json_object_array_length(findings); i++) {
                struct json_object *f = json_object_array_get_idx(findings, i);

                if (g_strcmp0(itest_jstr(f, "kind"), kind) == 0 && g_strcmp0(itest_jstr(f, "file"), file) == 0 &&
                                json_object_get_int(json_object_object_get(f, "line")) == line)
                        return f;
        }
        return NULL;
}

/* Findings about file. */
static size_t findings_in(struct json_object *findings, const char *file)
{
        size_t n = 0;

        for (size_t i = 0; findings && i < json_object_array_length(findings); i++)
                n += g_strcmp0(itest_jstr(json_object_array_get_idx(findings, i), "file"), file) == 0;
        return n;
}

static const char *fix_of(struct json_object *f)
{
        g_assert_nonnull(f);
        return itest_jstr(f, "fix");
}

/* A home of its own for u in the case's directory (the daemon's root is "/"), with rc as its rc file. */
static char *make_home(ITest *t, const ITestUser *u, const char *rc)
{
        char *home = g_build_filename(t->dir, "home", u->name, NULL);
        g_autofree char *nv = g_build_filename(home, ".nv", NULL);
        g_autofree char *file = g_build_filename(home, USER_RC, NULL);
        g_autofree char *homes = g_build_filename(t->dir, "home", NULL);
        g_autoptr(GError) error = NULL;

        g_assert_cmpint(g_mkdir_with_parents(homes, 0755), ==, 0);
        g_assert_cmpint(g_mkdir_with_parents(nv, 0700), ==, 0);
        g_file_set_contents(file, rc, -1, &error);
        g_assert_no_error(error);
        g_assert_cmpint(chmod(home, 0700), ==, 0);
        itest_user_chown(u, home);
        itest_user_chown(u, nv);
        itest_user_chown(u, file);
        return home;
}

/* Line by line, so that each rule's line is known. */
static const char user_rc[] = "{\n"
                              "  \"rules\": [\n"
                              /* 3: healthy, every process */
                              "    {\"pattern\": {\"feature\": \"true\", \"matches\": \"\"}, \"profile\": "
                              "[\"GLThreadedOptimizations\", false]},\n"
                              /* 4: never matches: the running program is ".niri-wrapped" */
                              "    {\"pattern\": \"niri\", \"profile\": [\"GLVidHeapReuseRatio\", 0]},\n"
                              /* 5: healthy, its process runs */
                              "    {\"pattern\": \"nvptest-dok\", \"profile\": [\"GLSharpenValue\", 10]},\n"
                              /* 6: the rule of line 5 once more */
                              "    {\"pattern\": \"nvptest-dok\", \"profile\": [\"GLSharpenValue\", 10]},\n"
                              /* 7: dead: line 3 sets its only key for every process */
                              "    {\"pattern\": \"nvptest-dead\", \"profile\": [\"GLThreadedOptimizations\", true]},\n"
                              /* 8: NVIDIA spells it GLSyncToVblank */
                              "    {\"pattern\": \"nvptest-vsync\", \"profile\": [\"GLSyncToVBlank\", false]}\n"
                              "  ]\n"
                              "}\n";

static void test_fixes(void)
{
        ITest t;
        ITestUser alice;
        g_autofree char *home = NULL, *home_env = NULL, *file = NULL, *bin = NULL, *state = NULL, *out = NULL;
        struct json_object *findings, *f;
        const char *fixes[4];
        Caller c;
        GPid wrapped, healthy;
        int status;

        ITEST_REQUIRE_ROOT("needs root: a user to create, and its processes on the real proc connector");

        itest_setup(&t);
        /* The real file system as the daemon's root: the files the client writes are the files it reads. */
        g_free(t.root);
        t.root = g_strdup("/");
        itest_create_user("nvpdoc", &alice);
        home = make_home(&t, &alice, user_rc);
        home_env = g_strdup_printf("HOME=%s", home);
        file = g_build_filename(home, USER_RC, NULL);
        state = state_directory(&t);
        start_daemon(&t, state);
        bin = ctl_bin_dir(&t);
        c = (Caller){ .user = &alice, .home = home, .bin = bin };

        t.helper_user = &alice;
        wrapped = itest_spawn_helper(&t, ".niri-wrapped", (const char *const[]){ home_env, NULL }, NULL);
        healthy = itest_spawn_helper(&t, "nvptest-dok", (const char *const[]){ home_env, NULL }, NULL);
        t.helper_user = NULL;
        ITEST_WAIT_FOR(itest_is_tracked(&t, wrapped) && itest_is_tracked(&t, healthy), WAIT_MS);
        g_assert_true(itest_is_tracked(&t, wrapped));

        findings = doctor(&c, "", &status);
        g_assert_nonnull(findings);
        g_assert_cmpint(status, ==, 1);
        /* Each at its line, with its fix; nothing for lines 3 and 5. */
        f = finding_at(findings, "near-miss", file, 4);
        g_assert_nonnull(f);
        g_assert_nonnull(strstr(itest_jstr(f, "message"), ".niri-wrapped"));
        {
                g_autofree char *pid = g_strdup_printf("pid %d", wrapped);
                g_assert_nonnull(strstr(itest_jstr(f, "message"), pid));
        }
        fixes[0] = fix_of(f);
        g_assert_true(g_str_has_prefix(fixes[0], "nvprofilectl rules set "));
        g_assert_nonnull(strstr(fixes[0], ".niri-wrapped"));
        f = finding_at(findings, "duplicate-rule", file, 6);
        fixes[1] = fix_of(f);
        g_assert_true(g_str_has_prefix(fixes[1], "nvprofilectl rules remove "));
        f = finding_at(findings, "dead-rule", file, 7);
        fixes[2] = fix_of(f);
        g_assert_true(g_str_has_prefix(fixes[2], "nvprofilectl rules remove "));
        f = finding_at(findings, "unknown-key", file, 8);
        g_assert_nonnull(strstr(itest_jstr(f, "message"), "GLSyncToVblank"));
        fixes[3] = fix_of(f);
        g_assert_nonnull(strstr(fixes[3], "GLSyncToVblank"));
        g_assert_cmpuint(findings_in(findings, file), ==, 4);

        /* The text a person reads: file:line: kind: message, then the fix. */
        g_assert_cmpint(run_as(&c, "nvprofilectl doctor", &out), ==, 1);
        g_test_message("nvprofilectl doctor:\n%s", out);
        {
                g_autofree char *where = g_strdup_printf("%s:4:", file);
                g_autofree char *fix_line = g_strdup_printf("  fix: %s\n", fixes[0]);

                g_assert_nonnull(strstr(out, where));
                g_assert_nonnull(strstr(out, fix_line));
        }

        /* Each fix previewed, then run as printed, one after the other. */
        for (size_t i = 0; i < G_N_ELEMENTS(fixes); i++) {
                g_autofree char *dry = g_strdup_printf("%s --dry-run", fixes[i]);

                g_assert_cmpint(run_as(&c, dry, NULL), ==, 0);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(fixes); i++)
                g_assert_cmpint(run_as(&c, fixes[i], NULL), ==, 0);
        json_object_put(findings);

        /* Nothing left, and the wrapped program has its setting. */
        ITEST_WAIT_FOR((findings = doctor(&c, "", &status)) && findings_in(findings, file) == 0 &&
                                        (json_object_put(findings), true),
                        WAIT_MS);
        findings = doctor(&c, "", &status);
        g_assert_nonnull(findings);
        g_assert_cmpuint(findings_in(findings, file), ==, 0);
        json_object_put(findings);
        {
                struct json_object *res = itest_explain_json(&t, wrapped, NULL);

                g_assert_cmpstr(itest_setting(res, "GLVidHeapReuseRatio"), ==, "0");
                json_object_put(res);
        }

        itest_kill(healthy);
        itest_kill(wrapped);
        itest_teardown(&t);
}

static void assert_no_word(const char *where, const char *text, const char *word)
{
        itest_assert_absent(where, text, word);
}

static void test_privacy(void)
{
        ITest t;
        ITestUser alice, mallory;
        g_autofree char *alice_home = NULL, *alice_env = NULL, *bin = NULL, *state = NULL, *out = NULL;
        g_autofree char *mallory_home = NULL;
        struct json_object *findings, *f;
        const char *rcd_file = "/" RCD "/60-compositors";
        Caller alice_c, mallory_c, root_c;
        GPid wrapped;
        int status;

        ITEST_REQUIRE_ROOT("needs root: users to create, and their processes on the real proc connector");

        itest_setup(&t);
        itest_create_user("nvpdoa", &alice);
        itest_create_user("nvpdom", &mallory);
        itest_write(&t, RCD "/60-compositors",
                        "{\"rules\": [\n"
                        "  {\"pattern\": \"niri\", \"profile\": [\"GLVidHeapReuseRatio\", 0]}\n"
                        "]}\n");
        /* A system file only root may read: nobody else is told of it (the driver in their processes
         * cannot read it either). */
        itest_write(&t, RCD "/70-private",
                        "{\"rules\": [{\"pattern\": \"nvptest-admin-only\", \"profile\": [\"GLSyncToVBlank\", true]}]}\n");
        {
                g_autofree char *path = g_build_filename(t.root, RCD, "70-private", NULL);

                g_assert_cmpint(chmod(path, 0600), ==, 0);
        }
        alice_env = itest_write_home(&t, alice.name, &alice,
                        "{\"rules\": [{\"pattern\": \"nvptest-secret-app\", \"profile\": [\"GLSyncToVBlank\", true]}]}\n");
        alice_home = g_strdup(alice_env + strlen("HOME="));
        mallory_home = g_strdup_printf("/home/%s", mallory.name);
        state = state_directory(&t);
        start_daemon(&t, state);
        bin = ctl_bin_dir(&t);
        alice_c = (Caller){ .user = &alice, .home = alice_home, .bin = bin };
        mallory_c = (Caller){ .user = &mallory, .home = mallory_home, .bin = bin };
        root_c = (Caller){ .home = "/root", .bin = bin };

        t.helper_user = &alice;
        wrapped = itest_spawn_helper(&t, ".niri-wrapped", (const char *const[]){ alice_env, NULL }, NULL);
        t.helper_user = NULL;
        ITEST_WAIT_FOR(itest_is_tracked(&t, wrapped), WAIT_MS);
        g_assert_true(itest_is_tracked(&t, wrapped));

        /* Its owner is told which process the system's rule misses. */
        findings = doctor(&alice_c, "", &status);
        f = finding_at(findings, "near-miss", rcd_file, 2);
        g_assert_nonnull(f);
        g_assert_nonnull(strstr(itest_jstr(f, "message"), ".niri-wrapped"));
        g_assert_nonnull(strstr(fix_of(f), "--system"));
        /* ...and of its own file's key. */
        {
                g_autofree char *alice_file = g_build_filename(alice_home, USER_RC, NULL);

                g_assert_nonnull(finding_at(findings, "unknown-key", alice_file, 1));
        }
        json_object_put(findings);

        /* Another user: nothing of alice's process or files, in any form of the question. */
        findings = doctor(&mallory_c, "", &status);
        g_assert_nonnull(findings);
        g_assert_null(finding_at(findings, "near-miss", rcd_file, 2));
        json_object_put(findings);
        g_assert_cmpint(run_as(&mallory_c,
                                        "nvprofilectl --json=short doctor; nvprofilectl doctor --system; "
                                        "nvprofilectl doctor; nvprofilectl doctor --all 2>&1",
                                        &out),
                        <, 128);
        assert_no_word("mallory's doctor", out, ".niri-wrapped");
        assert_no_word("mallory's doctor", out, "nvptest-secret-app");
        assert_no_word("mallory's doctor", out, alice_home);
        assert_no_word("mallory's doctor", out, "70-private");
        g_clear_pointer(&out, g_free);
        {
                g_autofree char *cmd = g_strdup_printf("nvprofilectl doctor --home=%s", alice_home);

                g_assert_cmpint(run_as(&mallory_c, cmd, &out), ==, 1);
                assert_no_word("mallory's doctor --home", out, "GLSyncToVBlank");
        }
        g_assert_cmpint(run_as(&mallory_c, "nvprofilectl doctor --all", NULL), ==, 1);

        /* Root may ask about everyone: alice's own file's finding, and the file only root reads. */
        findings = doctor(&root_c, "--all", &status);
        g_assert_nonnull(findings);
        g_assert_nonnull(finding_at(findings, "unknown-key", "/" RCD "/70-private", 1));
        {
                g_autofree char *alice_file = g_build_filename(alice_home, USER_RC, NULL);

                f = finding_at(findings, "unknown-key", alice_file, 1);
                g_assert_nonnull(f);
                g_assert_nonnull(strstr(fix_of(f), "--home="));
        }
        json_object_put(findings);

        /* Remembered: the process ended and the daemon restarted (its state directory kept), the owner is
         * still told, and still no one else. */
        itest_kill(wrapped);
        itest_stop_daemon(&t, NULL);
        start_daemon(&t, state);
        findings = doctor(&alice_c, "", &status);
        f = finding_at(findings, "near-miss", rcd_file, 2);
        g_assert_nonnull(f);
        g_assert_nonnull(strstr(itest_jstr(f, "message"), ".niri-wrapped"));
        g_assert_null(strstr(itest_jstr(f, "message"), "pid "));
        json_object_put(findings);
        g_clear_pointer(&out, g_free);
        g_assert_cmpint(run_as(&mallory_c, "nvprofilectl --json=short doctor", &out), <, 128);
        assert_no_word("mallory's doctor after the restart", out, ".niri-wrapped");

        itest_teardown(&t);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/doctor/fixes", test_fixes);
        g_test_add_func("/doctor/privacy", test_privacy);
        return g_test_run();
}
