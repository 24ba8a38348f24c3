/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* "report diff": the comparison (daemon/nsight/report/report-diff.c, through the daemon or in this process) shown
 * as text (verb-report-diff.c), and the regression gate over it, --fail-above (verb-report-diff-check.c). */

#include <json-c/json.h>
#include <stdio.h>

#include "terminal-escape.h"

/* "report diff BASELINE FILE" (argv[0] is "diff"). */
int verb_report_diff(int argc, char *argv[]);

/* "KERNEL (action N) -> KERNEL (action M)" for a pair of the comparison's JSON, escaped. */
void diff_print_pair_label(FILE *f, EscapePool *e, struct json_object *pair);

/* "NAME UNIT: BASELINE -> CURRENT (CHANGE, RELATIVE%)" for a metric of the comparison's JSON, escaped, without a
 * line break: the line of the text output. */
void diff_print_metric(FILE *f, EscapePool *e, struct json_object *metric);

/* --fail-above=PCT [--metric=NAME[:increase|:decrease]...] [--junit=FILE] over the comparison's "pairs":
 * prints the checks (text, or JSON per arg.json) and writes the JUnit file. Returns 0 when no chosen
 * metric regressed by more than PCT percent, 1 when one did or a check could not be made, EXIT_USAGE for
 * a bad option, a negative errno after saying why. */
int diff_check(const char *baseline, const char *current, struct json_object *pairs);

/* The usage errors of those options, before anything is read: 0, or EXIT_USAGE after saying why. */
int diff_check_options_verify(void);
