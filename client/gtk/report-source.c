/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A kernel's source page: the CUDA source files the report stores (ncu --import-source yes), each line
 * with the metrics of the instructions compiled from it beside it, the hottest lines marked, and the SASS
 * instructions by address with their own metrics (the report stores no disassembly, so an address is all
 * there is to show of one). The data is one JSON document (Report.GetSourceView, or the same function run
 * here on a report read in-process): files with their lines, the metrics' names, per source line and per
 * address the metrics' values in that order. */
#include <json-c/json.h>
#include <math.h>

#include "app.h"
#include "report-handle.h"
#include "report-source-view.h"
#include "reports.h"

#define SOURCE_JSON_MAX ((size_t) 256 * 1024 * 1024)
/* How many lines are marked hottest: the few worth looking at first. */
#define SOURCE_HOT_LINES 5

/* --- one row: a source line, or a SASS address ------------------------------------------------------------ */

#define SOURCE_TYPE_ROW (source_row_get_type())
G_DECLARE_FINAL_TYPE(SourceRow, source_row, SOURCE, ROW, GObject)

struct _SourceRow {
        GObject parent;
        char *position; /* a source line's number, or a SASS instruction's address in hex */
        char *text; /* the line's text, or the file and line an address comes from */
        GArray *values; /* double, in the metrics' order: NAN where there is none */
        bool hot;
};

G_DEFINE_TYPE(SourceRow, source_row, G_TYPE_OBJECT)

static void source_row_finalize(GObject *object)
{
        SourceRow *r = SOURCE_ROW(object);

        g_free(r->position);
        g_free(r->text);
        if (r->values)
                g_array_unref(r->values);
        G_OBJECT_CLASS(source_row_parent_class)->finalize(object);
}

static void source_row_class_init(SourceRowClass *klass)
{
        G_OBJECT_CLASS(klass)->finalize = source_row_finalize;
}

static void source_row_init(SourceRow *r)
{
}

static SourceRow *source_row_new(char *position, const char *text, size_t n_metrics)
{
        SourceRow *r = g_object_new(SOURCE_TYPE_ROW, NULL);
        double nan = NAN;

        r->position = position;
        r->text = g_strdup(text);
        r->values = g_array_sized_new(FALSE, FALSE, sizeof(double), n_metrics);
        for (size_t i = 0; i < n_metrics; i++)
                g_array_append_val(r->values, nan);
        return r;
}

static void source_row_set_values(SourceRow *r, struct json_object *values)
{
        for (size_t i = 0; i < r->values->len && i < json_object_array_length(values); i++) {
                struct json_object *v = json_object_array_get_idx(values, i);

                if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))
                        g_array_index(r->values, double, i) = json_object_get_double(v);
        }
}

/* A metric's value as the page shows it: a whole number in full (counts of instructions and samples),
 * anything else with six significant digits; nothing where the line has no value. */
static char *value_text(double v)
{
        if (isnan(v))
                return g_strdup("");
        if (v == floor(v) && fabs(v) < 9007199254740992.0)
                return g_strdup_printf("%.0f", v);
        return g_strdup_printf("%.6g", v);
}

/* --- the page --------------------------------------------------------------------------------------------- */

typedef struct SourcePage {
        App *app;
        ReportHandle *report;
        guint32 range, action;
        GCancellable *cancellable;
        GtkWidget *stack; /* "loading", "state", "view" */
        GtkWidget *state;
        bool reloaded; /* the daemon had dropped the report: it was loaded again once */
} SourcePage;

static void source_page_free(gpointer data)
{
        SourcePage *p = data;

        g_cancellable_cancel(p->cancellable);
        g_object_unref(p->cancellable);
        report_handle_unref(p->report);
        g_free(p);
}

static void show_state(SourcePage *p, const char *title, const char *description)
{
        adw_status_page_set_title(ADW_STATUS_PAGE(p->state), title);
        adw_status_page_set_description(ADW_STATUS_PAGE(p->state), description);
        gtk_stack_set_visible_child_name(GTK_STACK(p->stack), "state");
}

enum {
        COLUMN_POSITION = -3,
        COLUMN_HOT = -2,
        COLUMN_TEXT = -1,
        /* then the metrics, 0, 1, ... */
};

