/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <sys/socket.h>

#include "bus-usage.h"
#include "fd-util.h"
#include "log.h"
#include "manager-usage.h"

/* The Usage interface on the root object and ProcessUsage on process objects: thin glue over
 * manager-usage.c, which decides what exists and what each caller may see. */

static const char *const mem_keys[USAGE_MEM_MAX] = {
        [DRM_FDINFO_MEM_TOTAL] = "total",
        [DRM_FDINFO_MEM_SHARED] = "shared",
        [DRM_FDINFO_MEM_RESIDENT] = "resident",
        [DRM_FDINFO_MEM_PURGEABLE] = "purgeable",
        [DRM_FDINFO_MEM_ACTIVE] = "active",
        [USAGE_MEM_SIZE] = "size",
};

static int append_regions(sd_bus_message *reply, const UsageRegion *regions, size_t n)
{
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(sa{st})");
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                r = sd_bus_message_open_container(reply, 'r', "sa{st}");
                if (r < 0)
                        return r;
                r = sd_bus_message_append(reply, "s", regions[i].name);
                if (r < 0)
                        return r;
                r = sd_bus_message_open_container(reply, 'a', "{st}");
                if (r < 0)
                        return r;
                for (unsigned k = 0; k < USAGE_MEM_MAX; k++) {
                        if (!regions[i].has[k])
                                continue;
                        r = sd_bus_message_append(reply, "{st}", mem_keys[k], regions[i].bytes[k]);
                        if (r < 0)
                                return r;
                }
                r = sd_bus_message_close_container(reply);
                if (r < 0)
                        return r;
                r = sd_bus_message_close_container(reply);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int append_device(sd_bus_message *reply, const UsageDevice *d)
{
        int r;

        r = sd_bus_message_open_container(reply, 'r', "sssssuuassua(sddu)a(sa{st})t");
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "sssssuu", d->device, d->source, d->driver, d->pci_slot, d->name, d->vendor_id,
                        d->device_id);
        if (r < 0)
                return r;
        r = sd_bus_message_append_strv(reply, d->nodes);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "su", d->state, d->n_clients);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(sddu)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < d->n_engines; i++) {
                const UsageDeviceEngine *e = &d->engines[i];
                r = sd_bus_message_append(reply, "(sddu)", e->name, e->busy_percent, e->freq_percent, e->n_clients);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        r = append_regions(reply, d->regions, d->n_regions);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "t", d->n_clamped);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

/* Appends the i-th entry of a listing when the caller may see it (0 also when it may not). */
typedef int (*UsageAppend)(sd_bus_message *reply, BusContext *c, size_t i, uid_t caller);

/* The reply of a listing: an array of element, each entry the caller may see appended by append. */
static int reply_listing(sd_bus_message *m, BusContext *c, const char *element, size_t n, UsageAppend append)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uid_t caller;
        int r;

        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', element);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                r = append(reply, c, i, caller);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int append_device_entry(sd_bus_message *reply, BusContext *c, size_t i, uid_t caller)
{
        /* Device totals are everyone's. */
        return append_device(reply, &manager_usage_snapshot(c->manager)->devices[i]);
}

static int method_list_devices(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return reply_listing(m, c, "(sssssuuassua(sddu)a(sa{st})t)", manager_usage_snapshot(c->manager)->n_devices,
                        append_device_entry);
}

