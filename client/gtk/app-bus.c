/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The connection to nvprofiled, the watch descriptor's lifecycle and the periodic refresh. */
#include <errno.h>
#include <gio/gunixfdlist.h>
#include <glib-unix.h>
#include <sys/socket.h>
#include <unistd.h>

#include "app.h"
#include "bus-names.h"

bool app_error_is_cancelled(const GError *error)
{
        return g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

char *app_error_message(const GError *error)
{
        g_autoptr(GError) copy = g_error_copy(error);

        g_dbus_error_strip_remote_error(copy);
        return g_strdup(copy->message);
}

void app_toast(App *app, const char *text)
{
        adw_toast_overlay_add_toast(app->toasts, adw_toast_new(text));
}

void app_set_status(App *app, const char *text)
{
        gtk_label_set_text(app->status, text ? text : "");
        gtk_widget_set_visible(GTK_WIDGET(app->status), text != NULL);
}

/* --- the watch ------------------------------------------------------------------------------------------ */

static void watch_release(App *app)
{
        /* The source first: GLib must not poll a closed (or reused) fd number. */
        if (app->watch_source)
                g_source_remove(app->watch_source);
        app->watch_source = 0;
        if (app->watch_fd >= 0)
                (void) close(app->watch_fd);
        app->watch_fd = -1;
        app->watch_generation++;
}

static gboolean on_watch_ready(int fd, GIOCondition condition, gpointer data)
{
        App *app = data;
        char buffer[64];

        if (condition & (G_IO_HUP | G_IO_ERR)) {
                /* The daemon went away; the name's owner change brings the next watch. */
                app->watch_source = 0;
                watch_release(app);
                app_set_status(app, _("nvprofiled stopped; waiting for it to come back."));
                return G_SOURCE_REMOVE;
        }
        while (recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT) > 0)
                ;
        app_refresh(app);
        return G_SOURCE_CONTINUE;
}

typedef struct WatchCall {
        App *app;
        unsigned generation;
} WatchCall;

static void on_watch_usage(GObject *source, GAsyncResult *result, gpointer data)
{
        g_autofree WatchCall *call = data;
        g_autoptr(GVariant) handle = NULL;
        g_autoptr(GUnixFDList) fds = NULL;
        g_autoptr(GError) error = NULL;
        App *app = call->app;
        int fd;

        if (!nvp_usage_call_watch_usage_finish(NVP_USAGE(source), &handle, &fds, result, &error)) {
                g_autofree char *message = NULL;

                if (app_error_is_cancelled(error))
                        return;
                app->watch_pending = false;
                message = app_error_message(error);
                app_set_status(app, message);
                return;
        }
        app->watch_pending = false;
        fd = fds ? g_unix_fd_list_get(fds, g_variant_get_handle(handle), &error) : -1;
        if (fd < 0) {
                app_set_status(app, _("nvprofiled sent no watch descriptor."));
                return;
        }
        if (call->generation != app->watch_generation || !app->watch_wanted) {
                /* Released (hidden) while the call was under way. */
                (void) close(fd);
                app_watch_update(app);
                return;
        }
        app->watch_fd = fd;
        app->watch_source = g_unix_fd_add(fd, G_IO_IN | G_IO_HUP | G_IO_ERR, on_watch_ready, app);
        app_refresh(app);
}

static bool daemon_present(App *app)
{
        g_autofree char *owner = app->usage ? g_dbus_proxy_get_name_owner(G_DBUS_PROXY(app->usage)) : NULL;

        return owner != NULL;
}

void app_watch_update(App *app)
{
        WatchCall *call;

        if (!app->watch_wanted || !app->usage || g_cancellable_is_cancelled(app->cancellable)) {
                watch_release(app);
                return;
        }
        if (app->watch_fd >= 0 || app->watch_pending)
                return;
        app->watch_pending = true;
        call = g_new(WatchCall, 1);
        *call = (WatchCall){ .app = app, .generation = app->watch_generation };
        nvp_usage_call_watch_usage(app->usage, APP_WATCH_INTERVAL_USEC, G_DBUS_CALL_FLAGS_NONE, -1, NULL,
                        app->cancellable, on_watch_usage, call);
}

/* --- refreshing the usage views ------------------------------------------------------------------------- */

typedef struct Refresh {
        App *app;
        unsigned pending;
        GVariant *devices, *groups, *processes;
} Refresh;

static void refresh_done(Refresh *r)
{
        App *app = r->app;

        if (--r->pending > 0)
                return;
        if (!g_cancellable_is_cancelled(app->cancellable)) {
                if (r->devices)
                        gpus_view_update(app->gpus, r->devices);
                if (r->groups && r->processes)
                        apps_view_update(app->apps, r->devices, r->groups, r->processes);
                app->refreshing = false;
                if (app->refresh_again) {
                        app->refresh_again = false;
                        app_refresh(app);
                }
        }
        g_clear_pointer(&r->devices, g_variant_unref);
        g_clear_pointer(&r->groups, g_variant_unref);
        g_clear_pointer(&r->processes, g_variant_unref);
        g_free(r);
}

static void refresh_failed(Refresh *r, const GError *error)
{
        if (!app_error_is_cancelled(error)) {
                g_autofree char *message = app_error_message(error);

                app_set_status(r->app, message);
        }
}

