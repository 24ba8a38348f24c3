/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The private channel between the daemon and the confined worker that serves one loaded report
 * (report-server.h is the daemon's side, report-serve.h the worker's). The worker keeps the parsed model
 * for as long as the report lives; the daemon forwards each D-Bus call as a small request and relays a
 * bounded reply, and never parses or holds the model itself.
 *
 * The channel is a stream socket of frames: an NcuFrameHeader (a code and the payload's size) and the
 * payload. A worker starts without a report and confines itself (report-worker.h) before anything else:
 * the daemon may start one ahead of time, as a spare. The daemon's first frame gives it its report:
 * NCU_SERVE_LOAD with the bytes reserved for it (u64) and the report's descriptor. The worker's first
 * frame says whether the report loaded (code 0) or why not (an errno and a message). Then each request (code: an
 * NcuServeOp) gets exactly one reply (code 0 and the reply's values, or a positive errno and a message). A request's
 * payload starts with the most bytes its reply may take (u64); descriptors a request needs (a memfd to write an export
 * into, a baseline's report) travel with its header as SCM_RIGHTS.
 *
 * Values are in a wire encoding that mirrors D-Bus signatures, so that the daemon copies a reply into a
 * D-Bus message by the method's signature alone (bus-report.c), checking every value as it goes:
 *   y: 1 byte; b: 1 byte, 0 or 1; u, i: 4 bytes; t, x, d: 8 bytes (host order: both ends are this host);
 *   s: u32 length, the bytes (valid UTF-8 without NUL), a NUL; v: the contained type's signature character
 *   (a basic type) and its value; a: u32 count and the elements; (…): the members in order. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

typedef enum NcuServeOp {
        NCU_SERVE_GET_INFO = 1, /* () -> (s ncu_version, u format_version, u ranges, t size) */
        NCU_SERVE_LIST_ACTIONS, /* (u range) -> a(ussss(ttt)(ttt)d) */
        NCU_SERVE_GET_METRIC_NAMES, /* (u range, u action) -> as */
        NCU_SERVE_GET_METRIC, /* (u, u, s name) -> (s kind, b has_value, v value, a(vv) instances) */
        NCU_SERVE_GET_RULE_RESULTS, /* (u, u) -> a(sssa(sss)a(sd)) */
        NCU_SERVE_GET_RULE_RESULTS_FULL, /* (u, u) -> a(sssa(isss)a(sd)a(isdts)a(ssttss)) */
        NCU_SERVE_GET_SOURCE_FILES, /* (u, u) -> a(ss) */
        NCU_SERVE_ACTIONS_BY_NVTX, /* (u range, as includes, as excludes) -> au */
        NCU_SERVE_EXPORT, /* (u NcuServeExport[, the page options]) + a memfd -> t bytes written */
        NCU_SERVE_DIFF, /* (as specs) + the baseline's descriptor and a memfd -> t bytes written */
        NCU_SERVE_GET_SUMMARY, /* () -> a(uuus(ttt)(ttt)da(ssd)): report-summary.h's rows */
        NCU_SERVE_GET_DETAILS,
        NCU_SERVE_GET_SOURCE_VIEW, /* (u range, u action) + a memfd -> t bytes written (report-source-view.h) */
        _NCU_SERVE_OP_MAX,
} NcuServeOp;

/* The daemon's first frame (not an NcuServeOp: never a call). */
#define NCU_SERVE_LOAD 0x4c4f4144u /* "LOAD" */

typedef enum NcuServeExport {
        NCU_SERVE_EXPORT_JSON, /* the model, report-json.h's document */
        NCU_SERVE_EXPORT_RAW, /* ncu's raw page, CSV, base units */
        NCU_SERVE_EXPORT_RAW_INSTANCES, /* the same with metric instances as values */
        NCU_SERVE_EXPORT_DETAILS, /* ncu's details page, CSV, base units, all details */
        NCU_SERVE_EXPORT_PAGE, /* any of ncu's pages: the options follow (report-page-options.h) */
        _NCU_SERVE_EXPORT_MAX,
} NcuServeExport;

typedef struct NcuFrameHeader {
        uint32_t code; /* a request's NcuServeOp; a reply's 0 or positive errno */
        uint32_t size; /* the payload's bytes */
} NcuFrameHeader;

/* A request's payload (the daemon writes them: small). */
#define NCU_SERVE_REQUEST_MAX ((size_t) 1024 * 1024)
/* A reply's, whatever a request allows: a larger answer is an export's job. */
#define NCU_SERVE_REPLY_MAX ((size_t) 64 * 1024 * 1024)
/* An error's message. */
#define NCU_SERVE_MESSAGE_MAX 256
/* Descriptors one request carries. */
#define NCU_SERVE_FDS_MAX 2
/* The worker's fd of the channel (fd 0 is the report). */
#define NCU_SERVE_SOCKET_FD 3

/* Builds values in the wire encoding. Errors are sticky: the first failure (-ENOMEM, or -E2BIG past max
 * bytes) stops every later write and is what ncu_wire_finish() returns. */
typedef struct NcuWire {
        uint8_t *data;
        size_t size, allocated;
        size_t max;
        int error;
} NcuWire;

void ncu_wire_init(NcuWire *w, size_t max);
void ncu_wire_done(NcuWire *w);
int ncu_wire_finish(const NcuWire *w);

void ncu_wire_put_u8(NcuWire *w, uint8_t v);
void ncu_wire_put_bool(NcuWire *w, bool v);
void ncu_wire_put_u32(NcuWire *w, uint32_t v);
void ncu_wire_put_i32(NcuWire *w, int32_t v);
void ncu_wire_put_u64(NcuWire *w, uint64_t v);
void ncu_wire_put_double(NcuWire *w, double v);
/* s (NULL is ""): invalid UTF-8 becomes U+FFFD, so that every string is one D-Bus can carry (a report's
 * strings are whatever its producer wrote). */
void ncu_wire_put_string(NcuWire *w, const char *s);
/* size bytes as they are: values another end encoded already (the page options, report-page-options.h). */
void ncu_wire_put_encoded(NcuWire *w, const void *data, size_t size);
/* An array: open it, put its elements, close it with their count. */
size_t ncu_wire_open_array(NcuWire *w);
void ncu_wire_close_array(NcuWire *w, size_t token, uint32_t count);

/* Reads values back, each checked against what is left: -EBADMSG when the bytes do not hold one. */
typedef struct NcuWireReader {
        const uint8_t *p;
        size_t left;
} NcuWireReader;

void ncu_wire_reader_init(NcuWireReader *r, const void *data, size_t size);
int ncu_wire_get_u8(NcuWireReader *r, uint8_t *ret);
int ncu_wire_get_bool(NcuWireReader *r, bool *ret);
int ncu_wire_get_u32(NcuWireReader *r, uint32_t *ret);
int ncu_wire_get_i32(NcuWireReader *r, int32_t *ret);
int ncu_wire_get_u64(NcuWireReader *r, uint64_t *ret);
int ncu_wire_get_double(NcuWireReader *r, double *ret);
/* A string as stored: NUL-terminated in place, valid UTF-8 without NUL (checked). */
int ncu_wire_get_string(NcuWireReader *r, const char **ret);
/* An array's count, checked against the bytes left (each element takes min_size at least). */
int ncu_wire_get_count(NcuWireReader *r, size_t min_size, uint32_t *ret);

/* Frames over the channel, blocking (the worker's side; the daemon reads without blocking, in
 * report-server.c). Sends header and payload with up to NCU_SERVE_FDS_MAX descriptors. */
int ncu_frame_send(int fd, uint32_t code, const void *payload, size_t size, const int *fds, size_t n_fds);
/* Receives one frame of at most max bytes into *ret_payload (malloc()ed; NULL for none), with its
 * descriptors (the rest of ret_fds is -EBADF). 0 at a clean end of the stream (no frame), 1 with a frame,
 * -EBADMSG for a frame over max or cut short, or a read error. */
int ncu_frame_receive(int fd, size_t max, NcuFrameHeader *ret_header, uint8_t **ret_payload,
                int ret_fds[static NCU_SERVE_FDS_MAX]);
