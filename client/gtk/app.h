/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* nvprofiled-gtk: the desktop app over the daemon's D-Bus API (system bus, or --bus-address). Every call
 * is asynchronous; the app reads nothing of /proc and needs no privileges. It holds a WatchUsage
 * descriptor only while its window is mapped and not minimised, so the daemon samples GPU usage only
 * while somebody looks. */

#include <adwaita.h>
#include <glib/gi18n.h>
#include <gtk/gtk.h>
#include <stdbool.h>

#include "nvp-dbus.h"
#include "service-state.h"

#define APP_ID "io.github.nvprofiled.Monitor"
#define APP_WATCH_INTERVAL_USEC G_GUINT64_CONSTANT(1000000)

typedef struct GpusView GpusView;
typedef struct AppsView AppsView;
typedef struct ProfilesView ProfilesView;
typedef struct ReportsView ReportsView;
typedef struct StateView StateView;

typedef struct App {
        AdwApplication *application;
        char *bus_address; /* --bus-address; NULL: the system bus */
        GCancellable *cancellable;
        GDBusConnection *bus;
        NvpManager *manager;
        NvpUsage *usage;
        NvpProfiles *profiles;

        GtkWindow *window;
        AdwViewStack *stack;
        AdwToastOverlay *toasts;
        GtkLabel *status; /* the daemon's state, under the header bar */

        /* The watch: held from map to unmap (and dropped while minimised). */
        int watch_fd;
        guint watch_source;
        unsigned watch_generation; /* bumped on each release: a late WatchUsage reply is then closed */
        bool watch_wanted;
        bool watch_pending; /* a WatchUsage call is under way */
        bool refreshing, refresh_again;

        GpusView *gpus;
        AppsView *apps;
        ProfilesView *profiles_view;
        ReportsView *reports;

        /* The service's state (app-bus.c, state-page.c): the page or banner that says it. */
        StateView *state_view;
        bool had_owner; /* the daemon was there since the app connected: its loss is "stopped" */
        bool lost; /* it left: on its return, re-subscribe, re-fetch and reload the open reports */
        GVariant *devices; /* the latest ListGpuDevices, for "no GPU" */
} App;

/* app-bus.c */
void app_connect(App *app);
void app_watch_update(App *app);
void app_refresh(App *app);
void app_toast(App *app, const char *text);
void app_set_status(App *app, const char *text);
/* The message of a D-Bus error without its remote-error prefix; the words of the service state it means
 * where it means one (service-state.h), never the bus's own text (that goes to the debug log). */
char *app_error_message(const GError *error);
/* NULL when the error is a cancellation (the app is going away: do not touch it). */
bool app_error_is_cancelled(const GError *error);
/* The service state a failed call means (service-state.h), or _SERVICE_STATE_INVALID. */
ServiceState app_error_state(const GError *error);
/* Wraps the views (the page stack, what goes stale) with the state page and banner (state-page.h);
 * returns the widget to put in their place. */
GtkWidget *app_states_wrap(App *app, GtkWidget *views);

/* format.c */
/* An AdwActionRow of plain text (no markup: names come from other programs), subtitle on as many lines as
 * it has, added to group (an AdwPreferencesGroup). */
GtkWidget *app_add_text_row(GtkWidget *group, const char *title, const char *subtitle);
/* A button with a mnemonic label and one accessible name: accessible, or (NULL) the label's text. */
GtkWidget *app_button_new(const char *mnemonic, const char *accessible);
char *format_percent(double percent);
char *format_bytes(guint64 bytes);
/* "gfx 12.0 %, vram 3.0 MiB" from engines a(sssd) and memory a(ssst) */
char *format_usage(GVariant *engines, GVariant *memory);

/* view-gpus.c */
GpusView *gpus_view_new(App *app);
GtkWidget *gpus_view_widget(GpusView *v);
void gpus_view_update(GpusView *v, GVariant *devices);
void gpus_view_free(GpusView *v);

/* view-apps.c */
AppsView *apps_view_new(App *app);
GtkWidget *apps_view_widget(AppsView *v);
/* devices: ListGpuDevices (NULL: as before); groups: ListGpuGroups("application"); processes:
 * ListGpuProcessesAttributed. */
void apps_view_update(AppsView *v, GVariant *devices, GVariant *groups, GVariant *processes);
void apps_view_free(AppsView *v);
/* Shows the search entry and gives it the keyboard focus (Ctrl+F). */
void apps_view_search(AppsView *v);

/* dialog-explain.c: the daemon's explanation of one process, in a window of its own. */
void explain_dialog_show(App *app, guint32 pid, guint64 start_time, const char *comm);

/* view-profiles.c */
ProfilesView *profiles_view_new(App *app);
GtkWidget *profiles_view_widget(ProfilesView *v);
void profiles_view_reload(ProfilesView *v);
void profiles_view_free(ProfilesView *v);

/* dialog-rule.c: a new rule for a process (its procname, else its commname) in the user's own file; the
 * rest of the profile editing is declared in profile-edit.h. */
void add_rule_dialog_show(App *app, const char *procname, const char *commname);

/* view-reports.c */
ReportsView *reports_view_new(App *app);
GtkWidget *reports_view_widget(ReportsView *v);
/* Opens file (NULL: asks with a file chooser); files given before the connection wait for it. */
void reports_view_open_file(ReportsView *v, GFile *file);
/* The daemon's proxies are ready, or could not be made (the reports are then read by the app itself). */
void reports_view_connected(ReportsView *v);
/* The daemon came back (a restart): loads the open reports again, from their files. */
void reports_view_reconnected(ReportsView *v);
void reports_view_free(ReportsView *v);

/* report-details.c: a kernel's sections, tables and rule advice, as `nvprofilectl report details` has them. */
typedef struct ReportHandle ReportHandle;
GtkWidget *kernel_details_new(App *app, ReportHandle *h, guint32 range, guint32 action);
struct json_object;

/* report-reply.c: the JSON document a Report method returned as a sealed memfd (its h argument, the reply's
 * fd list), at most max_size bytes: 0, or -EBADMSG (no such descriptor, not a JSON object), -EFBIG, -ENOMEM,
 * a read error. */
int app_reply_json(GVariant *handle, GUnixFDList *fds, size_t max_size, struct json_object **ret);
/* A running spinner of its own size, centred in what holds it: a page that is still loading. */
GtkWidget *app_spinner_new(void);

/* report-source.c: a kernel's CUDA source with its per-line metrics (Report.GetSourceView, or the same
 * JSON made in-process), or what to do when the report stores none. */
GtkWidget *kernel_source_new(App *app, ReportHandle *h, guint32 range, guint32 action);

/* report-compare.c: current compared with baseline (Report.Diff, or in-process the same comparison) in a
 * window of its own: the changed metrics of paired kernels, highlighted beyond a threshold. */
void report_compare_show(App *app, ReportHandle *current, ReportHandle *baseline);
