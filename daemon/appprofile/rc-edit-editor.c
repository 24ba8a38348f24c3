/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The editor of rc_edit_apply(): the text being edited, parsed again after every step (rc-edit-editor.h). */

#include <stdarg.h>
#include <stdio.h>

#include "rc-edit-editor.h"
#include "string-util.h"

#define NEW_FILE_HEADER                                                        \
        "# NVIDIA application profiles, written by nvprofilectl/nvprofiled.\n" \
        "# This file may be edited by hand; later edits keep comments and layout.\n"

void editor_done(RcEditor *e)
{
        rc_edit_layout_done(&e->layout);
        rc_document_done(&e->doc);
        e->text = mfree(e->text);
}

int editor_fail(RcEditor *e, int error, const RcNode *n, const char *fmt, ...)
{
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = rc_diagnostics_add_atv(e->diags, e->path, RC_SEVERITY_ERROR, n ? n->line : 0, n ? n->column : 0, fmt, ap);
        va_end(ap);
        return r < 0 ? r : error;
}

/* Parses the current text again, after a step changed it. */
int editor_reload(RcEditor *e)
{
        RcDiagnostics inner = { 0 };
        int r;

        rc_edit_layout_done(&e->layout);
        rc_document_done(&e->doc);
        r = rc_document_parse(e->text, e->size, NULL, &inner, &e->doc);
        if (r >= 0)
                r = rc_edit_layout_init(&e->layout, &e->doc);
        else if (r != -ENOMEM)
                r = editor_fail(e, -EBADMSG, NULL, "the edited text does not parse (%s); the file is left as it was",
                                inner.n_items > 0 ? inner.items[0].message : "no detail");
        rc_diagnostics_done(&inner);
        return r;
}

int editor_splice(RcEditor *e, RcEditSplices *s)
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
                return editor_fail(e, -E2BIG, NULL, "the edited file would be larger than %u bytes", RC_FILE_SIZE_MAX);
        return editor_reload(e);
}

/* Replaces the value node n by text (taken). */
int editor_splice_replace(RcEditSplices *s, const RcNode *n, char *text)
{
        assert(s->n < RC_EDIT_SPLICES_MAX);
        s->items[s->n++] = (RcEditSplice){ .start = n->offset, .end = n->end, .text = text };
        return 0;
}

const RcNode *editor_root(const RcEditor *e)
{
        return &e->doc.nodes[0];
}

const RcNode *editor_member(const RcEditor *e, const RcNode *obj, const char *name)
{
        return obj && obj->type == RC_NODE_OBJECT ? rc_node_member(&e->doc, obj, name, NULL) : NULL;
}

const RcNode *editor_nth_child(const RcEditor *e, const RcNode *c, size_t k)
{
        const RcNode *n = rc_node_first_child(&e->doc, c);

        for (; n && k > 0; k--)
                n = rc_node_next(&e->doc, n);
        return n;
}

/* The elements of container c, one unit each. */
int editor_units_of(const RcEditor *e, const RcNode *c, RcEditUnit **ret, size_t *ret_n)
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
char *editor_node_string(const RcEditor *e, const RcNode *n)
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

bool editor_node_string_equals(const RcEditor *e, const RcNode *n, const char *s)
{
        _cleanup_free_ char *v = editor_node_string(e, n);
        return v && streq(v, s);
}

const RcNode *editor_find_rule(const RcEditor *e, size_t index)
{
        return editor_nth_child(e, editor_member(e, editor_root(e), "rules"), index);
}

const RcNode *editor_find_profile(const RcEditor *e, const char *name)
{
        const RcNode *profiles = editor_member(e, editor_root(e), "profiles");

        for (const RcNode *p = rc_node_first_child(&e->doc, profiles); p; p = rc_node_next(&e->doc, p))
                if (editor_node_string_equals(e, editor_member(e, p, "name"), name))
                        return p;
        return NULL;
}

/* The settings array the target edits; NULL for a rule that names its profile. */
const RcNode *editor_find_settings(const RcEditor *e, const RcEditTarget *t)
{
        const RcNode *holder;

        if (!t->rule)
                return editor_member(e, editor_find_profile(e, t->name), "settings");
        holder = editor_member(e, editor_find_rule(e, t->index), "profile");
        if (holder && holder->type == RC_NODE_ARRAY)
                return holder;
        return editor_member(e, holder, "settings");
}

/* Reads text as the file to edit: it must load, and is never edited otherwise. */
int editor_open(RcEditor *e, const char *text, size_t size, RcFile **ret_orig)
{
        _cleanup_(rc_file_unrefp) RcFile *orig = NULL;
        int r;

        e->text = text ? strndup(text, size) : strdup(NEW_FILE_HEADER "{\n}\n");
        if (!e->text)
                return -ENOMEM;
        e->size = text ? size : strlen(e->text);
        if (text && memchr(text, '\0', size))
                return editor_fail(e, -EBADMSG, NULL, "the file holds a NUL byte; it is not edited");

        r = rc_file_parse(e->path, e->text, e->size, NULL, &orig);
        if (r < 0)
                return r;
        if (orig->state != RC_FILE_LOADED) {
                r = rc_diagnostics_copy(e->diags, &orig->diagnostics);
                if (r < 0)
                        return r;
                return editor_fail(e, -EBADMSG, NULL, "the file does not load; it is not edited");
        }
        r = editor_reload(e);
        if (r < 0)
                return r;
        *ret_orig = TAKE_PTR(orig);
        return 0;
}
