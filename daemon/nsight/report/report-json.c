/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "report-json.h"

/* json-c objects are built bottom-up; a NULL from any constructor is remembered and reported once. */
typedef struct JsonBuilder {
        bool failed;
        NcuJsonMetricHook hook;
        void *userdata;
} JsonBuilder;

static struct json_object *check(JsonBuilder *b, struct json_object *o)
{
        if (!o)
                b->failed = true;
        return o;
}

static void add(JsonBuilder *b, struct json_object *obj, const char *key, struct json_object *v)
{
        if (!obj) {
                json_object_put(v);
                return;
        }
        if (json_object_object_add(obj, key, v) < 0)
                b->failed = true;
}

static void add_str(JsonBuilder *b, struct json_object *obj, const char *key, const char *s)
{
        if (s)
                add(b, obj, key, check(b, json_object_new_string(s)));
}

static void add_u64(JsonBuilder *b, struct json_object *obj, const char *key, uint64_t v)
{
        add(b, obj, key, check(b, json_object_new_uint64(v)));
}

static void append(JsonBuilder *b, struct json_object *array, struct json_object *v)
{
        if (!array || json_object_array_add(array, v) < 0) {
                json_object_put(v);
                b->failed = true;
        }
}

static struct json_object *double_to_json(double d)
{
        char buf[NCU_DOUBLE_REPR_MAX];

        ncu_format_double_repr(d, buf);
        if (isnan(d) || isinf(d))
                return json_object_new_string(buf);
        /* The number with our text, so what is written reads back to the same double. */
        return json_object_new_double_s(d, buf);
}

double ncu_json_to_double(struct json_object *v)
{
        if (!v)
                return NAN;
        if (json_object_is_type(v, json_type_string))
                return streq(json_object_get_string(v), "nan")             ? NAN
                                : streq(json_object_get_string(v), "-inf") ? -INFINITY
                                                                           : INFINITY;
        return json_object_get_double(v);
}

struct json_object *ncu_value_to_json(const NcuValue *v)
{
        assert(v);
        switch (v->kind) {
        case NCU_VALUE_STRING:
                return json_object_new_string(v->s ? v->s : "");
        case NCU_VALUE_FLOAT:
                return double_to_json(v->f);
        case NCU_VALUE_DOUBLE:
                return double_to_json(v->d);
        case NCU_VALUE_UINT32:
                return json_object_new_uint64(v->u32);
        case NCU_VALUE_UINT64:
                return json_object_new_uint64(v->u64);
        case NCU_VALUE_UNKNOWN:
        case _NCU_VALUE_KIND_MAX:
                break;
        }
        return NULL;
}

static struct json_object *uint3(JsonBuilder *b, NcuUint3 u)
{
        struct json_object *a = check(b, json_object_new_array());

        append(b, a, check(b, json_object_new_uint64(u.x)));
        append(b, a, check(b, json_object_new_uint64(u.y)));
        append(b, a, check(b, json_object_new_uint64(u.z)));
        return a;
}

static struct json_object *metric_to_json(JsonBuilder *b, const NcuAction *a, const NcuMetric *m, NcuJsonFlags flags)
{
        struct json_object *o = check(b, json_object_new_object());
        NcuValueKind ikind = m->n_instances > 0 ? m->instances[0].value.kind : NCU_VALUE_UNKNOWN;
        NcuValueKind ckind = ncu_metric_correlation_kind(m);

