/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The options of ncu's pages as ncu spells them (ncu --import R [--page …] [--csv] [--print-units …]
 * [--print-details …] [--print-metric-instances …] [--print-summary …]), what nvprofilectl, the bus
 * (ExportPage) and the report worker (NCU_SERVE_EXPORT_PAGE) pass around, encoded once
 * (worker/report-page-encoding.h). The pages themselves are in
 * report-page.h. */

#include <stdbool.h>

typedef enum NcuPrintUnits {
        NCU_PRINT_UNITS_DYNAMIC, /* ncu's default: units scaled to the value (report-page-units.h) */
        NCU_PRINT_UNITS_BASE,
        _NCU_PRINT_UNITS_MAX,
        _NCU_PRINT_UNITS_INVALID = -1,
} NcuPrintUnits;

typedef enum NcuPrintDetails {
        NCU_PRINT_DETAILS_HEADER, /* ncu's default */
        NCU_PRINT_DETAILS_BODY,
        NCU_PRINT_DETAILS_ALL,
        _NCU_PRINT_DETAILS_MAX,
        _NCU_PRINT_DETAILS_INVALID = -1,
} NcuPrintDetails;

/* --print-metric-instances: an instanced metric's value alone, followed by its instances' values, or by
 * their correlation ids and values. */
typedef enum NcuPrintInstances {
        NCU_PRINT_INSTANCES_NONE,
        NCU_PRINT_INSTANCES_VALUES,
        NCU_PRINT_INSTANCES_DETAILS,
        _NCU_PRINT_INSTANCES_MAX,
        _NCU_PRINT_INSTANCES_INVALID = -1,
} NcuPrintInstances;

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
#define NCU_PAGE_OPTIONS_DEFAULT                               \
        ((NcuPageOptions){                                     \
                        .page = NCU_PAGE_DETAILS,              \
                        .units = NCU_PRINT_UNITS_DYNAMIC,      \
                        .details = NCU_PRINT_DETAILS_HEADER,   \
                        .instances = NCU_PRINT_INSTANCES_NONE, \
                        .summary = NCU_PRINT_SUMMARY_NONE,     \
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
