/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "report raw FILE --csv" and "report details FILE --csv": ncu's own exports of a report, byte for byte
 * (ncu --import FILE --page raw|details --csv --print-units base [--print-metric-instances values]
 * [--print-details all]). The daemon's confined worker makes them (Report.ExportRaw, ExportDetails); with
 * --local, or when no daemon serves reports, the report is read in this process with the same code. */

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
        bool details = streq(page, "details");
        int r;

        if (!arg.csv) {
                fprintf(stderr, "nvprofilectl: report %s prints CSV only (as ncu --csv does): add --csv.\n", page);
                return EXIT_USAGE;
        }
        if (details && arg.print_metric_instances) {
                fprintf(stderr, "nvprofilectl: --print-metric-instances is an option of report raw.\n");
                return EXIT_USAGE;
        }

        if (!arg.local) {
                _cleanup_free_ char *text = NULL;
                size_t size;

                r = report_fetch_via_daemon(path, details ? "ExportDetails" : "ExportRaw",
                                details ? -1 : (int) arg.print_metric_instances, REPORT_EXPORT_MAX, &text, &size);
                if (r < 0)
                        return r;
                if (r == 0) {
                        if (fwrite(text, 1, size, stdout) != size || fflush(stdout) != 0) {
                                fprintf(stderr, "nvprofilectl: %s: cannot write the export: %s\n", esc(&e, path),
                                                strerror(errno));
                                return errno > 0 ? -errno : -EIO;
                        }
                        return 0;
                }
        }
        r = report_load_local(path, &report);
        if (r < 0)
                return r;

        r = details ? ncu_export_details_csv(report, stdout)
                    : ncu_export_raw_csv(report, arg.print_metric_instances, stdout);
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
