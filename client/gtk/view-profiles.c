/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Profiles: the rules of the caller's configuration (the user's own files and the system's) grouped by
 * file in precedence order, the order the driver reads them (ListRules), each file's problems
 * (ListErrors) and the doctor's findings with their fixes (Doctor) at its group, the profiles with their settings
 * (ListProfiles), and the rules the user disabled (the file the driver does not read, read here as the user). A search
 * entry filters them all. */
#include "profile-edit.h"
#include "profiles-rows.h"
#include "rc-edit-transaction.h"
#include "rc-format.h"
#include "rc-model.h"

struct ProfilesView {
        App *app;
        GtkWidget *page;
        GtkWidget *search;
        GtkWidget *status; /* "Cannot list the rules", "No rules" */
        GPtrArray *groups; /* the groups of the last load, removed on the next */
        GVariant *rules, *profiles, *errors, *findings;
        char *failure;
        unsigned pending;
        bool again;
};

static void on_add(GtkButton *button, gpointer data)
{
        ProfilesView *v = data;

        add_rule_dialog_show(v->app, "", "");
}

static void filter(ProfilesView *v)
{
        const char *query = gtk_editable_get_text(GTK_EDITABLE(v->search));

        for (guint i = 0; i < v->groups->len; i++) {
                GtkWidget *group = v->groups->pdata[i];
                GPtrArray *rows = g_object_get_data(G_OBJECT(group), "rows");
                bool any = false;

                for (guint j = 0; j < rows->len; j++) {
                        bool shown = profiles_row_matches(rows->pdata[j], query);

                        gtk_widget_set_visible(rows->pdata[j], shown);
                        any = any || shown;
                }
                gtk_widget_set_visible(group, any);
        }
}

static void on_search_changed(GtkSearchEntry *entry, gpointer data)
{
        filter(data);
}

ProfilesView *profiles_view_new(App *app)
{
        ProfilesView *v = g_new0(ProfilesView, 1);
        GtkWidget *add = app_button_new(_("_Add Rule…"), NULL);
        GtkWidget *top = adw_preferences_group_new();

        v->app = app;
        v->groups = g_ptr_array_new();
        v->page = adw_preferences_page_new();
        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(top), _("Rules, in precedence order"));
        adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(top),
                        _("The first rule that sets a key wins: the files in the order the driver reads them, each "
                          "file's rules from the top. Your own files are in ~/.nv; the system's in /etc/nvidia."));
        gtk_widget_add_css_class(add, "flat");
        gtk_widget_set_tooltip_text(add, _("Add a rule to your own rc files"));
        adw_preferences_group_set_header_suffix(ADW_PREFERENCES_GROUP(top), add);
        g_signal_connect(add, "clicked", G_CALLBACK(on_add), v);
        v->search = gtk_search_entry_new();
        gtk_accessible_update_property(GTK_ACCESSIBLE(v->search), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Search rules"), -1);
        g_object_set(v->search, "placeholder-text", _("Search patterns, profiles, settings, files"), NULL);
        g_signal_connect(v->search, "search-changed", G_CALLBACK(on_search_changed), v);
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(top), v->search);
        v->status = adw_action_row_new();
        gtk_widget_set_visible(v->status, FALSE);
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(top), v->status);
        adw_preferences_page_add(ADW_PREFERENCES_PAGE(v->page), ADW_PREFERENCES_GROUP(top));
        return v;
}

GtkWidget *profiles_view_widget(ProfilesView *v)
{
        return v->page;
}

static void clear_replies(ProfilesView *v)
{
        g_clear_pointer(&v->rules, g_variant_unref);
        g_clear_pointer(&v->profiles, g_variant_unref);
        g_clear_pointer(&v->errors, g_variant_unref);
        g_clear_pointer(&v->findings, g_variant_unref);
        g_clear_pointer(&v->failure, g_free);
}

void profiles_view_free(ProfilesView *v)
{
        clear_replies(v);
        g_ptr_array_unref(v->groups);
        g_free(v);
}

