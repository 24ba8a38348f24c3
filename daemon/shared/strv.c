/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "strv.h"

char **strv_free(char **l)
{
        if (!l)
                return NULL;
        for (char **s = l; *s; s++)
                free(*s);
        free(l);
        return NULL;
}

size_t strv_length(char *const *l)
{
        size_t n = 0;

        if (!l)
                return 0;
        while (l[n])
                n++;
        return n;
}

int strv_consume(char ***l, char *s)
{
        size_t n;
        char **c;

        assert(l);

        if (!s)
                return -ENOMEM;

        n = strv_length(*l);
        c = reallocarray(*l, n + 2, sizeof(char *));
        if (!c) {
                free(s);
                return -ENOMEM;
        }
        c[n] = s;
        c[n + 1] = NULL;
        *l = c;
        return 0;
}

int strv_extend(char ***l, const char *s)
{
        assert(s);
        return strv_consume(l, strdup(s));
}

char *strv_join(char *const *l, const char *separator)
{
        size_t n = 0, k = strlen(separator);
        char *s, *p;

        STRV_FOREACH(i, l)
                n += strlen(*i) + k;
        s = malloc(n + 1);
        if (!s)
                return NULL;
        p = s;
        STRV_FOREACH(i, l) {
                if (i != l)
                        p = stpcpy(p, separator);
                p = stpcpy(p, *i);
        }
        *p = '\0';
        return s;
}

char **strv_copy(char *const *l)
{
        _cleanup_strv_free_ char **c = NULL;
        size_t n = strv_length(l);

        c = calloc(n + 1, sizeof(char *));
        if (!c)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                c[i] = strdup(l[i]);
                if (!c[i])
                        return NULL;
        }
        return TAKE_PTR(c);
}

bool strv_contains(char *const *l, const char *s)
{
        STRV_FOREACH(x, l)
                if (streq(*x, s))
                        return true;
        return false;
}

const char *strv_env_get(char *const *env, const char *name)
{
        size_t len;

        assert(name);

        len = strlen(name);
        STRV_FOREACH(e, env)
                if (strneq(*e, name, len) && (*e)[len] == '=')
                        return *e + len + 1;
        return NULL;
}

int strv_from_nulstr(const char *buf, size_t size, size_t max, char ***ret)
{
        _cleanup_strv_free_ char **l = NULL;
        size_t n = 0, allocated = 0;
        const char *p = buf, *end = buf + size;

        assert(buf || size == 0);
        assert(ret);

        while (p < end && n < max) {
                const char *z = memchr(p, '\0', (size_t) (end - p));
                size_t len = z ? (size_t) (z - p) : (size_t) (end - p);

                if (GREEDY_REALLOC(l, allocated, n + 2) < 0)
                        return -ENOMEM;
                l[n] = strndup(p, len);
                if (!l[n])
                        return -ENOMEM;
                l[++n] = NULL;
                p += len + 1;
        }

        if (!l) {
                l = calloc(1, sizeof(char *));
                if (!l)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(l);
        return 0;
}
