/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Applications: GPU users grouped by application (the Flatpak or snap id, else the systemd unit: the
 * daemon's ListGpuGroups "application"), each expandable to its processes with their usage, the profile
 * that applied and its settings; a process's full explanation and "Add a rule" on demand. */
#include "app.h"
#include "bus-signatures.h"

typedef struct ProcEntry {
        GtkWidget *row;
        char *comm;
        char *procname; /* the executable's name, as rules match it (GetProcess's facts); NULL until known */
        guint32 pid;
        guint64 start_time;
        char *usage, *profiles, *settings;
        guint64 settings_generation; /* ConfigGeneration the settings were read at; 0: never */
        bool fetching, seen;
} ProcEntry;

typedef struct GroupEntry {
        GtkWidget *expander;
        GHashTable *procs; /* "pid start_time" -> ProcEntry */
        bool seen;
} GroupEntry;

struct AppsView {
        App *app;
        GtkWidget *stack;
        GtkWidget *group; /* AdwPreferencesGroup of the expander rows */
        GHashTable *groups; /* key -> GroupEntry */
};

static void proc_entry_free(gpointer data)
{
        ProcEntry *p = data;

        g_free(p->comm);
        g_free(p->procname);
        g_free(p->usage);
        g_free(p->profiles);
        g_free(p->settings);
        g_free(p);
}

static void group_entry_free(gpointer data)
{
        GroupEntry *g = data;

        g_hash_table_unref(g->procs);
        g_free(g);
}

AppsView *apps_view_new(App *app)
{
        AppsView *v = g_new0(AppsView, 1);
        GtkWidget *page = adw_preferences_page_new();
        GtkWidget *empty = adw_status_page_new();

        v->app = app;
        v->groups = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, group_entry_free);
        v->group = adw_preferences_group_new();
        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(v->group), _("Applications using a GPU"));
        adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(v->group),
                        _("Grouped by Flatpak or snap application, else by systemd unit. Only your own processes "
                          "are shown (all of them to root)."));
        adw_preferences_page_add(ADW_PREFERENCES_PAGE(page), ADW_PREFERENCES_GROUP(v->group));
        adw_status_page_set_title(ADW_STATUS_PAGE(empty), _("No application uses a GPU"));
        adw_status_page_set_icon_name(ADW_STATUS_PAGE(empty), "application-x-executable-symbolic");
        v->stack = gtk_stack_new();
        gtk_stack_add_named(GTK_STACK(v->stack), empty, "empty");
        gtk_stack_add_named(GTK_STACK(v->stack), page, "applications");
        return v;
}

GtkWidget *apps_view_widget(AppsView *v)
{
        return v->stack;
}

void apps_view_search(AppsView *v)
{
        /* No search entry yet: the page takes the focus. */
        gtk_widget_grab_focus(v->stack);
}

void apps_view_free(AppsView *v)
{
        g_hash_table_unref(v->groups);
        g_free(v);
}

static void proc_entry_show(ProcEntry *p)
{
        g_autofree char *text = NULL;

        text = g_strdup_printf("%s\n%s: %s%s%s", p->usage ? p->usage : "", _("Profile"),
                        p->profiles && *p->profiles ? p->profiles : _("none"), p->settings && *p->settings ? "; " : "",
                        p->settings ? p->settings : "");
        adw_action_row_set_subtitle(ADW_ACTION_ROW(p->row), text);
}

