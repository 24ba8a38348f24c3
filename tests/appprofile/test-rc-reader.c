/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rc syntax: ../shared/docs/appprofiles.md §8 "Syntax" (cases 1-8) and the reader's own decisions. */

#include "test-util.h"

static const RcSetting *setting(const RcFile *f, const char *key)
{
        for (size_t i = 0; i < f->n_profiles; i++)
                for (size_t j = 0; j < f->profiles[i].n_settings; j++)
                        if (streq(f->profiles[i].settings[j].key, key))
                                return &f->profiles[i].settings[j];
        return NULL;
}

static void assert_loaded(const RcFile *f)
{
        test_dump_diags(f->path, &f->diagnostics);
        g_assert_cmpint(f->state, ==, RC_FILE_LOADED);
        g_assert_cmpuint(f->diagnostics.n_errors, ==, 0);
}

static void assert_error_at(const RcFile *f, uint32_t line, uint32_t column, const char *needle)
{
        test_dump_diags(f->path, &f->diagnostics);
        g_assert_cmpint(f->state, ==, RC_FILE_BROKEN);
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_ERROR, line, column, needle));
        g_assert_cmpuint(f->n_rules, ==, 0);
        g_assert_cmpuint(f->n_profiles, ==, 0);
}

/* Case 1: comments anywhere; '#' inside strings, also after an escaped quote, is kept. */
static void test_comments(void)
{
        g_autoptr(RcFile) f = test_parse("# header\n"
                                         "# more\n"
                                         "{ # after brace\n"
                                         "  \"profiles\": [ # x\n"
                                         "    {\"name\": \"a#b\", \"settings\": [\"k\", \"v\\\"#w\"]}, # trailing\n"
                                         "    {\"name\": \"c\", \"settings\": []}\n"
                                         "  ]\n"
                                         "} # end");
        assert_loaded(f);
        g_assert_cmpuint(f->n_profiles, ==, 2);
        g_assert_cmpstr(f->profiles[0].name, ==, "a#b");
        g_assert_cmpstr(f->profiles[0].settings[0].value.string, ==, "v\"#w");
        g_assert_cmpuint(f->profiles[0].location.line, ==, 5);
        g_assert_cmpuint(f->profiles[0].location.column, ==, 5);
}

/* Case 2: integers in hex and octal; reals untouched; quoted hex stays a string. */
static void test_integers(void)
{
        g_autoptr(RcFile) f = test_parse(
                        "{\"profiles\": [{\"name\": \"p\", \"settings\": [\n"
                        "\"hex\", 0x1F, \"HEX\", 0X1f, \"oct\", 010, \"zero\", 0, \"half\", 0.5,\n"
                        "\"exp\", 1e3, \"neg\", -0x10, \"max\", 0xFFFFFFFFFFFFFFFF, \"min\", -9223372036854775808,\n"
                        "\"0x528ab3\", 1, \"oo\", 00, \"big\", 18446744073709551615]}]}");
        assert_loaded(f);
        g_assert_cmpint(setting(f, "hex")->value.integer, ==, 31);
        g_assert_cmpint(setting(f, "HEX")->value.integer, ==, 31);
        g_assert_cmpint(setting(f, "oct")->value.integer, ==, 8);
        g_assert_cmpint(setting(f, "zero")->value.type, ==, RC_VALUE_INTEGER);
        g_assert_cmpint(setting(f, "zero")->value.integer, ==, 0);
        g_assert_cmpint(setting(f, "half")->value.type, ==, RC_VALUE_REAL);
        g_assert_cmpfloat(setting(f, "half")->value.real, ==, 0.5);
        g_assert_cmpint(setting(f, "exp")->value.type, ==, RC_VALUE_REAL);
        g_assert_cmpfloat(setting(f, "exp")->value.real, ==, 1000.0);
        g_assert_cmpint(setting(f, "neg")->value.integer, ==, -16);
        g_assert_cmpint(setting(f, "max")->value.type, ==, RC_VALUE_UNSIGNED);
        g_assert_cmpuint(setting(f, "max")->value.unsigned_integer, ==, UINT64_MAX);
        g_assert_cmpint(setting(f, "min")->value.integer, ==, INT64_MIN);
        g_assert_nonnull(setting(f, "0x528ab3"));
        g_assert_cmpint(setting(f, "oo")->value.integer, ==, 0);
        g_assert_cmpuint(setting(f, "big")->value.unsigned_integer, ==, UINT64_MAX);
        /* Positions survive the rewrite of 0xFFFFFFFFFFFFFFFF (18 bytes) to 20 decimal digits. */
        g_assert_cmpuint(setting(f, "min")->location.line, ==, 3);
        g_assert_cmpuint(setting(f, "min")->location.column, ==, 54);
}

