/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* ncu-compatible CSV exports of a report model, byte for byte what ncu 2024.1.1 prints for
 *   raw:     ncu --import R --page raw --csv [--print-units base] [--print-metric-instances values]
 *   details: ncu --import R --page details --csv [--print-units base] [--print-details all]
 * They return 0, or a negative errno (-ENOMEM, or the stream's write error). */

#include <stdbool.h>
#include <stdio.h>

#include "report-attrs.h"
#include "report-details-walk.h"
#include "report-csv-cells.h"
#include "report-page-units.h"
#include "report.h"

/* One row per action (file order), columns ID…CC then every metric name of the report (pseudo metrics
 * "prefix:…" left out) in byte order; the second row holds each metric's unit. With instances, a metric
 * with instances prints "VALUE (I1; I2; …)". In dynamic units a column with a unit is scaled as a whole
 * (report-page-units.h) and its numbers printed with six decimals. */
int ncu_export_raw_csv_page(const NcuReport *r, NcuPrintUnits units, NcuPrintInstances instances, FILE *f);
/* The same in base units. */
int ncu_export_raw_csv(const NcuReport *r, bool instances, FILE *f);

/* Per action, the sections embedded in it rendered like ncu's details page at that level, then the
 * sections' rule results; the rule columns only when some action has rule results. */
int ncu_export_details_csv_page(
                const NcuReport *r, NcuPrintUnits units, NcuPrintDetails level, NcuPrintInstances instances, FILE *f);
/* The same in base units, all details. */
int ncu_export_details_csv(const NcuReport *r, FILE *f);

/* Sections store some of their directives as string metrics named "kind:…" (breakdown:, group:, regex:):
 * ncu leaves them out of the raw page. */
bool ncu_export_is_section_directive(const NcuMetric *m);

/* The leading columns every CSV page shares: ID, Process ID, Process Name, Host Name, [the two NVTX columns
 * (report-page-nvtx.h) when nvtx], Kernel Name (demangled), Context, Stream, Block Size, Grid Size, Device,
 * CC. */
void ncu_export_write_action_column_names(FILE *f, bool nvtx);
void ncu_export_write_action_columns(FILE *f, size_t id, const NcuAction *a, bool nvtx);
extern const char *const ncu_export_action_column_names[11];
extern const char *const ncu_export_nvtx_column_names[2];
