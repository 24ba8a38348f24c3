/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The model of an Nsight Compute report (.ncu-rep, version 7), as NVIDIA's ncu_report module presents it:
 * ranges -> actions (profile results: kernels, and range/cmdlist/graph results) -> metrics, plus the
 * session details merged across blocks, the sources, rule results, embedded sections and NVTX state.
 * Container and schema: ../shared/docs/ncu-format.md §1, §2; API surface: §5.
 *
 * Everything a report holds lives in the report's own arena and stays valid until ncu_report_free(). A
 * lazy load (NCU_REPORT_LAZY_METRICS) leaves each action's metrics to ncu_action_decode_metrics().
 * Values keep the kind the file stored (no float round-trip). Field names follow the schema's; a
 * "has_" flag marks an optional scalar the file may leave unset. This header is the stable interface:
 * fields are added, never renamed. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "macro.h"

/* Why a load failed: the byte offset (in the uncompressed container) where the fault was found and a
 * sentence without any byte of the file in it (safe to show to anyone). */
typedef struct NcuReportError {
        uint64_t offset;
        char message[256];
} NcuReportError;

/* ProfileMetricValue: five optional fields, no oneof (§1.1). UNKNOWN = none set. */
typedef enum NcuValueKind {
        NCU_VALUE_UNKNOWN,
        NCU_VALUE_STRING,
        NCU_VALUE_FLOAT,
        NCU_VALUE_DOUBLE,
        NCU_VALUE_UINT32,
        NCU_VALUE_UINT64,
        _NCU_VALUE_KIND_MAX,
} NcuValueKind;

/* 12 bytes, aligned to 4: without the padding a union of 8-byte members would take after kind, since a
 * report holds millions of values (two per instance). Read the members as fields; their address is not
 * aligned for their type (the compiler refuses &v->d). */
typedef struct __attribute__((packed, aligned(4))) NcuValue {
        NcuValueKind kind;
        union {
                const char *s;
                float f;
                double d;
                uint32_t u32;
                uint64_t u64;
        };
} NcuValue;

/* One element of ProfileMetricResult.MetricValueList. */
typedef struct NcuInstance {
        NcuValue correlation_id; /* kind UNKNOWN when the element carries none */
        NcuValue value;
} NcuInstance;

typedef enum NcuMetricCategory {
        NCU_METRIC_CATEGORY_PM = 0,
        NCU_METRIC_CATEGORY_SAMPLER = 1,
} NcuMetricCategory;

/* Fields ordered so that no padding is left: there are millions of metrics in a large report. */
typedef struct NcuMetric {
        const char *name; /* resolved through the string table */
        uint32_t name_id;
        /* ncu_report's IMetric.kind(): the aggregate value's kind, else the first instance's, else UNKNOWN. */
        NcuValueKind kind;
        NcuValue value; /* kind UNKNOWN when !has_value */
        size_t n_instances;
        const NcuInstance *instances;
        uint32_t category; /* NcuMetricCategory, or a newer number kept as is */
        bool has_value; /* false for instance-only metrics (e.g. PM-sampling timelines) */
        bool has_correlation_ids; /* some instance has a correlation id */
} NcuMetric;

typedef struct NcuUint3 {
        uint64_t x, y, z;
} NcuUint3;

/* RuleResults.proto. Enum fields keep the file's number (newer ncu may add values). */
typedef enum NcuRuleMessageType {
        NCU_RULE_MSG_NONE = 0,
        NCU_RULE_MSG_OK = 1,
        NCU_RULE_MSG_WARNING = 2,
        NCU_RULE_MSG_ERROR = 3,
        NCU_RULE_MSG_OPTIMIZATION = 4,
} NcuRuleMessageType;

typedef struct NcuRuleMessage {
        const char *text; /* with ncu's inline markup (@section:ID:T@, @url:T:U@) as stored */
        uint32_t type; /* NcuRuleMessageType */
        bool has_id;
        int32_t id;
        const char *name; /* title; NULL when unset */
} NcuRuleMessage;