static void clear_groups(ProfilesView *v)
{
        for (guint i = 0; i < v->groups->len; i++)
                adw_preferences_page_remove(ADW_PREFERENCES_PAGE(v->page), v->groups->pdata[i]);
        g_ptr_array_set_size(v->groups, 0);
}

static GtkWidget *add_group(ProfilesView *v, const char *title, const char *description)
{
        GtkWidget *group = adw_preferences_group_new();

        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(group), title);
        if (description)
                adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(group), description);
        g_object_set_data_full(G_OBJECT(group), "rows", g_ptr_array_new(), (GDestroyNotify) g_ptr_array_unref);
        adw_preferences_page_add(ADW_PREFERENCES_PAGE(v->page), ADW_PREFERENCES_GROUP(group));
        g_ptr_array_add(v->groups, group);
        return group;
}

static void group_add(GtkWidget *group, GtkWidget *row)
{
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), row);
        g_ptr_array_add(g_object_get_data(G_OBJECT(group), "rows"), row);
}

static const char *file_description(const char *file)
{
        switch (profiles_file_kind(file)) {
        case PROFILES_FILE_USER:
                return _("Your own file");
        case PROFILES_FILE_SYSTEM:
                return _("The system's file (changes need an administrator's authorisation)");
        case PROFILES_FILE_DRIVER:
                return _("The driver's file: never written; a rule in /etc/nvidia overrides it");
        }
        return NULL;
}

/* The file group for file, made (with its problems and the doctor's findings first) on first use. */
static GtkWidget *file_group(ProfilesView *v, GHashTable *groups, const char *file)
{
        GtkWidget *group = g_hash_table_lookup(groups, file);
        const char *efile, *state, *severity, *message, *fix;
        guint32 line, column;
        GVariantIter iter;

        if (group)
                return group;
        group = add_group(v, file, file_description(file));
        g_hash_table_insert(groups, g_strdup(file), group);
        if (v->errors) {
                g_variant_iter_init(&iter, v->errors);
                while (g_variant_iter_next(&iter, "(&s&s&suu&s)", &efile, &state, &severity, &line, &column, &message))
                        if (g_str_equal(efile, file))
                                group_add(group,
                                                profiles_error_row_new(v->app, efile, severity, line, column, message));
        }
        if (v->findings) {
                g_variant_iter_init(&iter, v->findings);
                while (g_variant_iter_next(&iter, "(&s&suu&s&s)", &severity, &efile, &line, &column, &message, &fix))
                        if (g_str_equal(efile, file))
                                group_add(group,
                                                profiles_finding_row_new(
                                                                v->app, efile, severity, line, column, message, fix));
        }
        return group;
}

/* name -> "key = value, ..." of the profiles, for the rules' rows and the search. */
static GHashTable *profile_settings(ProfilesView *v)
{
        GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        const char *name, *file;
        guint32 line, column;
        GVariant *settings;
        GVariantIter iter;

        if (!v->profiles)
                return h;
        g_variant_iter_init(&iter, v->profiles);
        while (g_variant_iter_next(&iter, "(&s&suu@a(sv))", &name, &file, &line, &column, &settings)) {
                if (!g_hash_table_contains(h, name))
                        g_hash_table_insert(h, g_strdup(name), profiles_settings_text(settings, ", "));
                g_variant_unref(settings);
        }
        return h;
}

static bool same_writer(const char *a, const char *b)
{
        ProfilesFileKind ka = profiles_file_kind(a), kb = profiles_file_kind(b);

        return ka == kb && ka != PROFILES_FILE_DRIVER;
}

/* The rules of ListRules, each with its index in its file and where Move up/down puts it: within the
 * file, or across the boundary into the neighbouring file of the same writer (its end, or its top). */
