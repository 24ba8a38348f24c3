/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* client/terminal-escape.c: what nvprofilectl writes for strings from outside. */

#include "string-util.h"
#include "terminal-escape.h"
#include "test-util.h"

static void assert_escape_n(const char *in, size_t len, const char *expected)
{
        g_autofree char *out = terminal_escape_n(in, len);

        g_assert_nonnull(out);
        g_assert_cmpstr(out, ==, expected);
}

static void assert_escape(const char *in, const char *expected)
{
        assert_escape_n(in, strlen(in), expected);
}

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

static void test_printable_kept(void)
{
        assert_escape("", "");
        assert_escape("glxgears", "glxgears");
        assert_escape("/usr/bin/steam -silent", "/usr/bin/steam -silent");
        assert_escape("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x8e\xae",
                        "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x8e\xae");
        assert_escape("\"quoted\" 'single' $HOME %s", "\"quoted\" 'single' $HOME %s");
}

static void test_controls_escaped(void)
{
        /* The process name of issue 6.9 (comm holds at most 15 bytes; the whole string is what prctl got). */
        const char *evil = "\x1b]0;PWNED\x07\x1b[31mX";
        g_autofree char *out = terminal_escape(evil);

        g_assert_cmpstr(out, ==, "\\x1b]0;PWNED\\a\\x1b[31mX");
        g_assert_null(strchr(out, '\x1b'));
        g_assert_null(strchr(out, '\x07'));
        assert_terminal_safe(out);

        assert_escape("a\nb\tc\rd\ve\ff\bg\ah", "a\\nb\\tc\\rd\\ve\\ff\\bg\\ah");
        assert_escape("\x01\x1f\x7f", "\\x01\\x1f\\x7f");
        assert_escape("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H");
}

static void test_backslash_unambiguous(void)
{
        /* A literal "\x1b" in a name must not print like an escaped ESC. */
        assert_escape("\\x1b", "\\\\x1b");
        assert_escape("C:\\Games\\game.exe", "C:\\\\Games\\\\game.exe");
}

static void test_invalid_utf8(void)
{
        assert_escape("\xff", "\\xff");
        assert_escape("a\xfe\xff"
                      "b",
                        "a\\xfe\\xffb");
        assert_escape("\xc0\xaf", "\\xc0\\xaf"); /* overlong '/' */
        assert_escape("\xed\xa0\x80", "\\xed\\xa0\\x80"); /* a surrogate */
        assert_escape("\xe2\x82", "\\xe2\\x82"); /* truncated at the end */
        assert_escape("\xe2\x82"
                      "x",
                        "\\xe2\\x82x"); /* truncated, then text that still shows */
        assert_escape("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* beyond U+10FFFF */
}

static void test_hidden_characters(void)
{
        /* C1 CSI (U+009B) starts an escape sequence on some terminals, as ESC [ does. */
        assert_escape("\xc2\x9b"
                      "31m",
                        "\\xc2\\x9b31m");
        assert_escape("\xc2\x85", "\\xc2\\x85");
        assert_escape("\xc2\xa0", "\xc2\xa0"); /* U+00A0 is printable */
        /* Bidirectional overrides reorder what is shown ("Trojan Source"); line separators break it. */
        assert_escape("abc\xe2\x80\xae"
                      "def",
                        "abc\\xe2\\x80\\xaedef");
        assert_escape("\xe2\x81\xa6", "\\xe2\\x81\\xa6");
        assert_escape("\xe2\x80\xa8", "\\xe2\\x80\\xa8");
        assert_escape("\xe2\x80\x94", "\xe2\x80\x94"); /* an em dash is fine */
}

static void test_embedded_nul(void)
{
        assert_escape_n("a\0b", 3, "a\\x00b");
        assert_escape_n("", 0, "");
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
        g_test_add_func("/terminal-escape/printable-kept", test_printable_kept);
        g_test_add_func("/terminal-escape/controls-escaped", test_controls_escaped);
        g_test_add_func("/terminal-escape/backslash-unambiguous", test_backslash_unambiguous);
        g_test_add_func("/terminal-escape/invalid-utf8", test_invalid_utf8);
        g_test_add_func("/terminal-escape/hidden-characters", test_hidden_characters);
        g_test_add_func("/terminal-escape/embedded-nul", test_embedded_nul);
        g_test_add_func("/terminal-escape/null-is-empty", test_null_is_empty);
        g_test_add_func("/terminal-escape/every-byte-and-random", test_every_byte_and_random);
        g_test_add_func("/terminal-escape/pool", test_pool);
        g_test_add_func("/terminal-escape/lines", test_lines);
        return g_test_run();
}
