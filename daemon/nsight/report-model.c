/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Builds the model from what the container layer frames: each entry is unpacked with protobuf-c (which
 * keeps unknown fields and takes proto2 enums by number), copied into the report's arena, and freed, so
 * memory holds the model and one entry at a time. Strings are resolved once every block is read.
 *
 * The metrics of a result (most of its bytes) are decoded by report-metrics.c: at once, or, in a lazy
 * load, when ncu_action_decode_metrics() first asks, from the entry kept in memory or read again from a
 * regular file that must not have changed since. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ProfilerReport.pb-c.h"
#include "fd-util.h"
#include "report-container.h"
#include "report-limits.h"
#include "report-metrics.h"
#include "string-util.h"

#define DEFAULT_MAX_FILE_SIZE (UINT64_C(4) * 1024 * 1024 * 1024)
#define DEFAULT_MAX_HEADER_SIZE (64u * 1024u * 1024u)
#define DEFAULT_MAX_ENTRY_SIZE (256u * 1024u * 1024u)

void ncu_report_limits_default(NcuReportLimits *ret)
{
        *ret = (NcuReportLimits){
                .max_file_size = DEFAULT_MAX_FILE_SIZE,
                .max_header_size = DEFAULT_MAX_HEADER_SIZE,
                .max_entry_size = DEFAULT_MAX_ENTRY_SIZE,
                .max_blocks = 1000000,
                .max_entries = 1000000,
                .max_strings = 10000000,
                .max_memory = (size_t) 8 * 1024 * 1024 * 1024,
        };
}

/* Entries are unpacked into a scratch arena that is reset after each: protobuf-c would otherwise malloc
 * and free every one of the thousands of small messages of a result (most of the load time). */
static void *scratch_alloc(void *data, size_t size)
{
        return arena_alloc_raw(data, size); /* protobuf-c initialises what it unpacks */
}

static void scratch_free(void *data, void *p)
{
}

typedef struct Loader Loader;
static void scratch_prepare(Loader *l, NcuEntryKind kind, size_t size);

typedef struct Loader {
        NcuReport *r;
        const NcuReportLimits *limits;
        NcuReportLoadFlags flags;
        NcuReportError *err;
        size_t n_sources_allocated, n_actions_allocated, n_strings_allocated, n_processes_allocated;
        uint8_t *session; /* the blocks' SessionDetails, concatenated: unpacking them merges them */
        size_t session_size, session_allocated;
        NcuProcess process; /* of the current block */
        bool have_file_header;
        bool out_of_memory; /* an arena copy failed: checked after each header and entry */
        Arena scratch; /* what protobuf-c unpacks, for one header or entry at a time */
        size_t index_scratch; /* bytes finish_actions() sorts names with */
        size_t kept_entries; /* bytes of results' entries a lazy load keeps to decode their metrics later */
        /* Scratch bytes per 16 serialized bytes, the most seen so far, per kind of entry (a SourceData
         * unpacks to other multiples than a result). */
        size_t scratch_ratio[_NCU_ENTRY_KIND_MAX];
        ProtobufCAllocator pb;
} Loader;

NcuReport *ncu_report_free(NcuReport *r)
{
        if (!r)
                return NULL;
        free((void *) r->strings);
        free((void *) r->sources);
        free((void *) r->processes);
        for (size_t i = 0; i < r->n_actions; i++) {
                free(r->actions[i]->metrics_by_name);
                free(r->actions[i]->entry);
                free(r->actions[i]->metrics_error);
        }
        free((void *) r->actions);
        free(r->string_ranks);
        if (r->reread)
                safe_close(r->reread_fd);
        arena_done(&r->arena);
        return mfree(r);
}

static const char *dup_str(Loader *l, const char *s)
{
        const char *c;

        if (!s)
                return NULL;
        c = arena_strdup(&l->r->arena, s);
        if (!c)
                l->out_of_memory = true;
        return c;
}

static int add_block_process(Loader *l)
{
        NcuReport *r = l->r;

        if (GREEDY_REALLOC(r->processes, l->n_processes_allocated, r->n_processes + 1) < 0)
                return -ENOMEM;
        ((NcuProcess *) r->processes)[r->n_processes++] = l->process;
        return 0;
}

static const uint8_t *dup_bytes(Loader *l, const void *p, size_t n)
{
        uint8_t *q;

        if (n == 0)
                return NULL;
        q = arena_alloc(&l->r->arena, n);
        if (!q) {
                l->out_of_memory = true;
                return NULL;
        }
        memcpy(q, p, n);
        return q;
}

static int oom(Loader *l, uint64_t offset)
{
        return ncu_error(l->err, offset, -ENOMEM, "out of memory");
}

static size_t model_memory(const Loader *l)
{
        return l->r->arena.total + l->n_sources_allocated * sizeof(NcuSource) +
                        l->n_actions_allocated * sizeof(NcuAction *) + l->n_strings_allocated * sizeof(char *) +
                        l->kept_entries;
}

static int check_memory(Loader *l, uint64_t offset, size_t record_size)
{
        size_t held;

        if (l->out_of_memory)
                return oom(l, offset);
        l->r->memory = model_memory(l);
        held = l->r->memory - l->r->arena.total + l->r->arena.allocated + l->scratch.allocated + record_size +
                        l->session_allocated;
        l->r->peak_memory = MAX(l->r->peak_memory, held);
        if (l->r->memory > l->limits->max_memory)
                return ncu_error(l->err, offset, -E2BIG, "the model would exceed its limit of %zu bytes",
                                l->limits->max_memory);
        return 0;
}

/* Finds the length-delimited occurrences of field in a serialized message and appends their payload. */
static int append_field_bytes(Loader *l, const uint8_t *p, size_t n, uint32_t field, uint64_t offset)
{
        size_t pos = 0;

        while (pos < n) {
                NcuWireField f;

                if (ncu_wire_next(p, n, &pos, &f) < 0)
                        return ncu_error(l->err, offset + pos, -EBADMSG, "malformed BlockHeader");
                if (f.wire_type != NCU_WIRE_LENGTH || f.number != field || f.size == 0)
                        continue;
                if (f.size > l->limits->max_header_size - MIN(l->limits->max_header_size, l->session_size))
                        return ncu_error(l->err, offset + pos, -E2BIG, "the session details exceed %" PRIu32 " bytes",
                                        l->limits->max_header_size);
                if (GREEDY_REALLOC(l->session, l->session_allocated, l->session_size + f.size) < 0)
                        return oom(l, offset);
                memcpy(l->session + l->session_size, f.data, f.size);
                l->session_size += f.size;
        }
        return 0;
}

static int on_file_header(void *userdata, const uint8_t *data, size_t size, uint64_t offset, NcuReportError *err)
{
        Loader *l = userdata;
        NV__Profiler__Messages__FileHeader *h;

        arena_reset(&l->scratch);
        h = nv__profiler__messages__file_header__unpack(&l->pb, size, data);
        if (!h)
                return ncu_error(err, offset, -EBADMSG, "the FileHeader is not a valid message");
        l->r->version = h->version;
        if (l->r->version != 7)
                return ncu_error(err, offset, -EPROTONOSUPPORT,
                                "report format version %" PRIu32 " is not supported (7 is)", l->r->version);
        l->have_file_header = true;
        return 0;
}

static int on_block_header(void *userdata, size_t block, const NcuBlockCounts *counts, const uint8_t *data, size_t size,
                uint64_t offset, NcuReportError *err)
{
        Loader *l = userdata;
        NcuReport *r = l->r;
        NV__Profiler__Messages__BlockHeader *h;
        int ret;

        arena_reset(&l->scratch);
        h = nv__profiler__messages__block_header__unpack(&l->pb, size, data);
        if (!h)
                return ncu_error(err, offset, -EBADMSG, "block %zu: the BlockHeader is not a valid message", block);

        r->n_blocks = block + 1;
        r->n_profile_results += counts->n[NCU_ENTRY_PROFILE_RESULT];
        r->n_range_results += counts->n[NCU_ENTRY_RANGE_RESULT];
        r->n_cmdlist_results += counts->n[NCU_ENTRY_CMDLIST_RESULT];
        r->n_graph_results += counts->n[NCU_ENTRY_GRAPH_RESULT];

        l->process = (NcuProcess){ 0 };
        if (h->process) {
                l->process.process_id = h->process->processid;
                l->process.hostname = dup_str(l, h->process->hostname);
                l->process.process_name = dup_str(l, h->process->processname);
                if (add_block_process(l) < 0)
                        return oom(l, offset);
        }

        if (h->stringtable && h->stringtable->n_strings > 0) {
                size_t n = h->stringtable->n_strings;

                if (n > l->limits->max_strings - MIN(l->limits->max_strings, r->n_strings))
                        return ncu_error(err, offset, -E2BIG, "block %zu: more than %zu strings in total", block,
                                        l->limits->max_strings);
                if (GREEDY_REALLOC(r->strings, l->n_strings_allocated, r->n_strings + n) < 0)
                        return oom(l, offset);
                for (size_t i = 0; i < n; i++) {
                        const char *s = dup_str(l, h->stringtable->strings[i]);
                        if (!s)
                                return oom(l, offset);
                        ((const char **) r->strings)[r->n_strings++] = s;
                }
                r->n_string_tables++;
        }
        if (h->sessiondetails) {
                ret = append_field_bytes(l, data, size, 3, offset);
                if (ret < 0)
                        return ret;
        }
        return check_memory(l, offset, size);
}

