/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Applications: GPU users grouped by application (the Flatpak or snap id, else the systemd unit: the
 * daemon's ListGpuGroups "application"), named as the user's desktop files and container stores name them
 * (app-names.c), in a column view: name with icon, device, busiest engine, VRAM, profile, use over time.
 * Each application expands to its processes; a process's full explanation and "Add a rule" on demand.
 *
 * The models are updated in place on each sample (items changed, spliced in or out, never rebuilt), so
 * the column view keeps its selection and expanded rows and only lays out the rows on screen: hundreds of
 * processes cost no more than a screenful. Applications are sorted by the column the user picks, then by
 * use, and re-sorted on each sample. */
#include "app-names.h"
#include "app.h"
#include "apps-row.h"
#include "bus-signatures.h"
#include "history-graph.h"
#include "profile-edit.h"
#include "usage-history.h"

static void set_text(char **field, char *text)
{
        g_free(*field);
        *field = text;
}

/* --- the view ------------------------------------------------------------------------------------------- */

typedef enum Column {
        COLUMN_NAME,
        COLUMN_DEVICE,
        COLUMN_ENGINE,
        COLUMN_VRAM,
        COLUMN_PROFILE,
        COLUMN_HISTORY,
        COLUMN_ACTIONS,
        N_COLUMNS,
} Column;

struct AppsView {
        App *app;
        AppNames *names;
        GtkWidget *stack; /* "empty" status page or "applications" */
        GtkWidget *search_bar, *search_entry;
        GtkWidget *summary;
        GtkWidget *column_view;
        GtkColumnViewColumn *columns[N_COLUMNS];
        guint narrow_idle; /* the columns follow the page's width once the layout is done */
        int width;
        GListStore *store; /* AppsRow applications */
        GHashTable *groups; /* key -> AppsRow application (the store holds them) */
        GHashTable *procs; /* "pid start_time" -> AppsRow process (its application's children hold them) */
        GHashTable *device_names; /* device -> what to call it */
        GtkFilter *filter;
        GtkSorter *use_sorter;
        char *search; /* folded; "" matches all */
};

static bool row_matches(gpointer item, gpointer data)
{
        AppsView *v = data;
        AppsRow *r = item;

        return !*v->search || (r->search && strstr(r->search, v->search));
}

static gboolean filter_func(gpointer item, gpointer data)
{
        return row_matches(item, data);
}

static GListModel *create_children(gpointer item, gpointer data)
{
        AppsRow *r = item;

        return r->children ? g_object_ref(G_LIST_MODEL(r->children)) : NULL;
}

/* --- cells ---------------------------------------------------------------------------------------------- */

static AppsRow *cell_row(GtkListItem *li)
{
        GtkTreeListRow *tree_row = gtk_list_item_get_item(li);

        return tree_row ? APPS_ROW(g_object_get_data(G_OBJECT(li), "row")) : NULL;
}

static GtkWidget *label_new(bool secondary)
{
        GtkWidget *label = gtk_label_new(NULL);

        gtk_label_set_xalign(GTK_LABEL(label), 0);
        gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
        if (secondary) {
                gtk_widget_add_css_class(label, "dim-label");
                gtk_widget_add_css_class(label, "caption");
        }
        return label;
}

static void label_show(GtkWidget *label, const char *text)
{
        gtk_label_set_text(GTK_LABEL(label), text ? text : "");
        gtk_widget_set_visible(label, text && *text);
}

static void name_cell_show(GtkListItem *li, AppsRow *r)
{
        GtkWidget *expander = gtk_list_item_get_child(li);
        GtkWidget *image = g_object_get_data(G_OBJECT(li), "image");
        g_autofree char *count = NULL;

        label_show(g_object_get_data(G_OBJECT(li), "label"), r->name);
        if (!r->group) {
                count = g_strdup_printf(ngettext("%u process", "%u processes", r->processes), r->processes);
                if (r->icon)
                        gtk_image_set_from_gicon(GTK_IMAGE(image), r->icon);
                else
                        gtk_image_set_from_icon_name(GTK_IMAGE(image), "application-x-executable-symbolic");
        }
        gtk_widget_set_visible(image, !r->group);
        label_show(g_object_get_data(G_OBJECT(li), "secondary"), count);
        gtk_widget_set_tooltip_text(expander, r->detail);
}

static void profile_cell_show(GtkListItem *li, AppsRow *r)
{
        label_show(g_object_get_data(G_OBJECT(li), "label"), r->profile && *r->profile ? r->profile : _("none"));
        label_show(g_object_get_data(G_OBJECT(li), "secondary"), r->settings);
}

static void on_explain(GtkButton *button, gpointer data)
{
        GtkListItem *li = data;
        AppsRow *r = cell_row(li);
        App *app = g_object_get_data(G_OBJECT(button), "app");

        if (r && r->group)
                explain_dialog_show(app, r->pid, r->start_time, r->comm);
}

static void on_add_rule(GtkButton *button, gpointer data)
{
        GtkListItem *li = data;
        AppsRow *r = cell_row(li);
        App *app = g_object_get_data(G_OBJECT(button), "app");

        /* procname is the executable's name (what rules usually match); comm what the process calls itself. */
        if (r && r->group)
                rule_dialog_show(app, NULL, NULL, r->procname ? r->procname : r->comm, r->comm);
}

static GtkWidget *row_button(App *app, GtkListItem *li, const char *label, GCallback cb)
{
        GtkWidget *button = app_button_new(label, label);

        gtk_widget_set_valign(button, GTK_ALIGN_CENTER);
        g_object_set_data(G_OBJECT(button), "app", app);
        g_signal_connect(button, "clicked", cb, li);
        return button;
}

static void actions_cell_show(GtkListItem *li, AppsRow *r)
{
        GtkWidget *box = gtk_list_item_get_child(li);
        GtkWidget *explain = g_object_get_data(G_OBJECT(li), "explain");
        GtkWidget *add = g_object_get_data(G_OBJECT(li), "add");
        g_autofree char *explain_name = NULL, *add_name = NULL;

        gtk_widget_set_visible(box, r->group != NULL);
        if (!r->group)
                return;
        if (!explain) {
                /* Made for cells that show a process, not for the many that only ever show applications:
                 * hundreds of rows are laid out at once. */
                App *app = g_object_get_data(G_OBJECT(li), "app");

                explain = row_button(app, li, _("_Explain"), G_CALLBACK(on_explain));
                add = row_button(app, li, _("_Add Rule…"), G_CALLBACK(on_add_rule));
                gtk_box_append(GTK_BOX(box), explain);
                gtk_box_append(GTK_BOX(box), add);
                g_object_set_data(G_OBJECT(li), "explain", explain);
                g_object_set_data(G_OBJECT(li), "add", add);
        }
        /* Each button names its process: a screen reader's list of buttons tells them apart. */
        explain_name = g_strdup_printf(_("Explain %s"), r->name);
        add_name = g_strdup_printf(_("Add a rule for %s"), r->name);
        gtk_accessible_update_property(GTK_ACCESSIBLE(explain), GTK_ACCESSIBLE_PROPERTY_LABEL, explain_name, -1);
        gtk_accessible_update_property(GTK_ACCESSIBLE(add), GTK_ACCESSIBLE_PROPERTY_LABEL, add_name, -1);
}

static void cell_show(GtkListItem *li)
{
        Column column = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(li), "column"));
        AppsRow *r = cell_row(li);
        g_autofree char *vram = NULL;

        if (!r)
                return;
        switch (column) {
        case COLUMN_NAME:
                name_cell_show(li, r);
                break;
        case COLUMN_DEVICE:
                label_show(gtk_list_item_get_child(li), r->device);
                break;
        case COLUMN_ENGINE:
                label_show(gtk_list_item_get_child(li), r->engine);
                break;
        case COLUMN_VRAM:
                vram = r->has_vram ? format_bytes(r->vram) : NULL;
                label_show(gtk_list_item_get_child(li), vram);
                break;
        case COLUMN_PROFILE:
                profile_cell_show(li, r);
                break;
        case COLUMN_HISTORY:
                /* An application's use over the last minute; its processes have none of their own. */
                gtk_widget_set_visible(gtk_list_item_get_child(li), !r->group);
                if (!r->group)
                        history_graph_set(gtk_list_item_get_child(li), &r->history, (uint64_t) g_get_monotonic_time(),
                                        USAGE_HISTORY_WINDOW_1MIN_USEC, 100, r->name);
                break;
        case COLUMN_ACTIONS:
                actions_cell_show(li, r);
                break;
        case N_COLUMNS:
                g_assert_not_reached();
        }
}

