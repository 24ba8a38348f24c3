/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GPUs: a card per device, titled by its product name, with a history graph per engine and memory region
 * over the window the user chose (the last 1, 5 or 10 minutes), a bar of VRAM used where its size is
 * known, the device's sensors (Usage.ListGpuSensors) and the runtime-PM state as the daemon reports it (a
 * suspended device is not read, so as not to wake it). Samples go into the histories on each refresh,
 * which the app makes only while its window is shown; a longer pause is kept as a gap. Everything on
 * the page but the window choice is read-only and kept out of the Tab order. */
#include "app.h"
#include "card-columns.h"
#include "history-graph.h"

/* A refresh later than this after the previous one means the watch stopped in between (minimised, the
 * daemon away): the line breaks there rather than joining across the pause. */
#define SERIES_GAP_USEC (3 * APP_WATCH_INTERVAL_USEC)

/* Cards side by side where each gets this much width, at most this many. */
#define CARD_WIDTH_MIN 440
#define CARDS_PER_ROW_MAX 3u
/* The same for the sensors in a card. */
#define SENSOR_WIDTH_MIN 220
#define SENSORS_PER_ROW_MAX 3u

typedef struct Series {
        UsageHistory history;
        uint64_t last_usec; /* of the latest push; 0: none */
} Series;

/* An engine or memory region: a row with its figure, a graph and, for a region of known size, a bar. */
typedef struct Graphed {
        char *what;
        Series *series; /* owned by GpusView.series */
        GtkWidget *value, *bar, *graph;
        HistoryGraphUnit unit;
        double max;
} Graphed;

typedef struct DeviceEntry {
        GtkWidget *group; /* the card */
        char *shape; /* engine and region names and state: rows are rebuilt when it changes */
        GPtrArray *graphed; /* Graphed, engines then regions */
        GtkWidget *sensor_row; /* one row, its sensors side by side; NULL without readings */
        GPtrArray *sensor_values; /* GtkLabel per reading */
        char *sensor_shape;
        bool seen;
} DeviceEntry;

struct GpusView {
        App *app;
        GtkWidget *stack; /* "empty" status page or "devices" */
        GtkWidget *empty;
        GtkWidget *cards; /* card_columns_new() */
        GHashTable *devices; /* "device source" -> DeviceEntry */
        GHashTable *series; /* "device source e|r name" -> Series: histories outlive rebuilt rows */
        GHashTable *sensors; /* "device source" -> GVariant a(sssd), the latest ListGpuSensors */
        uint64_t window_usec;
        bool sensors_pending, sensors_unsupported;
        gulong window_unmap_handler;
        GtkWidget *toplevel; /* whose unmap ends the watch: the histories break there */
};

static void series_free(gpointer data)
{
        Series *s = data;

        usage_history_done(&s->history);
        g_free(s);
}

static void graphed_free(gpointer data)
{
        Graphed *g = data;

        g_free(g->what);
        g_free(g);
}

static void device_entry_free(gpointer data)
{
        DeviceEntry *e = data;

        g_free(e->shape);
        g_free(e->sensor_shape);
        g_ptr_array_unref(e->graphed);
        g_ptr_array_unref(e->sensor_values);
        g_free(e);
}

static void series_break_all(GpusView *v)
{
        uint64_t now = (uint64_t) g_get_monotonic_time();
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, v->series);
        while (g_hash_table_iter_next(&it, NULL, &value))
                (void) usage_history_break(&((Series *) value)->history, now);
}

static void series_push(Series *s, uint64_t now, double value)
{
        if (s->last_usec > 0 && now - s->last_usec > SERIES_GAP_USEC)
                (void) usage_history_break(&s->history, s->last_usec + APP_WATCH_INTERVAL_USEC);
        /* Out of memory: the graph misses a sample, which it shows as a gap. */
        (void) usage_history_push(&s->history, now, value);
        s->last_usec = now;
}

static void graphed_show(GpusView *v, Graphed *g, uint64_t now)
{
        history_graph_set(g->graph, &g->series->history, now, v->window_usec, g->max, g->what);
}

static void graphs_show_all(GpusView *v)
{
        uint64_t now = (uint64_t) g_get_monotonic_time();
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, v->devices);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                DeviceEntry *e = value;

                for (guint i = 0; i < e->graphed->len; i++)
                        graphed_show(v, e->graphed->pdata[i], now);
        }
}

