/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reports: the Nsight Compute reports the user opened, one tab each, closable. A report is opened here, as
 * the user, and its descriptor handed to the daemon (Manager.LoadReport), whose confined worker reads it.
 * When no daemon serves reports (not running, this user denied) or it refuses the file, the app reads the
 * report itself, in its own process, with the same reader (report-file.h), and the report's page says so.
 * The daemon holds a few reports per user: when it refuses one more, the app closes the report shown
 * longest ago and says which, rather than leaving the user at a refusal. The app keeps each report's file:
 * a report the daemon dropped (idle, or a restart of the daemon) is loaded again from it. */
#include <gio/gunixfdlist.h>
#include <unistd.h>

#include "bus-names.h"
#include "report-file.h"
#include "reports.h"

typedef struct Reload {
        ReportReloaded done;
        gpointer data;
} Reload;

typedef struct OpenReport {
        ReportsView *view;
        char *name;
        GFile *file; /* to load it again */
        ReportHandle *handle; /* NULL until loaded */
        ReportPage *page;
        AdwTabPage *tab;
        GtkWidget *holder; /* the tab's child: the page once loaded, what went wrong otherwise */
        gint64 shown; /* when it was last the tab shown (monotonic) */
        bool loading;
        GArray *reloads; /* Reload: waiting for the object loaded again */
} OpenReport;

struct ReportsView {
        App *app;
        GtkWidget *box;
        GtkWidget *stack; /* "empty" or "reports" */
        AdwTabView *tabs;
        GtkFileChooserNative *chooser;
        GPtrArray *pending; /* GFile given before the daemon's proxy was ready */
        GPtrArray *reports; /* OpenReport, in the order opened */
        bool connected; /* the daemon's proxies were made, or could not be: files no longer wait */
};

static void report_load(OpenReport *r);

static bool report_error_is_dropped(const GError *error)
{
        g_autofree char *name = g_dbus_error_get_remote_error(error);

        return g_strcmp0(name, "org.freedesktop.DBus.Error.UnknownObject") == 0;
}

static void reloads_done(OpenReport *r, bool ok)
{
        g_autoptr(GArray) reloads = g_steal_pointer(&r->reloads);

        r->reloads = g_array_new(FALSE, FALSE, sizeof(Reload));
        for (guint i = 0; i < reloads->len; i++)
                g_array_index(reloads, Reload, i).done(g_array_index(reloads, Reload, i).data, ok);
}

static void open_report_free(OpenReport *r)
{
        reloads_done(r, false);
        g_array_unref(r->reloads);
        report_page_free(r->page);
        report_handle_unref(r->handle);
        g_free(r->name);
        g_clear_object(&r->file);
        g_free(r);
}

/* Replaces what the report's tab shows. */
static void holder_set(OpenReport *r, GtkWidget *child)
{
        GtkWidget *old = gtk_widget_get_first_child(r->holder);

        if (old)
                gtk_box_remove(GTK_BOX(r->holder), old);
        gtk_widget_set_vexpand(child, TRUE);
        gtk_box_append(GTK_BOX(r->holder), child);
}

static void report_failed(OpenReport *r, const char *title, const char *message)
{
        GtkWidget *status = adw_status_page_new();

        r->loading = false;
        adw_status_page_set_icon_name(ADW_STATUS_PAGE(status), "dialog-warning-symbolic");
        adw_status_page_set_title(ADW_STATUS_PAGE(status), title);
        adw_status_page_set_description(ADW_STATUS_PAGE(status), message);
        holder_set(r, status);
        adw_tab_page_set_loading(r->tab, FALSE);
        reloads_done(r, false);
}

static GPtrArray *others_of(ReportPage *page, gpointer data)
{
        ReportsView *v = data;
        GPtrArray *others = g_ptr_array_new();

        for (guint i = 0; i < v->reports->len; i++) {
                OpenReport *o = v->reports->pdata[i];

                if (o->handle && o->page != page)
                        g_ptr_array_add(others, o->handle);
        }
        return others;
}

