/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Building one CSV cell of the exports: a growing text buffer, and a metric's value as ncu prints it. */

#include <stdbool.h>
#include <stddef.h>

#include "report-csv-write.h"
#include "report-page-options.h"
#include "report.h"

typedef struct Cell {
        char *data; /* NUL-terminated; NULL until something was appended */
        size_t len, allocated;
        bool failed; /* an allocation failed: the text is incomplete */
} Cell;

void cell_append(Cell *c, const char *s, size_t n);
void cell_puts(Cell *c, const char *s);
void cell_reset(Cell *c);
void cell_done(Cell *c);

/* A value as ncu prints it (doubles per ncu_csv_format_double()); NULL when there is none. */
const char *ncu_cell_format_value(const NcuValue *v, char buf[static 330]);

/* How a page writes a value: NULL when there is none. */
typedef const char *(*NcuCellFormat)(const NcuValue *v, const void *userdata, char buf[static NCU_CSV_NUMBER_MAX]);

/* A number divided by *(const double *) userdata (a unit's scale), as ncu_cell_format_value() writes it. */
const char *ncu_cell_format_scaled(const NcuValue *v, const void *userdata, char buf[static NCU_CSV_NUMBER_MAX]);

/* The metric's value (value_text in its place, unless NULL): "" when it has none (instances only), "no data"
 * when it has neither value nor kind; with instances, followed by " (I1; I2; …)", or with their details by
 * " (ID1: I1; ID2: I2; …)" (an instance without a correlation id as with values). Values are written by
 * format (NULL: ncu_cell_format_value()) with userdata, correlation ids as they are. */
void ncu_cell_format_metric(Cell *c, const NcuMetric *m, NcuPrintInstances instances, const char *value_text,
                NcuCellFormat format, const void *userdata);
