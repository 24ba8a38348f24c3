/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The report reader's container against ../shared/docs/ncu-format.md §7.1, case by case: synthetic
 * containers for what no corpus file has (refused, unknown and nested fields, other results, session
 * details), the corpus's counts, .ncu-repz, and the limits a reader keeps to. The model's values are
 * test-report.c's. */

#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "ProfilerSection.pb-c.h"
#include "report-builder.h"
#include "report-section-metrics.h"
#include "report-test-util.h"
#include "report.h"
#include "strv.h"
#include "test-util.h"

static int load_buffer(const ReportBuffer *b, NcuReport **ret, NcuReportError *err)
{
        return ncu_report_load_buffer(b->data, b->size, NULL, ret, err);
}

/* §7.1 case 1: magic, sizes past EOF, payload not filled. */
static void test_container_rejects(void)
{
        static const uint8_t not_magic[] = { 'N', 'V', 'X', 0, 2, 0, 0, 0, 8, 7 };
        static const uint8_t header_past_eof[] = { 'N', 'V', 'R', 0, 200, 0, 0, 0, 8, 7 };
        static const uint8_t short_size[] = { 'N', 'V', 'R', 0, 2, 0 };
        static const uint8_t empty[] = { 0 };
        NcuReport *r = NULL;
        NcuReportError err;

        g_assert_cmpint(ncu_report_load_buffer(not_magic, sizeof(not_magic), NULL, &r, &err), ==, -EBADMSG);
        g_assert_cmpuint(err.offset, ==, 0);
        g_assert_nonnull(strstr(err.message, "magic"));
        g_assert_cmpint(ncu_report_load_buffer(header_past_eof, sizeof(header_past_eof), NULL, &r, &err), ==, -EBADMSG);
        g_assert_cmpuint(err.offset, ==, 8);
        g_assert_nonnull(strstr(err.message, "truncated FileHeader"));
        g_assert_cmpint(ncu_report_load_buffer(short_size, sizeof(short_size), NULL, &r, &err), ==, -EBADMSG);
        g_assert_cmpuint(err.offset, ==, 4);
        g_assert_cmpint(ncu_report_load_buffer(empty, 0, NULL, &r, &err), ==, -EBADMSG);
        g_assert_null(r);

        /* A block whose PayloadSize claims more than the entries fill, and one whose entry overruns it. */
        {
                NV__Profiler__Messages__SourceData s = NV__PROFILER__MESSAGES__SOURCE_DATA__INIT;
                ReportEntry e = { .kind = NCU_ENTRY_SOURCE, .message = &s.base };
                ReportBuffer b = { 0 };
                uint8_t *payload_size_byte;
                size_t header_at;

                s.has_reference = true;
                s.reference = 42;
                report_build_start(&b, 7);
                header_at = b.size;
                report_build_block(&b, NULL, &e, 1);
                g_assert_cmpint(load_buffer(&b, &r, &err), ==, 0);
                g_assert_cmpuint(r->n_sources, ==, 1);
                g_assert_cmpuint(r->sources[0].reference, ==, 42);
                r = ncu_report_free(r);

                /* PayloadSize is field 5: find its key byte (0x28) in the header and grow the value by one;
                 * add a byte after the payload so the size does not point past EOF. */
                payload_size_byte = memchr(b.data + header_at + 4, 0x28, 16);
                g_assert_nonnull(payload_size_byte);
                payload_size_byte[1]++;
                report_buffer_append(&b, "", 1);
                g_assert_cmpint(load_buffer(&b, &r, &err), ==, -EBADMSG);
                g_assert_nonnull(strstr(err.message, "fill"));
                g_assert_cmpuint(err.offset, ==, b.size - 1);

                /* PayloadSize one short of the entry. */
                payload_size_byte[1] -= 2;
                g_assert_cmpint(load_buffer(&b, &r, &err), ==, -EBADMSG);
                g_assert_nonnull(strstr(err.message, "overruns"));
                report_buffer_done(&b);
        }
}