static NcuValue convert_value(Loader *l, const NV__Profiler__Messages__ProfileMetricValue *v, bool *oom_flag)
{
        /* No oneof: when a writer set several fields, the first in field order counts. */
        if (!v)
                return (NcuValue){ 0 };
        if (v->stringvalue) {
                const char *s = dup_str(l, v->stringvalue);
                if (!s)
                        *oom_flag = true;
                return (NcuValue){ .kind = NCU_VALUE_STRING, .s = s };
        }
        if (v->has_floatvalue)
                return (NcuValue){ .kind = NCU_VALUE_FLOAT, .f = v->floatvalue };
        if (v->has_doublevalue)
                return (NcuValue){ .kind = NCU_VALUE_DOUBLE, .d = v->doublevalue };
        if (v->has_uint32value)
                return (NcuValue){ .kind = NCU_VALUE_UINT32, .u32 = v->uint32value };
        if (v->has_uint64value)
                return (NcuValue){ .kind = NCU_VALUE_UINT64, .u64 = v->uint64value };
        return (NcuValue){ 0 };
}

/* Real reports nest a dozen messages deep; the section schema is recursive and protobuf-c unpacks
 * recursively, so a crafted entry could otherwise exhaust the stack. */
#define NESTING_MAX 64

static int check_nesting(Loader *l, const ProtobufCMessageDescriptor *d, const uint8_t *data, size_t size,
                uint64_t offset, size_t block)
{
        int r = ncu_wire_nesting_ok(d, data, size, NESTING_MAX);

        if (r < 0)
                return ncu_error(l->err, offset, r, "block %zu: a %s is not a valid message", block, d->short_name);
        if (r == 0)
                return ncu_error(l->err, offset, -EBADMSG, "block %zu: a %s nests messages more than %d deep", block,
                                d->short_name, NESTING_MAX);
        return 0;
}

/* A result's metrics, between the entry and its action: decoded (an eager load), or not yet, the entry
 * kept as it is (a lazy one). */
typedef struct PendingMetrics {
        bool decoded;
        NcuMetric *metrics;
        size_t n_metrics;
        uint8_t *entry; /* NULL when the report reads the file again */
        size_t entry_size, n_framed;
        uint32_t field;
} PendingMetrics;

static void pending_metrics_done(PendingMetrics *p)
{
        p->entry = mfree(p->entry);
}

static int metrics_error(NcuReportError *err, int r, uint64_t offset, size_t block, const char *what)
{
        if (r == -ENOMEM)
                return ncu_error(err, offset, r, "out of memory");
        return ncu_error(err, offset, r, "block %zu: the metrics of a %s are not valid messages", block, what);
}

/* The metric field of each result message, left to report-metrics.c rather than protobuf-c: decoded now, or
 * (a lazy load) later, from the entry in *owned, which is kept, or else from the file. The rest of the
 * entry is returned (scratch) for protobuf-c. */
static int take_metrics(Loader *l, size_t block, const char *what, const uint8_t *data, size_t size, uint32_t field,
                uint64_t offset, uint8_t **owned, PendingMetrics *ret, const uint8_t **ret_rest, size_t *ret_rest_size)
{
        size_t n;
        int r;

        r = ncu_metrics_split(&l->scratch, data, size, field, &n, ret_rest, ret_rest_size);
        if (r < 0)
                return metrics_error(l->err, r, offset, block, what);
        if (l->flags & NCU_REPORT_LAZY_METRICS) {
                assert(!*owned || *owned == data);
                *ret = (PendingMetrics){ .entry = TAKE_PTR(*owned), .entry_size = size, .n_framed = n, .field = field };
                return 0;
        }
        *ret = (PendingMetrics){ .decoded = true, .n_metrics = n };
        r = ncu_metrics_decode(&l->r->arena, data, size, field, n, &ret->metrics);
        if (r < 0)
                return metrics_error(l->err, r, offset, block, what);
        return 0;
}

static int convert_rule_results(Loader *l, NcuAction *a, size_t n, NV__RuleSystem__RuleResult **in, uint64_t offset)
{
        Arena *arena = &l->r->arena;
        NcuRuleResult *out;

        if (n == 0)
                return 0;
        out = arena_alloc_array(arena, n, sizeof(NcuRuleResult));
        if (!out)
                return oom(l, offset);
        for (size_t i = 0; i < n; i++) {
                const NV__RuleSystem__RuleResult *rr = in[i];
                NcuRuleResult *o = &out[i];
                size_t n_msg = 0, n_focus = 0, n_speedup = 0, n_prop = 0;

                o->identifier = dup_str(l, rr->identifier);
                o->display_name = dup_str(l, rr->displayname);
                o->section_identifier = dup_str(l, rr->sectionidentifier);
                if (rr->body) {
                        size_t packed = nv__rule_system__rule_result_body__get_packed_size(rr->body);
                        uint8_t *b = arena_alloc(arena, MAX(packed, (size_t) 1));
                        NcuRuleMessage *msgs;
                        NcuFocusMetric *focus;
                        NcuSpeedup *speedups;
                        const char **props;

                        if (!b)
                                return oom(l, offset);
                        o->body_size = nv__rule_system__rule_result_body__pack(rr->body, b);
                        o->body = b;
                        for (size_t j = 0; j < rr->body->n_items; j++) {
                                const NV__RuleSystem__RuleResultBodyItem *it = rr->body->items[j];
                                n_msg += !!it->message;
                                n_focus += it->n_focusmetrics;
                                n_speedup += !!it->speedup;
                                n_prop += !!it->proposal;
                        }
                        msgs = arena_alloc_array(arena, MAX(n_msg, (size_t) 1), sizeof(NcuRuleMessage));
                        focus = arena_alloc_array(arena, MAX(n_focus, (size_t) 1), sizeof(NcuFocusMetric));
                        speedups = arena_alloc_array(arena, MAX(n_speedup, (size_t) 1), sizeof(NcuSpeedup));
                        props = arena_alloc_array(arena, MAX(n_prop, (size_t) 1), sizeof(char *));
                        if (!msgs || !focus || !speedups || !props)
                                return oom(l, offset);
                        for (size_t j = 0; j < rr->body->n_items; j++) {
                                const NV__RuleSystem__RuleResultBodyItem *it = rr->body->items[j];

                                if (it->message)
                                        msgs[o->n_messages++] = (NcuRuleMessage){
                                                .text = dup_str(l, it->message->message),
                                                .type = (uint32_t) it->message->type,
                                                .has_id = it->message->has_id,
                                                .id = it->message->id,
                                                .name = dup_str(l, it->message->name),
                                        };
                                for (size_t k = 0; k < it->n_focusmetrics; k++) {
                                        const NV__RuleSystem__RuleResultFocusMetric *f = it->focusmetrics[k];
                                        focus[o->n_focus_metrics++] = (NcuFocusMetric){
                                                .has_message_id = f->has_messageid,
                                                .message_id = f->messageid,
                                                .metric_name = dup_str(l, f->metricname),
                                                .has_value = f->has_metricvalue,
                                                .value = f->metricvalue,
                                                .severity = f->has_severity ? (uint32_t) f->severity : 0,
                                                .info = dup_str(l, f->info),
                                        };
                                }
                                if (it->speedup)
                                        speedups[o->n_speedups++] = (NcuSpeedup){
                                                .type = it->speedup->has_speeduptype
                                                                ? (uint32_t) it->speedup->speeduptype
                                                                : 0,
                                                .has_value = it->speedup->has_value,
                                                .value = it->speedup->value,
                                        };
                                if (it->proposal)
                                        props[o->n_proposals++] = dup_str(l, it->proposal->identifier);
                        }
                        o->messages = msgs;
                        o->focus_metrics = focus;
                        o->speedups = speedups;
                        o->proposals = props;
                }
                if (rr->n_sourcemarkers > 0) {
                        NcuSourceMarker *sm = arena_alloc_array(arena, rr->n_sourcemarkers, sizeof(NcuSourceMarker));
                        if (!sm)
                                return oom(l, offset);
                        for (size_t j = 0; j < rr->n_sourcemarkers; j++) {
                                const NV__RuleSystem__SourceMarker *m = rr->sourcemarkers[j];
                                sm[j] = (NcuSourceMarker){
                                        .kind = m->has_kind ? (uint32_t) m->kind : 0,
                                        .has_line = m->source_location_case ==
                                                        NV__RULE_SYSTEM__SOURCE_MARKER__SOURCE_LOCATION_LINE_NUMBER,
                                        .has_address = m->source_location_case ==
                                                        NV__RULE_SYSTEM__SOURCE_MARKER__SOURCE_LOCATION_ADDRESS,
                                        .tooltip = dup_str(l, m->tooltip),
                                        .type = m->has_type ? (uint32_t) m->type : 0,
                                        .file_name = dup_str(l, m->filename),
                                };
                                if (sm[j].has_line)
                                        sm[j].line = m->linenumber;
                                if (sm[j].has_address)
                                        sm[j].address = m->address;
                        }
                        o->source_markers = sm;
                        o->n_source_markers = rr->n_sourcemarkers;
                }
        }
        a->rule_results = out;
        a->n_rule_results = n;
        return 0;
}

