/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report-container.h"

#define NCU_MAGIC "NVR\0"
#define NCU_READ_CHUNK (64u * 1024u)
/* A claimed size is trusted only as far as bytes arrive: buffers grow by at most this much at a time. */
#define NCU_GROW_STEP (1024u * 1024u)

static const char *const entry_kind_table[_NCU_ENTRY_KIND_MAX] = {
        [NCU_ENTRY_SOURCE] = "SourceData",
        [NCU_ENTRY_PROFILE_RESULT] = "ProfileResult",
        [NCU_ENTRY_RANGE_RESULT] = "RangeResult",
        [NCU_ENTRY_CMDLIST_RESULT] = "CmdlistResult",
        [NCU_ENTRY_GRAPH_RESULT] = "GraphResult",
};

const char *ncu_entry_kind_to_string(NcuEntryKind k)
{
        assert(k < _NCU_ENTRY_KIND_MAX);
        return entry_kind_table[k];
}

int ncu_error(NcuReportError *err, uint64_t offset, int r, const char *fmt, ...)
{
        va_list ap;

        assert(r < 0);
        if (!err)
                return r;
        err->offset = offset;
        va_start(ap, fmt);
        (void) vsnprintf(err->message, sizeof(err->message), fmt, ap);
        va_end(ap);
        return r;
}

void ncu_input_init_buffer(NcuInput *in, const void *data, size_t size, uint64_t max_size)
{
        *in = (NcuInput){
                .fd = -EBADF,
                .file_base = -1,
                .data = data,
                .size = size,
                .known_size = size,
                .max_size = max_size,
        };
}

bool ncu_is_zstd_frame(const uint8_t *p, size_t n)
{
        return n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd;
}

static int input_start_zstd(NcuInput *in, NcuReportError *err)
{
        in->zstd = ZSTD_createDStream();
        if (!in->zstd)
                return ncu_error(err, 0, -ENOMEM, "cannot set up zstd decompression");
        /* The window a frame asks for is memory we allocate: bound it (2^27 = 128 MiB is zstd's default
         * limit; 2^24 covers every level up to 19 without --long). */
        if (ZSTD_isError(ZSTD_DCtx_setParameter(in->zstd, ZSTD_d_windowLogMax, 24)))
                return ncu_error(err, 0, -ENOMEM, "cannot set up zstd decompression");
        in->compressed = true;
        in->known_size = 0;
        in->plain = malloc(ZSTD_DStreamOutSize());
        if (!in->plain)
                return ncu_error(err, 0, -ENOMEM, "out of memory");
        return 0;
}

int ncu_input_init_buffer_maybe_compressed(
                NcuInput *in, const void *data, size_t size, uint64_t max_size, NcuReportError *err)
{
        ncu_input_init_buffer(in, data, size, max_size);
        if (!ncu_is_zstd_frame(data, size))
                return 0;
        /* The whole buffer is the compressed stream. */
        in->raw = (uint8_t *) data;
        in->raw_size = size;
        in->raw_eof = true;
        in->data = NULL;
        in->size = 0;
        return input_start_zstd(in, err);
}

int ncu_input_init_fd(NcuInput *in, int fd, uint64_t max_size, NcuReportError *err)
{
        struct stat st;
        uint8_t head[4];
        size_t n = 0;
        off_t start;

        assert(fd >= 0);
        *in = (NcuInput){ .fd = fd, .file_base = -1, .max_size = max_size };

        if (fstat(fd, &st) < 0)
                return ncu_error(err, 0, -errno, "cannot stat the report");
        if (S_ISDIR(st.st_mode))
                return ncu_error(err, 0, -EISDIR, "the report is a directory");
        start = S_ISREG(st.st_mode) ? lseek(fd, 0, SEEK_CUR) : -1;

        in->raw = malloc(NCU_READ_CHUNK);
        if (!in->raw)
                return ncu_error(err, 0, -ENOMEM, "out of memory");
        /* Peek at the first bytes to tell a zstd frame from a plain container. */
        while (n < sizeof(head)) {
                ssize_t k = read(fd, in->raw + n, NCU_READ_CHUNK - n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return ncu_error(err, 0, -errno, "cannot read the report");
                }
                if (k == 0) {
                        in->raw_eof = true;
                        break;
                }
                n += (size_t) k;
        }
        memcpy(head, in->raw, MIN(n, sizeof(head)));
        in->raw_size = n;
        if (ncu_is_zstd_frame(head, n))
                return input_start_zstd(in, err);
        if (start >= 0 && st.st_size >= start) {
                in->known_size = (uint64_t) (st.st_size - start);
                in->file_base = start;
        }
        return 0;
}

