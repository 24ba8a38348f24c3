/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A typed editor of one setting (setting-row.h). Every type and range comes from rc-settings.c: the
 * same table nvprofilectl and the daemon check edits with. */
#include <inttypes.h>
#include <json-c/json.h>

#include "rc-settings.h"
#include "setting-row.h"

#define OTHER_KEY N_("Other key…")

typedef struct SettingRow {
        GtkWidget *box;
        GtkDropDown *key;
        GtkStringList *keys; /* sorted known keys, then OTHER_KEY */
        GtkEditable *other_key;
        GtkStack *editor;
        GtkSwitch *boolean;
        GtkDropDown *choice;
        GtkSpinButton *integer;
        GtkEditable *text;
        GtkLabel *meaning, *error;
        GCallback changed;
        gpointer userdata;
        bool filling; /* set while the editors are filled in: no checks, no callbacks */
} SettingRow;

static SettingRow *row_of(GtkWidget *row)
{
        return g_object_get_data(G_OBJECT(row), "setting-row");
}

static const char *chosen_key(SettingRow *s)
{
        guint i = gtk_drop_down_get_selected(s->key);
        guint n = g_list_model_get_n_items(G_LIST_MODEL(s->keys));

        if (i == GTK_INVALID_LIST_POSITION || i + 1 >= n)
                return gtk_editable_get_text(s->other_key);
        return gtk_string_list_get_string(s->keys, i);
}

static const RcSettingInfo *chosen_info(SettingRow *s)
{
        return rc_setting_lookup(chosen_key(s));
}

static guint n_values(const RcSettingInfo *info)
{
        guint n = 0;

        for (const RcSettingValue *v = info->values; v && v->value; v++)
                n++;
        return n;
}

/* The rc text of what the editor shows. */
static char *editor_value(SettingRow *s)
{
        const RcSettingInfo *info = chosen_info(s);

        if (!info)
                return g_strdup(gtk_editable_get_text(s->text));
        if (info->values) {
                guint i = gtk_drop_down_get_selected(s->choice);

                return i < n_values(info) ? g_strdup(info->values[i].value) : g_strdup("");
        }
        switch (info->type) {
        case RC_SETTING_BOOLEAN:
                return g_strdup(gtk_switch_get_active(s->boolean) ? "true" : "false");
        case RC_SETTING_INTEGER:
                return g_strdup_printf("%" PRIi64, (int64_t) gtk_spin_button_get_value(s->integer));
        case RC_SETTING_STRING: {
                /* Typed as text: written as a JSON string, as nvprofilectl writes KEY=text. */
                g_autofree char *assignment = g_strdup_printf("%s=%s", info->key, gtk_editable_get_text(s->text));
                g_autofree char *key = NULL, *message = NULL;
                char *value = NULL;

                if (rc_setting_parse_assignment(assignment, &key, &value, &message) < 0)
                        return g_strdup(gtk_editable_get_text(s->text));
                return value;
        }
        case _RC_SETTING_TYPE_MAX:
                break;
        }
        g_assert_not_reached();
}

bool setting_row_get(GtkWidget *row, char **ret_key, char **ret_value, char **ret_message)
{
        SettingRow *s = row_of(row);
        g_autofree char *value = editor_value(s);
        const char *key = chosen_key(s);
        char *message = NULL;
        int r;

        r = rc_setting_check(key, value, &message);
        *ret_key = g_strdup(key);
        *ret_value = g_steal_pointer(&value);
        *ret_message = message;
        return r >= 0;
}

static void check(SettingRow *s)
{
        g_autofree char *key = NULL, *value = NULL, *message = NULL;
        bool ok;

        if (s->filling)
                return;
        ok = setting_row_get(s->box, &key, &value, &message);
        gtk_label_set_text(s->error, message ? message : "");
        gtk_widget_set_visible(GTK_WIDGET(s->error), message != NULL);
        if (ok)
                gtk_widget_remove_css_class(GTK_WIDGET(s->error), "error");
        else
                gtk_widget_add_css_class(GTK_WIDGET(s->error), "error");
        if (s->changed)
                ((void (*)(gpointer)) s->changed)(s->userdata);
}

