/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Two reports compared, like ncu's baseline view: the one comparison of report-diff.h, run by the daemon's
 * worker (Report.Diff) for reports it serves, or here on the models of reports read in-process. Its pairs'
 * changed metrics are listed with the baseline and current values and the change in percent, highlighted
 * beyond a threshold the user sets, sorted by the size of the change (as the comparison orders them) or by
 * any column. Kernels are paired by name and launch; two reports without a kernel name in common (or a user
 * who wants other pairs) pair one kernel of each by hand. */
#include <json-c/json.h>
#include <math.h>

#include "app.h"
#include "report-diff.h"
#include "report-handle.h"

/* A comparison larger than this is refused rather than read (the CLI reads up to 1 GiB; a window of a few
 * hundred thousand rows is no use anyway). */
#define COMPARE_JSON_MAX ((size_t) 256 * 1024 * 1024)
/* The highlight's threshold until the user sets another: a change of more than 5 % of the baseline. */
#define COMPARE_THRESHOLD_DEFAULT 5.0

/* --- one changed metric of one pair ----------------------------------------------------------------------- */

#define COMPARE_TYPE_ROW (compare_row_get_type())
G_DECLARE_FINAL_TYPE(CompareRow, compare_row, COMPARE, ROW, GObject)

struct _CompareRow {
        GObject parent;
        char *kernel; /* "baseline kernel → current kernel" */
        char *section, *metric, *unit;
        char *baseline, *current; /* the values as text */
        char *percent; /* the change in percent as text */
        /* |relative change| in percent, for the highlight and for sorting: infinite from a baseline of 0, NAN
         * where the change is no number (a string changed). */
        double size;
};

G_DEFINE_TYPE(CompareRow, compare_row, G_TYPE_OBJECT)

static void compare_row_finalize(GObject *object)
{
        CompareRow *r = COMPARE_ROW(object);

        g_free(r->kernel);
        g_free(r->section);
        g_free(r->metric);
        g_free(r->unit);
        g_free(r->baseline);
        g_free(r->current);
        g_free(r->percent);
        G_OBJECT_CLASS(compare_row_parent_class)->finalize(object);
}

static void compare_row_class_init(CompareRowClass *klass)
{
        G_OBJECT_CLASS(klass)->finalize = compare_row_finalize;
}

static void compare_row_init(CompareRow *r)
{
}

static bool is_number(struct json_object *v)
{
        return json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
}

/* A value as nvprofilectl report diff prints it: a double "%.6g", an integer in full, a string as it is; the
 * comparison's null is a number that is not finite. */
static char *value_text(struct json_object *v)
{
        if (json_object_is_type(v, json_type_string))
                return g_strdup(json_object_get_string(v));
        if (json_object_is_type(v, json_type_int)) {
                if (json_object_get_int64(v) < 0)
                        return g_strdup_printf("%" G_GINT64_FORMAT, json_object_get_int64(v));
                return g_strdup_printf("%" G_GUINT64_FORMAT, json_object_get_uint64(v));
        }
        return g_strdup_printf("%.6g", v ? json_object_get_double(v) : NAN);
}

/* A metric of the comparison as a row, or NULL when it did not change. */
static CompareRow *compare_row_new(const char *kernel, const char *section, struct json_object *metric)
{
        struct json_object *base = json_object_object_get(metric, "baseline");
        struct json_object *cur = json_object_object_get(metric, "current");
        struct json_object *change = json_object_object_get(metric, "change");
        struct json_object *relative = json_object_object_get(metric, "relative_change");
        CompareRow *r;

        if (is_number(base) && is_number(cur)) {
                if (change && json_object_get_double(change) == 0.0)
                        return NULL;
        } else if (json_object_is_type(base, json_type_string) && json_object_is_type(cur, json_type_string) &&
                        g_str_equal(json_object_get_string(base), json_object_get_string(cur)))
                return NULL;

        r = g_object_new(COMPARE_TYPE_ROW, NULL);
        r->kernel = g_strdup(kernel);
        r->section = g_strdup(section);
        r->metric = g_strdup(json_object_get_string(json_object_object_get(metric, "name")));
        r->unit = g_strdup(json_object_get_string(json_object_object_get(metric, "unit")));
        r->baseline = value_text(base);
        r->current = value_text(cur);
        if (relative && is_number(relative)) {
                r->size = fabs(json_object_get_double(relative) * 100);
                r->percent = g_strdup_printf(C_("change", "%+.2f %%"), json_object_get_double(relative) * 100);
        } else if (is_number(base) && json_object_get_double(base) == 0.0 && change) {
                /* No percentage of nothing: as large a change as there is. */
                r->size = INFINITY;
                r->percent = g_strdup(C_("change", "from 0"));
        } else {
                r->size = NAN;
                r->percent = g_strdup(json_object_is_type(cur, json_type_string) ? C_("change", "changed") : "");
        }
        return r;
}

