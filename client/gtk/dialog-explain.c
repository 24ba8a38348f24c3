/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A process's explanation (Manager.ExplainProcess): first what took effect (each effective setting with
 * the rule that set it, what it shadowed and the __GL_* variable that overrides it) and the rules that
 * matched, with their file:line:column; the rules that did not match hidden until asked for; the daemon's
 * notes. */
#include "app.h"
#include "bus-signatures.h"

typedef struct ExplainCall {
        GtkWindow *window;
        GtkWidget *page;
        GtkWidget *spinner;
} ExplainCall;

static GtkWidget *add_group(GtkWidget *page, const char *title)
{
        GtkWidget *group = adw_preferences_group_new();

        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(group), title);
        adw_preferences_page_add(ADW_PREFERENCES_PAGE(page), ADW_PREFERENCES_GROUP(group));
        return group;
}

static GtkWidget *add_rule_row(GtkWidget *group, const char *file, guint32 line, guint32 column, const char *pattern,
                const char *profile)
{
        g_autofree char *title = g_strdup_printf("%s:%u:%u", file, line, column);
        g_autofree char *subtitle = g_strdup_printf("%s → %s", pattern, *profile ? profile : _("(no such profile)"));

        return app_add_text_row(group, title, subtitle);
}

static void on_show_unmatched(GtkToggleButton *button, gpointer data)
{
        GPtrArray *rows = data;

        for (guint i = 0; i < rows->len; i++)
                gtk_widget_set_visible(rows->pdata[i], gtk_toggle_button_get_active(button));
}

/* The rules that matched, in precedence order; those that did not, one click away (hidden until "Show"):
 * a process is matched by a few of the hundred or more rules a system has. */
static void show_rules(GtkWidget *page, GVariant *rules)
{
        GtkWidget *group = add_group(page, _("Rules that matched, in precedence order"));
        GtkWidget *unmatched = add_group(page, _("Rules that did not match"));
        GtkWidget *show = gtk_toggle_button_new_with_mnemonic(_("_Show"));
        GPtrArray *hidden = g_ptr_array_new();
        const char *file, *pattern, *profile;
        guint32 line, column;
        gboolean matched;
        GVariantIter iter;
        g_autofree char *description = NULL;

        /* BUS_RULE_RESULT_FIELDS, the strings borrowed (&). */
        g_variant_iter_init(&iter, rules);
        while (g_variant_iter_next(&iter, "(&suu&s&sb)", &file, &line, &column, &pattern, &profile, &matched)) {
                GtkWidget *row = add_rule_row(matched ? group : unmatched, file, line, column, pattern, profile);

                if (!matched) {
                        gtk_widget_set_visible(row, FALSE);
                        g_ptr_array_add(hidden, row);
                }
        }
        if (hidden->len == g_variant_n_children(rules))
                app_add_text_row(group, _("No rule matched"), NULL);
        description = g_strdup_printf(
                        ngettext("%u rule did not match", "%u rules did not match", hidden->len), hidden->len);
        adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(unmatched), description);
        gtk_accessible_update_property(GTK_ACCESSIBLE(show), GTK_ACCESSIBLE_PROPERTY_LABEL,
                        _("Show the rules that did not match"), -1);
        gtk_accessible_reset_relation(GTK_ACCESSIBLE(show), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
        gtk_widget_set_valign(show, GTK_ALIGN_CENTER);
        gtk_widget_set_sensitive(show, hidden->len > 0);
        g_signal_connect_data(show, "toggled", G_CALLBACK(on_show_unmatched), hidden,
                        (GClosureNotify) (void (*)(void)) g_ptr_array_unref, 0);
        adw_preferences_group_set_header_suffix(ADW_PREFERENCES_GROUP(unmatched), show);
}

static void show_settings(GtkWidget *page, GVariant *settings)
{
        GtkWidget *group = add_group(page, _("Effective settings"));
        const char *key, *profile, *file, *env_variable, *env_value;
        guint32 line, column;
        GVariantIter iter;
        GVariant *value, *shadowed;
        bool any = false;

        /* BUS_SETTING_FIELDS and BUS_SHADOWED_FIELDS, the strings borrowed (&). */
        g_variant_iter_init(&iter, settings);
        while (g_variant_iter_next(&iter, "(&sv&s&suu&s&s@a(vssuu))", &key, &value, &profile, &file, &line, &column,
                        &env_variable, &env_value, &shadowed)) {
                g_autofree char *v = g_variant_print(value, FALSE);
                g_autofree char *title = g_strdup_printf("%s = %s", key, v);
                GString *sub = g_string_new(NULL);
                GVariantIter shadows;
                GVariant *sv;
                const char *sprofile, *sfile;
                guint32 sline, scolumn;

                g_string_append_printf(sub, _("from profile “%s”, rule %s:%u:%u"), profile, file, line, column);
                g_variant_iter_init(&shadows, shadowed);
                while (g_variant_iter_next(&shadows, "(v&s&suu)", &sv, &sprofile, &sfile, &sline, &scolumn)) {
                        g_autofree char *svalue = g_variant_print(sv, FALSE);

                        g_string_append_c(sub, '\n');
                        g_string_append_printf(sub, _("shadows %s from “%s” at %s:%u:%u"), svalue, sprofile, sfile,
                                        sline, scolumn);
                        g_variant_unref(sv);
                }
                if (*env_variable && *env_value) {
                        g_string_append_c(sub, '\n');
                        g_string_append_printf(sub, _("overridden by the environment: %s=%s"), env_variable, env_value);
                } else if (*env_variable) {
                        g_string_append_c(sub, '\n');
                        g_string_append_printf(sub, _("%s would override it (not set)"), env_variable);
                }
                app_add_text_row(group, title, sub->str);
                g_string_free(sub, TRUE);
                g_variant_unref(value);
                g_variant_unref(shadowed);
                any = true;
        }
        if (!any)
                app_add_text_row(group, _("No settings apply"), NULL);
}

