/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Sections interface of the real daemon on a private system-like bus, through nvprofilectl and
 * directly: listing with errors, sets, one section, metric selection, derived-metric evaluation,
 * inotify reload that keeps the last good version of a file that broke, and limits. */

#include <json-c/json.h>
#include <unistd.h>

#include "bus-names.h"
#include "macro.h"
#include "itest.h"
#include "json-schema-check.h"

#define GOOD_A                                                                                                                                  \
        "Identifier: \"A\"\nDisplayName: \"Section A\"\nOrder: 5\nSets { Identifier: \"basic\" }\n"                                             \
        "Header { Metrics { Name: \"base\" Label: \"Base\" Filter { MaxArch: CC_70 } Options { Name: \"new\" Filter { MinArch: CC_75 } } } }\n" \
        "MetricDefinitions { MetricDefinitions { Name: \"derived__x\" Expression: \"op_a / op_b\" } }\n"
#define GOOD_B "Identifier: \"B\"\nDisplayName: \"Section B\"\nExtends: \"A\"\nSets { Identifier: \"full\" }\n"

/* nvprofilectl sections A [B [C]] --json=short, expecting exit status expect. */
static struct json_object *ctl_json(ITest *t, int expect, const char *a, const char *b, const char *c)
{
        g_autofree char *out = NULL;
        int status = itest_ctl(t, &out, "sections", a, b, c, NULL);
        if (status != expect)
                g_printerr("sections %s: %s\n", a, out);
        g_assert_cmpint(status, ==, expect);
        assert_json_valid(out);
        struct json_object *o = json_tokener_parse(out);
        if (!o)
                g_printerr("sections %s: not JSON: %s\n", a, out);
        g_assert_nonnull(o);
        return o;
}

static struct json_object *ctl_json4(ITest *t, int expect, const char *a, const char *b, const char *c, const char *d)
{
        g_autofree char *out = NULL;
        int status = itest_ctl(t, &out, "sections", a, b, c, d, NULL);
        g_assert_cmpint(status, ==, expect);
        assert_json_valid(out);
        struct json_object *o = json_tokener_parse(out);
        g_assert_nonnull(o);
        return o;
}

static void wait_for_error_count(ITest *t, size_t n)
{
        for (int i = 0; i < 100; i++) {
                g_autofree char *out = NULL;
                (void) itest_ctl(t, &out, "sections", "list", NULL);
                struct json_object *o = json_tokener_parse(out);
                size_t got = o ? json_object_array_length(json_object_object_get(o, "errors")) : 0;
                json_object_put(o);
                if (got == n)
                        return;
                g_usleep(50 * 1000);
        }
        g_assert_not_reached();
}

