/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "sections": Nsight Compute section files. list, sets, show and metrics ask the daemon (the folders of
 * nvprofiled.conf [Sections]); check reads files and folders here, without the daemon, with the
 * daemon's own reader, and fails when one has an error. */

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bus-signatures.h"
#include "client.h"
#include "fd-util.h"
#include "fileio.h"
#include "log.h"
#include "parse-util.h"
#include "string-util.h"
#include "table.h"
#include "metric-expr.h"
#include "section-catalog.h"
#include "section-json.h"
#include "section-metrics.h"

static int sections_call(const char *method, sd_bus_message **ret_reply, const char *types, ...)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        va_list ap;
        int r;

        r = client_connect(&bus);
        if (r < 0)
                return r;
        va_start(ap, types);
        r = client_call_interfacev(bus, BUS_SECTIONS_INTERFACE, method, ret_reply, types, ap);
        va_end(ap);
        return r;
}

static int sections_call_on(sd_bus *bus, const char *method, sd_bus_message **ret_reply, const char *types, ...)
{
        va_list ap;
        int r;

        va_start(ap, types);
        r = client_call_interfacev(bus, BUS_SECTIONS_INTERFACE, method, ret_reply, types, ap);
        va_end(ap);
        return r;
}

static int read_folder_fields(sd_bus_message *m, void *userdata)
{
        struct json_object *list = userdata, *o;
        const char *path, *state, *problem;
        uint32_t files;
        int recursive, r;

        r = sd_bus_message_read(m, "sbsus", &path, &recursive, &state, &files, &problem);
        if (r < 0)
                return r;
        o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        json_object_object_add(o, "path", json_object_new_string(path));
        json_object_object_add(o, "recursive", json_object_new_boolean(recursive));
        json_object_object_add(o, "state", json_object_new_string(state));
        json_object_object_add(o, "files", json_object_new_int64(files));
        json_object_object_add(o, "problem", json_object_new_string(problem));
        json_object_array_add(list, o);
        return 0;
}

int sections_read_folders(sd_bus *bus, struct json_object **ret)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(json_object_putp) struct json_object *list = json_object_new_array();
        int r;

        if (!list)
                return log_oom();
        r = sections_call_on(bus, "ListFolders", &reply, NULL);
        if (r < 0)
                return r;
        r = client_read_struct_array(reply, "sbsus", read_folder_fields, list);
        if (r < 0)
                return log_error_errno(r, "Cannot read the daemon's reply");
        *ret = TAKE_PTR(list);
        return 0;
}

void sections_print_folders(FILE *f, EscapePool *e, struct json_object *folders, const char *first, const char *indent)
{
        if (json_object_array_length(folders) == 0)
                fprintf(f, "%sno folder configured ([Sections] in nvprofiled.conf)\n", first);
        for (size_t i = 0; i < json_object_array_length(folders); i++) {
                struct json_object *o = json_object_array_get_idx(folders, i);
                const char *state = json_object_get_string(json_object_object_get(o, "state"));
                const char *problem = json_object_get_string(json_object_object_get(o, "problem"));

                fprintf(f, "%s%s%s: %s", i == 0 ? first : indent,
                                esc(e, json_object_get_string(json_object_object_get(o, "path"))),
                                json_object_get_boolean(json_object_object_get(o, "recursive")) ? " (with subfolders)"
                                                                                                : "",
                                esc(e, state));
                if (streq_ptr(state, "read"))
                        fprintf(f, ", %" PRId64 " section files",
                                        json_object_get_int64(json_object_object_get(o, "files")));
                if (problem && *problem)
                        fprintf(f, " (%s)", esc(e, problem));
                fputc('\n', f);
        }
}

/* Why a listing is empty, on stderr: which folders were searched, and what they gave. */
static void explain_no_sections(EscapePool *e, struct json_object *folders)
{
        bool any = false;

        for (size_t i = 0; i < json_object_array_length(folders); i++)
                any = any ||
                                !streq_ptr(json_object_get_string(json_object_object_get(
                                                           json_object_array_get_idx(folders, i), "state")),
                                                "missing");
        fprintf(stderr, "No sections: %s\n",
                        any ? "the folders searched hold no section file that could be read."
                            : "no folder searched exists (Nsight Compute's sections are not installed here).");
        fprintf(stderr, "Folders searched ([Sections] Folders= and RecursiveFolders= in nvprofiled.conf):\n");
        sections_print_folders(stderr, e, folders, "  ", "  ");
}