/* Shows the editor of the chosen key's type, filled with value (rc text; NULL: the default). */
static void fill_editor(SettingRow *s, const char *value)
{
        const RcSettingInfo *info = chosen_info(s);
        bool other = gtk_drop_down_get_selected(s->key) + 1 == g_list_model_get_n_items(G_LIST_MODEL(s->keys));

        s->filling = true;
        gtk_widget_set_visible(GTK_WIDGET(s->other_key), other);
        gtk_label_set_text(s->meaning, info ? info->meaning : _("A key nvprofiled does not know: written as typed."));
        if (!info) {
                gtk_editable_set_text(s->text, value ? value : "");
                gtk_stack_set_visible_child_name(s->editor, "text");
        } else if (info->values) {
                GtkStringList *list = gtk_string_list_new(NULL);
                const RcSettingValue *current = value ? rc_setting_value_lookup(info, value) : NULL;

                for (const RcSettingValue *v = info->values; v->value; v++) {
                        g_autofree char *label = g_strdup_printf("%s: %s", v->value, v->meaning);

                        gtk_string_list_append(list, label);
                }
                gtk_drop_down_set_model(s->choice, G_LIST_MODEL(list));
                g_object_unref(list);
                gtk_drop_down_set_selected(s->choice, current ? (guint) (current - info->values) : 0);
                gtk_stack_set_visible_child_name(s->editor, "choice");
        } else if (info->type == RC_SETTING_BOOLEAN) {
                gtk_switch_set_active(s->boolean, value && (g_str_equal(value, "true") || g_str_equal(value, "1")));
                gtk_stack_set_visible_child_name(s->editor, "boolean");
        } else if (info->type == RC_SETTING_INTEGER) {
                gtk_spin_button_set_range(s->integer, (double) info->min, (double) info->max);
                /* Decimal, 0x hex or 0 octal, as the driver reads it. */
                gtk_spin_button_set_value(
                                s->integer, value ? (double) g_ascii_strtoll(value, NULL, 0) : (double) info->min);
                gtk_stack_set_visible_child_name(s->editor, "integer");
        } else {
                struct json_object *o = value ? json_tokener_parse(value) : NULL;

                /* A string shown as its text: "DP-1" as DP-1. */
                if (o && json_object_is_type(o, json_type_string))
                        gtk_editable_set_text(s->text, json_object_get_string(o));
                else
                        gtk_editable_set_text(s->text, value ? value : "");
                json_object_put(o);
                gtk_stack_set_visible_child_name(s->editor, "text");
        }
        s->filling = false;
        check(s);
}

static void on_key(GObject *object, GParamSpec *pspec, gpointer data)
{
        SettingRow *s = data;

        if (!s->filling)
                fill_editor(s, NULL);
}

static void on_value(GObject *object, GParamSpec *pspec, gpointer data)
{
        check(data);
}