typedef struct NcuFocusMetric {
        bool has_message_id;
        int32_t message_id;
        const char *metric_name;
        bool has_value;
        double value;
        uint32_t severity; /* Default 0, Low 1, High 2 */
        const char *info;
} NcuFocusMetric;

typedef struct NcuSpeedup {
        uint32_t type; /* Unknown 0, Local 1, Global 2 */
        bool has_value;
        double value;
} NcuSpeedup;

typedef struct NcuSourceMarker {
        uint32_t kind; /* SASS 0, Source 1 */
        bool has_line; /* source_location oneof: line XOR address */
        uint32_t line;
        bool has_address;
        uint64_t address;
        const char *tooltip;
        uint32_t type; /* NcuRuleMessageType */
        const char *file_name;
} NcuSourceMarker;

typedef struct NcuRuleResult {
        const char *identifier;
        const char *display_name;
        const char *section_identifier; /* NULL for a section-less rule */
        size_t n_messages;
        const NcuRuleMessage *messages;
        size_t n_focus_metrics;
        const NcuFocusMetric *focus_metrics;
        size_t n_speedups;
        const NcuSpeedup *speedups;
        size_t n_proposals;
        const char *const *proposals; /* RuleResultProposal.Identifier */
        size_t n_source_markers;
        const NcuSourceMarker *source_markers;
        /* The whole RuleResultBody as serialized (tables, charts...), for renderers: unpack it with the
         * schema's generated code. */
        size_t body_size;
        const uint8_t *body;
} NcuRuleResult;

/* A section embedded in a result (ProfileResult.Sections), kept serialized as an NV.Profiler.ProfilerSection
 * message so the section code can unpack it with its own generated types. */
typedef struct NcuEmbeddedSection {
        const char *identifier;
        const char *display_name;
        size_t size;
        const uint8_t *data;
} NcuEmbeddedSection;

/* NVTX (Nvtx.proto). */
typedef enum NcuNvtxPayloadType {
        NCU_NVTX_PAYLOAD_UNKNOWN = 0,
        NCU_NVTX_PAYLOAD_UINT64 = 1,
        NCU_NVTX_PAYLOAD_INT64 = 2,
        NCU_NVTX_PAYLOAD_DOUBLE = 3,
        NCU_NVTX_PAYLOAD_UINT32 = 4,
        NCU_NVTX_PAYLOAD_INT32 = 5,
        NCU_NVTX_PAYLOAD_FLOAT = 6,
        NCU_NVTX_PAYLOAD_JSON = 7,
        NCU_NVTX_PAYLOAD_JSON_REGISTERED = 8,
} NcuNvtxPayloadType;

typedef struct NcuNvtxRange {
        const char *name;
        bool has_attributes;
        uint32_t category;
        uint32_t color_type;
        uint32_t color;
        uint32_t payload_type; /* NcuNvtxPayloadType */
        uint64_t payload_u64; /* ULLValue / UValue, or the bits of LLValue / IValue */
        double payload_double; /* DoubleValue / FValue */
        const char *payload_string; /* StrValue */
        uint32_t message_type;
        const char *message;
        bool has_start_end_id; /* start/end ranges */
        uint64_t start_end_id;
        bool has_start_tid;
        uint32_t start_tid;
} NcuNvtxRange;

/* One NVTX domain as seen by one action: the push/pop stack of the action's thread (outermost first) and
 * the open start/end ranges. */
typedef struct NcuNvtxDomain {
        uint64_t id;
        const char *name; /* "<default domain>" for the default one, as ncu stores it */
        size_t n_push_pop;
        const NcuNvtxRange *push_pop;
        size_t n_start_end;
        const NcuNvtxRange *start_end;
} NcuNvtxDomain;

