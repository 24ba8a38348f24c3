/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <unistd.h>

#include "fd-util.h"
#include "log.h"
#include "manager-profiles.h"

int manager_profiles_new(ManagerProfiles **ret)
{
        ManagerProfiles *p;
        long hz;

        assert(ret);

        p = calloc(1, sizeof(ManagerProfiles));
        if (!p)
                return -ENOMEM;
        if (seen_names_new(NULL, &p->seen_names) < 0) {
                free(p);
                return -ENOMEM;
        }
        p->connector_fd = p->device_inotify_fd = -EBADF;
        p->reload_cause = LOG_UID_NONE;
        hz = sysconf(_SC_CLK_TCK);
        p->nsec_per_tick = hz > 0 ? 1000000000u / (uint64_t) hz : 10000000u;
        *ret = p;
        return 0;
}

ManagerProfiles *manager_profiles_free(ManagerProfiles *p)
{
        /* What it holds was released by the job's stop and free steps (manager_free()), but for what
         * manager_profiles_new() made. */
        if (!p)
                return NULL;
        seen_names_free(p->seen_names);
        return mfree(p);
}
