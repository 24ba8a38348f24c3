/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Span edits of one rc file (rc-edit.h). An edit is a few steps; each step finds its place in a fresh
 * parse of the current text and splices one element in or out (rc-edit-layout.c) or replaces one value.
 * Everything inserted is checked with the reader first (rc-edit-check.c), and the result must parse into
 * exactly the rules and profiles the edit intends, compared in a canonical form. */

#include <stdarg.h>
#include <stdio.h>

#include "rc-edit-layout.h"
#include "rc-edit-text.h"
#include "rc-edit.h"
#include "rc-format.h"
#include "string-util.h"
#include "strv.h"

#define NEW_FILE_HEADER                                                        \
        "# NVIDIA application profiles, written by nvprofilectl/nvprofiled.\n" \
        "# This file may be edited by hand; later edits keep comments and layout.\n"

typedef struct Editor {
        const char *path;
        RcDiagnostics *diags;
        char *text; /* the current text */
        size_t size;
        RcDocument doc; /* of text */
        RcEditLayout layout;
} Editor;

static void editor_done(Editor *e)
{
        rc_edit_layout_done(&e->layout);
        rc_document_done(&e->doc);
        e->text = mfree(e->text);
}

static int fail(Editor *e, int error, const RcNode *n, const char *fmt, ...) _printf_(4, 5);
static int fail(Editor *e, int error, const RcNode *n, const char *fmt, ...)
{
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = rc_diagnostics_add_atv(e->diags, e->path, RC_SEVERITY_ERROR, n ? n->line : 0, n ? n->column : 0, fmt, ap);
        va_end(ap);
        return r < 0 ? r : error;
}

/* Parses the current text again, after a step changed it. */
static int editor_reload(Editor *e)
{
        RcDiagnostics inner = { 0 };
        int r;

        rc_edit_layout_done(&e->layout);
        rc_document_done(&e->doc);
        r = rc_document_parse(e->text, e->size, NULL, &inner, &e->doc);
        if (r >= 0)
                r = rc_edit_layout_init(&e->layout, &e->doc);
        else if (r != -ENOMEM)
                r = fail(e, -EBADMSG, NULL, "the edited text does not parse (%s); the file is left as it was",
                                inner.n_items > 0 ? inner.items[0].message : "no detail");
        rc_diagnostics_done(&inner);
        return r;
}

static int editor_splice(Editor *e, RcEditSplices *s)
{
        char *text;
        size_t size;
        int r;

        r = rc_edit_splices_apply(e->text, e->size, s, &text, &size);
        rc_edit_splices_done(s);
        if (r < 0)
                return r;
        free(e->text);
        e->text = text;
        e->size = size;
        if (size > RC_FILE_SIZE_MAX)
                return fail(e, -E2BIG, NULL, "the edited file would be larger than %u bytes", RC_FILE_SIZE_MAX);
        return editor_reload(e);
}

/* Replaces the value node n by text (taken). */
static int splice_replace(RcEditSplices *s, const RcNode *n, char *text)
{
        assert(s->n < RC_EDIT_SPLICES_MAX);
        s->items[s->n++] = (RcEditSplice){ .start = n->offset, .end = n->end, .text = text };
        return 0;
}

static const RcNode *root(const Editor *e)
{
        return &e->doc.nodes[0];
}

static const RcNode *member(const Editor *e, const RcNode *obj, const char *name)
{
        return obj && obj->type == RC_NODE_OBJECT ? rc_node_member(&e->doc, obj, name, NULL) : NULL;
}

static const RcNode *nth_child(const Editor *e, const RcNode *c, size_t k)
{
        const RcNode *n = rc_node_first_child(&e->doc, c);

        for (; n && k > 0; k--)
                n = rc_node_next(&e->doc, n);
        return n;
}

/* The elements of container c, one unit each. */
static int units_of(const Editor *e, const RcNode *c, RcEditUnit **ret, size_t *ret_n)
{
        _cleanup_free_ RcEditUnit *units = NULL;
        size_t n = 0, allocated = 0;

        for (const RcNode *k = rc_node_first_child(&e->doc, c); k; k = rc_node_next(&e->doc, k)) {
                if (GREEDY_REALLOC(units, allocated, n + 1) < 0)
                        return -ENOMEM;
                units[n++] = (RcEditUnit){ .start = rc_edit_node_start(k), .end = k->end };
        }
        *ret = TAKE_PTR(units);
        *ret_n = n;
        return 0;
}