static int read_strv_json(sd_bus_message *m, struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *a = json_object_new_array();
        const char *s;
        int r;

        if (!a)
                return log_oom();
        r = sd_bus_message_enter_container(m, 'a', "s");
        if (r < 0)
                return r;
        for (;;) {
                r = sd_bus_message_read(m, "s", &s);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                json_object_array_add(a, json_object_new_string(s));
        }
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(a);
        return 0;
}

/* One BUS_SECTION_FIELDS row of ListSections appended to list: 1 if read, 0 at the end of the array. */
static int read_section_row(sd_bus_message *reply, struct json_object *list)
{
        _cleanup_(json_object_putp) struct json_object *sets = NULL, *o = NULL;
        const char *id, *name, *file, *warning, *error;
        int enabled;
        uint32_t order;
        int r;

        r = sd_bus_message_enter_container(reply, 'r', BUS_SECTION_FIELDS);
        if (r <= 0)
                return r;
        r = sd_bus_message_read(reply, "ssbu", &id, &name, &enabled, &order);
        if (r < 0)
                return r;
        r = read_strv_json(reply, &sets);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "sss", &file, &warning, &error);
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;
        o = json_object_new_object();
        if (!o)
                return log_oom();
        json_object_object_add(o, "identifier", json_object_new_string(id));
        json_object_object_add(o, "display_name", json_object_new_string(name));
        json_object_object_add(o, "enabled", json_object_new_boolean(enabled));
        json_object_object_add(o, "order", json_object_new_int64(order));
        json_object_object_add(o, "sets", TAKE_PTR(sets));
        json_object_object_add(o, "file", json_object_new_string(file));
        json_object_object_add(o, "warning", json_object_new_string(warning));
        json_object_object_add(o, "error", json_object_new_string(error));
        json_object_array_add(list, TAKE_PTR(o));
        return 1;
}

/* One BUS_SECTION_SET_FIELDS row of ListSets appended to list: 1 if read, 0 at the end of the array. */
static int read_set_row(sd_bus_message *reply, struct json_object *list)
{
        _cleanup_(json_object_putp) struct json_object *sections = NULL, *o = NULL;
        const char *name;
        int enabled;
        int r;

        r = sd_bus_message_enter_container(reply, 'r', BUS_SECTION_SET_FIELDS);
        if (r <= 0)
                return r;
        r = sd_bus_message_read(reply, "sb", &name, &enabled);
        if (r < 0)
                return r;
        r = read_strv_json(reply, &sections);
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;
        o = json_object_new_object();
        if (!o)
                return log_oom();
        json_object_object_add(o, "name", json_object_new_string(name));
        json_object_object_add(o, "enabled", json_object_new_boolean(enabled));
        json_object_object_add(o, "sections", TAKE_PTR(sections));
        json_object_array_add(list, TAKE_PTR(o));
        return 1;
}

/* The strings of a joined by ",", newly allocated; NULL on OOM. */
static char *joined(struct json_object *a)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        if (!f)
                return NULL;
        for (size_t i = 0; i < json_object_array_length(a); i++)
                fprintf(f, "%s%s", i ? "," : "", json_object_get_string(json_object_array_get_idx(a, i)));
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