        add_str(b, o, "name", m->name);
        add_str(b, o, "kind", ncu_value_kind_to_string(m->kind));
        add(b, o, "has_value", check(b, json_object_new_boolean(m->has_value)));
        if (b->hook && o && b->hook(a, m, o, b->userdata) < 0)
                b->failed = true;
        if (m->has_value)
                add(b, o, "value", ncu_value_to_json(&m->value));
        if (m->category != NCU_METRIC_CATEGORY_PM)
                add_u64(b, o, "category", m->category);
        if (m->n_instances == 0)
                return o;
        add_u64(b, o, "num_instances", m->n_instances);
        add_str(b, o, "instance_kind", ncu_value_kind_to_string(ikind));
        if (m->has_correlation_ids)
                add_str(b, o, "correlation_kind", ncu_value_kind_to_string(ckind));
        if (flags & NCU_JSON_NO_INSTANCES)
                return o;
        {
                struct json_object *list =
                                check(b, json_object_new_array_ext((int) MIN(m->n_instances, (size_t) INT32_MAX)));
                for (size_t i = 0; i < m->n_instances; i++) {
                        const NcuInstance *in = &m->instances[i];
                        struct json_object *pair = check(b, json_object_new_array());

                        append(b, pair, ncu_value_to_json(&in->correlation_id));
                        append(b, pair, ncu_value_to_json(&in->value));
                        /* Kinds that differ from the metric's instance kinds are spelled out. */
                        if (in->value.kind != ikind || (m->has_correlation_ids && in->correlation_id.kind != ckind)) {
                                append(b, pair,
                                                check(b,
                                                                json_object_new_string(ncu_value_kind_to_string(
                                                                                in->correlation_id.kind))));
                                append(b, pair,
                                                check(b,
                                                                json_object_new_string(ncu_value_kind_to_string(
                                                                                in->value.kind))));
                        }
                        append(b, list, pair);
                }
                add(b, o, "instances", list);
        }
        return o;
}

static struct json_object *rule_to_json(JsonBuilder *b, const NcuRuleResult *rr)
{
        struct json_object *o = check(b, json_object_new_object());
        struct json_object *msgs = check(b, json_object_new_array()), *focus = check(b, json_object_new_array());
        struct json_object *speedups = check(b, json_object_new_array()), *markers = check(b, json_object_new_array());

        add_str(b, o, "identifier", rr->identifier);
        add_str(b, o, "name", rr->display_name);
        add_str(b, o, "section", rr->section_identifier);
        for (size_t i = 0; i < rr->n_messages; i++) {
                const NcuRuleMessage *m = &rr->messages[i];
                struct json_object *x = check(b, json_object_new_object());
                const char *t = ncu_rule_message_type_to_string(m->type);

                if (t)
                        add_str(b, x, "type", t);
                else
                        add_u64(b, x, "type", m->type);
                if (m->has_id)
                        add(b, x, "id", check(b, json_object_new_int(m->id)));
                add_str(b, x, "title", m->name);
                add_str(b, x, "text", m->text);
                append(b, msgs, x);
        }
        for (size_t i = 0; i < rr->n_focus_metrics; i++) {
                const NcuFocusMetric *f = &rr->focus_metrics[i];
                struct json_object *x = check(b, json_object_new_object());

                if (f->has_message_id)
                        add(b, x, "message_id", check(b, json_object_new_int(f->message_id)));
                add_str(b, x, "metric", f->metric_name);
                if (f->has_value)
                        add(b, x, "value", check(b, double_to_json(f->value)));
                add_u64(b, x, "severity", f->severity);
                add_str(b, x, "info", f->info);
                append(b, focus, x);
        }
        for (size_t i = 0; i < rr->n_speedups; i++) {
                struct json_object *x = check(b, json_object_new_object());
                add_str(b, x, "type",
                                rr->speedups[i].type == 1                   ? "local"
                                                : rr->speedups[i].type == 2 ? "global"
                                                                            : "unknown");
                if (rr->speedups[i].has_value)
                        add(b, x, "value", check(b, double_to_json(rr->speedups[i].value)));
                append(b, speedups, x);
        }
        for (size_t i = 0; i < rr->n_source_markers; i++) {
                const NcuSourceMarker *m = &rr->source_markers[i];
                struct json_object *x = check(b, json_object_new_object());

                add_str(b, x, "kind", m->kind == 0 ? "sass" : m->kind == 1 ? "source" : "unknown");
                if (m->has_address)
                        add_u64(b, x, "address", m->address);
                if (m->has_line)
                        add_u64(b, x, "line", m->line);
                add_str(b, x, "file", m->file_name);
                add_str(b, x, "type", ncu_rule_message_type_to_string(m->type));
                add_str(b, x, "text", m->tooltip);
                append(b, markers, x);
        }
        add(b, o, "messages", msgs);
        add(b, o, "focus_metrics", focus);
        add(b, o, "speedups", speedups);
        add(b, o, "source_markers", markers);
        return o;
}

