/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A rule, added or edited in place: its pattern built from conditions (every feature the driver reads:
 * procname, commname, cmdline, dso, findfile, true; each one negatable, all of them or any of them) or
 * written as JSON, and what it applies: settings written in the rule (typed editors, setting-row.h) or
 * an existing profile. The edit goes through profile_edit_run_full(): previewed, written, undoable. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>

#include "profile-edit.h"
#include "rc-edit-transaction.h"
#include "rc-rule-id.h"
#include "rc-searchpath.h"
#include "setting-row.h"
#include "system-text.h"

static const char *const features[] = { "procname", "commname", "cmdline", "dso", "findfile", "true", NULL };

typedef struct Condition {
        GtkWidget *box;
        GtkDropDown *feature;
        GtkEditable *matches;
        GtkCheckButton *negate;
} Condition;

typedef struct RuleDialog {
        App *app;
        GtkWindow *window;
        char *file;
        size_t index; /* the rule edited; SIZE_MAX: a new one */
        GtkDropDown *combine;
        GtkWidget *conditions;
        GPtrArray *condition_list; /* Condition*, owned */
        GtkSwitch *raw;
        GtkStack *pattern_stack;
        GtkTextBuffer *json;
        GtkDropDown *applies, *profile;
        GtkStringList *profiles;
        GtkStack *applies_stack;
        GtkWidget *settings; /* setting_list_new() */
        char *original_profile; /* the profile the rule referred to */
        GtkLabel *message;
        GtkWidget *preview_button;
        GtkDropDown *where; /* a new rule in the default file: the user's own or the system's; else NULL */
        char *system_file;
} RuleDialog;

static void rule_dialog_free(gpointer data)
{
        RuleDialog *d = data;

        g_free(d->file);
        g_free(d->system_file);
        g_ptr_array_unref(d->condition_list);
        g_free(d->original_profile);
        g_free(d);
}

static void say(RuleDialog *d, const char *text)
{
        gtk_label_set_text(d->message, text ? text : "");
}

static void on_changed(gpointer data)
{
        say(data, "");
}

static void on_notify_changed(GObject *object, GParamSpec *pspec, gpointer data)
{
        on_changed(data);
}

static void on_condition_feature(GObject *object, GParamSpec *pspec, gpointer data)
{
        Condition *c = data;

        /* "true" matches every process: it has nothing to match. */
        gtk_widget_set_sensitive(GTK_WIDGET(c->matches), gtk_drop_down_get_selected(c->feature) != 5);
}

static void on_remove_condition(GtkButton *button, gpointer data)
{
        RuleDialog *d = g_object_get_data(G_OBJECT(button), "dialog");
        Condition *c = data;

        if (d->condition_list->len <= 1)
                return;
        gtk_box_remove(GTK_BOX(d->conditions), c->box);
        g_ptr_array_remove(d->condition_list, c);
}

static guint feature_index(const char *feature)
{
        for (guint i = 0; features[i]; i++)
                if (g_str_equal(features[i], feature))
                        return i;
        return 0;
}

