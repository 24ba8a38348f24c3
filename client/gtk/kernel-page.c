/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One kernel's window: its "Details" (kernel_details_new(), report-details.c) and its "Source"
 * (kernel_source_new(), report-source.c) in a view stack. Until those are linked, Details lists the
 * kernel's rule results by section (Report.GetRuleResults, or the model's) and Source says it is not
 * there. */
#include "reports.h"

GtkWidget *kernel_details_new(App *app, ReportHandle *h, guint32 range, guint32 action) __attribute__((weak));
GtkWidget *kernel_source_new(App *app, ReportHandle *h, guint32 range, guint32 action) __attribute__((weak));

typedef struct RulesCall {
        App *app;
        ReportHandle *handle;
        GtkWidget *page; /* AdwPreferencesPage, referenced */
        guint32 range, action;
        bool reloaded;
} RulesCall;

static void rules_call_free(RulesCall *call)
{
        report_handle_unref(call->handle);
        g_object_unref(call->page);
        g_free(call);
}

static GtkWidget *rules_section(GtkWidget *page, GHashTable *sections, const char *section)
{
        GtkWidget *group = g_hash_table_lookup(sections, section);
        g_autofree char *heading = NULL;

        if (group)
                return group;
        heading = g_strdup_printf(_("Section %s"), *section ? section : "-");
        group = adw_preferences_group_new();
        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(group), heading);
        adw_preferences_page_add(ADW_PREFERENCES_PAGE(page), ADW_PREFERENCES_GROUP(group));
        g_hash_table_insert(sections, g_strdup(section), group);
        return group;
}

static void rules_add(GtkWidget *group, const char *name, const char *title, const char *type, const char *text)
{
        g_autofree char *row_title = title && *title ? g_strdup_printf("%s: %s (%s)", name, title, type)
                                                     : g_strdup_printf("%s (%s)", name, type);

        app_add_text_row(group, row_title, text);
}

static void rules_failed(GtkWidget *page, const char *message)
{
        GtkWidget *group = adw_preferences_group_new();

        app_add_text_row(group, _("Cannot read the rule results"), message);
        adw_preferences_page_add(ADW_PREFERENCES_PAGE(page), ADW_PREFERENCES_GROUP(group));
}

static void rules_send(RulesCall *call);

static void on_reloaded(gpointer data, bool ok)
{
        RulesCall *call = data;

        if (ok)
                rules_send(call);
        else {
                rules_failed(call->page, _("The report could not be loaded again"));
                rules_call_free(call);
        }
}

static void on_rule_results(GObject *source, GAsyncResult *result, gpointer data)
{
        RulesCall *call = data;
        g_autoptr(GVariant) results = NULL;
        g_autoptr(GError) error = NULL;
        g_autoptr(GHashTable) sections = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        const char *identifier, *name, *section, *type, *title, *text;
        GVariant *messages, *speedups;
        GVariantIter iter, m;

        if (!nvp_report_call_get_rule_results_finish(NVP_REPORT(source), &results, result, &error)) {
                if (!call->reloaded && report_error_is_dropped(error)) {
                        /* Loaded again, then asked again: once. */
                        call->reloaded = true;
                        reports_view_reload(call->app->reports, call->handle, on_reloaded, call);
                        return;
                }
                if (!app_error_is_cancelled(error)) {
                        g_autofree char *message = app_error_message(error);

                        rules_failed(call->page, message);
                }
                rules_call_free(call);
                return;
        }
        g_variant_iter_init(&iter, results);
        while (g_variant_iter_next(
                        &iter, "(&s&s&s@a(sss)@a(sd))", &identifier, &name, &section, &messages, &speedups)) {
                GtkWidget *group = rules_section(call->page, sections, section);

                g_variant_iter_init(&m, messages);
                while (g_variant_iter_next(&m, "(&s&s&s)", &type, &title, &text))
                        rules_add(group, name, title, type, text);
                g_variant_unref(messages);
                g_variant_unref(speedups);
        }
        rules_call_free(call);
}

