/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* NVIDIA's stock section and chart files (ncu 2024.1.1 and 2025.3.1), read in place from the corpus:
 * every file by name with its content, ncu's own listings byte for byte, the 17 errors ncu 2024.1.1
 * reports on the newer files, and the binary round trip against protoc. */

#include <fcntl.h>
#include <unistd.h>

#include "fileio.h"
#include "metric-expr.h"
#include "section-catalog.h"
#include "section-listing.h"
#include "section-metrics.h"
#include "test-util.h"

typedef struct SectionFact {
        const char *file;
        const char *identifier;
        const char *display_name;
        unsigned order;
        size_t n_body;
        const char *sets;
        const char *extends;
} SectionFact;

static const SectionFact facts_2024[] = {
        { "ComputeWorkloadAnalysis.section", "ComputeWorkloadAnalysis", "Compute Workload Analysis", 20, 1,
                        "detailed,full", NULL },
        { "InstructionStatistics.section", "InstructionStats", "Instruction Statistics", 60, 1, "full", NULL },
        { "LaunchStatistics.section", "LaunchStats", "Launch Statistics", 70, 0, "basic,detailed,full", NULL },
        { "MemoryWorkloadAnalysis_Tables.section", "MemoryWorkloadAnalysis_Tables", "Memory Workload Analysis Tables",
                        32, 1, "full", "MemoryWorkloadAnalysis" },
        { "Occupancy.section", "Occupancy", "Occupancy", 80, 1, "basic,detailed,full", NULL },
        { "PmSampling.section", "PmSampling", "PM Sampling", 15, 1, "full,pmsampling", NULL },
        { "SourceCounters.section", "SourceCounters", "Source Counters", 100, 1, "detailed,full", NULL },
        { "SpeedOfLight.section", "SpeedOfLight", "GPU Speed Of Light Throughput", 10, 2,
                        "basic,detailed,full,roofline", NULL },
        { "SpeedOfLight_RooflineChart.section", "SpeedOfLight_RooflineChart", "GPU Speed Of Light Roofline Chart", 11,
                        1, "detailed,full,roofline", "SpeedOfLight" },
        { "WarpStateStatistics.section", "WarpStateStats", "Warp State Statistics", 50, 1, "full", NULL },
        { "RuleTemplates/KernelInstanceBoundsAnalysis.section", "kernel_instance_bounds_analysis", "Kernel Bounds", 10,
                        0, "", NULL },
        { "RuleTemplates/RuleTemplate.section", "RuleTemplateSection", "Rule Template", 20, 0, "", NULL },
};

static const SectionFact facts_2025[] = {
        { "C2CLink.section", "C2CLink", "C2CLink", 60, 0, "", NULL },
        { "ComputeWorkloadAnalysis.section", "ComputeWorkloadAnalysis", "Compute Workload Analysis", 20, 2,
                        "detailed,full", NULL },
        { "InstructionStatistics.section", "InstructionStats", "Instruction Statistics", 60, 2, "full", NULL },
        { "LaunchStatistics.section", "LaunchStats", "Launch Statistics", 70, 1, "basic,detailed,full", NULL },
        { "MemoryWorkloadAnalysis.section", "MemoryWorkloadAnalysis", "Memory Workload Analysis", 30, 0,
                        "detailed,full", NULL },
        { "MemoryWorkloadAnalysis_Chart.section", "MemoryWorkloadAnalysis_Chart", "Memory Workload Analysis Chart", 31,
                        1, "detailed,full", "MemoryWorkloadAnalysis" },
        { "MemoryWorkloadAnalysis_Tables.section", "MemoryWorkloadAnalysis_Tables", "Memory Workload Analysis Tables",
                        32, 1, "full", "MemoryWorkloadAnalysis" },
        { "NumaAffinity.section", "NumaAffinity", "NUMA Affinity", 63, 1, "full", NULL },
        { "Nvlink.section", "Nvlink", "NVLink", 60, 0, "nvlink", NULL },
        { "Nvlink_Tables.section", "Nvlink_Tables", "NVLink Tables", 62, 1, "full,nvlink", "Nvlink" },
        { "Nvlink_Topology.section", "Nvlink_Topology", "NVLink Topology", 61, 1, "full,nvlink", "Nvlink" },
        { "Occupancy.section", "Occupancy", "Occupancy", 80, 2, "basic,detailed,full", NULL },
        { "PmSampling.section", "PmSampling", "PM Sampling", 15, 1, "full,pmsampling", NULL },
        { "PmSampling_WarpStates.section", "PmSampling_WarpStates", "PM Sampling: Warp States", 16, 1, "pmsampling",
                        "PmSampling" },
        { "SchedulerStatistics.section", "SchedulerStats", "Scheduler Statistics", 40, 1, "full", NULL },
        { "SourceCounters.section", "SourceCounters", "Source Counters", 100, 1, "detailed,full", NULL },
        { "SpeedOfLight.section", "SpeedOfLight", "GPU Speed Of Light Throughput", 10, 2,
                        "basic,detailed,full,roofline", NULL },
        { "SpeedOfLight_HierarchicalDoubleRooflineChart.section", "SpeedOfLight_HierarchicalDoubleRooflineChart",
                        "GPU Speed Of Light Hierarchical Roofline Chart (Double Precision)", 12, 1, "roofline,full",
                        "SpeedOfLight" },
        { "SpeedOfLight_HierarchicalHalfRooflineChart.section", "SpeedOfLight_HierarchicalHalfRooflineChart",
                        "GPU Speed Of Light Hierarchical Roofline Chart (Half Precision)", 12, 1, "roofline,full",
                        "SpeedOfLight" },
        { "SpeedOfLight_HierarchicalSingleRooflineChart.section", "SpeedOfLight_HierarchicalSingleRooflineChart",
                        "GPU Speed Of Light Hierarchical Roofline Chart (Single Precision)", 12, 1, "roofline,full",
                        "SpeedOfLight" },
        { "SpeedOfLight_HierarchicalTensorRooflineChart.section", "SpeedOfLight_HierarchicalTensorRooflineChart",
                        "GPU Speed Of Light Hierarchical Roofline Chart (Tensor Core)", 12, 1, "roofline,full",
                        "SpeedOfLight" },
        { "SpeedOfLight_RooflineChart.section", "SpeedOfLight_RooflineChart", "GPU Speed Of Light Roofline Chart", 11,
                        1, "detailed,full,roofline", "SpeedOfLight" },
        { "WarpStateStatistics.section", "WarpStateStats", "Warp State Statistics", 50, 1, "full", NULL },
        { "WorkloadDistribution.section", "WorkloadDistribution", "GPU and Memory Workload Distribution", 100, 1,
                        "basic,detailed,full,roofline", NULL },
};

