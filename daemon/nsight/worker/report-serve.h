/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The confined worker's side of report-protocol.h: it loads one report and then answers the daemon's
 * requests about it from the model it keeps, until the daemon closes the channel (Close, the owner
 * leaving the bus, the idle timeout) or kills it. Runs after ncu_worker_sandbox(): nothing here opens,
 * connects or executes anything; what it reads is the report's descriptor, the channel and the
 * descriptors requests carry. */

#include <stdint.h>

#include "report.h"

/* Loads the report from report_fd (from its current position) within limits, answers the load on sock_fd
 * (the first frame), then serves. Returns 0 when the daemon closed the channel, or a negative errno when
 * the channel broke (the worker then exits: the daemon sees a report that failed). */
int ncu_worker_serve(int report_fd, int sock_fd, const NcuReportLimits *limits);
