/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "drm-device.h"
#include "drm-usage.h"
#include "intmap.h"

/* Which processes hold DRM and accel fds, and the fast re-reading of their fdinfo
 * (../shared/docs/drm-fdinfo.md §8: a slow, event-driven index and a fast tier over known files only).
 *
 * The index: a process's fd table is walked (one stat() per fd, following the /proc/<pid>/fd link, to
 * test the char major; never a path) only when it is new to us or when its number of open files, the
 * size of /proc/<pid>/fd on Linux >= 6.2, changed since it was last walked; a full sweep (force) walks
 * every table. Processes without DRM fds cost one stat() per sweep.
 *
 * The fast tier: each known fd's /proc/<pid>/fdinfo/<fd> is kept open and re-read with pread() at offset
 * 0 when that returns fresh values (drm_fdinfo_pread_is_fresh(), probed once on the live /proc), else
 * opened for each read. Its parse is handed to drm_usage_update() with its own timestamp. A device whose
 * power/runtime_status says suspended is not read at all (reading xe fdinfo wakes the GPU). No domain
 * knowledge of the manager: pids, fds, device numbers. */

typedef struct DrmSamplerConfig {
        unsigned drm_major, accel_major;
        unsigned open_files_max; /* fdinfo files kept open; 0: reopen every time */
        /* Keep fdinfo files open between samples and re-read them with pread() at offset 0. Only where
         * that is fresh: the live /proc when drm_fdinfo_pread_is_fresh() says so (a fixture tree's files
         * are replaced by rename, which an open file would not see). */
        bool keep_open;
        bool use_libdrm; /* sys_fd is the live /sys */
        /* The clock for each read's timestamp (CLOCK_MONOTONIC µs); NULL: clock_gettime(). */
        uint64_t (*clock)(void *userdata);
        void *clock_userdata;
} DrmSamplerConfig;

typedef struct DrmSamplerFd {
        int fd;
        dev_t rdev;
        DrmNodeType type;
        int info_fd; /* /proc/<pid>/fdinfo/<fd> kept open, or -1 */
        DrmFdinfo *last; /* its latest parse, with its layout: the next one reads only the numbers */
} DrmSamplerFd;

typedef struct DrmSamplerHolder {
        pid_t pid;
        uint64_t start_time; /* set by the caller (drm_sampler_set_identity()); 0 unknown */
        uid_t uid; /* (uid_t) -1 until set */
        uint64_t fd_count; /* open files when last walked; 0 unknown */
        DrmSamplerFd *fds;
        size_t n_fds;
        bool unreadable; /* its fd table or an fdinfo could not be read (EACCES): partial coverage */
} DrmSamplerHolder;

/* One per device node number seen (card0 and renderD128 of one GPU are two, with one key). */
typedef struct DrmSamplerDevice {
        DrmDeviceInfo info;
        DrmPowerState power; /* as of the latest sample */
        bool power_checked;
        bool power_changed; /* the latest sample found another state than the one before (or the first) */
        size_t n_fds; /* fds of this node read in the latest sample */
        unsigned n_samples; /* samples that looked at its power state */
} DrmSamplerDevice;

typedef struct DrmSampler DrmSampler;

int drm_sampler_new(int proc_fd, int sys_fd, const DrmSamplerConfig *c, DrmSampler **ret);
DrmSampler *drm_sampler_free(DrmSampler *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(DrmSampler *, drm_sampler_free);

/* Walks pid's fd table when it is new or its open-file count changed (or force). Returns 1 when it now
 * holds DRM fds, 0 when not (it is then not in the index), -ESRCH when gone, -EACCES when its fds cannot
 * be listed. */
int drm_sampler_check_pid(DrmSampler *s, pid_t pid, bool force);
/* Checks every process of pids, the whole of /proc (force: walks every fd table); drops what is not
 * among them (exited). Returns the number of holders. */
int drm_sampler_sweep(DrmSampler *s, const pid_t *pids, size_t n_pids, bool force);
void drm_sampler_drop_pid(DrmSampler *s, pid_t pid);
void drm_sampler_set_identity(DrmSampler *s, pid_t pid, uint64_t start_time, uid_t uid);

/* Reads every known fdinfo once and updates u. Holders whose files are gone are dropped, fds that no
 * longer show DRM usage are forgotten (and their process walked again next sweep). */
int drm_sampler_sample(DrmSampler *s, DrmUsage *u);

const DrmSamplerHolder *drm_sampler_holder(const DrmSampler *s, pid_t pid);
size_t drm_sampler_n_holders(const DrmSampler *s);
/* Iteration over holders, as intmap_next(). */
bool drm_sampler_next_holder(const DrmSampler *s, size_t *i, const DrmSamplerHolder **ret);
size_t drm_sampler_n_devices(const DrmSampler *s);
const DrmSamplerDevice *drm_sampler_device(const DrmSampler *s, size_t i);
const DrmSamplerDevice *drm_sampler_find_device(const DrmSampler *s, const char *key);

/* Of the latest sample: fds read, fds that could not be read, fds skipped on suspended devices. */
typedef struct DrmSamplerStats {
        unsigned n_read, n_unreadable, n_suspended;
        uint64_t n_walks; /* fd tables walked since creation */
        uint64_t n_reopens; /* fdinfo files opened for a read (not kept open) */
        uint64_t n_reparsed; /* reads whose lines were as last time: only their numbers parsed */
} DrmSamplerStats;
const DrmSamplerStats *drm_sampler_stats(const DrmSampler *s);

/* Whether pread() at offset 0 of an open /proc/<pid>/fdinfo/<fd> file returns the values of now rather
 * than those of the first read, probed on this kernel with an fd of our own whose position we move. */
int drm_fdinfo_pread_is_fresh(void);