static GPtrArray *read_rules(ProfilesView *v)
{
        GPtrArray *rules = g_ptr_array_new_with_free_func((GDestroyNotify) profiles_rule_free);
        const char *file, *pattern, *profile, *location;
        guint32 line, column;
        GVariantIter iter;

        g_variant_iter_init(&iter, v->rules);
        while (g_variant_iter_next(&iter, "(&suu&s&s&s)", &file, &line, &column, &pattern, &profile, &location)) {
                ProfilesRule *r = g_new0(ProfilesRule, 1);
                ProfilesRule *prev = rules->len ? rules->pdata[rules->len - 1] : NULL;

                r->file = g_strdup(file);
                r->line = line;
                r->column = column;
                r->pattern = g_strdup(pattern);
                r->profile = g_strdup(profile);
                r->location = g_strdup(location);
                r->index = prev && g_str_equal(prev->file, file) ? prev->index + 1 : 0;
                g_ptr_array_add(rules, r);
        }
        for (guint i = 0; i < rules->len; i++) {
                ProfilesRule *r = rules->pdata[i];
                ProfilesRule *prev = i > 0 ? rules->pdata[i - 1] : NULL;
                ProfilesRule *next = i + 1 < rules->len ? rules->pdata[i + 1] : NULL;

                if (prev && g_str_equal(prev->file, r->file)) {
                        r->up_file = g_strdup(r->file);
                        r->up_position = r->index - 1;
                } else if (prev && same_writer(prev->file, r->file)) {
                        r->up_file = g_strdup(prev->file);
                        r->up_position = SIZE_MAX;
                }
                if (next && g_str_equal(next->file, r->file)) {
                        r->down_file = g_strdup(r->file);
                        r->down_position = r->index + 1;
                } else if (next && same_writer(next->file, r->file)) {
                        r->down_file = g_strdup(next->file);
                        r->down_position = 0;
                }
        }
        return rules;
}

/* The rules of the disabled file, read as the user (it is the user's own). */
static void show_disabled(ProfilesView *v)
{
        g_autofree char *path = profiles_disabled_file();
        RcEditWriter writer = { .home = g_get_home_dir(), .root_fd = -1 };
        _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { { 0 } };
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        GtkWidget *group;

        rc_edit_transaction_init(&t, &writer, NULL);
        if (rc_edit_transaction_open(&t, path) < 0 || !t.source.text ||
                        rc_file_parse(path, t.source.text, t.source.size, NULL, &f) < 0 || f->n_rules == 0)
                return;
        group = add_group(v, _("Disabled rules"),
                        _("Kept in a file the driver does not read, until you enable them again."));
        for (size_t i = 0; i < f->n_rules; i++) {
                const RcRule *rule = &f->rules[i];
                ProfilesRule *r = g_new0(ProfilesRule, 1);

                r->file = g_strdup(path);
                r->line = rule->location.line;
                r->column = rule->location.column;
                r->index = i;
                if (rc_pattern_format(&rule->pattern, &r->pattern) < 0)
                        r->pattern = g_strdup("?");
                r->profile = g_strdup(rule->profile_name ? rule->profile_name : _("(inline profile)"));
                r->location = g_strdup("");
                group_add(group, profiles_disabled_row_new(v->app, r));
        }
}

static void show_profiles(ProfilesView *v)
{
        const char *name, *file;
        guint32 line, column;
        GVariant *settings;
        GVariantIter iter;
        GtkWidget *group;

        if (!v->profiles || !g_variant_n_children(v->profiles))
                return;
        group = add_group(v, _("Profiles"), _("The settings each profile sets, where it is defined."));
        g_variant_iter_init(&iter, v->profiles);
        while (g_variant_iter_next(&iter, "(&s&suu@a(sv))", &name, &file, &line, &column, &settings)) {
                group_add(group, profiles_profile_row_new(v->app, name, file, line, column, settings));
                g_variant_unref(settings);
        }
}

