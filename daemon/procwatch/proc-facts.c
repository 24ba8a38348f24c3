/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "fileio.h"
#include "flatpak-info.h"
#include "parse-util.h"
#include "proc-facts.h"
#include "proc-parse.h"
#include "strv.h"

const ProcLimits proc_limits_default = {
        .cmdline_max = 64 * 1024,
        .environ_max = 256 * 1024,
        .maps_max = 8 * 1024 * 1024, /* a browser has ~5,000 mappings, ~600 KiB of maps */
        .dsos_max = 4096,
        .argv_max = 256,
};

void proc_facts_done(ProcFacts *f)
{
        if (!f)
                return;
        free(f->exe);
        free(f->comm);
        strv_free(f->argv);
        strv_free(f->env);
        strv_free(f->dsos);
        safe_close(f->root_fd);
        proc_cgroup_done(&f->cgroup);
        *f = (ProcFacts){ .root_fd = -EBADF };
}

/* A gone process reads as ESRCH (through a held dirfd) or ENOENT (pid dir gone); map both to ESRCH. */
static int gone(int r)
{
        return r == -ENOENT ? -ESRCH : r;
}

static int read_identity_at(int dfd, pid_t pid, ProcIdentity *ret, ProcFacts *f)
{
        _cleanup_free_ char *stat = NULL;
        char comm[64];
        size_t size;
        int r;

        r = read_virtual_file_whole_at(dfd, "stat", 4096, &stat, &size);
        if (r < 0)
                return gone(r);
        r = proc_parse_stat(stat, size, &ret->start_time, f ? &f->ppid : NULL);
        if (r < 0)
                return r;
        ret->pid = pid;
        if (!f)
                return 0;

        r = proc_parse_stat_comm(stat, size, comm, sizeof(comm), &f->state);
        if (r < 0)
                return r;
        free(f->comm);
        f->comm = strdup(comm);
        return f->comm ? 0 : -ENOMEM;
}

