/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdio.h>

#include "bus-common.h"
#include "parse-util.h"

const sd_bus_error_map bus_error_map[] = {
        SD_BUS_ERROR_MAP(BUS_ERROR_NO_SUCH_PROCESS, ESRCH),
        SD_BUS_ERROR_MAP(BUS_ERROR_LIMITS_EXCEEDED, E2BIG),
        SD_BUS_ERROR_MAP(BUS_ERROR_INVALID_REPORT, EBADMSG),
        SD_BUS_ERROR_MAP(BUS_ERROR_NO_SUCH_METRIC, ENOENT),
        SD_BUS_ERROR_MAP(BUS_ERROR_FILE_CHANGED, ESTALE),
        SD_BUS_ERROR_MAP(BUS_ERROR_EDIT_REFUSED, EINVAL),
        SD_BUS_ERROR_MAP_END,
};

/* The uids of the last callers, by unique name. sd-bus asks the bus daemon (a synchronous round trip)
 * for every query, which a client calling once per signal turns into most of the daemon's work. A
 * unique name is never reused on a bus and a connection's uid never changes, so an entry cannot go
 * stale; the cache is small and overwritten round-robin. */
#define CALLER_CACHE_SIZE 64

typedef struct CallerCacheEntry {
        const sd_bus *bus;
        char *sender;
        uid_t uid;
} CallerCacheEntry;

static CallerCacheEntry caller_cache[CALLER_CACHE_SIZE];
static size_t caller_cache_next;

static bool caller_cache_get(const sd_bus *bus, const char *sender, uid_t *ret)
{
        for (size_t i = 0; i < CALLER_CACHE_SIZE; i++)
                if (caller_cache[i].sender && caller_cache[i].bus == bus && streq(caller_cache[i].sender, sender)) {
                        *ret = caller_cache[i].uid;
                        return true;
                }
        return false;
}

static void caller_cache_put(const sd_bus *bus, const char *sender, uid_t uid)
{
        CallerCacheEntry *e = &caller_cache[caller_cache_next];
        char *copy = strdup(sender);

        if (!copy)
                return; /* only a cache */
        free(e->sender);
        *e = (CallerCacheEntry){ .bus = bus, .sender = copy, .uid = uid };
        caller_cache_next = (caller_cache_next + 1) % CALLER_CACHE_SIZE;
}

void bus_caller_cache_clear(void)
{
        for (size_t i = 0; i < CALLER_CACHE_SIZE; i++)
                caller_cache[i].sender = mfree(caller_cache[i].sender);
}

int bus_caller_uid(sd_bus_message *m, uid_t *ret)
{
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        const char *sender = sd_bus_message_get_sender(m);
        uid_t uid;
        int r;

        if (sender && caller_cache_get(sd_bus_message_get_bus(m), sender, ret))
                return 0;

        r = sd_bus_query_sender_creds(m, SD_BUS_CREDS_EUID, &creds);
        if (r < 0)
                return r;
        /* Augmented fields come from /proc after the fact and can lie (pid reuse): refuse them. */
        if (sd_bus_creds_get_augmented_mask(creds) & SD_BUS_CREDS_EUID)
                return -EPERM;
        r = sd_bus_creds_get_euid(creds, &uid);
        if (r < 0)
                return r;
        if (sender)
                caller_cache_put(sd_bus_message_get_bus(m), sender, uid);
        *ret = uid;
        return 0;
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
        uint64_t augmented;
        uid_t uid;
        gid_t gid;
        int r, n;

        r = bus_caller_uid(m, &uid);
        if (r < 0)
                return r;
        if (uid == 0) {
                /* Root is root: previews show what root may see, the journal names uid 0, and files are
                 * read and written with root's access. A daemon running as root is root already (its own
                 * credentials keep the system view's cache); under the unit (User=nvprofiled) root's
                 * account gives gid and groups, and user_creds_run() keeps the daemon's effective
                 * capabilities while acting for uid 0 (user-creds.c says why). */
                if (geteuid() == 0)
                        user_creds_self(ret);
                else
                        user_creds_from_user_database(0, ret);
                user_creds_normalize(ret);
                return 0;
        }

        /* dbus-daemon vouches for the uid (and, if it can, the groups), not for the gid: fields sd-bus had
         * to read from /proc afterwards are "augmented" and race with pid reuse, so they are not used. */
        r = sd_bus_query_sender_creds(m, SD_BUS_CREDS_EGID | SD_BUS_CREDS_SUPPLEMENTARY_GIDS, &creds);
        if (r < 0)
                return r;
        augmented = sd_bus_creds_get_augmented_mask(creds);
        n = sd_bus_creds_get_supplementary_gids(creds, &groups);
        if (!(augmented & (SD_BUS_CREDS_EGID | SD_BUS_CREDS_SUPPLEMENTARY_GIDS)) &&
                        sd_bus_creds_get_egid(creds, &gid) >= 0 && n >= 0) {
                *ret = (UserCreds){ .uid = uid, .gid = gid, .n_groups = MIN((size_t) n, USER_CREDS_GROUPS_MAX) };
                memcpy(ret->groups, groups, ret->n_groups * sizeof(gid_t));
        } else
                user_creds_from_user_database(uid, ret);
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
