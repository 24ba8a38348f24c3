/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ncu's raw page as CSV: one row per action, one column per metric. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "metric-attrs.h"
#include "report-page-nvtx.h"
#include "report-page-text.h"
#include "report-page-units.h"
#include "report-csv-cells.h"
#include "report-csv-write.h"
#include "report-csv.h"
#include "string-util.h"

const char *const ncu_export_nvtx_column_names[2] = {
        "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg",
        "Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg",
};

const char *const ncu_export_action_column_names[11] = {
        "ID",
        "Process ID",
        "Process Name",
        "Host Name",
        "Kernel Name",
        "Context",
        "Stream",
        "Block Size",
        "Grid Size",
        "Device",
        "CC",
};

static const NcuMetric *action_metric(const NcuAction *a, const char *name)
{
        return ncu_action_metric_by_name(a, name);
}

void ncu_export_write_action_column_names(FILE *f, bool nvtx)
{
        for (size_t i = 0; i < ELEMENTSOF(ncu_export_action_column_names); i++) {
                ncu_csv_write_field(f, ncu_export_action_column_names[i], i == 0);
                if (nvtx && streq(ncu_export_action_column_names[i], "Host Name"))
                        for (size_t j = 0; j < ELEMENTSOF(ncu_export_nvtx_column_names); j++)
                                ncu_csv_write_field(f, ncu_export_nvtx_column_names[j], false);
        }
}

void ncu_export_write_action_columns(FILE *f, size_t id, const NcuAction *a, bool nvtx)
{
        char buf[NCU_CSV_NUMBER_MAX], dims[3 * 24 + 8], device[24], cc[48];

        snprintf(buf, sizeof(buf), "%zu", id);
        ncu_csv_write_field(f, buf, true);
        snprintf(buf, sizeof(buf), "%" PRIu32, a->process.process_id);
        ncu_csv_write_field(f, buf, false);
        ncu_csv_write_field(f, a->process.base_name, false);
        ncu_csv_write_field(f, a->process.hostname, false);
        if (nvtx) {
                Cell c = { .data = NULL };
                ncu_nvtx_push_pop_cell(&c, a);
                ncu_csv_write_field(f, c.data, false);
                ncu_nvtx_start_end_cell(&c, a);
                ncu_csv_write_field(f, c.data, false);
                cell_done(&c);
        }
        ncu_csv_write_field(f, ncu_action_name(a, NCU_NAME_DEMANGLED), false);

        if (a->has_context_id)
                snprintf(buf, sizeof(buf), "%" PRIu32, a->context_id);
        else
                buf[0] = 0;
        ncu_csv_write_field(f, buf, false);
        if (a->has_stream_id)
                snprintf(buf, sizeof(buf), "%" PRIu32, a->stream_id);
        else
                buf[0] = 0;
        ncu_csv_write_field(f, buf, false);

        snprintf(dims, sizeof(dims), "(%" PRIu64 ", %" PRIu64 ", %" PRIu64 ")", a->block_size.x, a->block_size.y,
                        a->block_size.z);
        ncu_csv_write_field(f, dims, false);
        snprintf(dims, sizeof(dims), "(%" PRIu64 ", %" PRIu64 ", %" PRIu64 ")", a->grid_size.x, a->grid_size.y,
                        a->grid_size.z);
        ncu_csv_write_field(f, dims, false);

        ncu_action_device_text(a, device);
        ncu_csv_write_field(f, device, false);
        ncu_action_cc_text(a, cc);
        ncu_csv_write_field(f, cc, false);
}

static int compare_names(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Sections store some of their directives as string metrics named "kind:…" (breakdown:, group:, regex:);
 * ncu leaves them out of the raw page. PM-sampling metrics ("pmsampling:…") hold numbers and stay. */
bool ncu_export_is_section_directive(const NcuMetric *m)
{
        return strchr(m->name, ':') && m->kind == NCU_VALUE_STRING;
}

/* Every metric name of the report's actions, section directives left out, sorted and unique. */
static int collect_columns(const NcuReport *r, const char ***ret, size_t *ret_n)
{
        size_t total = 0, n = 0;
        const char **names;

        for (size_t i = 0; i < r->n_actions; i++)
                total += r->actions[i]->n_metrics;
        names = malloc(MAX(total, (size_t) 1) * sizeof(*names));
        if (!names)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_actions; i++)
                for (size_t j = 0; j < r->actions[i]->n_metrics; j++) {
                        const NcuMetric *m = &r->actions[i]->metrics[j];
                        if (m->name && !ncu_export_is_section_directive(m))
                                names[n++] = m->name;
                }
        qsort_safe(names, n, sizeof(*names), compare_names);

        size_t u = 0;
        for (size_t i = 0; i < n; i++)
                if (u == 0 || !streq(names[u - 1], names[i]))
                        names[u++] = names[i];
        *ret = names;
        *ret_n = u;
        return 0;
}