static void test_bad_integers(void)
{
        static const struct {
                const char *text;
                uint32_t column;
                const char *needle;
        } cases[] = {
                { "{\"profiles\": [{\"name\": \"p\", \"settings\": [\"k\", 08]}]}", 47, "octal" },
                { "{\"profiles\": [{\"name\": \"p\", \"settings\": [\"k\", 0x]}]}", 47, "no digits" },
                { "{\"profiles\": [{\"name\": \"p\", \"settings\": [\"k\", 0x1.5]}]}", 47, "hexadecimal" },
                { "{\"profiles\": [{\"name\": \"p\", \"settings\": [\"k\", 0x10000000000000000]}]}", 47, "64 bits" },
                { "{\"profiles\": [{\"name\": \"p\", \"settings\": [\"k\", 18446744073709551616]}]}", 47, "64 bits" },
                { "{\"profiles\": [{\"name\": \"p\", \"settings\": [\"k\", -9223372036854775809]}]}", 47, "64 bits" },
                { "{\"profiles\": [{\"name\": \"p\", \"settings\": [\"k\", -0x8000000000000001]}]}", 47, "64 bits" },
                { "{\"profiles\": [{\"name\": \"p\", \"settings\": [\"k\", 1e400]}]}", 47, "out of range" },
                { "{\"profiles\": [{\"name\": \"p\", \"settings\": [\"k\", NaN]}]}", 47, "unexpected 'NaN'" },
                { "{\"profiles\": [{\"name\": \"p\", \"settings\": [\"k\", Infinity]}]}", 47, "unexpected" },
                { "{\"profiles\": [{\"name\": \"p\", \"settings\": [\"k\", -]}]}", 47, "'-'" },
                { "{\"profiles\": [{\"name\": \"p\", \"settings\": [\"k\", 12ab]}]}", 47, "invalid number" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                g_autoptr(RcFile) f = test_parse(cases[i].text);
                g_test_message("case %zu: %s", i, cases[i].text);
                assert_error_at(f, 1, cases[i].column, cases[i].needle);
        }
}

/* Case 3: CRLF, tabs, trailing spaces, empty file. */
static void test_whitespace(void)
{
        g_autoptr(RcFile) crlf = test_parse(
                        "{\r\n\t\"rules\": [  \r\n\t\t{\"pattern\": \"x\", \"profile\": \"p\"}   \r\n]}\r\n");
        g_autoptr(RcFile) empty = test_parse("");
        g_autoptr(RcFile) blank = test_parse("  \n# only a comment\n\n");

        assert_loaded(crlf);
        g_assert_cmpuint(crlf->n_rules, ==, 1);
        g_assert_cmpuint(crlf->rules[0].location.line, ==, 3);
        g_assert_cmpuint(crlf->rules[0].location.column, ==, 3);
        assert_error_at(empty, 0, 0, "empty");
        assert_error_at(blank, 0, 0, "empty");
}

/* Case 4: root must be an object; {} is fine; member order is free. */
static void test_root(void)
{
        g_autoptr(RcFile) ok = test_parse("{}");
        g_autoptr(RcFile) order = test_parse("{\"profiles\": [{\"name\": \"p\", \"settings\": [\"k\", 1]}],"
                                             " \"rules\": [{\"pattern\": \"x\", \"profile\": \"p\"}]}");
        g_autoptr(RcFile) arr = test_parse("[]");
        g_autoptr(RcFile) num = test_parse("5");
        g_autoptr(RcFile) str = test_parse("\"x\"");
        g_autoptr(RcFile) rules_obj = test_parse("{\"rules\": {}}");

        assert_loaded(ok);
        g_assert_cmpuint(ok->n_rules, ==, 0);
        assert_loaded(order);
        g_assert_cmpuint(order->n_rules, ==, 1);
        g_assert_cmpuint(order->n_profiles, ==, 1);
        assert_error_at(arr, 1, 1, "root value must be an object");
        assert_error_at(num, 1, 1, "root value must be an object");
        assert_error_at(str, 1, 1, "root value must be an object");
        assert_error_at(rules_obj, 1, 11, "\"rules\" must be an array");
}

/* Case 5: trailing commas: an error by default, a warning when accepted. */
static void test_trailing_comma(void)
{
        static const char text[] = "{\"rules\": [\n"
                                   "  {\"pattern\": {\"op\": \"or\", \"sub\": [\"a\", \"b\",\n"
                                   "  ]}, \"profile\": \"p\"}\n"
                                   "]}";
        RcSyntaxOptions lenient = { .accept_trailing_commas = true };
        g_autoptr(RcFile) strict = test_parse(text);
        g_autoptr(RcFile) accepted = test_parse_opts(text, &lenient);
        g_autoptr(RcFile) obj = test_parse("{\"rules\": [],}");

        assert_error_at(strict, 2, 44, "trailing comma before ']'");
        g_assert_cmpint(accepted->state, ==, RC_FILE_LOADED);
        g_assert_true(test_has_diag(&accepted->diagnostics, RC_SEVERITY_WARNING, 2, 44, "trailing comma"));
        g_assert_cmpuint(accepted->n_rules, ==, 1);
        g_assert_cmpuint(accepted->rules[0].pattern.n_sub, ==, 2);
        assert_error_at(obj, 1, 13, "trailing comma before '}'");
        /* Recorded for the doctor: jansson (nvidia-settings) refuses what we accepted. */
        g_assert_cmpuint(accepted->portability.trailing_comma_line, ==, 2);
        g_assert_cmpuint(accepted->portability.trailing_comma_column, ==, 44);
        g_assert_cmpuint(accepted->portability.single_quote_line, ==, 0);

        /* A comment (or a rewritten number) between the comma and the bracket; found by the fuzzer. */
        {
                g_autoptr(RcFile) c1 = test_parse_opts("{\"rules\": [\"a\", # c\n]}", &lenient);
                g_autoptr(RcFile) c2 = test_parse_opts(
                                "{\"profiles\": [{\"name\": \"p\", \"settings\": [\"k\", 0xFFFFFFFFFFFFFFFF, # c\n]}]}",
                                &lenient);

                g_assert_cmpint(c1->state, ==, RC_FILE_BROKEN); /* "a" is not a rule, but the syntax is fine */
                g_assert_true(test_has_diag(&c1->diagnostics, RC_SEVERITY_WARNING, 1, 15, "trailing comma"));
                g_assert_false(test_has_diag(&c1->diagnostics, RC_SEVERITY_ERROR, 0, 0, "JSON syntax"));
                g_assert_cmpint(c2->state, ==, RC_FILE_LOADED);
                g_assert_cmpuint(c2->profiles[0].settings[0].value.unsigned_integer, ==, UINT64_MAX);
        }
}

/* Case 6: not JSON at all, and a fragment without a root object. */
static void test_not_json(void)
{
        g_autoptr(RcFile) kv = test_parse("GLShaderDiskCacheSize=17179869184\n");
        g_autoptr(RcFile) frag = test_parse("{\"pattern\": \"a\", \"profile\": \"p\"},\n{\"pattern\": \"b\"}\n");
        g_autoptr(RcFile) missing_comma = test_parse("{\"rules\": [\n {\"pattern\": \"a\", \"profile\": \"p\"}\n "
                                                     "{\"pattern\": \"b\", \"profile\": \"p\"}\n]}");

        assert_error_at(kv, 1, 1, "unexpected 'GLShaderDiskCacheSize'");
        assert_error_at(frag, 1, 33, "after the end of the root object");
        assert_error_at(missing_comma, 3, 2, "missing comma");
}

/* Case 7: duplicate member names: warned about, the last one wins (as in json-c and jansson). */
static void test_duplicate_members(void)
{
        g_autoptr(RcFile) f = test_parse("{\"rules\": [{\n"
                                         "  \"pattern\": \"a\", \"profile\": \"p1\",\n"
                                         "  \"pattern\": \"b\", \"profile\": \"p2\",\n"
                                         "  \"pattern\": \"c\", \"profile\": \"p3\"\n"
                                         "}]}");

        g_assert_cmpint(f->state, ==, RC_FILE_LOADED);
        g_assert_cmpuint(f->n_rules, ==, 1);
        g_assert_cmpstr(f->rules[0].pattern.matches, ==, "c");
        g_assert_cmpstr(f->rules[0].profile_name, ==, "p3");
        /* The pattern's location is the winning (last) one. */
        g_assert_cmpuint(f->rules[0].pattern.location.line, ==, 4);
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_WARNING, 4, 3, "\"pattern\" appears 3 times"));
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_WARNING, 4, 19, "\"profile\" appears 3 times"));
}

