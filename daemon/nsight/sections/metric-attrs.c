/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Metric attributes from metric names: see metric-attrs.h for the naming convention. Everything below is
 * a rule over name parts (prefix, suffix, contained word), checked against what NVIDIA's ncu_report
 * returns for every metric of the corpus reports (tests/nsight/test-metric-attrs.c). */

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "metric-attrs.h"
#include "string-util.h"

/* Longest metric name part we look at; longer names are not PerfWorks names and get type "other". */
#define NAME_PART_MAX 256
#define PER_LEN (sizeof("_per_") - 1)

typedef enum MatchKind {
        MATCH_PREFIX,
        MATCH_SUFFIX,
        MATCH_CONTAINS,
} MatchKind;

/* One unit-family rule: a name whose base (the part before the first '.') matches gets the unit. The first
 * matching rule of a list wins. */
typedef struct UnitRule {
        MatchKind match;
        const char *pattern;
        const char *unit;
} UnitRule;

/* PerfWorks counters (unit__counter): the unit of what the counter counts, from the word naming it, checked
 * against every line of NVIDIA's metric listing (tests/nsight/test-metric-units-listing.c). The first matching
 * rule wins, so order matters where words combine: a count of bank conflicts or wavefronts is unitless although
 * it names the memory it concerns, set conflicts cost cycles; "warp launch cycles stalled" counts cycles,
 * "warps issue stalled (no instructions)" warps; the issue slots (smsp__issue_active, _inst0) and the
 * gpu__time_ counters are time; the tag lookups of L2 and of the constant cache are unitless; "bytes per
 * sector" is handled by the ratio rule; x__issue_active, x__writeback_active count the cycles spent. */
static const UnitRule counter_units[] = {
        { MATCH_SUFFIX, "_pct", "%" },
        { MATCH_CONTAINS, "bank_conflicts", "" },
        { MATCH_CONTAINS, "set_conflicts", "cycle" },
        { MATCH_CONTAINS, "wavefronts", "" },
        { MATCH_CONTAINS, "branch_targets", "" },
        { MATCH_CONTAINS, "instructions", "inst" },
        { MATCH_CONTAINS, "threads", "thread" },
        { MATCH_CONTAINS, "__time_", "second" },
        { MATCH_CONTAINS, "_cycles", "cycle" },
        { MATCH_PREFIX, "smsp__issue_", "cycle" },
        { MATCH_CONTAINS, "warp", "warp" },
        { MATCH_CONTAINS, "bytes", "byte" },
        { MATCH_CONTAINS, "sector", "sector" },
        { MATCH_CONTAINS, "tag_requests", "" },
        { MATCH_PREFIX, "idc__requests", "" },
        { MATCH_CONTAINS, "request", "request" },
        { MATCH_CONTAINS, "inst", "inst" },
        { MATCH_CONTAINS, "ctas", "block" },
        { MATCH_CONTAINS, "thread", "thread" },
        { MATCH_CONTAINS, "registers", "register" },
        { MATCH_CONTAINS, "passes", "pass" },
        { MATCH_CONTAINS, "cycles", "cycle" },
        { MATCH_CONTAINS, "_active", "cycle" },
};

/* The counters NVIDIA's listing gives another unit than their words say, on every chip or on one (chip
 * NULL: all). Each line of the listing these explain is counted as an exception by the listing test. */
typedef struct UnitException {
        UnitRule rule;
        const char *chip;
} UnitException;

static const UnitException counter_unit_exceptions[] = {
        /* the chip-to-chip link's cycles_active: listed unitless */
        { { MATCH_PREFIX, "ctc__rx__cycles_active", "" }, NULL },
        { { MATCH_PREFIX, "ctc__tx__cycles_active", "" }, NULL },
        { { MATCH_PREFIX, "l1tex__f_cycles_active", "" }, NULL },
        { { MATCH_PREFIX, "l1tex__tmain_requests", "inst" }, NULL },
        { { MATCH_PREFIX, "smsp__tex_requests", "cycle" }, NULL },
        { { MATCH_SUFFIX, "__pipe_tensor_op_dmma_cycles_active", "inst" }, "ga100" },
};

/* Ratios NVIDIA's listing gives a unit their words do not. */
static const UnitException ratio_unit_exceptions[] = {
        { { MATCH_PREFIX, "smsp__amortized_warp_latency", "cycle_per_warp" }, NULL },
};

/* Counters that hold a level each cycle (warps or blocks resident, registers allocated, warps stalled or
 * eligible) rather than count events (launched, completed, restored): their rate per cycle is the level
 * itself, in its own unit. */
