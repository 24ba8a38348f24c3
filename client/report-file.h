/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A report file as a client opens it, with the caller's own rights: for the daemon (its descriptor goes
 * to LoadReport) or for reading it in the client's process. nvprofilectl and the app both use these. */

#include "report.h"

/* Opens path for reading: a regular file only, checked on an O_PATH handle before anything is opened (a
 * fifo or a device never is), then that same file reopened through the handle. 0, or a negative errno
 * (-EBADFD: not a regular file). */
int report_file_open(const char *path, int *ret_fd);
/* Opens it so and parses it in this process. 0, or a negative errno; when the file was opened but not
 * understood, ret_error says where and why (its message is empty otherwise). */
int report_file_load(const char *path, NcuReport **ret, NcuReportError *ret_error);