static struct json_object *nvtx_range_to_json(JsonBuilder *b, const NcuNvtxRange *r)
{
        struct json_object *o = check(b, json_object_new_object());

        add_str(b, o, "name", r->name);
        if (r->has_start_end_id)
                add_u64(b, o, "id", r->start_end_id);
        if (r->has_attributes) {
                add_u64(b, o, "category", r->category);
                add_u64(b, o, "color", r->color);
                add_u64(b, o, "payload_type", r->payload_type);
                add_str(b, o, "message", r->message);
        }
        return o;
}

static struct json_object *nvtx_to_json(JsonBuilder *b, const NcuNvtxState *n)
{
        struct json_object *o = check(b, json_object_new_object()), *domains = check(b, json_object_new_array());

        if (n->has_default_domain)
                add_u64(b, o, "default_domain", n->default_domain);
        for (size_t i = 0; i < n->n_domains; i++) {
                const NcuNvtxDomain *d = &n->domains[i];
                struct json_object *x = check(b, json_object_new_object()), *pp = check(b, json_object_new_array()),
                                   *se = check(b, json_object_new_array());

                add_u64(b, x, "id", d->id);
                add_str(b, x, "name", d->name);
                for (size_t j = 0; j < d->n_push_pop; j++)
                        append(b, pp, nvtx_range_to_json(b, &d->push_pop[j]));
                for (size_t j = 0; j < d->n_start_end; j++)
                        append(b, se, nvtx_range_to_json(b, &d->start_end[j]));
                add(b, x, "push_pop", pp);
                add(b, x, "start_end", se);
                append(b, domains, x);
        }
        add(b, o, "domains", domains);
        return o;
}

static struct json_object *action_to_json(JsonBuilder *b, const NcuAction *a, NcuJsonFlags flags)
{
        struct json_object *o = check(b, json_object_new_object()), *metrics, *rules, *sections;
        const NcuMetric *duration = ncu_action_metric_by_name(a, "gpu__time_duration.sum");

        add_u64(b, o, "index", a->index);
        add_str(b, o, "workload_type", ncu_workload_type_to_string(a->workload_type));
        add_str(b, o, "name", a->function_name);
        add_str(b, o, "demangled", a->demangled_name);
        add_str(b, o, "mangled", a->mangled_name);
        add(b, o, "grid", uint3(b, a->grid_size));
        add(b, o, "block", uint3(b, a->block_size));
        if (duration && duration->has_value)
                add(b, o, "duration_ns", ncu_value_to_json(&duration->value));
        add_str(b, o, "device", a->device_name);
        if (a->device_index >= 0)
                add_u64(b, o, "device_index", (uint64_t) a->device_index);
        {
                struct json_object *p = check(b, json_object_new_object());
                add_u64(b, p, "id", a->process.process_id);
                add_str(b, p, "name", a->process.process_name);
                add_str(b, p, "host", a->process.hostname);
                add(b, o, "process", p);
        }
        add_u64(b, o, "thread_id", a->thread_id);
        add_u64(b, o, "api_call_id", a->api_call_id);
        if (a->has_context_id)
                add_u64(b, o, "context_id", a->context_id);
        if (a->has_stream_id)
                add_u64(b, o, "stream_id", a->stream_id);
        if (a->has_creation_time)
                add_u64(b, o, "creation_time", a->creation_time);
        if (a->has_source_reference)
                add_u64(b, o, "source_reference", a->source_reference);