/* Sections are kept as the file has them (unknown fields and all) instead of being unpacked with their
 * entry and packed again: each is checked on its own (nesting, then a full unpack that is freed at once,
 * so only one section is ever unpacked) and copied. The entry without them is returned in *data, *size
 * (scratch), for protobuf-c. */
static int take_sections(Loader *l, uint32_t field, const uint8_t **data, size_t *size, uint64_t offset, size_t block,
                NcuEmbeddedSection **ret, size_t *ret_n)
{
        const uint8_t *p = *data;
        size_t n = 0, i = 0, rest_size = 0, pos;
        NcuEmbeddedSection *out = NULL;
        uint8_t *rest;

        for (pos = 0; pos < *size;) {
                size_t start = pos;
                NcuWireField f;

                if (ncu_wire_next(p, *size, &pos, &f) < 0)
                        return ncu_error(l->err, offset, -EBADMSG, "block %zu: a result is not a valid message", block);
                if (f.number == field && f.wire_type == NCU_WIRE_LENGTH)
                        n++;
                else
                        rest_size += pos - start;
        }
        *ret = NULL;
        *ret_n = 0;
        if (n == 0)
                return 0;
        out = arena_alloc_array(&l->r->arena, n, sizeof(NcuEmbeddedSection));
        rest = arena_alloc_raw(&l->scratch, MAX(rest_size, (size_t) 1));
        if (!out || !rest)
                return oom(l, offset);
        rest_size = 0;
        for (pos = 0; pos < *size;) {
                size_t start = pos;
                NV__Profiler__ProfilerSection *sec;
                NcuWireField f;
                int r;

                (void) ncu_wire_next(p, *size, &pos, &f); /* checked above */
                if (f.number != field || f.wire_type != NCU_WIRE_LENGTH) {
                        memcpy(rest + rest_size, p + start, pos - start);
                        rest_size += pos - start;
                        continue;
                }
                r = check_nesting(l, &nv__profiler__profiler_section__descriptor, f.data, f.size, offset, block);
                if (r < 0)
                        return r;
                sec = nv__profiler__profiler_section__unpack(NULL, f.size, f.data);
                if (!sec)
                        return ncu_error(l->err, offset, -EBADMSG,
                                        "block %zu: an embedded section is not a valid message", block);
                out[i] = (NcuEmbeddedSection){
                        .identifier = dup_str(l, sec->identifier),
                        .display_name = dup_str(l, sec->displayname),
                        .size = f.size,
                        .data = dup_bytes(l, f.data, f.size),
                };
                nv__profiler__profiler_section__free_unpacked(sec, NULL);
                i++;
        }
        *data = rest;
        *size = rest_size;
        *ret = out;
        *ret_n = n;
        return 0;
}

static void convert_nvtx_attributes(Loader *l, NcuNvtxRange *o, const NV__Nvtx__NvtxEventAttributes *at)
{
        if (!at)
                return;
        o->has_attributes = true;
        o->category = at->category;
        if (at->color) {
                o->color_type = (uint32_t) at->color->colortype;
                o->color = at->color->color;
        }
        if (at->payload) {
                const NV__Nvtx__NvtxPayload *p = at->payload;
                o->payload_type = (uint32_t) p->payloadtype;
                if (p->has_ullvalue)
                        o->payload_u64 = p->ullvalue;
                else if (p->has_llvalue)
                        o->payload_u64 = (uint64_t) p->llvalue;
                else if (p->has_uvalue)
                        o->payload_u64 = p->uvalue;
                else if (p->has_ivalue)
                        o->payload_u64 = (uint64_t) (int64_t) p->ivalue;
                if (p->has_doublevalue)
                        o->payload_double = p->doublevalue;
                else if (p->has_fvalue)
                        o->payload_double = p->fvalue;
                o->payload_string = dup_str(l, p->strvalue);
        }
        if (at->message) {
                o->message_type = (uint32_t) at->message->messagetype;
                o->message = dup_str(l, at->message->message);
        }
}

static int nvtx_add_domain(
                Loader *l, NcuNvtxDomain **domains, size_t *n, size_t *allocated, uint64_t id, NcuNvtxDomain **ret)
{
        for (size_t i = 0; i < *n; i++)
                if ((*domains)[i].id == id) {
                        *ret = &(*domains)[i];
                        return 0;
                }
        if (*n >= *allocated) {
                size_t cap = MAX((size_t) 4, *allocated * 2);
                NcuNvtxDomain *d = arena_alloc_array(&l->r->arena, cap, sizeof(NcuNvtxDomain));
                if (!d)
                        return -ENOMEM;
                if (*n > 0)
                        memcpy(d, *domains, *n * sizeof(NcuNvtxDomain));
                *domains = d;
                *allocated = cap;
        }
        (*domains)[*n] = (NcuNvtxDomain){ .id = id };
        *ret = &(*domains)[(*n)++];
        return 0;
}

static int convert_nvtx(Loader *l, NcuAction *a, const NV__Nvtx__NvtxState *s, uint64_t offset)
{
        NcuNvtxState *o;
        NcuNvtxDomain *domains = NULL, *d;
        size_t n = 0, allocated = 0;
        uint32_t *tids;

        if (!s)
                return 0;
        o = arena_alloc(&l->r->arena, sizeof(NcuNvtxState));
        tids = arena_alloc_array(&l->r->arena, MAX(s->n_threads, (size_t) 1), sizeof(uint32_t));
        if (!o || !tids)
                return oom(l, offset);
        o->has_default_domain = s->has_defaultdomain;
        o->default_domain = s->defaultdomain;

        for (size_t i = 0; i < s->n_domains; i++) {
                if (nvtx_add_domain(l, &domains, &n, &allocated, s->domains[i]->id, &d) < 0)
                        return oom(l, offset);
                d->name = dup_str(l, s->domains[i]->name);
        }
        for (size_t t = 0; t < s->n_threads; t++) {
                const NV__Nvtx__NvtxThread *th = s->threads[t];

                tids[t] = th->tid;
                /* The stack that matters for the action is its own thread's. */
                if (th->tid != a->thread_id)
                        continue;
                for (size_t i = 0; i < th->n_pushpopdomains; i++) {
                        const NV__Nvtx__NvtxPushPopDomain *pd = th->pushpopdomains[i];
                        NcuNvtxRange *ranges;

                        if (nvtx_add_domain(l, &domains, &n, &allocated, pd->id, &d) < 0)
                                return oom(l, offset);
                        if (pd->n_stack == 0)
                                continue;
                        ranges = arena_alloc_array(&l->r->arena, d->n_push_pop + pd->n_stack, sizeof(NcuNvtxRange));
                        if (!ranges)
                                return oom(l, offset);
                        if (d->n_push_pop > 0)
                                memcpy(ranges, d->push_pop, d->n_push_pop * sizeof(NcuNvtxRange));
                        for (size_t k = 0; k < pd->n_stack; k++) {
                                NcuNvtxRange *r = &ranges[d->n_push_pop + k];
                                r->name = dup_str(l, pd->stack[k]->name);
                                convert_nvtx_attributes(l, r, pd->stack[k]->attributes);
                        }
                        d->push_pop = ranges;
                        d->n_push_pop += pd->n_stack;
                }
        }
        o->thread_ids = tids;
        o->n_threads = s->n_threads;
        for (size_t i = 0; i < s->n_startenddomains; i++) {
                const NV__Nvtx__NvtxStartEndDomain *sd = s->startenddomains[i];
                NcuNvtxRange *ranges;

                if (nvtx_add_domain(l, &domains, &n, &allocated, sd->id, &d) < 0)
                        return oom(l, offset);
                if (sd->n_ranges == 0)
                        continue;
                ranges = arena_alloc_array(&l->r->arena, d->n_start_end + sd->n_ranges, sizeof(NcuNvtxRange));
                if (!ranges)
                        return oom(l, offset);
                if (d->n_start_end > 0)
                        memcpy(ranges, d->start_end, d->n_start_end * sizeof(NcuNvtxRange));
                for (size_t k = 0; k < sd->n_ranges; k++) {
                        NcuNvtxRange *r = &ranges[d->n_start_end + k];
                        r->name = dup_str(l, sd->ranges[k]->name);
                        r->has_start_end_id = true;
                        r->start_end_id = sd->ranges[k]->id;
                        r->has_start_tid = sd->ranges[k]->has_starttid;
                        r->start_tid = sd->ranges[k]->starttid;
                        convert_nvtx_attributes(l, r, sd->ranges[k]->attributes);
                }
                d->start_end = ranges;
                d->n_start_end += sd->n_ranges;
        }
        o->domains = domains;
        o->n_domains = n;
        a->nvtx = o;
        return 0;
}