/* Ascending by the size of the change; a change that is no number is the smallest. */
static int compare_size(gconstpointer a, gconstpointer b, gpointer data)
{
        double x = ((const CompareRow *) a)->size, y = ((const CompareRow *) b)->size;

        if (isnan(x) || isnan(y))
                return isnan(x) - isnan(y) ? (isnan(x) ? -1 : 1) : 0;
        return (x > y) - (x < y);
}

static int compare_metric(gconstpointer a, gconstpointer b, gpointer data)
{
        return g_utf8_collate(((const CompareRow *) a)->metric, ((const CompareRow *) b)->metric);
}

static int compare_section(gconstpointer a, gconstpointer b, gpointer data)
{
        return g_utf8_collate(((const CompareRow *) a)->section, ((const CompareRow *) b)->section);
}

static int compare_kernel(gconstpointer a, gconstpointer b, gpointer data)
{
        return g_utf8_collate(((const CompareRow *) a)->kernel, ((const CompareRow *) b)->kernel);
}

/* --- the window ------------------------------------------------------------------------------------------- */

typedef enum CompareColumn {
        COLUMN_KERNEL,
        COLUMN_SECTION,
        COLUMN_METRIC,
        COLUMN_UNIT,
        COLUMN_BASELINE,
        COLUMN_CURRENT,
        COLUMN_CHANGE,
        _COLUMN_MAX,
} CompareColumn;

typedef struct Compare {
        App *app;
        ReportHandle *current, *baseline;
        GCancellable *cancellable;
        GtkWidget *window;
        GtkWidget *stack; /* "loading", "list" or "state" */
        GtkWidget *state; /* AdwStatusPage: why there is nothing to list */
        GtkWidget *summary; /* "N changed metrics in M pairs" */
        GtkWidget *search;
        GtkWidget *threshold; /* GtkSpinButton, percent */
        GtkWidget *column_view;
        GtkColumnViewColumn *change_column;
        GListStore *rows;
        GPtrArray *change_labels; /* the change column's labels bound to a row now (not owned) */
        GtkFilter *filter;
        /* The pairing: "by name", or an action of each report (flat indices). */
        GtkWidget *pair_baseline, *pair_current; /* GtkDropDown: 0 by name, then action i + 1 */
        GtkStringList *kernels_baseline, *kernels_current;
        guint pending_lists;
        bool running;
} Compare;

static void compare_free(gpointer data)
{
        Compare *c = data;

        g_cancellable_cancel(c->cancellable);
        g_object_unref(c->cancellable);
        report_handle_unref(c->current);
        report_handle_unref(c->baseline);
        g_object_unref(c->rows);
        g_ptr_array_unref(c->change_labels);
        g_object_unref(c->filter);
        g_object_unref(c->kernels_baseline);
        g_object_unref(c->kernels_current);
        g_free(c);
}

static void show_state(Compare *c, const char *title, const char *description)
{
        adw_status_page_set_title(ADW_STATUS_PAGE(c->state), title);
        adw_status_page_set_description(ADW_STATUS_PAGE(c->state), description);
        gtk_stack_set_visible_child_name(GTK_STACK(c->stack), "state");
}

