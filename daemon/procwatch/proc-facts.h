/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

#include "macro.h"
#include "proc-cgroup.h"
#include "user-creds.h"

/* What nvprofiled knows about one process, read race-safely from /proc/<pid>.
 *
 * A process is (pid, start time), never a pid alone. Everything is read through one directory fd of
 * /proc/<pid>: once the process is gone, reads through that fd fail with ESRCH instead of reaching a
 * new process that reused the pid. */

typedef struct ProcIdentity {
        pid_t pid;
        uint64_t start_time; /* clock ticks since boot, /proc/<pid>/stat field 22 */
} ProcIdentity;

static inline bool proc_identity_equal(ProcIdentity a, ProcIdentity b)
{
        return a.pid == b.pid && a.start_time == b.start_time;
}

typedef struct ProcLimits {
        size_t cmdline_max; /* bytes of /proc/<pid>/cmdline read */
        size_t environ_max; /* bytes of /proc/<pid>/environ read */
        size_t maps_max; /* bytes of /proc/<pid>/maps read */
        size_t dsos_max; /* distinct mapped files kept */
        size_t argv_max; /* arguments kept */
} ProcLimits;

extern const ProcLimits proc_limits_default;

typedef enum ProcFactsFlags {
        PROC_FACTS_MAPS = 1 << 0, /* read maps (expensive for big processes) */
        PROC_FACTS_ENVIRON = 1 << 1, /* read environ (HOME, __GL_*) */
        PROC_FACTS_ROOT = 1 << 2, /* open /proc/<pid>/root for lookups inside the process's root */
        PROC_FACTS_STATUS = 1 << 3, /* read status: uid and file credentials */
        PROC_FACTS_EXE = 1 << 4, /* read the exe link */
        PROC_FACTS_CMDLINE = 1 << 5, /* read cmdline */
        PROC_FACTS_COMM = 1 << 6, /* read comm from its own file (identity already gives stat's copy) */
        PROC_FACTS_CGROUP = 1 << 7, /* read cgroup: the unit, slice, container and application */
        /* with PROC_FACTS_CGROUP: the application id of the Flatpak sandbox the process runs in, from the
         * /.flatpak-info of its root, read with its credentials (reads status and root when not read
         * yet); it names the cgroup's application over what the scope's name said */
        PROC_FACTS_FLATPAK = 1 << 8,
        /* What proc_facts_read() reads whatever its flags say. */
        PROC_FACTS_BASIC = PROC_FACTS_STATUS | PROC_FACTS_EXE | PROC_FACTS_CMDLINE | PROC_FACTS_COMM,
} ProcFactsFlags;

typedef struct ProcFacts {
        ProcIdentity id;
        pid_t ppid;
        uid_t uid;
        UserCreds creds; /* what the process opens files with: its filesystem uid, gid and groups */
        char *exe; /* NULL for kernel threads or when not permitted */
        char *comm;
        char **argv; /* NULL if empty (kernel threads, zombies) */
        char **env; /* HOME and __GL_* only */
        char **dsos; /* mapped file paths */
        bool dsos_truncated;
        int root_fd; /* O_PATH fd of the process's root, or -EBADF */
        ProcCgroup cgroup; /* every field NULL when its cgroup v2 path is not known (v1 only, unparsable) */
        char state; /* stat field 3: 'R', 'S', ..., 'Z' for a zombie */
        ProcFactsFlags have; /* what was read beyond the identity */
} ProcFacts;

void proc_facts_done(ProcFacts *f);

/* Reads pid's facts from the /proc directory proc_fd: the identity, PROC_FACTS_BASIC and flags. -ESRCH (or
 * -ENOENT) when the process is gone; if expect is given, a different start time also means -ESRCH (the pid
 * was reused). */
int proc_facts_read(int proc_fd, pid_t pid, const ProcIdentity *expect, ProcFactsFlags flags, const ProcLimits *limits,
                ProcFacts *ret);

/* Reading in steps, only what will be used: opens /proc/<pid> and reads its stat (identity, parent, state
 * and comm), returning the directory fd. Everything read later through that fd is about the same process:
 * once it is gone, reads fail with ESRCH rather than reach a process that reused the pid, so no second
 * look at the identity is needed. */
int proc_facts_open(int proc_fd, pid_t pid, const ProcIdentity *expect, ProcFacts *ret, int *ret_dfd);

/* Reads through dfd (from proc_facts_open()) what flags name and f->have does not have yet. -ESRCH when
 * the process is gone. */
int proc_facts_add(int dfd, ProcFactsFlags flags, const ProcLimits *limits, ProcFacts *f);

/* Whether the process's root (through dfd from proc_facts_open()) is a directory other than (dev, ino): one
 * fstatat() instead of opening it. 0 also when it cannot be looked at (not permitted), as a root that
 * cannot be opened counts as none; -ESRCH when the process is gone. */
int proc_facts_root_differs(int dfd, dev_t dev, ino_t ino);

/* Only the identity: cheap, for scans. */
int proc_identity_read(int proc_fd, pid_t pid, ProcIdentity *ret);

/* Re-reads only the mapped files and comm of a known process. */
int proc_facts_refresh(int proc_fd, ProcFacts *f, const ProcLimits *limits);

/* Lists the numeric entries of the /proc directory, at most max. */
int proc_list_pids(int proc_fd, size_t max, pid_t **ret, size_t *ret_n);
