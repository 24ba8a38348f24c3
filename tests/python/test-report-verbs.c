/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "report rules" and "report diff" of nvprofilectl: their options; for rules, the runner it starts as a child
 * process of the caller (nvprofiled.rules in an isolated python3, from the build tree through
 * NVPROFILED_PYTHON_DIR), with its output and exit status passed through; for diff, the C comparison in this
 * process (the daemon's path is tests/integration/test-report-bus.c): its text as the Python of before
 * printed it, escaping, and the regression gate --fail-above with its JSON and JUnit outputs. */

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "json-schema-check.h"
#include "strv.h"
#include "test-util.h"
#include "verb-report-diff.h"
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
        assert_json_valid(out);
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

#define SOBEL "reports/nvidia_example_sobelFloat_ncu2023.3.0.ncu-rep"
#define ADD3 "reports/nvidia_example_addConstDouble3_ncu2023.3.0.ncu-rep"
#define EXTRAP "reports/extrap_ex-gpu.s10_ncu2020.3.1.ncu-rep"
#define ARMLETH "reports/armleth_report_ncu2024.2.1.ncu-rep"

static void test_diff(void)
{
        g_autofree char *sobel = test_corpus_path(SOBEL), *add3 = test_corpus_path(ADD3);
        g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL, *out3 = NULL, *err3 = NULL;
        g_autofree char *out4 = NULL, *err4 = NULL, *out5 = NULL, *err5 = NULL;

        /* Without --local: no daemon serves reports here, so this process compares. */
        g_assert_cmpint(run_verb(verb_report_diff, &out, &err, "--action", "0:0", "diff", sobel, add3, NULL), ==, 0);
        g_assert_nonnull(strstr(out, "Sobel (action 0) -> addConstDouble3 (action 0)\n"));
        g_assert_nonnull(strstr(out, "  Launch Statistics [LaunchStats]\n"));
        g_assert_nonnull(strstr(out, "    launch__registers_per_thread register_per_thread: 22 -> 16 (-6, -27.27%)\n"));

        g_assert_cmpint(run_verb(verb_report_diff, &out2, &err2, "--json=short", "diff", sobel, sobel, NULL), ==, 0);
        /* --json=short: one line */
        g_assert_true(g_str_has_suffix(out2, "}\n"));
        g_assert_true(strchr(out2, '\n') == out2 + strlen(out2) - 1);
        assert_json_valid(out2);
        json_object *doc = json_tokener_parse(out2);
        g_assert_nonnull(doc);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(doc, "baseline")), ==, sobel);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(doc, "report")), ==, sobel);
        g_assert_cmpuint(json_object_array_length(json_object_object_get(doc, "pairs")), ==, 1);
        json_object_put(doc);

        g_assert_cmpint(run_verb(verb_report_diff, &out3, &err3, "diff", sobel, NULL), ==, EXIT_USAGE);
        /* An --action that pairs nothing: a usage error that says which. */
        g_assert_cmpint(run_verb(verb_report_diff, &out4, &err4, "--local", "--action", "9:0", "diff", sobel, add3,
                                        NULL),
                        ==, EXIT_USAGE);
        g_assert_cmpstr(err4, ==, "nvprofilectl: --action 9:0: the reports have 1 and 1 actions\n");
        /* A bare index N is N:N: the same pair, and out of range said the same way. */
        {
                g_autofree char *out6 = NULL, *err6 = NULL, *out7 = NULL, *err7 = NULL;

                g_assert_cmpint(run_verb(verb_report_diff, &out6, &err6, "--local", "--action", "0", "diff", sobel,
                                                add3, NULL),
                                ==, 0);
                g_assert_cmpstr(out6, ==, out);
                g_assert_cmpint(run_verb(verb_report_diff, &out7, &err7, "--local", "--action", "1", "diff", sobel,
                                                add3, NULL),
                                ==, EXIT_USAGE);
                g_assert_cmpstr(err7, ==, "nvprofilectl: --action 1: the reports have 1 and 1 actions\n");
        }
        g_assert_cmpint(run_verb(verb_report_diff, &out5, &err5, "--local", "diff", sobel, "/nonexistent", NULL), ==,
                        -ENOENT);
        g_assert_cmpstr(err5, ==, "nvprofilectl: /nonexistent: No such file or directory\n");
}

