/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The model against NVIDIA's own ncu_report module: for every corpus report, by name, every action's
 * three names and every metric's kind, has_value, value and instances (with correlation ids) equal
 * ../shared/corpus/reports/expected/<name>.ncu_report.json. Doubles are compared as Python's repr()
 * prints them, which round-trips, so this is bit equality. Type, subtype, rollup and unit (derived from
 * the names by metric-attrs.c) are compared through the JSON document nvprofilectl prints. */

#include <fcntl.h>
#include <json-c/json.h>
#include <string.h>
#include <unistd.h>

#include "report-json-attrs.h"
#include "report-test-util.h"
#include "report.h"
#include "test-util.h"

static json_object *load_expected(const char *name)
{
        g_autofree char *file = g_strconcat("reports/expected/", name, ".ncu_report.json", NULL);
        g_autofree char *path = test_corpus_path(file);
        json_object *j = json_object_from_file(path);

        if (!j)
                g_error("%s: %s", path, json_util_get_last_err());
        return j;
}

/* The oracle's spelling of a value: doubles as repr() strings, integers as numbers, strings as is. */
static void assert_value(const NcuValue *v, json_object *expected, const char *what, const char *metric)
{
        char buf[NCU_DOUBLE_REPR_MAX];

        switch (v->kind) {
        case NCU_VALUE_DOUBLE:
        case NCU_VALUE_FLOAT:
                if (!json_object_is_type(expected, json_type_string))
                        g_error("%s: %s: expected %s, got a double", metric, what,
                                        json_object_to_json_string(expected));
                ncu_format_double_repr(v->kind == NCU_VALUE_DOUBLE ? v->d : (double) v->f, buf);
                if (!streq(buf, json_object_get_string(expected)))
                        g_error("%s: %s: expected %s, got %s", metric, what, json_object_get_string(expected), buf);
                return;
        case NCU_VALUE_UINT64:
        case NCU_VALUE_UINT32: {
                uint64_t u = v->kind == NCU_VALUE_UINT64 ? v->u64 : v->u32;
                if (!json_object_is_type(expected, json_type_int))
                        g_error("%s: %s: expected %s, got an integer", metric, what,
                                        json_object_to_json_string(expected));
                if (json_object_get_uint64(expected) != u)
                        g_error("%s: %s: expected %s, got %" PRIu64, metric, what, json_object_to_json_string(expected),
                                        u);
                return;
        }
        case NCU_VALUE_STRING:
                if (!json_object_is_type(expected, json_type_string))
                        g_error("%s: %s: expected %s, got a string", metric, what,
                                        json_object_to_json_string(expected));
                if (!streq(v->s, json_object_get_string(expected)))
                        g_error("%s: %s: expected \"%s\", got \"%s\"", metric, what, json_object_get_string(expected),
                                        v->s);
                return;
        case NCU_VALUE_UNKNOWN:
                if (expected && !json_object_is_type(expected, json_type_null))
                        g_error("%s: %s: expected %s, got no value", metric, what,
                                        json_object_to_json_string(expected));
                return;
        case _NCU_VALUE_KIND_MAX:
                break;
        }
        g_assert_not_reached();
}

static size_t assert_metric(const NcuMetric *m, json_object *e)
{
        json_object *instances = json_get(e, "instances");
        size_t n = instances ? json_object_array_length(instances) : 0;

        g_assert_nonnull(json_get(e, "kind"));
        if (!streq(ncu_value_kind_to_string(m->kind), json_object_get_string(json_get(e, "kind"))))
                g_error("%s: kind %s, expected %s", m->name, ncu_value_kind_to_string(m->kind),
                                json_object_get_string(json_get(e, "kind")));
        if (m->has_value != json_object_get_boolean(json_get(e, "has_value")))
                g_error("%s: has_value %d, expected %d", m->name, m->has_value, !m->has_value);
        if (m->has_value)
                assert_value(&m->value, json_get(e, "value"), "value", m->name);
        else
                g_assert_null(json_get(e, "value"));

        if (m->n_instances != n)
                g_error("%s: %zu instances, expected %zu", m->name, m->n_instances, n);
        if (instances)
                g_assert_cmpint(json_object_get_int(json_get(e, "num_instances")), ==, (int) n);
        for (size_t i = 0; i < n; i++) {
                json_object *pair = json_object_array_get_idx(instances, i);
                g_autofree char *what_id = g_strdup_printf("correlation id %zu", i);
                g_autofree char *what_value = g_strdup_printf("instance %zu", i);

                NcuValue id = ncu_value_convert(&m->instances[i].correlation_id, ncu_metric_correlation_kind(m));
                NcuValue value = ncu_value_convert(&m->instances[i].value, m->kind);

                g_assert_cmpint(json_object_array_length(pair), ==, 2);
                assert_value(&id, json_object_array_get_idx(pair, 0), what_id, m->name);
                assert_value(&value, json_object_array_get_idx(pair, 1), what_value, m->name);
        }
        return n;
}

