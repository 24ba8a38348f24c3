/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ncu's pages of every corpus report (report-test-util.h names them) (daemon/nsight/pages/report-page.h) against what
 * ncu 2024.1.1 printed for them (reports/expected/<name>.<page>, the commands in ../shared/docs/README.md): byte for
 * byte, in process and through the built nvprofilectl. Where ncu itself failed (expected/ORACLE-FAILURES.tsv), what it
 * wrote before failing must begin our page, and every page is checked complete and in agreement with the model. The few
 * places where our page still differs are listed with why (known[]), and checked to differ there and only there. Also
 * the rules the pages rest on: unit scaling, wrapping, the options. */

#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report-builder.h"
#include "report-csv.h"
#include "report-page-encoding.h"
#include "report-page-text.h"
#include "report-page.h"
#include "report-test-util.h"
#include "report.h"
#include "section-file.h"
#include "string-util.h"
#include "test-util.h"

/* The reports the built nvprofilectl prints every page of too (the others in process only): the first
 * corpus, one with NVTX and call stacks, one from Windows on a GPU newer than ncu 2024.1.1, and one ncu cannot
 * print at all. */
static const char *const verb_reports[] = {
        "extrap_ex-gpu.s10_ncu2020.3.1",
        "armleth_report_ncu2024.2.1",
        "nvidia_example_sobelFloat_ncu2023.3.0",
        "NVIDIA_nsight-training_manual_nvtx_ncu2022.3.0",
        "2388612861_GPU-DEMO_occupancy_ncu2025.2.1",
        "evozone96_matrixMul_profile_ncu2019.x",
};

typedef struct PageKind {
        const char *suffix; /* of expected/<name>.<suffix> */
        NcuPageOptions options;
        const char *args[4]; /* nvprofilectl report … FILE --local, then these */
} PageKind;

static const PageKind kinds[] = {
        { "raw.csv", { .page = NCU_PAGE_RAW, .csv = true, .units = NCU_PRINT_UNITS_BASE },
                        { "raw", "--csv", "--print-units=base" } },
        { "raw-instances.csv",
                        { .page = NCU_PAGE_RAW,
                                        .csv = true,
                                        .units = NCU_PRINT_UNITS_BASE,
                                        .instances = NCU_PRINT_INSTANCES_VALUES },
                        { "raw", "--csv", "--print-units=base", "--print-metric-instances=values" } },
        { "details.csv",
                        { .page = NCU_PAGE_DETAILS,
                                        .csv = true,
                                        .units = NCU_PRINT_UNITS_BASE,
                                        .details = NCU_PRINT_DETAILS_ALL },
                        { "details", "--csv", "--print-units=base", "--print-details=all" } },
        { "raw-default.csv", { .page = NCU_PAGE_RAW, .csv = true }, { "raw", "--csv" } },
        { "details-default.csv", { .page = NCU_PAGE_DETAILS, .csv = true }, { "details", "--csv" } },
        { "details.txt", { .page = NCU_PAGE_DETAILS }, { "details" } },
        { "details-all.txt", { .page = NCU_PAGE_DETAILS, .details = NCU_PRINT_DETAILS_ALL },
                        { "details", "--print-details=all" } },
        { "raw.txt", { .page = NCU_PAGE_RAW }, { "raw" } },
        { "session.txt", { .page = NCU_PAGE_SESSION }, { "session" } },
        { "summary.txt", { .page = NCU_PAGE_DETAILS, .summary = NCU_PRINT_SUMMARY_PER_KERNEL },
                        { "details", "--print-summary=per-kernel" } },
};

/* Where our page differs from ncu's, and why: the lines holding one of the strings (with their block up to
 * the next empty line when block is set) are left out of both before comparing, and without leaving them out
 * the pages must differ. Each says why it stays: a choice of ncu's that nothing stored in the report tells apart
 * from the choice it makes elsewhere, or a behaviour of ncu's that we do not copy. */
typedef struct KnownDifference {
        const char *report, *suffix;
        const char *lines_with[4];
        bool block;
        const char *why;
} KnownDifference;

