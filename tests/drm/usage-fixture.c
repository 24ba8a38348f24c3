/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "usage-fixture.h"

typedef struct Ctx {
        const char *proc, *sys, *corpus;
        unsigned line;
        char **error;
} Ctx;

static int fail(Ctx *c, const char *what)
{
        if (c->error && !*c->error)
                *c->error = g_strdup_printf("line %u: %s", c->line, what);
        return -1;
}

/* Writes path atomically (temporary file, then rename), creating its directory. */
/* Both take ownership of path (callers build it in the call). */
static int write_file(Ctx *c, char *owned_path, const char *content, gsize size)
{
        g_autofree char *path = owned_path;
        g_autofree char *dir = g_path_get_dirname(path);
        g_autofree char *tmp = g_strdup_printf("%s.tmp", path);

        if (g_mkdir_with_parents(dir, 0755) < 0 || !g_file_set_contents(tmp, content, (gssize) size, NULL))
                return fail(c, "cannot write a file");
        if (g_file_test(path, G_FILE_TEST_IS_DIR))
                (void) g_rmdir(path);
        if (rename(tmp, path) < 0)
                return fail(c, "cannot rename a file");
        return 0;
}

static int make_link(Ctx *c, const char *target, char *owned_path)
{
        g_autofree char *path = owned_path;
        g_autofree char *dir = g_path_get_dirname(path);

        if (g_mkdir_with_parents(dir, 0755) < 0)
                return fail(c, "cannot create a directory");
        (void) unlink(path);
        if (symlink(target, path) < 0)
                return fail(c, "cannot create a symlink");
        return 0;
}

static int node_numbers(Ctx *c, const char *target, unsigned *ret_major, unsigned *ret_minor)
{
        struct stat st;

        if (stat(target, &st) < 0 || !S_ISCHR(st.st_mode))
                return fail(c, "the node's target is not a character device");
        *ret_major = major(st.st_rdev);
        *ret_minor = minor(st.st_rdev);
        return 0;
}

/* sys/devices/fixture/DEVNAME/{drm/NAME,subsystem,driver,vendor,device,power/runtime_status} and
 * sys/dev/char/MAJ:MIN -> its drm/NAME. */
static int do_node(Ctx *c, char **w, guint n)
{
        g_autofree char *devdir = NULL, *nodedir = NULL, *charlink = NULL, *target = NULL;
        unsigned maj, min;
        const char *kind;

        if (n < 4)
                return fail(c, "node NAME TARGET pci|platform|none ...");
        if (node_numbers(c, w[2], &maj, &min) < 0)
                return -1;
        kind = w[3];
        charlink = g_strdup_printf("%s/dev/char/%u:%u", c->sys, maj, min);
        if (g_str_equal(kind, "none")) {
                nodedir = g_strdup_printf("%s/devices/virtual/fixture/%s", c->sys, w[1]);
                if (g_mkdir_with_parents(nodedir, 0755) < 0)
                        return fail(c, "cannot create a directory");
                return make_link(c, nodedir, g_steal_pointer(&charlink));
        }
        if (g_str_equal(kind, "pci") && n == 8) {
                g_autofree char *v = g_strdup_printf("%s\n", w[5]), *d = g_strdup_printf("%s\n", w[6]);

                devdir = g_strdup_printf("%s/devices/pci0000:00/%s", c->sys, w[4]);
                if (write_file(c, g_build_filename(devdir, "vendor", NULL), v, strlen(v)) < 0 ||
                                write_file(c, g_build_filename(devdir, "device", NULL), d, strlen(d)) < 0)
                        return -1;
                target = g_strdup_printf("%s/bus/pci", c->sys);
        } else if (g_str_equal(kind, "platform") && n == 6) {
                devdir = g_strdup_printf("%s/devices/platform/%s", c->sys, w[4]);
                target = g_strdup_printf("%s/bus/platform", c->sys);
        } else
                return fail(c, "node NAME TARGET pci SLOT VENDOR DEVICE DRIVER | platform DEVNAME DRIVER | none");

        if (g_mkdir_with_parents(target, 0755) < 0 ||
                        make_link(c, target, g_build_filename(devdir, "subsystem", NULL)) < 0)
                return -1;
        {
                g_autofree char *drv = g_strdup_printf("%s/drivers/%s", target, w[n - 1]);
                if (g_mkdir_with_parents(drv, 0755) < 0 ||
                                make_link(c, drv, g_build_filename(devdir, "driver", NULL)) < 0)
                        return -1;
        }
        if (write_file(c, g_build_filename(devdir, "power", "runtime_status", NULL), "active\n", 7) < 0)
                return -1;
        nodedir = g_strdup_printf("%s/drm/%s", devdir, w[1]);
        if (g_mkdir_with_parents(nodedir, 0755) < 0 ||
                        make_link(c, devdir, g_build_filename(nodedir, "device", NULL)) < 0)
                return -1;
        return make_link(c, nodedir, g_steal_pointer(&charlink));
}