static NcuUint3 convert_uint3(const NV__Profiler__Messages__Uint64x3 *u)
{
        return u ? (NcuUint3){ u->x, u->y, u->z } : (NcuUint3){ 0 };
}

/* A new action of the report, holding the metrics and embedded sections its entry carried. */
static int add_action(Loader *l, NcuAction **ret, size_t block, NcuWorkloadType type, uint64_t offset, const char *what,
                PendingMetrics *metrics, NcuEmbeddedSection *sections, size_t n_sections)
{
        NcuReport *r = l->r;
        NcuAction *a;

        if (GREEDY_REALLOC(r->actions, l->n_actions_allocated, r->n_actions + 1) < 0)
                return oom(l, offset);
        a = arena_alloc(&r->arena, sizeof(NcuAction));
        if (!a)
                return oom(l, offset);
        a->index = r->n_actions;
        a->workload_type = type;
        a->offset = offset;
        a->block = block;
        a->process = l->process;
        a->device_index = -1;
        a->metrics_what = what;
        a->metrics = metrics->metrics;
        a->n_metrics = metrics->n_metrics;
        a->metrics_decoded = metrics->decoded;
        a->n_metrics_framed = metrics->n_framed;
        a->metrics_field = metrics->field;
        a->entry_size = metrics->entry_size;
        a->entry = TAKE_PTR(metrics->entry);
        if (a->entry)
                l->kept_entries += a->entry_size;
        a->sections = sections;
        a->n_sections = n_sections;
        ((NcuAction **) r->actions)[r->n_actions++] = a;
        *ret = a;
        return 0;
}

/* The CPU call stack ncu recorded at the launch, innermost frame first. */
static int convert_cpu_stack(
                Loader *l, NcuAction *a, const NV__CpuStacktrace__CpuStacktraceStackMessage *s, uint64_t offset)
{
        NcuCpuFrame *frames;

        if (!s || s->n_frames == 0)
                return 0;
        frames = arena_alloc_array(&l->r->arena, s->n_frames, sizeof(NcuCpuFrame));
        if (!frames)
                return oom(l, offset);
        for (size_t i = 0; i < s->n_frames; i++) {
                const NV__CpuStacktrace__CpuStacktraceStackFrameMessage *f = s->frames[i];
                frames[i] = (NcuCpuFrame){
                        .module_name = dup_str(l, f->modulename),
                        .pc = f->pc,
                        .file_name = dup_str(l, f->filename),
                        .function_name = dup_str(l, f->funcname),
                        .has_line = f->has_line,
                        .line = f->line,
                };
        }
        a->cpu_frames = frames;
        a->n_cpu_frames = s->n_frames;
        return 0;
}

static int add_profile_result(
                Loader *l, size_t block, const uint8_t *data, size_t size, uint64_t offset, uint8_t **owned)
{
        NV__Profiler__Messages__ProfileResult *p;
        const uint8_t *rest = NULL;
        size_t n_sections, rest_size = 0;
        NcuEmbeddedSection *sections;
        _cleanup_(pending_metrics_done) PendingMetrics metrics = { 0 };
        NcuAction *a;
        int r;

        r = take_metrics(l, block, "ProfileResult", data, size, 13, offset, owned, &metrics, &rest, &rest_size);
        if (r < 0)
                return r;
        r = take_sections(l, 17, &rest, &rest_size, offset, block, &sections, &n_sections);
        if (r < 0)
                return r;
        r = check_nesting(l, &nv__profiler__messages__profile_result__descriptor, rest, rest_size, offset, block);
        if (r < 0)
                return r;
        p = nv__profiler__messages__profile_result__unpack(&l->pb, rest_size, rest);
        if (!p)
                return ncu_error(l->err, offset, -EBADMSG, "block %zu: a ProfileResult is not a valid message", block);
        r = add_action(l, &a, block, NCU_WORKLOAD_KERNEL, offset, "ProfileResult", &metrics, sections, n_sections);
        if (r < 0)
                return r;
        a->function_name = dup_str(l, p->kernelfunctionname);
        a->demangled_name = dup_str(l, p->kerneldemangledname);
        a->mangled_name = dup_str(l, p->kernelmangledname);
        a->thread_id = p->threadid;
        a->api_call_id = p->apicallid;
        a->program_handle = p->programhandle;
        a->kernel_id = p->kernelid;
        a->work_dimensions = p->workdimensions;
        a->global_work_offset = convert_uint3(p->globalworkoffset);
        a->grid_size = convert_uint3(p->gridsize);
        a->block_size = convert_uint3(p->blocksize);
        a->comments = dup_str(l, p->comments);
        a->has_creation_time = p->has_creationtime;
        a->creation_time = p->creationtime;
        a->has_api = p->has_api;
        a->api = (uint32_t) p->api;
        a->has_context_id = p->has_contextid;
        a->context_id = p->contextid;
        a->has_stream_id = p->has_streamid;
        a->stream_id = p->streamid;
        a->context_name = dup_str(l, p->contextname);
        a->stream_name = dup_str(l, p->streamname);
        a->has_unsupported_device = p->has_unsupporteddevice;
        a->unsupported_device = p->unsupporteddevice;
        if (p->clockstatus) {
                a->has_clock_status = true;
                a->clock_requested_lock = p->clockstatus->requestedlock;
                a->clock_executed_locked = p->clockstatus->executedlocked;
        }
        if (p->seriesinfo) {
                a->has_series_id = true;
                a->series_id = p->seriesinfo->seriesid;
                a->series_combination = dup_str(l, p->seriesinfo->combinationstr);
        }
        if (p->source && p->source->has_reference) {
                a->has_source_reference = true;
                a->source_reference = p->source->reference;
        }
        r = convert_rule_results(l, a, p->n_ruleresults, p->ruleresults, offset);
        if (r < 0)
                return r;
        r = convert_cpu_stack(l, a, p->cpustack, offset);
        if (r < 0)
                return r;
        return convert_nvtx(l, a, p->nvtx, offset);
}

/* Range, cmdlist and graph results share their first fields; the schema gives each its own message. */
#define FILL_COMMON(a, p)                                                                  \
        do {                                                                               \
                (a)->thread_id = (p)->threadid;                                            \
                (a)->api_call_id = (p)->apicallid;                                         \
                (a)->comments = dup_str(l, (p)->comments);                                 \
                (a)->has_creation_time = (p)->has_creationtime;                            \
                (a)->creation_time = (p)->creationtime;                                    \
                (a)->has_api = (p)->has_api;                                               \
                (a)->api = (uint32_t) (p)->api;                                            \
                (a)->has_unsupported_device = (p)->has_unsupporteddevice;                  \
                (a)->unsupported_device = (p)->unsupporteddevice;                          \
                (a)->has_context_id = (p)->has_contextid;                                  \
                (a)->context_id = (p)->contextid;                                          \
                (a)->context_name = dup_str(l, (p)->contextname);                          \
                if ((p)->clockstatus) {                                                    \
                        (a)->has_clock_status = true;                                      \
                        (a)->clock_requested_lock = (p)->clockstatus->requestedlock;       \
                        (a)->clock_executed_locked = (p)->clockstatus->executedlocked;     \
                }                                                                          \
                (a)->n_references = (p)->n_references;                                     \
                (a)->references = (const uint64_t *) dup_bytes(                            \
                                l, (p)->references, (p)->n_references * sizeof(uint64_t)); \
                if (convert_cpu_stack(l, (a), (p)->cpustack, offset) < 0)                  \
                        return -ENOMEM;                                                    \
        } while (0)

