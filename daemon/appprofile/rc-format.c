/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "rc-format.h"

typedef struct Buf {
        char *s;
        size_t n, allocated;
} Buf;

static void buf_done(Buf *b)
{
        b->s = mfree(b->s);
}

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
        int r;

        r = put(b, "\"", 1);
        if (r < 0)
                return r;
        for (; *s; s++) {
                if (*s == '"' || *s == '\\') {
                        r = put(b, "\\", 1);
                        if (r < 0)
                                return r;
                }
                r = put(b, s, 1);
                if (r < 0)
                        return r;
        }
        return put(b, "\"", 1);
}

static int format(Buf *b, const RcPattern *p)
{
        const char *op = NULL;
        int r = 0;

        switch (p->kind) {
        case RC_PATTERN_MATCH:
                r = puts_(b, p->feature_name);
                if (r < 0)
                        return r;
                if (!p->matches || p->feature == RC_FEATURE_TRUE)
                        return 0;
                r = put(b, " ", 1);
                if (r < 0)
                        return r;
                return put_quoted(b, p->matches);
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
        if (r < 0)
                return r;
        r = put(b, "(", 1);
        if (r < 0)
                return r;
        for (size_t i = 0; i < p->n_sub; i++) {
                if (i > 0) {
                        r = put(b, ", ", 2);
                        if (r < 0)
                                return r;
                }
                r = format(b, &p->sub[i]);
                if (r < 0)
                        return r;
        }
        return put(b, ")", 1);
}

int rc_pattern_format(const RcPattern *p, char **ret)
{
        _cleanup_(buf_done) Buf b = { 0 };
        char *s;
        int r;

        assert(p);
        assert(ret);

        r = format(&b, p);
        if (r < 0)
                return r;
        /* An empty pattern formats to "", which the caller owns like any other result. */
        s = b.s ? TAKE_PTR(b.s) : strdup("");
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}
