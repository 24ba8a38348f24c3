/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One kernel's window: its "Details" (kernel_details_new(), report-details.c) and its "Source"
 * (kernel_source_new(), report-source.c) in a view stack. */
#include "reports.h"

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
        details = kernel_details_new(app, h, range, action);
        source = kernel_source_new(app, h, range, action);
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
