/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>

#include "macro.h"
#include "report-budget.h"

void report_budget_fit(const ManagerConfig *c, const CgroupLimits *cgroup, ReportBudget *ret)
{
        unsigned workers = c->reports_max;
        uint64_t memory = c->report_memory_max;

        assert(c);
        assert(cgroup);
        assert(ret);

        if (cgroup->tasks_max != CGROUP_LIMIT_NONE)
                workers = (unsigned) MIN((uint64_t) workers,
                                cgroup->tasks_max > REPORT_BUDGET_TASKS_RESERVED
                                                ? cgroup->tasks_max - REPORT_BUDGET_TASKS_RESERVED
                                                : 0);
        if (cgroup->memory_max != CGROUP_LIMIT_NONE)
                memory = MIN(memory, cgroup->memory_max / 2);

        *ret = (ReportBudget){
                .workers_max = workers,
                .workers_per_user_max =
                                MIN(c->reports_per_user_max ? c->reports_per_user_max : MAX(workers / 4, 1u), workers),
                .memory_max = memory,
                .memory_per_user_max = MIN(c->report_memory_per_user_max, memory / 4 * 3),
        };
        ret->worker_memory_max = MIN(c->report_worker_memory_max, ret->memory_per_user_max / 6 * 5);
}
