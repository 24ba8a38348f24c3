/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <sys/epoll.h>
#include <time.h>

#include "fd-util.h"
#include "log.h"
#include "gpu-opens.h"
#include "process-watch.h"
#include "proc-connector.h"
#include "process-observers.h"
#include "process.h"

#define PIDS_MAX (4u * 1024u * 1024u) /* kernel.pid_max can be 2^22 */

static bool is_kernel_thread(const ProcFacts *f)
{
        /* Kernel threads have no executable and no command line; kthreadd is pid 2. */
        return (!f->exe && !f->argv) || f->id.pid == 2 || f->ppid == 2;
}

/* The rule that ties an event to a process, applied to every event before it touches one:
 *
 * An event is about a process that existed when it happened, so that process started no later than the
 * event's timestamp. A process found under the event's pid in /proc (our namespace's) that started after
 * it is another one: the event's process exited and its pid was reused. Such an event is dropped (the
 * scans see what it would have told) and nothing of the newer process is read, replaced or removed for it.
 * A process that started no later and is still there held the pid when the event happened, so it is the
 * event's process: within one PID namespace the rule is exact.
 *
 * Units: /proc start times are clock ticks since boot (CLOCK_BOOTTIME, rounded down); event timestamps are
 * CLOCK_MONOTONIC nanoseconds, which lack the time spent suspended (event_clock_offset_ns, measured at each
 * batch). The rule errs on the lenient side only: by less than a tick from the rounding (a pid reused within
 * 10 ms would need pid_max forks in between), and by a suspend that happened between an event and its batch.
 *
 * It needs the events to be of our PID namespace and clock, which proc_connector_verify() proves before any
 * is applied: a foreign event whose pid a process of ours that started earlier holds would pass it. */
bool manager_event_may_describe(const Manager *m, uint64_t event_ns, uint64_t start_time)
{
        if (event_ns == MANAGER_NO_EVENT)
                return true;
        return start_time * m->profiles->nsec_per_tick <= event_ns + m->profiles->event_clock_offset_ns;
}

static void refresh_event_clock(Manager *m)
{
        struct timespec mono = { 0 }, boot = { 0 };
        uint64_t mono_ns, boot_ns;

        if (!m->real_proc || clock_gettime(CLOCK_MONOTONIC, &mono) < 0 || clock_gettime(CLOCK_BOOTTIME, &boot) < 0)
                return;
        mono_ns = (uint64_t) mono.tv_sec * 1000000000u + (uint64_t) mono.tv_nsec;
        boot_ns = (uint64_t) boot.tv_sec * 1000000000u + (uint64_t) boot.tv_nsec;
        m->profiles->event_clock_offset_ns = boot_ns > mono_ns ? boot_ns - mono_ns : 0;
}

/* event_ns: the timestamp of the event that makes us look (MANAGER_NO_EVENT for a scan). */
static int track(Manager *m, pid_t pid, bool settle, uint64_t event_ns)
{
        _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
        _cleanup_close_ int dfd = -EBADF;
        Process *old;
        int r;

        /* Only what every process needs now; what its rules test is read once its configuration is known.
         * Many short-lived processes have exited by the time we look: nothing more is read of those. */
        r = process_facts_open(m, pid, NULL, true, event_ns, &f, &dfd);
        if (r == -ESTALE) {
                log_debug("Process %i started after the event about its pid: another process's, dropped.", (int) pid);
                return 0;
        }
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

        if (intmap_size(&m->profiles->processes) >= m->config.max_processes) {
                if (!m->profiles->limit_logged)
                        log_warning("Tracking the maximum of %u processes (MaxProcesses=); ignoring new ones.",
                                        m->config.max_processes);
                m->profiles->limit_logged = true;
                return 0;
        }

        r = process_new_at(m, dfd, &f, settle, NULL);
        if (r == -ESRCH)
                return 0;
        if (r < 0)
                return log_user_debug_errno(f.uid, r, "Cannot evaluate process %i", (int) pid);
        process_observers_exec(m, pid);
        return 0;
}

int manager_process_exec(Manager *m, pid_t pid)
{
        m->profiles->n_execs++;
        return track(m, pid, true, MANAGER_NO_EVENT);
}

