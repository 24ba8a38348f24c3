/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofiled end to end: the real daemon on a private system-like bus with a --root configuration tree,
 * and either the real /proc and proc connector with processes started by the test (root), or a fixture
 * /proc tree that the daemon polls (no privileges needed).
 *
 * What callers may see and ask: other users' processes, the listings, the limits of a call, nvprofilectl's
 * exit codes. */

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
                g_assert_null(itest_jstr(o, "executable")); /* not known to the caller */
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
        g_assert_cmpuint(itest_tracked_count(&t), ==, 2);

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
        g_assert_cmpstr(itest_jstr(r0, "pattern"), ==, "procname \"nvptest-app\"");
        g_assert_cmpstr(itest_jstr(r0, "profile"), ==, "AppProfile");
        g_assert_cmpstr(itest_jstr(r0, "profile_location"), ==, "/" RCD "/50-app:2:16");
        r1 = json_object_array_get_idx(rules, 1);
        g_assert_cmpstr(itest_jstr(r1, "pattern"), ==, "procname \"nvptest-none\"");
        /* A name defined nowhere resolves nowhere (null). */
        g_assert_null(itest_jstr(r1, "profile_location"));
        json_object_put(rules);

        profiles = ctl_json(&t, 0, "profiles", NULL);
        g_assert_cmpuint(json_object_array_length(profiles), ==, 1);
        p0 = json_object_array_get_idx(profiles, 0);
        g_assert_cmpstr(itest_jstr(p0, "name"), ==, "AppProfile");
        s0 = json_object_array_get_idx(json_object_object_get(p0, "settings"), 0);
        g_assert_cmpstr(itest_jstr(s0, "key"), ==, "GLSharpenEnable");
        g_assert_true(json_object_get_boolean(json_object_object_get(s0, "value")));
        json_object_put(profiles);

        /* The broken file, with its position; errors exits 1 because there is one. */
        errors = ctl_json(&t, 1, "errors", NULL);
        for (size_t i = 0; i < json_object_array_length(errors); i++) {
                e = json_object_array_get_idx(errors, i);
                if (g_strcmp0(itest_jstr(e, "file"), "/" RCD "/70-broken") != 0)
                        continue;
                broken_seen = true;
                g_assert_cmpstr(itest_jstr(e, "severity"), ==, "error");
                g_assert_cmpstr(itest_jstr(e, "state"), ==, "broken");
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
                g_assert_cmpstr(itest_jstr(o, "executable"), ==, "/usr/bin/nvptest-app");
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
        res = itest_explain_json(&t, 500, NULL);
        g_assert_nonnull(res);
        g_assert_cmpstr(itest_setting(res, "k"), ==, "1");
        json_object_put(res);
        /* Still answering. */
        g_assert_cmpint(itest_ctl(&t, NULL, "status", NULL), ==, 0);
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

        g_test_add_func("/daemon/privacy", test_privacy);
        g_test_add_func("/daemon/client-exit-codes", test_client_exit_codes);
        g_test_add_func("/daemon/privacy-hide", test_privacy_hide);
        g_test_add_func("/daemon/listings", test_listings);
        g_test_add_func("/daemon/limits", test_limits);
        return g_test_run();
}
