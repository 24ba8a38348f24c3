/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "drm-sampler.h"
#include "fd-util.h"
#include "string-util.h"

#define FDS_PER_PROCESS_MAX 65536u
#define DRM_FDS_PER_PROCESS_MAX 256u
#define DEVICES_MAX 64u
#define HOLDERS_MAX 16384u
#define FDINFO_SIZE_MAX (1024u * 1024u)

struct DrmSampler {
        int proc_fd;
        int sys_fd;
        DrmSamplerConfig config;
        bool pread_fresh;

        IntMap holders; /* pid -> DrmSamplerHolder */
        IntMap counts; /* pid -> open-file count + 1 of walked processes without DRM fds */

        DrmSamplerDevice **devices; /* each allocated on its own: reads point at their keys */
        size_t n_devices;

        unsigned n_open; /* fdinfo files kept open */
        char *buf;
        size_t buf_size;
        DrmSamplerStats stats;
};

static void fd_close(DrmSampler *s, DrmSamplerFd *f)
{
        if (f->info_fd >= 0) {
                f->info_fd = safe_close(f->info_fd);
                s->n_open--;
        }
        f->last = drm_fdinfo_free(f->last);
}

static void holder_close_fds(DrmSampler *s, DrmSamplerHolder *h)
{
        for (size_t i = 0; i < h->n_fds; i++)
                fd_close(s, &h->fds[i]);
}

static void holder_free(DrmSampler *s, DrmSamplerHolder *h)
{
        if (!h)
                return;
        holder_close_fds(s, h);
        free(h->fds);
        free(h);
}

DrmSampler *drm_sampler_free(DrmSampler *s)
{
        DrmSamplerHolder *h;

        if (!s)
                return NULL;
        for (size_t i = 0; intmap_next(&s->holders, &i, NULL, (void **) &h);)
                holder_free(s, h);
        intmap_done(&s->holders);
        intmap_done(&s->counts);
        for (size_t i = 0; i < s->n_devices; i++)
                free(s->devices[i]);
        free(s->devices);
        free(s->buf);
        safe_close(s->proc_fd);
        safe_close(s->sys_fd);
        return mfree(s);
}

int drm_fdinfo_pread_is_fresh(void)
{
        _cleanup_close_ int mfd = -EBADF, info = -EBADF;
        char path[64], a[512], b[512];
        ssize_t ka, kb;

        /* The fdinfo of a file of our own shows its position ("pos:"): move it between two preads. */
        mfd = memfd_create("nvprofiled-pread-probe", MFD_CLOEXEC);
        if (mfd < 0)
                return -errno;
        if (ftruncate(mfd, 4096) < 0)
                return -errno;
        snprintf(path, sizeof(path), "/proc/self/fdinfo/%i", mfd);
        info = open(path, O_RDONLY | O_CLOEXEC);
        if (info < 0)
                return -errno;
        ka = pread(info, a, sizeof(a) - 1, 0);
        if (ka < 0)
                return -errno;
        a[ka] = '\0';
        if (lseek(mfd, 1234, SEEK_SET) < 0)
                return -errno;
        kb = pread(info, b, sizeof(b) - 1, 0);
        if (kb < 0)
                return -errno;
        b[kb] = '\0';
        if (!startswith(a, "pos:") || !startswith(b, "pos:"))
                return -EBADMSG;
        return strtoull(a + 4, NULL, 10) == 0 && strtoull(b + 4, NULL, 10) == 1234;
}

int drm_sampler_new(int proc_fd, int sys_fd, const DrmSamplerConfig *c, DrmSampler **ret)
{
        _cleanup_(drm_sampler_freep) DrmSampler *s = NULL;

        assert(c);
        assert(ret);

        s = calloc(1, sizeof(DrmSampler));
        if (!s)
                return -ENOMEM;
        s->proc_fd = s->sys_fd = -EBADF;
        s->config = *c;
        s->proc_fd = fcntl(proc_fd, F_DUPFD_CLOEXEC, 3);
        if (s->proc_fd < 0)
                return -errno;
        s->sys_fd = fcntl(sys_fd, F_DUPFD_CLOEXEC, 3);
        if (s->sys_fd < 0)
                return -errno;
        s->pread_fresh = c->keep_open;
        s->buf_size = 4096;
        s->buf = malloc(s->buf_size);
        if (!s->buf)
                return -ENOMEM;
        *ret = TAKE_PTR(s);
        return 0;
}

