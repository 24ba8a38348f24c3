/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "string-util.h"
#include "table.h"

struct Table {
        const TableColumn *columns;
        size_t n_columns;
        char *(*escape)(const char *s);
        char **cells;
        size_t n_cells, allocated;
};

Table *table_new(const TableColumn *columns, size_t n_columns, char *(*escape)(const char *s))
{
        Table *t;

        assert(columns);
        assert(n_columns > 0 && n_columns <= TABLE_COLUMNS_MAX);
        t = calloc(1, sizeof(Table));
        if (!t)
                return NULL;
        t->columns = columns;
        t->n_columns = n_columns;
        t->escape = escape;
        return t;
}

Table *table_free(Table *t)
{
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_cells; i++)
                free(t->cells[i]);
        free(t->cells);
        free(t);
        return NULL;
}

static int table_add_owned(Table *t, char *cell)
{
        if (!cell)
                return -ENOMEM;
        if (t->n_cells == t->allocated) {
                size_t n = MAX(t->allocated * 2, (size_t) 16);
                char **cells = reallocarray(t->cells, n, sizeof(char *));
                if (!cells) {
                        free(cell);
                        return -ENOMEM;
                }
                t->cells = cells;
                t->allocated = n;
        }
        t->cells[t->n_cells++] = cell;
        return 0;
}

int table_add(Table *t, const char *cell)
{
        assert(t);
        cell = cell ? cell : "";
        return table_add_owned(t, t->escape ? t->escape(cell) : strdup(cell));
}