typedef struct NcuNvtxState {
        bool has_default_domain;
        uint64_t default_domain;
        size_t n_domains;
        const NcuNvtxDomain *domains;
        size_t n_threads; /* threads with push/pop stacks in the stored state */
        const uint32_t *thread_ids;
} NcuNvtxState;

typedef struct NcuSourceFile {
        const char *file_name;
        const char *content; /* NULL when not imported */
} NcuSourceFile;

typedef struct NcuRelocationSymbol {
        const char *symbol_name;
        bool has_address;
        uint64_t address;
        bool has_symbol_index;
        uint32_t symbol_index;
} NcuRelocationSymbol;

/* Bytes of the (uncompressed) file. */
typedef struct NcuByteRange {
        uint64_t offset;
        size_t size;
} NcuByteRange;

/* SourceData: the cubin and, with --import-source, the CUDA sources. */
typedef struct NcuSource {
        bool has_reference;
        uint64_t reference;
        const char *code;
        size_t intermediate_size;
        const uint8_t *intermediate;
        size_t binary_size;
        /* An ELF cubin, in a buffer of its own. NULL after a lazy load of a regular file, which leaves it in
         * the file: ncu_source_binary() reads it. */
        const uint8_t *binary;
        bool has_sass_level;
        uint32_t sass_level;
        bool has_sm_revision;
        uint32_t sm_revision; /* (major << 16) | minor */
        bool has_binary_flags;
        uint32_t binary_flags;
        /* After a lazy load of a regular file, none until ncu_source_files() reads them (n_files_parts > 0
         * until then). */
        size_t n_files;
        const NcuSourceFile *files;
        size_t n_functions;
        const NcuRelocationSymbol *functions;
        size_t n_objects;
        const NcuRelocationSymbol *objects;
        uint64_t binary_offset; /* where the binary lies in the (uncompressed) file */
        /* The serialized SourceFiles a lazy load of a regular file left there, in the pieces the entry had
         * (protobuf merges them), until ncu_source_files() reads them. */
        size_t n_files_parts;
        const NcuByteRange *files_parts;
} NcuSource;

/* A frame of the CPU call stack at a launch (CpuStacktraceStackFrameMessage). */
typedef struct NcuCpuFrame {
        const char *module_name;
        uint64_t pc;
        const char *file_name; /* NULL when unknown */
        const char *function_name; /* NULL when unknown */
        bool has_line;
        uint32_t line;
} NcuCpuFrame;

typedef enum NcuWorkloadType {
        NCU_WORKLOAD_KERNEL,
        NCU_WORKLOAD_RANGE,
        NCU_WORKLOAD_CMDLIST,
        NCU_WORKLOAD_GRAPH,
        _NCU_WORKLOAD_TYPE_MAX,
} NcuWorkloadType;

typedef enum NcuNameBase {
        NCU_NAME_FUNCTION,
        NCU_NAME_DEMANGLED,
        NCU_NAME_MANGLED,
        _NCU_NAME_BASE_MAX,
} NcuNameBase;

/* ProcessInfo of the block the action came from. */
typedef struct NcuProcess {
        uint32_t process_id;
        const char *hostname;
        const char *process_name; /* the executable's path, as stored */
        /* The name ncu shows: process_name after its last '/', or its last '\\' too when the report was made
         * on Windows (the session's target platform, else its host's). Points into process_name. */
        const char *base_name;
} NcuProcess;

