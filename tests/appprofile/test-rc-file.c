/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rc structure: ../shared/docs/appprofiles.md §8 "Structure" (cases 9-12) and the model's decisions. */

#include "test-util.h"

static RcFile *parse_ok(const char *text)
{
        RcFile *f = test_parse(text);
        test_dump_diags(f->path, &f->diagnostics);
        g_assert_cmpint(f->state, ==, RC_FILE_LOADED);
        return f;
}

static void assert_broken(const char *text, uint32_t line, uint32_t column, const char *needle)
{
        g_autoptr(RcFile) f = test_parse(text);
        test_dump_diags(f->path, &f->diagnostics);
        g_assert_cmpint(f->state, ==, RC_FILE_BROKEN);
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_ERROR, line, column, needle));
        g_assert_cmpuint(f->n_rules, ==, 0);
        g_assert_cmpuint(f->n_profiles, ==, 0);
}

/* Case 9: pattern forms. */
static void test_pattern_forms(void)
{
        g_autoptr(RcFile) f = parse_ok(
                        "{\"rules\": [\n"
                        " {\"pattern\": \"foo\", \"profile\": \"p\"},\n"
                        " {\"pattern\": {\"feature\": \"dso\", \"matches\": \"libx\"}, \"profile\": \"p\"},\n"
                        " {\"pattern\": [], \"profile\": \"p\"},\n"
                        " {\"pattern\": [{\"feature\": \"procname\", \"matches\": \"a\"},\n"
                        "              {\"op\": \"not\", \"sub\": {\"feature\": \"findfile\", \"matches\": \"b:c\"}}],\n"
                        "  \"profile\": \"p\"}\n"
                        "]}");
        const RcRule *r = f->rules;

        g_assert_cmpuint(f->n_rules, ==, 4);
        g_assert_cmpint(r[0].pattern.kind, ==, RC_PATTERN_MATCH);
        g_assert_cmpint(r[0].pattern.feature, ==, RC_FEATURE_PROCNAME);
        g_assert_true(r[0].pattern.shorthand);
        g_assert_cmpstr(r[0].pattern.matches, ==, "foo");
        g_assert_cmpint(r[1].pattern.feature, ==, RC_FEATURE_DSO);
        g_assert_true(r[1].uses_dso);
        g_assert_false(r[0].uses_dso);
        g_assert_cmpint(r[2].pattern.kind, ==, RC_PATTERN_AND);
        g_assert_cmpuint(r[2].pattern.n_sub, ==, 0);
        g_assert_cmpint(r[3].pattern.kind, ==, RC_PATTERN_AND);
        g_assert_cmpuint(r[3].pattern.n_sub, ==, 2);
        g_assert_cmpint(r[3].pattern.sub[1].kind, ==, RC_PATTERN_NOT);
        g_assert_cmpuint(r[3].pattern.sub[1].n_sub, ==, 1);
        g_assert_cmpint(r[3].pattern.sub[1].sub[0].feature, ==, RC_FEATURE_FINDFILE);
        /* Rule and pattern locations. */
        g_assert_cmpuint(r[3].location.line, ==, 5);
        g_assert_cmpuint(r[3].location.column, ==, 2);
        g_assert_cmpuint(r[3].pattern.sub[1].location.line, ==, 6);
        g_assert_cmpuint(r[3].pattern.sub[1].location.column, ==, 15);
        g_assert_cmpuint(r[3].index, ==, 3);
}

/* Case 10: profile forms and settings forms with every value type. */
static void test_profile_forms(void)
{
        g_autoptr(RcFile) f = parse_ok(
                        "{\"rules\": [\n"
                        " {\"pattern\": \"a\", \"profile\": \"named\"},\n"
                        " {\"pattern\": \"b\", \"profile\": [\"k1\", \"s\", \"k2\", 3, \"k3\", 2.5, \"k4\", true, \"k5\", false, \"k6\", 0xF00D]},\n"
                        " {\"pattern\": \"c\", \"profile\": {\"name\": \"inl\", \"settings\": [{\"k\": \"a\", \"v\": 1}, {\"key\": \"b\", \"value\": 2}, {\"k\": \"c\", \"value\": 3}]}},\n"
                        " {\"pattern\": \"d\", \"profile\": {\"settings\": []}}\n"
                        "]}");
        const RcProfile *flat, *inl, *anon;

        g_assert_cmpuint(f->n_rules, ==, 4);
        g_assert_cmpstr(f->rules[0].profile_name, ==, "named");
        g_assert_null(f->rules[0].inline_profile);

        flat = f->rules[1].inline_profile;
        g_assert_nonnull(flat);
        g_assert_null(flat->name);
        g_assert_cmpuint(flat->n_settings, ==, 6);
        g_assert_cmpint(flat->settings[0].value.type, ==, RC_VALUE_STRING);
        g_assert_cmpint(flat->settings[1].value.type, ==, RC_VALUE_INTEGER);
        g_assert_cmpint(flat->settings[2].value.type, ==, RC_VALUE_REAL);
        g_assert_cmpint(flat->settings[3].value.type, ==, RC_VALUE_BOOLEAN);
        g_assert_true(flat->settings[3].value.boolean);
        g_assert_false(flat->settings[4].value.boolean);
        g_assert_cmpint(flat->settings[5].value.integer, ==, 0xF00D);
        g_assert_cmpuint(flat->settings[1].location.line, ==, 3);
        g_assert_cmpuint(flat->settings[1].location.column, ==, 42); /* the key "k2" */

        inl = f->rules[2].inline_profile;
        g_assert_cmpstr(inl->name, ==, "inl");
        g_assert_cmpuint(inl->n_settings, ==, 3);
        g_assert_cmpstr(inl->settings[0].key, ==, "a");
        g_assert_cmpstr(inl->settings[1].key, ==, "b");
        g_assert_cmpint(inl->settings[2].value.integer, ==, 3);

        anon = f->rules[3].inline_profile;
        g_assert_null(anon->name);
        g_assert_cmpuint(anon->n_settings, ==, 0);
}