/* The handle is ready (first load): its page in the tab. */
static void report_ready(OpenReport *r, ReportHandle *h, const char *how)
{
        r->loading = false;
        adw_tab_page_set_loading(r->tab, FALSE);
        r->handle = h;
        r->page = report_page_new(r->view->app, h, how);
        report_page_set_others(r->page, others_of, r->view);
        holder_set(r, report_page_widget(r->page));
}

/* The daemon does not serve it: read in this process, as the user, saying why on the page. */
static void report_read_here(OpenReport *r, const char *why)
{
        g_autofree char *path = g_file_get_path(r->file);
        g_autofree char *how = NULL;
        NcuReport *model = NULL;
        NcuReportError error;
        int k;

        k = report_file_load(path, &model, &error);
        if (k < 0) {
                g_autofree char *offset = g_strdup_printf("%" G_GUINT64_FORMAT, (guint64) error.offset);
                /* TRANSLATORS: where in the file a report is broken (a byte offset), and why */
                g_autofree char *message = error.message[0] ? g_strdup_printf(_("byte %s: %s"), offset, error.message)
                                                            : g_strdup(g_strerror(-k));

                report_failed(r, _("Cannot read this report"), message);
                return;
        }
        /* TRANSLATORS: said on a report's page when the app read the file itself; %s says why */
        how = g_strdup_printf(_("Read by this app: %s"), why);
        report_ready(r, report_handle_new_model(model, r->name), how);
}

/* --- the daemon's limit --------------------------------------------------------------------------------- */

static void report_close(OpenReport *r);

/* The report served by the daemon that was shown longest ago, other than r; NULL when none. */
static OpenReport *least_recently_shown(OpenReport *r)
{
        OpenReport *oldest = NULL;

        for (guint i = 0; i < r->view->reports->len; i++) {
                OpenReport *o = r->view->reports->pdata[i];

                if (o == r || !o->handle || !report_handle_proxy(o->handle))
                        continue;
                if (!oldest || o->shown < oldest->shown)
                        oldest = o;
        }
        return oldest;
}

typedef struct Evicted {
        ReportsView *view;
        GFile *file;
} Evicted;

static void on_evicted(GObject *source, GAsyncResult *result, gpointer data)
{
        Evicted *e = data;
        g_autoptr(GError) error = NULL;

        (void) nvp_report_call_close_finish(NVP_REPORT(source), result, &error);
        if (!app_error_is_cancelled(error))
                for (guint i = 0; e->view->reports && i < e->view->reports->len; i++) {
                        OpenReport *r = e->view->reports->pdata[i];

                        if (r->file == e->file && r->loading) {
                                report_load(r);
                                break;
                        }
                }
        g_object_unref(e->file);
        g_free(e);
}

/* The daemon holds as many of this user's reports as it may: the one shown longest ago is closed to make
 * room for r, or, with none to close, r is read here. */
static void report_make_room(OpenReport *r)
{
        OpenReport *oldest = least_recently_shown(r);
        Evicted *e;
        g_autofree char *toast = NULL;

        if (!oldest) {
                report_read_here(r, _("nvprofiled holds as many of your reports as it may"));
                return;
        }
        /* TRANSLATORS: the app closed a report to open another; both are file names */
        toast = g_strdup_printf(_("Closed %s, shown longest ago, to open %s"), oldest->name, r->name);
        app_toast(r->view->app, toast);
        e = g_new0(Evicted, 1);
        e->view = r->view;
        e->file = g_object_ref(r->file);
        report_handle_close(oldest->handle, on_evicted, e);
        report_close(oldest);
}

/* --- loading -------------------------------------------------------------------------------------------- */

static void on_report_proxy(GObject *source, GAsyncResult *result, gpointer data)
{
        OpenReport *r = data;
        g_autoptr(GError) error = NULL;
        g_autoptr(NvpReport) proxy = nvp_report_proxy_new_finish(result, &error);

        if (!proxy) {
                if (!app_error_is_cancelled(error)) {
                        g_autofree char *message = app_error_message(error);

                        report_failed(r, _("Cannot open the report"), message);
                }
                return;
        }
        if (r->handle) {
                /* Loaded again: the pages keep their handle, with the new object. */
                r->loading = false;
                report_handle_replace_proxy(r->handle, proxy);
                reloads_done(r, true);
                return;
        }
        report_ready(r, report_handle_new_proxy(proxy, r->name), NULL);
}