static const struct {
        const char *file;
        const char *kind;
} charts[] = {
        { "ncu-2025.3.1/UncoalescedAccess.chart", "SourceMetricTable" },
        { "ncu-2025.3.1/UncoalescedSharedAccess.chart", "SourceMetricTable" },
        { "ncu-2024.1.1/RuleTemplates/RuleTemplate2_table.chart", "Table" },
        { "ncu-2024.1.1/RuleTemplates/RuleTemplate_bar.chart", "BarChart" },
        { "ncu-2024.1.1/RuleTemplates/RuleTemplate_table.chart", "Table" },
};

/* What ncu 2024.1.1 says about the 2025.3.1 files (expected/ncu-2025.3.1.list-sections-by-ncu-2024.1.1.txt). */
static const struct {
        const char *file;
        unsigned line, column;
        const char *message;
} strict_errors[] = {
        { "C2CLink.section", 13, 4, "Unknown enumeration value of \"CC_100\" for field \"MinArch\"." },
        { "ComputeWorkloadAnalysis.section", 79, 16, "Unknown enumeration value of \"CC_100\" for field \"MinArch\"." },
        { "LaunchStatistics.section", 54, 6, "Unknown enumeration value of \"CC_100\" for field \"MinArch\"." },
        { "MemoryWorkloadAnalysis.section", 54, 6, "Unknown enumeration value of \"CC_100\" for field \"MaxArch\"." },
        { "MemoryWorkloadAnalysis_Chart.section", 34, 8,
                        "Unknown enumeration value of \"CC_110\" for field \"MinArch\"." },
        { "MemoryWorkloadAnalysis_Tables.section", 125, 6,
                        "Unknown enumeration value of \"CC_100\" for field \"MaxArch\"." },
        { "NumaAffinity.section", 17, 2, "Unknown enumeration value of \"CC_100\" for field \"MaxArch\"." },
        { "Nvlink.section", 20, 6, "Unknown enumeration value of \"CC_100\" for field \"MaxArch\"." },
        { "PmSampling.section", 13, 6,
                        "Message type \"NV.Profiler.Messages.MetricOptionFilter\" has no field named \"VGpu\"." },
        { "PmSampling_WarpStates.section", 11, 6,
                        "Message type \"NV.Profiler.Messages.MetricOptionFilter\" has no field named \"VGpu\"." },
        { "SpeedOfLight.section", 61, 6, "Unknown enumeration value of \"CC_100\" for field \"MaxArch\"." },
        { "SpeedOfLight_HierarchicalDoubleRooflineChart.section", 151, 16,
                        "Unknown enumeration value of \"CC_100\" for field \"MaxArch\"." },
        { "SpeedOfLight_HierarchicalHalfRooflineChart.section", 195, 16,
                        "Unknown enumeration value of \"CC_100\" for field \"MaxArch\"." },
        { "SpeedOfLight_HierarchicalSingleRooflineChart.section", 151, 16,
                        "Unknown enumeration value of \"CC_100\" for field \"MaxArch\"." },
        { "SpeedOfLight_HierarchicalTensorRooflineChart.section", 165, 28,
                        "Message type \"NV.Profiler.ProfilerSectionRooflineOptions\" has no field named \"ShowOnlyIfNotZero\"." },
        { "SpeedOfLight_RooflineChart.section", 96, 16,
                        "Unknown enumeration value of \"CC_100\" for field \"MaxArch\"." },
        { "WorkloadDistribution.section", 47, 10, "Unknown enumeration value of \"CC_100\" for field \"MaxArch\"." },
};

/* Paths are relative to the corpus' sections/ folder. */
static char *sections_path(const char *rel)
{
        g_autofree char *sub = g_build_filename("sections", rel, NULL);
        return test_corpus_path(sub);
}

static char *read_corpus(const char *rel, size_t *len)
{
        g_autofree char *path = sections_path(rel);
        g_autofree char *text = NULL;
        gsize n = 0;
        g_autoptr(GError) error = NULL;

        g_assert_true(g_file_get_contents(path, &text, &n, &error));
        *len = n;
        return g_steal_pointer(&text);
}

