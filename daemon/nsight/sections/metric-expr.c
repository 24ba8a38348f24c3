/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "metric-expr.h"

static bool is_name_start(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(char c)
{
        return is_name_start(c) || (c >= '0' && c <= '9') || c == '.';
}

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

/* Describes what is at s for an error message, escaped and short. */
static void describe(const char *s, char *buf, size_t size)
{
        size_t at = 0;
        if (!*s) {
                snprintf(buf, size, "end of expression");
                return;
        }
        at += (size_t) snprintf(buf, size, "\"");
        for (size_t i = 0; s[i] && i < 16 && at + 6 < size; i++) {
                unsigned char c = (unsigned char) s[i];
                if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
                        buf[at++] = (char) c;
                else
                        at += (size_t) snprintf(buf + at, size - at, "\\x%02x", c);
        }
        snprintf(buf + at, size - at, "\"");
}

static int fail(char **ret_error, const char *start, const char *at, const char *what)
{
        char found[100];
        describe(at, found, sizeof found);
        if (ret_error &&
                        asprintf(ret_error, "column %zu: expected %s, found %s", (size_t) (at - start) + 1, what,
                                        found) < 0)
                *ret_error = NULL;
        return -EINVAL;
}

typedef struct ExprParser {
        const char *start;
        const char *p;
        unsigned depth;
        char **error;
} ExprParser;

static void skip_space(ExprParser *x)
{
        while (*x->p == ' ' || *x->p == '\t')
                x->p++;
}

MetricExpr *metric_expr_free(MetricExpr *e)
{
        if (!e)
                return NULL;
        metric_expr_free(e->lhs);
        metric_expr_free(e->rhs);
        free(e->name);
        return mfree(e);
}

static MetricExpr *node(ExprParser *x, MetricExprKind kind, const char *at)
{
        MetricExpr *e = calloc(1, sizeof(MetricExpr));
        if (e) {
                e->kind = kind;
                e->column = (unsigned) (at - x->start) + 1;
        }
        return e;
}

static const char *const functions[] = { "simplify", "nan_as_zero" };

static int parse_sum(ExprParser *x, MetricExpr **ret);

static int parse_primary(ExprParser *x, MetricExpr **ret)
{
        const char *s;
        int r;

        skip_space(x);
        s = x->p;
        if (++x->depth > METRIC_EXPR_MAX_DEPTH) {
                if (x->error &&
                                asprintf(x->error, "column %zu: nested deeper than %u", (size_t) (s - x->start) + 1,
                                                METRIC_EXPR_MAX_DEPTH) < 0)
                        *x->error = NULL;
                return -EINVAL;
        }

        if (*s == '(') {
                x->p++;
                r = parse_sum(x, ret);
                if (r < 0)
                        return r;
                skip_space(x);
                if (*x->p != ')') {
                        *ret = metric_expr_free(*ret);
                        return fail(x->error, x->start, x->p, "\")\"");
                }
                x->p++;
                x->depth--;
                return 0;
        }

        if (is_name_start(*s)) {
                const char *e = s;
                while (is_name_char(*e))
                        e++;
                if (e[-1] == '.')
                        return fail(x->error, x->start, e - 1, "a metric name not ending in '.'");
                const char *after = e;
                while (*after == ' ' || *after == '\t')
                        after++;
                _cleanup_free_ char *name = strndup(s, (size_t) (e - s));
                if (!name)
                        return -ENOMEM;
                if (*after == '(') {
                        bool known = false;
                        for (size_t i = 0; i < ELEMENTSOF(functions); i++)
                                known = known || streq(functions[i], name);
                        if (!known)
                                return fail(x->error, x->start, s,
                                                "a metric name or one of the functions simplify, nan_as_zero");
                        MetricExpr *call = node(x, METRIC_EXPR_CALL, s);
                        if (!call)
                                return -ENOMEM;
                        call->name = TAKE_PTR(name);
                        x->p = after + 1;
                        r = parse_sum(x, &call->lhs);
                        if (r < 0) {
                                metric_expr_free(call);
                                return r;
                        }
                        skip_space(x);
                        if (*x->p != ')') {
                                metric_expr_free(call);
                                return fail(x->error, x->start, x->p, "\")\" closing the call");
                        }
                        x->p++;
                        x->depth--;
                        *ret = call;
                        return 0;
                }
                MetricExpr *m = node(x, METRIC_EXPR_METRIC, s);
                if (!m)
                        return -ENOMEM;
                m->name = TAKE_PTR(name);
                x->p = e;
                x->depth--;
                *ret = m;
                return 0;
        }

        if (!is_digit(*s))
                return fail(x->error, x->start, s, "a metric name, a constant or \"(\"");

        const char *e = s;
        while (is_digit(*e))
                e++;
        bool is_double = *e == '.';
        if (is_double) {
                e++;
                while (is_digit(*e))
                        e++;
        }
        if (is_name_char(*e))
                return fail(x->error, x->start, e, "an operator or the end after a constant");

        char buf[400];
        size_t len = (size_t) (e - s);
        if (len >= sizeof buf)
                return fail(x->error, x->start, s, "a constant of at most 399 characters");
        memcpy(buf, s, len);
        buf[len] = '\0';
        MetricExpr *c = node(x, is_double ? METRIC_EXPR_DOUBLE : METRIC_EXPR_UINT64, s);
        if (!c)
                return -ENOMEM;
        errno = 0;
        if (is_double)
                c->d = strtod(buf, NULL);
        else {
                c->u = strtoull(buf, NULL, 10);
                if (errno == ERANGE) {
                        metric_expr_free(c);
                        return fail(x->error, x->start, s, "a constant that fits in 64 bits");
                }
        }
        x->p = e;
        x->depth--;
        *ret = c;
        return 0;
}

/* Left-associative binary levels: products bind tighter than sums. */
static int parse_level(ExprParser *x, const char *ops, int (*operand)(ExprParser *, MetricExpr **), MetricExpr **ret)
{
        MetricExpr *lhs = NULL;
        int r = operand(x, &lhs);
        if (r < 0)
                return r;
        for (;;) {
                skip_space(x);
                if (!*x->p || !strchr(ops, *x->p)) {
                        *ret = lhs;
                        return 0;
                }
                MetricExpr *b = node(x, METRIC_EXPR_BINARY, x->p);
                if (!b) {
                        metric_expr_free(lhs);
                        return -ENOMEM;
                }
                b->op = *x->p++;
                b->lhs = lhs;
                r = operand(x, &b->rhs);
                if (r < 0) {
                        metric_expr_free(b);
                        return r;
                }
                lhs = b;
        }
}

static int parse_product(ExprParser *x, MetricExpr **ret)
{
        return parse_level(x, "*/", parse_primary, ret);
}

static int parse_sum(ExprParser *x, MetricExpr **ret)
{
        return parse_level(x, "+-", parse_product, ret);
}

int metric_expr_parse(const char *s, MetricExpr **ret, char **ret_error)
{
        ExprParser x = { .start = s, .p = s, .error = ret_error };
        MetricExpr *e = NULL;
        int r;

        if (ret_error)
                *ret_error = NULL;
        if (strnlen(s, METRIC_EXPR_MAX_LENGTH + 1) > METRIC_EXPR_MAX_LENGTH) {
                if (ret_error &&
                                asprintf(ret_error, "expression longer than %u characters", METRIC_EXPR_MAX_LENGTH) < 0)
                        *ret_error = NULL;
                return -EINVAL;
        }
        r = parse_sum(&x, &e);
        if (r < 0)
                return r;
        skip_space(&x);
        if (*x.p) {
                metric_expr_free(e);
                return fail(ret_error, s, x.p, "an operator (+ - * /) or the end of the expression");
        }
        *ret = e;
        return 0;
}

int metric_expr_foreach_metric(const MetricExpr *e, int (*f)(const char *name, void *userdata), void *userdata)
{
        int r;
        if (!e)
                return 0;
        if (e->kind == METRIC_EXPR_METRIC)
                return f(e->name, userdata);
        if ((r = metric_expr_foreach_metric(e->lhs, f, userdata)) < 0)
                return r;
        return metric_expr_foreach_metric(e->rhs, f, userdata);
}

/* ---- evaluation ---- */

static void scalar_done(MetricScalar *s)
{
        s->s = mfree(s->s);
}

void metric_value_done(MetricValue *v)
{
        if (!v)
                return;
        scalar_done(&v->value);
        for (size_t i = 0; i < v->n_instances; i++)
                scalar_done(&v->instances[i].value);
        v->instances = mfree(v->instances);
        *v = (MetricValue){ 0 };
}

static uint64_t double_to_u64(double d)
{
        if (isnan(d) || d <= 0)
                return 0;
        if (d >= 18446744073709551616.0)
                return UINT64_MAX;
        return (uint64_t) d;
}

static int scalar_copy(const MetricScalar *a, MetricScalar *ret)
{
        *ret = *a;
        ret->s = NULL;
        if (a->kind == METRIC_VALUE_STRING && !(ret->s = strdup(a->s ? a->s : "")))
                return -ENOMEM;
        return 0;
}

/* b converted to kind. */
static void scalar_convert(const MetricScalar *b, MetricValueKind kind, uint64_t *u, double *d)
{
        double bd = b->kind == METRIC_VALUE_DOUBLE       ? b->d
                        : b->kind == METRIC_VALUE_UINT64 ? (double) b->u
                                                         : (b->s ? strtod(b->s, NULL) : 0);
        if (kind == METRIC_VALUE_DOUBLE)
                *d = bd;
        else if (b->kind == METRIC_VALUE_UINT64)
                *u = b->u;
        else if (b->kind == METRIC_VALUE_STRING && b->s) {
                char *end;
                errno = 0;
                unsigned long long v = strtoull(b->s, &end, 10);
                *u = (errno == 0 && end != b->s && *end == '\0' && b->s[0] != '-') ? v : double_to_u64(bd);
        } else
                *u = double_to_u64(bd);
}

static int scalar_op(const MetricScalar *a, char op, const MetricScalar *b, MetricScalar *ret)
{
        if (a->kind == METRIC_VALUE_STRING)
                return scalar_copy(a, ret);

        uint64_t bu = 0;
        double bd = 0;
        scalar_convert(b, a->kind, &bu, &bd);
        *ret = (MetricScalar){ .kind = a->kind };

        if (a->kind == METRIC_VALUE_DOUBLE) {
                if (op == '/' && b->kind == METRIC_VALUE_UINT64 && b->u == 0)
                        ret->d = a->d;
                else
                        ret->d = op == '+' ? a->d + bd : op == '-' ? a->d - bd : op == '*' ? a->d * bd : a->d / bd;
                return 0;
        }
        if (op == '/' && bu == 0)
                ret->u = a->u;
        else
                ret->u = op == '+' ? a->u + bu : op == '-' ? a->u - bu : op == '*' ? a->u * bu : a->u / bu;
        return 0;
}

static int need_value(const MetricValue *v, const char *side, char **ret_error)
{
        if (v->has_value)
                return 0;
        if (ret_error && asprintf(ret_error, "the %s operand has instances but no regular value to combine", side) < 0)
                *ret_error = NULL;
        return -EINVAL;
}

int metric_value_copy(const MetricValue *v, MetricValue *ret)
{
        MetricValue c = *v;
        c.instances = NULL;
        c.n_instances = 0;
        c.value.s = NULL;
        if (scalar_copy(&v->value, &c.value) < 0)
                return -ENOMEM;
        if (v->n_instances > 0) {
                c.instances = calloc(v->n_instances, sizeof(MetricInstance));
                if (!c.instances) {
                        metric_value_done(&c);
                        return -ENOMEM;
                }
                for (size_t i = 0; i < v->n_instances; i++, c.n_instances++) {
                        c.instances[i].id = v->instances[i].id;
                        if (scalar_copy(&v->instances[i].value, &c.instances[i].value) < 0) {
                                metric_value_done(&c);
                                return -ENOMEM;
                        }
                }
        }
        *ret = c;
        return 0;
}

static int push_instance(MetricValue *r, uint64_t id, MetricScalar *v)
{
        MetricInstance *grown = reallocarray(r->instances, r->n_instances + 1, sizeof(MetricInstance));
        if (!grown) {
                scalar_done(v);
                return -ENOMEM;
        }
        r->instances = grown;
        r->instances[r->n_instances++] = (MetricInstance){ .id = id, .value = *v };
        return 0;
}

/* An instance of b standing alone in a join: converted to a's kind. */
static int convert_alone(const MetricScalar *b, MetricValueKind kind, MetricScalar *ret)
{
        if (kind == METRIC_VALUE_STRING || b->kind == kind)
                return scalar_copy(b, ret);
        *ret = (MetricScalar){ .kind = kind };
        scalar_convert(b, kind, &ret->u, &ret->d);
        return 0;
}

static int compare_ids(const void *x, const void *y)
{
        uint64_t a = ((const MetricInstance *) x)->id, b = ((const MetricInstance *) y)->id;
        return a < b ? -1 : a > b;
}

static int sorted_copy(const MetricValue *v, MetricInstance **ret)
{
        MetricInstance *c = calloc(v->n_instances + 1, sizeof(MetricInstance));
        if (!c)
                return -ENOMEM;
        if (v->n_instances > 0)
                memcpy(c, v->instances, v->n_instances * sizeof(MetricInstance));
        qsort_safe(c, v->n_instances, sizeof(MetricInstance), compare_ids);
        *ret = c;
        return 0;
}

static int join_on_ids(const MetricValue *a, char op, const MetricValue *b, MetricValue *r)
{
        _cleanup_free_ MetricInstance *x = NULL, *y = NULL;
        size_t i = 0, j = 0;
        int k;

        if (sorted_copy(a, &x) < 0 || sorted_copy(b, &y) < 0)
                return -ENOMEM;
        r->has_instances = r->has_ids = true;
        while (i < a->n_instances || j < b->n_instances) {
                MetricScalar v;
                uint64_t id;
                if (j >= b->n_instances || (i < a->n_instances && x[i].id < y[j].id)) {
                        id = x[i].id;
                        k = scalar_copy(&x[i++].value, &v);
                } else if (i >= a->n_instances || y[j].id < x[i].id) {
                        id = y[j].id;
                        k = convert_alone(&y[j++].value, a->value.kind, &v);
                } else {
                        id = x[i].id;
                        k = scalar_op(&x[i++].value, op, &y[j++].value, &v);
                }
                if (k < 0 || push_instance(r, id, &v) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* Fills *r (zeroed by the caller, which frees it on failure too). */
static int combine(const MetricValue *a, char op, const MetricValue *b, MetricValue *r, char **ret_error)
{
        bool a_list = a->has_instances, b_list = b->has_instances;
        bool a_ids = a_list && a->has_ids, b_ids = b_list && b->has_ids;
        int k;

        /* The kind of the result is a's, also when a's regular value is absent. */
        r->value.kind = a->has_value ? a->value.kind
                                     : (a->n_instances > 0 ? a->instances[0].value.kind : a->value.kind);

        if (b_ids && !a_ids) {
                /* Rule 5: a op b1 op b2 ..., one regular value. */
                k = need_value(a, "left", ret_error);
                if (k < 0)
                        return k;
                k = scalar_copy(&a->value, &r->value);
                for (size_t i = 0; k >= 0 && i < b->n_instances; i++) {
                        MetricScalar next;
                        k = scalar_op(&r->value, op, &b->instances[i].value, &next);
                        if (k >= 0) {
                                scalar_done(&r->value);
                                r->value = next;
                        }
                }
                if (k < 0)
                        return k;
                r->has_value = true;
                return 0;
        }
        if (!a_list && b_list) {
                /* Only b has instances (no ids): as rule 5. */
                MetricValue b2 = *b;
                b2.has_ids = true;
                return metric_value_combine(a, op, &b2, r, ret_error);
        }

        if (a->has_value && b->has_value) {
                k = scalar_op(&a->value, op, &b->value, &r->value);
                if (k < 0)
                        return k;
                r->has_value = true;
        } else if (!a_list && !b_list)
                return need_value(a->has_value ? b : a, a->has_value ? "right" : "left", ret_error);

        if (a_ids && b_ids)
                return join_on_ids(a, op, b, r);
        else if (a_list && b_list && !a_ids && !b_ids) {
                /* Rule 2: pairwise over the shorter list. */
                r->has_instances = true;
                k = 0;
                for (size_t i = 0; k >= 0 && i < MIN(a->n_instances, b->n_instances); i++) {
                        MetricScalar v;
                        k = scalar_op(&a->instances[i].value, op, &b->instances[i].value, &v);
                        if (k >= 0)
                                k = push_instance(r, 0, &v);
                }
                return k;
        } else if (a_list) {
                /* Rule 4: b's regular value with each of a's instances, a's ids kept. */
                k = need_value(b, "right", ret_error);
                if (k < 0)
                        return k;
                r->has_instances = true;
                r->has_ids = a_ids;
                for (size_t i = 0; k >= 0 && i < a->n_instances; i++) {
                        MetricScalar v;
                        k = scalar_op(&a->instances[i].value, op, &b->value, &v);
                        if (k >= 0)
                                k = push_instance(r, a->instances[i].id, &v);
                }
                return k;
        }
        return 0;
}

int metric_value_combine(const MetricValue *a, char op, const MetricValue *b, MetricValue *ret, char **ret_error)
{
        MetricValue r = { 0 };
        int k;

        assert(strchr("+-*/", op) && op);
        if (ret_error)
                *ret_error = NULL;
        k = combine(a, op, b, &r, ret_error);
        if (k < 0) {
                metric_value_done(&r);
                return k;
        }
        *ret = r;
        return 0;
}

static int evaluate(const MetricExpr *e, MetricValueLookup lookup, void *userdata, MetricValue *ret, char **ret_error)
{
        _cleanup_(metric_value_done) MetricValue a = { 0 }, b = { 0 };
        int r;

        switch (e->kind) {
        case METRIC_EXPR_UINT64:
                *ret = (MetricValue){ .has_value = true, .value = { .kind = METRIC_VALUE_UINT64, .u = e->u } };
                return 0;
        case METRIC_EXPR_DOUBLE:
                *ret = (MetricValue){ .has_value = true, .value = { .kind = METRIC_VALUE_DOUBLE, .d = e->d } };
                return 0;
        case METRIC_EXPR_METRIC: {
                const MetricValue *v = lookup ? lookup(e->name, userdata) : NULL;
                if (!v) {
                        if (ret_error && asprintf(ret_error, "no value for metric \"%s\"", e->name) < 0)
                                *ret_error = NULL;
                        return -ENOENT;
                }
                /* A copy, so that every node owns its result. */
                return metric_value_copy(v, ret);
        }
        case METRIC_EXPR_CALL:
                r = evaluate(e->lhs, lookup, userdata, ret, ret_error);
                if (r < 0 || !streq(e->name, "nan_as_zero"))
                        return r; /* simplify(x) is x */
                if (ret->value.kind == METRIC_VALUE_DOUBLE && isnan(ret->value.d))
                        ret->value.d = 0;
                for (size_t i = 0; i < ret->n_instances; i++)
                        if (ret->instances[i].value.kind == METRIC_VALUE_DOUBLE && isnan(ret->instances[i].value.d))
                                ret->instances[i].value.d = 0;
                return 0;
        case METRIC_EXPR_BINARY:
                r = evaluate(e->lhs, lookup, userdata, &a, ret_error);
                if (r < 0)
                        return r;
                r = evaluate(e->rhs, lookup, userdata, &b, ret_error);
                if (r < 0)
                        return r;
                return metric_value_combine(&a, e->op, &b, ret, ret_error);
        }
        assert_not_reached();
}

int metric_expr_evaluate(
                const MetricExpr *e, MetricValueLookup lookup, void *userdata, MetricValue *ret, char **ret_error)
{
        if (ret_error)
                *ret_error = NULL;
        *ret = (MetricValue){ 0 };
        return evaluate(e, lookup, userdata, ret, ret_error);
}
