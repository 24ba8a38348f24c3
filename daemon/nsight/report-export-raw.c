/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ncu's raw page as CSV: one row per action, one column per metric. */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "metric-attrs.h"
#include "report-export-cells.h"
#include "report-export-csv.h"
#include "report-export.h"
#include "string-util.h"

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

void ncu_export_write_action_columns(FILE *f, size_t id, const NcuAction *a)
{
        char buf[NCU_CSV_NUMBER_MAX], dims[3 * 24 + 8];
        const NcuMetric *m;
        uint64_t u;

        snprintf(buf, sizeof(buf), "%zu", id);
        ncu_csv_write_field(f, buf, true);
        snprintf(buf, sizeof(buf), "%" PRIu32, a->process.process_id);
        ncu_csv_write_field(f, buf, false);
        ncu_csv_write_field(f, a->process.base_name, false);
        ncu_csv_write_field(f, a->process.hostname, false);
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

        /* The device ncu launched on, and its compute capability, as the action's metrics record them. */
        m = action_metric(a, "launch__device_id");
        if (m && m->has_value && ncu_value_as_uint64(&m->value, &u))
                snprintf(buf, sizeof(buf), "%" PRIu64, u);
        else if (a->device_index >= 0)
                snprintf(buf, sizeof(buf), "%d", a->device_index);
        else
                buf[0] = 0;
        ncu_csv_write_field(f, buf, false);

        const NcuMetric *major = action_metric(a, "device__attribute_compute_capability_major"),
                        *minor = action_metric(a, "device__attribute_compute_capability_minor");
        uint64_t ma, mi;
        if (major && minor && major->has_value && minor->has_value && ncu_value_as_uint64(&major->value, &ma) &&
                        ncu_value_as_uint64(&minor->value, &mi))
                snprintf(buf, sizeof(buf), "%" PRIu64 ".%" PRIu64, ma, mi);
        else
                buf[0] = 0;
        ncu_csv_write_field(f, buf, false);
}

static int compare_names(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Sections store some of their directives as string metrics named "kind:…" (breakdown:, group:, regex:);
 * ncu leaves them out of the raw page. PM-sampling metrics ("pmsampling:…") hold numbers and stay. */
static bool is_section_directive(const NcuMetric *m)
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
                        if (m->name && !is_section_directive(m))
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

int ncu_export_raw_csv(const NcuReport *r, bool instances, FILE *f)
{
        const char **columns = NULL;
        size_t n_columns = 0;
        Cell cell = { .data = NULL };
        int k;

        assert(r);
        assert(f);

        k = collect_columns(r, &columns, &n_columns);
        if (k < 0)
                return k;

        for (size_t i = 0; i < ELEMENTSOF(ncu_export_action_column_names); i++)
                ncu_csv_write_field(f, ncu_export_action_column_names[i], i == 0);
        for (size_t c = 0; c < n_columns; c++)
                ncu_csv_write_field(f, columns[c], false);
        fputc('\n', f);

        /* Units: from the first action that has the metric. */
        for (size_t i = 0; i < ELEMENTSOF(ncu_export_action_column_names); i++)
                ncu_csv_write_field(f, NULL, i == 0);
        for (size_t c = 0; c < n_columns; c++) {
                char unit[METRIC_UNIT_MAX] = "";
                for (size_t i = 0; i < r->n_actions; i++) {
                        const NcuMetric *m = action_metric(r->actions[i], columns[c]);
                        if (!m)
                                continue;
                        MetricAttrs attrs;
                        ncu_metric_attrs(r->actions[i], m, NULL, &attrs);
                        metric_attrs_csv_unit(&attrs, unit);
                        break;
                }
                ncu_csv_write_field(f, unit, false);
        }
        fputc('\n', f);

        for (size_t i = 0; i < r->n_actions; i++) {
                const NcuAction *a = r->actions[i];

                ncu_export_write_action_columns(f, i, a);
                for (size_t c = 0; c < n_columns; c++) {
                        const NcuMetric *m = action_metric(a, columns[c]);
                        if (!m) {
                                ncu_csv_write_field(f, NULL, false);
                                continue;
                        }
                        ncu_cell_format_metric(&cell, m, instances);
                        ncu_csv_write_field(f, cell.data, false);
                }
                fputc('\n', f);
        }

        free(columns);
        cell_done(&cell);
        if (cell.failed)
                return -ENOMEM;
        if (fflush(f) != 0 || ferror(f))
                return -EIO;
        return 0;
}
