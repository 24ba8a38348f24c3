/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ncu's raw page as text (ncu --import R --page raw): per action its launch line and every metric it holds,
 * sorted by name (section directives left out, as on the CSV page), in a table without a closing rule whose
 * value column is 20 characters wide (longer values wrap). Units are scaled value by value. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "report-csv.h"
#include "report-page-text.h"
#include "report-page.h"
#include "string-util.h"

#define RAW_VALUE_WIDTH 20

static const NcuTextColumn raw_columns[] = {
        { "Metric Name", NCU_TEXT_LEFT, 0, 0 },
        { "Metric Unit", NCU_TEXT_RIGHT, 0, 0 },
        { "Metric Value", NCU_TEXT_RIGHT, RAW_VALUE_WIDTH, RAW_VALUE_WIDTH },
};

static int compare_metric_names(const void *a, const void *b)
{
        return strcmp((*(const NcuMetric *const *) a)->name, (*(const NcuMetric *const *) b)->name);
}

static int print_action(const NcuAction *a, NcuPrintUnits units, NcuPrintInstances instances, Cell *cell, FILE *f)
{
        _cleanup_free_ const NcuMetric **metrics = NULL;
        NcuTextTable table;
        size_t n = 0;
        int r;

        ncu_text_print_action(f, a);
        ncu_page_print_action_intro(f, a, false);

        metrics = calloc(MAX(a->n_unique_metrics, (size_t) 1), sizeof(NcuMetric *));
        if (!metrics)
                return -ENOMEM;
        for (size_t i = 0; i < a->n_unique_metrics; i++) {
                const NcuMetric *m = a->metrics_by_name[i];
                if (m->name && !ncu_export_is_section_directive(m))
                        metrics[n++] = ncu_action_metric_by_name(a, m->name);
        }
        qsort_safe(metrics, n, sizeof(NcuMetric *), compare_metric_names);

        ncu_text_table_init(&table, 2, raw_columns, ELEMENTSOF(raw_columns));
        table.rule_above = table.rule_below = false;
        for (size_t i = 0; i < n; i++) {
                NcuDetailsRow row = { .label = metrics[i]->name, .name = metrics[i]->name, .metric = metrics[i] };
                char unit[METRIC_UNIT_MAX];

                ncu_page_metric_cells(a, &row, units, instances, false, cell, unit);
                ncu_text_table_add(&table, (const char *const[]){ row.label, unit, strempty(cell->data) });
        }
        r = ncu_text_table_print(&table, f);
        ncu_text_table_done(&table);
        fputc('\n', f);
        return r;
}

int ncu_page_raw_text(const NcuReport *report, NcuPrintUnits units, NcuPrintInstances instances, FILE *f)
{
        Cell cell = { .data = NULL };
        int r = 0;

        assert(report);
        assert(f);

        for (size_t i = 0; i < report->n_actions && r >= 0; i++) {
                const NcuAction *a = report->actions[i];
                if (i == 0 || ncu_text_process_differs(report->actions[i - 1], a))
                        ncu_text_print_process(f, a);
                r = print_action(a, units, instances, &cell, f);
        }
        if (r >= 0 && cell.failed)
                r = -ENOMEM;
        cell_done(&cell);
        if (r < 0)
                return r;
        if (fflush(f) != 0 || ferror(f))
                return -EIO;
        return 0;
}