static int add_other_result(Loader *l, size_t block, NcuEntryKind kind, const uint8_t *data, size_t size,
                uint64_t offset, uint8_t **owned)
{
        const char *what = ncu_entry_kind_to_string(kind);
        const uint8_t *rest = NULL;
        size_t n_sections, rest_size = 0;
        NcuEmbeddedSection *sections;
        _cleanup_(pending_metrics_done) PendingMetrics metrics = { 0 };
        NcuAction *a;
        int r;

        /* MetricResults is field 4 of all three, Sections 7. */
        r = take_metrics(l, block, what, data, size, 4, offset, owned, &metrics, &rest, &rest_size);
        if (r < 0)
                return r;
        r = take_sections(l, 7, &rest, &rest_size, offset, block, &sections, &n_sections);
        if (r < 0)
                return r;
        r = check_nesting(l,
                        kind == NCU_ENTRY_RANGE_RESULT ? &nv__profiler__messages__range_result__descriptor
                                        : kind == NCU_ENTRY_CMDLIST_RESULT
                                        ? &nv__profiler__messages__cmdlist_result__descriptor
                                        : &nv__profiler__messages__graph_result__descriptor,
                        rest, rest_size, offset, block);
        if (r < 0)
                return r;
        switch (kind) {
        case NCU_ENTRY_RANGE_RESULT: {
                NV__Profiler__Messages__RangeResult *p =
                                nv__profiler__messages__range_result__unpack(&l->pb, rest_size, rest);
                if (!p)
                        return ncu_error(l->err, offset, -EBADMSG, "block %zu: a RangeResult is not a valid message",
                                        block);
                r = add_action(l, &a, block, NCU_WORKLOAD_RANGE, offset, what, &metrics, sections, n_sections);
                if (r < 0)
                        return r;
                FILL_COMMON(a, p);
                return convert_nvtx(l, a, p->nvtx, offset);
        }
        case NCU_ENTRY_CMDLIST_RESULT: {
                NV__Profiler__Messages__CmdlistResult *p =
                                nv__profiler__messages__cmdlist_result__unpack(&l->pb, rest_size, rest);
                if (!p)
                        return ncu_error(l->err, offset, -EBADMSG, "block %zu: a CmdlistResult is not a valid message",
                                        block);
                r = add_action(l, &a, block, NCU_WORKLOAD_CMDLIST, offset, what, &metrics, sections, n_sections);
                if (r < 0)
                        return r;
                FILL_COMMON(a, p);
                a->has_stream_id = p->has_streamid;
                a->stream_id = p->streamid;
                a->stream_name = dup_str(l, p->streamname);
                a->function_name = a->demangled_name = a->mangled_name = dup_str(l, p->displayname);
                a->work_dimensions = p->workdimensions;
                if (p->n_launchinfos > 0) {
                        a->grid_size = convert_uint3(p->launchinfos[0]->gridsize);
                        a->block_size = convert_uint3(p->launchinfos[0]->blocksize);
                }
                r = convert_rule_results(l, a, p->n_ruleresults, p->ruleresults, offset);
                if (r < 0)
                        return r;
                return convert_nvtx(l, a, p->nvtx, offset);
        }
        case NCU_ENTRY_GRAPH_RESULT: {
                NV__Profiler__Messages__GraphResult *p =
                                nv__profiler__messages__graph_result__unpack(&l->pb, rest_size, rest);
                if (!p)
                        return ncu_error(l->err, offset, -EBADMSG, "block %zu: a GraphResult is not a valid message",
                                        block);
                r = add_action(l, &a, block, NCU_WORKLOAD_GRAPH, offset, what, &metrics, sections, n_sections);
                if (r < 0)
                        return r;
                FILL_COMMON(a, p);
                a->has_stream_id = p->has_streamid;
                a->stream_id = p->streamid;
                a->stream_name = dup_str(l, p->streamname);
                return convert_nvtx(l, a, p->nvtx, offset);
        }
        case NCU_ENTRY_SOURCE:
        case NCU_ENTRY_PROFILE_RESULT:
        case _NCU_ENTRY_KIND_MAX:
                break;
        }
        assert_not_reached();
}

static const NcuRelocationSymbol *convert_symbols(
                Loader *l, size_t n, NV__Profiler__Messages__RelocationSymbolEntry **in)
{
        NcuRelocationSymbol *out;

        if (n == 0)
                return NULL;
        out = arena_alloc_array(&l->r->arena, n, sizeof(NcuRelocationSymbol));
        if (!out)
                return NULL;
        for (size_t i = 0; i < n; i++)
                out[i] = (NcuRelocationSymbol){
                        .symbol_name = dup_str(l, in[i]->symbolname),
                        .has_address = in[i]->has_address,
                        .address = in[i]->address,
                        .has_symbol_index = in[i]->has_symbolindex,
                        .symbol_index = in[i]->symbolindex,
                };
        return out;
}

static int add_source(Loader *l, size_t block, const uint8_t *data, size_t size, uint64_t offset)
{
        NcuReport *r = l->r;
        NV__Profiler__Messages__SourceData *s;
        NcuSource *o;

        if (check_nesting(l, &nv__profiler__messages__source_data__descriptor, data, size, offset, block) < 0)
                return -EBADMSG;
        s = nv__profiler__messages__source_data__unpack(&l->pb, size, data);
        if (!s)
                return ncu_error(l->err, offset, -EBADMSG, "block %zu: a SourceData entry is not a valid message",
                                block);
        if (GREEDY_REALLOC(r->sources, l->n_sources_allocated, r->n_sources + 1) < 0)
                return oom(l, offset);
        o = (NcuSource *) &r->sources[r->n_sources++];
        *o = (NcuSource){
                .has_reference = s->has_reference,
                .reference = s->reference,
                .code = dup_str(l, s->code),
                .has_sass_level = s->has_sasslevel,
                .sass_level = (uint32_t) s->sasslevel,
                .has_sm_revision = s->has_smrevision,
                .sm_revision = s->smrevision,
                .has_binary_flags = s->has_binaryflags,
                .binary_flags = s->binaryflags,
        };
        if (s->has_intermediate) {
                o->intermediate_size = s->intermediate.len;
                o->intermediate = dup_bytes(l, s->intermediate.data, s->intermediate.len);
        }
        if (s->has_binary) {
                o->binary_size = s->binary.len;
                o->binary = dup_bytes(l, s->binary.data, s->binary.len);
        }
        if (s->sourcefiles && s->sourcefiles->n_files > 0) {
                NcuSourceFile *f = arena_alloc_array(&r->arena, s->sourcefiles->n_files, sizeof(NcuSourceFile));
                if (!f)
                        return oom(l, offset);
                for (size_t i = 0; i < s->sourcefiles->n_files; i++)
                        f[i] = (NcuSourceFile){
                                .file_name = dup_str(l, s->sourcefiles->files[i]->filename),
                                .content = dup_str(l, s->sourcefiles->files[i]->content),
                        };
                o->files = f;
                o->n_files = s->sourcefiles->n_files;
        }
        if (s->relocationdata) {
                o->functions = convert_symbols(l, s->relocationdata->n_functions, s->relocationdata->functions);
                o->n_functions = o->functions ? s->relocationdata->n_functions : 0;
                o->objects = convert_symbols(l, s->relocationdata->n_objects, s->relocationdata->objects);
                o->n_objects = o->objects ? s->relocationdata->n_objects : 0;
        }
        return 0;
}

/* Empties the scratch arena and makes its one chunk big enough for an entry of size bytes: growing
 * chunk by chunk while unpacking would hold about twice as much at the peak. */
static void scratch_prepare(Loader *l, NcuEntryKind kind, size_t size)
{
        size_t want;

        arena_reset(&l->scratch);
        if (size_mul_overflow(size, l->scratch_ratio[kind], &want) || want / 16 <= l->scratch.capacity)
                return;
        want /= 16;
        (void) arena_alloc_raw(&l->scratch, want);
        arena_reset(&l->scratch);
}

/* owned: the entry's buffer when a lazy load may keep it (the results' entries), else NULL. */
static int handle_entry(Loader *l, size_t block, NcuEntryKind kind, const uint8_t *data, size_t size, uint64_t offset,
                uint8_t **owned)
{
        bool offered = *owned;
        int r = -EINVAL;

        scratch_prepare(l, kind, size);
        switch (kind) {
        case NCU_ENTRY_SOURCE:
                r = add_source(l, block, data, size, offset);
                break;
        case NCU_ENTRY_PROFILE_RESULT:
                r = add_profile_result(l, block, data, size, offset, owned);
                break;
        case NCU_ENTRY_RANGE_RESULT:
        case NCU_ENTRY_CMDLIST_RESULT:
        case NCU_ENTRY_GRAPH_RESULT:
                r = add_other_result(l, block, kind, data, size, offset, owned);
                break;
        case _NCU_ENTRY_KIND_MAX:
                assert_not_reached();
        }
        if (r < 0)
                return r;
        /* Learn how much an entry unpacks to, so the next one gets one chunk of the right size (not from tiny
         * entries, whose alignment and fixed costs would make every later chunk too large). */
        if (size >= 1024 && l->scratch.total <= SIZE_MAX / 16)
                l->scratch_ratio[kind] = MAX(l->scratch_ratio[kind], l->scratch.total * 16 / size + 1);
        /* An entry an action kept is counted as the model's. */
        return check_memory(l, offset, offered && !*owned ? 0 : size);
}

static int on_entry(void *userdata, size_t block, NcuEntryKind kind, const uint8_t *data, size_t size, uint64_t offset,
                NcuReportError *err)
{
        uint8_t *none = NULL;

        return handle_entry(userdata, block, kind, data, size, offset, &none);
}

/* A lazy load: each entry read into a buffer of its own, which a result's action keeps. */
static int on_entry_take(void *userdata, size_t block, NcuEntryKind kind, uint8_t *data, size_t size, uint64_t offset,
                NcuReportError *err)
{
        _cleanup_free_ uint8_t *owned = data;

        return handle_entry(userdata, block, kind, data, size, offset, &owned);
}