static int print_sections_table(struct json_object *list)
{
        static const TableColumn columns[] = {
                { "IDENTIFIER" },
                { "DISPLAY NAME" },
                { "ENABLED" },
                { "ORDER", TABLE_RIGHT },
                { "SETS" },
                { "FILE" },
        };
        _cleanup_(table_freep) Table *t = table_new(columns, ELEMENTSOF(columns), terminal_escape);

        if (!t)
                return log_oom();
        for (size_t i = 0; i < json_object_array_length(list); i++) {
                struct json_object *o = json_object_array_get_idx(list, i);
                _cleanup_free_ char *sets = joined(json_object_object_get(o, "sets"));

                if (!sets || table_add(t, json_object_get_string(json_object_object_get(o, "identifier"))) < 0 ||
                                table_add(t, json_object_get_string(json_object_object_get(o, "display_name"))) < 0 ||
                                table_add(t,
                                                json_object_get_boolean(json_object_object_get(o, "enabled"))
                                                                ? "yes"
                                                                : "no") < 0 ||
                                table_addf(t, "%" PRId64, json_object_get_int64(json_object_object_get(o, "order"))) <
                                                0 ||
                                table_add(t, sets) < 0 ||
                                table_add(t, json_object_get_string(json_object_object_get(o, "file"))) < 0)
                        return log_oom();
        }
        return table_print(t, stdout, arg.legend ? TABLE_HEADER : 0);
}

static int sections_list(void)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(json_object_putp) struct json_object *list = json_object_new_array(),
                                                       *errors = json_object_new_array(), *folders = NULL;
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        int r;

        if (!list || !errors)
                return log_oom();
        r = client_connect(&bus);
        if (r < 0)
                return r;
        r = sections_call_on(bus, "ListSections", &reply, NULL);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "(" BUS_SECTION_FIELDS ")");
        if (r < 0)
                return log_error_errno(r, "Cannot read the daemon's reply");
        for (;;) {
                r = read_section_row(reply, list);
                if (r < 0)
                        return log_error_errno(r, "Cannot read the daemon's reply");
                if (r == 0)
                        break;
        }
        r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return log_error_errno(r, "Cannot read the daemon's reply");
        r = sd_bus_message_enter_container(reply, 'a', "(ss)");
        if (r < 0)
                return log_error_errno(r, "Cannot read the daemon's reply");
        for (;;) {
                const char *file, *error;
                r = sd_bus_message_read(reply, "(ss)", &file, &error);
                if (r < 0)
                        return log_error_errno(r, "Cannot read the daemon's reply");
                if (r == 0)
                        break;
                struct json_object *o = json_object_new_object();
                if (!o)
                        return log_oom();
                json_object_object_add(o, "file", json_object_new_string(file));
                json_object_object_add(o, "error", json_object_new_string(error));
                json_object_array_add(errors, o);
        }

        r = sections_read_folders(bus, &folders);
        if (r < 0)
                return r;

        if (arg.json != JSON_OFF) {
                _cleanup_(json_object_putp) struct json_object *doc = json_object_new_object();
                if (!doc)
                        return log_oom();
                json_object_object_add(doc, "sections", json_object_get(list));
                json_object_object_add(doc, "errors", json_object_get(errors));
                json_object_object_add(doc, "folders", json_object_get(folders));
                r = json_print_document("sections", NULL, doc);
                if (r < 0)
                        return r;
                return json_object_array_length(errors) > 0;
        }
        r = print_sections_table(list);
        if (r < 0)
                return r;
        /* Diagnostics after the table, as "FILE: warning: TEXT" like sections check writes them. */
        for (size_t i = 0; i < json_object_array_length(list); i++) {
                struct json_object *o = json_object_array_get_idx(list, i);
                const char *warning = json_object_get_string(json_object_object_get(o, "warning"));
                if (warning && *warning)
                        fprintf(stderr, "%s: warning: %s\n",
                                        esc(&e, json_object_get_string(json_object_object_get(o, "file"))),
                                        esc(&e, warning));
        }
        for (size_t i = 0; i < json_object_array_length(errors); i++) {
                struct json_object *o = json_object_array_get_idx(errors, i);
                fprintf(stderr, "%s: %s\n", esc(&e, json_object_get_string(json_object_object_get(o, "file"))),
                                esc(&e, json_object_get_string(json_object_object_get(o, "error"))));
        }
        if (json_object_array_length(list) == 0)
                explain_no_sections(&e, folders);
        else if (arg.legend) {
                printf("\n%zu sections, %zu files with errors, from:\n", json_object_array_length(list),
                                json_object_array_length(errors));
                sections_print_folders(stdout, &e, folders, "  ", "  ");
        }
        return json_object_array_length(errors) > 0;
}