static const KnownDifference known[] = {
        { "NVIDIA_nsight-training_manual_nvtx_ncu2022.3.0", "details.csv", { "no_inst", "no_instructions" }, false,
                        "the details page's own guess of the unit of smsp__pcsamp_warps_issue_stalled_no_instructions is warp on "
                        "this report and inst on the 9 others that have it, for the same name, kind and section (eschnett's "
                        "ncu 2022.1.1 report on CC 8.6 too); here ncu took the name's warps over its other word" },
        { "NVIDIA_nsight-training_manual_nvtx_ncu2022.3.0", "details-all.txt", { "no_inst", "no_instructions" }, false,
                        "the same guess" },
        { "wtzhang23_gpu-ray-tracer_report_ncu2021.1.0", "details.csv", { "membar", "Sectors" }, false,
                        "the details page's own guesses from the words of a name: warp for the membar stall, which the 9 "
                        "other reports that show it (ncu 2020.2.1 to 2024.3.2, CC 7.5 to 8.9) print as byte for the same "
                        "name and kind, so ncu took the name's warps over its mem here too; and sector for this report's "
                        "memory_l1_sectors_* and memory_l2_sectors_* (only this ncu 2021.1 report has them), where the "
                        "other reports' derived__memory_l2_theoretical_sectors_global_excessive, of the same words, is byte" },
        { "wtzhang23_gpu-ray-tracer_report_ncu2021.1.0", "details-all.txt", { "membar", "Sectors" }, false,
                        "the same guesses" },
        { "HadiKhansaa_BBAStar_profile_output_ncu2024.3.2", "details.txt", { "L2 Compression Ratio" }, false,
                        "a NaN is flagged (!) but for 5 of the result's 44 NaN ratios, which nothing stored tells apart "
                        "(the same metric type, value kind and NaN bits as the flagged ones)" },
        { "HadiKhansaa_BBAStar_profile_output_ncu2024.3.2", "raw.txt",
                        { "gcomp_output_sector_compression", "per_sector_mem_" }, false, "the same flags" },
        { "panjd123_cutlass_report-s8-persist_ncu2024.1.1", "details-all.txt",
                        { "Table Name : NVLink Topology Details" }, true,
                        "ncu lays the NVLink topology table out with header wraps and column widths of its own (one table "
                        "in the corpus); we print the same cells in the page's usual table" },
        { "2388612861_GPU-DEMO_occupancy_ncu2025.2.1", "summary.txt", { "==WARNING==" }, false,
                        "ncu prints its unknown-GPU warning 47 times for the 45 results and then crashes (its page ends "
                        "there), so where the warnings of a whole page go is not seen; we warn once per group" },
};

static const KnownDifference *known_difference(const char *report, const char *suffix)
{
        for (size_t i = 0; i < G_N_ELEMENTS(known); i++)
                if (streq(known[i].report, report) && streq(known[i].suffix, suffix))
                        return &known[i];
        return NULL;
}

static char *write_page(const NcuReport *r, const NcuPageOptions *o, size_t *ret_size)
{
        char *out = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&out, &n);

        g_assert_nonnull(f);
        g_assert_cmpint(ncu_page_write(r, o, f), ==, 0);
        g_assert_cmpint(fclose(f), ==, 0);
        *ret_size = n;
        return out;
}

/* text without the known difference's lines (or blocks). */
static char *without_known(const char *text, size_t n, const KnownDifference *k, size_t *ret_n)
{
        GString *out = g_string_new(NULL);
        bool skipping = false;

        for (size_t i = 0; i < n;) {
                const char *end = memchr(text + i, '\n', n - i);
                size_t len = end ? (size_t) (end - text - i) : n - i;
                g_autofree char *line = g_strndup(text + i, len);
                bool drop = false;

                for (size_t j = 0; j < G_N_ELEMENTS(k->lines_with) && k->lines_with[j]; j++)
                        if (strstr(line, k->lines_with[j]))
                                drop = true;
                if (drop && k->block)
                        skipping = true;
                if (skipping && len == 0)
                        skipping = false;
                if (!drop && !skipping)
                        g_string_append_len(out, text + i, (gssize) (len + (end ? 1 : 0)));
                i += len + (end ? 1 : 0);
        }
        *ret_n = out->len;
        return g_string_free(out, false);
}

typedef struct PageCase {
        const char *report;
        const PageKind *kind;
        size_t n_actions; /* what the report holds, as report-test-util.h says */
} PageCase;

/* The number of records of a CSV page whose first field is a result's ID, and checks every such record has
 * as many fields as the page's header record (the first that starts with "ID"). */