/* §7.1 case 2. */
static void test_container_version(void)
{
        ReportBuffer b = { 0 };
        NcuReport *r = NULL;
        NcuReportError err;

        report_build_start(&b, 8);
        report_build_block(&b, NULL, NULL, 0);
        g_assert_cmpint(load_buffer(&b, &r, &err), ==, -EPROTONOSUPPORT);
        g_assert_cmpuint(err.offset, ==, 8);
        g_assert_nonnull(strstr(err.message, "version 8"));
        report_buffer_done(&b);

        for (size_t i = 0; i < REPORT_CORPUS_N; i++) {
                _cleanup_(ncu_report_freep) NcuReport *c = report_corpus_load(report_corpus_names[i]);
                g_assert_cmpuint(c->version, ==, 7);
                g_assert_false(c->compressed);
                g_assert_cmpuint(c->n_actions, ==, report_corpus_n_actions[i]);
        }
}

/* The list is the corpus: a report added, renamed or removed fails here. */
static void test_corpus_listed(void)
{
        g_autofree char *dir = test_corpus_path("reports");
        g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
        g_autoptr(GHashTable) listed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        size_t n = 0;
        const char *e;

        g_assert_nonnull(d);
        for (size_t i = 0; i < REPORT_CORPUS_N; i++)
                g_hash_table_add(listed, g_strconcat(report_corpus_names[i], ".ncu-rep", NULL));
        while ((e = g_dir_read_name(d)))
                if (g_str_has_suffix(e, ".ncu-rep")) {
                        g_assert_true(g_hash_table_contains(listed, e));
                        n++;
                }
        g_assert_cmpuint(n, ==, REPORT_CORPUS_N);
}

/* §7.1 cases 3 and 5: blocks, sources, results, string tables. */
static void test_container_counts(void)
{
        static const struct {
                const char *name;
                size_t blocks, sources, results, strings, tables;
        } cases[] = {
                /* The NVIDIA examples append one string in each of blocks 8 and 9 (837 + 1 + 1). */
                { REPORT_EXTRAP, 15, 1, 6, 213, 1 },
                { REPORT_ARMLETH, 11, 1, 1, 1164, 1 },
                { REPORT_SYSWEA, 13, 2, 3, 530, 1 },
                { REPORT_ADD3, 13, 1, 1, 839, 3 },
                { REPORT_SOBEL, 13, 1, 1, 839, 3 },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                _cleanup_(ncu_report_freep) NcuReport *r = report_corpus_load(cases[i].name);
                uint32_t max_id = 0;

                g_test_message("%s", cases[i].name);
                g_assert_cmpuint(r->n_blocks, ==, cases[i].blocks);
                g_assert_cmpuint(r->n_sources, ==, cases[i].sources);
                g_assert_cmpuint(r->n_profile_results, ==, cases[i].results);
                g_assert_cmpuint(r->n_actions, ==, cases[i].results);
                g_assert_cmpuint(r->n_range_results + r->n_cmdlist_results + r->n_graph_results, ==, 0);
                g_assert_cmpuint(r->n_strings, ==, cases[i].strings);
                g_assert_cmpuint(r->n_string_tables, ==, cases[i].tables);
                for (size_t j = 0; j < r->n_actions; j++)
                        for (size_t k = 0; k < r->actions[j]->n_metrics; k++)
                                max_id = MAX(max_id, r->actions[j]->metrics[k].name_id);
                g_assert_cmpuint(max_id, ==, cases[i].strings - 1);
        }
}

static NV__Profiler__Messages__ProfileMetricResult *make_metric(uint32_t name_id, double d)
{
        NV__Profiler__Messages__ProfileMetricResult *m = g_new0(NV__Profiler__Messages__ProfileMetricResult, 1);
        NV__Profiler__Messages__ProfileMetricValue *v = g_new0(NV__Profiler__Messages__ProfileMetricValue, 1);

        nv__profiler__messages__profile_metric_result__init(m);
        nv__profiler__messages__profile_metric_value__init(v);
        v->has_doublevalue = true;
        v->doublevalue = d;
        m->nameid = name_id;
        m->metricvalue = v;
        return m;
}

static void free_metric(NV__Profiler__Messages__ProfileMetricResult *m)
{
        g_free(m->metricvalue);
        g_free(m);
}