static NV__Profiler__ProfilerSection *parse_corpus(const char *rel, NvSchema schema)
{
        size_t len;
        g_autofree char *text = read_corpus(rel, &len);
        TextFormatOptions o = { .schema = schema };
        TextFormatDiagnostics d = { 0 };
        NV__Profiler__ProfilerSection *s = NULL;

        int r = section_file_parse(text, len, &o, &s, &d);
        if (r < 0)
                g_printerr("%s: %s\n", rel, d.n > 0 ? d.items[0].message : "?");
        g_assert_cmpint(r, ==, 0);
        g_assert_cmpuint(d.n, ==, 0); /* no skipped fields either */
        textformat_diagnostics_clear(&d);
        return s;
}

static void check_fact(const char *folder, const SectionFact *f, NvSchema schema)
{
        g_autofree char *rel = g_build_filename(folder, f->file, NULL);
        NV__Profiler__ProfilerSection *s = parse_corpus(rel, schema);
        g_autoptr(GString) sets = g_string_new(NULL);

        g_assert_cmpstr(s->identifier, ==, f->identifier);
        g_assert_cmpstr(s->displayname, ==, f->display_name);
        g_assert_true(s->has_order);
        g_assert_cmpuint(s->order, ==, f->order);
        g_assert_cmpuint(s->n_body, ==, f->n_body);
        for (size_t i = 0; i < s->n_sets; i++)
                g_string_append_printf(sets, "%s%s", i ? "," : "", s->sets[i]->identifier);
        g_assert_cmpstr(sets->str, ==, f->sets);
        g_assert_cmpstr(s->extends, ==, f->extends);
        protobuf_c_message_free_unpacked(&s->base, NULL);
}

static void test_files_2024_strict(void)
{
        for (size_t i = 0; i < G_N_ELEMENTS(facts_2024); i++)
                check_fact("ncu-2024.1.1", &facts_2024[i], NV_SCHEMA_2024_1_1);
}

static void test_files_2024_extended(void)
{
        for (size_t i = 0; i < G_N_ELEMENTS(facts_2024); i++)
                check_fact("ncu-2024.1.1", &facts_2024[i], NV_SCHEMA_EXTENDED);
}

static void test_files_2025_extended(void)
{
        for (size_t i = 0; i < G_N_ELEMENTS(facts_2025); i++)
                check_fact("ncu-2025.3.1", &facts_2025[i], NV_SCHEMA_EXTENDED);
}

/* Every file in the folders is one the tables above name: a new or renamed file fails. */
static void test_every_file_listed(void)
{
        const char *folders[] = { "ncu-2024.1.1", "ncu-2024.1.1/RuleTemplates", "ncu-2025.3.1" };
        size_t seen = 0;

        for (size_t k = 0; k < G_N_ELEMENTS(folders); k++) {
                g_autofree char *dir = sections_path(folders[k]);
                g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
                const char *name;
                g_assert_nonnull(d);
                while ((name = g_dir_read_name(d))) {
                        g_autofree char *rel = k == 1 ? g_build_filename("RuleTemplates", name, NULL) : g_strdup(name);
                        g_autofree char *full = g_build_filename(folders[k], name, NULL);
                        bool found = false;
                        if (g_str_has_suffix(name, ".chart")) {
                                for (size_t i = 0; i < G_N_ELEMENTS(charts); i++)
                                        found = found || g_str_equal(charts[i].file, full);
                        } else if (g_str_has_suffix(name, ".section")) {
                                const SectionFact *t = k == 2 ? facts_2025 : facts_2024;
                                size_t n = k == 2 ? G_N_ELEMENTS(facts_2025) : G_N_ELEMENTS(facts_2024);
                                for (size_t i = 0; i < n; i++)
                                        found = found || g_str_equal(t[i].file, rel);
                        } else
                                continue;
                        if (!found)
                                g_printerr("unlisted corpus file %s\n", full);
                        g_assert_true(found);
                        seen++;
                }
        }
        g_assert_cmpuint(seen, ==, G_N_ELEMENTS(facts_2024) + G_N_ELEMENTS(facts_2025) + G_N_ELEMENTS(charts));
        g_assert_cmpuint(seen, ==, 36 + 5);
}

static void test_charts(void)
{
        for (size_t i = 0; i < G_N_ELEMENTS(charts); i++) {
                size_t len;
                g_autofree char *text = read_corpus(charts[i].file, &len);
                TextFormatOptions o = { .schema = g_str_has_prefix(charts[i].file, "ncu-2024") ? NV_SCHEMA_2024_1_1
                                                                                               : NV_SCHEMA_EXTENDED };
                TextFormatDiagnostics d = { 0 };
                NV__Profiler__ProfilerSectionBodyItem *item = NULL;
                g_assert_cmpint(section_chart_parse(text, len, &o, &item, &d), ==, 0);
                g_assert_cmpuint(d.n, ==, 0);
                g_assert_cmpstr(section_body_item_kind(item), ==, charts[i].kind);
                protobuf_c_message_free_unpacked(&item->base, NULL);
        }

        size_t len;
        g_autofree char *bar = read_corpus("ncu-2024.1.1/RuleTemplates/RuleTemplate_bar.chart", &len);
        NV__Profiler__ProfilerSectionBodyItem *item = NULL;
        g_assert_cmpint(section_chart_parse(bar, len, NULL, &item, NULL), ==, 0);
        g_assert_cmpstr(item->barchart->label, ==, "Template Rule Bar Chart");
        g_assert_cmpstr(item->barchart->categoryaxis->label, ==, "Opcodes");
        g_assert_cmpuint(item->barchart->n_metrics, ==, 1);
        g_assert_cmpstr(item->barchart->metrics[0]->name, ==, "sass__inst_executed_per_opcode");
        g_assert_cmpstr(item->barchart->metrics[0]->label, ==, "");
        /* "ShowInstances: 1": a boolean written as an integer. */
        g_assert_true(item->barchart->metrics[0]->has_showinstances);
        g_assert_true(item->barchart->metrics[0]->showinstances);
        protobuf_c_message_free_unpacked(&item->base, NULL);

        g_autofree char *table = read_corpus("ncu-2024.1.1/RuleTemplates/RuleTemplate_table.chart", &len);
        g_assert_cmpint(section_chart_parse(table, len, NULL, &item, NULL), ==, 0);
        g_assert_cmpuint(item->table->columns, ==, 1);
        g_assert_cmpint(item->table->order, ==, NV__PROFILER__PROFILER_SECTION_TABLE__LAYOUT_ORDER__ColumnMajor);
        g_assert_cmpstr(item->table->metrics[1]->name, ==, "launch__block_size");
        protobuf_c_message_free_unpacked(&item->base, NULL);
}

