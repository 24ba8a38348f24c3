/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The report reader's model against ../shared/docs/ncu-format.md §7.2-7.4, case by case: the corpus reports
 * by name with their values written out from the doc and SOURCES.md (NVIDIA's walkthrough PDFs quote some):
 * results, metric values and instances, sections, rule results, sources, NVTX. The container is
 * test-report-container.c's. */

#include <math.h>
#include <string.h>

#include "ProfilerSection.pb-c.h"
#include "report-test-util.h"
#include "report.h"
#include "strv.h"
#include "test-util.h"

static NcuReport *load(const char *name)
{
        return report_corpus_load(name);
}

/* §7.2 case 9. */
static void test_armleth_result(void)
{
        _cleanup_(ncu_report_freep) NcuReport *r = load(REPORT_ARMLETH);
        const NcuAction *a = ncu_report_action(r, 0, 0);

        g_assert_nonnull(a);
        g_assert_null(ncu_report_action(r, 0, 1));
        g_assert_null(ncu_report_action(r, 1, 0));
        g_assert_cmpint(a->workload_type, ==, NCU_WORKLOAD_KERNEL);
        g_assert_cmpstr(a->function_name, ==, "matrix_addition2D");
        g_assert_cmpstr(a->demangled_name, ==, "matrix_addition2D(float *, float *, float *, int, int)");
        g_assert_cmpstr(a->mangled_name, ==, "_Z17matrix_addition2DPfS_S_ii");
        g_assert_cmpuint(a->grid_size.x, ==, 63);
        g_assert_cmpuint(a->grid_size.y, ==, 63);
        g_assert_cmpuint(a->grid_size.z, ==, 1);
        g_assert_cmpuint(a->block_size.x, ==, 16);
        g_assert_cmpuint(a->block_size.y, ==, 16);
        g_assert_cmpuint(a->block_size.z, ==, 1);
        g_assert_true(a->has_context_id && a->has_stream_id);
        g_assert_cmpuint(a->context_id, ==, 1);
        g_assert_cmpuint(a->stream_id, ==, 7);
        g_assert_true(a->has_clock_status && a->clock_requested_lock && a->clock_executed_locked);
        g_assert_cmpuint(a->n_metrics, ==, 1135);
        g_assert_cmpuint(a->n_sections, ==, 17);
        g_assert_cmpuint(a->n_rule_results, ==, 21);
        g_assert_cmpstr(a->device_name, ==, "Tesla T4");
        g_assert_cmpint(a->device_index, ==, 0);
        g_assert_nonnull(ncu_action_device(r, a));
        g_assert_cmpstr(a->process.hostname, ==, "127.0.0.1");
}

/* §7.2 case 10, in every result of the corpus that records its launch as metrics: 90 of the 104. The 14
 * others: ncu 2019.x and 2020.1 stored no launch__grid_dim_* yet (11 results), and three launches that
 * failed were stored with what ncu had collected before (2388612861 #44, HadiKhansaa #1, wtzhang23 #2).
 * Until ncu 2020.3, field 10 was GlobalWorkSize (§2.10): the grid times the block, which ncu's pages
 * print as the "Grid Size" still; the model keeps what the file says. */
static void test_launch_consistency(void)
{
        size_t n_checked = 0, n_results = 0, n_global_work = 0;

        for (size_t i = 0; i < REPORT_CORPUS_N; i++) {
                _cleanup_(ncu_report_freep) NcuReport *r = load(report_corpus_names[i]);
                bool global_work = streq(report_corpus_names[i], "iamcoleman_monte-carlo-pi_profile_ncu2020.2.1");

                n_results += r->n_actions;
                for (size_t j = 0; j < r->n_actions; j++) {
                        const NcuAction *a = r->actions[j];
                        NcuUint3 grid = a->grid_size;

                        if (!ncu_action_metric_by_name(a, "launch__grid_dim_x"))
                                continue;
                        n_checked++;
                        if (global_work) {
                                g_assert_cmpuint(grid.x % a->block_size.x, ==, 0);
                                grid.x /= a->block_size.x;
                                n_global_work++;
                        }
                        g_assert_cmpuint(grid.x, ==, report_metric_u64(a, "launch__grid_dim_x"));
                        g_assert_cmpuint(grid.y, ==, report_metric_u64(a, "launch__grid_dim_y"));
                        g_assert_cmpuint(grid.z, ==, report_metric_u64(a, "launch__grid_dim_z"));
                        g_assert_cmpuint(a->block_size.x, ==, report_metric_u64(a, "launch__block_dim_x"));
                        g_assert_cmpuint(grid.x * grid.y * grid.z, ==, report_metric_u64(a, "launch__grid_size"));
                        g_assert_cmpuint(a->context_id, ==, report_metric_u64(a, "launch__context_id"));
                        g_assert_cmpuint(a->stream_id, ==, report_metric_u64(a, "launch__stream_id"));
                        g_assert_nonnull(a->source);
                        g_assert_cmpuint(a->source->reference, ==, a->source_reference);
                }
        }
        g_assert_cmpuint(n_results, ==, 104);
        g_assert_cmpuint(n_checked, ==, 90);
        g_assert_cmpuint(n_global_work, ==, 2);
        {
                _cleanup_(ncu_report_freep) NcuReport *a = load(REPORT_ARMLETH);
                _cleanup_(ncu_report_freep) NcuReport *s = load(REPORT_SYSWEA);
                g_assert_cmpint(report_metric(a->actions[0], "launch__grid_size")->kind, ==, NCU_VALUE_DOUBLE);
                g_assert_cmpfloat(report_metric_double(a->actions[0], "launch__grid_size"), ==, 3969.0);
                g_assert_cmpint(report_metric(s->actions[0], "launch__grid_size")->kind, ==, NCU_VALUE_UINT64);
                g_assert_cmpuint(report_metric(s->actions[0], "launch__grid_size")->value.u64, ==, 65536);
        }
}

/* §7.2 case 11. */
static void test_extrap_results(void)
{
        static const char *const names[] = { "init_array", "init_array", "vector_add", "vector_add1", "vector_mul",
                "vector_dot" };
        static const double durations[] = { 4064, 4224, 4288, 4512, 4288, 4512 };
        _cleanup_(ncu_report_freep) NcuReport *r = load(REPORT_EXTRAP);

        g_assert_cmpuint(r->n_ranges, ==, 1);
        g_assert_cmpuint(r->ranges[0].n_actions, ==, 6);
        for (size_t i = 0; i < 6; i++) {
                const NcuAction *a = ncu_report_action(r, 0, i);
                const NcuNvtxState *n = a->nvtx;

                g_assert_cmpstr(a->function_name, ==, names[i]);
                g_assert_cmpuint(a->grid_size.x * a->grid_size.y * a->grid_size.z, ==, 1);
                g_assert_cmpuint(a->block_size.x, ==, 10);
                g_assert_cmpuint(a->block_size.y * a->block_size.z, ==, 1);
                g_assert_cmpfloat(report_metric_double(a, "gpu__time_duration.sum"), ==, durations[i]);
                g_assert_cmpstr(a->device_name, ==, "A100-PCIE-40GB");
                g_assert_nonnull(n);
                g_assert_cmpuint(n->n_domains, ==, 1);
                g_assert_cmpuint(n->domains[0].id, ==, 0);
                g_assert_cmpstr(n->domains[0].name, ==, "<default domain>");
                g_assert_cmpuint(n->n_threads, ==, 1);
                g_assert_cmpuint(n->thread_ids[0], ==, 872075);
                g_assert_true(n->has_default_domain);
                g_assert_cmpuint(n->default_domain, ==, 0);
        }
}

/* §7.2 case 12. */
static void test_syswea_results(void)
{
        _cleanup_(ncu_report_freep) NcuReport *r = load(REPORT_SYSWEA);
        static const double durations[] = { 224256.0, 224192.0, 97797632.0 };
        static const uint64_t registers[] = { 16, 16, 56 };

        g_assert_cmpuint(r->n_actions, ==, 3);
        g_assert_cmpstr(r->actions[0]->function_name, ==, "init_matrix_half");
        g_assert_cmpstr(r->actions[1]->function_name, ==, "init_matrix_half");
        g_assert_cmpstr(r->actions[2]->function_name, ==, "wmma_gemm");
        g_assert_cmpuint(r->actions[0]->grid_size.x, ==, 65536);
        g_assert_cmpuint(r->actions[0]->block_size.x, ==, 256);
        g_assert_cmpuint(r->actions[2]->grid_size.x, ==, 256);
        g_assert_cmpuint(r->actions[2]->grid_size.y, ==, 256);
        g_assert_cmpuint(r->actions[2]->block_size.x, ==, 32);
        for (size_t i = 0; i < 3; i++) {
                const NcuMetric *m = report_metric(r->actions[i], "launch__registers_per_thread");
                g_assert_cmpfloat(report_metric_double(r->actions[i], "gpu__time_duration.sum"), ==, durations[i]);
                g_assert_cmpint(m->kind, ==, NCU_VALUE_UINT64);
                g_assert_cmpuint(m->value.u64, ==, registers[i]);
        }
}

/* §7.3 cases 13 and 14, with the values NVIDIA's walkthrough PDFs quote (SOURCES.md). */
static void test_value_kinds(void)
{
        _cleanup_(ncu_report_freep) NcuReport *sobel = load(REPORT_SOBEL);
        _cleanup_(ncu_report_freep) NcuReport *add3 = load(REPORT_ADD3);
        _cleanup_(ncu_report_freep) NcuReport *arm = load(REPORT_ARMLETH);
        const NcuAction *s = sobel->actions[0];
        const NcuMetric *m;
        char buf[NCU_DOUBLE_REPR_MAX];
        uint64_t u;
        double d;

        g_assert_cmpfloat(report_metric_double(s, "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"), ==,
                        57.65061216029215);
        g_assert_cmpstr(ncu_format_double_repr(
                                        report_metric_double(s,
                                                        "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"),
                                        buf),
                        ==, "57.65061216029215");
        g_assert_cmpfloat(report_metric_double(s, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"), ==,
                        33.24653838501258);
        g_assert_cmpfloat(report_metric_double(s, "gpu__time_duration.sum"), ==, 31872.0);
        g_assert_cmpfloat(report_metric_double(add3->actions[0], "gpu__time_duration.sum"), ==, 89856.0);
        g_assert_cmpstr(s->demangled_name, ==, "void Sobel<float>(uchar4 *, uchar4 *, int, int)");

        m = report_metric(arm->actions[0], "device__attribute_display_name");
        g_assert_cmpint(m->kind, ==, NCU_VALUE_STRING);
        g_assert_cmpstr(ncu_value_as_string(&m->value), ==, "Tesla T4");
        g_assert_false(ncu_value_as_double(&m->value, &d));
        g_assert_cmpfloat(d, ==, 0);
        g_assert_false(ncu_value_as_uint64(&m->value, &u));
        g_assert_cmpuint(u, ==, 0);

        m = report_metric(arm->actions[0], "launch__grid_size");
        g_assert_true(ncu_value_as_uint64(&m->value, &u));
        g_assert_cmpuint(u, ==, 3969);
        g_assert_null(ncu_value_as_string(&m->value));
        m = report_metric(arm->actions[0], "inst_executed");
        g_assert_cmpint(m->kind, ==, NCU_VALUE_UINT64);
        g_assert_true(ncu_value_as_double(&m->value, &d));
        g_assert_cmpfloat(d, ==, 632520.0);

        /* Python repr spellings the oracle uses. */
        g_assert_cmpstr(ncu_format_double_repr(1e16, buf), ==, "1e+16");
        g_assert_cmpstr(ncu_format_double_repr(1e15, buf), ==, "1000000000000000.0");
        g_assert_cmpstr(ncu_format_double_repr(0.0001, buf), ==, "0.0001");
        g_assert_cmpstr(ncu_format_double_repr(0.00001234, buf), ==, "1.234e-05");
        g_assert_cmpstr(ncu_format_double_repr(-2.5, buf), ==, "-2.5");
        g_assert_cmpstr(ncu_format_double_repr(0.1 + 0.2, buf), ==, "0.30000000000000004");
        g_assert_cmpstr(ncu_format_double_repr(INFINITY, buf), ==, "inf");
        g_assert_cmpstr(ncu_format_double_repr(1.7976931348623157e308, buf), ==, "1.7976931348623157e+308");
        g_assert_cmpstr(ncu_format_double_repr(5e-324, buf), ==, "5e-324");
}

/* §7.3 cases 15-17. */
static void test_instances(void)
{
        static const char *const opcodes[] = { "IMAD", "S2R", "ISETP" };
        static const double opcode_counts[] = { 189504.0, 127008.0, 63504.0 };
        static const uint64_t block_sizes[] = { 1, 16, 32, 48 };
        _cleanup_(ncu_report_freep) NcuReport *r = load(REPORT_ARMLETH);
        const NcuAction *a = r->actions[0];
        const NcuMetric *m;
        size_t sampler = 0;

        m = report_metric(a, "sass__inst_executed_per_opcode");
        g_assert_cmpfloat(m->value.d, ==, 632520.0);
        g_assert_true(m->has_correlation_ids);
        for (size_t i = 0; i < G_N_ELEMENTS(opcodes); i++) {
                g_assert_cmpint(m->instances[i].correlation_id.kind, ==, NCU_VALUE_STRING);
                g_assert_cmpstr(m->instances[i].correlation_id.s, ==, opcodes[i]);
                g_assert_cmpfloat(m->instances[i].value.d, ==, opcode_counts[i]);
        }

        m = report_metric(a, "inst_executed");
        g_assert_cmpuint(m->value.u64, ==, 632520);
        g_assert_cmpuint(m->instances[0].correlation_id.u64, ==, UINT64_C(137454304880128));
        g_assert_cmpuint(m->instances[1].correlation_id.u64, ==, UINT64_C(137454304880128) + 16);
        g_assert_cmpuint(m->instances[0].value.u64, ==, 31752);
        g_assert_cmpuint(m->instances[1].value.u64, ==, 31752);

        m = report_metric(a, "launch__occupancy_per_block_size");
        g_assert_cmpuint(m->n_instances, ==, 65);
        for (size_t i = 0; i < G_N_ELEMENTS(block_sizes); i++)
                g_assert_cmpuint(m->instances[i].correlation_id.u64, ==, block_sizes[i]);

        m = report_metric(a, "TriageA.l1tex__t_sector_hit_rate_realtime.pct");
        g_assert_false(m->has_value);
        g_assert_null(ncu_metric_value(m, SIZE_MAX));
        g_assert_nonnull(ncu_metric_value(m, 11));
        g_assert_null(ncu_metric_value(m, 12));
        g_assert_cmpuint(m->n_instances, ==, 12);
        g_assert_cmpuint(m->category, ==, NCU_METRIC_CATEGORY_SAMPLER);

        for (size_t i = 0; i < a->n_metrics; i++)
                sampler += a->metrics[i].category == NCU_METRIC_CATEGORY_SAMPLER;
        g_assert_cmpuint(sampler, ==, 12);

        {
                _cleanup_(ncu_report_freep) NcuReport *e = load(REPORT_EXTRAP);
                for (size_t i = 0; i < e->actions[0]->n_metrics; i++)
                        g_assert_cmpuint(e->actions[0]->metrics[i].category, ==, NCU_METRIC_CATEGORY_PM);
        }
}

/* §7.3 case 18: the 2025.1.1 one-element lists leave the scalar as it is. */
static void test_scalar_with_instance(void)
{
        _cleanup_(ncu_report_freep) NcuReport *r = load(REPORT_SYSWEA);
        const NcuMetric *m = report_metric(r->actions[0], "launch__grid_size");

        g_assert_true(m->has_value);
        g_assert_cmpuint(m->value.u64, ==, 65536);
        g_assert_cmpuint(m->n_instances, ==, 1);
        g_assert_cmpuint(m->instances[0].correlation_id.u64, ==, 0);
        g_assert_cmpuint(m->instances[0].value.u64, ==, 65536);
}

/* §7.4 case 19. */
static void test_sections(void)
{
        static const char *const armleth[] = {
                "ComputeWorkloadAnalysis",
                "InstructionStats",
                "LaunchStats",
                "MemoryWorkloadAnalysis",
                "MemoryWorkloadAnalysis_Chart",
                "MemoryWorkloadAnalysis_Tables",
                "NumaAffinity",
                "Nvlink_Tables",
                "Nvlink_Topology",
                "Occupancy",
                "PmSampling",
                "SchedulerStats",
                "SourceCounters",
                "SpeedOfLight",
                "SpeedOfLight_RooflineChart",
                "WarpStateStats",
                "WorkloadDistribution",
        };
        static const char *const syswea[] = { "LaunchStats", "Occupancy", "SpeedOfLight", "WorkloadDistribution" };
        _cleanup_(ncu_report_freep) NcuReport *a = load(REPORT_ARMLETH);
        _cleanup_(ncu_report_freep) NcuReport *s = load(REPORT_SYSWEA);

        g_assert_cmpuint(a->actions[0]->n_sections, ==, G_N_ELEMENTS(armleth));
        for (size_t i = 0; i < G_N_ELEMENTS(armleth); i++) {
                const NcuEmbeddedSection *e = &a->actions[0]->sections[i];
                NV__Profiler__ProfilerSection *sec;

                g_assert_cmpstr(e->identifier, ==, armleth[i]);
                /* The kept bytes unpack to the same section. */
                sec = nv__profiler__profiler_section__unpack(NULL, e->size, e->data);
                g_assert_nonnull(sec);
                g_assert_cmpstr(sec->identifier, ==, armleth[i]);
                nv__profiler__profiler_section__free_unpacked(sec, NULL);
        }
        for (size_t j = 0; j < s->n_actions; j++) {
                g_assert_cmpuint(s->actions[j]->n_sections, ==, G_N_ELEMENTS(syswea));
                for (size_t i = 0; i < G_N_ELEMENTS(syswea); i++)
                        g_assert_cmpstr(s->actions[j]->sections[i].identifier, ==, syswea[i]);
        }
}

static const NcuRuleResult *rule(const NcuAction *a, const char *id)
{
        for (size_t i = 0; i < a->n_rule_results; i++)
                if (streq(a->rule_results[i].identifier, id))
                        return &a->rule_results[i];
        g_error("no rule result %s", id);
}

/* §7.4 cases 20 and 21. */
static void test_rule_results(void)
{
        _cleanup_(ncu_report_freep) NcuReport *a = load(REPORT_ARMLETH);
        _cleanup_(ncu_report_freep) NcuReport *c = load(REPORT_ADD3);
        const NcuRuleResult *rr = rule(a->actions[0], "CPIStall");
        const char *const file =
                        "/usr/local/nsight-compute-2023.3.1/extras/samples/uncoalescedGlobalAccesses/uncoalescedGlobalAccesses.cu";
        size_t sass = 0, source = 0;

        g_assert_cmpstr(rr->display_name, ==, "Warp Stall");
        g_assert_cmpstr(rr->section_identifier, ==, "WarpStateStats");
        g_assert_cmpuint(rr->n_messages, >=, 1);
        g_assert_cmpuint(rr->messages[0].type, ==, NCU_RULE_MSG_OPTIMIZATION);
        g_assert_true(rr->messages[0].has_id);
        g_assert_cmpint(rr->messages[0].id, ==, 1);
        g_assert_cmpstr(rr->messages[0].name, ==, "Long Scoreboard Stalls");
        g_assert_cmpuint(rr->n_focus_metrics, ==, 2);
        g_assert_cmpint(rr->focus_metrics[0].message_id, ==, 1);
        g_assert_cmpstr(rr->focus_metrics[0].metric_name, ==, "smsp__issue_active.avg.per_cycle_active");
        g_assert_cmpfloat(rr->focus_metrics[0].value, ==, 0.14679089093766476);
        g_assert_cmpuint(rr->focus_metrics[0].severity, ==, 2);
        g_assert_cmpstr(rr->focus_metrics[1].metric_name, ==, "smsp_average_long_scoreboard");
        g_assert_cmpfloat(rr->focus_metrics[1].value, ==, 32.772536443881606);
        g_assert_cmpuint(rr->focus_metrics[1].severity, ==, 0);
        g_assert_cmpuint(rr->n_speedups, ==, 1);
        g_assert_cmpuint(rr->speedups[0].type, ==, 2);
        g_assert_cmpfloat(rr->speedups[0].value, ==, 11.607055023609657);
        g_assert_cmpuint(rr->n_source_markers, >=, 1);
        g_assert_cmpuint(rr->source_markers[0].kind, ==, 0);
        g_assert_true(rr->source_markers[0].has_address);
        g_assert_cmpuint(rr->source_markers[0].address, ==, UINT64_C(137454304880400));
        g_assert_cmpuint(rr->source_markers[0].type, ==, NCU_RULE_MSG_WARNING);
        g_assert_cmpstr(rr->source_markers[0].file_name, ==, "");
        g_assert_nonnull(rr->body);

        rr = rule(c->actions[0], "UncoalescedGlobalAccess");
        g_assert_cmpuint(rr->messages[0].type, ==, NCU_RULE_MSG_OPTIMIZATION);
        g_assert_true(g_str_has_prefix(rr->messages[0].text,
                        "This kernel has uncoalesced global accesses resulting in a total of 3145728 excessive sectors "
                        "(67% of the total 4718592 sectors)"));
        g_assert_cmpuint(rr->speedups[0].type, ==, 2);
        g_assert_cmpfloat(rr->speedups[0].value, ==, 64.6723990142505);
        g_assert_cmpstr(rr->focus_metrics[0].metric_name, ==,
                        "derived__memory_l2_theoretical_sectors_global_excessive");
        g_assert_cmpfloat(rr->focus_metrics[0].value, ==, 3145728.0);
        g_assert_cmpuint(rr->n_source_markers, ==, 8);
        for (size_t i = 0; i < rr->n_source_markers; i++) {
                const NcuSourceMarker *m = &rr->source_markers[i];
                g_assert_true(m->has_line != m->has_address);
                if (m->kind == 0) {
                        g_assert_true(m->has_address);
                        sass++;
                } else {
                        g_assert_true(m->has_line);
                        g_assert_true(m->line == 55 || m->line == 59);
                        g_assert_cmpstr(m->file_name, ==, file);
                        source++;
                }
        }
        g_assert_cmpuint(sass, ==, 6);
        g_assert_cmpuint(source, ==, 2);
        /* The derived metric the focus metric quotes (§1.1). */
        g_assert_cmpuint(report_metric(c->actions[0], "derived__memory_l2_theoretical_sectors_global_excessive")
                                         ->value.u64,
                        ==, 3145728);
        g_assert_cmpuint(report_metric(c->actions[0], "derived__memory_l2_theoretical_sectors_global_excessive")
                                         ->n_instances,
                        ==, 6);
}

/* §7.4 case 22. */
static void test_source_data(void)
{
        _cleanup_(ncu_report_freep) NcuReport *r = load(REPORT_ADD3);
        const NcuSource *s = r->actions[0]->source;

        g_assert_nonnull(s);
        g_assert_cmpuint(s->reference, ==, UINT64_C(81604378625));
        g_assert_cmpuint(r->actions[0]->source_reference, ==, UINT64_C(81604378625));
        g_assert_cmpuint(s->sm_revision, ==, 0x80006);
        g_assert_cmpuint(s->sass_level, ==, 8);
        g_assert_cmpuint(s->binary_size, ==, 7872);
        g_assert_cmpmem(s->binary, 4,
                        "\x7f"
                        "ELF",
                        4);
        g_assert_cmpuint(s->n_files, ==, 1);
        g_assert_true(g_str_has_suffix(s->files[0].file_name, "uncoalescedGlobalAccesses.cu"));
        g_assert_cmpuint(strlen(s->files[0].content), ==, 6804);
        g_assert_cmpuint(s->n_functions, >=, 1);
        g_assert_cmpstr(s->functions[0].symbol_name, ==, "_Z15addConstDouble3iP7double3dS0_");
        g_assert_cmpuint(s->functions[0].address, ==, UINT64_C(0x7f14a325d200));
        g_assert_cmpuint(s->functions[0].symbol_index, ==, 11);
}

/* What the reports from other projects showed of NVIDIA's module and ncu's pages (report.h). */
static void test_other_projects(void)
{
        _cleanup_(ncu_report_freep) NcuReport *hadi = load("HadiKhansaa_BBAStar_profile_output_ncu2024.3.2");
        _cleanup_(ncu_report_freep) NcuReport *mgmap = load("MgMap_Hyper-Spec-M_profile_ncu2024.3.2");
        _cleanup_(ncu_report_freep) NcuReport *bw = load("bwcurless_FaSTED_Mode44_ncu2023.2.0");
        _cleanup_(ncu_report_freep) NcuReport *blackwell = load("2388612861_GPU-DEMO_occupancy_ncu2025.2.1");
        _cleanup_(ncu_report_freep) NcuReport *syswea = load(REPORT_SYSWEA);
        _cleanup_free_ const NcuRelocationSymbol **functions = NULL;
        const NcuAction *a = hadi->actions[0];

        /* Made on Windows: ncu shows the executable's name; a Linux path keeps its last component. */
        g_assert_cmpstr(a->process.process_name, ==,
                        "C:\\Users\\pc\\Desktop\\AUB\\Thesis\\Bucket_Astar-main\\bin\\astar_bidirectional.exe");
        g_assert_cmpstr(a->process.base_name, ==, "astar_bidirectional.exe");
        g_assert_cmpstr(syswea->actions[0]->process.base_name, ==, "wmma_gemm");
        /* An Ada GPU without NVLink. */
        g_assert_true(a->has_compute_capability);
        g_assert_cmpuint(a->compute_capability_major, ==, 8);
        g_assert_cmpuint(a->compute_capability_minor, ==, 9);
        g_assert_true(a->has_nvlink_max_count);
        g_assert_cmpfloat(a->nvlink_max_count, ==, 0);
        g_assert_cmpuint(blackwell->actions[0]->compute_capability_major, ==, 12);

        /* extern "C": no demangled name stored, the function name answers for it. */
        g_assert_cmpstr(mgmap->actions[0]->demangled_name, ==, "");
        g_assert_cmpstr(ncu_action_name(mgmap->actions[0], NCU_NAME_DEMANGLED), ==, "hd_enc_lvid_packed_cuda");
        g_assert_cmpstr(ncu_action_name(mgmap->actions[0], NCU_NAME_MANGLED), ==, "hd_enc_lvid_packed_cuda");

        /* Application replay repeats sampling metrics once per pass: the last counts. */
        g_assert_cmpuint(report_metric_u64(bw->actions[0], "smsp__pcsamp_aggregated_passes"), ==, 2);
        g_assert_cmpuint(report_metric(bw->actions[0], "smsp__pcsamp_sample_count")->n_instances, ==, 54);

        /* A module written twice: the second entry, without the binary, lists wmma_gemm's load address. */
        g_assert_cmpuint(syswea->n_sources, ==, 2);
        g_assert_cmpint(ncu_action_loaded_functions(syswea, syswea->actions[0], &functions), ==, 2);
        g_assert_cmpstr(functions[0]->symbol_name, ==, "_Z16init_matrix_halfP6__halfif");
        g_assert_cmpstr(functions[1]->symbol_name, ==, "_Z9wmma_gemmP6__halfS0_Pfiii");
        g_assert_cmpuint(functions[1]->address, ==, 0x7a4a7f25c700);
}

/* NaN and negative doubles read as uint64 the way x86-64 converts them (NVIDIA's module's answers). */
static void test_double_to_uint64(void)
{
        static const struct {
                double d;
                uint64_t u;
        } cases[] = {
                { NAN, UINT64_C(1) << 63 },
                { -3527.0, UINT64_C(18446744073709548089) },
                { -0.5, 0 },
                { 1e30, UINT64_C(1) << 63 },
                { -1e30, UINT64_C(1) << 63 },
                { INFINITY, UINT64_C(1) << 63 },
                { 18446744073709549568.0, UINT64_C(18446744073709549568) },
                { 3969.9, 3969 },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                NcuValue v = { .kind = NCU_VALUE_DOUBLE, .d = cases[i].d };
                uint64_t u = 1;

                g_assert_true(ncu_value_as_uint64(&v, &u));
                g_assert_cmpuint(u, ==, cases[i].u);
        }
}

/* actions_by_nvtx over tests/nsight/data/nvtx.ncu-rep (make-fixtures.py says what each kernel has). */
static char *selected(const NcuRange *range, const char *inc, const char *exc)
{
        char *includes[] = { (char *) inc }, *excludes[] = { (char *) exc };
        g_autofree size_t *idx = NULL;
        GString *s = g_string_new(NULL);
        int n;

        n = ncu_range_actions_by_nvtx(range, includes, inc ? 1 : 0, excludes, exc ? 1 : 0, &idx);
        if (n < 0) {
                g_string_printf(s, "error %d", n);
                return g_string_free(s, false);
        }
        for (int i = 0; i < n; i++)
                g_string_append_printf(s, "%s%s", i > 0 ? " " : "", range->actions[idx[i]]->function_name);
        return g_string_free(s, false);
}

#define assert_selected(range, inc, exc, expected)                       \
        do {                                                             \
                g_autofree char *_got = selected((range), (inc), (exc)); \
                g_assert_cmpstr(_got, ==, (expected));                   \
        } while (0)

static void test_nvtx(void)
{
        g_autofree char *path = g_test_build_filename(G_TEST_DIST, "data", "nvtx.ncu-rep", NULL);
        g_autofree char *data = NULL;
        _cleanup_(ncu_report_freep) NcuReport *r = NULL;
        const NcuNvtxState *n;
        NcuReportError err;
        const NcuRange *range;
        gsize size;

        g_assert_true(g_file_get_contents(path, &data, &size, NULL));
        g_assert_cmpint(ncu_report_load_buffer(data, size, NULL, &r, &err), ==, 0);
        range = &r->ranges[0];
        g_assert_cmpuint(range->n_actions, ==, 5);

        /* The model: the action's own thread's stack, outermost first; start/end ranges per domain. */
        n = range->actions[0]->nvtx;
        g_assert_cmpuint(n->n_domains, ==, 2);
        g_assert_cmpstr(n->domains[0].name, ==, "<default domain>");
        g_assert_cmpuint(n->domains[0].n_push_pop, ==, 2);
        g_assert_cmpstr(n->domains[0].push_pop[0].name, ==, "outer");
        g_assert_cmpstr(n->domains[0].push_pop[1].name, ==, "inner");
        g_assert_cmpuint(n->domains[1].id, ==, 7);
        g_assert_cmpuint(n->domains[1].n_start_end, ==, 1);
        g_assert_cmpstr(n->domains[1].start_end[0].name, ==, "phase");
        g_assert_cmpuint(range->actions[4]->nvtx->domains[0].n_push_pop, ==, 0);

        assert_selected(range, NULL, NULL, "");
        assert_selected(range, "outer/", NULL, "a0 a1 a2");
        assert_selected(range, "[outer", NULL, "a0 a1");
        assert_selected(range, "inner]", NULL, "a0 a2");
        assert_selected(range, "[outer]", NULL, "a1");
        assert_selected(range, "outer/inner", NULL, "a0");
        assert_selected(range, "outer/*/inner", NULL, "a0 a2");
        assert_selected(range, "[*/mid/", NULL, "a2");
        assert_selected(range, "D@phase", NULL, "a0");
        assert_selected(range, "D@x/y/", NULL, "a1");
        assert_selected(range, "D@y/", NULL, "a1");
        assert_selected(range, "D@[y", NULL, "");
        assert_selected(range, "phase", NULL, "");
        assert_selected(range, "Nope@outer/", NULL, "");
        assert_selected(range, "outer/", "inner]", "a1");
        assert_selected(range, NULL, "outer/", "");
        assert_selected(range, "D@phase", "outer/", "");
        assert_selected(range, "[*", "outer/", "a4"); /* a3 has no NVTX state for an include to match */
        assert_selected(range, "", NULL, "error -22");
        assert_selected(range, "a//b", NULL, "error -22");
        assert_selected(range, "[", NULL, "error -22");
        assert_selected(range, NULL, "/x", "error -22");
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();
        g_test_add_func("/report/results/armleth", test_armleth_result);
        g_test_add_func("/report/results/launch-consistency", test_launch_consistency);
        g_test_add_func("/report/results/extrap", test_extrap_results);
        g_test_add_func("/report/results/syswea", test_syswea_results);
        g_test_add_func("/report/results/other-projects", test_other_projects);
        g_test_add_func("/report/metrics/double-to-uint64", test_double_to_uint64);
        g_test_add_func("/report/metrics/value-kinds", test_value_kinds);
        g_test_add_func("/report/metrics/instances", test_instances);
        g_test_add_func("/report/metrics/scalar-with-instance", test_scalar_with_instance);
        g_test_add_func("/report/sections", test_sections);
        g_test_add_func("/report/rule-results", test_rule_results);
        g_test_add_func("/report/source-data", test_source_data);
        g_test_add_func("/report/nvtx", test_nvtx);
        return g_test_run();
}
