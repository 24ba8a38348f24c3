/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* metric_attrs_derive() against NVIDIA's ncu_report: for every metric of every action of every corpus report,
 * the type, subtype, rollup and unit ncu_report returned (expected/<name>.ncu_report.json) must be ours. */

#include <glib.h>
#include <json-c/json.h>
#include <string.h>

#include "metric-attrs-oracle.h"
#include "metric-attrs.h"
#include "report-test-util.h"
#include "test-util.h"

/* A value of the dump as a number: integers as they are, doubles from their repr() string; -1 for none. */
static double dump_number(json_object *metrics, const char *name)
{
        json_object *m = json_object_object_get(metrics, name), *v = m ? json_object_object_get(m, "value") : NULL;

        if (!v)
                return -1;
        if (json_object_is_type(v, json_type_int))
                return (double) json_object_get_uint64(v);
        if (json_object_is_type(v, json_type_string))
                return g_ascii_strtod(json_object_get_string(v), NULL);
        return -1;
}

/* The chip the dump's action ran on, from the metrics the model reads it from (report.h, NcuAction). */
static void dump_chip(json_object *metrics, MetricChip *ret)
{
        metric_chip_from_device((int) dump_number(metrics, "device__attribute_compute_capability_major"),
                        (int) dump_number(metrics, "device__attribute_compute_capability_minor"),
                        dump_number(metrics, "nvlink__max_count"), ret);
        ret->name = metric_chip_name(dump_number(metrics, "device__attribute_chip"));
}

static void check_report(gconstpointer data)
{
        const char *name = data;
        g_autofree char *rel = g_strdup_printf("reports/expected/%s.ncu_report.json", name);
        g_autofree char *path = test_corpus_path(rel);
        json_object *root = json_object_from_file(path);
        size_t n_metrics = 0, n_mismatches = 0;

        g_assert_nonnull(root);
        json_object *ranges = json_object_object_get(root, "ranges");
        g_assert_nonnull(ranges);

        for (size_t r = 0; r < json_object_array_length(ranges); r++) {
                json_object *actions = json_object_object_get(json_object_array_get_idx(ranges, r), "actions");
                g_assert_nonnull(actions);
                for (size_t a = 0; a < json_object_array_length(actions); a++) {
                        json_object *metrics = json_object_object_get(json_object_array_get_idx(actions, a), "metrics");
                        MetricChip chip;

                        g_assert_nonnull(metrics);
                        dump_chip(metrics, &chip);
                        for (struct json_object_iterator it = json_object_iter_begin(metrics),
                                                         end = json_object_iter_end(metrics);
                                        !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
                                const char *metric = json_object_iter_peek_name(&it);
                                json_object *m = json_object_iter_peek_value(&it);
                                const char *kind = json_object_get_string(json_object_object_get(m, "kind"));
                                const char *unit = json_object_get_string(json_object_object_get(m, "unit"));
                                MetricAttrs attrs;

                                metric_attrs_derive(metric, streq(kind, "double") || streq(kind, "float"), &chip, NULL,
                                                &attrs);
                                n_metrics++;
                                if (metric_attrs_equal_json(&attrs, m))
                                        continue;
                                n_mismatches++;
                                g_test_message("%s action %zu: %s (%s): ours %s/%s/%s/'%s', ncu_report %s/%s/%s/'%s'",
                                                name, a, metric, kind, metric_type_to_string(attrs.type),
                                                strna(metric_subtype_to_string(attrs.subtype)),
                                                strna(metric_rollup_to_string(attrs.rollup)), attrs.unit,
                                                json_object_get_string(json_object_object_get(m, "type")),
                                                json_object_get_string(json_object_object_get(m, "subtype")),
                                                json_object_get_string(json_object_object_get(m, "rollup")), unit);
                        }
                }
        }
        g_test_message("%s: metrics whose attributes match: %zu of %zu", name, n_metrics - n_mismatches, n_metrics);
        g_assert_cmpuint(n_metrics, >, 0);
        g_assert_cmpuint(n_mismatches, ==, 0);
        json_object_put(root);
}

static void check_on(const char *name, bool is_floating, const MetricChip *chip, const char *section_unit,
                MetricType type, MetricSubtype subtype, MetricRollup rollup, const char *unit)
{
        MetricAttrs a;

        metric_attrs_derive(name, is_floating, chip, section_unit, &a);
        g_assert_cmpstr(metric_type_to_string(a.type), ==, metric_type_to_string(type));
        g_assert_cmpint(a.subtype, ==, subtype);
        g_assert_cmpint(a.rollup, ==, rollup);
        g_assert_cmpstr(a.unit, ==, unit);
}

