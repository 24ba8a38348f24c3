/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The details page's walk over an action's sections (report-details-walk.h). */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "ProfilerMetricOptions.pb-c.h"
#include "ProfilerSection.pb-c.h"
#include "macro.h"
#include "report-container.h"
#include "report-csv-cells.h"
#include "report-csv-write.h"
#include "report-details-walk.h"
#include "section-metrics.h"
#include "string-util.h"

/* The sink's operations are optional: a sink leaves out what it does not print. */
#define SINK(r, op, ...)                                           \
        do {                                                       \
                if ((r)->sink->op)                                 \
                        (r)->sink->op((r)->userdata, __VA_ARGS__); \
        } while (0)
#define SINK0(r, op)                                  \
        do {                                          \
                if ((r)->sink->op)                    \
                        (r)->sink->op((r)->userdata); \
        } while (0)

/* One metric to print: the name ncu looks up, the label it shows, and the section metric it came from. */
typedef struct Row {
        const char *name;
        const char *label; /* NULL: the name */
        const char *sort_key;
        size_t order; /* position among rows of the same sort key */
        const NV__Profiler__ProfilerSectionMetric *metric;
        char *owned_name, *owned_label;
} Row;

typedef struct Rows {
        Row *items;
        size_t n, allocated;
} Rows;

typedef struct Renderer {
        const NcuDetailsSink *sink;
        void *userdata;
        NcuPrintDetails level;
        size_t id;
        const NcuAction *action;
        unsigned arch; /* the compute capability filters are evaluated for */
        bool unknown_arch; /* ncu 2024.1.1's schema lacks the action's own: arch is NCU_ASSUMED_ARCH */
        int error;
} Renderer;

/* The newest architecture ncu 2024.1.1's schema names: the exports we match are that version's. */
#define NCU_EXPORT_MAX_ARCH 90
#define FILTER_ITEMS_MAX 64

static bool arch_known(bool has, int arch)
{
        return has && arch <= NCU_EXPORT_MAX_ARCH;
}

/* Whether filter f admits arch as ncu 2024.1.1 reads it: an architecture newer than its schema is an unknown
 * enum value, which protobuf drops, so that bound is absent. */
static bool filter_matches_arch(const NV__Profiler__Messages__MetricOptionFilter *f, unsigned arch)
{
        NV__Profiler__Messages__MetricOptionFilterItem items[FILTER_ITEMS_MAX], *pointers[FILTER_ITEMS_MAX];
        NV__Profiler__Messages__MetricOptionFilter copy;

        if (!f)
                return true;
        if (f->n_items > FILTER_ITEMS_MAX)
                return metric_filter_matches_arch(f, arch);

        copy = *f;
        copy.has_minarch = arch_known(f->has_minarch, f->minarch);
        copy.has_maxarch = arch_known(f->has_maxarch, f->maxarch);
        for (size_t i = 0; i < f->n_items; i++) {
                items[i] = *f->items[i];
                items[i].has_minarch = arch_known(f->items[i]->has_minarch, f->items[i]->minarch);
                items[i].has_maxarch = arch_known(f->items[i]->has_maxarch, f->items[i]->maxarch);
                pointers[i] = &items[i];
        }
        copy.items = pointers;
        return metric_filter_matches_arch(&copy, arch);
}

static void rows_clear(Rows *rows)
{
        for (size_t i = 0; i < rows->n; i++) {
                free(rows->items[i].owned_name);
                free(rows->items[i].owned_label);
        }
        free(rows->items);
        *rows = (Rows){ .items = NULL };
}

static Row *rows_add(Renderer *r, Rows *rows)
{
        if (rows->n == rows->allocated) {
                size_t a = MAX(rows->allocated * 2, (size_t) 16);
                Row *p = realloc(rows->items, a * sizeof(Row));
                if (!p) {
                        r->error = -ENOMEM;
                        return NULL;
                }
                rows->items = p;
                rows->allocated = a;
        }
        Row *row = &rows->items[rows->n++];
        *row = (Row){ .order = rows->n };
        return row;
}

/* The name and label a section metric stands for on this architecture: the first matching option, else
 * the base metric if its own filter matches (NULL: not shown on this GPU). */
static bool resolve_metric(const Renderer *r, const NV__Profiler__ProfilerSectionMetric *m, const char **ret_name,
                const char **ret_label)
{
        for (size_t i = 0; i < m->n_options; i++) {
                const NV__Profiler__ProfilerSectionMetricOption *o = m->options[i];
                if (filter_matches_arch(o->filter, r->arch)) {
                        *ret_name = o->name ? o->name : m->name;
                        *ret_label = o->label ? o->label : m->label;
                        return true;
                }
        }
        if (!filter_matches_arch(m->filter, r->arch))
                return false;
        *ret_name = m->name;
        *ret_label = m->label;
        return true;
}