static int process_comm_at(Manager *m, pid_t pid, uint64_t event_ns)
{
        Process *p = manager_get_process(m, pid);
        int r;

        if (!p)
                return track(m, pid, true, event_ns);
        if (!manager_event_may_describe(m, event_ns, p->id.start_time))
                return 0;
        r = process_reread(p);
        if (r == -ESRCH)
                process_remove(p);
        return 0;
}

int manager_process_comm(Manager *m, pid_t pid)
{
        return process_comm_at(m, pid, MANAGER_NO_EVENT);
}

static void process_exit_at(Manager *m, pid_t pid, uint64_t event_ns)
{
        Process *p = manager_get_process(m, pid);

        process_observers_exit(m, pid, event_ns);
        if (p && manager_event_may_describe(m, event_ns, p->id.start_time))
                process_remove(p);
}

void manager_process_exit(Manager *m, pid_t pid)
{
        process_exit_at(m, pid, MANAGER_NO_EVENT);
}

typedef struct QueuedExec {
        pid_t pid;
        uint64_t seq; /* stale unless pending[pid] still says this */
        uint64_t due_usec; /* CLOCK_MONOTONIC */
        uint64_t exec_ns; /* the event's timestamp */
} QueuedExec;

void exec_queue_done(ExecQueue *q)
{
        q->execs = mfree(q->execs);
        q->head = q->n_execs = q->allocated_execs = 0;
        intmap_done(&q->pending);
}

/* The connector source's state, freed with it. */
typedef struct ConnectorWatch {
        Manager *manager;
        sd_event_source *window; /* ends the coalescing window, or wakes us for the next due exec */
        ExecQueue queue;
} ConnectorWatch;

static void connector_watch_free(void *userdata)
{
        ConnectorWatch *w = userdata;

        if (!w)
                return;
        sd_event_source_disable_unref(w->window);
        exec_queue_done(&w->queue);
        free(w);
}

static bool exec_queue_has(const ExecQueue *q, pid_t pid)
{
        return q && intmap_get(&q->pending, (uint64_t) pid);
}

static void exec_queue_cancel(ExecQueue *q, pid_t pid)
{
        if (q)
                (void) intmap_remove(&q->pending, (uint64_t) pid);
}

static int exec_queue_add(ExecQueue *q, pid_t pid, uint64_t due_usec, uint64_t exec_ns)
{
        int r;

        /* Read entries are dropped from the front now and then, not at every read. */
        if (q->head > 0 && q->head == q->n_execs)
                q->head = q->n_execs = 0;
        else if (q->head >= 1024 && q->head >= q->n_execs / 2) {
                memmove(q->execs, q->execs + q->head, (q->n_execs - q->head) * sizeof(QueuedExec));
                q->n_execs -= q->head;
                q->head = 0;
        }
        if (GREEDY_REALLOC(q->execs, q->allocated_execs, q->n_execs + 1) < 0)
                return -ENOMEM;
        r = intmap_put(&q->pending, (uint64_t) pid, (void *) (uintptr_t) ++q->seq);
        if (r < 0)
                return r;
        q->execs[q->n_execs++] = (QueuedExec){ .pid = pid, .seq = q->seq, .due_usec = due_usec, .exec_ns = exec_ns };
        return 0;
}

uint64_t manager_read_due_execs(Manager *m, ExecQueue *q, uint64_t now_usec)
{
        Process *p;

        assert(m);
        assert(q);

        for (; q->head < q->n_execs; q->head++) {
                const QueuedExec *e = &q->execs[q->head];

                if ((uintptr_t) intmap_get(&q->pending, (uint64_t) e->pid) != e->seq)
                        continue; /* exited, or exec'ed again */
                if (e->due_usec > now_usec)
                        return e->due_usec;
                (void) intmap_remove(&q->pending, (uint64_t) e->pid);
                (void) track(m, e->pid, true, e->exec_ns);
                p = manager_get_process(m, e->pid);
                if (p && manager_event_may_describe(m, e->exec_ns, p->id.start_time))
                        manager_gpu_process_tracked(m, e->pid, e->due_usec - m->config.event_coalesce_usec);
        }
        return UINT64_MAX;
}

