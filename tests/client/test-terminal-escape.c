/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* client/terminal-escape.c: what nvprofilectl writes for strings from outside. */

#include <json-c/json.h>

#include "string-util.h"
#include "terminal-escape.h"
#include "test-util.h"

/* Nothing a terminal acts on: no C0 control, no DEL, no C1 control (as UTF-8), valid UTF-8 throughout. */
static void assert_terminal_safe(const char *s)
{
        size_t len = strlen(s);

        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char) s[i];

                g_assert_cmpuint(c, >=, 0x20);
                g_assert_cmpuint(c, !=, 0x7f);
                if (c == 0xc2 && i + 1 < len)
                        g_assert_false((unsigned char) s[i + 1] >= 0x80 && (unsigned char) s[i + 1] <= 0x9f);
        }
        g_assert_true(utf8_is_valid_n(s, len));
}

/* The cases the Python package is held to as well (tests/python/test_terminal_escape.py): one rule. */
static void test_shared_cases(void)
{
        const char *path = g_getenv("NVPROFILED_TERMINAL_ESCAPE_CASES");
        struct json_object *doc, *cases;

        g_assert_nonnull(path);
        doc = json_object_from_file(path);
        g_assert_nonnull(doc);
        cases = json_object_object_get(doc, "cases");
        g_assert_cmpuint(json_object_array_length(cases), >, 20);
        for (size_t i = 0; i < json_object_array_length(cases); i++) {
                struct json_object *c = json_object_array_get_idx(cases, i);
                const char *hex = json_object_get_string(json_object_object_get(c, "input_hex"));
                const char *expected = json_object_get_string(json_object_object_get(c, "expected"));
                size_t len = strlen(hex) / 2;
                g_autofree char *in = g_malloc(len + 1), *out = NULL;

                for (size_t k = 0; k < len; k++)
                        in[k] = (char) (g_ascii_xdigit_value(hex[2 * k]) << 4 | g_ascii_xdigit_value(hex[2 * k + 1]));
                out = terminal_escape_n(in, len);
                g_assert_nonnull(out);
                if (!g_str_equal(out, expected))
                        g_error("%s: \"%s\", not \"%s\"", json_object_get_string(json_object_object_get(c, "why")), out,
                                        expected);
                assert_terminal_safe(out);
        }
        json_object_put(doc);
}

static void test_null_is_empty(void)
{
        g_autofree char *out = terminal_escape(NULL);

        g_assert_cmpstr(out, ==, "");
}

/* Every byte value alone, and random byte strings: the output is always safe, and it is the input
 * exactly when the input was printable UTF-8 without a backslash. */
static void test_every_byte_and_random(void)
{
        GRand *rand = g_rand_new_with_seed(6009);

        for (unsigned b = 0; b < 256; b++) {
                char in[2] = { (char) b, 0 };
                g_autofree char *out = terminal_escape_n(in, 1);

                g_assert_nonnull(out);
                assert_terminal_safe(out);
                if (b >= 0x20 && b < 0x7f && b != '\\')
                        g_assert_cmpstr(out, ==, in);
                else
                        g_assert_cmpstr(out, !=, in);
        }

        for (unsigned i = 0; i < 5000; i++) {
                char in[24];
                size_t len = (size_t) g_rand_int_range(rand, 0, (gint32) sizeof(in));
                g_autofree char *out = NULL;

                for (size_t k = 0; k < len; k++)
                        in[k] = (char) g_rand_int_range(rand, 0, 256);
                out = terminal_escape_n(in, len);
                g_assert_nonnull(out);
                assert_terminal_safe(out);
                g_assert_cmpuint(strlen(out), <=, 4 * len);
        }
        g_rand_free(rand);
}

static void test_pool(void)
{
        EscapePool pool = { 0 };
        const char *a, *b;

        a = esc(&pool, "one\x1b");
        b = esc(&pool, "two\n");
        /* Both stay valid until the pool is freed, so one printf() can use several. */
        g_assert_cmpstr(a, ==, "one\\x1b");
        g_assert_cmpstr(b, ==, "two\\n");
        g_assert_cmpstr(esc(&pool, NULL), ==, "");
        g_assert_cmpuint(pool.n_strings, ==, 3);
        escape_pool_done(&pool);
        g_assert_null(pool.strings);
        g_assert_cmpuint(pool.n_strings, ==, 0);
}

/* Text of many lines: each line escaped, its line breaks kept; a NUL, a CR and a last line without "\n"
 * too. */
static void test_lines(void)
{
        static const char text[] = "\"a\",\"\x1b]0;t\x07\"\n\n\"\xe2\x80\xae\r\"\n\"x\0y\"";
        g_autofree char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);

        g_assert_nonnull(f);
        g_assert_cmpint(terminal_write_escaped_lines(f, text, sizeof(text) - 1), ==, 0);
        g_assert_cmpint(terminal_write_escaped_lines(f, NULL, 0), ==, 0);
        g_assert_cmpint(fclose(f), ==, 0);
        g_assert_cmpstr(out, ==, "\"a\",\"\\x1b]0;t\\a\"\n\n\"\\xe2\\x80\\xae\\r\"\n\"x\\x00y\"");
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/terminal-escape/shared-cases", test_shared_cases);
        g_test_add_func("/terminal-escape/null-is-empty", test_null_is_empty);
        g_test_add_func("/terminal-escape/every-byte-and-random", test_every_byte_and_random);
        g_test_add_func("/terminal-escape/pool", test_pool);
        g_test_add_func("/terminal-escape/lines", test_lines);
        return g_test_run();
}
