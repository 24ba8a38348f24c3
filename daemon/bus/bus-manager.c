/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdio.h>

#include "bus-common.h"
#include "fd-util.h"
#include "fileio.h"
#include "parse-util.h"
#include "process.h"
#include "rc-format.h"
#include "strv.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

static int property_get_version(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return sd_bus_message_append(reply, "s", PACKAGE_VERSION);
}

static int property_get_driver_version(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return sd_bus_message_append(reply, "s", strempty(c->manager->driver_version));
}

static int property_get_watch_mode(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return sd_bus_message_append(reply, "s", manager_watch_state_to_string(c->manager->watch_state));
}

static int property_get_tracked(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return sd_bus_message_append(reply, "u", (uint32_t) intmap_size(&c->manager->processes));
}

static int property_get_matched(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return sd_bus_message_append(reply, "u", (uint32_t) c->manager->n_matched);
}

static int property_get_events(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return sd_bus_message_append(reply, "t", c->manager->n_events);
}

static int property_get_overruns(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return sd_bus_message_append(reply, "t", c->manager->n_overruns);
}

static int property_get_generation(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        return sd_bus_message_append(reply, "t", c->manager->generation);
}

/* The state of a file as the daemon holds it, which can differ from what the file says now. */
/* A loaded file as the daemon holds it: its state ("stale" when it broke and this older version stays in
 * force) and the version whose diagnostics describe the file now. */
static const char *file_state(const Manager *m, const RcFile *f, const RcFile **ret_now)
{
        for (size_t i = 0; i < m->file_cache.n_entries; i++) {
                const RcCacheEntry *e = &m->file_cache.entries[i];
                if (e->good == f && rc_cache_entry_is_stale(e)) {
                        *ret_now = e->current;
                        return "stale";
                }
        }
        *ret_now = f;
        return rc_file_state_to_string(f->state);
}

