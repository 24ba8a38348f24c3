/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Reports are untrusted files from any user. The daemon never parses one itself: it runs
 * nvprofiled-report-worker, which reads the report from fd 0 (the caller's own descriptor), and, before it
 * reads a byte, gives up everything: supplementary groups, its uid and gid (to "nobody"), every
 * capability (ambient, permitted, effective), then sets no_new_privs and a seccomp filter (libseccomp)
 * that allows only what reading its report, allocating and talking over its channel take; anything else
 * kills it. It then keeps the model and answers the daemon's requests about it (report-serve.h) until the
 * daemon ends it; the daemon's side (report-server.h) bounds its memory, its time and every reply. */

#include <sys/types.h>

#define NCU_REPORT_WORKER_NAME "nvprofiled-report-worker"
#define NCU_REPORT_WORKER_USER "nobody"

/* Drops to uid/gid with no groups and no capabilities, sets no_new_privs and loads the seccomp filter.
 * When the process is not root and cannot change its ids, it keeps its own (it has nothing to drop
 * but capabilities, which go). Returns 0 or a negative errno; the caller must exit on failure. */
int ncu_worker_sandbox(uid_t uid, gid_t gid);
