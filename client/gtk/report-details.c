/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A kernel's details: ncu's details page of one action (daemon/nsight/pages/report-details-json.h, the
 * same walk and value formatting as `nvprofilectl report details`), from the daemon (Report.GetDetails, a
 * sealed memfd) or, for a report read in this process, from the same function here. Sections by their
 * display names, each an expander with its tables (metric, unit, value, as the text page prints them) and
 * the rules' advice: ncu's markup as Pango markup, links to the web clickable, references to other sections
 * moving to them, the estimated speedup beside each; above them, the NVTX ranges the kernel ran in. Every text is
 * selectable; tables and their rows carry accessible names. */
#include <errno.h>
#include <gio/gunixfdlist.h>
#include <json-c/json.h>

#include "app.h"
#include "report-details-json.h"
#include "report-handle.h"
#include "reports.h"

/* The most the app reads of a details document: one action's page is far smaller. */
#define DETAILS_JSON_MAX ((size_t) 64 * 1024 * 1024)
/* The links to sections in rule messages (not a scheme anything else opens). */
#define SECTION_URI_PREFIX "nvprofiled-section:"

typedef struct KernelDetails {
        App *app;
        ReportHandle *handle;
        GtkWidget *scroller, *box, *state;
        GHashTable *sections; /* identifier -> GtkExpander (not a reference: the page holds them) */
        guint32 range, action;
        bool reloaded; /* the daemon had dropped the report: it was loaded again once */
} KernelDetails;

static void kernel_details_free(gpointer data)
{
        KernelDetails *d = data;

        report_handle_unref(d->handle);
        g_hash_table_unref(d->sections);
        g_free(d);
}

static const char *member_string(struct json_object *o, const char *key)
{
        struct json_object *v = NULL;

        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
                return NULL;
        return json_object_get_string(v);
}

static struct json_object *member(struct json_object *o, const char *key)
{
        struct json_object *v = NULL;

