/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager-usage.h"

/* The usage job's internals, shared by its files: manager-usage.c (watches, timers), usage-drm.c (the DRM
 * fd index and sampler), usage-model.c (the merged snapshot), usage-groups.c (totals per group). */

typedef struct DrmSampler DrmSampler;

/* A DRM device's product name as the PCI ID database gave it ("" when not listed or not readable), looked
 * up once per vendor:device for the daemon's life (the database is a 1.3 MB file). */
typedef struct UsagePciName {
        uint32_t vendor_id, device_id;
        char *name;
} UsagePciName;
#define USAGE_PCI_NAMES_MAX 64u

typedef struct ManagerUsage {
        Manager *manager;

        UsageWatch *watches;
        unsigned n_watches;
        sd_event_source *sample_timer;
        uint64_t interval_usec;
        uint64_t n_samples;
        UsageSnapshot snapshot;

        NvmlSource *nvml;

        DrmSampler *sampler;
        DrmUsage *drm_usage;
        sd_event_source *sweep_timer; /* targeted sweep after GPU node opens, coalesced */
        sd_event_source *rescan_timer; /* slow full sweep */
        uint64_t last_sweep_usec;
        bool index_stale; /* GPU nodes were opened (or a rescan was due) while nobody sampled */
        struct UsageProfiled *profiled; /* devices whose "profiling" we looked at (DriverProfiling=yes) */
        size_t n_profiled;
        char drm_message[256];
        UsagePciName *pci_names;
        size_t n_pci_names;
} ManagerUsage;

int usage_drm_start(ManagerUsage *u);
void usage_drm_stop(ManagerUsage *u);
/* Subscribes the DRM index to process tracking's events (profiles/process-observers.h). */
int usage_drm_observe_processes(ManagerUsage *u);
/* After sampling started or stopped: FORK events are passed by the connector only while it runs. */
void usage_drm_sampling_changed(ManagerUsage *u);
/* [Usage] RescanIntervalSec= changed: the full sweeps' timer follows. */
void usage_drm_config_changed(ManagerUsage *u);
/* Reads every known client's fdinfo and updates u->drm_usage. */
int usage_drm_sample(ManagerUsage *u);

/* Builds the merged snapshot from u->drm_usage, the sampler's devices and holders, and NVML. */
int usage_snapshot_build(ManagerUsage *u, uint64_t now_usec, UsageSnapshot *ret);
void usage_snapshot_done(UsageSnapshot *s);

/* A DRM device entry's product name (the PCI ID database, cached in u) and sensors (hwmon, not while it is
 * suspended); usage-sensors.c. */
int usage_drm_device_details(ManagerUsage *u, UsageDevice *d);
void usage_pci_names_free(ManagerUsage *u);

/* Adds e's busy figure (unknown counts as nothing) to the entry of the same device, source and engine,
 * or a new one; the same for m's bytes (saturating). The strings are borrowed from e and m. */
int usage_engines_add(UsageProcessEngine **engines, size_t *n, const UsageProcessEngine *e);
int usage_memory_add(UsageProcessMemory **memory, size_t *n, const UsageProcessMemory *m);
