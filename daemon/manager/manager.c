/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "fileio.h"
#include "log.h"
#include "rc-config-slots.h"
#include "gpu-opens.h"
#include "manager-log.h"
#include "process-watch.h"
#include "manager-usage.h"
#include "manager.h"
#include "proc-parse.h"
#include "manager-reports.h"
#include "manager-sections.h"
#include "prometheus-textfile.h"
#include "manager-visibility.h"
#include "process-observers.h"
#include "process.h"
#include "string-util.h"
#include "strv.h"
#include "user-creds.h"

Manager *manager_free(Manager *m)
{
        Process *p;

        if (!m)
                return NULL;

        /* Free processes without callbacks: nobody is listening any more. */
        m->callbacks = (ManagerCallbacks){ 0 };
        for (size_t i = 0; intmap_next(&m->processes, &i, NULL, (void **) &p);)
                process_free(p);
        intmap_done(&m->processes);
        process_settle_free(m);
        manager_subscribers_free(m);

        manager_procwatch_stop(m);
        manager_gpu_stop(m);
        manager_sections_stop(m);
        m->reports = manager_reports_free(m->reports);
        manager_export_stop(m);
        manager_usage_stop(m);
        process_observers_free(m);
        manager_log_stop(m);
        rc_watch_free(m->rc_watch);
        manager_configs_free(m);
        rc_config_unref(m->system_config);
        rc_file_cache_done(&m->file_cache);
        if (m->collation)
                freelocale(m->collation);
        free(m->driver_version);
        safe_close(m->proc_fd);
        safe_close(m->sys_fd);
        safe_close(m->root_fd);
        free(m->config_file);
        manager_config_done(&m->config);
        sd_event_unref(m->event);
        return mfree(m);
}

static int open_dir(const char *path, int *ret)
{
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return log_error_errno(errno, "Cannot open directory %s", path);
        *ret = fd;
        return 0;
}

/* Once at start: whether the daemon, as it was started (under the unit: a user with ambient capabilities),
 * reads other users' processes after switching credentials as its work does (user_creds_self_test()). If it cannot, no
 * other user's $HOME or __GL_* variable is ever known and per-user rc files never apply: the administrator looks for
 * this message (nvprofiled.catalog), and status shows it. Only the live /proc says anything. */
static void check_process_access(Manager *m)
{
        const char *fields[] = { "MESSAGE_ID=" LOG_MESSAGE_PROCESS_ACCESS_DENIED, NULL };
        pid_t parent;

        if (!m->real_proc) {
                m->process_access = 1;
                return;
        }
        m->process_access = user_creds_self_test(m->proc_fd, &parent);
        if (m->process_access < 0)
                (void) log_user_full_errno(LOG_UID_NONE, LOG_WARNING, m->process_access, fields,
                                "Start-up self-test failed: other users' process environments cannot be read, so "
                                "their per-user rc files and __GL_* variables are not seen: /proc/%i/environ",
                                (int) parent);
        else
                log_debug("Start-up self-test: %s.",
                                m->process_access == 0 ? "other users' processes are readable"
                                                       : "not run, our parent runs as our uid");
}