static void convert_system_info(Loader *l, NcuSystemInfo *o, const NV__Profiler__Messages__SystemInfo *s)
{
        const char **ips;

        if (!s)
                return;
        *o = (NcuSystemInfo){
                .present = true,
                .os_name = dup_str(l, s->osname),
                .build = dup_str(l, s->build),
                .processor = dup_str(l, s->processor),
                .architecture = dup_str(l, s->architecture),
                .computer_name = dup_str(l, s->computername),
                .has_platform = s->has_platform,
                .platform = (uint32_t) s->platform,
        };
        if (s->n_ipaddresses == 0)
                return;
        ips = arena_alloc_array(&l->r->arena, s->n_ipaddresses, sizeof(char *));
        if (!ips)
                return;
        for (size_t i = 0; i < s->n_ipaddresses; i++)
                ips[i] = dup_str(l, s->ipaddresses[i]->address);
        o->ip_addresses = ips;
        o->n_ip_addresses = s->n_ipaddresses;
}

static int finish_session(Loader *l)
{
        NcuSessionDetails *o = &l->r->session;
        NV__Profiler__Messages__ReportSessionDetails *s;
        Arena *arena = &l->r->arena;

        if (l->session_size == 0)
                return 0;
        arena_reset(&l->scratch);
        /* Concatenated serializations parse as one message with MergeFrom semantics. */
        s = nv__profiler__messages__report_session_details__unpack(&l->pb, l->session_size, l->session);
        if (!s)
                return ncu_error(l->err, 0, -EBADMSG, "the merged session details are not a valid message");
        o->has_process_id = s->has_processid;
        o->process_id = s->processid;
        o->has_creation_time = s->has_creationtime;
        o->creation_time = s->creationtime;
        convert_system_info(l, &o->host, s->hostsysteminfo);
        convert_system_info(l, &o->target, s->targetsysteminfo);
        if (s->deviceproperties && s->deviceproperties->n_properties > 0) {
                NcuKeyValue *kv = arena_alloc_array(arena, s->deviceproperties->n_properties, sizeof(NcuKeyValue));
                if (kv) {
                        for (size_t i = 0; i < s->deviceproperties->n_properties; i++)
                                kv[i] = (NcuKeyValue){ dup_str(l, s->deviceproperties->properties[i]->key),
                                        dup_str(l, s->deviceproperties->properties[i]->value) };
                        o->device_properties = kv;
                        o->n_device_properties = s->deviceproperties->n_properties;
                }
        }
        if (s->n_deviceattributes > 0) {
                NcuDevice *d = arena_alloc_array(arena, s->n_deviceattributes, sizeof(NcuDevice));
                bool failed = false;
                if (d) {
                        for (size_t i = 0; i < s->n_deviceattributes; i++) {
                                const NV__Profiler__Messages__DeviceAttributes *da = s->deviceattributes[i];
                                NcuDeviceAttribute *attrs = arena_alloc_array(
                                                arena, MAX(da->n_attributes, (size_t) 1), sizeof(NcuDeviceAttribute));
                                d[i] = (NcuDevice){ .id = da->id, .name = dup_str(l, da->name) };
                                if (!attrs)
                                        continue;
                                for (size_t j = 0; j < da->n_attributes; j++)
                                        attrs[j] = (NcuDeviceAttribute){
                                                .name = dup_str(l, da->attributes[j]->name),
                                                .value = convert_value(l, da->attributes[j]->value, &failed),
                                        };
                                d[i].attributes = attrs;
                                d[i].n_attributes = da->n_attributes;
                        }
                        o->devices = d;
                        o->n_devices = s->n_deviceattributes;
                }
        }
        o->comments = dup_str(l, s->comments);
        if (s->n_versioninfo > 0) {
                NcuVersionInfo *v = arena_alloc_array(arena, s->n_versioninfo, sizeof(NcuVersionInfo));
                if (v) {
                        for (size_t i = 0; i < s->n_versioninfo; i++)
                                v[i] = (NcuVersionInfo){ dup_str(l, s->versioninfo[i]->provider),
                                        dup_str(l, s->versioninfo[i]->version) };
                        o->versions = v;
                        o->n_versions = s->n_versioninfo;
                }
        }
        if (s->executablesettings) {
                o->executable_path = dup_str(l, s->executablesettings->executablepath);
                o->work_directory = dup_str(l, s->executablesettings->workdirectory);
                o->cmdline_arguments = dup_str(l, s->executablesettings->cmdlineagruments);
                o->environment = dup_str(l, s->executablesettings->environment);
        }
        if (s->profilersettings) {
                size_t n = nv__profiler__messages__profiler_settings__get_packed_size(s->profilersettings);
                uint8_t *b = arena_alloc(arena, MAX(n, (size_t) 1));
                if (b) {
                        o->profiler_settings_size =
                                        nv__profiler__messages__profiler_settings__pack(s->profilersettings, b);
                        o->profiler_settings = b;
                }
        }
        o->profiler_cmdline = dup_str(l, s->profilercmdline);
        return 0;
}

static int compare_string_index(const void *a, const void *b, void *userdata)
{
        const char *const *strings = userdata;
        uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

        return strcmp(strings[x], strings[y]);
}

/* Sorts keys by their high half, keeping the order of equal ones (LSD radix sort, 8 bits a pass, over the
 * bits a rank below max_rank has): the low half is file order, already ascending. tmp holds n keys. */
static void sort_by_rank(uint64_t *keys, uint64_t *tmp, size_t n, uint32_t max_rank)
{
        for (unsigned shift = 32; shift < 64 && (uint64_t) max_rank >> (shift - 32) > 0; shift += 8) {
                size_t count[257] = { 0 };

                for (size_t j = 0; j < n; j++)
                        count[(keys[j] >> shift & 0xff) + 1]++;
                for (size_t d = 1; d < 257; d++)
                        count[d] += count[d - 1];
                for (size_t j = 0; j < n; j++)
                        tmp[count[keys[j] >> shift & 0xff]++] = keys[j];
                memcpy(keys, tmp, n * sizeof(uint64_t));
        }
}

/* The rank of every string of the table in strcmp() order, equal strings sharing one: metrics are then
 * sorted by name with integer comparisons, instead of a strcmp() per comparison for every action. */
static uint32_t *string_ranks(const NcuReport *r)
{
        _cleanup_free_ uint32_t *order = NULL;
        uint32_t *rank;

        order = reallocarray(NULL, MAX(r->n_strings, (size_t) 1), sizeof(uint32_t));
        rank = reallocarray(NULL, MAX(r->n_strings, (size_t) 1), sizeof(uint32_t));
        if (!order || !rank) {
                free(rank);
                return NULL;
        }
        for (size_t i = 0; i < r->n_strings; i++)
                order[i] = (uint32_t) i;
        qsort_r(order, r->n_strings, sizeof(uint32_t), compare_string_index, (void *) r->strings);
        for (size_t k = 0; k < r->n_strings; k++)
                rank[order[k]] = k > 0 && streq(r->strings[order[k - 1]], r->strings[order[k]]) ? rank[order[k - 1]]
                                                                                                : (uint32_t) k;
        return rank;
}

/* metrics_by_name: the metrics sorted by name, the last (in file order) of each name. keys has room for
 * a->n_metrics, and so has tmp. */
static int index_metrics_by_name(NcuAction *a, const uint32_t *rank, uint32_t max_rank, uint64_t *keys, uint64_t *tmp)
{
        const NcuMetric *metrics = a->metrics;
        size_t u = 0;

        a->metrics_by_name = reallocarray(NULL, a->n_metrics, sizeof(NcuMetric *));
        if (!a->metrics_by_name)
                return -ENOMEM;
        /* Rank, then file order: the last key of a rank is the last metric of that name. */
        for (size_t j = 0; j < a->n_metrics; j++)
                keys[j] = (uint64_t) rank[metrics[j].name_id] << 32 | j;
        sort_by_rank(keys, tmp, a->n_metrics, max_rank);
        for (size_t j = 0; j < a->n_metrics; j++)
                if (j + 1 == a->n_metrics || keys[j] >> 32 != keys[j + 1] >> 32)
                        a->metrics_by_name[u++] = &metrics[keys[j] & UINT32_MAX];
        a->n_unique_metrics = u;
        return 0;
}

/* The value of a metric of the action as a non-negative number; false when it has none (or a string). */
static bool metric_number(const NcuAction *a, const char *name, double *ret)
{
        const NcuMetric *m = ncu_action_metric_by_name(a, name);
        double d;

        if (!m || !m->has_value || !ncu_value_as_double(&m->value, &d) || !(d >= 0))
                return false;
        *ret = d;
        return true;
}

/* The GPU facts ncu_report's metric attributes depend on (NcuAction). */
static void find_gpu_facts(NcuAction *a)
{
        double major, minor;

        if (metric_number(a, "device__attribute_compute_capability_major", &major) &&
                        metric_number(a, "device__attribute_compute_capability_minor", &minor) && major <= UINT16_MAX &&
                        minor <= UINT16_MAX) {
                a->has_compute_capability = true;
                a->compute_capability_major = (uint32_t) major;
                a->compute_capability_minor = (uint32_t) minor;
        }
        a->has_nvlink_max_count = metric_number(a, "nvlink__max_count", &a->nvlink_max_count);
}

/* What an action's metrics need once decoded: names resolved through the string table, the index by name,
 * the device. keys and tmp have room for a->n_metrics each. */