void ncu_input_done(NcuInput *in)
{
        if (!in)
                return;
        if (in->zstd)
                ZSTD_freeDStream(in->zstd);
        free(in->plain);
        /* raw is ours when read from an fd; for a compressed buffer it is the caller's. */
        if (in->fd >= 0)
                free(in->raw);
        *in = (NcuInput){ .fd = -EBADF };
}

/* Refills raw from the fd. 0 at EOF, or bytes now available. */
static int input_fill_raw(NcuInput *in, NcuReportError *err)
{
        ssize_t k;

        if (in->raw_pos < in->raw_size)
                return 1;
        if (in->raw_eof || in->fd < 0)
                return 0;
        in->raw_pos = in->raw_size = 0;
        for (;;) {
                k = read(in->fd, in->raw, NCU_READ_CHUNK);
                if (k >= 0)
                        break;
                if (errno != EINTR)
                        return ncu_error(err, in->offset, -errno, "cannot read the report");
        }
        if (k == 0) {
                in->raw_eof = true;
                return 0;
        }
        in->raw_size = (size_t) k;
        return 1;
}

/* Copies up to n container bytes to p; fewer only at EOF. Returns the count or a negative errno. */
static ssize_t input_read(NcuInput *in, uint8_t *p, size_t n, NcuReportError *err)
{
        size_t done = 0;
        int r;

        if (in->max_size > 0 && in->offset + n > in->max_size)
                n = in->offset < in->max_size ? (size_t) (in->max_size - in->offset) + 1 : 1;

        while (done < n) {
                size_t k;

                if (in->data) {
                        k = MIN(n - done, in->size - in->pos);
                        if (k == 0)
                                break;
                        memcpy(p + done, in->data + in->pos, k);
                        in->pos += k;
                } else if (!in->compressed) {
                        r = input_fill_raw(in, err);
                        if (r < 0)
                                return r;
                        if (r == 0)
                                break;
                        k = MIN(n - done, in->raw_size - in->raw_pos);
                        memcpy(p + done, in->raw + in->raw_pos, k);
                        in->raw_pos += k;
                } else if (in->plain_pos < in->plain_size) {
                        k = MIN(n - done, in->plain_size - in->plain_pos);
                        memcpy(p + done, in->plain + in->plain_pos, k);
                        in->plain_pos += k;
                } else {
                        ZSTD_inBuffer zin;
                        ZSTD_outBuffer zout = { .dst = in->plain, .size = ZSTD_DStreamOutSize() };
                        size_t z;

                        r = input_fill_raw(in, err);
                        if (r < 0)
                                return r;
                        if (r == 0) {
                                if (in->eof)
                                        break;
                                in->eof = true;
                                /* Let zstd flush what it holds; a frame cut short shows as a short read. */
                        }
                        zin = (ZSTD_inBuffer){ .src = in->raw + in->raw_pos, .size = in->raw_size - in->raw_pos };
                        z = ZSTD_decompressStream(in->zstd, &zout, &zin);
                        if (ZSTD_isError(z))
                                return ncu_error(err, in->offset + done, -EBADMSG, "the zstd stream is corrupt (%s)",
                                                ZSTD_getErrorName(z));
                        in->raw_pos += zin.pos;
                        in->plain_pos = 0;
                        in->plain_size = zout.pos;
                        if (zout.pos == 0 && in->eof)
                                break;
                        if (zout.pos > 0)
                                in->eof = false;
                        continue;
                }
                done += k;
        }
        in->offset += done;
        if (in->max_size > 0 && in->offset > in->max_size)
                return ncu_error(err, in->max_size, -E2BIG, "the report is larger than the limit of %" PRIu64 " bytes",
                                in->max_size);
        return (ssize_t) done;
}

/* The bytes the input holds in memory from its position on, without reading more and within its size
 * limit (input_read() is the one to say that a read passes it). */