/* report diff --local with the command line's options (and --action for each spec): its text. */
static char *diff_text(const char *baseline_rel, const char *current_rel, const char *const *specs)
{
        g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);
        g_autofree char *out = NULL, *err = NULL;

        client_options_done(&arg);
        arg.local = true;
        for (const char *const *s = specs; s && *s; s++)
                g_assert_cmpint(strv_extend(&arg.actions, *s), >=, 0);
        g_ptr_array_add(args, g_strdup("diff"));
        g_ptr_array_add(args, test_corpus_path(baseline_rel));
        g_ptr_array_add(args, test_corpus_path(current_rel));
        {
                TestCapture capture;
                int r;

                test_capture_begin(&capture);
                r = verb_report_diff((int) args->len, (char **) args->pdata);
                test_capture_end(&capture, &out, &err);
                g_assert_cmpstr(err, ==, "");
                g_assert_cmpint(r, ==, 0);
        }
        client_options_done(&arg);
        return g_steal_pointer(&out);
}

/* Says where two texts first differ (line and both lines) rather than printing them whole. */
static void assert_same_text(const char *what, const char *got, const char *expected)
{
        size_t line = 1, start = 0;

        if (streq(got, expected))
                return;
        for (size_t i = 0; got[i] == expected[i]; i++)
                if (got[i] == '\n') {
                        line++;
                        start = i + 1;
                }
        g_error("%s: differs at line %zu:\n  got      %.*s\n  expected %.*s", what, line,
                        (int) strcspn(got + start, "\n"), got + start, (int) strcspn(expected + start, "\n"),
                        expected + start);
}

static void assert_sha256(const char *what, const char *text, const char *expected)
{
        g_autofree char *got = g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1);

        if (!streq(got, expected))
                g_error("%s: the text differs from what nvprofiled.diff printed (sha256 %s, %zu bytes)", what, got,
                                strlen(text));
}

/* The text is what the Python implementation (nvprofiled.diff's print_pairs, before the comparison was one, in C)
 * printed for the same pairs: the whole of one, kept in report-diff-expected/ (the Python's text with its one
 * difference applied: a backslash from the report is escaped as "\\", as terminal-escape.c does with every
 * string), and the SHA-256 of three others the Python printed (none has a backslash), with lines of each. */
