/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofiled as an attacker tries it (issue 6, items 1-9; HACKING.md "Security rules"), as
 * sec-world.h describes: an unprivileged user each case creates attacks the real daemon running as root,
 * and each case asserts that nothing leaked and that the daemon is intact. */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-names.h"
#include "itest.h"
#include "sec-world.h"

#define MEMORY_MAX (UINT64_C(128) * 1024 * 1024) /* systemd/nvprofiled.service: MemoryMax=128M */

/* Item 1: the attacker's rc file is a link to a 0644 file inside another user's 0700 directory: a
 * non-JSON one (its first word is the secret) and, in the rc.d, an rc file whose rules carry it. The
 * kernel decides as for the attacker: neither is read; both are listed as not readable by its uid. */
static void test_symlink_other_user(void)
{
        Sec s;
        g_autofree char *note = NULL, *text = NULL, *err = NULL, *rc_path = NULL, *rcd_path = NULL;
        g_autofree char *notes_text = NULL, *rules_text = NULL, *home_prefix = NULL;
        struct json_object *rules, *errors;

        ITEST_REQUIRE_ROOT("needs root: the daemon runs as root and the attacker is a user the test creates");
        sec_setup(&s, false);
        notes_text = g_strdup_printf("%s is the password\n", s.secret);
        rules_text = g_strdup_printf("{\"rules\": [{\"pattern\": \"%s\", \"profile\": {\"name\": \"%s\", "
                                     "\"settings\": [\"GLSharpenValue\", 7]}}]}\n",
                        s.secret, s.secret);
        root_mkdir(&s, "home/victim", 0700);
        root_write(&s, "home/victim/notes", notes_text, 0644);
        root_write(&s, "home/victim/profiles-rc", rules_text, 0644);
        attacker_symlink(&s, USER_RC, "/home/victim/notes");
        attacker_symlink(&s, USER_RCD "/50-victim", "/home/victim/profiles-rc");
        /* And one of its own, which is read: the links were followed as far as the attacker may. */
        attacker_write(&s, USER_RCD "/60-own",
                        "{\"rules\": [{\"pattern\": \"nvptest-own\", \"profile\": [\"GLSharpenValue\", 1]}]}\n", -1);
        itest_start_daemon(&s.t, NULL);

        rc_path = g_strdup_printf("%s/" USER_RC, s.home);
        rcd_path = g_strdup_printf("%s/" USER_RCD "/50-victim", s.home);
        note = g_strdup_printf("not readable by uid %u", (unsigned) s.uid);
        home_prefix = g_strdup_printf("%s/", s.home);

        rules = attacker_rules(&s, s.home);
        /* The system marker and its own rule; none of the victim's. */
        g_assert_cmpuint(count_rules_from(rules, "/" RCD "/"), ==, 1);
        g_assert_cmpuint(count_rules_from(rules, rc_path), ==, 0);
        g_assert_cmpuint(count_rules_from(rules, rcd_path), ==, 0);
        g_assert_cmpuint(count_rules_from(rules, home_prefix), ==, 1);
        json_object_put(rules);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=short", "profiles", "--home", s.home), ==, 0);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=off", "rules", "--home", s.home), ==, 0);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=short", "resolve", "--exe", "/usr/bin/nvptest-own",
                                        "--home", s.home),
                        ==, 0);

        /* errors: both entries, as not readable by the attacker's uid; no word of their content. */
        errors = errors_json(&s, true);
        g_assert_cmpuint(count_errors(errors, rc_path, note), ==, 1);
        g_assert_cmpuint(count_errors(errors, rcd_path, note), ==, 1);
        json_object_put(errors);
        g_assert_cmpint(attacker_ctl(&s, &text, &err, "--json=off", "errors"), <=, 1);
        g_assert_nonnull(strstr(text, note));
        /* Root sees the attacker's configuration the same way. */
        errors = errors_json(&s, false);
        g_assert_cmpuint(count_errors(errors, rc_path, note), ==, 1);
        json_object_put(errors);

        sec_finish(&s);
}

/* Item 2: the same link pointed at /proc/<pid>/maps of a root process: no load address of it anywhere.
 * The attacker's link to its own process's maps is the control: that one is read (and is no rc file). */
