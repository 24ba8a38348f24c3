/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ncu's details page as CSV: every section embedded in an action, rendered against it. Per section, in
 * section Order: the metrics outside the body (header, Metrics, SourceMetrics) sorted by metric name, then
 * each body item's metrics (tables and charts, sorted by name, or by value where the item says so), then
 * the section's rule results. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "ProfilerSection.pb-c.h"
#include "macro.h"
#include "metric-attrs.h"
#include "report-container.h"
#include "report-export-csv.h"
#include "report-export-cells.h"
#include "report-export.h"
#include "section-metrics.h"
#include "string-util.h"

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
        FILE *f;
        size_t id;
        const NcuAction *action;
        unsigned arch;
        bool rule_columns;
        Cell cell;
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

static int compare_valued_descending(const void *a, const void *b)
{
        const ValuedRow *x = a, *y = b;
        if (x->value != y->value)
                return x->value > y->value ? -1 : 1;
        return compare_rows_by_name(x->row, y->row);
}

static int compare_valued_ascending(const void *a, const void *b)
{
        const ValuedRow *x = a, *y = b;
        if (x->value != y->value)
                return x->value < y->value ? -1 : 1;
        return compare_rows_by_name(x->row, y->row);
}

/* "{UNIT}: {COMPOUND_NAME}" labels of breakdowns: the hardware unit in capitals and the counter's words
 * capitalized ("sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed" -> "SM: Inst Executed Pipe
 * Lsu"). ncu names some units differently from their prefix. */
static char *breakdown_label(const char *name)
{
        static const struct {
                const char *prefix, *unit;
        } unit_names[] = {
                { "l1tex", "L1" },
                { "lts", "L2" },
                { "fbpa", "DRAM" },
                { "dram", "DRAM" },
        };
        const char *sep = strstr(name, "__");
        const char *end = strchr(name, '.');
        char unit[64], words[256];
        size_t n = 0;

        if (!sep || (end && end < sep))
                return strdup(name);
        if (!end)
                end = name + strlen(name);

        snprintf(unit, sizeof(unit), "%.*s", (int) (sep - name), name);
        for (size_t i = 0; i < ELEMENTSOF(unit_names); i++)
                if (streq(unit, unit_names[i].prefix))
                        snprintf(unit, sizeof(unit), "%s", unit_names[i].unit);
        for (char *p = unit; *p; p++)
                if (*p >= 'a' && *p <= 'z')
                        *p = (char) (*p - 'a' + 'A');

        bool word_start = true;
        for (const char *p = sep + 2; p < end && n + 1 < sizeof(words); p++) {
                char c = *p;
                if (c == '_') {
                        words[n++] = ' ';
                        word_start = true;
                        continue;
                }
                if (word_start && c >= 'a' && c <= 'z')
                        c = (char) (c - 'a' + 'A');
                words[n++] = c;
                word_start = false;
        }
        words[n] = 0;

        char *s;
        if (asprintf(&s, "%s: %s", unit, words) < 0)
                return NULL;
        return s;
}

static void write_metric_row(Renderer *r, const char *section, const char *item_label, const Row *row)
{
        const NcuMetric *m = ncu_action_metric_by_name(r->action, row->name);
        char unit[METRIC_UNIT_MAX];
        _cleanup_free_ char *label = NULL;
        MetricAttrs attrs;

        if (!m) {
                /* A metric the section shows but the report lacks (not collected on this GPU). */
                ncu_export_write_action_columns(r->f, r->id, r->action);
                ncu_csv_write_field(r->f, section, false);
                ncu_csv_write_field(r->f, item_label, false);
                ncu_csv_write_field(r->f, row->label ? row->label : row->name, false);
                ncu_csv_write_field(r->f, NULL, false);
                ncu_csv_write_field(r->f, "n/a", false);
                if (r->rule_columns)
                        fputc(',', r->f);
                fputc('\n', r->f);
                return;
        }

        ncu_metric_attrs(r->action, m, row->metric ? row->metric->unit : NULL, &attrs);
        if (!row->metric || !row->metric->unit || !row->metric->unit[0])
                metric_attrs_details_unit(row->name, &attrs);
        metric_attrs_csv_unit(&attrs, unit);

        const char *shown = row->label ? row->label : row->name;
        if (row->label && strstr(row->label, "{UNIT}")) {
                label = breakdown_label(row->name);
                if (!label) {
                        r->error = -ENOMEM;
                        return;
                }
                shown = label;
        }

        bool instances = row->metric && row->metric->has_showinstances && row->metric->showinstances;
        ncu_cell_format_metric(&r->cell, m, instances);

        ncu_export_write_action_columns(r->f, r->id, r->action);
        ncu_csv_write_field(r->f, section, false);
        ncu_csv_write_field(r->f, item_label, false);
        ncu_csv_write_field(r->f, shown, false);
        ncu_csv_write_field(r->f, unit, false);
        ncu_csv_write_field(r->f, r->cell.data, false);
        if (r->rule_columns)
                fputc(',', r->f);
        fputc('\n', r->f);
}

