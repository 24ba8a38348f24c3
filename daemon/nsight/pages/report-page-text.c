/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pieces ncu's text pages share (report-page-text.h). */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "report-page-text.h"
#include "string-util.h"

static void wrap_paragraph(const char *s, size_t n, size_t width, void (*line)(void *userdata, const char *p, size_t n),
                void *userdata)
{
        /* What is left keeps the space it was broken at: it counts towards the next line's width, and is
         * not shown (nor is a space the text starts with). */
        while (n > width) {
                size_t cut = 0;
                for (size_t i = width; i > 0; i--)
                        if (s[i - 1] == ' ') {
                                cut = i - 1;
                                break;
                        }
                if (cut == 0) {
                        /* No space to break at but a leading one: cut the word, the space shown. */
                        line(userdata, s, width);
                        s += width;
                        n -= width;
                        continue;
                }
                if (s[0] == ' ')
                        line(userdata, s + 1, cut - 1);
                else
                        line(userdata, s, cut);
                s += cut;
                n -= cut;
        }
        if (n > 0 && s[0] == ' ')
                line(userdata, s + 1, n - 1);
        else
                line(userdata, s, n);
}

void ncu_text_wrap(const char *s, size_t width, void (*line)(void *userdata, const char *p, size_t n), void *userdata)
{
        assert(s);
        assert(width > 0);

        for (;;) {
                const char *nl = strchr(s, '\n');
                size_t n = nl ? (size_t) (nl - s) : strlen(s);
                wrap_paragraph(s, n, width, line, userdata);
                if (!nl)
                        return;
                s = nl + 1;
        }
}

void ncu_text_table_init(NcuTextTable *t, size_t indent, const NcuTextColumn *columns, size_t n_columns)
{
        *t = (NcuTextTable){
                .indent = indent,
                .n_columns = n_columns,
                .columns = columns,
                .rule_above = true,
                .rule_below = true,
        };
}

void ncu_text_table_add(NcuTextTable *t, const char *const *cells)
{
        if (t->error < 0)
                return;
        if (t->n_rows == t->allocated) {
                size_t a = MAX(t->allocated * 2, (size_t) 16);
                char **p = reallocarray(t->cells, a * t->n_columns, sizeof(char *));
                if (!p) {
                        t->error = -ENOMEM;
                        return;
                }
                t->cells = p;
                t->allocated = a;
        }
        char **row = t->cells + t->n_rows * t->n_columns;
        for (size_t c = 0; c < t->n_columns; c++) {
                row[c] = strdup(cells[c] ? cells[c] : "");
                if (!row[c]) {
                        for (size_t k = 0; k < c; k++)
                                free(row[k]);
                        t->error = -ENOMEM;
                        return;
                }
        }
        t->n_rows++;
}

void ncu_text_table_done(NcuTextTable *t)
{
        for (size_t i = 0; i < t->n_rows * t->n_columns; i++)
                free(t->cells[i]);
        free(t->cells);
        *t = (NcuTextTable){ .cells = NULL };
}

/* A cell's lines when wrapped to its column. */
typedef struct CellLines {
        size_t n, allocated;
        const char **p;
        size_t *len;
        int error;
} CellLines;

static void collect_line(void *userdata, const char *p, size_t n)
{
        CellLines *l = userdata;

        if (l->error < 0)
                return;
        if (l->n == l->allocated) {
                size_t a = MAX(l->allocated * 2, (size_t) 4);
                const char **np = reallocarray(l->p, a, sizeof(char *));
                if (!np) {
                        l->error = -ENOMEM;
                        return;
                }
                l->p = np;
                size_t *nl = reallocarray(l->len, a, sizeof(size_t));
                if (!nl) {
                        l->error = -ENOMEM;
                        return;
                }
                l->len = nl;
                l->allocated = a;
        }
        l->p[l->n] = p;
        l->len[l->n] = n;
        l->n++;
}

static void cell_lines(const NcuTextColumn *col, const char *s, CellLines *ret)
{
        *ret = (CellLines){ .n = 0 };
        if (col->max_width > 0 && strlen(s) > col->max_width)
                ncu_text_wrap(s, col->max_width, collect_line, ret);
        else
                collect_line(ret, s, strlen(s));
}

static void cell_lines_done(CellLines *l)
{
        free(l->p);
        free(l->len);
}

static size_t column_width(const NcuTextTable *t, size_t c)
{
        size_t w = MAX(strlen(t->columns[c].name), t->columns[c].min_width);

        for (size_t r = 0; r < t->n_rows; r++) {
                const char *s = t->cells[r * t->n_columns + c];
                size_t n = strlen(s);
                /* A cell that wraps makes its column as wide as it may be. */
                if (t->columns[c].max_width > 0 && n > t->columns[c].max_width)
                        n = t->columns[c].max_width;
                w = MAX(w, n);
        }
        return w;
}

static void print_padded(FILE *f, const char *s, size_t n, size_t width, NcuTextAlign align)
{
        if (align == NCU_TEXT_RIGHT)
                fprintf(f, "%*s%.*s", (int) (width > n ? width - n : 0), "", (int) n, s);
        else
                fprintf(f, "%.*s%*s", (int) n, s, (int) (width > n ? width - n : 0), "");
}

