/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <systemd/sd-bus.h>

#include "bus-names.h"
#include "manager.h"

/* Thin D-Bus glue over the Manager; dbus/io.github.nvprofiled.NvProfiled1.xml is the contract. */

#define RESOLUTION_SIGNATURE "(sa{sv}a(suussb)a(svssuussa(vssuu))as)"

typedef struct BusContext {
        sd_bus *bus;
        Manager *manager;
        sd_event_source *flush_source; /* coalesces PropertiesChanged/ObjectAdded per loop iteration */
        ProcIdentity *dirty; /* processes whose properties changed since the last flush */
        size_t n_dirty, allocated_dirty;
        bool manager_dirty;
        /* What the last PropertiesChanged said, to emit only real changes. */
        uint32_t last_tracked, last_matched;
        uint64_t last_generation;
        ManagerWatchState last_watch;
} BusContext;

extern const sd_bus_vtable bus_manager_vtable[];
extern const sd_bus_vtable bus_process_vtable[];
extern const sd_bus_error_map bus_error_map[];

/* The caller's effective uid, from the bus's credentials (never from /proc, which is racy). */
int bus_caller_uid(sd_bus_message *m, uid_t *ret);

/* Sets one of our error names for a negative errno; returns the errno for sd-bus. */
int bus_reply_errno(sd_bus_error *error, int r, const char *what);

/* Appends a setting value as a variant: s, x, t, d or b. */
int bus_append_rc_value(sd_bus_message *m, const RcValue *v);

/* Appends the RESOLUTION struct. id may be NULL (hypothetical process). */
int bus_append_resolution(sd_bus_message *reply, const RcResolution *res, const RcProcessFacts *facts,
                const ProcIdentity *id, uid_t uid, bool container);

/* Object path of a process: BUS_PROCESS_PREFIX/<pid>_<start time>. */
int bus_process_path(const Process *p, char **ret);
int bus_process_path_parse(const char *path, ProcIdentity *ret);

int bus_explain(BusContext *c, sd_bus_message *m, pid_t pid, uint64_t start_time, sd_bus_error *error);

/* Hooks for the manager callbacks. */
void bus_process_changed(BusContext *c, Process *p);
void bus_process_removed(BusContext *c, Process *p);
void bus_manager_changed(BusContext *c);
int bus_process_enumerator(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes, sd_bus_error *error);
int bus_process_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                sd_bus_error *error);