static void test_settings_errors(void)
{
        assert_broken("{\"profiles\": [{\"name\": \"p\", \"settings\": [\"a\", 1, \"b\"]}]}", 1, 41, "odd number");
        assert_broken("{\"profiles\": [{\"name\": \"p\", \"settings\": [1, 1]}]}", 1, 42,
                        "setting key must be a string");
        assert_broken("{\"profiles\": [{\"name\": \"p\", \"settings\": [\"a\", {}]}]}", 1, 47,
                        "must be a string, number");
        assert_broken("{\"profiles\": [{\"name\": \"p\", \"settings\": [\"a\", []]}]}", 1, 47,
                        "must be a string, number");
        assert_broken("{\"profiles\": [{\"name\": \"p\", \"settings\": [\"a\", null]}]}", 1, 47,
                        "must be a string, number");
        assert_broken("{\"profiles\": [{\"name\": \"p\", \"settings\": [{\"k\": \"a\", \"v\": 1}, \"b\", 2]}]}", 1, 0,
                        "not a mix");
        assert_broken("{\"profiles\": [{\"name\": \"p\", \"settings\": [\"b\", 2, {\"k\": \"a\", \"v\": 1}, 3]}]}", 1,
                        0, "not a mix");
        assert_broken("{\"profiles\": [{\"name\": \"p\", \"settings\": [{\"v\": 1}]}]}", 1, 42, "no \"key\"");
        assert_broken("{\"profiles\": [{\"name\": \"p\", \"settings\": [{\"k\": \"a\"}]}]}", 1, 42, "no \"value\"");
        assert_broken("{\"profiles\": [{\"name\": \"p\", \"settings\": {}}]}", 1, 41, "must be an array");
        assert_broken("{\"profiles\": [{\"name\": \"p\", \"settings\": [\"a\\u0000b\", 1]}]}", 1, 42, "NUL");
}

/* Case 11: names. */
static void test_profile_errors(void)
{
        assert_broken("{\"profiles\": [{\"settings\": []}]}", 1, 15, "no \"name\"");
        assert_broken("{\"profiles\": [{\"name\": 3, \"settings\": []}]}", 1, 24, "must be a string");
        assert_broken("{\"profiles\": [{\"name\": \"p\"}]}", 1, 15, "no \"settings\"");
        assert_broken("{\"profiles\": [\"p\"]}", 1, 15, "must be an object");
        assert_broken("{\"rules\": [{\"pattern\": \"a\", \"profile\": {\"name\": 1, \"settings\": []}}]}", 1, 49,
                        "must be a string");
        assert_broken("{\"rules\": [{\"pattern\": \"a\", \"profile\": 5}]}", 1, 40, "\"profile\" must be");
        assert_broken("{\"rules\": [{\"pattern\": \"a\"}]}", 1, 12, "no \"profile\"");
        assert_broken("{\"rules\": [{\"profile\": \"a\"}]}", 1, 12, "no \"pattern\"");
        assert_broken("{\"rules\": [\"a\"]}", 1, 12, "rule must be an object");
}

