/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The steps of an edit: each finds its place in a fresh parse and splices one element in or out
 * (rc-edit-layout.c) or replaces one value. */

#include <stdio.h>

#include "rc-edit-editor.h"
#include "rc-edit-text.h"
#include "rc-format.h"
#include "string-util.h"
#include "strv.h"

/* A settings array as units: one per setting object or per key/value pair of a flat array. */
typedef struct Settings {
        const RcNode *array;
        RcEditUnit *units;
        const RcNode **keys, **values;
        size_t n;
        bool flat;
} Settings;

static void settings_done(Settings *s)
{
        free(s->units);
        free(s->keys);
        free(s->values);
        *s = (Settings){ 0 };
}

static const RcNode *setting_member(const RcEditor *e, const RcNode *obj, const char *name, const char *alias)
{
        const RcNode *n = editor_member(e, obj, name);
        return n ? n : editor_member(e, obj, alias);
}

static int settings_read(const RcEditor *e, const RcNode *array, Settings *ret)
{
        const RcNode *first = rc_node_first_child(&e->doc, array);
        size_t max = 0;

        *ret = (Settings){ .array = array, .flat = first && first->type != RC_NODE_OBJECT };
        for (const RcNode *c = first; c; c = rc_node_next(&e->doc, c))
                max++;
        ret->units = calloc(MAX(max, (size_t) 1), sizeof(RcEditUnit));
        ret->keys = calloc(MAX(max, (size_t) 1), sizeof(RcNode *));
        ret->values = calloc(MAX(max, (size_t) 1), sizeof(RcNode *));
        if (!ret->units || !ret->keys || !ret->values)
                return -ENOMEM;

        for (const RcNode *c = first; c; c = rc_node_next(&e->doc, c)) {
                const RcNode *k = c, *v;

                if (ret->flat) {
                        v = rc_node_next(&e->doc, c);
                        if (!v)
                                break; /* an odd array: the file would not have loaded */
                        c = v;
                } else {
                        k = setting_member(e, c, "key", "k");
                        v = setting_member(e, c, "value", "v");
                        if (!k || !v)
                                return -EBADMSG; /* the file would not have loaded */
                }
                ret->units[ret->n] = (RcEditUnit){ .start = ret->flat ? k->offset : c->offset, .end = c->end };
                ret->keys[ret->n] = k;
                ret->values[ret->n] = v;
                ret->n++;
        }
        return 0;
}

/* The index of the first setting whose key is key, or -ENOENT. */
static ssize_t settings_find(const RcEditor *e, const Settings *s, const char *key)
{
        for (size_t i = 0; i < s->n; i++)
                if (editor_node_string_equals(e, s->keys[i], key))
                        return (ssize_t) i;
        return -ENOENT;
}

static RcEditSettingsForm settings_form_of(const RcEditor *e, const RcNode *array)
{
        const RcNode *first = rc_node_first_child(&e->doc, array);

        if (!first)
                return (RcEditSettingsForm){ .key = "key", .value = "value" };
        if (first->type != RC_NODE_OBJECT)
                return (RcEditSettingsForm){ .flat = true };
        return (RcEditSettingsForm){
                .key = editor_member(e, first, "key") || !editor_member(e, first, "k") ? "key" : "k",
                .value = editor_member(e, first, "value") || !editor_member(e, first, "v") ? "value" : "v",
        };
}

RcEditSettingsForm editor_settings_form_of_file(const RcEditor *e)
{
        const RcNode *profiles = editor_member(e, editor_root(e), "profiles"),
                     *rules = editor_member(e, editor_root(e), "rules");

        for (const RcNode *p = rc_node_first_child(&e->doc, profiles); p; p = rc_node_next(&e->doc, p)) {
                const RcNode *s = editor_member(e, p, "settings");
                if (rc_node_first_child(&e->doc, s))
                        return settings_form_of(e, s);
        }
        for (const RcNode *r = rc_node_first_child(&e->doc, rules); r; r = rc_node_next(&e->doc, r)) {
                const RcNode *holder = editor_member(e, r, "profile"), *s;

                s = holder && holder->type == RC_NODE_ARRAY ? holder : editor_member(e, holder, "settings");
                if (rc_node_first_child(&e->doc, s))
                        return settings_form_of(e, s);
        }
        return settings_form_of(e, NULL);
}

/* One setting (key: a quoted string) in form. */
static int render_setting(
                const RcEditor *e, const RcEditSettingsForm *form, const char *key, const char *value, char **ret)
{
        const char *c = e->layout.colon;

        if (form->flat)
                return asprintf(ret, "%s, %s", key, value) < 0 ? -ENOMEM : 0;
        return asprintf(ret, "{ \"%s\"%s%s, \"%s\"%s%s }", form->key, c, key, form->value, c, value) < 0 ? -ENOMEM : 0;
}

