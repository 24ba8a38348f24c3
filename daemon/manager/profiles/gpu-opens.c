/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "log.h"
#include "gpu-opens.h"
#include "process-observers.h"
#include "process.h"
#include "string-util.h"
#include "strv.h"

#define GPU_NODES_MAX 256u
#define GPU_COALESCE_USEC (50 * 1000)
/* Any user can open a render node as often as it likes: sweeps over the fd tables are at most this
 * frequent, whatever the rate of opens. */
#define GPU_SWEEP_INTERVAL_MIN_USEC (1000 * 1000)
#define FDS_PER_PROCESS_MAX 4096u

static bool is_gpu_node_name(const char *name)
{
        return startswith(name, "nvidia") || startswith(name, "card") || startswith(name, "renderD") ||
                        startswith(name, "accel");
}

static int watch_dir(Manager *m, const char *dir)
{
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        int r;

        d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;

        while ((de = readdir(d))) {
                _cleanup_free_ char *path = NULL;

                if (!is_gpu_node_name(de->d_name) || strv_length(m->profiles->device_paths) >= GPU_NODES_MAX)
                        continue;
                path = path_join(dir, de->d_name);
                if (!path)
                        return -ENOMEM;
                if (inotify_add_watch(m->profiles->device_inotify_fd, path, IN_OPEN) < 0)
                        continue; /* a directory like nvidia-caps, or gone */
                r = strv_consume(&m->profiles->device_paths, TAKE_PTR(path));
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The number of open files of pid: since Linux 6.2 the size of /proc/<pid>/fd; 0 when unknown. */
static uint64_t fd_count(Manager *m, pid_t pid)
{
        char path[64];
        struct stat st;

        snprintf(path, sizeof(path), "%i/fd", (int) pid);
        return fstatat(m->proc_fd, path, &st, 0) < 0 || st.st_size < 0 ? 0 : (uint64_t) st.st_size;
}

/* Whether pid has one of our device nodes open. */
static bool has_gpu_open(Manager *m, pid_t pid)
{
        _cleanup_closedir_ DIR *d = NULL;
        char path[64];
        struct dirent *de;
        unsigned n = 0;
        int fd;

        snprintf(path, sizeof(path), "%i/fd", (int) pid);
        fd = openat(m->proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return false;
        d = fdopendir(fd);
        if (!d) {
                safe_close(fd);
                return false;
        }
        while ((de = readdir(d)) && n++ < FDS_PER_PROCESS_MAX) {
                char target[PATH_MAX];
                ssize_t k;

                if (de->d_name[0] == '.')
                        continue;
                k = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);
                if (k <= 0)
                        continue;
                target[k] = '\0';
                if (strv_contains(m->profiles->device_paths, target))
                        return true;
        }
        return false;
}

/* Walks p's fd table if it changed since the last walk; a process found holding a GPU node is re-read
 * (its libraries are loaded now) and announced. */
static void check_process(Manager *m, Process *p)
{
        uint64_t count;
        pid_t pid = p->id.pid;
        int r;

        /* A process whose number of open files did not change since it was last walked opened nothing
         * new: skip its fd table (where the kernel tells the count). */
        count = fd_count(m, pid);
        if (count > 0 && count == p->fd_count)
                return;
        p->fd_count = count;
        m->profiles->n_fd_tables_walked++;
        if (!has_gpu_open(m, pid))
                return;
        p->gpu_user = true;
        r = process_reread(p);
        if (r == -ESRCH) {
                process_remove(p);
                return;
        }
        /* Unchanged result, but it is a GPU user now: worth an object. */
        if (r == 0 && m->callbacks.process_changed)
                m->callbacks.process_changed(m, p, m->userdata);
}

void manager_gpu_process_tracked(Manager *m, pid_t pid, uint64_t exec_usec)
{
        Process *p;

        /* A sweep since the exec could not see the process while its exec waited to be read. */
        if (m->profiles->device_sweep_usec == 0 || m->profiles->device_sweep_usec < exec_usec)
                return;
        p = manager_get_process(m, pid);
        if (p && !p->gpu_user)
                check_process(m, p);
}

static int on_device_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;
        pid_t *pids;
        size_t n = 0;
        Process *p;

        pids = calloc(MAX(intmap_size(&m->profiles->processes), (size_t) 1), sizeof(pid_t));
        if (!pids)
                return log_oom();
        for (size_t i = 0; intmap_next(&m->profiles->processes, &i, NULL, (void **) &p);)
                if (!p->gpu_user)
                        pids[n++] = p->id.pid;

        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &m->profiles->device_sweep_usec);
        m->profiles->n_device_sweeps++;

        for (size_t i = 0; i < n; i++) {
                p = manager_get_process(m, pids[i]);
                if (p)
                        check_process(m, p);
        }
        free(pids);
        return 0;
}

