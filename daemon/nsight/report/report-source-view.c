/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The source view of one action (report-source-view.h). */

#include "report-source-view.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ProfilerSection.pb-c.h"
#include "cubin-lines.h"
#include "json-util.h"
#include "strv.h"

/* A metric's value at one address (instances of one address summed). */
typedef struct Pair {
        uint64_t address;
        double value;
} Pair;

typedef struct ViewMetric {
        const NcuMetric *metric;
        const char *label, *unit;
        bool integral; /* every value an integer kind: sums print as integers */
        Pair *pairs; /* by address */
        size_t n_pairs;
} ViewMetric;

typedef struct Address {
        uint64_t address;
        int file; /* -1: not in the line table */
        int64_t line;
} Address;

typedef struct View {
        const NcuReport *report;
        const NcuAction *action;
        CubinLines *lines;
        bool has_placed;
        uint64_t lowest_placed; /* the lowest address a function of the module was loaded at */
        char **file_names; /* files, in their order */
        struct json_object *files;
        ViewMetric *metrics;
        size_t n_metrics;
        Address *addresses;
        size_t n_addresses;
        NV__Profiler__ProfilerSection **sections;
        size_t n_sections;
} View;

static void view_done(View *v)
{
        cubin_lines_free(v->lines);
        strv_free(v->file_names);
        json_object_put(v->files);
        for (size_t i = 0; i < v->n_metrics; i++)
                free(v->metrics[i].pairs);
        free(v->metrics);
        free(v->addresses);
        for (size_t i = 0; i < v->n_sections; i++)
                if (v->sections[i])
                        nv__profiler__profiler_section__free_unpacked(v->sections[i], NULL);
        free(v->sections);
}

static bool value_is_integral(const NcuValue *v)
{
        return v->kind == NCU_VALUE_UINT32 || v->kind == NCU_VALUE_UINT64;
}

static bool value_is_number(const NcuValue *v)
{
        return v->kind != NCU_VALUE_UNKNOWN && v->kind != NCU_VALUE_STRING;
}

static int add_file(View *v, const char *name, const char *content)
{
        struct json_object *file, *lines;
        int r;

        r = strv_extend(&v->file_names, name);
        if (r < 0)
                return r;
        file = json_object_new_object();
        lines = json_object_new_array();
        if (!file || !lines || json_object_array_add(v->files, file) < 0) {
                json_object_put(file);
                json_object_put(lines);
                return -ENOMEM;
        }
        if (json_object_object_add(file, "name", json_object_new_string(name)) < 0 ||
                        json_object_object_add(file, "lines", lines) < 0)
                return -ENOMEM;
        for (const char *p = content; p && *p;) {
                size_t n = strcspn(p, "\n");
                size_t text = n > 0 && p[n - 1] == '\r' ? n - 1 : n;

                if (json_object_array_add(lines, json_object_new_string_len(p, (int) MIN(text, (size_t) INT32_MAX))) <
                                0)
                        return -ENOMEM;
                p += n;
                if (*p == '\n')
                        p++;
        }
        return 0;
}

/* The stored sources of the action's module, the first of a name (as GetSourceFiles lists them). */
static int add_stored_files(View *v)
{
        const NcuReport *r = v->report;
        const NcuAction *a = v->action;

        if (!a->has_source_reference)
                return 0;
        for (size_t i = 0; i < r->n_sources; i++) {
                const NcuSource *src = &r->sources[i];

                if (!src->has_reference || src->reference != a->source_reference)
                        continue;
                for (size_t j = 0; j < src->n_files; j++) {
                        const NcuSourceFile *f = &src->files[j];
                        int k;

                        if (!f->file_name || strv_contains(v->file_names, f->file_name))
                                continue;
                        k = add_file(v, f->file_name, f->content);
                        if (k < 0)
                                return k;
                }
        }
        return 0;
}