static void print_rule(FILE *f, const NcuTextTable *t, const size_t *widths)
{
        fprintf(f, "%*s", (int) t->indent, "");
        for (size_t c = 0; c < t->n_columns; c++) {
                if (c > 0)
                        fputc(' ', f);
                for (size_t i = 0; i < widths[c]; i++)
                        fputc('-', f);
        }
        fputc('\n', f);
}

int ncu_text_table_print(const NcuTextTable *t, FILE *f)
{
        _cleanup_free_ size_t *widths = NULL;
        _cleanup_free_ CellLines *lines = NULL;
        int r = t->error;

        if (r < 0)
                return r;
        widths = calloc(t->n_columns, sizeof(size_t));
        lines = calloc(t->n_columns, sizeof(CellLines));
        if (!widths || !lines)
                return -ENOMEM;
        for (size_t c = 0; c < t->n_columns; c++)
                widths[c] = column_width(t, c);

        if (t->rule_above)
                print_rule(f, t, widths);
        fprintf(f, "%*s", (int) t->indent, "");
        for (size_t c = 0; c < t->n_columns; c++) {
                if (c > 0)
                        fputc(' ', f);
                print_padded(f, t->columns[c].name, strlen(t->columns[c].name), widths[c], t->columns[c].align);
        }
        fputc('\n', f);
        print_rule(f, t, widths);

        for (size_t row = 0; row < t->n_rows && r >= 0; row++) {
                size_t height = 0;
                for (size_t c = 0; c < t->n_columns; c++) {
                        cell_lines(&t->columns[c], t->cells[row * t->n_columns + c], &lines[c]);
                        if (lines[c].error < 0)
                                r = lines[c].error;
                        height = MAX(height, lines[c].n);
                }
                for (size_t i = 0; i < height && r >= 0; i++) {
                        fprintf(f, "%*s", (int) t->indent, "");
                        for (size_t c = 0; c < t->n_columns; c++) {
                                if (c > 0)
                                        fputc(' ', f);
                                if (i < lines[c].n)
                                        print_padded(f, lines[c].p[i], lines[c].len[i], widths[c], t->columns[c].align);
                                else
                                        print_padded(f, "", 0, widths[c], t->columns[c].align);
                        }
                        fputc('\n', f);
                }
                for (size_t c = 0; c < t->n_columns; c++)
                        cell_lines_done(&lines[c]);
        }
        if (t->rule_below)
                print_rule(f, t, widths);
        return r;
}

void ncu_text_print_process(FILE *f, const NcuAction *a)
{
        fprintf(f, "[%" PRIu32 "] %s@%s\n", a->process.process_id, strempty(a->process.base_name),
                        strempty(a->process.hostname));
}

bool ncu_text_process_differs(const NcuAction *a, const NcuAction *b)
{
        return a->process.process_id != b->process.process_id ||
                        !streq(strempty(a->process.process_name), strempty(b->process.process_name)) ||
                        !streq(strempty(a->process.hostname), strempty(b->process.hostname));
}

void ncu_action_device_text(const NcuAction *a, char buf[static 24])
{
        const NcuMetric *m = ncu_action_metric_by_name(a, "launch__device_id");
        uint64_t u;

        /* The device ncu launched on, as the action's metrics record it. */
        if (m && m->has_value && ncu_value_as_uint64(&m->value, &u))
                snprintf(buf, 24, "%" PRIu64, u);
        else if (a->device_index >= 0)
                snprintf(buf, 24, "%d", a->device_index);
        else
                buf[0] = 0;
}

void ncu_action_cc_text(const NcuAction *a, char buf[static 48])
{
        const NcuMetric *major = ncu_action_metric_by_name(a, "device__attribute_compute_capability_major"),
                        *minor = ncu_action_metric_by_name(a, "device__attribute_compute_capability_minor");
        uint64_t ma, mi;

        if (major && minor && major->has_value && minor->has_value && ncu_value_as_uint64(&major->value, &ma) &&
                        ncu_value_as_uint64(&minor->value, &mi))
                snprintf(buf, 48, "%" PRIu64 ".%" PRIu64, ma, mi);
        else
                buf[0] = 0;
}

void ncu_text_print_launch(FILE *f, const NcuAction *a)
{
        fprintf(f, "%s (%" PRIu64 ", %" PRIu64 ", %" PRIu64 ")x(%" PRIu64 ", %" PRIu64 ", %" PRIu64 ")",
                        strempty(ncu_action_name(a, NCU_NAME_DEMANGLED)), a->grid_size.x, a->grid_size.y,
                        a->grid_size.z, a->block_size.x, a->block_size.y, a->block_size.z);
}

void ncu_text_print_action(FILE *f, const NcuAction *a)
{
        char device[24], cc[48];

        ncu_action_device_text(a, device);
        ncu_action_cc_text(a, cc);
        fputs("  ", f);
        ncu_text_print_launch(f, a);
        if (a->has_context_id)
                fprintf(f, ", Context %" PRIu32, a->context_id);
        if (a->has_stream_id)
                fprintf(f, ", Stream %" PRIu32, a->stream_id);
        fprintf(f, ", Device %s, CC %s\n", device, cc);
}