int table_addf(Table *t, const char *format, ...)
{
        _cleanup_free_ char *text = NULL;
        va_list ap;
        int r;

        assert(t);
        va_start(ap, format);
        r = vasprintf(&text, format, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        return table_add(t, text);
}

size_t table_rows(const Table *t)
{
        assert(t);
        return (t->n_cells + t->n_columns - 1) / t->n_columns;
}

/* Marks that join the character before them, and the East Asian wide and fullwidth blocks (with the emoji
 * blocks terminals show wide): the ranges that matter for names and paths, not all of Unicode's tables. */
static size_t code_point_width(uint32_t cp)
{
        static const uint32_t zero[][2] = {
                { 0x0300, 0x036f },
                { 0x1ab0, 0x1aff },
                { 0x1dc0, 0x1dff },
                { 0x200b, 0x200f },
                { 0x20d0, 0x20ff },
                { 0xfe00, 0xfe0f },
                { 0xfe20, 0xfe2f },
        };
        static const uint32_t wide[][2] = {
                { 0x1100, 0x115f },
                { 0x2e80, 0x303e },
                { 0x3041, 0x33ff },
                { 0x3400, 0x4dbf },
                { 0x4e00, 0x9fff },
                { 0xa000, 0xa4cf },
                { 0xac00, 0xd7a3 },
                { 0xf900, 0xfaff },
                { 0xfe30, 0xfe4f },
                { 0xff00, 0xff60 },
                { 0xffe0, 0xffe6 },
                { 0x1f300, 0x1f64f },
                { 0x1f900, 0x1f9ff },
                { 0x20000, 0x3fffd },
        };

        for (size_t i = 0; i < ELEMENTSOF(zero); i++)
                if (cp >= zero[i][0] && cp <= zero[i][1])
                        return 0;
        for (size_t i = 0; i < ELEMENTSOF(wide); i++)
                if (cp >= wide[i][0] && cp <= wide[i][1])
                        return 2;
        return 1;
}

/* The character at s (len bytes left): its length in bytes and its width. Invalid UTF-8: one byte, 1. */
static size_t next_char(const char *s, size_t len, size_t *ret_width)
{
        static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
        size_t n = utf8_sequence_length(s, len);
        uint32_t cp;

        if (n == 0) {
                *ret_width = 1;
                return 1;
        }
        cp = (unsigned char) s[0] & lead_mask[n];
        for (size_t i = 1; i < n; i++)
                cp = (cp << 6) | ((unsigned char) s[i] & 0x3f);
        *ret_width = code_point_width(cp);
        return n;
}

size_t table_text_width(const char *s)
{
        size_t len = strlen(s), width = 0;

        for (size_t i = 0, w; i < len; width += w)
                i += next_char(s + i, len - i, &w);
        return width;
}

/* The bytes of s (from its start) that fit in width columns, and their width. */
static size_t fitting_prefix(const char *s, size_t width, size_t *ret_width)
{
        size_t len = strlen(s), i = 0, used = 0;

        while (i < len) {
                size_t w, n = next_char(s + i, len - i, &w);
                if (used + w > width)
                        break;
                i += n;
                used += w;
        }
        *ret_width = used;
        return i;
}

static void pad(FILE *f, size_t n, char c)
{
        for (; n > 0; n--)
                fputc(c, f);
}

/* A cell's pieces, one per line: the whole text, or "..." and its end, or its next width columns. */
typedef struct CellCursor {
        const char *rest;
        bool cut;
} CellCursor;

static void cell_start(CellCursor *c, const TableColumn *col, size_t width, const char *s)
{
        c->rest = s;
        c->cut = false;
        if (col->cut_start && table_text_width(s) > width && width > 3) {
                size_t over = table_text_width(s) - (width - 3);
                while (over > 0 && *c->rest) {
                        size_t w;
                        c->rest += next_char(c->rest, strlen(c->rest), &w);
                        over = over > w ? over - w : 0;
                }
                c->cut = true;
        }
}

/* Writes the cell's next line padded to width; a left-aligned cell unpadded when pad is false. */
static void cell_line(FILE *f, CellCursor *c, const TableColumn *col, size_t width, bool pad_right)
{
        size_t used, n = fitting_prefix(c->rest, c->cut ? width - 3 : width, &used);

        /* A character wider than the column still moves the cell on: shown, past the edge. */
        if (n == 0 && !c->cut && *c->rest != '\0') {
                n = next_char(c->rest, strlen(c->rest), &used);
                used = MIN(used, width);
        }

        if (c->cut)
                used += 3;
        if (col->align == TABLE_RIGHT)
                pad(f, width - used, ' ');
        if (c->cut)
                fputs("...", f);
        fwrite(c->rest, 1, n, f);
        c->rest += n;
        c->cut = false;
        if (col->align == TABLE_LEFT && pad_right)
                pad(f, width - used, ' ');
}

static bool cell_done(const CellCursor *c)
{
        return !c->cut && *c->rest == '\0';
}

/* One row of cells (the headers, or a row of the table), wrapped onto as many lines as its cells need. */
static void row_print(FILE *f, const Table *t, const size_t *widths, char *const *cells, bool pad_last)
{
        CellCursor cursors[TABLE_COLUMNS_MAX];
        bool first = true;

        for (size_t c = 0; c < t->n_columns; c++)
                cell_start(&cursors[c], &t->columns[c], widths[c], cells[c]);
        for (;;) {
                bool more = first;

                for (size_t c = 0; c < t->n_columns; c++)
                        more = more || !cell_done(&cursors[c]);
                if (!more)
                        return;
                for (size_t c = 0; c < t->n_columns; c++) {
                        if (c > 0)
                                fputc(' ', f);
                        cell_line(f, &cursors[c], &t->columns[c], widths[c], pad_last || c + 1 < t->n_columns);
                }
                fputc('\n', f);
                first = false;
        }
}

static void rule_print(FILE *f, const Table *t, const size_t *widths)
{
        for (size_t c = 0; c < t->n_columns; c++) {
                if (c > 0)
                        fputc(' ', f);
                pad(f, widths[c], '-');
        }
        fputc('\n', f);
}

int table_print(const Table *t, FILE *f, TableFlags flags)
{
        size_t widths[TABLE_COLUMNS_MAX];
        const char *headers[TABLE_COLUMNS_MAX];
        bool rules = flags & TABLE_RULES;

        assert(t);
        assert(f);
        assert(t->n_cells % t->n_columns == 0);

        for (size_t c = 0; c < t->n_columns; c++) {
                headers[c] = t->columns[c].header ? t->columns[c].header : "";
                widths[c] = flags & TABLE_HEADER ? table_text_width(headers[c]) : 0;
                for (size_t i = c; i < t->n_cells; i += t->n_columns)
                        widths[c] = MAX(widths[c], table_text_width(t->cells[i]));
                if (t->columns[c].max_width > 0)
                        widths[c] = MIN(widths[c], t->columns[c].max_width);
        }

        if (flags & TABLE_HEADER) {
                if (rules)
                        rule_print(f, t, widths);
                /* A header is one line: cut, never wrapped. */
                for (size_t c = 0; c < t->n_columns; c++) {
                        CellCursor cursor = { headers[c], false };
                        if (c > 0)
                                fputc(' ', f);
                        cell_line(f, &cursor, &t->columns[c], widths[c], rules || c + 1 < t->n_columns);
                }
                fputc('\n', f);
                if (rules)
                        rule_print(f, t, widths);
        }
        for (size_t i = 0; i < t->n_cells; i += t->n_columns)
                row_print(f, t, widths, (char *const *) t->cells + i, rules);
        return ferror(f) ? -EIO : 0;
}
