/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"
#include "proc-connector.h"

/* Seeing every process start, rename itself and exit: the proc connector when permitted (root), a
 * periodic /proc scan otherwise, and a full rescan at start-up and after every connector overrun. */
int manager_procwatch_start(Manager *m);
void manager_procwatch_stop(Manager *m);

/* After the connector failed (error): reconnects and rescans, or falls back to polling and says the
 * watching is degraded; if even that fails, watchdog pings stop, so that systemd restarts the daemon. */
int manager_procwatch_recover(Manager *m, int error);

/* The event types the manager handles (a mask of 1 << ProcEventType): the connector passes no others. */
#define MANAGER_PROC_EVENT_TYPES \
        ((1u << PROC_EVENT_TYPE_EXEC) | (1u << PROC_EVENT_TYPE_COMM) | (1u << PROC_EVENT_TYPE_EXIT))

/* Handles a batch of process events as one: per process only the outcome counts, so a process that
 * exec'd and exited within the batch is never read, and several events of one process make one read. The
 * connector hands over what one coalescing window (EventCoalesceSec=) gathered. */
int manager_process_events(Manager *m, const ProcEvent *events, size_t n);
