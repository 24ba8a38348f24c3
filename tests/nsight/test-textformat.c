/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The text-format reader on small inputs: every syntax form the stock files use, and every error
 * with its position. */

#include <glib.h>
#include <math.h>

#include "section-file.h"
#include "section-json.h"

static NV__Profiler__ProfilerSection *parse_ok(const char *text, NvSchema schema)
{
        TextFormatOptions o = { .schema = schema };
        TextFormatDiagnostics d = { 0 };
        NV__Profiler__ProfilerSection *s = NULL;
        int r = section_file_parse(text, strlen(text), &o, &s, &d);
        if (r < 0)
                g_printerr("unexpected error: %s\n", d.n ? d.items[0].message : "?");
        g_assert_cmpint(r, ==, 0);
        g_assert_cmpuint(d.n, ==, 0);
        textformat_diagnostics_clear(&d);
        return s;
}

/* Parses, expects failure r, and checks the first error's position (1-based line:col) and text. */
static void parse_fail(
                const char *text, const TextFormatOptions *o, int r, unsigned line, unsigned column, const char *needle)
{
        TextFormatDiagnostics d = { 0 };
        NV__Profiler__ProfilerSection *s = NULL;
        g_assert_cmpint(section_file_parse(text, strlen(text), o, &s, &d), ==, r);
        g_assert_null(s);
        const TextFormatDiagnostic *e = textformat_diagnostics_error(&d);
        g_assert_nonnull(e);
        if (!strstr(e->message, needle))
                g_printerr("message: %s\n", e->message);
        g_assert_nonnull(strstr(e->message, needle));
        if (line > 0) {
                g_assert_cmpuint(e->line, ==, line);
                g_assert_cmpuint(e->column, ==, column);
        }
        textformat_diagnostics_clear(&d);
}

#define HEAD "Identifier: \"X\"\nDisplayName: \"Y\"\n"

static void test_syntax_forms(void)
{
        const char *text =
                        "# banner\r\n"
                        "Identifier: \"Id\"  # trailing comment\r\n"
                        "DisplayName: 'it''s' \"\\x41\\101\\n\\\"q\\\"\"\r\n"
                        "#endif\r\n"
                        "Order: 0x10;\r\n"
                        "Sets{Identifier: \"basic\"},\r\n"
                        "Sets: { Identifier: \"full\" }\r\n"
                        "Sets < Identifier: \"roofline\" >\r\n"
                        "Filter {\r\n"
                        "  MinArch: CC_75\r\n"
                        "  MaxArch: 86\r\n"
                        "  CollectionFilter { CollectionScopes: CollectionScope_Launch CollectionScopes: 2 }\r\n"
                        "  Items [ { MinArch: CC_80 }, { MaxArch: MaxArch } ]\r\n"
                        "}\r\n"
                        "Header { Metrics { Name: \"a.b__c\" ShowInstances: 1 } Metrics { Name: \"d\" ShowInstances: false } }\r\n"
                        "Body { Items { LineChart { AxisX { Range { Min: -5 Max: 100 } } } } SetDefault: t }\r\n"
                        "Group { Name: \"g\" SchedulingHints { CtrDomains { Name: \"gpu_sm_b\" Ctrs: 0xc83feae1569676cb Ctrs: 18446744073709551615 } } }\r\n"
                        "Metrics { Metrics { Name: \"m\" Multiplier: 0.5 } Metrics { Name: \"n\" Multiplier: 5. } "
                        "Metrics { Name: \"o\" Multiplier: 1e-3 } Metrics { Name: \"p\" Multiplier: -inf } Metrics { Name: \"q\" Multiplier: 2 } }\r\n";
        NV__Profiler__ProfilerSection *s = parse_ok(text, NV_SCHEMA_EXTENDED);

        g_assert_cmpstr(s->identifier, ==, "Id");
        /* Adjacent literals concatenate; escapes: \x41 = A, \101 = A. */
        g_assert_cmpstr(s->displayname, ==,
                        "its"
                        "AA\n\"q\"");
        g_assert_cmpuint(s->order, ==, 16);
        g_assert_cmpuint(s->n_sets, ==, 3);
        g_assert_cmpstr(s->sets[2]->identifier, ==, "roofline");
        g_assert_cmpint(s->filter->minarch, ==, 75);
        g_assert_cmpint(s->filter->maxarch, ==, 86);
        g_assert_cmpuint(s->filter->collectionfilter->n_collectionscopes, ==, 2);
        g_assert_cmpint(s->filter->collectionfilter->collectionscopes[1], ==, 2);
        g_assert_cmpuint(s->filter->n_items, ==, 2);
        g_assert_cmpint(s->filter->items[1]->maxarch, ==, 90);
        g_assert_false(s->filter->items[1]->has_minarch);
        g_assert_cmpstr(s->header->metrics[0]->name, ==, "a.b__c");
        g_assert_true(s->header->metrics[0]->showinstances);
        g_assert_true(s->header->metrics[1]->has_showinstances);
        g_assert_false(s->header->metrics[1]->showinstances);
        g_assert_cmpint(s->body[0]->items[0]->linechart->axisx->range->min, ==, -5);
        g_assert_true(s->body[0]->setdefault);
        g_assert_cmphex(s->group[0]->schedulinghints->ctrdomains[0]->ctrs[0], ==, UINT64_C(0xc83feae1569676cb));
        g_assert_cmphex(s->group[0]->schedulinghints->ctrdomains[0]->ctrs[1], ==, UINT64_MAX);
        g_assert_cmpfloat(s->metrics->metrics[0]->multiplier, ==, 0.5);
        g_assert_cmpfloat(s->metrics->metrics[1]->multiplier, ==, 5.0);
        g_assert_cmpfloat_with_epsilon(s->metrics->metrics[2]->multiplier, 0.001, 1e-12);
        g_assert_true(isinf(s->metrics->metrics[3]->multiplier) && s->metrics->metrics[3]->multiplier < 0);
        g_assert_cmpfloat(s->metrics->metrics[4]->multiplier, ==, 2.0);
        protobuf_c_message_free_unpacked(&s->base, NULL);
}