static void on_loaded(GObject *source, GAsyncResult *result, gpointer data)
{
        OpenReport *r = data;
        g_autoptr(GError) error = NULL;
        g_autofree char *path = NULL, *remote = NULL, *message = NULL;

        if (!nvp_manager_call_load_report_finish(NVP_MANAGER(source), &path, NULL, result, &error)) {
                if (app_error_is_cancelled(error))
                        return;
                remote = g_dbus_error_get_remote_error(error);
                if (r->handle) {
                        /* Loaded once by the daemon and now refused: the pages say so on their next call. */
                        r->loading = false;
                        reloads_done(r, false);
                        return;
                }
                if (g_strcmp0(remote, BUS_ERROR_LIMITS_EXCEEDED) == 0) {
                        report_make_room(r);
                        return;
                }
                message = app_error_message(error);
                report_read_here(r, message);
                return;
        }
        nvp_report_proxy_new(r->view->app->bus, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES, BUS_NAME, path,
                        r->view->app->cancellable, on_report_proxy, r);
}

/* Opens the report's file and hands it to the daemon: on opening, and again when the daemon dropped it. */
static void report_load(OpenReport *r)
{
        App *app = r->view->app;
        g_autofree char *path = g_file_get_path(r->file);
        g_autoptr(GUnixFDList) fds = g_unix_fd_list_new();
        g_autoptr(GError) error = NULL;
        int fd = -1, k, index;

        r->loading = true;
        if (!path) {
                report_failed(r, _("Cannot open the file"), _("not a local file"));
                return;
        }
        /* Opened here, as the user; the daemon never opens a path it is given. */
        k = report_file_open(path, &fd);
        if (k < 0) {
                report_failed(r, _("Cannot open the file"), k == -EBADFD ? _("not a regular file") : g_strerror(-k));
                return;
        }
        if (!app->manager) {
                (void) close(fd);
                if (r->handle) {
                        reloads_done(r, false);
                        r->loading = false;
                        return;
                }
                report_read_here(r, _(service_state_title(SERVICE_UNREACHABLE)));
                return;
        }
        index = g_unix_fd_list_append(fds, fd, &error);
        (void) close(fd);
        if (index < 0) {
                report_failed(r, _("Cannot pass the file"), error->message);
                return;
        }
        nvp_manager_call_load_report(app->manager, g_variant_new_handle(index), G_DBUS_CALL_FLAGS_NONE, -1, fds,
                        app->cancellable, on_loaded, r);
}

bool reports_view_reload_wanted(App *app, const GError *error, bool *reloaded)
{
        assert(reloaded);

        if (*reloaded || !app->reports || !report_error_is_dropped(error))
                return false;
        *reloaded = true;
        return true;
}

void reports_view_reload(ReportsView *v, ReportHandle *h, ReportReloaded done, gpointer data)
{
        Reload reload = { done, data };

        for (guint i = 0; i < v->reports->len; i++) {
                OpenReport *r = v->reports->pdata[i];

                if (r->handle != h)
                        continue;
                g_array_append_val(r->reloads, reload);
                if (!r->loading)
                        report_load(r);
                return;
        }
        done(data, false); /* closed meanwhile */
}

/* --- tabs ----------------------------------------------------------------------------------------------- */

static OpenReport *report_of_tab(ReportsView *v, AdwTabPage *tab)
{
        for (guint i = 0; i < v->reports->len; i++)
                if (((OpenReport *) v->reports->pdata[i])->tab == tab)
                        return v->reports->pdata[i];
        return NULL;
}

static void show_stack(ReportsView *v)
{
        gtk_stack_set_visible_child_name(GTK_STACK(v->stack), v->reports->len ? "reports" : "empty");
}

/* Frees r once its tab is closed. */
static void report_close(OpenReport *r)
{
        adw_tab_view_close_page(r->view->tabs, r->tab);
}

