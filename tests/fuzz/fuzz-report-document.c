/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for the daemon's reader of what the report worker writes (report-document.h): a stream of
 * JSON lines from a process that parsed an untrusted file, so itself untrusted. Every action of a document
 * it accepts is then read, and the whole document written out again. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-document.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        NcuReportDocument *d = NULL;
        const char *why = NULL;
        char *buf = malloc(size + 1), *text = NULL;
        size_t text_size = 0;
        FILE *f;

        if (!buf)
                return 0;
        memcpy(buf, data, size);
        if (ncu_report_document_new(buf, size, &d, &why) < 0) {
                assert(!d && why);
                return 0;
        }
        for (size_t i = 0; i < ncu_report_document_n_ranges(d); i++)
                for (size_t j = 0; j < ncu_report_document_n_actions(d, i); j++) {
                        assert(ncu_report_document_action_info(d, i, j));
                        assert(ncu_report_document_action(d, i, j));
                }
        assert(!ncu_report_document_action(d, ncu_report_document_n_ranges(d), 0));
        f = open_memstream(&text, &text_size);
        if (f) {
                assert(ncu_report_document_write(d, f) == 0);
                fclose(f);
                assert(text_size >= 2 && text[text_size - 1] == '}');
                free(text);
        }
        ncu_report_document_free(d);
        return 0;
}