static void add_condition(RuleDialog *d, const char *feature, const char *matches, bool negate)
{
        Condition *c = g_new0(Condition, 1);
        GtkWidget *remove = gtk_button_new_from_icon_name("list-remove-symbolic");
        guint n = d->condition_list->len + 1;
        g_autofree char *feature_name = g_strdup_printf(_("Feature of condition %u"), n);
        g_autofree char *matches_name = g_strdup_printf(_("Matches of condition %u"), n);
        g_autofree char *remove_name = g_strdup_printf(_("Remove condition %u"), n);

        c->box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
        c->negate = GTK_CHECK_BUTTON(gtk_check_button_new_with_label(_("not")));
        gtk_check_button_set_active(c->negate, negate);
        gtk_box_append(GTK_BOX(c->box), GTK_WIDGET(c->negate));
        c->feature = GTK_DROP_DOWN(gtk_drop_down_new_from_strings(features));
        drop_down_name(GTK_WIDGET(c->feature), feature_name);
        gtk_drop_down_set_selected(c->feature, feature_index(feature));
        gtk_box_append(GTK_BOX(c->box), GTK_WIDGET(c->feature));
        c->matches = GTK_EDITABLE(gtk_entry_new());
        gtk_accessible_update_property(GTK_ACCESSIBLE(c->matches), GTK_ACCESSIBLE_PROPERTY_LABEL, matches_name, -1);
        gtk_editable_set_text(c->matches, matches ? matches : "");
        gtk_widget_set_hexpand(GTK_WIDGET(c->matches), TRUE);
        gtk_box_append(GTK_BOX(c->box), GTK_WIDGET(c->matches));
        gtk_accessible_update_property(GTK_ACCESSIBLE(remove), GTK_ACCESSIBLE_PROPERTY_LABEL, remove_name, -1);
        g_object_set_data(G_OBJECT(remove), "dialog", d);
        gtk_box_append(GTK_BOX(c->box), remove);
        gtk_box_append(GTK_BOX(d->conditions), c->box);
        g_ptr_array_add(d->condition_list, c);

        g_signal_connect(remove, "clicked", G_CALLBACK(on_remove_condition), c);
        g_signal_connect(c->feature, "notify::selected", G_CALLBACK(on_condition_feature), c);
        g_signal_connect(c->feature, "notify::selected", G_CALLBACK(on_notify_changed), d);
        g_signal_connect(c->matches, "notify::text", G_CALLBACK(on_notify_changed), d);
        g_signal_connect(c->negate, "notify::active", G_CALLBACK(on_notify_changed), d);
        on_condition_feature(NULL, NULL, c);
}

static void on_add_condition(GtkButton *button, gpointer data)
{
        add_condition(data, "procname", "", false);
}

static struct json_object *condition_json(const Condition *c)
{
        guint f = gtk_drop_down_get_selected(c->feature);
        struct json_object *o = json_object_new_object();

        json_object_object_add(o, "feature", json_object_new_string(features[f]));
        if (f != 5)
                json_object_object_add(o, "matches", json_object_new_string(gtk_editable_get_text(c->matches)));
        if (gtk_check_button_get_active(c->negate)) {
                struct json_object *not = json_object_new_object(), *sub = json_object_new_array();

                json_object_array_add(sub, o);
                json_object_object_add(not, "op", json_object_new_string("not"));
                json_object_object_add(not, "sub", sub);
                return not ;
        }
        return o;
}

