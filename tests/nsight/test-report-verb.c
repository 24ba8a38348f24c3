/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofilectl report, the built binary: summary and json of every corpus report by name, the JSON
 * document read back against the model (lossless: every kind and value), errors with byte offsets,
 * usage errors, and terminal escaping of names that come from the file. */

#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report-builder.h"
#include "report-json.h"
#include "report-test-util.h"
#include "report.h"
#include "test-util.h"

/* Runs nvprofilectl with args; returns its exit status, stdout and stderr. */
static int run(const char *const *args, char **out, char **err)
{
        const char *bin = g_getenv("NVPROFILECTL_BIN");
        g_autoptr(GPtrArray) argv = g_ptr_array_new();
        g_autoptr(GError) error = NULL;
        int status;

        g_assert_nonnull(bin);
        g_ptr_array_add(argv, (char *) bin);
        for (const char *const *a = args; *a; a++)
                g_ptr_array_add(argv, (char *) *a);
        g_ptr_array_add(argv, NULL);
        if (!g_spawn_sync(NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status, &error))
                g_error("%s", error->message);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void assert_json_value(const NcuValue *v, json_object *j)
{
        char buf[NCU_DOUBLE_REPR_MAX];

        switch (v->kind) {
        case NCU_VALUE_DOUBLE:
        case NCU_VALUE_FLOAT: {
                double d = v->kind == NCU_VALUE_DOUBLE ? v->d : (double) v->f;
                if (!isfinite(d)) {
                        /* The schema's strings for what JSON has no number for (report-json.h). */
                        g_assert_true(json_object_is_type(j, json_type_string));
                        g_assert_cmpstr(json_object_get_string(j), ==, ncu_format_double_repr(d, buf));
                        return;
                }
                g_assert_true(json_object_is_type(j, json_type_double) || json_object_is_type(j, json_type_int));
                /* Bit-exact through the text. */
                g_assert_cmpfloat(json_object_get_double(j), ==, d);
                g_assert_cmpstr(json_object_to_json_string(j), ==, ncu_format_double_repr(d, buf));
                return;
        }
        case NCU_VALUE_UINT32:
                g_assert_cmpuint(json_object_get_uint64(j), ==, v->u32);
                return;
        case NCU_VALUE_UINT64:
                g_assert_true(json_object_is_type(j, json_type_int));
                g_assert_cmpuint(json_object_get_uint64(j), ==, v->u64);
                return;
        case NCU_VALUE_STRING:
                g_assert_cmpstr(json_object_get_string(j), ==, v->s);
                return;
        case NCU_VALUE_UNKNOWN:
                g_assert_null(j);
                return;
        case _NCU_VALUE_KIND_MAX:
                break;
        }
        g_assert_not_reached();
}

static void check_json_against_model(const char *name, const char *text)
{
        g_autofree char *path = report_corpus_path(name);
        g_autoptr(json_object) doc = json_tokener_parse(text);
        _cleanup_(ncu_report_freep) NcuReport *r = NULL;
        NcuReportError err;
        json_object *actions;
        int fd;

        g_assert_nonnull(doc);
        g_assert_cmpstr(json_object_get_string(json_get(doc, "schema")), ==, NCU_REPORT_JSON_SCHEMA);
        g_assert_cmpint(json_object_get_int(json_get(doc, "schema_version")), ==, 1);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        g_assert_cmpint(ncu_report_load_fd(fd, NULL, &r, &err), ==, 0);
        close(fd);
        g_assert_cmpint(json_object_get_int(json_get(json_get(doc, "report"), "format_version")), ==, 7);
        g_assert_cmpuint(json_object_get_uint64(json_get(json_get(doc, "report"), "size")), ==, r->size);

        actions = json_get(json_object_array_get_idx(json_get(doc, "ranges"), 0), "actions");
        g_assert_cmpuint(json_object_array_length(actions), ==, r->n_actions);
        for (size_t i = 0; i < r->n_actions; i++) {
                const NcuAction *a = r->actions[i];
                json_object *ja = json_object_array_get_idx(actions, i), *metrics = json_get(ja, "metrics");

                g_assert_cmpstr(json_object_get_string(json_get(ja, "name")), ==, a->function_name);
                g_assert_cmpstr(json_object_get_string(json_get(ja, "mangled")), ==, a->mangled_name);
                g_assert_cmpuint(json_object_array_length(json_get(ja, "rule_results")), ==, a->n_rule_results);
                g_assert_cmpuint(json_object_array_length(metrics), ==, a->n_metrics);
                for (size_t j = 0; j < a->n_metrics; j++) {
                        const NcuMetric *m = &a->metrics[j];
                        json_object *jm = json_object_array_get_idx(metrics, j), *inst = json_get(jm, "instances");

                        g_assert_cmpstr(json_object_get_string(json_get(jm, "name")), ==, m->name);
                        g_assert_cmpstr(json_object_get_string(json_get(jm, "kind")), ==,
                                        ncu_value_kind_to_string(m->kind));
                        g_assert_cmpint(json_object_get_boolean(json_get(jm, "has_value")), ==, m->has_value);
                        if (m->has_value)
                                assert_json_value(&m->value, json_get(jm, "value"));
                        g_assert_cmpuint(inst ? json_object_array_length(inst) : 0, ==, m->n_instances);
                        for (size_t k = 0; k < m->n_instances; k++) {
                                json_object *pair = json_object_array_get_idx(inst, k);
                                assert_json_value(&m->instances[k].correlation_id, json_object_array_get_idx(pair, 0));
                                assert_json_value(&m->instances[k].value, json_object_array_get_idx(pair, 1));
                                if (json_object_array_length(pair) == 4)
                                        g_assert_cmpstr(json_object_get_string(json_object_array_get_idx(pair, 3)), ==,
                                                        ncu_value_kind_to_string(m->instances[k].value.kind));
                                else
                                        g_assert_cmpstr(json_object_get_string(json_get(jm, "instance_kind")), ==,
                                                        ncu_value_kind_to_string(m->instances[k].value.kind));
                        }
                }
        }
}

static void test_corpus(void)
{
        for (size_t i = 0; i < REPORT_CORPUS_N; i++) {
                g_autofree char *path = report_corpus_path(report_corpus_names[i]);
                g_autofree char *out = NULL, *err = NULL, *jout = NULL, *jerr = NULL;
                const char *summary[] = { "report", "summary", path, "--no-legend", NULL };
                const char *json[] = { "report", "json", "--local", path, NULL };
                g_auto(GStrv) lines = NULL;

                g_assert_cmpint(run(summary, &out, &err), ==, 0);
                g_assert_cmpstr(err, ==, "");
                lines = g_strsplit(out, "\n", -1);
                /* One line per action, and a trailing empty string. */
                g_assert_cmpuint(g_strv_length(lines), ==, report_corpus_n_actions[i] + 1);
                g_assert_cmpint(run(json, &jout, &jerr), ==, 0);
                check_json_against_model(report_corpus_names[i], jout);
        }
}

static void test_summary_text(void)
{
        g_autofree char *path = report_corpus_path("nvidia_example_addConstDouble3_ncu2023.3.0");
        g_autofree char *out = NULL, *err = NULL;
        const char *args[] = { "report", "summary", path, NULL };

        g_assert_cmpint(run(args, &out, &err), ==, 0);
        g_assert_nonnull(strstr(out, "Nsight Compute 2023.3.0.0 (build 33266684)"));
        g_assert_nonnull(strstr(out, "addConstDouble3"));
        g_assert_nonnull(strstr(out, "grid (4096,1,1) block (256,1,1)"));
        g_assert_nonnull(strstr(out, "89.86 us")); /* NVIDIA's walkthrough: 89.86 microseconds */
        g_assert_nonnull(strstr(out, "Uncoalesced Global Accesses (est. 64.7%)"));
}

static void test_errors(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *bad = g_build_filename(dir, "bad.ncu-rep", NULL);
        g_autofree char *missing = g_build_filename(dir, "missing.ncu-rep", NULL);
        g_autofree char *good = report_corpus_path("armleth_report_ncu2024.2.1");
        g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL, *o3 = NULL, *e3 = NULL, *o4 = NULL, *e4 = NULL;
        g_autofree char *o5 = NULL, *e5 = NULL;

        test_write_file(dir, "bad.ncu-rep", "NVR\x01 not a report");
        g_assert_cmpint(run((const char *[]){ "report", "summary", bad, NULL }, &o1, &e1), ==, 1);
        g_assert_nonnull(strstr(e1, "byte 0: not an Nsight Compute report"));
        g_assert_cmpint(run((const char *[]){ "report", "json", missing, NULL }, &o2, &e2), ==, 1);
        g_assert_nonnull(strstr(e2, "No such file"));
        g_assert_cmpint(run((const char *[]){ "report", "frobnicate", good, NULL }, &o3, &e3), ==, 2);
        g_assert_cmpint(run((const char *[]){ "report", "summary", NULL }, &o4, &e4), ==, 2);
        g_assert_cmpint(run((const char *[]){ "status", "--local", NULL }, &o5, &e5), ==, 2);
        g_assert_nonnull(strstr(e5, "--local is an option of report"));
}

/* A kernel name with an escape sequence: escaped in the summary, exact in JSON. */
static void test_escaping(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *path = g_build_filename(dir, "evil.ncu-rep", NULL);
        NV__Profiler__Messages__ProfileResult p = NV__PROFILER__MESSAGES__PROFILE_RESULT__INIT;
        NV__Profiler__Messages__Uint64x3 u = NV__PROFILER__MESSAGES__UINT64X3__INIT;
        NV__Profiler__Messages__SourceData s = NV__PROFILER__MESSAGES__SOURCE_DATA__INIT;
        ReportBuffer b = { 0 };
        g_autofree char *out = NULL, *err = NULL, *jout = NULL, *jerr = NULL;
        g_autoptr(json_object) doc = NULL;

        p.kernelfunctionname = p.kerneldemangledname = p.kernelmangledname = (char *) "k\x1b[2Jx";
        p.globalworkoffset = p.gridsize = p.blocksize = &u;
        p.source = &s;
        report_build_start(&b, 7);
        report_build_block(&b, NULL, &(ReportEntry){ .kind = NCU_ENTRY_PROFILE_RESULT, .message = &p.base }, 1);
        test_write_file_n(dir, "evil.ncu-rep", (const char *) b.data, b.size);
        report_buffer_done(&b);

        g_assert_cmpint(run((const char *[]){ "report", "summary", path, NULL }, &out, &err), ==, 0);
        g_assert_null(strchr(out, '\x1b'));
        g_assert_nonnull(strstr(out, "k\\x1b[2Jx"));
        g_assert_cmpint(run((const char *[]){ "report", "json", path, NULL }, &jout, &jerr), ==, 0);
        doc = json_tokener_parse(jout);
        g_assert_cmpstr(json_object_get_string(json_get(
                                        json_object_array_get_idx(
                                                        json_get(json_object_array_get_idx(json_get(doc, "ranges"), 0),
                                                                        "actions"),
                                                        0),
                                        "name")),
                        ==, "k\x1b[2Jx");
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();
        g_test_add_func("/report-verb/corpus", test_corpus);
        g_test_add_func("/report-verb/summary-text", test_summary_text);
        g_test_add_func("/report-verb/errors", test_errors);
        g_test_add_func("/report-verb/escaping", test_escaping);
        return g_test_run();
}
