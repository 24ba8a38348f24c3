/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager-profiles.h"

/* Other jobs that follow processes (GPU usage follows which processes hold DRM descriptors) subscribe
 * here to what process tracking sees, so that tracking calls none of them by name and never waits for
 * their work on its exec path beyond the calls below. Observers are told in the order they subscribed.
 * A callback may be NULL. */
typedef struct ProcessObserver {
        /* A process was read after its exec (or found new by a scan) and is tracked now. */
        void (*exec)(Manager *m, pid_t pid, void *userdata);
        /* child forked from parent; event_ns: the FORK event's timestamp. Only when an observer asked for
         * FORK events (event_types below). */
        void (*fork)(Manager *m, pid_t parent, pid_t child, uint64_t event_ns, void *userdata);
        /* pid exited, tracked or not, before its process is removed; event_ns: the EXIT event's timestamp
         * (MANAGER_NO_EVENT when not from an event). */
        void (*exit)(Manager *m, pid_t pid, uint64_t event_ns, void *userdata);
        /* A GPU device node was opened; inotify does not say by whom. */
        void (*gpu_nodes_opened)(Manager *m, void *userdata);
        /* The event types (1 << ProcEventType) this observer needs from the proc connector now, besides
         * those tracking handles itself. */
        unsigned (*event_types)(Manager *m, void *userdata);
        void *userdata;
} ProcessObserver;

/* Adds o (copied). */
int manager_observe_processes(Manager *m, const ProcessObserver *o);
/* Removes the observer added with userdata. */
void manager_unobserve_processes(Manager *m, void *userdata);

/* An observer's event_types() changed: the connector's filter follows. */
void manager_process_event_types_changed(Manager *m);

/* For process tracking (profiles/): tell every observer. */
void process_observers_exec(Manager *m, pid_t pid);
void process_observers_fork(Manager *m, pid_t parent, pid_t child, uint64_t event_ns);
void process_observers_exit(Manager *m, pid_t pid, uint64_t event_ns);
void process_observers_gpu_nodes_opened(Manager *m);
unsigned process_observers_event_types(Manager *m);
/* At the manager's end. */
void process_observers_free(Manager *m);