static int on_device_event(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        Manager *m = userdata;
        uint8_t buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        uint64_t now, when;

        /* Drain; who opened what is found by looking at fd tables afterwards. */
        while (read(fd, buf, sizeof(buf)) > 0)
                ;
        process_observers_gpu_nodes_opened(m);

        if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0)
                return 0;
        when = MAX(now + GPU_COALESCE_USEC, m->profiles->device_sweep_usec + GPU_SWEEP_INTERVAL_MIN_USEC);
        if (m->profiles->device_sweep_usec == 0)
                when = now + GPU_COALESCE_USEC;
        if (m->profiles->device_timer) {
                int enabled = SD_EVENT_OFF;
                (void) sd_event_source_get_enabled(m->profiles->device_timer, &enabled);
                if (enabled != SD_EVENT_OFF)
                        return 0;
                (void) sd_event_source_set_time(m->profiles->device_timer, when);
                return sd_event_source_set_enabled(m->profiles->device_timer, SD_EVENT_ONESHOT);
        }
        return sd_event_add_time(m->event, &m->profiles->device_timer, CLOCK_MONOTONIC, when, 0, on_device_timer, m);
}

int manager_gpu_start(Manager *m)
{
        _cleanup_free_ char *dri = NULL;
        int r;

        if (!m->config.device_directory)
                return 0;

        m->profiles->device_inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (m->profiles->device_inotify_fd < 0)
                return -errno;

        r = watch_dir(m, m->config.device_directory);
        if (r < 0)
                return r;
        dri = path_join(m->config.device_directory, "dri");
        if (!dri)
                return -ENOMEM;
        r = watch_dir(m, dri);
        if (r < 0)
                return r;
        /* Accel nodes (/dev/accel/accel0): their opens matter to GPU usage. */
        {
                _cleanup_free_ char *accel = path_join(m->config.device_directory, "accel");
                if (!accel)
                        return -ENOMEM;
                r = watch_dir(m, accel);
                if (r < 0)
                        return r;
        }

        log_debug("Watching %zu GPU device nodes for opens.", strv_length(m->profiles->device_paths));
        if (strv_length(m->profiles->device_paths) == 0)
                return 0;

        r = sd_event_add_io(m->event, &m->profiles->device_source, m->profiles->device_inotify_fd, EPOLLIN,
                        on_device_event, m);
        if (r < 0)
                return r;

        /* Processes that opened a node before we watched (already running when the daemon started, or
         * started while it was starting) sent no event: one sweep once the first scan has run. */
        return sd_event_add_time_relative(m->event, &m->profiles->device_timer, CLOCK_MONOTONIC, GPU_COALESCE_USEC, 0,
                        on_device_timer, m);
}

void manager_gpu_stop(Manager *m)
{
        m->profiles->device_source = sd_event_source_disable_unref(m->profiles->device_source);
        m->profiles->device_timer = sd_event_source_disable_unref(m->profiles->device_timer);
        m->profiles->device_inotify_fd = safe_close(m->profiles->device_inotify_fd);
        m->profiles->device_paths = strv_free(m->profiles->device_paths);
}
