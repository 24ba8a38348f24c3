/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Span edits of rc files (rc-edit.h): exact texts for the comma, layout and new-file cases, refusals of
 * injected text and of broken files, the diff, and every corpus file (read in place) edited in every way
 * with the bytes outside the edited element checked to be untouched. */

#include "rc-edit.h"
#include "rc-format.h"
#include "strv.h"
#include "test-util.h"

/* Applies edit to text and returns the result, asserting success. */
static char *edit_ok(const char *text, const RcEdit *edit)
{
        RcDiagnostics diags = { 0 };
        char *out = NULL;
        size_t size = 0;
        int r;

        r = rc_edit_apply("test.rc", text, text ? strlen(text) : 0, edit, &diags, &out, &size);
        test_dump_diags("test.rc", &diags);
        rc_diagnostics_done(&diags);
        g_assert_cmpint(r, ==, 0);
        g_assert_nonnull(out);
        g_assert_cmpuint(size, ==, strlen(out));
        return out;
}

/* Applies edit to text, asserting that it fails with error and says why. */
static void edit_fails(const char *text, const RcEdit *edit, int error)
{
        RcDiagnostics diags = { 0 };
        char *out = NULL;
        int r;

        r = rc_edit_apply("test.rc", text, text ? strlen(text) : 0, edit, &diags, &out, NULL);
        test_dump_diags("test.rc", &diags);
        g_assert_cmpint(r, ==, error);
        g_assert_null(out);
        g_assert_cmpuint(diags.n_errors, >, 0);
        rc_diagnostics_done(&diags);
}

static void assert_edit(const char *text, const RcEdit *edit, const char *expected)
{
        g_autofree char *out = edit_ok(text, edit);
        g_assert_cmpstr(out, ==, expected);
}

#define REMOVE_RULE(i) (&(RcEdit){ .operation = RC_EDIT_REMOVE_RULE, .index = (i) })

static const char lines3[] = "{\n"
                             "    \"rules\": [\n"
                             "        { \"pattern\": \"a\", \"profile\": \"P\" },\n"
                             "        # about b\n"
                             "        { \"pattern\": \"b\", \"profile\": \"P\" },\n"
                             "        { \"pattern\": \"c\", \"profile\": \"P\" }\n"
                             "    ]\n"
                             "}\n";

/* Removing the first, a middle, the last and the only element: its comma and its line go, comments on
 * other lines stay. */
static void test_remove_lines(void)
{
        assert_edit(lines3, REMOVE_RULE(0),
                        "{\n"
                        "    \"rules\": [\n"
                        "        # about b\n"
                        "        { \"pattern\": \"b\", \"profile\": \"P\" },\n"
                        "        { \"pattern\": \"c\", \"profile\": \"P\" }\n"
                        "    ]\n"
                        "}\n");
        assert_edit(lines3, REMOVE_RULE(1),
                        "{\n"
                        "    \"rules\": [\n"
                        "        { \"pattern\": \"a\", \"profile\": \"P\" },\n"
                        "        # about b\n"
                        "        { \"pattern\": \"c\", \"profile\": \"P\" }\n"
                        "    ]\n"
                        "}\n");
        assert_edit(lines3, REMOVE_RULE(2),
                        "{\n"
                        "    \"rules\": [\n"
                        "        { \"pattern\": \"a\", \"profile\": \"P\" },\n"
                        "        # about b\n"
                        "        { \"pattern\": \"b\", \"profile\": \"P\" }\n"
                        "    ]\n"
                        "}\n");
        assert_edit("{\n    \"rules\": [\n        { \"pattern\": \"a\", \"profile\": \"P\" }\n    ]\n}\n",
                        REMOVE_RULE(0), "{\n    \"rules\": [\n    ]\n}\n");
}

static void test_remove_inline(void)
{
        static const char three[] = "{\"rules\": [{\"pattern\": \"a\", \"profile\": \"P\"}, {\"pattern\": \"b\", "
                                    "\"profile\": \"P\"}, {\"pattern\": \"c\", \"profile\": \"P\"}]}";

        assert_edit(three, REMOVE_RULE(0),
                        "{\"rules\": [{\"pattern\": \"b\", \"profile\": \"P\"}, {\"pattern\": \"c\", \"profile\": \"P\"}]}");
        assert_edit(three, REMOVE_RULE(1),
                        "{\"rules\": [{\"pattern\": \"a\", \"profile\": \"P\"}, {\"pattern\": \"c\", \"profile\": \"P\"}]}");
        assert_edit(three, REMOVE_RULE(2),
                        "{\"rules\": [{\"pattern\": \"a\", \"profile\": \"P\"}, {\"pattern\": \"b\", \"profile\": \"P\"}]}");
        assert_edit("{\"rules\": [{\"pattern\": \"a\", \"profile\": \"P\"}]}", REMOVE_RULE(0), "{\"rules\": []}");
        /* A comment after the comma stays, on its line. */
        assert_edit("{\"rules\": [\n  {\"pattern\": \"a\", \"profile\": \"P\"}, # a\n  {\"pattern\": \"b\", \"profile\": "
                    "\"P\"}\n]}",
                        REMOVE_RULE(0), "{\"rules\": [\n  # a\n  {\"pattern\": \"b\", \"profile\": \"P\"}\n]}");
        assert_edit("{\"rules\": [\n  {\"pattern\": \"a\", \"profile\": \"P\"}, # a\n  {\"pattern\": \"b\", \"profile\": "
                    "\"P\"}\n]}",
                        REMOVE_RULE(1), "{\"rules\": [\n  {\"pattern\": \"a\", \"profile\": \"P\"} # a\n]}");
}

#define ADD_RULE_AT(i, pat, prof) \
        (&(RcEdit){ .operation = RC_EDIT_ADD_RULE, .index = (i), .pattern = (pat), .profile = (prof) })

