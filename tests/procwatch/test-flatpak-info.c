/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A Flatpak sandbox's /.flatpak-info: the application id from files as flatpak run writes them, and what
 * is not one (the fault's line). */
#include <errno.h>
#include <glib.h>
#include <string.h>

#include "flatpak-info.h"
#include "macro.h"

/* As flatpak 1.14 writes it for "flatpak run org.blender.Blender" (shortened [Context]). */
static const char real[] = "[Application]\n"
                           "name=org.blender.Blender\n"
                           "runtime=runtime/org.freedesktop.Platform/x86_64/23.08\n"
                           "\n"
                           "[Instance]\n"
                           "instance-id=2405372861\n"
                           "instance-path=/home/me/.var/app/org.blender.Blender\n"
                           "app-path=/var/lib/flatpak/app/org.blender.Blender/x86_64/stable/abc/files\n"
                           "branch=stable\n"
                           "arch=x86_64\n"
                           "flatpak-version=1.14.4\n"
                           "session-bus-proxy=true\n"
                           "\n"
                           "[Context]\n"
                           "shared=network;ipc;\n"
                           "sockets=x11;wayland;pulseaudio;\n"
                           "devices=dri;\n";

typedef struct Case {
        const char *text;
        int result;
        const char *app;
        unsigned line; /* of the fault */
} Case;

static const Case cases[] = {
        { real, 0, "org.blender.Blender", 0 },
        /* Blanks around '=' and the group, a CRLF file, comments, a group named twice: one group. */
        { "# made by hand\r\n  [Application]  \r\n name = com.valvesoftware.Steam-beta \r\n", 0,
                        "com.valvesoftware.Steam-beta", 0 },
        { "[Application]\nname=org.a.B\n[Context]\nname=org.c.D\n[Application]\nname=org.e.F\n", 0, "org.e.F", 0 },
        /* Localised keys, other groups' names, a key that only starts with "name". */
        { "[Application]\nname[de]=org.x.Y\nnamespace=org.x.Z\nname=org.gnome.Maps\n", 0, "org.gnome.Maps", 0 },
        { "[Runtime]\nname=org.freedesktop.Platform\n", -ENODATA, NULL, 0 },
        { "[Application]\nruntime=runtime/x\n", -ENODATA, NULL, 0 },
        { "", -ENODATA, NULL, 0 },
        /* Not a key file, or not an id. */
        { "name=org.a.B\n[Application]\n", -EBADMSG, NULL, 1 },
        { "[Application]\nname=org.a.B\njunk\n", -EBADMSG, NULL, 3 },
        { "[Application]\n=org.a.B\n", -EBADMSG, NULL, 2 },
        { "[Application\nname=org.a.B\n", -EBADMSG, NULL, 1 },
        { "[Application]\nname=org.a.B\nname=/etc/shadow\n", -EBADMSG, NULL, 3 },
        { "[Application]\nname=noid\n", -EBADMSG, NULL, 2 },
        { "[Application]\nname=org..x\n", -EBADMSG, NULL, 2 },
        { "[Application]\nname=org.x.\x1b]0;PWNED\x07\n", -EBADMSG, NULL, 2 },
        { "[Application]\nname=org.x.\xff\n", -EBADMSG, NULL, 0 },
};

static void test_cases(void)
{
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const Case *c = &cases[i];
                g_autofree char *app = NULL;
                unsigned line = 99;
                int r;

                g_test_message("case %zu", i);
                r = flatpak_info_parse(c->text, strlen(c->text), &app, &line);
                g_assert_cmpint(r, ==, c->result);
                g_assert_cmpstr(app, ==, c->app);
                if (r == -EBADMSG)
                        g_assert_cmpuint(line, ==, c->line);
        }
}

/* Not NUL-terminated, a NUL byte inside, and the size bound. */
static void test_bytes(void)
{
        static const char nul[] = "[Application]\nname=org.a.B\0name=org.c.D\n";
        g_autofree char *app = NULL, *big = NULL;
        char exact[] = "[Application]\nname=org.a.BXXXX";
        unsigned line = 99;

        g_assert_cmpint(flatpak_info_parse(exact, strlen(exact) - 4, &app, NULL), ==, 0);
        g_assert_cmpstr(app, ==, "org.a.B");
        g_clear_pointer(&app, g_free);
        g_assert_cmpint(flatpak_info_parse(nul, sizeof(nul) - 1, &app, &line), ==, -EBADMSG);
        g_assert_cmpuint(line, ==, 0);
        g_assert_null(app);
        big = g_strnfill(FLATPAK_INFO_MAX + 1, '#');
        g_assert_cmpint(flatpak_info_parse(big, FLATPAK_INFO_MAX + 1, &app, NULL), ==, -EFBIG);
        g_assert_null(app);
}

static void test_app_id(void)
{
        g_autofree char *longest = g_strnfill(255, 'a'), *too_long = g_strnfill(256, 'a');

        longest[1] = too_long[1] = '.';
        g_assert_true(flatpak_app_id_valid("org.gnome.Maps"));
        g_assert_true(flatpak_app_id_valid("com.valvesoftware.Steam-beta"));
        g_assert_true(flatpak_app_id_valid(longest));
        g_assert_false(flatpak_app_id_valid(too_long));
        g_assert_false(flatpak_app_id_valid(""));
        g_assert_false(flatpak_app_id_valid("maps"));
        g_assert_false(flatpak_app_id_valid(".org.a"));
        g_assert_false(flatpak_app_id_valid("org.a."));
        g_assert_false(flatpak_app_id_valid("org/a.b"));
        g_assert_false(flatpak_app_id_valid("org.a b"));
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/flatpak-info/cases", test_cases);
        g_test_add_func("/flatpak-info/bytes", test_bytes);
        g_test_add_func("/flatpak-info/app-id", test_app_id);
        return g_test_run();
}