/* A new setting for array s: a copy of its last setting object with the key and value replaced, so it
 * has its siblings' layout; a fresh one when that object is not plainly two members. */
static int render_setting_like(const RcEditor *e, const Settings *s, const char *key, const char *value, char **ret)
{
        const RcNode *last = s->n > 0 && !s->flat ? editor_nth_child(e, s->array, s->n - 1) : NULL;
        RcEditSettingsForm form = settings_form_of(e, s->array);
        const RcNode *k, *v;
        size_t n_members = 0;

        if (s->n == 0)
                form = editor_settings_form_of_file(e);
        if (!last)
                return render_setting(e, &form, key, value, ret);

        for (const RcNode *m = rc_node_first_child(&e->doc, last); m; m = rc_node_next(&e->doc, m))
                n_members++;
        k = s->keys[s->n - 1];
        v = s->values[s->n - 1];
        if (n_members != 2 || memchr(e->text + last->offset, '#', last->end - last->offset) || k->offset > v->offset)
                return render_setting(e, &form, key, value, ret);

        return asprintf(ret, "%.*s%s%.*s%s%.*s", (int) (k->offset - last->offset), e->text + last->offset, key,
                               (int) (v->offset - k->end), e->text + k->end, value, (int) (last->end - v->end),
                               e->text + v->end) < 0
                        ? -ENOMEM
                        : 0;
}

/* "[s1, s2]" in form, for a new profile. */
int editor_render_settings(const RcEditor *e, const RcEditSettingsForm *form, char *const *keys, char *const *values,
                size_t n, char **ret)
{
        _cleanup_strv_free_ char **l = NULL;
        _cleanup_free_ char *joined = NULL;
        int r;

        l = calloc(1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                char *s;

                r = render_setting(e, form, keys[i], values[i], &s);
                if (r < 0)
                        return r;
                r = strv_consume(&l, s);
                if (r < 0)
                        return r;
        }
        joined = strv_join(l, ", ");
        if (!joined)
                return -ENOMEM;
        return asprintf(ret, "[%s]", joined) < 0 ? -ENOMEM : 0;
}

/* Sets occurrence number done (counting from 0) of key in the target's settings, or appends the key when
 * it has none. *ret_finished: no further occurrence. */
static int set_once(RcEditor *e, const RcEditTarget *t, const char *key_text, const char *key, const char *value,
                size_t done, bool *ret_finished)
{
        const RcNode *array = editor_find_settings(e, t);
        RcEditSplices splices = { 0 };
        _cleanup_(settings_done) Settings s = { 0 };
        _cleanup_free_ char *elem = NULL;
        size_t seen = 0;
        int r;

        if (!array || array->type != RC_NODE_ARRAY)
                return editor_fail(e, -EINVAL, editor_find_rule(e, t->index),
                                "rule %zu has no inline profile to set %s in", t->index, key_text);
        r = settings_read(e, array, &s);
        if (r == -EBADMSG)
                return editor_fail(e, r, array, "a setting here has no key or no value");
        if (r < 0)
                return r;
        for (size_t i = 0; i < s.n; i++)
                if (editor_node_string_equals(e, s.keys[i], key) && seen++ == done) {
                        elem = strdup(value);
                        if (!elem)
                                return -ENOMEM;
                        *ret_finished = false;
                        (void) editor_splice_replace(&splices, s.values[i], TAKE_PTR(elem));
                        return editor_splice(e, &splices);
                }
        *ret_finished = true;
        if (done > 0)
                return 0;
        r = render_setting_like(e, &s, key_text, value, &elem);
        if (r >= 0)
                r = rc_edit_insert_unit(&e->layout, array, s.units, s.n, s.n, elem, &splices);
        if (r >= 0)
                r = editor_splice(e, &splices);
        rc_edit_splices_done(&splices);
        return r;
}

/* Step: sets key (key_text: quoted) to value in the target's settings, replacing every value it has
 * there, or appending it. */