static void on_window_choice(GtkToggleButton *button, gpointer data)
{
        GpusView *v = data;

        if (!gtk_toggle_button_get_active(button))
                return;
        v->window_usec = GPOINTER_TO_SIZE(g_object_get_data(G_OBJECT(button), "window-usec"));
        graphs_show_all(v);
}

static void on_toplevel_unmap(GtkWidget *window, gpointer data)
{
        /* The app drops its watch when the window goes: no samples until it is back, and none joined. */
        series_break_all(data);
}

static void on_view_map(GtkWidget *widget, gpointer data)
{
        GpusView *v = data;
        GtkRoot *root = gtk_widget_get_root(widget);

        if (!root || GTK_WIDGET(root) == v->toplevel)
                return;
        if (v->toplevel)
                g_signal_handler_disconnect(v->toplevel, v->window_unmap_handler);
        v->toplevel = GTK_WIDGET(root);
        v->window_unmap_handler = g_signal_connect(root, "unmap", G_CALLBACK(on_toplevel_unmap), v);
}

static GtkWidget *window_choice_new(GpusView *v)
{
        static const struct {
                const char *label, *tooltip;
                uint64_t usec;
        } choices[] = {
                { N_("1 min"), N_("The last minute"), USAGE_HISTORY_WINDOW_1MIN_USEC },
                { N_("5 min"), N_("The last 5 minutes"), USAGE_HISTORY_WINDOW_5MIN_USEC },
                { N_("10 min"), N_("The last 10 minutes"), USAGE_HISTORY_WINDOW_10MIN_USEC },
        };
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
        GtkWidget *linked = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
        GtkWidget *label = gtk_label_new(_("History"));
        GtkToggleButton *first = NULL;

        gtk_widget_add_css_class(linked, "linked");
        gtk_widget_set_halign(box, GTK_ALIGN_END);
        gtk_widget_add_css_class(label, "dim-label");
        gtk_box_append(GTK_BOX(box), label);
        gtk_accessible_update_relation(GTK_ACCESSIBLE(linked), GTK_ACCESSIBLE_RELATION_LABELLED_BY, label, NULL, -1);
        for (size_t i = 0; i < G_N_ELEMENTS(choices); i++) {
                GtkWidget *button = gtk_toggle_button_new_with_label(_(choices[i].label));

                gtk_widget_set_tooltip_text(button, _(choices[i].tooltip));
                g_object_set_data(G_OBJECT(button), "window-usec", GSIZE_TO_POINTER((gsize) choices[i].usec));
                if (first)
                        gtk_toggle_button_set_group(GTK_TOGGLE_BUTTON(button), first);
                else
                        first = GTK_TOGGLE_BUTTON(button);
                g_signal_connect(button, "toggled", G_CALLBACK(on_window_choice), v);
                gtk_box_append(GTK_BOX(linked), button);
        }
        gtk_toggle_button_set_active(first, TRUE);
        gtk_box_append(GTK_BOX(box), linked);
        return box;
}

GpusView *gpus_view_new(App *app)
{
        GpusView *v = g_new0(GpusView, 1);
        GtkWidget *empty = adw_status_page_new();
        GtkWidget *scrolled = gtk_scrolled_window_new();
        GtkWidget *clamp = adw_clamp_new();
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 18);

        v->app = app;
        v->window_usec = USAGE_HISTORY_WINDOW_1MIN_USEC;
        v->devices = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, device_entry_free);
        v->series = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, series_free);
        v->sensors = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_variant_unref);

        /* A wide window gets wide graphs and cards side by side; a narrow one (360 px) one column. */
        v->cards = card_columns_new(CARD_WIDTH_MIN, CARDS_PER_ROW_MAX, 24);
        gtk_box_append(GTK_BOX(box), window_choice_new(v));
        gtk_box_append(GTK_BOX(box), v->cards);
        gtk_widget_set_margin_top(box, 12);
        gtk_widget_set_margin_bottom(box, 24);
        gtk_widget_set_margin_start(box, 12);
        gtk_widget_set_margin_end(box, 12);
        adw_clamp_set_maximum_size(ADW_CLAMP(clamp), 2000);
        adw_clamp_set_tightening_threshold(ADW_CLAMP(clamp), 1600);
        adw_clamp_set_child(ADW_CLAMP(clamp), box);
        gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
        gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), clamp);

        adw_status_page_set_title(ADW_STATUS_PAGE(empty), _("No GPU"));
        adw_status_page_set_description(ADW_STATUS_PAGE(empty), _("nvprofiled has found no GPU device yet."));
        adw_status_page_set_icon_name(ADW_STATUS_PAGE(empty), "video-display-symbolic");
        v->stack = gtk_stack_new();
        gtk_stack_add_named(GTK_STACK(v->stack), empty, "empty");
        v->empty = empty;
        gtk_stack_add_named(GTK_STACK(v->stack), scrolled, "devices");
        g_signal_connect(v->stack, "map", G_CALLBACK(on_view_map), v);
        return v;
}

