/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for ncu's pages: any report the reader accepts (its sections embedded in actions are untrusted
 * protobuf too) must print every page (details at each level, raw, session, the summary; text and CSV; base
 * and dynamic units; instances) without fault. */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report-csv.h"
#include "report-page.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        NcuReportLimits limits;
        NcuReport *r = NULL;
        NcuReportError err;
        FILE *out;

        ncu_report_limits_default(&limits);
        limits.max_file_size = 64u * 1024u * 1024u;
        limits.max_memory = 256u * 1024u * 1024u;
        if (ncu_report_load_buffer(data, size, &limits, &r, &err) < 0)
                return 0;

        out = fopen("/dev/null", "we");
        assert(out);
        assert(ncu_export_raw_csv(r, false, out) == 0);
        assert(ncu_export_raw_csv(r, true, out) == 0);
        assert(ncu_export_details_csv(r, out) == 0);
        for (int csv = 0; csv < 2; csv++)
                for (NcuPrintUnits units = 0; units < _NCU_PRINT_UNITS_MAX; units++) {
                        const NcuPageOptions pages[] = {
                                { .page = NCU_PAGE_DETAILS, .csv = csv, .units = units },
                                { .page = NCU_PAGE_DETAILS,
                                                .csv = csv,
                                                .units = units,
                                                .details = NCU_PRINT_DETAILS_BODY },
                                { .page = NCU_PAGE_DETAILS,
                                                .csv = csv,
                                                .units = units,
                                                .details = NCU_PRINT_DETAILS_ALL,
                                                .instances = NCU_PRINT_INSTANCES_DETAILS },
                                { .page = NCU_PAGE_DETAILS,
                                                .csv = csv,
                                                .units = units,
                                                .summary = NCU_PRINT_SUMMARY_PER_KERNEL },
                                { .page = NCU_PAGE_RAW,
                                                .csv = csv,
                                                .units = units,
                                                .instances = NCU_PRINT_INSTANCES_VALUES },
                                { .page = NCU_PAGE_SESSION, .csv = csv },
                        };
                        for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
                                assert(ncu_page_write(r, &pages[i], out) == 0);
                }
        fclose(out);
        ncu_report_free(r);
        return 0;
}
