/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One open report's page: its kernels in a column view (index, name, launch, duration, findings), sorted
 * by the column the user picks and filtered by name and by NVTX range, from the daemon (Report.GetSummary,
 * Report.ActionsByNvtx) or, read in-process, from the model (the same summary and NVTX selection the
 * daemon's worker runs: report-summary.h, ncu_range_actions_by_nvtx()). Activating a kernel opens its
 * window; "Compare with…" compares the report with another open one. */
#include <math.h>

#include "report-summary.h"
#include "reports.h"

#define NVTX_TYPING_MSEC 400

/* --- one kernel (a row) --------------------------------------------------------------------------------- */

#define KERNEL_TYPE_ITEM (kernel_item_get_type())
G_DECLARE_FINAL_TYPE(KernelItem, kernel_item, KERNEL, ITEM, GObject)

struct _KernelItem {
        GObject parent;
        guint32 range, action, index;
        char *name;
        guint64 grid[3], block[3];
        double duration; /* ns, NaN when not measured */
        char *findings; /* the top three, one a line */
        double top_speedup; /* NaN when none */
        guint n_findings;
};

G_DEFINE_TYPE(KernelItem, kernel_item, G_TYPE_OBJECT)

static void kernel_item_finalize(GObject *object)
{
        KernelItem *k = KERNEL_ITEM(object);

        g_free(k->name);
        g_free(k->findings);
        G_OBJECT_CLASS(kernel_item_parent_class)->finalize(object);
}

static void kernel_item_class_init(KernelItemClass *klass)
{
        G_OBJECT_CLASS(klass)->finalize = kernel_item_finalize;
}

static void kernel_item_init(KernelItem *k)
{
        k->duration = NAN;
        k->top_speedup = NAN;
}

static void kernel_item_add_finding(KernelItem *k, GString *text, const char *title, double speedup)
{
        if (k->n_findings == 0)
                k->top_speedup = speedup;
        if (k->n_findings++ >= 3)
                return;
        if (text->len)
                g_string_append_c(text, '\n');
        if (isnan(speedup))
                g_string_append(text, title);
        else
                g_string_append_printf(text, _("%s (est. %.1f%%)"), title, speedup);
}

bool kernel_launch_failed(const guint64 grid[3], double duration_ns)
{
        return isnan(duration_ns) && grid[0] * grid[1] * grid[2] == 0;
}

char *kernel_launch_text(const guint64 grid[3], const guint64 block[3], double duration_ns)
{
        if (kernel_launch_failed(grid, duration_ns))
                /* TRANSLATORS: a kernel whose launch ncu recorded with no grid and no duration */
                return g_strdup(_("Did not run: the launch failed"));
        return g_strdup_printf("(%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                               ") × (%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")",
                        grid[0], grid[1], grid[2], block[0], block[1], block[2]);
}

char *kernel_duration_text(const guint64 grid[3], double duration_ns)
{
        if (kernel_launch_failed(grid, duration_ns))
                return g_strdup(_("none"));
        if (isnan(duration_ns) || duration_ns < 0)
                return g_strdup(_("not measured"));
        if (duration_ns >= 1e6)
                return g_strdup_printf(_("%.2f ms"), duration_ns / 1e6);
        if (duration_ns >= 1e3)
                return g_strdup_printf(_("%.2f us"), duration_ns / 1e3);
        return g_strdup_printf(_("%.0f ns"), duration_ns);
}

/* --- the page ------------------------------------------------------------------------------------------- */

typedef enum Column {
        COLUMN_INDEX,
        COLUMN_NAME,
        COLUMN_LAUNCH,
        COLUMN_DURATION,
        COLUMN_FINDINGS,
        COLUMN_OPEN,
        _COLUMN_MAX,
} Column;

/* The page's least width for each column (0: always shown): a narrow window keeps the name, the
 * duration and the button that opens the kernel. */
static const int column_min_width[_COLUMN_MAX] = {
        [COLUMN_INDEX] = 560,
        [COLUMN_LAUNCH] = 760,
        [COLUMN_FINDINGS] = 640,
};

struct ReportPage {
        App *app;
        ReportHandle *handle;
        GtkWidget *box;
        GtkWidget *info, *note, *nvtx_note;
        GtkWidget *search, *nvtx, *compare;
        GtkWidget *column_view;
        GtkColumnViewColumn *columns[_COLUMN_MAX];
        int width;
        GListStore *store;
        GtkFilter *filter;
        GCancellable *cancellable; /* this page's calls: cancelled when it closes */
        guint32 n_ranges;
        GHashTable *nvtx_selected; /* (range << 32 | action) of the actions the NVTX expression selects; NULL: no filter
                                    */
        GHashTable *nvtx_pending; /* being gathered from the daemon, one range at a time */
        guint nvtx_waiting, nvtx_generation;
        guint nvtx_timeout;
        GPtrArray *windows; /* the kernel windows it opened */
        ReportPageOthers others;
        gpointer others_data;
};

static guint64 action_key(guint32 range, guint32 action)
{
        return ((guint64) range << 32) | action;
}

static gboolean filter_func(gpointer item, gpointer data)
{
        ReportPage *p = data;
        KernelItem *k = item;
        const char *text = gtk_editable_get_text(GTK_EDITABLE(p->search));
        guint64 key = action_key(k->range, k->action);

        if (p->nvtx_selected && !g_hash_table_contains(p->nvtx_selected, &key))
                return FALSE;
        if (*text) {
                g_autofree char *needle = g_utf8_casefold(text, -1);
                g_autofree char *name = g_utf8_casefold(k->name, -1);
                g_autofree char *index = g_strdup_printf("%u", k->index);

                return strstr(name, needle) || g_str_equal(index, text);
        }
        return TRUE;
}

static int compare_double_nan_last(double a, double b)
{
        if (isnan(a) || isnan(b))
                return isnan(a) - isnan(b);
        return (a > b) - (a < b);
}

static int compare_index(gconstpointer a, gconstpointer b, gpointer data)
{
        return (int) (((const KernelItem *) a)->index > ((const KernelItem *) b)->index) -
                        (int) (((const KernelItem *) a)->index < ((const KernelItem *) b)->index);
}

static int compare_name(gconstpointer a, gconstpointer b, gpointer data)
{
        return g_strcmp0(((const KernelItem *) a)->name, ((const KernelItem *) b)->name);
}

static int compare_duration(gconstpointer a, gconstpointer b, gpointer data)
{
        return compare_double_nan_last(((const KernelItem *) a)->duration, ((const KernelItem *) b)->duration);
}

static int compare_findings(gconstpointer a, gconstpointer b, gpointer data)
{
        const KernelItem *x = a, *y = b;
        int c = compare_double_nan_last(x->top_speedup, y->top_speedup);

        return c ? c : (int) (x->n_findings > y->n_findings) - (int) (x->n_findings < y->n_findings);
}

static void on_open_clicked(GtkButton *button, gpointer data);

static void on_setup(GtkSignalListItemFactory *factory, GtkListItem *li, gpointer data)
{
        GtkWidget *label;

        if (GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(factory), "column")) == COLUMN_OPEN) {
                GtkWidget *button = app_button_new(_("_Details"), NULL);

                g_signal_connect(button, "clicked", G_CALLBACK(on_open_clicked), data);
                gtk_list_item_set_child(li, button);
                return;
        }
        label = gtk_label_new(NULL);

        gtk_label_set_xalign(GTK_LABEL(label), 0);
        gtk_label_set_wrap(GTK_LABEL(label), TRUE);
        gtk_label_set_selectable(GTK_LABEL(label), FALSE);
        gtk_list_item_set_child(li, label);
}

