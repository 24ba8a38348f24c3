/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What each GPU process runs as, through D-Bus (the real daemon on a private bus over fixture /proc and
 * /sys trees built by tests/drm/usage-fixture.c): unit, slice, container, Flatpak id in ListGpuProcesses-
 * Attributed, ListGpuGroups, top --once --json and the export's unit label, what a created user may see of
 * it, and a sandbox's /.flatpak-info read with its process's user's credentials. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-names.h"
#include "itest.h"
#include "usage-bus.h"
#include "usage-fixture.h"

#define WAIT_MS 20000
#define USER_PREFIX "nvpusage"

#define PODMAN_ID "3f1c2a9be0d4477a8c1e5b6d7f809112233445566778899aabbccddeeff00112"

/* ListGpuProcessesAttributed, a line per process: "attributed PID unit=U slice=S container=K:C app=K:A". */
static void dump_attributed(sd_bus *bus, GString *out)
{
        sd_bus_message *reply = NULL;
        const char *object, *comm, *unit, *slice, *ckind, *container, *akind, *app;
        uint32_t pid, uid;
        uint64_t start;

        reply = usage_bus_call_listing(bus, "ListGpuProcessesAttributed", "(outusasa(sst)a(sssd)a(ssst)ssssss)");
        while (sd_bus_message_enter_container(reply, 'r', "outusasa(sst)a(sssd)a(ssst)ssssss") > 0) {
                g_assert_cmpint(sd_bus_message_read(reply, "outus", &object, &pid, &start, &uid, &comm), >=, 0);
                g_assert_cmpint(sd_bus_message_skip(reply, "asa(sst)a(sssd)a(ssst)"), >=, 0);
                g_assert_cmpint(sd_bus_message_read(reply, "ssssss", &unit, &slice, &ckind, &container, &akind, &app),
                                >=, 0);
                g_string_append_printf(out, "attributed %u comm=%s unit=%s slice=%s container=%s:%s app=%s:%s\n", pid,
                                comm, unit, slice, ckind, container, akind, app);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
        }
        sd_bus_message_unref(reply);
}

/* ListGpuGroups(by), a line per group: "group BY KEY processes=N engine DEV/E=P mem DEV/R=B". */
static void dump_groups(sd_bus *bus, const char *by, GString *out)
{
        sd_bus_message *reply = NULL;
        const char *key;
        uint32_t n;

        g_assert_cmpint(sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "ListGpuGroups", NULL,
                                        &reply, "s", by),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(sua(sssd)a(ssst))"), >=, 0);
        while (sd_bus_message_enter_container(reply, 'r', "sua(sssd)a(ssst)") > 0) {
                g_assert_cmpint(sd_bus_message_read(reply, "su", &key, &n), >=, 0);
                g_string_append_printf(out, "group %s %s processes=%u", by, key, n);
                usage_bus_append_engines_memory(reply, out);
                g_string_append_c(out, '\n');
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
        }
        sd_bus_message_unref(reply);
}

static char *dump_attribution(sd_bus *bus)
{
        GString *out = g_string_new(NULL);

        dump_attributed(bus, out);
        dump_groups(bus, "unit", out);
        dump_groups(bus, "application", out);
        dump_groups(bus, "user", out);
        return g_string_free(out, FALSE);
}

static bool attribution_shows(ITest *t, const char *prefix, const char *needle)
{
        g_autofree char *text = dump_attribution(t->bus);
        return usage_bus_has_line(text, prefix, needle);
}

/* 200 to 202 are the user's (two scopes of one Flatpak app, a login session), 203 to 205 root's (a
 * system service, a podman container, an nspawn machine's payload), 206 the user's own unit named as
 * root's service (systemd-run --user --unit=ollama.service). Step 2: 0.25 s of gfx in 1 s for each
 * Flatpak process. */
