/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Inserting and removing one element of an rc container by splicing the original text: the element's
 * siblings decide whether it goes on a line of its own (with their indentation) or inline after ", ";
 * a removed element takes its comma with it, and its lines when it filled them. Comments on other lines
 * are never part of a splice. */

#include <stdarg.h>
#include <stdio.h>

#include "rc-edit-layout.h"
#include "string-util.h"

void rc_edit_splices_done(RcEditSplices *s)
{
        for (size_t i = 0; i < s->n; i++)
                s->items[i].text = mfree(s->items[i].text);
        s->n = 0;
}

static int splice_add(RcEditSplices *s, size_t start, size_t end, char *text)
{
        assert(s->n < RC_EDIT_SPLICES_MAX);
        assert(start <= end);
        if (!text && start == end)
                return 0;
        s->items[s->n++] = (RcEditSplice){ .start = start, .end = end, .text = text };
        return 0;
}

/* Like splice_add() with a formatted text; takes nothing on failure. */
static int splice_addf(RcEditSplices *s, size_t start, size_t end, const char *fmt, ...) _printf_(4, 5);
static int splice_addf(RcEditSplices *s, size_t start, size_t end, const char *fmt, ...)
{
        char *text;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&text, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        return splice_add(s, start, end, text);
}

size_t rc_edit_node_start(const RcNode *n)
{
        /* The member name's opening quote comes just before its raw text. */
        return n->has_key ? n->key_offset - 1 : n->offset;
}

static size_t line_start(const RcEditLayout *l, size_t pos)
{
        while (pos > 0 && l->text[pos - 1] != '\n')
                pos--;
        return pos;
}

/* The position of the '\n' ending pos's line (size if none), before a '\r' there. */
static size_t line_content_end(const RcEditLayout *l, size_t pos)
{
        const char *nl = memchr(l->text + pos, '\n', l->size - pos);
        size_t end = nl ? (size_t) (nl - l->text) : l->size;

        if (end > pos && l->text[end - 1] == '\r')
                end--;
        return end;
}

/* Just after the line break ending pos's line, or size. */
static size_t next_line_start(const RcEditLayout *l, size_t pos)
{
        const char *nl = memchr(l->text + pos, '\n', l->size - pos);
        return nl ? (size_t) (nl - l->text) + 1 : l->size;
}

static size_t skip_blanks(const RcEditLayout *l, size_t pos)
{
        while (pos < l->size && (l->text[pos] == ' ' || l->text[pos] == '\t'))
                pos++;
        return pos;
}

static bool at_line_end(const RcEditLayout *l, size_t pos)
{
        return pos >= l->size || l->text[pos] == '\n' ||
                        (l->text[pos] == '\r' && pos + 1 < l->size && l->text[pos + 1] == '\n');
}

bool rc_edit_first_on_line(const RcEditLayout *l, size_t pos)
{
        return skip_blanks(l, line_start(l, pos)) == pos;
}

char *rc_edit_indent_at(const RcEditLayout *l, size_t pos)
{
        size_t start = line_start(l, pos);
        return strndup(l->text + start, skip_blanks(l, start) - start);
}

static bool has_comment(const RcEditLayout *l, size_t start, size_t end)
{
        /* Only called on text between two values, where no string can hide a '#'. */
        return memchr(l->text + start, '#', end - start) != NULL;
}

/* The ',' after a value that ends at pos: only whitespace and comments lie between (the reader checked). */
static size_t comma_after(const RcEditLayout *l, size_t pos)
{
        while (pos < l->size && l->text[pos] != ',') {
                if (l->text[pos] == '#')
                        pos = line_content_end(l, pos);
                else
                        pos++;
        }
        assert(pos < l->size);
        return pos;
}

/* If unit u fills its lines (nothing but blanks before it, and after it only blanks and, with
 * own_comma, its comma), where its last line ends (after the line break); else 0. */