static void test_symlink_proc_maps(void)
{
        Sec s;
        g_autofree char *root_maps = NULL, *own_maps = NULL, *own_path = NULL, *rc_path = NULL, *note = NULL;
        g_autoptr(GPtrArray) root_addresses = NULL, own_addresses = NULL;
        struct json_object *errors;
        GPid root_pid, own_pid;

        ITEST_REQUIRE_ROOT("needs root: a root process's maps, a mount namespace, and a user the test creates");
        sec_setup(&s, true);
        root_pid = spawn_helper(&s, false, "nvptest-rootmaps", NULL);
        own_pid = spawn_helper(&s, true, "nvptest-ownmaps", NULL);
        root_addresses = load_addresses(root_pid);
        own_addresses = load_addresses(own_pid);
        g_assert_cmpuint(root_addresses->len, >, 3);
        for (guint i = 0; i < root_addresses->len; i++) {
                bool shared = false;
                for (guint k = 0; k < own_addresses->len; k++)
                        shared = shared || g_str_equal(root_addresses->pdata[i], own_addresses->pdata[k]);
                /* [vsyscall] and the like are the same everywhere: no secret. */
                if (!shared)
                        g_ptr_array_add(s.private_facts, g_strdup(root_addresses->pdata[i]));
        }
        g_assert_cmpuint(s.private_facts->len, >, 3);

        root_maps = g_strdup_printf("/proc/%i/maps", (int) root_pid);
        own_maps = g_strdup_printf("/proc/%i/maps", (int) own_pid);
        attacker_symlink(&s, USER_RC, root_maps);
        attacker_symlink(&s, USER_RCD "/50-rootmaps", root_maps);
        attacker_symlink(&s, USER_RCD "/60-ownmaps", own_maps);
        itest_start_daemon(&s.t, NULL);

        rc_path = g_strdup_printf("%s/" USER_RC, s.home);
        own_path = g_strdup_printf("%s/" USER_RCD "/60-ownmaps", s.home);
        note = g_strdup_printf("not readable by uid %u", (unsigned) s.uid);

        json_object_put(attacker_rules(&s, s.home));
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=off", "rules", "--home", s.home), ==, 0);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=off", "profiles", "--home", s.home), ==, 0);
        errors = errors_json(&s, true);
        g_assert_cmpuint(count_errors(errors, rc_path, note), ==, 1);
        /* The control: its own maps were opened and read (and are not an rc file). */
        g_assert_cmpuint(count_errors(errors, own_path, NULL), >=, 1);
        g_assert_cmpuint(count_errors(errors, own_path, "not readable"), ==, 0);
        json_object_put(errors);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=off", "errors"), <=, 1);
        /* Root's view of the attacker's configuration is the attacker's too. */
        g_assert_cmpint(root_ctl(&s, NULL, NULL, "--json=off", "errors"), <=, 1);

        sec_finish(&s);
}

static void list_rules_call(sd_bus *bus, FILE *f, void *userdata)
{
        const char *home = userdata;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(
                        bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListRules", &error, &reply, "s", home);
        dump_call(f, "ListRules", r, &error, reply);
        sd_bus_error_free(&error);
        reply = sd_bus_message_unref(reply);

        r = sd_bus_call_method(
                        bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListProfiles", &error, &reply, "s", home);
        dump_call(f, "ListProfiles", r, &error, reply);
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
}

/* Item 3: root's home (0700, with an rc file carrying the secret) named by the attacker: refused with
 * AccessDenied under every spelling, nothing listed. Root is answered. */
static void test_home_root(void)
{
        Sec s;
        g_autofree char *rc = NULL, *out = NULL, *got = NULL;
        const char *spellings[] = { "/root", "//root", "/root/", "/home/../root", "/root/.", NULL };
        struct json_object *rules;

        ITEST_REQUIRE_ROOT("needs root: the daemon runs as root and the attacker is a user the test creates");
        sec_setup(&s, false);
        rc = g_strdup_printf("{\"rules\": [{\"pattern\": \"%s\", \"profile\": {\"name\": \"RootsOwn\", "
                             "\"settings\": [\"GLSharpenValue\", 3]}}]}\n",
                        s.secret);
        root_mkdir(&s, "root", 0700);
        root_mkdir(&s, "root/.nv", 0755);
        root_write(&s, "root/" USER_RC, rc, 0644);
        itest_start_daemon(&s.t, NULL);

        for (const char **h = spellings; *h; h++) {
                g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL;

                g_assert_cmpint(attacker_ctl(&s, &o1, &e1, "--json=short", "rules", "--home", *h), ==, 1);
                g_assert_cmpstr(o1, ==, "");
                g_assert_nonnull(strstr(e1, "denied"));
                g_assert_cmpint(attacker_ctl(&s, &o2, NULL, "--json=short", "profiles", "--home", *h), ==, 1);
                g_assert_cmpstr(o2, ==, "");
                g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=short", "resolve", "--exe", "/usr/bin/x", "--home",
                                                *h),
                                ==, 1);
                got = attacker_on_bus(&s, list_rules_call, (void *) *h, NULL);
                g_test_message("%s", got);
                g_assert_nonnull(strstr(got, "ListRules: error " SD_BUS_ERROR_ACCESS_DENIED ":"));
                g_assert_nonnull(strstr(got, "ListProfiles: error " SD_BUS_ERROR_ACCESS_DENIED ":"));
                g_clear_pointer(&got, g_free);
        }
        /* A home that does not exist is no secret: answered with the system's rules alone (the app asks with
         * $HOME, which for some users names nothing). Under root's unreadable home it is still refused. */
        rules = attacker_rules(&s, "/nonexistent-home");
        g_assert_cmpuint(json_object_array_length(rules), >, 0);
        g_assert_cmpuint(json_object_array_length(rules), ==, count_rules_from(rules, "/etc/"));
        json_object_put(rules);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=short", "rules", "--home", "/root/nonexistent"), ==, 1);
        /* Nothing of root's in its errors either. */
        json_object_put(errors_json(&s, true));

        /* Root is answered: the file is there and is read for root. */
        g_assert_cmpint(root_ctl_private(&s, &out, "--json=short", "rules", "--home", "/root"), ==, 0);
        rules = itest_parse_list(out, "rules");
        g_assert_cmpuint(count_rules_from(rules, "/root/" USER_RC), ==, 1);
        json_object_put(rules);

        sec_finish(&s);
}

