/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-diagnostic.h"
#include "rc-edit-writer.h"
#include "rc-edit.h"
#include "rc-reader.h"

/* One edit of rc files, from reading them to writing them: the only way the daemon (the system's
 * files), nvprofilectl and the desktop app (a user's own files) change an rc file.
 *
 * open: each file is read through its directory, opened with the writer's access (rc-edit-writer.h),
 * as a regular file, never following a final link; apply or move: the edit is applied to the text as
 * read (rc-edit.h), which parses the result again and compares it with the intended model; diff and
 * preview: what the edit changes, without writing anything; commit: compare and replace, each file
 * replaced atomically only if it still holds exactly what was read (file-replace.h: -ESTALE otherwise,
 * nothing written, the last good state stays). A move into another file writes the destination first:
 * a failure in between leaves the rule twice, never nowhere. */

/* The file an edit goes into in an rc.d directory when none is named. */
#define RC_EDIT_DEFAULT_FILE_NAME "50-nvprofilectl"

/* One file of a transaction. */
typedef struct RcEditFile {
        char *path; /* as the driver names it */
        char *dir; /* its directory, and its name there */
        const char *name;
        char *text; /* as read; NULL: it does not exist */
        size_t size;
        char *new_text; /* as the edit leaves it; NULL: not edited (or removed) */
        size_t new_size;
        bool remove; /* the edit removes the file: a revert of its creation */
} RcEditFile;

/* Where rc_edit_transaction_prepare() stopped. */
typedef enum RcEditStep {
        RC_EDIT_STEP_READ, /* reading failed_path */
        RC_EDIT_STEP_FIND_RULE, /* finding the rule in the source */
        RC_EDIT_STEP_EDIT, /* applying or moving: diagnostics say why */
        _RC_EDIT_STEP_MAX,
} RcEditStep;

typedef struct RcEditTransaction {
        RcEditWriter writer;
        RcSyntaxOptions syntax;
        RcEditFile source; /* the file edited, or a moved rule's */
        RcEditFile destination; /* a move into another file; path NULL otherwise */
        char *rule_id; /* the rule added, changed or moved, as it is named after the edit; NULL if none */
        RcDiagnostics diagnostics; /* why apply, move or find_rule failed */
        RcEditStep failed_step; /* after rc_edit_transaction_prepare() failed */
        const char *failed_path;
} RcEditTransaction;

/* One edit as its callers ask for it. */
typedef struct RcEditRequest {
        const char *path; /* the file edited, or the one holding the rule */
        const char *rule; /* a rule of path, "LINE" or an id (rc_file_find_rule()), whose index the edit
                           * (UPDATE_RULE, REMOVE_RULE) or the move takes; NULL: edit.index as given */
        bool move; /* move the rule (index: found from rule) to position of destination */
        const char *destination; /* NULL or path itself: within path */
        size_t position; /* SIZE_MAX: the end */
        RcEdit edit; /* unless move */
} RcEditRequest;

/* A transaction that reads and writes as writer (its home and creds are not copied: they must outlive
 * the transaction); syntax NULL: the defaults, as the driver reads. */
void rc_edit_transaction_init(RcEditTransaction *t, const RcEditWriter *writer, const RcSyntaxOptions *syntax);
void rc_edit_transaction_done(RcEditTransaction *t);

/* Reads path (absolute) as the file to edit; a file (or directory) that does not exist reads as NULL
 * text. -ELOOP for a link, -EBADFD/-EISDIR for what is not a regular file, -EFBIG beyond
 * RC_FILE_SIZE_MAX, -EINVAL for a path that is not a file's, and what the file system says. */
int rc_edit_transaction_open(RcEditTransaction *t, const char *path);

/* Reads path as the file a rule moves into; the source's own path is no second file (nothing is read,
 * and the move stays within the source). */
int rc_edit_transaction_open_destination(RcEditTransaction *t, const char *path);

/* The index in the source of the rule address names ("LINE" or an id, rc_file_find_rule()): -ENOENT if
 * the source does not exist or has no such rule, -ENOTUNIQ if several rules start on that line,
 * -EBADMSG (diagnostics: the file's) if the source does not load. */
int rc_edit_transaction_find_rule(RcEditTransaction *t, const char *address, size_t *ret_index);

/* Applies edit to the source as read; rule_id names an added or updated rule. The errors of
 * rc_edit_apply(), with diagnostics. */
int rc_edit_transaction_apply(RcEditTransaction *t, const RcEdit *edit);

/* Moves the source's rule index to position (SIZE_MAX: the end) of the destination, or of the source
 * when there is no destination; rule_id names it where it is now. The errors of rc_edit_move_rule(). */
int rc_edit_transaction_move(RcEditTransaction *t, size_t index, size_t position);

/* Reads the request's files, finds its rule and applies the edit or moves the rule: open, find_rule,
 * open_destination, then apply or move. On failure, failed_step and failed_path say where, with the
 * error of that step (-ENOENT at RC_EDIT_STEP_FIND_RULE with no source text: the file does not
 * exist). */
int rc_edit_transaction_prepare(RcEditTransaction *t, const RcEditRequest *req);

/* Prepares the revert of an edit written to path (absolute): the file is put back to previous
 * (previous_size bytes; NULL: it did not exist, and is removed), but only if it still holds exactly
 * written (written_size bytes), what the edit left there. -ESTALE when it does not (it changed since, or
 * does not exist), -EBADMSG (diagnostics: why) when previous is not an rc file that loads, since no edit
 * is made of a file that does not, and the errors of rc_edit_transaction_open(). Diff, preview and commit
 * then work as for any edit; commit checks again that the file is still what was read. */
int rc_edit_transaction_revert(RcEditTransaction *t, const char *path, const char *written, size_t written_size,
                const char *previous, size_t previous_size);

/* The unified diff of every file edited (the destination's first; "" if nothing changes). */
int rc_edit_transaction_diff(const RcEditTransaction *t, char **ret);

/* Shows fn the files as the edit leaves them (new_text), the source first, then the destination of a
 * move, and returns what fn returns. Nothing is written. */
typedef int (*RcEditPreviewFunc)(const RcEditFile *const *files, size_t n, void *userdata);
int rc_edit_transaction_preview(const RcEditTransaction *t, RcEditPreviewFunc fn, void *userdata);

/* Writes every file edited, the destination first, each only if it is still what was read: -ESTALE if
 * one changed (or was created or removed) since; then it and every file after it are untouched.
 * *ret_path (may be NULL) names the file a failure is about. The other errors of file_replace() and of
 * opening the directory (rc-edit-writer.h). */
int rc_edit_transaction_commit(const RcEditTransaction *t, const char **ret_path);
