/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The pieces ncu's text pages share: word wrapping, tables with dashed rules, and the lines that introduce a
 * process and an action. */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report.h"

/* Wraps s the way ncu does, into lines of at most width characters: a line ends at the last space within
 * the first width characters of what is left (that space opens the next line and is not shown); without such
 * a space the line is cut after width characters, the space it may start with shown. Calls line() for each,
 * with its length; "\n" in s ends a paragraph (each wrapped alone). */
void ncu_text_wrap(const char *s, size_t width, void (*line)(void *userdata, const char *p, size_t n), void *userdata);

typedef enum NcuTextAlign {
        NCU_TEXT_LEFT,
        NCU_TEXT_RIGHT,
} NcuTextAlign;

typedef struct NcuTextColumn {
        const char *name;
        NcuTextAlign align; /* of the cells; the name is aligned the same way */
        size_t max_width; /* 0: no limit; longer cells are wrapped to it */
        size_t min_width; /* the column is at least this wide */
} NcuTextColumn;

/* A table as ncu's text pages print it: indented, a dashed rule, the column names, a dashed rule, the rows,
 * a dashed rule. Column widths are those of the widest name or cell (a cell wrapped to max_width). */
typedef struct NcuTextTable {
        size_t indent;
        size_t n_columns;
        const NcuTextColumn *columns;
        bool rule_above; /* the dashed rule above the names (the raw page has none) */
        bool rule_below; /* the closing rule */
        size_t n_rows, allocated;
        char **cells; /* n_rows * n_columns, owned */
        int error;
} NcuTextTable;

void ncu_text_table_init(NcuTextTable *t, size_t indent, const NcuTextColumn *columns, size_t n_columns);
/* Appends a row of n_columns cells (copied; NULL is ""). */
void ncu_text_table_add(NcuTextTable *t, const char *const *cells);
/* Writes it; returns 0 or the first -ENOMEM met while building it. */
int ncu_text_table_print(const NcuTextTable *t, FILE *f);
void ncu_text_table_done(NcuTextTable *t);

/* "[PID] NAME@HOST" */
void ncu_text_print_process(FILE *f, const NcuAction *a);
/* Whether action b belongs to another process than a (the process line is printed again). */
bool ncu_text_process_differs(const NcuAction *a, const NcuAction *b);
/* "  NAME (GRID)x(BLOCK), Context C, Stream S, Device D, CC X.Y" */
void ncu_text_print_action(FILE *f, const NcuAction *a);
/* "NAME (GRID)x(BLOCK)": how every page names an action. */
void ncu_text_print_launch(FILE *f, const NcuAction *a);

/* The action's device and compute capability as the pages print them ("" when unknown). */
void ncu_action_device_text(const NcuAction *a, char buf[static 24]);
void ncu_action_cc_text(const NcuAction *a, char buf[static 48]);
