/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd-util.h"
#include "fileio.h"
#include "log.h"
#include "user-creds.h"

static int compare_gid(const void *a, const void *b)
{
        gid_t x = *(const gid_t *) a, y = *(const gid_t *) b;
        return x < y ? -1 : x > y;
}

void user_creds_normalize(UserCreds *c)
{
        qsort_safe(c->groups, c->n_groups, sizeof(gid_t), compare_gid);
}

void user_creds_self(UserCreds *ret)
{
        gid_t groups[USER_CREDS_GROUPS_MAX];
        int n;

        assert(ret);

        *ret = (UserCreds){ .uid = geteuid(), .gid = getegid() };
        n = getgroups((int) ELEMENTSOF(groups), groups);
        for (int i = 0; i < n; i++)
                ret->groups[ret->n_groups++] = groups[i];
        user_creds_normalize(ret);
}

bool user_creds_equal(const UserCreds *a, const UserCreds *b)
{
        assert(a);
        assert(b);

        return a->uid == b->uid && a->gid == b->gid && a->n_groups == b->n_groups &&
                        memcmp(a->groups, b->groups, a->n_groups * sizeof(gid_t)) == 0;
}

uint64_t user_creds_hash(const UserCreds *c)
{
        /* FNV-1a over the ids. */
        uint64_t h = UINT64_C(14695981039346656037);
        uint64_t v[2] = { c->uid, c->gid };

        for (size_t i = 0; i < 2 + c->n_groups; i++) {
                uint64_t x = i < 2 ? v[i] : c->groups[i - 2];
                for (unsigned b = 0; b < 4; b++) {
                        h ^= (x >> (8 * b)) & 0xff;
                        h *= UINT64_C(1099511628211);
                }
        }
        return h;
}

/* A decimal id at the start of p, ended by anything but a digit. */
static int parse_id_prefix(const char *p, uint32_t *ret)
{
        uint64_t v = 0;
        size_t n = strspn(p, "0123456789");

        if (n == 0 || n > 10)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                v = v * 10 + (uint64_t) (p[i] - '0');
        if (v > UINT32_MAX)
                return -ERANGE;
        *ret = (uint32_t) v;
        return 0;
}

/* The 4th id of a "Uid:" or "Gid:" line: real, effective, saved, filesystem. */
static int parse_fs_id(const char *line, uint32_t *ret)
{
        const char *p = line;

        for (unsigned i = 0; i < 3; i++) {
                p += strcspn(p, " \t");
                p += strspn(p, " \t");
                if (!*p || *p == '\n')
                        return -EINVAL;
        }
        return parse_id_prefix(p, ret);
}

int user_creds_from_proc_status(const char *status, UserCreds *ret)
{
        UserCreds c = { 0 };
        bool have_uid = false, have_gid = false;

        assert(status);
        assert(ret);

        for (const char *line = status; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
                uint32_t id;

                if (strneq(line, "Uid:", 4)) {
                        if (parse_fs_id(line + 4, &id) < 0)
                                return -EINVAL;
                        c.uid = id;
                        have_uid = true;
                } else if (strneq(line, "Gid:", 4)) {
                        if (parse_fs_id(line + 4, &id) < 0)
                                return -EINVAL;
                        c.gid = id;
                        have_gid = true;
                } else if (strneq(line, "Groups:", 7)) {
                        const char *p = line + 7;
                        for (;;) {
                                p += strspn(p, " \t");
                                if (!*p || *p == '\n')
                                        break;
                                if (parse_id_prefix(p, &id) < 0)
                                        return -EINVAL;
                                /* Beyond our bound: the user's file access can only shrink. */
                                if (c.n_groups < USER_CREDS_GROUPS_MAX)
                                        c.groups[c.n_groups++] = id;
                                p += strspn(p, "0123456789");
                        }
                }
        }
        if (!have_uid || !have_gid)
                return -EINVAL;

        user_creds_normalize(&c);
        *ret = c;
        return 0;
}

static int caps_get(struct __user_cap_data_struct data[2])
{
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };

        return syscall(SYS_capget, &h, data) < 0 ? -errno : 0;
}

static int caps_set(const struct __user_cap_data_struct data[2])
{
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };

        return syscall(SYS_capset, &h, data) < 0 ? -errno : 0;
}

static bool cap_in(const struct __user_cap_data_struct data[2], unsigned cap, bool permitted)
{
        uint32_t set = permitted ? data[cap / 32].permitted : data[cap / 32].effective;
        return set & (UINT32_C(1) << (cap % 32));
}

bool user_creds_can_switch(void)
{
        struct __user_cap_data_struct caps[2];

        return caps_get(caps) >= 0 && cap_in(caps, CAP_SETUID, true) && cap_in(caps, CAP_SETGID, true);
}

/* What the daemon had before acting as a user, restored afterwards. */
typedef struct SavedCreds {
        uid_t fsuid;
        gid_t fsgid;
        int n_groups;
        gid_t *groups;
        struct __user_cap_data_struct caps[2];
} SavedCreds;