        return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static size_t array_length(struct json_object *a)
{
        return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static GtkWidget *text_label(const char *text, float xalign)
{
        GtkWidget *l = gtk_label_new(text ? text : "");

        gtk_label_set_selectable(GTK_LABEL(l), TRUE);
        gtk_label_set_xalign(GTK_LABEL(l), xalign);
        gtk_label_set_wrap(GTK_LABEL(l), TRUE);
        gtk_label_set_wrap_mode(GTK_LABEL(l), PANGO_WRAP_WORD_CHAR);
        return l;
}

/* Moves to the section identifier: opened, scrolled to and focused. */
static void show_section(KernelDetails *d, const char *identifier)
{
        GtkWidget *expander = g_hash_table_lookup(d->sections, identifier);
        GtkAdjustment *adj;
        double x, y;

        if (!expander) {
                app_toast(d->app, _("That section is not in this report"));
                return;
        }
        gtk_expander_set_expanded(GTK_EXPANDER(expander), TRUE);
        gtk_widget_grab_focus(expander);
        adj = gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(d->scroller));
        if (gtk_widget_translate_coordinates(expander, d->box, 0, 0, &x, &y))
                gtk_adjustment_set_value(adj, y);
}

static gboolean on_activate_link(GtkLabel *label, const char *uri, gpointer data)
{
        if (!g_str_has_prefix(uri, SECTION_URI_PREFIX))
                return FALSE; /* GTK opens it */
        show_section(data, uri + strlen(SECTION_URI_PREFIX));
        return TRUE;
}

static void on_section_button(GtkButton *button, gpointer data)
{
        show_section(data, g_object_get_data(G_OBJECT(button), "section"));
}

static GtkWidget *table_widget(const char *section, struct json_object *item)
{
        struct json_object *headings = member(item, "headings"), *rows = member(item, "rows");
        const char *label = member_string(item, "label");
        GtkWidget *grid = g_object_new(GTK_TYPE_GRID, "accessible-role", GTK_ACCESSIBLE_ROLE_TABLE, NULL);
        /* TRANSLATORS: a table's accessible name: its section's name, then the table's own */
        g_autofree char *name = label && *label ? g_strdup_printf(_("%s: %s"), section, label) : g_strdup(section);
        int top = 0;

        gtk_grid_set_column_spacing(GTK_GRID(grid), 18);
        gtk_grid_set_row_spacing(GTK_GRID(grid), 2);
        gtk_accessible_update_property(GTK_ACCESSIBLE(grid), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
        for (size_t i = 0; i < array_length(headings); i++) {
                GtkWidget *h = text_label(json_object_get_string(json_object_array_get_idx(headings, i)), 0);

                gtk_widget_add_css_class(h, "heading");
                gtk_grid_attach(GTK_GRID(grid), h, 0, top++, 3, 1);
        }
        for (size_t i = 0; i < array_length(rows); i++) {
                struct json_object *row = json_object_array_get_idx(rows, i);
                const char *metric = member_string(row, "label");
                GtkWidget *cells[] = {
                        text_label(metric, 0),
                        text_label(member_string(row, "unit"), 1),
                        text_label(member_string(row, "value"), 1),
                };

                gtk_widget_set_hexpand(cells[0], TRUE);
                gtk_widget_add_css_class(cells[1], "dim-label");
                gtk_widget_add_css_class(cells[2], "numeric");
                for (int c = 0; c < 3; c++) {
                        gtk_accessible_update_property(GTK_ACCESSIBLE(cells[c]), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        gtk_label_get_text(GTK_LABEL(cells[c])), -1);
                        gtk_grid_attach(GTK_GRID(grid), cells[c], c, top, 1, 1);
                }
                top++;
        }
        return grid;
}

static GtkWidget *grid_widget(const char *section, struct json_object *item)
{
        struct json_object *columns = member(item, "columns"), *rows = member(item, "rows");
        const char *label = member_string(item, "label");
        GtkWidget *grid = g_object_new(GTK_TYPE_GRID, "accessible-role", GTK_ACCESSIBLE_ROLE_TABLE, NULL);
        /* TRANSLATORS: a table's accessible name: its section's name, then the table's own */
        g_autofree char *name = label ? g_strdup_printf(_("%s: %s"), section, label) : g_strdup(section);

        gtk_grid_set_column_spacing(GTK_GRID(grid), 18);
        gtk_accessible_update_property(GTK_ACCESSIBLE(grid), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
        for (size_t c = 0; c < array_length(columns); c++) {
                GtkWidget *h = text_label(json_object_get_string(json_object_array_get_idx(columns, c)), 0);

                gtk_widget_add_css_class(h, "heading");
                gtk_grid_attach(GTK_GRID(grid), h, (int) c, 0, 1, 1);
        }
        for (size_t r = 0; r < array_length(rows); r++) {
                struct json_object *cells = json_object_array_get_idx(rows, r);

                for (size_t c = 0; c < array_length(cells); c++)
                        gtk_grid_attach(GTK_GRID(grid),
                                        text_label(json_object_get_string(json_object_array_get_idx(cells, c)), 0),
                                        (int) c, (int) r + 1, 1, 1);
        }
        return grid;
}

/* A rule's message as Pango markup from its spans (ncu's markup parsed once, in the daemon's code), and a
 * button for every link, for keyboards and assistive technologies. */
static GtkWidget *rule_widget(KernelDetails *d, struct json_object *rule)
{
        struct json_object *spans = member(rule, "spans"), *speedup = member(rule, "speedup");
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
        GtkWidget *top = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
        GtkWidget *links = NULL;
        GtkWidget *type = gtk_label_new(member_string(rule, "type"));
        GString *markup = g_string_new(NULL);
        GtkWidget *message;

        gtk_widget_add_css_class(type, "caption-heading");
        gtk_box_append(GTK_BOX(top), type);
        if (json_object_is_type(speedup, json_type_object)) {
                double value = json_object_get_double(member(speedup, "value"));
                const char *kind = member_string(speedup, "type");
                /* TRANSLATORS: as ncu's details page says it; %.4g%% is a percentage */
                g_autofree char *text = g_strcmp0(kind, "local") == 0
                                ? g_strdup_printf(_("Est. Local Speedup: %.4g%%"), value)
                                : g_strdup_printf(_("Est. Speedup: %.4g%%"), value);
                GtkWidget *est = text_label(text, 0);

                gtk_widget_add_css_class(est, "accent");
                gtk_box_append(GTK_BOX(top), est);
        }
        gtk_box_append(GTK_BOX(box), top);

        for (size_t i = 0; i < array_length(spans); i++) {
                struct json_object *s = json_object_array_get_idx(spans, i);
                const char *text = member_string(s, "text"), *url = member_string(s, "url"),
                           *section = member_string(s, "section");
                g_autofree char *escaped = g_markup_escape_text(text ? text : "", -1);
                GtkWidget *button = NULL;

                if (url) {
                        g_autofree char *href = g_markup_escape_text(url, -1);

                        g_string_append_printf(markup, "<a href=\"%s\">%s</a>", href, escaped);
                        button = gtk_link_button_new_with_label(url, text);
                        gtk_widget_set_tooltip_text(button, url);
                } else if (section) {
                        g_autofree char *uri = g_strconcat(SECTION_URI_PREFIX, section, NULL);
                        g_autofree char *href = g_markup_escape_text(uri, -1);
                        g_autofree char *words = g_strdup_printf(_("Go to section %s"), text ? text : section);

                        g_string_append_printf(markup, "<a href=\"%s\">%s</a>", href, escaped);
                        /* Its words as they are: no mnemonic in a report's text. */
                        g_auto(GStrv) parts = g_strsplit(words, "_", -1);
                        g_autofree char *mnemonic = g_strjoinv("__", parts);

                        button = app_button_new(mnemonic, NULL);
                        g_object_set_data_full(G_OBJECT(button), "section", g_strdup(section), g_free);
                        g_signal_connect(button, "clicked", G_CALLBACK(on_section_button), d);
                } else
                        g_string_append(markup, escaped);
                if (button) {
                        if (!links)
                                links = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
                        gtk_widget_add_css_class(button, "flat");
                        gtk_box_append(GTK_BOX(links), button);
                }
        }
        message = text_label(NULL, 0);
        gtk_label_set_markup(GTK_LABEL(message), markup->str);
        g_string_free(markup, TRUE);
        g_signal_connect(message, "activate-link", G_CALLBACK(on_activate_link), d);
        gtk_box_append(GTK_BOX(box), message);
        if (links)
                gtk_box_append(GTK_BOX(box), links);
        return box;
}

static GtkWidget *section_widget(KernelDetails *d, struct json_object *section)
{
        const char *name = member_string(section, "name"), *identifier = member_string(section, "identifier");
        struct json_object *items = member(section, "items"), *rules = member(section, "rules");
        GtkWidget *expander = gtk_expander_new(NULL);
        GtkWidget *title = gtk_label_new(name ? name : identifier);
        GtkWidget *content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
        const char *body = NULL;

        gtk_widget_add_css_class(title, "title-4");
        gtk_expander_set_label_widget(GTK_EXPANDER(expander), title);
        gtk_accessible_update_property(
                        GTK_ACCESSIBLE(expander), GTK_ACCESSIBLE_PROPERTY_LABEL, name ? name : identifier, -1);
        gtk_expander_set_expanded(GTK_EXPANDER(expander), TRUE);
        gtk_widget_set_margin_start(content, 24);
        gtk_widget_set_margin_top(content, 6);
        for (size_t i = 0; i < array_length(items); i++) {
                struct json_object *item = json_object_array_get_idx(items, i);
                const char *kind = member_string(item, "kind"), *item_body = member_string(item, "body");

                /* A body's name above its first item. */
                if (item_body && g_strcmp0(item_body, body) != 0) {
                        GtkWidget *b = text_label(item_body, 0);

                        gtk_widget_add_css_class(b, "heading");
                        gtk_box_append(GTK_BOX(content), b);
                }
                body = item_body;
                if (g_strcmp0(kind, "table") == 0)
                        gtk_box_append(GTK_BOX(content), table_widget(name, item));
                else if (g_strcmp0(kind, "grid") == 0)
                        gtk_box_append(GTK_BOX(content), grid_widget(name, item));
                else if (g_strcmp0(kind, "note") == 0)
                        gtk_box_append(GTK_BOX(content), text_label(member_string(item, "text"), 0));
        }
        for (size_t i = 0; i < array_length(rules); i++)
                gtk_box_append(GTK_BOX(content), rule_widget(d, json_object_array_get_idx(rules, i)));
        gtk_expander_set_child(GTK_EXPANDER(expander), content);
        if (identifier)
                g_hash_table_insert(d->sections, g_strdup(identifier), expander);
        return expander;
}

/* The NVTX ranges the kernel ran in, as the text page prints them (an expander like a section's). */
static GtkWidget *nvtx_widget(const char *text)
{
        const char *name = _("NVTX Ranges");
        GtkWidget *expander = gtk_expander_new(NULL), *title = gtk_label_new(name);
        g_autofree char *block = g_strchomp(g_strdup(text));
        GtkWidget *content = text_label(block, 0);

        gtk_widget_add_css_class(title, "title-4");
        gtk_expander_set_label_widget(GTK_EXPANDER(expander), title);
        gtk_accessible_update_property(GTK_ACCESSIBLE(expander), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
        gtk_expander_set_expanded(GTK_EXPANDER(expander), TRUE);
        gtk_label_set_wrap(GTK_LABEL(content), FALSE);
        gtk_widget_add_css_class(content, "monospace");
        gtk_widget_set_margin_top(content, 6);
        gtk_expander_set_child(GTK_EXPANDER(expander), content);
        return expander;
}

static void show_document(KernelDetails *d, struct json_object *doc)
{
        struct json_object *sections = member(doc, "sections");
        const char *nvtx = member_string(doc, "nvtx");

        if (nvtx)
                gtk_box_append(GTK_BOX(d->box), nvtx_widget(nvtx));
        if (array_length(sections) == 0) {
                gtk_label_set_text(GTK_LABEL(d->state), _("The report holds no sections for this kernel."));
                return;
        }
        gtk_widget_set_visible(d->state, FALSE);
        for (size_t i = 0; i < array_length(sections); i++)
                gtk_box_append(GTK_BOX(d->box), section_widget(d, json_object_array_get_idx(sections, i)));
}

static void show_error(KernelDetails *d, const char *message)
{
        g_autofree char *text = g_strdup_printf(_("Cannot read the kernel's details: %s"), message);

        gtk_label_set_text(GTK_LABEL(d->state), text);
}

static void on_details(GObject *source, GAsyncResult *result, gpointer data);

static void ask_daemon(KernelDetails *d)
{
        nvp_report_call_get_details(report_handle_proxy(d->handle), d->range, d->action, G_DBUS_CALL_FLAGS_NONE, -1,
                        NULL, d->app->cancellable, on_details, g_object_ref(d->scroller));
}

/* The report loaded again (the daemon had dropped it: idle, or a restart): asked once more. */
static void on_reloaded(gpointer data, bool ok)
{
        GtkWidget *widget = data;
        KernelDetails *d = g_object_get_data(G_OBJECT(widget), "kernel-details");

        if (ok)
                ask_daemon(d);
        else
                show_error(d, _("the report could not be loaded again"));
        g_object_unref(widget);
}

static void on_details(GObject *source, GAsyncResult *result, gpointer data)
{
        GtkWidget *widget = data;
        KernelDetails *d = g_object_get_data(G_OBJECT(widget), "kernel-details");
        g_autoptr(GVariant) handle = NULL;
        g_autoptr(GUnixFDList) fds = NULL;
        g_autoptr(GError) error = NULL;
        struct json_object *doc = NULL;
        int r;

        if (!nvp_report_call_get_details_finish(NVP_REPORT(source), &handle, &fds, result, &error)) {
                if (reports_view_reload_wanted(d->app, error, &d->reloaded)) {
                        reports_view_reload(d->app->reports, d->handle, on_reloaded, widget);
                        return;
                }
                if (!app_error_is_cancelled(error)) {
                        g_autofree char *message = app_error_message(error);

                        show_error(d, message);
                }
                g_object_unref(widget);
                return;
        }
        r = app_reply_json(handle, fds, DETAILS_JSON_MAX, &doc);
        if (r < 0)
                show_error(d, g_strerror(-r));
        else
                show_document(d, doc);
        json_object_put(doc);
        g_object_unref(widget);
}

GtkWidget *kernel_details_new(App *app, ReportHandle *h, guint32 range, guint32 action)
{
        KernelDetails *d = g_new0(KernelDetails, 1);
        const NcuReport *model = report_handle_model(h);

        d->app = app;
        d->handle = report_handle_ref(h);
        d->range = range;
        d->action = action;
        d->sections = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        d->scroller = gtk_scrolled_window_new();
        d->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 18);
        gtk_widget_set_margin_start(d->box, 18);
        gtk_widget_set_margin_end(d->box, 18);
        gtk_widget_set_margin_top(d->box, 18);
        gtk_widget_set_margin_bottom(d->box, 18);
        d->state = text_label(_("Reading the kernel's sections…"), 0);
        gtk_box_append(GTK_BOX(d->box), d->state);
        gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(d->scroller), d->box);
        gtk_widget_set_vexpand(d->scroller, TRUE);
        g_object_set_data_full(G_OBJECT(d->scroller), "kernel-details", d, kernel_details_free);

        if (model) {
                /* Read by the app itself: the same document, made here. */
                struct json_object *doc = NULL;
                int r = ncu_details_json(model, range, action, &doc);

                if (r < 0)
                        show_error(d, r == -ENOENT ? _("the report has no such kernel") : g_strerror(-r));
                else
                        show_document(d, doc);
                json_object_put(doc);
        } else
                ask_daemon(d);
        return d->scroller;
}
