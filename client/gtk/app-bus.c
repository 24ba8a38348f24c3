/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The connection to nvprofiled, the watch descriptor's lifecycle and the periodic refresh; the service's
 * state (service-state.h) as the name's owner, the calls' errors and Usage.Sources tell it. */
#include <errno.h>
#include <gio/gunixfdlist.h>
#include <glib-unix.h>
#include <sys/socket.h>
#include <unistd.h>

#include "app.h"
#include "bus-names.h"
#include "state-page.h"

bool app_error_is_cancelled(const GError *error)
{
        return g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* The errno of GIO's local failures that say something of the bus (a connection refused, lost, ...). */
static int io_error_errno(const GError *error)
{
        static const struct {
                int code, error;
        } codes[] = {
                { G_IO_ERROR_NOT_FOUND, ENOENT },
                { G_IO_ERROR_CONNECTION_REFUSED, ECONNREFUSED },
                { G_IO_ERROR_CLOSED, ECONNRESET },
                { G_IO_ERROR_BROKEN_PIPE, EPIPE },
                { G_IO_ERROR_CONNECTION_CLOSED, ECONNRESET },
                { G_IO_ERROR_NOT_CONNECTED, ENOTCONN },
                { G_IO_ERROR_HOST_UNREACHABLE, EHOSTUNREACH },
                { G_IO_ERROR_NETWORK_UNREACHABLE, ENETUNREACH },
                { G_IO_ERROR_PERMISSION_DENIED, EACCES },
        };

        if (error->domain != G_IO_ERROR)
                return 0;
        for (size_t i = 0; i < G_N_ELEMENTS(codes); i++)
                if (error->code == codes[i].code)
                        return -codes[i].error;
        return 0;
}

ServiceState app_error_state(const GError *error)
{
        g_autofree char *name = NULL;
        g_autoptr(GError) copy = NULL;

        if (g_dbus_error_is_remote_error(error)) {
                name = g_dbus_error_get_remote_error(error);
                copy = g_error_copy(error);
                g_dbus_error_strip_remote_error(copy);
                return service_state_from_error(name, copy->message, 0);
        }
        /* GDBus's own failures of the connection (G_DBUS_ERROR_DISCONNECTED, ...) by their D-Bus names. */
        if (error->domain == G_DBUS_ERROR) {
                name = g_dbus_error_encode_gerror(error);
                return service_state_from_error(name, error->message, 0);
        }
        return service_state_from_error(NULL, NULL, io_error_errno(error));
}

char *app_error_message(const GError *error)
{
        g_autoptr(GError) copy = g_error_copy(error);
        ServiceState s = app_error_state(error);

        if (s >= 0) {
                g_debug("%s", error->message);
                return g_strdup_printf("%s. %s.", _(service_state_title(s)), _(service_state_next_step(s)));
        }
        g_dbus_error_strip_remote_error(copy);
        return g_strdup(copy->message);
}

/* --- the service's state -------------------------------------------------------------------------------- */

GtkWidget *app_states_wrap(App *app, GtkWidget *views)
{
        GtkWidget *widget;

        app->state_view = state_view_new(views, &widget);
        /* Until the proxies are there (the bus may be starting the daemon): the page says so, not a label. */
        app_set_status(app, NULL);
        state_view_show(app->state_view, SERVICE_STARTING, NULL);
        return widget;
}

static void app_show_state(App *app, ServiceState s, const char *detail)
{
        if (!app->state_view || g_cancellable_is_cancelled(app->cancellable))
                return;
        /* Gone after it was there: stopping or restarting, not "not running" (its figures are stale). */
        if (s == SERVICE_NOT_RUNNING && app->had_owner)
                s = SERVICE_STOPPED;
        app_set_status(app, NULL);
        state_view_show(app->state_view, s, detail);
}

/* A call failed: the state it means, if it means one (logged: the bus's text is never shown). */
static bool app_show_error_state(App *app, const GError *error)
{
        ServiceState s = app_error_state(error);

        if (s < 0)
                return false;
        g_debug("nvprofiled: %s", error->message);
        app_show_state(app, s, NULL);
        return true;
}

/* Running: whether it found a GPU and whether a usage source is unavailable, with the daemon's words. */
static void app_show_running(App *app)
{
        g_autoptr(GVariant) sources = app->usage ? nvp_usage_dup_sources(app->usage) : NULL;
        g_autoptr(GString) detail = g_string_new(NULL);
        ServiceState s = SERVICE_RUNNING;

        if (sources) {
                GVariantIter iter;
                const char *name, *state, *message;

                g_variant_iter_init(&iter, sources);
                while (g_variant_iter_next(&iter, "(&s&s&s)", &name, &state, &message)) {
                        if (service_state_from_source(state) != SERVICE_SOURCE_UNAVAILABLE)
                                continue;
                        /* A usage source ("nvml") and the daemon's message about it, as it gave it. */
                        g_string_append_printf(detail, "%s: %s", name, message);
                        g_string_append_c(detail, '\n');
                        s = SERVICE_SOURCE_UNAVAILABLE;
                }
                if (detail->len > 0)
                        g_string_truncate(detail, detail->len - 1);
        }
        if (app->devices && g_variant_n_children(app->devices) == 0)
                s = SERVICE_NO_GPU;
        app_show_state(app, s, detail->str);
}

static void on_sources(GObject *proxy, GParamSpec *pspec, gpointer data)
{
        App *app = data;

        /* Beside the figures only: a failure state stays until the daemon is back. */
        if (!service_state_is_failure(state_view_get(app->state_view)))
                app_show_running(app);
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
                /* The daemon closed it: it is going away, so its figures are stale at once (its name's
                 * owner change comes after). Asked again: a daemon that stays answers, and the figures are
                 * live again; a daemon that left fails the call, and its return brings the next watch. */
                app->watch_source = 0;
                watch_release(app);
                app_show_state(app, SERVICE_STOPPED, NULL);
                app_watch_update(app);
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
                if (app_show_error_state(app, error))
                        return;
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
        /* It answered: whatever closed the last watch, it is there. */
        if (state_view_get(app->state_view) == SERVICE_STOPPED)
                app_show_running(app);
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
                if (r->devices) {
                        gpus_view_update(app->gpus, r->devices);
                        g_clear_pointer(&app->devices, g_variant_unref);
                        app->devices = g_variant_ref(r->devices);
                        if (!service_state_is_failure(state_view_get(app->state_view)))
                                app_show_running(app);
                }
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
        if (!app_error_is_cancelled(error) && !app_show_error_state(r->app, error)) {
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
                app->had_owner = true;
                app_show_running(app);
                profiles_view_reload(app->profiles_view);
                if (app->lost) {
                        /* Back (restarted): what the old one held is gone; the watch and the figures follow. */
                        app->lost = false;
                        reports_view_reconnected(app->reports);
                }
        } else {
                /* Stale at once, and nothing polls a daemon that is not there. */
                watch_release(app);
                app->lost = app->had_owner;
                app_show_state(app, SERVICE_NOT_RUNNING, NULL);
        }
        app_watch_update(app);
        if (daemon_present(app))
                app_refresh(app);
}

static void on_generation(GObject *proxy, GParamSpec *pspec, gpointer data)
{
        App *app = data;

        /* The rc files changed: the profiles that apply, and the rules. Not when the daemon left (the
         * property is then merely forgotten). */
        if (!daemon_present(app))
                return;
        profiles_view_reload(app->profiles_view);
        app_refresh(app);
}

static void proxies_ready(App *app)
{
        if (!app->manager || !app->usage || !app->profiles)
                return;
        g_signal_connect(app->usage, "notify::g-name-owner", G_CALLBACK(on_name_owner), app);
        g_signal_connect(app->usage, "notify::sources", G_CALLBACK(on_sources), app);
        g_signal_connect(app->manager, "notify::config-generation", G_CALLBACK(on_generation), app);
        reports_view_connected(app->reports);
        on_name_owner(G_OBJECT(app->usage), NULL, app);
}

static void proxy_failed(App *app, const GError *error)
{
        if (app_error_is_cancelled(error))
                return;
        /* No proxy: the bus could not be reached, or it could not start the daemon. */
        g_warning("Cannot talk to nvprofiled: %s", error->message);
        /* The reports given meanwhile are read by the app itself. */
        reports_view_connected(app->reports);
        if (!app_show_error_state(app, error))
                app_show_state(app, app->bus ? SERVICE_NOT_RUNNING : SERVICE_UNREACHABLE, NULL);
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
                if (app_error_is_cancelled(error))
                        return;
                g_warning("Cannot connect to the bus: %s", error->message);
                app_show_state(app, app_error_state(error) == SERVICE_DENIED ? SERVICE_DENIED : SERVICE_UNREACHABLE,
                                NULL);
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
