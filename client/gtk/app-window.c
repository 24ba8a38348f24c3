/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "app-window.h"
#include "profile-edit.h"
#include "state-page.h"

/* The About window's links: the project and its issue tracker. */
#define APP_WEBSITE "https://github.com/nvprofiled/nvprofiled"

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

/* AdwPreferencesPage clamps its groups to 600 px: lists of figures then leave most of a wide window
 * empty. The pages get the window's width (less a margin); the clamp still centres them. A status page's
 * text keeps its clamp: a sentence across 1600 px is hard to read. */
#define APP_PAGE_MAXIMUM_WIDTH 1600

static void unclamp(GtkWidget *widget)
{
        if (ADW_IS_STATUS_PAGE(widget))
                return;
        if (ADW_IS_CLAMP(widget)) {
                adw_clamp_set_maximum_size(ADW_CLAMP(widget), APP_PAGE_MAXIMUM_WIDTH);
                adw_clamp_set_tightening_threshold(ADW_CLAMP(widget), APP_PAGE_MAXIMUM_WIDTH);
                return;
        }
        for (GtkWidget *child = gtk_widget_get_first_child(widget); child; child = gtk_widget_get_next_sibling(child))
                unclamp(child);
}

/* Reports work without the daemon (read in-process): its state is a banner above them, not a page
 * in their place. */
static void on_page_shown(AdwViewStack *stack, GParamSpec *pspec, gpointer data)
{
        App *app = data;

        state_view_set_works_alone(
                        app->state_view, g_strcmp0(adw_view_stack_get_visible_child_name(stack), "reports") == 0);
}

