/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "drm-usage.h"
#include "gpu-sensor.h"
#include "manager.h"
#include "nvml.h"
#include "proc-cgroup.h"

/* GPU usage: DRM and accel fdinfo (daemon/drm) and NVIDIA's NVML (daemon/nvml), merged into one model of
 * devices, clients and processes, each naming its source. The bus serves it (Usage and ProcessUsage
 * interfaces), the exporter writes it out.
 *
 * Two tiers (../shared/docs/drm-fdinfo.md §8): an event-driven index of which processes hold DRM fds
 * (GPU node opens, execs of a holder's children, exits, and a slow full sweep for what those miss), and
 * a sampler that re-reads only the indexed fdinfo files. Sampling runs at the watch interval while
 * somebody holds a watch (a D-Bus WatchUsage descriptor, the exporter), at UsageIdleInterval= otherwise
 * (default 0: not at all). */

#define USAGE_SOURCE_DRM "drm-fdinfo"
#define USAGE_SOURCE_NVML NVML_SOURCE_NAME

/* Memory figures: the DRM stats, and the device's memory size (NVML). */
#define USAGE_MEM_SIZE ((unsigned) _DRM_FDINFO_MEM_MAX)
#define USAGE_MEM_MAX (USAGE_MEM_SIZE + 1)

/* -1: not known. */
#define USAGE_PERCENT_UNKNOWN (-1.0)

typedef struct UsageRegion {
        char *name;
        uint64_t bytes[USAGE_MEM_MAX];
        bool has[USAGE_MEM_MAX];
} UsageRegion;

typedef struct UsageClientEngine {
        char *name;
        uint64_t capacity;
        double busy_percent, freq_percent; /* USAGE_PERCENT_UNKNOWN when not known */
        uint64_t busy_ns, cycles, total_cycles; /* cumulative, as printed; 0 when absent */
        bool stale;
} UsageClientEngine;

typedef struct UsageHolder {
        pid_t pid;
        uint64_t start_time;
        uid_t uid;
        int fd; /* -1 for NVML */
} UsageHolder;

typedef struct UsageClient {
        char *device;
        const char *source; /* USAGE_SOURCE_* */
        uint64_t id;
        char *driver;
        char *name;
        UsageHolder *holders;
        size_t n_holders;
        uint64_t interval_usec;
        UsageClientEngine *engines;
        size_t n_engines;
        UsageRegion *regions;
        size_t n_regions;
        uint64_t n_clamped;
} UsageClient;

typedef struct UsageDeviceEngine {
        char *name;
        double busy_percent, freq_percent; /* USAGE_PERCENT_UNKNOWN when not known */
        uint32_t n_clients;
} UsageDeviceEngine;

typedef struct UsageDevice {
        char *device;
        const char *source;
        char *driver;
        char *pci_slot; /* "" when not PCI */
        char *name; /* NVML's product name, the PCI ID database's for DRM devices; "" when not known */
        uint32_t vendor_id, device_id;
        char **nodes;
        const char *state; /* "active", "suspended", "unknown" */
        uint32_t n_clients;
        UsageDeviceEngine *engines;
        size_t n_engines;
        UsageRegion *regions;
        size_t n_regions;
        uint64_t n_clamped;
        /* Its sensors as of this sample (daemon/drm/drm-hwmon.h, NVML); none while it is suspended. */
        GpuSensorReading *sensors;
        size_t n_sensors;
} UsageDevice;

typedef struct UsageProcessClient {
        const char *device; /* borrowed from the snapshot's client */
        const char *source;
        uint64_t id;
} UsageProcessClient;

typedef struct UsageProcessEngine {
        const char *device, *source, *engine; /* borrowed */
        double busy_percent; /* sum over the process's clients; USAGE_PERCENT_UNKNOWN when none knows */
} UsageProcessEngine;

typedef struct UsageProcessMemory {
        const char *device, *source, *region; /* borrowed */
        uint64_t bytes; /* resident (total where there is no resident figure), summed, saturating */
} UsageProcessMemory;

/* A process holding at least one client; a client held by several processes counts in each. */
typedef struct UsageProcess {
        pid_t pid;
        uint64_t start_time;
        uid_t uid;
        ProcCgroup cgroup; /* from /proc/<pid>/cgroup once per process; fields NULL when not known */
        bool cgroup_read; /* it was looked at (known or not): not again while the process lives */
        UsageProcessClient *clients;
        size_t n_clients;
        UsageProcessEngine *engines;
        size_t n_engines;
        UsageProcessMemory *memory;
        size_t n_memory;
} UsageProcess;

