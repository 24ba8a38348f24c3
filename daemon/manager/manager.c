/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "gpu-opens.h"
#include "log.h"
#include "manager-log.h"
#include "manager-profiles.h"
#include "manager-reports.h"
#include "manager-sections.h"
#include "manager-usage.h"
#include "manager-visibility.h"
#include "manager.h"
#include "process-observers.h"
#include "process-watch.h"
#include "process.h"
#include "profiles-reload.h"
#include "prometheus-textfile.h"
#include "rc-config-slots.h"
#include "remembered-names.h"
#include "string-util.h"
#include "strv.h"
#include "user-creds.h"

/* The thin object that wires the jobs: it creates the Manager every job is handed (core/manager.h), starts
 * the jobs in order, tells each what a configuration change concerns, and stops them. The jobs' work is in
 * their folders: profiles/, usage/, sections/, reports/. */

Manager *manager_free(Manager *m)
{
        Process *p;

        if (!m)
                return NULL;

        /* Free processes without callbacks: nobody is listening any more. */
        m->callbacks = (ManagerCallbacks){ 0 };
        remembered_names_stop(m);
        for (size_t i = 0; intmap_next(&m->profiles->processes, &i, NULL, (void **) &p);)
                process_free(p);
        intmap_done(&m->profiles->processes);
        process_settle_free(m);
        manager_subscribers_free(m);

        manager_procwatch_stop(m);
        manager_gpu_stop(m);
        manager_sections_stop(m);
        m->reports = manager_reports_free(m->reports);
        manager_prometheus_free(m);
        manager_usage_stop(m);
        process_observers_free(m);
        manager_log_stop(m);
        rc_watch_free(m->profiles->rc_watch);
        manager_configs_free(m);
        rc_config_unref(m->profiles->system_config);
        rc_file_cache_done(&m->profiles->file_cache);
        if (m->collation)
                freelocale(m->collation);
        free(m->driver_version);
        safe_close(m->proc_fd);
        safe_close(m->sys_fd);
        safe_close(m->root_fd);
        safe_close(m->state_dir_fd);
        free(m->config_file);
        manager_config_done(&m->config);
        sd_event_unref(m->event);
        manager_profiles_free(m->profiles);
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
                m->profiles->process_access = 1;
                return;
        }
        m->profiles->process_access = user_creds_self_test(m->proc_fd, &parent);
        if (m->profiles->process_access < 0)
                (void) log_user_full_errno(LOG_UID_NONE, LOG_WARNING, m->profiles->process_access, fields,
                                "Start-up self-test failed: other users' process environments cannot be read, so "
                                "their per-user rc files and __GL_* variables are not seen: /proc/%i/environ",
                                (int) parent);
        else
                log_debug("Start-up self-test: %s.",
                                m->profiles->process_access == 0 ? "other users' processes are readable"
                                                                 : "not run, our parent runs as our uid");
}

int manager_new(sd_event *e, const ManagerConfig *config, const char *proc_path, const char *sys_path,
                const char *root_path, Manager **ret)
{
        _cleanup_(manager_profiles_freep) ManagerProfiles *profiles = NULL;
        _cleanup_(manager_freep) Manager *m = NULL;
        SeenNamesLimits limits;
        struct stat st, live;
        int r;

        assert(e);
        assert(config);
        assert(ret);

        /* The profiles job's state first: every step of manager_free() may count on it. */
        r = manager_profiles_new(&profiles);
        if (r < 0)
                return log_oom();
        m = calloc(1, sizeof(Manager));
        if (!m)
                return log_oom();
        m->profiles = TAKE_PTR(profiles);
        m->event = sd_event_ref(e);
        m->proc_fd = m->sys_fd = m->root_fd = m->state_dir_fd = -EBADF;

        r = manager_config_copy(&m->config, config);
        if (r < 0)
                return log_oom();
        remembered_names_limits(&m->config, &limits);
        seen_names_set_limits(m->profiles->seen_names, &limits);
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
        return m->profiles->process_access == 0 ? "ok" : m->profiles->process_access > 0 ? "untested" : "denied";
}

void manager_set_callbacks(Manager *m, const ManagerCallbacks *cb, void *userdata)
{
        m->callbacks = *cb;
        m->userdata = userdata;
}

int manager_set_state_directory(Manager *m, const char *path)
{
        int fd;

        assert(m);
        assert(path);

        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return log_error_errno(errno, "Cannot open the state directory %s", path);
        safe_close(m->state_dir_fd);
        m->state_dir_fd = fd;
        return 0;
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
        if (manager_config_changed(changed, "Doctor"))
                remembered_names_config_changed(m);
        if (manager_config_changed(changed, "Sections") && m->sections)
                (void) manager_sections_reload(m);
        if (manager_config_changed(changed, "Export")) {
                manager_prometheus_stop(m);
                r = manager_prometheus_start(m);
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

int manager_start_watching(Manager *m)
{
        int r;

        /* Before the first scan notes what runs now. */
        r = remembered_names_start(m);
        if (r < 0)
                return r;

        r = profiles_start(m);
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

        r = manager_prometheus_start(m);
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
