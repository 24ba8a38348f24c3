/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The attributes ncu_report gives every metric (IMetric.metric_type(), metric_subtype(), rollup_operation(),
 * unit()) although a report never stores them: ncu takes them from its built-in metric database. We derive
 * them from the metric naming convention instead (../shared/docs/ncu-format.md §1, §5):
 *
 *   unit__counter[.rollup[.subtype]]      PerfWorks counters and throughputs (sm__cycles_active.avg)
 *   unit__ratio.{pct,ratio,max_rate}      PerfWorks ratios (lts__t_sector_hit_rate.pct)
 *   device__…, launch__…, profiler__…     ncu's own collectors: type "other"
 *   Qualifier.unit__counter…, prefix:…    PM-sampling and section pseudo metrics: type "other"
 *
 * The unit is the base counter's unit family (bytes -> byte, sectors -> sector, cycles -> cycle, ...)
 * combined with the subtype (per_second -> X_per_second, per_cycle -> X_per_cycle, pct -> %). The rules and
 * the unit families are in metric-attrs.c; nothing here is a per-metric table.
 *
 * ncu_report looks each metric up in the database of the chip the result ran on, so the same name can get
 * other attributes on another GPU (MetricChip): on a GPU the database lacks, every metric is "other" and
 * only the occupancy calculator's counts keep a unit; on a chip without a hardware unit, that unit's
 * counters are names the database lacks. */

#include <stdbool.h>

typedef enum MetricType {
        METRIC_TYPE_OTHER,
        METRIC_TYPE_COUNTER,
        METRIC_TYPE_RATIO,
        METRIC_TYPE_THROUGHPUT,
        _METRIC_TYPE_MAX,
} MetricType;

/* ncu_report's MetricSubtype, in its order; the names are the metric name suffixes. */
typedef enum MetricSubtype {
        METRIC_SUBTYPE_NONE,
        METRIC_SUBTYPE_PEAK_SUSTAINED,
        METRIC_SUBTYPE_PEAK_SUSTAINED_ACTIVE,
        METRIC_SUBTYPE_PEAK_SUSTAINED_ACTIVE_PER_SECOND,
        METRIC_SUBTYPE_PEAK_SUSTAINED_ELAPSED,
        METRIC_SUBTYPE_PEAK_SUSTAINED_ELAPSED_PER_SECOND,
        METRIC_SUBTYPE_PEAK_SUSTAINED_FRAME,
        METRIC_SUBTYPE_PEAK_SUSTAINED_FRAME_PER_SECOND,
        METRIC_SUBTYPE_PEAK_SUSTAINED_REGION,
        METRIC_SUBTYPE_PEAK_SUSTAINED_REGION_PER_SECOND,
        METRIC_SUBTYPE_PER_CYCLE_ACTIVE,
        METRIC_SUBTYPE_PER_CYCLE_ELAPSED,
        METRIC_SUBTYPE_PER_CYCLE_IN_FRAME,
        METRIC_SUBTYPE_PER_CYCLE_IN_REGION,
        METRIC_SUBTYPE_PER_SECOND,
        METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_ACTIVE,
        METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_ELAPSED,
        METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_FRAME,
        METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_REGION,
        METRIC_SUBTYPE_MAX_RATE,
        METRIC_SUBTYPE_PCT,
        METRIC_SUBTYPE_RATIO,
        _METRIC_SUBTYPE_MAX,
} MetricSubtype;

typedef enum MetricRollup {
        METRIC_ROLLUP_NONE,
        METRIC_ROLLUP_AVG,
        METRIC_ROLLUP_MAX,
        METRIC_ROLLUP_MIN,
        METRIC_ROLLUP_SUM,
        _METRIC_ROLLUP_MAX,
} MetricRollup;

/* Longest unit we compose ("register_per_thread", "sector_per_second", "%_per_register", ...). */
#define METRIC_UNIT_MAX 64

typedef struct MetricAttrs {
        MetricType type;
        MetricSubtype subtype;
        MetricRollup rollup;
        char unit[METRIC_UNIT_MAX]; /* ncu_report's spelling: "byte_per_second", "%", "" for none */
        /* The unit is "X per <unitless>" (derived__pct_occupancy_per_block_size): ncu_report says "X",
         * ncu's CSV "X/". */
        bool unit_per_unitless;
        /* The unit came from the small table of counters NVIDIA lists with another unit than their name's
         * words give (metric-attrs.c, counter_unit_exceptions): the listing test counts these. */
        bool unit_from_exception;
} MetricAttrs;

/* What ncu_report's metric database knows of the GPU a result ran on. The oracle is NVIDIA's module of ncu
 * 2024.1.1, whose release notes ("GPU Support") list Volta (compute capability 7.0) to Hopper (9.0): Pascal
 * (6.x) support ended in ncu 2020.1 and Blackwell (10.x, 12.x) came after it. The zero value is a chip the
 * database has, with NVLink. */
typedef struct MetricChip {
        bool outside_database; /* compute capability below 7.0 or above 9.0 */
        bool lacks_nvlink; /* the result says the chip has no NVLink link (nvlink__max_count 0) */
        const char *name; /* the chip as NVIDIA's metric listing names it ("ga100"), or NULL when not known */
} MetricChip;

/* The listing's name of the chip a result stores as device__attribute_chip, or NULL when it is not one of the
 * listing's 20 chips. */
const char *metric_chip_name(double device_attribute_chip);

/* The chip from what a result stores: its compute capability (device__attribute_compute_capability_major
 * and _minor; negative when the result has none) and nvlink__max_count (negative when absent). What is
 * not known counts as a chip the database has, with NVLink. */
void metric_chip_from_device(int cc_major, int cc_minor, double nvlink_max_count, MetricChip *ret);

/* Derives the attributes of metric `name` whose value (or first instance) has a floating-point kind
 * (is_floating: double or float) or not (integer, string, none), on chip (NULL: the zero MetricChip).
 * PerfWorks metrics are always floating point; an integer or string value under a PerfWorks name is
 * something ncu collected itself (source counters, timelines) or a fallback a rule stored, and has type
 * "other". section_unit, when not NULL and not empty, is the unit a section sets for the metric
 * (ProfilerSectionMetric.Unit) and wins over the derived one. */
void metric_attrs_derive(
                const char *name, bool is_floating, const MetricChip *chip, const char *section_unit, MetricAttrs *ret);

/* ncu_report's lower-case names ("counter", "pct_of_peak_sustained_elapsed", "sum"); NULL for NONE (as
 * Python's None) where ncu_report has no name for it. */
const char *metric_type_to_string(MetricType t);
const char *metric_subtype_to_string(MetricSubtype s);
const char *metric_rollup_to_string(MetricRollup r);

/* The unit ncu's details page shows where it differs from ncu_report's: its own guess for metrics outside
 * the metric database (derived__…, smsp__pcsamp_warps_…). Call after metric_attrs_derive() without a
 * section unit. */
void metric_attrs_details_unit(const char *name, MetricAttrs *a);

/* The unit as ncu's CSV exports print it with --print-units base: "_per_" becomes "/", and "second" alone
 * (durations, stored in nanoseconds) "nsecond". */
void metric_attrs_csv_unit(const MetricAttrs *a, char buf[static METRIC_UNIT_MAX]);
