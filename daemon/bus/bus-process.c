/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus-common.h"
#include "bus-usage.h"
#include "log.h"
#include "manager-visibility.h"
#include "strv.h"

/* Objects, and so their properties, exist only for callers who may see the process: properties are the
 * same for everyone who can read them (ObjectManager clients and proxies cache them). The lookups run
 * for the caller whose message is being dispatched. Every signal about a process or its object goes to
 * the subscribers who may see it, addressed to each (bus_signal_subscribers_of()), never to everyone. */
static bool object_visible(sd_bus *bus, const Process *p)
{
        sd_bus_message *m = sd_bus_get_current_message(bus);
        uid_t caller;

        if (!m || bus_caller_uid(m, &caller) < 0)
                return false;
        return manager_may_see(caller, p->uid);
}

static int property_get_pid(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        Process *p = userdata;
        return sd_bus_message_append(reply, "u", (uint32_t) p->id.pid);
}

static int property_get_start_time(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        Process *p = userdata;
        return sd_bus_message_append(reply, "t", p->id.start_time);
}

static int property_get_uid(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        Process *p = userdata;
        return sd_bus_message_append(reply, "u", (uint32_t) p->uid);
}

static int property_get_comm(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        Process *p = userdata;
        return sd_bus_message_append(reply, "s", strempty(p->comm));
}

static int property_get_gpu_user(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        Process *p = userdata;
        return sd_bus_message_append(reply, "b", (int) p->gpu_user);
}

static int method_explain(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        Process *p = userdata;
        return bus_explain(p->manager->userdata, m, p->id.pid, p->id.start_time, error);
}

/* The executable, profiles and settings are private: ListProcesses, GetProcess and Explain serve them to
 * those who may see them. */
const sd_bus_vtable bus_process_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Pid", "u", property_get_pid, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("StartTime", "t", property_get_start_time, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Uid", "u", property_get_uid, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Comm", "s", property_get_comm, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("GpuUser", "b", property_get_gpu_user, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_ARGS("Explain", SD_BUS_NO_ARGS, SD_BUS_RESULT(BUS_RESOLUTION_SIGNATURE, resolution),
                        method_explain, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

int bus_process_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                sd_bus_error *error)
{
        BusContext *c = userdata;
        ProcIdentity id;
        Process *p;

        if (bus_process_path_parse(path, &id) < 0)
                return 0;
        p = manager_get_process(c->manager, id.pid);
        if (!p || !p->announced || !proc_identity_equal(p->id, id))
                return 0;
        if (!object_visible(bus, p))
                return 0;
        *ret_found = p;
        return 1;
}

int bus_process_enumerator(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes, sd_bus_error *error)
{
        BusContext *c = userdata;
        _cleanup_strv_free_ char **nodes = NULL;
        Process *p;
        int r;

        for (size_t i = 0; intmap_next(&c->manager->profiles->processes, &i, NULL, (void **) &p);) {
                char *path;

                if (!p->announced || !object_visible(bus, p))
                        continue;
                r = bus_process_path(p, &path);
                if (r < 0)
                        return r;
                r = strv_consume(&nodes, path);
                if (r < 0)
                        return r;
        }
        *ret_nodes = TAKE_PTR(nodes);
        return 0;
}

/* The interfaces of a process object, as GetManagedObjects lists them: sd-bus's standard ones, which have
 * no properties, and ours. */
static const struct {
        const char *name;
        const sd_bus_vtable *vtable; /* NULL: no properties */
} process_interfaces[] = {
        { "org.freedesktop.DBus.Peer", NULL },
        { "org.freedesktop.DBus.Introspectable", NULL },
        { "org.freedesktop.DBus.Properties", NULL },
        { BUS_PROCESS_INTERFACE, bus_process_vtable },
        { BUS_PROCESS_USAGE_INTERFACE, bus_process_usage_vtable },
};

typedef struct ProcessSignal {
        Process *process;
        const char *path; /* its object's */
        bool has_object;
} ProcessSignal;

static int append_interface(sd_bus_message *m, size_t i, const ProcessSignal *x)
{
        int r;

        r = sd_bus_message_append(m, "s", process_interfaces[i].name);
        if (r < 0)
                return r;
        if (!process_interfaces[i].vtable)
                return sd_bus_message_append(m, "a{sv}", 0);
        return bus_append_vtable_properties(
                        m, process_interfaces[i].vtable, x->path, process_interfaces[i].name, x->process, false);
}

/* InterfacesAdded (o, a{sa{sv}}) with properties, or InterfacesRemoved (o, as), of x's object. */
static int append_interfaces(sd_bus_message *m, const ProcessSignal *x, bool with_properties)
{
        int r;

        r = sd_bus_message_append(m, "o", x->path);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(m, 'a', with_properties ? "{sa{sv}}" : "s");
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(process_interfaces); i++) {
                if (!with_properties) {
                        r = sd_bus_message_append(m, "s", process_interfaces[i].name);
                        if (r < 0)
                                return r;
                        continue;
                }
                r = sd_bus_message_open_container(m, 'e', "sa{sv}");
                if (r < 0)
                        return r;
                r = append_interface(m, i, x);
                if (r < 0)
                        return r;
                r = sd_bus_message_close_container(m);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(m);
}

static int append_interfaces_added(sd_bus_message *m, const void *userdata)
{
        return append_interfaces(m, userdata, true);
}

static int append_interfaces_removed(sd_bus_message *m, const void *userdata)
{
        return append_interfaces(m, userdata, false);
}

static int append_properties_changed(sd_bus_message *m, const void *userdata)
{
        const ProcessSignal *x = userdata;
        int r;

        r = sd_bus_message_append(m, "s", BUS_PROCESS_INTERFACE);
        if (r < 0)
                return r;
        r = bus_append_vtable_properties(m, bus_process_vtable, x->path, BUS_PROCESS_INTERFACE, x->process, true);
        if (r < 0)
                return r;
        return sd_bus_message_append(m, "as", 0);
}

