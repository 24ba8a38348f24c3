/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

#include "drm-fdinfo.h"
#include "macro.h"

/* Per-client and per-device GPU utilisation and memory from successive fdinfo samples
 * (../shared/docs/drm-fdinfo.md §7, cases 13-22). Pure functions over parsed samples: the caller reads
 * the files, takes a timestamp per read, and hands each round's reads to drm_usage_update().
 *
 * - Clients are keyed by (device, drm-client-id): one drm_file held by several fds or processes (dup,
 *   fork, SCM_RIGHTS, logind) is one client listing all its holders. The device is drm-pdev when the
 *   fdinfo has it, else the caller's DrmUsageRead.device (e.g. the PCI slot or platform name libdrm
 *   gives for st_rdev, or "226:128"); pre-6.5 per-device ids on two devices stay two clients. A file
 *   without drm-client-id cannot be matched with other fds: it is a client of its own, keyed by
 *   (device, pid, fd).
 * - Utilisation is computed from deltas over each counter's own measured interval (the timestamps of
 *   this client's reads, not a nominal period): engine time Δns / (Δt · capacity); cycles over total
 *   cycles (xe) Δcycles / (Δtotal · capacity), 0 when Δtotal is 0; and, where drm-maxfreq is given,
 *   the frequency-normalised Δcycles / (maxfreq · Δt · capacity).
 * - A counter that goes backwards gives 0 for that interval and keeps its previous, larger value and
 *   that value's time as the baseline until the counter catches up, as the spec says: no double
 *   counting and no unsigned wrap. cycles and total-cycles are held together, so their ratio always
 *   spans one interval.
 * - A client's first sample, and an engine's first appearance in a known client, give no utilisation
 *   (an engine missing so far may have been fused off, or profiling off: its counter's origin is
 *   unknown). A client absent from a round is dropped with its baselines.
 * - An engine or region absent from one sample (xe without forcewake, amdgpu printing only busy
 *   engines), or an engine whose counters are (panfrost with profiling off), keeps its baselines and
 *   its previous figures, marked stale; it is never reset.
 * - Figures above 100 % are cut to 100 and counted (per engine, per client, per device, in total).
 * - Memory stays per region and per stat (total, shared, resident, purgeable, active), never summed
 *   across stats. Device totals add the distinct clients' values: memory shared between clients is
 *   counted in each (the shared stat says how much). */

#define DRM_USAGE_CLIENTS_MAX 4096u
/* Each user's share of them (the clients of the processes of one uid, each client counted for the uid of
 * the read that found it): one user opening render nodes without end leaves the others three quarters. */
#define DRM_USAGE_CLIENTS_PER_USER_MAX (DRM_USAGE_CLIENTS_MAX / 4u)
#define DRM_USAGE_HOLDERS_MAX 64u

typedef struct DrmUsageRead {
        const DrmFdinfo *fdinfo; /* reads whose kind is not DRM_FDINFO_USAGE are skipped */
        const char *device; /* the device when the fdinfo has no drm-pdev; NULL is "" */
        pid_t pid;
        uid_t uid; /* the process's owner, whose share a client it finds counts in */
        int fd;
        uint64_t timestamp_usec; /* CLOCK_MONOTONIC when this file was read */
} DrmUsageRead;

typedef struct DrmUsageCounter {
        uint64_t value; /* the baseline: the largest value seen */
        uint64_t usec; /* when the baseline was read */
        bool set;
} DrmUsageCounter;

typedef struct DrmUsageEngine {
        char name[DRM_FDINFO_NAME_MAX + 1];
        uint64_t capacity;
        DrmUsageCounter busy_ns;
        DrmUsageCounter cycles;
        DrmUsageCounter total_cycles;
        uint64_t maxfreq_hz;
        bool has_maxfreq;

        /* Over the latest interval, in percent of the engine class (capacity accounted for). */
        double engine_percent; /* from drm-engine-<e> */
        double cycles_percent; /* from drm-cycles-<e> / drm-total-cycles-<e> */
        double freq_percent; /* from drm-cycles-<e> / (drm-maxfreq-<e> · Δt) */
        bool has_engine_percent;
        bool has_cycles_percent;
        bool has_freq_percent;
        bool stale; /* no counter in the latest sample: the figures are from an earlier one */

        unsigned n_backwards; /* samples in which a counter went backwards */
        unsigned n_clamped; /* figures above 100 % cut to 100 */
} DrmUsageEngine;

typedef struct DrmUsageRegion {
        char name[DRM_FDINFO_NAME_MAX + 1];
        uint64_t bytes[_DRM_FDINFO_MEM_MAX];
        bool has[_DRM_FDINFO_MEM_MAX];
        bool stale; /* absent from the latest sample: the values are from an earlier one */
} DrmUsageRegion;

