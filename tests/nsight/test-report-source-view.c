/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The source view of an action (report-source-view.h), without a bus: on the two corpus reports that embed
 * their CUDA source, the files are the stored ones line by line, and every SASS row's line and every
 * source line's sum of inst_executed are what NVIDIA's ncu_report answers (source_info in the probe
 * files, expected/<name>.ncu_report.probe.txt) make of the metric's instances. A report whose cubin has
 * no line table has no per-instruction metrics. */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report-source-view.h"
#include "report-test-util.h"
#include "report.h"
#include "test-util.h"

/* address -> line of the first result, as NVIDIA's source_info answered. */
static GHashTable *probe_lines(const char *name, char **ret_file)
{
        g_autofree char *rel = g_strconcat("reports/expected/", name, ".ncu_report.probe.txt", NULL);
        g_autofree char *path = test_corpus_path(rel);
        g_autofree char *text = NULL;
        g_auto(GStrv) lines = NULL;
        GHashTable *h = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);

        g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
        lines = g_strsplit(text, "\n", -1);
        for (char **l = lines; *l; l++) {
                uint64_t address;
                int line, at = 0;
                char file[512];

                if (sscanf(*l, "0/0 source_info 0x%" SCNx64 " ('%511[^']', %d)%n", &address, file, &line, &at) != 3 ||
                                at == 0)
                        continue;
                if (!*ret_file)
                        *ret_file = g_strdup(file);
                g_assert_cmpstr(*ret_file, ==, file);
                g_hash_table_insert(h, g_memdup2(&address, sizeof(address)), GINT_TO_POINTER(line));
        }
        g_assert_cmpuint(g_hash_table_size(h), >, 100);
        return h;
}

static size_t metric_index(json_object *doc, const char *name)
{
        json_object *metrics = json_get(doc, "metrics");

        for (size_t i = 0; i < json_object_array_length(metrics); i++)
                if (g_str_equal(json_object_get_string(json_get(json_object_array_get_idx(metrics, i), "name")), name))
                        return i;
        g_assert_not_reached();
}

static void test_embedded_source(const void *data)
{
        const char *name = data;
        g_autoptr(GHashTable) probe = NULL;
        g_autoptr(json_object) doc = NULL;
        g_autoptr(GHashTable) sums = g_hash_table_new(g_direct_hash, g_direct_equal);
        g_autofree char *file = NULL;
        g_auto(GStrv) content = NULL;
        NcuReport *r = report_corpus_load(name);
        const NcuAction *a = r->actions[0];
        json_object *files, *source, *sass;
        const NcuMetric *inst;
        size_t inst_index, n_lines = 0;

        probe = probe_lines(name, &file);
        g_assert_cmpint(ncu_action_source_view(r, a, &doc), ==, 0);
        g_test_message("metrics: %s", json_object_to_json_string(json_get(doc, "metrics")));

        /* The stored file, line by line. */
        files = json_get(doc, "files");
        g_assert_cmpuint(json_object_array_length(files), ==, 1);
        g_assert_cmpstr(json_object_get_string(json_get(json_object_array_get_idx(files, 0), "name")), ==, file);
        g_assert_nonnull(a->source);
        for (size_t i = 0; i < r->n_sources; i++)
                for (size_t j = 0; j < r->sources[i].n_files; j++)
                        if (g_str_equal(r->sources[i].files[j].file_name, file) && !content)
                                content = g_strsplit(r->sources[i].files[j].content, "\n", -1);
        g_assert_nonnull(content);
        n_lines = g_strv_length(content);
        if (n_lines > 0 && content[n_lines - 1][0] == 0)
                n_lines--;
        json_object *lines = json_get(json_object_array_get_idx(files, 0), "lines");
        g_autofree char *first = g_strchomp(g_strdup(content[0]));
        g_assert_cmpuint(json_object_array_length(lines), ==, n_lines);
        g_assert_cmpstr(json_object_get_string(json_object_array_get_idx(lines, 0)), ==, first);

        /* inst_executed, summed per line as NVIDIA's line answers place its instances. */
        inst_index = metric_index(doc, "inst_executed");
        inst = ncu_action_metric_by_name(a, "inst_executed");
        g_assert_nonnull(inst);
        for (size_t i = 0; i < inst->n_instances; i++) {
                uint64_t address, value;
                gpointer line;

                g_assert_true(ncu_value_as_uint64(&inst->instances[i].correlation_id, &address));
                g_assert_true(ncu_value_as_uint64(&inst->instances[i].value, &value));
                g_assert_true(g_hash_table_lookup_extended(probe, &address, NULL, &line));
                g_hash_table_insert(sums, line,
                                GSIZE_TO_POINTER(GPOINTER_TO_SIZE(g_hash_table_lookup(sums, line)) + value));
        }
        source = json_get(doc, "source");
        g_assert_cmpuint(json_object_array_length(source), ==, g_hash_table_size(sums));
        for (size_t i = 0; i < json_object_array_length(source); i++) {
                json_object *row = json_object_array_get_idx(source, i);
                gpointer line = GINT_TO_POINTER(json_object_get_int(json_get(row, "line")));

                g_assert_cmpint(json_object_get_int(json_get(row, "file")), ==, 0);
                g_assert_true(g_hash_table_contains(sums, line));
                g_assert_cmpint(json_object_get_int64(json_object_array_get_idx(json_get(row, "values"), inst_index)),
                                ==, (int64_t) GPOINTER_TO_SIZE(g_hash_table_lookup(sums, line)));
        }

        /* Every instruction on NVIDIA's line for it. */
        sass = json_get(doc, "sass");
        g_assert_cmpuint(json_object_array_length(sass), >=, inst->n_instances);
        for (size_t i = 0; i < json_object_array_length(sass); i++) {
                json_object *row = json_object_array_get_idx(sass, i);
                uint64_t address = json_object_get_uint64(json_get(row, "address"));
                gpointer line;

                g_assert_true(g_hash_table_lookup_extended(probe, &address, NULL, &line));
                g_assert_cmpint(json_object_get_int(json_get(row, "line")), ==, GPOINTER_TO_INT(line));
                g_assert_cmpint(json_object_get_int(json_get(row, "file")), ==, 0);
        }
        ncu_report_free(r);
}