static size_t input_buffered(const NcuInput *in, const uint8_t **ret)
{
        size_t n;

        if (in->data) {
                *ret = in->data + in->pos;
                n = in->size - in->pos;
        } else if (!in->compressed) {
                *ret = in->raw + in->raw_pos;
                n = in->raw_size - in->raw_pos;
        } else {
                *ret = in->plain + in->plain_pos;
                n = in->plain_size - in->plain_pos;
        }
        if (in->max_size > 0)
                n = in->offset < in->max_size ? (size_t) MIN((uint64_t) n, in->max_size - in->offset) : 0;
        return n;
}

/* Consumes n of the bytes input_buffered() showed. */
static void input_consume(NcuInput *in, size_t n)
{
        if (in->data)
                in->pos += n;
        else if (!in->compressed)
                in->raw_pos += n;
        else
                in->plain_pos += n;
        in->offset += n;
}

/* True when no container byte is left. */
static int input_at_eof(NcuInput *in, NcuReportError *err)
{
        uint8_t b;
        ssize_t k;

        if (in->data)
                return in->pos >= in->size;
        k = input_read(in, &b, 1, err);
        if (k < 0)
                return (int) k;
        if (k == 0)
                return 1;
        in->offset--; /* we only peeked: put it back */
        if (in->compressed)
                in->plain_pos--;
        else
                in->raw_pos--;
        return 0;
}

static int read_exact(NcuInput *in, uint8_t *p, size_t n, const char *what, NcuReportError *err)
{
        uint64_t start = in->offset;
        ssize_t k;

        k = input_read(in, p, n, err);
        if (k < 0)
                return (int) k;
        if ((size_t) k < n)
                return ncu_error(err, start, -EBADMSG, "truncated %s: %zu of %zu bytes present", what, (size_t) k, n);
        return 0;
}

static int read_u32(NcuInput *in, uint32_t *ret, const char *what, NcuReportError *err)
{
        uint8_t b[4];
        int r;

        r = read_exact(in, b, sizeof(b), what, err);
        if (r < 0)
                return r;
        *ret = (uint32_t) b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16 | (uint32_t) b[3] << 24;
        return 0;
}

/* Reads a sized record into *buf (grown as bytes actually arrive, so a lying size in a stream costs only
 * what the stream holds). */
static int check_record_size(NcuInput *in, uint32_t size, uint32_t max, const char *what, NcuReportError *err)
{
        if (size > max)
                return ncu_error(err, in->offset, -E2BIG,
                                "%s of %" PRIu32 " bytes exceeds the limit of %" PRIu32 " bytes", what, size, max);
        if (in->known_size > 0 && size > in->known_size - MIN(in->known_size, in->offset))
                return ncu_error(err, in->offset, -EBADMSG,
                                "truncated %s: it claims %" PRIu32 " bytes, %" PRIu64 " remain", what, size,
                                in->known_size - MIN(in->known_size, in->offset));
        return 0;
}

/* Appends n bytes of the input to *buf, which holds *used of *allocated (grown as bytes actually arrive).
 * start, done and size: the record's, for the error of a short read. */
static int append_input(NcuInput *in, size_t n, uint8_t **buf, size_t *allocated, size_t *used, uint64_t start,
                size_t done, uint32_t size, const char *what, NcuReportError *err)
{
        size_t end = *used + n;

        while (*used < end) {
                size_t want = MIN(end, *used + NCU_GROW_STEP);
                ssize_t k;

                if (*allocated < want) {
                        uint8_t *p = realloc(*buf, want);
                        if (!p)
                                return ncu_error(err, start, -ENOMEM, "out of memory");
                        *buf = p;
                        *allocated = want;
                }
                k = input_read(in, *buf + *used, want - *used, err);
                if (k < 0)
                        return (int) k;
                if ((size_t) k < want - *used)
                        return ncu_error(err, start, -EBADMSG, "truncated %s: %zu of %" PRIu32 " bytes present", what,
                                        done + (size_t) k, size);
                done += want - *used;
                *used = want;
        }
        return 0;
}

/* Reads a sized record into *buf (grown as bytes actually arrive, so a lying size in a stream costs only
 * what the stream holds). */
