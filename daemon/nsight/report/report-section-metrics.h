/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "report.h"

/* The metric names a section embedded in a result lists: every ProfilerSectionMetric and
 * ProfilerSectionMetricOption name at any depth (header, body items, tables, charts), each once, sorted by
 * strcmp(). A section that does not unpack lists none. Returns 0 and a NULL-terminated vector (never NULL),
 * or -ENOMEM. */
int ncu_embedded_section_metric_names(const NcuEmbeddedSection *sec, char ***ret);