/* The decoded text of string node n, or NULL if it is not a string. */
static char *node_string(const Editor *e, const RcNode *n)
{
        _cleanup_free_ char *raw = NULL;
        struct json_object *o;
        char *s = NULL;

        if (!n || n->type != RC_NODE_SCALAR || e->text[n->offset] != '"')
                return NULL;
        raw = strndup(e->text + n->offset, n->end - n->offset);
        if (!raw)
                return NULL;
        o = json_tokener_parse(raw);
        if (json_object_is_type(o, json_type_string))
                s = strdup(json_object_get_string(o));
        json_object_put(o);
        return s;
}

static bool node_string_equals(const Editor *e, const RcNode *n, const char *s)
{
        _cleanup_free_ char *v = node_string(e, n);
        return v && streq(v, s);
}

/* Where an edit of settings applies: rule index's inline profile, or the profile named name. */
typedef struct Target {
        bool rule;
        size_t index;
        const char *name;
} Target;

static const RcNode *find_rule(const Editor *e, size_t index)
{
        return nth_child(e, member(e, root(e), "rules"), index);
}

static const RcNode *find_profile(const Editor *e, const char *name)
{
        const RcNode *profiles = member(e, root(e), "profiles");

        for (const RcNode *p = rc_node_first_child(&e->doc, profiles); p; p = rc_node_next(&e->doc, p))
                if (node_string_equals(e, member(e, p, "name"), name))
                        return p;
        return NULL;
}

/* The settings array the target edits; NULL for a rule that names its profile. */
static const RcNode *find_settings(const Editor *e, const Target *t)
{
        const RcNode *holder;

        if (!t->rule)
                return member(e, find_profile(e, t->name), "settings");
        holder = member(e, find_rule(e, t->index), "profile");
        if (holder && holder->type == RC_NODE_ARRAY)
                return holder;
        return member(e, holder, "settings");
}

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

static const RcNode *setting_member(const Editor *e, const RcNode *obj, const char *name, const char *alias)
{
        const RcNode *n = member(e, obj, name);
        return n ? n : member(e, obj, alias);
}

static int settings_read(const Editor *e, const RcNode *array, Settings *ret)
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
static ssize_t settings_find(const Editor *e, const Settings *s, const char *key)
{
        for (size_t i = 0; i < s->n; i++)
                if (node_string_equals(e, s->keys[i], key))
                        return (ssize_t) i;
        return -ENOENT;
}

/* How the file writes settings, from its first non-empty settings array: flat, or objects with "key"
 * or "k" names. */
typedef struct SettingsForm {
        bool flat;
        const char *key, *value;
} SettingsForm;

static SettingsForm settings_form_of(const Editor *e, const RcNode *array)
{
        const RcNode *first = rc_node_first_child(&e->doc, array);

        if (!first)
                return (SettingsForm){ .key = "key", .value = "value" };
        if (first->type != RC_NODE_OBJECT)
                return (SettingsForm){ .flat = true };
        return (SettingsForm){
                .key = member(e, first, "key") || !member(e, first, "k") ? "key" : "k",
                .value = member(e, first, "value") || !member(e, first, "v") ? "value" : "v",
        };
}

static SettingsForm settings_form_of_file(const Editor *e)
{
        const RcNode *profiles = member(e, root(e), "profiles"), *rules = member(e, root(e), "rules");

        for (const RcNode *p = rc_node_first_child(&e->doc, profiles); p; p = rc_node_next(&e->doc, p)) {
                const RcNode *s = member(e, p, "settings");
                if (rc_node_first_child(&e->doc, s))
                        return settings_form_of(e, s);
        }
        for (const RcNode *r = rc_node_first_child(&e->doc, rules); r; r = rc_node_next(&e->doc, r)) {
                const RcNode *holder = member(e, r, "profile"), *s;

                s = holder && holder->type == RC_NODE_ARRAY ? holder : member(e, holder, "settings");
                if (rc_node_first_child(&e->doc, s))
                        return settings_form_of(e, s);
        }
        return settings_form_of(e, NULL);
}

