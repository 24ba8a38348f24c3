/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rows of the Profiles page and what their buttons do. Every change is an RcEdit (or a move) handed
 * to profile_edit_run() (profile-edit.h), which previews it, writes it and offers Undo. */
#include "profile-edit.h"
#include "profiles-rows.h"
#include "rc-edit-transaction.h"

#define SEARCH_TEXT_KEY "profiles-search-text"

ProfilesFileKind profiles_file_kind(const char *file)
{
        if (g_str_has_prefix(file, "/usr/share/nvidia/"))
                return PROFILES_FILE_DRIVER;
        return profile_edit_file_is_system(file) ? PROFILES_FILE_SYSTEM : PROFILES_FILE_USER;
}

void profiles_rule_free(ProfilesRule *r)
{
        if (!r)
                return;
        g_free(r->file);
        g_free(r->pattern);
        g_free(r->profile);
        g_free(r->location);
        g_free(r->up_file);
        g_free(r->down_file);
        g_free(r);
}

char *profiles_disabled_file(void)
{
        /* Next to the user's rc file and rc.d, but no entry of the driver's search path: the driver reads
         * ~/.nv/nvidia-application-profiles-rc and every file in ...-rc.d (dotfiles and backups too, not
         * subdirectories), never this one. */
        return g_build_filename(g_get_home_dir(), ".nv", "nvidia-application-profiles-rc.disabled", NULL);
}

static void set_search_text(GtkWidget *row, char *text)
{
        char *folded = g_utf8_casefold(text, -1);

        g_free(text);
        g_object_set_data_full(G_OBJECT(row), SEARCH_TEXT_KEY, folded, g_free);
}

bool profiles_row_matches(GtkWidget *row, const char *query)
{
        const char *text = g_object_get_data(G_OBJECT(row), SEARCH_TEXT_KEY);
        g_autofree char *folded = g_utf8_casefold(query, -1);
        g_auto(GStrv) words = g_strsplit_set(folded, " \t", -1);

        for (size_t i = 0; words[i]; i++)
                if (*words[i] && (!text || !strstr(text, words[i])))
                        return false;
        return true;
}

char *profiles_settings_text(GVariant *settings, const char *separator)
{
        GString *s = g_string_new(NULL);
        GVariantIter iter;
        const char *key;
        GVariant *value;

        g_variant_iter_init(&iter, settings);
        while (g_variant_iter_next(&iter, "(&sv)", &key, &value)) {
                g_autofree char *v = g_variant_print(value, FALSE);

                if (s->len)
                        g_string_append(s, separator);
                g_string_append_printf(s, "%s = %s", key, v);
                g_variant_unref(value);
        }
        return g_string_free(s, FALSE);
}

