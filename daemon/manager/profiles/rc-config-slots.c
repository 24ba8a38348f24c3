/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sys/stat.h>

#include "fd-util.h"
#include "fileio.h"
#include "log.h"
#include "rc-config-slots.h"
#include "string-util.h"
#include "strv.h"

static void config_slot_done(ConfigSlot *s)
{
        free(s->home);
        rc_config_unref(s->config);
        *s = (ConfigSlot){ 0 };
}

void manager_configs_free(Manager *m)
{
        for (size_t i = 0; i < m->profiles->n_configs; i++)
                config_slot_done(&m->profiles->configs[i]);
        m->profiles->configs = mfree(m->profiles->configs);
        m->profiles->n_configs = m->profiles->allocated_configs = 0;
        m->profiles->unwatched_uids = mfree(m->profiles->unwatched_uids);
        m->profiles->n_unwatched_uids = 0;
        m->profiles->watched_uids = mfree(m->profiles->watched_uids);
        m->profiles->n_watched_uids = 0;
}

/* The system view (no $HOME, our own access) is what status shows and is never evicted. */
static bool slot_is_system(const Manager *m, const ConfigSlot *s)
{
        return config_slot_is_host(m, s) && !s->home && user_creds_equal(&s->creds, &m->own_creds);
}

/* The parsed files of a configuration's per-user entries ($HOME's), appended to *files. */
static int collect_user_files(const RcConfig *c, const RcFile ***files, size_t *n, size_t *allocated)
{
        size_t file = 0;

        for (RcEntryKind k = 0; c && k < _RC_ENTRY_KIND_MAX; k++) {
                size_t n_entry = c->entries[k].n_files;

                for (size_t j = 0; rc_entry_kind_is_user(k) && j < n_entry && file + j < c->n_files; j++) {
                        if (GREEDY_REALLOC(*files, *allocated, *n + 1) < 0)
                                return -ENOMEM;
                        (*files)[(*n)++] = c->files[file + j];
                }
                file += n_entry;
        }
        return 0;
}

static int pointer_compare(const void *a, const void *b)
{
        uintptr_t x = (uintptr_t) * (const void *const *) a, y = (uintptr_t) * (const void *const *) b;
        return x < y ? -1 : x > y;
}

/* The per-user files held by the slots of uid ((uid_t) -1: every user), except one slot, each once however
 * many configurations share it (they share the parsed file through the cache): sorted, distinct. */
static int held_user_files(const Manager *m, uid_t uid, const ConfigSlot *except, const RcFile ***ret, size_t *ret_n)
{
        _cleanup_free_ const RcFile **files = NULL;
        size_t n = 0, allocated = 0, j = 0;
        int r;

        for (size_t i = 0; i < m->profiles->n_configs; i++) {
                const ConfigSlot *s = &m->profiles->configs[i];

                if (s == except || (uid != (uid_t) -1 && s->uid != uid))
                        continue;
                r = collect_user_files(s->config, &files, &n, &allocated);
                if (r < 0)
                        return r;
        }
        qsort_safe(files, n, sizeof(*files), pointer_compare);
        for (size_t i = 0; i < n; i++)
                if (j == 0 || files[j - 1] != files[i])
                        files[j++] = files[i];
        *ret = TAKE_PTR(files);
        *ret_n = j;
        return 0;
}

static uint64_t held_bytes(const Manager *m, uid_t uid, const ConfigSlot *except)
{
        _cleanup_free_ const RcFile **files = NULL;
        uint64_t bytes = 0;
        size_t n = 0;

        /* Out of memory: count as full rather than admit more. */
        if (held_user_files(m, uid, except, &files, &n) < 0)
                return UINT64_MAX / 2;
        for (size_t i = 0; i < n; i++)
                bytes += rc_file_cost(files[i]);
        return bytes;
}

uint64_t manager_rc_bytes(const Manager *m, uid_t uid)
{
        return held_bytes(m, uid, NULL);
}

