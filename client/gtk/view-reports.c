/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reports: an Nsight Compute report the user picks is opened here, as the user, and its descriptor handed
 * to the daemon (Manager.LoadReport), whose confined worker reads it; the kernels are listed with their
 * durations and top rule findings (Report.GetSummary), and one kernel's rule results, by section, on
 * demand (Report.GetRuleResults). The app keeps each report's file: a report the daemon dropped (idle for
 * [Reports] IdleSec=, or a restart of the daemon) is loaded again from it, as the user opened it. */
#include <fcntl.h>
#include <gio/gunixfdlist.h>
#include <math.h>
#include <unistd.h>

#include "app.h"
#include "bus-names.h"
#include "report-handle.h"

struct ReportsView {
        App *app;
        GtkWidget *page;
        GtkWidget *empty_group;
        GtkFileChooserNative *chooser;
        GPtrArray *pending; /* GFile given before the daemon's proxy was ready */
        GPtrArray *reports; /* Report, not owned (each group owns its own) */
};

typedef struct Report {
        ReportsView *view;
        char *name;
        GFile *file; /* to load it again */
        NvpReport *proxy;
        ReportHandle *handle; /* for the source page and the comparison (until the kernel page has them) */
        GtkWidget *group;
        bool listed; /* its kernels are shown: a reload only replaces the proxy */
        bool loading;
        GPtrArray *waiting; /* KernelCall, for the reloaded proxy */
} Report;

static void report_load(Report *r);

static void report_free(gpointer data)
{
        Report *r = data;

        g_ptr_array_remove(r->view->reports, r);
        g_free(r->name);
        g_clear_object(&r->file);
        g_clear_object(&r->proxy);
        report_handle_unref(r->handle);
        g_ptr_array_unref(r->waiting);
        g_free(r);
}

static void on_open_clicked(GtkButton *button, gpointer data)
{
        reports_view_open_file(data, NULL);
}

ReportsView *reports_view_new(App *app)
{
        ReportsView *v = g_new0(ReportsView, 1);
        GtkWidget *open = app_button_new(_("_Open Report…"), NULL);

        v->app = app;
        v->pending = g_ptr_array_new_with_free_func(g_object_unref);
        v->reports = g_ptr_array_new();
        v->page = adw_preferences_page_new();
        v->empty_group = adw_preferences_group_new();
        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(v->empty_group), _("Nsight Compute reports"));
        adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(v->empty_group),
                        _("A report is read by nvprofiled's confined worker from the file you open; nothing of it "
                          "runs."));
        gtk_widget_set_tooltip_text(open, _("Open an .ncu-rep file (Ctrl+O)"));
        adw_preferences_group_set_header_suffix(ADW_PREFERENCES_GROUP(v->empty_group), open);
        g_signal_connect(open, "clicked", G_CALLBACK(on_open_clicked), v);
        adw_preferences_page_add(ADW_PREFERENCES_PAGE(v->page), ADW_PREFERENCES_GROUP(v->empty_group));
        return v;
}

GtkWidget *reports_view_widget(ReportsView *v)
{
        return v->page;
}

void reports_view_free(ReportsView *v)
{
        g_clear_object(&v->chooser);
        g_ptr_array_unref(v->pending);
        g_ptr_array_unref(v->reports);
        g_free(v);
}

static char *format_duration(double ns)
{
        if (isnan(ns) || ns < 0)
                return g_strdup(_("duration not known"));
        if (ns >= 1e6)
                return g_strdup_printf(_("%.2f ms"), ns / 1e6);
        if (ns >= 1e3)
                return g_strdup_printf(_("%.2f us"), ns / 1e3);
        return g_strdup_printf(_("%.0f ns"), ns);
}

/* --- one kernel's rule results -------------------------------------------------------------------------- */

typedef struct KernelCall {
        GtkWidget *page;
        GtkWidget *group; /* the report's, whose data is the Report */
        guint32 range, action;
        bool reloaded;
} KernelCall;