/* An icon button named name (its only accessible name), calling cb with data. */
static GtkWidget *action_button(GtkWidget *row, const char *icon, const char *name, GCallback cb, gpointer data)
{
        GtkWidget *b = gtk_button_new_from_icon_name(icon);

        gtk_widget_add_css_class(b, "flat");
        gtk_widget_set_valign(b, GTK_ALIGN_CENTER);
        gtk_widget_set_tooltip_text(b, name);
        gtk_accessible_update_property(GTK_ACCESSIBLE(b), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
        g_signal_connect(b, "clicked", cb, data);
        if (ADW_IS_EXPANDER_ROW(row))
                adw_expander_row_add_action(ADW_EXPANDER_ROW(row), b);
        else
                adw_action_row_add_suffix(ADW_ACTION_ROW(row), b);
        return b;
}

static App *row_app(GtkWidget *button)
{
        return g_object_get_data(G_OBJECT(button), "app");
}

static char *rule_name(const ProfilesRule *r)
{
        return g_strdup_printf("%s:%u:%u", r->file, r->line, r->column);
}

static void on_rule_edit(GtkButton *button, gpointer data)
{
        ProfilesRule *r = data;
        g_autofree char *line = g_strdup_printf("%u", r->line);

        rule_dialog_show(row_app(GTK_WIDGET(button)), r->file, line, NULL, NULL);
}

static void on_rule_remove(GtkButton *button, gpointer data)
{
        ProfilesRule *r = data;
        RcEdit edit = { .operation = RC_EDIT_REMOVE_RULE, .index = r->index };
        g_autofree char *what = g_strdup_printf(_("Remove the rule %s → %s"), r->pattern, r->profile);

        profile_edit_run(row_app(GTK_WIDGET(button)), r->file, profiles_file_kind(r->file) == PROFILES_FILE_SYSTEM,
                        &edit, what);
}

static void move_to(GtkWidget *button, const ProfilesRule *r, const char *file, size_t position, const char *what)
{
        bool system = profiles_file_kind(r->file) == PROFILES_FILE_SYSTEM;

        profile_edit_move(row_app(button), r->file, system, r->index, g_str_equal(file, r->file) ? NULL : file,
                        position, what);
}

static void on_rule_up(GtkButton *button, gpointer data)
{
        ProfilesRule *r = data;
        g_autofree char *what = g_strdup_printf(_("Move the rule %s → %s up"), r->pattern, r->profile);

        move_to(GTK_WIDGET(button), r, r->up_file, r->up_position, what);
}

static void on_rule_down(GtkButton *button, gpointer data)
{
        ProfilesRule *r = data;
        g_autofree char *what = g_strdup_printf(_("Move the rule %s → %s down"), r->pattern, r->profile);

        move_to(GTK_WIDGET(button), r, r->down_file, r->down_position, what);
}

static void on_rule_disable(GtkButton *button, gpointer data)
{
        ProfilesRule *r = data;
        g_autofree char *disabled = profiles_disabled_file();
        g_autofree char *what = g_strdup_printf(_("Disable the rule %s → %s"), r->pattern, r->profile);

        move_to(GTK_WIDGET(button), r, disabled, SIZE_MAX, what);
}

static void on_rule_enable(GtkButton *button, gpointer data)
{
        ProfilesRule *r = data;
        g_autofree char *enabled = profile_edit_default_file();
        g_autofree char *what = g_strdup_printf(_("Enable the rule %s → %s"), r->pattern, r->profile);

        /* First in the file: the precedence a rule of the user's rc.d file has, over the system's. */
        move_to(GTK_WIDGET(button), r, enabled, 0, what);
}

/* name: the button's accessible name, freed here. */
static GtkWidget *rule_button(App *app, GtkWidget *row, ProfilesRule *r, const char *icon, char *name, GCallback cb)
{
        GtkWidget *b = action_button(row, icon, name, cb, r);

        g_object_set_data(G_OBJECT(b), "app", app);
        g_free(name);
        return b;
}

static GtkWidget *rule_row(ProfilesRule *r, const char *settings)
{
        GtkWidget *row = adw_action_row_new();
        g_autofree char *title = g_strdup_printf("%s → %s", r->pattern, *r->profile ? r->profile : "?");
        g_autofree char *where = rule_name(r);
        g_autofree char *subtitle = NULL;

        if (settings && *settings)
                subtitle = g_strdup_printf(
                                _("%s; profile at %s\n%s"), where, *r->location ? r->location : _("nowhere"), settings);
        else
                subtitle = g_strdup_printf(_("%s; profile at %s"), where, *r->location ? r->location : _("nowhere"));
        adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), title);
        adw_action_row_set_subtitle(ADW_ACTION_ROW(row), subtitle);
        adw_action_row_set_subtitle_lines(ADW_ACTION_ROW(row), 0);
        set_search_text(row, g_strjoin("\n", r->pattern, r->profile, r->file, settings ? settings : "", NULL));
        /* The row owns the rule its buttons act on. */
        g_object_set_data_full(G_OBJECT(row), "rule", r, (GDestroyNotify) profiles_rule_free);
        return row;
}

