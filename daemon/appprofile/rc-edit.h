/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-diagnostic.h"
#include "rc-model.h"

/* Edits of one rc file's text that touch only the bytes of what they change.
 *
 * nvidia-settings rewrites whole files and so loses comments, hex spelling, inline profiles, unknown
 * members and other rules (../shared/docs/appprofile-settings.md §4). An edit here replaces, inserts or
 * deletes one span of the original text: every other byte stays as it was. The result is parsed again
 * with the same reader and compared with the intended model before it is returned; if it differs, or the
 * original does not parse, nothing is returned and diags says why. Callers edit files through
 * rc-edit-transaction.h, which writes the result; nothing here touches a file. */

typedef enum RcEditOperation {
        RC_EDIT_ADD_RULE, /* insert a rule at index (SIZE_MAX: at the end, the lowest precedence in the file) */
        RC_EDIT_UPDATE_RULE, /* rule index: replace its pattern, refer to another profile, set or unset settings
                              * of its inline profile */
        RC_EDIT_REMOVE_RULE, /* remove rule index */
        RC_EDIT_ADD_PROFILE, /* append a profile named profile with settings to the root "profiles" array */
        RC_EDIT_UPDATE_PROFILE, /* the profile named profile in this file: set or unset settings */
        RC_EDIT_REMOVE_PROFILE, /* remove the profile named profile from this file */
        _RC_EDIT_OPERATION_MAX,
} RcEditOperation;

typedef struct RcEditSetting {
        const char *key;
        const char *value; /* the JSON (rc) text of the value as it will be written: true, 0, 0x1f, "DP-3" */
} RcEditSetting;

typedef struct RcEdit {
        RcEditOperation operation;
        size_t index; /* rules: the rule's 0-based index within the file (RcRule.index) */
        const char *pattern; /* ADD_RULE (needed unless rule_text), UPDATE_RULE (NULL: keep): rc text of
                              * a pattern, e.g. {"feature": "procname", "matches": "niri"} */
        const char *profile; /* ADD/UPDATE_RULE: name of a profile the rule refers to (then no settings;
                              * UPDATE_RULE: replaces an inline profile by the reference); profile
                              * operations: the profile's name */
        const RcEditSetting *settings; /* set: replaced where the key exists, else added at the end */
        size_t n_settings;
        char *const *unset; /* keys to remove; removing a key that is not there is -ENOENT */
        size_t n_unset;
        const char *rule_text; /* ADD_RULE: insert this whole rule's rc text verbatim (a move) */
} RcEdit;

/* Applies edit to text, the file's current bytes (text NULL and size 0: the file does not exist yet and
 * is created with a short header comment), and returns the new text in *ret_text (NUL-terminated, size
 * in *ret_size). path is only for diagnostics. Errors, each with a diagnostic in diags (file, line and
 * column where there is one):
 *   -EBADMSG  the original does not parse (it is never edited), or the result would not give the
 *             intended model;
 *   -EINVAL   pattern, profile name, a key or a value is not valid rc text;
 *   -ENOENT   no such rule, profile or key;
 *   -EEXIST   ADD_PROFILE: this file already defines the name;
 *   -E2BIG    the result would exceed RC_FILE_SIZE_MAX;
 *   -ENOMEM. */
int rc_edit_apply(const char *path, const char *text, size_t size, const RcEdit *edit, RcDiagnostics *diags,
                char **ret_text, size_t *ret_size);

/* The exact rc text of rule index in text (for moving it into another file). */
int rc_edit_rule_text(const char *path, const char *text, size_t size, size_t index, RcDiagnostics *diags, char **ret);

/* A unified diff (diff -u, 3 lines of context, "--- a/PATH" "+++ b/PATH") of two texts; "" if equal. */
int rc_edit_diff(const char *path, const char *old_text, size_t old_size, const char *new_text, size_t new_size,
                char **ret);

const char *rc_edit_operation_to_string(RcEditOperation o) _const_;