/* §7.1 case 4: range, cmdlist and graph results after the sources and profile results. */
static void test_container_other_results(void)
{
        NV__Profiler__Messages__ProfilerStringTable st = NV__PROFILER__MESSAGES__PROFILER_STRING_TABLE__INIT;
        NV__Profiler__Messages__BlockHeader h = NV__PROFILER__MESSAGES__BLOCK_HEADER__INIT;
        NV__Profiler__Messages__RangeResult rr = NV__PROFILER__MESSAGES__RANGE_RESULT__INIT;
        NV__Profiler__Messages__CmdlistResult cr = NV__PROFILER__MESSAGES__CMDLIST_RESULT__INIT;
        NV__Profiler__Messages__GraphResult gr = NV__PROFILER__MESSAGES__GRAPH_RESULT__INIT;
        NV__Profiler__Messages__SourceData s = NV__PROFILER__MESSAGES__SOURCE_DATA__INIT;
        NV__Profiler__Messages__ProfileMetricResult *m0 = make_metric(0, 1.5), *m1 = make_metric(1, 2.5);
        NV__Profiler__Messages__ProfileMetricResult *rm[] = { m0 }, *cm[] = { m1 };
        char *strings[] = { (char *) "gpu__time_duration.sum", (char *) "dram__bytes.sum" };
        uint64_t refs[] = { 7, 9 };
        const ReportEntry entries[] = {
                { .kind = NCU_ENTRY_SOURCE, .message = &s.base },
                { .kind = NCU_ENTRY_RANGE_RESULT, .message = &rr.base },
                { .kind = NCU_ENTRY_CMDLIST_RESULT, .message = &cr.base },
                { .kind = NCU_ENTRY_GRAPH_RESULT, .message = &gr.base },
        };
        _cleanup_(ncu_report_freep) NcuReport *r = NULL;
        ReportBuffer b = { 0 };
        NcuReportError err;

        st.n_strings = 2;
        st.strings = strings;
        h.stringtable = &st;
        rr.threadid = 11;
        rr.apicallid = 12;
        rr.n_metricresults = 1;
        rr.metricresults = rm;
        rr.n_references = 2;
        rr.references = refs;
        cr.displayname = (char *) "cmdlist 1";
        cr.n_metricresults = 1;
        cr.metricresults = cm;
        cr.has_streamid = true;
        cr.streamid = 3;
        gr.threadid = 13;

        report_build_start(&b, 7);
        report_build_block(&b, &h, entries, G_N_ELEMENTS(entries));
        g_assert_cmpint(load_buffer(&b, &r, &err), ==, 0);
        g_assert_cmpuint(r->n_sources, ==, 1);
        g_assert_cmpuint(r->n_actions, ==, 3);
        g_assert_cmpuint(r->n_range_results, ==, 1);
        g_assert_cmpuint(r->n_cmdlist_results, ==, 1);
        g_assert_cmpuint(r->n_graph_results, ==, 1);
        g_assert_cmpint(r->actions[0]->workload_type, ==, NCU_WORKLOAD_RANGE);
        g_assert_cmpuint(r->actions[0]->thread_id, ==, 11);
        g_assert_cmpuint(r->actions[0]->n_references, ==, 2);
        g_assert_cmpuint(r->actions[0]->references[1], ==, 9);
        g_assert_cmpfloat(report_metric_double(r->actions[0], "gpu__time_duration.sum"), ==, 1.5);
        g_assert_cmpint(r->actions[1]->workload_type, ==, NCU_WORKLOAD_CMDLIST);
        g_assert_cmpstr(ncu_action_name(r->actions[1], NCU_NAME_FUNCTION), ==, "cmdlist 1");
        g_assert_cmpuint(r->actions[1]->stream_id, ==, 3);
        g_assert_cmpfloat(report_metric_double(r->actions[1], "dram__bytes.sum"), ==, 2.5);
        g_assert_cmpint(r->actions[2]->workload_type, ==, NCU_WORKLOAD_GRAPH);
        g_assert_cmpuint(r->actions[2]->thread_id, ==, 13);
        report_buffer_done(&b);

        /* NameId beyond the table: an error naming the result's offset, not a crash (case 5). */
        m1->nameid = 2;
        report_build_start(&b, 7);
        report_build_block(&b, &h, entries, G_N_ELEMENTS(entries));
        g_assert_cmpint(load_buffer(&b, &r, &err), ==, -EBADMSG);
        g_assert_nonnull(strstr(err.message, "NameId 2 outside the string table (2 strings)"));
        g_assert_cmpuint(err.offset, >, 8);
        report_buffer_done(&b);
        free_metric(m0);
        free_metric(m1);
}

