/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* ncu's details page of one action as JSON, for the desktop app (Report.GetDetails, or in the app's own
 * process): the walk of report-details-walk.h with the values and units of the text page
 * (report-page-details.c) at its defaults (dynamic units, the sections' header tables, no instances), so
 * that every value reads as `nvprofilectl report details` prints it. The document:
 *   {"range": u, "action": u,
 *    "nvtx": s|null  the action's NVTX ranges as the text page prints them above its sections,
 *    "sections": [{"identifier": "SpeedOfLight", "name": "GPU Speed Of Light Throughput",
 *                  "items": [  in the page's order
 *                    {"kind": "table", "body": s|null, "label": s, "headings": [s],
 *                     "rows": [{"label": s, "name": s, "unit": s, "value": s}]},
 *                    {"kind": "grid", "body": s|null, "label": s|null, "columns": [s], "rows": [[s]]},
 *                    {"kind": "note", "body": s|null, "heading": s|null, "text": s}],
 *                  "rules": [{"type": "INF"|"WRN"|"ERR"|"OPT"|"", "message": s (ncu's markup kept),
 *                             "text": s (the markup reduced as the text page does),
 *                             "spans": [{"text": s} | {"text": s, "url": s} | {"text": s, "section": s}],
 *                             "speedup": {"type": "global"|"local", "value": d} | null}]}]}
 * A section is listed when the text page shows it (something in it to show). */

#include <json-c/json.h>

#include "report.h"

/* Action index action of range range. -ENOENT when the report has no such action, -ENOMEM. */
int ncu_details_json(const NcuReport *report, size_t range, size_t action, struct json_object **ret);
