/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "string-util.h"

const char *path_basename(const char *path)
{
        const char *slash;

        assert(path);

        slash = strrchr(path, '/');
        return slash ? slash + 1 : path;
}

bool utf8_is_valid_n(const char *s, size_t len)
{
        const unsigned char *p = (const unsigned char *) s, *end = p + len;

        while (p < end) {
                unsigned c = *p, n;
                uint32_t cp;

                if (c < 0x80) {
                        p++;
                        continue;
                }
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
                        return false;

                if ((size_t) (end - p) <= n)
                        return false;
                for (unsigned i = 1; i <= n; i++) {
                        if ((p[i] & 0xc0) != 0x80)
                                return false;
                        cp = (cp << 6) | (p[i] & 0x3f);
                }
                if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
                                (cp >= 0xd800 && cp <= 0xdfff))
                        return false;
                p += n + 1;
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