/* Case 12 and the pattern errors. */
static void test_pattern_errors(void)
{
        g_autoptr(RcFile) tr = parse_ok(
                        "{\"rules\": [{\"pattern\": {\"feature\": \"true\"}, \"profile\": \"p\"},"
                        " {\"pattern\": {\"feature\": \"true\", \"matches\": \"foobar\"}, \"profile\": \"p\"}]}");
        g_assert_cmpuint(tr->n_rules, ==, 2);
        g_assert_null(tr->rules[0].pattern.matches);
        g_assert_cmpint(tr->rules[0].pattern.feature, ==, RC_FEATURE_TRUE);

        assert_broken("{\"rules\": [{\"pattern\": {\"feature\": \"procname\"}, \"profile\": \"p\"}]}", 1, 24,
                        "no \"matches\"");
        assert_broken("{\"rules\": [{\"pattern\": {\"matches\": \"x\"}, \"profile\": \"p\"}]}", 1, 24, "neither");
        assert_broken("{\"rules\": [{\"pattern\": {\"op\": \"or\", \"feature\": \"true\", \"sub\": []}, \"profile\": \"p\"}]}",
                        1, 24, "both");
        assert_broken("{\"rules\": [{\"pattern\": {\"op\": \"or\"}, \"profile\": \"p\"}]}", 1, 24, "no \"sub\"");
        assert_broken("{\"rules\": [{\"pattern\": {\"op\": 1, \"sub\": []}, \"profile\": \"p\"}]}", 1, 31,
                        "\"op\" must be a string");
        assert_broken("{\"rules\": [{\"pattern\": 3, \"profile\": \"p\"}]}", 1, 24, "pattern must be");
        assert_broken("{\"rules\": [{\"pattern\": [[]], \"profile\": \"p\"}]}", 1, 25, "cannot contain another array");
        assert_broken("{\"rules\": [{\"pattern\": {\"feature\": 1, \"matches\": \"x\"}, \"profile\": \"p\"}]}", 1, 36,
                        "\"feature\" must be");
}

static void test_pattern_warnings(void)
{
        g_autoptr(RcFile) f = parse_ok(
                        "{\"rules\": [\n"
                        " {\"pattern\": {\"feature\": \"exename\", \"matches\": \"x\"}, \"profile\": \"p\"},\n"
                        " {\"pattern\": {\"op\": \"xor\", \"sub\": []}, \"profile\": \"p\"},\n"
                        " {\"pattern\": {\"op\": \"not\", \"sub\": [\"a\", \"b\"]}, \"profile\": \"p\"},\n"
                        " {\"pattern\": {\"op\": \"or\", \"sub\": []}, \"profile\": \"p\"},\n"
                        " {\"pattern\": {\"feature\": \"commname\", \"matches\": \"abcdefghijklmnopq\"}, \"profile\": \"p\"},\n"
                        " {\"pattern\": {\"feature\": \"findfile\", \"matches\": \"a::../b\"}, \"profile\": \"p\"},\n"
                        " {\"pattern\": \"a\", \"profile\": \"p\", \"comment\": \"x\"}\n"
                        "]}");

        g_assert_cmpuint(f->n_rules, ==, 7);
        g_assert_cmpint(f->rules[0].pattern.feature, ==, RC_FEATURE_UNKNOWN);
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_WARNING, 2, 14, "unknown feature \"exename\""));
        g_assert_cmpint(f->rules[1].pattern.kind, ==, RC_PATTERN_UNKNOWN_OP);
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_WARNING, 3, 21, "unknown op \"xor\""));
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_WARNING, 4, 14, "\"not\" with 2 operands"));
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_WARNING, 5, 14, "\"or\" with no operands never"));
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_WARNING, 6, 14, "longer than 15"));
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_WARNING, 7, 14, "empty name"));
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_WARNING, 7, 14, "\"../b\" is not a plain file name"));
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_WARNING, 8, 35, "unknown member \"comment\""));
        g_assert_cmpuint(f->diagnostics.n_errors, ==, 0);
}

static void test_unknown_root_member_and_many_errors(void)
{
        g_autoptr(RcFile) f = test_parse("{\"rulez\": [], \"rules\": [\"a\", \"b\"], \"profiles\": [1, 2]}");

        /* Every error is reported, not only the first. */
        g_assert_cmpint(f->state, ==, RC_FILE_BROKEN);
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_WARNING, 1, 2, "unknown member \"rulez\""));
        g_assert_cmpuint(f->diagnostics.n_errors, ==, 4);
}

static void test_value_format(void)
{
        static const struct {
                RcValue v;
                const char *s;
        } cases[] = {
                { { .type = RC_VALUE_STRING, .string = "DP-3" }, "\"DP-3\"" },
                { { .type = RC_VALUE_INTEGER, .integer = -16 }, "-16" },
                { { .type = RC_VALUE_UNSIGNED, .unsigned_integer = UINT64_MAX }, "18446744073709551615" },
                { { .type = RC_VALUE_REAL, .real = 0.5 }, "0.5" },
                { { .type = RC_VALUE_BOOLEAN, .boolean = false }, "false" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                g_autofree char *s = NULL;
                g_assert_cmpint(rc_value_format(&cases[i].v, &s), ==, 0);
                g_assert_cmpstr(s, ==, cases[i].s);
        }
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/rc-file/pattern-forms", test_pattern_forms);
        g_test_add_func("/rc-file/profile-forms", test_profile_forms);
        g_test_add_func("/rc-file/settings-errors", test_settings_errors);
        g_test_add_func("/rc-file/profile-errors", test_profile_errors);
        g_test_add_func("/rc-file/pattern-errors", test_pattern_errors);
        g_test_add_func("/rc-file/pattern-warnings", test_pattern_warnings);
        g_test_add_func("/rc-file/many-errors", test_unknown_root_member_and_many_errors);
        g_test_add_func("/rc-file/value-format", test_value_format);
        return g_test_run();
}