static int sections_sets(void)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(json_object_putp) struct json_object *list = json_object_new_array();
        int r;

        if (!list)
                return log_oom();
        r = sections_call("ListSets", &reply, NULL);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "(" BUS_SECTION_SET_FIELDS ")");
        if (r < 0)
                return log_error_errno(r, "Cannot read the daemon's reply");
        for (;;) {
                r = read_set_row(reply, list);
                if (r < 0)
                        return log_error_errno(r, "Cannot read the daemon's reply");
                if (r == 0)
                        break;
        }
        if (arg.json != JSON_OFF)
                return json_print_document("section-sets", "sets", list);
        static const TableColumn columns[] = { { "SET" }, { "ENABLED" }, { "SECTIONS" } };
        _cleanup_(table_freep) Table *t = table_new(columns, ELEMENTSOF(columns), terminal_escape);
        if (!t)
                return log_oom();
        for (size_t i = 0; i < json_object_array_length(list); i++) {
                struct json_object *o = json_object_array_get_idx(list, i);
                _cleanup_free_ char *sections = joined(json_object_object_get(o, "sections"));
                if (!sections || table_add(t, json_object_get_string(json_object_object_get(o, "name"))) < 0 ||
                                table_add(t,
                                                json_object_get_boolean(json_object_object_get(o, "enabled"))
                                                                ? "yes"
                                                                : "no") < 0 ||
                                table_add(t, sections) < 0)
                        return log_oom();
        }
        return table_print(t, stdout, arg.legend ? TABLE_HEADER : 0);
}