static int property_get_rc_files(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        const RcConfig *cfg = c->manager->system_config;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(ssuu)");
        for (size_t i = 0; r >= 0 && cfg && i < cfg->n_files; i++) {
                const RcFile *f = cfg->files[i];
                const RcFile *now;
                const char *state = file_state(c->manager, f, &now);
                r = sd_bus_message_append(reply, "(ssuu)", f->path, state, (uint32_t) now->diagnostics.n_errors,
                                (uint32_t) now->diagnostics.n_warnings);
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int method_list_processes(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        sd_bus_message *reply = NULL;
        uid_t caller;
        Process *p;
        int r;

        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(outussasu)");
        for (size_t i = 0; r >= 0 && intmap_next(&c->manager->processes, &i, NULL, (void **) &p);) {
                _cleanup_free_ char *path = NULL;
                bool visible = manager_may_see(caller, p->uid);

                if (!manager_may_list(c->manager, caller, p->uid))
                        continue;
                if (p->announced && bus_process_path(p, &path) < 0) {
                        r = -ENOMEM;
                        break;
                }
                r = sd_bus_message_open_container(reply, 'r', "outussasu");
                if (r >= 0)
                        r = sd_bus_message_append(reply, "outuss", path ? path : "/", (uint32_t) p->id.pid,
                                        p->id.start_time, (uint32_t) p->uid, strempty(p->comm),
                                        visible ? strempty(p->exe) : "");
                if (r >= 0)
                        r = sd_bus_message_append_strv(reply, visible ? p->profiles : NULL);
                if (r >= 0)
                        r = sd_bus_message_append(reply, "u", visible ? p->n_settings : 0);
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        return r;
}

/* Explains a live process for a caller who may see it. */
int bus_explain(BusContext *c, sd_bus_message *m, pid_t pid, uint64_t start_time, sd_bus_error *error)
{
        _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
        sd_bus_message *reply = NULL;
        RcResolution *res = NULL;
        char what[64];
        uid_t caller;
        bool container;
        int r;

        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;

        snprintf(what, sizeof(what), "pid %i", (int) pid);
        r = manager_explain_process(c->manager, pid, start_time, &res, &f);
        if (r < 0)
                return bus_reply_errno(error, r, what);
        if (!manager_may_see(caller, f.uid)) {
                rc_resolution_free(res);
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                "Process %i belongs to another user; only root may see its details.", (int) pid);
        }

        container = manager_root_is_foreign(c->manager, f.root_fd);
        {
                RcProcessFacts rf = {
                        .exe = f.exe,
                        .comm = f.comm,
                        .argv = f.argv,
                        .dsos = f.dsos,
                        .environ = f.env,
                        .root_fd = -EBADF,
                };
                r = sd_bus_message_new_method_return(m, &reply);
                if (r >= 0)
                        r = bus_append_resolution(reply, res, &rf, &f.id, f.uid, container);
        }
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        rc_resolution_free(res);
        return r;
}

static int method_explain_process(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        uint32_t pid;
        uint64_t start_time;
        int r;

        r = sd_bus_message_read(m, "ut", &pid, &start_time);
        if (r < 0)
                return r;
        if (pid == 0 || pid > INT32_MAX)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Invalid pid %u.", pid);
        return bus_explain(userdata, m, (pid_t) pid, start_time, error);
}

/* The pid behind a pidfd, from /proc/self/fdinfo: "Pid:\t<n>" (-1 once the process has exited). */
static int pidfd_get_pid(int fd, pid_t *ret)
{
        _cleanup_free_ char *text = NULL;
        char path[64];
        const char *p;
        int32_t v;
        int r;

        snprintf(path, sizeof(path), "/proc/self/fdinfo/%i", fd);
        r = read_virtual_file_at(AT_FDCWD, path, 4096, &text, NULL);
        if (r < 0)
                return r;
        p = strstr(text, "\nPid:");
        if (!p)
                return -EBADF; /* not a pidfd */
        if (sscanf(p + 5, "%" SCNd32, &v) != 1)
                return -EBADF;
        if (v <= 0)
                return -ESRCH;
        *ret = (pid_t) v;
        return 0;
}

static int method_explain_pidfd(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        ProcIdentity id;
        pid_t pid;
        int fd, r;

        r = sd_bus_message_read(m, "h", &fd);
        if (r < 0)
                return r;
        r = pidfd_get_pid(fd, &pid);
        if (r == -EBADF)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "The file descriptor is not a pidfd.");
        if (r < 0)
                return bus_reply_errno(error, r, "the pidfd's process");
        /* Pin the identity now; the pidfd keeps the pid from being reused while we look. */
        r = proc_identity_read(c->manager->proc_fd, pid, &id);
        if (r < 0)
                return bus_reply_errno(error, r, "the pidfd's process");
        r = pidfd_get_pid(fd, &pid);
        if (r < 0)
                return bus_reply_errno(error, r, "the pidfd's process");
        return bus_explain(c, m, pid, id.start_time, error);
}

typedef struct HypotheticalFacts {
        char *exe, *comm;
        char **argv, **dsos, **environ, **exe_dir_files;
} HypotheticalFacts;

static void hypothetical_facts_done(HypotheticalFacts *h)
{
        free(h->exe);
        free(h->comm);
        strv_free(h->argv);
        strv_free(h->dsos);
        strv_free(h->environ);
        strv_free(h->exe_dir_files);
}

static int read_bounded_strv(sd_bus_message *m, const ManagerConfig *cfg, char ***ret)
{
        char **l = NULL;
        int r;

        r = sd_bus_message_read_strv(m, &l);
        if (r < 0)
                return r;
        if (strv_length(l) > cfg->bus_list_max) {
                strv_free(l);
                return -E2BIG;
        }
        STRV_FOREACH(s, l)
                if (strlen(*s) > cfg->bus_string_max) {
                        strv_free(l);
                        return -E2BIG;
                }
        strv_free(*ret);
        *ret = l;
        return 0;
}

static int read_bounded_string(sd_bus_message *m, const ManagerConfig *cfg, char **ret)
{
        const char *s;
        int r;

        r = sd_bus_message_read(m, "s", &s);
        if (r < 0)
                return r;
        if (strlen(s) > cfg->bus_string_max)
                return -E2BIG;
        free(*ret);
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int read_facts(sd_bus_message *m, const ManagerConfig *cfg, HypotheticalFacts *h, sd_bus_error *error)
{
        unsigned n = 0;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                const char *key;

                if (++n > 16)
                        return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED, "Too many facts.");
                r = sd_bus_message_read(m, "s", &key);
                if (r < 0)
                        return r;

                if (streq(key, "exe") || streq(key, "comm")) {
                        r = sd_bus_message_enter_container(m, 'v', "s");
                        if (r < 0)
                                return sd_bus_error_setf(
                                                error, SD_BUS_ERROR_INVALID_ARGS, "Fact \"%s\" must be a string.", key);
                        r = read_bounded_string(m, cfg, streq(key, "exe") ? &h->exe : &h->comm);
                } else if (streq(key, "argv") || streq(key, "dsos") || streq(key, "environ") ||
                                streq(key, "exe_dir_files")) {
                        char ***target = streq(key, "argv")     ? &h->argv
                                        : streq(key, "dsos")    ? &h->dsos
                                        : streq(key, "environ") ? &h->environ
                                                                : &h->exe_dir_files;
                        r = sd_bus_message_enter_container(m, 'v', "as");
                        if (r < 0)
                                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                                "Fact \"%s\" must be a string array.", key);
                        r = read_bounded_strv(m, cfg, target);
                } else
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Unknown fact \"%s\".", key);
                if (r == -E2BIG)
                        return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED, "Fact \"%s\" is too long.", key);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

