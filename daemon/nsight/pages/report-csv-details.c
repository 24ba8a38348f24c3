/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ncu's details page as CSV (--page details --csv): one row per metric the walk shows (report-details-walk.h),
 * then the section's rule results, one row per message. The "Body Item Label" column exists when body items
 * are printed (--print-details body|all), the rule columns when some action has rule results. Like ncu, the
 * column names are written with the first row, after anything ncu says before it. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "report-details-walk.h"
#include "report-csv-cells.h"
#include "report-csv-write.h"
#include "report-csv.h"
#include "report-page-nvtx.h"
#include "report-page-units.h"
#include "string-util.h"

typedef struct CsvDetails {
        FILE *f;
        const NcuReport *report;
        NcuPrintUnits units;
        NcuPrintDetails level;
        NcuPrintInstances instances;
        bool rule_columns;
        bool nvtx_columns;
        bool names_written;
        size_t id;
        const NcuAction *action;
        const char *section;
        Cell cell;
        int error;
} CsvDetails;

static const char *const rule_column_names[] = {
        "Rule Name",
        "Rule Type",
        "Rule Description",
        "Estimated Speedup Type",
        "Estimated Speedup",
};

static bool body_item_column(const CsvDetails *c)
{
        return c->level != NCU_PRINT_DETAILS_HEADER;
}

static void write_names(CsvDetails *c)
{
        if (c->names_written)
                return;
        c->names_written = true;
        ncu_export_write_action_column_names(c->f, c->nvtx_columns);
        ncu_csv_write_field(c->f, "Section Name", false);
        if (body_item_column(c))
                ncu_csv_write_field(c->f, "Body Item Label", false);
        ncu_csv_write_field(c->f, "Metric Name", false);
        ncu_csv_write_field(c->f, "Metric Unit", false);
        ncu_csv_write_field(c->f, "Metric Value", false);
        if (c->rule_columns)
                for (size_t i = 0; i < ELEMENTSOF(rule_column_names); i++)
                        ncu_csv_write_field(c->f, rule_column_names[i], false);
        fputc('\n', c->f);
}

static void begin_row(CsvDetails *c, const char *section, const char *item_label)
{
        write_names(c);
        ncu_export_write_action_columns(c->f, c->id, c->action, c->nvtx_columns);
        ncu_csv_write_field(c->f, section, false);
        if (body_item_column(c))
                ncu_csv_write_field(c->f, item_label, false);
}

static void on_action_begin(void *userdata, size_t id, const NcuAction *a)
{
        CsvDetails *c = userdata;

        c->id = id;
        c->action = a;
}

static void on_unknown_arch(void *userdata)
{
        CsvDetails *c = userdata;

        fputs(NCU_UNKNOWN_ARCH_WARNING "\n", c->f);
}

static void on_section_begin(void *userdata, const char *name, const char *identifier)
{
        CsvDetails *c = userdata;

        c->section = name;
}

/* The value of a row: scaled in dynamic units, with the instances the section shows. */
static void format_row_value(CsvDetails *c, const NcuDetailsRow *row, char unit[static METRIC_UNIT_MAX])
{
        const NcuMetric *m = row->metric;
        NcuPrintInstances instances = row->instances ? MAX(c->instances, NCU_PRINT_INSTANCES_VALUES) : c->instances;
        NcuShownValue shown;

        ncu_metric_base_unit(c->action, m, row->section_unit, true, unit);
        if (c->units == NCU_PRINT_UNITS_BASE || !m->has_value) {
                ncu_cell_format_metric(&c->cell, m, instances, NULL, NULL, NULL);
                return;
        }
        /* The aggregate as scaled; the instances after it stay as stored. */
        ncu_shown_value(&m->value, unit, c->units, &shown);
        snprintf(unit, METRIC_UNIT_MAX, "%s", shown.unit);
        ncu_cell_format_metric(&c->cell, m, instances, shown.text, ncu_cell_format_scaled, &shown.divisor);
}