static const UnitRule level_words[] = {
        { MATCH_CONTAINS, "_active", "" },
        { MATCH_CONTAINS, "stalled", "" },
        { MATCH_CONTAINS, "eligible", "" },
        { MATCH_CONTAINS, "allocated", "" },
};
static const UnitRule event_words[] = {
        { MATCH_CONTAINS, "launched", "" },
        { MATCH_CONTAINS, "completed", "" },
        { MATCH_CONTAINS, "restored", "" },
};

/* Unitless counters of the memory pipelines (L1TEX, L2 tags, the constant cache, the front end) have no
 * unit per cycle or second either; other unitless counts (tensor ops, branch targets, CGAs) are "per
 * cycle" or "per second". */
static const UnitRule unitless_without_rate[] = {
        { MATCH_CONTAINS, "l1tex", "" },
        { MATCH_PREFIX, "lts__", "" },
        { MATCH_PREFIX, "idc__", "" },
        { MATCH_PREFIX, "fe__", "" },
};

/* ncu's own collectors (device attributes, topology, launch statistics, the profiler, SASS patching,
 * source counters): whole-name rules first, then the word rules for each side of "_per_". */
static const UnitRule collector_units[] = {
        { MATCH_PREFIX, "device__", "" }, /* attributes are plain numbers, even sizes and clocks */
        { MATCH_PREFIX, "numa__", "" },
        { MATCH_PREFIX, "nvlink__", "" },
        { MATCH_PREFIX, "c2clink__", "" },
        { MATCH_SUFFIX, "_pct", "%" },
        { MATCH_SUFFIX, "_type", "" },
        { MATCH_CONTAINS, "per_opcode", "" }, /* histograms over opcodes */
        /* Source counters: the names ncu 2022.1 gave them, which the database has, spell the unit in the
         * plural; it lacks the earlier names (..._transactions_..., memory_l1_sectors_...), whose unit
         * ncu_report then guesses from the word "memory", as for derived metrics. */
        { MATCH_PREFIX, "memory_l1_tag_requests_", "sectors" },
        { MATCH_PREFIX, "memory_l1_wavefronts_", "sectors" },
        { MATCH_PREFIX, "memory_l2_theoretical_sectors_", "sectors" },
        { MATCH_PREFIX, "memory_", "byte" },
};

static const UnitRule collector_word_units[] = {
        { MATCH_CONTAINS, "pct", "%" },
        { MATCH_CONTAINS, "block_size", "" }, /* threads per block, unitless */
        { MATCH_CONTAINS, "register", "register" },
        { MATCH_CONTAINS, "shared_mem", "byte" },
        { MATCH_CONTAINS, "bytes", "byte" },
        { MATCH_CONTAINS, "block", "block" },
        { MATCH_CONTAINS, "inst_executed", "inst" },
        { MATCH_CONTAINS, "thread", "thread" },
        { MATCH_CONTAINS, "samples", "sample" },
        { MATCH_CONTAINS, "passes", "pass" },
        { MATCH_CONTAINS, "cycles", "cycle" },
        { MATCH_SUFFIX, "_time", "second" },
};

/* The counts ncu's occupancy calculator gives for a launch (how many blocks fit per SM under each limit,
 * the warps that makes, how many clusters fit and how large one may be, over how many SMs): the only
 * metrics whose unit ncu_report knows on every GPU, one outside its database included (there, its
 * percentages have none). */
static const UnitRule occupancy_units[] = {
        { MATCH_CONTAINS, "occupancy_limit_", "block" },
        { MATCH_SUFFIX, "maximum_warps_avg_per_active_cycle", "warp" },
        { MATCH_SUFFIX, "cluster_max_active", "cluster" },
        { MATCH_SUFFIX, "cluster_max_potential_size", "block" },
        { MATCH_SUFFIX, "sm_count", "SM" },
};

/* Section-defined metrics (derived__…, MetricDefinitions): ncu names their unit after the quantity the
 * name mentions first in this order, and only the quantity: a rate a section derives
 * (derived__l1tex__lsu_writeback_bytes.sum.per_second, defined as cycles per second times bytes per cycle)
 * is shown in bytes, as ncu shows it. */
static const UnitRule derived_units[] = {
        { MATCH_CONTAINS, "pct", "%" },
        { MATCH_CONTAINS, "thread", "thread" },
        { MATCH_CONTAINS, "memory", "byte" },
        { MATCH_CONTAINS, "byte", "byte" },
};

/* Pseudo metrics "prefix:…" of sections and PM sampling that are not a metric name after the prefix. */
static const UnitRule pseudo_units[] = {
        { MATCH_PREFIX, "group:", "" }, /* a group of metrics shown together */
        { MATCH_PREFIX, "regex:", "%" }, /* a pattern over metric names, shown as a share */
};