static void test_large_repeated(void)
{
        GString *t = g_string_new(HEAD "Header {\n");
        for (unsigned i = 0; i < 40000; i++)
                g_string_append_printf(t,
                                "  Metrics { Name: \"metric_%u\" Label: \"a fairly long label to pass one megabyte\" }\n",
                                i);
        g_string_append(t, "}\n");
        g_assert_cmpuint(t->len, >, 1024 * 1024);
        NV__Profiler__ProfilerSection *s = parse_ok(t->str, NV_SCHEMA_2024_1_1);
        g_assert_cmpuint(s->header->n_metrics, ==, 40000);
        g_assert_cmpstr(s->header->metrics[39999]->name, ==, "metric_39999");
        protobuf_c_message_free_unpacked(&s->base, NULL);
        g_string_free(t, TRUE);
}

static void test_errors(void)
{
        TextFormatOptions strict = { .schema = NV_SCHEMA_2024_1_1 };
        TextFormatOptions ext = { .schema = NV_SCHEMA_EXTENDED };

        parse_fail("DisplayName: \"Y\"\n", &ext, -EBADMSG, 0, 0, "missing required field \"Identifier\"");
        parse_fail("Identifier: \"X\"\n", &ext, -EBADMSG, 0, 0, "missing required field \"DisplayName\"");
        parse_fail(HEAD "Body { Items { Table { Label: \"t\" } } }\n", &ext, -EBADMSG, 3, 35,
                        "\"NV.Profiler.ProfilerSectionTable\" is missing required field \"Columns\"");
        parse_fail(HEAD "  Colour: 3\n", &ext, -EBADMSG, 3, 3, "has no field named \"Colour\"");
        parse_fail(HEAD "Filter { MinArch: CC_999 }\n", &ext, -EBADMSG, 3, 19,
                        "Unknown enumeration value of \"CC_999\" for field \"MinArch\"");
        parse_fail(HEAD "Filter { MinArch: 77 }\n", &ext, -EBADMSG, 3, 19, "Unknown enumeration value of \"77\"");
        parse_fail(HEAD "Filter { MinArch: CC_120 }\n", &strict, -EBADMSG, 3, 19, "\"CC_120\"");
        parse_fail(HEAD "Metrics { Metrics { Name: \"m\" Multiplier: 2 } }\n", &strict, -EBADMSG, 3, 31,
                        "has no field named \"Multiplier\"");
        parse_fail(HEAD "Description: \"open\n\"\n", &ext, -EBADMSG, 3, 14, "cannot cross line boundaries");
        parse_fail(HEAD "Description: \"open", &ext, -EBADMSG, 3, 14, "Unexpected end of string");
        parse_fail(HEAD "Header { Metrics { Name: \"m\" }\n", &ext, -EBADMSG, 4, 1, "to close the \"{\" at line 3");
        parse_fail(HEAD "Order: 1\nOrder: 2\n", &ext, -EBADMSG, 4, 1,
                        "Non-repeated field \"Order\" is specified multiple times");
        parse_fail(HEAD "Identifier: \"again\"\n", &ext, -EBADMSG, 3, 1, "\"Identifier\" is specified multiple times");
        parse_fail(HEAD "Order: 4294967296\n", &ext, -EBADMSG, 3, 8, "Integer out of range");
        parse_fail(HEAD "Order: -1\n", &ext, -EBADMSG, 3, 8, "Integer out of range");
        parse_fail(HEAD "Order: 1.5\n", &ext, -EBADMSG, 3, 8, "Expected integer");
        parse_fail(HEAD "Order 1\n", &ext, -EBADMSG, 3, 7, "Expected \":\"");
        parse_fail(HEAD "Header: 1\n", &ext, -EBADMSG, 3, 9, "Expected \"{\"");
        parse_fail(HEAD "Description: \"a\\qb\"\n", &ext, -EBADMSG, 0, 0, "Invalid escape");
        parse_fail(HEAD "Description: \"a\\000b\"\n", &ext, -EBADMSG, 3, 14, "NUL");
        parse_fail(HEAD "Description: \"\\xff\"\n", &ext, -EBADMSG, 3, 14, "UTF-8");
        parse_fail(HEAD "Body { Items { Table { Columns: 1 } } SetDefault: yes }\n", &ext, -EBADMSG, 3, 51,
                        "Invalid value for boolean field \"SetDefault\"");
        parse_fail(HEAD "Body { Items { RooflineChart { Rooflines { PeakWork { Constant: 1 Metric { Name: \"m\" } } "
                        "PeakTraffic { Constant: 2 } } } } }\n",
                        &ext, -EBADMSG, 3, 67, "another member of the same oneof");
        parse_fail(HEAD "Order: 1 }\n", &ext, -EBADMSG, 3, 10, "Expected identifier");
        parse_fail(HEAD "[ext]: 1\n", &ext, -EBADMSG, 3, 1, "Expected identifier");
}

