/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What `nvprofilectl report summary` prints of a report, one row per action: its name, launch, duration
 * and the findings of the rules ncu ran. One implementation for the daemon's worker (Report.GetSummary)
 * and the client's in-process reader (--local). */

#include "report.h"

typedef struct NcuSummaryFinding {
        const char *type; /* "OPTIMIZATION", "WARNING" or "ERROR" */
        const char *title; /* the message's title, else the rule's name */
        double speedup; /* the rule's largest estimate, percent; NaN when it has none */
} NcuSummaryFinding;

typedef struct NcuSummaryRow {
        size_t range, action; /* where it is: what the Report methods take */
        size_t index; /* in file order, over every kind of result (what the summary prints) */
        const char *name; /* the function name */
        NcuUint3 grid, block;
        double duration_ns; /* gpu__time_duration.sum; NaN when the action has none */
        size_t n_findings;
        NcuSummaryFinding *findings; /* largest estimate first, those without one last, in rule order */
} NcuSummaryRow;

/* Every action's row, ranges in order. Strings point into the model. -ENOMEM. */
int ncu_report_summary(const NcuReport *r, NcuSummaryRow **ret, size_t *ret_n);
void ncu_summary_free(NcuSummaryRow *rows, size_t n);
