/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Derived metrics (a section's MetricDefinitions). The Customization Guide's grammar is
 * "operand operator operand", operator one of + - * /, operand a metric name (letters, digits, '_'
 * and '.', not starting with a digit) or a constant: "N" is a uint64, "N." and "N.M" are doubles.
 * NVIDIA's own stock files go further, and we read what they use: several operators with the usual
 * precedence, parentheses, and the functions simplify(x) and nan_as_zero(x). */

#define METRIC_EXPR_MAX_LENGTH 4096U
#define METRIC_EXPR_MAX_DEPTH 32U

typedef enum MetricExprKind {
        METRIC_EXPR_METRIC,
        METRIC_EXPR_UINT64,
        METRIC_EXPR_DOUBLE,
        METRIC_EXPR_BINARY,
        METRIC_EXPR_CALL,
} MetricExprKind;

typedef struct MetricExpr MetricExpr;
struct MetricExpr {
        MetricExprKind kind;
        char *name; /* the metric, or the function called */
        uint64_t u;
        double d;
        char op; /* '+', '-', '*', '/' */
        MetricExpr *lhs; /* a binary operation's operands; a call's argument in lhs */
        MetricExpr *rhs;
        unsigned column; /* 1-based, in the expression */
};

/* Returns 0 and a tree, -EINVAL with *ret_error ("column 7: expected an operator, found \"x\"") set,
 * or -ENOMEM. */
int metric_expr_parse(const char *s, MetricExpr **ret, char **ret_error);
MetricExpr *metric_expr_free(MetricExpr *e);

/* Calls f for every metric name the expression reads, left to right. */
int metric_expr_foreach_metric(const MetricExpr *e, int (*f)(const char *name, void *userdata), void *userdata);

/* Values as reports hold them (ProfileMetricValue): a kind, a regular value, and optionally a list of
 * instances, which may carry correlation ids. */
typedef enum MetricValueKind {
        METRIC_VALUE_UINT64,
        METRIC_VALUE_DOUBLE,
        METRIC_VALUE_STRING,
} MetricValueKind;

typedef struct MetricScalar {
        MetricValueKind kind;
        uint64_t u;
        double d;
        char *s;
} MetricScalar;

typedef struct MetricInstance {
        uint64_t id; /* meaningful when the value has_ids */
        MetricScalar value;
} MetricInstance;

typedef struct MetricValue {
        bool has_value; /* the regular value is set */
        MetricScalar value;
        MetricInstance *instances;
        size_t n_instances;
        bool has_instances; /* an instance list exists (possibly empty) */
        bool has_ids; /* its instances carry correlation ids */
} MetricValue;

void metric_value_done(MetricValue *v);
int metric_value_copy(const MetricValue *v, MetricValue *ret);

/* a op b under the Customization Guide's rules:
 * - The result has a's kind; b is converted (a string b as the number it spells, 0 if none; a double b
 *   to uint64 by truncation, clamped at 0 and UINT64_MAX). A string a is returned unchanged.
 * - Division by a b of integer kind that is 0 gives a. A double b of 0.0 gives IEEE inf/nan when a is a
 *   double, and a when a is a uint64 (integer division by zero has no value). uint64 arithmetic wraps.
 * - Instances: (1) neither has instances: the regular values combine; (2) both have instances without
 *   correlation ids: the first min(n, m) pair up; (3) both with ids: joined on the id, in id order, an
 *   id present on one side only keeping that side's value (a1+b1, a2, b3, a4+b4, b5); (4) only a has
 *   ids, or only a has instances: b's regular value combines with each of a's; (5) only b has ids, or
 *   only b has instances: the result is the regular value a op b1 op b2 ... In (2)-(4) the regular
 *   value is a op b when both have one.
 * Returns 0, -EINVAL with *ret_error when a value the rule needs is missing, -ENOMEM. */
int metric_value_combine(const MetricValue *a, char op, const MetricValue *b, MetricValue *ret, char **ret_error);

typedef const MetricValue *(*MetricValueLookup)(const char *name, void *userdata);

/* Evaluates e (simplify(x) is x; nan_as_zero(x) turns NaN doubles into 0); a metric that lookup does not know is
 * -ENOENT with *ret_error naming it. */
int metric_expr_evaluate(
                const MetricExpr *e, MetricValueLookup lookup, void *userdata, MetricValue *ret, char **ret_error);
