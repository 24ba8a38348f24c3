/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>

#include "drm-sampler.h"
#include "fd-util.h"
#include "process-observers.h"
#include "usage-model.h"
#include "string-util.h"
#include "strv.h"

/* The merged model: DRM clients (from the sampler and drm-usage) and NVML's devices and processes, each
 * naming its source; per-process figures derived from the clients' holders. Rebuilt after each sample,
 * so the bus serves a consistent picture between samples without touching /proc. */

static void regions_free(UsageRegion *r, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(r[i].name);
        free(r);
}

static void client_done(UsageClient *c)
{
        free(c->device);
        free(c->driver);
        free(c->name);
        free(c->holders);
        for (size_t i = 0; i < c->n_engines; i++)
                free(c->engines[i].name);
        free(c->engines);
        regions_free(c->regions, c->n_regions);
}

static void device_done(UsageDevice *d)
{
        free(d->device);
        free(d->driver);
        free(d->pci_slot);
        free(d->name);
        strv_free(d->nodes);
        for (size_t i = 0; i < d->n_engines; i++)
                free(d->engines[i].name);
        free(d->engines);
        regions_free(d->regions, d->n_regions);
        free(d->sensors);
}

void usage_snapshot_done(UsageSnapshot *s)
{
        for (size_t i = 0; i < s->n_devices; i++)
                device_done(&s->devices[i]);
        free(s->devices);
        for (size_t i = 0; i < s->n_clients; i++)
                client_done(&s->clients[i]);
        free(s->clients);
        for (size_t i = 0; i < s->n_processes; i++) {
                proc_cgroup_done(&s->processes[i].cgroup);
                free(s->processes[i].clients);
                free(s->processes[i].engines);
                free(s->processes[i].memory);
        }
        free(s->processes);
        *s = (UsageSnapshot){ 0 };
}

/* Grows an array by one zeroed element; NULL on ENOMEM. */
static void *grow(void **array, size_t *n, size_t size)
{
        uint8_t *x = reallocarray(*array, *n + 1, size);

        if (!x)
                return NULL;
        *array = x;
        memset(x + *n * size, 0, size);
        return x + (*n)++ * size;
}

#define GROW(array, n) ((__typeof__(array)) grow((void **) &(array), &(n), sizeof(*(array))))

static double percent_or_unknown(bool has, double v)
{
        return has ? v : USAGE_PERCENT_UNKNOWN;
}

static int copy_drm_regions(const DrmUsageRegion *src, size_t n, UsageRegion **ret, size_t *ret_n)
{
        UsageRegion *r = calloc(MAX(n, (size_t) 1), sizeof(UsageRegion));

        if (!r)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                r[i].name = strdup(src[i].name);
                if (!r[i].name) {
                        regions_free(r, i);
                        return -ENOMEM;
                }
                for (unsigned k = 0; k < _DRM_FDINFO_MEM_MAX; k++) {
                        r[i].bytes[k] = src[i].bytes[k];
                        r[i].has[k] = src[i].has[k];
                }
        }
        *ret = r;
        *ret_n = n;
        return 0;
}