static void show(ProfilesView *v)
{
        g_autoptr(GHashTable) groups = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        g_autoptr(GHashTable) settings = NULL;
        g_autoptr(GPtrArray) rules = NULL;
        const char *file, *state, *severity, *message;
        guint32 line, column;
        GVariantIter iter;

        clear_groups(v);
        gtk_widget_set_visible(v->status, FALSE);
        if (!v->rules) {
                adw_preferences_row_set_title(ADW_PREFERENCES_ROW(v->status), _("Cannot list the rules"));
                adw_action_row_set_subtitle(ADW_ACTION_ROW(v->status), v->failure ? v->failure : "");
                gtk_widget_set_visible(v->status, TRUE);
                return;
        }
        settings = profile_settings(v);
        rules = read_rules(v);
        for (guint i = 0; i < rules->len; i++) {
                ProfilesRule *r = g_steal_pointer(&rules->pdata[i]);

                group_add(file_group(v, groups, r->file),
                                profiles_rule_row_new(v->app, r, g_hash_table_lookup(settings, r->profile)));
        }
        /* Files with problems or findings and no rules (a broken file contributes none): after those with
         * rules. */
        if (v->errors) {
                g_variant_iter_init(&iter, v->errors);
                while (g_variant_iter_next(&iter, "(&s&s&suu&s)", &file, &state, &severity, &line, &column, &message))
                        (void) file_group(v, groups, file);
        }
        if (v->findings) {
                g_variant_iter_init(&iter, v->findings);
                while (g_variant_iter_next(&iter, "(&s&suu&s&s)", &severity, &file, &line, &column, &message, NULL))
                        (void) file_group(v, groups, file);
        }
        if (!rules->len) {
                adw_preferences_row_set_title(ADW_PREFERENCES_ROW(v->status), _("No rules"));
                adw_action_row_set_subtitle(ADW_ACTION_ROW(v->status), "");
                gtk_widget_set_visible(v->status, TRUE);
        }
        show_disabled(v);
        show_profiles(v);
        filter(v);
}

static void reply_done(ProfilesView *v)
{
        if (--v->pending > 0)
                return;
        show(v);
        if (v->again) {
                v->again = false;
                profiles_view_reload(v);
        }
}

static void on_rules(GObject *source, GAsyncResult *result, gpointer data)
{
        ProfilesView *v = data;
        g_autoptr(GError) error = NULL;

        if (!nvp_manager_call_list_rules_finish(NVP_MANAGER(source), &v->rules, result, &error)) {
                if (app_error_is_cancelled(error))
                        return;
                v->failure = app_error_message(error);
        }
        reply_done(v);
}

static void on_profiles(GObject *source, GAsyncResult *result, gpointer data)
{
        ProfilesView *v = data;
        g_autoptr(GError) error = NULL;

        /* Without them the rules are still shown, with less to search. */
        if (!nvp_manager_call_list_profiles_finish(NVP_MANAGER(source), &v->profiles, result, &error) &&
                        app_error_is_cancelled(error))
                return;
        reply_done(v);
}

static void on_errors(GObject *source, GAsyncResult *result, gpointer data)
{
        ProfilesView *v = data;
        g_autoptr(GError) error = NULL;

        if (!nvp_manager_call_list_errors_finish(NVP_MANAGER(source), &v->errors, result, &error) &&
                        app_error_is_cancelled(error))
                return;
        reply_done(v);
}

static void on_findings(GObject *source, GAsyncResult *result, gpointer data)
{
        ProfilesView *v = data;
        g_autoptr(GError) error = NULL;
        gboolean complete;
        guint dropped;

        /* Without them (an older daemon) the page is what it was. */
        if (!nvp_manager_call_doctor_finish(NVP_MANAGER(source), &v->findings, &dropped, &complete, result, &error) &&
                        app_error_is_cancelled(error))
                return;
        reply_done(v);
}

void profiles_view_reload(ProfilesView *v)
{
        const char *home = g_get_home_dir();

        if (!v->app->manager)
                return;
        if (v->pending) {
                v->again = true;
                return;
        }
        clear_replies(v);
        v->pending = 4;
        nvp_manager_call_list_rules(
                        v->app->manager, home, G_DBUS_CALL_FLAGS_NONE, -1, v->app->cancellable, on_rules, v);
        nvp_manager_call_list_profiles(
                        v->app->manager, home, G_DBUS_CALL_FLAGS_NONE, -1, v->app->cancellable, on_profiles, v);
        nvp_manager_call_list_errors(v->app->manager, G_DBUS_CALL_FLAGS_NONE, -1, v->app->cancellable, on_errors, v);
        nvp_manager_call_doctor(
                        v->app->manager, "user", home, G_DBUS_CALL_FLAGS_NONE, -1, v->app->cancellable, on_findings, v);
}
