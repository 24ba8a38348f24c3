/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for the ncu-compatible exports: any report the reader accepts (its sections embedded in
 * actions are untrusted protobuf too) must export as raw, raw with instances and details without fault. */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report-export.h"
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
        fclose(out);
        ncu_report_free(r);
        return 0;
}