static void show_comparison(Compare *c, struct json_object *doc)
{
        struct json_object *pairs = json_object_object_get(doc, "pairs");
        guint n_metrics = 0;
        g_autofree char *summary = NULL;

        g_list_store_remove_all(c->rows);
        if (!json_object_is_type(pairs, json_type_array)) {
                show_state(c, _("Cannot compare the reports"), _("nvprofiled returned a malformed comparison."));
                return;
        }
        for (size_t i = 0; i < json_object_array_length(pairs); i++) {
                struct json_object *pair = json_object_array_get_idx(pairs, i);
                struct json_object *b = json_object_object_get(pair, "baseline");
                struct json_object *cur = json_object_object_get(pair, "current");
                struct json_object *sections = json_object_object_get(pair, "sections");
                g_autofree char *kernel = g_strdup_printf("%s (%" PRIu64 ") → %s (%" PRIu64 ")",
                                json_object_get_string(json_object_object_get(b, "kernel")),
                                json_object_get_uint64(json_object_object_get(b, "action")),
                                json_object_get_string(json_object_object_get(cur, "kernel")),
                                json_object_get_uint64(json_object_object_get(cur, "action")));

                for (size_t s = 0; s < json_object_array_length(sections); s++) {
                        struct json_object *section = json_object_array_get_idx(sections, s);
                        struct json_object *metrics = json_object_object_get(section, "metrics");
                        const char *name = json_object_get_string(json_object_object_get(section, "name"));

                        for (size_t m = 0; m < json_object_array_length(metrics); m++) {
                                g_autoptr(CompareRow) row = compare_row_new(
                                                kernel, name ? name : "", json_object_array_get_idx(metrics, m));

                                n_metrics++;
                                if (row)
                                        g_list_store_append(c->rows, row);
                        }
                }
        }
        if (json_object_array_length(pairs) == 0) {
                show_state(c, _("No kernel of the same name in both reports"),
                                _("Pair a kernel of the baseline with one of this report above."));
                return;
        }
        summary = g_strdup_printf(
                        /* TRANSLATORS: the first number counts metrics that changed, the second those compared */
                        ngettext("%u of %u metric changed", "%u of %u metrics changed", n_metrics),
                        g_list_model_get_n_items(G_LIST_MODEL(c->rows)), n_metrics);
        gtk_label_set_text(GTK_LABEL(c->summary), summary);
        gtk_stack_set_visible_child_name(GTK_STACK(c->stack), "list");
}

/* The pairing the drop-downs say: NULL (by name) or "B:C". */
static char *pair_spec(Compare *c)
{
        guint b = gtk_drop_down_get_selected(GTK_DROP_DOWN(c->pair_baseline));
        guint cur = gtk_drop_down_get_selected(GTK_DROP_DOWN(c->pair_current));

        if (b == 0 || cur == 0 || b == GTK_INVALID_LIST_POSITION || cur == GTK_INVALID_LIST_POSITION)
                return NULL;
        return g_strdup_printf("%u:%u", b - 1, cur - 1);
}

static void on_diff(GObject *source, GAsyncResult *result, gpointer data)
{
        Compare *c = data;
        g_autoptr(GVariant) handle = NULL;
        g_autoptr(GUnixFDList) fds = NULL;
        g_autoptr(GError) error = NULL;
        struct json_object *doc = NULL;
        int r;

        if (!nvp_report_call_diff_finish(NVP_REPORT(source), &handle, &fds, result, &error)) {
                g_autofree char *message = NULL;

                if (app_error_is_cancelled(error))
                        return; /* the window is gone */
                c->running = false;
                message = app_error_message(error);
                show_state(c, _("Cannot compare the reports"), message);
                return;
        }
        c->running = false;
        r = app_reply_json(handle, fds, COMPARE_JSON_MAX, &doc);
        if (r < 0) {
                show_state(c, _("Cannot compare the reports"), g_strerror(-r));
                return;
        }
        show_comparison(c, doc);
        json_object_put(doc);
}