typedef struct NcuAction {
        size_t index; /* in file order, over every kind of result */
        NcuWorkloadType workload_type;
        uint64_t offset; /* byte offset of the entry in the (uncompressed) file */
        size_t block; /* index of the block that carried it */

        /* Names: ProfileResult fields 6/7/5; CmdlistResult has DisplayName only (used for all three). */
        const char *function_name;
        const char *demangled_name;
        const char *mangled_name;

        uint32_t thread_id;
        uint64_t api_call_id;
        uint64_t program_handle;
        uint64_t kernel_id;
        uint32_t work_dimensions;
        NcuUint3 global_work_offset;
        NcuUint3 grid_size;
        NcuUint3 block_size;
        bool has_creation_time;
        uint64_t creation_time;
        bool has_api;
        uint32_t api;
        bool has_context_id;
        uint32_t context_id;
        bool has_stream_id;
        uint32_t stream_id;
        const char *context_name;
        const char *stream_name;
        const char *comments;
        bool has_clock_status;
        bool clock_requested_lock;
        bool clock_executed_locked;
        bool has_unsupported_device;
        bool unsupported_device;
        bool has_series_id;
        uint32_t series_id;
        const char *series_combination;

        NcuProcess process;
        /* The device, from the action's device__attribute_display_name and the session's DeviceAttributes
         * of that name (device_index -1 when no match). */
        const char *device_name;
        int device_index;
        /* What the action's metrics say of its GPU, which ncu_report's metric attributes depend on
         * (metric-attrs.h, MetricChip): device__attribute_compute_capability_major and _minor, and
         * nvlink__max_count, device__attribute_chip. */
        bool has_compute_capability;
        uint32_t compute_capability_major, compute_capability_minor;
        bool has_nvlink_max_count;
        double nvlink_max_count;
        bool has_chip;
        double chip;

        /* Source.Reference and the SourceData entry with that reference (NULL when none). */
        bool has_source_reference;
        uint64_t source_reference;
        const NcuSource *source;
        size_t n_references; /* range/cmdlist/graph results: the references they cover */
        const uint64_t *references;

        size_t n_metrics;
        const NcuMetric *metrics; /* in file order */
        size_t n_rule_results;
        const NcuRuleResult *rule_results;
        size_t n_sections;
        const NcuEmbeddedSection *sections;
        const NcuNvtxState *nvtx; /* NULL when the result has no NVTX state */
        size_t n_cpu_frames; /* the CPU call stack at the launch (ncu --call-stack), innermost first */
        const NcuCpuFrame *cpu_frames;

        const NcuMetric **metrics_by_name; /* sorted by name, for lookup */
        size_t n_unique_metrics;

        /* After a lazy load (NCU_REPORT_LAZY_METRICS), until ncu_action_decode_metrics() succeeds: n_metrics
         * and n_unique_metrics are 0, device_name is NULL, device_index -1, the GPU's facts unset, and the
         * result's entry waits
         * here as the file has it, or (NULL) in the file, at offset, when the report reads it again. An
         * eager load decodes every action's metrics before it returns. */
        bool metrics_decoded;
        /* A failed decode's negative errno and error (malloc()ed), given again by every later call. */
        int metrics_errno;
        NcuReportError *metrics_error;
        uint8_t *entry; /* malloc()ed, freed once the metrics are decoded */
        size_t entry_size;
        uint32_t metrics_field; /* the entry's field number of ProfileMetricResult */
        size_t n_metrics_framed; /* the metrics ncu_metrics_split() counted */
        const char *metrics_what; /* the result's message name, for errors */
} NcuAction;

/* A serial, ordered stream of execution. ncu_report presents a report file as a single range holding every
 * result in file order (so do the oracle dumps of every corpus report); we do the same. */
typedef struct NcuRange {
        size_t n_actions;
        NcuAction *const *actions;
} NcuRange;

typedef struct NcuVersionInfo {
        const char *provider;
        const char *version;
} NcuVersionInfo;

typedef struct NcuSystemInfo {
        bool present;
        const char *os_name;
        const char *build;
        const char *processor;
        const char *architecture;
        const char *computer_name;
        bool has_platform;
        uint32_t platform; /* PlatformType: Linux 2, ... */
        size_t n_ip_addresses;
        const char *const *ip_addresses;
} NcuSystemInfo;

typedef struct NcuKeyValue {
        const char *key;
        const char *value;
} NcuKeyValue;

