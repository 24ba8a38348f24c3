/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-util.h"
#include "report-attrs.h"
#include "report-diff.h"
#include "report-json.h"
#include "report-section-metrics.h"
#include "strv.h"

typedef struct MetricChange {
        const NcuMetric *base, *cur;
        NcuValue bv, cv; /* as ncu_report's value() gives them */
        bool numeric;
        double change, relative; /* NaN when none (strings; relative with a zero baseline) */
        bool has_relative;
        double size;
        size_t section; /* index into the section list; n_sections: other metrics */
} MetricChange;

typedef struct Pair {
        size_t b, c;
} Pair;

static NcuAction *flat_action(const NcuReport *r, size_t i)
{
        for (size_t k = 0; k < r->n_ranges; k++) {
                if (i < r->ranges[k].n_actions)
                        return r->ranges[k].actions[i];
                i -= r->ranges[k].n_actions;
        }
        return NULL;
}

static size_t n_flat_actions(const NcuReport *r)
{
        size_t n = 0;

        for (size_t k = 0; k < r->n_ranges; k++)
                n += r->ranges[k].n_actions;
        return n;
}

static const char *action_name(const NcuAction *a)
{
        const char *n = ncu_action_name(a, NCU_NAME_FUNCTION);
        return n ? n : "";
}

static int add_pair(Pair **pairs, size_t *n, size_t b, size_t c)
{
        Pair *p = reallocarray(*pairs, *n + 1, sizeof(Pair));

        if (!p)
                return -ENOMEM;
        p[*n] = (Pair){ b, c };
        *pairs = p;
        (*n)++;
        return 0;
}

/* The n-th launch of a name in the baseline with the n-th of that name in current; only: that name. */
static int pair_by_name(const NcuReport *base, const NcuReport *cur, const char *only, Pair **pairs, size_t *n)
{
        size_t nb = n_flat_actions(base), nc = n_flat_actions(cur);

        for (size_t i = 0; i < nb; i++) {
                const char *name = action_name(flat_action(base, i));
                size_t launch = 0, seen = 0;

                if (only && !streq(name, only))
                        continue;
                for (size_t k = 0; k < i; k++)
                        if (streq(action_name(flat_action(base, k)), name))
                                launch++;
                for (size_t k = 0; k < nc; k++)
                        if (streq(action_name(flat_action(cur, k)), name) && seen++ == launch) {
                                if (add_pair(pairs, n, i, k) < 0)
                                        return -ENOMEM;
                                break;
                        }
        }
        return 0;
}

static bool parse_index(const char *s, size_t len, size_t *ret)
{
        size_t v = 0;

        if (len == 0)
                return false;
        for (size_t i = 0; i < len; i++) {
                if (s[i] < '0' || s[i] > '9' || v > (SIZE_MAX - 9) / 10)
                        return false;
                v = v * 10 + (size_t) (s[i] - '0');
        }
        *ret = v;
        return true;
}

static int pair_actions(const NcuReport *base, const NcuReport *cur, char *const *specs, size_t n_specs, Pair **pairs,
                size_t *n, char *message)
{
        if (n_specs == 0)
                return pair_by_name(base, cur, NULL, pairs, n);
        for (size_t i = 0; i < n_specs; i++) {
                const char *colon = strchr(specs[i], ':');
                size_t b, c, before = *n;
                bool indices;

                /* "B:C", or "N" for "N:N" (no kernel name starts with a digit: C and C++ names cannot). */
                if (colon)
                        indices = parse_index(specs[i], (size_t) (colon - specs[i]), &b) &&
                                        parse_index(colon + 1, strlen(colon + 1), &c);
                else {
                        indices = parse_index(specs[i], strlen(specs[i]), &b);
                        c = b;
                }
                if (indices) {
                        if (b >= n_flat_actions(base) || c >= n_flat_actions(cur)) {
                                snprintf(message, NCU_DIFF_MESSAGE_MAX,
                                                "--action %.100s: the reports have %zu and %zu actions", specs[i],
                                                n_flat_actions(base), n_flat_actions(cur));
                                return -EDOM;
                        }
                        if (add_pair(pairs, n, b, c) < 0)
                                return -ENOMEM;
                        continue;
                }
                if (pair_by_name(base, cur, specs[i], pairs, n) < 0)
                        return -ENOMEM;
                if (*n == before) {
                        snprintf(message, NCU_DIFF_MESSAGE_MAX,
                                        "--action %.100s: no kernel of that name in both reports", specs[i]);
                        return -EDOM;
                }
        }
        return 0;
}

