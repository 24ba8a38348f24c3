/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The source view of one action: the CUDA files the report stores, and the action's per-instruction
 * metrics (those whose instances are keyed by SASS addresses) per instruction and summed per source line,
 * through the cubin's line table (cubin-lines.h). The document, which Report.GetSourceView returns:
 *
 *   {"files": [{"name": "...", "lines": ["text of line 1", ...]}],
 *    "metrics": [{"name": "inst_executed", "label": "Instructions Executed", "unit": ""}],
 *    "source": [{"file": 0, "line": 12, "values": [123, 4.5]}],
 *    "sass": [{"address": 4096, "file": 0, "line": 12, "values": [...]}]}
 *
 * files: the stored sources of the action's module (the first of a name), then any other file the line
 * table names (its lines empty: not stored). metrics: label and unit from the SourceMetrics of the
 * sections the result embeds where they name the metric, else the name and "". values follow "metrics",
 * null where the address (or no address of the line) has the metric. sass: every address any metric
 * names, ascending; file -1 and line 0 where the line table does not cover it. source: per (file, line),
 * in that order. */

#include <json-c/json.h>

#include "report.h"

/* Builds the document for action a of r, whose metrics are decoded (an eager load, or
 * ncu_action_decode_metrics() first: the model is only read, so the app's model and the worker's can be
 * const). 0 or -ENOMEM. */
int ncu_action_source_view(const NcuReport *r, const NcuAction *a, struct json_object **ret);
