/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ncu's per-kernel summary (ncu --import R --print-summary per-kernel): the actions grouped by kernel and
 * launch (name, grid, block, device), groups sorted by name then launch; per group its launch line with the
 * number of invocations, then the header tables of its first action's sections (report-details-walk.h),
 * sections sorted by name, each numeric metric's minimum, maximum and average over the group's actions with
 * two decimals (a metric whose value is text is left out; rule results are not shown). A note on what the
 * averages mean closes the page. As CSV (no byte oracle: ncu 2024.1.1's own is not in the corpus) one row per
 * group and metric. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "report-csv-write.h"
#include "report-csv.h"
#include "report-page-text.h"
#include "report-page.h"
#include "string-util.h"

#define NOTE_WIDTH 115

static const char note[] =
                "Note: The shown averages are calculated as the arithmetic mean of the metric values after the evaluation "
                "of the metrics for each individual kernel launch.\n"
                "If aggregating across varying launch configurations (like shared memory, cache config settings), the "
                "arithmetic mean can be misleading and looking at the individual results is recommended instead.\n"
                "This output mode is backwards compatible to the per-kernel summary output of nvprof";

typedef struct Group {
        const NcuAction **actions;
        size_t n_actions;
} Group;

typedef struct SummaryRow {
        char *label, *name, *section_unit;
} SummaryRow;

typedef struct SummarySection {
        char *name;
        size_t order; /* walk order, for a stable sort */
        SummaryRow *rows;
        size_t n_rows;
} SummarySection;

typedef struct Collect {
        SummarySection *sections;
        size_t n_sections, allocated;
        bool unknown_arch;
        int error;
} Collect;

static int compare_u3(const NcuUint3 *a, const NcuUint3 *b)
{
        if (a->x != b->x)
                return a->x < b->x ? -1 : 1;
        if (a->y != b->y)
                return a->y < b->y ? -1 : 1;
        if (a->z != b->z)
                return a->z < b->z ? -1 : 1;
        return 0;
}

static int compare_launch(const NcuAction *a, const NcuAction *b)
{
        char da[24], db[24];
        int c = strcmp(strempty(ncu_action_name(a, NCU_NAME_DEMANGLED)),
                        strempty(ncu_action_name(b, NCU_NAME_DEMANGLED)));

        if (c == 0)
                c = compare_u3(&a->grid_size, &b->grid_size);
        if (c == 0)
                c = compare_u3(&a->block_size, &b->block_size);
        if (c == 0) {
                ncu_action_device_text(a, da);
                ncu_action_device_text(b, db);
                c = strcmp(da, db);
        }
        return c;
}

static int compare_actions(const void *x, const void *y)
{
        const NcuAction *a = *(const NcuAction *const *) x, *b = *(const NcuAction *const *) y;
        int c = compare_launch(a, b);

        if (c != 0)
                return c;
        return a->index < b->index ? -1 : a->index > b->index;
}

static void on_unknown_arch(void *userdata)
{
        Collect *c = userdata;

        c->unknown_arch = true;
}

static void on_section_begin(void *userdata, const char *name, const char *identifier)
{
        Collect *c = userdata;

        if (c->error < 0)
                return;
        if (c->n_sections == c->allocated) {
                size_t a = MAX(c->allocated * 2, (size_t) 16);
                SummarySection *p = reallocarray(c->sections, a, sizeof(SummarySection));
                if (!p) {
                        c->error = -ENOMEM;
                        return;
                }
                c->sections = p;
                c->allocated = a;
        }
        c->sections[c->n_sections] = (SummarySection){ .name = strdup(strempty(name)), .order = c->n_sections };
        if (!c->sections[c->n_sections].name) {
                c->error = -ENOMEM;
                return;
        }
        c->n_sections++;
}

static void on_table(void *userdata, const NcuDetailsTable *t)
{
        Collect *c = userdata;
        SummarySection *s;
        SummaryRow *rows;

        if (c->error < 0 || c->n_sections == 0 || t->n_rows == 0)
                return;
        s = &c->sections[c->n_sections - 1];
        rows = reallocarray(s->rows, s->n_rows + t->n_rows, sizeof(SummaryRow));
        if (!rows) {
                c->error = -ENOMEM;
                return;
        }
        s->rows = rows;
        for (size_t i = 0; i < t->n_rows; i++) {
                SummaryRow *r = &s->rows[s->n_rows];
                *r = (SummaryRow){
                        .label = strdup(strempty(t->rows[i].label)),
                        .name = strdup(strempty(t->rows[i].name)),
                        .section_unit = t->rows[i].section_unit ? strdup(t->rows[i].section_unit) : NULL,
                };
                s->n_rows++;
                if (!r->label || !r->name || (t->rows[i].section_unit && !r->section_unit))
                        c->error = -ENOMEM;
        }
}

static const NcuDetailsSink collect_sink = {
        .unknown_arch = on_unknown_arch,
        .section_begin = on_section_begin,
        .table = on_table,
};

static void collect_done(Collect *c)
{
        for (size_t i = 0; i < c->n_sections; i++) {
                for (size_t j = 0; j < c->sections[i].n_rows; j++) {
                        free(c->sections[i].rows[j].label);
                        free(c->sections[i].rows[j].name);
                        free(c->sections[i].rows[j].section_unit);
                }
                free(c->sections[i].rows);
                free(c->sections[i].name);
        }
        free(c->sections);
        *c = (Collect){ .sections = NULL };
}

static int compare_sections(const void *a, const void *b)
{
        const SummarySection *x = a, *y = b;
        int c = strcmp(x->name, y->name);

        if (c != 0)
                return c;
        return x->order < y->order ? -1 : x->order > y->order;
}

/* A group's first action walked at header level: its sections' header rows, sections sorted by name. */
static int collect_group(const Group *g, Collect *ret)
{
        NcuReport one = { .n_actions = 1, .actions = (NcuAction *const *) g->actions };
        int r;

        *ret = (Collect){ .sections = NULL };
        r = ncu_details_walk(&one, NCU_PRINT_DETAILS_HEADER, &collect_sink, ret);
        if (r >= 0)
                r = ret->error;
        if (r < 0) {
                collect_done(ret);
                return r;
        }
        qsort_safe(ret->sections, ret->n_sections, sizeof(SummarySection), compare_sections);
        return 0;
}

typedef struct RowStats {
        char unit[METRIC_UNIT_MAX];
        double min, max, sum;
        size_t n;
        bool numeric;
} RowStats;

static void row_stats(const Group *g, const SummaryRow *row, NcuPrintUnits units, RowStats *ret)
{
        *ret = (RowStats){ .min = INFINITY, .max = -INFINITY };
        for (size_t i = 0; i < g->n_actions; i++) {
                const NcuMetric *m = ncu_action_metric_by_name(g->actions[i], row->name);
                double d;

                if (!m || !m->has_value || m->value.kind == NCU_VALUE_STRING || !ncu_value_as_double(&m->value, &d))
                        continue;
                if (ret->n == 0)
                        ncu_metric_base_unit(g->actions[i], m, row->section_unit, true, ret->unit);
                ret->min = MIN(ret->min, d);
                ret->max = MAX(ret->max, d);
                ret->sum += d;
                ret->n++;
        }
        ret->numeric = ret->n > 0;
        if (ret->numeric && units == NCU_PRINT_UNITS_DYNAMIC) {
                char unit[METRIC_UNIT_MAX];
                double factor = ncu_unit_scale(ret->unit, ret->sum / ret->n, unit);
                snprintf(ret->unit, sizeof(ret->unit), "%s", unit);
                ret->min /= factor;
                ret->max /= factor;
                ret->sum /= factor;
        }
}

static void format_2(double d, char buf[static NCU_CSV_NUMBER_MAX])
{
        if (isnan(d))
                snprintf(buf, NCU_CSV_NUMBER_MAX, "nan");
        else
                snprintf(buf, NCU_CSV_NUMBER_MAX, "%.2f", d == 0 ? 0 : d);
}

static const NcuTextColumn summary_columns[] = {
        { "Metric Name", NCU_TEXT_LEFT, 0, 0 },
        { "Metric Unit", NCU_TEXT_RIGHT, 0, 0 },
        { "Minimum", NCU_TEXT_RIGHT, 0, 0 },
        { "Maximum", NCU_TEXT_RIGHT, 0, 0 },
        { "Average", NCU_TEXT_RIGHT, 0, 0 },
};

static int print_group_text(const Group *g, const Collect *c, NcuPrintUnits units, FILE *f)
{
        const NcuAction *a = g->actions[0];
        char device[24], cc[48];
        int r = 0;

        ncu_action_device_text(a, device);
        ncu_action_cc_text(a, cc);
        fputs("  ", f);
        ncu_text_print_launch(f, a);
        fprintf(f, ", Device %s, CC %s, Invocations %zu\n", device, cc, g->n_actions);

        for (size_t s = 0; s < c->n_sections && r >= 0; s++) {
                const SummarySection *sec = &c->sections[s];
                NcuTextTable table;
                bool any = false;

                ncu_text_table_init(&table, 4, summary_columns, ELEMENTSOF(summary_columns));
                for (size_t i = 0; i < sec->n_rows; i++) {
                        char min[NCU_CSV_NUMBER_MAX], max[NCU_CSV_NUMBER_MAX], avg[NCU_CSV_NUMBER_MAX];
                        RowStats st;

                        row_stats(g, &sec->rows[i], units, &st);
                        if (!st.numeric)
                                continue;
                        format_2(st.min, min);
                        format_2(st.max, max);
                        format_2(st.sum / st.n, avg);
                        ncu_text_table_add(&table, (const char *const[]){ sec->rows[i].label, st.unit, min, max, avg });
                        any = true;
                }
                if (any) {
                        fprintf(f, "    Section: %s\n", sec->name);
                        r = ncu_text_table_print(&table, f);
                        fputc('\n', f);
                }
                ncu_text_table_done(&table);
        }
        return r;
}

/* The summary names a process as the first block naming its id has it (the session page's Processes). */
static void print_process(const NcuReport *r, const NcuAction *a, FILE *f)
{
        for (size_t i = 0; i < r->n_processes; i++)
                if (r->processes[i].process_id == a->process.process_id) {
                        fprintf(f, "[%" PRIu32 "] %s@%s\n", a->process.process_id, strempty(r->processes[i].base_name),
                                        strempty(r->processes[i].hostname));
                        return;
                }
        ncu_text_print_process(f, a);
}

static void print_note_line(void *userdata, const char *p, size_t n)
{
        fprintf(userdata, "  %-*.*s\n", NOTE_WIDTH, (int) n, p);
}

static void print_group_csv(const Group *g, const Collect *c, NcuPrintUnits units, FILE *f)
{
        const NcuAction *a = g->actions[0];
        char buf[NCU_CSV_NUMBER_MAX];

        for (size_t s = 0; s < c->n_sections; s++)
                for (size_t i = 0; i < c->sections[s].n_rows; i++) {
                        const SummaryRow *row = &c->sections[s].rows[i];
                        RowStats st;

                        row_stats(g, row, units, &st);
                        if (!st.numeric)
                                continue;
                        ncu_export_write_action_columns(f, a->index, a, false);
                        snprintf(buf, sizeof(buf), "%zu", g->n_actions);
                        ncu_csv_write_field(f, buf, false);
                        ncu_csv_write_field(f, c->sections[s].name, false);
                        ncu_csv_write_field(f, row->label, false);
                        ncu_csv_write_field(f, st.unit, false);
                        ncu_csv_write_field(f, ncu_csv_format_double(st.min, buf), false);
                        ncu_csv_write_field(f, ncu_csv_format_double(st.max, buf), false);
                        ncu_csv_write_field(f, ncu_csv_format_double(st.sum / st.n, buf), false);
                        fputc('\n', f);
                }
}

static void print_csv_names(FILE *f)
{
        static const char *const names[] = {
                "Invocations",
                "Section Name",
                "Metric Name",
                "Metric Unit",
                "Minimum",
                "Maximum",
                "Average",
        };

        ncu_export_write_action_column_names(f, false);
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                ncu_csv_write_field(f, names[i], false);
        fputc('\n', f);
}

int ncu_page_summary(const NcuReport *report, bool csv, NcuPrintUnits units, FILE *f)
{
        _cleanup_free_ const NcuAction **sorted = NULL;
        const NcuAction *previous = NULL;
        int r = 0;

        assert(report);
        assert(f);

        sorted = calloc(MAX(report->n_actions, (size_t) 1), sizeof(NcuAction *));
        if (!sorted)
                return -ENOMEM;
        for (size_t i = 0; i < report->n_actions; i++)
                sorted[i] = report->actions[i];
        qsort_safe(sorted, report->n_actions, sizeof(NcuAction *), compare_actions);

        if (csv)
                print_csv_names(f);
        for (size_t i = 0; i < report->n_actions && r >= 0;) {
                Group g = { .actions = sorted + i, .n_actions = 1 };
                Collect c;

                while (i + g.n_actions < report->n_actions && compare_launch(sorted[i], sorted[i + g.n_actions]) == 0)
                        g.n_actions++;
                i += g.n_actions;

                r = collect_group(&g, &c);
                if (r < 0)
                        break;
                if (c.unknown_arch)
                        fputs(NCU_UNKNOWN_ARCH_WARNING "\n", f);
                if (csv)
                        print_group_csv(&g, &c, units, f);
                else {
                        if (!previous || ncu_text_process_differs(previous, g.actions[0]))
                                print_process(report, g.actions[0], f);
                        previous = g.actions[0];
                        r = print_group_text(&g, &c, units, f);
                }
                collect_done(&c);
        }
        if (r >= 0 && !csv) {
                ncu_text_wrap(note, NOTE_WIDTH, print_note_line, f);
                fputc('\n', f);
        }
        if (r < 0)
                return r;
        if (fflush(f) != 0 || ferror(f))
                return -EIO;
        return 0;
}