static const char attribution_script[] =
                "node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu\n"
                "fd 200 5 /dev/full\n"
                "fd 201 5 /dev/full\n"
                "fd 202 5 /dev/full\n"
                "fd 203 5 /dev/full\n"
                "fd 204 5 /dev/full\n"
                "fd 205 5 /dev/full\n"
                "fd 206 5 /dev/full\n"
                "cgroup 200 /user.slice/user-UID.slice/user@UID.service/app.slice/app-flatpak-org.blender.Blender-95123.scope\n"
                "cgroup 201 /user.slice/user-UID.slice/user@UID.service/app.slice/app-flatpak-org.blender.Blender-95124.scope\n"
                "cgroup 202 /user.slice/user-UID.slice/session-2.scope\n"
                "cgroup 203 /system.slice/ollama.service\n"
                "cgroup 204 /machine.slice/libpod-" PODMAN_ID ".scope/container\n"
                "cgroup 205 /machine.slice/machine-fedora\\x2d40.scope/payload\n"
                "cgroup 206 /user.slice/user-UID.slice/user@UID.service/app.slice/ollama.service\n"
                "step 1\n"
                "fdinfo 200 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=41 drm-engine-gfx=0_ns drm-resident-vram=1_KiB\n"
                "fdinfo 201 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=42 drm-engine-gfx=0_ns drm-resident-vram=2_KiB\n"
                "fdinfo 202 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=43 drm-engine-gfx=0_ns drm-resident-vram=4_KiB\n"
                "fdinfo 203 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=44 drm-engine-gfx=0_ns drm-resident-vram=8_KiB\n"
                "fdinfo 204 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=45 drm-engine-gfx=0_ns drm-resident-vram=16_KiB\n"
                "fdinfo 205 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=46 drm-engine-gfx=0_ns drm-resident-vram=32_KiB\n"
                "fdinfo 206 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=47 drm-engine-gfx=0_ns drm-resident-vram=64_KiB\n"
                "clock 1000000\n"
                "step 2\n"
                "fdinfo 200 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=41 drm-engine-gfx=250000000_ns drm-resident-vram=1_KiB\n"
                "fdinfo 201 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=42 drm-engine-gfx=250000000_ns drm-resident-vram=2_KiB\n"
                "fdinfo 202 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=43 drm-engine-gfx=0_ns drm-resident-vram=4_KiB\n"
                "fdinfo 203 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=44 drm-engine-gfx=0_ns drm-resident-vram=8_KiB\n"
                "fdinfo 204 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=45 drm-engine-gfx=0_ns drm-resident-vram=16_KiB\n"
                "fdinfo 205 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=46 drm-engine-gfx=0_ns drm-resident-vram=32_KiB\n"
                "fdinfo 206 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=47 drm-engine-gfx=0_ns drm-resident-vram=64_KiB\n"
                "clock 2000000\n";

/* Applies step of a script whose UID is user's uid. */
static void apply_script(ITest *t, const char *script_text, uid_t user, unsigned step)
{
        g_autofree char *uid = g_strdup_printf("%u", (unsigned) user);
        g_autofree char *text = NULL, *error = NULL;
        g_auto(GStrv) parts = g_strsplit(script_text, "UID", -1);

        text = g_strjoinv(uid, parts);
        if (usage_fixture_apply(text, t->proc, t->sys, "/nonexistent", step, &error) < 0)
                g_error("fixture script: %s", error);
}

static void apply_attribution(ITest *t, uid_t user, unsigned step)
{
        apply_script(t, attribution_script, user, step);
}

/* Starts the daemon over t's fixture trees, sampling fast (and with extra configuration, if given), and
 * holds a 20 ms watch: its descriptor. */
static int start_watched(ITest *t, const char *extra)
{
        g_autofree char *config = g_strconcat(
                        "[Usage]\nDrmMajor=1\nAccelMajor=4095\nMinIntervalSec=10ms\nRescanIntervalSec=100ms\nNVML=no\n",
                        extra, NULL);
        sd_bus_message *reply = NULL;
        int watch;

        itest_start_daemon(t, config);
        g_assert_cmpint(sd_bus_call_method(t->bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "WatchUsage", NULL,
                                        &reply, "t", (uint64_t) 20000),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "h", &watch), >=, 0);
        watch = fcntl(watch, F_DUPFD_CLOEXEC, 3);
        g_assert_cmpint(watch, >=, 0);
        sd_bus_message_unref(reply);
        return watch;
}

/* What each process runs as (issue 22), through D-Bus, top --once --json and the export's unit label on the
 * real daemon: a systemd service, a Flatpak app in two scopes, a podman container, an nspawn machine and
 * a login session; the totals per unit, application and user; and an unprivileged user sees its own
 * processes' attribution and totals only. */
