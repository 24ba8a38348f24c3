/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>

#include "metric-expr.h"
#include "section-metrics.h"
#include "string-util.h"

typedef struct Collector {
        const NV__Profiler__ProfilerSection *section;
        unsigned arch;
        CollectionScopeKind scope;
        SectionMetricList *list;
        unsigned depth;
} Collector;

static const char *const scope_names[] = {
        [COLLECTION_SCOPE_LAUNCH] = "launch",
        [COLLECTION_SCOPE_RANGE] = "range",
        [COLLECTION_SCOPE_CMDLIST] = "cmdlist",
};

const char *collection_scope_to_string(CollectionScopeKind s)
{
        if (s < COLLECTION_SCOPE_LAUNCH || s > COLLECTION_SCOPE_CMDLIST)
                return NULL;
        return scope_names[s];
}

int collection_scope_from_string(const char *s, CollectionScopeKind *ret)
{
        for (CollectionScopeKind k = COLLECTION_SCOPE_LAUNCH; k <= COLLECTION_SCOPE_CMDLIST; k++)
                if (s && streq(s, scope_names[k])) {
                        *ret = k;
                        return 0;
                }
        return -EINVAL;
}

void section_metric_list_clear(SectionMetricList *l)
{
        if (!l)
                return;
        free(l->items);
        for (size_t i = 0; i < l->n_owned; i++)
                free(l->owned[i]);
        free(l->owned);
        *l = (SectionMetricList){ 0 };
}

static bool filter_has_arch(const NV__Profiler__Messages__MetricOptionFilter *f)
{
        return f && (f->has_minarch || f->has_maxarch || f->n_items > 0);
}

static bool in_range(unsigned arch, bool has_min, int min, bool has_max, int max)
{
        int lo = has_min ? min : GPU_ARCH_MIN_ALIAS, hi = has_max ? max : GPU_ARCH_MAX_ALIAS;
        return (int) arch >= lo && (int) arch <= hi;
}

bool metric_filter_matches_arch(const NV__Profiler__Messages__MetricOptionFilter *f, unsigned arch)
{
        if (!filter_has_arch(f))
                return true;
        if (f->n_items > 0) {
                /* Items override the filter's own MinArch/MaxArch. */
                for (size_t i = 0; i < f->n_items; i++) {
                        const NV__Profiler__Messages__MetricOptionFilterItem *it = f->items[i];
                        if (in_range(arch, it->has_minarch, it->minarch, it->has_maxarch, it->maxarch))
                                return true;
                }
                return false;
        }
        return in_range(arch, f->has_minarch, f->minarch, f->has_maxarch, f->maxarch);
}

bool metric_filter_matches_scope(const NV__Profiler__Messages__MetricOptionFilter *f, CollectionScopeKind scope)
{
        if (!f || !f->collectionfilter || f->collectionfilter->n_collectionscopes == 0)
                return true;
        for (size_t i = 0; i < f->collectionfilter->n_collectionscopes; i++)
                if ((int) f->collectionfilter->collectionscopes[i] == (int) scope)
                        return true;
        return false;
}

/* A metric-level filter overrides the section's per aspect. */
static bool effective_match(const Collector *c, const NV__Profiler__Messages__MetricOptionFilter *f)
{
        const NV__Profiler__Messages__MetricOptionFilter *sf = c->section->filter;
        const NV__Profiler__Messages__MetricOptionFilter *arch_f = filter_has_arch(f) ? f : sf;
        const NV__Profiler__Messages__MetricOptionFilter *scope_f = (f && f->collectionfilter) ? f : sf;
        return metric_filter_matches_arch(arch_f, c->arch) && metric_filter_matches_scope(scope_f, c->scope);
}

static bool effective_required(const Collector *c, const NV__Profiler__Messages__MetricOptionFilter *f)
{
        const NV__Profiler__Messages__MetricOptionFilter *scope_f = (f && f->collectionfilter) ? f : c->section->filter;
        return scope_f && scope_f->collectionfilter && scope_f->collectionfilter->has_importance &&
                        scope_f->collectionfilter->importance ==
                        NV__PROFILER__MESSAGES__COLLECTION_IMPORTANCE__CollectionImportance_Required;
}

static int add(Collector *c, const SectionMetric *m)
{
        SectionMetricList *l = c->list;
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->items[i].name, m->name))
                        return 0;
        if (GREEDY_REALLOC(l->items, l->allocated, l->n + 1) < 0)
                return -ENOMEM;
        SectionMetric *n = &l->items[l->n++];
        *n = *m;
        n->pattern = startswith(n->name, "regex:")          ? SECTION_METRIC_REGEX
                        : startswith(n->name, "breakdown:") ? SECTION_METRIC_BREAKDOWN
                                                            : SECTION_METRIC_NAME;
        return 0;
}

static int add_metric(Collector *c, const NV__Profiler__ProfilerSectionMetric *m, const char *where)
{
        SectionMetric out = {
                .where = where,
                .label = m->label,
                .unit = m->unit,
                .option = -1,
        };

        for (size_t i = 0; i < m->n_options; i++) {
                const NV__Profiler__ProfilerSectionMetricOption *o = m->options[i];
                if (!effective_match(c, o->filter))
                        continue;
                out.name = o->name;
                if (o->label)
                        out.label = o->label;
                out.option = (int) i;
                out.required = effective_required(c, o->filter);
                return add(c, &out);
        }
        if (!effective_match(c, m->filter))
                return 0;
        out.name = m->name;
        out.required = effective_required(c, m->filter);
        return add(c, &out);
}

