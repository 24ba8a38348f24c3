/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>

#include "bus-common.h"
#include "bus-signatures.h"
#include "bus-polkit.h"
#include "rc-rule-id.h"
#include "bus-report.h"
#include "fd-util.h"
#include "fileio.h"
#include "manager-doctor.h"
#include "manager-visibility.h"
#include "parse-util.h"
#include "proc-parse.h"
#include "process.h"
#include "rc-format.h"
#include "strtable.h"
#include "strv.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

static int property_get_version(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return sd_bus_message_append(reply, "s", PACKAGE_VERSION);
}

/* Defines property_get_<name>(), which appends expr, a value read from the manager m, as bus_type. */
#define DEFINE_MANAGER_PROPERTY_GET(name, bus_type, expr)                                                          \
        static int property_get_##name(sd_bus *bus, const char *path, const char *interface, const char *property, \
                        sd_bus_message *reply, void *userdata, sd_bus_error *error)                                \
        {                                                                                                          \
                const Manager *m = ((const BusContext *) userdata)->manager;                                       \
                return sd_bus_message_append(reply, bus_type, expr);                                               \
        }                                                                                                          \
        struct __useless_struct_to_allow_trailing_semicolon__

DEFINE_MANAGER_PROPERTY_GET(driver_version, "s", strempty(m->driver_version));
DEFINE_MANAGER_PROPERTY_GET(watch_mode, "s", manager_watch_mode(m));
DEFINE_MANAGER_PROPERTY_GET(watch_degraded, "b", m->profiles->watch_degraded);
DEFINE_MANAGER_PROPERTY_GET(process_access, "s", manager_process_access(m));
DEFINE_MANAGER_PROPERTY_GET(tracked, "u", (uint32_t) intmap_size(&m->profiles->processes));
DEFINE_MANAGER_PROPERTY_GET(events, "t", m->profiles->n_events);
DEFINE_MANAGER_PROPERTY_GET(overruns, "t", m->profiles->n_overruns);
DEFINE_MANAGER_PROPERTY_GET(generation, "t", m->profiles->generation);

/* The cache entries whose file broke while an older good version stays in force, by that good version:
 * built once per reply, so describing n files costs O(n), not O(n * cache size). */
typedef struct StaleIndex {
        IntMap by_good; /* (uintptr_t) good RcFile -> RcCacheEntry */
} StaleIndex;

static void stale_index_done(StaleIndex *x)
{
        intmap_done(&x->by_good);
}