static int read_record(NcuInput *in, uint32_t size, uint32_t max, uint8_t **buf, size_t *allocated, const char *what,
                NcuReportError *err)
{
        size_t used = 0;
        int r;

        r = check_record_size(in, size, max, what, err);
        if (r < 0)
                return r;
        return append_input(in, size, buf, allocated, &used, in->offset, 0, size, what, err);
}

/* Passes over n bytes of the input without keeping them: a regular file read as it is moves its offset. */
static int input_skip(NcuInput *in, size_t n, uint64_t start, size_t done, uint32_t size, const char *what,
                NcuReportError *err)
{
        uint8_t sink[4096];

        if (!in->data && !in->compressed && in->fd >= 0 && in->file_base >= 0 &&
                        (in->max_size == 0 || in->offset + n <= in->max_size)) {
                size_t buffered = MIN(n, in->raw_size - in->raw_pos);

                in->raw_pos += buffered;
                if (n > buffered && lseek(in->fd, (off_t) (n - buffered), SEEK_CUR) < 0)
                        return ncu_error(err, in->offset, -errno, "cannot read the report");
                in->offset += n;
                return 0;
        }
        while (n > 0) {
                ssize_t k = input_read(in, sink, MIN(n, sizeof(sink)), err);
                if (k < 0)
                        return (int) k;
                if ((size_t) k < MIN(n, sizeof(sink)))
                        return ncu_error(err, start, -EBADMSG, "truncated %s: %zu of %" PRIu32 " bytes present", what,
                                        done + (size_t) k, size);
                n -= (size_t) k;
                done += (size_t) k;
        }
        return 0;
}

/* Reads a varint of at most left bytes into head (at *n, advancing it). 0 and *ret, 1 when the bytes are not
 * a varint within left, or a read error. */
static int read_varint(NcuInput *in, uint8_t head[static 20], size_t *n, size_t left, uint64_t *ret, uint64_t start,
                size_t done, uint32_t size, const char *what, NcuReportError *err)
{
        size_t begin = *n, limit = MIN(left, (size_t) 10), buffered;
        const uint8_t *p = NULL;

        /* Most keys and lengths lie whole in the input's buffer: read them there. */
        buffered = input_buffered(in, &p);
        if (buffered >= limit) {
                for (size_t k = 0; k < limit; k++) {
                        head[(*n)++] = p[k];
                        if (!(p[k] & 0x80)) {
                                input_consume(in, k + 1);
                                return ncu_wire_varint(head, *n, &begin, ret) < 0;
                        }
                }
                input_consume(in, limit);
                return 1;
        }
        do {
                ssize_t k;

                if (*n - begin >= limit)
                        return 1;
                k = input_read(in, &head[*n], 1, err);
                if (k < 0)
                        return (int) k;
                if (k == 0)
                        return ncu_error(err, start, -EBADMSG, "truncated %s: %zu of %" PRIu32 " bytes present", what,
                                        done + *n, size);
                (*n)++;
        } while (head[*n - 1] & 0x80);
        return ncu_wire_varint(head, *n, &begin, ret) < 0;
}

/* Reads an entry of size bytes into *buf (its length in *ret_size) without the occurrences of its top-level
 * length-delimited fields in the mask fields, each handed to cb->aside instead (see NcuContainerCallbacks). */
