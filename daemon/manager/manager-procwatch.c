/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <sys/epoll.h>

#include "fd-util.h"
#include "log.h"
#include "manager-procwatch.h"
#include "manager-usage.h"
#include "proc-connector.h"
#include "process.h"

#define PIDS_MAX (4u * 1024u * 1024u) /* kernel.pid_max can be 2^22 */

static bool is_kernel_thread(const ProcFacts *f)
{
        /* Kernel threads have no executable and no command line; kthreadd is pid 2. */
        return (!f->exe && !f->argv) || f->id.pid == 2 || f->ppid == 2;
}

static int track(Manager *m, pid_t pid, bool settle)
{
        _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
        _cleanup_close_ int dfd = -EBADF;
        Process *old;
        int r;

        /* Only what every process needs now; what its rules test is read once its configuration is known. */
        r = process_facts_open(m, pid, NULL, &f, &dfd);
        old = manager_get_process(m, pid);
        if (r == -ESRCH) {
                /* Vanished before we could look: nothing to say. */
                if (old)
                        process_remove(old);
                return 0;
        }
        if (r < 0)
                return log_debug_errno(r, "Cannot read process %i", (int) pid);

        /* An exec keeps pid and start time but is a new program: forget what we knew. */
        if (old)
                process_remove(old);
        if (is_kernel_thread(&f))
                return 0;

        if (intmap_size(&m->processes) >= m->config.max_processes) {
                if (!m->limit_logged)
                        log_warning("Tracking the maximum of %u processes (MaxProcesses=); ignoring new ones.",
                                        m->config.max_processes);
                m->limit_logged = true;
                return 0;
        }

        r = process_new_at(m, dfd, &f, settle, NULL);
        if (r == -ESRCH)
                return 0;
        if (r < 0)
                return log_debug_errno(r, "Cannot evaluate process %i", (int) pid);
        return 0;
}

int manager_process_exec(Manager *m, pid_t pid)
{
        int r;

        m->n_execs++;
        r = track(m, pid, true);
        manager_usage_process_exec(m, pid);
        return r;
}

int manager_process_comm(Manager *m, pid_t pid)
{
        Process *p = manager_get_process(m, pid);
        int r;

        if (!p)
                return track(m, pid, true);
        r = process_reread(p);
        if (r == -ESRCH)
                process_remove(p);
        return 0;
}

void manager_process_exit(Manager *m, pid_t pid)
{
        manager_usage_process_exit(m, pid);
        process_remove(manager_get_process(m, pid));
}

int manager_rescan(Manager *m)
{
        _cleanup_free_ pid_t *pids = NULL, *gone = NULL;
        size_t n = 0, allocated_gone = 0;
        uint64_t scan;
        Process *p;
        int r;

        r = proc_list_pids(m->proc_fd, PIDS_MAX, &pids, &n);
        if (r < 0)
                return log_error_errno(r, "Cannot list processes");

        scan = ++m->n_rescans;
        for (size_t i = 0; i < n; i++) {
                ProcIdentity id;

                p = manager_get_process(m, pids[i]);
                if (p && proc_identity_read(m->proc_fd, pids[i], &id) >= 0 && proc_identity_equal(id, p->id)) {
                        p->scan_seen = scan;
                        continue;
                }
                /* New, or the pid was reused while we were not looking. The first scan's processes are
                 * long settled; later ones may be fresh, so those get the settle re-reads. */
                (void) track(m, pids[i], scan > 1);
                p = manager_get_process(m, pids[i]);
                if (p)
                        p->scan_seen = scan;
        }

        /* What the scan did not find has exited (its EXIT event may have been lost). Collected first:
         * removing changes the map under the iterator. */
        n = 0;
        for (size_t i = 0; intmap_next(&m->processes, &i, NULL, (void **) &p);)
                if (p->scan_seen != scan) {
                        if (GREEDY_REALLOC(gone, allocated_gone, n + 1) < 0)
                                return log_oom();
                        gone[n++] = p->id.pid;
                }
        for (size_t i = 0; i < n; i++)
                process_remove(manager_get_process(m, gone[i]));

        if (m->callbacks.status_changed)
                m->callbacks.status_changed(m, m->userdata);
        return 0;
}

