/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GPUs: one group per device, a row with a level bar per engine, a row per memory region, and the
 * runtime-PM state as the daemon reports it (a suspended device is not read, so as not to wake it). */
#include "app.h"

typedef struct DeviceEntry {
        GtkWidget *group;
        char *shape; /* engine and region names and state: rows are rebuilt when it changes */
        GPtrArray *subtitled; /* AdwActionRow, in the order of engines then regions */
        GPtrArray *bars; /* GtkLevelBar per engine */
        bool seen;
} DeviceEntry;

struct GpusView {
        App *app;
        GtkWidget *stack; /* "empty" status page or "devices" */
        GtkWidget *page;
        GHashTable *devices; /* device id -> DeviceEntry */
};

static void device_entry_free(gpointer data)
{
        DeviceEntry *e = data;

        g_free(e->shape);
        g_ptr_array_unref(e->subtitled);
        g_ptr_array_unref(e->bars);
        g_free(e);
}

GpusView *gpus_view_new(App *app)
{
        GpusView *v = g_new0(GpusView, 1);
        GtkWidget *empty = adw_status_page_new();

        v->app = app;
        v->devices = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, device_entry_free);
        v->page = adw_preferences_page_new();
        adw_status_page_set_title(ADW_STATUS_PAGE(empty), _("No GPU"));
        adw_status_page_set_description(ADW_STATUS_PAGE(empty), _("nvprofiled has found no GPU device yet."));
        adw_status_page_set_icon_name(ADW_STATUS_PAGE(empty), "video-display-symbolic");
        v->stack = gtk_stack_new();
        gtk_stack_add_named(GTK_STACK(v->stack), empty, "empty");
        gtk_stack_add_named(GTK_STACK(v->stack), v->page, "devices");
        return v;
}

GtkWidget *gpus_view_widget(GpusView *v)
{
        return v->stack;
}

void gpus_view_free(GpusView *v)
{
        g_hash_table_unref(v->devices);
        g_free(v);
}

static char *region_text(GVariant *values)
{
        guint64 resident = 0, total = 0, size = 0;
        bool has_resident = g_variant_lookup(values, "resident", "t", &resident);
        bool has_total = g_variant_lookup(values, "total", "t", &total);
        g_autofree char *used = NULL, *of = NULL;

        if (g_variant_lookup(values, "size", "t", &size)) {
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

        g_variant_iter_init(&iter, engines);
        while (g_variant_iter_next(&iter, "(&sddu)", &name, NULL, NULL, NULL))
                g_string_append_printf(s, " e:%s", name);
        g_variant_iter_init(&iter, regions);
        while (g_variant_iter_next(&iter, "(&s@a{st})", &name, NULL))
                g_string_append_printf(s, " r:%s", name);
        return g_string_free(s, FALSE);
}

static GtkWidget *add_row(DeviceEntry *e, const char *title)
{
        GtkWidget *row = adw_action_row_new();

        adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), title);
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(e->group), row);
        return row;
}