static void on_table(void *userdata, const NcuDetailsTable *t)
{
        CsvDetails *c = userdata;

        for (size_t i = 0; i < t->n_rows; i++) {
                const NcuDetailsRow *row = &t->rows[i];
                char unit[METRIC_UNIT_MAX] = "";

                begin_row(c, c->section, t->label);
                ncu_csv_write_field(c->f, row->label, false);
                if (!row->metric) {
                        /* A metric the section shows but the report lacks (not collected on this GPU). */
                        ncu_csv_write_field(c->f, NULL, false);
                        ncu_csv_write_field(c->f, "n/a", false);
                } else {
                        format_row_value(c, row, unit);
                        ncu_csv_write_field(c->f, unit, false);
                        ncu_csv_write_field(c->f, c->cell.data, false);
                }
                if (c->rule_columns)
                        fputc(',', c->f);
                fputc('\n', c->f);
        }
}

/* A plain CSV table inside the export, as ncu prints it. */
static void on_grid(void *userdata, const NcuDetailsGrid *g)
{
        CsvDetails *c = userdata;

        if (g->csv_replacement) {
                fprintf(c->f, "%s\n", g->csv_replacement);
                return;
        }
        write_names(c);
        for (size_t i = 0; i < g->n_columns; i++)
                ncu_csv_write_field(c->f, g->columns[i], i == 0);
        fputc('\n', c->f);
        for (size_t r = 0; r < g->n_rows; r++) {
                for (size_t i = 0; i < g->n_columns; i++)
                        ncu_csv_write_field(c->f, g->cells[r * g->n_columns + i], i == 0);
                fputc('\n', c->f);
        }
}

static void on_note(void *userdata, const char *heading, const char *text)
{
        CsvDetails *c = userdata;

        if (!text)
                return;
        write_names(c);
        fprintf(c->f, "    %s\n\n", text);
}

static const char *speedup_type_name(uint32_t type)
{
        switch (type) {
        case 1:
                return "local";
        case 2:
                return "global";
        default:
                return "";
        }
}

static void on_rule(void *userdata, const char *section_identifier, const NcuRuleResult *rr, size_t i)
{
        CsvDetails *c = userdata;
        const NcuRuleMessage *msg = &rr->messages[i];
        const NcuSpeedup *sp = ncu_details_rule_speedup(rr, i);
        _cleanup_free_ char *text = ncu_details_plain_message(msg->text);
        char buf[NCU_CSV_NUMBER_MAX];

        if (!text) {
                c->error = -ENOMEM;
                return;
        }
        begin_row(c, section_identifier, NULL);
        for (size_t k = 0; k < 3; k++)
                ncu_csv_write_field(c->f, NULL, false);
        ncu_csv_write_field(c->f, rr->identifier, false);
        ncu_csv_write_field(c->f, ncu_details_message_type(msg->type), false);
        ncu_csv_write_field(c->f, text, false);
        if (sp) {
                ncu_csv_write_field(c->f, speedup_type_name(sp->type), false);
                snprintf(buf, sizeof(buf), "%.4g", sp->value);
                ncu_csv_write_field(c->f, buf, false);
        } else {
                ncu_csv_write_field(c->f, NULL, false);
                ncu_csv_write_field(c->f, NULL, false);
        }
        fputc('\n', c->f);
}

static const NcuDetailsSink csv_sink = {
        .action_begin = on_action_begin,
        .unknown_arch = on_unknown_arch,
        .section_begin = on_section_begin,
        .table = on_table,
        .grid = on_grid,
        .note = on_note,
        .rule = on_rule,
};

int ncu_export_details_csv_page(const NcuReport *report, NcuPrintUnits units, NcuPrintDetails level,
                NcuPrintInstances instances, FILE *f)
{
        CsvDetails c = {
                .f = f,
                .report = report,
                .units = units,
                .level = level,
                .instances = instances,
                .nvtx_columns = ncu_report_has_nvtx_ranges(report),
        };
        int r;

        assert(report);
        assert(f);

        for (size_t i = 0; i < report->n_actions; i++)
                if (report->actions[i]->n_rule_results > 0)
                        c.rule_columns = true;

        r = ncu_details_walk(report, level, &csv_sink, &c);
        if (r >= 0)
                r = c.error;
        if (r >= 0)
                write_names(&c);
        if (r >= 0 && c.cell.failed)
                r = -ENOMEM;
        cell_done(&c.cell);
        if (r < 0)
                return r;
        if (fflush(f) != 0 || ferror(f))
                return -EIO;
        return 0;
}

int ncu_export_details_csv(const NcuReport *report, FILE *f)
{
        return ncu_export_details_csv_page(
                        report, NCU_PRINT_UNITS_BASE, NCU_PRINT_DETAILS_ALL, NCU_PRINT_INSTANCES_NONE, f);
}