/* Case 8: single-quoted member names are part of the README grammar; single-quoted values are not. */
static void test_single_quotes(void)
{
        g_autoptr(RcFile) keys = test_parse("{'rules': [{'pattern': \"x\", 'profile': \"p\"}]}");
        g_autoptr(RcFile) values = test_parse("{\"rules\": [{\"pattern\": 'x', \"profile\": \"p\"}]}");

        assert_loaded(keys);
        g_assert_cmpuint(keys->n_rules, ==, 1);
        /* The first one, for the doctor; a file without them records none. */
        g_assert_cmpuint(keys->portability.single_quote_line, ==, 1);
        g_assert_cmpuint(keys->portability.single_quote_column, ==, 2);
        g_assert_cmpuint(keys->portability.trailing_comma_line, ==, 0);
        g_assert_cmpstr(keys->rules[0].pattern.matches, ==, "x");
        assert_error_at(values, 1, 24, "single-quoted");
}

/* Things json-c would accept but rc files do not have. */
static void test_not_rc_syntax(void)
{
        g_autoptr(RcFile) slash = test_parse("{\n  // comment\n  \"rules\": []\n}");
        g_autoptr(RcFile) block = test_parse("{ /* c */ }");
        g_autoptr(RcFile) nul = test_parse_opts("{}", NULL);
        g_autoptr(RcFile) unterminated = test_parse("{\"rules\": [\"abc]}");
        g_autoptr(RcFile) unclosed = test_parse("{\"rules\": [\n");
        RcFile *with_nul = NULL;

        assert_error_at(slash, 2, 3, "comments start with '#'");
        assert_error_at(block, 1, 3, "comments start with '#'");
        assert_loaded(nul);
        assert_error_at(unterminated, 1, 12, "not terminated");
        assert_error_at(unclosed, 1, 11, "not closed");

        g_assert_cmpint(rc_file_parse("nul.rc", "{\"a\"\0:1}", 9, NULL, &with_nul), ==, 0);
        assert_error_at(with_nul, 1, 0, "NUL");
        rc_file_unref(with_nul);
}

