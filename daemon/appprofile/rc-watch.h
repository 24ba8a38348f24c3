/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <systemd/sd-event.h>

#include "macro.h"
#include "user-creds.h"

/* Watches the rc search path with inotify and says, once per burst, that something changed.
 *
 * Editors save by writing a new file and renaming it over the old one, package managers replace whole
 * directories, and users create ~/.nv/...rc.d after the daemon started. So we watch DIRECTORIES: the
 * parent of every entry (the entry itself may be created, deleted, renamed or re-pointed), every entry
 * that is a directory, the directory of every symlink target, and for an entry that does not exist yet
 * its nearest existing ancestor. Events about unrelated names in those directories are ignored.
 * After each reload the caller hands the new set of paths, watches are rebuilt BEFORE files are read,
 * and any change that races the reload triggers another one: the loaded state converges to the disk. */

typedef struct RcWatch RcWatch;
typedef void (*RcWatchChangedFunc)(RcWatch *w, void *userdata);

/* root_fd: the directory that is "/" for the paths (openat2 RESOLVE_IN_ROOT). coalesce_usec: quiet time
 * after the last event before reporting; max_delay_usec: a never-ending burst is reported after this. */
int rc_watch_new(sd_event *e, int root_fd, uint64_t coalesce_usec, uint64_t max_delay_usec, RcWatchChangedFunc cb,
                void *userdata, RcWatch **ret);
RcWatch *rc_watch_free(RcWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(RcWatch *, rc_watch_free);

/* Watches are kept in groups, so that what one user's paths do never touches another's or the system's:
 * group RC_WATCH_GROUP_SYSTEM holds the system search path (its paths chosen by no user), every other
 * group one user's (by convention the uid + 1). */
#define RC_WATCH_GROUP_SYSTEM UINT64_C(0)

/* Replaces the watched set of one group. paths are in-root paths of search-path entries and of the files
 * read. They are resolved and watched with creds's access (NULL: our own; inotify needs read permission,
 * so a user can never have us watch what they could not), and at most max_dirs directories are watched
 * for a user's group: past that -E2BIG, with the group watched partially and every other group as it
 * was. */
int rc_watch_set_paths(RcWatch *w, uint64_t group, const UserCreds *creds, char *const *paths, size_t max_dirs);

/* Stops watching one group's paths. */
void rc_watch_drop_group(RcWatch *w, uint64_t group);

/* Reports a change as if inotify had seen one in group's paths (coalesced like the rest): for the
 * caller's own after-the-fact checks. */
void rc_watch_trigger(RcWatch *w, uint64_t group);

/* During the callback: whose change the report is, for what the caller logs about it. RC_WATCH_GROUP_SYSTEM
 * when a system path (or a watch as a whole: an overflow) changed in the burst, or it was triggered for
 * the system; else the first user group that changed. */
uint64_t rc_watch_cause(const RcWatch *w) _pure_;
/* During the callback: whether only the cause's paths changed in the burst (no other group's, whatever
 * the cause is), so that what only they affect is all there is to do again. */
bool rc_watch_cause_alone(const RcWatch *w) _pure_;

/* Number of inotify sources in use, for status and tests. */
size_t rc_watch_count(const RcWatch *w);