/* Domains of ncu's own collectors; every other "domain__" is a PerfWorks hardware unit (sm, smsp, lts,
 * l1tex, dram, gpu, ...). */
static const char *const collector_domains[] = {
        "device__",
        "launch__",
        "profiler__",
        "numa__",
        "nvlink__",
        "c2clink__",
        "derived__",
        "sass__",
};

static const char *const rollup_names[_METRIC_ROLLUP_MAX] = {
        [METRIC_ROLLUP_NONE] = NULL,
        [METRIC_ROLLUP_AVG] = "avg",
        [METRIC_ROLLUP_MAX] = "max",
        [METRIC_ROLLUP_MIN] = "min",
        [METRIC_ROLLUP_SUM] = "sum",
};

static const char *const subtype_names[_METRIC_SUBTYPE_MAX] = {
        [METRIC_SUBTYPE_NONE] = NULL,
        [METRIC_SUBTYPE_PEAK_SUSTAINED] = "peak_sustained",
        [METRIC_SUBTYPE_PEAK_SUSTAINED_ACTIVE] = "peak_sustained_active",
        [METRIC_SUBTYPE_PEAK_SUSTAINED_ACTIVE_PER_SECOND] = "peak_sustained_active_per_second",
        [METRIC_SUBTYPE_PEAK_SUSTAINED_ELAPSED] = "peak_sustained_elapsed",
        [METRIC_SUBTYPE_PEAK_SUSTAINED_ELAPSED_PER_SECOND] = "peak_sustained_elapsed_per_second",
        [METRIC_SUBTYPE_PEAK_SUSTAINED_FRAME] = "peak_sustained_frame",
        [METRIC_SUBTYPE_PEAK_SUSTAINED_FRAME_PER_SECOND] = "peak_sustained_frame_per_second",
        [METRIC_SUBTYPE_PEAK_SUSTAINED_REGION] = "peak_sustained_region",
        [METRIC_SUBTYPE_PEAK_SUSTAINED_REGION_PER_SECOND] = "peak_sustained_region_per_second",
        [METRIC_SUBTYPE_PER_CYCLE_ACTIVE] = "per_cycle_active",
        [METRIC_SUBTYPE_PER_CYCLE_ELAPSED] = "per_cycle_elapsed",
        [METRIC_SUBTYPE_PER_CYCLE_IN_FRAME] = "per_cycle_in_frame",
        [METRIC_SUBTYPE_PER_CYCLE_IN_REGION] = "per_cycle_in_region",
        [METRIC_SUBTYPE_PER_SECOND] = "per_second",
        [METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_ACTIVE] = "pct_of_peak_sustained_active",
        [METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_ELAPSED] = "pct_of_peak_sustained_elapsed",
        [METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_FRAME] = "pct_of_peak_sustained_frame",
        [METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_REGION] = "pct_of_peak_sustained_region",
        [METRIC_SUBTYPE_MAX_RATE] = "max_rate",
        [METRIC_SUBTYPE_PCT] = "pct",
        [METRIC_SUBTYPE_RATIO] = "ratio",
};

static const char *const type_names[_METRIC_TYPE_MAX] = {
        [METRIC_TYPE_OTHER] = "other",
        [METRIC_TYPE_COUNTER] = "counter",
        [METRIC_TYPE_RATIO] = "ratio",
        [METRIC_TYPE_THROUGHPUT] = "throughput",
};

const char *metric_type_to_string(MetricType t)
{
        assert(t >= 0 && t < _METRIC_TYPE_MAX);
        return type_names[t];
}

const char *metric_subtype_to_string(MetricSubtype s)
{
        assert(s >= 0 && s < _METRIC_SUBTYPE_MAX);
        return subtype_names[s];
}

const char *metric_rollup_to_string(MetricRollup r)
{
        assert(r >= 0 && r < _METRIC_ROLLUP_MAX);
        return rollup_names[r];
}

static bool rule_matches(const UnitRule *r, const char *s)
{
        switch (r->match) {
        case MATCH_PREFIX:
                return startswith(s, r->pattern);
        case MATCH_SUFFIX:
                return endswith(s, r->pattern);
        case MATCH_CONTAINS:
                return strstr(s, r->pattern);
        }
        assert_not_reached();
}

/* The unit of the first matching rule, or NULL when none matches. */
static const char *rules_unit(const UnitRule *rules, size_t n, const char *s)
{
        for (size_t i = 0; i < n; i++)
                if (rule_matches(&rules[i], s))
                        return rules[i].unit;
        return NULL;
}

static const char *rules_unit_or_empty(const UnitRule *rules, size_t n, const char *s)
{
        const char *u = rules_unit(rules, n, s);
        return u ? u : "";
}

