/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The attribution of a process from its cgroup v2 path: real paths as systemd, podman, docker, machined,
 * Flatpak and snapd make them, and what is not one. */
#include <errno.h>
#include <glib.h>
#include <string.h>

#include "proc-cgroup.h"

typedef struct Case {
        const char *path;
        const char *unit, *slice, *container_kind, *container, *app_kind, *app, *application;
} Case;

#define PODMAN_ID "3f1c2a9be0d4477a8c1e5b6d7f809112233445566778899aabbccddeeff00112"
#define DOCKER_ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static const Case cases[] = {
        { "/system.slice/nginx.service", "nginx.service", "system.slice", "", "", "", "", "nginx.service" },
        { "/user.slice/user-1000.slice/session-2.scope", "session-2.scope", "user-1000.slice", "", "", "", "",
                        "session-2.scope" },
        { "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Terminal-4242.scope",
                        "user@1000.service/app-gnome-org.gnome.Terminal-4242.scope", "app.slice", "", "", "", "",
                        "user@1000.service/app-gnome-org.gnome.Terminal-4242.scope" },
        { "/user.slice/user-1000.slice/user@1000.service/init.scope", "user@1000.service/init.scope", "user-1000.slice",
                        "", "", "", "", "user@1000.service/init.scope" },
        { "/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.blender.Blender-95123.scope",
                        "user@1000.service/app-flatpak-org.blender.Blender-95123.scope", "app.slice", "", "", "flatpak",
                        "org.blender.Blender", "org.blender.Blender" },
        /* A '-' in the id, escaped as a unit name part. */
        { "/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-com.valvesoftware.Steam\\x2dbeta-7.scope",
                        "user@1000.service/app-flatpak-com.valvesoftware.Steam\\x2dbeta-7.scope", "app.slice", "", "",
                        "flatpak", "com.valvesoftware.Steam-beta", "com.valvesoftware.Steam-beta" },
        { "/user.slice/user-1000.slice/user@1000.service/app.slice/"
          "snap.firefox.firefox-4f7d3a3c-6a2b-4c1f-9a55-0c2d8a1b9e77.scope",
                        "user@1000.service/snap.firefox.firefox-4f7d3a3c-6a2b-4c1f-9a55-0c2d8a1b9e77.scope",
                        "app.slice", "", "", "snap", "firefox", "firefox" },
        { "/system.slice/snap.lxd.daemon.service", "snap.lxd.daemon.service", "system.slice", "", "", "", "",
                        "snap.lxd.daemon.service" },
        { "/machine.slice/libpod-" PODMAN_ID ".scope/container", "libpod-" PODMAN_ID ".scope", "machine.slice",
                        "podman", PODMAN_ID, "", "", "libpod-" PODMAN_ID ".scope" },
        /* Rootless podman, in the user's manager; conmon beside it is not the container. */
        { "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" PODMAN_ID ".scope",
                        "user@1000.service/libpod-" PODMAN_ID ".scope", "user.slice", "podman", PODMAN_ID, "", "",
                        "user@1000.service/libpod-" PODMAN_ID ".scope" },
        /* A user's own units named as the system's services (systemd-run --user --unit=ollama.service, a
         * delegated cgroup of its own called "user@0.service"): keyed by the user's manager, never the
         * system's unit nor root's manager. */
        { "/user.slice/user-1000.slice/user@1000.service/app.slice/ollama.service", "user@1000.service/ollama.service",
                        "app.slice", "", "", "", "", "user@1000.service/ollama.service" },
        { "/user.slice/user-1000.slice/user@1000.service/app.slice/user@0.service/system.slice/ollama.service",
                        "user@1000.service/ollama.service", "system.slice", "", "", "", "",
                        "user@1000.service/ollama.service" },
        { "/user.slice/user-1000.slice/user@1000.service/app.slice/user@0.service", "user@1000.service/user@0.service",
                        "app.slice", "", "", "", "", "user@1000.service/user@0.service" },
        /* The manager itself is the system's unit. */
        { "/user.slice/user-1000.slice/user@1000.service", "user@1000.service", "user-1000.slice", "", "", "", "",
                        "user@1000.service" },
        { "/machine.slice/libpod-conmon-" PODMAN_ID ".scope", "libpod-conmon-" PODMAN_ID ".scope", "machine.slice", "",
                        "", "", "", "libpod-conmon-" PODMAN_ID ".scope" },
        { "/system.slice/docker-" DOCKER_ID ".scope", "docker-" DOCKER_ID ".scope", "system.slice", "docker", DOCKER_ID,
                        "", "", "docker-" DOCKER_ID ".scope" },
        /* Not 64 hex digits: a unit like any other. */
        { "/system.slice/docker-0123.scope", "docker-0123.scope", "system.slice", "", "", "", "", "docker-0123.scope" },
        { "/machine.slice/machine-debian\\x2dtest.scope/payload/system.slice/getty@tty1.service", "getty@tty1.service",
                        "system.slice", "machine", "debian-test", "", "", "getty@tty1.service" },
        { "/", "", "", "", "", "", "", "" },
        { "/init.scope", "init.scope", "", "", "", "", "", "init.scope" },
        { "/system.slice/gone.service", "gone.service", "system.slice", "", "", "", "", "gone.service" },
        /* Lookalikes that are not what they seem. */
        { "/app.slice/app-flatpak-noid-12.scope", "app-flatpak-noid-12.scope", "app.slice", "", "", "", "",
                        "app-flatpak-noid-12.scope" },
        { "/app.slice/app-flatpak-org.x.Y.scope", "app-flatpak-org.x.Y.scope", "app.slice", "", "", "", "",
                        "app-flatpak-org.x.Y.scope" },
        { "/app.slice/snap.Bad.app-1.scope", "snap.Bad.app-1.scope", "app.slice", "", "", "", "",
                        "snap.Bad.app-1.scope" },
        { "/machine.slice/machine-bad\\x0a.scope", "machine-bad\\x0a.scope", "machine.slice", "", "", "", "",
                        "machine-bad\\x0a.scope" },
        { "/machine.slice/machine-trunc\\x2.scope", "machine-trunc\\x2.scope", "machine.slice", "", "", "", "",
                        "machine-trunc\\x2.scope" },
};