/* The effective and permitted sets are exactly these. */
static bool caps_are(const struct __user_cap_data_struct want[2])
{
        struct __user_cap_data_struct now[2];

        return caps_get(now) >= 0 && now[0].effective == want[0].effective && now[1].effective == want[1].effective &&
                        now[0].permitted == want[0].permitted && now[1].permitted == want[1].permitted;
}

static bool groups_are(const gid_t *groups, int n_groups)
{
        gid_t now[USER_CREDS_GROUPS_MAX];
        int n;

        /* More than we compare (never so under the unit): the count alone. */
        if (n_groups > (int) ELEMENTSOF(now))
                return getgroups(0, NULL) == n_groups;
        n = getgroups((int) ELEMENTSOF(now), now);
        return n == n_groups && memcmp(now, groups, (size_t) n * sizeof(gid_t)) == 0;
}

/* Failing to get our own credentials back would leave the daemon acting as someone else, or without the
 * capabilities its work needs: never go on.
 *
 * The order matters. The capabilities come back first, since setgroups() needs CAP_SETGID. Then fsgid,
 * fsuid and the groups. Then the capabilities once more: when the fsuid goes from 0 to anything else the
 * kernel clears CAP_DAC_READ_SEARCH, CAP_DAC_OVERRIDE, CAP_FOWNER and the other file-system capabilities
 * from the effective set (capabilities(7)), so a daemon that is not root (the unit's User=) would have
 * lost them for good after acting for root once, and with them every other user's /proc/PID/environ. */
static void restore_or_die(SavedCreds *s)
{
        if (caps_set(s->caps) < 0) {
                log_error_errno(errno, "Cannot restore capabilities after acting as a user, aborting");
                abort();
        }
        (void) setfsgid(s->fsgid);
        (void) setfsuid(s->fsuid);
        if ((uid_t) setfsuid((uid_t) -1) != s->fsuid || (gid_t) setfsgid((gid_t) -1) != s->fsgid ||
                        setgroups((size_t) s->n_groups, s->groups) < 0) {
                log_error("Cannot restore credentials after acting as a user, aborting.");
                abort();
        }
        if (caps_set(s->caps) < 0 || !caps_are(s->caps) || !groups_are(s->groups, s->n_groups)) {
                log_error("Capabilities or groups differ from before acting as a user, aborting.");
                abort();
        }
        s->groups = mfree(s->groups);
}

static int become(const UserCreds *c, SavedCreds *s)
{
        struct __user_cap_data_struct acting[2];
        int r;

        *s = (SavedCreds){ .fsuid = (uid_t) setfsuid((uid_t) -1), .fsgid = (gid_t) setfsgid((gid_t) -1) };
        r = caps_get(s->caps);
        if (r < 0)
                return r;
        s->n_groups = getgroups(0, NULL);
        if (s->n_groups < 0)
                return -errno;
        s->groups = calloc(MAX(s->n_groups, 1), sizeof(gid_t));
        if (!s->groups)
                return -ENOMEM;
        s->n_groups = getgroups(s->n_groups, s->groups);
        if (s->n_groups < 0) {
                s->groups = mfree(s->groups);
                return -errno;
        }

        /* Groups first: setgroups() needs CAP_SETGID, which goes below. */
        if (setgroups(c->n_groups, c->groups) < 0) {
                r = -errno;
                s->groups = mfree(s->groups);
                return r == -EPERM ? -EPERM : r;
        }
        (void) setfsgid(c->gid);
        (void) setfsuid(c->uid);
        /* No effective capability at all while acting for a user: CAP_DAC_READ_SEARCH, CAP_DAC_OVERRIDE,
         * CAP_SYS_PTRACE (/proc) and CAP_FOWNER would each let the open succeed where the user's own would
         * not. Root is the exception: root's own processes hold every capability, so acting for root
         * (fsuid 0) keeps the effective set we have (under the unit: CAP_DAC_READ_SEARCH, so root's
         * access to read and search is what root's process has; writing still needs root's own write
         * permission, since CAP_DAC_OVERRIDE is not ours). Setting it explicitly also undoes what the
         * kernel did to it when the fsuid changed to or from 0. */
        memcpy(acting, s->caps, sizeof(acting));
        if (c->uid != 0)
                acting[0].effective = acting[1].effective = 0;
        if ((uid_t) setfsuid((uid_t) -1) != c->uid || (gid_t) setfsgid((gid_t) -1) != c->gid || caps_set(acting) < 0 ||
                        !caps_are(acting) || !groups_are(c->groups, (int) c->n_groups)) {
                restore_or_die(s);
                return -EPERM;
        }
        return 0;
}

