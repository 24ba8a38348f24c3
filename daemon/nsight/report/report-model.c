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
#include "report-model-loader.h"
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

static void scratch_prepare(Loader *l, NcuEntryKind kind, size_t size);

NcuReport *ncu_report_free(NcuReport *r)
{
        if (!r)
                return NULL;
        free((void *) r->strings);
        for (size_t i = 0; i < r->n_sources; i++)
                free((void *) r->sources[i].binary);
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

const char *ncu_loader_dup_str(Loader *l, const char *s)
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

const uint8_t *ncu_loader_dup_bytes(Loader *l, const void *p, size_t n)
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

int ncu_loader_oom(Loader *l, uint64_t offset)
{
        return ncu_error(l->err, offset, -ENOMEM, "out of memory");
}

static size_t model_memory(const Loader *l)
{
        return l->r->arena.total + l->n_sources_allocated * sizeof(NcuSource) +
                        l->n_actions_allocated * sizeof(NcuAction *) + l->n_strings_allocated * sizeof(char *) +
                        l->kept_entries + l->kept_binaries;
}

static int check_memory(Loader *l, uint64_t offset, size_t record_size)
{
        size_t held;

        if (l->out_of_memory)
                return ncu_loader_oom(l, offset);
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
                        return ncu_loader_oom(l, offset);
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
                l->process.hostname = ncu_loader_dup_str(l, h->process->hostname);
                l->process.process_name = ncu_loader_dup_str(l, h->process->processname);
                if (add_block_process(l) < 0)
                        return ncu_loader_oom(l, offset);
        }

        if (h->stringtable && h->stringtable->n_strings > 0) {
                size_t n = h->stringtable->n_strings;

                if (n > l->limits->max_strings - MIN(l->limits->max_strings, r->n_strings))
                        return ncu_error(err, offset, -E2BIG, "block %zu: more than %zu strings in total", block,
                                        l->limits->max_strings);
                if (GREEDY_REALLOC(r->strings, l->n_strings_allocated, r->n_strings + n) < 0)
                        return ncu_loader_oom(l, offset);
                for (size_t i = 0; i < n; i++) {
                        const char *s = ncu_loader_dup_str(l, h->stringtable->strings[i]);
                        if (!s)
                                return ncu_loader_oom(l, offset);
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
                r = ncu_loader_add_source(l, block, data, size, offset);
                break;
        case NCU_ENTRY_PROFILE_RESULT:
                r = ncu_loader_add_profile_result(l, block, data, size, offset, owned);
                break;
        case NCU_ENTRY_RANGE_RESULT:
        case NCU_ENTRY_CMDLIST_RESULT:
        case NCU_ENTRY_GRAPH_RESULT:
                r = ncu_loader_add_other_result(l, block, kind, data, size, offset, owned);
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

/* The Binary of a SourceData entry (the last one counts, as protobuf reads a repeated scalar field), for
 * ncu_loader_add_source(), data NULL when it stays in the file; a piece of its SourceFiles left in the
 * file; or a metric of a result left in the file, counted for its action. */
static int on_aside(void *userdata, size_t block, NcuEntryKind kind, uint32_t number, uint64_t offset, uint8_t *data,
                size_t size, size_t field_size, NcuReportError *err)
{
        Loader *l = userdata;

        if (kind != NCU_ENTRY_SOURCE) {
                assert(!data);
                l->aside_metrics++;
                l->aside_bytes += field_size;
                return 0;
        }
        if (number == 8) { /* SourceFiles, a lazy load's: each piece, merged when read */
                assert(!data);
                if (GREEDY_REALLOC(l->files_parts, l->n_files_parts_allocated, l->n_files_parts + 1) < 0)
                        return ncu_loader_oom(l, offset);
                l->files_parts[l->n_files_parts++] = (NcuByteRange){ .offset = offset, .size = size };
                return 0;
        }
        free(l->binary_data);
        l->binary_data = data;
        l->binary_size = size;
        l->binary_offset = offset;
        l->have_binary = true;
        return 0;
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
                .os_name = ncu_loader_dup_str(l, s->osname),
                .build = ncu_loader_dup_str(l, s->build),
                .processor = ncu_loader_dup_str(l, s->processor),
                .architecture = ncu_loader_dup_str(l, s->architecture),
                .computer_name = ncu_loader_dup_str(l, s->computername),
                .has_platform = s->has_platform,
                .platform = (uint32_t) s->platform,
        };
        if (s->n_ipaddresses == 0)
                return;
        ips = arena_alloc_array(&l->r->arena, s->n_ipaddresses, sizeof(char *));
        if (!ips)
                return;
        for (size_t i = 0; i < s->n_ipaddresses; i++)
                ips[i] = ncu_loader_dup_str(l, s->ipaddresses[i]->address);
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
                                kv[i] = (NcuKeyValue){ ncu_loader_dup_str(l, s->deviceproperties->properties[i]->key),
                                        ncu_loader_dup_str(l, s->deviceproperties->properties[i]->value) };
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
                                d[i] = (NcuDevice){ .id = da->id, .name = ncu_loader_dup_str(l, da->name) };
                                if (!attrs)
                                        continue;
                                for (size_t j = 0; j < da->n_attributes; j++)
                                        attrs[j] = (NcuDeviceAttribute){
                                                .name = ncu_loader_dup_str(l, da->attributes[j]->name),
                                                .value = ncu_loader_convert_value(l, da->attributes[j]->value, &failed),
                                        };
                                d[i].attributes = attrs;
                                d[i].n_attributes = da->n_attributes;
                        }
                        o->devices = d;
                        o->n_devices = s->n_deviceattributes;
                }
        }
        o->comments = ncu_loader_dup_str(l, s->comments);
        if (s->n_versioninfo > 0) {
                NcuVersionInfo *v = arena_alloc_array(arena, s->n_versioninfo, sizeof(NcuVersionInfo));
                if (v) {
                        for (size_t i = 0; i < s->n_versioninfo; i++)
                                v[i] = (NcuVersionInfo){ ncu_loader_dup_str(l, s->versioninfo[i]->provider),
                                        ncu_loader_dup_str(l, s->versioninfo[i]->version) };
                        o->versions = v;
                        o->n_versions = s->n_versioninfo;
                }
        }
        if (s->executablesettings) {
                o->executable_path = ncu_loader_dup_str(l, s->executablesettings->executablepath);
                o->work_directory = ncu_loader_dup_str(l, s->executablesettings->workdirectory);
                o->cmdline_arguments = ncu_loader_dup_str(l, s->executablesettings->cmdlineagruments);
                o->environment = ncu_loader_dup_str(l, s->executablesettings->environment);
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
        o->profiler_cmdline = ncu_loader_dup_str(l, s->profilercmdline);
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

/* n bytes at container offset at of the report's file; errors name offset (what the bytes belong to). */
static int pread_exact(const NcuReport *r, uint64_t at, uint8_t *p, size_t n, uint64_t offset, NcuReportError *err)
{
        size_t done = 0;

        while (done < n) {
                ssize_t k = pread(r->reread_fd, p + done, n - done, (off_t) (r->reread_base + at + done));
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return ncu_error(err, offset, -errno, "cannot read the report");
                if (k == 0)
                        return ncu_error(err, offset, -ESTALE, "the report file changed since it was loaded");
                done += (size_t) k;
        }
        return 0;
}

/* Bytes of the container (a binary) read again from the report's file, which must not have changed since
 * the load (it is checked before and after the read): the load checked their framing, not their content,
 * and no other bytes may stand in for them. */
static int reread_bytes(const NcuReport *r, uint64_t offset, size_t size, uint8_t **ret, NcuReportError *err)
{
        _cleanup_free_ uint8_t *buf = NULL;
        int k;

        buf = malloc(MAX(size, (size_t) 1));
        if (!buf)
                return ncu_error(err, offset, -ENOMEM, "out of memory");
        if (!file_unchanged(r))
                return ncu_error(err, offset, -ESTALE, "the report file changed since it was loaded");
        k = pread_exact(r, offset, buf, size, offset, err);
        if (k < 0)
                return k;
        if (!file_unchanged(r))
                return ncu_error(err, offset, -ESTALE, "the report file changed since it was loaded");
        *ret = TAKE_PTR(buf);
        return 0;
}

/* An action's entry read from the file piecewise by the metric decoder (ncu_metrics_decode_read()). */
typedef struct EntryReader {
        const NcuReport *r;
        const NcuAction *a;
        NcuReportError *err;
        bool failed; /* err says why */
} EntryReader;

static int read_entry_part(void *userdata, size_t pos, uint8_t *p, size_t n)
{
        EntryReader *e = userdata;
        int k = pread_exact(e->r, e->a->offset + pos, p, n, e->a->offset, e->err);

        e->failed = k < 0;
        return k;
}

/* SourceData field 4, Binary: set aside (on_aside()). */
static const NcuContainerCallbacks loader_callbacks = {
        .file_header = on_file_header,
        .block_header = on_block_header,
        .entry = on_entry,
        .aside_fields = { [NCU_ENTRY_SOURCE] = NCU_ASIDE(4) },
        .aside = on_aside,
};

static const NcuContainerCallbacks lazy_loader_callbacks = {
        .file_header = on_file_header,
        .block_header = on_block_header,
        .entry_take = on_entry_take,
        .aside_fields = { [NCU_ENTRY_SOURCE] = NCU_ASIDE(4) },
        .aside = on_aside,
};

static int load(NcuInput *in, const NcuReportLimits *limits, NcuReportLoadFlags flags, NcuReport **ret,
                NcuReportError *err)
{
        _cleanup_(ncu_report_freep) NcuReport *r = NULL;
        Loader l = { .limits = limits, .flags = flags, .err = err };
        NcuContainerCallbacks callbacks;
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
        /* A lazy load keeps each result's entry, unless it can read it again from the file; then it leaves
         * the binaries there too. */
        callbacks = flags & NCU_REPORT_LAZY_METRICS && !r->reread ? lazy_loader_callbacks : loader_callbacks;
        callbacks.aside_skip = r->reread;
        if (r->reread) {
                /* The metric fields: ProfileResult's 13, MetricResults (4) of the other results. */
                callbacks.aside_fields[NCU_ENTRY_PROFILE_RESULT] = NCU_ASIDE(13);
                callbacks.aside_fields[NCU_ENTRY_RANGE_RESULT] = NCU_ASIDE(4);
                callbacks.aside_fields[NCU_ENTRY_CMDLIST_RESULT] = NCU_ASIDE(4);
                callbacks.aside_fields[NCU_ENTRY_GRAPH_RESULT] = NCU_ASIDE(4);
                /* And SourceData's SourceFiles (8), the CUDA sources of --import-source. */
                callbacks.aside_fields[NCU_ENTRY_SOURCE] |= NCU_ASIDE(8);
        }
        k = ncu_container_read(in, limits, &callbacks, &l, err);
        free(l.binary_data);
        free(l.files_parts);
        if (k >= 0 && !l.have_file_header)
                k = ncu_error(err, 0, -EBADMSG, "no FileHeader");
        if (k >= 0)
                k = finish_session(&l);
        if (k >= 0 && l.out_of_memory)
                k = ncu_loader_oom(&l, in->offset);
        free(l.session);
        arena_done(&l.scratch);
        if (k < 0)
                return k;
        arena_total = r->arena.total;
        r->memory = model_memory(&l);
        k = ncu_loader_finish_actions(&l); /* adds the indexes it builds to r->memory */
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
        _cleanup_free_ uint8_t *window = NULL;
        bool from_file = !a->entry, read_failed = false;
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
        if (from_file && !r->reread) /* a failed decode whose error was lost */
                return ncu_error(ret_error, a->offset, -ENOMEM, "out of memory");
        if (from_file && !file_unchanged(r))
                return decode_failed(r, a, ret_error,
                                ncu_error(ret_error, a->offset, -ESTALE,
                                                "the report file changed since it was loaded"));

        arena_total = r->arena.total;
        entry_size = a->entry ? a->entry_size : 0; /* what r->memory counts */
        if (a->entry)
                k = ncu_metrics_decode(
                                &r->arena, a->entry, a->entry_size, a->metrics_field, a->n_metrics_framed, &metrics);
        else {
                /* From the file a window at a time; the file, unchanged before, must be unchanged after: else
                 * what was read may be another file's bytes, whatever the decode said of them. */
                EntryReader reader = { .r = r, .a = a, .err = ret_error };

                k = ncu_metrics_decode_read(&r->arena, a->entry_size, a->metrics_field, a->n_metrics_framed,
                                read_entry_part, &reader, &window, &metrics);
                read_failed = reader.failed;
                if (!file_unchanged(r)) {
                        k = ncu_error(ret_error, a->offset, -ESTALE, "the report file changed since it was loaded");
                        read_failed = true;
                }
        }
        if (k < 0 && !read_failed)
                k = ncu_loader_metrics_error(ret_error, k, a->offset, a->block, a->metrics_what);
        else if (k >= 0) {
                a->metrics = metrics;
                a->n_metrics = a->n_metrics_framed;
                keys = reallocarray(NULL, MAX(a->n_metrics, (size_t) 1), sizeof(uint64_t));
                tmp = reallocarray(NULL, MAX(a->n_metrics, (size_t) 1), sizeof(uint64_t));
                k = keys && tmp ? ncu_loader_finish_metrics(r, a, keys, tmp, ret_error)
                                : ncu_error(ret_error, a->offset, -ENOMEM, "out of memory");
        }
        /* What the decode took from the arena stays there, even when it failed. */
        r->memory += r->arena.total - arena_total;
        if (a->metrics_by_name)
                r->memory += a->n_metrics * sizeof(NcuMetric *);
        r->peak_memory = MAX(r->peak_memory,
                        r->memory - r->arena.total + r->arena.allocated +
                                        2 * MAX(a->n_metrics, (size_t) 1) * sizeof(uint64_t) +
                                        (from_file ? a->entry_size : 0));
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

int ncu_source_binary(NcuReport *r, const NcuSource *s, const uint8_t **ret, NcuReportError *ret_error)
{
        NcuReportError unused;
        uint8_t *binary = NULL;
        int k;

        assert(r && s && ret);
        if (!ret_error)
                ret_error = &unused;
        if (s->binary || s->binary_size == 0) {
                *ret = s->binary;
                return 0;
        }
        assert(r->reread); /* only a lazy load of a regular file leaves a binary in the file */
        k = reread_bytes(r, s->binary_offset, s->binary_size, &binary, ret_error);
        if (k < 0)
                return k;
        ((NcuSource *) s)->binary = binary;
        r->memory += s->binary_size;
        r->peak_memory = MAX(r->peak_memory, r->memory - r->arena.total + r->arena.allocated);
        *ret = binary;
        return 0;
}

int ncu_source_files(NcuReport *r, const NcuSource *s, NcuReportError *ret_error)
{
        NcuReportError unused;
        _cleanup_free_ uint8_t *buf = NULL;
        NV__Profiler__Messages__SourceFiles *m;
        NcuSource *o = (NcuSource *) s;
        size_t size = 0, done = 0, arena_total;
        uint64_t offset;
        int k;

        assert(r && s);
        if (!ret_error)
                ret_error = &unused;
        if (s->n_files_parts == 0)
                return 0;
        assert(r->reread); /* only a lazy load of a regular file leaves them in the file */
        offset = s->files_parts[0].offset;
        for (size_t i = 0; i < s->n_files_parts; i++) {
                if (s->files_parts[i].size > SIZE_MAX - size)
                        return ncu_error(ret_error, offset, -ENOMEM, "out of memory");
                size += s->files_parts[i].size;
        }
        buf = malloc(MAX(size, (size_t) 1));
        if (!buf)
                return ncu_error(ret_error, offset, -ENOMEM, "out of memory");
        if (!file_unchanged(r))
                return ncu_error(ret_error, offset, -ESTALE, "the report file changed since it was loaded");
        for (size_t i = 0; i < s->n_files_parts; i++) {
                k = pread_exact(r, s->files_parts[i].offset, buf + done, s->files_parts[i].size, offset, ret_error);
                if (k < 0)
                        return k;
                done += s->files_parts[i].size;
        }
        if (!file_unchanged(r))
                return ncu_error(ret_error, offset, -ESTALE, "the report file changed since it was loaded");
        /* Its pieces in a row parse as one message (protobuf's MergeFrom), checked as a load checks them. */
        if (ncu_wire_nesting_ok(&nv__profiler__messages__source_files__descriptor, buf, size, 64) <= 0)
                return ncu_error(ret_error, offset, -EBADMSG, "a SourceFiles is not a valid message");
        m = nv__profiler__messages__source_files__unpack(NULL, size, buf);
        if (!m)
                return ncu_error(ret_error, offset, -EBADMSG, "a SourceFiles is not a valid message");
        arena_total = r->arena.total;
        k = ncu_source_files_convert(&r->arena, m, &o->files, &o->n_files);
        protobuf_c_message_free_unpacked(&m->base, NULL);
        r->memory += r->arena.total - arena_total;
        if (k < 0)
                return ncu_error(ret_error, offset, k, "out of memory");
        o->n_files_parts = 0;
        o->files_parts = NULL;
        return 0;
}
