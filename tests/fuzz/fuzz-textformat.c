/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for the protobuf text-format reader as section files use it: the input is read as a
 * section under both schemas, strictly and leniently, and as a chart; whatever parses is encoded,
 * decoded and encoded again (the two encodings must be equal), and its metrics are selected. */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "section-file.h"
#include "section-metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const ProtobufCMessage *m)
{
        size_t len = protobuf_c_message_get_packed_size(m);
        uint8_t *a = malloc(len + 1), *b = NULL;
        if (!a)
                return;
        assert(protobuf_c_message_pack(m, a) == len);
        ProtobufCMessage *d = protobuf_c_message_unpack(m->descriptor, NULL, len, a);
        assert(d);
        size_t len2 = protobuf_c_message_get_packed_size(d);
        assert(len2 == len);
        b = malloc(len2 + 1);
        if (b) {
                protobuf_c_message_pack(d, b);
                assert(memcmp(a, b, len) == 0);
        }
        protobuf_c_message_free_unpacked(d, NULL);
        free(a);
        free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *text = (const char *) data;

        for (int mode = 0; mode < 4; mode++) {
                TextFormatOptions o = {
                        .schema = mode & 1 ? NV_SCHEMA_2024_1_1 : NV_SCHEMA_EXTENDED,
                        .lenient = mode & 2,
                };
                TextFormatDiagnostics d = { 0 };
                NV__Profiler__ProfilerSection *s = NULL;
                int r = section_file_parse(text, size, &o, &s, &d);
                for (size_t i = 0; i < d.n; i++)
                        assert(d.items[i].message && d.items[i].line >= 1);
                assert(r < 0 ? !!textformat_diagnostics_error(&d) : !textformat_diagnostics_error(&d));
                textformat_diagnostics_clear(&d);
                if (r < 0)
                        continue;
                round_trip(&s->base);
                SectionMetricList l = { 0 };
                (void) section_collect_metrics(s, 86, COLLECTION_SCOPE_LAUNCH, &l);
                section_metric_list_clear(&l);
                protobuf_c_message_free_unpacked(&s->base, NULL);
        }

        NV__Profiler__ProfilerSectionBodyItem *item = NULL;
        if (section_chart_parse(text, size, NULL, &item, NULL) >= 0) {
                assert(section_body_item_kind(item));
                round_trip(&item->base);
                protobuf_c_message_free_unpacked(&item->base, NULL);
        }
        return 0;
}
