/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* findfile as an attacker tries it (issue 29, items 1 and 2), in sec-world.h's world with a fixture /proc:
 * a process's executable directory is the text of its exe link, which its owner controls, and every name
 * of a findfile list was looked up on the main loop, with the daemon's rights, through any link.
 * (a) A process of the attacker whose exe link names a directory in another user's 0700 home: a rule
 *     naming a file only that user can see does not match it, and a PreviewEdit does not tell.
 * (b) A rule in the attacker's own rc file with more names than the bound, each a link that walks a
 *     chain of deep paths when followed: the rule is reported over the bound and never looked at, the
 *     process is tracked and root's status answered at once. */

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bus-names.h"
#include "itest.h"
#include "sec-world.h"

#define PROBE_PID 4101
#define CONTROL_PID 4102
#define CHAIN_PID 4103

static bool tracked(Sec *s, pid_t pid)
{
        g_autofree char *p = itest_tracked_profiles(&s->t, pid);
        return p != NULL;
}

static void fixture_process_of_attacker(Sec *s, pid_t pid, uint64_t start, const char *comm, const char *exe)
{
        g_autofree char *home_env = g_strdup_printf("HOME=%s", s->home);

        itest_fixture_process_env(&s->t, pid, start, s->uid, comm, exe, NULL, (const char *const[]){ home_env, NULL });
}

typedef struct Preview {
        const char *home, *file, *text;
} Preview;

static void preview_call(sd_bus *bus, FILE *f, void *userdata)
{
        Preview *p = userdata;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_PROFILES_INTERFACE, "PreviewEdit", &error, &reply,
                        "sss", p->home, p->file, p->text);
        dump_call(f, "PreviewEdit", r, &error, reply);
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
}

/* (a) */
static void test_findfile_other_home(void)
{
        g_autofree char *name = NULL, *victim_home = NULL, *victim_dir = NULL, *secret_file = NULL, *probe_exe = NULL;
        g_autofree char *rule = NULL, *rc_file = NULL, *own_rc = NULL, *got = NULL, *profiles = NULL;
        ITestUser victim;
        Preview p;
        Sec s;

        ITEST_REQUIRE_ROOT("needs root: the daemon runs as root, and two users the test creates");
        sec_setup(&s, false);
        itest_create_user(USER_PREFIX, &victim);
        itest_use_fixture_proc(&s.t);
        /* Public (the system rule names it): not the case's token, which must reach nobody. */
        name = g_strdup_printf("nvptest-ff-%08x", g_random_int());

        /* The victim's 0700 home holds a directory with the file: only the victim can see it. */
        victim_home = g_strdup_printf("home/%s", victim.name);
        victim_dir = g_strdup_printf("%s/private", victim_home);
        secret_file = g_strdup_printf("%s/%s", victim_dir, name);
        root_write(&s, secret_file, "", 0644);
        root_mkdir(&s, victim_dir, 0755);
        root_mkdir(&s, victim_home, 0700);
        {
                const char *rels[] = { victim_home, victim_dir, secret_file };
                for (size_t i = 0; i < G_N_ELEMENTS(rels); i++) {
                        g_autofree char *path = g_build_filename(s.t.root, rels[i], NULL);
                        itest_user_chown(&victim, path);
                }
        }
        /* The control: the same name beside the attacker's own executable. */
        {
                g_autofree char *rel = g_strdup_printf("bin/%s", name);
                attacker_write(&s, rel, "", 0);
        }

        rule = g_strdup_printf("{\"rules\": [{\"pattern\": {\"feature\": \"findfile\", \"matches\": \"%s\"}, "
                               "\"profile\": {\"name\": \"Found\", \"settings\": [\"GLShaderDiskCache\", false]}}]}\n",
                        name);
        root_write(&s, RCD "/20-findfile", rule, 0644);
        own_rc = g_strdup_printf("%s/%s", s.home, USER_RC);
        attacker_write(&s, USER_RC, "{}\n", -1);

        itest_start_daemon(&s.t, "[ProcessWatch]\nSettleSec=0\nPollIntervalSec=100ms\n");

        /* The attacker ran a program from ~/d, deleted it and made ~/d a link to the victim's directory; or
         * it runs in a mount namespace of its own: either way the exe link's text names the victim's
         * directory. */
        probe_exe = g_strdup_printf("/%s/probe (deleted)", victim_dir);
        fixture_process_of_attacker(&s, PROBE_PID, 5000, "probe", probe_exe);
        {
                g_autofree char *control_exe = g_strdup_printf("%s/bin/control", s.home);
                fixture_process_of_attacker(&s, CONTROL_PID, 5001, "control", control_exe);
        }
        ITEST_WAIT_FOR(itest_profiles_are(&s.t, CONTROL_PID, "Found") && tracked(&s, PROBE_PID), WAIT_MS);
        g_assert_true(itest_profiles_are(&s.t, CONTROL_PID, "Found"));
        profiles = itest_tracked_profiles(&s.t, PROBE_PID);
        g_assert_nonnull(profiles);
        g_assert_cmpstr(profiles, ==, "");

        /* The same guess as a preview of the attacker's own file: only the control changes. */
        rc_file = g_strdup_printf("{\"rules\": [{\"pattern\": {\"feature\": \"findfile\", \"matches\": \"%s\"}, "
                                  "\"profile\": [\"GLSharpenValue\", 9]}]}\n",
                        name);
        p = (Preview){ .home = s.home, .file = own_rc, .text = rc_file };
        got = attacker_on_bus(&s, preview_call, &p, NULL);
        g_test_message("%s", got);
        g_assert_nonnull(strstr(got, "PreviewEdit: ok"));
        g_assert_nonnull(strstr(got, "\"control\""));
        itest_assert_absent(s.user, got, "\"probe\"");

        sec_finish(&s);
}

