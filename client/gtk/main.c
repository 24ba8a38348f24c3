/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofiled-gtk [--bus-address=ADDRESS] [REPORT.ncu-rep...] */
#include <locale.h>

#include "app.h"
#include "app-window.h"

static App app_state = { .watch_fd = -1 };

static void on_activate(GApplication *application, gpointer data)
{
        App *app = data;

        app_window_present(app);
}

static void on_open(GApplication *application, GFile **files, int n_files, const char *hint, gpointer data)
{
        App *app = data;

        app_window_present(app);
        for (int i = 0; i < n_files; i++)
                reports_view_open_file(app->reports, files[i]);
        adw_view_stack_set_visible_child_name(app->stack, "reports");
}

static void on_shutdown(GApplication *application, gpointer data)
{
        App *app = data;

        g_cancellable_cancel(app->cancellable);
        app->watch_wanted = false;
        app_watch_update(app);
}

/* The catalogues: NVPROFILED_GTK_LOCALEDIR (absolute) names another tree than the installed one, a
 * build tree's (meson devenv, the tests) or a relocated install's. */
static const char *locale_dir(void)
{
        const char *dir = g_getenv("NVPROFILED_GTK_LOCALEDIR");

        return dir && g_path_is_absolute(dir) ? dir : LOCALEDIR;
}

static int on_handle_local_options(GApplication *application, GVariantDict *options, gpointer data)
{
        App *app = data;
        const char *address = NULL;

        if (g_variant_dict_lookup(options, "bus-address", "&s", &address))
                app->bus_address = g_strdup(address);
        return -1;
}

int main(int argc, char *argv[])
{
        static const GOptionEntry entries[] = {
                { "bus-address", 0, 0, G_OPTION_ARG_STRING, NULL,
                                N_("Talk to nvprofiled on this D-Bus address instead of the system bus"),
                                N_("ADDRESS") },
                { NULL },
        };
        g_autoptr(AdwApplication) application = NULL;
        int status;

        setlocale(LC_ALL, "");
        bindtextdomain(GETTEXT_PACKAGE, locale_dir());
        bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
        textdomain(GETTEXT_PACKAGE);

        application = adw_application_new(APP_ID, G_APPLICATION_HANDLES_OPEN);
        app_state.application = application;
        app_state.cancellable = g_cancellable_new();
        g_application_add_main_option_entries(G_APPLICATION(application), entries);
        g_application_set_option_context_summary(G_APPLICATION(application),
                        _("GPU usage, application profiles and Nsight Compute reports, from nvprofiled."));
        g_signal_connect(application, "handle-local-options", G_CALLBACK(on_handle_local_options), &app_state);
        g_signal_connect(application, "activate", G_CALLBACK(on_activate), &app_state);
        g_signal_connect(application, "open", G_CALLBACK(on_open), &app_state);
        g_signal_connect(application, "shutdown", G_CALLBACK(on_shutdown), &app_state);
        app_window_install_actions(&app_state);

        status = g_application_run(G_APPLICATION(application), argc, argv);

        app_window_free(&app_state);
        return status;
}
