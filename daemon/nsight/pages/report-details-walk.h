/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* ncu's details page, independent of how it is written: every section embedded in an action, rendered
 * against the action, told to a sink (the CSV page in report-csv-details.c, the text page in
 * report-page-details.c). Per action, sections in Order (equal orders by display name); per section:
 *   header  the section's own table: its Header metrics, and at --print-details all also its Metrics and
 *           SourceMetrics, sorted by metric name (a metric listed twice shows once);
 *   body    each Body (its DisplayName), each body item (tables and charts sorted by metric name, or by
 *           value where the item says so; rooflines, memory tables, NUMA, NVLink);
 *   rules   the section's rule results, message by message.
 * Filters are read as ncu 2024.1.1 reads them: an architecture its schema lacks is an absent bound, and an
 * action whose compute capability its schema lacks is read as one of NCU_ASSUMED_ARCH. */

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"
#include "report-page-options.h"
#include "report.h"

/* One metric row. */
typedef struct NcuDetailsRow {
        const char *label; /* what the page shows as the metric's name */
        const char *name; /* the metric looked up */
        const NcuMetric *metric; /* NULL: the report lacks it ("n/a") */
        const char *section_unit; /* the unit the section sets, or NULL */
        bool instances; /* the section shows its instances */
} NcuDetailsRow;

/* A table of rows: the section's own (label ""), or a body item's. */
typedef struct NcuDetailsTable {
        const char *label; /* CSV's "Body Item Label" */
        /* The lines the text page prints above it ("Table Name : …", a roofline's labels). */
        size_t n_headings;
        const char *const *headings;
        const NcuDetailsRow *rows;
        size_t n_rows;
} NcuDetailsTable;

/* A table of plain cells (NUMA affinity): column names and n_rows * n_columns cells, row by row; the text
 * page aligns the columns of names to the left, the others to the right. */
typedef struct NcuDetailsGrid {
        const char *label;
        bool under_body_name; /* the text page prints the body's name above the table */
        /* The CSV page prints this line in place of the table (NULL: the table). */
        const char *csv_replacement;
        size_t n_columns;
        const char *const *columns;
        const bool *left_aligned;
        size_t n_rows;
        const char *const *cells;
} NcuDetailsGrid;

/* What a page does with the walk; any operation may be NULL (nothing to do). */
typedef struct NcuDetailsSink {
        void (*action_begin)(void *userdata, size_t id, const NcuAction *a);
        /* ncu 2024.1.1 does not know the action's compute capability: it says so once per pass (the header
         * pass at the action's start, the body pass after its sections). */
        void (*unknown_arch)(void *userdata);
        void (*section_begin)(void *userdata, const char *name, const char *identifier);
        void (*body_begin)(void *userdata, const char *display_name);
        void (*table)(void *userdata, const NcuDetailsTable *t);
        void (*grid)(void *userdata, const NcuDetailsGrid *g);
        /* A line of text in place of a picture (no NVLink connections); text NULL: a picture that shows
         * nothing but its section (a timeline). */
        void (*note)(void *userdata, const char *heading, const char *text);
        /* Message i of a rule result of the section. */
        void (*rule)(void *userdata, const char *section_identifier, const NcuRuleResult *rr, size_t i);
        void (*section_end)(void *userdata);
        void (*action_end)(void *userdata);
} NcuDetailsSink;

/* The compute capability ncu 2024.1.1 reads an action as when its schema lacks the action's own (a GPU newer
 * than it), as major * 10 + minor, and what it prints then. */
#define NCU_ASSUMED_ARCH 50
#define NCU_UNKNOWN_ARCH_WARNING \
        "==WARNING== Failed to detect compute capability, assuming " STRINGIFY(NCU_ASSUMED_ARCH)

/* A rule message's type as the pages show it ("INF", "WRN", "ERR", "OPT"; "" for others). */
const char *ncu_details_message_type(uint32_t type);

/* Walks every action of the report at that level. Returns 0 or -ENOMEM. */
int ncu_details_walk(const NcuReport *r, NcuPrintDetails level, const NcuDetailsSink *sink, void *userdata);
/* Walks action a of the report alone, as ncu_details_walk() walks it (-ENOENT: not the report's). */
int ncu_details_walk_action(const NcuReport *r, const NcuAction *a, NcuPrintDetails level, const NcuDetailsSink *sink,
                void *userdata);

/* The label of a breakdown's metric: template ("{UNIT}: {COMPOUND_NAME}") with the metric's hardware unit
 * in capitals and its counter's words capitalized. */
char *ncu_details_breakdown_label(const char *template, const char *name);

/* ncu's inline markup in rule messages: "@url:TEXT:URL@", "@section:ID:TEXT@", other "@KIND:…:TEXT@" kinds
 * and plain text between them. */
typedef enum NcuMarkupKind {
        NCU_MARKUP_TEXT, /* text: shown as it is */
        NCU_MARKUP_URL, /* text: the link's words, target: its URL */
        NCU_MARKUP_SECTION, /* text: the words, target: the identifier of the section they refer to */
} NcuMarkupKind;
typedef void (*NcuMarkupSpan)(void *userdata, NcuMarkupKind kind, const char *text, size_t n_text, const char *target,
                size_t n_target);
/* Tells span every piece of s in order (other kinds of markup reduced to their text). */
void ncu_details_markup_parse(const char *s, NcuMarkupSpan span, void *userdata);

/* A rule message as the pages show it: ncu's inline markup reduced to text, "@url:TEXT:URL@" to "TEXT (URL)"
 * and "@section:ID:TEXT@" to TEXT. Returns a new string, or NULL on -ENOMEM. */
char *ncu_details_plain_message(const char *s);

/* The speedup estimate that goes with message i of a rule result (NULL when none). */
const NcuSpeedup *ncu_details_rule_speedup(const NcuRuleResult *rr, size_t i);
