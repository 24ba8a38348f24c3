/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Issue 29, items 4 and 5, as sec-world.h describes: an unprivileged user that each case creates, the
 * real daemon running as root on a private bus with the project's policy, and the built nvprofilectl.
 *
 *   rule-id-oracle         rule ids are computable offline: a dry-run RemoveRule, UpdateRule and MoveRule
 *                          by the id of a rule in root's 0600 rc file answer the attacker byte for byte
 *                          as a made-up id does, and name no file.
 *   root-edit-user-home    root's `nvprofilectl rules add --home HOME` of the attacker's home acts as the
 *                          attacker and follows no link: ~/.nv or its rc.d linked to a root-only directory
 *                          gets nothing written there (exit 1, saying why); without links, the new file
 *                          and its directories are the attacker's. */

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bus-names.h"
#include "itest.h"
#include "sec-world.h"

#define EDIT_FLAG_DRY_RUN UINT64_C(1)
#define PRIVATE_RC RCD "/50-private"
#define GUESSED "nvptest-guessed-game" /* the private rule's pattern, which the attacker guesses */

/* The id `nvprofilectl rules` gives root for the rule of file (under --root) whose pattern mentions
 * needle. */
static char *rule_id_as_root(Sec *s, const char *file, const char *needle)
{
        g_autofree char *out = NULL;
        struct json_object *rules;
        char *id = NULL;

        g_assert_cmpint(root_ctl_private(s, &out, "--json=short", "rules"), ==, 0);
        rules = itest_parse_list(out, "rules");
        for (size_t i = 0; i < json_object_array_length(rules); i++) {
                struct json_object *r = json_object_array_get_idx(rules, i);

                if (g_strcmp0(jstr(r, "file"), file) == 0 && strstr(json_object_to_json_string(r), needle))
                        id = g_strdup(jstr(r, "id"));
        }
        json_object_put(rules);
        if (!id)
                g_test_message("no rule of %s with %s in: %s", file, needle, out);
        g_assert_nonnull(id);
        g_assert_cmpuint(strlen(id), ==, 12);
        return id;
}

/* The three edits by id, dry runs, as the attacker: each answer, one line each. */
static void edits_by_id(sd_bus *bus, FILE *out, void *userdata)
{
        const char *id = userdata;
        static const char *const members[] = { "RemoveRule", "UpdateRule", "MoveRule" };

        for (size_t i = 0; i < G_N_ELEMENTS(members); i++) {
                sd_bus_message *m = NULL, *reply = NULL;
                sd_bus_error e = SD_BUS_ERROR_NULL;
                int r;

                r = sd_bus_message_new_method_call(
                                bus, &m, BUS_NAME, BUS_ROOT_PATH, BUS_PROFILES_INTERFACE, members[i]);
                if (r >= 0 && i == 0)
                        r = sd_bus_message_append(m, "s", id);
                else if (r >= 0 && i == 1)
                        r = sd_bus_message_append(m, "sssa(ss)as", id, "", "", 1, "GLSharpenValue", "1", 0);
                else if (r >= 0)
                        r = sd_bus_message_append(m, "ssi", id, "", 0);
                if (r >= 0)
                        r = sd_bus_message_append(m, "t", EDIT_FLAG_DRY_RUN);
                if (r >= 0)
                        r = sd_bus_call(bus, m, 0, &e, &reply);
                dump_call(out, members[i], r, &e, reply);
                sd_bus_error_free(&e);
                sd_bus_message_unref(m);
                sd_bus_message_unref(reply);
        }
}

/* text with every id replaced by "<id>": the answers may repeat the id asked about, nothing else. */
static char *without_id(const char *text, const char *id)
{
        g_auto(GStrv) parts = g_strsplit(text, id, -1);

        return g_strjoinv("<id>", parts);
}

/* Item 4. A rule of root's 0600 rc file (its settings carry the secret): the attacker guesses its pattern
 * and computes its id offline (here: root tells the test), and asks for dry-run edits of it and of an id
 * of no rule. */
