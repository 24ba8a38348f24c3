/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The worker's answers against the report JSON (what `nvprofilectl report json` prints, report-json.h):
 * GetMetricNames and GetMetric, GetRuleResults and GetRuleResultsFull of one action, value by value. The
 * worker reads its typed model; the JSON is the contract both keep. */

#include <glib.h>
#include <json-c/json.h>
#include <stdint.h>

#include "report-protocol.h"

/* Makes one call of the worker and returns its reply (the test fails when the call does). */
typedef GByteArray *(*ReportCall)(void *userdata, NcuServeOp op, const NcuWire *args);

void report_check_metrics(ReportCall call, void *userdata, uint32_t action, struct json_object *doc);
void report_check_rule_results(ReportCall call, void *userdata, uint32_t action, struct json_object *doc);
