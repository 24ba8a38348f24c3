/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <sys/stat.h>

#include "fileio.h"
#include "proc-parse.h"
#include "process.h"

/* What the bus and the other jobs ask about a process (manager.h declares each). */

size_t manager_n_processes(const Manager *m)
{
        return intmap_size(&m->profiles->processes);
}

bool manager_root_is_foreign(const Manager *m, int root_fd)
{
        struct stat st;

        return root_fd >= 0 && fstat(root_fd, &st) >= 0 &&
                        (st.st_dev != m->host_root_dev || st.st_ino != m->host_root_ino);
}

Process *manager_get_process(Manager *m, pid_t pid)
{
        return intmap_get(&m->profiles->processes, (uint64_t) pid);
}

int manager_process_owner(Manager *m, pid_t pid, uint64_t start_time, uid_t *ret)
{
        _cleanup_free_ char *status = NULL;
        Process *p = manager_get_process(m, pid);
        char path[32];
        size_t size;
        int r;

        if (p && (start_time == 0 || p->id.start_time == start_time)) {
                *ret = p->uid;
                return 0;
        }
        snprintf(path, sizeof(path), "%i/status", (int) pid);
        r = read_virtual_file_at(m->proc_fd, path, 16384, &status, &size);
        if (r < 0)
                return r == -ENOENT ? -ESRCH : r;
        return proc_parse_status_uid(status, size, ret);
}

int manager_explain_process(
                Manager *m, pid_t pid, uint64_t start_time, RcResolution **ret_resolution, ProcFacts *ret_facts)
{
        _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
        ProcIdentity expect = { pid, start_time };
        RcResolution *res = NULL;
        Process *p;
        int r;

        r = proc_facts_read(m->proc_fd, pid, start_time ? &expect : NULL,
                        PROC_FACTS_MAPS | PROC_FACTS_ENVIRON | PROC_FACTS_ROOT, &m->config.proc_limits, &f);
        if (r < 0)
                return r;

        r = process_resolve(m, &f, &res);
        if (r < 0)
                return r;

        /* Keep the tracked state in step with what we just told the caller. */
        p = manager_get_process(m, pid);
        if (p && proc_identity_equal(p->id, f.id))
                (void) process_reread(p);

        *ret_resolution = res;
        if (ret_facts) {
                *ret_facts = f;
                f = (ProcFacts){ .root_fd = -EBADF };
        }
        return 0;
}

const char *manager_watch_state_to_string(ManagerWatchState s)
{
        switch (s) {
        case MANAGER_WATCH_NONE:
                return "none";
        case MANAGER_WATCH_PROC_CONNECTOR:
                return "proc-connector";
        case MANAGER_WATCH_POLLING:
                return "polling";
        case _MANAGER_WATCH_STATE_MAX:
                break;
        }
        return NULL;
}
