/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The report reader against ../shared/docs/ncu-format.md §7.1-7.4, case by case: the corpus reports by
 * name with their values written out from the doc and SOURCES.md (NVIDIA's walkthrough PDFs quote some),
 * and synthetic containers for what no corpus file has. */

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

static NcuReport *load(const char *name)
{
        return report_corpus_load(name);
}

static int load_buffer(const ReportBuffer *b, NcuReport **ret, NcuReportError *err)
{
        return ncu_report_load_buffer(b->data, b->size, NULL, ret, err);
}

static const NcuMetric *metric(const NcuAction *a, const char *name)
{
        const NcuMetric *m = ncu_action_metric_by_name(a, name);
        if (!m)
                g_error("no metric %s", name);
        return m;
}

static double metric_double(const NcuAction *a, const char *name)
{
        const NcuMetric *m = metric(a, name);
        g_assert_cmpint(m->value.kind, ==, NCU_VALUE_DOUBLE);
        return m->value.d;
}

static uint64_t metric_u64(const NcuAction *a, const char *name)
{
        uint64_t u;
        g_assert_true(ncu_value_as_uint64(&metric(a, name)->value, &u));
        return u;
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
                _cleanup_(ncu_report_freep) NcuReport *c = load(report_corpus_names[i]);
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
                _cleanup_(ncu_report_freep) NcuReport *r = load(cases[i].name);
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
        g_assert_cmpfloat(metric_double(r->actions[0], "gpu__time_duration.sum"), ==, 1.5);
        g_assert_cmpint(r->actions[1]->workload_type, ==, NCU_WORKLOAD_CMDLIST);
        g_assert_cmpstr(ncu_action_name(r->actions[1], NCU_NAME_FUNCTION), ==, "cmdlist 1");
        g_assert_cmpuint(r->actions[1]->stream_id, ==, 3);
        g_assert_cmpfloat(metric_double(r->actions[1], "dram__bytes.sum"), ==, 2.5);
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
        _cleanup_(ncu_report_freep) NcuReport *r = load(REPORT_ARMLETH);
        _cleanup_(ncu_report_freep) NcuReport *s = load(REPORT_SYSWEA);
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
                _cleanup_(ncu_report_freep) NcuReport *s = load(REPORT_SYSWEA);
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
                        g_assert_cmpuint(grid.x, ==, metric_u64(a, "launch__grid_dim_x"));
                        g_assert_cmpuint(grid.y, ==, metric_u64(a, "launch__grid_dim_y"));
                        g_assert_cmpuint(grid.z, ==, metric_u64(a, "launch__grid_dim_z"));
                        g_assert_cmpuint(a->block_size.x, ==, metric_u64(a, "launch__block_dim_x"));
                        g_assert_cmpuint(grid.x * grid.y * grid.z, ==, metric_u64(a, "launch__grid_size"));
                        g_assert_cmpuint(a->context_id, ==, metric_u64(a, "launch__context_id"));
                        g_assert_cmpuint(a->stream_id, ==, metric_u64(a, "launch__stream_id"));
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
                g_assert_cmpint(metric(a->actions[0], "launch__grid_size")->kind, ==, NCU_VALUE_DOUBLE);
                g_assert_cmpfloat(metric_double(a->actions[0], "launch__grid_size"), ==, 3969.0);
                g_assert_cmpint(metric(s->actions[0], "launch__grid_size")->kind, ==, NCU_VALUE_UINT64);
                g_assert_cmpuint(metric(s->actions[0], "launch__grid_size")->value.u64, ==, 65536);
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
                g_assert_cmpfloat(metric_double(a, "gpu__time_duration.sum"), ==, durations[i]);
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
                const NcuMetric *m = metric(r->actions[i], "launch__registers_per_thread");
                g_assert_cmpfloat(metric_double(r->actions[i], "gpu__time_duration.sum"), ==, durations[i]);
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

        g_assert_cmpfloat(metric_double(s, "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"), ==,
                        57.65061216029215);
        g_assert_cmpstr(ncu_format_double_repr(
                                        metric_double(s, "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"),
                                        buf),
                        ==, "57.65061216029215");
        g_assert_cmpfloat(metric_double(s, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"), ==,
                        33.24653838501258);
        g_assert_cmpfloat(metric_double(s, "gpu__time_duration.sum"), ==, 31872.0);
        g_assert_cmpfloat(metric_double(add3->actions[0], "gpu__time_duration.sum"), ==, 89856.0);
        g_assert_cmpstr(s->demangled_name, ==, "void Sobel<float>(uchar4 *, uchar4 *, int, int)");

        m = metric(arm->actions[0], "device__attribute_display_name");
        g_assert_cmpint(m->kind, ==, NCU_VALUE_STRING);
        g_assert_cmpstr(ncu_value_as_string(&m->value), ==, "Tesla T4");
        g_assert_false(ncu_value_as_double(&m->value, &d));
        g_assert_cmpfloat(d, ==, 0);
        g_assert_false(ncu_value_as_uint64(&m->value, &u));
        g_assert_cmpuint(u, ==, 0);

        m = metric(arm->actions[0], "launch__grid_size");
        g_assert_true(ncu_value_as_uint64(&m->value, &u));
        g_assert_cmpuint(u, ==, 3969);
        g_assert_null(ncu_value_as_string(&m->value));
        m = metric(arm->actions[0], "inst_executed");
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

        m = metric(a, "sass__inst_executed_per_opcode");
        g_assert_cmpfloat(m->value.d, ==, 632520.0);
        g_assert_true(m->has_correlation_ids);
        for (size_t i = 0; i < G_N_ELEMENTS(opcodes); i++) {
                g_assert_cmpint(m->instances[i].correlation_id.kind, ==, NCU_VALUE_STRING);
                g_assert_cmpstr(m->instances[i].correlation_id.s, ==, opcodes[i]);
                g_assert_cmpfloat(m->instances[i].value.d, ==, opcode_counts[i]);
        }

        m = metric(a, "inst_executed");
        g_assert_cmpuint(m->value.u64, ==, 632520);
        g_assert_cmpuint(m->instances[0].correlation_id.u64, ==, UINT64_C(137454304880128));
        g_assert_cmpuint(m->instances[1].correlation_id.u64, ==, UINT64_C(137454304880128) + 16);
        g_assert_cmpuint(m->instances[0].value.u64, ==, 31752);
        g_assert_cmpuint(m->instances[1].value.u64, ==, 31752);

        m = metric(a, "launch__occupancy_per_block_size");
        g_assert_cmpuint(m->n_instances, ==, 65);
        for (size_t i = 0; i < G_N_ELEMENTS(block_sizes); i++)
                g_assert_cmpuint(m->instances[i].correlation_id.u64, ==, block_sizes[i]);

        m = metric(a, "TriageA.l1tex__t_sector_hit_rate_realtime.pct");
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
        const NcuMetric *m = metric(r->actions[0], "launch__grid_size");

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
        g_assert_cmpuint(metric(c->actions[0], "derived__memory_l2_theoretical_sectors_global_excessive")->value.u64,
                        ==, 3145728);
        g_assert_cmpuint(metric(c->actions[0], "derived__memory_l2_theoretical_sectors_global_excessive")->n_instances,
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
        g_assert_cmpfloat(metric_double(r->actions[0], "gpu__time_duration.sum"), ==, 31872.0);

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
                _cleanup_(ncu_report_freep) NcuReport *c = load(report_corpus_names[i]);
                g_test_message("%s: %zu bytes of model for %" G_GUINT64_FORMAT " bytes of file", report_corpus_names[i],
                                c->memory, c->size);
                g_assert_cmpuint(c->memory, <, 3 * c->size);
        }
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
        g_assert_cmpuint(metric_u64(bw->actions[0], "smsp__pcsamp_aggregated_passes"), ==, 2);
        g_assert_cmpuint(metric(bw->actions[0], "smsp__pcsamp_sample_count")->n_instances, ==, 54);

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
        g_test_add_func("/report/container/rejects", test_container_rejects);
        g_test_add_func("/report/container/version", test_container_version);
        g_test_add_func("/report/container/corpus-listed", test_corpus_listed);
        g_test_add_func("/report/container/counts", test_container_counts);
        g_test_add_func("/report/container/other-results", test_container_other_results);
        g_test_add_func("/report/container/session-details", test_session_details);
        g_test_add_func("/report/container/unknown-fields", test_unknown_fields);
        g_test_add_func("/report/container/deep-nesting", test_deep_nesting);
        g_test_add_func("/report/section-metric-names", test_section_metric_names);
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
        g_test_add_func("/report/zstd", test_zstd);
        g_test_add_func("/report/limits", test_limits);
        g_test_add_func("/report/nvtx", test_nvtx);
        return g_test_run();
}