/* A new rule takes its siblings' layout: a line of its own with their indentation, or inline. */
static void test_add_follows_layout(void)
{
        assert_edit(lines3, ADD_RULE_AT(SIZE_MAX, "\"d\"", "Q"),
                        "{\n"
                        "    \"rules\": [\n"
                        "        { \"pattern\": \"a\", \"profile\": \"P\" },\n"
                        "        # about b\n"
                        "        { \"pattern\": \"b\", \"profile\": \"P\" },\n"
                        "        { \"pattern\": \"c\", \"profile\": \"P\" },\n"
                        "        { \"pattern\": \"d\", \"profile\": \"Q\" }\n"
                        "    ]\n"
                        "}\n");
        assert_edit(lines3, ADD_RULE_AT(0, "\"d\"", "Q"),
                        "{\n"
                        "    \"rules\": [\n"
                        "        { \"pattern\": \"d\", \"profile\": \"Q\" },\n"
                        "        { \"pattern\": \"a\", \"profile\": \"P\" },\n"
                        "        # about b\n"
                        "        { \"pattern\": \"b\", \"profile\": \"P\" },\n"
                        "        { \"pattern\": \"c\", \"profile\": \"P\" }\n"
                        "    ]\n"
                        "}\n");
        assert_edit("{\"rules\": [{\"pattern\": \"a\", \"profile\": \"P\"}]}", ADD_RULE_AT(1, "\"d\"", "Q"),
                        "{\"rules\": [{\"pattern\": \"a\", \"profile\": \"P\"}, { \"pattern\": \"d\", \"profile\": \"Q\" }]}");
        /* " : " as the file writes it; tabs; CRLF line ends. */
        assert_edit("{\r\n\t\"rules\" : [\r\n\t\t{ \"pattern\" : \"a\", \"profile\" : \"P\" }\r\n\t]\r\n}\r\n",
                        ADD_RULE_AT(SIZE_MAX, "\"d\"", "Q"),
                        "{\r\n\t\"rules\" : [\r\n\t\t{ \"pattern\" : \"a\", \"profile\" : \"P\" },\r\n"
                        "\t\t{ \"pattern\" : \"d\", \"profile\" : \"Q\" }\r\n\t]\r\n}\r\n");
        /* A comment after the last rule stays on its line. */
        assert_edit("{\"rules\": [\n  {\"pattern\": \"a\", \"profile\": \"P\"} # a\n]}",
                        ADD_RULE_AT(SIZE_MAX, "\"d\"", "Q"),
                        "{\"rules\": [\n  {\"pattern\": \"a\", \"profile\": \"P\"}, # a\n  { \"pattern\": \"d\", \"profile\": "
                        "\"Q\" }\n]}");
}

/* A rule added where there is no rule yet still gives valid rc. */
static void test_add_to_empty(void)
{
        assert_edit("{\n    \"rules\": []\n}\n", ADD_RULE_AT(SIZE_MAX, "\"d\"", "Q"),
                        "{\n    \"rules\": [\n        { \"pattern\": \"d\", \"profile\": \"Q\" }\n    ]\n}\n");
        assert_edit("{\n    \"profiles\": []\n}\n", ADD_RULE_AT(SIZE_MAX, "\"d\"", "Q"),
                        "{\n    \"profiles\": [],\n    \"rules\": [\n        { \"pattern\": \"d\", \"profile\": \"Q\" }\n    "
                        "]\n}\n");
        assert_edit("{}", ADD_RULE_AT(0, "\"d\"", "Q"),
                        "{\n    \"rules\": [\n        { \"pattern\": \"d\", \"profile\": \"Q\" }\n    ]\n}");
        assert_edit("{ \"x\": 1 }", ADD_RULE_AT(0, "\"d\"", "Q"),
                        "{ \"x\": 1, \"rules\": [{ \"pattern\": \"d\", \"profile\": \"Q\" }] }");
        assert_edit("# only a comment\n{\n}\n", ADD_RULE_AT(SIZE_MAX, "\"d\"", "Q"),
                        "# only a comment\n{\n    \"rules\": [\n        { \"pattern\": \"d\", \"profile\": \"Q\" }\n    ]\n}\n");
}

/* A file that does not exist yet gets a header and one rule or profile. */
static void test_new_file(void)
{
        static const RcEditSetting set[] = { { "GLVidHeapReuseRatio", "0" } };
        g_autofree char *out = NULL;
        g_autoptr(RcFile) f = NULL;

        assert_edit(NULL, ADD_RULE_AT(SIZE_MAX, "{\"feature\": \"procname\", \"matches\": \"niri\"}", "P"),
                        "# NVIDIA application profiles, written by nvprofilectl/nvprofiled.\n"
                        "# This file may be edited by hand; later edits keep comments and layout.\n"
                        "{\n"
                        "    \"rules\": [\n"
                        "        { \"pattern\": {\"feature\": \"procname\", \"matches\": \"niri\"}, \"profile\": \"P\" }\n"
                        "    ]\n"
                        "}\n");
        out = edit_ok(NULL,
                        &(RcEdit){ .operation = RC_EDIT_ADD_PROFILE,
                                        .profile = "P",
                                        .settings = set,
                                        .n_settings = 1 });
        g_assert_nonnull(strstr(out,
                        "{ \"name\": \"P\", \"settings\": [{ \"key\": \"GLVidHeapReuseRatio\", \"value\": 0 }] }"));
        f = test_parse(out);
        g_assert_cmpint(f->state, ==, RC_FILE_LOADED);
        g_assert_cmpuint(f->n_profiles, ==, 1);

        edit_fails(NULL, REMOVE_RULE(0), -ENOENT);
        edit_fails(NULL,
                        &(RcEdit){ .operation = RC_EDIT_UPDATE_PROFILE,
                                        .profile = "P",
                                        .settings = set,
                                        .n_settings = 1 },
                        -ENOENT);
}

