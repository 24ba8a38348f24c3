/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The options of ncu's pages (report-page-options.h). */

#include <errno.h>

#include "macro.h"
#include "report-page-options.h"
#include "string-util.h"

static const char *const page_names[_NCU_PAGE_MAX] = {
        [NCU_PAGE_DETAILS] = "details",
        [NCU_PAGE_RAW] = "raw",
        [NCU_PAGE_SESSION] = "session",
};

static const char *const units_names[_NCU_PRINT_UNITS_MAX] = {
        [NCU_PRINT_UNITS_DYNAMIC] = "dynamic",
        [NCU_PRINT_UNITS_BASE] = "base",
};

static const char *const details_names[_NCU_PRINT_DETAILS_MAX] = {
        [NCU_PRINT_DETAILS_HEADER] = "header",
        [NCU_PRINT_DETAILS_BODY] = "body",
        [NCU_PRINT_DETAILS_ALL] = "all",
};

static const char *const instances_names[_NCU_PRINT_INSTANCES_MAX] = {
        [NCU_PRINT_INSTANCES_NONE] = "none",
        [NCU_PRINT_INSTANCES_VALUES] = "values",
        [NCU_PRINT_INSTANCES_DETAILS] = "details",
};

static const char *const summary_names[_NCU_PRINT_SUMMARY_MAX] = {
        [NCU_PRINT_SUMMARY_NONE] = "none",
        [NCU_PRINT_SUMMARY_PER_KERNEL] = "per-kernel",
};

static int lookup(const char *const *names, size_t n, const char *s)
{
        if (!s)
                return -1;
        for (size_t i = 0; i < n; i++)
                if (names[i] && streq(names[i], s))
                        return (int) i;
        return -1;
}

static const char *name_of(const char *const *names, size_t n, int i)
{
        return i >= 0 && (size_t) i < n ? names[i] : NULL;
}

#define DEFINE_WORDS(type, prefix, names)                          \
        const char *prefix##_to_string(type v)                     \
        {                                                          \
                return name_of(names, ELEMENTSOF(names), (int) v); \
        }                                                          \
        type prefix##_from_string(const char *s)                   \
        {                                                          \
                return (type) lookup(names, ELEMENTSOF(names), s); \
        }

DEFINE_WORDS(NcuPage, ncu_page, page_names)
DEFINE_WORDS(NcuPrintUnits, ncu_print_units, units_names)
DEFINE_WORDS(NcuPrintDetails, ncu_print_details, details_names)
DEFINE_WORDS(NcuPrintInstances, ncu_print_instances, instances_names)
DEFINE_WORDS(NcuPrintSummary, ncu_print_summary, summary_names)

bool ncu_page_options_valid(const NcuPageOptions *o, const char **ret_why)
{
        const char *why = NULL;

        assert(o);

        if (o->page < 0 || o->page >= _NCU_PAGE_MAX)
                why = "the page is details, raw or session";
        else if (o->units < 0 || o->units >= _NCU_PRINT_UNITS_MAX)
                why = "--print-units is base or dynamic";
        else if (o->details < 0 || o->details >= _NCU_PRINT_DETAILS_MAX)
                why = "--print-details is header, body or all";
        else if (o->instances < 0 || o->instances >= _NCU_PRINT_INSTANCES_MAX)
                why = "--print-metric-instances is none, values or details";
        else if (o->summary < 0 || o->summary >= _NCU_PRINT_SUMMARY_MAX)
                why = "--print-summary is none or per-kernel";
        else if (o->page != NCU_PAGE_DETAILS && o->summary != NCU_PRINT_SUMMARY_NONE)
                why = "--print-summary applies to the details page";
        else if (o->page != NCU_PAGE_DETAILS && o->details != NCU_PRINT_DETAILS_HEADER)
                why = "--print-details applies to the details page";
        else if (o->page == NCU_PAGE_SESSION &&
                        (o->units != NCU_PRINT_UNITS_DYNAMIC || o->instances != NCU_PRINT_INSTANCES_NONE))
                why = "the session page has no metrics: --print-units and --print-metric-instances do not apply";
        else if (o->summary != NCU_PRINT_SUMMARY_NONE &&
                        (o->details != NCU_PRINT_DETAILS_HEADER || o->instances != NCU_PRINT_INSTANCES_NONE))
                why = "the summary shows the sections' header metrics: --print-details and "
                      "--print-metric-instances do not apply";

        if (ret_why)
                *ret_why = why;
        return !why;
}