static int walk(Collector *c, const ProtobufCMessage *msg, const char *where);

static int walk_child(Collector *c, const ProtobufCMessage *sub, const char *where)
{
        if (!sub)
                return 0;
        if (sub->descriptor == &nv__profiler__profiler_section_metric__descriptor)
                return add_metric(c, (const NV__Profiler__ProfilerSectionMetric *) sub, where);
        if (sub->descriptor == &nv__profiler__messages__metric_option_filter__descriptor)
                return 0;
        if (sub->descriptor == &nv__profiler__profiler_section_body_item__descriptor) {
                const NV__Profiler__ProfilerSectionBodyItem *item = (const NV__Profiler__ProfilerSectionBodyItem *) sub;
                /* A hidden item hides everything in it. */
                if (item->filter &&
                                !(metric_filter_matches_arch(item->filter, c->arch) &&
                                                metric_filter_matches_scope(item->filter, c->scope)))
                        return 0;
        }
        if (c->depth >= TEXTFORMAT_MAX_DEPTH * 2)
                return -ELOOP;
        c->depth++;
        int r = walk(c, sub, where);
        c->depth--;
        return r;
}

/* Every ProfilerSectionMetric below msg, in field order, by the descriptors. */
static int walk(Collector *c, const ProtobufCMessage *msg, const char *where)
{
        const ProtobufCMessageDescriptor *d = msg->descriptor;

        for (unsigned i = 0; i < d->n_fields; i++) {
                const ProtobufCFieldDescriptor *f = &d->fields[i];
                const char *base = (const char *) msg + f->offset;
                int r = 0;

                if (f->type != PROTOBUF_C_TYPE_MESSAGE)
                        continue;
                if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
                                *(const uint32_t *) ((const char *) msg + f->quantifier_offset) != f->id)
                        continue;
                if (f->label == PROTOBUF_C_LABEL_REPEATED) {
                        size_t n = *(const size_t *) ((const char *) msg + f->quantifier_offset);
                        ProtobufCMessage *const *arr = *(ProtobufCMessage *const *const *) base;
                        for (size_t k = 0; k < n && r >= 0; k++)
                                r = walk_child(c, arr[k], where);
                } else
                        r = walk_child(c, *(ProtobufCMessage *const *) base, where);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int own(SectionMetricList *l, char *s, const char **ret)
{
        if (GREEDY_REALLOC(l->owned, l->allocated_owned, l->n_owned + 1) < 0) {
                free(s);
                return -ENOMEM;
        }
        l->owned[l->n_owned++] = s;
        *ret = s;
        return 0;
}

typedef struct OperandAdder {
        Collector *c;
        const char *derived_for;
} OperandAdder;

static int add_operand(const char *name, void *userdata)
{
        OperandAdder *a = userdata;
        SectionMetric m = { .where = "MetricDefinitions", .option = -1, .derived_for = a->derived_for };
        char *copy = strdup(name);
        int r;

        if (!copy)
                return -ENOMEM;
        r = own(a->c->list, copy, &m.name);
        if (r < 0)
                return r;
        return add(a->c, &m);
}

static int add_definitions(Collector *c)
{
        const NV__Profiler__ProfilerSectionMetricDefinitions *defs = c->section->metricdefinitions;

        for (size_t i = 0; defs && i < defs->n_metricdefinitions; i++) {
                const NV__Profiler__ProfilerSectionMetricDefinition *def = defs->metricdefinitions[i];
                _cleanup_free_ char *error = NULL;
                MetricExpr *e = NULL;

                if (!effective_match(c, def->filter))
                        continue;
                int r = metric_expr_parse(def->expression, &e, &error);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue; /* reported by section_check_definitions() */
                OperandAdder a = { .c = c, .derived_for = def->name };
                r = metric_expr_foreach_metric(e, add_operand, &a);
                metric_expr_free(e);
                if (r < 0)
                        return r;
        }
        return 0;
}

int section_collect_metrics(
                const NV__Profiler__ProfilerSection *s, unsigned arch, CollectionScopeKind scope, SectionMetricList *l)
{
        Collector c = { .section = s, .arch = arch, .scope = scope, .list = l };
        int r;

        if (s->header && (r = walk(&c, &s->header->base, "Header")) < 0)
                return r;
        for (size_t i = 0; i < s->n_body; i++)
                if ((r = walk(&c, &s->body[i]->base, "Body")) < 0)
                        return r;
        if (s->metrics && (r = walk(&c, &s->metrics->base, "Metrics")) < 0)
                return r;
        if (s->sourcemetrics && (r = walk(&c, &s->sourcemetrics->base, "SourceMetrics")) < 0)
                return r;
        return add_definitions(&c);
}

int section_metric_pattern_match(const SectionMetric *m, const char *name)
{
        switch (m->pattern) {
        case SECTION_METRIC_NAME:
                return streq(m->name, name);
        case SECTION_METRIC_BREAKDOWN:
                /* The breakdown's constituents come from the device's tables, which a report carries;
                 * by name, the pattern stands for its own metric. */
                return streq(m->name + strlen("breakdown:"), name);
        case SECTION_METRIC_REGEX: {
                _cleanup_free_ char *anchored = NULL;
                regex_t re;
                if (asprintf(&anchored, "^(%s)$", m->name + strlen("regex:")) < 0)
                        return -ENOMEM;
                if (regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB) != 0)
                        return -EINVAL;
                int r = regexec(&re, name, 0, NULL, 0) == 0;
                regfree(&re);
                return r;
        }
        }
        assert_not_reached();
}