/* The settings the daemon holds for the process (GetProcess: no /proc read, no resolution). */
typedef struct SettingsCall {
        AppsView *view;
        char *group, *key;
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
        g_free(call->group);
        g_free(call->key);
        g_free(call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(SettingsCall, settings_call_free)

static void on_get_process(GObject *source, GAsyncResult *result, gpointer data)
{
        g_autoptr(SettingsCall) call = data;
        g_autoptr(GVariant) resolution = NULL;
        g_autoptr(GError) error = NULL;
        GroupEntry *g;
        ProcEntry *p;

        if (!nvp_manager_call_get_process_finish(NVP_MANAGER(source), &resolution, result, &error) &&
                        app_error_is_cancelled(error))
                return;
        g = g_hash_table_lookup(call->view->groups, call->group);
        p = g ? g_hash_table_lookup(g->procs, call->key) : NULL;
        if (!p)
                return;
        p->fetching = false;
        g_free(p->settings);
        /* A process the daemon does not track (NoSuchProcess) has no settings. */
        p->settings = resolution ? settings_text(resolution) : NULL;
        if (resolution) {
                g_autoptr(GVariant) facts = g_variant_get_child_value(resolution, 1);
                const char *procname;

                if (g_variant_lookup(facts, "procname", "&s", &procname) && *procname) {
                        g_free(p->procname);
                        p->procname = g_strdup(procname);
                }
        }
        p->settings_generation = call->generation;
        proc_entry_show(p);
}

static void on_explain(GtkButton *button, gpointer data)
{
        ProcEntry *p = data;
        App *app = g_object_get_data(G_OBJECT(button), "app");

        explain_dialog_show(app, p->pid, p->start_time, p->comm);
}

static void on_add_rule(GtkButton *button, gpointer data)
{
        ProcEntry *p = data;
        App *app = g_object_get_data(G_OBJECT(button), "app");

        /* procname is the executable's name (what rules usually match); comm what the process calls itself. */
        add_rule_dialog_show(app, p->procname ? p->procname : p->comm, p->comm);
}

static GtkWidget *row_button(App *app, ProcEntry *p, const char *label, const char *accessible, GCallback cb)
{
        GtkWidget *button = app_button_new(label, accessible);

        gtk_widget_set_valign(button, GTK_ALIGN_CENTER);
        g_object_set_data(G_OBJECT(button), "app", app);
        g_signal_connect(button, "clicked", cb, p);
        return button;
}

static GroupEntry *group_for(AppsView *v, const char *key)
{
        GroupEntry *g = g_hash_table_lookup(v->groups, key);

        if (!g) {
                g = g_new0(GroupEntry, 1);
                g->procs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, proc_entry_free);
                g->expander = adw_expander_row_new();
                adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(g->expander), FALSE);
                adw_preferences_row_set_title(ADW_PREFERENCES_ROW(g->expander), *key ? key : _("Unknown unit"));
                adw_preferences_group_add(ADW_PREFERENCES_GROUP(v->group), g->expander);
                g_hash_table_insert(v->groups, g_strdup(key), g);
        }
        g->seen = true;
        return g;
}

