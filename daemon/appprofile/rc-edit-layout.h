/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-reader.h"

/* Internals of rc-edit.c: where elements of a container lie in the text, and the one or two splices
 * that insert or remove one of them in the layout of its siblings. */

/* One element of a container as the text holds it: a value, a member (from its name), or a key/value
 * pair of a flat settings array. */
typedef struct RcEditUnit {
        size_t start, end;
} RcEditUnit;

/* Replaces [start, end) of the text by text (NULL: deletes). */
typedef struct RcEditSplice {
        size_t start, end;
        char *text;
} RcEditSplice;

#define RC_EDIT_SPLICES_MAX 2u

typedef struct RcEditSplices {
        RcEditSplice items[RC_EDIT_SPLICES_MAX];
        size_t n;
} RcEditSplices;

void rc_edit_splices_done(RcEditSplices *s);

/* What the file's text looks like around an edit. */
typedef struct RcEditLayout {
        const char *text;
        size_t size;
        const char *nl; /* "\n" or "\r\n", as the file's first line ends */
        const char *unit; /* one level of indentation: what the file uses, else four spaces */
        const char *colon; /* between a member name and its value: ": " or " : " as the file writes it */
} RcEditLayout;

/* Detects the layout of doc's text. */
int rc_edit_layout_init(RcEditLayout *l, const RcDocument *doc);
void rc_edit_layout_done(RcEditLayout *l);

/* Where node starts: its member name for a member, else its value. */
size_t rc_edit_node_start(const RcNode *n);

/* The indentation of the line holding pos, copied. */
char *rc_edit_indent_at(const RcEditLayout *l, size_t pos);

/* Whether only spaces and tabs precede pos on its line. */
bool rc_edit_first_on_line(const RcEditLayout *l, size_t pos);

/* Inserts elem as unit k of the n units of container c. */
int rc_edit_insert_unit(const RcEditLayout *l, const RcNode *c, const RcEditUnit *units, size_t n, size_t k,
                const char *elem, RcEditSplices *ret);

/* Removes unit k of the n units of container c, with its comma, and with its line when it fills it. */
int rc_edit_remove_unit(const RcEditLayout *l, const RcNode *c, const RcEditUnit *units, size_t n, size_t k,
                RcEditSplices *ret);

/* Applies the splices (sorted, not overlapping) to text, giving a new NUL-terminated text. */
int rc_edit_splices_apply(const char *text, size_t size, const RcEditSplices *s, char **ret, size_t *ret_size);
