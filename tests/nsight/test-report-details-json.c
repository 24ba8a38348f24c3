/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The details page of one action as JSON (report-details-json.h) against the text page of the same report
 * (report-page-details.c, what `nvprofilectl report details` prints), for every action of every corpus
 * report: the same sections in the same order by display name, every row's label, unit and value text on
 * the text page's row in that order, every rule message with its type and speedup estimate; and the rule
 * messages' spans (ncu's markup parsed once, report-details-text.c) giving back the text page's words; and
 * the action's NVTX ranges as the page prints them. */

#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "report-details-json.h"
#include "report-page.h"
#include "report-test-util.h"
#include "string-util.h"
#include "test-util.h"

/* Values longer than this wrap within their column on the text page (report-page-details.c). */
#define VALUE_WIDTH_MAX 30

typedef struct Page {
        char **lines;
        size_t n, at; /* the cursor: each thing looked for lies after the one before */
} Page;

static const char *page_find(Page *p, const char *prefix)
{
        for (; p->at < p->n; p->at++)
                if (g_str_has_prefix(p->lines[p->at], prefix))
                        return p->lines[p->at++];
        return NULL;
}

static const char *str(json_object *o, const char *key)
{
        return json_object_get_string(json_get(o, key));
}

static void check_row(Page *p, json_object *row)
{
        const char *label = str(row, "label"), *unit = str(row, "unit"), *value = str(row, "value");
        g_autofree char *prefix = g_strdup_printf("    %s ", label);
        const char *line = page_find(p, prefix);
        g_autofree char *middle = NULL;

        if (!line)
                g_error("row %s (%s %s) not on the text page", label, value, unit);
        if (strlen(value) > VALUE_WIDTH_MAX)
                return; /* wrapped on the text page: its first piece begins the column */
        g_assert_true(g_str_has_suffix(line, value));
        middle = g_strndup(line + strlen(prefix), strlen(line) - strlen(prefix) - strlen(value));
        g_strstrip(middle);
        g_assert_cmpstr(middle, ==, unit);
}

static void check_rule(Page *p, json_object *rule)
{
        json_object *speedup = json_get(rule, "speedup"), *spans = json_get(rule, "spans");
        g_autofree char *type_prefix = g_strdup_printf("    %-5s ", str(rule, "type"));
        g_autofree char *joined = NULL;
        GString *plain = g_string_new(NULL);
        const char *line = page_find(p, type_prefix);

        g_assert_nonnull(line);
        if (speedup) {
                g_autofree char *est = g_strdup_printf("Est. %sSpeedup: %.4g%%",
                                streq(str(speedup, "type"), "local") ? "Local " : "",
                                json_object_get_double(json_get(speedup, "value")));
                g_assert_nonnull(strstr(line, est));
        }
        /* The spans read as the text page's words: a link's words and its URL in parentheses. */
        for (size_t i = 0; i < json_object_array_length(spans); i++) {
                json_object *s = json_object_array_get_idx(spans, i);
                g_string_append(plain, str(s, "text"));
                if (json_get(s, "url"))
                        g_string_append_printf(plain, " (%s)", str(s, "url"));
                g_assert_null(strstr(str(s, "text"), "@url:"));
                g_assert_null(strstr(str(s, "text"), "@section:"));
        }
        joined = g_string_free(plain, false);
        g_assert_cmpstr(joined, ==, str(rule, "text"));
}