static void test_paths(void)
{
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                const Case *k = &cases[i];
                g_autofree char *text = g_strdup_printf("0::%s\n", k->path);
                ProcCgroup c = { 0 };

                g_test_message("%s", k->path);
                g_assert_cmpint(proc_cgroup_parse(text, strlen(text), &c), ==, 0);
                g_assert_cmpstr(c.path, ==, k->path);
                g_assert_cmpstr(c.unit, ==, k->unit);
                g_assert_cmpstr(c.slice, ==, k->slice);
                g_assert_cmpstr(c.container_kind, ==, k->container_kind);
                g_assert_cmpstr(c.container, ==, k->container);
                g_assert_cmpstr(c.app_kind, ==, k->app_kind);
                g_assert_cmpstr(c.app, ==, k->app);
                g_assert_cmpstr(proc_cgroup_application(&c), ==, k->application);
                proc_cgroup_done(&c);
        }
}

/* The file as the kernel writes it: v1 hierarchies first, the v2 line anywhere, " (deleted)" for a
 * removed cgroup, no final newline when cut. */
static void test_file(void)
{
        static const char hybrid[] = "12:cpuset:/\n11:memory:/system.slice/x.service\n0::/system.slice/x.service\n";
        static const char deleted[] = "0::/system.slice/gone.service (deleted)\n";
        static const char unterminated[] = "0::/user.slice/user-1000.slice/session-3.scope";
        ProcCgroup c = { 0 };

        g_assert_cmpint(proc_cgroup_parse(hybrid, strlen(hybrid), &c), ==, 0);
        g_assert_cmpstr(c.unit, ==, "x.service");
        proc_cgroup_done(&c);
        g_assert_cmpint(proc_cgroup_parse(deleted, strlen(deleted), &c), ==, 0);
        g_assert_cmpstr(c.path, ==, "/system.slice/gone.service");
        g_assert_cmpstr(c.unit, ==, "gone.service");
        proc_cgroup_done(&c);
        g_assert_cmpint(proc_cgroup_parse(unterminated, strlen(unterminated), &c), ==, 0);
        g_assert_cmpstr(c.unit, ==, "session-3.scope");
        proc_cgroup_done(&c);
}