static GtkWidget *build_content(App *app)
{
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        GtkWidget *header = adw_header_bar_new();
        GtkWidget *title = adw_view_switcher_title_new();
        GtkWidget *switcher_bar = adw_view_switcher_bar_new();
        GtkWidget *menu_button = gtk_menu_button_new();
        g_autoptr(GMenu) menu = g_menu_new();
        g_autoptr(GMenu) help = g_menu_new();

        /* Wide: the page tabs in the header bar. Narrow (a phone, half a small screen): the window's
         * title there and the tabs in a bar at the bottom (libadwaita 1.2 has no breakpoints). */
        app->stack = ADW_VIEW_STACK(adw_view_stack_new());
        adw_view_switcher_title_set_stack(ADW_VIEW_SWITCHER_TITLE(title), app->stack);
        adw_view_switcher_title_set_title(ADW_VIEW_SWITCHER_TITLE(title), _("nvprofiled"));
        adw_header_bar_set_title_widget(ADW_HEADER_BAR(header), title);
        adw_view_switcher_bar_set_stack(ADW_VIEW_SWITCHER_BAR(switcher_bar), app->stack);
        g_object_bind_property(title, "title-visible", switcher_bar, "reveal", G_BINDING_SYNC_CREATE);

        g_menu_append(menu, _("_Open Report…"), "app.open-report");
        g_menu_append(menu, _("_Hide Window"), "app.hide");
        g_menu_append(help, _("_Keyboard Shortcuts"), "app.shortcuts");
        g_menu_append(help, _("_About nvprofiled"), "app.about");
        g_menu_append_section(menu, NULL, G_MENU_MODEL(help));
        g_menu_append(menu, _("_Quit"), "app.quit");
        gtk_menu_button_set_menu_model(GTK_MENU_BUTTON(menu_button), G_MENU_MODEL(menu));
        gtk_menu_button_set_icon_name(GTK_MENU_BUTTON(menu_button), "open-menu-symbolic");
        gtk_widget_set_tooltip_text(menu_button, _("Main menu"));
        gtk_accessible_update_property(GTK_ACCESSIBLE(menu_button), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Main menu"), -1);
        adw_header_bar_pack_end(ADW_HEADER_BAR(header), menu_button);
        gtk_box_append(GTK_BOX(box), header);

        app->status = GTK_LABEL(gtk_label_new(_("Connecting to nvprofiled…")));
        gtk_label_set_wrap(app->status, TRUE);
        gtk_label_set_wrap_mode(app->status, PANGO_WRAP_WORD_CHAR);
        gtk_widget_add_css_class(GTK_WIDGET(app->status), "dim-label");
        gtk_widget_set_margin_top(GTK_WIDGET(app->status), 6);
        gtk_widget_set_margin_bottom(GTK_WIDGET(app->status), 6);
        gtk_widget_set_margin_start(GTK_WIDGET(app->status), 12);
        gtk_widget_set_margin_end(GTK_WIDGET(app->status), 12);
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
        unclamp(GTK_WIDGET(app->stack));

        app->toasts = ADW_TOAST_OVERLAY(adw_toast_overlay_new());
        adw_toast_overlay_set_child(app->toasts, GTK_WIDGET(app->stack));
        gtk_widget_set_vexpand(GTK_WIDGET(app->toasts), TRUE);
        gtk_box_append(GTK_BOX(box), app_states_wrap(app, GTK_WIDGET(app->toasts)));
        g_signal_connect(app->stack, "notify::visible-child-name", G_CALLBACK(on_page_shown), app);
        on_page_shown(app->stack, NULL, app);
        gtk_box_append(GTK_BOX(box), switcher_bar);
        return box;
}

/* Escape and Ctrl+W close every window the app opens besides the main one (explanations, Add a Rule,
 * report details, the file chooser, About): one place, for windows made anywhere in the app. The close
 * goes through close-request, so a window that must stay open (a file being written) still can. */
static gboolean on_close_key(GtkWidget *widget, GVariant *args, gpointer data)
{
        App *app = data;

        if (!GTK_IS_WINDOW(widget) || GTK_WINDOW(widget) == app->window)
                return FALSE;
        gtk_window_close(GTK_WINDOW(widget));
        return TRUE;
}

static void add_close_keys(App *app, GtkWindow *window)
{
        GtkEventController *controller = gtk_shortcut_controller_new();

        gtk_shortcut_controller_add_shortcut(GTK_SHORTCUT_CONTROLLER(controller),
                        gtk_shortcut_new(gtk_shortcut_trigger_parse_string("Escape|<Control>w"),
                                        gtk_callback_action_new(on_close_key, app, NULL)));
        gtk_widget_add_controller(GTK_WIDGET(window), controller);
}

static void on_toplevels_changed(GListModel *toplevels, guint position, guint removed, guint added, gpointer data)
{
        for (guint i = position; i < position + added; i++) {
                g_autoptr(GObject) window = g_list_model_get_item(toplevels, i);

                if (GTK_IS_WINDOW(window))
                        add_close_keys(data, GTK_WINDOW(window));
        }
}

void app_window_present(App *app)
{
        if (!app->window) {
                g_signal_connect(gtk_window_get_toplevels(), "items-changed", G_CALLBACK(on_toplevels_changed), app);
                app->window = GTK_WINDOW(adw_application_window_new(GTK_APPLICATION(app->application)));
                gtk_window_set_title(app->window, _("nvprofiled"));
                gtk_window_set_default_icon_name(APP_ID);
                /* A default size, no minimum: the window goes down to a phone's width (360 px). */
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

static void on_view(GSimpleAction *action, GVariant *parameter, gpointer data)
{
        App *app = data;
        const char *name = g_variant_get_string(parameter, NULL);

        app_window_present(app);
        if (adw_view_stack_get_child_by_name(app->stack, name))
                adw_view_stack_set_visible_child_name(app->stack, name);
}

static void on_search(GSimpleAction *action, GVariant *parameter, gpointer data)
{
        App *app = data;

        app_window_present(app);
        adw_view_stack_set_visible_child_name(app->stack, "applications");
        apps_view_search(app->apps);
}

static void on_about(GSimpleAction *action, GVariant *parameter, gpointer data)
{
        App *app = data;
        GtkWidget *about = adw_about_window_new();

        app_window_present(app);
        gtk_window_set_transient_for(GTK_WINDOW(about), app->window);
        gtk_window_set_modal(GTK_WINDOW(about), TRUE);
        adw_about_window_set_application_name(ADW_ABOUT_WINDOW(about), _("nvprofiled"));
        adw_about_window_set_application_icon(ADW_ABOUT_WINDOW(about), APP_ID);
        adw_about_window_set_version(ADW_ABOUT_WINDOW(about), PACKAGE_VERSION);
        adw_about_window_set_comments(ADW_ABOUT_WINDOW(about),
                        _("GPU usage, application profiles and Nsight Compute reports, from nvprofiled."));
        adw_about_window_set_developer_name(ADW_ABOUT_WINDOW(about), _("nvprofiled developers"));
        adw_about_window_set_license_type(ADW_ABOUT_WINDOW(about), GTK_LICENSE_LGPL_2_1);
        adw_about_window_set_website(ADW_ABOUT_WINDOW(about), APP_WEBSITE);
        adw_about_window_set_issue_url(ADW_ABOUT_WINDOW(about), APP_WEBSITE "/issues");
        gtk_window_present(GTK_WINDOW(about));
}

/* The keys of the shortcuts window: each as the accelerators below bind it. */
typedef struct ShortcutEntry {
        const char *accelerator;
        const char *title; /* N_() */
} ShortcutEntry;

/* GTK 4.8 fills a shortcuts window only from GtkBuilder: the XML is made here, of the translated titles. */
static void append_shortcuts_group(GString *ui, const char *title, const ShortcutEntry *entries, size_t n)
{
        g_autofree char *group = g_markup_printf_escaped(
                        "<child><object class=\"GtkShortcutsGroup\"><property name=\"title\">%s</property>", title);

        g_string_append(ui, group);
        for (size_t i = 0; i < n; i++) {
                g_autofree char *shortcut = g_markup_printf_escaped(
                                "<child><object class=\"GtkShortcutsShortcut\"><property "
                                "name=\"accelerator\">%s</property><property name=\"title\">%s</property></object></child>",
                                entries[i].accelerator, _(entries[i].title));

                g_string_append(ui, shortcut);
        }
        g_string_append(ui, "</object></child>");
}

static void on_shortcuts(GSimpleAction *action, GVariant *parameter, gpointer data)
{
        static const ShortcutEntry views[] = {
                { "<Alt>1", N_("GPUs") },
                { "<Alt>2", N_("Applications") },
                { "<Alt>3", N_("Profiles") },
                { "<Alt>4", N_("Reports") },
                { "<Control>f", N_("Search applications") },
        };
        static const ShortcutEntry general[] = {
                { "<Control>o", N_("Open a report") },
                { "<Control>h", N_("Hide the window") },
                { "<Control>question F1", N_("Keyboard shortcuts") },
                { "<Control>q", N_("Quit") },
                { "Escape <Control>w", N_("Close a dialog") },
        };
        App *app = data;
        g_autoptr(GString) ui = g_string_new("<interface><object class=\"GtkShortcutsWindow\" id=\"window\">"
                                             "<property name=\"modal\">1</property><child><object "
                                             "class=\"GtkShortcutsSection\"><property "
                                             "name=\"section-name\">shortcuts</property>");
        g_autoptr(GtkBuilder) builder = NULL;
        GtkWindow *window;

        append_shortcuts_group(ui, _("Views"), views, G_N_ELEMENTS(views));
        append_shortcuts_group(ui, _("General"), general, G_N_ELEMENTS(general));
        g_string_append(ui, "</object></child></object></interface>");
        builder = gtk_builder_new_from_string(ui->str, (gssize) ui->len);
        window = GTK_WINDOW(gtk_builder_get_object(builder, "window"));
        app_window_present(app);
        gtk_window_set_title(window, _("Keyboard Shortcuts"));
        gtk_window_set_transient_for(window, app->window);
        gtk_window_present(window);
}

static void set_accels(App *app, const char *action, const char *const *accels)
{
        gtk_application_set_accels_for_action(GTK_APPLICATION(app->application), action, accels);
}

void app_window_install_actions(App *app)
{
        static const GActionEntry actions[] = {
                { "quit", on_quit, NULL, NULL, NULL, { 0 } },
                { "hide", on_hide, NULL, NULL, NULL, { 0 } },
                { "open-report", on_open_report, NULL, NULL, NULL, { 0 } },
                { "view", on_view, "s", NULL, NULL, { 0 } },
                { "search", on_search, NULL, NULL, NULL, { 0 } },
                { "about", on_about, NULL, NULL, NULL, { 0 } },
                { "shortcuts", on_shortcuts, NULL, NULL, NULL, { 0 } },
        };

        g_action_map_add_action_entries(G_ACTION_MAP(app->application), actions, G_N_ELEMENTS(actions), app);
        profile_edit_install_actions(app);
        set_accels(app, "app.quit", (const char *const[]){ "<Control>q", NULL });
        set_accels(app, "app.open-report", (const char *const[]){ "<Control>o", NULL });
        set_accels(app, "app.hide", (const char *const[]){ "<Control>h", NULL });
        set_accels(app, "app.view::gpus", (const char *const[]){ "<Alt>1", NULL });
        set_accels(app, "app.view::applications", (const char *const[]){ "<Alt>2", NULL });
        set_accels(app, "app.view::profiles", (const char *const[]){ "<Alt>3", NULL });
        set_accels(app, "app.view::reports", (const char *const[]){ "<Alt>4", NULL });
        set_accels(app, "app.search", (const char *const[]){ "<Control>f", NULL });
        set_accels(app, "app.shortcuts", (const char *const[]){ "<Control>question", "F1", NULL });
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
