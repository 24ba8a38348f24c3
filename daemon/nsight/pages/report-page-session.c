/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ncu's session page (ncu --import R --page session [--csv]): four tables of the report's session.
 *   Launch Settings     the profiler's command line, when the report stores it
 *   Session Info        when it was made (UTC), the host and target systems (what they tell), the versions
 *   Processes           every process of the results: its id and executable's path
 *   Device Attributes   per device, the attributes ncu picks (those below that the device has)
 * As text, each table is left-aligned and padded to its columns' widths, a value longer than 120 characters
 * cut into lines of 120 (its own line breaks kept, counted as characters), continued under its column. As
 * CSV (no byte oracle: ncu's own shape is not in the corpus), each table is its title on a line, its column
 * names and its rows, tables separated by an empty line. */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "report-csv-write.h"
#include "report-page-text.h"
#include "report-page.h"
#include "string-util.h"

#define SESSION_VALUE_WIDTH 120

/* The device attributes the page shows, in its order. */
static const char *const shown_attributes[] = {
        "confidential_computing_mode",
        "multiprocessor_count",
        "display_name",
        "compute_capability_major",
        "compute_capability_minor",
        "total_memory",
};

#define ATTRIBUTE_PREFIX "device__attribute_"

/* A table: its title, and its column names and cells in an NcuTextTable (printed here, its own way). */
typedef struct SessionTable {
        const char *title;
        NcuTextColumn columns[8];
        char column_names[8][32]; /* storage of the devices' column names */
        NcuTextTable t;
} SessionTable;

static void table_init(SessionTable *t, const char *title, const char *const *columns, size_t n)
{
        t->title = title;
        for (size_t i = 0; i < n; i++)
                t->columns[i] = (NcuTextColumn){ .name = columns[i] };
        ncu_text_table_init(&t->t, 0, t->columns, n);
}

static void table_add_pair(SessionTable *t, const char *name, const char *value)
{
        ncu_text_table_add(&t->t, (const char *const[]){ name, value });
}

static size_t column_width(const NcuTextTable *t, size_t c)
{
        size_t w = strlen(t->columns[c].name);

        for (size_t r = 0; r < t->n_rows; r++)
                w = MAX(w, strlen(t->cells[r * t->n_columns + c]));
        return MIN(w, (size_t) SESSION_VALUE_WIDTH);
}

static void print_rule(FILE *f, const size_t *widths, size_t n)
{
        for (size_t c = 0; c < n; c++) {
                if (c > 0)
                        fputc(' ', f);
                for (size_t i = 0; i < widths[c]; i++)
                        fputc('-', f);
        }
        fputc('\n', f);
}

/* A row: each cell cut into pieces of its column's width, the pieces of the row's cells side by side. */
static void print_row(FILE *f, const char *const *cells, const size_t *widths, size_t n)
{
        size_t offset = 0;
        bool more;

        do {
                more = false;
                for (size_t c = 0; c < n; c++) {
                        size_t len = strlen(cells[c]), from = MIN(offset, len), piece = MIN(len - from, widths[c]);
                        if (c > 0)
                                fputc(' ', f);
                        fprintf(f, "%-*.*s", (int) widths[c], (int) piece, cells[c] + from);
                        if (len > offset + widths[c])
                                more = true;
                }
                fputc('\n', f);
                offset += SESSION_VALUE_WIDTH;
        } while (more);
}

static void print_table_text(FILE *f, const SessionTable *s)
{
        const NcuTextTable *t = &s->t;
        const char *names[8];
        size_t widths[8];

        for (size_t c = 0; c < t->n_columns; c++) {
                widths[c] = column_width(t, c);
                names[c] = t->columns[c].name;
        }
        fprintf(f, "%s\n", s->title);
        print_rule(f, widths, t->n_columns);
        print_row(f, names, widths, t->n_columns);
        print_rule(f, widths, t->n_columns);
        for (size_t r = 0; r < t->n_rows; r++)
                print_row(f, (const char *const *) t->cells + r * t->n_columns, widths, t->n_columns);
}

static void print_table_csv(FILE *f, const SessionTable *s)
{
        const NcuTextTable *t = &s->t;

        ncu_csv_write_field(f, s->title, true);
        fputc('\n', f);
        for (size_t c = 0; c < t->n_columns; c++)
                ncu_csv_write_field(f, t->columns[c].name, c == 0);
        fputc('\n', f);
        for (size_t r = 0; r < t->n_rows; r++) {
                for (size_t c = 0; c < t->n_columns; c++)
                        ncu_csv_write_field(f, t->cells[r * t->n_columns + c], c == 0);
                fputc('\n', f);
        }
}

static void add_system(SessionTable *t, const char *who, const NcuSystemInfo *s, bool ip_addresses)
{
        _cleanup_free_ char *os = NULL, *ips = NULL;
        char key[64];

        snprintf(key, sizeof(key), "%s Name", who);
        table_add_pair(t, key, s->computer_name);
        if (ip_addresses && s->n_ip_addresses > 0) {
                size_t n = 0;
                for (size_t i = 0; i < s->n_ip_addresses; i++)
                        n += strlen(strempty(s->ip_addresses[i])) + 2;
                ips = malloc(n + 1);
                if (!ips) {
                        t->t.error = -ENOMEM;
                        return;
                }
                ips[0] = 0;
                for (size_t i = 0; i < s->n_ip_addresses; i++) {
                        if (i > 0)
                                strcat(ips, ", ");
                        strcat(ips, strempty(s->ip_addresses[i]));
                }
                snprintf(key, sizeof(key), "%s IP Addresses", who);
                table_add_pair(t, key, ips);
        }
        if (!isempty(s->os_name) || !isempty(s->build)) {
                if (asprintf(&os, "%s - %s", strempty(s->os_name), strempty(s->build)) < 0) {
                        os = NULL;
                        t->t.error = -ENOMEM;
                        return;
                }
                snprintf(key, sizeof(key), "%s OS", who);
                table_add_pair(t, key, os);
        }
        if (!isempty(s->architecture)) {
                snprintf(key, sizeof(key), "%s Architecture", who);
                table_add_pair(t, key, s->architecture);
        }
        if (!isempty(s->processor)) {
                snprintf(key, sizeof(key), "%s Processor", who);
                table_add_pair(t, key, s->processor);
        }
}

static const NcuDeviceAttribute *device_attribute(const NcuDevice *d, const char *name)
{
        for (size_t i = 0; i < d->n_attributes; i++) {
                const char *n = d->attributes[i].name;
                if (n && startswith(n, ATTRIBUTE_PREFIX) && streq(n + strlen(ATTRIBUTE_PREFIX), name))
                        return &d->attributes[i];
        }
        return NULL;
}

/* "2025-Nov-17 10:58:20": seconds since the epoch as a UTC date, computed here (civil from days, Howard
 * Hinnant's algorithm) rather than by gmtime(), which may read the time zone files: the report worker that
 * prints the page may open no file. */
static void format_utc(uint64_t seconds, char buf[static 64])
{
        static const char months[12][4] = {
                "Jan",
                "Feb",
                "Mar",
                "Apr",
                "May",
                "Jun",
                "Jul",
                "Aug",
                "Sep",
                "Oct",
                "Nov",
                "Dec",
        };
        int64_t days = (int64_t) (seconds / 86400), rest = (int64_t) (seconds % 86400);
        int64_t z = days + 719468, era = z / 146097, doe = z - era * 146097;
        int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
        int64_t day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
        int64_t year = yoe + era * 400 + (month <= 2);

        snprintf(buf, 64, "%" PRId64 "-%s-%02" PRId64 " %02" PRId64 ":%02" PRId64 ":%02" PRId64, year,
                        months[month - 1], day, rest / 3600, rest / 60 % 60, rest % 60);
}

static int compare_process_index(const void *a, const void *b, void *userdata)
{
        const NcuProcess *p = userdata;
        size_t x = *(const size_t *) a, y = *(const size_t *) b;

        if (p[x].process_id != p[y].process_id)
                return p[x].process_id < p[y].process_id ? -1 : 1;
        return x < y ? -1 : x > y;
}

/* Each process id once, as the first block naming it has it, in the order they first appear. */
static int add_processes(const NcuReport *r, SessionTable *t)
{
        _cleanup_free_ size_t *order = NULL;
        _cleanup_free_ bool *first = NULL;
        char buf[16];

        order = calloc(MAX(r->n_processes, (size_t) 1), sizeof(size_t));
        first = calloc(MAX(r->n_processes, (size_t) 1), sizeof(bool));
        if (!order || !first)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_processes; i++)
                order[i] = i;
        if (r->n_processes > 0)
                qsort_r(order, r->n_processes, sizeof(size_t), compare_process_index, (void *) r->processes);
        for (size_t k = 0; k < r->n_processes; k++)
                first[order[k]] = k == 0 || r->processes[order[k - 1]].process_id != r->processes[order[k]].process_id;
        for (size_t i = 0; i < r->n_processes; i++) {
                if (!first[i])
                        continue;
                snprintf(buf, sizeof(buf), "%" PRIu32, r->processes[i].process_id);
                table_add_pair(t, buf, r->processes[i].process_name);
        }
        return t->t.error;
}

