/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One kernel's window: its "Details" (kernel_details_new(), report-details.c) and its "Source"
 * (kernel_source_new(), report-source.c) in a view stack. The Source page is made when it is first shown:
 * its tables have a row and a cell per line and metric, which a user who reads only the details should
 * not pay for, in making them or in tearing them down with the window. */
#include "reports.h"

/* What the Source page is made of, kept by its holder until it is made. */
typedef struct SourceLater {
        App *app;
        ReportHandle *handle;
        guint32 range, action;
} SourceLater;

static void source_later_free(gpointer data)
{
        SourceLater *s = data;

        report_handle_unref(s->handle);
        g_free(s);
}

static void on_visible_child(AdwViewStack *stack, GParamSpec *pspec, gpointer data)
{
        GtkWidget *holder = data;
        SourceLater *s = g_object_get_data(G_OBJECT(holder), "source-later");

        if (!s || g_strcmp0(adw_view_stack_get_visible_child_name(stack), "source") != 0)
                return;
        gtk_box_append(GTK_BOX(holder), kernel_source_new(s->app, s->handle, s->range, s->action));
        g_object_set_data(G_OBJECT(holder), "source-later", NULL);
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
        details = kernel_details_new(app, h, range, action);
        source = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        {
                SourceLater *later = g_new0(SourceLater, 1);

                *later = (SourceLater){ app, report_handle_ref(h), range, action };
                g_object_set_data_full(G_OBJECT(source), "source-later", later, source_later_free);
                g_signal_connect_object(stack, "notify::visible-child", G_CALLBACK(on_visible_child), source, 0);
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