static bool is_numeric(NcuValueKind k)
{
        return IN_SET(k, NCU_VALUE_DOUBLE, NCU_VALUE_FLOAT, NCU_VALUE_UINT32, NCU_VALUE_UINT64);
}

/* ncu_report's IMetric.value(): the stored value read as the metric's kind (a double metric may store
 * an integer): a DOUBLE, a UINT64 or a STRING, UNKNOWN for none. */
static NcuValue metric_value(const NcuMetric *m)
{
        const NcuValue *v = ncu_metric_value(m, SIZE_MAX);
        NcuValue out = { .kind = NCU_VALUE_UNKNOWN };

        switch (m->kind) {
        case NCU_VALUE_FLOAT:
        case NCU_VALUE_DOUBLE: {
                double d = 0;

                out.kind = NCU_VALUE_DOUBLE;
                out.d = v && ncu_value_as_double(v, &d) ? d : 0;
                break;
        }
        case NCU_VALUE_UINT32:
        case NCU_VALUE_UINT64: {
                uint64_t u = 0;

                out.kind = NCU_VALUE_UINT64;
                out.u64 = v && ncu_value_as_uint64(v, &u) ? u : 0;
                break;
        }
        case NCU_VALUE_STRING:
                out.kind = NCU_VALUE_STRING;
                out.s = v ? ncu_value_as_string(v) : NULL;
                break;
        case NCU_VALUE_UNKNOWN:
        case _NCU_VALUE_KIND_MAX:
                break;
        }
        return out;
}

static double as_double(const NcuValue *v)
{
        return v->kind == NCU_VALUE_DOUBLE ? v->d : (double) v->u64;
}

/* Values that are not both numbers: equal when the same string, or both none. */
static bool values_equal(const NcuValue *a, const NcuValue *b)
{
        if (a->kind != b->kind)
                return false;
        if (a->kind == NCU_VALUE_STRING)
                return streq_ptr(a->s, b->s);
        return true; /* both None */
}

/* A size for sorting: a NaN (a value that is not a number) as less than any, so that the order is total. */
static double sort_size(double d)
{
        return isnan(d) ? -1.0 : d;
}

/* By size, then |change|, both descending, then name. */
static int compare_changes(const void *x, const void *y)
{
        const MetricChange *a = x, *b = y;
        double sa = sort_size(a->size), sb = sort_size(b->size);
        double ca = sort_size(a->numeric ? fabs(a->change) : 0.0), cb = sort_size(b->numeric ? fabs(b->change) : 0.0);

        if (sa != sb)
                return sa > sb ? -1 : 1;
        if (ca != cb)
                return ca > cb ? -1 : 1;
        return strcmp(a->cur->name, b->cur->name);
}

static struct json_object *number_or_null(double d)
{
        return isfinite(d) ? ncu_value_to_json(&(NcuValue){ .kind = NCU_VALUE_DOUBLE, .d = d }) : NULL;
}

static struct json_object *value_json(const NcuValue *v)
{
        if (v->kind == NCU_VALUE_UNKNOWN || (v->kind == NCU_VALUE_DOUBLE && !isfinite(v->d)))
                return NULL;
        if (v->kind == NCU_VALUE_STRING && !v->s)
                return NULL;
        return ncu_value_to_json(v);
}

static const char *metric_unit(const NcuAction *a, const NcuMetric *m, MetricAttrs *attrs)
{
        ncu_metric_attrs(a, m, NULL, attrs);
        return attrs->unit;
}

static int json_add(struct json_object *o, const char *key, struct json_object *v, bool may_be_null)
{
        if (!v && !may_be_null)
                return -ENOMEM;
        if (json_object_object_add(o, key, v) < 0) {
                json_object_put(v);
                return -ENOMEM;
        }
        return 0;
}

