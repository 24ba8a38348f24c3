/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdio.h>

#include "bus-common.h"
#include "parse-util.h"

const sd_bus_error_map bus_error_map[] = {
        SD_BUS_ERROR_MAP(BUS_ERROR_NO_SUCH_PROCESS, ESRCH),
        SD_BUS_ERROR_MAP(BUS_ERROR_LIMITS_EXCEEDED, E2BIG),
        SD_BUS_ERROR_MAP_END,
};

int bus_caller_uid(sd_bus_message *m, uid_t *ret)
{
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        int r;

        r = sd_bus_query_sender_creds(m, SD_BUS_CREDS_EUID, &creds);
        if (r < 0)
                return r;
        /* Augmented fields come from /proc after the fact and can lie (pid reuse): refuse them. */
        if (sd_bus_creds_get_augmented_mask(creds) & SD_BUS_CREDS_EUID)
                return -EPERM;
        return sd_bus_creds_get_euid(creds, ret);
}

int bus_check_may_see(BusContext *c, uid_t caller, uid_t owner, pid_t pid, sd_bus_error *error)
{
        if (!manager_may_list(c->manager, caller, owner))
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_PROCESS, "No such process: pid %i", (int) pid);
        if (!manager_may_see(caller, owner))
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                "Process %i belongs to another user; only root may see its details.", (int) pid);
        return 0;
}

int bus_caller_creds(sd_bus_message *m, UserCreds *ret)
{
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        const gid_t *groups = NULL;
        uid_t uid;
        gid_t gid;
        int r, n;

        r = sd_bus_query_sender_creds(
                        m, SD_BUS_CREDS_EUID | SD_BUS_CREDS_EGID | SD_BUS_CREDS_SUPPLEMENTARY_GIDS, &creds);
        if (r < 0)
                return r;
        /* Augmented fields come from /proc after the fact and can lie (pid reuse): refuse them. */
        if (sd_bus_creds_get_augmented_mask(creds) & (SD_BUS_CREDS_EUID | SD_BUS_CREDS_EGID))
                return -EPERM;
        r = sd_bus_creds_get_euid(creds, &uid);
        if (r < 0)
                return r;
        r = sd_bus_creds_get_egid(creds, &gid);
        if (r < 0)
                return r;
        *ret = (UserCreds){ .uid = uid, .gid = gid };
        /* Supplementary groups only add rights: when the bus cannot tell them (or they are augmented,
         * hence untrustworthy), the caller gets fewer, never more. */
        n = sd_bus_creds_get_supplementary_gids(creds, &groups);
        if (n > 0 && !(sd_bus_creds_get_augmented_mask(creds) & SD_BUS_CREDS_SUPPLEMENTARY_GIDS))
                for (int i = 0; i < n && ret->n_groups < USER_CREDS_GROUPS_MAX; i++)
                        ret->groups[ret->n_groups++] = groups[i];
        user_creds_normalize(ret);
        return 0;
}

int bus_reply_errno(sd_bus_error *error, int r, const char *what)
{
        switch (-r) {
        case ESRCH:
        case ENOENT:
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_PROCESS, "No such process: %s", what);
        case EINVAL:
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Invalid argument: %s", what);
        case E2BIG:
        case EMSGSIZE:
                return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED, "Limit exceeded: %s", what);
        case EACCES:
        case EPERM:
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "Access denied: %s", what);
        case EOPNOTSUPP:
                return sd_bus_error_setf(error, SD_BUS_ERROR_NOT_SUPPORTED, "Not supported: %s", what);
        default:
                return r;
        }
}

int bus_process_path(const Process *p, char **ret)
{
        return asprintf(ret, BUS_PROCESS_PREFIX "/%i_%" PRIu64, (int) p->id.pid, p->id.start_time) < 0 ? -ENOMEM : 0;
}

int bus_process_path_parse(const char *path, ProcIdentity *ret)
{
        const char *last;
        char pid[16], start[32];
        size_t k;
        uint32_t v;

        if (!path || strncmp(path, BUS_PROCESS_PREFIX "/", strlen(BUS_PROCESS_PREFIX "/")) != 0)
                return -EINVAL;
        last = path + strlen(BUS_PROCESS_PREFIX "/");
        k = strcspn(last, "_");
        if (k == 0 || k >= sizeof(pid) || last[k] != '_' || strlen(last + k + 1) >= sizeof(start))
                return -EINVAL;
        memcpy(pid, last, k);
        pid[k] = '\0';
        strcpy(start, last + k + 1);
        if (safe_atou32(pid, &v) < 0 || v == 0 || v > INT32_MAX || safe_atou64(start, &ret->start_time) < 0)
                return -EINVAL;
        ret->pid = (pid_t) v;
        return 0;
}