uint64_t manager_rc_bytes_total(const Manager *m)
{
        return held_bytes(m, (uid_t) -1, NULL);
}

/* Drops slot i; the last slot takes its place, so a caller's pointer to that one (*keep) is updated. */
static void evict_slot(Manager *m, size_t i, ConfigSlot **keep)
{
        assert(i < m->profiles->n_configs);
        assert(!keep || *keep != &m->profiles->configs[i]);

        m->profiles->n_config_evictions++;
        log_user_debug(m->profiles->configs[i].uid, "Dropping the configuration of uid %u for %s.",
                        (unsigned) m->profiles->configs[i].uid, strna(m->profiles->configs[i].home));
        config_slot_done(&m->profiles->configs[i]);
        m->profiles->n_configs--;
        if (i == m->profiles->n_configs)
                return;
        m->profiles->configs[i] = m->profiles->configs[m->profiles->n_configs];
        if (keep && *keep == &m->profiles->configs[m->profiles->n_configs])
                *keep = &m->profiles->configs[i];
}

/* Evicts the least recently used slot that matches (uid, or any when uid is (uid_t) -1) and is neither
 * *keep nor the system view (*keep follows its slot when slots move). Returns whether one was evicted. */
static bool evict_lru(Manager *m, uid_t uid, ConfigSlot **keep)
{
        size_t lru = SIZE_MAX;

        for (size_t i = 0; i < m->profiles->n_configs; i++) {
                const ConfigSlot *s = &m->profiles->configs[i];

                if ((keep && s == *keep) || slot_is_system(m, s) || (uid != (uid_t) -1 && s->uid != uid))
                        continue;
                if (lru == SIZE_MAX || s->last_used < m->profiles->configs[lru].last_used)
                        lru = i;
        }
        if (lru == SIZE_MAX)
                return false;
        evict_slot(m, lru, keep);
        return true;
}

void manager_configs_evict_idle(Manager *m)
{
        uint64_t now;

        if (m->config.config_idle_usec == 0 || sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0)
                return;
        for (size_t i = 0; i < m->profiles->n_configs;) {
                const ConfigSlot *s = &m->profiles->configs[i];

                if (s->home && !slot_is_system(m, s) && now > s->last_used_usec + m->config.config_idle_usec)
                        evict_slot(m, i, NULL);
                else
                        i++;
        }
        rc_file_cache_drop_unused(&m->profiles->file_cache);
}

typedef struct HomeLookup {
        int root_fd;
        const char *home;
        bool need_read; /* a caller naming a home must be able to read it, not only pass through */
        struct stat st;
} HomeLookup;

static int lookup_home(void *userdata)
{
        HomeLookup *h = userdata;
        _cleanup_close_ int fd = -EBADF;

        fd = open_in_root(h->root_fd, h->home, h->need_read ? O_RDONLY | O_DIRECTORY : O_PATH | O_DIRECTORY);
        if (fd < 0)
                return fd;
        return fstat(fd, &h->st) < 0 ? -errno : 0;
}

/* The identity of home as the user reaches it, or -errno. */
static int home_identity(int root_fd, const char *home, const UserCreds *creds, bool need_read, struct stat *ret)
{
        HomeLookup h = { .root_fd = root_fd, .home = home, .need_read = need_read };
        int r;

        r = user_creds_run(creds, lookup_home, &h);
        if (r < 0)
                return r;
        *ret = h.st;
        return 0;
}

static ConfigSlot *find_slot(Manager *m, const struct stat *root, const UserCreds *creds, const char *home,
                const struct stat *home_st)
{
        for (size_t i = 0; i < m->profiles->n_configs; i++) {
                ConfigSlot *s = &m->profiles->configs[i];

                if (s->root_dev != root->st_dev || s->root_ino != root->st_ino || !user_creds_equal(&s->creds, creds))
                        continue;
                if (!home != !s->home)
                        continue;
                if (!home)
                        return s;
                /* The same directory under any spelling; a home the user cannot reach by its name. */
                if (home_st ? s->home_dev == home_st->st_dev && s->home_ino == home_st->st_ino
                            : s->home_dev == 0 && s->home_ino == 0 && streq(s->home, home))
                        return s;
        }
        return NULL;
}

