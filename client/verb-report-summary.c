/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "report summary FILE": one line per action (name, launch, duration, the top findings of the rules ncu
 * ran). The rows come from daemon/nsight/report/report-summary.c: through the daemon (Report.GetSummary, made by
 * the report's worker) or, with --local or without a daemon, in this process; either way the client holds
 * the rows, never the model. */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-names.h"
#include "client.h"
#include "json-util.h"
#include "log.h"
#include "report-summary.h"
#include "terminal-escape.h"
#include "verb-report.h"

#define SUMMARY_FINDINGS_MAX 3

typedef struct Summary {
        const char *version; /* NULL: unknown */
        size_t n_ranges;
        NcuSummaryRow *rows;
        size_t n_rows;
        /* What the strings point into: the model (--local), or the daemon's replies. */
        NcuReport *report;
        sd_bus_message *info, *reply;
} Summary;

static void summary_done(Summary *s)
{
        if (s->report)
                ncu_summary_free(s->rows, s->n_rows);
        else if (s->rows) {
                for (size_t i = 0; i < s->n_rows; i++)
                        free(s->rows[i].findings);
                free(s->rows);
        }
        ncu_report_free(s->report);
        sd_bus_message_unref(s->info);
        sd_bus_message_unref(s->reply);
        *s = (Summary){ 0 };
}

static int read_uint3(sd_bus_message *m, NcuUint3 *ret)
{
        int r = sd_bus_message_read(m, "(ttt)", &ret->x, &ret->y, &ret->z);
        return r < 0 ? r : 0;
}

/* One row of GetSummary's a(uuus(ttt)(ttt)da(ssd)). */
static int read_row(sd_bus_message *m, NcuSummaryRow *row)
{
        uint32_t range, action, index;
        size_t allocated = 0;
        int r;

        r = sd_bus_message_read(m, "uuus", &range, &action, &index, &row->name);
        if (r >= 0)
                r = read_uint3(m, &row->grid);
        if (r >= 0)
                r = read_uint3(m, &row->block);
        if (r >= 0)
                r = sd_bus_message_read(m, "d", &row->duration_ns);
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "(ssd)");
        if (r < 0)
                return r;
        row->range = range;
        row->action = action;
        row->index = index;
        for (;;) {
                NcuSummaryFinding f;

                r = sd_bus_message_read(m, "(ssd)", &f.type, &f.title, &f.speedup);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                if (GREEDY_REALLOC(row->findings, allocated, row->n_findings + 1) < 0)
                        return -ENOMEM;
                row->findings[row->n_findings++] = f;
        }
        return sd_bus_message_exit_container(m);
}

static int summary_from_reply(Summary *s)
{
        size_t allocated = 0;
        int r;

        r = sd_bus_message_enter_container(s->reply, 'a', "(uuus(ttt)(ttt)da(ssd))");
        if (r < 0)
                return r;
        for (;;) {
                r = sd_bus_message_enter_container(s->reply, 'r', "uuus(ttt)(ttt)da(ssd)");
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                if (GREEDY_REALLOC(s->rows, allocated, s->n_rows + 1) < 0)
                        return -ENOMEM;
                s->rows[s->n_rows] = (NcuSummaryRow){ 0 };
                r = read_row(s->reply, &s->rows[s->n_rows++]);
                if (r >= 0)
                        r = sd_bus_message_exit_container(s->reply);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_exit_container(s->reply);
}

/* Through the daemon: 0, 1 when no daemon serves reports, or a negative errno after saying why. */
static int summary_via_daemon(const char *path, Summary *s)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *object = NULL;
        uint32_t format, ranges;
        uint64_t size;
        const char *method = "GetInfo";
        int r;

        if (report_bus_open(&bus) < 0)
                return 1;
        r = report_bus_load(bus, path, &object);
        if (r != 0)
                return r;
        r = sd_bus_call_method(bus, BUS_NAME, object, BUS_REPORT_INTERFACE, method, &error, &s->info, NULL);
        if (r >= 0)
                r = sd_bus_message_read(s->info, "suut", &s->version, &format, &ranges, &size);
        if (r >= 0) {
                s->n_ranges = ranges;
                method = "GetSummary";
                r = sd_bus_call_method(bus, BUS_NAME, object, BUS_REPORT_INTERFACE, method, &error, &s->reply, NULL);
        }
        if (r >= 0)
                r = summary_from_reply(s);
        report_bus_close(bus, object);
        if (r < 0) {
                log_bus_call_error(method, &error, r);
                return r;
        }
        if (s->version && s->version[0] == '\0')
                s->version = NULL;
        return 0;
}

static int summary_local(const char *path, Summary *s)
{
        int r;

        r = report_load_local(path, &s->report);
        if (r < 0)
                return r;
        s->version = ncu_report_ncu_version(s->report);
        s->n_ranges = s->report->n_ranges;
        r = ncu_report_summary(s->report, &s->rows, &s->n_rows);
        return r < 0 ? log_oom() : 0;
}

static void format_duration(double ns, char *buf, size_t size)
{
        if (isnan(ns))
                snprintf(buf, size, "-");
        else if (ns < 1e3)
                snprintf(buf, size, "%.0f ns", ns);
        else if (ns < 1e6)
                snprintf(buf, size, "%.2f us", ns / 1e3);
        else if (ns < 1e9)
                snprintf(buf, size, "%.2f ms", ns / 1e6);
        else
                snprintf(buf, size, "%.2f s", ns / 1e9);
}