int manager_new(sd_event *e, const ManagerConfig *config, const char *proc_path, const char *sys_path,
                const char *root_path, Manager **ret)
{
        _cleanup_(manager_freep) Manager *m = NULL;
        struct stat st, live;
        int r;

        assert(e);
        assert(config);
        assert(ret);

        m = calloc(1, sizeof(Manager));
        if (!m)
                return log_oom();
        m->event = sd_event_ref(e);
        m->proc_fd = m->sys_fd = m->root_fd = m->connector_fd = m->device_inotify_fd = -EBADF;
        m->reload_cause = LOG_UID_NONE;

        r = manager_config_copy(&m->config, config);
        if (r < 0)
                return log_oom();
        r = manager_log_start(m);
        if (r < 0)
                return r;

        r = open_dir(proc_path, &m->proc_fd);
        if (r < 0)
                return r;
        r = open_dir(sys_path, &m->sys_fd);
        if (r < 0)
                return r;
        r = open_dir(root_path, &m->root_fd);
        if (r < 0)
                return r;
        if (fstat(m->root_fd, &st) < 0)
                return log_error_errno(errno, "Cannot stat %s", root_path);
        m->root_dev = st.st_dev;
        m->root_ino = st.st_ino;

        /* Only the live /proc delivers events for the pids it lists. */
        m->real_proc = fstat(m->proc_fd, &st) >= 0 && stat("/proc", &live) >= 0 && st.st_dev == live.st_dev &&
                        st.st_ino == live.st_ino;
        {
                long hz = sysconf(_SC_CLK_TCK);
                m->nsec_per_tick = hz > 0 ? 1000000000u / (uint64_t) hz : 10000000u;
        }

        if (stat("/", &st) < 0)
                return log_error_errno(errno, "Cannot stat /");
        m->host_root_dev = st.st_dev;
        m->host_root_ino = st.st_ino;
        user_creds_self(&m->own_creds);
        check_process_access(m);
        cgroup_limits_read_self(&m->cgroup_limits);
        if (m->cgroup_limits.tasks_max != CGROUP_LIMIT_NONE || m->cgroup_limits.memory_max != CGROUP_LIMIT_NONE)
                log_debug("Our cgroup allows %" PRIu64 " tasks and %" PRIu64 " bytes (%" PRIu64 ": no limit); the"
                          " [Reports] budgets fit within.",
                                m->cgroup_limits.tasks_max, m->cgroup_limits.memory_max, CGROUP_LIMIT_NONE);

        if (m->config.collation && !streq(m->config.collation, "C")) {
                m->collation = newlocale(LC_COLLATE_MASK, m->config.collation, (locale_t) 0);
                if (!m->collation)
                        log_warning("Collation locale %s is not available, using C.", m->config.collation);
        }

        *ret = TAKE_PTR(m);
        return 0;
}

const char *manager_process_access(const Manager *m)
{
        return m->process_access == 0 ? "ok" : m->process_access > 0 ? "untested" : "denied";
}

