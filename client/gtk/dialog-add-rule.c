/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "Add a rule for this application": a procname or commname pattern and one setting chosen from the
 * known keys (daemon/appprofile/rc-settings.c, typed there), previewed before anything is written: the
 * diff of the file and what changes for the running processes (Profiles.PreviewEdit, or AddRule's dry
 * run for the system's files). The user's own file is edited here, as the user, by the rc edit
 * transaction nvprofilectl and the daemon run (daemon/appprofile/rc-edit-transaction.h); the system's by
 * the daemon (AddRule, polkit). */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>

#include "app.h"
#include "rc-edit-transaction.h"
#include "rc-searchpath.h"
#include "rc-settings.h"

#define EDIT_FLAG_DRY_RUN G_GUINT64_CONSTANT(1)

typedef struct AddRule {
        App *app;
        GtkWindow *window;
        AdwComboRow *feature, *key, *where;
        AdwEntryRow *matches, *value;
        GtkLabel *message;
        GtkTextBuffer *diff;
        GtkLabel *changes;
        GtkWidget *preview_button, *apply_button;
        GtkWidget *content; /* insensitive while the user's file is written */
        /* The previewed edit of the user's file: written by Apply only if it is still what was read. */
        char *path;
        RcEditTransaction *edit;
        /* The previewed system edit. */
        char *pattern, *setting_key, *setting_value;
        char *names[2]; /* the process's procname and commname, by feature */
        bool system, previewed;
        bool busy; /* a call to the daemon is under way: nothing else is asked until it answers */
        bool writing; /* the user's file is being written in a thread: the window stays open */
        /* Bumped by every change of the inputs: a preview answered for older inputs previews nothing. */
        unsigned inputs, previewing;
        bool applying; /* the call under way is the system edit itself, not its dry run */
} AddRule;

static const char *const features[] = { "procname", "commname", NULL };

static void clear_edit(AddRule *a)
{
        if (!a->edit)
                return;
        rc_edit_transaction_done(a->edit);
        g_clear_pointer(&a->edit, g_free);
}

static void add_rule_free(gpointer data)
{
        AddRule *a = data;

        g_free(a->path);
        clear_edit(a);
        g_free(a->pattern);
        g_free(a->setting_key);
        g_free(a->setting_value);
        g_free(a->names[0]);
        g_free(a->names[1]);
        g_free(a);
}

static void update_buttons(AddRule *a)
{
        gtk_widget_set_sensitive(a->preview_button, !a->busy);
        gtk_widget_set_sensitive(a->apply_button, !a->busy && a->previewed);
}

static void forget_preview(AddRule *a)
{
        a->inputs++;
        a->previewed = false;
        update_buttons(a);
}

/* While the daemon (or polkit's authentication) has not answered, a second click would send the edit twice. */
static void set_busy(AddRule *a, bool busy)
{
        a->busy = busy;
        update_buttons(a);
}

static void say(AddRule *a, const char *text)
{
        gtk_label_set_text(a->message, text ? text : "");
}

static char *build_pattern(const char *feature, const char *matches)
{
        struct json_object *o = json_object_new_object();
        char *text;

        json_object_object_add(o, "feature", json_object_new_string(feature));
        json_object_object_add(o, "matches", json_object_new_string(matches));
        text = g_strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(o);
        return text;
}

static void show_changes(AddRule *a, GVariant *changes)
{
        GString *out = g_string_new(NULL);
        const char *comm, *key, *before, *after;
        guint32 pid, uid;
        GVariantIter iter;

        g_variant_iter_init(&iter, changes);
        while (g_variant_iter_next(&iter, "(uu&s&s&s&s)", &pid, &uid, &comm, &key, &before, &after))
                g_string_append_printf(out, "%s%u %s: %s = %s (%s)", out->len ? "\n" : "", pid, comm, key,
                                *after ? after : _("unset"), *before ? before : _("new"));
        if (!out->len)
                g_string_append(out, _("No running process of yours would change."));
        gtk_label_set_text(a->changes, out->str);
        g_string_free(out, TRUE);
}

static void preview_ready(AddRule *a, const char *diff, GVariant *changes)
{
        if (a->previewing != a->inputs) {
                say(a, _("The rule changed while nvprofiled was asked: preview it again."));
                return;
        }
        gtk_text_buffer_set_text(a->diff, diff, -1);
        show_changes(a, changes);
        a->previewed = true;
        update_buttons(a);
        say(a, _("Check the change below, then apply it."));
}

static void on_preview_edit(GObject *source, GAsyncResult *result, gpointer data)
{
        AddRule *a = data;
        g_autoptr(GVariant) changes = NULL;
        g_autoptr(GError) error = NULL;
        g_autofree char *diff = NULL;

        if (!nvp_profiles_call_preview_edit_finish(NVP_PROFILES(source), &changes, result, &error)) {
                g_autofree char *message = app_error_message(error);

                if (!app_error_is_cancelled(error)) {
                        set_busy(a, false);
                        say(a, message);
                }
                g_object_unref(a->window);
                return;
        }
        set_busy(a, false);
        if (a->edit && rc_edit_transaction_diff(a->edit, &diff) >= 0)
                preview_ready(a, diff, changes);
        g_object_unref(a->window);
}

static bool error_is_refusal(const GError *error)
{
        g_autofree char *name = g_dbus_error_get_remote_error(error);

        return g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED) ||
                        g_strcmp0(name, "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired") == 0;
}