/* §7.1 case 6: session details merged across blocks. */
static void test_session_details(void)
{
        static const char *const versions[][2] = {
                { "CUDA Version", "12.4" },
                { "Display Driver Version", "550.54.15" },
                { "PerfWorks", "0.1.0" },
                { "Nsight Compute Target", "2024.2.1.0 (build 34372528) (public-release)" },
        };
        _cleanup_(ncu_report_freep) NcuReport *r = report_corpus_load(REPORT_ARMLETH);
        _cleanup_(ncu_report_freep) NcuReport *s = report_corpus_load(REPORT_SYSWEA);
        const NcuSessionDetails *d = &r->session;

        g_assert_cmpuint(d->n_versions, ==, G_N_ELEMENTS(versions));
        for (size_t i = 0; i < G_N_ELEMENTS(versions); i++) {
                g_assert_cmpstr(d->versions[i].provider, ==, versions[i][0]);
                g_assert_cmpstr(d->versions[i].version, ==, versions[i][1]);
        }
        g_assert_cmpuint(d->n_devices, ==, 1);
        g_assert_cmpuint(d->devices[0].id, ==, 0);
        g_assert_cmpstr(d->devices[0].name, ==, "Tesla T4");
        g_assert_cmpuint(d->devices[0].n_attributes, ==, 164);
        g_assert_cmpstr(d->profiler_cmdline, ==,
                        "/opt/nvidia/nsight-compute/2024.2.1/target/linux-desktop-glibc_2_11_3-x64/ncu -o report -f --set "
                        "full ./cuda_example ");
        g_assert_true(d->host.present);
        g_assert_true(d->host.has_platform);
        g_assert_cmpuint(d->host.platform, ==, 2);
        g_assert_true(d->target.present);
        g_assert_true(d->has_creation_time);
        g_assert_cmpuint(d->creation_time, ==, 1763377100);
        g_assert_cmpuint(d->n_device_properties, ==, 0); /* present, empty */

        g_assert_cmpuint(s->session.n_versions, ==, 3);
        for (size_t i = 0; i < s->session.n_versions; i++)
                g_assert_cmpstr(s->session.versions[i].provider, !=, "Display Driver Version");
}

/* §7.1 cases 7 and 8: unknown fields and enum values are kept, not fatal. */
static void test_unknown_fields(void)
{
        NV__RuleSystem__RuleResultMessage msg = NV__RULE_SYSTEM__RULE_RESULT_MESSAGE__INIT;
        NV__RuleSystem__RuleResultBodyItem item = NV__RULE_SYSTEM__RULE_RESULT_BODY_ITEM__INIT;
        NV__RuleSystem__RuleResultBodyItem *items[] = { &item };
        NV__RuleSystem__RuleResultBody body = NV__RULE_SYSTEM__RULE_RESULT_BODY__INIT;
        NV__RuleSystem__RuleResult rule = NV__RULE_SYSTEM__RULE_RESULT__INIT;
        NV__RuleSystem__RuleResult *rules[] = { &rule };
        NV__Profiler__Messages__ProfileResult p = NV__PROFILER__MESSAGES__PROFILE_RESULT__INIT;
        NV__Profiler__Messages__Uint64x3 u = NV__PROFILER__MESSAGES__UINT64X3__INIT;
        NV__Profiler__Messages__SourceData src = NV__PROFILER__MESSAGES__SOURCE_DATA__INIT;
        ReportBuffer packed = { 0 }, b = { 0 };
        _cleanup_(ncu_report_freep) NcuReport *r = NULL;
        NcuReportError err;
        size_t n;

        /* A required enum holding a number the schema does not know (case 8). */
        msg.message = (char *) "text";
        msg.type = 77;
        item.message = &msg;
        body.n_items = 1;
        body.items = items;
        rule.identifier = (char *) "R";
        rule.displayname = (char *) "Rule";
        rule.body = &body;
        p.kernelmangledname = p.kernelfunctionname = p.kerneldemangledname = (char *) "k";
        p.globalworkoffset = p.gridsize = p.blocksize = &u;
        p.source = &src;
        p.n_ruleresults = 1;
        p.ruleresults = rules;

        /* Plus a field number no schema has (case 7): 99, a varint, appended to the message. */
        n = nv__profiler__messages__profile_result__get_packed_size(&p);
        packed.data = g_malloc(n + 3);
        packed.allocated = n + 3;
        nv__profiler__messages__profile_result__pack(&p, packed.data);
        packed.size = n;
        report_buffer_append(&packed, (const uint8_t[]){ 0x98, 0x06, 0x05 }, 3);

        report_build_start(&b, 7);
        report_build_block(&b, NULL,
                        &(ReportEntry){ .kind = NCU_ENTRY_PROFILE_RESULT, .raw = packed.data, .raw_size = packed.size },
                        1);
        g_assert_cmpint(load_buffer(&b, &r, &err), ==, 0);
        g_assert_cmpuint(r->n_actions, ==, 1);
        g_assert_cmpuint(r->actions[0]->n_rule_results, ==, 1);
        g_assert_cmpuint(r->actions[0]->rule_results[0].messages[0].type, ==, 77);
        g_assert_null(ncu_rule_message_type_to_string(77));
        report_buffer_done(&b);
        g_free(packed.data);

        /* The 2025.1.1 report carries fields newer than 2024.1.1 (§2.9). */
        {
                _cleanup_(ncu_report_freep) NcuReport *s = report_corpus_load(REPORT_SYSWEA);
                g_assert_cmpuint(s->n_actions, ==, 3);
        }
}

