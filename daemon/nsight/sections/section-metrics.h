/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "section-catalog.h"

/* Which metrics a section collects on a given GPU architecture (compute capability as major*10+minor,
 * the GpuArch enum's values) and collection scope, following the Customization Guide:
 *
 * - A filter matches an architecture by its Items if it has any (each item a [MinArch, MaxArch] range,
 *   a missing bound being the GpuArch MinArch/MaxArch alias), else by its own MinArch/MaxArch (same
 *   defaults; a filter with neither restricts no architecture). CollectionFilter.CollectionScopes, when
 *   set, lists the scopes it allows. VGpu and MinKmd/MaxKmd need facts we do not have: they are shown,
 *   never used to drop a metric.
 * - The section's Filter applies to every metric; a metric's own Filter overrides it per aspect
 *   (its architecture part if it sets one, its CollectionFilter if it has one).
 * - The first Option whose filter matches replaces the base metric (its Name, and Label if set);
 *   with none matching, the base metric is collected if its own filter matches.
 * - A body item whose Filter does not match is hidden with everything in it.
 * - MetricDefinitions whose filter matches are derived, not collected: the metric names their
 *   expressions use are collected instead.
 * - "regex:" and "breakdown:" names are kept as patterns; section_metric_pattern_match() expands them
 *   against the metric names of a report. */

#define GPU_ARCH_MIN_ALIAS 50
#define GPU_ARCH_MAX_ALIAS 90

typedef enum CollectionScopeKind {
        COLLECTION_SCOPE_LAUNCH = 1,
        COLLECTION_SCOPE_RANGE = 2,
        COLLECTION_SCOPE_CMDLIST = 3,
} CollectionScopeKind;

const char *collection_scope_to_string(CollectionScopeKind s);
int collection_scope_from_string(const char *s, CollectionScopeKind *ret);

typedef enum SectionMetricPattern {
        SECTION_METRIC_NAME,
        SECTION_METRIC_REGEX, /* "regex:" */
        SECTION_METRIC_BREAKDOWN, /* "breakdown:" */
} SectionMetricPattern;

typedef struct SectionMetric {
        const char *name; /* as written, prefix included; points into the section */
        const char *label; /* NULL when the section gives none */
        const char *unit; /* NULL when the section gives none */
        const char *where; /* "Header", "Body", "Metrics", "SourceMetrics", "MetricDefinitions" */
        SectionMetricPattern pattern;
        bool required; /* CollectionFilter Importance Required; metrics are optional by default */
        int option; /* index of the Option that replaced the base metric, or -1 */
        const char *derived_for; /* for operands of a MetricDefinition: the derived metric's name */
} SectionMetric;

typedef struct SectionMetricList {
        SectionMetric *items; /* in section order, each name once */
        size_t n;
        size_t allocated;
        char **owned; /* operand names copied out of expressions */
        size_t n_owned;
        size_t allocated_owned;
} SectionMetricList;

void section_metric_list_clear(SectionMetricList *l);

/* Whether a filter (NULL: none) admits arch and scope, on its own. */
bool metric_filter_matches_arch(const NV__Profiler__Messages__MetricOptionFilter *f, unsigned arch);
bool metric_filter_matches_scope(const NV__Profiler__Messages__MetricOptionFilter *f, CollectionScopeKind scope);

/* Appends the metrics section s collects on arch and scope to l (deduplicated by name). */
int section_collect_metrics(
                const NV__Profiler__ProfilerSection *s, unsigned arch, CollectionScopeKind scope, SectionMetricList *l);

/* Whether name (a plain metric name) is matched by m (a name or a pattern). Returns -EINVAL for a
 * regular expression that does not compile. */
int section_metric_pattern_match(const SectionMetric *m, const char *name);
