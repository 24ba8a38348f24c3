/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "log.h"
#include "manager-profiles.h"

/* The loaded rc configurations, one slot per (root, user's access, $HOME): what NVIDIA's rc files say for
 * the processes of that user, their memory budgets and the inotify watches on their paths. Internal to
 * the manager. (The daemon's own settings are core/nvprofiled-conf.c.) */

void manager_configs_free(Manager *m);

/* Drops per-home configurations nobody used for ConfigurationIdleSec. */
void manager_configs_evict_idle(Manager *m);

/* Watches every path whose change matters: the system search path (the system group) and each user's
 * entries and files (a group per user, with that user's access and watch share). */
void manager_update_watches(Manager *m);

/* After loading: watch what was found too (new symlink targets), then make sure nothing moved in
 * between; if it did, a reload is triggered. */
void manager_watch_and_verify(Manager *m);

/* A user's rc-watch group, and whose a group is: LOG_UID_NONE (nobody's, for what is logged) for the
 * system's. */
static inline uint64_t manager_watch_group(uid_t uid)
{
        return (uint64_t) uid + 1;
}
static inline uid_t manager_watch_group_uid(uint64_t group)
{
        return group == RC_WATCH_GROUP_SYSTEM || group - 1 > UINT32_MAX ? LOG_UID_NONE : (uid_t) (group - 1);
}

static inline bool config_slot_is_host(const Manager *m, const ConfigSlot *s)
{
        return s->root_dev == m->root_dev && s->root_ino == m->root_ino;
}
