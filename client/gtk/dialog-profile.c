/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A profile of a file, added or its settings edited (typed editors, setting-row.h), through
 * profile_edit_run_full(): previewed, written, undoable. Removing a profile is RC_EDIT_REMOVE_PROFILE
 * through the same flow, from the profiles list. */
#include <json-c/json.h>
#include <stdint.h>

#include "profile-edit.h"
#include "rc-edit-transaction.h"
#include "rc-searchpath.h"
#include "setting-row.h"

typedef struct ProfileDialog {
        App *app;
        GtkWindow *window;
        char *file;
        char *name; /* the profile edited; NULL: a new one */
        GtkEditable *name_entry;
        GtkWidget *settings;
        GPtrArray *setting_rows;
        char **original_keys;
        GtkLabel *message;
} ProfileDialog;

static void profile_dialog_free(gpointer data)
{
        ProfileDialog *d = data;

        g_free(d->file);
        g_free(d->name);
        g_ptr_array_unref(d->setting_rows);
        g_strfreev(d->original_keys);
        g_free(d);
}

static void say(ProfileDialog *d, const char *text)
{
        gtk_label_set_text(d->message, text ? text : "");
}

static void on_changed(gpointer data)
{
        say(data, "");
}

static void add_setting_row(ProfileDialog *d, const char *key, const char *value)
{
        GtkWidget *row = setting_row_new(key, value, G_CALLBACK(on_changed), d);

        gtk_box_append(GTK_BOX(d->settings), row);
        g_ptr_array_add(d->setting_rows, row);
}

static void on_add_setting(GtkButton *button, gpointer data)
{
        add_setting_row(data, NULL, NULL);
}

static void on_remove_setting(GtkButton *button, gpointer data)
{
        ProfileDialog *d = data;

        if (d->setting_rows->len > 0)
                gtk_box_remove(GTK_BOX(d->settings),
                                g_ptr_array_steal_index(d->setting_rows, d->setting_rows->len - 1));
}

static int load_profile(ProfileDialog *d)
{
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        g_autofree char *text = NULL;
        gsize size = 0;
        int r;

        if (!g_file_get_contents(d->file, &text, &size, NULL))
                return -ENOENT;
        r = rc_file_parse(d->file, text, size, NULL, &f);
        if (r < 0)
                return r;
        if (f->state != RC_FILE_LOADED)
                return -EBADMSG;
        for (size_t i = 0; i < f->n_profiles; i++) {
                const RcProfile *p = &f->profiles[i];
                GPtrArray *keys;

                if (!p->name || !g_str_equal(p->name, d->name))
                        continue;
                keys = g_ptr_array_new();
                for (size_t j = 0; j < p->n_settings; j++) {
                        g_autofree char *value = setting_value_text(&p->settings[j].value);

                        add_setting_row(d, p->settings[j].key, value);
                        g_ptr_array_add(keys, g_strdup(p->settings[j].key));
                }
                g_ptr_array_add(keys, NULL);
                d->original_keys = (char **) g_ptr_array_free(keys, FALSE);
                return 0;
        }
        return -ENOENT;
}

static void on_edit_done(bool written, gpointer data)
{
        GtkWindow *window = data;

        if (written)
                gtk_window_close(window);
        g_object_unref(window);
}

static void on_preview(GtkButton *button, gpointer data)
{
        ProfileDialog *d = data;
        g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GArray) settings = g_array_new(FALSE, TRUE, sizeof(RcEditSetting));
        g_autoptr(GPtrArray) unset = g_ptr_array_new();
        const char *name = d->name ? d->name : gtk_editable_get_text(d->name_entry);
        g_autofree char *what = NULL;
        RcEdit edit = { .operation = d->name ? RC_EDIT_UPDATE_PROFILE : RC_EDIT_ADD_PROFILE, .profile = name };

        if (!*name) {
                say(d, _("Name the profile."));
                return;
        }
        if (!setting_rows_collect(d->setting_rows, d->original_keys, keep, settings, unset)) {
                say(d, _("A setting is not valid: its row says why."));
                return;
        }
        edit.settings = (const RcEditSetting *) (void *) settings->data;
        edit.n_settings = settings->len;
        edit.unset = (char *const *) unset->pdata;
        edit.n_unset = unset->len;
        what = d->name ? g_strdup_printf(_("Change the profile %s"), name)
                       : g_strdup_printf(_("Add the profile %s"), name);
        profile_edit_run_full(d->app, d->window, d->file, profile_edit_file_is_system(d->file), &edit, what,
                        on_edit_done, g_object_ref(d->window));
}