/* How many bytes of per-user rc files *slot's next load may take: what is left of its user's share and of
 * the total, after evicting other users' least recently used configurations if the total is short. Files
 * the user's other configurations hold are counted once (see user_file_is_held()). */
static uint64_t user_allowance(Manager *m, ConfigSlot **slot)
{
        uint64_t own = held_bytes(m, (*slot)->uid, *slot);
        uint64_t user_left = m->config.user_rc_bytes_max > own ? m->config.user_rc_bytes_max - own : 0;
        uint64_t others;

        for (;;) {
                others = held_bytes(m, (uid_t) -1, *slot);
                if (others + user_left <= m->config.rc_bytes_max || m->profiles->reloading ||
                                !evict_lru(m, (uid_t) -1, slot))
                        break;
        }
        rc_file_cache_drop_unused(&m->profiles->file_cache);
        return MIN(user_left, m->config.rc_bytes_max > others ? m->config.rc_bytes_max - others : 0);
}

/* The files a user's other configurations hold, for RcLoadOptions.user_file_is_held. */
typedef struct HeldFiles {
        const RcFile **files;
        size_t n;
} HeldFiles;

static bool user_file_is_held(const struct stat *st, void *userdata)
{
        const HeldFiles *h = userdata;

        for (size_t i = 0; i < h->n; i++)
                if (rc_file_same_identity(h->files[i], st))
                        return true;
        return false;
}

static ConfigSlot *new_slot(Manager *m, const struct stat *root, const UserCreds *creds, const char *home,
                const struct stat *home_st)
{
        unsigned n_user = 0;
        ConfigSlot *slot;

        /* A user beyond its share of slots replaces its own least recently used one, never others'. (Not
         * while reloading, which walks the slots.) */
        for (size_t i = 0; i < m->profiles->n_configs; i++)
                n_user += m->profiles->configs[i].uid == creds->uid && !slot_is_system(m, &m->profiles->configs[i]);
        if (!m->profiles->reloading && n_user >= MAX(m->config.user_configs_max, 1u))
                (void) evict_lru(m, creds->uid, NULL);
        if (!m->profiles->reloading && m->profiles->n_configs >= MAX(m->config.max_configs, 2u))
                (void) evict_lru(m, (uid_t) -1, NULL);

        if (GREEDY_REALLOC(m->profiles->configs, m->profiles->allocated_configs, m->profiles->n_configs + 1) < 0)
                return NULL;
        slot = &m->profiles->configs[m->profiles->n_configs];
        *slot = (ConfigSlot){
                .root_dev = root->st_dev,
                .root_ino = root->st_ino,
                .creds = *creds,
                .uid = creds->uid,
                .home_dev = home_st ? home_st->st_dev : 0,
                .home_ino = home_st ? home_st->st_ino : 0,
        };
        if (home && !(slot->home = strdup(home)))
                return NULL;
        m->profiles->n_configs++;
        return slot;
}