static int read_entry_aside(NcuInput *in, const NcuContainerCallbacks *cb, void *userdata, size_t block,
                NcuEntryKind kind, uint32_t size, uint64_t fields, uint8_t **buf, size_t *allocated, size_t *ret_size,
                NcuReportError *err)
{
        const char *what = ncu_entry_kind_to_string(kind);
        uint64_t start = in->offset;
        size_t used = 0, done = 0;
        int r;

        while (done < size) {
                uint8_t head[20];
                size_t h = 0, payload = 0, avail, at = 0;
                uint64_t key = 0, len = 0;
                const uint8_t *p = NULL;
                NcuWireField f;

                /* Most fields lie whole in the input's buffer: framed there, their bytes copied at most once. */
                avail = MIN(input_buffered(in, &p), (size_t) (size - done));
                if (avail > 0 && ncu_wire_next(p, avail, &at, &f) >= 0) {
                        if (f.wire_type == NCU_WIRE_LENGTH && f.number < 64 && fields & NCU_ASIDE(f.number)) {
                                _cleanup_free_ uint8_t *data = NULL;
                                uint64_t offset = in->offset + (uint64_t) (f.data - p);

                                if (!cb->aside_skip && f.size > 0) {
                                        data = malloc(f.size);
                                        if (!data)
                                                return ncu_error(err, start, -ENOMEM, "out of memory");
                                        memcpy(data, f.data, f.size);
                                }
                                input_consume(in, at);
                                r = cb->aside(userdata, block, kind, f.number, offset, TAKE_PTR(data), f.size, at, err);
                                if (r < 0)
                                        return r;
                        } else {
                                if (GREEDY_REALLOC(*buf, *allocated, used + at) < 0)
                                        return ncu_error(err, start, -ENOMEM, "out of memory");
                                memcpy(*buf + used, p, at);
                                used += at;
                                input_consume(in, at);
                        }
                        done += at;
                        continue;
                }

                r = read_varint(in, head, &h, size - done, &key, start, done, size, what, err);
                if (r < 0)
                        return r;
                if (r == 0 && (key & 7) == NCU_WIRE_LENGTH) {
                        r = read_varint(in, head, &h, size - done - h, &len, start, done, size, what, err);
                        if (r < 0)
                                return r;
                        if (r == 0 && len > size - done - h)
                                r = 1;
                        payload = r == 0 ? (size_t) len : 0;
                } else if (r == 0 && (key & 7) == NCU_WIRE_VARINT) {
                        r = read_varint(in, head, &h, size - done - h, &len, start, done, size, what, err);
                        if (r < 0)
                                return r;
                } else if (r == 0 && ((key & 7) == NCU_WIRE_FIXED64 || (key & 7) == NCU_WIRE_FIXED32))
                        payload = MIN((key & 7) == NCU_WIRE_FIXED64 ? (size_t) 8 : 4, size - done - h);
                else
                        r = 1;
                if (r > 0) /* not a field: the rest of the entry as it is */
                        payload = size - done - h;

                if (r == 0 && (key & 7) == NCU_WIRE_LENGTH && key >> 3 < 64 && fields & NCU_ASIDE(key >> 3)) {
                        _cleanup_free_ uint8_t *data = NULL;
                        size_t data_allocated = 0, data_used = 0;
                        uint64_t offset = in->offset;

                        if (cb->aside_skip)
                                r = input_skip(in, payload, start, done + h, size, what, err);
                        else
                                r = append_input(in, payload, &data, &data_allocated, &data_used, start, done + h, size,
                                                what, err);
                        if (r < 0)
                                return r;
                        r = cb->aside(userdata, block, kind, (uint32_t) (key >> 3), offset, TAKE_PTR(data), payload,
                                        h + payload, err);
                        if (r < 0)
                                return r;
                        done += h + payload;
                        continue;
                }
                if (GREEDY_REALLOC(*buf, *allocated, used + h) < 0)
                        return ncu_error(err, start, -ENOMEM, "out of memory");
                memcpy(*buf + used, head, h);
                used += h;
                done += h;
                r = append_input(in, payload, buf, allocated, &used, start, done, size, what, err);
                if (r < 0)
                        return r;
                done += payload;
        }
        *ret_size = used;
        return 0;
}

int ncu_wire_nesting_ok(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n, unsigned max_depth)
{
        size_t pos = 0;

        assert(d);
        if (max_depth == 0)
                return 0;
        while (pos < n) {
                const ProtobufCFieldDescriptor *f;
                NcuWireField w;
                int r;

                if (ncu_wire_next(p, n, &pos, &w) < 0)
                        return -EBADMSG;
                if (w.wire_type != NCU_WIRE_LENGTH)
                        continue;
                f = protobuf_c_message_descriptor_get_field(d, w.number);
                if (!f || f->type != PROTOBUF_C_TYPE_MESSAGE)
                        continue;
                r = ncu_wire_nesting_ok(f->descriptor, w.data, w.size, max_depth - 1);
                if (r <= 0)
                        return r;
        }
        return 1;
}