static int add_drm_client(UsageSnapshot *s, const DrmUsageClient *c, const DrmSampler *sampler)
{
        UsageClient *x = GROW(s->clients, s->n_clients);

        if (!x)
                return -ENOMEM;
        x->source = USAGE_SOURCE_DRM;
        x->device = strdup(c->device);
        x->driver = strdup(c->driver);
        x->name = strdup(c->has_client_name ? c->client_name : "");
        x->id = c->has_client_id ? c->client_id : 0;
        x->interval_usec = c->interval_usec;
        x->n_clamped = c->n_clamped;
        if (!x->device || !x->driver || !x->name)
                return -ENOMEM;

        x->holders = calloc(MAX(c->n_holders, (size_t) 1), sizeof(UsageHolder));
        if (!x->holders)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_holders; i++) {
                const DrmSamplerHolder *h = drm_sampler_holder(sampler, c->holders[i].pid);

                /* An owner we could not learn is nobody's: only root sees it. */
                x->holders[x->n_holders++] = (UsageHolder){
                        .pid = c->holders[i].pid,
                        .fd = c->holders[i].fd,
                        .start_time = h ? h->start_time : 0,
                        .uid = h && h->start_time != 0 ? h->uid : (uid_t) -1,
                };
        }

        x->engines = calloc(MAX(c->n_engines, (size_t) 1), sizeof(UsageClientEngine));
        if (!x->engines)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_engines; i++) {
                const DrmUsageEngine *e = &c->engines[i];
                double busy;
                bool has_busy = drm_usage_engine_busy(e, &busy);
                UsageClientEngine *y = &x->engines[x->n_engines++];

                *y = (UsageClientEngine){
                        .name = strdup(e->name),
                        .capacity = e->capacity,
                        .busy_percent = percent_or_unknown(has_busy, busy),
                        .freq_percent = percent_or_unknown(e->has_freq_percent, e->freq_percent),
                        .busy_ns = e->busy_ns.value,
                        .cycles = e->cycles.value,
                        .total_cycles = e->total_cycles.value,
                        .stale = e->stale,
                };
                if (!y->name)
                        return -ENOMEM;
        }
        return copy_drm_regions(c->regions, c->n_regions, &x->regions, &x->n_regions);
}

/* The device's state: suspended when any of its nodes is, active when one is known to be. */
static const char *drm_device_state(const DrmSampler *sampler, const char *key)
{
        const char *state = "unknown";

        for (size_t i = 0; i < drm_sampler_n_devices(sampler); i++) {
                const DrmSamplerDevice *d = drm_sampler_device(sampler, i);
                if (!streq(d->info.key, key) || !d->power_checked)
                        continue;
                if (d->power == DRM_POWER_SUSPENDED)
                        return "suspended";
                if (d->power == DRM_POWER_ACTIVE)
                        state = "active";
        }
        return state;
}