static int finish_metrics(NcuReport *r, NcuAction *a, uint64_t *keys, uint64_t *tmp, NcuReportError *err)
{
        NcuMetric *metrics = (NcuMetric *) a->metrics;
        const NcuMetric *display;

        /* An entry is at most 4 GiB and a metric at least 2 bytes: file order fits the key's low half. */
        if (a->n_metrics > UINT32_MAX)
                return ncu_error(err, a->offset, -E2BIG, "more than %" PRIu32 " metrics in a result", UINT32_MAX);
        for (size_t j = 0; j < a->n_metrics; j++) {
                if (metrics[j].name_id >= r->n_strings)
                        return ncu_error(err, a->offset, -EBADMSG,
                                        "result %zu: metric %zu has NameId %" PRIu32
                                        " outside the string table (%zu strings)",
                                        a->index, j, metrics[j].name_id, r->n_strings);
                metrics[j].name = r->strings[metrics[j].name_id];
        }
        if (a->n_metrics == 0)
                return 0;
        if (!r->string_ranks) {
                r->string_ranks = string_ranks(r);
                if (!r->string_ranks)
                        return ncu_error(err, a->offset, -ENOMEM, "out of memory");
                r->memory += MAX(r->n_strings, (size_t) 1) * sizeof(uint32_t);
        }
        if (index_metrics_by_name(a, r->string_ranks, (uint32_t) r->n_strings, keys, tmp) < 0)
                return ncu_error(err, a->offset, -ENOMEM, "out of memory");

        find_gpu_facts(a);

        display = ncu_action_metric_by_name(a, "device__attribute_display_name");
        if (display && display->value.kind == NCU_VALUE_STRING) {
                a->device_name = display->value.s;
                for (size_t j = 0; j < r->session.n_devices; j++)
                        if (streq_ptr(r->session.devices[j].name, a->device_name)) {
                                a->device_index = (int) j;
                                break;
                        }
        }
        return 0;
}

/* PlatformType (ProfilerReportCommon.proto) Windows = 1. */
static bool session_on_windows(const NcuSessionDetails *s)
{
        const NcuSystemInfo *i = s->target.has_platform ? &s->target : &s->host;
        return i->has_platform && i->platform == 1;
}

static const char *process_base_name(const NcuSessionDetails *s, const char *path)
{
        const char *base = path;
        bool windows = session_on_windows(s);

        if (!path)
                return NULL;
        for (const char *p = path; *p; p++)
                if (*p == '/' || (windows && *p == '\\'))
                        base = p + 1;
        return base;
}

static int finish_actions(Loader *l)
{
        NcuReport *r = l->r;
        _cleanup_free_ uint64_t *keys = NULL, *tmp = NULL;
        size_t max_metrics = 0;
        int k;

        for (size_t i = 0; i < r->n_actions; i++)
                max_metrics = MAX(max_metrics, r->actions[i]->n_metrics);
        keys = reallocarray(NULL, MAX(max_metrics, (size_t) 1), sizeof(uint64_t));
        tmp = reallocarray(NULL, MAX(max_metrics, (size_t) 1), sizeof(uint64_t));
        if (!keys || !tmp)
                return oom(l, 0);
        l->index_scratch = 2 * MAX(max_metrics, (size_t) 1) * sizeof(uint64_t);

        for (size_t i = 0; i < r->n_processes; i++)
                ((NcuProcess *) r->processes)[i].base_name =
                                process_base_name(&r->session, r->processes[i].process_name);
        for (size_t i = 0; i < r->n_actions; i++) {
                NcuAction *a = r->actions[i];

                a->process.base_name = process_base_name(&r->session, a->process.process_name);
                if (a->has_source_reference)
                        for (size_t j = 0; j < r->n_sources; j++)
                                if (r->sources[j].has_reference && r->sources[j].reference == a->source_reference) {
                                        a->source = &r->sources[j];
                                        break;
                                }
                if (!a->metrics_decoded)
                        continue;
                k = finish_metrics(r, a, keys, tmp, l->err);
                if (k < 0)
                        return k;
                r->memory += a->n_metrics * sizeof(NcuMetric *);
        }

        {
                NcuRange *range = arena_alloc(&r->arena, sizeof(NcuRange));
                if (!range)
                        return oom(l, 0);
                range->n_actions = r->n_actions;
                range->actions = r->actions;
                r->ranges = range;
                r->n_ranges = 1;
        }
        return 0;
}

static int file_identity(int fd, NcuFileIdentity *ret)
{
        struct stat st;

        if (fstat(fd, &st) < 0)
                return -errno;
        *ret = (NcuFileIdentity){
                .dev = st.st_dev,
                .ino = st.st_ino,
                .size = (uint64_t) st.st_size,
                .mtime_sec = st.st_mtim.tv_sec,
                .mtime_nsec = st.st_mtim.tv_nsec,
        };
        return 0;
}

static bool file_unchanged(const NcuReport *r)
{
        NcuFileIdentity now;

        return file_identity(r->reread_fd, &now) >= 0 && memcmp(&now, &r->reread_identity, sizeof(now)) == 0;
}

/* An action's entry read again from the report's file, which must not have changed since the load (it is
 * checked before and after the read): the load checked its framing, not its metrics, and no other bytes
 * may stand in for them. */
static int reread_entry(const NcuReport *r, const NcuAction *a, uint8_t **ret, NcuReportError *err)
{
        _cleanup_free_ uint8_t *buf = NULL;
        size_t done = 0;

        buf = malloc(MAX(a->entry_size, (size_t) 1));
        if (!buf)
                return ncu_error(err, a->offset, -ENOMEM, "out of memory");
        if (!file_unchanged(r))
                return ncu_error(err, a->offset, -ESTALE, "the report file changed since it was loaded");
        while (done < a->entry_size) {
                ssize_t k = pread(r->reread_fd, buf + done, a->entry_size - done,
                                (off_t) (r->reread_base + a->offset + done));
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return ncu_error(err, a->offset, -errno, "cannot read the report");
                if (k == 0)
                        return ncu_error(err, a->offset, -ESTALE, "the report file changed since it was loaded");
                done += (size_t) k;
        }
        if (!file_unchanged(r))
                return ncu_error(err, a->offset, -ESTALE, "the report file changed since it was loaded");
        *ret = TAKE_PTR(buf);
        return 0;
}

static const NcuContainerCallbacks loader_callbacks = {
        .file_header = on_file_header,
        .block_header = on_block_header,
        .entry = on_entry,
};

static const NcuContainerCallbacks lazy_loader_callbacks = {
        .file_header = on_file_header,
        .block_header = on_block_header,
        .entry_take = on_entry_take,
};

static int load(NcuInput *in, const NcuReportLimits *limits, NcuReportLoadFlags flags, NcuReport **ret,
                NcuReportError *err)
{
        _cleanup_(ncu_report_freep) NcuReport *r = NULL;
        Loader l = { .limits = limits, .flags = flags, .err = err };
        size_t arena_total;
        int k;

        r = calloc(1, sizeof(NcuReport));
        if (!r)
                return ncu_error(err, 0, -ENOMEM, "out of memory");
        arena_init(&r->arena);
        /* Chunks of at most 64 KiB: a doubling arena may hold twice what a report needs. For a file of known
         * size, at most 1/32 of it: the last chunk's unused tail is then small next to the file. */
        r->arena.chunk_max = 64 * 1024;
        if (in->known_size > 0)
                r->arena.chunk_max = (size_t) MAX(MIN(in->known_size / 32, (uint64_t) r->arena.chunk_max), 4096);
        l.r = r;
        arena_init(&l.scratch);
        for (size_t kind = 0; kind < _NCU_ENTRY_KIND_MAX; kind++)
                l.scratch_ratio[kind] = 16;
        l.pb = (ProtobufCAllocator){ .alloc = scratch_alloc, .free = scratch_free, .allocator_data = &l.scratch };

        r->reread_fd = -EBADF;
        if (flags & NCU_REPORT_LAZY_METRICS && in->fd >= 0 && in->file_base >= 0) {
                r->reread_fd = fcntl(in->fd, F_DUPFD_CLOEXEC, 3);
                if (r->reread_fd < 0)
                        return ncu_error(err, 0, -errno, "cannot duplicate the report's descriptor");
                if (file_identity(r->reread_fd, &r->reread_identity) < 0)
                        return ncu_error(err, 0, -errno, "cannot stat the report");
                r->reread = true;
                r->reread_base = (uint64_t) in->file_base;
        }
        /* A lazy load keeps each result's entry, unless it can read it again from the file. */
        k = ncu_container_read(in, limits,
                        flags & NCU_REPORT_LAZY_METRICS && !r->reread ? &lazy_loader_callbacks : &loader_callbacks, &l,
                        err);
        if (k >= 0 && !l.have_file_header)
                k = ncu_error(err, 0, -EBADMSG, "no FileHeader");
        if (k >= 0)
                k = finish_session(&l);
        if (k >= 0 && l.out_of_memory)
                k = oom(&l, in->offset);
        free(l.session);
        arena_done(&l.scratch);
        if (k < 0)
                return k;
        arena_total = r->arena.total;
        r->memory = model_memory(&l);
        k = finish_actions(&l); /* adds the indexes it builds to r->memory */
        if (k < 0)
                return k;
        r->memory += r->arena.total - arena_total;
        r->max_memory = limits->max_memory;
        r->compressed = in->compressed;
        r->size = in->offset;
        /* The indexes by name are built last, beside the whole model. */
        r->peak_memory = MAX(r->peak_memory, r->memory - r->arena.total + r->arena.allocated + l.index_scratch);
        *ret = TAKE_PTR(r);
        return 0;
}