static int on_resync(sd_event_source *s, void *userdata)
{
        Manager *m = userdata;

        m->resync_source = sd_event_source_disable_unref(m->resync_source);
        log_info("Process events were lost (connector overrun %" PRIu64 "); rescanning /proc.", m->n_overruns);
        return manager_rescan(m);
}

typedef enum PendingAction {
        PENDING_NONE,
        PENDING_COMM,
        PENDING_EXEC,
} PendingAction;

typedef struct PendingProcess {
        pid_t pid;
        bool exited; /* an EXIT came before the action (or with none after it) */
        PendingAction action;
} PendingProcess;

int manager_process_events(Manager *m, const ProcEvent *events, size_t n)
{
        _cleanup_free_ PendingProcess *pending = NULL;
        IntMap index = { 0 }; /* pid -> 1 + its place in pending */
        size_t n_pending = 0;
        int r = 0;

        assert(m);
        assert(events || n == 0);

        if (n == 0)
                return 0;
        pending = calloc(n, sizeof(PendingProcess));
        if (!pending)
                return log_oom();

        /* Per process, only the outcome counts: an exit cancels what came before it, an exec makes one
         * read of the new program, a rename alone one re-read. */
        for (size_t i = 0; i < n; i++) {
                uintptr_t k = (uintptr_t) intmap_get(&index, (uint64_t) events[i].pid);
                PendingProcess *pp;

                if (k == 0) {
                        pending[n_pending] = (PendingProcess){ .pid = events[i].pid };
                        k = ++n_pending;
                        r = intmap_put(&index, (uint64_t) events[i].pid, (void *) k);
                        if (r < 0)
                                break;
                }
                pp = &pending[k - 1];

                switch (events[i].type) {
                case PROC_EVENT_TYPE_EXEC:
                        m->n_execs++;
                        pp->action = PENDING_EXEC;
                        break;
                case PROC_EVENT_TYPE_COMM:
                        if (pp->action != PENDING_EXEC)
                                pp->action = PENDING_COMM;
                        break;
                case PROC_EVENT_TYPE_EXIT:
                        pp->exited = true;
                        pp->action = PENDING_NONE;
                        break;
                case _PROC_EVENT_TYPE_MAX:
                        assert_not_reached();
                }
        }
        intmap_done(&index);
        if (r < 0)
                return log_oom();

        for (size_t i = 0; i < n_pending; i++) {
                const PendingProcess *pp = &pending[i];

                if (pp->exited)
                        manager_process_exit(m, pp->pid);
                switch (pp->action) {
                case PENDING_NONE:
                        break;
                case PENDING_COMM:
                        (void) manager_process_comm(m, pp->pid);
                        break;
                case PENDING_EXEC:
                        (void) track(m, pp->pid, true);
                        break;
                }
        }
        return 0;
}

/* The connector source's state, freed with it. */
typedef struct ConnectorWatch {
        Manager *manager;
        sd_event_source *window; /* ends the coalescing window */
} ConnectorWatch;

static void connector_watch_free(void *userdata)
{
        ConnectorWatch *w = userdata;

        if (!w)
                return;
        sd_event_source_disable_unref(w->window);
        free(w);
}

#define BATCH_MAX 8192u

/* Takes everything queued (up to BATCH_MAX events) and handles it as one batch. The connector source and
 * its ConnectorWatch may be gone afterwards (a failure reconnects). */