static void test_attribution(void)
{
        ITest t;
        g_autofree char *root_view = NULL, *user_view = NULL, *top = NULL, *uid_line = NULL;
        g_autofree char *blender = NULL, *export_path = NULL, *export_config = NULL;
        g_autofree char *export = NULL, *blender_unit = NULL, *blender_group = NULL, *blender_json = NULL;
        g_autofree char *blender_label = NULL, *own_unit = NULL, *own_group = NULL, *own_application = NULL;
        g_autofree char *own_label = NULL;
        sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        ITestUser u;
        int watch;

        ITEST_REQUIRE_ROOT("needs root: an unprivileged user to create, and a daemon to drop to it");
        itest_create_user(USER_PREFIX, &u);
        /* The user's units, as the daemon names them: with the user's manager. */
        blender_unit = g_strdup_printf(
                        "unit=user@%u.service/app-flatpak-org.blender.Blender-95123.scope slice=app.slice "
                        "container=: app=flatpak:org.blender.Blender",
                        (unsigned) u.uid);
        blender_group = g_strdup_printf(
                        "group unit user@%u.service/app-flatpak-org.blender.Blender-95124.scope ", (unsigned) u.uid);
        blender_json = g_strdup_printf("\"unit\":\"user@%u.service/app-flatpak-org.blender.Blender-95123.scope\","
                                       "\"slice\":\"app.slice\",\"container_kind\":null,\"container\":null,"
                                       "\"app_kind\":\"flatpak\",\"app\":\"org.blender.Blender\"",
                        (unsigned) u.uid);
        blender_label = g_strdup_printf(
                        "unit=\"user@%u.service/app-flatpak-org.blender.Blender-95123.scope\"", (unsigned) u.uid);
        own_unit = g_strdup_printf("unit=user@%u.service/ollama.service slice=app.slice ", (unsigned) u.uid);
        own_group = g_strdup_printf("group unit user@%u.service/ollama.service ", (unsigned) u.uid);
        own_application = g_strdup_printf("group application user@%u.service/ollama.service ", (unsigned) u.uid);
        own_label = g_strdup_printf("nvprofiled_unit_clients{device=\"0000:03:00.0\",driver=\"amdgpu\","
                                    "unit=\"user@%u.service/ollama.service\",profile=\"\"} 1\n",
                        (unsigned) u.uid);

        usage_bus_setup_trees(&t);
        itest_fixture_process(&t, 200, 2000, u.uid, "blender", "/app/bin/blender", NULL);
        itest_fixture_process(&t, 201, 2001, u.uid, "blender", "/app/bin/blender", NULL);
        itest_fixture_process(&t, 202, 2002, u.uid, "glxgears", "/usr/bin/glxgears", NULL);
        itest_fixture_process(&t, 203, 2003, 0, "ollama", "/usr/bin/ollama", NULL);
        itest_fixture_process(&t, 204, 2004, 0, "python3", "/usr/bin/python3", NULL);
        itest_fixture_process(&t, 205, 2005, 0, "gpu-burn", "/usr/bin/gpu-burn", NULL);
        itest_fixture_process(&t, 206, 2006, u.uid, "ollama", "/home/u/ollama", NULL);
        apply_attribution(&t, u.uid, 0);
        apply_attribution(&t, u.uid, 1);
        export_path = g_build_filename(t.dir, "nvprofiled.prom", NULL);
        export_config = g_strdup_printf("[Export]\nExportTextfile=%s\nExportIntervalSec=1s\n", export_path);
        watch = start_watched(&t, export_config);
        ITEST_WAIT_FOR(attribution_shows(&t, "attributed 206 ", NULL), WAIT_MS);
        apply_attribution(&t, u.uid, 2);
        ITEST_WAIT_FOR(attribution_shows(&t, "group application org.blender.Blender ", "gfx=50.0"), WAIT_MS);

        root_view = dump_attribution(t.bus);
        g_test_message("as root:\n%s", root_view);
        g_assert_true(usage_bus_has_line(root_view, "attributed 200 ", blender_unit));
        g_assert_true(usage_bus_has_line(root_view, "attributed 202 ", "unit=session-2.scope slice=user-"));
        g_assert_true(usage_bus_has_line(root_view, "attributed 202 ", "container=: app=:"));
        g_assert_true(usage_bus_has_line(
                        root_view, "attributed 203 ", "unit=ollama.service slice=system.slice container=: app=:"));
        g_assert_true(usage_bus_has_line(root_view, "attributed 204 ",
                        "unit=libpod-" PODMAN_ID ".scope slice=machine.slice container=podman:" PODMAN_ID " app=:"));
        /* Per application: the Flatpak's two scopes are one application, 25 % each. */
        g_assert_true(usage_bus_has_line(root_view, "group application org.blender.Blender ",
                        "processes=2 engine 0000:03:00.0/gfx=50.0 mem 0000:03:00.0/vram=3072"));
        g_assert_true(usage_bus_has_line(root_view, "group application ollama.service ", "processes=1"));
        g_assert_true(usage_bus_has_line(
                        root_view, "group application session-2.scope ", "mem 0000:03:00.0/vram=4096"));
        g_assert_true(usage_bus_has_line(root_view, blender_group,
                        "processes=1 engine 0000:03:00.0/gfx=25.0 mem 0000:03:00.0/vram=2048"));
        /* The user's own ollama.service is not root's: a unit, an application and a series of its own. */
        g_assert_true(usage_bus_has_line(root_view, "attributed 203 ", "unit=ollama.service "));
        g_assert_true(usage_bus_has_line(root_view, "attributed 206 ", own_unit));
        g_assert_true(usage_bus_has_line(root_view, "group unit ollama.service ",
                        "processes=1 engine 0000:03:00.0/gfx=0.0 mem 0000:03:00.0/vram=8192"));
        g_assert_true(usage_bus_has_line(
                        root_view, own_group, "processes=1 engine 0000:03:00.0/gfx=0.0 mem 0000:03:00.0/vram=65536"));
        g_assert_true(usage_bus_has_line(root_view, "group application ollama.service ", "mem 0000:03:00.0/vram=8192"));
        g_assert_true(usage_bus_has_line(root_view, own_application,
                        "processes=1 engine 0000:03:00.0/gfx=0.0 mem 0000:03:00.0/vram=65536"));
        g_assert_true(usage_bus_has_line(root_view, "group user 0 ",
                        "processes=3 engine 0000:03:00.0/gfx=0.0 mem 0000:03:00.0/vram=57344"));
        /* An nspawn machine: machined's name, unescaped, as the container; its scope as the unit. */
        g_assert_true(usage_bus_has_line(root_view, "attributed 205 ",
                        "unit=machine-fedora\\x2d40.scope slice=machine.slice container=machine:fedora-40 app=:"));
        g_assert_true(usage_bus_has_line(root_view, "group application machine-fedora\\x2d40.scope ",
                        "processes=1 engine 0000:03:00.0/gfx=0.0 mem 0000:03:00.0/vram=32768"));
        uid_line = g_strdup_printf("group user %u ", (unsigned) u.uid);
        g_assert_true(usage_bus_has_line(
                        root_view, uid_line, "processes=4 engine 0000:03:00.0/gfx=50.0 mem 0000:03:00.0/vram=72704"));

        /* The same privacy as ListGpuProcesses: the user sees its own processes' attribution and totals,
         * nothing of root's (no unit, container or figure of theirs). */
        user_view = usage_bus_dump_as(&t, &u, dump_attribution);
        g_test_message("as the user:\n%s", user_view);
        g_assert_true(usage_bus_has_line(user_view, "attributed 200 ", "app=flatpak:org.blender.Blender"));
        g_assert_true(usage_bus_has_line(user_view, "attributed 202 ", "unit=session-2.scope"));
        g_assert_false(usage_bus_has_line(user_view, "attributed 203 ", NULL));
        g_assert_false(usage_bus_has_line(user_view, "attributed 204 ", NULL));
        g_assert_true(usage_bus_has_line(user_view, "attributed 206 ", own_unit));
        g_assert_true(usage_bus_has_line(user_view, own_group, "processes=1"));
        g_assert_false(usage_bus_has_line(user_view, "group unit ollama.service ", NULL));
        g_assert_false(usage_bus_has_line(user_view, "group application ollama.service ", NULL));
        g_assert_null(strstr(user_view, "vram=8192"));
        g_assert_null(strstr(user_view, PODMAN_ID));
        g_assert_null(strstr(user_view, "group user 0 "));
        g_assert_null(strstr(user_view, "vram=57344"));
        g_assert_false(usage_bus_has_line(user_view, "attributed 205 ", NULL));
        g_assert_null(strstr(user_view, "fedora"));
        g_assert_true(usage_bus_has_line(user_view, "group application org.blender.Blender ", "processes=2"));
        g_assert_true(usage_bus_has_line(user_view, uid_line, "processes=4"));

        /* An unknown grouping is refused. */
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "ListGpuGroups", &error,
                                        &reply, "s", "pid"),
                        <, 0);
        g_assert_cmpstr(error.name, ==, SD_BUS_ERROR_INVALID_ARGS);
        sd_bus_error_free(&error);

        /* top --once --json: the same attribution in each process's members. */
        g_assert_cmpint(itest_ctl(&t, &top, "--json=short", "top", "--once", "--interval=0.02", NULL), ==, 0);
        g_test_message("%s", top);
        blender = g_strdup_printf("\"pid\":200,\"start_time\":2000,\"uid\":%u,\"comm\":\"blender\"", (unsigned) u.uid);
        g_assert_nonnull(strstr(top, blender));
        g_assert_nonnull(strstr(top, blender_json));
        g_assert_nonnull(strstr(top, "\"unit\":\"ollama.service\",\"slice\":\"system.slice\""));
        g_assert_nonnull(strstr(top, "\"container_kind\":\"podman\",\"container\":\"" PODMAN_ID "\""));
        g_assert_nonnull(strstr(top, "\"unit\":\"session-2.scope\""));
        g_assert_nonnull(strstr(top,
                        "\"unit\":\"machine-fedora\\\\x2d40.scope\",\"slice\":\"machine.slice\","
                        "\"container_kind\":\"machine\",\"container\":\"fedora-40\""));

        /* --group=: the daemon's totals, as the a and u keys show them, in the document and the frame. */
        g_clear_pointer(&top, g_free);
        g_assert_cmpint(itest_ctl(&t, &top, "--json=short", "top", "--once", "--interval=0.02", "--group=application",
                                        NULL),
                        ==, 0);
        g_test_message("%s", top);
        g_assert_nonnull(strstr(top, "\"groups\":[{"));
        g_assert_nonnull(strstr(top, "{\"key\":\"org.blender.Blender\",\"processes\":2,"));
        g_assert_nonnull(strstr(top, "{\"key\":\"ollama.service\",\"processes\":1,"));
        {
                g_autofree char *own_top = g_strdup_printf(
                                "{\"key\":\"user@%u.service/ollama.service\",\"processes\":1,", (unsigned) u.uid);
                g_assert_nonnull(strstr(top, own_top));
        }
        g_clear_pointer(&top, g_free);
        g_assert_cmpint(itest_ctl(&t, &top, "--json=off", "top", "--once", "--interval=0.02", "--group=user", NULL), ==,
                        0);
        g_test_message("%s", top);
        g_assert_nonnull(strstr(top, "by user"));
        g_assert_nonnull(strstr(top, u.name));

        /* The export labels each client with the same unit (the fleet's grouping; no container or
         * application label, whose cardinality it does not take on). */
        for (gint64 deadline = g_get_monotonic_time() + WAIT_MS * 1000;; g_usleep(100000)) {
                g_clear_pointer(&export, g_free);
                if (g_file_get_contents(export_path, &export, NULL, NULL) && strstr(export, "ollama.service"))
                        break;
                if (g_get_monotonic_time() >= deadline)
                        g_error("the export never labelled the clients; it holds:\n%s", export ? export : "");
        }
        g_test_message("%s", export);
        g_assert_nonnull(strstr(export, blender_label));
        g_assert_nonnull(strstr(export, "unit=\"session-2.scope\""));
        /* Root's service and the user's unit of the same name: two series. */
        g_assert_nonnull(strstr(export,
                        "nvprofiled_unit_clients{device=\"0000:03:00.0\",driver=\"amdgpu\","
                        "unit=\"ollama.service\",profile=\"\"} 1\n"));
        g_assert_nonnull(strstr(export, own_label));
        g_assert_nonnull(strstr(export, "unit=\"libpod-" PODMAN_ID ".scope\""));
        g_assert_nonnull(strstr(export, "unit=\"machine-fedora\\\\x2d40.scope\""));

        close(watch);
        itest_teardown(&t);
}

