/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "report-summary.h"

/* A rule's finding: its first message of type OPTIMIZATION, WARNING or ERROR, titled by the message's
 * title or else the rule's name, with the rule's largest speedup estimate. */
static bool rule_finding(const NcuRuleResult *rr, NcuSummaryFinding *ret)
{
        NcuSummaryFinding f = { .speedup = NAN };

        for (size_t i = 0; i < rr->n_messages && !f.type; i++) {
                const char *type = ncu_rule_message_type_to_string(rr->messages[i].type);

                if (!type || !(streq(type, "OPTIMIZATION") || streq(type, "WARNING") || streq(type, "ERROR")))
                        continue;
                f.type = type;
                f.title = rr->messages[i].name ? rr->messages[i].name : rr->display_name;
        }
        if (!f.type)
                return false;
        for (size_t i = 0; i < rr->n_speedups; i++)
                if (rr->speedups[i].has_value && (isnan(f.speedup) || rr->speedups[i].value > f.speedup))
                        f.speedup = rr->speedups[i].value;
        *ret = f;
        return true;
}

static int compare_findings(const void *a, const void *b)
{
        const NcuSummaryFinding *x = a, *y = b;

        if (isnan(x->speedup) || isnan(y->speedup))
                return isnan(x->speedup) - isnan(y->speedup);
        return x->speedup > y->speedup ? -1 : x->speedup < y->speedup ? 1 : 0;
}

static int summarize_action(size_t range, size_t index, const NcuAction *a, NcuSummaryRow *ret)
{
        const NcuMetric *duration = ncu_action_metric_by_name(a, "gpu__time_duration.sum");
        NcuSummaryRow row = {
                .range = range,
                .action = index,
                .index = a->index,
                .name = a->function_name,
                .grid = a->grid_size,
                .block = a->block_size,
                .duration_ns = NAN,
        };

        if (duration && duration->has_value && !ncu_value_as_double(&duration->value, &row.duration_ns))
                row.duration_ns = NAN;
        row.findings = calloc(MAX(a->n_rule_results, (size_t) 1), sizeof(NcuSummaryFinding));
        if (!row.findings)
                return -ENOMEM;
        for (size_t i = 0; i < a->n_rule_results; i++)
                if (rule_finding(&a->rule_results[i], &row.findings[row.n_findings]))
                        row.n_findings++;
        /* Stable: equal estimates keep the rules' order. */
        for (size_t i = 1; i < row.n_findings; i++)
                for (size_t j = i; j > 0 && compare_findings(&row.findings[j - 1], &row.findings[j]) > 0; j--) {
                        NcuSummaryFinding t = row.findings[j];
                        row.findings[j] = row.findings[j - 1];
                        row.findings[j - 1] = t;
                }
        *ret = row;
        return 0;
}

int ncu_report_summary(const NcuReport *r, NcuSummaryRow **ret, size_t *ret_n)
{
        NcuSummaryRow *rows;
        size_t n = 0, total = 0;
        int k;

        assert(r && ret && ret_n);
        for (size_t i = 0; i < r->n_ranges; i++)
                total += r->ranges[i].n_actions;
        rows = calloc(MAX(total, (size_t) 1), sizeof(NcuSummaryRow));
        if (!rows)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_ranges; i++)
                for (size_t j = 0; j < r->ranges[i].n_actions; j++) {
                        k = summarize_action(i, j, r->ranges[i].actions[j], &rows[n]);
                        if (k < 0) {
                                ncu_summary_free(rows, n);
                                return k;
                        }
                        n++;
                }
        *ret = rows;
        *ret_n = n;
        return 0;
}

void ncu_summary_free(NcuSummaryRow *rows, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(rows[i].findings);
        free(rows);
}