static int sections_show(const char *id)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        const char *json;
        int r;

        r = sections_call("GetSection", &reply, "s", id);
        if (r < 0)
                return r;
        r = sd_bus_message_skip(reply, "a{sv}");
        if (r < 0)
                return log_error_errno(r, "Cannot read the daemon's reply");
        r = sd_bus_message_read(reply, "s", &json);
        if (r < 0)
                return log_error_errno(r, "Cannot read the daemon's reply");
        _cleanup_(json_object_putp) struct json_object *o = json_tokener_parse(json);
        if (!o)
                return log_error_errno(-EBADMSG, "The daemon sent JSON that does not parse");
        if (arg.json != JSON_OFF) {
                _cleanup_(json_object_putp) struct json_object *doc = json_object_new_object();

                /* The section as the daemon sent it, under a member of its own: its fields are the section
                 * file schema's, not ours to version. */
                if (!doc || json_object_object_add(doc, "section", json_object_get(o)) < 0)
                        return log_oom();
                return json_print_document("section", NULL, doc);
        }
        /* Text: the JSON, pretty, each line escaped for the terminal (JSON has no raw newline inside a
         * string, so the line breaks are only the layout's). */
        _cleanup_free_ char *text = strdup(json_object_to_json_string_ext(
                        o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
        if (!text)
                return log_oom();
        char *save = NULL;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                puts(esc(&e, line));
        return 0;
}

/* "required", "for METRIC" (derived for that one), both or nothing. */
static int add_metric_note(Table *t, struct json_object *o)
{
        bool required = json_object_get_boolean(json_object_object_get(o, "required"));
        const char *derived = json_object_get_string(json_object_object_get(o, "derived_for"));

        return table_addf(t, "%s%s%s%s", required ? "required" : "", required && derived ? " " : "",
                        derived ? "for " : "", strempty(derived));
}

static int print_metrics_table(struct json_object *list)
{
        static const TableColumn columns[] = { { "METRIC" }, { "LABEL" }, { "UNIT" }, { "WHERE" }, { "NOTE" } };
        _cleanup_(table_freep) Table *t = table_new(columns, ELEMENTSOF(columns), terminal_escape);

        if (!t)
                return log_oom();
        for (size_t i = 0; i < json_object_array_length(list); i++) {
                struct json_object *o = json_object_array_get_idx(list, i);
                if (table_add(t, json_object_get_string(json_object_object_get(o, "name"))) < 0 ||
                                table_add(t, json_object_get_string(json_object_object_get(o, "label"))) < 0 ||
                                table_add(t, json_object_get_string(json_object_object_get(o, "unit"))) < 0 ||
                                table_add(t, json_object_get_string(json_object_object_get(o, "where"))) < 0 ||
                                add_metric_note(t, o) < 0)
                        return log_oom();
        }
        return table_print(t, stdout, arg.legend ? TABLE_HEADER : 0);
}

static int sections_metrics(const char *id)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(json_object_putp) struct json_object *list = json_object_new_array();
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        CollectionScopeKind scope = COLLECTION_SCOPE_LAUNCH;
        unsigned arch;
        int r;

        if (!list)
                return log_oom();
        if (!arg.arch) {
                fprintf(stderr, "nvprofilectl: sections metrics needs --arch=CC (such as 86).\n");
                return EXIT_USAGE;
        }
        if (safe_atou(arg.arch, &arch) < 0 || arch < 10 || arch > 1000) {
                fprintf(stderr, "nvprofilectl: --arch= takes a compute capability as major*10+minor, such as 86, not \"%s\".\n",
                                esc(&e, arg.arch));
                return EXIT_USAGE;
        }
        if (arg.scope && collection_scope_from_string(arg.scope, &scope) < 0) {
                fprintf(stderr, "nvprofilectl: --scope= takes launch, range or cmdlist, not \"%s\".\n",
                                esc(&e, arg.scope));
                return EXIT_USAGE;
        }
        r = sections_call("GetMetrics", &reply, "sus", id, (uint32_t) arch, collection_scope_to_string(scope));
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "(" BUS_SECTION_METRIC_FIELDS ")");
        if (r < 0)
                return log_error_errno(r, "Cannot read the daemon's reply");
        for (;;) {
                const char *name, *label, *unit, *where, *pattern, *derived;
                int required;
                r = sd_bus_message_read(reply, "(" BUS_SECTION_METRIC_FIELDS ")", &name, &label, &unit, &where,
                                &pattern, &required, &derived);
                if (r < 0)
                        return log_error_errno(r, "Cannot read the daemon's reply");
                if (r == 0)
                        break;
                struct json_object *o = json_object_new_object();
                if (!o)
                        return log_oom();
                json_object_object_add(o, "name", json_object_new_string(name));
                json_object_object_add(o, "label", json_object_new_string(label));
                json_object_object_add(o, "unit", json_object_new_string(unit));
                json_object_object_add(o, "where", json_object_new_string(where));
                json_object_object_add(o, "pattern", json_object_new_string(pattern));
                json_object_object_add(o, "required", json_object_new_boolean(required));
                json_object_object_add(o, "derived_for", *derived ? json_object_new_string(derived) : NULL);
                json_object_array_add(list, o);
        }
        if (arg.json != JSON_OFF)
                return json_print_document("section-metrics", "metrics", list);
        r = print_metrics_table(list);
        if (r < 0)
                return r;
        if (arg.legend)
                printf("\n%zu metrics on CC %u.%u, %s scope.\n", json_object_array_length(list), arch / 10, arch % 10,
                                collection_scope_to_string(scope));
        return 0;
}

/* ---- check ---- */

typedef struct CheckState {
        NvSchema schema;
        unsigned n_files, n_errors, n_warnings;
        struct json_object *files;
} CheckState;

static void report(CheckState *st, struct json_object *entry, const char *file, unsigned line, unsigned column,
                const char *severity, const char *message)
{
        struct json_object *list = NULL, *o = json_object_new_object();

        if (streq(severity, "error"))
                st->n_errors++;
        else
                st->n_warnings++;
        if (arg.json == JSON_OFF)
                print_diagnostic(stdout, file, line, column, severity, message, NULL);
        if (!o)
                return;
        json_object_object_add(o, "line", json_object_new_int64(line));
        json_object_object_add(o, "column", json_object_new_int64(column));
        json_object_object_add(o, "severity", json_object_new_string(severity));
        json_object_object_add(o, "message", json_object_new_string(message));
        if (!json_object_object_get_ex(entry, "problems", &list)) {
                list = json_object_new_array();
                json_object_object_add(entry, "problems", list);
        }
        json_object_array_add(list, o);
}

