/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Selecting actions by NVTX state, after ncu's --nvtx-include/--nvtx-exclude expressions:
 *
 *   expression := [ domain "@" ] ( range | stack )
 *   range      := a name: a start/end range of that name is open in the domain
 *   stack      := [ "[" ] element { "/" element } [ "/" | "]" ]   (has a "/", a leading "[" or a trailing "]")
 *   element    := a name, or "*": any number of ranges (none included)
 *
 * A stack pattern matches the push/pop stack of the action's thread in the domain, outermost first: "["
 * ties the first element to the bottom of the stack, "]" ties the last to the top; without them the
 * pattern may match anywhere in the stack. Without "domain@" the domain is the state's default domain.
 * A backslash takes the next character literally ("\@", "\/", "\[", "\]", "\*", "\\"). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define NVTX_PATTERN_MAX 4096 /* bytes of one expression */
#define NVTX_ELEMENTS_MAX 64

typedef struct NvtxPattern {
        char *domain; /* NULL: the default domain */
        bool stack;
        bool bottom, top;
        size_t n_elements;
        char *elements[NVTX_ELEMENTS_MAX]; /* NULL element = "*" */
        char *range; /* start/end range name, when !stack */
        char *buf; /* owns every string above */
} NvtxPattern;

static void pattern_done(NvtxPattern *p)
{
        free(p->buf);
        *p = (NvtxPattern){ 0 };
}

/* Splits s into the pattern; every unescaped special character is structure. */
static int pattern_parse(const char *s, NvtxPattern *ret)
{
        NvtxPattern p = { 0 };
        size_t n = strlen(s), start;
        char *o;
        const char *at = NULL;

        if (n == 0 || n > NVTX_PATTERN_MAX)
                return -EINVAL;
        p.buf = malloc(2 * n + 2);
        if (!p.buf)
                return -ENOMEM;
        o = p.buf;

        /* The first unescaped '@' ends the domain. */
        for (const char *c = s; *c; c++) {
                if (*c == '\\' && c[1]) {
                        c++;
                        continue;
                }
                if (*c == '@') {
                        at = c;
                        break;
                }
        }
        if (at) {
                p.domain = o;
                for (const char *c = s; c < at; c++) {
                        if (*c == '\\' && c + 1 < at)
                                c++;
                        *o++ = *c;
                }
                *o++ = 0;
                s = at + 1;
        }

        n = strlen(s);
        start = 0;
        if (n > 0 && s[0] == '[') {
                p.bottom = p.stack = true;
                start = 1;
        }
        if (n > start && s[n - 1] == ']' && (n < 2 || s[n - 2] != '\\')) {
                p.top = p.stack = true;
                n--;
        }
        for (size_t i = start; i < n; i++)
                if (s[i] == '\\')
                        i++;
                else if (s[i] == '/')
                        p.stack = true;

        if (!p.stack) {
                p.range = o;
                for (size_t i = start; i < n; i++) {
                        if (s[i] == '\\' && i + 1 < n)
                                i++;
                        *o++ = s[i];
                }
                *o = 0;
                if (*p.range == 0) {
                        pattern_done(&p);
                        return -EINVAL;
                }
                *ret = p;
                return 0;
        }

        /* Elements between unescaped '/'; a trailing '/' ends the stack without an empty element. */
        for (size_t i = start; i <= n; i++) {
                char *e = o;
                bool escaped_star = false, star_only = true, any = false;

                for (; i < n && s[i] != '/'; i++) {
                        if (s[i] == '\\' && i + 1 < n) {
                                i++;
                                if (s[i] == '*')
                                        escaped_star = true;
                        }
                        *o++ = s[i];
                        any = true;
                        if (s[i] != '*' || escaped_star)
                                star_only = false;
                }
                *o++ = 0;
                if (!any) {
                        if (i == n && i > start && s[i - 1] == '/')
                                break; /* trailing '/' */
                        pattern_done(&p);
                        return -EINVAL; /* empty element: "//", "/A", "[/" */
                }
                if (p.n_elements >= NVTX_ELEMENTS_MAX) {
                        pattern_done(&p);
                        return -EINVAL;
                }
                p.elements[p.n_elements++] = star_only && streq(e, "*") ? NULL : e;
        }
        if (p.n_elements == 0) {
                pattern_done(&p);
                return -EINVAL;
        }
        *ret = p;
        return 0;
}

