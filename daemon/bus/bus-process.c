/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus-common.h"
#include "log.h"
#include "strv.h"

/* Which processes get an object: those a rule matched, and GPU users. */
static bool wants_object(const Process *p)
{
        return (p->resolution && p->resolution->n_matched > 0) || p->gpu_user;
}

/* Objects, and so their properties, exist only for callers who may see the process: properties are the
 * same for everyone who can read them (ObjectManager clients and proxies cache them). The lookups run
 * for the caller whose message is being dispatched, or for our own signals, which carry only what /proc
 * shows everyone. */
static bool object_visible(BusContext *c, sd_bus *bus, const Process *p)
{
        sd_bus_message *m;
        uid_t caller;

        if (c->emitting)
                return true;
        m = sd_bus_get_current_message(bus);
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
        SD_BUS_METHOD_WITH_ARGS("Explain", SD_BUS_NO_ARGS, SD_BUS_RESULT(RESOLUTION_SIGNATURE, resolution),
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
        if (!object_visible(c, bus, p))
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

        for (size_t i = 0; intmap_next(&c->manager->processes, &i, NULL, (void **) &p);) {
                char *path;

                if (!p->announced || !object_visible(c, bus, p))
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

static void emit_object_added(BusContext *c, const char *path)
{
        c->emitting = true;
        (void) sd_bus_emit_object_added(c->bus, path);
        c->emitting = false;
}

static void emit_object_removed(BusContext *c, const char *path)
{
        c->emitting = true;
        (void) sd_bus_emit_object_removed(c->bus, path);
        c->emitting = false;
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
        bool wants = wants_object(p);

        bus_manager_changed(c);
        if (!wants && !p->announced)
                return;
        if (bus_process_path(p, &path) < 0) {
                log_oom();
                return;
        }

        /* The object appears (InterfacesAdded) before the first ProcessChanged that names it, and is gone
         * before one that no longer does; property changes of existing objects are coalesced. */
        if (wants && !p->announced) {
                p->announced = true;
                emit_object_added(c, path);
        } else if (!wants && p->announced) {
                emit_object_removed(c, path);
                p->announced = false;
        } else if (intmap_put(&c->dirty, (uint64_t) p->id.pid, p) < 0)
                log_oom();

        /* One signal per change of result, at once; it carries what /proc shows everyone, no details. */
        (void) sd_bus_emit_signal(c->bus, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ProcessChanged", "outu",
                        wants ? path : "/", (uint32_t) p->id.pid, p->id.start_time, (uint32_t) p->uid);
}

void bus_process_removed(BusContext *c, Process *p)
{
        _cleanup_free_ char *path = NULL;

        if (intmap_get(&c->dirty, (uint64_t) p->id.pid) == p)
                (void) intmap_remove(&c->dirty, (uint64_t) p->id.pid);
        if (p->announced && bus_process_path(p, &path) >= 0)
                emit_object_removed(c, path);
        p->announced = false;
        bus_manager_changed(c);
}

static void flush_manager(BusContext *c)
{
        Manager *m = c->manager;
        char *names[8];
        size_t n = 0;

        if ((uint32_t) intmap_size(&m->processes) != c->last_tracked)
                names[n++] = (char *) "TrackedProcesses";
        if (m->n_matched != c->last_matched)
                names[n++] = (char *) "MatchedProcesses";
        if (m->generation != c->last_generation) {
                names[n++] = (char *) "ConfigGeneration";
                names[n++] = (char *) "RcFiles";
                names[n++] = (char *) "DriverVersion";
        }
        if (m->watch_state != c->last_watch)
                names[n++] = (char *) "ProcessWatchMode";
        if (m->watch_degraded != c->last_watch_degraded)
                names[n++] = (char *) "ProcessWatchDegraded";
        names[n] = NULL;

        c->last_tracked = (uint32_t) intmap_size(&m->processes);
        c->last_matched = m->n_matched;
        c->last_generation = m->generation;
        c->last_watch = m->watch_state;
        c->last_watch_degraded = m->watch_degraded;
        if (n > 0)
                (void) sd_bus_emit_properties_changed_strv(c->bus, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, names);
}

static int flush(sd_event_source *s, void *userdata)
{
        BusContext *c = userdata;
        Process *p;

        c->emitting = true;
        for (size_t i = 0; intmap_next(&c->dirty, &i, NULL, (void **) &p);) {
                _cleanup_free_ char *path = NULL;

                if (!p->announced || bus_process_path(p, &path) < 0)
                        continue;
                (void) sd_bus_emit_properties_changed(c->bus, path, BUS_PROCESS_INTERFACE, "Comm", "GpuUser", NULL);
        }
        c->emitting = false;
        intmap_done(&c->dirty);

        if (c->manager_dirty) {
                c->manager_dirty = false;
                flush_manager(c);
        }
        return 0;
}