static struct json_object *new_entry(CheckState *st, const char *file)
{
        struct json_object *o = json_object_new_object();
        st->n_files++;
        if (!o)
                return NULL;
        json_object_object_add(o, "file", json_object_new_string(file));
        /* Until the file parses, its section is not known. */
        json_object_object_add(o, "identifier", NULL);
        json_object_object_add(o, "display_name", NULL);
        json_object_object_add(o, "problems", json_object_new_array());
        json_object_array_add(st->files, o);
        return o;
}

static void report_diags(CheckState *st, struct json_object *entry, const char *file, const TextFormatDiagnostics *d)
{
        for (size_t i = 0; i < d->n; i++)
                report(st, entry, file, d->items[i].line, d->items[i].column, d->items[i].skipped ? "warning" : "error",
                                d->items[i].message);
}

static void check_definitions(
                CheckState *st, struct json_object *entry, const char *file, const NV__Profiler__ProfilerSection *s)
{
        for (size_t i = 0; s->metricdefinitions && i < s->metricdefinitions->n_metricdefinitions; i++) {
                const NV__Profiler__ProfilerSectionMetricDefinition *def = s->metricdefinitions->metricdefinitions[i];
                _cleanup_free_ char *problem = NULL, *msg = NULL;
                MetricExpr *e = NULL;
                if (metric_expr_parse(def->expression, &e, &problem) >= 0) {
                        metric_expr_free(e);
                        continue;
                }
                if (asprintf(&msg, "MetricDefinitions \"%s\": %s", def->name, strna(problem)) >= 0)
                        report(st, entry, file, 0, 0, "error", msg);
        }
}

static void describe_section(struct json_object *entry, const NV__Profiler__ProfilerSection *s)
{
        json_object_object_add(entry, "identifier", json_object_new_string(s->identifier));
        json_object_object_add(entry, "display_name", json_object_new_string(s->displayname));
}

static int check_file(CheckState *st, const char *path)
{
        _cleanup_free_ char *text = NULL;
        _cleanup_close_ int fd = -EBADF;
        TextFormatOptions o = { .schema = st->schema };
        TextFormatDiagnostics d = { 0 };
        struct json_object *entry = new_entry(st, path);
        size_t size;
        int r;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        r = fd < 0 ? -errno : read_full_fd(fd, SECTION_FILE_MAX_SIZE, &text, &size);
        if (r < 0) {
                report(st, entry, path, 0, 0, "error", r == -EFBIG ? "larger than 16 MiB" : strerror(-r));
                return 0;
        }
        if (endswith(path, ".chart")) {
                NV__Profiler__ProfilerSectionBodyItem *item = NULL;
                r = section_chart_parse(text, size, &o, &item, &d);
                report_diags(st, entry, path, &d);
                if (r >= 0) {
                        json_object_object_add(entry, "chart", json_object_new_string(section_body_item_kind(item)));
                        protobuf_c_message_free_unpacked(&item->base, NULL);
                }
        } else {
                NV__Profiler__ProfilerSection *s = NULL;
                r = section_file_parse(text, size, &o, &s, &d);
                report_diags(st, entry, path, &d);
                if (r >= 0) {
                        describe_section(entry, s);
                        check_definitions(st, entry, path, s);
                        protobuf_c_message_free_unpacked(&s->base, NULL);
                }
        }
        textformat_diagnostics_clear(&d);
        return r == -ENOMEM ? log_oom() : 0;
}