static size_t csv_result_records(const char *text)
{
        size_t n = 0, header_fields = 0;

        for (const char *p = text; *p;) {
                size_t fields = 1;
                bool quoted = false;
                const char *start = p;

                for (; *p && (quoted || *p != '\n'); p++) {
                        if (*p == '"')
                                quoted = !quoted;
                        else if (*p == ',' && !quoted)
                                fields++;
                }
                if (startswith(start, "\"ID\"") && header_fields == 0)
                        header_fields = fields;
                else if (start[0] == '"' && g_ascii_isdigit(start[1]) && header_fields > 0 && fields >= header_fields) {
                        g_assert_cmpuint(fields, ==, header_fields);
                        n++;
                }
                if (*p == '\n')
                        p++;
        }
        g_assert_cmpuint(header_fields, >, 0);
        return n;
}

/* The page holds what the model says it must: every result, every metric of the raw page, every process and
 * device of the session, every invocation in the summary. */
static void check_complete(const NcuReport *r, const PageKind *kind, const char *text)
{
        const NcuPageOptions *o = &kind->options;

        switch (o->page) {
        case NCU_PAGE_RAW:
                if (o->csv) {
                        g_assert_cmpuint(csv_result_records(text), ==, r->n_actions);
                        break;
                }
                /* Per result its line, and the metrics it holds, sorted by name, one row each. */
                for (size_t i = 0; i < r->n_actions; i++) {
                        const NcuAction *a = r->actions[i];
                        const char *at = strstr(text, "  Metric Name ");
                        size_t rows = 0, expected = 0;

                        g_assert_nonnull(at);
                        for (size_t j = 0; j < a->n_unique_metrics; j++)
                                if (!ncu_export_is_section_directive(a->metrics_by_name[j]))
                                        expected++;
                        at = strchr(strchr(at, '\n') + 1, '\n') + 1; /* below the rule */
                        for (; *at && *at != '\n'; at = strchr(at, '\n') + 1)
                                if (at[2] != ' ')
                                        rows++;
                        g_assert_cmpuint(rows, ==, expected);
                        text = at;
                }
                break;
        case NCU_PAGE_DETAILS:
                if (o->summary == NCU_PRINT_SUMMARY_PER_KERNEL) {
                        size_t invocations = 0;
                        for (const char *p = strstr(text, ", Invocations "); p; p = strstr(p + 1, ", Invocations "))
                                invocations += strtoul(p + strlen(", Invocations "), NULL, 10);
                        g_assert_cmpuint(invocations, ==, r->n_actions);
                        g_assert_nonnull(strstr(text,
                                        "\n  This output mode is backwards compatible to the "
                                        "per-kernel summary output of nvprof"));
                        g_assert_true(g_str_has_suffix(text, " \n\n"));
                } else if (o->csv)
                        (void) csv_result_records(text);
                else {
                        size_t launches = 0;
                        for (size_t i = 0; i < r->n_actions; i++) {
                                g_autofree char *line = g_strdup_printf(
                                                "  %s (", strempty(ncu_action_name(r->actions[i], NCU_NAME_DEMANGLED)));
                                g_assert_nonnull(strstr(text, line));
                        }
                        for (const char *p = text; (p = strstr(p, ", Device ")); p++)
                                launches++;
                        g_assert_cmpuint(launches, ==, r->n_actions);
                }
                break;
        case NCU_PAGE_SESSION:
                g_assert_true(g_str_has_prefix(text, "Launch Settings\n"));
                g_assert_nonnull(strstr(text, "\nSession Info\n"));
                g_assert_nonnull(strstr(text, "\nProcesses\n"));
                g_assert_nonnull(strstr(text, "\nDevice Attributes\n"));
                for (size_t i = 0; i < r->n_processes; i++) {
                        g_autofree char *pid = g_strdup_printf("\n%u ", r->processes[i].process_id);
                        g_assert_nonnull(strstr(text, pid));
                }
                for (size_t i = 0; i < r->session.n_devices; i++) {
                        g_autofree char *dev = g_strdup_printf(" Device %u ", r->session.devices[i].id);
                        g_assert_nonnull(strstr(text, dev));
                }
                break;
        default:
                g_assert_not_reached();
        }
}

