/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* An action's NVTX ranges on ncu's pages: two CSV columns after "Host Name" when some action of the report
 * is inside a range ("thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg", the
 * thread and each range of its push/pop stacks, outermost first, quoted; "Id:Domain:Start/Stop_Range:…",
 * the open start/end ranges), and a block under the action's line on the text pages. */

#include <stdbool.h>
#include <stdio.h>

#include "report-csv-cells.h"
#include "report.h"

bool ncu_report_has_nvtx_ranges(const NcuReport *r);

void ncu_nvtx_push_pop_cell(Cell *c, const NcuAction *a);
void ncu_nvtx_start_end_cell(Cell *c, const NcuAction *a);

void ncu_nvtx_print_text(FILE *f, const NcuAction *a);
