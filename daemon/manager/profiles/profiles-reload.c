/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "log.h"
#include "process.h"
#include "profiles-reload.h"
#include "rc-config-slots.h"
#include "string-util.h"

/* The rc files read again (at start, on a change under a watched path, on Reload and SIGHUP) and the
 * tracked processes re-read against them. */

static void detect_driver_version(Manager *m)
{
        _cleanup_free_ char *v = NULL;

        if (m->config.driver_version) {
                if (!rc_driver_version_is_valid(m->config.driver_version)) {
                        log_warning("DriverVersion=%s is not a version; ignoring it.", m->config.driver_version);
                        return;
                }
                v = strdup(m->config.driver_version);
        } else if (rc_driver_version_detect(m->proc_fd, m->sys_fd, &v) < 0)
                v = NULL;

        if (!streq_ptr(v, m->driver_version))
                log_info("NVIDIA driver version: %s.", v ? v : "none found");
        free(m->driver_version);
        m->driver_version = TAKE_PTR(v);
}

static void log_file_problems(Manager *m)
{
        for (size_t i = 0; i < m->profiles->file_cache.n_entries; i++) {
                const RcCacheEntry *e = &m->profiles->file_cache.entries[i];
                const RcDiagnostic *d;
                char file_field[512];
                const char *fields[] = { "MESSAGE_ID=" LOG_MESSAGE_RC_FILE_BROKEN, file_field, NULL };
                uid_t uid;

                if (!e->current || e->current->state != RC_FILE_BROKEN ||
                                e->generation != m->profiles->file_cache.generation)
                        continue;
                /* Every broken file is said again at each reload: one a user's edit started is that
                 * user's doing, whoever's the files; any other, the doing of whose file it is. */
                uid = m->profiles->reload_cause != LOG_UID_NONE ? m->profiles->reload_cause
                                : e->uid == RC_CACHE_UID_SYSTEM ? LOG_UID_NONE
                                                                : e->uid;
                d = e->current->diagnostics.n_items > 0 ? &e->current->diagnostics.items[0] : NULL;
                snprintf(file_field, sizeof(file_field), "NVPROFILED_RC_FILE=%s", e->path);
                log_user_struct(uid, LOG_WARNING, fields, "rc file %s:%u:%u is broken: %s%s", e->path, d ? d->line : 0,
                                d ? d->column : 0, d ? d->message : "unknown error",
                                e->good ? "; its last good version stays in force" : "");
        }
}

/* Loads the system view and every host configuration in use again, so the watch set covers them all. */
static int load_configs(Manager *m)
{
        int r;

        /* The system view (no $HOME) always exists, for status and for processes without HOME. */
        m->profiles->system_config = rc_config_unref(m->profiles->system_config);
        r = manager_get_config(m, m->root_fd, NULL, NULL, &m->profiles->system_config);
        if (r < 0)
                return log_error_errno(r, "Failed to load the configuration");

        for (size_t i = 0; i < m->profiles->n_configs; i++) {
                _cleanup_(rc_config_unrefp) RcConfig *c = NULL;
                _cleanup_free_ char *home = NULL;
                UserCreds creds;

                if (!config_slot_is_host(m, &m->profiles->configs[i]) || !m->profiles->configs[i].home)
                        continue;
                /* Copies: loading may add a slot (a home that is another directory now). */
                creds = m->profiles->configs[i].creds;
                home = strdup(m->profiles->configs[i].home);
                if (!home)
                        return log_oom();
                r = manager_get_config(m, m->root_fd, home, &creds, &c);
                if (r < 0)
                        return log_error_errno(r, "Failed to load the configuration for %s", home);
        }
        return 0;
}

static int reload_configs(Manager *m)
{
        size_t n_errors = 0, n_files = 0;
        int r;

        detect_driver_version(m);
        m->profiles->generation++;
        rc_file_cache_begin(&m->profiles->file_cache);
        manager_configs_evict_idle(m);

        /* Watch first, read second: a change after this point triggers the next reload. */
        manager_update_watches(m);

        m->profiles->reloading = true;
        r = load_configs(m);
        m->profiles->reloading = false;
        if (r < 0)
                return r;
        rc_file_cache_prune(&m->profiles->file_cache);
        manager_watch_and_verify(m);

        for (size_t i = 0; i < m->profiles->system_config->n_files; i++)
                n_files += m->profiles->system_config->files[i]->state == RC_FILE_LOADED;
        n_errors = rc_config_count_errors(m->profiles->system_config);
        log_file_problems(m);
        {
                char gen[64];
                const char *fields[] = { "MESSAGE_ID=" LOG_MESSAGE_RC_RELOADED, gen, NULL };
                snprintf(gen, sizeof(gen), "NVPROFILED_GENERATION=%" PRIu64, m->profiles->generation);
                log_user_struct(m->profiles->reload_cause, LOG_INFO, fields,
                                "Application profiles loaded: %zu system files, %zu rules, %zu errors (generation %" PRIu64
                                ").",
                                n_files, m->profiles->system_config->n_rules, n_errors, m->profiles->generation);
        }
        return 0;
}

/* Whether a change of only user's files can change what p resolves to: its configuration is read with
 * its file access (as of its latest read), and its uid is the user's too in all but setuid programs. */
static bool process_reads_as(const Process *p, uid_t user)
{
        return user == LOG_UID_NONE || p->uid == user || p->fsuid == user;
}

/* Reloads the rc files and re-reads the tracked processes: every one, or (only: a uid) those only's files
 * can concern, so that one user saving a file often costs the daemon that user's processes, not all. */
static int reload_for(Manager *m, uid_t only)
{
        Process *p;
        pid_t *pids = NULL;
        size_t n = 0;
        int r;

        r = reload_configs(m);
        if (r < 0)
                return r;

        /* Collect pids first: re-reading may remove a process. */
        pids = calloc(MAX(intmap_size(&m->profiles->processes), (size_t) 1), sizeof(pid_t));
        if (!pids)
                return log_oom();
        for (size_t i = 0; intmap_next(&m->profiles->processes, &i, NULL, (void **) &p);)
                if (process_reads_as(p, only))
                        pids[n++] = p->id.pid;
        for (size_t i = 0; i < n; i++) {
                p = intmap_get(&m->profiles->processes, (uint64_t) pids[i]);
                if (!p)
                        continue;
                m->profiles->n_reload_rereads++;
                r = process_reread(p);
                if (r == -ESRCH)
                        process_remove(p);
        }
        free(pids);

        if (m->callbacks.reloaded)
                m->callbacks.reloaded(m, m->userdata);
        return 0;
}

int manager_reload(Manager *m)
{
        return reload_for(m, LOG_UID_NONE);
}

static void on_rc_changed(RcWatch *w, void *userdata)
{
        Manager *m = userdata;

        /* A user can save a file of theirs as often as they like: what the reload logs is theirs to count. */
        m->profiles->reload_cause = manager_watch_group_uid(rc_watch_cause(w));
        log_user_debug(m->profiles->reload_cause, "rc files changed, reloading.");
        (void) reload_for(m, rc_watch_cause_alone(w) ? m->profiles->reload_cause : LOG_UID_NONE);
        m->profiles->reload_cause = LOG_UID_NONE;
}

int profiles_start(Manager *m)
{
        int r;

        r = rc_watch_new(m->event, m->root_fd, m->config.reload_coalesce_usec, m->config.reload_max_delay_usec,
                        on_rc_changed, m, &m->profiles->rc_watch);
        if (r < 0)
                return log_error_errno(r, "Cannot set up rc file watching");
        return reload_configs(m);
}