static void print_row(EscapePool *e, const NcuSummaryRow *row)
{
        char duration[32], launch[160];

        format_duration(row->duration_ns, duration, sizeof(duration));
        snprintf(launch, sizeof(launch),
                        "grid (%" PRIu64 ",%" PRIu64 ",%" PRIu64 ") block (%" PRIu64 ",%" PRIu64 ",%" PRIu64 ")",
                        row->grid.x, row->grid.y, row->grid.z, row->block.x, row->block.y, row->block.z);
        printf("%3zu  %-24s %-36s %10s", row->index, esc(e, strempty(row->name)), launch, duration);
        for (size_t i = 0; i < MIN(row->n_findings, (size_t) SUMMARY_FINDINGS_MAX); i++) {
                printf("%s%s", i == 0 ? "  " : "; ", esc(e, strempty(row->findings[i].title)));
                if (!isnan(row->findings[i].speedup))
                        printf(" (est. %.1f%%)", row->findings[i].speedup);
        }
        if (row->n_findings > SUMMARY_FINDINGS_MAX)
                printf("; +%zu more", row->n_findings - SUMMARY_FINDINGS_MAX);
        printf("\n");
}

static struct json_object *json_double_or_null(double d)
{
        return isfinite(d) ? json_object_new_double(d) : NULL;
}

static struct json_object *json_uint3(NcuUint3 u)
{
        _cleanup_(json_object_putp) struct json_object *a = json_object_new_array();
        const uint64_t v[3] = { u.x, u.y, u.z };

        if (!a)
                return NULL;
        for (size_t i = 0; i < 3; i++) {
                struct json_object *n = json_object_new_uint64(v[i]);

                if (!n || json_object_array_add(a, n) < 0) {
                        json_object_put(n);
                        return NULL;
                }
        }
        return TAKE_PTR(a);
}

static int add(struct json_object *o, const char *key, struct json_object *v, bool nullable)
{
        if (!v && !nullable)
                return -ENOMEM;
        if (json_object_object_add(o, key, v) < 0) {
                json_object_put(v);
                return -ENOMEM;
        }
        return 0;
}

static int row_json(const NcuSummaryRow *row, struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *o = json_object_new_object(),
                                                       *findings = json_object_new_array();
        int r;

        if (!o || !findings)
                return -ENOMEM;
        for (size_t i = 0; i < row->n_findings; i++) {
                struct json_object *f = json_object_new_object();

                if (!f || json_object_array_add(findings, f) < 0) {
                        json_object_put(f);
                        return -ENOMEM;
                }
                r = add(f, "type", json_object_new_string(strempty(row->findings[i].type)), false);
                if (r >= 0)
                        r = add(f, "title", json_object_new_string(strempty(row->findings[i].title)), false);
                if (r >= 0)
                        r = add(f, "speedup", json_double_or_null(row->findings[i].speedup), true);
                if (r < 0)
                        return r;
        }
        r = add(o, "range", json_object_new_uint64(row->range), false);
        if (r >= 0)
                r = add(o, "action", json_object_new_uint64(row->action), false);
        if (r >= 0)
                r = add(o, "index", json_object_new_uint64(row->index), false);
        if (r >= 0)
                r = add(o, "name", json_object_new_string(strempty(row->name)), false);
        if (r >= 0)
                r = add(o, "grid", json_uint3(row->grid), false);
        if (r >= 0)
                r = add(o, "block", json_uint3(row->block), false);
        if (r >= 0)
                r = add(o, "duration_ns", json_double_or_null(row->duration_ns), true);
        if (r >= 0)
                r = add(o, "findings", TAKE_PTR(findings), false);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

static int print_json(const char *path, const Summary *s)
{
        _cleanup_(json_object_putp) struct json_object *doc = json_object_new_object(), *rows = json_object_new_array();
        int r;

        if (!doc || !rows)
                return log_oom();
        for (size_t i = 0; i < s->n_rows; i++) {
                struct json_object *o;

                r = row_json(&s->rows[i], &o);
                if (r < 0 || json_object_array_add(rows, o) < 0)
                        return log_oom();
        }
        r = add(doc, "file", json_object_new_string(path), false);
        if (r >= 0)
                r = add(doc, "ncu_version", s->version ? json_object_new_string(s->version) : NULL, true);
        if (r >= 0)
                r = add(doc, "ranges", json_object_new_uint64(s->n_ranges), false);
        if (r >= 0)
                r = add(doc, "actions", TAKE_PTR(rows), false);
        if (r < 0)
                return log_oom();
        return json_print_document("report-summary", NULL, doc);
}

int report_summary(const char *path)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_(summary_done) Summary s = { 0 };
        int r = 1;

        if (!arg.local)
                r = summary_via_daemon(path, &s);
        if (r < 0)
                return r;
        if (r > 0) {
                summary_done(&s);
                r = summary_local(path, &s);
                if (r < 0)
                        return r;
        }
        if (arg.json != JSON_OFF)
                return print_json(path, &s);
        if (arg.legend) {
                printf("%s: Nsight Compute %s report, %zu range%s\n", esc(&e, path),
                                s.version ? esc(&e, s.version) : "(unknown)", s.n_ranges, s.n_ranges == 1 ? "" : "s");
                printf("  #  %-24s %-36s %10s  %s\n", "NAME", "LAUNCH", "DURATION", "TOP FINDINGS (estimated speedup)");
        }
        for (size_t i = 0; i < s.n_rows; i++)
                print_row(&e, &s.rows[i]);
        return 0;
}