static uint64_t now_usec(const DrmSampler *s)
{
        struct timespec ts;

        if (s->config.clock)
                return s->config.clock(s->config.clock_userdata);
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

static uint64_t fd_count(const DrmSampler *s, pid_t pid)
{
        char path[32];
        struct stat st;

        snprintf(path, sizeof(path), "%i/fd", (int) pid);
        return fstatat(s->proc_fd, path, &st, 0) < 0 || st.st_size <= 0 ? 0 : (uint64_t) st.st_size;
}

static int cmp_fd(const void *a, const void *b)
{
        const DrmSamplerFd *x = a, *y = b;
        return (x->fd > y->fd) - (x->fd < y->fd);
}

/* The DRM fds of pid, by the char major of what each fd refers to. */
static int walk_fds(DrmSampler *s, pid_t pid, DrmSamplerFd **ret, size_t *ret_n)
{
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_free_ DrmSamplerFd *fds = NULL;
        size_t n = 0, allocated = 0;
        unsigned seen = 0;
        struct dirent *de;
        char path[32];
        int dfd;

        snprintf(path, sizeof(path), "%i/fd", (int) pid);
        dfd = openat(s->proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return errno == ENOENT ? -ESRCH : -errno;
        d = fdopendir(dfd);
        if (!d) {
                safe_close(dfd);
                return -errno;
        }
        s->stats.n_walks++;
        while ((de = readdir(d)) && seen++ < FDS_PER_PROCESS_MAX) {
                struct stat st;
                DrmNodeType type;
                int32_t fd;
                char *end;
                long v;

                if (de->d_name[0] < '0' || de->d_name[0] > '9')
                        continue;
                v = strtol(de->d_name, &end, 10);
                if (*end != '\0' || v < 0 || v > INT32_MAX)
                        continue;
                fd = (int32_t) v;
                /* Follows the magic link: the device number of what the fd refers to, whatever its path. */
                if (fstatat(dirfd(d), de->d_name, &st, 0) < 0)
                        continue;
                type = drm_node_type(&st, s->config.drm_major, s->config.accel_major);
                if (type == DRM_NODE_NONE || n >= DRM_FDS_PER_PROCESS_MAX)
                        continue;
                if (n == allocated) {
                        size_t k = MAX(allocated * 2, (size_t) 4);
                        DrmSamplerFd *x = reallocarray(fds, k, sizeof(DrmSamplerFd));
                        if (!x)
                                return -ENOMEM;
                        fds = x;
                        allocated = k;
                }
                fds[n++] = (DrmSamplerFd){ .fd = fd, .rdev = st.st_rdev, .type = type, .info_fd = -EBADF };
        }
        qsort_safe(fds, n, sizeof(DrmSamplerFd), cmp_fd);
        *ret = TAKE_PTR(fds);
        *ret_n = n;
        return 0;
}

void drm_sampler_drop_pid(DrmSampler *s, pid_t pid)
{
        holder_free(s, intmap_remove(&s->holders, (uint64_t) pid));
        (void) intmap_remove(&s->counts, (uint64_t) pid);
}

/* Keeps the open fdinfo files of fds that are still there. */
static void carry_open_files(DrmSampler *s, DrmSamplerHolder *old, DrmSamplerFd *fds, size_t n)
{
        for (size_t i = 0; i < old->n_fds; i++) {
                DrmSamplerFd *o = &old->fds[i];
                DrmSamplerFd *f = o->info_fd >= 0 || o->last ? bsearch(o, fds, n, sizeof(DrmSamplerFd), cmp_fd) : NULL;

                if (f && f->rdev == o->rdev) {
                        f->info_fd = o->info_fd;
                        o->info_fd = -EBADF;
                        f->last = TAKE_PTR(o->last);
                }
        }
        holder_close_fds(s, old);
}

int drm_sampler_check_pid(DrmSampler *s, pid_t pid, bool force)
{
        _cleanup_free_ DrmSamplerFd *fds = NULL;
        DrmSamplerHolder *h = intmap_get(&s->holders, (uint64_t) pid);
        uint64_t count = fd_count(s, pid);
        uintptr_t known = (uintptr_t) intmap_get(&s->counts, (uint64_t) pid);
        size_t n = 0;
        int r;

        assert(pid > 0);

        /* Unchanged number of open files: nothing opened or closed since the last walk (Linux >= 6.2;
         * older kernels report 0 and every check walks). */
        if (!force && count > 0) {
                if (h && h->fd_count == count)
                        return 1;
                if (!h && known == count + 1)
                        return 0;
        }

        r = walk_fds(s, pid, &fds, &n);
        if (r < 0) {
                if (r == -ESRCH)
                        drm_sampler_drop_pid(s, pid);
                else if (h)
                        h->unreadable = true;
                return r;
        }
        if (n == 0) {
                holder_free(s, intmap_remove(&s->holders, (uint64_t) pid));
                if (count > 0 && intmap_put(&s->counts, (uint64_t) pid, (void *) (uintptr_t) (count + 1)) < 0)
                        return -ENOMEM;
                return 0;
        }
        (void) intmap_remove(&s->counts, (uint64_t) pid);
        if (!h) {
                if (intmap_size(&s->holders) >= HOLDERS_MAX)
                        return -E2BIG;
                h = calloc(1, sizeof(DrmSamplerHolder));
                if (!h)
                        return -ENOMEM;
                h->pid = pid;
                h->uid = (uid_t) -1; /* not known yet: its clients count in no user's share but this one */
                r = intmap_put(&s->holders, (uint64_t) pid, h);
                if (r < 0) {
                        free(h);
                        return r;
                }
        } else
                carry_open_files(s, h, fds, n);
        free(h->fds);
        h->fds = TAKE_PTR(fds);
        h->n_fds = n;
        h->fd_count = count;
        h->unreadable = false;
        return 1;
}

void drm_sampler_set_identity(DrmSampler *s, pid_t pid, uint64_t start_time, uid_t uid)
{
        DrmSamplerHolder *h = intmap_get(&s->holders, (uint64_t) pid);

        if (!h)
                return;
        h->start_time = start_time;
        h->uid = uid;
}

int drm_sampler_sweep(DrmSampler *s, const pid_t *pids, size_t n_pids, bool force)
{
        _cleanup_free_ pid_t *gone = NULL;
        _cleanup_(intmap_done) IntMap seen = { 0 };
        size_t n_gone = 0;
        uint64_t k;
        int r;

        for (size_t i = 0; i < n_pids; i++) {
                r = intmap_put(&seen, (uint64_t) pids[i], (void *) 1);
                if (r < 0)
                        return r;
                if (drm_sampler_check_pid(s, pids[i], force) == -ENOMEM)
                        return -ENOMEM;
        }

        /* What is no longer in /proc has exited (its EXIT may not have reached us). */
        gone = calloc(intmap_size(&s->holders) + intmap_size(&s->counts) + 1, sizeof(pid_t));
        if (!gone)
                return -ENOMEM;
        for (size_t i = 0; intmap_next(&s->holders, &i, &k, NULL);)
                if (!intmap_get(&seen, k))
                        gone[n_gone++] = (pid_t) k;
        for (size_t i = 0; intmap_next(&s->counts, &i, &k, NULL);)
                if (!intmap_get(&seen, k))
                        gone[n_gone++] = (pid_t) k;
        for (size_t i = 0; i < n_gone; i++)
                drm_sampler_drop_pid(s, gone[i]);
        return (int) intmap_size(&s->holders);
}

static DrmSamplerDevice *device_for(DrmSampler *s, dev_t rdev)
{
        DrmSamplerDevice **x, *d;
        DrmDeviceInfo info;

        /* Nodes of a device differ in rdev (card0, renderD128): each rdev resolves once. */
        for (size_t i = 0; i < s->n_devices; i++)
                if (s->devices[i]->info.rdev == rdev)
                        return s->devices[i];
        if (s->n_devices >= DEVICES_MAX || drm_device_resolve(s->sys_fd, rdev, s->config.use_libdrm, &info) < 0)
                return NULL;
        x = reallocarray(s->devices, s->n_devices + 1, sizeof(DrmSamplerDevice *));
        if (!x)
                return NULL;
        s->devices = x;
        d = calloc(1, sizeof(DrmSamplerDevice));
        if (!d)
                return NULL;
        d->info = info;
        s->devices[s->n_devices++] = d;
        return d;
}

/* Reads a whole fdinfo file into s->buf, from a kept-open file with pread() at offset 0, or freshly
 * opened. Returns the size, -ENOENT/-ESRCH when the fd or process is gone, -EACCES. */
static ssize_t read_fdinfo(DrmSampler *s, pid_t pid, DrmSamplerFd *f)
{
        _cleanup_close_ int opened = -EBADF;
        size_t size = 0;
        int fd = f->info_fd;

        if (fd < 0) {
                char path[48];

                snprintf(path, sizeof(path), "%i/fdinfo/%i", (int) pid, f->fd);
                opened = openat(s->proc_fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
                if (opened < 0)
                        return -errno;
                fd = opened;
                s->stats.n_reopens++;
        }
        for (;;) {
                size_t want = s->buf_size - size;
                ssize_t k = pread(fd, s->buf + size, want, (off_t) size);
                if (k < 0)
                        return -errno;
                size += (size_t) k;
                /* A short read is the end: fdinfo is one seq_file record, which the kernel hands over
                 * whole as far as the buffer goes (and so does a regular file of a fixture). Not asking
                 * again for the 0 of the end halves the system calls per client. */
                if ((size_t) k < want)
                        break;
                if (size == s->buf_size) {
                        char *x;
                        if (s->buf_size >= FDINFO_SIZE_MAX)
                                break;
                        x = realloc(s->buf, s->buf_size * 2);
                        if (!x)
                                return -ENOMEM;
                        s->buf = x;
                        s->buf_size *= 2;
                }
        }
        if (opened >= 0 && s->pread_fresh && s->n_open < s->config.open_files_max) {
                f->info_fd = TAKE_FD(opened);
                s->n_open++;
        }
        return (ssize_t) size;
}

typedef struct SampleRound {
        DrmUsageRead *reads;
        size_t n, allocated;
} SampleRound;

static void sample_round_done(SampleRound *r)
{
        free(r->reads);
}

/* f stays the fd's (DrmSamplerFd.last). */
static int sample_round_add(SampleRound *r, const DrmFdinfo *f, const DrmUsageRead *read)
{
        if (r->n == r->allocated) {
                size_t k = MAX(r->allocated * 2, (size_t) 16);
                DrmUsageRead *x = reallocarray(r->reads, k, sizeof(DrmUsageRead));
                if (!x)
                        return -ENOMEM;
                r->reads = x;
                r->allocated = k;
        }
        r->reads[r->n] = *read;
        r->reads[r->n].fdinfo = f;
        r->n++;
        return 0;
}

static void forget_fd(DrmSampler *s, DrmSamplerHolder *h, size_t i)
{
        fd_close(s, &h->fds[i]);
        memmove(h->fds + i, h->fds + i + 1, (h->n_fds - i - 1) * sizeof(DrmSamplerFd));
        h->n_fds--;
        h->fd_count = 0; /* walk it again at the next check */
}

int drm_sampler_sample(DrmSampler *s, DrmUsage *u)
{
        _cleanup_(sample_round_done) SampleRound round = { 0 };
        _cleanup_free_ pid_t *empty = NULL;
        size_t n_empty = 0;
        DrmSamplerHolder *h;
        int r;

        s->stats.n_read = s->stats.n_unreadable = s->stats.n_suspended = 0;
        for (size_t i = 0; i < s->n_devices; i++) {
                s->devices[i]->n_fds = 0;
                s->devices[i]->power_checked = false;
                s->devices[i]->power_changed = false;
        }

        empty = calloc(intmap_size(&s->holders) + 1, sizeof(pid_t));
        if (!empty)
                return -ENOMEM;

        for (size_t i = 0; intmap_next(&s->holders, &i, NULL, (void **) &h);) {
                h->unreadable = false;
                for (size_t k = 0; k < h->n_fds;) {
                        DrmSamplerFd *f = &h->fds[k];
                        DrmSamplerDevice *d = device_for(s, f->rdev);
                        ssize_t size;

                        /* Once per device and sample, before any of its files is read. */
                        if (d && !d->power_checked) {
                                DrmPowerState now = drm_device_power_state(s->sys_fd, f->rdev);

                                d->power_changed = now != d->power || d->n_samples == 0;
                                d->power = now;
                                d->power_checked = true;
                                d->n_samples++;
                        }
                        if (d && d->power == DRM_POWER_SUSPENDED) {
                                /* Reading it could wake it (xe takes a runtime PM reference). */
                                s->stats.n_suspended++;
                                k++;
                                continue;
                        }
                        size = read_fdinfo(s, h->pid, f);
                        if (size == -ENOMEM)
                                return -ENOMEM;
                        if (size == -ENOENT || size == -ESRCH) {
                                forget_fd(s, h, k);
                                continue;
                        }
                        if (size < 0) {
                                s->stats.n_unreadable++;
                                h->unreadable = true;
                                k++;
                                continue;
                        }
                        /* Its lines as last time: only the numbers are read. */
                        if (f->last && drm_fdinfo_reparse(f->last, s->buf, (size_t) size) > 0)
                                s->stats.n_reparsed++;
                        else {
                                DrmFdinfo *parsed = NULL;

                                f->last = drm_fdinfo_free(f->last);
                                r = drm_fdinfo_parse(s->buf, (size_t) size,
                                                DRM_FDINFO_PARSE_NO_EXTRAS | DRM_FDINFO_PARSE_KEEP_LAYOUT, &parsed);
                                if (r < 0)
                                        return r;
                                if (parsed->kind == DRM_FDINFO_NOT_DRM) {
                                        /* The fd number now refers to another file. */
                                        drm_fdinfo_free(parsed);
                                        forget_fd(s, h, k);
                                        continue;
                                }
                                f->last = parsed;
                        }
                        s->stats.n_read++;
                        if (d)
                                d->n_fds++;
                        r = sample_round_add(&round, f->last,
                                        &(DrmUsageRead){
                                                        .device = d ? d->info.key : NULL,
                                                        .pid = h->pid,
                                                        .uid = h->uid,
                                                        .fd = f->fd,
                                                        .timestamp_usec = now_usec(s),
                                        });
                        if (r < 0)
                                return r;
                        k++;
                }
                if (h->n_fds == 0)
                        empty[n_empty++] = h->pid;
        }
        for (size_t i = 0; i < n_empty; i++)
                drm_sampler_drop_pid(s, empty[i]);

        return drm_usage_update(u, round.reads, round.n);
}

const DrmSamplerHolder *drm_sampler_holder(const DrmSampler *s, pid_t pid)
{
        return intmap_get(&s->holders, (uint64_t) pid);
}

size_t drm_sampler_n_holders(const DrmSampler *s)
{
        return intmap_size(&s->holders);
}

bool drm_sampler_next_holder(const DrmSampler *s, size_t *i, const DrmSamplerHolder **ret)
{
        void *v;

        if (!intmap_next(&s->holders, i, NULL, &v))
                return false;
        *ret = v;
        return true;
}

size_t drm_sampler_n_devices(const DrmSampler *s)
{
        return s->n_devices;
}

const DrmSamplerDevice *drm_sampler_device(const DrmSampler *s, size_t i)
{
        assert(i < s->n_devices);
        return s->devices[i];
}

const DrmSamplerDevice *drm_sampler_find_device(const DrmSampler *s, const char *key)
{
        for (size_t i = 0; i < s->n_devices; i++)
                if (streq(s->devices[i]->info.key, key))
                        return s->devices[i];
        return NULL;
}

const DrmSamplerStats *drm_sampler_stats(const DrmSampler *s)
{
        return &s->stats;
}
