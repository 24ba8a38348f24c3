/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "fileio.h"
#include "rc-watch.h"
#include "string-util.h"
#include "strv.h"
#include "user-creds.h"

#define RC_WATCH_DIRS_MAX 1024u /* for the system group, whose paths no user chooses */

#define DIR_MASK                                                                                        \
        (IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
                        IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)

typedef struct WatchedDir {
        RcWatch *watch;
        uint64_t group;
        char *path; /* real path on the host */
        bool all; /* every name in it matters (an rc.d directory) */
        char **names; /* otherwise only these */
        sd_event_source *source;
} WatchedDir;

struct RcWatch {
        sd_event *event;
        int root_fd;
        uint64_t coalesce_usec, max_delay_usec;
        RcWatchChangedFunc callback;
        void *userdata;

        WatchedDir **dirs; /* pointers: inotify sources keep theirs while other groups change */
        size_t n_dirs, allocated_dirs;

        sd_event_source *timer;
        uint64_t first_event_usec; /* 0 = no burst pending */
        uint64_t cause; /* of the pending burst: rc_watch_cause() */
        bool cause_alone; /* nothing but the cause's paths changed in it: rc_watch_cause_alone() */
};

static void watched_dir_free(WatchedDir *d)
{
        sd_event_source_disable_unref(d->source);
        free(d->path);
        strv_free(d->names);
        free(d);
}

/* Drops the directories of one group (all when group is UINT64_MAX). */
static void dirs_clear(RcWatch *w, uint64_t group)
{
        size_t j = 0;

        for (size_t i = 0; i < w->n_dirs; i++) {
                if (group == UINT64_MAX || w->dirs[i]->group == group)
                        watched_dir_free(w->dirs[i]);
                else
                        w->dirs[j++] = w->dirs[i];
        }
        w->n_dirs = j;
}

RcWatch *rc_watch_free(RcWatch *w)
{
        if (!w)
                return NULL;
        dirs_clear(w, UINT64_MAX);
        free(w->dirs);
        sd_event_source_disable_unref(w->timer);
        sd_event_unref(w->event);
        safe_close(w->root_fd);
        return mfree(w);
}

int rc_watch_new(sd_event *e, int root_fd, uint64_t coalesce_usec, uint64_t max_delay_usec, RcWatchChangedFunc cb,
                void *userdata, RcWatch **ret)
{
        _cleanup_(rc_watch_freep) RcWatch *w = NULL;

        assert(e);
        assert(cb);
        assert(ret);

        w = calloc(1, sizeof(RcWatch));
        if (!w)
                return -ENOMEM;
        w->event = sd_event_ref(e);
        w->root_fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        if (w->root_fd < 0)
                return -errno;
        w->coalesce_usec = coalesce_usec;
        w->max_delay_usec = MAX(max_delay_usec, coalesce_usec);
        w->callback = cb;
        w->userdata = userdata;

        *ret = TAKE_PTR(w);
        return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        RcWatch *w = userdata;

        w->first_event_usec = 0;
        w->callback(w, w->userdata);
        w->cause = RC_WATCH_GROUP_SYSTEM;
        w->cause_alone = false;
        return 0;
}

static int arm_timer(RcWatch *w, uint64_t when)
{
        int r;

        if (!w->timer)
                return sd_event_add_time(w->event, &w->timer, CLOCK_MONOTONIC, when, 0, on_timer, w);
        r = sd_event_source_set_time(w->timer, when);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(w->timer, SD_EVENT_ONESHOT);
}

void rc_watch_trigger(RcWatch *w, uint64_t group)
{
        uint64_t now, when;
        int r;

        if (sd_event_now(w->event, CLOCK_MONOTONIC, &now) < 0)
                return;
        /* The system's change outweighs any user's: a burst is a user's only if nothing else changed. */
        if (w->first_event_usec == 0) {
                w->first_event_usec = now;
                w->cause = group;
                w->cause_alone = true;
        } else {
                if (group != w->cause)
                        w->cause_alone = false;
                if (group == RC_WATCH_GROUP_SYSTEM)
                        w->cause = RC_WATCH_GROUP_SYSTEM;
        }
        /* Quiet period after the latest event, but never later than max_delay after the first. */
        when = MIN(now + w->coalesce_usec, w->first_event_usec + w->max_delay_usec);

        r = arm_timer(w, when);
        if (r < 0)
                /* Cannot defer: report at once rather than lose the change. */
                on_timer(w->timer, now, w);
}

static int on_inotify(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
        WatchedDir *d = userdata;

        /* sd-event shares one inotify instance among all our watches: an overflow loses events of every
         * group, so it is nobody's doing in particular. */
        if (ev->mask & IN_Q_OVERFLOW) {
                rc_watch_trigger(d->watch, RC_WATCH_GROUP_SYSTEM);
                return 0;
        }
        if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT)) {
                rc_watch_trigger(d->watch, d->group);
                return 0;
        }
        if (d->all || (ev->len > 0 && strv_contains(d->names, ev->name)))
                rc_watch_trigger(d->watch, d->group);
        return 0;
}

uint64_t rc_watch_cause(const RcWatch *w)
{
        assert(w);
        return w->cause;
}

bool rc_watch_cause_alone(const RcWatch *w)
{
        assert(w);
        return w->cause_alone;
}