static void compare_run(Compare *c)
{
        g_autofree char *spec = pair_spec(c);
        char *specs[] = { spec, NULL };
        NvpReport *current = report_handle_proxy(c->current), *baseline = report_handle_proxy(c->baseline);

        gtk_stack_set_visible_child_name(GTK_STACK(c->stack), "loading");
        if (current && baseline) {
                c->running = true;
                nvp_report_call_diff(current, g_dbus_proxy_get_object_path(G_DBUS_PROXY(baseline)),
                                (const char *const *) specs, G_DBUS_CALL_FLAGS_NONE, -1, NULL, c->cancellable, on_diff,
                                c);
                return;
        }
        if (report_handle_model(c->current) && report_handle_model(c->baseline)) {
                char message[NCU_DIFF_MESSAGE_MAX] = "";
                struct json_object *doc = NULL;
                int r;

                /* Both read eagerly (report-handle.h): every metric is decoded, and the comparison changes
                 * nothing of either model. */
                r = ncu_report_diff_json((NcuReport *) report_handle_model(c->baseline),
                                (NcuReport *) report_handle_model(c->current), specs, spec ? 1 : 0, &doc, message);
                if (r < 0) {
                        show_state(c, _("Cannot compare the reports"), *message ? message : g_strerror(-r));
                        return;
                }
                show_comparison(c, doc);
                json_object_put(doc);
                return;
        }
        show_state(c, _("Cannot compare these reports"),
                        _("One report is read by nvprofiled and the other by this app. Open both the same way: "
                          "close one and open it again."));
}

static void on_pair_changed(GObject *object, GParamSpec *pspec, gpointer data)
{
        Compare *c = data;

        if (c->pending_lists == 0)
                compare_run(c);
}

static void mark_change(Compare *c, GtkWidget *label, CompareRow *r)
{
        /* Beyond the threshold: seen in the list, and said to whoever reads it with a screen reader. */
        if (r->size > gtk_spin_button_get_value(GTK_SPIN_BUTTON(c->threshold))) {
                gtk_widget_add_css_class(label, "warning");
                gtk_widget_add_css_class(label, "heading");
                gtk_accessible_update_property(GTK_ACCESSIBLE(label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                _("beyond the threshold"), -1);
        } else {
                gtk_widget_remove_css_class(label, "warning");
                gtk_widget_remove_css_class(label, "heading");
                gtk_accessible_reset_property(GTK_ACCESSIBLE(label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
        }
}

static void on_threshold_changed(GtkSpinButton *spin, gpointer data)
{
        Compare *c = data;

        /* Only the cells bound now show a change; the others are marked when they are bound. */
        for (guint i = 0; i < c->change_labels->len; i++) {
                GtkWidget *label = c->change_labels->pdata[i];

                mark_change(c, label, g_object_get_data(G_OBJECT(label), "row"));
        }
}

static void on_search_changed(GtkSearchEntry *entry, gpointer data)
{
        gtk_filter_changed(((Compare *) data)->filter, GTK_FILTER_CHANGE_DIFFERENT);
}

static gboolean filter_func(gpointer item, gpointer data)
{
        Compare *c = data;
        CompareRow *r = item;
        const char *text = gtk_editable_get_text(GTK_EDITABLE(c->search));
        g_autofree char *needle = NULL, *metric = NULL, *kernel = NULL, *section = NULL;

        if (!text || !*text)
                return TRUE;
        needle = g_utf8_casefold(text, -1);
        metric = g_utf8_casefold(r->metric, -1);
        kernel = g_utf8_casefold(r->kernel, -1);
        section = g_utf8_casefold(r->section, -1);
        return strstr(metric, needle) || strstr(kernel, needle) || strstr(section, needle);
}

/* --- cells ------------------------------------------------------------------------------------------------ */

static void on_setup(GtkSignalListItemFactory *factory, GtkListItem *li, gpointer data)
{
        CompareColumn column = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(factory), "column"));
        GtkWidget *label = gtk_label_new(NULL);

        gtk_label_set_xalign(GTK_LABEL(label), column >= COLUMN_BASELINE ? 1.0 : 0.0);
        if (column == COLUMN_KERNEL || column == COLUMN_METRIC)
                gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_MIDDLE);
        if (column >= COLUMN_BASELINE)
                gtk_widget_add_css_class(label, "numeric");
        gtk_list_item_set_child(li, label);
}