typedef struct NcuDeviceAttribute {
        const char *name;
        NcuValue value;
} NcuDeviceAttribute;

typedef struct NcuDevice {
        uint32_t id;
        const char *name;
        size_t n_attributes;
        const NcuDeviceAttribute *attributes;
} NcuDevice;

/* ReportSessionDetails, merged across blocks with protobuf MergeFrom semantics (§1): a later scalar
 * replaces an earlier one, repeated fields append. */
typedef struct NcuSessionDetails {
        bool has_process_id;
        uint32_t process_id;
        bool has_creation_time;
        uint64_t creation_time;
        NcuSystemInfo host;
        NcuSystemInfo target;
        size_t n_device_properties;
        const NcuKeyValue *device_properties;
        size_t n_devices;
        const NcuDevice *devices;
        const char *comments;
        size_t n_versions;
        const NcuVersionInfo *versions;
        const char *executable_path;
        const char *work_directory;
        const char *cmdline_arguments;
        const char *environment;
        const char *profiler_cmdline;
        /* ProfilerSettings, serialized (NV.Profiler.Messages.ProfilerSettings); 0 bytes when absent. */
        size_t profiler_settings_size;
        const uint8_t *profiler_settings;
} NcuSessionDetails;

/* Enough of a file's fstat() to tell that its bytes changed: every write or truncation sets mtime. (Not
 * ctime: a rename, chmod or unlink sets it too, and leaves the bytes alone.) */
typedef struct NcuFileIdentity {
        uint64_t dev, ino, size;
        int64_t mtime_sec, mtime_nsec;
} NcuFileIdentity;

typedef struct NcuReport {
        uint32_t version; /* FileHeader.Version; 7 in every known file */
        bool compressed; /* read from a .ncu-repz (zstd) container */
        uint64_t size; /* bytes of the (uncompressed) container */
        size_t n_blocks;
        size_t n_string_tables; /* non-empty tables; more than one are concatenated (Extra-P's reading) */
        size_t n_strings;
        const char *const *strings;
        NcuSessionDetails session;
        size_t n_sources;
        const NcuSource *sources;
        size_t n_actions;
        NcuAction *const *actions; /* every result, file order */
        /* The process each block names (BlockHeader.Process), in block order: ncu's session page and summary
         * show each process id as the first block naming it has it. */
        size_t n_processes;
        const NcuProcess *processes;
        size_t n_ranges;
        const NcuRange *ranges;
        /* Counts per entry kind, as the blocks announced them. */
        size_t n_profile_results;
        size_t n_range_results;
        size_t n_cmdlist_results;
        size_t n_graph_results;

        Arena arena;
        size_t memory; /* bytes the model holds (arena, indexes and metrics not yet decoded) */
        /* The most the load (and the metric decodes since) held from malloc at once: the model's arena
         * chunks and arrays, the scratch space entries were unpacked into, and the largest header or entry
         * read. */
        size_t peak_memory;
        size_t max_memory; /* the limit memory stays under, decodes after a lazy load included */
        /* A lazy load of a regular file keeps no copy of the results: their entries are read again when
         * their metrics are first needed, from a duplicate of the caller's descriptor. What fstat() said of
         * the file is kept to refuse (-ESTALE) a file changed since, rather than misread it. */
        bool reread;
        int reread_fd;
        uint64_t reread_base; /* where the container starts in the file */
        NcuFileIdentity reread_identity;
        uint32_t *string_ranks; /* every string's rank in strcmp() order, once a metric index needed them */
} NcuReport;

/* Bounds on what a report may make us allocate. Defaults in ncu_report_limits_default(). */
typedef struct NcuReportLimits {
        uint64_t max_file_size; /* uncompressed container bytes */
        uint32_t max_header_size; /* one FileHeader / BlockHeader */
        uint32_t max_entry_size; /* one payload entry */
        size_t max_blocks;
        size_t max_entries; /* payload entries of all kinds, in total */
        size_t max_strings; /* string table entries, in total */
        size_t max_memory; /* bytes the model may hold */
} NcuReportLimits;

