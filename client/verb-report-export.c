/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "report raw|details|session FILE": ncu's own pages of a report, byte for byte what
 *   ncu --import FILE --page raw|details|session [--csv] [--print-units base|dynamic]
 *       [--print-details header|body|all] [--print-metric-instances none|values|details]
 *       [--print-summary none|per-kernel]
 * prints (daemon/nsight/pages/report-page.h): text by default, CSV with --csv, ncu's defaults for what is not
 * given. The daemon's confined worker makes them (Report.ExportPageEncoded); with --local, or when no daemon serves
 * reports, the report is read in this process with the same code. The bytes are the report's own strings (a
 * kernel's name is whatever its author chose): exact to a pipe, a file or --output=FILE, escaped on a
 * terminal (client-exact-output.c), text and CSV alike. */

#include <errno.h>
#include <string.h>

#include "client.h"
#include "report-page.h"
#include "report.h"
#include "verb-report.h"

#define REPORT_EXPORT_MAX ((size_t) 1024 * 1024 * 1024)

/* The options given, on ncu's defaults. */
static int page_options(NcuPage page, NcuPageOptions *ret)
{
        NcuPageOptions o = NCU_PAGE_OPTIONS_DEFAULT;
        const char *why;

        o.page = page;
        o.csv = arg.csv;
        if (arg.print_units >= 0)
                o.units = arg.print_units;
        if (arg.print_details >= 0)
                o.details = arg.print_details;
        if (arg.print_metric_instances >= 0)
                o.instances = arg.print_metric_instances;
        if (arg.print_summary >= 0)
                o.summary = arg.print_summary;
        if (!ncu_page_options_valid(&o, &why)) {
                fprintf(stderr, "nvprofilectl: report %s: %s.\n", ncu_page_to_string(page), why);
                return EXIT_USAGE;
        }
        *ret = o;
        return 0;
}

static int export_page(NcuPage page, const char *path)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_(ncu_report_freep) NcuReport *report = NULL;
        _cleanup_(exact_output_done) ExactOutput out = { .dir_fd = -EBADF };
        _cleanup_free_ char *text = NULL;
        NcuPageOptions o;
        size_t size = 0;
        int r;

        r = page_options(page, &o);
        if (r != 0)
                return r;

        r = 1;
        if (!arg.local) {
                r = report_fetch_page_via_daemon(path, &o, REPORT_EXPORT_MAX, &text, &size);
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
                r = ncu_page_write(report, &o, out.f);
        else if (fwrite(text, 1, size, out.f) != size)
                r = errno > 0 ? -errno : -EIO;
        if (r >= 0)
                r = exact_output_commit(&out);
        if (r < 0) {
                fprintf(stderr, "nvprofilectl: %s: cannot write the page: %s\n", esc(&e, path), strerror(-r));
                return r;
        }
        return 0;
}

int report_raw(const char *path)
{
        return export_page(NCU_PAGE_RAW, path);
}

int report_details(const char *path)
{
        return export_page(NCU_PAGE_DETAILS, path);
}

int report_session(const char *path)
{
        return export_page(NCU_PAGE_SESSION, path);
}