static size_t whole_lines_end(const RcEditLayout *l, const RcEditUnit *u, bool own_comma)
{
        size_t p;

        if (!rc_edit_first_on_line(l, u->start))
                return 0;
        p = skip_blanks(l, u->end);
        if (own_comma && p < l->size && l->text[p] == ',')
                p = skip_blanks(l, p + 1);
        if (!at_line_end(l, p))
                return 0;
        return next_line_start(l, p);
}

int rc_edit_insert_unit(const RcEditLayout *l, const RcNode *c, const RcEditUnit *units, size_t n, size_t k,
                const char *elem, RcEditSplices *ret)
{
        _cleanup_free_ char *indent = NULL;

        assert(k <= n);
        assert(c->type != RC_NODE_SCALAR);

        if (n == 0) {
                size_t open = c->offset, close = c->end - 1;

                indent = rc_edit_indent_at(l, open);
                if (!indent)
                        return -ENOMEM;
                if (memchr(l->text + open, '\n', close - open))
                        /* Already spread over lines: the element goes on the first, one level in. */
                        return splice_addf(ret, open + 1, open + 1, "%s%s%s%s", l->nl, indent, l->unit, elem);
                if (rc_edit_first_on_line(l, rc_edit_node_start(c)))
                        return splice_addf(ret, open + 1, close, "%s%s%s%s%s%s", l->nl, indent, l->unit, elem, l->nl,
                                        indent);
                return splice_addf(ret, open + 1, close, "%s", elem);
        }

        if (k == n) {
                const RcEditUnit *u = &units[n - 1];
                size_t p;

                if (!rc_edit_first_on_line(l, u->start))
                        return splice_addf(ret, u->end, u->end, ", %s", elem);
                indent = rc_edit_indent_at(l, u->start);
                if (!indent)
                        return -ENOMEM;
                p = skip_blanks(l, u->end);
                if (p < l->size && l->text[p] == '#') {
                        /* A comment after the last element stays on its line, behind the new comma. */
                        size_t end = line_content_end(l, p);
                        return splice_addf(ret, u->end, end, ",%.*s%s%s%s", (int) (end - u->end), l->text + u->end,
                                        l->nl, indent, elem);
                }
                return splice_addf(ret, u->end, u->end, ",%s%s%s", l->nl, indent, elem);
        }

        if (!rc_edit_first_on_line(l, units[k].start))
                return splice_addf(ret, units[k].start, units[k].start, "%s, ", elem);
        indent = rc_edit_indent_at(l, units[k].start);
        if (!indent)
                return -ENOMEM;
        return splice_addf(ret, units[k].start, units[k].start, "%s,%s%s", elem, l->nl, indent);
}

int rc_edit_remove_unit(
                const RcEditLayout *l, const RcNode *c, const RcEditUnit *units, size_t n, size_t k, RcEditSplices *ret)
{
        const RcEditUnit *u = &units[k];
        size_t end, comma;
        int r;

        assert(k < n);
        assert(c->type != RC_NODE_SCALAR);

        if (n == 1) {
                end = whole_lines_end(l, u, false);
                if (end > 0)
                        return splice_add(ret, line_start(l, u->start), end, NULL);
                return splice_add(ret, u->start, u->end, NULL);
        }

        if (k < n - 1) {
                const RcEditUnit *next = &units[k + 1];

                end = whole_lines_end(l, u, true);
                if (end > 0)
                        return splice_add(ret, line_start(l, u->start), end, NULL);
                if (!has_comment(l, u->end, next->start))
                        return splice_add(ret, u->start, next->start, NULL);
                comma = comma_after(l, u->end);
                return splice_add(ret, u->start, skip_blanks(l, comma + 1), NULL);
        }

        /* The last element: the comma to remove is the one after the element before it. */
        comma = comma_after(l, units[k - 1].end);
        end = whole_lines_end(l, u, false);
        if (end > 0) {
                r = splice_add(ret, comma, comma + 1, NULL);
                if (r < 0)
                        return r;
                return splice_add(ret, line_start(l, u->start), end, NULL);
        }
        if (!has_comment(l, units[k - 1].end, u->start))
                return splice_add(ret, units[k - 1].end, u->end, NULL);
        r = splice_add(ret, comma, comma + 1, NULL);
        if (r < 0)
                return r;
        return splice_add(ret, u->start, u->end, NULL);
}