static const NcuNvtxDomain *find_domain(const NcuNvtxState *s, const char *name)
{
        for (size_t i = 0; i < s->n_domains; i++) {
                const NcuNvtxDomain *d = &s->domains[i];
                if (name ? streq_ptr(d->name, name) : (s->has_default_domain && d->id == s->default_domain))
                        return d;
        }
        return NULL;
}

/* Does elements[0..m) match stack[0..n) entirely? '*' spans any run. Iterative, O(n*m) worst case. */
static bool match_exact(char *const *elements, size_t m, const NcuNvtxRange *stack, size_t n)
{
        size_t i = 0, j = 0, star_i = SIZE_MAX, star_j = 0;

        while (j < n) {
                if (i < m && elements[i] && streq_ptr(stack[j].name, elements[i])) {
                        i++;
                        j++;
                } else if (i < m && !elements[i]) {
                        star_i = i++;
                        star_j = j;
                } else if (star_i != SIZE_MAX) {
                        i = star_i + 1;
                        j = ++star_j;
                } else
                        return false;
        }
        while (i < m && !elements[i])
                i++;
        return i == m;
}

static bool pattern_matches(const NvtxPattern *p, const NcuAction *a)
{
        const NcuNvtxDomain *d;

        if (!a->nvtx)
                return false;
        d = find_domain(a->nvtx, p->domain);
        if (!d)
                return false;
        if (!p->stack) {
                for (size_t i = 0; i < d->n_start_end; i++)
                        if (streq_ptr(d->start_end[i].name, p->range))
                                return true;
                return false;
        }
        {
                /* An unanchored end is a "*" there: one linear-time wildcard match. */
                char *elements[NVTX_ELEMENTS_MAX + 2];
                size_t m = 0;

                if (!p->bottom)
                        elements[m++] = NULL;
                memcpy(elements + m, p->elements, p->n_elements * sizeof(char *));
                m += p->n_elements;
                if (!p->top)
                        elements[m++] = NULL;
                return match_exact(elements, m, d->push_pop, d->n_push_pop);
        }
}

static int patterns_parse(char *const *exprs, size_t n, NvtxPattern **ret)
{
        NvtxPattern *p = calloc(MAX(n, (size_t) 1), sizeof(NvtxPattern));
        int r;

        if (!p)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                r = pattern_parse(exprs[i], &p[i]);
                if (r < 0) {
                        for (size_t j = 0; j < i; j++)
                                pattern_done(&p[j]);
                        free(p);
                        return r;
                }
        }
        *ret = p;
        return 0;
}

static void patterns_free(NvtxPattern *p, size_t n)
{
        for (size_t i = 0; i < n; i++)
                pattern_done(&p[i]);
        free(p);
}

int ncu_range_actions_by_nvtx(const NcuRange *range, char *const *includes, size_t n_includes, char *const *excludes,
                size_t n_excludes, size_t **ret_indices)
{
        NvtxPattern *inc = NULL, *exc = NULL;
        size_t *out, n = 0;
        int r;

        assert(range && ret_indices);
        assert(includes || n_includes == 0);
        assert(excludes || n_excludes == 0);

        r = patterns_parse(includes, n_includes, &inc);
        if (r < 0)
                return r;
        r = patterns_parse(excludes, n_excludes, &exc);
        if (r < 0) {
                patterns_free(inc, n_includes);
                return r;
        }
        out = malloc(MAX(range->n_actions, (size_t) 1) * sizeof(size_t));
        if (!out) {
                patterns_free(inc, n_includes);
                patterns_free(exc, n_excludes);
                return -ENOMEM;
        }
        for (size_t i = 0; i < range->n_actions; i++) {
                /* No include selects nothing: NVIDIA's module answers actions_by_nvtx([], []) with () on
                 * every corpus report, NVTX state or not. */
                bool selected = false;

                for (size_t j = 0; j < n_includes && !selected; j++)
                        selected = pattern_matches(&inc[j], range->actions[i]);
                for (size_t j = 0; j < n_excludes && selected; j++)
                        selected = !pattern_matches(&exc[j], range->actions[i]);
                if (selected)
                        out[n++] = i;
        }
        patterns_free(inc, n_includes);
        patterns_free(exc, n_excludes);
        *ret_indices = out;
        return (int) MIN(n, (size_t) INT32_MAX);
}
