/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One run of the report worker (report-worker.h) on an sd-event loop, from the daemon's side: forks and
 * executes the worker with the caller's descriptor as its fd 0 and a pipe as its fd 1, reads at most
 * max_output bytes of what it writes, kills it at the deadline, and checks the document it returns (a
 * stream of report-document.h, each line parsed by json-c with a nesting bound) before anyone sees it. A worker
 * that crashes, hangs or writes garbage becomes an error for the caller; the daemon goes on. */

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <systemd/sd-event.h>

#include "macro.h"
#include "report-document.h"

typedef struct NcuReportJob NcuReportJob;

typedef struct NcuReportJobLimits {
        uint64_t timeout_usec;
        size_t max_output; /* bytes of JSON the worker may return */
} NcuReportJobLimits;

/* error: 0 and doc (the callback's: it frees it), or a negative errno and a
 * message for the caller (never bytes of the report beyond what the worker's error says: an offset and
 * a fixed sentence). -EBADMSG: the report is invalid; -E2BIG: over a limit; -ETIMEDOUT; -ECHILD: the
 * worker crashed or broke the protocol. */
typedef void (*NcuReportJobDone)(
                NcuReportJob *job, int error, NcuReportDocument *doc, const char *message, void *userdata);

int ncu_report_job_start(sd_event *e, const char *worker_path, int report_fd, const NcuReportJobLimits *limits,
                NcuReportJobDone done, void *userdata, NcuReportJob **ret);
/* Another output of the worker, args its arguments (nvprofiled-report-worker.c: "raw", "raw-instances",
 * "details", or "diff" and the pairing specs; at most NCU_REPORT_JOB_ARGS_MAX): the
 * reports' descriptors become its fd 0 (and fd 3 for a second), each read from its start; what it writes
 * comes back, at most max_output bytes, as a sealed read-only memfd (fd, owned by the callee: dup it to
 * keep it), or an error as above. */
typedef void (*NcuReportJobOutputDone)(NcuReportJob *job, int error, int fd, const char *message, void *userdata);

#define NCU_REPORT_JOB_ARGS_MAX 70
int ncu_report_job_start_output(sd_event *e, const char *worker_path, char *const *args, const int *report_fds,
                size_t n_report_fds, const NcuReportJobLimits *limits, NcuReportJobOutputDone done, void *userdata,
                NcuReportJob **ret);

/* A sealed memfd holding data: the reader gets a view nobody can change (F_SEAL_WRITE, SHRINK, GROW,
 * SEAL). Returns the fd or a negative errno. */
int ncu_memfd_new_sealed(const char *name, const void *data, size_t size);
/* The same with what write_to writes to f (0 or a negative errno): no copy of it in memory. */
int ncu_memfd_new_sealed_with(const char *name, int (*write_to)(FILE *f, void *userdata), void *userdata);

/* Kills the worker if it still runs; done is not called. */
NcuReportJob *ncu_report_job_free(NcuReportJob *j);
DEFINE_TRIVIAL_CLEANUP_FUNC(NcuReportJob *, ncu_report_job_free);
