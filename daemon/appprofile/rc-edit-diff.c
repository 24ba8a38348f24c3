/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* A unified diff of two rc texts (rc_edit_diff()), to show an edit before it is written. Lines common to
 * the start and the end are matched first; what is left (a few lines after a span edit) is matched by
 * longest common subsequence, bounded in memory; beyond the bound the middle is shown as all removed
 * and all added, which is correct if not minimal. */

#include <stdio.h>

#include "rc-edit.h"

#define CONTEXT 3u
#define LCS_CELLS_MAX (1024u * 1024u) /* 4 MiB of uint32_t */

typedef struct Line {
        const char *s;
        size_t len; /* with its '\n', if it has one */
} Line;

typedef enum OpType {
        OP_SAME,
        OP_REMOVE,
        OP_ADD,
} OpType;

typedef struct Op {
        OpType type;
        size_t old_line, new_line; /* 0-based: the line this op shows, or where it falls */
} Op;

static int split_lines(const char *text, size_t size, Line **ret, size_t *ret_n)
{
        _cleanup_free_ Line *lines = NULL;
        size_t n = 0, allocated = 0;

        for (size_t pos = 0; pos < size;) {
                const char *nl = memchr(text + pos, '\n', size - pos);
                size_t end = nl ? (size_t) (nl - text) + 1 : size;

                if (GREEDY_REALLOC(lines, allocated, n + 1) < 0)
                        return -ENOMEM;
                lines[n++] = (Line){ .s = text + pos, .len = end - pos };
                pos = end;
        }
        *ret = TAKE_PTR(lines);
        *ret_n = n;
        return 0;
}

static bool line_eq(const Line *a, const Line *b)
{
        return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

static void push(Op *ops, size_t *n, OpType type, size_t old_line, size_t new_line)
{
        ops[(*n)++] = (Op){ .type = type, .old_line = old_line, .new_line = new_line };
}

/* The middle old[o, o+na) against new[m, m+nb), by LCS when the table fits, else removed then added. */
static int diff_middle(const Line *old, size_t o, size_t na, const Line *new, size_t m, size_t nb, Op *ops, size_t *n)
{
        _cleanup_free_ uint32_t *lcs = NULL;
        size_t cells, w = nb + 1, i = 0, j = 0;

        if (size_mul_overflow(na + 1, nb + 1, &cells) || cells > LCS_CELLS_MAX) {
                for (size_t k = 0; k < na; k++)
                        push(ops, n, OP_REMOVE, o + k, m);
                for (size_t k = 0; k < nb; k++)
                        push(ops, n, OP_ADD, o + na, m + k);
                return 0;
        }

        /* lcs[i * w + j]: the longest common subsequence of old[o+i..] and new[m+j..]. */
        lcs = calloc(cells, sizeof(uint32_t));
        if (!lcs)
                return -ENOMEM;
        for (size_t a = na; a-- > 0;)
                for (size_t b = nb; b-- > 0;)
                        lcs[a * w + b] = line_eq(&old[o + a], &new[m + b])
                                        ? lcs[(a + 1) * w + b + 1] + 1
                                        : MAX(lcs[(a + 1) * w + b], lcs[a * w + b + 1]);

        while (i < na || j < nb) {
                if (i < na && j < nb && line_eq(&old[o + i], &new[m + j])) {
                        push(ops, n, OP_SAME, o + i, m + j);
                        i++, j++;
                } else if (j >= nb || (i < na && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])) {
                        push(ops, n, OP_REMOVE, o + i, m + j);
                        i++;
                } else {
                        push(ops, n, OP_ADD, o + i, m + j);
                        j++;
                }
        }
        return 0;
}

static void print_range(FILE *f, char sign, size_t first, size_t count)
{
        /* diff -u: an empty range names the line before it; a range of one line has no count. */
        if (count == 1)
                fprintf(f, " %c%zu", sign, first + 1);
        else
                fprintf(f, " %c%zu,%zu", sign, count == 0 ? first : first + 1, count);
}

static void print_line(FILE *f, char sign, const Line *l)
{
        fputc(sign, f);
        fwrite(l->s, 1, l->len, f);
        if (l->len == 0 || l->s[l->len - 1] != '\n')
                fputs("\n\\ No newline at end of file\n", f);
}