static void test_diff_text_unchanged(void)
{
        const char *fixtures = g_getenv("NVPROFILED_TEST_DIFF_EXPECTED");
        g_autofree char *fixture = NULL, *expected = NULL;
        g_autofree char *extrap = diff_text(EXTRAP, EXTRAP, (const char *[]){ "0:1", "vector_add", NULL });
        g_autofree char *sobel_add3 = diff_text(SOBEL, ADD3, (const char *[]){ "0:0", NULL });
        g_autofree char *syswea = diff_text(
                        "reports/syswea_profile_report_ncu2025.1.1.ncu-rep", ARMLETH, (const char *[]){ "2:0", NULL });
        g_autofree char *wfc = diff_text("reports/RottenFishbone_rs-wfc_profile_ncu2022.3.0.ncu-rep",
                        "reports/RottenFishbone_rs-wfc_profile_ncu2022.3.0.ncu-rep", NULL);
        g_autofree char *none = diff_text(SOBEL, ADD3, NULL);
        g_autoptr(GError) error = NULL;

        g_assert_nonnull(fixtures);
        fixture = g_build_filename(fixtures, "extrap-0-1-vector_add.txt", NULL);
        g_assert_true(g_file_get_contents(fixture, &expected, NULL, &error));
        g_assert_no_error(error);
        assert_same_text(fixture, extrap, expected);
        g_assert_true(g_str_has_prefix(extrap,
                        "init_array (action 0) -> init_array (action 1)\n"
                        "  Command line profiler metrics [section0]\n"
                        "    regex:sm__inst_executed\\\\.(sum|min|max|avg|pct|ratio)$ %: "));
        g_assert_nonnull(strstr(extrap, "    gpu__time_duration.sum second: 4064 -> 4224 (+160, +3.94%)\n"));
        g_assert_nonnull(strstr(extrap, "\nvector_add (action 2) -> vector_add (action 2)\n"));

        assert_sha256("sobelFloat -> addConstDouble3 0:0", sobel_add3,
                        "a56b393d53524b60559372440eb1f279a647342435380c31a24af23f364da60c");
        g_assert_true(g_str_has_prefix(sobel_add3,
                        "Sobel (action 0) -> addConstDouble3 (action 0)\n"
                        "  Compute Workload Analysis [ComputeWorkloadAnalysis]\n"
                        "    sm__inst_executed_pipe_fp64_op_fp64.avg.pct_of_peak_sustained_active %: 0 -> 31.5677 "
                        "(+31.5677)\n"));
        g_assert_nonnull(strstr(sobel_add3,
                        "    inst_executed inst: 5195632 -> 655360 (-4.54027e+06, -87.39%)\n"
                        "    sass__inst_executed_per_opcode: 5.19563e+06 -> 655360 (-4.54027e+06, -87.39%)\n"));
        assert_sha256("syswea 2 -> armleth 0", syswea,
                        "64cdd226a581d36aae9f24daea055669a6a8c61db259c26fc0ffb7af58c52e6b");
        g_assert_true(g_str_has_prefix(syswea, "wmma_gemm (action 2) -> matrix_addition2D (action 0)\n"));
        assert_sha256("rs-wfc by name", wfc, "72e29e2dd2447294e3fd43602834d613a603d250c6fb34c30cc07cc630236edc");
        /* Paired by name and launch index: the second launch of iterate_ac with the second. */
        g_assert_nonnull(strstr(wfc, "\niterate_ac (action 1) -> iterate_ac (action 1)\n"));
        g_assert_nonnull(strstr(wfc, "\nreduce_bounds (action 4) -> reduce_bounds (action 4)\n"));
        g_assert_cmpstr(none, ==, "No actions paired (no kernel name in both reports; see --action).\n");
}

/* xmllint's verdict on a file: well-formed XML. */
static void assert_well_formed(const char *path)
{
        const char *argv[] = { "xmllint", "--noout", path, NULL };
        g_autofree char *out = NULL, *err = NULL;
        g_autoptr(GError) error = NULL;
        int status;

        g_assert_true(g_spawn_sync(
                        NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, &error));
        g_assert_no_error(error);
        if (!g_spawn_check_wait_status(status, NULL))
                g_error("xmllint %s: %s", path, err);
}

/* A copy of the armleth report in dir whose kernel's name is name (as long as "matrix_addition2D"). */
static char *report_with_kernel(const char *dir, const char *name)
{
        static const char kernel[] = "matrix_addition2D";
        g_autofree char *source = test_corpus_path(ARMLETH), *data = NULL;
        g_autoptr(GError) error = NULL;
        size_t n = strlen(kernel), replaced = 0;
        gsize len;

        g_assert_cmpuint(strlen(name), ==, n);
        g_assert_true(g_file_get_contents(source, &data, &len, &error));
        for (char *p = memmem(data, len, kernel, n); p; p = memmem(p + n, len - (size_t) (p + n - data), kernel, n)) {
                memcpy(p, name, n);
                replaced++;
        }
        g_assert_cmpuint(replaced, >, 0);
        /* Its file name too: paths are shown and written to the JUnit file. */
        test_write_file_n(dir, "hostile\x1b[2J.ncu-rep", data, len);
        return g_build_filename(dir, "hostile\x1b[2J.ncu-rep", NULL);
}