/* The whole of text equals expected, but for a known difference, which must still be there. */
static void assert_same(const char *what, const char *report, const char *suffix, const char *text, size_t n,
                const char *expected, size_t m, bool prefix)
{
        const KnownDifference *k = known_difference(report, suffix);
        g_autofree char *a = NULL, *b = NULL;
        size_t na = n, nb = m;

        if (k) {
                bool same = prefix ? n >= m && memcmp(text, expected, m) == 0
                                   : n == m && memcmp(text, expected, n) == 0;
                if (same)
                        g_error("%s: now the same as ncu's: remove it from known[]", what);
                g_test_message("%s: known difference: %s", what, k->why);
                a = without_known(text, n, k, &na);
                b = without_known(expected, m, k, &nb);
                text = a;
                expected = b;
        }
        if (prefix ? na < nb || memcmp(text, expected, nb) != 0 : na != nb || memcmp(text, expected, na) != 0) {
                test_report_difference(what, text, na, expected, nb);
                g_test_fail();
        }
}

static void check_page(gconstpointer data)
{
        const PageCase *c = data;
        g_autofree char *rel = g_strdup_printf("reports/expected/%s.%s", c->report, c->kind->suffix);
        g_autofree char *rel_partial = g_strdup_printf("%s.partial", rel);
        g_autofree char *path = test_corpus_path(rel), *partial = test_corpus_path(rel_partial);
        g_autofree char *expected = NULL, *ours = NULL;
        _cleanup_(ncu_report_freep) NcuReport *r = report_corpus_load(c->report);
        size_t n, m = 0;

        g_assert_cmpuint(r->n_actions, ==, c->n_actions);
        ours = write_page(r, &c->kind->options, &n);
        g_assert_cmpuint(strlen(ours), ==, n);
        check_complete(r, c->kind, ours);

        if (g_file_get_contents(path, &expected, &m, NULL))
                assert_same(rel, c->report, c->kind->suffix, ours, n, expected, m, false);
        else if (g_file_get_contents(partial, &expected, &m, NULL))
                /* What ncu wrote before it failed begins our page. */
                assert_same(rel_partial, c->report, c->kind->suffix, ours, n, expected, m, true);
        else
                g_test_message("%s: ncu printed nothing (ORACLE-FAILURES.tsv): checked complete", rel);
}