static void write_rows(
                Renderer *r, const char *section, const char *item_label, Rows *rows, bool by_value, bool descending)
{
        if (!by_value) {
                qsort_safe(rows->items, rows->n, sizeof(Row), compare_rows_by_name);
                for (size_t i = 0; i < rows->n; i++)
                        /* A metric listed twice (header and Metrics) shows once. */
                        if (i == 0 || !streq(rows->items[i].name, rows->items[i - 1].name))
                                write_metric_row(r, section, item_label, &rows->items[i]);
                return;
        }

        ValuedRow *v = malloc(MAX(rows->n, (size_t) 1) * sizeof(ValuedRow));
        if (!v) {
                r->error = -ENOMEM;
                return;
        }
        for (size_t i = 0; i < rows->n; i++)
                v[i] = (ValuedRow){ .value = row_value(r, &rows->items[i]), .row = &rows->items[i] };
        qsort_safe(v, rows->n, sizeof(ValuedRow), descending ? compare_valued_descending : compare_valued_ascending);
        for (size_t i = 0; i < rows->n; i++)
                write_metric_row(r, section, item_label, v[i].row);
        free(v);
}

static void render_metrics(Renderer *r, const char *section, const char *item_label,
                NV__Profiler__ProfilerSectionMetric *const *metrics, size_t n, bool by_value, bool descending)
{
        Rows rows = { .items = NULL };

        for (size_t i = 0; i < n; i++)
                add_metric(r, &rows, metrics[i]);
        write_rows(r, section, item_label, &rows, by_value, descending);
        rows_clear(&rows);
}

/* Every base name (those its filter admits) with every suffix, under the base name's label. */
static void render_suffix_table(Renderer *r, const char *section, const NV__Profiler__ProfilerSuffixTable *t)
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
        write_rows(r, section, t->label, &rows, t->has_sortkey && t->sortkey == NV__PROFILER__SORT_KEYS__ByValue,
                        t->has_sortdirection && t->sortdirection == NV__PROFILER__SORT_DIRECTIONS__Descending);
        rows_clear(&rows);
}

/* The memory tables and chart show the metrics of a group the report stores ("group:memory__…"), each
 * under its own name, sorted. */
