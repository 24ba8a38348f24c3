/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Comparing our metric attributes with one metric of an expected/<name>.ncu_report.json dump. */

#include <json-c/json.h>
#include <stdbool.h>

#include "metric-attrs.h"

/* Whether type, subtype, rollup and unit equal the dump's (JSON null is Python's None). */
bool metric_attrs_equal_json(const MetricAttrs *a, json_object *metric);
