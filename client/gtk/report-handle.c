/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A report held by the daemon for this user, or read in this process: what the pages of a kernel need of
 * either. The daemon keeps only a few reports per user: the object is closed as soon as nothing in the
 * app refers to it any more. */
#include "report-handle.h"

struct ReportHandle {
        gatomicrefcount ref;
        char *title;
        NvpReport *proxy;
        NcuReport *model;
        bool closed; /* Close was called: not again */
};

static ReportHandle *report_handle_new(const char *title)
{
        ReportHandle *h = g_new0(ReportHandle, 1);

        g_atomic_ref_count_init(&h->ref);
        h->title = g_strdup(title);
        return h;
}

ReportHandle *report_handle_new_proxy(NvpReport *proxy, const char *title)
{
        ReportHandle *h;

        g_assert(proxy);
        g_assert(title);
        h = report_handle_new(title);
        h->proxy = g_object_ref(proxy);
        return h;
}

ReportHandle *report_handle_new_model(NcuReport *model, const char *title)
{
        ReportHandle *h;

        g_assert(model);
        g_assert(title);
        h = report_handle_new(title);
        h->model = model;
        return h;
}

ReportHandle *report_handle_ref(ReportHandle *h)
{
        g_assert(h);
        g_atomic_ref_count_inc(&h->ref);
        return h;
}

void report_handle_unref(ReportHandle *h)
{
        if (!h || !g_atomic_ref_count_dec(&h->ref))
                return;
        /* Frees the daemon's worker and the user's share of its limits; nobody waits for the answer. */
        if (h->proxy && !h->closed)
                nvp_report_call_close(h->proxy, G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL, NULL);
        g_clear_object(&h->proxy);
        ncu_report_free(h->model);
        g_free(h->title);
        g_free(h);
}

NvpReport *report_handle_proxy(ReportHandle *h)
{
        g_assert(h);
        return h->proxy;
}

const NcuReport *report_handle_model(ReportHandle *h)
{
        g_assert(h);
        return h->model;
}

const char *report_handle_title(ReportHandle *h)
{
        g_assert(h);
        return h->title;
}

void report_handle_replace_proxy(ReportHandle *h, NvpReport *proxy)
{
        g_assert(h);
        g_assert(proxy);
        g_assert(!h->model);
        g_set_object(&h->proxy, proxy);
        h->closed = false;
}

void report_handle_close(ReportHandle *h, GAsyncReadyCallback callback, gpointer data)
{
        g_assert(h);
        g_assert(h->proxy);
        h->closed = true;
        nvp_report_call_close(h->proxy, G_DBUS_CALL_FLAGS_NONE, -1, NULL, callback, data);
}
