/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Metric selection (filters, options, scopes, section vs metric level, body items) and derived
 * metrics (parsing, the value-kind and division rules, the five instance-combination rules), each
 * with the Customization Guide's own examples (docs/ncu-format.md 7.6, 7.7). */

#include <glib.h>
#include <inttypes.h>
#include <math.h>

#include "metric-expr.h"
#include "section-metrics.h"

static NV__Profiler__ProfilerSection *parse(const char *text)
{
        NV__Profiler__ProfilerSection *s = NULL;
        TextFormatDiagnostics d = { 0 };
        int r = section_file_parse(text, strlen(text), NULL, &s, &d);
        if (r < 0)
                g_printerr("%s\n", d.items[0].message);
        g_assert_cmpint(r, ==, 0);
        textformat_diagnostics_clear(&d);
        return s;
}

/* The names collected, space-separated. */
static char *collected(const NV__Profiler__ProfilerSection *s, unsigned arch, CollectionScopeKind scope)
{
        SectionMetricList l = { 0 };
        GString *out = g_string_new(NULL);
        g_assert_cmpint(section_collect_metrics(s, arch, scope, &l), ==, 0);
        for (size_t i = 0; i < l.n; i++)
                g_string_append_printf(out, "%s%s%s", i ? " " : "", l.items[i].name, l.items[i].required ? "!" : "");
        section_metric_list_clear(&l);
        return g_string_free(out, FALSE);
}

#define HEAD "Identifier: \"S\" DisplayName: \"S\"\n"

static void test_doc_example(void)
{
        /* Customization Guide: base Filter{MaxArch CC_70} + Option same name Filter{CC_75..CC_86}. */
        NV__Profiler__ProfilerSection *s =
                        parse(HEAD "Metrics { Metrics { Name: \"dram__cycles_elapsed.avg.per_second\" "
                                   "Filter { MaxArch: CC_70 } Options { Name: \"dram__cycles_elapsed.avg.per_second\" "
                                   "Filter { MinArch: CC_75 MaxArch: CC_86 } } } }");
        const unsigned yes[] = { 50, 60, 70, 75, 80, 86 }, no[] = { 72, 87, 89, 90 };
        for (size_t i = 0; i < G_N_ELEMENTS(yes); i++) {
                g_autofree char *m = collected(s, yes[i], COLLECTION_SCOPE_LAUNCH);
                g_assert_cmpstr(m, ==, "dram__cycles_elapsed.avg.per_second");
        }
        for (size_t i = 0; i < G_N_ELEMENTS(no); i++) {
                g_autofree char *m = collected(s, no[i], COLLECTION_SCOPE_LAUNCH);
                g_assert_cmpstr(m, ==, "");
        }
        protobuf_c_message_free_unpacked(&s->base, NULL);
}