int ncu_block_counts_parse(const uint8_t *data, size_t size, NcuBlockCounts *ret)
{
        /* BlockHeader field numbers of the counts, by entry kind. */
        static const uint32_t count_field[_NCU_ENTRY_KIND_MAX] = {
                [NCU_ENTRY_SOURCE] = 1,
                [NCU_ENTRY_PROFILE_RESULT] = 2,
                [NCU_ENTRY_RANGE_RESULT] = 7,
                [NCU_ENTRY_CMDLIST_RESULT] = 8,
                [NCU_ENTRY_GRAPH_RESULT] = 9,
        };
        NcuBlockCounts c = { 0 };
        size_t pos = 0;
        int r;

        while (pos < size) {
                NcuWireField f;

                r = ncu_wire_next(data, size, &pos, &f);
                if (r < 0)
                        return r;
                if (f.wire_type != NCU_WIRE_VARINT)
                        continue;
                if (f.number == 5)
                        c.payload_size = (uint32_t) f.varint;
                for (NcuEntryKind k = 0; k < _NCU_ENTRY_KIND_MAX; k++)
                        if (f.number == count_field[k])
                                c.n[k] = (uint32_t) f.varint;
        }
        *ret = c;
        return 0;
}

/* An entry read into a buffer of its own, handed to entry_take. */
static int read_entry_take(NcuInput *in, const NcuContainerCallbacks *cb, void *userdata, size_t block,
                NcuEntryKind kind, uint32_t size, const NcuReportLimits *limits, NcuReportError *err)
{
        _cleanup_free_ uint8_t *buf = NULL;
        uint64_t offset = in->offset;
        size_t allocated = 0;
        int r;

        r = read_record(in, size, limits->max_entry_size, &buf, &allocated, ncu_entry_kind_to_string(kind), err);
        if (r < 0)
                return r;
        return cb->entry_take(userdata, block, kind, TAKE_PTR(buf), size, offset, err);
}

/* An entry with a field set aside (read_entry_aside()), handed to entry_take or entry. */
static int read_entry_parted(NcuInput *in, const NcuContainerCallbacks *cb, void *userdata, size_t block,
                NcuEntryKind kind, uint32_t size, const NcuReportLimits *limits, uint8_t **buf, size_t *allocated,
                NcuReportError *err)
{
        _cleanup_free_ uint8_t *own = NULL;
        size_t own_allocated = 0, used = 0;
        uint64_t offset = in->offset;
        int r;

        r = check_record_size(in, size, limits->max_entry_size, ncu_entry_kind_to_string(kind), err);
        if (r < 0)
                return r;
        if (cb->entry_take) {
                r = read_entry_aside(in, cb, userdata, block, kind, size, cb->aside_fields[kind], &own, &own_allocated,
                                &used, err);
                if (r < 0)
                        return r;
                return cb->entry_take(userdata, block, kind, TAKE_PTR(own), used, offset, err);
        }
        r = read_entry_aside(in, cb, userdata, block, kind, size, cb->aside_fields[kind], buf, allocated, &used, err);
        if (r < 0)
                return r;
        return cb->entry ? cb->entry(userdata, block, kind, *buf, used, offset, err) : 0;
}