static void on_bind(GtkSignalListItemFactory *factory, GtkListItem *li, gpointer data)
{
        Compare *c = data;
        CompareColumn column = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(factory), "column"));
        CompareRow *r = gtk_list_item_get_item(li);
        GtkWidget *label = gtk_list_item_get_child(li);
        const char *text[_COLUMN_MAX] = { r->kernel, r->section, r->metric, r->unit, r->baseline, r->current,
                r->percent };

        gtk_label_set_text(GTK_LABEL(label), text[column]);
        gtk_widget_set_tooltip_text(label, column == COLUMN_KERNEL || column == COLUMN_METRIC ? text[column] : NULL);
        if (column != COLUMN_CHANGE)
                return;
        g_object_set_data(G_OBJECT(label), "row", r);
        g_ptr_array_add(c->change_labels, label);
        mark_change(c, label, r);
}

static void on_unbind(GtkSignalListItemFactory *factory, GtkListItem *li, gpointer data)
{
        Compare *c = data;
        GtkWidget *label = gtk_list_item_get_child(li);

        if (GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(factory), "column")) != COLUMN_CHANGE)
                return;
        g_ptr_array_remove_fast(c->change_labels, label);
        g_object_set_data(G_OBJECT(label), "row", NULL);
}

static GtkColumnViewColumn *add_column(
                Compare *c, CompareColumn column, const char *title, GCompareDataFunc compare, bool expand)
{
        GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
        GtkColumnViewColumn *col;

        g_object_set_data(G_OBJECT(factory), "column", GUINT_TO_POINTER(column));
        g_signal_connect(factory, "setup", G_CALLBACK(on_setup), c);
        g_signal_connect(factory, "bind", G_CALLBACK(on_bind), c);
        g_signal_connect(factory, "unbind", G_CALLBACK(on_unbind), c);
        col = gtk_column_view_column_new(title, factory);
        if (compare) {
                GtkSorter *sorter = GTK_SORTER(gtk_custom_sorter_new(compare, NULL, NULL));

                gtk_column_view_column_set_sorter(col, sorter);
                g_object_unref(sorter);
        }
        gtk_column_view_column_set_resizable(col, TRUE);
        gtk_column_view_column_set_expand(col, expand);
        gtk_column_view_append_column(GTK_COLUMN_VIEW(c->column_view), col);
        g_object_unref(col); /* the column view holds it */
        return col;
}

/* --- the kernels to pair by hand -------------------------------------------------------------------------- */

static void kernel_list_add(GtkStringList *list, guint32 index, const char *name)
{
        g_autofree char *item = g_strdup_printf("%u  %s", index, name ? name : "");

        gtk_string_list_append(list, item);
}

static void kernel_lists_done(Compare *c)
{
        if (--c->pending_lists == 0)
                compare_run(c);
}

typedef struct KernelListCall {
        Compare *c;
        GtkStringList *list;
} KernelListCall;

static void on_summary(GObject *source, GAsyncResult *result, gpointer data)
{
        g_autofree KernelListCall *call = data;
        g_autoptr(GVariant) summary = NULL;
        g_autoptr(GError) error = NULL;
        GVariantIter iter;
        guint32 range, action, index;
        const char *name;

        if (!nvp_report_call_get_summary_finish(NVP_REPORT(source), &summary, result, &error)) {
                if (app_error_is_cancelled(error))
                        return; /* the window is gone */
                g_debug("No kernel list to pair by hand: %s", error->message);
        } else {
                g_variant_iter_init(&iter, summary);
                while (g_variant_iter_next(&iter, "(uuu&s(ttt)(ttt)d@a(ssd))", &range, &action, &index, &name, NULL,
                                NULL, NULL, NULL, NULL, NULL, NULL, NULL))
                        kernel_list_add(call->list, index, name);
        }
        kernel_lists_done(call->c);
}