/* nvprofilectl report … --local prints the same bytes. */
static void check_verb(gconstpointer data)
{
        const PageCase *c = data;
        const char *bin = g_getenv("NVPROFILECTL_BIN");
        g_autofree char *rel = g_strdup_printf("reports/%s.ncu-rep", c->report);
        g_autofree char *file = test_corpus_path(rel);
        g_autofree char *out = NULL, *err = NULL, *ours = NULL;
        _cleanup_(ncu_report_freep) NcuReport *r = report_corpus_load(c->report);
        const char *argv[12] = { bin, "report" };
        g_autoptr(GError) error = NULL;
        size_t a = 2, n;
        int status = 0;

        g_assert_nonnull(bin);
        argv[a++] = c->kind->args[0];
        argv[a++] = file;
        argv[a++] = "--local";
        for (size_t i = 1; i < G_N_ELEMENTS(c->kind->args) && c->kind->args[i]; i++)
                argv[a++] = c->kind->args[i];
        g_assert_true(g_spawn_sync(
                        NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
        g_assert_no_error(error);
        g_assert_cmpstr(err, ==, "");
        g_assert_true(g_spawn_check_wait_status(status, NULL));
        ours = write_page(r, &c->kind->options, &n);
        if (strlen(out) != n || memcmp(out, ours, n) != 0) {
                test_report_difference(c->kind->suffix, out, strlen(out), ours, n);
                g_test_fail();
        }
}

/* Every failure ncu had on the corpus is one of our pages without a byte oracle (checked above). */
static void test_oracle_failures(void)
{
        g_autofree char *path = test_corpus_path("reports/expected/ORACLE-FAILURES.tsv"), *text = NULL;
        g_auto(GStrv) lines = NULL;
        size_t n = 0;

        g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
        lines = g_strsplit(text, "\n", -1);
        for (size_t i = 1; lines[i]; i++) {
                g_auto(GStrv) f = g_strsplit(lines[i], "\t", -1);
                bool report_known = false, page_known = false;

                if (!lines[i][0])
                        continue;
                for (size_t j = 0; j < REPORT_CORPUS_N; j++)
                        report_known = report_known || streq(report_corpus_names[j], f[0]);
                for (size_t j = 0; j < G_N_ELEMENTS(kinds); j++)
                        page_known = page_known || streq(kinds[j].suffix, f[1]);
                g_assert_true(report_known);
                g_assert_true(page_known);
                n++;
        }
        g_assert_cmpuint(n, ==, 16);
}

/* The scaling rule of report-page-units.h, on values the corpus does not hold. */
static void test_unit_scale(void)
{
        static const struct {
                const char *unit;
                double value;
                const char *scaled;
                double factor;
        } cases[] = {
                { "byte", 999, "byte", 1 },
                { "byte", 1000, "Kbyte", 1e3 },
                { "byte", -2.5e9, "Gbyte", 1e9 },
                { "byte", 7e18, "Pbyte", 1e15 }, /* the last step at most */
                { "byte/second", 1.5e6, "Mbyte/second", 1e6 },
                { "%/byte", 7949, "%/Kbyte", 1e3 },
                { "nsecond", 999, "nsecond", 1 },
                { "nsecond", 31872, "usecond", 1e3 },
                { "nsecond", 1.4e9, "second", 1e9 },
                { "nsecond", 5e12, "second", 1e9 },
                { "cycle/second", 584e6, "cycle/usecond", 1e6 },
                { "cycle/second", 1.2e11, "cycle/nsecond", 1e9 },
                { "sector/second", 1559.98, "sector/msecond", 1e3 },
                { "cycle", 1e12, "cycle", 1 },
                { "inst/cycle", 3000, "inst/cycle", 1 },
                { "", 1e9, "", 1 },
                { "byte", 0, "byte", 1 },
                { "byte", NAN, "byte", 1 },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                char unit[METRIC_UNIT_MAX];
                g_assert_cmpfloat(ncu_unit_scale(cases[i].unit, cases[i].value, unit), ==, cases[i].factor);
                g_assert_cmpstr(unit, ==, cases[i].scaled);
        }
}

static void collect_line(void *userdata, const char *p, size_t n)
{
        g_ptr_array_add(userdata, g_strndup(p, n));
}

static char *wrapped(const char *s, size_t width)
{
        g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func(g_free);

        ncu_text_wrap(s, width, collect_line, lines);
        g_ptr_array_add(lines, NULL);
        return g_strjoinv("|", (char **) lines->pdata);
}

/* ncu's wrapping: the space a line breaks at opens the next line and counts towards its width; a word longer
 * than a line is cut; paragraphs wrap alone. */
static void test_wrap(void)
{
        g_autofree char *a = wrapped("aaa bbb ccc", 7), *b = wrapped("aaa bbb ccc", 8),
                        *c = wrapped("aa bbbbbbbbbb c", 6), *d = wrapped(" lead", 10),
                        *e = wrapped("one\ntwo three", 5), *f = wrapped("", 5), *g = wrapped("aaa bb cc dd", 6);

        /* A line breaks at the last space within the first width characters: the first holds width - 1. */
        g_assert_cmpstr(a, ==, "aaa|bbb|ccc");
        g_assert_cmpstr(b, ==, "aaa bbb|ccc");
        /* What is left fits whole: " cc dd" is 6 characters, its space included. */
        g_assert_cmpstr(g, ==, "aaa|bb|cc dd");
        /* A word longer than a line is cut, the space before it shown. */
        g_assert_cmpstr(c, ==, "aa| bbbbb|bbbbb|c");
        g_assert_cmpstr(d, ==, "lead");
        g_assert_cmpstr(e, ==, "one|two| thre|e");
        g_assert_cmpstr(f, ==, "");
}

/* The options as ncu spells them, and the combinations it refuses. */
static void test_options(void)
{
        NcuPageOptions o = NCU_PAGE_OPTIONS_DEFAULT;
        const char *why = NULL;

        g_assert_cmpint(ncu_page_from_string("session"), ==, NCU_PAGE_SESSION);
        g_assert_cmpint(ncu_page_from_string("source"), ==, _NCU_PAGE_INVALID);
        g_assert_cmpint(ncu_print_units_from_string("base"), ==, NCU_PRINT_UNITS_BASE);
        g_assert_cmpint(ncu_print_details_from_string("body"), ==, NCU_PRINT_DETAILS_BODY);
        g_assert_cmpint(ncu_print_instances_from_string("details"), ==, NCU_PRINT_INSTANCES_DETAILS);
        g_assert_cmpint(ncu_print_summary_from_string("per-kernel"), ==, NCU_PRINT_SUMMARY_PER_KERNEL);
        g_assert_cmpint(ncu_print_summary_from_string("per-gpu"), ==, _NCU_PRINT_SUMMARY_INVALID);
        g_assert_cmpstr(ncu_print_units_to_string(NCU_PRINT_UNITS_DYNAMIC), ==, "dynamic");
        g_assert_true(ncu_page_options_valid(&o, NULL));

        o.page = NCU_PAGE_RAW;
        o.details = NCU_PRINT_DETAILS_ALL;
        g_assert_false(ncu_page_options_valid(&o, &why));
        g_assert_nonnull(strstr(why, "--print-details"));
        o.details = NCU_PRINT_DETAILS_HEADER;
        o.summary = NCU_PRINT_SUMMARY_PER_KERNEL;
        g_assert_false(ncu_page_options_valid(&o, &why));
        o = NCU_PAGE_OPTIONS_DEFAULT;
        o.page = NCU_PAGE_SESSION;
        o.csv = true;
        g_assert_true(ncu_page_options_valid(&o, NULL));
        o.units = NCU_PRINT_UNITS_BASE;
        g_assert_false(ncu_page_options_valid(&o, NULL));
        o = NCU_PAGE_OPTIONS_DEFAULT;
        o.instances = (NcuPrintInstances) 7;
        g_assert_false(ncu_page_options_valid(&o, NULL));
        g_assert_cmpint(ncu_page_write(&(NcuReport){ .n_actions = 0 }, &o, stdout), ==, -EINVAL);
}

/* The options through the wire, each checked against its range. */
static void test_options_wire(void)
{
        NcuPageOptions o = {
                .page = NCU_PAGE_RAW,
                .csv = true,
                .units = NCU_PRINT_UNITS_BASE,
                .instances = NCU_PRINT_INSTANCES_DETAILS,
        }, back;
        NcuWireReader in;
        NcuWire w;

        ncu_wire_init(&w, 64);
        ncu_wire_put_page_options(&w, &o);
        g_assert_cmpint(ncu_wire_finish(&w), ==, 0);
        ncu_wire_reader_init(&in, w.data, w.size);
        g_assert_cmpint(ncu_wire_get_page_options(&in, &back), ==, 0);
        g_assert_cmpuint(in.left, ==, 0);
        g_assert_cmpint(back.page, ==, o.page);
        g_assert_true(back.csv);
        g_assert_cmpint(back.units, ==, o.units);
        g_assert_cmpint(back.details, ==, o.details);
        g_assert_cmpint(back.instances, ==, o.instances);
        g_assert_cmpint(back.summary, ==, o.summary);
        /* A page number past the last. */
        w.data[0] = _NCU_PAGE_MAX;
        ncu_wire_reader_init(&in, w.data, w.size);
        g_assert_cmpint(ncu_wire_get_page_options(&in, &back), ==, -EBADMSG);
        /* Cut short. */
        ncu_wire_reader_init(&in, w.data, w.size - 1);
        g_assert_cmpint(ncu_wire_get_page_options(&in, &back), ==, -EBADMSG);
        ncu_wire_done(&w);
}

/* A SpeedOfLight-like section: DRAM Throughput with ncu 2025.3.1's Items filter (bounds up to CC_120) over
 * the options of ncu 2024.1.1's stock file, DRAM Frequency as in that file (the base for MaxArch: CC_70), and
 * a row only GPUs from 7.5 on show. */
static const char speed_of_light[] = "Identifier: \"SpeedOfLight\"\n"
                                     "DisplayName: \"GPU Speed Of Light Throughput\"\n"
                                     "Order: 10\n"
                                     "Header {\n"
                                     "  Metrics { Label: \"Duration\" Name: \"gpu__time_duration.sum\" }\n"
                                     "  Metrics {\n"
                                     "    Label: \"DRAM Throughput\"\n"
                                     "    Name: \"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed\"\n"
                                     "    Filter {\n"
                                     "      Items { MinArch: CC_75 MaxArch: CC_86 }\n"
                                     "      Items { MinArch: CC_89 MaxArch: CC_100 }\n"
                                     "      Items { MinArch: CC_103 MaxArch: CC_103 }\n"
                                     "      Items { MinArch: CC_120 MaxArch: CC_120 }\n"
                                     "    }\n"
                                     "    Options {\n"
                                     "      Name: \"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed\"\n"
                                     "      Filter { MinArch: CC_75 MaxArch: CC_86 }\n"
                                     "    }\n"
                                     "    Options {\n"
                                     "      Name: \"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed\"\n"
                                     "      Filter { MinArch: CC_89 }\n"
                                     "    }\n"
                                     "  }\n"
                                     "  Metrics {\n"
                                     "    Label: \"DRAM Frequency\"\n"
                                     "    Name: \"dram__cycles_elapsed.avg.per_second\"\n"
                                     "    Filter { MaxArch: CC_70 }\n"
                                     "    Options {\n"
                                     "      Name: \"dram__cycles_elapsed.avg.per_second\"\n"
                                     "      Filter { MinArch: CC_75 MaxArch: CC_86 }\n"
                                     "    }\n"
                                     "    Options {\n"
                                     "      Name: \"dram__cycles_elapsed.avg.per_second\"\n"
                                     "      Filter { MinArch: CC_89 }\n"
                                     "    }\n"
                                     "  }\n"
                                     "  Metrics {\n"
                                     "    Label: \"L2 Hit Rate\"\n"
                                     "    Name: \"lts__t_sector_hit_rate.pct\"\n"
                                     "    Filter { MinArch: CC_75 }\n"
                                     "  }\n"
                                     "}\n";

/* The details page (text, and CSV when csv) of one kernel of compute capability major.minor with that section. */
static char *arch_page(uint64_t major, uint64_t minor, bool csv)
{
        NV__Profiler__Messages__ProfileResult p = NV__PROFILER__MESSAGES__PROFILE_RESULT__INIT;
        NV__Profiler__Messages__Uint64x3 u = NV__PROFILER__MESSAGES__UINT64X3__INIT;
        NV__Profiler__Messages__ProfilerStringTable st = NV__PROFILER__MESSAGES__PROFILER_STRING_TABLE__INIT;
        NV__Profiler__Messages__BlockHeader h = NV__PROFILER__MESSAGES__BLOCK_HEADER__INIT;
        char *names[] = {
                (char *) "device__attribute_compute_capability_major",
                (char *) "device__attribute_compute_capability_minor",
                (char *) "gpu__time_duration.sum",
                (char *) "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                (char *) "dram__cycles_elapsed.avg.per_second",
                (char *) "lts__t_sector_hit_rate.pct",
        };
        NV__Profiler__Messages__ProfileMetricValue values[G_N_ELEMENTS(names)];
        NV__Profiler__Messages__ProfileMetricResult results[G_N_ELEMENTS(names)], *pointers[G_N_ELEMENTS(names)];
        NV__Profiler__ProfilerSection *section = NULL;
        TextFormatDiagnostics d = { 0 };
        _cleanup_(ncu_report_freep) NcuReport *r = NULL;
        ReportBuffer b = { 0 };
        NcuReportError err;
        char *out = NULL;
        size_t n = 0;
        FILE *f;

        g_assert_cmpint(section_file_parse(speed_of_light, strlen(speed_of_light), NULL, &section, &d), ==, 0);
        textformat_diagnostics_clear(&d);
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
                nv__profiler__messages__profile_metric_value__init(&values[i]);
                nv__profiler__messages__profile_metric_result__init(&results[i]);
                if (i < 2) {
                        values[i].has_uint64value = true;
                        values[i].uint64value = i == 0 ? major : minor;
                } else {
                        values[i].has_doublevalue = true;
                        values[i].doublevalue = 10.0 * (double) i + 0.25;
                }
                results[i].nameid = (uint32_t) i;
                results[i].metricvalue = &values[i];
                pointers[i] = &results[i];
        }
        st.n_strings = G_N_ELEMENTS(names);
        st.strings = names;
        h.stringtable = &st;
        p.kernelfunctionname = p.kerneldemangledname = p.kernelmangledname = (char *) "k";
        p.globalworkoffset = p.gridsize = p.blocksize = &u;
        p.n_metricresults = G_N_ELEMENTS(names);
        p.metricresults = pointers;
        p.n_sections = 1;
        p.sections = &section;
        report_build_start(&b, 7);
        report_build_block(&b, &h, &(ReportEntry){ .kind = NCU_ENTRY_PROFILE_RESULT, .message = &p.base }, 1);
        nv__profiler__profiler_section__free_unpacked(section, NULL);
        g_assert_cmpint(ncu_report_load_buffer(b.data, b.size, NULL, &r, &err), ==, 0);
        report_buffer_done(&b);

        f = open_memstream(&out, &n);
        g_assert_nonnull(f);
        g_assert_cmpint(ncu_page_write(r, &(const NcuPageOptions){ .page = NCU_PAGE_DETAILS, .csv = csv }, f), ==, 0);
        g_assert_cmpint(fclose(f), ==, 0);
        return out;
}

/* A GPU newer than ncu 2024.1.1 (compute capability 12.0): ncu warns that it assumes 5.0 and evaluates every
 * filter as for 5.0, so the DRAM rows (admitted by MaxArch: CC_70, and by an Items entry whose bounds are all
 * unknown to it) show and the row from 7.5 on does not. On a GPU it knows (9.0) the same section shows its
 * filters' rows for that GPU and no warning. */
static void test_unknown_arch(void)
{
        static const struct {
                uint64_t major, minor;
                bool csv;
                const char *shown[4], *hidden[2];
        } cases[] = {
                { 12, 0, false,
                                { NCU_UNKNOWN_ARCH_WARNING "\n", "    DRAM Throughput ", "    DRAM Frequency ",
                                                "    Duration " },
                                { "L2 Hit Rate" } },
                { 12, 0, true,
                                { NCU_UNKNOWN_ARCH_WARNING "\n", "\"DRAM Throughput\"", "\"DRAM Frequency\"",
                                                "\"Duration\"" },
                                { "L2 Hit Rate" } },
                { 9, 0, false, { "    DRAM Throughput ", "    DRAM Frequency ", "    L2 Hit Rate " },
                                { "==WARNING==" } },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                g_autofree char *page = arch_page(cases[i].major, cases[i].minor, cases[i].csv);

                for (size_t j = 0; j < G_N_ELEMENTS(cases[i].shown) && cases[i].shown[j]; j++)
                        if (!strstr(page, cases[i].shown[j]))
                                g_error("CC %" PRIu64 ".%" PRIu64 ": no \"%s\" in\n%s", cases[i].major, cases[i].minor,
                                                cases[i].shown[j], page);
                for (size_t j = 0; j < G_N_ELEMENTS(cases[i].hidden) && cases[i].hidden[j]; j++)
                        if (strstr(page, cases[i].hidden[j]))
                                g_error("CC %" PRIu64 ".%" PRIu64 ": \"%s\" in\n%s", cases[i].major, cases[i].minor,
                                                cases[i].hidden[j], page);
        }
}

int main(int argc, char **argv)
{
        static PageCase cases[REPORT_CORPUS_N * G_N_ELEMENTS(kinds)];
        size_t n = 0;

        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();

        g_test_add_func("/report-pages/unit-scale", test_unit_scale);
        g_test_add_func("/report-pages/wrap", test_wrap);
        g_test_add_func("/report-pages/options", test_options);
        g_test_add_func("/report-pages/options-wire", test_options_wire);
        g_test_add_func("/report-pages/oracle-failures", test_oracle_failures);
        g_test_add_func("/report-pages/unknown-arch", test_unknown_arch);
        for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++)
                for (size_t i = 0; i < REPORT_CORPUS_N; i++) {
                        const char *name = report_corpus_names[i];
                        g_autofree char *p = g_strdup_printf("/report-pages/%s/%s", kinds[k].suffix, name);
                        cases[n] = (PageCase){
                                .report = name, .kind = &kinds[k], .n_actions = report_corpus_n_actions[i]
                        };
                        g_test_add_data_func(p, &cases[n], check_page);
                        for (size_t j = 0; j < G_N_ELEMENTS(verb_reports); j++)
                                if (streq(verb_reports[j], name)) {
                                        g_autofree char *v = g_strdup_printf(
                                                        "/report-pages/verb/%s/%s", kinds[k].suffix, name);
                                        g_test_add_data_func(v, &cases[n], check_verb);
                                }
                        n++;
                }
        return g_test_run();
}