static int append_sensors_entry(sd_bus_message *reply, BusContext *c, size_t i, uid_t caller)
{
        const UsageDevice *d = &manager_usage_snapshot(c->manager)->devices[i];
        int r;

        /* Like the device totals, everyone's. */
        r = sd_bus_message_open_container(reply, 'r', "ssa(sssd)");
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "ss", d->device, d->source);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(sssd)");
        if (r < 0)
                return r;
        for (size_t k = 0; k < d->n_sensors; k++) {
                const GpuSensorReading *x = &d->sensors[k];
                r = sd_bus_message_append(reply, "(sssd)", x->sensor, x->label, x->unit, x->value);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

static int method_list_sensors(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return reply_listing(m, c, "(ssa(sssd))", manager_usage_snapshot(c->manager)->n_devices, append_sensors_entry);
}

static int append_client(sd_bus_message *reply, const UsageClient *cl, uid_t caller)
{
        uint32_t hidden = 0;
        int r;

        r = sd_bus_message_open_container(reply, 'r', "sstssa(uti)uta(suddtttb)a(sa{st})t");
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "ssts", cl->device, cl->source, cl->id, cl->driver);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "s", cl->name);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(uti)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < cl->n_holders; i++) {
                const UsageHolder *h = &cl->holders[i];

                if (!manager_may_see(caller, h->uid)) {
                        hidden++;
                        continue;
                }
                r = sd_bus_message_append(reply, "(uti)", (uint32_t) h->pid, h->start_time, (int32_t) h->fd);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "ut", hidden, cl->interval_usec);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(suddtttb)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < cl->n_engines; i++) {
                const UsageClientEngine *e = &cl->engines[i];
                r = sd_bus_message_append(reply, "(suddtttb)", e->name,
                                (uint32_t) MIN(e->capacity, (uint64_t) UINT32_MAX), e->busy_percent, e->freq_percent,
                                e->busy_ns, e->cycles, e->total_cycles, (int) e->stale);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        r = append_regions(reply, cl->regions, cl->n_regions);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "t", cl->n_clamped);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

static int append_client_entry(sd_bus_message *reply, BusContext *c, size_t i, uid_t caller)
{
        const UsageClient *cl = &manager_usage_snapshot(c->manager)->clients[i];

        /* A client is the caller's to see when one of its own processes holds it. */
        if (usage_client_visible_holders(cl, caller) == 0)
                return 0;
        return append_client(reply, cl, caller);
}

static int method_list_clients(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return reply_listing(m, c, "(sstssa(uti)uta(suddtttb)a(sa{st})t)",
                        manager_usage_snapshot(c->manager)->n_clients, append_client_entry);
}