/* The real host path of an open fd. */
static int fd_path(int fd, char **ret)
{
        char proc[64], buf[PATH_MAX];
        ssize_t n;

        snprintf(proc, sizeof(proc), "/proc/self/fd/%i", fd);
        n = readlink(proc, buf, sizeof(buf) - 1);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        *ret = strdup(buf);
        return *ret ? 0 : -ENOMEM;
}

/* What one rc_watch_set_paths() call is building. */
typedef struct GroupBuild {
        RcWatch *watch;
        uint64_t group;
        char *const *paths;
        size_t max_dirs;
        size_t n_dirs; /* this group's */
} GroupBuild;

static int add_dir(GroupBuild *g, const char *real, bool all, const char *name)
{
        RcWatch *w = g->watch;
        WatchedDir *d = NULL;
        int r;

        for (size_t i = 0; i < w->n_dirs; i++)
                if (w->dirs[i]->group == g->group && streq(w->dirs[i]->path, real)) {
                        d = w->dirs[i];
                        break;
                }
        if (!d) {
                if (g->n_dirs >= g->max_dirs)
                        return -E2BIG;
                if (GREEDY_REALLOC(w->dirs, w->allocated_dirs, w->n_dirs + 1) < 0)
                        return -ENOMEM;
                _cleanup_free_ WatchedDir *new_dir = calloc(1, sizeof(WatchedDir));
                if (!new_dir)
                        return -ENOMEM;
                *new_dir = (WatchedDir){ .watch = w, .group = g->group, .path = strdup(real) };
                if (!new_dir->path)
                        return -ENOMEM;
                d = w->dirs[w->n_dirs++] = TAKE_PTR(new_dir);
                g->n_dirs++;
        }
        if (all)
                d->all = true;
        else if (name && !strv_contains(d->names, name)) {
                r = strv_extend(&d->names, name);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Watches the directory containing in-root path p for changes of p's last component. When that
 * directory does not exist, walks up to the nearest one that does and watches for the next component. */
static int watch_parent_of(GroupBuild *g, const char *p)
{
        _cleanup_free_ char *cur = strdup(p);
        int r;

        if (!cur)
                return -ENOMEM;

        for (;;) {
                _cleanup_free_ char *real = NULL;
                _cleanup_close_ int fd = -EBADF;
                char *slash = strrchr(cur, '/');
                const char *name;

                if (!slash || slash == cur) {
                        /* The root itself: watch it for the first component. */
                        fd = open_in_root(g->watch->root_fd, "/", O_PATH | O_DIRECTORY);
                        if (fd < 0)
                                return fd;
                        r = fd_path(fd, &real);
                        if (r < 0)
                                return r;
                        return add_dir(g, real, false, slash ? slash + 1 : cur);
                }

                *slash = '\0';
                name = slash + 1;
                fd = open_in_root(g->watch->root_fd, cur, O_PATH | O_DIRECTORY);
                if (fd >= 0) {
                        r = fd_path(fd, &real);
                        if (r < 0)
                                return r;
                        return add_dir(g, real, false, name);
                }
                /* Missing (or not a directory): the next level up, watching for this name. */
        }
}

/* Resolves and watches one group's paths; runs with the group's access. Stops at the first error, keeping
 * what was watched so far. */
static int build_group(void *userdata)
{
        GroupBuild *g = userdata;
        RcWatch *w = g->watch;
        int r = 0;

        STRV_FOREACH(p, g->paths) {
                _cleanup_close_ int fd = -EBADF;
                _cleanup_free_ char *real = NULL;
                struct stat st;

                r = watch_parent_of(g, *p);
                if (r < 0)
                        break;

                fd = open_in_root(w->root_fd, *p, O_PATH);
                if (fd < 0 || fstat(fd, &st) < 0)
                        continue;
                r = fd_path(fd, &real);
                if (r < 0)
                        break;

                if (S_ISDIR(st.st_mode))
                        r = add_dir(g, real, true, NULL);
                else {
                        /* Where the link points: its directory, for that name. */
                        char *slash = strrchr(real, '/');
                        if (!slash)
                                continue;
                        *slash = '\0';
                        r = add_dir(g, slash == real ? "/" : real, false, slash + 1);
                }
                if (r < 0)
                        break;
        }

        for (size_t i = 0; i < w->n_dirs; i++) {
                WatchedDir *d = w->dirs[i];
                if (d->group != g->group || d->source)
                        continue;
                /* Gone between resolving and watching (its parent's watch reports that), or not readable
                 * by the group's user (inotify needs read permission): not watched. */
                if (sd_event_add_inotify(w->event, &d->source, d->path, DIR_MASK, on_inotify, d) < 0)
                        d->source = NULL;
        }
        return r;
}

int rc_watch_set_paths(RcWatch *w, uint64_t group, const UserCreds *creds, char *const *paths, size_t max_dirs)
{
        GroupBuild g = {
                .watch = w,
                .group = group,
                .paths = paths,
                .max_dirs = group == RC_WATCH_GROUP_SYSTEM ? RC_WATCH_DIRS_MAX : MIN(max_dirs, RC_WATCH_DIRS_MAX),
        };

        assert(w);
        assert(group != UINT64_MAX);

        dirs_clear(w, group);
        return user_creds_run(creds, build_group, &g);
}

void rc_watch_drop_group(RcWatch *w, uint64_t group)
{
        assert(w);
        assert(group != UINT64_MAX);
        dirs_clear(w, group);
}

size_t rc_watch_count(const RcWatch *w)
{
        size_t n = 0;

        for (size_t i = 0; i < w->n_dirs; i++)
                if (w->dirs[i]->source)
                        n++;
        return n;
}