GtkWidget *gpus_view_widget(GpusView *v)
{
        return v->stack;
}

void gpus_view_free(GpusView *v)
{
        if (v->toplevel)
                g_signal_handler_disconnect(v->toplevel, v->window_unmap_handler);
        g_hash_table_unref(v->devices);
        g_hash_table_unref(v->series);
        g_hash_table_unref(v->sensors);
        g_free(v);
}

/* --- rows ----------------------------------------------------------------------------------------------- */

static char *region_text(GVariant *values, double *ret_used, double *ret_size)
{
        guint64 resident = 0, total = 0, size = 0;
        bool has_resident = g_variant_lookup(values, "resident", "t", &resident);
        bool has_total = g_variant_lookup(values, "total", "t", &total);
        g_autofree char *used = NULL, *of = NULL;

        *ret_used = has_resident ? (double) resident : has_total ? (double) total : -1;
        *ret_size = 0;
        if (g_variant_lookup(values, "size", "t", &size)) {
                *ret_size = (double) size;
                used = format_bytes(has_resident ? resident : total);
                of = format_bytes(size);
                /* TRANSLATORS: memory used of a device's memory size */
                return g_strdup_printf(_("%s of %s"), used, of);
        }
        if (has_resident)
                return g_strdup_printf(_("%s resident"), used = format_bytes(resident));
        if (has_total)
                return g_strdup_printf(_("%s total"), used = format_bytes(total));
        return g_strdup(_("not known"));
}

static char *device_shape(GVariant *engines, GVariant *regions, const char *state)
{
        GString *s = g_string_new(state);
        GVariantIter iter;
        const char *name;
        GVariant *values;

        g_variant_iter_init(&iter, engines);
        while (g_variant_iter_next(&iter, "(&sddu)", &name, NULL, NULL, NULL))
                g_string_append_printf(s, " e:%s", name);
        g_variant_iter_init(&iter, regions);
        while (g_variant_iter_next(&iter, "(&s@a{st})", &name, &values)) {
                /* A size that appears brings the bar. */
                g_string_append_printf(s, " r:%s%s", name, g_variant_lookup(values, "size", "t", NULL) ? "+" : "");
                g_variant_unref(values);
        }
        return g_string_free(s, FALSE);
}

/* A row that shows and says, and is never a Tab stop: nothing on it can be done. */
static void row_read_only(GtkWidget *row)
{
        gtk_widget_set_focusable(row, FALSE);
        gtk_list_box_row_set_activatable(GTK_LIST_BOX_ROW(row), FALSE);
        gtk_list_box_row_set_selectable(GTK_LIST_BOX_ROW(row), FALSE);
}

static GtkWidget *text_row_new(GtkWidget *group, const char *title)
{
        GtkWidget *row = adw_action_row_new();

        adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), title);
        /* Named by its title label already (labelled-by): a label property too would say it twice. */
        row_read_only(row);
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), row);
        return row;
}

static Series *series_get(GpusView *v, const char *key)
{
        Series *s = g_hash_table_lookup(v->series, key);

        if (!s) {
                s = g_new0(Series, 1);
                s->history = USAGE_HISTORY_INIT;
                g_hash_table_insert(v->series, g_strdup(key), s);
        }
        return s;
}