static void kernel_call_free(KernelCall *call)
{
        g_object_unref(call->page);
        g_object_unref(call->group);
        g_free(call);
}

/* The daemon no longer has the report object: dropped for idleness, or the daemon restarted. */
static bool error_is_dropped(const GError *error)
{
        g_autofree char *name = g_dbus_error_get_remote_error(error);

        return g_strcmp0(name, "org.freedesktop.DBus.Error.UnknownObject") == 0;
}

static void kernel_call_send(KernelCall *call);

/* Loading failed (title NULL: cancelled, the app is going away): says so in the group and in the windows
 * of the calls that waited for it. */
static void report_failed(Report *r, const char *title, const char *message)
{
        r->loading = false;
        if (title)
                app_add_text_row(r->group, title, message);
        for (guint i = 0; i < r->waiting->len; i++) {
                KernelCall *call = r->waiting->pdata[i];

                if (title) {
                        GtkWidget *group = adw_preferences_group_new();

                        app_add_text_row(group, _("Cannot read the rule results"), message);
                        adw_preferences_page_add(ADW_PREFERENCES_PAGE(call->page), ADW_PREFERENCES_GROUP(group));
                }
                kernel_call_free(call);
        }
        g_ptr_array_set_size(r->waiting, 0);
}

static void on_rule_results(GObject *source, GAsyncResult *result, gpointer data)
{
        KernelCall *call = data;
        g_autoptr(GVariant) results = NULL;
        g_autoptr(GError) error = NULL;
        g_autoptr(GHashTable) sections = g_hash_table_new(g_str_hash, g_str_equal);
        const char *identifier, *name, *section;
        GVariant *messages, *speedups;
        GVariantIter iter;

        if (!nvp_report_call_get_rule_results_finish(NVP_REPORT(source), &results, result, &error)) {
                Report *r = g_object_get_data(G_OBJECT(call->group), "report");

                if (r && !call->reloaded && error_is_dropped(error)) {
                        /* Loaded again, then asked again: once. */
                        g_debug("Report %s was dropped; loading it again: %s", r->name, error->message);
                        call->reloaded = true;
                        g_ptr_array_add(r->waiting, call);
                        if (!r->loading)
                                report_load(r);
                        return;
                }
                if (!app_error_is_cancelled(error)) {
                        g_autofree char *message = app_error_message(error);
                        GtkWidget *group = adw_preferences_group_new();

                        app_add_text_row(group, _("Cannot read the rule results"), message);
                        adw_preferences_page_add(ADW_PREFERENCES_PAGE(call->page), ADW_PREFERENCES_GROUP(group));
                }
                kernel_call_free(call);
                return;
        }
        g_variant_iter_init(&iter, results);
        while (g_variant_iter_next(
                        &iter, "(&s&s&s@a(sss)@a(sd))", &identifier, &name, &section, &messages, &speedups)) {
                GtkWidget *group = g_hash_table_lookup(sections, section);
                GVariantIter m;
                const char *type, *title, *text;

                if (!group) {
                        g_autofree char *heading = g_strdup_printf(_("Section %s"), *section ? section : "-");

                        group = adw_preferences_group_new();
                        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(group), heading);
                        adw_preferences_page_add(ADW_PREFERENCES_PAGE(call->page), ADW_PREFERENCES_GROUP(group));
                        g_hash_table_insert(sections, (gpointer) section, group);
                }
                g_variant_iter_init(&m, messages);
                while (g_variant_iter_next(&m, "(&s&s&s)", &type, &title, &text)) {
                        g_autofree char *row_title = *title ? g_strdup_printf("%s: %s (%s)", name, title, type)
                                                            : g_strdup_printf("%s (%s)", name, type);

                        app_add_text_row(group, row_title, text);
                }
                g_variant_unref(messages);
                g_variant_unref(speedups);
        }
        kernel_call_free(call);
}

