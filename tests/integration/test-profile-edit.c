/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofilectl's edits of a user's own rc files, end to end: the real daemon on a private bus (reading
 * the real file system: --root=/), a fixture /proc with one running process whose $HOME is a scratch home,
 * and the built nvprofilectl run with that $HOME. The client edits the file itself; the daemon previews
 * (--dry-run shows the running process's change) and picks the edit up through inotify, so the process's
 * explanation changes. Needs no privileges: run as a user the wrapper creates too. */

#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "itest.h"

#define WAIT_MS 20000
#define PID 4242
#define COMM "nvptestcomp"

typedef struct EditWorld {
        ITest t;
        char *home, *rcd, *target;
} EditWorld;

static void edit_world_setup(EditWorld *w)
{
        const char *env[3] = { NULL };
        g_autofree char *home_env = NULL;

        itest_setup(&w->t);
        itest_use_fixture_proc(&w->t);
        /* The real file system as the daemon's root: the files the client writes are the files it reads. */
        g_free(w->t.root);
        w->t.root = g_strdup("/");
        w->home = g_build_filename(w->t.dir, "home", NULL);
        g_assert_cmpint(g_mkdir_with_parents(w->home, 0755), ==, 0);
        w->rcd = g_build_filename(w->home, ".nv", "nvidia-application-profiles-rc.d", NULL);
        w->target = g_build_filename(w->rcd, "50-nvprofilectl", NULL);

        home_env = g_strdup_printf("HOME=%s", w->home);
        env[0] = home_env;
        itest_fixture_process_env(&w->t, PID, 1000, getuid(), COMM, "/usr/bin/" COMM, NULL, env);
        /* nvprofilectl edits the files of $HOME. */
        g_assert_true(g_setenv("HOME", w->home, TRUE));
        itest_start_daemon(&w->t, NULL);
        ITEST_WAIT_FOR(itest_is_tracked(&w->t, PID), WAIT_MS);
        g_assert_true(itest_is_tracked(&w->t, PID));
}

static void edit_world_teardown(EditWorld *w)
{
        itest_teardown(&w->t);
        g_free(w->home);
        g_free(w->rcd);
        g_free(w->target);
}

static struct json_object *parse(const char *out)
{
        struct json_object *o = json_tokener_parse(out);

        if (!o)
                g_test_message("not JSON: %s", out);
        g_assert_nonnull(o);
        return o;
}

static const char *get_string(struct json_object *o, const char *key)
{
        struct json_object *v = NULL;

        if (!json_object_object_get_ex(o, key, &v) || !v)
                return NULL;
        return json_object_get_string(v);
}

/* The value of key for pid in the edit's "changes", as "before>after" ("" for unset). */
static char *change_of(struct json_object *o, pid_t pid, const char *key)
{
        struct json_object *changes = NULL;

        if (!json_object_object_get_ex(o, "changes", &changes) || !changes)
                return NULL;
        for (size_t i = 0; i < json_object_array_length(changes); i++) {
                struct json_object *c = json_object_array_get_idx(changes, i), *p = NULL;

                if (json_object_object_get_ex(c, "pid", &p) && json_object_get_int64(p) == pid &&
                                g_strcmp0(get_string(c, "key"), key) == 0)
                        return g_strdup_printf("%s>%s", get_string(c, "before") ? get_string(c, "before") : "",
                                        get_string(c, "after") ? get_string(c, "after") : "");
        }
        return NULL;
}

/* The effective value of key in the explanation of the running process, or NULL. */
static char *explained_value(EditWorld *w, const char *key)
{
        g_autofree char *out = NULL, *pid = g_strdup_printf("%d", PID);
        struct json_object *o, *settings = NULL;
        char *value = NULL;

        if (itest_ctl(&w->t, &out, "explain", pid, NULL) != 0)
                return NULL;
        o = parse(out);
        if (json_object_object_get_ex(o, "settings", &settings))
                for (size_t i = 0; i < json_object_array_length(settings); i++) {
                        struct json_object *s = json_object_array_get_idx(settings, i), *v = NULL;

                        if (g_strcmp0(get_string(s, "key"), key) == 0 && json_object_object_get_ex(s, "value", &v))
                                value = g_strdup(json_object_to_json_string(v));
                }
        json_object_put(o);
        return value;
}

static bool explained_is(EditWorld *w, const char *key, const char *expected)
{
        g_autofree char *v = explained_value(w, key);

        return g_strcmp0(v, expected) == 0;
}

static char *read_text(const char *path)
{
        char *text = NULL;

        if (!g_file_get_contents(path, &text, NULL, NULL))
                return NULL;
        return text;
}

/* The line "rules" prints for the rule with this id in file, or 0. */
static unsigned rule_line(EditWorld *w, const char *file, const char *id)
{
        g_autofree char *out = NULL;
        struct json_object *list;
        unsigned line = 0;

        g_assert_cmpint(itest_ctl(&w->t, &out, "rules", "--home", w->home, NULL), ==, 0);
        list = itest_parse_list(out, "rules");
        for (size_t i = 0; i < json_object_array_length(list); i++) {
                struct json_object *r = json_object_array_get_idx(list, i), *l = NULL;

                if (g_strcmp0(get_string(r, "file"), file) == 0 && g_strcmp0(get_string(r, "id"), id) == 0 &&
                                json_object_object_get_ex(r, "line", &l))
                        line = (unsigned) json_object_get_int64(l);
        }
        json_object_put(list);
        return line;
}

static void test_user_edit_reaches_process(void)
{
        EditWorld w;
        g_autofree char *out = NULL, *text = NULL, *change = NULL, *id = NULL, *address = NULL;
        struct json_object *o;
        uint64_t g;

        edit_world_setup(&w);
        g_assert_true(explained_is(&w, "GLVidHeapReuseRatio", NULL));

        /* --dry-run: the diff of the new file and the running process's change; nothing written. */
        g_assert_cmpint(itest_ctl(&w.t, &out, "rules", "add", "--procname", COMM, "--setting", "GLVidHeapReuseRatio=0",
                                        "--dry-run", NULL),
                        ==, 0);
        o = parse(out);
        g_assert_nonnull(strstr(get_string(o, "diff"), "+++ b/"));
        g_assert_nonnull(strstr(get_string(o, "diff"), "GLVidHeapReuseRatio"));
        change = change_of(o, PID, "GLVidHeapReuseRatio");
        g_assert_cmpstr(change, ==, ">0");
        json_object_put(o);
        g_assert_false(g_file_test(w.target, G_FILE_TEST_EXISTS));
        g_assert_true(explained_is(&w, "GLVidHeapReuseRatio", NULL));

        /* The write: the file is the user's own, the daemon reloads, the process's explanation has it. */
        g = itest_generation(&w.t);
        g_clear_pointer(&out, g_free);
        g_assert_cmpint(itest_ctl(&w.t, &out, "rules", "add", "--procname", COMM, "--setting", "GLVidHeapReuseRatio=0",
                                        NULL),
                        ==, 0);
        o = parse(out);
        g_assert_true(json_object_get_boolean(json_object_object_get(o, "written")));
        g_assert_cmpstr(get_string(o, "file"), ==, w.target);
        g_assert_cmpuint(strlen(get_string(o, "rule")), ==, 12);
        id = g_strdup(get_string(o, "rule"));
        json_object_put(o);
        g_assert_cmpuint(itest_generation(&w.t), >, g);
        ITEST_WAIT_FOR(explained_is(&w, "GLVidHeapReuseRatio", "0"), WAIT_MS);
        g_assert_true(explained_is(&w, "GLVidHeapReuseRatio", "0"));
        {
                struct stat st;

                g_assert_cmpint(stat(w.target, &st), ==, 0);
                g_assert_cmpuint(st.st_uid, ==, getuid());
                g_assert_cmpuint(st.st_mode & 07777, ==, 0644);
        }
        /* check reads the result as the driver would. */
        g_assert_cmpint(itest_ctl(&w.t, NULL, "check", w.target, NULL), ==, 0);

        /* Comments the user adds stay through the next edits. */
        text = read_text(w.target);
        {
                g_autofree char *with_comment = g_strconcat("# my note, kept\n", text, NULL);

                g_assert_true(g_file_set_contents(w.target, with_comment, -1, NULL));
        }
        g_clear_pointer(&text, g_free);

        /* set by id (the same after a comment moved the rule down): only the value changes. */
        g_clear_pointer(&out, g_free);
        g_assert_cmpint(itest_ctl(&w.t, &out, "rules", "set", id, "--setting", "GLVidHeapReuseRatio=1", NULL), ==, 0);
        ITEST_WAIT_FOR(explained_is(&w, "GLVidHeapReuseRatio", "1"), WAIT_MS);
        g_assert_true(explained_is(&w, "GLVidHeapReuseRatio", "1"));
        text = read_text(w.target);
        g_assert_true(g_str_has_prefix(text, "# my note, kept\n"));

        /* A known key misspelt, or of the wrong type: refused as a usage error, the file unchanged. */
        g_assert_cmpint(itest_ctl(&w.t, NULL, "rules", "set", id, "--setting", "GLSyncToVBlank=1", NULL), ==, 2);
        g_assert_cmpint(itest_ctl(&w.t, NULL, "rules", "set", id, "--setting", "GLSyncToVblank=yes", NULL), ==, 2);
        {
                g_autofree char *again = read_text(w.target);
                g_assert_cmpstr(again, ==, text);
        }
        /* The driver's file is never edited. */
        g_assert_cmpint(itest_ctl(&w.t, NULL, "rules", "remove",
                                        "/usr/share/nvidia/nvidia-application-profiles-570.153.02-rc:10", NULL),
                        ==, 1);

        /* remove by FILE:LINE, the line "rules" gives: the rule goes, the comment stays, the process loses
         * the setting. */
        g_assert_cmpuint(rule_line(&w, w.target, id), >, 1);
        address = g_strdup_printf("%s:%u", w.target, rule_line(&w, w.target, id));
        g_clear_pointer(&out, g_free);
        g_assert_cmpint(itest_ctl(&w.t, &out, "rules", "remove", address, NULL), ==, 0);
        ITEST_WAIT_FOR(explained_is(&w, "GLVidHeapReuseRatio", NULL), WAIT_MS);
        g_assert_true(explained_is(&w, "GLVidHeapReuseRatio", NULL));
        g_clear_pointer(&text, g_free);
        text = read_text(w.target);
        g_assert_true(g_str_has_prefix(text, "# my note, kept\n"));
        g_assert_null(strstr(text, COMM));

        edit_world_teardown(&w);
}

static void test_user_profiles(void)
{
        EditWorld w;
        g_autofree char *out = NULL, *text = NULL;

        edit_world_setup(&w);

        /* A named profile, and a rule that refers to it (an or of two names, one of them running). */
        g_assert_cmpint(itest_ctl(&w.t, &out, "profiles", "add", "Compositor VRAM", "--setting",
                                        "GLVidHeapReuseRatio=0", NULL),
                        ==, 0);
        g_clear_pointer(&out, g_free);
        g_assert_cmpint(itest_ctl(&w.t, &out, "rules", "add", "--procname", "niri", "--procname", COMM, "--or",
                                        "--profile", "Compositor VRAM", NULL),
                        ==, 0);
        ITEST_WAIT_FOR(explained_is(&w, "GLVidHeapReuseRatio", "0"), WAIT_MS);
        g_assert_true(explained_is(&w, "GLVidHeapReuseRatio", "0"));

        /* Changing the profile changes what the rule gives. */
        g_clear_pointer(&out, g_free);
        g_assert_cmpint(itest_ctl(&w.t, &out, "profiles", "set", "Compositor VRAM", "--setting",
                                        "GLThreadedOptimizations=false", "--unset", "GLVidHeapReuseRatio", NULL),
                        ==, 0);
        ITEST_WAIT_FOR(explained_is(&w, "GLThreadedOptimizations", "false"), WAIT_MS);
        g_assert_true(explained_is(&w, "GLThreadedOptimizations", "false"));
        g_assert_true(explained_is(&w, "GLVidHeapReuseRatio", NULL));

        /* A profile of the same name twice in one file is refused. */
        g_assert_cmpint(itest_ctl(&w.t, NULL, "profiles", "add", "Compositor VRAM", "--setting", "GLYield=\"NOTHING\"",
                                        NULL),
                        ==, 1);
        text = read_text(w.target);
        g_assert_null(strstr(text, "NOTHING"));

        edit_world_teardown(&w);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/profile-edit/user-edit-reaches-process", test_user_edit_reaches_process);
        g_test_add_func("/profile-edit/user-profiles", test_user_profiles);
        return g_test_run();
}
