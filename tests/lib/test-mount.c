/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "test-mount.h"

/* The optional fields of mount mnt_id in a mountinfo file ("shared:N master:M ..."), or NULL. */
static char *mount_propagation(const char *mountinfo, unsigned long long mnt_id)
{
        g_autofree char *text = NULL;
        g_auto(GStrv) lines = NULL;

        if (!g_file_get_contents(mountinfo, &text, NULL, NULL))
                return NULL;
        lines = g_strsplit(text, "\n", -1);
        for (char **l = lines; *l; l++) {
                g_auto(GStrv) f = g_strsplit(*l, " ", -1);
                GString *opt;

                if (g_strv_length(f) < 7 || g_ascii_strtoull(f[0], NULL, 10) != mnt_id)
                        continue;
                opt = g_string_new(NULL);
                for (char **o = f + 6; *o && strcmp(*o, "-") != 0; o++)
                        g_string_append_printf(opt, "%s%s", opt->len ? " " : "", *o);
                return g_string_free(opt, FALSE);
        }
        return NULL;
}

static bool same_mount_namespace_as_pid1(void)
{
        struct stat a, b;

        return stat("/proc/self/ns/mnt", &a) == 0 && stat("/proc/1/ns/mnt", &b) == 0 && a.st_ino == b.st_ino &&
                        a.st_dev == b.st_dev;
}

const char *test_private_mount_namespace(void)
{
        static char reason[512];
        g_autofree char *root_propagation = NULL, *mountinfo = NULL;
        g_auto(GStrv) lines = NULL;
        struct statx stx;

        /* Where our root lies, asked before leaving the machine's namespace: in a chroot the mount that
         * holds it is outside our view (our /proc/self/mountinfo leaves it out), but PID 1's shows it. */
        if (statx(AT_FDCWD, "/", 0, STATX_MNT_ID, &stx) < 0 || !(stx.stx_mask & STATX_MNT_ID)) {
                snprintf(reason, sizeof(reason), "statx(/, STATX_MNT_ID) failed: %s", g_strerror(errno));
                return reason;
        }
        if (same_mount_namespace_as_pid1())
                root_propagation = mount_propagation("/proc/1/mountinfo", stx.stx_mnt_id);

        if (unshare(CLONE_NEWNS) < 0) {
                snprintf(reason, sizeof(reason), "unshare(CLONE_NEWNS) failed: %s", g_strerror(errno));
                return reason;
        }
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
                return NULL;
        if (errno != EINVAL) {
                snprintf(reason, sizeof(reason), "making / private failed: %s", g_strerror(errno));
                return reason;
        }

        /* A chroot: "/" is a directory inside a mount, not a mount's root. Every mount we can see is made
         * private one by one; the one holding our root cannot be, so it must be one that does not
         * propagate, else a mount made here would also appear in the machine's namespace. */
        if (!root_propagation) {
                snprintf(reason, sizeof(reason),
                                "/ is not a mount point (a chroot) and the mount holding it is not in PID 1's "
                                "mountinfo, so nothing shows whether mounts made here would propagate outside; "
                                "make the chroot's directory a mount point (mount --bind DIR DIR)");
                return reason;
        }
        if (strstr(root_propagation, "shared:")) {
                snprintf(reason, sizeof(reason),
                                "/ is not a mount point (a chroot) and the mount holding it is shared (%s): mounts "
                                "made here would appear outside; make the chroot's directory a private mount "
                                "point (mount --bind DIR DIR; mount --make-private DIR)",
                                root_propagation);
                return reason;
        }
        if (!g_file_get_contents("/proc/self/mountinfo", &mountinfo, NULL, NULL)) {
                snprintf(reason, sizeof(reason), "cannot read /proc/self/mountinfo");
                return reason;
        }
        lines = g_strsplit(mountinfo, "\n", -1);
        for (char **l = lines; *l; l++) {
                g_auto(GStrv) f = g_strsplit(*l, " ", -1);
                g_autofree char *point = NULL;

                if (g_strv_length(f) < 5)
                        continue;
                point = g_strcompress(f[4]); /* mountinfo writes a space as \040 */
                if (mount(NULL, point, NULL, MS_PRIVATE, NULL) < 0 && errno != EINVAL && errno != ENOENT) {
                        snprintf(reason, sizeof(reason), "making %s private failed: %s", point, g_strerror(errno));
                        return reason;
                }
        }
        return NULL;
}