static void test_options_and_items(void)
{
        /* The first matching option replaces name and label; Items override MinArch/MaxArch; an item
         * bound left out is the alias (50 / 90). */
        NV__Profiler__ProfilerSection *s = parse(HEAD
                        "Header { Metrics { Name: \"base\" Label: \"Base\" Filter { MaxArch: CC_60 } "
                        "Options { Name: \"opt1\" Filter { MinArch: CC_70 MaxArch: CC_75 } } "
                        "Options { Name: \"opt2\" Label: \"Two\" Filter { MinArch: CC_75 } } } "
                        "Metrics { Name: \"items\" Filter { MinArch: CC_90 MaxArch: CC_90 Items { MaxArch: CC_61 } Items { MinArch: CC_89 } } } }");
        SectionMetricList l = { 0 };

        g_assert_cmpint(section_collect_metrics(s, 75, COLLECTION_SCOPE_LAUNCH, &l), ==, 0);
        g_assert_cmpuint(l.n, ==, 1);
        g_assert_cmpstr(l.items[0].name, ==, "opt1");
        g_assert_cmpstr(l.items[0].label, ==, "Base"); /* the option has none */
        g_assert_cmpint(l.items[0].option, ==, 0);
        section_metric_list_clear(&l);

        g_assert_cmpint(section_collect_metrics(s, 86, COLLECTION_SCOPE_LAUNCH, &l), ==, 0);
        g_assert_cmpuint(l.n, ==, 1);
        g_assert_cmpstr(l.items[0].name, ==, "opt2");
        g_assert_cmpstr(l.items[0].label, ==, "Two");
        g_assert_cmpint(l.items[0].option, ==, 1);
        section_metric_list_clear(&l);

        const struct {
                unsigned arch;
                const char *names;
        } cases[] = {
                { 50, "base items" },
                { 60, "base items" },
                { 61, "items" },
                { 62, "" },
                { 70, "opt1" },
                { 89, "opt2 items" },
                { 90, "opt2 items" },
                { 100, "" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                g_autofree char *m = collected(s, cases[i].arch, COLLECTION_SCOPE_LAUNCH);
                g_assert_cmpstr(m, ==, cases[i].names);
        }
        protobuf_c_message_free_unpacked(&s->base, NULL);
}

static void test_scopes_and_importance(void)
{
        NV__Profiler__ProfilerSection *s = parse(HEAD
                        "Metrics { Metrics { Name: \"any\" } "
                        "Metrics { Name: \"launch\" Filter { CollectionFilter { CollectionScopes: CollectionScope_Launch } } } "
                        "Metrics { Name: \"range_cmd\" Filter { CollectionFilter { CollectionScopes: CollectionScope_Range "
                        "CollectionScopes: CollectionScope_Cmdlist Importance: CollectionImportance_Required } } } "
                        "Metrics { Name: \"opt\" Filter { CollectionFilter { Importance: CollectionImportance_Optional } } } }");
        g_autofree char *launch = collected(s, 86, COLLECTION_SCOPE_LAUNCH);
        g_autofree char *range = collected(s, 86, COLLECTION_SCOPE_RANGE);
        g_autofree char *cmdlist = collected(s, 86, COLLECTION_SCOPE_CMDLIST);
        g_assert_cmpstr(launch, ==, "any launch opt");
        g_assert_cmpstr(range, ==, "any range_cmd! opt");
        g_assert_cmpstr(cmdlist, ==, "any range_cmd! opt");
        protobuf_c_message_free_unpacked(&s->base, NULL);

        CollectionScopeKind k;
        g_assert_cmpint(collection_scope_from_string("range", &k), ==, 0);
        g_assert_cmpint(k, ==, COLLECTION_SCOPE_RANGE);
        g_assert_cmpint(collection_scope_from_string("kernel", &k), ==, -EINVAL);
        g_assert_cmpstr(collection_scope_to_string(COLLECTION_SCOPE_CMDLIST), ==, "cmdlist");
}

static void test_section_vs_metric_filter(void)
{
        /* Section: MinArch CC_80, range scope only. A metric's own arch filter overrides the section's
         * arch part; its CollectionFilter overrides the scope part. */
        NV__Profiler__ProfilerSection *s = parse(HEAD
                        "Filter { MinArch: CC_80 CollectionFilter { CollectionScopes: CollectionScope_Range } }\n"
                        "Metrics { Metrics { Name: \"plain\" } "
                        "Metrics { Name: \"old\" Filter { MaxArch: CC_70 } } "
                        "Metrics { Name: \"launch\" Filter { CollectionFilter { CollectionScopes: CollectionScope_Launch } } } }");
        g_autofree char *a = collected(s, 86, COLLECTION_SCOPE_RANGE);
        g_autofree char *b = collected(s, 70, COLLECTION_SCOPE_RANGE);
        g_autofree char *c = collected(s, 86, COLLECTION_SCOPE_LAUNCH);
        g_autofree char *d = collected(s, 70, COLLECTION_SCOPE_LAUNCH);
        g_assert_cmpstr(a, ==, "plain");
        g_assert_cmpstr(b, ==, "old");
        g_assert_cmpstr(c, ==, "launch");
        g_assert_cmpstr(d, ==, "");
        protobuf_c_message_free_unpacked(&s->base, NULL);
}

static void test_body_item_filter(void)
{
        NV__Profiler__ProfilerSection *s = parse(HEAD
                        "Body { Items { Table { Columns: 1 Metrics { Name: \"shown\" } } } "
                        "Items { Filter { MinArch: CC_90 } Table { Columns: 1 Metrics { Name: \"hopper\" } } } "
                        "Items { HorizontalContainer { Items { Filter { MaxArch: CC_75 } BarChart { Metrics { Name: \"turing\" } } } "
                        "Items { RooflineChart { Rooflines { PeakWork { Metric { Name: \"peak\" } } PeakTraffic { Constant: 1 } } } } } } }");
        g_autofree char *a = collected(s, 90, COLLECTION_SCOPE_LAUNCH);
        g_autofree char *b = collected(s, 75, COLLECTION_SCOPE_LAUNCH);
        g_autofree char *c = collected(s, 86, COLLECTION_SCOPE_LAUNCH);
        g_assert_cmpstr(a, ==, "shown hopper peak");
        g_assert_cmpstr(b, ==, "shown turing peak");
        g_assert_cmpstr(c, ==, "shown peak");
        protobuf_c_message_free_unpacked(&s->base, NULL);
}

static void test_patterns(void)
{
        SectionMetric re = { .name = "regex:sm__inst_executed_pipe_.*\\.sum", .pattern = SECTION_METRIC_REGEX };
        g_assert_cmpint(section_metric_pattern_match(&re, "sm__inst_executed_pipe_alu.sum"), ==, 1);
        g_assert_cmpint(section_metric_pattern_match(&re, "sm__inst_executed_pipe_alu.sum.peak"), ==, 0);
        g_assert_cmpint(section_metric_pattern_match(&re, "xsm__inst_executed_pipe_alu.sum"), ==, 0);
        SectionMetric bad = { .name = "regex:(", .pattern = SECTION_METRIC_REGEX };
        g_assert_cmpint(section_metric_pattern_match(&bad, "x"), ==, -EINVAL);
        SectionMetric plain = { .name = "a.b", .pattern = SECTION_METRIC_NAME };
        g_assert_cmpint(section_metric_pattern_match(&plain, "a.b"), ==, 1);
        g_assert_cmpint(section_metric_pattern_match(&plain, "aXb"), ==, 0);
}

/* ---- derived metrics ---- */

static void test_parse(void)
{
        MetricExpr *e = NULL;
        g_autofree char *err = NULL;

        g_assert_cmpint(metric_expr_parse("sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained * 2", &e,
                                        &err),
                        ==, 0);
        g_assert_cmpint(e->kind, ==, METRIC_EXPR_BINARY);
        g_assert_cmpint(e->op, ==, '*');
        g_assert_cmpstr(e->lhs->name, ==, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained");
        g_assert_cmpint(e->rhs->kind, ==, METRIC_EXPR_UINT64);
        g_assert_cmpuint(e->rhs->u, ==, 2);
        e = metric_expr_free(e);

        /* Constants: "5." and "0.3109" are doubles, "2029" a uint64. */
        g_assert_cmpint(metric_expr_parse("5. - 0.3109", &e, &err), ==, 0);
        g_assert_cmpint(e->lhs->kind, ==, METRIC_EXPR_DOUBLE);
        g_assert_cmpfloat(e->lhs->d, ==, 5.0);
        g_assert_cmpint(e->rhs->kind, ==, METRIC_EXPR_DOUBLE);
        g_assert_cmpfloat(e->rhs->d, ==, 0.3109);
        e = metric_expr_free(e);
        g_assert_cmpint(metric_expr_parse("2029 / inst_executed", &e, &err), ==, 0);
        g_assert_cmpint(e->lhs->kind, ==, METRIC_EXPR_UINT64);
        g_assert_cmpuint(e->lhs->u, ==, 2029);
        g_assert_cmpstr(e->rhs->name, ==, "inst_executed");
        e = metric_expr_free(e);

        /* NVIDIA's stock forms: precedence, parentheses, functions. */
        g_assert_cmpint(metric_expr_parse("100.0 * nan_as_zero(simplify(a) / (simplify(b) + simplify(c)))", &e, &err),
                        ==, 0);
        g_assert_cmpint(e->op, ==, '*');
        g_assert_cmpstr(e->rhs->name, ==, "nan_as_zero");
        g_assert_cmpint(e->rhs->lhs->op, ==, '/');
        e = metric_expr_free(e);
        g_assert_cmpint(metric_expr_parse(" ( a * 100 ) / b ", &e, &err), ==, 0);
        g_assert_cmpint(e->op, ==, '/');
        g_assert_cmpint(e->lhs->op, ==, '*');
        e = metric_expr_free(e);
        g_assert_cmpint(metric_expr_parse("a - b - c", &e, &err), ==, 0);
        g_assert_cmpint(e->lhs->op, ==, '-'); /* (a - b) - c */
        e = metric_expr_free(e);
        g_assert_cmpint(metric_expr_parse("a + b * c", &e, &err), ==, 0);
        g_assert_cmpint(e->op, ==, '+');
        e = metric_expr_free(e);

        const struct {
                const char *text;
                const char *error;
        } bad[] = {
                { "a +", "column 4: expected a metric name, a constant or \"(\", found end of expression" },
                { "a ++ b", "column 4: expected a metric name" },
                { "a b", "column 3: expected an operator (+ - * /) or the end of the expression, found \"b\"" },
                { "5.x * a", "column 3: expected an operator or the end after a constant" },
                { "sqrt(a)", "column 1: expected a metric name or one of the functions simplify, nan_as_zero" },
                { "(a + b", "column 7: expected \")\"" },
                { "a. + b", "column 2: expected a metric name not ending in '.'" },
                { "", "column 1: expected a metric name" },
                { "a % b", "column 3: expected an operator" },
                { "99999999999999999999 + a", "column 1: expected a constant that fits in 64 bits" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                g_autofree char *msg = NULL;
                g_assert_cmpint(metric_expr_parse(bad[i].text, &e, &msg), ==, -EINVAL);
                g_assert_nonnull(msg);
                if (!g_str_has_prefix(msg, bad[i].error))
                        g_printerr("%s: %s\n", bad[i].text, msg);
                g_assert_true(g_str_has_prefix(msg, bad[i].error));
        }
        GString *deep = g_string_new(NULL);
        for (int i = 0; i < 40; i++)
                g_string_append_c(deep, '(');
        g_string_append(deep, "a");
        g_autofree char *msg = NULL;
        g_assert_cmpint(metric_expr_parse(deep->str, &e, &msg), ==, -EINVAL);
        g_assert_nonnull(strstr(msg, "nested deeper"));
        g_string_free(deep, TRUE);
}

static MetricValue u64(uint64_t v)
{
        return (MetricValue){ .has_value = true, .value = { .kind = METRIC_VALUE_UINT64, .u = v } };
}

static MetricValue dbl(double v)
{
        return (MetricValue){ .has_value = true, .value = { .kind = METRIC_VALUE_DOUBLE, .d = v } };
}

static void test_kinds_and_division(void)
{
        MetricValue r;
        MetricValue a = u64(10), zero = u64(0), dzero = dbl(0.0), two = dbl(2.5), d7 = dbl(7.0);
        MetricValue str = { .has_value = true, .value = { .kind = METRIC_VALUE_STRING, .s = (char *) "name" } };
        MetricValue num = { .has_value = true, .value = { .kind = METRIC_VALUE_STRING, .s = (char *) "4" } };

        /* Integer 0 divisor: the left-hand side. */
        g_assert_cmpint(metric_value_combine(&a, '/', &zero, &r, NULL), ==, 0);
        g_assert_cmpint(r.value.kind, ==, METRIC_VALUE_UINT64);
        g_assert_cmpuint(r.value.u, ==, 10);
        metric_value_done(&r);
        g_assert_cmpint(metric_value_combine(&d7, '/', &zero, &r, NULL), ==, 0);
        g_assert_cmpfloat(r.value.d, ==, 7.0);
        metric_value_done(&r);
        /* Double 0.0 divisor: IEEE for a double, the left-hand side for a uint64. */
        g_assert_cmpint(metric_value_combine(&d7, '/', &dzero, &r, NULL), ==, 0);
        g_assert_true(isinf(r.value.d));
        metric_value_done(&r);
        g_assert_cmpint(metric_value_combine(&a, '/', &dzero, &r, NULL), ==, 0);
        g_assert_cmpuint(r.value.u, ==, 10);
        metric_value_done(&r);

        /* The left kind wins: 10 * 2.5 as uint64 is 10 * 2 = 20; 7.0 + 10 is a double. */
        g_assert_cmpint(metric_value_combine(&a, '*', &two, &r, NULL), ==, 0);
        g_assert_cmpint(r.value.kind, ==, METRIC_VALUE_UINT64);
        g_assert_cmpuint(r.value.u, ==, 20);
        metric_value_done(&r);
        g_assert_cmpint(metric_value_combine(&d7, '+', &a, &r, NULL), ==, 0);
        g_assert_cmpint(r.value.kind, ==, METRIC_VALUE_DOUBLE);
        g_assert_cmpfloat(r.value.d, ==, 17.0);
        metric_value_done(&r);
        /* A string on the left comes back unchanged; on the right it converts. */
        g_assert_cmpint(metric_value_combine(&str, '+', &a, &r, NULL), ==, 0);
        g_assert_cmpint(r.value.kind, ==, METRIC_VALUE_STRING);
        g_assert_cmpstr(r.value.s, ==, "name");
        metric_value_done(&r);
        g_assert_cmpint(metric_value_combine(&a, '-', &num, &r, NULL), ==, 0);
        g_assert_cmpuint(r.value.u, ==, 6);
        metric_value_done(&r);
        /* uint64 arithmetic wraps. */
        g_assert_cmpint(metric_value_combine(&zero, '-', &a, &r, NULL), ==, 0);
        g_assert_cmpuint(r.value.u, ==, UINT64_MAX - 9);
        metric_value_done(&r);
}

/* A value with instances: values[i] with ids[i] (ids NULL: none). */
static MetricValue list(const uint64_t *ids, const uint64_t *values, size_t n, bool regular, uint64_t regular_value)
{
        MetricValue v = { .has_instances = true, .has_ids = ids != NULL, .has_value = regular };
        v.value = (MetricScalar){ .kind = METRIC_VALUE_UINT64, .u = regular_value };
        v.instances = g_new0(MetricInstance, n + 1);
        v.n_instances = n;
        for (size_t i = 0; i < n; i++)
                v.instances[i] = (MetricInstance){ .id = ids ? ids[i] : 0,
                        .value = { .kind = METRIC_VALUE_UINT64, .u = values[i] } };
        return v;
}

static char *show(const MetricValue *v)
{
        GString *s = g_string_new(NULL);
        if (v->has_value)
                g_string_append_printf(s, "%" PRIu64, v->value.u);
        if (v->has_instances) {
                g_string_append(s, "[");
                for (size_t i = 0; i < v->n_instances; i++) {
                        if (v->has_ids)
                                g_string_append_printf(s, "%s%" PRIu64 ":%" PRIu64, i ? " " : "", v->instances[i].id,
                                                v->instances[i].value.u);
                        else
                                g_string_append_printf(s, "%s%" PRIu64, i ? " " : "", v->instances[i].value.u);
                }
                g_string_append(s, "]");
        }
        return g_string_free(s, FALSE);
}

static char *combine(MetricValue *a, char op, MetricValue *b)
{
        MetricValue r;
        g_assert_cmpint(metric_value_combine(a, op, b, &r, NULL), ==, 0);
        char *s = show(&r);
        metric_value_done(&r);
        return s;
}

static void test_instance_rules(void)
{
        /* Rule 1: regular values. */
        MetricValue a = u64(5), b = u64(3);
        g_autofree char *r1 = combine(&a, '+', &b);
        g_assert_cmpstr(r1, ==, "8");

        /* Rule 2: no ids on either side: the first min(n, m) pair up. */
        const uint64_t av[] = { 1, 2, 3 }, bv[] = { 10, 20 };
        MetricValue la = list(NULL, av, 3, true, 6), lb = list(NULL, bv, 2, true, 30);
        g_autofree char *r2 = combine(&la, '+', &lb);
        g_assert_cmpstr(r2, ==, "36[11 22]");

        /* Rule 3: both with ids: a1+b1, a2, b3, a4+b4, b5. */
        const uint64_t aid[] = { 4, 1, 2 }, avals[] = { 400, 100, 200 };
        const uint64_t bid[] = { 1, 3, 4, 5 }, bvals[] = { 1, 3, 4, 5 };
        MetricValue ia = list(aid, avals, 3, false, 0), ib = list(bid, bvals, 4, false, 0);
        g_autofree char *r3 = combine(&ia, '+', &ib);
        g_assert_cmpstr(r3, ==, "[1:101 2:200 3:3 4:404 5:5]");

        /* Rule 4: only the left has ids: the right's regular value with each element, ids kept. */
        MetricValue seven = u64(7);
        g_autofree char *r4 = combine(&ia, '*', &seven);
        g_assert_cmpstr(r4, ==, "[4:2800 1:700 2:1400]");
        MetricValue noreg = list(NULL, bv, 2, false, 0);
        MetricValue out;
        g_autofree char *err = NULL;
        g_assert_cmpint(metric_value_combine(&ia, '*', &noreg, &out, &err), ==, -EINVAL);
        g_assert_nonnull(strstr(err, "right operand"));

        /* Rule 5: only the right has ids: a + b1 + b2 + b3 ..., one regular value. */
        MetricValue hundred = u64(100);
        g_autofree char *r5 = combine(&hundred, '-', &ib);
        g_assert_cmpstr(r5, ==, "87"); /* 100 - 1 - 3 - 4 - 5 */

        /* Mixed: right has no instance list, left a list without ids: broadcast as rule 4. */
        g_autofree char *r6 = combine(&la, '+', &seven);
        g_assert_cmpstr(r6, ==, "13[8 9 10]");

        metric_value_done(&la);
        metric_value_done(&lb);
        metric_value_done(&ia);
        metric_value_done(&ib);
        metric_value_done(&noreg);
}

static const MetricValue *lookup(const char *name, void *userdata)
{
        GHashTable *t = userdata;
        return g_hash_table_lookup(t, name);
}

static void test_evaluate(void)
{
        g_autoptr(GHashTable) t = g_hash_table_new(g_str_hash, g_str_equal);
        MetricValue thread = u64(640), inst = u64(20), zero = u64(0), nanv = dbl(NAN), b = dbl(1.0), c = dbl(3.0);
        g_hash_table_insert(t, (char *) "thread_inst_executed", &thread);
        g_hash_table_insert(t, (char *) "inst_executed", &inst);
        g_hash_table_insert(t, (char *) "none", &zero);
        g_hash_table_insert(t, (char *) "a", &nanv);
        g_hash_table_insert(t, (char *) "b", &b);
        g_hash_table_insert(t, (char *) "c", &c);

        const struct {
                const char *expr;
                double expect;
                bool is_double;
        } cases[] = {
                { "thread_inst_executed / inst_executed", 32, false },
                { "thread_inst_executed / none", 640, false },
                { "32 - thread_inst_executed / inst_executed", 0, false },
                { "( inst_executed * 100 ) / thread_inst_executed", 3, false },
                { "100.0 * nan_as_zero(simplify(a) / (simplify(b) + simplify(c)))", 0, true },
                { "100.0 * nan_as_zero(simplify(b) / (simplify(b) + simplify(c)))", 25, true },
                { "inst_executed * 2.5", 40, false },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                MetricExpr *e = NULL;
                MetricValue r;
                g_assert_cmpint(metric_expr_parse(cases[i].expr, &e, NULL), ==, 0);
                g_assert_cmpint(metric_expr_evaluate(e, lookup, t, &r, NULL), ==, 0);
                g_assert_true(r.has_value);
                if (cases[i].is_double) {
                        g_assert_cmpint(r.value.kind, ==, METRIC_VALUE_DOUBLE);
                        g_assert_cmpfloat_with_epsilon(r.value.d, cases[i].expect, 1e-9);
                } else {
                        g_assert_cmpint(r.value.kind, ==, METRIC_VALUE_UINT64);
                        g_assert_cmpuint(r.value.u, ==, (uint64_t) cases[i].expect);
                }
                metric_value_done(&r);
                metric_expr_free(e);
        }

        MetricExpr *e = NULL;
        MetricValue r;
        g_autofree char *err = NULL;
        g_assert_cmpint(metric_expr_parse("missing + 1", &e, NULL), ==, 0);
        g_assert_cmpint(metric_expr_evaluate(e, lookup, t, &r, &err), ==, -ENOENT);
        g_assert_cmpstr(err, ==, "no value for metric \"missing\"");
        metric_expr_free(e);
}

int main(int argc, char **argv)
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/metrics/doc-example", test_doc_example);
        g_test_add_func("/metrics/options-and-items", test_options_and_items);
        g_test_add_func("/metrics/scopes-and-importance", test_scopes_and_importance);
        g_test_add_func("/metrics/section-vs-metric-filter", test_section_vs_metric_filter);
        g_test_add_func("/metrics/body-item-filter", test_body_item_filter);
        g_test_add_func("/metrics/patterns", test_patterns);
        g_test_add_func("/metric-expr/parse", test_parse);
        g_test_add_func("/metric-expr/kinds-and-division", test_kinds_and_division);
        g_test_add_func("/metric-expr/instance-rules", test_instance_rules);
        g_test_add_func("/metric-expr/evaluate", test_evaluate);
        return g_test_run();
}
