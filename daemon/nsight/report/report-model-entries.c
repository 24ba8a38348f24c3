/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The entries of a report into its model (report-model-loader.h): each result with its metrics (decoded
 * now or kept for later, report-metrics.c), rule results, embedded sections, NVTX state and CPU stack, the
 * other results (ranges, command lists, graphs) and the sources with their relocations. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "ProfilerReport.pb-c.h"
#include "report-limits.h"
#include "report-metrics.h"
#include "report-model-loader.h"
#include "string-util.h"

NcuValue ncu_loader_convert_value(Loader *l, const NV__Profiler__Messages__ProfileMetricValue *v, bool *oom_flag)
{
        /* No oneof: when a writer set several fields, the first in field order counts. */
        if (!v)
                return (NcuValue){ 0 };
        if (v->stringvalue) {
                const char *s = ncu_loader_dup_str(l, v->stringvalue);
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

int ncu_loader_metrics_error(NcuReportError *err, int r, uint64_t offset, size_t block, const char *what)
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
                return ncu_loader_metrics_error(l->err, r, offset, block, what);
        if (l->flags & NCU_REPORT_LAZY_METRICS) {
                assert(!*owned || *owned == data);
                /* With the metrics the container left in the file (on_aside()): the entry is read again whole. */
                *ret = (PendingMetrics){ .entry = TAKE_PTR(*owned),
                        .entry_size = size + l->aside_bytes,
                        .n_framed = n + l->aside_metrics,
                        .field = field };
                l->aside_metrics = l->aside_bytes = 0;
                return 0;
        }
        *ret = (PendingMetrics){ .decoded = true, .n_metrics = n };
        r = ncu_metrics_decode(&l->r->arena, data, size, field, n, &ret->metrics);
        if (r < 0)
                return ncu_loader_metrics_error(l->err, r, offset, block, what);
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
                return ncu_loader_oom(l, offset);
        for (size_t i = 0; i < n; i++) {
                const NV__RuleSystem__RuleResult *rr = in[i];
                NcuRuleResult *o = &out[i];
                size_t n_msg = 0, n_focus = 0, n_speedup = 0, n_prop = 0;

                o->identifier = ncu_loader_dup_str(l, rr->identifier);
                o->display_name = ncu_loader_dup_str(l, rr->displayname);
                o->section_identifier = ncu_loader_dup_str(l, rr->sectionidentifier);
                if (rr->body) {
                        size_t packed = nv__rule_system__rule_result_body__get_packed_size(rr->body);
                        uint8_t *b = arena_alloc(arena, MAX(packed, (size_t) 1));
                        NcuRuleMessage *msgs;
                        NcuFocusMetric *focus;
                        NcuSpeedup *speedups;
                        const char **props;

                        if (!b)
                                return ncu_loader_oom(l, offset);
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
                                return ncu_loader_oom(l, offset);
                        for (size_t j = 0; j < rr->body->n_items; j++) {
                                const NV__RuleSystem__RuleResultBodyItem *it = rr->body->items[j];

                                if (it->message)
                                        msgs[o->n_messages++] = (NcuRuleMessage){
                                                .text = ncu_loader_dup_str(l, it->message->message),
                                                .type = (uint32_t) it->message->type,
                                                .has_id = it->message->has_id,
                                                .id = it->message->id,
                                                .name = ncu_loader_dup_str(l, it->message->name),
                                        };
                                for (size_t k = 0; k < it->n_focusmetrics; k++) {
                                        const NV__RuleSystem__RuleResultFocusMetric *f = it->focusmetrics[k];
                                        focus[o->n_focus_metrics++] = (NcuFocusMetric){
                                                .has_message_id = f->has_messageid,
                                                .message_id = f->messageid,
                                                .metric_name = ncu_loader_dup_str(l, f->metricname),
                                                .has_value = f->has_metricvalue,
                                                .value = f->metricvalue,
                                                .severity = f->has_severity ? (uint32_t) f->severity : 0,
                                                .info = ncu_loader_dup_str(l, f->info),
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
                                        props[o->n_proposals++] = ncu_loader_dup_str(l, it->proposal->identifier);
                        }
                        o->messages = msgs;
                        o->focus_metrics = focus;
                        o->speedups = speedups;
                        o->proposals = props;
                }
                if (rr->n_sourcemarkers > 0) {
                        NcuSourceMarker *sm = arena_alloc_array(arena, rr->n_sourcemarkers, sizeof(NcuSourceMarker));
                        if (!sm)
                                return ncu_loader_oom(l, offset);
                        for (size_t j = 0; j < rr->n_sourcemarkers; j++) {
                                const NV__RuleSystem__SourceMarker *m = rr->sourcemarkers[j];
                                sm[j] = (NcuSourceMarker){
                                        .kind = m->has_kind ? (uint32_t) m->kind : 0,
                                        .has_line = m->source_location_case ==
                                                        NV__RULE_SYSTEM__SOURCE_MARKER__SOURCE_LOCATION_LINE_NUMBER,
                                        .has_address = m->source_location_case ==
                                                        NV__RULE_SYSTEM__SOURCE_MARKER__SOURCE_LOCATION_ADDRESS,
                                        .tooltip = ncu_loader_dup_str(l, m->tooltip),
                                        .type = m->has_type ? (uint32_t) m->type : 0,
                                        .file_name = ncu_loader_dup_str(l, m->filename),
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
                return ncu_loader_oom(l, offset);
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
                        .identifier = ncu_loader_dup_str(l, sec->identifier),
                        .display_name = ncu_loader_dup_str(l, sec->displayname),
                        .size = f.size,
                        .data = ncu_loader_dup_bytes(l, f.data, f.size),
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
                o->payload_string = ncu_loader_dup_str(l, p->strvalue);
        }
        if (at->message) {
                o->message_type = (uint32_t) at->message->messagetype;
                o->message = ncu_loader_dup_str(l, at->message->message);
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
                return ncu_loader_oom(l, offset);
        o->has_default_domain = s->has_defaultdomain;
        o->default_domain = s->defaultdomain;

        for (size_t i = 0; i < s->n_domains; i++) {
                if (nvtx_add_domain(l, &domains, &n, &allocated, s->domains[i]->id, &d) < 0)
                        return ncu_loader_oom(l, offset);
                d->name = ncu_loader_dup_str(l, s->domains[i]->name);
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
                                return ncu_loader_oom(l, offset);
                        if (pd->n_stack == 0)
                                continue;
                        ranges = arena_alloc_array(&l->r->arena, d->n_push_pop + pd->n_stack, sizeof(NcuNvtxRange));
                        if (!ranges)
                                return ncu_loader_oom(l, offset);
                        if (d->n_push_pop > 0)
                                memcpy(ranges, d->push_pop, d->n_push_pop * sizeof(NcuNvtxRange));
                        for (size_t k = 0; k < pd->n_stack; k++) {
                                NcuNvtxRange *r = &ranges[d->n_push_pop + k];
                                r->name = ncu_loader_dup_str(l, pd->stack[k]->name);
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
                        return ncu_loader_oom(l, offset);
                if (sd->n_ranges == 0)
                        continue;
                ranges = arena_alloc_array(&l->r->arena, d->n_start_end + sd->n_ranges, sizeof(NcuNvtxRange));
                if (!ranges)
                        return ncu_loader_oom(l, offset);
                if (d->n_start_end > 0)
                        memcpy(ranges, d->start_end, d->n_start_end * sizeof(NcuNvtxRange));
                for (size_t k = 0; k < sd->n_ranges; k++) {
                        NcuNvtxRange *r = &ranges[d->n_start_end + k];
                        r->name = ncu_loader_dup_str(l, sd->ranges[k]->name);
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
                return ncu_loader_oom(l, offset);
        a = arena_alloc(&r->arena, sizeof(NcuAction));
        if (!a)
                return ncu_loader_oom(l, offset);
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
                return ncu_loader_oom(l, offset);
        for (size_t i = 0; i < s->n_frames; i++) {
                const NV__CpuStacktrace__CpuStacktraceStackFrameMessage *f = s->frames[i];
                frames[i] = (NcuCpuFrame){
                        .module_name = ncu_loader_dup_str(l, f->modulename),
                        .pc = f->pc,
                        .file_name = ncu_loader_dup_str(l, f->filename),
                        .function_name = ncu_loader_dup_str(l, f->funcname),
                        .has_line = f->has_line,
                        .line = f->line,
                };
        }
        a->cpu_frames = frames;
        a->n_cpu_frames = s->n_frames;
        return 0;
}

int ncu_loader_add_profile_result(
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
        a->function_name = ncu_loader_dup_str(l, p->kernelfunctionname);
        a->demangled_name = ncu_loader_dup_str(l, p->kerneldemangledname);
        a->mangled_name = ncu_loader_dup_str(l, p->kernelmangledname);
        a->thread_id = p->threadid;
        a->api_call_id = p->apicallid;
        a->program_handle = p->programhandle;
        a->kernel_id = p->kernelid;
        a->work_dimensions = p->workdimensions;
        a->global_work_offset = convert_uint3(p->globalworkoffset);
        a->grid_size = convert_uint3(p->gridsize);
        a->block_size = convert_uint3(p->blocksize);
        a->comments = ncu_loader_dup_str(l, p->comments);
        a->has_creation_time = p->has_creationtime;
        a->creation_time = p->creationtime;
        a->has_api = p->has_api;
        a->api = (uint32_t) p->api;
        a->has_context_id = p->has_contextid;
        a->context_id = p->contextid;
        a->has_stream_id = p->has_streamid;
        a->stream_id = p->streamid;
        a->context_name = ncu_loader_dup_str(l, p->contextname);
        a->stream_name = ncu_loader_dup_str(l, p->streamname);
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
                a->series_combination = ncu_loader_dup_str(l, p->seriesinfo->combinationstr);
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
                (a)->comments = ncu_loader_dup_str(l, (p)->comments);                      \
                (a)->has_creation_time = (p)->has_creationtime;                            \
                (a)->creation_time = (p)->creationtime;                                    \
                (a)->has_api = (p)->has_api;                                               \
                (a)->api = (uint32_t) (p)->api;                                            \
                (a)->has_unsupported_device = (p)->has_unsupporteddevice;                  \
                (a)->unsupported_device = (p)->unsupporteddevice;                          \
                (a)->has_context_id = (p)->has_contextid;                                  \
                (a)->context_id = (p)->contextid;                                          \
                (a)->context_name = ncu_loader_dup_str(l, (p)->contextname);               \
                if ((p)->clockstatus) {                                                    \
                        (a)->has_clock_status = true;                                      \
                        (a)->clock_requested_lock = (p)->clockstatus->requestedlock;       \
                        (a)->clock_executed_locked = (p)->clockstatus->executedlocked;     \
                }                                                                          \
                (a)->n_references = (p)->n_references;                                     \
                (a)->references = (const uint64_t *) ncu_loader_dup_bytes(                 \
                                l, (p)->references, (p)->n_references * sizeof(uint64_t)); \
                if (convert_cpu_stack(l, (a), (p)->cpustack, offset) < 0)                  \
                        return -ENOMEM;                                                    \
        } while (0)

int ncu_loader_add_other_result(Loader *l, size_t block, NcuEntryKind kind, const uint8_t *data, size_t size,
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
                a->stream_name = ncu_loader_dup_str(l, p->streamname);
                a->function_name = a->demangled_name = a->mangled_name = ncu_loader_dup_str(l, p->displayname);
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
                a->stream_name = ncu_loader_dup_str(l, p->streamname);
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
                        .symbol_name = ncu_loader_dup_str(l, in[i]->symbolname),
                        .has_address = in[i]->has_address,
                        .address = in[i]->address,
                        .has_symbol_index = in[i]->has_symbolindex,
                        .symbol_index = in[i]->symbolindex,
                };
        return out;
}

int ncu_source_files_convert(
                Arena *arena, const NV__Profiler__Messages__SourceFiles *in, const NcuSourceFile **ret, size_t *ret_n)
{
        NcuSourceFile *f;

        if (in->n_files == 0)
                return 0;
        f = arena_alloc_array(arena, in->n_files, sizeof(NcuSourceFile));
        if (!f)
                return -ENOMEM;
        for (size_t i = 0; i < in->n_files; i++) {
                f[i] = (NcuSourceFile){
                        .file_name = in->files[i]->filename ? arena_strdup(arena, in->files[i]->filename) : NULL,
                        .content = in->files[i]->content ? arena_strdup(arena, in->files[i]->content) : NULL,
                };
                if ((in->files[i]->filename && !f[i].file_name) || (in->files[i]->content && !f[i].content))
                        return -ENOMEM;
        }
        *ret = f;
        *ret_n = in->n_files;
        return 0;
}

int ncu_loader_add_source(Loader *l, size_t block, const uint8_t *data, size_t size, uint64_t offset)
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
                return ncu_loader_oom(l, offset);
        o = (NcuSource *) &r->sources[r->n_sources++];
        *o = (NcuSource){
                .has_reference = s->has_reference,
                .reference = s->reference,
                .code = ncu_loader_dup_str(l, s->code),
                .has_sass_level = s->has_sasslevel,
                .sass_level = (uint32_t) s->sasslevel,
                .has_sm_revision = s->has_smrevision,
                .sm_revision = s->smrevision,
                .has_binary_flags = s->has_binaryflags,
                .binary_flags = s->binaryflags,
        };
        if (s->has_intermediate) {
                o->intermediate_size = s->intermediate.len;
                o->intermediate = ncu_loader_dup_bytes(l, s->intermediate.data, s->intermediate.len);
        }
        if (s->has_binary) { /* after the one set aside (a later occurrence wins) */
                _cleanup_free_ uint8_t *copy = s->binary.len > 0 ? malloc(s->binary.len) : NULL;

                if (s->binary.len > 0 && !copy)
                        return ncu_loader_oom(l, offset);
                if (copy)
                        memcpy(copy, s->binary.data, s->binary.len);
                free(l->binary_data);
                l->binary_data = TAKE_PTR(copy);
                l->binary_size = s->binary.len;
                l->binary_offset = 0;
                l->have_binary = true;
        }
        if (l->have_binary) {
                o->binary_size = l->binary_size;
                o->binary_offset = l->binary_offset;
                o->binary = TAKE_PTR(l->binary_data);
                l->kept_binaries += o->binary ? o->binary_size : 0;
                l->have_binary = false;
        }
        if (s->sourcefiles && ncu_source_files_convert(&r->arena, s->sourcefiles, &o->files, &o->n_files) < 0)
                return ncu_loader_oom(l, offset);
        if (l->n_files_parts > 0) { /* left in the file (a lazy load): ncu_source_files() */
                o->files_parts = (const NcuByteRange *) ncu_loader_dup_bytes(
                                l, l->files_parts, l->n_files_parts * sizeof(NcuByteRange));
                o->n_files_parts = l->n_files_parts;
                l->n_files_parts = 0;
        }
        if (s->relocationdata) {
                o->functions = convert_symbols(l, s->relocationdata->n_functions, s->relocationdata->functions);
                o->n_functions = o->functions ? s->relocationdata->n_functions : 0;
                o->objects = convert_symbols(l, s->relocationdata->n_objects, s->relocationdata->objects);
                o->n_objects = o->objects ? s->relocationdata->n_objects : 0;
        }
        return 0;
}