static int append_process_changed(sd_bus_message *m, const void *userdata)
{
        const ProcessSignal *x = userdata;
        const Process *p = x->process;

        return sd_bus_message_append(m, "outu", x->has_object ? x->path : "/", (uint32_t) p->id.pid, p->id.start_time,
                        (uint32_t) p->uid);
}

static void signal_object_manager(BusContext *c, const ProcessSignal *x, const char *member, BusAppendBody append)
{
        bus_signal_subscribers_of(
                        c, x->process->uid, BUS_ROOT_PATH, "org.freedesktop.DBus.ObjectManager", member, append, x);
}

static int flush(sd_event_source *s, void *userdata);

#define FLUSH_INTERVAL_USEC (250 * 1000)

static void schedule_flush(BusContext *c)
{
        int r;

        if (c->flush_source) {
                (void) sd_event_source_set_enabled(c->flush_source, SD_EVENT_ONESHOT);
                return;
        }
        /* Idle priority: everything this loop iteration changes goes out in one batch. */
        r = sd_event_add_defer(c->manager->event, &c->flush_source, flush, c);
        if (r < 0) {
                log_warning_errno(r, "Failed to schedule PropertiesChanged");
                return;
        }
        (void) sd_event_source_set_priority(c->flush_source, SD_EVENT_PRIORITY_IDLE);
        /* Counters such as TrackedProcesses change with every exec on the machine: at most one flush per
         * FLUSH_INTERVAL_USEC, the first at once, a later one at the interval's end with everything that
         * changed meanwhile (the last value is always sent). */
        r = sd_event_source_set_ratelimit(c->flush_source, FLUSH_INTERVAL_USEC, 1);
        if (r < 0)
                log_debug_errno(r, "Failed to rate-limit PropertiesChanged");
        (void) sd_event_source_set_enabled(c->flush_source, SD_EVENT_ONESHOT);
}

void bus_manager_changed(BusContext *c)
{
        c->manager_dirty = true;
        schedule_flush(c);
}

void bus_process_changed(BusContext *c, Process *p)
{
        _cleanup_free_ char *path = NULL;
        ProcessSignal x = { .process = p, .has_object = manager_process_has_object(p) };

        bus_manager_changed(c);
        if (!x.has_object && !p->announced)
                return;
        if (bus_process_path(p, &path) < 0) {
                log_oom();
                return;
        }
        x.path = path;

        /* The object appears (InterfacesAdded) before the first ProcessChanged that names it, and is gone
         * before one that no longer does; property changes of existing objects are coalesced. */
        if (x.has_object && !p->announced) {
                p->announced = true;
                signal_object_manager(c, &x, "InterfacesAdded", append_interfaces_added);
        } else if (!x.has_object && p->announced) {
                signal_object_manager(c, &x, "InterfacesRemoved", append_interfaces_removed);
                p->announced = false;
        } else if (intmap_put(&c->dirty, (uint64_t) p->id.pid, p) < 0)
                log_oom();

        /* One signal per change of result, at once, with no details: subscribers ask GetProcess. */
        bus_signal_subscribers_of(
                        c, p->uid, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ProcessChanged", append_process_changed, &x);
}

void bus_process_removed(BusContext *c, Process *p)
{
        _cleanup_free_ char *path = NULL;

        if (intmap_get(&c->dirty, (uint64_t) p->id.pid) == p)
                (void) intmap_remove(&c->dirty, (uint64_t) p->id.pid);
        if (p->announced && bus_process_path(p, &path) >= 0)
                signal_object_manager(c, &(ProcessSignal){ .process = p, .path = path }, "InterfacesRemoved",
                                append_interfaces_removed);
        p->announced = false;
        bus_manager_changed(c);
}

static void flush_manager(BusContext *c)
{
        Manager *m = c->manager;
        char *names[8];
        size_t n = 0;

        if ((uint32_t) intmap_size(&m->profiles->processes) != c->last_tracked)
                names[n++] = (char *) "TrackedProcesses";
        if (m->profiles->generation != c->last_generation) {
                names[n++] = (char *) "ConfigGeneration";
                names[n++] = (char *) "RcFiles";
                names[n++] = (char *) "DriverVersion";
        }
        if (m->profiles->watch_state != c->last_watch || m->profiles->watch_reason != c->last_watch_reason)
                names[n++] = (char *) "ProcessWatchMode";
        if (m->profiles->watch_degraded != c->last_watch_degraded)
                names[n++] = (char *) "ProcessWatchDegraded";
        names[n] = NULL;

        c->last_tracked = (uint32_t) intmap_size(&m->profiles->processes);
        c->last_generation = m->profiles->generation;
        c->last_watch = m->profiles->watch_state;
        c->last_watch_reason = m->profiles->watch_reason;
        c->last_watch_degraded = m->profiles->watch_degraded;
        if (n > 0)
                (void) sd_bus_emit_properties_changed_strv(c->bus, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, names);
}

static int flush(sd_event_source *s, void *userdata)
{
        BusContext *c = userdata;
        Process *p;

        for (size_t i = 0; intmap_next(&c->dirty, &i, NULL, (void **) &p);) {
                _cleanup_free_ char *path = NULL;

                if (!p->announced || bus_process_path(p, &path) < 0)
                        continue;
                bus_signal_subscribers_of(c, p->uid, path, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                append_properties_changed, &(ProcessSignal){ .process = p, .path = path });
        }
        intmap_done(&c->dirty);

        if (c->manager_dirty) {
                c->manager_dirty = false;
                flush_manager(c);
        }
        return 0;
}
