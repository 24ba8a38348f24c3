/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

#include "macro.h"

/* The kernel's process-event connector (netlink, CONFIG_PROC_EVENTS). Needs CAP_NET_ADMIN in the initial
 * user namespace; events carry init-namespace pids and CLOCK_MONOTONIC timestamps of the initial time
 * namespace, whatever namespace the listener is in (proc_connector_verify() tells whether they are the
 * listener's). Events can be lost when the socket buffer fills (the kernel sends with GFP_NOWAIT): the
 * receive call then says -ENOBUFS and the caller must rescan /proc. */

typedef enum ProcEventType {
        PROC_EVENT_TYPE_EXEC,
        PROC_EVENT_TYPE_COMM,
        PROC_EVENT_TYPE_EXIT,
        PROC_EVENT_TYPE_FORK, /* a new process (not a thread): passed only to whom asks for it */
        _PROC_EVENT_TYPE_MAX,
} ProcEventType;

typedef struct ProcEvent {
        ProcEventType type;
        pid_t pid; /* the process (thread group leader) */
        uint64_t timestamp_ns; /* when it happened, CLOCK_MONOTONIC */
        pid_t parent; /* FORK: the process that forked (thread group leader); 0 otherwise */
} ProcEvent;

/* Opens, binds and subscribes a non-blocking socket with a receive buffer of rcvbuf bytes (forced past
 * rmem_max when permitted). -EPERM without CAP_NET_ADMIN, -EPROTONOSUPPORT without CONFIG_PROC_EVENTS. */
int proc_connector_open(size_t rcvbuf, int *ret_fd);

/* Attaches a classic BPF socket filter that lets through only the event types in types (a mask of
 * 1 << ProcEventType) and, for COMM and EXIT, only those of thread group leaders, for FORK only new
 * processes (not new threads): everything else is dropped by the kernel before it wakes us. Called again,
 * replaces the filter. */
int proc_connector_set_filter(int fd, unsigned types);

/* Receives what is queued, several datagrams per system call; appends process-level events (threads
 * filtered out) to events, at most max. Returns the number stored, 0 when nothing is queued, -ENOBUFS
 * after an overrun. */
int proc_connector_receive(int fd, ProcEvent *events, size_t max);

/* Parses one received datagram; used by proc_connector_receive() and the fuzz target. Returns the
 * number of events stored. */
int proc_connector_parse(const void *buf, size_t len, ProcEvent *events, size_t max);

/* Proves that the events on fd describe this process's PID namespace and clock: forks a child that exits
 * at once and looks among what is queued for the child's FORK event under the pid fork() returned, with
 * this process as its parent, stamped within the fork() call on this process's CLOCK_MONOTONIC. The
 * kernel queues a FORK event before fork() returns in the parent, so the event is there at once or never:
 * nothing is waited for but the child's exit. fd's filter must pass FORK events. Everything read is
 * dropped (the caller rescans /proc afterwards).
 *
 * Returns 0 when proven; -EXDEV when events came but not that one (they carry another PID namespace's
 * pids: the listener is in a container); -ENODATA when no event came at all (the kernel ignores the
 * subscription of a listener outside the initial namespaces, so it hears only what another listener
 * asked for, which may be nothing); -EDOM when the event came but its timestamp is not of this
 * process's clock (another time namespace); -ENOBUFS when the buffer overflowed at every attempt; a
 * fork() error. A host pid can equal the child's pid by chance only together with the parent's: both are
 * compared. */
int proc_connector_verify(int fd);

/* Whether this process has CAP_NET_ADMIN in its effective set. */
bool have_cap_net_admin(void);