void profile_dialog_show(App *app, const char *file, const char *name)
{
        ProfileDialog *d = g_new0(ProfileDialog, 1);
        GtkWidget *window = adw_window_new();
        GtkWidget *outer = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        GtkWidget *header = adw_header_bar_new();
        GtkWidget *scroll = gtk_scrolled_window_new();
        GtkWidget *body = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
        GtkWidget *buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
        GtkWidget *add_setting = app_button_new(_("Add _Setting"), NULL);
        GtkWidget *remove_setting = app_button_new(_("_Remove Last Setting"), NULL);
        GtkWidget *preview = app_button_new(_("_Preview…"), NULL);
        g_autofree char *title = NULL, *where = NULL;
        GtkWidget *where_label;

        d->app = app;
        d->setting_rows = g_ptr_array_new();
        d->name = g_strdup(name);
        d->file = file ? g_strdup(file) : profile_edit_default_file();
        d->window = GTK_WINDOW(window);
        g_object_set_data_full(G_OBJECT(window), "profile-dialog", d, profile_dialog_free);
        title = name ? g_strdup_printf(_("Edit Profile %s"), name) : g_strdup(_("Add a Profile"));
        gtk_window_set_title(d->window, title);
        gtk_window_set_transient_for(d->window, app->window);
        gtk_window_set_modal(d->window, TRUE);
        gtk_window_set_default_size(d->window, 720, 560);
        gtk_widget_add_css_class(preview, "suggested-action");
        adw_header_bar_pack_end(ADW_HEADER_BAR(header), preview);
        gtk_box_append(GTK_BOX(outer), header);

        gtk_widget_set_margin_start(body, 12);
        gtk_widget_set_margin_end(body, 12);
        gtk_widget_set_margin_top(body, 12);
        gtk_widget_set_margin_bottom(body, 12);
        where = g_strdup_printf(_("In %s"), d->file);
        where_label = gtk_label_new(where);
        gtk_label_set_xalign(GTK_LABEL(where_label), 0);
        gtk_label_set_selectable(GTK_LABEL(where_label), TRUE);
        gtk_box_append(GTK_BOX(body), where_label);
        d->name_entry = GTK_EDITABLE(gtk_entry_new());
        gtk_accessible_update_property(
                        GTK_ACCESSIBLE(d->name_entry), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Profile name"), -1);
        gtk_editable_set_text(d->name_entry, name ? name : "");
        gtk_editable_set_editable(d->name_entry, name == NULL);
        gtk_box_append(GTK_BOX(body), GTK_WIDGET(d->name_entry));
        d->settings = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
        gtk_box_append(GTK_BOX(body), d->settings);
        gtk_box_append(GTK_BOX(buttons), add_setting);
        gtk_box_append(GTK_BOX(buttons), remove_setting);
        gtk_box_append(GTK_BOX(body), buttons);
        d->message = GTK_LABEL(gtk_label_new(""));
        gtk_label_set_wrap(d->message, TRUE);
        gtk_label_set_xalign(d->message, 0);
        gtk_accessible_update_property(GTK_ACCESSIBLE(d->message), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                        _("Status of the profile"), -1);
        gtk_box_append(GTK_BOX(body), GTK_WIDGET(d->message));
        gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), body);
        gtk_widget_set_vexpand(scroll, TRUE);
        gtk_box_append(GTK_BOX(outer), scroll);
        adw_window_set_content(ADW_WINDOW(window), outer);

        if (name) {
                int r = load_profile(d);

                if (r < 0) {
                        g_autofree char *text = g_strdup_printf(
                                        _("The profile %s is not in %s any more: %s"), name, d->file, g_strerror(-r));

                        say(d, text);
                        gtk_widget_set_sensitive(preview, FALSE);
                }
        } else
                add_setting_row(d, NULL, NULL);

        g_signal_connect(add_setting, "clicked", G_CALLBACK(on_add_setting), d);
        g_signal_connect(remove_setting, "clicked", G_CALLBACK(on_remove_setting), d);
        g_signal_connect(preview, "clicked", G_CALLBACK(on_preview), d);
        gtk_window_present(d->window);
}