static void test_garbage(void)
{
        static const char *const bad[] = {
                "0::relative/x.service\n",
                "0::\n",
                "0::/a//b.service\n",
                "0::/system.slice/\n",
                "0::/system.slice/tab\there.service\n",
                "0::/system.slice/\xff\xfe.service\n",
        };
        g_autofree char *long_component = NULL;
        g_autofree char *with_nul = NULL;
        ProcCgroup c = { 0 };

        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                g_test_message("%s", bad[i]);
                g_assert_cmpint(proc_cgroup_parse(bad[i], strlen(bad[i]), &c), ==, -EBADMSG);
                g_assert_null(c.unit);
        }
        long_component = g_strdup_printf("0::/%0256d.service\n", 0);
        g_assert_cmpint(proc_cgroup_parse(long_component, strlen(long_component), &c), ==, -EBADMSG);
        with_nul = g_strdup("0::/system.slice/a.service\n");
        with_nul[20] = '\0';
        g_assert_cmpint(proc_cgroup_parse(with_nul, strlen("0::/system.slice/a.service\n"), &c), ==, -EBADMSG);

        /* Neither a v2 line nor systemd's v1 hierarchy: nothing to say. */
        g_assert_cmpint(proc_cgroup_parse("1:cpu:/x\n", strlen("1:cpu:/x\n"), &c), ==, -ENODATA);
        g_assert_cmpint(proc_cgroup_parse("", 0, &c), ==, -ENODATA);
        g_assert_cmpint(proc_cgroup_parse("0:", 2, &c), ==, -ENODATA);
        g_assert_null(c.path);
}

/* The export's unit label (what usage-export's own lookup gave before it used this parser): the unit, else
 * the path, else nothing; hybrid mode's name=systemd line where v2 is only the root. */
static void test_export_label(void)
{
        static const struct {
                const char *text, *label;
        } labels[] = {
                { "0::/system.slice/gdm.service\n", "gdm.service" },
                { "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/"
                  "vte-spawn-1.scope\n",
                                "user@1000.service/vte-spawn-1.scope" },
                /* A cgroup below a slice of the user's manager: the manager's unit. */
                { "0::/user.slice/user-1000.slice/user@1000.service/app.slice/x/y\n", "user@1000.service" },
                { "0::/machine/qemu-1/emulator\n", "/machine/qemu-1/emulator" },
                { "0::/system.slice/systemd-fsck-root.mount\n", "systemd-fsck-root.mount" },
                { "0::/system.slice/cups.socket\n", "cups.socket" },
                { "12:cpu:/foo\n1:name=systemd:/system.slice/cron.service\n0::/\n", "cron.service" },
                { "1:name=systemd:/system.slice/cron.service\n", "cron.service" },
                { "1:name=systemd:/system.slice/cron.service\n0::/system.slice/sshd.service", "sshd.service" },
                { "0::/\n", NULL },
                { "0::/.service\n", "/.service" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(labels); i++) {
                ProcCgroup c = { 0 };

                g_test_message("%s", labels[i].text);
                g_assert_cmpint(proc_cgroup_parse(labels[i].text, strlen(labels[i].text), &c), ==, 0);
                g_assert_cmpstr(proc_cgroup_unit_or_path(&c), ==, labels[i].label);
                proc_cgroup_done(&c);
        }
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/proc-cgroup/paths", test_paths);
        g_test_add_func("/proc-cgroup/file", test_file);
        g_test_add_func("/proc-cgroup/garbage", test_garbage);
        g_test_add_func("/proc-cgroup/export-label", test_export_label);
        return g_test_run();
}
