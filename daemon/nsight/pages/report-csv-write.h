/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The cells of ncu's CSV exports (ncu --import R --csv --print-units base), as ncu 2024.1.1 writes them:
 * every field in double quotes (a quote inside doubled), fields separated by ',' and records ended by
 * '\n'; numbers in base units, doubles with two decimals unless integral, no thousands separators. */

#include <stdbool.h>
#include <stdio.h>

/* Enough for any double printed with %.2f (309 integral digits) and any uint64. */
#define NCU_CSV_NUMBER_MAX 330

/* A double as ncu prints it: integral values without decimals ("31872"), others rounded to two
 * decimals ("0.00", "133819277108.43"). */
const char *ncu_csv_format_double(double d, char buf[static NCU_CSV_NUMBER_MAX]);

/* Writes s as one quoted field, preceded by ',' unless first. NULL writes an empty field. */
void ncu_csv_write_field(FILE *f, const char *s, bool first);