/* An inline profile: written in the rule; its settings set, added and removed in its own form. */
static void test_inline_profile(void)
{
        static const RcEditSetting two[] = { { "GLVidHeapReuseRatio", "0" }, { "GLShowGraphicsOSD", "false" } };
        static const RcEditSetting reset[] = { { "GLVidHeapReuseRatio", "0x10" } };
        static const RcEditSetting add[] = { { "GLSyncToVblank", "true" } };
        static char *const unset[] = { (char *) "GLShowGraphicsOSD" };
        static const char flat[] = "{\"rules\": [{\"pattern\": \"a\", \"profile\": [\"GLVidHeapReuseRatio\", 1, "
                                   "\"GLShowGraphicsOSD\", false]}]}";
        static const char objects[] =
                        "{\n  \"rules\": [\n    {\n      \"pattern\": \"a\",\n      \"profile\": {\n"
                        "        \"settings\": [\n          {\n            \"k\" : \"GLShowGraphicsOSD\",\n"
                        "            \"v\" : 0x1\n          }\n        ]\n      }\n    }\n  ]\n}\n";

        assert_edit("{\"rules\": []}",
                        &(RcEdit){ .operation = RC_EDIT_ADD_RULE,
                                        .index = SIZE_MAX,
                                        .pattern = "\"a\"",
                                        .settings = two,
                                        .n_settings = 2 },
                        "{\"rules\": [{ \"pattern\": \"a\", \"profile\": { \"settings\": [{ \"key\": "
                        "\"GLVidHeapReuseRatio\", \"value\": 0 }, { \"key\": \"GLShowGraphicsOSD\", \"value\": false }] "
                        "} }]}");
        assert_edit(flat, &(RcEdit){ .operation = RC_EDIT_UPDATE_RULE, .settings = reset, .n_settings = 1 },
                        "{\"rules\": [{\"pattern\": \"a\", \"profile\": [\"GLVidHeapReuseRatio\", 0x10, "
                        "\"GLShowGraphicsOSD\", false]}]}");
        assert_edit(flat, &(RcEdit){ .operation = RC_EDIT_UPDATE_RULE, .settings = add, .n_settings = 1 },
                        "{\"rules\": [{\"pattern\": \"a\", \"profile\": [\"GLVidHeapReuseRatio\", 1, "
                        "\"GLShowGraphicsOSD\", false, \"GLSyncToVblank\", true]}]}");
        assert_edit(flat, &(RcEdit){ .operation = RC_EDIT_UPDATE_RULE, .unset = unset, .n_unset = 1 },
                        "{\"rules\": [{\"pattern\": \"a\", \"profile\": [\"GLVidHeapReuseRatio\", 1]}]}");
        /* A new setting object copies its sibling's layout and member names. */
        assert_edit(objects, &(RcEdit){ .operation = RC_EDIT_UPDATE_RULE, .settings = add, .n_settings = 1 },
                        "{\n  \"rules\": [\n    {\n      \"pattern\": \"a\",\n      \"profile\": {\n"
                        "        \"settings\": [\n          {\n            \"k\" : \"GLShowGraphicsOSD\",\n"
                        "            \"v\" : 0x1\n          },\n          {\n            \"k\" : \"GLSyncToVblank\",\n"
                        "            \"v\" : true\n          }\n        ]\n      }\n    }\n  ]\n}\n");
        assert_edit(objects, &(RcEdit){ .operation = RC_EDIT_UPDATE_RULE, .unset = unset, .n_unset = 1 },
                        "{\n  \"rules\": [\n    {\n      \"pattern\": \"a\",\n      \"profile\": {\n"
                        "        \"settings\": [\n        ]\n      }\n    }\n  ]\n}\n");
        /* Pointing the rule at a named profile replaces the inline one. */
        assert_edit(flat, &(RcEdit){ .operation = RC_EDIT_UPDATE_RULE, .profile = "P" },
                        "{\"rules\": [{\"pattern\": \"a\", \"profile\": \"P\"}]}");

        edit_fails(flat,
                        &(RcEdit){ .operation = RC_EDIT_UPDATE_RULE,
                                        .unset = (char *[]){ (char *) "Nope" },
                                        .n_unset = 1 },
                        -ENOENT);
        edit_fails("{\"rules\": [{\"pattern\": \"a\", \"profile\": \"P\"}]}",
                        &(RcEdit){ .operation = RC_EDIT_UPDATE_RULE, .settings = add, .n_settings = 1 }, -EINVAL);
}

/* The legacy short syntax, "settings": ["0x166c5e", 0], as distributions and gpu-screen-recorder ship
 * CudaNoStablePerfLimit: edits of a file written so keep writing so. */
static void test_legacy_short_syntax(void)
{
        static const RcEditSetting add[] = { { "GLVidHeapReuseRatio", "0" } };
        static const RcEditSetting rename[] = { { "0x166c5e", "0" } };
        static char *const unset[] = { (char *) "CudaNoStablePerfLimit" };
        static const char short_form[] =
                        "{\"rules\": [{\"pattern\": \"obs\", \"profile\": \"CudaNoStablePerfLimit\"}],\n"
                        " \"profiles\": [{\"name\": \"CudaNoStablePerfLimit\", \"settings\": [\"0x166c5e\", 0]}]}\n";
        static const char misnamed[] =
                        "{\"profiles\": [{\"name\": \"P\", \"settings\": [\"CudaNoStablePerfLimit\", 0]}]}\n";

        /* A setting added to the profile. */
        assert_edit(short_form,
                        &(RcEdit){ .operation = RC_EDIT_UPDATE_PROFILE,
                                        .profile = "CudaNoStablePerfLimit",
                                        .settings = add,
                                        .n_settings = 1 },
                        "{\"rules\": [{\"pattern\": \"obs\", \"profile\": \"CudaNoStablePerfLimit\"}],\n"
                        " \"profiles\": [{\"name\": \"CudaNoStablePerfLimit\", \"settings\": [\"0x166c5e\", 0, "
                        "\"GLVidHeapReuseRatio\", 0]}]}\n");
        /* A rule with its own 0x166c5e=0, as "rules add --setting 0x166c5e=0" writes it. */
        assert_edit(short_form,
                        &(RcEdit){ .operation = RC_EDIT_ADD_RULE,
                                        .index = SIZE_MAX,
                                        .pattern = "\"discord\"",
                                        .settings = rename,
                                        .n_settings = 1 },
                        "{\"rules\": [{\"pattern\": \"obs\", \"profile\": \"CudaNoStablePerfLimit\"}, { \"pattern\": "
                        "\"discord\", \"profile\": { \"settings\": [\"0x166c5e\", 0] } }],\n"
                        " \"profiles\": [{\"name\": \"CudaNoStablePerfLimit\", \"settings\": [\"0x166c5e\", 0]}]}\n");
        /* The doctor's fix of the profile's name written as the key: unset it, set the key. */
        assert_edit(misnamed,
                        &(RcEdit){ .operation = RC_EDIT_UPDATE_PROFILE,
                                        .profile = "P",
                                        .settings = rename,
                                        .n_settings = 1,
                                        .unset = unset,
                                        .n_unset = 1 },
                        "{\"profiles\": [{\"name\": \"P\", \"settings\": [\"0x166c5e\", 0]}]}\n");
}