static void kernel_call_send(KernelCall *call)
{
        Report *r = g_object_get_data(G_OBJECT(call->group), "report");

        nvp_report_call_get_rule_results(r->proxy, call->range, call->action, G_DBUS_CALL_FLAGS_NONE, -1,
                        r->view->app->cancellable, on_rule_results, call);
}

static void on_kernel_details(GtkButton *button, gpointer data)
{
        Report *r = data;
        guint32 range = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(button), "range"));
        guint32 action = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(button), "action"));
        const char *kernel = g_object_get_data(G_OBJECT(button), "kernel");
        GtkWidget *window = adw_window_new();
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        KernelCall *call = g_new0(KernelCall, 1);
        g_autofree char *title = g_strdup_printf(_("Kernel %s"), kernel);

        gtk_window_set_title(GTK_WINDOW(window), title);
        gtk_window_set_transient_for(GTK_WINDOW(window), r->view->app->window);
        gtk_window_set_default_size(GTK_WINDOW(window), 760, 600);
        gtk_box_append(GTK_BOX(box), adw_header_bar_new());
        call->page = adw_preferences_page_new();
        call->group = g_object_ref(r->group);
        call->range = range;
        call->action = action;
        gtk_widget_set_vexpand(call->page, TRUE);
        gtk_box_append(GTK_BOX(box), call->page);
        adw_window_set_content(ADW_WINDOW(window), box);
        g_object_ref(call->page);
        gtk_window_present(GTK_WINDOW(window));
        kernel_call_send(call);
}

/* A kernel's source page and the comparison with the report opened before, until the kernel page and
 * "Compare with…" have them. */
static void on_kernel_source(GtkButton *button, gpointer data)
{
        Report *r = data;
        GtkWidget *window = adw_window_new();
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);

        gtk_window_set_title(GTK_WINDOW(window), gtk_widget_get_tooltip_text(GTK_WIDGET(button)));
        gtk_window_set_transient_for(GTK_WINDOW(window), r->view->app->window);
        gtk_window_set_default_size(GTK_WINDOW(window), 1000, 700);
        gtk_box_append(GTK_BOX(box), adw_header_bar_new());
        gtk_box_append(GTK_BOX(box),
                        kernel_source_new(r->view->app, r->handle,
                                        GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(button), "range")),
                                        GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(button), "action"))));
        adw_window_set_content(ADW_WINDOW(window), box);
        gtk_window_present(GTK_WINDOW(window));
}

static GtkWidget *source_button_new(Report *r, guint32 range, guint32 action, guint32 index, const char *name)
{
        g_autofree char *accessible = g_strdup_printf(_("Source of kernel %u %s"), index, name);
        GtkWidget *button = app_button_new(_("_Source"), accessible);

        gtk_widget_set_tooltip_text(button, accessible);
        gtk_widget_set_valign(button, GTK_ALIGN_CENTER);
        g_object_set_data(G_OBJECT(button), "range", GUINT_TO_POINTER(range));
        g_object_set_data(G_OBJECT(button), "action", GUINT_TO_POINTER(action));
        g_signal_connect(button, "clicked", G_CALLBACK(on_kernel_source), r);
        return button;
}

static void on_compare(GtkButton *button, gpointer data)
{
        Report *r = data;
        guint i;

        if (g_ptr_array_find(r->view->reports, r, &i) && i > 0) {
                Report *baseline = r->view->reports->pdata[i - 1];

                if (r->handle && baseline->handle)
                        report_compare_show(r->view->app, r->handle, baseline->handle);
        }
}

/* --- the kernel list ------------------------------------------------------------------------------------ */