/* Title and figure on one line, the graph (and the bar) below. */
static Graphed *graphed_row_new(GpusView *v, DeviceEntry *e, const char *key, const char *title, const char *what,
                HistoryGraphUnit unit, bool bar)
{
        GtkWidget *row = adw_preferences_row_new();
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
        GtkWidget *line = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
        GtkWidget *name = gtk_label_new(title);
        Graphed *g = g_new0(Graphed, 1);

        g->what = g_strdup(what);
        g->series = series_get(v, key);
        g->unit = unit;
        g->value = gtk_label_new(NULL);
        g->graph = history_graph_new(HISTORY_GRAPH_FULL);
        history_graph_set_unit(g->graph, unit);

        gtk_label_set_xalign(GTK_LABEL(name), 0);
        gtk_label_set_ellipsize(GTK_LABEL(name), PANGO_ELLIPSIZE_END);
        gtk_widget_set_hexpand(name, TRUE);
        gtk_label_set_xalign(GTK_LABEL(g->value), 1);
        gtk_label_set_wrap(GTK_LABEL(g->value), TRUE);
        gtk_widget_add_css_class(g->value, "numeric");
        gtk_box_append(GTK_BOX(line), name);
        gtk_box_append(GTK_BOX(line), g->value);
        gtk_box_append(GTK_BOX(box), line);
        if (bar) {
                g->bar = gtk_level_bar_new_for_interval(0, 1);
                /* One colour: a fuller VRAM is neither good nor bad by itself. */
                gtk_level_bar_remove_offset_value(GTK_LEVEL_BAR(g->bar), GTK_LEVEL_BAR_OFFSET_LOW);
                gtk_level_bar_remove_offset_value(GTK_LEVEL_BAR(g->bar), GTK_LEVEL_BAR_OFFSET_HIGH);
                gtk_level_bar_remove_offset_value(GTK_LEVEL_BAR(g->bar), GTK_LEVEL_BAR_OFFSET_FULL);
                gtk_accessible_update_property(GTK_ACCESSIBLE(g->bar), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
                gtk_box_append(GTK_BOX(box), g->bar);
        }
        gtk_widget_set_hexpand(g->graph, TRUE);
        gtk_box_append(GTK_BOX(box), g->graph);
        gtk_widget_set_margin_top(box, 9);
        gtk_widget_set_margin_bottom(box, 9);
        gtk_widget_set_margin_start(box, 12);
        gtk_widget_set_margin_end(box, 12);
        gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), box);
        adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), title);
        /* A plain AdwPreferencesRow has no title label of its own to be named by. */
        gtk_accessible_update_property(GTK_ACCESSIBLE(row), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
        row_read_only(row);
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(e->group), row);
        g_ptr_array_add(e->graphed, g);
        return g;
}

static void build_rows(
                GpusView *v, DeviceEntry *e, const char *key, GVariant *engines, GVariant *regions, const char *state)
{
        GVariantIter iter;
        const char *name;
        GVariant *values;

        if (g_str_equal(state, "suspended")) {
                GtkWidget *row = text_row_new(e->group, _("Runtime-suspended"));

                adw_action_row_set_subtitle(ADW_ACTION_ROW(row),
                                _("Not read while suspended, so as not to wake it: no sensors, and figures "
                                  "from before."));
                adw_action_row_set_subtitle_lines(ADW_ACTION_ROW(row), 0);
        }
        g_variant_iter_init(&iter, engines);
        while (g_variant_iter_next(&iter, "(&sddu)", &name, NULL, NULL, NULL)) {
                g_autofree char *series = g_strdup_printf("%s e %s", key, name);

                graphed_row_new(v, e, series, name, name, HISTORY_GRAPH_UNIT_PERCENT, false)->max = 100;
        }
        g_variant_iter_init(&iter, regions);
        while (g_variant_iter_next(&iter, "(&s@a{st})", &name, &values)) {
                g_autofree char *series = g_strdup_printf("%s r %s", key, name);
                g_autofree char *title = g_strdup_printf(_("Memory: %s"), name);

                graphed_row_new(v, e, series, title, name, HISTORY_GRAPH_UNIT_BYTES,
                                g_variant_lookup(values, "size", "t", NULL));
                g_variant_unref(values);
        }
}

/* --- sensors -------------------------------------------------------------------------------------------- */