static void test_sections(void)
{
        ITest t;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_write(&t, "sec/a.section", GOOD_A);
        itest_write(&t, "sec/sub/b.section", GOOD_B);
        itest_write(&t, "sec/c.section", "Identifier: \"C\"\nDisplayName: \"C\"\nFilter { MinArch: CC_999 }\n");
        itest_write(&t, "sec/notes.txt", "not a section");
        itest_start_daemon(&t, "[Sections]\nFolders=\nRecursiveFolders=/sec\nSchema=extended\n");

        /* list: A and B loaded, C's error with ncu's position. */
        struct json_object *list = ctl_json(&t, 1, "list", NULL, NULL);
        struct json_object *sections = json_object_object_get(list, "sections");
        struct json_object *errors = json_object_object_get(list, "errors");
        g_assert_cmpuint(json_object_array_length(sections), ==, 2);
        struct json_object *a = json_object_array_get_idx(sections, 0);
        g_assert_cmpstr(itest_jstr(a, "identifier"), ==, "A");
        g_assert_cmpstr(itest_jstr(a, "display_name"), ==, "Section A");
        g_assert_true(json_object_get_boolean(json_object_object_get(a, "enabled")));
        g_assert_cmpint(json_object_get_int(json_object_object_get(a, "order")), ==, 5);
        g_assert_cmpstr(itest_jstr(a, "file"), ==, "/sec/a.section");
        struct json_object *b = json_object_array_get_idx(sections, 1);
        g_assert_cmpstr(itest_jstr(b, "file"), ==, "/sec/sub/b.section");
        g_assert_false(json_object_get_boolean(json_object_object_get(b, "enabled")));
        g_assert_cmpuint(json_object_array_length(errors), ==, 1);
        g_assert_cmpstr(itest_jstr(json_object_array_get_idx(errors, 0), "file"), ==, "/sec/c.section");
        g_assert_cmpstr(itest_jstr(json_object_array_get_idx(errors, 0), "error"), ==,
                        "Error: Line=3 Column=25 Unknown enumeration value of \"CC_999\" for field \"MinArch\".");
        json_object_put(list);

        struct json_object *sets_doc = ctl_json(&t, 0, "sets", NULL, NULL);
        struct json_object *sets = json_object_object_get(sets_doc, "sets");
        g_assert_cmpuint(json_object_array_length(sets), ==, 2);
        g_assert_cmpstr(itest_jstr(json_object_array_get_idx(sets, 0), "name"), ==, "basic");
        g_assert_cmpstr(itest_jstr(json_object_array_get_idx(sets, 1), "name"), ==, "full");
        json_object_put(sets_doc);

        struct json_object *show_doc = ctl_json(&t, 0, "show", "A", NULL);
        struct json_object *show = json_object_object_get(show_doc, "section");
        g_assert_cmpstr(itest_jstr(show, "Identifier"), ==, "A");
        g_assert_cmpint(json_object_get_int(json_object_object_get(show, "Order")), ==, 5);
        json_object_put(show_doc);
        g_autofree char *out = NULL;
        g_assert_cmpint(itest_ctl(&t, &out, "sections", "show", "Nope", NULL), ==, 1);

        /* metrics: the option on 8.6, the base on 7.0, the derived metric's operands. */
        struct json_object *m86_doc = ctl_json(&t, 0, "metrics", "A", "--arch=86");
        struct json_object *m86 = json_object_object_get(m86_doc, "metrics");
        g_assert_cmpuint(json_object_array_length(m86), ==, 3);
        g_assert_cmpstr(itest_jstr(json_object_array_get_idx(m86, 0), "name"), ==, "new");
        g_assert_cmpstr(itest_jstr(json_object_array_get_idx(m86, 0), "label"), ==, "Base");
        g_assert_cmpstr(itest_jstr(json_object_array_get_idx(m86, 1), "name"), ==, "op_a");
        g_assert_cmpstr(itest_jstr(json_object_array_get_idx(m86, 1), "derived_for"), ==, "derived__x");
        json_object_put(m86_doc);
        struct json_object *m70_doc = ctl_json4(&t, 0, "metrics", "A", "--arch=70", "--scope=range");
        struct json_object *m70 = json_object_object_get(m70_doc, "metrics");
        g_assert_cmpstr(itest_jstr(json_object_array_get_idx(m70, 0), "name"), ==, "base");
        json_object_put(m70_doc);
        g_clear_pointer(&out, g_free);
        g_assert_cmpint(itest_ctl(&t, &out, "sections", "metrics", "A", NULL), ==, 2);

        /* As text: tables whose columns are as wide as their content (daemon/shared/table.c). */
        g_clear_pointer(&out, g_free);
        g_assert_cmpint(itest_ctl(&t, &out, "--json=off", "sections", "sets", NULL), ==, 0);
        g_assert_true(g_str_has_prefix(out, "SET   ENABLED SECTIONS\nbasic yes     A"));
        g_assert_true(g_regex_match_simple("^full  (yes|no ) +\\S", out, G_REGEX_MULTILINE, 0));
        g_clear_pointer(&out, g_free);
        g_assert_cmpint(itest_ctl(&t, &out, "--json=off", "sections", "metrics", "A", "--arch=86", NULL), ==, 0);
        g_assert_true(g_str_has_prefix(out, "METRIC LABEL UNIT"));
        g_assert_true(g_regex_match_simple("^new    Base  ", out, G_REGEX_MULTILINE, 0));
        g_assert_true(g_regex_match_simple("^op_a  .* for derived__x$", out, G_REGEX_MULTILINE, 0));

        /* EvaluateExpression: integer division by 0 gives the left side; rule 3 join on ids. */
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_SECTIONS_INTERFACE, "EvaluateExpression",
                                        &error, &reply, "sa(sv)", "x / y + 1", 2, "x", "t", UINT64_C(40), "y", "t",
                                        UINT64_C(0)),
                        >=, 0);
        int has_value, has_ids;
        uint64_t v;
        g_assert_cmpint(sd_bus_message_read(reply, "bvb", &has_value, "t", &v, &has_ids), >=, 0);
        g_assert_true(has_value);
        g_assert_cmpuint(v, ==, 41);
        sd_bus_message_unref(reply);
        reply = NULL;
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_SECTIONS_INTERFACE, "EvaluateExpression",
                                        &error, &reply, "sa(sv)", "a + b", 2, "a", "a(tt)", 2, UINT64_C(1),
                                        UINT64_C(10), UINT64_C(2), UINT64_C(20), "b", "a(tt)", 2, UINT64_C(1),
                                        UINT64_C(1), UINT64_C(3), UINT64_C(3)),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_skip(reply, "bv"), >=, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "b", &has_ids), >=, 0);
        g_assert_true(has_ids);
        uint64_t ids[3], vals[3];
        g_assert_cmpint(sd_bus_message_read(reply, "a(tv)", 3, &ids[0], "t", &vals[0], &ids[1], "t", &vals[1], &ids[2],
                                        "t", &vals[2]),
                        >=, 0);
        g_assert_cmpuint(vals[0], ==, 11); /* a1 + b1 */
        g_assert_cmpuint(vals[1], ==, 20); /* a2 */
        g_assert_cmpuint(vals[2], ==, 3); /* b3 */
        sd_bus_message_unref(reply);
        reply = NULL;
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_SECTIONS_INTERFACE, "EvaluateExpression",
                                        &error, &reply, "sa(sv)", "a +", 0),
                        <, 0);
        g_assert_true(sd_bus_error_has_name(&error, SD_BUS_ERROR_INVALID_ARGS));
        sd_bus_error_free(&error);
        g_autofree char *huge = g_strnfill(5000, 'a');
        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_SECTIONS_INTERFACE, "EvaluateExpression",
                                        &error, &reply, "sa(sv)", huge, 0),
                        <, 0);
        g_assert_true(sd_bus_error_has_name(&error, BUS_ERROR_LIMITS_EXCEEDED));
        sd_bus_error_free(&error);

        /* inotify: A breaks, its last good version stays with the error; C is fixed. */
        itest_write(&t, "sec/a.section", "Identifier: \"A\"\nDisplayName: \"Section A\"\nOrder: x\n");
        itest_write(&t, "sec/c.section", "Identifier: \"C\"\nDisplayName: \"C\"\n");
        for (int i = 0; i < 100; i++) {
                g_autofree char *o2 = NULL;
                (void) itest_ctl(&t, &o2, "sections", "list", NULL);
                if (o2 && strstr(o2, "Line=3 Column=7") && strstr(o2, "\"identifier\":\"C\""))
                        break;
                g_usleep(50 * 1000);
        }
        list = ctl_json(&t, 1, "list", NULL, NULL);
        sections = json_object_object_get(list, "sections");
        g_assert_cmpuint(json_object_array_length(sections), ==, 3);
        a = json_object_array_get_idx(sections, 0);
        g_assert_cmpstr(itest_jstr(a, "identifier"), ==, "A");
        g_assert_cmpint(json_object_get_int(json_object_object_get(a, "order")), ==, 5); /* the last good one */
        g_assert_nonnull(strstr(itest_jstr(a, "error"), "Expected integer"));
        json_object_put(list);

        /* Fixed again: no errors. */
        itest_write(&t, "sec/a.section", GOOD_A);
        wait_for_error_count(&t, 0);

        /* Reading is open to every caller; reloading is root's, or polkit's to allow (no polkit here). */
        g_clear_pointer(&out, g_free);
        g_assert_cmpint(itest_ctl_as_caller(&t, &out, "sections", "sets", NULL), ==, 0);
        g_assert_cmpint(itest_ctl(&t, NULL, "sections", "reload", NULL), ==, 0);
        if (geteuid() == 0)
                g_assert_cmpint(itest_ctl_as_nobody(&t, NULL, "sections", "reload", NULL), ==, 1);
        itest_teardown(&t);
}