static const NV__Profiler__ProfilerSectionMetric *find_timeline_metric(
                const NV__Profiler__ProfilerSection *s, double multiplier, size_t *count)
{
        const NV__Profiler__ProfilerSectionMetric *first = NULL;
        *count = 0;
        for (size_t b = 0; b < s->n_body; b++)
                for (size_t i = 0; i < s->body[b]->n_items; i++) {
                        const NV__Profiler__ProfilerSectionTimeline *t = s->body[b]->items[i]->timeline;
                        for (size_t g = 0; t && g < t->n_metricgroups; g++)
                                for (size_t r = 0; r < t->metricgroups[g]->n_metricrows; r++)
                                        for (size_t m = 0; m < t->metricgroups[g]->metricrows[r]->n_metrics; m++) {
                                                const NV__Profiler__ProfilerSectionMetric *x =
                                                                t->metricgroups[g]->metricrows[r]->metrics[m];
                                                if (x->has_multiplier && x->multiplier == multiplier) {
                                                        (*count)++;
                                                        first = first ? first : x;
                                                }
                                        }
                }
        return first;
}

static void test_content_2025(void)
{
        /* PmSampling: Multiplier 0.5 five times (the 2025.1.1 report's field 13), VGpu, a hex uint64
         * above INT64_MAX in SchedulingHints, MinKmd/MaxKmd, UserMetricExpr. */
        NV__Profiler__ProfilerSection *s = parse_corpus("ncu-2025.3.1/PmSampling.section", NV_SCHEMA_EXTENDED);
        size_t n;
        g_assert_nonnull(find_timeline_metric(s, 0.5, &n));
        g_assert_cmpuint(n, ==, 5);
        g_assert_nonnull(s->filter);
        g_assert_true(s->filter->has_vgpu);
        g_assert_cmpint(s->filter->vgpu, ==, 2);
        bool hex = false, kmd = false, user_expr = false;
        for (size_t i = 0; i < s->n_group; i++) {
                const NV__Profiler__ProfilerSectionMetricGroup *g = s->group[i];
                for (size_t k = 0; g->schedulinghints && k < g->schedulinghints->n_ctrdomains; k++)
                        for (size_t c = 0; c < g->schedulinghints->ctrdomains[k]->n_ctrs; c++)
                                hex = hex || g->schedulinghints->ctrdomains[k]->ctrs[c] == UINT64_C(0xc83feae1569676cb);
        }
        g_assert_true(hex);
        size_t len;
        g_autofree char *text = read_corpus("ncu-2025.3.1/PmSampling.section", &len);
        g_assert_nonnull(g_strstr_len(text, (gssize) len, "MinKmd"));
        protobuf_c_message_free_unpacked(&s->base, NULL);
        /* MinKmd/MaxKmd and UserMetricExpr land in their fields somewhere: search the packed form. */
        s = parse_corpus("ncu-2025.3.1/PmSampling.section", NV_SCHEMA_EXTENDED);
        size_t packed = protobuf_c_message_get_packed_size(&s->base);
        g_autofree uint8_t *buf = g_malloc(packed);
        protobuf_c_message_pack(&s->base, buf);
        /* Tag of field 1001, varint (MinKmd): (1001 << 3) | 0 = 0x1f48 -> c8 3e. */
        for (size_t i = 0; i + 1 < packed; i++) {
                kmd = kmd || (buf[i] == 0xc8 && buf[i + 1] == 0x3e);
                /* Field 1001 length-delimited (UserMetricExpr): 0x1f4a -> ca 3e. */
                user_expr = user_expr || (buf[i] == 0xca && buf[i + 1] == 0x3e);
        }
        g_assert_true(kmd);
        g_assert_true(user_expr);
        protobuf_c_message_free_unpacked(&s->base, NULL);

        /* MemoryWorkloadAnalysis_Tables: enum values by number, MinArch: 80 / MaxArch: 86. */
        s = parse_corpus("ncu-2025.3.1/MemoryWorkloadAnalysis_Tables.section", NV_SCHEMA_EXTENDED);
        bool numeric = false;
        for (size_t b = 0; b < s->n_body; b++)
                for (size_t i = 0; i < s->body[b]->n_items; i++) {
                        const NV__Profiler__Messages__MetricOptionFilter *f = s->body[b]->items[i]->filter;
                        if (!f || f->n_items != 2 || !s->body[b]->items[i]->memoryl2cacheevictpolicytable)
                                continue;
                        numeric = f->items[0]->minarch == 80 && f->items[0]->maxarch == 86 &&
                                        f->items[1]->minarch == 89 && !f->items[1]->has_maxarch;
                        /* The item shows on 8.0-8.6 and from 8.9 (to the MaxArch alias), not on 8.7. */
                        g_assert_true(metric_filter_matches_arch(f, 86));
                        g_assert_false(metric_filter_matches_arch(f, 87));
                        g_assert_true(metric_filter_matches_arch(f, 90));
                }
        g_assert_true(numeric);
        protobuf_c_message_free_unpacked(&s->base, NULL);

        /* The Tensor roofline (1.46 MB): "Filter: {" and "SuffixTable: {", ShowOnlyIfNotZero. */
        s = parse_corpus("ncu-2025.3.1/SpeedOfLight_HierarchicalTensorRooflineChart.section", NV_SCHEMA_EXTENDED);
        g_assert_cmpuint(s->n_body, ==, 1);
        const NV__Profiler__ProfilerSectionRooflineChart *roof = NULL;
        bool suffix = false;
        for (size_t i = 0; i < s->body[0]->n_items; i++) {
                roof = roof ? roof : s->body[0]->items[i]->rooflinechart;
                suffix = suffix || s->body[0]->items[i]->suffixtable;
        }
        g_assert_nonnull(roof);
        g_assert_true(suffix);
        bool show_only = false, filtered = false;
        for (size_t i = 0; i < roof->n_rooflines; i++) {
                const NV__Profiler__ProfilerSectionRooflineOptions *o = roof->rooflines[i]->options;
                show_only = show_only ||
                                (o && o->showonlyifnotzero && o->showonlyifnotzero->metric &&
                                                o->showonlyifnotzero->metric->name);
        }
        /* Line 125: "Filter: {" on the first item, a TU10x-only roofline. */
        g_assert_cmpuint(s->body[0]->n_items, ==, 22);
        const NV__Profiler__ProfilerSectionBodyItem *first = s->body[0]->items[0];
        filtered = first->rooflinechart && first->filter && first->filter->minarch == 75 &&
                        first->filter->maxarch == 75;
        g_assert_true(show_only);
        g_assert_true(filtered);
        protobuf_c_message_free_unpacked(&s->base, NULL);

        /* LaunchStatistics: identifier is not the file name; CollectionScopes repeated lines. */
        s = parse_corpus("ncu-2025.3.1/LaunchStatistics.section", NV_SCHEMA_EXTENDED);
        g_assert_cmpstr(s->identifier, ==, "LaunchStats");
        protobuf_c_message_free_unpacked(&s->base, NULL);
}