static void init_error(NcuReportError *err)
{
        if (err)
                *err = (NcuReportError){ 0 };
}

int ncu_report_load_fd_flags(int fd, const NcuReportLimits *limits, NcuReportLoadFlags flags, NcuReport **ret,
                NcuReportError *ret_error)
{
        NcuReportLimits defaults;
        _cleanup_(ncu_input_done) NcuInput in = { .fd = -EBADF };
        int r;

        assert(fd >= 0 && ret);
        init_error(ret_error);
        if (!limits) {
                /* An in-process reader: the limits the daemon's workers have (report-limits.h). */
                ncu_report_limits_for_memory(
                                ncu_report_memory_for_fd(fd, NCU_REPORT_MEMORY_CEILING_DEFAULT), &defaults);
                limits = &defaults;
        }
        r = ncu_input_init_fd(&in, fd, limits->max_file_size, ret_error);
        if (r < 0)
                return r;
        return load(&in, limits, flags, ret, ret_error);
}

int ncu_report_load_fd(int fd, const NcuReportLimits *limits, NcuReport **ret, NcuReportError *ret_error)
{
        return ncu_report_load_fd_flags(fd, limits, 0, ret, ret_error);
}

int ncu_report_load_buffer_flags(const void *data, size_t size, const NcuReportLimits *limits, NcuReportLoadFlags flags,
                NcuReport **ret, NcuReportError *ret_error)
{
        NcuReportLimits defaults;
        _cleanup_(ncu_input_done) NcuInput in = { .fd = -EBADF };
        int r;

        assert(data || size == 0);
        assert(ret);
        init_error(ret_error);
        if (!limits) {
                ncu_report_limits_for_memory(ncu_report_memory_for_file(size, ncu_is_zstd_frame(data, size),
                                                             NCU_REPORT_MEMORY_CEILING_DEFAULT),
                                &defaults);
                limits = &defaults;
        }
        r = ncu_input_init_buffer_maybe_compressed(&in, data ? data : "", size, limits->max_file_size, ret_error);
        if (r < 0)
                return r;
        return load(&in, limits, flags, ret, ret_error);
}

int ncu_report_load_buffer(const void *data, size_t size, const NcuReportLimits *limits, NcuReport **ret,
                NcuReportError *ret_error)
{
        return ncu_report_load_buffer_flags(data, size, limits, 0, ret, ret_error);
}

/* Undoes a failed decode, keeping its error for the next call. */
static int decode_failed(NcuReport *r, NcuAction *a, const NcuReportError *err, int k)
{
        if (a->metrics_by_name)
                r->memory -= a->n_metrics * sizeof(NcuMetric *);
        a->metrics = NULL;
        a->n_metrics = 0;
        a->metrics_by_name = mfree(a->metrics_by_name);
        a->n_unique_metrics = 0;
        a->device_name = NULL;
        a->device_index = -1;
        a->metrics_errno = k;
        a->metrics_error = malloc(sizeof(NcuReportError)); /* without it, the next call says ENOMEM */
        if (a->metrics_error)
                *a->metrics_error = *err;
        return k;
}

int ncu_action_decode_metrics(NcuReport *r, NcuAction *a, NcuReportError *ret_error)
{
        NcuReportError unused;
        _cleanup_free_ uint64_t *keys = NULL, *tmp = NULL;
        _cleanup_free_ uint8_t *reread = NULL;
        const uint8_t *entry;
        size_t arena_total, entry_size;
        NcuMetric *metrics;
        int k;

        assert(r && a);
        if (!ret_error)
                ret_error = &unused;
        if (a->metrics_decoded)
                return 0;
        if (a->metrics_error) {
                *ret_error = *a->metrics_error;
                return a->metrics_errno;
        }
        if (!a->entry && !r->reread) /* a failed decode whose error was lost */
                return ncu_error(ret_error, a->offset, -ENOMEM, "out of memory");
        entry = a->entry;
        if (!entry) {
                k = reread_entry(r, a, &reread, ret_error);
                if (k < 0)
                        return decode_failed(r, a, ret_error, k);
                entry = reread;
        }

        arena_total = r->arena.total;
        entry_size = a->entry ? a->entry_size : 0; /* what r->memory counts */
        k = ncu_metrics_decode(&r->arena, entry, a->entry_size, a->metrics_field, a->n_metrics_framed, &metrics);
        if (k < 0)
                k = metrics_error(ret_error, k, a->offset, a->block, a->metrics_what);
        else {
                a->metrics = metrics;
                a->n_metrics = a->n_metrics_framed;
                keys = reallocarray(NULL, MAX(a->n_metrics, (size_t) 1), sizeof(uint64_t));
                tmp = reallocarray(NULL, MAX(a->n_metrics, (size_t) 1), sizeof(uint64_t));
                k = keys && tmp ? finish_metrics(r, a, keys, tmp, ret_error)
                                : ncu_error(ret_error, a->offset, -ENOMEM, "out of memory");
        }
        /* What the decode took from the arena stays there, even when it failed. */
        r->memory += r->arena.total - arena_total;
        if (a->metrics_by_name)
                r->memory += a->n_metrics * sizeof(NcuMetric *);
        r->peak_memory = MAX(r->peak_memory,
                        r->memory - r->arena.total + r->arena.allocated +
                                        2 * MAX(a->n_metrics, (size_t) 1) * sizeof(uint64_t) +
                                        (reread ? a->entry_size : 0));
        a->entry = mfree(a->entry);
        a->entry_size = 0;
        r->memory -= entry_size;
        if (k >= 0 && r->memory > r->max_memory)
                k = ncu_error(ret_error, a->offset, -E2BIG, "the model would exceed its limit of %zu bytes",
                                r->max_memory);
        if (k < 0)
                return decode_failed(r, a, ret_error, k);
        a->metrics_decoded = true;
        return 0;
}

int ncu_report_decode_metrics(NcuReport *r, NcuReportError *ret_error)
{
        assert(r);
        for (size_t i = 0; i < r->n_actions; i++) {
                int k = ncu_action_decode_metrics(r, r->actions[i], ret_error);
                if (k < 0)
                        return k;
        }
        return 0;
}

const NcuAction *ncu_report_action(const NcuReport *r, size_t range, size_t action)
{
        assert(r);
        if (range >= r->n_ranges || action >= r->ranges[range].n_actions)
                return NULL;
        return r->ranges[range].actions[action];
}

const char *ncu_action_name(const NcuAction *a, NcuNameBase base)
{
        assert(a);
        switch (base) {
        case NCU_NAME_FUNCTION:
                return a->function_name;
        case NCU_NAME_DEMANGLED:
                return isempty(a->demangled_name) ? a->function_name : a->demangled_name;
        case NCU_NAME_MANGLED:
                return a->mangled_name;
        case _NCU_NAME_BASE_MAX:
                break;
        }
        assert_not_reached();
}

const NcuMetric *ncu_action_metric_by_name(const NcuAction *a, const char *name)
{
        size_t lo = 0, hi;

        assert(a && name);
        hi = a->n_unique_metrics;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                int c = strcmp(a->metrics_by_name[mid]->name, name);
                if (c == 0)
                        return a->metrics_by_name[mid];
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}

int ncu_action_loaded_functions(const NcuReport *r, const NcuAction *a, const NcuRelocationSymbol ***ret)
{
        const NcuRelocationSymbol **out;
        size_t n = 0;

        assert(r && a && ret);
        for (size_t i = 0; a->has_source_reference && i < r->n_sources; i++)
                if (r->sources[i].has_reference && r->sources[i].reference == a->source_reference)
                        n += r->sources[i].n_functions;
        out = reallocarray(NULL, MAX(n, (size_t) 1), sizeof(NcuRelocationSymbol *));
        if (!out)
                return -ENOMEM;
        n = 0;
        for (size_t i = 0; a->has_source_reference && i < r->n_sources; i++)
                if (r->sources[i].has_reference && r->sources[i].reference == a->source_reference)
                        for (size_t j = 0; j < r->sources[i].n_functions; j++)
                                out[n++] = &r->sources[i].functions[j];
        *ret = out;
        return (int) MIN(n, (size_t) INT_MAX);
}

const NcuDevice *ncu_action_device(const NcuReport *r, const NcuAction *a)
{
        assert(r && a);
        if (a->device_index < 0 || (size_t) a->device_index >= r->session.n_devices)
                return NULL;
        return &r->session.devices[a->device_index];
}
