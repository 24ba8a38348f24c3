/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report-builder.h"

void report_buffer_append(ReportBuffer *b, const void *p, size_t n)
{
        if (GREEDY_REALLOC(b->data, b->allocated, b->size + n + 1) < 0)
                abort();
        if (n > 0)
                memcpy(b->data + b->size, p, n);
        b->size += n;
}

void report_buffer_append_u32(ReportBuffer *b, uint32_t v)
{
        const uint8_t le[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24 };
        report_buffer_append(b, le, sizeof(le));
}

void report_buffer_done(ReportBuffer *b)
{
        free(b->data);
        *b = (ReportBuffer){ 0 };
}

static void append_message(ReportBuffer *b, const ProtobufCMessage *m)
{
        size_t n = protobuf_c_message_get_packed_size(m);
        uint8_t *p = malloc(n + 1);

        if (!p)
                abort();
        protobuf_c_message_pack(m, p);
        report_buffer_append_u32(b, (uint32_t) n);
        report_buffer_append(b, p, n);
        free(p);
}

void report_build_start(ReportBuffer *b, uint32_t version)
{
        NV__Profiler__Messages__FileHeader h = NV__PROFILER__MESSAGES__FILE_HEADER__INIT;

        report_buffer_append(b, "NVR\0", 4);
        h.version = version;
        append_message(b, &h.base);
}

void report_build_block(ReportBuffer *b, const NV__Profiler__Messages__BlockHeader *header, const ReportEntry *entries,
                size_t n_entries)
{
        NV__Profiler__Messages__BlockHeader h = NV__PROFILER__MESSAGES__BLOCK_HEADER__INIT;
        ReportBuffer payload = { 0 };
        uint32_t counts[_NCU_ENTRY_KIND_MAX] = { 0 };

        if (header)
                h = *header;
        for (size_t i = 0; i < n_entries; i++) {
                counts[entries[i].kind]++;
                if (entries[i].message)
                        append_message(&payload, entries[i].message);
                else {
                        report_buffer_append_u32(&payload, (uint32_t) entries[i].raw_size);
                        report_buffer_append(&payload, entries[i].raw, entries[i].raw_size);
                }
        }
        h.has_numsources = h.has_numresults = h.has_payloadsize = true;
        h.numsources = counts[NCU_ENTRY_SOURCE];
        h.numresults = counts[NCU_ENTRY_PROFILE_RESULT];
        h.has_numrangeresults = counts[NCU_ENTRY_RANGE_RESULT] > 0;
        h.numrangeresults = counts[NCU_ENTRY_RANGE_RESULT];
        h.has_numcmdlistresults = counts[NCU_ENTRY_CMDLIST_RESULT] > 0;
        h.numcmdlistresults = counts[NCU_ENTRY_CMDLIST_RESULT];
        h.has_numgraphresults = counts[NCU_ENTRY_GRAPH_RESULT] > 0;
        h.numgraphresults = counts[NCU_ENTRY_GRAPH_RESULT];
        h.payloadsize = (uint32_t) payload.size;
        append_message(b, &h.base);
        report_buffer_append(b, payload.data, payload.size);
        report_buffer_done(&payload);
}

typedef struct Offsets {
        uint64_t *blocks, *entries;
        size_t n_blocks, n_entries, a_blocks, a_entries;
} Offsets;

static int on_block(void *userdata, size_t block, const NcuBlockCounts *counts, const uint8_t *data, size_t size,
                uint64_t offset, NcuReportError *err)
{
        Offsets *o = userdata;

        if (GREEDY_REALLOC(o->blocks, o->a_blocks, o->n_blocks + 1) < 0)
                return -ENOMEM;
        o->blocks[o->n_blocks++] = offset - 4;
        return 0;
}

static int on_entry(void *userdata, size_t block, NcuEntryKind kind, const uint8_t *data, size_t size, uint64_t offset,
                NcuReportError *err)
{
        Offsets *o = userdata;

        if (GREEDY_REALLOC(o->entries, o->a_entries, o->n_entries + 1) < 0)
                return -ENOMEM;
        o->entries[o->n_entries++] = offset - 4;
        return 0;
}

int report_block_offsets(const uint8_t *data, size_t size, uint64_t **ret_blocks, size_t *ret_n_blocks,
                uint64_t **ret_entries, size_t *ret_n_entries)
{
        static const NcuContainerCallbacks cb = { .block_header = on_block, .entry = on_entry };
        NcuReportLimits limits;
        Offsets o = { 0 };
        NcuInput in;
        int r;

        ncu_report_limits_default(&limits);
        ncu_input_init_buffer(&in, data, size, limits.max_file_size);
        r = ncu_container_read(&in, &limits, &cb, &o, NULL);
        ncu_input_done(&in);
        if (r < 0) {
                free(o.blocks);
                free(o.entries);
                return r;
        }
        *ret_blocks = o.blocks;
        *ret_n_blocks = o.n_blocks;
        *ret_entries = o.entries;
        *ret_n_entries = o.n_entries;
        return 0;
}

