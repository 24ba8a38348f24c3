/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Our raw and details CSV exports of every corpus report against ncu 2024.1.1's own exports
 * (reports/expected/<name>.{raw,raw-instances,details}.csv): byte for byte. */

#include <fcntl.h>
#include <glib.h>
#include <json-c/json.h>
#include <stdio.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metric-attrs-oracle.h"
#include "report-csv-write.h"
#include "report-csv.h"
#include "report.h"
#include "test-util.h"

static const char *const reports[] = {
        "extrap_ex-gpu.s10_ncu2020.3.1",
        "armleth_report_ncu2024.2.1",
        "syswea_profile_report_ncu2025.1.1",
        "nvidia_example_addConstDouble3_ncu2023.3.0",
        "nvidia_example_sobelFloat_ncu2023.3.0",
};

typedef enum ExportKind {
        EXPORT_RAW,
        EXPORT_RAW_INSTANCES,
        EXPORT_DETAILS,
} ExportKind;

typedef struct ExportCase {
        const char *report;
        ExportKind kind;
} ExportCase;

static const char *const export_suffix[] = {
        [EXPORT_RAW] = "raw.csv",
        [EXPORT_RAW_INSTANCES] = "raw-instances.csv",
        [EXPORT_DETAILS] = "details.csv",
};

static NcuReport *load(const char *name)
{
        g_autofree char *rel = g_strdup_printf("reports/%s.ncu-rep", name);
        g_autofree char *path = test_corpus_path(rel);
        NcuReportError error = { .offset = 0 };
        NcuReport *r = NULL;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        g_assert_cmpint(fd, >=, 0);
        if (ncu_report_load_fd(fd, NULL, &r, &error) < 0)
                g_error("%s: offset %" G_GUINT64_FORMAT ": %s", path, error.offset, error.message);
        close(fd);
        return r;
}

static void check_export(gconstpointer data)
{
        const ExportCase *c = data;
        g_autofree char *rel = g_strdup_printf("reports/expected/%s.%s", c->report, export_suffix[c->kind]);
        g_autofree char *path = test_corpus_path(rel);
        g_autofree char *expected = NULL;
        g_autoptr(GError) error = NULL;
        _cleanup_(ncu_report_freep) NcuReport *r = load(c->report);
        char *ours = NULL;
        size_t n_ours = 0, n_expected = 0;
        FILE *f;

        g_assert_true(g_file_get_contents(path, &expected, &n_expected, &error));
        f = open_memstream(&ours, &n_ours);
        g_assert_nonnull(f);
        switch (c->kind) {
        case EXPORT_RAW:
        case EXPORT_RAW_INSTANCES:
                g_assert_cmpint(ncu_export_raw_csv(r, c->kind == EXPORT_RAW_INSTANCES, f), ==, 0);
                break;
        case EXPORT_DETAILS:
                g_assert_cmpint(ncu_export_details_csv(r, f), ==, 0);
                break;
        }
        g_assert_cmpint(fclose(f), ==, 0);

        if (n_ours != n_expected || memcmp(ours, expected, n_ours) != 0) {
                test_report_difference(rel, ours, n_ours, expected, n_expected);
                g_test_fail();
        }
        free(ours);
}