/* Errors json-c finds are mapped back to the original line and column, even after rewrites. */
static void test_jsonc_error_positions(void)
{
        g_autoptr(RcFile) escape = test_parse(
                        "# comment\n"
                        "{\"profiles\": [{\"name\": \"p\", \"settings\": [\"k\", 0xFFFFFFFFFFFFFFFF, \"v\", \"a\\qb\"]}]}");

        /* "\q" sits after a hex number that grew by two bytes; the error points into the original. */
        test_dump_diags("escape", &escape->diagnostics);
        g_assert_cmpint(escape->state, ==, RC_FILE_BROKEN);
        g_assert_true(test_has_diag(&escape->diagnostics, RC_SEVERITY_ERROR, 2, 0, "JSON syntax error"));
        g_assert_cmpuint(escape->diagnostics.items[0].column, >=, 73);
        g_assert_cmpuint(escape->diagnostics.items[0].column, <=, 76);
}

/* Strings must be valid UTF-8 (they end up in D-Bus messages); the error points at the bad byte. */
static void test_utf8(void)
{
        static const char *const bad[] = {
                "\xff", /* never valid */
                "\xc0\xaf", /* overlong '/' */
                "\xed\xa0\x80", /* a surrogate */
                "\xe2\x82", /* truncated */
                "\xf4\x90\x80\x80", /* above U+10FFFF */
        };
        g_autoptr(RcFile) ok = test_parse(
                        "{\"rules\": [{\"pattern\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xae\", \"profile\": \"p\"}]}");

        assert_loaded(ok);
        g_assert_cmpstr(ok->rules[0].pattern.matches, ==, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xae");
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                g_autofree char *text =
                                g_strdup_printf("{\"rules\": [{\"pattern\": \"x%s\", \"profile\": \"p\"}]}", bad[i]);
                g_autoptr(RcFile) f = test_parse(text);
                assert_error_at(f, 1, 26, "invalid UTF-8");
        }
}

