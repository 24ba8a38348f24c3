/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-edit.h"
#include "rc-reader.h"
#include "rc-rule-id.h"

/* Moving a rule, within its file or into another: the one implementation the daemon (system files) and
 * nvprofilectl (a user's own) both use. The rule's own text moves verbatim (rc_edit_rule_text()). */

typedef struct RcMoveResult {
        char *source_text; /* the source without the rule (and, within one file, with it at its new place) */
        size_t source_size;
        char *destination_text; /* another file with the rule added; NULL within one file */
        size_t destination_size;
        size_t index; /* the rule's index in the file it is now in */
} RcMoveResult;

void rc_move_result_done(RcMoveResult *r);

/* Moves rule index of source (text, size) to position (SIZE_MAX: the end) of destination_path, or of
 * source itself when destination_path is NULL or the same path (destination_text: that file's current
 * text, NULL if it does not exist). Errors as rc_edit_apply(), with diags. */
int rc_edit_move_rule(const char *source_path, const char *source_text, size_t source_size, size_t index,
                const char *destination_path, const char *destination_text, size_t destination_size, size_t position,
                RcDiagnostics *diags, RcMoveResult *ret);

/* The id of rule index (the last if beyond) of the file that text is: for saying which rule an edit left
 * where. -ENOENT when the file has no rule. */
int rc_text_rule_id(const char *path, const char *text, size_t size, const RcSyntaxOptions *syntax, size_t index,
                char **ret);