#define CHAIN_NAMES 2000
#define CHAIN_LINKS 38 /* with the name's own link, 39: within the kernel's 40 */
#define CHAIN_DEPTH 1800 /* the deepest link's path, 2 bytes a level, stays within PATH_MAX */
#define PROMPT_USEC G_USEC_PER_SEC

/* Root's status, timed. */
static gint64 root_status_usec(Sec *s)
{
        gint64 start = g_get_monotonic_time();
        g_autofree char *out = NULL;

        g_assert_cmpint(root_ctl(s, &out, NULL, "--json=short", "status"), ==, 0);
        return g_get_monotonic_time() - start;
}

/* (b) */
static void test_findfile_bound(void)
{
        g_autoptr(GString) deep = g_string_new(NULL), names = g_string_new(NULL), small = g_string_new(NULL);
        g_autoptr(GString) rc = g_string_new(NULL);
        struct json_object *errors;
        g_autofree char *exe = NULL, *limit = NULL;
        gint64 start, took;
        Sec s;

        ITEST_REQUIRE_ROOT("needs root: the daemon runs as root, and a user the test creates");
        sec_setup(&s, false);
        itest_use_fixture_proc(&s.t);

        /* ~/c/nI -> ~/t/a/.../a/lk0 -> ~/t/a/.../a/lk1 -> ... -> ~/t/a/.../a/file, absolute links (the
         * daemon resolves them below its root): followed, each walks the whole depth again. */
        g_string_append(deep, "t");
        for (unsigned i = 0; i < CHAIN_DEPTH; i++)
                g_string_append(deep, "/a");
        attacker_mkdir(&s, deep->str);
        {
                g_autofree char *rel = g_strdup_printf("%s/file", deep->str);
                attacker_write(&s, rel, "", 0);
        }
        for (unsigned i = 0; i < CHAIN_LINKS; i++) {
                g_autofree char *rel = g_strdup_printf("%s/lk%u", deep->str, i);
                g_autofree char *target = i + 1 < CHAIN_LINKS ? g_strdup_printf("%s/%s/lk%u", s.home, deep->str, i + 1)
                                                              : g_strdup_printf("%s/%s/file", s.home, deep->str);
                attacker_symlink(&s, rel, target);
        }
        /* Every name is a link into the chain; a rule names CHAIN_NAMES of them, another as many as allowed. */
        for (unsigned i = 0; i < CHAIN_NAMES; i++) {
                g_autofree char *rel = g_strdup_printf("c/n%u", i);
                g_autofree char *target = g_strdup_printf("%s/%s/lk0", s.home, deep->str);
                attacker_symlink(&s, rel, target);
                g_string_append_printf(names, "%sn%u", i ? ":" : "", i);
                if (i < 16)
                        g_string_append_printf(small, "%sn%u", i ? ":" : "", i);
        }
        g_string_append_printf(rc,
                        "{\"rules\": [{\"pattern\": {\"feature\": \"findfile\", \"matches\": \"%s\"}, \"profile\": "
                        "{\"name\": \"Many\", \"settings\": [\"GLSharpenValue\", 3]}},\n"
                        " {\"pattern\": {\"feature\": \"findfile\", \"matches\": \"%s\"}, \"profile\": {\"name\": "
                        "\"Sixteen\", \"settings\": [\"GLShaderDiskCache\", false]}}]}\n",
                        names->str, small->str);
        attacker_write(&s, USER_RC, rc->str, -1);

        itest_start_daemon(&s.t, "[ProcessWatch]\nSettleSec=0\nPollIntervalSec=100ms\n");
        g_assert_cmpint(root_status_usec(&s), <, PROMPT_USEC);

        exe = g_strdup_printf("%s/c/game", s.home);
        start = g_get_monotonic_time();
        fixture_process_of_attacker(&s, CHAIN_PID, 6000, "game", exe);
        ITEST_WAIT_FOR(tracked(&s, CHAIN_PID), WAIT_MS);
        took = g_get_monotonic_time() - start;
        {
                g_autofree char *profiles = itest_tracked_profiles(&s.t, CHAIN_PID);
                g_test_message("tracked after %" G_GINT64_FORMAT " ms with profiles %s", took / 1000, profiles);
        }
        /* The rule within the bound matches: its names are there, as links (one lookup each, never the
         * chain); the one over it does not, and its file says why. */
        g_assert_true(itest_profiles_are(&s.t, CHAIN_PID, "Sixteen"));
        g_assert_cmpint(took, <, PROMPT_USEC);
        g_assert_cmpint(root_status_usec(&s), <, PROMPT_USEC);

        errors = errors_json(&s, true);
        limit = g_strdup_printf("name %u files, more than 16", CHAIN_NAMES);
        g_assert_cmpuint(count_errors(errors, "", limit), ==, 1);
        json_object_put(errors);

        sec_finish(&s);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/security-findfile/other-home", test_findfile_other_home);
        g_test_add_func("/security-findfile/bound", test_findfile_bound);
        return g_test_run();
}