static void drain(Manager *m, int fd)
{
        ProcEvent *events;
        size_t n = 0;
        int error = 0;

        /* Allocated once: zeroing a fresh batch buffer per wakeup cost more than the events in it. */
        if (!m->event_buffer) {
                m->event_buffer = malloc(BATCH_MAX * sizeof(ProcEvent));
                if (!m->event_buffer) {
                        log_oom();
                        return;
                }
        }
        events = m->event_buffer;

        while (n < BATCH_MAX) {
                int k = proc_connector_receive(fd, events + n, BATCH_MAX - n);

                if (k == -ENOBUFS) {
                        m->n_overruns++;
                        if (!m->resync_source && sd_event_add_defer(m->event, &m->resync_source, on_resync, m) < 0)
                                (void) manager_rescan(m);
                        continue;
                }
                if (k < 0) {
                        error = k;
                        break;
                }
                if (k == 0)
                        break;
                n += (size_t) k;
        }

        m->n_events += n;
        (void) manager_process_events(m, events, n);

        /* Never return the error: sd-event would disable this source for good while the watchdog stays
         * happy. */
        if (error < 0)
                (void) manager_procwatch_recover(m, error);
        else if (m->callbacks.status_changed)
                m->callbacks.status_changed(m, m->userdata);
}

static int on_window(sd_event_source *s, uint64_t usec, void *userdata)
{
        ConnectorWatch *w = userdata;
        Manager *m = w->manager;

        (void) sd_event_source_set_enabled(m->connector_source, SD_EVENT_ON);
        drain(m, m->connector_fd);
        return 0;
}

/* Stops listening until the window ends: what arrives meanwhile waits in the socket, and one wakeup
 * then takes it all. */
static int open_window(ConnectorWatch *w, sd_event_source *connector, uint64_t window)
{
        Manager *m = w->manager;
        int r;

        if (w->window)
                r = sd_event_source_set_time_relative(w->window, window);
        else {
                r = sd_event_add_time_relative(m->event, &w->window, CLOCK_MONOTONIC, window, 1, on_window, w);
                if (r < 0)
                        return r;
                r = sd_event_source_set_priority(w->window, SD_EVENT_PRIORITY_NORMAL - 1);
        }
        if (r < 0)
                return r;
        r = sd_event_source_set_enabled(w->window, SD_EVENT_ONESHOT);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(connector, SD_EVENT_OFF);
}

static int on_connector(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        ConnectorWatch *w = userdata;
        Manager *m = w->manager;
        uint64_t window = m->config.event_coalesce_usec;
        int r;

        if (window > 0) {
                r = open_window(w, s, window);
                if (r >= 0)
                        return 0;
                log_debug_errno(r, "Failed to open a coalescing window, taking events at once");
                (void) sd_event_source_set_enabled(s, SD_EVENT_ON);
        }

        drain(m, fd);
        return 0;
}

static int on_poll(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;

        (void) manager_rescan(m);
        (void) sd_event_source_set_time_relative(s, m->config.poll_interval_usec);
        return sd_event_source_set_enabled(s, SD_EVENT_ON);
}

static int on_rescan_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;

        (void) manager_rescan(m);
        return sd_event_source_set_time_relative(s, m->config.rescan_interval_usec);
}

static int start_connector(Manager *m)
{
        _cleanup_free_ ConnectorWatch *w = NULL;
        int r;

        r = proc_connector_open((size_t) m->config.receive_buffer, &m->connector_fd);
        if (r < 0)
                return r;
        /* Only what is handled wakes us (no FORK, no thread exits). */
        r = proc_connector_set_filter(m->connector_fd, MANAGER_PROC_EVENT_TYPES);
        if (r < 0)
                return r;

        w = calloc(1, sizeof(ConnectorWatch));
        if (!w)
                return -ENOMEM;
        w->manager = m;
        r = sd_event_add_io(m->event, &m->connector_source, m->connector_fd, EPOLLIN, on_connector, w);
        if (r < 0)
                return r;
        r = sd_event_source_set_destroy_callback(m->connector_source, connector_watch_free);
        if (r < 0)
                return r;
        TAKE_PTR(w);
        /* Events before bus requests: a process that exits quickly should still be seen. */
        (void) sd_event_source_set_priority(m->connector_source, SD_EVENT_PRIORITY_NORMAL - 1);
        m->watch_state = MANAGER_WATCH_PROC_CONNECTOR;
        return 0;
}