static void check(const char *name, bool is_floating, const char *section_unit, MetricType type, MetricSubtype subtype,
                MetricRollup rollup, const char *unit)
{
        check_on(name, is_floating, NULL, section_unit, type, subtype, rollup, unit);
}

/* Rules on names the corpus does not hold: they must follow from the same conventions. */
static void test_rules(void)
{
        check("l1tex__t_bytes.sum.per_second", true, NULL, METRIC_TYPE_COUNTER, METRIC_SUBTYPE_PER_SECOND,
                        METRIC_ROLLUP_SUM, "byte_per_second");
        /* the peak over the elapsed cycles is a count (NVIDIA's listing: "request") */
        check("lts__t_requests.max.peak_sustained_elapsed", true, NULL, METRIC_TYPE_COUNTER,
                        METRIC_SUBTYPE_PEAK_SUSTAINED_ELAPSED, METRIC_ROLLUP_MAX, "request");
        check("sm__cycles_active.min.per_cycle_elapsed", true, NULL, METRIC_TYPE_COUNTER,
                        METRIC_SUBTYPE_PER_CYCLE_ELAPSED, METRIC_ROLLUP_MIN, "");
        check("sm__memory_throughput.avg.pct_of_peak_sustained_region", true, NULL, METRIC_TYPE_THROUGHPUT,
                        METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_REGION, METRIC_ROLLUP_AVG, "%");
        check("lts__average_t_bytes_per_request.ratio", true, NULL, METRIC_TYPE_RATIO, METRIC_SUBTYPE_NONE,
                        METRIC_ROLLUP_NONE, "byte_per_request");
        /* Not floating point: ncu collected it itself. */
        check("sm__cycles_active.avg", false, NULL, METRIC_TYPE_OTHER, METRIC_SUBTYPE_NONE, METRIC_ROLLUP_AVG, "cycle");
        /* An unknown suffix is no subtype. */
        check("sm__cycles_active.avg.per_fortnight", true, NULL, METRIC_TYPE_OTHER, METRIC_SUBTYPE_NONE,
                        METRIC_ROLLUP_AVG, "cycle");
        /* A section's unit wins. */
        check("launch__grid_size", false, "block", METRIC_TYPE_OTHER, METRIC_SUBTYPE_NONE, METRIC_ROLLUP_NONE, "block");
        check("dram__bytes.sum", true, "", METRIC_TYPE_COUNTER, METRIC_SUBTYPE_NONE, METRIC_ROLLUP_SUM, "byte");
        /* Degenerate names never crash. */
        check("", false, NULL, METRIC_TYPE_OTHER, METRIC_SUBTYPE_NONE, METRIC_ROLLUP_NONE, "");
        check("...", true, NULL, METRIC_TYPE_OTHER, METRIC_SUBTYPE_NONE, METRIC_ROLLUP_NONE, "");
        check("a:b", true, NULL, METRIC_TYPE_OTHER, METRIC_SUBTYPE_NONE, METRIC_ROLLUP_NONE, "");
        check("x__", true, NULL, METRIC_TYPE_OTHER, METRIC_SUBTYPE_NONE, METRIC_ROLLUP_NONE, "");

        g_autofree char *longname = g_strnfill(4096, 'a');
        memcpy(longname, "sm__", 4);
        check(longname, true, NULL, METRIC_TYPE_OTHER, METRIC_SUBTYPE_NONE, METRIC_ROLLUP_NONE, "");
}