typedef struct DrmUsageHolder {
        pid_t pid;
        int fd;
} DrmUsageHolder;

typedef struct DrmUsageClient {
        char *device;
        uint64_t client_id;
        bool has_client_id;
        pid_t key_pid; /* the key of a client without drm-client-id */
        int key_fd;
        uid_t uid; /* whose share it counts in (DRM_USAGE_CLIENTS_PER_USER_MAX) */

        char driver[DRM_FDINFO_DRIVER_MAX + 1];
        char client_name[DRM_FDINFO_CLIENT_NAME_MAX + 1];
        bool has_client_name;

        DrmUsageHolder *holders; /* of the latest round, sorted by pid and fd */
        size_t n_holders;
        unsigned n_holders_dropped;

        uint64_t timestamp_usec; /* of the latest sample used */
        uint64_t interval_usec; /* between the latest two samples; 0 after the first */
        unsigned n_samples;

        DrmUsageEngine *engines;
        size_t n_engines;
        unsigned n_engines_dropped;
        DrmUsageRegion *regions;
        size_t n_regions;
        unsigned n_regions_dropped;
        unsigned n_clamped; /* over all engines, since the client appeared */
} DrmUsageClient;

typedef struct DrmUsageDeviceEngine {
        char name[DRM_FDINFO_NAME_MAX + 1];
        double busy_percent; /* sum over clients of their busy figure (drm_usage_engine_busy()) */
        double freq_percent; /* sum over clients of their frequency-normalised figure */
        bool has_busy_percent;
        bool has_freq_percent;
        size_t n_clients; /* clients that have this engine */
} DrmUsageDeviceEngine;

typedef struct DrmUsageDeviceRegion {
        char name[DRM_FDINFO_NAME_MAX + 1];
        uint64_t bytes[_DRM_FDINFO_MEM_MAX]; /* sums, saturating */
        bool has[_DRM_FDINFO_MEM_MAX];
} DrmUsageDeviceRegion;

typedef struct DrmUsageDevice {
        char *device;
        char driver[DRM_FDINFO_DRIVER_MAX + 1]; /* of its first client */
        size_t n_clients;
        DrmUsageDeviceEngine *engines;
        size_t n_engines;
        DrmUsageDeviceRegion *regions;
        size_t n_regions;
        unsigned n_clamped; /* engine sums cut to 100 % in the latest round */
} DrmUsageDevice;

typedef struct DrmUsage {
        DrmUsageClient *clients; /* sorted by device, then client id */
        size_t n_clients;
        DrmUsageDevice *devices; /* sorted by device; recomputed by every update */
        size_t n_devices;

        uint64_t n_clamped; /* every figure cut to 100 %, clients and devices, since drm_usage_new() */
        unsigned n_updates;
        /* Of the latest update: */
        unsigned n_reads_skipped; /* not DRM usage, or a timestamp not after the client's last */
        unsigned n_clients_dropped; /* beyond DRM_USAGE_CLIENTS_MAX or their user's share */
} DrmUsage;

DrmUsage *drm_usage_new(void);
DrmUsage *drm_usage_free(DrmUsage *u);
DEFINE_TRIVIAL_CLEANUP_FUNC(DrmUsage *, drm_usage_free);

/* One sampling round: every read of this round (several may show the same client; the latest read of
 * each client is its sample). Clients not among the reads are dropped. The reads are only borrowed.
 * Returns 0 or -ENOMEM; after -ENOMEM the clients updated so far keep their new sample, none is dropped,
 * and the device totals may be incomplete until the next update. */
int drm_usage_update(DrmUsage *u, const DrmUsageRead *reads, size_t n_reads);

/* The engine's busy figure for the latest interval: engine time where the driver gives it, else
 * cycles over total cycles. False when there is none. */
bool drm_usage_engine_busy(const DrmUsageEngine *e, double *ret_percent);

const DrmUsageClient *drm_usage_find_client(const DrmUsage *u, const char *device, uint64_t client_id);
const DrmUsageDevice *drm_usage_find_device(const DrmUsage *u, const char *device);
const DrmUsageEngine *drm_usage_client_find_engine(const DrmUsageClient *c, const char *name);
const DrmUsageRegion *drm_usage_client_find_region(const DrmUsageClient *c, const char *name);
const DrmUsageDeviceEngine *drm_usage_device_find_engine(const DrmUsageDevice *d, const char *name);
const DrmUsageDeviceRegion *drm_usage_device_find_region(const DrmUsageDevice *d, const char *name);