static void on_setup(GtkSignalListItemFactory *factory, GtkListItem *li, gpointer data)
{
        int column = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(factory), "column"));
        GtkWidget *label = gtk_label_new(NULL);

        gtk_label_set_xalign(GTK_LABEL(label), column == COLUMN_TEXT ? 0.0 : 1.0);
        if (column == COLUMN_TEXT || column == COLUMN_POSITION)
                gtk_widget_add_css_class(label, "monospace");
        if (column >= 0)
                gtk_widget_add_css_class(label, "numeric");
        if (column == COLUMN_HOT)
                gtk_widget_add_css_class(label, "error");
        gtk_list_item_set_child(li, label);
}

static void on_bind(GtkSignalListItemFactory *factory, GtkListItem *li, gpointer data)
{
        int column = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(factory), "column"));
        SourceRow *r = gtk_list_item_get_item(li);
        GtkLabel *label = GTK_LABEL(gtk_list_item_get_child(li));

        if (column == COLUMN_POSITION)
                gtk_label_set_text(label, r->position);
        else if (column == COLUMN_HOT)
                /* TRANSLATORS: marks one of the few source lines with the highest metric values */
                gtk_label_set_text(label, r->hot ? C_("source line", "hot") : "");
        else if (column == COLUMN_TEXT)
                gtk_label_set_text(label, r->text);
        else {
                g_autofree char *text = value_text(g_array_index(r->values, double, column));

                gtk_label_set_text(label, text);
        }
}

static void add_column(GtkWidget *view, int column, const char *title, bool expand)
{
        GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
        GtkColumnViewColumn *c;

        g_object_set_data(G_OBJECT(factory), "column", GINT_TO_POINTER(column));
        g_signal_connect(factory, "setup", G_CALLBACK(on_setup), NULL);
        g_signal_connect(factory, "bind", G_CALLBACK(on_bind), NULL);
        c = gtk_column_view_column_new(title, factory);
        gtk_column_view_column_set_resizable(c, TRUE);
        gtk_column_view_column_set_expand(c, expand);
        gtk_column_view_append_column(GTK_COLUMN_VIEW(view), c);
        g_object_unref(c);
}

/* A column view of rows: position, the hot mark (source only), text, then one column per metric. */
static GtkWidget *table_new(GListStore *rows, struct json_object *metrics, const char *accessible, const char *position,
                const char *text, bool hot)
{
        GtkWidget *view = gtk_column_view_new(GTK_SELECTION_MODEL(gtk_no_selection_new(G_LIST_MODEL(rows))));
        GtkWidget *scrolled = gtk_scrolled_window_new();

        gtk_widget_add_css_class(view, "data-table");
        gtk_accessible_update_property(GTK_ACCESSIBLE(view), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
        add_column(view, COLUMN_POSITION, position, false);
        if (hot)
                add_column(view, COLUMN_HOT, "", false);
        add_column(view, COLUMN_TEXT, text, true);
        for (size_t i = 0; i < json_object_array_length(metrics); i++) {
                struct json_object *m = json_object_array_get_idx(metrics, i);
                const char *label = json_object_get_string(json_object_object_get(m, "label"));
                const char *name = json_object_get_string(json_object_object_get(m, "name"));
                const char *unit = json_object_get_string(json_object_object_get(m, "unit"));
                g_autofree char *title = unit && *unit ? g_strdup_printf("%s [%s]", label ? label : name, unit)
                                                       : g_strdup(label ? label : name);

                add_column(view, (int) i, title, false);
        }
        gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), view);
        gtk_widget_set_vexpand(scrolled, TRUE);
        return scrolled;
}

/* Marks the SOURCE_HOT_LINES rows with the highest first metric (and a value above 0). */
static int compare_first_value(gconstpointer a, gconstpointer b)
{
        double x = g_array_index((*(SourceRow *const *) a)->values, double, 0);
        double y = g_array_index((*(SourceRow *const *) b)->values, double, 0);

        x = isnan(x) ? -INFINITY : x;
        y = isnan(y) ? -INFINITY : y;
        return (x < y) - (x > y);
}

static void mark_hottest(GPtrArray *rows, size_t n_metrics)
{
        g_autoptr(GPtrArray) by_value = NULL;

        if (n_metrics == 0)
                return;
        by_value = g_ptr_array_copy(rows, NULL, NULL);
        g_ptr_array_set_free_func(by_value, NULL); /* the copy borrows the rows */
        g_ptr_array_sort(by_value, compare_first_value);
        for (guint i = 0; i < by_value->len && i < SOURCE_HOT_LINES; i++) {
                SourceRow *r = by_value->pdata[i];
                double v = g_array_index(r->values, double, 0);

                if (!isnan(v) && v > 0)
                        r->hot = true;
        }
}