/* Compresses what b holds onto out, and empties b. */
static void compress_more(ZSTD_CCtx *z, ReportBuffer *b, ReportBuffer *out, ZSTD_EndDirective end)
{
        ZSTD_inBuffer in = { b->data, b->size, 0 };
        size_t left;

        do {
                ZSTD_outBuffer o;

                if (out->allocated - out->size < ZSTD_CStreamOutSize()) {
                        out->allocated = out->size + 2 * ZSTD_CStreamOutSize();
                        out->data = realloc(out->data, out->allocated);
                        if (!out->data)
                                abort();
                }
                o = (ZSTD_outBuffer){ out->data + out->size, out->allocated - out->size, 0 };
                left = ZSTD_compressStream2(z, &o, &in, end);
                if (ZSTD_isError(left))
                        abort();
                out->size += o.pos;
        } while (in.pos < in.size || (end == ZSTD_e_end && left > 0));
        b->size = 0;
}

void report_build_string_bomb(ReportBuffer *out, size_t n_blocks, size_t string_size)
{
        NV__Profiler__Messages__ProfilerStringTable st = NV__PROFILER__MESSAGES__PROFILER_STRING_TABLE__INIT;
        NV__Profiler__Messages__BlockHeader h = NV__PROFILER__MESSAGES__BLOCK_HEADER__INIT;
        ReportBuffer plain = { 0 };
        ZSTD_CCtx *z = ZSTD_createCCtx();
        char *s = malloc(string_size + 1);
        char *strings[1] = { s };

        if (!s || !z)
                abort();
        memset(s, 'a', string_size);
        s[string_size] = '\0';
        st.n_strings = 1;
        st.strings = strings;
        h.stringtable = &st;
        *out = (ReportBuffer){ 0 };
        /* Block by block: the plain report is never held whole. */
        report_build_start(&plain, 7);
        for (size_t i = 0; i < n_blocks; i++) {
                report_build_block(&plain, &h, NULL, 0);
                compress_more(z, &plain, out, ZSTD_e_continue);
        }
        compress_more(z, &plain, out, ZSTD_e_end);
        report_buffer_done(&plain);
        ZSTD_freeCCtx(z);
        free(s);
}

/* n_kernels kernels of that name, each with an NVTX push/pop stack of depth ranges "a". */
static void build_kernels(ReportBuffer *out, size_t n_kernels, size_t depth, const char *name)
{
        NV__Profiler__Messages__ProfilerStringTable st = NV__PROFILER__MESSAGES__PROFILER_STRING_TABLE__INIT;
        NV__Profiler__Messages__BlockHeader h = NV__PROFILER__MESSAGES__BLOCK_HEADER__INIT;
        NV__Nvtx__NvtxDomainInfo domain = NV__NVTX__NVTX_DOMAIN_INFO__INIT, *domains[1] = { &domain };
        NV__Nvtx__NvtxPushPopDomain push_pop = NV__NVTX__NVTX_PUSH_POP_DOMAIN__INIT, *push_pops[1] = { &push_pop };
        NV__Nvtx__NvtxThread thread = NV__NVTX__NVTX_THREAD__INIT, *threads[1] = { &thread };
        NV__Nvtx__NvtxState nvtx = NV__NVTX__NVTX_STATE__INIT;
        NV__Nvtx__NvtxPushPopRange range = NV__NVTX__NVTX_PUSH_POP_RANGE__INIT;
        NV__Nvtx__NvtxPushPopRange **stack = calloc(depth + 1, sizeof(NV__Nvtx__NvtxPushPopRange *));
        NV__Profiler__Messages__ProfileResult result = NV__PROFILER__MESSAGES__PROFILE_RESULT__INIT;
        NV__Profiler__Messages__Uint64x3 one = NV__PROFILER__MESSAGES__UINT64X3__INIT;
        ReportEntry *entries = calloc(n_kernels, sizeof(ReportEntry));
        char *strings[1] = { (char *) "gpu__time_duration.sum" };

        if (!stack || !entries)
                abort();
        range.name = (char *) "a";
        for (size_t i = 0; i < depth; i++)
                stack[i] = &range;
        domain.name = (char *) "<default domain>";
        push_pop.n_stack = depth;
        push_pop.stack = stack;
        thread.tid = 5;
        thread.n_pushpopdomains = 1;
        thread.pushpopdomains = push_pops;
        nvtx.n_domains = 1;
        nvtx.domains = domains;
        nvtx.n_threads = 1;
        nvtx.threads = threads;
        nvtx.has_defaultdomain = true;
        one.x = one.y = one.z = 1;
        result.threadid = 5;
        result.kernelmangledname = result.kernelfunctionname = result.kerneldemangledname = (char *) name;
        result.workdimensions = 3;
        result.globalworkoffset = &one;
        result.gridsize = &one;
        result.blocksize = &one;
        result.nvtx = &nvtx;
        for (size_t i = 0; i < n_kernels; i++)
                entries[i] = (ReportEntry){ .kind = NCU_ENTRY_PROFILE_RESULT, .message = &result.base };
        st.n_strings = 1;
        st.strings = strings;
        h.stringtable = &st;
        *out = (ReportBuffer){ 0 };
        report_build_start(out, 7);
        report_build_block(out, &h, entries, n_kernels);
        free(entries);
        free(stack);
}

void report_build_nvtx_heavy(ReportBuffer *out, size_t n_kernels, size_t depth)
{
        build_kernels(out, n_kernels, depth, "k");
}

void report_build_named_kernel(ReportBuffer *out, const char *name)
{
        build_kernels(out, 1, 1, name);
}