static void test_depth(void)
{
        g_autoptr(GString) ok = g_string_new("{\"rules\": [{\"pattern\": ");
        g_autoptr(GString) deep = NULL;
        g_autoptr(RcFile) fok = NULL, fdeep = NULL;

        /* Root, rules, rule: 3 levels; each op adds an object and its sub array. */
        for (int i = 0; i < 14; i++)
                g_string_append(ok, "{\"op\": \"not\", \"sub\": [");
        deep = g_string_new(ok->str);
        g_string_append(ok, "\"x\"");
        for (int i = 0; i < 14; i++)
                g_string_append(ok, "]}");
        g_string_append(ok, ", \"profile\": \"p\"}]}");
        fok = test_parse(ok->str);
        assert_loaded(fok);

        g_string_append(deep, "{\"op\": \"not\", \"sub\": [\"x\"]}");
        for (int i = 0; i < 14; i++)
                g_string_append(deep, "]}");
        g_string_append(deep, ", \"profile\": \"p\"}]}");
        fdeep = test_parse(deep->str);
        assert_error_at(fdeep, 1, 0, "nesting deeper than 32");
}

static void test_bom(void)
{
        g_autoptr(RcFile) f = test_parse("\xef\xbb\xbf{\"rules\": []}");

        g_assert_cmpint(f->state, ==, RC_FILE_LOADED);
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_WARNING, 1, 1, "byte-order mark"));
}

static void test_size_limit(void)
{
        size_t n = RC_FILE_SIZE_MAX + 2;
        g_autofree char *big = g_malloc(n + 1);
        RcFile *f = NULL;

        memset(big, ' ', n);
        big[0] = '{';
        big[n - 1] = '}';
        big[n] = '\0';
        g_assert_cmpint(rc_file_parse("big.rc", big, n, NULL, &f), ==, 0);
        g_assert_cmpint(f->state, ==, RC_FILE_BROKEN);
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_ERROR, 0, 0, "larger than"));
        rc_file_unref(f);
}

/* Every value's byte span is in the original text: comments blanked and hex integers (which the
 * pre-pass rewrites, some longer) do not move them. */
static void test_value_spans(void)
{
        static const char text[] =
                        "# c\n{\"a\": 0xFFFFFFFFFFFFFFFF, # x\n \"b\": [\"s\\\"\", true, -0.5e3, {}], 'c': 017}";
        static const char *const spans[] = {
                NULL,
                "0xFFFFFFFFFFFFFFFF",
                "[\"s\\\"\", true, -0.5e3, {}]",
                "\"s\\\"\"",
                "true",
                "-0.5e3",
                "{}",
                "017",
        };
        RcDiagnostics diags = { 0 };
        RcDocument doc;

        g_assert_cmpint(rc_document_parse(text, strlen(text), NULL, &diags, &doc), ==, 0);
        g_assert_cmpuint(doc.n_nodes, ==, G_N_ELEMENTS(spans));
        g_assert_cmpuint(doc.nodes[0].offset, ==, 4);
        g_assert_cmpuint(doc.nodes[0].end, ==, strlen(text));
        for (size_t i = 1; i < doc.n_nodes; i++) {
                g_autofree char *span = g_strndup(text + doc.nodes[i].offset, doc.nodes[i].end - doc.nodes[i].offset);
                g_assert_cmpstr(span, ==, spans[i]);
        }
        rc_document_done(&doc);
        rc_diagnostics_done(&diags);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/rc-reader/comments", test_comments);
        g_test_add_func("/rc-reader/integers", test_integers);
        g_test_add_func("/rc-reader/bad-integers", test_bad_integers);
        g_test_add_func("/rc-reader/whitespace", test_whitespace);
        g_test_add_func("/rc-reader/root", test_root);
        g_test_add_func("/rc-reader/trailing-comma", test_trailing_comma);
        g_test_add_func("/rc-reader/not-json", test_not_json);
        g_test_add_func("/rc-reader/duplicate-members", test_duplicate_members);
        g_test_add_func("/rc-reader/single-quotes", test_single_quotes);
        g_test_add_func("/rc-reader/not-rc-syntax", test_not_rc_syntax);
        g_test_add_func("/rc-reader/jsonc-error-positions", test_jsonc_error_positions);
        g_test_add_func("/rc-reader/utf8", test_utf8);
        g_test_add_func("/rc-reader/depth", test_depth);
        g_test_add_func("/rc-reader/bom", test_bom);
        g_test_add_func("/rc-reader/size-limit", test_size_limit);
        g_test_add_func("/rc-reader/value-spans", test_value_spans);
        return g_test_run();
}
