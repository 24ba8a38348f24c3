/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Reports are untrusted files from any user. The daemon never parses one itself: it runs
 * nvprofiled-report-worker, which reads the report from fd 0 (the caller's own descriptor), and, before it
 * reads a byte, gives up everything: supplementary groups, its uid and gid (to "nobody"), every
 * capability (ambient, permitted, effective), then sets no_new_privs and a seccomp filter (libseccomp)
 * that allows only what reading fd 0, allocating and writing fd 1 take; anything else kills it. It writes
 * the model as the JSON document of report-json.h, in the stream of lines of report-document.h, to fd 1,
 * or {"error": {"errno", "offset", "message"}}, and exits. The daemon runs it through NcuReportJob (report-job.h),
 * which bounds its time and output and validates what it returns. */

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "report-json.h"

#define NCU_REPORT_WORKER_NAME "nvprofiled-report-worker"
#define NCU_REPORT_WORKER_USER "nobody"

/* Drops to uid/gid with no groups and no capabilities, sets no_new_privs and loads the seccomp filter.
 * When the process is not root and cannot change its ids, it keeps its own (it has nothing to drop
 * but capabilities, which go). Returns 0 or a negative errno; the caller must exit on failure. */
int ncu_worker_sandbox(uid_t uid, gid_t gid);

/* The worker's work after the sandbox: reads the report from in_fd, writes its document to out_fd as the
 * stream of report-document.h, hook adding to every metric's object. Returns 0 when a model was written,
 * 1 when an error document was written, negative when the output is incomplete (the worker then exits
 * with 2). */
int ncu_worker_run(int in_fd, int out_fd, NcuJsonMetricHook hook);

/* The worker's other outputs (report-job.h's output jobs): reads n_in reports (1 or 2: a diff's current
 * report, then its baseline), each from the start of its descriptor, and writes what write_out prints
 * of them (CSV exports, a diff) to out_fd, or an error document as above. write_out returns 0, 1 when
 * what it printed is an error document of its own (a diff's bad spec), or a negative errno. Same return
 * values. */
#define NCU_WORKER_INPUTS_MAX 2
int ncu_worker_run_output(const int *in_fds, size_t n_in, int out_fd,
                int (*write_out)(NcuReport *const *reports, FILE *f, void *userdata), void *userdata);