static int method_resolve(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        _cleanup_(hypothetical_facts_done) HypotheticalFacts h = { 0 };
        sd_bus_message *reply = NULL;
        RcResolution *res = NULL;
        RcConfig *config = NULL;
        const char *home;
        uid_t caller;
        int r;

        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;
        r = read_facts(m, &c->manager->config, &h, error);
        if (r < 0)
                return r;

        home = strv_env_get(h.environ, "HOME");
        if (home && home[0] != '/')
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "HOME must be an absolute path.");

        /* $HOME's files are read as far as the caller could read them. */
        r = manager_get_config(c->manager, c->manager->root_fd, home, caller, &config);
        if (r < 0)
                return r;
        {
                RcProcessFacts rf = {
                        .exe = h.exe,
                        .comm = h.comm,
                        .argv = h.argv,
                        .dsos = h.dsos,
                        .environ = h.environ,
                        .root_fd = -EBADF,
                        .exe_dir_files = h.exe_dir_files,
                };
                r = rc_resolve(config, &rf, &res);
                if (r >= 0)
                        r = sd_bus_message_new_method_return(m, &reply);
                if (r >= 0)
                        r = bus_append_resolution(reply, res, &rf, NULL, caller, false);
        }
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        rc_resolution_free(res);
        rc_config_unref(config);
        return r;
}

static int config_for_home(BusContext *c, sd_bus_message *m, RcConfig **ret, sd_bus_error *error)
{
        const char *home;
        uid_t caller;
        int r;

        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "s", &home);
        if (r < 0)
                return r;
        if (strlen(home) > c->manager->config.bus_string_max)
                return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED, "home is too long.");
        if (*home && home[0] != '/')
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "home must be \"\" or an absolute path.");
        return manager_get_config(c->manager, c->manager->root_fd, *home ? home : NULL, caller, ret);
}

typedef int (*ConfigListing)(sd_bus_message *reply, const RcConfig *config);

/* ListRules and ListProfiles: the configuration for the "home" argument, as one listing. */
static int reply_config_listing(BusContext *c, sd_bus_message *m, sd_bus_error *error, ConfigListing append)
{
        sd_bus_message *reply = NULL;
        RcConfig *config = NULL;
        int r;

        r = config_for_home(c, m, &config, error);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = append(reply, config);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        rc_config_unref(config);
        return r;
}