static int check_folder(CheckState *st, const char *path)
{
        _cleanup_(section_catalog_freep) SectionCatalog *c = NULL;
        SectionFolder f = { path, true };
        TextFormatOptions o = { .schema = st->schema };
        int r;

        r = section_catalog_load(&f, 1, &o, &c);
        if (r < 0)
                return log_error_errno(r, "Cannot read %s", path);
        for (size_t i = 0; i < c->n; i++) {
                const SectionEntry *x = &c->entries[i];
                struct json_object *entry = new_entry(st, x->display);
                if (x->diags.n > 0)
                        report_diags(st, entry, x->display, &x->diags);
                else if (x->error)
                        report(st, entry, x->display, 0, 0, "error", x->error);
                if (x->warning)
                        report(st, entry, x->display, 0, 0, "warning", x->warning);
                if (x->section) {
                        describe_section(entry, x->section);
                        check_definitions(st, entry, x->display, x->section);
                }
        }
        return 0;
}

static int sections_check(int argc, char *argv[])
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_(json_object_putp) struct json_object *files = json_object_new_array();
        CheckState st = { .schema = NV_SCHEMA_EXTENDED, .files = files };
        int r;

        if (!files)
                return log_oom();
        if (arg.schema && nv_schema_from_string(arg.schema, &st.schema) < 0) {
                fprintf(stderr, "nvprofilectl: --schema= takes 2024.1.1 or extended, not \"%s\".\n",
                                esc(&e, arg.schema));
                return EXIT_USAGE;
        }
        if (argc < 1) {
                fprintf(stderr, "nvprofilectl: sections check takes at least one file or folder.\n");
                return EXIT_USAGE;
        }
        for (int i = 0; i < argc; i++) {
                struct stat sb;
                if (stat(argv[i], &sb) >= 0 && S_ISDIR(sb.st_mode))
                        r = check_folder(&st, argv[i]);
                else
                        r = check_file(&st, argv[i]);
                if (r < 0)
                        return r;
        }
        if (arg.json != JSON_OFF) {
                _cleanup_(json_object_putp) struct json_object *doc = json_object_new_object();
                if (!doc)
                        return log_oom();
                /* "schema" is the document's own; the section files' schema has a name of its own. */
                json_object_object_add(doc, "section_schema", json_object_new_string(nv_schema_to_string(st.schema)));
                json_object_object_add(doc, "files", json_object_get(files));
                json_object_object_add(doc, "errors", json_object_new_int64(st.n_errors));
                json_object_object_add(doc, "warnings", json_object_new_int64(st.n_warnings));
                r = json_print_document("sections-check", NULL, doc);
                if (r < 0)
                        return r;
        } else if (arg.legend)
                printf("%u files checked (schema %s): %u errors, %u warnings.\n", st.n_files,
                                nv_schema_to_string(st.schema), st.n_errors, st.n_warnings);
        return st.n_errors > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

int verb_sections(int argc, char *argv[])
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        const char *what = argv[1];
        int n = argc - 2;

        if (!streq(what, "check") && arg.schema) {
                fprintf(stderr, "nvprofilectl: --schema is an option of sections check.\n");
                return EXIT_USAGE;
        }
        if (!streq(what, "metrics") && (arg.arch || arg.scope)) {
                fprintf(stderr, "nvprofilectl: --arch and --scope are options of sections metrics.\n");
                return EXIT_USAGE;
        }
        if (streq(what, "check"))
                return sections_check(n, argv + 2);
        if (streq(what, "reload") && n == 0) {
                int r = sections_call("Reload", NULL, NULL);
                return r < 0 ? r : 0;
        }
        if ((streq(what, "list") || streq(what, "sets")) && n == 0)
                return streq(what, "list") ? sections_list() : sections_sets();
        if ((streq(what, "show") || streq(what, "metrics")) && n == 1)
                return streq(what, "show") ? sections_show(argv[2]) : sections_metrics(argv[2]);
        if (streq(what, "list") || streq(what, "sets") || streq(what, "show") || streq(what, "metrics") ||
                        streq(what, "reload"))
                fprintf(stderr, "nvprofilectl: sections %s takes %s.\n", what,
                                streq(what, "show") || streq(what, "metrics") ? "one section identifier"
                                                                              : "no arguments");
        else
                fprintf(stderr, "nvprofilectl: Unknown sections command \"%s\": list, sets, show, metrics, check or reload.\n",
                                esc(&e, what));
        return EXIT_USAGE;
}
