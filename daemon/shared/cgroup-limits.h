/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The limits of the cgroup a process runs in (for the daemon, its unit's TasksMax= and MemoryMax=): the
 * pids controller's pids.max and the memory controller's memory.max (v2) or memory.limit_in_bytes (v1)
 * of the cgroup /proc/self/cgroup names, under /sys/fs/cgroup. */

#define CGROUP_LIMIT_NONE UINT64_MAX

typedef struct CgroupLimits {
        uint64_t tasks_max; /* CGROUP_LIMIT_NONE: none set, or none known */
        uint64_t memory_max;
} CgroupLimits;

/* The paths of the two files, under sys_fs_cgroup, for the contents of a /proc/<pid>/cgroup (size bytes):
 * a v1 hierarchy of the controller where one is mounted (the "pids" or "memory" line), else the v2 "0::"
 * line's. NULL for one that neither names. -ENOMEM. */
int cgroup_limit_files(const char *text, size_t size, const char *sys_fs_cgroup, char **ret_tasks_file,
                char **ret_memory_file);

/* A limit file's text: a number of tasks or bytes, or "max" (none); CGROUP_LIMIT_NONE also for v1's "no
 * limit" (a number above 2^62). -EINVAL otherwise. */
int cgroup_limit_parse(const char *text, uint64_t *ret);

/* Our own cgroup's limits; each CGROUP_LIMIT_NONE where none can be read. */
void cgroup_limits_read_self(CgroupLimits *ret);