static int start_polling(Manager *m)
{
        int r;

        r = sd_event_add_time_relative(m->event, &m->poll_timer, CLOCK_MONOTONIC, m->config.poll_interval_usec,
                        m->config.poll_interval_usec / 10, on_poll, m);
        if (r < 0)
                return r;
        m->watch_state = MANAGER_WATCH_POLLING;
        return 0;
}

int manager_procwatch_recover(Manager *m, int error)
{
        int r;

        assert(m);
        assert(error < 0);

        log_error_errno(error, "Reading process events failed; reconnecting");
        m->connector_source = sd_event_source_disable_unref(m->connector_source);
        m->connector_fd = safe_close(m->connector_fd);
        m->watch_state = MANAGER_WATCH_NONE;
        m->n_connector_failures++;

        /* A new subscription, then a rescan for what happened in between. */
        r = m->real_proc ? start_connector(m) : -EOPNOTSUPP;
        if (r < 0) {
                m->connector_fd = safe_close(m->connector_fd);
                m->connector_source = sd_event_source_disable_unref(m->connector_source);
                m->watch_degraded = true;
                log_warning_errno(r,
                                "Cannot reconnect to the proc connector, polling /proc every %" PRIu64
                                " ms instead (degraded)",
                                m->config.poll_interval_usec / 1000);
                if (!m->poll_timer)
                        r = start_polling(m);
                else {
                        m->watch_state = MANAGER_WATCH_POLLING;
                        r = 0;
                }
                if (r < 0) {
                        /* Not watching at all: stop telling systemd we are fine, so it restarts us. */
                        (void) sd_event_set_watchdog(m->event, false);
                        if (m->callbacks.status_changed)
                                m->callbacks.status_changed(m, m->userdata);
                        return log_error_errno(r, "Cannot watch processes at all; no more watchdog pings");
                }
        }

        r = manager_rescan(m);
        if (m->callbacks.status_changed)
                m->callbacks.status_changed(m, m->userdata);
        return r;
}

int manager_procwatch_start(Manager *m)
{
        int r;

        if (m->real_proc && m->config.watch_mode != PROC_WATCH_POLL) {
                r = start_connector(m);
                if (r < 0) {
                        if (m->config.watch_mode == PROC_WATCH_PROC_CONNECTOR)
                                return log_error_errno(r, "Cannot use the proc connector (Mode=proc-connector)");
                        log_notice_errno(r, "Proc connector unavailable, polling /proc every %" PRIu64 " ms instead",
                                        m->config.poll_interval_usec / 1000);
                        m->connector_fd = safe_close(m->connector_fd);
                        m->connector_source = sd_event_source_disable_unref(m->connector_source);
                }
        } else if (!m->real_proc)
                log_info("--proc is not the live /proc: polling it every %" PRIu64 " ms.",
                                m->config.poll_interval_usec / 1000);

        if (m->watch_state == MANAGER_WATCH_NONE) {
                r = start_polling(m);
                if (r < 0)
                        return log_error_errno(r, "Cannot start polling");
        }

        if (m->config.rescan_interval_usec > 0) {
                r = sd_event_add_time_relative(m->event, &m->rescan_timer, CLOCK_MONOTONIC,
                                m->config.rescan_interval_usec, m->config.rescan_interval_usec / 10, on_rescan_timer,
                                m);
                if (r < 0)
                        return log_error_errno(r, "Cannot start the rescan timer");
        }

        /* Subscribed here, scanned by the caller afterwards (manager_scan()): a process started in
         * between is seen at least once. */
        return 0;
}

void manager_procwatch_stop(Manager *m)
{
        m->event_buffer = mfree(m->event_buffer);
        m->connector_source = sd_event_source_disable_unref(m->connector_source);
        m->poll_timer = sd_event_source_disable_unref(m->poll_timer);
        m->rescan_timer = sd_event_source_disable_unref(m->rescan_timer);
        m->resync_source = sd_event_source_disable_unref(m->resync_source);
        m->connector_fd = safe_close(m->connector_fd);
        m->watch_state = MANAGER_WATCH_NONE;
}
