/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The [Reports] budgets in force: what the configuration says, within what the daemon's cgroup (its unit's
 * TasksMax= and MemoryMax=) leaves, so that one user's reports never take the tasks or the memory the main
 * process, the spare worker and every other user need.
 *
 * Tasks: the workers (one per report or diff being made) of all users are at most the cgroup's pids.max
 * less REPORT_BUDGET_TASKS_RESERVED (the main process and its threads, and the spare worker), and at most
 * ReportsMax=; a user's are at most ReportsPerUserMax= where set, else a quarter of all (at least one), and
 * never more than all.
 * Memory: what reports are charged in all is at most half the cgroup's memory.max (the main process keeps
 * the rc files and the bus's messages in the rest), and at most MemoryMax=; a user's at most
 * MemoryPerUserMax= and three quarters of all, so that another user always has room; one worker's at most
 * WorkerMemoryMax= and five sixths of a user's, so that its replies and outputs have the rest. Under the
 * unit's MemoryMax=128M: 64M, 48M and 40M. */

#include <stdint.h>

#include "cgroup-limits.h"
#include "nvprofiled-conf.h"

/* Tasks of the daemon's cgroup that are never a report's: the main process and the threads its libraries
 * may start (NVML), and the spare worker. */
#define REPORT_BUDGET_TASKS_RESERVED 5u

typedef struct ReportBudget {
        unsigned workers_max; /* all users' reports and diffs being made */
        unsigned workers_per_user_max;
        uint64_t memory_max; /* charged to all users */
        uint64_t memory_per_user_max;
        uint64_t worker_memory_max;
} ReportBudget;

void report_budget_fit(const ManagerConfig *c, const CgroupLimits *cgroup, ReportBudget *ret);
