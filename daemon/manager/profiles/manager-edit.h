/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager-profiles.h"
#include "rc-edit.h"
#include "rc-rule-id.h"

/* Edits of the system's rc files (/etc/nvidia), and previews of any edit: what the running processes
 * would gain, lose or change.
 *
 * The daemon writes only the system's editable files, /etc/nvidia/nvidia-application-profiles-rc and
 * the files of /etc/nvidia/nvidia-application-profiles-rc.d; never the driver's /usr/share/nvidia files
 * (an override goes into rc.d, which precedes them) and never a user's (the client writes those itself,
 * as the user). The caller is authorised by the bus layer (polkit) before anything is written; a dry run
 * reads the files with the caller's own access, so it shows nobody anything they could not read. */

#define MANAGER_EDIT_SETTINGS_MAX 256u /* settings (and keys to unset) one edit may name */
#define MANAGER_EDIT_TEXT_MAX 4096u /* bytes of a pattern, key, value or name */
#define MANAGER_EDIT_CHANGES_MAX 4096u /* changes one preview reports */

typedef struct ManagerEditChange {
        pid_t pid;
        uid_t uid;
        char *comm;
        char *key;
        char *before; /* rc text of the value in effect now; NULL: unset */
        char *after; /* ...with the edit; NULL: unset */
} ManagerEditChange;

typedef struct ManagerEditChanges {
        ManagerEditChange *items;
        size_t n_items, allocated;
} ManagerEditChanges;

void manager_edit_changes_done(ManagerEditChanges *c);

typedef struct ManagerEditRequest {
        RcEdit edit; /* edit.index is found from rule */
        const char *file; /* the file edited (rules: NULL, the rule's own file); MoveRule: where it goes */
        const char *rule; /* UPDATE_RULE, REMOVE_RULE, moves: "FILE:LINE" or an id */
        bool move; /* move rule to file (index: edit.index, SIZE_MAX: the end) */
        bool dry_run;
} ManagerEditRequest;

typedef struct ManagerEditResult {
        char *rule_id; /* the rule added, changed or moved, as it is named now; NULL for others */
        char *diff; /* of every file changed */
        ManagerEditChanges changes;
} ManagerEditResult;

void manager_edit_result_done(ManagerEditResult *r);

/* Whether req is within the bounds of any edit (MANAGER_EDIT_SETTINGS_MAX, MANAGER_EDIT_TEXT_MAX, all its
 * text within RC_FILE_SIZE_MAX) and well-formed, before anything is read or anyone asked: -E2BIG or
 * -EINVAL with *ret_message. manager_edit_system() checks this first; the bus checks it before polkit is
 * asked, so that a request waiting for authorisation holds little. */
int manager_edit_check_request(const ManagerEditRequest *req, char **ret_message);

/* Applies (or, dry_run, only computes) an edit of a system file for the caller with creds. Nothing is
 * written unless the whole edit applies. Errors: -EPERM for files the daemon never writes (the driver's,
 * a user's), -EINVAL for a bad request, and those of rc_edit_apply() and file_replace() (-ESTALE: the
 * file changed meanwhile). *ret_message, if set, says why in words (file:line:column where known). After
 * a write the configuration is reloaded and the edit is logged with the caller's uid. */
int manager_edit_system(Manager *m, const UserCreds *creds, const ManagerEditRequest *req, ManagerEditResult *ret,
                char **ret_message);

/* Reverts (or, dry_run, only previews the revert of) an edit of the system file path: puts back previous
 * (NULL: removes the file the edit created) if the file still holds exactly written
 * (rc_edit_transaction_revert()); -ESTALE otherwise. Otherwise as manager_edit_system(), whose caller
 * authorises it the same way; ret->rule_id is NULL. */
int manager_edit_revert(Manager *m, const UserCreds *creds, const char *path, const char *written, size_t written_size,
                const char *previous, size_t previous_size, bool dry_run, ManagerEditResult *ret, char **ret_message);

/* The text of the system file path (one the edits write: system_entry_kind_of()) as the caller (creds)
 * may read it, read as a dry run reads it (rc_edit_transaction_open(): below the daemon's root, a regular
 * file, at most RC_FILE_SIZE_MAX bytes): how a client learns what an edit starts from and what it wrote,
 * for Undo (RevertEdit), whatever root the daemon runs under. *ret_text NULL: the file does not exist.
 * -EPERM for a path that is no such file, -EACCES (and the file system's other errors) for one the caller
 * may not read, -EFBIG beyond RC_FILE_SIZE_MAX, -EBADMSG for a text that is not UTF-8 without NUL (no
 * bus string could carry it). */
int manager_edit_read_system_file(Manager *m, const UserCreds *creds, const char *path, char **ret_text,
                size_t *ret_size, char **ret_message);

/* What would change for the tracked processes the caller (creds) may see whose configuration reads path
 * (a file of the system's search path, or of home's) if it held text. Reads /proc only. */
int manager_edit_preview(Manager *m, const UserCreds *creds, const char *home, const char *path, const char *text,
                size_t size, ManagerEditChanges *ret, char **ret_message);