static struct json_object *folder(struct json_object *doc, const char *key, size_t i)
{
        return json_object_array_get_idx(json_object_object_get(doc, key), i);
}

static bool folder_read(ITest *t, size_t i)
{
        g_autofree char *out = NULL;
        struct json_object *o;
        bool read;

        (void) itest_ctl(t, &out, "sections", "list", NULL);
        o = json_tokener_parse(out);
        read = o && g_strcmp0(itest_jstr(folder(o, "folders", i), "state"), "read") == 0;
        json_object_put(o);
        return read;
}

/* Issue 18: where sections are looked for, and what each folder gave, so that an empty listing says why
 * (Debian ships no Nsight Compute folder): one that does not exist, a file, one read; in "sections list"
 * and in "status". A folder that appears later is read. */
static void test_folders(void)
{
        struct json_object *list, *status;
        g_autofree char *out = NULL;
        ITest t;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_write(&t, "sec/a.section", GOOD_A);
        itest_write(&t, "file", "not a folder");
        itest_start_daemon(&t, "[Sections]\nFolders=/nope /file\nRecursiveFolders=/sec/\n");

        list = ctl_json(&t, 0, "list", NULL, NULL);
        g_assert_cmpuint(json_object_array_length(json_object_object_get(list, "folders")), ==, 3);
        g_assert_cmpstr(itest_jstr(folder(list, "folders", 0), "path"), ==, "/nope");
        g_assert_cmpstr(itest_jstr(folder(list, "folders", 0), "state"), ==, "missing");
        g_assert_false(json_object_get_boolean(json_object_object_get(folder(list, "folders", 0), "recursive")));
        g_assert_cmpstr(itest_jstr(folder(list, "folders", 1), "path"), ==, "/file");
        g_assert_cmpstr(itest_jstr(folder(list, "folders", 1), "state"), ==, "unreadable");
        g_assert_cmpstr(itest_jstr(folder(list, "folders", 1), "problem"), ==, "Not a directory");
        g_assert_cmpstr(itest_jstr(folder(list, "folders", 2), "path"), ==, "/sec");
        g_assert_cmpstr(itest_jstr(folder(list, "folders", 2), "state"), ==, "read");
        g_assert_true(json_object_get_boolean(json_object_object_get(folder(list, "folders", 2), "recursive")));
        g_assert_cmpint(json_object_get_int(json_object_object_get(folder(list, "folders", 2), "files")), ==, 1);
        json_object_put(list);

        g_assert_cmpint(itest_ctl(&t, &out, "status", NULL), ==, 0);
        status = json_tokener_parse(out);
        g_assert_nonnull(status);
        g_assert_cmpstr(itest_jstr(folder(status, "section_folders", 0), "state"), ==, "missing");
        g_assert_cmpstr(itest_jstr(folder(status, "section_folders", 2), "state"), ==, "read");
        json_object_put(status);

        /* The missing folder appears: it is watched, and read. */
        itest_write(&t, "nope/b.section", GOOD_B);
        ITEST_WAIT_FOR(folder_read(&t, 0), 15000);
        g_assert_true(folder_read(&t, 0));
        itest_teardown(&t);
}

int main(int argc, char **argv)
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/sections/daemon", test_sections);
        g_test_add_func("/sections/folders", test_folders);
        return g_test_run();
}
