/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A report's model as the daemon holds it: the JSON document of report-json.h kept as text, one action
 * at a time. json-c's tree of a whole document takes 10 to 16 times its text, so the daemon keeps the text
 * and parses an action's object when a method asks for it (the last one stays parsed for the next call).
 *
 * The worker writes the document as a stream of lines (json-c's plain output has no newline):
 *   line 1            the document without "ranges" (ncu_report_header_to_json())
 *   line 2            [N0, N1, ...]: how many actions each range has
 *   the next N0+N1+…  each action's object, range by range
 * Each line is parsed and checked on its own when the document is made (at most one action's tree at a
 * time); what ListActions and ActionsByNvtx read of every action (names, launch, duration, NVTX) is kept
 * beside the text. */

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

#include "macro.h"
#include "report.h"

typedef struct NcuReportDocument NcuReportDocument;

/* What the document keeps of each action besides its text. */
typedef struct NcuDocumentAction {
        const char *workload_type, *name, *demangled, *mangled; /* "" when absent */
        uint64_t grid[3], block[3];
        double duration_ns; /* -1 when the action has none */
        const NcuNvtxState *nvtx; /* NULL when none */
        size_t text_offset, text_size; /* the action's line in the document's text */
} NcuDocumentAction;

/* Makes a document of a worker's stream, taking buf (malloc()ed, size bytes, freed on failure too).
 * -EBADMSG with *ret_message when it is not a stream of the schema (a fixed sentence), -ENOMEM. */
int ncu_report_document_new(char *buf, size_t size, NcuReportDocument **ret, const char **ret_message);
NcuReportDocument *ncu_report_document_free(NcuReportDocument *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(NcuReportDocument *, ncu_report_document_free);

/* The document without "ranges". */
struct json_object *ncu_report_document_header(const NcuReportDocument *d);
size_t ncu_report_document_n_ranges(const NcuReportDocument *d);
/* 0 for a range that does not exist. */
size_t ncu_report_document_n_actions(const NcuReportDocument *d, size_t range);
/* NULL when the range or action does not exist. */
const NcuDocumentAction *ncu_report_document_action_info(const NcuReportDocument *d, size_t range, size_t action);
/* The action's object, parsed from its text; valid until the next call. NULL when the range or action does
 * not exist (or on ENOMEM: the text was checked when the document was made). */
struct json_object *ncu_report_document_action(NcuReportDocument *d, size_t range, size_t action);

/* Bytes the document may hold: its text, what it keeps of each action, its header's tree and room for
 * the tree of its largest action. */
size_t ncu_report_document_memory(const NcuReportDocument *d);

/* The whole document as report-json.h's text (plain json-c output): what `nvprofilectl report json`
 * makes of the report. */
int ncu_report_document_write(const NcuReportDocument *d, FILE *f);

/* The checks of a document's parts: the header's schema and version; an action's shape the daemon's
 * methods rely on (metrics with names and kinds, rule results). -EBADMSG with a fixed sentence. */
int ncu_report_header_validate(struct json_object *header, const char **ret_message);
int ncu_report_action_validate(struct json_object *action, const char **ret_message);
/* A whole document (report-json.h, with its "ranges") checked as the daemon checks a stream, part by part:
 * the schema and version, and the shape the daemon's methods rely on (ranges of
 * actions with names and metric lists). -EBADMSG with a message otherwise. */
int ncu_report_document_validate(struct json_object *doc, const char **ret_message);