/* Numbers keep their spelling and unknown members stay wherever the edit does not reach. */
static void test_keeps_the_rest(void)
{
        static const RcEditSetting set[] = { { "b", "2" } };
        static const char text[] =
                        "{ \"x-unknown\": 1,\n  \"profiles\": [ { \"name\": \"P\", \"settings\": [ \"a\", 0x1F, "
                        "\"c\", 010 ] } ] # hex and octal\n}\n";

        assert_edit(text,
                        &(RcEdit){ .operation = RC_EDIT_UPDATE_PROFILE,
                                        .profile = "P",
                                        .settings = set,
                                        .n_settings = 1 },
                        "{ \"x-unknown\": 1,\n  \"profiles\": [ { \"name\": \"P\", \"settings\": [ \"a\", 0x1F, "
                        "\"c\", 010, \"b\", 2 ] } ] # hex and octal\n}\n");
        assert_edit(text,
                        &(RcEdit){ .operation = RC_EDIT_UPDATE_PROFILE,
                                        .profile = "P",
                                        .unset = (char *[]){ (char *) "a" },
                                        .n_unset = 1 },
                        "{ \"x-unknown\": 1,\n  \"profiles\": [ { \"name\": \"P\", \"settings\": [ \"c\", 010 ] } ] # hex "
                        "and octal\n}\n");
}

/* Text from the caller is one value, or the edit is refused: nothing can add members, rules or
 * comments, and names are escaped. */
static void test_injection(void)
{
        static const char text[] =
                        "{\"rules\": [{\"pattern\": \"a\", \"profile\": \"P\"}], \"profiles\": [{\"name\": \"P\", "
                        "\"settings\": [\"k\", 1]}]}";
        static const char *const bad_values[] = {
                "1, \"k2\", 2",
                "1 # comment",
                "1]}], \"rules\": [",
                "{\"x\": 1}",
                "null",
                "[1]",
                "'s'",
                "",
                "1 2",
                "\"a\" \"b\"",
        };
        static const char *const bad_patterns[] = {
                "\"a\", \"profile\": \"Q\"}, {\"pattern\": \"b\"",
                "\"a\" # x",
                "\"a\"}]}",
                "5",
                "{\"feature\": \"procname\"}",
                "",
        };
        g_autofree char *out = NULL;
        g_autoptr(RcFile) f = NULL;

        for (size_t i = 0; i < G_N_ELEMENTS(bad_values); i++) {
                RcEditSetting s = { "k", bad_values[i] };
                g_test_message("value %s", bad_values[i]);
                edit_fails(text,
                                &(RcEdit){ .operation = RC_EDIT_UPDATE_PROFILE,
                                                .profile = "P",
                                                .settings = &s,
                                                .n_settings = 1 },
                                -EINVAL);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(bad_patterns); i++) {
                g_test_message("pattern %s", bad_patterns[i]);
                edit_fails(text, ADD_RULE_AT(0, bad_patterns[i], "P"), -EINVAL);
                edit_fails(text, &(RcEdit){ .operation = RC_EDIT_UPDATE_RULE, .pattern = bad_patterns[i] }, -EINVAL);
        }
        edit_fails(text,
                        &(RcEdit){ .operation = RC_EDIT_ADD_RULE,
                                        .index = 0,
                                        .rule_text = "{\"pattern\": \"a\", \"profile\": "
                                                     "\"P\"}, {\"pattern\": \"b\", \"profile\": \"P\"}" },
                        -EINVAL);
        edit_fails(text, ADD_RULE_AT(0, "\"a\"", "\xff"), -EINVAL);
        edit_fails(text, ADD_RULE_AT(0, "\"a\"", ""), -EINVAL);

        /* Quotes, a newline and '#' in names are escaped, and read back as given. */
        out = edit_ok(text, ADD_RULE_AT(0, "\"a\"", "P\", \"x\": \"#\n"));
        g_assert_nonnull(strstr(out, "\"profile\": \"P\\\", \\\"x\\\": \\\"#\\u000a\""));
        f = test_parse(out);
        g_assert_cmpint(f->state, ==, RC_FILE_LOADED);
        g_assert_cmpstr(f->rules[0].profile_name, ==, "P\", \"x\": \"#\n");
        g_assert_cmpuint(f->diagnostics.n_warnings, ==, 0);
}

static void test_errors(void)
{
        static const char text[] =
                        "{\"rules\": [{\"pattern\": \"a\", \"profile\": \"P\"}], \"profiles\": [{\"name\": \"P\", "
                        "\"settings\": [\"k\", 1]}]}";
        static const RcEditSetting set[] = { { "k", "2" } };

        edit_fails(text, &(RcEdit){ .operation = RC_EDIT_ADD_PROFILE, .profile = "P" }, -EEXIST);
        edit_fails(text, &(RcEdit){ .operation = RC_EDIT_REMOVE_PROFILE, .profile = "Q" }, -ENOENT);
        edit_fails(text,
                        &(RcEdit){ .operation = RC_EDIT_UPDATE_PROFILE,
                                        .profile = "Q",
                                        .settings = set,
                                        .n_settings = 1 },
                        -ENOENT);
        edit_fails(text,
                        &(RcEdit){ .operation = RC_EDIT_UPDATE_PROFILE,
                                        .profile = "P",
                                        .unset = (char *[]){ (char *) "x" },
                                        .n_unset = 1 },
                        -ENOENT);
        edit_fails(text, REMOVE_RULE(1), -ENOENT);
        edit_fails(text, ADD_RULE_AT(2, "\"a\"", "P"), -ENOENT);
        edit_fails(text, &(RcEdit){ .operation = RC_EDIT_UPDATE_RULE, .index = 5, .pattern = "\"b\"" }, -ENOENT);

        /* A file that does not load is never edited, and the reader's diagnostics say why. */
        {
                static const char broken[] = "{\"rules\": [{\"pattern\": \"a\", \"profile\": \"P\"},]}";
                RcDiagnostics diags = { 0 };
                char *out = NULL;

                g_assert_cmpint(rc_edit_apply("b.rc", broken, strlen(broken), ADD_RULE_AT(0, "\"b\"", "P"), &diags,
                                                &out, NULL),
                                ==, -EBADMSG);
                g_assert_null(out);
                g_assert_true(test_has_diag(&diags, RC_SEVERITY_ERROR, 1, 44, "trailing comma"));
                rc_diagnostics_done(&diags);
        }
        edit_fails("{\"rules\": [{\"pattern\": 5, \"profile\": \"P\"}]}", REMOVE_RULE(0), -EBADMSG);

        /* A result beyond the size limit is refused. */
        {
                g_autofree char *big = g_malloc(RC_FILE_SIZE_MAX + 1);

                memset(big, ' ', RC_FILE_SIZE_MAX);
                big[0] = '#';
                memcpy(big + RC_FILE_SIZE_MAX - 4, "\n{}\n", 4);
                big[RC_FILE_SIZE_MAX] = '\0';
                edit_fails(big, ADD_RULE_AT(0, "\"a\"", "P"), -E2BIG);
        }
        edit_fails("{\"rules\": [", REMOVE_RULE(0), -EBADMSG);
}