/* A column of the raw page: its metric, and its unit for the whole column. */
typedef struct RawColumn {
        const char *name;
        char unit[METRIC_UNIT_MAX]; /* base */
        char shown_unit[METRIC_UNIT_MAX];
        double factor;
        bool no_maximum; /* the largest value is 0 (or the column holds none) */
} RawColumn;

/* The column's base unit is its metric's in the first action that has it; in dynamic units the column is
 * scaled by its largest value (report-page-units.h), NaN aside, 0 at least: a column without a value above 0
 * prints every value as 0, as ncu does (-3527 and NaN alike). */
static void raw_column_unit(const NcuReport *r, NcuPrintUnits units, RawColumn *col)
{
        double max = 0;
        bool found = false;

        col->factor = 1;
        for (size_t i = 0; i < r->n_actions; i++) {
                const NcuMetric *m = action_metric(r->actions[i], col->name);
                double d;
                if (!m)
                        continue;
                if (!found)
                        ncu_metric_base_unit(r->actions[i], m, NULL, false, col->unit);
                found = true;
                if (m->has_value && m->value.kind != NCU_VALUE_STRING && ncu_value_as_double(&m->value, &d) &&
                                isfinite(d))
                        max = MAX(max, d);
        }
        col->no_maximum = max == 0;
        snprintf(col->shown_unit, sizeof(col->shown_unit), "%s", col->unit);
        if (units == NCU_PRINT_UNITS_DYNAMIC)
                col->factor = ncu_unit_scale(col->unit, max, col->shown_unit);
}

/* A number of a dynamic column with a unit: "%f" of the scaled value (glibc's "nan" or "-nan" by its sign),
 * 0 in a column without a maximum. */
/* A number of a dynamic column with a unit: "%f" of the scaled value (glibc's "nan" or "-nan" by its sign),
 * 0 in a column without a maximum. */
static const char *raw_dynamic_number(const NcuValue *v, const void *userdata, char buf[static NCU_CSV_NUMBER_MAX])
{
        const RawColumn *col = userdata;
        double d;

        if (v->kind == NCU_VALUE_STRING || !ncu_value_as_double(v, &d))
                return ncu_cell_format_value(v, buf);
        if (col->no_maximum)
                d = 0;
        snprintf(buf, NCU_CSV_NUMBER_MAX, "%f", d / col->factor);
        return buf;
}

int ncu_export_raw_csv_page(const NcuReport *r, NcuPrintUnits units, NcuPrintInstances instances, FILE *f)
{
        const char **names = NULL;
        RawColumn *columns = NULL;
        size_t n_columns = 0;
        Cell cell = { .data = NULL };
        bool nvtx;
        int k;

        assert(r);
        assert(f);

        k = collect_columns(r, &names, &n_columns);
        if (k < 0)
                return k;
        columns = calloc(MAX(n_columns, (size_t) 1), sizeof(RawColumn));
        if (!columns) {
                free(names);
                return -ENOMEM;
        }
        for (size_t c = 0; c < n_columns; c++) {
                columns[c].name = names[c];
                raw_column_unit(r, units, &columns[c]);
        }
        nvtx = ncu_report_has_nvtx_ranges(r);

        ncu_export_write_action_column_names(f, nvtx);
        for (size_t c = 0; c < n_columns; c++)
                ncu_csv_write_field(f, columns[c].name, false);
        fputc('\n', f);

        for (size_t i = 0; i < ELEMENTSOF(ncu_export_action_column_names) + (nvtx ? 2 : 0); i++)
                ncu_csv_write_field(f, NULL, i == 0);
        for (size_t c = 0; c < n_columns; c++)
                ncu_csv_write_field(f, columns[c].shown_unit, false);
        fputc('\n', f);

        for (size_t i = 0; i < r->n_actions; i++) {
                const NcuAction *a = r->actions[i];

                ncu_export_write_action_columns(f, i, a, nvtx);
                for (size_t c = 0; c < n_columns; c++) {
                        const NcuMetric *m = action_metric(a, columns[c].name);
                        if (!m) {
                                ncu_csv_write_field(f, NULL, false);
                                continue;
                        }
                        if (units == NCU_PRINT_UNITS_DYNAMIC && columns[c].unit[0])
                                ncu_cell_format_metric(&cell, m, instances, NULL, raw_dynamic_number, &columns[c]);
                        else
                                ncu_cell_format_metric(&cell, m, instances, NULL, NULL, NULL);
                        ncu_csv_write_field(f, cell.data, false);
                }
                fputc('\n', f);
        }

        free(names);
        free(columns);
        k = cell.failed ? -ENOMEM : 0;
        cell_done(&cell);
        if (k < 0)
                return k;
        if (fflush(f) != 0 || ferror(f))
                return -EIO;
        return 0;
}

int ncu_export_raw_csv(const NcuReport *r, bool instances, FILE *f)
{
        return ncu_export_raw_csv_page(
                        r, NCU_PRINT_UNITS_BASE, instances ? NCU_PRINT_INSTANCES_VALUES : NCU_PRINT_INSTANCES_NONE, f);
}
