/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-diagnostic.h"
#include "rc-model.h"
#include "rc-reader.h"

/* Internals of rc-edit.c shared with rc-edit-check.c: the rc text of what an edit inserts, checked with
 * the reader before it is inserted, and the canonical form of the model it should give. */

/* s as a JSON string ("..." with '"', '\' and control characters escaped). -EINVAL if s is not valid
 * UTF-8 or is empty. */
int rc_edit_quote(const char *s, char **ret);

/* text without leading and trailing whitespace, copied. */
char *rc_edit_strip(const char *text);

/* Checks that text is exactly one rc value (nothing before or after it, no injected members or comments
 * that end outside it): what kind says ("pattern", "value", "rule"). Returns the stripped text, or
 * -EINVAL with a diagnostic. */
int rc_edit_check_value(const char *path, const char *text, const char *kind, RcDiagnostics *diags, char **ret);

/* The canonical forms compared after an edit: a setting as "KEY"=VALUE, a rule as its pattern
 * (rc_pattern_format()) and profile, a profile as its name and settings. */
int rc_edit_canon_setting(const RcSetting *s, char **ret);
int rc_edit_canon_settings(const RcProfile *p, char ***ret);
int rc_edit_canon_profile(const char *name, char *const *settings, char **ret);
int rc_edit_canon_rule(const RcRule *rule, char **ret);
/* The canonical form of what a rule applies: a reference or its inline profile. */
int rc_edit_canon_rule_profile(const RcRule *rule, char **ret);
/* A rule's canonical form from its pattern's and its profile's. */
int rc_edit_canon_rule_of(const char *pattern, const char *profile, char **ret);
/* A profile reference's canonical form. */
int rc_edit_canon_reference(const char *name, char **ret);
int rc_edit_canon_file(const RcFile *f, char ***ret_rules, char ***ret_profiles);

/* Parses wrapped (a whole rc text built around something the caller gave) as a file that must load with
 * exactly n_rules rules and n_profiles profiles; -EINVAL with the reader's diagnostics otherwise. */
int rc_edit_parse_wrapped(const char *path, const char *what, const char *wrapped, size_t n_rules, size_t n_profiles,
                RcDiagnostics *diags, RcFile **ret);