static void on_devices(GObject *source, GAsyncResult *result, gpointer data)
{
        Refresh *r = data;
        g_autoptr(GError) error = NULL;

        if (!nvp_usage_call_list_gpu_devices_finish(NVP_USAGE(source), &r->devices, result, &error))
                refresh_failed(r, error);
        refresh_done(r);
}

static void on_groups(GObject *source, GAsyncResult *result, gpointer data)
{
        Refresh *r = data;
        g_autoptr(GError) error = NULL;

        if (!nvp_usage_call_list_gpu_groups_finish(NVP_USAGE(source), &r->groups, result, &error))
                refresh_failed(r, error);
        refresh_done(r);
}

static void on_processes(GObject *source, GAsyncResult *result, gpointer data)
{
        Refresh *r = data;
        g_autoptr(GError) error = NULL;

        if (!nvp_usage_call_list_gpu_processes_attributed_finish(NVP_USAGE(source), &r->processes, result, &error))
                refresh_failed(r, error);
        refresh_done(r);
}

void app_refresh(App *app)
{
        Refresh *r;

        if (!app->usage || !app->watch_wanted)
                return;
        if (app->refreshing) {
                app->refresh_again = true;
                return;
        }
        app->refreshing = true;
        r = g_new0(Refresh, 1);
        r->app = app;
        r->pending = 3;
        nvp_usage_call_list_gpu_devices(app->usage, G_DBUS_CALL_FLAGS_NONE, -1, app->cancellable, on_devices, r);
        nvp_usage_call_list_gpu_groups(
                        app->usage, "application", G_DBUS_CALL_FLAGS_NONE, -1, app->cancellable, on_groups, r);
        nvp_usage_call_list_gpu_processes_attributed(
                        app->usage, G_DBUS_CALL_FLAGS_NONE, -1, app->cancellable, on_processes, r);
}

/* --- connecting ----------------------------------------------------------------------------------------- */

static void on_name_owner(GObject *proxy, GParamSpec *pspec, gpointer data)
{
        App *app = data;

        if (daemon_present(app)) {
                app_set_status(app, NULL);
                profiles_view_reload(app->profiles_view);
        } else {
                watch_release(app);
                app_set_status(app, _("nvprofiled is not running; waiting for it."));
        }
        app_watch_update(app);
}

static void on_generation(GObject *proxy, GParamSpec *pspec, gpointer data)
{
        App *app = data;

        /* The rc files changed: the profiles that apply, and the rules. */
        profiles_view_reload(app->profiles_view);
        app_refresh(app);
}

static void proxies_ready(App *app)
{
        if (!app->manager || !app->usage || !app->profiles)
                return;
        g_signal_connect(app->usage, "notify::g-name-owner", G_CALLBACK(on_name_owner), app);
        g_signal_connect(app->manager, "notify::config-generation", G_CALLBACK(on_generation), app);
        reports_view_connected(app->reports);
        on_name_owner(G_OBJECT(app->usage), NULL, app);
}

static void proxy_failed(App *app, const GError *error)
{
        g_autofree char *message = NULL;

        if (app_error_is_cancelled(error))
                return;
        message = app_error_message(error);
        app_set_status(app, message);
}

static void on_manager(GObject *source, GAsyncResult *result, gpointer data)
{
        g_autoptr(GError) error = NULL;
        NvpManager *proxy = nvp_manager_proxy_new_finish(result, &error);

        if (!proxy) {
                proxy_failed(data, error);
                return;
        }
        ((App *) data)->manager = proxy;
        proxies_ready(data);
}

static void on_usage(GObject *source, GAsyncResult *result, gpointer data)
{
        g_autoptr(GError) error = NULL;
        NvpUsage *proxy = nvp_usage_proxy_new_finish(result, &error);

        if (!proxy) {
                proxy_failed(data, error);
                return;
        }
        ((App *) data)->usage = proxy;
        proxies_ready(data);
}

static void on_profiles(GObject *source, GAsyncResult *result, gpointer data)
{
        g_autoptr(GError) error = NULL;
        NvpProfiles *proxy = nvp_profiles_proxy_new_finish(result, &error);

        if (!proxy) {
                proxy_failed(data, error);
                return;
        }
        ((App *) data)->profiles = proxy;
        proxies_ready(data);
}

static void on_bus(GObject *source, GAsyncResult *result, gpointer data)
{
        App *app = data;
        g_autoptr(GError) error = NULL;

        app->bus = app->bus_address ? g_dbus_connection_new_for_address_finish(result, &error)
                                    : g_bus_get_finish(result, &error);
        if (!app->bus) {
                proxy_failed(app, error);
                return;
        }
        nvp_manager_proxy_new(
                        app->bus, G_DBUS_PROXY_FLAGS_NONE, BUS_NAME, BUS_ROOT_PATH, app->cancellable, on_manager, app);
        nvp_usage_proxy_new(
                        app->bus, G_DBUS_PROXY_FLAGS_NONE, BUS_NAME, BUS_ROOT_PATH, app->cancellable, on_usage, app);
        nvp_profiles_proxy_new(
                        app->bus, G_DBUS_PROXY_FLAGS_NONE, BUS_NAME, BUS_ROOT_PATH, app->cancellable, on_profiles, app);
}

void app_connect(App *app)
{
        if (app->bus_address)
                g_dbus_connection_new_for_address(app->bus_address,
                                G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                NULL, app->cancellable, on_bus, app);
        else
                g_bus_get(G_BUS_TYPE_SYSTEM, app->cancellable, on_bus, app);
}
