/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "app-window.h"
#include "state-page.h"

static void watch_follow_window(App *app)
{
        GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(app->window));
        bool minimized = surface && GDK_IS_TOPLEVEL(surface) &&
                        (gdk_toplevel_get_state(GDK_TOPLEVEL(surface)) & GDK_TOPLEVEL_STATE_MINIMIZED);

        app->watch_wanted = gtk_widget_get_mapped(GTK_WIDGET(app->window)) && !minimized;
        app_watch_update(app);
}

static void on_map_changed(GtkWidget *window, gpointer data)
{
        watch_follow_window(data);
}

static void on_surface_state(GObject *surface, GParamSpec *pspec, gpointer data)
{
        watch_follow_window(data);
}

static void on_realize(GtkWidget *window, gpointer data)
{
        GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));

        /* Minimised windows stay mapped: the surface's state says so (GTK 4.8 has no "suspended"). */
        if (surface && GDK_IS_TOPLEVEL(surface))
                g_signal_connect(surface, "notify::state", G_CALLBACK(on_surface_state), data);
}

static void add_page(App *app, GtkWidget *child, const char *name, const char *title, const char *icon)
{
        AdwViewStackPage *page = adw_view_stack_add_titled(app->stack, child, name, title);

        adw_view_stack_page_set_icon_name(page, icon);
}

static GtkWidget *build_content(App *app)
{
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        GtkWidget *header = adw_header_bar_new();
        GtkWidget *switcher = adw_view_switcher_new();
        GtkWidget *menu_button = gtk_menu_button_new();
        g_autoptr(GMenu) menu = g_menu_new();

        app->stack = ADW_VIEW_STACK(adw_view_stack_new());
        adw_view_switcher_set_stack(ADW_VIEW_SWITCHER(switcher), app->stack);
        adw_view_switcher_set_policy(ADW_VIEW_SWITCHER(switcher), ADW_VIEW_SWITCHER_POLICY_WIDE);
        adw_header_bar_set_title_widget(ADW_HEADER_BAR(header), switcher);

        g_menu_append(menu, _("_Open Report…"), "app.open-report");
        g_menu_append(menu, _("_Hide Window"), "app.hide");
        g_menu_append(menu, _("_Quit"), "app.quit");
        gtk_menu_button_set_menu_model(GTK_MENU_BUTTON(menu_button), G_MENU_MODEL(menu));
        gtk_menu_button_set_icon_name(GTK_MENU_BUTTON(menu_button), "open-menu-symbolic");
        gtk_widget_set_tooltip_text(menu_button, _("Main menu"));
        gtk_accessible_update_property(GTK_ACCESSIBLE(menu_button), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Main menu"), -1);
        adw_header_bar_pack_end(ADW_HEADER_BAR(header), menu_button);
        gtk_box_append(GTK_BOX(box), header);

        app->status = GTK_LABEL(gtk_label_new(_("Connecting to nvprofiled…")));
        gtk_label_set_wrap(app->status, TRUE);
        gtk_widget_add_css_class(GTK_WIDGET(app->status), "dim-label");
        gtk_widget_set_margin_top(GTK_WIDGET(app->status), 6);
        gtk_widget_set_margin_bottom(GTK_WIDGET(app->status), 6);
        gtk_box_append(GTK_BOX(box), GTK_WIDGET(app->status));

        app->gpus = gpus_view_new(app);
        app->apps = apps_view_new(app);
        app->profiles_view = profiles_view_new(app);
        app->reports = reports_view_new(app);
        add_page(app, gpus_view_widget(app->gpus), "gpus", _("GPUs"), "video-display-symbolic");
        add_page(app, apps_view_widget(app->apps), "applications", _("Applications"),
                        "application-x-executable-symbolic");
        add_page(app, profiles_view_widget(app->profiles_view), "profiles", _("Profiles"),
                        "document-properties-symbolic");
        add_page(app, reports_view_widget(app->reports), "reports", _("Reports"), "x-office-document-symbolic");

        app->toasts = ADW_TOAST_OVERLAY(adw_toast_overlay_new());
        adw_toast_overlay_set_child(app->toasts, GTK_WIDGET(app->stack));
        gtk_widget_set_vexpand(GTK_WIDGET(app->toasts), TRUE);
        gtk_box_append(GTK_BOX(box), app_states_wrap(app, GTK_WIDGET(app->toasts)));
        return box;
}

void app_window_present(App *app)
{
        if (!app->window) {
                app->window = GTK_WINDOW(adw_application_window_new(GTK_APPLICATION(app->application)));
                gtk_window_set_title(app->window, _("nvprofiled"));
                gtk_window_set_default_size(app->window, 960, 720);
                adw_application_window_set_content(ADW_APPLICATION_WINDOW(app->window), build_content(app));
                g_signal_connect(app->window, "map", G_CALLBACK(on_map_changed), app);
                g_signal_connect(app->window, "unmap", G_CALLBACK(on_map_changed), app);
                g_signal_connect(app->window, "realize", G_CALLBACK(on_realize), app);
                app_connect(app);
        }
        gtk_window_present(app->window);
}

static void on_quit(GSimpleAction *action, GVariant *parameter, gpointer data)
{
        App *app = data;

        g_application_quit(G_APPLICATION(app->application));
}

static void on_hide(GSimpleAction *action, GVariant *parameter, gpointer data)
{
        App *app = data;

        if (app->window)
                gtk_widget_set_visible(GTK_WIDGET(app->window), FALSE);
}

static void on_open_report(GSimpleAction *action, GVariant *parameter, gpointer data)
{
        App *app = data;

        app_window_present(app);
        adw_view_stack_set_visible_child_name(app->stack, "reports");
        reports_view_open_file(app->reports, NULL);
}

void app_window_install_actions(App *app)
{
        static const GActionEntry actions[] = {
                { "quit", on_quit, NULL, NULL, NULL, { 0 } },
                { "hide", on_hide, NULL, NULL, NULL, { 0 } },
                { "open-report", on_open_report, NULL, NULL, NULL, { 0 } },
        };

        g_action_map_add_action_entries(G_ACTION_MAP(app->application), actions, G_N_ELEMENTS(actions), app);
        gtk_application_set_accels_for_action(
                        GTK_APPLICATION(app->application), "app.quit", (const char *const[]){ "<Control>q", NULL });
        gtk_application_set_accels_for_action(GTK_APPLICATION(app->application), "app.open-report",
                        (const char *const[]){ "<Control>o", NULL });
        gtk_application_set_accels_for_action(
                        GTK_APPLICATION(app->application), "app.hide", (const char *const[]){ "<Control>h", NULL });
}

void app_window_free(App *app)
{
        g_clear_pointer(&app->gpus, gpus_view_free);
        g_clear_pointer(&app->apps, apps_view_free);
        g_clear_pointer(&app->profiles_view, profiles_view_free);
        g_clear_pointer(&app->reports, reports_view_free);
        g_clear_pointer(&app->state_view, state_view_free);
        g_clear_pointer(&app->devices, g_variant_unref);
        g_clear_object(&app->manager);
        g_clear_object(&app->usage);
        g_clear_object(&app->profiles);
        g_clear_object(&app->bus);
        g_clear_object(&app->cancellable);
        g_clear_pointer(&app->bus_address, g_free);
}