static void render_group(Renderer *r, const char *section, const char *label, const char *group)
{
        Rows rows = { .items = NULL };

        add_list(r, &rows, NULL, group, NULL, false);
        write_rows(r, section, label, &rows, false, false);
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

/* Each roofline and achieved value under its label: the work value's metrics, then the traffic value's,
 * each sorted by name. */
static void render_roofline_values(Renderer *r, const char *section, const char *label,
                const NV__Profiler__ProfilerSectionRooflineValue *work,
                const NV__Profiler__ProfilerSectionRooflineValue *traffic)
{
        Rows rows = { .items = NULL };

        add_roofline_value(r, &rows, work);
        write_rows(r, section, label, &rows, false, false);
        rows_clear(&rows);
        add_roofline_value(r, &rows, traffic);
        write_rows(r, section, label, &rows, false, false);
        rows_clear(&rows);
}

static void render_roofline(Renderer *r, const char *section, const NV__Profiler__ProfilerSectionRooflineChart *c)
{
        for (size_t i = 0; i < c->n_rooflines; i++) {
                const NV__Profiler__ProfilerSectionChartRoofline *rl = c->rooflines[i];
                render_roofline_values(
                                r, section, rl->options ? rl->options->label : NULL, rl->peakwork, rl->peaktraffic);
        }
        for (size_t i = 0; i < c->n_achievedvalues; i++) {
                const NV__Profiler__ProfilerSectionRooflineAchievedValue *av = c->achievedvalues[i];
                render_roofline_values(r, section, av->options ? av->options->label : NULL, av->achievedwork,
                                av->achievedtraffic);
        }
}

/* A plain CSV table inside the export, as ncu prints it: one row per GPU of the NUMA metrics' instances. */
static void render_numa_table(Renderer *r)
{
        static const char *const columns[] = {
                "GPU ID",
                "GPU Name",
                "NUMA ID by CPU Affinity",
                "CPU Affinity",
                "NUMA ID by Memory Affinity",
        };
        static const char *const metrics[] = {
                NULL,
                "numa__dev_display_name_all",
                "numa__id_cpu",
                "numa__cpu_affinity",
                "numa__id_memory",
        };
        const NcuMetric *names = ncu_action_metric_by_name(r->action, "numa__dev_display_name_all");
        char buf[NCU_CSV_NUMBER_MAX];

        if (!names)
                return;
        for (size_t c = 0; c < ELEMENTSOF(columns); c++)
                ncu_csv_write_field(r->f, columns[c], c == 0);
        fputc('\n', r->f);
        for (size_t i = 0; i < names->n_instances; i++) {
                for (size_t c = 0; c < ELEMENTSOF(columns); c++) {
                        const NcuMetric *m = metrics[c] ? ncu_action_metric_by_name(r->action, metrics[c]) : NULL;
                        const char *s = NULL;
                        if (!metrics[c]) {
                                snprintf(buf, sizeof(buf), "%zu", i);
                                s = buf;
                        } else if (m && i < m->n_instances)
                                s = ncu_cell_format_value(&m->instances[i].value, buf);
                        ncu_csv_write_field(r->f, s, c == 0);
                }
                fputc('\n', r->f);
        }
}

/* The topology is a picture; without links ncu says so in a line of text. */
static void render_nvlink_topology(Renderer *r)
{
        const NcuMetric *m = ncu_action_metric_by_name(r->action, "nvlink__count_logical");
        uint64_t links = 0;

        if (m && m->has_value)
                (void) ncu_value_as_uint64(&m->value, &links);
        if (links == 0)
                fputs("    The system does not have any NVLink connections.\n\n", r->f);
}

static void render_item(Renderer *r, const char *section, const NV__Profiler__ProfilerSectionBodyItem *item)
{
        if (item->filter && !filter_matches_arch(item->filter, r->arch))
                return;

        if (item->horizontalcontainer) {
                for (size_t i = 0; i < item->horizontalcontainer->n_items; i++)
                        render_item(r, section, item->horizontalcontainer->items[i]);
        } else if (item->table) {
                const NV__Profiler__ProfilerSectionTable *t = item->table;
                render_metrics(r, section, t->label, t->metrics, t->n_metrics,
                                t->has_sortkey && t->sortkey == NV__PROFILER__SORT_KEYS__ByValue,
                                t->has_sortdirection && t->sortdirection == NV__PROFILER__SORT_DIRECTIONS__Descending);
        } else if (item->barchart) {
                const NV__Profiler__ProfilerSectionBarChart *c = item->barchart;
                render_metrics(r, section, c->label, c->metrics, c->n_metrics,
                                c->has_sortkey && c->sortkey == NV__PROFILER__SORT_KEYS__ByValue,
                                c->has_sortdirection && c->sortdirection == NV__PROFILER__SORT_DIRECTIONS__Descending);
        } else if (item->histogramchart) {
                const NV__Profiler__ProfilerSectionHistogramChart *c = item->histogramchart;
                if (c->metric)
                        render_metrics(r, section, c->label, &c->metric, 1, false, false);
        } else if (item->linechart) {
                const NV__Profiler__ProfilerSectionLineChart *c = item->linechart;
                Rows rows = { .items = NULL };
                for (size_t i = 0; i < c->n_metrics; i++)
                        add_metric(r, &rows, c->metrics[i]);
                if (c->highlightx)
                        for (size_t i = 0; i < c->highlightx->n_metrics; i++)
                                add_metric(r, &rows, c->highlightx->metrics[i]);
                write_rows(r, section, c->label, &rows, false, false);
                rows_clear(&rows);
        } else if (item->suffixtable)
                render_suffix_table(r, section, item->suffixtable);
        else if (item->rooflinechart)
                render_roofline(r, section, item->rooflinechart);
        else if (item->sourcemetrictable) {
                const NV__Profiler__ProfilerSourceMetricTable *t = item->sourcemetrictable;
                render_metrics(r, section, t->label, t->metrics, t->n_metrics, false, false);
        } else if (item->memorychart)
                render_group(r, section, item->memorychart->label, "group:memory__chart");
        else if (item->memorysharedtable)
                render_group(r, section, item->memorysharedtable->label, "group:memory__shared_table");
        else if (item->memoryfirstlevelcachetable)
                render_group(r, section, item->memoryfirstlevelcachetable->label,
                                "group:memory__first_level_cache_table");
        else if (item->memoryl1texcachetable)
                render_group(r, section, item->memoryl1texcachetable->label, "group:memory__first_level_cache_table");
        else if (item->memorysecondlevelcachetable)
                render_group(r, section, item->memorysecondlevelcachetable->label, "group:memory__l2_cache_table");
        else if (item->memoryl2cachetable)
                render_group(r, section, item->memoryl2cachetable->label, "group:memory__l2_cache_table");
        else if (item->memoryl2cacheevictpolicytable)
                render_group(r, section, item->memoryl2cacheevictpolicytable->label,
                                "group:memory__l2_cache_evict_policy_table");
        else if (item->memorydevicememorytable)
                render_group(r, section, item->memorydevicememorytable->label, "group:memory__dram_table");
        else if (item->numaidtable)
                render_numa_table(r);
        else if (item->nvlinktopology)
                render_nvlink_topology(r);
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

static const char *message_type_name(uint32_t type)
{
        switch (type) {
        case NCU_RULE_MSG_OK:
                return "INF";
        case NCU_RULE_MSG_WARNING:
                return "WRN";
        case NCU_RULE_MSG_ERROR:
                return "ERR";
        case NCU_RULE_MSG_OPTIMIZATION:
                return "OPT";
        default:
                return "";
        }
}

/* A rule message as the CSV shows it: ncu's inline markup reduced to text, "@url:TEXT:URL@" to
 * "TEXT (URL)" and "@section:ID:TEXT@" to TEXT. */
static void plain_message(Cell *c, const char *s)
{
        cell_reset(c);
        for (const char *p = s; *p;) {
                const char *at = strchr(p, '@');
                if (!at) {
                        cell_puts(c, p);
                        break;
                }
                cell_append(c, p, at - p);
                const char *end = strchr(at + 1, '@');
                const char *kind_end = strchr(at + 1, ':');
                if (!end || !kind_end || kind_end > end) {
                        cell_puts(c, "@");
                        p = at + 1;
                        continue;
                }
                size_t kind_len = kind_end - at - 1;
                const char *body = kind_end + 1;
                const char *colon = memchr(body, ':', end - body);
                if (kind_len == 3 && strneq(at + 1, "url", 3) && colon) {
                        cell_append(c, body, colon - body);
                        cell_puts(c, " (");
                        cell_append(c, colon + 1, end - colon - 1);
                        cell_puts(c, ")");
                } else if (colon)
                        cell_append(c, colon + 1, end - colon - 1);
                else
                        cell_append(c, body, end - body);
                p = end + 1;
        }
}

static void render_rules(Renderer *r, const char *identifier)
{
        for (size_t i = 0; i < r->action->n_rule_results; i++) {
                const NcuRuleResult *rr = &r->action->rule_results[i];
                char buf[NCU_CSV_NUMBER_MAX];

                if (!rr->section_identifier || !streq(rr->section_identifier, identifier))
                        continue;
                for (size_t j = 0; j < rr->n_messages; j++) {
                        const NcuRuleMessage *msg = &rr->messages[j];
                        const NcuSpeedup *sp = NULL;

                        if (!msg->text || msg->type == NCU_RULE_MSG_NONE)
                                continue;
                        /* The rule's speedup estimates follow its messages one to one. */
                        if (j < rr->n_speedups)
                                sp = &rr->speedups[j];

                        ncu_export_write_action_columns(r->f, r->id, r->action);
                        ncu_csv_write_field(r->f, identifier, false);
                        for (size_t k = 0; k < 4; k++)
                                ncu_csv_write_field(r->f, NULL, false);
                        ncu_csv_write_field(r->f, rr->identifier, false);
                        ncu_csv_write_field(r->f, message_type_name(msg->type), false);
                        plain_message(&r->cell, msg->text);
                        ncu_csv_write_field(r->f, r->cell.data, false);
                        if (sp && sp->has_value) {
                                ncu_csv_write_field(r->f, speedup_type_name(sp->type), false);
                                snprintf(buf, sizeof(buf), "%.4g", sp->value);
                                ncu_csv_write_field(r->f, buf, false);
                        } else {
                                ncu_csv_write_field(r->f, NULL, false);
                                ncu_csv_write_field(r->f, NULL, false);
                        }
                        fputc('\n', r->f);
                }
        }
}

static void render_section(Renderer *r, const NV__Profiler__ProfilerSection *s)
{
        const char *name = s->displayname ? s->displayname : s->identifier;
        Rows rows = { .items = NULL };

        if (s->filter && !filter_matches_arch(s->filter, r->arch))
                return;

        /* Everything outside the body, in one list sorted by metric name. */
        if (s->header)
                for (size_t i = 0; i < s->header->n_metrics; i++)
                        add_metric(r, &rows, s->header->metrics[i]);
        if (s->metrics)
                for (size_t i = 0; i < s->metrics->n_metrics; i++)
                        add_metric(r, &rows, s->metrics->metrics[i]);
        if (s->sourcemetrics)
                for (size_t i = 0; i < s->sourcemetrics->n_metrics; i++)
                        add_metric(r, &rows, s->sourcemetrics->metrics[i]);
        write_rows(r, name, "", &rows, false, false);
        rows_clear(&rows);

        for (size_t b = 0; b < s->n_body; b++)
                for (size_t i = 0; i < s->body[b]->n_items; i++)
                        render_item(r, name, s->body[b]->items[i]);

        if (s->identifier)
                render_rules(r, s->identifier);
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
        for (size_t i = 0; i < n && r->error == 0; i++)
                render_section(r, sorted[i].section);
        for (size_t i = 0; i < n; i++)
                nv__profiler__profiler_section__free_unpacked(sorted[i].section, NULL);
        free(sorted);
}

static const char *const details_column_names[] = {
        "Section Name",
        "Body Item Label",
        "Metric Name",
        "Metric Unit",
        "Metric Value",
};
static const char *const rule_column_names[] = {
        "Rule Name",
        "Rule Type",
        "Rule Description",
        "Estimated Speedup Type",
        "Estimated Speedup",
};

int ncu_export_details_csv(const NcuReport *report, FILE *f)
{
        Renderer r = { .f = f };

        assert(report);
        assert(f);

        for (size_t i = 0; i < report->n_actions; i++)
                if (report->actions[i]->n_rule_results > 0)
                        r.rule_columns = true;

        for (size_t i = 0; i < ELEMENTSOF(ncu_export_action_column_names); i++)
                ncu_csv_write_field(f, ncu_export_action_column_names[i], i == 0);
        for (size_t i = 0; i < ELEMENTSOF(details_column_names); i++)
                ncu_csv_write_field(f, details_column_names[i], false);
        if (r.rule_columns)
                for (size_t i = 0; i < ELEMENTSOF(rule_column_names); i++)
                        ncu_csv_write_field(f, rule_column_names[i], false);
        fputc('\n', f);

        for (size_t i = 0; i < report->n_actions && r.error == 0; i++) {
                r.id = i;
                r.action = report->actions[i];
                r.arch = action_arch(r.action);
                render_action(&r);
        }
        cell_done(&r.cell);
        if (r.error < 0)
                return r.error;
        if (r.cell.failed)
                return -ENOMEM;
        if (fflush(f) != 0 || ferror(f))
                return -EIO;
        return 0;
}