/* The pattern as rc text, from the builder or the JSON; NULL with a message when it is incomplete. */
static char *pattern_text(RuleDialog *d)
{
        struct json_object *top;
        char *text;

        if (gtk_switch_get_active(d->raw)) {
                GtkTextIter start, end;

                gtk_text_buffer_get_bounds(d->json, &start, &end);
                text = gtk_text_buffer_get_text(d->json, &start, &end, FALSE);
                if (!*g_strstrip(text)) {
                        say(d, _("Write the pattern as JSON, or build it from conditions."));
                        g_free(text);
                        return NULL;
                }
                return text; /* checked by the edit itself, with file:line:column */
        }
        for (guint i = 0; i < d->condition_list->len; i++) {
                const Condition *c = d->condition_list->pdata[i];

                if (gtk_drop_down_get_selected(c->feature) != 5 && !*gtk_editable_get_text(c->matches)) {
                        say(d, _("Every condition needs something to match (or the feature \"true\")."));
                        return NULL;
                }
        }
        if (d->condition_list->len == 1)
                top = condition_json(d->condition_list->pdata[0]);
        else {
                struct json_object *sub = json_object_new_array();

                top = json_object_new_object();
                json_object_object_add(top, "op",
                                json_object_new_string(gtk_drop_down_get_selected(d->combine) == 1 ? "or" : "and"));
                for (guint i = 0; i < d->condition_list->len; i++)
                        json_object_array_add(sub, condition_json(d->condition_list->pdata[i]));
                json_object_object_add(top, "sub", sub);
        }
        text = g_strdup(json_object_to_json_string_ext(top, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(top);
        return text;
}

static struct json_object *pattern_json(const RcPattern *p)
{
        struct json_object *o = json_object_new_object();

        if (p->kind == RC_PATTERN_MATCH) {
                json_object_object_add(
                                o, "feature", json_object_new_string(p->feature_name ? p->feature_name : "true"));
                if (p->matches)
                        json_object_object_add(o, "matches", json_object_new_string(p->matches));
        } else {
                struct json_object *sub = json_object_new_array();

                json_object_object_add(o, "op",
                                json_object_new_string(p->op_name                           ? p->op_name
                                                                : p->kind == RC_PATTERN_OR  ? "or"
                                                                : p->kind == RC_PATTERN_NOT ? "not"
                                                                                            : "and"));
                for (size_t i = 0; i < p->n_sub; i++)
                        json_object_array_add(sub, pattern_json(&p->sub[i]));
                json_object_object_add(o, "sub", sub);
        }
        return o;
}

static bool is_condition(const RcPattern *p)
{
        return p->kind == RC_PATTERN_MATCH ||
                        (p->kind == RC_PATTERN_NOT && p->n_sub == 1 && p->sub[0].kind == RC_PATTERN_MATCH);
}

static void add_condition_from(RuleDialog *d, const RcPattern *p)
{
        const RcPattern *m = p->kind == RC_PATTERN_NOT ? &p->sub[0] : p;

        add_condition(d, m->feature_name ? m->feature_name : "true", m->matches, p->kind == RC_PATTERN_NOT);
}

/* Fills the pattern editors: conditions when the pattern is one level of them, else the JSON. */
static void fill_pattern(RuleDialog *d, const RcPattern *p)
{
        struct json_object *o = pattern_json(p);
        bool flat = is_condition(p);

        gtk_text_buffer_set_text(d->json,
                        json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE),
                        -1);
        json_object_put(o);
        if (IN_SET(p->kind, RC_PATTERN_AND, RC_PATTERN_OR)) {
                flat = true;
                for (size_t i = 0; i < p->n_sub; i++)
                        flat = flat && is_condition(&p->sub[i]);
        }
        if (!flat) {
                add_condition(d, "procname", "", false);
                gtk_switch_set_active(d->raw, TRUE);
                return;
        }
        if (is_condition(p)) {
                add_condition_from(d, p);
                return;
        }
        gtk_drop_down_set_selected(d->combine, p->kind == RC_PATTERN_OR);
        for (size_t i = 0; i < p->n_sub; i++)
                add_condition_from(d, &p->sub[i]);
}

static void on_preview(GtkButton *button, gpointer data)
{
        RuleDialog *d = data;
        g_autofree char *pattern = pattern_text(d);
        g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GArray) settings = g_array_new(FALSE, TRUE, sizeof(RcEditSetting));
        g_autoptr(GPtrArray) unset = g_ptr_array_new();
        bool by_profile = gtk_drop_down_get_selected(d->applies) == 1;
        const char *profile = NULL;
        RcEdit edit = {
                .operation = d->index == SIZE_MAX ? RC_EDIT_ADD_RULE : RC_EDIT_UPDATE_RULE,
                .index = d->index,
                .pattern = pattern,
        };
        g_autofree char *what = NULL;

        if (!pattern)
                return;
        if (by_profile) {
                guint i = gtk_drop_down_get_selected(d->profile);

                profile = i == GTK_INVALID_LIST_POSITION ? NULL : gtk_string_list_get_string(d->profiles, i);
                if (!profile) {
                        say(d, _("Choose the profile the rule applies."));
                        return;
                }
                edit.profile = profile;
        } else {
                if (d->original_profile) {
                        g_autofree char *text = g_strdup_printf(
                                        _("This rule refers to the profile %s: edit that profile, or choose another; "
                                          "a rule with settings of its own is a new rule."),
                                        d->original_profile);

                        say(d, text);
                        return;
                }
                if (!setting_list_collect(d->settings, keep, settings, unset)) {
                        say(d, _("A setting is not valid: its row says why."));
                        return;
                }
                if (settings->len == 0 && d->index == SIZE_MAX) {
                        say(d, _("Add a setting, or choose an existing profile."));
                        return;
                }
                edit.settings = (const RcEditSetting *) (void *) settings->data;
                edit.n_settings = settings->len;
                edit.unset = (char *const *) unset->pdata;
                edit.n_unset = unset->len;
        }
        if (d->where && gtk_drop_down_get_selected(d->where) == 1) {
                g_free(d->file);
                d->file = g_strdup(d->system_file);
        } else if (d->where) {
                g_free(d->file);
                d->file = profile_edit_default_file();
        }
        what = d->index == SIZE_MAX ? g_strdup_printf(_("Add a rule for %s"), pattern)
                                    : g_strdup_printf(_("Change the rule for %s"), pattern);
        profile_edit_run_full(d->app, d->window, d->file, profile_edit_file_is_system(d->file), &edit, what,
                        profile_edit_close_when_written, g_object_ref(d->window));
}