GtkWidget *profiles_rule_row_new(App *app, ProfilesRule *r, const char *settings)
{
        GtkWidget *row = rule_row(r, settings);
        g_autofree char *where = rule_name(r);
        ProfilesFileKind kind = profiles_file_kind(r->file);

        if (kind == PROFILES_FILE_DRIVER)
                return row; /* never written: a rule of its own in /etc/nvidia overrides it */
        gtk_widget_set_sensitive(rule_button(app, row, r, "go-up-symbolic", g_strdup_printf(_("Move up %s"), where),
                                                 G_CALLBACK(on_rule_up)),
                        r->up_file != NULL);
        gtk_widget_set_sensitive(rule_button(app, row, r, "go-down-symbolic", g_strdup_printf(_("Move down %s"), where),
                                                 G_CALLBACK(on_rule_down)),
                        r->down_file != NULL);
        rule_button(app, row, r, "document-edit-symbolic", g_strdup_printf(_("Edit %s"), where),
                        G_CALLBACK(on_rule_edit));
        if (kind == PROFILES_FILE_USER)
                rule_button(app, row, r, "media-playback-pause-symbolic", g_strdup_printf(_("Disable %s"), where),
                                G_CALLBACK(on_rule_disable));
        rule_button(app, row, r, "user-trash-symbolic", g_strdup_printf(_("Remove %s"), where),
                        G_CALLBACK(on_rule_remove));
        return row;
}

GtkWidget *profiles_disabled_row_new(App *app, ProfilesRule *r)
{
        GtkWidget *row = rule_row(r, NULL);
        g_autofree char *where = rule_name(r);

        rule_button(app, row, r, "media-playback-start-symbolic", g_strdup_printf(_("Enable %s"), where),
                        G_CALLBACK(on_rule_enable));
        rule_button(app, row, r, "user-trash-symbolic", g_strdup_printf(_("Remove %s"), where),
                        G_CALLBACK(on_rule_remove));
        return row;
}

typedef struct ProfileRef {
        App *app;
        char *name;
        char *file;
} ProfileRef;

static void profile_ref_free(ProfileRef *p)
{
        g_free(p->name);
        g_free(p->file);
        g_free(p);
}

static void on_profile_edit(GtkButton *button, gpointer data)
{
        ProfileRef *p = data;

        profile_dialog_show(p->app, p->file, p->name);
}

static void on_profile_remove(GtkButton *button, gpointer data)
{
        ProfileRef *p = data;
        RcEdit edit = { .operation = RC_EDIT_REMOVE_PROFILE, .profile = p->name };
        g_autofree char *what = g_strdup_printf(_("Remove the profile “%s”"), p->name);

        profile_edit_run(p->app, p->file, profiles_file_kind(p->file) == PROFILES_FILE_SYSTEM, &edit, what);
}

GtkWidget *profiles_profile_row_new(
                App *app, const char *name, const char *file, guint32 line, guint32 column, GVariant *settings)
{
        GtkWidget *row = adw_expander_row_new();
        g_autofree char *where = g_strdup_printf("%s:%u:%u", file, line, column);
        g_autofree char *text = profiles_settings_text(settings, "\n");
        g_autofree char *edit_name = g_strdup_printf(_("Edit profile %s"), name);
        g_autofree char *remove_name = g_strdup_printf(_("Remove profile %s"), name);
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        ProfileRef *p = g_new0(ProfileRef, 1);

        p->app = app;
        p->name = g_strdup(name);
        p->file = g_strdup(file);
        g_object_set_data_full(G_OBJECT(row), "profile", p, (GDestroyNotify) profile_ref_free);
        adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), name);
        adw_expander_row_set_subtitle(ADW_EXPANDER_ROW(row), where);
        for (size_t i = 0; lines[i]; i++) {
                GtkWidget *setting;

                if (!*lines[i])
                        continue;
                setting = adw_action_row_new();
                adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(setting), FALSE);
                adw_preferences_row_set_title(ADW_PREFERENCES_ROW(setting), lines[i]);
                adw_expander_row_add_row(ADW_EXPANDER_ROW(row), setting);
        }
        set_search_text(row, g_strjoin("\n", name, file, text, NULL));
        if (profiles_file_kind(file) != PROFILES_FILE_DRIVER) {
                action_button(row, "document-edit-symbolic", edit_name, G_CALLBACK(on_profile_edit), p);
                action_button(row, "user-trash-symbolic", remove_name, G_CALLBACK(on_profile_remove), p);
        }
        return row;
}

static void on_opened(GObject *source, GAsyncResult *result, gpointer data)
{
        App *app = data;
        g_autoptr(GError) error = NULL;

        if (!g_app_info_launch_default_for_uri_finish(result, &error) && !app_error_is_cancelled(error)) {
                g_autofree char *text = g_strdup_printf(_("Cannot open the file: %s"), error->message);

                app_toast(app, text);
        }
}

