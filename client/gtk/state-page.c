/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <adwaita.h>
#include <glib/gi18n.h>

#include "state-page.h"

struct StateView {
        GtkWidget *box;
        GtkWidget *views;
        GtkWidget *page; /* AdwStatusPage */
        GtkWidget *banner; /* GtkRevealer */
        GtkWidget *banner_title, *banner_text;
        ServiceState state;
        char *detail;
        bool works_alone; /* the page shown works without the daemon: a failure is a banner above it */
};

static const char *state_icon(ServiceState s)
{
        switch (s) {
        case SERVICE_DENIED:
                return "action-unavailable-symbolic";
        case SERVICE_UNREACHABLE:
                return "network-offline-symbolic";
        case SERVICE_STARTING:
                return "content-loading-symbolic";
        default:
                return "system-run-symbolic";
        }
}

StateView *state_view_new(GtkWidget *views, GtkWidget **ret_widget)
{
        StateView *v = g_new0(StateView, 1);
        GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
        GtkWidget *texts = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
        GtkWidget *icon = gtk_image_new_from_icon_name("dialog-warning-symbolic");

        v->views = views;
        v->state = _SERVICE_STATE_INVALID;
        v->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);

        v->banner_title = gtk_label_new(NULL);
        v->banner_text = gtk_label_new(NULL);
        gtk_widget_add_css_class(v->banner_title, "heading");
        for (GtkWidget *const *l = (GtkWidget *const[]){ v->banner_title, v->banner_text, NULL }; *l; l++) {
                gtk_label_set_wrap(GTK_LABEL(*l), TRUE);
                /* Messages hold paths and library names: break them too, or one long word sets the
                 * window's least width. */
                gtk_label_set_wrap_mode(GTK_LABEL(*l), PANGO_WRAP_WORD_CHAR);
                gtk_label_set_xalign(GTK_LABEL(*l), 0);
                gtk_label_set_selectable(GTK_LABEL(*l), FALSE);
                gtk_box_append(GTK_BOX(texts), *l);
        }
        gtk_widget_set_hexpand(texts, TRUE);
        gtk_box_append(GTK_BOX(row), icon);
        gtk_box_append(GTK_BOX(row), texts);
        gtk_widget_add_css_class(row, "toolbar");
        gtk_widget_add_css_class(row, "osd");
        gtk_widget_set_margin_start(row, 12);
        gtk_widget_set_margin_end(row, 12);
        gtk_widget_set_margin_top(row, 6);
        gtk_widget_set_margin_bottom(row, 6);
        v->banner = gtk_revealer_new();
        gtk_revealer_set_child(GTK_REVEALER(v->banner), row);
        gtk_revealer_set_transition_type(GTK_REVEALER(v->banner), GTK_REVEALER_TRANSITION_TYPE_SLIDE_DOWN);
        /* Hidden, not only folded: nothing of it is read out while it says nothing. */
        gtk_widget_set_visible(v->banner, FALSE);

        v->page = adw_status_page_new();
        gtk_widget_set_vexpand(v->page, TRUE);
        gtk_widget_set_visible(v->page, FALSE);

        gtk_widget_set_vexpand(views, TRUE);
        gtk_box_append(GTK_BOX(v->box), v->banner);
        gtk_box_append(GTK_BOX(v->box), views);
        gtk_box_append(GTK_BOX(v->box), v->page);
        *ret_widget = v->box;
        return v;
}

void state_view_free(StateView *v)
{
        g_free(v->detail);
        g_free(v);
}

ServiceState state_view_get(StateView *v)
{
        return v->state;
}

void state_view_show(StateView *v, ServiceState s, const char *detail)
{
        g_autofree char *text = NULL;
        bool failure = service_state_is_failure(s) && s != SERVICE_STOPPED && !v->works_alone;
        bool stale = s == SERVICE_STOPPED && !v->works_alone;

        g_return_if_fail(s >= 0 && s < _SERVICE_STATE_MAX);

        v->state = s;
        if (detail != v->detail) {
                g_free(v->detail);
                v->detail = g_strdup(detail);
        }
        /* _(): the words are marked in service-state.c, for this app's catalogue. */
        text = detail && *detail ? g_strdup_printf("%s.\n%s", _(service_state_next_step(s)), detail)
                                 : g_strdup_printf("%s.", _(service_state_next_step(s)));

        /* Invisible, not just behind: a hidden page's texts are not read out (AT-SPI presents only
         * visible widgets). */
        gtk_widget_set_visible(v->views, !failure);
        gtk_widget_set_visible(v->page, failure);
        if (failure) {
                g_autofree char *markup = g_markup_escape_text(text, -1); /* the description is markup */

                adw_status_page_set_title(ADW_STATUS_PAGE(v->page), _(service_state_title(s)));
                adw_status_page_set_description(ADW_STATUS_PAGE(v->page), markup);
                adw_status_page_set_icon_name(ADW_STATUS_PAGE(v->page), state_icon(s));
        }

        /* Stale until the next state: dimmed, and not to be acted on (the daemon they came from is gone). */
        gtk_widget_set_sensitive(v->views, !stale);
        if (stale)
                gtk_widget_add_css_class(v->views, "stale");
        else
                gtk_widget_remove_css_class(v->views, "stale");

        if (failure || s == SERVICE_RUNNING) {
                gtk_revealer_set_reveal_child(GTK_REVEALER(v->banner), FALSE);
                gtk_widget_set_visible(v->banner, FALSE);
                return;
        }
        gtk_label_set_text(GTK_LABEL(v->banner_title), _(service_state_title(s)));
        gtk_label_set_text(GTK_LABEL(v->banner_text), text);
        gtk_widget_set_visible(v->banner, TRUE);
        gtk_revealer_set_reveal_child(GTK_REVEALER(v->banner), TRUE);
}

void state_view_set_works_alone(StateView *v, bool works_alone)
{
        if (v->works_alone == works_alone)
                return;
        v->works_alone = works_alone;
        if (v->state >= 0)
                state_view_show(v, v->state, v->detail);
}
