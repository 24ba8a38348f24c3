/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Span edits of one rc file (rc-edit.h). An edit is a few steps; each step finds its place in a fresh
 * parse of the current text and splices one element in or out (rc-edit-layout.c) or replaces one value.
 * Everything inserted is checked with the reader first (rc-edit-check.c), and the result must parse into
 * exactly the rules and profiles the edit intends, compared in a canonical form. */

#include <stdarg.h>
#include <stdio.h>

#include "rc-edit-editor.h"
#include "rc-edit-text.h"
#include "rc-edit.h"
#include "rc-format.h"
#include "string-util.h"
#include "strv.h"

/* The steps that carry out a plan on the text. */
static int run_settings_steps(RcEditor *e, const RcEditTarget *t, const RcEdit *edit, const RcEditPlan *p)
{
        int r;

        for (size_t i = 0; i < edit->n_settings; i++) {
                r = editor_step_set(e, t, p->keys[i], edit->settings[i].key, p->values[i]);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < edit->n_unset; i++) {
                r = editor_step_unset(e, t, edit->unset[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int run_edit(RcEditor *e, const RcEdit *edit, const RcEditPlan *p)
{
        RcEditTarget t = { .rule = true, .index = edit->index, .name = edit->profile };
        int r;

        switch (edit->operation) {
        case RC_EDIT_ADD_RULE:
                return editor_step_insert(e, "rules", edit->index, p->elem);
        case RC_EDIT_UPDATE_RULE:
                if (p->pattern) {
                        r = editor_step_replace_member(e, editor_find_rule(e, edit->index), "pattern", p->pattern);
                        if (r < 0)
                                return r;
                }
                if (p->profile) {
                        r = editor_step_replace_member(e, editor_find_rule(e, edit->index), "profile", p->profile);
                        if (r < 0)
                                return r;
                }
                return run_settings_steps(e, &t, edit, p);
        case RC_EDIT_REMOVE_RULE:
                return editor_step_remove(
                                e, editor_member(e, editor_root(e), "rules"), editor_find_rule(e, edit->index));
        case RC_EDIT_ADD_PROFILE:
                return editor_step_insert(e, "profiles", SIZE_MAX, p->elem);
        case RC_EDIT_UPDATE_PROFILE:
                t.rule = false;
                return run_settings_steps(e, &t, edit, p);
        case RC_EDIT_REMOVE_PROFILE:
                return editor_step_remove(
                                e, editor_member(e, editor_root(e), "profiles"), editor_find_profile(e, edit->profile));
        case _RC_EDIT_OPERATION_MAX:
                break;
        }
        assert_not_reached();
}

static bool strv_equal(char *const *a, char *const *b, size_t *ret_index)
{
        size_t i = 0;

        for (; a[i] && b[i]; i++)
                if (!streq(a[i], b[i]))
                        break;
        *ret_index = i;
        return !a[i] && !b[i];
}

/* The edited text must load, with exactly the planned rules and profiles. */
static int verify(RcEditor *e, const RcEditPlan *p)
{
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        _cleanup_strv_free_ char **rules = NULL, **profiles = NULL;
        size_t i;
        int r;

        r = rc_file_parse(e->path, e->text, e->size, NULL, &f);
        if (r < 0)
                return r;
        if (f->state != RC_FILE_LOADED)
                return editor_fail(e, -EBADMSG, NULL, "the edited file would not load (%s); the file is left as it was",
                                f->diagnostics.n_items > 0 ? f->diagnostics.items[0].message : "no detail");
        r = rc_edit_canon_file(f, &rules, &profiles);
        if (r < 0)
                return r;
        if (!strv_equal(rules, p->rules, &i))
                return editor_fail(e, -EBADMSG, NULL,
                                "the edit would give rule %zu as %s, not %s; the file is left as it was", i,
                                strna(rules[i]), strna(p->rules[i]));
        if (!strv_equal(profiles, p->profiles, &i))
                return editor_fail(e, -EBADMSG, NULL,
                                "the edit would give profile %zu as %s, not %s; the file is left as it was", i,
                                strna(profiles[i]), strna(p->profiles[i]));
        return 0;
}

int rc_edit_apply(const char *path, const char *text, size_t size, const RcEdit *edit, RcDiagnostics *diags,
                char **ret_text, size_t *ret_size)
{
        _cleanup_(editor_done) RcEditor e = { .path = path, .diags = diags };
        _cleanup_(rc_file_unrefp) RcFile *orig = NULL;
        _cleanup_(editor_plan_done) RcEditPlan p = { 0 };
        int r;

        assert(path);
        assert(text || size == 0);
        assert(edit);
        assert(edit->operation >= 0 && edit->operation < _RC_EDIT_OPERATION_MAX);
        assert(edit->n_settings == 0 || edit->settings);
        assert(edit->n_unset == 0 || edit->unset);
        assert(diags);
        assert(ret_text);

        r = editor_open(&e, text, size, &orig);
        if (r < 0)
                return r;
        r = editor_plan_edit(&e, orig, edit, &p);
        if (r < 0)
                return r;
        r = run_edit(&e, edit, &p);
        if (r < 0)
                return r;
        r = verify(&e, &p);
        if (r < 0)
                return r;

        if (ret_size)
                *ret_size = e.size;
        *ret_text = TAKE_PTR(e.text);
        return 0;
}

int rc_edit_rule_text(const char *path, const char *text, size_t size, size_t index, RcDiagnostics *diags, char **ret)
{
        _cleanup_(editor_done) RcEditor e = { .path = path, .diags = diags };
        _cleanup_(rc_file_unrefp) RcFile *orig = NULL;
        const RcNode *rule;
        int r;

        assert(path);
        assert(text || size == 0);
        assert(diags);
        assert(ret);

        if (!text)
                return editor_fail(&e, -ENOENT, NULL, "no such file");
        r = editor_open(&e, text, size, &orig);
        if (r < 0)
                return r;
        rule = index < orig->n_rules ? editor_find_rule(&e, index) : NULL;
        if (!rule)
                return editor_fail(&e, -ENOENT, NULL, "no rule %zu: the file has %zu rules", index, orig->n_rules);
        *ret = strndup(e.text + rule->offset, rule->end - rule->offset);
        return *ret ? 0 : -ENOMEM;
}

static const char *const operation_names[_RC_EDIT_OPERATION_MAX] = {
        [RC_EDIT_ADD_RULE] = "add-rule",
        [RC_EDIT_UPDATE_RULE] = "update-rule",
        [RC_EDIT_REMOVE_RULE] = "remove-rule",
        [RC_EDIT_ADD_PROFILE] = "add-profile",
        [RC_EDIT_UPDATE_PROFILE] = "update-profile",
        [RC_EDIT_REMOVE_PROFILE] = "remove-profile",
};

const char *rc_edit_operation_to_string(RcEditOperation o)
{
        return o >= 0 && o < _RC_EDIT_OPERATION_MAX ? operation_names[o] : NULL;
}