void manager_set_callbacks(Manager *m, const ManagerCallbacks *cb, void *userdata)
{
        m->callbacks = *cb;
        m->userdata = userdata;
}

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
        for (size_t i = 0; i < m->file_cache.n_entries; i++) {
                const RcCacheEntry *e = &m->file_cache.entries[i];
                const RcDiagnostic *d;
                char file_field[512];
                const char *fields[] = { "MESSAGE_ID=" LOG_MESSAGE_RC_FILE_BROKEN, file_field, NULL };
                uid_t uid;

                if (!e->current || e->current->state != RC_FILE_BROKEN || e->generation != m->file_cache.generation)
                        continue;
                /* Every broken file is said again at each reload: one a user's edit started is that
                 * user's doing, whoever's the files; any other, the doing of whose file it is. */
                uid = m->reload_cause != LOG_UID_NONE           ? m->reload_cause
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
        m->system_config = rc_config_unref(m->system_config);
        r = manager_get_config(m, m->root_fd, NULL, NULL, &m->system_config);
        if (r < 0)
                return log_error_errno(r, "Failed to load the configuration");

        for (size_t i = 0; i < m->n_configs; i++) {
                _cleanup_(rc_config_unrefp) RcConfig *c = NULL;
                _cleanup_free_ char *home = NULL;
                UserCreds creds;

                if (!config_slot_is_host(m, &m->configs[i]) || !m->configs[i].home)
                        continue;
                /* Copies: loading may add a slot (a home that is another directory now). */
                creds = m->configs[i].creds;
                home = strdup(m->configs[i].home);
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
        m->generation++;
        rc_file_cache_begin(&m->file_cache);
        manager_configs_evict_idle(m);

        /* Watch first, read second: a change after this point triggers the next reload. */
        manager_update_watches(m);

        m->reloading = true;
        r = load_configs(m);
        m->reloading = false;
        if (r < 0)
                return r;
        rc_file_cache_prune(&m->file_cache);
        manager_watch_and_verify(m);

        for (size_t i = 0; i < m->system_config->n_files; i++)
                n_files += m->system_config->files[i]->state == RC_FILE_LOADED;
        n_errors = rc_config_count_errors(m->system_config);
        log_file_problems(m);
        {
                char gen[64];
                const char *fields[] = { "MESSAGE_ID=" LOG_MESSAGE_RC_RELOADED, gen, NULL };
                snprintf(gen, sizeof(gen), "NVPROFILED_GENERATION=%" PRIu64, m->generation);
                log_user_struct(m->reload_cause, LOG_INFO, fields,
                                "Application profiles loaded: %zu system files, %zu rules, %zu errors (generation %" PRIu64
                                ").",
                                n_files, m->system_config->n_rules, n_errors, m->generation);
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
        pids = calloc(MAX(intmap_size(&m->processes), (size_t) 1), sizeof(pid_t));
        if (!pids)
                return log_oom();
        for (size_t i = 0; intmap_next(&m->processes, &i, NULL, (void **) &p);)
                if (process_reads_as(p, only))
                        pids[n++] = p->id.pid;
        for (size_t i = 0; i < n; i++) {
                p = intmap_get(&m->processes, (uint64_t) pids[i]);
                if (!p)
                        continue;
                m->n_reload_rereads++;
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

int manager_set_config_file(Manager *m, const char *path, bool optional)
{
        char *copy = NULL;

        if (path) {
                copy = strdup(path);
                if (!copy)
                        return -ENOMEM;
        }
        free(m->config_file);
        m->config_file = copy;
        m->config_file_optional = optional;
        return 0;
}

/* What follows a change of each section: the settings read at each use need nothing. */
static void config_changed(Manager *m, char *const *changed)
{
        int r;

        if (manager_config_changed(changed, "ProcessWatch"))
                manager_procwatch_config_changed(m);
        if (manager_config_changed(changed, "Usage"))
                manager_usage_config_changed(m);
        if (manager_config_changed(changed, "Limits"))
                (void) manager_log_start(m);
        if (manager_config_changed(changed, "Sections") && m->sections)
                (void) manager_sections_reload(m);
        if (manager_config_changed(changed, "Export")) {
                manager_export_stop(m);
                r = manager_export_start(m);
                if (r < 0)
                        log_warning_errno(r, "Cannot start the export to %s", strna(m->config.export_textfile));
        }
}

int manager_apply_config(Manager *m, ManagerConfig *next)
{
        _cleanup_strv_free_ char **changed = NULL, **at_start = NULL;
        _cleanup_free_ char *changed_text = NULL;
        char file_field[PATH_MAX + 32];
        const char *fields[] = { "MESSAGE_ID=" LOG_MESSAGE_CONFIG_RELOADED, file_field, NULL };
        ManagerConfig old;
        int r;

        assert(m);
        assert(next);

        r = manager_config_compare(next, &m->config, &changed, &at_start);
        if (r < 0)
                return log_oom();
        STRV_FOREACH(s, at_start)
                log_warning("%s changed in %s: it takes effect at the next start; the running value stays.", *s,
                                strna(m->config_file));

        /* The new configuration in force, then what follows from it. */
        old = m->config;
        m->config = *next;
        *next = old;
        config_changed(m, changed);

        changed_text = strv_join(changed, " ");
        if (!changed_text)
                return log_oom();
        snprintf(file_field, sizeof(file_field), "NVPROFILED_CONFIG_FILE=%s", strna(m->config_file));
        log_user_struct(LOG_UID_NONE, LOG_INFO, fields, "Configuration %s re-read: %s%s.", strna(m->config_file),
                        changed ? "applied " : "nothing changed", changed_text);
        return 0;
}

int manager_reload_configuration(Manager *m)
{
        _cleanup_(manager_config_done) ManagerConfig next = { 0 };
        _cleanup_strv_free_ char **messages = NULL;
        int r;

        assert(m);

        if (m->config_file) {
                r = manager_config_load_file(m->config_file, m->config_file_optional, &next, &messages);
                STRV_FOREACH(msg, messages)
                        log_warning("%s", *msg);
                if (r < 0)
                        log_error_errno(r, "Cannot read %s; the configuration in force stays", m->config_file);
                else if (r > 0)
                        log_error("%s has %i errors; the configuration in force stays.", m->config_file, r);
                else
                        r = manager_apply_config(m, &next);
                if (r != 0) {
                        /* The rc files are read all the same: the reload was asked for them too. */
                        (void) manager_reload(m);
                        return r < 0 ? r : -EBADMSG;
                }
        }
        return manager_reload(m);
}

static void on_rc_changed(RcWatch *w, void *userdata)
{
        Manager *m = userdata;

        /* A user can save a file of theirs as often as they like: what the reload logs is theirs to count. */
        m->reload_cause = manager_watch_group_uid(rc_watch_cause(w));
        log_user_debug(m->reload_cause, "rc files changed, reloading.");
        (void) reload_for(m, rc_watch_cause_alone(w) ? m->reload_cause : LOG_UID_NONE);
        m->reload_cause = LOG_UID_NONE;
}

int manager_start_watching(Manager *m)
{
        int r;

        r = rc_watch_new(m->event, m->root_fd, m->config.reload_coalesce_usec, m->config.reload_max_delay_usec,
                        on_rc_changed, m, &m->rc_watch);
        if (r < 0)
                return log_error_errno(r, "Cannot set up rc file watching");

        r = reload_configs(m);
        if (r < 0)
                return r;

        r = manager_gpu_start(m);
        if (r < 0)
                log_warning_errno(r, "Cannot watch GPU device nodes, device opens will not trigger re-evaluation");

        r = manager_sections_start(m);
        if (r < 0)
                log_warning_errno(r, "Cannot load the section folders");
        r = manager_usage_start(m);
        if (r < 0)
                log_warning_errno(r, "Cannot set up GPU usage sampling");

        r = manager_export_start(m);
        if (r < 0)
                log_warning_errno(r, "Cannot start the export to %s", m->config.export_textfile);

        return manager_procwatch_start(m);
}

int manager_scan(Manager *m)
{
        return manager_rescan(m);
}

int manager_start(Manager *m)
{
        int r;

        r = manager_start_watching(m);
        if (r < 0)
                return r;
        return manager_scan(m);
}

bool manager_root_is_foreign(const Manager *m, int root_fd)
{
        struct stat st;

        return root_fd >= 0 && fstat(root_fd, &st) >= 0 &&
                        (st.st_dev != m->host_root_dev || st.st_ino != m->host_root_ino);
}

Process *manager_get_process(Manager *m, pid_t pid)
{
        return intmap_get(&m->processes, (uint64_t) pid);
}

int manager_process_owner(Manager *m, pid_t pid, uint64_t start_time, uid_t *ret)
{
        _cleanup_free_ char *status = NULL;
        Process *p = manager_get_process(m, pid);
        char path[32];
        size_t size;
        int r;

        if (p && (start_time == 0 || p->id.start_time == start_time)) {
                *ret = p->uid;
                return 0;
        }
        snprintf(path, sizeof(path), "%i/status", (int) pid);
        r = read_virtual_file_at(m->proc_fd, path, 16384, &status, &size);
        if (r < 0)
                return r == -ENOENT ? -ESRCH : r;
        return proc_parse_status_uid(status, size, ret);
}

int manager_explain_process(
                Manager *m, pid_t pid, uint64_t start_time, RcResolution **ret_resolution, ProcFacts *ret_facts)
{
        _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
        ProcIdentity expect = { pid, start_time };
        RcResolution *res = NULL;
        Process *p;
        int r;

        r = proc_facts_read(m->proc_fd, pid, start_time ? &expect : NULL,
                        PROC_FACTS_MAPS | PROC_FACTS_ENVIRON | PROC_FACTS_ROOT, &m->config.proc_limits, &f);
        if (r < 0)
                return r;

        r = process_resolve(m, &f, &res);
        if (r < 0)
                return r;

        /* Keep the tracked state in step with what we just told the caller. */
        p = manager_get_process(m, pid);
        if (p && proc_identity_equal(p->id, f.id))
                (void) process_reread(p);

        *ret_resolution = res;
        if (ret_facts) {
                *ret_facts = f;
                f = (ProcFacts){ .root_fd = -EBADF };
        }
        return 0;
}

const char *manager_watch_state_to_string(ManagerWatchState s)
{
        switch (s) {
        case MANAGER_WATCH_NONE:
                return "none";
        case MANAGER_WATCH_PROC_CONNECTOR:
                return "proc-connector";
        case MANAGER_WATCH_POLLING:
                return "polling";
        case _MANAGER_WATCH_STATE_MAX:
                break;
        }
        return NULL;
}