        sections = check(b, json_object_new_array());
        for (size_t i = 0; i < a->n_sections; i++)
                append(b, sections,
                                check(b,
                                                json_object_new_string(a->sections[i].identifier
                                                                                ? a->sections[i].identifier
                                                                                : "")));
        add(b, o, "sections", sections);
        rules = check(b, json_object_new_array());
        for (size_t i = 0; i < a->n_rule_results; i++)
                append(b, rules, rule_to_json(b, &a->rule_results[i]));
        add(b, o, "rule_results", rules);
        if (a->nvtx)
                add(b, o, "nvtx", nvtx_to_json(b, a->nvtx));
        metrics = check(b, json_object_new_array_ext((int) MIN(a->n_metrics, (size_t) INT32_MAX)));
        for (size_t i = 0; i < a->n_metrics; i++)
                append(b, metrics, metric_to_json(b, a, &a->metrics[i], flags));
        add(b, o, "metrics", metrics);
        return o;
}

static struct json_object *system_to_json(JsonBuilder *b, const NcuSystemInfo *s)
{
        struct json_object *o = check(b, json_object_new_object());

        add_str(b, o, "os", s->os_name);
        add_str(b, o, "build", s->build);
        add_str(b, o, "processor", s->processor);
        add_str(b, o, "architecture", s->architecture);
        add_str(b, o, "computer_name", s->computer_name);
        if (s->has_platform)
                add_u64(b, o, "platform", s->platform);
        return o;
}

const char *ncu_report_ncu_version(const NcuReport *r)
{
        for (size_t i = 0; i < r->session.n_versions; i++)
                if (streq_ptr(r->session.versions[i].provider, "Nsight Compute Target"))
                        return r->session.versions[i].version;
        return NULL;
}

int ncu_report_to_json(const NcuReport *r, NcuJsonFlags flags, struct json_object **ret)
{
        return ncu_report_to_json_with(r, flags, NULL, NULL, ret);
}

static struct json_object *header_to_json(JsonBuilder *b, const NcuReport *r, NcuJsonFlags flags)
{
        struct json_object *root, *report, *session, *versions, *devices, *sources;

        root = check(b, json_object_new_object());
        add_str(b, root, "schema", NCU_REPORT_JSON_SCHEMA);
        add_u64(b, root, "schema_version", NCU_REPORT_JSON_VERSION);

        report = check(b, json_object_new_object());
        add_u64(b, report, "format_version", r->version);
        add_str(b, report, "ncu_version", ncu_report_ncu_version(r));
        add(b, report, "compressed", check(b, json_object_new_boolean(r->compressed)));
        add_u64(b, report, "size", r->size);
        add_u64(b, report, "blocks", r->n_blocks);
        add_u64(b, report, "strings", r->n_strings);
        add_u64(b, report, "string_tables", r->n_string_tables);
        add(b, root, "report", report);

        session = check(b, json_object_new_object());
        if (r->session.has_process_id)
                add_u64(b, session, "process_id", r->session.process_id);
        if (r->session.has_creation_time)
                add_u64(b, session, "creation_time", r->session.creation_time);
        if (r->session.host.present)
                add(b, session, "host", system_to_json(b, &r->session.host));
        if (r->session.target.present)
                add(b, session, "target", system_to_json(b, &r->session.target));
        versions = check(b, json_object_new_array());
        for (size_t i = 0; i < r->session.n_versions; i++) {
                struct json_object *v = check(b, json_object_new_object());
                add_str(b, v, "provider", r->session.versions[i].provider);
                add_str(b, v, "version", r->session.versions[i].version);
                append(b, versions, v);
        }
        add(b, session, "versions", versions);
        devices = check(b, json_object_new_array());
        for (size_t i = 0; i < r->session.n_devices; i++) {
                const NcuDevice *d = &r->session.devices[i];
                struct json_object *v = check(b, json_object_new_object()), *attrs = check(b, json_object_new_object());

                add_u64(b, v, "id", d->id);
                add_str(b, v, "name", d->name);
                for (size_t j = 0; j < d->n_attributes; j++)
                        if (d->attributes[j].name)
                                add(b, attrs, d->attributes[j].name, ncu_value_to_json(&d->attributes[j].value));
                add(b, v, "attributes", attrs);
                append(b, devices, v);
        }
        add(b, session, "devices", devices);
        add_str(b, session, "profiler_cmdline", r->session.profiler_cmdline);
        add_str(b, session, "executable", r->session.executable_path);
        add_str(b, session, "work_directory", r->session.work_directory);
        add_str(b, session, "arguments", r->session.cmdline_arguments);
        add_str(b, session, "comments", r->session.comments);
        add(b, root, "session", session);

