/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "report raw FILE --csv" and "report details FILE --csv": ncu's own exports of a report, byte for byte
 * (ncu --import FILE --page raw|details --csv --print-units base [--print-metric-instances values]
 * [--print-details all]). The report is read in this process, with the daemon's reader and its limits. */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "fd-util.h"
#include "report-export.h"
#include "report.h"

int verb_report_export(int argc, char *argv[])
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_(ncu_report_freep) NcuReport *report = NULL;
        _cleanup_close_ int fd = -EBADF;
        NcuReportError error = { .offset = 0 };
        bool details;
        int r;

        assert(argc == 2);

        details = streq(argv[0], "details");
        if (!details && !streq(argv[0], "raw")) {
                fprintf(stderr, "nvprofilectl: report %s: not an export page (raw, details).\n", esc(&e, argv[0]));
                return EXIT_USAGE;
        }
        if (!arg.csv) {
                fprintf(stderr, "nvprofilectl: report %s prints CSV only (as ncu --csv does): add --csv.\n", argv[0]);
                return EXIT_USAGE;
        }
        if (details && arg.print_metric_instances) {
                fprintf(stderr, "nvprofilectl: --print-metric-instances is an option of report raw.\n");
                return EXIT_USAGE;
        }

        fd = open(argv[1], O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                r = -errno;
                fprintf(stderr, "nvprofilectl: %s: %s\n", esc(&e, argv[1]), strerror(-r));
                return r;
        }
        r = ncu_report_load_fd(fd, NULL, &report, &error);
        if (r < 0) {
                fprintf(stderr, "nvprofilectl: %s: byte %" PRIu64 ": %s\n", esc(&e, argv[1]), error.offset,
                                error.message);
                return r;
        }

        r = details ? ncu_export_details_csv(report, stdout)
                    : ncu_export_raw_csv(report, arg.print_metric_instances, stdout);
        if (r < 0) {
                fprintf(stderr, "nvprofilectl: %s: cannot write the export: %s\n", esc(&e, argv[1]), strerror(-r));
                return r;
        }
        return 0;
}