static int append_rules_listing(sd_bus_message *reply, const RcConfig *config)
{
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(suusss)");
        for (size_t i = 0; r >= 0 && i < config->n_rules; i++) {
                const RcRuleRef *ref = &config->rules[i];
                _cleanup_free_ char *pattern = NULL, *where = NULL;
                const char *profile;

                r = rc_pattern_format(&ref->rule->pattern, &pattern);
                if (r < 0)
                        break;
                if (ref->profile &&
                                asprintf(&where, "%s:%u:%u", ref->profile->location.file->path,
                                                ref->profile->location.line, ref->profile->location.column) < 0)
                        return -ENOMEM;
                /* The name as written, even when it resolves nowhere (profile_location then says ""). */
                profile = ref->rule->inline_profile
                                ? (ref->rule->inline_profile->name ? ref->rule->inline_profile->name : "(inline)")
                                : ref->rule->profile_name;
                r = sd_bus_message_append(reply, "(suusss)", ref->rule->location.file->path, ref->rule->location.line,
                                ref->rule->location.column, pattern, profile, strempty(where));
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int append_profiles_listing(sd_bus_message *reply, const RcConfig *config)
{
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(ssuua(sv))");
        for (size_t i = 0; r >= 0 && i < config->n_profiles; i++) {
                const RcProfile *p = config->profiles_by_id[i];

                r = sd_bus_message_open_container(reply, 'r', "ssuua(sv)");
                if (r >= 0)
                        r = sd_bus_message_append(reply, "ssuu", p->name, p->location.file->path, p->location.line,
                                        p->location.column);
                if (r >= 0)
                        r = sd_bus_message_open_container(reply, 'a', "(sv)");
                for (size_t k = 0; r >= 0 && k < p->n_settings; k++) {
                        r = sd_bus_message_open_container(reply, 'r', "sv");
                        if (r >= 0)
                                r = sd_bus_message_append(reply, "s", p->settings[k].key);
                        if (r >= 0)
                                r = bus_append_rc_value(reply, &p->settings[k].value);
                        if (r >= 0)
                                r = sd_bus_message_close_container(reply);
                }
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int method_list_rules(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return reply_config_listing(userdata, m, error, append_rules_listing);
}

static int method_list_profiles(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return reply_config_listing(userdata, m, error, append_profiles_listing);
}

static int append_diagnostics(sd_bus_message *reply, const char *path, const char *state, const RcDiagnostics *d)
{
        int r = 0;

        for (size_t i = 0; r >= 0 && i < d->n_items; i++)
                r = sd_bus_message_append(reply, "(sssuus)", d->items[i].path ? d->items[i].path : path, state,
                                rc_severity_to_string(d->items[i].severity), d->items[i].line, d->items[i].column,
                                d->items[i].message);
        return r;
}

static int append_config_errors(Manager *mgr, sd_bus_message *reply, const RcConfig *cfg, char ***seen)
{
        int r;

        r = append_diagnostics(reply, "", "config", &cfg->diagnostics);
        for (size_t i = 0; r >= 0 && i < cfg->n_files; i++) {
                const RcFile *f = cfg->files[i];
                const RcFile *now;
                const char *state = file_state(mgr, f, &now);

                if (strv_contains(*seen, f->path))
                        continue;
                r = strv_extend(seen, f->path);
                if (r >= 0)
                        r = append_diagnostics(reply, f->path, state, &now->diagnostics);
        }
        if (r >= 0 && cfg->globals && !strv_contains(*seen, cfg->globals->path)) {
                r = strv_extend(seen, cfg->globals->path);
                if (r >= 0)
                        r = append_diagnostics(reply, cfg->globals->path, rc_file_state_to_string(cfg->globals->state),
                                        &cfg->globals->diagnostics);
        }
        return r;
}

static int method_list_errors(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        Manager *mgr = c->manager;
        sd_bus_message *reply = NULL;
        char **seen = NULL;
        uid_t caller;
        int r;

        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(sssuus)");
        if (r >= 0 && mgr->system_config)
                r = append_config_errors(mgr, reply, mgr->system_config, &seen);
        for (size_t i = 0; r >= 0 && i < mgr->n_configs; i++) {
                const ConfigSlot *s = &mgr->configs[i];
                if (!s->config || !s->home || !manager_may_see(caller, s->uid))
                        continue;
                r = append_config_errors(mgr, reply, s->config, &seen);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        strv_free(seen);
        return r;
}

static int method_reload(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        int r;

        r = manager_reload(c->manager);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, NULL);
}

/* Methods that only read are open to every user (privacy is enforced inside); Reload is not flagged
 * UNPRIVILEGED, so sd-bus restricts it to callers with CAP_SYS_ADMIN. */
const sd_bus_vtable bus_manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", property_get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("DriverVersion", "s", property_get_driver_version, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ProcessWatchMode", "s", property_get_watch_mode, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("TrackedProcesses", "u", property_get_tracked, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("MatchedProcesses", "u", property_get_matched, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        /* Counters change with every event: readers poll them, no signal per event. */
        SD_BUS_PROPERTY("ProcessEvents", "t", property_get_events, 0, 0),
        SD_BUS_PROPERTY("EventOverruns", "t", property_get_overruns, 0, 0),
        SD_BUS_PROPERTY("ConfigGeneration", "t", property_get_generation, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("RcFiles", "a(ssuu)", property_get_rc_files, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_ARGS("ListProcesses", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(outussasu)", processes),
                        method_list_processes, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ExplainProcess", SD_BUS_ARGS("u", pid, "t", start_time),
                        SD_BUS_RESULT(RESOLUTION_SIGNATURE, resolution), method_explain_process,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ExplainProcessByPidfd", SD_BUS_ARGS("h", pidfd),
                        SD_BUS_RESULT(RESOLUTION_SIGNATURE, resolution), method_explain_pidfd,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Resolve", SD_BUS_ARGS("a{sv}", facts), SD_BUS_RESULT(RESOLUTION_SIGNATURE, resolution),
                        method_resolve, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListRules", SD_BUS_ARGS("s", home), SD_BUS_RESULT("a(suusss)", rules),
                        method_list_rules, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListProfiles", SD_BUS_ARGS("s", home), SD_BUS_RESULT("a(ssuua(sv))", profiles),
                        method_list_profiles, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListErrors", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sssuus)", errors), method_list_errors,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Reload", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_reload, 0),
        SD_BUS_SIGNAL_WITH_ARGS("ProcessChanged", SD_BUS_ARGS("o", object, "u", pid, "t", start_time, "u", uid), 0),
        SD_BUS_SIGNAL_WITH_ARGS("Reloaded", SD_BUS_ARGS("t", generation), 0),
        SD_BUS_VTABLE_END,
};
