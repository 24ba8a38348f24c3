/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"

/* The manager's loaded configurations (one per root, user's access and $HOME), their memory budgets and
 * the inotify watches on their paths. Internal to the manager. */

void manager_configs_free(Manager *m);

/* Drops per-home configurations nobody used for ConfigurationIdleSec. */
void manager_configs_evict_idle(Manager *m);

/* Watches every path whose change matters: the system search path (the system group) and each user's
 * entries and files (a group per user, with that user's access and watch share). */
void manager_update_watches(Manager *m);

/* After loading: watch what was found too (new symlink targets), then make sure nothing moved in
 * between; if it did, a reload is triggered. */
void manager_watch_and_verify(Manager *m);

static inline bool config_slot_is_host(const Manager *m, const ConfigSlot *s)
{
        return s->root_dev == m->root_dev && s->root_ino == m->root_ino;
}
