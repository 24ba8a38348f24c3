/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The .ncu-rep container (../shared/docs/ncu-format.md §1): magic "NVR\0", a uint32-sized FileHeader, then
 * blocks of a uint32-sized BlockHeader and a payload of uint32-sized entries. This layer frames bytes and
 * checks every size; it decodes only the counts of a BlockHeader (a few varints), so it needs no
 * generated code. The model (report-model.c) unpacks what it frames. */

#include <protobuf-c/protobuf-c.h>
#include <errno.h>
#include <stdint.h>
#include <zstd.h>

#include "report.h"

/* A byte source: a buffer, or a file descriptor read in chunks, optionally through zstd. */
typedef struct NcuInput {
        int fd; /* -EBADF for a buffer */
        const uint8_t *data; /* buffer input, or nothing */
        size_t size;
        size_t pos;
        uint64_t known_size; /* bytes the container has if known (regular file, not compressed), else 0 */
        int64_t file_base; /* where container byte 0 lies in a regular file read as it is (no zstd), else -1 */
        uint64_t offset; /* container bytes consumed so far */
        bool eof;
        bool compressed;
        ZSTD_DStream *zstd;
        uint8_t *raw; /* compressed bytes read from fd, raw_pos..raw_size not yet decompressed */
        size_t raw_size, raw_pos;
        bool raw_eof;
        uint8_t *plain; /* decompressed bytes not yet handed out: plain_pos..plain_size */
        size_t plain_size, plain_pos;
        uint64_t max_size; /* limit on container bytes */
} NcuInput;

/* Whether the bytes start a zstd frame (a .ncu-repz), by its magic number. */
bool ncu_is_zstd_frame(const uint8_t *p, size_t n);

int ncu_input_init_fd(NcuInput *in, int fd, uint64_t max_size, NcuReportError *err);
void ncu_input_init_buffer(NcuInput *in, const void *data, size_t size, uint64_t max_size);
int ncu_input_init_buffer_maybe_compressed(
                NcuInput *in, const void *data, size_t size, uint64_t max_size, NcuReportError *err);
void ncu_input_done(NcuInput *in);

typedef enum NcuEntryKind {
        NCU_ENTRY_SOURCE,
        NCU_ENTRY_PROFILE_RESULT,
        NCU_ENTRY_RANGE_RESULT,
        NCU_ENTRY_CMDLIST_RESULT,
        NCU_ENTRY_GRAPH_RESULT,
        _NCU_ENTRY_KIND_MAX,
} NcuEntryKind;

/* The counts of a BlockHeader, in entry order (fields 1, 2, 7, 8, 9), and PayloadSize (5). */
typedef struct NcuBlockCounts {
        uint32_t n[_NCU_ENTRY_KIND_MAX];
        uint32_t payload_size;
} NcuBlockCounts;

#define NCU_ASIDE(number) (UINT64_C(1) << (number)) /* numbers 1..63 */

typedef struct NcuContainerCallbacks {
        int (*file_header)(void *userdata, const uint8_t *data, size_t size, uint64_t offset, NcuReportError *err);
        int (*block_header)(void *userdata, size_t block, const NcuBlockCounts *counts, const uint8_t *data,
                        size_t size, uint64_t offset, NcuReportError *err);
        int (*entry)(void *userdata, size_t block, NcuEntryKind kind, const uint8_t *data, size_t size, uint64_t offset,
                        NcuReportError *err);
        /* Instead of entry: each entry in a malloc()ed buffer of its own that the callback takes, freeing it
         * itself, even when it fails (a lazy load keeps results as they are instead of copying them). */
        int (*entry_take)(void *userdata, size_t block, NcuEntryKind kind, uint8_t *data, size_t size, uint64_t offset,
                        NcuReportError *err);
        /* Per kind of entry, top-level length-delimited fields (a mask of NCU_ASIDE(number)) left out of
         * what entry and entry_take get: a cubin is most of its SourceData entry, metrics most of a result,
         * and a reader may need neither now. Each occurrence goes to aside first, as the entry is read: its
         * number, where its payload lies in the container, the bytes the whole field took there (key and
         * length included), and the payload in a malloc()ed buffer the callback takes, or, with aside_skip,
         * NULL: the payload is skipped unread (a caller that can read the file again). An entry whose wire
         * format breaks keeps its bytes from there on, for the reader to find the fault. */
        uint64_t aside_fields[_NCU_ENTRY_KIND_MAX];
        bool aside_skip;
        int (*aside)(void *userdata, size_t block, NcuEntryKind kind, uint32_t number, uint64_t offset, uint8_t *data,
                        size_t size, size_t field_size, NcuReportError *err);
} NcuContainerCallbacks;