/* A write refused by polkit says so, and that the file is as it was: Apply may be tried again. */
static void say_refusal(AddRule *a, const GError *error)
{
        g_autofree char *message = app_error_message(error);
        g_autofree char *text = NULL;

        if (a->applying && error_is_refusal(error))
                text = g_strdup_printf(
                                _("You are not allowed to write the system's file: %s Nothing was written."), message);
        say(a, text ? text : message);
}

static void on_system_edit(GObject *source, GAsyncResult *result, gpointer data)
{
        AddRule *a = data;
        g_autoptr(GVariant) changes = NULL;
        g_autoptr(GError) error = NULL;
        g_autofree char *rule = NULL, *diff = NULL;

        if (!nvp_profiles_call_add_rule_finish(NVP_PROFILES(source), &rule, &diff, &changes, result, &error) &&
                        app_error_is_cancelled(error)) {
                g_object_unref(a->window);
                return;
        }
        set_busy(a, false);
        if (error)
                say_refusal(a, error);
        else if (!a->applying)
                preview_ready(a, diff, changes);
        else {
                app_toast(a->app, _("The rule is written; nvprofiled has reloaded."));
                gtk_window_close(a->window);
        }
        g_object_unref(a->window);
}

/* The system's files: the daemon edits them (AddRule), a dry run first for the preview. */
static void system_add_rule(AddRule *a, guint64 flags, GDBusCallFlags call_flags)
{
        GVariantBuilder settings;
        g_autofree char *dir = NULL, *file = NULL;

        if (rc_entry_path(RC_ENTRY_SYSTEM_DIR, NULL, NULL, &dir) < 0)
                return;
        file = g_strdup_printf("%s/%s", dir, RC_EDIT_DEFAULT_FILE_NAME);
        g_variant_builder_init(&settings, G_VARIANT_TYPE("a(ss)"));
        g_variant_builder_add(&settings, "(ss)", a->setting_key, a->setting_value);
        g_object_ref(a->window);
        set_busy(a, true);
        a->previewing = a->inputs;
        a->applying = !(flags & EDIT_FLAG_DRY_RUN);
        nvp_profiles_call_add_rule(a->app->profiles, file, -1, a->pattern, "", g_variant_builder_end(&settings), flags,
                        call_flags, -1, a->app->cancellable, on_system_edit, a);
}

static void say_diagnostics(AddRule *a, const RcDiagnostics *d, int error)
{
        for (size_t i = 0; i < d->n_items; i++)
                if (d->items[i].severity == RC_SEVERITY_ERROR) {
                        g_autofree char *text =
                                        g_strdup_printf("%s:%u:%u: %s", d->items[i].path ? d->items[i].path : a->path,
                                                        d->items[i].line, d->items[i].column, d->items[i].message);

                        say(a, text);
                        return;
                }
        say(a, g_strerror(-error));
}

/* Asks the daemon what the file as the edit leaves it changes for the running processes. */
static int preview_user_files(const RcEditFile *const *files, size_t n, void *userdata)
{
        AddRule *a = userdata;

        g_assert(n == 1);
        nvp_profiles_call_preview_edit(a->app->profiles, g_get_home_dir(), files[0]->path, files[0]->new_text,
                        G_DBUS_CALL_FLAGS_NONE, -1, a->app->cancellable, on_preview_edit, a);
        return 0;
}