static void on_explained(GObject *source, GAsyncResult *result, gpointer data)
{
        ExplainCall *call = data;
        g_autoptr(GVariant) resolution = NULL;
        g_autoptr(GError) error = NULL;

        if (!nvp_manager_call_explain_process_finish(NVP_MANAGER(source), &resolution, result, &error)) {
                if (!app_error_is_cancelled(error)) {
                        g_autofree char *message = app_error_message(error);

                        app_add_text_row(add_group(call->page, _("Cannot explain this process")), message, NULL);
                }
        } else if (!g_variant_is_of_type(resolution, G_VARIANT_TYPE(BUS_RESOLUTION_SIGNATURE))) {
                /* A daemon of another version: said, not half shown. */
                app_add_text_row(add_group(call->page, _("Cannot explain this process")),
                                _("The daemon answered in a form this app does not know."), NULL);
        } else {
                g_autoptr(GVariant) facts = NULL, rules = NULL, settings = NULL, notes = NULL;
                const char *state, *procname = NULL, *commname = NULL;
                GtkWidget *group = add_group(call->page, _("Process"));
                g_autofree const char **note_list = NULL;

                g_variant_get(resolution, "(&s@a{sv}@a(" BUS_RULE_RESULT_FIELDS ")@a(" BUS_SETTING_FIELDS ")@as)",
                                &state, &facts, &rules, &settings, &notes);
                app_add_text_row(group, _("Profiles"), state);
                if (g_variant_lookup(facts, "procname", "&s", &procname))
                        app_add_text_row(group, _("procname"), procname);
                if (g_variant_lookup(facts, "commname", "&s", &commname))
                        app_add_text_row(group, _("commname"), commname);
                show_settings(call->page, settings);
                show_rules(call->page, rules);
                note_list = g_variant_get_strv(notes, NULL);
                if (note_list[0]) {
                        GtkWidget *notes_group = add_group(call->page, _("Notes"));

                        for (size_t i = 0; note_list[i]; i++)
                                app_add_text_row(notes_group, note_list[i], NULL);
                }
        }
        gtk_widget_set_visible(call->spinner, FALSE);
        g_object_unref(call->spinner);
        g_object_unref(call->page);
        g_object_unref(call->window);
        g_free(call);
}

void explain_dialog_show(App *app, guint32 pid, guint64 start_time, const char *comm)
{
        GtkWidget *window = adw_window_new();
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        GtkWidget *header = adw_header_bar_new();
        g_autofree char *title = g_strdup_printf(_("Explanation of %s (%u)"), comm, pid);
        ExplainCall *call = g_new0(ExplainCall, 1);

        gtk_window_set_title(GTK_WINDOW(window), title);
        gtk_window_set_transient_for(GTK_WINDOW(window), app->window);
        gtk_window_set_default_size(GTK_WINDOW(window), 720, 600);
        gtk_box_append(GTK_BOX(box), header);
        call->spinner = gtk_spinner_new();
        gtk_spinner_start(GTK_SPINNER(call->spinner));
        adw_header_bar_pack_start(ADW_HEADER_BAR(header), call->spinner);
        call->page = adw_preferences_page_new();
        gtk_widget_set_vexpand(call->page, TRUE);
        gtk_box_append(GTK_BOX(box), call->page);
        adw_window_set_content(ADW_WINDOW(window), box);
        /* Held until the reply: the window may be closed before. */
        call->window = g_object_ref(GTK_WINDOW(window));
        g_object_ref(call->page);
        g_object_ref(call->spinner);
        gtk_window_present(GTK_WINDOW(window));
        nvp_manager_call_explain_process(app->manager, pid, start_time, G_DBUS_CALL_FLAGS_NONE, -1, app->cancellable,
                        on_explained, call);
}
