/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* How much memory one report may make a reader use, derived from the file and a ceiling: one rule for the
 * daemon's confined workers (their reservation in the callers' budgets and their address-space limit,
 * report-server.h) and for the callers' own in-process readers (nvprofilectl --local, the Python module),
 * so that no reader of an untrusted report grows with what the report claims rather than with its size.
 *
 * A model takes about three times its container for the corpus's reports (2.4 to 2.9 times), and up to
 * twenty times for one of deep NVTX stacks (a five-byte range on the wire is a ninety-six-byte one in the
 * model); a .ncu-repz is assumed to expand at most ten times (zstd over protobuf). So a file of S bytes
 * gets 32 S (320 S compressed) plus 32 MiB for the smallest reports' fixed costs, at most the ceiling; a
 * stream of unknown size (a pipe) gets the ceiling. The reader's own limits then keep the model to three
 * quarters of that and each record to a sixteenth (ncu_report_limits_for_memory()), which bounds what a
 * load holds at once (the model, one record and its unpacked messages) below the whole.
 */

#include <stdbool.h>
#include <stdint.h>

#include "report.h"

/* Beyond its reservation, the address space of the worker's program itself (RLIMIT_AS, set by the worker
 * before it reads its report): its libraries, stacks and the allocator's slack (an idle worker maps about
 * 20 MiB, little of it resident). */
#define NCU_WORKER_ADDRESS_SPACE_BASE ((uint64_t) 64 * 1024 * 1024)

/* ReportWorkerMemoryMax='s default, and the ceiling of in-process readers. */
#define NCU_REPORT_MEMORY_CEILING_DEFAULT ((uint64_t) 1024 * 1024 * 1024)
/* The least a reader gets, for the fixed costs of even an empty report. */
#define NCU_REPORT_MEMORY_BASE ((uint64_t) 32 * 1024 * 1024)

/* The memory a reader of a file of size bytes needs (size 0: unknown), at most ceiling. */
uint64_t ncu_report_memory_for_file(uint64_t size, bool compressed, uint64_t ceiling);

/* Reader limits that keep a load within memory bytes. */
void ncu_report_limits_for_memory(uint64_t memory, NcuReportLimits *ret);

/* What a report on fd needs (fstat, and the first bytes read with pread when fd is a regular file; a
 * pipe's size is unknown), at most ceiling. fd's offset is left alone. */
uint64_t ncu_report_memory_for_fd(int fd, uint64_t ceiling);