static void on_bind(GtkSignalListItemFactory *factory, GtkListItem *li, gpointer data)
{
        KernelItem *k = gtk_list_item_get_item(li);
        Column column = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(factory), "column"));
        g_autofree char *text = NULL;

        switch (column) {
        case COLUMN_INDEX:
                text = g_strdup_printf("%u", k->index);
                break;
        case COLUMN_NAME:
                text = g_strdup(k->name);
                break;
        case COLUMN_LAUNCH:
                text = kernel_launch_text(k->grid, k->block, k->duration);
                break;
        case COLUMN_DURATION:
                text = kernel_duration_text(k->grid, k->duration);
                break;
        case COLUMN_OPEN:
                text = g_strdup_printf(_("Details of kernel %u %s"), k->index, k->name);
                g_object_set_data_full(
                                G_OBJECT(gtk_list_item_get_child(li)), "kernel", g_object_ref(k), g_object_unref);
                /* One name, ours (as app_button_new() gives): not followed by its label's. */
                gtk_accessible_update_property(
                                GTK_ACCESSIBLE(gtk_list_item_get_child(li)), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
                gtk_accessible_reset_relation(
                                GTK_ACCESSIBLE(gtk_list_item_get_child(li)), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
                return;
        default:
                text = g_strdup(k->findings ? k->findings : "");
                break;
        }
        gtk_label_set_text(GTK_LABEL(gtk_list_item_get_child(li)), text);
}

static void add_column(ReportPage *p, Column column, const char *title, GCompareDataFunc compare, bool expand)
{
        GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
        GtkColumnViewColumn *c;

        g_object_set_data(G_OBJECT(factory), "column", GUINT_TO_POINTER(column));
        g_signal_connect(factory, "setup", G_CALLBACK(on_setup), p);
        g_signal_connect(factory, "bind", G_CALLBACK(on_bind), p);
        c = gtk_column_view_column_new(title, factory);
        if (compare) {
                GtkSorter *sorter = GTK_SORTER(gtk_custom_sorter_new(compare, NULL, NULL));

                gtk_column_view_column_set_sorter(c, sorter);
                g_object_unref(sorter);
        }
        gtk_column_view_column_set_resizable(c, TRUE);
        gtk_column_view_column_set_expand(c, expand);
        gtk_column_view_append_column(GTK_COLUMN_VIEW(p->column_view), c);
        p->columns[column] = c; /* the column view holds it */
        g_object_unref(c);
}

static void on_page_resize(GtkDrawingArea *probe, int width, int height, gpointer data)
{
        ReportPage *p = data;

        if (width == p->width)
                return;
        p->width = width;
        for (Column c = 0; c < _COLUMN_MAX; c++)
                gtk_column_view_column_set_visible(p->columns[c], width >= column_min_width[c]);
}

static void on_window_destroy(GtkWidget *window, gpointer data)
{
        ReportPage *p = data;

        g_ptr_array_remove(p->windows, window);
}

static void kernel_open(ReportPage *p, KernelItem *k)
{
        GtkWidget *window = kernel_page_show(p->app, p->handle, k->range, k->action, k->name);
        g_ptr_array_add(p->windows, window);
        g_signal_connect(window, "destroy", G_CALLBACK(on_window_destroy), p);
}

static void on_activate(GtkColumnView *view, guint position, gpointer data)
{
        g_autoptr(KernelItem) k = g_list_model_get_item(G_LIST_MODEL(gtk_column_view_get_model(view)), position);

        if (k)
                kernel_open(data, k);
}

static void on_open_clicked(GtkButton *button, gpointer data)
{
        KernelItem *k = g_object_get_data(G_OBJECT(button), "kernel");

        if (k)
                kernel_open(data, k);
}

static void on_search_changed(GtkSearchEntry *entry, gpointer data)
{
        ReportPage *p = data;

        gtk_filter_changed(p->filter, GTK_FILTER_CHANGE_DIFFERENT);
}

/* --- the kernels ---------------------------------------------------------------------------------------- */

static void set_info(ReportPage *p, const char *version, guint32 ranges)
{
        g_autofree char *text =
                        g_strdup_printf(ngettext("Nsight Compute %s, %u range", "Nsight Compute %s, %u ranges", ranges),
                                        version && *version ? version : "?", ranges);

        p->n_ranges = ranges;
        gtk_label_set_text(GTK_LABEL(p->info), text);
}

static void say(GtkWidget *label, const char *text)
{
        gtk_label_set_text(GTK_LABEL(label), text ? text : "");
        gtk_widget_set_visible(label, text && *text);
}

static void on_summary(GObject *source, GAsyncResult *result, gpointer data)
{
        ReportPage *p = data;
        g_autoptr(GVariant) summary = NULL;
        g_autoptr(GError) error = NULL;
        guint32 range, action, index;
        const char *name;
        GVariantIter iter;
        GVariant *findings;
        double duration;
        guint64 g[3], b[3];

        if (!nvp_report_call_get_summary_finish(NVP_REPORT(source), &summary, result, &error)) {
                if (!app_error_is_cancelled(error)) {
                        g_autofree char *message = app_error_message(error);
                        g_autofree char *text = g_strdup_printf(_("Cannot read the kernels: %s"), message);

                        say(p->note, text);
                }
                return;
        }
        g_variant_iter_init(&iter, summary);
        while (g_variant_iter_next(&iter, "(uuu&s(ttt)(ttt)d@a(ssd))", &range, &action, &index, &name, &g[0], &g[1],
                        &g[2], &b[0], &b[1], &b[2], &duration, &findings)) {
                KernelItem *k = g_object_new(KERNEL_TYPE_ITEM, NULL);
                g_autoptr(GString) text = g_string_new(NULL);
                const char *type, *title;
                double speedup;
                GVariantIter f;

                k->range = range;
                k->action = action;
                k->index = index;
                k->name = g_strdup(name);
                memcpy(k->grid, g, sizeof(g));
                memcpy(k->block, b, sizeof(b));
                k->duration = duration;
                g_variant_iter_init(&f, findings);
                while (g_variant_iter_next(&f, "(&s&sd)", &type, &title, &speedup))
                        kernel_item_add_finding(k, text, title, speedup);
                k->findings = g_strdup(text->str);
                g_list_store_append(p->store, k);
                g_object_unref(k);
                g_variant_unref(findings);
        }
}

static void on_info(GObject *source, GAsyncResult *result, gpointer data)
{
        g_autoptr(GError) error = NULL;
        g_autofree char *version = NULL;
        guint32 format, ranges;
        guint64 size;

        if (nvp_report_call_get_info_finish(NVP_REPORT(source), &version, &format, &ranges, &size, result, &error))
                set_info(data, version, ranges);
}

static void load_model(ReportPage *p, const NcuReport *model)
{
        NcuSummaryRow *rows = NULL;
        size_t n = 0;
        int r;

        set_info(p, ncu_report_ncu_version(model), (guint32) model->n_ranges);
        r = ncu_report_summary(model, &rows, &n);
        if (r < 0) {
                g_autofree char *text = g_strdup_printf(_("Cannot read the kernels: %s"), g_strerror(-r));

                say(p->note, text);
                return;
        }
        for (size_t i = 0; i < n; i++) {
                KernelItem *k = g_object_new(KERNEL_TYPE_ITEM, NULL);
                g_autoptr(GString) text = g_string_new(NULL);

                k->range = (guint32) rows[i].range;
                k->action = (guint32) rows[i].action;
                k->index = (guint32) rows[i].index;
                k->name = g_strdup(rows[i].name ? rows[i].name : "");
                k->grid[0] = rows[i].grid.x, k->grid[1] = rows[i].grid.y, k->grid[2] = rows[i].grid.z;
                k->block[0] = rows[i].block.x, k->block[1] = rows[i].block.y, k->block[2] = rows[i].block.z;
                k->duration = rows[i].duration_ns;
                for (size_t j = 0; j < rows[i].n_findings; j++)
                        kernel_item_add_finding(k, text, rows[i].findings[j].title, rows[i].findings[j].speedup);
                k->findings = g_strdup(text->str);
                g_list_store_append(p->store, k);
                g_object_unref(k);
        }
        ncu_summary_free(rows, n);
}

/* --- the NVTX filter ------------------------------------------------------------------------------------ */

static void nvtx_apply(ReportPage *p, GHashTable *selected)
{
        g_clear_pointer(&p->nvtx_selected, g_hash_table_unref);
        p->nvtx_selected = selected;
        gtk_filter_changed(p->filter, GTK_FILTER_CHANGE_DIFFERENT);
}

static void nvtx_add(GHashTable *set, guint32 range, guint32 action)
{
        guint64 *key = g_new(guint64, 1);

        *key = action_key(range, action);
        g_hash_table_add(set, key);
}

static GHashTable *nvtx_set_new(void)
{
        return g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
}

typedef struct NvtxCall {
        ReportPage *page;
        guint generation;
        guint32 range;
} NvtxCall;

static void on_actions_by_nvtx(GObject *source, GAsyncResult *result, gpointer data)
{
        NvtxCall *call = data;
        ReportPage *p = call->page;
        g_autoptr(GVariant) actions = NULL;
        g_autoptr(GError) error = NULL;
        bool ok = nvp_report_call_actions_by_nvtx_finish(NVP_REPORT(source), &actions, result, &error);
        guint32 range = call->range;
        bool current = !ok || call->generation == p->nvtx_generation;

        g_free(call);
        if (!ok && app_error_is_cancelled(error))
                return; /* the page is gone */
        if (!current || !p->nvtx_pending)
                return; /* a later expression replaced this one */
        if (!ok) {
                g_autofree char *message = app_error_message(error);
                g_autofree char *text = g_strdup_printf(_("Cannot filter by NVTX range: %s"), message);

                g_clear_pointer(&p->nvtx_pending, g_hash_table_unref);
                say(p->nvtx_note, text);
                return;
        }
        for (gsize i = 0; i < g_variant_n_children(actions); i++) {
                guint32 action;

                g_variant_get_child(actions, i, "u", &action);
                nvtx_add(p->nvtx_pending, range, action);
        }
        if (--p->nvtx_waiting == 0)
                nvtx_apply(p, g_steal_pointer(&p->nvtx_pending));
}

static void on_nvtx_activate(GtkEntry *entry, gpointer data)
{
        ReportPage *p = data;
        const char *expression = gtk_editable_get_text(GTK_EDITABLE(entry));
        const NcuReport *model = report_handle_model(p->handle);
        char *includes[] = { (char *) expression, NULL };

        g_clear_handle_id(&p->nvtx_timeout, g_source_remove);
        p->nvtx_generation++;
        g_clear_pointer(&p->nvtx_pending, g_hash_table_unref);
        say(p->nvtx_note, NULL);
        if (!*expression) {
                nvtx_apply(p, NULL);
                return;
        }
        if (model) {
                GHashTable *selected = nvtx_set_new();

                for (size_t range = 0; range < model->n_ranges; range++) {
                        g_autofree size_t *indices = NULL;
                        int n = ncu_range_actions_by_nvtx(&model->ranges[range], includes, 1, NULL, 0, &indices);

                        if (n < 0) {
                                g_hash_table_unref(selected);
                                say(p->nvtx_note, n == -EINVAL ? _("Not an NVTX range expression") : g_strerror(-n));
                                return;
                        }
                        for (int i = 0; i < n; i++)
                                nvtx_add(selected, (guint32) range, (guint32) indices[i]);
                }
                nvtx_apply(p, selected);
                return;
        }
        p->nvtx_pending = nvtx_set_new();
        p->nvtx_waiting = MAX(p->n_ranges, 1u);
        for (guint32 range = 0; range < p->nvtx_waiting; range++) {
                NvtxCall *call = g_new0(NvtxCall, 1);

                call->page = p;
                call->generation = p->nvtx_generation;
                call->range = range;
                nvp_report_call_actions_by_nvtx(report_handle_proxy(p->handle), range, (const char *const *) includes,
                                (const char *const[]){ NULL }, G_DBUS_CALL_FLAGS_NONE, -1, p->cancellable,
                                on_actions_by_nvtx, call);
        }
}

static gboolean on_nvtx_typed(gpointer data)
{
        ReportPage *p = data;

        p->nvtx_timeout = 0;
        on_nvtx_activate(GTK_ENTRY(p->nvtx), p);
        return G_SOURCE_REMOVE;
}

static void on_nvtx_changed(GtkEditable *editable, gpointer data)
{
        ReportPage *p = data;

        /* Applied once the typing pauses (or on Enter), not at each key: the daemon asks each range. */
        g_clear_handle_id(&p->nvtx_timeout, g_source_remove);
        p->nvtx_timeout = g_timeout_add(NVTX_TYPING_MSEC, on_nvtx_typed, p);
}

/* --- comparing ------------------------------------------------------------------------------------------ */

static void on_compare_clicked(GtkButton *button, gpointer data)
{
        ReportPage *p = data;
        ReportHandle *baseline = g_object_get_data(G_OBJECT(button), "handle");

        gtk_popover_popdown(GTK_POPOVER(gtk_widget_get_ancestor(GTK_WIDGET(button), GTK_TYPE_POPOVER)));
        if (baseline)
                report_compare_show(p->app, p->handle, baseline);
}

/* The other open reports, listed afresh each time the menu opens: a button each (reachable by keyboard and
 * by screen readers alike). */
static void on_compare_show(GtkPopover *popover, gpointer data)
{
        ReportPage *p = data;
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        g_autoptr(GPtrArray) others = p->others ? p->others(p, p->others_data) : NULL;

        for (guint i = 0; others && i < others->len; i++) {
                ReportHandle *h = others->pdata[i];
                GtkWidget *button = gtk_button_new_with_label(report_handle_title(h));

                gtk_widget_add_css_class(button, "flat");
                gtk_label_set_xalign(GTK_LABEL(gtk_button_get_child(GTK_BUTTON(button))), 0);
                g_object_set_data_full(
                                G_OBJECT(button), "handle", report_handle_ref(h), (GDestroyNotify) report_handle_unref);
                g_signal_connect(button, "clicked", G_CALLBACK(on_compare_clicked), p);
                gtk_box_append(GTK_BOX(box), button);
        }
        if (!others || others->len == 0)
                gtk_box_append(GTK_BOX(box), gtk_label_new(_("Open another report to compare with")));
        gtk_popover_set_child(popover, box);
}

/* --- building it ---------------------------------------------------------------------------------------- */

static GtkWidget *dim_label(void)
{
        GtkWidget *label = gtk_label_new(NULL);

        gtk_label_set_xalign(GTK_LABEL(label), 0);
        gtk_label_set_wrap(GTK_LABEL(label), TRUE);
        gtk_widget_add_css_class(label, "dim-label");
        return label;
}

ReportPage *report_page_new(App *app, ReportHandle *h, const char *how)
{
        ReportPage *p = g_new0(ReportPage, 1);
        GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
        GtkWidget *scrolled = gtk_scrolled_window_new();
        GtkWidget *popover = gtk_popover_new();
        GtkFilterListModel *filtered;
        GtkSortListModel *sorted;
        GtkSingleSelection *selection;
        g_autofree char *title = g_strdup_printf(_("Kernels of %s"), report_handle_title(h));

        p->app = app;
        p->handle = report_handle_ref(h);
        p->cancellable = g_cancellable_new();
        p->windows = g_ptr_array_new();
        p->store = g_list_store_new(KERNEL_TYPE_ITEM);
        p->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
        gtk_widget_set_margin_start(p->box, 12);
        gtk_widget_set_margin_end(p->box, 12);
        gtk_widget_set_margin_top(p->box, 6);

        p->info = dim_label();
        p->note = gtk_label_new(NULL);
        gtk_label_set_xalign(GTK_LABEL(p->note), 0);
        gtk_label_set_wrap(GTK_LABEL(p->note), TRUE);
        say(p->note, how);
        p->nvtx_note = dim_label();
        say(p->nvtx_note, NULL);

        p->search = gtk_search_entry_new();
        g_object_set(p->search, "placeholder-text", _("Kernel name or index"), NULL);
        gtk_accessible_update_property(
                        GTK_ACCESSIBLE(p->search), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Filter kernels"), -1);
        gtk_widget_set_hexpand(p->search, TRUE);
        gtk_editable_set_width_chars(GTK_EDITABLE(p->search), 3); /* fits a narrow window beside the next */
        g_signal_connect(p->search, "search-changed", G_CALLBACK(on_search_changed), p);
        p->nvtx = gtk_entry_new();
        gtk_entry_set_placeholder_text(GTK_ENTRY(p->nvtx), _("NVTX range, as Domain@Range or A/B/"));
        gtk_accessible_update_property(
                        GTK_ACCESSIBLE(p->nvtx), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Filter by NVTX range"), -1);
        gtk_widget_set_tooltip_text(p->nvtx,
                        _("The kernels launched inside an NVTX range: \"Domain@Range\" for a start/end range, "
                          "\"A/B/\" for push/pop ranges (\"*\" any ranges)."));
        gtk_widget_set_hexpand(p->nvtx, TRUE);
        gtk_editable_set_width_chars(GTK_EDITABLE(p->nvtx), 3);
        g_signal_connect(p->nvtx, "activate", G_CALLBACK(on_nvtx_activate), p);
        g_signal_connect(p->nvtx, "changed", G_CALLBACK(on_nvtx_changed), p);
        p->compare = gtk_menu_button_new();
        gtk_menu_button_set_label(GTK_MENU_BUTTON(p->compare), _("Compare with…"));
        gtk_menu_button_set_popover(GTK_MENU_BUTTON(p->compare), popover);
        g_signal_connect(popover, "show", G_CALLBACK(on_compare_show), p);
        gtk_box_append(GTK_BOX(bar), p->search);
        gtk_box_append(GTK_BOX(bar), p->nvtx);
        gtk_box_append(GTK_BOX(bar), p->compare);

        p->column_view = gtk_column_view_new(NULL);
        gtk_widget_add_css_class(p->column_view, "data-table");
        gtk_accessible_update_property(GTK_ACCESSIBLE(p->column_view), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
        g_signal_connect(p->column_view, "activate", G_CALLBACK(on_activate), p);
        add_column(p, COLUMN_INDEX, _("Index"), compare_index, false);
        add_column(p, COLUMN_NAME, _("Name"), compare_name, true);
        add_column(p, COLUMN_LAUNCH, _("Grid × Block"), NULL, false);
        add_column(p, COLUMN_DURATION, _("Duration"), compare_duration, false);
        add_column(p, COLUMN_FINDINGS, _("Findings"), compare_findings, true);
        add_column(p, COLUMN_OPEN, _("Kernel"), NULL, false);

        /* kernels -> filtered by name and NVTX range -> sorted by the column the user picked -> shown. */
        p->filter = GTK_FILTER(gtk_custom_filter_new(filter_func, p, NULL));
        filtered = gtk_filter_list_model_new(G_LIST_MODEL(g_object_ref(p->store)), g_object_ref(p->filter));
        sorted = gtk_sort_list_model_new(G_LIST_MODEL(filtered),
                        g_object_ref(gtk_column_view_get_sorter(GTK_COLUMN_VIEW(p->column_view))));
        selection = gtk_single_selection_new(G_LIST_MODEL(sorted));
        gtk_single_selection_set_autoselect(selection, FALSE);
        gtk_single_selection_set_can_unselect(selection, TRUE);
        gtk_column_view_set_model(GTK_COLUMN_VIEW(p->column_view), GTK_SELECTION_MODEL(selection));
        g_object_unref(selection);
        gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), p->column_view);
        gtk_widget_set_vexpand(scrolled, TRUE);

        gtk_box_append(GTK_BOX(p->box), p->note);
        gtk_box_append(GTK_BOX(p->box), p->info);
        gtk_box_append(GTK_BOX(p->box), bar);
        gtk_box_append(GTK_BOX(p->box), p->nvtx_note);
        gtk_box_append(GTK_BOX(p->box), scrolled);
        {
                /* The page's width, for the columns a narrow window hides (as the Applications page does). */
                GtkWidget *probe = gtk_drawing_area_new();

                gtk_widget_set_hexpand(probe, TRUE);
                gtk_accessible_update_state(GTK_ACCESSIBLE(probe), GTK_ACCESSIBLE_STATE_HIDDEN, TRUE, -1);
                g_signal_connect(probe, "resize", G_CALLBACK(on_page_resize), p);
                gtk_box_append(GTK_BOX(p->box), probe);
        }
        g_object_ref_sink(p->box);

        if (report_handle_model(h))
                load_model(p, report_handle_model(h));
        else {
                nvp_report_call_get_info(
                                report_handle_proxy(h), G_DBUS_CALL_FLAGS_NONE, -1, p->cancellable, on_info, p);
                nvp_report_call_get_summary(
                                report_handle_proxy(h), G_DBUS_CALL_FLAGS_NONE, -1, p->cancellable, on_summary, p);
        }
        return p;
}

GtkWidget *report_page_widget(ReportPage *p)
{
        return p->box;
}

ReportHandle *report_page_handle(ReportPage *p)
{
        return p->handle;
}

void report_page_set_others(ReportPage *p, ReportPageOthers others, gpointer data)
{
        p->others = others;
        p->others_data = data;
}

void report_page_free(ReportPage *p)
{
        if (!p)
                return;
        g_cancellable_cancel(p->cancellable);
        g_clear_handle_id(&p->nvtx_timeout, g_source_remove);
        g_clear_object(&p->cancellable);
        while (p->windows->len > 0)
                gtk_window_destroy(GTK_WINDOW(p->windows->pdata[p->windows->len - 1]));
        g_ptr_array_unref(p->windows);
        g_clear_pointer(&p->nvtx_selected, g_hash_table_unref);
        g_clear_pointer(&p->nvtx_pending, g_hash_table_unref);
        g_object_unref(p->filter);
        g_object_unref(p->store);
        g_object_unref(p->box);
        report_handle_unref(p->handle);
        g_free(p);
}