static void print_hunk(FILE *f, const Op *ops, size_t from, size_t to, const Line *old, const Line *new)
{
        size_t old_count = 0, new_count = 0;

        for (size_t k = from; k < to; k++) {
                old_count += ops[k].type != OP_ADD;
                new_count += ops[k].type != OP_REMOVE;
        }
        fputs("@@", f);
        print_range(f, '-', ops[from].old_line, old_count);
        print_range(f, '+', ops[from].new_line, new_count);
        fputs(" @@\n", f);
        for (size_t k = from; k < to; k++)
                switch (ops[k].type) {
                case OP_SAME:
                        print_line(f, ' ', &old[ops[k].old_line]);
                        break;
                case OP_REMOVE:
                        print_line(f, '-', &old[ops[k].old_line]);
                        break;
                case OP_ADD:
                        print_line(f, '+', &new[ops[k].new_line]);
                        break;
                }
}

/* Groups the changes into hunks with CONTEXT lines around them; changes closer than twice that share one. */
static void print_hunks(FILE *f, const Op *ops, size_t n, const Line *old, const Line *new)
{
        size_t k = 0;

        while (k < n) {
                size_t start, end, same = 0;

                while (k < n && ops[k].type == OP_SAME)
                        k++;
                if (k == n)
                        return;
                start = k >= CONTEXT ? k - CONTEXT : 0;
                end = k;
                for (; k < n; k++) {
                        if (ops[k].type != OP_SAME) {
                                same = 0;
                                end = k + 1;
                        } else if (++same > 2 * CONTEXT)
                                break;
                }
                end = MIN(end + CONTEXT, n);
                print_hunk(f, ops, start, end, old, new);
                k = end;
        }
}

int rc_edit_diff(const char *path, const char *old_text, size_t old_size, const char *new_text, size_t new_size,
                char **ret)
{
        _cleanup_free_ Line *old = NULL, *new = NULL;
        _cleanup_free_ Op *ops = NULL;
        _cleanup_free_ char *out = NULL;
        size_t n_old, n_new, prefix = 0, suffix = 0, n = 0, out_size = 0;
        FILE *f;
        int r;

        assert(path);
        assert(old_text || old_size == 0);
        assert(new_text || new_size == 0);
        assert(ret);

        if (old_size == new_size && (old_size == 0 || memcmp(old_text, new_text, old_size) == 0)) {
                *ret = strdup("");
                return *ret ? 0 : -ENOMEM;
        }

        r = split_lines(old_text, old_size, &old, &n_old);
        if (r < 0)
                return r;
        r = split_lines(new_text, new_size, &new, &n_new);
        if (r < 0)
                return r;

        while (prefix < n_old && prefix < n_new && line_eq(&old[prefix], &new[prefix]))
                prefix++;
        while (suffix < n_old - prefix && suffix < n_new - prefix &&
                        line_eq(&old[n_old - 1 - suffix], &new[n_new - 1 - suffix]))
                suffix++;

        ops = calloc(n_old + n_new + 1, sizeof(Op));
        if (!ops)
                return -ENOMEM;
        for (size_t k = 0; k < prefix; k++)
                push(ops, &n, OP_SAME, k, k);
        r = diff_middle(old, prefix, n_old - prefix - suffix, new, prefix, n_new - prefix - suffix, ops, &n);
        if (r < 0)
                return r;
        for (size_t k = suffix; k > 0; k--)
                push(ops, &n, OP_SAME, n_old - k, n_new - k);

        f = open_memstream(&out, &out_size);
        if (!f)
                return -ENOMEM;
        /* "a/" and "b/" as git writes them, before the path without its leading '/'. */
        while (*path == '/')
                path++;
        fprintf(f, "--- a/%s\n+++ b/%s\n", path, path);
        print_hunks(f, ops, n, old, new);
        r = ferror(f) ? -ENOMEM : 0;
        if (fclose(f) != 0 || r < 0)
                return -ENOMEM;

        *ret = TAKE_PTR(out);
        return 0;
}
