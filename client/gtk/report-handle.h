/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One open report, as the pages of a kernel (details, source) and the comparison use it: served by the
 * daemon (a Report proxy), or read by the app itself, as the user, when no daemon serves reports or it
 * refused the file (the model). Exactly one of the two is set. In-process operations run synchronously on
 * the main thread: one action's data is small. */

#include "nvp-dbus.h"
#include "report.h"

typedef struct ReportHandle ReportHandle;

/* title: the file's display name. The proxy is the daemon's report object, held until the last
 * reference goes (then Report.Close is called); the model is owned and freed then. */
ReportHandle *report_handle_new_proxy(NvpReport *proxy, const char *title);
ReportHandle *report_handle_new_model(NcuReport *model, const char *title);

ReportHandle *report_handle_ref(ReportHandle *h);
void report_handle_unref(ReportHandle *h);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ReportHandle, report_handle_unref)

NvpReport *report_handle_proxy(ReportHandle *h); /* NULL: read in-process */
const NcuReport *report_handle_model(ReportHandle *h); /* NULL: served by the daemon */
const char *report_handle_title(ReportHandle *h); /* the file's display name */

/* Closes the daemon's object now (the app evicts it to open another: callback once the daemon has
 * forgotten it), rather than with the last reference; the proxy is then closed and answers no more. */
void report_handle_close(ReportHandle *h, GAsyncReadyCallback callback, gpointer data);

/* The daemon dropped the report object and the file was loaded again: the new object (the old one is
 * gone, so it is not closed). */
void report_handle_replace_proxy(ReportHandle *h, NvpReport *proxy);
