/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "arena.h"
#include "report.h"

/* Decodes every occurrence of field (the repeated ProfileMetricResult of a result message: 13 in
 * ProfileResult, 4 in Range/Cmdlist/GraphResult) of a serialized result into metrics in arena (names
 * not yet resolved), and returns the entry without those fields (in scratch) for protobuf-c.
 * -EBADMSG when the bytes break the wire format or the schema, -ENOMEM. */
int ncu_metrics_decode(Arena *arena, Arena *scratch, const uint8_t *entry, size_t size, uint32_t field,
                NcuMetric **ret_metrics, size_t *ret_n, const uint8_t **ret_rest, size_t *ret_rest_size);
