/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager-profiles.h"

/* The driver reads its profiles when a process first loads it, which is when it opens a GPU device node.
 * We watch the device nodes (DeviceDirectory=, /dev: nvidia*, dri/card*, dri/renderD*) for IN_OPEN and
 * then look for the processes that have one open: they get re-read (their libraries are loaded now) and
 * a bus object. inotify does not say who opened the node, so this costs one pass over the tracked
 * processes' fd tables per burst of opens (coalesced over 50 ms, at most one a second), and one at start
 * for the processes that opened a node before we watched. */
int manager_gpu_start(Manager *m);
void manager_gpu_stop(Manager *m);

/* A process whose exec waited in the exec queue (EventCoalesceSec=) is tracked only once it is read; a
 * device sweep that ran since its exec at exec_usec (CLOCK_MONOTONIC) did not see it, so it is checked
 * now. */
void manager_gpu_process_tracked(Manager *m, pid_t pid, uint64_t exec_usec);