typedef struct RaceState {
        const char *home;
        unsigned polls;
        uint64_t last_reload_usec;
        sd_bus *root_bus;
} RaceState;

static void race_poll(sd_bus *bus, FILE *f, void *userdata)
{
        RaceState *st = userdata;
        gint64 end = g_get_monotonic_time() + 6 * G_USEC_PER_SEC;

        /* At least st->polls calls, and for long enough that reloads happen while the link changes. */
        for (unsigned i = 0; i < st->polls || g_get_monotonic_time() < end; i++) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                sd_bus_message *reply = NULL;
                int r;

                r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListRules", &error, &reply,
                                "s", st->home);
                dump_call(f, "ListRules", r, &error, reply);
                sd_bus_error_free(&error);
                reply = sd_bus_message_unref(reply);
                if (i % 10 == 0) {
                        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListErrors",
                                        &error, &reply, NULL);
                        dump_call(f, "ListErrors", r, &error, reply);
                        if (r < 0)
                                fprintf(f, "ListErrors failed\n");
                        sd_bus_error_free(&error);
                        reply = sd_bus_message_unref(reply);
                }
                g_usleep(5000);
        }
}

/* Root asks for a reload now and then, so that the files are opened again while the link moves. */
static void race_tick(Sec *s, void *userdata)
{
        RaceState *st = userdata;
        uint64_t now = (uint64_t) g_get_monotonic_time();

        if (now - st->last_reload_usec < 250 * 1000)
                return;
        st->last_reload_usec = now;
        (void) sd_bus_call_method(s->t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Reload", NULL, NULL, NULL);
}

/* Item 1, the race: the attacker swaps its link between a file it owns and a root-only 0600 file as
 * fast as it can while ListRules is polled 300+ times (and the daemon reloads): the secret never shows,
 * the attacker's own file does. */
static void test_symlink_swap_race(void)
{
        Sec s;
        g_autofree char *rc = NULL, *got = NULL, *link = NULL, *tmp = NULL;
        RaceState st = { .polls = 300 };
        unsigned own_seen = 0;
        pid_t swapper;

        ITEST_REQUIRE_ROOT("needs root: the daemon runs as root and the attacker is a user the test creates");
        sec_setup(&s, false);
        rc = g_strdup_printf("{\"rules\": [{\"pattern\": \"%s\", \"profile\": {\"name\": \"RootOnly\", "
                             "\"settings\": [\"GLSharpenValue\", 9]}}]}\n",
                        s.secret);
        root_mkdir(&s, "srv/private", 0755);
        root_write(&s, "srv/private/rc", rc, 0600);
        attacker_write(&s, "own-rc",
                        "{\"rules\": [{\"pattern\": \"nvptest-own-swap\", \"profile\": [\"GLSharpenValue\", 1]}]}\n",
                        -1);
        attacker_symlink(&s, USER_RC, "/srv/private/rc");
        itest_start_daemon(&s.t, NULL);

        link = g_build_filename(s.home_dir, USER_RC, NULL);
        tmp = g_build_filename(s.home_dir, ".nv", "link.tmp", NULL);
        swapper = fork();
        g_assert_cmpint(swapper, >=, 0);
        if (swapper == 0) {
                unsigned n = 0;
                char own[4096];

                drop_to_attacker(&s);
                g_snprintf(own, sizeof(own), "%s/own-rc", s.home);
                for (;; n++) {
                        (void) unlink(tmp);
                        if (symlink(n % 2 ? own : "/srv/private/rc", tmp) < 0 || rename(tmp, link) < 0)
                                _exit(1);
                        /* Hundreds of swaps per second, at varying moments; not a busy loop, which
                         * would only starve the daemon of CPU. */
                        usleep(200 + n % 7 * 150);
                }
        }
        remember_child(swapper);

        st.home = s.home;
        st.last_reload_usec = (uint64_t) g_get_monotonic_time();
        got = attacker_on_bus(&s, race_poll, &st, race_tick);
        g_assert_cmpint(waitpid(swapper, NULL, WNOHANG), ==, 0);
        for (const char *p = got; (p = strstr(p, "nvptest-own-swap")); p++)
                own_seen++;
        g_test_message("the attacker's own rule was listed %u times in %u+ polls", own_seen, st.polls);
        g_assert_cmpuint(own_seen, >, 0);
        g_assert_null(strstr(got, "ListRules: error"));
        g_assert_null(strstr(got, "ListErrors failed"));
        kill(swapper, SIGKILL);
        g_assert_cmpint(waitpid(swapper, NULL, 0), ==, swapper);
        children[n_children - 1] = 0;

        sec_finish(&s);
}

/* Item 5 (issue item 2): a system rc file of mode 0600 does not count for the attacker's processes, as
 * the driver, which reads it inside the process, could not read it either. */
static void test_system_file_unreadable(void)
{
        Sec s;
        g_autofree char *private_rc = NULL, *spid = NULL, *note = NULL, *root_text = NULL, *attacker_text = NULL;
        g_autofree char *out = NULL;
        struct json_object *res;
        GPid pid;

        ITEST_REQUIRE_ROOT("needs root: the proc connector, and a process of a user the test creates");
        sec_setup(&s, false);
        root_write(&s, RCD "/40-public",
                        "{\"rules\": [{\"pattern\": \"nvptest-secproc\", \"profile\": {\"name\": \"Public\", "
                        "\"settings\": [\"GLSharpenEnable\", true]}}]}\n",
                        0644);
        private_rc = g_strdup_printf("{\"rules\": [{\"pattern\": \"nvptest-secproc\", \"profile\": {\"name\": "
                                     "\"Private\", \"settings\": [\"GLSharpenValue\", 5, \"%s\", 1]}}]}\n",
                        s.secret);
        root_write(&s, RCD "/50-private", private_rc, 0600);
        itest_start_daemon(&s.t, NULL);
        pid = spawn_helper(&s, true, "nvptest-secproc", NULL);
        spid = g_strdup_printf("%i", (int) pid);
        note = g_strdup_printf("/" RCD "/50-private: not readable by uid %u", (unsigned) s.uid);

        /* The readable file applies, the other one does not. */
        ITEST_WAIT_FOR(tracked_with(&s, pid, "Public"), WAIT_MS);
        {
                g_autofree char *p = itest_tracked_profiles(&s.t, pid);
                g_assert_cmpstr(p, ==, "Public");
        }
        for (int attacker = 0; attacker <= 1; attacker++) {
                g_clear_pointer(&out, g_free);
                g_assert_cmpint(ctl_run(&s, attacker, true, &out, NULL, CTL_ARGS("--json=short", "explain", spid)), ==,
                                0);
                res = parse_json(out);
                g_assert_cmpstr(itest_setting(res, "GLSharpenEnable"), ==, "true");
                g_assert_null(itest_setting(res, "GLSharpenValue"));
                json_object_put(res);
                g_clear_pointer(&out, g_free);
                g_assert_cmpint(ctl_run(&s, attacker, true, &out, NULL,
                                                CTL_ARGS("--json=short", "--all", "explain", spid)),
                                ==, 0);
                g_assert_null(strstr(out, "\"Private\""));
        }
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=short", "processes"), ==, 0);
        g_assert_cmpint(root_ctl(&s, NULL, NULL, "--json=short", "processes", "--all"), ==, 0);
        json_object_put(errors_json(&s, true));

        g_assert_cmpint(root_ctl(&s, &root_text, NULL, "--json=off", "explain", spid), ==, 0);
        g_assert_cmpint(attacker_ctl(&s, &attacker_text, NULL, "--json=off", "explain", spid), ==, 0);
        g_test_message("root's explain:\n%s", root_text);
        g_test_message("the attacker's explain:\n%s", attacker_text);
        /* The file is named as not readable by the process's uid, for root and for the attacker. */
        g_assert_nonnull(strstr(root_text, note));
        g_assert_nonnull(strstr(attacker_text, note));
        sec_finish(&s);
}

/* Item 6 (issue item 5): 1,100 links to separate directories in the attacker's rc.d, and one call naming
 * that home, cost nobody else anything: an edit of a system rc file is still picked up at once. */
static void test_watch_starvation(void)
{
        Sec s;
        g_autofree char *out = NULL, *err = NULL;
        uint64_t g0;

        ITEST_REQUIRE_ROOT("needs root: the daemon runs as root and the attacker is a user the test creates");
        sec_setup(&s, false);
        for (unsigned i = 0; i < 1100; i++) {
                g_autofree char *dir = g_strdup_printf("dirs/%04u", i), *entry = g_strdup_printf(USER_RCD "/%04u", i),
                                *target = g_strdup_printf("%s/dirs/%04u", s.home, i);
                attacker_mkdir(&s, dir);
                attacker_symlink(&s, entry, target);
        }
        attacker_write(&s, "dirs/0000/rc", "{\"rules\": []}\n", -1);
        itest_start_daemon(&s.t, NULL);

        g_assert_cmpint(attacker_ctl(&s, &out, &err, "--json=short", "rules", "--home", s.home), ==, 0);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=short", "resolve", "--exe", "/usr/bin/x", "--home",
                                        s.home),
                        ==, 0);
        json_object_put(errors_json(&s, true));
        g_assert_cmpint(root_ctl(&s, NULL, NULL, "--json=off", "status"), ==, 0);

        for (int round = 0; round < 2; round++) {
                g_autofree char *rule = g_strdup_printf("nvptest-after-edit-%d", round), *text = NULL, *listed = NULL;

                g0 = itest_generation(&s.t);
                text = g_strdup_printf(
                                "{\"rules\": [{\"pattern\": \"%s\", \"profile\": [\"GLSharpenValue\", 2]}]}\n", rule);
                /* Created first, then edited in place. */
                root_write(&s, RCD "/20-edited", text, 0644);
                /* Within a few seconds: coalescing is 100 ms here, at most 2 s in a burst. */
                ITEST_WAIT_FOR(itest_generation(&s.t) > g0, 5000);
                g_assert_cmpuint(itest_generation(&s.t), >, g0);
                g_assert_cmpint(root_ctl(&s, &listed, NULL, "--json=short", "rules"), ==, 0);
                g_assert_nonnull(strstr(listed, rule));
        }
        sec_finish(&s);
}