static size_t varint_size(uint64_t v)
{
        size_t n = 1;
        while (v >= 0x80) {
                v >>= 7;
                n++;
        }
        return n;
}

static void append_varint(ReportBuffer *b, uint64_t v)
{
        while (v >= 0x80) {
                uint8_t c = (uint8_t) (v | 0x80);
                report_buffer_append(b, &c, 1);
                v >>= 7;
        }
        report_buffer_append(b, (uint8_t[]){ (uint8_t) v }, 1);
}

/* A ProfileResult whose one section nests depth body items (HorizontalContainer > Items > ...): the
 * section schema is recursive and protobuf-c unpacks recursively; 200,000 levels would overflow the
 * stack. Refused with an error before unpacking; a real depth still loads. */
/* Every metric and option name once, sorted by strcmp(), whatever the order in the section; a section that
 * does not unpack lists none. */
static void test_section_metric_names(void)
{
        NV__Profiler__ProfilerSection s = NV__PROFILER__PROFILER_SECTION__INIT;
        NV__Profiler__ProfilerSectionHeader h = NV__PROFILER__PROFILER_SECTION_HEADER__INIT;
        NV__Profiler__ProfilerSectionMetric m1 = NV__PROFILER__PROFILER_SECTION_METRIC__INIT,
                                            m2 = NV__PROFILER__PROFILER_SECTION_METRIC__INIT,
                                            m3 = NV__PROFILER__PROFILER_SECTION_METRIC__INIT;
        NV__Profiler__ProfilerSectionMetricOption o1 = NV__PROFILER__PROFILER_SECTION_METRIC_OPTION__INIT,
                                                  o2 = NV__PROFILER__PROFILER_SECTION_METRIC_OPTION__INIT;
        NV__Profiler__ProfilerSectionMetric *metrics[] = { &m1, &m2, &m3 };
        NV__Profiler__ProfilerSectionMetricOption *options[] = { &o1, &o2 };
        static const uint8_t garbage[] = { 0xff, 0xff, 0xff };
        char **names = NULL;

        s.identifier = (char *) "X";
        s.header = &h;
        h.n_metrics = ELEMENTSOF(metrics);
        h.metrics = metrics;
        m1.name = (char *) "sm__b.sum";
        m2.name = (char *) "dram__a.max";
        m2.n_options = ELEMENTSOF(options);
        m2.options = options;
        o1.name = (char *) "sm__c.avg";
        o2.name = (char *) "sm__b.sum";
        m3.name = (char *) "";

        size_t len = protobuf_c_message_get_packed_size(&s.base);
        g_autofree uint8_t *buf = g_malloc(len);
        g_assert_cmpuint(protobuf_c_message_pack(&s.base, buf), ==, len);

        NcuEmbeddedSection sec = { .identifier = "X", .size = len, .data = buf };
        g_assert_cmpint(ncu_embedded_section_metric_names(&sec, &names), ==, 0);
        g_assert_cmpuint(strv_length(names), ==, 3);
        g_assert_cmpstr(names[0], ==, "dram__a.max");
        g_assert_cmpstr(names[1], ==, "sm__b.sum");
        g_assert_cmpstr(names[2], ==, "sm__c.avg");
        names = strv_free(names);

        sec = (NcuEmbeddedSection){ .identifier = "Y", .size = sizeof(garbage), .data = garbage };
        g_assert_cmpint(ncu_embedded_section_metric_names(&sec, &names), ==, 0);
        g_assert_nonnull(names);
        g_assert_cmpuint(strv_length(names), ==, 0);
        names = strv_free(names);
}