/* One file's page: every line of its text, the metrics beside the lines that have them. */
static GtkWidget *file_page_new(struct json_object *doc, int file, struct json_object *lines)
{
        struct json_object *metrics = json_object_object_get(doc, "metrics");
        struct json_object *source = json_object_object_get(doc, "source");
        size_t n_metrics = json_object_array_length(metrics);
        g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(g_object_unref);
        g_autoptr(GListStore) store = g_list_store_new(SOURCE_TYPE_ROW);

        for (size_t i = 0; i < json_object_array_length(lines); i++)
                g_ptr_array_add(rows,
                                source_row_new(g_strdup_printf("%zu", i + 1),
                                                json_object_get_string(json_object_array_get_idx(lines, i)),
                                                n_metrics));
        for (size_t i = 0; i < json_object_array_length(source); i++) {
                struct json_object *s = json_object_array_get_idx(source, i);
                int64_t line = json_object_get_int64(json_object_object_get(s, "line"));

                if (json_object_get_int64(json_object_object_get(s, "file")) != file || line < 1 ||
                                (uint64_t) line > rows->len)
                        continue;
                source_row_set_values(rows->pdata[line - 1], json_object_object_get(s, "values"));
        }
        mark_hottest(rows, n_metrics);
        g_list_store_splice(store, 0, 0, rows->pdata, rows->len);
        return table_new(store, metrics, _("Source lines"), C_("column", "Line"), C_("column", "Source"), true);
}

static GtkWidget *sass_page_new(struct json_object *doc)
{
        struct json_object *metrics = json_object_object_get(doc, "metrics");
        struct json_object *files = json_object_object_get(doc, "files");
        struct json_object *sass = json_object_object_get(doc, "sass");
        size_t n_metrics = json_object_array_length(metrics);
        g_autoptr(GListStore) store = g_list_store_new(SOURCE_TYPE_ROW);

        for (size_t i = 0; i < json_object_array_length(sass); i++) {
                struct json_object *s = json_object_array_get_idx(sass, i);
                int64_t file = json_object_get_int64(json_object_object_get(s, "file"));
                int64_t line = json_object_get_int64(json_object_object_get(s, "line"));
                struct json_object *f = file >= 0 ? json_object_array_get_idx(files, (size_t) file) : NULL;
                const char *name = f ? json_object_get_string(json_object_object_get(f, "name")) : NULL;
                g_autofree char *where = name && line > 0 ? g_strdup_printf("%s:%" PRIi64, name, line)
                                                          : g_strdup(_("source line not known"));
                g_autoptr(SourceRow) r = source_row_new(
                                g_strdup_printf("0x%" PRIx64,
                                                json_object_get_uint64(json_object_object_get(s, "address"))),
                                where, n_metrics);

                source_row_set_values(r, json_object_object_get(s, "values"));
                g_list_store_append(store, r);
        }
        return table_new(store, metrics, _("SASS instructions"), C_("column", "Address"), C_("column", "Source line"),
                        false);
}

static bool file_has_text(struct json_object *file)
{
        return json_object_array_length(json_object_object_get(file, "lines")) > 0;
}

static void show_source(SourcePage *p, struct json_object *doc)
{
        struct json_object *files = json_object_object_get(doc, "files");
        struct json_object *sass = json_object_object_get(doc, "sass");
        GtkWidget *box, *switcher, *stack;
        bool any_text = false;

        for (size_t i = 0; i < json_object_array_length(files); i++)
                any_text = any_text || file_has_text(json_object_array_get_idx(files, i));
        if (!any_text && json_object_array_length(sass) == 0) {
                show_state(p, _("This report stores no source"),
                                _("Profile the application again with ncu --import-source yes (and the code compiled "
                                  "with -lineinfo) to see its CUDA source with the metrics of each line."));
                return;
        }

        /* A page per file with text, then the SASS instructions. */
        box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
        stack = gtk_stack_new();
        switcher = gtk_stack_switcher_new();
        gtk_stack_switcher_set_stack(GTK_STACK_SWITCHER(switcher), GTK_STACK(stack));
        gtk_widget_set_halign(switcher, GTK_ALIGN_CENTER);
        for (size_t i = 0; i < json_object_array_length(files); i++) {
                struct json_object *f = json_object_array_get_idx(files, i);
                const char *name = json_object_get_string(json_object_object_get(f, "name"));
                g_autofree char *base = g_path_get_basename(name ? name : "");

                if (!file_has_text(f))
                        continue;
                gtk_stack_add_titled(GTK_STACK(stack), file_page_new(doc, (int) i, json_object_object_get(f, "lines")),
                                NULL, base);
        }
        if (!any_text) {
                GtkWidget *none = adw_status_page_new();

                adw_status_page_set_title(ADW_STATUS_PAGE(none), _("This report stores no source"));
                adw_status_page_set_description(ADW_STATUS_PAGE(none),
                                _("Profile the application again with ncu --import-source yes to see its CUDA "
                                  "source beside the instructions' metrics."));
                gtk_stack_add_titled(GTK_STACK(stack), none, NULL, C_("page", "Source"));
        }
        if (json_object_array_length(sass) > 0)
                gtk_stack_add_titled(GTK_STACK(stack), sass_page_new(doc), NULL, C_("page", "SASS"));
        gtk_widget_set_vexpand(stack, TRUE);
        gtk_box_append(GTK_BOX(box), switcher);
        gtk_box_append(GTK_BOX(box), stack);
        gtk_stack_add_named(GTK_STACK(p->stack), box, "view");
        gtk_stack_set_visible_child_name(GTK_STACK(p->stack), "view");
}