static uint64_t daemon_rss(Sec *s)
{
        g_autofree char *path = g_strdup_printf("/proc/%i/status", (int) s->t.daemon_pid), *status = NULL;
        g_autoptr(GError) error = NULL;
        const char *p;

        g_file_get_contents(path, &status, NULL, &error);
        g_assert_no_error(error);
        p = strstr(status, "VmRSS:");
        g_assert_nonnull(p);
        return g_ascii_strtoull(p + strlen("VmRSS:"), NULL, 10) * 1024;
}

static bool daemon_has_asan(Sec *s)
{
        g_autofree char *path = g_strdup_printf("/proc/%i/maps", (int) s->t.daemon_pid), *maps = NULL;

        return g_file_get_contents(path, &maps, NULL, NULL) && strstr(maps, "libasan");
}

/* The distinct files below prefix that a rules listing has rules from. */
static guint files_with_rules(struct json_object *rules, const char *prefix)
{
        g_autoptr(GHashTable) files = g_hash_table_new(g_str_hash, g_str_equal);

        for (size_t i = 0; i < json_object_array_length(rules); i++) {
                const char *file = jstr(json_object_array_get_idx(rules, i), "file");
                if (file_matches(file, prefix))
                        g_hash_table_add(files, (char *) file);
        }
        return g_hash_table_size(files);
}

