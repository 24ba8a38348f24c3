/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ncu's details page as text (ncu --import R [--page details] [--print-details …] [--print-units …]): per
 * process a "[PID] NAME@HOST" line, per action its launch line and what ncu knows of its launch (clock
 * control, CPU call stack, NVTX ranges), then the walk of report-details-walk.h: a "Section:" line for every
 * section that shows something, its tables (a body's name and the item's "Table Name :" above them), and its
 * rule messages, each wrapped to 110 columns behind its type, separated by a dashed rule. */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "report-details-walk.h"
#include "report-csv-cells.h"
#include "report-page-nvtx.h"
#include "report-page-stack.h"
#include "report-page-text.h"
#include "report-page-units.h"
#include "report-page.h"
#include "string-util.h"

/* A rule message: "    TYP   " and 110 columns of text, padded. */
#define RULE_INDENT 10
#define RULE_WIDTH 110
/* Metric values longer than this wrap within their column. */
#define VALUE_WIDTH_MAX 30

typedef struct TextDetails {
        FILE *f;
        NcuPrintUnits units;
        NcuPrintInstances instances;
        const NcuAction *action, *previous;
        const char *section;
        const char *body; /* a body's name, printed with its first table */
        bool section_shown;
        size_t rule_messages; /* printed in this section */
        Cell cell;
        int error;
} TextDetails;

static const NcuTextColumn metric_columns[] = {
        { "Metric Name", NCU_TEXT_LEFT, 0, 0 },
        { "Metric Unit", NCU_TEXT_RIGHT, 0, 0 },
        { "Metric Value", NCU_TEXT_RIGHT, VALUE_WIDTH_MAX, 0 },
};

static void show_section(TextDetails *t)
{
        if (t->section_shown)
                return;
        t->section_shown = true;
        fprintf(t->f, "    Section: %s\n", strempty(t->section));
}

static void show_body(TextDetails *t)
{
        show_section(t);
        if (t->body)
                fprintf(t->f, "    %s\n", t->body);
        t->body = NULL;
}

void ncu_page_print_action_intro(FILE *f, const NcuAction *a, bool clock_warning)
{
        /* ncu locks the clocks to their base while it profiles, unless told not to: the details page says
         * when it was told. */
        if (clock_warning && a->has_clock_status && !a->clock_requested_lock)
                fputs("    Warning: Data collection happened without fixed GPU frequencies. Profiling results may be "
                      "inconsistent.\n",
                                f);
        ncu_stack_print_text(f, a);
        ncu_nvtx_print_text(f, a);
}

static void on_action_begin(void *userdata, size_t id, const NcuAction *a)
{
        TextDetails *t = userdata;

        if (!t->previous || ncu_text_process_differs(t->previous, a))
                ncu_text_print_process(t->f, a);
        t->previous = t->action = a;
        ncu_text_print_action(t->f, a);
        ncu_page_print_action_intro(t->f, a, true);
}

static void on_unknown_arch(void *userdata)
{
        TextDetails *t = userdata;

        fputs(NCU_UNKNOWN_ARCH_WARNING "\n", t->f);
}

static void on_section_begin(void *userdata, const char *name, const char *identifier)
{
        TextDetails *t = userdata;

        t->section = name;
        t->section_shown = false;
        t->body = NULL;
        t->rule_messages = 0;
}

static void on_body_begin(void *userdata, const char *display_name)
{
        TextDetails *t = userdata;

        t->body = display_name;
}

void ncu_page_metric_cells(const NcuAction *a, const NcuDetailsRow *row, NcuPrintUnits units,
                NcuPrintInstances instances, bool details_guess, Cell *c, char ret_unit[static METRIC_UNIT_MAX])
{
        const NcuMetric *m = row->metric;
        NcuPrintInstances shown_instances = row->instances ? MAX(instances, NCU_PRINT_INSTANCES_VALUES) : instances;
        NcuShownValue shown;

        ret_unit[0] = 0;
        cell_reset(c);
        if (!m) {
                cell_puts(c, "(!) n/a"); /* the text pages flag what is missing */
                return;
        }
        ncu_metric_base_unit(a, m, row->section_unit, details_guess, ret_unit);
        if (!m->has_value) {
                ncu_cell_format_metric(c, m, shown_instances, NULL, NULL, NULL);
                return;
        }
        ncu_shown_value(&m->value, ret_unit, units, &shown);
        snprintf(ret_unit, METRIC_UNIT_MAX, "%s", shown.unit);
        if (shown.nan)
                snprintf(shown.text, sizeof(shown.text), "(!) nan");
        ncu_cell_format_metric(c, m, shown_instances, shown.text, ncu_cell_format_scaled, &shown.divisor);
}

