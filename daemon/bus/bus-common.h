/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <systemd/sd-bus.h>

#include "bus-names.h"
#include "bus-signatures.h"
#include "intmap.h"
#include "manager-profiles.h"
#include "manager.h"
#include "user-counts.h"

/* Thin D-Bus glue over the Manager; dbus/io.github.nvprofiled.NvProfiled1.xml is the contract. */

#define LOG_CONTROL_PATH "/org/freedesktop/LogControl1"
#define LOG_CONTROL_INTERFACE "org.freedesktop.LogControl1"

typedef struct BusPolkitQuery BusPolkitQuery;
typedef struct BusSubscriber BusSubscriber;

typedef struct BusContext {
        sd_bus *bus;
        Manager *manager;
        sd_event_source *flush_source; /* coalesces PropertiesChanged per loop iteration */
        IntMap dirty; /* pid -> Process whose object's properties changed since the last flush */
        bool manager_dirty;
        /* What the last PropertiesChanged said, to emit only real changes. */
        uint32_t last_tracked;
        uint64_t last_generation;
        ManagerWatchState last_watch;
        ManagerWatchReason last_watch_reason;
        bool last_watch_degraded;

        /* CheckAuthorization calls to polkit that have not been answered yet, counted per caller's uid. */
        BusPolkitQuery *polkit_queries;
        UserCounts polkit_pending;

        /* Connections told about the processes they may see (bus-subscribers.c). */
        BusSubscriber *subscribers;
} BusContext;

extern const sd_bus_vtable bus_manager_vtable[];
extern const sd_bus_vtable bus_process_vtable[];
extern const sd_bus_vtable bus_log_control_vtable[];
extern const sd_bus_vtable bus_sections_vtable[];
extern const sd_bus_vtable bus_profiles_vtable[];
extern const sd_bus_error_map bus_error_map[];

/* The caller's effective uid, from the bus's credentials (never from /proc, which is racy). */
int bus_caller_uid(sd_bus_message *m, uid_t *ret);
/* Forgets the callers bus_caller_uid() remembers (at shutdown). */
void bus_caller_cache_clear(void);

/* The caller's file access (effective uid and gid, supplementary groups), from the bus's credentials. */
int bus_caller_creds(sd_bus_message *m, UserCreds *ret);

/* Sets one of our error names for a negative errno; returns the errno for sd-bus. */
int bus_reply_errno(sd_bus_error *error, int r, const char *what);

/* Appends a setting value as a variant: s, x, t, d or b. */
int bus_append_rc_value(sd_bus_message *m, const RcValue *v);

/* Appends the fields of the i-th struct of an array; userdata is what bus_append_struct_array() got. */
typedef int (*BusAppendFields)(sd_bus_message *m, size_t i, const void *userdata);

/* Appends an array of n structs whose contents are "contents" (the signature inside the parentheses),
 * each filled by append_fields. */
int bus_append_struct_array(
                sd_bus_message *m, const char *contents, size_t n, BusAppendFields append_fields, const void *userdata);

/* What the facts dictionary of a resolution says about the process it describes. */
typedef struct BusResolutionSubject {
        const ProcIdentity *id; /* NULL: a hypothetical process (no pid, start_time, uid, container) */
        uid_t uid;
        bool container;
        bool tracked_only; /* a tracked result: the daemon keeps no cmdline or mapped files for it */
} BusResolutionSubject;

/* Appends the RESOLUTION struct. */
int bus_append_resolution(sd_bus_message *reply, const RcResolution *res, const RcProcessFacts *facts,
                const BusResolutionSubject *subject);

/* Object path of a process: BUS_PROCESS_PREFIX/<pid>_<start time>. */
int bus_process_path(const Process *p, char **ret);
int bus_process_path_parse(const char *path, ProcIdentity *ret);

int bus_explain(BusContext *c, sd_bus_message *m, pid_t pid, uint64_t start_time, sd_bus_error *error);

/* Refuses a caller who may not see the details of processes of owner: NoSuchProcess for one who may not
 * even know it exists (OtherUsersProcesses=hide), AccessDenied otherwise. Returns 0 when allowed. */
int bus_check_may_see(BusContext *c, uid_t caller, uid_t owner, pid_t pid, sd_bus_error *error);

/* Hooks for the manager callbacks. */
void bus_process_changed(BusContext *c, Process *p);
void bus_process_removed(BusContext *c, Process *p);
void bus_manager_changed(BusContext *c);
int bus_process_enumerator(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes, sd_bus_error *error);
int bus_process_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                sd_bus_error *error);

/* Subscribe and Unsubscribe (bus-subscribers.c); the subscribers go with the context. */
int bus_method_subscribe(sd_bus_message *m, void *userdata, sd_bus_error *error);
int bus_method_unsubscribe(sd_bus_message *m, void *userdata, sd_bus_error *error);
void bus_subscribers_free(BusContext *c);

/* Appends the body of a signal. */
typedef int (*BusAppendBody)(sd_bus_message *m, const void *userdata);

/* Sends a signal, addressed to each, to the subscribers that may see the processes of owner, and to
 * nobody else: what only a process's owner and root may see is never broadcast. */
void bus_signal_subscribers_of(BusContext *c, uid_t owner, const char *path, const char *interface, const char *member,
                BusAppendBody append_body, const void *userdata);

/* Appends the properties of an interface of object as a{sv}, with the getters of its vtable (so the values
 * are those Get gives); changing_only: only those that emit PropertiesChanged. */
int bus_append_vtable_properties(sd_bus_message *m, const sd_bus_vtable *vtable, const char *path,
                const char *interface, void *object, bool changing_only);

/* Intercepts Properties.Set on the LogControl1 object so that writes are authorised like Reload. */
int bus_log_control_filter(sd_bus_message *m, void *userdata, sd_bus_error *error);