static void on_applies(GObject *object, GParamSpec *pspec, gpointer data)
{
        RuleDialog *d = data;

        gtk_stack_set_visible_child_name(
                        d->applies_stack, gtk_drop_down_get_selected(d->applies) == 1 ? "profile" : "settings");
}

static void on_raw(GObject *object, GParamSpec *pspec, gpointer data)
{
        RuleDialog *d = data;

        gtk_stack_set_visible_child_name(d->pattern_stack, gtk_switch_get_active(d->raw) ? "json" : "builder");
}

static void on_profiles(GObject *source, GAsyncResult *result, gpointer data)
{
        RuleDialog *d = data;
        g_autoptr(GVariant) profiles = NULL;
        g_autoptr(GError) error = NULL;
        GVariantIter iter;
        const char *name;

        if (!nvp_manager_call_list_profiles_finish(NVP_MANAGER(source), &profiles, result, &error)) {
                g_object_unref(d->window);
                return;
        }
        g_variant_iter_init(&iter, profiles);
        while (g_variant_iter_next(&iter, "(&s&suu@a(sv))", &name, NULL, NULL, NULL, NULL)) {
                guint n = g_list_model_get_n_items(G_LIST_MODEL(d->profiles));
                bool seen = false;

                for (guint i = 0; i < n; i++)
                        seen = seen || g_str_equal(gtk_string_list_get_string(d->profiles, i), name);
                if (!seen)
                        gtk_string_list_append(d->profiles, name);
        }
        if (d->original_profile)
                for (guint i = 0; i < g_list_model_get_n_items(G_LIST_MODEL(d->profiles)); i++)
                        if (g_str_equal(gtk_string_list_get_string(d->profiles, i), d->original_profile))
                                gtk_drop_down_set_selected(d->profile, i);
        g_object_unref(d->window);
}

/* The rule rule_id of f, the file as it holds it now, into the dialog. */
static int fill_rule(RuleDialog *d, const RcFile *f, const char *rule_id)
{
        const RcRule *rule;
        size_t index;
        int r;

        r = rc_file_find_rule(f, rule_id, &index);
        if (r < 0)
                return r;
        rule = &f->rules[index];
        d->index = index;
        fill_pattern(d, &rule->pattern);
        if (rule->profile_name) {
                guint n = g_list_model_get_n_items(G_LIST_MODEL(d->profiles)), i = 0;

                /* The profiles may be listed already (a system file is read through the daemon). */
                d->original_profile = g_strdup(rule->profile_name);
                while (i < n && !g_str_equal(gtk_string_list_get_string(d->profiles, i), rule->profile_name))
                        i++;
                if (i == n)
                        gtk_string_list_append(d->profiles, rule->profile_name);
                gtk_drop_down_set_selected(d->profile, i);
                gtk_drop_down_set_selected(d->applies, 1);
        } else if (rule->inline_profile)
                setting_list_fill(d->settings, rule->inline_profile);
        return 0;
}