static void build_rows(GpusView *v, DeviceEntry *e, const char *device, GVariant *engines, GVariant *regions,
                const char *state)
{
        GVariantIter iter;
        const char *name;

        if (g_str_equal(state, "suspended")) {
                GtkWidget *row = add_row(e, _("Runtime-suspended"));

                adw_action_row_set_subtitle(ADW_ACTION_ROW(row),
                                _("Not read while suspended, so as not to wake it; figures are from before."));
        }
        g_variant_iter_init(&iter, engines);
        while (g_variant_iter_next(&iter, "(&sddu)", &name, NULL, NULL, NULL)) {
                GtkWidget *row = add_row(e, name);
                GtkWidget *bar = gtk_level_bar_new_for_interval(0, 100);
                g_autofree char *label = g_strdup_printf(_("%s busy on %s"), name, device);

                gtk_widget_set_size_request(bar, 200, -1);
                gtk_widget_set_valign(bar, GTK_ALIGN_CENTER);
                gtk_level_bar_set_mode(GTK_LEVEL_BAR(bar), GTK_LEVEL_BAR_MODE_CONTINUOUS);
                gtk_accessible_update_property(GTK_ACCESSIBLE(bar), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
                adw_action_row_add_suffix(ADW_ACTION_ROW(row), bar);
                g_ptr_array_add(e->subtitled, row);
                g_ptr_array_add(e->bars, bar);
        }
        g_variant_iter_init(&iter, regions);
        while (g_variant_iter_next(&iter, "(&s@a{st})", &name, NULL)) {
                g_autofree char *title = g_strdup_printf(_("Memory: %s"), name);

                g_ptr_array_add(e->subtitled, add_row(e, title));
        }
}

static void update_device(GpusView *v, GVariant *d)
{
        const char *device, *source, *driver, *slot, *name, *state;
        g_autoptr(GVariant) nodes = NULL, engines = NULL, regions = NULL;
        g_autofree char *shape = NULL, *title = NULL, *description = NULL, *key = NULL;
        guint32 vendor, product, clients;
        guint64 clamped;
        DeviceEntry *e;
        GVariantIter iter;
        guint i = 0;
        double busy;

        g_variant_get(d, "(&s&s&s&s&suu@as&su@a(sddu)@a(sa{st})t)", &device, &source, &driver, &slot, &name, &vendor,
                        &product, &nodes, &state, &clients, &engines, &regions, &clamped);
        key = g_strdup_printf("%s %s", device, source);
        shape = device_shape(engines, regions, state);
        e = g_hash_table_lookup(v->devices, key);
        if (e && !g_str_equal(e->shape, shape)) {
                adw_preferences_page_remove(ADW_PREFERENCES_PAGE(v->page), ADW_PREFERENCES_GROUP(e->group));
                g_hash_table_remove(v->devices, key);
                e = NULL;
        }
        if (!e) {
                e = g_new0(DeviceEntry, 1);
                e->group = adw_preferences_group_new();
                e->shape = g_steal_pointer(&shape);
                e->subtitled = g_ptr_array_new();
                e->bars = g_ptr_array_new();
                build_rows(v, e, device, engines, regions, state);
                adw_preferences_page_add(ADW_PREFERENCES_PAGE(v->page), ADW_PREFERENCES_GROUP(e->group));
                g_hash_table_insert(v->devices, g_strdup(key), e);
        }
        e->seen = true;

        /* TRANSLATORS: device title: product name or driver, then the device's address */
        title = g_strdup_printf(_("%s (%s)"), *name ? name : driver, device);
        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(e->group), title);
        description = g_strdup_printf(ngettext("%s, %s, %s: %u client", "%s, %s, %s: %u clients", clients), driver,
                        source, state, clients);
        adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(e->group), description);

        g_variant_iter_init(&iter, engines);
        while (g_variant_iter_next(&iter, "(&sddu)", &name, &busy, NULL, NULL)) {
                g_autofree char *p = format_percent(busy);

                adw_action_row_set_subtitle(ADW_ACTION_ROW(e->subtitled->pdata[i]), p);
                gtk_level_bar_set_value(GTK_LEVEL_BAR(e->bars->pdata[i]), busy < 0 ? 0 : MIN(busy, 100.0));
                i++;
        }
        g_variant_iter_init(&iter, regions);
        {
                GVariant *values;

                while (g_variant_iter_next(&iter, "(&s@a{st})", &name, &values)) {
                        g_autofree char *text = region_text(values);

                        adw_action_row_set_subtitle(ADW_ACTION_ROW(e->subtitled->pdata[i]), text);
                        g_variant_unref(values);
                        i++;
                }
        }
}

void gpus_view_update(GpusView *v, GVariant *devices)
{
        GHashTableIter it;
        gpointer value;
        GVariantIter iter;
        GVariant *d;

        g_hash_table_iter_init(&it, v->devices);
        while (g_hash_table_iter_next(&it, NULL, &value))
                ((DeviceEntry *) value)->seen = false;
        g_variant_iter_init(&iter, devices);
        while ((d = g_variant_iter_next_value(&iter))) {
                update_device(v, d);
                g_variant_unref(d);
        }
        g_hash_table_iter_init(&it, v->devices);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                DeviceEntry *e = value;

                if (!e->seen) {
                        adw_preferences_page_remove(ADW_PREFERENCES_PAGE(v->page), ADW_PREFERENCES_GROUP(e->group));
                        g_hash_table_iter_remove(&it);
                }
        }
        gtk_stack_set_visible_child_name(GTK_STACK(v->stack), g_hash_table_size(v->devices) ? "devices" : "empty");
}