/* Walks the container; stops at the first error a callback or the framing returns. */
int ncu_container_read(NcuInput *in, const NcuReportLimits *limits, const NcuContainerCallbacks *cb, void *userdata,
                NcuReportError *err);

/* One field of a serialized protobuf message (the wire format only). */
typedef enum NcuWireType {
        NCU_WIRE_VARINT = 0,
        NCU_WIRE_FIXED64 = 1,
        NCU_WIRE_LENGTH = 2,
        NCU_WIRE_FIXED32 = 5,
} NcuWireType;

typedef struct NcuWireField {
        uint32_t number;
        uint8_t wire_type; /* NcuWireType */
        uint64_t varint; /* NCU_WIRE_VARINT */
        const uint8_t *data; /* the bytes of the other wire types */
        size_t size;
} NcuWireField;

/* Reads the field at *pos and advances it; -EBADMSG when the bytes are not a valid field. Inline: the
 * metric decoder calls it for every value of a report. */
static inline int ncu_wire_varint(const uint8_t *p, size_t n, size_t *pos, uint64_t *ret)
{
        uint64_t v = 0;

        /* Most keys and lengths fit one byte. */
        if (*pos < n && p[*pos] < 0x80) {
                *ret = p[(*pos)++];
                return 0;
        }

        for (unsigned shift = 0; shift < 64; shift += 7) {
                uint8_t b;

                if (*pos >= n)
                        return -EBADMSG;
                b = p[(*pos)++];
                v |= (uint64_t) (b & 0x7f) << shift;
                if (!(b & 0x80)) {
                        *ret = v;
                        return 0;
                }
        }
        return -EBADMSG;
}

static inline int ncu_wire_next(const uint8_t *p, size_t n, size_t *pos, NcuWireField *ret)
{
        NcuWireField f = { 0 };
        uint64_t key, len = 0;
        int r;

        r = ncu_wire_varint(p, n, pos, &key);
        if (r < 0)
                return r;
        if (key >> 3 == 0 || key >> 3 > UINT32_MAX)
                return -EBADMSG;
        f.number = (uint32_t) (key >> 3);
        f.wire_type = key & 7;
        switch (f.wire_type) {
        case NCU_WIRE_VARINT:
                r = ncu_wire_varint(p, n, pos, &f.varint);
                if (r < 0)
                        return r;
                *ret = f;
                return 0;
        case NCU_WIRE_FIXED64:
                len = 8;
                break;
        case NCU_WIRE_FIXED32:
                len = 4;
                break;
        case NCU_WIRE_LENGTH:
                r = ncu_wire_varint(p, n, pos, &len);
                if (r < 0)
                        return r;
                break;
        default: /* groups (3, 4) do not occur in this schema; 6 and 7 do not exist */
                return -EBADMSG;
        }
        if (len > n - *pos)
                return -EBADMSG;
        f.data = p + *pos;
        f.size = (size_t) len;
        *pos += (size_t) len;
        *ret = f;
        return 0;
}

/* Whether a serialized message of type d nests at most max_depth messages deep (counting d's own as 1).
 * protobuf-c unpacks recursively and the section schema is recursive (a body item holds a container of
 * body items), so every entry is checked before it is unpacked. Walks only the fields the schema knows
 * as messages; -EBADMSG when the bytes break the wire format on the way. Returns 1 if within, 0 if not. */
int ncu_wire_nesting_ok(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n, unsigned max_depth);

/* Decodes the counts of a serialized BlockHeader. -EBADMSG when the wire format is broken. */
int ncu_block_counts_parse(const uint8_t *data, size_t size, NcuBlockCounts *ret);

/* Fills err (offset and a printf message) and returns r. */
int ncu_error(NcuReportError *err, uint64_t offset, int r, const char *fmt, ...) _printf_(4, 5);

const char *ncu_entry_kind_to_string(NcuEntryKind k);
