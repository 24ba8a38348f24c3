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
#include "system-text.h"

typedef struct ProfileDialog {
        App *app;
        GtkWindow *window;
        char *file;
        char *name; /* the profile edited; NULL: a new one */
        GtkEditable *name_entry;
        GtkWidget *settings; /* setting_list_new() */
        GtkLabel *message;
        GtkWidget *preview_button;
        SystemText text; /* a system file, as the daemon reads it */
} ProfileDialog;

static void profile_dialog_free(gpointer data)
{
        ProfileDialog *d = data;

        g_free(d->file);
        g_free(d->name);
        system_text_done(&d->text);
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

/* The profile of f, the file as it holds it now, into the dialog. */
static int fill_profile(ProfileDialog *d, const RcFile *f)
{
        for (size_t i = 0; i < f->n_profiles; i++) {
                const RcProfile *p = &f->profiles[i];

                if (!p->name || !g_str_equal(p->name, d->name))
                        continue;
                setting_list_fill(d->settings, p);
                return 0;
        }
        return -ENOENT;
}

static void say_profile_not_loaded(ProfileDialog *d, const char *why)
{
        g_autofree char *text = g_strdup_printf(_("The profile %s is not in %s any more: %s"), d->name, d->file, why);

        say(d, text);
        gtk_widget_set_sensitive(d->preview_button, FALSE);
}

static void on_system_profile_read(const GError *error, gpointer userdata)
{
        ProfileDialog *d = userdata;
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        int r;

        if (error && !app_error_is_cancelled(error)) {
                g_autofree char *message = app_error_message(error);

                say_profile_not_loaded(d, message);
        } else if (!error) {
                r = profile_edit_parse(d->file, d->text.text, d->text.size, &f);
                if (r >= 0)
                        r = fill_profile(d, f);
                if (r < 0)
                        say_profile_not_loaded(d, g_strerror(-r));
                else
                        gtk_widget_set_sensitive(d->preview_button, TRUE);
        }
        g_object_unref(d->window);
}

/* The profile, as the file holds it now: the user's own file read here, a system file through the daemon
 * (the preview waits for it). */
static void load_profile(ProfileDialog *d)
{
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        int r;

        if (profile_edit_file_is_system(d->file)) {
                const char *path = d->file;

                gtk_widget_set_sensitive(d->preview_button, FALSE);
                g_object_ref(d->window);
                system_texts_read(d->app, &path, (SystemText *const[]){ &d->text }, 1, on_system_profile_read, d);
                return;
        }
        r = profile_edit_read_file(d->file, &f);
        if (r >= 0)
                r = fill_profile(d, f);
        if (r < 0)
                say_profile_not_loaded(d, g_strerror(-r));
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
        if (!setting_list_collect(d->settings, keep, settings, unset)) {
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
                        profile_edit_close_when_written, g_object_ref(d->window));
}

void profile_dialog_show(App *app, const char *file, const char *name)
{
        ProfileDialog *d = g_new0(ProfileDialog, 1);
        GtkWidget *window = adw_window_new();
        GtkWidget *outer = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        GtkWidget *header = adw_header_bar_new();
        GtkWidget *scroll = gtk_scrolled_window_new();
        GtkWidget *body = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
        GtkWidget *preview = app_button_new(_("_Preview…"), NULL);
        g_autofree char *title = NULL, *where = NULL;
        GtkWidget *where_label;

        d->app = app;
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
        d->settings = setting_list_new(G_CALLBACK(on_changed), d);
        gtk_box_append(GTK_BOX(body), d->settings);
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

        d->preview_button = preview;
        if (name)
                load_profile(d);
        else
                setting_list_add(d->settings, NULL, NULL);

        g_signal_connect(preview, "clicked", G_CALLBACK(on_preview), d);
        gtk_window_present(d->window);
}