/* The same exports through the built client: "nvprofilectl report raw|details FILE --csv". */
static void check_verb(gconstpointer data)
{
        const ExportCase *c = data;
        const char *bin = g_getenv("NVPROFILECTL_BIN");
        g_autofree char *rel = g_strdup_printf("reports/expected/%s.%s", c->report, export_suffix[c->kind]);
        g_autofree char *path = test_corpus_path(rel);
        g_autofree char *rel_report = g_strdup_printf("reports/%s.ncu-rep", c->report);
        g_autofree char *report = test_corpus_path(rel_report);
        g_autofree char *expected = NULL, *out = NULL, *err = NULL;
        g_autoptr(GError) error = NULL;
        size_t n_expected = 0;
        int status = 0;

        if (!bin) {
                g_test_skip("NVPROFILECTL_BIN not set");
                return;
        }
        const char *argv[] = {
                bin,
                "report",
                c->kind == EXPORT_DETAILS ? "details" : "raw",
                report,
                "--csv",
                "--print-units=base",
                c->kind == EXPORT_RAW_INSTANCES             ? "--print-metric-instances=values"
                                : c->kind == EXPORT_DETAILS ? "--print-details=all"
                                                            : NULL,
                NULL,
        };
        g_assert_true(g_file_get_contents(path, &expected, &n_expected, &error));
        g_assert_true(g_spawn_sync(
                        NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
        g_assert_no_error(error);
        g_assert_cmpstr(err, ==, "");
        g_assert_true(g_spawn_check_wait_status(status, NULL));
        if (strlen(out) != n_expected || memcmp(out, expected, n_expected) != 0) {
                test_report_difference(rel, out, strlen(out), expected, n_expected);
                g_test_fail();
        }
}

/* Exit status 2 for usage errors, 1 for a file that is not a valid report (with the byte offset). */
static void test_verb_errors(void)
{
        const char *bin = g_getenv("NVPROFILECTL_BIN");
        g_autofree char *report = test_corpus_path("reports/armleth_report_ncu2024.2.1.ncu-rep");
        g_autofree char *dir = g_dir_make_tmp("report-export-XXXXXX", NULL);
        g_autofree char *truncated = g_build_filename(dir, "truncated.ncu-rep", NULL);
        g_autofree char *data = NULL;
        size_t size = 0;
        struct {
                const char *argv[6];
                int exit_status;
                const char *message;
        } cases[] = {
                { { "report", "raw", report, "--print-details=all", NULL }, 2, "applies to the details page" },
                { { "report", "raw", report, "--csv", "--print-metric-instances=all", NULL }, 2,
                                "takes none, values or details" },
                { { "report", "session", report, "--print-units=base", NULL }, 2, "the session page has no metrics" },
                { { "report", "details", report, "--print-units=scaled", NULL }, 2, "takes base or dynamic" },
                { { "status", "--csv", NULL }, 2, "an option of report" },
                { { "report", "raw", truncated, "--csv", NULL }, 1, "byte " },
                { { "report", "details", "/nonexistent/x.ncu-rep", "--csv", NULL }, 1, "No such file" },
        };

        if (!bin) {
                g_test_skip("NVPROFILECTL_BIN not set");
                return;
        }
        g_assert_nonnull(dir);
        g_assert_true(g_file_get_contents(report, &data, &size, NULL));
        g_assert_true(g_file_set_contents(truncated, data, (gssize) (size / 2), NULL));

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                const char *argv[8] = { bin };
                g_autofree char *out = NULL, *err = NULL;
                g_autoptr(GError) error = NULL;
                int status = 0;

                for (size_t j = 0; cases[i].argv[j]; j++)
                        argv[j + 1] = cases[i].argv[j];
                g_assert_true(g_spawn_sync(
                                NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
                g_assert_true(WIFEXITED(status));
                g_assert_cmpint(WEXITSTATUS(status), ==, cases[i].exit_status);
                g_assert_cmpstr(out, ==, "");
                g_assert_nonnull(strstr(err, cases[i].message));
        }
        g_assert_cmpint(unlink(truncated), ==, 0);
        g_assert_cmpint(rmdir(dir), ==, 0);
}

/* Appends the key and length of a length-delimited field (its bytes follow). */
static void append_field(GByteArray *out, unsigned id, size_t len)
{
        guint8 head[16];
        size_t n = 0;

        head[n++] = (guint8) (id << 3 | 2);
        do {
                head[n] = len & 0x7f;
                len >>= 7;
                head[n++] |= len ? 0x80 : 0;
        } while (len);
        g_byte_array_append(out, head, (guint) n);
}

static size_t field_size(size_t len)
{
        size_t n = 2; /* key, and the first length byte */
        while (len >= 0x80) {
                len >>= 7;
                n++;
        }
        return n;
}

/* A section whose body nests HorizontalContainers depth levels deep (Section.Body=5 > Body.Items=1 >
 * BodyItem.HorizontalContainer=5 > HorizontalContainer.Items=1 > ...), and a table (BodyItem.Table=1,
 * Table.Metrics=5) at the bottom. Written outside in, with the lengths computed first. */
static GByteArray *nested_section(size_t depth)
{
        static const guint8 metric_name[] = "dram__bytes.sum";
        GByteArray *metric = g_byte_array_new(), *table = g_byte_array_new(), *item = g_byte_array_new();
        GByteArray *section = g_byte_array_new();
        g_autofree size_t *item_size = g_new(size_t, depth + 1);

        append_field(metric, 1, sizeof(metric_name) - 1);
        g_byte_array_append(metric, metric_name, sizeof(metric_name) - 1);
        append_field(table, 1, 1); /* Label "T" */
        g_byte_array_append(table, (const guint8 *) "T", 1);
        g_byte_array_append(table, (const guint8[]){ 3 << 3, 1 }, 2); /* Columns: 1 */
        append_field(table, 5, metric->len);
        g_byte_array_append(table, metric->data, metric->len);
        append_field(item, 1, table->len);
        g_byte_array_append(item, table->data, table->len);

        /* item_size[d]: the bytes of the body item d levels above the table's. */
        item_size[0] = item->len;
        for (size_t d = 1; d <= depth; d++) {
                size_t container = field_size(item_size[d - 1]) + item_size[d - 1];
                item_size[d] = field_size(container) + container;
        }

        append_field(section, 1, 1); /* Identifier "S" */
        g_byte_array_append(section, (const guint8 *) "S", 1);
        append_field(section, 2, 1); /* DisplayName "D" */
        g_byte_array_append(section, (const guint8 *) "D", 1);
        append_field(section, 5, field_size(item_size[depth]) + item_size[depth]); /* Body */
        append_field(section, 1, item_size[depth]); /* Body.Items */
        for (size_t d = depth; d > 0; d--) {
                append_field(section, 5, field_size(item_size[d - 1]) + item_size[d - 1]);
                append_field(section, 1, item_size[d - 1]);
        }
        g_byte_array_append(section, item->data, item->len);

        g_byte_array_unref(item);
        g_byte_array_unref(metric);
        g_byte_array_unref(table);
        return section;
}

static char *details_of_section(GByteArray *section)
{
        NcuValue value = { .kind = NCU_VALUE_DOUBLE, .d = 42.0 };
        NcuMetric metric = { .name = "dram__bytes.sum", .kind = NCU_VALUE_DOUBLE, .has_value = true, .value = value };
        const NcuMetric *by_name[] = { &metric };
        NcuEmbeddedSection embedded = {
                .identifier = "S", .display_name = "D", .size = section->len, .data = section->data
        };
        NcuAction action = {
                .n_metrics = 1,
                .metrics = &metric,
                .metrics_by_name = by_name,
                .n_unique_metrics = 1,
                .n_sections = 1,
                .sections = &embedded,
                .device_index = -1,
        };
        NcuAction *actions[] = { &action };
        NcuReport report = { .n_actions = 1, .actions = actions };
        char *out = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&out, &n);

        g_assert_cmpint(ncu_export_details_csv(&report, f), ==, 0);
        g_assert_cmpint(fclose(f), ==, 0);
        return out;
}

/* Sections come from untrusted reports: a body nested 200,000 levels deep (which would exhaust the stack
 * of protobuf-c's recursive unpacking) is left out; a shallow one renders. */
static void test_nested_section(void)
{
        g_autoptr(GByteArray) shallow = nested_section(3), deep = nested_section(200000);
        g_autofree char *ok = details_of_section(shallow), *refused = details_of_section(deep);

        g_assert_nonnull(strstr(ok, "\"D\",\"T\",\"dram__bytes.sum\",\"byte\",\"42\"\n"));
        g_assert_null(strstr(refused, "dram__bytes.sum"));
        g_assert_cmpuint(strlen(refused), ==, strchr(refused, '\n') - refused + 1); /* the header row only */
}

/* The attributes of every metric of the model (its kinds as the reader found them) equal ncu_report's. */
static void check_model_attrs(gconstpointer data)
{
        const char *name = data;
        g_autofree char *rel = g_strdup_printf("reports/expected/%s.ncu_report.json", name);
        g_autofree char *path = test_corpus_path(rel);
        _cleanup_(ncu_report_freep) NcuReport *r = load(name);
        json_object *root = json_object_from_file(path);
        size_t n = 0, mismatches = 0;

        g_assert_nonnull(root);
        json_object *actions = json_object_object_get(
                        json_object_array_get_idx(json_object_object_get(root, "ranges"), 0), "actions");
        g_assert_cmpuint(json_object_array_length(actions), ==, r->n_actions);
        for (size_t a = 0; a < r->n_actions; a++) {
                json_object *metrics = json_object_object_get(json_object_array_get_idx(actions, a), "metrics");
                for (size_t i = 0; i < r->actions[a]->n_metrics; i++) {
                        const NcuMetric *m = &r->actions[a]->metrics[i];
                        json_object *j = json_object_object_get(metrics, m->name);
                        MetricAttrs attrs;

                        g_assert_nonnull(j);
                        ncu_metric_attrs(r->actions[a], m, NULL, &attrs);
                        n++;
                        if (metric_attrs_equal_json(&attrs, j))
                                continue;
                        mismatches++;
                        g_test_message("%s action %zu: %s: type %s unit '%s'", name, a, m->name,
                                        metric_type_to_string(attrs.type), attrs.unit);
                }
        }
        g_test_message("%s: metrics of the model whose attributes match: %zu of %zu", name, n - mismatches, n);
        g_assert_cmpuint(n, >, 0);
        g_assert_cmpuint(mismatches, ==, 0);
        json_object_put(root);
}

static void test_format_double(void)
{
        char buf[NCU_CSV_NUMBER_MAX];

        g_assert_cmpstr(ncu_csv_format_double(31872.0, buf), ==, "31872");
        g_assert_cmpstr(ncu_csv_format_double(0.0, buf), ==, "0");
        g_assert_cmpstr(ncu_csv_format_double(-0.0, buf), ==, "0");
        g_assert_cmpstr(ncu_csv_format_double(5.5674327454124355e-06, buf), ==, "0.00");
        g_assert_cmpstr(ncu_csv_format_double(1.87555966405605, buf), ==, "1.88");
        g_assert_cmpstr(ncu_csv_format_double(28799.524999999998, buf), ==, "28799.52");
        g_assert_cmpstr(ncu_csv_format_double(137454304880128.0, buf), ==, "137454304880128");
        g_assert_cmpstr(ncu_csv_format_double(133819277108.43, buf), ==, "133819277108.43");
}

static void test_write_field(void)
{
        char *out = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&out, &n);

        ncu_csv_write_field(f, "a", true);
        ncu_csv_write_field(f, "say \"hi\"", false);
        ncu_csv_write_field(f, NULL, false);
        ncu_csv_write_field(f, "x,y", false);
        g_assert_cmpint(fclose(f), ==, 0);
        g_assert_cmpstr(out, ==, "\"a\",\"say \"\"hi\"\"\",\"\",\"x,y\"");
        free(out);
}

int main(int argc, char **argv)
{
        static ExportCase cases[G_N_ELEMENTS(reports) * G_N_ELEMENTS(export_suffix)];
        size_t n = 0;

        g_test_init(&argc, &argv, NULL);

        g_test_add_func("/report-export/format-double", test_format_double);
        g_test_add_func("/report-export/write-field", test_write_field);
        g_test_add_func("/report-export/verb/errors", test_verb_errors);
        g_test_add_func("/report-export/details/nested-section", test_nested_section);
        for (size_t i = 0; i < G_N_ELEMENTS(reports); i++) {
                g_autofree char *p = g_strdup_printf("/report-export/model-attrs/%s", reports[i]);
                g_test_add_data_func(p, reports[i], check_model_attrs);
        }
        for (size_t k = 0; k < G_N_ELEMENTS(export_suffix); k++)
                for (size_t i = 0; i < G_N_ELEMENTS(reports); i++) {
                        g_autofree char *p = g_strdup_printf("/report-export/%s/%s", export_suffix[k], reports[i]);
                        cases[n] = (ExportCase){ .report = reports[i], .kind = k };
                        g_autofree char *v = g_strdup_printf("/report-export/verb/%s/%s", export_suffix[k], reports[i]);
                        g_test_add_data_func(p, &cases[n], check_export);
                        g_test_add_data_func(v, &cases[n++], check_verb);
                }
        return g_test_run();
}