static const char *sensor_title(const char *sensor)
{
        static const struct {
                const char *sensor, *title;
        } titles[] = {
                { "temperature", N_("Temperature") },
                { "power", N_("Power draw") },
                { "power_limit", N_("Power limit") },
                { "clock_graphics", N_("Graphics clock") },
                { "clock_memory", N_("Memory clock") },
                { "fan", N_("Fan") },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(titles); i++)
                if (g_str_equal(sensor, titles[i].sensor))
                        return _(titles[i].title);
        return sensor; /* a newer daemon's: its own word rather than nothing */
}

static char *sensor_value(const char *unit, double value)
{
        static const struct {
                const char *unit, *symbol;
                int decimals;
        } units[] = {
                { "celsius", N_("°C"), 0 },
                { "watt", N_("W"), 1 },
                { "megahertz", N_("MHz"), 0 },
                { "percent", N_("%"), 0 },
                { "rpm", N_("RPM"), 0 },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(units); i++)
                if (g_str_equal(unit, units[i].unit))
                        return g_strdup_printf("%.*f %s", units[i].decimals, value, _(units[i].symbol));
        return g_strdup_printf("%g %s", value, unit);
}

/* One row for all of a device's sensors, each a title and its value, in as many columns as the card's
 * width holds: a list of six rows would make the card twice as high. */
static void sensors_rebuild(DeviceEntry *e, GVariant *readings)
{
        GtkWidget *cells;
        GVariantIter iter;
        const char *sensor, *label;

        if (e->sensor_row)
                adw_preferences_group_remove(ADW_PREFERENCES_GROUP(e->group), e->sensor_row);
        e->sensor_row = NULL;
        g_ptr_array_set_size(e->sensor_values, 0);
        if (!readings)
                return;

        e->sensor_row = adw_preferences_row_new();
        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(e->sensor_row), _("Sensors"));
        gtk_accessible_update_property(GTK_ACCESSIBLE(e->sensor_row), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Sensors"), -1);
        row_read_only(e->sensor_row);
        cells = card_columns_new(SENSOR_WIDTH_MIN, SENSORS_PER_ROW_MAX, 18);
        gtk_widget_set_margin_top(cells, 12);
        gtk_widget_set_margin_bottom(cells, 12);
        gtk_widget_set_margin_start(cells, 12);
        gtk_widget_set_margin_end(cells, 12);
        g_variant_iter_init(&iter, readings);
        while (g_variant_iter_next(&iter, "(&s&s&sd)", &sensor, &label, NULL, NULL)) {
                /* TRANSLATORS: a sensor, then the driver's name for it ("edge", "junction") */
                g_autofree char *title = *label ? g_strdup_printf(_("%s (%s)"), sensor_title(sensor), label)
                                                : g_strdup(sensor_title(sensor));
                /* Each a list item named by its title, so that it is read as "Temperature (edge), 45 °C". */
                GtkWidget *cell = g_object_new(GTK_TYPE_BOX, "orientation", GTK_ORIENTATION_HORIZONTAL, "spacing", 12,
                                "accessible-role", GTK_ACCESSIBLE_ROLE_LIST_ITEM, NULL);
                GtkWidget *name = gtk_label_new(title);
                GtkWidget *text = gtk_label_new(NULL);

                gtk_accessible_update_property(GTK_ACCESSIBLE(cell), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
                gtk_label_set_xalign(GTK_LABEL(name), 0);
                gtk_label_set_ellipsize(GTK_LABEL(name), PANGO_ELLIPSIZE_END);
                gtk_widget_set_hexpand(name, TRUE);
                gtk_widget_add_css_class(name, "dim-label");
                gtk_widget_add_css_class(text, "numeric");
                gtk_box_append(GTK_BOX(cell), name);
                gtk_box_append(GTK_BOX(cell), text);
                card_columns_append(cells, cell);
                g_ptr_array_add(e->sensor_values, text);
        }
        gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(e->sensor_row), cells);
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(e->group), e->sensor_row);
}