static void on_row_changed(AppsRow *r, gpointer data)
{
        cell_show(data);
}

static GtkWidget *two_lines(GtkListItem *li)
{
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        GtkWidget *label = label_new(false), *secondary = label_new(true);

        gtk_widget_set_valign(box, GTK_ALIGN_CENTER);
        gtk_box_append(GTK_BOX(box), label);
        gtk_box_append(GTK_BOX(box), secondary);
        g_object_set_data(G_OBJECT(li), "label", label);
        g_object_set_data(G_OBJECT(li), "secondary", secondary);
        return box;
}

static void on_setup(GtkSignalListItemFactory *factory, GtkListItem *li, gpointer data)
{
        AppsView *v = data;
        Column column = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(factory), "column"));
        GtkWidget *child, *box;

        g_object_set_data(G_OBJECT(li), "column", GUINT_TO_POINTER(column));
        switch (column) {
        case COLUMN_NAME:
                child = gtk_tree_expander_new();
                box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
                g_object_set_data(G_OBJECT(li), "image", gtk_image_new());
                gtk_box_append(GTK_BOX(box), g_object_get_data(G_OBJECT(li), "image"));
                gtk_box_append(GTK_BOX(box), two_lines(li));
                gtk_tree_expander_set_child(GTK_TREE_EXPANDER(child), box);
                break;
        case COLUMN_PROFILE:
                child = two_lines(li);
                break;
        case COLUMN_HISTORY:
                child = history_graph_new(HISTORY_GRAPH_SPARKLINE);
                break;
        case COLUMN_ACTIONS:
                /* The buttons come with the first process the cell shows (actions_cell_show()). */
                child = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
                g_object_set_data(G_OBJECT(li), "app", v->app);
                break;
        default:
                child = label_new(false);
                break;
        }
        gtk_list_item_set_child(li, child);
}