static void test_strict_2025_errors(void)
{
        for (size_t i = 0; i < G_N_ELEMENTS(strict_errors); i++) {
                g_autofree char *rel = g_build_filename("ncu-2025.3.1", strict_errors[i].file, NULL);
                size_t len;
                g_autofree char *text = read_corpus(rel, &len);
                TextFormatOptions o = { .schema = NV_SCHEMA_2024_1_1 };
                TextFormatDiagnostics d = { 0 };
                NV__Profiler__ProfilerSection *s = NULL;
                g_assert_cmpint(section_file_parse(text, len, &o, &s, &d), ==, -EBADMSG);
                const TextFormatDiagnostic *e = textformat_diagnostics_error(&d);
                g_assert_nonnull(e);
                g_assert_cmpuint(e->ncu_line, ==, strict_errors[i].line);
                g_assert_cmpuint(e->ncu_column, ==, strict_errors[i].column);
                g_assert_cmpstr(e->message, ==, strict_errors[i].message);
                textformat_diagnostics_clear(&d);

                /* Lenient: the same item skipped and reported, the file read. */
                o.lenient = true;
                g_assert_cmpint(section_file_parse(text, len, &o, &s, &d), ==, 0);
                g_assert_cmpuint(d.n, >=, 1);
                g_assert_true(d.items[0].skipped);
                g_assert_cmpuint(d.items[0].ncu_line, ==, strict_errors[i].line);
                textformat_diagnostics_clear(&d);
                protobuf_c_message_free_unpacked(&s->base, NULL);
        }
}

static char *listing(const char *folder, bool recursive, NvSchema schema, bool sets)
{
        const char *dir = test_corpus_dir_or_skip();
        g_autofree char *cwd = g_get_current_dir();
        SectionFolder f = { folder, recursive };
        TextFormatOptions o = { .schema = schema };
        SectionCatalog *c = NULL;
        char *out = NULL;
        size_t size = 0;

        /* ncu ran from the corpus' sections folder with relative folder names. */
        g_autofree char *sections = g_build_filename(dir, "sections", NULL);
        g_assert_cmpint(chdir(sections), ==, 0);
        g_assert_cmpint(section_catalog_load(&f, 1, &o, &c), ==, 0);
        g_assert_cmpint(chdir(cwd), ==, 0);
        FILE *m = open_memstream(&out, &size);
        if (sets)
                g_assert_cmpint(section_listing_sets(c, NULL, NULL, m), ==, 0);
        else
                g_assert_cmpint(section_listing_sections(c, m), ==, 0);
        fclose(m);
        section_catalog_free(c);
        return out;
}