static void test_bounds(void)
{
        TextFormatOptions o = { .schema = NV_SCHEMA_EXTENDED, .max_input = 40 };
        parse_fail(HEAD "Description: \"0123456789012345678901234567890\"\n", &o, -EFBIG, 0, 0, "exceeds the limit");

        GString *deep = g_string_new(HEAD "Body { Items ");
        for (int i = 0; i < 40; i++)
                g_string_append(deep, "{ HorizontalContainer { Items ");
        g_string_append(deep, "{ }");
        o = (TextFormatOptions){ .schema = NV_SCHEMA_EXTENDED };
        parse_fail(deep->str, &o, -EBADMSG, 0, 0, "nesting deeper than 32");
        g_string_free(deep, TRUE);

        o.max_values = 5;
        parse_fail(HEAD "Order: 1 Description: \"d\" Extends: \"e\" Sets { Identifier: \"s\" }\n", &o, -EBADMSG, 0, 0,
                        "More than 5 values");

        /* Garbage never crashes and names a position. */
        o.max_values = 0;
        parse_fail("\x01\x02\x03", &o, -EBADMSG, 1, 1, "Expected identifier, got: \\x01");
        parse_fail("", &o, -EBADMSG, 0, 0, "missing required field");
}

static void test_lenient(void)
{
        TextFormatOptions o = { .schema = NV_SCHEMA_2024_1_1, .lenient = true };
        TextFormatDiagnostics d = { 0 };
        NV__Profiler__ProfilerSection *s = NULL;
        const char *text = HEAD "Filter { VGpu: Platform_NotSupported MinKmd: 560 MinArch: CC_100 MaxArch: CC_90 }\n"
                                "Future { Nested { Deep: [1, 2] Text: \"x\" } }\n"
                                "Order: 5\n";

        g_assert_cmpint(section_file_parse(text, strlen(text), &o, &s, &d), ==, 0);
        g_assert_cmpuint(d.n, ==, 4);
        for (size_t i = 0; i < d.n; i++)
                g_assert_true(d.items[i].skipped);
        g_assert_nonnull(strstr(d.items[0].message, "\"VGpu\""));
        g_assert_cmpuint(d.items[0].line, ==, 3);
        g_assert_cmpuint(d.items[0].column, ==, 10);
        g_assert_nonnull(strstr(d.items[2].message, "\"CC_100\""));
        g_assert_nonnull(strstr(d.items[3].message, "\"Future\""));
        g_assert_cmpuint(d.items[3].line, ==, 4);
        g_assert_false(s->filter->has_minarch);
        g_assert_cmpint(s->filter->maxarch, ==, 90);
        g_assert_cmpuint(s->order, ==, 5);
        g_assert_null(textformat_diagnostics_error(&d));
        textformat_diagnostics_clear(&d);
        protobuf_c_message_free_unpacked(&s->base, NULL);

        /* Lenient is not lax about syntax. */
        parse_fail(HEAD "Future { \n", &o, -EBADMSG, 0, 0, "Expected \"}\"");
}