static void on_bind(GtkSignalListItemFactory *factory, GtkListItem *li, gpointer data)
{
        GtkTreeListRow *tree_row = gtk_list_item_get_item(li);
        AppsRow *r = APPS_ROW(gtk_tree_list_row_get_item(tree_row));

        /* The row holds the item while bound: the data pointer below needs no reference of its own. */
        g_object_set_data_full(G_OBJECT(li), "row", r, g_object_unref);
        if (GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(li), "column")) == COLUMN_NAME)
                gtk_tree_expander_set_list_row(GTK_TREE_EXPANDER(gtk_list_item_get_child(li)), tree_row);
        g_signal_connect(r, "changed", G_CALLBACK(on_row_changed), li);
        cell_show(li);
}

static void on_unbind(GtkSignalListItemFactory *factory, GtkListItem *li, gpointer data)
{
        AppsRow *r = g_object_get_data(G_OBJECT(li), "row");

        if (r)
                g_signal_handlers_disconnect_by_data(r, li);
        if (GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(li), "column")) == COLUMN_NAME)
                gtk_tree_expander_set_list_row(GTK_TREE_EXPANDER(gtk_list_item_get_child(li)), NULL);
        g_object_set_data(G_OBJECT(li), "row", NULL);
}

static void add_column(AppsView *v, Column column, const char *title, GCompareDataFunc compare, bool expand)
{
        GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
        GtkColumnViewColumn *c;

        g_object_set_data(G_OBJECT(factory), "column", GUINT_TO_POINTER(column));
        g_signal_connect(factory, "setup", G_CALLBACK(on_setup), v);
        g_signal_connect(factory, "bind", G_CALLBACK(on_bind), v);
        g_signal_connect(factory, "unbind", G_CALLBACK(on_unbind), v);
        c = gtk_column_view_column_new(title, factory);
        if (compare) {
                GtkSorter *sorter = GTK_SORTER(gtk_custom_sorter_new(compare, NULL, NULL));

                gtk_column_view_column_set_sorter(c, sorter);
                g_object_unref(sorter);
        }
        gtk_column_view_column_set_resizable(c, TRUE);
        gtk_column_view_column_set_expand(c, expand);
        gtk_column_view_append_column(GTK_COLUMN_VIEW(v->column_view), c);
        v->columns[column] = c; /* the column view holds it */
        g_object_unref(c);
}

/* Return on an application's row (or a double click) expands or collapses it, as a keyboard user expects
 * of a tree; on a process's row it explains the process. */
static void on_activate(GtkColumnView *view, guint position, gpointer data)
{
        AppsView *v = data;
        g_autoptr(GtkTreeListRow) tree_row =
                        g_list_model_get_item(G_LIST_MODEL(gtk_column_view_get_model(view)), position);
        g_autoptr(AppsRow) r = tree_row ? gtk_tree_list_row_get_item(tree_row) : NULL;

        if (!r)
                return;
        if (gtk_tree_list_row_is_expandable(tree_row))
                gtk_tree_list_row_set_expanded(tree_row, !gtk_tree_list_row_get_expanded(tree_row));
        else if (r->group)
                explain_dialog_show(v->app, r->pid, r->start_time, r->comm);
}

/* --- search --------------------------------------------------------------------------------------------- */

static void on_search_changed(GtkSearchEntry *entry, gpointer data)
{
        AppsView *v = data;

        g_free(v->search);
        v->search = g_utf8_casefold(gtk_editable_get_text(GTK_EDITABLE(entry)), -1);
        gtk_filter_changed(v->filter, GTK_FILTER_CHANGE_DIFFERENT);
}

void apps_view_search(AppsView *v)
{
        gtk_search_bar_set_search_mode(GTK_SEARCH_BAR(v->search_bar), TRUE);
        gtk_widget_grab_focus(v->search_entry);
}

/* --- narrow windows ------------------------------------------------------------------------------------- */