/* The kernels of h, for its drop-down: the daemon's summary, or the model's actions. */
static void kernel_list_fill(Compare *c, ReportHandle *h, GtkStringList *list)
{
        const NcuReport *model = report_handle_model(h);

        c->pending_lists++;
        if (report_handle_proxy(h)) {
                KernelListCall *call = g_new(KernelListCall, 1);

                *call = (KernelListCall){ .c = c, .list = list };
                nvp_report_call_get_summary(
                                report_handle_proxy(h), G_DBUS_CALL_FLAGS_NONE, -1, c->cancellable, on_summary, call);
                return;
        }
        for (size_t i = 0; model && i < model->n_actions; i++)
                kernel_list_add(list, i, ncu_action_name(model->actions[i], NCU_NAME_FUNCTION));
        kernel_lists_done(c);
}

static GtkWidget *pair_drop_down(Compare *c, GtkStringList *list, const char *accessible)
{
        GtkWidget *d = gtk_drop_down_new(G_LIST_MODEL(g_object_ref(list)), NULL);

        gtk_accessible_update_property(GTK_ACCESSIBLE(d), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
        gtk_widget_set_hexpand(d, TRUE);
        g_signal_connect(d, "notify::selected", G_CALLBACK(on_pair_changed), c);
        return d;
}

void report_compare_show(App *app, ReportHandle *current, ReportHandle *baseline)
{
        Compare *c = g_new0(Compare, 1);
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        GtkWidget *header = adw_header_bar_new();
        GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
        GtkWidget *pairs = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
        GtkWidget *scrolled = gtk_scrolled_window_new();
        GtkWidget *list = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
        GtkWidget *threshold_label, *pair_label;
        GtkFilterListModel *filtered;
        GtkSortListModel *sorted;
        GtkNoSelection *selection;
        g_autofree char *title = g_strdup_printf(
                        /* TRANSLATORS: the report, then the baseline it is compared with */
                        _("%s Compared with %s"), report_handle_title(current), report_handle_title(baseline));

        g_assert(app);
        g_assert(current);
        g_assert(baseline);
        c->app = app;
        c->current = report_handle_ref(current);
        c->baseline = report_handle_ref(baseline);
        c->cancellable = g_cancellable_new();
        c->rows = g_list_store_new(COMPARE_TYPE_ROW);
        c->change_labels = g_ptr_array_new();
        c->kernels_baseline = gtk_string_list_new(NULL);
        c->kernels_current = gtk_string_list_new(NULL);
        gtk_string_list_append(c->kernels_baseline, _("Kernels paired by name"));
        gtk_string_list_append(c->kernels_current, _("Kernels paired by name"));

        c->window = adw_window_new();
        g_object_set_data_full(G_OBJECT(c->window), "compare", c, compare_free);
        gtk_window_set_title(GTK_WINDOW(c->window), title);
        gtk_window_set_transient_for(GTK_WINDOW(c->window), app->window);
        gtk_window_set_default_size(GTK_WINDOW(c->window), 1100, 700);
        gtk_box_append(GTK_BOX(box), header);

        /* The pairing, the threshold, the search. */
        gtk_widget_set_margin_start(bar, 12);
        gtk_widget_set_margin_end(bar, 12);
        gtk_widget_set_margin_top(bar, 6);
        gtk_widget_set_margin_bottom(bar, 6);
        pair_label = gtk_label_new(_("Pair"));
        c->pair_baseline = pair_drop_down(c, c->kernels_baseline, _("Baseline kernel"));
        c->pair_current = pair_drop_down(c, c->kernels_current, _("Current kernel"));
        gtk_box_append(GTK_BOX(pairs), pair_label);
        gtk_box_append(GTK_BOX(pairs), c->pair_baseline);
        gtk_box_append(GTK_BOX(pairs), gtk_label_new("→"));
        gtk_box_append(GTK_BOX(pairs), c->pair_current);
        gtk_widget_set_hexpand(pairs, TRUE);
        gtk_box_append(GTK_BOX(bar), pairs);
        threshold_label = gtk_label_new_with_mnemonic(_("_Highlight changes beyond (%)"));
        c->threshold = gtk_spin_button_new_with_range(0, 1000000, 1);
        gtk_spin_button_set_digits(GTK_SPIN_BUTTON(c->threshold), 1);
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(c->threshold), COMPARE_THRESHOLD_DEFAULT);
        gtk_label_set_mnemonic_widget(GTK_LABEL(threshold_label), c->threshold);
        gtk_accessible_update_property(GTK_ACCESSIBLE(c->threshold), GTK_ACCESSIBLE_PROPERTY_LABEL,
                        _("Highlight changes beyond this percentage"), -1);
        g_signal_connect(c->threshold, "value-changed", G_CALLBACK(on_threshold_changed), c);
        gtk_box_append(GTK_BOX(bar), threshold_label);
        gtk_box_append(GTK_BOX(bar), c->threshold);
        gtk_box_append(GTK_BOX(box), bar);

        c->state = adw_status_page_new();
        c->stack = gtk_stack_new();
        gtk_widget_set_vexpand(c->stack, TRUE);
        gtk_stack_add_named(GTK_STACK(c->stack), app_spinner_new(), "loading");

        c->search = gtk_search_entry_new();
        g_object_set(c->search, "placeholder-text", _("Search metrics, sections, kernels"), NULL);
        gtk_accessible_update_property(
                        GTK_ACCESSIBLE(c->search), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Search metrics"), -1);
        g_signal_connect(c->search, "search-changed", G_CALLBACK(on_search_changed), c);
        c->summary = gtk_label_new(NULL);
        gtk_label_set_xalign(GTK_LABEL(c->summary), 0.0);
        gtk_widget_add_css_class(c->summary, "dim-label");
        gtk_widget_set_margin_start(list, 12);
        gtk_widget_set_margin_end(list, 12);
        gtk_box_append(GTK_BOX(list), c->search);
        gtk_box_append(GTK_BOX(list), c->summary);

        c->column_view = gtk_column_view_new(NULL);
        gtk_widget_add_css_class(c->column_view, "data-table");
        gtk_accessible_update_property(
                        GTK_ACCESSIBLE(c->column_view), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Changed metrics"), -1);
        add_column(c, COLUMN_KERNEL, _("Kernels"), compare_kernel, false);
        add_column(c, COLUMN_SECTION, _("Section"), compare_section, false);
        add_column(c, COLUMN_METRIC, _("Metric"), compare_metric, true);
        add_column(c, COLUMN_UNIT, _("Unit"), NULL, false);
        add_column(c, COLUMN_BASELINE, _("Baseline"), NULL, false);
        add_column(c, COLUMN_CURRENT, _("Current"), NULL, false);
        c->change_column = add_column(c, COLUMN_CHANGE, _("Change"), compare_size, false);

        /* rows -> filtered by the search -> sorted by the column the user picked (the size of the change,
         * largest first, until then) -> the column view. */
        c->filter = GTK_FILTER(gtk_custom_filter_new(filter_func, c, NULL));
        filtered = gtk_filter_list_model_new(G_LIST_MODEL(g_object_ref(c->rows)), g_object_ref(c->filter));
        sorted = gtk_sort_list_model_new(G_LIST_MODEL(filtered),
                        g_object_ref(gtk_column_view_get_sorter(GTK_COLUMN_VIEW(c->column_view))));
        selection = gtk_no_selection_new(G_LIST_MODEL(sorted));
        gtk_column_view_set_model(GTK_COLUMN_VIEW(c->column_view), GTK_SELECTION_MODEL(selection));
        g_object_unref(selection);
        gtk_column_view_sort_by_column(GTK_COLUMN_VIEW(c->column_view), c->change_column, GTK_SORT_DESCENDING);
        gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), c->column_view);
        gtk_widget_set_vexpand(scrolled, TRUE);
        gtk_box_append(GTK_BOX(list), scrolled);
        gtk_stack_add_named(GTK_STACK(c->stack), list, "list");
        gtk_stack_add_named(GTK_STACK(c->stack), c->state, "state");
        gtk_box_append(GTK_BOX(box), c->stack);
        adw_window_set_content(ADW_WINDOW(c->window), box);
        gtk_window_present(GTK_WINDOW(c->window));

        /* The comparison runs once both kernel lists are in (a change of pairing runs it again). */
        kernel_list_fill(c, baseline, c->kernels_baseline);
        kernel_list_fill(c, current, c->kernels_current);
}