static void test_listing_sections_2024(void)
{
        size_t len;
        g_autofree char *expected = read_corpus("expected/ncu-2024.1.1.list-sections.txt", &len);
        g_autofree char *ours = listing("ncu-2024.1.1", true, NV_SCHEMA_2024_1_1, false);
        g_assert_cmpstr(ours, ==, expected);
}

/* The sets table up to the last column: ncu's "Estimated Metrics" is its count of the device's raw
 * metrics, which needs NVIDIA's metric tables; we print our own count there. */
static void test_listing_sets_2024(void)
{
        size_t len;
        g_autofree char *expected = read_corpus("expected/ncu-2024.1.1.list-sets.txt", &len);
        g_autofree char *ours = listing("ncu-2024.1.1", true, NV_SCHEMA_2024_1_1, true);
        g_auto(GStrv) e = g_strsplit(expected, "\n", -1);
        g_auto(GStrv) o = g_strsplit(ours, "\n", -1);
        g_assert_cmpuint(g_strv_length(e), ==, g_strv_length(o));
        for (size_t i = 0; e[i]; i++) {
                size_t cut = MIN(strlen(e[i]), (size_t) 95);
                g_assert_cmpuint(strlen(e[i]), ==, strlen(o[i]));
                g_assert_cmpmem(e[i], cut, o[i], cut);
        }
        g_assert_true(g_str_has_prefix(o[3], "basic      LaunchStats, Occupancy, SpeedOfLight"));
}

static void test_listing_sections_2025_strict(void)
{
        size_t len;
        g_autofree char *expected = read_corpus("expected/ncu-2025.3.1.list-sections-by-ncu-2024.1.1.txt", &len);
        g_autofree char *ours = listing("ncu-2025.3.1", false, NV_SCHEMA_2024_1_1, false);
        g_assert_cmpstr(ours, ==, expected);
}

static void test_catalog_2025_extended(void)
{
        const char *dir = test_corpus_dir_or_skip();
        g_autofree char *folder = g_build_filename(dir, "sections", "ncu-2025.3.1", NULL);
        SectionFolder f = { folder, false };
        SectionCatalog *c = NULL;
        const SectionEntry **sorted = NULL, **broken = NULL;
        size_t n, n_broken;

        g_assert_cmpint(section_catalog_load(&f, 1, NULL, &c), ==, 0);
        g_assert_cmpint(section_catalog_sorted(c, &sorted, &n), ==, 0);
        g_assert_cmpint(section_catalog_errors(c, &broken, &n_broken), ==, 0);
        g_assert_cmpuint(n, ==, 24);
        g_assert_cmpuint(n_broken, ==, 0);
        /* Extends all resolve with every file loaded. */
        for (size_t i = 0; i < c->n; i++)
                g_assert_null(c->entries[i].warning);
        g_assert_cmpuint(c->n_dirs, ==, 1);
        g_free(sorted);
        g_free(broken);
        section_catalog_free(c);
}

/* Two folders defining the same identifiers: the first wins, every later one is reported. */
static void test_catalog_duplicates(void)
{
        const char *dir = test_corpus_dir_or_skip();
        g_autofree char *a = g_build_filename(dir, "sections", "ncu-2024.1.1", NULL);
        g_autofree char *b = g_build_filename(dir, "sections", "ncu-2025.3.1", NULL);
        SectionFolder f[] = { { a, false }, { b, false } };
        SectionCatalog *c = NULL;

        g_assert_cmpint(section_catalog_load(f, 2, NULL, &c), ==, 0);
        const SectionEntry *e = section_catalog_find(c, "LaunchStats");
        g_assert_nonnull(e);
        g_assert_true(g_str_has_prefix(e->display, a));
        size_t dups = 0;
        for (size_t i = 0; i < c->n; i++)
                if (c->entries[i].error && strstr(c->entries[i].error, "is already defined in"))
                        dups++;
        /* The 10 identifiers of the 2024.1.1 folder all come again in 2025.3.1. */
        g_assert_cmpuint(dups, ==, 10);
        section_catalog_free(c);
}

