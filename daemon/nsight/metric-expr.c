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

static const char *skip_space(const char *p)
{
        while (*p == ' ' || *p == '\t')
                p++;
        return p;
}

static int parse_operand(const char *start, const char **p, MetricExprOperand *ret, char **ret_error)
{
        const char *s = *p;
        *ret = (MetricExprOperand){ .column = (unsigned) (s - start) + 1 };

        if (is_name_start(*s)) {
                const char *e = s;
                while (is_name_char(*e))
                        e++;
                if (e[-1] == '.')
                        return fail(ret_error, start, e - 1, "a metric name not ending in '.'");
                ret->kind = METRIC_OPERAND_METRIC;
                ret->metric = strndup(s, (size_t) (e - s));
                if (!ret->metric)
                        return -ENOMEM;
                *p = e;
                return 0;
        }
        if (!is_digit(*s))
                return fail(ret_error, start, s, "a metric name or a constant");

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
                return fail(ret_error, start, e, "an operator or the end after a constant");

        char buf[400];
        size_t len = (size_t) (e - s);
        if (len >= sizeof buf)
                return fail(ret_error, start, s, "a constant of at most 399 characters");
        memcpy(buf, s, len);
        buf[len] = '\0';
        errno = 0;
        if (is_double) {
                ret->kind = METRIC_OPERAND_DOUBLE;
                ret->d = strtod(buf, NULL);
        } else {
                ret->kind = METRIC_OPERAND_UINT64;
                ret->u = strtoull(buf, NULL, 10);
                if (errno == ERANGE)
                        return fail(ret_error, start, s, "a constant that fits in 64 bits");
        }
        *p = e;
        return 0;
}

void metric_expr_done(MetricExpr *e)
{
        if (!e)
                return;
        e->lhs.metric = mfree(e->lhs.metric);
        e->rhs.metric = mfree(e->rhs.metric);
}

int metric_expr_parse(const char *s, MetricExpr *ret, char **ret_error)
{
        MetricExpr e = { 0 };
        const char *p;
        int r;

        if (ret_error)
                *ret_error = NULL;
        if (strnlen(s, METRIC_EXPR_MAX_LENGTH + 1) > METRIC_EXPR_MAX_LENGTH) {
                if (ret_error &&
                                asprintf(ret_error, "expression longer than %u characters", METRIC_EXPR_MAX_LENGTH) < 0)
                        *ret_error = NULL;
                return -EINVAL;
        }

        p = skip_space(s);
        r = parse_operand(s, &p, &e.lhs, ret_error);
        if (r < 0)
                goto fail;
        p = skip_space(p);
        if (!*p || !strchr("+-*/", *p)) {
                r = fail(ret_error, s, p, "an operator (+ - * /)");
                goto fail;
        }
        e.op = *p++;
        p = skip_space(p);
        r = parse_operand(s, &p, &e.rhs, ret_error);
        if (r < 0)
                goto fail;
        p = skip_space(p);
        if (*p) {
                r = fail(ret_error, s, p, "the end of the expression (one operator only)");
                goto fail;
        }
        *ret = e;
        return 0;
fail:
        metric_expr_done(&e);
        return r;
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

int metric_value_combine(const MetricValue *a, char op, const MetricValue *b, MetricValue *ret, char **ret_error)
{
        MetricValue r = { 0 };
        bool a_list = a->has_instances, b_list = b->has_instances;
        bool a_ids = a_list && a->has_ids, b_ids = b_list && b->has_ids;
        int k;

        assert(strchr("+-*/", op) && op);
        if (ret_error)
                *ret_error = NULL;

        /* The kind of the result is a's, also when a's regular value is absent. */
        r.value.kind = a->has_value ? a->value.kind : (a->n_instances > 0 ? a->instances[0].value.kind : a->value.kind);

        if (b_ids && !a_ids) {
                /* Rule 5: a op b1 op b2 ..., one regular value. */
                k = need_value(a, "left", ret_error);
                if (k < 0)
                        return k;
                k = scalar_copy(&a->value, &r.value);
                for (size_t i = 0; k >= 0 && i < b->n_instances; i++) {
                        MetricScalar next;
                        k = scalar_op(&r.value, op, &b->instances[i].value, &next);
                        if (k >= 0) {
                                scalar_done(&r.value);
                                r.value = next;
                        }
                }
                if (k < 0)
                        goto fail;
                r.has_value = true;
                *ret = r;
                return 0;
        }
        if (!a_list && b_list) {
                /* Only b has instances (no ids): as rule 5. */
                MetricValue b2 = *b;
                b2.has_ids = true;
                return metric_value_combine(a, op, &b2, ret, ret_error);
        }

        if (a->has_value && b->has_value) {
                k = scalar_op(&a->value, op, &b->value, &r.value);
                if (k < 0)
                        goto fail;
                r.has_value = true;
        } else if (!a_list && !b_list) {
                k = need_value(a->has_value ? b : a, a->has_value ? "right" : "left", ret_error);
                goto fail_k;
        }

        if (a_ids && b_ids)
                k = join_on_ids(a, op, b, &r);
        else if (a_list && b_list && !a_ids && !b_ids) {
                /* Rule 2: pairwise over the shorter list. */
                r.has_instances = true;
                k = 0;
                for (size_t i = 0; k >= 0 && i < MIN(a->n_instances, b->n_instances); i++) {
                        MetricScalar v;
                        k = scalar_op(&a->instances[i].value, op, &b->instances[i].value, &v);
                        if (k >= 0)
                                k = push_instance(&r, 0, &v);
                }
        } else if (a_list) {
                /* Rule 4: b's regular value with each of a's instances, a's ids kept. */
                k = need_value(b, "right", ret_error);
                if (k < 0)
                        goto fail_k;
                r.has_instances = true;
                r.has_ids = a_ids;
                for (size_t i = 0; k >= 0 && i < a->n_instances; i++) {
                        MetricScalar v;
                        k = scalar_op(&a->instances[i].value, op, &b->value, &v);
                        if (k >= 0)
                                k = push_instance(&r, a->instances[i].id, &v);
                }
        } else
                k = 0;
fail_k:
        if (k < 0)
                goto fail;
        *ret = r;
        return 0;
fail:
        metric_value_done(&r);
        return k < 0 ? k : -ENOMEM;
}

static void operand_value(const MetricExprOperand *o, MetricValue *v)
{
        *v = (MetricValue){ .has_value = true };
        if (o->kind == METRIC_OPERAND_UINT64)
                v->value = (MetricScalar){ .kind = METRIC_VALUE_UINT64, .u = o->u };
        else
                v->value = (MetricScalar){ .kind = METRIC_VALUE_DOUBLE, .d = o->d };
}

int metric_expr_evaluate(
                const MetricExpr *e, MetricValueLookup lookup, void *userdata, MetricValue *ret, char **ret_error)
{
        const MetricValue *side[2];
        MetricValue constants[2];
        const MetricExprOperand *ops[2] = { &e->lhs, &e->rhs };

        if (ret_error)
                *ret_error = NULL;
        for (size_t i = 0; i < 2; i++) {
                if (ops[i]->kind != METRIC_OPERAND_METRIC) {
                        operand_value(ops[i], &constants[i]);
                        side[i] = &constants[i];
                        continue;
                }
                side[i] = lookup ? lookup(ops[i]->metric, userdata) : NULL;
                if (!side[i]) {
                        if (ret_error && asprintf(ret_error, "no value for metric \"%s\"", ops[i]->metric) < 0)
                                *ret_error = NULL;
                        return -ENOENT;
                }
        }
        return metric_value_combine(side[0], e->op, side[1], ret, ret_error);
}
