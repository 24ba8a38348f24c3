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
#include <sys/wait.h>
#include <unistd.h>

#include "test-mount.h"

static char reason[512];

static int mount_id(const char *path, uint64_t *ret)
{
        struct statx stx;

        if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) < 0)
                return -errno;
        if (!(stx.stx_mask & STATX_MNT_ID))
                return -EOPNOTSUPP;
        *ret = stx.stx_mnt_id;
        return 0;
}

/* Whether a mount made in another mount namespace below dir (a directory of the mount that holds our
 * root) shows up in ours: a child mounts a tmpfs there in a namespace of its own while we look, then
 * unmounts it (an unmount propagates as the mount did). Returns 1 if it propagates, 0 if not, or a
 * negative errno. */
static int mounts_propagate_from(const char *dir, uint64_t dir_id)
{
        int to_parent[2], to_child[2], status;
        uint64_t seen = dir_id;
        char c = 0;
        pid_t pid;

        if (pipe(to_parent) < 0 || pipe(to_child) < 0)
                return -errno;
        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                bool mounted = unshare(CLONE_NEWNS) == 0 &&
                                mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=4k") == 0;

                (void) !write(to_parent[1], mounted ? "m" : "x", 1);
                (void) !read(to_child[0], &c, 1);
                if (mounted)
                        (void) umount2(dir, MNT_DETACH);
                _exit(mounted ? 0 : 1);
        }
        close(to_parent[1]);
        close(to_child[0]);
        if (read(to_parent[0], &c, 1) == 1 && c == 'm')
                (void) mount_id(dir, &seen);
        (void) !write(to_child[1], "x", 1);
        close(to_parent[0]);
        close(to_child[1]);
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return -EIO;
        if (seen != dir_id)
                /* Gone with the child's unmount, unless that did not propagate: then ours goes here. */
                (void) umount2(dir, MNT_DETACH);
        return seen != dir_id;
}

/* A chroot: "/" is a directory inside a mount, not a mount's root, so it cannot be made private, and
 * our mountinfo does not show that mount at all. Whether a mount below it would appear outside is
 * therefore tried out, on a scratch directory of that mount. */
static const char *check_root_mount_does_not_propagate(void)
{
        g_autofree char *probe = g_strdup("/nvprofiled-mount-probe-XXXXXX");
        uint64_t root_id, probe_id;
        int r;

        if (mount_id("/", &root_id) < 0 || !g_mkdtemp(probe)) {
                snprintf(reason, sizeof(reason), "cannot make a probe directory in /: %s", g_strerror(errno));
                return reason;
        }
        r = mount_id(probe, &probe_id);
        if (r >= 0)
                r = mounts_propagate_from(probe, probe_id);
        (void) rmdir(probe);
        if (r < 0) {
                snprintf(reason, sizeof(reason),
                                "/ is not a mount point (a chroot) and trying whether mounts "
                                "below it propagate failed: %s",
                                g_strerror(-r));
                return reason;
        }
        if (r > 0) {
                snprintf(reason, sizeof(reason),
                                "/ is not a mount point (a chroot) and the mount holding it is shared: mounts made "
                                "here would appear outside; make the chroot's directory a private mount point "
                                "(mount --bind DIR DIR; mount --make-private DIR)");
                return reason;
        }
        return NULL;
}

static bool root_is_mount_point(void)
{
        g_autofree char *mountinfo = NULL;
        g_auto(GStrv) lines = NULL;

        if (!g_file_get_contents("/proc/self/mountinfo", &mountinfo, NULL, NULL))
                return false;
        lines = g_strsplit(mountinfo, "\n", -1);
        for (char **l = lines; *l; l++) {
                g_auto(GStrv) f = g_strsplit(*l, " ", -1);

                if (g_strv_length(f) >= 5 && strcmp(f[4], "/") == 0)
                        return true;
        }
        return false;
}

const char *test_private_mount_namespace(void)
{
        g_autofree char *mountinfo = NULL;
        g_auto(GStrv) lines = NULL;
        const char *why;

        if (root_is_mount_point()) {
                if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
                        snprintf(reason, sizeof(reason), "a private mount namespace: %s", g_strerror(errno));
                        return reason;
                }
                return NULL;
        }

        why = check_root_mount_does_not_propagate();
        if (why)
                return why;
        if (unshare(CLONE_NEWNS) < 0) {
                snprintf(reason, sizeof(reason), "unshare(CLONE_NEWNS) failed: %s", g_strerror(errno));
                return reason;
        }
        /* Every mount we can see, made private one by one. */
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
