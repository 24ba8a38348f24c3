/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The daemon's side of one confined worker that serves one report (report-protocol.h), on an sd-event
 * loop: it forks and executes nvprofiled-report-worker with the caller's descriptor as its fd 0 and one
 * end of a socket pair as its fd 3, under an address-space limit of the memory reserved for it
 * (report-limits.h); sends calls one at a time and reads each reply without blocking, at most the bytes
 * the call allows; and kills the worker at a deadline (the load, or a call that takes too long), when it
 * breaks the protocol (a reply too large, malformed, unasked for, with an errno no worker gives), when it
 * dies, or when the server is freed. Whatever the worker does costs only its own report: the owner of the
 * server then gets "gone" and every call waiting an error. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>
#include <sys/types.h>

#include "macro.h"
#include "report-protocol.h"

typedef struct NcuReportServer NcuReportServer;

typedef struct NcuReportServerOptions {
        const char *worker_path;
        uint64_t memory; /* reserved for the worker: its reader's limits and (release builds) RLIMIT_AS */
        uint64_t timeout_usec; /* for the load, and for each call */
} NcuReportServerOptions;

/* The load's outcome, once: 0, or a negative errno and a message for the caller: the reader's errors
 * (-EBADMSG, -EPROTONOSUPPORT, -E2BIG, -ENOMEM, -EIO, -EINVAL, -EISDIR) with the worker's text (an offset
 * and a fixed sentence), -ETIMEDOUT, or -ECHILD (the worker crashed, was stopped by its confinement, or
 * broke the protocol). */
typedef void (*NcuReportServerLoaded)(NcuReportServer *s, int error, const char *message, void *userdata);
/* After the load, the worker is gone (-ECHILD or -ETIMEDOUT as above): nothing more is served. Called
 * after every waiting call got its error. */
typedef void (*NcuReportServerGone)(NcuReportServer *s, int error, const char *message, void *userdata);
/* A call's answer: 0 and the reply's values (valid during the callback), or a negative errno and a
 * message: the worker's errors (-EINVAL, -ENOENT, -E2BIG, -EDOM, the reader's), -ECHILD, -ETIMEDOUT, or
 * -ECANCELED when the server was freed. */
typedef void (*NcuReportServerReply)(int error, const void *data, size_t size, const char *message, void *userdata);

int ncu_report_server_start(sd_event *e, const NcuReportServerOptions *o, int report_fd, NcuReportServerLoaded loaded,
                NcuReportServerGone gone, void *userdata, NcuReportServer **ret);

/* A worker started ahead of time: confined, waiting for a report (what start() does in two steps). A
 * spare that ends or speaks is simply gone (no callback): ask before giving it a report. load() gives it
 * one: -ECHILD when it is no longer a spare. */
int ncu_report_server_spawn(sd_event *e, const char *worker_path, NcuReportServer **ret);
bool ncu_report_server_is_spare(const NcuReportServer *s);
int ncu_report_server_load(NcuReportServer *s, const NcuReportServerOptions *o, int report_fd,
                NcuReportServerLoaded loaded, NcuReportServerGone gone, void *userdata);

/* Queues a call: its arguments in the wire encoding, the most bytes its reply may take (at most
 * NCU_SERVE_REPLY_MAX), and up to NCU_SERVE_FDS_MAX descriptors it carries (duplicated: the caller keeps
 * its own). Calls are answered in order, one at a time, each within the timeout from when it is sent.
 * -ESHUTDOWN when the worker is gone. */
int ncu_report_server_call(NcuReportServer *s, NcuServeOp op, const void *args, size_t size, size_t max_reply,
                const int *fds, size_t n_fds, NcuReportServerReply reply, void *userdata);

/* Calls sent or waiting. */
size_t ncu_report_server_n_calls(const NcuReportServer *s);
pid_t ncu_report_server_pid(const NcuReportServer *s);

/* Kills the worker if it runs; every waiting call gets -ECANCELED first; loaded and gone are not called.
 * Any callback may free the server (it is then freed once that dispatch returns). */
NcuReportServer *ncu_report_server_free(NcuReportServer *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(NcuReportServer *, ncu_report_server_free);
