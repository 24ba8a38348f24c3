/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the report pages (source, comparison) share: a Report method's JSON document (Diff, GetSourceView,
 * ...), which the daemon hands over as a sealed memfd rather than a string, so that a large one costs the
 * bus nothing; the spinner shown while it comes. */
#include <gio/gunixfdlist.h>
#include <json-c/json.h>
#include <unistd.h>

#include "app.h"
#include "fileio.h"

int app_reply_json(GVariant *handle, GUnixFDList *fds, size_t max_size, struct json_object **ret)
{
        g_autofree char *text = NULL;
        json_tokener *tok;
        struct json_object *doc;
        size_t size;
        int fd, r;

        g_assert(handle);
        g_assert(ret);
        if (!fds || g_variant_get_handle(handle) >= g_unix_fd_list_get_length(fds))
                return -EBADMSG;
        fd = g_unix_fd_list_get(fds, g_variant_get_handle(handle), NULL);
        if (fd < 0)
                return -EBADF;
        r = read_full_fd(fd, max_size, &text, &size);
        (void) close(fd);
        if (r < 0)
                return r;
        if (size > INT32_MAX)
                return -EFBIG;
        tok = json_tokener_new_ex(64);
        if (!tok)
                return -ENOMEM;
        doc = json_tokener_parse_ex(tok, text, (int) size);
        json_tokener_free(tok);
        if (!doc || !json_object_is_type(doc, json_type_object)) {
                json_object_put(doc);
                return -EBADMSG;
        }
        *ret = doc;
        return 0;
}

GtkWidget *app_spinner_new(void)
{
        GtkWidget *spinner = gtk_spinner_new();

        /* Its natural size, centred: a spinner left to fill a page is drawn as large as the page. */
        gtk_widget_set_size_request(spinner, 32, 32);
        gtk_widget_set_halign(spinner, GTK_ALIGN_CENTER);
        gtk_widget_set_valign(spinner, GTK_ALIGN_CENTER);
        gtk_spinner_start(GTK_SPINNER(spinner));
        return spinner;
}