static void set_unit(MetricAttrs *a, const char *u)
{
        snprintf(a->unit, sizeof(a->unit), "%s", u);
}

static void set_unit_per(MetricAttrs *a, const char *numerator, const char *denominator)
{
        snprintf(a->unit, sizeof(a->unit), "%s_per_%s", numerator, denominator);
}

static MetricRollup rollup_from_part(const char *p)
{
        for (MetricRollup r = METRIC_ROLLUP_NONE + 1; r < _METRIC_ROLLUP_MAX; r++)
                if (streq(p, rollup_names[r]))
                        return r;
        return METRIC_ROLLUP_NONE;
}

static MetricSubtype subtype_from_part(const char *p)
{
        for (MetricSubtype s = METRIC_SUBTYPE_NONE + 1; s < _METRIC_SUBTYPE_MAX; s++)
                if (streq(p, subtype_names[s]))
                        return s;
        return METRIC_SUBTYPE_NONE;
}

static bool subtype_is_pct(MetricSubtype s)
{
        return IN_SET(s, METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_ACTIVE, METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_ELAPSED,
                        METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_FRAME, METRIC_SUBTYPE_PCT_OF_PEAK_SUSTAINED_REGION,
                        METRIC_SUBTYPE_PCT);
}

static bool subtype_is_per_second(MetricSubtype s)
{
        return IN_SET(s, METRIC_SUBTYPE_PER_SECOND, METRIC_SUBTYPE_PEAK_SUSTAINED_ACTIVE_PER_SECOND,
                        METRIC_SUBTYPE_PEAK_SUSTAINED_ELAPSED_PER_SECOND,
                        METRIC_SUBTYPE_PEAK_SUSTAINED_FRAME_PER_SECOND,
                        METRIC_SUBTYPE_PEAK_SUSTAINED_REGION_PER_SECOND);
}

/* A rate per cycle: the peak rate and the per_cycle_* averages. (The peaks over the active or elapsed cycles,
 * peak_sustained_active and _elapsed, are counts.) */
static bool subtype_is_per_cycle(MetricSubtype s)
{
        return IN_SET(s, METRIC_SUBTYPE_PEAK_SUSTAINED, METRIC_SUBTYPE_PER_CYCLE_ACTIVE,
                        METRIC_SUBTYPE_PER_CYCLE_ELAPSED, METRIC_SUBTYPE_PER_CYCLE_IN_FRAME,
                        METRIC_SUBTYPE_PER_CYCLE_IN_REGION);
}

static bool counter_holds_level(const char *base)
{
        return rules_unit(level_words, ELEMENTSOF(level_words), base) &&
                        !rules_unit(event_words, ELEMENTSOF(event_words), base);
}

/* The unit of a rate (per "cycle" or "second") of counter base counting family. */
static void rate_unit(MetricAttrs *a, const char *base, const char *family, const char *denominator)
{
        if (isempty(family)) {
                if (rules_unit(unitless_without_rate, ELEMENTSOF(unitless_without_rate), base))
                        set_unit(a, "");
                else
                        set_unit_per(a, "", denominator);
                return;
        }
        if (streq(denominator, "cycle")) {
                if (streq(family, "cycle")) {
                        set_unit(a, ""); /* cycles per cycle cancel */
                        return;
                }
                if ((streq(family, "warp") || streq(family, "block") || streq(family, "register")) &&
                                counter_holds_level(base)) {
                        set_unit(a, family);
                        return;
                }
        }
        set_unit_per(a, family, denominator);
}

/* The unit of counter base's value under a subtype: a share of the peak is "%", the peak over the active or
 * elapsed cycles a count, the peak per cycle and the per_cycle_* averages a rate per cycle. */
static void compose_unit(MetricAttrs *a, const char *base, const char *family, MetricSubtype s)
{
        if (subtype_is_pct(s)) {
                set_unit(a, "%");
                return;
        }
        if (subtype_is_per_second(s)) {
                rate_unit(a, base, family, "second");
                return;
        }
        if (subtype_is_per_cycle(s)) {
                rate_unit(a, base, family, "cycle");
                return;
        }
        set_unit(a, family);
}

static bool exception_matches(const UnitException *e, const char *s, const MetricChip *chip)
{
        if (e->chip && (!chip || !streq_ptr(chip->name, e->chip)))
                return false;
        return rule_matches(&e->rule, s);
}

static const UnitException *find_exception(
                const UnitException *table, size_t n, const char *base, const MetricChip *chip)
{
        for (size_t i = 0; i < n; i++)
                if (exception_matches(&table[i], base, chip))
                        return &table[i];
        return NULL;
}

