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
 * The pages: details (report-page-details.c, report-export-details.c), raw (report-page-raw.c,
 * report-export-raw.c), session (report-page-session.c), and the per-kernel summary of the details page
 * (report-page-summary.c). Where ncu 2024.1.1 itself fails on a report (it crashes on some, stops on a value
 * it cannot parse on others), these print the whole page. */

#include <stdbool.h>
#include <stdio.h>

#include "report-details-walk.h"
#include "report-export-cells.h"
#include "report-page-units.h"
#include "report.h"

typedef enum NcuPage {
        NCU_PAGE_DETAILS,
        NCU_PAGE_RAW,
        NCU_PAGE_SESSION,
        _NCU_PAGE_MAX,
        _NCU_PAGE_INVALID = -1,
} NcuPage;

typedef enum NcuPrintSummary {
        NCU_PRINT_SUMMARY_NONE,
        NCU_PRINT_SUMMARY_PER_KERNEL,
        _NCU_PRINT_SUMMARY_MAX,
        _NCU_PRINT_SUMMARY_INVALID = -1,
} NcuPrintSummary;

typedef struct NcuPageOptions {
        NcuPage page;
        bool csv;
        NcuPrintUnits units;
        NcuPrintDetails details;
        NcuPrintInstances instances;
        NcuPrintSummary summary;
} NcuPageOptions;

/* ncu's defaults. */
#define NCU_PAGE_OPTIONS_DEFAULT                                                                                 \
        ((NcuPageOptions){                                                                                       \
                .page = NCU_PAGE_DETAILS,                                                                        \
                .units = NCU_PRINT_UNITS_DYNAMIC,                                                                \
                .details = NCU_PRINT_DETAILS_HEADER,                                                             \
                .instances = NCU_PRINT_INSTANCES_NONE,                                                           \
                .summary = NCU_PRINT_SUMMARY_NONE,                                                               \
        })

/* The options' words as ncu spells them ("details", "raw", "session"; "base", "dynamic"; "header", "body",
 * "all"; "none", "values", "details"; "none", "per-kernel"), and back (the _INVALID value for others). */
const char *ncu_page_to_string(NcuPage p);
NcuPage ncu_page_from_string(const char *s);
const char *ncu_print_units_to_string(NcuPrintUnits u);
NcuPrintUnits ncu_print_units_from_string(const char *s);
const char *ncu_print_details_to_string(NcuPrintDetails d);
NcuPrintDetails ncu_print_details_from_string(const char *s);
const char *ncu_print_instances_to_string(NcuPrintInstances i);
NcuPrintInstances ncu_print_instances_from_string(const char *s);
const char *ncu_print_summary_to_string(NcuPrintSummary s);
NcuPrintSummary ncu_print_summary_from_string(const char *s);

/* Whether ncu accepts the combination; when not, *ret_why says which option does not apply (the session page
 * takes none of the print options but --csv; instances apply to the raw and details pages, the summary to
 * the details page). */
bool ncu_page_options_valid(const NcuPageOptions *o, const char **ret_why);

/* Writes the page. Returns 0, -EINVAL for options ncu_page_options_valid() refuses, -ENOMEM, or the stream's
 * error. */
int ncu_page_write(const NcuReport *r, const NcuPageOptions *o, FILE *f);

/* The pages. */
int ncu_page_details_text(const NcuReport *r, NcuPrintUnits units, NcuPrintDetails level,
                NcuPrintInstances instances, FILE *f);
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