/* A rule's exact text, moved into another file. */
static void test_rule_text_move(void)
{
        RcDiagnostics diags = { 0 };
        g_autofree char *rule = NULL, *out = NULL;

        g_assert_cmpint(rc_edit_rule_text("a.rc", lines3, strlen(lines3), 1, &diags, &rule), ==, 0);
        g_assert_cmpstr(rule, ==, "{ \"pattern\": \"b\", \"profile\": \"P\" }");
        g_assert_cmpint(rc_edit_rule_text("a.rc", lines3, strlen(lines3), 3, &diags, &out), ==, -ENOENT);
        rc_diagnostics_done(&diags);

        out = edit_ok("{\"rules\": [{\"pattern\": \"a\", \"profile\": \"P\"}]}",
                        &(RcEdit){ .operation = RC_EDIT_ADD_RULE, .index = 0, .rule_text = rule });
        g_assert_cmpstr(out, ==,
                        "{\"rules\": [{ \"pattern\": \"b\", \"profile\": \"P\" }, {\"pattern\": \"a\", \"profile\": \"P\"}]}");
}

static void test_diff(void)
{
        static const char old[] = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n";
        static const char new[] = "1\n2\n3\nfour\n5\n6\n7\n8\n9\n10\n11\n12\n13\n15\n16\nseventeen";
        g_autofree char *d = NULL, *same = NULL, *created = NULL;

        g_assert_cmpint(rc_edit_diff("/etc/x.rc", old, strlen(old), new, strlen(new), &d), ==, 0);
        g_assert_cmpstr(d, ==,
                        "--- a/etc/x.rc\n+++ b/etc/x.rc\n"
                        "@@ -1,7 +1,7 @@\n 1\n 2\n 3\n-4\n+four\n 5\n 6\n 7\n"
                        "@@ -11,6 +11,6 @@\n 11\n 12\n 13\n-14\n 15\n 16\n+seventeen\n\\ No newline at end of file\n");
        g_assert_cmpint(rc_edit_diff("x.rc", old, strlen(old), old, strlen(old), &same), ==, 0);
        g_assert_cmpstr(same, ==, "");
        g_assert_cmpint(rc_edit_diff("x.rc", NULL, 0, "a\n", 2, &created), ==, 0);
        g_assert_cmpstr(created, ==, "--- a/x.rc\n+++ b/x.rc\n@@ -0,0 +1 @@\n+a\n");

        /* Past the bound on the comparison table, the middle is shown removed, then added: still a
         * correct diff. */
        {
                GString *a = g_string_new(NULL), *b = g_string_new(NULL);
                g_autofree char *big = NULL;
                g_autofree char *sa = NULL, *sb = NULL;

                for (unsigned i = 0; i < 1200; i++) {
                        g_string_append_printf(a, "a%u\n", i);
                        g_string_append_printf(b, "b%u\n", i);
                }
                g_string_append(a, "same\n");
                g_string_append(b, "same\n");
                sa = g_string_free(a, FALSE);
                sb = g_string_free(b, FALSE);
                g_assert_cmpint(rc_edit_diff("x.rc", sa, strlen(sa), sb, strlen(sb), &big), ==, 0);
                g_assert_true(g_str_has_prefix(big, "--- a/x.rc\n+++ b/x.rc\n@@ -1,1201 +1,1201 @@\n-a0\n-a1\n"));
                g_assert_nonnull(strstr(big, "\n-a1199\n+b0\n"));
                g_assert_true(g_str_has_suffix(big, "\n+b1199\n same\n"));
        }
}

/* Canonical forms of what a file says, written here independently of the code under test. */
static char *canon_settings(const RcProfile *p)
{
        GString *s = g_string_new(NULL);

        for (size_t i = 0; i < p->n_settings; i++) {
                g_autofree char *v = NULL;
                g_assert_cmpint(rc_value_format(&p->settings[i].value, &v), ==, 0);
                g_string_append_printf(s, "%s=%s;", p->settings[i].key, v);
        }
        return g_string_free(s, FALSE);
}

static char *canon_rule(const RcRule *r)
{
        g_autofree char *pattern = NULL, *settings = NULL;

        g_assert_cmpint(rc_pattern_format(&r->pattern, &pattern), ==, 0);
        if (!r->inline_profile)
                return g_strdup_printf("%s => @%s", pattern, r->profile_name);
        settings = canon_settings(r->inline_profile);
        return g_strdup_printf("%s => {%s}", pattern, settings);
}

static GPtrArray *canon_rules(const RcFile *f)
{
        GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
        for (size_t i = 0; i < f->n_rules; i++)
                g_ptr_array_add(a, canon_rule(&f->rules[i]));
        return a;
}

static GPtrArray *canon_profiles(const RcFile *f)
{
        GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
        for (size_t i = 0; i < f->n_profiles; i++) {
                g_autofree char *s = canon_settings(&f->profiles[i]);
                g_ptr_array_add(a, g_strdup_printf("%s: %s", f->profiles[i].name, s));
        }
        return a;
}

static void assert_same_lists(GPtrArray *a, GPtrArray *b)
{
        g_assert_cmpuint(a->len, ==, b->len);
        for (guint i = 0; i < a->len; i++)
                g_assert_cmpstr(g_ptr_array_index(a, i), ==, g_ptr_array_index(b, i));
}