int manager_rescan(Manager *m)
{
        _cleanup_free_ pid_t *pids = NULL, *gone = NULL;
        size_t n = 0, allocated_gone = 0;
        ConnectorWatch *w;
        uint64_t scan;
        Process *p;
        int r;

        r = proc_list_pids(m->proc_fd, PIDS_MAX, &pids, &n);
        if (r < 0)
                return log_error_errno(r, "Cannot list processes");

        /* Everything is read now, execs waiting to be read included. */
        w = m->profiles->connector_source ? sd_event_source_get_userdata(m->profiles->connector_source) : NULL;
        if (w)
                exec_queue_done(&w->queue);

        scan = ++m->profiles->n_rescans;
        for (size_t i = 0; i < n; i++) {
                ProcIdentity id;

                p = manager_get_process(m, pids[i]);
                if (p && proc_identity_read(m->proc_fd, pids[i], &id) >= 0 && proc_identity_equal(id, p->id)) {
                        p->scan_seen = scan;
                        continue;
                }
                /* New, or the pid was reused while we were not looking. The first scan's processes are
                 * long settled; later ones may be fresh, so those get the settle re-reads. */
                (void) track(m, pids[i], scan > 1, MANAGER_NO_EVENT);
                p = manager_get_process(m, pids[i]);
                if (p)
                        p->scan_seen = scan;
        }

        /* What the scan did not find has exited (its EXIT event may have been lost). Collected first:
         * removing changes the map under the iterator. */
        n = 0;
        for (size_t i = 0; intmap_next(&m->profiles->processes, &i, NULL, (void **) &p);)
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

        m->profiles->resync_source = sd_event_source_disable_unref(m->profiles->resync_source);
        log_info("Process events were lost (connector overrun %" PRIu64 "); rescanning /proc.",
                        m->profiles->n_overruns);
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
        uint64_t exit_ns; /* when the last EXIT happened */
        uint64_t action_ns; /* when the last EXEC, or for a rename alone the last COMM, happened */
        pid_t parent; /* forked by this process (and not exited since) */
        uint64_t fork_ns;
} PendingProcess;

int manager_process_events_delayed(
                Manager *m, ExecQueue *q, const ProcEvent *events, size_t n, uint64_t now_usec, uint64_t delay_usec)
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
                        m->profiles->n_execs++;
                        pp->action = PENDING_EXEC;
                        pp->action_ns = events[i].timestamp_ns;
                        break;
                case PROC_EVENT_TYPE_COMM:
                        if (pp->action != PENDING_EXEC) {
                                pp->action = PENDING_COMM;
                                pp->action_ns = events[i].timestamp_ns;
                        }
                        break;
                case PROC_EVENT_TYPE_EXIT:
                        pp->exited = true;
                        pp->exit_ns = events[i].timestamp_ns;
                        pp->action = PENDING_NONE;
                        pp->parent = 0;
                        break;
                case PROC_EVENT_TYPE_FORK:
                        pp->parent = events[i].parent;
                        pp->fork_ns = events[i].timestamp_ns;
                        break;
                case _PROC_EVENT_TYPE_MAX:
                        assert_not_reached();
                }
        }
        intmap_done(&index);
        if (r < 0)
                return log_oom();

        /* Forks first: a parent that exits within the batch (a launcher that daemonises) handed its
         * descriptors on. A pid that exited and was reused within one batch is left to the sweeps. */
        for (size_t i = 0; i < n_pending; i++)
                if (pending[i].parent > 0 && !pending[i].exited)
                        process_observers_fork(m, pending[i].parent, pending[i].pid, pending[i].fork_ns);

        for (size_t i = 0; i < n_pending; i++) {
                const PendingProcess *pp = &pending[i];

                if (pp->exited) {
                        process_exit_at(m, pp->pid, pp->exit_ns);
                        exec_queue_cancel(q, pp->pid);
                }
                switch (pp->action) {
                case PENDING_NONE:
                        break;
                case PENDING_COMM:
                        /* An exec still to be read will see the new name. */
                        if (!exec_queue_has(q, pp->pid))
                                (void) process_comm_at(m, pp->pid, pp->action_ns);
                        break;
                case PENDING_EXEC: {
                        uint64_t due = pp->action_ns / 1000 + delay_usec;

                        if (q && due > now_usec && exec_queue_add(q, pp->pid, due, pp->action_ns) >= 0)
                                break;
                        exec_queue_cancel(q, pp->pid);
                        (void) track(m, pp->pid, true, pp->action_ns);
                        break;
                }
                }
        }
        return 0;
}

