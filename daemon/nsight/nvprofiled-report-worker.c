/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofiled-report-worker: parses one Nsight Compute report from fd 0 into the JSON model on fd 1,
 * confined (report-worker.h). Run by nvprofiled for each LoadReport; not meant to be run by hand, but
 * harmless: "nvprofiled-report-worker < report.ncu-rep". With an argument it writes another output of
 * the report instead of the model: "raw", "raw-instances" or "details", ncu's CSV exports
 * (report-export.h); or "diff [SPEC…]": the comparison of report-diff.h of the report on fd 0 with the
 * baseline on fd 3. Exit status 0: the output was written; 1: an error document was written; 2: the
 * sandbox could not be set up (nothing was read), or a usage error. */

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report-diff.h"
#include "report-export.h"
#include "report-json-attrs.h"
#include "report-worker.h"

typedef enum WorkerOutput {
        OUTPUT_MODEL,
        OUTPUT_RAW,
        OUTPUT_RAW_INSTANCES,
        OUTPUT_DETAILS,
        OUTPUT_DIFF,
} WorkerOutput;

#define BASELINE_FD 3

typedef struct WorkerArgs {
        WorkerOutput output;
        char *const *specs;
        size_t n_specs;
} WorkerArgs;

/* A diff whose specs pair nothing is the caller's mistake: an error document with EDOM. */
static int write_diff(NcuReport *const *reports, FILE *f, const WorkerArgs *a)
{
        struct json_object *doc = NULL;
        char message[NCU_DIFF_MESSAGE_MAX];
        const char *text;
        int r;

        r = ncu_report_diff_json(reports[1], reports[0], a->specs, a->n_specs, &doc, message);
        if (r == -EDOM) {
                doc = json_object_new_object();
                struct json_object *e = json_object_new_object();
                if (!doc || !e) {
                        json_object_put(doc);
                        json_object_put(e);
                        return -ENOMEM;
                }
                json_object_object_add(e, "errno", json_object_new_int(EDOM));
                json_object_object_add(e, "offset", json_object_new_uint64(0));
                json_object_object_add(e, "message", json_object_new_string(message));
                json_object_object_add(doc, "error", e);
        } else if (r < 0)
                return r;
        text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        r = text && fputs(text, f) >= 0 ? (r == -EDOM ? 1 : 0) : -ENOMEM;
        json_object_put(doc);
        return r;
}

static int write_export(NcuReport *const *reports, FILE *f, void *userdata)
{
        const WorkerArgs *a = userdata;
        WorkerOutput o = a->output;

        switch (o) {
        case OUTPUT_RAW:
        case OUTPUT_RAW_INSTANCES:
                return ncu_export_raw_csv(reports[0], o == OUTPUT_RAW_INSTANCES, f);
        case OUTPUT_DETAILS:
                return ncu_export_details_csv(reports[0], f);
        case OUTPUT_DIFF:
                return write_diff(reports, f, a);
        case OUTPUT_MODEL:
                break;
        }
        return -EINVAL;
}

int main(int argc, char *argv[])
{
        WorkerArgs args = { .output = OUTPUT_MODEL };
        const struct passwd *pw;
        uid_t uid = 65534;
        gid_t gid = 65534;
        int r;

        if (argc == 2 && streq(argv[1], "raw"))
                args.output = OUTPUT_RAW;
        else if (argc == 2 && streq(argv[1], "raw-instances"))
                args.output = OUTPUT_RAW_INSTANCES;
        else if (argc == 2 && streq(argv[1], "details"))
                args.output = OUTPUT_DETAILS;
        else if (argc >= 2 && streq(argv[1], "diff") && (size_t) argc - 2 <= NCU_DIFF_SPECS_MAX) {
                args.output = OUTPUT_DIFF;
                args.specs = argv + 2;
                args.n_specs = (size_t) argc - 2;
        } else if (argc > 1) {
                fprintf(stderr, "Usage: %s [raw|raw-instances|details|diff [SPEC...]] < REPORT > OUTPUT\n", argv[0]);
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
        if (args.output == OUTPUT_MODEL)
                r = ncu_worker_run(STDIN_FILENO, STDOUT_FILENO, ncu_json_add_metric_attrs);
        else
                r = ncu_worker_run_output((const int[]){ STDIN_FILENO, BASELINE_FD },
                                args.output == OUTPUT_DIFF ? 2 : 1, STDOUT_FILENO, write_export, &args);
        /* _exit: nothing at exit may need a system call the filter forbids. */
        _exit(r < 0 ? 2 : r);
}
