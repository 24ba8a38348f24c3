/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "macro.h"

/* The names of processes the daemon has seen, per user, for the profile doctor ("your procname rule 'niri'
 * never matched, but '.niri-wrapped' ran"). One entry per (uid, procname, comm, cmdline, flatpak_id), with
 * when it was last seen.
 *
 * Names come from processes, so from their users: each is checked before it is kept (SEEN_NAME_MAX bytes,
 * comm SEEN_NAME_COMM_MAX; valid UTF-8 without control characters; an entry with a bad name is not kept).
 *
 * Bounds: a user holds at most per_user_max entries and per_user_bytes_max bytes of names; a name over
 * those evicts that user's least recently seen entries. All users together hold at most total_max
 * entries; over that, the least recently seen entry OF THE USER HOLDING THE MOST ENTRIES is evicted (not
 * the globally least recently seen one, which would let one user starting processes with random names
 * flush everybody else's). So a user loses an entry to another user's name only while nobody holds more
 * than they do: with n users, each keeps min(what they have, total_max / n) entries whatever the others
 * start.
 *
 * The file (seen_names_save()/seen_names_load()): "NVPSEEN\n", a 32-bit version (1) and a 32-bit record
 * count, then per record a 32-bit uid, a 64-bit last-seen time, and procname, comm, cmdline, flatpak_id
 * each as a 16-bit length (0xffff: none) and that many bytes; all little-endian. */

#ifndef UID_INVALID
#define UID_INVALID ((uid_t) -1)
#endif

#define SEEN_NAME_MAX 255u
#define SEEN_NAME_COMM_MAX 15u
#define SEEN_NAMES_WRITE_GRANULARITY_USEC (3600ULL * 1000000ULL)

typedef struct SeenName {
        uid_t uid;
        const char *procname; /* basename of /proc/PID/exe, " (deleted)" stripped; NULL if unknown */
        const char *comm; /* at most 15 bytes; NULL if unknown */
        const char *cmdline; /* argv[0] without directories ('/' and '\\' split); NULL if unknown */
        const char *flatpak_id; /* the Flatpak application id; NULL if none */
        uint64_t last_seen_usec; /* CLOCK_REALTIME */
} SeenName;

typedef struct SeenNames SeenNames;

typedef struct SeenNamesLimits {
        size_t per_user_max; /* entries of one user */
        size_t per_user_bytes_max; /* bytes of one user's names (each name's length plus one) */
        size_t total_max; /* entries of all users */
} SeenNamesLimits;

extern const SeenNamesLimits seen_names_limits_default;

typedef int (*SeenNamesFunc)(const SeenName *n, void *userdata); /* < 0 stops with that error */

int seen_names_new(const SeenNamesLimits *limits, SeenNames **ret);
SeenNames *seen_names_free(SeenNames *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(SeenNames *, seen_names_free);

/* New bounds (a reload): entries over them are evicted as a new name would evict them. */
void seen_names_set_limits(SeenNames *s, const SeenNamesLimits *limits);

/* Records that uid ran a process of these names at now_usec. Returns 1 if the entry is new, 0 if it was
 * known (its last-seen time is updated) or every name is NULL, -EINVAL if a name is not one to keep,
 * -ENOMEM. */
int seen_names_note(SeenNames *s, uid_t uid, const char *procname, const char *comm, const char *cmdline,
                const char *flatpak_id, uint64_t now_usec);

/* Drops entries last seen before cutoff_usec; returns how many. */
size_t seen_names_forget_older(SeenNames *s, uint64_t cutoff_usec);
void seen_names_clear(SeenNames *s);

size_t seen_names_size(const SeenNames *s);
/* Whether something changed since the last seen_names_save() or seen_names_mark_saved(): an entry came or
 * went, or one was seen SEEN_NAMES_WRITE_GRANULARITY_USEC after the time the file has (a later time alone,
 * which every note of a running program brings, is not worth a write). */
bool seen_names_dirty(const SeenNames *s);
void seen_names_mark_saved(SeenNames *s);

/* Every remembered name of uid (UID_INVALID: every user's), in no particular order. */
int seen_names_foreach(const SeenNames *s, uid_t uid, SeenNamesFunc fn, void *userdata);

/* The file's content. */
int seen_names_serialize(const SeenNames *s, void **ret, size_t *ret_size);
/* Adds the entries of a file's content, as seen_names_note() would (bounds apply), dropping those last
 * seen before now_usec - retention_usec (a time after now_usec counts as now_usec). Nothing is added from
 * a content that is not a valid file: -EBADMSG with the byte offset of the fault in *ret_offset (if
 * given), -EPROTONOSUPPORT for another version. */
int seen_names_parse(SeenNames *s, const void *data, size_t size, uint64_t now_usec, uint64_t retention_usec,
                size_t *ret_offset);

/* Writes the file name in dir_fd, replacing it atomically (file-replace.h), mode 0600. */
int seen_names_save(SeenNames *s, int dir_fd, const char *name);
/* Reads the file name in dir_fd (no symbolic link followed). A missing file adds nothing; a corrupt or
 * oversized one is logged (with the offset of its fault) and ignored. Returns 0 then too; < 0 only for
 * -ENOMEM and for errors opening or reading the file other than its absence (logged). */
int seen_names_load(SeenNames *s, int dir_fd, const char *name, uint64_t now_usec, uint64_t retention_usec);

/* The largest file seen_names_load() reads for the limits: every entry at its largest. */
size_t seen_names_file_max(const SeenNamesLimits *limits);
