/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The details page of one action as JSON (report-details-json.h): a sink of the details walk that keeps
 * what the text page prints, cell by cell, with the text page's own cell formatting
 * (ncu_page_metric_cells()). */

#include <errno.h>
#include <stdio.h>

#include "json-util.h"
#include "macro.h"
#include "report-csv-cells.h"
#include "report-details-json.h"
#include "report-details-walk.h"
#include "report-page-nvtx.h"
#include "report-page.h"
#include "string-util.h"

typedef struct JsonDetails {
        const NcuAction *action;
        struct json_object *sections;
        /* The section being walked: its name and identifier, its object once it shows something. */
        const char *name, *identifier;
        struct json_object *section, *items, *rules;
        const char *body;
        Cell cell;
        int error;
} JsonDetails;

static struct json_object *string_or_null(const char *s)
{
        return s ? json_object_new_string(s) : NULL;
}

/* Adds v (NULL: null) to o as key; a failed allocation is remembered. */
static void add(JsonDetails *j, struct json_object *o, const char *key, struct json_object *v)
{
        if (json_object_object_add(o, key, v) < 0) {
                json_object_put(v);
                j->error = -ENOMEM;
        }
}

static void append(JsonDetails *j, struct json_object *array, struct json_object *v)
{
        if (!v || json_object_array_add(array, v) < 0) {
                json_object_put(v);
                j->error = -ENOMEM;
        }
}

static struct json_object *new_string(JsonDetails *j, const char *s)
{
        struct json_object *v = json_object_new_string(strempty(s));

        if (!v)
                j->error = -ENOMEM;
        return v;
}

static struct json_object *new_string_len(JsonDetails *j, const char *s, size_t n)
{
        struct json_object *v = json_object_new_string_len(s, (int) n);

        if (!v)
                j->error = -ENOMEM;
        return v;
}

/* The section as the text page shows it, from its first shown thing on. */
static void show_section(JsonDetails *j)
{
        if (j->section || j->error < 0)
                return;
        j->section = json_object_new_object();
        j->items = json_object_new_array();
        j->rules = json_object_new_array();
        if (!j->section || !j->items || !j->rules) {
                json_object_put(j->section);
                json_object_put(j->items);
                json_object_put(j->rules);
                j->section = j->items = j->rules = NULL;
                j->error = -ENOMEM;
                return;
        }
        add(j, j->section, "identifier", new_string(j, j->identifier));
        add(j, j->section, "name", new_string(j, j->name));
        add(j, j->section, "items", j->items);
        add(j, j->section, "rules", j->rules);
        append(j, j->sections, j->section);
}

/* A new item of the section, under the body being walked. */
static struct json_object *new_item(JsonDetails *j, const char *kind)
{
        struct json_object *item;

        show_section(j);
        if (j->error < 0)
                return NULL;
        item = json_object_new_object();
        append(j, j->items, item);
        if (j->error < 0)
                return NULL;
        add(j, item, "kind", new_string(j, kind));
        add(j, item, "body", string_or_null(j->body));
        return item;
}

static struct json_object *strings(JsonDetails *j, const char *const *v, size_t n)
{
        struct json_object *a = json_object_new_array();

        if (!a) {
                j->error = -ENOMEM;
                return NULL;
        }
        for (size_t i = 0; i < n; i++)
                append(j, a, new_string(j, v[i]));
        return a;
}

static void on_section_begin(void *userdata, const char *name, const char *identifier)
{
        JsonDetails *j = userdata;

        j->name = name;
        j->identifier = identifier;
        j->section = j->items = j->rules = NULL;
        j->body = NULL;
}

static void on_body_begin(void *userdata, const char *display_name)
{
        JsonDetails *j = userdata;

        j->body = display_name;
}

static void on_table(void *userdata, const NcuDetailsTable *t)
{
        JsonDetails *j = userdata;
        struct json_object *item, *rows;

        if (t->n_rows == 0)
                return;
        item = new_item(j, "table");
        if (!item)
                return;
        add(j, item, "label", new_string(j, t->label));
        add(j, item, "headings", strings(j, t->headings, t->n_headings));
        rows = json_object_new_array();
        add(j, item, "rows", rows);
        for (size_t i = 0; i < t->n_rows && j->error == 0; i++) {
                struct json_object *row = json_object_new_object();
                char unit[METRIC_UNIT_MAX];

                append(j, rows, row);
                if (j->error < 0)
                        return;
                /* The text page's defaults: dynamic units, no instances. */
                ncu_page_metric_cells(j->action, &t->rows[i], NCU_PRINT_UNITS_DYNAMIC, NCU_PRINT_INSTANCES_NONE, true,
                                &j->cell, unit);
                add(j, row, "label", new_string(j, t->rows[i].label));
                add(j, row, "name", new_string(j, t->rows[i].name));
                add(j, row, "unit", new_string(j, unit));
                add(j, row, "value", new_string(j, j->cell.data));
        }
}