static void test_charts(void)
{
        TextFormatDiagnostics d = { 0 };
        NV__Profiler__ProfilerSectionBodyItem *item = NULL;
        const char *two = "Table { Columns: 1 } BarChart { Label: \"b\" }";
        const char *none = "Filter { MinArch: CC_75 }";
        const char *one = "Filter { MinArch: CC_75 } BarChart { Label: \"b\" }";

        g_assert_cmpint(section_chart_parse(two, strlen(two), NULL, &item, &d), ==, -EBADMSG);
        g_assert_nonnull(strstr(d.items[0].message, "holds 2"));
        textformat_diagnostics_clear(&d);
        g_assert_cmpint(section_chart_parse(none, strlen(none), NULL, &item, &d), ==, -EBADMSG);
        g_assert_nonnull(strstr(d.items[0].message, "holds 0"));
        textformat_diagnostics_clear(&d);
        g_assert_cmpint(section_chart_parse(one, strlen(one), NULL, &item, &d), ==, 0);
        g_assert_cmpstr(section_body_item_kind(item), ==, "BarChart");
        protobuf_c_message_free_unpacked(&item->base, NULL);

        g_autofree char *e = section_format_ncu_error(
                        &(TextFormatDiagnostic){ .ncu_line = 13, .ncu_column = 4, .message = (char *) "Boom." });
        g_assert_cmpstr(e, ==, "Error: Line=13 Column=4 Boom.");
}

/* The generic protobuf-c to JSON writer the D-Bus GetSection and "sections show" use. */
static void test_json(void)
{
        NV__Profiler__ProfilerSection *s =
                        parse_ok(HEAD "Order: 7\nSets { Identifier: \"basic\" }\n"
                                      "Filter { MinArch: CC_75 Items { MaxArch: 121 } }\n"
                                      "Group { SchedulingHints { CtrDomains { Ctrs: 0xc83feae1569676cb } } }\n"
                                      "Body { Items { RooflineChart { Rooflines { PeakWork { Constant: 2.5 } "
                                      "PeakTraffic { Metric { Name: \"m\" ShowInstances: true } } } } } }\n",
                                        NV_SCHEMA_EXTENDED);
        struct json_object *o = protobuf_message_to_json(&s->base);
        const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);

        g_assert_nonnull(strstr(text, "\"Identifier\":\"X\""));
        g_assert_nonnull(strstr(text, "\"Order\":7"));
        g_assert_nonnull(strstr(text, "\"Sets\":[{\"Identifier\":\"basic\"}]"));
        /* Enums by name, uint64 above INT64_MAX exact, oneof members only when set. */
        g_assert_nonnull(strstr(text, "\"MinArch\":\"CC_75\""));
        g_assert_nonnull(strstr(text, "\"MaxArch\":\"CC_121\""));
        g_assert_nonnull(strstr(text, "\"Ctrs\":[14429509984659601099]"));
        g_assert_nonnull(strstr(text, "\"PeakWork\":{\"Constant\":2.5}"));
        g_assert_nonnull(strstr(text, "\"PeakTraffic\":{\"Metric\":{\"Name\":\"m\",\"ShowInstances\":true}}"));
        /* Unset optional fields are left out. */
        g_assert_null(strstr(text, "Description"));
        json_object_put(o);
        protobuf_c_message_free_unpacked(&s->base, NULL);
}

int main(int argc, char **argv)
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/textformat/syntax-forms", test_syntax_forms);
        g_test_add_func("/textformat/large-repeated", test_large_repeated);
        g_test_add_func("/textformat/errors", test_errors);
        g_test_add_func("/textformat/bounds", test_bounds);
        g_test_add_func("/textformat/lenient", test_lenient);
        g_test_add_func("/textformat/charts", test_charts);
        g_test_add_func("/textformat/json", test_json);
        return g_test_run();
}