static void on_open_file(GtkButton *button, gpointer data)
{
        const char *file = data;
        App *app = row_app(GTK_WIDGET(button));
        g_autoptr(GFile) f = g_file_new_for_path(file);
        g_autofree char *uri = g_file_get_uri(f);
        g_autoptr(GAppLaunchContext) context = G_APP_LAUNCH_CONTEXT(
                        gdk_display_get_app_launch_context(gtk_widget_get_display(GTK_WIDGET(button))));

        /* The user's editor: whatever opens the file's type on this desktop (GIO's default handler). */
        g_app_info_launch_default_for_uri_async(uri, context, app->cancellable, on_opened, app);
}

/* A row about file (at line:column, 0: the whole file) with "Open file": an error, or a doctor's finding. */
static GtkWidget *problem_row_new(App *app, const char *file, guint32 line, guint32 column, const char *subtitle,
                const char *icon, const char *search)
{
        g_autofree char *where = line ? g_strdup_printf("%s:%u:%u", file, line, column) : g_strdup(file);
        g_autofree char *name = g_strdup_printf(_("Open %s"), file);
        GtkWidget *row = adw_action_row_new();
        GtkWidget *open = app_button_new(_("_Open File"), name);

        adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), where);
        adw_action_row_set_subtitle(ADW_ACTION_ROW(row), subtitle);
        adw_action_row_set_subtitle_lines(ADW_ACTION_ROW(row), 0);
        adw_action_row_add_prefix(ADW_ACTION_ROW(row), gtk_image_new_from_icon_name(icon));
        gtk_widget_set_valign(open, GTK_ALIGN_CENTER);
        g_object_set_data(G_OBJECT(open), "app", app);
        g_object_set_data_full(G_OBJECT(row), "file", g_strdup(file), g_free);
        g_signal_connect(open, "clicked", G_CALLBACK(on_open_file), g_object_get_data(G_OBJECT(row), "file"));
        adw_action_row_add_suffix(ADW_ACTION_ROW(row), open);
        set_search_text(row, g_strjoin("\n", file, search, NULL));
        return row;
}

GtkWidget *profiles_error_row_new(
                App *app, const char *file, const char *severity, guint32 line, guint32 column, const char *message)
{
        g_autofree char *subtitle = g_strdup_printf("%s: %s", severity, message);

        return problem_row_new(app, file, line, column, subtitle, "dialog-warning-symbolic", message);
}

static void on_copy_fix(GtkButton *button, gpointer data)
{
        App *app = g_object_get_data(G_OBJECT(button), "app");

        gdk_clipboard_set_text(gtk_widget_get_clipboard(GTK_WIDGET(button)), data);
        app_toast(app, _("Command copied: run it in a terminal (with --dry-run first to see what it changes)"));
}

GtkWidget *profiles_finding_row_new(App *app, const char *file, const char *kind, guint32 line, guint32 column,
                const char *message, const char *fix)
{
        g_autofree char *subtitle = *fix ? g_strdup_printf(_("%s: %s\nFix: %s"), kind, message, fix)
                                         : g_strdup_printf("%s: %s", kind, message);
        g_autofree char *search = g_strjoin("\n", kind, message, fix, NULL);
        GtkWidget *row = problem_row_new(app, file, line, column, subtitle, "dialog-information-symbolic", search);
        g_autofree char *name = NULL;
        GtkWidget *copy;

        if (!*fix)
                return row;
        name = g_strdup_printf(_("Copy the fix of %s"), adw_preferences_row_get_title(ADW_PREFERENCES_ROW(row)));
        copy = app_button_new(_("_Copy Fix"), name);
        gtk_widget_set_tooltip_text(copy, _("Copy the nvprofilectl command that fixes this"));
        gtk_widget_set_valign(copy, GTK_ALIGN_CENTER);
        g_object_set_data(G_OBJECT(copy), "app", app);
        g_object_set_data_full(G_OBJECT(row), "fix", g_strdup(fix), g_free);
        g_signal_connect(copy, "clicked", G_CALLBACK(on_copy_fix), g_object_get_data(G_OBJECT(row), "fix"));
        adw_action_row_add_suffix(ADW_ACTION_ROW(row), copy);
        return row;
}
