/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ProfilerSection.pb-c.h"
#include "report-section-metrics.h"
#include "strv.h"

/* The unpacked message bounds the depth already; this bounds the recursion on top of it. */
#define SECTION_DEPTH_MAX 64

static void protobuf_message_freep(ProtobufCMessage **m)
{
        if (*m)
                protobuf_c_message_free_unpacked(*m, NULL);
}

static int collect(const ProtobufCMessage *m, char ***names, unsigned depth)
{
        const ProtobufCMessageDescriptor *d = m->descriptor;

        if (depth > SECTION_DEPTH_MAX)
                return 0;
        if (d == &nv__profiler__profiler_section_metric__descriptor ||
                        d == &nv__profiler__profiler_section_metric_option__descriptor) {
                /* Name is field 1 of both, a required string. */
                const char *name = d == &nv__profiler__profiler_section_metric__descriptor
                                ? ((const NV__Profiler__ProfilerSectionMetric *) m)->name
                                : ((const NV__Profiler__ProfilerSectionMetricOption *) m)->name;
                if (name && name[0] != '\0' && !strv_contains(*names, name) && strv_extend(names, name) < 0)
                        return -ENOMEM;
        }
        for (unsigned i = 0; i < d->n_fields; i++) {
                const ProtobufCFieldDescriptor *f = &d->fields[i];
                const uint8_t *base = (const uint8_t *) m;

                if (f->type != PROTOBUF_C_TYPE_MESSAGE)
                        continue;
                if (f->label == PROTOBUF_C_LABEL_REPEATED) {
                        size_t n = *(const size_t *) (base + f->quantifier_offset);
                        ProtobufCMessage *const *items = *(ProtobufCMessage *const *const *) (base + f->offset);
                        for (size_t j = 0; j < n; j++)
                                if (items[j] && collect(items[j], names, depth + 1) < 0)
                                        return -ENOMEM;
                } else {
                        const ProtobufCMessage *sub = *(const ProtobufCMessage *const *) (base + f->offset);
                        if (sub && collect(sub, names, depth + 1) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
}

static int compare_names(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int ncu_embedded_section_metric_names(const NcuEmbeddedSection *sec, char ***ret)
{
        _cleanup_(protobuf_message_freep) ProtobufCMessage *msg = NULL;
        _cleanup_strv_free_ char **names = NULL;

        assert(sec && ret);
        names = calloc(1, sizeof(char *));
        if (!names)
                return -ENOMEM;
        msg = protobuf_c_message_unpack(&nv__profiler__profiler_section__descriptor, NULL, sec->size, sec->data);
        if (msg && collect(msg, &names, 0) < 0)
                return -ENOMEM;
        qsort_safe(names, strv_length(names), sizeof(char *), compare_names);
        *ret = TAKE_PTR(names);
        return 0;
}