static void update_process(AppsView *v, GVariant *process, guint64 generation)
{
        const char *object, *comm, *unit, *slice, *container_kind, *container, *app_kind, *app_id;
        g_autoptr(GVariant) profiles = NULL, clients = NULL, engines = NULL, memory = NULL;
        g_autofree char *key = NULL;
        g_autofree const char **profile_names = NULL;
        guint32 pid, uid;
        guint64 start_time;
        GroupEntry *g;
        ProcEntry *p;

        g_variant_get(process, "(&outu&s@as@a(sst)@a(sssd)@a(ssst)&s&s&s&s&s&s)", &object, &pid, &start_time, &uid,
                        &comm, &profiles, &clients, &engines, &memory, &unit, &slice, &container_kind, &container,
                        &app_kind, &app_id);
        /* The daemon's "application" grouping: the Flatpak or snap id, else the unit. */
        g = group_for(v, *app_id ? app_id : unit);
        key = g_strdup_printf("%u %" G_GUINT64_FORMAT, pid, start_time);
        p = g_hash_table_lookup(g->procs, key);
        if (!p) {
                g_autofree char *title = g_strdup_printf("%s (%u)", comm, pid);
                g_autofree char *explain = g_strdup_printf(_("Explain %s"), title);
                g_autofree char *add = g_strdup_printf(_("Add a rule for %s"), title);

                p = g_new0(ProcEntry, 1);
                p->pid = pid;
                p->start_time = start_time;
                p->comm = g_strdup(comm);
                p->row = adw_action_row_new();
                adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(p->row), FALSE);
                adw_preferences_row_set_title(ADW_PREFERENCES_ROW(p->row), title);
                adw_action_row_set_subtitle_lines(ADW_ACTION_ROW(p->row), 0);
                adw_action_row_add_suffix(ADW_ACTION_ROW(p->row),
                                row_button(v->app, p, _("_Explain"), explain, G_CALLBACK(on_explain)));
                adw_action_row_add_suffix(ADW_ACTION_ROW(p->row),
                                row_button(v->app, p, _("_Add Rule…"), add, G_CALLBACK(on_add_rule)));
                adw_expander_row_add_row(ADW_EXPANDER_ROW(g->expander), p->row);
                g_hash_table_insert(g->procs, g_strdup(key), p);
        }
        p->seen = true;
        g_free(p->usage);
        p->usage = format_usage(engines, memory);
        profile_names = g_variant_get_strv(profiles, NULL);
        g_free(p->profiles);
        p->profiles = g_strjoinv(", ", (char **) profile_names);
        proc_entry_show(p);

        if (!p->fetching && p->settings_generation != generation && v->app->manager) {
                SettingsCall *call = g_new0(SettingsCall, 1);

                call->view = v;
                call->group = g_strdup(*app_id ? app_id : unit);
                call->key = g_strdup(key);
                call->generation = generation;
                p->fetching = true;
                nvp_manager_call_get_process(v->app->manager, pid, start_time, G_DBUS_CALL_FLAGS_NONE, -1,
                                v->app->cancellable, on_get_process, call);
        }
}

static void update_group_totals(AppsView *v, GVariant *group)
{
        const char *key;
        guint32 processes;
        g_autoptr(GVariant) engines = NULL, memory = NULL;
        g_autofree char *usage = NULL, *subtitle = NULL;
        GroupEntry *g;

        g_variant_get(group, "(&su@a(sssd)@a(ssst))", &key, &processes, &engines, &memory);
        g = group_for(v, key);
        usage = format_usage(engines, memory);
        subtitle = g_strdup_printf(ngettext("%u process: %s", "%u processes: %s", processes), processes, usage);
        adw_expander_row_set_subtitle(ADW_EXPANDER_ROW(g->expander), subtitle);
}

void apps_view_update(AppsView *v, GVariant *groups, GVariant *processes)
{
        guint64 generation = v->app->manager ? nvp_manager_get_config_generation(v->app->manager) + 1 : 1;
        GHashTableIter it, pit;
        gpointer value;
        GVariantIter iter;
        GVariant *item;

        g_hash_table_iter_init(&it, v->groups);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                GroupEntry *g = value;

                g->seen = false;
                g_hash_table_iter_init(&pit, g->procs);
                while (g_hash_table_iter_next(&pit, NULL, &value))
                        ((ProcEntry *) value)->seen = false;
        }
        g_variant_iter_init(&iter, groups);
        while ((item = g_variant_iter_next_value(&iter))) {
                update_group_totals(v, item);
                g_variant_unref(item);
        }
        g_variant_iter_init(&iter, processes);
        while ((item = g_variant_iter_next_value(&iter))) {
                update_process(v, item, generation);
                g_variant_unref(item);
        }
        g_hash_table_iter_init(&it, v->groups);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                GroupEntry *g = value;

                g_hash_table_iter_init(&pit, g->procs);
                while (g_hash_table_iter_next(&pit, NULL, &value)) {
                        ProcEntry *p = value;

                        if (!p->seen) {
                                adw_expander_row_remove(ADW_EXPANDER_ROW(g->expander), p->row);
                                g_hash_table_iter_remove(&pit);
                        }
                }
                if (!g->seen) {
                        adw_preferences_group_remove(ADW_PREFERENCES_GROUP(v->group), g->expander);
                        g_hash_table_iter_remove(&it);
                }
        }
        gtk_stack_set_visible_child_name(GTK_STACK(v->stack), g_hash_table_size(v->groups) ? "applications" : "empty");
}
