/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "macro.h"

/* The one table printer: nvprofilectl's listings and the ncu-style section listing. Columns are as wide as
 * their widest cell (header included), measured in terminal columns of UTF-8 text, separated by one space.
 *
 *         static const TableColumn columns[] = { { "PID", TABLE_RIGHT }, { "USER" }, { "EXECUTABLE" } };
 *         _cleanup_(table_freep) Table *t = table_new(columns, ELEMENTSOF(columns), terminal_escape);
 *         table_add(t, "1"); table_add(t, "root"); table_add(t, "/usr/bin/x");
 *         table_print(t, stdout, TABLE_HEADER); */

typedef enum TableAlign {
        TABLE_LEFT,
        TABLE_RIGHT,
} TableAlign;

typedef struct TableColumn {
        const char *header;
        TableAlign align;
        size_t max_width; /* 0: as wide as the widest cell */
        bool cut_start; /* wider than max_width: "..." and the end; otherwise wrapped onto more lines */
} TableColumn;

typedef enum TableFlags {
        TABLE_HEADER = 1 << 0, /* the headers as the first row */
        TABLE_RULES = 1 << 1, /* ncu's frame: a line of dashes above and below the header, every cell padded */
} TableFlags;

#define TABLE_COLUMNS_MAX 16

typedef struct Table Table;

/* escape (may be NULL) turns each cell into what may be shown, a newly allocated string (NULL on OOM):
 * nvprofilectl passes terminal_escape(), so that no cell reaches a terminal raw. */
Table *table_new(const TableColumn *columns, size_t n_columns, char *(*escape)(const char *s));
Table *table_free(Table *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(Table *, table_free);

/* Adds the next cell, row by row; NULL is taken as "". 0, or -ENOMEM. */
int table_add(Table *t, const char *cell);
int table_addf(Table *t, const char *format, ...) _printf_(2, 3);

/* The rows added so far (a row is counted once its first cell is added). */
size_t table_rows(const Table *t);

/* The columns a terminal gives the UTF-8 text s: wide East Asian characters take 2, combining marks 0,
 * every other character and every byte of invalid UTF-8 1. */
size_t table_text_width(const char *s);

/* Prints the table, whose last row must be complete. 0, or -EIO when f could not be written. */
int table_print(const Table *t, FILE *f, TableFlags flags);