static int stale_index_build(const Manager *m, StaleIndex *ret)
{
        for (size_t i = 0; i < m->profiles->file_cache.n_entries; i++) {
                RcCacheEntry *e = &m->profiles->file_cache.entries[i];
                int r;

                if (!rc_cache_entry_is_stale(e))
                        continue;
                r = intmap_put(&ret->by_good, (uint64_t) (uintptr_t) e->good, e);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A loaded file as the daemon holds it: its state ("stale" when it broke and this older version stays in
 * force) and the version whose diagnostics describe the file now. */
static const char *file_state(const StaleIndex *x, const RcFile *f, const RcFile **ret_now)
{
        const RcCacheEntry *e = intmap_get(&x->by_good, (uint64_t) (uintptr_t) f);

        if (e) {
                *ret_now = e->current;
                return "stale";
        }
        *ret_now = f;
        return rc_file_state_to_string(f->state);
}

static int property_get_rc_files(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        const RcConfig *cfg = c->manager->profiles->system_config;
        _cleanup_(stale_index_done) StaleIndex stale = { 0 };
        int r;

        r = stale_index_build(c->manager, &stale);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(" BUS_RC_FILE_FIELDS ")");
        if (r < 0)
                return r;
        for (size_t i = 0; cfg && i < cfg->n_files; i++) {
                const RcFile *f = cfg->files[i];
                const RcFile *now;
                const char *state = file_state(&stale, f, &now);

                r = sd_bus_message_append(reply, "(" BUS_RC_FILE_FIELDS ")", f->path, state,
                                (uint32_t) now->diagnostics.n_errors, (uint32_t) now->diagnostics.n_warnings);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int append_process_entry(sd_bus_message *reply, const Process *p, uid_t caller)
{
        _cleanup_free_ char *path = NULL;
        bool visible = manager_may_see(caller, p->uid);
        int r;

        /* Only the objects the caller can look up are named (see bus-process.c). */
        if (visible && p->announced) {
                r = bus_process_path(p, &path);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_open_container(reply, 'r', BUS_PROCESS_ENTRY_FIELDS);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "outuss", path ? path : "/", (uint32_t) p->id.pid, p->id.start_time,
                        (uint32_t) p->uid, strempty(p->comm), visible ? strempty(p->exe) : "");
        if (r < 0)
                return r;
        r = sd_bus_message_append_strv(reply, visible ? p->profiles : NULL);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "u", visible ? p->n_settings : 0);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

static int method_list_processes(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uid_t caller;
        Process *p;
        int r;

        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(" BUS_PROCESS_ENTRY_FIELDS ")");
        if (r < 0)
                return r;
        for (size_t i = 0; intmap_next(&c->manager->profiles->processes, &i, NULL, (void **) &p);) {
                if (!manager_may_list(c->manager, caller, p->uid))
                        continue;
                r = append_process_entry(reply, p, caller);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* Explains a live process for a caller who may see it. */
int bus_explain(BusContext *c, sd_bus_message *m, pid_t pid, uint64_t start_time, sd_bus_error *error)
{
        _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
        _cleanup_(rc_resolution_freep) RcResolution *res = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        BusResolutionSubject subject = { 0 };
        RcProcessFacts rf;
        char what[64];
        uid_t caller, owner;
        int r;

        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;
        snprintf(what, sizeof(what), "pid %i", (int) pid);

        /* Privacy first: a process the caller may not see costs the daemon no /proc reading and no
         * resolution (a monitor of every user's signals must not make it work for nothing). */
        if (caller != 0) {
                r = manager_process_owner(c->manager, pid, start_time, &owner);
                if (r < 0)
                        return bus_reply_errno(error, r, what);
                r = bus_check_may_see(c, caller, owner, pid, error);
                if (r < 0)
                        return r;
        }

        r = manager_explain_process(c->manager, pid, start_time, &res, &f);
        if (r < 0)
                return bus_reply_errno(error, r, what);
        /* The pid may have been reused since: the process that was read must be the caller's too. */
        r = bus_check_may_see(c, caller, f.uid, pid, error);
        if (r < 0)
                return r;

        rf = (RcProcessFacts){
                .exe = f.exe,
                .comm = f.comm,
                .argv = f.argv,
                .dsos = f.dsos,
                .environ = f.env,
                .root_fd = -EBADF,
        };
        subject = (BusResolutionSubject){
                .id = &f.id,
                .uid = f.uid,
                .container = manager_root_is_foreign(c->manager, f.root_fd),
        };
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = bus_append_resolution(reply, res, &rf, &subject);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int read_pid_argument(sd_bus_message *m, pid_t *ret_pid, uint64_t *ret_start_time, sd_bus_error *error)
{
        uint32_t pid;
        int r;

        r = sd_bus_message_read(m, "ut", &pid, ret_start_time);
        if (r < 0)
                return r;
        if (pid == 0 || pid > INT32_MAX)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Invalid pid %" PRIu32 ".", pid);
        *ret_pid = (pid_t) pid;
        return 0;
}

/* The tracked result, as the last resolution left it: no /proc reading, no resolving. */
static int method_get_process(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *home = NULL;
        BusResolutionSubject subject;
        RcProcessFacts rf;
        uint64_t start_time = 0;
        uid_t caller;
        Process *p;
        pid_t pid = 0;
        int r;

        r = read_pid_argument(m, &pid, &start_time, error);
        if (r < 0)
                return r;
        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;

        p = manager_get_process(c->manager, pid);
        if (!p || (start_time != 0 && p->id.start_time != start_time))
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_PROCESS, "No such process: pid %i", (int) pid);
        r = bus_check_may_see(c, caller, p->uid, pid, error);
        if (r < 0)
                return r;
        if (!p->resolution)
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_PROCESS, "Process %i has no result yet.", (int) pid);

        if (p->home && asprintf(&home, "HOME=%s", p->home) < 0)
                return -ENOMEM;
        rf = (RcProcessFacts){
                .exe = p->exe,
                .comm = p->comm,
                .environ = home ? (char *[]){ home, NULL } : NULL,
                .root_fd = -EBADF,
        };
        subject = (BusResolutionSubject){ .id = &p->id, .uid = p->uid, .tracked_only = true };
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = bus_append_resolution(reply, p->resolution, &rf, &subject);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_explain_process(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        uint64_t start_time = 0;
        pid_t pid = 0;
        int r;

        r = read_pid_argument(m, &pid, &start_time, error);
        if (r < 0)
                return r;
        return bus_explain(userdata, m, pid, start_time, error);
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
        pid_t pid = 0;
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
        _cleanup_strv_free_ char **l = NULL;
        int r;

        r = sd_bus_message_read_strv(m, &l);
        if (r < 0)
                return r;
        if (strv_length(l) > cfg->bus_list_max)
                return -E2BIG;
        STRV_FOREACH(s, l)
                if (strlen(*s) > cfg->bus_string_max)
                        return -E2BIG;
        strv_free(*ret);
        *ret = TAKE_PTR(l);
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
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(rc_resolution_freep) RcResolution *res = NULL;
        _cleanup_(rc_config_unrefp) RcConfig *config = NULL;
        BusResolutionSubject subject = { 0 };
        RcProcessFacts rf;
        const char *home;
        UserCreds caller;
        int r;

        r = bus_caller_creds(m, &caller);
        if (r < 0)
                return r;
        r = read_facts(m, &c->manager->config, &h, error);
        if (r < 0)
                return r;

        home = strv_env_get(h.environ, "HOME");
        if (home && home[0] != '/')
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "HOME must be an absolute path.");

        /* $HOME's files are read as far as the caller could read them. */
        r = manager_get_config_for_caller(c->manager, home, &caller, &config);
        if (r == -EACCES)
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "HOME is not yours to read.");
        if (r < 0)
                return r;
        rf = (RcProcessFacts){
                .exe = h.exe,
                .comm = h.comm,
                .argv = h.argv,
                .dsos = h.dsos,
                .environ = h.environ,
                .root_fd = -EBADF,
                .exe_dir_files = h.exe_dir_files,
        };
        r = rc_resolve(config, &rf, &res);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = bus_append_resolution(reply, res, &rf, &subject);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* A "home" argument: "" (none) or an absolute path, within the bus's string bound. */
static int check_home_arg(BusContext *c, const char *home, sd_bus_error *error)
{
        if (strlen(home) > c->manager->config.bus_string_max)
                return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED, "home is too long.");
        if (*home && home[0] != '/')
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "home must be \"\" or an absolute path.");
        return 0;
}

static int config_for_home(BusContext *c, sd_bus_message *m, RcConfig **ret, sd_bus_error *error)
{
        const char *home;
        UserCreds caller;
        int r;

        r = bus_caller_creds(m, &caller);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "s", &home);
        if (r < 0)
                return r;
        r = check_home_arg(c, home, error);
        if (r < 0)
                return r;
        r = manager_get_config_for_caller(c->manager, *home ? home : NULL, &caller, ret);
        if (r == -EACCES)
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "home is not yours to read.");
        return r;
}

typedef int (*ConfigListing)(sd_bus_message *reply, const RcConfig *config);

/* ListRules and ListProfiles: the configuration for the "home" argument, as one listing. */
static int reply_config_listing(BusContext *c, sd_bus_message *m, sd_bus_error *error, ConfigListing append)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(rc_config_unrefp) RcConfig *config = NULL;
        int r;

        r = config_for_home(c, m, &config, error);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = append(reply, config);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int append_rules_listing(sd_bus_message *reply, const RcConfig *config)
{
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(suusss)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < config->n_rules; i++) {
                const RcRuleRef *ref = &config->rules[i];
                _cleanup_free_ char *pattern = NULL, *where = NULL;
                const char *profile;

                r = rc_pattern_format(&ref->rule->pattern, &pattern);
                if (r < 0)
                        return r;
                if (ref->profile &&
                                asprintf(&where, "%s:%u:%u", ref->profile->location.file->path,
                                                ref->profile->location.line, ref->profile->location.column) < 0)
                        return -ENOMEM;
                /* The name as written, even when it resolves nowhere (profile_location then says ""). */
                profile = rc_rule_profile_label(ref->rule);
                r = sd_bus_message_append(reply, "(suusss)", ref->rule->location.file->path, ref->rule->location.line,
                                ref->rule->location.column, pattern, profile, strempty(where));
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int append_profile_setting_fields(sd_bus_message *m, size_t i, const void *userdata)
{
        const RcProfile *p = userdata;
        int r;

        r = sd_bus_message_append(m, "s", p->settings[i].key);
        if (r < 0)
                return r;
        return bus_append_rc_value(m, &p->settings[i].value);
}

static int append_profile_fields(sd_bus_message *m, size_t i, const void *userdata)
{
        const RcConfig *config = userdata;
        const RcProfile *p = config->profiles_by_id[i];
        int r;

        r = sd_bus_message_append(m, "ssuu", p->name, p->location.file->path, p->location.line, p->location.column);
        if (r < 0)
                return r;
        return bus_append_struct_array(m, "sv", p->n_settings, append_profile_setting_fields, p);
}

static int append_profiles_listing(sd_bus_message *reply, const RcConfig *config)
{
        return bus_append_struct_array(reply, "ssuua(sv)", config->n_profiles, append_profile_fields, config);
}

static int method_list_rules(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return reply_config_listing(userdata, m, error, append_rules_listing);
}

static int method_list_profiles(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return reply_config_listing(userdata, m, error, append_profiles_listing);
}

/* What ListErrors has said already: files (borrowed paths) and messages (owned keys). A message about the
 * whole configuration is the same in every configuration that has it, and is said once. */
typedef struct ErrorListing {
        sd_bus_message *reply;
        StaleIndex stale;
        StrTable files;
        StrTable messages;
        char **message_keys;
        size_t n_message_keys, allocated_message_keys;
} ErrorListing;

static void error_listing_done(ErrorListing *l)
{
        stale_index_done(&l->stale);
        strtable_done(&l->files);
        strtable_done(&l->messages);
        for (size_t i = 0; i < l->n_message_keys; i++)
                free(l->message_keys[i]);
        free(l->message_keys);
}

/* > 0 when (file, severity, line, column, message) is new. */
static int error_listing_add_message(ErrorListing *l, const char *file, const char *severity, const RcDiagnostic *d)
{
        _cleanup_free_ char *key = NULL;
        bool is_new;
        int r;

        if (asprintf(&key, "%s%c%s%c%u%c%u%c%s", file, 0x1f, severity, 0x1f, d->line, 0x1f, d->column, 0x1f,
                            d->message) < 0)
                return -ENOMEM;
        if (GREEDY_REALLOC(l->message_keys, l->allocated_message_keys, l->n_message_keys + 1) < 0)
                return -ENOMEM;
        r = strtable_put(&l->messages, key, &is_new);
        if (r < 0)
                return r;
        if (!is_new)
                return 0;
        l->message_keys[l->n_message_keys++] = TAKE_PTR(key);
        return 1;
}

static int append_diagnostics(ErrorListing *l, const char *path, const char *state, const RcDiagnostics *d)
{
        int r;

        for (size_t i = 0; i < d->n_items; i++) {
                const RcDiagnostic *item = &d->items[i];
                const char *file = item->path ? item->path : path;
                const char *severity = rc_severity_to_string(item->severity);

                r = error_listing_add_message(l, file, severity, item);
                if (r < 0)
                        return r;
                if (r == 0)
                        continue;
                r = sd_bus_message_append(
                                l->reply, "(sssuus)", file, state, severity, item->line, item->column, item->message);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A file's diagnostics, the first time the file is met. */
static int append_file_errors(ErrorListing *l, const RcFile *f, const char *state, const RcDiagnostics *d)
{
        bool is_new;
        int r;

        r = strtable_put(&l->files, f->path, &is_new);
        if (r < 0)
                return r;
        if (!is_new)
                return 0;
        return append_diagnostics(l, f->path, state, d);
}

static int append_config_errors(ErrorListing *l, const RcConfig *cfg)
{
        int r;

        r = append_diagnostics(l, "", "config", &cfg->diagnostics);
        if (r < 0)
                return r;
        for (size_t i = 0; i < cfg->n_files; i++) {
                const RcFile *f = cfg->files[i];
                const RcFile *now;
                const char *state = file_state(&l->stale, f, &now);

                r = append_file_errors(l, f, state, &now->diagnostics);
                if (r < 0)
                        return r;
        }
        if (cfg->globals)
                return append_file_errors(l, cfg->globals, rc_file_state_to_string(cfg->globals->state),
                                &cfg->globals->diagnostics);
        return 0;
}

static int method_list_errors(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        Manager *mgr = c->manager;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(error_listing_done) ErrorListing listing = { 0 };
        uid_t caller;
        int r;

        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;
        r = stale_index_build(mgr, &listing.stale);
        if (r < 0)
                return r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        listing.reply = reply;
        r = sd_bus_message_open_container(reply, 'a', "(sssuus)");
        if (r < 0)
                return r;
        if (mgr->profiles->system_config) {
                r = append_config_errors(&listing, mgr->profiles->system_config);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < mgr->profiles->n_configs; i++) {
                const ConfigSlot *s = &mgr->profiles->configs[i];

                if (!s->config || !s->home || !manager_may_see(caller, s->uid))
                        continue;
                r = append_config_errors(&listing, s->config);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int append_finding_fields(sd_bus_message *m, size_t i, const void *userdata)
{
        const ManagerDoctorReport *report = userdata;
        const RcFinding *f = &report->findings[i];

        return sd_bus_message_append(m, "ssuuss", rc_doctor_kind_to_string(f->kind), strempty(f->path), f->line,
                        f->column, f->message, strempty(f->fix));
}

static int method_doctor(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(manager_doctor_report_done) ManagerDoctorReport report = { 0 };
        const char *scope_name, *home;
        ManagerDoctorScope scope;
        UserCreds caller;
        int r;

        r = bus_caller_creds(m, &caller);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "ss", &scope_name, &home);
        if (r < 0)
                return r;
        scope = manager_doctor_scope_from_string(scope_name);
        if (scope < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                "scope must be \"user\", \"system\" or \"all-users\".");
        r = check_home_arg(c, home, error);
        if (r < 0)
                return r;

        r = manager_doctor(c->manager, &caller, scope, *home ? home : NULL, &report);
        if (r == -EPERM)
                return sd_bus_error_setf(
                                error, SD_BUS_ERROR_ACCESS_DENIED, "Only root may ask about every user's files.");
        if (r == -EACCES)
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "home is not yours to read.");
        if (r < 0)
                return r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = bus_append_struct_array(reply, "ssuuss", report.n_findings, append_finding_fields, &report);
        if (r < 0)
                return r;
        r = sd_bus_message_append(
                        reply, "ub", (uint32_t) MIN(report.n_dropped, (size_t) UINT32_MAX), (int) !report.incomplete);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* Not a property: a property has one value for every caller, and whether another user's process matched
 * is not every caller's to know. */
static int method_count_matched(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        uid_t caller;
        int r;

        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, "u", (uint32_t) manager_matched_processes(c->manager, caller));
}

static int reload_authorized(BusContext *c, sd_bus_message *m, sd_bus_error *error)
{
        int r;

        r = manager_reload_configuration(c->manager);
        if (r < 0)
                /* The rc files were read again all the same; the journal names the file's errors. */
                return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED,
                                "The daemon's configuration file %s; the configuration in force stays (the journal "
                                "says more)",
                                r == -EBADMSG ? "has errors" : "cannot be read");
        return sd_bus_reply_method_return(m, NULL);
}

static int method_reload(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return bus_authorize(userdata, m, POLKIT_ACTION_RELOAD, reload_authorized, error);
}

/* Methods that only read are open to every user (privacy is enforced inside). Reload is open too at this
 * level: bus_authorize() lets root through and asks polkit about everyone else. */
const sd_bus_vtable bus_manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", property_get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("DriverVersion", "s", property_get_driver_version, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ProcessWatchMode", "s", property_get_watch_mode, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ProcessWatchDegraded", "b", property_get_watch_degraded, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ProcessAccess", "s", property_get_process_access, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("TrackedProcesses", "u", property_get_tracked, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        /* Counters change with every event: readers poll them, no signal per event. */
        SD_BUS_PROPERTY("ProcessEvents", "t", property_get_events, 0, 0),
        SD_BUS_PROPERTY("EventOverruns", "t", property_get_overruns, 0, 0),
        SD_BUS_PROPERTY("ConfigGeneration", "t", property_get_generation, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("RcFiles", "a(" BUS_RC_FILE_FIELDS ")", property_get_rc_files, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_ARGS("ListProcesses", SD_BUS_NO_ARGS,
                        SD_BUS_RESULT("a(" BUS_PROCESS_ENTRY_FIELDS ")", processes), method_list_processes,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ExplainProcess", SD_BUS_ARGS("u", pid, "t", start_time),
                        SD_BUS_RESULT(BUS_RESOLUTION_SIGNATURE, resolution), method_explain_process,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetProcess", SD_BUS_ARGS("u", pid, "t", start_time),
                        SD_BUS_RESULT(BUS_RESOLUTION_SIGNATURE, resolution), method_get_process,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ExplainProcessByPidfd", SD_BUS_ARGS("h", pidfd),
                        SD_BUS_RESULT(BUS_RESOLUTION_SIGNATURE, resolution), method_explain_pidfd,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Resolve", SD_BUS_ARGS("a{sv}", facts),
                        SD_BUS_RESULT(BUS_RESOLUTION_SIGNATURE, resolution), method_resolve,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListRules", SD_BUS_ARGS("s", home), SD_BUS_RESULT("a(suusss)", rules),
                        method_list_rules, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListProfiles", SD_BUS_ARGS("s", home), SD_BUS_RESULT("a(ssuua(sv))", profiles),
                        method_list_profiles, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListErrors", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sssuus)", errors), method_list_errors,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Doctor", SD_BUS_ARGS("s", scope, "s", home),
                        SD_BUS_RESULT("a(ssuuss)", findings, "u", dropped, "b", complete), method_doctor,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("CountMatchedProcesses", SD_BUS_NO_ARGS, SD_BUS_RESULT("u", matched),
                        method_count_matched, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Subscribe", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, bus_method_subscribe,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Unsubscribe", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, bus_method_unsubscribe,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Reload", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("LoadReport", SD_BUS_ARGS("h", fd), SD_BUS_RESULT("o", report), bus_method_load_report,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL_WITH_ARGS("ProcessChanged", SD_BUS_ARGS("o", object, "u", pid, "t", start_time, "u", uid), 0),
        SD_BUS_SIGNAL_WITH_ARGS("Reloaded", SD_BUS_ARGS("t", generation), 0),
        SD_BUS_VTABLE_END,
};
