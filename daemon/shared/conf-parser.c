/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>

#include "conf-parser.h"
#include "parse-util.h"
#include "strv.h"

static char *strstrip(char *s)
{
        char *e;

        while (isspace((unsigned char) *s))
                s++;
        e = s + strlen(s);
        while (e > s && isspace((unsigned char) e[-1]))
                *--e = '\0';
        return s;
}

/* Adds "<line>: <message>" to messages (if any). Returns 1 for an error, 0 for a warning (what the caller
 * counts), or -ENOMEM. */
static int report(char ***messages, unsigned line, bool error, const char *fmt, ...) _printf_(4, 5);
static int report(char ***messages, unsigned line, bool error, const char *fmt, ...)
{
        _cleanup_free_ char *body = NULL;
        char *m;
        va_list ap;
        int r;

        if (!messages)
                return error;
        va_start(ap, fmt);
        r = vasprintf(&body, fmt, ap);
        va_end(ap);
        if (r < 0 || asprintf(&m, "%u: %s", line, body) < 0)
                return -ENOMEM;
        r = strv_consume(messages, m);
        if (r < 0)
                return r;
        return error;
}

static int parse_section_header(const char *l, unsigned line, char **section, char ***messages)
{
        size_t n = strlen(l);
        char *s;

        if (n < 3 || l[n - 1] != ']')
                return report(messages, line, true, "error: malformed section header '%s'", l);
        s = strndup(l + 1, n - 2);
        if (!s)
                return -ENOMEM;
        free(*section);
        *section = s;
        return 0;
}

bool conf_item_differs(const ConfItem *item, const void *a, const void *b)
{
        const void *x = (const uint8_t *) a + item->offset, *y = (const uint8_t *) b + item->offset;

        if (item->string)
                return !streq_ptr(*(char *const *) x, *(char *const *) y);
        return memcmp(x, y, item->size) != 0;
}

static int parse_assignment(
                char *l, unsigned line, const char *section, const ConfItem *items, void *base, char ***messages)
{
        char *eq, *key, *value;
        const ConfItem *it;
        int r;

        eq = strchr(l, '=');
        if (!eq)
                return report(messages, line, true, "error: expected Key=Value, got '%s'", l);
        *eq = '\0';
        key = strstrip(l);
        value = strstrip(eq + 1);

        for (it = items; it->key; it++)
                if (streq_ptr(it->section, section) && streq(it->key, key))
                        break;
        if (!it->key)
                return report(messages, line, false, "warning: unknown key '%s' in section [%s], ignored", key,
                                strempty(section));

        r = it->parse(value, (uint8_t *) base + it->offset);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return report(messages, line, true, "error: invalid value '%s' for %s", value, key);
        return 0;
}

/* Parses the line of len bytes at p. Returns 1 for an error (reported in messages), 0 otherwise, or a
 * negative errno when even that failed. */
static int parse_line(const char *p, size_t len, unsigned line, char **section, const ConfItem *items, void *base,
                char ***messages)
{
        _cleanup_free_ char *buf = NULL;
        char *l;

        if (len > CONF_LINE_MAX)
                return report(messages, line, true, "error: line longer than %u bytes", CONF_LINE_MAX);
        buf = strndup(p, len);
        if (!buf)
                return -ENOMEM;
        if (strlen(buf) != len)
                return report(messages, line, true, "error: NUL byte");

        l = strstrip(buf);
        if (!*l || *l == '#' || *l == ';')
                return 0;
        if (*l == '[')
                return parse_section_header(l, line, section, messages);
        return parse_assignment(l, line, *section, items, base, messages);
}

int conf_parse_text(const char *text, size_t size, const ConfItem *items, void *base, char ***ret_messages)
{
        _cleanup_free_ char *section = NULL;
        const char *p = text, *end = text + size;
        unsigned line = 0;
        int errors = 0, r;

        assert(text || size == 0);
        assert(items);

        if (size > CONF_FILE_SIZE_MAX)
                return -EFBIG;

        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                size_t len = nl ? (size_t) (nl - p) : (size_t) (end - p);

                r = parse_line(p, len, ++line, &section, items, base, ret_messages);
                if (r < 0)
                        return r;
                errors += r;
                p = nl ? nl + 1 : end;
        }

        return errors;
}

int conf_parse_bool(const char *value, void *data)
{
        return safe_atob(value, data);
}

int conf_parse_usec(const char *value, void *data)
{
        return parse_usec(value, data);
}

int conf_parse_size(const char *value, void *data)
{
        return parse_size(value, data);
}

int conf_parse_unsigned(const char *value, void *data)
{
        return safe_atou(value, data);
}

int conf_parse_string(const char *value, void *data)
{
        char **s = data, *c = NULL;

        if (*value) {
                c = strdup(value);
                if (!c)
                        return -ENOMEM;
        }
        free(*s);
        *s = c;
        return 0;
}
