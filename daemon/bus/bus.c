/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus-address.h"
#include "bus-polkit.h"
#include "bus-usage.h"
#include "bus-report.h"
#include "bus.h"
#include "log.h"

static void on_process_changed(Manager *m, Process *p, void *userdata)
{
        bus_process_changed(userdata, p);
}

static void on_process_removed(Manager *m, Process *p, void *userdata)
{
        bus_process_removed(userdata, p);
}

static void on_reloaded(Manager *m, void *userdata)
{
        bus_context_reloaded(userdata);
}

static void on_status_changed(Manager *m, void *userdata)
{
        bus_manager_changed(userdata);
}

static void on_usage_changed(Manager *m, void *userdata)
{
        bus_usage_changed(userdata);
}

BusContext *bus_context_free(BusContext *c)
{
        if (!c)
                return NULL;
        /* The manager may outlive us: it must not call into a freed context. */
        if (c->manager)
                manager_set_callbacks(c->manager, &(ManagerCallbacks){ 0 }, NULL);
        bus_polkit_queries_free(c);
        bus_reports_free(c);
        bus_subscribers_free(c);
        bus_caller_cache_clear();
        sd_event_source_disable_unref(c->flush_source);
        intmap_done(&c->dirty);
        sd_bus_flush_close_unref(c->bus);
        return mfree(c);
}

static int bus_open(BusKind kind, const char *address, sd_bus **ret)
{
        switch (kind) {
        case BUS_KIND_SYSTEM:
                return sd_bus_open_system(ret);
        case BUS_KIND_SESSION:
                return sd_bus_open_user(ret);
        case BUS_KIND_ADDRESS:
                return bus_open_address(address, ret);
        case _BUS_KIND_MAX:
                break;
        }
        assert_not_reached();
}

typedef enum BusObjectKind {
        BUS_OBJECT_VTABLE, /* one object: path, interface, vtable */
        BUS_OBJECT_FALLBACK, /* every object below path: interface, vtable, find */
        BUS_OBJECT_ENUMERATOR, /* the nodes below path, for introspection and the object manager */
        BUS_OBJECT_MANAGER, /* org.freedesktop.DBus.ObjectManager at path */
        BUS_OBJECT_FILTER, /* a callback for every message to path, before its vtables */
} BusObjectKind;

typedef struct BusObject {
        BusObjectKind kind;
        const char *path;
        const char *interface;
        const sd_bus_vtable *vtable;
        sd_bus_object_find_t find;
        sd_bus_node_enumerator_t enumerator;
        sd_bus_message_handler_t filter;
} BusObject;

/* Every object the daemon serves, in one place and in the order it is registered: sd-bus runs an
 * object's callbacks before its vtables, so LogControl's filter comes before its vtable. Each vtable's
 * userdata is the BusContext. */
static const BusObject bus_objects[] = {
        { BUS_OBJECT_VTABLE, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, bus_manager_vtable },
        { BUS_OBJECT_FALLBACK, BUS_PROCESS_PREFIX, BUS_PROCESS_INTERFACE, bus_process_vtable,
                        .find = bus_process_find },
        { BUS_OBJECT_VTABLE, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, bus_usage_vtable },
        { BUS_OBJECT_FALLBACK, BUS_PROCESS_PREFIX, BUS_PROCESS_USAGE_INTERFACE, bus_process_usage_vtable,
                        .find = bus_process_find },
        { BUS_OBJECT_ENUMERATOR, BUS_PROCESS_PREFIX, .enumerator = bus_process_enumerator },
        { BUS_OBJECT_VTABLE, BUS_ROOT_PATH, BUS_SECTIONS_INTERFACE, bus_sections_vtable },
        { BUS_OBJECT_VTABLE, BUS_ROOT_PATH, BUS_PROFILES_INTERFACE, bus_profiles_vtable },
        { BUS_OBJECT_FALLBACK, BUS_REPORT_PREFIX, BUS_REPORT_INTERFACE, bus_report_vtable, .find = bus_report_find },
        { BUS_OBJECT_ENUMERATOR, BUS_REPORT_PREFIX, .enumerator = bus_report_enumerator },
        { BUS_OBJECT_MANAGER, BUS_ROOT_PATH },
        { BUS_OBJECT_FILTER, LOG_CONTROL_PATH, .filter = bus_log_control_filter },
        { BUS_OBJECT_VTABLE, LOG_CONTROL_PATH, LOG_CONTROL_INTERFACE, bus_log_control_vtable },
};

static int register_object(BusContext *c, const BusObject *o)
{
        switch (o->kind) {
        case BUS_OBJECT_VTABLE:
                return sd_bus_add_object_vtable(c->bus, NULL, o->path, o->interface, o->vtable, c);
        case BUS_OBJECT_FALLBACK:
                return sd_bus_add_fallback_vtable(c->bus, NULL, o->path, o->interface, o->vtable, o->find, c);
        case BUS_OBJECT_ENUMERATOR:
                return sd_bus_add_node_enumerator(c->bus, NULL, o->path, o->enumerator, c);
        case BUS_OBJECT_MANAGER:
                return sd_bus_add_object_manager(c->bus, NULL, o->path);
        case BUS_OBJECT_FILTER:
                return sd_bus_add_object(c->bus, NULL, o->path, o->filter, c);
        }
        assert_not_reached();
}

static int register_objects(BusContext *c)
{
        int r;

        for (size_t i = 0; i < ELEMENTSOF(bus_objects); i++) {
                r = register_object(c, &bus_objects[i]);
                if (r < 0)
                        return r;
        }
        return bus_report_watch_owners(c);
}

int bus_context_new(Manager *m, BusKind kind, const char *address, BusContext **ret)
{
        _cleanup_(bus_context_freep) BusContext *c = NULL;
        ManagerCallbacks cb = {
                .process_changed = on_process_changed,
                .process_removed = on_process_removed,
                .reloaded = on_reloaded,
                .status_changed = on_status_changed,
                .usage_changed = on_usage_changed,
        };
        int r;

        c = calloc(1, sizeof(BusContext));
        if (!c)
                return log_oom();
        c->manager = m;
        bus_polkit_init(c);

        r = bus_open(kind, address, &c->bus);
        if (r < 0)
                return log_error_errno(r, "Failed to connect to the bus");

        r = sd_bus_error_add_map(bus_error_map);
        if (r < 0)
                return log_error_errno(r, "Failed to register error names");

        r = register_objects(c);
        if (r < 0)
                return log_error_errno(r, "Failed to register objects");

        r = sd_bus_attach_event(c->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(r, "Failed to attach the bus to the event loop");

        manager_set_callbacks(m, &cb, c);
        *ret = TAKE_PTR(c);
        return 0;
}

int bus_context_request_name(BusContext *c)
{
        int r;

        /* No queueing, no replacement: a second instance must fail loudly, not wait. */
        r = sd_bus_request_name(c->bus, BUS_NAME, 0);
        if (r == -EEXIST)
                return log_error_errno(r, "Another nvprofiled already owns %s on this bus", BUS_NAME);
        if (r < 0)
                return log_error_errno(r, "Failed to take the name %s", BUS_NAME);
        return 0;
}

void bus_context_reloaded(BusContext *c)
{
        (void) sd_bus_emit_signal(c->bus, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Reloaded", "t",
                        c->manager->profiles->generation);
        bus_manager_changed(c);
}