static void on_preview(GtkButton *button, gpointer data)
{
        AddRule *a = data;
        guint feature = adw_combo_row_get_selected(a->feature);
        GtkStringObject *key_item = adw_combo_row_get_selected_item(a->key);
        const char *matches = gtk_editable_get_text(GTK_EDITABLE(a->matches));
        const char *value = gtk_editable_get_text(GTK_EDITABLE(a->value));
        g_autofree char *assignment = NULL, *message = NULL, *key = NULL, *rc_value = NULL;
        int r;

        forget_preview(a);
        if (!*matches || feature >= G_N_ELEMENTS(features) - 1 || !key_item) {
                say(a, _("Name the application and a setting."));
                return;
        }
        assignment = g_strdup_printf("%s=%s", gtk_string_object_get_string(key_item), value);
        /* The key's type decides how the value is written (rc-settings.c); a wrong value is refused. */
        r = rc_setting_parse_assignment(assignment, &key, &rc_value, &message);
        if (r < 0) {
                say(a, message ? message : g_strerror(-r));
                return;
        }
        g_free(a->pattern);
        a->pattern = build_pattern(features[feature], matches);
        g_free(a->setting_key);
        a->setting_key = g_strdup(key);
        g_free(a->setting_value);
        a->setting_value = g_strdup(rc_value);
        a->system = adw_combo_row_get_selected(a->where) == 1;

        if (a->system) {
                say(a, _("Asking nvprofiled for a preview…"));
                system_add_rule(a, EDIT_FLAG_DRY_RUN, G_DBUS_CALL_FLAGS_NONE);
                return;
        }

        {
                RcEditSetting setting = { .key = a->setting_key, .value = a->setting_value };
                RcEditRequest req = {
                        .edit = {
                                .operation = RC_EDIT_ADD_RULE,
                                .index = SIZE_MAX,
                                .pattern = a->pattern,
                                .settings = &setting,
                                .n_settings = 1,
                        },
                };
                RcEditWriter writer = { .home = g_get_home_dir(), .root_fd = -1 };
                char *dir = NULL;

                if (rc_entry_path(RC_ENTRY_USER_DIR, g_get_home_dir(), NULL, &dir) < 0)
                        return;
                g_free(a->path);
                a->path = g_strdup_printf("%s/%s", dir, RC_EDIT_DEFAULT_FILE_NAME);
                free(dir);
                clear_edit(a);
                a->edit = g_new0(RcEditTransaction, 1);
                rc_edit_transaction_init(a->edit, &writer, NULL);
                req.path = a->path;
                r = rc_edit_transaction_prepare(a->edit, &req);
                if (r < 0 && a->edit->failed_step == RC_EDIT_STEP_READ) {
                        g_autofree char *text = g_strdup_printf(_("Cannot read %s: %s"), a->path, g_strerror(-r));

                        say(a, text);
                        return;
                }
                if (r < 0) {
                        say_diagnostics(a, &a->edit->diagnostics, r);
                        return;
                }
        }
        say(a, message ? message : _("Asking nvprofiled which processes it changes…"));
        g_object_ref(a->window);
        set_busy(a, true);
        a->previewing = a->inputs;
        (void) rc_edit_transaction_preview(a->edit, preview_user_files, a);
}

/* The user's file is written in a thread (rc_edit_transaction_commit() reads, writes and fsyncs it, which
 * can take long on a slow or network home), from the previewed transaction, which nothing else touches
 * meanwhile (the dialog is insensitive and the task holds the window, and with it the dialog's state);
 * the result comes back on the main loop. A write under way when the app quits is not interrupted (it is
 * atomic: all or nothing), but its result is no longer shown. */
static void user_write_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
        const RcEditTransaction *edit = data;

        if (g_task_return_error_if_cancelled(task))
                return;
        g_task_return_int(task, rc_edit_transaction_commit(edit, NULL));
}

static void set_writing(AddRule *a, bool writing)
{
        a->writing = writing;
        gtk_widget_set_sensitive(a->content, !writing);
}

static void on_user_written(GObject *source, GAsyncResult *result, gpointer data)
{
        AddRule *a = data;
        g_autoptr(GError) error = NULL;
        gssize r = g_task_propagate_int(G_TASK(result), &error);

        /* Cancelled: the app is quitting; the window may be going away with it. */
        if (error)
                return;
        set_writing(a, false);
        if (r == -ESTALE) {
                forget_preview(a);
                say(a, _("The file changed since the preview: nothing was written. Preview again."));
                return;
        }
        if (r < 0) {
                g_autofree char *text = g_strdup_printf(_("Cannot write %s: %s"), a->path, g_strerror((int) -r));

                say(a, text);
                return;
        }
        {
                g_autofree char *text = g_strdup_printf(_("Written to %s; nvprofiled reloads it."), a->path);

                app_toast(a->app, text);
        }
        gtk_window_close(a->window);
}