/* A window title (OSC 0), a right-to-left override, a C1 CSI, XML's markup and a backslash. */
#define HOSTILE_KERNEL "\x1b]0;X\x07\xe2\x80\xae\xc2\x9b<b>\\&'"
#define HOSTILE_ESCAPED "\\x1b]0;X\\a\\xe2\\x80\\xae\\xc2\\x9b<b>\\\\&'"

/* Every string from a report reaches the terminal escaped, and the JUnit file as well-formed XML; JSON keeps it
 * exact. */
static void test_diff_escapes(void)
{
        g_autofree char *dir = test_mkdtemp(), *hostile = report_with_kernel(dir, HOSTILE_KERNEL);
        g_autofree char *junit = g_build_filename(dir, "junit.xml", NULL), *xml = NULL;
        g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL, *out3 = NULL, *err3 = NULL;
        g_autoptr(GError) error = NULL;
        json_object *doc;

        g_assert_cmpint(run_verb(verb_report_diff, &out, &err, "--local", "diff", hostile, hostile, NULL), ==, 0);
        g_assert_true(g_str_has_prefix(out, HOSTILE_ESCAPED " (action 0) -> " HOSTILE_ESCAPED " (action 0)\n"));
        g_assert_null(strchr(out, '\x1b'));

        g_assert_cmpint(run_verb(verb_report_diff, &out2, &err2, "--local", "--json=short", "diff", hostile, hostile,
                                        NULL),
                        ==, 0);
        doc = json_tokener_parse(out2);
        g_assert_nonnull(doc);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(
                                        json_object_object_get(json_object_array_get_idx(
                                                                               json_object_object_get(doc, "pairs"), 0),
                                                        "current"),
                                        "kernel")),
                        ==, HOSTILE_KERNEL);
        json_object_put(doc);

        g_assert_cmpint(run_verb(verb_report_diff, &out3, &err3, "--local", "--fail-above=0", "--junit", junit, "diff",
                                        hostile, hostile, NULL),
                        ==, 0);
        g_assert_true(g_str_has_prefix(out3, "PASS  " HOSTILE_ESCAPED " (action 0) -> "));
        g_assert_null(strchr(out3, '\x1b'));
        g_assert_true(g_file_get_contents(junit, &xml, NULL, &error));
        g_assert_no_error(error);
        g_assert_nonnull(strstr(
                        xml, "classname=\"\\x1b]0;X\\a\\xe2\\x80\\xae\\xc2\\x9b&lt;b&gt;\\\\&amp;&apos; (action 0)"));
        g_assert_null(strchr(xml, '\x1b'));
}

static json_object *check_at(json_object *doc, size_t i)
{
        json_object *c = json_object_array_get_idx(json_object_object_get(doc, "checks"), i);

        g_assert_nonnull(c);
        return c;
}

static const char *member_string(json_object *o, const char *key)
{
        return json_object_get_string(json_object_object_get(o, key));
}

/* --fail-above over a known change: extrap's init_array, action 0 against 1 (the same kernel launched
 * twice), takes 4064 then 4224: +160, +3.937%. Checked at thresholds below and above, both ways round, with
 * :decrease, with a metric the report lacks, and with nothing paired. */