static void rules_send(RulesCall *call)
{
        nvp_report_call_get_rule_results(report_handle_proxy(call->handle), call->range, call->action,
                        G_DBUS_CALL_FLAGS_NONE, -1, call->app->cancellable, on_rule_results, call);
}

static void rules_from_model(GtkWidget *page, const NcuReport *model, guint32 range, guint32 action)
{
        const NcuAction *a = ncu_report_action(model, range, action);
        g_autoptr(GHashTable) sections = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

        if (!a) {
                rules_failed(page, _("No such kernel"));
                return;
        }
        for (size_t i = 0; i < a->n_rule_results; i++) {
                const NcuRuleResult *rr = &a->rule_results[i];
                GtkWidget *group = rules_section(page, sections, rr->section_identifier ? rr->section_identifier : "");

                for (size_t j = 0; j < rr->n_messages; j++) {
                        const char *type = ncu_rule_message_type_to_string(rr->messages[j].type);

                        rules_add(group, rr->display_name ? rr->display_name : rr->identifier, rr->messages[j].name,
                                        type ? type : "?", rr->messages[j].text ? rr->messages[j].text : "");
                }
        }
}

/* The kernel's rule results by section: what Details shows until report-details.c is linked. */
static GtkWidget *rules_page_new(App *app, ReportHandle *h, guint32 range, guint32 action)
{
        GtkWidget *page = adw_preferences_page_new();
        RulesCall *call;

        if (report_handle_model(h)) {
                rules_from_model(page, report_handle_model(h), range, action);
                return page;
        }
        call = g_new0(RulesCall, 1);
        call->app = app;
        call->handle = report_handle_ref(h);
        call->page = g_object_ref(page);
        call->range = range;
        call->action = action;
        rules_send(call);
        return page;
}

GtkWidget *kernel_page_show(App *app, ReportHandle *h, guint32 range, guint32 action, const char *name)
{
        GtkWidget *window = adw_window_new();
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        GtkWidget *header = adw_header_bar_new();
        GtkWidget *switcher = adw_view_switcher_title_new();
        AdwViewStack *stack = ADW_VIEW_STACK(adw_view_stack_new());
        GtkWidget *details, *source;
        g_autofree char *title = g_strdup_printf(_("Kernel %s"), name);

        gtk_window_set_title(GTK_WINDOW(window), title);
        gtk_window_set_transient_for(GTK_WINDOW(window), app->window);
        gtk_window_set_default_size(GTK_WINDOW(window), 860, 640);
        details = kernel_details_new ? kernel_details_new(app, h, range, action)
                                     : rules_page_new(app, h, range, action);
        if (kernel_source_new)
                source = kernel_source_new(app, h, range, action);
        else {
                source = adw_status_page_new();
                adw_status_page_set_title(ADW_STATUS_PAGE(source), _("No source view in this build"));
        }
        adw_view_stack_add_titled(stack, details, "details", _("Details"));
        adw_view_stack_add_titled(stack, source, "source", _("Source"));
        adw_view_stack_page_set_icon_name(adw_view_stack_get_page(stack, details), "document-properties-symbolic");
        adw_view_stack_page_set_icon_name(adw_view_stack_get_page(stack, source), "text-x-generic-symbolic");
        adw_view_switcher_title_set_stack(ADW_VIEW_SWITCHER_TITLE(switcher), stack);
        adw_view_switcher_title_set_title(ADW_VIEW_SWITCHER_TITLE(switcher), title);
        adw_view_switcher_title_set_subtitle(ADW_VIEW_SWITCHER_TITLE(switcher), report_handle_title(h));
        adw_header_bar_set_title_widget(ADW_HEADER_BAR(header), switcher);
        gtk_widget_set_vexpand(GTK_WIDGET(stack), TRUE);
        gtk_box_append(GTK_BOX(box), header);
        gtk_box_append(GTK_BOX(box), GTK_WIDGET(stack));
        adw_window_set_content(ADW_WINDOW(window), box);
        gtk_window_present(GTK_WINDOW(window));
        return window;
}
