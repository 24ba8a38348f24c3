/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "arena.h"
#include "report.h"

/* A result's metrics are the occurrences of its repeated ProfileMetricResult field (13 in ProfileResult, 4
 * in Range/Cmdlist/GraphResult). Counts them and copies every other field, as the file has it, into
 * scratch for protobuf-c (*ret_rest). Frames the top level only: the metrics themselves are checked when
 * decoded. -EBADMSG when the bytes break the wire format or the metric field is not length-delimited,
 * -ENOMEM. */
int ncu_metrics_split(Arena *scratch, const uint8_t *entry, size_t size, uint32_t field, size_t *ret_n,
                const uint8_t **ret_rest, size_t *ret_rest_size);

/* Decodes the n metrics of a result ncu_metrics_split() counted into arena, names not yet resolved.
 * -EBADMSG when a metric breaks the wire format or the schema, -ENOMEM. */
int ncu_metrics_decode(Arena *arena, const uint8_t *entry, size_t size, uint32_t field, size_t n, NcuMetric **ret);

/* Reads n bytes of a result's entry, from byte pos on, into p: 0, or a negative errno (the reader's error). */
typedef int (*NcuEntryRead)(void *userdata, size_t pos, uint8_t *p, size_t n);

/* ncu_metrics_decode() of an entry of size bytes that is not in memory: read through read() a window at a
 * time (grown for a field larger than it), so that a decode does not hold the whole entry; the same checks
 * and the same verdicts, and the reader's errors. The window is malloc()ed into *window (NULL before), for
 * the caller to free after what it allocates beside the decode: freed before those, it left holes between
 * the arena's chunks (over 10,000 results, 4 MB more and 8 % slower). */
int ncu_metrics_decode_read(Arena *arena, size_t size, uint32_t field, size_t n, NcuEntryRead read, void *userdata,
                uint8_t **window, NcuMetric **ret);