/* ncu_report's type, subtype, rollup and unit, as the JSON document carries them (metric-attrs.c derives
 * them from the name: reports do not store them). */
static void assert_attrs(const char *name, json_object *ours, json_object *expected)
{
        static const char *const keys[] = { "type", "subtype", "rollup", "unit" };

        for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
                json_object *a = json_get(ours, keys[i]), *e = json_get(expected, keys[i]);
                const char *as = a ? json_object_get_string(a) : NULL, *es = e ? json_object_get_string(e) : NULL;

                if (!streq_ptr(as, es))
                        g_error("%s: %s %s, expected %s", name, keys[i], as ? as : "None", es ? es : "None");
        }
}

static void check_report(
                const char *name, size_t n_actions_expected, size_t n_metrics_expected, size_t n_instances_expected)
{
        g_autoptr(json_object) expected = load_expected(name);
        _cleanup_(ncu_report_freep) NcuReport *r = report_corpus_load(name);
        g_autoptr(json_object) doc = NULL;
        json_object *ranges = json_get(expected, "ranges");
        size_t n_metrics = 0, n_instances = 0, n_actions = 0;

        g_assert_cmpint(ncu_report_to_json_attrs(r, NCU_JSON_NO_INSTANCES, &doc), ==, 0);
        g_assert_cmpuint(r->n_ranges, ==, json_object_array_length(ranges));
        for (size_t i = 0; i < r->n_ranges; i++) {
                json_object *actions = json_get(json_object_array_get_idx(ranges, i), "actions");

                g_assert_cmpuint(r->ranges[i].n_actions, ==, json_object_array_length(actions));
                for (size_t j = 0; j < r->ranges[i].n_actions; j++) {
                        const NcuAction *a = ncu_report_action(r, i, j);
                        json_object *ea = json_object_array_get_idx(actions, j);
                        json_object *metrics = json_get(ea, "metrics");

                        g_assert_nonnull(a);
                        n_actions++;
                        g_assert_cmpstr(ncu_action_name(a, NCU_NAME_FUNCTION), ==,
                                        json_object_get_string(json_get(ea, "name")));
                        g_assert_cmpstr(ncu_action_name(a, NCU_NAME_DEMANGLED), ==,
                                        json_object_get_string(json_get(ea, "demangled")));
                        g_assert_cmpstr(ncu_action_name(a, NCU_NAME_MANGLED), ==,
                                        json_object_get_string(json_get(ea, "mangled")));

                        /* Same set of names: every expected one is found, and there are as many distinct. */
                        g_assert_cmpuint(a->n_unique_metrics, ==, (size_t) json_object_object_length(metrics));
                        /* The attributes, first metric of each name, through the JSON document. */
                        {
                                json_object *ours = json_get(
                                                json_object_array_get_idx(
                                                                json_get(json_object_array_get_idx(
                                                                                         json_get(doc, "ranges"), i),
                                                                                "actions"),
                                                                j),
                                                "metrics");
                                g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);

                                for (size_t k = 0; k < json_object_array_length(ours); k++) {
                                        json_object *om = json_object_array_get_idx(ours, k);
                                        const char *mname = json_object_get_string(json_get(om, "name"));
                                        json_object *em = json_get(metrics, mname);

                                        if (!g_hash_table_add(seen, (char *) mname))
                                                continue;
                                        g_assert_nonnull(em);
                                        assert_attrs(mname, om, em);
                                }
                        }
                        for (struct json_object_iterator it = json_object_iter_begin(metrics),
                                                         end = json_object_iter_end(metrics);
                                        !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
                                const char *key = json_object_iter_peek_name(&it);
                                json_object *val = json_object_iter_peek_value(&it);
                                const NcuMetric *m = ncu_action_metric_by_name(a, key);
                                if (!m)
                                        g_error("%s action %zu: no metric %s", name, j, key);
                                n_instances += assert_metric(m, val);
                                n_metrics++;
                        }
                }
        }
        g_assert_cmpuint(n_actions, ==, n_actions_expected);
        g_assert_cmpuint(n_metrics, ==, n_metrics_expected);
        g_assert_cmpuint(n_instances, ==, n_instances_expected);
}

