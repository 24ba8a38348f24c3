/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "report rules" and "report diff" of nvprofilectl: their options, and the runner they start as a child
 * process of the caller (nvprofiled.rules / nvprofiled.diff in an isolated python3, from the build tree
 * through NVPROFILED_PYTHON_DIR), with its output and exit status passed through. */

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <unistd.h>

#include "client.h"
#include "test-util.h"
#include "verb-report-python.h"

/* Parses the command line (options and verb arguments, as nvprofilectl would after "report"), runs the
 * verb function with stdout and stderr captured, returns its exit status. */
static int run_verb(int (*verb)(int argc, char *argv[]), char **ret_out, char **ret_err, const char *first, ...)
{
        g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);
        TestCapture capture;
        va_list ap;
        int r;

        g_ptr_array_add(args, g_strdup("nvprofilectl"));
        va_start(ap, first);
        for (const char *a = first; a; a = va_arg(ap, const char *))
                g_ptr_array_add(args, g_strdup(a));
        va_end(ap);
        g_ptr_array_add(args, NULL);

        client_options_done(&arg);
        g_autofree char **argv = g_memdup2(args->pdata, sizeof(char *) * args->len);
        r = parse_argv((int) args->len - 1, argv);
        g_assert_cmpint(r, ==, 1);

        test_capture_begin(&capture);
        r = verb((int) args->len - 1 - optind, argv + optind);
        test_capture_end(&capture, ret_out, ret_err);
        client_options_done(&arg);
        return r;
}

static void test_rules_json(void)
{
        g_autofree char *report = test_corpus_path("reports/armleth_report_ncu2024.2.1.ncu-rep");
        g_autofree char *rules = test_corpus_path("rules/ncu-2024.1.1");
        g_autofree char *out = NULL, *err = NULL;
        int r = run_verb(verb_report_rules, &out, &err, "--rules-dir", rules, "--rule", "CPIStall", "--json", "rules",
                        report, NULL);

        g_assert_cmpstr(err, ==, "");
        g_assert_cmpint(r, ==, 0);
        json_object *doc = json_tokener_parse(out);
        g_assert_nonnull(doc);
        json_object *actions = json_object_object_get(doc, "actions");
        g_assert_cmpuint(json_object_array_length(actions), ==, 1);
        json_object *results = json_object_object_get(json_object_array_get_idx(actions, 0), "results");
        g_assert_cmpuint(json_object_array_length(results), ==, 1);
        json_object *cpi = json_object_array_get_idx(results, 0);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(cpi, "rule")), ==, "CPIStall");
        json_object *msg = json_object_array_get_idx(json_object_object_get(cpi, "messages"), 0);
        json_object *speedup = json_object_object_get(msg, "speedup");
        g_assert_cmpfloat(json_object_get_double(json_object_object_get(speedup, "value")), ==, 11.607055023609657);
        json_object_put(doc);
}

static void test_rules_text_and_failures(void)
{
        g_autofree char *report = test_corpus_path("reports/armleth_report_ncu2024.2.1.ncu-rep");
        g_autofree char *rules = test_corpus_path("rules/ncu-2024.1.1");
        g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL, *out3 = NULL, *err3 = NULL;

        g_assert_cmpint(run_verb(verb_report_rules, &out, &err, "--rules-dir", rules, "rules", report, NULL), ==, 0);
        g_assert_nonnull(strstr(out, "matrix_addition2D (range 0, action 0)\n"));
        g_assert_nonnull(strstr(out,
                        "  MemoryL2Compression [MemoryWorkloadAnalysis_Chart]: Memory L2 Compression\n"
                        "    WRN\n"));
        g_assert_null(strstr(out, "@section:"));

        /* A missing report: nvprofilectl opens it, before any Python starts. */
        g_assert_cmpint(run_verb(verb_report_rules, &out2, &err2, "--rules-dir", rules, "rules", "/nonexistent.ncu-rep",
                                        NULL),
                        ==, -ENOENT);
        g_assert_cmpstr(err2, ==, "nvprofilectl: /nonexistent.ncu-rep: No such file or directory\n");

        /* A file named like an option is a file. */
        g_assert_cmpint(run_verb(verb_report_rules, &out3, &err3, "--rules-dir", rules, "rules", "--", "--help", NULL),
                        ==, -ENOENT);
        g_assert_nonnull(strstr(err3, "--help"));
}

static void test_rules_usage(void)
{
        g_autofree char *out = NULL, *err = NULL;

        g_assert_cmpint(run_verb(verb_report_rules, &out, &err, "rules", NULL), ==, EXIT_USAGE);
        g_assert_nonnull(strstr(err, "exactly one report file"));
        /* The report options belong to report verbs. */
        client_options_done(&arg);
        arg.all_sections = true;
        g_assert_cmpint(dispatch_verb(1, (char *[]){ (char *) "status", NULL }), ==, EXIT_USAGE);
        client_options_done(&arg);
}

/* A file that is not a report: the runner reads it from the descriptor it was given, and names the file. */
static void test_rules_not_a_report(void)
{
        g_autofree char *dir = test_mkdtemp(), *rules = test_corpus_path("rules/ncu-2024.1.1");
        g_autofree char *path = g_build_filename(dir, "not-a-report.ncu-rep", NULL);
        g_autofree char *out = NULL, *err = NULL;

        test_write_file(dir, "not-a-report.ncu-rep", "hello\n");
        g_assert_cmpint(run_verb(verb_report_rules, &out, &err, "--rules-dir", rules, "rules", path, NULL), ==, 1);
        g_assert_true(g_str_has_prefix(err, "error: "));
        g_assert_nonnull(strstr(err, path));
}