static void on_summary(GObject *source, GAsyncResult *result, gpointer data)
{
        Report *r = data;
        g_autoptr(GVariant) summary = NULL;
        g_autoptr(GError) error = NULL;
        guint32 range, action, index;
        const char *name;
        guint64 gx, gy, gz, bx, by, bz;
        double duration;
        GVariant *findings;
        GVariantIter iter;

        if (!nvp_report_call_get_summary_finish(NVP_REPORT(source), &summary, result, &error)) {
                if (!app_error_is_cancelled(error)) {
                        g_autofree char *message = app_error_message(error);

                        app_add_text_row(r->group, _("Cannot read the report"), message);
                }
                return;
        }
        r->listed = true;
        g_variant_iter_init(&iter, summary);
        while (g_variant_iter_next(&iter, "(uuu&s(ttt)(ttt)d@a(ssd))", &range, &action, &index, &name, &gx, &gy, &gz,
                        &bx, &by, &bz, &duration, &findings)) {
                g_autofree char *title = g_strdup_printf("%u  %s", index, name);
                g_autofree char *time = format_duration(duration);
                GString *sub = g_string_new(NULL);
                GVariantIter f;
                const char *type, *finding;
                double speedup;
                unsigned shown = 0;
                GtkWidget *row, *details;
                g_autofree char *accessible = g_strdup_printf(_("Details of kernel %u %s"), index, name);

                g_autofree char *grid = g_strdup_printf(
                                "(%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ")", gx, gy, gz);
                g_autofree char *block = g_strdup_printf(
                                "(%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ")", bx, by, bz);

                /* TRANSLATORS: a kernel's launch: grid and block sizes, then its duration */
                g_string_append_printf(sub, _("grid %s block %s, %s"), grid, block, time);
                g_variant_iter_init(&f, findings);
                while (shown < 3 && g_variant_iter_next(&f, "(&s&sd)", &type, &finding, &speedup)) {
                        g_string_append(sub, shown ? "; " : "\n");
                        if (isnan(speedup))
                                g_string_append(sub, finding);
                        else
                                g_string_append_printf(sub, _("%s (est. %.1f%%)"), finding, speedup);
                        shown++;
                }
                row = app_add_text_row(r->group, title, sub->str);
                g_string_free(sub, TRUE);
                details = app_button_new(_("_Details"), accessible);
                gtk_widget_set_valign(details, GTK_ALIGN_CENTER);
                g_object_set_data(G_OBJECT(details), "range", GUINT_TO_POINTER(range));
                g_object_set_data(G_OBJECT(details), "action", GUINT_TO_POINTER(action));
                g_object_set_data_full(G_OBJECT(details), "kernel", g_strdup(name), g_free);
                g_signal_connect(details, "clicked", G_CALLBACK(on_kernel_details), r);
                adw_action_row_add_suffix(ADW_ACTION_ROW(row), details);
                adw_action_row_add_suffix(ADW_ACTION_ROW(row), source_button_new(r, range, action, index, name));
                g_variant_unref(findings);
        }
}

static void on_info(GObject *source, GAsyncResult *result, gpointer data)
{
        Report *r = data;
        g_autoptr(GError) error = NULL;
        g_autofree char *version = NULL, *description = NULL;
        guint32 format, ranges;
        guint64 size;

        if (!nvp_report_call_get_info_finish(NVP_REPORT(source), &version, &format, &ranges, &size, result, &error))
                return;
        description = g_strdup_printf(ngettext("Nsight Compute %s, %u range", "Nsight Compute %s, %u ranges", ranges),
                        version, ranges);
        adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(r->group), description);
}

static void on_report_proxy(GObject *source, GAsyncResult *result, gpointer data)
{
        Report *r = data;
        g_autoptr(GError) error = NULL;

        g_clear_object(&r->proxy);
        r->proxy = nvp_report_proxy_new_finish(result, &error);
        if (!r->proxy) {
                g_autofree char *message = app_error_is_cancelled(error) ? NULL : app_error_message(error);

                report_failed(r, message ? _("Cannot open the report") : NULL, message);
                return;
        }
        r->loading = false;
        if (r->handle)
                report_handle_replace_proxy(r->handle, r->proxy);
        else
                r->handle = report_handle_new_proxy(r->proxy, r->name);
        /* Calls that found the report dropped, asked again of the one loaded now. */
        for (guint i = 0; i < r->waiting->len; i++)
                kernel_call_send(r->waiting->pdata[i]);
        g_ptr_array_set_size(r->waiting, 0);
        if (r->listed)
                return;
        nvp_report_call_get_info(r->proxy, G_DBUS_CALL_FLAGS_NONE, -1, r->view->app->cancellable, on_info, r);
        nvp_report_call_get_summary(r->proxy, G_DBUS_CALL_FLAGS_NONE, -1, r->view->app->cancellable, on_summary, r);
}