/* The least page width at which each column is shown: in a narrow window (a phone, half a small screen)
 * the name, the busiest engine and the memory stay; the rest comes back as the width allows. Return on a
 * process's row still explains it when Actions is hidden. */
static const int column_min_width[N_COLUMNS] = {
        [COLUMN_ACTIONS] = 480,
        [COLUMN_DEVICE] = 760,
        [COLUMN_PROFILE] = 760,
        [COLUMN_HISTORY] = 900,
};

static gboolean on_narrow_idle(gpointer data)
{
        AppsView *v = data;

        v->narrow_idle = 0;
        for (Column c = 0; c < N_COLUMNS; c++)
                gtk_column_view_column_set_visible(v->columns[c], v->width >= column_min_width[c]);
        return G_SOURCE_REMOVE;
}

/* GTK 4.8 has no breakpoints: a drawing area as wide as the page, and no taller than nothing, tells its
 * width. Columns change after the layout, not in it. */
static void on_page_resize(GtkDrawingArea *probe, int width, int height, gpointer data)
{
        AppsView *v = data;

        if (width == v->width)
                return;
        v->width = width;
        if (v->narrow_idle == 0)
                v->narrow_idle = g_idle_add(on_narrow_idle, v);
}

/* --- the view ------------------------------------------------------------------------------------------- */

static GtkWidget *build_list(AppsView *v)
{
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        GtkWidget *top = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
        GtkWidget *search_button = gtk_toggle_button_new();
        GtkWidget *scrolled = gtk_scrolled_window_new();
        GtkFilterListModel *filtered;
        GtkTreeListModel *tree;
        GtkMultiSorter *sorter;
        GtkSortListModel *sorted;
        GtkSingleSelection *selection;

        v->summary = label_new(false);
        gtk_widget_set_hexpand(v->summary, TRUE);
        gtk_widget_set_margin_start(v->summary, 12);
        gtk_button_set_icon_name(GTK_BUTTON(search_button), "system-search-symbolic");
        gtk_widget_set_tooltip_text(search_button, _("Search applications"));
        gtk_accessible_update_property(
                        GTK_ACCESSIBLE(search_button), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Search applications"), -1);
        gtk_widget_add_css_class(search_button, "flat");
        gtk_widget_set_margin_end(search_button, 6);
        gtk_widget_set_margin_top(top, 6);
        gtk_widget_set_margin_bottom(top, 6);
        gtk_box_append(GTK_BOX(top), v->summary);
        gtk_box_append(GTK_BOX(top), search_button);

        v->search_entry = gtk_search_entry_new();
        g_object_set(v->search_entry, "placeholder-text", _("Name, unit or command"), NULL);
        gtk_accessible_update_property(
                        GTK_ACCESSIBLE(v->search_entry), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Search applications"), -1);
        g_signal_connect(v->search_entry, "search-changed", G_CALLBACK(on_search_changed), v);
        v->search_bar = gtk_search_bar_new();
        gtk_search_bar_set_child(GTK_SEARCH_BAR(v->search_bar), v->search_entry);
        gtk_search_bar_connect_entry(GTK_SEARCH_BAR(v->search_bar), GTK_EDITABLE(v->search_entry));
        /* Closed by its toggle or Escape: GTK 4.8 leaves its own close button without an accessible name. */
        gtk_search_bar_set_show_close_button(GTK_SEARCH_BAR(v->search_bar), FALSE);
        g_object_bind_property(search_button, "active", v->search_bar, "search-mode-enabled",
                        G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);

        v->column_view = gtk_column_view_new(NULL);
        g_signal_connect(v->column_view, "activate", G_CALLBACK(on_activate), v);
        gtk_widget_add_css_class(v->column_view, "data-table");
        gtk_accessible_update_property(GTK_ACCESSIBLE(v->column_view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                        _("Applications using a GPU"), -1);
        add_column(v, COLUMN_NAME, _("Name"), apps_row_compare_name, true);
        add_column(v, COLUMN_DEVICE, _("Device"), apps_row_compare_device, false);
        add_column(v, COLUMN_ENGINE, _("Engine"), apps_row_compare_engine, false);
        add_column(v, COLUMN_VRAM, _("VRAM"), apps_row_compare_vram, false);
        add_column(v, COLUMN_PROFILE, _("Profile"), apps_row_compare_profile, false);
        add_column(v, COLUMN_HISTORY, _("Last Minute"), NULL, false);
        add_column(v, COLUMN_ACTIONS, _("Actions"), NULL, false);

        /* applications -> filtered by the search -> each with its processes -> sorted by the column the
         * user picked, then by use, within each level -> the selection the column view shows. */
        v->filter = GTK_FILTER(gtk_custom_filter_new(filter_func, v, NULL));
        filtered = gtk_filter_list_model_new(G_LIST_MODEL(g_object_ref(v->store)), g_object_ref(v->filter));
        tree = gtk_tree_list_model_new(G_LIST_MODEL(filtered), FALSE, FALSE, create_children, NULL, NULL);
        v->use_sorter = GTK_SORTER(gtk_custom_sorter_new(apps_row_compare_use, NULL, NULL));
        sorter = gtk_multi_sorter_new();
        gtk_multi_sorter_append(sorter, g_object_ref(gtk_column_view_get_sorter(GTK_COLUMN_VIEW(v->column_view))));
        gtk_multi_sorter_append(sorter, g_object_ref(v->use_sorter));
        sorted = gtk_sort_list_model_new(
                        G_LIST_MODEL(tree), GTK_SORTER(gtk_tree_list_row_sorter_new(GTK_SORTER(sorter))));
        selection = gtk_single_selection_new(G_LIST_MODEL(sorted));
        gtk_single_selection_set_autoselect(selection, FALSE);
        gtk_single_selection_set_can_unselect(selection, TRUE);
        gtk_column_view_set_model(GTK_COLUMN_VIEW(v->column_view), GTK_SELECTION_MODEL(selection));
        g_object_unref(selection);

        gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), v->column_view);
        gtk_widget_set_vexpand(scrolled, TRUE);
        gtk_box_append(GTK_BOX(box), top);
        gtk_box_append(GTK_BOX(box), v->search_bar);
        gtk_box_append(GTK_BOX(box), scrolled);
        {
                GtkWidget *probe = gtk_drawing_area_new();

                gtk_widget_set_hexpand(probe, TRUE);
                gtk_accessible_update_state(GTK_ACCESSIBLE(probe), GTK_ACCESSIBLE_STATE_HIDDEN, TRUE, -1);
                g_signal_connect(probe, "resize", G_CALLBACK(on_page_resize), v);
                gtk_box_append(GTK_BOX(box), probe);
        }
        gtk_search_bar_set_key_capture_widget(GTK_SEARCH_BAR(v->search_bar), box);
        return box;
}

AppsView *apps_view_new(App *app)
{
        AppsView *v = g_new0(AppsView, 1);
        GtkWidget *empty = adw_status_page_new();

        v->app = app;
        v->names = app_names_new(NULL);
        v->store = g_list_store_new(APPS_TYPE_ROW);
        v->groups = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, NULL);
        v->procs = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, NULL);
        v->device_names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        v->search = g_strdup("");
        adw_status_page_set_title(ADW_STATUS_PAGE(empty), _("No application uses a GPU"));
        adw_status_page_set_icon_name(ADW_STATUS_PAGE(empty), "application-x-executable-symbolic");
        v->stack = gtk_stack_new();
        gtk_stack_add_named(GTK_STACK(v->stack), empty, "empty");
        gtk_stack_add_named(GTK_STACK(v->stack), build_list(v), "applications");
        return v;
}