int user_creds_run(const UserCreds *creds, int (*fn)(void *userdata), void *userdata)
{
        SavedCreds saved;
        int r;

        assert(fn);

        /* Our own access: nothing to switch. Root acting for root has every right anyway. */
        if (!creds || (creds->uid == geteuid() && (creds->uid == 0 || !user_creds_can_switch())))
                return fn(userdata);
        if (!user_creds_can_switch())
                return -EPERM;

        r = become(creds, &saved);
        if (r < 0)
                return r;
        r = fn(userdata);
        restore_or_die(&saved);
        return r;
}

static int do_nothing(void *userdata)
{
        return 0;
}

int user_creds_self_test(int proc_fd, pid_t *ret_pid)
{
        static const UserCreds root = { .uid = 0, .gid = 0 }, nobody = { .uid = 65534, .gid = 65534 };
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        pid_t parent = getppid();
        char name[32], c;
        struct stat st;
        int r;

        assert(ret_pid);
        *ret_pid = parent;

        /* The switches as reading a root process and then another user's file makes them: a way back
         * that loses a capability shows below. */
        if (user_creds_can_switch()) {
                r = user_creds_run(&root, do_nothing, NULL);
                if (r < 0)
                        return r;
                r = user_creds_run(&nobody, do_nothing, NULL);
                if (r < 0)
                        return r;
        }

        /* Our parent: systemd under the unit, whoever started us otherwise. Not pid 1 itself, which a
         * container or a sandbox may keep from everyone. One of our own uid proves nothing. */
        snprintf(name, sizeof(name), "%i", (int) parent);
        dfd = openat(proc_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        if (fstat(dfd, &st) < 0)
                return -errno;
        if (st.st_uid == geteuid())
                return 1;
        fd = openat(dfd, "environ", O_RDONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (read(fd, &c, 1) < 0)
                return -errno;
        return 0;
}

typedef struct OpenArgs {
        int root_fd;
        const char *path;
        struct stat *st;
} OpenArgs;

static int open_for_reading(void *userdata)
{
        OpenArgs *a = userdata;
        _cleanup_close_ int fd = -EBADF;
        char proc[64];
        int rfd, r;

        fd = open_in_root(a->root_fd, a->path, O_PATH);
        if (fd < 0)
                return fd;
        if (fstat(fd, a->st) < 0)
                return -errno;
        if (!S_ISREG(a->st->st_mode) && !S_ISDIR(a->st->st_mode))
                return -EBADFD;

        /* Reopening the O_PATH handle checks read permission on this very inode, with our current
         * (the user's) credentials. */
        snprintf(proc, sizeof(proc), "/proc/self/fd/%i", fd);
        rfd = open(proc, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | (S_ISDIR(a->st->st_mode) ? O_DIRECTORY : 0));
        if (rfd < 0)
                return -errno;

        /* On the descriptor that will be read: the user's fsuid does not stop us from reading our own
         * /proc entries (a process may always read its own), and nothing on a pseudo file system is
         * an rc file (fileio.c says which and why). */
        r = fd_is_on_pseudo_file_system(rfd);
        if (r != 0) {
                safe_close(rfd);
                return r < 0 ? r : -EBADFD;
        }
        return rfd;
}

int open_for_reading_as(const UserCreds *creds, int root_fd, const char *path, struct stat *ret_st)
{
        struct stat st;
        OpenArgs a = { .root_fd = root_fd, .path = path, .st = ret_st ? ret_st : &st };

        assert(path);

        return user_creds_run(creds, open_for_reading, &a);
}

void user_creds_from_user_database(uid_t uid, UserCreds *ret)
{
        struct passwd pw, *found = NULL;
        char buf[4096];
        int n = (int) USER_CREDS_GROUPS_MAX;

        *ret = (UserCreds){ .uid = uid, .gid = 65534 };
        if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) != 0 || !found)
                return;
        ret->gid = pw.pw_gid;
        /* More groups than we keep: the rest are dropped, which only takes access away. */
        if (getgrouplist(pw.pw_name, pw.pw_gid, ret->groups, &n) < 0)
                n = (int) USER_CREDS_GROUPS_MAX;
        ret->n_groups = (size_t) MAX(n, 0);
}

int user_creds_become(const UserCreds *c)
{
        uid_t ruid, euid, suid;
        gid_t rgid, egid, sgid;

        assert(c);

        if (setgroups(c->n_groups, c->groups) < 0 || setresgid(c->gid, c->gid, c->gid) < 0 ||
                        setresuid(c->uid, c->uid, c->uid) < 0)
                return -errno;
        /* Changing the uid made us as dumpable as fs.suid_dumpable says, which may let the user's processes
         * trace us and take what we hold. */
        if (prctl(PR_SET_DUMPABLE, 0) < 0)
                return -errno;
        if (getresuid(&ruid, &euid, &suid) < 0 || getresgid(&rgid, &egid, &sgid) < 0)
                return -errno;
        if (ruid != c->uid || euid != c->uid || suid != c->uid || rgid != c->gid || egid != c->gid || sgid != c->gid)
                return -EPERM;
        /* No way back, unless we are that user. */
        if (c->uid != 0 && setresuid(0, 0, 0) >= 0)
                return -EPERM;
        return 0;
}