static int append_process_clients(sd_bus_message *reply, const UsageProcess *p)
{
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(sst)");
        if (r < 0)
                return r;
        for (size_t i = 0; p && i < p->n_clients; i++) {
                r = sd_bus_message_append(reply, "(sst)", p->clients[i].device, p->clients[i].source, p->clients[i].id);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int append_process_engines(sd_bus_message *reply, const UsageProcess *p)
{
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(sssd)");
        if (r < 0)
                return r;
        for (size_t i = 0; p && i < p->n_engines; i++) {
                const UsageProcessEngine *e = &p->engines[i];
                r = sd_bus_message_append(reply, "(sssd)", e->device, e->source, e->engine, e->busy_percent);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int append_process_memory(sd_bus_message *reply, const UsageProcess *p)
{
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(ssst)");
        if (r < 0)
                return r;
        for (size_t i = 0; p && i < p->n_memory; i++) {
                const UsageProcessMemory *x = &p->memory[i];
                r = sd_bus_message_append(reply, "(ssst)", x->device, x->source, x->region, x->bytes);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

#define GPU_PROCESS "outusasa(sst)a(sssd)a(ssst)"
#define GPU_PROCESS_ATTRIBUTED GPU_PROCESS "ssssss"

static int append_gpu_process(sd_bus_message *reply, Manager *manager, const UsageProcess *up, bool attributed)
{
        _cleanup_free_ char *path = NULL;
        Process *p = manager_get_process(manager, up->pid);
        bool same = p && p->id.start_time == up->start_time;
        int r;

        if (same && p->announced) {
                r = bus_process_path(p, &path);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_open_container(reply, 'r', attributed ? GPU_PROCESS_ATTRIBUTED : GPU_PROCESS);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "outus", path ? path : "/", (uint32_t) up->pid, up->start_time,
                        (uint32_t) up->uid, same ? strempty(p->comm) : "");
        if (r < 0)
                return r;
        r = sd_bus_message_append_strv(reply, same ? p->profiles : NULL);
        if (r < 0)
                return r;
        r = append_process_clients(reply, up);
        if (r < 0)
                return r;
        r = append_process_engines(reply, up);
        if (r < 0)
                return r;
        r = append_process_memory(reply, up);
        if (r < 0)
                return r;
        if (attributed) {
                const ProcCgroup *c = &up->cgroup;
                r = sd_bus_message_append(reply, "ssssss", strempty(c->unit), strempty(c->slice),
                                strempty(c->container_kind), strempty(c->container), strempty(c->app_kind),
                                strempty(c->app));
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

/* A process the caller may see, with (attributed) or without what it runs as. */
static int append_process_if_visible(sd_bus_message *reply, BusContext *c, size_t i, uid_t caller, bool attributed)
{
        const UsageProcess *up = &manager_usage_snapshot(c->manager)->processes[i];

        if (!manager_may_see(caller, up->uid))
                return 0;
        return append_gpu_process(reply, c->manager, up, attributed);
}

static int append_process_entry(sd_bus_message *reply, BusContext *c, size_t i, uid_t caller)
{
        return append_process_if_visible(reply, c, i, caller, false);
}

static int append_attributed_entry(sd_bus_message *reply, BusContext *c, size_t i, uid_t caller)
{
        return append_process_if_visible(reply, c, i, caller, true);
}

static int method_list_processes(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return reply_listing(m, c, "(" GPU_PROCESS ")", manager_usage_snapshot(c->manager)->n_processes,
                        append_process_entry);
}

static int method_list_processes_attributed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return reply_listing(m, c, "(" GPU_PROCESS_ATTRIBUTED ")", manager_usage_snapshot(c->manager)->n_processes,
                        append_attributed_entry);
}

static int append_group(sd_bus_message *reply, const UsageGroup *g)
{
        UsageProcess totals = {
                .engines = g->engines, .n_engines = g->n_engines, .memory = g->memory, .n_memory = g->n_memory
        };
        int r;

        r = sd_bus_message_open_container(reply, 'r', "sua(sssd)a(ssst)");
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "su", g->key, g->n_processes);
        if (r < 0)
                return r;
        r = append_process_engines(reply, &totals);
        if (r < 0)
                return r;
        r = append_process_memory(reply, &totals);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

static int reply_groups(sd_bus_message *m, const UsageGroup *groups, size_t n)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(sua(sssd)a(ssst))");
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                r = append_group(reply, &groups[i]);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_list_groups(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        UsageGroup *groups = NULL;
        size_t n_groups = 0;
        UsageGroupBy by;
        const char *key;
        uid_t caller;
        int r;

        r = sd_bus_message_read(m, "s", &key);
        if (r < 0)
                return r;
        by = usage_group_by_from_string(key);
        if (by < 0)
                return sd_bus_error_set(
                                error, SD_BUS_ERROR_INVALID_ARGS, "by is \"unit\", \"application\" or \"user\"");
        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;
        r = usage_snapshot_groups(manager_usage_snapshot(c->manager), by, caller, &groups, &n_groups);
        if (r < 0)
                return r;
        r = reply_groups(m, groups, n_groups);
        usage_groups_free(groups, n_groups);
        return r;
}

static int method_watch(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        _cleanup_close_ int ours = -EBADF, theirs = -EBADF;
        int pair[2];
        UsageWatch *w;
        uint64_t interval;
        uid_t caller;
        int r;

        r = sd_bus_message_read(m, "t", &interval);
        if (r < 0)
                return r;
        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;

        /* A socket pair: we see the caller's end close as EPOLLHUP, and a byte per sample tells it when to
         * read. Our end never blocks. */
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, pair) < 0)
                return -errno;
        ours = pair[0];
        theirs = pair[1];
        r = manager_usage_watch(c->manager, caller, interval, ours, &w);
        if (r < 0)
                return bus_reply_errno(error, r, "too many usage watches");
        TAKE_FD(ours); /* the watch owns it, and frees itself when the caller's end closes */
        bus_usage_changed(c);
        return sd_bus_reply_method_return(m, "h", theirs);
}

static int property_get_interval(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return sd_bus_message_append(reply, "t", manager_usage_interval(c->manager));
}

static int property_get_watchers(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return sd_bus_message_append(reply, "u", (uint32_t) manager_usage_n_watchers(c->manager));
}

static int property_get_sources(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        static const char *const sources[] = { USAGE_SOURCE_DRM, USAGE_SOURCE_NVML };
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(sss)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(sources); i++) {
                const char *state, *message;

                manager_usage_source_state(c->manager, sources[i], &state, &message);
                r = sd_bus_message_append(reply, "(sss)", sources[i], state, message);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int property_get_last_sample(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return sd_bus_message_append(reply, "t", manager_usage_snapshot(c->manager)->timestamp_usec);
}

static int property_get_samples(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return sd_bus_message_append(reply, "t", manager_usage_n_samples(c->manager));
}

static int property_get_unreadable(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return sd_bus_message_append(reply, "u", (uint32_t) manager_usage_snapshot(c->manager)->n_unreadable);
}

const sd_bus_vtable bus_usage_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("SampleInterval", "t", property_get_interval, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Watchers", "u", property_get_watchers, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Sources", "a(sss)", property_get_sources, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("LastSample", "t", property_get_last_sample, 0, 0),
        SD_BUS_PROPERTY("Samples", "t", property_get_samples, 0, 0),
        SD_BUS_PROPERTY("UnreadableFds", "u", property_get_unreadable, 0, 0),
        SD_BUS_METHOD_WITH_ARGS("ListGpuDevices", SD_BUS_NO_ARGS,
                        SD_BUS_RESULT("a(sssssuuassua(sddu)a(sa{st})t)", devices), method_list_devices,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListGpuSensors", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(ssa(sssd))", sensors),
                        method_list_sensors, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListGpuClients", SD_BUS_NO_ARGS,
                        SD_BUS_RESULT("a(sstssa(uti)uta(suddtttb)a(sa{st})t)", clients), method_list_clients,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListGpuProcesses", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(" GPU_PROCESS ")", processes),
                        method_list_processes, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListGpuProcessesAttributed", SD_BUS_NO_ARGS,
                        SD_BUS_RESULT("a(" GPU_PROCESS_ATTRIBUTED ")", processes), method_list_processes_attributed,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListGpuGroups", SD_BUS_ARGS("s", by), SD_BUS_RESULT("a(sua(sssd)a(ssst))", groups),
                        method_list_groups, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("WatchUsage", SD_BUS_ARGS("t", interval), SD_BUS_RESULT("h", fd), method_watch,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static const UsageProcess *process_usage(void *userdata)
{
        Process *p = userdata;
        const UsageProcess *up = usage_snapshot_find_process(manager_usage_snapshot(p->manager), p->id.pid);

        return up && up->start_time == p->id.start_time ? up : NULL;
}

static int property_get_gpu_clients(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return append_process_clients(reply, process_usage(userdata));
}

static int property_get_gpu_engines(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return append_process_engines(reply, process_usage(userdata));
}

static int property_get_gpu_memory(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return append_process_memory(reply, process_usage(userdata));
}

/* The object is visible to the process's owner and root only (bus_process_find), so these properties are
 * too; the InterfacesAdded that carries them goes to their subscribers only (bus-process.c). */
const sd_bus_vtable bus_process_usage_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("GpuClients", "a(sst)", property_get_gpu_clients, 0, 0),
        SD_BUS_PROPERTY("GpuEngines", "a(sssd)", property_get_gpu_engines, 0, 0),
        SD_BUS_PROPERTY("GpuMemory", "a(ssst)", property_get_gpu_memory, 0, 0),
        SD_BUS_VTABLE_END,
};

void bus_usage_changed(BusContext *c)
{
        (void) sd_bus_emit_properties_changed(
                        c->bus, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "SampleInterval", "Watchers", "Sources", NULL);
}
