/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "report raw FILE --csv" and "report details FILE --csv": ncu's own exports of a report, byte for byte
 * (ncu --import FILE --page raw|details --csv --print-units base [--print-metric-instances values]
 * [--print-details all]). The daemon's confined worker makes them (Report.ExportRaw, ExportDetails); with
 * --local, or when no daemon serves reports, the report is read in this process with the same code. The
 * bytes are the report's own strings (a kernel's name is whatever its author chose): exact to a pipe, a
 * file or --output=FILE, escaped on a terminal (client-exact-output.c). */

#include <errno.h>
#include <string.h>

#include "client.h"
#include "report-export.h"
#include "report.h"
#include "verb-report.h"

#define REPORT_EXPORT_MAX ((size_t) 1024 * 1024 * 1024)

static int export_page(const char *page, const char *path)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_(ncu_report_freep) NcuReport *report = NULL;
        _cleanup_(exact_output_done) ExactOutput out = { .dir_fd = -EBADF };
        _cleanup_free_ char *text = NULL;
        bool details = streq(page, "details");
        size_t size = 0;
        int r;

        if (!arg.csv) {
                fprintf(stderr, "nvprofilectl: report %s prints CSV only (as ncu --csv does): add --csv.\n", page);
                return EXIT_USAGE;
        }
        if (details && arg.print_metric_instances) {
                fprintf(stderr, "nvprofilectl: --print-metric-instances is an option of report raw.\n");
                return EXIT_USAGE;
        }

        r = 1;
        if (!arg.local) {
                r = report_fetch_via_daemon(path, details ? "ExportDetails" : "ExportRaw",
                                details ? -1 : (int) arg.print_metric_instances, REPORT_EXPORT_MAX, &text, &size);
                if (r < 0)
                        return r;
        }
        if (r > 0) { /* no daemon asked, or none serves reports */
                r = report_load_local(path, &report);
                if (r < 0)
                        return r;
        }

        r = exact_output_open(arg.output, &out);
        if (r < 0) {
                fprintf(stderr, "nvprofilectl: %s: %s\n", esc(&e, arg.output), strerror(-r));
                return r;
        }
        if (report)
                r = details ? ncu_export_details_csv(report, out.f)
                            : ncu_export_raw_csv(report, arg.print_metric_instances, out.f);
        else if (fwrite(text, 1, size, out.f) != size)
                r = errno > 0 ? -errno : -EIO;
        if (r >= 0)
                r = exact_output_commit(&out);
        if (r < 0) {
                fprintf(stderr, "nvprofilectl: %s: cannot write the export: %s\n", esc(&e, path), strerror(-r));
                return r;
        }
        return 0;
}

int report_raw(const char *path)
{
        return export_page("raw", path);
}

int report_details(const char *path)
{
        return export_page("details", path);
}