static void on_grid(void *userdata, const NcuDetailsGrid *g)
{
        JsonDetails *j = userdata;
        struct json_object *item, *rows;

        /* Its title stands for the body's name, unless it is one of the body's pictures. */
        if (!g->under_body_name)
                j->body = NULL;
        item = new_item(j, "grid");
        if (!item)
                return;
        add(j, item, "label", string_or_null(g->label));
        add(j, item, "columns", strings(j, g->columns, g->n_columns));
        rows = json_object_new_array();
        add(j, item, "rows", rows);
        for (size_t i = 0; i < g->n_rows && j->error == 0; i++)
                append(j, rows, strings(j, g->cells + i * g->n_columns, g->n_columns));
}

static void on_note(void *userdata, const char *heading, const char *text)
{
        JsonDetails *j = userdata;
        struct json_object *item;

        if (!text) {
                show_section(j); /* a picture that shows nothing but its section */
                return;
        }
        item = new_item(j, "note");
        if (!item)
                return;
        add(j, item, "heading", string_or_null(heading));
        add(j, item, "text", new_string(j, text));
}

typedef struct Spans {
        JsonDetails *j;
        struct json_object *spans;
} Spans;

static void add_span(void *userdata, NcuMarkupKind kind, const char *text, size_t n_text, const char *target,
                size_t n_target)
{
        Spans *s = userdata;
        struct json_object *span = json_object_new_object();

        append(s->j, s->spans, span);
        if (s->j->error < 0)
                return;
        add(s->j, span, "text", new_string_len(s->j, text, n_text));
        if (kind == NCU_MARKUP_URL)
                add(s->j, span, "url", new_string_len(s->j, target, n_target));
        else if (kind == NCU_MARKUP_SECTION)
                add(s->j, span, "section", new_string_len(s->j, target, n_target));
}

static void on_rule(void *userdata, const char *section_identifier, const NcuRuleResult *rr, size_t i)
{
        JsonDetails *j = userdata;
        const NcuRuleMessage *msg = &rr->messages[i];
        const NcuSpeedup *sp = ncu_details_rule_speedup(rr, i);
        _cleanup_free_ char *text = ncu_details_plain_message(strempty(msg->text));
        struct json_object *rule, *speedup = NULL;
        Spans spans = { .j = j };

        show_section(j);
        if (j->error < 0)
                return;
        if (!text) {
                j->error = -ENOMEM;
                return;
        }
        rule = json_object_new_object();
        append(j, j->rules, rule);
        if (j->error < 0)
                return;
        add(j, rule, "type", new_string(j, ncu_details_message_type(msg->type)));
        add(j, rule, "message", new_string(j, msg->text));
        add(j, rule, "text", new_string(j, text));
        spans.spans = json_object_new_array();
        add(j, rule, "spans", spans.spans);
        if (!spans.spans)
                return;
        ncu_details_markup_parse(strempty(msg->text), add_span, &spans);
        if (sp) {
                speedup = json_object_new_object();
                if (!speedup) {
                        j->error = -ENOMEM;
                        return;
                }
                add(j, speedup, "type", new_string(j, sp->type == 1 ? "local" : "global"));
                add(j, speedup, "value", json_object_new_double(sp->value));
        }
        add(j, rule, "speedup", speedup);
}

static const NcuDetailsSink json_sink = {
        .section_begin = on_section_begin,
        .body_begin = on_body_begin,
        .table = on_table,
        .grid = on_grid,
        .note = on_note,
        .rule = on_rule,
};

/* The action's NVTX ranges as the text page prints them above its sections; NULL when it is in none. */
static int nvtx_text(const NcuAction *a, struct json_object **ret)
{
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *f;

        *ret = NULL;
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        ncu_nvtx_print_text(f, a);
        if (fclose(f) != 0)
                return -ENOMEM;
        if (size == 0)
                return 0;
        *ret = json_object_new_string_len(text, (int) size);
        return *ret ? 0 : -ENOMEM;
}

int ncu_details_json(const NcuReport *report, size_t range, size_t action, struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *doc = NULL;
        JsonDetails j = { .error = 0 };
        struct json_object *nvtx;
        int r;

        assert(report);
        assert(ret);

        if (range >= report->n_ranges || action >= report->ranges[range].n_actions)
                return -ENOENT;
        j.action = report->ranges[range].actions[action];
        doc = json_object_new_object();
        j.sections = json_object_new_array();
        if (!doc || !j.sections) {
                json_object_put(j.sections);
                return -ENOMEM;
        }
        add(&j, doc, "range", json_object_new_int64((int64_t) range));
        add(&j, doc, "action", json_object_new_int64((int64_t) action));
        add(&j, doc, "sections", j.sections);
        r = nvtx_text(j.action, &nvtx);
        if (r < 0)
                return r;
        add(&j, doc, "nvtx", nvtx);
        r = ncu_details_walk_action(report, j.action, NCU_PRINT_DETAILS_HEADER, &json_sink, &j);
        if (r >= 0)
                r = j.error;
        if (r >= 0 && j.cell.failed)
                r = -ENOMEM;
        cell_done(&j.cell);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(doc);
        return 0;
}