/* Counts in the oracle file: actions, metrics (distinct names per action, summed) and instances. */
static const struct {
        const char *name;
        size_t actions, metrics, instances;
} cases[REPORT_CORPUS_N] = {
        { "armleth_report_ncu2024.2.1", 1, 1131, 1520 },
        { "extrap_ex-gpu.s10_ncu2020.3.1", 6, 1278, 3906 },
        { "nvidia_example_addConstDouble3_ncu2023.3.0", 1, 839, 5798 },
        { "nvidia_example_sobelFloat_ncu2023.3.0", 1, 839, 10716 },
        { "syswea_profile_report_ncu2025.1.1", 3, 1569, 3216 },
        { "2388612861_GPU-DEMO_occupancy_ncu2025.2.1", 45, 12182, 27641 },
        { "BrennenTaylor_Twisty_profile_ncu2019.x", 2, 362, 1326 },
        { "HadiKhansaa_BBAStar_profile_output_ncu2024.3.2", 2, 2321, 37581 },
        { "MgMap_Hyper-Spec-M_profile_ncu2024.3.2", 8, 4104, 3848 },
        { "NVIDIA_nsight-training_manual_nvtx_ncu2022.3.0", 3, 1041, 3770 },
        { "RottenFishbone_rs-wfc_profile_ncu2022.3.0", 5, 1340, 2630 },
        { "anuragdogra2192_MultipleNodesScaling_report_ncu2020.1.x", 1, 221, 516 },
        { "bobschreiner_NuKEXC_profile_ncu2025.2.1", 1, 558, 1804 },
        { "bwcurless_FaSTED_Mode44_ncu2023.2.0", 3, 2133, 22121 },
        { "bwd29_self-join-MiSTIC_profile4_ncu2021.2.2", 4, 1052, 2616 },
        { "eschnett_IndexSpaces.jl_profile_ncu2022.1.1", 2, 1530, 56852 },
        { "evozone96_matrixMul_profile_ncu2019.x", 8, 1224, 3608 },
        { "iamcoleman_monte-carlo-pi_profile_ncu2020.2.1", 2, 1242, 130962 },
        { "panjd123_cutlass_report-s8-persist_ncu2024.1.1", 2, 2440, 19363 },
        { "trevorgloe_GPUAcceleratedNetworkSim_profile_ncu2024.3.1", 1, 509, 553 },
        { "wtzhang23_gpu-ray-tracer_report_ncu2021.1.0", 3, 1366, 12367 },
};

static void test_case(gconstpointer data)
{
        size_t i = GPOINTER_TO_SIZE(data);

        check_report(cases[i].name, cases[i].actions, cases[i].metrics, cases[i].instances);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();
        for (size_t i = 0; i < REPORT_CORPUS_N; i++) {
                g_autofree char *t = g_strconcat("/report-oracle/", cases[i].name, NULL);
                /* The same reports as the rest of the report tests. */
                g_assert_cmpstr(cases[i].name, ==, report_corpus_names[i]);
                g_test_add_data_func(t, GSIZE_TO_POINTER(i), test_case);
        }
        return g_test_run();
}