static int build_lines(View *v)
{
        _cleanup_free_ const NcuRelocationSymbol **functions = NULL;
        _cleanup_free_ CubinFunction *placed = NULL;
        const NcuSource *src = v->action->source;
        size_t n_placed = 0;
        int n;

        if (!src || !src->binary)
                return 0;
        n = ncu_action_loaded_functions(v->report, v->action, &functions);
        if (n < 0)
                return n;
        placed = calloc((size_t) n + 1, sizeof(CubinFunction));
        if (!placed)
                return -ENOMEM;
        for (int i = 0; i < n; i++)
                if (functions[i]->has_address && functions[i]->symbol_name) {
                        placed[n_placed++] = (CubinFunction){ functions[i]->symbol_name, functions[i]->address };
                        if (!v->has_placed || functions[i]->address < v->lowest_placed)
                                v->lowest_placed = functions[i]->address;
                        v->has_placed = true;
                }
        return cubin_lines_new(src->binary, src->binary_size, placed, n_placed, &v->lines);
}

/* Whether every correlation id of m is an instruction's address: an integer on a line of the table, and
 * where the module's functions were placed, at or above the lowest of them. A metric keyed by something
 * else (launch statistics indices, opcodes, sampler passes) has ids that are not all there: small indices
 * can fall on the offsets of a function never loaded, which keeps its lines from 0. */
static bool keyed_by_address(const View *v, const NcuMetric *m)
{
        if (!v->lines || !m->has_correlation_ids || m->n_instances == 0)
                return false;
        for (size_t i = 0; i < m->n_instances; i++) {
                const NcuInstance *in = &m->instances[i];
                uint64_t id;

                if (!value_is_integral(&in->correlation_id) || !value_is_number(&in->value))
                        return false;
                if (!ncu_value_as_uint64(&in->correlation_id, &id) || (v->has_placed && id < v->lowest_placed) ||
                                !cubin_lines_lookup(v->lines, id, NULL, NULL))
                        return false;
        }
        return true;
}

static int unpack_sections(View *v)
{
        const NcuAction *a = v->action;

        v->sections = calloc(a->n_sections + 1, sizeof(NV__Profiler__ProfilerSection *));
        if (!v->sections)
                return -ENOMEM;
        v->n_sections = a->n_sections;
        for (size_t i = 0; i < a->n_sections; i++)
                /* One that does not unpack gives no labels. */
                v->sections[i] = nv__profiler__profiler_section__unpack(NULL, a->sections[i].size, a->sections[i].data);
        return 0;
}

static void find_label(const View *v, ViewMetric *m)
{
        m->label = m->metric->name;
        m->unit = "";
        for (size_t i = 0; i < v->n_sections; i++) {
                const NV__Profiler__ProfilerSection *s = v->sections[i];

                if (!s || !s->sourcemetrics)
                        continue;
                for (size_t j = 0; j < s->sourcemetrics->n_metrics; j++) {
                        const NV__Profiler__ProfilerSectionMetric *sm = s->sourcemetrics->metrics[j];

                        if (!sm->name || !streq(sm->name, m->metric->name))
                                continue;
                        if (sm->label)
                                m->label = sm->label;
                        if (sm->unit)
                                m->unit = sm->unit;
                        return;
                }
        }
}

static int address_compare(const void *a, const void *b)
{
        const Address *x = a, *y = b;

        return x->address < y->address ? -1 : x->address > y->address;
}

static int line_compare(const void *a, const void *b)
{
        const Address *x = *(const Address *const *) a, *y = *(const Address *const *) b;

        if (x->file != y->file)
                return x->file < y->file ? -1 : 1;
        if (x->line != y->line)
                return x->line < y->line ? -1 : 1;
        return x->address < y->address ? -1 : x->address > y->address;
}

/* The file index of path, added (without lines) when the report stores no such file. */
static int file_index(View *v, const char *path, int *ret)
{
        size_t n = strv_length(v->file_names);
        int r;

        for (size_t i = 0; i < n; i++)
                if (streq(v->file_names[i], path)) {
                        *ret = (int) i;
                        return 0;
                }
        if (n >= INT32_MAX)
                return -E2BIG;
        r = add_file(v, path, NULL);
        if (r < 0)
                return r;
        *ret = (int) n;
        return 0;
}