void drop_down_name(GtkWidget *drop_down, const char *name)
{
        gtk_accessible_update_property(GTK_ACCESSIBLE(drop_down), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
        for (GtkWidget *w = gtk_widget_get_first_child(drop_down); w; w = gtk_widget_get_next_sibling(w))
                if (GTK_IS_TOGGLE_BUTTON(w))
                        gtk_accessible_update_property(GTK_ACCESSIBLE(w), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
}

static int compare_keys(gconstpointer a, gconstpointer b)
{
        return g_ascii_strcasecmp(*(const char *const *) a, *(const char *const *) b);
}

/* The known keys, sorted (obsolete ones left out), then OTHER_KEY. */
static GtkStringList *sorted_keys(void)
{
        size_t n;
        const RcSettingInfo *known = rc_settings_known(&n);
        g_autoptr(GPtrArray) keys = g_ptr_array_new();
        GtkStringList *list = gtk_string_list_new(NULL);

        for (size_t i = 0; i < n; i++)
                if (!known[i].replaced_by)
                        g_ptr_array_add(keys, (gpointer) known[i].key);
        g_ptr_array_sort(keys, compare_keys);
        for (guint i = 0; i < keys->len; i++)
                gtk_string_list_append(list, keys->pdata[i]);
        gtk_string_list_append(list, _(OTHER_KEY));
        return list;
}

static guint key_position(GtkStringList *keys, const char *key)
{
        guint n = g_list_model_get_n_items(G_LIST_MODEL(keys));

        for (guint i = 0; i + 1 < n; i++)
                if (g_str_equal(gtk_string_list_get_string(keys, i), key))
                        return i;
        return n - 1;
}

GtkWidget *setting_row_new(const char *key, const char *value, GCallback changed, gpointer userdata)
{
        SettingRow *s = g_new0(SettingRow, 1);
        GtkWidget *line = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
        GtkExpression *expression = gtk_property_expression_new(GTK_TYPE_STRING_OBJECT, NULL, "string");

        s->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
        g_object_set_data_full(G_OBJECT(s->box), "setting-row", s, g_free);
        s->changed = changed;
        s->userdata = userdata;
        s->keys = sorted_keys();
        s->key = GTK_DROP_DOWN(gtk_drop_down_new(G_LIST_MODEL(s->keys), expression));
        gtk_drop_down_set_enable_search(s->key, TRUE);
        drop_down_name(GTK_WIDGET(s->key), _("Key"));
        gtk_box_append(GTK_BOX(line), GTK_WIDGET(s->key));
        s->other_key = GTK_EDITABLE(gtk_entry_new());
        gtk_accessible_update_property(GTK_ACCESSIBLE(s->other_key), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Other key"), -1);
        gtk_box_append(GTK_BOX(line), GTK_WIDGET(s->other_key));

        s->editor = GTK_STACK(gtk_stack_new());
        s->boolean = GTK_SWITCH(gtk_switch_new());
        gtk_widget_set_valign(GTK_WIDGET(s->boolean), GTK_ALIGN_CENTER);
        gtk_accessible_update_property(GTK_ACCESSIBLE(s->boolean), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Value"), -1);
        gtk_stack_add_named(s->editor, GTK_WIDGET(s->boolean), "boolean");
        s->choice = GTK_DROP_DOWN(gtk_drop_down_new(NULL, NULL));
        drop_down_name(GTK_WIDGET(s->choice), _("Value"));
        gtk_stack_add_named(s->editor, GTK_WIDGET(s->choice), "choice");
        s->integer = GTK_SPIN_BUTTON(gtk_spin_button_new_with_range(0, 1, 1));
        gtk_accessible_update_property(GTK_ACCESSIBLE(s->integer), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Value"), -1);
        gtk_stack_add_named(s->editor, GTK_WIDGET(s->integer), "integer");
        s->text = GTK_EDITABLE(gtk_entry_new());
        gtk_accessible_update_property(GTK_ACCESSIBLE(s->text), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Value"), -1);
        gtk_stack_add_named(s->editor, GTK_WIDGET(s->text), "text");
        gtk_widget_set_hexpand(GTK_WIDGET(s->editor), TRUE);
        gtk_box_append(GTK_BOX(line), GTK_WIDGET(s->editor));
        gtk_box_append(GTK_BOX(s->box), line);

        s->meaning = GTK_LABEL(gtk_label_new(""));
        gtk_label_set_wrap(s->meaning, TRUE);
        gtk_label_set_xalign(s->meaning, 0);
        gtk_widget_add_css_class(GTK_WIDGET(s->meaning), "dim-label");
        gtk_box_append(GTK_BOX(s->box), GTK_WIDGET(s->meaning));
        s->error = GTK_LABEL(gtk_label_new(""));
        gtk_label_set_wrap(s->error, TRUE);
        gtk_label_set_xalign(s->error, 0);
        gtk_label_set_selectable(s->error, TRUE);
        gtk_accessible_update_property(
                        GTK_ACCESSIBLE(s->error), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, _("Problem of the setting"), -1);
        gtk_box_append(GTK_BOX(s->box), GTK_WIDGET(s->error));

        /* A new row starts at the first key NVIDIA documents (antialiasing), not the first in sort order. */
        if (!key) {
                size_t n;

                key = rc_settings_known(&n)[0].key;
        }
        s->filling = true;
        gtk_drop_down_set_selected(s->key, key_position(s->keys, key));
        if (key && !rc_setting_lookup(key))
                gtk_editable_set_text(s->other_key, key);
        s->filling = false;
        fill_editor(s, value);

        g_signal_connect(s->key, "notify::selected", G_CALLBACK(on_key), s);
        g_signal_connect(s->other_key, "notify::text", G_CALLBACK(on_value), s);
        g_signal_connect(s->boolean, "notify::active", G_CALLBACK(on_value), s);
        g_signal_connect(s->choice, "notify::selected", G_CALLBACK(on_value), s);
        g_signal_connect(s->integer, "notify::value", G_CALLBACK(on_value), s);
        g_signal_connect(s->text, "notify::text", G_CALLBACK(on_value), s);
        return s->box;
}

char *setting_value_text(const RcValue *v)
{
        struct json_object *o;
        char *text;

        switch (v->type) {
        case RC_VALUE_BOOLEAN:
                return g_strdup(v->boolean ? "true" : "false");
        case RC_VALUE_INTEGER:
                return g_strdup_printf("%" G_GINT64_FORMAT, v->integer);
        case RC_VALUE_UNSIGNED:
                return g_strdup_printf("%" G_GUINT64_FORMAT, v->unsigned_integer);
        case RC_VALUE_STRING:
                o = json_object_new_string(v->string);
                break;
        default:
                o = json_object_new_double(v->real);
                break;
        }
        text = g_strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(o);
        return text;
}

typedef struct SettingList {
        GtkWidget *box, *rows_box;
        GPtrArray *rows; /* GtkWidget*, in rows_box */
        char **original_keys;
        GCallback changed;
        gpointer userdata;
} SettingList;

static void setting_list_free(gpointer data)
{
        SettingList *l = data;

        g_ptr_array_unref(l->rows);
        g_strfreev(l->original_keys);
        g_free(l);
}

static SettingList *list_of(GtkWidget *list)
{
        return g_object_get_data(G_OBJECT(list), "setting-list");
}

void setting_list_add(GtkWidget *list, const char *key, const char *value)
{
        SettingList *l = list_of(list);
        GtkWidget *row = setting_row_new(key, value, l->changed, l->userdata);

        gtk_box_append(GTK_BOX(l->rows_box), row);
        g_ptr_array_add(l->rows, row);
}

static void on_add_setting(GtkButton *button, gpointer data)
{
        setting_list_add(data, NULL, NULL);
}

static void on_remove_setting(GtkButton *button, gpointer data)
{
        SettingList *l = list_of(data);

        if (l->rows->len > 0)
                gtk_box_remove(GTK_BOX(l->rows_box), g_ptr_array_steal_index(l->rows, l->rows->len - 1));
}

GtkWidget *setting_list_new(GCallback changed, gpointer userdata)
{
        SettingList *l = g_new0(SettingList, 1);
        GtkWidget *buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
        GtkWidget *add = app_button_new(_("Add _Setting"), NULL);
        GtkWidget *remove = app_button_new(_("_Remove Last Setting"), NULL);

        l->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
        g_object_set_data_full(G_OBJECT(l->box), "setting-list", l, setting_list_free);
        l->rows = g_ptr_array_new();
        l->changed = changed;
        l->userdata = userdata;
        l->rows_box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
        gtk_box_append(GTK_BOX(l->box), l->rows_box);
        gtk_box_append(GTK_BOX(buttons), add);
        gtk_box_append(GTK_BOX(buttons), remove);
        gtk_box_append(GTK_BOX(l->box), buttons);
        g_signal_connect(add, "clicked", G_CALLBACK(on_add_setting), l->box);
        g_signal_connect(remove, "clicked", G_CALLBACK(on_remove_setting), l->box);
        return l->box;
}

void setting_list_fill(GtkWidget *list, const RcProfile *p)
{
        SettingList *l = list_of(list);
        GPtrArray *keys = g_ptr_array_new();

        for (size_t i = 0; i < p->n_settings; i++) {
                g_autofree char *value = setting_value_text(&p->settings[i].value);

                setting_list_add(list, p->settings[i].key, value);
                g_ptr_array_add(keys, g_strdup(p->settings[i].key));
        }
        g_ptr_array_add(keys, NULL);
        g_strfreev(l->original_keys);
        l->original_keys = (char **) g_ptr_array_free(keys, FALSE);
}

bool setting_list_collect(GtkWidget *list, GPtrArray *keep, GArray *settings, GPtrArray *unset)
{
        SettingList *l = list_of(list);

        for (guint i = 0; i < l->rows->len; i++) {
                char *key = NULL, *value = NULL, *message = NULL;
                bool ok = setting_row_get(l->rows->pdata[i], &key, &value, &message);

                g_ptr_array_add(keep, key);
                g_ptr_array_add(keep, value);
                g_free(message);
                if (!ok)
                        return false;
                g_array_append_val(settings, ((RcEditSetting){ key, value }));
        }
        for (char **k = l->original_keys; k && *k; k++) {
                bool kept = false;

                for (guint i = 0; i < settings->len; i++)
                        kept = kept || g_str_equal(g_array_index(settings, RcEditSetting, i).key, *k);
                if (!kept)
                        g_ptr_array_add(unset, *k);
        }
        return true;
}
