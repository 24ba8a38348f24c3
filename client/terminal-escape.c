/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "string-util.h"
#include "terminal-escape.h"

/* The code point of a valid UTF-8 sequence of n bytes (as utf8_sequence_length() measured it). */
static uint32_t utf8_decode(const unsigned char *p, size_t n)
{
        static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
        uint32_t cp;

        assert(n >= 1 && n <= 4);
        cp = p[0] & lead_mask[n];
        for (size_t i = 1; i < n; i++)
                cp = (cp << 6) | (p[i] & 0x3f);
        return cp;
}

/* Characters a terminal acts on instead of showing: C0 and C1 controls and DEL (cursor movement, window
 * titles, CSI introducers), and those that reorder or break the line as it is shown ("Trojan Source"). */
static bool code_point_is_hidden(uint32_t cp)
{
        return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
                        (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

static char named_escape(unsigned char c)
{
        switch (c) {
        case '\a':
                return 'a';
        case '\b':
                return 'b';
        case '\t':
                return 't';
        case '\n':
                return 'n';
        case '\v':
                return 'v';
        case '\f':
                return 'f';
        case '\r':
                return 'r';
        case '\\':
                return '\\';
        }
        return 0;
}

static char *append_hex(char *t, unsigned char c)
{
        static const char hex[] = "0123456789abcdef";

        *t++ = '\\';
        *t++ = 'x';
        *t++ = hex[c >> 4];
        *t++ = hex[c & 0xf];
        return t;
}

char *terminal_escape_n(const char *s, size_t len)
{
        const unsigned char *p = (const unsigned char *) s;
        size_t size;
        char *buf, *t;

        assert(s || len == 0);

        /* Each byte becomes at most four ("\xNN"). */
        if (size_mul_overflow(len, 4, &size) || size == SIZE_MAX)
                return NULL;
        buf = malloc(size + 1);
        if (!buf)
                return NULL;

        t = buf;
        for (size_t i = 0; i < len;) {
                size_t n = utf8_sequence_length(s + i, len - i);
                char name = named_escape(p[i]);

                if (name != 0) {
                        *t++ = '\\';
                        *t++ = name;
                        i++;
                } else if (n == 0) /* invalid UTF-8: byte by byte, so what follows still shows */
                        t = append_hex(t, p[i++]);
                else if (code_point_is_hidden(utf8_decode(p + i, n)))
                        for (size_t end = i + n; i < end; i++)
                                t = append_hex(t, p[i]);
                else
                        for (size_t end = i + n; i < end; i++)
                                *t++ = (char) p[i];
        }
        *t = '\0';
        return buf;
}

char *terminal_escape(const char *s)
{
        s = strempty(s);
        return terminal_escape_n(s, strlen(s));
}

int terminal_write_escaped_lines(FILE *f, const char *s, size_t len)
{
        assert(f);
        assert(s || len == 0);

        /* No UTF-8 sequence holds the byte '\n': the text splits there without cutting a character. */
        for (size_t i = 0; i < len;) {
                const char *end = memchr(s + i, '\n', len - i);
                size_t n = end ? (size_t) (end - (s + i)) : len - i;
                _cleanup_free_ char *line = terminal_escape_n(s + i, n);

                if (!line)
                        return -ENOMEM;
                if (fputs(line, f) == EOF || (end && fputc('\n', f) == EOF))
                        return errno > 0 ? -errno : -EIO;
                i += n + (end ? 1 : 0);
        }
        return 0;
}

void escape_pool_done(EscapePool *pool)
{
        assert(pool);

        for (size_t i = 0; i < pool->n_strings; i++)
                free(pool->strings[i]);
        pool->strings = mfree(pool->strings);
        pool->n_strings = pool->allocated = 0;
}

const char *esc(EscapePool *pool, const char *s)
{
        char *e;

        assert(pool);

        if (GREEDY_REALLOC(pool->strings, pool->allocated, pool->n_strings + 1) < 0)
                return "(out of memory)";
        e = terminal_escape(s);
        if (!e)
                return "(out of memory)";
        pool->strings[pool->n_strings++] = e;
        return e;
}
