/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "macro.h"

/* A temporary directory laid out like /proc, for handing to the manager as --proc.
 *
 * For each process it writes what daemon/procwatch/proc-facts.c reads, in the kernel's formats:
 *   <pid>/stat     "<pid> (<comm>) S <ppid> ... <start time>": field 22 is the start time;
 *   <pid>/status   "Name:", "Uid:" (real, effective, saved and filesystem uid all the same);
 *   <pid>/comm     the command name and a newline;
 *   <pid>/cmdline  argv, each argument NUL-terminated;
 *   <pid>/environ  "NAME=value", each NUL-terminated;
 *   <pid>/maps     the mapping lines;
 *   <pid>/exe      a symlink to the executable (absent for kernel threads);
 *   <pid>/root     a symlink to the process's root ("/" unless it is a container);
 *   <pid>/fd/<n>   symlinks to what the process has open (profiles/gpu-opens.c looks for device nodes);
 *   <pid>/cgroup   "0::<path>", the cgroup v2 line (absent unless a path is given).
 * and, on request, driver/nvidia/version (where the manager detects the driver version).
 *
 * Nothing here needs privileges: the tree belongs to whoever runs the test. The directory is removed
 * when the test binary exits (test_mkdtemp()). Every function asserts success: a fixture that cannot
 * be built is a broken test, not a result. */

typedef struct ProcFixture ProcFixture;

/* One process. Only pid is required; what is left 0/NULL gets the default named. */
typedef struct ProcFixtureProcess {
        pid_t pid;
        uint64_t start_time; /* clock ticks since boot; 0: pid * 1000, so distinct pids differ */
        pid_t ppid; /* 0: 1. A ppid of 2 (kthreadd) makes the manager take it for a kernel thread. */
        uid_t uid; /* taken as given: 0 is root. The manager reads per-user files as this user: a test
                    * that needs them read passes getuid(), so it works with and without root. */
        const char *exe; /* exe symlink target; NULL: no symlink */
        const char *comm; /* NULL: exe's basename, cut to 15 bytes as the kernel does ("" without exe) */
        const char *const *argv; /* NULL-terminated; NULL: { exe } (empty without exe) */
        const char *const *environ; /* NULL-terminated "NAME=value"; NULL: empty */
        const char *const *maps; /* NULL-terminated maps lines; a line that is just an absolute path is
                                  * expanded to a mapping of that file. NULL: exe alone is mapped. */
        const char *root; /* root symlink target; NULL: "/", the host's root */
        const char *const *fds; /* NULL-terminated targets of fd/0, fd/1, ...; NULL: no fd/ directory */
        const char *cgroup; /* the cgroup v2 path ("/system.slice/x.service"); NULL: no cgroup file */
} ProcFixtureProcess;

ProcFixture *proc_fixture_new(void);
ProcFixture *proc_fixture_free(ProcFixture *f);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProcFixture *, proc_fixture_free);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ProcFixture, proc_fixture_free)

/* The directory to pass as --proc. */
const char *proc_fixture_path(const ProcFixture *f);

/* Makes the process exist, replacing whatever had its pid: the same start time is an exec (same
 * process, new program), another one a reused pid. */
void proc_fixture_add(ProcFixture *f, const ProcFixtureProcess *p);

/* The process exited (and was reaped): its directory goes away. */
void proc_fixture_remove(ProcFixture *f, pid_t pid);

/* prctl(PR_SET_NAME) or a write to /proc/<pid>/comm: comm, stat and status change, nothing else. */
void proc_fixture_set_comm(ProcFixture *f, pid_t pid, const char *comm);

/* The process mapped (or unmapped) libraries: maps as in ProcFixtureProcess. */
void proc_fixture_set_maps(ProcFixture *f, pid_t pid, const char *const *maps);

/* Writes driver/nvidia/version as the driver's kernel module does; NULL removes it (no driver). */
void proc_fixture_set_driver_version(ProcFixture *f, const char *version);

bool proc_fixture_has(const ProcFixture *f, pid_t pid);