static void test_diff_fail_above(void)
{
        g_autofree char *extrap = test_corpus_path(EXTRAP), *sobel = test_corpus_path(SOBEL);
        g_autofree char *add3 = test_corpus_path(ADD3);
        g_autofree char *out1 = NULL, *err1 = NULL, *out2 = NULL, *err2 = NULL, *out3 = NULL, *err3 = NULL;
        g_autofree char *out4 = NULL, *err4 = NULL, *out5 = NULL, *err5 = NULL, *out6 = NULL, *err6 = NULL;
        g_autofree char *out7 = NULL, *err7 = NULL;
        json_object *doc, *c;

        g_assert_cmpint(run_verb(verb_report_diff, &out1, &err1, "--local", "--action", "0:1", "--fail-above=4", "diff",
                                        extrap, extrap, NULL),
                        ==, 0);
        g_assert_cmpstr(out1, ==,
                        "PASS  init_array (action 0) -> init_array (action 1): gpu__time_duration.sum second: 4064 -> "
                        "4224 (+160, +3.94%)\n"
                        "1 check, 0 failed, 0 could not be made (failing above 4%): pass.\n");
        g_assert_cmpstr(err1, ==, "");

        g_assert_cmpint(run_verb(verb_report_diff, &out2, &err2, "--local", "--action", "0:1", "--fail-above=3.9%",
                                        "--no-legend", "diff", extrap, extrap, NULL),
                        ==, 1);
        g_assert_cmpstr(out2, ==,
                        "FAIL  init_array (action 0) -> init_array (action 1): gpu__time_duration.sum second: 4064 -> "
                        "4224 (+160, +3.94%)\n");

        /* The other way round it got faster: no regression at 0, unless a decrease is what counts. Two pairs,
         * two metrics, a check each, in that order. */
        g_assert_cmpint(run_verb(verb_report_diff, &out3, &err3, "--local", "--action", "1:0", "--action", "vector_add",
                                        "--fail-above=0", "--metric=gpu__time_duration.sum",
                                        "--metric=gpu__time_duration.sum:decrease", "--json=short", "diff", extrap,
                                        extrap, NULL),
                        ==, 1);
        assert_json_valid(out3);
        doc = json_tokener_parse(out3);
        g_assert_nonnull(doc);
        g_assert_cmpfloat(json_object_get_double(json_object_object_get(doc, "fail_above_percent")), ==, 0.0);
        g_assert_cmpint(json_object_get_int(json_object_object_get(doc, "pairs")), ==, 2);
        g_assert_cmpuint(json_object_array_length(json_object_object_get(doc, "checks")), ==, 4);
        c = check_at(doc, 0);
        g_assert_cmpstr(member_string(c, "metric"), ==, "gpu__time_duration.sum");
        g_assert_cmpstr(member_string(c, "regression"), ==, "increase");
        g_assert_cmpint(json_object_get_int(json_object_object_get(json_object_object_get(c, "baseline"), "action")),
                        ==, 1);
        g_assert_cmpint(json_object_get_int(json_object_object_get(json_object_object_get(c, "current"), "action")), ==,
                        0);
        g_assert_cmpfloat(json_object_get_double(json_object_object_get(c, "baseline_value")), ==, 4224.0);
        g_assert_cmpfloat(json_object_get_double(json_object_object_get(c, "current_value")), ==, 4064.0);
        g_assert_cmpfloat(json_object_get_double(json_object_object_get(c, "change")), ==, -160.0);
        g_assert_cmpfloat(json_object_get_double(json_object_object_get(c, "relative_change")), ==, -160.0 / 4224.0);
        g_assert_cmpstr(member_string(c, "verdict"), ==, "pass");
        c = check_at(doc, 1);
        g_assert_cmpstr(member_string(c, "regression"), ==, "decrease");
        g_assert_cmpstr(member_string(c, "verdict"), ==, "fail");
        /* vector_add against itself: no change either way. */
        g_assert_cmpstr(member_string(check_at(doc, 2), "verdict"), ==, "pass");
        g_assert_cmpstr(member_string(check_at(doc, 3), "verdict"), ==, "pass");
        g_assert_cmpfloat(json_object_get_double(json_object_object_get(check_at(doc, 3), "change")), ==, 0.0);
        g_assert_cmpint(json_object_get_int(json_object_object_get(doc, "failed")), ==, 1);
        g_assert_cmpint(json_object_get_int(json_object_object_get(doc, "missing")), ==, 0);
        g_assert_cmpstr(member_string(doc, "verdict"), ==, "fail");
        json_object_put(doc);

        /* A throughput: addConstDouble3 -> sobelFloat, sm__throughput 30.218 -> 77.6651 (+157.02%) passes as a
         * :decrease at any threshold and fails as an increase below 157%; a metric neither has fails. */
        g_assert_cmpint(run_verb(verb_report_diff, &out4, &err4, "--local", "--action", "0:0", "--fail-above=157.1",
                                        "--metric=sm__throughput.avg.pct_of_peak_sustained_elapsed",
                                        "--metric=sm__throughput.avg.pct_of_peak_sustained_elapsed:decrease", "diff",
                                        add3, sobel, NULL),
                        ==, 0);
        g_assert_nonnull(strstr(out4, "2 checks, 0 failed, 0 could not be made (failing above 157.1%): pass.\n"));
        g_assert_cmpint(run_verb(verb_report_diff, &out5, &err5, "--local", "--action", "0:0", "--fail-above=157",
                                        "--metric=sm__throughput.avg.pct_of_peak_sustained_elapsed",
                                        "--metric=no__such_metric", "diff", add3, sobel, NULL),
                        ==, 1);
        g_assert_cmpstr(out5, ==,
                        "FAIL  addConstDouble3 (action 0) -> Sobel (action 0): "
                        "sm__throughput.avg.pct_of_peak_sustained_elapsed %: 30.218 -> 77.6651 (+47.4471, +157.02%)\n"
                        "ERROR addConstDouble3 (action 0) -> Sobel (action 0): no__such_metric: not in both actions as "
                        "a number\n"
                        "2 checks, 1 failed, 1 could not be made (failing above 157%): fail.\n");

        /* Nothing paired: nothing checked, which does not pass. */
        g_assert_cmpint(run_verb(verb_report_diff, &out6, &err6, "--local", "--fail-above=50", "diff", sobel, add3,
                                        NULL),
                        ==, 1);
        g_assert_cmpstr(out6, ==,
                        "FAIL  No actions paired (no kernel name in both reports; see --action).\n"
                        "0 checks, 0 failed, 0 could not be made (failing above 50%): fail.\n");
        g_assert_cmpint(run_verb(verb_report_diff, &out7, &err7, "--local", "--fail-above=50", "--json=short", "diff",
                                        sobel, add3, NULL),
                        ==, 1);
        assert_json_valid(out7);
        doc = json_tokener_parse(out7);
        g_assert_nonnull(doc);
        g_assert_cmpint(json_object_get_int(json_object_object_get(doc, "pairs")), ==, 0);
        g_assert_cmpstr(member_string(doc, "verdict"), ==, "fail");
        json_object_put(doc);
}

