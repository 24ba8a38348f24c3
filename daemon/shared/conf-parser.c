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

static int message(char ***messages, unsigned line, const char *fmt, ...) _printf_(3, 4);
static int message(char ***messages, unsigned line, const char *fmt, ...)
{
        _cleanup_free_ char *body = NULL;
        char *m;
        va_list ap;
        int r;

        if (!messages)
                return 0;
        va_start(ap, fmt);
        r = vasprintf(&body, fmt, ap);
        va_end(ap);
        if (r < 0 || asprintf(&m, "%u: %s", line, body) < 0)
                return -ENOMEM;
        return strv_consume(messages, m);
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
                _cleanup_free_ char *buf = NULL;
                char *l, *eq, *key, *value;
                const ConfItem *it;

                line++;
                if (len > CONF_LINE_MAX) {
                        r = message(ret_messages, line, "error: line longer than %u bytes", CONF_LINE_MAX);
                        if (r < 0)
                                return r;
                        errors++;
                        goto next;
                }
                buf = strndup(p, len);
                if (!buf)
                        return -ENOMEM;
                if (strlen(buf) != len) {
                        r = message(ret_messages, line, "error: NUL byte");
                        if (r < 0)
                                return r;
                        errors++;
                        goto next;
                }

                l = strstrip(buf);
                if (!*l || *l == '#' || *l == ';')
                        goto next;

                if (*l == '[') {
                        size_t n = strlen(l);
                        if (n < 3 || l[n - 1] != ']') {
                                r = message(ret_messages, line, "error: malformed section header '%s'", l);
                                if (r < 0)
                                        return r;
                                errors++;
                                goto next;
                        }
                        free(section);
                        section = strndup(l + 1, n - 2);
                        if (!section)
                                return -ENOMEM;
                        goto next;
                }

                eq = strchr(l, '=');
                if (!eq) {
                        r = message(ret_messages, line, "error: expected Key=Value, got '%s'", l);
                        if (r < 0)
                                return r;
                        errors++;
                        goto next;
                }
                *eq = '\0';
                key = strstrip(l);
                value = strstrip(eq + 1);

                for (it = items; it->key; it++)
                        if (streq_ptr(it->section, section) && streq(it->key, key))
                                break;
                if (!it->key) {
                        r = message(ret_messages, line, "warning: unknown key '%s' in section [%s], ignored", key,
                                        strempty(section));
                        if (r < 0)
                                return r;
                        goto next;
                }

                r = it->parse(value, (uint8_t *) base + it->offset);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        r = message(ret_messages, line, "error: invalid value '%s' for %s", value, key);
                        if (r < 0)
                                return r;
                        errors++;
                }
        next:
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