static int slot_load(Manager *m, ConfigSlot **slot_ptr, int root_fd)
{
        _cleanup_free_ const RcFile **held = NULL;
        HeldFiles h = { 0 };
        uint64_t allowance = 0;
        ConfigSlot *slot;
        RcConfig *c = NULL;
        int r;

        if (!slot_is_system(m, *slot_ptr)) {
                allowance = user_allowance(m, slot_ptr); /* may move *slot_ptr */
                r = held_user_files(m, (*slot_ptr)->uid, *slot_ptr, &held, &h.n);
                if (r < 0)
                        return r;
                h.files = held;
        }
        slot = *slot_ptr;

        RcLoadOptions o = {
                .root_fd = root_fd,
                .home = slot->home,
                .driver_version = m->driver_version,
                .syntax = { .accept_trailing_commas = m->config.accept_trailing_commas },
                .collation = m->collation,
                .load_file = rc_file_cache_load,
                .load_file_userdata = &m->profiles->file_cache,
                .creds = &slot->creds,
        };
        if (!slot_is_system(m, slot)) {
                /* 0 would mean "no limit": an exhausted budget still admits nothing but empty files. */
                o.user_bytes_max = MAX(allowance, UINT64_C(1));
                o.user_file_is_held = user_file_is_held;
                o.user_file_is_held_userdata = &h;
        }

        /* What is logged about the files this load uses first is this user's doing. */
        m->profiles->file_cache.loading_uid = slot_is_system(m, slot) ? RC_CACHE_UID_SYSTEM : slot->uid;
        r = rc_config_load(&o, &c);
        m->profiles->file_cache.loading_uid = RC_CACHE_UID_SYSTEM;
        if (r < 0)
                return r;
        rc_config_unref(slot->config);
        slot->config = c;
        return 0;
}

static int get_config(Manager *m, int root_fd, const char *home, const UserCreds *creds, bool caller, RcConfig **ret)
{
        struct stat root, home_st;
        bool foreign, have_home_st = false, created = false;
        ConfigSlot *slot;
        int r;

        assert(m);
        assert(ret);

        if (!creds)
                creds = &m->own_creds;
        /* The configuration root's identity is known: no fstat() per exec. */
        if (root_fd != m->root_fd && fstat(root_fd, &root) < 0)
                return -errno;
        /* A process whose root is the configuration root under another descriptor (--root is a tree it
         * runs in) reads the host's configuration: one slot, watched, loaded through our descriptor, not
         * reloaded at each resolution, which would leave the processes resolved before it with a
         * configuration no slot holds. */
        foreign = root_fd != m->root_fd && (root.st_dev != m->root_dev || root.st_ino != m->root_ino);
        if (!foreign) {
                root_fd = m->root_fd;
                root.st_dev = m->root_dev;
                root.st_ino = m->root_ino;
        }

        if (home) {
                r = home_identity(root_fd, home, creds, caller, &home_st);
                if (r == -ENOMEM)
                        return r;
                /* A home that is not there holds no rc files: a caller is answered with the system's alone
                 * (that the path does not exist it learns from stat() as well: only a missing name within
                 * directories it may search gives -ENOENT). */
                if (r == -ENOENT && caller)
                        home = NULL;
                /* A caller may ask only about a home it could read itself (root: any). */
                else if (r < 0 && caller && creds->uid != 0)
                        return -EACCES;
                have_home_st = r >= 0;
        }

        slot = find_slot(m, &root, creds, home, have_home_st ? &home_st : NULL);

        if (!slot) {
                slot = new_slot(m, &root, creds, home, have_home_st ? &home_st : NULL);
                if (!slot)
                        return -ENOMEM;
                created = true;
        }

        /* Host configurations are reloaded on inotify events, so a cached one of this generation is
         * current. A container's files are not watched: revalidate them (fstat per file, via the cache). */
        if (created || slot->generation != m->profiles->generation || foreign) {
                r = slot_load(m, &slot, root_fd);
                if (r < 0)
                        return r;
                slot->generation = m->profiles->generation;
        }

        slot->last_used = ++m->profiles->use_counter;
        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &slot->last_used_usec);
        *ret = rc_config_ref(slot->config);

        /* A $HOME seen for the first time: its entries need watching from now on. */
        if (created && !foreign && !m->profiles->reloading)
                manager_watch_and_verify(m);
        return 0;
}

int manager_get_config(Manager *m, int root_fd, const char *home, const UserCreds *creds, RcConfig **ret)
{
        return get_config(m, root_fd, home, creds, false, ret);
}

int manager_get_config_for_caller(Manager *m, const char *home, const UserCreds *creds, RcConfig **ret)
{
        assert(creds);
        return get_config(m, m->root_fd, home, creds, true, ret);
}

static int add_path(char ***paths, const char *p)
{
        return strv_contains(*paths, p) ? 0 : strv_extend(paths, p);
}