GtkWidget *apps_view_widget(AppsView *v)
{
        return v->stack;
}

void apps_view_free(AppsView *v)
{
        g_clear_handle_id(&v->narrow_idle, g_source_remove);
        g_hash_table_unref(v->groups);
        g_hash_table_unref(v->procs);
        g_hash_table_unref(v->device_names);
        g_object_unref(v->store);
        g_object_unref(v->filter);
        g_object_unref(v->use_sorter);
        app_names_free(v->names);
        g_free(v->search);
        g_free(v);
}

/* --- figures -------------------------------------------------------------------------------------------- */

/* The busiest engine of engines a(sssd) ("gfx 40.0 %"), its percent in *ret_busy (< 0: not known). */
static char *busiest_engine(GVariant *engines, double *ret_busy)
{
        const char *device, *source, *name, *best = NULL;
        double busy, best_busy = -1;
        g_autofree char *percent = NULL;
        GVariantIter iter;

        g_variant_iter_init(&iter, engines);
        while (g_variant_iter_next(&iter, "(&s&s&sd)", &device, &source, &name, &busy))
                if (!best || busy > best_busy) {
                        best = name;
                        best_busy = busy;
                }
        *ret_busy = best ? best_busy : -1;
        if (!best)
                return NULL;
        percent = format_percent(best_busy);
        /* TRANSLATORS: an engine's name and how busy it is: "gfx 40.0 %" */
        return g_strdup_printf(C_("engine", "%s %s"), best, percent);
}

/* VRAM of memory a(ssst): the "vram" regions' bytes summed; false when no device reports one. */
static bool vram_of(GVariant *memory, guint64 *ret)
{
        const char *device, *source, *region;
        guint64 bytes, sum = 0;
        bool found = false;
        GVariantIter iter;

        g_variant_iter_init(&iter, memory);
        while (g_variant_iter_next(&iter, "(&s&s&st)", &device, &source, &region, &bytes))
                if (g_str_equal(region, "vram")) {
                        sum += bytes;
                        found = true;
                }
        *ret = sum;
        return found;
}