/* Item 7 (issue item 6): 60 files of 1 MB in the attacker's rc.d: the daemon stays within the unit's
 * MemoryMax, and the files beyond the user's budget are listed as skipped for it. Other spellings of the
 * same home are the same configuration. */
static void test_memory_budget(void)
{
        Sec s;
        g_autoptr(GString) big =
                        g_string_new("{\"profiles\": [{\"name\": \"P\", \"settings\": [\"GLSharpenValue\", 1]}],\n"
                                     " \"rules\": [\n");
        g_autofree char *rcd = NULL;
        g_auto(GStrv) spellings = NULL;
        struct json_object *rules, *errors;
        guint loaded, skipped;
        uint64_t rss_before, rss_after, rss_spellings;
        bool asan;

        ITEST_REQUIRE_ROOT("needs root: the daemon runs as root and the attacker is a user the test creates");
        sec_setup(&s, false);
        /* A valid rc file of exactly 1,000,000 bytes: ~19,000 rules. */
        for (unsigned i = 0; big->len < 1000000 - 200; i++)
                g_string_append_printf(big, "{\"pattern\": \"nvptest-mem-%07u\", \"profile\": \"P\"},\n", i);
        g_string_append(big, "{\"pattern\": \"nvptest-mem-last\", \"profile\": \"P\"}]}\n");
        while (big->len < 1000000)
                g_string_append_c(big, ' ');
        for (unsigned i = 0; i < 60; i++) {
                g_autofree char *name = g_strdup_printf(USER_RCD "/%02u-big", i);
                attacker_write(&s, name, big->str, (gssize) big->len);
        }
        /* And a small one, first in order: read whatever happens to the big ones. */
        attacker_write(&s, USER_RCD "/00-small",
                        "{\"rules\": [{\"pattern\": \"nvptest-small\", \"profile\": [\"GLSharpenValue\", 2]}]}\n", -1);
        itest_start_daemon(&s.t, NULL);
        asan = daemon_has_asan(&s);
        rss_before = daemon_rss(&s);

        rcd = g_strdup_printf("%s/" USER_RCD "/", s.home);
        rules = attacker_rules(&s, s.home);
        rss_after = daemon_rss(&s);
        g_test_message("daemon RSS %" PRIu64 " KiB before, %" PRIu64 " KiB after", rss_before / 1024, rss_after / 1024);
        loaded = files_with_rules(rules, rcd);
        json_object_put(rules);
        errors = errors_json(&s, true);
        skipped = count_errors(errors, rcd, "memory budget");
        json_object_put(errors);
        g_test_message("%u of 61 files read, %u skipped for the memory budget", loaded, skipped);
        g_assert_cmpuint(loaded, >=, 1);
        g_assert_cmpuint(skipped, >=, 50);
        if (asan)
                g_test_message("sanitizer build: its RSS is not the unit's figure, not compared with MemoryMax");
        else
                g_assert_cmpuint(rss_after, <, MEMORY_MAX);

        /* The same home under other spellings: the same configuration (its files keep the first
         * spelling's paths, and are listed once), and no more memory. */
        spellings = g_new0(char *, 5);
        spellings[0] = g_strdup_printf("//home/%s/", s.user);
        spellings[1] = g_strdup_printf("/home/../home/%s", s.user);
        spellings[2] = g_strdup_printf("/home/%s/.", s.user);
        spellings[3] = g_strdup_printf("/home/./%s//", s.user);
        for (char **h = spellings; *h; h++) {
                rules = attacker_rules(&s, *h);
                g_assert_cmpuint(files_with_rules(rules, rcd), ==, loaded);
                json_object_put(rules);
        }
        rss_spellings = daemon_rss(&s);
        g_test_message("daemon RSS %" PRIu64 " KiB after the other spellings", rss_spellings / 1024);
        errors = errors_json(&s, true);
        g_assert_cmpuint(count_errors(errors, "", "memory budget"), ==, skipped);
        g_assert_cmpuint(count_errors(errors, rcd, "memory budget"), ==, skipped);
        json_object_put(errors);
        if (!asan)
                g_assert_cmpuint(rss_spellings, <, rss_after + UINT64_C(16) * 1024 * 1024);

        sec_finish(&s);

        /* Every file is either read (its rules listed) or listed as not read, with the reason. (Files a
         * user's two configurations share are charged once, so neither loses one to the other's share.)
         * Asserted last, after the teardown, so that a failure leaves no 60 MB behind. */
        g_assert_cmpuint(loaded + skipped, ==, 61);
}