static void say_rule_not_loaded(RuleDialog *d, const char *rule_id, const char *why)
{
        g_autofree char *text = g_strdup_printf(_("The rule %s is not in %s any more: %s"), rule_id, d->file, why);

        add_condition(d, "procname", "", false);
        say(d, text);
        gtk_widget_set_sensitive(d->preview_button, FALSE);
}

/* A rule of a system file: the file as the daemon reads it (the daemon's root need not be this /). */
typedef struct RuleLoad {
        RuleDialog *d;
        char *rule_id;
        const char *path;
        SystemText text;
} RuleLoad;

static void on_system_rule_read(const GError *error, gpointer userdata)
{
        RuleLoad *l = userdata;
        RuleDialog *d = l->d;
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        int r;

        if (error && !app_error_is_cancelled(error)) {
                g_autofree char *message = app_error_message(error);

                say_rule_not_loaded(d, l->rule_id, message);
        } else if (!error) {
                r = profile_edit_parse(d->file, l->text.text, l->text.size, &f);
                if (r >= 0)
                        r = fill_rule(d, f, l->rule_id);
                if (r < 0)
                        say_rule_not_loaded(d, l->rule_id, g_strerror(-r));
                else
                        gtk_widget_set_sensitive(d->preview_button, TRUE);
        }
        g_object_unref(d->window);
        system_text_done(&l->text);
        g_free(l->rule_id);
        g_free(l);
}

/* The rule rule_id of the file, as the file holds it now: the user's own read here, a system file's
 * through the daemon (the preview waits for it). */
static void load_rule(RuleDialog *d, const char *rule_id)
{
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        RuleLoad *l;
        int r;

        if (!profile_edit_file_is_system(d->file)) {
                r = profile_edit_read_file(d->file, &f);
                if (r >= 0)
                        r = fill_rule(d, f, rule_id);
                if (r < 0)
                        say_rule_not_loaded(d, rule_id, g_strerror(-r));
                return;
        }
        l = g_new0(RuleLoad, 1);
        *l = (RuleLoad){ .d = d, .rule_id = g_strdup(rule_id), .path = d->file };
        gtk_widget_set_sensitive(d->preview_button, FALSE);
        g_object_ref(d->window);
        system_texts_read(d->app, &l->path, (SystemText *const[]){ &l->text }, 1, on_system_rule_read, l);
}

static GtkWidget *titled(const char *title, GtkWidget *child)
{
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
        GtkWidget *label = gtk_label_new(title);

        gtk_label_set_xalign(GTK_LABEL(label), 0);
        gtk_widget_add_css_class(label, "heading");
        gtk_box_append(GTK_BOX(box), label);
        gtk_box_append(GTK_BOX(box), child);
        return box;
}