/* Each process of the user has a root of its own (a directory the test makes, as a sandbox's), whose
 * /.flatpak-info the daemon reads with the user's credentials. 400's is the user's own file (mode 0600):
 * it names the application over its scope's name. The others try to make the daemon read what the user
 * may not: root's 0600 file (401), a link to "/" (402), a link to a root-only file inside the root (403)
 * and to one outside it (404), a fifo (405). None of those bytes may reach an attribution, a reply or the
 * log, and the scope's name stays the application. */
static const char flatpak_info_script[] =
                "node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu\n"
                "fd 400 5 /dev/full\n"
                "fd 401 5 /dev/full\n"
                "fd 402 5 /dev/full\n"
                "fd 403 5 /dev/full\n"
                "fd 404 5 /dev/full\n"
                "fd 405 5 /dev/full\n"
                "cgroup 400 /user.slice/user-UID.slice/user@UID.service/app.slice/app-flatpak-org.blender.Blender-1.scope\n"
                "cgroup 401 /user.slice/user-UID.slice/user@UID.service/app.slice/app-flatpak-org.gimp.GIMP-2.scope\n"
                "cgroup 402 /user.slice/user-UID.slice/session-3.scope\n"
                "cgroup 403 /user.slice/user-UID.slice/session-3.scope\n"
                "cgroup 404 /user.slice/user-UID.slice/session-3.scope\n"
                "cgroup 405 /user.slice/user-UID.slice/user@UID.service/app.slice/app-flatpak-org.gimp.GIMP-3.scope\n"
                "step 1\n"
                "fdinfo 400 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=70 drm-resident-vram=1_KiB\n"
                "fdinfo 401 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=71 drm-resident-vram=1_KiB\n"
                "fdinfo 402 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=72 drm-resident-vram=1_KiB\n"
                "fdinfo 403 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=73 drm-resident-vram=1_KiB\n"
                "fdinfo 404 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=74 drm-resident-vram=1_KiB\n"
                "fdinfo 405 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=75 drm-resident-vram=1_KiB\n";