static struct json_object *side_json(size_t index, const NcuAction *a)
{
        struct json_object *o = json_object_new_object();

        if (!o || json_add(o, "action", json_object_new_uint64(index), false) < 0 ||
                        json_add(o, "kernel", json_object_new_string(action_name(a)), false) < 0) {
                json_object_put(o);
                return NULL;
        }
        return o;
}

static struct json_object *change_json(const NcuAction *cur, const MetricChange *m)
{
        struct json_object *o = json_object_new_object();
        MetricAttrs attrs;
        int k;

        if (!o)
                return NULL;
        k = json_add(o, "name", json_object_new_string(m->cur->name), false);
        if (k >= 0)
                k = json_add(o, "unit", json_object_new_string(metric_unit(cur, m->cur, &attrs)), false);
        if (k >= 0)
                k = json_add(o, "baseline", value_json(&m->bv), true);
        if (k >= 0)
                k = json_add(o, "current", value_json(&m->cv), true);
        if (k >= 0)
                k = json_add(o, "change", m->numeric ? number_or_null(m->change) : NULL, true);
        if (k >= 0)
                k = json_add(o, "relative_change", m->has_relative ? number_or_null(m->relative) : NULL, true);
        if (k < 0) {
                json_object_put(o);
                return NULL;
        }
        return o;
}

typedef struct SectionKey {
        const char *identifier, *name;
        char **metrics;
} SectionKey;

/* The sections of an action with the metric names each lists. */
typedef struct SectionKeys {
        SectionKey *keys;
        size_t n;
} SectionKeys;

static void section_keys_done(SectionKeys *s)
{
        for (size_t i = 0; s->keys && i < s->n; i++)
                strv_free(s->keys[i].metrics);
        free(s->keys);
}

static struct json_object *compare_actions(const NcuAction *base, const NcuAction *cur)
{
        static const char *const other_name = "Other metrics";
        _cleanup_free_ MetricChange *changes = NULL;
        _cleanup_(section_keys_done) SectionKeys keys = { 0 };
        _cleanup_(json_object_putp) struct json_object *out = NULL;
        size_t n = 0, n_sections = cur->n_sections;
        SectionKey *sections;