static const char *counter_family_on(MetricAttrs *a, const char *base, const MetricChip *chip)
{
        const UnitException *e =
                        find_exception(counter_unit_exceptions, ELEMENTSOF(counter_unit_exceptions), base, chip);

        if (!e)
                return rules_unit_or_empty(counter_units, ELEMENTSOF(counter_units), base);
        a->unit_from_exception = true;
        return e->rule.unit;
}

/* PerfWorks ratios "unit__[average_]X_per_Y": X's unit over Y's. Equal units cancel, and so does a count
 * over a unitless one (bytes per wavefront). Warp counters accumulate warps per cycle: per instruction they
 * give cycles; per (issue) cycle, stalled warps give instructions, active ones warps. A ratio without "per"
 * is unitless but for a latency. */
static void ratio_unit(MetricAttrs *a, const char *base, const MetricChip *chip)
{
        char numerator[NAME_PART_MAX];
        const char *per = NULL;
        const UnitException *e = find_exception(ratio_unit_exceptions, ELEMENTSOF(ratio_unit_exceptions), base, chip);

        if (e) {
                set_unit(a, e->rule.unit);
                a->unit_from_exception = true;
                return;
        }
        for (const char *p = strstr(base, "_per_"); p; p = strstr(p + 1, "_per_"))
                per = p;
        if (!per) {
                /* a warp's latency per stall reason is listed in instructions per warp */
                if (strstr(base, "latency"))
                        set_unit(a, strstr(base, "issue_stalled") ? "inst_per_warp" : "cycle");
                else
                        set_unit(a, "");
                return;
        }

        snprintf(numerator, sizeof(numerator), "%.*s", (int) (per - base), base);
        const char *n = counter_family_on(a, numerator, chip), *d = counter_family_on(a, per + PER_LEN, chip);

        if (isempty(n) || isempty(d) || streq(n, d)) {
                set_unit(a, "");
                return;
        }
        if (streq(n, "warp") && streq(d, "inst")) {
                set_unit(a, "cycle");
                return;
        }
        if (streq(n, "warp") && streq(d, "cycle")) {
                set_unit(a, strstr(numerator, "stalled") ? "inst" : "warp");
                return;
        }
        set_unit_per(a, n, d);
}

/* ncu's collectors: whole-name rules, else the unit of what is counted "per" what. */
static void collector_unit(MetricAttrs *a, const char *base)
{
        const char *u;

        if (startswith(base, "derived__")) {
                const char *per = strstr(base, "_per_");
                u = rules_unit_or_empty(derived_units, ELEMENTSOF(derived_units), base);
                if (per && !isempty(u)) {
                        const char *d = rules_unit_or_empty(
                                        collector_word_units, ELEMENTSOF(collector_word_units), per + PER_LEN);
                        if (!isempty(d)) {
                                set_unit_per(a, u, d);
                                return;
                        }
                        a->unit_per_unitless = true;
                }
                {
                        set_unit(a, u);
                        return;
                }
        }

        u = rules_unit(collector_units, ELEMENTSOF(collector_units), base);
        if (u) {
                set_unit(a, u);
                return;
        }

        const char *per = strstr(base, "_per_");
        if (!per) {
                set_unit(a, rules_unit_or_empty(collector_word_units, ELEMENTSOF(collector_word_units), base));
                return;
        }

        char numerator[NAME_PART_MAX];
        snprintf(numerator, sizeof(numerator), "%.*s", (int) (per - base), base);
        const char *n = rules_unit_or_empty(collector_word_units, ELEMENTSOF(collector_word_units), numerator),
                   *d = rules_unit_or_empty(collector_word_units, ELEMENTSOF(collector_word_units), per + PER_LEN);
        if (isempty(n) || isempty(d)) {
                set_unit(a, n);
                return;
        }
        set_unit_per(a, n, d);
}

static bool is_collector_name(const char *base)
{
        if (!strstr(base, "__"))
                return true; /* inst_executed, memory_…, derived_tempMetric0: source counters and temporaries */
        for (size_t i = 0; i < ELEMENTSOF(collector_domains); i++)
                if (startswith(base, collector_domains[i]))
                        return true;
        return false;
}

/* A name split at its dots: at most four parts are meaningful (base, rollup, subtype, and the "per_second"
 * of a peak rate per second). */
typedef struct NameParts {
        size_t n;
        char part[4][NAME_PART_MAX];
} NameParts;

