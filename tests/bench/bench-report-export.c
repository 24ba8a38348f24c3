/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark: the raw-page CSV export of the largest corpus report, next to NVIDIA's ncu doing the same
 * (ncu --import R --page raw --csv --print-units base: 0.205 s measured for sobelFloat, issue 10; ncu is not
 * installed here). Prints one line per figure: the median of 15 batches.
 *
 *   bench-report-export [CORPUS_DIR] */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "report-csv.h"
#include "bench-util.h"
#include "report.h"

#define BATCHES 15
#define NCU_SECONDS 0.205 /* ncu 2024.1.1, the same export of the same report (issue 10) */

static const char *const largest = "reports/nvidia_example_sobelFloat_ncu2023.3.0.ncu-rep";

int main(int argc, char *argv[])
{
        const char *corpus = argc > 1 ? argv[1] : "../shared/corpus";
        uint64_t load_export[BATCHES], export_only[BATCHES], export_instances[BATCHES], export_details[BATCHES];
        char path[4096];
        int fd;

        snprintf(path, sizeof(path), "%s/%s", corpus, largest);
        FILE *out = fopen("/dev/null", "we");
        if (!out) {
                perror("/dev/null");
                return EXIT_FAILURE;
        }

        for (size_t b = 0; b < BATCHES; b++) {
                NcuReport *r = NULL;
                NcuReportError error;
                uint64_t t0 = bench_now_ns();

                /* What "ncu --import" does: read the file and print the page. */
                fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0) {
                        perror(path);
                        return EXIT_FAILURE;
                }
                if (ncu_report_load_fd(fd, NULL, &r, &error) < 0) {
                        fprintf(stderr, "%s: offset %llu: %s\n", path, (unsigned long long) error.offset,
                                        error.message);
                        return EXIT_FAILURE;
                }
                close(fd);
                if (ncu_export_raw_csv(r, false, out) < 0)
                        return EXIT_FAILURE;
                uint64_t t1 = bench_now_ns();
                if (ncu_export_raw_csv(r, false, out) < 0)
                        return EXIT_FAILURE;
                uint64_t t2 = bench_now_ns();
                if (ncu_export_raw_csv(r, true, out) < 0)
                        return EXIT_FAILURE;
                uint64_t t3 = bench_now_ns();
                if (ncu_export_details_csv(r, out) < 0)
                        return EXIT_FAILURE;
                uint64_t t4 = bench_now_ns();

                load_export[b] = t1 - t0;
                export_only[b] = t2 - t1;
                export_instances[b] = t3 - t2;
                export_details[b] = t4 - t3;
                ncu_report_free(r);
        }
        fclose(out);

        double total = ((double) bench_median_u64(load_export, BATCHES) / 1000.0);
        printf("report raw --csv, sobelFloat (371,507 B), load + export: %.0f us (ncu: %.0f us, %.0fx faster)\n", total,
                        NCU_SECONDS * 1e6, NCU_SECONDS * 1e6 / total);
        printf("report raw --csv, export alone: %.0f us\n", ((double) bench_median_u64(export_only, BATCHES) / 1000.0));
        printf("report raw --csv --print-metric-instances values, export alone: %.0f us\n",
                        ((double) bench_median_u64(export_instances, BATCHES) / 1000.0));
        printf("report details --csv, export alone: %.0f us\n",
                        ((double) bench_median_u64(export_details, BATCHES) / 1000.0));
        return EXIT_SUCCESS;
}