static void check_report(gconstpointer data)
{
        const char *name = data;
        _cleanup_(ncu_report_freep) NcuReport *report = report_corpus_load(name);
        g_autofree char *text = NULL;
        size_t size = 0, sections = 0, rows = 0, nvtx_blocks = 0, nvtx_on_page = 0;
        Page p = { .at = 0 };
        FILE *f;

        f = open_memstream(&text, &size);
        g_assert_nonnull(f);
        g_assert_cmpint(ncu_page_details_text(report, NCU_PRINT_UNITS_DYNAMIC, NCU_PRINT_DETAILS_HEADER,
                                        NCU_PRINT_INSTANCES_NONE, f),
                        ==, 0);
        g_assert_cmpint(fclose(f), ==, 0);
        p.lines = g_strsplit(text, "\n", -1);
        p.n = g_strv_length(p.lines);

        /* Ranges hold the report's actions in file order, as the page walks them. */
        for (size_t r = 0; r < report->n_ranges; r++)
                for (size_t a = 0; a < report->ranges[r].n_actions; a++) {
                        g_autoptr(json_object) doc = NULL;
                        json_object *secs, *nvtx;

                        g_assert_cmpint(ncu_details_json(report, r, a, &doc), ==, 0);
                        g_assert_cmpint(json_object_get_int(json_get(doc, "range")), ==, r);
                        g_assert_cmpint(json_object_get_int(json_get(doc, "action")), ==, a);
                        /* The NVTX block, line by line, where the text page prints it: above the
                         * action's first section. */
                        nvtx = json_get(doc, "nvtx");
                        if (nvtx) {
                                g_auto(GStrv) block = g_strsplit(json_object_get_string(nvtx), "\n", -1);

                                g_assert_true(g_str_has_suffix(json_object_get_string(nvtx), "\n"));
                                for (size_t k = 0; block[k] && block[k][0]; k++) {
                                        if (!page_find(&p, block[k]))
                                                g_error("%s: NVTX line %s not on the text page", name, block[k]);
                                        if (g_str_has_prefix(block[k], "    NVTX "))
                                                nvtx_blocks++;
                                }
                        }
                        secs = json_get(doc, "sections");
                        for (size_t s = 0; s < json_object_array_length(secs); s++) {
                                json_object *sec = json_object_array_get_idx(secs, s);
                                json_object *items = json_get(sec, "items"), *rules = json_get(sec, "rules");
                                g_autofree char *heading = g_strdup_printf("    Section: %s", str(sec, "name"));

                                g_assert_nonnull(str(sec, "identifier"));
                                if (!page_find(&p, heading))
                                        g_error("%s: section %s not on the text page", name, str(sec, "name"));
                                sections++;
                                for (size_t i = 0; i < json_object_array_length(items); i++) {
                                        json_object *item = json_object_array_get_idx(items, i);
                                        json_object *trs = json_get(item, "rows");

                                        if (!streq(str(item, "kind"), "table"))
                                                continue;
                                        for (size_t k = 0; k < json_object_array_length(trs); k++, rows++)
                                                check_row(&p, json_object_array_get_idx(trs, k));
                                }
                                for (size_t i = 0; i < json_object_array_length(rules); i++)
                                        check_rule(&p, json_object_array_get_idx(rules, i));
                        }
                }
        /* Every section the text page shows is one the JSON listed, and every NVTX block one it gave. */
        for (; p.at < p.n; p.at++)
                g_assert_false(g_str_has_prefix(p.lines[p.at], "    Section: "));
        for (size_t k = 0; k < p.n; k++)
                if (g_str_has_prefix(p.lines[k], "    NVTX "))
                        nvtx_on_page++;
        g_assert_cmpuint(nvtx_blocks, ==, nvtx_on_page);
        /* The corpus report made to show NVTX ranges has them. */
        if (strstr(name, "_nvtx_"))
                g_assert_cmpuint(nvtx_blocks, >, 0);
        g_test_message("%s: %zu sections, %zu rows, %zu NVTX blocks", name, sections, rows, nvtx_blocks);
        g_strfreev(p.lines);
}

static void test_no_such_action(void)
{
        _cleanup_(ncu_report_freep) NcuReport *report = report_corpus_load(REPORT_SOBEL);
        json_object *doc = NULL;

        g_assert_cmpint(ncu_details_json(report, report->n_ranges, 0, &doc), ==, -ENOENT);
        g_assert_cmpint(ncu_details_json(report, 0, report->ranges[0].n_actions, &doc), ==, -ENOENT);
        g_assert_null(doc);
}

int main(int argc, char **argv)
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();

        g_test_add_func("/report-details-json/no-such-action", test_no_such_action);
        for (size_t i = 0; i < REPORT_CORPUS_N; i++) {
                g_autofree char *path = g_strdup_printf("/report-details-json/%s", report_corpus_names[i]);
                g_test_add_data_func(path, report_corpus_names[i], check_report);
        }
        return g_test_run();
}