static int collect_addresses(View *v)
{
        size_t allocated = 0, n = 0;

        for (size_t i = 0; i < v->n_metrics; i++) {
                const NcuMetric *m = v->metrics[i].metric;

                for (size_t j = 0; j < m->n_instances; j++) {
                        uint64_t id = 0;

                        (void) ncu_value_as_uint64(&m->instances[j].correlation_id, &id);
                        if (GREEDY_REALLOC(v->addresses, allocated, n + 1) < 0)
                                return -ENOMEM;
                        v->addresses[n++] = (Address){ .address = id, .file = -1 };
                }
        }
        qsort_safe(v->addresses, n, sizeof(Address), address_compare);
        v->n_addresses = 0;
        for (size_t i = 0; i < n; i++)
                if (v->n_addresses == 0 || v->addresses[v->n_addresses - 1].address != v->addresses[i].address)
                        v->addresses[v->n_addresses++] = v->addresses[i];
        for (size_t i = 0; i < v->n_addresses; i++) {
                Address *a = &v->addresses[i];
                const char *path;
                int r;

                if (!cubin_lines_lookup(v->lines, a->address, &path, &a->line))
                        continue;
                r = file_index(v, path, &a->file);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int pair_compare(const void *a, const void *b)
{
        const Pair *x = a, *y = b;

        return x->address < y->address ? -1 : x->address > y->address;
}

/* m's values by address, instances of one address summed. */
static int metric_pairs(ViewMetric *vm)
{
        const NcuMetric *m = vm->metric;
        size_t n = 0;

        vm->pairs = calloc(m->n_instances + 1, sizeof(Pair));
        if (!vm->pairs)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_instances; i++) {
                Pair *p = &vm->pairs[i];

                (void) ncu_value_as_uint64(&m->instances[i].correlation_id, &p->address);
                (void) ncu_value_as_double(&m->instances[i].value, &p->value);
        }
        qsort_safe(vm->pairs, m->n_instances, sizeof(Pair), pair_compare);
        for (size_t i = 0; i < m->n_instances; i++)
                if (n > 0 && vm->pairs[n - 1].address == vm->pairs[i].address)
                        vm->pairs[n - 1].value += vm->pairs[i].value;
                else
                        vm->pairs[n++] = vm->pairs[i];
        vm->n_pairs = n;
        return 0;
}

/* The sum of vm over the n addresses, into *ret; false when none has it. */
static bool metric_sum(const ViewMetric *vm, const Address *const *addresses, size_t n, double *ret)
{
        bool found = false;
        double sum = 0;

        for (size_t j = 0; j < n; j++) {
                Pair key = { .address = addresses[j]->address };
                const Pair *p = bsearch(&key, vm->pairs, vm->n_pairs, sizeof(Pair), pair_compare);

                if (p) {
                        sum += p->value;
                        found = true;
                }
        }
        *ret = sum;
        return found;
}

static struct json_object *values_json(const View *v, const Address *const *addresses, size_t n)
{
        struct json_object *values = json_object_new_array();

        if (!values)
                return NULL;
        for (size_t i = 0; i < v->n_metrics; i++) {
                struct json_object *value = NULL;
                double sum;

                if (metric_sum(&v->metrics[i], addresses, n, &sum)) {
                        value = v->metrics[i].integral && sum >= 0 && sum < 0x1p63 && sum == floor(sum)
                                        ? json_object_new_int64((int64_t) sum)
                                        : json_object_new_double(sum);
                        if (!value) {
                                json_object_put(values);
                                return NULL;
                        }
                }
                if (json_object_array_add(values, value) < 0) {
                        json_object_put(value);
                        json_object_put(values);
                        return NULL;
                }
        }
        return values;
}

static int add_row(struct json_object *array, const Address *a, bool with_address, struct json_object *values)
{
        struct json_object *row = json_object_new_object();

        if (!row || !values || json_object_array_add(array, row) < 0) {
                json_object_put(row);
                json_object_put(values);
                return -ENOMEM;
        }
        if ((with_address && json_object_object_add(row, "address", json_object_new_uint64(a->address)) < 0) ||
                        json_object_object_add(row, "file", json_object_new_int(a->file)) < 0 ||
                        json_object_object_add(row, "line", json_object_new_int64(a->file < 0 ? 0 : a->line)) < 0 ||
                        json_object_object_add(row, "values", values) < 0)
                return -ENOMEM;
        return 0;
}

static int write_document(View *v, struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *doc = json_object_new_object();
        _cleanup_free_ const Address **by_line = NULL;
        struct json_object *metrics = json_object_new_array(), *source = json_object_new_array(),
                           *sass = json_object_new_array();
        int r;

        if (!doc || !metrics || !source || !sass) {
                json_object_put(metrics);
                json_object_put(source);
                json_object_put(sass);
                return -ENOMEM;
        }
        if (json_object_object_add(doc, "files", json_object_get(v->files)) < 0 ||
                        json_object_object_add(doc, "metrics", metrics) < 0 ||
                        json_object_object_add(doc, "source", source) < 0 ||
                        json_object_object_add(doc, "sass", sass) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < v->n_metrics; i++) {
                struct json_object *m = json_object_new_object();

                if (!m || json_object_array_add(metrics, m) < 0) {
                        json_object_put(m);
                        return -ENOMEM;
                }
                if (json_object_object_add(m, "name", json_object_new_string(v->metrics[i].metric->name)) < 0 ||
                                json_object_object_add(m, "label", json_object_new_string(v->metrics[i].label)) < 0 ||
                                json_object_object_add(m, "unit", json_object_new_string(v->metrics[i].unit)) < 0)
                        return -ENOMEM;
        }

        by_line = calloc(v->n_addresses + 1, sizeof(Address *));
        if (!by_line)
                return -ENOMEM;
        for (size_t i = 0; i < v->n_addresses; i++) {
                const Address *a = &v->addresses[i];

                by_line[i] = a;
                r = add_row(sass, a, true, values_json(v, &by_line[i], 1));
                if (r < 0)
                        return r;
        }
        qsort_safe(by_line, v->n_addresses, sizeof(Address *), line_compare);
        for (size_t i = 0; i < v->n_addresses;) {
                size_t j = i;

                while (j < v->n_addresses && by_line[j]->file == by_line[i]->file &&
                                by_line[j]->line == by_line[i]->line)
                        j++;
                if (by_line[i]->file >= 0) {
                        r = add_row(source, by_line[i], false, values_json(v, by_line + i, j - i));
                        if (r < 0)
                                return r;
                }
                i = j;
        }
        *ret = TAKE_PTR(doc);
        return 0;
}

int ncu_action_source_view(const NcuReport *r, const NcuAction *a, struct json_object **ret)
{
        _cleanup_(view_done) View v = { .report = r, .action = a };
        int k;

        assert(r && a && ret);

        v.files = json_object_new_array();
        if (!v.files)
                return -ENOMEM;
        k = add_stored_files(&v);
        if (k >= 0)
                k = build_lines(&v);
        if (k >= 0)
                k = unpack_sections(&v);
        if (k < 0)
                return k;

        v.metrics = calloc(a->n_metrics + 1, sizeof(ViewMetric));
        if (!v.metrics)
                return -ENOMEM;
        for (size_t i = 0; i < a->n_metrics; i++) {
                const NcuMetric *m = &a->metrics[i];

                /* A name repeated in the result answers its last (ncu_action_metric_by_name()). */
                if (ncu_action_metric_by_name(a, m->name) != m || !keyed_by_address(&v, m))
                        continue;
                ViewMetric *vm = &v.metrics[v.n_metrics++];
                vm->metric = m;
                vm->integral = true;
                for (size_t j = 0; j < m->n_instances; j++)
                        vm->integral = vm->integral && value_is_integral(&m->instances[j].value);
                find_label(&v, vm);
                k = metric_pairs(vm);
                if (k < 0)
                        return k;
        }
        k = collect_addresses(&v);
        if (k < 0)
                return k;
        return write_document(&v, ret);
}