static bool split_name(const char *name, NameParts *ret)
{
        *ret = (NameParts){ .n = 0 };
        for (const char *p = name;; ret->n++) {
                const char *dot = strchr(p, '.');
                size_t len = dot ? (size_t) (dot - p) : strlen(p);

                if (ret->n < ELEMENTSOF(ret->part)) {
                        if (len >= NAME_PART_MAX)
                                return false;
                        memcpy(ret->part[ret->n], p, len);
                        ret->part[ret->n][len] = 0;
                }
                if (!dot) {
                        ret->n++;
                        return true;
                }
                p = dot + 1;
        }
}

/* The unit of a PerfWorks name "base[.rollup[.subtype[.per_second]]]" or "base.{pct,ratio,max_rate}". */
static void counter_unit(MetricAttrs *a, const NameParts *np, const MetricChip *chip)
{
        MetricSubtype s = np->n >= 3 ? subtype_from_part(np->part[2]) : METRIC_SUBTYPE_NONE;

        if (np->n >= 2) {
                if (streq(np->part[1], "pct")) {
                        set_unit(a, "%");
                        return;
                }
                if (streq(np->part[1], "ratio") || streq(np->part[1], "max_rate")) {
                        ratio_unit(a, np->part[0], chip);
                        return;
                }
        }
        if (np->n == 4 && streq(np->part[3], "per_second"))
                s = METRIC_SUBTYPE_PER_SECOND; /* a peak turned into a rate per second */
        compose_unit(a, np->part[0], counter_family_on(a, np->part[0], chip), s);
}

/* Metrics of type "other" carry whatever rollup and subtype their name spells in the usual places. */
static void other_positions(MetricAttrs *a, const NameParts *np)
{
        a->type = METRIC_TYPE_OTHER;
        if (np->n > 3)
                return;
        if (np->n >= 2)
                a->rollup = rollup_from_part(np->part[1]);
        if (np->n >= 3)
                a->subtype = subtype_from_part(np->part[2]);
}

/* A counter revised after ncu 2024.1.1 ("..._v2": ncu 2024.3's tensor pipe counters on Ada): its
 * database has only the first revision. */
static bool is_later_revision(const char *base)
{
        const char *v = strrchr(base, '_');

        return v && v[1] == 'v' && v[2] >= '2' && v[2] <= '9' && strspn(v + 2, "0123456789") == strlen(v + 2);
}

/* Whether the chip's database has the PerfWorks counter `base`: a chip without NVLink has no NVLink
 * traffic counters (nvlrx__ received, nvltx__ sent); no chip has a later revision. */
static bool chip_has_counter(const MetricChip *chip, const char *base)
{
        if (chip->lacks_nvlink && (startswith(base, "nvlrx__") || startswith(base, "nvltx__")))
                return false;
        return !is_later_revision(base);
}

/* ncu 2025.1 added the limit a block's barrier count sets to the occupancy calculator: ncu 2024.1.1's
 * database has none of its metrics (launch__occupancy_limit_barriers, launch__occupancy_per_barrier_count)
 * and no unit for one defined over them (derived__pct_occupancy_per_barrier_count). */
static bool is_barrier_occupancy(const char *base)
{
        return strstr(base, "occupancy") && strstr(base, "barrier");
}

/* The unit of one of the occupancy calculator's metrics; NULL for another metric. */
static const char *occupancy_unit(const char *base)
{
        if (is_barrier_occupancy(base))
                return "";
        return rules_unit(occupancy_units, ELEMENTSOF(occupancy_units), base);
}

/* Derives what the name tells. Returns true when that fixed the type; false when the type, rollup and subtype
 * are to be read from the name's usual places, as for "other" metrics. */
