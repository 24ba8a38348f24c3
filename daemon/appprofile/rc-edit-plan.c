/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The plan of an edit: everything it inserts checked with the reader first (rc-edit-check.c), and the
 * rules and profiles the result must give, in a canonical form. */

#include <stdio.h>

#include "rc-edit-editor.h"
#include "rc-edit-text.h"
#include "rc-format.h"
#include "string-util.h"
#include "strv.h"

void editor_plan_done(RcEditPlan *p)
{
        free(p->pattern);
        free(p->profile);
        strv_free(p->keys);
        strv_free(p->values);
        strv_free(p->set_canon);
        strv_free(p->unset_keys);
        free(p->elem);
        strv_free(p->rules);
        strv_free(p->profiles);
}

static int quote_or_fail(RcEditor *e, const char *what, const char *s, char **ret)
{
        int r = rc_edit_quote(s, ret);
        if (r == -EINVAL)
                return editor_fail(e, -EINVAL, NULL, "%s must be non-empty valid UTF-8", what);
        return r;
}

static int plan_settings(RcEditor *e, const RcEdit *edit, RcEditPlan *p)
{
        int r;

        p->keys = calloc(1, sizeof(char *));
        p->values = calloc(1, sizeof(char *));
        p->set_canon = calloc(1, sizeof(char *));
        p->unset_keys = calloc(1, sizeof(char *));
        if (!p->keys || !p->values || !p->set_canon || !p->unset_keys)
                return -ENOMEM;

        for (size_t i = 0; i < edit->n_settings; i++) {
                _cleanup_(rc_file_unrefp) RcFile *f = NULL;
                _cleanup_free_ char *key = NULL, *value = NULL, *wrapped = NULL, *canon = NULL;

                assert(edit->settings[i].key && edit->settings[i].value);
                r = quote_or_fail(e, "a setting key", edit->settings[i].key, &key);
                if (r < 0)
                        return r;
                r = rc_edit_check_value(e->path, edit->settings[i].value, "value", e->diags, &value);
                if (r < 0)
                        return r;
                if (asprintf(&wrapped, "{\"profiles\": [{\"name\": \"x\", \"settings\": [%s, %s\n]}]}", key, value) < 0)
                        return -ENOMEM;
                r = rc_edit_parse_wrapped(e->path, "setting", wrapped, 0, 1, e->diags, &f);
                if (r < 0)
                        return r;
                if (f->profiles[0].n_settings != 1)
                        return editor_fail(e, -EINVAL, NULL, "value %s is not one setting value", value);
                r = rc_edit_canon_setting(&f->profiles[0].settings[0], &canon);
                if (r < 0)
                        return r;
                if (strv_consume(&p->keys, TAKE_PTR(key)) < 0 || strv_consume(&p->values, TAKE_PTR(value)) < 0 ||
                                strv_consume(&p->set_canon, TAKE_PTR(canon)) < 0)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < edit->n_unset; i++) {
                char *key;

                r = quote_or_fail(e, "a setting key", edit->unset[i], &key);
                if (r < 0)
                        return r;
                r = strv_consume(&p->unset_keys, key);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Whether canonical setting s has the quoted key. */
static bool canon_has_key(const char *s, const char *key)
{
        size_t len = strlen(key);
        return strneq(s, key, len) && s[len] == '=';
}

/* Applies the plan's sets and unsets to a canonical settings list, as the steps will to the text. */
static int plan_apply_settings(RcEditor *e, const RcEditPlan *p, const RcNode *where, char ***list)
{
        int r;

        for (size_t i = 0; p->keys[i]; i++) {
                bool found = false;

                for (char **s = *list; *s; s++)
                        if (canon_has_key(*s, p->keys[i])) {
                                char *copy = strdup(p->set_canon[i]);
                                if (!copy)
                                        return -ENOMEM;
                                free(*s);
                                *s = copy;
                                found = true;
                        }
                if (!found) {
                        r = strv_extend(list, p->set_canon[i]);
                        if (r < 0)
                                return r;
                }
        }
        for (size_t i = 0; p->unset_keys[i]; i++) {
                size_t o = 0, n = strv_length(*list);

                for (size_t j = 0; j < n; j++) {
                        if (canon_has_key((*list)[j], p->unset_keys[i]))
                                free((*list)[j]);
                        else
                                (*list)[o++] = (*list)[j];
                }
                (*list)[o] = NULL;
                if (o == n)
                        return editor_fail(e, -ENOENT, where, "no setting %s to remove", p->unset_keys[i]);
        }
        return 0;
}

static int strv_insert(char ***l, size_t k, char *s)
{
        size_t n = strv_length(*l);
        int r;

        r = strv_consume(l, s);
        if (r < 0)
                return r;
        k = MIN(k, n);
        memmove(*l + k + 1, *l + k, (n - k) * sizeof(char *));
        (*l)[k] = s;
        return 0;
}

static void strv_remove_at(char **l, size_t k)
{
        size_t n = strv_length(l);

        assert(k < n);
        free(l[k]);
        memmove(l + k, l + k + 1, (n - k) * sizeof(char *));
}

static int plan_pattern(RcEditor *e, const char *pattern, RcEditPlan *p, char **ret_canon)
{
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        _cleanup_free_ char *wrapped = NULL;
        int r;

        r = rc_edit_check_value(e->path, pattern, "pattern", e->diags, &p->pattern);
        if (r < 0)
                return r;
        if (asprintf(&wrapped, "{\"rules\": [{\"pattern\": %s\n, \"profile\": \"x\"}]}", p->pattern) < 0)
                return -ENOMEM;
        r = rc_edit_parse_wrapped(e->path, "pattern", wrapped, 1, 0, e->diags, &f);
        if (r < 0)
                return r;
        return rc_pattern_format(&f->rules[0].pattern, ret_canon);
}

/* The canonical form of elem, the text of one rule (rules) or profile. */
static int plan_element(RcEditor *e, const char *elem, bool rules, char **ret)
{
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        _cleanup_strv_free_ char **settings = NULL;
        _cleanup_free_ char *wrapped = NULL;
        int r;

        if (asprintf(&wrapped, "{\"%s\": [%s\n]}", rules ? "rules" : "profiles", elem) < 0)
                return -ENOMEM;
        r = rc_edit_parse_wrapped(e->path, rules ? "rule" : "profile", wrapped, rules, !rules, e->diags, &f);
        if (r < 0)
                return r;
        if (rules)
                return rc_edit_canon_rule(&f->rules[0], ret);
        r = rc_edit_canon_settings(&f->profiles[0], &settings);
        if (r < 0)
                return r;
        return rc_edit_canon_profile(f->profiles[0].name, settings, ret);
}

static int plan_add_rule(RcEditor *e, const RcFile *orig, const RcEdit *edit, RcEditPlan *p)
{
        _cleanup_free_ char *canon = NULL;
        const char *c = e->layout.colon;
        size_t k;
        int r;

        if (edit->index != SIZE_MAX && edit->index > orig->n_rules)
                return editor_fail(e, -ENOENT, NULL, "cannot insert at rule %zu: the file has %zu rules", edit->index,
                                orig->n_rules);
        k = MIN(edit->index, orig->n_rules);

        if (edit->rule_text) {
                if (edit->pattern || edit->profile || edit->n_settings + edit->n_unset > 0)
                        return editor_fail(e, -EINVAL, NULL, "a rule given as text takes nothing else");
                r = rc_edit_check_value(e->path, edit->rule_text, "rule", e->diags, &p->elem);
                if (r < 0)
                        return r;
        } else {
                _cleanup_free_ char *pattern_canon = NULL;

                if (!edit->pattern || !edit->profile == (edit->n_settings == 0) || edit->n_unset > 0)
                        return editor_fail(e, -EINVAL, NULL,
                                        "a new rule needs a pattern and either a profile name or settings");
                r = plan_pattern(e, edit->pattern, p, &pattern_canon);
                if (r < 0)
                        return r;
                if (edit->profile) {
                        r = quote_or_fail(e, "a profile name", edit->profile, &p->profile);
                        if (r < 0)
                                return r;
                        r = asprintf(&p->elem, "{ \"pattern\"%s%s, \"profile\"%s%s }", c, p->pattern, c, p->profile);
                } else {
                        _cleanup_free_ char *settings = NULL;
                        RcEditSettingsForm form = editor_settings_form_of_file(e);

                        r = editor_render_settings(e, &form, p->keys, p->values, edit->n_settings, &settings);
                        if (r < 0)
                                return r;
                        r = asprintf(&p->elem, "{ \"pattern\"%s%s, \"profile\"%s{ \"settings\"%s%s } }", c, p->pattern,
                                        c, c, settings);
                }
                if (r < 0)
                        return -ENOMEM;
        }
        r = plan_element(e, p->elem, true, &canon);
        if (r < 0)
                return r;
        return strv_insert(&p->rules, k, TAKE_PTR(canon));
}

static int plan_update_rule(RcEditor *e, const RcFile *orig, const RcEdit *edit, RcEditPlan *p)
{
        _cleanup_free_ char *pattern = NULL, *profile = NULL;
        const RcRule *rule;
        int r;

        if (edit->index >= orig->n_rules)
                return editor_fail(e, -ENOENT, NULL, "no rule %zu: the file has %zu rules", edit->index, orig->n_rules);
        rule = &orig->rules[edit->index];
        if (edit->rule_text || (!edit->pattern && !edit->profile && edit->n_settings + edit->n_unset == 0) ||
                        (edit->profile && edit->n_settings + edit->n_unset > 0))
                return editor_fail(e, -EINVAL, NULL,
                                "a rule update changes its pattern, and either names a profile or sets settings");

        if (edit->pattern)
                r = plan_pattern(e, edit->pattern, p, &pattern);
        else
                r = rc_pattern_format(&rule->pattern, &pattern);
        if (r < 0)
                return r;

        if (edit->profile) {
                r = quote_or_fail(e, "a profile name", edit->profile, &p->profile);
                if (r >= 0)
                        r = rc_edit_canon_reference(edit->profile, &profile);
        } else if (edit->n_settings + edit->n_unset > 0) {
                _cleanup_strv_free_ char **settings = NULL;

                if (!rule->inline_profile)
                        return editor_fail(e, -EINVAL, NULL,
                                        "rule %zu refers to profile \"%s\" by name: edit that profile instead",
                                        edit->index, rule->profile_name);
                r = rc_edit_canon_settings(rule->inline_profile, &settings);
                if (r >= 0)
                        r = plan_apply_settings(e, p, NULL, &settings);
                if (r >= 0)
                        r = rc_edit_canon_profile(rule->inline_profile->name, settings, &profile);
        } else
                r = rc_edit_canon_rule_profile(rule, &profile);
        if (r < 0)
                return r;
        free(p->rules[edit->index]);
        return rc_edit_canon_rule_of(pattern, profile, &p->rules[edit->index]);
}

static ssize_t profile_index(const RcFile *f, const char *name)
{
        for (size_t i = 0; i < f->n_profiles; i++)
                if (streq(f->profiles[i].name, name))
                        return (ssize_t) i;
        return -ENOENT;
}

static int plan_profile(RcEditor *e, const RcFile *orig, const RcEdit *edit, RcEditPlan *p)
{
        _cleanup_strv_free_ char **settings = NULL;
        _cleanup_free_ char *canon = NULL;
        ssize_t i;
        int r;

        if (!edit->profile)
                return editor_fail(e, -EINVAL, NULL, "a profile operation needs the profile's name");
        r = quote_or_fail(e, "a profile name", edit->profile, &p->profile);
        if (r < 0)
                return r;
        i = profile_index(orig, edit->profile);

        if (edit->pattern || edit->rule_text)
                return editor_fail(e, -EINVAL, NULL, "a profile has no pattern");
        if (edit->operation == RC_EDIT_ADD_PROFILE) {
                _cleanup_free_ char *list = NULL;
                RcEditSettingsForm form = editor_settings_form_of_file(e);
                const char *c = e->layout.colon;

                if (edit->n_unset > 0)
                        return editor_fail(e, -EINVAL, NULL, "a new profile has no settings to remove");

                if (i >= 0)
                        return editor_fail(e, -EEXIST, &e->doc.nodes[0], "this file already defines profile \"%s\"",
                                        edit->profile);
                r = editor_render_settings(e, &form, p->keys, p->values, edit->n_settings, &list);
                if (r < 0)
                        return r;
                if (asprintf(&p->elem, "{ \"name\"%s%s, \"settings\"%s%s }", c, p->profile, c, list) < 0)
                        return -ENOMEM;
                r = plan_element(e, p->elem, false, &canon);
                if (r < 0)
                        return r;
                return strv_consume(&p->profiles, TAKE_PTR(canon));
        }

        if (i < 0)
                return editor_fail(e, -ENOENT, NULL, "this file defines no profile \"%s\"", edit->profile);
        if (edit->operation == RC_EDIT_REMOVE_PROFILE) {
                if (edit->n_settings + edit->n_unset > 0)
                        return editor_fail(e, -EINVAL, NULL, "removing a profile changes none of its settings");
                strv_remove_at(p->profiles, (size_t) i);
                return 0;
        }
        if (edit->n_settings + edit->n_unset == 0)
                return editor_fail(e, -EINVAL, NULL, "nothing to change in profile \"%s\"", edit->profile);
        r = rc_edit_canon_settings(&orig->profiles[i], &settings);
        if (r < 0)
                return r;
        r = plan_apply_settings(e, p, NULL, &settings);
        if (r < 0)
                return r;
        r = rc_edit_canon_profile(edit->profile, settings, &canon);
        if (r < 0)
                return r;
        free(p->profiles[i]);
        p->profiles[i] = TAKE_PTR(canon);
        return 0;
}

int editor_plan_edit(RcEditor *e, const RcFile *orig, const RcEdit *edit, RcEditPlan *p)
{
        int r;

        r = rc_edit_canon_file(orig, &p->rules, &p->profiles);
        if (r < 0)
                return r;
        r = plan_settings(e, edit, p);
        if (r < 0)
                return r;

        switch (edit->operation) {
        case RC_EDIT_ADD_RULE:
                return plan_add_rule(e, orig, edit, p);
        case RC_EDIT_UPDATE_RULE:
                return plan_update_rule(e, orig, edit, p);
        case RC_EDIT_REMOVE_RULE:
                if (edit->pattern || edit->profile || edit->rule_text || edit->n_settings + edit->n_unset > 0)
                        return editor_fail(e, -EINVAL, NULL, "removing a rule takes only its index");
                if (edit->index >= orig->n_rules)
                        return editor_fail(e, -ENOENT, NULL, "no rule %zu: the file has %zu rules", edit->index,
                                        orig->n_rules);
                strv_remove_at(p->rules, edit->index);
                return 0;
        case RC_EDIT_ADD_PROFILE:
        case RC_EDIT_UPDATE_PROFILE:
        case RC_EDIT_REMOVE_PROFILE:
                return plan_profile(e, orig, edit, p);
        case _RC_EDIT_OPERATION_MAX:
                break;
        }
        assert_not_reached();
}
