/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>

#include "section-file.h"

int section_file_parse(const char *text, size_t len, const TextFormatOptions *o, NV__Profiler__ProfilerSection **ret,
                TextFormatDiagnostics *diags)
{
        ProtobufCMessage *m = NULL;
        int r = textformat_parse(text, len, &nv__profiler__profiler_section__descriptor, o, &m, diags);
        if (r < 0)
                return r;
        *ret = (NV__Profiler__ProfilerSection *) m;
        return 0;
}

const char *section_body_item_kind(const NV__Profiler__ProfilerSectionBodyItem *item)
{
        const ProtobufCMessageDescriptor *d = item->base.descriptor;

        for (unsigned i = 0; i < d->n_fields; i++) {
                const ProtobufCFieldDescriptor *f = &d->fields[i];
                if (f->type != PROTOBUF_C_TYPE_MESSAGE || f->id == 200) /* 200: the item's Filter */
                        continue;
                if (*(const ProtobufCMessage *const *) ((const char *) item + f->offset))
                        return f->name;
        }
        return NULL;
}

int section_chart_parse(const char *text, size_t len, const TextFormatOptions *o,
                NV__Profiler__ProfilerSectionBodyItem **ret, TextFormatDiagnostics *diags)
{
        ProtobufCMessage *m = NULL;
        int r = textformat_parse(text, len, &nv__profiler__profiler_section_body_item__descriptor, o, &m, diags);
        if (r < 0)
                return r;

        NV__Profiler__ProfilerSectionBodyItem *item = (NV__Profiler__ProfilerSectionBodyItem *) m;
        const ProtobufCMessageDescriptor *d = m->descriptor;
        unsigned n = 0;
        for (unsigned i = 0; i < d->n_fields; i++) {
                const ProtobufCFieldDescriptor *f = &d->fields[i];
                if (f->type == PROTOBUF_C_TYPE_MESSAGE && f->id != 200 &&
                                *(ProtobufCMessage **) ((char *) item + f->offset))
                        n++;
        }
        if (n != 1) {
                protobuf_c_message_free_unpacked(m, NULL);
                r = textformat_diagnostics_add(
                                diags, 1, 1, false, "A chart file holds exactly one body item; this one holds %u.", n);
                return r < 0 ? r : -EBADMSG;
        }
        *ret = item;
        return 0;
}

char *section_format_ncu_error(const TextFormatDiagnostic *d)
{
        char *s = NULL;
        if (asprintf(&s, "Error: Line=%u Column=%u %s", d->ncu_line, d->ncu_column, d->message) < 0)
                return NULL;
        return s;
}