static void test_rule_id_oracle(void)
{
        g_autofree char *private_rc = NULL, *right = NULL, *wrong = NULL, *marker = NULL;
        g_autofree char *got_right = NULL, *got_wrong = NULL, *norm_right = NULL, *norm_wrong = NULL;
        g_autofree char *got_marker = NULL, *ctl_right = NULL, *ctl_wrong = NULL, *err = NULL;
        Sec s;

        ITEST_REQUIRE_ROOT("needs root: the daemon runs as root, and a user the test creates");
        sec_setup(&s, false);
        private_rc = g_strdup_printf("{\"rules\": [{\"pattern\": \"" GUESSED "\", \"profile\": [\"GLSharpenValue\", "
                                     "5, \"%s\", 1]}]}\n",
                        s.secret);
        root_write(&s, PRIVATE_RC, private_rc, 0600);
        itest_start_daemon(&s.t, NULL);

        right = rule_id_as_root(&s, "/" PRIVATE_RC, GUESSED);
        /* An id of no rule anywhere: the right one with its last digit changed. */
        wrong = g_strdup(right);
        wrong[11] = wrong[11] == '0' ? '1' : '0';
        marker = rule_id_as_root(&s, "/" RCD "/10-marker", MARKER);

        /* The control: a rule of a file the attacker may read is found by its id, and previewed. */
        got_marker = attacker_on_bus(&s, edits_by_id, marker, NULL);
        g_test_message("the readable file's rule:\n%s", got_marker);
        g_assert_nonnull(strstr(got_marker, "RemoveRule: ok"));
        g_assert_nonnull(strstr(got_marker, "UpdateRule: ok"));
        g_assert_nonnull(strstr(got_marker, "MoveRule: ok"));
        g_assert_nonnull(strstr(got_marker, MARKER));

        got_right = attacker_on_bus(&s, edits_by_id, right, NULL);
        got_wrong = attacker_on_bus(&s, edits_by_id, wrong, NULL);
        g_test_message("the right id:\n%s", got_right);
        g_test_message("a wrong id:\n%s", got_wrong);
        norm_right = without_id(got_right, right);
        norm_wrong = without_id(got_wrong, wrong);
        g_assert_cmpstr(norm_right, ==, norm_wrong);
        g_assert_null(strstr(got_right, "50-private"));
        g_assert_null(strstr(got_right, ": ok"));

        /* nvprofilectl's dry run says the same for both too. */
        g_assert_cmpint(attacker_ctl(&s, NULL, &err, "rules", "remove", right, "--dry-run"), ==, 1);
        ctl_right = without_id(err, right);
        g_clear_pointer(&err, g_free);
        g_assert_cmpint(attacker_ctl(&s, NULL, &err, "rules", "remove", wrong, "--dry-run"), ==, 1);
        ctl_wrong = without_id(err, wrong);
        g_assert_cmpstr(ctl_right, ==, ctl_wrong);
        g_assert_null(strstr(ctl_right, "50-private"));

        /* Root, who may read the file, finds the rule; nothing was written. */
        g_assert_cmpint(root_ctl_private(&s, NULL, "rules", "remove", right, "--dry-run"), ==, 0);
        {
                g_autofree char *path = g_build_filename(s.t.root, PRIVATE_RC, NULL), *text = NULL;

                g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
                g_assert_cmpstr(text, ==, private_rc);
        }
        sec_finish(&s);
}

static guint count_entries(const char *dir)
{
        g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
        guint n = 0;

        g_assert_nonnull(d);
        while (g_dir_read_name(d))
                n++;
        return n;
}

static void remove_tree(const char *path)
{
        g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", path);

        g_assert_cmpint(system(cmd), ==, 0);
}

/* root's `nvprofilectl rules add --home HOME` of the attacker's home, with extra arguments (at most
 * two); its exit status, its stdout (JSON) in ret_out, its stderr in ret_err. */
static int root_adds_rule(Sec *s, char **ret_out, char **ret_err, const char *extra1, const char *extra2)
{
        return root_ctl(s, ret_out, ret_err, "--json=short", "rules", "add", "--home", s->home_dir, "--procname",
                        "nvptest-edited", "--setting", "GLVidHeapReuseRatio=0", extra1 ? extra1 : "--dry-run", extra2);
}

/* path (not followed) is the attacker's, a directory or a file of mode 0644. */
static void assert_attackers(Sec *s, const char *path, bool directory)
{
        struct stat st;

        g_assert_cmpint(lstat(path, &st), ==, 0);
        g_test_message("%s: uid %u gid %u mode %04o", path, (unsigned) st.st_uid, (unsigned) st.st_gid,
                        (unsigned) (st.st_mode & 07777));
        g_assert_cmpuint(st.st_uid, ==, s->uid);
        g_assert_cmpuint(st.st_gid, ==, s->gid);
        if (directory)
                g_assert_true(S_ISDIR(st.st_mode));
        else {
                g_assert_true(S_ISREG(st.st_mode));
                g_assert_cmpuint(st.st_mode & 07777, ==, 0644);
        }
}

