/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* ncu-compatible exports of a report model, byte for byte what ncu 2024.1.1 prints for
 *   raw:     ncu --import R --page raw --csv --print-units base [--print-metric-instances values]
 *   details: ncu --import R --page details --csv --print-units base --print-details all
 * Both return 0, or a negative errno (-ENOMEM, or the stream's write error). */

#include <stdbool.h>
#include <stdio.h>

#include "report-attrs.h"
#include "report.h"

/* One row per action (file order), columns ID…CC then every metric name of the report (pseudo metrics
 * "prefix:…" left out) in byte order; the second row holds each metric's unit. With instances, a metric
 * with instances prints "VALUE (I1; I2; …)". */
int ncu_export_raw_csv(const NcuReport *r, bool instances, FILE *f);

/* Per action, the sections embedded in it rendered like ncu's details page (all body items), then the
 * sections' rule results; the rule columns only when some action has rule results. */
int ncu_export_details_csv(const NcuReport *r, FILE *f);

/* The leading columns both pages share: ID, Process ID, Process Name, Host Name, Kernel Name (demangled),
 * Context, Stream, Block Size, Grid Size, Device, CC. */
void ncu_export_write_action_columns(FILE *f, size_t id, const NcuAction *a);
extern const char *const ncu_export_action_column_names[11];
