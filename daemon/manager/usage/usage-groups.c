/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>

#include "usage-model.h"
#include "string-util.h"

/* Usage totals per unit, application or user: what a desktop applet or `top` shows before a process list.
 * Only the processes a caller may see count, as in ListGpuProcesses. */

static const char *const group_by_names[_USAGE_GROUP_MAX] = {
        [USAGE_GROUP_UNIT] = "unit",
        [USAGE_GROUP_APPLICATION] = "application",
        [USAGE_GROUP_USER] = "user",
};

UsageGroupBy usage_group_by_from_string(const char *s)
{
        for (size_t i = 0; i < ELEMENTSOF(group_by_names); i++)
                if (streq(s, group_by_names[i]))
                        return (UsageGroupBy) i;
        return _USAGE_GROUP_INVALID;
}

void usage_groups_free(UsageGroup *g, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(g[i].key);
                free(g[i].engines);
                free(g[i].memory);
        }
        free(g);
}

static char *group_key(const UsageProcess *p, UsageGroupBy by)
{
        char uid[16];

        switch (by) {
        case USAGE_GROUP_UNIT:
                return strdup(strempty(p->cgroup.unit));
        case USAGE_GROUP_APPLICATION:
                return strdup(p->cgroup.path ? proc_cgroup_application(&p->cgroup) : "");
        case USAGE_GROUP_USER:
                snprintf(uid, sizeof(uid), "%u", (unsigned) p->uid);
                return strdup(uid);
        default:
                assert(false);
                return NULL;
        }
}

static int group_add(UsageGroup *g, const UsageProcess *p)
{
        int r;

        g->n_processes++;
        for (size_t i = 0; i < p->n_engines; i++) {
                r = usage_engines_add(&g->engines, &g->n_engines, &p->engines[i]);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < p->n_memory; i++) {
                r = usage_memory_add(&g->memory, &g->n_memory, &p->memory[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int cmp_group(const void *a, const void *b)
{
        return strcmp(((const UsageGroup *) a)->key, ((const UsageGroup *) b)->key);
}

int usage_snapshot_groups(const UsageSnapshot *s, UsageGroupBy by, uid_t caller, UsageGroup **ret, size_t *ret_n)
{
        UsageGroup *groups = NULL;
        size_t n = 0;
        int r;

        assert(by >= 0 && by < _USAGE_GROUP_MAX);

        for (size_t i = 0; i < s->n_processes; i++) {
                const UsageProcess *p = &s->processes[i];
                _cleanup_free_ char *key = NULL;
                UsageGroup *g = NULL;

                /* The privacy check before any work for the process. */
                if (!manager_may_see(caller, p->uid))
                        continue;
                key = group_key(p, by);
                if (!key) {
                        usage_groups_free(groups, n);
                        return -ENOMEM;
                }
                /* Linear in groups per process; a snapshot's processes are bounded by the sampler's. */
                for (size_t k = 0; k < n && !g; k++)
                        if (streq(groups[k].key, key))
                                g = &groups[k];
                if (!g) {
                        UsageGroup *x = reallocarray(groups, n + 1, sizeof(UsageGroup));
                        if (!x) {
                                usage_groups_free(groups, n);
                                return -ENOMEM;
                        }
                        groups = x;
                        g = &groups[n++];
                        *g = (UsageGroup){ .key = TAKE_PTR(key) };
                }
                r = group_add(g, p);
                if (r < 0) {
                        usage_groups_free(groups, n);
                        return r;
                }
        }
        qsort_safe(groups, n, sizeof(UsageGroup), cmp_group);
        *ret = groups;
        *ret_n = n;
        return 0;
}