static void update_sensors(GpusView *v, DeviceEntry *e, const char *key)
{
        GVariant *readings = g_hash_table_lookup(v->sensors, key);
        g_autoptr(GString) shape = g_string_new(NULL);
        GVariantIter iter;
        const char *sensor, *label, *unit;
        double value;
        guint i = 0;

        if (readings) {
                g_variant_iter_init(&iter, readings);
                while (g_variant_iter_next(&iter, "(&s&s&sd)", &sensor, &label, &unit, NULL))
                        g_string_append_printf(shape, "%s/%s/%s\n", sensor, label, unit);
        }
        if (!e->sensor_shape || !g_str_equal(e->sensor_shape, shape->str)) {
                g_free(e->sensor_shape);
                e->sensor_shape = g_strdup(shape->str);
                sensors_rebuild(e, readings);
        }
        if (!readings)
                return;
        g_variant_iter_init(&iter, readings);
        while (g_variant_iter_next(&iter, "(&s&s&sd)", &sensor, &label, &unit, &value) && i < e->sensor_values->len) {
                g_autofree char *text = sensor_value(unit, value);

                gtk_label_set_text(GTK_LABEL(e->sensor_values->pdata[i++]), text);
        }
}

static void update_all_sensors(GpusView *v)
{
        GHashTableIter it;
        gpointer key, value;

        g_hash_table_iter_init(&it, v->devices);
        while (g_hash_table_iter_next(&it, &key, &value))
                update_sensors(v, value, key);
}

static void on_sensors(GObject *source, GAsyncResult *result, gpointer data)
{
        g_autoptr(GVariant) reply = NULL, list = NULL;
        g_autoptr(GError) error = NULL;
        GpusView *v = data;
        GVariantIter iter;
        const char *device, *source_name;
        GVariant *readings;

        reply = g_dbus_proxy_call_finish(G_DBUS_PROXY(source), result, &error);
        if (!reply && app_error_is_cancelled(error))
                return; /* the app is going away: v with it */
        v->sensors_pending = false;
        if (!reply) {
                /* A daemon from before sensors: no sensors shown, and not asked again. */
                if (g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD))
                        v->sensors_unsupported = true;
                else
                        g_debug("ListGpuSensors: %s", error->message);
                return;
        }
        if (!g_variant_is_of_type(reply, G_VARIANT_TYPE("(a(ssa(sssd)))"))) {
                g_debug("ListGpuSensors answered %s", g_variant_get_type_string(reply));
                v->sensors_unsupported = true;
                return;
        }
        g_hash_table_remove_all(v->sensors);
        list = g_variant_get_child_value(reply, 0);
        g_variant_iter_init(&iter, list);
        while (g_variant_iter_next(&iter, "(&s&s@a(sssd))", &device, &source_name, &readings)) {
                /* A device without readings (suspended, none found) shows none. */
                if (g_variant_n_children(readings) > 0)
                        g_hash_table_insert(v->sensors, g_strdup_printf("%s %s", device, source_name), readings);
                else
                        g_variant_unref(readings);
        }
        update_all_sensors(v);
}

static void sensors_fetch(GpusView *v)
{
        App *app = v->app;

        if (v->sensors_pending || v->sensors_unsupported || !app->usage)
                return;
        v->sensors_pending = true;
        g_dbus_proxy_call(G_DBUS_PROXY(app->usage), "ListGpuSensors", NULL, G_DBUS_CALL_FLAGS_NONE, -1,
                        app->cancellable, on_sensors, v);
}

/* --- devices -------------------------------------------------------------------------------------------- */

static DeviceEntry *device_entry_new(
                GpusView *v, const char *key, GVariant *engines, GVariant *regions, const char *state, char *shape)
{
        DeviceEntry *e = g_new0(DeviceEntry, 1);

        e->group = adw_preferences_group_new();
        e->shape = shape;
        e->graphed = g_ptr_array_new_with_free_func(graphed_free);
        e->sensor_values = g_ptr_array_new();
        build_rows(v, e, key, engines, regions, state);
        card_columns_append(v->cards, e->group);
        return e;
}

static void device_entry_remove(GpusView *v, DeviceEntry *e)
{
        card_columns_remove(v->cards, e->group);
}

