/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofiled-report-worker: parses one Nsight Compute report from fd 0 into the JSON model on fd 1,
 * confined (report-worker.h). Run by nvprofiled for each LoadReport; not meant to be run by hand, but
 * harmless: "nvprofiled-report-worker < report.ncu-rep". With an argument it writes another output of
 * the report instead of the model: "raw", "raw-instances" or "details", ncu's CSV exports
 * (report-export.h). Exit status 0: the output was written; 1: an error document was written; 2: the
 * sandbox could not be set up (nothing was read), or a usage error. */

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report-export.h"
#include "report-json-attrs.h"
#include "report-worker.h"

typedef enum WorkerOutput {
        OUTPUT_MODEL,
        OUTPUT_RAW,
        OUTPUT_RAW_INSTANCES,
        OUTPUT_DETAILS,
} WorkerOutput;

static int write_export(NcuReport *const *reports, FILE *f, void *userdata)
{
        WorkerOutput o = *(const WorkerOutput *) userdata;

        switch (o) {
        case OUTPUT_RAW:
        case OUTPUT_RAW_INSTANCES:
                return ncu_export_raw_csv(reports[0], o == OUTPUT_RAW_INSTANCES, f);
        case OUTPUT_DETAILS:
                return ncu_export_details_csv(reports[0], f);
        case OUTPUT_MODEL:
                break;
        }
        return -EINVAL;
}

int main(int argc, char *argv[])
{
        WorkerOutput output = OUTPUT_MODEL;
        const struct passwd *pw;
        uid_t uid = 65534;
        gid_t gid = 65534;
        int r;

        if (argc == 2 && streq(argv[1], "raw"))
                output = OUTPUT_RAW;
        else if (argc == 2 && streq(argv[1], "raw-instances"))
                output = OUTPUT_RAW_INSTANCES;
        else if (argc == 2 && streq(argv[1], "details"))
                output = OUTPUT_DETAILS;
        else if (argc > 1) {
                fprintf(stderr, "Usage: %s [raw|raw-instances|details] < REPORT > OUTPUT\n", argv[0]);
                return 2;
        }
        /* The caller's descriptor may be non-blocking (a pipe): the reader wants blocking reads, and
         * fcntl is not allowed later. */
        {
                int flags = fcntl(STDIN_FILENO, F_GETFL);
                if (flags >= 0 && (flags & O_NONBLOCK))
                        (void) fcntl(STDIN_FILENO, F_SETFL, flags & ~O_NONBLOCK);
        }
        /* The user name is resolved before the filter: afterwards nothing can be opened. */
        pw = getpwnam(NCU_REPORT_WORKER_USER);
        if (pw) {
                uid = pw->pw_uid;
                gid = pw->pw_gid;
        }
        r = ncu_worker_sandbox(uid, gid);
        if (r < 0) {
                fprintf(stderr, "%s: cannot confine itself: %s\n", argv[0], strerror(-r));
                return 2;
        }
        if (output == OUTPUT_MODEL)
                r = ncu_worker_run(STDIN_FILENO, STDOUT_FILENO, ncu_report_to_json_attrs);
        else
                r = ncu_worker_run_output((const int[]){ STDIN_FILENO }, 1, STDOUT_FILENO, write_export, &output);
        /* _exit: nothing at exit may need a system call the filter forbids. */
        _exit(r < 0 ? 2 : r);
}