static void assert_same_rules(const RcFile *a, const RcFile *b)
{
        g_autoptr(GPtrArray) x = canon_rules(a), y = canon_rules(b);
        assert_same_lists(x, y);
}

static bool has_key(const RcProfile *p, const char *key)
{
        for (size_t i = 0; i < p->n_settings; i++)
                if (streq(p->settings[i].key, key))
                        return true;
        return false;
}

/* One corpus file, its text and its parse. */
typedef struct CorpusCase {
        const char *name;
        char *text;
        size_t size;
        RcFile *file;
        RcDocument doc;
        RcDiagnostics diags;
} CorpusCase;

static const RcNode *doc_member(const RcDocument *d, const RcNode *obj, const char *name)
{
        return obj && obj->type == RC_NODE_OBJECT ? rc_node_member(d, obj, name, NULL) : NULL;
}

static const RcNode *doc_child(const RcDocument *d, const RcNode *c, size_t k)
{
        const RcNode *n = rc_node_first_child(d, c);
        while (n && k-- > 0)
                n = rc_node_next(d, n);
        return n;
}

static size_t node_start(const RcNode *n)
{
        return n->has_key ? n->key_offset - 1 : n->offset;
}

/* Where an edit of element k of array c may change the original: between its neighbours (for an
 * insertion before k, between k-1 and k). */
static void gap_around(const RcDocument *d, const RcNode *c, size_t k, bool insert, size_t *lo, size_t *hi)
{
        const RcNode *prev = k > 0 ? doc_child(d, c, k - 1) : NULL;
        const RcNode *next = doc_child(d, c, insert ? k : k + 1);

        *lo = prev ? prev->end : c->offset + 1;
        *hi = next ? node_start(next) : c->end - 1;
}

/* Applies edit to the corpus file and checks that only [lo, hi) of the original changed; returns the
 * result parsed (it must load). */
static RcFile *corpus_edit(const CorpusCase *c, const RcEdit *edit, size_t lo, size_t hi)
{
        RcDiagnostics diags = { 0 };
        char *out = NULL;
        size_t size = 0;
        RcFile *f = NULL;
        int r;

        g_test_message("%s: %s index %zu profile %s, allowed [%zu, %zu)", c->name,
                        rc_edit_operation_to_string(edit->operation), edit->index, strna(edit->profile), lo, hi);
        r = rc_edit_apply(c->name, c->text, c->size, edit, &diags, &out, &size);
        test_dump_diags(c->name, &diags);
        rc_diagnostics_done(&diags);
        g_assert_cmpint(r, ==, 0);

        {
                g_autofree char *diff = NULL;
                g_assert_cmpint(rc_edit_diff(c->name, c->text, c->size, out, size, &diff), ==, 0);
                g_test_message("%s", diff);
        }

        /* The bytes before lo and from hi on are the original's, byte for byte. */
        g_assert_cmpuint(lo, <=, hi);
        g_assert_cmpuint(hi, <=, c->size);
        g_assert_cmpuint(size, >=, lo + (c->size - hi));
        g_assert_cmpmem(c->text, lo, out, lo);
        g_assert_cmpmem(c->text + hi, c->size - hi, out + size - (c->size - hi), c->size - hi);

        g_assert_cmpint(rc_file_parse(c->name, out, size, NULL, &f), ==, 0);
        test_dump_diags(c->name, &f->diagnostics);
        g_assert_cmpint(f->state, ==, RC_FILE_LOADED);
        free(out);
        return f;
}

/* The original's rules with rule k replaced (new_rule), removed (NULL, remove) or inserted. */
static GPtrArray *rules_with(const CorpusCase *c, size_t k, const char *rule, bool insert)
{
        GPtrArray *a = canon_rules(c->file);

        if (insert)
                g_ptr_array_insert(a, (gint) k, g_strdup(rule));
        else if (!rule)
                g_ptr_array_remove_index(a, (guint) k);
        else {
                g_free(a->pdata[k]);
                a->pdata[k] = g_strdup(rule);
        }
        return a;
}