static void on_table(void *userdata, const NcuDetailsTable *tab)
{
        TextDetails *t = userdata;
        NcuTextTable table;
        int r;

        if (tab->n_rows == 0)
                return;
        show_body(t);
        for (size_t i = 0; i < tab->n_headings; i++)
                fprintf(t->f, "    %s\n", tab->headings[i]);

        ncu_text_table_init(&table, 4, metric_columns, ELEMENTSOF(metric_columns));
        for (size_t i = 0; i < tab->n_rows; i++) {
                char unit[METRIC_UNIT_MAX];
                ncu_page_metric_cells(t->action, &tab->rows[i], t->units, t->instances, true, &t->cell, unit);
                ncu_text_table_add(&table, (const char *const[]){ tab->rows[i].label, unit, strempty(t->cell.data) });
        }
        r = ncu_text_table_print(&table, t->f);
        ncu_text_table_done(&table);
        if (r < 0)
                t->error = r;
        fputc('\n', t->f);
}

static void on_grid(void *userdata, const NcuDetailsGrid *g)
{
        TextDetails *t = userdata;
        _cleanup_free_ NcuTextColumn *columns = NULL;
        NcuTextTable table;
        int r;

        columns = calloc(MAX(g->n_columns, (size_t) 1), sizeof(NcuTextColumn));
        if (!columns) {
                t->error = -ENOMEM;
                return;
        }
        for (size_t i = 0; i < g->n_columns; i++)
                columns[i] = (NcuTextColumn){ g->columns[i],
                        g->left_aligned && g->left_aligned[i] ? NCU_TEXT_LEFT : NCU_TEXT_RIGHT, 0, 0 };
        /* Its title stands for the body's name, unless it is one of the body's pictures. */
        if (!g->under_body_name)
                t->body = NULL;
        show_body(t);
        if (g->label)
                fprintf(t->f, "    Table Name : %s\n", g->label);
        ncu_text_table_init(&table, 4, columns, g->n_columns);
        for (size_t i = 0; i < g->n_rows; i++)
                ncu_text_table_add(&table, g->cells + i * g->n_columns);
        r = ncu_text_table_print(&table, t->f);
        ncu_text_table_done(&table);
        if (r < 0)
                t->error = r;
        fputc('\n', t->f);
}

static void on_note(void *userdata, const char *heading, const char *text)
{
        TextDetails *t = userdata;

        if (!text) {
                show_section(t);
                return;
        }
        show_body(t);
        fprintf(t->f, "    %s\n\n", text);
}

typedef struct RuleLines {
        FILE *f;
        bool first;
        const char *type;
} RuleLines;

static void print_rule_line(void *userdata, const char *p, size_t n)
{
        RuleLines *l = userdata;

        fprintf(l->f, "    %-5s %-*.*s\n", l->first ? l->type : "", RULE_WIDTH, (int) n, p);
        l->first = false;
}

void ncu_page_print_rule_message(FILE *f, const NcuRuleResult *rr, size_t i, int *error)
{
        const NcuRuleMessage *msg = &rr->messages[i];
        const NcuSpeedup *sp = ncu_details_rule_speedup(rr, i);
        _cleanup_free_ char *text = ncu_details_plain_message(msg->text);
        RuleLines l = { .f = f, .first = true, .type = ncu_details_message_type(msg->type) };

        if (!text) {
                *error = -ENOMEM;
                return;
        }
        if (sp) {
                char line[64];
                snprintf(line, sizeof(line), "Est. %sSpeedup: %.4g%%", sp->type == 1 ? "Local " : "", sp->value);
                print_rule_line(&l, line, strlen(line));
        }
        ncu_text_wrap(text, RULE_WIDTH, print_rule_line, &l);
}

static void on_rule(void *userdata, const char *section_identifier, const NcuRuleResult *rr, size_t i)
{
        TextDetails *t = userdata;

        show_section(t);
        if (t->rule_messages > 0) {
                fputs("    ----- ", t->f);
                for (size_t k = 0; k < RULE_WIDTH; k++)
                        fputc('-', t->f);
                fputc('\n', t->f);
        }
        ncu_page_print_rule_message(t->f, rr, i, &t->error);
        t->rule_messages++;
}

static void on_section_end(void *userdata)
{
        TextDetails *t = userdata;

        if (t->rule_messages > 0)
                fputc('\n', t->f);
}

static const NcuDetailsSink text_sink = {
        .action_begin = on_action_begin,
        .unknown_arch = on_unknown_arch,
        .section_begin = on_section_begin,
        .body_begin = on_body_begin,
        .table = on_table,
        .grid = on_grid,
        .note = on_note,
        .rule = on_rule,
        .section_end = on_section_end,
};

int ncu_page_details_text(const NcuReport *report, NcuPrintUnits units, NcuPrintDetails level,
                NcuPrintInstances instances, FILE *f)
{
        TextDetails t = {
                .f = f,
                .units = units,
                .instances = instances,
        };
        int r;

        assert(report);
        assert(f);

        r = ncu_details_walk(report, level, &text_sink, &t);
        if (r >= 0)
                r = t.error;
        if (r >= 0 && t.cell.failed)
                r = -ENOMEM;
        cell_done(&t.cell);
        if (r < 0)
                return r;
        if (fflush(f) != 0 || ferror(f))
                return -EIO;
        return 0;
}
