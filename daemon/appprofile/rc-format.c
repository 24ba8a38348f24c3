/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "rc-format.h"

typedef struct Buf {
        char *s;
        size_t n, allocated;
} Buf;

static int put(Buf *b, const char *s, size_t len)
{
        if (GREEDY_REALLOC(b->s, b->allocated, b->n + len + 1) < 0)
                return -ENOMEM;
        memcpy(b->s + b->n, s, len);
        b->n += len;
        b->s[b->n] = '\0';
        return 0;
}

static int puts_(Buf *b, const char *s)
{
        return put(b, s, strlen(s));
}

static int put_quoted(Buf *b, const char *s)
{
        int r = put(b, "\"", 1);

        for (; r >= 0 && *s; s++) {
                if (*s == '"' || *s == '\\')
                        r = put(b, "\\", 1);
                if (r >= 0)
                        r = put(b, s, 1);
        }
        return r < 0 ? r : put(b, "\"", 1);
}

static int format(Buf *b, const RcPattern *p)
{
        const char *op = NULL;
        int r = 0;

        switch (p->kind) {
        case RC_PATTERN_MATCH:
                r = puts_(b, p->feature_name);
                if (r >= 0 && p->matches && p->feature != RC_FEATURE_TRUE) {
                        r = put(b, " ", 1);
                        if (r >= 0)
                                r = put_quoted(b, p->matches);
                }
                return r;
        case RC_PATTERN_AND:
                op = "and";
                break;
        case RC_PATTERN_OR:
                op = "or";
                break;
        case RC_PATTERN_NOT:
                op = "not";
                break;
        case RC_PATTERN_UNKNOWN_OP:
                op = p->op_name;
                break;
        case _RC_PATTERN_KIND_MAX:
                assert_not_reached();
        }

        /* An empty pattern array is the "always" rule: say so. */
        if (p->kind == RC_PATTERN_AND && p->shorthand && p->n_sub == 0)
                return puts_(b, "[] (always)");

        r = puts_(b, op);
        if (r >= 0)
                r = put(b, "(", 1);
        for (size_t i = 0; r >= 0 && i < p->n_sub; i++) {
                if (i > 0)
                        r = put(b, ", ", 2);
                if (r >= 0)
                        r = format(b, &p->sub[i]);
        }
        return r < 0 ? r : put(b, ")", 1);
}

int rc_pattern_format(const RcPattern *p, char **ret)
{
        Buf b = { 0 };
        int r;

        assert(p);
        assert(ret);

        r = format(&b, p);
        if (r < 0) {
                free(b.s);
                return r;
        }
        *ret = b.s ? b.s : strdup("");
        return *ret ? 0 : -ENOMEM;
}