static void corpus_rule_edits(const CorpusCase *c)
{
        static const char pattern[] = "{\"feature\": \"procname\", \"matches\": \"nvprofiled-test\"}";
        static const RcEditSetting set[] = { { "GLVidHeapReuseRatio", "0x3" }, { "GLShowGraphicsOSD", "false" } };
        const RcNode *rules = doc_member(&c->doc, &c->doc.nodes[0], "rules");
        size_t n = c->file->n_rules, lo, hi;

        /* Added at the start, in the middle and at the end, with a profile name and inline. */
        for (size_t i = 0; i < 3; i++) {
                size_t at = i == 0 ? 0 : i == 1 ? n / 2 : n;
                g_autoptr(RcFile) f = NULL;
                g_autoptr(GPtrArray) got = NULL, want = NULL;

                gap_around(&c->doc, rules, at, true, &lo, &hi);
                f = corpus_edit(c, ADD_RULE_AT(at == n ? SIZE_MAX : at, pattern, "Test Profile"), lo, hi);
                got = canon_rules(f);
                want = rules_with(c, at, "procname \"nvprofiled-test\" => @Test Profile", true);
                assert_same_lists(got, want);
        }
        {
                g_autoptr(RcFile) f = NULL;
                g_autoptr(GPtrArray) got = NULL, want = NULL;
                CorpusCase added = *c;
                RcDiagnostics diags = { 0 };
                static const RcEditSetting reset[] = { { "GLVidHeapReuseRatio", "1" } };
                static const RcEditSetting more[] = { { "GLSyncToVblank", "true" } };
                static char *const unset[] = { (char *) "GLShowGraphicsOSD" };

                gap_around(&c->doc, rules, n, true, &lo, &hi);
                f = corpus_edit(c,
                                &(RcEdit){ .operation = RC_EDIT_ADD_RULE,
                                                .index = SIZE_MAX,
                                                .pattern = pattern,
                                                .settings = set,
                                                .n_settings = 2 },
                                lo, hi);
                got = canon_rules(f);
                want = rules_with(c, n,
                                "procname \"nvprofiled-test\" => {GLVidHeapReuseRatio=3;GLShowGraphicsOSD=false;}",
                                true);
                assert_same_lists(got, want);

                /* Its inline profile edited: a key set, one added, one removed. */
                g_assert_cmpint(rc_edit_apply(c->name, c->text, c->size,
                                                &(RcEdit){ .operation = RC_EDIT_ADD_RULE,
                                                                .index = SIZE_MAX,
                                                                .pattern = pattern,
                                                                .settings = set,
                                                                .n_settings = 2 },
                                                &diags, &added.text, &added.size),
                                ==, 0);
                g_assert_cmpint(rc_file_parse(c->name, added.text, added.size, NULL, &added.file), ==, 0);
                g_assert_cmpint(rc_document_parse(added.text, added.size, NULL, &diags, &added.doc), ==, 0);
                {
                        const RcNode *rule =
                                        doc_child(&added.doc, doc_member(&added.doc, &added.doc.nodes[0], "rules"), n);
                        const RcNode *inl = doc_member(&added.doc, rule, "profile");
                        const RcNode *settings = doc_member(&added.doc, inl, "settings");
                        const RcNode *value = doc_member(&added.doc, doc_child(&added.doc, settings, 0), "value");
                        g_autoptr(RcFile) f1 = NULL, f2 = NULL, f3 = NULL;

                        f1 = corpus_edit(&added,
                                        &(RcEdit){ .operation = RC_EDIT_UPDATE_RULE,
                                                        .index = n,
                                                        .settings = reset,
                                                        .n_settings = 1 },
                                        value ? value->offset : settings->offset, value ? value->end : settings->end);
                        g_assert_cmpuint(f1->rules[n].inline_profile->n_settings, ==, 2);
                        g_assert_cmpint(f1->rules[n].inline_profile->settings[0].value.integer, ==, 1);
                        f2 = corpus_edit(&added,
                                        &(RcEdit){ .operation = RC_EDIT_UPDATE_RULE,
                                                        .index = n,
                                                        .settings = more,
                                                        .n_settings = 1 },
                                        settings->offset, settings->end);
                        g_assert_cmpuint(f2->rules[n].inline_profile->n_settings, ==, 3);
                        g_assert_cmpstr(f2->rules[n].inline_profile->settings[2].key, ==, "GLSyncToVblank");
                        f3 = corpus_edit(&added,
                                        &(RcEdit){ .operation = RC_EDIT_UPDATE_RULE,
                                                        .index = n,
                                                        .unset = unset,
                                                        .n_unset = 1 },
                                        settings->offset, settings->end);
                        g_assert_cmpuint(f3->rules[n].inline_profile->n_settings, ==, 1);
                        g_assert_cmpstr(f3->rules[n].inline_profile->settings[0].key, ==, "GLVidHeapReuseRatio");
                }
                rc_document_done(&added.doc);
                rc_file_unref(added.file);
                free(added.text);
                rc_diagnostics_done(&diags);
        }

        /* Every rule: its pattern changed, then removed. */
        for (size_t k = 0; k < n; k++) {
                const RcNode *rule = doc_child(&c->doc, rules, k);
                const RcNode *pat = doc_member(&c->doc, rule, "pattern");
                g_autoptr(RcFile) f = NULL, g = NULL;
                g_autoptr(GPtrArray) got = NULL, want = NULL, got2 = NULL, want2 = NULL;
                g_autofree char *old = canon_rule(&c->file->rules[k]);
                g_autofree char *expected =
                                g_strdup_printf("procname \"nvprofiled-test\" => %s", strstr(old, " => ") + 4);

                f = corpus_edit(c, &(RcEdit){ .operation = RC_EDIT_UPDATE_RULE, .index = k, .pattern = pattern },
                                pat->offset, pat->end);
                got = canon_rules(f);
                want = rules_with(c, k, expected, false);
                assert_same_lists(got, want);

                gap_around(&c->doc, rules, k, false, &lo, &hi);
                g = corpus_edit(c, REMOVE_RULE(k), lo, hi);
                got2 = canon_rules(g);
                want2 = rules_with(c, k, NULL, false);
                assert_same_lists(got2, want2);
                g_assert_cmpuint(g->n_profiles, ==, c->file->n_profiles);
        }
}

static void corpus_profile_edits(const CorpusCase *c)
{
        static const RcEditSetting add[] = { { "GLSyncToVblank", "true" } };
        const RcNode *profiles = doc_member(&c->doc, &c->doc.nodes[0], "profiles");
        size_t n = c->file->n_profiles;
        g_autoptr(RcFile) f = NULL;
        g_autoptr(GPtrArray) got = NULL, want = NULL;

        /* Added: at the end of "profiles", or as a new member of the root. */
        {
                const RcNode *lastm = NULL;
                for (const RcNode *m = rc_node_first_child(&c->doc, &c->doc.nodes[0]); m; m = rc_node_next(&c->doc, m))
                        lastm = m;
                f = corpus_edit(c,
                                &(RcEdit){ .operation = RC_EDIT_ADD_PROFILE,
                                                .profile = "Test Profile",
                                                .settings = add,
                                                .n_settings = 1 },
                                profiles ? (n > 0 ? doc_child(&c->doc, profiles, n - 1)->end : profiles->offset + 1)
                                         : (lastm ? lastm->end : c->doc.nodes[0].offset + 1),
                                profiles ? profiles->end - 1 : c->doc.nodes[0].end - 1);
                got = canon_profiles(f);
                want = canon_profiles(c->file);
                g_ptr_array_add(want, g_strdup("Test Profile: GLSyncToVblank=true;"));
                assert_same_lists(got, want);
                assert_same_rules(f, c->file);
        }

        for (size_t k = 0; k < n; k++) {
                const RcProfile *p = &c->file->profiles[k];
                const RcNode *node = doc_child(&c->doc, profiles, k);
                const RcNode *settings = doc_member(&c->doc, node, "settings");
                size_t lo, hi;

                /* The first profile of a name is the one edited; a later duplicate is left alone. */
                if (k > 0 && streq(c->file->profiles[k - 1].name, p->name))
                        continue;

                /* A key added, an existing key set, an existing key removed. */
                {
                        g_autoptr(RcFile) g = corpus_edit(c,
                                        &(RcEdit){ .operation = RC_EDIT_UPDATE_PROFILE,
                                                        .profile = p->name,
                                                        .settings = add,
                                                        .n_settings = 1 },
                                        settings->offset, settings->end);
                        g_assert_cmpuint(g->profiles[k].n_settings, ==, p->n_settings + !has_key(p, "GLSyncToVblank"));
                }
                if (p->n_settings > 0) {
                        RcEditSetting set = { p->settings[0].key, "\"changed\"" };
                        char *unset[] = { (char *) p->settings[0].key };
                        g_autoptr(RcFile) g = NULL, h = NULL;

                        g = corpus_edit(c,
                                        &(RcEdit){ .operation = RC_EDIT_UPDATE_PROFILE,
                                                        .profile = p->name,
                                                        .settings = &set,
                                                        .n_settings = 1 },
                                        settings->offset, settings->end);
                        g_assert_cmpuint(g->profiles[k].n_settings, ==, p->n_settings);
                        g_assert_cmpint(g->profiles[k].settings[0].value.type, ==, RC_VALUE_STRING);
                        g_assert_cmpstr(g->profiles[k].settings[0].value.string, ==, "changed");
                        assert_same_rules(g, c->file);

                        h = corpus_edit(c,
                                        &(RcEdit){ .operation = RC_EDIT_UPDATE_PROFILE,
                                                        .profile = p->name,
                                                        .unset = unset,
                                                        .n_unset = 1 },
                                        settings->offset, settings->end);
                        g_assert_cmpuint(h->profiles[k].n_settings, <, p->n_settings);
                }
                /* Removed. */
                {
                        g_autoptr(RcFile) g = NULL;
                        g_autoptr(GPtrArray) left = NULL, expected = NULL;

                        gap_around(&c->doc, profiles, k, false, &lo, &hi);
                        g = corpus_edit(c, &(RcEdit){ .operation = RC_EDIT_REMOVE_PROFILE, .profile = p->name }, lo,
                                        hi);
                        left = canon_profiles(g);
                        expected = canon_profiles(c->file);
                        g_ptr_array_remove_index(expected, (guint) k);
                        assert_same_lists(left, expected);
                        assert_same_rules(g, c->file);
                }
        }
}