static void explain_calls(sd_bus *bus, FILE *f, void *userdata)
{
        pid_t pid = *(pid_t *) userdata;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r, pidfd;

        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ExplainProcess", &error, &reply,
                        "ut", (uint32_t) pid, UINT64_C(0));
        dump_call(f, "ExplainProcess", r, &error, reply);
        sd_bus_error_free(&error);
        reply = sd_bus_message_unref(reply);

        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "GetProcess", &error, &reply, "ut",
                        (uint32_t) pid, UINT64_C(0));
        dump_call(f, "GetProcess", r, &error, reply);
        sd_bus_error_free(&error);
        reply = sd_bus_message_unref(reply);

        /* Anyone may open a pidfd of any process. */
        pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (pidfd >= 0) {
                r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ExplainProcessByPidfd",
                                &error, &reply, "h", pidfd);
                dump_call(f, "ExplainProcessByPidfd", r, &error, reply);
                sd_bus_error_free(&error);
                reply = sd_bus_message_unref(reply);
                close(pidfd);
        } else
                fprintf(f, "pidfd_open: %s\n", strerror(errno));

        r = sd_bus_call_method(
                        bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListProcesses", &error, &reply, NULL);
        dump_call(f, "ListProcesses", r, &error, reply);
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
}

static bool refused(const char *got, const char *member)
{
        g_autofree char *denied = g_strdup_printf("%s: error %s:", member, SD_BUS_ERROR_ACCESS_DENIED),
                        *gone = g_strdup_printf("%s: error %s:", member, BUS_ERROR_NO_SUCH_PROCESS);
        return strstr(got, denied) || strstr(got, gone);
}

