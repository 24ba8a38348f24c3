/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus-common.h"
#include "strv.h"

/* Which processes get an object: those a rule matched, and GPU users. */
static bool wants_object(const Process *p)
{
        return (p->resolution && p->resolution->n_matched > 0) || p->gpu_user;
}

static uid_t current_caller(sd_bus *bus, bool *ok)
{
        sd_bus_message *m = sd_bus_get_current_message(bus);
        uid_t uid = UINT32_MAX;

        *ok = m && bus_caller_uid(m, &uid) >= 0;
        return uid;
}

static bool caller_may_see(sd_bus *bus, const Process *p)
{
        bool ok;
        uid_t uid = current_caller(bus, &ok);
        return ok && manager_may_see(uid, p->uid);
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

/* Redacted for other users: readlink of /proc/<pid>/exe is not theirs to do either. */
static int property_get_executable(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        Process *p = userdata;
        return sd_bus_message_append(reply, "s", caller_may_see(bus, p) ? strempty(p->exe) : "");
}

static int property_get_profiles(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        Process *p = userdata;
        return sd_bus_message_append_strv(reply, caller_may_see(bus, p) ? p->profiles : NULL);
}

static int property_get_settings_count(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        Process *p = userdata;
        return sd_bus_message_append(reply, "u", caller_may_see(bus, p) ? p->n_settings : 0);
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

const sd_bus_vtable bus_process_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Pid", "u", property_get_pid, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("StartTime", "t", property_get_start_time, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Uid", "u", property_get_uid, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Comm", "s", property_get_comm, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Executable", "s", property_get_executable, 0, SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
        SD_BUS_PROPERTY("Profiles", "as", property_get_profiles, 0, SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
        SD_BUS_PROPERTY("SettingsCount", "u", property_get_settings_count, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
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
        if (c->manager->config.hide_other_users) {
                bool ok;
                uid_t uid = current_caller(bus, &ok);
                if (!ok || !manager_may_list(c->manager, uid, p->uid))
                        return 0;
        }
        *ret_found = p;
        return 1;
}

int bus_process_enumerator(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes, sd_bus_error *error)
{
        BusContext *c = userdata;
        char **nodes = NULL;
        Process *p;
        int r;

        bool ok = false;
        uid_t caller = c->manager->config.hide_other_users ? current_caller(bus, &ok) : 0;

        for (size_t i = 0; intmap_next(&c->manager->processes, &i, NULL, (void **) &p);) {
                char *path;

                if (!p->announced)
                        continue;
                if (c->manager->config.hide_other_users && (!ok || !manager_may_list(c->manager, caller, p->uid)))
                        continue;
                r = bus_process_path(p, &path);
                if (r >= 0)
                        r = strv_consume(&nodes, path);
                if (r < 0) {
                        strv_free(nodes);
                        return r;
                }
        }
        *ret_nodes = nodes;
        return 0;
}

static int flush(sd_event_source *s, void *userdata);

static void schedule_flush(BusContext *c)
{
        if (c->flush_source) {
                (void) sd_event_source_set_enabled(c->flush_source, SD_EVENT_ONESHOT);
                return;
        }
        /* Idle priority: everything this loop iteration changes goes out in one batch. */
        if (sd_event_add_defer(c->manager->event, &c->flush_source, flush, c) >= 0) {
                (void) sd_event_source_set_priority(c->flush_source, SD_EVENT_PRIORITY_IDLE);
                (void) sd_event_source_set_enabled(c->flush_source, SD_EVENT_ONESHOT);
        }
}

void bus_manager_changed(BusContext *c)
{
        c->manager_dirty = true;
        schedule_flush(c);
}

void bus_process_changed(BusContext *c, Process *p)
{
        _cleanup_free_ char *path = NULL;

        /* The signal goes out at once, one per change of result; it carries no details. */
        if (wants_object(p) || p->announced) {
                if (wants_object(p) && bus_process_path(p, &path) < 0)
                        return;
                (void) sd_bus_emit_signal(c->bus, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ProcessChanged", "outu",
                                path ? path : "/", (uint32_t) p->id.pid, p->id.start_time, (uint32_t) p->uid);
        }

        for (size_t i = 0; i < c->n_dirty; i++)
                if (proc_identity_equal(c->dirty[i], p->id))
                        goto done;
        if (GREEDY_REALLOC(c->dirty, c->allocated_dirty, c->n_dirty + 1) < 0)
                return;
        c->dirty[c->n_dirty++] = p->id;
done:
        c->manager_dirty = true;
        schedule_flush(c);
}

void bus_process_removed(BusContext *c, Process *p)
{
        _cleanup_free_ char *path = NULL;

        if (p->announced && bus_process_path(p, &path) >= 0)
                (void) sd_bus_emit_object_removed(c->bus, path);
        p->announced = false;
        c->manager_dirty = true;
        schedule_flush(c);
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
        names[n] = NULL;

        c->last_tracked = (uint32_t) intmap_size(&m->processes);
        c->last_matched = m->n_matched;
        c->last_generation = m->generation;
        c->last_watch = m->watch_state;
        if (n > 0)
                (void) sd_bus_emit_properties_changed_strv(c->bus, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, names);
}

static int flush(sd_event_source *s, void *userdata)
{
        BusContext *c = userdata;

        for (size_t i = 0; i < c->n_dirty; i++) {
                Process *p = manager_get_process(c->manager, c->dirty[i].pid);
                _cleanup_free_ char *path = NULL;

                if (!p || !proc_identity_equal(p->id, c->dirty[i]) || bus_process_path(p, &path) < 0)
                        continue;
                if (!p->announced && wants_object(p)) {
                        p->announced = true;
                        (void) sd_bus_emit_object_added(c->bus, path);
                } else if (p->announced && !wants_object(p)) {
                        (void) sd_bus_emit_object_removed(c->bus, path);
                        p->announced = false;
                } else if (p->announced)
                        (void) sd_bus_emit_properties_changed(c->bus, path, BUS_PROCESS_INTERFACE, "Comm", "Executable",
                                        "Profiles", "SettingsCount", "GpuUser", NULL);
        }
        c->n_dirty = 0;

        if (c->manager_dirty) {
                c->manager_dirty = false;
                flush_manager(c);
        }
        return 0;
}
