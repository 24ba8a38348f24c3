/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager-profiles.h"
#include "proc-connector.h"

/* Seeing every process start, rename itself and exit: the proc connector when permitted (root), a
 * periodic /proc scan otherwise, and a full rescan at start-up and after every connector overrun. */
int manager_procwatch_start(Manager *m);
void manager_procwatch_stop(Manager *m);
/* PollIntervalSec= or RescanIntervalSec= changed (a reload): the timers follow. */
void manager_procwatch_config_changed(Manager *m);

/* After the connector failed (error): reconnects and rescans, or falls back to polling and says the
 * watching is degraded; if even that fails, watchdog pings stop, so that systemd restarts the daemon. */
int manager_procwatch_recover(Manager *m, int error);

/* The timestamp of no event: what a scan finds is applied whatever its start time. */
#define MANAGER_NO_EVENT UINT64_MAX

/* Whether an event stamped event_ns (the connector's CLOCK_MONOTONIC ns) may be applied to the process
 * that has its pid now, which started at start_time (/proc ticks): not when that one started after the
 * event. The rule and why it suffices are written down at its definition. */
bool manager_event_may_describe(const Manager *m, uint64_t event_ns, uint64_t start_time) _pure_;

/* The event types the manager handles (a mask of 1 << ProcEventType): the connector passes no others. */
#define MANAGER_PROC_EVENT_TYPES \
        ((1u << PROC_EVENT_TYPE_EXEC) | (1u << PROC_EVENT_TYPE_COMM) | (1u << PROC_EVENT_TYPE_EXIT))

/* Handles a batch of process events as one, at once: per process only the outcome counts, so a process
 * that exec'd and exited within the batch is never read, and several events of one process make one read.
 * (The connector's batches go through manager_process_events_delayed() below.) */
int manager_process_events(Manager *m, const ProcEvent *events, size_t n);

/* Execs waiting to be read: the connector reads an exec once it is EventCoalesceSec old, unless its
 * process exits first, so that a process living shorter than that is never read. */
typedef struct ExecQueue {
        struct QueuedExec *execs; /* in order of arrival, so of due time (up to the spread of CPU clocks) */
        size_t head, n_execs, allocated_execs;
        IntMap pending; /* pid -> sequence number of its latest exec not read yet */
        uint64_t seq;
} ExecQueue;

void exec_queue_done(ExecQueue *q);

/* manager_process_events(), except that an exec younger than delay_usec at now_usec (by the event's
 * timestamp) waits in q, and an exit or a newer exec of the same process takes it out again; a rename
 * of a process whose exec waits is left to that read. q NULL: everything is read at once. */
int manager_process_events_delayed(
                Manager *m, ExecQueue *q, const ProcEvent *events, size_t n, uint64_t now_usec, uint64_t delay_usec);

/* Reads the execs of q due by now_usec; returns when the next one is due, or UINT64_MAX. */
uint64_t manager_read_due_execs(Manager *m, ExecQueue *q, uint64_t now_usec);
