/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The whole model as one JSON document, schema "io.github.nvprofiled.ncu-report" version 1: what
 * `nvprofilectl report json` prints, and what the report worker hands the daemon (it is lossless for
 * everything the D-Bus methods serve: every value keeps its kind). The schema is described field by field
 * in nvprofilectl(1) under "REPORT JSON"; version 1 only ever gains fields.
 *
 * Numbers: a "double" or "float" value is a JSON number written as the shortest text that reads back to
 * the same bits (Python's repr), or the string "nan", "inf" or "-inf"; "uint32"/"uint64" values are JSON
 * integers (up to 2^64-1); "string" values are JSON strings; "unknown" is null. */

#include <json-c/json.h>

#include "report.h"

#define NCU_REPORT_JSON_SCHEMA "io.github.nvprofiled.ncu-report"
#define NCU_REPORT_JSON_VERSION 1

typedef enum NcuJsonFlags {
        NCU_JSON_NO_INSTANCES = 1 << 0, /* leave out instance lists (only their count) */
        NCU_JSON_NO_SOURCES = 1 << 1, /* leave out source file contents */
} NcuJsonFlags;

/* Builds the document; -ENOMEM on failure. */
int ncu_report_to_json(const NcuReport *r, NcuJsonFlags flags, struct json_object **ret);

/* The same, with hook called on every metric's object (with its action) to add members (the metric attributes, which
 * live in another library: report-json-attrs.h). */
typedef int (*NcuJsonMetricHook)(const NcuAction *a, const NcuMetric *m, struct json_object *metric, void *userdata);
int ncu_report_to_json_with(const NcuReport *r, NcuJsonFlags flags, NcuJsonMetricHook hook, void *userdata,
                struct json_object **ret);

/* The document in parts, for a reader that holds one action at a time: the document without its last
 * member, "ranges" (which is [{"index": N, "actions": [ACTION, ...]}, ...]), and one action's object. */
int ncu_report_header_to_json(const NcuReport *r, NcuJsonFlags flags, struct json_object **ret);
int ncu_action_to_json_with(const NcuAction *a, NcuJsonFlags flags, NcuJsonMetricHook hook, void *userdata,
                struct json_object **ret);

/* A value as JSON (see above); NULL for UNKNOWN. */
struct json_object *ncu_value_to_json(const NcuValue *v);
/* A double of the document back: a number, or "nan", "inf", "-inf"; NaN when v is NULL. */
double ncu_json_to_double(struct json_object *v);