static bool derive_from_name(const char *name, bool is_floating, const MetricChip *chip, MetricAttrs *ret)
{
        NameParts np;

        /* "prefix:metric" pseudo metrics and "Qualifier[.Qualifier].metric" PM-sampling metrics: the unit of
         * the metric they show, everything else "other". */
        const char *colon = strchr(name, ':'), *inner = name;
        bool qualified = false;

        if (colon && (!strchr(name, '.') || colon < strchr(name, '.'))) {
                const char *u = rules_unit(pseudo_units, ELEMENTSOF(pseudo_units), name);
                if (u) {
                        set_unit(ret, u);
                        return false;
                }
                inner = colon + 1;
                qualified = true;
        } else
                for (const char *p = name; p;) {
                        const char *dot = strchr(p, '.');
                        const char *sep = strstr(p, "__");
                        if (sep && (!dot || sep < dot)) {
                                inner = p;
                                break;
                        }
                        if (!dot)
                                break;
                        p = dot + 1;
                }
        if (inner != name)
                qualified = true;

        if (!split_name(inner, &np))
                return false;

        if (!qualified) {
                const char *u = occupancy_unit(np.part[0]);
                if (u) {
                        set_unit(ret, u);
                        return false;
                }
        }

        if (is_collector_name(np.part[0])) {
                collector_unit(ret, np.part[0]);
                return false;
        }

        if (qualified) {
                counter_unit(ret, &np, chip);
                return false;
        }

        if (!is_floating || !chip_has_counter(chip, np.part[0])) {
                /* An integer or string under a PerfWorks name, or a counter the chip's database lacks. A rule
                 * that could not collect a rate (NVLink bytes per second) stores an integer 0 in its place:
                 * still the counter where the database has it. The per-instruction SASS counters of source
                 * views are counters too. Anything else is a value ncu collected itself, a fallback a rule
                 * stored, or a metric the GPU's database lacks: "other", with the unit its name spells. */
                MetricSubtype s = np.n == 3 ? subtype_from_part(np.part[2]) : METRIC_SUBTYPE_NONE;
                const char *family = counter_family_on(ret, np.part[0], chip);

                if (chip_has_counter(chip, np.part[0]) && np.n == 3 &&
                                rollup_from_part(np.part[1]) != METRIC_ROLLUP_NONE &&
                                (subtype_is_per_second(s) || subtype_is_per_cycle(s))) {
                        ret->type = METRIC_TYPE_COUNTER;
                        ret->rollup = rollup_from_part(np.part[1]);
                        ret->subtype = s;
                        compose_unit(ret, np.part[0], family, s);
                        return true;
                }
                if (np.n == 1 && startswith(np.part[0], "smsp__sass_")) {
                        /* ..._evict_type sorts instructions by a kind: not a count of anything */
                        if (endswith(np.part[0], "_type")) {
                                set_unit(ret, "");
                                return false;
                        }
                        set_unit(ret, family);
                        if (isempty(family))
                                return false;
                        ret->type = METRIC_TYPE_COUNTER;
                        return true;
                }
                set_unit(ret, family);
                return false;
        }

        if (np.n == 2 &&
                        IN_SET(subtype_from_part(np.part[1]), METRIC_SUBTYPE_PCT, METRIC_SUBTYPE_RATIO,
                                        METRIC_SUBTYPE_MAX_RATE)) {
                ret->type = METRIC_TYPE_RATIO;
                counter_unit(ret, &np, chip);
                return true;
        }

        /* A peak rate in cycles turned into one per second: base.rollup.peak_sustained_X.per_second. The
         * subtype is the peak's; the unit is the count per second. */
        if (np.n == 4 && rollup_from_part(np.part[1]) != METRIC_ROLLUP_NONE &&
                        IN_SET(subtype_from_part(np.part[2]), METRIC_SUBTYPE_PEAK_SUSTAINED,
                                        METRIC_SUBTYPE_PEAK_SUSTAINED_ACTIVE, METRIC_SUBTYPE_PEAK_SUSTAINED_ELAPSED,
                                        METRIC_SUBTYPE_PEAK_SUSTAINED_FRAME, METRIC_SUBTYPE_PEAK_SUSTAINED_REGION) &&
                        streq(np.part[3], "per_second")) {
                ret->type = strstr(np.part[0], "throughput") ? METRIC_TYPE_THROUGHPUT : METRIC_TYPE_COUNTER;
                ret->rollup = rollup_from_part(np.part[1]);
                ret->subtype = subtype_from_part(np.part[2]);
                compose_unit(ret, np.part[0], counter_family_on(ret, np.part[0], chip), METRIC_SUBTYPE_PER_SECOND);
                return true;
        }

        if (IN_SET(np.n, 2, 3) && rollup_from_part(np.part[1]) != METRIC_ROLLUP_NONE &&
                        (np.n == 2 || subtype_from_part(np.part[2]) != METRIC_SUBTYPE_NONE)) {
                ret->type = strstr(np.part[0], "throughput") ? METRIC_TYPE_THROUGHPUT : METRIC_TYPE_COUNTER;
                ret->rollup = rollup_from_part(np.part[1]);
                ret->subtype = np.n == 3 ? subtype_from_part(np.part[2]) : METRIC_SUBTYPE_NONE;
                counter_unit(ret, &np, chip);
                return true;
        }

        counter_unit(ret, &np, chip);
        return false;
}

/* On a GPU outside the database ncu_report knows no metric: each is "other", with the rollup and subtype
 * its name spells, and no unit but the occupancy calculator's. */
static void derive_outside_database(const char *name, MetricAttrs *ret)
{
        NameParts np;

        if (!split_name(name, &np))
                return;
        other_positions(ret, &np);
        set_unit(ret, strempty(occupancy_unit(np.part[0])));
}