static void test_deep_nesting(void)
{
        const size_t depths[] = { 5, 200000 };

        for (size_t k = 0; k < G_N_ELEMENTS(depths); k++) {
                size_t depth = depths[k];
                NV__Profiler__Messages__ProfileResult p = NV__PROFILER__MESSAGES__PROFILE_RESULT__INIT;
                NV__Profiler__Messages__Uint64x3 u = NV__PROFILER__MESSAGES__UINT64X3__INIT;
                NV__Profiler__Messages__SourceData src = NV__PROFILER__MESSAGES__SOURCE_DATA__INIT;
                g_autofree size_t *item = g_new0(size_t, depth + 1), *hc = g_new0(size_t, depth + 1);
                ReportBuffer entry = { 0 }, b = { 0 };
                _cleanup_(ncu_report_freep) NcuReport *r = NULL;
                size_t body, section, n;
                NcuReportError err;

                p.kernelmangledname = p.kernelfunctionname = p.kerneldemangledname = (char *) "k";
                p.globalworkoffset = p.gridsize = p.blocksize = &u;
                p.source = &src;
                n = nv__profiler__messages__profile_result__get_packed_size(&p);
                entry.data = g_malloc(n + 1);
                entry.allocated = n + 1;
                entry.size = nv__profiler__messages__profile_result__pack(&p, entry.data);

                for (size_t d = 1; d <= depth; d++) {
                        hc[d] = 1 + varint_size(item[d - 1]) + item[d - 1];
                        item[d] = 1 + varint_size(hc[d]) + hc[d];
                }
                body = 1 + varint_size(item[depth]) + item[depth];
                section = 3 + 3 + 1 + varint_size(body) + body;
                report_buffer_append(&entry, "\x8a\x01", 2); /* ProfileResult.Sections (17) */
                append_varint(&entry, section);
                report_buffer_append(&entry, "\x0a\x01S\x12\x01S\x2a", 7); /* Identifier, DisplayName, Body */
                append_varint(&entry, body);
                report_buffer_append(&entry, "\x0a", 1); /* Body.Items */
                append_varint(&entry, item[depth]);
                for (size_t d = depth; d >= 1; d--) {
                        report_buffer_append(&entry, "\x2a", 1); /* BodyItem.HorizontalContainer */
                        append_varint(&entry, hc[d]);
                        report_buffer_append(&entry, "\x0a", 1); /* HorizontalContainer.Items */
                        append_varint(&entry, item[d - 1]);
                }

                report_build_start(&b, 7);
                report_build_block(&b, NULL,
                                &(ReportEntry){ .kind = NCU_ENTRY_PROFILE_RESULT,
                                                .raw = entry.data,
                                                .raw_size = entry.size },
                                1);
                if (depth < 10) {
                        g_assert_cmpint(load_buffer(&b, &r, &err), ==, 0);
                        g_assert_cmpuint(r->actions[0]->n_sections, ==, 1);
                } else {
                        g_assert_cmpint(load_buffer(&b, &r, &err), ==, -EBADMSG);
                        g_assert_nonnull(strstr(err.message, "nests messages more than 64 deep"));
                }
                report_buffer_done(&b);
                report_buffer_done(&entry);
        }
}

