/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* ncu_report's type, subtype, rollup and unit of a metric of an action: the rules of metric-attrs.c for the
 * metric's name and value kind, on the GPU the action's own metrics describe. What every reader of the
 * model shows (the JSON document, the CSV pages, the Python module, report diff). */

#include "metric-attrs.h"
#include "report.h"

/* The action's GPU as the metric database sees it (a zero MetricChip before its metrics are decoded). */
void ncu_action_metric_chip(const NcuAction *a, MetricChip *ret);

/* The attributes of metric m of action a; section_unit (may be NULL) is the unit a section sets. */
void ncu_metric_attrs(const NcuAction *a, const NcuMetric *m, const char *section_unit, MetricAttrs *ret);