int ncu_container_read(NcuInput *in, const NcuReportLimits *limits, const NcuContainerCallbacks *cb, void *userdata,
                NcuReportError *err)
{
        _cleanup_free_ uint8_t *buf = NULL;
        size_t allocated = 0, n_entries = 0;
        uint8_t magic[4];
        uint32_t size;
        int r;

        assert(in && limits && cb);

        r = read_exact(in, magic, sizeof(magic), "magic", err);
        if (r < 0)
                return r;
        if (memcmp(magic, NCU_MAGIC, sizeof(magic)) != 0)
                return ncu_error(err, 0, -EBADMSG, "not an Nsight Compute report (no \"NVR\\0\" magic)");

        r = read_u32(in, &size, "FileHeader size", err);
        if (r < 0)
                return r;
        r = read_record(in, size, limits->max_header_size, &buf, &allocated, "FileHeader", err);
        if (r < 0)
                return r;
        if (cb->file_header) {
                r = cb->file_header(userdata, buf, size, in->offset - size, err);
                if (r < 0)
                        return r;
        }

        for (size_t block = 0;; block++) {
                NcuBlockCounts counts;
                uint64_t header_offset, payload_start, total = 0;

                r = input_at_eof(in, err);
                if (r < 0)
                        return r;
                if (r > 0)
                        break;
                if (block >= limits->max_blocks)
                        return ncu_error(err, in->offset, -E2BIG, "more than %zu blocks", limits->max_blocks);

                r = read_u32(in, &size, "BlockHeader size", err);
                if (r < 0)
                        return r;
                header_offset = in->offset;
                r = read_record(in, size, limits->max_header_size, &buf, &allocated, "BlockHeader", err);
                if (r < 0)
                        return r;
                r = ncu_block_counts_parse(buf, size, &counts);
                if (r < 0)
                        return ncu_error(err, header_offset, r, "block %zu: the BlockHeader is not a valid message",
                                        block);
                for (NcuEntryKind k = 0; k < _NCU_ENTRY_KIND_MAX; k++)
                        total += counts.n[k];
                if (total > limits->max_entries - MIN(limits->max_entries, n_entries))
                        return ncu_error(err, header_offset, -E2BIG,
                                        "block %zu: more than %zu payload entries in total", block,
                                        limits->max_entries);
                if (in->known_size > 0 && counts.payload_size > in->known_size - MIN(in->known_size, in->offset))
                        return ncu_error(err, header_offset, -EBADMSG,
                                        "block %zu: truncated payload: it claims %" PRIu32 " bytes, %" PRIu64 " remain",
                                        block, counts.payload_size, in->known_size - MIN(in->known_size, in->offset));
                if (total > counts.payload_size / 4)
                        return ncu_error(err, header_offset, -EBADMSG,
                                        "block %zu: %" PRIu64 " entries cannot fit a payload of %" PRIu32 " bytes",
                                        block, total, counts.payload_size);
                if (cb->block_header) {
                        r = cb->block_header(userdata, block, &counts, buf, size, header_offset, err);
                        if (r < 0)
                                return r;
                }

                payload_start = in->offset;
                for (NcuEntryKind k = 0; k < _NCU_ENTRY_KIND_MAX; k++)
                        for (uint32_t i = 0; i < counts.n[k]; i++) {
                                uint64_t used = in->offset - payload_start, entry_offset;
                                uint32_t entry_size;

                                if (counts.payload_size - used < 4)
                                        return ncu_error(err, in->offset, -EBADMSG,
                                                        "block %zu: %s %" PRIu32 " lies past the end of the payload",
                                                        block, ncu_entry_kind_to_string(k), i);
                                r = read_u32(in, &entry_size, "entry size", err);
                                if (r < 0)
                                        return r;
                                if (entry_size > counts.payload_size - used - 4)
                                        return ncu_error(err, in->offset - 4, -EBADMSG,
                                                        "block %zu: %s %" PRIu32 " of %" PRIu32
                                                        " bytes overruns the payload (%" PRIu64 " bytes left)",
                                                        block, ncu_entry_kind_to_string(k), i, entry_size,
                                                        counts.payload_size - used - 4);
                                entry_offset = in->offset;
                                if (cb->aside_fields[k] != 0) {
                                        r = read_entry_parted(in, cb, userdata, block, k, entry_size, limits, &buf,
                                                        &allocated, err);
                                        if (r < 0)
                                                return r;
                                        n_entries++;
                                        continue;
                                }
                                if (cb->entry_take) {
                                        r = read_entry_take(in, cb, userdata, block, k, entry_size, limits, err);
                                        if (r < 0)
                                                return r;
                                        n_entries++;
                                        continue;
                                }
                                r = read_record(in, entry_size, limits->max_entry_size, &buf, &allocated,
                                                ncu_entry_kind_to_string(k), err);
                                if (r < 0)
                                        return r;
                                n_entries++;
                                if (cb->entry) {
                                        r = cb->entry(userdata, block, k, buf, entry_size, entry_offset, err);
                                        if (r < 0)
                                                return r;
                                }
                        }
                if (in->offset - payload_start != counts.payload_size)
                        return ncu_error(err, in->offset, -EBADMSG,
                                        "block %zu: the entries fill %" PRIu64 " of the payload's %" PRIu32 " bytes",
                                        block, in->offset - payload_start, counts.payload_size);
        }
        return 0;
}