/* --junit=FILE: well-formed JUnit, a testcase per pair and metric, <failure> for a regression and <error> for a
 * check that could not be made; FILE replaced whole, created with its final mode, nothing else left beside it. */
static void test_diff_junit(void)
{
        g_autofree char *extrap = test_corpus_path(EXTRAP), *sobel = test_corpus_path(SOBEL);
        g_autofree char *add3 = test_corpus_path(ADD3), *dir = test_mkdtemp();
        g_autofree char *junit = g_build_filename(dir, "diff.xml", NULL), *xml = NULL, *xml2 = NULL;
        g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;
        g_autoptr(GError) error = NULL;
        g_autoptr(GDir) d = NULL;
        struct stat st;
        mode_t saved;

        test_write_file(dir, "diff.xml", "an older file\n");
        saved = umask(027);
        g_assert_cmpint(run_verb(verb_report_diff, &out, &err, "--local", "--action", "0:1", "--action", "0:0",
                                        "--fail-above=3", "--metric=gpu__time_duration.sum", "--metric=no__such_metric",
                                        "--junit", junit, "diff", extrap, extrap, NULL),
                        ==, 1);
        umask(saved);
        assert_well_formed(junit);
        g_assert_true(g_file_get_contents(junit, &xml, NULL, &error));
        g_assert_no_error(error);
        g_assert_true(g_str_has_prefix(xml,
                        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                        "<testsuite name=\"nvprofilectl report diff\" tests=\"4\" failures=\"1\" errors=\"2\">\n"));
        g_assert_nonnull(strstr(xml,
                        "  <testcase classname=\"init_array (action 0) -&gt; init_array (action 1)\" "
                        "name=\"gpu__time_duration.sum\">\n"
                        "    <failure type=\"regression\" message=\"increased by more than 3%: gpu__time_duration.sum "
                        "second: 4064 -&gt; 4224 (+160, +3.94%)\"/>\n"
                        "  </testcase>\n"));
        g_assert_nonnull(strstr(xml,
                        "  <testcase classname=\"init_array (action 0) -&gt; init_array (action 0)\" "
                        "name=\"gpu__time_duration.sum\"/>\n"));
        g_assert_nonnull(strstr(xml,
                        "    <error type=\"missing\" message=\"no__such_metric: not in both actions as a number\"/>\n"));
        g_assert_true(g_str_has_suffix(xml, "</testsuite>\n"));
        g_assert_cmpint(stat(junit, &st), ==, 0);
        g_assert_cmpuint(st.st_mode & 07777, ==, 0640);
        d = g_dir_open(dir, 0, &error);
        g_assert_no_error(error);
        g_assert_cmpstr(g_dir_read_name(d), ==, "diff.xml");
        g_assert_null(g_dir_read_name(d));

        /* Nothing paired: an error of its own. */
        g_assert_cmpint(run_verb(verb_report_diff, &out2, &err2, "--local", "--fail-above=3", "--junit", junit, "diff",
                                        sobel, add3, NULL),
                        ==, 1);
        assert_well_formed(junit);
        g_assert_true(g_file_get_contents(junit, &xml2, NULL, &error));
        g_assert_nonnull(strstr(xml2, "tests=\"1\" failures=\"0\" errors=\"1\""));
        g_assert_nonnull(strstr(xml2, "<error type=\"unpaired\""));
}