/* .ncu-repz: the same container in a zstd stream, from a pipe (no size known) and from a buffer. */
static void test_zstd(void)
{
        g_autofree char *path = report_corpus_path(REPORT_SOBEL);
        g_autofree char *plain = NULL;
        _cleanup_(ncu_report_freep) NcuReport *r = NULL, *q = NULL;
        gsize size;
        size_t bound, zsize;
        g_autofree uint8_t *z = NULL;
        NcuReportError err;
        int fds[2];
        pid_t pid;

        g_assert_true(g_file_get_contents(path, &plain, &size, NULL));
        bound = ZSTD_compressBound(size);
        z = g_malloc(bound);
        zsize = ZSTD_compress(z, bound, plain, size, 3);
        g_assert_false(ZSTD_isError(zsize));

        g_assert_cmpint(ncu_report_load_buffer(z, zsize, NULL, &r, &err), ==, 0);
        g_assert_true(r->compressed);
        g_assert_cmpuint(r->size, ==, size);
        g_assert_cmpfloat(report_metric_double(r->actions[0], "gpu__time_duration.sum"), ==, 31872.0);

        g_assert_cmpint(pipe2(fds, O_CLOEXEC), ==, 0);
        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                size_t done = 0;
                close(fds[0]);
                while (done < zsize) {
                        ssize_t k = write(fds[1], z + done, MIN(zsize - done, (size_t) 1000));
                        if (k <= 0)
                                _exit(1);
                        done += (size_t) k;
                }
                _exit(0);
        }
        close(fds[1]);
        g_assert_cmpint(ncu_report_load_fd(fds[0], NULL, &q, &err), ==, 0);
        close(fds[0]);
        g_assert_cmpuint(q->n_actions, ==, 1);
        g_assert_cmpuint(q->actions[0]->n_metrics, ==, 839);

        /* Cut short: an error at the offset where the container ends. */
        {
                _cleanup_(ncu_report_freep) NcuReport *t = NULL;
                g_assert_cmpint(ncu_report_load_buffer(z, zsize / 2, NULL, &t, &err), ==, -EBADMSG);
                g_assert_cmpuint(err.offset, <, size);
        }
}

/* The limits: a report over any of them is refused with E2BIG, never half-loaded. */
static void test_limits(void)
{
        g_autofree char *path = report_corpus_path(REPORT_SOBEL);
        g_autofree char *data = NULL;
        NcuReportLimits limits;
        NcuReport *r = NULL;
        NcuReportError err;
        gsize size;

        g_assert_true(g_file_get_contents(path, &data, &size, NULL));

        ncu_report_limits_default(&limits);
        limits.max_entry_size = 100000;
        g_assert_cmpint(ncu_report_load_buffer(data, size, &limits, &r, &err), ==, -E2BIG);
        g_assert_nonnull(strstr(err.message, "limit"));

        ncu_report_limits_default(&limits);
        limits.max_memory = 100000;
        g_assert_cmpint(ncu_report_load_buffer(data, size, &limits, &r, &err), ==, -E2BIG);

        ncu_report_limits_default(&limits);
        limits.max_file_size = size - 1;
        g_assert_cmpint(ncu_report_load_buffer(data, size, &limits, &r, &err), ==, -E2BIG);

        ncu_report_limits_default(&limits);
        limits.max_strings = 100;
        g_assert_cmpint(ncu_report_load_buffer(data, size, &limits, &r, &err), ==, -E2BIG);

        ncu_report_limits_default(&limits);
        limits.max_blocks = 5;
        g_assert_cmpint(ncu_report_load_buffer(data, size, &limits, &r, &err), ==, -E2BIG);
        g_assert_null(r);

        /* Memory: the model stays under 3x the file for every corpus report. */
        for (size_t i = 0; i < REPORT_CORPUS_N; i++) {
                _cleanup_(ncu_report_freep) NcuReport *c = report_corpus_load(report_corpus_names[i]);
                g_test_message("%s: %zu bytes of model for %" G_GUINT64_FORMAT " bytes of file", report_corpus_names[i],
                                c->memory, c->size);
                g_assert_cmpuint(c->memory, <, 3 * c->size);
        }
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();
        g_test_add_func("/report/container/rejects", test_container_rejects);
        g_test_add_func("/report/container/version", test_container_version);
        g_test_add_func("/report/container/corpus-listed", test_corpus_listed);
        g_test_add_func("/report/container/counts", test_container_counts);
        g_test_add_func("/report/container/other-results", test_container_other_results);
        g_test_add_func("/report/container/session-details", test_session_details);
        g_test_add_func("/report/container/unknown-fields", test_unknown_fields);
        g_test_add_func("/report/container/deep-nesting", test_deep_nesting);
        g_test_add_func("/report/section-metric-names", test_section_metric_names);
        g_test_add_func("/report/zstd", test_zstd);
        g_test_add_func("/report/limits", test_limits);
        return g_test_run();
}
