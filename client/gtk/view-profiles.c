/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Profiles: the rules of the caller's configuration (the system's files and the user's own) in
 * precedence order, with the file:line:column of each and of the profile it refers to. */
#include "app.h"

struct ProfilesView {
        App *app;
        GtkWidget *page;
        GtkWidget *group;
        GPtrArray *rows;
        bool loading, again;
};

static void on_add(GtkButton *button, gpointer data)
{
        ProfilesView *v = data;

        add_rule_dialog_show(v->app, "", "");
}

ProfilesView *profiles_view_new(App *app)
{
        ProfilesView *v = g_new0(ProfilesView, 1);
        GtkWidget *add = app_button_new(_("_Add Rule…"), NULL);

        v->app = app;
        v->rows = g_ptr_array_new();
        v->page = adw_preferences_page_new();
        v->group = adw_preferences_group_new();
        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(v->group), _("Rules, in precedence order"));
        adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(v->group),
                        _("The first rule that sets a key wins. Your own files are in ~/.nv; the system's in "
                          "/etc/nvidia."));
        gtk_widget_add_css_class(add, "flat");
        gtk_widget_set_tooltip_text(add, _("Add a rule to your own rc files"));
        adw_preferences_group_set_header_suffix(ADW_PREFERENCES_GROUP(v->group), add);
        g_signal_connect(add, "clicked", G_CALLBACK(on_add), v);
        adw_preferences_page_add(ADW_PREFERENCES_PAGE(v->page), ADW_PREFERENCES_GROUP(v->group));
        return v;
}

GtkWidget *profiles_view_widget(ProfilesView *v)
{
        return v->page;
}

void profiles_view_free(ProfilesView *v)
{
        g_ptr_array_unref(v->rows);
        g_free(v);
}

static void clear_rows(ProfilesView *v)
{
        for (guint i = 0; i < v->rows->len; i++)
                adw_preferences_group_remove(ADW_PREFERENCES_GROUP(v->group), v->rows->pdata[i]);
        g_ptr_array_set_size(v->rows, 0);
}

static void add_row(ProfilesView *v, const char *title, const char *subtitle)
{
        g_ptr_array_add(v->rows, app_add_text_row(v->group, title, subtitle));
}

static void on_rules(GObject *source, GAsyncResult *result, gpointer data)
{
        ProfilesView *v = data;
        g_autoptr(GVariant) rules = NULL;
        g_autoptr(GError) error = NULL;
        const char *file, *pattern, *profile, *location;
        guint32 line, column;
        GVariantIter iter;

        if (!nvp_manager_call_list_rules_finish(NVP_MANAGER(source), &rules, result, &error) &&
                        app_error_is_cancelled(error))
                return;
        v->loading = false;
        clear_rows(v);
        if (!rules) {
                g_autofree char *message = app_error_message(error);

                add_row(v, _("Cannot list the rules"), message);
        } else {
                g_variant_iter_init(&iter, rules);
                while (g_variant_iter_next(
                                &iter, "(&suu&s&s&s)", &file, &line, &column, &pattern, &profile, &location)) {
                        g_autofree char *title = g_strdup_printf("%s → %s", pattern, *profile ? profile : "?");
                        g_autofree char *subtitle = g_strdup_printf(_("%s:%u:%u; profile at %s"), file, line, column,
                                        *location ? location : _("nowhere"));

                        add_row(v, title, subtitle);
                }
                if (!v->rows->len)
                        add_row(v, _("No rules"), NULL);
        }
        if (v->again) {
                v->again = false;
                profiles_view_reload(v);
        }
}

void profiles_view_reload(ProfilesView *v)
{
        if (!v->app->manager)
                return;
        if (v->loading) {
                v->again = true;
                return;
        }
        v->loading = true;
        nvp_manager_call_list_rules(v->app->manager, g_get_home_dir(), G_DBUS_CALL_FLAGS_NONE, -1, v->app->cancellable,
                        on_rules, v);
}