static void corpus_case_done(CorpusCase *c)
{
        rc_document_done(&c->doc);
        rc_file_unref(c->file);
        rc_diagnostics_done(&c->diags);
        g_free(c->text);
}

/* One corpus file: a file that loads is edited in every way; one that does not is never edited. */
static void test_corpus_file(gconstpointer data)
{
        const char *name = data;
        g_autofree char *path = test_corpus_path(name);
        g_autoptr(GError) error = NULL;
        CorpusCase c = { .name = name };

        g_file_get_contents(path, &c.text, &c.size, &error);
        g_assert_no_error(error);
        g_assert_cmpint(rc_file_parse(name, c.text, c.size, NULL, &c.file), ==, 0);

        if (c.file->state != RC_FILE_LOADED) {
                static const RcEditSetting set[] = { { "k", "1" } };
                const RcEdit edits[] = {
                        *ADD_RULE_AT(0, "\"x\"", "P"),
                        *REMOVE_RULE(0),
                        { .operation = RC_EDIT_UPDATE_RULE, .index = 0, .pattern = "\"y\"" },
                        { .operation = RC_EDIT_ADD_PROFILE, .profile = "P", .settings = set, .n_settings = 1 },
                        { .operation = RC_EDIT_REMOVE_PROFILE, .profile = "P" },
                };
                for (size_t i = 0; i < G_N_ELEMENTS(edits); i++) {
                        RcDiagnostics diags = { 0 };
                        char *out = NULL;

                        g_assert_cmpint(rc_edit_apply(name, c.text, c.size, &edits[i], &diags, &out, NULL), ==,
                                        -EBADMSG);
                        g_assert_null(out);
                        /* The reader's own diagnostics, with their positions. */
                        g_assert_cmpuint(diags.n_errors, >=, c.file->diagnostics.n_errors + 1);
                        g_assert_cmpuint(diags.items[0].line, ==, c.file->diagnostics.items[0].line);
                        rc_diagnostics_done(&diags);
                }
                corpus_case_done(&c);
                return;
        }

        g_assert_cmpint(rc_document_parse(c.text, c.size, NULL, &c.diags, &c.doc), ==, 0);
        corpus_rule_edits(&c);
        corpus_profile_edits(&c);
        corpus_case_done(&c);
}

int main(int argc, char *argv[])
{
        g_autoptr(GDir) d = NULL;
        g_autofree char *dir = NULL;
        const char *name;
        size_t n = 0;

        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/rc-edit/remove-lines", test_remove_lines);
        g_test_add_func("/rc-edit/remove-inline", test_remove_inline);
        g_test_add_func("/rc-edit/add-follows-layout", test_add_follows_layout);
        g_test_add_func("/rc-edit/add-to-empty", test_add_to_empty);
        g_test_add_func("/rc-edit/new-file", test_new_file);
        g_test_add_func("/rc-edit/inline-profile", test_inline_profile);
        g_test_add_func("/rc-edit/legacy-short-syntax", test_legacy_short_syntax);
        g_test_add_func("/rc-edit/keeps-the-rest", test_keeps_the_rest);
        g_test_add_func("/rc-edit/injection", test_injection);
        g_test_add_func("/rc-edit/errors", test_errors);
        g_test_add_func("/rc-edit/rule-text-move", test_rule_text_move);
        g_test_add_func("/rc-edit/diff", test_diff);

        /* Every rc file of the corpus, by name (SOURCES.md describes them and is not one). Without a
         * corpus (and without NVPROFILED_CORPUS_REQUIRED=1, which fails here) the unit tests still run. */
        if (!g_getenv("NVPROFILED_CORPUS_REQUIRED") &&
                        !g_file_test(strempty(g_getenv("NVPROFILED_CORPUS")), G_FILE_TEST_IS_DIR))
                return g_test_run();
        dir = test_corpus_path("appprofiles");
        d = g_dir_open(dir, 0, NULL);
        g_assert_nonnull(d);
        while ((name = g_dir_read_name(d))) {
                g_autofree char *test = NULL;

                if (streq(name, "SOURCES.md"))
                        continue;
                test = g_strdup_printf("/rc-edit/corpus/%s", name);
                g_test_add_data_func_full(test, g_strdup_printf("appprofiles/%s", name), test_corpus_file, g_free);
                n++;
        }
        g_assert_cmpuint(n, >=, 16);
        return g_test_run();
}
