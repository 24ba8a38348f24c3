/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* daemon/shared/table.c as nvprofilectl's listings use it: widths from content, escaped cells, UTF-8. */

#include "table.h"
#include "terminal-escape.h"
#include "test-util.h"

static char *print(const Table *t, TableFlags flags)
{
        char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);

        g_assert_nonnull(f);
        g_assert_cmpint(table_print(t, f, flags), ==, 0);
        g_assert_cmpint(fclose(f), ==, 0);
        return out;
}

static void add_all(Table *t, const char *const *cells)
{
        for (; *cells; cells++)
                g_assert_cmpint(table_add(t, *cells), ==, 0);
}

/* Each column as wide as its widest cell or header; numbers to the right; the last column unpadded. */
static void test_widths_and_alignment(void)
{
        static const TableColumn columns[] = { { "PID", TABLE_RIGHT }, { "USER" }, { "PROFILES" } };
        _cleanup_(table_freep) Table *t = table_new(columns, ELEMENTSOF(columns), terminal_escape);
        g_autofree char *with_header = NULL, *without = NULL;

        add_all(t, (const char *const[]){ "1", "root", "-", "12345", "me", "Fast, Quiet", NULL });
        g_assert_cmpuint(table_rows(t), ==, 2);
        g_assert_cmpint(table_addf(t, "%d", 7), ==, 0);
        g_assert_cmpint(table_add(t, NULL), ==, 0);
        g_assert_cmpint(table_add(t, ""), ==, 0);

        with_header = print(t, TABLE_HEADER);
        g_assert_cmpstr(with_header, ==,
                        "  PID USER PROFILES\n"
                        "    1 root -\n"
                        "12345 me   Fast, Quiet\n"
                        "    7      \n");
        without = print(t, 0);
        g_assert_cmpstr(without, ==,
                        "    1 root -\n"
                        "12345 me   Fast, Quiet\n"
                        "    7      \n");
}

/* A cell is measured and printed as the escape hook wrote it: nothing raw reaches the terminal, and the
 * columns after an escaped cell still line up. */
static void test_cells_escaped(void)
{
        static const TableColumn columns[] = { { "EXECUTABLE" }, { "N", TABLE_RIGHT } };
        _cleanup_(table_freep) Table *t = table_new(columns, ELEMENTSOF(columns), terminal_escape);
        g_autofree char *out = NULL;

        add_all(t, (const char *const[]){ "evil\x1b]0;x\x07", "1", "tab\there", "22", NULL });
        out = print(t, TABLE_HEADER);
        g_assert_null(strchr(out, '\x1b'));
        g_assert_cmpstr(out, ==,
                        "EXECUTABLE      N\n"
                        "evil\\x1b]0;x\\a  1\n"
                        "tab\\there      22\n");
}

/* Widths in terminal columns, not bytes: a two-byte letter takes one, a combining mark none, a CJK
 * character two; invalid UTF-8 (without an escape hook) one per byte. */
static void test_utf8_widths(void)
{
        static const TableColumn columns[] = { { "NAME" }, { "X" } };
        _cleanup_(table_freep) Table *t = table_new(columns, ELEMENTSOF(columns), NULL);
        g_autofree char *out = NULL;

        g_assert_cmpuint(table_text_width("abc"), ==, 3);
        g_assert_cmpuint(table_text_width("caf\xc3\xa9"), ==, 4);
        g_assert_cmpuint(table_text_width("e\xcc\x81"), ==, 1);
        g_assert_cmpuint(table_text_width("\xe6\x97\xa5\xe6\x9c\xac"), ==, 4);
        g_assert_cmpuint(table_text_width("\xff\xfe"), ==, 2);

        add_all(t,
                        (const char *const[]){
                                        "caf\xc3\xa9", "1", "\xe6\x97\xa5\xe6\x9c\xac", "2", "e\xcc\x81", "3", NULL });
        out = print(t, TABLE_HEADER);
        g_assert_cmpstr(out, ==,
                        "NAME X\n"
                        "caf\xc3\xa9 1\n"
                        "\xe6\x97\xa5\xe6\x9c\xac 2\n"
                        "e\xcc\x81    3\n");
}

/* A maximum width: cut at the start ("..." and the end, as ncu shows file names) or wrapped onto more
 * lines, the other cells of the row padded; wrapping counts columns, never splitting a character. */
static void test_max_width(void)
{
        static const TableColumn columns[] = {
                { "FILE", .max_width = 8, .cut_start = true },
                { "TEXT", .max_width = 4 },
                { "END" },
        };
        _cleanup_(table_freep) Table *t = table_new(columns, ELEMENTSOF(columns), NULL);
        g_autofree char *out = NULL;

        add_all(t,
                        (const char *const[]){ "/a/long/path.section", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9x", "e",
                                        "short", "ab", "f", NULL });
        out = print(t, TABLE_HEADER);
        g_assert_cmpstr(out, ==,
                        "FILE     TEXT END\n"
                        "...ction \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 e\n"
                        "         \xc3\xa9x   \n"
                        "short    ab   f\n");
}

/* ncu's frame: dashes above and below the header, every cell padded, the last column too. */
static void test_rules(void)
{
        static const TableColumn columns[] = { { "Identifier" }, { "Enabled" } };
        _cleanup_(table_freep) Table *t = table_new(columns, ELEMENTSOF(columns), NULL);
        g_autofree char *out = NULL;

        add_all(t, (const char *const[]){ "A", "yes", NULL });
        out = print(t, TABLE_HEADER | TABLE_RULES);
        g_assert_cmpstr(out, ==,
                        "---------- -------\n"
                        "Identifier Enabled\n"
                        "---------- -------\n"
                        "A          yes    \n");
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/table/widths-and-alignment", test_widths_and_alignment);
        g_test_add_func("/table/cells-escaped", test_cells_escaped);
        g_test_add_func("/table/utf8-widths", test_utf8_widths);
        g_test_add_func("/table/max-width", test_max_width);
        g_test_add_func("/table/rules", test_rules);
        return g_test_run();
}
