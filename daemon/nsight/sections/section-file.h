/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "ProfilerSection.pb-c.h"
#include "textformat-reader.h"

/* One .section file (a ProfilerSection in text format) or .chart file (a single body item, as rules
 * load with IFrontend.load_chart_from_file()). */

#define SECTION_FILE_MAX_SIZE (16U * 1024U * 1024U)

int section_file_parse(const char *text, size_t len, const TextFormatOptions *o, NV__Profiler__ProfilerSection **ret,
                TextFormatDiagnostics *diags);

/* A chart must set exactly one item field (a Filter alone is no item): -EBADMSG otherwise, with a
 * diagnostic at line 1. */
int section_chart_parse(const char *text, size_t len, const TextFormatOptions *o,
                NV__Profiler__ProfilerSectionBodyItem **ret, TextFormatDiagnostics *diags);

/* The name of the one item a body item holds ("BarChart", "Table", ...), or NULL when it holds none. */
const char *section_body_item_kind(const NV__Profiler__ProfilerSectionBodyItem *item);

/* Formats a diagnostic as ncu prints it: "Error: Line=13 Column=4 <message>". */
char *section_format_ncu_error(const TextFormatDiagnostic *d);
