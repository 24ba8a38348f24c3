/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "process-observers.h"
#include "process-watch.h"

int manager_observe_processes(Manager *m, const ProcessObserver *o)
{
        assert(m);
        assert(o);

        if (GREEDY_REALLOC(m->profiles->process_observers, m->profiles->allocated_process_observers,
                            m->profiles->n_process_observers + 1) < 0)
                return -ENOMEM;
        m->profiles->process_observers[m->profiles->n_process_observers++] = *o;
        return 0;
}

void manager_unobserve_processes(Manager *m, void *userdata)
{
        assert(m);

        for (size_t i = 0; i < m->profiles->n_process_observers; i++)
                if (m->profiles->process_observers[i].userdata == userdata) {
                        memmove(m->profiles->process_observers + i, m->profiles->process_observers + i + 1,
                                        (m->profiles->n_process_observers - i - 1) * sizeof(ProcessObserver));
                        m->profiles->n_process_observers--;
                        return;
                }
}

void process_observers_free(Manager *m)
{
        m->profiles->process_observers = mfree(m->profiles->process_observers);
        m->profiles->n_process_observers = m->profiles->allocated_process_observers = 0;
}

void manager_process_event_types_changed(Manager *m)
{
        unsigned extra = process_observers_event_types(m);
        int r;

        if (m->profiles->connector_fd < 0)
                return;
        r = proc_connector_set_filter(m->profiles->connector_fd, MANAGER_PROC_EVENT_TYPES | extra);
        if (r < 0)
                log_warning_errno(r, "Cannot update the process event filter; children of GPU users are found at exec");
        else
                log_debug("Process events: FORK %s.", extra & (1u << PROC_EVENT_TYPE_FORK) ? "passed" : "dropped");
}

void process_observers_exec(Manager *m, pid_t pid)
{
        for (size_t i = 0; i < m->profiles->n_process_observers; i++)
                if (m->profiles->process_observers[i].exec)
                        m->profiles->process_observers[i].exec(m, pid, m->profiles->process_observers[i].userdata);
}

void process_observers_fork(Manager *m, pid_t parent, pid_t child, uint64_t event_ns)
{
        for (size_t i = 0; i < m->profiles->n_process_observers; i++)
                if (m->profiles->process_observers[i].fork)
                        m->profiles->process_observers[i].fork(
                                        m, parent, child, event_ns, m->profiles->process_observers[i].userdata);
}

void process_observers_exit(Manager *m, pid_t pid, uint64_t event_ns)
{
        for (size_t i = 0; i < m->profiles->n_process_observers; i++)
                if (m->profiles->process_observers[i].exit)
                        m->profiles->process_observers[i].exit(
                                        m, pid, event_ns, m->profiles->process_observers[i].userdata);
}

void process_observers_gpu_nodes_opened(Manager *m)
{
        for (size_t i = 0; i < m->profiles->n_process_observers; i++)
                if (m->profiles->process_observers[i].gpu_nodes_opened)
                        m->profiles->process_observers[i].gpu_nodes_opened(
                                        m, m->profiles->process_observers[i].userdata);
}

unsigned process_observers_event_types(Manager *m)
{
        unsigned types = 0;

        for (size_t i = 0; i < m->profiles->n_process_observers; i++)
                if (m->profiles->process_observers[i].event_types)
                        types |= m->profiles->process_observers[i].event_types(
                                        m, m->profiles->process_observers[i].userdata);
        return types;
}