static gboolean on_close_page(AdwTabView *tabs, AdwTabPage *tab, gpointer data)
{
        ReportsView *v = data;
        OpenReport *r = report_of_tab(v, tab);

        adw_tab_view_close_page_finish(tabs, tab, TRUE);
        if (r) {
                g_ptr_array_remove(v->reports, r);
                open_report_free(r);
        }
        show_stack(v);
        return GDK_EVENT_STOP;
}

static void on_selected_page(AdwTabView *tabs, GParamSpec *pspec, gpointer data)
{
        ReportsView *v = data;
        AdwTabPage *tab = adw_tab_view_get_selected_page(tabs);
        OpenReport *r = tab ? report_of_tab(v, tab) : NULL;

        if (r)
                r->shown = g_get_monotonic_time();
}

static void open_report(ReportsView *v, GFile *file)
{
        OpenReport *r = g_new0(OpenReport, 1);
        g_autofree char *name = g_file_get_basename(file);
        GtkWidget *spinner = gtk_spinner_new();

        r->view = v;
        r->name = g_strdup(name);
        r->file = g_object_ref(file);
        r->reloads = g_array_new(FALSE, FALSE, sizeof(Reload));
        r->shown = g_get_monotonic_time();
        r->holder = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        gtk_spinner_set_spinning(GTK_SPINNER(spinner), TRUE);
        gtk_widget_set_valign(spinner, GTK_ALIGN_CENTER);
        gtk_box_append(GTK_BOX(r->holder), spinner);
        g_ptr_array_add(v->reports, r);
        r->tab = adw_tab_view_append(v->tabs, r->holder);
        adw_tab_page_set_title(r->tab, name);
        adw_tab_page_set_loading(r->tab, TRUE);
        adw_tab_view_set_selected_page(v->tabs, r->tab);
        show_stack(v);
        report_load(r);
}

static void on_open_clicked(GtkButton *button, gpointer data)
{
        reports_view_open_file(data, NULL);
}

static void on_close_clicked(GtkButton *button, gpointer data)
{
        ReportsView *v = data;
        AdwTabPage *tab = adw_tab_view_get_selected_page(v->tabs);

        if (tab)
                adw_tab_view_close_page(v->tabs, tab);
}