/* The node's device directory (NAME's drm/NAME/device), through any sys/dev/char link whose target ends
 * in drm/NAME; NULL when there is none. */
static char *node_device_dir(Ctx *c, const char *name)
{
        g_autoptr(GDir) d = NULL;
        g_autofree char *base = NULL, *suffix = NULL;

        suffix = g_strdup_printf("/drm/%s", name);
        base = g_strdup_printf("%s/dev/char", c->sys);
        d = g_dir_open(base, 0, NULL);
        for (const char *e; d && (e = g_dir_read_name(d));) {
                g_autofree char *link = g_build_filename(base, e, NULL);
                g_autofree char *target = g_file_read_link(link, NULL);

                if (target && g_str_has_suffix(target, suffix))
                        return g_build_filename(target, "device", NULL);
        }
        return NULL;
}

static int do_power(Ctx *c, char **w, guint n)
{
        g_autofree char *dev = NULL;
        const char *state;

        if (n != 3 || (!g_str_equal(w[2], "active") && !g_str_equal(w[2], "suspended")))
                return fail(c, "power NAME active|suspended");
        state = g_str_equal(w[2], "active") ? "active\n" : "suspended\n";
        dev = node_device_dir(c, w[1]);
        if (!dev)
                return fail(c, "power: no such node");
        return write_file(c, g_build_filename(dev, "power", "runtime_status", NULL), state, strlen(state));
}

/* hwmon NAME FILE VALUE: the node's device's hwmon/hwmon0/FILE is VALUE and a newline ('_' a blank). */
static int do_hwmon(Ctx *c, char **w, guint n)
{
        g_autofree char *dev = NULL, *value = NULL;

        if (n != 4 || strchr(w[2], '/') || w[2][0] == '.')
                return fail(c, "hwmon NAME FILE VALUE");
        dev = node_device_dir(c, w[1]);
        if (!dev)
                return fail(c, "hwmon: no such node");
        value = g_strdup_printf("%s\n", w[3]);
        g_strdelimit(value, "_", ' ');
        return write_file(c, g_build_filename(dev, "hwmon", "hwmon0", w[2], NULL), value, strlen(value));
}

static int do_fdinfo(Ctx *c, char **w, guint n)
{
        g_autofree char *path = NULL, *text = NULL;
        gsize size = 0;

        if (n < 4)
                return fail(c, "fdinfo PID FD corpus FILE | keys K=V...");
        path = g_strdup_printf("%s/%s/fdinfo/%s", c->proc, w[1], w[2]);
        if (g_str_equal(w[3], "corpus") && n == 5) {
                g_autofree char *file = g_build_filename(c->corpus, "fdinfo", w[4], NULL);
                if (!g_file_get_contents(file, &text, &size, NULL))
                        return fail(c, "cannot read the corpus file");
        } else if (g_str_equal(w[3], "keys")) {
                GString *s = g_string_new("pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1087\n");
                for (guint i = 4; i < n; i++) {
                        const char *eq = strchr(w[i], '=');
                        g_autofree char *value = NULL;
                        if (!eq)
                                return fail(c, "keys take K=V");
                        value = g_strdup(eq + 1);
                        g_strdelimit(value, "_", ' ');
                        g_string_append_printf(s, "%.*s:\t%s\n", (int) (eq - w[i]), w[i], value);
                }
                size = s->len;
                text = g_string_free(s, FALSE);
        } else
                return fail(c, "fdinfo PID FD corpus FILE | keys K=V...");
        return write_file(c, g_steal_pointer(&path), text, size);
}

/* What the daemon reads of a process to track it: stat, status, comm, cmdline, environ, maps, exe, root. */
static int do_process(Ctx *c, char **w, guint n)
{
        g_autofree char *dir = NULL, *stat = NULL, *status = NULL, *comm = NULL, *fd = NULL;
        static const char environ[] = "PATH=/usr/bin";

        if (n != 7)
                return fail(c, "process PID UID START COMM EXE ROOT");
        dir = g_strdup_printf("%s/%s", c->proc, w[1]);
        stat = g_strdup_printf(
                        "%s (%s) S 1 %s %s 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %s 1000 100 0 0 0 0 0 0 0 0 0 0 "
                        "17 0 0 0 0 0 0\n",
                        w[1], w[4], w[1], w[1], w[3]);
        status = g_strdup_printf("Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%s\nPid:\t%s\nPPid:\t1\n"
                                 "Uid:\t%s\t%s\t%s\t%s\nGid:\t%s\t%s\t%s\t%s\nGroups:\t\n",
                        w[4], w[1], w[1], w[2], w[2], w[2], w[2], w[2], w[2], w[2], w[2]);
        comm = g_strdup_printf("%s\n", w[4]);
        fd = g_build_filename(dir, "fd", NULL);
        if (g_mkdir_with_parents(fd, 0755) < 0 ||
                        write_file(c, g_build_filename(dir, "stat", NULL), stat, strlen(stat)) < 0 ||
                        write_file(c, g_build_filename(dir, "status", NULL), status, strlen(status)) < 0 ||
                        write_file(c, g_build_filename(dir, "comm", NULL), comm, strlen(comm)) < 0 ||
                        write_file(c, g_build_filename(dir, "cmdline", NULL), w[5], strlen(w[5]) + 1) < 0 ||
                        write_file(c, g_build_filename(dir, "environ", NULL), environ, sizeof(environ)) < 0 ||
                        write_file(c, g_build_filename(dir, "maps", NULL), "", 0) < 0)
                return -1;
        if (make_link(c, w[5], g_build_filename(dir, "exe", NULL)) < 0)
                return -1;
        return make_link(c, w[6], g_build_filename(dir, "root", NULL));
}