static void test_metrics_speed_of_light(void)
{
        /* 2024.1.1 "DRAM Throughput": base Filter{MaxArch CC_70}, options [75-86], [89-]. */
        NV__Profiler__ProfilerSection *s = parse_corpus("ncu-2024.1.1/SpeedOfLight.section", NV_SCHEMA_2024_1_1);
        const struct {
                unsigned arch;
                bool dram;
        } cases[] = { { 60, true }, { 70, true }, { 72, false }, { 75, true }, { 80, true }, { 86, true },
                { 87, false }, { 89, true }, { 90, true } };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                SectionMetricList l = { 0 };
                g_assert_cmpint(section_collect_metrics(s, cases[i].arch, COLLECTION_SCOPE_LAUNCH, &l), ==, 0);
                bool found = false;
                for (size_t k = 0; k < l.n; k++)
                        if (streq(l.items[k].name, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")) {
                                found = true;
                                g_assert_cmpstr(l.items[k].label, ==, "DRAM Throughput");
                                g_assert_cmpint(l.items[k].option, ==,
                                                cases[i].arch >= 89                   ? 1
                                                                : cases[i].arch >= 75 ? 0
                                                                                      : -1);
                        }
                g_assert_cmpint(found, ==, cases[i].dram);
                g_assert_cmpstr(l.items[0].name, ==, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
                g_assert_cmpstr(l.items[0].label, ==, "Compute (SM) Throughput");
                g_assert_cmpstr(l.items[0].where, ==, "Header");
                section_metric_list_clear(&l);
        }
        protobuf_c_message_free_unpacked(&s->base, NULL);

        /* 2025.3.1 "DRAM Throughput" uses Items [75-86], [89-100], [103-103], [120-120]. */
        s = parse_corpus("ncu-2025.3.1/SpeedOfLight.section", NV_SCHEMA_EXTENDED);
        const struct {
                unsigned arch;
                bool dram;
        } items[] = { { 75, true }, { 86, true }, { 89, true }, { 90, true }, { 100, true }, { 103, true },
                { 120, true }, { 70, false }, { 87, false }, { 110, false }, { 121, false } };
        for (size_t i = 0; i < G_N_ELEMENTS(items); i++) {
                SectionMetricList l = { 0 };
                g_assert_cmpint(section_collect_metrics(s, items[i].arch, COLLECTION_SCOPE_LAUNCH, &l), ==, 0);
                bool found = false;
                for (size_t k = 0; k < l.n; k++)
                        found = found ||
                                        streq(l.items[k].name,
                                                        "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed");
                g_assert_cmpint(found, ==, items[i].dram);
                section_metric_list_clear(&l);
        }
        protobuf_c_message_free_unpacked(&s->base, NULL);
}

static void test_metrics_derived_and_patterns(void)
{
        /* "simplify(a) + simplify(b)": the operands inside the calls are collected. */
        NV__Profiler__ProfilerSection *s =
                        parse_corpus("ncu-2025.3.1/MemoryWorkloadAnalysis.section", NV_SCHEMA_EXTENDED);
        g_assert_nonnull(s->metricdefinitions);
        g_assert_cmpstr(s->metricdefinitions->metricdefinitions[0]->name, ==,
                        "sass__inst_executed_register_spilling_mem_local");
        SectionMetricList l = { 0 };
        g_assert_cmpint(section_collect_metrics(s, 86, COLLECTION_SCOPE_LAUNCH, &l), ==, 0);
        bool read_op = false;
        for (size_t k = 0; k < l.n; k++)
                if (l.items[k].derived_for &&
                                streq(l.items[k].name, "sass__inst_executed_register_spilling_mem_local_op_read")) {
                        read_op = true;
                        g_assert_cmpstr(l.items[k].derived_for, ==, "sass__inst_executed_register_spilling_mem_local");
                        g_assert_cmpstr(l.items[k].where, ==, "MetricDefinitions");
                }
        g_assert_true(read_op);
        section_metric_list_clear(&l);
        protobuf_c_message_free_unpacked(&s->base, NULL);

        s = parse_corpus("ncu-2024.1.1/SpeedOfLight.section", NV_SCHEMA_2024_1_1);
        g_assert_cmpint(section_collect_metrics(s, 86, COLLECTION_SCOPE_LAUNCH, &l), ==, 0);
        const SectionMetric *breakdown = NULL;
        for (size_t k = 0; k < l.n; k++)
                if (l.items[k].pattern == SECTION_METRIC_BREAKDOWN)
                        breakdown = breakdown ? breakdown : &l.items[k];
        g_assert_nonnull(breakdown);
        g_assert_true(g_str_has_prefix(breakdown->name, "breakdown:"));
        g_assert_cmpint(section_metric_pattern_match(breakdown, breakdown->name + strlen("breakdown:")), ==, 1);
        g_assert_cmpint(section_metric_pattern_match(breakdown, "dram__bytes.sum"), ==, 0);
        section_metric_list_clear(&l);
        protobuf_c_message_free_unpacked(&s->base, NULL);
}

/* Every MetricDefinitions expression in the stock files parses (55 in 2025.3.1, per the doc). */
static void test_all_definitions_parse(void)
{
        size_t total_2025 = 0;
        for (int v = 0; v < 2; v++) {
                const SectionFact *t = v ? facts_2025 : facts_2024;
                size_t n = v ? G_N_ELEMENTS(facts_2025) : G_N_ELEMENTS(facts_2024);
                for (size_t i = 0; i < n; i++) {
                        g_autofree char *rel = g_build_filename(v ? "ncu-2025.3.1" : "ncu-2024.1.1", t[i].file, NULL);
                        NV__Profiler__ProfilerSection *s = parse_corpus(rel, NV_SCHEMA_EXTENDED);
                        for (size_t k = 0; s->metricdefinitions && k < s->metricdefinitions->n_metricdefinitions; k++) {
                                MetricExpr *e = NULL;
                                g_autofree char *error = NULL;
                                int r = metric_expr_parse(
                                                s->metricdefinitions->metricdefinitions[k]->expression, &e, &error);
                                if (r < 0)
                                        g_printerr("%s: %s: %s\n", rel,
                                                        s->metricdefinitions->metricdefinitions[k]->expression, error);
                                g_assert_cmpint(r, ==, 0);
                                metric_expr_free(e);
                                total_2025 += (size_t) v;
                        }
                        protobuf_c_message_free_unpacked(&s->base, NULL);
                }
        }
        g_assert_cmpuint(total_2025, ==, 55);
}

/* ---- round trip ---- */

static const char *proto_dir(void)
{
        return NVPROTO_DIR;
}

static bool run_sh(const char *cmd)
{
        int status = 0;
        g_autoptr(GError) error = NULL;
        const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
        g_autofree char *err = NULL;
        g_assert_true(g_spawn_sync(
                        NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, &err, &status, &error));
        if (!g_spawn_check_wait_status(status, NULL))
                g_printerr("%s: %s\n", cmd, err);
        return g_spawn_check_wait_status(status, NULL);
}

static void round_trip_one(const char *rel, const char *protoc, const char *tmp)
{
        NV__Profiler__ProfilerSection *s = parse_corpus(rel, NV_SCHEMA_EXTENDED);
        size_t len = protobuf_c_message_get_packed_size(&s->base);
        g_autofree uint8_t *buf = g_malloc(len + 1);
        g_assert_cmpuint(protobuf_c_message_pack(&s->base, buf), ==, len);

        /* protobuf-c decodes its own encoding to an equal message: equal re-encoding. */
        NV__Profiler__ProfilerSection *d = nv__profiler__profiler_section__unpack(NULL, len, buf);
        g_assert_nonnull(d);
        size_t len2 = protobuf_c_message_get_packed_size(&d->base);
        g_autofree uint8_t *buf2 = g_malloc(len2 + 1);
        protobuf_c_message_pack(&d->base, buf2);
        g_assert_cmpmem(buf, len, buf2, len2);
        g_assert_cmpstr(d->identifier, ==, s->identifier);
        nv__profiler__profiler_section__free_unpacked(d, NULL);
        protobuf_c_message_free_unpacked(&s->base, NULL);

        if (!protoc)
                return;
        g_autofree char *ours = g_build_filename(tmp, "ours.bin", NULL);
        g_assert_true(g_file_set_contents(ours, (const char *) buf, (gssize) len, NULL));
        g_autofree char *src = sections_path(rel);
        g_autofree char *args = g_strdup_printf("-I'%s' -I/usr/include ProfilerSection.proto", proto_dir());
        g_autofree char *cmd = g_strdup_printf(
                        "cd '%s' && '%s' --encode=NV.Profiler.ProfilerSection %s < '%s' > '%s/theirs.bin' && "
                        "'%s' --decode=NV.Profiler.ProfilerSection %s < '%s/theirs.bin' > '%s/theirs.txt' && "
                        "'%s' --decode=NV.Profiler.ProfilerSection %s < '%s' > '%s/ours.txt'",
                        proto_dir(), protoc, args, src, tmp, protoc, args, tmp, tmp, protoc, args, ours, tmp);
        g_assert_true(run_sh(cmd));
        g_autofree char *a = NULL, *b = NULL, *theirs_bin = NULL;
        gsize la, lb, lt;
        g_autofree char *pa = g_build_filename(tmp, "ours.txt", NULL);
        g_autofree char *pb = g_build_filename(tmp, "theirs.txt", NULL);
        g_autofree char *pt = g_build_filename(tmp, "theirs.bin", NULL);
        g_assert_true(g_file_get_contents(pa, &a, &la, NULL));
        g_assert_true(g_file_get_contents(pb, &b, &lb, NULL));
        g_assert_true(g_file_get_contents(pt, &theirs_bin, &lt, NULL));
        g_assert_cmpuint(la, >, 0);
        g_assert_cmpstr(a, ==, b);
        /* Both write fields in number order: the encodings are the same bytes. */
        g_assert_cmpmem(buf, len, theirs_bin, lt);
}

static void test_round_trip(void)
{
        const char *protoc = g_getenv("NVPROFILED_PROTOC");
        g_autofree char *tmp = test_mkdtemp();

        if (!protoc || !*protoc) {
                g_test_skip("protoc not found (Debian: protobuf-compiler)");
                return;
        }
        for (size_t i = 0; i < G_N_ELEMENTS(facts_2024); i++) {
                g_autofree char *rel = g_build_filename("ncu-2024.1.1", facts_2024[i].file, NULL);
                round_trip_one(rel, protoc, tmp);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(facts_2025); i++) {
                g_autofree char *rel = g_build_filename("ncu-2025.3.1", facts_2025[i].file, NULL);
                round_trip_one(rel, protoc, tmp);
        }
}

int main(int argc, char **argv)
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();
        g_test_add_func("/sections-corpus/files-2024.1.1-strict", test_files_2024_strict);
        g_test_add_func("/sections-corpus/files-2024.1.1-extended", test_files_2024_extended);
        g_test_add_func("/sections-corpus/files-2025.3.1-extended", test_files_2025_extended);
        g_test_add_func("/sections-corpus/every-file-listed", test_every_file_listed);
        g_test_add_func("/sections-corpus/charts", test_charts);
        g_test_add_func("/sections-corpus/content-2025.3.1", test_content_2025);
        g_test_add_func("/sections-corpus/strict-2025.3.1-errors", test_strict_2025_errors);
        g_test_add_func("/sections-corpus/listing-sections-2024.1.1", test_listing_sections_2024);
        g_test_add_func("/sections-corpus/listing-sets-2024.1.1", test_listing_sets_2024);
        g_test_add_func("/sections-corpus/listing-sections-2025.3.1-strict", test_listing_sections_2025_strict);
        g_test_add_func("/sections-corpus/catalog-2025.3.1-extended", test_catalog_2025_extended);
        g_test_add_func("/sections-corpus/catalog-duplicates", test_catalog_duplicates);
        g_test_add_func("/sections-corpus/metrics-speed-of-light", test_metrics_speed_of_light);
        g_test_add_func("/sections-corpus/metrics-derived-and-patterns", test_metrics_derived_and_patterns);
        g_test_add_func("/sections-corpus/all-definitions-parse", test_all_definitions_parse);
        g_test_add_func("/sections-corpus/round-trip", test_round_trip);
        return g_test_run();
}