static void on_apply(GtkButton *button, gpointer data)
{
        AddRule *a = data;
        g_autoptr(GTask) task = NULL;

        if (!a->previewed || a->busy || a->writing)
                return;
        if (a->system) {
                say(a, _("Writing (an administrator's password may be asked)…"));
                system_add_rule(a, 0, G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION);
                return;
        }
        if (!a->edit)
                return;
        /* The task holds the window (its source object), and with it this dialog's state. */
        task = g_task_new(a->window, a->app->cancellable, on_user_written, a);
        g_task_set_task_data(task, a->edit, NULL);
        set_writing(a, true);
        say(a, _("Writing your file…"));
        g_task_run_in_thread(task, user_write_thread);
}

static gboolean on_close_request(GtkWindow *window, gpointer data)
{
        AddRule *a = data;

        /* Its result is shown in this window: it stays until the write is done. */
        return a->writing;
}

static void on_changed(GObject *object, GParamSpec *pspec, gpointer data)
{
        forget_preview(data);
}

static void on_feature(GObject *object, GParamSpec *pspec, gpointer data)
{
        AddRule *a = data;
        guint feature = adw_combo_row_get_selected(a->feature);
        const char *text = gtk_editable_get_text(GTK_EDITABLE(a->matches));

        /* Prefilled from a process: its procname or its commname, as the feature asks. */
        if (feature < G_N_ELEMENTS(a->names) && a->names[feature] && *a->names[feature] &&
                        (!*text || g_strcmp0(text, a->names[!feature]) == 0))
                gtk_editable_set_text(GTK_EDITABLE(a->matches), a->names[feature]);
        forget_preview(a);
}

static GtkWidget *combo_row(const char *title, GListModel *model)
{
        GtkWidget *row = adw_combo_row_new();

        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), title);
        adw_combo_row_set_model(ADW_COMBO_ROW(row), model);
        g_object_unref(model);
        return row;
}

static GListModel *known_keys(void)
{
        GtkStringList *list = gtk_string_list_new(NULL);
        size_t n;
        const RcSettingInfo *known = rc_settings_known(&n);

        /* Documented keys first (the table's order), obsolete ones left out. */
        for (size_t i = 0; i < n; i++)
                if (!known[i].replaced_by)
                        gtk_string_list_append(list, known[i].key);
        return G_LIST_MODEL(list);
}

static void on_key_selected(GObject *row, GParamSpec *pspec, gpointer data)
{
        AddRule *a = data;
        GtkStringObject *item = adw_combo_row_get_selected_item(a->key);
        const RcSettingInfo *info = item ? rc_setting_lookup(gtk_string_object_get_string(item)) : NULL;
        g_autofree char *subtitle = NULL;

        if (!info)
                return;
        subtitle = g_strdup_printf("%s (%s%s%s)", info->meaning, rc_setting_type_to_string(info->type),
                        info->variable ? ", " : "", info->variable ? info->variable : "");
        adw_action_row_set_subtitle(ADW_ACTION_ROW(a->key), subtitle);
        forget_preview(a);
}