static void on_source_view(GObject *source, GAsyncResult *result, gpointer data);

static void ask_daemon(SourcePage *p)
{
        nvp_report_call_get_source_view(report_handle_proxy(p->report), p->range, p->action, G_DBUS_CALL_FLAGS_NONE, -1,
                        NULL, p->cancellable, on_source_view, p);
}

/* The report loaded again (the daemon had dropped it: idle, or a restart): asked once more. */
static void on_reloaded(gpointer data, bool ok)
{
        GtkWidget *stack = data;
        SourcePage *p = g_object_get_data(G_OBJECT(stack), "source-page");

        if (ok)
                ask_daemon(p);
        else
                show_state(p, _("Cannot read the source"), _("The report could not be loaded again."));
        g_object_unref(stack);
}

static void on_source_view(GObject *source, GAsyncResult *result, gpointer data)
{
        SourcePage *p = data;
        g_autoptr(GVariant) handle = NULL;
        g_autoptr(GUnixFDList) fds = NULL;
        g_autoptr(GError) error = NULL;
        struct json_object *doc = NULL;
        int r;

        if (!nvp_report_call_get_source_view_finish(NVP_REPORT(source), &handle, &fds, result, &error)) {
                g_autofree char *message = NULL;

                if (app_error_is_cancelled(error))
                        return; /* the page is gone */
                if (reports_view_reload_wanted(p->app, error, &p->reloaded)) {
                        reports_view_reload(p->app->reports, p->report, on_reloaded, g_object_ref(p->stack));
                        return;
                }
                message = app_error_message(error);
                show_state(p, _("Cannot read the source"), message);
                return;
        }
        r = app_reply_json(handle, fds, SOURCE_JSON_MAX, &doc);
        if (r < 0) {
                show_state(p, _("Cannot read the source"), g_strerror(-r));
                return;
        }
        show_source(p, doc);
        json_object_put(doc);
}

/* The same document made here from a report read in-process (eagerly: its metrics are decoded). */
static void source_view_local(SourcePage *p, const NcuReport *model)
{
        const NcuAction *a = ncu_report_action(model, p->range, p->action);
        struct json_object *doc = NULL;
        int r;

        if (!a) {
                show_state(p, _("Cannot read the source"), _("The report has no such kernel."));
                return;
        }
        r = ncu_action_source_view(model, a, &doc);
        if (r < 0) {
                show_state(p, _("Cannot read the source"), g_strerror(-r));
                return;
        }
        show_source(p, doc);
        json_object_put(doc);
}

GtkWidget *kernel_source_new(App *app, ReportHandle *h, guint32 range, guint32 action)
{
        SourcePage *p = g_new0(SourcePage, 1);

        g_assert(app);
        g_assert(h);
        p->app = app;
        p->report = report_handle_ref(h);
        p->range = range;
        p->action = action;
        p->cancellable = g_cancellable_new();
        p->stack = gtk_stack_new();
        p->state = adw_status_page_new();
        g_object_set_data_full(G_OBJECT(p->stack), "source-page", p, source_page_free);
        gtk_stack_add_named(GTK_STACK(p->stack), app_spinner_new(), "loading");
        gtk_stack_add_named(GTK_STACK(p->stack), p->state, "state");
        gtk_widget_set_vexpand(p->stack, TRUE);

        if (report_handle_proxy(h))
                ask_daemon(p);
        else
                source_view_local(p, report_handle_model(h));
        return p->stack;
}
