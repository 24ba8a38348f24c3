/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofiled end to end: the real daemon on a private system-like bus with a --root configuration tree,
 * and either the real /proc and proc connector with processes started by the test (root), or a fixture
 * /proc tree that the daemon polls (no privileges needed).
 *
 * Tracking: processes seen by procname, comm, DSO and GPU node, the proc connector, polling, overruns,
 * short-lived processes, monitor, the daemon's life cycle and its introspection against the XML. */

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
#include "bus-signatures.h"
#include "itest.h"

#define RCD "etc/nvidia/nvidia-application-profiles-rc.d"
#define WAIT_MS 15000

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

        res = itest_explain_json(&t, pid, NULL);
        g_assert_nonnull(res);
        g_assert_cmpstr(itest_jstr(res, "state"), ==, "enabled");
        g_assert_true(json_object_object_get_ex(res, "settings", &settings));
        g_assert_cmpuint(json_object_array_length(settings), ==, 1);
        s = json_object_array_get_idx(settings, 0);
        g_assert_cmpstr(itest_jstr(s, "key"), ==, "GLSharpenEnable");
        g_assert_cmpstr(itest_setting(res, "GLSharpenEnable"), ==, "true");
        g_assert_true(json_object_object_get_ex(s, "rule", &rule));
        g_assert_cmpstr(itest_jstr(rule, "file"), ==, "/" RCD "/50-app");
        g_assert_cmpint(json_object_get_int(json_object_object_get(rule, "line")), ==, 3);
        json_object_put(res);

        /* The same through a plain method call. */
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ExplainProcess",
                                        NULL, &reply, "ut", (uint32_t) pid, UINT64_C(0)),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'r', BUS_RESOLUTION_FIELDS), >=, 0);
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
                g_assert_cmpint(sd_bus_message_enter_container(reply, 'r', BUS_RESOLUTION_FIELDS), >=, 0);
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
                g_assert_cmpstr(itest_jstr(r0, "pattern"), ==, "procname \"nvptest-app\"");
                g_assert_cmpstr(itest_jstr(r0, "profile"), ==, "AppProfile");
                g_assert_cmpstr(itest_jstr(r0, "profile_location"), ==, "/" RCD "/50-app:2:16");
                json_object_put(rules);

                g_assert_cmpint(itest_ctl(&t, &out2, "profiles", NULL), ==, 0);
                profiles = itest_parse_list(out2, "profiles");
                g_assert_cmpuint(json_object_array_length(profiles), ==, 1);
                p0 = json_object_array_get_idx(profiles, 0);
                g_assert_cmpstr(itest_jstr(p0, "name"), ==, "AppProfile");
                s0 = json_object_array_get_idx(json_object_object_get(p0, "settings"), 0);
                g_assert_cmpstr(itest_jstr(s0, "key"), ==, "GLSharpenEnable");
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

static char *object_of(ITest *t, pid_t pid, bool *ret_gpu)
{
        g_autofree char *out = NULL;
        struct json_object *list;
        char *path = NULL;

        g_assert_cmpint(itest_ctl(t, &out, "processes", "--all", NULL), ==, 0);
        list = itest_parse_list(out, "processes");
        for (size_t i = 0; list && i < json_object_array_length(list); i++) {
                struct json_object *o = json_object_array_get_idx(list, i);
                if (json_object_get_int(json_object_object_get(o, "pid")) == pid && itest_jstr(o, "object"))
                        path = g_strdup(itest_jstr(o, "object"));
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
        *buf = g_strdup(itest_jstr(status, key));
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
        before = itest_tracked_count(&t);

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
        ITEST_WAIT_FOR(itest_tracked_count(&t) <= before + 5, WAIT_MS);
        after = itest_tracked_count(&t);
        g_assert_cmpuint(after, <=, before + 5);
        g_assert_cmpuint(manager_u64(&t, "ProcessEvents"), >=, 300);

        itest_stop_daemon(&t, &exit_status);
        g_assert_cmpint(exit_status, ==, 0);
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
        g_test_add_func("/daemon/gpu-open", test_gpu_open);
        g_test_add_func("/daemon/xml-matches-introspection", test_xml_matches_introspection);
        g_test_add_func("/daemon/lifecycle", test_lifecycle);
        g_test_add_func("/daemon/overrun-rescan", test_overrun_rescan);
        g_test_add_func("/daemon/polling", test_polling);
        g_test_add_func("/daemon/polling-live", test_polling_live);
        g_test_add_func("/daemon/short-lived", test_short_lived);
        g_test_add_func("/daemon/monitor", test_monitor);
        return g_test_run();
}