static int do_line(Ctx *c, char **w, guint n)
{
        const char *cmd = w[0];

        if (g_str_equal(cmd, "node"))
                return do_node(c, w, n);
        if (g_str_equal(cmd, "process"))
                return do_process(c, w, n);
        if (g_str_equal(cmd, "power"))
                return do_power(c, w, n);
        if (g_str_equal(cmd, "hwmon"))
                return do_hwmon(c, w, n);
        if (g_str_equal(cmd, "fdinfo"))
                return do_fdinfo(c, w, n);
        if (g_str_equal(cmd, "fd") && n == 4)
                return make_link(c, w[3], g_strdup_printf("%s/%s/fd/%s", c->proc, w[1], w[2]));
        if (g_str_equal(cmd, "close") && n == 3) {
                g_autofree char *fd = g_strdup_printf("%s/%s/fd/%s", c->proc, w[1], w[2]);
                g_autofree char *info = g_strdup_printf("%s/%s/fdinfo/%s", c->proc, w[1], w[2]);
                (void) unlink(fd);
                (void) unlink(info);
                (void) g_rmdir(info);
                return 0;
        }
        if (g_str_equal(cmd, "unreadable") && n == 3) {
                g_autofree char *info = g_strdup_printf("%s/%s/fdinfo/%s", c->proc, w[1], w[2]);
                (void) unlink(info);
                return g_mkdir_with_parents(info, 0755) < 0 ? fail(c, "cannot create a directory") : 0;
        }
        if (g_str_equal(cmd, "denied") && n == 3) {
                g_autofree char *info = g_strdup_printf("%s/%s/fdinfo/%s", c->proc, w[1], w[2]);
                return chmod(info, 0) < 0 ? fail(c, "denied: no such fdinfo file") : 0;
        }
        if (g_str_equal(cmd, "cgroup") && n == 3) {
                g_autofree char *path = g_strdup_printf("%s/%s/cgroup", c->proc, w[1]);
                g_autofree char *line = g_strdup_printf("0::%s\n", w[2]);
                return write_file(c, g_steal_pointer(&path), line, strlen(line));
        }
        if (g_str_equal(cmd, "clock") && n == 2) {
                g_autofree char *path = g_build_filename(c->proc, "nvprofiled-fixture-clock", NULL);
                g_autofree char *v = g_strdup_printf("%s\n", w[1]);
                return write_file(c, g_steal_pointer(&path), v, strlen(v));
        }
        return fail(c, "unknown command or wrong number of words");
}

int usage_fixture_apply(const char *script, const char *proc, const char *sys, const char *corpus, unsigned step,
                char **ret_error)
{
        g_auto(GStrv) lines = g_strsplit(script, "\n", -1);
        Ctx c = { .proc = proc, .sys = sys, .corpus = corpus, .error = ret_error };
        unsigned current = 0;

        for (guint i = 0; lines[i]; i++) {
                g_autofree char *text = g_strdup(lines[i]);
                g_auto(GStrv) w = NULL;
                char *hash = strchr(text, '#');
                guint n;

                c.line = i + 1;
                if (hash)
                        *hash = '\0';
                g_strstrip(text);
                if (!*text)
                        continue;
                w = g_strsplit_set(text, " \t", -1);
                n = 0;
                for (guint k = 0; w[k]; k++)
                        if (*w[k])
                                w[n++] = w[k];
                        else
                                g_free(w[k]);
                w[n] = NULL;
                if (g_str_equal(w[0], "step")) {
                        if (n != 2)
                                return fail(&c, "step N");
                        current = (unsigned) g_ascii_strtoull(w[1], NULL, 10);
                        continue;
                }
                /* Only this step's lines: a daemon sampling meanwhile must never see an earlier step's
                 * values again. */
                if (current != step)
                        continue;
                if (do_line(&c, w, n) < 0)
                        return -1;
        }
        return 0;
}