static int open_pid_dir(int proc_fd, pid_t pid)
{
        char name[16];
        int fd;

        snprintf(name, sizeof(name), "%i", (int) pid);
        /* O_PATH: only ever used to open, read links and stat relative to it, and cheaper to open. */
        fd = openat(proc_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? gone(-errno) : fd;
}

int proc_identity_read(int proc_fd, pid_t pid, ProcIdentity *ret)
{
        _cleanup_close_ int dfd = -EBADF;

        dfd = open_pid_dir(proc_fd, pid);
        if (dfd < 0)
                return dfd;
        return read_identity_at(dfd, pid, ret, NULL);
}

static int read_comm(int dfd, char **ret)
{
        _cleanup_free_ char *comm = NULL;
        int r;

        r = read_virtual_file_at(dfd, "comm", 64, &comm, NULL);
        if (r < 0)
                return gone(r);
        comm[strcspn(comm, "\n")] = '\0';
        free(*ret);
        *ret = TAKE_PTR(comm);
        return 0;
}

static int read_maps(int dfd, const ProcLimits *limits, ProcFacts *f)
{
        _cleanup_free_ char *maps = NULL;
        char **dsos = NULL;
        size_t size;
        int r;

        r = read_virtual_file_at(dfd, "maps", limits->maps_max, &maps, &size);
        if (r == -EFBIG) {
                /* A huge maps file: read what the limit allows and say the list is partial. */
                f->dsos_truncated = true;
                return 0;
        }
        if (r < 0)
                return gone(r);
        r = proc_parse_maps(maps, size, limits->dsos_max, &dsos, &f->dsos_truncated);
        if (r < 0)
                return r;
        strv_free(f->dsos);
        f->dsos = dsos;
        return 0;
}

/* A cgroup path is at most PATH_MAX; v1 hierarchies add a line each. */
#define CGROUP_FILE_MAX (16u * 1024u)

static int read_cgroup(int dfd, ProcFacts *f)
{
        _cleanup_free_ char *text = NULL;
        ProcCgroup c;
        size_t size;
        int r;

        r = read_virtual_file_at(dfd, "cgroup", CGROUP_FILE_MAX, &text, &size);
        if (r == -EFBIG)
                return 0; /* not what the kernel writes: not known */
        if (r < 0)
                return gone(r);
        r = proc_cgroup_parse(text, size, &c);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0; /* cgroup v1 only, or not a path we can name: not known */
        proc_cgroup_done(&f->cgroup);
        f->cgroup = c;
        return 0;
}

/* The sandbox's /.flatpak-info, opened below the process's root as the process's own user (so a link to
 * a file that user may not read, or into /proc, is not followed for it: user-creds.h), only a regular file,
 * read from that descriptor, bounded. Anything else leaves the application as the cgroup named it. */
static int read_flatpak_info(ProcFacts *f)
{
        _cleanup_free_ char *text = NULL, *app = NULL;
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        size_t size;
        int r;

        if (!f->cgroup.path || f->root_fd < 0)
                return 0;
        fd = open_for_reading_as(&f->creds, f->root_fd, "/.flatpak-info", &st);
        if (fd == -ENOMEM)
                return fd;
        if (fd < 0 || !S_ISREG(st.st_mode))
                return 0;
        r = read_full_fd(fd, FLATPAK_INFO_MAX, &text, &size);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        r = flatpak_info_parse(text, size, &app, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        return proc_cgroup_set_flatpak_app(&f->cgroup, app);
}

int proc_facts_open(int proc_fd, pid_t pid, const ProcIdentity *expect, ProcFacts *ret, int *ret_dfd)
{
        _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
        _cleanup_close_ int dfd = -EBADF;
        int r;

        assert(ret);
        assert(ret_dfd);

        dfd = open_pid_dir(proc_fd, pid);
        if (dfd < 0)
                return dfd;

        r = read_identity_at(dfd, pid, &f.id, &f);
        if (r < 0)
                return r;
        if (expect && !proc_identity_equal(*expect, f.id))
                return -ESRCH;

        *ret = f;
        f = (ProcFacts){ .root_fd = -EBADF };
        *ret_dfd = TAKE_FD(dfd);
        return 0;
}

static int read_status(int dfd, ProcFacts *f)
{
        _cleanup_free_ char *buf = NULL;
        size_t size;
        int r;

        r = read_virtual_file_whole_at(dfd, "status", 16384, &buf, &size);
        if (r < 0)
                return gone(r);
        r = proc_parse_status_uid(buf, size, &f->uid);
        if (r < 0)
                return r;
        r = user_creds_from_proc_status(buf, &f->creds);
        return r < 0 ? -EBADMSG : 0;
}

static int read_exe(int dfd, ProcFacts *f)
{
        char exe[PATH_MAX];
        ssize_t n;

        n = readlinkat(dfd, "exe", exe, sizeof(exe) - 1);
        if (n < 0)
                /* ENOENT: kernel thread or zombie; EACCES: not permitted. Either way exe stays unknown. */
                return errno == ESRCH ? -ESRCH : 0;
        exe[n] = '\0';
        f->exe = strdup(exe);
        return f->exe ? 0 : -ENOMEM;
}

static int read_cmdline(int dfd, const ProcLimits *limits, ProcFacts *f)
{
        _cleanup_free_ char *buf = NULL;
        size_t size;
        int r;

        r = read_virtual_file_whole_at(dfd, "cmdline", limits->cmdline_max, &buf, &size);
        if (r == -EFBIG)
                return 0; /* absurdly long: treat as unknown */
        if (r < 0)
                return gone(r);
        if (size == 0)
                return 0;
        return strv_from_nulstr(buf, size, limits->argv_max, &f->argv);
}

static int read_environ(int dfd, const ProcLimits *limits, ProcFacts *f)
{
        _cleanup_free_ char *buf = NULL;
        size_t size;
        int r;

        r = read_virtual_file_whole_at(dfd, "environ", limits->environ_max, &buf, &size);
        if (r == -ESRCH)
                return r;
        if (r < 0)
                return 0;
        return proc_parse_environ(buf, size, 64, &f->env);
}

static int read_root(int dfd, ProcFacts *f)
{
        f->root_fd = openat(dfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (f->root_fd >= 0)
                return 0;
        if (errno == ESRCH || errno == ENOENT)
                return -ESRCH;
        f->root_fd = -EBADF;
        return 0;
}

int proc_facts_root_differs(int dfd, dev_t dev, ino_t ino)
{
        struct stat st;

        assert(dfd >= 0);

        if (fstatat(dfd, "root", &st, 0) < 0)
                return errno == ESRCH || errno == ENOENT ? -ESRCH : 0;
        return S_ISDIR(st.st_mode) && (st.st_dev != dev || st.st_ino != ino);
}

int proc_facts_add(int dfd, ProcFactsFlags flags, const ProcLimits *limits, ProcFacts *f)
{
        ProcFactsFlags want;
        int r;

        assert(dfd >= 0);
        assert(f);
        if (!limits)
                limits = &proc_limits_default;

        /* The sandbox's file is read with the process's credentials, below its root. */
        if (flags & PROC_FACTS_FLATPAK)
                flags |= PROC_FACTS_CGROUP | PROC_FACTS_STATUS | PROC_FACTS_ROOT;
        want = flags & ~f->have;

        /* In the order the full read always used, so that what a vanishing process leaves readable is
         * the same. */
        if (want & PROC_FACTS_STATUS) {
                r = read_status(dfd, f);
                if (r < 0)
                        return r;
        }
        if (want & PROC_FACTS_COMM) {
                r = read_comm(dfd, &f->comm);
                if (r < 0)
                        return r;
        }
        if (want & PROC_FACTS_EXE) {
                r = read_exe(dfd, f);
                if (r < 0)
                        return r;
        }
        if (want & PROC_FACTS_CMDLINE) {
                r = read_cmdline(dfd, limits, f);
                if (r < 0)
                        return r;
        }
        if (want & PROC_FACTS_ENVIRON) {
                r = read_environ(dfd, limits, f);
                if (r < 0)
                        return r;
        }
        if (want & PROC_FACTS_MAPS) {
                r = read_maps(dfd, limits, f);
                if (r == -ESRCH)
                        return r;
        }
        if (want & PROC_FACTS_ROOT) {
                r = read_root(dfd, f);
                if (r < 0)
                        return r;
        }
        if (want & PROC_FACTS_CGROUP) {
                r = read_cgroup(dfd, f);
                if (r < 0)
                        return r;
        }
        if (want & PROC_FACTS_FLATPAK) {
                r = read_flatpak_info(f);
                if (r < 0)
                        return r;
        }

        f->have |= want;
        return 0;
}

int proc_facts_read(int proc_fd, pid_t pid, const ProcIdentity *expect, ProcFactsFlags flags, const ProcLimits *limits,
                ProcFacts *ret)
{
        _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
        _cleanup_close_ int dfd = -EBADF;
        int r;

        assert(ret);

        r = proc_facts_open(proc_fd, pid, expect, &f, &dfd);
        if (r < 0)
                return r;
        r = proc_facts_add(dfd, flags | PROC_FACTS_BASIC, limits, &f);
        if (r < 0)
                return r;

        *ret = f;
        f = (ProcFacts){ .root_fd = -EBADF };
        return 0;
}

int proc_facts_refresh(int proc_fd, ProcFacts *f, const ProcLimits *limits)
{
        _cleanup_close_ int dfd = -EBADF;
        ProcIdentity id;
        int r;

        assert(f);
        if (!limits)
                limits = &proc_limits_default;

        dfd = open_pid_dir(proc_fd, f->id.pid);
        if (dfd < 0)
                return dfd;
        r = read_identity_at(dfd, f->id.pid, &id, NULL);
        if (r < 0)
                return r;
        if (!proc_identity_equal(id, f->id))
                return -ESRCH;

        r = read_comm(dfd, &f->comm);
        if (r < 0)
                return r;
        return read_maps(dfd, limits, f);
}

int proc_list_pids(int proc_fd, size_t max, pid_t **ret, size_t *ret_n)
{
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0, allocated = 0;
        struct dirent *de;
        int fd;

        assert(ret);
        assert(ret_n);

        fd = openat(proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                safe_close(fd);
                return -errno;
        }

        while ((de = readdir(d))) {
                uint32_t v;

                if (safe_atou32(de->d_name, &v) < 0 || v == 0 || v > INT32_MAX)
                        continue;
                if (n >= max)
                        return -E2BIG;
                if (GREEDY_REALLOC(pids, allocated, n + 1) < 0)
                        return -ENOMEM;
                pids[n++] = (pid_t) v;
        }

        *ret = TAKE_PTR(pids);
        *ret_n = n;
        return 0;
}