static void on_loaded(GObject *source, GAsyncResult *result, gpointer data)
{
        Report *r = data;
        g_autoptr(GError) error = NULL;
        g_autofree char *path = NULL;

        if (!nvp_manager_call_load_report_finish(NVP_MANAGER(source), &path, NULL, result, &error)) {
                g_autofree char *message = app_error_is_cancelled(error) ? NULL : app_error_message(error);

                report_failed(r, message ? _("nvprofiled cannot read this report") : NULL, message);
                return;
        }
        nvp_report_proxy_new(r->view->app->bus, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES, BUS_NAME, path,
                        r->view->app->cancellable, on_report_proxy, r);
}

/* Opens the report's file and hands it to the daemon: on opening, and again when the daemon dropped it. */
static void report_load(Report *r)
{
        ReportsView *v = r->view;
        g_autofree char *path = g_file_get_path(r->file);
        g_autoptr(GUnixFDList) fds = g_unix_fd_list_new();
        g_autoptr(GError) error = NULL;
        int fd, index;

        if (!v->app->manager) {
                report_failed(r, _("Not connected to nvprofiled"), NULL);
                return;
        }
        /* Opened here, as the user; the daemon never opens a path it is given. */
        fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY) : -1;
        if (fd < 0) {
                report_failed(r, _("Cannot open the file"), path ? g_strerror(errno) : _("not a local file"));
                return;
        }
        index = g_unix_fd_list_append(fds, fd, &error);
        (void) close(fd);
        if (index < 0) {
                report_failed(r, _("Cannot pass the file"), error->message);
                return;
        }
        r->loading = true;
        nvp_manager_call_load_report(v->app->manager, g_variant_new_handle(index), G_DBUS_CALL_FLAGS_NONE, -1, fds,
                        v->app->cancellable, on_loaded, r);
}

static void open_report(ReportsView *v, GFile *file)
{
        g_autofree char *name = g_file_get_basename(file);
        Report *r = g_new0(Report, 1);

        r->view = v;
        r->name = g_strdup(name);
        r->file = g_object_ref(file);
        r->waiting = g_ptr_array_new();
        r->group = adw_preferences_group_new();
        g_object_set_data_full(G_OBJECT(r->group), "report", r, report_free);
        g_ptr_array_add(v->reports, r);
        adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(r->group), name);
        if (v->reports->len > 1) {
                GtkWidget *compare = app_button_new(_("_Compare with Previous"), NULL);

                g_signal_connect(compare, "clicked", G_CALLBACK(on_compare), r);
                adw_preferences_group_set_header_suffix(ADW_PREFERENCES_GROUP(r->group), compare);
        }
        adw_preferences_page_add(ADW_PREFERENCES_PAGE(v->page), ADW_PREFERENCES_GROUP(r->group));
        report_load(r);
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

        if (file && !v->app->manager) {
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
        for (guint i = 0; i < v->pending->len; i++)
                open_report(v, v->pending->pdata[i]);
        g_ptr_array_set_size(v->pending, 0);
}

void reports_view_reconnected(ReportsView *v)
{
        /* The daemon that held them is gone: each is loaded again from its file, its kernels stay listed. */
        for (guint i = 0; i < v->reports->len; i++) {
                Report *r = v->reports->pdata[i];

                g_clear_object(&r->proxy);
                if (!r->loading)
                        report_load(r);
        }
}