/* The GPU a result ran on (MetricChip), on names and compute capabilities the corpus does not hold. */
static void test_chips(void)
{
        static const struct {
                int major, minor;
                bool outside;
        } ccs[] = {
                { 6, 0, true },
                { 6, 2, true },
                { 7, 0, false },
                { 7, 2, false },
                { 8, 7, false },
                { 9, 0, false },
                { 10, 0, true },
                { 10, 3, true },
                { 12, 1, true },
                { -1, -1, false },
        };
        MetricChip chip;

        for (size_t i = 0; i < G_N_ELEMENTS(ccs); i++) {
                metric_chip_from_device(ccs[i].major, ccs[i].minor, -1, &chip);
                g_assert_cmpint(chip.outside_database, ==, ccs[i].outside);
                g_assert_false(chip.lacks_nvlink);
        }

        /* Outside the database: every metric "other", units only for the occupancy calculator's counts. */
        metric_chip_from_device(10, 0, 18, &chip);
        check_on("dram__bytes.sum.per_second", true, &chip, NULL, METRIC_TYPE_OTHER, METRIC_SUBTYPE_PER_SECOND,
                        METRIC_ROLLUP_SUM, "");
        check_on("launch__occupancy_limit_registers", true, &chip, NULL, METRIC_TYPE_OTHER, METRIC_SUBTYPE_NONE,
                        METRIC_ROLLUP_NONE, "block");
        check_on("launch__occupancy_limit_barriers", true, &chip, NULL, METRIC_TYPE_OTHER, METRIC_SUBTYPE_NONE,
                        METRIC_ROLLUP_NONE, "");
        check_on("launch__registers_per_thread", false, &chip, NULL, METRIC_TYPE_OTHER, METRIC_SUBTYPE_NONE,
                        METRIC_ROLLUP_NONE, "");

        /* Without NVLink, the NVLink rates are names the database lacks, floating point or not. */
        metric_chip_from_device(8, 9, 0, &chip);
        g_assert_true(chip.lacks_nvlink);
        check_on("nvltx__bytes.avg.per_second", true, &chip, NULL, METRIC_TYPE_OTHER, METRIC_SUBTYPE_PER_SECOND,
                        METRIC_ROLLUP_AVG, "byte");
        check_on("nvlrx__bytes.sum.pct_of_peak_sustained_elapsed", false, &chip, NULL, METRIC_TYPE_OTHER,
                        METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_ELAPSED, METRIC_ROLLUP_SUM, "byte");
        check_on("dram__bytes.sum.per_second", true, &chip, NULL, METRIC_TYPE_COUNTER, METRIC_SUBTYPE_PER_SECOND,
                        METRIC_ROLLUP_SUM, "byte_per_second");
        /* With it, the fallback a rule stored is the counter. */
        metric_chip_from_device(8, 6, 4, &chip);
        check_on("nvltx__bytes.sum.per_second", false, &chip, NULL, METRIC_TYPE_COUNTER, METRIC_SUBTYPE_PER_SECOND,
                        METRIC_ROLLUP_SUM, "byte_per_second");

        /* A later revision of a counter is not in ncu 2024.1.1's database, on any chip. */
        check_on("sm__pipe_fma_cycles_active_v3.max.pct_of_peak_sustained_active", true, NULL, NULL, METRIC_TYPE_OTHER,
                        METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_ACTIVE, METRIC_ROLLUP_MAX, "cycle");
        check_on("sm__pipe_fma_cycles_active_vx.max.pct_of_peak_sustained_active", true, NULL, NULL,
                        METRIC_TYPE_COUNTER, METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_ACTIVE, METRIC_ROLLUP_MAX, "%");
}

static void check_csv_unit(const char *name, bool is_floating, const char *expected)
{
        char buf[METRIC_UNIT_MAX];
        MetricAttrs a;

        metric_attrs_derive(name, is_floating, NULL, NULL, &a);
        metric_attrs_csv_unit(&a, buf);
        g_assert_cmpstr(buf, ==, expected);
}

static void test_csv_units(void)
{
        check_csv_unit("gpu__time_duration.sum", true, "nsecond");
        check_csv_unit("dram__bytes.sum.per_second", true, "byte/second");
        check_csv_unit("launch__registers_per_thread", false, "register/thread");
        check_csv_unit("derived__pct_occupancy_per_block_size", true, "%/");
        check_csv_unit("derived__pct_occupancy_per_register_count", true, "%/register");
        check_csv_unit("launch__occupancy_per_block_size", true, "");
        check_csv_unit("sm__cycles_elapsed.avg.per_second", true, "cycle/second");
}

int main(int argc, char **argv)
{
        g_test_init(&argc, &argv, NULL);

        g_test_add_func("/metric-attrs/rules", test_rules);
        g_test_add_func("/metric-attrs/csv-units", test_csv_units);
        g_test_add_func("/metric-attrs/chips", test_chips);
        for (size_t i = 0; i < REPORT_CORPUS_N; i++) {
                g_autofree char *p = g_strdup_printf("/metric-attrs/corpus/%s", report_corpus_names[i]);
                g_test_add_data_func(p, report_corpus_names[i], check_report);
        }
        return g_test_run();
}
