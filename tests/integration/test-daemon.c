/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofiled end to end: the real daemon on a private system-like bus, a --root configuration tree,
 * the real /proc and the real proc connector (root), processes started by the test. */

#include <gio/gio.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"

#define RCD "etc/nvidia/nvidia-application-profiles-rc.d"
#define WAIT_MS 15000

static bool profiles_are(ITest *t, pid_t pid, const char *expected)
{
        g_autofree char *p = itest_tracked_profiles(t, pid);
        return p && g_str_equal(p, expected);
}

static bool is_tracked(ITest *t, pid_t pid)
{
        g_autofree char *p = itest_tracked_profiles(t, pid);
        return p != NULL;
}

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

        itest_setup(&t);
        itest_write(&t, RCD "/50-app",
                        "{\n"
                        "  \"profiles\": [{\"name\": \"AppProfile\", \"settings\": [\"GLSharpenEnable\", true]}],\n"
                        "  \"rules\": [{\"pattern\": \"nvptest-app\", \"profile\": \"AppProfile\"}]\n"
                        "}\n");
        itest_start_daemon(&t, NULL);
        pid = itest_spawn_helper(&t, "nvptest-app", NULL, NULL);

        ITEST_WAIT_FOR(profiles_are(&t, pid, "AppProfile"), WAIT_MS);
        g_assert_true(profiles_are(&t, pid, "AppProfile"));

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
        g_assert_cmpint(sd_bus_call_method(t.bus, "io.github.nvprofiled.NvProfiled1",
                                        "/io/github/nvprofiled/NvProfiled1", "io.github.nvprofiled.NvProfiled1.Manager",
                                        "ExplainProcess", NULL, &reply, "ut", (uint32_t) pid, UINT64_C(0)),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'r', "sa{sv}a(suussb)a(svssuussa(vssuu))as"), >=, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "s", &state), >=, 0);
        g_assert_cmpstr(state, ==, "enabled");
        sd_bus_message_unref(reply);

        /* And with busctl itself. */
        {
                g_autofree char *out = NULL, *spid = g_strdup_printf("%i", (int) pid),
                                *addr = g_strdup_printf("--address=%s", t.bus_address);
                const char *argv[] = { "busctl", addr, "call", "io.github.nvprofiled.NvProfiled1",
                        "/io/github/nvprofiled/NvProfiled1", "io.github.nvprofiled.NvProfiled1.Manager",
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
                g_assert_cmpint(sd_bus_call_method(t.bus, "io.github.nvprofiled.NvProfiled1",
                                                "/io/github/nvprofiled/NvProfiled1",
                                                "io.github.nvprofiled.NvProfiled1.Manager", "ExplainProcessByPidfd",
                                                NULL, &reply, "h", pidfd),
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
                        g_assert_cmpint(sd_bus_call_method(t.bus, "io.github.nvprofiled.NvProfiled1",
                                                        "/io/github/nvprofiled/NvProfiled1",
                                                        "io.github.nvprofiled.NvProfiled1.Manager",
                                                        "ExplainProcessByPidfd", &e, NULL, "h", devnull),
                                        <, 0);
                        g_assert_cmpstr(e.name, ==, "org.freedesktop.DBus.Error.InvalidArgs");
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
                rules = json_tokener_parse(out);
                g_assert_cmpuint(json_object_array_length(rules), ==, 1);
                r0 = json_object_array_get_idx(rules, 0);
                g_assert_cmpstr(jstr(r0, "pattern"), ==, "procname \"nvptest-app\"");
                g_assert_cmpstr(jstr(r0, "profile"), ==, "AppProfile");
                g_assert_cmpstr(jstr(r0, "profile_location"), ==, "/" RCD "/50-app:2:16");
                json_object_put(rules);

                g_assert_cmpint(itest_ctl(&t, &out2, "profiles", NULL), ==, 0);
                profiles = json_tokener_parse(out2);
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
        ITEST_WAIT_FOR(!is_tracked(&t, pid), WAIT_MS);
        g_assert_false(is_tracked(&t, pid));
        itest_teardown(&t);
}

/* A process that renames itself (PR_SET_NAME) is re-evaluated on the COMM event. */
static void test_comm_rename(void)
{
        ITest t;
        const char *args[] = { "--rename", "nvp-renamed", "--delay-ms", "500", NULL };
        GPid pid;

        itest_setup(&t);
        itest_write(&t, RCD "/50-comm",
                        "{\"rules\": [{\"pattern\": {\"feature\": \"commname\", \"matches\": \"nvp-renamed\"},"
                        " \"profile\": {\"name\": \"Renamed\", \"settings\": [\"GLLogMaxAniso\", 4]}}]}\n");
        /* No settle re-reads: only the COMM event can find the new name. */
        itest_start_daemon(&t, "[ProcessWatch]\nSettleSec=0\n");
        pid = itest_spawn_helper(&t, "nvptest-rename", NULL, args);

        ITEST_WAIT_FOR(profiles_are(&t, pid, "Renamed"), WAIT_MS);
        g_assert_true(profiles_are(&t, pid, "Renamed"));
        itest_kill(pid);
        itest_teardown(&t);
}

/* A process that dlopen()s a library named in a dso rule matches once it is mapped (settle re-read). */
static void test_dlopen(void)
{
        ITest t;
        const char *args[] = { "--dlopen", g_getenv("NVPROFILED_DSO_LIB"), "--delay-ms", "50", NULL };
        GPid pid;

        itest_setup(&t);
        itest_write(&t, RCD "/50-dso",
                        "{\"rules\": [{\"pattern\": {\"feature\": \"dso\", \"matches\": \"libnvptest-dso\"},"
                        " \"profile\": {\"name\": \"DsoProfile\", \"settings\": [\"GLVidHeapReuseRatio\", 0]}}]}\n");
        itest_start_daemon(&t, NULL);
        pid = itest_spawn_helper(&t, "nvptest-dlopen", NULL, args);

        ITEST_WAIT_FOR(profiles_are(&t, pid, "DsoProfile"), WAIT_MS);
        g_assert_true(profiles_are(&t, pid, "DsoProfile"));
        itest_kill(pid);
        itest_teardown(&t);
}

/* __GL_* in the environment overrides a key; __GL_APPLICATION_PROFILE=0 disables profiles. */
static void test_gl_environment(void)
{
        ITest t;
        const char *env_override[] = { "__GL_THREADED_OPTIMIZATIONS=0", NULL };
        const char *env_off[] = { "__GL_APPLICATION_PROFILE=0", NULL };
        struct json_object *res, *settings, *s;
        GPid a, b;

        itest_setup(&t);
        itest_write(&t, RCD "/50-env",
                        "{\"rules\": [{\"pattern\": \"nvptest-env\","
                        " \"profile\": [\"GLThreadedOptimizations\", true, \"GLSharpenValue\", 10]}]}\n");
        itest_start_daemon(&t, NULL);
        a = itest_spawn_helper(&t, "nvptest-env", env_override, NULL);

        res = explain_json(&t, a, NULL);
        g_assert_nonnull(res);
        g_assert_true(json_object_object_get_ex(res, "settings", &settings));
        s = json_object_array_get_idx(settings, 0);
        g_assert_cmpstr(jstr(s, "key"), ==, "GLThreadedOptimizations");
        g_assert_true(json_object_get_boolean(json_object_object_get(s, "overridden")));
        g_assert_cmpstr(jstr(s, "env_variable"), ==, "__GL_THREADED_OPTIMIZATIONS");
        g_assert_cmpstr(jstr(s, "env_value"), ==, "0");
        s = json_object_array_get_idx(settings, 1);
        g_assert_false(json_object_get_boolean(json_object_object_get(s, "overridden")));
        json_object_put(res);
        itest_kill(a);

        b = itest_spawn_helper(&t, "nvptest-env", env_off, NULL);
        res = explain_json(&t, b, NULL);
        g_assert_cmpstr(jstr(res, "state"), ==, "disabled-by-environment");
        json_object_put(res);
        /* Tracked too, with no effective settings. */
        ITEST_WAIT_FOR(is_tracked(&t, b), WAIT_MS);
        g_assert_true(is_tracked(&t, b));
        itest_kill(b);
        itest_teardown(&t);
}

static char *object_of(ITest *t, pid_t pid, bool *ret_gpu)
{
        g_autofree char *out = NULL;
        struct json_object *list;
        char *path = NULL;

        g_assert_cmpint(itest_ctl(t, &out, "processes", "--all", NULL), ==, 0);
        list = json_tokener_parse(out);
        for (size_t i = 0; list && i < json_object_array_length(list); i++) {
                struct json_object *o = json_object_array_get_idx(list, i);
                if (json_object_get_int(json_object_object_get(o, "pid")) == pid && jstr(o, "object"))
                        path = g_strdup(jstr(o, "object"));
        }
        json_object_put(list);
        if (path && ret_gpu) {
                int gpu = 0;
                sd_bus_get_property_trivial(t->bus, "io.github.nvprofiled.NvProfiled1", path,
                                "io.github.nvprofiled.NvProfiled1.Process", "GpuUser", NULL, 'b', &gpu);
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
                g_autofree char *prefix = g_strdup_printf("/io/github/nvprofiled/NvProfiled1/process/%i_", (int) pid);
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

static bool error_listed(ITest *t, const char *file, const char *state)
{
        g_autofree char *out = NULL;
        struct json_object *list;
        bool found = false;
        int status;

        /* errors exits 1 when any file has an error: the listing is there either way. */
        status = itest_ctl(t, &out, "errors", NULL);
        if (status != 0 && status != 1)
                return false;
        list = json_tokener_parse(out);
        for (size_t i = 0; list && i < json_object_array_length(list); i++) {
                struct json_object *o = json_object_array_get_idx(list, i);
                if (g_str_equal(jstr(o, "file"), file) && g_str_equal(jstr(o, "state"), state) &&
                                g_str_equal(jstr(o, "severity"), "error"))
                        found = true;
        }
        json_object_put(list);
        /* ...and its status says whether there is one. */
        g_assert_cmpint(status, ==, found ? 1 : status);
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

        /* A user's rc.d created after the daemon first looked at that $HOME: it outranks /etc. */
        g_assert_true(resolves_to(&t, "/usr/bin/edit-target", "/home/u", "K", "6"));
        rewrite(&t, "home/u/.nv/nvidia-application-profiles-rc.d/10-user", 7);
        ITEST_WAIT_FOR(resolves_to(&t, "/usr/bin/edit-target", "/home/u", "K", "7"), WAIT_MS);
        g_assert_true(resolves_to(&t, "/usr/bin/edit-target", "/home/u", "K", "7"));
        g_assert_true(resolves_to(&t, "/usr/bin/edit-target", NULL, "K", "6"));

        itest_teardown(&t);
}

/* The documented XML and the live introspection describe the same interfaces. */
static void assert_same_interface(GDBusInterfaceInfo *doc, GDBusInterfaceInfo *live)
{
        g_test_message("interface %s", doc->name);
        for (guint i = 0; doc->methods && doc->methods[i]; i++) {
                GDBusMethodInfo *dm = doc->methods[i], *lm = g_dbus_interface_info_lookup_method(live, dm->name);
                g_assert_nonnull(lm);
                for (guint k = 0; dm->in_args && dm->in_args[k]; k++) {
                        g_assert_nonnull(lm->in_args[k]);
                        g_assert_cmpstr(dm->in_args[k]->signature, ==, lm->in_args[k]->signature);
                        g_assert_cmpstr(dm->in_args[k]->name, ==, lm->in_args[k]->name);
                }
                for (guint k = 0; dm->out_args && dm->out_args[k]; k++) {
                        g_assert_nonnull(lm->out_args[k]);
                        g_assert_cmpstr(dm->out_args[k]->signature, ==, lm->out_args[k]->signature);
                }
        }
        for (guint i = 0; live->methods && live->methods[i]; i++)
                g_assert_nonnull(g_dbus_interface_info_lookup_method(doc, live->methods[i]->name));
        for (guint i = 0; doc->properties && doc->properties[i]; i++) {
                GDBusPropertyInfo *lp = g_dbus_interface_info_lookup_property(live, doc->properties[i]->name);
                g_assert_nonnull(lp);
                g_assert_cmpstr(doc->properties[i]->signature, ==, lp->signature);
        }
        for (guint i = 0; live->properties && live->properties[i]; i++)
                g_assert_nonnull(g_dbus_interface_info_lookup_property(doc, live->properties[i]->name));
        for (guint i = 0; doc->signals && doc->signals[i]; i++) {
                GDBusSignalInfo *ls = g_dbus_interface_info_lookup_signal(live, doc->signals[i]->name);
                g_assert_nonnull(ls);
                for (guint k = 0; doc->signals[i]->args && doc->signals[i]->args[k]; k++)
                        g_assert_cmpstr(doc->signals[i]->args[k]->signature, ==, ls->args[k]->signature);
        }
        for (guint i = 0; live->signals && live->signals[i]; i++)
                g_assert_nonnull(g_dbus_interface_info_lookup_signal(doc, live->signals[i]->name));
}

static GDBusNodeInfo *introspect(ITest *t, const char *path)
{
        sd_bus_message *reply = NULL;
        g_autoptr(GError) error = NULL;
        GDBusNodeInfo *node;
        const char *xml;

        g_assert_cmpint(sd_bus_call_method(t->bus, "io.github.nvprofiled.NvProfiled1", path,
                                        "org.freedesktop.DBus.Introspectable", "Introspect", NULL, &reply, NULL),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "s", &xml), >=, 0);
        node = g_dbus_node_info_new_for_xml(xml, &error);
        g_assert_no_error(error);
        sd_bus_message_unref(reply);
        return node;
}

static void test_xml_matches_introspection(void)
{
        ITest t;
        g_autofree char *doc_text = NULL, *path = NULL;
        g_autoptr(GError) error = NULL;
        GDBusNodeInfo *doc, *root, *proc;
        GPid pid;

        itest_setup(&t);
        itest_write(&t, RCD "/50-x", "{\"rules\": [{\"pattern\": \"nvptest-xml\", \"profile\": [\"k\", 1]}]}");
        itest_start_daemon(&t, NULL);
        pid = itest_spawn_helper(&t, "nvptest-xml", NULL, NULL);
        ITEST_WAIT_FOR((path = object_of(&t, pid, NULL)) != NULL, WAIT_MS);
        g_assert_nonnull(path);

        g_file_get_contents(g_getenv("NVPROFILED_DBUS_XML"), &doc_text, NULL, &error);
        g_assert_no_error(error);
        doc = g_dbus_node_info_new_for_xml(doc_text, &error);
        g_assert_no_error(error);

        root = introspect(&t, "/io/github/nvprofiled/NvProfiled1");
        proc = introspect(&t, path);
        assert_same_interface(g_dbus_node_info_lookup_interface(doc, "io.github.nvprofiled.NvProfiled1.Manager"),
                        g_dbus_node_info_lookup_interface(root, "io.github.nvprofiled.NvProfiled1.Manager"));
        assert_same_interface(g_dbus_node_info_lookup_interface(doc, "io.github.nvprofiled.NvProfiled1.Process"),
                        g_dbus_node_info_lookup_interface(proc, "io.github.nvprofiled.NvProfiled1.Process"));
        g_assert_nonnull(g_dbus_node_info_lookup_interface(root, "org.freedesktop.DBus.ObjectManager"));

        g_dbus_node_info_unref(doc);
        g_dbus_node_info_unref(root);
        g_dbus_node_info_unref(proc);
        itest_kill(pid);
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

        itest_setup(&t);
        itest_write(&t, RCD "/50-p",
                        "{\"rules\": [{\"pattern\": \"nvptest-priv\", \"profile\": {\"name\": \"Secret\", \"settings\": [\"k\", 1]}}]}");
        itest_start_daemon(&t, NULL);
        pid = itest_spawn_helper(&t, "nvptest-priv", NULL, NULL);
        spid = g_strdup_printf("%i", (int) pid);
        ITEST_WAIT_FOR(profiles_are(&t, pid, "Secret"), WAIT_MS);

        /* Status and listing work; root's process is shown without executable or profiles. */
        g_assert_cmpint(itest_ctl_as_nobody(&t, NULL, "status", NULL), ==, 0);
        g_assert_cmpint(itest_ctl_as_nobody(&t, &out, "processes", "--all", NULL), ==, 0);
        list = json_tokener_parse(out);
        g_assert_nonnull(list);
        for (size_t i = 0; i < json_object_array_length(list); i++) {
                struct json_object *o = json_object_array_get_idx(list, i);
                if (json_object_get_int(json_object_object_get(o, "pid")) != pid)
                        continue;
                seen = true;
                g_assert_cmpstr(jstr(o, "executable"), ==, "");
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
        g_assert_cmpint(sd_bus_get_property_trivial(t->bus, "io.github.nvprofiled.NvProfiled1",
                                        "/io/github/nvprofiled/NvProfiled1", "io.github.nvprofiled.NvProfiled1.Manager",
                                        prop, NULL, 't', &v),
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
                ITEST_WAIT_FOR(profiles_are(&t, longs[i], "Long"), WAIT_MS);
                g_assert_true(profiles_are(&t, longs[i], "Long"));
        }
        for (unsigned i = 0; i < G_N_ELEMENTS(burst); i++)
                stale += is_tracked(&t, burst[i]);
        g_assert_cmpuint(stale, ==, 0);

        for (unsigned i = 0; i < G_N_ELEMENTS(longs); i++)
                itest_kill(longs[i]);
        itest_teardown(&t);
}

/* Mode=poll (what an unprivileged daemon gets): processes are still found, and say so in status. */
static void test_polling(void)
{
        ITest t;
        g_autofree char *out = NULL;
        struct json_object *status;
        GPid pid;

        itest_setup(&t);
        itest_write(&t, RCD "/50-poll",
                        "{\"rules\": [{\"pattern\": \"nvptest-poll\", \"profile\": {\"name\": \"Polled\", \"settings\": [\"k\", 1]}}]}");
        itest_start_daemon(&t, "[ProcessWatch]\nMode=poll\nPollIntervalSec=200ms\n");
        g_assert_cmpint(itest_ctl(&t, &out, "status", NULL), ==, 0);
        status = json_tokener_parse(out);
        g_assert_cmpstr(jstr(status, "process_watch_mode"), ==, "polling");
        json_object_put(status);

        pid = itest_spawn_helper(&t, "nvptest-poll", NULL, NULL);
        ITEST_WAIT_FOR(profiles_are(&t, pid, "Polled"), WAIT_MS);
        g_assert_true(profiles_are(&t, pid, "Polled"));
        itest_kill(pid);
        ITEST_WAIT_FOR(!is_tracked(&t, pid), WAIT_MS);
        g_assert_false(is_tracked(&t, pid));
        itest_teardown(&t);
}

/* OtherUsersProcesses=hide: other users' processes are not listed at all for non-root callers. */
static void test_privacy_hide(void)
{
        ITest t;
        g_autofree char *out = NULL;
        struct json_object *list;
        GPid pid;

        itest_setup(&t);
        itest_write(&t, RCD "/50-h", "{\"rules\": [{\"pattern\": \"nvptest-hide\", \"profile\": [\"k\", 1]}]}");
        itest_start_daemon(&t, "[Privacy]\nOtherUsersProcesses=hide\n");
        pid = itest_spawn_helper(&t, "nvptest-hide", NULL, NULL);
        ITEST_WAIT_FOR(is_tracked(&t, pid), WAIT_MS);
        g_assert_true(is_tracked(&t, pid));

        g_assert_cmpint(itest_ctl_as_nobody(&t, &out, "processes", "--all", NULL), ==, 0);
        list = json_tokener_parse(out);
        g_assert_nonnull(list);
        for (size_t i = 0; i < json_object_array_length(list); i++)
                g_assert_cmpuint(json_object_get_int(json_object_object_get(json_object_array_get_idx(list, i), "uid")),
                                ==, 65534);
        json_object_put(list);
        itest_kill(pid);
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
        GString *seen = g_string_new(NULL);
        g_autofree char *needle = NULL;
        gint64 deadline;

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
        g_string_free(seen, TRUE);
        itest_kill(pid);
        itest_teardown(&t);
}

static uint32_t tracked_count(ITest *t)
{
        uint32_t n = 0;
        g_assert_cmpint(sd_bus_get_property_trivial(t->bus, "io.github.nvprofiled.NvProfiled1",
                                        "/io/github/nvprofiled/NvProfiled1", "io.github.nvprofiled.NvProfiled1.Manager",
                                        "TrackedProcesses", NULL, 'u', &n),
                        >=, 0);
        return n;
}

/* docs/appprofiles.md case 32: processes that exec and exit at once. Nothing crashes or leaks (under
 * the sanitizer build a leak makes the daemon's exit status non-zero), nothing stale stays tracked. */
static void test_short_lived(void)
{
        ITest t;
        uint32_t before, after;
        int exit_status;

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
        itest_start_daemon(&t, NULL);
        g_assert_cmpint(itest_ctl(&t, NULL, "no-such-verb", NULL), ==, 2);
        g_assert_cmpint(itest_ctl(&t, NULL, "explain", NULL), ==, 2);
        g_assert_cmpint(itest_ctl(&t, NULL, "explain", "abc", NULL), ==, 2);
        g_assert_cmpint(itest_ctl(&t, NULL, "explain", "999999999", NULL), ==, 1);
        g_assert_cmpint(itest_ctl(&t, NULL, "version", NULL), ==, 0);
        itest_teardown(&t);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);

        if (geteuid() != 0) {
                /* The proc connector and reading other processes need root; CI runs as root. */
                g_printerr("SKIP: integration tests need root\n");
                return 77;
        }

        g_test_add_func("/daemon/copied-binary", test_copied_binary);
        g_test_add_func("/daemon/comm-rename", test_comm_rename);
        g_test_add_func("/daemon/dlopen", test_dlopen);
        g_test_add_func("/daemon/gl-environment", test_gl_environment);
        g_test_add_func("/daemon/gpu-open", test_gpu_open);
        g_test_add_func("/daemon/rc-edits", test_rc_edits);
        g_test_add_func("/daemon/xml-matches-introspection", test_xml_matches_introspection);
        g_test_add_func("/daemon/privacy", test_privacy);
        g_test_add_func("/daemon/lifecycle", test_lifecycle);
        g_test_add_func("/daemon/client-exit-codes", test_client_exit_codes);
        g_test_add_func("/daemon/overrun-rescan", test_overrun_rescan);
        g_test_add_func("/daemon/polling", test_polling);
        g_test_add_func("/daemon/privacy-hide", test_privacy_hide);
        g_test_add_func("/daemon/short-lived", test_short_lived);
        g_test_add_func("/daemon/monitor", test_monitor);
        return g_test_run();
}
