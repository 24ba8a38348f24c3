/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fd-util.h"
#include "json-util.h"
#include "report-diff.h"
#include "report-csv.h"
#include "report-json-attrs.h"
#include "report-json-write.h"
#include "report-page-encoding.h"
#include "report-page.h"
#include "report-protocol.h"
#include "report-serve.h"
#include "report-source-view.h"
#include "report-summary.h"
#include "strv.h"

#define NVTX_EXPRESSIONS_MAX 64

typedef struct Serve {
        NcuReport *report;
        NcuReportLimits limits;
        struct json_object *header; /* report-json.h's document without its ranges: versions, sources */
        /* The last action's tree: a client reads an action's metrics one call at a time. */
        const NcuAction *cached;
        struct json_object *cached_json;
} Serve;

/* Metrics and rule results are answered from the typed model (metrics by its index by name); source
 * files from the report's sources as report-json.h presents them. Both serve exactly what
 * `nvprofilectl report json` prints. */
static struct json_object *get(struct json_object *o, const char *key)
{
        struct json_object *v = NULL;

        return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *str_member(struct json_object *o, const char *key)
{
        return strempty(json_object_get_string(get(o, key)));
}

/* Reads (u range, u action) and finds the action. */
static int read_action(Serve *s, NcuWireReader *in, const NcuAction **ret, char message[static NCU_SERVE_MESSAGE_MAX])
{
        uint32_t range, action;
        int r;

        r = ncu_wire_get_u32(in, &range);
        if (r >= 0)
                r = ncu_wire_get_u32(in, &action);
        if (r < 0)
                return r;
        if (range >= s->report->n_ranges) {
                snprintf(message, NCU_SERVE_MESSAGE_MAX, "No range %" PRIu32, range);
                return -EINVAL;
        }
        if (action >= s->report->ranges[range].n_actions) {
                snprintf(message, NCU_SERVE_MESSAGE_MAX, "No action %" PRIu32 " in range %" PRIu32, action, range);
                return -EINVAL;
        }
        *ret = s->report->ranges[range].actions[action];
        return 0;
}

static int action_json(Serve *s, const NcuAction *a, struct json_object **ret)
{
        struct json_object *o = NULL;
        int r;

        if (s->cached != a) {
                r = ncu_action_to_json_with(a, 0, ncu_json_add_metric_attrs, NULL, &o);
                if (r < 0)
                        return r;
                json_object_put(s->cached_json);
                s->cached_json = o;
                s->cached = a;
        }
        *ret = s->cached_json;
        return 0;
}

static int read_action_json(
                Serve *s, NcuWireReader *in, struct json_object **ret, char message[static NCU_SERVE_MESSAGE_MAX])
{
        const NcuAction *a;
        int r;

        r = read_action(s, in, &a, message);
        if (r < 0)
                return r;
        return action_json(s, a, ret);
}

static int serve_get_info(Serve *s, NcuWireReader *in, NcuWire *out)
{
        struct json_object *report = get(s->header, "report");

        ncu_wire_put_string(out, json_object_get_string(get(report, "ncu_version")));
        ncu_wire_put_u32(out, s->report->version);
        ncu_wire_put_u32(out, (uint32_t) s->report->n_ranges);
        ncu_wire_put_u64(out, s->report->size);
        return 0;
}

static void put_uint3(NcuWire *out, NcuUint3 u)
{
        ncu_wire_put_u64(out, u.x);
        ncu_wire_put_u64(out, u.y);
        ncu_wire_put_u64(out, u.z);
}

static int serve_list_actions(Serve *s, NcuWireReader *in, NcuWire *out, char message[static NCU_SERVE_MESSAGE_MAX])
{
        const NcuRange *range;
        uint32_t index;
        size_t token;
        int r;

        r = ncu_wire_get_u32(in, &index);
        if (r < 0)
                return r;
        if (index >= s->report->n_ranges) {
                snprintf(message, NCU_SERVE_MESSAGE_MAX, "No range %" PRIu32, index);
                return -EINVAL;
        }
        range = &s->report->ranges[index];
        token = ncu_wire_open_array(out);
        for (size_t i = 0; i < range->n_actions; i++) {
                const NcuAction *a = range->actions[i];
                const NcuMetric *duration = ncu_action_metric_by_name(a, "gpu__time_duration.sum");
                double ns = -1.0;

                if (!duration || !duration->has_value || !ncu_value_as_double(&duration->value, &ns))
                        ns = -1.0;
                ncu_wire_put_u32(out, (uint32_t) i);
                ncu_wire_put_string(out, ncu_workload_type_to_string(a->workload_type));
                ncu_wire_put_string(out, a->function_name);
                ncu_wire_put_string(out, a->demangled_name);
                ncu_wire_put_string(out, a->mangled_name);
                put_uint3(out, a->grid_size);
                put_uint3(out, a->block_size);
                ncu_wire_put_double(out, ns);
        }
        ncu_wire_close_array(out, token, (uint32_t) range->n_actions);
        return 0;
}

static int serve_get_summary(Serve *s, NcuWire *out)
{
        NcuSummaryRow *rows = NULL;
        size_t n = 0, token;
        int r;

        r = ncu_report_summary(s->report, &rows, &n);
        if (r < 0)
                return r;
        token = ncu_wire_open_array(out);
        for (size_t i = 0; i < n; i++) {
                const NcuSummaryRow *row = &rows[i];
                size_t findings;

                ncu_wire_put_u32(out, (uint32_t) row->range);
                ncu_wire_put_u32(out, (uint32_t) row->action);
                ncu_wire_put_u32(out, (uint32_t) row->index);
                ncu_wire_put_string(out, row->name);
                put_uint3(out, row->grid);
                put_uint3(out, row->block);
                ncu_wire_put_double(out, row->duration_ns);
                findings = ncu_wire_open_array(out);
                for (size_t j = 0; j < row->n_findings; j++) {
                        ncu_wire_put_string(out, row->findings[j].type);
                        ncu_wire_put_string(out, row->findings[j].title);
                        ncu_wire_put_double(out, row->findings[j].speedup);
                }
                ncu_wire_close_array(out, findings, (uint32_t) row->n_findings);
        }
        ncu_wire_close_array(out, token, (uint32_t) n);
        ncu_summary_free(rows, n);
        return 0;
}

static int serve_get_metric_names(Serve *s, NcuWireReader *in, NcuWire *out, char message[static NCU_SERVE_MESSAGE_MAX])
{
        const NcuAction *a;
        size_t token;
        int r;

        r = read_action(s, in, &a, message);
        if (r < 0)
                return r;
        token = ncu_wire_open_array(out);
        for (size_t i = 0; i < a->n_metrics; i++)
                ncu_wire_put_string(out, a->metrics[i].name);
        ncu_wire_close_array(out, token, (uint32_t) a->n_metrics);
        return 0;
}

/* A value as a variant in the given kind: string s, float/double d, uint32 u, uint64 t; unknown is an empty
 * string (the kind says so). A value of another kind is converted as ncu_report reads it; none reads NaN,
 * 0 or "". */
static void put_value(NcuWire *out, NcuValueKind kind, const NcuValue *v)
{
        NcuValue c = v->kind == kind ? *v : ncu_value_convert(v, kind);

        switch (kind) {
        case NCU_VALUE_FLOAT:
        case NCU_VALUE_DOUBLE:
                ncu_wire_put_u8(out, 'd');
                ncu_wire_put_double(out,
                                v->kind == NCU_VALUE_UNKNOWN                ? NAN
                                                : c.kind == NCU_VALUE_FLOAT ? (double) c.f
                                                                            : c.d);
                break;
        case NCU_VALUE_UINT64:
                ncu_wire_put_u8(out, 't');
                ncu_wire_put_u64(out, v->kind == NCU_VALUE_UNKNOWN ? 0 : c.u64);
                break;
        case NCU_VALUE_UINT32:
                ncu_wire_put_u8(out, 'u');
                ncu_wire_put_u32(out, v->kind == NCU_VALUE_UNKNOWN ? 0 : c.u32);
                break;
        case NCU_VALUE_STRING:
                ncu_wire_put_u8(out, 's');
                ncu_wire_put_string(out, c.kind == NCU_VALUE_STRING ? c.s : "");
                break;
        default:
                ncu_wire_put_u8(out, 's');
                ncu_wire_put_string(out, "");
        }
}

/* The first metric of a name, as ncu_report's metric_by_name: the index by name holds the last of each, so
 * an action that repeats a name (rare) is searched in file order from there. */
static const NcuMetric *first_metric_by_name(const NcuAction *a, const char *name)
{
        const NcuMetric *m = ncu_action_metric_by_name(a, name);

        if (m && a->n_unique_metrics != a->n_metrics)
                for (const NcuMetric *p = a->metrics; p < m; p++)
                        if (streq_ptr(p->name, name))
                                return p;
        return m;
}

/* Answered from the typed model: the lookup is the model's index by name, the values are written as they
 * are stored (the report JSON's kinds and values, report-json.h). */
static int serve_get_metric(Serve *s, NcuWireReader *in, NcuWire *out, char message[static NCU_SERVE_MESSAGE_MAX])
{
        const NcuAction *a;
        const NcuMetric *m;
        const char *name;
        size_t token;
        int r;

        r = read_action(s, in, &a, message);
        if (r >= 0)
                r = ncu_wire_get_string(in, &name);
        if (r < 0)
                return r;
        m = first_metric_by_name(a, name);
        if (!m) {
                snprintf(message, NCU_SERVE_MESSAGE_MAX, "No metric of that name");
                return -ENOENT;
        }
        ncu_wire_put_string(out, ncu_value_kind_to_string(m->kind));
        ncu_wire_put_bool(out, m->has_value);
        put_value(out, m->has_value ? m->kind : NCU_VALUE_UNKNOWN, &m->value);
        token = ncu_wire_open_array(out);
        for (size_t i = 0; i < m->n_instances; i++) {
                const NcuInstance *x = &m->instances[i];

                put_value(out, x->correlation_id.kind, &x->correlation_id);
                put_value(out, x->value.kind, &x->value);
        }
        ncu_wire_close_array(out, token, (uint32_t) m->n_instances);
        return 0;
}

/* A rule message's type as the report JSON spells it: its name, else its number. */
static void put_message_type(NcuWire *out, uint32_t type)
{
        const char *t = ncu_rule_message_type_to_string(type);
        char number[16];

        if (!t) {
                snprintf(number, sizeof(number), "%" PRIu32, type);
                t = number;
        }
        ncu_wire_put_string(out, t);
}

/* One rule result from the typed model, as the report JSON has it (report-json.h): GetRuleResults' fields,
 * or (full) everything the report stores of it. */
static void put_rule_result(NcuWire *out, const NcuRuleResult *rr, bool full)
{
        size_t token;

        ncu_wire_put_string(out, rr->identifier);
        ncu_wire_put_string(out, rr->display_name);
        ncu_wire_put_string(out, rr->section_identifier);
        token = ncu_wire_open_array(out);
        for (size_t j = 0; j < rr->n_messages; j++) {
                const NcuRuleMessage *m = &rr->messages[j];

                if (full)
                        ncu_wire_put_i32(out, m->has_id ? m->id : -1);
                put_message_type(out, m->type);
                ncu_wire_put_string(out, m->name);
                ncu_wire_put_string(out, m->text);
        }
        ncu_wire_close_array(out, token, (uint32_t) rr->n_messages);
        token = ncu_wire_open_array(out);
        for (size_t j = 0; j < rr->n_speedups; j++) {
                const NcuSpeedup *x = &rr->speedups[j];

                ncu_wire_put_string(out, x->type == 1 ? "local" : x->type == 2 ? "global" : "unknown");
                ncu_wire_put_double(out, x->has_value ? x->value : NAN);
        }
        ncu_wire_close_array(out, token, (uint32_t) rr->n_speedups);
        if (!full)
                return;
        token = ncu_wire_open_array(out);
        for (size_t j = 0; j < rr->n_focus_metrics; j++) {
                const NcuFocusMetric *f = &rr->focus_metrics[j];

                ncu_wire_put_i32(out, f->has_message_id ? f->message_id : -1);
                ncu_wire_put_string(out, f->metric_name);
                ncu_wire_put_double(out, f->has_value ? f->value : NAN);
                ncu_wire_put_u64(out, f->severity);
                ncu_wire_put_string(out, f->info);
        }
        ncu_wire_close_array(out, token, (uint32_t) rr->n_focus_metrics);
        token = ncu_wire_open_array(out);
        for (size_t j = 0; j < rr->n_source_markers; j++) {
                const NcuSourceMarker *m = &rr->source_markers[j];

                ncu_wire_put_string(out, m->kind == 0 ? "sass" : m->kind == 1 ? "source" : "unknown");
                ncu_wire_put_string(out, m->file_name);
                ncu_wire_put_u64(out, m->has_address ? m->address : 0);
                ncu_wire_put_u64(out, m->has_line ? m->line : 0);
                ncu_wire_put_string(out, ncu_rule_message_type_to_string(m->type));
                ncu_wire_put_string(out, m->tooltip);
        }
        ncu_wire_close_array(out, token, (uint32_t) rr->n_source_markers);
}

static int serve_get_rule_results(
                Serve *s, NcuWireReader *in, NcuWire *out, bool full, char message[static NCU_SERVE_MESSAGE_MAX])
{
        const NcuAction *a;
        size_t token;
        int r;

        r = read_action(s, in, &a, message);
        if (r < 0)
                return r;
        token = ncu_wire_open_array(out);
        for (size_t i = 0; i < a->n_rule_results; i++)
                put_rule_result(out, &a->rule_results[i], full);
        ncu_wire_close_array(out, token, (uint32_t) a->n_rule_results);
        return 0;
}

/* The CUDA source files stored for the action's code (ncu --import-source), as ncu_report's source_files:
 * every file of the sources entries of the action's reference, the first of a name. */
static int serve_get_source_files(Serve *s, NcuWireReader *in, NcuWire *out, char message[static NCU_SERVE_MESSAGE_MAX])
{
        _cleanup_strv_free_ char **seen = NULL;
        struct json_object *a, *sources = get(s->header, "sources"), *ref;
        uint32_t n = 0;
        size_t token;
        int r;

        r = read_action_json(s, in, &a, message);
        if (r < 0)
                return r;
        ref = get(a, "source_reference");
        token = ncu_wire_open_array(out);
        for (size_t i = 0; ref && i < json_array_length(sources); i++) {
                struct json_object *src = json_array_get(sources, i), *files = get(src, "files");

                if (!get(src, "reference") ||
                                json_object_get_uint64(get(src, "reference")) != json_object_get_uint64(ref))
                        continue;
                for (size_t j = 0; j < json_array_length(files); j++) {
                        struct json_object *f = json_array_get(files, j);
                        const char *name = get(f, "name") ? json_object_get_string(get(f, "name")) : NULL;

                        if (!name || strv_contains(seen, name))
                                continue;
                        r = strv_extend(&seen, name);
                        if (r < 0)
                                return r;
                        ncu_wire_put_string(out, name);
                        ncu_wire_put_string(out, str_member(f, "content"));
                        n++;
                }
        }
        ncu_wire_close_array(out, token, n);
        return 0;
}

/* as: strings in place in the request (which outlives them). */
static int read_strings(NcuWireReader *in, size_t max, char ***ret, size_t *ret_n)
{
        _cleanup_free_ char **v = NULL;
        uint32_t n;
        int r;

        r = ncu_wire_get_count(in, sizeof(uint32_t) + 1, &n);
        if (r < 0)
                return r;
        if (n > max)
                return -E2BIG;
        v = calloc((size_t) n + 1, sizeof(char *));
        if (!v)
                return -ENOMEM;
        for (uint32_t i = 0; i < n; i++) {
                const char *p;

                r = ncu_wire_get_string(in, &p);
                if (r < 0)
                        return r;
                v[i] = (char *) p;
        }
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

static int serve_actions_by_nvtx(Serve *s, NcuWireReader *in, NcuWire *out, char message[static NCU_SERVE_MESSAGE_MAX])
{
        _cleanup_free_ char **includes = NULL, **excludes = NULL;
        _cleanup_free_ size_t *selected = NULL;
        size_t n_includes, n_excludes, token;
        uint32_t range;
        int r;

        r = ncu_wire_get_u32(in, &range);
        if (r >= 0)
                r = read_strings(in, NVTX_EXPRESSIONS_MAX, &includes, &n_includes);
        if (r >= 0)
                r = read_strings(in, NVTX_EXPRESSIONS_MAX, &excludes, &n_excludes);
        if (r < 0)
                return r;
        if (range >= s->report->n_ranges) {
                snprintf(message, NCU_SERVE_MESSAGE_MAX, "No range %" PRIu32, range);
                return -EINVAL;
        }
        r = ncu_range_actions_by_nvtx(&s->report->ranges[range], includes, n_includes, excludes, n_excludes, &selected);
        if (r == -EINVAL) {
                snprintf(message, NCU_SERVE_MESSAGE_MAX, "Malformed NVTX expression");
                return r;
        }
        if (r < 0)
                return r;
        token = ncu_wire_open_array(out);
        for (size_t i = 0; i < (size_t) r; i++)
                ncu_wire_put_u32(out, (uint32_t) selected[i]);
        ncu_wire_close_array(out, token, (uint32_t) r);
        return 0;
}

/* Exports go straight into the memfd the daemon sized and sealed against growing (writes past its size
 * fail): fopencookie() rather than fdopen(), which would need fcntl(), outside the filter. */
typedef struct FdCookie {
        int fd;
        uint64_t written;
        int error;
} FdCookie;

static ssize_t cookie_write(void *cookie, const char *buf, size_t size)
{
        FdCookie *c = cookie;
        size_t done = 0;

        while (done < size) {
                ssize_t k = write(c->fd, buf + done, size - done);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        /* EPERM: the seal against growing, the output's limit. */
                        c->error = errno == EPERM ? -E2BIG : -errno;
                        return -1;
                }
                done += (size_t) k;
        }
        c->written += done;
        return (ssize_t) done;
}

static FILE *fd_stream(FdCookie *c)
{
        return fopencookie(c, "w", (cookie_io_functions_t){ .write = cookie_write });
}

/* Closes f; the cookie's error first, then the stream's. */
static int close_stream(FILE *f, FdCookie *c, int r)
{
        if (fclose(f) != 0 && r >= 0)
                r = c->error < 0 ? c->error : -EIO;
        if (r == -EIO && c->error < 0)
                r = c->error;
        return r;
}

/* Closes an output's stream; the reply is the size written. */
static int finish_output(FILE *f, FdCookie *c, int r, NcuWire *out, char message[static NCU_SERVE_MESSAGE_MAX])
{
        r = close_stream(f, c, r);
        if (r == -E2BIG)
                snprintf(message, NCU_SERVE_MESSAGE_MAX, "the output is larger than the limit for one output");
        if (r < 0)
                return r;
        ncu_wire_put_u64(out, c->written);
        return 0;
}

/* doc as JSON text into the memfd fd; the reply is its size. */
static int write_json_output(struct json_object *doc, int fd, NcuWire *out, char message[static NCU_SERVE_MESSAGE_MAX])
{
        FdCookie c = { .fd = fd };
        const char *text;
        size_t n;
        FILE *f;

        text = json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
        if (!text)
                return -ENOMEM;
        f = fd_stream(&c);
        if (!f)
                return -ENOMEM;
        fwrite(text, 1, n, f);
        return finish_output(f, &c, 0, out, message);
}

static int serve_export(Serve *s, NcuWireReader *in, NcuWire *out, const int fds[static NCU_SERVE_FDS_MAX],
                char message[static NCU_SERVE_MESSAGE_MAX])
{
        FdCookie c = { .fd = fds[0] };
        NcuPageOptions page;
        const char *why;
        uint32_t kind;
        FILE *f;
        int r;

        r = ncu_wire_get_u32(in, &kind);
        if (r < 0)
                return r;
        if (kind >= _NCU_SERVE_EXPORT_MAX || fds[0] < 0 || fds[1] >= 0)
                return -EBADMSG;
        if (kind == NCU_SERVE_EXPORT_PAGE) {
                /* The caller's own bytes, passed on by the daemon: an InvalidArgs of theirs, not a fault. */
                r = ncu_wire_get_page_options(in, &page);
                if (r < 0 || in->left != 0) {
                        snprintf(message, NCU_SERVE_MESSAGE_MAX,
                                        "The page options are not in encoding %u of ExportPageEncoded",
                                        NCU_PAGE_OPTIONS_ENCODING);
                        return -EINVAL;
                }
                if (!ncu_page_options_valid(&page, &why)) {
                        snprintf(message, NCU_SERVE_MESSAGE_MAX, "%s", why);
                        return -EINVAL;
                }
        }
        f = fd_stream(&c);
        if (!f)
                return -ENOMEM;
        switch ((NcuServeExport) kind) {
        case NCU_SERVE_EXPORT_JSON:
                r = ncu_report_write_json_attrs(s->report, f);
                break;
        case NCU_SERVE_EXPORT_RAW:
        case NCU_SERVE_EXPORT_RAW_INSTANCES:
                r = ncu_export_raw_csv(s->report, kind == NCU_SERVE_EXPORT_RAW_INSTANCES, f);
                break;
        case NCU_SERVE_EXPORT_DETAILS:
                r = ncu_export_details_csv(s->report, f);
                break;
        case NCU_SERVE_EXPORT_PAGE:
                r = ncu_page_write(s->report, &page, f);
                break;
        default:
                assert_not_reached();
        }
        return finish_output(f, &c, r, out, message);
}

/* GetSourceView(range, action): report-source-view.h's document into the memfd on fds[0]. */
static int serve_get_source_view(Serve *s, NcuWireReader *in, NcuWire *out, const int fds[static NCU_SERVE_FDS_MAX],
                char message[static NCU_SERVE_MESSAGE_MAX])
{
        _cleanup_(json_object_putp) struct json_object *doc = NULL;
        const NcuAction *a;
        int r;

        if (fds[0] < 0 || fds[1] >= 0)
                return -EBADMSG;
        r = read_action(s, in, &a, message);
        if (r < 0)
                return r;
        /* The worker's load is eager: the action's metrics are decoded. */
        r = ncu_action_source_view(s->report, a, &doc);
        if (r < 0)
                return r;
        return write_json_output(doc, fds[0], out, message);
}

static void format_load_error(char message[static NCU_SERVE_MESSAGE_MAX], const NcuReportError *err)
{
        snprintf(message, NCU_SERVE_MESSAGE_MAX, "byte %" PRIu64 ": %.200s", err->offset, err->message);
}

/* Diff(baseline): this report against the baseline on fds[0], the JSON into the memfd on fds[1]. */
static int serve_diff(Serve *s, NcuWireReader *in, NcuWire *out, const int fds[static NCU_SERVE_FDS_MAX],
                char message[static NCU_SERVE_MESSAGE_MAX])
{
        _cleanup_(ncu_report_freep) NcuReport *baseline = NULL;
        _cleanup_(json_object_putp) struct json_object *doc = NULL;
        _cleanup_free_ char **specs = NULL;
        NcuReportLimits limits = s->limits;
        NcuReportError err;
        size_t n_specs;
        int r;

        if (fds[0] < 0 || fds[1] < 0)
                return -EBADMSG;
        r = read_strings(in, NCU_DIFF_SPECS_MAX, &specs, &n_specs);
        if (r < 0)
                return r;
        /* The baseline is read from where its descriptor is (the daemon put it at the report's start). Both
         * models within the worker's memory. */
        limits.max_memory = limits.max_memory > s->report->memory ? limits.max_memory - s->report->memory : 0;
        r = ncu_report_load_fd(fds[0], &limits, &baseline, &err);
        if (r < 0) {
                format_load_error(message, &err);
                return r;
        }
        r = ncu_report_diff_json(baseline, s->report, specs, n_specs, &doc, message);
        if (r < 0)
                return r;
        return write_json_output(doc, fds[1], out, message);
}

static int dispatch(Serve *s, uint32_t op, NcuWireReader *in, NcuWire *out, const int fds[static NCU_SERVE_FDS_MAX],
                char message[static NCU_SERVE_MESSAGE_MAX])
{
        /* Only exports, diffs and source views carry descriptors. */
        if (!IN_SET((int) op, NCU_SERVE_EXPORT, NCU_SERVE_DIFF, NCU_SERVE_GET_SOURCE_VIEW) && fds[0] >= 0)
                return -EBADMSG;
        switch ((NcuServeOp) op) {
        case NCU_SERVE_GET_INFO:
                return serve_get_info(s, in, out);
        case NCU_SERVE_LIST_ACTIONS:
                return serve_list_actions(s, in, out, message);
        case NCU_SERVE_GET_METRIC_NAMES:
                return serve_get_metric_names(s, in, out, message);
        case NCU_SERVE_GET_METRIC:
                return serve_get_metric(s, in, out, message);
        case NCU_SERVE_GET_RULE_RESULTS:
        case NCU_SERVE_GET_RULE_RESULTS_FULL:
                return serve_get_rule_results(s, in, out, op == NCU_SERVE_GET_RULE_RESULTS_FULL, message);
        case NCU_SERVE_GET_SOURCE_FILES:
                return serve_get_source_files(s, in, out, message);
        case NCU_SERVE_ACTIONS_BY_NVTX:
                return serve_actions_by_nvtx(s, in, out, message);
        case NCU_SERVE_EXPORT:
                return serve_export(s, in, out, fds, message);
        case NCU_SERVE_DIFF:
                return serve_diff(s, in, out, fds, message);
        case NCU_SERVE_GET_SUMMARY:
                return serve_get_summary(s, out);
        case NCU_SERVE_GET_DETAILS:
                break; /* the details helper's */
        case NCU_SERVE_GET_SOURCE_VIEW:
                return serve_get_source_view(s, in, out, fds, message);
        case _NCU_SERVE_OP_MAX:
                break;
        }
        return -EOPNOTSUPP;
}

/* An error reply: its errno and message (a fixed sentence when the handler gave none). */
static int send_error(int sock, int error, const char *message)
{
        NcuWire w;
        int r;

        ncu_wire_init(&w, NCU_SERVE_MESSAGE_MAX + 8);
        ncu_wire_put_string(&w, message[0] ? message : strerror(-error));
        r = ncu_wire_finish(&w);
        if (r >= 0)
                r = ncu_frame_send(sock, (uint32_t) -error, w.data, w.size, NULL, 0);
        ncu_wire_done(&w);
        return r;
}

static int handle(Serve *s, int sock, const NcuFrameHeader *h, const uint8_t *payload,
                const int fds[static NCU_SERVE_FDS_MAX])
{
        char message[NCU_SERVE_MESSAGE_MAX] = "";
        NcuWireReader in;
        uint64_t max_reply;
        NcuWire out;
        int r;

        ncu_wire_reader_init(&in, payload, h->size);
        r = ncu_wire_get_u64(&in, &max_reply);
        if (r < 0)
                return send_error(sock, r, "malformed request");
        ncu_wire_init(&out, MIN(max_reply, (uint64_t) NCU_SERVE_REPLY_MAX));
        r = dispatch(s, h->code, &in, &out, fds, message);
        if (r >= 0)
                r = ncu_wire_finish(&out);
        if (r == -E2BIG && !message[0])
                snprintf(message, sizeof(message), "the reply is larger than the limit for one reply");
        if (r < 0)
                r = send_error(sock, r, message);
        else
                r = ncu_frame_send(sock, 0, out.data, out.size, NULL, 0);
        ncu_wire_done(&out);
        return r;
}

static int serve_loop(Serve *s, int sock)
{
        for (;;) {
                _cleanup_free_ uint8_t *payload = NULL;
                int fds[NCU_SERVE_FDS_MAX];
                NcuFrameHeader h;
                int r;

                r = ncu_frame_receive(sock, NCU_SERVE_REQUEST_MAX, &h, &payload, fds);
                if (r <= 0)
                        return r;
                r = handle(s, sock, &h, payload, fds);
                for (size_t i = 0; i < NCU_SERVE_FDS_MAX; i++)
                        safe_close(fds[i]);
                if (r < 0)
                        return r;
        }
}

int ncu_worker_serve(int report_fd, int sock_fd, const NcuReportLimits *limits)
{
        Serve s = { .limits = *limits };
        char message[NCU_SERVE_MESSAGE_MAX];
        NcuReportError err;
        NcuWire w;
        int r;

        assert(report_fd >= 0 && sock_fd >= 0 && limits);
        r = ncu_report_load_fd(report_fd, limits, &s.report, &err);
        if (r < 0) {
                format_load_error(message, &err);
                (void) send_error(sock_fd, r, message);
                return r;
        }
        r = ncu_report_header_to_json(s.report, 0, &s.header);
        if (r < 0) {
                (void) send_error(sock_fd, r, "out of memory");
                ncu_report_free(s.report);
                return r;
        }
        /* Loaded: the model's size and the most the load held, for the daemon's log. */
        ncu_wire_init(&w, 64);
        ncu_wire_put_u64(&w, s.report->memory);
        ncu_wire_put_u64(&w, s.report->peak_memory);
        r = ncu_wire_finish(&w);
        if (r >= 0)
                r = ncu_frame_send(sock_fd, 0, w.data, w.size, NULL, 0);
        ncu_wire_done(&w);
        if (r >= 0)
                r = serve_loop(&s, sock_fd);
        json_object_put(s.cached_json);
        json_object_put(s.header);
        ncu_report_free(s.report);
        return r;
}