/* Item 8 (issue item 7): explaining a root process as the attacker is refused, and the refusal says
 * nothing about the process (its executable, its profile). */
static void test_explain_other_user(void)
{
        Sec s;
        g_autofree char *name = NULL, *exe = NULL, *profile = NULL, *rc = NULL, *spid = NULL, *got = NULL;
        g_autofree char *out = NULL, *err = NULL;
        GPid pid;

        ITEST_REQUIRE_ROOT("needs root: the proc connector, a root process, and a user the test creates");
        sec_setup(&s, false);
        /* comm keeps 15 bytes of the name: "nvptest-rootpro", nothing private. */
        name = g_strdup_printf("nvptest-rootproc-%s", s.token + 8);
        exe = g_build_filename(s.t.dir, "bin", name, NULL);
        profile = g_strdup_printf("RootProfile%s", s.token + 8);
        rc = g_strdup_printf("{\"rules\": [{\"pattern\": \"%s\", \"profile\": {\"name\": \"%s\", \"settings\": "
                             "[\"GLSharpenValue\", 4]}}]}\n",
                        name, profile);
        root_write(&s, RCD "/50-rootproc", rc, 0644);
        g_ptr_array_add(s.private_facts, g_strdup(exe));
        g_ptr_array_add(s.private_facts, g_strdup(s.token + 8));
        itest_start_daemon(&s.t, NULL);
        pid = spawn_helper(&s, false, name, NULL);
        spid = g_strdup_printf("%i", (int) pid);
        ITEST_WAIT_FOR(tracked_with(&s, pid, profile), WAIT_MS);
        {
                g_autofree char *p = itest_tracked_profiles(&s.t, pid);
                g_assert_cmpstr(p, ==, profile);
        }

        g_assert_cmpint(attacker_ctl(&s, &out, &err, "--json=short", "explain", spid), ==, 1);
        g_assert_cmpstr(out, ==, "");
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=off", "--all", "explain", spid), ==, 1);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=short", "processes", "--all"), ==, 0);
        got = attacker_on_bus(&s, explain_calls, &pid, NULL);
        g_test_message("%s", got);
        g_assert_true(refused(got, "ExplainProcess"));
        g_assert_true(refused(got, "GetProcess"));
        g_assert_true(refused(got, "ExplainProcessByPidfd"));

        /* The control: root is answered, with the details the attacker did not get. */
        {
                g_autofree char *root_out = NULL;
                g_assert_cmpint(root_ctl_private(&s, &root_out, "--json=short", "explain", spid), ==, 0);
                g_assert_nonnull(strstr(root_out, profile));
        }
        sec_finish(&s);
}

static bool has_control_bytes(const char *text)
{
        return strchr(text, 0x1b) || strchr(text, 0x07);
}

