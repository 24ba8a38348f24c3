/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <stdio.h>

#include "string-util.h"

const char *path_basename(const char *path)
{
        const char *slash;

        assert(path);

        slash = strrchr(path, '/');
        return slash ? slash + 1 : path;
}

size_t utf8_sequence_length(const char *s, size_t len)
{
        const unsigned char *p = (const unsigned char *) s;
        unsigned c, n;
        uint32_t cp;

        if (len == 0)
                return 0;
        c = p[0];
        if (c < 0x80)
                return 1;
        if (c >= 0xc2 && c <= 0xdf) {
                n = 1;
                cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
                n = 2;
                cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
                n = 3;
                cp = c & 0x07;
        } else
                return 0;

        if (len <= n)
                return 0;
        for (unsigned i = 1; i <= n; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (p[i] & 0x3f);
        }
        /* No overlong forms, no surrogates, nothing above U+10FFFF. */
        if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n + 1;
}

int unhexchar(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

bool utf8_is_valid_n(const char *s, size_t len)
{
        unsigned char any = 0;

        /* Nearly every string is ASCII: one branch-free pass the compiler vectorises. */
        for (size_t i = 0; i < len; i++)
                any |= (unsigned char) s[i];
        if (!(any & 0x80))
                return true;

        for (size_t i = 0; i < len;) {
                size_t n = utf8_sequence_length(s + i, len - i);
                if (n == 0)
                        return false;
                i += n;
        }
        return true;
}

char *path_join(const char *a, const char *b)
{
        size_t la, lb;
        char *p;

        assert(a);
        assert(b);

        while (*b == '/')
                b++;
        la = strlen(a);
        while (la > 1 && a[la - 1] == '/')
                la--;
        lb = strlen(b);

        p = malloc(la + 1 + lb + 1);
        if (!p)
                return NULL;
        memcpy(p, a, la);
        if (la == 0 || a[la - 1] != '/')
                p[la++] = '/';
        memcpy(p + la, b, lb + 1);
        return p;
}

size_t string_distance(const char *a, const char *b, bool ignore_case)
{
        size_t la = strlen(a), lb = strlen(b), row[65];

        if (la > 64 || lb > 64)
                return SIZE_MAX;
        for (size_t j = 0; j <= lb; j++)
                row[j] = j;
        for (size_t i = 1; i <= la; i++) {
                size_t diagonal = row[0];

                row[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        size_t above = row[j];
                        bool same = ignore_case ? tolower((unsigned char) a[i - 1]) == tolower((unsigned char) b[j - 1])
                                                : a[i - 1] == b[j - 1];
                        size_t best = diagonal + (same ? 0 : 1);

                        best = MIN(best, above + 1);
                        best = MIN(best, row[j - 1] + 1);
                        row[j] = best;
                        diagonal = above;
                }
        }
        return row[lb];
}