#define SECRET_INFO "[Application]\nname=org.secret.RootOnly\n"

/* A root directory for pid under t->dir (searchable by everyone, as "/" is); returns its path. */
static char *sandbox_root(ITest *t, pid_t pid)
{
        char *dir = g_strdup_printf("%s/roots/%i", t->dir, (int) pid);

        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_assert_cmpint(chmod(dir, 0755), ==, 0);
        itest_fixture_root(t, pid, dir);
        return dir;
}

static void write_mode(const char *dir, const char *rel, const char *content, mode_t mode)
{
        g_autofree char *path = g_build_filename(dir, rel, NULL), *parent = g_path_get_dirname(path);

        g_assert_cmpint(g_mkdir_with_parents(parent, 0755), ==, 0);
        g_assert_true(g_file_set_contents(path, content, -1, NULL));
        g_assert_cmpint(chmod(path, mode), ==, 0);
}

static void link_in(const char *dir, const char *rel, const char *target)
{
        g_autofree char *path = g_build_filename(dir, rel, NULL);

        g_assert_cmpint(symlink(target, path), ==, 0);
}

static void test_attribution_flatpak_info(void)
{
        g_autofree char *root_view = NULL, *user_view = NULL, *top = NULL, *log = NULL, *host_secret = NULL;
        ITestUser u;
        ITest t;
        int watch;

        ITEST_REQUIRE_ROOT("needs root: an unprivileged user to create, whose credentials the daemon takes");
        itest_create_user(USER_PREFIX, &u);

        usage_bus_setup_trees(&t);
        for (pid_t pid = 400; pid <= 405; pid++)
                itest_fixture_process(&t, pid, 4000 + (uint64_t) pid, u.uid, "app", "/app/bin/app", NULL);
        apply_script(&t, flatpak_info_script, u.uid, 0);
        apply_script(&t, flatpak_info_script, u.uid, 1);
        host_secret = g_build_filename(t.dir, "host-secret", NULL);
        write_mode(t.dir, "host-secret", SECRET_INFO, 0600);
        {
                g_autofree char *r400 = sandbox_root(&t, 400), *r401 = sandbox_root(&t, 401);
                g_autofree char *r402 = sandbox_root(&t, 402), *r403 = sandbox_root(&t, 403);
                g_autofree char *r404 = sandbox_root(&t, 404), *r405 = sandbox_root(&t, 405);
                g_autofree char *own = g_build_filename(r400, ".flatpak-info", NULL);
                g_autofree char *fifo = g_build_filename(r405, ".flatpak-info", NULL);

                write_mode(r400, ".flatpak-info", "[Application]\nname=org.blender.BlenderLTS\n", 0600);
                itest_user_chown(&u, own);
                write_mode(r401, ".flatpak-info", SECRET_INFO, 0600);
                link_in(r402, ".flatpak-info", "/");
                write_mode(r403, "etc/secret-info", SECRET_INFO, 0600);
                link_in(r403, ".flatpak-info", "/etc/secret-info");
                link_in(r404, ".flatpak-info", host_secret);
                g_assert_cmpint(mkfifo(fifo, 0666), ==, 0);
                itest_user_chown(&u, fifo);
        }
        watch = start_watched(&t, NULL);
        ITEST_WAIT_FOR(attribution_shows(&t, "attributed 405 ", NULL), WAIT_MS);

        root_view = dump_attribution(t.bus);
        g_test_message("as root:\n%s", root_view);
        /* The user's own file names the application, over the scope's name. */
        g_assert_true(usage_bus_has_line(root_view, "attributed 400 ",
                        "/app-flatpak-org.blender.Blender-1.scope slice=app.slice container=: "
                        "app=flatpak:org.blender.BlenderLTS"));
        g_assert_true(usage_bus_has_line(root_view, "group application org.blender.BlenderLTS ", "processes=1"));
        /* What the user may not read counts for nothing: the scope's name, or no application. */
        g_assert_true(usage_bus_has_line(root_view, "attributed 401 ", "app=flatpak:org.gimp.GIMP"));
        g_assert_true(usage_bus_has_line(root_view, "attributed 402 ", "unit=session-3.scope slice=user-"));
        g_assert_true(usage_bus_has_line(root_view, "attributed 402 ", "app=:"));
        g_assert_true(usage_bus_has_line(root_view, "attributed 403 ", "app=:"));
        g_assert_true(usage_bus_has_line(root_view, "attributed 404 ", "app=:"));
        g_assert_true(usage_bus_has_line(root_view, "attributed 405 ", "app=flatpak:org.gimp.GIMP"));
        g_assert_true(usage_bus_has_line(root_view, "group application org.gimp.GIMP ", "processes=2"));
        g_assert_true(usage_bus_has_line(root_view, "group application session-3.scope ", "processes=3"));
        itest_assert_absent("root's view", root_view, "secret");
        itest_assert_absent("root's view", root_view, "RootOnly");

        user_view = usage_bus_dump_as(&t, &u, dump_attribution);
        g_test_message("as the user:\n%s", user_view);
        g_assert_true(usage_bus_has_line(user_view, "attributed 400 ", "app=flatpak:org.blender.BlenderLTS"));
        g_assert_true(usage_bus_has_line(user_view, "attributed 401 ", "app=flatpak:org.gimp.GIMP"));
        itest_assert_absent("the user's view", user_view, "secret");
        itest_assert_absent("the user's view", user_view, "RootOnly");

        g_assert_cmpint(itest_ctl(&t, &top, "--json=short", "top", "--once", "--interval=0.02", NULL), ==, 0);
        g_assert_nonnull(strstr(top, "\"app_kind\":\"flatpak\",\"app\":\"org.blender.BlenderLTS\""));
        itest_assert_absent("top --json", top, "RootOnly");
        {
                GString *l = g_string_new(NULL);
                char buf[65536];
                off_t off = 0;
                ssize_t n;

                while ((n = pread(t.daemon_stderr, buf, sizeof(buf), off)) > 0) {
                        g_string_append_len(l, buf, n);
                        off += n;
                }
                log = g_string_free(l, FALSE);
        }
        itest_assert_absent("the daemon's log", log, "RootOnly");

        close(watch);
        itest_teardown(&t);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/usage/attribution", test_attribution);
        g_test_add_func("/usage/attribution-flatpak-info", test_attribution_flatpak_info);
        return g_test_run();
}
