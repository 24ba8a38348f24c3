/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The report's JSON document (report-json.h) with ncu_report's attributes on every metric: "type",
 * "subtype", "rollup" (null where ncu_report has None) and "unit" ("" for none), as report-attrs.h
 * derives them. What nvprofilectl report json prints and the worker hands the daemon. */

#include "report-json.h"

int ncu_report_to_json_attrs(const NcuReport *r, NcuJsonFlags flags, struct json_object **ret);
/* The hook that adds them (NcuJsonMetricHook), for the document's parts (ncu_action_to_json_with()). */
int ncu_json_add_metric_attrs(const NcuAction *a, const NcuMetric *m, struct json_object *metric, void *userdata);
