/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "app.h"

char *format_percent(double percent)
{
        /* -1: "not known" (a first sample, no counter), which is not 0. */
        if (percent < 0)
                return g_strdup(C_("percent", "not known"));
        return g_strdup_printf(C_("percent", "%.1f %%"), percent);
}

char *format_bytes(guint64 bytes)
{
        return g_format_size_full(bytes, G_FORMAT_SIZE_IEC_UNITS);
}

char *format_usage(GVariant *engines, GVariant *memory)
{
        GString *out = g_string_new(NULL);
        GVariantIter iter;
        const char *device, *source, *name;
        double busy;
        guint64 bytes;

        g_variant_iter_init(&iter, engines);
        while (g_variant_iter_next(&iter, "(&s&s&sd)", &device, &source, &name, &busy)) {
                g_autofree char *p = format_percent(busy);

                g_string_append_printf(out, "%s%s %s", out->len ? ", " : "", name, p);
        }
        g_variant_iter_init(&iter, memory);
        while (g_variant_iter_next(&iter, "(&s&s&st)", &device, &source, &name, &bytes)) {
                g_autofree char *b = format_bytes(bytes);

                g_string_append_printf(out, "%s%s %s", out->len ? ", " : "", name, b);
        }
        if (!out->len)
                g_string_append(out, _("no GPU figures yet"));
        return g_string_free(out, FALSE);
}

GtkWidget *app_button_new(const char *mnemonic, const char *accessible)
{
        GtkWidget *button = gtk_button_new_with_mnemonic(mnemonic);

        /* GTK 4.8 names a button by its label property, which it sets to the text with the mnemonic's
         * underscore, followed by the name of its mnemonic label (which labels it): "_Apply Apply", or
         * "Explain glxgears (4100) Explain" with a label property of ours. One name instead: ours alone,
         * else the label's text alone. */
        if (accessible) {
                gtk_accessible_update_property(GTK_ACCESSIBLE(button), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
                gtk_accessible_reset_relation(GTK_ACCESSIBLE(button), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
        } else
                gtk_accessible_reset_property(GTK_ACCESSIBLE(button), GTK_ACCESSIBLE_PROPERTY_LABEL);
        return button;
}

GtkWidget *app_add_text_row(GtkWidget *group, const char *title, const char *subtitle)
{
        GtkWidget *row = adw_action_row_new();

        adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
        adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), title);
        if (subtitle) {
                adw_action_row_set_subtitle(ADW_ACTION_ROW(row), subtitle);
                adw_action_row_set_subtitle_lines(ADW_ACTION_ROW(row), 0);
        }
        adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), row);
        return row;
}
