/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* ncu's pages of a report, byte for byte what ncu 2024.1.1 prints for
 *   ncu --import R [--page details|raw|session] [--csv] [--print-units base|dynamic]
 *       [--print-details header|body|all] [--print-metric-instances none|values|details]
 *       [--print-summary none|per-kernel]
 * with ncu's defaults (details page, text, dynamic units, header details, no instances, no summary). One
 * implementation for nvprofilectl's --local reading and the report worker behind the daemon
 * (NCU_SERVE_EXPORT_PAGE), so both give the same bytes.
 *
 * The pages: details (report-page-details.c, report-csv-details.c), raw (report-page-raw.c,
 * report-csv-raw.c), session (report-page-session.c), and the per-kernel summary of the details page
 * (report-page-summary.c). Where ncu 2024.1.1 itself fails on a report (it crashes on some, stops on a value
 * it cannot parse on others), these print the whole page. */

#include <stdbool.h>
#include <stdio.h>

#include "report-details-walk.h"
#include "report-page-options.h"
#include "report-csv-cells.h"
#include "report-page-units.h"
#include "report.h"

/* Writes the page. Returns 0, -EINVAL for options ncu_page_options_valid() refuses, -ENOMEM, or the stream's
 * error. */
int ncu_page_write(const NcuReport *r, const NcuPageOptions *o, FILE *f);

/* The pages. */
int ncu_page_details_text(
                const NcuReport *r, NcuPrintUnits units, NcuPrintDetails level, NcuPrintInstances instances, FILE *f);
int ncu_page_raw_text(const NcuReport *r, NcuPrintUnits units, NcuPrintInstances instances, FILE *f);
int ncu_page_session(const NcuReport *r, bool csv, FILE *f);
int ncu_page_summary(const NcuReport *r, bool csv, NcuPrintUnits units, FILE *f);

/* Pieces the text pages share (report-page-details.c). */
/* What follows an action's line: the clock warning (clock_warning: the details page), its CPU call stack, its
 * NVTX ranges. */
void ncu_page_print_action_intro(FILE *f, const NcuAction *a, bool clock_warning);
/* A metric row's unit and value text as the text pages show them (details_guess: the details page's own
 * units for metrics outside ncu's database, metric_attrs_details_unit()). */
void ncu_page_metric_cells(const NcuAction *a, const NcuDetailsRow *row, NcuPrintUnits units,
                NcuPrintInstances instances, bool details_guess, Cell *c, char ret_unit[static METRIC_UNIT_MAX]);
/* Message i of rule result rr, as the details page prints it. */
void ncu_page_print_rule_message(FILE *f, const NcuRuleResult *rr, size_t i, int *error);