/* One setting (key: a quoted string) in form. */
static int render_setting(const Editor *e, const SettingsForm *form, const char *key, const char *value, char **ret)
{
        const char *c = e->layout.colon;

        if (form->flat)
                return asprintf(ret, "%s, %s", key, value) < 0 ? -ENOMEM : 0;
        return asprintf(ret, "{ \"%s\"%s%s, \"%s\"%s%s }", form->key, c, key, form->value, c, value) < 0 ? -ENOMEM : 0;
}

/* A new setting for array s: a copy of its last setting object with the key and value replaced, so it
 * has its siblings' layout; a fresh one when that object is not plainly two members. */
static int render_setting_like(const Editor *e, const Settings *s, const char *key, const char *value, char **ret)
{
        const RcNode *last = s->n > 0 && !s->flat ? nth_child(e, s->array, s->n - 1) : NULL;
        SettingsForm form = settings_form_of(e, s->array);
        const RcNode *k, *v;
        size_t n_members = 0;

        if (s->n == 0)
                form = settings_form_of_file(e);
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
static int render_settings(
                const Editor *e, const SettingsForm *form, char *const *keys, char *const *values, size_t n, char **ret)
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
static int set_once(Editor *e, const Target *t, const char *key_text, const char *key, const char *value, size_t done,
                bool *ret_finished)
{
        const RcNode *array = find_settings(e, t);
        RcEditSplices splices = { 0 };
        _cleanup_(settings_done) Settings s = { 0 };
        _cleanup_free_ char *elem = NULL;
        size_t seen = 0;
        int r;

        if (!array || array->type != RC_NODE_ARRAY)
                return fail(e, -EINVAL, find_rule(e, t->index), "rule %zu has no inline profile to set %s in", t->index,
                                key_text);
        r = settings_read(e, array, &s);
        if (r == -EBADMSG)
                return fail(e, r, array, "a setting here has no key or no value");
        if (r < 0)
                return r;
        for (size_t i = 0; i < s.n; i++)
                if (node_string_equals(e, s.keys[i], key) && seen++ == done) {
                        elem = strdup(value);
                        if (!elem)
                                return -ENOMEM;
                        *ret_finished = false;
                        (void) splice_replace(&splices, s.values[i], TAKE_PTR(elem));
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
static int step_set(Editor *e, const Target *t, const char *key_text, const char *key, const char *value)
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
static int step_unset(Editor *e, const Target *t, const char *key)
{
        for (bool first = true;; first = false) {
                const RcNode *array = find_settings(e, t);
                RcEditSplices splices = { 0 };
                _cleanup_(settings_done) Settings s = { 0 };
                ssize_t i;
                int r;

                if (!array || array->type != RC_NODE_ARRAY)
                        return fail(e, -EINVAL, find_rule(e, t->index), "rule %zu has no inline profile", t->index);
                r = settings_read(e, array, &s);
                if (r == -EBADMSG)
                        return fail(e, r, array, "a setting here has no key or no value");
                if (r < 0)
                        return r;
                i = settings_find(e, &s, key);
                if (i < 0)
                        return first ? fail(e, -ENOENT, array, "no setting \"%s\" here", key) : 0;
                r = rc_edit_remove_unit(&e->layout, array, s.units, s.n, (size_t) i, &splices);
                if (r >= 0)
                        r = editor_splice(e, &splices);
                rc_edit_splices_done(&splices);
                if (r < 0)
                        return r;
        }
}

/* Step: replaces the value of member name of obj. */
static int step_replace_member(Editor *e, const RcNode *obj, const char *name, const char *value)
{
        const RcNode *v = member(e, obj, name);
        RcEditSplices splices = { 0 };
        char *copy;

        if (!v)
                return fail(e, -EBADMSG, obj, "no \"%s\" here", name);
        copy = strdup(value);
        if (!copy)
                return -ENOMEM;
        (void) splice_replace(&splices, v, copy);
        return editor_splice(e, &splices);
}

/* Step: inserts elem at position k (SIZE_MAX: the end) of the root's array name, creating the array. */
static int step_insert(Editor *e, const char *name, size_t k, const char *elem)
{
        const RcNode *array = member(e, root(e), name);
        RcEditSplices splices = { 0 };
        _cleanup_free_ RcEditUnit *units = NULL;
        _cleanup_free_ char *text = NULL;
        size_t n;
        int r;

        if (array) {
                r = units_of(e, array, &units, &n);
                if (r < 0)
                        return r;
                r = rc_edit_insert_unit(&e->layout, array, units, n, MIN(k, n), elem, &splices);
        } else {
                const RcNode *first = rc_node_first_child(&e->doc, root(e));
                /* On lines of their own if the root's members are, or an empty root will be. */
                bool lines = memchr(e->text + root(e)->offset, '\n', root(e)->end - root(e)->offset) ||
                                (!first && rc_edit_first_on_line(&e->layout, root(e)->offset));
                _cleanup_free_ char *indent = NULL;

                if (lines && first && rc_edit_first_on_line(&e->layout, rc_edit_node_start(first)))
                        indent = rc_edit_indent_at(&e->layout, rc_edit_node_start(first));
                else if (lines) {
                        _cleanup_free_ char *outer = rc_edit_indent_at(&e->layout, root(e)->offset);
                        if (outer && asprintf(&indent, "%s%s", outer, e->layout.unit) < 0)
                                indent = NULL;
                }
                if (lines && !indent)
                        return -ENOMEM;
                if (lines ? asprintf(&text, "\"%s\"%s[%s%s%s%s%s%s]", name, e->layout.colon, e->layout.nl, indent,
                                            e->layout.unit, elem, e->layout.nl, indent) < 0
                          : asprintf(&text, "\"%s\"%s[%s]", name, e->layout.colon, elem) < 0)
                        return -ENOMEM;
                r = units_of(e, root(e), &units, &n);
                if (r < 0)
                        return r;
                r = rc_edit_insert_unit(&e->layout, root(e), units, n, n, text, &splices);
        }
        if (r >= 0)
                r = editor_splice(e, &splices);
        rc_edit_splices_done(&splices);
        return r;
}

/* Step: removes element node of array. */
static int step_remove(Editor *e, const RcNode *array, const RcNode *node)
{
        RcEditSplices splices = { 0 };
        _cleanup_free_ RcEditUnit *units = NULL;
        size_t n, k = 0;
        int r;

        if (!array || !node)
                return fail(e, -EBADMSG, NULL, "the element to remove is not where the model has it");
        for (const RcNode *c = rc_node_first_child(&e->doc, array); c && c != node; c = rc_node_next(&e->doc, c))
                k++;
        r = units_of(e, array, &units, &n);
        if (r < 0)
                return r;
        assert(k < n);
        r = rc_edit_remove_unit(&e->layout, array, units, n, k, &splices);
        if (r >= 0)
                r = editor_splice(e, &splices);
        rc_edit_splices_done(&splices);
        return r;
}

/* What the caller gave, checked, and the model the edit must give. */
typedef struct Plan {
        char *pattern; /* checked rc text */
        char *profile; /* quoted */
        char **keys, **values, **set_canon; /* quoted keys, checked values, "KEY"=VALUE */
        char **unset_keys; /* quoted */
        char *elem; /* ADD_RULE, ADD_PROFILE: the element inserted */
        char **rules, **profiles; /* the intended model, canonical */
} Plan;

static void plan_done(Plan *p)
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

static int quote_or_fail(Editor *e, const char *what, const char *s, char **ret)
{
        int r = rc_edit_quote(s, ret);
        if (r == -EINVAL)
                return fail(e, -EINVAL, NULL, "%s must be non-empty valid UTF-8", what);
        return r;
}

static int plan_settings(Editor *e, const RcEdit *edit, Plan *p)
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
                        return fail(e, -EINVAL, NULL, "value %s is not one setting value", value);
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
static int plan_apply_settings(Editor *e, const Plan *p, const RcNode *where, char ***list)
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
                        return fail(e, -ENOENT, where, "no setting %s to remove", p->unset_keys[i]);
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

static int plan_pattern(Editor *e, const char *pattern, Plan *p, char **ret_canon)
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
static int plan_element(Editor *e, const char *elem, bool rules, char **ret)
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

static int plan_add_rule(Editor *e, const RcFile *orig, const RcEdit *edit, Plan *p)
{
        _cleanup_free_ char *canon = NULL;
        const char *c = e->layout.colon;
        size_t k;
        int r;

        if (edit->index != SIZE_MAX && edit->index > orig->n_rules)
                return fail(e, -ENOENT, NULL, "cannot insert at rule %zu: the file has %zu rules", edit->index,
                                orig->n_rules);
        k = MIN(edit->index, orig->n_rules);

        if (edit->rule_text) {
                if (edit->pattern || edit->profile || edit->n_settings + edit->n_unset > 0)
                        return fail(e, -EINVAL, NULL, "a rule given as text takes nothing else");
                r = rc_edit_check_value(e->path, edit->rule_text, "rule", e->diags, &p->elem);
                if (r < 0)
                        return r;
        } else {
                _cleanup_free_ char *pattern_canon = NULL;

                if (!edit->pattern || !edit->profile == (edit->n_settings == 0) || edit->n_unset > 0)
                        return fail(e, -EINVAL, NULL,
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
                        SettingsForm form = settings_form_of_file(e);

                        r = render_settings(e, &form, p->keys, p->values, edit->n_settings, &settings);
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

static int plan_update_rule(Editor *e, const RcFile *orig, const RcEdit *edit, Plan *p)
{
        _cleanup_free_ char *pattern = NULL, *profile = NULL;
        const RcRule *rule;
        int r;

        if (edit->index >= orig->n_rules)
                return fail(e, -ENOENT, NULL, "no rule %zu: the file has %zu rules", edit->index, orig->n_rules);
        rule = &orig->rules[edit->index];
        if (edit->rule_text || (!edit->pattern && !edit->profile && edit->n_settings + edit->n_unset == 0) ||
                        (edit->profile && edit->n_settings + edit->n_unset > 0))
                return fail(e, -EINVAL, NULL,
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
                        return fail(e, -EINVAL, NULL,
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

static int plan_profile(Editor *e, const RcFile *orig, const RcEdit *edit, Plan *p)
{
        _cleanup_strv_free_ char **settings = NULL;
        _cleanup_free_ char *canon = NULL;
        ssize_t i;
        int r;

        if (!edit->profile)
                return fail(e, -EINVAL, NULL, "a profile operation needs the profile's name");
        r = quote_or_fail(e, "a profile name", edit->profile, &p->profile);
        if (r < 0)
                return r;
        i = profile_index(orig, edit->profile);

        if (edit->pattern || edit->rule_text)
                return fail(e, -EINVAL, NULL, "a profile has no pattern");
        if (edit->operation == RC_EDIT_ADD_PROFILE) {
                _cleanup_free_ char *list = NULL;
                SettingsForm form = settings_form_of_file(e);
                const char *c = e->layout.colon;

                if (edit->n_unset > 0)
                        return fail(e, -EINVAL, NULL, "a new profile has no settings to remove");

                if (i >= 0)
                        return fail(e, -EEXIST, &e->doc.nodes[0], "this file already defines profile \"%s\"",
                                        edit->profile);
                r = render_settings(e, &form, p->keys, p->values, edit->n_settings, &list);
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
                return fail(e, -ENOENT, NULL, "this file defines no profile \"%s\"", edit->profile);
        if (edit->operation == RC_EDIT_REMOVE_PROFILE) {
                if (edit->n_settings + edit->n_unset > 0)
                        return fail(e, -EINVAL, NULL, "removing a profile changes none of its settings");
                strv_remove_at(p->profiles, (size_t) i);
                return 0;
        }
        if (edit->n_settings + edit->n_unset == 0)
                return fail(e, -EINVAL, NULL, "nothing to change in profile \"%s\"", edit->profile);
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

static int plan_edit(Editor *e, const RcFile *orig, const RcEdit *edit, Plan *p)
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
                        return fail(e, -EINVAL, NULL, "removing a rule takes only its index");
                if (edit->index >= orig->n_rules)
                        return fail(e, -ENOENT, NULL, "no rule %zu: the file has %zu rules", edit->index,
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

/* The steps that carry out a plan on the text. */
static int run_settings_steps(Editor *e, const Target *t, const RcEdit *edit, const Plan *p)
{
        int r;

        for (size_t i = 0; i < edit->n_settings; i++) {
                r = step_set(e, t, p->keys[i], edit->settings[i].key, p->values[i]);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < edit->n_unset; i++) {
                r = step_unset(e, t, edit->unset[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int run_edit(Editor *e, const RcEdit *edit, const Plan *p)
{
        Target t = { .rule = true, .index = edit->index, .name = edit->profile };
        int r;

        switch (edit->operation) {
        case RC_EDIT_ADD_RULE:
                return step_insert(e, "rules", edit->index, p->elem);
        case RC_EDIT_UPDATE_RULE:
                if (p->pattern) {
                        r = step_replace_member(e, find_rule(e, edit->index), "pattern", p->pattern);
                        if (r < 0)
                                return r;
                }
                if (p->profile) {
                        r = step_replace_member(e, find_rule(e, edit->index), "profile", p->profile);
                        if (r < 0)
                                return r;
                }
                return run_settings_steps(e, &t, edit, p);
        case RC_EDIT_REMOVE_RULE:
                return step_remove(e, member(e, root(e), "rules"), find_rule(e, edit->index));
        case RC_EDIT_ADD_PROFILE:
                return step_insert(e, "profiles", SIZE_MAX, p->elem);
        case RC_EDIT_UPDATE_PROFILE:
                t.rule = false;
                return run_settings_steps(e, &t, edit, p);
        case RC_EDIT_REMOVE_PROFILE:
                return step_remove(e, member(e, root(e), "profiles"), find_profile(e, edit->profile));
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
static int verify(Editor *e, const Plan *p)
{
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        _cleanup_strv_free_ char **rules = NULL, **profiles = NULL;
        size_t i;
        int r;

        r = rc_file_parse(e->path, e->text, e->size, NULL, &f);
        if (r < 0)
                return r;
        if (f->state != RC_FILE_LOADED)
                return fail(e, -EBADMSG, NULL, "the edited file would not load (%s); the file is left as it was",
                                f->diagnostics.n_items > 0 ? f->diagnostics.items[0].message : "no detail");
        r = rc_edit_canon_file(f, &rules, &profiles);
        if (r < 0)
                return r;
        if (!strv_equal(rules, p->rules, &i))
                return fail(e, -EBADMSG, NULL, "the edit would give rule %zu as %s, not %s; the file is left as it was",
                                i, strna(rules[i]), strna(p->rules[i]));
        if (!strv_equal(profiles, p->profiles, &i))
                return fail(e, -EBADMSG, NULL,
                                "the edit would give profile %zu as %s, not %s; the file is left as it was", i,
                                strna(profiles[i]), strna(p->profiles[i]));
        return 0;
}

/* Reads text as the file to edit: it must load, and is never edited otherwise. */
static int editor_open(Editor *e, const char *text, size_t size, RcFile **ret_orig)
{
        _cleanup_(rc_file_unrefp) RcFile *orig = NULL;
        int r;

        e->text = text ? strndup(text, size) : strdup(NEW_FILE_HEADER "{\n}\n");
        if (!e->text)
                return -ENOMEM;
        e->size = text ? size : strlen(e->text);
        if (text && memchr(text, '\0', size))
                return fail(e, -EBADMSG, NULL, "the file holds a NUL byte; it is not edited");

        r = rc_file_parse(e->path, e->text, e->size, NULL, &orig);
        if (r < 0)
                return r;
        if (orig->state != RC_FILE_LOADED) {
                r = rc_diagnostics_copy(e->diags, &orig->diagnostics);
                if (r < 0)
                        return r;
                return fail(e, -EBADMSG, NULL, "the file does not load; it is not edited");
        }
        r = editor_reload(e);
        if (r < 0)
                return r;
        *ret_orig = TAKE_PTR(orig);
        return 0;
}

int rc_edit_apply(const char *path, const char *text, size_t size, const RcEdit *edit, RcDiagnostics *diags,
                char **ret_text, size_t *ret_size)
{
        _cleanup_(editor_done) Editor e = { .path = path, .diags = diags };
        _cleanup_(rc_file_unrefp) RcFile *orig = NULL;
        _cleanup_(plan_done) Plan p = { 0 };
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
        r = plan_edit(&e, orig, edit, &p);
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
        _cleanup_(editor_done) Editor e = { .path = path, .diags = diags };
        _cleanup_(rc_file_unrefp) RcFile *orig = NULL;
        const RcNode *rule;
        int r;

        assert(path);
        assert(text || size == 0);
        assert(diags);
        assert(ret);

        if (!text)
                return fail(&e, -ENOENT, NULL, "no such file");
        r = editor_open(&e, text, size, &orig);
        if (r < 0)
                return r;
        rule = index < orig->n_rules ? find_rule(&e, index) : NULL;
        if (!rule)
                return fail(&e, -ENOENT, NULL, "no rule %zu: the file has %zu rules", index, orig->n_rules);
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