/* Item 5. The attacker links its ~/.nv, or its rc.d directory, to a directory only root may enter; root
 * edits the attacker's files with nvprofilectl's documented --home. */
static void test_root_edit_user_home(void)
{
        g_autofree char *vault = NULL, *nv = NULL, *rcd = NULL, *target = NULL, *user_rc = NULL, *text = NULL;
        g_autofree char *file_option = NULL, *out = NULL;
        Sec s;

        ITEST_REQUIRE_ROOT("needs root: root's client edits the home of a user the test creates");
        sec_setup(&s, false);
        itest_start_daemon(&s.t, NULL);
        vault = g_build_filename(s.t.dir, "vault", NULL);
        g_assert_cmpint(g_mkdir_with_parents(vault, 0700), ==, 0);
        g_assert_cmpint(chmod(vault, 0700), ==, 0);
        nv = g_build_filename(s.home_dir, ".nv", NULL);
        rcd = g_build_filename(s.home_dir, USER_RCD, NULL);
        target = g_build_filename(rcd, "50-nvprofilectl", NULL);
        user_rc = g_build_filename(s.home_dir, USER_RC, NULL);

        /* The rc.d directory, then ~/.nv itself, a link to root's directory: refused, saying why, nothing
         * created there; a dry run (which reads) too. */
        attacker_symlink(&s, USER_RCD, vault);
        for (int link_nv = 0; link_nv <= 1; link_nv++) {
                static const char *const extras[][2] = { { "--position", "0" }, { "--dry-run", NULL } };

                if (link_nv) {
                        remove_tree(nv);
                        attacker_symlink(&s, ".nv", vault);
                }
                for (size_t i = 0; i < G_N_ELEMENTS(extras); i++) {
                        g_autofree char *err = NULL;

                        g_assert_cmpint(root_adds_rule(&s, NULL, &err, extras[i][0], extras[i][1]), ==, 1);
                        g_assert_nonnull(strstr(err, "is a symbolic link, which is not followed"));
                        g_assert_cmpuint(count_entries(vault), ==, 0);
                }
        }
        /* The per-user file named by its path, through the linked ~/.nv. */
        file_option = g_strdup_printf("--file=%s", user_rc);
        {
                g_autofree char *err = NULL;

                g_assert_cmpint(root_adds_rule(&s, NULL, &err, file_option, NULL), ==, 1);
                g_assert_nonnull(strstr(err, "symbolic link"));
                g_assert_cmpuint(count_entries(vault), ==, 0);
        }

        /* No link: the file is written, and it and the directories made for it are the attacker's. */
        g_assert_cmpint(unlink(nv), ==, 0);
        g_assert_cmpint(root_adds_rule(&s, &out, NULL, "--position", "0"), ==, 0);
        assert_attackers(&s, nv, true);
        assert_attackers(&s, rcd, true);
        assert_attackers(&s, target, false);
        g_assert_true(g_file_get_contents(target, &text, NULL, NULL));
        g_assert_nonnull(strstr(text, "nvptest-edited"));
        /* ...and the next edit of the existing file keeps it theirs. */
        g_assert_cmpint(root_ctl(&s, NULL, NULL, "profiles", "add", "--home", s.home_dir, "Edited", "--setting",
                                        "GLVidHeapReuseRatio=1"),
                        ==, 0);
        assert_attackers(&s, target, false);
        /* The rule found by its id among the attacker's files (listed and read as the attacker), and
         * removed. */
        {
                struct json_object *o = parse_json(out);
                g_autofree char *id = g_strdup(jstr(o, "rule"));

                json_object_put(o);
                g_assert_cmpuint(strlen(id), ==, 12);
                g_assert_cmpint(root_ctl(&s, NULL, NULL, "rules", "remove", "--home", s.home_dir, id), ==, 0);
        }
        g_clear_pointer(&text, g_free);
        g_assert_true(g_file_get_contents(target, &text, NULL, NULL));
        g_assert_null(strstr(text, "nvptest-edited"));
        g_assert_nonnull(strstr(text, "Edited"));
        assert_attackers(&s, target, false);
        g_assert_cmpuint(count_entries(vault), ==, 0);
        sec_finish(&s);
}

/* Each case is its own meson test (tests/integration/meson.build runs this binary with -p
 * /security-edits/NAME). */
int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);

        g_test_add_func("/security-edits/rule-id-oracle", test_rule_id_oracle);
        g_test_add_func("/security-edits/root-edit-user-home", test_root_edit_user_home);
        return g_test_run();
}
