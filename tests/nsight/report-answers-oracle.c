/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The worker's answers against the report JSON (report-answers-oracle.h). */

#include <math.h>
#include <string.h>

#include "json-util.h"
#include "report-answers-oracle.h"
#include "report-json.h"
#include "string-util.h"

static struct json_object *member(struct json_object *o, const char *key)
{
        struct json_object *v = NULL;

        return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* One variant of a GetMetric reply against the JSON's value of that kind ("unknown" or none: ""). */
static void expect_value(NcuWireReader *in, const char *kind, struct json_object *v)
{
        uint8_t type;

        g_assert_cmpint(ncu_wire_get_u8(in, &type), ==, 0);
        if (streq_ptr(kind, "double") || streq_ptr(kind, "float")) {
                double d, want = ncu_json_to_double(v);

                g_assert_cmpint(type, ==, 'd');
                g_assert_cmpint(ncu_wire_get_double(in, &d), ==, 0);
                g_assert_true(isnan(want) ? isnan(d) : d == want);
        } else if (streq_ptr(kind, "uint64")) {
                uint64_t u;

                g_assert_cmpint(type, ==, 't');
                g_assert_cmpint(ncu_wire_get_u64(in, &u), ==, 0);
                g_assert_cmpuint(u, ==, json_object_get_uint64(v));
        } else if (streq_ptr(kind, "uint32")) {
                uint32_t u;

                g_assert_cmpint(type, ==, 'u');
                g_assert_cmpint(ncu_wire_get_u32(in, &u), ==, 0);
                g_assert_cmpuint(u, ==, (uint32_t) json_object_get_uint64(v));
        } else {
                const char *str;

                g_assert_cmpint(type, ==, 's');
                g_assert_cmpint(ncu_wire_get_string(in, &str), ==, 0);
                g_assert_cmpstr(str, ==, streq_ptr(kind, "string") ? strempty(json_object_get_string(v)) : "");
        }
}

/* GetMetricNames and GetMetric of an action (the worker reads its typed model) against the action in the
 * report JSON (what `nvprofilectl report json` prints): the names in order; for each, the first metric of
 * that name, its kind, value and instances, each instance in its own kind. */
void report_check_metrics(ReportCall call, void *userdata, uint32_t action, struct json_object *doc)
{
        struct json_object *ranges = member(doc, "ranges"),
                           *a = json_array_get(member(json_array_get(ranges, 0), "actions"), action),
                           *metrics = member(a, "metrics");
        NcuWireReader in;
        NcuWire args;
        uint32_t n;
        GByteArray *o;

        ncu_wire_init(&args, 16);
        ncu_wire_put_u32(&args, 0);
        ncu_wire_put_u32(&args, action);
        o = call(userdata, NCU_SERVE_GET_METRIC_NAMES, &args);
        ncu_wire_done(&args);
        ncu_wire_reader_init(&in, o->data, o->len);
        g_assert_cmpint(ncu_wire_get_count(&in, 1, &n), ==, 0);
        g_assert_cmpuint(n, ==, json_array_length(metrics));
        for (size_t i = 0; i < n; i++) {
                const char *name;

                g_assert_cmpint(ncu_wire_get_string(&in, &name), ==, 0);
                g_assert_cmpstr(name, ==, strempty(json_object_get_string(member(json_array_get(metrics, i), "name"))));
        }
        g_assert_cmpuint(in.left, ==, 0);
        g_byte_array_unref(o);

        for (size_t i = 0; i < json_array_length(metrics); i++) {
                const char *name = strempty(json_object_get_string(member(json_array_get(metrics, i), "name"))), *kind,
                           *ikind, *ckind, *got;
                struct json_object *m = NULL, *instances;
                bool has_value;
                uint32_t count;
                GByteArray *r;

                for (size_t j = 0; !m && j < json_array_length(metrics); j++)
                        if (streq(strempty(json_object_get_string(member(json_array_get(metrics, j), "name"))), name))
                                m = json_array_get(metrics, j);
                kind = json_object_get_string(member(m, "kind"));
                ikind = json_object_get_string(member(m, "instance_kind"));
                ckind = json_object_get_string(member(m, "correlation_kind"));
                instances = member(m, "instances");
                ncu_wire_init(&args, 4096);
                ncu_wire_put_u32(&args, 0);
                ncu_wire_put_u32(&args, action);
                ncu_wire_put_string(&args, name);
                r = call(userdata, NCU_SERVE_GET_METRIC, &args);
                ncu_wire_done(&args);
                ncu_wire_reader_init(&in, r->data, r->len);
                g_assert_cmpint(ncu_wire_get_string(&in, &got), ==, 0);
                g_assert_cmpstr(got, ==, kind ? kind : "unknown");
                g_assert_cmpint(ncu_wire_get_bool(&in, &has_value), ==, 0);
                g_assert_cmpint(has_value, ==, json_object_get_boolean(member(m, "has_value")));
                expect_value(&in, has_value ? kind : "unknown", member(m, "value"));
                g_assert_cmpint(ncu_wire_get_count(&in, 2, &count), ==, 0);
                g_assert_cmpuint(count, ==, json_array_length(instances));
                for (size_t k = 0; k < count; k++) {
                        struct json_object *pair = json_array_get(instances, k);
                        bool spelled = json_array_length(pair) == 4;

                        expect_value(&in, spelled ? json_object_get_string(json_array_get(pair, 2)) : ckind,
                                        json_array_get(pair, 0));
                        expect_value(&in, spelled ? json_object_get_string(json_array_get(pair, 3)) : ikind,
                                        json_array_get(pair, 1));
                }
                g_assert_cmpuint(in.left, ==, 0);
                g_byte_array_unref(r);
        }
}

static const char *json_str(struct json_object *o, const char *key)
{
        return strempty(json_object_get_string(member(o, key)));
}

static int32_t json_id(struct json_object *o, const char *key)
{
        return member(o, key) ? (int32_t) json_object_get_int(member(o, key)) : -1;
}

static void expect_string(NcuWireReader *in, const char *want)
{
        const char *got;

        g_assert_cmpint(ncu_wire_get_string(in, &got), ==, 0);
        g_assert_cmpstr(got, ==, want);
}

static void expect_double(NcuWireReader *in, double want)
{
        double d;

        g_assert_cmpint(ncu_wire_get_double(in, &d), ==, 0);
        g_assert_true(isnan(want) ? isnan(d) : d == want);
}

static void expect_i32(NcuWireReader *in, int32_t want)
{
        int32_t i;

        g_assert_cmpint(ncu_wire_get_i32(in, &i), ==, 0);
        g_assert_cmpint(i, ==, want);
}

static void expect_u64(NcuWireReader *in, uint64_t want)
{
        uint64_t u;

        g_assert_cmpint(ncu_wire_get_u64(in, &u), ==, 0);
        g_assert_cmpuint(u, ==, want);
}

static void expect_count(NcuWireReader *in, struct json_object *list)
{
        uint32_t n;

        g_assert_cmpint(ncu_wire_get_count(in, 1, &n), ==, 0);
        g_assert_cmpuint(n, ==, json_array_length(list));
}

/* GetRuleResults and GetRuleResultsFull of an action (the worker reads its typed model) against the
 * action's rule results in the report JSON, field by field. */
void report_check_rule_results(ReportCall call, void *userdata, uint32_t action, struct json_object *doc)
{
        struct json_object *ranges = member(doc, "ranges"),
                           *a = json_array_get(member(json_array_get(ranges, 0), "actions"), action),
                           *rules = member(a, "rule_results");

        for (int full = 0; full < 2; full++) {
                NcuWireReader in;
                NcuWire args;
                GByteArray *o;

                ncu_wire_init(&args, 16);
                ncu_wire_put_u32(&args, 0);
                ncu_wire_put_u32(&args, action);
                o = call(userdata, full ? NCU_SERVE_GET_RULE_RESULTS_FULL : NCU_SERVE_GET_RULE_RESULTS, &args);
                ncu_wire_done(&args);
                ncu_wire_reader_init(&in, o->data, o->len);
                expect_count(&in, rules);
                for (size_t i = 0; i < json_array_length(rules); i++) {
                        struct json_object *rr = json_array_get(rules, i), *list;

                        expect_string(&in, json_str(rr, "identifier"));
                        expect_string(&in, json_str(rr, "name"));
                        expect_string(&in, json_str(rr, "section"));
                        expect_count(&in, list = member(rr, "messages"));
                        for (size_t j = 0; j < json_array_length(list); j++) {
                                struct json_object *x = json_array_get(list, j);

                                if (full)
                                        expect_i32(&in, json_id(x, "id"));
                                expect_string(&in, json_str(x, "type"));
                                expect_string(&in, json_str(x, "title"));
                                expect_string(&in, json_str(x, "text"));
                        }
                        expect_count(&in, list = member(rr, "speedups"));
                        for (size_t j = 0; j < json_array_length(list); j++) {
                                expect_string(&in, json_str(json_array_get(list, j), "type"));
                                expect_double(&in, ncu_json_to_double(member(json_array_get(list, j), "value")));
                        }
                        if (!full)
                                continue;
                        expect_count(&in, list = member(rr, "focus_metrics"));
                        for (size_t j = 0; j < json_array_length(list); j++) {
                                struct json_object *x = json_array_get(list, j);

                                expect_i32(&in, json_id(x, "message_id"));
                                expect_string(&in, json_str(x, "metric"));
                                expect_double(&in, ncu_json_to_double(member(x, "value")));
                                expect_u64(&in, json_object_get_uint64(member(x, "severity")));
                                expect_string(&in, json_str(x, "info"));
                        }
                        expect_count(&in, list = member(rr, "source_markers"));
                        for (size_t j = 0; j < json_array_length(list); j++) {
                                struct json_object *x = json_array_get(list, j);

                                expect_string(&in, json_str(x, "kind"));
                                expect_string(&in, json_str(x, "file"));
                                expect_u64(&in, json_object_get_uint64(member(x, "address")));
                                expect_u64(&in, json_object_get_uint64(member(x, "line")));
                                expect_string(&in, json_str(x, "type"));
                                expect_string(&in, json_str(x, "text"));
                        }
                }
                g_assert_cmpuint(in.left, ==, 0);
                g_byte_array_unref(o);
        }
}
