/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-model.h"

/* How a rule is named when it is edited: by FILE:LINE (where "rules" and "check" say it starts), or by a
 * stable id that "rules" prints. The id is a hash of the file's path, the rule's pattern as
 * rc_pattern_format() writes it, its profile's label and its occurrence among the rules of the file
 * with the same three: so it stays the same when other rules are added, removed or moved, and when the
 * file is reformatted, and changes when the rule itself does. Everything it hashes is what ListRules
 * says, so a client computes the same id from ListRules as the daemon from the file. */

#define RC_RULE_ID_LENGTH 12u /* hex digits: 48 bits, ample for the rules of one machine */

/* What the rule's profile is called in listings: the name it refers to, the inline profile's name, or
 * "(inline)". */
const char *rc_rule_profile_label(const RcRule *rule) _pure_;

/* The id of a rule with these (listed) fields; occurrence counts from 0. */
void rc_rule_id(const char *path, const char *pattern, const char *profile, unsigned occurrence,
                char ret[static RC_RULE_ID_LENGTH + 1]);

/* Whether s looks like a rule id (RC_RULE_ID_LENGTH lower-case hex digits). */
bool rc_rule_id_is_valid(const char *s) _pure_;

/* The ids of every rule of a loaded file, in file order (ret[i] for f->rules[i]). */
int rc_file_rule_ids(const RcFile *f, char (**ret)[RC_RULE_ID_LENGTH + 1]);

/* The index of the rule of f addressed by address: an id, or "LINE" (the line where the rule starts;
 * -ENOTUNIQ when several start there). -ENOENT when none. */
int rc_file_find_rule(const RcFile *f, const char *address, size_t *ret_index);

/* Splits "FILE:LINE" into the file and the line's text; a plain id gives *ret_file NULL. -EINVAL when it
 * is neither. */
int rc_rule_address_split(const char *address, char **ret_file, char **ret_rest);