static void test_no_line_table(void)
{
        g_autoptr(json_object) doc = NULL;
        NcuReport *r = report_corpus_load(REPORT_ARMLETH);

        g_assert_cmpint(ncu_action_source_view(r, r->actions[0], &doc), ==, 0);
        g_assert_cmpuint(json_object_array_length(json_get(doc, "metrics")), ==, 0);
        g_assert_cmpuint(json_object_array_length(json_get(doc, "sass")), ==, 0);
        g_assert_cmpuint(json_object_array_length(json_get(doc, "source")), ==, 0);
        ncu_report_free(r);
}

/* Every action of every corpus report: rows of as many values as metrics, files and lines that exist. */
static void test_well_formed(const void *data)
{
        NcuReport *r = report_corpus_load(data);

        for (size_t i = 0; i < r->n_actions; i++) {
                g_autoptr(json_object) doc = NULL;
                size_t n_metrics, n_files;
                const char *kinds[] = { "source", "sass" };

                g_assert_cmpint(ncu_action_source_view(r, r->actions[i], &doc), ==, 0);
                n_metrics = json_object_array_length(json_get(doc, "metrics"));
                n_files = json_object_array_length(json_get(doc, "files"));
                for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++) {
                        json_object *rows = json_get(doc, kinds[k]);

                        for (size_t j = 0; j < json_object_array_length(rows); j++) {
                                json_object *row = json_object_array_get_idx(rows, j);
                                int file = json_object_get_int(json_get(row, "file"));

                                g_assert_cmpuint(json_object_array_length(json_get(row, "values")), ==, n_metrics);
                                g_assert_cmpint(file, >=, -1);
                                g_assert_cmpint(file, <, (int) n_files);
                                g_assert_cmpint(json_object_get_int64(json_get(row, "line")) > 0, ==, file >= 0);
                        }
                }
        }
        ncu_report_free(r);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();
        g_test_add_data_func("/report-source-view/sobel", REPORT_SOBEL, test_embedded_source);
        g_test_add_data_func("/report-source-view/add3", REPORT_ADD3, test_embedded_source);
        g_test_add_func("/report-source-view/no-line-table", test_no_line_table);
        for (size_t i = 0; i < REPORT_CORPUS_N; i++) {
                g_autofree char *t = g_strconcat("/report-source-view/well-formed/", report_corpus_names[i], NULL);
                g_test_add_data_func(t, report_corpus_names[i], test_well_formed);
        }
        return g_test_run();
}