static void row_set_usage(AppsRow *r, GVariant *engines, GVariant *memory)
{
        set_text(&r->engine, busiest_engine(engines, &r->busy));
        r->has_vram = vram_of(memory, &r->vram);
}

/* ListGpuDevices' product name, else the driver and the slot. */
static void update_device_names(AppsView *v, GVariant *devices)
{
        const char *device, *source, *driver, *slot, *name;
        GVariantIter iter;

        g_hash_table_remove_all(v->device_names);
        g_variant_iter_init(&iter, devices);
        while (g_variant_iter_next(&iter, "(&s&s&s&s&suu@as&su@a(sddu)@a(sa{st})t)", &device, &source, &driver, &slot,
                        &name, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)) {
                const char *known = g_hash_table_lookup(v->device_names, device);

                if (known && !*name)
                        continue;
                g_hash_table_insert(v->device_names, g_strdup(device),
                                *name                   ? g_strdup(name)
                                                : *slot ? g_strdup_printf("%s (%s)", driver, slot)
                                                        : g_strdup(driver));
        }
}

/* Adds the names of the devices of clients a(sst) not yet in names (a set). */
static void add_devices(AppsView *v, GVariant *clients, GPtrArray *names)
{
        const char *device, *source;
        GVariantIter iter;

        g_variant_iter_init(&iter, clients);
        while (g_variant_iter_next(&iter, "(&s&st)", &device, &source, NULL)) {
                const char *name = g_hash_table_lookup(v->device_names, device);

                if (!name)
                        name = device;
                if (!g_ptr_array_find_with_equal_func(names, name, g_str_equal, NULL))
                        g_ptr_array_add(names, (gpointer) name);
        }
}

static char *join(const GPtrArray *strings)
{
        GString *out = g_string_new(NULL);

        for (guint i = 0; i < strings->len; i++)
                g_string_append_printf(out, "%s%s", i ? ", " : "", (const char *) strings->pdata[i]);
        return g_string_free(out, FALSE);
}

/* --- settings, fetched once per configuration generation ------------------------------------------------ */

/* The settings the daemon holds for the process (GetProcess: no /proc read, no resolution). */
typedef struct SettingsCall {
        AppsView *view;
        char *key;
        guint64 generation;
} SettingsCall;

static char *settings_text(GVariant *resolution)
{
        if (!g_variant_is_of_type(resolution, G_VARIANT_TYPE(BUS_RESOLUTION_SIGNATURE)))
                return NULL; /* a daemon of another version */

        g_autoptr(GVariant) settings = g_variant_get_child_value(resolution, 3);
        GString *out = g_string_new(NULL);
        GVariantIter iter;
        GVariant *setting;

        /* Each setting is BUS_SETTING_FIELDS: only its key and value are read, the rest may grow. */
        g_variant_iter_init(&iter, settings);
        while ((setting = g_variant_iter_next_value(&iter))) {
                g_autoptr(GVariant) value = NULL;
                const char *key;

                g_variant_get_child(setting, 0, "&s", &key);
                g_variant_get_child(setting, 1, "v", &value);
                g_autofree char *v = g_variant_print(value, FALSE);
                g_string_append_printf(out, "%s%s = %s", out->len ? ", " : "", key, v);
                g_variant_unref(setting);
        }
        return g_string_free(out, FALSE);
}