static void test_diff_fail_above_usage(void)
{
        static const char *const bad[][3] = {
                { "--fail-above=abc", NULL },
                { "--fail-above=-1", NULL },
                { "--fail-above=5x", NULL },
                { "--fail-above=.5", NULL },
                { "--fail-above=1e400", NULL },
                { "--fail-above=5", "--metric=x:sideways" },
                { "--fail-above=5", "--metric=:decrease" },
                { "--metric=gpu__time_duration.sum", NULL },
                { "--junit=x.xml", NULL },
        };
        g_autofree char *extrap = test_corpus_path(EXTRAP);

        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                g_autofree char *out = NULL, *err = NULL;

                if (bad[i][1])
                        g_assert_cmpint(run_verb(verb_report_diff, &out, &err, "--local", bad[i][0], bad[i][1], "diff",
                                                        extrap, extrap, NULL),
                                        ==, EXIT_USAGE);
                else
                        g_assert_cmpint(run_verb(verb_report_diff, &out, &err, "--local", bad[i][0], "diff", extrap,
                                                        extrap, NULL),
                                        ==, EXIT_USAGE);
                g_assert_cmpstr(out, ==, "");
                g_assert_true(g_str_has_prefix(err, "nvprofilectl: "));
        }
        /* Options of report diff only. */
        {
                g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;

                g_assert_cmpint(run_verb(dispatch_verb, &out, &err, "report", "summary", "--fail-above=5", extrap,
                                                NULL),
                                ==, EXIT_USAGE);
                g_assert_nonnull(strstr(err, "an option of report diff"));
                g_assert_cmpint(run_verb(dispatch_verb, &out2, &err2, "status", "--junit=x.xml", NULL), ==, EXIT_USAGE);
                g_assert_nonnull(strstr(err2, "an option of report diff"));
        }
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
        g_test_add_func("/report-verbs/diff/text-unchanged", test_diff_text_unchanged);
        g_test_add_func("/report-verbs/diff/escapes", test_diff_escapes);
        g_test_add_func("/report-verbs/diff/fail-above", test_diff_fail_above);
        g_test_add_func("/report-verbs/diff/junit", test_diff_junit);
        g_test_add_func("/report-verbs/diff/fail-above-usage", test_diff_fail_above_usage);
        g_test_add_func("/report-verbs/dispatch", test_dispatch);
        return g_test_run();
}