static int build_tables(const NcuReport *r, SessionTable tables[static 4])
{
        const NcuSessionDetails *s = &r->session;
        char buf[64];
        int k;

        table_init(&tables[0], "Launch Settings", (const char *const[]){ "Launch Attribute", "Value" }, 2);
        if (!isempty(s->profiler_cmdline))
                table_add_pair(&tables[0], "Profiler Command Line", s->profiler_cmdline);

        table_init(&tables[1], "Session Info", (const char *const[]){ "Session Attribute", "Value" }, 2);
        if (s->has_creation_time) {
                format_utc(s->creation_time, buf);
                table_add_pair(&tables[1], "Created", buf);
        }
        add_system(&tables[1], "Host", &s->host, false);
        if (s->target.present)
                add_system(&tables[1], "Target", &s->target, true);
        for (size_t i = 0; i < s->n_versions; i++)
                table_add_pair(&tables[1], s->versions[i].provider, s->versions[i].version);

        table_init(&tables[2], "Processes", (const char *const[]){ "Process Id", "Process Name" }, 2);
        k = add_processes(r, &tables[2]);
        if (k < 0)
                return k;

        /* One column per device: more than the table's room are left out (real systems have a few). */
        SessionTable *d = &tables[3];
        const char *names[8] = { "Device Attribute" };
        size_t n_columns = 1 + MIN(s->n_devices, (size_t) 7);
        for (size_t i = 0; i + 1 < n_columns; i++) {
                snprintf(d->column_names[i], sizeof(d->column_names[i]), "Device %" PRIu32, s->devices[i].id);
                names[i + 1] = d->column_names[i];
        }
        table_init(d, "Device Attributes", names, n_columns);
        for (size_t a = 0; a < ELEMENTSOF(shown_attributes); a++) {
                const char *cells[8] = { shown_attributes[a] };
                char values[7][NCU_CSV_NUMBER_MAX];
                bool any = false;
                for (size_t i = 0; i + 1 < n_columns; i++) {
                        const NcuDeviceAttribute *attr = device_attribute(&s->devices[i], shown_attributes[a]);
                        cells[i + 1] = attr ? ncu_cell_format_value(&attr->value, values[i]) : NULL;
                        any = any || attr;
                }
                if (any)
                        ncu_text_table_add(&d->t, cells);
        }
        for (size_t i = 0; i < 4; i++)
                if (tables[i].t.error < 0)
                        return tables[i].t.error;
        return 0;
}

int ncu_page_session(const NcuReport *report, bool csv, FILE *f)
{
        SessionTable tables[4] = { { .title = NULL } };

        for (size_t i = 0; i < 4; i++)
                ncu_text_table_init(&tables[i].t, 0, NULL, 0);
        int r;

        assert(report);
        assert(f);

        r = build_tables(report, tables);
        for (size_t i = 0; r >= 0 && i < 4; i++) {
                if (i > 0)
                        fputc('\n', f);
                if (csv)
                        print_table_csv(f, &tables[i]);
                else
                        print_table_text(f, &tables[i]);
        }
        for (size_t i = 0; i < 4; i++)
                ncu_text_table_done(&tables[i].t);
        if (r < 0)
                return r;
        if (fflush(f) != 0 || ferror(f))
                return -EIO;
        return 0;
}