/* The metric names a "group:" or "breakdown:" metric stands for: its value, a comma-separated list. */
static void add_list(Renderer *r, Rows *rows, const NV__Profiler__ProfilerSectionMetric *m, const char *name,
                const char *label, bool label_with_name)
{
        const NcuMetric *list = ncu_action_metric_by_name(r->action, name);
        if (!list || !list->has_value || list->value.kind != NCU_VALUE_STRING || !list->value.s)
                return;

        for (const char *p = list->value.s; *p;) {
                size_t len = strcspn(p, ",");
                if (len > 0) {
                        Row *row = rows_add(r, rows);
                        if (!row)
                                return;
                        row->owned_name = strndup(p, len);
                        if (!row->owned_name) {
                                r->error = -ENOMEM;
                                return;
                        }
                        row->name = row->owned_name;
                        row->sort_key = name;
                        row->metric = m;
                        if (label_with_name && label) {
                                if (asprintf(&row->owned_label, "%s (%s)", label, row->owned_name) < 0) {
                                        row->owned_label = NULL;
                                        r->error = -ENOMEM;
                                        return;
                                }
                                row->label = row->owned_label;
                        } else
                                row->label = label;
                }
                p += len;
                if (*p == ',')
                        p++;
        }
}

static int compare_names(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* "regex:PATTERN": every metric of the action whose name matches, sorted. */
static void add_regex(Renderer *r, Rows *rows, const NV__Profiler__ProfilerSectionMetric *m, const char *pattern,
                const char *label)
{
        const char **names;
        size_t n = 0;
        regex_t re;

        if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
                return;
        names = malloc(MAX(r->action->n_metrics, (size_t) 1) * sizeof(*names));
        if (!names) {
                regfree(&re);
                r->error = -ENOMEM;
                return;
        }
        for (size_t i = 0; i < r->action->n_metrics; i++) {
                const char *name = r->action->metrics[i].name;
                if (name && !strchr(name, ':') && regexec(&re, name, 0, NULL, 0) == 0)
                        names[n++] = name;
        }
        qsort_safe(names, n, sizeof(*names), compare_names);
        for (size_t i = 0; i < n; i++) {
                Row *row = rows_add(r, rows);
                if (!row)
                        break;
                row->name = names[i];
                row->label = label;
                row->sort_key = names[i];
                row->metric = m;
        }
        free(names);
        regfree(&re);
}

static void add_metric(Renderer *r, Rows *rows, const NV__Profiler__ProfilerSectionMetric *m)
{
        const char *name, *label;

        if (!m->name || !m->name[0] || !resolve_metric(r, m, &name, &label) || !name || !name[0])
                return;
        if (startswith(name, "group:")) {
                add_list(r, rows, m, name, label, true);
                return;
        }
        if (startswith(name, "breakdown:")) {
                add_list(r, rows, m, name, label, false);
                return;
        }
        if (startswith(name, "regex:")) {
                add_regex(r, rows, m, name + strlen("regex:"), label);
                return;
        }
        Row *row = rows_add(r, rows);
        if (!row)
                return;
        row->name = name;
        row->label = label;
        row->sort_key = name;
        row->metric = m;
}

static int compare_rows_by_name(const void *a, const void *b)
{
        const Row *x = a, *y = b;
        int c = strcmp(x->sort_key, y->sort_key);
        if (c != 0)
                return c;
        return x->order < y->order ? -1 : x->order > y->order;
}

static double row_value(const Renderer *r, const Row *row)
{
        const NcuMetric *m = ncu_action_metric_by_name(r->action, row->name);
        double d = 0;
        if (m && m->has_value)
                (void) ncu_value_as_double(&m->value, &d);
        /* ncu sorts by the value it shows (two decimals): equal shown values go by name. */
        return round(d * 100) / 100;
}

/* Sorting by value needs the action: qsort has no context argument, so rows carry their value. */
typedef struct ValuedRow {
        double value;
        const Row *row;
} ValuedRow;

/* A value that is not a number (a result whose metrics are NaN) has no rank: such rows come last, by name. */
static int compare_values(double x, double y)
{
        if (isnan(x) || isnan(y))
                return isnan(x) - isnan(y);
        return x < y ? -1 : x > y;
}

static int compare_valued_descending(const void *a, const void *b)
{
        const ValuedRow *x = a, *y = b;
        int c = isnan(x->value) || isnan(y->value) ? compare_values(x->value, y->value)
                                                   : compare_values(y->value, x->value);
        return c != 0 ? c : compare_rows_by_name(x->row, y->row);
}

static int compare_valued_ascending(const void *a, const void *b)
{
        const ValuedRow *x = a, *y = b;
        int c = compare_values(x->value, y->value);
        return c != 0 ? c : compare_rows_by_name(x->row, y->row);
}

/* A row as the sink sees it; the label of a breakdown is built here, owned by labels. */
static void fill_row(Renderer *r, const Row *row, NcuDetailsRow *ret, char **ret_owned)
{
        const char *shown = row->label ? row->label : row->name;

        *ret_owned = NULL;
        if (row->label && strstr(row->label, "{UNIT}")) {
                *ret_owned = ncu_details_breakdown_label(row->label, row->name);
                if (!*ret_owned)
                        r->error = -ENOMEM;
                else
                        shown = *ret_owned;
        }
        *ret = (NcuDetailsRow){
                .label = shown,
                .name = row->name,
                .metric = ncu_action_metric_by_name(r->action, row->name),
                .section_unit = row->metric ? row->metric->unit : NULL,
                .instances = row->metric && row->metric->has_showinstances && row->metric->showinstances,
        };
}

/* Tells the sink one table: rows sorted by name (a metric listed twice shows once), or by the value shown. */
static void emit_rows(Renderer *r, const char *label, const char *const *headings, size_t n_headings, Rows *rows,
                bool by_value, bool descending)
{
        NcuDetailsRow *out = NULL;
        char **owned = NULL;
        size_t n = 0;

        if (r->error < 0)
                return;
        out = calloc(MAX(rows->n, (size_t) 1), sizeof(NcuDetailsRow));
        owned = calloc(MAX(rows->n, (size_t) 1), sizeof(char *));
        if (!out || !owned) {
                r->error = -ENOMEM;
                free(out);
                free(owned);
                return;
        }

        if (!by_value) {
                qsort_safe(rows->items, rows->n, sizeof(Row), compare_rows_by_name);
                for (size_t i = 0; i < rows->n; i++)
                        if (i == 0 || !streq(rows->items[i].name, rows->items[i - 1].name)) {
                                fill_row(r, &rows->items[i], &out[n], &owned[n]);
                                n++;
                        }
        } else {
                ValuedRow *v = calloc(MAX(rows->n, (size_t) 1), sizeof(ValuedRow));
                if (!v)
                        r->error = -ENOMEM;
                else {
                        for (size_t i = 0; i < rows->n; i++)
                                v[i] = (ValuedRow){ .value = row_value(r, &rows->items[i]), .row = &rows->items[i] };
                        qsort_safe(v, rows->n, sizeof(ValuedRow),
                                        descending ? compare_valued_descending : compare_valued_ascending);
                        for (size_t i = 0; i < rows->n; i++) {
                                fill_row(r, v[i].row, &out[n], &owned[n]);
                                n++;
                        }
                        free(v);
                }
        }

        if (r->error == 0)
                SINK(r, table,
                                &(const NcuDetailsTable){
                                                .label = strempty(label),
                                                .n_headings = n_headings,
                                                .headings = headings,
                                                .rows = out,
                                                .n_rows = n,
                                });
        for (size_t i = 0; i < n; i++)
                free(owned[i]);
        free(owned);
        free(out);
}

/* A body item's table: "Table Name : LABEL" and its description above it. */
static void emit_item_rows(
                Renderer *r, const char *label, const char *description, Rows *rows, bool by_value, bool descending)
{
        _cleanup_free_ char *name = NULL, *desc = NULL;
        const char *headings[2];
        size_t n = 0;

        if (label && asprintf(&name, "Table Name : %s", label) >= 0)
                headings[n++] = name;
        if (description && asprintf(&desc, "Table Description : %s", description) >= 0)
                headings[n++] = desc;
        if ((label && !name) || (description && !desc)) {
                name = desc = NULL;
                r->error = -ENOMEM;
                return;
        }
        emit_rows(r, label, headings, n, rows, by_value, descending);
}

static void render_metrics(Renderer *r, const char *label, const char *description,
                NV__Profiler__ProfilerSectionMetric *const *metrics, size_t n, bool by_value, bool descending)
{
        Rows rows = { .items = NULL };

        for (size_t i = 0; i < n; i++)
                add_metric(r, &rows, metrics[i]);
        emit_item_rows(r, label, description, &rows, by_value, descending);
        rows_clear(&rows);
}

/* Every base name (those its filter admits) with every suffix, under the base name's label. */
static void render_suffix_table(Renderer *r, const NV__Profiler__ProfilerSuffixTable *t)
{
        Rows rows = { .items = NULL };

        if (!t->basenames || !t->suffixes)
                return;
        for (size_t b = 0; b < t->basenames->n_basename && r->error == 0; b++) {
                const NV__Profiler__ProfilerSectionMetric *m = t->basenames->basename[b];
                const char *name, *label;

                if (!m->name || !resolve_metric(r, m, &name, &label))
                        continue;
                for (size_t i = 0; i < t->suffixes->n_suffix; i++) {
                        const NV__Profiler__ProfilerSuffix *suffix = t->suffixes->suffix[i];
                        Row *row = rows_add(r, &rows);
                        if (!row)
                                break;
                        if (asprintf(&row->owned_name, "%s%s", name, strempty(suffix->name)) < 0) {
                                row->owned_name = NULL;
                                r->error = -ENOMEM;
                                break;
                        }
                        row->name = row->sort_key = row->owned_name;
                        row->label = label;
                        row->metric = m;
                }
        }
        emit_item_rows(r, t->label, t->description, &rows,
                        t->has_sortkey && t->sortkey == NV__PROFILER__SORT_KEYS__ByValue,
                        t->has_sortdirection && t->sortdirection == NV__PROFILER__SORT_DIRECTIONS__Descending);
        rows_clear(&rows);
}

/* The memory tables and chart show the metrics of a group the report stores ("group:memory__…"), each
 * under its own name, sorted. */
static void render_group(Renderer *r, const char *label, const char *group)
{
        Rows rows = { .items = NULL };

        add_list(r, &rows, NULL, group, NULL, false);
        emit_item_rows(r, label, NULL, &rows, false, false);
        rows_clear(&rows);
}

static void add_roofline_value(Renderer *r, Rows *rows, const NV__Profiler__ProfilerSectionRooflineValue *v)
{
        if (!v)
                return;
        switch (v->roofline_value_case) {
        case NV__PROFILER__PROFILER_SECTION_ROOFLINE_VALUE__ROOFLINE_VALUE_METRIC:
                add_metric(r, rows, v->metric);
                break;
        case NV__PROFILER__PROFILER_SECTION_ROOFLINE_VALUE__ROOFLINE_VALUE_VALUE_CYCLES_PER_SECOND_EXPRESSION: {
                const NV__Profiler__ProfilerSectionRooflineValueCyclesPerSecondExpression *e =
                                v->valuecyclespersecondexpression;
                for (size_t i = 0; i < e->n_valuepercyclemetrics; i++)
                        add_metric(r, rows, e->valuepercyclemetrics[i]);
                if (e->cyclespersecondmetric)
                        add_metric(r, rows, e->cyclespersecondmetric);
                break;
        }
        default:
                break; /* a constant shows no metric */
        }
}

/* One roofline or achieved value: its work value's metrics, then its traffic value's, each a table sorted by
 * name, under the value's label ("Peak Work", "Peak Traffic" or "Achieved …" on the text page). */
static void render_roofline_values(Renderer *r, const char *chart_heading, const char *label, const char *kind,
                const NV__Profiler__ProfilerSectionRooflineValue *work,
                const NV__Profiler__ProfilerSectionRooflineValue *traffic)
{
        _cleanup_free_ char *work_heading = NULL, *traffic_heading = NULL;
        const char *headings[3];
        Rows rows = { .items = NULL };
        size_t n = 0;

        if (asprintf(&work_heading, "%s Work", kind) < 0 || asprintf(&traffic_heading, "%s Traffic", kind) < 0) {
                work_heading = traffic_heading = NULL;
                r->error = -ENOMEM;
                return;
        }
        if (chart_heading)
                headings[n++] = chart_heading;
        if (label)
                headings[n++] = label;
        headings[n++] = work_heading;
        add_roofline_value(r, &rows, work);
        emit_rows(r, label, headings, n, &rows, false, false);
        rows_clear(&rows);
        add_roofline_value(r, &rows, traffic);
        emit_rows(r, label, (const char *const[]){ traffic_heading }, 1, &rows, false, false);
        rows_clear(&rows);
}

static void render_roofline(Renderer *r, const NV__Profiler__ProfilerSectionRooflineChart *c)
{
        _cleanup_free_ char *chart_heading = NULL;
        bool first = true;

        if (c->label && asprintf(&chart_heading, "Table Name : %s", c->label) < 0) {
                chart_heading = NULL;
                r->error = -ENOMEM;
                return;
        }
        for (size_t i = 0; i < c->n_rooflines; i++) {
                const NV__Profiler__ProfilerSectionChartRoofline *rl = c->rooflines[i];
                render_roofline_values(r, first ? chart_heading : NULL, rl->options ? rl->options->label : NULL, "Peak",
                                rl->peakwork, rl->peaktraffic);
                first = false;
        }
        for (size_t i = 0; i < c->n_achievedvalues; i++) {
                const NV__Profiler__ProfilerSectionRooflineAchievedValue *av = c->achievedvalues[i];
                render_roofline_values(r, first ? chart_heading : NULL, av->options ? av->options->label : NULL,
                                "Achieved", av->achievedwork, av->achievedtraffic);
                first = false;
        }
}

/* One row per GPU of the NUMA metrics' instances. */
static void render_numa_table(Renderer *r, const char *label)
{
        static const char *const columns[] = {
                "GPU ID",
                "GPU Name",
                "NUMA ID by CPU Affinity",
                "CPU Affinity",
                "NUMA ID by Memory Affinity",
        };
        static const bool left_aligned[] = { false, true, false, false, false };
        static const char *const metrics[] = {
                NULL,
                "numa__dev_display_name_all",
                "numa__id_cpu",
                "numa__cpu_affinity",
                "numa__id_memory",
        };
        const NcuMetric *names = ncu_action_metric_by_name(r->action, "numa__dev_display_name_all");
        _cleanup_free_ char *storage = NULL;
        _cleanup_free_ const char **cells = NULL;
        size_t n;

        if (!names)
                return;
        n = names->n_instances;
        cells = calloc(MAX(n * ELEMENTSOF(columns), (size_t) 1), sizeof(const char *));
        storage = calloc(MAX(n * ELEMENTSOF(columns), (size_t) 1) * NCU_CSV_NUMBER_MAX, sizeof(char));
        if (!cells || !storage) {
                r->error = -ENOMEM;
                return;
        }
        for (size_t i = 0; i < n; i++)
                for (size_t c = 0; c < ELEMENTSOF(columns); c++) {
                        char *buf = storage + (i * ELEMENTSOF(columns) + c) * NCU_CSV_NUMBER_MAX;
                        const NcuMetric *m = metrics[c] ? ncu_action_metric_by_name(r->action, metrics[c]) : NULL;
                        const char *s = NULL;
                        if (!metrics[c]) {
                                snprintf(buf, NCU_CSV_NUMBER_MAX, "%zu", i);
                                s = buf;
                        } else if (m && i < m->n_instances)
                                s = ncu_cell_format_value(&m->instances[i].value, buf);
                        cells[i * ELEMENTSOF(columns) + c] = s;
                }
        /* The table has its own title, whatever the item's label says. */
        SINK(r, grid,
                        &(const NcuDetailsGrid){
                                        .label = "NUMA Affinity",
                                        .n_columns = ELEMENTSOF(columns),
                                        .columns = columns,
                                        .left_aligned = left_aligned,
                                        .n_rows = n,
                                        .cells = cells,
                        });
}

static bool instance_double(const NcuAction *a, const char *name, size_t i, double *ret)
{
        const NcuMetric *m = ncu_action_metric_by_name(a, name);

        *ret = 0;
        if (!m)
                return false;
        if (i < m->n_instances)
                return ncu_value_as_double(&m->instances[i].value, ret);
        return i == 0 && m->has_value && ncu_value_as_double(&m->value, ret);
}

static const char *instance_yes_no(const NcuAction *a, const char *name, size_t i)
{
        double d;

        if (!instance_double(a, name, i, &d))
                return "-";
        return d != 0 ? "Yes" : "No";
}

static const char *device_name(const NcuAction *a, double id)
{
        const NcuMetric *m = ncu_action_metric_by_name(a, "nvlink__dev_display_name_all");

        /* Compared as doubles first: a value no size_t holds does not convert. */
        if (!m || !(id >= 0) || id >= (double) m->n_instances ||
                        m->instances[(size_t) id].value.kind != NCU_VALUE_STRING)
                return "-";
        return strempty(m->instances[(size_t) id].value.s);
}

#define NVLINK_COLUMNS 14
#define NVLINK_CELL_MAX 64

/* The topology is a picture: without links ncu says so in a line of text; with links the text page lists
 * them, one row per logical link, and the CSV page says it cannot (ncu's own words). What the report has not
 * measured (throughputs, utilization) reads "-". */
static void render_nvlink_topology(Renderer *r, const char *label)
{
        static const char *const columns[NVLINK_COLUMNS] = {
                "Logical NvLink",
                "Direct Link",
                "NvLink Status",
                "Dev1 Name",
                "Dev2 Name",
                "Physical NvLinks",
                "Peer Access",
                "System Access",
                "Peer Atomic",
                "System Atomic",
                "Peak Bandwidth",
                "Dev1 Received Throughput",
                "Dev1 Transferred Throughput",
                "Utilization %",
        };
        static const bool left_aligned[NVLINK_COLUMNS] = { true, true };
        const NcuMetric *m = ncu_action_metric_by_name(r->action, "nvlink__count_logical");
        _cleanup_free_ const char **cells = NULL;
        _cleanup_free_ char *storage = NULL;
        uint64_t links = 0;

        if (m && m->has_value)
                (void) ncu_value_as_uint64(&m->value, &links);
        if (links == 0) {
                SINK(r, note, label, "The system does not have any NVLink connections.");
                return;
        }
        links = MIN(links, (uint64_t) 1024); /* more than any machine has: bounded by what the report claims */
        cells = calloc(links * NVLINK_COLUMNS, sizeof(char *));
        storage = calloc(links * 4, NVLINK_CELL_MAX);
        if (!cells || !storage) {
                r->error = -ENOMEM;
                return;
        }
        for (size_t i = 0; i < links; i++) {
                const char **row = cells + i * NVLINK_COLUMNS;
                char *s = storage + i * 4 * NVLINK_CELL_MAX;
                double dev0 = -1, dev1 = -1, physical = 0, bandwidth = 0;

                (void) instance_double(r->action, "nvlink__dev0Id", i, &dev0);
                (void) instance_double(r->action, "nvlink__dev1Id", i, &dev1);
                snprintf(s, NVLINK_CELL_MAX, "GPU %.0f<->GPU %.0f", dev0, dev1);
                row[0] = s;
                row[1] = instance_yes_no(r->action, "nvlink__is_direct_link", i);
                row[2] = "Enabled";
                row[3] = device_name(r->action, dev0);
                row[4] = device_name(r->action, dev1);
                (void) instance_double(r->action, "nvlink__count_physical", i, &physical);
                snprintf(s + NVLINK_CELL_MAX, NVLINK_CELL_MAX, "%.0f", physical);
                row[5] = s + NVLINK_CELL_MAX;
                row[6] = instance_yes_no(r->action, "nvlink__peer_access", i);
                row[7] = instance_yes_no(r->action, "nvlink__system_access", i);
                row[8] = instance_yes_no(r->action, "nvlink__peer_atomic", i);
                row[9] = instance_yes_no(r->action, "nvlink__system_atomic", i);
                if (instance_double(r->action, "nvlink__bandwidth", i, &bandwidth))
                        snprintf(s + 2 * NVLINK_CELL_MAX, NVLINK_CELL_MAX, "%.2f GB/s", bandwidth / 1e9);
                else
                        snprintf(s + 2 * NVLINK_CELL_MAX, NVLINK_CELL_MAX, "-");
                row[10] = s + 2 * NVLINK_CELL_MAX;
                row[11] = row[12] = row[13] = "-";
        }
        SINK(r, grid,
                        &(const NcuDetailsGrid){
                                        .label = "NVLink Topology Details",
                                        .under_body_name = true,
                                        .csv_replacement = "==WARNING== NVLink body items support CSV format only if "
                                                           "there are no metrics to print.",
                                        .n_columns = NVLINK_COLUMNS,
                                        .columns = columns,
                                        .left_aligned = left_aligned,
                                        .n_rows = links,
                                        .cells = cells,
                        });
}

static void render_item(Renderer *r, const NV__Profiler__ProfilerSectionBodyItem *item)
{
        if (item->filter && !filter_matches_arch(item->filter, r->arch))
                return;

        if (item->horizontalcontainer) {
                for (size_t i = 0; i < item->horizontalcontainer->n_items; i++)
                        render_item(r, item->horizontalcontainer->items[i]);
        } else if (item->table) {
                const NV__Profiler__ProfilerSectionTable *t = item->table;
                render_metrics(r, t->label, t->description, t->metrics, t->n_metrics,
                                t->has_sortkey && t->sortkey == NV__PROFILER__SORT_KEYS__ByValue,
                                t->has_sortdirection && t->sortdirection == NV__PROFILER__SORT_DIRECTIONS__Descending);
        } else if (item->barchart) {
                const NV__Profiler__ProfilerSectionBarChart *c = item->barchart;
                render_metrics(r, c->label, c->description, c->metrics, c->n_metrics,
                                c->has_sortkey && c->sortkey == NV__PROFILER__SORT_KEYS__ByValue,
                                c->has_sortdirection && c->sortdirection == NV__PROFILER__SORT_DIRECTIONS__Descending);
        } else if (item->histogramchart) {
                const NV__Profiler__ProfilerSectionHistogramChart *c = item->histogramchart;
                if (c->metric)
                        render_metrics(r, c->label, c->description, &c->metric, 1, false, false);
        } else if (item->linechart) {
                const NV__Profiler__ProfilerSectionLineChart *c = item->linechart;
                Rows rows = { .items = NULL };
                for (size_t i = 0; i < c->n_metrics; i++)
                        add_metric(r, &rows, c->metrics[i]);
                if (c->highlightx)
                        for (size_t i = 0; i < c->highlightx->n_metrics; i++)
                                add_metric(r, &rows, c->highlightx->metrics[i]);
                emit_item_rows(r, c->label, c->description, &rows, false, false);
                rows_clear(&rows);
        } else if (item->suffixtable)
                render_suffix_table(r, item->suffixtable);
        else if (item->rooflinechart)
                render_roofline(r, item->rooflinechart);
        else if (item->sourcemetrictable) {
                const NV__Profiler__ProfilerSourceMetricTable *t = item->sourcemetrictable;
                render_metrics(r, t->label, t->description, t->metrics, t->n_metrics, false, false);
        } else if (item->memorychart)
                render_group(r, item->memorychart->label, "group:memory__chart");
        else if (item->memorysharedtable)
                render_group(r, item->memorysharedtable->label, "group:memory__shared_table");
        else if (item->memoryfirstlevelcachetable)
                render_group(r, item->memoryfirstlevelcachetable->label, "group:memory__first_level_cache_table");
        else if (item->memoryl1texcachetable)
                render_group(r, item->memoryl1texcachetable->label, "group:memory__first_level_cache_table");
        else if (item->memorysecondlevelcachetable)
                render_group(r, item->memorysecondlevelcachetable->label, "group:memory__l2_cache_table");
        else if (item->memoryl2cachetable)
                render_group(r, item->memoryl2cachetable->label, "group:memory__l2_cache_table");
        else if (item->memoryl2cacheevictpolicytable)
                render_group(r, item->memoryl2cacheevictpolicytable->label,
                                "group:memory__l2_cache_evict_policy_table");
        else if (item->memorydevicememorytable)
                render_group(r, item->memorydevicememorytable->label, "group:memory__dram_table");
        else if (item->numaidtable)
                render_numa_table(r, item->numaidtable->label);
        else if (item->nvlinktopology)
                render_nvlink_topology(r, item->nvlinktopology->label);
        else if (item->timeline)
                /* A picture of the sampled metrics: the text page shows the section, and nothing of it. */
                SINK(r, note, NULL, NULL);
}

static void render_rules(Renderer *r, const char *identifier)
{
        for (size_t i = 0; i < r->action->n_rule_results; i++) {
                const NcuRuleResult *rr = &r->action->rule_results[i];

                if (!rr->section_identifier || !streq(rr->section_identifier, identifier))
                        continue;
                for (size_t j = 0; j < rr->n_messages; j++)
                        if (rr->messages[j].text)
                                SINK(r, rule, identifier, rr, j);
        }
}

static void render_section(Renderer *r, const NV__Profiler__ProfilerSection *s)
{
        const char *name = s->displayname ? s->displayname : s->identifier;

        if (s->filter && !filter_matches_arch(s->filter, r->arch))
                return;

        SINK(r, section_begin, name, s->identifier);
        if (r->level != NCU_PRINT_DETAILS_BODY) {
                Rows rows = { .items = NULL };

                if (s->header)
                        for (size_t i = 0; i < s->header->n_metrics; i++)
                                add_metric(r, &rows, s->header->metrics[i]);
                if (r->level == NCU_PRINT_DETAILS_ALL) {
                        if (s->metrics)
                                for (size_t i = 0; i < s->metrics->n_metrics; i++)
                                        add_metric(r, &rows, s->metrics->metrics[i]);
                        if (s->sourcemetrics)
                                for (size_t i = 0; i < s->sourcemetrics->n_metrics; i++)
                                        add_metric(r, &rows, s->sourcemetrics->metrics[i]);
                }
                emit_rows(r, "", NULL, 0, &rows, false, false);
                rows_clear(&rows);
        }

        if (r->level != NCU_PRINT_DETAILS_HEADER)
                for (size_t b = 0; b < s->n_body && r->error == 0; b++) {
                        SINK(r, body_begin, s->body[b]->displayname);
                        for (size_t i = 0; i < s->body[b]->n_items && r->error == 0; i++)
                                render_item(r, s->body[b]->items[i]);
                }

        if (s->identifier && r->error == 0)
                render_rules(r, s->identifier);
        SINK0(r, section_end);
}

/* Nesting deeper than any real section (they nest a handful of levels) is refused before unpacking:
 * protobuf-c unpacks nested messages recursively, so a crafted report could exhaust the stack. */
#define SECTION_NESTING_MAX 32

typedef struct SortedSection {
        NV__Profiler__ProfilerSection *section;
        size_t index;
} SortedSection;

static int compare_sections(const void *a, const void *b)
{
        const SortedSection *x = a, *y = b;
        uint32_t ox = x->section->has_order ? x->section->order : 0, oy = y->section->has_order ? y->section->order : 0;
        if (ox != oy)
                return ox < oy ? -1 : 1;
        /* Equal orders go by display name. */
        int c = strcmp(strempty(x->section->displayname), strempty(y->section->displayname));
        if (c != 0)
                return c;
        return x->index < y->index ? -1 : x->index > y->index;
}

static unsigned action_arch(const NcuAction *a)
{
        const NcuMetric *major = ncu_action_metric_by_name(a, "device__attribute_compute_capability_major"),
                        *minor = ncu_action_metric_by_name(a, "device__attribute_compute_capability_minor");
        uint64_t ma = 0, mi = 0;

        if (major && major->has_value)
                (void) ncu_value_as_uint64(&major->value, &ma);
        if (minor && minor->has_value)
                (void) ncu_value_as_uint64(&minor->value, &mi);
        return (unsigned) (ma * 10 + mi);
}

/* Whether ncu 2024.1.1's schema names the compute capability (an action without one counts as known). */
static bool arch_in_schema(unsigned arch)
{
        if (arch == 0)
                return true;
        const ProtobufCEnumValue *v =
                        protobuf_c_enum_descriptor_get_value(&nv__profiler__messages__gpu_arch__descriptor, (int) arch);
        return v && arch <= NCU_EXPORT_MAX_ARCH;
}

static void render_action(Renderer *r)
{
        const NcuAction *a = r->action;
        SortedSection *sorted = calloc(MAX(a->n_sections, (size_t) 1), sizeof(SortedSection));
        size_t n = 0;

        if (!sorted) {
                r->error = -ENOMEM;
                return;
        }
        for (size_t i = 0; i < a->n_sections; i++) {
                /* Sub-messages SECTION_NESTING_MAX deep below the section, which counts as one; a
                 * section that breaks the wire format is not shown either. */
                if (ncu_wire_nesting_ok(&nv__profiler__profiler_section__descriptor, a->sections[i].data,
                                    a->sections[i].size, SECTION_NESTING_MAX + 1) != 1)
                        continue;
                NV__Profiler__ProfilerSection *s =
                                nv__profiler__profiler_section__unpack(NULL, a->sections[i].size, a->sections[i].data);
                if (!s)
                        continue; /* not a section we can read: ncu would not show it either */
                sorted[n++] = (SortedSection){ .section = s, .index = i };
        }
        qsort_safe(sorted, n, sizeof(SortedSection), compare_sections);

        SINK(r, action_begin, r->id, a);
        if (r->unknown_arch && r->level != NCU_PRINT_DETAILS_BODY)
                SINK0(r, unknown_arch);
        for (size_t i = 0; i < n && r->error == 0; i++)
                render_section(r, sorted[i].section);
        if (r->unknown_arch && r->level != NCU_PRINT_DETAILS_HEADER)
                SINK0(r, unknown_arch);
        SINK0(r, action_end);

        for (size_t i = 0; i < n; i++)
                nv__profiler__profiler_section__free_unpacked(sorted[i].section, NULL);
        free(sorted);
}

static int walk_action(
                const NcuReport *report, size_t id, NcuPrintDetails level, const NcuDetailsSink *sink, void *userdata)
{
        Renderer r = {
                .sink = sink,
                .userdata = userdata,
                .level = level,
                .id = id,
                .action = report->actions[id],
        };

        r.arch = action_arch(r.action);
        /* ncu 2024.1.1 says of a compute capability its schema lacks "Failed to detect compute capability,
         * assuming 50": it then evaluates every filter (section, body item, metric, option) as for 5.0, which is
         * why it shows the metrics whose filters admit an old GPU (SpeedOfLight's DRAM rows, under
         * MaxArch: CC_70 or under an Items entry whose bounds are all newer than its schema). */
        r.unknown_arch = !arch_in_schema(r.arch);
        if (r.unknown_arch)
                r.arch = NCU_ASSUMED_ARCH;
        render_action(&r);
        return r.error;
}

int ncu_details_walk(const NcuReport *report, NcuPrintDetails level, const NcuDetailsSink *sink, void *userdata)
{
        int r = 0;

        assert(report);
        assert(sink);
        assert(level >= 0 && level < _NCU_PRINT_DETAILS_MAX);

        for (size_t i = 0; i < report->n_actions && r == 0; i++)
                r = walk_action(report, i, level, sink, userdata);
        return r;
}

int ncu_details_walk_action(const NcuReport *report, const NcuAction *a, NcuPrintDetails level,
                const NcuDetailsSink *sink, void *userdata)
{
        assert(report);
        assert(a);
        assert(sink);
        assert(level >= 0 && level < _NCU_PRINT_DETAILS_MAX);

        for (size_t i = 0; i < report->n_actions; i++)
                if (report->actions[i] == a)
                        return walk_action(report, i, level, sink, userdata);
        return -ENOENT;
}
