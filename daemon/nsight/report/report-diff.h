/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Two reports compared like ncu's baseline view (nvprofilectl report diff; Report.Diff on the bus):
 * actions paired by kernel name and launch index (the n-th launch of a kernel in the baseline with the
 * n-th launch of the same name in the other report), or as specs say ("B:C" pairs flat action B of the
 * baseline with C of the other, "N" is "N:N"; a kernel name pairs that kernel's launches only); for every metric with
 * a value in both, the baseline and current value, the absolute and relative change and the unit,
 * grouped by the first embedded section (of the current report) that lists the metric, sections in
 * report order then "Other metrics", sorted within a section by the size of the relative change (infinite
 * when the baseline is 0 or a string changed; a change that is not a number last), then by the size of the
 * change, then by name.
 *
 * The JSON: {"pairs": [{"baseline": {"action", "kernel"}, "current": {...}, "sections": [{"identifier"
 * (null for other metrics), "name", "metrics": [{"name", "unit", "baseline", "current", "change",
 * "relative_change"}]}]}]}; numbers that are not finite, and the change of strings, are null. The one
 * implementation: the daemon's Report.Diff (in the report's worker), nvprofilectl report diff --local, and
 * Python's nvprofiled.diff (through the _ncu_report extension) all call it. */

#include <json-c/json.h>

#include "report.h"

#define NCU_DIFF_SPECS_MAX 64
#define NCU_DIFF_MESSAGE_MAX 256

/* 0 and *ret; -EDOM for a spec that pairs nothing or names an action out of range (message says which);
 * what ncu_action_decode_metrics() fails with for a paired action of a lazy load (message names the byte;
 * nothing to decode after an eager load); -ENOMEM. */
int ncu_report_diff_json(NcuReport *baseline, NcuReport *current, char *const *specs, size_t n_specs,
                struct json_object **ret, char message[static NCU_DIFF_MESSAGE_MAX]);
