/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "fileio.h"
#include "log.h"
#include "manager-gpu.h"
#include "manager-procwatch.h"
#include "manager.h"
#include "process.h"
#include "string-util.h"
#include "strv.h"

static void config_slot_done(ConfigSlot *s)
{
        free(s->home);
        rc_config_unref(s->config);
        *s = (ConfigSlot){ 0 };
}

static void configs_clear(Manager *m)
{
        for (size_t i = 0; i < m->n_configs; i++)
                config_slot_done(&m->configs[i]);
        m->n_configs = 0;
}

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

        manager_procwatch_stop(m);
        manager_gpu_stop(m);
        rc_watch_free(m->rc_watch);
        configs_clear(m);
        free(m->configs);
        rc_config_unref(m->system_config);
        rc_file_cache_done(&m->file_cache);
        if (m->collation)
                freelocale(m->collation);
        free(m->driver_version);
        safe_close(m->proc_fd);
        safe_close(m->sys_fd);
        safe_close(m->root_fd);
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

static int copy_config(ManagerConfig *dst, const ManagerConfig *src)
{
        *dst = *src;
        dst->device_directory = src->device_directory ? strdup(src->device_directory) : NULL;
        dst->driver_version = src->driver_version ? strdup(src->driver_version) : NULL;
        dst->collation = src->collation ? strdup(src->collation) : NULL;
        if ((src->device_directory && !dst->device_directory) || (src->driver_version && !dst->driver_version) ||
                        (src->collation && !dst->collation))
                return -ENOMEM;
        return 0;
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

        r = copy_config(&m->config, config);
        if (r < 0)
                return log_oom();

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

        if (m->config.collation && !streq(m->config.collation, "C")) {
                m->collation = newlocale(LC_COLLATE_MASK, m->config.collation, (locale_t) 0);
                if (!m->collation)
                        log_warning("Collation locale %s is not available, using C.", m->config.collation);
        }

        *ret = TAKE_PTR(m);
        return 0;
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

static RcLoadOptions load_options(Manager *m, int root_fd, const char *home, uid_t uid)
{
        return (RcLoadOptions){
                .root_fd = root_fd,
                .home = home,
                .driver_version = m->driver_version,
                .syntax = { .accept_trailing_commas = m->config.accept_trailing_commas },
                .collation = m->collation,
                .load_file = rc_file_cache_load,
                .load_file_userdata = &m->file_cache,
                .check_user_owner = uid != 0,
                .user_uid = uid,
        };
}

static int add_path(char ***paths, const char *p)
{
        return strv_contains(*paths, p) ? 0 : strv_extend(paths, p);
}

static bool slot_is_host(const Manager *m, const ConfigSlot *s)
{
        return s->root_dev == m->root_dev && s->root_ino == m->root_ino;
}

/* Every path whose change matters: the search-path entries of every $HOME in use and the globals files
 * (computed, so they are watched whether or not they exist yet), and every file read last time
 * (symlink targets included, via rc-watch). Containers are not watched: they are revalidated by fstat
 * at each resolution. */
static int collect_watch_paths(Manager *m, char ***ret)
{
        _cleanup_strv_free_ char **paths = NULL;
        int r;

        for (RcEntryKind k = 0; k < _RC_ENTRY_KIND_MAX; k++) {
                _cleanup_free_ char *p = NULL;
                if (rc_entry_path(k, NULL, m->driver_version, &p) >= 0 && (r = add_path(&paths, p)) < 0)
                        return r;
        }

        for (size_t i = 0; i < m->n_configs; i++) {
                const ConfigSlot *s = &m->configs[i];
                const RcConfig *c = s->config;

                if (!slot_is_host(m, s))
                        continue;
                for (RcEntryKind k = 0; s->home && k < _RC_ENTRY_KIND_MAX; k++) {
                        _cleanup_free_ char *p = NULL;
                        if (rc_entry_path(k, s->home, m->driver_version, &p) >= 0 && (r = add_path(&paths, p)) < 0)
                                return r;
                }
                if (s->home && s->home[0] == '/') {
                        _cleanup_free_ char *g = path_join(s->home, RC_GLOBALS_FILE_NAME);
                        if (!g || (r = add_path(&paths, g)) < 0)
                                return -ENOMEM;
                }
                for (size_t j = 0; c && j < c->n_files; j++)
                        if ((r = add_path(&paths, c->files[j]->path)) < 0)
                                return r;
        }
        /* Where the shipped file would be, even when no version is known yet. */
        r = strv_extend(&paths, "/usr/share/nvidia");
        if (r < 0)
                return r;

        *ret = TAKE_PTR(paths);
        return 0;
}

static void update_watches(Manager *m)
{
        _cleanup_strv_free_ char **paths = NULL;
        int r;

        if (!m->rc_watch)
                return;
        r = collect_watch_paths(m, &paths);
        if (r >= 0)
                r = rc_watch_set_paths(m->rc_watch, paths);
        if (r < 0)
                log_warning_errno(r, "Cannot watch every rc path, changes may be missed");
}

/* Whether what was just read is still what is on disk: a change that slipped in between reading and
 * watching has no event to tell us, so we look. */
static bool disk_matches_cache(Manager *m)
{
        for (size_t i = 0; i < m->file_cache.n_entries; i++) {
                const RcCacheEntry *e = &m->file_cache.entries[i];
                _cleanup_close_ int fd = -EBADF;
                struct stat st;

                if (e->generation != m->file_cache.generation || !e->current)
                        continue;
                fd = open_in_root(m->root_fd, e->path, O_PATH);
                if (fd < 0 || fstat(fd, &st) < 0 || !rc_file_same_identity(e->current, &st))
                        return false;
        }
        return true;
}

/* After loading: watch what was found too (new symlink targets), then make sure nothing moved. */
static void watch_and_verify(Manager *m)
{
        update_watches(m);
        if (m->rc_watch && !disk_matches_cache(m)) {
                log_debug("rc files changed while being read; reloading again.");
                rc_watch_trigger(m->rc_watch);
        }
}

int manager_get_config(Manager *m, int root_fd, const char *home, uid_t uid, RcConfig **ret)
{
        ConfigSlot *slot = NULL;
        struct stat st;
        bool foreign, new_slot = false;
        int r;

        assert(m);
        assert(ret);

        if (fstat(root_fd, &st) < 0)
                return -errno;
        foreign = root_fd != m->root_fd;

        for (size_t i = 0; i < m->n_configs; i++) {
                ConfigSlot *s = &m->configs[i];
                if (s->root_dev == st.st_dev && s->root_ino == st.st_ino && streq_ptr(s->home, home) &&
                                (s->uid == uid || !home)) {
                        slot = s;
                        break;
                }
        }

        /* Host configurations are reloaded on inotify events, so a cached one of this generation is
         * current. A container's files are not watched: revalidate them (fstat per file, via the cache). */
        if (slot && slot->generation == m->generation && !foreign) {
                slot->last_used = ++m->use_counter;
                *ret = rc_config_ref(slot->config);
                return 0;
        }

        if (!slot) {
                if (m->n_configs >= MAX(m->config.max_configs, 1u)) {
                        /* Evict the least recently used. */
                        size_t lru = 0;
                        for (size_t i = 1; i < m->n_configs; i++)
                                if (m->configs[i].last_used < m->configs[lru].last_used)
                                        lru = i;
                        config_slot_done(&m->configs[lru]);
                        m->configs[lru] = m->configs[--m->n_configs];
                }
                if (GREEDY_REALLOC(m->configs, m->allocated_configs, m->n_configs + 1) < 0)
                        return -ENOMEM;
                slot = &m->configs[m->n_configs];
                *slot = (ConfigSlot){ .root_dev = st.st_dev, .root_ino = st.st_ino, .uid = uid };
                if (home && !(slot->home = strdup(home)))
                        return -ENOMEM;
                m->n_configs++;
                new_slot = true;
        }

        {
                RcLoadOptions o = load_options(m, root_fd, home, uid);
                RcConfig *c = NULL;

                r = rc_config_load(&o, &c);
                if (r < 0)
                        return r;
                rc_config_unref(slot->config);
                slot->config = c;
        }
        slot->generation = m->generation;
        slot->last_used = ++m->use_counter;
        *ret = rc_config_ref(slot->config);

        /* A $HOME seen for the first time: its entries need watching from now on. */
        if (new_slot && !foreign && !m->reloading)
                watch_and_verify(m);
        return 0;
}

static void log_file_problems(Manager *m)
{
        for (size_t i = 0; i < m->file_cache.n_entries; i++) {
                const RcCacheEntry *e = &m->file_cache.entries[i];
                const RcDiagnostic *d;
                char file_field[512];
                const char *fields[] = { "MESSAGE_ID=" LOG_MESSAGE_RC_FILE_BROKEN, file_field, NULL };

                if (!e->current || e->current->state != RC_FILE_BROKEN || e->generation != m->file_cache.generation)
                        continue;
                d = e->current->diagnostics.n_items > 0 ? &e->current->diagnostics.items[0] : NULL;
                snprintf(file_field, sizeof(file_field), "NVPROFILED_RC_FILE=%s", e->path);
                (void) log_struct_internal(LOG_WARNING, 0, fields, "rc file %s:%u:%u is broken: %s%s", e->path,
                                d ? d->line : 0, d ? d->column : 0, d ? d->message : "unknown error",
                                e->good ? "; its last good version stays in force" : "");
        }
}

static int reload_configs(Manager *m)
{
        size_t n_errors = 0, n_files = 0;
        int r;

        detect_driver_version(m);
        m->generation++;
        rc_file_cache_begin(&m->file_cache);

        /* Watch first, read second: a change after this point triggers the next reload. */
        update_watches(m);

        m->reloading = true;
        /* The system view (no $HOME) always exists, for status and for processes without HOME. */
        rc_config_unref(m->system_config);
        m->system_config = NULL;
        r = manager_get_config(m, m->root_fd, NULL, 0, &m->system_config);
        if (r < 0) {
                m->reloading = false;
                return log_error_errno(r, "Failed to load the configuration");
        }

        /* Reload every configuration in use, so the watch set covers them all. */
        for (size_t i = 0; i < m->n_configs; i++) {
                RcConfig *c = NULL;

                if (!slot_is_host(m, &m->configs[i]) || !m->configs[i].home)
                        continue;
                r = manager_get_config(m, m->root_fd, m->configs[i].home, m->configs[i].uid, &c);
                if (r < 0) {
                        m->reloading = false;
                        return log_error_errno(r, "Failed to load the configuration for %s", m->configs[i].home);
                }
                rc_config_unref(c);
        }
        rc_file_cache_prune(&m->file_cache);
        m->reloading = false;
        watch_and_verify(m);

        for (size_t i = 0; i < m->system_config->n_files; i++)
                n_files += m->system_config->files[i]->state == RC_FILE_LOADED;
        n_errors = rc_config_count_errors(m->system_config);
        log_file_problems(m);
        {
                char gen[64];
                const char *fields[] = { "MESSAGE_ID=" LOG_MESSAGE_RC_RELOADED, gen, NULL };
                snprintf(gen, sizeof(gen), "NVPROFILED_GENERATION=%" PRIu64, m->generation);
                (void) log_struct_internal(LOG_INFO, 0, fields,
                                "Application profiles loaded: %zu system files, %zu rules, %zu errors (generation %" PRIu64
                                ").",
                                n_files, m->system_config->n_rules, n_errors, m->generation);
        }
        return 0;
}

int manager_reload(Manager *m)
{
        Process *p;
        pid_t *pids = NULL;
        size_t n = 0;
        int r;

        r = reload_configs(m);
        if (r < 0)
                return r;

        /* Re-evaluate everything tracked. Collect pids first: re-reading may remove a process. */
        pids = calloc(MAX(intmap_size(&m->processes), (size_t) 1), sizeof(pid_t));
        if (!pids)
                return log_oom();
        for (size_t i = 0; intmap_next(&m->processes, &i, NULL, (void **) &p);)
                pids[n++] = p->id.pid;
        for (size_t i = 0; i < n; i++) {
                p = intmap_get(&m->processes, (uint64_t) pids[i]);
                if (!p)
                        continue;
                r = process_reread(p);
                if (r == -ESRCH)
                        process_remove(p);
        }
        free(pids);

        if (m->callbacks.reloaded)
                m->callbacks.reloaded(m, m->userdata);
        return 0;
}

static void on_rc_changed(RcWatch *w, void *userdata)
{
        Manager *m = userdata;

        log_debug("rc files changed, reloading.");
        (void) manager_reload(m);
}

int manager_start(Manager *m)
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

        return manager_procwatch_start(m);
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

        r = process_resolve(m, &f, f.uid, &res);
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
