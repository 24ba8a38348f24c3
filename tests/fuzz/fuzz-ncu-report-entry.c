/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for one payload entry of a .ncu-rep: the first byte picks the entry kind (source, profile,
 * range, cmdlist, graph result), the rest is the entry. It is framed into a valid container with a small
 * string table, so every input reaches the entry decoder and the model instead of the framing checks. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report-builder.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *strings[] = { (char *) "gpu__time_duration.sum", (char *) "launch__grid_size",
                (char *) "device__attribute_display_name", (char *) "sass__inst_executed_per_opcode" };
        NV__Profiler__Messages__ProfilerStringTable st = NV__PROFILER__MESSAGES__PROFILER_STRING_TABLE__INIT;
        NV__Profiler__Messages__BlockHeader h = NV__PROFILER__MESSAGES__BLOCK_HEADER__INIT;
        ReportBuffer b = { 0 };
        ReportEntry e;
        NcuReport *r = NULL;
        NcuReportError err;
        bool ok;

        if (size < 1)
                return 0;
        st.n_strings = ELEMENTSOF(strings);
        st.strings = strings;
        h.stringtable = &st;
        e = (ReportEntry){
                .kind = (NcuEntryKind) (data[0] % _NCU_ENTRY_KIND_MAX), .raw = data + 1, .raw_size = size - 1
        };
        report_build_start(&b, 7);
        report_build_block(&b, &h, &e, 1);
        ok = ncu_report_load_buffer(b.data, b.size, NULL, &r, &err) >= 0;
        if (ok) {
                for (size_t i = 0; i < r->n_actions; i++)
                        for (size_t j = 0; j < r->actions[i]->n_metrics; j++)
                                assert(ncu_action_metric_by_name(r->actions[i], r->actions[i]->metrics[j].name));
                ncu_report_free(r);
        } else
                assert(!r && err.message[0]);
        /* Lazily, every action then decoded: the same verdict. */
        r = NULL;
        if (ncu_report_load_buffer_flags(b.data, b.size, NULL, NCU_REPORT_LAZY_METRICS, &r, &err) >= 0) {
                assert((ncu_report_decode_metrics(r, &err) >= 0) == ok);
                ncu_report_free(r);
        } else
                assert(!r && err.message[0] && !ok);
        report_buffer_done(&b);
        return 0;
}