/* Item 9: a process of the attacker named with terminal escapes (and an executable whose name has one):
 * nvprofilectl's text output holds no raw ESC or BEL byte; its JSON keeps the exact name. */
static void test_terminal_escapes(void)
{
        Sec s;
        static const char rename_to[] = "\x1b]0;PWNED\x07\x1b[31mX";
        static const char exe_name[] = "nvptest-esc\x1b[2J";
        const char *args[] = { "--rename", rename_to, "--open", NULL, NULL };
        g_autofree char *card = NULL, *spid = NULL, *comm = NULL, *json = NULL;
        struct json_object *res, *facts;
        GPid pid;

        ITEST_REQUIRE_ROOT("needs root: the proc connector, and a process of a user the test creates");
        sec_setup(&s, false);
        /* A GPU user is tracked with an object whatever its name. */
        card = g_build_filename(s.t.devdir, "dri", "card0", NULL);
        args[3] = card;
        root_write(&s, RCD "/50-esc",
                        "{\"rules\": [{\"pattern\": {\"feature\": \"commname\", \"matches\": "
                        "\"\\u001b]0;PWNED\\u0007\\u001b[31m\"}, \"profile\": {\"name\": \"Esc\", \"settings\": "
                        "[\"GLSharpenValue\", 6]}}]}\n",
                        0644);
        itest_start_daemon(&s.t, NULL);
        pid = spawn_helper(&s, true, exe_name, args);
        spid = g_strdup_printf("%i", (int) pid);
        /* The kernel keeps 15 bytes of it. */
        comm = g_strndup(rename_to, 15);
        ITEST_WAIT_FOR(tracked_with(&s, pid, NULL), WAIT_MS);
        g_assert_true(tracked_with(&s, pid, NULL));

        /* JSON: exact. */
        ITEST_WAIT_FOR(root_ctl(&s, NULL, NULL, "--json=short", "explain", spid) == 0, WAIT_MS);
        g_assert_cmpint(root_ctl(&s, &json, NULL, "--json=short", "explain", spid), ==, 0);
        res = parse_json(json);
        g_assert_true(json_object_object_get_ex(res, "facts", &facts));
        g_assert_cmpstr(jstr(facts, "commname"), ==, comm);
        g_assert_cmpstr(jstr(facts, "procname"), ==, exe_name);
        json_object_put(res);

        /* Text, for root and for the attacker: escaped, yet there. */
        for (int attacker = 0; attacker <= 1; attacker++) {
                const char *const verbs[][4] = {
                        { "--json=off", "explain", spid, NULL },
                        { "--json=off", "--all", "explain", spid },
                        { "--json=off", "processes", "--all", NULL },
                        { "--json=off", "processes", NULL, NULL },
                };

                for (size_t v = 0; v < G_N_ELEMENTS(verbs); v++) {
                        g_autofree char *out = NULL, *err = NULL;
                        const char *argv[5] = { verbs[v][0], verbs[v][1], verbs[v][2], verbs[v][3], NULL };
                        int r = ctl_run(&s, attacker, true, &out, &err, argv);

                        g_assert_cmpint(r, ==, 0);
                        g_assert_false(has_control_bytes(out));
                        g_assert_false(has_control_bytes(err));
                        /* The control: the name is there, escaped. */
                        g_assert_nonnull(strstr(out, "nvptest-esc\\x1b[2J"));
                        if (g_strcmp0(verbs[v][1], "explain") == 0 || g_strcmp0(verbs[v][2], "explain") == 0)
                                g_assert_nonnull(strstr(out, "PWNED"));
                }
        }
        sec_finish(&s);
}

/* Each case is its own meson test (tests/integration/meson.build runs this binary with -p /security/NAME). */
int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);

        g_test_add_func("/security/symlink-other-user", test_symlink_other_user);
        g_test_add_func("/security/symlink-proc-maps", test_symlink_proc_maps);
        g_test_add_func("/security/home-root", test_home_root);
        g_test_add_func("/security/symlink-swap-race", test_symlink_swap_race);
        g_test_add_func("/security/system-file-unreadable", test_system_file_unreadable);
        g_test_add_func("/security/watch-starvation", test_watch_starvation);
        g_test_add_func("/security/memory-budget", test_memory_budget);
        g_test_add_func("/security/explain-other-user", test_explain_other_user);
        g_test_add_func("/security/terminal-escapes", test_terminal_escapes);
        return g_test_run();
}