/* One sample of every source, rebuilt after each sampling round. */
typedef struct UsageSnapshot {
        uint64_t timestamp_usec; /* CLOCK_MONOTONIC; 0 before the first sample */
        UsageDevice *devices; /* sorted by source, then device */
        size_t n_devices;
        UsageClient *clients; /* sorted by source, device, id */
        size_t n_clients;
        UsageProcess *processes; /* sorted by pid */
        size_t n_processes;
        unsigned n_unreadable; /* DRM fds whose fdinfo could not be read */
} UsageSnapshot;

/* Limits of watches, in total and per user. */
#define USAGE_WATCHERS_MAX 256u

typedef struct UsageWatch UsageWatch;

int manager_usage_start(Manager *m);
void manager_usage_stop(Manager *m);

/* The latest snapshot (never NULL once started; empty before the first sample). */
const UsageSnapshot *manager_usage_snapshot(Manager *m);
/* The DRM side's own model (clients with their cumulative counters, per-device sums), NULL before the
 * first sample; and the NVML source, NULL when usage is not started. */
const DrmUsage *manager_usage(Manager *m);
const NvmlSource *manager_usage_nvml(Manager *m);

/* Sampling interval now (0: not sampling), open watches, samples so far. */
uint64_t manager_usage_interval(Manager *m);
unsigned manager_usage_n_watchers(Manager *m);
uint64_t manager_usage_n_samples(Manager *m);
/* (state, message) of a source: "ready", "idle" (not loaded while nobody samples), "disabled" (by the
 * configuration) or "unavailable" (it failed: see the message). */
void manager_usage_source_state(Manager *m, const char *source, const char **ret_state, const char **ret_message);

/* Fast sampling while the watch exists: every interval_usec (0: UsageWatchInterval=), never faster than
 * UsageMinInterval=. -E2BIG beyond UsageWatchersPerUser= for uid or USAGE_WATCHERS_MAX in total. The
 * caller owns the watch; notify_fd (may be -1) gets one byte after each sample and, when it reports
 * EPOLLHUP/EPOLLERR (the other end closed), the watch frees itself. */
int manager_usage_watch(Manager *m, uid_t uid, uint64_t interval_usec, int notify_fd, UsageWatch **ret);
UsageWatch *manager_usage_unwatch(UsageWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(UsageWatch *, manager_usage_unwatch);

/* Samples now (tests, the demo); the timers do it otherwise. */
int manager_usage_sample(Manager *m);

/* The snapshot's entry for pid, or NULL. */
const UsageProcess *usage_snapshot_find_process(const UsageSnapshot *s, pid_t pid);

/* Totals of the processes a caller may see, grouped by what they run as. */
typedef enum UsageGroupBy {
        USAGE_GROUP_UNIT, /* the systemd unit ("" when not known) */
        USAGE_GROUP_APPLICATION, /* the Flatpak or snap id, else the unit */
        USAGE_GROUP_USER, /* the uid in decimal */
        _USAGE_GROUP_MAX,
        _USAGE_GROUP_INVALID = -EINVAL,
} UsageGroupBy;

UsageGroupBy usage_group_by_from_string(const char *s);

typedef struct UsageGroup {
        char *key;
        uint32_t n_processes;
        UsageProcessEngine *engines; /* busy_percent summed over the group's processes */
        size_t n_engines;
        UsageProcessMemory *memory; /* bytes summed, saturating */
        size_t n_memory;
} UsageGroup;

/* The groups of the processes caller may see (manager_may_see()), sorted by key; the strings the
 * engines and memory entries borrow are the snapshot's. */
int usage_snapshot_groups(const UsageSnapshot *s, UsageGroupBy by, uid_t caller, UsageGroup **ret, size_t *ret_n);
void usage_groups_free(UsageGroup *g, size_t n);

/* A client's holders a caller may see (all for root, its own processes for others); 0 when none. */
size_t usage_client_visible_holders(const UsageClient *c, uid_t caller);

/* A reload changed [Usage]: the manager tells usage. */
void manager_usage_config_changed(Manager *m);
/* Process events reach usage as an observer of process tracking (profiles/process-observers.h), set up by
 * manager_usage_start(): execs and forks of a DRM fd holder's children, exits (applied only to processes
 * that started no later than the event, manager_event_may_describe()), and GPU node opens, which land
 * here (tests call it too). */
void manager_usage_nodes_opened(Manager *m);
/* Event types (1 << ProcEventType) usage needs from the proc connector now, besides the manager's. */
unsigned manager_usage_proc_event_types(Manager *m);