static void settings_call_free(SettingsCall *call)
{
        g_free(call->key);
        g_free(call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(SettingsCall, settings_call_free)

static void on_get_process(GObject *source, GAsyncResult *result, gpointer data)
{
        g_autoptr(SettingsCall) call = data;
        g_autoptr(GVariant) resolution = NULL;
        g_autoptr(GError) error = NULL;
        AppsRow *p;

        if (!nvp_manager_call_get_process_finish(NVP_MANAGER(source), &resolution, result, &error) &&
                        app_error_is_cancelled(error))
                return;
        p = g_hash_table_lookup(call->view->procs, call->key);
        if (!p)
                return;
        p->fetching = false;
        /* A process the daemon does not track (NoSuchProcess) has no settings. */
        set_text(&p->settings, resolution ? settings_text(resolution) : NULL);
        if (resolution) {
                g_autoptr(GVariant) facts = g_variant_get_child_value(resolution, 1);
                const char *procname;

                if (g_variant_lookup(facts, "procname", "&s", &procname) && *procname)
                        set_text(&p->procname, g_strdup(procname));
        }
        p->settings_generation = call->generation;
        apps_row_changed(p);
}

static void fetch_settings(AppsView *v, AppsRow *p, guint64 generation)
{
        SettingsCall *call;

        if (p->fetching || p->settings_generation == generation || !v->app->manager)
                return;
        call = g_new0(SettingsCall, 1);
        call->view = v;
        call->key = g_strdup(p->key);
        call->generation = generation;
        p->fetching = true;
        nvp_manager_call_get_process(v->app->manager, p->pid, p->start_time, G_DBUS_CALL_FLAGS_NONE, -1,
                        v->app->cancellable, on_get_process, call);
}

/* --- updating in place ---------------------------------------------------------------------------------- */

static AppsRow *group_for(AppsView *v, const char *key, GPtrArray *added)
{
        AppsRow *g = g_hash_table_lookup(v->groups, key);

        if (!g) {
                g = g_object_new(APPS_TYPE_ROW, NULL);
                g->key = g_strdup(key);
                apps_row_set_name(g, *key ? key : _("Unknown unit"));
                g->children = g_list_store_new(APPS_TYPE_ROW);
                g->added = g_ptr_array_new_with_free_func(g_object_unref);
                g_hash_table_insert(v->groups, g->key, g);
                g_ptr_array_add(added, g);
        }
        g->seen = true;
        return g;
}

static void update_group_totals(AppsView *v, GVariant *group, GPtrArray *added)
{
        g_autoptr(GVariant) engines = NULL, memory = NULL;
        const char *key;
        AppsRow *g;

        g_variant_get(group, "(&su@a(sssd)@a(ssst))", &key, NULL, &engines, &memory);
        g = group_for(v, key, added);
        row_set_usage(g, engines, memory);
}

static void remove_from(GListStore *store, gpointer item)
{
        guint position;

        if (g_list_store_find(store, item, &position))
                g_list_store_remove(store, position);
}

static void update_process(AppsView *v, GVariant *process, guint64 generation, GPtrArray *added)
{
        const char *object, *comm, *unit, *slice, *container_kind, *container, *app_kind, *app_id;
        g_autoptr(GVariant) profiles = NULL, clients = NULL, engines = NULL, memory = NULL;
        g_autoptr(GPtrArray) devices = g_ptr_array_new();
        g_autofree const char **profile_names = NULL;
        g_autofree char *key = NULL;
        guint32 pid, uid;
        guint64 start_time;
        AppsRow *g, *p;

        g_variant_get(process, "(&outu&s@as@a(sst)@a(sssd)@a(ssst)&s&s&s&s&s&s)", &object, &pid, &start_time, &uid,
                        &comm, &profiles, &clients, &engines, &memory, &unit, &slice, &container_kind, &container,
                        &app_kind, &app_id);
        /* The daemon's "application" grouping: the Flatpak or snap id, else the unit. */
        g = group_for(v, *app_id ? app_id : unit, added);
        if (!g->named) {
                /* Named once, from its first process: desktop files and container stores do not change
                 * under a running application often enough to look them up on every sample. */
                AppName name;

                app_names_resolve(v->names, unit, container_kind, container, app_kind, app_id, comm, &name);
                apps_row_set_name(g, name.name);
                g->icon = g_steal_pointer(&name.icon);
                g->detail = g_steal_pointer(&name.detail);
                g->named = true;
                app_name_done(&name);
        }
        key = g_strdup_printf("%u %" G_GUINT64_FORMAT, pid, start_time);
        p = g_hash_table_lookup(v->procs, key);
        if (p && p->group != g) {
                /* Attributed anew (a Flatpak's id read late): it moves to its application. */
                g_hash_table_remove(v->procs, key);
                remove_from(p->group->children, p);
                p = NULL;
        }
        if (!p) {
                g_autofree char *title = g_strdup_printf("%s (%u)", comm, pid);

                p = g_object_new(APPS_TYPE_ROW, NULL);
                p->group = g;
                p->key = g_steal_pointer(&key);
                p->pid = pid;
                p->start_time = start_time;
                p->comm = g_strdup(comm);
                apps_row_set_name(p, title);
                p->detail = g_strdup(unit);
                p->search = g_strdup(comm);
                g_hash_table_insert(v->procs, p->key, p);
                g_ptr_array_add(g->added, p);
        }
        p->seen = true;
        row_set_usage(p, engines, memory);
        add_devices(v, clients, devices);
        set_text(&p->device, join(devices));
        profile_names = g_variant_get_strv(profiles, NULL);
        set_text(&p->profile, g_strjoinv(", ", (char **) profile_names));
        fetch_settings(v, p, generation);
}

/* An application's devices, profiles and search text, from its processes. */
static void update_group_from_processes(AppsRow *g)
{
        g_autoptr(GPtrArray) devices = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) profiles = g_ptr_array_new_with_free_func(g_free);
        g_autofree char *text = NULL;
        GString *search = g_string_new(g->name);
        guint n = g_list_model_get_n_items(G_LIST_MODEL(g->children));

        g_string_append_printf(search, "\n%s\n%s", g->key, g->detail ? g->detail : "");
        for (guint i = 0; i < n; i++) {
                g_autoptr(AppsRow) p = g_list_model_get_item(G_LIST_MODEL(g->children), i);
                g_auto(GStrv) dev = g_strsplit(p->device ? p->device : "", ", ", -1);
                g_auto(GStrv) prof = g_strsplit(p->profile ? p->profile : "", ", ", -1);

                for (size_t j = 0; dev[j]; j++)
                        if (*dev[j] && !g_ptr_array_find_with_equal_func(devices, dev[j], g_str_equal, NULL))
                                g_ptr_array_add(devices, g_strdup(dev[j]));
                for (size_t j = 0; prof[j]; j++)
                        if (*prof[j] && !g_ptr_array_find_with_equal_func(profiles, prof[j], g_str_equal, NULL))
                                g_ptr_array_add(profiles, g_strdup(prof[j]));
                g_string_append_printf(search, "\n%s", p->search);
        }
        g->processes = n;
        set_text(&g->device, join(devices));
        set_text(&g->profile, join(profiles));
        text = g_string_free(search, FALSE);
        set_text(&g->search, g_utf8_casefold(text, -1));
}

static void splice_added(GListStore *store, GPtrArray *added)
{
        if (!added->len)
                return;
        g_list_store_splice(store, g_list_model_get_n_items(G_LIST_MODEL(store)), 0, added->pdata, added->len);
        g_ptr_array_set_size(added, 0);
}

static void show_summary(AppsView *v)
{
        guint groups = g_hash_table_size(v->groups), procs = g_hash_table_size(v->procs);
        g_autofree char *text = NULL;
        g_autofree char *p = g_strdup_printf(ngettext("%u process", "%u processes", procs), procs);
        g_autofree char *g = g_strdup_printf(ngettext("%u application", "%u applications", groups), groups);

        /* TRANSLATORS: "12 processes in 3 applications" */
        text = g_strdup_printf(C_("summary", "%s in %s"), p, g);
        gtk_label_set_text(GTK_LABEL(v->summary), text);
}

void apps_view_update(AppsView *v, GVariant *devices, GVariant *groups, GVariant *processes)
{
        guint64 generation = v->app->manager ? nvp_manager_get_config_generation(v->app->manager) + 1 : 1;
        guint64 now = (guint64) g_get_monotonic_time();
        g_autoptr(GPtrArray) added = g_ptr_array_new_with_free_func(g_object_unref);
        GHashTableIter it;
        gpointer value;
        GVariantIter iter;
        GVariant *item;

        if (devices)
                update_device_names(v, devices);
        g_hash_table_iter_init(&it, v->groups);
        while (g_hash_table_iter_next(&it, NULL, &value))
                APPS_ROW(value)->seen = false;
        g_hash_table_iter_init(&it, v->procs);
        while (g_hash_table_iter_next(&it, NULL, &value))
                APPS_ROW(value)->seen = false;

        g_variant_iter_init(&iter, groups);
        while ((item = g_variant_iter_next_value(&iter))) {
                update_group_totals(v, item, added);
                g_variant_unref(item);
        }
        g_variant_iter_init(&iter, processes);
        while ((item = g_variant_iter_next_value(&iter))) {
                update_process(v, item, generation, added);
                g_variant_unref(item);
        }

        /* Gone: out of their models, one at a time (few go per sample); new: spliced in at once. */
        g_hash_table_iter_init(&it, v->procs);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                AppsRow *p = value;

                if (!p->seen) {
                        g_hash_table_iter_remove(&it);
                        remove_from(p->group->children, p);
                }
        }
        g_hash_table_iter_init(&it, v->groups);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                AppsRow *g = value;

                if (!g->seen) {
                        g_hash_table_iter_remove(&it);
                        remove_from(v->store, g);
                        continue;
                }
                splice_added(g->children, g->added);
                update_group_from_processes(g);
                (void) usage_history_push(&g->history, now, g->busy);
        }
        splice_added(v->store, added);

        g_hash_table_iter_init(&it, v->procs);
        while (g_hash_table_iter_next(&it, NULL, &value))
                apps_row_changed(value);
        g_hash_table_iter_init(&it, v->groups);
        while (g_hash_table_iter_next(&it, NULL, &value))
                apps_row_changed(value);
        /* The figures changed under the sorter and the filter: order and matches anew. */
        gtk_sorter_changed(v->use_sorter, GTK_SORTER_CHANGE_DIFFERENT);
        if (*v->search)
                gtk_filter_changed(v->filter, GTK_FILTER_CHANGE_DIFFERENT);
        show_summary(v);
        gtk_stack_set_visible_child_name(GTK_STACK(v->stack), g_hash_table_size(v->groups) ? "applications" : "empty");
}