        sources = check(b, json_object_new_array());
        for (size_t i = 0; i < r->n_sources; i++) {
                const NcuSource *s = &r->sources[i];
                struct json_object *v = check(b, json_object_new_object()), *files = check(b, json_object_new_array()),
                                   *funcs = check(b, json_object_new_array());

                if (s->has_reference)
                        add_u64(b, v, "reference", s->reference);
                if (s->has_sm_revision)
                        add_u64(b, v, "sm_revision", s->sm_revision);
                if (s->has_sass_level)
                        add_u64(b, v, "sass_level", s->sass_level);
                add_u64(b, v, "binary_size", s->binary_size);
                for (size_t j = 0; j < s->n_files; j++) {
                        struct json_object *f = check(b, json_object_new_object());
                        add_str(b, f, "name", s->files[j].file_name);
                        if (!(flags & NCU_JSON_NO_SOURCES))
                                add_str(b, f, "content", s->files[j].content);
                        append(b, files, f);
                }
                for (size_t j = 0; j < s->n_functions; j++) {
                        struct json_object *f = check(b, json_object_new_object());
                        add_str(b, f, "symbol", s->functions[j].symbol_name);
                        if (s->functions[j].has_address)
                                add_u64(b, f, "address", s->functions[j].address);
                        append(b, funcs, f);
                }
                add(b, v, "files", files);
                add(b, v, "functions", funcs);
                append(b, sources, v);
        }
        add(b, root, "sources", sources);

        return root;
}

int ncu_report_header_to_json(const NcuReport *r, NcuJsonFlags flags, struct json_object **ret)
{
        JsonBuilder b = { 0 };
        struct json_object *root;

        assert(r && ret);
        root = header_to_json(&b, r, flags);
        if (b.failed) {
                json_object_put(root);
                return -ENOMEM;
        }
        *ret = root;
        return 0;
}

int ncu_action_to_json_with(const NcuAction *a, NcuJsonFlags flags, NcuJsonMetricHook hook, void *userdata,
                struct json_object **ret)
{
        JsonBuilder b = { .hook = hook, .userdata = userdata };
        struct json_object *o;

        assert(a && ret);
        o = action_to_json(&b, a, flags);
        if (b.failed) {
                json_object_put(o);
                return -ENOMEM;
        }
        *ret = o;
        return 0;
}

int ncu_report_to_json_with(const NcuReport *r, NcuJsonFlags flags, NcuJsonMetricHook hook, void *userdata,
                struct json_object **ret)
{
        JsonBuilder b = { .hook = hook, .userdata = userdata };
        struct json_object *root, *ranges;

        assert(r && ret);
        root = header_to_json(&b, r, flags);
        ranges = check(&b, json_object_new_array());
        for (size_t i = 0; i < r->n_ranges; i++) {
                struct json_object *v = check(&b, json_object_new_object()),
                                   *actions = check(&b, json_object_new_array());

                add_u64(&b, v, "index", i);
                for (size_t j = 0; j < r->ranges[i].n_actions; j++)
                        append(&b, actions, action_to_json(&b, r->ranges[i].actions[j], flags));
                add(&b, v, "actions", actions);
                append(&b, ranges, v);
        }
        add(&b, root, "ranges", ranges);

        if (b.failed) {
                json_object_put(root);
                return -ENOMEM;
        }
        *ret = root;
        return 0;
}