static GtkWidget *icon_button_new(const char *icon, const char *name)
{
        GtkWidget *button = gtk_button_new_from_icon_name(icon);

        gtk_widget_set_tooltip_text(button, name);
        gtk_accessible_update_property(GTK_ACCESSIBLE(button), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
        gtk_widget_add_css_class(button, "flat");
        return button;
}

ReportsView *reports_view_new(App *app)
{
        ReportsView *v = g_new0(ReportsView, 1);
        /* Icons beside the tabs: a window 360 px wide has room for their words in neither. */
        GtkWidget *open = icon_button_new("document-open-symbolic", _("Open Report…"));
        GtkWidget *close = icon_button_new("window-close-symbolic", _("Close Report"));
        GtkWidget *empty = adw_status_page_new();
        GtkWidget *reports = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        GtkWidget *top = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
        GtkWidget *bar = GTK_WIDGET(adw_tab_bar_new());
        GtkWidget *empty_open = app_button_new(_("_Open Report…"), NULL);

        v->app = app;
        v->pending = g_ptr_array_new_with_free_func(g_object_unref);
        v->reports = g_ptr_array_new();

        adw_status_page_set_icon_name(ADW_STATUS_PAGE(empty), "x-office-document-symbolic");
        adw_status_page_set_title(ADW_STATUS_PAGE(empty), _("Nsight Compute reports"));
        adw_status_page_set_description(ADW_STATUS_PAGE(empty),
                        _("A report is read by nvprofiled's confined worker from the file you open; nothing of it "
                          "runs."));
        gtk_widget_set_halign(empty_open, GTK_ALIGN_CENTER);
        gtk_widget_add_css_class(empty_open, "pill");
        gtk_widget_set_tooltip_text(empty_open, _("Open an .ncu-rep file (Ctrl+O)"));
        g_signal_connect(empty_open, "clicked", G_CALLBACK(on_open_clicked), v);
        adw_status_page_set_child(ADW_STATUS_PAGE(empty), empty_open);

        v->tabs = adw_tab_view_new();
        g_signal_connect(v->tabs, "close-page", G_CALLBACK(on_close_page), v);
        g_signal_connect(v->tabs, "notify::selected-page", G_CALLBACK(on_selected_page), v);
        adw_tab_bar_set_view(ADW_TAB_BAR(bar), v->tabs);
        /* One report needs no tab (its title would only run past a narrow window's edge). */
        adw_tab_bar_set_autohide(ADW_TAB_BAR(bar), TRUE);
        gtk_widget_set_hexpand(bar, TRUE);
        g_signal_connect(open, "clicked", G_CALLBACK(on_open_clicked), v);
        g_signal_connect(close, "clicked", G_CALLBACK(on_close_clicked), v);
        gtk_widget_set_margin_start(top, 6);
        gtk_widget_set_margin_end(top, 6);
        gtk_widget_set_valign(open, GTK_ALIGN_CENTER);
        gtk_widget_set_valign(close, GTK_ALIGN_CENTER);
        gtk_box_append(GTK_BOX(top), bar);
        gtk_box_append(GTK_BOX(top), close);
        gtk_box_append(GTK_BOX(top), open);
        gtk_widget_set_vexpand(GTK_WIDGET(v->tabs), TRUE);
        gtk_box_append(GTK_BOX(reports), top);
        gtk_box_append(GTK_BOX(reports), GTK_WIDGET(v->tabs));

        v->stack = gtk_stack_new();
        gtk_stack_add_named(GTK_STACK(v->stack), empty, "empty");
        gtk_stack_add_named(GTK_STACK(v->stack), reports, "reports");
        v->box = v->stack;
        show_stack(v);
        return v;
}

GtkWidget *reports_view_widget(ReportsView *v)
{
        return v->box;
}

void reports_view_free(ReportsView *v)
{
        g_clear_object(&v->chooser);
        g_ptr_array_unref(v->pending);
        /* The tabs go with the window; what they held goes here. */
        for (guint i = 0; i < v->reports->len; i++)
                open_report_free(v->reports->pdata[i]);
        g_clear_pointer(&v->reports, g_ptr_array_unref);
        g_free(v);
}

static void on_chooser_response(GtkNativeDialog *dialog, int response, gpointer data)
{
        ReportsView *v = data;

        if (response == GTK_RESPONSE_ACCEPT) {
                g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));

                if (file)
                        open_report(v, file);
        }
        g_clear_object(&v->chooser);
}

void reports_view_open_file(ReportsView *v, GFile *file)
{
        g_autoptr(GtkFileFilter) filter = NULL;

        if (file && !v->connected) {
                g_ptr_array_add(v->pending, g_object_ref(file));
                return;
        }
        if (file) {
                open_report(v, file);
                return;
        }
        if (v->chooser)
                return;
        v->chooser = gtk_file_chooser_native_new(_("Open an Nsight Compute Report"), v->app->window,
                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
        filter = gtk_file_filter_new();
        gtk_file_filter_set_name(filter, _("Nsight Compute reports"));
        gtk_file_filter_add_pattern(filter, "*.ncu-rep");
        gtk_file_filter_add_pattern(filter, "*.ncu-repz");
        gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(v->chooser), filter);
        gtk_native_dialog_set_modal(GTK_NATIVE_DIALOG(v->chooser), TRUE);
        g_signal_connect(v->chooser, "response", G_CALLBACK(on_chooser_response), v);
        gtk_native_dialog_show(GTK_NATIVE_DIALOG(v->chooser));
}

void reports_view_connected(ReportsView *v)
{
        v->connected = true;
        for (guint i = 0; i < v->pending->len; i++)
                open_report(v, v->pending->pdata[i]);
        g_ptr_array_set_size(v->pending, 0);
}

void reports_view_reconnected(ReportsView *v)
{
        /* The daemon that held them is gone: each it served is loaded again from its file, its kernels stay
         * listed; those read here stay as they are. */
        for (guint i = 0; i < v->reports->len; i++) {
                OpenReport *r = v->reports->pdata[i];

                if (r->handle && report_handle_proxy(r->handle) && !r->loading)
                        report_load(r);
        }
}
