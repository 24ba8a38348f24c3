/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager-profiles.h"

/* The names of processes the daemon saw (m->profiles->seen_names, procwatch/seen-names.h), for the profile
 * doctor: noted as each tracked process is resolved, kept for [Doctor] RememberNamesSec= in the file
 * REMEMBERED_NAMES_FILE of the state directory (manager_set_state_directory(); none: in memory only),
 * loaded at start, saved REMEMBERED_NAMES_SAVE_DELAY_USEC after the first change and at stop. */

#define REMEMBERED_NAMES_FILE "seen-names"
#define REMEMBERED_NAMES_SAVE_DELAY_USEC (60 * 1000000ULL)
/* How often names older than the retention are dropped. */
#define REMEMBERED_NAMES_FORGET_INTERVAL_USEC (3600 * 1000000ULL)

/* [Doctor]'s bounds. */
void remembered_names_limits(const ManagerConfig *c, SeenNamesLimits *ret);

/* Loads the file (or, with RememberNamesSec=0, removes it) and starts the periodic forgetting. */
int remembered_names_start(Manager *m);
/* Saves what changed since the last save, and stops the timers. */
void remembered_names_stop(Manager *m);
/* [Doctor] changed on reload: the new bounds and retention, now. */
void remembered_names_config_changed(Manager *m);

/* The names p presents, as the rules see them (rc_match_facts_init()), from its facts f. */
void remembered_names_note(Manager *m, const Process *p, const ProcFacts *f);

/* Writes the file now if something changed: 0 also when there is no state directory. */
int remembered_names_save(Manager *m);
