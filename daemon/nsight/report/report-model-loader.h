/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The loader that builds a report's model (report.h), private to its three files: report-model.c reads the
 * container's headers and entries and owns the load, report-model-entries.c converts each entry (results,
 * rule results, sections, NVTX, sources) into the model, report-model-index.c indexes and finishes the
 * actions once every block is read, and answers lookups of the finished model. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ProfilerReport.pb-c.h"
#include "arena.h"
#include "report-container.h"
#include "report.h"

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
        size_t index_scratch; /* bytes ncu_loader_finish_actions() sorts names with */
        size_t kept_entries; /* bytes of results' entries a lazy load keeps to decode their metrics later */
        /* Scratch bytes per 16 serialized bytes, the most seen so far, per kind of entry (a SourceData
         * unpacks to other multiples than a result). */
        size_t scratch_ratio[_NCU_ENTRY_KIND_MAX];
        ProtobufCAllocator pb;
        /* The Binary of the SourceData entry being read, which the container set aside (on_aside()): in
         * binary_data, or (a lazy load of a regular file) left in the file at binary_offset. */
        bool have_binary;
        uint64_t binary_offset;
        size_t binary_size;
        uint8_t *binary_data;
        size_t kept_binaries; /* bytes of the sources' binaries held in memory */
        /* The metrics of the result entry being read that the container skipped (a lazy load of a regular
         * file: they are read again when decoded), and the bytes they took in the entry. */
        size_t aside_metrics, aside_bytes;
        /* The pieces of the SourceFiles of the SourceData entry being read that the container skipped. */
        NcuByteRange *files_parts;
        size_t n_files_parts, n_files_parts_allocated;
} Loader;

/* Copies into the report's arena; NULL (and the loader's out_of_memory set) when that fails. */
const char *ncu_loader_dup_str(Loader *l, const char *s);
const uint8_t *ncu_loader_dup_bytes(Loader *l, const void *p, size_t n);
/* The load's error for a failed allocation at offset. */
int ncu_loader_oom(Loader *l, uint64_t offset);

/* report-model-entries.c: one entry into the model. owned: the entry's buffer when a lazy load may keep
 * it, else NULL. */
NcuValue ncu_loader_convert_value(Loader *l, const NV__Profiler__Messages__ProfileMetricValue *v, bool *oom_flag);
int ncu_loader_add_profile_result(
                Loader *l, size_t block, const uint8_t *data, size_t size, uint64_t offset, uint8_t **owned);
int ncu_loader_add_other_result(Loader *l, size_t block, NcuEntryKind kind, const uint8_t *data, size_t size,
                uint64_t offset, uint8_t **owned);
int ncu_loader_add_source(Loader *l, size_t block, const uint8_t *data, size_t size, uint64_t offset);
/* The files of a SourceFiles message, copied into arena: 0, or -ENOMEM. */
int ncu_source_files_convert(
                Arena *arena, const NV__Profiler__Messages__SourceFiles *in, const NcuSourceFile **ret, size_t *ret_n);
/* A metrics decoding error r of the result at offset, in err. */
int ncu_loader_metrics_error(NcuReportError *err, int r, uint64_t offset, size_t block, const char *what);

/* report-model-index.c: an action's metrics indexed by name and its device found (keys and tmp have room
 * for a->n_metrics each); every action finished once every block is read. */
int ncu_loader_finish_metrics(NcuReport *r, NcuAction *a, uint64_t *keys, uint64_t *tmp, NcuReportError *err);
int ncu_loader_finish_actions(Loader *l);