static int cmp_string(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static UsageDevice *find_device(UsageSnapshot *s, const char *source, const char *key)
{
        for (size_t i = 0; i < s->n_devices; i++)
                if (streq(s->devices[i].source, source) && streq(s->devices[i].device, key))
                        return &s->devices[i];
        return NULL;
}

/* A device entry for key, with what the sampler's nodes of it say. */
static int ensure_drm_device(
                UsageSnapshot *s, const DrmSampler *sampler, const char *key, const char *driver, UsageDevice **ret)
{
        UsageDevice *d = find_device(s, USAGE_SOURCE_DRM, key);
        const DrmDeviceInfo *info = NULL;
        int r;

        if (d) {
                *ret = d;
                return 0;
        }
        d = GROW(s->devices, s->n_devices);
        if (!d)
                return -ENOMEM;
        d->source = USAGE_SOURCE_DRM;
        for (size_t i = 0; i < drm_sampler_n_devices(sampler); i++) {
                const DrmSamplerDevice *x = drm_sampler_device(sampler, i);
                if (!streq(x->info.key, key))
                        continue;
                info = &x->info;
                if (!isempty(x->info.node) && !strv_contains(d->nodes, x->info.node)) {
                        r = strv_extend(&d->nodes, x->info.node);
                        if (r < 0)
                                return r;
                }
        }
        d->device = strdup(key);
        d->driver = strdup(info && !isempty(info->driver) ? info->driver : strempty(driver));
        d->pci_slot = strdup(info ? info->pci_slot : "");
        d->name = strdup("");
        if (!d->device || !d->driver || !d->pci_slot || !d->name)
                return -ENOMEM;
        if (d->nodes)
                qsort_safe(d->nodes, strv_length(d->nodes), sizeof(char *), cmp_string);
        d->vendor_id = info ? info->vendor_id : 0;
        d->device_id = info ? info->device_id : 0;
        d->state = drm_device_state(sampler, key);
        *ret = d;
        return 0;
}

static int add_drm_device(UsageSnapshot *s, const DrmUsageDevice *src, const DrmSampler *sampler)
{
        UsageDevice *d;
        int r;

        r = ensure_drm_device(s, sampler, src->device, src->driver, &d);
        if (r < 0)
                return r;
        d->n_clients = (uint32_t) src->n_clients;
        d->n_clamped = src->n_clamped;
        d->engines = calloc(MAX(src->n_engines, (size_t) 1), sizeof(UsageDeviceEngine));
        if (!d->engines)
                return -ENOMEM;
        for (size_t i = 0; i < src->n_engines; i++) {
                const DrmUsageDeviceEngine *e = &src->engines[i];
                UsageDeviceEngine *y = &d->engines[d->n_engines++];

                *y = (UsageDeviceEngine){
                        .name = strdup(e->name),
                        .busy_percent = percent_or_unknown(e->has_busy_percent, e->busy_percent),
                        .freq_percent = percent_or_unknown(e->has_freq_percent, e->freq_percent),
                        .n_clients = (uint32_t) e->n_clients,
                };
                if (!y->name)
                        return -ENOMEM;
        }
        d->regions = calloc(MAX(src->n_regions, (size_t) 1), sizeof(UsageRegion));
        if (!d->regions)
                return -ENOMEM;
        for (size_t i = 0; i < src->n_regions; i++) {
                UsageRegion *y = &d->regions[d->n_regions++];

                y->name = strdup(src->regions[i].name);
                if (!y->name)
                        return -ENOMEM;
                for (unsigned k = 0; k < _DRM_FDINFO_MEM_MAX; k++) {
                        y->bytes[k] = src->regions[i].bytes[k];
                        y->has[k] = src->regions[i].has[k];
                }
        }
        return 0;
}

static int add_engine(UsageClientEngine **engines, size_t *n, const char *name, double percent)
{
        UsageClientEngine *e = GROW(*engines, *n);

        if (!e)
                return -ENOMEM;
        *e = (UsageClientEngine){
                .name = strdup(name), .capacity = 1, .busy_percent = percent, .freq_percent = USAGE_PERCENT_UNKNOWN
        };
        return e->name ? 0 : -ENOMEM;
}

static int add_vram(UsageRegion **regions, size_t *n, uint64_t used, uint64_t size)
{
        UsageRegion *r;

        if (used == NVML_SOURCE_UNKNOWN && size == NVML_SOURCE_UNKNOWN)
                return 0;
        r = GROW(*regions, *n);
        if (!r)
                return -ENOMEM;
        r->name = strdup("vram");
        if (!r->name)
                return -ENOMEM;
        r->bytes[DRM_FDINFO_MEM_RESIDENT] = used;
        r->has[DRM_FDINFO_MEM_RESIDENT] = used != NVML_SOURCE_UNKNOWN;
        r->bytes[USAGE_MEM_SIZE] = size;
        r->has[USAGE_MEM_SIZE] = size != NVML_SOURCE_UNKNOWN;
        return 0;
}

static int add_nvml_process(UsageSnapshot *s, Manager *m, const NvmlDeviceUsage *d, const NvmlProcessUsage *p)
{
        UsageClient *x = GROW(s->clients, s->n_clients);
        Process *proc = manager_get_process(m, (pid_t) p->pid);
        ProcIdentity id = { 0 };
        uid_t uid = (uid_t) -1;
        int r;

        if (!x)
                return -ENOMEM;
        x->source = USAGE_SOURCE_NVML;
        x->device = strdup(d->pci_bus_id);
        x->driver = strdup("nvidia");
        x->name = strdup("");
        x->id = p->pid;
        if (!x->device || !x->driver || !x->name)
                return -ENOMEM;
        if (proc) {
                id = proc->id;
                uid = proc->uid;
        } else if (p->pid > 0 && p->pid <= INT32_MAX && proc_identity_read(m->proc_fd, (pid_t) p->pid, &id) >= 0 &&
                        manager_process_owner(m, (pid_t) p->pid, id.start_time, &uid) < 0)
                uid = (uid_t) -1;
        x->holders = calloc(1, sizeof(UsageHolder));
        if (!x->holders)
                return -ENOMEM;
        x->holders[0] = (UsageHolder){ .pid = (pid_t) p->pid, .start_time = id.start_time, .uid = uid, .fd = -1 };
        x->n_holders = 1;
        if (p->has_utilization) {
                r = add_engine(&x->engines, &x->n_engines, "sm", p->sm_percent);
                if (r < 0)
                        return r;
                r = add_engine(&x->engines, &x->n_engines, "memory", p->mem_percent);
                if (r < 0)
                        return r;
                r = add_engine(&x->engines, &x->n_engines, "enc", p->enc_percent);
                if (r < 0)
                        return r;
                r = add_engine(&x->engines, &x->n_engines, "dec", p->dec_percent);
                if (r < 0)
                        return r;
        }
        return add_vram(&x->regions, &x->n_regions, p->memory_bytes, NVML_SOURCE_UNKNOWN);
}

static int add_nvml_device(UsageSnapshot *s, Manager *m, const NvmlDeviceUsage *src)
{
        UsageDevice *d = GROW(s->devices, s->n_devices);
        int r;

        if (!d)
                return -ENOMEM;
        d->source = USAGE_SOURCE_NVML;
        d->device = strdup(src->pci_bus_id);
        d->driver = strdup("nvidia");
        d->pci_slot = strdup(src->pci_bus_id);
        d->name = strdup(src->name);
        if (!d->device || !d->driver || !d->pci_slot || !d->name)
                return -ENOMEM;
        switch (src->state) {
        case NVML_DEVICE_SAMPLED:
                d->state = "active";
                break;
        case NVML_DEVICE_SUSPENDED:
                d->state = "suspended";
                break;
        case NVML_DEVICE_FAILED:
                d->state = "unknown";
                break;
        }
        d->n_clients = (uint32_t) src->n_processes;
        if (src->has_utilization) {
                UsageDeviceEngine *e = GROW(d->engines, d->n_engines);
                if (!e)
                        return -ENOMEM;
                *e = (UsageDeviceEngine){ .name = strdup("gpu"),
                        .busy_percent = src->gpu_percent,
                        .freq_percent = USAGE_PERCENT_UNKNOWN,
                        .n_clients = d->n_clients };
                if (!e->name)
                        return -ENOMEM;
                e = GROW(d->engines, d->n_engines);
                if (!e)
                        return -ENOMEM;
                *e = (UsageDeviceEngine){ .name = strdup("memory"),
                        .busy_percent = src->memory_percent,
                        .freq_percent = USAGE_PERCENT_UNKNOWN,
                        .n_clients = d->n_clients };
                if (!e->name)
                        return -ENOMEM;
        }
        r = add_vram(&d->regions, &d->n_regions, src->memory_used_bytes, src->memory_total_bytes);
        if (r < 0)
                return r;
        if (src->n_sensors > 0) {
                d->sensors = reallocarray(NULL, src->n_sensors, sizeof(GpuSensorReading));
                if (!d->sensors)
                        return -ENOMEM;
                memcpy(d->sensors, src->sensors, src->n_sensors * sizeof(GpuSensorReading));
                d->n_sensors = src->n_sensors;
        }
        for (size_t i = 0; i < src->n_processes; i++) {
                r = add_nvml_process(s, m, src, &src->processes[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* index: pid -> position + 1 in s->processes (which moves as it grows). */
static UsageProcess *process_entry(UsageSnapshot *s, IntMap *index, const UsageHolder *h)
{
        uintptr_t at = (uintptr_t) intmap_get(index, (uint64_t) h->pid);
        UsageProcess *p;

        if (at > 0)
                return &s->processes[at - 1];
        p = GROW(s->processes, s->n_processes);
        if (!p || intmap_put(index, (uint64_t) h->pid, (void *) (uintptr_t) s->n_processes) < 0)
                return NULL;
        p->pid = h->pid;
        p->start_time = h->start_time;
        p->uid = h->uid;
        return p;
}

int usage_engines_add(UsageProcessEngine **engines, size_t *n, const UsageProcessEngine *e)
{
        UsageProcessEngine *y = NULL;

        for (size_t k = 0; k < *n && !y; k++)
                if ((*engines)[k].source == e->source && streq((*engines)[k].device, e->device) &&
                                streq((*engines)[k].engine, e->engine))
                        y = &(*engines)[k];
        if (!y) {
                y = GROW(*engines, *n);
                if (!y)
                        return -ENOMEM;
                *y = *e;
                y->busy_percent = USAGE_PERCENT_UNKNOWN;
        }
        if (e->busy_percent >= 0)
                y->busy_percent = MAX(y->busy_percent, 0.0) + e->busy_percent;
        return 0;
}

int usage_memory_add(UsageProcessMemory **memory, size_t *n, const UsageProcessMemory *m)
{
        UsageProcessMemory *y = NULL;

        for (size_t k = 0; k < *n && !y; k++)
                if ((*memory)[k].source == m->source && streq((*memory)[k].device, m->device) &&
                                streq((*memory)[k].region, m->region))
                        y = &(*memory)[k];
        if (!y) {
                y = GROW(*memory, *n);
                if (!y)
                        return -ENOMEM;
                *y = *m;
                y->bytes = 0;
        }
        y->bytes = y->bytes > UINT64_MAX - m->bytes ? UINT64_MAX : y->bytes + m->bytes;
        return 0;
}

static int process_add_client(UsageProcess *p, const UsageClient *c)
{
        UsageProcessClient *x;
        int r;

        for (size_t i = 0; i < p->n_clients; i++)
                if (p->clients[i].id == c->id && p->clients[i].source == c->source &&
                                streq(p->clients[i].device, c->device))
                        return 0; /* the same client through a second fd */
        x = GROW(p->clients, p->n_clients);
        if (!x)
                return -ENOMEM;
        *x = (UsageProcessClient){ .device = c->device, .source = c->source, .id = c->id };

        for (size_t i = 0; i < c->n_engines; i++) {
                r = usage_engines_add(&p->engines, &p->n_engines,
                                &(UsageProcessEngine){ .device = c->device,
                                                .source = c->source,
                                                .engine = c->engines[i].name,
                                                .busy_percent = c->engines[i].busy_percent });
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < c->n_regions; i++) {
                const UsageRegion *region = &c->regions[i];
                uint64_t bytes;

                if (region->has[DRM_FDINFO_MEM_RESIDENT])
                        bytes = region->bytes[DRM_FDINFO_MEM_RESIDENT];
                else if (region->has[DRM_FDINFO_MEM_TOTAL])
                        bytes = region->bytes[DRM_FDINFO_MEM_TOTAL];
                else
                        continue;
                r = usage_memory_add(&p->memory, &p->n_memory,
                                &(UsageProcessMemory){ .device = c->device,
                                                .source = c->source,
                                                .region = region->name,
                                                .bytes = bytes });
                if (r < 0)
                        return r;
        }
        return 0;
}

static int cmp_process(const void *a, const void *b)
{
        const UsageProcess *x = a, *y = b;
        return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_device(const void *a, const void *b)
{
        const UsageDevice *x = a, *y = b;
        int r = strcmp(x->source, y->source);
        return r != 0 ? r : strcmp(x->device, y->device);
}

static int cmp_client(const void *a, const void *b)
{
        const UsageClient *x = a, *y = b;
        int r = strcmp(x->source, y->source);

        if (r == 0)
                r = strcmp(x->device, y->device);
        return r != 0 ? r : (x->id > y->id) - (x->id < y->id);
}

/* What the process runs as, read once per process (processes rarely move: a launcher that moves itself into
 * a new scope does so before it opens a GPU) and carried from one snapshot to the next: its cgroup, and the
 * Flatpak application id of its sandbox's /.flatpak-info (read as the process's user), which names the
 * application over its scope's name. Not known (every field NULL) when its identity is not, when it is
 * gone, or when its cgroup says nothing. */
static int attribute_process(ManagerUsage *u, UsageProcess *p)
{
        _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
        _cleanup_close_ int dfd = -EBADF;
        const UsageProcess *old = usage_snapshot_find_process(&u->snapshot, p->pid);
        ProcIdentity expect = { p->pid, p->start_time };
        int r;

        if (old && old->start_time == p->start_time && old->cgroup_read) {
                p->cgroup_read = true;
                return old->cgroup.path ? proc_cgroup_copy(&old->cgroup, &p->cgroup) : 0;
        }
        if (p->start_time == 0)
                return 0;
        r = proc_facts_open(u->manager->proc_fd, p->pid, &expect, &f, &dfd);
        if (r >= 0)
                r = proc_facts_add(dfd, PROC_FACTS_CGROUP | PROC_FACTS_FLATPAK, NULL, &f);
        if (r == -ENOMEM)
                return r;
        /* Once looked at, whatever came of it: a v1-only system costs no read per sample. */
        p->cgroup_read = true;
        if (r < 0)
                return 0;
        p->cgroup = f.cgroup;
        f.cgroup = (ProcCgroup){ 0 };
        return 0;
}

int usage_snapshot_build(ManagerUsage *u, uint64_t now_usec, UsageSnapshot *ret)
{
        _cleanup_(usage_snapshot_done) UsageSnapshot s = { .timestamp_usec = now_usec };
        IntMap index = { 0 };
        int r;

        if (u->sampler && u->drm_usage) {
                for (size_t i = 0; i < u->drm_usage->n_devices; i++) {
                        r = add_drm_device(&s, &u->drm_usage->devices[i], u->sampler);
                        if (r < 0)
                                return r;
                }
                /* Devices with holders but no readable client (suspended, no stats) are still devices. */
                for (size_t i = 0; i < drm_sampler_n_devices(u->sampler); i++) {
                        const DrmSamplerDevice *d = drm_sampler_device(u->sampler, i);
                        UsageDevice *x;

                        r = ensure_drm_device(&s, u->sampler, d->info.key, NULL, &x);
                        if (r < 0)
                                return r;
                }
                for (size_t i = 0; i < s.n_devices; i++) {
                        r = usage_drm_device_details(u, &s.devices[i]);
                        if (r < 0)
                                return r;
                }
                for (size_t i = 0; i < u->drm_usage->n_clients; i++) {
                        r = add_drm_client(&s, &u->drm_usage->clients[i], u->sampler);
                        if (r < 0)
                                return r;
                }
                s.n_unreadable = drm_sampler_stats(u->sampler)->n_unreadable;
        }
        if (u->nvml && nvml_source_state(u->nvml) == NVML_SOURCE_READY)
                for (size_t i = 0; i < nvml_source_n_devices(u->nvml); i++) {
                        r = add_nvml_device(&s, u->manager, nvml_source_device(u->nvml, i));
                        if (r < 0)
                                return r;
                }

        qsort_safe(s.devices, s.n_devices, sizeof(UsageDevice), cmp_device);
        qsort_safe(s.clients, s.n_clients, sizeof(UsageClient), cmp_client);
        /* Processes borrow the clients' strings: built after the clients are in their final place. */
        for (size_t i = 0; i < s.n_clients; i++)
                for (size_t k = 0; k < s.clients[i].n_holders; k++) {
                        UsageProcess *p;

                        if (s.clients[i].holders[k].pid <= 0) /* NVML may name no process */
                                continue;
                        p = process_entry(&s, &index, &s.clients[i].holders[k]);
                        if (!p) {
                                intmap_done(&index);
                                return -ENOMEM;
                        }
                        r = process_add_client(p, &s.clients[i]);
                        if (r < 0) {
                                intmap_done(&index);
                                return r;
                        }
                }
        intmap_done(&index);
        qsort_safe(s.processes, s.n_processes, sizeof(UsageProcess), cmp_process);
        for (size_t i = 0; i < s.n_processes; i++) {
                r = attribute_process(u, &s.processes[i]);
                if (r < 0)
                        return r;
        }

        *ret = s;
        s = (UsageSnapshot){ 0 };
        return 0;
}

const UsageProcess *usage_snapshot_find_process(const UsageSnapshot *s, pid_t pid)
{
        UsageProcess key = { .pid = pid };

        if (s->n_processes == 0)
                return NULL;
        return bsearch(&key, s->processes, s->n_processes, sizeof(UsageProcess), cmp_process);
}

size_t usage_client_visible_holders(const UsageClient *c, uid_t caller)
{
        size_t n = 0;

        for (size_t i = 0; i < c->n_holders; i++)
                if (manager_may_see(caller, c->holders[i].uid))
                        n++;
        return n;
}
