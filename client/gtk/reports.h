/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The Reports page's parts: the page of one open report (report-page.c) and a kernel's window
 * (kernel-page.c); view-reports.c opens, shows and closes the reports. */

#include "app.h"
#include "report-handle.h"

typedef struct ReportPage ReportPage;

/* The page of an open report: its kernels in a column view, sortable and filterable by name and by NVTX
 * range. how: NULL when the daemon serves it, else why the app read it itself (said on the page). */
ReportPage *report_page_new(App *app, ReportHandle *h, const char *how);
GtkWidget *report_page_widget(ReportPage *p);
ReportHandle *report_page_handle(ReportPage *p);
/* The reports "Compare with…" offers as the baseline: the other open reports' handles. */
typedef GPtrArray *(*ReportPageOthers)(ReportPage *p, gpointer data);
void report_page_set_others(ReportPage *p, ReportPageOthers others, gpointer data);
/* Closes the kernel windows it opened. Frees it. */
void report_page_free(ReportPage *p);

/* The window of one kernel: "Details" and "Source" in a view stack. */
GtkWidget *kernel_page_show(App *app, ReportHandle *h, guint32 range, guint32 action, const char *name);

/* A kernel launch's cells, shared by the list and the kernel's window: grid/block and duration, in
 * words when the launch failed (no duration, an empty grid). */
bool kernel_launch_failed(const guint64 grid[3], double duration_ns);
char *kernel_launch_text(const guint64 grid[3], const guint64 block[3], double duration_ns);
char *kernel_duration_text(const guint64 grid[3], double duration_ns);

/* The daemon dropped h's object (idle, or it restarted): loads the file again and calls done(data, ok)
 * once h has its new object (ok false: it could not be loaded; said in the report's page). */
typedef void (*ReportReloaded)(gpointer data, bool ok);
void reports_view_reload(ReportsView *v, ReportHandle *h, ReportReloaded done, gpointer data);
/* A page's call on a report failed with error: whether to load the report again (reports_view_reload())
 * and ask once more, because the daemon dropped its object (idle, or a restart). Once per page (*reloaded,
 * set here), so a report that keeps failing does not loop. */
bool reports_view_reload_wanted(App *app, const GError *error, bool *reloaded);
