/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Builds .ncu-rep containers from scratch or from the entries of real ones: for the §7 cases the corpus
 * does not cover (range/cmdlist/graph results, bad NameIds, unknown fields...), the fuzz seeds and the
 * benchmark's synthetic 10,000-result report. Plain C (the benchmark links it without GLib); aborts on
 * out-of-memory. */

#include <stddef.h>
#include <stdint.h>

#include "ProfilerReport.pb-c.h"
#include "report-container.h"

typedef struct ReportBuffer {
        uint8_t *data;
        size_t size, allocated;
} ReportBuffer;

void report_buffer_append(ReportBuffer *b, const void *p, size_t n);
void report_buffer_append_u32(ReportBuffer *b, uint32_t v);
void report_buffer_done(ReportBuffer *b);

/* "NVR\0", then a FileHeader with this version. */
void report_build_start(ReportBuffer *b, uint32_t version);

/* One entry of a block: a packed message (or raw bytes) and its kind. */
typedef struct ReportEntry {
        NcuEntryKind kind;
        const ProtobufCMessage *message; /* or: */
        const uint8_t *raw;
        size_t raw_size;
} ReportEntry;

/* A block: header (counts and PayloadSize are filled in from entries; other fields as given, may be
 * NULL) and its entries in the order given. */
void report_build_block(ReportBuffer *b, const NV__Profiler__Messages__BlockHeader *header, const ReportEntry *entries,
                size_t n_entries);

/* Byte offsets of every block (its uint32 size) of a container, and of every entry in it; for the
 * truncation tests. Returns the count; offsets in *ret (caller frees). -EBADMSG if not a container. */
int report_block_offsets(const uint8_t *data, size_t size, uint64_t **ret_blocks, size_t *ret_n_blocks,
                uint64_t **ret_entries, size_t *ret_n_entries);

/* Issue 17's memory attack: a .ncu-repz (a zstd frame) of n_blocks blocks whose headers each carry a
 * string table of one string of string_size bytes, a report that claims n_blocks * string_size bytes of
 * strings in a file of kilobytes. */
void report_build_string_bomb(ReportBuffer *out, size_t n_blocks, size_t string_size);

/* Issue 17's slow-matching attack: n_kernels kernels whose thread's default-domain push/pop stack holds
 * depth ranges named "a" (an uncompressed .ncu-rep of a few megabytes): ActionsByNvtx with patterns of
 * many elements ("a/a/…/b") costs kernels × patterns × depth × elements string compares. */
void report_build_nvtx_heavy(ReportBuffer *out, size_t n_kernels, size_t depth);

/* One kernel of that name (its three names), for names no real report has (invalid UTF-8, escapes). */
void report_build_named_kernel(ReportBuffer *out, const char *name);