static void update_device(GpusView *v, GVariant *d, uint64_t now)
{
        const char *device, *source, *driver, *slot, *name, *state, *engine;
        g_autoptr(GVariant) nodes = NULL, engines = NULL, regions = NULL;
        g_autofree char *shape = NULL, *title = NULL, *description = NULL, *key = NULL;
        guint32 vendor, product, clients;
        guint64 clamped;
        DeviceEntry *e;
        GVariantIter iter;
        GVariant *values;
        guint i = 0;
        double busy;

        g_variant_get(d, "(&s&s&s&s&suu@as&su@a(sddu)@a(sa{st})t)", &device, &source, &driver, &slot, &name, &vendor,
                        &product, &nodes, &state, &clients, &engines, &regions, &clamped);
        key = g_strdup_printf("%s %s", device, source);
        shape = device_shape(engines, regions, state);
        e = g_hash_table_lookup(v->devices, key);
        if (e && !g_str_equal(e->shape, shape)) {
                device_entry_remove(v, e);
                g_hash_table_remove(v->devices, key);
                e = NULL;
        }
        if (!e) {
                e = device_entry_new(v, key, engines, regions, state, g_steal_pointer(&shape));
                g_hash_table_insert(v->devices, g_strdup(key), e);
        }
        e->seen = true;

        /* The product name (NVML's, or the PCI ID database's for DRM devices); else what the driver and
         * the bus say. The source is no title or subtitle: it is how the figures were read, not the device. */
        if (*name)
                title = g_strdup(name);
        else
                /* TRANSLATORS: device title without a product name: the driver, then the device's address */
                title = g_strdup_printf(_("%s (%s)"), driver, device);
        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(e->group), title);
        description = g_strdup_printf(ngettext("%s driver, %s: %u client", "%s driver, %s: %u clients", clients),
                        driver, *slot ? slot : device, clients);
        adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(e->group), description);

        /* A suspended device's figures are from before it slept: a gap, not a flat line. */
        g_variant_iter_init(&iter, engines);
        while (g_variant_iter_next(&iter, "(&sddu)", &engine, &busy, NULL, NULL)) {
                Graphed *g = e->graphed->pdata[i++];
                g_autofree char *p = format_percent(busy);

                gtk_label_set_text(GTK_LABEL(g->value), p);
                series_push(g->series, now, g_str_equal(state, "suspended") || busy < 0 ? -1 : MIN(busy, 100.0));
                graphed_show(v, g, now);
        }
        g_variant_iter_init(&iter, regions);
        while (g_variant_iter_next(&iter, "(&s@a{st})", NULL, &values)) {
                Graphed *g = e->graphed->pdata[i++];
                double used, size;
                g_autofree char *text = region_text(values, &used, &size);

                gtk_label_set_text(GTK_LABEL(g->value), text);
                if (g->bar)
                        gtk_level_bar_set_value(GTK_LEVEL_BAR(g->bar), size > 0 && used >= 0 ? MIN(used / size, 1) : 0);
                g->max = size;
                series_push(g->series, now, g_str_equal(state, "suspended") ? -1 : used);
                graphed_show(v, g, now);
                g_variant_unref(values);
        }
        update_sensors(v, e, key);
}

void gpus_view_update(GpusView *v, GVariant *devices)
{
        uint64_t now = (uint64_t) g_get_monotonic_time();
        GHashTableIter it;
        gpointer value;
        GVariantIter iter;
        GVariant *d;
        guint n;

        g_hash_table_iter_init(&it, v->devices);
        while (g_hash_table_iter_next(&it, NULL, &value))
                ((DeviceEntry *) value)->seen = false;
        g_variant_iter_init(&iter, devices);
        while ((d = g_variant_iter_next_value(&iter))) {
                update_device(v, d, now);
                g_variant_unref(d);
        }
        g_hash_table_iter_init(&it, v->devices);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                DeviceEntry *e = value;

                if (!e->seen) {
                        device_entry_remove(v, e);
                        g_hash_table_iter_remove(&it);
                }
        }
        n = g_hash_table_size(v->devices);
        /* Hidden, not only behind: GTK 4.8 presents a stack's other pages to screen readers, and "No GPU"
         * must not be read out beside the devices. */
        if (n > 0) {
                gtk_stack_set_visible_child_name(GTK_STACK(v->stack), "devices");
                gtk_widget_set_visible(v->empty, FALSE);
        } else {
                gtk_widget_set_visible(v->empty, TRUE);
                gtk_stack_set_visible_child_name(GTK_STACK(v->stack), "empty");
        }
        sensors_fetch(v);
}