/* The entry paths of home (computed, so they are watched whether or not they exist yet) and every file
 * read from them last time (symlink targets included, via rc-watch). */
static int collect_home_paths(const Manager *m, const ConfigSlot *s, char ***paths)
{
        const RcConfig *c = s->config;
        size_t file = 0;
        int r;

        for (RcEntryKind k = 0; k < _RC_ENTRY_KIND_MAX; k++) {
                _cleanup_free_ char *p = NULL;
                bool user = rc_entry_kind_is_user(k);
                size_t n = c ? c->entries[k].n_files : 0;

                if (user && s->home && rc_entry_path(k, s->home, m->driver_version, &p) >= 0) {
                        r = add_path(paths, p);
                        if (r < 0)
                                return r;
                }
                for (size_t j = 0; j < n && file + j < c->n_files; j++)
                        if (user && (r = add_path(paths, c->files[file + j]->path)) < 0)
                                return r;
                file += n;
        }
        if (s->home && s->home[0] == '/') {
                _cleanup_free_ char *g = path_join(s->home, RC_GLOBALS_FILE_NAME);
                if (!g)
                        return -ENOMEM;
                r = add_path(paths, g);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The system search path and the files the system view read. Containers are not watched: they are
 * revalidated by fstat at each resolution. */
static int collect_system_paths(const Manager *m, char ***ret)
{
        _cleanup_strv_free_ char **paths = NULL;
        int r;

        for (RcEntryKind k = 0; k < _RC_ENTRY_KIND_MAX; k++) {
                _cleanup_free_ char *p = NULL;
                if (rc_entry_path(k, NULL, m->driver_version, &p) >= 0 && (r = add_path(&paths, p)) < 0)
                        return r;
        }
        for (size_t j = 0; m->profiles->system_config && j < m->profiles->system_config->n_files; j++) {
                r = add_path(&paths, m->profiles->system_config->files[j]->path);
                if (r < 0)
                        return r;
        }
        /* Where the shipped file would be, even when no version is known yet. */
        r = strv_extend(&paths, "/usr/share/nvidia");
        if (r < 0)
                return r;

        *ret = TAKE_PTR(paths);
        return 0;
}

static int uid_compare(const void *a, const void *b)
{
        uid_t x = *(const uid_t *) a, y = *(const uid_t *) b;
        return x < y ? -1 : x > y;
}

static bool uid_in(const uid_t *uids, size_t n, uid_t uid)
{
        return n > 0 && bsearch(&uid, uids, n, sizeof(uid_t), uid_compare);
}

/* Watches one user's paths: theirs alone, with their access, within their share. */
static int watch_user(Manager *m, uid_t uid, bool *ret_over_share)
{
        _cleanup_strv_free_ char **paths = NULL;
        const UserCreds *creds = NULL;
        int r;

        for (size_t i = 0; i < m->profiles->n_configs; i++) {
                const ConfigSlot *s = &m->profiles->configs[i];

                if (s->uid != uid || !s->home || !config_slot_is_host(m, s))
                        continue;
                creds = &s->creds;
                r = collect_home_paths(m, s, &paths);
                if (r < 0)
                        return r;
        }
        r = rc_watch_set_paths(
                        m->profiles->rc_watch, manager_watch_group(uid), creds, paths, m->config.user_watch_dirs_max);
        *ret_over_share = r == -E2BIG;
        return r == -E2BIG ? 0 : r;
}

static int watch_system_paths(Manager *m)
{
        _cleanup_strv_free_ char **system_paths = NULL;
        int r;

        r = collect_system_paths(m, &system_paths);
        if (r < 0)
                return r;
        return rc_watch_set_paths(m->profiles->rc_watch, RC_WATCH_GROUP_SYSTEM, NULL, system_paths, 0);
}

void manager_update_watches(Manager *m)
{
        _cleanup_free_ uid_t *uids = NULL, *over = NULL;
        size_t n_uids = 0, n_over = 0;
        int r;

        if (!m->profiles->rc_watch)
                return;

        r = watch_system_paths(m);
        if (r < 0)
                log_warning_errno(r, "Cannot watch every system rc path, changes may be missed");

        uids = calloc(MAX(m->profiles->n_configs, (size_t) 1), sizeof(uid_t));
        over = calloc(MAX(m->profiles->n_configs, (size_t) 1), sizeof(uid_t));
        if (!uids || !over) {
                log_oom();
                return;
        }
        for (size_t i = 0; i < m->profiles->n_configs; i++)
                if (m->profiles->configs[i].home && config_slot_is_host(m, &m->profiles->configs[i]))
                        uids[n_uids++] = m->profiles->configs[i].uid;
        qsort_safe(uids, n_uids, sizeof(uid_t), uid_compare);

        for (size_t i = 0; i < n_uids; i++) {
                bool over_share;

                if (i > 0 && uids[i] == uids[i - 1])
                        continue;
                r = watch_user(m, uids[i], &over_share);
                if (r < 0)
                        log_user_warning_errno(uids[i], r, "Cannot watch the rc paths of uid %u", (unsigned) uids[i]);
                if (r < 0 || over_share) {
                        if (!uid_in(m->profiles->unwatched_uids, m->profiles->n_unwatched_uids, uids[i]))
                                log_user_warning(uids[i],
                                                "The rc paths of uid %u need more than %u watched directories: "
                                                "changes to that user's files are picked up at the next reload "
                                                "only.",
                                                (unsigned) uids[i], m->config.user_watch_dirs_max);
                        over[n_over++] = uids[i];
                }
        }

        /* Users with no configuration left are not watched any more. */
        for (size_t i = 0; i < m->profiles->n_watched_uids; i++)
                if (!uid_in(uids, n_uids, m->profiles->watched_uids[i]))
                        rc_watch_drop_group(m->profiles->rc_watch, manager_watch_group(m->profiles->watched_uids[i]));

        free(m->profiles->watched_uids);
        m->profiles->watched_uids = TAKE_PTR(uids);
        m->profiles->n_watched_uids = n_uids;
        free(m->profiles->unwatched_uids);
        m->profiles->unwatched_uids = TAKE_PTR(over);
        m->profiles->n_unwatched_uids = n_over;
}

/* Whether what was just read is still what is on disk: a change that slipped in between reading and
 * watching has no event to tell us, so we look. Only identities are compared, nothing is read. When it
 * is not, ret_uid says whose configuration read the first file that moved (RC_CACHE_UID_SYSTEM: the
 * system's). */
static bool disk_matches_cache(Manager *m, uid_t *ret_uid)
{
        for (size_t i = 0; i < m->profiles->file_cache.n_entries; i++) {
                const RcCacheEntry *e = &m->profiles->file_cache.entries[i];
                _cleanup_close_ int fd = -EBADF;
                struct stat st;

                if (e->generation != m->profiles->file_cache.generation || !e->current || e->root_dev != m->root_dev ||
                                e->root_ino != m->root_ino)
                        continue;
                fd = open_in_root(m->root_fd, e->path, O_PATH);
                if (fd < 0 || fstat(fd, &st) < 0 || !rc_file_same_identity(e->current, &st)) {
                        *ret_uid = e->uid;
                        return false;
                }
        }
        return true;
}

void manager_watch_and_verify(Manager *m)
{
        uid_t uid;

        manager_update_watches(m);
        if (m->profiles->rc_watch && !disk_matches_cache(m, &uid)) {
                /* A user who keeps rewriting a file makes this happen at every reload: theirs to count. */
                log_user_debug(uid == RC_CACHE_UID_SYSTEM ? LOG_UID_NONE : uid,
                                "rc files changed while being read; reloading again.");
                rc_watch_trigger(m->profiles->rc_watch,
                                uid == RC_CACHE_UID_SYSTEM ? RC_WATCH_GROUP_SYSTEM : manager_watch_group(uid));
        }
}