void rule_dialog_show(App *app, const char *file, const char *rule_id, const char *procname, const char *commname)
{
        RuleDialog *d = g_new0(RuleDialog, 1);
        GtkWidget *window = adw_window_new();
        GtkWidget *outer = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        GtkWidget *header = adw_header_bar_new();
        GtkWidget *scroll = gtk_scrolled_window_new();
        GtkWidget *body = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
        GtkWidget *builder = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
        GtkWidget *pattern_head = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
        GtkWidget *add_condition_button = app_button_new(_("Add _Condition"), NULL);
        GtkWidget *json_view = gtk_text_view_new();
        GtkWidget *where;
        const char *const combine[] = { _("All of these (and)"), _("Any of these (or)"), NULL };
        const char *const applies[] = { _("Settings written in the rule"), _("An existing profile"), NULL };
        g_autofree char *default_file = NULL;

        d->app = app;
        d->index = SIZE_MAX;
        d->condition_list = g_ptr_array_new_with_free_func(g_free);
        d->file = file ? g_strdup(file) : profile_edit_default_file();
        d->window = GTK_WINDOW(window);
        g_object_set_data_full(G_OBJECT(window), "rule-dialog", d, rule_dialog_free);
        gtk_window_set_title(d->window, rule_id ? _("Edit Rule") : _("Add a Rule"));
        gtk_window_set_transient_for(d->window, app->window);
        gtk_window_set_modal(d->window, TRUE);
        gtk_window_set_default_size(d->window, 760, 680);

        d->preview_button = app_button_new(_("_Preview…"), NULL);
        gtk_widget_add_css_class(d->preview_button, "suggested-action");
        adw_header_bar_pack_end(ADW_HEADER_BAR(header), d->preview_button);
        gtk_box_append(GTK_BOX(outer), header);

        gtk_widget_set_margin_start(body, 12);
        gtk_widget_set_margin_end(body, 12);
        gtk_widget_set_margin_top(body, 12);
        gtk_widget_set_margin_bottom(body, 12);
        if (file) {
                g_autofree char *text = g_strdup_printf(_("In %s"), d->file);

                where = gtk_label_new(text);
                gtk_label_set_xalign(GTK_LABEL(where), 0);
                gtk_label_set_wrap(GTK_LABEL(where), TRUE);
                gtk_label_set_selectable(GTK_LABEL(where), TRUE);
                gtk_box_append(GTK_BOX(body), where);
        } else {
                /* A new rule without a file: the user's own, or the system's (the daemon writes it). */
                g_autofree char *dir = NULL, *own = g_strdup_printf(_("Your own file (%s)"), d->file);
                const char *const choices[] = { own,
                        _("The system's file (/etc/nvidia; an administrator's authorisation)"), NULL };

                if (rc_entry_path(RC_ENTRY_SYSTEM_DIR, NULL, NULL, &dir) >= 0)
                        d->system_file = g_strdup_printf("%s/%s", dir, RC_EDIT_DEFAULT_FILE_NAME);
                d->where = GTK_DROP_DOWN(gtk_drop_down_new_from_strings(choices));
                drop_down_name(GTK_WIDGET(d->where), _("Write into"));
                gtk_widget_set_sensitive(GTK_WIDGET(d->where), d->system_file != NULL);
                gtk_box_append(GTK_BOX(body), titled(_("Write into"), GTK_WIDGET(d->where)));
        }

        /* The pattern: conditions, or JSON. */
        d->combine = GTK_DROP_DOWN(gtk_drop_down_new_from_strings(combine));
        drop_down_name(GTK_WIDGET(d->combine), _("Combine"));
        gtk_box_append(GTK_BOX(pattern_head), GTK_WIDGET(d->combine));
        gtk_box_append(GTK_BOX(pattern_head), add_condition_button);
        {
                GtkWidget *label = gtk_label_new(_("JSON"));

                d->raw = GTK_SWITCH(gtk_switch_new());
                gtk_accessible_update_property(GTK_ACCESSIBLE(d->raw), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                _("Write the pattern as JSON"), -1);
                gtk_widget_set_hexpand(label, TRUE);
                gtk_label_set_xalign(GTK_LABEL(label), 1);
                gtk_box_append(GTK_BOX(pattern_head), label);
                gtk_box_append(GTK_BOX(pattern_head), GTK_WIDGET(d->raw));
        }
        d->conditions = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
        gtk_box_append(GTK_BOX(builder), d->conditions);
        d->json = gtk_text_view_get_buffer(GTK_TEXT_VIEW(json_view));
        gtk_text_view_set_monospace(GTK_TEXT_VIEW(json_view), TRUE);
        gtk_widget_set_size_request(json_view, -1, 120);
        gtk_accessible_update_property(
                        GTK_ACCESSIBLE(json_view), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Pattern as JSON"), -1);
        d->pattern_stack = GTK_STACK(gtk_stack_new());
        gtk_stack_add_named(d->pattern_stack, builder, "builder");
        gtk_stack_add_named(d->pattern_stack, json_view, "json");
        {
                GtkWidget *pattern = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);

                gtk_box_append(GTK_BOX(pattern), pattern_head);
                gtk_box_append(GTK_BOX(pattern), GTK_WIDGET(d->pattern_stack));
                gtk_box_append(GTK_BOX(body), titled(_("Which processes (pattern)"), pattern));
        }

        /* What it applies. */
        d->applies = GTK_DROP_DOWN(gtk_drop_down_new_from_strings(applies));
        drop_down_name(GTK_WIDGET(d->applies), _("Applies"));
        d->profiles = gtk_string_list_new(NULL);
        d->profile = GTK_DROP_DOWN(gtk_drop_down_new(G_LIST_MODEL(g_object_ref(d->profiles)),
                        gtk_property_expression_new(GTK_TYPE_STRING_OBJECT, NULL, "string")));
        gtk_drop_down_set_enable_search(d->profile, TRUE);
        drop_down_name(GTK_WIDGET(d->profile), _("Profile"));
        d->settings = setting_list_new(G_CALLBACK(on_changed), d);
        d->applies_stack = GTK_STACK(gtk_stack_new());
        gtk_stack_add_named(d->applies_stack, d->settings, "settings");
        gtk_stack_add_named(d->applies_stack, GTK_WIDGET(d->profile), "profile");
        {
                GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);

                gtk_box_append(GTK_BOX(box), GTK_WIDGET(d->applies));
                gtk_box_append(GTK_BOX(box), GTK_WIDGET(d->applies_stack));
                gtk_box_append(GTK_BOX(body), titled(_("What it applies"), box));
        }

        d->message = GTK_LABEL(gtk_label_new(""));
        gtk_label_set_wrap(d->message, TRUE);
        gtk_label_set_xalign(d->message, 0);
        gtk_label_set_selectable(d->message, TRUE);
        gtk_accessible_update_property(
                        GTK_ACCESSIBLE(d->message), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, _("Status of the rule"), -1);
        gtk_box_append(GTK_BOX(body), GTK_WIDGET(d->message));

        gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), body);
        gtk_widget_set_vexpand(scroll, TRUE);
        gtk_box_append(GTK_BOX(outer), scroll);
        adw_window_set_content(ADW_WINDOW(window), outer);

        if (rule_id)
                load_rule(d, rule_id);
        else {
                /* Prefilled from a process: its procname, else its commname. */
                if (procname && *procname)
                        add_condition(d, "procname", procname, false);
                else
                        add_condition(d, commname && *commname ? "commname" : "procname", commname, false);
                setting_list_add(d->settings, NULL, NULL);
        }
        on_applies(NULL, NULL, d);
        on_raw(NULL, NULL, d);

        g_signal_connect(add_condition_button, "clicked", G_CALLBACK(on_add_condition), d);
        g_signal_connect(d->preview_button, "clicked", G_CALLBACK(on_preview), d);
        g_signal_connect(d->applies, "notify::selected", G_CALLBACK(on_applies), d);
        g_signal_connect(d->raw, "notify::active", G_CALLBACK(on_raw), d);
        g_signal_connect(d->combine, "notify::selected", G_CALLBACK(on_notify_changed), d);

        g_object_ref(d->window);
        nvp_manager_call_list_profiles(
                        app->manager, g_get_home_dir(), G_DBUS_CALL_FLAGS_NONE, -1, app->cancellable, on_profiles, d);
        gtk_window_present(d->window);
}

void add_rule_dialog_show(App *app, const char *procname, const char *commname)
{
        rule_dialog_show(app, NULL, NULL, procname, commname);
}
