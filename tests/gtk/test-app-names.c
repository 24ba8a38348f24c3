/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* client/gtk/app-names.c: application names from unit names (systemd's desktop-environment convention),
 * Flatpak ids and container stores, looked up in desktop files of a temporary XDG_DATA_DIRS. */

#include <gio/gio.h>

#include "app-names.h"
#include "test-util.h"

#define CONTAINER_A "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define CONTAINER_B "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define CONTAINER_C "aaaaaaaaaaaabbbbbbbbbbbbccccccccccccddddddddddddeeeeeeeeeeeeffff"

static char *data_dirs, *stores;

static void assert_ids(const char *unit, const char *const *expected)
{
        g_auto(GStrv) ids = app_names_unit_desktop_ids(unit);

        if (!expected) {
                g_assert_null(ids);
                return;
        }
        g_assert_nonnull(ids);
        g_assert_cmpstrv(ids, expected);
}

/* GNOME's and KDE's unit names, with and without a launcher, escaped ids, a user's manager before them;
 * what is not of the convention gives nothing. */
static void test_unit_ids(void)
{
        assert_ids("app-gnome-org.gnome.Console-4242.scope",
                        (const char *const[]){ "org.gnome.Console", "gnome-org.gnome.Console", NULL });
        assert_ids("user@1000.service/app-flatpak-org.example.Game-77.scope",
                        (const char *const[]){ "org.example.Game", "flatpak-org.example.Game", NULL });
        assert_ids("app-org.kde.konsole@1b2c3d.service", (const char *const[]){ "org.kde.konsole", NULL });
        assert_ids("app-org.kde.dolphin.service", (const char *const[]){ "org.kde.dolphin", NULL });
        assert_ids("app-kde-org.kde.okular@0.service",
                        (const char *const[]){ "org.kde.okular", "kde-org.kde.okular", NULL });
        assert_ids("app-gnome-google\\x2dchrome-1234.scope",
                        (const char *const[]){ "google-chrome", "gnome-google-chrome", NULL });
        assert_ids("app-firefox-99.scope", (const char *const[]){ "firefox", NULL });
        assert_ids("ollama.service", NULL);
        assert_ids("app.slice", NULL);
        assert_ids("app-gnome-x-.scope", NULL); /* no random part */
        assert_ids("app-gnome-x-4.2.scope", NULL);
        assert_ids("app-gnome-a\\x2fb-1.scope", NULL); /* no '/' in a desktop file id */
        assert_ids("app-.service", NULL);
        assert_ids("", NULL);
}

static AppNames *names_new(void)
{
        g_autofree char *rootless = g_build_filename(stores, "rootless.json", NULL);
        g_autofree char *root = g_build_filename(stores, "root.json", NULL);
        g_autofree char *docker = g_build_filename(stores, "docker", NULL);
        const char *podman[] = { rootless, root, NULL };

        return app_names_new(&(AppNamesPaths){ .podman_stores = podman, .docker_containers = docker });
}

static void assert_name(AppNames *n, const char *unit, const char *container_kind, const char *container,
                const char *app_kind, const char *app, const char *comm, const char *name, const char *icon,
                const char *detail)
{
        AppName r;

        app_names_resolve(n, unit, container_kind, container, app_kind, app, comm, &r);
        g_assert_cmpstr(r.name, ==, name);
        g_assert_cmpstr(r.detail, ==, detail);
        if (icon) {
                g_autofree char *s = NULL;

                g_assert_nonnull(r.icon);
                s = g_icon_to_string(r.icon);
                g_assert_cmpstr(s, ==, icon);
        } else
                g_assert_null(r.icon);
        app_name_done(&r);
}

/* Desktop files give name and icon; the command where none is found; the unit stays the detail. */
static void test_desktop_names(void)
{
        g_autoptr(AppNames) n = names_new();

        assert_name(n, "user@1000.service/app-gnome-org.gnome.Console-4242.scope", "", "", "", "", "kgx", "Console",
                        "org.gnome.Console", "user@1000.service/app-gnome-org.gnome.Console-4242.scope");
        /* The launcher-less reading where the first is not a desktop file. */
        assert_name(n, "app-gnome-x-1.scope", "", "", "", "", "x", "Gnome X", NULL, "app-gnome-x-1.scope");
        assert_name(n, "app-gnome-google\\x2dchrome-1234.scope", "", "", "", "", "chrome", "Google Chrome", NULL,
                        "app-gnome-google\\x2dchrome-1234.scope");
        assert_name(n, "app-gnome-org.example.Missing-1.scope", "", "", "", "", "missing", "missing", NULL,
                        "app-gnome-org.example.Missing-1.scope");
        assert_name(n, "ollama.service", "", "", "", "", "ollama", "ollama", NULL, "ollama.service");
        assert_name(n, "", "", "", "", "", "python3", "python3", NULL, NULL);
        /* Flatpak: by id; an id without a desktop file is shown as it is. */
        assert_name(n, "app-flatpak-org.example.Game-77.scope", "", "", "flatpak", "org.example.Game", "game",
                        "Example Game", "/usr/share/icons/game.png", "app-flatpak-org.example.Game-77.scope");
        assert_name(n, "", "", "", "flatpak", "org.example.Other", "other", "org.example.Other", NULL,
                        "org.example.Other");
        assert_name(n, "snap.tool.tool-1.scope", "", "", "snap", "tool", "tool", "Snap Tool", NULL,
                        "snap.tool.tool-1.scope");
}

/* Rootless podman's store, root's, docker's; unreadable or unknown: the short id. */
static void test_container_names(void)
{
        g_autoptr(AppNames) n = names_new();
        g_autofree char *unit = g_strdup_printf("libpod-%s.scope", CONTAINER_A);

        assert_name(n, unit, "podman", CONTAINER_A, "", "", "nginx", "web-frontend", NULL, unit);
        assert_name(n, "libpod-x.scope", "podman", CONTAINER_B, "", "", "sh", "rooty", NULL, "libpod-x.scope");
        assert_name(n, "docker-x.scope", "docker", CONTAINER_A, "", "", "sh", "dockered", NULL, "docker-x.scope");
        assert_name(n, "libpod-y.scope", "podman", CONTAINER_C, "", "", "sh", "container aaaaaaaaaaaa", NULL,
                        "libpod-y.scope");
        assert_name(n, "docker-y.scope", "docker", CONTAINER_C, "", "", "sh", "container aaaaaaaaaaaa", NULL,
                        "docker-y.scope");
        assert_name(n, "machine-debian.scope", "machine", "debian", "", "", "sh", "debian", NULL,
                        "machine-debian.scope");
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);

        /* Before GIO reads them: the desktop files are this test's alone. */
        data_dirs = test_mkdtemp();
        stores = test_mkdtemp();
        g_setenv("XDG_DATA_DIRS", data_dirs, TRUE);
        g_setenv("XDG_DATA_HOME", stores, TRUE);
        test_write_file(data_dirs, "applications/org.gnome.Console.desktop",
                        "[Desktop Entry]\nType=Application\nName=Console\nIcon=org.gnome.Console\nExec=true\n");
        test_write_file(data_dirs, "applications/gnome-x.desktop",
                        "[Desktop Entry]\nType=Application\nName=Gnome X\nExec=true\n");
        test_write_file(data_dirs, "applications/google-chrome.desktop",
                        "[Desktop Entry]\nType=Application\nName=Google Chrome\nExec=true\n");
        test_write_file(data_dirs, "applications/org.example.Game.desktop",
                        "[Desktop Entry]\nType=Application\nName=Example Game\nIcon=/usr/share/icons/game.png\n"
                        "Exec=true\n");
        test_write_file(data_dirs, "applications/tool_tool.desktop",
                        "[Desktop Entry]\nType=Application\nName=Snap Tool\nExec=true\n");
        test_write_file(stores, "rootless.json",
                        "[{\"id\":\"" CONTAINER_A "\",\"names\":[\"web-frontend\"],\"image\":\"x\"},"
                        "{\"id\":\"" CONTAINER_C "\",\"names\":[]}]");
        test_write_file(stores, "root.json", "[{\"id\":\"" CONTAINER_B "\",\"names\":[\"rooty\"]}]");
        test_write_file(stores, "docker/" CONTAINER_A "/config.v2.json", "{\"ID\":\"x\",\"Name\":\"/dockered\"}");

        g_test_add_func("/app-names/unit-ids", test_unit_ids);
        g_test_add_func("/app-names/desktop-names", test_desktop_names);
        g_test_add_func("/app-names/container-names", test_container_names);
        return g_test_run();
}