int rc_edit_splices_apply(const char *text, size_t size, const RcEditSplices *s, char **ret, size_t *ret_size)
{
        const RcEditSplice *order[RC_EDIT_SPLICES_MAX];
        size_t total = size, pos = 0, n = 0;
        char *out;

        for (size_t i = 0; i < s->n; i++)
                order[i] = &s->items[i];
        if (s->n == 2 && order[0]->start > order[1]->start) {
                const RcEditSplice *t = order[0];
                order[0] = order[1];
                order[1] = t;
        }
        for (size_t i = 0; i < s->n; i++) {
                assert(order[i]->end <= size);
                assert(i == 0 || order[i]->start >= order[i - 1]->end);
                total = total - (order[i]->end - order[i]->start) + (order[i]->text ? strlen(order[i]->text) : 0);
        }

        out = malloc(total + 1);
        if (!out)
                return -ENOMEM;
        for (size_t i = 0; i < s->n; i++) {
                size_t len = order[i]->text ? strlen(order[i]->text) : 0;

                memcpy(out + n, text + pos, order[i]->start - pos);
                n += order[i]->start - pos;
                if (len > 0)
                        memcpy(out + n, order[i]->text, len);
                n += len;
                pos = order[i]->end;
        }
        if (size > pos)
                memcpy(out + n, text + pos, size - pos);
        n += size - pos;
        assert(n == total);
        out[n] = '\0';
        *ret = out;
        *ret_size = n;
        return 0;
}

static size_t count_byte(const char *s, size_t len, char c)
{
        size_t n = 0;

        for (size_t i = 0; i < len; i++)
                n += s[i] == c;
        return n;
}

int rc_edit_layout_init(RcEditLayout *l, const RcDocument *doc)
{
        const char *nl = memchr(doc->text, '\n', doc->size);
        const RcNode *first = doc->n_nodes > 0 ? rc_node_first_child(doc, &doc->nodes[0]) : NULL;

        *l = (RcEditLayout){
                .text = doc->text,
                .size = doc->size,
                .nl = nl && nl > doc->text && nl[-1] == '\r' ? "\r\n" : "\n",
        };

        /* The root's members give one level of indentation, if they sit on lines of their own. */
        if (first && rc_edit_first_on_line(l, rc_edit_node_start(first)) &&
                        rc_edit_node_start(first) > line_start(l, rc_edit_node_start(first))) {
                _cleanup_free_ char *root = rc_edit_indent_at(l, doc->nodes[0].offset);
                _cleanup_free_ char *child = rc_edit_indent_at(l, rc_edit_node_start(first));

                if (!root || !child)
                        return -ENOMEM;
                /* The part of the members' indentation beyond the root's own. */
                l->unit = strdup(
                                startswith(child, root) && strlen(child) > strlen(root) ? child + strlen(root) : child);
        } else
                l->unit = strdup("    ");
        if (!l->unit)
                return -ENOMEM;

        /* The first member whose ':' sits on the line of its name gives the spacing around ':'. */
        for (size_t i = 0; i < doc->n_nodes && !l->colon; i++) {
                const RcNode *m = &doc->nodes[i];
                size_t from = (size_t) m->key_offset + m->key_length + 1, len;

                if (!m->has_key || m->offset < from)
                        continue;
                len = m->offset - from;
                if (len == 0 || len > 8 || strspn(doc->text + from, " \t:") < len ||
                                count_byte(doc->text + from, len, ':') != 1)
                        continue;
                l->colon = strndup(doc->text + from, len);
                if (!l->colon)
                        return -ENOMEM;
        }
        if (!l->colon)
                l->colon = strdup(": ");
        return l->colon ? 0 : -ENOMEM;
}

void rc_edit_layout_done(RcEditLayout *l)
{
        l->unit = mfree((char *) l->unit);
        l->colon = mfree((char *) l->colon);
}