void add_rule_dialog_show(App *app, const char *procname, const char *commname)
{
        AddRule *a = g_new0(AddRule, 1);
        GtkWidget *window = adw_window_new();
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        GtkWidget *header = adw_header_bar_new();
        GtkWidget *page = adw_preferences_page_new();
        GtkWidget *group = adw_preferences_group_new(), *preview_group = adw_preferences_group_new();
        GtkWidget *buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
        GtkWidget *diff_view = gtk_text_view_new(), *scroll = gtk_scrolled_window_new();
        g_autofree char *dir = NULL;
        g_autofree char *own = NULL;

        a->app = app;
        a->window = GTK_WINDOW(window);
        g_object_set_data_full(G_OBJECT(window), "add-rule", a, add_rule_free);
        gtk_window_set_title(a->window, _("Add a Rule"));
        gtk_window_set_transient_for(a->window, app->window);
        gtk_window_set_modal(a->window, TRUE);
        gtk_window_set_default_size(a->window, 720, 680);
        gtk_box_append(GTK_BOX(box), header);

        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(group), _("Rule"));
        a->feature = ADW_COMBO_ROW(combo_row(_("Match by"), G_LIST_MODEL(gtk_string_list_new(features))));
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), GTK_WIDGET(a->feature));
        a->matches = ADW_ENTRY_ROW(adw_entry_row_new());
        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(a->matches), _("Application"));
        a->names[0] = g_strdup(procname);
        a->names[1] = g_strdup(commname);
        gtk_editable_set_text(GTK_EDITABLE(a->matches), procname && *procname ? procname : commname);
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), GTK_WIDGET(a->matches));
        a->key = ADW_COMBO_ROW(combo_row(_("Setting"), known_keys()));
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), GTK_WIDGET(a->key));
        a->value = ADW_ENTRY_ROW(adw_entry_row_new());
        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(a->value), _("Value"));
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), GTK_WIDGET(a->value));
        if (rc_entry_path(RC_ENTRY_USER_DIR, g_get_home_dir(), NULL, &dir) >= 0)
                own = g_strdup_printf(_("Your own file (%s/%s)"), dir, RC_EDIT_DEFAULT_FILE_NAME);
        {
                const char *const where[] = { own ? own : _("Your own file"),
                        _("The system's file (/etc/nvidia; an administrator's authorisation)"), NULL };

                a->where = ADW_COMBO_ROW(combo_row(_("Write into"), G_LIST_MODEL(gtk_string_list_new(where))));
        }
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), GTK_WIDGET(a->where));
        adw_preferences_page_add(ADW_PREFERENCES_PAGE(page), ADW_PREFERENCES_GROUP(group));

        a->preview_button = app_button_new(_("_Preview"), NULL);
        a->apply_button = app_button_new(_("_Apply"), NULL);
        gtk_widget_add_css_class(a->apply_button, "suggested-action");
        gtk_widget_set_sensitive(a->apply_button, FALSE);
        gtk_box_append(GTK_BOX(buttons), a->preview_button);
        gtk_box_append(GTK_BOX(buttons), a->apply_button);
        gtk_widget_set_halign(buttons, GTK_ALIGN_END);
        adw_preferences_group_set_header_suffix(ADW_PREFERENCES_GROUP(preview_group), buttons);
        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(preview_group), _("Preview"));
        a->message = GTK_LABEL(gtk_label_new(_("Preview the rule before applying it.")));
        gtk_label_set_wrap(a->message, TRUE);
        gtk_label_set_xalign(a->message, 0);
        gtk_label_set_selectable(a->message, TRUE);
        gtk_accessible_update_property(
                        GTK_ACCESSIBLE(a->message), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, _("Status of the edit"), -1);
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(preview_group), GTK_WIDGET(a->message));
        a->changes = GTK_LABEL(gtk_label_new(""));
        gtk_label_set_xalign(a->changes, 0);
        gtk_label_set_wrap(a->changes, TRUE);
        gtk_label_set_selectable(a->changes, TRUE);
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(preview_group), GTK_WIDGET(a->changes));
        gtk_text_view_set_editable(GTK_TEXT_VIEW(diff_view), FALSE);
        gtk_text_view_set_monospace(GTK_TEXT_VIEW(diff_view), TRUE);
        gtk_accessible_update_property(
                        GTK_ACCESSIBLE(diff_view), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Difference of the file"), -1);
        a->diff = gtk_text_view_get_buffer(GTK_TEXT_VIEW(diff_view));
        gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), diff_view);
        gtk_widget_set_size_request(scroll, -1, 220);
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(preview_group), scroll);
        adw_preferences_page_add(ADW_PREFERENCES_PAGE(page), ADW_PREFERENCES_GROUP(preview_group));
        gtk_widget_set_vexpand(page, TRUE);
        gtk_box_append(GTK_BOX(box), page);
        adw_window_set_content(ADW_WINDOW(window), box);
        a->content = box;

        g_signal_connect(a->preview_button, "clicked", G_CALLBACK(on_preview), a);
        g_signal_connect(a->apply_button, "clicked", G_CALLBACK(on_apply), a);
        g_signal_connect(window, "close-request", G_CALLBACK(on_close_request), a);
        g_signal_connect(a->key, "notify::selected", G_CALLBACK(on_key_selected), a);
        g_signal_connect(a->feature, "notify::selected", G_CALLBACK(on_feature), a);
        g_signal_connect(a->where, "notify::selected", G_CALLBACK(on_changed), a);
        g_signal_connect(a->matches, "notify::text", G_CALLBACK(on_changed), a);
        g_signal_connect(a->value, "notify::text", G_CALLBACK(on_changed), a);
        on_key_selected(G_OBJECT(a->key), NULL, a);
        gtk_window_present(a->window);
}