int editor_step_set(RcEditor *e, const RcEditTarget *t, const char *key_text, const char *key, const char *value)
{
        bool finished = false;
        int r;

        for (size_t done = 0; !finished; done++) {
                r = set_once(e, t, key_text, key, value, done, &finished);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Step: removes every setting of key from the target's settings; -ENOENT if there is none. */
int editor_step_unset(RcEditor *e, const RcEditTarget *t, const char *key)
{
        for (bool first = true;; first = false) {
                const RcNode *array = editor_find_settings(e, t);
                RcEditSplices splices = { 0 };
                _cleanup_(settings_done) Settings s = { 0 };
                ssize_t i;
                int r;

                if (!array || array->type != RC_NODE_ARRAY)
                        return editor_fail(e, -EINVAL, editor_find_rule(e, t->index), "rule %zu has no inline profile",
                                        t->index);
                r = settings_read(e, array, &s);
                if (r == -EBADMSG)
                        return editor_fail(e, r, array, "a setting here has no key or no value");
                if (r < 0)
                        return r;
                i = settings_find(e, &s, key);
                if (i < 0)
                        return first ? editor_fail(e, -ENOENT, array, "no setting \"%s\" here", key) : 0;
                r = rc_edit_remove_unit(&e->layout, array, s.units, s.n, (size_t) i, &splices);
                if (r >= 0)
                        r = editor_splice(e, &splices);
                rc_edit_splices_done(&splices);
                if (r < 0)
                        return r;
        }
}

/* Step: replaces the value of member name of obj. */
int editor_step_replace_member(RcEditor *e, const RcNode *obj, const char *name, const char *value)
{
        const RcNode *v = editor_member(e, obj, name);
        RcEditSplices splices = { 0 };
        char *copy;

        if (!v)
                return editor_fail(e, -EBADMSG, obj, "no \"%s\" here", name);
        copy = strdup(value);
        if (!copy)
                return -ENOMEM;
        (void) editor_splice_replace(&splices, v, copy);
        return editor_splice(e, &splices);
}

/* Step: inserts elem at position k (SIZE_MAX: the end) of the root's array name, creating the array. */
int editor_step_insert(RcEditor *e, const char *name, size_t k, const char *elem)
{
        const RcNode *array = editor_member(e, editor_root(e), name);
        RcEditSplices splices = { 0 };
        _cleanup_free_ RcEditUnit *units = NULL;
        _cleanup_free_ char *text = NULL;
        size_t n;
        int r;

        if (array) {
                r = editor_units_of(e, array, &units, &n);
                if (r < 0)
                        return r;
                r = rc_edit_insert_unit(&e->layout, array, units, n, MIN(k, n), elem, &splices);
        } else {
                const RcNode *first = rc_node_first_child(&e->doc, editor_root(e));
                /* On lines of their own if the root's members are, or an empty root will be. */
                bool lines = memchr(e->text + editor_root(e)->offset, '\n',
                                             editor_root(e)->end - editor_root(e)->offset) ||
                                (!first && rc_edit_first_on_line(&e->layout, editor_root(e)->offset));
                _cleanup_free_ char *indent = NULL;

                if (lines && first && rc_edit_first_on_line(&e->layout, rc_edit_node_start(first)))
                        indent = rc_edit_indent_at(&e->layout, rc_edit_node_start(first));
                else if (lines) {
                        _cleanup_free_ char *outer = rc_edit_indent_at(&e->layout, editor_root(e)->offset);
                        if (outer && asprintf(&indent, "%s%s", outer, e->layout.unit) < 0)
                                indent = NULL;
                }
                if (lines && !indent)
                        return -ENOMEM;
                if (lines ? asprintf(&text, "\"%s\"%s[%s%s%s%s%s%s]", name, e->layout.colon, e->layout.nl, indent,
                                            e->layout.unit, elem, e->layout.nl, indent) < 0
                          : asprintf(&text, "\"%s\"%s[%s]", name, e->layout.colon, elem) < 0)
                        return -ENOMEM;
                r = editor_units_of(e, editor_root(e), &units, &n);
                if (r < 0)
                        return r;
                r = rc_edit_insert_unit(&e->layout, editor_root(e), units, n, n, text, &splices);
        }
        if (r >= 0)
                r = editor_splice(e, &splices);
        rc_edit_splices_done(&splices);
        return r;
}

/* Step: removes element node of array. */
int editor_step_remove(RcEditor *e, const RcNode *array, const RcNode *node)
{
        RcEditSplices splices = { 0 };
        _cleanup_free_ RcEditUnit *units = NULL;
        size_t n, k = 0;
        int r;

        if (!array || !node)
                return editor_fail(e, -EBADMSG, NULL, "the element to remove is not where the model has it");
        for (const RcNode *c = rc_node_first_child(&e->doc, array); c && c != node; c = rc_node_next(&e->doc, c))
                k++;
        r = editor_units_of(e, array, &units, &n);
        if (r < 0)
                return r;
        assert(k < n);
        r = rc_edit_remove_unit(&e->layout, array, units, n, k, &splices);
        if (r >= 0)
                r = editor_splice(e, &splices);
        rc_edit_splices_done(&splices);
        return r;
}