        changes = calloc(MAX(cur->n_unique_metrics, (size_t) 1), sizeof(MetricChange));
        keys.keys = sections = calloc(MAX(n_sections, (size_t) 1), sizeof(SectionKey));
        keys.n = n_sections;
        out = json_object_new_array();
        if (!changes || !sections || !out)
                return NULL;
        for (size_t i = 0; i < n_sections; i++) {
                const NcuEmbeddedSection *sec = &cur->sections[i];

                if (ncu_embedded_section_metric_names(sec, &sections[i].metrics) < 0)
                        return NULL;
                sections[i].identifier = strempty(sec->identifier);
                sections[i].name = strempty(sec->display_name);
        }
        for (size_t i = 0; i < cur->n_unique_metrics; i++) {
                const NcuMetric *c = cur->metrics_by_name[i], *b = ncu_action_metric_by_name(base, c->name);
                MetricChange *m = &changes[n];

                if (!b || !ncu_metric_value(b, SIZE_MAX) || !ncu_metric_value(c, SIZE_MAX))
                        continue;
                *m = (MetricChange){ .base = b,
                        .cur = c,
                        .bv = metric_value(b),
                        .cv = metric_value(c),
                        .change = NAN,
                        .relative = NAN,
                        .section = n_sections };
                m->numeric = is_numeric(b->kind) && is_numeric(c->kind);
                if (m->numeric) {
                        double bv = as_double(&m->bv), cv = as_double(&m->cv);
                        m->change = cv - bv;
                        m->has_relative = m->bv.kind == NCU_VALUE_DOUBLE ? bv != 0.0 : m->bv.u64 != 0; /* "if bv" */
                        if (m->has_relative)
                                m->relative = m->change / fabs(bv);
                        m->size = m->has_relative ? fabs(m->relative) : m->change != 0.0 ? INFINITY : 0.0;
                } else
                        m->size = values_equal(&m->bv, &m->cv) ? 0.0 : INFINITY;
                /* The first section listing it, and of equal (identifier, name), the first such. */
                for (size_t s = 0; s < n_sections && m->section == n_sections; s++)
                        if (strv_contains(sections[s].metrics, c->name))
                                m->section = s;
                if (m->section < n_sections)
                        for (size_t s = 0; s < m->section; s++)
                                if (streq(sections[s].identifier, sections[m->section].identifier) &&
                                                streq(sections[s].name, sections[m->section].name)) {
                                        m->section = s;
                                        break;
                                }
                n++;
        }
        for (size_t s = 0; s <= n_sections; s++) {
                const char *identifier = s < n_sections ? sections[s].identifier : "";
                const char *name = s < n_sections ? sections[s].name : other_name;
                _cleanup_free_ MetricChange *group = NULL;
                _cleanup_(json_object_putp) struct json_object *metrics = NULL;
                struct json_object *o, *list;
                size_t g = 0;

                group = calloc(MAX(n, (size_t) 1), sizeof(MetricChange));
                if (!group)
                        return NULL;
                for (size_t i = 0; i < n; i++)
                        if (changes[i].section == s)
                                group[g++] = changes[i];
                if (g == 0)
                        continue;
                qsort(group, g, sizeof(MetricChange), compare_changes);
                o = json_object_new_object();
                metrics = json_object_new_array();
                if (!o || json_object_array_add(out, o) < 0) {
                        json_object_put(o);
                        return NULL;
                }
                list = metrics;
                if (json_add(o, "identifier", identifier[0] ? json_object_new_string(identifier) : NULL, true) < 0 ||
                                json_add(o, "name", json_object_new_string(name), false) < 0 ||
                                json_add(o, "metrics", TAKE_PTR(metrics), false) < 0)
                        return NULL;
                for (size_t i = 0; i < g; i++) {
                        struct json_object *x = change_json(cur, &group[i]);
                        if (!x || json_object_array_add(list, x) < 0) {
                                json_object_put(x);
                                return NULL;
                        }
                }
        }
        return TAKE_PTR(out);
}

/* Decodes the action's metrics (after a lazy load); the message names the byte, as a load's error does. */
static int decode_metrics(NcuReport *r, NcuAction *a, char *message)
{
        NcuReportError err;
        int k;

        k = ncu_action_decode_metrics(r, a, &err);
        if (k < 0 && k != -ENOMEM)
                snprintf(message, NCU_DIFF_MESSAGE_MAX, "byte %" PRIu64 ": %.200s", err.offset, err.message);
        return k;
}

int ncu_report_diff_json(NcuReport *baseline, NcuReport *current, char *const *specs, size_t n_specs,
                struct json_object **ret, char message[static NCU_DIFF_MESSAGE_MAX])
{
        _cleanup_(json_object_putp) struct json_object *doc = NULL;
        _cleanup_free_ Pair *pairs = NULL;
        struct json_object *list;
        size_t n = 0;
        int r;

        assert(baseline && current && ret);
        message[0] = '\0';
        r = pair_actions(baseline, current, specs, n_specs, &pairs, &n, message);
        if (r < 0)
                return r;
        doc = json_object_new_object();
        list = json_object_new_array();
        if (!doc || !list) {
                json_object_put(list);
                return -ENOMEM;
        }
        if (json_add(doc, "pairs", list, false) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                NcuAction *b = flat_action(baseline, pairs[i].b), *c = flat_action(current, pairs[i].c);
                struct json_object *p;

                r = decode_metrics(baseline, b, message);
                if (r >= 0)
                        r = decode_metrics(current, c, message);
                if (r < 0)
                        return r;
                p = json_object_new_object();
                if (p && json_object_array_add(list, p) < 0) {
                        json_object_put(p);
                        p = NULL;
                }
                if (!p || json_add(p, "baseline", side_json(pairs[i].b, b), false) < 0 ||
                                json_add(p, "current", side_json(pairs[i].c, c), false) < 0 ||
                                json_add(p, "sections", compare_actions(b, c), false) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(doc);
        return 0;
}