void ncu_report_limits_default(NcuReportLimits *ret);

/* Reads a report from fd (a regular file, pipe or socket; read from its current position to EOF), in
 * bounded memory: one header or entry at a time. A zstd frame (.ncu-repz) is detected by its magic and
 * decompressed on the fly. Returns 0, or a negative errno with *ret_error filled: -EBADMSG (corrupt),
 * -EPROTONOSUPPORT (not version 7), -E2BIG (a limit), -ENOMEM, or a read error. limits may be NULL. */
int ncu_report_load_fd(int fd, const NcuReportLimits *limits, NcuReport **ret, NcuReportError *ret_error);
int ncu_report_load_buffer(const void *data, size_t size, const NcuReportLimits *limits, NcuReport **ret,
                NcuReportError *ret_error);
NcuReport *ncu_report_free(NcuReport *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(NcuReport *, ncu_report_free);

typedef enum NcuReportLoadFlags {
        /* Frame each result's metrics but decode them when the action is first read: metrics are most of a
         * report (most of an eager load's time and of its model), and a script often reads a few actions
         * of many. A corrupt metric is then found by ncu_action_decode_metrics(), not the load. From
         * a regular file (not zstd), results are not even kept: they are read again when decoded. */
        NCU_REPORT_LAZY_METRICS = 1 << 0,
} NcuReportLoadFlags;

int ncu_report_load_fd_flags(int fd, const NcuReportLimits *limits, NcuReportLoadFlags flags, NcuReport **ret,
                NcuReportError *ret_error);
int ncu_report_load_buffer_flags(const void *data, size_t size, const NcuReportLimits *limits, NcuReportLoadFlags flags,
                NcuReport **ret, NcuReportError *ret_error);

/* Decodes the metrics of an action of a lazy load (nothing to do after an eager one), with the checks and
 * errors an eager load has: 0, or -EBADMSG (corrupt; the error names the entry's offset), -E2BIG (the
 * model would pass limits->max_memory), -ESTALE (the file changed since the load), a read error or
 * -ENOMEM, each given again by every later call. Not thread-safe: it changes the action and the report's
 * arena. */
int ncu_action_decode_metrics(NcuReport *r, NcuAction *a, NcuReportError *ret_error);
/* Every action's: the first failure. */
int ncu_report_decode_metrics(NcuReport *r, NcuReportError *ret_error);

/* The binary (cubin) of a source of r, read from the file when first asked after a lazy load of a regular
 * file (an eager load holds it already): 0 and *ret (NULL when the source has none, binary_size 0), or
 * -ESTALE (the file changed since the load), a read error or -ENOMEM. Not thread-safe, as above. */
int ncu_source_binary(NcuReport *r, const NcuSource *s, const uint8_t **ret, NcuReportError *ret_error);
/* The CUDA source files of a source (files and n_files), read from the file when first asked after a lazy
 * load of a regular file (an eager load has them already): 0, or -EBADMSG (the stored SourceFiles is not a
 * valid message, as an eager load would have said), -ESTALE, a read error or -ENOMEM. Not thread-safe. */
int ncu_source_files(NcuReport *r, const NcuSource *s, NcuReportError *ret_error);

/* ncu_report-style queries. */
const NcuAction *ncu_report_action(const NcuReport *r, size_t range, size_t action);
/* The name of that base, as ncu_report gives it: a result that stores an empty demangled name (an
 * extern "C" kernel: nothing to demangle) answers the function name for it, as NVIDIA's module does on
 * every such corpus report; the function and mangled names are answered as stored. */
const char *ncu_action_name(const NcuAction *a, NcuNameBase base);
/* NULL when the action has no metric of that name. When a name occurs more than once in a result (a
 * report made with application replay repeats launch and sampling metrics once per pass), the last: what
 * ncu_report and ncu's pages show. */
const NcuMetric *ncu_action_metric_by_name(const NcuAction *a, const char *name);
const NcuDevice *ncu_action_device(const NcuReport *r, const NcuAction *a);
/* Where the functions of the action's module were loaded: the RelocationData functions of every SourceData
 * entry with its reference, in file order. ncu writes a module's entry again, without the binary, when it
 * loads more of its functions: one module, as protobuf's MergeFrom of the entries would make it (NVIDIA's
 * module then places every function so listed, and only those). Returns their number and, in *ret, an
 * array of pointers into the model (caller frees), or -ENOMEM. */
int ncu_action_loaded_functions(const NcuReport *r, const NcuAction *a, const NcuRelocationSymbol ***ret);

/* ncu_report's conversions: a double converts to uint64 and back, a string converts to nothing (the
 * functions return false and set 0 / NULL), like as_uint64() / as_double() / as_string(). A double no
 * uint64 holds converts the way x86-64 does (report-value.c): NaN reads 2^63, -1.0 reads 2^64 - 1. */
bool ncu_value_as_uint64(const NcuValue *v, uint64_t *ret);
bool ncu_value_as_double(const NcuValue *v, double *ret);
const char *ncu_value_as_string(const NcuValue *v);
/* The value of instance i, or the aggregate value for i == SIZE_MAX. NULL when out of range / absent. */
const NcuValue *ncu_metric_value(const NcuMetric *m, size_t instance);

/* v converted to kind the way ncu_report's IMetric.value(i) does it: an instance is read with the metric's
 * kind (an instance stored as uint64 0 of a double metric reads 0.0). What does not convert to a number
 * (a string, no value) reads 0; nothing converts to a string: the result is then UNKNOWN (None). */
NcuValue ncu_value_convert(const NcuValue *v, NcuValueKind kind);
/* The correlation ids of a metric are read with the kind of the first one, like IMetric.correlation_ids(). */
NcuValueKind ncu_metric_correlation_kind(const NcuMetric *m);

/* The version of ncu that wrote the report (the session's "Nsight Compute Target"), or NULL. */
const char *ncu_report_ncu_version(const NcuReport *r);
const char *ncu_value_kind_to_string(NcuValueKind k); /* "unknown", "string", "float", "double", ... */
const char *ncu_workload_type_to_string(NcuWorkloadType t); /* "kernel", "range", "cmdlist", "graph" */
const char *ncu_rule_message_type_to_string(uint32_t type); /* "NONE", "OK"... ; NULL for unknown numbers */

/* Python's repr() of a double: the shortest string that reads back to the same bits, with ".0" for
 * integral values and "inf"/"nan". buf must hold NCU_DOUBLE_REPR_MAX bytes. */
#define NCU_DOUBLE_REPR_MAX 32
const char *ncu_format_double_repr(double d, char buf[static NCU_DOUBLE_REPR_MAX]);

/* Selects the actions of a range by NVTX state, like ncu_report's IRange.actions_by_nvtx(includes,
 * excludes) and ncu's --nvtx-include/--nvtx-exclude: an action is selected when it matches at least one
 * include and no exclude (so no include selects none, as ncu_report answers). Expressions (see report-nvtx.c for the
 * grammar): "Domain@Range"          a start/end range of that domain is open "Range/"                a push/pop range
 * of the default domain is on the stack "Domain@A/B/"           push/pop range B directly inside A ...; "*" matches any
 * number of ranges
 *   "[A" / "B]"             A at the bottom / B at the top of the stack
 * Returns the number of selected actions and their indices (in the range) in *ret_indices (caller
 * frees), or -EINVAL for a malformed expression. */
int ncu_range_actions_by_nvtx(const NcuRange *range, char *const *includes, size_t n_includes, char *const *excludes,
                size_t n_excludes, size_t **ret_indices);
