/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* ncu's units and numbers on its pages: the base units of --print-units base (the unit a CSV export prints,
 * metric_attrs_csv_unit()), the scaled units of --print-units dynamic (ncu's default), and how a value is
 * written in each.
 *
 * The scaling rule, read off every value ncu 2024.1.1 printed for the corpus reports in both modes (raw,
 * details, text and CSV pages): a unit scales by the first of these words it holds, in steps of 1000:
 *   "byte"                 byte, Kbyte, Mbyte, Gbyte, Tbyte, Pbyte   (wherever it stands: byte/second gives
 *                          Gbyte/second, %/byte gives %/Kbyte: the value is divided, the word prefixed)
 *   "nsecond" (leading)    nsecond, usecond, msecond, second          (durations, stored in nanoseconds)
 *   "/second" (trailing)   X/second, X/msecond, X/usecond, X/nsecond  (rates of anything but bytes)
 * Every other unit (cycle, inst, sector, %, warp, ...) never scales. The step taken is the largest whose
 * factor the magnitude reaches (a value of 999 bytes stays byte, 1000 is 1 Kbyte), the last step at most.
 * The magnitude is the value's own on a per-metric page (details, raw text); on the raw CSV page, where a
 * column has one unit, the largest of the column's finite values. Zero, NaN and an empty unit keep the base
 * unit. */

#include <stdbool.h>
#include <stddef.h>

#include "metric-attrs.h"
#include "report-csv-write.h"
#include "report-page-options.h"
#include "report.h"

/* The unit scaled for a value of magnitude |magnitude| (see above): writes the unit to ret_unit and returns the
 * divisor (1 when it stays). */
double ncu_unit_scale(const char *base_unit, double magnitude, char ret_unit[static METRIC_UNIT_MAX]);

/* The unit and value a page shows for metric m of action a (section_unit: the unit a section sets, or NULL;
 * details_guess: the details page's own guess for metrics outside ncu's database, metric_attrs_details_unit()).
 * In dynamic units a numeric value is scaled by its own magnitude; ret_nan says the value is NaN (the text
 * pages mark it). Writes the unit and the value's text. */
typedef struct NcuShownValue {
        char unit[METRIC_UNIT_MAX];
        char text[NCU_CSV_NUMBER_MAX];
        bool numeric; /* a number: the text is right-aligned and may be scaled */
        bool nan;
        double value; /* the number shown, scaled */
        double divisor; /* value = the stored value / divisor */
} NcuShownValue;

void ncu_metric_base_unit(const NcuAction *a, const NcuMetric *m, const char *section_unit, bool details_guess,
                char ret_unit[static METRIC_UNIT_MAX]);
void ncu_shown_value(const NcuValue *v, const char *base_unit, NcuPrintUnits units, NcuShownValue *ret);