int manager_process_events(Manager *m, const ProcEvent *events, size_t n)
{
        return manager_process_events_delayed(m, NULL, events, n, 0, 0);
}

#define BATCH_MAX 8192u

static int on_window(sd_event_source *s, uint64_t usec, void *userdata);

/* Takes everything queued (up to BATCH_MAX events) and handles it as one batch, then reads the execs that
 * are due; *ret_next: when the next one is, or UINT64_MAX. -errno when reading failed: the connector
 * source and w are gone then (a failure reconnects). */
static int drain(ConnectorWatch *w, int fd, uint64_t *ret_next)
{
        Manager *m = w->manager;
        ProcEvent *events;
        uint64_t now = 0;
        size_t n = 0;
        int error = 0;

        /* Allocated once: zeroing a fresh batch buffer per wakeup cost more than the events in it. */
        if (!m->profiles->event_buffer) {
                m->profiles->event_buffer = malloc(BATCH_MAX * sizeof(ProcEvent));
                if (!m->profiles->event_buffer) {
                        *ret_next = UINT64_MAX;
                        log_oom();
                        return 0;
                }
        }
        events = m->profiles->event_buffer;

        while (n < BATCH_MAX) {
                int k = proc_connector_receive(fd, events + n, BATCH_MAX - n);

                if (k == -ENOBUFS) {
                        m->profiles->n_overruns++;
                        if (!m->profiles->resync_source &&
                                        sd_event_add_defer(m->event, &m->profiles->resync_source, on_resync, m) < 0)
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

        m->profiles->n_events += n;
        refresh_event_clock(m);
        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        (void) manager_process_events_delayed(m, &w->queue, events, n, now, m->config.event_coalesce_usec);
        *ret_next = manager_read_due_execs(m, &w->queue, now);

        /* Never return the error to sd-event: it would disable this source for good while the watchdog
         * stays happy. */
        if (error < 0) {
                (void) manager_procwatch_recover(m, error);
                return error;
        }
        if (m->callbacks.status_changed)
                m->callbacks.status_changed(m, m->userdata);
        return 0;
}

/* Stops listening until the timer at usec (absolute): what arrives meanwhile waits in the socket, and one
 * wakeup then takes it all. */
static int arm_window(ConnectorWatch *w, uint64_t usec)
{
        Manager *m = w->manager;
        int r;

        if (w->window)
                r = sd_event_source_set_time(w->window, usec);
        else {
                r = sd_event_add_time(m->event, &w->window, CLOCK_MONOTONIC, usec, 1, on_window, w);
                if (r < 0)
                        return r;
                r = sd_event_source_set_priority(w->window, SD_EVENT_PRIORITY_NORMAL - 1);
        }
        if (r < 0)
                return r;
        r = sd_event_source_set_enabled(w->window, SD_EVENT_ONESHOT);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(m->profiles->connector_source, SD_EVENT_OFF);
}

/* Execs waiting beyond which the queue is a storm's. */
#define STORM_PENDING 16u

/* After a drain: with execs still to read, wake for the next one; with none, listen again. In a storm,
 * at most every quarter window, so that it costs four wakeups per window, not one per exec (an exec is
 * then read at most 1.25 windows after it happened); otherwise, so that a result comes close to one
 * window after its exec, at most every eighth of a window. */
static void schedule_next(ConnectorWatch *w, uint64_t next)
{
        Manager *m = w->manager;
        uint64_t now = 0, gap;
        int r;

        if (next != UINT64_MAX) {
                (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
                gap = m->config.event_coalesce_usec / (intmap_size(&w->queue.pending) >= STORM_PENDING ? 4 : 8);
                r = arm_window(w, MAX(next, now + gap));
                if (r >= 0)
                        return;
                log_debug_errno(r, "Failed to wait for the next exec, reading every exec at once");
                (void) manager_read_due_execs(m, &w->queue, UINT64_MAX);
        }
        (void) sd_event_source_set_enabled(m->profiles->connector_source, SD_EVENT_ON);
}

static int on_window(sd_event_source *s, uint64_t usec, void *userdata)
{
        ConnectorWatch *w = userdata;
        uint64_t next;

        if (drain(w, w->manager->profiles->connector_fd, &next) >= 0)
                schedule_next(w, next);
        return 0;
}

static int on_connector(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        ConnectorWatch *w = userdata;
        Manager *m = w->manager;
        uint64_t window = m->config.event_coalesce_usec, now = 0, next;
        int r;

        if (window > 0) {
                (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
                r = arm_window(w, now + window);
                if (r >= 0)
                        return 0;
                log_debug_errno(r, "Failed to open a coalescing window, taking events at once");
                (void) sd_event_source_set_enabled(s, SD_EVENT_ON);
        }

        if (drain(w, fd, &next) >= 0)
                schedule_next(w, next);
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
        /* A time source is disabled when it fires (SD_EVENT_ONESHOT): armed again, or it fires once only. */
        (void) sd_event_source_set_time_relative(s, m->config.rescan_interval_usec);
        return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

/* Why processes are polled, in words: the log says the reason, ProcessWatchMode "polling (reason)". */
#define WATCH_REASON(reason, text) [reason] = { text, "polling (" text ")" }
static const struct {
        const char *text, *mode;
} watch_reasons[_MANAGER_WATCH_REASON_MAX] = {
        WATCH_REASON(MANAGER_WATCH_REASON_NOT_LIVE_PROC, "--proc is not the live /proc"),
        WATCH_REASON(MANAGER_WATCH_REASON_NO_CAPABILITY, "no CAP_NET_ADMIN for the proc connector"),
        WATCH_REASON(MANAGER_WATCH_REASON_UNAVAILABLE, "the proc connector is unavailable"),
        WATCH_REASON(MANAGER_WATCH_REASON_OTHER_PID_NAMESPACE, "the proc connector reports another PID namespace"),
        WATCH_REASON(MANAGER_WATCH_REASON_NO_EVENTS, "the proc connector delivers no events"),
        WATCH_REASON(MANAGER_WATCH_REASON_OTHER_CLOCK, "the proc connector's clock is another time namespace's"),
        WATCH_REASON(MANAGER_WATCH_REASON_UNVERIFIED, "the proc connector's events could not be verified"),
        WATCH_REASON(MANAGER_WATCH_REASON_FAILED, "the proc connector failed and could not be reopened"),
};

const char *manager_watch_mode(const Manager *m)
{
        if (m->profiles->watch_state == MANAGER_WATCH_POLLING &&
                        m->profiles->watch_reason > MANAGER_WATCH_REASON_NONE &&
                        m->profiles->watch_reason < _MANAGER_WATCH_REASON_MAX)
                return watch_reasons[m->profiles->watch_reason].mode;
        return manager_watch_state_to_string(m->profiles->watch_state);
}

/* A connector that opened but whose events cannot be trusted, or that stopped: polling for it is degraded
 * watching (late, short-lived processes missed). Polling for want of privileges or of a live /proc is what
 * was asked for. */
static bool watch_reason_is_degraded(ManagerWatchReason reason)
{
        return reason >= MANAGER_WATCH_REASON_OTHER_PID_NAMESPACE;
}

static ManagerWatchReason verify_error_to_reason(int error)
{
        switch (error) {
        case -EXDEV:
                return MANAGER_WATCH_REASON_OTHER_PID_NAMESPACE;
        case -ENODATA:
                return MANAGER_WATCH_REASON_NO_EVENTS;
        case -EDOM:
                return MANAGER_WATCH_REASON_OTHER_CLOCK;
        default:
                return MANAGER_WATCH_REASON_UNVERIFIED;
        }
}

/* Opens the connector, proves that its events are about our PID namespace (proc_connector_verify()), and
 * listens. On failure, *ret_reason says why; the caller closes what was opened. */
static int start_connector(Manager *m, ManagerWatchReason *ret_reason)
{
        _cleanup_free_ ConnectorWatch *w = NULL;
        int r;

        r = proc_connector_open((size_t) m->config.receive_buffer, &m->profiles->connector_fd);
        if (r < 0) {
                *ret_reason = r == -EPERM ? MANAGER_WATCH_REASON_NO_CAPABILITY : MANAGER_WATCH_REASON_UNAVAILABLE;
                return r;
        }
        *ret_reason = MANAGER_WATCH_REASON_UNAVAILABLE;
        /* The proof needs FORK events, whatever GPU usage needs. */
        r = proc_connector_set_filter(
                        m->profiles->connector_fd, MANAGER_PROC_EVENT_TYPES | (1u << PROC_EVENT_TYPE_FORK));
        if (r < 0)
                return r;
        r = proc_connector_verify(m->profiles->connector_fd);
        if (r < 0) {
                *ret_reason = verify_error_to_reason(r);
                return r;
        }
        /* Only what is handled wakes us (no thread exits; FORK only while an observer needs it). */
        r = proc_connector_set_filter(
                        m->profiles->connector_fd, MANAGER_PROC_EVENT_TYPES | process_observers_event_types(m));
        if (r < 0)
                return r;

        w = calloc(1, sizeof(ConnectorWatch));
        if (!w)
                return -ENOMEM;
        w->manager = m;
        r = sd_event_add_io(
                        m->event, &m->profiles->connector_source, m->profiles->connector_fd, EPOLLIN, on_connector, w);
        if (r < 0)
                return r;
        r = sd_event_source_set_destroy_callback(m->profiles->connector_source, connector_watch_free);
        if (r < 0)
                return r;
        TAKE_PTR(w);
        /* Events before bus requests: a process that exits quickly should still be seen. */
        (void) sd_event_source_set_priority(m->profiles->connector_source, SD_EVENT_PRIORITY_NORMAL - 1);
        m->profiles->watch_state = MANAGER_WATCH_PROC_CONNECTOR;
        m->profiles->watch_reason = MANAGER_WATCH_REASON_NONE;
        m->profiles->watch_degraded = false;
        return 0;
}

static void close_connector(Manager *m)
{
        m->profiles->connector_source = sd_event_source_disable_unref(m->profiles->connector_source);
        m->profiles->connector_fd = safe_close(m->profiles->connector_fd);
}

static int start_polling(Manager *m, ManagerWatchReason reason)
{
        int r;

        if (!m->profiles->poll_timer) {
                r = sd_event_add_time_relative(m->event, &m->profiles->poll_timer, CLOCK_MONOTONIC,
                                m->config.poll_interval_usec, m->config.poll_interval_usec / 10, on_poll, m);
                if (r < 0)
                        return r;
        }
        m->profiles->watch_state = MANAGER_WATCH_POLLING;
        m->profiles->watch_reason = reason;
        m->profiles->watch_degraded = watch_reason_is_degraded(reason);
        return 0;
}

/* An administrator looks for this one: the journal entry has a MESSAGE_ID (nvprofiled.catalog). */
static void log_degraded(Manager *m, int error)
{
        char mode_field[160];
        const char *fields[] = { "MESSAGE_ID=" LOG_MESSAGE_WATCH_DEGRADED, mode_field, NULL };

        snprintf(mode_field, sizeof(mode_field), "NVPROFILED_WATCH_MODE=%s", manager_watch_mode(m));
        log_user_full_errno(LOG_UID_NONE, LOG_WARNING, error, fields,
                        "Process watching is degraded, %s: polling /proc every %" PRIu64 " ms instead",
                        watch_reasons[m->profiles->watch_reason].text, m->config.poll_interval_usec / 1000);
}

int manager_procwatch_recover(Manager *m, int error)
{
        ManagerWatchReason reason = MANAGER_WATCH_REASON_FAILED;
        int r;

        assert(m);
        assert(error < 0);

        log_error_errno(error, "Reading process events failed; reconnecting");
        close_connector(m);
        m->profiles->watch_state = MANAGER_WATCH_NONE;
        m->profiles->n_connector_failures++;

        /* A new subscription, proven again, then a rescan for what happened in between. */
        r = m->real_proc ? start_connector(m, &reason) : -EOPNOTSUPP;
        if (r < 0) {
                close_connector(m);
                /* A connector that reopens but cannot be proven says why; one that does not reopen failed. */
                if (!watch_reason_is_degraded(reason))
                        reason = MANAGER_WATCH_REASON_FAILED;
                r = start_polling(m, reason);
                if (r < 0) {
                        /* Not watching at all: stop telling systemd we are fine, so it restarts us. */
                        m->profiles->watch_state = MANAGER_WATCH_NONE;
                        (void) sd_event_set_watchdog(m->event, false);
                        if (m->callbacks.status_changed)
                                m->callbacks.status_changed(m, m->userdata);
                        return log_error_errno(r, "Cannot watch processes at all; no more watchdog pings");
                }
                log_degraded(m, 0);
        }

        r = manager_rescan(m);
        if (m->callbacks.status_changed)
                m->callbacks.status_changed(m, m->userdata);
        return r;
}

int manager_procwatch_start(Manager *m)
{
        ManagerWatchReason reason = MANAGER_WATCH_REASON_NONE;
        int r;

        if (!m->real_proc)
                reason = MANAGER_WATCH_REASON_NOT_LIVE_PROC;
        else if (m->config.watch_mode != PROC_WATCH_POLL) {
                r = start_connector(m, &reason);
                if (r < 0) {
                        close_connector(m);
                        if (m->config.watch_mode == PROC_WATCH_PROC_CONNECTOR)
                                return log_error_errno(r, "Cannot use the proc connector (Mode=proc-connector), %s",
                                                watch_reasons[reason].text);
                }
        }

        if (m->profiles->watch_state == MANAGER_WATCH_NONE) {
                r = start_polling(m, reason);
                if (r < 0)
                        return log_error_errno(r, "Cannot start polling");
                if (m->profiles->watch_degraded)
                        log_degraded(m, 0);
                else if (reason != MANAGER_WATCH_REASON_NONE)
                        log_notice("Polling /proc every %" PRIu64 " ms: %s.", m->config.poll_interval_usec / 1000,
                                        watch_reasons[reason].text);
        }

        if (m->config.rescan_interval_usec > 0) {
                r = sd_event_add_time_relative(m->event, &m->profiles->rescan_timer, CLOCK_MONOTONIC,
                                m->config.rescan_interval_usec, m->config.rescan_interval_usec / 10, on_rescan_timer,
                                m);
                if (r < 0)
                        return log_error_errno(r, "Cannot start the rescan timer");
        }

        /* Subscribed here, scanned by the caller afterwards (manager_scan()): a process started in
         * between is seen at least once. */
        return 0;
}

void manager_procwatch_config_changed(Manager *m)
{
        int r;

        /* The next poll at the new interval from now; the rescan timer made, moved or stopped. */
        if (m->profiles->poll_timer)
                (void) sd_event_source_set_time_relative(m->profiles->poll_timer, m->config.poll_interval_usec);
        if (m->config.rescan_interval_usec == 0) {
                m->profiles->rescan_timer = sd_event_source_disable_unref(m->profiles->rescan_timer);
                return;
        }
        if (m->profiles->rescan_timer) {
                (void) sd_event_source_set_time_relative(m->profiles->rescan_timer, m->config.rescan_interval_usec);
                (void) sd_event_source_set_enabled(m->profiles->rescan_timer, SD_EVENT_ONESHOT);
                return;
        }
        r = sd_event_add_time_relative(m->event, &m->profiles->rescan_timer, CLOCK_MONOTONIC,
                        m->config.rescan_interval_usec, m->config.rescan_interval_usec / 10, on_rescan_timer, m);
        if (r < 0)
                log_warning_errno(r, "Cannot start the rescan timer");
}

void manager_procwatch_stop(Manager *m)
{
        m->profiles->event_buffer = mfree(m->profiles->event_buffer);
        close_connector(m);
        m->profiles->poll_timer = sd_event_source_disable_unref(m->profiles->poll_timer);
        m->profiles->rescan_timer = sd_event_source_disable_unref(m->profiles->rescan_timer);
        m->profiles->resync_source = sd_event_source_disable_unref(m->profiles->resync_source);
        m->profiles->watch_state = MANAGER_WATCH_NONE;
}
