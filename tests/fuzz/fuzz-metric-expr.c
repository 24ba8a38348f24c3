/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for the derived-metric expression parser and evaluator. The input is an expression
 * (up to the first NUL); every metric it names has a value whose kind and instances depend on the
 * name, so the combination rules are exercised too. */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metric-expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static MetricInstance instances[4] = {
        { .id = 3, .value = { .kind = METRIC_VALUE_UINT64, .u = 7 } },
        { .id = 1, .value = { .kind = METRIC_VALUE_DOUBLE, .d = 0.5 } },
        { .id = 3, .value = { .kind = METRIC_VALUE_UINT64, .u = 0 } },
        { .id = 9, .value = { .kind = METRIC_VALUE_STRING, .s = (char *) "12" } },
};

static MetricValue values[6];

static const MetricValue *lookup(const char *name, void *userdata)
{
        size_t h = 0;
        for (const char *p = name; *p; p++)
                h = h * 31 + (unsigned char) *p;
        return h % 7 == 6 ? NULL : &values[h % 6];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = strndup((const char *) data, size);
        MetricExpr *e = NULL;
        char *error = NULL;

        if (!text)
                return 0;
        values[0] = (MetricValue){ .has_value = true, .value = { .kind = METRIC_VALUE_UINT64, .u = 3 } };
        values[1] = (MetricValue){ .has_value = true, .value = { .kind = METRIC_VALUE_DOUBLE, .d = 0.0 } };
        values[2] = (MetricValue){ .has_value = true, .value = { .kind = METRIC_VALUE_STRING, .s = (char *) "x" } };
        values[3] = (MetricValue){ .has_instances = true, .has_ids = true, .instances = instances, .n_instances = 4 };
        values[4] = (MetricValue){ .has_value = true,
                .has_instances = true,
                .instances = instances,
                .n_instances = 3,
                .value = { .kind = METRIC_VALUE_UINT64 } };
        values[5] = (MetricValue){ .has_value = true,
                .has_instances = true,
                .instances = instances,
                .n_instances = 0,
                .value = { .kind = METRIC_VALUE_DOUBLE, .d = -1 } };

        int r = metric_expr_parse(text, &e, &error);
        assert(r < 0 ? !e && error : e && !error);
        if (r >= 0) {
                MetricValue v;
                char *eval_error = NULL;
                if (metric_expr_evaluate(e, lookup, NULL, &v, &eval_error) >= 0)
                        metric_value_done(&v);
                free(eval_error);
                metric_expr_free(e);
        }
        free(error);
        free(text);
        return 0;
}