/* The chips of NVIDIA's metric listing by the id a report stores (device__attribute_chip): the GPU's
 * architecture and implementation as its boot register reads them (nouveau's chipset ids), which the corpus
 * confirms where it has the chip: gv100 0x140 (compute capability 7.0), ga100 0x170 (8.0), gh100 0x180 (9.0). */
static const struct {
        unsigned id;
        const char *name;
} chip_names[] = {
        { 0x140, "gv100" },
        { 0x15b, "gv11b" },
        { 0x162, "tu102" },
        { 0x164, "tu104" },
        { 0x166, "tu106" },
        { 0x167, "tu117" },
        { 0x168, "tu116" },
        { 0x170, "ga100" },
        { 0x172, "ga102" },
        { 0x173, "ga103" },
        { 0x174, "ga104" },
        { 0x176, "ga106" },
        { 0x177, "ga107" },
        { 0x17b, "ga10b" },
        { 0x180, "gh100" },
        { 0x192, "ad102" },
        { 0x193, "ad103" },
        { 0x194, "ad104" },
        { 0x196, "ad106" },
        { 0x197, "ad107" },
};

const char *metric_chip_name(double device_attribute_chip)
{
        for (size_t i = 0; i < ELEMENTSOF(chip_names); i++)
                if (device_attribute_chip == chip_names[i].id)
                        return chip_names[i].name;
        return NULL;
}

void metric_chip_from_device(int cc_major, int cc_minor, double nvlink_max_count, MetricChip *ret)
{
        assert(ret);

        *ret = (MetricChip){ 0 };
        if (cc_major >= 0 && cc_minor >= 0) {
                int cc = cc_major * 10 + MIN(cc_minor, 9);
                ret->outside_database = cc < 70 || cc > 90;
        }
        ret->lacks_nvlink = nvlink_max_count == 0;
}

void metric_attrs_derive(
                const char *name, bool is_floating, const MetricChip *chip, const char *section_unit, MetricAttrs *ret)
{
        static const MetricChip known = { 0 };
        NameParts np;

        assert(name);
        assert(ret);

        if (!chip)
                chip = &known;
        *ret = (MetricAttrs){ .type = METRIC_TYPE_OTHER };
        if (chip->outside_database)
                derive_outside_database(name, ret);
        else if (!derive_from_name(name, is_floating, chip, ret)) {
                if (split_name(name, &np))
                        other_positions(ret, &np);
                else
                        ret->type = METRIC_TYPE_OTHER;
        }
        if (!isempty(section_unit)) {
                set_unit(ret, section_unit);
                ret->unit_per_unitless = false;
                ret->unit_from_exception = false;
        }
}

void metric_attrs_csv_unit(const MetricAttrs *a, char buf[static METRIC_UNIT_MAX])
{
        size_t n = 0;

        assert(a);

        /* Durations are stored in nanoseconds: "second" and "second_per_cycle" print as "nsecond", "nsecond/cycle" */
        if (streq(a->unit, "second") || startswith(a->unit, "second_per_"))
                buf[n++] = 'n';
        for (const char *p = a->unit; *p && n + 1 < METRIC_UNIT_MAX;)
                if (startswith(p, "_per_")) {
                        buf[n++] = '/';
                        p += PER_LEN;
                } else
                        buf[n++] = *p++;
        if (a->unit_per_unitless && n + 1 < METRIC_UNIT_MAX)
                buf[n++] = '/';
        buf[n] = 0;
}

/* ncu's details page guesses the units of metrics outside its database (section-derived metrics, PC
 * sampling counters, and the memory-descriptor source counters under the names ncu 2022.1 gave them,
 * smsp__inst_executed_memdesc_…, which its database has as smsp__sass_inst_executed_memdesc_… only) from
 * the words of their names with its own priorities, which differ from ncu_report's: "membar" stalls and
 * "memdesc" instructions count as memory (byte), "thread_inst" as instructions. */
static const UnitRule details_guess_units[] = {
        { MATCH_CONTAINS, "pct", "%" },
        { MATCH_CONTAINS, "mem", "byte" },
        { MATCH_CONTAINS, "inst", "inst" },
        { MATCH_CONTAINS, "thread", "thread" },
        { MATCH_CONTAINS, "warp", "warp" },
};

void metric_attrs_details_unit(const char *name, MetricAttrs *a)
{
        const char *u;

        assert(name);
        assert(a);

        if (!startswith(name, "derived__") && !startswith(name, "smsp__pcsamp_warps_") &&
                        !startswith(name, "smsp__inst_executed_memdesc_"))
                return;
        if (strstr(name, "_per_"))
                return; /* "X per Y" units are composed the same way on both */
        u = rules_unit(details_guess_units, ELEMENTSOF(details_guess_units), name);
        if (u)
                set_unit(a, u);
}
