/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-diagnostic.h"
#include "rc-edit-layout.h"
#include "rc-edit.h"
#include "rc-model.h"
#include "rc-reader.h"

/* Internals of rc_edit_apply() (rc-edit.c): the editor holds the text being edited and a fresh parse of
 * it (rc-edit-editor.c); a step (rc-edit-steps.c) finds its place in that parse and splices one element
 * in or out; the plan (rc-edit-plan.c) checks what the edit inserts and says which rules and profiles
 * the result must hold. */

typedef struct RcEditor {
        const char *path;
        RcDiagnostics *diags;
        char *text; /* the current text */
        size_t size;
        RcDocument doc; /* of text */
        RcEditLayout layout;
} RcEditor;

/* Where an edit of settings applies: rule index's inline profile, or the profile named name. */
typedef struct RcEditTarget {
        bool rule;
        size_t index;
        const char *name;
} RcEditTarget;

void editor_done(RcEditor *e);
/* Adds an error at n (NULL: no place) to the diagnostics and returns error. */
int editor_fail(RcEditor *e, int error, const RcNode *n, const char *fmt, ...) _printf_(4, 5);
/* Parses the current text again, after a step changed it. */
int editor_reload(RcEditor *e);
int editor_splice(RcEditor *e, RcEditSplices *s);
/* Replaces the value node n by text (taken). */
int editor_splice_replace(RcEditSplices *s, const RcNode *n, char *text);
const RcNode *editor_root(const RcEditor *e);
const RcNode *editor_member(const RcEditor *e, const RcNode *obj, const char *name);
const RcNode *editor_nth_child(const RcEditor *e, const RcNode *c, size_t k);
/* The elements of container c, one unit each. */
int editor_units_of(const RcEditor *e, const RcNode *c, RcEditUnit **ret, size_t *ret_n);
/* The decoded text of string node n, or NULL if it is not a string. */
char *editor_node_string(const RcEditor *e, const RcNode *n);
bool editor_node_string_equals(const RcEditor *e, const RcNode *n, const char *s);
const RcNode *editor_find_rule(const RcEditor *e, size_t index);
const RcNode *editor_find_profile(const RcEditor *e, const char *name);
/* The settings array the target edits; NULL for a rule that names its profile. */
const RcNode *editor_find_settings(const RcEditor *e, const RcEditTarget *t);
/* Reads text as the file to edit: it must load, and is never edited otherwise. */
int editor_open(RcEditor *e, const char *text, size_t size, RcFile **ret_orig);

/* --- steps (rc-edit-steps.c) --- */

/* How the file writes settings, from its first non-empty settings array: flat, or objects with "key"
 * or "k" names. */
typedef struct RcEditSettingsForm {
        bool flat;
        const char *key, *value;
} RcEditSettingsForm;

/* How the file writes settings (RcEditSettingsForm). */
RcEditSettingsForm editor_settings_form_of_file(const RcEditor *e);
/* "[s1, s2]" in form, for a new profile. */
int editor_render_settings(const RcEditor *e, const RcEditSettingsForm *form, char *const *keys, char *const *values,
                size_t n, char **ret);
/* Step: sets key (key_text: quoted) to value in the target's settings, replacing every value it has
 * there, or appending it. */
int editor_step_set(RcEditor *e, const RcEditTarget *t, const char *key_text, const char *key, const char *value);
/* Step: removes every setting of key from the target's settings; -ENOENT if there is none. */
int editor_step_unset(RcEditor *e, const RcEditTarget *t, const char *key);
/* Step: replaces the value of member name of obj. */
int editor_step_replace_member(RcEditor *e, const RcNode *obj, const char *name, const char *value);
/* Step: inserts elem at position k (SIZE_MAX: the end) of the root's array name, creating the array. */
int editor_step_insert(RcEditor *e, const char *name, size_t k, const char *elem);
/* Step: removes element node of array. */
int editor_step_remove(RcEditor *e, const RcNode *array, const RcNode *node);

/* --- the plan (rc-edit-plan.c) --- */

/* What an edit inserts, checked, and the model the result must give. */
typedef struct RcEditPlan {
        char *pattern; /* checked rc text */
        char *profile; /* quoted */
        char **keys, **values, **set_canon; /* quoted keys, checked values, "KEY"=VALUE */
        char **unset_keys; /* quoted */
        char *elem; /* ADD_RULE, ADD_PROFILE: the element inserted */
        char **rules, **profiles; /* the intended model, canonical */
} RcEditPlan;

void editor_plan_done(RcEditPlan *p);

/* Checks edit against orig (the file as it loads now) and fills p. */
int editor_plan_edit(RcEditor *e, const RcFile *orig, const RcEdit *edit, RcEditPlan *p);