/* A relative NVPROFILED_PYTHON_DIR would be taken relative to the working directory: refused. */
static void test_relative_package_dir(void)
{
        g_autofree char *report = test_corpus_path("reports/armleth_report_ncu2024.2.1.ncu-rep");
        g_autofree char *out = NULL, *err = NULL, *saved = g_strdup(getenv("NVPROFILED_PYTHON_DIR"));

        g_assert_cmpint(setenv("NVPROFILED_PYTHON_DIR", "build/client/python", 1), ==, 0);
        g_assert_cmpint(run_verb(verb_report_rules, &out, &err, "rules", report, NULL), ==, -EINVAL);
        g_assert_nonnull(strstr(err, "NVPROFILED_PYTHON_DIR must be an absolute path"));
        if (saved)
                g_assert_cmpint(setenv("NVPROFILED_PYTHON_DIR", saved, 1), ==, 0);
        else
                g_assert_cmpint(unsetenv("NVPROFILED_PYTHON_DIR"), ==, 0);
}

static void test_missing_interpreter(void)
{
        g_autofree char *report = test_corpus_path("reports/armleth_report_ncu2024.2.1.ncu-rep");
        g_autofree char *out = NULL, *err = NULL, *saved = g_strdup(getenv("NVPROFILED_PYTHON"));

        g_assert_cmpint(setenv("NVPROFILED_PYTHON", "/nonexistent/python3", 1), ==, 0);
        g_assert_cmpint(run_verb(verb_report_rules, &out, &err, "rules", report, NULL), ==, EXIT_FAILURE);
        g_assert_nonnull(strstr(err, "/nonexistent/python3"));
        if (saved)
                g_assert_cmpint(setenv("NVPROFILED_PYTHON", saved, 1), ==, 0);
        else
                g_assert_cmpint(unsetenv("NVPROFILED_PYTHON"), ==, 0);
}

static void test_diff(void)
{
        g_autofree char *sobel = test_corpus_path("reports/nvidia_example_sobelFloat_ncu2023.3.0.ncu-rep");
        g_autofree char *add3 = test_corpus_path("reports/nvidia_example_addConstDouble3_ncu2023.3.0.ncu-rep");
        g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL, *out3 = NULL, *err3 = NULL;

        g_assert_cmpint(run_verb(verb_report_diff, &out, &err, "--action", "0:0", "diff", sobel, add3, NULL), ==, 0);
        g_assert_nonnull(strstr(out, "Sobel (action 0) -> addConstDouble3 (action 0)\n"));
        g_assert_nonnull(strstr(out, "  Launch Statistics [LaunchStats]\n"));

        g_assert_cmpint(run_verb(verb_report_diff, &out2, &err2, "--json=short", "diff", sobel, sobel, NULL), ==, 0);
        /* --json=short: one line */
        g_assert_true(g_str_has_suffix(out2, "}\n"));
        g_assert_true(strchr(out2, '\n') == out2 + strlen(out2) - 1);
        json_object *doc = json_tokener_parse(out2);
        g_assert_nonnull(doc);
        g_assert_cmpuint(json_object_array_length(json_object_object_get(doc, "pairs")), ==, 1);
        json_object_put(doc);

        g_assert_cmpint(run_verb(verb_report_diff, &out3, &err3, "diff", sobel, NULL), ==, EXIT_USAGE);
}

/* Through nvprofilectl's own dispatch: "report rules FILE", "report diff A B". */
static void test_dispatch(void)
{
        g_autofree char *report = test_corpus_path("reports/armleth_report_ncu2024.2.1.ncu-rep");
        g_autofree char *rules = test_corpus_path("rules/ncu-2024.1.1");
        g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL, *out3 = NULL, *err3 = NULL;

        g_assert_cmpint(run_verb(dispatch_verb, &out, &err, "report", "rules", "--rules-dir", rules, "--rule",
                                        "SOLBottleneck", report, NULL),
                        ==, 0);
        g_assert_nonnull(strstr(out, "  SOLBottleneck [SpeedOfLight]: Bottleneck\n    INF High Throughput:\n"));
        g_assert_cmpint(run_verb(dispatch_verb, &out2, &err2, "report", "diff", report, report, NULL), ==, 0);
        g_assert_nonnull(strstr(out2, "matrix_addition2D (action 0) -> matrix_addition2D (action 0)\n"));
        g_assert_cmpint(run_verb(dispatch_verb, &out3, &err3, "report", "summary", report, report, NULL), ==,
                        EXIT_USAGE);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();
        g_test_add_func("/report-verbs/rules/json", test_rules_json);
        g_test_add_func("/report-verbs/rules/text-and-failures", test_rules_text_and_failures);
        g_test_add_func("/report-verbs/rules/usage", test_rules_usage);
        g_test_add_func("/report-verbs/rules/not-a-report", test_rules_not_a_report);
        g_test_add_func("/report-verbs/rules/relative-package-dir", test_relative_package_dir);
        g_test_add_func("/report-verbs/rules/missing-interpreter", test_missing_interpreter);
        g_test_add_func("/report-verbs/diff", test_diff);
        g_test_add_func("/report-verbs/dispatch", test_dispatch);
        return g_test_run();
}
